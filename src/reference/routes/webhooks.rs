//! Header-versioned webhooks: `GET /webhooks/{webhookId}`.

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::json;

use super::allow_only;
use crate::reference::app::App;
use crate::reference::errors::ApiError;
use crate::reference::faults::Fault;
use crate::reference::input;
use crate::reference::reply;

const PATH: &str = "/webhooks";
const ID_PATTERN: &str = "^[0-9]+$";

pub(super) fn routes() -> Router<App> {
    Router::new().route("/webhooks/{webhookId}", allow_only(get(get_webhook), "GET"))
}

async fn get_webhook(State(app): State<App>, id: Result<Path<String>, PathRejection>) -> Response {
    input::path_param(id, PATH)
        .and_then(|id| find(&app, &id))
        .unwrap_or_else(|e| e.render(app.switches()))
}

fn find(app: &App, id: &str) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let numeric = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
    if !numeric && !faults.has(Fault::WebhookIdPatternUnchecked) {
        let message = format!("path parameter webhookId must match pattern {ID_PATTERN}");
        return Err(
            ApiError::for_path(PATH, StatusCode::BAD_REQUEST, message.clone()).with_item(
                "/webhookId",
                &message,
                json!(id),
                json!({"type": "string", "pattern": ID_PATTERN}),
            ),
        );
    }
    let store = app.store();
    match store.webhook(id) {
        Some(webhook) => Ok(reply::data(StatusCode::OK, webhook.to_json())),
        None => {
            let error = ApiError::for_path(
                PATH,
                StatusCode::NOT_FOUND,
                format!("Webhook '{id}' was not found"),
            );
            Err(if faults.has(Fault::Webhook404WrongTitle) {
                error.with_title("Webhook Not Found")
            } else {
                error
            })
        }
    }
}
