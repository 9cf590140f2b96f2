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

const FILTERS: &str = "Pagination and collection conventions > filters";
const IN: &str = "Pagination and collection conventions > in operator";
const V1_CONTACTS: &str = "v1 API: contacts > GET /v1/contacts";
const V1_MESSAGES_RANGE: &str = "v1 API: messages > GET /v1/messages > created range";
const V1_MESSAGES_SINCE: &str = "v1 API: messages > GET /v1/messages > since";
const V1_MESSAGES: &str = "v1 API: messages > GET /v1/messages";
const V1_MESSAGES_USER: &str = "v1 API: messages > GET /v1/messages > userId";
const V1_CALLS: &str = "v1 API: calls and recordings > GET /v1/calls";
const V1_CONVERSATIONS_NUMBERS: &str =
    "v1 API: conversations > GET /v1/conversations > phoneNumbers";
const V1_CONVERSATIONS_RANGES: &str = "v1 API: conversations > GET /v1/conversations > ranges";

/// How a query parameter filters the items of a list.
#[derive(Debug, Clone, Copy)]
enum Rule {
    /// The item's field equals the value.
    Eq,
    /// The item's field is one of the comma-separated values (`[in]`).
    InComma,
    /// The item's field is one of the values of the repeated key (v1 arrays).
    InRepeated,
    /// Only ids of a kind are compared (`PN...`): values of another shape (an E.164 number that
    /// the target resolves) leave the filter unjudged.
    InRepeatedIds(&'static str),
    After,
    Before,
    AtOrAfter,
    AtOrBefore,
}

/// (list route, query parameter, field of the item, rule, clause).
const TABLE: &[(&str, &str, &str, Rule, &str)] = &[
    ("/contacts", "externalId", "/externalId", Rule::Eq, FILTERS),
    ("/contacts", "source", "/source", Rule::Eq, FILTERS),
    (
        "/contacts",
        "externalId[in]",
        "/externalId",
        Rule::InComma,
        IN,
    ),
    ("/contacts", "source[in]", "/source", Rule::InComma, IN),
    (
        "/v1/contacts",
        "externalIds",
        "/externalId",
        Rule::InRepeated,
        V1_CONTACTS,
    ),
    (
        "/v1/contacts",
        "sources",
        "/source",
        Rule::InRepeated,
        V1_CONTACTS,
    ),
    ("/messages", "status", "/status", Rule::Eq, FILTERS),
    ("/messages", "status[in]", "/status", Rule::InComma, IN),
    ("/messages", "direction", "/direction", Rule::Eq, FILTERS),
    (
        "/messages",
        "phoneNumberId",
        "/phoneNumberId",
        Rule::Eq,
        FILTERS,
    ),
    ("/messages", "userId", "/userId", Rule::Eq, FILTERS),
    ("/messages", "from", "/from", Rule::Eq, FILTERS),
    (
        "/messages",
        "createdAt[gt]",
        "/createdAt",
        Rule::After,
        FILTERS,
    ),
    (
        "/messages",
        "createdAt[gte]",
        "/createdAt",
        Rule::AtOrAfter,
        FILTERS,
    ),
    (
        "/messages",
        "createdAt[lt]",
        "/createdAt",
        Rule::Before,
        FILTERS,
    ),
    (
        "/messages",
        "createdAt[lte]",
        "/createdAt",
        Rule::AtOrBefore,
        FILTERS,
    ),
    ("/calls", "status", "/status", Rule::Eq, FILTERS),
    ("/calls", "status[in]", "/status", Rule::InComma, IN),
    ("/calls", "direction", "/direction", Rule::Eq, FILTERS),
    (
        "/calls",
        "phoneNumberId",
        "/phoneNumberId",
        Rule::Eq,
        FILTERS,
    ),
    (
        "/calls",
        "createdAt[gt]",
        "/createdAt",
        Rule::After,
        FILTERS,
    ),
    (
        "/calls",
        "createdAt[gte]",
        "/createdAt",
        Rule::AtOrAfter,
        FILTERS,
    ),
    (
        "/calls",
        "createdAt[lt]",
        "/createdAt",
        Rule::Before,
        FILTERS,
    ),
    (
        "/calls",
        "createdAt[lte]",
        "/createdAt",
        Rule::AtOrBefore,
        FILTERS,
    ),
    (
        "/conversations",
        "createdAt[gt]",
        "/createdAt",
        Rule::After,
        FILTERS,
    ),
    (
        "/conversations",
        "createdAt[gte]",
        "/createdAt",
        Rule::AtOrAfter,
        FILTERS,
    ),
    (
        "/conversations",
        "createdAt[lt]",
        "/createdAt",
        Rule::Before,
        FILTERS,
    ),
    (
        "/conversations",
        "createdAt[lte]",
        "/createdAt",
        Rule::AtOrBefore,
        FILTERS,
    ),
    (
        "/conversations",
        "updatedAt[gt]",
        "/updatedAt",
        Rule::After,
        FILTERS,
    ),
    (
        "/conversations",
        "updatedAt[gte]",
        "/updatedAt",
        Rule::AtOrAfter,
        FILTERS,
    ),
    (
        "/conversations",
        "updatedAt[lt]",
        "/updatedAt",
        Rule::Before,
        FILTERS,
    ),
    (
        "/conversations",
        "updatedAt[lte]",
        "/updatedAt",
        Rule::AtOrBefore,
        FILTERS,
    ),
    (
        "/phone-numbers",
        "phoneNumber",
        "/phoneNumber",
        Rule::Eq,
        FILTERS,
    ),
    (
        "/v1/messages",
        "phoneNumberId",
        "/phoneNumberId",
        Rule::Eq,
        V1_MESSAGES,
    ),
    (
        "/v1/messages",
        "userId",
        "/userId",
        Rule::Eq,
        V1_MESSAGES_USER,
    ),
    (
        "/v1/messages",
        "createdAfter",
        "/createdAt",
        Rule::After,
        V1_MESSAGES_RANGE,
    ),
    (
        "/v1/messages",
        "createdBefore",
        "/createdAt",
        Rule::Before,
        V1_MESSAGES_RANGE,
    ),
    (
        "/v1/messages",
        "since",
        "/createdAt",
        Rule::Before,
        V1_MESSAGES_SINCE,
    ),
    (
        "/v1/calls",
        "phoneNumberId",
        "/phoneNumberId",
        Rule::Eq,
        V1_CALLS,
    ),
    (
        "/v1/calls",
        "createdAfter",
        "/createdAt",
        Rule::After,
        V1_CALLS,
    ),
    (
        "/v1/calls",
        "createdBefore",
        "/createdAt",
        Rule::Before,
        V1_CALLS,
    ),
    ("/v1/calls", "since", "/createdAt", Rule::Before, V1_CALLS),
    (
        "/v1/conversations",
        "phoneNumbers",
        "/phoneNumberId",
        Rule::InRepeatedIds("PN"),
        V1_CONVERSATIONS_NUMBERS,
    ),
    (
        "/v1/conversations",
        "createdAfter",
        "/createdAt",
        Rule::After,
        V1_CONVERSATIONS_RANGES,
    ),
    (
        "/v1/conversations",
        "createdBefore",
        "/createdAt",
        Rule::Before,
        V1_CONVERSATIONS_RANGES,
    ),
];

fn instant(text: &str) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(text.trim(), &Rfc3339).ok()
}

/// The findings of the filter rule on one accepted list answer.
pub(crate) fn check(template: &str, out: &Outgoing, body: &Value) -> Vec<Finding> {
    if !out.method.eq_ignore_ascii_case("GET") {
        return Vec::new();
    }
    let Some(Value::Array(items)) = body.get("data") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (route, param, field, rule, clause) in TABLE {
        if *route != template {
            continue;
        }
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
            if set.iter().any(|v| !v.starts_with(prefix)) {
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
