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
use crate::redact::compact;
use crate::results::plural;
use conformance_contract::Route;

const LAST_PAGE: &str = "Pagination and collection conventions > last page";
const PAGE_TOKEN: &str = "Pagination and collection conventions > pageToken";
const MAX_RESULTS: &str = "Pagination and collection conventions > maxResults";

/// The most items a page may hold: `maxResults` of the query, else the route's stated default,
/// else the stated maximum (READINGS 4.4).
pub(crate) fn page_limit(route: Option<&Route>, query: &[(String, String)]) -> Option<u64> {
    if let Some((_, v)) = query.iter().find(|(k, _)| k == "maxResults") {
        return v.parse().ok();
    }
    let schema = &route?.query_param("maxResults")?.schema;
    schema
        .get("default")
        .or_else(|| schema.get("maximum"))
        .and_then(Value::as_u64)
}

/// The rule a walk broke that did not yield the items `lost`, which another read of the same
/// list shows in `order`: last page where each of them comes after every item the walk yielded
/// (a page said null before the last result), pageToken otherwise (a token did not continue
/// where its page ended).
pub(crate) fn lost_rule<T: PartialEq>(order: &[T], yielded: &[T], lost: &[T]) -> &'static str {
    let at = |v: &T| order.iter().position(|o| o == v);
    let last_yielded = yielded.iter().filter_map(at).max();
    let early = lost
        .iter()
        .filter_map(at)
        .all(|p| last_yielded.is_none_or(|l| p > l));
    if early { LAST_PAGE } else { PAGE_TOKEN }
}

/// What a walk saw. Pages after the first are kept as recorded (without their bodies), and of
/// each item only what the walk compares (its id and its sort key), so a walk's memory does not
/// grow with the size of the pages.
pub(crate) struct Walk {
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
pub async fn walk<F, Fut>(
    first: Arc<Exchange>,
    mut fetch: F,
    limit: Option<u64>,
    spec: &PageExpect,
    clauses: &[String],
    moved: &dyn Fn(&str) -> bool,
) -> Walk
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = (Arc<Exchange>, Vec<Finding>)>,
{
    let max_pages = spec.max_pages.unwrap_or(100);
    let mut walker = Walker::new(spec, clauses, moved);
    let mut full = first;
    let mut by_rules = Vec::new();
    let mut number = 1;
    loop {
        let page = walker.record_page(&full, number, std::mem::take(&mut by_rules));
        let Some(body) = list_body(&full) else {
            walker.not_a_list(number, &page);
            return walker.walk;
        };
        let no_items = Vec::new();
        let items = body
            .get("data")
            .and_then(Value::as_array)
            .unwrap_or(&no_items);
        walker.check_page_size(items, limit, number, &page);
        walker.check_empty_page(items, number, &page);
        walker.check_items(items, number, &page);
        let Some(token) = next_page_token(body) else {
            break;
        };
        if number >= max_pages {
            walker.too_many_pages(max_pages, &page);
            return walker.walk;
        }
        number += 1;
        (full, by_rules) = fetch(token).await;
    }
    walker.check_walk();
    walker.walk
}

/// The body of a 2xx answer that is JSON, else None.
fn list_body(ex: &Exchange) -> Option<&Value> {
    match &ex.outcome {
        Ok(r) if (200..300).contains(&r.status) => r.value(),
        _ => None,
    }
}

/// The page's `nextPageToken`, when it is a string (null or absent ends the walk).
fn next_page_token(body: &Value) -> Option<String> {
    match body.get("nextPageToken") {
        Some(Value::String(t)) => Some(t.clone()),
        _ => None,
    }
}

/// A walk under way: what it saw so far, and the checks of each page and of the whole walk.
struct Walker<'a> {
    spec: &'a PageExpect,
    clauses: &'a [String],
    /// Whether a change in flight during the walk named the item (READINGS 7.2): it may be
    /// repeated.
    moved: &'a dyn Fn(&str) -> bool,
    /// Where an item's id is (`/id` unless the spec says).
    id_pointer: String,
    seen: HashSet<String>,
    walk: Walk,
}

impl<'a> Walker<'a> {
    fn new(spec: &'a PageExpect, clauses: &'a [String], moved: &'a dyn Fn(&str) -> bool) -> Self {
        Walker {
            spec,
            clauses,
            moved,
            id_pointer: spec.id.clone().unwrap_or_else(|| "/id".to_string()),
            seen: HashSet::new(),
            walk: Walk {
                items: Vec::new(),
                exchanges: Vec::new(),
                findings: Vec::new(),
                tally: spec.tally.keys().map(|k| (k.clone(), 0)).collect(),
            },
        }
    }

    /// Records page `number`; findings and the record hold it without its body (the first page
    /// is the caller's exchange, recorded by the caller). The generic checks run on each page
    /// after the first while its body is at hand.
    /// Records a page: the first is the step's own exchange (its rules' findings are the
    /// step's already); a later page carries the findings the rules judged it with.
    fn record_page(
        &mut self,
        full: &Arc<Exchange>,
        number: usize,
        by_rules: Vec<Finding>,
    ) -> Arc<Exchange> {
        let page = if number == 1 {
            full.clone()
        } else {
            let page = Arc::new(full.recorded());
            self.walk
                .findings
                .extend(by_rules.into_iter().map(|f| (f, page.clone())));
            page
        };
        self.walk.exchanges.push(page.clone());
        page
    }

    /// A page that is no list answer ends the walk; the generic checks say what is wrong with
    /// it, and a following page that is not a list breaks the token.
    fn not_a_list(&mut self, number: usize, page: &Arc<Exchange>) {
        if number > 1 {
            self.walk.findings.push((
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
    }

    /// At most `limit` items on the page.
    fn check_page_size(
        &mut self,
        items: &[Value],
        limit: Option<u64>,
        number: usize,
        page: &Arc<Exchange>,
    ) {
        let Some(limit) = limit else { return };
        if items.len() as u64 > limit {
            // The page size rule may be stated by the endpoint (the case's clause) or generally.
            let mut cited = vec![MAX_RESULTS.to_string()];
            cited.extend(self.clauses.iter().cloned());
            self.walk.findings.push((
                Finding::new(
                    MAX_RESULTS,
                    "page size",
                    format!(
                        "at most {} on page {number}",
                        plural(limit as usize, "item")
                    ),
                    plural(items.len(), "item"),
                )
                .at("/data")
                .with_clauses(&cited),
                page.clone(),
            ));
        }
    }

    /// A page after the first is not empty: the page before held the last result, and its
    /// token should have been null.
    fn check_empty_page(&mut self, items: &[Value], number: usize, page: &Arc<Exchange>) {
        if items.is_empty() && number > 1 {
            self.walk.findings.push((
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
    }

    /// Each item: its id once in the walk, counted in the tallies it matches, matching every
    /// `every` condition; then kept (its id and sort key only).
    fn check_items(&mut self, items: &[Value], number: usize, page: &Arc<Exchange>) {
        for (i, item) in items.iter().enumerate() {
            self.check_unseen(item, i, number, page);
            self.count_in_tallies(item);
            self.check_every(item, i, number, page);
        }
        let mut kept: Vec<&str> = vec![self.id_pointer.as_str()];
        if let Some(order) = &self.spec.order {
            kept.push(order.by.as_str());
        }
        self.walk
            .items
            .extend(items.iter().map(|item| projected(item, &kept)));
    }

    /// Item `i` of page `number` has an id not seen before in the walk.
    fn check_unseen(&mut self, item: &Value, i: usize, number: usize, page: &Arc<Exchange>) {
        let Some(id) = item.pointer(&self.id_pointer) else {
            return;
        };
        let key = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        if !self.seen.insert(id.to_string()) && !(self.moved)(&key) {
            self.walk.findings.push((
                Finding::new(
                    PAGE_TOKEN,
                    "no duplicates",
                    "each id once in the walk",
                    format!("{} again on page {number}", compact(id)),
                )
                .at(format!("/data/{i}{}", self.id_pointer)),
                page.clone(),
            ));
        }
    }

    /// Counts the item under each tally whose conditions it matches all of.
    fn count_in_tallies(&mut self, item: &Value) {
        for (name, conditions) in &self.spec.tally {
            let all = conditions.as_object().is_some_and(|c| {
                c.iter()
                    .all(|(p, m)| matcher::check(m, item.pointer(p), p).is_ok())
            });
            if all {
                *self.walk.tally.entry(name.clone()).or_insert(0) += 1;
            }
        }
    }

    /// Item `i` of page `number` matches every condition of the spec's `every`.
    fn check_every(&mut self, item: &Value, i: usize, number: usize, page: &Arc<Exchange>) {
        for (pointer, m) in &self.spec.every {
            if let Err(mm) = matcher::check(m, item.pointer(pointer), pointer) {
                self.walk.findings.push((
                    Finding::new(
                        "",
                        format!("every item {pointer}"),
                        mm.expected,
                        format!("{} on page {number}", mm.actual),
                    )
                    .at(format!("/data/{i}{}", mm.pointer))
                    .with_clauses(self.clauses),
                    page.clone(),
                ));
            }
        }
    }

    /// Every page had a token up to `max_pages`: the walk stops there.
    fn too_many_pages(&mut self, max_pages: usize, page: &Arc<Exchange>) {
        self.walk.findings.push((
            Finding::new(
                LAST_PAGE,
                "last page",
                format!("a null nextPageToken within {max_pages} pages"),
                "a token on every page",
            ),
            page.clone(),
        ));
    }

    /// The whole walk, once the last page came: the ids it must and must not yield, its order
    /// and its count, each finding on the last page.
    fn check_walk(&mut self) {
        let last = self
            .walk
            .exchanges
            .last()
            .cloned()
            .expect("at least one page");
        let mut findings = self.id_findings();
        findings.extend(self.order_finding());
        findings.extend(self.count_finding());
        self.walk
            .findings
            .extend(findings.into_iter().map(|f| (f, last.clone())));
    }

    /// The ids the spec says the walk yields (`includes`) and does not (`excludes`).
    fn id_findings(&self) -> Vec<Finding> {
        let ids: Vec<&Value> = self
            .walk
            .items
            .iter()
            .filter_map(|i| i.pointer(&self.id_pointer))
            .collect();
        let mut findings = Vec::new();
        for want in &self.spec.includes {
            let key = match want {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            if !ids.contains(&want) && !(self.moved)(&key) {
                findings.push(
                    Finding::new(
                        "",
                        "page includes",
                        format!("the walk yields {}", compact(want)),
                        format!("{} ids without it", ids.len()),
                    )
                    .with_clauses(self.clauses),
                );
            }
        }
        for unwanted in &self.spec.excludes {
            if ids.contains(&unwanted) {
                findings.push(
                    Finding::new(
                        "",
                        "page excludes",
                        format!("the walk does not yield {}", compact(unwanted)),
                        "it does",
                    )
                    .with_clauses(self.clauses),
                );
            }
        }
        findings
    }

    /// The walk's items in the spec's order.
    fn order_finding(&self) -> Option<Finding> {
        let order = self.spec.order.as_ref()?;
        order_violation(&self.walk.items, order).map(|f| f.with_clauses(self.clauses))
    }

    /// As many items in the walk as the spec's `count`.
    fn count_finding(&self) -> Option<Finding> {
        let count = self.spec.count?;
        (self.walk.items.len() != count).then(|| {
            Finding::new(
                "",
                "page count",
                format!("{} in the walk", plural(count, "item")),
                plural(self.walk.items.len(), "item"),
            )
            .with_clauses(self.clauses)
        })
    }
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
