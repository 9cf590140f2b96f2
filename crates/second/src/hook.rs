//! The activity simulator (outside the API). OWNER: core.
//!
//! `POST /_simulator/activity` with the API key (401 without a valid one), a JSON object body
//! whose `kind` is `inbound-message`, `call` or `delete-contact`; the area that owns the activity
//! validates the rest and answers.

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::post;
use serde_json::Value;

use crate::app::App;
use crate::{auth, errors};

/// The path of the simulator (named in the profile as `activity_trigger_path`).
pub const PATH: &str = "/_simulator/activity";

/// The largest body the simulator reads.
const MAX_BODY: usize = 64 * 1024;

async fn activity(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    body: Bytes,
) -> Response {
    let Some(caller) = auth::authenticate(&app, &headers) else {
        return errors::latest(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "Missing or invalid API key in the Authorization header",
        );
    };
    let bad = |m: String| errors::latest(StatusCode::BAD_REQUEST, "Bad Request", m);
    if query.as_deref().is_some_and(|q| !q.is_empty()) {
        return bad("The activity simulator takes no query parameters".into());
    }
    if body.len() > MAX_BODY {
        return errors::latest(
            StatusCode::PAYLOAD_TOO_LARGE,
            "Payload Too Large",
            format!("The body is at most {MAX_BODY} bytes"),
        );
    }
    let value: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => return bad(format!("The body is not valid JSON: {e}")),
    };
    if !value.is_object() {
        return bad("The body must be a JSON object".into());
    }
    let kind = match value.get("kind") {
        Some(Value::String(k)) => k.as_str(),
        Some(_) => return bad("`kind` must be a string".into()),
        None => {
            return bad(
                "`kind` is required: one of `inbound-message`, `call`, `delete-contact`".into(),
            );
        }
    };
    match kind {
        "inbound-message" => crate::messaging::simulate_inbound(&app, &caller, &value).await,
        "call" => crate::calls::simulate_call(&app, &caller, &value).await,
        "delete-contact" => crate::contacts::simulate_delete(&app, &caller, &value).await,
        other => bad(format!(
            "Unknown `kind` `{other}`: one of `inbound-message`, `call`, `delete-contact`"
        )),
    }
}

/// The hook's route.
pub fn routes() -> Router<Arc<App>> {
    Router::new().route(PATH, post(activity))
}
