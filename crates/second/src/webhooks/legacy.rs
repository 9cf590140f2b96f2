//! Legacy webhook creation: `POST /v1/webhooks/{messages|calls|call-summaries|call-transcripts}`.
//!
//! A legacy webhook is a webhook like any other (same ids, same store, listed and managed by the
//! header-versioned endpoints, counted in the workspace's 50), tied to one variant of the events
//! union by its kind, without a pinned payload version, and signed with the legacy
//! `Service-Signature` header instead of Standard Webhooks. Body: `url` (required), `events`
//! (default: every event of the kind), `resourceIds` (default `["*"]`), `label`, `status`.
//! Errors: the v1 body, codes of this service's webhook area (`12xxxxx`).

use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::post;
use serde_json::json;

use super::validate::{self, Mode, Refusal};
use super::{LegacyKind, MAX_WEBHOOKS_PER_ORG, Webhook, new_legacy_key, now_rfc3339};
use crate::app::App;
use crate::auth;
use crate::errors;

pub(super) fn routes() -> Router<Arc<App>> {
    Router::new().route("/v1/webhooks/{kind}", post(create_legacy))
}

/// The v1 code of a legacy webhook error of `status`.
fn code(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 => "1200400",
        401 => "1200401",
        403 => "1200403",
        404 => "1200404",
        409 => "1200409",
        413 => "1200413",
        415 => "1200415",
        _ => "1201500",
    }
}

fn refuse(r: Refusal) -> Response {
    errors::v1_errors(r.status, code(r.status), r.title, r.message, r.errors)
}

async fn create_legacy(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let kind = match path.ok().and_then(|Path(k)| LegacyKind::parse(&k)) {
        Some(k) => k,
        None => {
            return errors::v1(
                StatusCode::NOT_FOUND,
                code(StatusCode::NOT_FOUND),
                "Not Found",
                "No legacy webhook kind by that name; the kinds are messages, calls, call-summaries and call-transcripts",
            );
        }
    };
    let Some(caller) = auth::authenticate(&app, &headers) else {
        return errors::v1(
            StatusCode::UNAUTHORIZED,
            code(StatusCode::UNAUTHORIZED),
            "Unauthorized",
            "Missing or invalid API key in the Authorization header",
        );
    };
    if let Err(r) = validate::query(q.0.as_deref(), &[]) {
        return refuse(r);
    }
    let body = match validate::read_body(body) {
        Ok(b) => b,
        Err(r) => return refuse(r),
    };
    let body = match validate::body_object(&headers, &body, false) {
        Ok(Some(b)) => b,
        Ok(None) => {
            return refuse(Refusal::bad_request(
                "A JSON object body is required",
                Vec::new(),
            ));
        }
        Err(r) => return refuse(r),
    };
    let f = match validate::fields(
        &body,
        Mode::LegacyCreate,
        Some(kind),
        &app.directory,
        &caller.org_id,
        None,
    ) {
        Ok(f) => f,
        Err(r) => return refuse(r),
    };
    let now = now_rfc3339();
    let mut inner = app.webhooks.lock();
    let count = inner.count_of_org(&caller.org_id);
    if count >= MAX_WEBHOOKS_PER_ORG {
        return errors::v1(
            StatusCode::CONFLICT,
            code(StatusCode::CONFLICT),
            "Webhook Limit Reached",
            super::http::limit_message(count),
        );
    }
    let id = inner.new_webhook_id();
    let seq = inner.new_seq();
    let w = Webhook {
        id: id.clone(),
        seq,
        org_id: caller.org_id.clone(),
        label: f.label.clone().flatten(),
        enabled: f.status.unwrap_or(true),
        url: f.url.clone().unwrap_or_default(),
        created_at: now.clone(),
        updated_at: now,
        api_version: None,
        events: f
            .events
            .clone()
            .unwrap_or_else(|| kind.events().iter().map(|e| e.to_string()).collect()),
        resource_ids: f
            .resource_ids
            .clone()
            .unwrap_or_else(|| vec!["*".to_string()]),
        secret: new_legacy_key(),
        secret_rotated_at: None,
        previous_secret: None,
        created_by: caller.user_id.clone(),
        legacy: Some(kind),
        deliveries: Vec::new(),
    };
    let body = w.to_json_with_secret();
    inner.webhooks.insert(id.clone(), w);
    drop(inner);
    let mut resp = errors::json_response(StatusCode::CREATED, &json!({ "data": body }));
    let h = resp.headers_mut();
    h.insert("deprecation", HeaderValue::from_static("true"));
    if let Ok(v) = HeaderValue::from_str("</webhooks>; rel=\"successor-version\"") {
        h.insert(header::LINK, v);
    }
    if let Ok(v) = HeaderValue::from_str(&format!("/webhooks/{id}")) {
        h.insert(header::LOCATION, v);
    }
    resp
}
