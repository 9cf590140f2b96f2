//! Webhooks (header-versioned management, legacy v1 creation), their deliveries and history.
//! OWNER: webhooks.
//!
//! The store keeps every webhook of every workspace and the delivery records of each; `events`
//! creates deliveries, `deliver` sends them (signed, asynchronously, retried), `http` serves
//! the header-versioned endpoints and `legacy` the `/v1/webhooks/{kind}` ones.

pub(crate) mod deliver;
mod http;
mod legacy;
mod validate;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use axum::Router;
use serde_json::{Map, Value, json};

use crate::app::App;
use crate::directory::{self, Directory};

pub(crate) use deliver::{Job, Trigger, enqueue_initial};

/// The one payload version a webhook can pin.
pub(crate) const PAYLOAD_VERSION: &str = "2026-03-30";

/// Webhooks per workspace (Limits).
pub(crate) const MAX_WEBHOOKS_PER_ORG: usize = 50;

/// Delivery records kept per webhook; the oldest are dropped beyond it.
pub(crate) const MAX_HISTORY_PER_WEBHOOK: usize = 500;

/// Deliveries created before this instant carry no `eventId` / `resourceId` (Events).
pub(crate) const HISTORY_CUTOFF: &str = "2025-06-01T00:00:00.000Z";

/// The seeded webhook (profile fixture `webhook_id`).
pub(crate) const SEEDED_WEBHOOK_ID: &str = "4021578336";

/// Every event name the service fires (Events), in the contract's order.
pub(crate) const EVENT_TYPES: &[&str] = &[
    "message.received",
    "message.delivered",
    "message.failed",
    "message.undelivered",
    "call.ringing",
    "call.answered",
    "call.forwarded",
    "call.missed",
    "call.completed",
    "call.voicemail.completed",
    "call.recording.completed",
    "call.summary.completed",
    "call.transcript.completed",
    "call.menu.selected",
    "contact.updated",
    "contact.deleted",
    "task.created",
    "task.updated",
    "task.deleted",
    "task.completed",
    "task.reopened",
    "task.assigned",
    "task.unassigned",
    "task.overdue",
    "task.linked",
    "task.unlinked",
    "task.duedate.updated",
    "task.duedate.removed",
];

/// The event type of a test delivery.
pub(crate) const TEST_EVENT_TYPE: &str = "webhook.test";

/// The kinds of legacy webhooks (`/v1/webhooks/{kind}`), each tied to one variant of the
/// Webhook events union.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LegacyKind {
    Messages,
    Calls,
    CallSummaries,
    CallTranscripts,
}

impl LegacyKind {
    pub(crate) fn parse(s: &str) -> Option<LegacyKind> {
        match s {
            "messages" => Some(LegacyKind::Messages),
            "calls" => Some(LegacyKind::Calls),
            "call-summaries" => Some(LegacyKind::CallSummaries),
            "call-transcripts" => Some(LegacyKind::CallTranscripts),
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            LegacyKind::Messages => "messages",
            LegacyKind::Calls => "calls",
            LegacyKind::CallSummaries => "call-summaries",
            LegacyKind::CallTranscripts => "call-transcripts",
        }
    }

    /// The events a legacy webhook of this kind may subscribe to (one union variant).
    pub(crate) fn events(self) -> &'static [&'static str] {
        match self {
            LegacyKind::Messages => &["message.received", "message.delivered"],
            LegacyKind::Calls => &["call.completed", "call.ringing", "call.recording.completed"],
            LegacyKind::CallSummaries => &["call.summary.completed"],
            LegacyKind::CallTranscripts => &["call.transcript.completed"],
        }
    }
}

/// A rotated-out secret and the end of its grace period.
#[derive(Debug, Clone)]
pub(crate) struct PreviousSecret {
    pub secret: String,
    pub until: std::time::Instant,
    pub until_text: String,
}

/// How long a rotated-out Standard Webhooks secret keeps signing alongside the new one.
pub(crate) const ROTATION_GRACE: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// One webhook subscription.
#[derive(Debug, Clone)]
pub(crate) struct Webhook {
    pub id: String,
    /// Creation order (ids grow with it).
    pub seq: u64,
    pub org_id: String,
    pub label: Option<String>,
    pub enabled: bool,
    pub url: String,
    pub created_at: String,
    pub updated_at: String,
    /// The pinned payload version (None for legacy webhooks, which have none).
    pub api_version: Option<String>,
    pub events: Vec<String>,
    pub resource_ids: Vec<String>,
    /// `whsec_` + base64 (Standard Webhooks), or the legacy key for legacy webhooks.
    pub secret: String,
    pub secret_rotated_at: Option<String>,
    /// The secret a rotation replaced, still signing (second signature) until the instant.
    pub previous_secret: Option<PreviousSecret>,
    pub created_by: String,
    pub legacy: Option<LegacyKind>,
    /// Delivery ids, oldest first.
    pub deliveries: Vec<String>,
}

impl Webhook {
    /// The Webhook resource (never the secret).
    pub(crate) fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("orgId".into(), json!(self.org_id));
        m.insert("label".into(), json!(self.label));
        m.insert(
            "status".into(),
            json!(if self.enabled { "enabled" } else { "disabled" }),
        );
        m.insert("url".into(), json!(self.url));
        m.insert("createdAt".into(), json!(self.created_at));
        m.insert("updatedAt".into(), json!(self.updated_at));
        if let Some(v) = &self.api_version {
            m.insert("apiVersion".into(), json!(v));
        }
        m.insert("events".into(), json!(self.events));
        m.insert("resourceIds".into(), json!(self.resource_ids));
        m.insert("createdByUserId".into(), json!(self.created_by));
        m.insert("secretRotatedAt".into(), json!(self.secret_rotated_at));
        let grace = self
            .previous_secret
            .as_ref()
            .filter(|p| p.until > std::time::Instant::now())
            .map(|p| p.until_text.clone());
        m.insert("previousSecretExpiresAt".into(), json!(grace));
        m.insert(
            "signatureScheme".into(),
            json!(if self.legacy.is_some() {
                "service-signature"
            } else {
                "standard-webhooks"
            }),
        );
        if let Some(k) = self.legacy {
            m.insert("legacyKind".into(), json!(k.name()));
        }
        Value::Object(m)
    }

    /// The resource with the signing secret (create and rotate answers only).
    pub(crate) fn to_json_with_secret(&self) -> Value {
        let mut v = self.to_json();
        if let Some(m) = v.as_object_mut() {
            m.insert("secret".into(), json!(self.secret));
        }
        v
    }

    /// Whether an event of `event_type` on `phone_number_id` goes to this webhook.
    pub(crate) fn subscribed(&self, event_type: &str, phone_number_id: Option<&str>) -> bool {
        if !self.enabled || !self.events.iter().any(|e| e == event_type) {
            return false;
        }
        if self.resource_ids.iter().any(|r| r == "*") {
            return true;
        }
        match phone_number_id {
            Some(pn) => self.resource_ids.iter().any(|r| r == pn),
            None => false,
        }
    }
}

/// The state of a delivery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DeliveryStatus {
    /// Created, first attempt (or a manual retry) not made yet.
    Pending,
    /// The last attempt failed; an automatic retry is scheduled.
    Retrying,
    Succeeded,
    /// Every attempt failed; nothing further is scheduled.
    Failed,
    /// Dropped before an attempt (the webhook was disabled).
    Cancelled,
}

impl DeliveryStatus {
    pub(crate) fn name(self) -> &'static str {
        match self {
            DeliveryStatus::Pending => "pending",
            DeliveryStatus::Retrying => "retrying",
            DeliveryStatus::Succeeded => "succeeded",
            DeliveryStatus::Failed => "failed",
            DeliveryStatus::Cancelled => "cancelled",
        }
    }

    pub(crate) const NAMES: &'static [&'static str] =
        &["pending", "retrying", "succeeded", "failed", "cancelled"];
}

/// One attempt of a delivery and the answer it got.
#[derive(Debug, Clone)]
pub(crate) struct Attempt {
    pub number: usize,
    pub trigger: Trigger,
    pub started_at: String,
    pub duration_ms: u64,
    pub url: String,
    pub status_code: Option<u16>,
    pub response_body: Option<String>,
    pub response_truncated: bool,
    pub error: Option<String>,
    pub succeeded: bool,
}

impl Attempt {
    fn to_json(&self) -> Value {
        json!({
            "attempt": self.number,
            "trigger": self.trigger.name(),
            "startedAt": self.started_at,
            "durationMs": self.duration_ms,
            "url": self.url,
            "outcome": if self.succeeded { "succeeded" } else { "failed" },
            "response": self.status_code.map(|s| json!({
                "status": s,
                "body": self.response_body,
                "bodyTruncated": self.response_truncated,
            })),
            "error": self.error,
        })
    }
}

/// One delivery: a payload for one webhook, its attempts.
#[derive(Debug, Clone)]
pub(crate) struct Delivery {
    /// Equal to the `webhook-id` header of every attempt.
    pub id: String,
    pub seq: u64,
    pub webhook_id: String,
    /// The payload id; None for test deliveries and those before the cutoff.
    pub event_id: Option<String>,
    pub event_type: String,
    /// The primary resource id; None for test deliveries and those before the cutoff.
    pub resource_id: Option<String>,
    pub test: bool,
    /// The exact body sent on every attempt.
    pub payload: String,
    pub created_at: String,
    pub updated_at: String,
    pub status: DeliveryStatus,
    pub attempts: Vec<Attempt>,
    pub next_attempt_at: Option<String>,
    pub delivered_at: Option<String>,
    /// Bumped by a manual retry: jobs of an older generation are dropped.
    pub generation: u64,
}

impl Delivery {
    /// The delivery record (list items and detail).
    pub(crate) fn to_json(&self, with_payload: bool) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("webhookId".into(), json!(self.webhook_id));
        m.insert("eventId".into(), json!(self.event_id));
        m.insert("resourceId".into(), json!(self.resource_id));
        m.insert("eventType".into(), json!(self.event_type));
        m.insert("test".into(), json!(self.test));
        m.insert("status".into(), json!(self.status.name()));
        m.insert("createdAt".into(), json!(self.created_at));
        m.insert("updatedAt".into(), json!(self.updated_at));
        m.insert("attemptCount".into(), json!(self.attempts.len()));
        m.insert(
            "lastAttemptAt".into(),
            json!(self.attempts.last().map(|a| a.started_at.clone())),
        );
        m.insert("nextAttemptAt".into(), json!(self.next_attempt_at));
        m.insert("deliveredAt".into(), json!(self.delivered_at));
        m.insert(
            "attempts".into(),
            Value::Array(self.attempts.iter().map(Attempt::to_json).collect()),
        );
        if with_payload {
            let payload: Value = serde_json::from_str(&self.payload).unwrap_or(Value::Null);
            m.insert("payload".into(), payload);
        }
        Value::Object(m)
    }
}

/// The mutable state, behind one mutex.
pub(crate) struct Inner {
    pub next_id: u64,
    pub next_seq: u64,
    pub webhooks: BTreeMap<String, Webhook>,
    pub deliveries: HashMap<String, Delivery>,
    /// The queue of first attempts of each webhook (in event order).
    pub queues: HashMap<String, tokio::sync::mpsc::UnboundedSender<Job>>,
}

impl Inner {
    /// A fresh numeric webhook id (10 digits, growing by a random step).
    pub(crate) fn new_webhook_id(&mut self) -> String {
        let step: u64 = 1 + rand::random::<u64>() % 97;
        self.next_id += step;
        self.next_id.to_string()
    }

    pub(crate) fn new_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    pub(crate) fn count_of_org(&self, org_id: &str) -> usize {
        self.webhooks
            .values()
            .filter(|w| w.org_id == org_id)
            .count()
    }

    /// Records a new delivery on its webhook (dropping the oldest beyond the history bound).
    pub(crate) fn add_delivery(&mut self, d: Delivery) {
        let wid = d.webhook_id.clone();
        let id = d.id.clone();
        self.deliveries.insert(id.clone(), d);
        let mut dropped = Vec::new();
        if let Some(w) = self.webhooks.get_mut(&wid) {
            w.deliveries.push(id);
            while w.deliveries.len() > MAX_HISTORY_PER_WEBHOOK {
                dropped.push(w.deliveries.remove(0));
            }
        }
        for d in dropped {
            self.deliveries.remove(&d);
        }
    }

    /// Removes a webhook with its history and its queue.
    pub(crate) fn remove_webhook(&mut self, id: &str) -> Option<Webhook> {
        let w = self.webhooks.remove(id)?;
        for d in &w.deliveries {
            self.deliveries.remove(d);
        }
        self.queues.remove(id);
        Some(w)
    }
}

/// This area's data.
pub struct Store {
    inner: Mutex<Inner>,
    /// Keys the page tokens of this instance.
    pub(crate) token_salt: u64,
    /// The HTTP client of deliveries, built on first use.
    client: OnceLock<Result<reqwest::Client, String>>,
}

impl Store {
    /// The seeded store: one webhook of the primary workspace (the `webhook_id` fixture) pointed
    /// at a reserved `.invalid` host, with two historical deliveries (one before the cutoff).
    pub fn seeded(directory: &Directory) -> Store {
        let mut inner = Inner {
            next_id: 4_021_578_336,
            next_seq: 0,
            webhooks: BTreeMap::new(),
            deliveries: HashMap::new(),
            queues: HashMap::new(),
        };
        let created_by = directory
            .user(directory::OWNER_USER)
            .map(|u| u.id.clone())
            .unwrap_or_else(|| directory::OWNER_USER.to_string());
        let seq = inner.new_seq();
        let hook = Webhook {
            id: SEEDED_WEBHOOK_ID.to_string(),
            seq,
            org_id: directory::PRIMARY_ORG.to_string(),
            label: Some("Recall reminders CRM sync".to_string()),
            enabled: true,
            url: "https://crm-sync.harborview-dental.invalid/hooks/workspace-messages".to_string(),
            created_at: "2025-02-03T15:27:44.612Z".to_string(),
            updated_at: "2025-09-18T08:02:19.370Z".to_string(),
            api_version: Some(PAYLOAD_VERSION.to_string()),
            events: vec![
                "message.received".to_string(),
                "message.delivered".to_string(),
            ],
            resource_ids: vec![directory::A2P_UNAPPROVED_NUMBER.to_string()],
            secret: "whsec_c2VlZGVkLXdlYmhvb2stc2lnbmluZy1zZWNyZXQtMDE=".to_string(),
            secret_rotated_at: None,
            previous_secret: None,
            created_by,
            legacy: None,
            deliveries: Vec::new(),
        };
        inner.webhooks.insert(hook.id.clone(), hook);
        let history = [
            (
                "whd_0seedpre0cutoff0history01",
                Some("evt_0seed0message0received01"),
                Some("ACsd1Pz8Wk3Rv6"),
                "message.received",
                "2025-03-14T10:02:51.207Z",
                200u16,
                DeliveryStatus::Succeeded,
            ),
            (
                "whd_0seedpost0cutoff0history2",
                Some("evt_0seed0message0delivered01"),
                Some("ACsd9Lq2Xe7Hn4"),
                "message.delivered",
                "2025-09-18T08:04:03.918Z",
                503u16,
                DeliveryStatus::Failed,
            ),
        ];
        for (id, event_id, resource_id, event_type, at, status, st) in history {
            // Records before the cutoff carry no event or resource id (Events).
            let (event_id, resource_id) = if at < HISTORY_CUTOFF {
                (None, None)
            } else {
                (event_id, resource_id)
            };
            let seq = inner.new_seq();
            let payload = json!({
                "id": event_id.unwrap_or("evt_0seed0legacy0record0000"),
                "object": "event",
                "type": event_type,
                "apiVersion": PAYLOAD_VERSION,
                "createdAt": at,
                "data": {
                    "resource": {"id": resource_id.unwrap_or("ACsd1Pz8Wk3Rv6"), "object": "message"},
                    "context": {"phoneNumberId": directory::A2P_UNAPPROVED_NUMBER},
                    "links": {"webhook": format!("/webhooks/{SEEDED_WEBHOOK_ID}")},
                },
            });
            let attempt = Attempt {
                number: 1,
                trigger: Trigger::Initial,
                started_at: at.to_string(),
                duration_ms: 212,
                url: "https://crm-sync.harborview-dental.invalid/hooks/workspace-messages"
                    .to_string(),
                status_code: Some(status),
                response_body: Some(if status == 200 {
                    "ok".into()
                } else {
                    "Service Unavailable".into()
                }),
                response_truncated: false,
                error: None,
                succeeded: status == 200,
            };
            inner.add_delivery(Delivery {
                id: id.to_string(),
                seq,
                webhook_id: SEEDED_WEBHOOK_ID.to_string(),
                event_id: event_id.map(str::to_string),
                event_type: event_type.to_string(),
                resource_id: resource_id.map(str::to_string),
                test: false,
                payload: payload.to_string(),
                created_at: at.to_string(),
                updated_at: at.to_string(),
                status: st,
                attempts: vec![attempt],
                next_attempt_at: None,
                delivered_at: if status == 200 {
                    Some(at.to_string())
                } else {
                    None
                },
                generation: 0,
            });
        }
        Store {
            inner: Mutex::new(inner),
            token_salt: rand::random(),
            client: OnceLock::new(),
        }
    }

    /// The state, locked (a poisoned lock is taken over: every change is made whole under it).
    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The HTTP client of deliveries (an error text when none could be built).
    pub(crate) fn client(&self) -> Result<&reqwest::Client, String> {
        deliver::client_of(&self.client)
    }

    /// The profile fixtures of this area's seeded data (names and meanings: docs/profile.md).
    pub fn fixtures(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("webhook_id".into(), json!(SEEDED_WEBHOOK_ID));
        // First attempt ~0.4 s after the event; an attempt times out after 4 s.
        m.insert("webhook_delivery_seconds".into(), json!(8));
        // Automatic retries 0.5 s, 1 s and 2 s after each failed attempt (3.5 s in all).
        m.insert("webhook_retry_seconds".into(), json!(10));
        m.insert("webhook_quiet_seconds".into(), json!(2));
        m.insert("webhook_secret_pointer".into(), json!("/data/secret"));
        m
    }
}

/// This area's routes.
pub fn routes() -> Router<Arc<App>> {
    http::routes().merge(legacy::routes())
}

/// Now, RFC 3339 UTC with milliseconds.
pub(crate) fn now_rfc3339() -> String {
    rfc3339(time::OffsetDateTime::now_utc())
}

pub(crate) fn rfc3339(t: time::OffsetDateTime) -> String {
    let fmt = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    );
    t.to_offset(time::UtcOffset::UTC)
        .format(&fmt)
        .unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".to_string())
}

/// An RFC 3339 instant `d` from now.
pub(crate) fn rfc3339_in(d: std::time::Duration) -> String {
    let now = time::OffsetDateTime::now_utc();
    rfc3339(now + time::Duration::milliseconds(d.as_millis().min(i64::MAX as u128) as i64))
}

/// `prefix` + `n` random characters of `[0-9a-z]`.
pub(crate) fn random_id(prefix: &str, n: usize) -> String {
    const ALPHABET: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut s = String::with_capacity(prefix.len() + n);
    s.push_str(prefix);
    for _ in 0..n {
        let i = rand::random::<u32>() as usize % ALPHABET.len();
        s.push(ALPHABET[i] as char);
    }
    s
}

/// A fresh Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes.
pub(crate) fn new_secret() -> String {
    use base64::Engine;
    let bytes: [u8; 32] = rand::random();
    format!(
        "whsec_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// A fresh legacy signing key: `lwk_` + base64 of 32 random bytes (not a `whsec_` secret).
pub(crate) fn new_legacy_key() -> String {
    use base64::Engine;
    let bytes: [u8; 32] = rand::random();
    format!(
        "lwk_{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}
