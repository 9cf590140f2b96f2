//! What the store keeps of webhook deliveries: signing secrets, the delivery history that
//! `GET /webhooks/{id}/events` reads, and the legacy webhooks. Sending is `deliveries.rs`, which
//! writes here through the store; this module names neither.

use std::collections::HashMap;

use base64::Engine;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::model::{Webhook, timestamp};

/// Webhook secrets, the delivery history and the legacy webhooks of one instance.
#[derive(Debug, Default)]
pub(crate) struct Hooks {
    next_webhook: u64,
    next_delivery: u64,
    secrets: HashMap<String, String>,
    /// The first secret each webhook had (fault webhook-signs-with-first-secret signs with it).
    first_secrets: HashMap<String, String>,
    /// The url each webhook was created with (fault webhook-deliveries-use-created-url): kept
    /// only while that fault is on, and then every delivery goes there.
    pub created_urls: HashMap<String, String>,
    /// The events each webhook was created with (fault webhook-deliveries-use-created-events).
    pub created_events: HashMap<String, Vec<String>>,
    pub deliveries: Vec<DeliveryRecord>,
    pub legacy: Vec<Value>,
    /// Webhooks deleted while fault webhook-delete-keeps-delivering or
    /// webhook-limit-counts-deleted is on (kept by the first, counted by the second).
    pub deleted_webhooks: Vec<Webhook>,
    /// Webhooks created without resourceIds while fault webhook-default-scope-shared is on: they
    /// hold the one shared default list.
    pub default_scope: std::collections::BTreeSet<String>,
    /// The answer of GET /webhooks as first read (fault webhooks-list-cache-stale): create and
    /// delete clear it, PATCH and PUT do not.
    pub list_cache: Option<Vec<Value>>,
    /// Each webhook's delivery history as first read, newest first (fault
    /// delivery-history-cache-misses-tests): only event deliveries clear it.
    pub history_cache: HashMap<String, Vec<DeliveryRecord>>,
    /// Webhooks deleted while fault webhook-delete-soft-get-answers is on: flagged, still read
    /// by the single GET.
    pub soft_deleted: Vec<Webhook>,
    /// Webhooks as the single GET first read them (fault webhook-get-cache-misses-put): PATCH
    /// and DELETE evict them, PUT does not.
    pub get_cache: HashMap<String, Webhook>,
    /// The secret each webhook had before its last rotate, which signs on beside the new one
    /// (kept only while fault webhook-rotation-signatures-comma-joined is on).
    pub previous_secrets: HashMap<String, String>,
    next_occurrence: u64,
    /// The user who created each webhook (kept only while fault webhook-limit-per-key is on).
    pub created_by: HashMap<String, String>,
    /// Webhooks created and never updated since (kept only while fault
    /// webhook-updated-at-null-until-update is on): their updated_at is NULL.
    pub never_updated: std::collections::BTreeSet<String>,
    /// Deliveries recorded and not yet relayed, by id: the outbox relay sends them when the next
    /// event is recorded (kept only while fault deliveries-relayed-on-next-event is on).
    pub relay_pending: Vec<String>,
}

/// One delivery: its payload and every attempt to deliver it.
#[derive(Debug, Clone)]
pub(crate) struct DeliveryRecord {
    /// Equals the `webhook-id` header of its attempts.
    pub id: String,
    pub webhook_id: String,
    /// The payload's id; null for test deliveries.
    pub event_id: Option<String>,
    /// The primary resource's id; null for test deliveries.
    pub resource_id: Option<String>,
    pub event: String,
    pub payload: String,
    pub created_at: OffsetDateTime,
    pub attempts: Vec<Value>,
    /// The occurrence of the event the delivery carries, shared by the deliveries of one event to
    /// several webhooks (fault webhook-delete-cascades-shared-events); none for test deliveries.
    pub occurrence: Option<u64>,
}

impl DeliveryRecord {
    pub fn to_json(&self, test_has_resource: bool) -> Value {
        let resource_id = match (&self.resource_id, test_has_resource) {
            (None, true) => Some(self.webhook_id.clone()),
            (r, _) => r.clone(),
        };
        json!({
            "id": self.id,
            "webhookId": self.webhook_id,
            "eventId": self.event_id,
            "resourceId": resource_id,
            "type": self.event,
            "createdAt": timestamp(self.created_at),
            "attempts": self.attempts,
        })
    }
}

impl Hooks {
    /// A fresh numeric webhook id (the seeded ones are 1001 and 1002).
    pub(crate) fn new_webhook_id(&mut self) -> String {
        self.next_webhook += 1;
        (2000 + self.next_webhook).to_string()
    }

    /// A fresh signing secret, `whsec_` and base64 of 24 random bytes; with `url_safe` (fault
    /// webhook-secret-base64url) the URL-safe alphabet without padding, as a token helper makes
    /// it, its first character always one of that alphabet's own (`-` or `_`).
    pub(crate) fn new_secret(&mut self, webhook_id: &str, url_safe: bool) -> String {
        let mut bytes: [u8; 24] = rand::random();
        let encoded = if url_safe {
            bytes[0] |= 0xf8;
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
        } else {
            base64::engine::general_purpose::STANDARD.encode(bytes)
        };
        let secret = format!("whsec_{encoded}");
        self.secrets.insert(webhook_id.to_string(), secret.clone());
        self.first_secrets
            .entry(webhook_id.to_string())
            .or_insert_with(|| secret.clone());
        secret
    }

    /// Gives a webhook the secret another was issued (fault webhook-secret-keyed-by-url: the
    /// secrets table is keyed by the endpoint url).
    pub(crate) fn share_secret(&mut self, webhook_id: &str, secret: &str) {
        self.secrets
            .insert(webhook_id.to_string(), secret.to_string());
    }

    pub fn secret(&self, webhook_id: &str) -> Option<&str> {
        self.secrets.get(webhook_id).map(String::as_str)
    }

    /// The secret deliveries are signed with: the current one, or with `first` the webhook's
    /// first (fault webhook-signs-with-first-secret).
    pub fn signing_secret(&self, webhook_id: &str, first: bool) -> Option<&str> {
        if first {
            self.first_secrets.get(webhook_id).map(String::as_str)
        } else {
            self.secret(webhook_id)
        }
    }

    /// A fresh occurrence of an event (see [`DeliveryRecord::occurrence`]).
    pub(super) fn new_occurrence(&mut self) -> u64 {
        self.next_occurrence += 1;
        self.next_occurrence
    }

    pub(super) fn new_delivery_id(&mut self) -> String {
        self.next_delivery += 1;
        format!("msg_{:016x}", 0x5eed_0000_0000 + self.next_delivery)
    }

    pub fn delivery(&self, webhook_id: &str, id: &str) -> Option<&DeliveryRecord> {
        self.deliveries
            .iter()
            .find(|d| d.webhook_id == webhook_id && d.id == id)
    }
}
