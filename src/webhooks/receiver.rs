//! The receiver: an HTTP server on loopback (or `--webhook-listen`) that a target reaches at
//! `--webhook-url` (default: the bound address). Each case gets its own path,
//! `<base>/hooks/<run>/<case>`, so deliveries of concurrent cases never mix; a case may append
//! one more segment to tell several webhooks apart.

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::any;
use serde::Deserialize;
use time::OffsetDateTime;

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
    pub body: Vec<u8>,
    pub at: Instant,
    pub received_at: OffsetDateTime,
    /// The status the receiver answered.
    pub answered: u16,
}

impl Delivery {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as JSON, when it is JSON.
    pub fn json(&self) -> Option<serde_json::Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// A one-line description for failure messages: time, id and a body excerpt.
    pub fn describe(&self) -> String {
        let body = String::from_utf8_lossy(&self.body);
        let cut: String = body.chars().take(300).collect();
        let more = if body.chars().count() > 300 {
            " ..."
        } else {
            ""
        };
        let headers: Vec<String> = self
            .headers
            .iter()
            .filter(|(k, _)| k.starts_with("webhook-"))
            .map(|(k, v)| format!("{k}: {v}"))
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
}

/// The running receiver, shared by every trial of a run.
pub struct Receiver {
    public_base: String,
    pub addr: SocketAddr,
    slots: Mutex<HashMap<String, Slot>>,
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
        });
        let app = Router::new()
            .route("/hooks/{slot}/{case}", any(receive_root))
            .route("/hooks/{slot}/{case}/{sub}", any(receive_sub))
            .with_state(receiver.clone());
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Ok(receiver)
    }

    /// The URL a case gives the target: `<base>/hooks/<run>/<case name>`.
    pub fn url_for(&self, run: &str, case: &str) -> String {
        format!("{}/hooks/{run}/{case}", self.public_base)
    }

    fn key(run: &str, case: &str) -> String {
        format!("{run}/{case}")
    }

    /// Sets the answer script of a case (answers given in order; then 204 to everything).
    pub fn prepare(&self, run: &str, case: &str, script: &[Answer]) {
        if let Ok(mut slots) = self.slots.lock() {
            let slot = slots.entry(Self::key(run, case)).or_default();
            slot.script = script.iter().cloned().collect();
            slot.deliveries.clear();
        }
    }

    /// Deliveries of a case's path so far (`sub` "" for the case's own URL).
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

    fn next_answer(&self, key: &str) -> Answer {
        self.slots
            .lock()
            .ok()
            .and_then(|mut s| s.get_mut(key).and_then(|slot| slot.script.pop_front()))
            .unwrap_or(Answer {
                status: 204,
                delay_ms: 0,
            })
    }

    fn record(&self, key: &str, sub: &str, delivery: Delivery) {
        if let Ok(mut slots) = self.slots.lock() {
            slots
                .entry(key.to_string())
                .or_default()
                .deliveries
                .entry(sub.to_string())
                .or_default()
                .push(delivery);
        }
    }
}

async fn receive_root(
    State(r): State<Arc<Receiver>>,
    Path((slot, case)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    receive(r, Receiver::key(&slot, &case), String::new(), headers, body).await
}

async fn receive_sub(
    State(r): State<Arc<Receiver>>,
    Path((slot, case, sub)): Path<(String, String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    receive(r, Receiver::key(&slot, &case), sub, headers, body).await
}

async fn receive(
    r: Arc<Receiver>,
    key: String,
    sub: String,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let at = Instant::now();
    let received_at = OffsetDateTime::now_utc();
    let answer = r.next_answer(&key);
    if answer.delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(answer.delay_ms)).await;
    }
    let headers = headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    r.record(
        &key,
        &sub,
        Delivery {
            headers,
            body: body.to_vec(),
            at,
            received_at,
            answered: answer.status,
        },
    );
    StatusCode::from_u16(answer.status).unwrap_or(StatusCode::NO_CONTENT)
}
