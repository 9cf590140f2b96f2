//! Conversations of both generations: lists and the inbox operations `mark-as-*`.

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use time::OffsetDateTime;

use super::messages::{gte_as_gt, instant, sort_order, time_bounds, within};
use super::respond::{allow_only, answer};
use crate::app::App;
use crate::auth::Caller;
use crate::contact_input::is_e164;
use crate::errors::ApiError;
use crate::faults::Fault;
use crate::input::{self, Query};
use crate::messaging::{
    self, Conversation, EXCLUDE_INACTIVE, Mark, Messaging, UPDATED_AFTER, UPDATED_BEFORE, Workspace,
};
use crate::model::timestamp;
use crate::pagination;
use crate::reply;

const V1_PATH: &str = "/v1/conversations";
const HV_PATH: &str = "/conversations";
const MAX_RESULTS: usize = 100;
const DEFAULT_RESULTS: usize = 10;
const MAX_PHONE_NUMBERS: usize = 100;

pub(super) fn v1_routes() -> Router<App> {
    inbox_routes(
        Router::new().route(V1_PATH, allow_only(get(list_v1), "GET")),
        V1_PATH,
    )
}

pub(super) fn header_versioned_routes() -> Router<App> {
    inbox_routes(
        Router::new().route(HV_PATH, allow_only(get(list_hv), "GET")),
        HV_PATH,
    )
}

/// `POST {base}/{conversationId}/mark-as-done|open|read` (see [`mark`]).
fn inbox_routes(router: Router<App>, base: &'static str) -> Router<App> {
    [
        ("mark-as-done", Mark::Done),
        ("mark-as-open", Mark::Open),
        ("mark-as-read", Mark::Read),
    ]
    .into_iter()
    .fold(router, |router, (action, how)| {
        let handler = move |State(app): State<App>,
                            Extension(c): Extension<Caller>,
                            id: Result<Path<String>, PathRejection>| async move {
            mark(&app, &c, base, id, how)
        };
        router.route(
            &format!("{base}/{{conversationId}}/{action}"),
            allow_only(post(handler), "POST"),
        )
    })
}

fn page(
    app: &App,
    path: &str,
    items: &[Conversation],
    query: &Query,
    sort_within_page: bool,
) -> Result<Response, ApiError> {
    // Fault conversations-max-results-100-refused: the range check reads `< 100`.
    let max = if app
        .switches()
        .faults
        .has(Fault::ConversationsMaxResults100Refused)
    {
        MAX_RESULTS - 1
    } else {
        MAX_RESULTS
    };
    // Fault conversations-max-results-byte-wrap: the value is read into an 8-bit integer first.
    let wrapped = query
        .first("maxResults")
        .filter(|_| {
            app.switches()
                .faults
                .has(Fault::ConversationsMaxResultsByteWrap)
        })
        .and_then(|v| v.parse::<u64>().ok())
        .map(|n| (n % 256).to_string());
    let value = wrapped.as_deref().or(query.first("maxResults"));
    let size = pagination::max_results(value, DEFAULT_RESULTS, max)
        .map_err(|e| ApiError::bad_request(path, e.to_string()))?;
    let (mut page, next) =
        messaging::keyset_page(items, |c| c.id.as_str(), size, query.first("pageToken"))
            .map_err(|e| ApiError::bad_request(path, e.to_string()))?;
    if sort_within_page {
        page.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    }
    let mut body = pagination::list_body(
        pagination::Page {
            items: page
                .iter()
                .map(|c| {
                    let mut v = conversation_json(app, c);
                    if path == HV_PATH {
                        phone_number_id_as_number(app, c, &mut v);
                    }
                    v
                })
                .collect(),
            total: items.len(),
            next_token: next,
        },
        &app.switches().faults,
    );
    // Fault conversations-total-items-string: COUNT(*) comes back from the driver as a string.
    if app
        .switches()
        .faults
        .has(Fault::ConversationsTotalItemsString)
    {
        if let Some(total) = body.get_mut("totalItems") {
            *total = serde_json::Value::String(total.to_string());
        }
    }
    Ok(reply::json(StatusCode::OK, &body))
}

/// Fault conversations-hv-phone-number-id-e164: the list serializer reads the model's
/// `phone_number` attribute, the related line's E.164 number, for phoneNumberId.
fn phone_number_id_as_number(app: &App, c: &Conversation, json: &mut serde_json::Value) {
    if !app
        .switches()
        .faults
        .has(Fault::ConversationsHvPhoneNumberIdE164)
    {
        return;
    }
    let number = app
        .store()
        .messaging
        .line_by_id(&c.phone_number_id)
        .map(|l| l.number);
    if let Some(number) = number {
        json["phoneNumberId"] = serde_json::Value::String(number.to_string());
    }
}

/// A conversation as answered; fault `conversation-participants-joined` joins the participants.
fn conversation_json(app: &App, c: &Conversation) -> serde_json::Value {
    let mut v = c.to_json();
    if app
        .switches()
        .faults
        .has(Fault::ConversationParticipantsJoined)
    {
        v["participants"] = serde_json::Value::String(c.participants.join(","));
    }
    // Fault conversation-timestamps-seconds-omitted: Java's `OffsetDateTime.toString()`.
    if app
        .switches()
        .faults
        .has(Fault::ConversationTimestampsSecondsOmitted)
    {
        for field in ["createdAt", "updatedAt", "lastActivityAt"] {
            if let Some(shown) = v[field]
                .as_str()
                .and_then(crate::quirks::java_offset_date_time)
            {
                v[field] = serde_json::Value::String(shown);
            }
        }
    }
    // Fault conversation-unset-times-empty-string: NOT NULL DEFAULT '' time columns.
    if app
        .switches()
        .faults
        .has(Fault::ConversationUnsetTimesEmptyString)
    {
        for field in ["deletedAt", "mutedUntil", "snoozedUntil"] {
            if v[field].is_null() {
                v[field] = serde_json::Value::String(String::new());
            }
        }
    }
    v
}

fn of_workspace(m: &Messaging, workspace: Workspace) -> impl Iterator<Item = &Conversation> {
    m.conversations().iter().filter(move |c| {
        m.line_by_id(&c.phone_number_id)
            .is_some_and(|l| l.workspace == workspace)
    })
}

// --- GET /v1/conversations ----------------------------------------------------------------

async fn list_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Response {
    // Fault conversations-400-code-1001: the module's error factory uses its 403 row's prefix.
    let result = list_v1_page(&app, &caller, &Query::parse(raw.as_deref())).map_err(|e| {
        if e.status() == StatusCode::BAD_REQUEST
            && app
                .switches()
                .faults
                .has(Fault::ConversationsBadRequestCode1001)
        {
            e.with_code("1001400")
        } else {
            e
        }
    });
    answer(&app, result)
}

fn optional(path: &str, query: &Query, name: &str) -> Result<Option<OffsetDateTime>, ApiError> {
    query
        .first(name)
        .map(|v| instant(path, name, v))
        .transpose()
}

/// The numbers GET /v1/conversations filters on: `phoneNumbers` checked (1 to 100 items, each
/// a phone number id or an E.164 number), else the deprecated `phoneNumber`; and whether the
/// deprecated one is bound to the id column as sent (a fault).
fn v1_phone_numbers<'q>(
    app: &App,
    caller: &Caller,
    query: &'q Query,
) -> Result<(Vec<&'q str>, bool), ApiError> {
    let faults = &app.switches().faults;
    let mut numbers: Vec<&str> = query.all("phoneNumbers");
    // Fault conversations-empty-phone-numbers-dropped: empty items are dropped, not refused.
    if faults.has(Fault::ConversationsEmptyPhoneNumbersDropped) {
        numbers.retain(|n| !n.is_empty());
    }
    let max_numbers = if faults.has(Fault::ConversationPhoneNumbersMax101) {
        MAX_PHONE_NUMBERS + 1
    } else {
        MAX_PHONE_NUMBERS
    };
    let all_known = || {
        let store = app.store();
        let m = &store.messaging;
        let workspace = m.workspace_of(caller.user_id);
        numbers.iter().all(|n| m.line(workspace, n).is_some())
    };
    // Fault conversations-phone-numbers-limit-after-dedupe: the items are counted as a set.
    let counted = if faults.has(Fault::ConversationsPhoneNumbersLimitAfterDedupe) {
        numbers
            .iter()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
    } else {
        numbers.len()
    };
    if counted > max_numbers && !(faults.has(Fault::PhoneNumbersUncheckedWhenKnown) && all_known())
    {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!(
                "phoneNumbers takes 1 to {MAX_PHONE_NUMBERS} items, got {}",
                numbers.len()
            ),
        ));
    }
    // Fault conversations-deprecated-phone-number-ignored: dropped from the query binding.
    let deprecated = query
        .first("phoneNumber")
        .filter(|_| !faults.has(Fault::ConversationsDeprecatedPhoneNumberIgnored));
    let mut deprecated_as_id = false;
    if numbers.is_empty() || faults.has(Fault::DeprecatedPhoneNumberWins) {
        if let Some(n) = deprecated {
            numbers = vec![n];
            // Fault conversations-deprecated-phone-number-e164: bound to the id column as sent.
            deprecated_as_id =
                is_e164(n) && faults.has(Fault::ConversationsDeprecatedPhoneNumberE164);
        }
    }
    if let Some(n) = numbers
        .iter()
        .find(|n| !(is_e164(n) || (n.starts_with("PN") && n.len() > 2)))
    {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!("'{n}' is neither a phone number id (PN...) nor an E.164 number"),
        ));
    }
    // Fault conversations-phone-numbers-first-only: a single-valued read of a repeated key.
    if faults.has(Fault::ConversationsPhoneNumbersFirstOnly) {
        numbers.truncate(1);
    }
    Ok((numbers, deprecated_as_id))
}

fn list_v1_page(app: &App, caller: &Caller, query: &Query) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let (numbers, deprecated_as_id) = v1_phone_numbers(app, caller, query)?;
    if let Some(user) = query.first("userId").filter(|u| !u.starts_with("US")) {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!("userId must match ^US(.*)$, got '{user}'"),
        ));
    }
    // Fault conversations-fractional-time-refused: the bounds parse with whole seconds only.
    if faults.has(Fault::ConversationsFractionalTimeRefused) {
        for name in [
            "createdAfter",
            "createdBefore",
            UPDATED_AFTER,
            UPDATED_BEFORE,
        ] {
            if let Some(v) = query.first(name).filter(|v| v.contains('.')) {
                return Err(ApiError::bad_request(
                    V1_PATH,
                    format!(
                        "query parameter {name} must be a date-time like 2026-01-01T00:00:00Z, got '{v}'"
                    ),
                ));
            }
        }
    }
    future_bounds_refused(app, query)?;
    // Fault conversations-unparsed-time-ignored: a createdAfter that is no date-time is dropped.
    let created_after = optional(V1_PATH, query, "createdAfter").or_else(|e| {
        faults
            .has(Fault::ConversationsUnparsedTimeIgnored)
            .then_some(None)
            .ok_or(e)
    })?;
    // Fault conversations-created-before-local-time: the bound's wall time taken as the
    // workspace's local time (Pacific), whatever offset it was sent with.
    let created_before = optional(V1_PATH, query, "createdBefore")?.map(|t| {
        match time::UtcOffset::from_hms(-8, 0, 0) {
            Ok(local) if faults.has(Fault::ConversationsCreatedBeforeLocalTime) => {
                t.replace_offset(local)
            }
            _ => t,
        }
    });
    // Fault conversations-created-after-default-window: createdBefore defaults to 30 days on.
    let created_before = created_before.or_else(|| {
        created_after
            .filter(|_| faults.has(Fault::ConversationsCreatedAfterDefaultWindow))
            .map(|t| t + time::Duration::days(30))
    });
    let updated_ignored = faults.has(Fault::ConversationsUpdatedRangeIgnored);
    let updated_after = optional(V1_PATH, query, UPDATED_AFTER)?.filter(|_| !updated_ignored);
    let updated_before = optional(V1_PATH, query, UPDATED_BEFORE)?.filter(|_| !updated_ignored);
    // Fault conversations-v1-updated-bounds-as-text: the bounds, as sent, are compared with the
    // stored text of updatedAt.
    let as_text = faults.has(Fault::ConversationsV1UpdatedBoundsAsText);
    let updated_after_text = query.first(UPDATED_AFTER).filter(|_| as_text);
    let updated_before_text = query.first(UPDATED_BEFORE).filter(|_| as_text);
    let exclude_inactive = match query.first(EXCLUDE_INACTIVE) {
        // Fault exclude-inactive-false-truthy: any value sent is truthy, "false" included.
        Some(_) if faults.has(Fault::ExcludeInactiveFalseTruthy) => true,
        None | Some("false") => false,
        Some("true") => true,
        Some(other) => {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!("{EXCLUDE_INACTIVE} must be true or false, got '{other}'"),
            ));
        }
    };
    // Fault conversations-time-bounds-inclusive: the bounds keep the instant itself.
    let at = |x: OffsetDateTime, t: OffsetDateTime| {
        x == t && faults.has(Fault::ConversationsTimeBoundsInclusive)
    };
    let store = app.store();
    let m = &store.messaging;
    let workspace = m.workspace_of(caller.user_id);
    // Fault conversations-phone-numbers-e164-unresolved: only phone number ids reach the
    // `phone_number_id IN (...)` filter; E.164 values are dropped on the way.
    let e164_dropped = faults.has(Fault::ConversationsE164Unresolved);
    let filtered: Vec<&str> = numbers
        .iter()
        .copied()
        .filter(|n| !e164_dropped || n.starts_with("PN"))
        .collect();
    // Fault conversations-v1-other-workspace-numbers: numbers resolved in every workspace.
    let cross = faults.has(Fault::ConversationsV1OtherWorkspaceNumbers);
    let resolve = |n: &str| {
        m.line(workspace, n)
            .or_else(|| cross.then(|| m.line_in_any_workspace(n)).flatten())
    };
    let lines: Vec<&str> = filtered
        .iter()
        .filter_map(|n| resolve(n).map(|l| l.id))
        .collect();
    // Fault conversations-user-id-dropped-with-numbers: `if numbers {..} else if userId {..}`.
    let user_filter = query.first("userId").filter(|_| {
        numbers.is_empty() || !faults.has(Fault::ConversationsUserIdDroppedWithNumbers)
    });
    // Fault conversations-user-id-reads-caller: the access helper reads `request.user`.
    let user_filter = user_filter.map(|u| {
        if faults.has(Fault::ConversationsUserIdReadsCaller) {
            caller.user_id
        } else {
            u
        }
    });
    // Variant unknown-resources-404 (READINGS 6.6): a number the workspace lacks is not found.
    if app
        .switches()
        .variant(crate::variants::Variant::UnknownResources404)
    {
        if let Some(n) = numbers.iter().find(|n| resolve(n).is_none()) {
            return Err(ApiError::for_path(
                V1_PATH,
                StatusCode::NOT_FOUND,
                format!("phone number {n} is not in this workspace"),
            ));
        }
    }
    let pool: Vec<&Conversation> = if cross && !lines.is_empty() {
        m.conversations().iter().collect()
    } else {
        of_workspace(m, workspace).collect()
    };
    // Fault conversations-phone-numbers-match-participants: the phone search helper also looks
    // at the participants' numbers.
    let searched = |c: &Conversation| {
        faults.has(Fault::ConversationsPhoneNumbersMatchParticipants)
            && filtered
                .iter()
                .any(|n| is_e164(n) && c.participants.iter().any(|p| p == n))
    };
    let items: Vec<Conversation> = pool
        .into_iter()
        .filter(|c| {
            let line = m.line_by_id(&c.phone_number_id);
            (filtered.is_empty() || lines.contains(&c.phone_number_id.as_str()) || searched(c))
                && user_filter.is_none_or(|u| {
                    // Fault conversations-user-id-owner-only: only the number's first user counts.
                    let owner_only = faults.has(Fault::ConversationsUserIdOwnerOnly);
                    line.is_some_and(|l| {
                        if owner_only {
                            l.users.first() == Some(&u)
                        } else {
                            l.users.contains(&u)
                        }
                    }) != faults.has(Fault::ConversationsUserIdInverted)
                })
                && created_after.is_none_or(|t| {
                    // Fault conversations-v1-created-after-on-updated: the updated line copied.
                    let column = if faults.has(Fault::ConversationsV1CreatedAfterOnUpdated) {
                        c.updated_at
                    } else {
                        c.created_at
                    };
                    column > t || at(column, t)
                })
                && (created_before.is_none_or(|t| c.created_at < t || at(c.created_at, t))
                    || faults.has(Fault::ConversationsCreatedBeforeIgnored))
                && match updated_after_text {
                    Some(bound) => timestamp(c.updated_at).as_str() > bound,
                    None => updated_after.is_none_or(|t| c.updated_at > t || at(c.updated_at, t)),
                }
                && match updated_before_text {
                    Some(bound) => timestamp(c.updated_at).as_str() < bound,
                    None => updated_before.is_none_or(|t| c.updated_at < t || at(c.updated_at, t)),
                }
                && (!exclude_inactive || c.active || faults.has(Fault::ExcludeInactiveIgnored))
                && !(c.done && faults.has(Fault::ConversationsV1HideDone))
                && !deprecated_as_id
        })
        .cloned()
        .collect();
    drop(store);
    // Fault conversations-per-number-limit: one query per number, each with its own LIMIT.
    let mut per_number: Vec<String> = Vec::new();
    for line in lines {
        if !per_number.iter().any(|l| l == line) {
            per_number.push(line.to_string());
        }
    }
    if per_number.len() > 1 && faults.has(Fault::ConversationsPerNumberLimit) {
        let mut items = items;
        items.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        return page_per_number(app, query, &items, &per_number);
    }
    order_and_page(app, caller, query, items)
}

/// Fault conversations-future-bound-refused: the report screen's form validator refuses a bound
/// later than now (a value that is no date-time is left to the parsing that follows).
fn future_bounds_refused(app: &App, query: &Query) -> Result<(), ApiError> {
    if !app
        .switches()
        .faults
        .has(Fault::ConversationsFutureBoundRefused)
    {
        return Ok(());
    }
    let now = OffsetDateTime::now_utc();
    for name in [
        "createdAfter",
        "createdBefore",
        UPDATED_AFTER,
        UPDATED_BEFORE,
    ] {
        let future = query
            .first(name)
            .and_then(|v| instant(V1_PATH, name, v).ok())
            .is_some_and(|t| t > now);
        if future {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!("{name} must not be in the future"),
            ));
        }
    }
    Ok(())
}

/// Fault conversations-per-number-limit: each number's query takes `maxResults` conversations
/// from where the walk stands, and the page is their concatenation, newest first; the token is
/// the one the page of `maxResults` would have had.
fn page_per_number(
    app: &App,
    query: &Query,
    items: &[Conversation],
    lines: &[String],
) -> Result<Response, ApiError> {
    let size = pagination::max_results(query.first("maxResults"), DEFAULT_RESULTS, MAX_RESULTS)
        .map_err(|e| ApiError::bad_request(V1_PATH, e.to_string()))?;
    let (cut, next) =
        messaging::keyset_page(items, |c| c.id.as_str(), size, query.first("pageToken"))
            .map_err(|e| ApiError::bad_request(V1_PATH, e.to_string()))?;
    let start = cut
        .first()
        .and_then(|first| items.iter().position(|c| c.id == first.id))
        .unwrap_or(items.len());
    let mut page: Vec<&Conversation> = lines
        .iter()
        .flat_map(|line| {
            items[start..]
                .iter()
                .filter(move |c| &c.phone_number_id == line)
                .take(size)
        })
        .collect();
    page.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    let body = pagination::list_body(
        pagination::Page {
            items: page
                .into_iter()
                .map(|c| conversation_json(app, c))
                .collect(),
            total: items.len(),
            next_token: next,
        },
        &app.switches().faults,
    );
    Ok(reply::json(StatusCode::OK, &body))
}

/// The v1 list's items in its order (newest first), cut into the page the query asks for.
fn order_and_page(
    app: &App,
    caller: &Caller,
    query: &Query,
    mut items: Vec<Conversation>,
) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    // Newest first. Fault conversations-v1-sorted-per-page: pages are cut in storage order and
    // sorted each on its own.
    let per_page = faults.has(Fault::ConversationsV1SortedPerPage);
    if faults.has(Fault::ConversationsV1ByLastActivity) {
        // Fault conversations-v1-by-last-activity: "newest" read as most recently active.
        items.sort_by(|a, b| (b.last_activity_at, &b.id).cmp(&(a.last_activity_at, &a.id)));
    } else if !per_page {
        items.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
    }
    if faults.has(Fault::ConversationsV1OldestFirst) {
        items.reverse();
    }
    // Fault conversations-v1-cache-misses-sends: the result of a query is cached by caller and
    // query (paging aside), and a send that opens a conversation does not clear it.
    if faults.has(Fault::ConversationsV1CacheMissesSends) {
        let key = format!(
            "{}?{}",
            caller.user_id,
            query.without(&["pageToken", "maxResults"])
        );
        let mut store = app.store();
        let cached = store
            .conversation_list_cache
            .entry(key)
            .or_insert(items)
            .clone();
        drop(store);
        return page(app, V1_PATH, &cached, query, per_page);
    }
    page(app, V1_PATH, &items, query, per_page)
}

// --- GET /conversations -------------------------------------------------------------------

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

fn list_hv_page(app: &App, caller: &Caller, query: &Query) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let mut line_sets: Vec<Vec<String>> = query
        .all("phoneNumberId")
        .into_iter()
        .map(|v| vec![v.to_string()])
        .collect();
    for set in query.all("phoneNumberId[in]") {
        if !faults.has(Fault::ConversationsInFilterIgnored) {
            line_sets.push(set.split(',').map(str::to_string).collect());
        }
    }
    let mut created = time_bounds(HV_PATH, query, "createdAt")?;
    let mut updated = time_bounds(HV_PATH, query, "updatedAt")?;
    if faults.has(Fault::ConversationsTimeFiltersIgnored) {
        created = Default::default();
        updated = Default::default();
    }
    gte_as_gt(faults, &mut created);
    gte_as_gt(faults, &mut updated);
    sort_field_interpolated(app, query)?;
    let (by, desc) = sort_order(
        HV_PATH,
        query,
        &["createdAt", "updatedAt"],
        ("createdAt", true),
    )?;
    let (by, desc) = if faults.has(Fault::ConversationsSortIgnored) {
        ("createdAt".to_string(), true)
    } else {
        (by, desc)
    };
    let store = app.store();
    let m = &store.messaging;
    let workspace = m.workspace_of(caller.user_id);
    let mut items: Vec<Conversation> = of_workspace(m, workspace)
        .filter(|c| {
            // Fault conversations-id-filter-case-insensitive: ids compared under a _ci collation.
            line_sets.iter().all(|set| {
                set.iter().any(|s| {
                    *s == c.phone_number_id
                        || (faults.has(Fault::ConversationsIdFilterCaseInsensitive)
                            && s.eq_ignore_ascii_case(&c.phone_number_id))
                })
            }) && within(&created, c.created_at)
                // Fault conversations-updated-filter-on-created: the created branch, copied.
                && within(
                    &updated,
                    if faults.has(Fault::ConversationsUpdatedFilterOnCreated) {
                        c.created_at
                    } else {
                        c.updated_at
                    },
                )
        })
        .cloned()
        .collect();
    let key = |c: &Conversation| {
        if by == "updatedAt" {
            c.updated_at
        } else {
            c.created_at
        }
    };
    // Fault conversations-created-at-sort-by-id: the primary key taken for creation order.
    if by == "createdAt" && faults.has(Fault::ConversationsCreatedAtSortById) {
        items.sort_by(|a, b| a.id.cmp(&b.id));
    } else {
        items.sort_by(|a, b| (key(a), &a.id).cmp(&(key(b), &b.id)));
    }
    if desc {
        items.reverse();
    }
    drop(store);
    // Fault conversations-cursor-ignores-sort: a following page is cut by the createdAt keyset
    // of the default order (`createdAt < cursor.createdAt`), whatever the sort of the walk.
    if faults.has(Fault::ConversationsCursorIgnoresSort) {
        let cursor = query
            .first("pageToken")
            .and_then(messaging::keyset_id)
            .and_then(|id| items.iter().find(|c| c.id == id).map(|c| c.created_at));
        if let Some(at) = cursor {
            let rest: Vec<Conversation> = items.into_iter().filter(|c| c.created_at < at).collect();
            return page(app, HV_PATH, &rest, &query.except(&["pageToken"]), false);
        }
    }
    page(app, HV_PATH, &items, query, false)
}

/// Fault conversations-sort-field-interpolated-500: only the direction of `sort` is checked, and
/// the field goes into ORDER BY as it is, where the database refuses a column it lacks.
fn sort_field_interpolated(app: &App, query: &Query) -> Result<(), ApiError> {
    if !app
        .switches()
        .faults
        .has(Fault::ConversationsSortFieldInterpolated500)
    {
        return Ok(());
    }
    let Some(sort) = query.first("sort") else {
        return Ok(());
    };
    let (field, direction) = sort.split_once(':').unwrap_or((sort, ""));
    if matches!(direction, "asc" | "desc") && !["createdAt", "updatedAt"].contains(&field) {
        return Err(ApiError::for_path(
            HV_PATH,
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("column \"{field}\" does not exist"),
        ));
    }
    Ok(())
}

// --- mark-as-* ----------------------------------------------------------------------------

fn mark(
    app: &App,
    caller: &Caller,
    path: &str,
    id: Result<Path<String>, PathRejection>,
    how: Mark,
) -> Response {
    let faults = &app.switches().faults;
    // Deliveries of fault mark-done-sends-message, sent once the store is released.
    let mut pending = Vec::new();
    let result = input::path_param(id, path).and_then(|id| {
        let mut store = app.store();
        let workspace = store.messaging.workspace_of(caller.user_id);
        let number = of_workspace(&store.messaging, workspace)
            .find(|c| c.id == id)
            .map(|c| c.phone_number_id.clone());
        // Authentication 3: a number-scoped check applies on conversations.
        if let Some(number) = &number
            && !store.workspace().is_number_user(number, caller.user_id)
            && !faults.has(Fault::ConversationMarkIgnoresNumberAccess)
            // Fault mark-open-skips-number-access: the check was left off one of the three.
            && !(how == Mark::Open && faults.has(Fault::MarkOpenSkipsNumberAccess))
        {
            let error = ApiError::for_path(
                path,
                StatusCode::FORBIDDEN,
                format!("the caller is not a user of phone number '{number}'"),
            )
            .with_title("Not Phone Number User");
            // Fault conversation-403-generic-code: the named row's code was never set.
            return Err(
                if path == V1_PATH && !faults.has(Fault::ConversationForbiddenGenericCode) {
                    error.with_code("1001403")
                } else {
                    error
                },
            );
        }
        let known = number.is_some();
        // Fault mark-read-already-read-409: the inbox state machine refuses a transition to the
        // state the conversation is in.
        let read = store.messaging.conversation(&id).is_some_and(|c| !c.unread);
        if known && read && how == Mark::Read && faults.has(Fault::MarkReadAlreadyRead409) {
            return Err(ApiError::for_path(
                path,
                StatusCode::CONFLICT,
                format!("conversation '{id}' is already read"),
            ));
        }
        // Fault conversation-created-at-on-update: the update of the row moves its auto-updating
        // createdAt.
        if known && faults.has(Fault::ConversationCreatedAtOnUpdate) {
            store
                .messaging
                .touch_created(&id, OffsetDateTime::now_utc());
        }
        let updated = known.then(|| store.messaging.mark(&id, how)).flatten();
        // Fault mark-done-sends-message: closing the conversation sends a closing message.
        if let Some(c) = updated
            .as_ref()
            .filter(|_| how == Mark::Done && faults.has(Fault::MarkDoneSendsMessage))
        {
            let line = store.messaging.line_by_id(&c.phone_number_id).cloned();
            if let Some(line) = line {
                let sent = store.messaging.record(
                    &line,
                    &c.participants,
                    true,
                    None,
                    "This conversation has been closed. Reply to reopen it.",
                    Some(caller.user_id),
                    "sent",
                    OffsetDateTime::now_utc(),
                );
                let json = sent.to_json(true);
                pending = crate::deliveries::fire(
                    app,
                    &mut store,
                    "message.delivered",
                    Some(line.id),
                    &sent.id,
                    json,
                );
            }
        }
        let Some(updated) = updated else {
            // Fault mark-v1-error-hv-shape: the shared handler builds its 404 on the latest path.
            let shaped = if faults.has(Fault::MarkV1ErrorHvShape) {
                HV_PATH
            } else {
                path
            };
            let mut error = ApiError::for_path(
                shaped,
                StatusCode::NOT_FOUND,
                format!("conversation '{id}' was not found"),
            );
            if faults.has(Fault::Conversation404WrongCode) && path == V1_PATH {
                error = error.with_code("1000400");
            }
            return Err(error);
        };
        // Fault mark-v1-answers-latest-of-line: the re-read after the update names the line only.
        let updated = if path == V1_PATH && faults.has(Fault::MarkV1AnswersLatestOfLine) {
            of_workspace(&store.messaging, workspace)
                .filter(|c| c.phone_number_id == updated.phone_number_id)
                .max_by_key(|c| c.last_activity_at)
                .cloned()
                .unwrap_or(updated)
        } else {
            updated
        };
        if how == Mark::Done && faults.has(Fault::MarkDoneWithoutBody)
            || how == Mark::Open && faults.has(Fault::MarkOpenWithoutBody)
            || how == Mark::Read && faults.has(Fault::MarkReadWithoutBody)
        {
            return Ok(StatusCode::NO_CONTENT.into_response());
        }
        if how == Mark::Read && faults.has(Fault::MarkReadNoEnvelope) {
            return Ok(reply::json(
                StatusCode::OK,
                &conversation_json(app, &updated),
            ));
        }
        Ok(reply::data(
            StatusCode::OK,
            conversation_json(app, &updated),
        ))
    });
    crate::deliveries::dispatch(app, pending);
    answer(app, result)
}
