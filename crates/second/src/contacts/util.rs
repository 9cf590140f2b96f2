//! Helpers shared by the contacts and tasks areas: time, ids, query strings, JSON bodies,
//! keyset page tokens. OWNER: contacts-tasks.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

use axum::http::{HeaderMap, header};
use rand::Rng;
use serde_json::{Map, Value};
use time::format_description::well_known::Rfc3339;
use time::macros::format_description;
use time::{OffsetDateTime, UtcOffset};

/// Now, in UTC.
pub fn now() -> OffsetDateTime {
    OffsetDateTime::now_utc()
}

/// RFC 3339 in UTC with milliseconds and `Z` (`2025-01-02T03:04:05.678Z`).
pub fn fmt_ts(t: OffsetDateTime) -> String {
    let t = t.to_offset(UtcOffset::UTC);
    t.format(format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z"
    ))
    .unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".to_string())
}

/// A seeded timestamp written in the source (RFC 3339); the epoch if it is malformed.
pub fn seed_ts(s: &str) -> OffsetDateTime {
    OffsetDateTime::parse(s, &Rfc3339).unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// A client's RFC 3339 date-time with an explicit offset (`Z` or `+hh:mm`), converted to UTC.
/// Years outside 2000..=2199 are refused (None) as implausible.
pub fn parse_ts(s: &str) -> Option<OffsetDateTime> {
    // `T` and `Z` upper case only; at most nanosecond precision.
    if s.len() > 40 || s.contains('t') || s.contains('z') || s.contains(' ') {
        return None;
    }
    let t = OffsetDateTime::parse(s, &Rfc3339)
        .ok()?
        .to_offset(UtcOffset::UTC);
    if !(2000..=2199).contains(&t.year()) {
        return None;
    }
    Some(t)
}

/// Nanoseconds since the epoch (a sort key).
pub fn nanos(t: OffsetDateTime) -> i128 {
    t.unix_timestamp_nanos()
}

/// `prefix` + `n` random characters of `[a-z0-9]`.
pub fn new_id(prefix: &str, n: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let mut rng = rand::rng();
    let mut s = String::with_capacity(prefix.len() + n);
    s.push_str(prefix);
    for _ in 0..n {
        s.push(ALPHABET[rng.random_range(0..ALPHABET.len())] as char);
    }
    s
}

/// Number of characters (Unicode scalar values).
pub fn chars(s: &str) -> usize {
    s.chars().count()
}

/// Whether a string holds a control character (refused in every text field).
pub fn has_control(s: &str) -> bool {
    s.chars().any(|c| c.is_control() && c != '\n' && c != '\t')
}

/// E.164: `^\+[1-9]\d{1,14}$`.
pub fn is_e164(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3
        && b.len() <= 16
        && b[0] == b'+'
        && (b'1'..=b'9').contains(&b[1])
        && b[2..].iter().all(u8::is_ascii_digit)
}

/// A plausible e-mail address: one `@`, a local part of 1-64 printable characters without
/// spaces, a domain of dot-separated labels (letters, digits, hyphens) with a dot at least.
pub fn is_email(s: &str) -> bool {
    if s.len() > 254 {
        return false;
    }
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    if local.is_empty()
        || local.len() > 64
        || local
            .chars()
            .any(|c| c.is_whitespace() || c.is_control() || c == '@' || c == '<' || c == '>')
    {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        })
}

/// An absolute `http` or `https` URI with a host and no whitespace.
pub fn is_http_url(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    let rest = if let Some(r) = lower.strip_prefix("https://") {
        r
    } else if let Some(r) = lower.strip_prefix("http://") {
        r
    } else {
        return false;
    };
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let host_port = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = host_port.rsplit('@').next().unwrap_or("");
    let host = if host.starts_with('[') {
        host.split(']').next().unwrap_or("")
    } else {
        host.split(':').next().unwrap_or("")
    };
    !host.is_empty() && host.len() <= 253
}

/// The pairs of a query string, decoded (`+` is a space, percent escapes decoded).
pub fn query_pairs(raw: Option<&str>) -> Vec<(String, String)> {
    match raw {
        None => Vec::new(),
        Some(q) => form_urlencoded::parse(q.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect(),
    }
}

/// Why a request body was refused.
pub enum BodyError {
    /// The body is not `application/json`.
    ContentType,
    /// The body is not JSON.
    Syntax(String),
    /// The body is JSON but not an object.
    NotObject,
}

impl BodyError {
    /// A message for the error body.
    pub fn message(&self) -> String {
        match self {
            BodyError::ContentType => {
                "The request body must be sent with Content-Type: application/json".to_string()
            }
            BodyError::Syntax(e) => format!("The request body is not valid JSON: {e}"),
            BodyError::NotObject => "The request body must be a JSON object".to_string(),
        }
    }
}

/// The JSON object of a request body; `Ok(None)` for an empty body (no bytes, or only
/// whitespace). A non-empty body must be labelled JSON.
pub fn json_object(
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Option<Map<String, Value>>, BodyError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let ct = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mime = ct.split(';').next().unwrap_or("").trim().to_string();
    if mime != "application/json" && !(mime.starts_with("application/") && mime.ends_with("+json"))
    {
        return Err(BodyError::ContentType);
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(Some(m)),
        Ok(_) => Err(BodyError::NotObject),
        Err(e) => Err(BodyError::Syntax(e.to_string())),
    }
}

/// The JSON type name of a value (for `errors[].schema.type` and messages).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// One item of a v1 `errors` array: `{path, message, schema: {type}, value}`.
pub fn err_item(path: &str, message: &str, expected_type: &str, value: &Value) -> Value {
    serde_json::json!({
        "path": path,
        "message": message,
        "schema": {"type": expected_type},
        "value": value,
    })
}

// ------------------------------------------------------------------------------------------
// Keyset page tokens: a token names the sort key of the last item of the page it ends and the
// query it belongs to (a fingerprint of the caller and of every parameter but the token and the
// page size), with a keyed hash; an item created or removed meanwhile never makes a walk repeat
// an id, and a token is refused for another query or caller.

fn secret() -> &'static RandomState {
    static SECRET: OnceLock<RandomState> = OnceLock::new();
    SECRET.get_or_init(RandomState::new)
}

/// The fingerprint of a list query: the caller's key and the other parameters, sorted.
pub fn fingerprint(area: &str, caller_key: &str, pairs: &[(String, String)]) -> u64 {
    let mut rest: Vec<(&str, &str)> = pairs
        .iter()
        .filter(|(k, _)| k != "pageToken" && k != "maxResults")
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    rest.sort();
    secret().hash_one((area, caller_key, rest))
}

fn mac(fp: u64, ts: i128, seq: u64) -> u64 {
    secret().hash_one(("contacts-tasks keyset token", fp, ts, seq))
}

/// The token continuing after the item of sort key `(ts, seq)`.
pub fn issue_token(prefix: &str, fp: u64, ts: i128, seq: u64) -> String {
    use base64::Engine;
    let raw = format!("{fp:016x}~{ts}~{seq}~{:016x}", mac(fp, ts, seq));
    format!(
        "{prefix}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
    )
}

/// The sort key a token names, when this process issued it for the query of fingerprint `fp`.
pub fn read_token(prefix: &str, token: &str, fp: u64) -> Option<(i128, u64)> {
    use base64::Engine;
    let b64 = token.strip_prefix(prefix)?;
    if b64.is_empty() || b64.len() > 400 {
        return None;
    }
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(b64)
        .ok()?;
    let raw = String::from_utf8(raw).ok()?;
    let parts: Vec<&str> = raw.split('~').collect();
    if parts.len() != 4 {
        return None;
    }
    let tfp = u64::from_str_radix(parts[0], 16).ok()?;
    let ts: i128 = parts[1].parse().ok()?;
    let seq: u64 = parts[2].parse().ok()?;
    let m = u64::from_str_radix(parts[3], 16).ok()?;
    if tfp != fp || m != mac(tfp, ts, seq) {
        return None;
    }
    Some((ts, seq))
}

/// One page of `(key, item)` pairs sorted by key in `desc` or ascending order, after the
/// cursor; returns the page and the key of its last item when more items follow.
pub fn keyset_page<T>(
    mut items: Vec<((i128, u64), T)>,
    desc: bool,
    after: Option<(i128, u64)>,
    max: usize,
) -> (Vec<T>, Option<(i128, u64)>) {
    items.sort_by(|a, b| if desc { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) });
    let mut rest: Vec<((i128, u64), T)> = match after {
        None => items,
        Some(c) => items
            .into_iter()
            .filter(|(k, _)| if desc { *k < c } else { *k > c })
            .collect(),
    };
    let more = rest.len() > max;
    rest.truncate(max);
    let last = if more {
        rest.last().map(|(k, _)| *k)
    } else {
        None
    };
    (rest.into_iter().map(|(_, t)| t).collect(), last)
}

/// `maxResults`: absent gives `default` (or Err when `required`); else plain decimal digits
/// within `1..=max`.
pub fn max_results(raw: Option<&str>, default: Option<usize>, max: usize) -> Result<usize, String> {
    match raw {
        None => {
            default.ok_or_else(|| format!("maxResults is required: an integer from 1 to {max}"))
        }
        Some(s) => {
            let ok = !s.is_empty()
                && s.len() <= 4
                && s.bytes().all(|b| b.is_ascii_digit())
                && !(s.len() > 1 && s.starts_with('0'));
            match s.parse::<usize>() {
                Ok(n) if ok && (1..=max).contains(&n) => Ok(n),
                _ => Err(format!(
                    "maxResults must be an integer from 1 to {max}, got `{s}`"
                )),
            }
        }
    }
}
