//! Contacts: `POST/GET /v1/contacts`, `GET/PATCH /v1/contacts/{id}`, the header-versioned
//! `GET /contacts` and `GET /contacts/{contactId}`, the workspace's custom field definitions,
//! and the activity simulator's contact deletion. OWNER: contacts-tasks.

pub mod model;
pub mod util;
pub mod validate;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use serde_json::{Map, Value, json};

use crate::app::App;
use crate::auth::{self, Caller};
use crate::directory::{self, Directory};
use crate::errors;

use model::{Contact, Content, Entry, FieldDef, FieldKind, FieldValue};
use util::{chars, fmt_ts, nanos, now, parse_ts, query_pairs, seed_ts};
use validate::CErr;

/// Prefix of contact ids.
const ID_PREFIX: &str = "ctc_";
/// Prefix of contact page tokens (v1 and header-versioned lists).
const TOKEN_PREFIX: &str = "cq1.";
/// The stated page size bounds of contact lists (both generations, READINGS 4.4).
const MAX_PAGE: usize = 50;
const DEFAULT_PAGE: usize = 10;
/// The string custom field of the profile and a value contacts hold there.
const TEXT_FIELD_KEY: &str = "referral-source";
const TEXT_FIELD_VALUE: &str = "Google Maps";
/// The multi-select custom field of the profile.
const MULTI_FIELD_KEY: &str = "services-of-interest";

/// Contacts and custom field definitions of every workspace.
pub struct Store {
    /// Custom field definitions per workspace (fixed after seeding).
    defs: BTreeMap<String, Vec<FieldDef>>,
    inner: Mutex<Inner>,
}

struct Inner {
    contacts: Vec<Contact>,
    next_seq: u64,
}

fn defs_for(org: &str, tag: &str) -> Vec<FieldDef> {
    let d = |n: &str, key: &str, name: &str, kind: FieldKind, options: &[&str]| FieldDef {
        id: format!("cfd_{tag}{n}"),
        key: key.to_string(),
        name: name.to_string(),
        kind,
        options: options.iter().map(|s| s.to_string()).collect(),
    };
    let _ = org;
    vec![
        d(
            "01",
            TEXT_FIELD_KEY,
            "Referral source",
            FieldKind::Text,
            &[],
        ),
        d(
            "02",
            "insurance-plan",
            "Insurance plan",
            FieldKind::Text,
            &[],
        ),
        d(
            "03",
            MULTI_FIELD_KEY,
            "Services of interest",
            FieldKind::MultiSelect,
            &[
                "Cleaning",
                "Whitening",
                "Orthodontics",
                "Implants",
                "Pediatric care",
            ],
        ),
        d(
            "04",
            "lifetime-value",
            "Lifetime value",
            FieldKind::Number,
            &[],
        ),
        d("05", "last-visit", "Last visit", FieldKind::Date, &[]),
    ]
}

struct Seed<'a> {
    id: &'a str,
    org: &'a str,
    first: Option<&'a str>,
    last: Option<&'a str>,
    company: Option<&'a str>,
    role: Option<&'a str>,
    emails: &'a [(&'a str, &'a str)],
    phones: &'a [(&'a str, &'a str)],
    external: Option<&'a str>,
    source: Option<&'a str>,
    url: Option<&'a str>,
    custom: &'a [(&'a str, Value)],
    by: Option<&'a str>,
    created: &'a str,
    updated: &'a str,
}

impl Store {
    /// The seeded store.
    pub fn seeded(_directory: &Directory) -> Store {
        let mut defs = BTreeMap::new();
        defs.insert(
            directory::PRIMARY_ORG.to_string(),
            defs_for(directory::PRIMARY_ORG, "p7k2"),
        );
        defs.insert(
            directory::INTL_DISABLED_ORG.to_string(),
            defs_for(directory::INTL_DISABLED_ORG, "i3w9"),
        );
        defs.insert(
            directory::EXPIRED_ORG.to_string(),
            defs_for(directory::EXPIRED_ORG, "x5m1"),
        );
        let p = directory::PRIMARY_ORG;
        let seeds = [
            Seed {
                id: "ctc_h4t2kq9w1z8m3v6p0rb5",
                org: p,
                first: Some("Lena"),
                last: Some("Marquez"),
                company: Some("Bayside Physio"),
                role: Some("Office manager"),
                emails: &[("work", "lena@baysidephysio.example")],
                phones: &[("mobile", "+14155550123")],
                external: Some("crm-100234"),
                source: Some("public-api"),
                url: Some("https://crm.bayside.example/contacts/100234"),
                custom: &[
                    (TEXT_FIELD_KEY, json!(TEXT_FIELD_VALUE)),
                    (MULTI_FIELD_KEY, json!(["Whitening", "Cleaning"])),
                    ("last-visit", json!("2025-08-14")),
                ],
                by: Some(directory::OWNER_USER),
                created: "2024-02-03T15:20:11.204Z",
                updated: "2025-08-15T09:02:44.870Z",
            },
            Seed {
                id: "ctc_b8n1x6c3f5d7q2w9j4s0",
                org: p,
                first: Some("Arjun"),
                last: Some("Patel"),
                company: None,
                role: None,
                emails: &[],
                phones: &[("home", "+16505550188")],
                external: Some("imp-2024-0007"),
                source: Some("csv"),
                url: None,
                custom: &[
                    ("insurance-plan", json!("Delta PPO")),
                    ("lifetime-value", json!("1840.00")),
                ],
                by: Some(directory::MEMBER_USER),
                created: "2024-04-19T11:05:37.918Z",
                updated: "2024-04-19T11:05:37.918Z",
            },
            Seed {
                id: "ctc_m2r7y0e4u9i1o6a3s8d5",
                org: p,
                first: Some("Chloe"),
                last: Some("Bernard"),
                company: None,
                role: None,
                emails: &[("personal", "chloe.bernard@mail.example")],
                phones: &[],
                external: None,
                source: None,
                url: None,
                custom: &[(TEXT_FIELD_KEY, json!("Patient referral"))],
                by: Some(directory::OWNER_USER),
                created: "2024-07-08T17:44:02.530Z",
                updated: "2025-01-22T08:15:59.013Z",
            },
            Seed {
                id: "ctc_w5q8e1r4t7y0u3i6o9p2",
                org: p,
                first: Some("Marcus"),
                last: Some("Webb"),
                company: Some("Webb Roofing"),
                role: Some("Owner"),
                emails: &[],
                phones: &[("mobile", "+13105550147"), ("work", "+13105550148")],
                external: None,
                source: Some("device"),
                url: None,
                custom: &[],
                by: Some(directory::MEMBER_USER),
                created: "2024-11-30T20:01:45.377Z",
                updated: "2024-11-30T20:01:45.377Z",
            },
            Seed {
                id: "ctc_k3j6h9g2f5d8s1a4z7x0",
                org: p,
                first: Some("Sofia"),
                last: Some("Rossi"),
                company: Some("Rossi & Figli"),
                role: None,
                emails: &[("work", "sofia@rossifigli.example")],
                phones: &[("work", "+12125550176")],
                external: Some("hs-88120431"),
                source: Some("hubspot-export"),
                url: Some("https://app.hubspot.example/contacts/88120431"),
                custom: &[
                    (TEXT_FIELD_KEY, json!(TEXT_FIELD_VALUE)),
                    (MULTI_FIELD_KEY, json!(["Implants"])),
                ],
                by: Some(directory::ADMIN_USER),
                created: "2025-03-12T13:37:20.661Z",
                updated: "2025-10-02T16:48:03.224Z",
            },
            Seed {
                id: "ctc_v0c9x8z7l6k5j4h3g2f1",
                org: p,
                first: Some("Kenji"),
                last: Some("Watanabe"),
                company: None,
                role: None,
                emails: &[],
                phones: &[("mobile", "+14085550163")],
                external: Some("crm-100511"),
                source: Some("public-api"),
                url: None,
                custom: &[("insurance-plan", json!("Aetna DMO"))],
                by: Some(directory::OWNER_USER),
                created: "2025-09-27T10:10:10.010Z",
                updated: "2025-09-27T10:10:10.010Z",
            },
            Seed {
                id: "ctc_q1a2z3w4s5x6e7d8c9r0",
                org: directory::INTL_DISABLED_ORG,
                first: Some("Greta"),
                last: Some("Holm"),
                company: None,
                role: Some("Tenant"),
                emails: &[],
                phones: &[("mobile", "+13125550104")],
                external: Some("unit-4b"),
                source: Some("public-api"),
                url: None,
                custom: &[],
                by: Some(directory::INTL_DISABLED_USER),
                created: "2024-05-05T05:05:05.505Z",
                updated: "2024-05-05T05:05:05.505Z",
            },
            Seed {
                id: "ctc_t9g8b7n6m5j4u3y2h1k0",
                org: directory::EXPIRED_ORG,
                first: Some("Ivo"),
                last: Some("Novak"),
                company: Some("Novak Gardens"),
                role: None,
                emails: &[],
                phones: &[("work", "+12065550199")],
                external: None,
                source: None,
                url: None,
                custom: &[],
                by: Some(directory::EXPIRED_USER),
                created: "2023-03-03T03:03:03.303Z",
                updated: "2023-03-03T03:03:03.303Z",
            },
        ];
        let mut contacts: Vec<Contact> = Vec::new();
        let mut n = 0u64;
        let mut seeds: Vec<&Seed> = seeds.iter().collect();
        seeds.sort_by_key(|s| nanos(seed_ts(s.created)));
        for s in seeds {
            n += 1;
            let org_defs = defs.get(s.org).cloned().unwrap_or_default();
            let entry = |prefix: &str, i: usize, (name, value): &(&str, &str)| Entry {
                id: format!("{prefix}{}{i}", &s.id[4..14]),
                name: Some(name.to_string()),
                value: value.to_string(),
            };
            let custom = s
                .custom
                .iter()
                .filter_map(|(k, v)| {
                    org_defs.iter().find(|d| d.key == *k).map(|d| FieldValue {
                        def_id: d.id.clone(),
                        key: d.key.clone(),
                        name: d.name.clone(),
                        kind: d.kind,
                        value: v.clone(),
                    })
                })
                .collect();
            contacts.push(Contact {
                id: s.id.to_string(),
                org_id: s.org.to_string(),
                seq: n,
                content: Content {
                    external_id: s.external.map(str::to_string),
                    source: s.source.map(str::to_string),
                    source_url: s.url.map(str::to_string),
                    company: s.company.map(str::to_string),
                    first_name: s.first.map(str::to_string),
                    last_name: s.last.map(str::to_string),
                    role: s.role.map(str::to_string),
                    emails: s
                        .emails
                        .iter()
                        .enumerate()
                        .map(|(i, e)| entry("cem_", i, e))
                        .collect(),
                    phones: s
                        .phones
                        .iter()
                        .enumerate()
                        .map(|(i, e)| entry("cph_", i, e))
                        .collect(),
                    custom,
                },
                created_at: seed_ts(s.created),
                updated_at: seed_ts(s.updated),
                created_by: s.by.map(str::to_string),
                version: 1,
            });
        }
        Store {
            defs,
            inner: Mutex::new(Inner {
                contacts,
                next_seq: n + 1,
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn defs(&self, org: &str) -> &[FieldDef] {
        self.defs.get(org).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The profile fixtures of this area's seeded data (names and meanings: docs/profile.md).
    pub fn fixtures(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("custom_field_key".into(), json!(TEXT_FIELD_KEY));
        m.insert("custom_field_value".into(), json!(TEXT_FIELD_VALUE));
        m.insert("custom_field_multi_key".into(), json!(MULTI_FIELD_KEY));
        m.insert("brand_name".into(), json!(validate::BRAND_NAME));
        m.insert(
            "automation_integration_name".into(),
            json!(validate::AUTOMATION_INTEGRATIONS[0]),
        );
        m.insert(
            "contacts_sync_integration_name".into(),
            json!(validate::CONTACTS_SYNC_INTEGRATIONS[0]),
        );
        m
    }
}

// ------------------------------------------------------------------------------------------
// Error bodies.

fn v1_err(e: CErr) -> Response {
    match e {
        CErr::Bad(m, errs) => {
            errors::v1_errors(StatusCode::BAD_REQUEST, "0802400", "Bad Request", m, errs)
        }
        CErr::Field(m, errs) => errors::v1_errors(
            StatusCode::BAD_REQUEST,
            "0801400",
            "Invalid Custom Field Item",
            m,
            errs,
        ),
        CErr::NotFound(m) => errors::v1(StatusCode::NOT_FOUND, "0800404", "Not Found", m),
        CErr::Conflict(m) => errors::v1(StatusCode::CONFLICT, "0800409", "Conflict", m),
    }
}

fn latest_err(e: CErr) -> Response {
    match e {
        CErr::Bad(m, _) => errors::latest(StatusCode::BAD_REQUEST, "Bad Request", m),
        CErr::Field(m, _) => {
            errors::latest(StatusCode::BAD_REQUEST, "Invalid Custom Field Item", m)
        }
        CErr::NotFound(m) => errors::latest(StatusCode::NOT_FOUND, "Not Found", m),
        CErr::Conflict(m) => errors::latest(StatusCode::CONFLICT, "Conflict", m),
    }
}

fn v1_unauthorized() -> Response {
    errors::v1(
        StatusCode::UNAUTHORIZED,
        "0800401",
        "Unauthorized",
        "A valid API key is required in the Authorization header",
    )
}

fn ok(status: StatusCode, data: Value) -> Response {
    errors::json_response(status, &json!({ "data": data }))
}

/// The contact as answered to a client (faults may change how it is shown).
fn render(app: &App, c: &Contact) -> Value {
    let mut v = c.render();
    if app.faults.on("b16-contacts-timestamps-local-offset") {
        let local = time::UtcOffset::from_hms(2, 0, 0).unwrap_or(time::UtcOffset::UTC);
        let fmt = time::macros::format_description!(
            "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3][offset_hour sign:mandatory]:[offset_minute]"
        );
        if let Value::Object(m) = &mut v {
            for (k, t) in [("createdAt", c.created_at), ("updatedAt", c.updated_at)] {
                if let Ok(s) = t.to_offset(local).format(&fmt) {
                    m.insert(k.into(), Value::String(s));
                }
            }
        }
    }
    v
}

/// An invalid custom field item refused with the generic 400 (fault).
fn field_fault(app: &App, e: CErr) -> CErr {
    match e {
        CErr::Field(m, errs) if app.faults.on("b16-contacts-custom-field-generic-400") => {
            CErr::Bad(m, errs)
        }
        other => other,
    }
}

/// Missing or invalid credentials on the header-versioned contact routes answered 403 (fault).
fn latest_auth_fault(app: &App, headers: &HeaderMap) -> Option<Response> {
    if app.faults.on("b16-auth-contacts-latest-403") && auth::authenticate(app, headers).is_none() {
        return Some(errors::latest(
            StatusCode::FORBIDDEN,
            "Forbidden",
            "Not allowed to read contacts",
        ));
    }
    None
}

fn not_found(id: &str) -> CErr {
    let shown: String = id.chars().take(80).collect();
    CErr::NotFound(format!(
        "No contact with id `{shown}` exists in this workspace"
    ))
}

// ------------------------------------------------------------------------------------------
// Lists.

/// What a list keeps: every set of external ids (and of sources) must hold the contact's
/// (each set an OR, the sets ANDed), and every time bound must hold.
#[derive(Default)]
struct Filter {
    external: Vec<Vec<String>>,
    sources: Vec<Vec<String>>,
    times: Vec<(bool, &'static str, time::OffsetDateTime)>,
}

impl Filter {
    fn keeps(&self, c: &Contact) -> bool {
        let ext = c.content.external_id.as_deref();
        let src = c.content.source.as_deref();
        self.external
            .iter()
            .all(|set| ext.is_some_and(|e| set.iter().any(|x| x == e)))
            && self
                .sources
                .iter()
                .all(|set| src.is_some_and(|s| set.iter().any(|x| x == s)))
            && self.times.iter().all(|(updated, op, t)| {
                let v = if *updated { c.updated_at } else { c.created_at };
                match *op {
                    "gte" => v >= *t,
                    "gt" => v > *t,
                    "lte" => v <= *t,
                    _ => v < *t,
                }
            })
    }
}

struct ListQuery {
    filter: Filter,
    max: usize,
    token: Option<String>,
    desc: bool,
    by_updated: bool,
}

fn one_of(pairs: &[(String, String)], key: &str) -> Result<Option<String>, CErr> {
    let mut vals = pairs.iter().filter(|(k, _)| k == key);
    let first = vals.next().map(|(_, v)| v.clone());
    if vals.next().is_some() {
        return Err(CErr::Bad(
            format!("The query parameter `{key}` may be given once"),
            Vec::new(),
        ));
    }
    Ok(first)
}

fn bounded(v: &str, name: &str) -> Result<String, CErr> {
    let t = v.trim();
    if t.is_empty() || chars(t) > 75 {
        return Err(CErr::Bad(
            format!("Each `{name}` value must be 1 to 75 characters"),
            Vec::new(),
        ));
    }
    Ok(t.to_string())
}

fn v1_query(app: &App, raw: Option<&str>) -> Result<(ListQuery, Vec<(String, String)>), CErr> {
    let pairs = query_pairs(raw);
    for (k, _) in &pairs {
        if !["externalIds", "sources", "maxResults", "pageToken"].contains(&k.as_str()) {
            return Err(CErr::Bad(
                format!(
                    "Unknown query parameter `{k}`; GET /v1/contacts takes externalIds, sources, maxResults, pageToken"
                ),
                Vec::new(),
            ));
        }
    }
    let mut filter = Filter::default();
    for (key, into) in [
        ("externalIds", &mut filter.external),
        ("sources", &mut filter.sources),
    ] {
        let vals: Vec<String> = pairs
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| bounded(v, key))
            .collect::<Result<_, _>>()?;
        let vals = if key == "externalIds" && app.faults.on("b16-contacts-externalids-last-only") {
            vals.into_iter().last().into_iter().collect()
        } else {
            vals
        };
        if !vals.is_empty() {
            into.push(vals);
        }
    }
    let max_page = if app.faults.on("b16-contacts-maxresults-50-refused") {
        MAX_PAGE - 1
    } else {
        MAX_PAGE
    };
    let max = util::max_results(
        one_of(&pairs, "maxResults")?.as_deref(),
        Some(DEFAULT_PAGE),
        max_page,
    )
    .map_err(|m| CErr::Bad(m, Vec::new()))?;
    let token = one_of(&pairs, "pageToken")?;
    Ok((
        ListQuery {
            filter,
            max,
            token,
            desc: true,
            by_updated: false,
        },
        pairs,
    ))
}

fn latest_query(app: &App, raw: Option<&str>) -> Result<(ListQuery, Vec<(String, String)>), CErr> {
    let pairs = query_pairs(raw);
    let mut filter = Filter::default();
    let mut seen: Vec<&str> = Vec::new();
    let (mut desc, mut by_updated) = (false, false);
    let mut max = DEFAULT_PAGE;
    let mut token = None;
    for (k, v) in &pairs {
        if seen.contains(&k.as_str()) {
            return Err(CErr::Bad(
                format!("The query parameter `{k}` may be given once"),
                Vec::new(),
            ));
        }
        seen.push(k);
        match k.as_str() {
            "externalId" => filter.external.push(vec![bounded(v, k)?]),
            "source" => filter.sources.push(vec![bounded(v, k)?]),
            "externalId[in]" | "source[in]" => {
                let set: Vec<String> = v
                    .split(',')
                    .map(|x| bounded(x, k))
                    .collect::<Result<_, _>>()?;
                if set.len() > 100 {
                    return Err(CErr::Bad(
                        format!("`{k}` takes at most 100 values"),
                        Vec::new(),
                    ));
                }
                if k.starts_with("externalId") {
                    filter.external.push(set);
                } else if !app.faults.on("b16-contacts-latest-source-in-ignored") {
                    filter.sources.push(set);
                }
            }
            "maxResults" => {
                max = util::max_results(Some(v), Some(DEFAULT_PAGE), MAX_PAGE)
                    .map_err(|m| CErr::Bad(m, Vec::new()))?
            }
            "pageToken" => token = Some(v.clone()),
            "sort" => match v.as_str() {
                "createdAt:asc" => (desc, by_updated) = (false, false),
                "createdAt:desc" => (desc, by_updated) = (true, false),
                "updatedAt:asc" => (desc, by_updated) = (false, true),
                "updatedAt:desc" => (desc, by_updated) = (true, true),
                _ => {
                    return Err(CErr::Bad(
                        format!(
                            "`sort` must be one of createdAt:asc, createdAt:desc, updatedAt:asc, updatedAt:desc, got `{v}`"
                        ),
                        Vec::new(),
                    ));
                }
            },
            other => {
                let time_filter = other
                    .strip_suffix(']')
                    .and_then(|s| s.split_once('['))
                    .filter(|(f, op)| {
                        ["createdAt", "updatedAt"].contains(f)
                            && ["gte", "gt", "lte", "lt"].contains(op)
                    });
                match time_filter {
                    Some((f, op)) => {
                        let t = parse_ts(v).ok_or_else(|| {
                            CErr::Bad(format!("`{other}` must be an RFC 3339 date-time with an offset, got `{v}`"), Vec::new())
                        })?;
                        let op: &'static str = match op {
                            "gte" => "gte",
                            "gt" => "gt",
                            "lte" => "lte",
                            _ => "lt",
                        };
                        filter.times.push((f == "updatedAt", op, t));
                    }
                    None => {
                        return Err(CErr::Bad(
                            format!(
                                "Unknown query parameter `{other}`; GET /contacts takes externalId, source, externalId[in], source[in], createdAt[gte|gt|lte|lt], updatedAt[gte|gt|lte|lt], sort, maxResults, pageToken"
                            ),
                            Vec::new(),
                        ));
                    }
                }
            }
        }
    }
    Ok((
        ListQuery {
            filter,
            max,
            token,
            desc,
            by_updated,
        },
        pairs,
    ))
}

fn list(
    app: &App,
    caller: &Caller,
    area: &str,
    q: ListQuery,
    pairs: &[(String, String)],
) -> Result<Value, CErr> {
    let fp = util::fingerprint(area, &caller.key, pairs)
        ^ u64::from(q.desc)
        ^ (u64::from(q.by_updated) << 1);
    let after = match &q.token {
        None => None,
        Some(t) => Some(util::read_token(TOKEN_PREFIX, t, fp).ok_or_else(|| {
            CErr::Bad(
                "`pageToken` is not a token this service issued for this query".into(),
                Vec::new(),
            )
        })?),
    };
    let inner = app.contacts.lock();
    let items: Vec<((i128, u64), &Contact)> = inner
        .contacts
        .iter()
        .filter(|c| c.org_id == caller.org_id && q.filter.keeps(c))
        .map(|c| {
            (
                (
                    nanos(if q.by_updated {
                        c.updated_at
                    } else {
                        c.created_at
                    }),
                    c.seq,
                ),
                c,
            )
        })
        .collect();
    let total = items.len();
    let (page, last) = util::keyset_page(items, q.desc, after, q.max);
    let data: Vec<Value> = page.iter().map(|c| render(app, c)).collect();
    drop(inner);
    let next = last.map(|(ts, seq)| util::issue_token(TOKEN_PREFIX, fp, ts, seq));
    Ok(json!({ "data": data, "totalItems": total, "nextPageToken": next }))
}

async fn v1_list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let Some(caller) = auth::authenticate(&app, &headers) else {
        return v1_unauthorized();
    };
    match v1_query(&app, raw.as_deref()).and_then(|(q, pairs)| list(&app, &caller, "v1", q, &pairs))
    {
        Ok(body) => errors::json_response(StatusCode::OK, &body),
        Err(e) => v1_err(e),
    }
}

async fn latest_list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    if let Some(r) = latest_auth_fault(&app, &headers) {
        return r;
    }
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    match latest_query(&app, raw.as_deref())
        .and_then(|(q, pairs)| list(&app, &caller, "latest", q, &pairs))
    {
        Ok(body) => errors::json_response(StatusCode::OK, &body),
        Err(e) => latest_err(e),
    }
}

// ------------------------------------------------------------------------------------------
// One contact.

fn find(app: &App, caller: &Caller, id: &str) -> Result<Contact, CErr> {
    if !id.starts_with(ID_PREFIX) || id.len() > 64 {
        return Err(not_found(id));
    }
    app.contacts
        .lock()
        .contacts
        .iter()
        .find(|c| c.id == id && c.org_id == caller.org_id)
        .cloned()
        .ok_or_else(|| not_found(id))
}

async fn v1_get(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Response {
    let Some(caller) = auth::authenticate(&app, &headers) else {
        return v1_unauthorized();
    };
    match find(&app, &caller, &id) {
        Ok(c) => ok(StatusCode::OK, render(&app, &c)),
        Err(e) => v1_err(e),
    }
}

async fn latest_get(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    Path(id): Path<String>,
) -> Response {
    if let Some(r) = latest_auth_fault(&app, &headers) {
        return r;
    }
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    if let Some((k, _)) = query_pairs(raw.as_deref()).first() {
        return errors::latest(
            StatusCode::BAD_REQUEST,
            "Bad Request",
            format!("Unknown query parameter `{k}`; GET /contacts/{{contactId}} takes none"),
        );
    }
    match find(&app, &caller, &id) {
        Ok(c) => ok(StatusCode::OK, render(&app, &c)),
        Err(e) => latest_err(e),
    }
}

fn body_object(headers: &HeaderMap, body: &[u8]) -> Result<Map<String, Value>, CErr> {
    match util::json_object(headers, body) {
        Ok(Some(m)) => Ok(m),
        Ok(None) => Err(CErr::Bad(
            "A JSON object body is required".into(),
            Vec::new(),
        )),
        Err(e) => Err(CErr::Bad(e.message(), Vec::new())),
    }
}

fn conflict_external(
    inner: &Inner,
    org: &str,
    ext: Option<&str>,
    except: Option<&str>,
) -> Result<(), CErr> {
    if let Some(ext) = ext {
        if let Some(other) = inner.contacts.iter().find(|c| {
            c.org_id == org
                && c.content.external_id.as_deref() == Some(ext)
                && Some(c.id.as_str()) != except
        }) {
            return Err(CErr::Conflict(format!(
                "The externalId `{ext}` already belongs to contact `{}` of this workspace",
                other.id
            )));
        }
    }
    Ok(())
}

fn event_context(c: &Contact, caller: &Caller) -> Value {
    json!({
        "contactId": c.id,
        "externalId": c.content.external_id,
        "phoneNumbers": c.content.phones.iter().map(|p| p.value.clone()).collect::<Vec<_>>(),
        "userId": caller.user_id,
    })
}

async fn v1_create(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let Some(caller) = auth::authenticate(&app, &headers) else {
        return v1_unauthorized();
    };
    let result = (|| {
        let body = body_object(&headers, &body)?;
        let rules = validate::SourceRules {
            max: if app.faults.on("b16-contacts-create-source-75") {
                75
            } else {
                72
            },
            prefixes: !app.faults.on("b16-contacts-reserved-prefix-allowed"),
        };
        let (content, created_by) =
            validate::create(app.contacts.defs(&caller.org_id), &body, &rules)
                .map_err(|e| field_fault(&app, e))?;
        if let Some(u) = &created_by {
            if app
                .directory
                .user(u)
                .is_none_or(|u| u.org_id != caller.org_id)
            {
                return Err(CErr::NotFound(format!(
                    "No user `{u}` exists in this workspace (createdByUserId)"
                )));
            }
        }
        let mut inner = app.contacts.lock();
        conflict_external(&inner, &caller.org_id, content.external_id.as_deref(), None)?;
        let t = now();
        let seq = inner.next_seq;
        inner.next_seq += 1;
        let mut id = util::new_id(ID_PREFIX, 20);
        while inner.contacts.iter().any(|c| c.id == id) {
            id = util::new_id(ID_PREFIX, 20);
        }
        let contact = Contact {
            id,
            org_id: caller.org_id.clone(),
            seq,
            content,
            created_at: t,
            updated_at: t,
            created_by: Some(created_by.unwrap_or_else(|| caller.user_id.clone())),
            version: 1,
        };
        inner.contacts.push(contact.clone());
        Ok(contact)
    })();
    match result {
        Ok(c) => {
            let data = c.render();
            crate::events::emit(
                &app,
                &caller.org_id,
                "contact.updated",
                data.clone(),
                event_context(&c, &caller),
                None,
            );
            ok(StatusCode::CREATED, render(&app, &c))
        }
        Err(e) => v1_err(e),
    }
}

async fn v1_patch(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let Some(caller) = auth::authenticate(&app, &headers) else {
        return v1_unauthorized();
    };
    let result = (|| {
        let body = body_object(&headers, &body)?;
        let old = find(&app, &caller, &id)?;
        let mut content = validate::update(app.contacts.defs(&caller.org_id), &body, &old)
            .map_err(|e| field_fault(&app, e))?;
        if app.faults.on("b16-contacts-patch-keeps-omitted-entries") {
            // Entries of a kind the body does not name are kept as they were.
            let df = body.get("defaultFields");
            if df.and_then(|d| d.get("emails")).is_none() {
                content.emails = old.content.emails.clone();
            }
            if df.and_then(|d| d.get("phoneNumbers")).is_none() {
                content.phones = old.content.phones.clone();
            }
        }
        if app
            .faults
            .on("b16-contacts-patch-keeps-omitted-custom-fields")
        {
            for f in &old.content.custom {
                if !content.custom.iter().any(|n| n.key == f.key) {
                    content.custom.push(f.clone());
                }
            }
        }
        let mut inner = app.contacts.lock();
        conflict_external(
            &inner,
            &caller.org_id,
            content.external_id.as_deref(),
            Some(&old.id),
        )?;
        let Some(c) = inner.contacts.iter_mut().find(|c| c.id == old.id) else {
            return Err(not_found(&id));
        };
        if c.version != old.version {
            return Err(CErr::Conflict(
                "The contact changed while this update was checked; read it again and resend"
                    .into(),
            ));
        }
        c.content = content;
        c.updated_at = now().max(c.updated_at);
        c.version += 1;
        Ok(c.clone())
    })();
    match result {
        Ok(c) => {
            let data = c.render();
            if !app.faults.on("b16-contacts-patch-no-event") {
                crate::events::emit(
                    &app,
                    &caller.org_id,
                    "contact.updated",
                    data.clone(),
                    event_context(&c, &caller),
                    None,
                );
            }
            ok(StatusCode::OK, render(&app, &c))
        }
        Err(e) => v1_err(e),
    }
}

/// The activity simulator's `{"kind": "delete-contact", "contactId"}`: deletes a contact of the
/// caller's workspace and fires `contact.deleted`; answers 200 with the deleted contact.
pub async fn simulate_delete(app: &Arc<App>, caller: &Caller, body: &Value) -> Response {
    let id = match body.get("contactId") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        _ => {
            return v1_err(CErr::Bad(
                "`contactId` (a string) is required to delete a contact".into(),
                Vec::new(),
            ));
        }
    };
    let removed = {
        let mut inner = app.contacts.lock();
        match inner
            .contacts
            .iter()
            .position(|c| c.id == id && c.org_id == caller.org_id)
        {
            Some(i) => inner.contacts.remove(i),
            None => return v1_err(not_found(&id)),
        }
    };
    let mut data = removed.render();
    if let Value::Object(m) = &mut data {
        m.insert("deletedAt".into(), json!(fmt_ts(now())));
        m.insert("isDeleted".into(), json!(true));
    }
    let event = if app.faults.on("b16-events-contact-deleted-as-updated") {
        "contact.updated"
    } else {
        "contact.deleted"
    };
    crate::events::emit(
        app,
        &caller.org_id,
        event,
        data.clone(),
        event_context(&removed, caller),
        None,
    );
    ok(StatusCode::OK, data)
}

async fn v1_method(headers: HeaderMap) -> Response {
    let _ = headers;
    errors::v1(
        StatusCode::METHOD_NOT_ALLOWED,
        "0800405",
        "Method Not Allowed",
        "This method is not served on this contacts path",
    )
}

async fn latest_method() -> Response {
    errors::latest(
        StatusCode::METHOD_NOT_ALLOWED,
        "Method Not Allowed",
        "This method is not served on this contacts path",
    )
}

/// This area's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/v1/contacts",
            get(v1_list).post(v1_create).fallback(v1_method),
        )
        .route(
            "/v1/contacts/{id}",
            get(v1_get).patch(v1_patch).fallback(v1_method),
        )
        .route("/contacts", get(latest_list).fallback(latest_method))
        .route(
            "/contacts/{contactId}",
            get(latest_get).fallback(latest_method),
        )
}
