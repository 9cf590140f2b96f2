//! The call routes: `GET /v1/calls`, `GET /v1/calls/{id}`, `GET /v1/call-recordings/{id}`,
//! `GET /calls`, `GET /calls/{id}`, `GET /calls/{id}/recordings`, `GET /calls/{id}/transcripts`.
//! OWNER: messaging-calls.

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use serde_json::{Value, json};

use super::{CALL_DIRECTIONS, CALL_STATUSES, Call};
use crate::app::App;
use crate::auth;
use crate::messaging::common::{
    self, Answer, CALLS, Gen, Invalid, Key, Query, RECORDINGS, Range, id_shape,
};

/// Default page size of `GET /v1/calls`.
const V1_DEFAULT_PAGE: usize = 15;
/// Default page size of `GET /calls`.
const LATEST_DEFAULT_PAGE: usize = 30;
/// Default page size of recordings and transcripts.
const SEGMENTS_DEFAULT_PAGE: usize = 50;

/// The user a v1 call list is for when no `userId` is given: the number's owner (its user with
/// the `owner` role, else its first user).
fn number_owner(app: &App, number_id: &str) -> Option<String> {
    let n = app.directory.number(number_id)?;
    n.user_ids
        .iter()
        .find(|u| app.directory.user(u).is_some_and(|x| x.role == "owner"))
        .or_else(|| n.user_ids.first())
        .cloned()
}

/// A call of the organization the caller may read: Err 400 (shape), 404 or 403.
fn readable_call(
    app: &App,
    g: Gen,
    org_id: &str,
    user_id: &str,
    id: &str,
) -> Result<Call, Response> {
    if !id_shape(id, "AC") {
        return Err(g.invalid(Invalid::new(
            "path.callId",
            "must be a call id (AC...)",
            json!(id),
            "string",
        )));
    }
    let call = {
        let inner = app.calls.lock();
        inner
            .calls
            .iter()
            .find(|c| c.id == id && c.org_id == org_id)
            .cloned()
    }
    .ok_or_else(|| g.not_found(format!("No call {id} in this workspace")))?;
    if !common::can_use_number(app, user_id, &call.phone_number_id) {
        let v1_calls = matches!(g, Gen::V1(a) if a.c403 == CALLS.c403);
        if v1_calls && app.faults.on("b16-calls-v1-get-forbidden-title") {
            return Err(g.forbidden_coded(
                "0100403",
                "Forbidden",
                format!("You are not allowed to read call {id}"),
            ));
        }
        return Err(g.not_number_user(format!(
            "You are not a user of phone number {}, the number of this call",
            call.phone_number_id
        )));
    }
    Ok(call)
}

// ---------------------------------------------------------------------------------------------
// v1

/// `GET /v1/calls`: the calls of one number with one other party (chronological).
pub async fn v1_list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    v1_list_inner(&app, &headers, raw.as_deref()).unwrap_or_else(|e| e)
}

fn v1_list_inner(app: &Arc<App>, headers: &HeaderMap, raw: Option<&str>) -> Answer {
    let g = Gen::V1(&CALLS);
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
    // Fault: an empty `participants` value is taken as "no participant filter".
    let lax_empty = app.faults.on("b16-calls-empty-participants-accepted");
    let participants = match q.all("participants") {
        Err(_) if lax_empty => Vec::new(),
        other => other.map_err(inv)?,
    };
    let any_participant = lax_empty
        && participants.is_empty()
        && raw.is_some_and(|r| {
            r.split('&')
                .any(|p| p == "participants" || p == "participants=")
        });
    let too_many_title = if app.faults.on("b16-calls-too-many-participants-title") {
        "Bad Request"
    } else {
        "Too Many Participants"
    };
    if participants.len() > 1 {
        return Err(g.bad_coded(
            "0101400",
            too_many_title,
            format!(
                "Calls are listed for exactly one other participant (1:1 calls only); {} were given",
                participants.len()
            ),
        ));
    }
    let participant = match participants.first() {
        Some(p) => *p,
        None if any_participant => "",
        None => {
            return Err(inv(Invalid::query(
                "participants",
                "is required: exactly one E.164 number, the other party",
                "",
            )));
        }
    };
    if !any_participant && !common::is_e164(participant) {
        return Err(inv(Invalid::query(
            "participants",
            "must be an E.164 number such as +14155550100",
            participant,
        )));
    }
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
    let since = if app.faults.on("b16-calls-since-ignored") {
        None
    } else {
        since
    };
    let after = q.instant("createdAfter").map_err(inv)?;
    let before = q.instant("createdBefore").map_err(inv)?;
    let before = match (before, since) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    let max = q.max_results(V1_DEFAULT_PAGE, 100).map_err(inv)?;
    let token = q.one("pageToken").map_err(inv)?;

    let number = app
        .directory
        .number(number_id)
        .filter(|n| n.org_id == caller.org_id)
        .ok_or_else(|| g.not_found(format!("No phone number {number_id} in this workspace")))?;
    if participant == number.number {
        return Err(inv(Invalid::query(
            "participants",
            "is the other party, not the workspace number itself",
            participant,
        )));
    }
    let scope_user = match user_id {
        Some(u) => {
            if app
                .directory
                .user(u)
                .is_none_or(|x| x.org_id != caller.org_id)
            {
                return Err(g.not_found(format!("No user {u} in this workspace")));
            }
            u.to_string()
        }
        None => number_owner(app, number_id).unwrap_or_else(|| caller.user_id.clone()),
    };
    if !common::can_use_number(app, &caller.user_id, number_id) {
        return Err(g.not_number_user(format!(
            "You are not a user of phone number {}",
            number.number
        )));
    }
    // Calls accessible to the scoping user: those of a number the user may use.
    let visible = common::can_use_number(app, &scope_user, number_id);
    let items: Vec<(Key, Value)> = if !visible {
        Vec::new()
    } else {
        let inner = app.calls.lock();
        inner
            .calls
            .iter()
            .filter(|c| c.org_id == caller.org_id && c.phone_number_id == number_id)
            .filter(|c| {
                any_participant || (c.participants.len() == 1 && c.participants[0] == participant)
            })
            .filter(|c| after.is_none_or(|t| c.created > t))
            .filter(|c| before.is_none_or(|t| c.created < t))
            .map(|c| (c.key(), c.json()))
            .collect()
    };
    let scope = q.fingerprint(&format!("v1/calls|{}|{}", caller.org_id, caller.user_id));
    let (page, total, next) = common::keyset_page(items, false, token, &scope, max).map_err(inv)?;
    Ok(common::list(page, total, next))
}

/// `GET /v1/calls/{callId}`.
pub async fn v1_get(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let id = common::path_id(path);
    let g = Gen::V1(&CALLS);
    let run = || -> Answer {
        let caller = auth::authenticate(&app, &headers).ok_or_else(|| g.unauthorized())?;
        Query::parse(raw.as_deref())
            .only(&[])
            .map_err(|i| g.invalid(i))?;
        let call = readable_call(&app, g, &caller.org_id, &caller.user_id, &id)?;
        Ok(common::data(StatusCode::OK, call.json()))
    };
    run().unwrap_or_else(|e| e)
}

/// `GET /v1/call-recordings/{callId}`: `{data: [Recording]}`, oldest segment first.
pub async fn v1_recordings(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let id = common::path_id(path);
    let g = Gen::V1(&RECORDINGS);
    let run = || -> Answer {
        let caller = auth::authenticate(&app, &headers).ok_or_else(|| g.unauthorized())?;
        Query::parse(raw.as_deref())
            .only(&[])
            .map_err(|i| g.invalid(i))?;
        let call = readable_call(&app, g, &caller.org_id, &caller.user_id, &id)?;
        let mut segments = call.recordings_json();
        if app.faults.on("b16-recordings-v1-newest-first") {
            segments.reverse();
        }
        Ok(common::data(StatusCode::OK, Value::Array(segments)))
    };
    run().unwrap_or_else(|e| e)
}

// ---------------------------------------------------------------------------------------------
// Header-versioned

/// `include=summary,voicemail`: (summary, voicemail).
fn read_include(q: &Query) -> Result<(bool, bool), Invalid> {
    let mut summary = false;
    let mut voicemail = false;
    for raw in q.all("include")? {
        for v in common::comma_set("include", raw)? {
            match v {
                "summary" => summary = true,
                "voicemail" => voicemail = true,
                _ => {
                    return Err(Invalid::query(
                        "include",
                        "values must be among summary, voicemail",
                        raw,
                    ));
                }
            }
        }
    }
    Ok((summary, voicemail))
}

/// `GET /calls`: the calls of the numbers the caller may use, newest first, with filters.
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
        "include",
        "phoneNumberId",
        "phoneNumberId[in]",
        "actorId",
        "actorId[in]",
        "participants",
        "participant",
        "direction",
        "direction[in]",
        "status",
        "status[in]",
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
    let (with_summary, with_voicemail) = read_include(&q).map_err(inv)?;
    let numbers = common::id_filter(&q, "phoneNumberId", &["PN"]).map_err(inv)?;
    let actors = common::id_filter(&q, "actorId", &["US", "AG"]).map_err(inv)?;
    let mut parts: Vec<String> = Vec::new();
    for name in ["participants", "participant"] {
        for v in q.all(name).map_err(inv)? {
            if !common::is_e164(v) {
                return Err(inv(Invalid::query(name, "must be an E.164 number", v)));
            }
            parts.push(v.to_string());
        }
    }
    let direction = common::enum_filter(&q, "direction", CALL_DIRECTIONS).map_err(inv)?;
    let status = common::enum_filter(&q, "status", CALL_STATUSES).map_err(inv)?;
    let created = Range::read(&q, "createdAt").map_err(inv)?;
    let (_, desc) = common::read_sort(&q, &["createdAt"], ("createdAt", true)).map_err(inv)?;
    let max = q.max_results(LATEST_DEFAULT_PAGE, 100).map_err(inv)?;
    let token = q.one("pageToken").map_err(inv)?;
    if let Some(ns) = &numbers {
        for n in ns {
            let ours = app
                .directory
                .number(n)
                .is_some_and(|x| x.org_id == caller.org_id);
            if ours && !common::can_use_number(app, &caller.user_id, n) {
                return Err(g.not_number_user(format!("You are not a user of phone number {n}")));
            }
        }
    }
    let has =
        |set: &Option<Vec<String>>, v: &str| set.as_ref().is_none_or(|s| s.iter().any(|x| x == v));
    let items: Vec<(Key, Value)> = {
        let inner = app.calls.lock();
        inner
            .calls
            .iter()
            .filter(|c| c.org_id == caller.org_id)
            .filter(|c| common::can_use_number(app, &caller.user_id, &c.phone_number_id))
            .filter(|c| has(&numbers, &c.phone_number_id))
            .filter(|c| {
                actors
                    .as_ref()
                    .is_none_or(|s| c.actor_ids().iter().any(|a| s.contains(a)))
            })
            .filter(|c| parts.iter().all(|p| c.participants.contains(p)))
            .filter(|c| has(&direction, if c.inbound { "inbound" } else { "outbound" }))
            .filter(|c| has(&status, c.status))
            .filter(|c| created.holds(c.created))
            .map(|c| (c.key(), c.json_with(with_summary, with_voicemail)))
            .collect()
    };
    let scope = q.fingerprint(&format!("calls|{}|{}", caller.org_id, caller.user_id));
    let (page, total, next) = common::keyset_page(items, desc, token, &scope, max).map_err(inv)?;
    Ok(common::list(page, total, next))
}

/// `GET /calls/{callId}` (`include=summary,voicemail`).
pub async fn latest_get(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let id = common::path_id(path);
    let g = Gen::Latest;
    let run = || -> Answer {
        let caller = auth::latest_guard(&app, &headers)?;
        let q = Query::parse(raw.as_deref());
        q.only(&["include"]).map_err(|i| g.invalid(i))?;
        let (s, v) = read_include(&q).map_err(|i| g.invalid(i))?;
        let call = readable_call(&app, g, &caller.org_id, &caller.user_id, &id)?;
        Ok(common::data(StatusCode::OK, call.json_with(s, v)))
    };
    run().unwrap_or_else(|e| e)
}

/// Which segments a paged route lists.
#[derive(Clone, Copy)]
enum Segments {
    Recordings,
    Transcripts,
}

fn segments(
    app: &Arc<App>,
    headers: &HeaderMap,
    id: &str,
    raw: Option<&str>,
    what: Segments,
) -> Answer {
    let g = Gen::Latest;
    let caller = auth::latest_guard(app, headers)?;
    let inv = |i: Invalid| g.invalid(i);
    let q = Query::parse(raw);
    q.only(&["maxResults", "pageToken"]).map_err(inv)?;
    let max = q.max_results(SEGMENTS_DEFAULT_PAGE, 100).map_err(inv)?;
    let token = q.one("pageToken").map_err(inv)?;
    let call = readable_call(app, g, &caller.org_id, &caller.user_id, id)?;
    let items: Vec<(Key, Value)> = match what {
        Segments::Recordings => {
            let strip = app.faults.on("b16-recordings-latest-id-without-prefix");
            call.recordings
                .iter()
                .map(|r| {
                    let mut v = r.json(&call.id);
                    if strip {
                        if let Some(o) = v.as_object_mut() {
                            let bare = r.id.strip_prefix("CR").unwrap_or(&r.id).to_string();
                            o.insert("id".into(), Value::String(bare));
                        }
                    }
                    (Key(common::nanos(r.start), r.seq), v)
                })
                .collect()
        }
        Segments::Transcripts => call
            .transcript
            .iter()
            .map(|l| (Key(common::nanos(l.start), l.seq), l.json(&call.id)))
            .collect(),
    };
    let kind = match what {
        Segments::Recordings => "recordings",
        Segments::Transcripts => "transcripts",
    };
    let scope = q.fingerprint(&format!(
        "calls/{kind}|{}|{}|{}",
        caller.org_id, caller.user_id, call.id
    ));
    let (page, total, next) = common::keyset_page(items, false, token, &scope, max).map_err(inv)?;
    Ok(common::list(page, total, next))
}

/// `GET /calls/{callId}/recordings`: paginated, in order of occurrence.
pub async fn latest_recordings(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let id = common::path_id(path);
    segments(&app, &headers, &id, raw.as_deref(), Segments::Recordings).unwrap_or_else(|e| e)
}

/// `GET /calls/{callId}/transcripts`: paginated, in order of occurrence.
pub async fn latest_transcripts(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    path: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let id = common::path_id(path);
    segments(&app, &headers, &id, raw.as_deref(), Segments::Transcripts).unwrap_or_else(|e| e)
}
