//! The HTTP exchange: one reqwest client for the run, auth and version headers, a timeout and a
//! body-size cap on every request, every exchange recorded, secrets redacted, curl rendering.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::Value;

/// The placeholder shown instead of the run's API key.
pub const API_KEY_PLACEHOLDER: &str = "<API_KEY>";
/// The placeholder shown instead of any other secret.
pub const SECRET_PLACEHOLDER: &str = "<REDACTED>";

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

/// Replaces secrets (API keys, webhook secrets) in any text that leaves the suite.
/// Cheap to clone; clones share the list, so a secret seen mid-run (a webhook signing secret)
/// is redacted everywhere from then on.
#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Arc<std::sync::RwLock<Vec<(String, &'static str)>>>,
}

impl Redactor {
    /// Registers the run's API key.
    pub fn api_key(&self, key: &str) {
        self.add(key, API_KEY_PLACEHOLDER);
    }

    /// Registers another secret.
    pub fn secret(&self, value: &str) {
        self.add(value, SECRET_PLACEHOLDER);
    }

    fn add(&self, value: &str, placeholder: &'static str) {
        let mut secrets = self.secrets.write().unwrap_or_else(|e| e.into_inner());
        // Very short values would redact ordinary text; keys are never that short.
        if value.len() >= 4 && !secrets.iter().any(|(s, _)| s == value) {
            secrets.push((value.to_string(), placeholder));
            secrets.sort_by_key(|s| std::cmp::Reverse(s.0.len()));
        }
    }

    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_string();
        let secrets = self.secrets.read().unwrap_or_else(|e| e.into_inner());
        for (s, placeholder) in secrets.iter() {
            if out.contains(s.as_str()) {
                out = out.replace(s.as_str(), placeholder);
            }
        }
        out
    }
}

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

/// Why no complete answer came back.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TransportError {
    #[error("no answer within the timeout of {0:?}")]
    Timeout(Duration),
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("body over the size cap of {0} bytes")]
    BodyTooLarge(usize),
    #[error("too many redirects: {0}")]
    Redirects(String),
    #[error("the connection failed: {0}")]
    Other(String),
}

/// An answer, with its body parsed as JSON when it is JSON.
#[derive(Debug, Clone)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// `None` for an empty body; `Some(Err)` says why a body is not JSON.
    pub json: Option<Result<Value, String>>,
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
}

/// The run's HTTP client; cheap to share (`Arc`).
pub struct Client {
    http: reqwest::Client,
    base: String,
    api_key: Option<String>,
    timeout: Duration,
    max_body: usize,
    requests: AtomicU64,
    pub redactor: Redactor,
}

impl Client {
    pub fn new(config: ClientConfig, redactor: Redactor) -> Result<Arc<Client>, String> {
        crate::tls::install_default_provider();
        if let Some(k) = &config.api_key {
            redactor.api_key(k);
        }
        let http = reqwest::Client::builder()
            .connect_timeout(config.timeout.min(Duration::from_secs(5)))
            .redirect(reqwest::redirect::Policy::limited(5))
            .pool_max_idle_per_host(64)
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Arc::new(Client {
            http,
            base: config.base_url.trim_end_matches('/').to_string(),
            api_key: config.api_key,
            timeout: config.timeout,
            max_body: config.max_body_bytes,
            requests: AtomicU64::new(0),
            redactor,
        }))
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
        let mut req = self.http.request(method, &url).timeout(self.timeout);
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
        let classify = |e: reqwest::Error| {
            if e.is_timeout() {
                TransportError::Timeout(self.timeout)
            } else if e.is_connect() {
                TransportError::Connect(error_chain(&e))
            } else if e.is_redirect() {
                TransportError::Redirects(error_chain(&e))
            } else {
                TransportError::Other(error_chain(&e))
            }
        };
        let mut resp = req.send().await.map_err(classify)?;
        let status = resp.status().as_u16();
        let headers = resp
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_string(),
                    String::from_utf8_lossy(v.as_bytes()).into_owned(),
                )
            })
            .collect();
        if resp
            .content_length()
            .is_some_and(|n| n as usize > self.max_body)
        {
            return Err(TransportError::BodyTooLarge(self.max_body));
        }
        let mut body = Vec::new();
        while let Some(chunk) = resp.chunk().await.map_err(classify)? {
            if body.len() + chunk.len() > self.max_body {
                return Err(TransportError::BodyTooLarge(self.max_body));
            }
            body.extend_from_slice(&chunk);
        }
        let json =
            if body.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                Some(serde_json::from_slice::<Value>(&body).map_err(|e| {
                    format!("not JSON at line {} column {}: {e}", e.line(), e.column())
                }))
            };
        Ok(Response {
            status,
            headers,
            body,
            json,
        })
    }
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

    /// The answer's body as text, cut to `limit` characters.
    pub fn body_excerpt(&self, limit: usize, redactor: &Redactor) -> String {
        let Ok(r) = &self.outcome else {
            return String::new();
        };
        let text = String::from_utf8_lossy(&r.body);
        let cut: String = text.chars().take(limit).collect();
        let more = if text.chars().count() > limit {
            format!("… ({} bytes in all)", r.body.len())
        } else {
            String::new()
        };
        redactor.redact(&format!("{cut}{more}"))
    }
}
