//! Page tokens and page sizes. OWNER: core.
//!
//! A token names the position after the last item of the page it ends (its offset and that
//! item's id) and carries a keyed hash of both, so a token this process never issued is refused.
//! Continuing finds the named item in the (re-filtered, re-sorted) items and goes on after it, so
//! an item created before it does not make the walk repeat an id; a token whose item is not in the
//! items (another query) is refused.

use std::hash::{BuildHasher, RandomState};
use std::sync::OnceLock;

use serde_json::{Value, json};

/// The keyed hasher of this process's tokens (random keys per process).
fn secret() -> &'static RandomState {
    static SECRET: OnceLock<RandomState> = OnceLock::new();
    SECRET.get_or_init(RandomState::new)
}

/// The id of a list item: `id`, else `taskId`, else `eventId`, else `phoneNumber`; None when it has none.
fn item_key(item: &Value) -> Option<String> {
    ["id", "taskId", "eventId", "phoneNumber"]
        .iter()
        .find_map(|k| item.get(*k).and_then(Value::as_str).map(str::to_string))
}

fn mac(offset: usize, key: &str) -> u64 {
    secret().hash_one((offset, key, "second-implementation page token"))
}

/// The token that continues after `offset` items, the last of which has id `key`.
fn issue(offset: usize, key: &str) -> String {
    use base64::Engine;
    let raw = format!("{offset}:{:016x}:{key}", mac(offset, key));
    format!(
        "pt_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(raw)
    )
}

/// (offset, key) of a token this process issued; None for anything else.
fn parse(token: &str) -> Option<(usize, String)> {
    use base64::Engine;
    let b64 = token.strip_prefix("pt_")?;
    if b64.is_empty() || b64.len() > 2048 {
        return None;
    }
    let raw = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(b64)
        .ok()?;
    let raw = String::from_utf8(raw).ok()?;
    let mut parts = raw.splitn(3, ':');
    let offset: usize = parts.next()?.parse().ok()?;
    let m = u64::from_str_radix(parts.next()?, 16).ok()?;
    let key = parts.next()?.to_string();
    if mac(offset, &key) != m {
        return None;
    }
    Some((offset, key))
}

/// One page of `items` (already filtered and sorted) after `token`, at most `max` items;
/// Err(()) for a token this instance never issued for that query.
#[allow(clippy::result_unit_err)]
pub fn page(
    items: Vec<Value>,
    token: Option<&str>,
    max: usize,
) -> Result<(Vec<Value>, Option<String>), ()> {
    page_opts(items, token, max, false)
}

/// `page`; with `overlap` (an injected fault), a page after a token starts again with the last
/// item of the page before it (only when `max` > 1, so that a walk still ends).
#[allow(clippy::result_unit_err)]
pub fn page_opts(
    items: Vec<Value>,
    token: Option<&str>,
    max: usize,
    overlap: bool,
) -> Result<(Vec<Value>, Option<String>), ()> {
    let max = max.max(1);
    let start = match token {
        None => 0,
        Some(t) => {
            let (offset, key) = parse(t).ok_or(())?;
            if key.is_empty() {
                // Items without ids: the offset alone.
                if offset > items.len() {
                    return Err(());
                }
                offset
            } else if offset >= 1
                && items.get(offset - 1).and_then(item_key).as_deref() == Some(key.as_str())
            {
                offset
            } else {
                // The item moved (items created or removed before it): continue after it.
                let pos = items
                    .iter()
                    .position(|i| item_key(i).as_deref() == Some(key.as_str()))
                    .ok_or(())?;
                pos + 1
            }
        }
    };
    let start = if overlap && token.is_some() && max > 1 {
        start.saturating_sub(1)
    } else {
        start
    };
    let total = items.len();
    let end = (start + max).min(total);
    let next = if end < total {
        let key = items.get(end - 1).and_then(item_key).unwrap_or_default();
        Some(issue(end, &key))
    } else {
        None
    };
    let page: Vec<Value> = items.into_iter().skip(start).take(end - start).collect();
    Ok((page, next))
}

/// `{data, totalItems, nextPageToken}`.
pub fn list_body(items: Vec<Value>, total: usize, next: Option<String>) -> Value {
    json!({
        "data": items,
        "totalItems": total,
        "nextPageToken": next,
    })
}

/// `maxResults` of a query: absent gives `default`; otherwise an integer in `1..=max`
/// (written in plain decimal digits), else Err with a message for a 400.
pub fn max_results(raw: Option<&str>, default: usize, max: usize) -> Result<usize, String> {
    match raw {
        None => Ok(default),
        Some(s) => {
            let s = s.trim();
            if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(format!("maxResults must be an integer from 1 to {max}"));
            }
            match s.parse::<usize>() {
                Ok(n) if (1..=max).contains(&n) => Ok(n),
                _ => Err(format!("maxResults must be an integer from 1 to {max}")),
            }
        }
    }
}

/// The pairs of a raw query string, percent-decoded. A `+` is a literal plus (RFC 3986), not a
/// space, so an E.164 number may be sent with its `+` unencoded.
pub fn parse_query(raw: Option<&str>) -> Vec<(String, String)> {
    let Some(raw) = raw else { return Vec::new() };
    let escaped = raw.replace('+', "%2B");
    form_urlencoded::parse(escaped.as_bytes())
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// Whether `s` is an E.164 number (`^\+[1-9]\d{1,14}$`).
pub fn is_e164(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3
        && b.len() <= 16
        && b[0] == b'+'
        && (b'1'..=b'9').contains(&b[1])
        && b[2..].iter().all(u8::is_ascii_digit)
}

/// Parses an RFC 3339 date-time.
pub fn parse_time(s: &str) -> Option<time::OffsetDateTime> {
    time::OffsetDateTime::parse(s, &time::format_description::well_known::Rfc3339).ok()
}

// ---------------------------------------------------------------------------------------------
// Header-versioned collections: `field=value`, `field[op]=value`, `sort=field:dir`, `maxResults`,
// `pageToken`, over rendered JSON items.

/// The type of a filterable field (how its values are validated and compared).
#[derive(Debug, Clone, Copy)]
pub enum FieldKind {
    /// Any non-empty string, compared exactly (case-sensitive); operators: none, `[in]`.
    Text,
    /// An RFC 3339 date-time compared as an instant; operators: none, `[in]`, `[gt]`, `[gte]`,
    /// `[lt]`, `[lte]`.
    Time,
    /// An E.164 number, compared exactly; operators: none, `[in]`.
    Phone,
    /// One of the listed values, exactly as written; operators: none, `[in]`.
    Enum(&'static [&'static str]),
}

/// A filterable field of a collection.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field's name in the rendered item (top level).
    pub name: &'static str,
    /// How its values are validated and compared.
    pub kind: FieldKind,
}

/// What a collection accepts.
#[derive(Debug, Clone, Copy)]
pub struct CollectionSpec {
    /// Filterable fields.
    pub filters: &'static [Field],
    /// Fields `sort` accepts.
    pub sortable: &'static [&'static str],
    /// The order without `sort`: (field, descending).
    pub default_sort: (&'static str, bool),
    /// Page size without `maxResults`.
    pub default_max: usize,
    /// Largest `maxResults`.
    pub max: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Eq,
    In,
    Gt,
    Gte,
    Lt,
    Lte,
}

/// A validated collection query.
#[derive(Debug, Clone)]
pub struct ListQuery {
    /// The page size.
    pub max: usize,
    /// The page token, when given.
    pub token: Option<String>,
    filters: Vec<(Field, Op, Vec<String>)>,
    sort: (String, bool),
}

/// Validates a collection query: every parameter must be `maxResults`, `pageToken`, `sort`, a
/// filter of `spec`, or one of `extra` (handled by the endpoint itself); none may be given twice.
/// Err: the message of a 400.
pub fn parse_list_query(
    params: &[(String, String)],
    spec: &CollectionSpec,
    extra: &[&str],
) -> Result<ListQuery, String> {
    let mut seen: Vec<&str> = Vec::new();
    let mut max_raw: Option<&str> = None;
    let mut token: Option<String> = None;
    let mut sort = (spec.default_sort.0.to_string(), spec.default_sort.1);
    let mut filters = Vec::new();
    for (k, v) in params {
        if seen.contains(&k.as_str()) {
            return Err(format!("query parameter `{k}` is given more than once"));
        }
        seen.push(k);
        let v = v.trim();
        match k.as_str() {
            "maxResults" => max_raw = Some(v),
            "pageToken" => {
                if v.is_empty() {
                    return Err("pageToken must be a token from a previous nextPageToken".into());
                }
                token = Some(v.to_string());
            }
            "sort" => {
                let (field, dir) = v.split_once(':').ok_or_else(|| {
                    format!("sort must be `field:asc` or `field:desc`, got `{v}`")
                })?;
                if !spec.sortable.contains(&field) {
                    return Err(format!(
                        "sort field `{field}` is not sortable; sortable fields: {}",
                        spec.sortable.join(", ")
                    ));
                }
                let desc = match dir {
                    "asc" => false,
                    "desc" => true,
                    _ => {
                        return Err(format!(
                            "sort direction must be `asc` or `desc`, got `{dir}`"
                        ));
                    }
                };
                sort = (field.to_string(), desc);
            }
            other if extra.contains(&other) => {}
            other => {
                let (name, op) = match other.split_once('[') {
                    None => (other, Op::Eq),
                    Some((name, rest)) => {
                        let op = match rest {
                            "in]" => Op::In,
                            "gt]" => Op::Gt,
                            "gte]" => Op::Gte,
                            "lt]" => Op::Lt,
                            "lte]" => Op::Lte,
                            _ => return Err(format!("unknown filter operator in `{other}`")),
                        };
                        (name, op)
                    }
                };
                let Some(field) = spec.filters.iter().find(|f| f.name == name) else {
                    let mut names: Vec<&str> = vec!["maxResults", "pageToken", "sort"];
                    names.extend(spec.filters.iter().map(|f| f.name));
                    names.extend(extra.iter().copied());
                    return Err(format!(
                        "unknown query parameter `{other}`; accepted: {}",
                        names.join(", ")
                    ));
                };
                let values: Vec<String> = if op == Op::In {
                    v.split(',').map(|s| s.trim().to_string()).collect()
                } else {
                    vec![v.to_string()]
                };
                if op == Op::In && values.len() > 100 {
                    return Err(format!("`{other}` takes at most 100 values"));
                }
                for value in &values {
                    check_value(field, op, value).map_err(|m| format!("`{other}`: {m}"))?;
                }
                filters.push((*field, op, values));
            }
        }
    }
    let max = max_results(max_raw, spec.default_max, spec.max)?;
    Ok(ListQuery {
        max,
        token,
        filters,
        sort,
    })
}

fn check_value(field: &Field, op: Op, value: &str) -> Result<(), String> {
    if value.is_empty() {
        return Err("an empty value is not allowed".into());
    }
    match field.kind {
        FieldKind::Text => {
            if op != Op::Eq && op != Op::In {
                return Err("this field takes only exact and [in] filters".into());
            }
            if value.chars().count() > 200 {
                return Err("a value is at most 200 characters".into());
            }
        }
        FieldKind::Phone => {
            if op != Op::Eq && op != Op::In {
                return Err("this field takes only exact and [in] filters".into());
            }
            if !is_e164(value) {
                return Err(format!(
                    "`{value}` is not an E.164 phone number (^\\+[1-9]\\d{{1,14}}$)"
                ));
            }
        }
        FieldKind::Enum(allowed) => {
            if op != Op::Eq && op != Op::In {
                return Err("this field takes only exact and [in] filters".into());
            }
            if !allowed.contains(&value) {
                return Err(format!("`{value}` is not one of: {}", allowed.join(", ")));
            }
        }
        FieldKind::Time => {
            if parse_time(value).is_none() {
                return Err(format!("`{value}` is not an RFC 3339 date-time"));
            }
        }
    }
    Ok(())
}

fn matches(item: &Value, field: &Field, op: Op, values: &[String]) -> bool {
    let Some(have) = item.get(field.name).and_then(Value::as_str) else {
        return false;
    };
    match field.kind {
        FieldKind::Time => {
            let Some(h) = parse_time(have) else {
                return false;
            };
            let parsed: Vec<time::OffsetDateTime> =
                values.iter().filter_map(|v| parse_time(v)).collect();
            match op {
                Op::Eq | Op::In => parsed.contains(&h),
                Op::Gt => parsed.iter().all(|p| h > *p),
                Op::Gte => parsed.iter().all(|p| h >= *p),
                Op::Lt => parsed.iter().all(|p| h < *p),
                Op::Lte => parsed.iter().all(|p| h <= *p),
            }
        }
        _ => values.iter().any(|v| v == have),
    }
}

fn sort_key(item: &Value, field: &str) -> (Option<i128>, String) {
    let s = item
        .get(field)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string();
    let t = parse_time(&s).map(|t| t.unix_timestamp_nanos());
    (t, s)
}

impl ListQuery {
    /// Filters, sorts and pages `items`: the list body, or Err (a 400 message) for a token this
    /// process did not issue for this query.
    pub fn apply(&self, items: Vec<Value>) -> Result<Value, String> {
        self.apply_opts(items, false)
    }

    /// `apply`; with `overlap`, pages after a token repeat the previous page's last item (fault).
    pub fn apply_opts(&self, items: Vec<Value>, overlap: bool) -> Result<Value, String> {
        let mut items: Vec<Value> = items
            .into_iter()
            .filter(|i| {
                self.filters
                    .iter()
                    .all(|(f, op, vs)| matches(i, f, *op, vs))
            })
            .collect();
        let (field, desc) = (&self.sort.0, self.sort.1);
        items.sort_by(|a, b| {
            let ka = sort_key(a, field);
            let kb = sort_key(b, field);
            let ord = ka.cmp(&kb).then_with(|| item_key(a).cmp(&item_key(b)));
            if desc { ord.reverse() } else { ord }
        });
        let total = items.len();
        let (page_items, next) = page_opts(items, self.token.as_deref(), self.max, overlap)
            .map_err(|_| {
                "pageToken is not a token this service issued for this query".to_string()
            })?;
        Ok(list_body(page_items, total, next))
    }
}
