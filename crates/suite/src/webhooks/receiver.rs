//! The receiver: an HTTP server on loopback (or `--webhook-listen`) that a target reaches at
//! `--webhook-url` (default: the bound address). Each case gets its own path,
//! `<base>/hooks/<run>/<case>`, so deliveries of concurrent cases never mix; a case may append
//! one more segment to tell several webhooks apart.
//!
//! The receiver is bounded, whoever reaches it (`--webhook-listen 0.0.0.0:...` exposes it):
//! - it accepts deliveries only on the paths of this run's live trials: a slot is opened by
//!   [`Receiver::open`] when a trial starts and closed when the trial ends (its [`Lease`] is
//!   dropped); any other path is answered 404 and its body is not read;
//! - a body over [`BODY_CAP`] is answered 413 and not kept (a `Content-Length` over the cap is
//!   refused before the body is read; a body without one is read up to the cap only);
//! - a trial keeps at most [`KEPT_BYTES_PER_TRIAL`] bytes of delivery bodies (all its paths
//!   together); the rest are answered as usual and counted, and the count shows in failure
//!   messages. A budget of bytes, not a count: a webhook on `*` sees every contact event of a
//!   whole concurrent run (dozens), and the one its case waits for must still be kept.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header::CONTENT_LENGTH};
use axum::routing::any;
use serde::Deserialize;
use time::OffsetDateTime;

/// The largest delivery body the receiver takes (256 KiB); a larger one is answered 413 and not
/// kept. Event payloads are envelopes of one resource, far below this.
pub const BODY_CAP: usize = 256 * 1024;

/// Bytes of delivery bodies kept per trial (4 MiB), all its paths together; later deliveries
/// are counted, not kept. Event payloads take about a kilobyte: thousands fit.
pub const KEPT_BYTES_PER_TRIAL: usize = 4 * 1024 * 1024;

/// Deliveries the run's log keeps (each with the head of its body): the HAR of a run holds each
/// delivery received, and a target that floods the receiver is counted beyond this, not kept.
pub const HEARD_KEPT: usize = 10_000;

/// Bytes of a delivery's body the run's log keeps.
pub const HEARD_BODY: usize = 2_000;

/// A request that reached the receiver, whatever it was answered (a delivery to a closed
/// trial, one over the cap): what the HAR shows of it.
#[derive(Debug, Clone)]
pub struct Heard {
    /// The path it came to (`/hooks/<run>/<case>[/<sub>]`).
    pub path: String,
    pub method: String,
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// The start of the body ([`HEARD_BODY`] bytes), when it was read.
    pub body: Bytes,
    /// The body's size in bytes, when it was read.
    pub size: Option<usize>,
    pub received_at: OffsetDateTime,
    /// How long the receiver took to answer.
    pub elapsed: Duration,
    /// The status the receiver answered.
    pub answered: u16,
    /// The trial whose path it came to (the case's name), when the path is a trial's.
    pub trial: Option<String>,
}

/// One answer of a case's script: a status, optionally after a pause (a slow receiver).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Answer {
    pub status: u16,
    #[serde(default)]
    pub delay_ms: u64,
}

/// One delivery as it arrived.
#[derive(Debug, Clone)]
pub struct Delivery {
    /// Header names lowercased, in arrival order.
    pub headers: Vec<(String, String)>,
    /// At most [`BODY_CAP`] bytes; shared, so copies of a delivery cost no body.
    pub body: Bytes,
    pub at: Instant,
    pub received_at: OffsetDateTime,
    /// The status the receiver answered.
    pub answered: u16,
    /// The body parsed, once, when first asked for ([`Delivery::json`]); shared by the copies.
    pub parsed: Arc<std::sync::OnceLock<Option<serde_json::Value>>>,
}

impl Delivery {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, when it is JSON: parsed once, however often the deliveries are
    /// polled and matched.
    pub fn json(&self) -> Option<&serde_json::Value> {
        self.parsed
            .get_or_init(|| serde_json::from_slice(&self.body).ok())
            .as_ref()
    }

    /// A one-line description for failure messages: time, id and a body excerpt.
    pub fn describe(&self) -> String {
        // Redacted before it is cut (a delivery may carry a secret); only the start of the body
        // is decoded.
        let start = &self.body[..self.body.len().min(16 * 1024)];
        let (cut, more) =
            crate::redact::Redactor::global().cut(&String::from_utf8_lossy(start), 300);
        let more = if more || self.body.len() > start.len() {
            " ..."
        } else {
            ""
        };
        let headers: Vec<String> = self
            .headers
            .iter()
            .filter(|(k, _)| k.starts_with("webhook-"))
            .map(|(k, v)| format!("{k}: {}", crate::redact::excerpt(v, 200)))
            .collect();
        format!(
            "[{}] answered {}; {}; body {cut}{more}",
            self.received_at
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            self.answered,
            if headers.is_empty() {
                "no webhook-* headers".to_string()
            } else {
                headers.join(", ")
            }
        )
    }
}

#[derive(Default)]
struct Slot {
    script: VecDeque<Answer>,
    /// Sub-path ("" for the case's own URL) -> deliveries in arrival order.
    deliveries: HashMap<String, Vec<Delivery>>,
    /// Body bytes kept, all sub-paths together (at most [`KEPT_BYTES_PER_TRIAL`]).
    kept: usize,
    /// Sub-path -> deliveries accepted but not kept, over the cap.
    not_kept: HashMap<String, usize>,
}

/// The running receiver, shared by every trial of a run.
pub struct Receiver {
    public_base: String,
    pub addr: SocketAddr,
    /// The live trials' slots, by `<run>/<case>`.
    slots: Mutex<HashMap<String, Slot>>,
    /// Every request that reached the receiver (at most [`HEARD_KEPT`], once
    /// [`Receiver::keep_every_delivery`] asks for them), and how many did.
    heard: Mutex<(Vec<Heard>, u64)>,
    /// Whether the requests that reach it are kept (for the HAR of the run), not only counted.
    keep_heard: std::sync::atomic::AtomicBool,
}

/// A trial's open slot at the receiver: closed (its deliveries dropped, its paths answered 404)
/// when the lease is dropped, whichever way the trial ends.
pub struct Lease {
    receiver: Arc<Receiver>,
    key: String,
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Ok(mut slots) = self.receiver.slots.lock() {
            slots.remove(&self.key);
        }
    }
}

impl Receiver {
    /// Binds `listen` and serves; `public_url` is the base a target is told (default: the bound
    /// address over http).
    pub async fn start(
        listen: SocketAddr,
        public_url: Option<&str>,
    ) -> std::io::Result<Arc<Receiver>> {
        let listener = tokio::net::TcpListener::bind(listen).await?;
        let addr = listener.local_addr()?;
        let public_base = public_url
            .map(|u| u.trim_end_matches('/').to_string())
            .unwrap_or_else(|| format!("http://{addr}"));
        let receiver = Arc::new(Receiver {
            public_base,
            addr,
            slots: Mutex::new(HashMap::new()),
            heard: Mutex::default(),
            keep_heard: std::sync::atomic::AtomicBool::new(false),
        });
        let app = Router::new()
            .route("/hooks/{slot}/{case}", any(receive_root))
            .route("/hooks/{slot}/{case}/{sub}", any(receive_sub))
            .fallback(|| async { StatusCode::NOT_FOUND })
            .with_state(receiver.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(receiver)
    }

    /// The base URL a target is told (`--webhook-url`, else the bound address over http).
    pub fn public_base(&self) -> &str {
        &self.public_base
    }

    /// The URL a case gives the target: `<base>/hooks/<run>/<case name>`.
    pub(crate) fn url_for(&self, run: &str, case: &str) -> String {
        format!("{}/hooks/{run}/{case}", self.public_base)
    }

    fn key(run: &str, case: &str) -> String {
        format!("{run}/{case}")
    }

    /// Opens the slot of a trial with its answer script (answers given in order; then 204 to
    /// everything): its paths take deliveries until the returned lease is dropped.
    pub fn open(self: &Arc<Self>, run: &str, case: &str, script: &[Answer]) -> Lease {
        self.prepare(run, case, script);
        Lease {
            receiver: self.clone(),
            key: Self::key(run, case),
        }
    }

    /// Opens (or resets) the slot of a trial; it stays open until [`Receiver::release`].
    pub fn prepare(&self, run: &str, case: &str, script: &[Answer]) {
        if let Ok(mut slots) = self.slots.lock() {
            slots.insert(
                Self::key(run, case),
                Slot {
                    script: script.iter().cloned().collect(),
                    ..Slot::default()
                },
            );
        }
    }

    /// Closes the slot of a trial: its deliveries are dropped and its paths answer 404.
    pub fn release(&self, run: &str, case: &str) {
        if let Ok(mut slots) = self.slots.lock() {
            slots.remove(&Self::key(run, case));
        }
    }

    /// Whether the trial's slot is open.
    pub fn is_open(&self, run: &str, case: &str) -> bool {
        self.slots
            .lock()
            .is_ok_and(|s| s.contains_key(&Self::key(run, case)))
    }

    /// Deliveries kept at a case's path so far (`sub` "" for the case's own URL).
    pub fn deliveries(&self, run: &str, case: &str, sub: &str) -> Vec<Delivery> {
        self.slots
            .lock()
            .ok()
            .and_then(|s| {
                s.get(&Self::key(run, case))
                    .and_then(|slot| slot.deliveries.get(sub).cloned())
            })
            .unwrap_or_default()
    }

    /// Deliveries accepted at a case's path but not kept: the trial had [`KEPT_BYTES_PER_TRIAL`].
    pub fn not_kept(&self, run: &str, case: &str, sub: &str) -> usize {
        self.slots
            .lock()
            .ok()
            .and_then(|s| {
                s.get(&Self::key(run, case))
                    .and_then(|slot| slot.not_kept.get(sub).copied())
            })
            .unwrap_or(0)
    }

    /// The requests that reached the receiver so far, in arrival order (at most
    /// [`HEARD_KEPT`]), and how many did in all.
    pub fn heard(&self) -> (Vec<Heard>, u64) {
        self.heard
            .lock()
            .map(|h| (h.0.clone(), h.1))
            .unwrap_or_default()
    }

    /// Keeps from now on every request that reaches the receiver, as [`Receiver::heard`] gives
    /// them (the HAR of the run); without it they are only counted (a run hears thousands).
    pub fn keep_every_delivery(&self) {
        self.keep_heard
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    fn hear(&self, heard: Heard) {
        let keep = self.keep_heard.load(std::sync::atomic::Ordering::Relaxed);
        if let Ok(mut h) = self.heard.lock() {
            h.1 += 1;
            if keep && h.0.len() < HEARD_KEPT {
                h.0.push(heard);
            }
        }
    }

    /// The next answer of an open slot; None when the slot is not open.
    fn next_answer(&self, key: &str) -> Option<Answer> {
        let mut slots = self.slots.lock().ok()?;
        let slot = slots.get_mut(key)?;
        Some(slot.script.pop_front().unwrap_or(Answer {
            status: 204,
            delay_ms: 0,
        }))
    }

    /// Keeps a delivery, or counts it when the trial has its fill; nothing when the slot closed
    /// meanwhile.
    fn record(&self, key: &str, sub: &str, delivery: Delivery) {
        let Ok(mut slots) = self.slots.lock() else {
            return;
        };
        let Some(slot) = slots.get_mut(key) else {
            return;
        };
        // Each delivery counts at least 1 byte, so empty bodies are bounded too.
        let cost = delivery.body.len().max(1);
        if slot.kept + cost > KEPT_BYTES_PER_TRIAL {
            *slot.not_kept.entry(sub.to_string()).or_default() += 1;
            return;
        }
        slot.kept += cost;
        slot.deliveries
            .entry(sub.to_string())
            .or_default()
            .push(delivery);
    }
}

async fn receive_root(
    State(r): State<Arc<Receiver>>,
    Path((slot, case)): Path<(String, String)>,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Body,
) -> StatusCode {
    receive(
        r,
        Receiver::key(&slot, &case),
        String::new(),
        method,
        headers,
        body,
    )
    .await
}

async fn receive_sub(
    State(r): State<Arc<Receiver>>,
    Path((slot, case, sub)): Path<(String, String, String)>,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Body,
) -> StatusCode {
    receive(r, Receiver::key(&slot, &case), sub, method, headers, body).await
}

/// Takes a request to a trial's path, and logs it with its answer, whatever that is.
async fn receive(
    r: Arc<Receiver>,
    key: String,
    sub: String,
    method: axum::http::Method,
    headers: HeaderMap,
    body: Body,
) -> StatusCode {
    let at = Instant::now();
    let received_at = OffsetDateTime::now_utc();
    let shown: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let (status, body) = take(&r, &key, &sub, shown.clone(), at, received_at, body).await;
    let path = if sub.is_empty() {
        format!("/hooks/{key}")
    } else {
        format!("/hooks/{key}/{sub}")
    };
    r.hear(Heard {
        path,
        method: method.to_string(),
        headers: shown,
        size: body.as_ref().map(Bytes::len),
        body: body.map_or_else(Bytes::new, |b| b.slice(..b.len().min(HEARD_BODY))),
        received_at,
        elapsed: at.elapsed(),
        answered: status.as_u16(),
        trial: key.split_once('/').map(|(_, case)| case.to_string()),
    });
    status
}

/// The receiver's answer to a request at a trial's path, and its body when it was read.
async fn take(
    r: &Receiver,
    key: &str,
    sub: &str,
    headers: Vec<(String, String)>,
    at: Instant,
    received_at: OffsetDateTime,
    body: Body,
) -> (StatusCode, Option<Bytes>) {
    // Not a live trial of this run: refused before the body is read.
    if !r.slots.lock().is_ok_and(|s| s.contains_key(key)) {
        return (StatusCode::NOT_FOUND, None);
    }
    let declared = headers
        .iter()
        .find(|(k, _)| k.as_str() == CONTENT_LENGTH.as_str())
        .and_then(|(_, v)| v.trim().parse::<u64>().ok());
    if declared.is_some_and(|n| n > BODY_CAP as u64) {
        return (StatusCode::PAYLOAD_TOO_LARGE, None);
    }
    let Ok(body) = axum::body::to_bytes(body, BODY_CAP).await else {
        // Over the cap (or cut off): nothing is kept.
        return (StatusCode::PAYLOAD_TOO_LARGE, None);
    };
    // The slot may have closed while the body came.
    let Some(answer) = r.next_answer(key) else {
        return (StatusCode::NOT_FOUND, Some(body));
    };
    if answer.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(answer.delay_ms)).await;
    }
    r.record(
        key,
        sub,
        Delivery {
            headers,
            body: body.clone(),
            at,
            received_at,
            answered: answer.status,
            parsed: Arc::default(),
        },
    );
    (
        StatusCode::from_u16(answer.status).unwrap_or(StatusCode::NO_CONTENT),
        Some(body),
    )
}
