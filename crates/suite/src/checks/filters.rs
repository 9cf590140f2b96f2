//! The filter rule on every list answer, whatever trial sent the list: every item that shows the
//! filtered field matches the filters of its query (READINGS 4.2, "every item on every page
//! matches the filters"; filters on different fields combine with AND). Instants are compared as
//! instants, whatever offset the query gave them; an item exactly on a bound is not judged (which
//! side an equal instant falls on is where implementations differ). Items that leave the field out
//! or give it null are not judged (READINGS 1.3).

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::client::Outgoing;
use crate::results::Finding;
use conformance_contract::Route;
use conformance_contract::operations::Rule;

fn instant(text: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(text.trim(), &Rfc3339).ok()
}

/// The findings of the filter rule on one accepted list answer: each filter the operation
/// table states for the list (`x-effect.filters`) that the query sends.
pub(crate) fn check(route: &Route, out: &Outgoing, body: &Value) -> Vec<Finding> {
    if !out.method.eq_ignore_ascii_case("GET") {
        return Vec::new();
    }
    let Some(Value::Array(items)) = body.get("data") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for filter in &route.effect.filters {
        let (param, field, rule, clause) = (
            filter.param.as_str(),
            filter.field.as_str(),
            &filter.rule,
            filter.clause.as_str(),
        );
        let values: Vec<&str> = out
            .query
            .iter()
            .filter(|(k, _)| k == param)
            .map(|(_, v)| v.as_str())
            .collect();
        if values.is_empty() {
            continue;
        }
        let set: Vec<String> = match rule {
            Rule::InComma => values
                .iter()
                .flat_map(|v| v.split(','))
                .map(|v| v.trim().to_string())
                .collect(),
            _ => values.iter().map(|v| v.trim().to_string()).collect(),
        };
        if let Rule::InRepeatedIds(prefix) = rule {
            if set.iter().any(|v| !v.starts_with(prefix.as_str())) {
                continue;
            }
        }
        // One value for the single-valued rules: a repeated key is not stated for them.
        if !matches!(
            rule,
            Rule::InComma | Rule::InRepeated | Rule::InRepeatedIds(_)
        ) && set.len() != 1
        {
            continue;
        }
        let bound = set.first().and_then(|v| instant(v));
        for (i, item) in items.iter().enumerate() {
            let Some(actual) = item.pointer(field).and_then(Value::as_str) else {
                continue;
            };
            let matches = match rule {
                Rule::Eq => Some(actual.trim() == set[0]),
                Rule::InComma | Rule::InRepeated | Rule::InRepeatedIds(_) => {
                    Some(set.iter().any(|v| v == actual.trim()))
                }
                Rule::After | Rule::Before | Rule::AtOrAfter | Rule::AtOrBefore => {
                    match (bound, instant(actual)) {
                        (Some(b), Some(a)) if a != b => Some(match rule {
                            Rule::After | Rule::AtOrAfter => a > b,
                            _ => a < b,
                        }),
                        _ => None,
                    }
                }
            };
            if matches == Some(false) {
                let expected = match rule {
                    Rule::Eq => format!("{field} equal to {:?} ({param})", set[0]),
                    Rule::After | Rule::AtOrAfter => {
                        format!("{field} after {} ({param}, compared as instants)", set[0])
                    }
                    Rule::Before | Rule::AtOrBefore => {
                        format!("{field} before {} ({param}, compared as instants)", set[0])
                    }
                    _ => format!("{field} one of {:?} ({param})", set),
                };
                found.push(
                    Finding::new(
                        clause,
                        format!("filter {param}"),
                        format!("every listed item with {expected}"),
                        format!("{actual:?}"),
                    )
                    .at(format!("/data/{i}{field}")),
                );
            }
        }
    }
    found
}
