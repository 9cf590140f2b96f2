//! The message routes: `GET`/`POST /v1/messages`, `GET /messages`, `GET /messages/{id}`,
//! `POST /messages/{id}/retry`. OWNER: messaging-calls.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::common::{self, Answer, Gen, Invalid, MESSAGES, Query, Range, id_shape};
use super::{DIRECTIONS, Direction, STATUSES, Status};
use crate::app::App;
use crate::auth;
use crate::directory::{A2p, PhoneNumber};

/// Default page size of `GET /v1/messages`.
const V1_DEFAULT_PAGE: usize = 25;
/// Default page size of `GET /messages`.
const LATEST_DEFAULT_PAGE: usize = 30;
/// Longest text a message may carry (characters).
pub const MAX_TEXT: usize = 1600;
/// Most recipients of one message.
pub const MAX_TO: usize = 10;

// ---------------------------------------------------------------------------------------------
// GET /v1/messages

/// `GET /v1/messages`: the messages of one number with an exact participant set, chronological.
pub async fn v1_list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    v1_list_inner(&app, &headers, raw.as_deref()).unwrap_or_else(|e| e)
}

fn v1_list_inner(app: &Arc<App>, headers: &HeaderMap, raw: Option<&str>) -> Answer {
    let g = Gen::V1(&MESSAGES);
    let caller = auth::authenticate(app, headers).ok_or_else(|| g.unauthorized())?;
    let inv = |i: Invalid| g.invalid(i);
    let q = Query::parse(raw);
    q.only(&[
        "phoneNumberId",
        "userId",
        "participants",
        "since",
        "createdAfter",
        "createdBefore",
        "maxResults",
        "pageToken",
    ])
    .map_err(inv)?;
    let number_id = q.one("phoneNumberId").map_err(inv)?.ok_or_else(|| {
        inv(Invalid::query(
            "phoneNumberId",
            "is required (the workspace number, PN...)",
            "",
        ))
    })?;
    if !id_shape(number_id, "PN") {
        return Err(inv(Invalid::query(
            "phoneNumberId",
            "must be a phone number id (PN...)",
            number_id,
        )));
    }
    let participants = read_participants(&q, "participants", MAX_TO).map_err(inv)?;
    let user_id = q.one("userId").map_err(inv)?;
    if let Some(u) = user_id {
        if !id_shape(u, "US") {
            return Err(inv(Invalid::query(
                "userId",
                "must be a user id (US...)",
                u,
            )));
        }
    }
    let since = q.instant("since").map_err(inv)?;
    let after = q.instant("createdAfter").map_err(inv)?;
    let before = q.instant("createdBefore").map_err(inv)?;
    // Fault: `since` taken as a lower bound (createdAfter).
    let (after, since) = if app.faults.on("b16-messages-since-as-created-after") {
        let after = match (after, since) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        (after, None)
    } else {
        (after, since)
    };
    // `since` is deprecated and behaves as `createdBefore`; with both, the earlier bound holds.
    let before = match (before, since) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let max = q.max_results(V1_DEFAULT_PAGE, 100).map_err(inv)?;
    let token = q.one("pageToken").map_err(inv)?;

    let number = org_number(app, &caller.org_id, number_id)
        .ok_or_else(|| g.not_found(format!("No phone number {number_id} in this workspace")))?;
    if participants.contains(&number.number) {
        return Err(inv(Invalid::query(
            "participants",
            "lists the other parties only, not the workspace number itself",
            &number.number,
        )));
    }
    if let Some(u) = user_id {
        if app
            .directory
            .user(u)
            .is_none_or(|x| x.org_id != caller.org_id)
        {
            return Err(g.not_found(format!("No user {u} in this workspace")));
        }
    }
    if !common::can_use_number(app, &caller.user_id, number_id) {
        return Err(g.not_number_user(format!("You are not a user of phone number {number_id}")));
    }
    let items: Vec<(common::Key, Value)> = {
        let inner = app.messaging.lock();
        let conv = inner
            .conversations
            .iter()
            .find(|c| c.org_id == caller.org_id && c.same_set(number_id, &participants))
            .map(|c| c.id.clone());
        match conv {
            None => Vec::new(),
            Some(cid) => inner
                .messages
                .iter()
                .filter(|m| m.conversation_id == cid)
                .filter(|m| user_id.is_none_or(|u| m.user_id.as_deref() == Some(u)))
                .filter(|m| after.is_none_or(|t| m.created > t))
                .filter(|m| before.is_none_or(|t| m.created < t))
                .map(|m| (m.key(), m.json()))
                .collect(),
        }
    };
    let scope = q.fingerprint(&format!("v1/messages|{}|{}", caller.org_id, caller.user_id));
    let desc = app.faults.on("b16-messages-v1-newest-first");
    let skip = app.faults.on("b16-messages-v1-page-skips");
    let (page, total, next) =
        common::keyset_page_opts(items, desc, token, &scope, max, skip).map_err(inv)?;
    Ok(common::list(page, total, next))
}

/// A repeated E.164 parameter: 1 to `max` distinct numbers (repeats collapse), sorted.
fn read_participants(q: &Query, name: &str, max: usize) -> Result<Vec<String>, Invalid> {
    let values = q.all(name)?;
    if values.is_empty() {
        return Err(Invalid::query(
            name,
            "is required: repeat the key once per E.164 number",
            "",
        ));
    }
    for v in &values {
        if !common::is_e164(v) {
            return Err(Invalid::query(
                name,
                "each value must be an E.164 number such as +14155550100",
                v,
            ));
        }
    }
    let mut set: Vec<String> = values.iter().map(|s| s.to_string()).collect();
    set.sort();
    set.dedup();
    if set.len() > max {
        return Err(Invalid::query(
            name,
            format!("takes at most {max} numbers"),
            &set.join(","),
        ));
    }
    Ok(set)
}

/// A number of the organization.
fn org_number<'a>(app: &'a App, org_id: &str, id: &str) -> Option<&'a PhoneNumber> {
    app.directory.number(id).filter(|n| n.org_id == org_id)
}

// ---------------------------------------------------------------------------------------------
// POST /v1/messages

/// `POST /v1/messages`: sends a text (202: queued; delivery follows).
pub async fn v1_send(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    v1_send_inner(&app, &headers, &body).unwrap_or_else(|e| e)
}

fn v1_send_inner(app: &Arc<App>, headers: &HeaderMap, body: &[u8]) -> Answer {
    let g = Gen::V1(&MESSAGES);
    let caller = auth::authenticate(app, headers).ok_or_else(|| g.unauthorized())?;
    let org = app
        .directory
        .org(&caller.org_id)
        .ok_or_else(|| g.unauthorized())?;
    // A workspace whose subscription expired sends nothing, whatever the request holds.
    if !org.subscription_active {
        if app.faults.on("b16-messages-expired-title") {
            return Err(crate::errors::v1(
                StatusCode::PAYMENT_REQUIRED,
                MESSAGES.c402,
                "Payment Required",
                "The workspace's subscription has expired; renew it to send messages",
            ));
        }
        return Err(g.expired());
    }
    let inv = |i: Invalid| g.invalid(i);
    let m = common::object_body(headers, body).map_err(|e| e.answer(g))?;
    common::only_fields(&m, &["to", "from", "phoneNumberId", "text", "userId"]).map_err(inv)?;

    // text
    let text = common::str_field(&m, "text").map_err(inv)?.ok_or_else(|| {
        inv(Invalid::new(
            "body.text",
            "is required",
            Value::Null,
            "string",
        ))
    })?;
    let blank = if app.faults.on("b16-messages-whitespace-text-accepted") {
        text.is_empty()
    } else {
        text.trim().is_empty()
    };
    if blank {
        return Err(inv(Invalid::new(
            "body.text",
            "must contain at least one character that is not whitespace",
            json!(text),
            "string",
        )));
    }
    if text.chars().count() > MAX_TEXT {
        return Err(inv(Invalid::new(
            "body.text",
            format!("must be at most {MAX_TEXT} characters"),
            json!(text),
            "string",
        )));
    }

    // to
    let to_v = m
        .get("to")
        .ok_or_else(|| inv(Invalid::new("body.to", "is required", Value::Null, "array")))?;
    let Some(items) = to_v.as_array() else {
        return Err(inv(Invalid::new(
            "body.to",
            "must be an array of E.164 numbers",
            to_v.clone(),
            "array",
        )));
    };
    if items.is_empty() {
        return Err(inv(Invalid::new(
            "body.to",
            "must hold at least one recipient",
            to_v.clone(),
            "array",
        )));
    }
    let max_to = if app.faults.on("b16-messages-eleven-recipients-accepted") {
        MAX_TO + 1
    } else {
        MAX_TO
    };
    if items.len() > max_to {
        return Err(inv(Invalid::new(
            "body.to",
            format!("takes at most {MAX_TO} recipients"),
            to_v.clone(),
            "array",
        )));
    }
    let mut to: Vec<String> = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        match it.as_str() {
            Some(s) if common::is_e164(s) => {
                if to.iter().any(|x| x == s) {
                    return Err(inv(Invalid::new(
                        format!("body.to[{i}]"),
                        "repeats a recipient",
                        it.clone(),
                        "string",
                    )));
                }
                to.push(s.to_string());
            }
            _ => {
                return Err(inv(Invalid::new(
                    format!("body.to[{i}]"),
                    "must be an E.164 number such as +14155550100",
                    it.clone(),
                    "string",
                )));
            }
        }
    }

    // from / phoneNumberId (deprecated)
    let from = common::str_field(&m, "from").map_err(inv)?;
    let pn = common::str_field(&m, "phoneNumberId").map_err(inv)?;
    // Fault: the deprecated field is no longer read.
    let pn = if app.faults.on("b16-messages-phonenumberid-ignored") {
        None
    } else {
        pn
    };
    if let Some(f) = from {
        if !common::is_e164(f) && !id_shape(f, "PN") {
            return Err(inv(Invalid::new(
                "body.from",
                "must be the sending number: E.164, or its id (PN...)",
                json!(f),
                "string",
            )));
        }
    }
    if let Some(p) = pn {
        if !id_shape(p, "PN") {
            return Err(inv(Invalid::new(
                "body.phoneNumberId",
                "must be a phone number id (PN...)",
                json!(p),
                "string",
            )));
        }
    }
    let user_id = common::str_field(&m, "userId").map_err(inv)?;
    if let Some(u) = user_id {
        if !id_shape(u, "US") {
            return Err(inv(Invalid::new(
                "body.userId",
                "must be a user id (US...)",
                json!(u),
                "string",
            )));
        }
    }
    let resolve = |s: &str| -> Option<&PhoneNumber> {
        let n = if s.starts_with('+') {
            app.directory.number_by_e164(s)
        } else {
            app.directory.number(s)
        };
        n.filter(|n| n.org_id == caller.org_id)
    };
    let number = match (from, pn) {
        (None, None) => {
            return Err(inv(Invalid::new(
                "body.from",
                "is required (the sending number)",
                Value::Null,
                "string",
            )));
        }
        (Some(f), None) => resolve(f)
            .ok_or_else(|| g.not_found(format!("No phone number {f} in this workspace")))?,
        (None, Some(p)) => resolve(p)
            .ok_or_else(|| g.not_found(format!("No phone number {p} in this workspace")))?,
        (Some(f), Some(p)) => {
            let a = resolve(f)
                .ok_or_else(|| g.not_found(format!("No phone number {f} in this workspace")))?;
            if a.id != p {
                return Err(inv(Invalid::new(
                    "body.phoneNumberId",
                    "names another number than `from`; send `from` alone (phoneNumberId is deprecated)",
                    json!(p),
                    "string",
                )));
            }
            a
        }
    };
    if let Some(i) = to.iter().position(|t| *t == number.number) {
        return Err(inv(Invalid::new(
            format!("body.to[{i}]"),
            "is the sending number itself",
            json!(number.number),
            "string",
        )));
    }
    let sender = match user_id {
        None => caller.user_id.clone(),
        Some(u) => {
            if app
                .directory
                .user(u)
                .is_none_or(|x| x.org_id != caller.org_id)
            {
                return Err(g.not_found(format!("No user {u} in this workspace")));
            }
            if !common::can_use_number(app, u, &number.id) {
                return Err(g.not_number_user(format!(
                    "User {u} is not a user of phone number {}",
                    number.number
                )));
            }
            u.to_string()
        }
    };
    if !common::can_use_number(app, &caller.user_id, &number.id) {
        return Err(g.not_number_user(format!(
            "You are not a user of phone number {}",
            number.number
        )));
    }
    sendable(app, g, number, &to)?;
    let msg = super::record_outbound(
        app,
        &caller.org_id,
        &number.id,
        &number.number,
        &to,
        text,
        &sender,
    )
    .map_err(|()| cap_reached(g, number))?;
    super::schedule_delivery(app, msg.id.clone(), msg.attempts, &msg.to);
    Ok(common::data(StatusCode::ACCEPTED, msg.json()))
}

/// The checks of the sending number and the recipients: A2P 10DLC state, international
/// messaging of the workspace.
fn sendable(app: &App, g: Gen, number: &PhoneNumber, to: &[String]) -> Result<(), Response> {
    match number.a2p {
        A2p::Approved => {}
        A2p::NotApproved => {
            return Err(g.bad_coded(
                "0206400",
                "A2P Registration Not Approved",
                format!("The A2P 10DLC registration of {} is not approved; it cannot send text messages yet", number.number),
            ))
        }
        A2p::CapReached => return Err(cap_reached(g, number)),
    }
    let intl_ok = app
        .directory
        .org(&number.org_id)
        .is_some_and(|o| o.international_messaging);
    if !intl_ok {
        let home = common::country_code(&number.number);
        if let Some(t) = to.iter().find(|t| common::country_code(t) != home) {
            return Err(g.forbidden_coded(
                "0205403",
                "International Messaging Disabled",
                format!("{t} is an international number and international messaging is disabled in this workspace"),
            ));
        }
    }
    Ok(())
}

fn cap_reached(g: Gen, number: &PhoneNumber) -> Response {
    g.forbidden_coded(
        "0204403",
        "A2P 10DLC Daily Message Cap Reached",
        format!(
            "{} has reached its daily A2P 10DLC message cap; try again tomorrow (UTC)",
            number.number
        ),
    )
}

// ---------------------------------------------------------------------------------------------
// GET /messages

/// `GET /messages`: the workspace's messages, newest first, with filters.
pub async fn latest_list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    latest_list_inner(&app, &headers, raw.as_deref()).unwrap_or_else(|e| e)
}

fn latest_list_inner(app: &Arc<App>, headers: &HeaderMap, raw: Option<&str>) -> Answer {
    let g = Gen::Latest;
    let caller = if app.faults.on("b16-auth-messages-version-optional")
        && headers.get("service-api-version").is_none()
    {
        auth::authenticate(app, headers).ok_or_else(|| g.unauthorized())?
    } else {
        auth::latest_guard(app, headers)?
    };
    let inv = |i: Invalid| g.invalid(i);
    let q = Query::parse(raw);
    let mut allowed: Vec<String> = [
        "from",
        "from[in]",
        "to",
        "status",
        "status[in]",
        "direction",
        "direction[in]",
        "phoneNumberId",
        "phoneNumberId[in]",
        "userId",
        "userId[in]",
        "conversationId",
        "conversationId[in]",
        "sort",
        "maxResults",
        "pageToken",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    allowed.extend(Range::names("createdAt"));
    let allowed_refs: Vec<&str> = allowed.iter().map(String::as_str).collect();
    q.only(&allowed_refs).map_err(inv)?;

    let from = e164_filter(&q, "from").map_err(inv)?;
    let to = match q.all("to").map_err(inv)? {
        v if v.is_empty() => None,
        v => {
            let mut set: Vec<String> = Vec::new();
            for raw in v {
                for t in common::comma_set("to", raw).map_err(inv)? {
                    if !common::is_e164(t) {
                        return Err(inv(Invalid::query(
                            "to",
                            "each recipient must be an E.164 number",
                            raw,
                        )));
                    }
                    set.push(t.to_string());
                }
            }
            set.sort();
            set.dedup();
            if set.len() > MAX_TO {
                return Err(inv(Invalid::query(
                    "to",
                    format!("a message has at most {MAX_TO} recipients"),
                    &set.join(","),
                )));
            }
            Some(set)
        }
    };
    let status = common::enum_filter(&q, "status", STATUSES).map_err(inv)?;
    let direction = common::enum_filter(&q, "direction", DIRECTIONS).map_err(inv)?;
    let numbers = common::id_filter(&q, "phoneNumberId", &["PN"]).map_err(inv)?;
    let users = common::id_filter(&q, "userId", &["US"]).map_err(inv)?;
    let convs = common::id_filter(&q, "conversationId", &["CN"]).map_err(inv)?;
    let created = Range::read(&q, "createdAt").map_err(inv)?;
    let (_, desc) = common::read_sort(&q, &["createdAt"], ("createdAt", true)).map_err(inv)?;
    let max = q.max_results(LATEST_DEFAULT_PAGE, 100).map_err(inv)?;
    let token = q.one("pageToken").map_err(inv)?;

    let has =
        |set: &Option<Vec<String>>, v: &str| set.as_ref().is_none_or(|s| s.iter().any(|x| x == v));
    let superset = app.faults.on("b16-messages-to-filter-superset");
    let items: Vec<(common::Key, Value)> = {
        let inner = app.messaging.lock();
        inner
            .messages
            .iter()
            .filter(|m| m.org_id == caller.org_id)
            .filter(|m| has(&from, &m.from))
            .filter(|m| {
                to.as_ref().is_none_or(|set| {
                    let mut mine = m.to.clone();
                    mine.sort();
                    mine.dedup();
                    if superset {
                        set.iter().all(|t| mine.contains(t))
                    } else {
                        mine == *set
                    }
                })
            })
            .filter(|m| has(&status, m.status.as_str()))
            .filter(|m| has(&direction, m.direction.as_str()))
            .filter(|m| has(&numbers, &m.phone_number_id))
            .filter(|m| {
                users
                    .as_ref()
                    .is_none_or(|s| m.user_id.as_ref().is_some_and(|u| s.contains(u)))
            })
            .filter(|m| has(&convs, &m.conversation_id))
            .filter(|m| created.holds(m.created))
            .map(|m| (m.key(), m.json()))
            .collect()
    };
    let scope = q.fingerprint(&format!("messages|{}", caller.org_id));
    let (page, total, next) = common::keyset_page(items, desc, token, &scope, max).map_err(inv)?;
    Ok(common::list(page, total, next))
}

/// `field` (one E.164 number) and `field[in]` (a comma-separated set).
fn e164_filter(q: &Query, field: &str) -> Result<Option<Vec<String>>, Invalid> {
    let mut out: Option<Vec<String>> = None;
    if let Some(v) = q.one(field)? {
        if !common::is_e164(v) {
            return Err(Invalid::query(field, "must be an E.164 number", v));
        }
        out = Some(vec![v.to_string()]);
    }
    let name = format!("{field}[in]");
    if let Some(v) = q.one(&name)? {
        let set = common::comma_set(&name, v)?;
        if set.iter().any(|s| !common::is_e164(s)) {
            return Err(Invalid::query(
                &name,
                "each value must be an E.164 number",
                v,
            ));
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
// GET /messages/{messageId}

/// `GET /messages/{messageId}`.
pub async fn latest_get(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let id = common::path_id(path);
    latest_get_inner(&app, &headers, &id, raw.as_deref()).unwrap_or_else(|e| e)
}

fn latest_get_inner(app: &Arc<App>, headers: &HeaderMap, id: &str, raw: Option<&str>) -> Answer {
    let g = Gen::Latest;
    let caller = auth::latest_guard(app, headers)?;
    Query::parse(raw).only(&[]).map_err(|i| g.invalid(i))?;
    if !id_shape(id, "AC") {
        return Err(g.invalid(Invalid::new(
            "path.messageId",
            "must be a message id (AC...)",
            json!(id),
            "string",
        )));
    }
    let mut m = app
        .messaging
        .message_json(&caller.org_id, id)
        .ok_or_else(|| g.not_found(format!("No message {id} in this workspace")))?;
    if app.faults.on("b16-messages-get-no-conversationid") {
        if let Value::Object(o) = &mut m {
            o.remove("conversationId");
        }
    }
    Ok(common::data(StatusCode::OK, m))
}

// ---------------------------------------------------------------------------------------------
// POST /messages/{messageId}/retry

/// `POST /messages/{messageId}/retry`: re-attempts a failed message (202); a permanent failure
/// or an undelivered message is refused (422).
pub async fn latest_retry(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
    body: Bytes,
) -> Response {
    let id = common::path_id(path);
    latest_retry_inner(&app, &headers, &id, raw.as_deref(), &body).unwrap_or_else(|e| e)
}

fn latest_retry_inner(
    app: &Arc<App>,
    headers: &HeaderMap,
    id: &str,
    raw: Option<&str>,
    body: &[u8],
) -> Answer {
    let g = Gen::Latest;
    let caller = auth::latest_guard(app, headers)?;
    let org = app
        .directory
        .org(&caller.org_id)
        .ok_or_else(|| g.unauthorized())?;
    if !org.subscription_active {
        return Err(g.expired());
    }
    Query::parse(raw).only(&[]).map_err(|i| g.invalid(i))?;
    if !id_shape(id, "AC") {
        return Err(g.invalid(Invalid::new(
            "path.messageId",
            "must be a message id (AC...)",
            json!(id),
            "string",
        )));
    }
    common::empty_body(headers, body).map_err(|e| e.answer(g))?;
    let current = {
        let inner = app.messaging.lock();
        inner
            .messages
            .iter()
            .find(|m| m.id == id && m.org_id == caller.org_id)
            .cloned()
    }
    .ok_or_else(|| g.not_found(format!("No message {id} in this workspace")))?;
    if !common::can_use_number(app, &caller.user_id, &current.phone_number_id) {
        return Err(g.not_number_user(format!(
            "You are not a user of phone number {}",
            current.phone_number_id
        )));
    }
    let lax = app.faults.on("b16-messages-retry-undelivered");
    refuse_retry(g, &current, lax)?;
    let number = org_number(app, &caller.org_id, &current.phone_number_id).ok_or_else(|| {
        g.not_found(format!(
            "The number of message {id} is no longer in this workspace"
        ))
    })?;
    sendable(app, g, number, &current.to)?;
    if !super::count_send(app, &number.id) {
        return Err(cap_reached(g, number));
    }
    let updated = {
        let mut inner = app.messaging.lock();
        let Some(m) = inner.messages.iter_mut().find(|m| m.id == id) else {
            return Err(g.not_found(format!("No message {id} in this workspace")));
        };
        // Checked again under the lock: two retries at once re-attempt once.
        refuse_retry(g, m, lax)?;
        m.status = Status::Queued;
        m.failure = None;
        m.attempts += 1;
        m.updated = common::now().max(m.updated);
        m.clone()
    };
    super::schedule_delivery(app, updated.id.clone(), updated.attempts, &updated.to);
    Ok(common::data(StatusCode::ACCEPTED, updated.json()))
}

/// Err unless the message is failed with an error that is not permanent.
fn refuse_retry(g: Gen, m: &super::Message, undelivered_ok: bool) -> Result<(), Response> {
    if m.direction != Direction::Outbound {
        return Err(g.unprocessable(
            "Message Not Retryable",
            "Only an outbound message can be retried; this one was received",
        ));
    }
    match (m.status, m.failure) {
        (Status::Failed, Some(f)) if !f.permanent => Ok(()),
        (Status::Undelivered, _) if undelivered_ok => Ok(()),
        (Status::Failed, _) => Err(g.unprocessable(
            "Message Not Retryable",
            "The message failed with a permanent error; a retry cannot deliver it",
        )),
        (Status::Undelivered, _) => Err(g.unprocessable(
            "Message Not Retryable",
            "The message is undelivered, which is final; it cannot be retried",
        )),
        (s, _) => Err(g.unprocessable(
            "Message Not Retryable",
            format!(
                "Only a failed message can be retried; this one is {}",
                s.as_str()
            ),
        )),
    }
}
