//! The header-versioned webhook endpoints.
//!
//! Every endpoint checks, in this order: the API key (401), `Service-Api-Version` (400), the
//! path `webhookId` (400: not all digits), the query (400: unknown or repeated names, bad
//! values), the webhook (404: no such id; 403: a webhook of another workspace), then the body.
//! Errors use the webhook error body (`message`, `docs`, `title`, `errors`; never `code`,
//! `status` or `trace`).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Value, json};

use super::deliver::{Job, MANUAL_DELAY, TEST_DELAY, Trigger, spawn_single};
use super::validate::{self, Fields, Mode, Refusal};
use super::{
    Delivery, DeliveryStatus, EVENT_TYPES, Inner, MAX_WEBHOOKS_PER_ORG, PAYLOAD_VERSION,
    PreviousSecret, ROTATION_GRACE, TEST_EVENT_TYPE, Webhook, enqueue_initial, new_legacy_key,
    new_secret, now_rfc3339, random_id, rfc3339_in,
};
use crate::app::App;
use crate::auth::{self, Caller};
use crate::errors;

/// Default and largest page of the webhook list and the delivery history.
const DEFAULT_PAGE: usize = 20;
const MAX_PAGE: usize = 50;

pub(super) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/webhooks", get(list_webhooks).post(create_webhook))
        .route(
            "/webhooks/{webhookId}",
            get(get_webhook)
                .patch(patch_webhook)
                .put(put_webhook)
                .delete(delete_webhook),
        )
        .route("/webhooks/{webhookId}/rotate", post(rotate))
        .route("/webhooks/{webhookId}/events", get(list_deliveries))
        .route("/webhooks/{webhookId}/events/test", post(test_delivery))
        .route("/webhooks/{webhookId}/events/{eventId}", get(get_delivery))
        .route(
            "/webhooks/{webhookId}/events/{eventId}/retry",
            post(retry_delivery),
        )
}

/// A refusal in the webhook error body.
fn refuse(r: Refusal) -> Response {
    errors::webhook(r.status, r.title, r.message, r.errors)
}

/// A `{data: ...}` answer.
fn data(status: StatusCode, v: Value) -> Response {
    errors::json_response(status, &json!({ "data": v }))
}

/// The caller, or 401 / 400 (version) in the webhook error body.
fn guard(app: &App, headers: &HeaderMap) -> Result<Caller, Response> {
    let Some(caller) = auth::authenticate(app, headers) else {
        return Err(errors::webhook(
            StatusCode::UNAUTHORIZED,
            "Unauthorized",
            "Not authorized to access webhooks: the Authorization header must carry a valid API key",
            Vec::new(),
        ));
    };
    if !auth::version_ok(headers) {
        let sent = headers
            .get("service-api-version")
            .map(|v| json!(v.to_str().unwrap_or("(not text)")));
        let message = auth::version_message(headers);
        return Err(errors::webhook(
            StatusCode::BAD_REQUEST,
            "Bad Request",
            message.clone(),
            vec![errors::error_item(
                "/header/Service-Api-Version",
                &message,
                sent.unwrap_or(Value::Null),
                "string",
                Some("^2026-03-30$"),
            )],
        ));
    }
    Ok(caller)
}

/// The checked path `webhookId`.
fn webhook_id(path: Result<Path<String>, PathRejection>) -> Result<String, Response> {
    let raw = match path {
        Ok(Path(raw)) => raw,
        Err(e) => {
            return Err(refuse(Refusal::bad_request(
                format!("Invalid path: {e}"),
                Vec::new(),
            )));
        }
    };
    validate::webhook_id(&raw).map_err(refuse)?;
    Ok(raw)
}

/// The checked path `webhookId` and the delivery id.
fn webhook_and_delivery(
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), Response> {
    let (wid, did) = match path {
        Ok(Path(p)) => p,
        Err(e) => {
            return Err(refuse(Refusal::bad_request(
                format!("Invalid path: {e}"),
                Vec::new(),
            )));
        }
    };
    validate::webhook_id(&wid).map_err(refuse)?;
    Ok((wid, did))
}

/// The webhook `id` as `caller` may see it: 404 when there is none, 403 when it belongs to
/// another workspace.
fn find<'a>(inner: &'a Inner, caller: &Caller, id: &str) -> Result<&'a Webhook, Response> {
    match inner.webhooks.get(id) {
        None => Err(not_found(id)),
        Some(w) if w.org_id != caller.org_id => Err(errors::webhook(
            StatusCode::FORBIDDEN,
            "Forbidden",
            format!("Not allowed to access webhook {id}: it belongs to another workspace"),
            Vec::new(),
        )),
        Some(w) => Ok(w),
    }
}

fn not_found(id: &str) -> Response {
    errors::webhook(
        StatusCode::NOT_FOUND,
        "Not Found",
        format!("No webhook with id {id}"),
        Vec::new(),
    )
}

fn no_query(q: &RawQuery) -> Result<(), Response> {
    validate::query(q.0.as_deref(), &[])
        .map(|_| ())
        .map_err(refuse)
}

// ---------------------------------------------------------------------------------------------
// Webhooks

async fn get_webhook(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    // Fault: an id that is not all digits is looked up (and not found) instead of refused.
    let lenient = app.faults.on("b16-webhooks-get-bad-id-404");
    let id = match path {
        Ok(Path(raw)) if lenient => raw,
        other => match webhook_id(other) {
            Ok(id) => id,
            Err(r) => return r,
        },
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let inner = app.webhooks.lock();
    if app.faults.on("b16-webhooks-404-v1-body") && !inner.webhooks.contains_key(&id) {
        return errors::v1(
            StatusCode::NOT_FOUND,
            "1200404",
            "Not Found",
            format!("No webhook with id {id}"),
        );
    }
    match find(&inner, &caller, &id) {
        Ok(w) => data(StatusCode::OK, w.to_json()),
        Err(r) => r,
    }
}

async fn list_webhooks(State(app): State<Arc<App>>, headers: HeaderMap, q: RawQuery) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let pairs = match validate::query(q.0.as_deref(), &["maxResults", "pageToken", "status"]) {
        Ok(p) => p,
        Err(r) => return refuse(r),
    };
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let max = match validate::max_results(get("maxResults"), DEFAULT_PAGE, MAX_PAGE) {
        Ok(m) => m,
        Err(r) => return refuse(r),
    };
    let status = get("status");
    if let Some(s) = status {
        if s != "enabled" && s != "disabled" {
            return refuse(Refusal::from_items(vec![errors::error_item(
                "/query/status",
                "status must be `enabled` or `disabled`",
                json!(s),
                "string",
                Some("^(enabled|disabled)$"),
            )]));
        }
    }
    let scope = format!(
        "webhooks|{}|status={}",
        caller.org_id,
        status.unwrap_or("*")
    );
    let inner = app.webhooks.lock();
    let mut items: Vec<&Webhook> = inner
        .webhooks
        .values()
        .filter(|w| w.org_id == caller.org_id)
        .filter(|w| match status {
            Some("enabled") => w.enabled,
            Some(_) => !w.enabled,
            None => true,
        })
        .collect();
    // Newest first.
    items.sort_by_key(|w| std::cmp::Reverse(w.seq));
    let keyed: Vec<(u64, Value)> = items.iter().map(|w| (w.seq, w.to_json())).collect();
    drop(inner);
    page_answer(&app, &scope, keyed, get("pageToken"), max)
}

async fn create_webhook(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let body = match validate::read_body(body) {
        Ok(b) => b,
        Err(r) => return refuse(r),
    };
    // The payload version pinned at creation: `x-service-api-version`, else the request's version.
    let mut pinned_values = headers.get_all("x-service-api-version").iter();
    let pinned = match (pinned_values.next(), pinned_values.next()) {
        (None, _) => PAYLOAD_VERSION.to_string(),
        (Some(v), None) if v.to_str().ok() == Some(PAYLOAD_VERSION) => PAYLOAD_VERSION.to_string(),
        (Some(v), more) => {
            let sent = v.to_str().unwrap_or("(not text)").to_string();
            let message = if more.is_some() {
                "x-service-api-version is given more than once".to_string()
            } else {
                format!(
                    "x-service-api-version `{sent}` is not a payload version; the only one is {PAYLOAD_VERSION}"
                )
            };
            return refuse(Refusal::from_items(vec![errors::error_item(
                "/header/x-service-api-version",
                &message,
                json!(sent),
                "string",
                Some("^2026-03-30$"),
            )]));
        }
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
        Mode::Create,
        None,
        &app.directory,
        &caller.org_id,
        None,
    ) {
        Ok(f) => f,
        Err(r) => return refuse(r),
    };
    if let Some(v) = &f.api_version {
        if *v != pinned {
            return refuse(Refusal::from_items(vec![errors::error_item(
                "/apiVersion",
                "apiVersion must equal the version pinned by the x-service-api-version header",
                json!(v),
                "string",
                Some("^2026-03-30$"),
            )]));
        }
    }
    let now = now_rfc3339();
    let mut inner = app.webhooks.lock();
    let count = inner.count_of_org(&caller.org_id);
    let full = if app.faults.on("b16-webhooks-limit-51") {
        count > MAX_WEBHOOKS_PER_ORG
    } else {
        count >= MAX_WEBHOOKS_PER_ORG
    };
    if full {
        return limit_reached(count);
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
        api_version: if app.faults.on("b16-webhooks-apiversion-not-pinned") {
            None
        } else {
            Some(pinned)
        },
        events: f.events.clone().unwrap_or_default(),
        resource_ids: f.resource_ids.clone().unwrap_or_default(),
        secret: new_secret(),
        secret_rotated_at: None,
        previous_secret: None,
        created_by: caller.user_id.clone(),
        legacy: None,
        deliveries: Vec::new(),
    };
    let body = w.to_json_with_secret();
    inner.webhooks.insert(id.clone(), w);
    drop(inner);
    let mut resp = data(StatusCode::CREATED, body);
    if let Ok(v) = HeaderValue::from_str(&format!("/webhooks/{id}")) {
        resp.headers_mut().insert(header::LOCATION, v);
    }
    resp
}

/// The answer of a create past the workspace's limit.
pub(super) fn limit_message(count: usize) -> String {
    format!(
        "The workspace has {count} webhooks, the most it may have is {MAX_WEBHOOKS_PER_ORG}; delete one before creating another"
    )
}

fn limit_reached(count: usize) -> Response {
    errors::webhook(
        StatusCode::CONFLICT,
        "Webhook Limit Reached",
        limit_message(count),
        Vec::new(),
    )
}

/// Applies checked fields to a webhook; returns whether anything changed.
pub(super) fn apply(w: &mut Webhook, f: &Fields, replace: bool) -> bool {
    let before = (
        w.url.clone(),
        w.events.clone(),
        w.resource_ids.clone(),
        w.label.clone(),
        w.enabled,
    );
    if let Some(u) = &f.url {
        w.url = u.clone();
    }
    if let Some(e) = &f.events {
        w.events = e.clone();
    }
    if let Some(r) = &f.resource_ids {
        w.resource_ids = r.clone();
    }
    match (&f.label, replace) {
        (Some(l), _) => w.label = l.clone(),
        (None, true) => w.label = None,
        (None, false) => {}
    }
    match (f.status, replace) {
        (Some(s), _) => w.enabled = s,
        (None, true) => w.enabled = true,
        (None, false) => {}
    }
    before
        != (
            w.url.clone(),
            w.events.clone(),
            w.resource_ids.clone(),
            w.label.clone(),
            w.enabled,
        )
}

async fn update(
    app: Arc<App>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
    replace: bool,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match webhook_id(path) {
        Ok(id) => id,
        Err(r) => return r,
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let body = match validate::read_body(body) {
        Ok(b) => b,
        Err(r) => return refuse(r),
    };
    let mut inner = app.webhooks.lock();
    let (current, legacy) = match find(&inner, &caller, &id) {
        Ok(w) => (w.to_json(), w.legacy),
        Err(r) => return r,
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
    let mode = if replace { Mode::Replace } else { Mode::Patch };
    let f = match validate::fields(
        &body,
        mode,
        legacy,
        &app.directory,
        &caller.org_id,
        Some(&current),
    ) {
        Ok(f) => f,
        Err(r) => return refuse(r),
    };
    let Some(w) = inner.webhooks.get_mut(&id) else {
        return not_found(&id);
    };
    let mut next = w.clone();
    let changed = apply(&mut next, &f, replace);
    if !changed {
        if replace {
            // An idempotent PUT: the webhook already is what was sent; nothing is touched.
            return data(StatusCode::OK, w.to_json());
        }
        return refuse(Refusal::bad_request(
            "The update changes nothing: every field sent already has that value",
            vec![errors::error_item(
                "",
                "no field of the update differs from the webhook",
                Value::Object(body),
                "object",
                None,
            )],
        ));
    }
    next.updated_at = now_rfc3339();
    *w = next;
    data(StatusCode::OK, w.to_json())
}

async fn patch_webhook(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    update(app, headers, path, q, body, false).await
}

async fn put_webhook(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    update(app, headers, path, q, body, true).await
}

async fn delete_webhook(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match webhook_id(path) {
        Ok(id) => id,
        Err(r) => return r,
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let body = match validate::read_body(body) {
        Ok(b) => b,
        Err(r) => return refuse(r),
    };
    let mut inner = app.webhooks.lock();
    if let Err(r) = find(&inner, &caller, &id) {
        return r;
    }
    if let Err(r) = validate::empty_body(&headers, &body) {
        return refuse(r);
    }
    let Some(w) = inner.remove_webhook(&id) else {
        return not_found(&id);
    };
    let mut v = w.to_json();
    if let Some(m) = v.as_object_mut() {
        m.insert("deleted".into(), json!(true));
        m.insert("deletedAt".into(), json!(now_rfc3339()));
    }
    data(StatusCode::OK, v)
}

async fn rotate(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match webhook_id(path) {
        Ok(id) => id,
        Err(r) => return r,
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let body = match validate::read_body(body) {
        Ok(b) => b,
        Err(r) => return refuse(r),
    };
    let mut inner = app.webhooks.lock();
    if let Err(r) = find(&inner, &caller, &id) {
        return r;
    }
    if let Err(r) = validate::empty_body(&headers, &body) {
        return refuse(r);
    }
    let Some(stored) = inner.webhooks.get_mut(&id) else {
        return not_found(&id);
    };
    // Fault: the rotation is made on a copy that is answered but never stored.
    let mut copy = stored.clone();
    let w = if app.faults.on("b16-webhooks-rotate-not-persisted") {
        &mut copy
    } else {
        stored
    };
    // Only the secret changes (and when it did); events, apiVersion, updatedAt stay. A Standard
    // Webhooks secret rotated out keeps signing, as a second signature, for a grace period.
    let fresh = if w.legacy.is_some() {
        new_legacy_key()
    } else {
        new_secret()
    };
    let old = std::mem::replace(&mut w.secret, fresh);
    w.previous_secret = if w.legacy.is_some() {
        None
    } else {
        Some(PreviousSecret {
            secret: old,
            until: std::time::Instant::now() + ROTATION_GRACE,
            until_text: rfc3339_in(ROTATION_GRACE),
        })
    };
    w.secret_rotated_at = Some(now_rfc3339());
    data(StatusCode::OK, w.to_json_with_secret())
}

// ---------------------------------------------------------------------------------------------
// Deliveries

async fn test_delivery(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match webhook_id(path) {
        Ok(id) => id,
        Err(r) => return r,
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let body = match validate::read_body(body) {
        Ok(b) => b,
        Err(r) => return refuse(r),
    };
    let mut inner = app.webhooks.lock();
    let w = match find(&inner, &caller, &id) {
        Ok(w) => w,
        Err(r) => return r,
    };
    if let Err(r) = validate::empty_body(&headers, &body) {
        return refuse(r);
    }
    if !w.enabled {
        return disabled(&id, "send a test delivery");
    }
    let now = now_rfc3339();
    let delivery_id = random_id("whd_", 24);
    let resource = json!({
        "object": "webhook.test",
        "webhookId": w.id,
        "url": w.url,
        "events": w.events,
        "message": "A test delivery: the signature verifies with this webhook's signing secret.",
    });
    let context = json!({ "test": true, "resourceIds": w.resource_ids });
    let payload = crate::events::envelope(&crate::events::Envelope {
        payload_id: &random_id("evt_test_", 20),
        event_type: TEST_EVENT_TYPE,
        api_version: w.api_version.as_deref(),
        created_at: &now,
        org_id: &w.org_id,
        webhook_id: &w.id,
        delivery_id: &delivery_id,
        resource: &resource,
        context: &context,
        phone_number_id: None,
        test: true,
    });
    let with_ids = app.faults.on("b16-webhooks-test-delivery-has-ids");
    let payload_id = serde_json::from_str::<Value>(&payload)
        .ok()
        .and_then(|p| p.get("id").and_then(Value::as_str).map(str::to_string));
    let seq = inner.new_seq();
    let d = Delivery {
        id: delivery_id.clone(),
        seq,
        webhook_id: id.clone(),
        event_id: if with_ids { payload_id } else { None },
        event_type: TEST_EVENT_TYPE.to_string(),
        resource_id: if with_ids { Some(id.clone()) } else { None },
        test: true,
        payload,
        created_at: now.clone(),
        updated_at: now,
        status: DeliveryStatus::Pending,
        attempts: Vec::new(),
        next_attempt_at: Some(rfc3339_in(TEST_DELAY)),
        delivered_at: None,
        generation: 0,
    };
    let answer = d.to_json(false);
    inner.add_delivery(d);
    enqueue_initial(
        &app,
        &mut inner,
        &id,
        Job::new(delivery_id, 0, Trigger::Test, TEST_DELAY),
    );
    data(StatusCode::ACCEPTED, answer)
}

/// 409 for an operation that sends to a disabled webhook.
fn disabled(id: &str, what: &str) -> Response {
    errors::webhook(
        StatusCode::CONFLICT,
        "Webhook Disabled",
        format!(
            "Cannot {what}: webhook {id} is disabled; enable it first (PATCH status `enabled`)"
        ),
        Vec::new(),
    )
}

async fn list_deliveries(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    q: RawQuery,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match webhook_id(path) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let pairs = match validate::query(
        q.0.as_deref(),
        &[
            "maxResults",
            "pageToken",
            "resourceId",
            "status",
            "eventType",
        ],
    ) {
        Ok(p) => p,
        Err(r) => return refuse(r),
    };
    let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.as_str());
    let max = match validate::max_results(get("maxResults"), DEFAULT_PAGE, MAX_PAGE) {
        Ok(m) => m,
        Err(r) => return refuse(r),
    };
    let mut problems = Vec::new();
    let resource_id = get("resourceId");
    if let Some(r) = resource_id {
        if r.is_empty() || r.len() > 200 || r.chars().any(char::is_control) {
            problems.push(errors::error_item(
                "/query/resourceId",
                "resourceId must be 1 to 200 characters",
                json!(r),
                "string",
                None,
            ));
        }
    }
    let status = get("status");
    if let Some(s) = status {
        if !DeliveryStatus::NAMES.contains(&s) {
            problems.push(errors::error_item(
                "/query/status",
                &format!("status must be one of {}", DeliveryStatus::NAMES.join(", ")),
                json!(s),
                "string",
                None,
            ));
        }
    }
    let event_type = get("eventType");
    if let Some(t) = event_type {
        if t != TEST_EVENT_TYPE && !EVENT_TYPES.contains(&t) {
            problems.push(errors::error_item(
                "/query/eventType",
                "eventType must be an event name of this service, or webhook.test",
                json!(t),
                "string",
                None,
            ));
        }
    }
    if !problems.is_empty() {
        return refuse(Refusal::from_items(problems));
    }
    let null_matches = app.faults.on("b16-webhooks-resourceid-filter-matches-null");
    let inner = app.webhooks.lock();
    let w = match find(&inner, &caller, &id) {
        Ok(w) => w,
        Err(r) => return r,
    };
    let mut keyed: Vec<(u64, Value)> = w
        .deliveries
        .iter()
        .filter_map(|did| inner.deliveries.get(did))
        .filter(|d| {
            resource_id.is_none_or(|r| {
                d.resource_id.as_deref() == Some(r) || (null_matches && d.resource_id.is_none())
            })
        })
        .filter(|d| status.is_none_or(|s| d.status.name() == s))
        .filter(|d| event_type.is_none_or(|t| d.event_type == t))
        .map(|d| (d.seq, d.to_json(false)))
        .collect();
    drop(inner);
    // Newest first.
    keyed.sort_by_key(|k| std::cmp::Reverse(k.0));
    let scope = format!(
        "deliveries|{id}|{}|{}|{}",
        resource_id.unwrap_or("\u{0}"),
        status.unwrap_or("*"),
        event_type.unwrap_or("*")
    );
    page_answer(&app, &scope, keyed, get("pageToken"), max)
}

async fn get_delivery(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<(String, String)>, PathRejection>,
    q: RawQuery,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let (id, did) = match webhook_and_delivery(path) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let inner = app.webhooks.lock();
    if let Err(r) = find(&inner, &caller, &id) {
        return r;
    }
    match inner.deliveries.get(&did).filter(|d| d.webhook_id == id) {
        Some(d) => data(StatusCode::OK, d.to_json(true)),
        None => delivery_not_found(&id, &did),
    }
}

fn delivery_not_found(id: &str, did: &str) -> Response {
    errors::webhook(
        StatusCode::NOT_FOUND,
        "Not Found",
        format!(
            "Webhook {id} has no delivery with id {}",
            Value::String(did.to_string())
        ),
        Vec::new(),
    )
}

async fn retry_delivery(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<(String, String)>, PathRejection>,
    q: RawQuery,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    let caller = match guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let (id, did) = match webhook_and_delivery(path) {
        Ok(p) => p,
        Err(r) => return r,
    };
    if let Err(r) = no_query(&q) {
        return r;
    }
    let body = match validate::read_body(body) {
        Ok(b) => b,
        Err(r) => return refuse(r),
    };
    let mut inner = app.webhooks.lock();
    let enabled = match find(&inner, &caller, &id) {
        Ok(w) => w.enabled,
        Err(r) => return r,
    };
    if inner
        .deliveries
        .get(&did)
        .is_none_or(|d| d.webhook_id != id)
    {
        return delivery_not_found(&id, &did);
    }
    if let Err(r) = validate::empty_body(&headers, &body) {
        return refuse(r);
    }
    if !enabled {
        return disabled(&id, "retry a delivery");
    }
    let Some(d) = inner.deliveries.get_mut(&did) else {
        return delivery_not_found(&id, &did);
    };
    d.generation += 1;
    d.status = DeliveryStatus::Pending;
    d.next_attempt_at = Some(rfc3339_in(MANUAL_DELAY));
    d.updated_at = now_rfc3339();
    let job = Job::new(did.clone(), d.generation, Trigger::Manual, MANUAL_DELAY);
    let answer = d.to_json(false);
    drop(inner);
    spawn_single(&app, job);
    data(StatusCode::ACCEPTED, answer)
}

// ---------------------------------------------------------------------------------------------
// Pages

/// A page token: the sequence number of the last item given, bound to the query's scope and
/// to this instance by a keyed hash.
fn token(salt: u64, scope: &str, seq: u64) -> String {
    use base64::Engine;
    let raw = format!("{seq}.{:016x}", mac(salt, scope, seq));
    format!(
        "whp_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
    )
}

fn mac(salt: u64, scope: &str, seq: u64) -> u64 {
    let mut h = DefaultHasher::new();
    (salt, scope, seq, "webhooks page").hash(&mut h);
    h.finish()
}

fn parse_token(salt: u64, scope: &str, t: &str) -> Option<u64> {
    use base64::Engine;
    let b64 = t.strip_prefix("whp_")?;
    if b64.is_empty() || b64.len() > 200 {
        return None;
    }
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(b64)
        .ok()?;
    let raw = String::from_utf8(raw).ok()?;
    let (seq, m) = raw.split_once('.')?;
    let seq: u64 = seq.parse().ok()?;
    let m = u64::from_str_radix(m, 16).ok()?;
    (mac(salt, scope, seq) == m).then_some(seq)
}

/// One page of `items` (sorted newest first, keyed by sequence number) after the token.
fn page_answer(
    app: &App,
    scope: &str,
    items: Vec<(u64, Value)>,
    token_in: Option<&str>,
    max: usize,
) -> Response {
    let salt = app.webhooks.token_salt;
    let total = items.len();
    let after = match token_in {
        None => None,
        Some(t) => match parse_token(salt, scope, t) {
            Some(seq) => Some(seq),
            None => {
                return refuse(Refusal::from_items(vec![errors::error_item(
                    "/query/pageToken",
                    "pageToken is not a token this list issued for this query",
                    json!(t),
                    "string",
                    None,
                )]));
            }
        },
    };
    let rest: Vec<(u64, Value)> = items
        .into_iter()
        .filter(|(seq, _)| after.is_none_or(|a| *seq < a))
        .collect();
    let more = rest.len() > max;
    let page: Vec<(u64, Value)> = rest.into_iter().take(max).collect();
    let next = if more {
        page.last().map(|(seq, _)| token(salt, scope, *seq))
    } else {
        None
    };
    let body = crate::paging::list_body(page.into_iter().map(|(_, v)| v).collect(), total, next);
    errors::json_response(StatusCode::OK, &body)
}
