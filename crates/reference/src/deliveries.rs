//! Webhook deliveries of the reference: events become signed deliveries (Standard Webhooks), sent
//! at once on a tokio task, retried with the same `webhook-id` after a failed answer, and kept in
//! the delivery history that `GET /webhooks/{id}/events` reads.

use std::time::Duration;

use base64::Engine;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::app::App;
use super::faults::Fault;
use super::hooks::{DeliveryRecord, Hooks};
use super::model::{Webhook, timestamp};
use super::store::Store;
use super::variants::Variant;

/// Attempts of one delivery, the first included (the schedule is open: READINGS 6.5).
pub(crate) const MAX_ATTEMPTS: usize = 3;
/// Pause before an automatic retry: short, so a run stays fast.
const RETRY_PAUSE: Duration = Duration::from_millis(60);
/// How long the reference waits for a receiver's answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(5);

/// A delivery to send: what the sending task needs without the store.
#[derive(Clone)]
pub(crate) struct Job {
    id: String,
    url: String,
    secret: String,
    payload: String,
    /// A test delivery (fault webhook-test-delivery-unsigned sends it unsigned).
    test: bool,
    /// The secret before the webhook's last rotate, which also signs (fault
    /// webhook-rotation-signatures-comma-joined).
    previous: Option<String>,
    /// Sent by the legacy worker, signed in `Service-Signature` (fault
    /// manual-retry-legacy-signature).
    legacy: bool,
}

impl Job {
    /// This job as the legacy worker sends it when `legacy` (fault manual-retry-legacy-signature).
    pub(crate) fn signed_legacy(mut self, legacy: bool) -> Job {
        self.legacy = legacy;
        self
    }
}

/// Fault call-events-batched-per-endpoint: the jobs of one transaction, one per endpoint: the
/// jobs going to the same webhook are sent as one delivery (the first one's id) whose body lists
/// their events.
pub(crate) fn batch(jobs: Vec<Job>) -> Vec<Job> {
    let mut groups: Vec<Vec<Job>> = Vec::new();
    for job in jobs {
        match groups
            .iter_mut()
            .find(|g| g[0].url == job.url && g[0].secret == job.secret)
        {
            Some(group) => group.push(job),
            None => groups.push(vec![job]),
        }
    }
    groups
        .into_iter()
        .filter_map(|group| {
            if group.len() == 1 {
                return group.into_iter().next();
            }
            let events: Vec<Value> = group
                .iter()
                .map(|j| serde_json::from_str(&j.payload).unwrap_or(Value::Null))
                .collect();
            let mut first = group.into_iter().next()?;
            first.payload = json!({"object": "list", "data": events}).to_string();
            Some(first)
        })
        .collect()
}

/// The family of an event name: `message` of `message.received`.
fn family(event: &str) -> &str {
    event.split('.').next().unwrap_or(event)
}

/// Whether a webhook subscribed to `events` takes an event of `phone_number_id` (None: not tied
/// to a number); `by_family` is fault webhook-events-matched-by-family.
#[allow(clippy::too_many_arguments)]
fn subscribed(
    w: &Webhook,
    events: &[String],
    event: &str,
    phone_number_id: Option<&str>,
    any_resource: bool,
    by_family: bool,
    wildcard_needs_number: bool,
    first_id_only: bool,
    status_ignored: bool,
) -> bool {
    let covers = |e: &String| e == event || (by_family && family(e) == family(event));
    // Fault webhook-disabled-still-delivered: the subscription query has no status condition.
    let enabled = w.status == "enabled" || status_ignored;
    if !enabled || !events.iter().any(covers) {
        return false;
    }
    // Fault webhook-wildcard-skips-unnumbered-events: `*` matches only events with a number.
    let wildcard = phone_number_id.is_some() || !wildcard_needs_number;
    // Fault webhook-scope-first-resource-id-only: `resource_ids[0] = ?`.
    let scoped = if first_id_only { 1 } else { usize::MAX };
    any_resource
        || (wildcard && w.resource_ids.iter().any(|r| r == "*"))
        || phone_number_id.is_some_and(|p| w.resource_ids.iter().take(scoped).any(|r| r == p))
}

/// Records a delivery of `event` to every webhook subscribed to it and its phone number.
/// Returns the jobs to [`dispatch`] once the store lock is released.
pub(crate) fn fire(
    app: &App,
    store: &mut Store,
    event: &str,
    phone_number_id: Option<&str>,
    resource_id: &str,
    resource: Value,
) -> Vec<Job> {
    let faults = &app.switches().faults;
    let any_resource = faults.has(Fault::WebhookEventIgnoresResource);
    let by_family = faults.has(Fault::WebhookEventsMatchedByFamily);
    let stale_events = faults.has(Fault::WebhookDeliveriesUseCreatedEvents);
    let first_secret = faults.has(Fault::WebhookSignsWithFirstSecret);
    let status_ignored = faults.has(Fault::WebhookDisabledStillDelivered);
    // Fault delivery-resource-id-from-context: the record's resource column is filled from the
    // routing context when the event has a phone number.
    let recorded_resource = match phone_number_id {
        Some(p) if faults.has(Fault::DeliveryResourceIdFromContext) => p,
        _ => resource_id,
    };
    // Fault delivery-resource-id-from-payload-id: the column read from data.resource.id.
    let recorded_resource = if faults.has(Fault::DeliveryResourceIdFromPayloadId) {
        resource
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
    } else {
        Some(recorded_resource.to_string())
    };
    // Fault delivery-resource-id-external-id: a contact's natural key recorded as its resource.
    let recorded_resource =
        if event.starts_with("contact.") && faults.has(Fault::DeliveryResourceIdExternalId) {
            resource
                .get("externalId")
                .and_then(Value::as_str)
                .map(str::to_string)
        } else {
            recorded_resource
        };
    // Fault webhook-scope-matched-on-number: resourceIds compared with the E.164 number.
    let scope: Option<String> = match phone_number_id {
        Some(p) if faults.has(Fault::WebhookScopeMatchedOnNumber) => store
            .messaging
            .line_by_id(p)
            .map(|l| l.number.to_string())
            .or_else(|| store.workspace().number(p).map(|n| n.number.clone())),
        other => other.map(str::to_string),
    };
    // Fault webhook-delete-keeps-delivering: deleted webhooks stay in the subscription cache.
    let stale: &[Webhook] = if faults.has(Fault::WebhookDeleteKeepsDelivering) {
        &store.hooks.deleted_webhooks
    } else {
        &[]
    };
    let targets: Vec<Webhook> = store
        .webhooks()
        .iter()
        .chain(stale)
        .filter(|w| {
            // Fault webhook-deliveries-use-created-events: the events cached at creation.
            let events = store
                .hooks
                .created_events
                .get(&w.id)
                .filter(|_| stale_events)
                .unwrap_or(&w.events);
            subscribed(
                w,
                events,
                event,
                scope.as_deref(),
                any_resource,
                by_family,
                faults.has(Fault::WebhookWildcardSkipsUnnumberedEvents),
                faults.has(Fault::WebhookScopeFirstResourceIdOnly),
                status_ignored,
            )
            // Fault webhook-scope-passes-unnumbered-events: `phone_number_id IS NULL OR ...`.
            || (scope.is_none()
                && faults.has(Fault::WebhookScopePassesUnnumberedEvents)
                && subscribed(w, events, event, None, true, by_family, false, false, status_ignored))
        })
        .cloned()
        .collect();
    // Fault webhook-dispatch-first-subscription-only: the index holds one subscriber per key.
    let mut targets = targets;
    if faults.has(Fault::WebhookDispatchFirstSubscriptionOnly) {
        targets.truncate(1);
    }
    let mut jobs = Vec::new();
    // Fault delivery-history-cache-misses-tests: recording an event's deliveries is the one write
    // that clears the history cache.
    if !targets.is_empty() {
        store.hooks.history_cache.clear();
    }
    let occurrence = store.hooks.new_occurrence();
    for w in targets {
        let now = OffsetDateTime::now_utc();
        let hooks = &mut store.hooks;
        let mut id = hooks.new_delivery_id();
        // Fault delivery-id-from-resource: the id, meant as an idempotency key, is a hash of the
        // webhook and the primary resource.
        if faults.has(Fault::DeliveryIdFromResource) {
            id = format!("msg_{:016x}", fnv1a(&format!("{}/{resource_id}", w.id)));
        }
        let event_id = format!("EV{}", &id[4..]);
        let mut payload = json!({
            "id": event_id,
            "object": "event",
            "apiVersion": w.api_version,
            "createdAt": timestamp(now),
            "type": event,
            "data": {
                "resource": resource,
                "context": {"phoneNumberId": phone_number_id},
                "links": {"webhook": format!("/webhooks/{}", w.id)},
            },
        });
        // Fault event-resource-double-encoded: the resource column is text, serialized again.
        if faults.has(Fault::EventResourceDoubleEncoded) {
            payload["data"]["resource"] = Value::String(resource.to_string());
        }
        if app.switches().faults.has(Fault::EventsWithoutLinks) {
            if let Some(data) = payload.get_mut("data").and_then(Value::as_object_mut) {
                data.remove("links");
            }
        }
        // Fault event-context-omitted-when-empty: a context without values is not serialized.
        if phone_number_id.is_none() && faults.has(Fault::EventContextOmittedWhenEmpty) {
            if let Some(data) = payload.get_mut("data").and_then(Value::as_object_mut) {
                data.remove("context");
            }
        }
        // Fault task-events-envelope-flattened: the v0 publisher puts data's members on top.
        if event.starts_with("task.") && faults.has(Fault::TaskEventsEnvelopeFlattened) {
            flatten_data(&mut payload);
        }
        let payload = payload.to_string();
        jobs.extend(record(
            hooks,
            &w,
            id,
            Some(event_id),
            recorded_resource.clone(),
            event,
            payload,
            first_secret,
            Some(occurrence),
        ));
    }
    if faults.has(Fault::DeliveriesRelayedOnNextEvent) {
        return relayed_late(store, jobs, first_secret);
    }
    jobs
}

/// Fault deliveries-relayed-on-next-event: the relay is woken by this event's insert and sends
/// what the events before it recorded; this event's deliveries wait for the next one.
fn relayed_late(store: &mut Store, jobs: Vec<Job>, first_secret: bool) -> Vec<Job> {
    let waiting = std::mem::replace(
        &mut store.hooks.relay_pending,
        jobs.into_iter().map(|j| j.id).collect(),
    );
    waiting
        .iter()
        .filter_map(|id| store.hooks.deliveries.iter().find(|d| &d.id == id).cloned())
        .filter_map(|record| again(store, &record, first_secret))
        .collect()
}

/// Fault task-events-envelope-flattened: `data`'s members moved to the top of the payload.
fn flatten_data(payload: &mut Value) {
    let Some(o) = payload.as_object_mut() else {
        return;
    };
    if let Some(Value::Object(data)) = o.remove("data") {
        o.extend(data);
    }
}

/// FNV-1a of a text (fault delivery-id-from-resource).
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h: u64, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Records a test delivery to one webhook (eventId and resourceId null); `first_secret` is fault
/// webhook-signs-with-first-secret.
pub(crate) fn fire_test(store: &mut Store, webhook: &Webhook, first_secret: bool) -> Vec<Job> {
    let hooks = &mut store.hooks;
    let id = hooks.new_delivery_id();
    let payload = json!({
        "object": "event",
        "type": "webhook.test",
        "apiVersion": webhook.api_version,
        "createdAt": timestamp(OffsetDateTime::now_utc()),
        "data": {"resource": {"webhookId": webhook.id}, "context": {}, "links": {}},
    })
    .to_string();
    record(
        hooks,
        webhook,
        id,
        None,
        None,
        "webhook.test",
        payload,
        first_secret,
        None,
    )
    .into_iter()
    .map(|job| Job { test: true, ..job })
    .collect()
}

#[allow(clippy::too_many_arguments)]
fn record(
    hooks: &mut Hooks,
    w: &Webhook,
    id: String,
    event_id: Option<String>,
    resource_id: Option<String>,
    event: &str,
    payload: String,
    first_secret: bool,
    occurrence: Option<u64>,
) -> Option<Job> {
    hooks.deliveries.push(DeliveryRecord {
        id: id.clone(),
        webhook_id: w.id.clone(),
        event_id,
        resource_id,
        event: event.to_string(),
        payload: payload.clone(),
        created_at: OffsetDateTime::now_utc(),
        attempts: Vec::new(),
        occurrence,
    });
    let secret = hooks.signing_secret(&w.id, first_secret)?.to_string();
    Some(Job {
        id,
        url: delivery_url(hooks, w),
        secret,
        payload,
        test: false,
        previous: hooks.previous_secrets.get(&w.id).cloned(),
        legacy: false,
    })
}

/// Where a webhook's deliveries go: its url, or the one it was created with when fault
/// webhook-deliveries-use-created-url cached it.
fn delivery_url(hooks: &Hooks, w: &Webhook) -> String {
    hooks
        .created_urls
        .get(&w.id)
        .cloned()
        .unwrap_or_else(|| w.url.clone())
}

/// The job of a manual retry: the recorded delivery, sent again with the webhook's current secret
/// (its first with `first_secret`, fault webhook-signs-with-first-secret).
pub(crate) fn again(store: &Store, record: &DeliveryRecord, first_secret: bool) -> Option<Job> {
    let w = store.webhook(&record.webhook_id)?;
    Some(Job {
        id: record.id.clone(),
        url: delivery_url(&store.hooks, w),
        secret: store.hooks.signing_secret(&w.id, first_secret)?.to_string(),
        payload: record.payload.clone(),
        test: false,
        previous: store.hooks.previous_secrets.get(&w.id).cloned(),
        legacy: false,
    })
}

/// Fault manual-retry-new-delivery: a manual retry inserts a new delivery (a new id, the same
/// event and payload) and sends that one.
pub(crate) fn again_as_new(
    store: &mut Store,
    retried: &DeliveryRecord,
    first_secret: bool,
) -> Option<(DeliveryRecord, Job)> {
    let w = store.webhook(&retried.webhook_id)?.clone();
    let hooks = &mut store.hooks;
    let id = hooks.new_delivery_id();
    let job = record(
        hooks,
        &w,
        id,
        retried.event_id.clone(),
        retried.resource_id.clone(),
        &retried.event,
        retried.payload.clone(),
        first_secret,
        retried.occurrence,
    )?;
    let added = hooks.deliveries.last()?.clone();
    Some((added, job))
}

/// Sends each job on a task of its own.
pub(crate) fn dispatch(app: &App, jobs: Vec<Job>) {
    for job in jobs {
        let app = app.clone();
        tokio::spawn(async move { deliver(app, job).await });
    }
}

async fn deliver(app: App, job: Job) {
    let faults = app.switches().faults.clone();
    let delayed = app.switches().variant(Variant::WebhookDeliveryDelay);
    if delayed {
        tokio::time::sleep(Duration::from_millis(400)).await;
    }
    for attempt in 0..MAX_ATTEMPTS {
        if attempt > 0 {
            let pause = if delayed {
                RETRY_PAUSE * 8
            } else {
                RETRY_PAUSE
            };
            tokio::time::sleep(pause).await;
        }
        let msg_id = if attempt > 0 && faults.has(Fault::WebhookRetryNewId) {
            format!("{}-r{attempt}", job.id)
        } else {
            job.id.clone()
        };
        let now_ms = (OffsetDateTime::now_utc().unix_timestamp_nanos() / 1_000_000) as i64;
        let mut ts = now_ms.div_euclid(1000);
        // Fault webhook-timestamp-milliseconds: the timestamp taken from a milliseconds clock.
        if faults.has(Fault::WebhookTimestampMilliseconds) {
            ts = now_ms;
        }
        if faults.has(Fault::WebhookStaleTimestamp) {
            ts -= 600;
        }
        // Fault webhook-signature-timestamp-rounded: the signer rounds the milliseconds to the
        // nearest second where the header floors them.
        let signed_ts = if faults.has(Fault::WebhookSignatureTimestampRounded) {
            (now_ms + 500).div_euclid(1000)
        } else {
            ts
        };
        // Fault delivery-retry-rerenders-payload: a retry renders the event again.
        let job = if attempt > 0 && faults.has(Fault::DeliveryRetryRerendersPayload) {
            rerendered(&job, attempt)
        } else {
            job.clone()
        };
        let mut req = app
            .delivery_client()
            .post(&job.url)
            .timeout(ANSWER_TIMEOUT)
            .header("content-type", "application/json")
            .header("webhook-id", &msg_id)
            .header(timestamp_header(&faults), ts.to_string());
        // Fault webhook-test-delivery-unsigned: the test path's client has no signing step.
        let unsigned_test = job.test && faults.has(Fault::WebhookTestDeliveryUnsigned);
        // Fault manual-retry-legacy-signature: the legacy worker's own signature header.
        if job.legacy {
            req = req.header("Service-Signature", legacy_signature(&job));
        } else if !faults.has(Fault::WebhookUnsigned) && !unsigned_test {
            // Fault webhook-retry-signs-job-id: the retry job signs its own id, not the header's.
            let signed_id = if attempt > 0 && faults.has(Fault::WebhookRetrySignsJobId) {
                format!("{}-r{attempt}", job.id)
            } else if let Some(event_id) =
                payload_id(&job.payload).filter(|_| faults.has(Fault::WebhookSignsEventId))
            {
                // Fault webhook-signs-event-id: the signer takes the event's id.
                event_id
            } else {
                msg_id.clone()
            };
            let mut signed = signature(&job, &signed_id, signed_ts, &faults);
            // Fault test-delivery-signature-hex: the console's helper writes the digest in hex.
            if job.test && faults.has(Fault::TestDeliverySignatureHex) {
                signed = hex_signature(&job, &signed_id, signed_ts);
            }
            // Fault webhook-rotation-signatures-comma-joined: the previous secret's signature
            // first, joined with a comma where Standard Webhooks puts a space.
            if let Some(previous) = &job.previous {
                let old = Job {
                    secret: previous.clone(),
                    ..job.clone()
                };
                signed = format!(
                    "{},{signed}",
                    signature(&old, &signed_id, signed_ts, &faults)
                );
            }
            req = req.header("webhook-signature", signed);
        }
        // Fault delivery-retry-body-consumed: the payload stream was read by the first attempt.
        let body = if attempt > 0 && faults.has(Fault::DeliveryRetryBodyConsumed) {
            String::new()
        } else {
            job.payload.clone()
        };
        let answer = req.body(body).send().await;
        let status = answer.as_ref().ok().map(|r| r.status().as_u16());
        {
            let mut store = app.store();
            if let Some(d) = store.hooks.deliveries.iter_mut().find(|d| d.id == job.id) {
                d.attempts.push(json!({
                    "attemptedAt": timestamp(OffsetDateTime::now_utc()),
                    "webhookId": msg_id,
                    "responseStatus": status,
                }));
            }
            // Fault delivery-retry-duplicates-record: every retry inserts the delivery again.
            if attempt > 0 && faults.has(Fault::DeliveryRetryDuplicatesRecord) {
                let again = store
                    .hooks
                    .deliveries
                    .iter()
                    .find(|d| d.id == job.id)
                    .cloned();
                store.hooks.deliveries.extend(again);
            }
        }
        // Fault delivery-success-only-200: success is exactly 200.
        let delivered = if faults.has(Fault::DeliverySuccessOnly200) {
            status == Some(200)
        } else {
            status.is_some_and(|s| (200..300).contains(&s))
        };
        if delivered || faults.has(Fault::WebhookNoRetry) {
            return;
        }
    }
}

/// The name of the timestamp header; fault webhook-timestamp-header-underscore spells it like
/// its environment variable.
fn timestamp_header(faults: &super::faults::FaultSet) -> &'static str {
    if faults.has(Fault::WebhookTimestampHeaderUnderscore) {
        "webhook_timestamp"
    } else {
        "webhook-timestamp"
    }
}

/// Fault manual-retry-legacy-signature: the legacy scheme's `Service-Signature`, the hex
/// HMAC-SHA256 of the body under the secret's key.
fn legacy_signature(job: &Job) -> String {
    let key = job
        .secret
        .strip_prefix("whsec_")
        .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
        .unwrap_or_default();
    hmac_sha256::HMAC::mac(job.payload.as_bytes(), &key)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Fault test-delivery-signature-hex: the Standard Webhooks content and key, the digest in hex.
fn hex_signature(job: &Job, msg_id: &str, ts: i64) -> String {
    let key = job
        .secret
        .strip_prefix("whsec_")
        .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
        .unwrap_or_default();
    let content = format!("{msg_id}.{ts}.{}", job.payload);
    let mac = hmac_sha256::HMAC::mac(content.as_bytes(), &key);
    format!("v1,{}", super::quirks::hex(&mac))
}

/// The `id` of a payload (an event's; test payloads have none).
fn payload_id(payload: &str) -> Option<String> {
    serde_json::from_str::<Value>(payload)
        .ok()?
        .get("id")?
        .as_str()
        .map(str::to_string)
}

/// Fault delivery-retry-rerenders-payload: the job of a retry with the event rendered again, a
/// new payload id and createdAt (the stored payload, and the record's eventId, keep the first).
fn rerendered(job: &Job, attempt: usize) -> Job {
    let mut again = job.clone();
    if let Ok(mut payload) = serde_json::from_str::<Value>(&job.payload) {
        if let Some(id) = payload.get("id").and_then(Value::as_str) {
            let fresh: u32 = rand::random();
            payload["id"] = json!(format!("{id}{attempt:x}{fresh:08x}"));
        }
        payload["createdAt"] = json!(timestamp(OffsetDateTime::now_utc()));
        again.payload = payload.to_string();
    }
    again
}

fn signature(job: &Job, msg_id: &str, ts: i64, faults: &super::faults::FaultSet) -> String {
    let signed = signature_of(job, msg_id, ts, faults);
    // Fault webhook-signature-equals-separator: another provider's `v1=` syntax.
    if faults.has(Fault::WebhookSignatureEqualsSeparator) {
        return signed.replacen("v1,", "v1=", 1);
    }
    signed
}

fn signature_of(job: &Job, msg_id: &str, ts: i64, faults: &super::faults::FaultSet) -> String {
    if faults.has(Fault::WebhookMalformedSignature) {
        return "v1,not a base64 signature!".to_string();
    }
    let secret = if faults.has(Fault::WebhookWrongSecret) {
        // A well-formed secret of its own, not the webhook's.
        let bytes: [u8; 24] = rand::random();
        format!(
            "whsec_{}",
            base64::engine::general_purpose::STANDARD.encode(bytes)
        )
    } else {
        job.secret.clone()
    };
    // Fault webhook-secret-base64url: the secret's key is the URL-safe decoding of its text,
    // which the standard signer cannot read.
    if faults.has(Fault::WebhookSecretBase64Url) {
        let key = secret
            .strip_prefix("whsec_")
            .and_then(|s| {
                base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .decode(s)
                    .ok()
            })
            .unwrap_or_default();
        let content = format!("{msg_id}.{ts}.{}", job.payload);
        let mac = hmac_sha256::HMAC::mac(content.as_bytes(), &key);
        return format!(
            "v1,{}",
            base64::engine::general_purpose::STANDARD.encode(mac)
        );
    }
    // Fault webhook-signs-undecoded-secret: the HMAC key is the secret's text, not its bytes.
    if faults.has(Fault::WebhookSignsUndecodedSecret) {
        let content = format!("{msg_id}.{ts}.{}", job.payload);
        let mac = hmac_sha256::HMAC::mac(content.as_bytes(), secret.as_bytes());
        return format!(
            "v1,{}",
            base64::engine::general_purpose::STANDARD.encode(mac)
        );
    }
    let Ok(signer) = standardwebhooks::Webhook::new(&secret) else {
        return String::new();
    };
    if faults.has(Fault::WebhookSignedBodyOnly) {
        let key = job
            .secret
            .strip_prefix("whsec_")
            .and_then(|s| base64::engine::general_purpose::STANDARD.decode(s).ok())
            .unwrap_or_default();
        let mac = hmac_sha256::HMAC::mac(job.payload.as_bytes(), &key);
        return format!(
            "v1,{}",
            base64::engine::general_purpose::STANDARD.encode(mac)
        );
    }
    // Fault webhook-signs-pretty-body: the signer serializes the payload again, pretty-printed,
    // while the body sent is the compact text.
    if faults.has(Fault::WebhookSignsPrettyBody) {
        let pretty = serde_json::from_str::<Value>(&job.payload)
            .ok()
            .and_then(|v| serde_json::to_string_pretty(&v).ok())
            .unwrap_or_else(|| job.payload.clone());
        return signer
            .sign(msg_id, ts, pretty.as_bytes())
            .unwrap_or_default();
    }
    signer
        .sign(msg_id, ts, job.payload.as_bytes())
        .unwrap_or_default()
}
