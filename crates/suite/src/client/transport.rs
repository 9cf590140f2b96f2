//! The run's HTTP client: its connections, the headers of a request (auth, version, JSON), a
//! timeout on every request, and what went wrong named when no answer came.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::Value;

use super::body::{self, Received};
use super::rate::{self, RateLimiter};
use super::{
    API_KEY_PLACEHOLDER, Auth, EXCERPT_CHARS, Exchange, Outgoing, Redactor, Response,
    TransportError,
};

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

/// Requests in flight to the target at once, whatever the number of trials (`--test-threads`)
/// and of requests a step sends together: enough to keep a target across a network busy, few
/// enough not to flood it. Behind 50 ms a request, 32 were all taken during the run's first
/// second (the limit cases fill the workspace while the other trials start), and the chains
/// of exclusive cases waited for them. 64, with the random sequences' independent reads sent
/// together, took the run from 6.5-7.0 s to 5.3-5.6 s (writing a HAR, on 2 cores); the local
/// run's time and peak memory stayed within their spread (1.8 s, 87-90 MB).
pub(crate) const MAX_IN_FLIGHT: usize = 64;

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

tokio::task_local! {
    /// Set by [`Counted`] when the request being sent opens a connection, rather than riding
    /// on one an earlier answer came on.
    static OPENED: std::cell::Cell<bool>;
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
        // Outside a request of `send_once` (none today) there is nobody to tell.
        let _ = OPENED.try_with(|opened| opened.set(true));
        self.inner.call(req)
    }
}

/// How long the probe leaves its connection idle before it sends again on it
/// ([`Client::settle_connection_reuse`]): a target that closes an idle connection sooner is given
/// a connection per request for the whole run.
const SETTLE_WAIT: Duration = Duration::from_millis(50);

/// How long a connection may have been idle and still carry a request that must not be lost (a
/// POST, PATCH or DELETE): half of what the probe saw a connection survive. A target that keeps
/// an idle connection for at least [`SETTLE_WAIT`] cannot have closed one idle for less than
/// half of it, with half of it to spare for the close to cross the network; a connection idle
/// longer is not reused for such a request, which opens a new one instead.
const WRITE_IDLE_BOUND: Duration = Duration::from_millis(SETTLE_WAIT.as_millis() as u64 / 2);

/// The run's HTTP client; cheap to share (`Arc`).
pub struct Client {
    /// Keeps connections open between requests: the reads, which a closed connection cannot
    /// lose (they are sent again once, on a new connection).
    http: reqwest::Client,
    /// Keeps connections open for [`WRITE_IDLE_BOUND`] only: the requests that change something
    /// and are never sent twice (POST, PATCH, DELETE), which must not ride on a connection the
    /// target may have closed without saying so.
    writes: reqwest::Client,
    /// Opens a connection per request: used once the target is seen closing connections after
    /// its answers without saying so (`Connection: close`), where a reused connection could be
    /// closed under a request.
    fresh: reqwest::Client,
    one_connection_per_request: std::sync::atomic::AtomicBool,
    /// Connections opened by `http` and `writes`.
    connections: Arc<AtomicU64>,
    base: String,
    api_key: Option<String>,
    timeout: Duration,
    max_body: usize,
    requests: AtomicU64,
    /// Every request sent, as recorded for the reports, once [`Client::keep_every_exchange`]
    /// asks for them (the HAR of the run).
    log: std::sync::Mutex<Option<Vec<Arc<Exchange>>>>,
    limiter: Option<RateLimiter>,
    /// One permit per request in flight ([`MAX_IN_FLIGHT`]).
    in_flight: tokio::sync::Semaphore,
    pub redactor: Redactor,
}

impl Client {
    pub fn new(
        config: ClientConfig,
        redactor: Redactor,
    ) -> Result<Arc<Client>, crate::tls::ClientBuildError> {
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
        let writes = crate::tls::build(
            || {
                builder()
                    .pool_max_idle_per_host(64)
                    .pool_idle_timeout(WRITE_IDLE_BOUND)
                    .connector_layer(CountConnections(connections.clone()))
            },
            https,
        )?;
        let fresh = crate::tls::build(|| builder().pool_max_idle_per_host(0), https)?;
        Ok(Arc::new(Client {
            http,
            writes,
            fresh,
            one_connection_per_request: Default::default(),
            connections,
            base: config.base_url.trim_end_matches('/').to_string(),
            api_key: config.api_key,
            timeout: config.timeout,
            max_body: config.max_body_bytes,
            requests: AtomicU64::new(0),
            log: std::sync::Mutex::new(None),
            limiter: config.rate.map(RateLimiter::new),
            in_flight: tokio::sync::Semaphore::new(MAX_IN_FLIGHT),
            redactor,
        }))
    }

    /// Whether `key` is the run's own key (compared, never shown).
    pub fn is_run_key(&self, key: &str) -> bool {
        self.api_key.as_deref() == Some(key)
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
        tokio::time::sleep(SETTLE_WAIT).await;
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

    /// From now on, every request sent is kept (as the reports record it: the head of its
    /// answer, not the body) for [`Client::exchanges`]: the HAR of a run holds each once.
    pub fn keep_every_exchange(&self) {
        if let Ok(mut log) = self.log.lock() {
            log.get_or_insert_with(Vec::new);
        }
    }

    /// The requests kept since [`Client::keep_every_exchange`], in the order they were numbered.
    pub fn exchanges(&self) -> Vec<Arc<Exchange>> {
        let mut out = self
            .log
            .lock()
            .ok()
            .and_then(|l| l.clone())
            .unwrap_or_default();
        out.sort_by_key(|e| e.seq);
        out
    }

    /// Keeps `ex` when every exchange is kept.
    fn keep(&self, ex: &Exchange) {
        if let Ok(mut log) = self.log.lock() {
            if let Some(log) = log.as_mut() {
                log.push(Arc::new(ex.recorded()));
            }
        }
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
    /// An idempotent request lost on a reused connection before any byte of an answer is sent
    /// again, once, on a new connection; a POST or PATCH never is (the target may have read it).
    pub async fn send(&self, out: &Outgoing) -> Exchange {
        let mut attempt = 0;
        loop {
            let ex = self.send_once(out).await;
            let Some(wait) = rate::retry_after(&ex, attempt) else {
                return ex;
            };
            attempt += 1;
            tokio::time::sleep(wait).await;
        }
    }

    async fn send_once(&self, out: &Outgoing) -> Exchange {
        let url = self.url(out);
        let Built {
            req,
            shown_headers,
            body_text,
            pooled,
        } = self.request(out, &url);
        if let Some(limiter) = &self.limiter {
            limiter.acquire().await;
        }
        // The semaphore is never closed; were it, the request would go without a permit.
        let _slot = self.in_flight.acquire().await.ok();
        let mut seq = self.requests.fetch_add(1, Ordering::Relaxed) + 1;
        let mut start = Instant::now();
        let mut sent = std::time::SystemTime::now();
        let (mut outcome, opened) = OPENED
            .scope(std::cell::Cell::new(false), async {
                let outcome = self.receive(req).await;
                (outcome, OPENED.with(std::cell::Cell::get))
            })
            .await;
        if pooled
            && !opened
            && idempotent(&out.method)
            && outcome.as_ref().is_err_and(TransportError::before_answer)
        {
            // The request rode on a connection an earlier answer came on, and the connection
            // closed before any byte of an answer: most likely the target had closed it while
            // idle and the close crossed the request on the wire. Browsers and curl send such an
            // idempotent request again, once, on a new connection; so does the suite (the
            // classifier has just stopped the reuse of connections, so the request opens one).
            // A POST or PATCH is never sent again: the target may have read it and acted on it
            // (RFC 9110 9.2.2), so sending it twice could create twice. Nor is a request that
            // failed once an answer had begun.
            // The lost request was sent: the HAR holds it, with what became of it.
            self.keep(&Exchange {
                method: out.method.clone(),
                path: out.path.clone(),
                url: url.clone(),
                request_headers: shown_headers.clone(),
                request_body: body_text.clone(),
                outcome,
                elapsed: start.elapsed(),
                sent: Some(sent),
                seq,
            });
            let req = self.request(out, &url).req;
            if let Some(limiter) = &self.limiter {
                limiter.acquire().await;
            }
            seq = self.requests.fetch_add(1, Ordering::Relaxed) + 1;
            start = Instant::now();
            sent = std::time::SystemTime::now();
            outcome = self.receive(req).await;
        }
        let ex = Exchange {
            method: out.method.clone(),
            path: out.path.clone(),
            url,
            request_headers: shown_headers,
            request_body: body_text,
            outcome,
            elapsed: start.elapsed(),
            sent: Some(sent),
            seq,
        };
        self.keep(&ex);
        ex
    }

    /// The request of `out` to `url` with its credentials, headers and JSON body; the headers as
    /// shown (credentials as placeholders), the body as sent, and whether it may ride on a
    /// connection an earlier answer came on.
    fn request(&self, out: &Outgoing, url: &str) -> Built {
        let method =
            reqwest::Method::from_bytes(out.method.as_bytes()).unwrap_or(reqwest::Method::GET);
        let mut shown_headers = Vec::new();
        // Once the target is seen closing connections after its answers without saying so,
        // every request opens a connection of its own: a POST or PATCH lost to such a close
        // cannot be sent again, and a target that closes after each answer gains nothing from a
        // pool.
        // A request that changes something rides only on a connection idle for less than
        // [`WRITE_IDLE_BOUND`], which the target cannot have closed unannounced.
        let http = if self.one_connection_per_request() {
            &self.fresh
        } else if changes(&out.method) {
            &self.writes
        } else {
            &self.http
        };
        let mut req = http.request(method, url).timeout(self.timeout);
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
            Auth::NearMiss(how) => {
                let near = self.api_key.as_deref().and_then(|k| how.of(k));
                match near {
                    Some(near) => {
                        // It is most of the key: never shown either.
                        if !near.is_empty() {
                            self.redactor.api_key_part(&near);
                        }
                        req = req.header("Authorization", near);
                        shown_headers.push((
                            "Authorization".to_string(),
                            super::NEAR_MISS_PLACEHOLDER.to_string(),
                        ));
                    }
                    None => {
                        req = req.header("Authorization", "invalid-key");
                        shown_headers.push(("Authorization".to_string(), "invalid-key".into()));
                    }
                }
            }
        }
        for (k, v) in &out.headers {
            req = req.header(k, v);
            shown_headers.push((k.clone(), v.clone()));
        }
        let body_text = out
            .raw_body
            .clone()
            .or_else(|| out.body.as_ref().map(Value::to_string));
        if let Some(b) = &body_text {
            req = req
                .header("Content-Type", "application/json")
                .body(b.clone());
            shown_headers.push(("Content-Type".to_string(), "application/json".to_string()));
        }
        Built {
            req,
            shown_headers,
            body_text,
            pooled: !std::ptr::eq(http, &self.fresh),
        }
    }

    async fn receive(&self, req: reqwest::RequestBuilder) -> Result<Response, TransportError> {
        let mut resp = req.send().await.map_err(|e| self.classify(&e, None))?;
        let status = resp.status().as_u16();
        let (headers, non_utf8_headers) = header_lines(resp.headers());
        if let Some(n) = resp.content_length().filter(|n| *n > self.max_body as u64) {
            return Err(TransportError::BodyTooLarge {
                cap: self.max_body,
                declared: Some(n),
                received: 0,
            });
        }
        let encoding = resp_header(&headers, "content-encoding").map(str::to_string);
        let Received {
            body,
            json,
            _permit,
        } = body::read_bounded(&mut resp, self.max_body, encoding, |e, received| {
            self.classify(e, Some(received))
        })
        .await?;
        // A secret the answer hands out is registered before anything of it is shown.
        self.redactor.secrets_in(&body);
        let (head, head_cut) = self
            .redactor
            .head(&String::from_utf8_lossy(&body), EXCERPT_CHARS);
        Ok(Response {
            status,
            headers,
            size: body.len(),
            body,
            json,
            non_utf8_headers,
            head,
            head_cut,
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

/// A request ready to send, with what the record of its exchange shows.
struct Built {
    req: reqwest::RequestBuilder,
    shown_headers: Vec<(String, String)>,
    body_text: Option<String>,
    /// Built on a client that keeps connections: it may ride on one an earlier answer came on.
    /// Decided with the client, so that a switch to a connection per request while it is built
    /// does not take it for a request on a new connection.
    pooled: bool,
}

/// Whether a request with this method may be sent again without changing what it does (RFC 9110
/// 9.2.2): every method but POST and PATCH among those the contract uses.
pub(crate) fn idempotent(method: &str) -> bool {
    !(method.eq_ignore_ascii_case("POST") || method.eq_ignore_ascii_case("PATCH"))
}

/// Whether a request with this method changes what the target holds, so that losing it on a
/// closed connection loses a verdict (a DELETE sent again may find nothing to delete).
fn changes(method: &str) -> bool {
    !idempotent(method) || method.eq_ignore_ascii_case("DELETE")
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

/// The headers of an answer as text, and the names (lower case) of those whose value is not
/// UTF-8 (kept lossily).
fn header_lines(map: &reqwest::header::HeaderMap) -> (Vec<(String, String)>, Vec<String>) {
    let mut non_utf8_headers = Vec::new();
    let headers = map
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
    (headers, non_utf8_headers)
}

/// The first value of a header among `headers` (names compare case-insensitively).
fn resp_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
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
