//! Relations between answers: what one list shows, another request that must show the same
//! items shows too. Each holds for every list it applies to, read from the route table's lists
//! whose collections the run only adds to (users, phone numbers, calls, messages, conversations):
//!
//! - page sizes: a walk at a small page size lists every item that two walks at the largest page
//!   size, one before and one after it, both list (`pageToken` continues from the previous page;
//!   `nextPageToken` is null only on the page holding the last result);
//! - instants: a filter bound given at another offset than UTC is the same instant: a target may
//!   refuse it (timestamps are stated in UTC), and one it accepts lists the same items;
//! - sets: a filter of several values lists every item that each value alone lists;
//! - assignments: a number listed for a user lists that user, and the reverse;
//! - shown: an item a list shows is read by its id on every route that reads its kind (both
//!   generations), which shows that id, and the lists of its parts answer.
//!   (a list and a read backed by stores that disagree: an index, a cache, a join).
//!
//! Items the run adds while a relation is read may appear on one side only: only items on both
//! sides of the walks around it are required.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::Executor;
use crate::cases::properties::Relation;
use crate::cases::template::Vars;
use crate::client::Exchange;
use crate::results::{Failure, Finding};
use conformance_contract::operations::{Does, Rule};

const PAGE_SIZES: usize = 12;
const PAGE_TOKEN: &str = "Pagination and collection conventions > pageToken";
const MAX_PAGES: usize = 12;

type Found = Vec<(Finding, Arc<Exchange>)>;

/// The lists the page-size relation walks: the run only adds to them.
const GROWING: &[&str] = &[
    "/users",
    "/phone-numbers",
    "/calls",
    "/messages",
    "/conversations",
    "/v1/conversations",
    "/contacts",
    "/v1/contacts",
];

/// An instant before anything a workspace holds, yet in this century: a lower bound there
/// admits every item.
const FAR_PAST: &str = "2001-01-01T00:00:00Z";

pub(super) async fn run(
    exec: &Executor,
    relation: Relation,
    vars: &Vars,
    exchanges: &mut Vec<Arc<Exchange>>,
) -> Vec<Failure> {
    let mut r = Reader::new(exec);
    let text = |name: &str| vars.get(name).and_then(Value::as_str).map(str::to_string);
    match relation {
        // The lists and bounds are independent of one another: their walks go out together,
        // each chain in its own order (behind latency, the relation costs its longest chain).
        Relation::PageSizes => {
            let mut jobs: Vec<Job> = GROWING
                .iter()
                .filter(|path| exec.contract.route("GET", path).is_some())
                .map(|path| -> Job {
                    Box::pin(async move {
                        let mut x = Reader::new(exec);
                        x.page_sizes(path, &[]).await;
                        x.sorted(path).await;
                        x
                    })
                })
                .collect();
            jobs.push(Box::pin(async move {
                let mut x = Reader::new(exec);
                x.crossed_tokens().await;
                x
            }));
            jobs.push(Box::pin(async move {
                let mut x = Reader::new(exec);
                x.foreign_values().await;
                x
            }));
            r.together(jobs).await;
        }
        Relation::Instants => {
            let one = |path: &'static str,
                       base: Vec<(&'static str, String)>,
                       param: &'static str,
                       clause: &'static str|
             -> Job {
                Box::pin(async move {
                    let mut x = Reader::new(exec);
                    x.instants(path, &base, param, clause).await;
                    x
                })
            };
            let mut jobs = vec![
                one(
                    "/calls",
                    vec![],
                    "createdAt[gte]",
                    "Pagination and collection conventions > filters",
                ),
                one(
                    "/messages",
                    vec![],
                    "createdAt[gte]",
                    "Pagination and collection conventions > filters",
                ),
                one(
                    "/v1/conversations",
                    vec![],
                    "createdAfter",
                    "v1 API: conversations > GET /v1/conversations > ranges",
                ),
            ];
            if let (Some(pn), Some(p)) = (text("phone_number_id"), text("call_participant")) {
                let q = vec![("phoneNumberId", pn), ("participants", p)];
                jobs.push(one(
                    "/v1/calls",
                    q.clone(),
                    "createdAfter",
                    "v1 API: calls and recordings > GET /v1/calls",
                ));
                jobs.push(one(
                    "/v1/calls",
                    q,
                    "createdBefore",
                    "v1 API: calls and recordings > GET /v1/calls",
                ));
            }
            if let (Some(pn), Some(p)) = (text("phone_number_id"), text("message_participant")) {
                jobs.push(one(
                    "/v1/messages",
                    vec![("phoneNumberId", pn), ("participants", p)],
                    "createdAfter",
                    "v1 API: messages > GET /v1/messages > created range",
                ));
            }
            // Each list with a lower and an upper bound on one field, the bounds inverted.
            let mut bases: Vec<(String, Vec<(&'static str, String)>)> = exec
                .contract
                .routes
                .iter()
                .filter(|r| open_list(r))
                .map(|r| (r.template.clone(), Vec::new()))
                .collect();
            if let (Some(pn), Some(p)) = (text("phone_number_id"), text("call_participant")) {
                bases.push((
                    "/v1/calls".into(),
                    vec![("phoneNumberId", pn), ("participants", p)],
                ));
            }
            if let (Some(pn), Some(p)) = (text("phone_number_id"), text("message_participant")) {
                bases.push((
                    "/v1/messages".into(),
                    vec![("phoneNumberId", pn), ("participants", p)],
                ));
            }
            for (path, base) in bases {
                jobs.push(Box::pin(async move {
                    let mut x = Reader::new(exec);
                    x.inverted(&path, &base).await;
                    x
                }));
            }
            r.together(jobs).await;
        }
        Relation::Sets => {
            r.sets(
                "/v1/conversations",
                "phoneNumbers",
                "v1 API: conversations > GET /v1/conversations > phoneNumbers",
            )
            .await;
            // The participants of a group are a set: in another order, the same messages.
            let group: Vec<String> = vars
                .get("group_participants")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(pn) = text("phone_number_id") {
                r.orders(
                    "/v1/messages",
                    &[("phoneNumberId", pn)],
                    "participants",
                    &group,
                    "v1 API: messages > GET /v1/messages > participants",
                )
                .await;
            }
        }
        Relation::Assignments => r.assignments().await,
        Relation::Shown => {
            let mut jobs: Vec<Job> = GROWING
                .iter()
                .filter_map(|path| exec.contract.route("GET", path))
                .map(|list| -> Job {
                    Box::pin(async move {
                        let mut x = Reader::new(exec);
                        x.shown(list).await;
                        x
                    })
                })
                .collect();
            jobs.push(Box::pin(async move {
                let mut x = Reader::new(exec);
                x.later_pages().await;
                x
            }));
            r.together(jobs).await;
        }
    }
    exchanges.extend(r.exchanges);
    let steps = 1;
    r.found
        .into_iter()
        .map(|(finding, ex)| Failure {
            finding,
            step: steps,
            steps,
            exchange: Some(ex),
            cause: None,
        })
        .collect()
}

struct Reader<'a> {
    exec: &'a Executor,
    exchanges: Vec<Arc<Exchange>>,
    found: Found,
}

/// One chain of a relation's walks, with its own reader.
type Job<'a> = std::pin::Pin<Box<dyn std::future::Future<Output = Reader<'a>> + 'a>>;

impl<'a> Reader<'a> {
    fn new(exec: &'a Executor) -> Reader<'a> {
        Reader {
            exec,
            exchanges: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Runs `jobs` at once; their exchanges and findings join this reader's in the jobs' order
    /// (a seed replays the same record). Against a target that has served large answers they
    /// run one after another, so that the trial holds one large answer at a time.
    async fn together(&mut self, jobs: Vec<Job<'a>>) {
        let done = if crate::client::large_answers_seen() {
            let mut done = Vec::with_capacity(jobs.len());
            for job in jobs {
                done.push(job.await);
            }
            done
        } else {
            futures_util::future::join_all(jobs).await
        };
        for done in done {
            self.exchanges.extend(done.exchanges);
            self.found.extend(done.found);
        }
    }
}

/// A walk: the items by id, in order, and the last page's exchange; `None` when a page was
/// refused, was not a list, or the walk did not end within its bound.
struct Walk {
    ids: Vec<String>,
    items: BTreeMap<String, Value>,
    last: Arc<Exchange>,
}

/// Whether no operation of the table writes what the list `route` shows (a resource of its
/// kind, a state it touches): the run then never moves it under a walk, and a walk, or a read
/// beside the list, sees one state of it, whatever the other trials do (the lists the run
/// writes are walked while it writes by the sequences' walk-write situation instead).
fn unwritten(
    contract: &conformance_contract::Contract,
    route: &conformance_contract::Route,
) -> bool {
    !contract.routes.iter().any(|r| {
        !matches!(r.effect.does, Does::Read | Does::List)
            && (r.effect.on == route.effect.on
                || r.effect
                    .touches
                    .iter()
                    .any(|t| route.effect.touches.contains(t)))
    })
}

/// The first field that the item a list showed and the read of it by id (`data`) both show,
/// with other values, where the run writes nothing the list shows (`unwritten`): one resource,
/// one state, so every field the two answers share holds one value, at any depth (instants
/// compared as instants; an array of objects is not compared, its items may come in another
/// order). `asked` is the query both were sent with, for the words.
fn disagreement(
    item: &Value,
    data: Option<&Value>,
    list: &conformance_contract::Route,
    read: &conformance_contract::Route,
    asked: &str,
) -> Option<Finding> {
    let (key, listed, read_value) = difference(item, data?, "")?;
    Some(
        Finding::new(
            &read.clause,
            "listed item read",
            format!(
                "{} {} as {} {}{asked} listed it (the run writes no {})",
                key.trim_start_matches('/'),
                crate::redact::compact(&listed),
                list.method,
                list.template,
                list.effect.on
            ),
            crate::redact::compact(&read_value),
        )
        .at(format!("/data{key}"))
        .with_clauses(&[read.clause.clone(), list.clause.clone()]),
    )
}

/// The first place (a JSON pointer under `at`) where `a` and `b` both hold a value and the
/// values differ: objects compared field by field, scalars and arrays of scalars whole.
fn difference(a: &Value, b: &Value, at: &str) -> Option<(String, Value, Value)> {
    let scalar = |v: &Value| match v {
        Value::Array(items) => items.iter().all(|i| !i.is_object() && !i.is_array()),
        Value::Object(_) | Value::Null => false,
        _ => true,
    };
    let same = |x: &Value, y: &Value| {
        let t = |v: &Value| OffsetDateTime::parse(v.as_str()?, &Rfc3339).ok();
        match (t(x), t(y)) {
            (Some(p), Some(q)) => p == q,
            _ => x == y,
        }
    };
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => x.iter().find_map(|(k, v)| {
            let w = y.get(k)?;
            difference(v, w, &format!("{at}/{k}"))
        }),
        _ if scalar(a) && scalar(b) && !same(a, b) => Some((at.to_string(), a.clone(), b.clone())),
        _ => None,
    }
}

/// The values the contract names for query parameter `name` of `route` (`x-values`).
fn named_values(route: &conformance_contract::Route, name: &str) -> Vec<String> {
    route
        .query_param(name)
        .and_then(|p| p.schema.get("x-values"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// The items of a list answered 200 (its `data` array).
fn page_items(ex: &Exchange) -> Option<&Vec<Value>> {
    ex.outcome
        .as_ref()
        .ok()
        .filter(|r| r.status == 200)
        .and_then(|r| r.json.as_ref())
        .and_then(|j| j.as_ref().ok())
        .and_then(|b| b.get("data"))
        .and_then(Value::as_array)
}

/// A list of the whole workspace that needs no query of the profile: no path parameter, and no
/// query its purpose implies (READINGS 6.3).
fn open_list(r: &conformance_contract::Route) -> bool {
    r.method == "GET"
        && r.effect.does == Does::List
        && !r.template.contains('{')
        && r.purpose
            .as_ref()
            .and_then(|p| p.get("query"))
            .is_none_or(|q| q.as_array().is_none_or(Vec::is_empty))
}

/// `template` with its one path parameter filled with `id`.
fn fill(template: &str, id: &str) -> String {
    let (head, tail) = template.split_once('{').unwrap_or((template, ""));
    let tail = tail.split_once('}').map_or("", |(_, rest)| rest);
    format!("{head}{id}{tail}")
}

fn id_of(item: &Value) -> Option<String> {
    match item.get("id")? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Reader<'_> {
    async fn get(&mut self, path: &str, query: &[(&str, String)]) -> Arc<Exchange> {
        let out = super::sequences::request("GET", path, query, None);
        let (ex, by_rules) = self.exec.send(&out).await.into_parts();
        self.found
            .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
        self.exchanges.push(ex.clone());
        ex
    }

    /// Page tokens a list did not issue: each list that continues by `pageToken` (and needs no
    /// query of the profile) is sent the token another list issued, and its own token with its
    /// last character changed and cut by half. A token is opaque to the caller, so the answer
    /// may be a refusal or a page; what a decoder that trusts its input makes of it, a server
    /// error or an error body of the wrong shape, the rules on every answer judge.
    async fn crossed_tokens(&mut self) {
        let (lists, tokens) = self.first_pages().await;
        let mut outs = Vec::new();
        for (i, list) in lists.iter().enumerate() {
            let other = (1..lists.len())
                .map(|k| (i + k) % lists.len())
                .find_map(|k| tokens[k].clone().filter(|t| Some(t) != tokens[i].as_ref()));
            let mut sent: Vec<String> = other.into_iter().collect();
            if let Some(own) = &tokens[i] {
                let last = own
                    .chars()
                    .last()
                    .map_or('x', |c| if c == 'A' { 'B' } else { 'A' });
                sent.push(format!(
                    "{}{last}",
                    &own[..own.len() - own.chars().last().map_or(0, char::len_utf8)]
                ));
                let half = own.len() / 2;
                if own.is_char_boundary(half) && half > 0 {
                    sent.push(own[..half].to_string());
                }
            }
            for token in sent {
                outs.push(super::sequences::request(
                    "GET",
                    &list.template,
                    &[("pageToken", token)],
                    None,
                ));
            }
        }
        let sent = futures_util::future::join_all(outs.iter().map(|o| self.exec.send(o))).await;
        for j in sent {
            let (ex, by_rules) = j.into_parts();
            self.found
                .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
            self.exchanges.push(ex);
        }
    }

    /// The first page of each list that continues by `pageToken` (and needs no query of the
    /// profile), then its later page asked as [`Self::later_pages_refused`] says.
    async fn later_pages(&mut self) {
        let (lists, tokens) = self.first_pages().await;
        self.later_pages_refused(&lists, &tokens).await;
    }

    /// Each list that continues by `pageToken` and needs no query of the profile, with the
    /// token its first page of one item gave (none on a single page or a refusal).
    async fn first_pages(&mut self) -> (Vec<conformance_contract::Route>, Vec<Option<String>>) {
        let exec = self.exec;
        let lists: Vec<conformance_contract::Route> = exec
            .contract
            .routes
            .iter()
            .filter(|r| {
                open_list(r)
                    && r.query_param("pageToken").is_some()
                    && r.query_param("maxResults").is_some()
            })
            .cloned()
            .collect();
        let first: Vec<_> = lists
            .iter()
            .map(|l| {
                super::sequences::request("GET", &l.template, &[("maxResults", "1".into())], None)
            })
            .collect();
        let firsts = futures_util::future::join_all(first.iter().map(|o| exec.send(o))).await;
        let mut tokens: Vec<Option<String>> = Vec::new();
        for j in firsts {
            let (ex, by_rules) = j.into_parts();
            self.found
                .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
            tokens.push(
                ex.outcome
                    .as_ref()
                    .ok()
                    .and_then(|r| r.value())
                    .and_then(|b| b.get("nextPageToken"))
                    .and_then(Value::as_str)
                    .filter(|t| !t.is_empty())
                    .map(str::to_string),
            );
            self.exchanges.push(ex);
        }
        (lists, tokens)
    }

    /// A later page is guarded as the first is: its own token sent without a key is 401, and,
    /// on a list of the header-versioned API, with another version than the stated one it is
    /// refused (a check that runs only where no token is given lets a caller past it).
    async fn later_pages_refused(
        &mut self,
        lists: &[conformance_contract::Route],
        tokens: &[Option<String>],
    ) {
        let mut outs: Vec<(crate::client::Outgoing, u16, &'static str, String)> = Vec::new();
        for (list, token) in lists.iter().zip(tokens) {
            let Some(token) = token else {
                continue;
            };
            let page = super::sequences::request(
                "GET",
                &list.template,
                &[("pageToken", token.clone())],
                None,
            );
            outs.push((
                crate::client::Outgoing {
                    auth: crate::client::Auth::None,
                    ..page.clone()
                },
                401,
                "Authentication > 3",
                "401: a later page of the list, asked without a key".into(),
            ));
            if list.api == conformance_contract::Api::Latest {
                let mut other = page;
                other
                    .headers
                    .retain(|(k, _)| !k.eq_ignore_ascii_case("Service-Api-Version"));
                let version = format!("{}1", conformance_contract::API_VERSION);
                other
                    .headers
                    .push(("Service-Api-Version".into(), version.clone()));
                outs.push((
                    other,
                    0,
                    "Versioning > 1",
                    format!("a refusal (4xx): a later page of the list, asked with Service-Api-Version {version}, not the stated version"),
                ));
            }
        }
        let sent =
            futures_util::future::join_all(outs.iter().map(|(o, ..)| self.exec.send(o))).await;
        for (j, (_, status, clause, expected)) in sent.into_iter().zip(outs) {
            let (ex, by_rules) = j.into_parts();
            self.found
                .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
            if let Ok(resp) = &ex.outcome {
                let fine = match status {
                    0 => (400..500).contains(&resp.status),
                    code => resp.status == code,
                };
                if !fine {
                    let finding = Finding::new(clause, "status", expected, resp.status.to_string())
                        .status_class("4xx");
                    self.found.push((finding, ex.clone()));
                }
            }
            self.exchanges.push(ex);
        }
    }

    /// Query values outside a parameter's domain, on every list that needs no query of the
    /// profile: a sort on a field the list is not sorted by and in no direction, a member no
    /// enum names, text that ends a quoted string or holds a wildcard of a query language, the
    /// word `null`, an instant of no calendar. The contract leaves open whether a target refuses
    /// such a value or lists nothing or everything for it; what a parser or a query built by
    /// hand makes of it, a server error or an error body of the wrong shape, the rules on every
    /// answer judge, and the filter rule every item a filter lists.
    async fn foreign_values(&mut self) {
        let exec = self.exec;
        let mut outs = Vec::new();
        for list in exec.contract.routes.iter().filter(|r| open_list(r)) {
            for param in list.params.iter().filter(|p| {
                p.location == conformance_contract::ParamIn::Query
                    && !matches!(p.name.as_str(), "pageToken" | "maxResults")
            }) {
                let schema = &param.schema;
                let values: Vec<String> = if param.name == "sort" {
                    vec!["name:asc".into(), "createdAt:sideways".into()]
                } else if schema.get("enum").is_some() {
                    vec!["unknown".into()]
                } else if schema.get("format").and_then(Value::as_str) == Some("date-time") {
                    vec!["2026-02-30T25:61:00Z".into()]
                } else if schema.get("type").and_then(Value::as_str) == Some("string") {
                    vec!["o'brien%_".into(), "null".into()]
                } else {
                    Vec::new()
                };
                for v in values {
                    outs.push(super::sequences::request(
                        "GET",
                        &list.template,
                        &[(param.name.as_str(), v)],
                        None,
                    ));
                }
            }
        }
        let sent = futures_util::future::join_all(outs.iter().map(|o| exec.send(o))).await;
        for j in sent {
            let (ex, by_rules) = j.into_parts();
            self.found
                .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
            self.exchanges.push(ex);
        }
    }

    /// Walks a list: `None` when a page was not a 200 list or the walk did not end within
    /// `pages`; the last exchange either way.
    async fn walk_or_last(
        &mut self,
        path: &str,
        query: &[(&str, String)],
        size: usize,
        pages: usize,
    ) -> (Option<Walk>, Option<Arc<Exchange>>) {
        let mut ids = Vec::new();
        let mut items = BTreeMap::new();
        let mut token: Option<String> = None;
        let mut last = None;
        let mut twice: Option<(String, Arc<Exchange>)> = None;
        // The page size only where the route table names it: a list without it (the users of
        // a phone number) is walked at its own page size, and a target that refuses query
        // parameters its route does not take (READINGS 6.3) still answers the walk.
        let sized = self
            .exec
            .contract
            .route("GET", path)
            .is_none_or(|r| r.query_param("maxResults").is_some());
        for _ in 0..pages {
            let mut q = query.to_vec();
            if sized {
                q.push(("maxResults", size.to_string()));
            }
            if let Some(t) = &token {
                q.push(("pageToken", t.clone()));
            }
            let ex = self.get(path, &q).await;
            last = Some(ex.clone());
            let body = ex
                .outcome
                .as_ref()
                .ok()
                .filter(|r| r.status == 200)
                .and_then(|r| r.json.as_ref())
                .and_then(|j| j.as_ref().ok());
            let Some(page) = body.and_then(|b| b.get("data")).and_then(Value::as_array) else {
                return (None, last);
            };
            for item in page {
                if let Some(id) = id_of(item) {
                    if items.contains_key(&id) && twice.is_none() {
                        twice = Some((id.clone(), ex.clone()));
                    }
                    ids.push(id.clone());
                    items.insert(id, item.clone());
                }
            }
            match body.and_then(|b| b.get("nextPageToken")) {
                Some(Value::String(t)) if !t.is_empty() => token = Some(t.clone()),
                _ => {
                    // An item twice is a finding where nothing the run sends can move the list
                    // under the walk (an item created ahead of a page cut by offset).
                    if let Some((id, at)) = twice {
                        let route = self.exec.contract.route("GET", path);
                        if route.is_some_and(|r| unwritten(&self.exec.contract, r)) {
                            self.found.push((self.twice(path, size, &id), at));
                        }
                    }
                    let last = ex.clone();
                    return (Some(Walk { ids, items, last }), Some(ex));
                }
            }
        }
        (None, last)
    }

    /// A walk that showed the item `id` on two pages (READINGS 4.2: whatever a walk of the
    /// relations is for, it yields no id twice), on a list the run never writes.
    fn twice(&self, path: &str, size: usize, id: &str) -> Finding {
        let mut cited = vec![PAGE_TOKEN.to_string()];
        cited.extend(
            self.exec
                .contract
                .route("GET", path)
                .map(|r| r.clause.clone()),
        );
        Finding::new(
            PAGE_TOKEN,
            "no duplicates",
            format!("a walk of {path} at maxResults {size} that shows each item once"),
            format!("{id} on two pages"),
        )
        .with_clauses(&cited)
    }

    /// The first items of the list `list` (a collection the run only adds to), each read on
    /// every route that reads its kind by id without a query of its own, and each list of its
    /// parts (a route under such a read): a success that shows the id read.
    async fn shown(&mut self, list: &conformance_contract::Route) {
        const ITEMS: usize = 2;
        const INCLUDED: usize = 10;
        let exec = self.exec;
        let kind = &list.effect.on;
        let ex = self.get(&list.template, &[]).await;
        let bare: Vec<(String, Value)> = page_items(&ex)
            .into_iter()
            .flatten()
            .filter_map(|i| Some((id_of(i)?, i.clone())))
            .collect();
        let listed = &bare[..bare.len().min(ITEMS)];
        let plain = |r: &&conformance_contract::Route| {
            r.method == "GET"
                && r.template.matches('{').count() == 1
                && r.purpose
                    .as_ref()
                    .and_then(|p| p.get("query"))
                    .is_none_or(|q| q.as_array().is_none_or(Vec::is_empty))
        };
        let reads: Vec<&conformance_contract::Route> = exec
            .contract
            .routes
            .iter()
            .filter(|r| {
                r.effect.on == *kind && r.effect.does == Does::Read && r.effect.id.is_some()
            })
            .filter(plain)
            .collect();
        let parts: Vec<&conformance_contract::Route> =
            exec.contract
                .routes
                .iter()
                .filter(|r| r.effect.does == Does::List)
                .filter(plain)
                .filter(|r| {
                    reads.iter().any(|read| {
                        r.template.strip_prefix(&read.template).is_some_and(|rest| {
                            rest.starts_with('/') && rest.matches('/').count() == 1
                        }) || (r.effect.of.is_some() && r.effect.of == read.effect.id)
                    })
                })
                .collect();
        // A kind whose creation is queued (a message's sending) moves on by itself.
        let still = !exec
            .contract
            .resources
            .get(kind)
            .is_some_and(|r| r.listed_late)
            && unwritten(&exec.contract, list);
        for (id, item) in listed {
            for read in &reads {
                self.agree(list, read, id, item, still).await;
            }
        }
        // The parts of every item of the first page, together: one item's parts may be of
        // another shape than the first two's (a voicemail beside a call's recordings).
        let asked: Vec<(&str, &conformance_contract::Route)> = bare
            .iter()
            .take(INCLUDED)
            .flat_map(|(id, _)| parts.iter().map(move |p| (id.as_str(), *p)))
            .collect();
        let outs: Vec<_> = asked
            .iter()
            .map(|(id, part)| {
                super::sequences::request("GET", &fill(&part.template, id), &[], None)
            })
            .collect();
        let sent = futures_util::future::join_all(outs.iter().map(|o| exec.send(o))).await;
        let mut answered: BTreeMap<&str, Vec<(&conformance_contract::Route, Arc<Exchange>)>> =
            BTreeMap::new();
        for (j, (id, part)) in sent.into_iter().zip(asked) {
            let (ex, by_rules) = j.into_parts();
            self.found
                .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
            self.exchanges.push(ex.clone());
            answered.entry(id).or_default().push((part, ex.clone()));
            let status = ex.outcome.as_ref().ok().map(|r| r.status);
            if !status.is_some_and(|s| (200..300).contains(&s) || s == 403) {
                self.found.push((
                    Finding::new(
                        &part.clause,
                        "listed item's parts",
                        format!(
                            "a success (or 403, a number-scoped access check): the list of the parts of {kind} {id}, which {} {} lists (empty where it has none)",
                            list.method, list.template
                        ),
                        status.map_or("no answer".into(), |s| s.to_string()),
                    ),
                    ex,
                ));
            }
        }
        if still {
            for (id, answers) in &answered {
                self.same_parts(kind, id, answers);
            }
        }
        // What an `include` adds is the item's own: listed with it, each item agrees with the
        // same item listed without it and with its read by id with it.
        if !still {
            return;
        }
        // Every item of the first page: what a join or a second query adds goes astray on an
        // item after one that has none.
        for value in named_values(list, "include") {
            let ex = self
                .get(&list.template, &[("include", value.clone())])
                .await;
            let with: Vec<(String, Value)> = page_items(&ex)
                .into_iter()
                .flatten()
                .filter_map(|i| Some((id_of(i)?, i.clone())))
                .take(INCLUDED)
                .collect();
            for (id, item) in &with {
                if let Some((_, bare)) = bare.iter().find(|(i, _)| i == id) {
                    if let Some(f) = difference(bare, item, "").map(|(at, a, b)| {
                        Finding::new(
                            &list.clause,
                            "include",
                            format!(
                                "{} {} as {} {} listed it without include",
                                at.trim_start_matches('/'),
                                crate::redact::compact(&a),
                                list.method,
                                list.template
                            ),
                            crate::redact::compact(&b),
                        )
                        .at(format!("/data{at}"))
                        .with_clauses(std::slice::from_ref(&list.clause))
                    }) {
                        self.found.push((f, ex.clone()));
                    }
                }
            }
            let pairs: Vec<(&(String, Value), &&conformance_contract::Route)> = with
                .iter()
                .flat_map(|w| {
                    reads
                        .iter()
                        .filter(|r| r.query_param("include").is_some())
                        .map(move |r| (w, r))
                })
                .collect();
            let outs: Vec<_> = pairs
                .iter()
                .map(|((id, _), read)| {
                    super::sequences::request(
                        "GET",
                        &fill(&read.template, id),
                        &[("include", value.clone())],
                        None,
                    )
                })
                .collect();
            let sent = futures_util::future::join_all(outs.iter().map(|o| exec.send(o))).await;
            for (j, ((id, item), read)) in sent.into_iter().zip(pairs) {
                let (ex, by_rules) = j.into_parts();
                self.found
                    .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
                self.exchanges.push(ex.clone());
                self.judge_read(list, read, id, item, Some(&value), still, ex);
            }
        }
    }

    /// The lists of one kind of part of item `id` (a call's recordings in each generation) show
    /// one collection: the same ids, and every field two of them show for one item holds one
    /// value. A list with more pages than its first is not compared.
    fn same_parts(
        &mut self,
        kind: &str,
        id: &str,
        answered: &[(&conformance_contract::Route, Arc<Exchange>)],
    ) {
        fn whole(ex: &Exchange) -> Option<&Vec<Value>> {
            let more = ex
                .outcome
                .as_ref()
                .ok()
                .and_then(|r| r.json.as_ref())
                .and_then(|j| j.as_ref().ok())
                .and_then(|b| b.get("nextPageToken"))
                .is_some_and(|t| !t.is_null());
            page_items(ex).filter(|_| !more)
        }
        for (i, (a, x)) in answered.iter().enumerate() {
            for (b, y) in &answered[i + 1..] {
                if a.effect.on != b.effect.on || !unwritten(&self.exec.contract, a) {
                    continue;
                }
                let (Some(p), Some(q)) = (whole(x), whole(y)) else {
                    continue;
                };
                let ids =
                    |items: &[Value]| -> Vec<String> { items.iter().filter_map(id_of).collect() };
                let (pi, qi) = (ids(p), ids(q));
                let only_p: Vec<&String> = pi.iter().filter(|k| !qi.contains(k)).collect();
                let only_q: Vec<&String> = qi.iter().filter(|k| !pi.contains(k)).collect();
                if !only_p.is_empty() || !only_q.is_empty() {
                    let (route, ex, extra, other) = if only_p.is_empty() {
                        (b, y, &only_q, a)
                    } else {
                        (a, x, &only_p, b)
                    };
                    self.found.push((
                        Finding::new(
                            &route.clause,
                            "one collection",
                            format!(
                                "the same {} ids of {kind} {id} as {} {} lists",
                                route.effect.on, other.method, other.template
                            ),
                            format!(
                                "also {}",
                                extra
                                    .iter()
                                    .map(|s| s.as_str())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ),
                        )
                        .with_clauses(&[route.clause.clone(), other.clause.clone()]),
                        ex.clone(),
                    ));
                    continue;
                }
                for item in p {
                    let Some(twin) = id_of(item)
                        .and_then(|k| q.iter().find(|o| id_of(o).as_deref() == Some(k.as_str())))
                    else {
                        continue;
                    };
                    if let Some((at, u, v)) = difference(item, twin, "") {
                        self.found.push((
                            Finding::new(
                                &b.clause,
                                "one collection",
                                format!(
                                    "{} {} as {} {} lists it",
                                    at.trim_start_matches('/'),
                                    crate::redact::compact(&u),
                                    a.method,
                                    a.template
                                ),
                                crate::redact::compact(&v),
                            )
                            .with_clauses(&[b.clause.clone(), a.clause.clone()]),
                            y.clone(),
                        ));
                        break;
                    }
                }
            }
        }
    }

    /// Reads item `id`, which `list` showed as `item` (sent with `include` where given), by
    /// `read`: a success showing that id, or 403 (a number-scoped access check may apply to a
    /// read the list did not make, Authentication 3); where the run writes nothing the list shows
    /// (`still`), every field both show holds one value.
    async fn agree(
        &mut self,
        list: &conformance_contract::Route,
        read: &conformance_contract::Route,
        id: &str,
        item: &Value,
        still: bool,
    ) {
        let ex = self.get(&fill(&read.template, id), &[]).await;
        self.judge_read(list, read, id, item, None, still, ex);
    }

    /// Judges `ex`, the read of item `id` by `read`, as `agree` says.
    #[allow(clippy::too_many_arguments)]
    fn judge_read(
        &mut self,
        list: &conformance_contract::Route,
        read: &conformance_contract::Route,
        id: &str,
        item: &Value,
        include: Option<&str>,
        still: bool,
        ex: Arc<Exchange>,
    ) {
        let kind = &list.effect.on;
        let resp = ex.outcome.as_ref().ok();
        let data = resp
            .and_then(|r| r.json.as_ref())
            .and_then(|j| j.as_ref().ok())
            .and_then(|b| b.get("data"));
        let shown = data.and_then(id_of);
        let fine = resp.is_some_and(|r| r.status == 403)
            || (resp.is_some_and(|r| (200..300).contains(&r.status))
                && shown.as_deref().is_none_or(|s| s == id));
        if fine && shown.as_deref() == Some(id) && still {
            let asked = include.map_or(String::new(), |v| format!("?include={v}"));
            if let Some(f) = disagreement(item, data, list, read, &asked) {
                self.found.push((f, ex.clone()));
            }
        }
        if !fine {
            self.found.push((
                Finding::new(
                    &read.clause,
                    "listed item read",
                    format!(
                        "a success showing {kind} {id} (or 403, a number-scoped access check), which {} {} lists",
                        list.method, list.template
                    ),
                    match (resp, shown) {
                        (Some(r), Some(s)) if (200..300).contains(&r.status) => {
                            format!("{} showing {s}", r.status)
                        }
                        (Some(r), _) => r.status.to_string(),
                        (None, _) => "no answer".into(),
                    },
                ),
                ex,
            ));
        }
    }

    async fn walk(
        &mut self,
        path: &str,
        query: &[(&str, String)],
        size: usize,
        pages: usize,
    ) -> Option<Walk> {
        self.walk_or_last(path, query, size, pages).await.0
    }

    /// Of the items a walk of `path` missed, those no change in flight since `mark` named: an
    /// item such a change added, removed or moved may be missed or repeated (READINGS 7.2).
    fn unmoved(&self, ids: Vec<String>, mark: &super::flights::Mark, path: &str) -> Vec<String> {
        let Some(route) = self.exec.contract.route("GET", path) else {
            return ids;
        };
        let moved = self.exec.flights.moved_since(mark, route);
        ids.into_iter().filter(|id| !moved.contains(id)).collect()
    }

    /// Items both `before` and `after` list that `middle` does not.
    fn lost(before: &Walk, middle: &Walk, after: &Walk) -> Vec<String> {
        let mid: BTreeSet<&String> = middle.ids.iter().collect();
        let aft: BTreeSet<&String> = after.ids.iter().collect();
        before
            .ids
            .iter()
            .filter(|id| aft.contains(id) && !mid.contains(id))
            .cloned()
            .collect()
    }

    async fn page_sizes(&mut self, path: &str, query: &[(&str, String)]) {
        let sized = self.exec.contract.route("GET", path);
        if sized.is_some_and(|r| r.query_param("maxResults").is_none()) {
            return;
        }
        // A change that could add, remove or move an item in flight during the walks leaves a
        // missing item open (READINGS 7.2).
        let mark = self.exec.flights.mark();
        let Some(before) = self.walk(path, query, 50, MAX_PAGES).await else {
            return;
        };
        let n = before.ids.len();
        if n < 2 {
            return;
        }
        let size = n.div_ceil(PAGE_SIZES).max(1);
        if size >= n {
            return;
        }
        let Some(small) = self.walk(path, query, size, PAGE_SIZES + 2).await else {
            return;
        };
        let Some(after) = self.walk(path, query, 50, MAX_PAGES).await else {
            return;
        };
        let lost = self.unmoved(Self::lost(&before, &small, &after), &mark, path);
        if !lost.is_empty() {
            // Which rule the walk broke: where every item it lost comes after every item it
            // listed, a page said "null" before the last result (last page); otherwise a token
            // did not continue where its page ended (pageToken). The list's own clause, which
            // states that it is paginated, is broken either way.
            let lead = crate::checks::pagination::lost_rule(&before.ids, &small.ids, &lost);
            let cited: Vec<String> = [lead.to_string()]
                .into_iter()
                .chain(
                    self.exec
                        .contract
                        .route("GET", path)
                        .map(|r| r.clause.clone()),
                )
                .collect();
            self.found.push((
                Finding::new(
                    lead,
                    "walk at another page size",
                    format!(
                        "every item that walks of {path} at maxResults 50 list before and after, listed by the walk at maxResults {size} between them ({})",
                        crate::results::plural(before.ids.len(), "item")
                    ),
                    format!("{} of them missing: {}", lost.len(), lost.iter().take(5).cloned().collect::<Vec<_>>().join(", ")),
                )
                .with_clauses(&cited),
                small.last.clone(),
            ));
        }
    }

    /// The list at each order its `sort` parameter names (`field:asc`, `field:desc`, as
    /// stated values of the route table), unfiltered: one page of 50, in that order by the
    /// field's instant (items with equal keys in any order, READINGS 4.5). One page is one
    /// moment, so a field the run changes meanwhile cannot put it out of order.
    async fn sorted(&mut self, path: &str) {
        const SORT: &str = "Pagination and collection conventions > sort";
        let Some(route) = self.exec.contract.route("GET", path) else {
            return;
        };
        let Some(param) = route.query_param("sort") else {
            return;
        };
        let values: Vec<String> = param
            .schema
            .get("enum")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        let mut cited = vec![SORT.to_string()];
        cited.extend(param.clause.iter().cloned());
        for value in values {
            let Some((field, dir)) = value.split_once(':') else {
                continue;
            };
            let desc = dir == "desc";
            let ex = self
                .get(
                    path,
                    &[("sort", value.clone()), ("maxResults", "50".into())],
                )
                .await;
            let Some(items) = page_items(&ex) else {
                continue;
            };
            let keys: Vec<(String, OffsetDateTime)> = items
                .iter()
                .filter_map(|i| {
                    let t = i.get(field)?.as_str()?;
                    Some((id_of(i)?, OffsetDateTime::parse(t, &Rfc3339).ok()?))
                })
                .collect();
            let broken = keys.windows(2).find(|w| {
                if desc {
                    w[0].1 < w[1].1
                } else {
                    w[0].1 > w[1].1
                }
            });
            if let Some(w) = broken {
                self.found.push((
                    Finding::new(
                        SORT,
                        format!("order by {value}"),
                        format!("the items of {path}?sort={value} in {dir}ending {field}"),
                        format!("{} before {}", w[0].0, w[1].0),
                    )
                    .with_clauses(&cited),
                    ex.clone(),
                ));
            }
        }
    }

    /// A list with a lower and an upper bound on one instant field, sent with the bounds
    /// inverted (the lower an hour after an item's instant, the upper an hour before it): no
    /// item lies in both, so the filter rule on every list answer finds any item listed (a
    /// range a helper swaps back, bounds applied as OR).
    async fn inverted(&mut self, path: &str, base: &[(&'static str, String)]) {
        let Some(route) = self.exec.contract.route("GET", path) else {
            return;
        };
        let lower = |r: &Rule| matches!(r, Rule::After | Rule::AtOrAfter);
        let upper = |r: &Rule| matches!(r, Rule::Before | Rule::AtOrBefore);
        let pairs: Vec<(String, String, String)> = route
            .effect
            .filters
            .iter()
            .filter(|f| lower(&f.rule))
            .flat_map(|lo| {
                route
                    .effect
                    .filters
                    .iter()
                    .filter(move |hi| upper(&hi.rule) && hi.field == lo.field)
                    .map(move |hi| (lo.param.clone(), hi.param.clone(), lo.field.clone()))
            })
            .collect();
        if pairs.is_empty() {
            return;
        }
        let first = self.get(path, base).await;
        for (lo, hi, field) in pairs {
            let at = page_items(&first)
                .into_iter()
                .flatten()
                .find_map(|i| OffsetDateTime::parse(i.pointer(&field)?.as_str()?, &Rfc3339).ok())
                .unwrap_or_else(OffsetDateTime::now_utc);
            let hour = time::Duration::hours(1);
            let text = |t: OffsetDateTime| t.format(&Rfc3339).unwrap_or_default();
            let mut q: Vec<(&str, String)> = base.to_vec();
            q.push((lo.as_str(), text(at + hour)));
            q.push((hi.as_str(), text(at - hour)));
            self.get(path, &q).await;
        }
    }

    async fn instants(
        &mut self,
        path: &str,
        base: &[(&str, String)],
        param: &str,
        clause: &'static str,
    ) {
        let Some(before) = self.walk(path, base, 50, MAX_PAGES).await else {
            return;
        };
        if self
            .before_every_item(path, base, param, clause, &before)
            .await
        {
            return;
        }
        // A bound inside the collection: the creation instant of its middle item.
        let mut times: Vec<OffsetDateTime> = before
            .items
            .values()
            .filter_map(|i| i.get("createdAt")?.as_str())
            .filter_map(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            .collect();
        times.sort();
        let Some(mid) = times.get(times.len() / 2).copied() else {
            return;
        };
        let bound = mid - time::Duration::seconds(1);
        let utc = bound.format(&Rfc3339).unwrap_or_default();
        let mut q: Vec<(&str, String)> = base.to_vec();
        q.push((param, utc.clone()));
        let Some(in_utc) = self.walk(path, &q, 50, MAX_PAGES).await else {
            return;
        };
        for (hours, minutes) in [(2i8, 0i8), (-5, -30)] {
            let offset =
                time::UtcOffset::from_hms(hours, minutes, 0).unwrap_or(time::UtcOffset::UTC);
            let shifted = bound.to_offset(offset).format(&Rfc3339).unwrap_or_default();
            let mut q: Vec<(&str, String)> = base.to_vec();
            q.push((param, shifted.clone()));
            let (other, last) = self.walk_or_last(path, &q, 50, MAX_PAGES).await;
            let Some(other) = other else {
                // Refused (4xx): UTC is what the contract states, nothing more to hold.
                let _ = last;
                continue;
            };
            let mut q: Vec<(&str, String)> = base.to_vec();
            q.push((param, utc.clone()));
            let Some(again) = self.walk(path, &q, 50, MAX_PAGES).await else {
                continue;
            };
            // Listed by the UTC bound both times but not at the offset, or listed at the offset
            // but by neither UTC walk (what the run adds in between shows in the second).
            let listed: BTreeSet<&String> = other.ids.iter().collect();
            let either: BTreeSet<&String> = in_utc.ids.iter().chain(&again.ids).collect();
            let mut differ: Vec<String> = in_utc
                .ids
                .iter()
                .filter(|id| again.ids.contains(id) && !listed.contains(id))
                .cloned()
                .collect();
            differ.extend(other.ids.iter().filter(|id| !either.contains(id)).cloned());
            if !differ.is_empty() {
                self.found.push((
                    Finding::new(
                        clause,
                        format!("filter {param} at another offset"),
                        format!("{param}={shifted} (the instant {utc}) lists the items {param}={utc} lists"),
                        format!("{} differ: {}", differ.len(), differ.iter().take(5).cloned().collect::<Vec<_>>().join(", ")),
                    ),
                    other.last.clone(),
                ));
                return;
            }
        }
    }

    /// The lower bound `param` at an instant before every item the list can hold lists every
    /// item the list shows without it: a bound admits, it sets no window of its own. Walked
    /// between two walks without the bound (`before`, then another), an item both show that the
    /// bound leaves out is a finding; a target may refuse the bound (4xx). True when it found
    /// one.
    async fn before_every_item(
        &mut self,
        path: &str,
        base: &[(&str, String)],
        param: &str,
        clause: &'static str,
        before: &Walk,
    ) -> bool {
        // A lower bound, as the operation table states the filter.
        let lower = self.exec.contract.route("GET", path).is_some_and(|r| {
            r.effect
                .filters
                .iter()
                .any(|f| f.param == param && matches!(f.rule, Rule::After | Rule::AtOrAfter))
        });
        if !lower {
            return false;
        }
        let mut q: Vec<(&str, String)> = base.to_vec();
        q.push((param, FAR_PAST.to_string()));
        let mark = self.exec.flights.mark();
        let (bounded, _) = self.walk_or_last(path, &q, 50, MAX_PAGES).await;
        let Some(bounded) = bounded else {
            return false;
        };
        let Some(after) = self.walk(path, base, 50, MAX_PAGES).await else {
            return false;
        };
        let missing: Vec<String> = before
            .ids
            .iter()
            .filter(|id| after.ids.contains(id) && !bounded.ids.contains(id))
            .cloned()
            .collect();
        let missing = self.unmoved(missing, &mark, path);
        if missing.is_empty() {
            return false;
        }
        self.found.push((
            Finding::new(
                clause,
                format!("filter {param} before every item"),
                format!("{param}={FAR_PAST}, before every item, lists every item the list shows without it"),
                format!("{} left out: {}", missing.len(), missing.iter().take(5).cloned().collect::<Vec<_>>().join(", ")),
            ),
            bounded.last.clone(),
        ));
        true
    }

    /// Lists by each phone number the target shows alone, then by all of them at once (the
    /// fewest-listed first): the whole lists every item of each.
    async fn sets(&mut self, path: &str, param: &str, clause: &'static str) {
        let Some(numbers) = self.walk("/phone-numbers", &[], 50, 2).await else {
            return;
        };
        let mark = self.exec.flights.mark();
        let mut alone: Vec<(String, Walk)> = Vec::new();
        for n in numbers.ids.iter().take(5) {
            if let Some(w) = self.walk(path, &[(param, n.clone())], 50, MAX_PAGES).await {
                alone.push((n.clone(), w));
            }
        }
        if alone.len() < 2 {
            return;
        }
        alone.sort_by_key(|(_, w)| w.ids.len());
        let query: Vec<(&str, String)> = alone.iter().map(|(n, _)| (param, n.clone())).collect();
        let Some(all) = self.walk(path, &query, 50, MAX_PAGES).await else {
            return;
        };
        let listed: BTreeSet<&String> = all.ids.iter().collect();
        let lost: Vec<String> = alone
            .iter()
            .flat_map(|(_, w)| &w.ids)
            .filter(|id| !listed.contains(id))
            .cloned()
            .collect();
        let lost = self.unmoved(lost, &mark, path);
        if !lost.is_empty() {
            let values: Vec<&str> = alone.iter().map(|(n, _)| n.as_str()).collect();
            self.found.push((
                Finding::new(
                    clause,
                    format!("filter {param} with several values"),
                    format!(
                        "{param} = {} lists every item each of them lists alone",
                        values.join(", ")
                    ),
                    format!(
                        "{} missing: {}",
                        lost.len(),
                        lost.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
                    ),
                ),
                all.last.clone(),
            ));
        }
    }

    /// A set-valued filter lists the same items whatever the order of its values: the values
    /// in the order given, reversed, and in the order given again; every item both walks in
    /// the given order list, the reversed walk lists (the run may add items meanwhile).
    async fn orders(
        &mut self,
        path: &str,
        base: &[(&str, String)],
        param: &'static str,
        values: &[String],
        clause: &'static str,
    ) {
        if values.len() < 2 {
            return;
        }
        let query = |vals: &mut dyn Iterator<Item = &String>| -> Vec<(&str, String)> {
            let mut q = base.to_vec();
            q.extend(vals.map(|v| (param, v.clone())));
            q
        };
        let given = query(&mut values.iter());
        let reversed = query(&mut values.iter().rev());
        let mark = self.exec.flights.mark();
        let Some(before) = self.walk(path, &given, 50, MAX_PAGES).await else {
            return;
        };
        let Some(middle) = self.walk(path, &reversed, 50, MAX_PAGES).await else {
            return;
        };
        let Some(after) = self.walk(path, &given, 50, MAX_PAGES).await else {
            return;
        };
        let lost = self.unmoved(Self::lost(&before, &middle, &after), &mark, path);
        if !lost.is_empty() {
            self.found.push((
                Finding::new(
                    clause,
                    format!("filter {param} as a set"),
                    format!(
                        "{param} = {} in reverse order lists what the same values in their order list",
                        values.join(", ")
                    ),
                    format!(
                        "{} missing: {}",
                        lost.len(),
                        lost.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
                    ),
                ),
                middle.last.clone(),
            ));
        }
    }

    async fn assignments(&mut self) {
        const CLAUSE: &str = "Header-versioned API > GET /users/{userId}/phone-numbers";
        if self
            .exec
            .contract
            .route("GET", "/users/x/phone-numbers")
            .is_none()
            || self
                .exec
                .contract
                .route("GET", "/phone-numbers/x/users")
                .is_none()
        {
            return;
        }
        let Some(users) = self.walk("/users", &[], 50, 2).await else {
            return;
        };
        let Some(numbers) = self.walk("/phone-numbers", &[], 50, 2).await else {
            return;
        };
        let mut of_user: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for u in users.ids.iter().take(10) {
            if let Some(w) = self
                .walk(&format!("/users/{u}/phone-numbers"), &[], 50, 3)
                .await
            {
                of_user.insert(u.clone(), w.ids.into_iter().collect());
            }
        }
        for p in numbers.ids.iter().take(10) {
            let Some(w) = self
                .walk(&format!("/phone-numbers/{p}/users"), &[], 50, 3)
                .await
            else {
                continue;
            };
            let users_of_p: BTreeSet<String> = w.ids.iter().cloned().collect();
            for (u, nums) in &of_user {
                let says_user = nums.contains(p);
                let says_number = users_of_p.contains(u);
                if says_user != says_number {
                    self.found.push((
                        Finding::new(
                            CLAUSE,
                            "assignments seen from both sides",
                            format!("GET /users/{u}/phone-numbers and GET /phone-numbers/{p}/users agree on whether {p} is assigned to {u}"),
                            format!(
                                "the user's numbers {} it; the number's users {} the user",
                                if says_user { "list" } else { "do not list" },
                                if says_number { "list" } else { "do not list" }
                            ),
                        ),
                        w.last.clone(),
                    ));
                    return;
                }
            }
        }
    }
}
