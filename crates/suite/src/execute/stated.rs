//! READINGS 6.12, the stated-acceptance rule, in one place: a generated request must be accepted
//! only where each value in it is one the contract states a target accepts (a member of a stated
//! set, as written; a length, count or range within a stated bound; a field the contract names,
//! with a value of its stated type) or one the target itself has shown (a value any answer of
//! the run carried, an id it listed). Any other request (another letter case of a stated value,
//! a value of a domain the contract does not give, an empty or no-op partial update, a parameter
//! the contract does not name) gets either answer, refused or accepted and judged by its effects.
//!
//! [`unstated`] computes the rule from the route table (parameters and request schemas) and the
//! operation table (the fields a change sets), and gives the reason a request is not
//! must-accept; the generator holds every request it would require to succeed to it.

use std::collections::HashSet;
use std::sync::Mutex;

use serde_json::Value;

use crate::client::{Exchange, Outgoing};
use conformance_contract::operations::Does;
use conformance_contract::{Contract, Route};

/// The longest string kept as "shown": ids, tokens and values of filters are shorter.
const SHOWN_CHARS: usize = 256;

/// The narrowest page range the contract states for any list (READINGS 4.4): the bound of a
/// `maxResults` whose range is not stated.
const NARROWEST_MAX: i64 = 50;

/// Every string the target has shown in a success of the run (and the profile's fixtures, the
/// target's own documentation: READINGS 6.6), so that a value taken from an answer is known as
/// one the target showed.
#[derive(Default)]
pub(crate) struct Shown(Mutex<HashSet<String>>);

impl Shown {
    /// Keeps the strings of a success's JSON body.
    pub(crate) fn observe(&self, ex: &Exchange) {
        let Ok(resp) = &ex.outcome else {
            return;
        };
        if !(200..300).contains(&resp.status) {
            return;
        }
        let Some(Ok(body)) = &resp.json else {
            return;
        };
        let mut found = Vec::new();
        strings(body, &mut found);
        if found.is_empty() {
            return;
        }
        let mut set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        for s in found {
            if !set.contains(s) {
                set.insert(s.to_string());
            }
        }
    }

    /// Keeps the strings of a value the target's documentation gives (a profile fixture).
    pub(crate) fn document(&self, v: &Value) {
        let mut found = Vec::new();
        strings(v, &mut found);
        let mut set = self.0.lock().unwrap_or_else(|e| e.into_inner());
        set.extend(found.into_iter().map(str::to_string));
    }

    pub(crate) fn has(&self, s: &str) -> bool {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).contains(s)
    }
}

fn strings<'v>(v: &'v Value, out: &mut Vec<&'v str>) {
    match v {
        Value::String(s) if s.chars().count() <= SHOWN_CHARS => out.push(s),
        Value::Array(items) => items.iter().for_each(|i| strings(i, out)),
        Value::Object(m) => m.values().for_each(|i| strings(i, out)),
        _ => {}
    }
}

/// What a run required to succeed, for a test that judges it apart from the run: every
/// generated request held to a success, and every string the target showed in a success.
#[derive(Default)]
pub struct MustAccept {
    pub requests: Mutex<Vec<Outgoing>>,
    pub shown: Mutex<HashSet<String>>,
}

impl MustAccept {
    pub(crate) fn request(&self, out: &Outgoing) {
        self.requests
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(out.clone());
    }

    pub(crate) fn answer(&self, ex: &Exchange) {
        let Ok(resp) = &ex.outcome else {
            return;
        };
        if let (true, Some(Ok(body))) = ((200..300).contains(&resp.status), &resp.json) {
            self.document(body);
        }
    }

    /// Keeps the strings of `v` as shown (a success's body, a profile fixture).
    pub(crate) fn document(&self, v: &Value) {
        let mut found = Vec::new();
        strings(v, &mut found);
        let mut set = self.shown.lock().unwrap_or_else(|e| e.into_inner());
        set.extend(found.into_iter().map(str::to_string));
    }
}

/// Why `out` is not a request the contract states a target accepts (READINGS 6.12), or `None`
/// where every value in it is stated or was shown by the target. `extra_params` are the query
/// names the profile gives for parameters the contract does not name (READINGS 6.1).
pub(crate) fn unstated(
    contract: &Contract,
    out: &Outgoing,
    shown: &Shown,
    extra_params: &[&str],
) -> Option<String> {
    let path = out.path.split('?').next().unwrap_or("");
    let route = contract.route(&out.method, path)?;
    for (name, value) in &out.query {
        if let Some(why) = query_value(contract, route, name, value, shown, extra_params) {
            return Some(why);
        }
    }
    if out.raw_body.is_some() {
        return Some("its body is not the JSON the contract shows".into());
    }
    if let Some(body) = &out.body {
        if let Some(why) = body_value(contract, route, body, shown) {
            return Some(why);
        }
        // Alternatives the contract names one of (a task linked to a phone number, a
        // conversation or an activity): more than one at once is not stated.
        for group in crate::cases::situations::body_shapes(route) {
            let held: Vec<&String> = group.iter().filter(|p| body.pointer(p).is_some()).collect();
            if held.len() > 1 {
                return Some(format!(
                    "it holds {} of the alternatives {}, of which the contract names one",
                    held.len(),
                    group.join(", ")
                ));
            }
        }
    }
    None
}

/// A query value: a parameter the contract names, with a value of its stated domain, or one the
/// target showed.
fn query_value(
    contract: &Contract,
    route: &Route,
    name: &str,
    value: &str,
    shown: &Shown,
    extra_params: &[&str],
) -> Option<String> {
    let Some(param) = route.query_param(name) else {
        if extra_params.contains(&name) {
            return None;
        }
        return Some(format!(
            "the query parameter `{name}` is not one the contract names for {} {}",
            route.method, route.template
        ));
    };
    let schema = match param.schema.get("items") {
        Some(items) if param.schema.get("type").and_then(Value::as_str) == Some("array") => items,
        _ => &param.schema,
    };
    let schema = contract.resolve(schema);
    // A comma-separated set (`[in]`): each member on its own.
    let members: Vec<&str> = if name.ends_with("[in]") {
        value.split(',').collect()
    } else {
        vec![value]
    };
    for m in members {
        if let Some(why) = scalar(schema, &Value::String(m.to_string()), shown, Origin::Query) {
            return Some(format!("`{name}={m}`: {why}"));
        }
    }
    None
}

/// Where a value goes: a filter's value compares with what the target holds, so a value of a
/// domain the contract does not give must be one the target showed; a body field of a stated
/// type takes any value of that type.
#[derive(Clone, Copy, PartialEq)]
enum Origin {
    Query,
    Body,
}

/// A body: every field one the contract names with a value of its stated type; a change that
/// sets at least one field.
fn body_value(contract: &Contract, route: &Route, body: &Value, shown: &Shown) -> Option<String> {
    let named = named_fields(contract, route);
    if let (Value::Object(m), Does::Change) = (body, route.effect.does) {
        if m.is_empty() && !route.effect.fields.is_empty() {
            return Some("an empty partial update: it changes nothing".into());
        }
    }
    match &route.request_schema {
        Some(schema) => {
            if let (Value::Object(m), false) = (body, named.is_empty()) {
                if let Some(k) = m.keys().find(|k| !named.contains(k.as_str())) {
                    return Some(format!(
                        "the body field `{k}` is not one the contract names"
                    ));
                }
            }
            value(contract, schema, body, shown, "")
        }
        None => {
            // The body is not shown (webhook management): the fields of the resource's table
            // (READINGS 6.1), each of the type its table states, are what may be sent.
            let Value::Object(m) = body else {
                return Some("a body the contract does not show".into());
            };
            if let Some(k) = m.keys().find(|k| !named.contains(k.as_str())) {
                return Some(format!(
                    "the body field `{k}` is not one the contract names"
                ));
            }
            let schema = contract
                .resources
                .get(&route.effect.on)
                .and_then(|_| resource_schema(contract, &route.effect.on));
            match schema {
                Some(s) => m.iter().find_map(|(k, v)| {
                    let field = s.pointer(&format!("/properties/{k}"))?;
                    value(contract, field, v, shown, &format!("/{k}"))
                }),
                None => None,
            }
        }
    }
}

/// The component schema of a kind's resource (`Webhook` for `webhook`), where the route table
/// has one.
fn resource_schema<'c>(contract: &'c Contract, kind: &str) -> Option<&'c Value> {
    let mut name = kind.to_string();
    if let Some(first) = name.get_mut(..1) {
        first.make_ascii_uppercase();
    }
    contract.component(&name)
}

/// The top-level body fields the contract names for a route: its request schema's properties,
/// the fields its table entry reads, and those of its x-example.
fn named_fields(contract: &Contract, route: &Route) -> HashSet<String> {
    let mut named = HashSet::new();
    if let Some(props) = route
        .request_schema
        .as_ref()
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    {
        named.extend(props.keys().cloned());
    }
    for p in crate::cases::situations::body_fields(route) {
        if let Some(top) = p.trim_start_matches('/').split('/').next() {
            named.insert(top.replace("~1", "/").replace("~0", "~"));
        }
    }
    if let Some(Value::Object(m)) = route
        .example
        .as_ref()
        .and_then(|e| e.pointer("/request/body"))
    {
        named.extend(m.keys().cloned());
    }
    if route.request_schema.is_none() {
        if let Some(Value::Object(props)) =
            resource_schema(contract, &route.effect.on).and_then(|s| s.get("properties"))
        {
            named.extend(props.keys().cloned());
        }
    }
    named
}

/// A body value against its schema: objects field by field, arrays item by item within their
/// stated counts, scalars by [`scalar`].
fn value(
    contract: &Contract,
    schema: &Value,
    v: &Value,
    shown: &Shown,
    at: &str,
) -> Option<String> {
    let schema = contract.resolve(schema);
    if let Some(alts) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        let whys: Vec<String> = alts
            .iter()
            .filter_map(|a| value(contract, a, v, shown, at))
            .collect();
        return (whys.len() == alts.len()).then(|| whys.into_iter().next().unwrap_or_default());
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        return all.iter().find_map(|a| value(contract, a, v, shown, at));
    }
    match v {
        Value::Object(m) => {
            let props = schema.get("properties").and_then(Value::as_object);
            for (k, item) in m {
                let Some(s) = props.and_then(|p| p.get(k)) else {
                    if props.is_some()
                        && schema.get("additionalProperties") == Some(&Value::Bool(false))
                    {
                        return Some(format!("{at}/{k}: a field the contract does not name"));
                    }
                    continue;
                };
                if let Some(why) = value(contract, s, item, shown, &format!("{at}/{k}")) {
                    return Some(why);
                }
            }
            None
        }
        Value::Array(items) => {
            let n = items.len() as u64;
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64) {
                if n < min {
                    return Some(format!("{at}: {n} items, fewer than the stated {min}"));
                }
            }
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64) {
                if n > max {
                    return Some(format!("{at}: {n} items, more than the stated {max}"));
                }
            }
            let item_schema = schema.get("items").unwrap_or(&Value::Null);
            items.iter().enumerate().find_map(|(i, item)| {
                value(contract, item_schema, item, shown, &format!("{at}/{i}"))
            })
        }
        _ => scalar(schema, v, shown, Origin::Body).map(|why| format!("{at}: {why}")),
    }
}

/// A scalar against its schema: a stated set as written, a stated range, length, pattern or
/// format; a filter's value of a domain the contract does not give must be one the target
/// showed, and so must an id (a value of a stated prefix: READINGS 6.6).
fn scalar(schema: &Value, v: &Value, shown: &Shown, origin: Origin) -> Option<String> {
    let text = match v {
        Value::String(s) => s.as_str(),
        Value::Null => return None,
        Value::Bool(_) => {
            return match schema.get("type").and_then(Value::as_str) {
                Some("boolean") | None => None,
                Some(t) => Some(format!("a boolean where the contract states {t}")),
            };
        }
        Value::Number(n) => return number(schema, n.as_f64().unwrap_or(f64::NAN)),
        _ => return None,
    };
    let listed = schema
        .get("enum")
        .or_else(|| schema.get("x-values"))
        .and_then(Value::as_array);
    if let Some(values) = listed {
        return (!values.iter().any(|e| e.as_str() == Some(text)))
            .then(|| format!("`{text}` is not a value the contract lists (as written)"));
    }
    if let Some(c) = schema.get("const") {
        return (c.as_str() != Some(text)).then(|| format!("`{text}` is not the stated `{c}`"));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") | Some("number") => {
            return match text.parse::<f64>() {
                Ok(n) if schema.get("type").and_then(Value::as_str) == Some("number")
                    || n.fract() == 0.0 =>
                {
                    number(schema, n).or_else(|| {
                        (schema.get("maximum").is_none()
                            && origin == Origin::Query
                            && n > NARROWEST_MAX as f64)
                            .then(|| {
                                format!(
                                    "{text}: over the narrowest stated range (1-{NARROWEST_MAX}, READINGS 4.4)"
                                )
                            })
                    })
                }
                _ => Some(format!("`{text}` is not a value of the stated type")),
            };
        }
        Some("boolean") => {
            return (!matches!(text, "true" | "false"))
                .then(|| format!("`{text}` is not a boolean"));
        }
        _ => {}
    }
    let chars = text.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
        if chars < min {
            return Some(format!("{chars} characters, under the stated {min}"));
        }
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        if chars > max {
            return Some(format!("{chars} characters, over the stated {max}"));
        }
    }
    if shown.has(text) {
        return None;
    }
    if text.trim().is_empty() && schema.get("minLength").is_none() {
        return Some("an empty text where no length is stated".into());
    }
    if let Some(format) = schema.get("format").and_then(Value::as_str) {
        return match format {
            "date-time" => {
                time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339)
                    .is_err()
                    .then(|| format!("`{text}` is not an RFC 3339 instant"))
            }
            "uri" => (!(text.starts_with("http://") || text.starts_with("https://")))
                .then(|| format!("`{text}` is not an http or https URI (READINGS 6.10)")),
            _ => None,
        };
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        let fits = regex::Regex::new(pattern).is_ok_and(|re| re.is_match(text));
        if !fits {
            return Some(format!(
                "`{text}` does not match the stated pattern {pattern}"
            ));
        }
        // An id of a stated prefix names a resource: one the target never showed is invented.
        return id_prefix(pattern).then(|| format!("`{text}` is an id the target never showed"));
    }
    let bounded = schema.get("minLength").is_some() || schema.get("maxLength").is_some();
    (origin == Origin::Query && !bounded).then(|| {
        format!(
            "`{text}` is a value the target never showed, of a domain the contract does not give"
        )
    })
}

fn number(schema: &Value, n: f64) -> Option<String> {
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        if n < min {
            return Some(format!("{n} is under the stated minimum {min}"));
        }
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        if n > max {
            return Some(format!("{n} is over the stated maximum {max}"));
        }
    }
    None
}

/// Whether a pattern states an id's prefix (`^US`, `^PN(.*)$`, `^[0-9]+$` is not one).
pub(crate) fn id_prefix(pattern: &str) -> bool {
    let rest = pattern.trim_start_matches('^');
    rest.len() >= 2 && rest[..2].chars().all(|c| c.is_ascii_uppercase())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_stated_value_passes_and_a_near_miss_or_an_unshown_value_does_not() {
        let shown = Shown::default();
        let e = json!({"type": "string", "enum": ["createdAt:asc"]});
        assert!(scalar(&e, &json!("createdAt:asc"), &shown, Origin::Query).is_none());
        assert!(scalar(&e, &json!("CREATEDAT:ASC"), &shown, Origin::Query).is_some());
        let free = json!({"type": "string"});
        assert!(scalar(&free, &json!("DELIVERED"), &shown, Origin::Query).is_some());
        assert!(scalar(&free, &json!("a title"), &shown, Origin::Body).is_none());
        shown.document(&json!({"s": "delivered"}));
        assert!(scalar(&free, &json!("delivered"), &shown, Origin::Query).is_none());
        let id = json!({"type": "string", "pattern": "^US"});
        assert!(scalar(&id, &json!("US-made-up"), &shown, Origin::Body).is_some());
        let bounded = json!({"type": "string", "minLength": 1, "maxLength": 75});
        assert!(scalar(&bounded, &json!("x-none"), &shown, Origin::Query).is_none());
        let int = json!({"type": "integer", "minimum": 1, "maximum": 100});
        assert!(scalar(&int, &json!("100"), &shown, Origin::Query).is_none());
        assert!(scalar(&int, &json!("101"), &shown, Origin::Query).is_some());
        let open = json!({"type": "integer"});
        assert!(scalar(&open, &json!("51"), &shown, Origin::Query).is_some());
    }
}
