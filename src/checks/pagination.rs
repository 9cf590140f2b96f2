//! The pagination walker: follows `nextPageToken` to null, bounded, and checks the walk: no id
//! twice, every page within its size, the last result on the page whose token is null, every
//! item matching the case's filters, and the ids the case expects (READINGS 4).

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::Finding;
use crate::cases::matcher;
use crate::cases::{Direction, OrderExpect, PageExpect};
use crate::client::Exchange;
use crate::contract::Route;
use crate::redact::compact;

const LAST_PAGE: &str = "Pagination and collection conventions > last page";
const PAGE_TOKEN: &str = "Pagination and collection conventions > pageToken";
const MAX_RESULTS: &str = "Pagination and collection conventions > maxResults";

/// The most items a page may hold: `maxResults` of the query, else the route's stated default,
/// else the stated maximum (READINGS 4.4).
pub fn page_limit(route: Option<&Route>, query: &[(String, String)]) -> Option<u64> {
    if let Some((_, v)) = query.iter().find(|(k, _)| k == "maxResults") {
        return v.parse().ok();
    }
    let schema = &route?.query_param("maxResults")?.schema;
    schema
        .get("default")
        .or_else(|| schema.get("maximum"))
        .and_then(Value::as_u64)
}

/// What a walk saw. Pages after the first are kept as recorded (without their bodies), and of
/// each item only what the walk compares (its id and its sort key), so a walk's memory does not
/// grow with the size of the pages.
pub struct Walk {
    pub items: Vec<Value>,
    pub exchanges: Vec<Arc<Exchange>>,
    /// Findings with the exchange (page) they concern.
    pub findings: Vec<(Finding, Arc<Exchange>)>,
    /// Per name of the spec's `tally`, the number of items that matched.
    pub tally: std::collections::BTreeMap<String, usize>,
}

/// The parts of an item the walk compares, at the same pointers.
fn projected(item: &Value, pointers: &[&str]) -> Value {
    let mut out = Value::Object(Default::default());
    for pointer in pointers {
        let Some(v) = item.pointer(pointer) else {
            continue;
        };
        let mut at = &mut out;
        let tokens: Vec<String> = pointer
            .split('/')
            .skip(1)
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect();
        for (i, token) in tokens.iter().enumerate() {
            let Value::Object(map) = at else { break };
            let next = if i + 1 == tokens.len() {
                v.clone()
            } else {
                Value::Object(Default::default())
            };
            at = map.entry(token.clone()).or_insert(next);
        }
    }
    out
}

/// Walks from the first page; `fetch(token)` requests the next page with the same query, and
/// `generic` runs the generic checks on each page after the first while its body is at hand.
pub async fn walk<F, Fut, G>(
    first: Arc<Exchange>,
    mut fetch: F,
    generic: G,
    limit: Option<u64>,
    spec: &PageExpect,
    clauses: &[String],
) -> Walk
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Arc<Exchange>>,
    G: Fn(&Exchange) -> Vec<Finding>,
{
    let max_pages = spec.max_pages.unwrap_or(100);
    let id_pointer = spec.id.clone().unwrap_or_else(|| "/id".to_string());
    let mut walk = Walk {
        items: Vec::new(),
        exchanges: Vec::new(),
        findings: Vec::new(),
        tally: spec.tally.keys().map(|k| (k.clone(), 0)).collect(),
    };
    let mut seen: HashSet<String> = HashSet::new();
    let mut kept: Vec<&str> = vec![id_pointer.as_str()];
    if let Some(order) = &spec.order {
        kept.push(order.by.as_str());
    }
    let mut full = first;
    let mut number = 1;
    loop {
        // Findings and the record hold the page without its body (the first page is the
        // caller's exchange, recorded by the caller).
        let page = if number == 1 {
            full.clone()
        } else {
            let page = Arc::new(full.recorded());
            walk.findings
                .extend(generic(&full).into_iter().map(|f| (f, page.clone())));
            page
        };
        walk.exchanges.push(page.clone());
        let body = match &full.outcome {
            Ok(r) if (200..300).contains(&r.status) => r.value(),
            _ => None,
        };
        let Some(body) = body else {
            // The generic checks say what is wrong with this answer.
            if number > 1 {
                walk.findings.push((
                    Finding::new(
                        PAGE_TOKEN,
                        "page walk",
                        format!("page {number} answers a list"),
                        "no list answer",
                    )
                    .with_clauses(&[PAGE_TOKEN.to_string()]),
                    page.clone(),
                ));
            }
            return walk;
        };
        let no_items = Vec::new();
        let items = body
            .get("data")
            .and_then(Value::as_array)
            .unwrap_or(&no_items);
        if let Some(limit) = limit {
            if items.len() as u64 > limit {
                // The page size rule may be stated by the endpoint (the case's clause) or generally.
                let mut cited = vec![MAX_RESULTS.to_string()];
                cited.extend(clauses.iter().cloned());
                walk.findings.push((
                    Finding::new(
                        MAX_RESULTS,
                        "page size",
                        format!("at most {limit} items on page {number}"),
                        format!("{} items", items.len()),
                    )
                    .at("/data")
                    .with_clauses(&cited),
                    page.clone(),
                ));
            }
        }
        if items.is_empty() && number > 1 {
            walk.findings.push((
                Finding::new(
                    LAST_PAGE,
                    "last page",
                    format!(
                        "a null nextPageToken on page {} (it held the last result)",
                        number - 1
                    ),
                    format!("a token leading to page {number}, which is empty"),
                ),
                page.clone(),
            ));
        }
        for (i, item) in items.iter().enumerate() {
            if let Some(id) = item.pointer(&id_pointer) {
                let key = id.to_string();
                if !seen.insert(key) {
                    walk.findings.push((
                        Finding::new(
                            PAGE_TOKEN,
                            "no duplicates",
                            "each id once in the walk",
                            format!("{} again on page {number}", compact(id)),
                        )
                        .at(format!("/data/{i}{id_pointer}")),
                        page.clone(),
                    ));
                }
            }
            for (name, conditions) in &spec.tally {
                let all = conditions.as_object().is_some_and(|c| {
                    c.iter()
                        .all(|(p, m)| matcher::check(m, item.pointer(p), p).is_ok())
                });
                if all {
                    *walk.tally.entry(name.clone()).or_insert(0) += 1;
                }
            }
            for (pointer, m) in &spec.every {
                if let Err(mm) = matcher::check(m, item.pointer(pointer), pointer) {
                    walk.findings.push((
                        Finding::new(
                            "",
                            format!("every item {pointer}"),
                            mm.expected,
                            format!("{} on page {number}", mm.actual),
                        )
                        .at(format!("/data/{i}{}", mm.pointer))
                        .with_clauses(clauses),
                        page.clone(),
                    ));
                }
            }
        }
        walk.items
            .extend(items.iter().map(|item| projected(item, &kept)));
        let token = match body.get("nextPageToken") {
            Some(Value::String(t)) => t.clone(),
            _ => break,
        };
        if number >= max_pages {
            walk.findings.push((
                Finding::new(
                    LAST_PAGE,
                    "last page",
                    format!("a null nextPageToken within {max_pages} pages"),
                    "a token on every page",
                ),
                page.clone(),
            ));
            return walk;
        }
        number += 1;
        full = fetch(token).await;
    }
    let last = walk.exchanges.last().cloned().expect("at least one page");
    let ids: Vec<&Value> = walk
        .items
        .iter()
        .filter_map(|i| i.pointer(&id_pointer))
        .collect();
    for want in &spec.includes {
        if !ids.contains(&want) {
            walk.findings.push((
                Finding::new(
                    "",
                    "page includes",
                    format!("the walk yields {}", compact(want)),
                    format!("{} ids without it", ids.len()),
                )
                .with_clauses(clauses),
                last.clone(),
            ));
        }
    }
    for unwanted in &spec.excludes {
        if ids.contains(&unwanted) {
            walk.findings.push((
                Finding::new(
                    "",
                    "page excludes",
                    format!("the walk does not yield {}", compact(unwanted)),
                    "it does",
                )
                .with_clauses(clauses),
                last.clone(),
            ));
        }
    }
    if let Some(order) = &spec.order {
        if let Some(f) = order_violation(&walk.items, order) {
            walk.findings.push((f.with_clauses(clauses), last.clone()));
        }
    }
    if let Some(count) = spec.count {
        if walk.items.len() != count {
            walk.findings.push((
                Finding::new(
                    "",
                    "page count",
                    format!("{count} items in the walk"),
                    format!("{} items", walk.items.len()),
                )
                .with_clauses(clauses),
                last.clone(),
            ));
        }
    }
    walk
}

/// A sort key: a date-time, a number, or text; items without one are not compared.
#[derive(Debug, PartialEq, PartialOrd)]
enum Key {
    Time(time::OffsetDateTime),
    Number(f64),
    Text(String),
}

fn sort_key(v: &Value) -> Option<Key> {
    match v {
        Value::String(s) => Some(
            time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339)
                .map(Key::Time)
                .unwrap_or_else(|_| Key::Text(s.clone())),
        ),
        Value::Number(n) => n.as_f64().map(Key::Number),
        _ => None,
    }
}

/// The first pair of items out of the stated order, if any. Equal keys may come in any order.
fn order_violation(items: &[Value], order: &OrderExpect) -> Option<Finding> {
    let keyed: Vec<(usize, Key)> = items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| item.pointer(&order.by).and_then(sort_key).map(|k| (i, k)))
        .collect();
    for pair in keyed.windows(2) {
        let ((i, a), (j, b)) = (&pair[0], &pair[1]);
        let wrong = match order.direction {
            Direction::Asc => b < a,
            Direction::Desc => b > a,
        };
        if wrong {
            let word = if order.direction == Direction::Asc {
                "ascending"
            } else {
                "descending"
            };
            return Some(Finding::new(
                "",
                "order",
                format!("items in {word} order of {}", order.by),
                format!(
                    "item {j} ({}) after item {i} ({}) of the walk",
                    compact(items[*j].pointer(&order.by).unwrap_or(&Value::Null)),
                    compact(items[*i].pointer(&order.by).unwrap_or(&Value::Null))
                ),
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn order(direction: Direction) -> OrderExpect {
        OrderExpect {
            by: "/createdAt".into(),
            direction,
        }
    }

    #[test]
    fn order_compares_instants_not_text() {
        // The same instant written two ways, then a later one: ascending.
        let items = vec![
            json!({"createdAt": "2026-01-01T10:00:00Z"}),
            json!({"createdAt": "2026-01-01T10:00:00.000+00:00"}),
            json!({"createdAt": "2026-01-01T10:00:00.5Z"}),
        ];
        assert!(order_violation(&items, &order(Direction::Asc)).is_none());
        assert!(order_violation(&items, &order(Direction::Desc)).is_some());
    }

    #[test]
    fn items_without_the_key_are_skipped() {
        let items = vec![
            json!({"createdAt": "2026-01-02T00:00:00Z"}),
            json!({}),
            json!({"createdAt": "2026-01-01T00:00:00Z"}),
        ];
        assert!(order_violation(&items, &order(Direction::Desc)).is_none());
        assert!(order_violation(&items, &order(Direction::Asc)).is_some());
    }
}
