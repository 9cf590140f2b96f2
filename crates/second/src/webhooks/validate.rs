//! Validation of webhook requests: bodies, fields, query strings, path ids.
//!
//! Every problem found is reported (not only the first), each as an `errors` item
//! `{path, message, value, schema: {type[, pattern]}}`, `path` a JSON Pointer into the body (or
//! `/query/NAME`, `/header/NAME`, `/webhookId` for the other parts of a request).

use std::collections::BTreeSet;

use axum::http::{HeaderMap, StatusCode};
use serde_json::{Map, Value, json};

use super::{EVENT_TYPES, LegacyKind, PAYLOAD_VERSION};
use crate::directory::Directory;
use crate::errors::error_item;

/// The pattern of a webhook id (path `webhookId`).
pub(crate) const WEBHOOK_ID_PATTERN: &str = "^[0-9]+$";
/// Longest accepted webhook URL.
pub(crate) const MAX_URL_LEN: usize = 2048;
/// Longest accepted label (characters, after trimming).
pub(crate) const MAX_LABEL_LEN: usize = 255;
/// Most phone number ids in `resourceIds`.
pub(crate) const MAX_RESOURCE_IDS: usize = 100;
/// Longest accepted body of a webhook request.
pub(crate) const MAX_BODY_BYTES: usize = 64 * 1024;

/// A refused request, before it is given its generation's error shape.
#[derive(Debug)]
pub(crate) struct Refusal {
    pub status: StatusCode,
    pub title: &'static str,
    pub message: String,
    pub errors: Vec<Value>,
}

impl Refusal {
    pub(crate) fn bad_request(message: impl Into<String>, errors: Vec<Value>) -> Refusal {
        Refusal {
            status: StatusCode::BAD_REQUEST,
            title: "Bad Request",
            message: message.into(),
            errors,
        }
    }

    /// 400 from a list of error items: the message sums them up.
    pub(crate) fn from_items(errors: Vec<Value>) -> Refusal {
        let first = errors
            .first()
            .map(|e| {
                let path = e.get("path").and_then(Value::as_str).unwrap_or("");
                let msg = e
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("is invalid");
                if path.is_empty() {
                    msg.to_string()
                } else {
                    format!("{path}: {msg}")
                }
            })
            .unwrap_or_else(|| "The request is invalid".to_string());
        let message = if errors.len() > 1 {
            format!(
                "{first} (and {} more problem{}; see `errors`)",
                errors.len() - 1,
                if errors.len() > 2 { "s" } else { "" }
            )
        } else {
            first
        };
        Refusal::bad_request(message, errors)
    }
}

/// The 400 of a path `webhookId` that is not all digits: the message names the parameter,
/// its path and the expected pattern.
pub(crate) fn webhook_id(raw: &str) -> Result<(), Refusal> {
    if !raw.is_empty() && raw.bytes().all(|b| b.is_ascii_digit()) {
        return Ok(());
    }
    let message = format!(
        "Invalid path parameter webhookId (/webhookId): expected a string matching the pattern {WEBHOOK_ID_PATTERN}, got {}",
        Value::String(raw.to_string())
    );
    Err(Refusal::bad_request(
        message.clone(),
        vec![error_item(
            "/webhookId",
            &message,
            json!(raw),
            "string",
            Some(WEBHOOK_ID_PATTERN),
        )],
    ))
}

/// The body's bytes, or the refusal of a body that could not be read (too large, cut short).
pub(crate) fn read_body(
    body: Result<axum::body::Bytes, axum::extract::rejection::BytesRejection>,
) -> Result<axum::body::Bytes, Refusal> {
    body.map_err(|e| {
        let status = e.status();
        Refusal {
            status,
            title: if status == StatusCode::PAYLOAD_TOO_LARGE {
                "Payload Too Large"
            } else {
                "Bad Request"
            },
            message: format!("The body could not be read: {}", e.body_text()),
            errors: Vec::new(),
        }
    })
}

/// The body as a JSON object. `None` for an absent body where `optional`.
pub(crate) fn body_object(
    headers: &HeaderMap,
    body: &[u8],
    optional: bool,
) -> Result<Option<Map<String, Value>>, Refusal> {
    if body.len() > MAX_BODY_BYTES {
        return Err(Refusal {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            title: "Payload Too Large",
            message: format!(
                "The body has {} bytes; at most {MAX_BODY_BYTES} are accepted",
                body.len()
            ),
            errors: Vec::new(),
        });
    }
    if body.iter().all(|b| b.is_ascii_whitespace()) {
        if optional {
            return Ok(None);
        }
        return Err(Refusal::bad_request(
            "A JSON object body is required",
            vec![error_item(
                "",
                "A JSON object body is required",
                Value::Null,
                "object",
                None,
            )],
        ));
    }
    let ct = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    // No Content-Type: the body is read as JSON; another media type is refused.
    let json_type = essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"));
    if !ct.is_empty() && !json_type {
        return Err(Refusal {
            status: StatusCode::UNSUPPORTED_MEDIA_TYPE,
            title: "Unsupported Media Type",
            message: format!(
                "The body must be sent as application/json (Content-Type was {})",
                if ct.is_empty() {
                    "absent".to_string()
                } else {
                    format!("`{ct}`")
                }
            ),
            errors: Vec::new(),
        });
    }
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        let m = format!("The body is not valid JSON: {e}");
        Refusal::bad_request(
            m.clone(),
            vec![error_item("", &m, Value::Null, "object", None)],
        )
    })?;
    match value {
        Value::Object(m) => Ok(Some(m)),
        other => {
            let m = format!("The body must be a JSON object, not {}", kind_of(&other));
            Err(Refusal::bad_request(
                m.clone(),
                vec![error_item("", &m, other, "object", None)],
            ))
        }
    }
}

/// A body that must be absent or `{}` (rotate, test, retry).
pub(crate) fn empty_body(headers: &HeaderMap, body: &[u8]) -> Result<(), Refusal> {
    if let Some(m) = body_object(headers, body, true)? {
        let errors: Vec<Value> = m
            .iter()
            .map(|(k, v)| {
                error_item(
                    &pointer(k),
                    "unknown field: this operation takes no body fields",
                    v.clone(),
                    "null",
                    None,
                )
            })
            .collect();
        if !errors.is_empty() {
            return Err(Refusal::from_items(errors));
        }
    }
    Ok(())
}

/// The query pairs, refusing repeated and unknown names. An absent query is empty.
pub(crate) fn query(raw: Option<&str>, known: &[&str]) -> Result<Vec<(String, String)>, Refusal> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (k, v) in form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
        let (k, v) = (k.into_owned(), v.into_owned());
        let path = format!("/query/{k}");
        if !known.contains(&k.as_str()) {
            let msg = if known.is_empty() {
                format!("unknown query parameter `{k}`: this operation takes none")
            } else {
                format!(
                    "unknown query parameter `{k}`; accepted: {}",
                    known.join(", ")
                )
            };
            errors.push(error_item(&path, &msg, json!(v), "null", None));
            continue;
        }
        if !seen.insert(k.clone()) {
            errors.push(error_item(
                &path,
                "the parameter is given more than once",
                json!(v),
                "string",
                None,
            ));
            continue;
        }
        out.push((k, v));
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(Refusal::from_items(errors))
    }
}

/// `maxResults`: digits, 1..=max; `default` when absent.
pub(crate) fn max_results(raw: Option<&str>, default: usize, max: usize) -> Result<usize, Refusal> {
    let Some(raw) = raw else { return Ok(default) };
    let n = if !raw.is_empty() && raw.len() <= 6 && raw.bytes().all(|b| b.is_ascii_digit()) {
        raw.parse::<usize>().ok()
    } else {
        None
    };
    match n {
        Some(n) if (1..=max).contains(&n) => Ok(n),
        _ => {
            let m = format!("maxResults must be an integer from 1 to {max}");
            Err(Refusal::from_items(vec![error_item(
                "/query/maxResults",
                &m,
                json!(raw),
                "integer",
                None,
            )]))
        }
    }
}

/// The webhook fields a request sets.
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields {
    pub url: Option<String>,
    pub events: Option<Vec<String>>,
    pub resource_ids: Option<Vec<String>>,
    /// Some(None): set to null.
    pub label: Option<Option<String>>,
    pub status: Option<bool>,
    pub api_version: Option<String>,
}

/// What a body is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// POST /webhooks: url, events, resourceIds required.
    Create,
    /// POST /v1/webhooks/{kind}: url required; events and resourceIds have defaults.
    LegacyCreate,
    /// PUT: url, events, resourceIds required; label and status take their defaults when left out.
    Replace,
    /// PATCH: any writable field, at least one.
    Patch,
}

/// Fields only the service sets; a PUT or PATCH may repeat them unchanged.
const READ_ONLY: &[&str] = &[
    "id",
    "orgId",
    "createdAt",
    "updatedAt",
    "createdByUserId",
    "secretRotatedAt",
    "signatureScheme",
    "legacyKind",
];
const WRITABLE: &[&str] = &[
    "url",
    "events",
    "resourceIds",
    "label",
    "status",
    "apiVersion",
];

/// Reads and checks the fields of a webhook body. `current` is the webhook's resource on
/// PUT and PATCH (read-only fields may repeat its values).
pub(crate) fn fields(
    body: &Map<String, Value>,
    mode: Mode,
    legacy: Option<LegacyKind>,
    directory: &Directory,
    org_id: &str,
    current: Option<&Value>,
) -> Result<Fields, Refusal> {
    let mut errors = Vec::new();
    let mut f = Fields::default();
    for (k, v) in body {
        if WRITABLE.contains(&k.as_str()) {
            continue;
        }
        if k == "secret" {
            errors.push(error_item(
                "/secret",
                "the signing secret is issued by the service; use POST /webhooks/{id}/rotate for a new one",
                Value::String("(redacted)".into()),
                "null",
                None,
            ));
        } else if READ_ONLY.contains(&k.as_str()) {
            let same = current.and_then(|c| c.get(k)).is_some_and(|c| c == v);
            if !same {
                errors.push(error_item(
                    &pointer(k),
                    "the field is read-only",
                    v.clone(),
                    "null",
                    None,
                ));
            }
        } else {
            errors.push(error_item(
                &pointer(k),
                &format!("unknown field; accepted: {}", WRITABLE.join(", ")),
                v.clone(),
                "null",
                None,
            ));
        }
    }
    let required: &[&str] = match mode {
        Mode::Create | Mode::Replace => &["url", "events", "resourceIds"],
        Mode::LegacyCreate => &["url"],
        Mode::Patch => &[],
    };
    for r in required {
        if !body.contains_key(*r) {
            let t = if *r == "url" { "string" } else { "array" };
            errors.push(error_item(
                &pointer(r),
                "the field is required",
                Value::Null,
                t,
                None,
            ));
        }
    }
    if mode == Mode::Patch && !body.keys().any(|k| WRITABLE.contains(&k.as_str())) {
        errors.push(error_item(
            "",
            &format!(
                "an update must set at least one of: {}",
                WRITABLE.join(", ")
            ),
            Value::Object(body.clone()),
            "object",
            None,
        ));
    }
    if let Some(v) = body.get("url") {
        match url(v) {
            Ok(u) => f.url = Some(u),
            Err(e) => errors.push(e),
        }
    }
    if let Some(v) = body.get("events") {
        if let Some(e) = events(v, legacy, &mut errors) {
            f.events = Some(e);
        }
    }
    if let Some(v) = body.get("resourceIds") {
        if let Some(r) = resource_ids(v, directory, org_id, &mut errors) {
            f.resource_ids = Some(r);
        }
    }
    if let Some(v) = body.get("label") {
        match label(v) {
            Ok(l) => f.label = Some(l),
            Err(e) => errors.push(e),
        }
    }
    if let Some(v) = body.get("status") {
        match v.as_str() {
            Some("enabled") => f.status = Some(true),
            Some("disabled") => f.status = Some(false),
            _ => errors.push(error_item(
                "/status",
                "status must be `enabled` or `disabled`",
                v.clone(),
                "string",
                Some("^(enabled|disabled)$"),
            )),
        }
    }
    if let Some(v) = body.get("apiVersion") {
        if legacy.is_some() {
            errors.push(error_item(
                "/apiVersion",
                "legacy webhooks carry no payload version; create one with POST /webhooks to pin one",
                v.clone(),
                "null",
                None,
            ));
        } else if v.as_str() == Some(PAYLOAD_VERSION) {
            f.api_version = Some(PAYLOAD_VERSION.to_string());
        } else {
            errors.push(error_item(
                "/apiVersion",
                &format!("apiVersion must be `{PAYLOAD_VERSION}`"),
                v.clone(),
                "string",
                Some("^2026-03-30$"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(f)
    } else {
        Err(Refusal::from_items(errors))
    }
}

/// An absolute `http` or `https` URL with a host, no credentials, no fragment, at most
/// `MAX_URL_LEN` bytes, kept exactly as sent.
fn url(v: &Value) -> Result<String, Value> {
    let schema_err = |msg: &str| error_item("/url", msg, v.clone(), "string", None);
    let Some(s) = v.as_str() else {
        return Err(schema_err("url must be a string"));
    };
    if s.is_empty() {
        return Err(schema_err("url must not be empty"));
    }
    if s.len() > MAX_URL_LEN {
        return Err(schema_err(&format!(
            "url is longer than {MAX_URL_LEN} characters"
        )));
    }
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(schema_err(
            "url must not contain whitespace or control characters",
        ));
    }
    let lower = s.to_ascii_lowercase();
    if !(lower.starts_with("http://") || lower.starts_with("https://")) {
        return Err(schema_err(
            "url must be an absolute http:// or https:// URL",
        ));
    }
    let parsed = match reqwest::Url::parse(s) {
        Ok(u) => u,
        Err(e) => return Err(schema_err(&format!("url is not a valid URL: {e}"))),
    };
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(schema_err("url must name a host"));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(schema_err(
            "url must not carry credentials (user:password@)",
        ));
    }
    if parsed.fragment().is_some() {
        return Err(schema_err(
            "url must not carry a fragment (#...): it is never sent",
        ));
    }
    if parsed.port() == Some(0) {
        return Err(schema_err("url must not name port 0"));
    }
    Ok(s.to_string())
}

/// `events`: 1 or more distinct event names, exactly as listed (legacy: of the kind's variant).
fn events(v: &Value, legacy: Option<LegacyKind>, errors: &mut Vec<Value>) -> Option<Vec<String>> {
    let allowed: Vec<&str> = match legacy {
        Some(k) => k.events().to_vec(),
        None => EVENT_TYPES.to_vec(),
    };
    let Some(items) = v.as_array() else {
        errors.push(error_item(
            "/events",
            "events must be an array of event names",
            v.clone(),
            "array",
            None,
        ));
        return None;
    };
    if items.is_empty() {
        errors.push(error_item(
            "/events",
            "events must hold at least 1 event name",
            v.clone(),
            "array",
            None,
        ));
        return None;
    }
    let before = errors.len();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("/events/{i}");
        match item.as_str() {
            Some(s) if allowed.contains(&s) => {
                if !seen.insert(s.to_string()) {
                    errors.push(error_item(
                        &path,
                        "the event is listed more than once",
                        item.clone(),
                        "string",
                        None,
                    ));
                } else {
                    out.push(s.to_string());
                }
            }
            Some(s) => {
                let msg = match legacy {
                    Some(k) => format!(
                        "`{s}` is not an event a legacy `{}` webhook can subscribe to; allowed: {}",
                        k.name(),
                        allowed.join(", ")
                    ),
                    None => format!(
                        "`{s}` is not an event name of this service (names are lower case, as listed in Events)"
                    ),
                };
                errors.push(error_item(&path, &msg, item.clone(), "string", None));
            }
            None => errors.push(error_item(
                &path,
                "an event name must be a string",
                item.clone(),
                "string",
                None,
            )),
        }
    }
    (errors.len() == before).then_some(out)
}

/// `resourceIds`: `["*"]`, or 1 to 100 distinct ids of phone numbers of the workspace.
fn resource_ids(
    v: &Value,
    directory: &Directory,
    org_id: &str,
    errors: &mut Vec<Value>,
) -> Option<Vec<String>> {
    let Some(items) = v.as_array() else {
        errors.push(error_item(
            "/resourceIds",
            "resourceIds must be an array of phone number ids, or [\"*\"]",
            v.clone(),
            "array",
            None,
        ));
        return None;
    };
    if items.is_empty() {
        errors.push(error_item(
            "/resourceIds",
            "resourceIds must hold at least one phone number id, or only \"*\" for every number",
            v.clone(),
            "array",
            None,
        ));
        return None;
    }
    if items.len() > MAX_RESOURCE_IDS {
        errors.push(error_item(
            "/resourceIds",
            &format!("resourceIds holds at most {MAX_RESOURCE_IDS} phone number ids"),
            json!(items.len()),
            "array",
            None,
        ));
        return None;
    }
    let has_wildcard = items.iter().any(|i| i.as_str() == Some("*"));
    if has_wildcard {
        if items.len() == 1 {
            return Some(vec!["*".to_string()]);
        }
        errors.push(error_item(
            "/resourceIds",
            "the wildcard \"*\" must be the only item of resourceIds",
            v.clone(),
            "array",
            None,
        ));
        return None;
    }
    let before = errors.len();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let path = format!("/resourceIds/{i}");
        let Some(s) = item.as_str() else {
            errors.push(error_item(
                &path,
                "a phone number id must be a string",
                item.clone(),
                "string",
                Some("^PN(.*)$"),
            ));
            continue;
        };
        if !s.starts_with("PN") {
            errors.push(error_item(
                &path,
                "a phone number id starts with PN",
                item.clone(),
                "string",
                Some("^PN(.*)$"),
            ));
            continue;
        }
        if directory.number(s).is_none_or(|n| n.org_id != org_id) {
            errors.push(error_item(
                &path,
                &format!("no phone number `{s}` in this workspace"),
                item.clone(),
                "string",
                Some("^PN(.*)$"),
            ));
            continue;
        }
        if !seen.insert(s.to_string()) {
            errors.push(error_item(
                &path,
                "the phone number id is listed more than once",
                item.clone(),
                "string",
                None,
            ));
            continue;
        }
        out.push(s.to_string());
    }
    (errors.len() == before).then_some(out)
}

/// `label`: null, or 1 to 255 characters once trimmed, without control characters.
fn label(v: &Value) -> Result<Option<String>, Value> {
    match v {
        Value::Null => Ok(None),
        Value::String(s) => {
            let t = s.trim();
            if t.is_empty() {
                return Err(error_item(
                    "/label",
                    "label must not be empty or only whitespace (send null to clear it)",
                    v.clone(),
                    "string",
                    None,
                ));
            }
            if t.chars().count() > MAX_LABEL_LEN {
                return Err(error_item(
                    "/label",
                    &format!("label is longer than {MAX_LABEL_LEN} characters"),
                    v.clone(),
                    "string",
                    None,
                ));
            }
            if t.chars().any(char::is_control) {
                return Err(error_item(
                    "/label",
                    "label must not contain control characters",
                    v.clone(),
                    "string",
                    None,
                ));
            }
            Ok(Some(t.to_string()))
        }
        _ => Err(error_item(
            "/label",
            "label must be a string or null",
            v.clone(),
            "string",
            None,
        )),
    }
}

/// A JSON Pointer to a top-level body field.
pub(crate) fn pointer(key: &str) -> String {
    format!("/{}", key.replace('~', "~0").replace('/', "~1"))
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
