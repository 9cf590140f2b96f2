//! Authentication of every request. OWNER: core.
//!
//! The `Authorization` header carries the API key itself, nothing else: no `Bearer ` scheme,
//! no surrounding whitespace beyond what HTTP strips. A key is valid only when it is one of the
//! directory's keys, exactly (case-sensitive).

use axum::http::HeaderMap;

use crate::app::App;

/// The one supported value of `Service-Api-Version`.
pub const API_VERSION: &str = "2026-03-30";

/// Who sent a request: the key, its workspace and its user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The API key as sent.
    pub key: String,
    /// The key's organization (`OR...`).
    pub org_id: String,
    /// The key's user (`US...`).
    pub user_id: String,
}

/// None: missing or invalid credentials (the caller answers 401 in its own error shape).
pub fn authenticate(app: &App, headers: &HeaderMap) -> Option<Caller> {
    let mut values = headers.get_all(axum::http::header::AUTHORIZATION).iter();
    let first = values.next()?;
    // Two Authorization headers are ambiguous: refused.
    if values.next().is_some() {
        return None;
    }
    let key = first.to_str().ok()?;
    if key.is_empty() || key.len() > 200 {
        return None;
    }
    let k = match app.directory.key(key) {
        Some(k) => k,
        None if app.faults.on("b16-auth-key-prefix-match") => {
            app.directory.key_by_prefix(key, 16)?
        }
        None => return None,
    };
    Some(Caller {
        key: key.to_string(),
        org_id: k.org_id.clone(),
        user_id: k.user_id.clone(),
    })
}

/// Whether `Service-Api-Version` is present and equal to `2026-03-30`.
pub fn version_ok(headers: &HeaderMap) -> bool {
    let mut values = headers.get_all("service-api-version").iter();
    match (values.next(), values.next()) {
        (Some(v), None) => v.to_str().map(|s| s == API_VERSION).unwrap_or(false),
        _ => false,
    }
}

/// The guard of a header-versioned endpoint other than webhooks: the caller, or the error
/// answer (401 `Unauthorized`; then 400 `Bad Request` for a missing or unsupported
/// `Service-Api-Version`), in the latest error shape.
pub fn latest_guard(app: &App, headers: &HeaderMap) -> Result<Caller, axum::response::Response> {
    let Some(caller) = authenticate(app, headers) else {
        return Err(crate::errors::latest(
            axum::http::StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "Missing or invalid API key in the Authorization header",
        ));
    };
    if !version_ok(headers) {
        return Err(crate::errors::latest(
            axum::http::StatusCode::BAD_REQUEST,
            "Bad Request",
            version_message(headers),
        ));
    }
    Ok(caller)
}

/// The message of a refused `Service-Api-Version`.
pub fn version_message(headers: &HeaderMap) -> String {
    if headers.get_all("service-api-version").iter().count() > 1 {
        return "The Service-Api-Version header is given more than once".to_string();
    }
    match headers.get("service-api-version") {
        None => format!(
            "The Service-Api-Version header is required; the supported version is {API_VERSION}"
        ),
        Some(v) => format!(
            "Unsupported Service-Api-Version `{}`; the supported version is {API_VERSION}",
            v.to_str().unwrap_or("(not text)")
        ),
    }
}
