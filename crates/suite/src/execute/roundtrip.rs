//! The contact round trip: random valid contacts (Unicode names, emails, phone numbers, a custom
//! field) read back equal to what was sent through create, get, list and PATCH. Fields may be
//! absent or null in answers (READINGS 1.3); a value that is there must equal what was sent, and
//! after PATCH the entries are exactly the ones sent (READINGS 2.6).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use proptest::prelude::*;
use serde_json::{Map, Value, json};

use super::Executor;
use super::search::{Found, failures, input_note, runner_for, search};
use crate::cases::properties::generate::e164;
use crate::cases::{Case, Request};
use crate::client::Exchange;
use crate::results::{Failure, Finding};
/// The clauses of the round trip's read-backs.
const CONTACT: &str = "Resources > Contact";
const GET: &str = "Header-versioned API > GET /contacts/{contactId}";
const PATCH: &str = "v1 API: contacts > PATCH /v1/contacts/{id}";

const WORD_CHARS: &[char] = &[
    'a', 'e', 'k', 'o', 'z', 'A', 'Ł', 'Å', 'é', 'ü', 'ñ', 'ß', 'ø', 'Ω', 'λ', '漢', '字', 'テ',
    '\'',
];

fn words() -> SBoxedStrategy<String> {
    proptest::collection::vec(
        proptest::collection::vec(proptest::sample::select(WORD_CHARS), 1..=8),
        1..=3,
    )
    .prop_map(|ws| {
        ws.into_iter()
            .map(|w| w.into_iter().collect::<String>())
            .collect::<Vec<_>>()
            .join(" ")
    })
    .sboxed()
}

/// A random contact; its custom field, when it has one, holds the value the target showed under
/// the key (the field's type is not shown, READINGS 6.6).
fn contact(custom_key: String, custom_value: String) -> SBoxedStrategy<Value> {
    let emails = proptest::collection::vec("[a-z]{1,8}", 0..=2);
    let phones = proptest::collection::btree_set(0usize..300, 0..=2);
    let custom = proptest::bool::ANY.prop_map(move |with| with.then(|| custom_value.clone()));
    (words(), words(), proptest::option::of(words()), proptest::option::of(words()), emails, phones, custom)
        .prop_map(move |(first, last, company, role, emails, phones, custom)| {
            let mut fields = Map::new();
            fields.insert("firstName".into(), json!(first));
            fields.insert("lastName".into(), json!(last));
            if let Some(c) = company {
                fields.insert("company".into(), json!(c));
            }
            if let Some(r) = role {
                fields.insert("role".into(), json!(r));
            }
            let emails: Vec<Value> = emails
                .iter()
                .enumerate()
                .map(|(i, local)| json!({"name": if i == 0 { "work" } else { "home" }, "value": format!("{local}.{i}@example.test")}))
                .collect();
            fields.insert("emails".into(), Value::Array(emails));
            let phones: Vec<Value> = phones.iter().map(|i| json!({"name": "mobile", "value": e164(*i)})).collect();
            fields.insert("phoneNumbers".into(), Value::Array(phones));
            let mut body = json!({"defaultFields": Value::Object(fields)});
            body["customFields"] = match custom {
                Some(v) => json!([{"key": custom_key.clone(), "value": v}]),
                None => json!([]),
            };
            body
        })
        .sboxed()
}

/// Where `actual` differs from what was `sent`: (pointer, expected, actual).
fn differs(actual: &Value, sent: &Value) -> Option<(String, String, String)> {
    let data = actual.get("data").unwrap_or(&Value::Null);
    let mismatch = |p: &str, want: &Value, got: Option<&Value>| {
        Some((
            p.to_string(),
            want.to_string(),
            got.map_or("absent".into(), Value::to_string),
        ))
    };
    for f in ["firstName", "lastName", "company", "role"] {
        let p = format!("/data/defaultFields/{f}");
        let got = data.pointer(&format!("/defaultFields/{f}"));
        if let Some(want) = sent.pointer(&format!("/defaultFields/{f}")) {
            if got.is_some_and(|g| !g.is_null() && g != want) {
                return mismatch(&p, want, got);
            }
        }
    }
    for (list, key) in [
        ("/defaultFields/emails", "value"),
        ("/defaultFields/phoneNumbers", "value"),
        ("/customFields", "key"),
    ] {
        let want = sent
            .pointer(list)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let Some(got) = data.pointer(list).filter(|v| !v.is_null()) else {
            continue;
        };
        let p = format!("/data{list}");
        let Some(items) = got.as_array() else {
            return mismatch(&p, &json!(want), Some(got));
        };
        // An entry's own fields may be absent or null too (READINGS 1.3): compare what is there.
        let agrees = |have: Option<&Value>, want: Option<&Value>| {
            have.is_none_or(Value::is_null) || have == want
        };
        let same = items.len() == want.len()
            && want.iter().all(|w| {
                items.iter().any(|i| {
                    agrees(i.get(key), w.get(key)) && agrees(i.get("value"), w.get("value"))
                })
            });
        if !same {
            return mismatch(&p, &json!(want), Some(got));
        }
    }
    None
}

fn request(method: &str, path: String, query: Map<String, Value>, body: Option<Value>) -> Request {
    Request {
        method: method.into(),
        path,
        query,
        headers: Map::new(),
        body,
        raw_body: None,
        auth: None,
        version: None,
    }
}

pub(super) async fn run(
    exec: &Executor,
    case: &Case,
    exchanges: &mut Vec<Arc<Exchange>>,
) -> Vec<Failure> {
    let vars = exec.vars();
    let text = |name: &str| vars.get(name).and_then(Value::as_str).map(str::to_string);
    let (Some(key), Some(value)) = (text("custom_field_key"), text("custom_field_value")) else {
        return Vec::new();
    };
    let strategy = (contact(key.clone(), value.clone()), contact(key, value))
        .prop_map(|(a, b)| json!({"create": a, "patch": b}))
        .sboxed();
    let counter = AtomicUsize::new(0);
    let recorded = std::sync::Mutex::new(Vec::new());
    let test = |pair: Value| {
        let (vars, counter, recorded) = (&vars, &counter, &recorded);
        async move {
            let n = counter.fetch_add(1, Ordering::Relaxed);
            let external = format!("{}-rt{n}", exec.run_id);
            let mut create = pair["create"].clone();
            create["externalId"] = json!(external);
            let send = async |r: Request| -> (Arc<Exchange>, Found) {
                let Ok(out) = exec.render_request(&r, vars) else {
                    return (Arc::new(placeholder()), Vec::new());
                };
                let (ex, found) = exec.exchange(&out).await;
                recorded.lock().map(|mut v| v.push(ex.clone())).ok();
                (
                    ex.clone(),
                    found.into_iter().map(|f| (f, ex.clone())).collect(),
                )
            };
            // Each read-back cites the clause of the request it reads back: the contact's fields
            // (create and list), GET /contacts/{contactId}, or PATCH.
            let fail = |what: &str,
                        clause: &str,
                        ex: &Arc<Exchange>,
                        d: (String, String, String)|
             -> Found {
                vec![(Finding::new(clause, what, d.1, d.2).at(d.0), ex.clone())]
            };
            let (ex, found) = send(request(
                "POST",
                "/v1/contacts".into(),
                Map::new(),
                Some(create.clone()),
            ))
            .await;
            if !found.is_empty() {
                return found;
            }
            let body = ex
                .outcome
                .as_ref()
                .ok()
                .and_then(|r| r.value())
                .cloned()
                .unwrap_or(Value::Null);
            let status = ex.outcome.as_ref().map(|r| r.status).unwrap_or(0);
            if status != 201 {
                return fail(
                    "round trip: create",
                    CONTACT,
                    &ex,
                    ("".into(), "201".into(), status.to_string()),
                );
            }
            if let Some(d) = differs(&body, &create) {
                return fail("round trip: create answer", CONTACT, &ex, d);
            }
            let Some(id) = body
                .pointer("/data/id")
                .and_then(Value::as_str)
                .map(str::to_string)
            else {
                return fail(
                    "round trip: create answer",
                    CONTACT,
                    &ex,
                    ("/data/id".into(), "an id".into(), "absent".into()),
                );
            };
            let (ex, found) =
                send(request("GET", format!("/contacts/{id}"), Map::new(), None)).await;
            if !found.is_empty() {
                return found;
            }
            if let Some(d) = ex
                .outcome
                .as_ref()
                .ok()
                .and_then(|r| r.value())
                .and_then(|b| differs(b, &create))
            {
                return fail("round trip: get after create", GET, &ex, d);
            }
            let mut query = Map::new();
            query.insert("externalIds".into(), json!([external]));
            let (ex, found) = send(request("GET", "/v1/contacts".into(), query, None)).await;
            if !found.is_empty() {
                return found;
            }
            let listed = ex
                .outcome
                .as_ref()
                .ok()
                .and_then(|r| r.value())
                .and_then(|b| b.get("data"))
                .and_then(Value::as_array)
                .and_then(|items| {
                    items
                        .iter()
                        .find(|i| i.get("id").and_then(Value::as_str) == Some(id.as_str()))
                })
                .cloned();
            match listed {
                None => {
                    return fail(
                        "round trip: list by externalIds",
                        CONTACT,
                        &ex,
                        (
                            "/data".into(),
                            format!("the contact {id}"),
                            "not listed".into(),
                        ),
                    );
                }
                Some(item) => {
                    if let Some(d) = differs(&json!({ "data": item }), &create) {
                        return fail("round trip: list item", CONTACT, &ex, d);
                    }
                }
            }
            let patch = pair["patch"].clone();
            let (ex, found) = send(request(
                "PATCH",
                format!("/v1/contacts/{id}"),
                Map::new(),
                Some(patch.clone()),
            ))
            .await;
            if !found.is_empty() {
                return found;
            }
            if let Some(d) = ex
                .outcome
                .as_ref()
                .ok()
                .and_then(|r| r.value())
                .and_then(|b| differs(b, &patch))
            {
                return fail("round trip: PATCH answer", PATCH, &ex, d);
            }
            let (ex, found) =
                send(request("GET", format!("/contacts/{id}"), Map::new(), None)).await;
            if !found.is_empty() {
                return found;
            }
            if let Some(d) = ex
                .outcome
                .as_ref()
                .ok()
                .and_then(|r| r.value())
                .and_then(|b| differs(b, &patch))
            {
                return fail("round trip: get after PATCH", PATCH, &ex, d);
            }
            Vec::new()
        }
    };
    let mut runner = runner_for(exec.seed, &case.name);
    let result = search(&mut runner, &strategy, exec.property_cases, test).await;
    exchanges.extend(recorded.into_inner().unwrap_or_default());
    match result {
        None => Vec::new(),
        Some((input, found)) => {
            let note = input_note(&input, &found, exec.seed, &exec.run_id);
            failures(found, &note, 1)
        }
    }
}

fn placeholder() -> Exchange {
    Exchange::standing_in(Err(crate::client::TransportError::Other(
        "request could not be rendered".into(),
    )))
}
