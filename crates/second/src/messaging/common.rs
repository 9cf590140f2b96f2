//! Helpers shared by the messaging and calls areas: time, ids, query parsing, error answers of
//! both generations, keyset page tokens, JSON bodies, number access. OWNER: messaging-calls.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

use axum::http::{HeaderMap, StatusCode, header};
use axum::response::Response;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::app::App;
use crate::errors;

// ---------------------------------------------------------------------------------------------
// Time.

/// An instant (always UTC, millisecond precision).
pub type Ts = OffsetDateTime;

/// Now, truncated to the millisecond.
pub fn now() -> Ts {
    truncate_ms(OffsetDateTime::now_utc())
}

/// The instant at millisecond precision.
pub fn truncate_ms(t: Ts) -> Ts {
    let ms = t.millisecond();
    t.replace_nanosecond(u32::from(ms) * 1_000_000).unwrap_or(t)
}

/// RFC 3339 in UTC with milliseconds and `Z`: `2025-11-03T09:41:27.115Z`.
pub fn fmt(t: Ts) -> String {
    let t = t.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}

/// `fmt` of an optional instant, `null` when absent.
pub fn fmt_opt(t: Option<Ts>) -> Value {
    match t {
        Some(t) => Value::String(fmt(t)),
        None => Value::Null,
    }
}

/// An RFC 3339 date-time with a time zone (`Z` or an offset); a date alone, a time without a
/// zone, or anything else is refused.
pub fn parse_instant(s: &str) -> Option<Ts> {
    if s.len() < 20 || s.len() > 40 {
        return None;
    }
    crate::paging::parse_time(s).map(|t| t.to_offset(time::UtcOffset::UTC))
}

/// Nanoseconds since the epoch (the primary part of a sort key).
pub fn nanos(t: Ts) -> i128 {
    t.unix_timestamp_nanos()
}

// ---------------------------------------------------------------------------------------------
// Identifiers.

const B62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// A fresh random id: `prefix` + `len` base-62 characters.
pub fn random_id(prefix: &str, len: usize) -> String {
    let mut out = String::with_capacity(prefix.len() + len);
    out.push_str(prefix);
    for _ in 0..len {
        let i: usize = rand::random_range(0..B62.len());
        out.push(B62[i] as char);
    }
    out
}

/// A deterministic id for seeded data: `prefix` + `len` base-62 characters derived from `label`.
pub fn seeded_id(prefix: &str, label: &str, len: usize) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    let mut out = String::with_capacity(prefix.len() + len);
    out.push_str(prefix);
    for _ in 0..len {
        h ^= h >> 29;
        h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h ^= h >> 32;
        out.push(B62[(h % 62) as usize] as char);
    }
    out
}

/// A path id as sent; one that cannot be decoded is read as empty (refused as malformed later).
pub fn path_id(
    p: Result<axum::extract::Path<String>, axum::extract::rejection::PathRejection>,
) -> String {
    match p {
        Ok(axum::extract::Path(s)) => s,
        Err(_) => String::new(),
    }
}

/// Whether `id` has the given prefix followed by 1 to 64 ASCII letters, digits, `_` or `-`.
pub fn id_shape(id: &str, prefix: &str) -> bool {
    match id.strip_prefix(prefix) {
        Some(rest) => {
            !rest.is_empty()
                && rest.len() <= 64
                && rest
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        }
        None => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Phone numbers.

/// Whether `s` is E.164.
pub fn is_e164(s: &str) -> bool {
    crate::paging::is_e164(s)
}

/// The ITU country calling code of an E.164 number (digits after `+`).
pub fn country_code(e164: &str) -> &str {
    let digits = e164.strip_prefix('+').unwrap_or(e164);
    let first = digits.as_bytes().first().copied().unwrap_or(b'0');
    if first == b'1' || first == b'7' {
        return digits.get(..1).unwrap_or(digits);
    }
    const TWO: &[&str] = &[
        "20", "27", "30", "31", "32", "33", "34", "36", "39", "40", "41", "43", "44", "45", "46",
        "47", "48", "49", "51", "52", "53", "54", "55", "56", "57", "58", "60", "61", "62", "63",
        "64", "65", "66", "81", "82", "84", "86", "90", "91", "92", "93", "94", "95", "98",
    ];
    match digits.get(..2) {
        Some(two) if TWO.contains(&two) => two,
        _ => digits.get(..3).unwrap_or(digits),
    }
}

/// Whether the user may act on the number: one of its users, or an owner or admin of the
/// number's workspace.
pub fn can_use_number(app: &App, user_id: &str, number_id: &str) -> bool {
    let Some(number) = app.directory.number(number_id) else {
        return false;
    };
    if number.user_ids.iter().any(|u| u == user_id) {
        return true;
    }
    match app.directory.user(user_id) {
        Some(u) => u.org_id == number.org_id && app.directory.is_admin(user_id),
        None => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Errors of both generations.

/// The v1 codes of an area (READINGS 3.4 and 3.5).
pub struct V1Area {
    pub c400: &'static str,
    pub t400: &'static str,
    pub c401: &'static str,
    pub c402: &'static str,
    pub c403: &'static str,
    pub t403: &'static str,
    pub c404: &'static str,
    pub c415: &'static str,
    pub c422: &'static str,
}

/// `/v1/messages`.
pub const MESSAGES: V1Area = V1Area {
    c400: "0202400",
    t400: "Invalid Request",
    c401: "0200401",
    c402: "0201402",
    c403: "0202403",
    t403: "Not Phone Number User",
    c404: "0200404",
    c415: "0202415",
    c422: "0202422",
};

/// `/v1/calls`.
pub const CALLS: V1Area = V1Area {
    c400: "0102400",
    t400: "Invalid Request",
    c401: "0100401",
    c402: "0102402",
    c403: "0101403",
    t403: "Not Phone Number User",
    c404: "0100404",
    c415: "0102415",
    c422: "0102422",
};

/// `/v1/call-recordings`.
pub const RECORDINGS: V1Area = V1Area {
    c400: "0900400",
    t400: "Bad Request",
    c401: "0900401",
    c402: "0902402",
    c403: "0901403",
    t403: "Not Phone Number User",
    c404: "0900404",
    c415: "0902415",
    c422: "0902422",
};

/// `/v1/conversations`.
pub const CONVERSATIONS: V1Area = V1Area {
    c400: "1000400",
    t400: "Bad Request",
    c401: "1000401",
    c402: "1002402",
    c403: "1001403",
    t403: "Not Phone Number User",
    c404: "1000404",
    c415: "1002415",
    c422: "1002422",
};

/// One invalid input: where, why, what was sent, and the expected JSON type.
#[derive(Debug, Clone)]
pub struct Invalid {
    pub path: String,
    pub message: String,
    pub value: Value,
    pub ty: &'static str,
}

impl Invalid {
    /// An invalid value at `path`.
    pub fn new(
        path: impl Into<String>,
        message: impl Into<String>,
        value: Value,
        ty: &'static str,
    ) -> Invalid {
        Invalid {
            path: path.into(),
            message: message.into(),
            value,
            ty,
        }
    }

    /// An invalid query parameter (string-typed).
    pub fn query(name: &str, message: impl Into<String>, value: &str) -> Invalid {
        Invalid::new(
            format!("query.{name}"),
            message,
            Value::String(value.to_string()),
            "string",
        )
    }
}

/// The generation (and for v1, the area) an answer's errors take.
#[derive(Clone, Copy)]
pub enum Gen {
    V1(&'static V1Area),
    Latest,
}

impl Gen {
    /// 401.
    pub fn unauthorized(self) -> Response {
        match self {
            Gen::V1(a) => errors::v1(
                StatusCode::UNAUTHORIZED,
                a.c401,
                "Unauthorized",
                "Missing or invalid API key in the Authorization header",
            ),
            Gen::Latest => errors::latest(
                StatusCode::UNAUTHORIZED,
                "Unauthorized",
                "Missing or invalid API key in the Authorization header",
            ),
        }
    }

    /// 400 for one invalid input.
    pub fn invalid(self, inv: Invalid) -> Response {
        let msg = format!("{}: {}", inv.path, inv.message);
        match self {
            Gen::V1(a) => {
                let item = errors::error_item(&inv.path, &inv.message, inv.value, inv.ty, None);
                errors::v1_errors(StatusCode::BAD_REQUEST, a.c400, a.t400, msg, vec![item])
            }
            Gen::Latest => errors::latest(StatusCode::BAD_REQUEST, "Bad Request", msg),
        }
    }

    /// 400 with a specific code and title (v1) or the title alone (latest).
    pub fn bad_coded(self, code: &str, title: &str, message: impl Into<String>) -> Response {
        match self {
            Gen::V1(_) => errors::v1(StatusCode::BAD_REQUEST, code, title, message),
            Gen::Latest => errors::latest(StatusCode::BAD_REQUEST, title, message),
        }
    }

    /// 402 Subscription Expired.
    pub fn expired(self) -> Response {
        let msg = "The workspace's subscription has expired; renew it to send messages";
        match self {
            Gen::V1(a) => errors::v1(
                StatusCode::PAYMENT_REQUIRED,
                a.c402,
                "Subscription Expired",
                msg,
            ),
            Gen::Latest => {
                errors::latest(StatusCode::PAYMENT_REQUIRED, "Subscription Expired", msg)
            }
        }
    }

    /// 403 of a number-scoped check (or the area's Forbidden).
    pub fn not_number_user(self, message: impl Into<String>) -> Response {
        match self {
            Gen::V1(a) => errors::v1(StatusCode::FORBIDDEN, a.c403, a.t403, message),
            Gen::Latest => errors::latest(StatusCode::FORBIDDEN, "Not Phone Number User", message),
        }
    }

    /// 403 with a specific code and title.
    pub fn forbidden_coded(self, code: &str, title: &str, message: impl Into<String>) -> Response {
        match self {
            Gen::V1(_) => errors::v1(StatusCode::FORBIDDEN, code, title, message),
            Gen::Latest => errors::latest(StatusCode::FORBIDDEN, title, message),
        }
    }

    /// 404.
    pub fn not_found(self, message: impl Into<String>) -> Response {
        match self {
            Gen::V1(a) => errors::v1(StatusCode::NOT_FOUND, a.c404, "Not Found", message),
            Gen::Latest => errors::latest(StatusCode::NOT_FOUND, "Not Found", message),
        }
    }

    /// 415.
    pub fn unsupported_media(self) -> Response {
        let msg = "The request body must be JSON (Content-Type: application/json)";
        match self {
            Gen::V1(a) => errors::v1(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                a.c415,
                "Unsupported Media Type",
                msg,
            ),
            Gen::Latest => errors::latest(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "Unsupported Media Type",
                msg,
            ),
        }
    }

    /// 422 with a title.
    pub fn unprocessable(self, title: &str, message: impl Into<String>) -> Response {
        match self {
            Gen::V1(a) => errors::v1(StatusCode::UNPROCESSABLE_ENTITY, a.c422, title, message),
            Gen::Latest => errors::latest(StatusCode::UNPROCESSABLE_ENTITY, title, message),
        }
    }
}

/// A handler's result: the success answer or the error answer.
pub type Answer = Result<Response, Response>;

/// `{data: value}` with a status.
pub fn data(status: StatusCode, value: Value) -> Response {
    errors::json_response(status, &json!({ "data": value }))
}

/// A list answer.
pub fn list(items: Vec<Value>, total: usize, next: Option<String>) -> Response {
    errors::json_response(
        StatusCode::OK,
        &crate::paging::list_body(items, total, next),
    )
}

// ---------------------------------------------------------------------------------------------
// Query strings.

/// The decoded pairs of a query string.
pub struct Query {
    pairs: Vec<(String, String)>,
}

impl Query {
    /// Parses a raw query string (a `+` is a literal plus).
    pub fn parse(raw: Option<&str>) -> Query {
        Query {
            pairs: crate::paging::parse_query(raw),
        }
    }

    /// Refuses a parameter not in `allowed`.
    pub fn only(&self, allowed: &[&str]) -> Result<(), Invalid> {
        for (k, v) in &self.pairs {
            if !allowed.contains(&k.as_str()) {
                let msg = if allowed.is_empty() {
                    format!("unknown query parameter `{k}`; this route takes none")
                } else {
                    format!(
                        "unknown query parameter `{k}`; accepted: {}",
                        allowed.join(", ")
                    )
                };
                return Err(Invalid::query(k, msg, v));
            }
        }
        Ok(())
    }

    /// A parameter given at most once, not empty.
    pub fn one(&self, name: &str) -> Result<Option<&str>, Invalid> {
        let mut found: Option<&str> = None;
        for (k, v) in &self.pairs {
            if k == name {
                if found.is_some() {
                    return Err(Invalid::query(name, "must be given at most once", v));
                }
                if v.is_empty() {
                    return Err(Invalid::query(name, "must not be empty", v));
                }
                found = Some(v.as_str());
            }
        }
        Ok(found)
    }

    /// Every value of a repeated parameter (none empty).
    pub fn all(&self, name: &str) -> Result<Vec<&str>, Invalid> {
        let mut out = Vec::new();
        for (k, v) in &self.pairs {
            if k == name {
                if v.is_empty() {
                    return Err(Invalid::query(name, "must not be empty", v));
                }
                out.push(v.as_str());
            }
        }
        Ok(out)
    }

    /// A date-time parameter.
    pub fn instant(&self, name: &str) -> Result<Option<Ts>, Invalid> {
        match self.one(name)? {
            None => Ok(None),
            Some(v) => parse_instant(v).map(Some).ok_or_else(|| {
                Invalid::query(
                    name,
                    "must be an RFC 3339 date-time with a time zone, e.g. 2025-01-31T12:00:00Z",
                    v,
                )
            }),
        }
    }

    /// `maxResults` in `1..=max` (absent: `default`).
    pub fn max_results(&self, default: usize, max: usize) -> Result<usize, Invalid> {
        let raw = self.one("maxResults")?;
        if let Some(v) = raw {
            if v.len() > 1 && v.starts_with('0') {
                return Err(Invalid::query(
                    "maxResults",
                    format!("must be an integer from 1 to {max}"),
                    v,
                ));
            }
        }
        crate::paging::max_results(raw, default, max).map_err(|m| {
            Invalid::query(
                "maxResults",
                m.trim_start_matches("maxResults "),
                raw.unwrap_or(""),
            )
        })
    }

    /// A canonical text of the query without `pageToken` and `maxResults`, for page tokens.
    pub fn fingerprint(&self, scope: &str) -> String {
        let mut pairs: Vec<&(String, String)> = self
            .pairs
            .iter()
            .filter(|(k, _)| k != "pageToken" && k != "maxResults")
            .collect();
        pairs.sort();
        let mut out = scope.to_string();
        for (k, v) in pairs {
            out.push('\u{1f}');
            out.push_str(k);
            out.push('=');
            out.push_str(v);
        }
        out
    }
}

/// The values of a comma-separated set (`[in]`), each non-empty.
pub fn comma_set<'a>(name: &str, v: &'a str) -> Result<Vec<&'a str>, Invalid> {
    let items: Vec<&str> = v.split(',').collect();
    if items.iter().any(|i| i.is_empty()) {
        return Err(Invalid::query(
            name,
            "must be a comma-separated list of non-empty values",
            v,
        ));
    }
    if items.len() > 100 {
        return Err(Invalid::query(name, "takes at most 100 values", v));
    }
    Ok(items)
}

/// A time range of a latest-generation filter (`field`, `field[gt]`, `[gte]`, `[lt]`, `[lte]`).
#[derive(Default, Clone, Copy)]
pub struct Range {
    pub eq: Option<Ts>,
    pub gt: Option<Ts>,
    pub gte: Option<Ts>,
    pub lt: Option<Ts>,
    pub lte: Option<Ts>,
}

impl Range {
    /// Reads the range of `field` from the query.
    pub fn read(q: &Query, field: &str) -> Result<Range, Invalid> {
        Ok(Range {
            eq: q.instant(field)?,
            gt: q.instant(&format!("{field}[gt]"))?,
            gte: q.instant(&format!("{field}[gte]"))?,
            lt: q.instant(&format!("{field}[lt]"))?,
            lte: q.instant(&format!("{field}[lte]"))?,
        })
    }

    /// The names this range accepts.
    pub fn names(field: &str) -> Vec<String> {
        ["", "[gt]", "[gte]", "[lt]", "[lte]"]
            .iter()
            .map(|op| format!("{field}{op}"))
            .collect()
    }

    /// Whether `t` is in the range.
    pub fn holds(&self, t: Ts) -> bool {
        self.eq.is_none_or(|x| t == x)
            && self.gt.is_none_or(|x| t > x)
            && self.gte.is_none_or(|x| t >= x)
            && self.lt.is_none_or(|x| t < x)
            && self.lte.is_none_or(|x| t <= x)
    }
}

/// `sort=field:dir` among `fields`: (field, descending); absent gives the default.
pub fn read_sort(
    q: &Query,
    fields: &[&'static str],
    default: (&'static str, bool),
) -> Result<(&'static str, bool), Invalid> {
    let Some(v) = q.one("sort")? else {
        return Ok(default);
    };
    let bad = || {
        let allowed: Vec<String> = fields
            .iter()
            .flat_map(|f| [format!("{f}:asc"), format!("{f}:desc")])
            .collect();
        Invalid::query("sort", format!("must be one of {}", allowed.join(", ")), v)
    };
    let (f, d) = v.split_once(':').ok_or_else(bad)?;
    let field = fields.iter().find(|x| **x == f).ok_or_else(bad)?;
    let desc = match d {
        "asc" => false,
        "desc" => true,
        _ => return Err(bad()),
    };
    Ok((field, desc))
}

/// A filter on an enumerated field: `field` (one value) and `field[in]` (a set); every value
/// must be one of `allowed`, written exactly. None: no filter.
pub fn enum_filter(
    q: &Query,
    field: &str,
    allowed: &[&str],
) -> Result<Option<Vec<String>>, Invalid> {
    let mut out: Option<Vec<String>> = None;
    if let Some(v) = q.one(field)? {
        if !allowed.contains(&v) {
            return Err(Invalid::query(
                field,
                format!("must be one of {}", allowed.join(", ")),
                v,
            ));
        }
        out = Some(vec![v.to_string()]);
    }
    let name = format!("{field}[in]");
    if let Some(v) = q.one(&name)? {
        let set = comma_set(&name, v)?;
        for s in &set {
            if !allowed.contains(s) {
                return Err(Invalid::query(
                    &name,
                    format!("values must be among {}", allowed.join(", ")),
                    v,
                ));
            }
        }
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        out = Some(match out {
            None => set,
            Some(one) => one.into_iter().filter(|x| set.contains(x)).collect(),
        });
    }
    Ok(out)
}

/// A filter on an id field: `field` and `field[in]`, each value with the `prefix`.
pub fn id_filter(
    q: &Query,
    field: &str,
    prefixes: &[&str],
) -> Result<Option<Vec<String>>, Invalid> {
    let ok = |s: &str| prefixes.iter().any(|p| id_shape(s, p));
    let msg = format!("must be an id starting with {}", prefixes.join(" or "));
    let mut out: Option<Vec<String>> = None;
    if let Some(v) = q.one(field)? {
        if !ok(v) {
            return Err(Invalid::query(field, msg.clone(), v));
        }
        out = Some(vec![v.to_string()]);
    }
    let name = format!("{field}[in]");
    if let Some(v) = q.one(&name)? {
        let set = comma_set(&name, v)?;
        if set.iter().any(|s| !ok(s)) {
            return Err(Invalid::query(&name, format!("values {msg}"), v));
        }
        let set: Vec<String> = set.iter().map(|s| s.to_string()).collect();
        out = Some(match out {
            None => set,
            Some(one) => one.into_iter().filter(|x| set.contains(x)).collect(),
        });
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Keyset pages.

/// A sort key: (instant in nanoseconds, creation sequence) - a total order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Key(pub i128, pub u64);

fn secret() -> &'static RandomState {
    static SECRET: OnceLock<RandomState> = OnceLock::new();
    SECRET.get_or_init(RandomState::new)
}

fn token_mac(scope_hash: u64, key: Key) -> u64 {
    secret().hash_one((scope_hash, key.0, key.1, "messaging-calls keyset token"))
}

fn issue_token(scope: &str, key: Key) -> String {
    use base64::Engine;
    let sh = secret().hash_one(scope);
    let raw = format!(
        "{sh:016x}.{:x}.{:x}.{:016x}",
        key.0,
        key.1,
        token_mac(sh, key)
    );
    format!(
        "ks{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
    )
}

fn read_token(scope: &str, token: &str) -> Option<Key> {
    use base64::Engine;
    let b64 = token.strip_prefix("ks")?;
    if b64.is_empty() || b64.len() > 200 {
        return None;
    }
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(b64)
        .ok()?;
    let raw = String::from_utf8(raw).ok()?;
    let mut parts = raw.split('.');
    let sh = u64::from_str_radix(parts.next()?, 16).ok()?;
    let t = i128::from_str_radix(parts.next()?, 16).ok()?;
    let seq = u64::from_str_radix(parts.next()?, 16).ok()?;
    let mac = u64::from_str_radix(parts.next()?, 16).ok()?;
    if parts.next().is_some() {
        return None;
    }
    let key = Key(t, seq);
    if sh != secret().hash_one(scope) || mac != token_mac(sh, key) {
        return None;
    }
    Some(key)
}

/// One page of `items` in key order (descending when `desc`), after the token's key.
/// Returns (page, total matching, next token); Err for a token not issued for this query.
pub fn keyset_page(
    items: Vec<(Key, Value)>,
    desc: bool,
    token: Option<&str>,
    scope: &str,
    max: usize,
) -> Result<(Vec<Value>, usize, Option<String>), Invalid> {
    keyset_page_opts(items, desc, token, scope, max, false)
}

/// `keyset_page`; with `skip_one`, the next token continues after the item that follows the
/// page's last one (an injected fault).
pub fn keyset_page_opts(
    mut items: Vec<(Key, Value)>,
    desc: bool,
    token: Option<&str>,
    scope: &str,
    max: usize,
    skip_one: bool,
) -> Result<(Vec<Value>, usize, Option<String>), Invalid> {
    items.sort_by(|a, b| if desc { b.0.cmp(&a.0) } else { a.0.cmp(&b.0) });
    let total = items.len();
    let after = match token {
        None => None,
        Some(t) => Some(read_token(scope, t).ok_or_else(|| {
            Invalid::query(
                "pageToken",
                "is not a token this service issued for this query (send the same filters as the page it came from)",
                t,
            )
        })?),
    };
    let rest: Vec<(Key, Value)> = items
        .into_iter()
        .filter(|(k, _)| match after {
            None => true,
            Some(a) => {
                if desc {
                    *k < a
                } else {
                    *k > a
                }
            }
        })
        .collect();
    let more = rest.len() > max;
    let skipped = if skip_one && rest.len() > max + 1 {
        rest.get(max).map(|(k, _)| *k)
    } else {
        None
    };
    let page: Vec<(Key, Value)> = rest.into_iter().take(max).collect();
    let next = if more {
        skipped
            .or_else(|| page.last().map(|(k, _)| *k))
            .map(|k| issue_token(scope, k))
    } else {
        None
    };
    Ok((page.into_iter().map(|(_, v)| v).collect(), total, next))
}

// ---------------------------------------------------------------------------------------------
// JSON bodies.

/// Why a body was refused.
pub enum BodyError {
    /// Not JSON by its Content-Type.
    MediaType,
    /// Not a JSON object.
    Invalid(Invalid),
}

impl BodyError {
    /// The answer in a generation's shape.
    pub fn answer(self, g: Gen) -> Response {
        match self {
            BodyError::MediaType => g.unsupported_media(),
            BodyError::Invalid(i) => g.invalid(i),
        }
    }
}

fn json_content_type(headers: &HeaderMap) -> bool {
    match headers.get(header::CONTENT_TYPE).map(|v| v.to_str()) {
        // No Content-Type at all: the body is read as JSON.
        None => true,
        Some(Err(_)) => false,
        Some(Ok(ct)) => {
            let base = ct
                .split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            base == "application/json"
                || (base.starts_with("application/") && base.ends_with("+json"))
        }
    }
}

/// A body that must be a JSON object.
pub fn object_body(headers: &HeaderMap, body: &[u8]) -> Result<Map<String, Value>, BodyError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(BodyError::Invalid(Invalid::new(
            "body",
            "a JSON object is required",
            Value::Null,
            "object",
        )));
    }
    if !json_content_type(headers) {
        return Err(BodyError::MediaType);
    }
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Object(m)) => Ok(m),
        Ok(other) => Err(BodyError::Invalid(Invalid::new(
            "body",
            "must be a JSON object",
            other,
            "object",
        ))),
        Err(e) => Err(BodyError::Invalid(Invalid::new(
            "body",
            format!("is not valid JSON: {e}"),
            Value::Null,
            "object",
        ))),
    }
}

/// A body of an action that takes no input: empty, or the empty object `{}`.
pub fn empty_body(headers: &HeaderMap, body: &[u8]) -> Result<(), BodyError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let m = object_body(headers, body)?;
    if let Some(k) = m.keys().next() {
        return Err(BodyError::Invalid(Invalid::new(
            format!("body.{k}"),
            "this action takes no fields; send no body or {}",
            m.get(k).cloned().unwrap_or(Value::Null),
            "object",
        )));
    }
    Ok(())
}

/// Refuses a field of `m` not in `allowed`.
pub fn only_fields(m: &Map<String, Value>, allowed: &[&str]) -> Result<(), Invalid> {
    for (k, v) in m {
        if !allowed.contains(&k.as_str()) {
            return Err(Invalid::new(
                format!("body.{k}"),
                format!("unknown field; accepted: {}", allowed.join(", ")),
                v.clone(),
                "object",
            ));
        }
    }
    Ok(())
}

/// A string field (None when absent; null refused).
pub fn str_field<'a>(m: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, Invalid> {
    match m.get(name) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.as_str())),
        Some(other) => Err(Invalid::new(
            format!("body.{name}"),
            "must be a string",
            other.clone(),
            "string",
        )),
    }
}
