//! The conversation routes: `GET /v1/conversations`, `GET /conversations`, and mark-as-done,
//! mark-as-open, mark-as-read under both generations. OWNER: messaging-calls.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::Conversation;
use super::common::{self, Answer, CONVERSATIONS, Gen, Invalid, Key, Query, Range, id_shape};
use crate::app::App;
use crate::auth;

/// The query name of the exclude-inactive flag of `GET /v1/conversations`.
pub const EXCLUDE_INACTIVE_PARAM: &str = "hideInactive";
/// The query name of the updated-after filter of `GET /v1/conversations`.
pub const UPDATED_AFTER_PARAM: &str = "modifiedAfter";
/// The query name of the updated-before filter of `GET /v1/conversations`.
pub const UPDATED_BEFORE_PARAM: &str = "modifiedBefore";

/// Default page size of `GET /v1/conversations`.
const V1_DEFAULT_PAGE: usize = 20;
/// Default page size of `GET /conversations`.
const LATEST_DEFAULT_PAGE: usize = 30;

// ---------------------------------------------------------------------------------------------
// GET /v1/conversations

/// `GET /v1/conversations`: newest first (by creation).
pub async fn v1_list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    v1_list_inner(&app, &headers, raw.as_deref()).unwrap_or_else(|e| e)
}

fn v1_list_inner(app: &Arc<App>, headers: &HeaderMap, raw: Option<&str>) -> Answer {
    let g = Gen::V1(&CONVERSATIONS);
    let caller = auth::authenticate(app, headers).ok_or_else(|| g.unauthorized())?;
    let inv = |i: Invalid| g.invalid(i);
    let q = Query::parse(raw);
    q.only(&[
        "phoneNumber",
        "phoneNumbers",
        "userId",
        "createdAfter",
        "createdBefore",
        EXCLUDE_INACTIVE_PARAM,
        UPDATED_AFTER_PARAM,
        UPDATED_BEFORE_PARAM,
        "maxResults",
        "pageToken",
    ])
    .map_err(inv)?;
    let number_ref_ok = |s: &str| id_shape(s, "PN") || common::is_e164(s);
    let phone_numbers = q.all("phoneNumbers").map_err(inv)?;
    if phone_numbers.len() > 100 {
        return Err(inv(Invalid::query(
            "phoneNumbers",
            "takes 1 to 100 items",
            &phone_numbers.len().to_string(),
        )));
    }
    for p in &phone_numbers {
        if !number_ref_ok(p) {
            return Err(inv(Invalid::query(
                "phoneNumbers",
                "each item must be a phone number id (PN...) or an E.164 number",
                p,
            )));
        }
    }
    let phone_number = q.one("phoneNumber").map_err(inv)?;
    if let Some(p) = phone_number {
        if !number_ref_ok(p) {
            return Err(inv(Invalid::query(
                "phoneNumber",
                "must be a phone number id (PN...) or an E.164 number",
                p,
            )));
        }
    }
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
    let created_after = q.instant("createdAfter").map_err(inv)?;
    let created_before = q.instant("createdBefore").map_err(inv)?;
    let updated_after = q.instant(UPDATED_AFTER_PARAM).map_err(inv)?;
    let updated_before = q.instant(UPDATED_BEFORE_PARAM).map_err(inv)?;
    let exclude_inactive = match q.one(EXCLUDE_INACTIVE_PARAM).map_err(inv)? {
        None => false,
        Some("true") => true,
        Some("false") => false,
        Some(v) => {
            return Err(inv(Invalid::query(
                EXCLUDE_INACTIVE_PARAM,
                "must be true or false",
                v,
            )));
        }
    };
    let v1_max = if app.faults.on("b16-conversations-maxresults-100-refused") {
        99
    } else {
        100
    };
    let max = q.max_results(V1_DEFAULT_PAGE, v1_max).map_err(inv)?;
    let token = q.one("pageToken").map_err(inv)?;
    let exclude_inactive =
        exclude_inactive && !app.faults.on("b16-conversations-exclude-inactive-ignored");

    // `phoneNumber` (deprecated) is ignored when `phoneNumbers` is given.
    let deprecated_wins =
        phone_number.is_some() && app.faults.on("b16-conversations-phonenumber-wins");
    let refs: Vec<&str> = if !phone_numbers.is_empty() && !deprecated_wins {
        phone_numbers
    } else {
        phone_number.into_iter().collect()
    };
    let mut number_ids: Option<Vec<String>> = None;
    if !refs.is_empty() {
        let mut ids = Vec::new();
        for r in refs {
            let n = if r.starts_with('+') {
                app.directory.number_by_e164(r)
            } else {
                app.directory.number(r)
            };
            let n = n
                .filter(|n| n.org_id == caller.org_id)
                .ok_or_else(|| g.not_found(format!("No phone number {r} in this workspace")))?;
            if !common::can_use_number(app, &caller.user_id, &n.id) {
                return Err(
                    g.not_number_user(format!("You are not a user of phone number {}", n.number))
                );
            }
            if !ids.contains(&n.id) {
                ids.push(n.id.clone());
            }
        }
        number_ids = Some(ids);
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
    let now = common::now();
    let items: Vec<(Key, Value)> = {
        let inner = app.messaging.lock();
        inner
            .conversations
            .iter()
            .filter(|c| c.org_id == caller.org_id)
            .filter(|c| {
                number_ids
                    .as_ref()
                    .is_none_or(|s| s.contains(&c.phone_number_id))
            })
            .filter(|c| user_id.is_none_or(|u| common::can_use_number(app, u, &c.phone_number_id)))
            .filter(|c| created_after.is_none_or(|t| c.created > t))
            .filter(|c| created_before.is_none_or(|t| c.created < t))
            .filter(|c| updated_after.is_none_or(|t| c.updated > t))
            .filter(|c| updated_before.is_none_or(|t| c.updated < t))
            .filter(|c| !exclude_inactive || !c.inactive(now))
            .map(|c| (Key(common::nanos(c.created), c.seq), c.json()))
            .collect()
    };
    let scope = q.fingerprint(&format!(
        "v1/conversations|{}|{}",
        caller.org_id, caller.user_id
    ));
    let (page, total, next) = common::keyset_page(items, true, token, &scope, max).map_err(inv)?;
    Ok(common::list(page, total, next))
}

// ---------------------------------------------------------------------------------------------
// GET /conversations

/// `GET /conversations`: filter by phone number ids and creation/update time; sort by
/// `createdAt` or `updatedAt` (default `updatedAt:desc`).
pub async fn latest_list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    latest_list_inner(&app, &headers, raw.as_deref()).unwrap_or_else(|e| e)
}

fn latest_list_inner(app: &Arc<App>, headers: &HeaderMap, raw: Option<&str>) -> Answer {
    let g = Gen::Latest;
    let caller = auth::latest_guard(app, headers)?;
    let inv = |i: Invalid| g.invalid(i);
    let q = Query::parse(raw);
    let mut allowed: Vec<String> = [
        "phoneNumberId",
        "phoneNumberId[in]",
        "phoneNumberIds",
        "sort",
        "maxResults",
        "pageToken",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    allowed.extend(Range::names("createdAt"));
    allowed.extend(Range::names("updatedAt"));
    let allowed_refs: Vec<&str> = allowed.iter().map(String::as_str).collect();
    q.only(&allowed_refs).map_err(inv)?;
    let mut numbers = common::id_filter(&q, "phoneNumberId", &["PN"]).map_err(inv)?;
    let many = q.all("phoneNumberIds").map_err(inv)?;
    if !many.is_empty() {
        let mut set = Vec::new();
        for raw in many {
            for p in common::comma_set("phoneNumberIds", raw).map_err(inv)? {
                if !id_shape(p, "PN") {
                    return Err(inv(Invalid::query(
                        "phoneNumberIds",
                        "each value must be a phone number id (PN...)",
                        raw,
                    )));
                }
                set.push(p.to_string());
            }
        }
        numbers = Some(match numbers {
            None => set,
            Some(one) => one.into_iter().filter(|x| set.contains(x)).collect(),
        });
    }
    let created = Range::read(&q, "createdAt").map_err(inv)?;
    let updated = Range::read(&q, "updatedAt").map_err(inv)?;
    let (field, desc) =
        common::read_sort(&q, &["createdAt", "updatedAt"], ("updatedAt", true)).map_err(inv)?;
    let desc = desc
        || (field == "createdAt" && app.faults.on("b16-conversations-sort-created-asc-ignored"));
    let max = q.max_results(LATEST_DEFAULT_PAGE, 100).map_err(inv)?;
    let token = q.one("pageToken").map_err(inv)?;
    let items: Vec<(Key, Value)> = {
        let inner = app.messaging.lock();
        inner
            .conversations
            .iter()
            .filter(|c| c.org_id == caller.org_id)
            .filter(|c| {
                numbers
                    .as_ref()
                    .is_none_or(|s| s.contains(&c.phone_number_id))
            })
            .filter(|c| created.holds(c.created))
            .filter(|c| updated.holds(c.updated))
            .map(|c| {
                let t = if field == "createdAt" {
                    c.created
                } else {
                    c.updated
                };
                (Key(common::nanos(t), c.seq), c.json())
            })
            .collect()
    };
    let scope = q.fingerprint(&format!("conversations|{}", caller.org_id));
    let (page, total, next) = common::keyset_page(items, desc, token, &scope, max).map_err(inv)?;
    Ok(common::list(page, total, next))
}

// ---------------------------------------------------------------------------------------------
// mark-as-done / mark-as-open / mark-as-read

#[derive(Clone, Copy)]
enum Mark {
    Done,
    Open,
    Read,
}

fn mark(
    app: &Arc<App>,
    g: Gen,
    headers: &HeaderMap,
    id: &str,
    raw: Option<&str>,
    body: &[u8],
    what: Mark,
) -> Answer {
    let caller = match g {
        Gen::V1(_) => auth::authenticate(app, headers).ok_or_else(|| g.unauthorized())?,
        Gen::Latest => auth::latest_guard(app, headers)?,
    };
    Query::parse(raw).only(&[]).map_err(|i| g.invalid(i))?;
    if !id_shape(id, "CN") {
        return Err(g.invalid(Invalid::new(
            "path.conversationId",
            "must be a conversation id (CN...)",
            json!(id),
            "string",
        )));
    }
    common::empty_body(headers, body).map_err(|e| e.answer(g))?;
    let number_id = {
        let inner = app.messaging.lock();
        inner
            .conversations
            .iter()
            .find(|c| c.id == id && c.org_id == caller.org_id)
            .map(|c| c.phone_number_id.clone())
    }
    .ok_or_else(|| g.not_found(format!("No conversation {id} in this workspace")))?;
    let unchecked =
        matches!(what, Mark::Read) && app.faults.on("b16-conversations-mark-read-no-access-check");
    if !unchecked && !common::can_use_number(app, &caller.user_id, &number_id) {
        return Err(g.not_number_user(format!(
            "You are not a user of phone number {number_id}, the number of this conversation"
        )));
    }
    let value = {
        let mut inner = app.messaging.lock();
        let Some(c) = inner.conversations.iter_mut().find(|c| c.id == id) else {
            return Err(g.not_found(format!("No conversation {id} in this workspace")));
        };
        let changed = apply(c, what);
        if changed {
            c.updated = common::now().max(c.updated);
        }
        c.json()
    };
    Ok(common::data(StatusCode::OK, value))
}

/// Applies the transition; whether anything changed (a transition to the state the
/// conversation is already in changes nothing and is answered with it as it is).
fn apply(c: &mut Conversation, what: Mark) -> bool {
    match what {
        Mark::Done => !std::mem::replace(&mut c.done, true),
        Mark::Open => std::mem::replace(&mut c.done, false),
        Mark::Read => std::mem::replace(&mut c.unread, 0) != 0,
    }
}

macro_rules! mark_handler {
    ($name:ident, $gen:expr, $what:expr) => {
        /// A mark-as-* route.
        pub async fn $name(
            State(app): State<Arc<App>>,
            headers: HeaderMap,
            path: Result<Path<String>, PathRejection>,
            RawQuery(raw): RawQuery,
            body: Bytes,
        ) -> Response {
            let id = common::path_id(path);
            mark(&app, $gen, &headers, &id, raw.as_deref(), &body, $what).unwrap_or_else(|e| e)
        }
    };
}

mark_handler!(v1_done, Gen::V1(&CONVERSATIONS), Mark::Done);
mark_handler!(v1_open, Gen::V1(&CONVERSATIONS), Mark::Open);
mark_handler!(v1_read, Gen::V1(&CONVERSATIONS), Mark::Read);
mark_handler!(latest_done, Gen::Latest, Mark::Done);
mark_handler!(latest_open, Gen::Latest, Mark::Open);
mark_handler!(latest_read, Gen::Latest, Mark::Read);
