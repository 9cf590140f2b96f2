//! Error answers of both API generations, rendered with the instance's switches.
//!
//! v1 bodies carry `message`, `code`, `status`, `docs`, `title`, `trace`; header-versioned bodies
//! carry `message`, `docs`, `title` and optionally `errors`, never `code`, `status` or `trace`.

use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::faults::Fault;
use super::reply;
use super::switches::Switches;
use super::variants::Variant;

/// The API generation a path belongs to; it decides the shape of every error body.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Generation {
    V1,
    HeaderVersioned,
}

impl Generation {
    pub(crate) fn of_path(path: &str) -> Self {
        if path == "/v1" || path.starts_with("/v1/") {
            Generation::V1
        } else {
            Generation::HeaderVersioned
        }
    }
}

/// An error answer waiting for the switches that decide its final form.
#[derive(Debug, Clone)]
pub(crate) struct ApiError {
    generation: Generation,
    status: StatusCode,
    /// Seven digits; only v1 bodies show it.
    code: String,
    title: String,
    message: String,
    /// Items of the optional `errors` array.
    errors: Vec<Value>,
    /// The path is one of the webhook endpoints (their own error table).
    webhook: bool,
    /// The `status` a v1 body shows when it is not the HTTP status (fault
    /// international-403-body-status-400).
    body_status: Option<u16>,
}

/// The v1 area of a path: the first two digits of its codes (the spec's "v1 codes" table).
fn v1_area(path: &str) -> &'static str {
    let under = |prefix: &str| {
        path == prefix
            || path
                .strip_prefix(prefix)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    if under("/v1/contacts") {
        "08"
    } else if under("/v1/messages") {
        "02"
    } else if under("/v1/conversations") {
        "10"
    } else if under("/v1/tasks") {
        "06"
    } else if under("/v1/calls") {
        "01"
    } else if under("/v1/call-recordings") {
        "09"
    } else if under("/v1/users") {
        "11"
    } else {
        "00"
    }
}

fn v1_title(status: StatusCode) -> &'static str {
    match status.as_u16() {
        500 => "Unknown",
        _ => hv_title(status),
    }
}

fn hv_title(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        409 => "Conflict",
        413 => "Payload Too Large",
        500 => "Unknown Error",
        _ => status.canonical_reason().unwrap_or("Error"),
    }
}

impl ApiError {
    /// The 400 a request to `path` gets for a value it refuses.
    pub(crate) fn bad_request(path: &str, message: impl Into<String>) -> Self {
        Self::for_path(path, StatusCode::BAD_REQUEST, message)
    }

    /// The error a request to `path` gets for `status` when no rule names another code or title.
    pub(crate) fn for_path(path: &str, status: StatusCode, message: impl Into<String>) -> Self {
        let generation = Generation::of_path(path);
        let (code, title) = match generation {
            Generation::V1 => {
                // The spec's 500 rows carry sub-code 1 (`0801500`); the generic rows carry 0.
                let sub = if status == StatusCode::INTERNAL_SERVER_ERROR && v1_area(path) != "00" {
                    "1"
                } else {
                    "0"
                };
                (
                    format!("{}0{sub}{:03}", v1_area(path), status.as_u16()),
                    v1_title(status),
                )
            }
            Generation::HeaderVersioned => {
                (format!("0000{:03}", status.as_u16()), hv_title(status))
            }
        };
        ApiError {
            generation,
            status,
            code,
            title: title.to_string(),
            message: message.into(),
            errors: Vec::new(),
            webhook: path.starts_with("/webhooks"),
            body_status: None,
        }
    }

    /// Overrides the code, for conditions a rule of the spec names (e.g. `0801400`).
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The same error under another status (its code follows the status).
    pub(crate) fn with_status(mut self, status: StatusCode) -> Self {
        let old = format!("{:03}", self.status.as_u16());
        if self.code.ends_with(&old) {
            self.code = format!(
                "{}{:03}",
                &self.code[..self.code.len() - 3],
                status.as_u16()
            );
        }
        self.status = status;
        self
    }

    /// The message the body will carry.
    pub(crate) fn message(&self) -> &str {
        &self.message
    }

    /// The code a v1 body will carry (before the switches reshape it).
    pub(crate) fn code(&self) -> &str {
        &self.code
    }

    /// The title the body will carry.
    pub(crate) fn title(&self) -> &str {
        &self.title
    }

    pub(crate) fn with_code(mut self, code: &str) -> Self {
        self.code = code.to_string();
        self
    }

    /// The `status` the v1 body shows, when a fault makes it differ from the HTTP status.
    pub(crate) fn with_body_status(mut self, status: Option<u16>) -> Self {
        self.body_status = status;
        self
    }

    pub(crate) fn with_title(mut self, title: &str) -> Self {
        self.title = title.to_string();
        self
    }

    pub(crate) fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = message.into();
        self
    }

    /// Adds an item to the `errors` array: which part of the request broke which schema.
    pub(crate) fn with_item(
        mut self,
        path: &str,
        message: &str,
        value: Value,
        schema: Value,
    ) -> Self {
        self.errors.push(json!({
            "path": path,
            "message": message,
            "value": value,
            "schema": schema,
        }));
        self
    }

    pub fn render(mut self, switches: &Switches) -> Response {
        let faults = &switches.faults;
        let mut body = Map::new();
        body.insert("message".into(), json!(self.message));
        match self.generation {
            Generation::V1 => {
                // Fault v1-calls-error-message-localized: the calls area takes its messages from
                // the translation catalog, as the map of locales.
                if self.code.starts_with("01") && faults.has(Fault::V1CallsErrorMessageLocalized) {
                    body.insert("message".into(), json!({ "en": self.message }));
                }
                // Where the area's only 400 row names another condition, the code of any other
                // 400 condition is open (READINGS 3.4): variant `unlisted-codes` uses its own.
                if switches.variant(Variant::UnlistedCodes)
                    && self.status == StatusCode::BAD_REQUEST
                    && ["0800400", "0200400", "0100400"].contains(&self.code.as_str())
                {
                    self.code = format!("{}05400", &self.code[..2]);
                    self.title = "Validation Failed".into();
                }
                // Fault v1-error-code-integer: the code read back from an integer column.
                if faults.has(Fault::V1ErrorCodeInteger) {
                    if let Ok(n) = self.code.parse::<u32>() {
                        self.code = n.to_string();
                    }
                }
                let docs = format!("https://docs.workspace.example/errors/{}", self.code);
                // Fault v1-error-docs-null-for-named-codes: the docs table knows the generic rows.
                let named = self.code.as_bytes().get(3).is_some_and(|d| *d != b'0');
                let docs = if named && faults.has(Fault::V1ErrorDocsNullForNamedCodes) {
                    Value::Null
                } else {
                    json!(docs)
                };
                // Fault v1-generic-title-with-status-code: the title from the status line.
                if matches!(self.status.as_u16(), 400 | 404)
                    && self.title == v1_title(self.status)
                    && faults.has(Fault::V1GenericTitleWithStatusCode)
                {
                    self.title = self.status.to_string();
                }
                body.insert("code".into(), json!(self.code));
                let status = if faults.has(Fault::V1ErrorStatusMismatch) {
                    json!(self.status.as_u16().to_string())
                } else {
                    json!(self.body_status.unwrap_or(self.status.as_u16()))
                };
                body.insert("status".into(), status);
                body.insert("docs".into(), docs);
                body.insert("title".into(), json!(self.title));
                // Fault v1-error-description-array: the validator's list of messages.
                if self.status == StatusCode::BAD_REQUEST
                    && faults.has(Fault::V1ErrorDescriptionArray)
                {
                    body.insert("description".into(), json!([self.message]));
                }
                // Fault v1-error-trace-number: the logging middleware's request counter.
                if faults.has(Fault::V1ErrorTraceNumber) {
                    body.insert("trace".into(), json!(rand::random::<u32>()));
                } else {
                    body.insert("trace".into(), json!(trace_id()));
                }
            }
            Generation::HeaderVersioned => {
                let docs = format!(
                    "https://docs.workspace.example/api/errors#{}",
                    self.status.as_u16()
                );
                if self.webhook || !faults.has(Fault::HvErrorWithoutDocs) {
                    body.insert("docs".into(), json!(docs));
                }
                body.insert("title".into(), json!(self.title));
                // Fault hv-404-message-null: the error's optional detail serialized as message.
                if !self.webhook
                    && self.status == StatusCode::NOT_FOUND
                    && faults.has(Fault::HvNotFoundMessageNull)
                {
                    body.insert("message".into(), Value::Null);
                }
                if faults.has(Fault::HvErrorHasCode) {
                    body.insert(
                        "code".into(),
                        json!(format!("0000{:03}", self.status.as_u16())),
                    );
                    body.insert("status".into(), json!(self.status.as_u16()));
                    body.insert("trace".into(), json!(trace_id()));
                }
            }
        }
        // Fault v1-error-item-schema-string: the v1 serializer writes an item's schema as its
        // type name.
        if self.generation == Generation::V1 && faults.has(Fault::V1ErrorItemSchemaString) {
            for item in self.errors.iter_mut() {
                if let Some(kind) = item.pointer("/schema/type").cloned() {
                    item["schema"] = kind;
                }
            }
        }
        // Fault v1-error-item-path-array: the validator's location tuple written as it is.
        if self.generation == Generation::V1 && faults.has(Fault::V1ErrorItemPathArray) {
            for item in self.errors.iter_mut() {
                if let Some(path) = item["path"].as_str() {
                    let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
                    item["path"] = json!(segments);
                }
            }
        }
        // Fault webhook-error-item-schema-without-pattern: the schema view keeps only `type`.
        if self.generation == Generation::HeaderVersioned
            && self.webhook
            && faults.has(Fault::WebhookErrorItemSchemaWithoutPattern)
        {
            for item in self.errors.iter_mut() {
                if let Some(schema) = item.get_mut("schema").and_then(Value::as_object_mut) {
                    schema.remove("pattern");
                }
            }
        }
        if !self.errors.is_empty() {
            body.insert("errors".into(), Value::Array(self.errors));
        }
        reply::json(self.status, &Value::Object(body))
    }
}

/// A fresh id per error, so a report can be matched with the server's side of it.
fn trace_id() -> String {
    format!("{:032x}", rand::random::<u128>())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_area_and_status() {
        let e = ApiError::for_path("/v1/contacts/x", StatusCode::NOT_FOUND, "m");
        assert_eq!(
            (e.code.as_str(), e.title.as_str()),
            ("0800404", "Not Found")
        );
        let e = ApiError::for_path("/v1/contacts", StatusCode::INTERNAL_SERVER_ERROR, "m");
        assert_eq!((e.code.as_str(), e.title.as_str()), ("0801500", "Unknown"));
        let e = ApiError::for_path("/v1/nothing", StatusCode::NOT_FOUND, "m");
        assert_eq!(e.code, "0000404");
        let e = ApiError::for_path("/contacts", StatusCode::INTERNAL_SERVER_ERROR, "m");
        assert_eq!(e.generation, Generation::HeaderVersioned);
        assert_eq!(e.title, "Unknown Error");
    }
}
