//! Messages of both generations: v1 list and send; header-versioned list, get and retry.

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::respond::{allow_only, answer};
use crate::app::App;
use crate::auth::Caller;
use crate::contact_input::is_e164;
use crate::errors::ApiError;
use crate::faults::{Fault, FaultSet};
use crate::input::{self, Query};
use crate::messaging::{self, A2p, Line, Message, RetryRefusal, Workspace};
use crate::pagination;
use crate::reply;
use crate::variants::Variant;

const V1_PATH: &str = "/v1/messages";
const HV_PATH: &str = "/messages";
const MAX_RESULTS: usize = 100;
const DEFAULT_RESULTS: usize = 10;
const MAX_RECIPIENTS: usize = 10;
const MAX_PARTICIPANTS: usize = 10;
/// The width of the text column under fault send-text-column-160.
const TEXT_COLUMN: usize = 160;
/// The reference's home country: other country codes are international.
const DOMESTIC_PREFIX: &str = "+1";

pub(super) fn v1_routes() -> Router<App> {
    Router::new().route(V1_PATH, allow_only(get(list_v1).post(send_v1), "GET, POST"))
}

pub(super) fn header_versioned_routes() -> Router<App> {
    Router::new()
        .route(HV_PATH, allow_only(get(list_hv), "GET"))
        .route("/messages/{messageId}", allow_only(get(get_hv), "GET"))
        .route(
            "/messages/{messageId}/retry",
            allow_only(post(retry_hv), "POST"),
        )
}

pub(super) fn instant(path: &str, name: &str, value: &str) -> Result<OffsetDateTime, ApiError> {
    OffsetDateTime::parse(value, &Rfc3339).map_err(|_| {
        ApiError::bad_request(
            path,
            format!("query parameter {name} must be an RFC 3339 date-time, got '{value}'"),
        )
    })
}

fn optional_instant(
    path: &str,
    query: &Query,
    name: &str,
) -> Result<Option<OffsetDateTime>, ApiError> {
    query
        .first(name)
        .map(|v| instant(path, name, v))
        .transpose()
}

/// The page size the contact list allows (fault messages-max-results-contacts-range).
const CONTACTS_MAX_RESULTS: usize = 50;

fn page_size(app: &App, path: &str, query: &Query) -> Result<usize, ApiError> {
    let faults = &app.switches().faults;
    let max = if faults.has(Fault::MessagesMaxResultsMax101) {
        MAX_RESULTS + 1
    } else if path == V1_PATH && faults.has(Fault::MessagesMaxResultsContactsRange) {
        // Fault messages-max-results-contacts-range: the contact list's validator, copied.
        CONTACTS_MAX_RESULTS
    } else {
        MAX_RESULTS
    };
    // Fault messages-v1-max-results-compared-as-text: the bounds compared with the query's text.
    if let Some(v) = query.first("maxResults").filter(|v| {
        path == V1_PATH
            && faults.has(Fault::MessagesV1MaxResultsComparedAsText)
            && !(*v >= "1" && *v <= "100")
    }) {
        return Err(ApiError::bad_request(
            path,
            pagination::PageQueryError::MaxResults {
                value: v.to_string(),
                min: 1,
                max,
            }
            .to_string(),
        ));
    }
    pagination::max_results(query.first("maxResults"), DEFAULT_RESULTS, max)
        .map_err(|e| ApiError::bad_request(path, e.to_string()))
}

/// Cuts a page of messages and answers the list body.
fn message_page(
    app: &App,
    path: &str,
    items: &[Message],
    query: &Query,
    with_conversation_id: bool,
) -> Result<Response, ApiError> {
    let size = page_size(app, path, query)?;
    // Fault messages-v1-empty-204: an empty result answers 204 No Content, without a body.
    if path == V1_PATH && items.is_empty() && app.switches().faults.has(Fault::MessagesV1Empty204) {
        return Ok(StatusCode::NO_CONTENT.into_response());
    }
    // Fault messages-v1-page-one-over: an inclusive end index cuts one message more.
    let size = if path == V1_PATH && app.switches().faults.has(Fault::MessagesV1PageOneOver) {
        size + 1
    } else {
        size
    };
    // Fault messages-offset-pages-shift: the latest list is cut by offset, not by keyset.
    let offset_pages =
        path == HV_PATH && app.switches().faults.has(Fault::MessagesOffsetPagesShift);
    // Fault messages-cursor-ascending-compare: the keyset comparison is not flipped.
    let ascending = path == HV_PATH
        && app
            .switches()
            .faults
            .has(Fault::MessagesCursorAscendingCompare);
    let (page, next) = if offset_pages {
        offset_page(items, size, query.first("pageToken"))
    } else if ascending {
        ascending_cursor_page(items, size, query.first("pageToken"))
    } else {
        messaging::keyset_page(items, |m| m.id.as_str(), size, query.first("pageToken"))
    }
    .map_err(|e| ApiError::bad_request(path, e.to_string()))?;
    // Fault messages-keyset-token-skips: the cursor names the first message of the next page
    // (`rows[limit]`), while a continuation starts after the message its cursor names.
    let next = match (next, page.last()) {
        (Some(_), Some(last))
            if path == HV_PATH && app.switches().faults.has(Fault::MessagesKeysetTokenSkips) =>
        {
            items
                .iter()
                .position(|m| m.id == last.id)
                .and_then(|at| items.get(at + 1))
                .map(|m| messaging::keyset_token(&m.id))
        }
        (next, _) => next,
    };
    // Fault message-incoming-to-sparse-object: the parties are read from the conversations.
    let sparse = (path == HV_PATH
        && app
            .switches()
            .faults
            .has(Fault::MessageIncomingToSparseObject))
    .then(|| app.store());
    let body = pagination::list_body(
        pagination::Page {
            items: page
                .iter()
                .map(|m| {
                    let mut v = m.to_json(with_conversation_id);
                    media_type_from_extension(app, &mut v);
                    if let Some(store) = &sparse {
                        sparse_to(&store.messaging, m, &mut v);
                    }
                    if path == HV_PATH {
                        unwrap_single_recipient(app, &mut v);
                        go_initialisms(app, &mut v);
                        status_ordinal_drift(app, &mut v);
                    }
                    // Fault messages-v1-media-url-strings: the v0 list's media field.
                    if path == V1_PATH
                        && app.switches().faults.has(Fault::MessagesV1MediaUrlStrings)
                    {
                        v0_media(&mut v);
                    }
                    if path == V1_PATH && app.switches().faults.has(Fault::MessageIdPrefixMs) {
                        if let Some(rest) = m.id.strip_prefix("AC") {
                            v["id"] = Value::String(format!("MS{rest}"));
                        }
                    }
                    v
                })
                .collect(),
            total: items.len(),
            next_token: next,
        },
        &app.switches().faults,
    );
    Ok(reply::json(StatusCode::OK, &body))
}

/// Fault message-incoming-to-sparse-object: an incoming message's `to` built with PHP's
/// `array_filter` over the conversation's parties (the line first), which keeps the keys: when
/// the sender is not the last party, `json_encode` writes the list with its hole as an object.
fn sparse_to(messaging: &messaging::Messaging, m: &Message, json: &mut Value) {
    if m.direction != "incoming" {
        return;
    }
    let (Some(line), Some(c)) = (
        messaging.line_by_id(&m.phone_number_id),
        messaging.conversation(&m.conversation_id),
    ) else {
        return;
    };
    let parties: Vec<&str> = std::iter::once(line.number)
        .chain(c.participants.iter().map(String::as_str))
        .collect();
    let Some(sender) = parties.iter().position(|p| *p == m.from) else {
        return;
    };
    if sender + 1 == parties.len() {
        return;
    }
    let kept: Map<String, Value> = parties
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != sender)
        .map(|(i, p)| (i.to_string(), Value::String(p.to_string())))
        .collect();
    json["to"] = Value::Object(kept);
}

/// Fault messages-offset-pages-shift: the page at the offset the token holds, and the token of
/// the offset after it.
fn offset_page(
    items: &[Message],
    size: usize,
    token: Option<&str>,
) -> Result<(Vec<Message>, Option<String>), pagination::PageQueryError> {
    let start = pagination::page_token(token)?.min(items.len());
    let end = start.saturating_add(size.max(1)).min(items.len());
    let next = (end < items.len()).then(|| pagination::encode_token(end));
    Ok((items[start..end].to_vec(), next))
}

/// Fault messages-v1-media-url-strings: media as the v0 list wrote it, its urls alone.
fn v0_media(json: &mut Value) {
    if let Some(Value::Array(items)) = json.get_mut("media") {
        for item in items.iter_mut() {
            let url = item.get("url").cloned().unwrap_or(Value::Null);
            *item = url;
        }
    }
}

/// Fault messages-cursor-ascending-compare: a page holds the first messages, in list order, whose
/// id is greater than the one the token names (`id > cursor`), whatever the order of the list.
fn ascending_cursor_page(
    items: &[Message],
    size: usize,
    token: Option<&str>,
) -> Result<(Vec<Message>, Option<String>), pagination::PageQueryError> {
    let cursor = match token {
        None => None,
        Some(t) => Some(messaging::keyset_id(t).ok_or_else(|| {
            pagination::PageQueryError::ForeignToken {
                token: t.to_string(),
            }
        })?),
    };
    let after: Vec<&Message> = items
        .iter()
        .filter(|m| cursor.as_ref().is_none_or(|c| m.id.as_str() > c.as_str()))
        .collect();
    let page: Vec<Message> = after
        .iter()
        .take(size.max(1))
        .map(|m| (*m).clone())
        .collect();
    let next = (after.len() > page.len())
        .then(|| page.last().map(|m| messaging::keyset_token(&m.id)))
        .flatten();
    Ok((page, next))
}

/// Fault messages-list-status-ordinal-drift: the replica's enum lists the two terminal failures
/// in the other order.
fn status_ordinal_drift(app: &App, json: &mut Value) {
    if !app
        .switches()
        .faults
        .has(Fault::MessagesListStatusOrdinalDrift)
    {
        return;
    }
    let drifted = match json.get("status").and_then(Value::as_str) {
        Some("failed") => "undelivered",
        Some("undelivered") => "failed",
        _ => return,
    };
    json["status"] = Value::String(drifted.to_string());
}

/// Fault message-to-single-unwrapped: the header-versioned views serialize a one-item list as
/// its item.
fn unwrap_single_recipient(app: &App, json: &mut Value) {
    if !app.switches().faults.has(Fault::MessageToSingleUnwrapped) {
        return;
    }
    let single = match json.get("to") {
        Some(Value::Array(to)) if to.len() == 1 => to.first().cloned(),
        _ => None,
    };
    if let Some(only) = single {
        json["to"] = only;
    }
}

/// Fault messages-list-go-initialisms: the list's JSON names were generated under the Go
/// initialism rule (`ID`, not `Id`).
fn go_initialisms(app: &App, json: &mut Value) {
    if !app.switches().faults.has(Fault::MessagesListGoInitialisms) {
        return;
    }
    if let Some(o) = json.as_object_mut() {
        for name in ["conversationId", "phoneNumberId", "userId"] {
            if let Some(v) = o.remove(name) {
                o.insert(format!("{}ID", name.trim_end_matches("Id")), v);
            }
        }
    }
}

/// Fault message-media-type-extension: the attachment's type taken from its file name.
fn media_type_from_extension(app: &App, json: &mut Value) {
    if !app.switches().faults.has(Fault::MessageMediaTypeExtension) {
        return;
    }
    if let Some(Value::Array(items)) = json.get_mut("media") {
        for item in items.iter_mut() {
            let ext = item
                .get("url")
                .and_then(Value::as_str)
                .and_then(|u| u.rsplit_once('.'))
                .map(|(_, ext)| ext.to_string());
            if let Some(ext) = ext {
                item["type"] = Value::String(ext);
            }
        }
    }
}

// --- GET /v1/messages ---------------------------------------------------------------------

async fn list_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Response {
    // Fault messages-v1-query-length-414: the gateway refuses a long query string.
    let long = raw
        .as_deref()
        .is_some_and(|q| q.len() > GATEWAY_QUERY_LIMIT);
    if long && app.switches().faults.has(Fault::MessagesV1QueryLength414) {
        return ApiError::for_path(
            V1_PATH,
            StatusCode::URI_TOO_LONG,
            format!("the query string exceeds {GATEWAY_QUERY_LIMIT} bytes"),
        )
        .render(app.switches());
    }
    answer(
        &app,
        list_v1_page(&app, &caller, &Query::parse(raw.as_deref())),
    )
}

/// The query string length the gateway of fault messages-v1-query-length-414 allows, in bytes.
const GATEWAY_QUERY_LIMIT: usize = 256;

/// Variant messages-listed-late (READINGS 7.1): a message the API sent shows in the lists only
/// 400 ms after the send, as where sending is queued work.
fn listed_yet(app: &App, m: &Message) -> bool {
    !app.switches().variant(Variant::MessagesListedLate)
        || m.created_at + time::Duration::milliseconds(400) <= OffsetDateTime::now_utc()
}

fn list_v1_page(app: &App, caller: &Caller, query: &Query) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let store = app.store();
    let messaging = &store.messaging;
    let workspace = messaging.workspace_of(caller.user_id);
    let line = match query.first("phoneNumberId") {
        Some(id) if !id.starts_with("PN") => {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!("phoneNumberId must match ^PN(.*)$, got '{id}'"),
            ));
        }
        Some(id) => Some(messaging.line(workspace, id).ok_or_else(|| {
            ApiError::for_path(
                V1_PATH,
                StatusCode::NOT_FOUND,
                format!("phone number '{id}' was not found"),
            )
        })?),
        None => None,
    };
    if let Some(user) = query.first("userId").filter(|u| !u.starts_with("US")) {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!("userId must match ^US(.*)$, got '{user}'"),
        ));
    }
    let participants: Vec<String> = query
        .all("participants")
        .into_iter()
        .map(str::to_string)
        .collect();
    let max_participants = if faults.has(Fault::MessageParticipantsMax11) {
        MAX_PARTICIPANTS + 1
    } else {
        MAX_PARTICIPANTS
    };
    if participants.len() > max_participants {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!(
                "participants takes at most {MAX_PARTICIPANTS} numbers, got {}",
                participants.len()
            ),
        ));
    }
    // Fault participants-e164-first-only: the later participants are not looked at.
    let checked = if faults.has(Fault::ParticipantsE164FirstOnly) {
        1
    } else {
        participants.len()
    };
    if let Some(p) = participants.iter().take(checked).find(|p| !is_e164(p)) {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!("participants: '{p}' is not an E.164 phone number"),
        ));
    }
    // Fault messages-participants-own-number-accepted: the workspace number is dropped, not refused.
    let mut participants = participants;
    if faults.has(Fault::MessagesParticipantsOwnNumberAccepted) {
        participants.retain(|p| line.is_none_or(|l| l.number != p.as_str()));
    }
    if let Some(p) = participants
        .iter()
        .find(|p| line.is_some_and(|l| l.number == p.as_str()))
    {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!("participants must not include the workspace number {p}"),
        ));
    }
    // Fault messages-unparsed-time-ignored: a createdAfter that is no date-time is dropped.
    let after = optional_instant(V1_PATH, query, "createdAfter").or_else(|e| {
        faults
            .has(Fault::MessagesUnparsedTimeIgnored)
            .then_some(None)
            .ok_or(e)
    })?;
    let before = optional_instant(V1_PATH, query, "createdBefore")?
        .filter(|_| !faults.has(Fault::MessagesCreatedBeforeIgnored))
        .map(|t| {
            // Fault messages-created-before-end-of-day: the bound read as a date, inclusive.
            if faults.has(Fault::MessagesCreatedBeforeEndOfDay) {
                let date = t.to_offset(time::UtcOffset::UTC).date();
                date.next_day().unwrap_or(date).midnight().assume_utc()
            } else {
                t
            }
        });
    let since = optional_instant(V1_PATH, query, "since")?;
    // Fault messages-since-dropped-with-created-after: `since` is read only without createdAfter.
    let since = since
        .filter(|_| !(after.is_some() && faults.has(Fault::MessagesSinceDroppedWithCreatedAfter)));
    let (after, before) = if faults.has(Fault::SinceAsCreatedAfter) {
        (after.or(since), before)
    } else {
        (after, before.or(since))
    };
    let after = after.filter(|_| !faults.has(Fault::CreatedAfterIgnored));
    let (after, before) = date_picker_range(faults, after, before);
    // Fault messages-participants-last-value-only: the query reads the key's single value, the
    // last one, though the validator saw the list.
    if faults.has(Fault::MessagesParticipantsLastValueOnly) && participants.len() > 1 {
        participants = participants.split_off(participants.len() - 1);
    }
    // Fault messages-time-bounds-inclusive: "after" and "before" keep the instant itself.
    let inclusive = faults.has(Fault::MessagesTimeBoundsInclusive);
    // Fault messages-participants-order-sensitive: the set compared as an ordered list.
    let ordered = faults.has(Fault::MessagesParticipantsOrderSensitive);
    let conversation = (!participants.is_empty() && !faults.has(Fault::ParticipantsFilterIgnored))
        .then(|| {
            line.map(|l| {
                if ordered {
                    return messaging
                        .conversations()
                        .iter()
                        .find(|c| c.phone_number_id == l.id && c.participants == participants)
                        .map(|c| c.id.clone());
                }
                messaging
                    .conversation_with(l.id, &participants)
                    .map(|c| c.id.clone())
            })
        });
    let mut items: Vec<Message> = messaging
        .messages()
        .iter()
        .filter(|m| listed_yet(app, m))
        .filter(|m| {
            let in_workspace = messaging
                .line_by_id(&m.phone_number_id)
                .is_some_and(|l| l.workspace == workspace);
            let on_line = line.is_none_or(|l| l.id == m.phone_number_id);
            // Fault participants-filter-matches-supersets: any conversation holding every given
            // participant matches, not only the one of exactly that set.
            let superset = faults.has(Fault::ParticipantsFilterMatchesSupersets)
                && !participants.is_empty()
                && messaging
                    .conversation(&m.conversation_id)
                    .is_some_and(|c| participants.iter().all(|p| c.participants.contains(p)));
            let of_participants = superset
                || match &conversation {
                    None => true,
                    Some(Some(Some(c))) => &m.conversation_id == c,
                    Some(Some(None)) => false,
                    // No line given: the participants' conversations on every line of the workspace.
                    Some(None) => messaging.conversation(&m.conversation_id).is_some_and(|c| {
                        let mut a = c.participants.clone();
                        let mut b = participants.clone();
                        if !ordered {
                            a.sort();
                            b.sort();
                        }
                        a == b
                    }),
                };
            in_workspace
                && on_line
                && of_participants
                && query.first("userId").is_none_or(|u| {
                    // Fault messages-user-id-keeps-incoming: `user_id IS NULL OR user_id = ?`.
                    m.user_id.as_deref() == Some(u)
                        || (m.user_id.is_none() && faults.has(Fault::MessagesUserIdKeepsIncoming))
                })
                && after.is_none_or(|t| m.created_at > t || inclusive && m.created_at == t)
                && before.is_none_or(|t| m.created_at < t || inclusive && m.created_at == t)
        })
        .cloned()
        .collect();
    // Chronological: oldest first.
    items.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    if faults.has(Fault::MessagesV1NewestFirst) {
        items.reverse();
    }
    drop(store);
    // Fault messages-v1-list-without-conversation-id: the v1 list's own field list lacks it.
    let with_conversation_id = !faults.has(Fault::MessagesV1ListWithoutConversationId);
    message_page(app, V1_PATH, &items, query, with_conversation_id)
}

/// Fault messages-v1-bounds-swapped: the date picker's range helper puts reversed bounds in order.
fn date_picker_range(
    faults: &FaultSet,
    after: Option<OffsetDateTime>,
    before: Option<OffsetDateTime>,
) -> (Option<OffsetDateTime>, Option<OffsetDateTime>) {
    match (after, before) {
        (Some(a), Some(b)) if a > b && faults.has(Fault::MessagesV1BoundsSwapped) => {
            (Some(b), Some(a))
        }
        bounds => bounds,
    }
}

// --- POST /v1/messages --------------------------------------------------------------------

async fn send_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    body: Body,
) -> Response {
    let body = input::json_object(body, V1_PATH).await;
    answer(&app, body.and_then(|b| send(&app, &caller, &b)))
}

fn send(app: &App, caller: &Caller, body: &Map<String, Value>) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let stored = mangled_text(faults, stored_text(app, body)?);
    let recipients = recipients(faults, body)?;
    let sender = sender(faults, body)?;
    let mut store = app.store();
    let workspace = store.messaging.workspace_of(caller.user_id);
    // Fault from-number-unresolved: only a phone number id names the sender.
    let unresolved = faults.has(Fault::FromNumberUnresolved)
        && body.contains_key("from")
        && !sender.starts_with("PN");
    // Fault send-from-other-workspace-number: the number looked up in every workspace.
    let line = store
        .messaging
        .line(workspace, &sender)
        .or_else(|| {
            faults
                .has(Fault::SendFromOtherWorkspaceNumber)
                .then(|| store.messaging.line_in_any_workspace(&sender))
                .flatten()
        })
        .filter(|_| !unresolved)
        .cloned()
        .ok_or_else(|| {
            ApiError::for_path(
                V1_PATH,
                StatusCode::FORBIDDEN,
                format!("'{sender}' is not a phone number of your workspace"),
            )
        })?;
    // Fault send-deprecated-sender-skips-subscription: the branch that resolves the deprecated
    // phoneNumberId predates the subscription check.
    let mut workspace_limits = limits(app, workspace);
    if faults.has(Fault::SendDeprecatedSenderSkipsSubscription)
        && !body.contains_key("from")
        && body.contains_key("phoneNumberId")
    {
        workspace_limits.expired = false;
    }
    // Fault send-subscription-from-key-claims: the key's claims were minted while active.
    if faults.has(Fault::SendSubscriptionFromKeyClaims) {
        workspace_limits.expired = false;
    }
    if let Err(refused) = may_send(faults, workspace_limits, &line, &recipients) {
        // Fault expired-send-still-recorded: the row was inserted before the subscription check.
        if refused.status() == StatusCode::PAYMENT_REQUIRED
            && faults.has(Fault::ExpiredSendStillRecorded)
        {
            store.messaging.record(
                &line,
                &recipients,
                true,
                None,
                &stored,
                Some(caller.user_id),
                "queued",
                OffsetDateTime::now_utc(),
            );
        }
        return Err(refused);
    }
    // Fault send-deduped-by-body: a send equal to a recent one answers that one.
    let dedupe_key = faults
        .has(Fault::SendDedupedByBody)
        .then(|| send_key(caller, &line, &recipients, &stored));
    if let Some(earlier) = dedupe_key
        .as_deref()
        .and_then(|k| recent_send(&mut store, k))
    {
        return Ok(reply::data(StatusCode::ACCEPTED, earlier));
    }
    let mut recipients = recipients;
    if faults.has(Fault::GroupToListsSender) && recipients.len() > 1 {
        // The group's participants with the workspace number, one recipient short.
        if let Some(last) = recipients.last_mut() {
            *last = line.number.to_string();
        }
    }
    // Fault group-send-fan-out: one 1:1 message per recipient instead of one group message.
    let sends: Vec<Vec<String>> = if faults.has(Fault::GroupSendFanOut) && recipients.len() > 1 {
        recipients.iter().map(|r| vec![r.clone()]).collect()
    } else {
        vec![recipients]
    };
    let mut answers = Vec::new();
    let mut jobs = Vec::new();
    for to in sends {
        // Fault group-send-joins-superset-conversation: the group lookup asks for the most
        // recently active conversation holding every recipient, not the one of exactly them.
        let to = if faults.has(Fault::GroupSendJoinsSupersetConversation) && to.len() > 1 {
            store
                .messaging
                .conversations()
                .iter()
                .filter(|c| c.phone_number_id == line.id)
                .filter(|c| to.iter().all(|n| c.participants.contains(n)))
                .max_by_key(|c| c.last_activity_at)
                .map(|c| c.participants.clone())
                .unwrap_or(to)
        } else {
            to
        };
        // Fault send-conversation-keyed-with-sender: the conversation is keyed by every party of
        // the message, the sending number included.
        let parties = parties_of(faults, &line, &to);
        // Fault send-conversation-id-null-when-new: the answer is built before the conversation
        // upsert gives a new conversation its id.
        let opens = store
            .messaging
            .conversation_with(line.id, &parties)
            .is_none();
        // Fault send-duplicate-conversation-replica-lag: a conversation opened less than 5 s ago
        // is not on the replica yet, so the send opens another with the same participants.
        store.messaging.force_new_conversation = faults
            .has(Fault::SendDuplicateConversationReplicaLag)
            && store
                .messaging
                .conversation_with(line.id, &parties)
                .is_some_and(|c| {
                    OffsetDateTime::now_utc() - c.created_at < time::Duration::seconds(5)
                });
        let at = sent_at(faults, &mut store);
        let mut message = store.messaging.record(
            &line,
            &parties,
            true,
            None,
            &stored,
            Some(caller.user_id),
            "sent",
            at,
        );
        store.messaging.force_new_conversation = false;
        if parties != to {
            store.messaging.set_to(&message.id, &to);
            message.to = to.clone();
        }
        // Fault send-new-conversation-uuid: the send service's model keys a new conversation
        // with its default UUID.
        if opens && faults.has(Fault::SendNewConversationUuid) {
            let uuid = uuid_v4();
            store
                .messaging
                .rename_conversation(&message.conversation_id, &uuid);
            message.conversation_id = uuid;
        }
        // Fault conversation-created-at-on-update: the write to an existing conversation's row
        // moves its auto-updating createdAt.
        if !opens
            && app
                .switches()
                .faults
                .has(Fault::ConversationCreatedAtOnUpdate)
        {
            store
                .messaging
                .touch_created(&message.conversation_id, message.created_at);
        }
        // Fault send-stores-carrier-sid: the row takes the id the carrier's send returned.
        if faults.has(Fault::SendStoresCarrierSid) {
            let sid = format!("SM{:0>32}", message.id.trim_start_matches("AC"));
            store.messaging.rename(&message.id, &sid);
            message.id = sid;
        }
        // Fault message-from-phone-number-id: the sender kept as named, a phone number id.
        if faults.has(Fault::MessageFromPhoneNumberId) && sender.starts_with("PN") {
            store.messaging.set_from(&message.id, &sender);
            message.from = sender.clone();
        }
        let json = message.to_json(true);
        let id = json["id"].as_str().unwrap_or_default().to_string();
        let answered = send_answer(app, &store, &json, opens);
        jobs.extend(sent_events(app, &mut store, &message, &id, &json));
        answers.push(answered);
    }
    let json = answers.into_iter().next().unwrap_or(Value::Null);
    if let Some(key) = dedupe_key {
        let now = OffsetDateTime::now_utc();
        store.recent_sends.push((key, now, json.clone()));
    }
    drop(store);
    crate::deliveries::dispatch(app, jobs);
    Ok(reply::data(StatusCode::ACCEPTED, json))
}

/// The instant a send records: now, or under fault send-created-at-default-frozen the column
/// default computed once, at the first send of the instance.
fn sent_at(faults: &FaultSet, store: &mut crate::store::Store) -> OffsetDateTime {
    let now = OffsetDateTime::now_utc();
    if !faults.has(Fault::SendCreatedAtDefaultFrozen) {
        return now;
    }
    *store.frozen_send_at.get_or_insert(now)
}

/// How long fault send-deduped-by-body remembers a send.
const DEDUPE_WINDOW: time::Duration = time::Duration::seconds(10);

/// The key of a send under fault send-deduped-by-body: the caller, the sending line, the
/// recipients as a set and the text.
fn send_key(caller: &Caller, line: &Line, recipients: &[String], text: &str) -> String {
    let mut to = recipients.to_vec();
    to.sort();
    format!("{}|{}|{}|{text}", caller.user_id, line.id, to.join(","))
}

/// The answer of a send of the same key within the window, forgetting older ones.
fn recent_send(store: &mut crate::store::Store, key: &str) -> Option<Value> {
    let now = OffsetDateTime::now_utc();
    store
        .recent_sends
        .retain(|(_, at, _)| now - *at < DEDUPE_WINDOW);
    store
        .recent_sends
        .iter()
        .find(|(k, ..)| k == key)
        .map(|(.., answer)| answer.clone())
}

/// The parties a send's conversation is looked up by: its recipients, and under fault
/// send-conversation-keyed-with-sender the sending number too.
fn parties_of(faults: &FaultSet, line: &Line, to: &[String]) -> Vec<String> {
    let mut parties = to.to_vec();
    if faults.has(Fault::SendConversationKeyedWithSender) {
        parties.push(line.number.to_string());
    }
    parties
}

/// The text a send stores, with what the storage faults make of it.
fn mangled_text(faults: &FaultSet, stored: String) -> String {
    // Fault message-text-non-ascii-mangled: an ASCII-only encoding step mangles the text.
    let stored = if faults.has(Fault::MessageTextNonAsciiMangled) {
        stored
            .chars()
            .map(|c| if c.is_ascii() { c } else { '?' })
            .collect()
    } else {
        stored
    };
    // Fault send-text-crlf-normalized: line endings normalized to CRLF for the SMPP gateway.
    let stored = if faults.has(Fault::SendTextCrlfNormalized) {
        stored.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        stored
    };
    // Fault send-text-column-160: the text column holds one SMS segment and cuts the rest.
    if faults.has(Fault::SendTextColumn160) {
        stored.chars().take(TEXT_COLUMN).collect()
    } else {
        stored
    }
}

/// The answer of a send: the message as recorded, with what the send faults make of it.
fn send_answer(app: &App, store: &crate::store::Store, json: &Value, opens: bool) -> Value {
    let faults = &app.switches().faults;
    let mut answered = json.clone();
    // Fault send-conversation-id-null-when-new: the answer is built before the upsert.
    if opens && faults.has(Fault::SendConversationIdNullWhenNew) {
        answered["conversationId"] = Value::Null;
    }
    // Fault send-answers-last-opened-conversation: the process-wide `current conversation`,
    // which only the opening of a conversation sets.
    if faults.has(Fault::SendAnswersLastOpenedConversation) {
        if let Some(current) = &store.messaging.last_opened {
            answered["conversationId"] = Value::String(current.clone());
        }
    }
    // Fault send-timestamps-offset-no-colon: the send answer is formatted with `%z`.
    if faults.has(Fault::SendTimestampsOffsetNoColon) {
        for field in ["createdAt", "updatedAt"] {
            if let Some(t) = answered[field].as_str().and_then(|t| t.strip_suffix('Z')) {
                answered[field] = Value::String(format!("{t}+0000"));
            }
        }
    }
    answered
}

/// The events of a message sent: message.delivered (and what faults add), as jobs to dispatch
/// once the store is released.
fn sent_events(
    app: &App,
    store: &mut crate::store::Store,
    message: &Message,
    id: &str,
    json: &Value,
) -> Vec<crate::deliveries::Job> {
    let faults = &app.switches().faults;
    let line = message.phone_number_id.clone();
    // Fault message-delivered-resource-conversation: the event built from the conversation.
    let delivered = if faults.has(Fault::MessageDeliveredResourceConversation) {
        store
            .messaging
            .conversation(&message.conversation_id)
            .map(messaging::Conversation::to_json)
            .unwrap_or_else(|| json.clone())
    } else {
        json.clone()
    };
    // Fault group-delivered-per-recipient: each recipient's carrier receipt publishes the event.
    let receipts = if faults.has(Fault::GroupDeliveredPerRecipient) {
        message.to.len().max(1)
    } else {
        1
    };
    let mut jobs = Vec::new();
    for _ in 0..receipts {
        jobs.extend(crate::deliveries::fire(
            app,
            store,
            "message.delivered",
            Some(&line),
            id,
            delivered.clone(),
        ));
    }
    // Fault outbound-fires-message-received: the direction is not looked at.
    if faults.has(Fault::OutboundFiresMessageReceived) {
        jobs.extend(crate::deliveries::fire(
            app,
            store,
            "message.received",
            Some(&line),
            id,
            json.clone(),
        ));
    }
    jobs
}

/// A random version 4 UUID in its text form (fault send-new-conversation-uuid).
fn uuid_v4() -> String {
    let n: u128 = rand::random();
    let hex = format!("{n:032x}");
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..]
    )
}

/// The text a send stores: read under its variant's name, refused when blank.
fn stored_text(app: &App, body: &Map<String, Value>) -> Result<String, ApiError> {
    let faults = &app.switches().faults;
    // Variant message-text-content (READINGS 6.1): the text under the target's own name.
    let field = if app.switches().variant(Variant::MessageTextContent) {
        if body.contains_key("text") {
            return Err(ApiError::bad_request(
                V1_PATH,
                "text is not a field of this body; send content",
            ));
        }
        "content"
    } else {
        "text"
    };
    let text = match body.get(field) {
        Some(Value::String(t)) => t.clone(),
        Some(_) => {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!("{field} must be a string"),
            ));
        }
        None => {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!("{field} is required"),
            ));
        }
    };
    let stored = if field != "text" && faults.has(Fault::RenamedTextDropped) {
        String::new()
    } else {
        text.clone()
    };
    let blank = if faults.has(Fault::EmptyTextAccepted) {
        !text.is_empty() && text.trim().is_empty()
    } else if faults.has(Fault::TextUnicodeSpaceAccepted) {
        text.trim_matches(|c: char| c.is_ascii_whitespace())
            .is_empty()
    } else if faults.has(Fault::TextBlankCheckSpacesOnly) {
        // Fault text-blank-check-spaces-only: only the space character is stripped.
        text.trim_matches(' ').is_empty()
    } else {
        text.trim().is_empty()
    };
    // Fault text-blank-check-word-characters: `re.search(r'\w', text) is None`.
    let blank = blank
        || (faults.has(Fault::TextBlankCheckWordCharacters)
            && !text.chars().any(|c| c.is_alphanumeric() || c == '_'));
    if blank && !faults.has(Fault::WhitespaceTextAccepted) {
        return Err(ApiError::bad_request(
            V1_PATH,
            "text must contain at least one character that is not whitespace",
        )
        .with_item(
            "/text",
            "must not be empty or only whitespace",
            Value::String(text),
            serde_json::json!({"type": "string"}),
        ));
    }
    Ok(stored)
}

/// The distinct recipients of a send: 1 to 10 E.164 numbers.
fn recipients(faults: &FaultSet, body: &Map<String, Value>) -> Result<Vec<String>, ApiError> {
    let to: Vec<String> = match body.get("to") {
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str().map(str::to_string).ok_or_else(|| {
                    ApiError::bad_request(V1_PATH, "to must be an array of phone numbers")
                })
            })
            .collect::<Result<_, _>>()?,
        _ => {
            return Err(ApiError::bad_request(
                V1_PATH,
                "to is required: an array of 1 to 10 E.164 phone numbers",
            ));
        }
    };
    let max = if faults.has(Fault::ElevenRecipientsAccepted) {
        MAX_RECIPIENTS + 1
    } else {
        MAX_RECIPIENTS
    };
    // Fault recipients-10-refused: the check reads `>= 10`.
    let over = if faults.has(Fault::RecipientsTenRefused) {
        to.len() >= max
    } else {
        to.len() > max
    };
    if to.is_empty() || over {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!(
                "to takes 1 to {MAX_RECIPIENTS} phone numbers, got {}",
                to.len()
            ),
        ));
    }
    // Fault to-e164-first-only: a later recipient that is not a phone number is left out, not
    // refused (so what the fault sends stays a list of phone numbers other cases may read).
    let to: Vec<String> = if faults.has(Fault::ToE164FirstOnly) {
        to.iter()
            .enumerate()
            .filter(|(i, n)| *i == 0 || is_e164(n))
            .map(|(_, n)| n.clone())
            .collect()
    } else {
        to
    };
    // Fault send-to-unicode-digits: `\d` of the pattern takes every script's digits.
    let unicode_digits = faults.has(Fault::SendToUnicodeDigits);
    if let Some(n) = to
        .iter()
        .find(|n| !(is_e164(n) || (unicode_digits && unicode_e164(n))))
    {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!("to: '{n}' is not an E.164 phone number"),
        ));
    }
    let mut recipients: Vec<String> = Vec::new();
    for n in to {
        if !recipients.contains(&n) {
            recipients.push(n);
        }
    }
    if faults.has(Fault::GroupToTruncatedAt9) {
        recipients.truncate(9);
    }
    Ok(recipients)
}

/// `^\+[1-9]\d{1,14}$` under a regex engine whose `\d` is Unicode-aware (fault
/// send-to-unicode-digits): after an ASCII first digit, any script's digits.
fn unicode_e164(value: &str) -> bool {
    let Some(digits) = value.strip_prefix('+') else {
        return false;
    };
    let chars: Vec<char> = digits.chars().collect();
    (2..=15).contains(&chars.len())
        && ('1'..='9').contains(&chars[0])
        && chars[1..].iter().all(|c| c.is_numeric())
}

/// The sender a send names: a phone number or a phone number id.
fn sender(faults: &FaultSet, body: &Map<String, Value>) -> Result<String, ApiError> {
    // Fault send-deprecated-phone-number-id-refused: the deprecated field no longer names the
    // sender.
    let deprecated = body
        .get("phoneNumberId")
        .filter(|_| !faults.has(Fault::SendDeprecatedPhoneNumberIdRefused));
    // Fault send-deprecated-phone-number-id-wins: `body.phoneNumberId || body.from`.
    if let Some(Value::String(s)) =
        deprecated.filter(|_| faults.has(Fault::SendDeprecatedPhoneNumberIdWins))
    {
        return Ok(s.clone());
    }
    // `from` names the sender; the deprecated `phoneNumberId` still does when `from` is absent.
    match (body.get("from"), deprecated) {
        (Some(Value::String(s)), _) => Ok(s.clone()),
        (Some(_), _) => Err(ApiError::bad_request(
            V1_PATH,
            "from must be a phone number or a phone number id",
        )),
        (None, Some(Value::String(s))) => Ok(s.clone()),
        (None, Some(_)) => Err(ApiError::bad_request(
            V1_PATH,
            "phoneNumberId must be a string",
        )),
        (None, None) => Err(ApiError::bad_request(
            V1_PATH,
            "from is required: the sending phone number",
        )),
    }
}

/// What limits the sends of a workspace: its subscription has expired, its international
/// messaging is disabled. Each workspace has the state its name says; with the profile variant
/// `own-workspace-keys`, the primary workspace has both.
#[derive(Debug, Clone, Copy)]
struct Limits {
    expired: bool,
    international_disabled: bool,
}

fn limits(app: &App, workspace: Workspace) -> Limits {
    let own = workspace == Workspace::Primary && app.switches().variant(Variant::OwnWorkspaceKeys);
    Limits {
        expired: own || workspace == Workspace::SubscriptionExpired,
        international_disabled: own || workspace == Workspace::InternationalDisabled,
    }
}

/// The refusal of a send under an expired subscription (Errors > Rules > 7).
fn subscription_expired(faults: &FaultSet, path: &str) -> ApiError {
    let code = if faults.has(Fault::SubscriptionExpiredWrongCode) {
        "0200402"
    } else {
        "0201402"
    };
    ApiError::for_path(
        path,
        StatusCode::PAYMENT_REQUIRED,
        "the workspace subscription has expired; renew it to send messages",
    )
    .with_code(code)
    .with_title("Subscription Expired")
}

/// Whether `line` may send to `recipients` under the workspace's `limits`: not to itself, with a
/// live subscription, an approved A2P registration under its cap, and international messaging on
/// when a recipient is abroad.
fn may_send(
    faults: &FaultSet,
    limits: Limits,
    line: &Line,
    recipients: &[String],
) -> Result<(), ApiError> {
    if recipients.iter().any(|r| r == line.number) {
        return Err(ApiError::bad_request(
            V1_PATH,
            "to must not include the sending number",
        ));
    }
    if limits.expired {
        return Err(subscription_expired(faults, V1_PATH));
    }
    match line.a2p {
        A2p::Approved => {}
        // Fault a2p-unapproved-403: the refusal is taken for a permission error.
        A2p::NotApproved if faults.has(Fault::A2pUnapproved403) => {
            return Err(ApiError::for_path(
                V1_PATH,
                StatusCode::FORBIDDEN,
                format!(
                    "the A2P 10DLC registration of {} is not approved",
                    line.number
                ),
            )
            .with_code("0206403")
            .with_title("A2P Registration Not Approved"));
        }
        A2p::NotApproved => {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!(
                    "the A2P 10DLC registration of {} is not approved",
                    line.number
                ),
            )
            .with_code("0206400")
            .with_title("A2P Registration Not Approved"));
        }
        // Fault a2p-capped-as-unapproved: every state but approved takes the registration refusal.
        A2p::DailyCapReached if faults.has(Fault::A2pCappedAsUnapproved) => {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!(
                    "the A2P 10DLC registration of {} is not approved",
                    line.number
                ),
            )
            .with_code("0206400")
            .with_title("A2P Registration Not Approved"));
        }
        A2p::DailyCapReached if faults.has(Fault::A2pDailyCapIgnored) => {}
        A2p::DailyCapReached => {
            return Err(ApiError::for_path(
                V1_PATH,
                StatusCode::FORBIDDEN,
                format!("{} reached its daily A2P 10DLC message cap", line.number),
            )
            .with_code("0204403")
            // Fault a2p-cap-wrong-title: the title constant of the neighbouring arm.
            .with_title(if faults.has(Fault::A2pCapWrongTitle) {
                "A2P Registration Not Approved"
            } else {
                "A2P 10DLC Daily Message Cap Reached"
            }));
        }
    }
    // Fault international-first-recipient-only: only the first recipient is looked at.
    let looked_at = if faults.has(Fault::InternationalFirstRecipientOnly) {
        1
    } else {
        recipients.len()
    };
    let international = recipients
        .iter()
        .take(looked_at)
        .find(|r| !r.starts_with(DOMESTIC_PREFIX));
    if let Some(r) = international {
        if limits.international_disabled && !faults.has(Fault::InternationalAllowed) {
            return Err(ApiError::for_path(
                V1_PATH,
                StatusCode::FORBIDDEN,
                format!(
                    "international messaging is disabled in this workspace; cannot send to {r}"
                ),
            )
            .with_title("International Messaging Disabled")
            // Fault international-403-body-status-400: the body of the validation template.
            .with_body_status(faults.has(Fault::InternationalBodyStatus400).then_some(400)));
        }
    }
    Ok(())
}

// --- GET /messages ------------------------------------------------------------------------

async fn list_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Response {
    answer(
        &app,
        list_hv_page(&app, &caller, &Query::parse(raw.as_deref())),
    )
}

fn field<'a>(m: &'a Message, name: &str) -> Option<&'a str> {
    match name {
        "from" => Some(&m.from),
        "status" => Some(&m.status),
        "direction" => Some(m.direction),
        "phoneNumberId" => Some(&m.phone_number_id),
        "userId" => m.user_id.as_deref(),
        "conversationId" => Some(&m.conversation_id),
        _ => None,
    }
}

const FILTER_FIELDS: [&str; 6] = [
    "from",
    "status",
    "direction",
    "phoneNumberId",
    "userId",
    "conversationId",
];

/// `sort=field:asc|desc` over the fields a collection can be sorted by.
pub(super) fn sort_order(
    path: &str,
    query: &Query,
    fields: &[&str],
    default: (&'static str, bool),
) -> Result<(String, bool), ApiError> {
    let Some(sort) = query.first("sort") else {
        return Ok((default.0.to_string(), default.1));
    };
    let (f, d) = sort.split_once(':').unwrap_or((sort, ""));
    if !fields.contains(&f) || !matches!(d, "asc" | "desc") {
        return Err(ApiError::bad_request(
            path,
            format!(
                "sort must be one of {} followed by :asc or :desc, got '{sort}'",
                fields.join(", ")
            ),
        ));
    }
    Ok((f.to_string(), d == "desc"))
}

/// The time bounds of `field[gte|gt|lte|lt]`.
pub(super) fn time_bounds(
    path: &str,
    query: &Query,
    name: &str,
) -> Result<Vec<(String, OffsetDateTime)>, ApiError> {
    let mut out = Vec::new();
    for op in ["gte", "gt", "lte", "lt"] {
        let key = format!("{name}[{op}]");
        for v in query.all(&key) {
            out.push((op.to_string(), instant(path, &key, v)?));
        }
    }
    Ok(out)
}

/// Fault gte-exclusive: `[gte]` read as `[gt]`, so an item at the bound itself is left out.
pub(super) fn gte_as_gt(faults: &FaultSet, bounds: &mut [(String, OffsetDateTime)]) {
    if faults.has(Fault::GteExclusive) {
        for (op, _) in bounds.iter_mut().filter(|(op, _)| op == "gte") {
            *op = "gt".to_string();
        }
    }
}

pub(super) fn within(bounds: &[(String, OffsetDateTime)], at: OffsetDateTime) -> bool {
    bounds.iter().all(|(op, t)| match op.as_str() {
        "gte" => at >= *t,
        "gt" => at > *t,
        "lte" => at <= *t,
        _ => at < *t,
    })
}

fn list_hv_page(app: &App, caller: &Caller, query: &Query) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    // Fault messages-hv-require-phone-number: the v1 list's query validator, shared.
    if query.first("phoneNumberId").is_none() && faults.has(Fault::MessagesHvRequirePhoneNumber) {
        return Err(ApiError::bad_request(
            HV_PATH,
            "query parameter phoneNumberId is required",
        ));
    }
    let mut exact: Vec<(&'static str, Vec<String>)> = Vec::new();
    for name in FILTER_FIELDS {
        if name == "status" && faults.has(Fault::StatusFilterIgnored) {
            continue;
        }
        for v in query.all(name) {
            exact.push((name, vec![v.to_string()]));
        }
        for set in query.all(&format!("{name}[in]")) {
            // Fault messages-in-set-unsplit: the set is read as one exact value.
            let values = if faults.has(Fault::MessagesInSetUnsplit) {
                vec![set.to_string()]
            } else {
                set.split(',').map(str::to_string).collect()
            };
            exact.push((name, values));
        }
    }
    shared_default_filters(app, &mut exact);
    let mut to: Vec<&str> = query.all("to");
    to.sort_unstable();
    let mut created = time_bounds(HV_PATH, query, "createdAt")?;
    let mut updated = time_bounds(HV_PATH, query, "updatedAt")?;
    if faults.has(Fault::MessagesCreatedAtFilterIgnored) {
        created.clear();
    }
    // Fault messages-time-operators-swapped: the operator table maps gte to <= and lte to >=.
    if faults.has(Fault::MessagesTimeOperatorsSwapped) {
        for (op, _) in created.iter_mut().chain(updated.iter_mut()) {
            let swapped = match op.as_str() {
                "gte" => "lte",
                "lte" => "gte",
                other => other,
            };
            *op = swapped.to_string();
        }
    }
    gte_as_gt(faults, &mut created);
    gte_as_gt(faults, &mut updated);
    // Fault messages-time-bound-whole-second: the bounds reach the query as DATETIME(0)
    // parameters, their fractional seconds dropped.
    if faults.has(Fault::MessagesTimeBoundWholeSecond) {
        for (_, t) in created.iter_mut().chain(updated.iter_mut()) {
            *t = t.replace_nanosecond(0).unwrap_or(*t);
        }
    }
    let (by, desc) = sort_order(
        HV_PATH,
        query,
        &["createdAt", "updatedAt"],
        ("createdAt", true),
    )?;
    // Fault messages-sort-direction-uppercase: `asc` compared with `ASC` never matches, and the
    // default direction (descending) applies.
    let desc = desc || faults.has(Fault::MessagesSortDirectionUppercase);
    // Fault messages-sort-updated-at-500: a bare `updated_at` is ambiguous in the joined query.
    if by == "updatedAt" && faults.has(Fault::MessagesSortUpdatedAt500) {
        return Err(ApiError::for_path(
            HV_PATH,
            StatusCode::INTERNAL_SERVER_ERROR,
            "column reference \"updated_at\" is ambiguous",
        ));
    }
    let mut store = app.store();
    // Fault messages-list-cache-not-invalidated: the result of a filter is cached by caller and
    // query (paging aside), and nothing that writes a message clears it.
    let cache_key = faults.has(Fault::MessagesListCacheNotInvalidated).then(|| {
        format!(
            "{}?{}",
            caller.user_id,
            query.without(&["pageToken", "maxResults"])
        )
    });
    if let Some(items) = cache_key
        .as_ref()
        .and_then(|k| store.message_list_cache.get(k))
        .cloned()
    {
        drop(store);
        return message_page(app, HV_PATH, &items, query, true);
    }
    let messaging = &store.messaging;
    let workspace = messaging.workspace_of(caller.user_id);
    let from_on_line = faults.has(Fault::MessagesFromFilterOnPhoneNumberId);
    let any_recipient = faults.has(Fault::MessagesToFilterAnyRecipient);
    let direction_swapped = faults.has(Fault::MessagesDirectionFilterInverted);
    let mut items: Vec<Message> = messaging
        .messages()
        .iter()
        .filter(|m| listed_yet(app, m))
        .filter(|m| {
            let mut sent: Vec<&str> = m.to.iter().map(String::as_str).collect();
            sent.sort_unstable();
            messaging
                .line_by_id(&m.phone_number_id)
                .is_some_and(|l| l.workspace == workspace)
                && {
                    // Fault messages-from-filter-on-phone-number-id: `from` bound to that column.
                    let column = |f: &str| {
                        if f == "from" && from_on_line {
                            Some(m.phone_number_id.as_str())
                        } else if f == "direction" && direction_swapped {
                            // Fault messages-direction-filter-inverted: the other party's view.
                            Some(if m.direction == "outgoing" {
                                "incoming"
                            } else {
                                "outgoing"
                            })
                        } else {
                            field(m, f)
                        }
                    };
                    let holds = |(f, set): &(&str, Vec<String>)| {
                        column(f).is_some_and(|v| set.iter().any(|s| s == v))
                    };
                    // Fault messages-filters-or: the exact filters combine with OR.
                    if faults.has(Fault::MessagesFiltersOr) {
                        exact.is_empty() || exact.iter().any(holds)
                    } else {
                        exact.iter().all(holds)
                    }
                }
                && (to.is_empty()
                    || sent == to
                    // Fault messages-to-filter-any-recipient: any recipient in the set matches.
                    || (any_recipient && to.iter().any(|t| sent.contains(t))))
                && within(&created, m.created_at)
                && within(&updated, m.updated_at)
        })
        .cloned()
        .collect();
    let key = |m: &Message| {
        if by == "updatedAt" {
            m.updated_at
        } else {
            m.created_at
        }
    };
    items.sort_by(|a, b| (key(a), &a.id).cmp(&(key(b), &b.id)));
    if desc != faults.has(Fault::MessagesOldestFirst) {
        items.reverse();
    }
    if let Some(key) = cache_key {
        store.message_list_cache.insert(key, items.clone());
    }
    drop(store);
    message_page(app, HV_PATH, &items, query, true)
}

// --- GET /messages/{messageId}, POST /messages/{messageId}/retry --------------------------

/// Fault messages-filters-default-shared: the request's exact filters start from the module-level
/// default, which they then update in place (a field sent replaces the default's).
fn shared_default_filters(app: &App, exact: &mut Vec<(&'static str, Vec<String>)>) {
    if !app
        .switches()
        .faults
        .has(Fault::MessagesFiltersDefaultShared)
    {
        return;
    }
    let mut store = app.store();
    let defaults = &mut store.message_default_filters;
    let sent: Vec<&'static str> = exact.iter().map(|(f, _)| *f).collect();
    defaults.retain(|(f, _)| !sent.contains(f));
    defaults.extend(exact.iter().cloned());
    exact.clone_from(defaults);
}

/// How long fault retry-cooldown-409 holds a message's in-flight lock after a retry.
const RETRY_LOCK: time::Duration = time::Duration::seconds(30);

/// Fault retry-cooldown-409: a retry while the message's in-flight lock is held is refused.
fn retry_locked(faults: &FaultSet, store: &crate::store::Store, id: &str) -> Result<(), ApiError> {
    let held = store
        .retry_locks
        .get(id)
        .is_some_and(|at| OffsetDateTime::now_utc() - *at < RETRY_LOCK);
    if held && faults.has(Fault::RetryCooldown409) {
        return Err(ApiError::for_path(
            HV_PATH,
            StatusCode::CONFLICT,
            "a retry of this message is already in progress",
        )
        .with_title("Message Not Retryable"));
    }
    Ok(())
}

/// What an HTML template's autoescape makes of a text (fault message-get-text-html-escaped).
fn html_escaped(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '&' => "&amp;".to_string(),
            '<' => "&lt;".to_string(),
            '>' => "&gt;".to_string(),
            '"' => "&quot;".to_string(),
            '\'' => "&#x27;".to_string(),
            c => c.to_string(),
        })
        .collect()
}

fn missing_message(id: &str) -> ApiError {
    ApiError::for_path(
        HV_PATH,
        StatusCode::NOT_FOUND,
        format!("message '{id}' was not found"),
    )
}

async fn get_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let faults = &app.switches().faults;
    let result = input::path_param(id, HV_PATH).and_then(|id| {
        let store = app.store();
        let workspace = store.messaging.workspace_of(caller.user_id);
        let of_workspace = |m: &&Message| {
            store
                .messaging
                .line_by_id(&m.phone_number_id)
                .is_some_and(|l| l.workspace == workspace)
        };
        // Fault message-get-crosses-workspace: the lookup is not scoped to the caller.
        let message = store
            .messaging
            .message(&id)
            .filter(|m| faults.has(Fault::MessageGetCrossesWorkspace) || of_workspace(m));
        let message = match message {
            None if faults.has(Fault::MissingMessageNewest) => store
                .messaging
                .messages()
                .iter()
                .filter(of_workspace)
                .max_by_key(|m| m.created_at),
            m => m,
        }
        .ok_or_else(|| missing_message(&id))?;
        let mut json = message.to_json(!faults.has(Fault::MessageWithoutConversationId));
        // Fault message-get-incoming-as-outgoing: every message serialized as an outgoing one.
        if message.direction == "incoming" && faults.has(Fault::MessageGetIncomingAsOutgoing) {
            let number = store.messaging.line_by_id(&message.phone_number_id);
            let others = store.messaging.conversation(&message.conversation_id);
            if let (Some(line), Some(c)) = (number, others) {
                json["from"] = Value::String(line.number.to_string());
                json["to"] = serde_json::json!(c.participants);
            }
        }
        if faults.has(Fault::MessageIncomingToSparseObject) {
            sparse_to(&store.messaging, message, &mut json);
        }
        media_type_from_extension(&app, &mut json);
        unwrap_single_recipient(&app, &mut json);
        // Fault message-get-timestamps-http-date: the view's date helper, `toUTCString()`.
        if faults.has(Fault::MessageGetTimestampsHttpDate) {
            json["createdAt"] = Value::String(crate::quirks::http_date(message.created_at));
            json["updatedAt"] = Value::String(crate::quirks::http_date(message.updated_at));
        }
        // Fault message-get-text-html-escaped: the view's template filter escapes the text.
        if faults.has(Fault::MessageGetTextHtmlEscaped) {
            json["text"] = Value::String(html_escaped(&message.text));
        }
        if faults.has(Fault::MessageMediaDropped) {
            if let Some(o) = json.as_object_mut() {
                o.remove("media");
            }
        }
        Ok(reply::data(StatusCode::OK, json))
    });
    answer(&app, result)
}

async fn retry_hv(State(app): State<App>, id: Result<Path<String>, PathRejection>) -> Response {
    let faults = &app.switches().faults;
    let mut allow = Vec::new();
    if faults.has(Fault::UndeliveredRetryAccepted) {
        allow.push(RetryRefusal::Undelivered);
    }
    if faults.has(Fault::PermanentRetryAccepted) {
        allow.push(RetryRefusal::Permanent);
    }
    // Fault retry-guard-deny-list: only undelivered and permanent failures are refused.
    if faults.has(Fault::RetryGuardDenyList) {
        allow.push(RetryRefusal::NotFailed);
    }
    let result = input::path_param(id, HV_PATH).and_then(|id| {
        if faults.has(Fault::RetryAnswers404) {
            return Err(missing_message(&id));
        }
        let mut store = app.store();
        // A retry sends the message again: under an expired subscription it is refused as a
        // send is (the primary workspace's, with the profile variant `own-workspace-keys`).
        let own_line = store
            .messaging
            .message(&id)
            .and_then(|m| store.messaging.line_by_id(&m.phone_number_id))
            .is_some_and(|l| l.workspace == Workspace::Primary);
        if own_line && limits(&app, Workspace::Primary).expired {
            return Err(subscription_expired(faults, HV_PATH));
        }
        // Fault retry-undelivered-unhandled-500: the status switch has no arm for undelivered.
        let undelivered = store
            .messaging
            .message(&id)
            .is_some_and(|m| m.status == "undelivered");
        if undelivered && faults.has(Fault::RetryUndeliveredUnhandled500) {
            return Err(ApiError::for_path(
                HV_PATH,
                StatusCode::INTERNAL_SERVER_ERROR,
                "ValueError: unhandled message status 'undelivered'",
            ));
        }
        if faults.has(Fault::RetryFailedRefused) && store.messaging.message(&id).is_some() {
            return Err(ApiError::for_path(
                HV_PATH,
                StatusCode::CONFLICT,
                "only a failed message can be retried",
            )
            .with_title("Message Not Retryable"));
        }
        retry_locked(faults, &store, &id)?;
        let retried = store
            .messaging
            .retry(&id, &allow, OffsetDateTime::now_utc());
        // Fault retry-cooldown-409: the in-flight lock is taken for 30 seconds.
        if retried.is_ok() && faults.has(Fault::RetryCooldown409) {
            store
                .retry_locks
                .insert(id.clone(), OffsetDateTime::now_utc());
        }
        if retried.is_ok() && app.switches().variant(Variant::RetryDelivers) {
            // The re-attempt succeeds: the message is failed no more, and a second retry is
            // refused as for any message that is not failed.
            store.messaging.set_status(&id, "delivered");
        }
        // Fault retry-creates-new-message: the failed message is sent again as a new one.
        let retried = match retried {
            Ok(m) if faults.has(Fault::RetryCreatesNewMessage) => {
                match store.messaging.line_by_id(&m.phone_number_id).cloned() {
                    Some(line) => Ok(store.messaging.record(
                        &line,
                        &m.to,
                        true,
                        None,
                        &m.text,
                        m.user_id.as_deref(),
                        "sending",
                        OffsetDateTime::now_utc(),
                    )),
                    None => Ok(m),
                }
            }
            other => other,
        };
        // Fault retry-fires-message-delivered: the event is published when the retry is queued.
        if let Some(m) = retried
            .as_ref()
            .ok()
            .filter(|_| faults.has(Fault::RetryFiresMessageDelivered))
        {
            let jobs = crate::deliveries::fire(
                &app,
                &mut store,
                "message.delivered",
                Some(m.phone_number_id.as_str()),
                &m.id,
                m.to_json(true),
            );
            crate::deliveries::dispatch(&app, jobs);
        }
        match retried {
            Ok(m) => Ok(reply::data(StatusCode::ACCEPTED, m.to_json(true))),
            Err(RetryRefusal::Missing) => Err(missing_message(&id)),
            Err(why) => {
                let message = match why {
                    RetryRefusal::Permanent => {
                        "the message failed with a permanent error and cannot be retried"
                    }
                    RetryRefusal::Undelivered => {
                        "the message is undelivered, which is terminal: it cannot be retried"
                    }
                    _ => "only a failed message can be retried",
                };
                Err(ApiError::for_path(HV_PATH, StatusCode::CONFLICT, message)
                    .with_title("Message Not Retryable"))
            }
        }
    });
    answer(&app, result)
}
