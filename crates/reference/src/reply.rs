//! JSON answers. The reference writes bodies itself rather than through axum's `Json`, so every
//! answer, success or error, has the same content type and no path can fall back to plain text.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// A JSON answer with the given status and body, labelled `application/json`.
pub(crate) fn json(status: StatusCode, body: &Value) -> Response {
    match serde_json::to_vec(body) {
        Ok(bytes) => (
            status,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            bytes,
        )
            .into_response(),
        // A `Value` always serializes; this arm only keeps the server from panicking if not.
        Err(_) => StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    }
}

/// A success answer: the payload wrapped in `data`, as every success body of the API is.
pub(crate) fn data(status: StatusCode, payload: Value) -> Response {
    json(status, &json!({ "data": payload }))
}
