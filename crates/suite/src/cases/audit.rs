//! What the suite sends, audited before anything is sent: every request of a case, generated
//! cell, control, read-back, watch and property example is held to the readings of what a
//! request may carry.
//!
//! - READINGS 6.6: an id in a request whose answer must be more than "not found" is one the
//!   target has shown (a profile fixture, or a value the run saved from an answer); an invented
//!   id appears only where a 404 is expected, with the stated prefix of its kind, or as the defect
//!   of a must-reject step whose control puts a shown id in its place.
//! - READINGS 4.4: `maxResults` inside the list's stated range (a row of the Limits table holds for
//!   both generations), else inside the narrowest range stated for any list.
//! - READINGS 6.3: the fields an operation's purpose implies.
//!
//! Each audit gives the places that break its rule; `crates/suite/src/catalog/requests_tests.rs` runs them over the
//! whole catalog and fails on any.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::loader::must_reject;
use super::model::{Case, Property, Request, StatusExpect, Target};
use super::template::BUILTINS;
use conformance_contract::{Api, Contract, ParamIn, Route};

/// One request the suite may send for a case, with what its answer must be.
#[derive(Debug, Clone)]
pub struct Sent {
    /// Where it comes from: the trial, then the step (`step 2`, `step 3 (control of step 2)`,
    /// `example`, `setup 1`, `watch of step 1`).
    pub at: String,
    pub request: Request,
    /// What the answer must be; `None`: any 2xx.
    pub status: Option<StatusExpect>,
    /// The request of this step's control (READINGS 6.9), when it is a must-reject step that has
    /// one: the same request without the defect under test.
    pub control: Option<Request>,
    /// A property's probed place, when this is its example: the generator varies it.
    pub probed: Option<String>,
    /// A property whose valid inputs naming resources the profile does not give may get 404
    /// (READINGS 6.6, `x-example.resources`).
    pub invented_404: bool,
}

/// Every request a case may send: its steps (controls and read-backs included), the listings of
/// its side-effect watches, and a property's setup and example.
pub fn sent(case: &Case) -> Vec<Sent> {
    let mut out = Vec::new();
    for (i, step) in case.steps.iter().enumerate() {
        let Some(request) = &step.request else {
            continue;
        };
        let at = match &step.control_of {
            Some(c) => format!(
                "{} step {} (control of step {})",
                case.name,
                i + 1,
                c.step + 1
            ),
            None => format!("{} step {}", case.name, i + 1),
        };
        let control = case.steps[i + 1..]
            .iter()
            .find(|s| s.control_of.as_ref().is_some_and(|c| c.step == i))
            .and_then(|s| s.request.clone());
        if let Some(w) = &step.unchanged {
            out.push(Sent {
                at: format!("{} watch of step {}", case.name, i + 1),
                request: w.request(),
                status: Some(StatusExpect::Code(200)),
                control: None,
                probed: None,
                invented_404: false,
            });
        }
        out.push(Sent {
            at,
            request: request.clone(),
            status: step.expect.status.clone(),
            control,
            probed: None,
            invented_404: false,
        });
    }
    if let Some(Property::Limit(limit)) = case.property.as_deref() {
        for (i, step) in limit.example.setup.iter().enumerate() {
            if let Some(r) = &step.request {
                out.push(Sent {
                    at: format!("{} setup {}", case.name, i + 1),
                    request: r.clone(),
                    status: step.expect.status.clone(),
                    control: None,
                    probed: None,
                    invented_404: false,
                });
            }
        }
        let probed = match &limit.target {
            Target::Query(name) => name.clone(),
            Target::Body(pointer) => pointer.clone(),
            Target::Path(_) => limit.field.clone(),
        };
        out.push(Sent {
            at: format!("{} example", case.name),
            request: limit.example.request.clone(),
            status: Some(limit.accept.clone()),
            control: None,
            probed: Some(probed),
            invented_404: limit.accept_invented.is_some(),
        });
    }
    out
}

/// A place of a request that names a resource by its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IdPlace {
    /// `path`, `query` or `body`.
    pub part: &'static str,
    /// The parameter's name, or the body field's JSON Pointer.
    pub name: String,
    /// The field's own name (the last token of a body pointer, a query key without `[op]`).
    pub field: String,
    /// The value as the case writes it (templates unrendered).
    pub value: String,
}

/// Whether a field of this name holds ids of resources: `...Id`, `...Ids` and `id`, except the
/// external ids, which the caller chooses.
pub(crate) fn is_id_field(name: &str) -> bool {
    (name == "id" || name.ends_with("Id") || name.ends_with("Ids")) && !name.starts_with("external")
}

/// The route of a request whose path holds templates (`{{x}}` read as one segment's value).
pub(crate) fn route_of<'c>(contract: &'c Contract, request: &Request) -> Option<&'c Route> {
    static TEMPLATE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"\{\{[^}]*\}\}").expect("valid regex"));
    if request.path.starts_with("{{") {
        return None;
    }
    let concrete = TEMPLATE.replace_all(&request.path, "x");
    contract.route(&request.method, &concrete)
}

/// The places of `request` that name resources by id: the path parameters of its route (but
/// those whose values form a closed set), and the id fields of its query and body. An array
/// gives one place per item; an `[in]` set one per member.
pub(crate) fn id_places(contract: &Contract, request: &Request) -> Vec<IdPlace> {
    let mut out = Vec::new();
    if let Some(route) = route_of(contract, request) {
        let segments: Vec<&str> = request.path.trim_start_matches('/').split('/').collect();
        for (i, seg) in route
            .template
            .trim_start_matches('/')
            .split('/')
            .enumerate()
        {
            let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
                continue;
            };
            let closed = route.params.iter().any(|p| {
                p.name == name && p.location == ParamIn::Path && p.schema.get("enum").is_some()
            });
            if let (false, Some(value)) = (closed, segments.get(i)) {
                out.push(IdPlace {
                    part: "path",
                    name: name.to_string(),
                    field: name.to_string(),
                    value: value.to_string(),
                });
            }
        }
    }
    for (key, value) in &request.query {
        let field = key.split('[').next().unwrap_or(key);
        if !is_id_field(field) {
            continue;
        }
        let set = key.ends_with("[in]");
        for v in items(value) {
            let members: Vec<String> = if set {
                v.split(',').map(str::to_string).collect()
            } else {
                vec![v]
            };
            out.extend(members.into_iter().map(|value| IdPlace {
                part: "query",
                name: key.clone(),
                field: field.to_string(),
                value,
            }));
        }
    }
    if let Some(body) = &request.body {
        body_places(body, "", &mut out);
    }
    out
}

fn body_places(value: &Value, at: &str, out: &mut Vec<IdPlace>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let pointer = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                if is_id_field(k) && !matches!(v, Value::Object(_)) {
                    out.extend(items(v).into_iter().map(|value| IdPlace {
                        part: "body",
                        name: pointer.clone(),
                        field: k.clone(),
                        value,
                    }));
                } else {
                    body_places(v, &pointer, out);
                }
            }
        }
        Value::Array(list) => {
            for (i, v) in list.iter().enumerate() {
                body_places(v, &format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

/// The values of a place: each item of an array, else the value itself, as text.
fn items(value: &Value) -> Vec<String> {
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match value {
        Value::Array(list) => list.iter().filter_map(text).collect(),
        other => text(other).into_iter().collect(),
    }
}

static WHOLE_TEMPLATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}$").expect("valid regex"));

/// Whether a value the case writes is one the target has shown: exactly one template of a
/// profile fixture or of a value saved from an answer (a case may define no other names, and
/// none that shadows a builtin), or the wildcard `*`, which names nothing.
pub(crate) fn shown_by_target(value: &str) -> bool {
    let value = value.trim();
    value == "*"
        || WHOLE_TEMPLATE
            .captures(value)
            .is_some_and(|c| !BUILTINS.contains(&&c[1]))
}

/// The shape the contract states for the ids of a place (Conventions: identifier prefixes;
/// webhook ids all digits), `None` where it states none (contacts, tasks, deliveries).
pub(crate) fn stated_shape(field: &str) -> Option<&'static str> {
    match field {
        "callId" | "messageId" | "activityId" => Some("AC"),
        "phoneNumberId" | "resourceIds" => Some("PN"),
        "conversationId" => Some("CN"),
        "userId" | "createdByUserId" | "assignedTo" => Some("US"),
        "recordingId" => Some("CR"),
        "webhookId" => Some("digits"),
        _ => None,
    }
}

/// Whether an invented value keeps the stated shape of its kind.
fn keeps_shape(value: &str, shape: &str) -> bool {
    if shape == "digits" {
        !value.is_empty() && value.chars().all(|c| c.is_ascii_digit())
    } else {
        value.starts_with(shape)
    }
}

/// Whether only a 404 is expected.
pub(crate) fn only_404(status: &StatusExpect) -> bool {
    match status {
        StatusExpect::Code(c) => *c == 404,
        StatusExpect::Any(list) => !list.is_empty() && list.iter().all(only_404),
        _ => false,
    }
}

/// Whether every status allowed is a refusal of a resource that is not there: 404, or 400 beside
/// 404 (an id that cannot be one may be refused as malformed or as unknown). Whichever way a
/// target takes an invented id, the answer is allowed.
pub(crate) fn not_found_class(status: &StatusExpect) -> bool {
    fn codes(s: &StatusExpect, out: &mut Vec<u16>) -> bool {
        match s {
            StatusExpect::Code(c) => {
                out.push(*c);
                true
            }
            StatusExpect::Any(list) => list.iter().all(|s| codes(s, out)),
            _ => false,
        }
    }
    let mut all = Vec::new();
    codes(status, &mut all) && all.contains(&404) && all.iter().all(|c| matches!(c, 400 | 404))
}

/// Whether `place` of a must-reject request is its defect: its control (the same request
/// without the defect) names a shown id there, or leaves the place out.
fn is_the_defect(contract: &Contract, sent: &Sent, place: &IdPlace) -> bool {
    if !sent.status.as_ref().is_some_and(must_reject) {
        return false;
    }
    let Some(control) = &sent.control else {
        return false;
    };
    let mut there = id_places(contract, control)
        .into_iter()
        .filter(|p| p.part == place.part && p.name == place.name)
        .peekable();
    there.peek().is_none() || there.all(|p| shown_by_target(&p.value))
}

/// READINGS 6.6: every invented id of a case where its answer must be more than "not found".
pub fn invented_ids(case: &Case, contract: &Contract) -> Vec<String> {
    let mut out = Vec::new();
    for s in sent(case) {
        let api = Api::of_path(&s.request.path);
        for place in id_places(contract, &s.request) {
            if shown_by_target(&place.value) || is_the_defect(contract, &s, &place) {
                continue;
            }
            if s.invented_404 && s.probed.as_deref() == Some(place.name.as_str()) {
                continue;
            }
            let what = format!(
                "{}: {} {} {} = `{}`",
                s.at, s.request.method, s.request.path, place.part, place.value
            );
            let expected = s
                .status
                .as_ref()
                .map_or("2xx".to_string(), StatusExpect::describe);
            let problem = match (s.status.as_ref().is_some_and(only_404), stated_shape(&place.field)) {
                (false, _) if s.status.as_ref().is_some_and(not_found_class) => continue,
                (false, _) => format!(
                    "an invented id where {expected} is expected: name a resource of the profile or one the run created"
                ),
                (true, Some(shape)) if !keeps_shape(&place.value, shape) => format!(
                    "an invented id of a missing resource without the stated shape of its kind ({shape})"
                ),
                (true, None) if api == Api::V1 => "an invented id of a kind without a stated shape where a v1 404 (with the area's code) is expected: name a resource the run created and deleted".to_string(),
                (true, _) => continue,
            };
            out.push(format!("{what}: {problem}"));
        }
    }
    out
}

/// The range of `maxResults` a request to `route` keeps (READINGS 4.4): the route's stated
/// range; else the range the Limits table states for the same list on the other generation;
/// else the narrowest range stated for any list.
pub(crate) fn page_range(contract: &Contract, route: &Route) -> Option<(i64, i64)> {
    route.query_param("maxResults")?;
    let stated = |r: &Route| {
        let s = &r.query_param("maxResults")?.schema;
        Some((s.get("minimum")?.as_i64()?, s.get("maximum")?.as_i64()?))
    };
    if let Some(range) = stated(route) {
        return Some(range);
    }
    let twin = match route.api {
        Api::V1 => route.template.strip_prefix("/v1").map(str::to_string),
        Api::Latest => Some(format!("/v1{}", route.template)),
    };
    if let Some(range) = twin
        .and_then(|t| {
            contract
                .routes
                .iter()
                .find(|r| r.method == route.method && r.template == t)
        })
        .and_then(stated)
    {
        return Some(range);
    }
    contract
        .routes
        .iter()
        .filter_map(stated)
        .min_by_key(|(_, max)| *max)
}

/// READINGS 4.4: every `maxResults` a case sends that is outside its list's range, but where it
/// is the defect of a must-reject step (its control puts a value in range).
pub fn page_sizes(case: &Case, contract: &Contract) -> Vec<String> {
    let mut out = Vec::new();
    for s in sent(case) {
        let Some(route) = route_of(contract, &s.request) else {
            continue;
        };
        let (Some((lo, hi)), Some(value)) = (
            page_range(contract, route),
            s.request.query.get("maxResults"),
        ) else {
            continue;
        };
        let n = match value {
            Value::Number(n) => n.as_i64(),
            Value::String(t) => t.trim().parse().ok(),
            _ => None,
        };
        if n.is_some_and(|n| (lo..=hi).contains(&n)) {
            continue;
        }
        let defect = s.status.as_ref().is_some_and(must_reject)
            && s.control.as_ref().is_some_and(|c| {
                c.query
                    .get("maxResults")
                    .and_then(Value::as_i64)
                    .is_some_and(|n| (lo..=hi).contains(&n))
            });
        if !defect {
            out.push(format!(
                "{}: GET {} maxResults={value}: outside {lo}-{hi}, the range of {}",
                s.at, s.request.path, route.template
            ));
        }
    }
    out
}

/// A field an operation's purpose implies (READINGS 6.3): a body or query place, one of whose
/// names must be sent.
#[derive(Debug)]
struct Purpose {
    method: String,
    template: String,
    part: &'static str,
    /// One of these (JSON Pointers into the body, or query names) must be present.
    any_of: Vec<String>,
}

/// The purpose fields the route table states (`x-purpose`: query names, body pointers, a list
/// of body pointers of which one), the same table the reference's strict variant enforces.
/// (`maxResults` on lists is held by its own test.)
static PURPOSES: LazyLock<Vec<Purpose>> = LazyLock::new(|| {
    let Ok((doc, _)) = conformance_contract::yaml::parse(conformance_contract::OPENAPI_YAML) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let paths = doc.get("paths").and_then(Value::as_object);
    for (template, item) in paths.into_iter().flatten() {
        for method in ["get", "post", "put", "patch", "delete"] {
            let Some(purpose) = item.get(method).and_then(|op| op.get("x-purpose")) else {
                continue;
            };
            let texts = |v: &Value| -> Vec<String> {
                match v {
                    Value::String(s) => vec![s.clone()],
                    Value::Array(a) => a
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect(),
                    _ => Vec::new(),
                }
            };
            for (part, key) in [("query", "query"), ("body", "body")] {
                for entry in purpose
                    .get(key)
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                {
                    out.push(Purpose {
                        method: method.to_uppercase(),
                        template: template.clone(),
                        part,
                        any_of: texts(entry),
                    });
                }
            }
        }
    }
    out
});

/// Whether `request` sends one of the purpose's places (a body string that is not blank).
fn sends(request: &Request, purpose: &Purpose) -> bool {
    purpose.any_of.iter().any(|place| match purpose.part {
        "query" => request.query.get(place).is_some_and(|v| !v.is_null()),
        _ => request
            .body
            .as_ref()
            .and_then(|b| b.pointer(place))
            .is_some_and(|v| v.as_str().is_none_or(|s| !s.trim().is_empty()) && !v.is_null()),
    })
}

/// READINGS 6.3: every request on an operation with `x-purpose` that leaves out a field its
/// purpose implies, but where the absence is the defect of a must-reject step (its control adds
/// the field).
pub fn purpose_fields(case: &Case, contract: &Contract) -> Vec<String> {
    let mut out = Vec::new();
    if body_after_key(case) {
        return out;
    }
    for s in sent(case) {
        let Some(route) = route_of(contract, &s.request) else {
            continue;
        };
        for p in PURPOSES
            .iter()
            .filter(|p| p.method == route.method && p.template == route.template)
        {
            if sends(&s.request, p) {
                continue;
            }
            let defect = s.status.as_ref().is_some_and(must_reject)
                && s.control.as_ref().is_some_and(|c| sends(c, p));
            if !defect {
                out.push(format!(
                    "{}: {} {} without {} {}",
                    s.at,
                    s.request.method,
                    s.request.path,
                    p.part,
                    p.any_of.join(" or ")
                ));
            }
        }
    }
    out
}

/// Whether `case` is an access cell whose body breaks the operation's rules on purpose
/// (`generated::BODY_AFTER_KEY`): its body is exempt from what a request must send for its
/// purpose.
pub fn body_after_key(case: &Case) -> bool {
    case.tags
        .iter()
        .any(|t| t == super::generated::BODY_AFTER_KEY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The cases of one small case file (v1 unless it says), loaded as the catalog loads them.
    fn catalog(api: &str, cases: &str) -> (Contract, Vec<Case>) {
        let contract = Contract::embedded().expect("contract");
        let text = format!("area: audit\napi: {api}\ncases:\n{cases}");
        let loaded = super::super::load_sources(&[("audit.yaml".into(), text)], &contract)
            .expect("the small catalog loads");
        (contract, loaded)
    }

    fn invented(api: &str, cases: &str) -> Vec<String> {
        let (contract, cases) = catalog(api, cases);
        cases
            .iter()
            .flat_map(|c| invented_ids(c, &contract))
            .collect()
    }

    #[test]
    fn an_invented_id_where_more_than_not_found_is_expected_is_found() {
        // An access cell of the kind issue 30 found: the run id as a call id, expecting 401.
        let found = invented(
            "v1",
            r#"
  - id: no-key
    clause: "Authentication > 3"
    request: { method: GET, path: "/v1/calls/{{run}}", auth: none }
    expect: { status: 401 }
"#,
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("v1.audit.no-key step 1"), "{found:?}");
        assert!(found[0].contains("where 401 is expected"), "{found:?}");
        // The same cell naming the profile's call is fine.
        assert!(
            invented(
                "v1",
                r#"
  - id: no-key
    clause: "Authentication > 3"
    request: { method: GET, path: "/v1/calls/{{call_id}}", auth: none }
    expect: { status: 401 }
"#
            )
            .is_empty()
        );
    }

    #[test]
    fn a_missing_resource_keeps_the_stated_shape_of_its_kind() {
        let case = |path: &str| {
            format!(
                "  - id: missing\n    clause: \"Authentication > 3\"\n    request: {{ method: GET, path: \"{path}\" }}\n    expect: {{ status: 404 }}\n"
            )
        };
        assert!(invented("latest", &case("/calls/AC{{run}}absent")).is_empty());
        let unprefixed = invented("latest", &case("/calls/{{run}}-absent"));
        assert!(
            unprefixed[0].contains("stated shape of its kind (AC)"),
            "{unprefixed:?}"
        );
        assert!(invented("latest", &case("/webhooks/987654321")).is_empty());
        assert_eq!(invented("latest", &case("/webhooks/98x")).len(), 1);
        // No shape is stated for contacts: an invented id may stand for a missing one, unless a
        // v1 404 (with its code) is expected; then it is one the run created and deleted.
        assert!(invented("latest", &case("/contacts/{{run}}-absent")).is_empty());
        let v1 = invented("v1", &case("/v1/tasks/{{run}}-absent"));
        assert!(v1[0].contains("created and deleted"), "{v1:?}");
    }

    #[test]
    fn the_defect_of_a_must_reject_step_may_be_an_id_its_control_replaces() {
        let case = |control: &str| {
            format!(
                r#"
  - id: prefix
    clause: "Authentication > 3"
    request: {{ method: GET, path: /v1/messages, query: {{ phoneNumberId: "XX{{{{run}}}}", participants: ["{{{{message_participant}}}}"], maxResults: 10 }} }}
    control: {control}
    expect: {{ status: 400 }}
"#
            )
        };
        assert!(
            invented(
                "v1",
                &case(r#"{ query: { phoneNumberId: "{{phone_number_id}}" } }"#)
            )
            .is_empty()
        );
        // A control that keeps an invented id proves nothing about acceptance.
        let kept = invented("v1", &case(r#"{ query: { phoneNumberId: "PN{{run}}" } }"#));
        assert_eq!(kept.len(), 2, "the step and its control: {kept:?}");
        assert!(kept[1].contains("(control of step 1)"), "{kept:?}");
    }

    #[test]
    fn ids_are_found_in_path_query_and_body() {
        let contract = Contract::embedded().expect("contract");
        let request: Request = serde_json::from_value(serde_json::json!({
            "method": "POST",
            "path": "/v1/tasks/{{task}}/link-conversation",
            "query": { "phoneNumberId[in]": "{{a}},PN1", "externalIds": ["x"] },
            "body": { "conversationId": "CN{{run}}", "customFields": [{ "id": "{{f}}", "key": "k" }] }
        }))
        .expect("request");
        let places: Vec<(String, String)> = id_places(&contract, &request)
            .into_iter()
            .map(|p| (p.name, p.value))
            .collect();
        assert_eq!(
            places,
            [
                ("taskId".to_string(), "{{task}}".to_string()),
                ("phoneNumberId[in]".into(), "{{a}}".into()),
                ("phoneNumberId[in]".into(), "PN1".into()),
                ("/conversationId".into(), "CN{{run}}".into()),
                ("/customFields/0/id".into(), "{{f}}".into()),
            ]
        );
        assert!(shown_by_target("{{ task }}"));
        assert!(!shown_by_target("{{run}}"));
        assert!(!shown_by_target("{{task}}x"));
    }

    #[test]
    fn page_sizes_keep_the_range_of_their_list() {
        let contract = Contract::embedded().expect("contract");
        let range = |method: &str, path: &str| {
            page_range(&contract, contract.route(method, path).expect("route"))
        };
        assert_eq!(range("GET", "/v1/contacts"), Some((1, 50)));
        // A row of the Limits table holds for both generations (READINGS 4.4).
        assert_eq!(range("GET", "/contacts"), Some((1, 50)));
        assert_eq!(range("GET", "/calls"), Some((1, 100)));
        // No range stated: the narrowest stated for any list.
        assert_eq!(range("GET", "/v1/tasks"), Some((1, 50)));
        assert_eq!(range("GET", "/users"), Some((1, 50)));
        assert_eq!(range("GET", "/organization"), None);
        let (contract, cases) = catalog(
            "latest",
            r#"
  - id: wide
    clause: "Authentication > 3"
    request: { method: GET, path: /contacts, query: { maxResults: 100 } }
  - id: defect
    clause: "Authentication > 3"
    request: { method: GET, path: /users, query: { maxResults: 0 } }
    control: { query: { maxResults: 1 } }
    expect: { status: 400 }
"#,
        );
        let found: Vec<String> = cases
            .iter()
            .flat_map(|c| page_sizes(c, &contract))
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("outside 1-50"), "{found:?}");
    }

    #[test]
    fn purpose_fields_are_sent_unless_their_absence_is_the_defect() {
        // The route table states them (x-purpose): a task PUT, a task create, a contact create,
        // the v1 message and call lists.
        let stated: BTreeSet<(&str, &str)> = PURPOSES
            .iter()
            .map(|p| (p.method.as_str(), p.template.as_str()))
            .collect();
        for op in [
            ("PUT", "/v1/tasks/{taskId}"),
            ("POST", "/v1/tasks"),
            ("POST", "/v1/contacts"),
            ("GET", "/v1/messages"),
            ("GET", "/v1/calls"),
        ] {
            assert!(stated.contains(&op), "{op:?}");
        }
        let (contract, cases) = catalog(
            "v1",
            r#"
  - id: put-title-only
    clause: "Authentication > 3"
    request: { method: PUT, path: "/v1/tasks/{{phone_number_id}}", body: { title: "{{run}}" } }
  - id: no-title
    clause: "Authentication > 3"
    request: { method: PUT, path: "/v1/tasks/{{phone_number_id}}", body: { description: d } }
    control: { body: { title: t } }
    expect: { status: 400 }
"#,
        );
        let found: Vec<String> = cases
            .iter()
            .flat_map(|c| purpose_fields(c, &contract))
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].contains("put-title-only step 1: PUT"), "{found:?}");
        assert!(found[0].ends_with("without body /description"), "{found:?}");
    }
}
