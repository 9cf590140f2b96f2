//! Sending deliveries: signed POSTs, asynchronous, in event order per webhook, retried.
//!
//! First attempts (events and test deliveries) go through one queue per webhook, worked by one
//! task, so a webhook receives its events in the order they happened. A failed attempt (no answer,
//! a timeout, a redirect or any non-2xx status) is retried automatically on its own task after
//! 0.5 s, 1 s and 2 s. A manual retry bumps the delivery's generation (dropping any automatic retry
//! still scheduled) and makes exactly one attempt. Every attempt of a delivery sends the same body
//! with the same `webhook-id` (the delivery id), a fresh `webhook-timestamp`, and a signature made
//! with the webhook's secret at the time of the attempt (plus one with the secret a rotation
//! replaced, during its grace period).

use std::sync::{Arc, OnceLock, Weak};
use std::time::Duration;

use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use super::{Attempt, DeliveryStatus, Inner};
use crate::app::App;

/// Delay from an event to the first attempt of its deliveries.
pub(crate) const INITIAL_DELAY: Duration = Duration::from_millis(400);
/// Delay from a test request to its delivery's first attempt.
pub(crate) const TEST_DELAY: Duration = Duration::from_millis(250);
/// Delay from a manual retry request to its attempt.
pub(crate) const MANUAL_DELAY: Duration = Duration::from_millis(200);
/// Waits before each automatic retry after a failed attempt (3 retries, 3.5 s in all).
pub(crate) const RETRY_DELAYS: [Duration; 3] = [
    Duration::from_millis(500),
    Duration::from_millis(1000),
    Duration::from_millis(2000),
];
/// Bound of one attempt (connect, send, answer).
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(4);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// Bytes of a receiver's answer kept in the history.
const MAX_RESPONSE_BODY: usize = 2048;
const USER_AGENT: &str = "second-implementation-webhooks/1.0 (+standard-webhooks)";

/// Why an attempt is made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trigger {
    /// The first attempt of an event's delivery.
    Initial,
    /// The first attempt of a test delivery.
    Test,
    /// An automatic retry after a failed attempt.
    Automatic,
    /// A retry asked for through the API.
    Manual,
}

impl Trigger {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Trigger::Initial => "initial",
            Trigger::Test => "test",
            Trigger::Automatic => "automatic-retry",
            Trigger::Manual => "manual-retry",
        }
    }
}

/// One attempt to make.
#[derive(Debug)]
pub(crate) struct Job {
    delivery_id: String,
    generation: u64,
    trigger: Trigger,
    /// How many automatic retries came before this attempt.
    retries_before: usize,
    due: tokio::time::Instant,
}

impl Job {
    pub(crate) fn new(
        delivery_id: String,
        generation: u64,
        trigger: Trigger,
        delay: Duration,
    ) -> Job {
        Job {
            delivery_id,
            generation,
            trigger,
            retries_before: 0,
            due: tokio::time::Instant::now() + delay,
        }
    }
}

/// Queues a first attempt on the webhook's worker (started on first use). Called with the
/// store locked, so jobs queue in the order their events happened.
pub(crate) fn enqueue_initial(app: &Arc<App>, inner: &mut Inner, webhook_id: &str, job: Job) {
    let job = match inner.queues.get(webhook_id) {
        Some(tx) => match tx.send(job) {
            Ok(()) => return,
            Err(e) => e.0,
        },
        None => job,
    };
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        // No runtime (never the case in a handler): the delivery stays pending.
        return;
    };
    let (tx, rx) = unbounded_channel();
    if tx.send(job).is_err() {
        return;
    }
    inner.queues.insert(webhook_id.to_string(), tx);
    handle.spawn(worker(Arc::downgrade(app), rx));
}

/// Runs one attempt on its own task (a manual retry), then its follow-ups.
pub(crate) fn spawn_single(app: &Arc<App>, job: Job) {
    if let Ok(handle) = tokio::runtime::Handle::try_current() {
        handle.spawn(drive(Arc::downgrade(app), job));
    }
}

/// The worker of one webhook's first attempts. Ends when the webhook (or the instance) is gone.
async fn worker(app: Weak<App>, mut rx: UnboundedReceiver<Job>) {
    while let Some(job) = rx.recv().await {
        tokio::time::sleep_until(job.due).await;
        let Some(strong) = app.upgrade() else { return };
        let next = attempt(&strong, &job).await;
        drop(strong);
        if let Some(next) = next {
            tokio::spawn(drive(app.clone(), next));
        }
    }
}

/// Makes `job` and every automatic retry it leads to.
async fn drive(app: Weak<App>, mut job: Job) {
    loop {
        tokio::time::sleep_until(job.due).await;
        let Some(strong) = app.upgrade() else { return };
        match attempt(&strong, &job).await {
            Some(next) => job = next,
            None => return,
        }
    }
}

/// What an attempt sends, taken under the lock.
struct Prepared {
    url: String,
    secret: String,
    /// A rotated-out secret still in its grace period: a second signature.
    previous: Option<String>,
    legacy: bool,
    payload: String,
    number: usize,
    /// The value of the `webhook-id` header (the delivery id; the event id under a fault).
    header_id: String,
    /// Fault: sign over the timestamp in milliseconds.
    sign_millis: bool,
}

/// One attempt: sends, records the answer, and returns the automatic retry to make, if any.
async fn attempt(app: &Arc<App>, job: &Job) -> Option<Job> {
    let prepared = {
        let mut inner = app.webhooks.lock();
        let inner = &mut *inner;
        let d = inner.deliveries.get_mut(&job.delivery_id)?;
        if d.generation != job.generation {
            return None;
        }
        let w = inner.webhooks.get(&d.webhook_id)?;
        if !w.enabled {
            d.status = DeliveryStatus::Cancelled;
            d.next_attempt_at = None;
            d.updated_at = super::now_rfc3339();
            return None;
        }
        Prepared {
            url: w.url.clone(),
            secret: w.secret.clone(),
            previous: w
                .previous_secret
                .as_ref()
                .filter(|p| p.until > std::time::Instant::now())
                .map(|p| p.secret.clone()),
            legacy: w.legacy.is_some(),
            payload: d.payload.clone(),
            number: d.attempts.len() + 1,
            header_id: match &d.event_id {
                Some(e) if app.faults.on("b16-webhooks-id-header-event-id") => e.clone(),
                _ => d.id.clone(),
            },
            sign_millis: app.faults.on("b16-webhooks-signature-millis"),
        }
    };
    let started_at = super::now_rfc3339();
    let t0 = std::time::Instant::now();
    let client = app.webhooks.client();
    let outcome = send(client, &prepared, &prepared.header_id).await;
    let duration_ms = t0.elapsed().as_millis().min(u64::MAX as u128) as u64;

    let mut inner = app.webhooks.lock();
    let d = inner.deliveries.get_mut(&job.delivery_id)?;
    let now = super::now_rfc3339();
    d.attempts.push(Attempt {
        number: prepared.number,
        trigger: job.trigger,
        started_at,
        duration_ms,
        url: prepared.url,
        status_code: outcome.status,
        response_body: outcome.body,
        response_truncated: outcome.truncated,
        error: outcome.error,
        succeeded: outcome.ok,
    });
    d.updated_at = now.clone();
    if outcome.ok {
        d.status = DeliveryStatus::Succeeded;
        d.delivered_at = Some(now);
        d.next_attempt_at = None;
        return None;
    }
    if d.generation != job.generation {
        // A manual retry took the delivery over; its own attempt decides the status.
        return None;
    }
    let automatic = matches!(
        job.trigger,
        Trigger::Initial | Trigger::Test | Trigger::Automatic
    ) && !app.faults.on("b16-webhooks-no-automatic-retry");
    if automatic && job.retries_before < RETRY_DELAYS.len() {
        let delay = RETRY_DELAYS[job.retries_before];
        d.status = DeliveryStatus::Retrying;
        d.next_attempt_at = Some(super::rfc3339_in(delay));
        return Some(Job {
            delivery_id: job.delivery_id.clone(),
            generation: job.generation,
            trigger: Trigger::Automatic,
            retries_before: job.retries_before + 1,
            due: tokio::time::Instant::now() + delay,
        });
    }
    d.status = DeliveryStatus::Failed;
    d.next_attempt_at = None;
    None
}

/// The answer of one attempt.
struct Outcome {
    ok: bool,
    status: Option<u16>,
    body: Option<String>,
    truncated: bool,
    error: Option<String>,
}

impl Outcome {
    fn error(message: impl Into<String>) -> Outcome {
        Outcome {
            ok: false,
            status: None,
            body: None,
            truncated: false,
            error: Some(message.into()),
        }
    }
}

/// The HTTP client of an instance: no proxy, no redirects followed, no pooled connections
/// (a receiver closing an idle connection never fails an attempt), bounded in time. TLS uses
/// rustls with the ring provider, installed once per process.
pub(crate) fn build_client() -> Result<reqwest::Client, String> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let base = || {
        reqwest::Client::builder()
            .timeout(ATTEMPT_TIMEOUT)
            .connect_timeout(CONNECT_TIMEOUT)
            .redirect(reqwest::redirect::Policy::none())
            .no_proxy()
            .pool_max_idle_per_host(0)
            .user_agent(USER_AGENT)
    };
    match std::panic::catch_unwind(|| base().build()) {
        Ok(Ok(c)) => Ok(c),
        // The platform's roots could not be loaded: plain http still works, https fails per attempt.
        Ok(Err(_)) => base()
            .tls_certs_only(Vec::new())
            .build()
            .map_err(|e| format!("no HTTP client: {e}")),
        Err(_) => Err("no HTTP client: the TLS provider is missing".to_string()),
    }
}

/// Sends one attempt.
async fn send(
    client: Result<&reqwest::Client, String>,
    p: &Prepared,
    delivery_id: &str,
) -> Outcome {
    let url = match reqwest::Url::parse(&p.url) {
        Ok(u) => u,
        Err(e) => return Outcome::error(format!("the webhook URL does not parse: {e}")),
    };
    if let Some(host) = url.host_str() {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        if host == "invalid" || host.ends_with(".invalid") {
            return Outcome::error(format!(
                "host `{host}` is under the reserved .invalid domain (RFC 6761) and never resolves"
            ));
        }
    }
    let client = match client {
        Ok(c) => c,
        Err(e) => return Outcome::error(e),
    };
    let ts = time::OffsetDateTime::now_utc().unix_timestamp();
    let mut req = client
        .post(url)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .body(p.payload.clone());
    if p.legacy {
        match legacy_signature(&p.secret, delivery_id, ts, &p.payload) {
            Ok(sig) => {
                req = req
                    .header("service-signature", sig)
                    .header("service-delivery-id", delivery_id)
            }
            Err(e) => return Outcome::error(e),
        }
    } else {
        let signed_ts = if p.sign_millis { ts * 1000 } else { ts };
        let sign = |secret: &str| {
            standardwebhooks::Webhook::new(secret)
                .and_then(|w| w.sign(delivery_id, signed_ts, p.payload.as_bytes()))
        };
        // The current secret's signature first; a rotated-out secret's after it, space-separated.
        let signature = sign(&p.secret).map(|current| match p.previous.as_deref().map(sign) {
            Some(Ok(old)) => format!("{current} {old}"),
            _ => current,
        });
        match signature {
            Ok(sig) => {
                req = req
                    .header("webhook-id", delivery_id)
                    .header("webhook-timestamp", ts.to_string())
                    .header("webhook-signature", sig)
            }
            Err(e) => return Outcome::error(format!("cannot sign: {e}")),
        }
    }
    let mut resp = match req.send().await {
        Ok(r) => r,
        Err(e) => return Outcome::error(describe(&e)),
    };
    let status = resp.status();
    let mut body: Vec<u8> = Vec::new();
    let mut truncated = false;
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                let room = MAX_RESPONSE_BODY.saturating_sub(body.len());
                if chunk.len() > room {
                    body.extend_from_slice(&chunk[..room]);
                    truncated = true;
                    break;
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            // The status arrived; a body cut short does not change the outcome.
            Err(_) => {
                truncated = true;
                break;
            }
        }
    }
    let ok = status.is_success();
    Outcome {
        ok,
        status: Some(status.as_u16()),
        body: Some(String::from_utf8_lossy(&body).into_owned()),
        truncated,
        error: if ok {
            None
        } else if status.is_redirection() {
            Some(format!(
                "the receiver answered {status}; redirects are not followed"
            ))
        } else {
            Some(format!("the receiver answered {status}"))
        },
    }
}

/// A short description of a transport failure.
fn describe(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        format!("timed out after {} s", ATTEMPT_TIMEOUT.as_secs())
    } else if e.is_connect() {
        "could not connect to the receiver".to_string()
    } else {
        format!("request failed: {e}")
    }
}

/// The legacy `Service-Signature` header: `hmac;1;{unix seconds};{base64 HMAC-SHA256}` of
/// `{delivery id}.{unix seconds}.{body}`, keyed with the base64-decoded legacy key.
fn legacy_signature(
    key: &str,
    delivery_id: &str,
    ts: i64,
    payload: &str,
) -> Result<String, String> {
    use base64::Engine;
    let raw = key.strip_prefix("lwk_").unwrap_or(key);
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(raw)
        .map_err(|e| format!("bad legacy key: {e}"))?;
    let signed = standardwebhooks::Webhook::from_bytes(bytes)
        .and_then(|w| w.sign(delivery_id, ts, payload.as_bytes()))
        .map_err(|e| format!("cannot sign: {e}"))?;
    let b64 = signed.split_once(',').map(|x| x.1).unwrap_or(&signed);
    Ok(format!("hmac;1;{ts};{b64}"))
}

/// The instance's client, built on first use.
pub(crate) fn client_of(
    cell: &OnceLock<Result<reqwest::Client, String>>,
) -> Result<&reqwest::Client, String> {
    cell.get_or_init(build_client)
        .as_ref()
        .map_err(|e| e.clone())
}
