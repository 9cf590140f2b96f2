//! Events fired by every area, matched to webhook subscriptions and delivered. OWNER: webhooks.
//!
//! `emit` runs after a change has taken effect: it matches the event against every enabled
//! webhook of the workspace (event type, then `resourceIds`: the phone number or `*`), records
//! one delivery per webhook (its payload fixed once, so every attempt sends the same bytes) and
//! queues the first attempt, which the webhook's worker sends a few hundred milliseconds later.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::app::App;
use crate::webhooks::{self, Delivery, DeliveryStatus, Job, Trigger};

/// Fires `event_type` in `org_id`: every enabled webhook of that org subscribed to the event
/// (and, through `resourceIds`, to `phone_number_id`, or `*`) gets a signed delivery, later.
pub fn emit(
    app: &Arc<App>,
    org_id: &str,
    event_type: &str,
    resource: serde_json::Value,
    context: serde_json::Value,
    phone_number_id: Option<&str>,
) {
    let now = webhooks::now_rfc3339();
    let event_id = webhooks::random_id("evt_", 24);
    let resource_id = primary_id(&resource);
    let mut inner = app.webhooks.lock();
    let targets: Vec<(String, Option<String>)> = inner
        .webhooks
        .values()
        .filter(|w| {
            w.org_id == org_id
                && if app.faults.on("b16-webhooks-resourceids-ignored") {
                    // Fault: the phone number filter of the subscription is not applied.
                    w.enabled && w.events.iter().any(|e| e == event_type)
                } else {
                    w.subscribed(event_type, phone_number_id)
                }
        })
        .map(|w| (w.id.clone(), w.api_version.clone()))
        .collect();
    for (webhook_id, api_version) in targets {
        let delivery_id = webhooks::random_id("whd_", 24);
        let payload = envelope(&Envelope {
            payload_id: &event_id,
            event_type,
            api_version: api_version.as_deref(),
            created_at: &now,
            org_id,
            webhook_id: &webhook_id,
            delivery_id: &delivery_id,
            resource: &resource,
            context: &context,
            phone_number_id,
            test: false,
        });
        let seq = inner.new_seq();
        inner.add_delivery(Delivery {
            id: delivery_id.clone(),
            seq,
            webhook_id: webhook_id.clone(),
            event_id: Some(event_id.clone()),
            event_type: event_type.to_string(),
            resource_id: resource_id.clone(),
            test: false,
            payload,
            created_at: now.clone(),
            updated_at: now.clone(),
            status: DeliveryStatus::Pending,
            attempts: Vec::new(),
            next_attempt_at: Some(webhooks::rfc3339_in(webhooks::deliver::INITIAL_DELAY)),
            delivered_at: None,
            generation: 0,
        });
        webhooks::enqueue_initial(
            app,
            &mut inner,
            &webhook_id,
            Job::new(
                delivery_id,
                0,
                Trigger::Initial,
                webhooks::deliver::INITIAL_DELAY,
            ),
        );
    }
}

/// The primary resource id of an event's resource: `id`, else `taskId`, else `callId`.
pub(crate) fn primary_id(resource: &Value) -> Option<String> {
    ["id", "taskId", "callId"].iter().find_map(|k| {
        resource
            .get(*k)
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    })
}

/// What one payload is built from.
pub(crate) struct Envelope<'a> {
    pub payload_id: &'a str,
    pub event_type: &'a str,
    pub api_version: Option<&'a str>,
    pub created_at: &'a str,
    pub org_id: &'a str,
    pub webhook_id: &'a str,
    pub delivery_id: &'a str,
    pub resource: &'a Value,
    pub context: &'a Value,
    pub phone_number_id: Option<&'a str>,
    pub test: bool,
}

/// The JSON text of one delivery's payload:
/// `{id, object, type, apiVersion, createdAt, orgId, webhookId, test, data: {resource, context, links}}`.
pub(crate) fn envelope(e: &Envelope<'_>) -> String {
    let mut context = match e.context {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        other => {
            let mut m = Map::new();
            m.insert("details".into(), other.clone());
            m
        }
    };
    if let Some(pn) = e.phone_number_id {
        context
            .entry("phoneNumberId")
            .or_insert_with(|| Value::String(pn.to_string()));
    }
    context
        .entry("orgId")
        .or_insert_with(|| Value::String(e.org_id.to_string()));
    let links = json!({
        "self": format!("/webhooks/{}/events/{}", e.webhook_id, e.delivery_id),
        "webhook": format!("/webhooks/{}", e.webhook_id),
        "resource": resource_link(e.event_type, e.resource),
    });
    let body = json!({
        "id": e.payload_id,
        "object": "event",
        "type": e.event_type,
        "apiVersion": e.api_version.unwrap_or("v1"),
        "createdAt": e.created_at,
        "orgId": e.org_id,
        "webhookId": e.webhook_id,
        "test": e.test,
        "data": {
            "resource": e.resource,
            "context": Value::Object(context),
            "links": links,
        },
    });
    body.to_string()
}

/// The API path that reads an event's resource, where there is one.
fn resource_link(event_type: &str, resource: &Value) -> Value {
    let s = |k: &str| {
        resource
            .get(k)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    let call_id = s("callId").or_else(|| s("id").filter(|v| v.starts_with("AC")));
    let link = match event_type {
        t if t.starts_with("message.") => s("id").map(|id| format!("/messages/{id}")),
        "call.voicemail.completed" => call_id.map(|id| format!("/calls/{id}?include=voicemail")),
        "call.summary.completed" => call_id.map(|id| format!("/calls/{id}?include=summary")),
        "call.transcript.completed" => call_id.map(|id| format!("/calls/{id}/transcripts")),
        "call.recording.completed" => call_id.map(|id| format!("/calls/{id}/recordings")),
        t if t.starts_with("call.") => call_id.map(|id| format!("/calls/{id}")),
        "contact.updated" => s("id").map(|id| format!("/contacts/{id}")),
        "task.deleted" | "contact.deleted" => None,
        t if t.starts_with("task.") => s("taskId")
            .or_else(|| s("id"))
            .map(|id| format!("/v1/tasks/{id}")),
        _ => None,
    };
    link.map(Value::String).unwrap_or(Value::Null)
}
