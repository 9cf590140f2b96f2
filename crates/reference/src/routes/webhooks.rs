//! Webhooks: the header-versioned management API (`/webhooks`, rotate, test deliveries, the
//! delivery history and manual retry) and the legacy v1 creation endpoints.
//!
//! Choices where the spec is open: the create and rotate answers carry the webhook with its
//! signing secret in `secret` (201 and 200); DELETE answers 204; a test delivery and a manual retry
//! answer 202 with the delivery record; the 51st webhook answers 400; a webhook created without
//! `resourceIds` takes `["*"]`.

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use super::respond::{allow_only, answer};
use crate::app::App;
use crate::auth::Caller;
use crate::deliveries;
use crate::errors::ApiError;
use crate::faults::Fault;
use crate::fixtures;
use crate::hooks::DeliveryRecord;
use crate::input::{self, Query};
use crate::model::Webhook;
use crate::reply;
use crate::store::Store;
use crate::variants::Variant;

const PATH: &str = "/webhooks";
const LEGACY_PATH: &str = "/v1/webhooks";
const ID_PATTERN: &str = "^[0-9]+$";
/// Webhooks per workspace (Limits).
const WEBHOOK_LIMIT: usize = 50;
const PIN_HEADER: &str = "x-service-api-version";
/// The page size of the list service whose first page fault webhook-limit-counts-first-page
/// counts.
const LIST_FIRST_PAGE: usize = 20;
/// The width of the label column under fault webhook-label-column-64.
const LABEL_COLUMN: usize = 64;

/// Every event name of the spec's Events table, with the group of the events union it belongs to:
/// a webhook's events all come from one group (variants 1 to 4 as stated; the others as named).
const EVENTS: &[(&str, &str)] = &[
    ("message.received", "message"),
    ("message.delivered", "message"),
    ("message.failed", "message"),
    ("message.undelivered", "message"),
    ("call.ringing", "call"),
    ("call.answered", "call"),
    ("call.forwarded", "call"),
    ("call.missed", "call"),
    ("call.completed", "call"),
    ("call.voicemail.completed", "call"),
    ("call.recording.completed", "call"),
    ("call.menu.selected", "call"),
    ("call.summary.completed", "summary"),
    ("call.transcript.completed", "transcript"),
    ("contact.updated", "contact"),
    ("contact.deleted", "contact"),
    ("task.created", "task"),
    ("task.updated", "task"),
    ("task.deleted", "task"),
    ("task.completed", "task"),
    ("task.reopened", "task"),
    ("task.assigned", "task"),
    ("task.unassigned", "task"),
    ("task.overdue", "task"),
    ("task.linked", "task"),
    ("task.unlinked", "task"),
    ("task.duedate.updated", "task"),
    ("task.duedate.removed", "task"),
];

/// The events added after the events column's ENUM was declared (fault
/// webhook-events-enum-column-500).
const LATER_EVENTS: [&str; 7] = [
    "message.failed",
    "message.undelivered",
    "call.answered",
    "call.forwarded",
    "call.missed",
    "call.voicemail.completed",
    "call.menu.selected",
];

pub(super) fn routes() -> Router<App> {
    Router::new()
        .route("/webhooks", allow_only(get(list).post(create), "GET, POST"))
        .route(
            "/webhooks/{webhookId}",
            allow_only(
                get(get_webhook)
                    .patch(patch_webhook)
                    .put(put_webhook)
                    .delete(delete_webhook),
                "GET, PATCH, PUT, DELETE",
            ),
        )
        .route(
            "/webhooks/{webhookId}/rotate",
            allow_only(post(rotate), "POST"),
        )
        .route(
            "/webhooks/{webhookId}/events/test",
            allow_only(post(test_delivery), "POST"),
        )
        .route(
            "/webhooks/{webhookId}/events",
            allow_only(get(history), "GET"),
        )
        .route(
            "/webhooks/{webhookId}/events/{eventId}",
            allow_only(get(history_one), "GET"),
        )
        .route(
            "/webhooks/{webhookId}/events/{eventId}/retry",
            allow_only(post(manual_retry), "POST"),
        )
}

/// The legacy creation endpoints (`/v1/webhooks/messages|calls|call-summaries|call-transcripts`).
pub(super) fn v1_routes() -> Router<App> {
    Router::new().route(
        "/v1/webhooks/{kind}",
        allow_only(post(create_legacy), "POST"),
    )
}

/// The numeric webhook id of a path, or the stated 400 naming the path and the pattern.
fn webhook_id(
    app: &App,
    id: Result<Path<String>, PathRejection>,
    strict: bool,
) -> Result<String, ApiError> {
    let id = input::path_param(id, PATH)?;
    let numeric = !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit());
    if !numeric && strict && app.switches().faults.has(Fault::WebhookId400MessageVague) {
        return Err(ApiError::bad_request(PATH, "Invalid request"));
    }
    if !numeric && strict {
        let message = format!("path parameter webhookId must match pattern {ID_PATTERN}");
        return Err(ApiError::bad_request(PATH, message.clone()).with_item(
            "/webhookId",
            &message,
            json!(id),
            json!({"type": "string", "pattern": ID_PATTERN}),
        ));
    }
    // Fault webhook-id-truncated-u32: the id is bound as a 32-bit unsigned integer, which wraps.
    if numeric && app.switches().faults.has(Fault::WebhookIdTruncatedU32) {
        let wrapped = id.bytes().fold(0u32, |n, b| {
            n.wrapping_mul(10).wrapping_add(u32::from(b - b'0'))
        });
        return Ok(wrapped.to_string());
    }
    Ok(id)
}

fn not_found(app: &App, id: &str) -> ApiError {
    let error = ApiError::for_path(
        PATH,
        StatusCode::NOT_FOUND,
        format!("Webhook '{id}' was not found"),
    );
    if app.switches().faults.has(Fault::Webhook404WrongTitle) {
        error.with_title("Webhook Not Found")
    } else {
        error
    }
}

/// A management id: strict unless the management fault lets non-numeric ids through to 404.
fn managed_id(app: &App, id: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    let strict = !app
        .switches()
        .faults
        .has(Fault::WebhookManagementIdUnchecked);
    webhook_id(app, id, strict)
}

async fn get_webhook(State(app): State<App>, id: Result<Path<String>, PathRejection>) -> Response {
    let strict = !app.switches().faults.has(Fault::WebhookIdPatternUnchecked);
    let result = webhook_id(&app, id, strict).and_then(|id| {
        let mut store = app.store();
        // Fault webhook-get-replica-lag: the replica has not applied the create yet.
        if store.webhook(&id).is_some_and(|w| in_replica_lag(&app, w)) {
            return Err(not_found(&app, &id));
        }
        // Fault webhook-get-cache-misses-put: a read-through cache PUT does not evict.
        if app.switches().faults.has(Fault::WebhookGetCacheMissesPut) {
            if let Some(cached) = store.hooks.get_cache.get(&id) {
                let mut json = read_json(&app, cached);
                updated_at_unset(&store, &id, &mut json);
                return Ok(reply::data(StatusCode::OK, json));
            }
            if let Some(w) = store.webhook(&id).cloned() {
                store.hooks.get_cache.insert(id.clone(), w);
            }
        }
        // Fault webhook-delete-soft-get-answers: the read by primary key misses the flag.
        let soft_deleted = || {
            app.switches()
                .faults
                .has(Fault::WebhookDeleteSoftGetAnswers)
                .then(|| store.hooks.soft_deleted.iter().find(|w| w.id == id))
                .flatten()
        };
        store
            .webhook(&id)
            .or_else(soft_deleted)
            .map(|w| {
                let mut json = read_json(&app, w);
                updated_at_unset(&store, &w.id, &mut json);
                // Fault webhook-get-drops-org-id: the single get's view lacks orgId.
                if app.switches().faults.has(Fault::WebhookGetDropsOrgId) {
                    if let Some(o) = json.as_object_mut() {
                        o.remove("orgId");
                    }
                }
                reply::data(StatusCode::OK, json)
            })
            .ok_or_else(|| not_found(&app, &id))
    });
    answer(&app, result)
}

/// How far behind the primary the replica of fault webhook-get-replica-lag applies writes.
const REPLICA_LAG: time::Duration = time::Duration::seconds(2);

/// Fault webhook-get-replica-lag: whether the replica does not hold the webhook yet.
fn in_replica_lag(app: &App, w: &Webhook) -> bool {
    app.switches().faults.has(Fault::WebhookGetReplicaLag)
        && OffsetDateTime::now_utc() - w.created_at < REPLICA_LAG
}

async fn list(State(app): State<App>) -> Response {
    let mut store = app.store();
    // Fault webhooks-list-cache-stale: the list is cached on first read; only create and delete
    // clear it.
    let cached = app.switches().faults.has(Fault::WebhooksListCacheStale);
    let items: Vec<Value> = match store.hooks.list_cache.clone().filter(|_| cached) {
        Some(items) => items,
        None => store
            .webhooks()
            .iter()
            // Fault webhooks-list-hides-disabled: the query of active subscriptions, reused.
            .filter(|w| {
                w.status == "enabled"
                    || !app.switches().faults.has(Fault::WebhooksListHidesDisabled)
            })
            .map(|w| {
                let mut json = read_json(&app, w);
                updated_at_unset(&store, &w.id, &mut json);
                json
            })
            .collect(),
    };
    if cached {
        store.hooks.list_cache = Some(items.clone());
    }
    // Fault webhooks-list-includes-legacy: one table for both kinds, no kind condition.
    let mut items = items;
    if app.switches().faults.has(Fault::WebhooksListIncludesLegacy) {
        items.extend(store.hooks.legacy.iter().cloned());
    }
    // Fault webhooks-list-events-enum-names: the list serializer writes the enum constants' names.
    if app
        .switches()
        .faults
        .has(Fault::WebhooksListEventsEnumNames)
    {
        for item in items.iter_mut() {
            if let Some(events) = item.get_mut("events").and_then(Value::as_array_mut) {
                for e in events.iter_mut() {
                    if let Some(name) = e.as_str().map(|n| n.replace('.', "_").to_uppercase()) {
                        *e = Value::String(name);
                    }
                }
            }
        }
    }
    // Fault webhooks-list-id-json-number: the integer key serialized as it is.
    if app.switches().faults.has(Fault::WebhooksListIdJsonNumber) {
        for item in items.iter_mut() {
            if let Some(n) = item
                .get("id")
                .and_then(Value::as_str)
                .and_then(|id| id.parse::<u64>().ok())
            {
                item["id"] = json!(n);
            }
        }
    }
    let total = items.len();
    reply::json(
        StatusCode::OK,
        &json!({"data": items, "totalItems": total, "nextPageToken": null}),
    )
}

/// Fault webhook-wildcard-shown-empty: the wildcard is stored as NULL and serialized as
/// `resource_ids or []`.
fn wildcard_shown(app: &App, json: &mut Value) {
    if app.switches().faults.has(Fault::WebhookWildcardShownEmpty)
        && json.get("resourceIds") == Some(&json!(["*"]))
    {
        json["resourceIds"] = json!([]);
    }
}

/// A webhook as the reads answer it; fault webhook-timestamps-sql-format passes the DATETIME
/// columns through as the database's text.
fn read_json(app: &App, w: &Webhook) -> Value {
    let mut json = w.to_json();
    wildcard_shown(app, &mut json);
    // Fault webhook-status-enum-name: the Enum column persists the member's name.
    if app.switches().faults.has(Fault::WebhookStatusEnumName) {
        json["status"] = json!(w.status.to_uppercase());
    }
    // Fault webhook-null-label-omitted: the read views skip null fields.
    if w.label.is_none() && app.switches().faults.has(Fault::WebhookNullLabelOmitted) {
        if let Some(o) = json.as_object_mut() {
            o.remove("label");
        }
    }
    if app.switches().faults.has(Fault::WebhookTimestampsSqlFormat) {
        let format =
            time::macros::format_description!("[year]-[month]-[day] [hour]:[minute]:[second]");
        for (field, at) in [("createdAt", w.created_at), ("updatedAt", w.updated_at)] {
            if let Ok(text) = at.to_offset(time::UtcOffset::UTC).format(&format) {
                json[field] = json!(text);
            }
        }
    }
    json
}

/// The fields of a create, PUT or PATCH body, validated; `None` where the body leaves one out.
#[derive(Default)]
struct Fields {
    url: Option<String>,
    label: Option<Option<String>>,
    status: Option<String>,
    events: Option<Vec<String>>,
    resource_ids: Option<Vec<String>>,
}

fn strings(body: &Map<String, Value>, name: &str) -> Result<Option<Vec<String>>, ApiError> {
    match body.get(name) {
        None => Ok(None),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    ApiError::bad_request(PATH, format!("{name} must be an array of strings"))
                })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(_) => Err(ApiError::bad_request(
            PATH,
            format!("{name} must be an array of strings"),
        )),
    }
}

fn parse_fields(app: &App, body: &Map<String, Value>) -> Result<Fields, ApiError> {
    let faults = &app.switches().faults;
    let url = match body.get("url") {
        None => None,
        Some(Value::String(u))
            if u.starts_with("http://")
                || u.starts_with("https://")
                || faults.has(Fault::WebhookUrlUnchecked) =>
        {
            Some(u.clone())
        }
        Some(_) => {
            return Err(ApiError::bad_request(
                PATH,
                "url must be an http or https URI",
            ));
        }
    };
    let label = match body.get("label") {
        None => None,
        // Fault webhook-label-null-stringified: the label goes through a string conversion.
        Some(Value::Null) if faults.has(Fault::WebhookLabelNullStringified) => {
            Some(Some("null".to_string()))
        }
        Some(Value::Null) => Some(None),
        // Fault webhook-label-mojibake: a latin1 connection writes into a UTF-8 column.
        Some(Value::String(l)) if faults.has(Fault::WebhookLabelMojibake) => {
            Some(Some(crate::quirks::latin1_double_encoded(l)))
        }
        // Fault webhook-label-column-64: a VARCHAR(64) of a non-strict database cuts the rest.
        Some(Value::String(l)) if faults.has(Fault::WebhookLabelColumn64) => {
            Some(Some(l.chars().take(LABEL_COLUMN).collect()))
        }
        Some(Value::String(l)) => Some(Some(l.clone())),
        Some(_) => {
            return Err(ApiError::bad_request(
                PATH,
                "label must be a string or null",
            ));
        }
    };
    let status = match body.get("status") {
        None => None,
        Some(Value::String(s)) if s == "enabled" || s == "disabled" => Some(s.clone()),
        Some(_) => {
            return Err(ApiError::bad_request(
                PATH,
                "status must be `enabled` or `disabled`",
            ));
        }
    };
    let events = strings(body, "events")?;
    if let Some(events) = &events {
        if events.is_empty() && !faults.has(Fault::WebhookEmptyEventsAccepted) {
            return Err(ApiError::bad_request(
                PATH,
                "events must hold at least 1 event",
            ));
        }
        let mut groups = Vec::new();
        for e in events {
            // Fault webhook-unknown-event-accepted: an unknown name of a known family passes.
            let family = |n: &str| n.split('.').next().unwrap_or(n).to_string();
            let found = EVENTS.iter().find(|(n, _)| n == e).or_else(|| {
                EVENTS
                    .iter()
                    .find(|(n, _)| family(n) == family(e))
                    .filter(|_| faults.has(Fault::WebhookUnknownEventAccepted))
            });
            let Some((_, group)) = found else {
                return Err(ApiError::bad_request(
                    PATH,
                    format!("events: unknown event '{e}'"),
                ));
            };
            if !groups.contains(group) {
                groups.push(*group);
            }
        }
        // Fault webhook-events-enum-column-500: the ENUM column predates these events.
        if let Some(e) = events
            .iter()
            .find(|e| LATER_EVENTS.contains(&e.as_str()))
            .filter(|_| faults.has(Fault::WebhookEventsEnumColumn500))
        {
            return Err(ApiError::for_path(
                PATH,
                StatusCode::INTERNAL_SERVER_ERROR,
                format!("Data truncated for column 'events' at row 1 ('{e}')"),
            ));
        }
        if groups.len() > 1 {
            return Err(ApiError::bad_request(
                PATH,
                format!(
                    "events must all come from one variant of the events union; got {}",
                    groups.join(", ")
                ),
            ));
        }
    }
    let mut resource_ids = strings(body, "resourceIds")?;
    if faults.has(Fault::WebhookResourceIdsFirstOnly) {
        // Only the first item is looked at; a later one that is no phone number id is dropped.
        if let Some(ids) = resource_ids.as_mut() {
            let mut i = 0;
            ids.retain(|r| {
                i += 1;
                i == 1 || r == "*" || r.starts_with("PN")
            });
        }
    }
    if let Some(ids) = &resource_ids {
        let wildcard = ids.iter().any(|r| r == "*");
        let only_wildcard = ids.len() == 1 && wildcard;
        let mixed_ok = faults.has(Fault::WebhookMixedWildcardAccepted);
        if wildcard && !only_wildcard && !mixed_ok {
            return Err(ApiError::bad_request(
                PATH,
                "resourceIds is either phone number ids or exactly [\"*\"], not both",
            ));
        }
        if ids.is_empty() {
            return Err(ApiError::bad_request(
                PATH,
                "resourceIds must hold phone number ids or [\"*\"]",
            ));
        }
        let unchecked = faults.has(Fault::WebhookResourceIdPatternUnchecked);
        if let Some(bad_id) = ids
            .iter()
            .find(|r| *r != "*" && !r.starts_with("PN") && !unchecked)
        {
            return Err(ApiError::bad_request(
                PATH,
                format!("resourceIds: '{bad_id}' is not a phone number id (^PN(.*)$)"),
            ));
        }
    }
    Ok(Fields {
        url,
        label,
        status,
        events,
        resource_ids,
    })
}

/// The create and rotate answer: the webhook and its secret (or, variant, only id and secret).
fn with_secret(app: &App, w: &Webhook, secret: &str) -> Value {
    let field = if app.switches().variant(Variant::WebhookSecretSigningKey) {
        "signingKey"
    } else {
        "secret"
    };
    let mut out = if app.switches().variant(Variant::WebhookCreateMinimal) {
        json!({"id": w.id})
    } else {
        let mut json = w.to_json();
        wildcard_shown(app, &mut json);
        json
    };
    if let Some(o) = out.as_object_mut() {
        o.insert(field.to_string(), json!(secret));
    }
    out
}

async fn create(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = input::json_object(body, PATH).await;
    let result = body.and_then(|body| {
        let faults = &app.switches().faults;
        let fields = parse_fields(&app, &body)?;
        let url = fields
            .url
            .ok_or_else(|| ApiError::bad_request(PATH, "url is required"))?;
        // Fault webhook-url-query-dropped: the url rebuilt from scheme, host and path.
        let url = if faults.has(Fault::WebhookUrlQueryDropped) {
            url.split(['?', '#']).next().unwrap_or_default().to_string()
        } else {
            url
        };
        let events = fields
            .events
            .ok_or_else(|| ApiError::bad_request(PATH, "events is required"))?;
        let pinned = match headers.get(PIN_HEADER) {
            // Fault webhook-pin-header-unvalidated: the header is stored as sent.
            Some(v)
                if v.as_bytes() != crate::paths::API_VERSION.as_bytes()
                    && faults.has(Fault::WebhookPinHeaderUnvalidated) =>
            {
                String::from_utf8_lossy(v.as_bytes()).into_owned()
            }
            Some(v) if v.as_bytes() != crate::paths::API_VERSION.as_bytes() => {
                return Err(ApiError::bad_request(
                    PATH,
                    format!(
                        "{PIN_HEADER} '{}' is not a supported version",
                        String::from_utf8_lossy(v.as_bytes())
                    ),
                ));
            }
            _ => crate::paths::API_VERSION.to_string(),
        };
        let mut store = app.store();
        // Fault webhook-limit-counts-run-only: the webhooks the workspace had before (seeded
        // in 2026-01) do not count toward the limit.
        let counted = store
            .webhooks()
            .iter()
            .filter(|w| {
                !faults.has(Fault::WebhookLimitCountsRunOnly)
                    || w.created_at > time::macros::datetime!(2026-02-01 00:00 UTC)
            })
            // Fault webhook-limit-counts-enabled-only: the query of active subscriptions.
            .filter(|w| w.status == "enabled" || !faults.has(Fault::WebhookLimitCountsEnabledOnly))
            // Fault webhook-limit-per-key: the quota is keyed by the caller's user.
            .filter(|w| created_by_caller(&app, &store, w, &caller))
            .count();
        // Fault webhook-limit-counts-deleted: the count is not decremented on delete.
        let counted = if faults.has(Fault::WebhookLimitCountsDeleted) {
            counted + store.hooks.deleted_webhooks.len()
        } else {
            counted
        };
        // Fault webhook-limit-counts-first-page: the count is the length of the list's first page.
        let counted = if faults.has(Fault::WebhookLimitCountsFirstPage) {
            counted.min(LIST_FIRST_PAGE)
        } else {
            counted
        };
        // Fault webhook-limit-49: the webhook being created is counted before the comparison.
        let counted = if faults.has(Fault::WebhookLimitAt49) {
            counted + 1
        } else {
            counted
        };
        if counted >= WEBHOOK_LIMIT && !faults.has(Fault::WebhookLimitNotEnforced) {
            return Err(ApiError::bad_request(
                PATH,
                format!("the workspace has {WEBHOOK_LIMIT} webhooks, the most it may have"),
            ));
        }
        let now = OffsetDateTime::now_utc();
        let default_scope = fields.resource_ids.is_none();
        let mut id = store.hooks.new_webhook_id();
        // Fault webhook-id-count-plus-one: the id is `1000 + COUNT(*) + 1`.
        if faults.has(Fault::WebhookIdCountPlusOne) {
            id = (1001 + store.webhooks().len()).to_string();
        }
        if faults.has(Fault::WebhookIdNotNumeric) {
            id = format!("wh{id}");
        }
        let default_status = if faults.has(Fault::WebhookStatusDefaultDisabled) {
            "disabled"
        } else {
            "enabled"
        };
        // Fault webhook-org-id-from-caller: org_id filled from the authenticated principal.
        let org_id = if faults.has(Fault::WebhookOrgIdFromCaller) {
            caller.user_id.to_string()
        } else {
            fixtures::ORG_ID.to_string()
        };
        let webhook = Webhook {
            id: id.clone(),
            org_id,
            label: fields
                .label
                .flatten()
                .filter(|_| !faults.has(Fault::WebhookCreateDropsLabel)),
            // Fault webhook-create-ignores-disabled: status is not among the inserted columns.
            status: fields
                .status
                .filter(|_| !faults.has(Fault::WebhookCreateIgnoresDisabled))
                .unwrap_or_else(|| default_status.to_string()),
            url,
            created_at: now,
            updated_at: now,
            api_version: (!faults.has(Fault::WebhookApiVersionNotPinned)).then_some(
                if faults.has(Fault::WebhookApiVersionTimestamp) {
                    format!("{pinned}T00:00:00Z")
                } else {
                    pinned
                },
            ),
            events,
            resource_ids: fields.resource_ids.unwrap_or_else(|| vec!["*".to_string()]),
        };
        let secret = store
            .hooks
            .new_secret(&id, faults.has(Fault::WebhookSecretBase64Url));
        share_by_url(&app, &mut store, &webhook.url, &secret);
        // Fault webhook-default-scope-shared: the default list is one shared object.
        if faults.has(Fault::WebhookDefaultScopeShared) && default_scope {
            store.hooks.default_scope.insert(id.clone());
        }
        // Fault webhook-deliveries-use-created-url: the worker caches the endpoint of creation.
        if faults.has(Fault::WebhookDeliveriesUseCreatedUrl) {
            store
                .hooks
                .created_urls
                .insert(id.clone(), webhook.url.clone());
        }
        if faults.has(Fault::WebhookDeliveriesUseCreatedEvents) {
            store
                .hooks
                .created_events
                .insert(id.clone(), webhook.events.clone());
        }
        if faults.has(Fault::WebhookLimitPerKey) {
            store
                .hooks
                .created_by
                .insert(id.clone(), caller.user_id.to_string());
        }
        // Fault webhook-updated-at-null-until-update: updated_at has no insert default.
        if faults.has(Fault::WebhookUpdatedAtNullUntilUpdate) {
            store.hooks.never_updated.insert(id.clone());
        }
        store.add_webhook(webhook.clone());
        store.hooks.list_cache = None;
        // Fault webhook-create-secret-masked: the read serializer masks the secret.
        let secret = if faults.has(Fault::WebhookCreateSecretMasked) {
            masked(&secret)
        } else {
            secret
        };
        let mut answered = with_secret(&app, &webhook, &secret);
        updated_at_unset(&store, &webhook.id, &mut answered);
        Ok(reply::data(StatusCode::CREATED, answered))
    });
    answer(&app, result)
}

/// Fault webhook-limit-per-key: whether the caller's user created `w` (the seeded webhooks count
/// to the primary user, the first key's); every webhook counts without the fault.
fn created_by_caller(app: &App, store: &Store, w: &Webhook, caller: &Caller) -> bool {
    if !app.switches().faults.has(Fault::WebhookLimitPerKey) {
        return true;
    }
    let primary = app.keys().first().map(|k| k.user_id).unwrap_or_default();
    store
        .hooks
        .created_by
        .get(&w.id)
        .map_or(primary, String::as_str)
        == caller.user_id
}

/// Fault webhook-updated-at-null-until-update: a webhook never updated shows updatedAt null
/// (the set is empty without the fault).
fn updated_at_unset(store: &Store, id: &str, json: &mut Value) {
    if store.hooks.never_updated.contains(id) && json.get("updatedAt").is_some() {
        json["updatedAt"] = Value::Null;
    }
}

/// Fault webhook-create-secret-masked: a secret as the read serializer shows it, `whsec_`, then
/// asterisks, then its last four characters.
fn masked(secret: &str) -> String {
    let data = secret.strip_prefix("whsec_").unwrap_or(secret);
    let chars: Vec<char> = data.chars().collect();
    let kept: String = chars[chars.len().saturating_sub(4)..].iter().collect();
    format!("whsec_{}{kept}", "*".repeat(chars.len().saturating_sub(4)))
}

/// The wait of fault webhook-patch-lost-update: the reachability check of the webhook's url.
const REACHABILITY_CHECK: std::time::Duration = std::time::Duration::from_millis(50);

/// Fault webhook-secret-keyed-by-url: the secret issued for `url` becomes the secret of every
/// webhook sending there.
fn share_by_url(app: &App, store: &mut Store, url: &str, secret: &str) {
    if !app.switches().faults.has(Fault::WebhookSecretKeyedByUrl) {
        return;
    }
    let same: Vec<String> = store
        .webhooks()
        .iter()
        .filter(|w| w.url == url)
        .map(|w| w.id.clone())
        .collect();
    for id in same {
        store.hooks.share_secret(&id, secret);
    }
}

async fn patch_webhook(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
    body: Body,
) -> Response {
    let body = input::json_object(body, PATH).await;
    if app.switches().faults.has(Fault::WebhookPatchLostUpdate) {
        let result = lost_update(&app, id, body).await;
        return answer(&app, result);
    }
    answer(&app, update(&app, id, body, false))
}

/// Fault webhook-patch-lost-update: the row is read, a round trip awaited, and the row written
/// back whole: the snapshot read first, with this PATCH's changes; what another request changed
/// meanwhile is lost.
async fn lost_update(
    app: &App,
    id: Result<Path<String>, PathRejection>,
    body: Result<Map<String, Value>, ApiError>,
) -> Result<Response, ApiError> {
    let id = managed_id(app, id)?;
    let snapshot = app.store().webhook(&id).cloned();
    tokio::time::sleep(REACHABILITY_CHECK).await;
    let current = app.store().webhook(&id).cloned();
    let answered = update(app, Ok(Path(id.clone())), body, false)?;
    let (Some(mut written), Some(current)) = (snapshot, current) else {
        return Ok(answered);
    };
    let mut store = app.store();
    let Some(w) = store.webhook_mut(&id) else {
        return Ok(answered);
    };
    if w.label != current.label {
        written.label = w.label.clone();
    }
    if w.status != current.status {
        written.status = w.status.clone();
    }
    if w.url != current.url {
        written.url = w.url.clone();
    }
    if w.events != current.events {
        written.events = w.events.clone();
    }
    if w.resource_ids != current.resource_ids {
        written.resource_ids = w.resource_ids.clone();
    }
    if w.api_version != current.api_version {
        written.api_version = w.api_version.clone();
    }
    written.updated_at = w.updated_at;
    *w = written.clone();
    let mut json = written.to_json();
    wildcard_shown(app, &mut json);
    Ok(reply::data(StatusCode::OK, json))
}

async fn put_webhook(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
    body: Body,
) -> Response {
    let body = input::json_object(body, PATH).await;
    answer(&app, update(&app, id, body, true))
}

/// PATCH changes the fields sent; PUT replaces the webhook (url and events required).
fn update(
    app: &App,
    id: Result<Path<String>, PathRejection>,
    body: Result<Map<String, Value>, ApiError>,
    replace: bool,
) -> Result<Response, ApiError> {
    let id = managed_id(app, id)?;
    if app.store().webhook(&id).is_none() {
        // Fault webhook-put-upserts-missing: PUT inserts a webhook no row has.
        if replace && app.switches().faults.has(Fault::WebhookPutUpsertsMissing) {
            return put_creates(app, &id, body);
        }
        return Err(not_found(app, &id));
    }
    let mut body = body?;
    // Fault webhook-patch-events-null-emptied: `body.get('events') or []` when the key is sent.
    let events_emptied = !replace
        && body.get("events") == Some(&Value::Null)
        && app
            .switches()
            .faults
            .has(Fault::WebhookPatchEventsNullEmptied);
    if events_emptied {
        body.remove("events");
    }
    // Fault webhook-patch-resource-ids-unchecked: the partial update's schema has no pattern.
    let unchecked_ids = if !replace
        && app
            .switches()
            .faults
            .has(Fault::WebhookPatchResourceIdsUnchecked)
    {
        body.remove("resourceIds")
            .map(|ids| {
                let mut only = Map::new();
                only.insert("resourceIds".to_string(), ids);
                strings(&only, "resourceIds")
            })
            .transpose()?
            .flatten()
    } else {
        None
    };
    let mut fields = parse_fields(app, &body)?;
    if unchecked_ids.is_some() {
        fields.resource_ids = unchecked_ids;
    }
    // Fault webhook-patch-wildcard-unchanged: `["*"]` is the partial update's `unchanged` marker.
    let wildcard = fields.resource_ids.as_deref() == Some(&["*".to_string()][..]);
    if !replace
        && wildcard
        && app
            .switches()
            .faults
            .has(Fault::WebhookPatchWildcardUnchanged)
    {
        fields.resource_ids = None;
    }
    // Fault webhook-mass-assigns-api-version: every column the body names is written.
    let assigned_version = body
        .get("apiVersion")
        .filter(|_| {
            app.switches()
                .faults
                .has(Fault::WebhookMassAssignsApiVersion)
        })
        .map(|v| v.as_str().map(str::to_string));
    if !replace && app.switches().faults.has(Fault::WebhookPatchMergesArrays) {
        merge_arrays(app, &id, &mut fields);
    }
    if replace && (fields.url.is_none() || fields.events.is_none()) {
        return Err(ApiError::bad_request(
            PATH,
            "PUT replaces the webhook: url and events are required",
        ));
    }
    // Fault webhook-patch-events-resets-scope: a PATCH of events rebuilds the scope as well.
    let reset_scope = !replace
        && fields.events.is_some()
        && fields.resource_ids.is_none()
        && app
            .switches()
            .faults
            .has(Fault::WebhookPatchEventsResetsScope);
    let mut store = app.store();
    // Fault webhook-default-scope-shared: the update writes into the shared default list in
    // place, so every webhook holding it sees the new resourceIds.
    if let Some(ids) = fields.resource_ids.as_ref().filter(|_| {
        app.switches().faults.has(Fault::WebhookDefaultScopeShared)
            && store.hooks.default_scope.contains(&id)
    }) {
        let sharing: Vec<String> = store.hooks.default_scope.iter().cloned().collect();
        for other in sharing.iter().filter(|o| **o != id) {
            if let Some(w) = store.webhook_mut(other) {
                w.resource_ids = ids.clone();
            }
        }
    }
    let w = store.webhook_mut(&id).ok_or_else(|| not_found(app, &id))?;
    if reset_scope {
        w.resource_ids = vec!["*".to_string()];
    }
    if replace {
        w.label = fields.label.flatten();
        w.status = fields.status.unwrap_or_else(|| "enabled".to_string());
        w.resource_ids = fields.resource_ids.unwrap_or_else(|| vec!["*".to_string()]);
        // Fault webhook-put-clears-api-version: the row rebuilt from a body without apiVersion.
        if app.switches().faults.has(Fault::WebhookPutClearsApiVersion) {
            w.api_version = None;
        }
    } else {
        // Fault webhook-patch-label-null-ignored: `if body.label:` skips null and "".
        let falsy = |l: &Option<String>| l.as_deref().is_none_or(str::is_empty);
        // Fault webhook-patch-clears-label: the body bound to the full model, label default null.
        let sent_label = match fields.label {
            None if app.switches().faults.has(Fault::WebhookPatchClearsLabel) => Some(None),
            sent => sent,
        };
        if let Some(label) = sent_label
            && !app.switches().faults.has(Fault::WebhookPatchIgnoresLabel)
            && !(falsy(&label)
                && app
                    .switches()
                    .faults
                    .has(Fault::WebhookPatchLabelNullIgnored))
        {
            w.label = label;
        }
        // Fault webhook-patch-status-only-disables: `if status == 'disabled': disable()`.
        let only_disables = app
            .switches()
            .faults
            .has(Fault::WebhookPatchStatusOnlyDisables);
        if let Some(status) = fields.status.filter(|s| !only_disables || s == "disabled") {
            w.status = status;
        }
        if let Some(ids) = fields.resource_ids {
            w.resource_ids = ids;
        }
    }
    if let Some(url) = fields.url {
        w.url = url;
    }
    if let Some(events) = fields.events {
        w.events = events;
    }
    if events_emptied {
        w.events = Vec::new();
    }
    if let Some(version) = assigned_version {
        w.api_version = version;
    }
    w.updated_at = OffsetDateTime::now_utc();
    let mut json = w.to_json();
    wildcard_shown(app, &mut json);
    store.hooks.never_updated.remove(&id);
    // Fault webhook-get-cache-misses-put: only PATCH evicts the single GET's cache.
    if !replace {
        store.hooks.get_cache.remove(&id);
    }
    // Fault webhook-update-cascades-history: the update is a delete and an insert, and the
    // deliveries cascade with the delete.
    if app
        .switches()
        .faults
        .has(Fault::WebhookUpdateCascadesHistory)
    {
        store.hooks.deliveries.retain(|d| d.webhook_id != id);
    }
    // Fault webhook-update-issues-new-secret: the create serializer issues a secret on save.
    if app
        .switches()
        .faults
        .has(Fault::WebhookUpdateIssuesNewSecret)
    {
        let url_safe = app.switches().faults.has(Fault::WebhookSecretBase64Url);
        store.hooks.new_secret(&id, url_safe);
    }
    Ok(reply::data(StatusCode::OK, json))
}

/// Fault webhook-put-upserts-missing: a PUT of an id no webhook has inserts the webhook under it,
/// as a create would (the pinned version is the current one).
fn put_creates(
    app: &App,
    id: &str,
    body: Result<Map<String, Value>, ApiError>,
) -> Result<Response, ApiError> {
    let fields = parse_fields(app, &body?)?;
    let (Some(url), Some(events)) = (fields.url, fields.events) else {
        return Err(ApiError::bad_request(
            PATH,
            "PUT replaces the webhook: url and events are required",
        ));
    };
    let now = OffsetDateTime::now_utc();
    let webhook = Webhook {
        id: id.to_string(),
        org_id: fixtures::ORG_ID.to_string(),
        label: fields.label.flatten(),
        status: fields.status.unwrap_or_else(|| "enabled".to_string()),
        url,
        created_at: now,
        updated_at: now,
        api_version: Some(crate::paths::API_VERSION.to_string()),
        events,
        resource_ids: fields.resource_ids.unwrap_or_else(|| vec!["*".to_string()]),
    };
    let mut store = app.store();
    store.hooks.new_secret(id, false);
    store.add_webhook(webhook.clone());
    store.hooks.list_cache = None;
    let mut json = webhook.to_json();
    wildcard_shown(app, &mut json);
    Ok(reply::data(StatusCode::CREATED, json))
}

/// Fault webhook-patch-merges-arrays: the deep-merge helper appends the arrays sent to the
/// webhook's own (repeats dropped) instead of replacing them.
fn merge_arrays(app: &App, id: &str, fields: &mut Fields) {
    let store = app.store();
    let Some(w) = store.webhook(id) else {
        return;
    };
    let merged = |had: &[String], sent: Vec<String>| {
        let mut out = had.to_vec();
        out.extend(sent.into_iter().filter(|s| !had.contains(s)));
        out
    };
    fields.events = fields.events.take().map(|sent| merged(&w.events, sent));
    fields.resource_ids = fields
        .resource_ids
        .take()
        .map(|sent| merged(&w.resource_ids, sent));
}

async fn delete_webhook(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let result = managed_id(&app, id).and_then(|id| {
        let mut store = app.store();
        let Some(w) = store.webhook(&id).cloned() else {
            // Fault webhook-delete-missing-204: the rows the DELETE touched are not looked at.
            if app.switches().faults.has(Fault::WebhookDeleteMissing204) {
                return Ok(Response::builder()
                    .status(StatusCode::NO_CONTENT)
                    .body(Body::empty())
                    .unwrap_or_default());
            }
            return Err(not_found(&app, &id));
        };
        // Fault webhook-delete-purge-500: the purge of the history after the delete fails.
        let purge_fails = app.switches().faults.has(Fault::WebhookDeletePurge500)
            && store.hooks.deliveries.iter().any(|d| d.webhook_id == id);
        store.remove_webhook(&id);
        store.hooks.list_cache = None;
        store.hooks.get_cache.remove(&id);
        let faults = &app.switches().faults;
        // Fault webhook-delete-cascades-shared-events: the event rows of the webhook's deliveries
        // go, and every delivery of those events with them.
        if faults.has(Fault::WebhookDeleteCascadesSharedEvents) {
            let events: Vec<u64> = store
                .hooks
                .deliveries
                .iter()
                .filter(|d| d.webhook_id == id)
                .filter_map(|d| d.occurrence)
                .collect();
            store
                .hooks
                .deliveries
                .retain(|d| d.occurrence.is_none_or(|o| !events.contains(&o)));
        }
        if faults.has(Fault::WebhookDeleteSoftGetAnswers) {
            store.hooks.soft_deleted.push(w.clone());
        }
        // Fault webhook-delete-by-url: the delete statement's condition is the url, not the id.
        if faults.has(Fault::WebhookDeleteByUrl) {
            let same_url: Vec<String> = store
                .webhooks()
                .iter()
                .filter(|o| o.url == w.url)
                .map(|o| o.id.clone())
                .collect();
            for other in same_url {
                store.remove_webhook(&other);
            }
        }
        if faults.has(Fault::WebhookDeleteKeepsDelivering)
            || faults.has(Fault::WebhookLimitCountsDeleted)
        {
            store.hooks.deleted_webhooks.push(w.clone());
        }
        if purge_fails {
            return Err(ApiError::for_path(
                PATH,
                StatusCode::INTERNAL_SERVER_ERROR,
                "Cannot delete or update a parent row: a foreign key constraint fails \
                 (`webhook_deliveries`, CONSTRAINT `fk_deliveries_webhook`)",
            ));
        }
        Ok(if app.switches().variant(Variant::WebhookDelete200) {
            let mut json = w.to_json();
            wildcard_shown(&app, &mut json);
            reply::data(StatusCode::OK, json)
        } else {
            Response::builder()
                .status(StatusCode::NO_CONTENT)
                .body(Body::empty())
                .unwrap_or_default()
        })
    });
    answer(&app, result)
}

async fn rotate(
    State(app): State<App>,
    headers: HeaderMap,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let result = managed_id(&app, id).and_then(|id| {
        let mut store = app.store();
        let Some(w) = store.webhook(&id).cloned() else {
            return Err(not_found(&app, &id));
        };
        let previous = store.hooks.secret(&id).unwrap_or_default().to_string();
        // Fault webhook-rotation-signatures-comma-joined: the previous secret signs on for a
        // grace period.
        if app
            .switches()
            .faults
            .has(Fault::WebhookRotationSignaturesCommaJoined)
        {
            store
                .hooks
                .previous_secrets
                .insert(id.clone(), previous.clone());
        }
        let secret = if app.switches().faults.has(Fault::WebhookRotateKeepsSecret) {
            previous.clone()
        } else {
            let url_safe = app.switches().faults.has(Fault::WebhookSecretBase64Url);
            store.hooks.new_secret(&id, url_safe)
        };
        share_by_url(&app, &mut store, &w.url, &secret);
        // Fault webhook-rotate-replace-cascades-history: `REPLACE INTO` deletes the row, and the
        // deliveries' ON DELETE CASCADE goes with it.
        if app
            .switches()
            .faults
            .has(Fault::WebhookRotateReplaceCascadesHistory)
        {
            store.hooks.deliveries.retain(|d| d.webhook_id != id);
            store.hooks.history_cache.remove(&id);
        }
        // Fault webhook-rotate-answers-previous-secret: the answer is the row read before the save.
        let secret = if app
            .switches()
            .faults
            .has(Fault::WebhookRotateAnswersPreviousSecret)
        {
            previous
        } else {
            secret
        };
        let mut w = w;
        // Fault webhook-rotate-drops-api-version: rotate saves the webhook through the create
        // path, which pins apiVersion from the request's header (absent: null).
        if app
            .switches()
            .faults
            .has(Fault::WebhookRotateDropsApiVersion)
        {
            w.api_version = headers
                .get(PIN_HEADER)
                .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
            if let Some(stored) = store.webhook_mut(&id) {
                stored.api_version = w.api_version.clone();
            }
        }
        if app.switches().faults.has(Fault::WebhookRotateResetsEvents) {
            w.events.truncate(1);
            if let Some(stored) = store.webhook_mut(&id) {
                stored.events = w.events.clone();
            }
        }
        if app.switches().faults.has(Fault::WebhookRotateFillsEvents) {
            w.events = variant_events(w.events.first().map_or("", String::as_str));
            if let Some(stored) = store.webhook_mut(&id) {
                stored.events = w.events.clone();
            }
        }
        // Fault webhook-rotate-reissues-id: the rotated subscription is a copy under a new id.
        let (w, secret) = if app.switches().faults.has(Fault::WebhookRotateReissuesId) {
            reissued(&app, &mut store, w)
        } else {
            (w, secret)
        };
        let mut answered = with_secret(&app, &w, &secret);
        updated_at_unset(&store, &w.id, &mut answered);
        Ok(reply::data(StatusCode::OK, answered))
    });
    answer(&app, result)
}

/// Fault webhook-rotate-reissues-id: the webhook inserted again under a new id with a new secret,
/// the original deleted (its deliveries stay under the old id).
fn reissued(app: &App, store: &mut Store, w: Webhook) -> (Webhook, String) {
    let old = w.id.clone();
    let id = store.hooks.new_webhook_id();
    let url_safe = app.switches().faults.has(Fault::WebhookSecretBase64Url);
    let secret = store.hooks.new_secret(&id, url_safe);
    let now = OffsetDateTime::now_utc();
    let copy = Webhook {
        id,
        created_at: now,
        updated_at: now,
        ..w
    };
    store.remove_webhook(&old);
    store.hooks.get_cache.remove(&old);
    store.add_webhook(copy.clone());
    store.hooks.list_cache = None;
    (copy, secret)
}

/// Every event of the variant of the events union that holds `event`: the stated variants 1 to 4
/// (Resources > Webhook), else the event's group (fault webhook-rotate-fills-events).
fn variant_events(event: &str) -> Vec<String> {
    const STATED: [&[&str]; 4] = [
        &["message.received", "message.delivered"],
        &["call.completed", "call.ringing", "call.recording.completed"],
        &["call.summary.completed"],
        &["call.transcript.completed"],
    ];
    if let Some(variant) = STATED.iter().find(|v| v.contains(&event)) {
        return variant.iter().map(|e| e.to_string()).collect();
    }
    let group = EVENTS.iter().find(|(e, _)| *e == event).map(|(_, g)| *g);
    EVENTS
        .iter()
        .filter(|(_, g)| Some(*g) == group)
        .map(|(e, _)| e.to_string())
        .collect()
}

fn record_json(app: &App, record: &DeliveryRecord) -> Value {
    let faults = &app.switches().faults;
    let mut v = record.to_json(faults.has(Fault::WebhookTestHasResourceId));
    if faults.has(Fault::WebhookHistoryIdDiffers) {
        v["id"] = json!(format!("dlv_{}", record.id));
    }
    // Fault webhook-event-id-not-payload-id: the delivery's id shown as the event's.
    if faults.has(Fault::WebhookEventIdNotPayloadId) && record.event_id.is_some() {
        v["eventId"] = json!(record.id);
    }
    // Fault webhook-test-has-event-id: the test payload's generated id shown as its event.
    if faults.has(Fault::WebhookTestHasEventId) && record.event == "webhook.test" {
        v["eventId"] = json!(format!("EV{}", record.id.get(4..).unwrap_or(&record.id)));
    }
    // Fault delivery-cutoff-inverted: a delivery after the cutoff shows what only older ones do.
    if faults.has(Fault::DeliveryCutoffInverted) && record.event_id.is_some() {
        v["eventId"] = Value::Null;
        v["resourceId"] = Value::Null;
    }
    v
}

async fn test_delivery(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let result = managed_id(&app, id).and_then(|id| {
        let mut store = app.store();
        let Some(w) = store.webhook(&id).cloned() else {
            return Err(not_found(&app, &id));
        };
        let first = app
            .switches()
            .faults
            .has(Fault::WebhookSignsWithFirstSecret);
        // Fault webhook-test-broadcast: the test goes out on the event bus, to every enabled
        // webhook; the one asked for is sent last, so its record is the answer.
        let mut jobs = Vec::new();
        if app.switches().faults.has(Fault::WebhookTestBroadcast) {
            let others: Vec<Webhook> = store
                .webhooks()
                .iter()
                .filter(|o| o.id != w.id && o.status == "enabled")
                .cloned()
                .collect();
            for other in &others {
                jobs.extend(deliveries::fire_test(&mut store, other, first));
            }
        }
        jobs.extend(deliveries::fire_test(&mut store, &w, first));
        let record = store.hooks.deliveries.last().map(|r| record_json(&app, r));
        drop(store);
        if !app.switches().faults.has(Fault::WebhookTestNotSent) {
            deliveries::dispatch(&app, jobs);
        }
        Ok(reply::data(
            StatusCode::ACCEPTED,
            record.unwrap_or(json!({})),
        ))
    });
    answer(&app, result)
}

/// The id of a delivery as the history shows it (the fault changes it; lookups undo that).
fn delivery_key(app: &App, shown: &str) -> String {
    if app.switches().faults.has(Fault::WebhookHistoryIdDiffers) {
        shown.strip_prefix("dlv_").unwrap_or(shown).to_string()
    } else {
        shown.to_string()
    }
}

async fn history(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = Query::parse(raw.as_deref());
    let result = managed_id(&app, id).and_then(|id| {
        let mut store = app.store();
        // Fault webhook-history-unknown-webhook-empty: the deliveries table queried alone.
        if store.webhook(&id).is_none()
            && !app
                .switches()
                .faults
                .has(Fault::WebhookHistoryUnknownWebhookEmpty)
        {
            return Err(not_found(&app, &id));
        }
        let filter = query.first("resourceId").filter(|_| {
            !app.switches()
                .faults
                .has(Fault::WebhookResourceFilterIgnored)
        });
        // Fault delivery-history-cache-misses-tests: the history as first read, until an event
        // delivery clears the cache.
        let cached = app
            .switches()
            .faults
            .has(Fault::DeliveryHistoryCacheMissesTests);
        let records: Vec<DeliveryRecord> = match store.hooks.history_cache.get(&id) {
            Some(records) if cached => records.clone(),
            _ => store.hooks.deliveries.iter().rev().cloned().collect(),
        };
        if cached {
            store
                .hooks
                .history_cache
                .insert(id.clone(), records.clone());
        }
        let items: Vec<Value> = records
            .iter()
            // Fault webhook-history-all-webhooks: the history is not narrowed to the webhook.
            .filter(|d| {
                d.webhook_id == id || app.switches().faults.has(Fault::WebhookHistoryAllWebhooks)
            })
            .filter(|d| {
                // Fault webhook-resource-filter-keeps-nulls: a null resourceId passes any filter.
                let nulls_pass = app
                    .switches()
                    .faults
                    .has(Fault::WebhookResourceFilterKeepsNulls);
                // Fault history-resource-filter-on-event-id: the filter bound to eventId.
                let column = if app
                    .switches()
                    .faults
                    .has(Fault::HistoryResourceFilterOnEventId)
                {
                    d.event_id.as_deref()
                } else {
                    d.resource_id.as_deref()
                };
                // Fault history-resource-filter-payload-like: `payload LIKE '%' || :id || '%'`.
                let like = filter.is_some_and(|f| {
                    app.switches()
                        .faults
                        .has(Fault::HistoryResourceFilterPayloadLike)
                        && d.payload.contains(f)
                });
                like || filter
                    .is_none_or(|f| column == Some(f) || (nulls_pass && d.resource_id.is_none()))
            })
            .map(|d| record_json(&app, d))
            .collect();
        let total = items.len();
        Ok(reply::json(
            StatusCode::OK,
            &json!({"data": items, "totalItems": total, "nextPageToken": null}),
        ))
    });
    answer(&app, result)
}

async fn history_one(
    State(app): State<App>,
    ids: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    let result = split(&app, ids).and_then(|(id, event)| {
        let store = app.store();
        // Fault history-detail-by-event-id: the path parameter taken for the payload's id.
        let record = if app.switches().faults.has(Fault::HistoryDetailByEventId) {
            store
                .hooks
                .deliveries
                .iter()
                .find(|d| d.webhook_id == id && d.event_id.as_deref() == Some(event.as_str()))
                .ok_or_else(|| missing_delivery(&event))?
        } else {
            delivery(&app, &store, &id, &event)?
        };
        // Fault history-detail-test-delivery-404: the detail joins the delivery to its event.
        if record.event_id.is_none()
            && app
                .switches()
                .faults
                .has(Fault::HistoryDetailTestDelivery404)
        {
            return Err(missing_delivery(&event));
        }
        let mut v = record_json(&app, record);
        v["payload"] = serde_json::from_str(&record.payload).unwrap_or(Value::Null);
        Ok(reply::data(StatusCode::OK, v))
    });
    answer(&app, result)
}

async fn manual_retry(
    State(app): State<App>,
    ids: Result<Path<(String, String)>, PathRejection>,
) -> Response {
    let result = split(&app, ids).and_then(|(id, event)| {
        let mut store = app.store();
        let record = delivery(&app, &store, &id, &event)?.clone();
        // Fault manual-retry-counts-attempts: the manual retry draws on the automatic budget.
        if record.attempts.len() >= deliveries::MAX_ATTEMPTS
            && app.switches().faults.has(Fault::ManualRetryCountsAttempts)
        {
            return Err(ApiError::for_path(
                PATH,
                StatusCode::CONFLICT,
                format!("delivery '{event}' has no attempts left"),
            ));
        }
        // Fault manual-retry-test-delivery-404: the delivery is joined to its event.
        if record.event_id.is_none() && app.switches().faults.has(Fault::ManualRetryTestDelivery404)
        {
            return Err(missing_delivery(&event));
        }
        // Fault manual-retry-failed-only: a delivery whose last attempt succeeded is refused.
        let delivered = record
            .attempts
            .last()
            .and_then(|a| a.get("responseStatus"))
            .and_then(Value::as_u64)
            .is_some_and(|s| (200..300).contains(&s));
        if delivered && app.switches().faults.has(Fault::ManualRetryFailedOnly) {
            return Err(ApiError::for_path(
                PATH,
                StatusCode::CONFLICT,
                format!("delivery '{event}' was delivered; only failed deliveries can be retried"),
            ));
        }
        let first = app
            .switches()
            .faults
            .has(Fault::WebhookSignsWithFirstSecret);
        // Fault manual-retry-sends-latest-delivery: the delivery sent is the webhook's newest.
        let sent = if app
            .switches()
            .faults
            .has(Fault::ManualRetrySendsLatestDelivery)
        {
            store
                .hooks
                .deliveries
                .iter()
                .rev()
                .find(|d| d.webhook_id == id)
                .cloned()
                .unwrap_or_else(|| record.clone())
        } else {
            record.clone()
        };
        let (json, job) = if app.switches().faults.has(Fault::ManualRetryNewDelivery) {
            // Fault manual-retry-new-delivery: the retry is a new delivery of the same event.
            match deliveries::again_as_new(&mut store, &record, first) {
                Some((added, job)) => (record_json(&app, &added), Some(job)),
                None => (record_json(&app, &record), None),
            }
        } else {
            // Fault manual-retry-legacy-signature: the legacy worker sends manual retries.
            let legacy = app.switches().faults.has(Fault::ManualRetryLegacySignature);
            (
                record_json(&app, &record),
                deliveries::again(&store, &sent, first).map(|job| job.signed_legacy(legacy)),
            )
        };
        drop(store);
        if !app.switches().faults.has(Fault::WebhookManualRetryNoop) {
            deliveries::dispatch(&app, job.into_iter().collect());
        }
        Ok(reply::data(StatusCode::ACCEPTED, json))
    });
    answer(&app, result)
}

/// The delivery `event` (as the caller wrote its id) of webhook `id`, or 404.
fn delivery<'a>(
    app: &App,
    store: &'a Store,
    id: &str,
    event: &str,
) -> Result<&'a DeliveryRecord, ApiError> {
    let key = delivery_key(app, event);
    // Fault webhook-history-detail-cross-webhook: the delivery found by its id alone.
    if app
        .switches()
        .faults
        .has(Fault::WebhookHistoryDetailCrossWebhook)
    {
        return store
            .hooks
            .deliveries
            .iter()
            .find(|d| d.id == key)
            .ok_or_else(|| missing_delivery(event));
    }
    store
        .hooks
        .delivery(id, &key)
        .ok_or_else(|| missing_delivery(event))
}

fn missing_delivery(event: &str) -> ApiError {
    ApiError::for_path(
        PATH,
        StatusCode::NOT_FOUND,
        format!("delivery '{event}' was not found"),
    )
}

/// The webhook id (checked, and the webhook must exist) and the delivery id of a path.
fn split(
    app: &App,
    ids: Result<Path<(String, String)>, PathRejection>,
) -> Result<(String, String), ApiError> {
    let Path((id, event)) = ids.map_err(|e| {
        ApiError::bad_request(PATH, format!("path is not valid: {}", e.body_text()))
    })?;
    let id = managed_id(app, Ok(Path(id)))?;
    if app.store().webhook(&id).is_none() {
        return Err(not_found(app, &id));
    }
    Ok((id, event))
}

async fn create_legacy(
    State(app): State<App>,
    kind: Result<Path<String>, PathRejection>,
    body: Body,
) -> Response {
    let body = input::json_object(body, LEGACY_PATH).await;
    // Fault legacy-webhook-error-code-short: the bare status as the code.
    let short_code = |e: ApiError| {
        if app
            .switches()
            .faults
            .has(Fault::LegacyWebhookErrorCodeShort)
        {
            let code = e.status().as_u16().to_string();
            e.with_code(&code)
        } else {
            e
        }
    };
    let typo = app
        .switches()
        .faults
        .has(Fault::LegacyCallTranscriptsRouteTypo);
    let result = input::path_param(kind, LEGACY_PATH).and_then(|kind| {
        let events: &[&str] = match kind.as_str() {
            "messages" => &["message.received", "message.delivered"],
            "calls" => &["call.completed", "call.ringing", "call.recording.completed"],
            "call-summaries" => &["call.summary.completed"],
            // Fault legacy-call-transcripts-route-typo: the kind table spells it in the singular.
            "call-transcripts" if !typo => &["call.transcript.completed"],
            "call-transcript" if typo => &["call.transcript.completed"],
            _ => {
                return Err(ApiError::for_path(
                    LEGACY_PATH,
                    StatusCode::NOT_FOUND,
                    format!("no endpoint POST /v1/webhooks/{kind}"),
                ));
            }
        };
        let body = body?;
        let url = match body.get("url") {
            Some(Value::String(u)) if u.starts_with("http://") || u.starts_with("https://") => u,
            // Fault legacy-webhook-missing-url-500: body['url'] indexed before it is validated.
            None if app.switches().faults.has(Fault::LegacyWebhookMissingUrl500) => {
                return Err(ApiError::for_path(
                    LEGACY_PATH,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "KeyError: 'url'",
                ));
            }
            _ => {
                return Err(ApiError::bad_request(
                    LEGACY_PATH,
                    "url is required: an http or https URI",
                ));
            }
        };
        let mut store = app.store();
        let id = format!("WH{:08}", store.hooks.legacy.len() + 1);
        let hook = json!({
            "id": id,
            "url": url,
            "label": body.get("label").cloned().unwrap_or(Value::Null),
            "events": events,
            "status": "enabled",
            "createdAt": crate::model::timestamp(OffsetDateTime::now_utc()),
        });
        store.hooks.legacy.push(hook.clone());
        // Fault legacy-create-deletes-family-webhooks: one subscription per event family.
        if app
            .switches()
            .faults
            .has(Fault::LegacyCreateDeletesFamilyWebhooks)
        {
            let doomed: Vec<String> = store
                .webhooks()
                .iter()
                .filter(|w| w.events.iter().all(|e| events.contains(&e.as_str())))
                .map(|w| w.id.clone())
                .collect();
            for id in doomed {
                store.remove_webhook(&id);
                store.hooks.get_cache.remove(&id);
            }
            store.hooks.list_cache = None;
        }
        // Fault legacy-webhook-create-no-envelope: the row answered as it is.
        if app.switches().faults.has(Fault::LegacyWebhookNoEnvelope) {
            return Ok(reply::json(StatusCode::CREATED, &hook));
        }
        Ok(reply::data(StatusCode::CREATED, hook))
    });
    answer(&app, result.map_err(short_code))
}
