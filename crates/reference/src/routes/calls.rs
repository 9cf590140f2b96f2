//! Calls, recordings, transcripts, users, phone numbers and the organization (read only).
//!
//! Access: a call is visible to the users of its phone number; anyone else gets 403
//! `Not Phone Number User` (calls) or `Forbidden` (v1 recordings). Users, phone numbers and the
//! organization are visible to every user of the workspace.

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::respond::{allow_only, answer};
use crate::app::App;
use crate::auth::Caller;
use crate::contact_input::is_e164;
use crate::errors::ApiError;
use crate::errors::Generation;
use crate::faults::Fault;
use crate::input::{self, Query};
use crate::pagination;
use crate::paths::{HV_CALLS as HV, V1_CALLS, V1_RECORDINGS};
use crate::reply;
use crate::variants::Variant;
use crate::workspace::{AVAILABLE, Call, Workspace};

const V1_USERS: &str = "/v1/users";
const NOT_NUMBER_USER: &str = "Not Phone Number User";
const CALLS_403_CODE: &str = "0101403";
const TOO_MANY_PARTICIPANTS: (&str, &str) = ("0101400", "Too Many Participants");
const DEFAULT_PAGE: usize = 10;
const MAX_PAGE: usize = 100;

pub(super) fn v1_routes() -> Router<App> {
    Router::new()
        .route(V1_CALLS, allow_only(get(list_v1), "GET"))
        .route("/v1/calls/{callId}", allow_only(get(get_v1), "GET"))
        .route(
            "/v1/call-recordings/{callId}",
            allow_only(get(recordings_v1), "GET"),
        )
        .route("/v1/users/{userId}", allow_only(get(user_v1), "GET"))
}

pub(super) fn header_versioned_routes() -> Router<App> {
    Router::new()
        .route(HV, allow_only(get(list_hv), "GET"))
        .route("/calls/{callId}", allow_only(get(get_hv), "GET"))
        .route(
            "/calls/{callId}/recordings",
            allow_only(get(recordings_hv), "GET"),
        )
        .route(
            "/calls/{callId}/transcripts",
            allow_only(get(transcripts_hv), "GET"),
        )
        .route("/phone-numbers", allow_only(get(numbers_hv), "GET"))
        .route(
            "/phone-numbers/available",
            allow_only(get(available_hv), "GET"),
        )
        .route(
            "/phone-numbers/{phoneNumberId}",
            allow_only(get(number_hv), "GET"),
        )
        .route(
            "/phone-numbers/{phoneNumberId}/users",
            allow_only(get(number_users_hv), "GET"),
        )
        .route("/users", allow_only(get(users_hv), "GET"))
        .route("/users/{userId}", allow_only(get(user_hv), "GET"))
        .route(
            "/users/{userId}/phone-numbers",
            allow_only(get(user_numbers_hv), "GET"),
        )
        .route("/organization", allow_only(get(organization_hv), "GET"))
}

type Answer = Result<Response, ApiError>;

fn not_found(path: &str, what: &str, id: &str) -> ApiError {
    ApiError::for_path(
        path,
        StatusCode::NOT_FOUND,
        format!("{what} '{id}' was not found"),
    )
}

/// 403 of a number-scoped check on calls: `Not Phone Number User` (code 0101403 on v1).
fn not_number_user(app: &App, path: &str, number: &str) -> ApiError {
    let error = ApiError::for_path(
        path,
        StatusCode::FORBIDDEN,
        format!("the caller is not a user of phone number '{number}'"),
    );
    let error = if Generation::of_path(path) == Generation::V1 {
        error.with_code(CALLS_403_CODE)
    } else {
        error
    };
    if app
        .switches()
        .faults
        .has(Fault::NotPhoneNumberUserTitleForbidden)
    {
        error
    } else {
        error.with_title(NOT_NUMBER_USER)
    }
}

fn call_json(app: &App, call: &Call, summary: bool, voicemail: bool) -> Value {
    let faults = &app.switches().faults;
    let prefix = if faults.has(Fault::CallIdWrongPrefix) {
        "CA"
    } else {
        "AC"
    };
    let mut json = if faults.has(Fault::CallIncludeIgnored) {
        call.to_json(false, false, prefix)
    } else {
        // Fault voicemail-needs-summary: the voicemail only comes when the summary is asked too.
        let voicemail = voicemail && (summary || !faults.has(Fault::VoicemailNeedsSummary));
        call.to_json(summary, voicemail, prefix)
    };
    // Fault call-ai-handled-boolean: aiHandled read from a BOOLEAN column.
    if faults.has(Fault::CallAiHandledBoolean) {
        let handled = json.get("aiHandled").and_then(Value::as_str).is_some();
        json["aiHandled"] = json!(handled);
    }
    // Fault call-duration-bigint-string: the BIGINT column comes back from the driver as a string.
    if faults.has(Fault::CallDurationString) {
        if let Some(n) = json.get("duration").and_then(Value::as_i64) {
            json["duration"] = json!(n.to_string());
        }
    }
    // Fault call-forwarded-to-sip-uri: forwardedTo read from the forwarded leg's SIP URI.
    if faults.has(Fault::CallForwardedToSipUri) {
        if let Some(n) = json.get("forwardedTo").and_then(Value::as_str) {
            json["forwardedTo"] = json!(format!("sip:{n}@{SIP_CARRIER}"));
        }
    }
    // Fault call-timestamps-trailing-zeros-trimmed: `.replace(/0+Z$/, 'Z')`.
    if faults.has(Fault::CallTimestampsTrailingZerosTrimmed) {
        for field in ["createdAt", "updatedAt", "answeredAt", "completedAt"] {
            if let Some(t) = json
                .get(field)
                .and_then(Value::as_str)
                .and_then(crate::quirks::trailing_zeros_trimmed)
            {
                json[field] = json!(t);
            }
        }
    }
    json
}

/// The carrier domain of the SIP URIs of fault call-forwarded-to-sip-uri.
const SIP_CARRIER: &str = "pstn.carrier.example";

/// What fault calls-v1-unanswered-duration-nan writes where the encoder puts `NaN`.
const NAN_MARK: &str = "__duration_nan__";

/// Fault calls-v1-unanswered-duration-nan: a call never answered gets 0/0 as its duration, marked
/// here and written as the bare token `NaN` by [`nan_tokens`].
fn nan_duration(app: &App, call: &Call, json: &mut Value) {
    if app
        .switches()
        .faults
        .has(Fault::CallsV1UnansweredDurationNan)
        && call.fields.get("answeredAt").is_none()
    {
        json["duration"] = json!(NAN_MARK);
    }
}

/// Fault calls-v1-unanswered-duration-nan: the encoder writes a NaN duration as the bare token.
async fn nan_tokens(app: &App, response: Response) -> Response {
    if !app
        .switches()
        .faults
        .has(Fault::CallsV1UnansweredDurationNan)
    {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 16 << 20).await else {
        return Response::from_parts(parts, axum::body::Body::empty());
    };
    let text = String::from_utf8_lossy(&bytes).replace(&format!("\"{NAN_MARK}\""), "NaN");
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(text))
}

/// The call of `id` if the caller may see it.
fn visible_call<'a>(
    app: &App,
    ws: &'a Workspace,
    caller: &Caller,
    path: &str,
    id: &str,
    forbidden: impl Fn() -> ApiError,
) -> Result<&'a Call, ApiError> {
    let call = ws.call(id).ok_or_else(|| not_found(path, "Call", id))?;
    if !ws.is_number_user(&call.phone_number_id, caller.user_id) {
        let _ = app;
        return Err(forbidden());
    }
    Ok(call)
}

fn time_param(q: &Query, name: &str, path: &str) -> Result<Option<OffsetDateTime>, ApiError> {
    q.first(name)
        .map(|v| {
            OffsetDateTime::parse(v, &Rfc3339).map_err(|_| {
                ApiError::bad_request(
                    path,
                    format!("query parameter {name} must be an RFC 3339 date-time, got '{v}'"),
                )
            })
        })
        .transpose()
}

/// Fault calls-v1-zulu-bound-refused: Python 3.10's `datetime.fromisoformat` does not take the
/// `Z` designator, and refuses a bound written with it.
fn zulu_refused(app: &App, q: &Query, name: &str, path: &str) -> Result<(), ApiError> {
    let Some(v) = q
        .first(name)
        .filter(|_| app.switches().faults.has(Fault::CallsV1ZuluBoundRefused))
    else {
        return Ok(());
    };
    if v.ends_with(['Z', 'z']) {
        return Err(ApiError::bad_request(
            path,
            format!("query parameter {name}: Invalid isoformat string: '{v}'"),
        ));
    }
    Ok(())
}

/// Fault calls-gte-offset-sign-inverted: the hand-written parser reads the offset's sign the
/// wrong way round (the wall time kept, `-05:00` taken for `+05:00`).
fn offset_sign_inverted(app: &App, at: OffsetDateTime) -> OffsetDateTime {
    if !app.switches().faults.has(Fault::CallsGteOffsetSignInverted) {
        return at;
    }
    match time::UtcOffset::from_whole_seconds(-at.offset().whole_seconds()) {
        Ok(flipped) => at.replace_offset(flipped),
        Err(_) => at,
    }
}

/// A bare date (`2026-02-04`) as midnight UTC (fault calls-v1-date-only-bound-accepted).
fn bare_date(value: &str) -> Option<OffsetDateTime> {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    time::Date::parse(value, &format)
        .ok()
        .map(|d| d.midnight().assume_utc())
}

fn page_of(app: &App, q: &Query, path: &str, items: &[Value]) -> Answer {
    page_of_quirks(app, q, path, items, false, false)
}

/// [`page_of`], with the blind faults of pagination: `skip_one` continues one item past where the
/// previous page ended (users-page-skips-item); `drop_token` answers every page without a next
/// token (phone-numbers-token-always-null).
fn page_of_quirks(
    app: &App,
    q: &Query,
    path: &str,
    items: &[Value],
    skip_one: bool,
    drop_token: bool,
) -> Answer {
    let mut page = page_cut(app, q, path, items, skip_one)?;
    if drop_token {
        page.next_token = None;
    }
    Ok(reply::json(
        StatusCode::OK,
        &pagination::list_body(page, &app.switches().faults),
    ))
}

/// The page [`page_of_quirks`] answers, before it is written.
fn page_cut(
    app: &App,
    q: &Query,
    path: &str,
    items: &[Value],
    skip_one: bool,
) -> Result<pagination::Page<Value>, ApiError> {
    let faults = &app.switches().faults;
    let min = if faults.has(Fault::CallsMaxResultsMin2) {
        2
    } else {
        1
    };
    let range = if faults.has(Fault::CallsMaxResultsUncheckedWithParticipants)
        && Generation::of_path(path) == Generation::V1
        && q.first("participants").is_some()
    {
        0..=usize::MAX
    } else {
        min..=MAX_PAGE
    };
    // Fault calls-max-results-overflow-500: the call queries bind maxResults as a 32-bit
    // integer before the range is checked, and the driver's overflow becomes a 500.
    if faults.has(Fault::CallsMaxResultsOverflow500) && (path == V1_CALLS || path == HV) {
        if let Some(v) = q.first("maxResults") {
            let digits = !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit());
            if digits && v.parse::<i32>().is_err() {
                return Err(ApiError::for_path(
                    path,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    format!("value \"{v}\" is out of range for type integer"),
                ));
            }
        }
    }
    let size = pagination::max_results_in(q.first("maxResults"), DEFAULT_PAGE, range)
        .map_err(|e| ApiError::bad_request(path, e.to_string()))?;
    // Fault calls-v1-page-token-ignored: the cursor read under the internal service's name.
    let token_name = if path == V1_CALLS && faults.has(Fault::CallsV1PageTokenIgnored) {
        "page_token"
    } else {
        "pageToken"
    };
    let offset = pagination::page_token(q.first(token_name))
        .map_err(|e| ApiError::bad_request(path, e.to_string()))?;
    let offset = if skip_one && offset > 0 {
        offset + 1
    } else {
        offset
    };
    Ok(pagination::paginate(items, size, offset, faults))
}

fn includes(q: &Query) -> Vec<String> {
    q.all("include")
        .iter()
        .flat_map(|v| v.split(','))
        .map(|s| s.trim().to_string())
        .collect()
}

// ---- v1 ----

async fn list_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let response = answer(&app, list_calls_v1(&app, &caller, &q));
    nan_tokens(&app, response).await
}

fn list_calls_v1(app: &App, caller: &Caller, q: &Query) -> Answer {
    let faults = &app.switches().faults;
    let path = V1_CALLS;
    let ws_guard = app.store();
    let ws = ws_guard.workspace();
    let number_id = q
        .first("phoneNumberId")
        .ok_or_else(|| ApiError::bad_request(path, "query parameter phoneNumberId is required"))?;
    // The stated patterns make a malformed id invalid input (400), not a missing resource.
    if !number_id.starts_with("PN") {
        return Err(ApiError::bad_request(
            path,
            format!("query parameter phoneNumberId must match ^PN(.*)$, got '{number_id}'"),
        ));
    }
    if let Some(user) = q.first("userId").filter(|u| !u.starts_with("US")) {
        return Err(ApiError::bad_request(
            path,
            format!("query parameter userId must match ^US(.*)$, got '{user}'"),
        ));
    }
    // Fault calls-v1-participant-plus-added: a `+` is prefixed where a participant lacks one.
    let normalized: Vec<String> = q
        .all("participants")
        .into_iter()
        .map(|p| {
            let bare = !p.trim().is_empty() && !p.starts_with('+');
            if bare && faults.has(Fault::CallsV1ParticipantPlusAdded) {
                format!("+{p}")
            } else {
                p.to_string()
            }
        })
        .collect();
    let participants: Vec<&str> = normalized.iter().map(String::as_str).collect();
    let empty = participants.is_empty() || participants.iter().any(|p| p.trim().is_empty());
    if empty && !faults.has(Fault::EmptyParticipantsAccepted) {
        return Err(ApiError::bad_request(
            path,
            "query parameter participants must hold exactly one E.164 number",
        ));
    }
    let participants: Vec<&str> = participants
        .into_iter()
        .filter(|p| !p.trim().is_empty())
        .collect();
    if participants.len() > 1 && !faults.has(Fault::ParticipantsRuleOff) {
        let error = ApiError::bad_request(
            path,
            format!(
                "list calls takes exactly one participant (1:1 calls only); {} were given",
                participants.len()
            ),
        );
        // Fault calls-participants-max-items-generic-400: the query schema's maxItems refuses
        // first, with the generic 400.
        if faults.has(Fault::CallsParticipantsMaxItemsGeneric400) {
            return Err(error);
        }
        return Err(error
            .with_code(TOO_MANY_PARTICIPANTS.0)
            .with_title(TOO_MANY_PARTICIPANTS.1));
    }
    if let Some(p) = participants.iter().find(|p| !is_e164(p)) {
        return Err(ApiError::bad_request(
            path,
            format!("participant '{p}' is not an E.164 phone number"),
        ));
    }
    let number = ws
        .number(number_id)
        .ok_or_else(|| not_found(path, "Phone number", number_id))?;
    if participants.contains(&number.number.as_str()) {
        return Err(ApiError::bad_request(
            path,
            "participants exclude the workspace number itself",
        ));
    }
    // The user whose access scopes the results: by default the number's owner (v1 1.0.1).
    let scope_user = q
        .first("userId")
        .map(str::to_string)
        .or_else(|| number.users.first().cloned())
        .unwrap_or_default();
    if ws.user(&scope_user).is_none() {
        return Err(not_found(path, "User", &scope_user));
    }
    // Fault calls-v1-access-checks-scope-user: the check reads the user that scopes the results.
    let checked = if faults.has(Fault::CallsV1AccessChecksScopeUser) {
        scope_user.as_str()
    } else {
        caller.user_id
    };
    if !ws.is_number_user(number_id, checked) {
        return Err(not_number_user(app, path, number_id));
    }
    // Fault calls-v1-date-only-bound-accepted: a lenient parser takes a bare date as midnight UTC.
    let time_param = |q: &Query, name: &str, path: &str| {
        zulu_refused(app, q, name, path)?;
        time_param(q, name, path).or_else(|e| {
            q.first(name)
                .filter(|_| faults.has(Fault::CallsV1DateOnlyBoundAccepted))
                .and_then(bare_date)
                .map(Some)
                .ok_or(e)
        })
    };
    // Fault calls-v1-time-offset-ignored: the wall time is read as UTC, the offset dropped.
    let wall_as_utc = |t: Option<OffsetDateTime>| {
        t.map(|t| {
            if faults.has(Fault::CallsV1TimeOffsetIgnored) {
                t.replace_offset(time::UtcOffset::UTC)
            } else {
                t
            }
        })
    };
    // Fault calls-unparsed-time-ignored: a createdAfter that is no date-time is dropped.
    let after = time_param(q, "createdAfter", path)
        .or_else(|e| {
            faults
                .has(Fault::CallsUnparsedTimeIgnored)
                .then_some(None)
                .ok_or(e)
        })?
        .filter(|_| !faults.has(Fault::CallsCreatedAfterIgnored));
    let after = wall_as_utc(after);
    let mut before = wall_as_utc(time_param(q, "createdBefore", path)?);
    let since = if faults.has(Fault::CallsSinceV0Epoch) {
        since_epoch(q, path)?
    } else {
        wall_as_utc(time_param(q, "since", path)?)
    };
    let mut since_after = None;
    if since.is_some() {
        if faults.has(Fault::CallsSinceAsCreatedAfter) {
            since_after = since;
        } else if before.is_none() {
            // Deprecated: `since` behaves as `createdBefore`.
            before = since;
        }
    }
    // Fault calls-time-bounds-inclusive: the bounds keep the instant itself.
    let at = |x: OffsetDateTime, t: OffsetDateTime| {
        x == t && faults.has(Fault::CallsTimeBoundsInclusive)
    };
    let visible = ws.is_number_user(number_id, &scope_user)
        && !(faults.has(Fault::CallsV1UserIdEmpties) && q.first("userId").is_some());
    let items: Vec<Value> = ws
        .calls
        .iter()
        .filter(|c| visible && c.phone_number_id == number_id)
        .filter(|c| {
            participants.is_empty()
                || participants
                    .iter()
                    .all(|p| c.participants.iter().any(|x| x == p))
        })
        .filter(|c| after.is_none_or(|a| c.created_at > a || at(c.created_at, a)))
        .filter(|c| since_after.is_none_or(|a| c.created_at > a))
        .filter(|c| before.is_none_or(|b| c.created_at < b || at(c.created_at, b)))
        .map(|c| {
            let mut v = call_json(app, c, false, false);
            nan_duration(app, c, &mut v);
            // Fault calls-v1-created-at-epoch: the v1 list serializes the raw epoch column.
            if faults.has(Fault::CallsV1CreatedAtEpoch) {
                v["createdAt"] = json!((c.created_at.unix_timestamp_nanos() / 1_000_000) as i64);
            }
            v
        })
        .collect();
    calls_page(app, q, path, &items)
}

/// A page of a call list; fault calls-last-page-token-empty-string writes the last page's token
/// as the zero value of a Go string.
fn calls_page(app: &App, q: &Query, path: &str, items: &[Value]) -> Answer {
    let faults = &app.switches().faults;
    if path == HV && faults.has(Fault::CallsOffsetStringConcat) {
        return concatenated_offsets(app, q, items);
    }
    let zero_string = faults.has(Fault::CallsLastPageTokenEmptyString);
    // Fault calls-empty-page-null-data: the items are collected in a Go nil slice.
    let nil_slice = faults.has(Fault::CallsEmptyPageNullData);
    if !zero_string && !nil_slice {
        return page_of(app, q, path, items);
    }
    let page = page_cut(app, q, path, items, false)?;
    let mut body = pagination::list_body(page, faults);
    if zero_string && body["nextPageToken"].is_null() {
        body["nextPageToken"] = json!("");
    }
    if nil_slice && body["data"].as_array().is_some_and(Vec::is_empty) {
        body["data"] = Value::Null;
    }
    Ok(reply::json(StatusCode::OK, &body))
}

/// Fault calls-offset-string-concat: the next offset is `offset + maxResults` with the offset of
/// a token read back as a string, so on a continued page the addition concatenates the digits.
fn concatenated_offsets(app: &App, q: &Query, items: &[Value]) -> Answer {
    let mut page = page_cut(app, q, HV, items, false)?;
    if let Some(offset) = q.first("pageToken").and_then(pagination::decode_token) {
        let size = q
            .first("maxResults")
            .and_then(|v| v.parse::<usize>().ok())
            .unwrap_or(DEFAULT_PAGE);
        let next = format!("{offset}{size}")
            .parse::<usize>()
            .unwrap_or(usize::MAX);
        page.next_token = (next < items.len()).then(|| pagination::encode_token(next));
    }
    Ok(reply::json(
        StatusCode::OK,
        &pagination::list_body(page, &app.switches().faults),
    ))
}

/// Fault calls-max-results-clamped: maxResults forced into 1-100 instead of refused outside it;
/// a value that is no integer is left to the check.
fn clamped_max_results(app: &App, q: &Query) -> Query {
    let asked = q
        .first("maxResults")
        .filter(|_| app.switches().faults.has(Fault::CallsMaxResultsClamped))
        .and_then(|v| v.parse::<i64>().ok());
    match asked {
        Some(n) => {
            let n = n.clamp(1, MAX_PAGE as i64);
            let rest = q.without(&["maxResults"]);
            let sep = if rest.is_empty() { "" } else { "&" };
            Query::parse(Some(&format!("{rest}{sep}maxResults={n}")))
        }
        None => q.clone(),
    }
}

/// Fault calls-since-v0-epoch: the deprecated `since` read by the v0 parser, in epoch seconds.
fn since_epoch(q: &Query, path: &str) -> Result<Option<OffsetDateTime>, ApiError> {
    q.first("since")
        .map(|v| {
            v.parse::<i64>()
                .ok()
                .and_then(|s| OffsetDateTime::from_unix_timestamp(s).ok())
                .ok_or_else(|| {
                    ApiError::bad_request(
                        path,
                        format!(
                            "query parameter since must be a Unix timestamp in seconds, got '{v}'"
                        ),
                    )
                })
        })
        .transpose()
}

/// Fault recording-duration-iso8601: a segment's duration written as an ISO 8601 duration.
fn recording_durations_iso(app: &App, segments: &mut [Value]) {
    if !app.switches().faults.has(Fault::RecordingDurationIso8601) {
        return;
    }
    for s in segments.iter_mut() {
        if let Some(secs) = s.get("duration").and_then(Value::as_i64) {
            let (m, r) = (secs / 60, secs % 60);
            s["duration"] = json!(match (m, r) {
                (0, r) => format!("PT{r}S"),
                (m, 0) => format!("PT{m}M"),
                (m, r) => format!("PT{m}M{r}S"),
            });
        }
    }
}

async fn get_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let result = input::path_param(id, V1_CALLS).and_then(|id| {
        let mut guard = app.store();
        // Fault call-v1-access-memoized-per-caller: the check's answer kept by caller alone.
        let memoized = app
            .switches()
            .faults
            .has(Fault::CallV1AccessMemoizedPerCaller);
        let passed_before = memoized && guard.call_access_memo.contains(caller.user_id);
        let ws = guard.workspace();
        if ws.call(&id).is_none() && app.switches().faults.has(Fault::CallV1UnknownAnswered) {
            return Ok(reply::data(StatusCode::OK, serde_json::json!({ "id": id })));
        }
        // Fault call-v1-get-inner-join-recordings: the call row joined to its recordings.
        if ws.call(&id).is_some_and(|c| c.recordings.is_empty())
            && app
                .switches()
                .faults
                .has(Fault::CallV1GetInnerJoinRecordings)
        {
            return Err(not_found(V1_CALLS, "Call", &id));
        }
        // Fault call-v1-get-skips-number-access: the single get looks the call up by id alone.
        let call = if app.switches().faults.has(Fault::CallV1GetSkipsNumberAccess) || passed_before
        {
            ws.call(&id)
                .ok_or_else(|| not_found(V1_CALLS, "Call", &id))?
        } else {
            visible_call(&app, ws, &caller, V1_CALLS, &id, || {
                not_number_user(&app, V1_CALLS, &id)
            })?
        };
        let mut json = call_json(&app, call, false, false);
        nan_duration(&app, call, &mut json);
        if app.switches().faults.has(Fault::CallV1GetDayOfYear) {
            day_of_year_dates(&mut json);
        }
        if memoized {
            guard.call_access_memo.insert(caller.user_id.to_string());
        }
        Ok(reply::data(StatusCode::OK, json))
    });
    let response = answer(&app, result);
    nan_tokens(&app, response).await
}

/// Fault call-v1-get-day-of-year: the timestamps formatted with `yyyy-MM-DD`, whose `DD` is the
/// day of the year.
fn day_of_year_dates(json: &mut Value) {
    let Some(o) = json.as_object_mut() else {
        return;
    };
    for v in o.values_mut() {
        let parsed = v
            .as_str()
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            .map(|t| t.to_offset(time::UtcOffset::UTC));
        if let Some(t) = parsed {
            *v = json!(format!(
                "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
                t.year(),
                u8::from(t.month()),
                t.ordinal(),
                t.hour(),
                t.minute(),
                t.second(),
                t.millisecond()
            ));
        }
    }
}

async fn recordings_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    headers: axum::http::HeaderMap,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    // Fault recordings-v1-bearer-scheme-split: the recordings service reads the key as the second
    // word of Authorization.
    let second_word = headers
        .get(axum::http::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(' ').nth(1))
        .is_some_and(|k| !k.is_empty());
    if !second_word
        && app
            .switches()
            .faults
            .has(Fault::RecordingsV1BearerSchemeSplit)
    {
        return ApiError::for_path(
            V1_RECORDINGS,
            StatusCode::UNAUTHORIZED,
            "the Authorization header must be `Bearer <API key>`",
        )
        .render(app.switches());
    }
    let result = input::path_param(id, V1_RECORDINGS).and_then(|id| {
        let guard = app.store();
        let ws = guard.workspace();
        // Fault recordings-v1-missing-call-empty: the recordings table queried without the call.
        if ws.call(&id).is_none()
            && app
                .switches()
                .faults
                .has(Fault::RecordingsV1MissingCallEmpty)
        {
            return Ok(reply::data(StatusCode::OK, Value::Array(Vec::new())));
        }
        let call = visible_call(&app, ws, &caller, V1_RECORDINGS, &id, || {
            // Fault recordings-no-access-404: a call the caller may not see is hidden as missing.
            if app.switches().faults.has(Fault::RecordingsNoAccess404) {
                return not_found(V1_RECORDINGS, "Call", &id);
            }
            ApiError::for_path(
                V1_RECORDINGS,
                StatusCode::FORBIDDEN,
                format!("the caller may not access the recordings of call '{id}'"),
            )
        })?;
        // Fault recordings-v1-joined-by-number: recordings joined to calls on the phone number.
        let mut segments: Vec<Value> =
            if app.switches().faults.has(Fault::RecordingsV1JoinedByNumber) {
                ws.calls
                    .iter()
                    .filter(|c| c.phone_number_id == call.phone_number_id)
                    .flat_map(|c| c.recordings.iter().cloned())
                    .collect()
            } else {
                call.recordings.clone()
            };
        if app.switches().faults.has(Fault::RecordingsNewestFirst) {
            segments.reverse();
        }
        // Fault recordings-v1-union-voicemail: the voicemails table is UNIONed in.
        if app.switches().faults.has(Fault::RecordingsV1UnionVoicemail) {
            segments.extend(voicemail_segment(call));
        }
        recording_ids_re(&app, &mut segments);
        recording_times_local(&app, &mut segments);
        recording_durations_iso(&app, &mut segments);
        // Fault recordings-v1-double-envelope: the service's answer, already wrapped, wrapped again.
        if app.switches().faults.has(Fault::RecordingsV1DoubleEnvelope) {
            return Ok(reply::data(StatusCode::OK, json!({ "data": segments })));
        }
        Ok(reply::data(StatusCode::OK, Value::Array(segments)))
    });
    // Fault recordings-v1-404-calls-code: the call lookup's error comes from the calls module.
    let result = result.map_err(|e| {
        if e.status() == StatusCode::NOT_FOUND
            && app
                .switches()
                .faults
                .has(Fault::RecordingsV1NotFoundCallsCode)
        {
            e.with_code("0100404")
        } else {
            e
        }
    });
    answer(&app, result)
}

/// Fault recordings-v1-union-voicemail: a call's voicemail as a row of the UNION of recordings and
/// voicemails, with the voicemail's own id.
fn voicemail_segment(call: &Call) -> Option<Value> {
    let voicemail = call.voicemail.as_ref()?;
    Some(json!({
        "id": format!("VM{}", call.id.strip_prefix("AC").unwrap_or(&call.id)),
        "duration": voicemail.get("duration").cloned().unwrap_or(Value::Null),
        "startTime": crate::model::timestamp(call.created_at),
        "status": "completed",
        "type": "audio/mpeg",
        "url": voicemail.get("url").cloned().unwrap_or(Value::Null),
    }))
}

/// A user as answered; fault `user-email-array` gives the email as an array.
fn user_json(app: &App, user: &Value) -> Value {
    let mut v = user.clone();
    // Fault user-timestamps-date-only: DATE columns, shown as they read.
    if app.switches().faults.has(Fault::UserTimestampsDateOnly) {
        for field in ["createdAt", "updatedAt"] {
            if let Some(date) = v
                .get(field)
                .and_then(Value::as_str)
                .and_then(|t| t.get(..10))
            {
                v[field] = json!(date.to_string());
            }
        }
    }
    if app.switches().faults.has(Fault::UserEmailArray) {
        if let Some(email) = v.get("email").cloned() {
            v["email"] = json!([email]);
        }
    }
    v
}

async fn user_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    headers: axum::http::HeaderMap,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    // Fault user-v1-accept-406: the hand-written negotiation wants `application/json` named.
    let names_json = headers
        .get(axum::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("application/json"));
    // Fault user-v1-redirect-to-latest: the v1 route was retired into a redirect.
    if app.switches().faults.has(Fault::UserV1RedirectToLatest) {
        if let Ok(Path(user)) = &id {
            return redirect_to_latest(user);
        }
    }
    if !names_json && app.switches().faults.has(Fault::UserV1Accept406) {
        return ApiError::for_path(
            V1_USERS,
            StatusCode::NOT_ACCEPTABLE,
            "this endpoint produces application/json only; send Accept: application/json",
        )
        .render(app.switches());
    }
    let result = input::path_param(id, V1_USERS).and_then(|id| {
        // Fault user-v1-path-lowercased: the gateway lowercases the path before routing.
        let id = if app.switches().faults.has(Fault::UserV1PathLowercased) {
            id.to_lowercase()
        } else {
            id
        };
        let guard = app.store();
        if guard.workspace().user(&id).is_none()
            && app.switches().faults.has(Fault::UserV1UnknownAnswered)
        {
            return Ok(reply::data(StatusCode::OK, serde_json::json!({ "id": id })));
        }
        // Fault user-v1-404-calls-code: the handler copied from the calls routes kept their path.
        // Fault user-v1-404-hv-shape: the handler copied from GET /users/{userId} kept its path.
        let area = if app.switches().faults.has(Fault::UserV1NotFoundHvShape) {
            "/users"
        } else if app.switches().faults.has(Fault::UserV1NotFoundCallsCode) {
            V1_CALLS
        } else {
            V1_USERS
        };
        let user = guard.workspace().user(&id).ok_or_else(|| {
            let e = not_found(area, "User", &id);
            if app.switches().faults.has(Fault::MissingUser410) {
                e.with_status(StatusCode::GONE)
            } else {
                e
            }
        })?;
        // Fault user-v1-answers-caller: the user is loaded with the `/users/me` helper.
        let user = if app.switches().faults.has(Fault::UserV1AnswersCaller) {
            guard.workspace().user(caller.user_id).unwrap_or(user)
        } else {
            user
        };
        Ok(reply::data(StatusCode::OK, user_json(&app, &user.json)))
    });
    answer(&app, result)
}

/// Fault user-v1-redirect-to-latest: 308 Permanent Redirect to the header-versioned user.
fn redirect_to_latest(user: &str) -> Response {
    let mut response = Response::new(axum::body::Body::empty());
    *response.status_mut() = StatusCode::PERMANENT_REDIRECT;
    let encoded: String =
        percent_encoding::utf8_percent_encode(user, percent_encoding::NON_ALPHANUMERIC).collect();
    if let Ok(location) = axum::http::HeaderValue::from_str(&format!("/users/{encoded}")) {
        response
            .headers_mut()
            .insert(axum::http::header::LOCATION, location);
    }
    response
}

// ---- header-versioned ----

async fn list_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let result = (|| {
        let guard = app.store();
        let ws = guard.workspace();
        // Fault calls-forbidden-number-empty-page: the access is a row filter only.
        let row_filter_only = app
            .switches()
            .faults
            .has(Fault::CallsForbiddenNumberEmptyPage);
        if let Some(number) = q.first("phoneNumberId").filter(|_| !row_filter_only) {
            if ws.number(number).is_some() && !ws.is_number_user(number, caller.user_id) {
                return Err(not_number_user(&app, HV, number));
            }
        }
        let gte = time_param(&q, "createdAt[gte]", HV)?
            .filter(|_| {
                !app.switches()
                    .faults
                    .has(Fault::CallsCreatedAtFilterIgnored)
            })
            .map(|g| {
                // Fault calls-created-gte-date-truncated: the bound cast to a DATE.
                if app
                    .switches()
                    .faults
                    .has(Fault::CallsCreatedGteDateTruncated)
                {
                    g.to_offset(time::UtcOffset::UTC)
                        .replace_time(time::Time::MIDNIGHT)
                } else {
                    g
                }
            })
            .map(|g| offset_sign_inverted(&app, g));
        let inc = includes(&q);
        // Fault calls-hv-list-unscoped: the access join only comes with the number filter.
        let unscoped = app.switches().faults.has(Fault::CallsHvListUnscoped)
            && q.first("phoneNumberId").is_none();
        // Fault calls-participant-filter-digits-only: the filter normalized to digits.
        let digits_only = app
            .switches()
            .faults
            .has(Fault::CallsParticipantFilterDigitsOnly);
        let mut calls: Vec<&Call> = ws
            .calls
            .iter()
            .filter(|c| unscoped || ws.is_number_user(&c.phone_number_id, caller.user_id))
            .filter(|c| {
                q.first("phoneNumberId")
                    .is_none_or(|n| c.phone_number_id == n)
            })
            .filter(|c| {
                q.first("actorId").is_none_or(|a| {
                    // Fault calls-actor-id-on-answered-by: the filter bound to answeredBy.
                    if app.switches().faults.has(Fault::CallsActorIdOnAnsweredBy) {
                        c.fields.get("answeredBy").and_then(Value::as_str) == Some(a)
                    } else {
                        c.user_id == a
                    }
                })
            })
            .filter(|c| {
                q.first("participants").is_none_or(|p| {
                    let p = if digits_only {
                        p.trim_start_matches('+')
                    } else {
                        p
                    };
                    c.participants.iter().any(|x| x == p)
                })
            })
            .filter(|c| {
                // Fault calls-direction-dropped-with-status: `if status .. elif direction ..`.
                let dropped = q.first("status").is_some()
                    && app
                        .switches()
                        .faults
                        .has(Fault::CallsDirectionDroppedWithStatus);
                dropped
                    || q.first("direction")
                        .is_none_or(|d| c.fields["direction"] == d)
            })
            .filter(|c| {
                app.switches().faults.has(Fault::CallsStatusFilterIgnored)
                    || q.first("status").is_none_or(|s| status_matches(&app, c, s))
            })
            .filter(|c| {
                // Fault gte-exclusive: `[gte]` read as `[gt]`.
                gte.is_none_or(|g| {
                    c.created_at > g
                        || c.created_at == g && !app.switches().faults.has(Fault::GteExclusive)
                })
            })
            .collect();
        // Newest first.
        calls.sort_by_key(|c| std::cmp::Reverse(c.created_at));
        // Fault calls-newest-by-completed-at: "newest" read from completedAt, nulls last.
        if app.switches().faults.has(Fault::CallsNewestByCompletedAt) {
            let completed = |c: &Call| {
                c.fields
                    .get("completedAt")
                    .and_then(Value::as_str)
                    .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            };
            calls.sort_by(|a, b| match (completed(a), completed(b)) {
                (Some(x), Some(y)) => y.cmp(&x),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            });
        }
        if app.switches().faults.has(Fault::CallsOldestFirst) {
            calls.reverse();
        }
        let summary = inc.iter().any(|i| i == "summary");
        // Fault calls-include-summary-zipped-by-position: the summaries come from a second query
        // and are zipped onto the list by position.
        let zipped = summary
            && app
                .switches()
                .faults
                .has(Fault::CallsIncludeSummaryZippedByPosition);
        let mut items: Vec<Value> = calls
            .iter()
            .map(|c| {
                call_json(
                    &app,
                    c,
                    summary && !zipped,
                    inc.iter().any(|i| i == "voicemail"),
                )
            })
            .collect();
        if zipped {
            let summaries = calls.iter().filter_map(|c| c.summary.clone());
            for (item, s) in items.iter_mut().zip(summaries) {
                item["summary"] = s;
            }
        }
        calls_page(&app, &clamped_max_results(&app, &q), HV, &items)
    })();
    answer(&app, result)
}

/// Whether a call has the status a filter asks for; fault calls-status-completed-matches-ended
/// maps `completed` to the calls that ended (`completed_at IS NOT NULL`).
fn status_matches(app: &App, c: &Call, status: &str) -> bool {
    if status == "completed"
        && app
            .switches()
            .faults
            .has(Fault::CallsStatusCompletedMatchesEnded)
    {
        return c.fields.get("completedAt").is_some_and(|t| !t.is_null());
    }
    c.fields["status"] == status
}

async fn get_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let inc = includes(&q);
    let result = input::path_param(id, HV).and_then(|id| {
        let mut guard = app.store();
        let ws = guard.workspace();
        // Fault call-get-access-by-handler: the row policy of the call's handler.
        let mut call = if app.switches().faults.has(Fault::CallGetAccessByHandler) {
            let call = ws.call(&id).ok_or_else(|| not_found(HV, "Call", &id))?;
            if call.user_id != caller.user_id {
                return Err(not_number_user(&app, HV, &id));
            }
            call
        } else {
            visible_call(&app, ws, &caller, HV, &id, || {
                not_number_user(&app, HV, &id)
            })?
        };
        // Fault call-read-access-by-handler: the check compares the handling user with the caller.
        if call.user_id != caller.user_id
            && app.switches().faults.has(Fault::CallReadAccessByHandler)
        {
            return Err(not_number_user(&app, HV, &call.phone_number_id));
        }
        if app.switches().faults.has(Fault::CallGetNeighbour) {
            // Off by one: the call stored before the asked one (after it, for the first).
            if let Some(i) = ws.calls.iter().position(|c| c.id == call.id) {
                let j = if i > 0 { i - 1 } else { i + 1 };
                call = ws.calls.get(j).unwrap_or(call);
            }
        }
        let json = call_json(
            &app,
            call,
            inc.iter().any(|i| i == "summary"),
            inc.iter().any(|i| i == "voicemail"),
        );
        // Fault call-get-cache-ignores-include: the response cache is keyed by the path alone.
        if app.switches().faults.has(Fault::CallGetCacheIgnoresInclude) {
            let cached = guard
                .call_get_cache
                .entry(format!("{HV}/{id}"))
                .or_insert(json);
            return Ok(reply::data(StatusCode::OK, cached.clone()));
        }
        Ok(reply::data(StatusCode::OK, json))
    });
    // Fault call-hv-404-framework-body: the framework's default not-found answer.
    if let Err(e) = &result {
        if e.status() == StatusCode::NOT_FOUND
            && app
                .switches()
                .faults
                .has(Fault::CallHvNotFoundFrameworkBody)
        {
            return reply::json(
                StatusCode::NOT_FOUND,
                &serde_json::json!({"error": "Not Found", "statusCode": 404}),
            );
        }
    }
    answer(&app, result)
}

async fn recordings_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    if app.switches().faults.has(Fault::HvRecordingsEmpty) {
        static NONE: Vec<Value> = Vec::new();
        return segments_hv(app, caller, id, raw, false, |_| &NONE, true);
    }
    segments_hv(app, caller, id, raw, false, |c| &c.recordings, true)
}

/// Fault `recording-id-prefix-re`: recordings show their ids with the prefix `RE`.
fn recording_ids_re(app: &App, segments: &mut [Value]) {
    if app.switches().faults.has(Fault::RecordingIdPrefixRe) {
        for s in segments.iter_mut() {
            if let Some(rest) = s
                .get("id")
                .and_then(Value::as_str)
                .and_then(|i| i.strip_prefix("CR"))
            {
                s["id"] = json!(format!("RE{rest}"));
            }
        }
    }
}

/// Fault `recording-start-time-local-offset`: `startTime` rendered in the workspace's local time
/// (Pacific, -08:00) instead of UTC.
fn recording_times_local(app: &App, segments: &mut [Value]) {
    if !app
        .switches()
        .faults
        .has(Fault::RecordingStartTimeLocalOffset)
    {
        return;
    }
    let format = time::macros::format_description!(
        "[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3][offset_hour sign:mandatory]:[offset_minute]"
    );
    let Ok(local) = time::UtcOffset::from_hms(-8, 0, 0) else {
        return;
    };
    for s in segments.iter_mut() {
        let shown = s
            .get("startTime")
            .and_then(Value::as_str)
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            .and_then(|t| t.to_offset(local).format(&format).ok());
        if let Some(shown) = shown {
            s["startTime"] = json!(shown);
        }
    }
}

/// Fault recordings-hv-start-time-offset: startTime as the segments service stores it, the
/// offset into the call in whole seconds.
fn recording_start_offsets(app: &App, call: &Call, segments: &mut [Value]) {
    if !app
        .switches()
        .faults
        .has(Fault::RecordingsHvStartTimeOffset)
    {
        return;
    }
    for s in segments.iter_mut() {
        let offset = s
            .get("startTime")
            .and_then(Value::as_str)
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            .map(|t| (t - call.created_at).whole_seconds());
        if let Some(offset) = offset {
            s["startTime"] = json!(offset);
        }
    }
}

async fn transcripts_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let refuse_max = app
        .switches()
        .faults
        .has(Fault::TranscriptsRejectMaxResults);
    segments_hv(app, caller, id, raw, refuse_max, |c| &c.transcripts, false)
}

fn segments_hv(
    app: App,
    caller: Caller,
    id: Result<Path<String>, PathRejection>,
    raw: Option<String>,
    refuse_max: bool,
    pick: fn(&Call) -> &Vec<Value>,
    recordings: bool,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let result = input::path_param(id, HV).and_then(|id| {
        let guard = app.store();
        let ws = guard.workspace();
        // Fault transcripts-skip-number-access: the transcripts handler looks the call up
        // without the number-scoped check its recordings twin makes.
        let unchecked = !recordings
            && app
                .switches()
                .faults
                .has(Fault::TranscriptsSkipNumberAccess);
        let call = if unchecked {
            ws.call(&id).ok_or_else(|| not_found(HV, "Call", &id))?
        } else {
            visible_call(&app, ws, &caller, HV, &id, || {
                not_number_user(&app, HV, &id)
            })?
        };
        if refuse_max && q.first("maxResults").is_some() {
            return Err(ApiError::bad_request(
                HV,
                "query parameter maxResults is not known to this endpoint",
            ));
        }
        let mut items = pick(call).clone();
        // Fault recordings-hv-empty-404: the segments are loaded with a get-list-or-404.
        if recordings && items.is_empty() && app.switches().faults.has(Fault::RecordingsHvEmpty404)
        {
            return Err(not_found(HV, "Recordings of call", &id));
        }
        if app.switches().faults.has(Fault::RecordingsNewestFirst) {
            items.reverse();
        }
        // Fault transcripts-sorted-as-text: ordered by the offset into the call, a text column.
        if !recordings && app.switches().faults.has(Fault::TranscriptsSortedAsText) {
            let offset = |s: &Value| {
                s.get("startTime")
                    .and_then(Value::as_str)
                    .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
                    .map(|t| (t - call.created_at).whole_seconds().to_string())
                    .unwrap_or_default()
            };
            items.sort_by_key(offset);
        }
        // Fault recordings-hv-transcript-join-duplicates: one row per recording and transcript
        // segment.
        if recordings
            && app
                .switches()
                .faults
                .has(Fault::RecordingsHvTranscriptJoinDuplicates)
        {
            let times = call.transcripts.len().max(1);
            items = items
                .iter()
                .flat_map(|s| std::iter::repeat_n(s.clone(), times))
                .collect();
        }
        // Fault transcripts-full-last-page-token: a full page always carries a token.
        if !recordings
            && app
                .switches()
                .faults
                .has(Fault::TranscriptsFullLastPageToken)
        {
            let mut page = page_cut(&app, &q, HV, &items, false)?;
            let asked = q
                .first("maxResults")
                .and_then(|v| v.parse::<usize>().ok())
                .unwrap_or(DEFAULT_PAGE);
            if page.next_token.is_none() && !page.items.is_empty() && page.items.len() == asked {
                page.next_token = Some(pagination::encode_token(items.len()));
            }
            return Ok(reply::json(
                StatusCode::OK,
                &pagination::list_body(page, &app.switches().faults),
            ));
        }
        // Fault transcripts-streamed-ndjson: a long page is streamed one segment a line.
        if !recordings && app.switches().faults.has(Fault::TranscriptsStreamedNdjson) {
            let page = page_cut(&app, &q, HV, &items, false)?;
            if page.items.len() > NDJSON_THRESHOLD {
                return Ok(ndjson(page));
            }
        }
        if recordings {
            recording_ids_re(&app, &mut items);
            recording_times_local(&app, &mut items);
            recording_durations_iso(&app, &mut items);
            recording_start_offsets(&app, call, &mut items);
            if app.switches().faults.has(Fault::RecordingsPageTakesLatest) {
                return page_latest(&app, &q, &items);
            }
        }
        page_of(&app, &q, HV, &items)
    });
    answer(&app, result)
}

/// The page size above which fault transcripts-streamed-ndjson streams a page.
const NDJSON_THRESHOLD: usize = 3;

/// Fault transcripts-streamed-ndjson: one segment a line, then a line with the page's totals,
/// labelled application/json as the JSON answers are.
fn ndjson(page: pagination::Page<Value>) -> Response {
    let mut body = String::new();
    for item in &page.items {
        body.push_str(&item.to_string());
        body.push('\n');
    }
    body.push_str(&json!({"totalItems": page.total, "nextPageToken": page.next_token}).to_string());
    body.push('\n');
    (
        StatusCode::OK,
        [(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// Fault recordings-page-takes-latest: each page is the newest segments from the offset on
/// (`ORDER BY startTime DESC LIMIT n OFFSET k`), put back in ascending order for display.
fn page_latest(app: &App, q: &Query, items: &[Value]) -> Answer {
    let mut newest_first = items.to_vec();
    newest_first.reverse();
    let mut page = page_cut(app, q, HV, &newest_first, false)?;
    page.items.reverse();
    Ok(reply::json(
        StatusCode::OK,
        &pagination::list_body(page, &app.switches().faults),
    ))
}

fn number_field(app: &App) -> &'static str {
    if app.switches().faults.has(Fault::PhoneNumberFieldNumber) {
        "number"
    } else {
        "phoneNumber"
    }
}

fn restrictions_asked(app: &App, q: &Query) -> bool {
    // Fault restrictions-include-exact-query: the raw query compared whole with the include.
    let exact = !app
        .switches()
        .faults
        .has(Fault::RestrictionsIncludeExactQuery)
        || (q.pairs() == 1 && q.first("include") == Some("restrictions"));
    includes(q).iter().any(|i| i == "restrictions")
        && exact
        && !app.switches().faults.has(Fault::RestrictionsIncludeIgnored)
}

/// A phone number as answered; fault phone-number-toll-free-formatted shows a toll-free number
/// in the display format the UI uses.
fn number_json(
    app: &App,
    n: &crate::workspace::PhoneNumber,
    restrictions: bool,
    field: &str,
) -> Value {
    let mut v = n.to_json(restrictions, field);
    // Fault restrictions-messaging-dropped: only the calling policy is joined.
    if restrictions
        && app
            .switches()
            .faults
            .has(Fault::RestrictionsMessagingDropped)
    {
        if let Some(r) = v.get_mut("restrictions").and_then(Value::as_object_mut) {
            r.remove("messaging");
        }
    }
    if app.switches().faults.has(Fault::TollFreeNumberFormatted) {
        let national = n.number.strip_prefix("+1").filter(|r| r.len() == 10);
        if let Some(r) = national.filter(|r| TOLL_FREE_CODES.contains(&&r[..3])) {
            v[field] = json!(format!("+1 {}-{}-{}", &r[..3], &r[3..6], &r[6..]));
        }
    }
    v
}

/// North American toll-free area codes.
const TOLL_FREE_CODES: [&str; 7] = ["800", "833", "844", "855", "866", "877", "888"];

async fn numbers_hv(State(app): State<App>, RawQuery(raw): RawQuery) -> Response {
    let q = Query::parse(raw.as_deref());
    let path = "/phone-numbers";
    let result = (|| {
        // Fault phone-number-filter-double-decoded: a second form decoding turns `+` into a space.
        let twice = q
            .first("phoneNumber")
            .filter(|_| {
                app.switches()
                    .faults
                    .has(Fault::PhoneNumberFilterDoubleDecoded)
            })
            .map(|f| f.replace('+', " "));
        let filter = twice.as_deref().or(q.first("phoneNumber"));
        if let Some(f) = filter.filter(|f| !is_e164(f)) {
            return Err(ApiError::bad_request(
                path,
                format!("query parameter phoneNumber must be an E.164 number, got '{f}'"),
            ));
        }
        let ignore = app.switches().faults.has(Fault::PhoneNumberFilterIgnored);
        let guard = app.store();
        let items: Vec<Value> = guard
            .workspace()
            .numbers
            .iter()
            .filter(|n| ignore || filter.is_none_or(|f| n.number == f))
            .map(|n| number_json(&app, n, restrictions_asked(&app, &q), number_field(&app)))
            .collect();
        // Fault phone-numbers-filter-answers-object: a filter on the unique column is answered
        // by the detail serializer.
        if filter.is_some()
            && app
                .switches()
                .faults
                .has(Fault::PhoneNumbersFilterAnswersObject)
        {
            let one = items.first().cloned().unwrap_or(Value::Null);
            return Ok(reply::data(StatusCode::OK, one));
        }
        // Fault phone-numbers-pages-unordered: no ORDER BY, and the OFFSET query's plan scans the
        // index backwards.
        let mut items = items;
        if q.first("pageToken").is_some()
            && app.switches().faults.has(Fault::PhoneNumbersPagesUnordered)
        {
            items.reverse();
        }
        let no_token = app
            .switches()
            .faults
            .has(Fault::PhoneNumbersTokenAlwaysNull);
        // Fault phone-numbers-next-link: the token written as the whole next link.
        if app.switches().faults.has(Fault::PhoneNumbersNextLink) {
            let mut page = page_cut(&app, &q, path, &items, false)?;
            if no_token {
                page.next_token = None;
            }
            page.next_token = page.next_token.map(|t| next_link(path, &q, &t));
            return Ok(reply::json(
                StatusCode::OK,
                &pagination::list_body(page, &app.switches().faults),
            ));
        }
        page_of_quirks(&app, &q, path, &items, false, no_token)
    })();
    answer(&app, result)
}

/// Fault phone-numbers-next-link: the next page's link (a HAL `next` href): the query as sent,
/// its pageToken replaced by the next one.
fn next_link(path: &str, q: &Query, token: &str) -> String {
    let rest = q.without(&["pageToken"]);
    let token = form_urlencoded::Serializer::new(String::new())
        .append_pair("pageToken", token)
        .finish();
    if rest.is_empty() {
        format!("{path}?{token}")
    } else {
        format!("{path}?{rest}&{token}")
    }
}

async fn number_hv(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let path = "/phone-numbers";
    let result = input::path_param(id, path).and_then(|id| {
        let guard = app.store();
        // Fault phone-number-unknown-null-data: `first()` gave nothing and was serialized.
        if guard.workspace().number(&id).is_none()
            && app.switches().faults.has(Fault::PhoneNumberUnknownNullData)
        {
            return Ok(reply::data(StatusCode::OK, Value::Null));
        }
        let n = guard
            .workspace()
            .number(&id)
            .ok_or_else(|| not_found(path, "Phone number", &id))?;
        let number = number_json(&app, n, restrictions_asked(&app, &q), number_field(&app));
        // Fault phone-number-get-untagged-struct: the Go struct's field name, without a json tag.
        if app
            .switches()
            .faults
            .has(Fault::PhoneNumberGetUntaggedStruct)
        {
            return Ok(reply::json(StatusCode::OK, &json!({ "Data": number })));
        }
        Ok(reply::data(StatusCode::OK, number))
    });
    answer(&app, result)
}

async fn number_users_hv(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let path = "/phone-numbers";
    let result = input::path_param(id, path).and_then(|id| {
        let guard = app.store();
        let ws = guard.workspace();
        let n = ws
            .number(&id)
            .ok_or_else(|| not_found(path, "Phone number", &id))?;
        let empty = app.switches().faults.has(Fault::PhoneNumberUsersEmpty);
        // Fault phone-number-users-join-unfiltered: users joined to every number's assignments,
        // the number's own condition missing from the join.
        let assigned: Vec<&String> = if app
            .switches()
            .faults
            .has(Fault::PhoneNumberUsersJoinUnfiltered)
        {
            ws.users
                .iter()
                .map(|u| &u.id)
                .filter(|u| ws.numbers.iter().any(|n| n.users.contains(u)))
                .collect()
        } else {
            n.users.iter().collect()
        };
        let users: Vec<Value> = assigned
            .into_iter()
            .filter(|_| !empty)
            .filter_map(|u| ws.user(u))
            .map(|u| user_json(&app, &u.json))
            .collect();
        // Fault phone-number-users-route-shadowed: the v1 number route answers, members embedded.
        if app
            .switches()
            .faults
            .has(Fault::PhoneNumberUsersRouteShadowed)
        {
            let mut number = number_json(&app, n, false, number_field(&app));
            number["users"] = Value::Array(users);
            return Ok(reply::data(StatusCode::OK, number));
        }
        // Fault phone-number-users-python-repr: the body written with `str(payload)`.
        if app.switches().faults.has(Fault::PhoneNumberUsersPythonRepr) {
            let literal = crate::quirks::python_repr(&json!({ "data": users }));
            return Ok((
                StatusCode::OK,
                [(
                    axum::http::header::CONTENT_TYPE,
                    axum::http::HeaderValue::from_static("application/json"),
                )],
                literal,
            )
                .into_response());
        }
        Ok(reply::data(StatusCode::OK, Value::Array(users)))
    });
    answer(&app, result)
}

/// How long the toll-free carrier's inventory API keeps a request waiting (fault
/// available-toll-free-upstream-hangs): longer than any client waits.
const UPSTREAM_HANG: std::time::Duration = std::time::Duration::from_secs(600);

async fn available_hv(State(app): State<App>, RawQuery(raw): RawQuery) -> Response {
    let q = Query::parse(raw.as_deref());
    // Fault available-toll-free-upstream-hangs: the carrier call has no timeout.
    if q.first("tollFree").is_some()
        && app
            .switches()
            .faults
            .has(Fault::AvailableTollFreeUpstreamHangs)
    {
        tokio::time::sleep(UPSTREAM_HANG).await;
    }
    let area = q.first("areaCode");
    // Fault available-area-code-offset: the area code read right after the `+`.
    let area_at = if app.switches().faults.has(Fault::AvailableAreaCodeOffset) {
        1
    } else {
        2
    };
    // Fault available-toll-free-false-truthy: the flag read by its presence.
    let toll_free = q.first("tollFree").map(|v| {
        v == "true"
            || app
                .switches()
                .faults
                .has(Fault::AvailableTollFreeFalseTruthy)
    });
    // Fault available-offers-owned-numbers: the anti-join on the numbers the workspace holds
    // was lost, so they are offered too.
    let owned: Vec<Offer> = if app
        .switches()
        .faults
        .has(Fault::AvailableOffersOwnedNumbers)
    {
        app.store()
            .workspace()
            .numbers
            .iter()
            .map(|n| as_offer(&n.number))
            .collect()
    } else {
        Vec::new()
    };
    let pool: Vec<Offer> = AVAILABLE
        .iter()
        .map(|(n, c, r, ci, t)| (n.to_string(), *c, *r, *ci, *t))
        .chain(owned)
        .collect();
    let items: Vec<Value> = pool
        .iter()
        .filter(|(n, country, ..)| q.first("country").is_none_or(|c| country_matches(&app, c, n, country)))
        // Fault available-region-filter-on-city: the region filter bound to the city column.
        .filter(|(_, _, region, city, _)| {
            let column = if app.switches().faults.has(Fault::AvailableRegionFilterOnCity) {
                city
            } else {
                region
            };
            q.first("region").is_none_or(|r| r.eq_ignore_ascii_case(column))
        })
        .filter(|(.., city, _)| q.first("city").is_none_or(|c| c.eq_ignore_ascii_case(city)))
        .filter(|(.., tf)| toll_free.is_none_or(|t| t == *tf))
        .filter(|(n, ..)| area.is_none_or(|a| n.get(area_at..area_at + a.len()) == Some(a)))
        // Fault available-contains-prefix-only: the substring matched as a prefix.
        .filter(|(n, ..)| {
            q.first("contains").is_none_or(|s| {
                if app.switches().faults.has(Fault::AvailableContainsPrefixOnly) {
                    n.starts_with(s)
                } else {
                    n.contains(s)
                }
            })
        })
        .map(|(n, country, region, city, tf)| {
            json!({ "phoneNumber": n, "country": country, "region": region, "city": city, "tollFree": tf })
        })
        .collect();
    if app.switches().faults.has(Fault::AvailableSearchBuys) {
        let bought = items
            .first()
            .and_then(|i| i.get("phoneNumber"))
            .and_then(Value::as_str);
        let mut store = app.store();
        let ws = store.workspace_mut();
        if let (Some(n), Some(template)) = (bought, ws.numbers.first().cloned()) {
            if !ws.numbers.iter().any(|x| x.number == n) {
                let mut number = template;
                number.id = format!("PNbought{:04}", ws.numbers.len());
                number.number = n.to_string();
                number.users = Vec::new();
                ws.numbers.push(number);
            }
        }
    }
    reply::data(StatusCode::OK, Value::Array(items))
}

/// Whether an offered number matches the country asked; fault available-country-by-calling-code
/// compares the number's prefix with the country's calling code, which countries share.
fn country_matches(app: &App, asked: &str, number: &str, country: &str) -> bool {
    if !app
        .switches()
        .faults
        .has(Fault::AvailableCountryByCallingCode)
    {
        return asked.eq_ignore_ascii_case(country);
    }
    let calling_code = match asked.to_ascii_uppercase().as_str() {
        "US" | "CA" | "PR" => "+1",
        "GB" => "+44",
        "FR" => "+33",
        "DE" => "+49",
        _ => return asked.eq_ignore_ascii_case(country),
    };
    number.starts_with(calling_code)
}

/// A number the available search offers: (number, country, region, city, toll-free).
type Offer = (String, &'static str, &'static str, &'static str, bool);

/// Fault available-offers-owned-numbers: a number the workspace holds, as the carrier's
/// inventory describes it.
fn as_offer(number: &str) -> Offer {
    let national = number.strip_prefix("+1").filter(|r| r.len() == 10);
    match national {
        Some(r) if TOLL_FREE_CODES.contains(&&r[..3]) => (number.to_string(), "US", "", "", true),
        Some(r) if r.starts_with("415") => (number.to_string(), "US", "CA", "San Francisco", false),
        Some(_) => (number.to_string(), "US", "", "", false),
        None => (number.to_string(), "GB", "", "", false),
    }
}

async fn users_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    // Fault users-list-excludes-caller: the teammates picker's `WHERE id != :caller`.
    let teammates = app.switches().faults.has(Fault::UsersListExcludesCaller);
    let items: Vec<Value> = app
        .store()
        .workspace()
        .users
        .iter()
        .filter(|_| !app.switches().faults.has(Fault::UsersListEmpty))
        .filter(|u| !(teammates && u.id == caller.user_id))
        .map(|u| user_json(&app, &u.json))
        .collect();
    // Fault users-next-page-token-integer: the next offset answered as a JSON integer.
    if app.switches().faults.has(Fault::UsersNextPageTokenInteger) {
        return answer(&app, users_integer_cursor(&app, &q, &items));
    }
    let skip_one = app.switches().faults.has(Fault::UsersPageSkipsItem);
    // Fault users-token-wraps: the next offset is taken modulo the count, so the last page
    // points back to the first.
    if app.switches().faults.has(Fault::UsersTokenWraps) {
        let page = page_cut(&app, &q, "/users", &items, skip_one).map(|mut page| {
            if page.next_token.is_none() && !items.is_empty() {
                page.next_token = Some(pagination::encode_token(0));
            }
            reply::json(
                StatusCode::OK,
                &pagination::list_body(page, &app.switches().faults),
            )
        });
        return answer(&app, page);
    }
    answer(
        &app,
        page_of_quirks(&app, &q, "/users", &items, skip_one, false),
    )
}

/// Fault users-next-page-token-integer: the cursor is the bare offset, answered as a number and
/// read back from the digits a client sends.
fn users_integer_cursor(app: &App, q: &Query, items: &[Value]) -> Answer {
    let path = "/users";
    let bad = |e: pagination::PageQueryError| ApiError::bad_request(path, e.to_string());
    let size =
        pagination::max_results(q.first("maxResults"), DEFAULT_PAGE, MAX_PAGE).map_err(bad)?;
    let offset = match q.first("pageToken") {
        Some(t) => match t.parse::<usize>() {
            Ok(n) => n,
            Err(_) => pagination::page_token(Some(t)).map_err(bad)?,
        },
        None => 0,
    };
    let page = pagination::paginate(items, size, offset, &app.switches().faults);
    let next = page
        .next_token
        .as_deref()
        .and_then(pagination::decode_token);
    let mut body = pagination::list_body(page, &app.switches().faults);
    body["nextPageToken"] = json!(next);
    Ok(reply::json(StatusCode::OK, &body))
}

async fn user_hv(State(app): State<App>, id: Result<Path<String>, PathRejection>) -> Response {
    let result = input::path_param(id, "/users").and_then(|id| {
        let guard = app.store();
        let user = guard
            .workspace()
            .user(&id)
            .ok_or_else(|| not_found("/users", "User", &id))?;
        Ok(reply::data(StatusCode::OK, user_json(&app, &user.json)))
    });
    users_answer(&app, result).await
}

/// The answer of a user route; fault users-404-nested-error passes the users service's error
/// envelope through on a 404.
async fn users_answer(app: &App, result: Answer) -> Response {
    let nested = app.switches().faults.has(Fault::UsersNotFoundNestedError);
    let response = answer(app, result);
    if !nested || response.status() != StatusCode::NOT_FOUND {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return Response::from_parts(parts, axum::body::Body::empty());
    };
    let error: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    reply::json(parts.status, &json!({ "error": error }))
}

async fn user_numbers_hv(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    id: Result<Path<String>, PathRejection>,
    RawQuery(raw): RawQuery,
) -> Response {
    let q = Query::parse(raw.as_deref());
    let result = input::path_param(id, "/users").and_then(|id| {
        let items: Vec<Value> = {
            let guard = app.store();
            let ws = guard.workspace();
            ws.user(&id)
                .ok_or_else(|| not_found("/users", "User", &id))?;
            let faults = &app.switches().faults;
            let field = if faults.has(Fault::UserPhoneNumbersFieldNumber) {
                "number"
            } else {
                number_field(&app)
            };
            // Fault user-phone-numbers-of-caller: the caller's numbers, whoever the path names.
            let whose = if faults.has(Fault::UserPhoneNumbersOfCaller) {
                caller.user_id.to_string()
            } else {
                id.clone()
            };
            // Fault user-phone-numbers-admin-all: the admin console's query gives an admin or an
            // owner every number.
            let role = ws
                .user(&whose)
                .and_then(|u| u.json.get("role").and_then(Value::as_str));
            let every = matches!(role, Some("admin" | "owner"))
                && faults.has(Fault::UserPhoneNumbersAdminAll);
            ws.numbers
                .iter()
                .filter(|n| every || n.users.contains(&whose))
                .filter(|_| !faults.has(Fault::UserPhoneNumbersEmpty))
                .map(|n| number_json(&app, n, restrictions_asked(&app, &q), field))
                .collect()
        };
        // Fault user-phone-numbers-snake-case-envelope: the internal service's page as it is.
        if app
            .switches()
            .faults
            .has(Fault::UserPhoneNumbersSnakeCaseEnvelope)
        {
            let page = page_cut(&app, &q, "/users", &items, false)?;
            let mut body = pagination::list_body(page, &app.switches().faults);
            if let Some(o) = body.as_object_mut() {
                for (from, to) in [
                    ("totalItems", "total_items"),
                    ("nextPageToken", "next_page_token"),
                ] {
                    if let Some(v) = o.remove(from) {
                        o.insert(to.to_string(), v);
                    }
                }
            }
            return Ok(reply::json(StatusCode::OK, &body));
        }
        // Fault user-phone-numbers-token-ignored: the cursor is never forwarded.
        if app
            .switches()
            .faults
            .has(Fault::UserPhoneNumbersTokenIgnored)
        {
            return page_of(&app, &q.except(&["pageToken"]), "/users", &items);
        }
        page_of(&app, &q, "/users", &items)
    });
    users_answer(&app, result).await
}

/// GET /organization; fault organization-body-bom writes a byte order mark before the body.
async fn organization_hv(State(app): State<App>, Extension(caller): Extension<Caller>) -> Response {
    let response = organization_answer(&app, &caller);
    if !app.switches().faults.has(Fault::OrganizationBodyBom) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return Response::from_parts(parts, axum::body::Body::empty());
    };
    let mut marked = vec![0xef, 0xbb, 0xbf];
    marked.extend_from_slice(&bytes);
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(marked))
}

/// The caller's organization: the primary workspace's, or that of the other workspaces whose
/// keys the profile names (`international_disabled_api_key`, `subscription_expired_api_key`).
fn organization_answer(app: &App, caller: &Caller) -> Response {
    // Fault organization-subscription-guard-402: the billing router's guard refuses an expired
    // subscription before the route runs.
    if app
        .switches()
        .faults
        .has(Fault::OrganizationSubscriptionGuard402)
    {
        let workspace = app.store().messaging.workspace_of(caller.user_id);
        let own = workspace == crate::messaging::Workspace::Primary
            && app.switches().variant(Variant::OwnWorkspaceKeys);
        if own || workspace == crate::messaging::Workspace::SubscriptionExpired {
            return ApiError::for_path(
                "/organization",
                StatusCode::PAYMENT_REQUIRED,
                "the workspace subscription has expired; renew it to continue",
            )
            .with_title("Subscription Expired")
            .render(app.switches());
        }
    }
    let org = {
        let mut store = app.store();
        // Fault organization-cache-global: the cache key names no workspace.
        let cached = app.switches().faults.has(Fault::OrganizationCacheGlobal);
        match store.organization_cache.clone().filter(|_| cached) {
            Some(org) => org,
            None => {
                let workspace = store.messaging.workspace_of(caller.user_id);
                let org = crate::workspace::organization_of(
                    &store.workspace().organization,
                    workspace,
                    app.switches().variant(Variant::OwnWorkspaceKeys),
                );
                if cached {
                    store.organization_cache = Some(org.clone());
                }
                org
            }
        }
    };
    // Fault organization-internal-id: the table's numeric key answered as the id.
    let mut org = org;
    if app.switches().faults.has(Fault::OrganizationInternalId) {
        let key = org["id"]
            .as_str()
            .map(|id| 10_000 + id.bytes().map(u64::from).sum::<u64>())
            .unwrap_or(10_000);
        org["id"] = json!(key.to_string());
    }
    if app
        .switches()
        .faults
        .has(Fault::OrganizationWithoutEnvelope)
    {
        return reply::json(StatusCode::OK, &org);
    }
    if app.switches().faults.has(Fault::OrganizationAsArray) {
        return reply::data(StatusCode::OK, json!([org]));
    }
    reply::data(StatusCode::OK, org)
}
