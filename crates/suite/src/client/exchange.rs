//! The exchange record: a request to send, the answer or why none came, and the exchange as
//! checks, explanations and reports see it.

use std::time::Duration;

use serde_json::Value;

use super::Redactor;

/// Which credentials a request carries.
#[derive(Debug, Clone)]
pub enum Auth {
    /// The run's API key.
    Primary,
    /// No `Authorization` header.
    None,
    /// Another key (a fixture, or a made-up invalid key), shown as `label` in reproductions.
    Key { key: String, label: String },
    /// A wrong key as near the run's key as a key can be, which a target comparing keys by
    /// prefix, only in part or without case would serve. Without a run key, a made-up one.
    NearMiss(NearKey),
}

/// How a near-miss key differs from the run's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NearKey {
    /// Without its last character.
    Cut,
    /// Its letters in the other case (the key itself where it has none).
    OtherCase,
    /// With one character more.
    Longer,
    /// The header sent with an empty value.
    Empty,
}

impl NearKey {
    /// The near-miss of `key`, if it is another key.
    pub fn of(self, key: &str) -> Option<String> {
        let near = match self {
            NearKey::Cut => key
                .char_indices()
                .last()
                .map(|(i, _)| key[..i].to_string())?,
            NearKey::OtherCase => key
                .chars()
                .map(|c| {
                    if c.is_ascii_lowercase() {
                        c.to_ascii_uppercase()
                    } else {
                        c.to_ascii_lowercase()
                    }
                })
                .collect(),
            NearKey::Longer => format!("{key}{}", key.chars().last().unwrap_or('0')),
            NearKey::Empty => return (!key.is_empty()).then(String::new),
        };
        (!near.is_empty() && near != key).then_some(near)
    }

    /// Its words in a reproduction.
    pub fn name(self) -> &'static str {
        match self {
            NearKey::Cut => "near miss",
            NearKey::OtherCase => "near miss (other case)",
            NearKey::Longer => "near miss (longer)",
            NearKey::Empty => "empty key",
        }
    }
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
    /// A body sent as it is, as `application/json`, in place of `body`: a body that is not JSON
    /// (READINGS 2.4: invalid input).
    pub raw_body: Option<String>,
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
    /// The target may have read the request, so it is not sent again (but an idempotent one, once,
    /// on a new connection, where the closed one had carried an earlier answer: see
    /// `Client::send`; a POST or PATCH never).
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

impl TransportError {
    /// Whether the connection ended after the request went out and before the answer's body:
    /// closed or reset with no answer read. (hyper reports a close in the middle of the head as
    /// it reports one before the first byte, so a head cut short counts here too; a body cut
    /// short never does.)
    pub(crate) fn before_answer(&self) -> bool {
        matches!(
            self,
            TransportError::ClosedBeforeAnswer(_) | TransportError::Reset { received: None }
        )
    }
}

/// A duration as the user gave it: `2 s`, `1.5 s`.
fn secs(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

/// Why an answer's body is not JSON, in the words a failure quotes: where and why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotJson {
    /// A byte-order mark before the text (RFC 8259 8.1).
    #[error("the body starts with {name} byte-order mark ({hex}): not JSON (RFC 8259 8.1)")]
    ByteOrderMark {
        name: &'static str,
        hex: &'static str,
    },
    /// serde_json's reason, without its own "at line .. column ..".
    #[error(
        "not JSON at line {line} column {column} (byte {byte}): {what}{}",
        if *.too_deep { " (nested deeper than 128 levels)" } else { "" }
    )]
    Syntax {
        line: usize,
        column: usize,
        byte: usize,
        what: String,
        too_deep: bool,
    },
    /// A content encoding the suite did not ask for (it sends no `Accept-Encoding`).
    #[error(
        "a {name}-encoded body (Content-Encoding: {header}), not decoded: the suite does not ask for compression ({why})"
    )]
    Encoded {
        name: String,
        header: String,
        why: Box<NotJson>,
    },
    #[error("a gzip stream (starts with 1F 8B) without Content-Encoding, not JSON ({why})")]
    Gzip { why: Box<NotJson> },
    /// The parser thread went away before it answered.
    #[error("the body could not be parsed")]
    Lost,
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
    pub json: Option<Result<Value, NotJson>>,
    /// Names (lower case) of headers whose value is not UTF-8; `headers` holds them lossily.
    pub non_utf8_headers: Vec<String>,
    /// The start of the body as text, as received: [`EXCERPT_CHARS`] and the room a secret's
    /// escaped forms need beyond them ([`Redactor::head`]). All that the reports keep of a body,
    /// and never shown but through [`Response::excerpt`], which redacts it first: an answer's
    /// text is redacted only when something shows it, most answers never are.
    pub(crate) head: String,
    /// Whether `head` is shorter than the body.
    pub(crate) head_cut: bool,
}

/// Characters of a body kept for the reports.
pub(crate) const EXCERPT_CHARS: usize = 2000;

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

    /// The start of the body as text, at most `limit` characters ([`EXCERPT_CHARS`] at most),
    /// redacted before it was cut with every secret known now, and whether it is shorter than
    /// the body.
    pub(crate) fn excerpt(&self, limit: usize, redactor: &Redactor) -> (String, bool) {
        let (cut, more) = redactor.cut(&self.head, limit.min(EXCERPT_CHARS));
        (cut, more || self.head_cut)
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
    /// When the request went (its start on the wall clock), for the HAR's timeline; `None` for
    /// a request that was never sent.
    pub sent: Option<std::time::SystemTime>,
    /// The request's number in the run (1 for the first the client sent), which names it in the
    /// HAR whichever trials share it; 0 for a request never sent.
    pub seq: u64,
}

impl Exchange {
    /// An exchange of no request the suite sent, with `outcome` as its answer: a stand-in where
    /// a request could not be rendered, or a made-up answer in a test.
    pub(crate) fn standing_in(outcome: Result<Response, TransportError>) -> Exchange {
        Exchange {
            method: String::new(),
            path: String::new(),
            url: String::new(),
            request_headers: Vec::new(),
            request_body: None,
            outcome,
            elapsed: Duration::ZERO,
            sent: None,
            seq: 0,
        }
    }

    /// The answer's body as text, cut to `limit` characters (at most [`EXCERPT_CHARS`]),
    /// redacted before it was cut ([`Response::excerpt`]).
    pub(crate) fn body_excerpt(&self, limit: usize, redactor: &Redactor) -> String {
        let Ok(r) = &self.outcome else {
            return String::new();
        };
        match r.excerpt(limit, redactor) {
            (cut, true) => format!("{cut}… ({} bytes in all)", r.size),
            (cut, false) => cut,
        }
    }

    /// The exchange as recorded for the reports: the body and its parsed value dropped, the
    /// head of the body kept (shown only redacted). Checks run before; nothing after needs the body.
    pub fn recorded(&self) -> Exchange {
        let outcome = match &self.outcome {
            Ok(r) => Ok(Response {
                status: r.status,
                headers: r.headers.clone(),
                body: Vec::new(),
                size: r.size,
                json: None,
                non_utf8_headers: r.non_utf8_headers.clone(),
                head: r.head.clone(),
                head_cut: r.head_cut,
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
            sent: self.sent,
            seq: self.seq,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
