//! The pagination walker: follows `nextPageToken` to null, bounded, and checks the walk: no id
//! twice, every page within its size, the last result on the page whose token is null, every
//! item matching the case's filters, and the ids the case expects (READINGS 4).

use std::collections::HashSet;
use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::Finding;
use super::matcher::{self, compact};
use crate::cases::PageExpect;
use crate::client::Exchange;
use crate::contract::Route;

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

/// What a walk saw.
pub struct Walk {
    pub items: Vec<Value>,
    pub exchanges: Vec<Arc<Exchange>>,
    /// Findings with the exchange (page) they concern.
    pub findings: Vec<(Finding, Arc<Exchange>)>,
}

/// Walks from the first page; `fetch(token)` requests the next page with the same query.
pub async fn walk<F, Fut>(
    first: Arc<Exchange>,
    mut fetch: F,
    limit: Option<u64>,
    spec: &PageExpect,
    clauses: &[String],
) -> Walk
where
    F: FnMut(String) -> Fut,
    Fut: Future<Output = Arc<Exchange>>,
{
    let max_pages = spec.max_pages.unwrap_or(100);
    let id_pointer = spec.id.clone().unwrap_or_else(|| "/id".to_string());
    let mut walk = Walk {
        items: Vec::new(),
        exchanges: Vec::new(),
        findings: Vec::new(),
    };
    let mut seen: HashSet<String> = HashSet::new();
    let mut page = first;
    let mut number = 1;
    loop {
        walk.exchanges.push(page.clone());
        let body = match &page.outcome {
            Ok(r) if (200..300).contains(&r.status) => r.value().cloned(),
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
        let items = body
            .get("data")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
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
        walk.items.extend(items);
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
        page = fetch(token).await;
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
