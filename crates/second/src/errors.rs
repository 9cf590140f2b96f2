//! Error bodies of both generations. OWNER: core.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

/// Any path the API does not serve.
pub async fn fallback() -> Response {
    StatusCode::NOT_FOUND.into_response()
}
