//! Faults of the wire: what some services do to an answer's bytes, headers or negotiation after
//! (or before) the handler ran. Each middleware here is layered only while its fault is on.

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use crate::app::App;
use crate::errors::ApiError;

/// The largest answer the rewriting middlewares read.
const BODY_LIMIT: usize = 16 * 1024 * 1024;

/// Fault tasks-accept-exact-406: the task routes' content negotiation compares the whole Accept
/// header with the two values it knows, so a list or a parameter is not acceptable.
pub(super) async fn accept_exact_tasks(
    State(app): State<App>,
    req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    let tasks = path == "/v1/tasks" || path.starts_with("/v1/tasks/");
    let refused = req
        .headers()
        .get(header::ACCEPT)
        .is_some_and(|a| a.as_bytes() != b"application/json" && a.as_bytes() != b"*/*");
    if !(tasks && refused) {
        return next.run(req).await;
    }
    ApiError::for_path(
        path,
        StatusCode::NOT_ACCEPTABLE,
        "the requested media type is not available: this endpoint produces application/json",
    )
    .render(app.switches())
}

/// The body of an answer, read whole, and its parts; an unreadable body comes back empty.
async fn read(response: Response) -> (axum::http::response::Parts, Vec<u8>) {
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, BODY_LIMIT)
        .await
        .map(|b| b.to_vec())
        .unwrap_or_default();
    (parts, bytes)
}

/// Fault contacts-hv-body-latin1: the header-versioned contact routes write their answers in
/// ISO-8859-1, a character beyond it as `?`, under the same JSON label.
pub(super) async fn latin1_contacts(req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let contacts = path == "/contacts" || path.starts_with("/contacts/");
    let response = next.run(req).await;
    if !contacts {
        return response;
    }
    let (mut parts, bytes) = read(response).await;
    let latin1: Vec<u8> = String::from_utf8_lossy(&bytes)
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(latin1))
}

/// Fault message-content-length-utf16: GET /messages/{messageId} declares the length of its body
/// in UTF-16 code units (a JavaScript string's `length`), so a body with non-ASCII characters is
/// cut short on the wire.
pub(super) async fn utf16_content_length_messages(req: Request, next: Next) -> Response {
    let path = req.uri().path();
    let one_message = req.method() == Method::GET
        && path
            .strip_prefix("/messages/")
            .is_some_and(|rest| !rest.is_empty() && !rest.contains('/'));
    let response = next.run(req).await;
    if !one_message {
        return response;
    }
    let (mut parts, bytes) = read(response).await;
    let units = String::from_utf8_lossy(&bytes).encode_utf16().count();
    parts
        .headers
        .insert(header::CONTENT_LENGTH, HeaderValue::from(units));
    Response::from_parts(parts, Body::from(bytes))
}
