//! The HTTP exchange: one reqwest client for the run, auth and version headers, a timeout and a
//! body-size cap on every request, every exchange recorded, secrets redacted, curl rendering.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::Value;

pub use crate::redact::{API_KEY_PLACEHOLDER, Redactor, SECRET_PLACEHOLDER};

/// Characters escaped inside one path segment.
const SEGMENT: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'<')
    .add(b'>')
    .add(b'?')
    .add(b'`')
    .add(b'{')
    .add(b'}')
    .add(b'/')
    .add(b'%');

/// Which credentials a request carries.
#[derive(Debug, Clone)]
pub enum Auth {
    /// The run's API key.
    Primary,
    /// No `Authorization` header.
    None,
    /// Another key (a fixture, or a made-up invalid key), shown as `label` in reproductions.
    Key { key: String, label: String },
}

/// A request to send.
#[derive(Debug, Clone)]
pub struct Outgoing {
    pub method: String,
    /// Path segments, each sent percent-encoded.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub headers: Vec<(String, String)>,
    pub body: Option<Value>,
    pub auth: Auth,
}

/// Why no complete answer came back. Each reason names the misbehaviour.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TransportError {
    /// Nothing (or no complete status line and headers) within the timeout.
    #[error("no answer within the timeout of {}", secs(*.0))]
    Timeout(Duration),
    /// The headers came but the body did not end within the timeout (stalled or trickling).
    #[error(
        "the body was not complete within the timeout of {} ({received} bytes received)",
        secs(*.timeout)
    )]
    BodyTimeout { timeout: Duration, received: usize },
    #[error("cannot connect: {0}")]
    Connect(String),
    /// The body is larger than `--max-body`: announced by `Content-Length`, or cut off while
    /// streaming as soon as it passed the cap (never read whole).
    #[error("body over the size cap of {cap} bytes ({})", match declared {
        Some(n) => format!("Content-Length {n}"),
        None => format!("cut off after {received} bytes"),
    })]
    BodyTooLarge {
        cap: usize,
        declared: Option<u64>,
        received: usize,
    },
    /// The peer reset the connection; `received` body bytes had come when it did.
    #[error("connection reset by peer{}", match received {
        Some(n) => format!(" after {n} body bytes"),
        None => String::new(),
    })]
    Reset { received: Option<usize> },
    /// The connection was closed after the request went out and before any byte of an answer.
    /// The target may have read the request, so it is never sent again.
    #[error(
        "the connection was closed before any answer: the request was sent and is not sent again ({0})"
    )]
    ClosedBeforeAnswer(String),
    /// The connection ended before the body was complete (short chunked or Content-Length body).
    #[error("the body was cut off after {received} bytes: {detail}")]
    Truncated { received: usize, detail: String },
    #[error("the connection failed: {0}")]
    Other(String),
}

/// A duration as the user gave it: `2 s`, `1.5 s`.
fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// An answer, with its body parsed as JSON when it is JSON.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The whole body while the answer is being checked; empty once the exchange is recorded
    /// ([`Exchange::recorded`]).
    pub body: Vec<u8>,
    /// The body's length as received.
    pub size: usize,
    /// `None` for an empty body; `Some(Err)` says why a body is not JSON. `None` once recorded.
    pub json: Option<Result<Value, String>>,
    /// Names (lower case) of headers whose value is not UTF-8; `headers` holds them lossily.
    pub non_utf8_headers: Vec<String>,
    /// The start of the body as text, redacted before it was cut ([`EXCERPT_CHARS`] at most):
    /// all that the reports keep of a body.
    pub excerpt: String,
    /// Whether the excerpt is shorter than the body.
    pub excerpt_cut: bool,
}

/// Characters of a body kept for the reports.
pub const EXCERPT_CHARS: usize = 2000;

/// A body at least this large holds the run's large-answer gate while its trial runs.
pub const LARGE_BODY: usize = 1 << 20;
/// Trials that may hold large answers (parsed, they take ten times their size) at once.
pub const LARGE_BODY_TRIALS: usize = 1;

static LARGE_GATE: std::sync::LazyLock<Arc<tokio::sync::Semaphore>> =
    std::sync::LazyLock::new(|| Arc::new(tokio::sync::Semaphore::new(LARGE_BODY_TRIALS)));

tokio::task_local! {
    /// The large-answer permit of the trial running on this task, once it needed one.
    static LARGE_PERMIT: std::cell::RefCell<Option<tokio::sync::OwnedSemaphorePermit>>;
}

/// Runs one trial's future with its own slot for the large-answer permit: a trial takes the
/// permit at its first answer over [`LARGE_BODY`] and keeps it to its end, so at most
/// [`LARGE_BODY_TRIALS`] trials hold large answers at once (each waits holding none: no
/// deadlock), and memory stays bounded whatever the target answers.
pub async fn with_large_body_slot<F: std::future::Future>(f: F) -> F::Output {
    LARGE_PERMIT.scope(std::cell::RefCell::new(None), f).await
}

/// A large body is parsed on one thread of its own: the parsed value's memory then comes from
/// that thread's allocator arena and goes back to it when the value is dropped (on any thread),
/// to be reused by the next large body, instead of each trial thread keeping its own peak.
async fn parse_large(
    chunks: Vec<bytes::Bytes>,
    encoding: Option<String>,
) -> (Vec<u8>, Option<Result<Value, String>>) {
    type Parsed = (Vec<u8>, Option<Result<Value, String>>);
    type Job = (
        Vec<bytes::Bytes>,
        Option<String>,
        tokio::sync::oneshot::Sender<Parsed>,
    );
    static PARSER: std::sync::LazyLock<Option<std::sync::Mutex<std::sync::mpsc::Sender<Job>>>> =
        std::sync::LazyLock::new(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("large-body-parser".into())
                .spawn(move || {
                    // Ends when the process does (the sender is static).
                    while let Ok((chunks, encoding, reply)) = rx.recv() {
                        let body = chunks.concat();
                        drop(chunks);
                        let json = parse_answer(&body, encoding.as_deref());
                        let _ = reply.send((body, json));
                    }
                })
                .ok()
                .map(|_| std::sync::Mutex::new(tx))
        });
    let (reply, answer) = tokio::sync::oneshot::channel();
    let sent = match PARSER.as_ref().and_then(|tx| tx.lock().ok()) {
        Some(tx) => tx.send((chunks, encoding, reply)),
        None => Err(std::sync::mpsc::SendError((chunks, encoding, reply))),
    };
    match sent {
        Ok(()) => answer
            .await
            .unwrap_or_else(|_| (Vec::new(), Some(Err("the body could not be parsed".into())))),
        // No parser thread: parse here.
        Err(std::sync::mpsc::SendError((chunks, encoding, _))) => {
            let body = chunks.concat();
            let json = parse_answer(&body, encoding.as_deref());
            (body, json)
        }
    }
}

/// `None` for a body of only whitespace, else the body parsed as JSON or why it is not JSON.
fn parse_answer(body: &[u8], encoding: Option<&str>) -> Option<Result<Value, String>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        Some(parse_body(body, encoding))
    }
}

/// Waits for the large-answer permit unless this trial holds it. Outside a trial (the probe,
/// the cleanup) the permit is held by the caller for the one answer.
async fn large_body_permit() -> Option<tokio::sync::OwnedSemaphorePermit> {
    match LARGE_PERMIT.try_with(|p| p.borrow().is_some()) {
        Ok(true) => None,
        Ok(false) => {
            let permit = LARGE_GATE.clone().acquire_owned().await.ok()?;
            let _ = LARGE_PERMIT.try_with(|p| *p.borrow_mut() = Some(permit));
            None
        }
        Err(_) => LARGE_GATE.clone().acquire_owned().await.ok(),
    }
}

impl Response {
    /// The first value of a header (names compare case-insensitively).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The parsed JSON body, if it is JSON.
    pub fn value(&self) -> Option<&Value> {
        self.json.as_ref().and_then(|r| r.as_ref().ok())
    }
}

/// One request and what came back, as recorded for checks, explanations and reports.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub method: String,
    /// The path as sent, without the query.
    pub path: String,
    /// Full URL with the query.
    pub url: String,
    /// Request headers as shown (credentials replaced by placeholders).
    pub request_headers: Vec<(String, String)>,
    pub request_body: Option<String>,
    pub outcome: Result<Response, TransportError>,
    pub elapsed: Duration,
}

/// Settings of the client.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    pub base_url: String,
    pub api_key: Option<String>,
    pub timeout: Duration,
    pub max_body_bytes: usize,
    /// Most requests per second, shared by every trial (`None`: no limit).
    pub rate: Option<f64>,
}

/// One limiter shared by every request of the run: requests leave at most `rate` a second,
/// each at its own slot (retries of a 429 take a slot too).
#[derive(Debug)]
pub struct RateLimiter {
    interval: Duration,
    next: tokio::sync::Mutex<Option<tokio::time::Instant>>,
}

impl RateLimiter {
    pub fn new(per_second: f64) -> RateLimiter {
        RateLimiter {
            interval: Duration::from_secs_f64(1.0 / per_second.max(1e-3)),
            next: tokio::sync::Mutex::new(None),
        }
    }

    /// Waits for the next free slot.
    pub async fn acquire(&self) {
        let at = {
            let mut next = self.next.lock().await;
            let now = tokio::time::Instant::now();
            let at = next.map_or(now, |n| n.max(now));
            *next = Some(at + self.interval);
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

/// A connector layer that counts the connections the client opens.
#[derive(Clone)]
struct CountConnections(Arc<AtomicU64>);

impl<S> tower_layer::Layer<S> for CountConnections {
    type Service = Counted<S>;
    fn layer(&self, inner: S) -> Counted<S> {
        Counted {
            inner,
            count: self.0.clone(),
        }
    }
}

#[derive(Clone)]
struct Counted<S> {
    inner: S,
    count: Arc<AtomicU64>,
}

impl<S: tower_service::Service<R>, R> tower_service::Service<R> for Counted<S> {
    type Response = S::Response;
    type Error = S::Error;
    type Future = S::Future;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: R) -> S::Future {
        self.count.fetch_add(1, Ordering::Relaxed);
        self.inner.call(req)
    }
}

/// The run's HTTP client; cheap to share (`Arc`).
pub struct Client {
    /// Keeps connections open between requests.
    http: reqwest::Client,
    /// Opens a connection per request: used once the target is seen closing connections after
    /// its answers without saying so (`Connection: close`), where a reused connection could be
    /// closed under a request.
    fresh: reqwest::Client,
    one_connection_per_request: std::sync::atomic::AtomicBool,
    /// Connections opened by `http`.
    connections: Arc<AtomicU64>,
    base: String,
    api_key: Option<String>,
    timeout: Duration,
    max_body: usize,
    requests: AtomicU64,
    limiter: Option<RateLimiter>,
    pub redactor: Redactor,
}

impl Client {
    pub fn new(config: ClientConfig, redactor: Redactor) -> Result<Arc<Client>, String> {
        crate::tls::install_default_provider();
        if let Some(k) = &config.api_key {
            redactor.api_key(k);
        }
        let builder = || {
            reqwest::Client::builder()
                .connect_timeout(config.timeout.min(Duration::from_secs(5)))
                // A redirect is the target's answer, never a detour: following one would send the
                // request (and its body) to an origin nobody asked the suite to certify.
                .redirect(reqwest::redirect::Policy::none())
        };
        let connections = Arc::new(AtomicU64::new(0));
        let https = config.base_url.starts_with("https://");
        let http = crate::tls::build(
            || {
                builder()
                    .pool_max_idle_per_host(64)
                    .connector_layer(CountConnections(connections.clone()))
            },
            https,
        )?;
        let fresh = crate::tls::build(|| builder().pool_max_idle_per_host(0), https)?;
        Ok(Arc::new(Client {
            http,
            fresh,
            one_connection_per_request: Default::default(),
            connections,
            base: config.base_url.trim_end_matches('/').to_string(),
            api_key: config.api_key,
            timeout: config.timeout,
            max_body: config.max_body_bytes,
            requests: AtomicU64::new(0),
            limiter: config.rate.map(RateLimiter::new),
            redactor,
        }))
    }

    /// Whether the client opens a connection per request (the target closes connections after
    /// its answers).
    pub fn one_connection_per_request(&self) -> bool {
        self.one_connection_per_request.load(Ordering::SeqCst)
    }

    /// Stops reusing connections for the rest of the run; true the first time.
    fn stop_reusing_connections(&self) -> bool {
        !self.one_connection_per_request.swap(true, Ordering::SeqCst)
    }

    /// After a first answer (the probe): sends `out` again a moment later and watches whether it
    /// needed a new connection. A target that closes its connection after each answer without
    /// `Connection: close` (as servers and proxies do at their idle timeout) would make reused
    /// connections close under requests, which are then lost; such a target gets a connection
    /// per request for the whole run. Returns true when it does.
    pub async fn settle_connection_reuse(&self, out: &Outgoing) -> bool {
        // Long enough for the target's close to reach the client's pool on any sane network.
        tokio::time::sleep(Duration::from_millis(50)).await;
        let before = self.connections.load(Ordering::SeqCst);
        let ex = self.send_once(out).await;
        let opened = self.connections.load(Ordering::SeqCst) > before;
        if opened && ex.outcome.is_ok() {
            self.stop_reusing_connections();
        }
        self.one_connection_per_request()
    }

    /// The timeout of every request.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Requests sent so far.
    pub fn request_count(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }

    pub fn base_url(&self) -> &str {
        &self.base
    }

    fn url(&self, out: &Outgoing) -> String {
        let path: Vec<String> = out
            .path
            .split('/')
            .map(|seg| utf8_percent_encode(seg, SEGMENT).to_string())
            .collect();
        let mut url = format!("{}{}", self.base, path.join("/"));
        if !out.query.is_empty() {
            let q = form_urlencoded::Serializer::new(String::new())
                .extend_pairs(&out.query)
                .finish();
            url.push('?');
            url.push_str(&q);
        }
        url
    }

    /// Sends a request, honouring `429` with `Retry-After` (bounded), and records the exchange.
    pub async fn send(&self, out: &Outgoing) -> Exchange {
        const MAX_429_RETRIES: u32 = 3;
        let mut attempt = 0;
        loop {
            let ex = self.send_once(out).await;
            let retry_after = match &ex.outcome {
                Ok(r) if r.status == 429 && attempt < MAX_429_RETRIES => r
                    .header("retry-after")
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .unwrap_or(1)
                    .min(10),
                _ => return ex,
            };
            attempt += 1;
            tokio::time::sleep(Duration::from_secs(retry_after)).await;
        }
    }

    async fn send_once(&self, out: &Outgoing) -> Exchange {
        let url = self.url(out);
        let method =
            reqwest::Method::from_bytes(out.method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let mut shown_headers = Vec::new();
        let http = if self.one_connection_per_request() {
            &self.fresh
        } else {
            &self.http
        };
        let mut req = http.request(method, &url).timeout(self.timeout);
        match &out.auth {
            Auth::Primary => {
                if let Some(k) = &self.api_key {
                    req = req.header("Authorization", k);
                    shown_headers
                        .push(("Authorization".to_string(), API_KEY_PLACEHOLDER.to_string()));
                }
            }
            Auth::None => {}
            Auth::Key { key, label } => {
                req = req.header("Authorization", key);
                shown_headers.push(("Authorization".to_string(), label.clone()));
            }
        }
        for (k, v) in &out.headers {
            req = req.header(k, v);
            shown_headers.push((k.clone(), v.clone()));
        }
        let body_text = out.body.as_ref().map(Value::to_string);
        if let Some(b) = &body_text {
            req = req
                .header("Content-Type", "application/json")
                .body(b.clone());
            shown_headers.push(("Content-Type".to_string(), "application/json".to_string()));
        }
        if let Some(limiter) = &self.limiter {
            limiter.acquire().await;
        }
        self.requests.fetch_add(1, Ordering::Relaxed);
        let start = Instant::now();
        let outcome = self.receive(req).await;
        Exchange {
            method: out.method.clone(),
            path: out.path.clone(),
            url,
            request_headers: shown_headers,
            request_body: body_text,
            outcome,
            elapsed: start.elapsed(),
        }
    }

    async fn receive(&self, req: reqwest::RequestBuilder) -> Result<Response, TransportError> {
        let mut resp = req.send().await.map_err(|e| self.classify(&e, None))?;
        let status = resp.status().as_u16();
        let mut non_utf8_headers = Vec::new();
        let headers: Vec<(String, String)> = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                let value = match std::str::from_utf8(v.as_bytes()) {
                    Ok(text) => text.to_string(),
                    Err(_) => {
                        non_utf8_headers.push(k.as_str().to_string());
                        String::from_utf8_lossy(v.as_bytes()).into_owned()
                    }
                };
                (k.as_str().to_string(), value)
            })
            .collect();
        if let Some(n) = resp.content_length().filter(|n| *n > self.max_body as u64) {
            return Err(TransportError::BodyTooLarge {
                cap: self.max_body,
                declared: Some(n),
                received: 0,
            });
        }
        // The body streams in chunks; it is dropped as soon as it passes the cap, so memory
        // stays bounded whatever the target sends.
        // The chunks are kept as they came; a large body is joined and parsed on the parser
        // thread (see `parse_large`), so no trial thread grows a large buffer of its own.
        let mut chunks: Vec<bytes::Bytes> = Vec::new();
        let mut size = 0usize;
        let mut _large = None;
        loop {
            let chunk = match resp.chunk().await {
                Ok(Some(chunk)) => chunk,
                Ok(None) => break,
                Err(e) => return Err(self.classify(&e, Some(size))),
            };
            if size + chunk.len() > self.max_body {
                return Err(TransportError::BodyTooLarge {
                    cap: self.max_body,
                    declared: None,
                    received: size + chunk.len(),
                });
            }
            let before = size;
            size += chunk.len();
            chunks.push(chunk);
            if before < LARGE_BODY && size >= LARGE_BODY {
                _large = large_body_permit().await;
            }
        }
        let encoding = resp_header(&headers, "content-encoding").map(str::to_string);
        let (body, json) = if size >= LARGE_BODY {
            parse_large(chunks, encoding).await
        } else {
            let body = chunks.concat();
            let json = parse_answer(&body, encoding.as_deref());
            (body, json)
        };
        // A secret the answer hands out is registered before anything of it is shown.
        self.redactor.secrets_in(&body);
        let (excerpt, excerpt_cut) = self
            .redactor
            .cut(&String::from_utf8_lossy(&body), EXCERPT_CHARS);
        Ok(Response {
            status,
            headers,
            size: body.len(),
            body,
            json,
            non_utf8_headers,
            excerpt,
            excerpt_cut,
        })
    }

    /// Names what went wrong; `received` is the body bytes read when the body failed.
    fn classify(&self, e: &reqwest::Error, received: Option<usize>) -> TransportError {
        if e.is_timeout() {
            return match received {
                None => TransportError::Timeout(self.timeout),
                Some(received) => TransportError::BodyTimeout {
                    timeout: self.timeout,
                    received,
                },
            };
        }
        let closed_early = received.is_none()
            && find_in_chain::<hyper::Error>(e).is_some_and(hyper::Error::is_incomplete_message);
        let reset = io_kind(e) == Some(std::io::ErrorKind::ConnectionReset);
        if (closed_early || (reset && received.is_none())) && self.stop_reusing_connections() {
            // A connection closed under a request, maybe one the target closed after its last
            // answer: from now on no request rides on a connection the target may close.
            eprintln!(
                "note: the target closed a connection before answering; from now on the suite opens one connection per request"
            );
        }
        if reset {
            return TransportError::Reset { received };
        }
        if closed_early {
            return TransportError::ClosedBeforeAnswer(error_chain(e));
        }
        if e.is_connect() {
            return TransportError::Connect(error_chain(e));
        }
        match received {
            Some(received) => TransportError::Truncated {
                received,
                detail: error_chain(e),
            },
            None => TransportError::Other(error_chain(e)),
        }
    }
}

/// The first error of type `T` in the chain of `e`.
fn find_in_chain<'a, T: std::error::Error + 'static>(
    e: &'a (dyn std::error::Error + 'static),
) -> Option<&'a T> {
    let mut source = Some(e);
    while let Some(s) = source {
        if let Some(t) = s.downcast_ref::<T>() {
            return Some(t);
        }
        source = s.source();
    }
    None
}

/// The kind of the first I/O error in the chain of `e`, if any.
fn io_kind(e: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut source = Some(e);
    while let Some(s) = source {
        if let Some(io) = s.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        source = s.source();
    }
    None
}

/// The first value of a header among `headers` (names compare case-insensitively).
fn resp_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Parses a body as JSON; when it is not, names a content encoding the suite did not ask for
/// (it sends no `Accept-Encoding` and decodes nothing) or a byte-order mark before the reason.
pub fn parse_body(body: &[u8], content_encoding: Option<&str>) -> Result<Value, String> {
    let e = match parse_json(body) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let encoding = content_encoding
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"));
    if let Some(c) = encoding {
        let name = c.split(',').next().unwrap_or(c).trim().to_ascii_lowercase();
        return Err(format!(
            "a {name}-encoded body (Content-Encoding: {c}), not decoded: the suite does not ask for compression ({e})"
        ));
    }
    if body.starts_with(&[0x1f, 0x8b]) {
        return Err(format!(
            "a gzip stream (starts with 1F 8B) without Content-Encoding, not JSON ({e})"
        ));
    }
    Err(e)
}

/// Parses a body as JSON, or says where and why it is not JSON: line, column and byte offset.
/// serde_json stops at 128 levels of nesting, so a hostile deeply nested body is an error, not
/// a stack overflow.
pub fn parse_json(body: &[u8]) -> Result<Value, String> {
    // RFC 8259 8.1: a JSON text has no byte-order mark; implementations may ignore one, the
    // suite names it instead of failing at "byte 0".
    for (bom, name, hex) in [
        (&[0xef, 0xbb, 0xbf][..], "a UTF-8", "EF BB BF"),
        (&[0xfe, 0xff][..], "a UTF-16 (big-endian)", "FE FF"),
        (&[0xff, 0xfe][..], "a UTF-16 (little-endian)", "FF FE"),
    ] {
        if body.starts_with(bom) {
            return Err(format!(
                "the body starts with {name} byte-order mark ({hex}): not JSON (RFC 8259 8.1)"
            ));
        }
    }
    serde_json::from_slice::<Value>(body).map_err(|e| {
        let byte = byte_offset(body, e.line(), e.column());
        let full = e.to_string();
        let place = format!(" at line {} column {}", e.line(), e.column());
        let what = full.strip_suffix(&place).unwrap_or(&full);
        let mut text = format!(
            "not JSON at line {} column {} (byte {byte}): {what}",
            e.line(),
            e.column()
        );
        if what == "recursion limit exceeded" {
            text.push_str(" (nested deeper than 128 levels)");
        }
        text
    })
}

/// The 0-based byte offset of serde_json's 1-based line and column (a column counts bytes).
fn byte_offset(body: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        body.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map_or(body.len(), |(i, _)| i + 1)
    };
    (line_start + column.saturating_sub(1)).min(body.len())
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let part = s.to_string();
        if !text.contains(&part) {
            text.push_str(": ");
            text.push_str(&part);
        }
        source = s.source();
    }
    text
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

impl Exchange {
    /// A curl command that reproduces the request; credentials stay placeholders.
    pub fn curl(&self, redactor: &Redactor) -> String {
        let mut cmd = format!("curl -sS -i -X {} {}", self.method, shell_quote(&self.url));
        for (k, v) in &self.request_headers {
            cmd.push_str(&format!(" -H {}", shell_quote(&format!("{k}: {v}"))));
        }
        if let Some(b) = &self.request_body {
            cmd.push_str(&format!(" --data-raw {}", shell_quote(b)));
        }
        redactor.redact(&cmd)
    }

    /// The answer's body as text, cut to `limit` characters (at most [`EXCERPT_CHARS`]: the
    /// excerpt kept on receipt, redacted before it was cut and once more now, for secrets seen
    /// since).
    pub fn body_excerpt(&self, limit: usize, redactor: &Redactor) -> String {
        let Ok(r) = &self.outcome else {
            return String::new();
        };
        match redactor.cut(&r.excerpt, limit) {
            (cut, more) if more || r.excerpt_cut => format!("{cut}… ({} bytes in all)", r.size),
            (cut, _) => cut,
        }
    }

    /// The exchange as recorded for the reports: the body and its parsed value dropped, the
    /// redacted excerpt kept. Checks run before; nothing after needs the body.
    pub fn recorded(&self) -> Exchange {
        let outcome = match &self.outcome {
            Ok(r) => Ok(Response {
                status: r.status,
                headers: r.headers.clone(),
                body: Vec::new(),
                size: r.size,
                json: None,
                non_utf8_headers: r.non_utf8_headers.clone(),
                excerpt: r.excerpt.clone(),
                excerpt_cut: r.excerpt_cut,
            }),
            Err(e) => Err(e.clone()),
        };
        Exchange {
            method: self.method.clone(),
            path: self.path.clone(),
            url: self.url.clone(),
            request_headers: self.request_headers.clone(),
            request_body: self.request_body.clone(),
            outcome,
            elapsed: self.elapsed,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::get;

    /// A server whose first `busy` answers are 429 with `Retry-After: retry_after`, then 200;
    /// it records when each request came.
    async fn server(busy: usize, retry_after: &'static str) -> (String, Arc<Mutex<Vec<Instant>>>) {
        let seen = Arc::new(Mutex::new(Vec::<Instant>::new()));
        let log = seen.clone();
        let app = axum::Router::new().route(
            "/",
            get(move || {
                let log = log.clone();
                async move {
                    let mut v = log.lock().unwrap();
                    v.push(Instant::now());
                    let mut h = HeaderMap::new();
                    if v.len() <= busy {
                        h.insert("retry-after", retry_after.parse().unwrap());
                        (StatusCode::TOO_MANY_REQUESTS, h, "busy")
                    } else {
                        (StatusCode::OK, h, "ok")
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{addr}"), seen)
    }

    fn client(base: &str, rate: Option<f64>) -> Arc<Client> {
        Client::new(
            ClientConfig {
                base_url: base.to_string(),
                api_key: None,
                timeout: Duration::from_secs(5),
                max_body_bytes: 1024,
                rate,
            },
            Redactor::default(),
        )
        .unwrap()
    }

    fn get_root() -> Outgoing {
        Outgoing {
            method: "GET".into(),
            path: "/".into(),
            query: vec![],
            headers: vec![],
            body: None,
            auth: Auth::None,
        }
    }

    #[tokio::test]
    async fn the_rate_limit_is_shared_by_concurrent_requests() {
        let (base, seen) = server(0, "0").await;
        let c = client(&base, Some(20.0));
        let start = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..10 {
            let c = c.clone();
            set.spawn(async move { c.send(&get_root()).await });
        }
        while let Some(r) = set.join_next().await {
            assert_eq!(r.unwrap().outcome.unwrap().status, 200);
        }
        // 10 requests at 20/s: the last leaves 9 intervals of 50 ms after the first.
        assert!(
            start.elapsed() >= Duration::from_millis(440),
            "{:?}",
            start.elapsed()
        );
        let times = seen.lock().unwrap().clone();
        assert_eq!(times.len(), 10);
        let span = times[9].duration_since(times[0]);
        assert!(span >= Duration::from_millis(400), "{span:?}");
    }

    #[tokio::test]
    async fn a_429_is_retried_after_its_retry_after() {
        let (base, seen) = server(1, "1").await;
        let c = client(&base, None);
        let ex = c.send(&get_root()).await;
        assert_eq!(ex.outcome.unwrap().status, 200);
        let times = seen.lock().unwrap().clone();
        assert_eq!(times.len(), 2);
        assert!(times[1].duration_since(times[0]) >= Duration::from_millis(950));
    }

    #[tokio::test]
    async fn retries_of_429_are_bounded() {
        let (base, seen) = server(usize::MAX, "0").await;
        let c = client(&base, None);
        let ex = c.send(&get_root()).await;
        assert_eq!(ex.outcome.unwrap().status, 429);
        // The first attempt and 3 retries, then the 429 is the answer.
        assert_eq!(seen.lock().unwrap().len(), 4);
    }

    #[test]
    fn not_json_names_line_column_and_byte() {
        let e = parse_json(b"{\"a\": 1,\n  \"b\": x}").unwrap_err();
        assert_eq!(e, "not JSON at line 2 column 8 (byte 16): expected value");
        let e = parse_json(br#"{"data": [1, 2,, 3]}"#).unwrap_err();
        assert_eq!(e, "not JSON at line 1 column 16 (byte 15): expected value");
    }

    #[test]
    fn an_encoding_and_a_byte_order_mark_are_named() {
        let e = parse_json(b"\xef\xbb\xbf{\"data\":[]}").unwrap_err();
        assert_eq!(
            e,
            "the body starts with a UTF-8 byte-order mark (EF BB BF): not JSON (RFC 8259 8.1)"
        );
        let e = parse_body(b"\x1f\x8b\x08\x00", Some("gzip")).unwrap_err();
        assert!(
            e.starts_with("a gzip-encoded body (Content-Encoding: gzip), not decoded: the suite does not ask for compression (not JSON at line 1 column 1"),
            "{e}"
        );
        let e = parse_body(b"\x78\x01\x01", Some("Deflate")).unwrap_err();
        assert!(
            e.starts_with("a deflate-encoded body (Content-Encoding: Deflate), not decoded"),
            "{e}"
        );
        let e = parse_body(b"\x1f\x8b\x08\x00", None).unwrap_err();
        assert!(
            e.starts_with("a gzip stream (starts with 1F 8B) without Content-Encoding"),
            "{e}"
        );
        // JSON is JSON whatever the header says.
        assert!(parse_body(b"{}", Some("gzip")).is_ok());
        assert!(parse_body(b"{}", Some("identity")).is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let depth = 100_000;
        let mut body = vec![b'['; depth];
        body.extend(std::iter::repeat_n(b']', depth));
        let e = parse_json(&body).unwrap_err();
        assert!(
            e.ends_with("recursion limit exceeded (nested deeper than 128 levels)"),
            "{e}"
        );
        // 127 levels are fine.
        let mut ok = vec![b'['; 127];
        ok.extend(std::iter::repeat_n(b']', 127));
        assert!(parse_json(&ok).is_ok());
    }

    #[test]
    fn reasons_name_the_misbehaviour() {
        let t = |e: TransportError| e.to_string();
        assert_eq!(
            t(TransportError::Timeout(Duration::from_secs(2))),
            "no answer within the timeout of 2 s"
        );
        assert_eq!(
            t(TransportError::BodyTooLarge {
                cap: 8388608,
                declared: Some(52428800),
                received: 0
            }),
            "body over the size cap of 8388608 bytes (Content-Length 52428800)"
        );
        assert_eq!(
            t(TransportError::Reset { received: None }),
            "connection reset by peer"
        );
    }
}
