//! Error bodies of both generations. OWNER: core.
//!
//! v1 bodies: `{message, code, status, docs, title, trace}` (+ `errors` when given).
//! Header-versioned bodies: `{message, docs, title}` (+ `errors` on webhook endpoints when given);
//! never `code`, `status` or `trace` there.

use std::sync::atomic::{AtomicU64, Ordering};

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value, json};

/// Base of the `docs` URLs of this service's errors.
const DOCS_BASE: &str = "https://docs.second.example/errors";

/// A per-process counter that makes every `trace` distinct.
static TRACE_SEQ: AtomicU64 = AtomicU64::new(1);

/// A fresh trace id (`tr-` + 16 hex digits), unique within the process.
pub fn trace_id() -> String {
    let n = TRACE_SEQ.fetch_add(1, Ordering::Relaxed);
    let r: u32 = rand::random();
    format!("tr-{:08x}{:08x}", r, n as u32)
}

/// The `docs` URL of an error, from its status and title (`.../404-not-found`).
fn docs_url(status: StatusCode, title: &str) -> String {
    let slug: String = title
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect::<String>()
        .split('-')
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    format!("{DOCS_BASE}/{}-{}", status.as_u16(), slug)
}

/// A JSON response with the given status and body.
pub fn json_response(status: StatusCode, body: &Value) -> Response {
    let text = serde_json::to_string(body).unwrap_or_else(|_| "{}".to_string());
    let mut resp = (status, text).into_response();
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

/// A v1 error: `{message, code, status, docs, title, trace}`.
pub fn v1(status: StatusCode, code: &str, title: &str, message: impl Into<String>) -> Response {
    v1_errors(status, code, title, message, Vec::new())
}

/// A v1 error with an `errors` array (omitted when empty).
pub fn v1_errors(
    status: StatusCode,
    code: &str,
    title: &str,
    message: impl Into<String>,
    errors: Vec<Value>,
) -> Response {
    let mut body = Map::new();
    body.insert("message".into(), Value::String(message.into()));
    body.insert("code".into(), Value::String(code.to_string()));
    body.insert("status".into(), json!(status.as_u16()));
    body.insert("docs".into(), Value::String(docs_url(status, title)));
    body.insert("title".into(), Value::String(title.to_string()));
    body.insert("trace".into(), Value::String(trace_id()));
    if !errors.is_empty() {
        body.insert("errors".into(), Value::Array(errors));
    }
    json_response(status, &Value::Object(body))
}

/// A header-versioned (latest) error other than on webhook endpoints: `{message, docs, title}`.
pub fn latest(status: StatusCode, title: &str, message: impl Into<String>) -> Response {
    let body = json!({
        "message": message.into(),
        "docs": docs_url(status, title),
        "title": title,
    });
    json_response(status, &body)
}

/// A header-versioned webhook error: `{message, docs, title}` + `errors` when not empty.
pub fn webhook(
    status: StatusCode,
    title: &str,
    message: impl Into<String>,
    errors: Vec<Value>,
) -> Response {
    let mut body = Map::new();
    body.insert("message".into(), Value::String(message.into()));
    body.insert("docs".into(), Value::String(docs_url(status, title)));
    body.insert("title".into(), Value::String(title.to_string()));
    if !errors.is_empty() {
        body.insert("errors".into(), Value::Array(errors));
    }
    json_response(status, &Value::Object(body))
}

/// One item of an `errors` array: `{path, message, value, schema: {type[, pattern]}}`.
pub fn error_item(
    path: &str,
    message: &str,
    value: Value,
    schema_type: &str,
    pattern: Option<&str>,
) -> Value {
    let mut schema = Map::new();
    schema.insert("type".into(), Value::String(schema_type.to_string()));
    if let Some(p) = pattern {
        schema.insert("pattern".into(), Value::String(p.to_string()));
    }
    json!({ "path": path, "message": message, "value": value, "schema": Value::Object(schema) })
}

/// Any path the API does not serve: 404 in the error shape of the path's generation
/// (v1 paths: the v1 body with the area's Not Found code where the area is known).
pub async fn fallback(uri: axum::http::Uri, method: axum::http::Method) -> Response {
    let path = uri.path();
    let message = format!("No route serves {} {}", method, path);
    if path == "/v1" || path.starts_with("/v1/") {
        let code = v1_area_code(path, "404").unwrap_or_else(|| "1200404".to_string());
        v1(StatusCode::NOT_FOUND, &code, "Not Found", message)
    } else {
        latest(StatusCode::NOT_FOUND, "Not Found", message)
    }
}

/// The v1 code of a generic condition (`"400"`, `"401"`, `"403"`, `"404"`, `"500"`) for the area
/// of a v1 path (READINGS 3.5), where the area's row for that status is generic.
pub fn v1_area_code(path: &str, status: &str) -> Option<String> {
    let rest = path.strip_prefix("/v1/")?;
    let seg = rest.split('/').next().unwrap_or("");
    let code = match (seg, status) {
        ("calls", "401") => "0100401",
        ("calls", "404") => "0100404",
        ("calls", "500") => "0101500",
        ("messages", "401") => "0200401",
        ("messages", "404") => "0200404",
        ("messages", "500") => "0201500",
        ("tasks", "400") => "0600400",
        ("tasks", "401") => "0600401",
        ("tasks", "403") => "0600403",
        ("tasks", "404") => "0600404",
        ("tasks", "500") => "0601500",
        ("contacts", "401") => "0800401",
        ("contacts", "404") => "0800404",
        ("contacts", "409") => "0800409",
        ("contacts", "500") => "0801500",
        ("call-recordings", "400") => "0900400",
        ("call-recordings", "401") => "0900401",
        ("call-recordings", "403") => "0900403",
        ("call-recordings", "404") => "0900404",
        ("call-recordings", "500") => "0901500",
        ("conversations", "400") => "1000400",
        ("conversations", "401") => "1000401",
        ("conversations", "404") => "1000404",
        ("conversations", "500") => "1001500",
        ("users", "400") => "1100400",
        ("users", "401") => "1100401",
        ("users", "403") => "1100403",
        ("users", "404") => "1100404",
        ("users", "500") => "1101500",
        _ => return None,
    };
    Some(code.to_string())
}

/// A method a served path does not take: 405 in the error shape of the path's generation.
pub async fn method_not_allowed(uri: axum::http::Uri, method: axum::http::Method) -> Response {
    let path = uri.path();
    let message = format!("{} is not allowed on {}", method, path);
    if path == "/v1" || path.starts_with("/v1/") {
        let seg = path
            .trim_start_matches("/v1/")
            .split('/')
            .next()
            .unwrap_or("");
        // Seven digits: the area's prefix and `405` (no row of the contract names this condition).
        let area = match seg {
            "calls" => "0100",
            "messages" => "0200",
            "tasks" => "0600",
            "contacts" => "0800",
            "call-recordings" => "0900",
            "conversations" => "1000",
            "users" => "1100",
            _ => "1200",
        };
        v1(
            StatusCode::METHOD_NOT_ALLOWED,
            &format!("{area}405"),
            "Method Not Allowed",
            message,
        )
    } else if path.starts_with("/webhooks") {
        webhook(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed",
            message,
            Vec::new(),
        )
    } else {
        latest(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method Not Allowed",
            message,
        )
    }
}
