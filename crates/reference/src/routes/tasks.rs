//! Tasks of the v1 API: create, list, get, update, delete, and the transitions of the States
//! table (complete, reopen, assign, unassign, change and remove the due date, link and unlink a
//! conversation), with the open-task limit (402 `Open Tasks Limit Reached`, Errors > Rules > 6).
//!
//! The task is looked up before the body is judged: an unknown or deleted task is a 404 whatever
//! was sent. Answers the contract does not show are the reference's choice: create answers 201
//! with the task, delete answers 204, every other transition answers 200 `{data: {taskId,
//! revision}}` (the shape the contract shows for `unassign`).

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::respond::{allow_only, answer};
use crate::app::App;
use crate::auth::Caller;
use crate::errors::ApiError;
use crate::faults::{Fault, FaultSet};
use crate::fixtures;
use crate::input::{self, Query};
use crate::pagination::{self, Page, PageQueryError};
use crate::reply;
use crate::task_store::{NewTask, OPEN_TASK_LIMIT, Task, TaskStore};

/// Picks the generation and the v1 area (Tasks, `06`) of every error body.
const V1_PATH: &str = "/v1/tasks";
const BODY_LIMIT: usize = 1 << 20;
const TITLE_MAX: usize = 500;
const ID_MAX: usize = 64;
/// The round trip between the count and the insert under fault task-limit-race.
const RACE_ROUND_TRIP: std::time::Duration = std::time::Duration::from_millis(30);

/// The task routes; `put_as_patch` is fault task-put-routed-as-patch: the update handler is
/// registered under PATCH, the internal service's verb.
pub(super) fn v1_routes(put_as_patch: bool) -> Router<App> {
    let one = if put_as_patch {
        allow_only(
            get(get_one).patch(update).delete(delete),
            "GET, PATCH, DELETE",
        )
    } else {
        allow_only(get(get_one).put(update).delete(delete), "GET, PUT, DELETE")
    };
    Router::new()
        .route(V1_PATH, allow_only(get(list).post(create), "GET, POST"))
        .route("/v1/tasks/{taskId}", one)
        .route(
            "/v1/tasks/{taskId}/{action}",
            allow_only(post(transition), "POST"),
        )
}

/// The answer of a task route; fault task-404-title-task-not-found titles every 404 after the
/// exception's class.
fn respond(app: &App, result: Result<Response, ApiError>) -> Response {
    let result = result.map_err(|e| {
        if e.status() == StatusCode::NOT_FOUND
            && app.switches().faults.has(Fault::TaskNotFoundTitle)
        {
            e.with_title("Task Not Found")
        } else {
            e
        }
    });
    // Fault tasks-errors-problem-details: an RFC 7807 handler writes the task routes' errors.
    match result {
        Err(e) if app.switches().faults.has(Fault::TasksErrorsProblemDetails) => {
            problem_details(&e)
        }
        result => answer(app, result),
    }
}

/// Fault tasks-errors-problem-details: an error as RFC 7807 Problem Details.
fn problem_details(e: &ApiError) -> Response {
    let status = e.status().as_u16();
    let body = json!({
        "type": format!("https://docs.workspace.example/problems/{status}"),
        "title": e.title(),
        "status": status,
        "detail": e.message(),
        "instance": V1_PATH,
        "code": e.code(),
    });
    let mut response = reply::json(e.status(), &body);
    response.headers_mut().insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/problem+json"),
    );
    response
}

fn not_found(id: &str) -> ApiError {
    ApiError::for_path(
        V1_PATH,
        StatusCode::NOT_FOUND,
        format!("Task '{id}' was not found"),
    )
}

/// Errors > Rules > 6: the named row of the Tasks table.
fn limit_reached(faults: &FaultSet) -> ApiError {
    let code = if faults.has(Fault::TaskLimitWrongCode) {
        "0201402"
    } else {
        "0600402"
    };
    ApiError::for_path(
        V1_PATH,
        StatusCode::PAYMENT_REQUIRED,
        format!("the workspace has reached its limit of {OPEN_TASK_LIMIT} open tasks"),
    )
    .with_code(code)
    .with_title("Open Tasks Limit Reached")
}

/// Task ids of this reference are short runs of letters, digits, `_` and `-`; anything else is
/// malformed (400) rather than unknown (404).
fn task_id(param: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    let id = input::path_param(param, V1_PATH)?;
    check_id(&id)?;
    Ok(id)
}

/// [`task_id`], with fault task-malformed-id-422: a malformed id answers 422.
fn task_id_of(app: &App, param: Result<Path<String>, PathRejection>) -> Result<String, ApiError> {
    task_id(param).map_err(|e| {
        if e.status() == StatusCode::BAD_REQUEST
            && app.switches().faults.has(Fault::TaskMalformedId422)
        {
            ApiError::for_path(
                V1_PATH,
                StatusCode::UNPROCESSABLE_ENTITY,
                "path parameter taskId is malformed",
            )
        } else {
            e
        }
    })
}

fn check_id(id: &str) -> Result<(), ApiError> {
    let well_formed = (1..=ID_MAX).contains(&id.len())
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if well_formed {
        Ok(())
    } else {
        Err(ApiError::bad_request(
            V1_PATH,
            format!("path parameter taskId must be 1 to {ID_MAX} letters, digits, '_' or '-'"),
        ))
    }
}

/// A body that may be absent (transitions without parameters); when sent, a JSON object.
async fn optional_object(body: Body) -> Result<Map<String, Value>, ApiError> {
    let bytes = axum::body::to_bytes(body, BODY_LIMIT)
        .await
        .map_err(|_| ApiError::bad_request(V1_PATH, "request body could not be read"))?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(ApiError::bad_request(
            V1_PATH,
            "request body must be a JSON object",
        )),
        Err(e) => Err(ApiError::bad_request(
            V1_PATH,
            format!("request body is not valid JSON: {e}"),
        )),
    }
}

/// An optional string field; null counts as absent.
fn string_field(body: &Map<String, Value>, name: &str) -> Result<Option<String>, ApiError> {
    match body.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(ApiError::bad_request(
            V1_PATH,
            format!("body field {name} must be a string, got {other}"),
        )),
    }
}

/// An optional id field with its stated prefix (Conventions: `PN`, `CN`, `AC`, `US`).
fn id_field(
    body: &Map<String, Value>,
    name: &str,
    prefix: &str,
) -> Result<Option<String>, ApiError> {
    let value = string_field(body, name)?;
    if let Some(v) = &value {
        if !v.starts_with(prefix) || v.len() <= prefix.len() {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!("body field {name} must be an id starting with {prefix}, got '{v}'"),
            ));
        }
    }
    Ok(value)
}

fn required_id(body: &Map<String, Value>, name: &str, prefix: &str) -> Result<String, ApiError> {
    id_field(body, name, prefix)?
        .ok_or_else(|| ApiError::bad_request(V1_PATH, format!("body field {name} is required")))
}

fn date_field(body: &Map<String, Value>, name: &str) -> Result<Option<OffsetDateTime>, ApiError> {
    string_field(body, name)?
        .map(|s| {
            OffsetDateTime::parse(&s, &Rfc3339).map_err(|_| {
                ApiError::bad_request(
                    V1_PATH,
                    format!("body field {name} must be an RFC 3339 date-time, got '{s}'"),
                )
            })
        })
        .transpose()
}

fn title_field(body: &Map<String, Value>) -> Result<Option<String>, ApiError> {
    let title = string_field(body, "title")?;
    if let Some(t) = &title {
        if t.trim().is_empty() || t.chars().count() > TITLE_MAX {
            return Err(ApiError::bad_request(
                V1_PATH,
                format!("body field title must be 1 to {TITLE_MAX} characters, not blank"),
            ));
        }
    }
    Ok(title)
}

/// `activity_links`: whether an activity alone links a task (fault task-activity-link-refused says
/// no).
fn parse_new_task(body: &Map<String, Value>, activity_links: bool) -> Result<NewTask, ApiError> {
    let input = NewTask {
        title: title_field(body)?
            .ok_or_else(|| ApiError::bad_request(V1_PATH, "body field title is required"))?,
        description: string_field(body, "description")?,
        phone_number_id: id_field(body, "phoneNumberId", "PN")?,
        conversation_id: id_field(body, "conversationId", "CN")?,
        activity_id: id_field(body, "activityId", "AC")?,
        due_date: date_field(body, "dueDate")?,
    };
    if input.phone_number_id.is_none()
        && input.conversation_id.is_none()
        && (input.activity_id.is_none() || !activity_links)
    {
        return Err(ApiError::bad_request(
            V1_PATH,
            "a task is linked to a phone number, a conversation or an activity: send phoneNumberId, conversationId or activityId",
        ));
    }
    Ok(input)
}

/// The revision a task shows: frozen at 1 when a fault says so.
fn shown_revision(task: &Task, faults: &FaultSet) -> u64 {
    if faults.has(Fault::TaskRevisionUnchanged) {
        1
    } else if faults.has(Fault::TaskRevisionIgnoresLinks) {
        content_etag(task)
    } else {
        task.revision
    }
}

/// Fault task-revision-ignores-links: the revision is an ETag (FNV-1a) over the columns of the
/// task row only; assignees, due date and links live elsewhere and do not move it.
fn content_etag(task: &Task) -> u64 {
    let text = format!(
        "{}\u{1f}{}\u{1f}{}",
        task.title,
        task.description.as_deref().unwrap_or_default(),
        task.completed
    );
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h: u64, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// Fault task-due-date-stored-local: the session's zone is Pacific and the column has no zone,
/// so the instant is written as Pacific wall time and read back as if it were UTC.
fn stored_due_date(faults: &FaultSet, due: OffsetDateTime) -> OffsetDateTime {
    let due = millis_int32(faults, due);
    let due = if faults.has(Fault::TaskDueDateDayFirst) {
        day_first(due)
    } else {
        due
    };
    // Fault task-due-date-epoch-i32: the column is a signed 32-bit Unix timestamp, which wraps.
    let due = if faults.has(Fault::TaskDueDateEpochI32) {
        epoch_i32(due)
    } else {
        due
    };
    // Fault task-due-date-dst-fixed-offset: written as Los Angeles wall time (-07:00 in summer),
    // read back with the fixed offset -08:00, so a summer instant comes back an hour late.
    if faults.has(Fault::TaskDueDateDstFixedOffset) && pacific_daylight_time(due) {
        return due + time::Duration::hours(1);
    }
    match time::UtcOffset::from_hms(-8, 0, 0) {
        Ok(local) if faults.has(Fault::TaskDueDateStoredLocal) => {
            due.to_offset(local).replace_offset(time::UtcOffset::UTC)
        }
        _ => due,
    }
}

/// Fault task-due-date-epoch-i32: the instant's whole seconds kept in an `i32`, which wraps past
/// 2038-01-19T03:14:07Z (the fraction is a column of its own).
fn epoch_i32(due: OffsetDateTime) -> OffsetDateTime {
    let wrapped = due.unix_timestamp() as i32;
    OffsetDateTime::from_unix_timestamp(i64::from(wrapped))
        .ok()
        .and_then(|t| t.replace_nanosecond(due.nanosecond()).ok())
        .unwrap_or(due)
}

/// Fault task-due-date-leap-day-refused: the days-per-month table gives February 28 days.
fn leap_day_refused(faults: &FaultSet, due: Option<OffsetDateTime>) -> Result<(), ApiError> {
    let leap_day = due.is_some_and(|d| d.month() == time::Month::February && d.day() == 29);
    if leap_day && faults.has(Fault::TaskDueDateLeapDayRefused) {
        return Err(ApiError::bad_request(
            V1_PATH,
            "body field dueDate is not a valid date",
        ));
    }
    Ok(())
}

/// Fault task-create-single-link: one polymorphic pair of link columns keeps one link, the
/// conversation first, then the phone number, then the activity.
fn single_link(faults: &FaultSet, input: &mut NewTask) {
    if !faults.has(Fault::TaskCreateSingleLink) {
        return;
    }
    if input.conversation_id.is_some() {
        input.phone_number_id = None;
        input.activity_id = None;
    } else if input.phone_number_id.is_some() {
        input.activity_id = None;
    }
}

/// Fault task-due-date-millis-int32: the epoch milliseconds of the due date go through a
/// bitwise `| 0`, which keeps their low 32 bits as a signed integer.
fn millis_int32(faults: &FaultSet, due: OffsetDateTime) -> OffsetDateTime {
    if !faults.has(Fault::TaskDueDateMillisInt32) {
        return due;
    }
    let millis = (due.unix_timestamp_nanos() / 1_000_000) as i64;
    let wrapped = i64::from(millis as i32);
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(wrapped) * 1_000_000).unwrap_or(due)
}

/// Fault task-due-date-day-first: a locale parser set to day first reads `2026-03-04` as the 3rd
/// of April; a day above 12 cannot be a month, and such a date is read right.
fn day_first(due: OffsetDateTime) -> OffsetDateTime {
    let (month, day) = (u8::from(due.month()), due.day());
    if day > 12 || day == month {
        return due;
    }
    let Ok(swapped) = time::Month::try_from(day) else {
        return due;
    };
    time::Date::from_calendar_date(due.year(), swapped, month)
        .map(|date| due.replace_date(date))
        .unwrap_or(due)
}

/// Whether `at` falls in US Pacific daylight saving time: from the second Sunday of March, 2:00
/// PST (10:00 UTC), to the first Sunday of November, 2:00 PDT (09:00 UTC).
fn pacific_daylight_time(at: OffsetDateTime) -> bool {
    let at = at.to_offset(time::UtcOffset::UTC);
    let year = at.year();
    let sunday = |month: time::Month, nth: u8| {
        time::Date::from_calendar_date(year, month, 1)
            .ok()
            .map(|first| {
                let days = (7 - first.weekday().number_days_from_sunday()) % 7;
                first + time::Duration::days(i64::from(days) + 7 * i64::from(nth - 1))
            })
    };
    let (Some(start), Some(end)) = (
        sunday(time::Month::March, 2),
        sunday(time::Month::November, 1),
    ) else {
        return false;
    };
    let start = start.with_hms(10, 0, 0).map(|d| d.assume_utc());
    let end = end.with_hms(9, 0, 0).map(|d| d.assume_utc());
    matches!((start, end), (Ok(s), Ok(e)) if at >= s && at < e)
}

/// Fault task-title-nul-500: PostgreSQL text columns refuse the NUL character, and the driver's
/// error reaches the client as a 500.
fn nul_refused(faults: &FaultSet, texts: &[Option<&str>]) -> Result<(), ApiError> {
    if faults.has(Fault::TaskTitleNul500) && texts.iter().flatten().any(|t| t.contains('\0')) {
        return Err(ApiError::for_path(
            V1_PATH,
            StatusCode::INTERNAL_SERVER_ERROR,
            "invalid byte sequence for encoding \"UTF8\": 0x00",
        ));
    }
    Ok(())
}

/// Fault task-title-utf8mb3-truncated: the task columns are 3-byte utf8 and the database runs
/// without strict mode, so a value is cut (with a warning nobody reads) at its first character
/// outside the Basic Multilingual Plane.
fn utf8mb3_column(faults: &FaultSet, text: String) -> String {
    if !faults.has(Fault::TaskTitleUtf8mb3Truncated) {
        return text;
    }
    match text.char_indices().find(|(_, c)| *c > '\u{FFFF}') {
        Some((at, _)) => text[..at].to_string(),
        None => text,
    }
}

/// The phone number a task event is routed with: the task's own, or under fault
/// task-events-routed-by-creator-line the first workspace number its creator is a user of.
fn event_line(store: &crate::store::Store, task: &Task, faults: &FaultSet) -> Option<String> {
    if !faults.has(Fault::TaskEventsRoutedByCreatorLine) {
        return task.phone_number_id.clone();
    }
    store
        .workspace()
        .numbers
        .iter()
        .find(|n| n.users.contains(&task.created_by))
        .map(|n| n.id.clone())
}

fn task_json(task: &Task, faults: &FaultSet) -> Value {
    let mut v = task.to_json(shown_revision(task, faults));
    // Fault task-is-deleted-from-completed: the serializer maps isDeleted from completed.
    if faults.has(Fault::TaskIsDeletedFromCompleted) {
        v["isDeleted"] = json!(task.completed);
    }
    if faults.has(Fault::TaskCompletedString) {
        v["completed"] = json!(task.completed.to_string());
        v["isDeleted"] = json!(task.is_deleted.to_string());
    }
    if faults.has(Fault::TaskCreatedAtServerLocal) {
        let shifted = v["createdAt"]
            .as_str()
            .and_then(|t| OffsetDateTime::parse(t, &Rfc3339).ok())
            .map(|t| t - time::Duration::hours(5));
        if let Some(t) = shifted.and_then(|t| t.format(&Rfc3339).ok()) {
            v["createdAt"] = json!(t);
        }
    }
    // Fault task-due-date-week-year: the ISO week-based year where the calendar year was meant.
    if let Some(due) = task
        .due_date
        .filter(|_| faults.has(Fault::TaskDueDateWeekYear))
    {
        if let Some(shown) = v["dueDate"].as_str() {
            v["dueDate"] = json!(crate::quirks::week_based_year(shown, due));
        }
    }
    // Fault task-due-date-midnight-date-only: a due date at midnight is an all-day task, shown
    // as its date.
    if faults.has(Fault::TaskDueDateMidnightDateOnly) {
        if let Some(date) = v["dueDate"]
            .as_str()
            .and_then(|d| d.strip_suffix("T00:00:00.000Z"))
        {
            v["dueDate"] = json!(date);
        }
    }
    // Fault task-created-at-naive: a timestamp-without-time-zone column, shown as it reads.
    if faults.has(Fault::TaskCreatedAtNaive) {
        if let Some(naive) = v["createdAt"].as_str().and_then(|t| t.strip_suffix('Z')) {
            v["createdAt"] = json!(naive);
        }
    }
    v
}

async fn create(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    body: Body,
) -> Response {
    // Fault task-limit-race: the open tasks are counted in a first transaction, and the insert
    // comes a round trip later without counting again.
    let counted_first = app
        .switches()
        .faults
        .has(Fault::TaskLimitRace)
        .then(|| app.store().tasks().open_count());
    if counted_first.is_some() {
        tokio::time::sleep(RACE_ROUND_TRIP).await;
    }
    let body = input::json_object(body, V1_PATH).await;
    let result = body.and_then(|body| {
        let faults = &app.switches().faults;
        let mut input = parse_new_task(&body, !faults.has(Fault::TaskActivityLinkRefused))?;
        leap_day_refused(faults, input.due_date)?;
        single_link(faults, &mut input);
        input.due_date = input.due_date.map(|d| stored_due_date(faults, d));
        // Fault task-create-ignores-due-date: dueDate is not among the serializer's fields.
        if faults.has(Fault::TaskCreateIgnoresDueDate) {
            input.due_date = None;
        }
        if faults.has(Fault::TaskCreateIgnoresTitle) {
            input.title = "Untitled task".to_string();
        }
        input.title = utf8mb3_column(faults, input.title);
        input.description = input.description.map(|d| utf8mb3_column(faults, d));
        nul_refused(
            faults,
            &[Some(input.title.as_str()), input.description.as_deref()],
        )?;
        let mut store = app.store();
        let tasks = store.tasks_mut();
        // Fault task-limit-counts-run-only: the tasks the workspace had before (seeded in
        // 2026-01) do not count toward the limit.
        let open = if let Some(open) = counted_first {
            open
        } else if faults.has(Fault::TaskLimitCountsRunOnly) {
            tasks
                .visible()
                .iter()
                .filter(|t| {
                    t.is_open() && t.created_at > time::macros::datetime!(2026-02-01 00:00 UTC)
                })
                .count()
        } else if faults.has(Fault::TaskLimitCountsCompleted) {
            // Fault task-limit-counts-completed: every live task counted, completed ones too.
            tasks.visible().len()
        } else if faults.has(Fault::TaskLimitCountsDeleted) {
            // Fault task-limit-counts-deleted: the count query lacks `is_deleted = false`.
            tasks.not_completed_count()
        } else if faults.has(Fault::TaskOpenCounterSkipsReopen) {
            // Fault task-open-counter-skips-reopen: the counter never saw the reopens.
            tasks.open_count().saturating_sub(tasks.uncounted_reopens)
        } else {
            tasks.open_count()
        };
        // Fault task-limit-off-by-one: the check reads `open > limit`.
        let full = if faults.has(Fault::TaskLimitOffByOne) {
            open > OPEN_TASK_LIMIT
        } else {
            open >= OPEN_TASK_LIMIT
        };
        if full && !faults.has(Fault::TaskLimitNotEnforced) {
            // Fault task-limit-refusal-still-creates: the insert ran before the limit check.
            if faults.has(Fault::TaskLimitRefusalStillCreates) {
                tasks.create(
                    input.clone(),
                    fixtures::ORG_ID,
                    caller.user_id,
                    OffsetDateTime::now_utc(),
                );
            }
            // Fault task-created-fired-on-limit-refusal: the event is published before the check.
            if faults.has(Fault::TaskCreatedFiredOnLimitRefusal) {
                let ghost = TaskStore::default().create(
                    input,
                    fixtures::ORG_ID,
                    caller.user_id,
                    OffsetDateTime::now_utc(),
                );
                let jobs = crate::deliveries::fire(
                    &app,
                    &mut store,
                    "task.created",
                    ghost.phone_number_id.as_deref(),
                    &ghost.task_id,
                    task_json(&ghost, faults),
                );
                drop(store);
                crate::deliveries::dispatch(&app, jobs);
            }
            // Fault task-limit-rate-limited-429: the gateway's quota plugin answers the limit.
            if faults.has(Fault::TaskLimitRateLimited429) {
                return Err(ApiError::for_path(
                    V1_PATH,
                    StatusCode::TOO_MANY_REQUESTS,
                    format!("quota exceeded: {OPEN_TASK_LIMIT} open tasks"),
                ));
            }
            // Fault task-limit-raised-403: the quota raised as the framework's PermissionDenied.
            if faults.has(Fault::TaskLimitRaised403) {
                return Err(ApiError::for_path(
                    V1_PATH,
                    StatusCode::FORBIDDEN,
                    format!("the workspace has reached its limit of {OPEN_TASK_LIMIT} open tasks"),
                ));
            }
            return Err(limit_reached(faults));
        }
        let task = tasks.create(
            input,
            fixtures::ORG_ID,
            caller.user_id,
            OffsetDateTime::now_utc(),
        );
        // Fault task-conversation-link-unique: the link row is upserted under its UNIQUE index.
        if faults.has(Fault::TaskConversationLinkUnique) {
            tasks.move_conversation_link(&task);
        }
        // Fault task-assignees-default-shared: the model's default `assignees = []` is one list
        // object, which every task created without assignees holds.
        if faults.has(Fault::TaskAssigneesDefaultShared) {
            tasks.shared_assignees.insert(task.task_id.clone());
        }
        let json = task_json(&task, faults);
        let line = event_line(&store, &task, faults);
        let jobs = crate::deliveries::fire(
            &app,
            &mut store,
            "task.created",
            line.as_deref(),
            &task.task_id,
            json.clone(),
        );
        drop(store);
        crate::deliveries::dispatch(&app, jobs);
        Ok(reply::data(StatusCode::CREATED, unsaved_id(faults, json)))
    });
    // Fault task-400-contacts-code: the validation error class shared with the contacts module.
    let result = result.map_err(|e| {
        if e.status() == StatusCode::BAD_REQUEST
            && app.switches().faults.has(Fault::TaskValidationContactsCode)
        {
            e.with_code("0801400")
                .with_title("Invalid Custom Field Item")
        } else {
            e
        }
    });
    let mut response = respond(&app, result);
    if response.status() == StatusCode::TOO_MANY_REQUESTS {
        response.headers_mut().insert(
            axum::http::header::RETRY_AFTER,
            axum::http::HeaderValue::from_static("60"),
        );
    }
    response
}

/// Fault task-create-answers-unsaved-id: the create answers the object built before the insert,
/// with the id the application generated; the row took the database default's.
fn unsaved_id(faults: &FaultSet, mut json: Value) -> Value {
    if faults.has(Fault::TaskCreateAnswersUnsavedId) {
        json["taskId"] = json!(format!("TK{:016x}", rand::random::<u64>()));
    }
    json
}

async fn list(State(app): State<App>, RawQuery(raw): RawQuery) -> Response {
    let query = Query::parse(raw.as_deref());
    let result = (|| {
        let faults = &app.switches().faults;
        let bad = |e: PageQueryError| ApiError::bad_request(V1_PATH, e.to_string());
        let size = pagination::max_results(query.first("maxResults"), 10, 100).map_err(bad)?;
        // Fault tasks-page-size-lost-with-token: a continued page takes the default size.
        let size = if query.first("pageToken").is_some()
            && faults.has(Fault::TasksPageSizeLostWithToken)
        {
            10
        } else {
            size
        };
        // Fault tasks-foreign-token-500: the cursor's decoding error is not caught.
        let offset = pagination::page_token(query.first("pageToken")).map_err(|e| {
            if faults.has(Fault::TasksForeignToken500) {
                ApiError::for_path(
                    V1_PATH,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "binascii.Error: Incorrect padding",
                )
            } else {
                bad(e)
            }
        })?;
        let store = app.store();
        // Fault tasks-keyset-whole-second: a continued page resumes after the last task's second.
        let offset =
            if query.first("pageToken").is_some() && faults.has(Fault::TasksKeysetWholeSecond) {
                store.tasks().after_same_second(offset)
            } else {
                offset
            };
        // Fault task-list-index-snapshot: the list reads the search index, whose documents were
        // written on create and never updated or removed.
        let snapshot = faults.has(Fault::TaskListIndexSnapshot);
        let (items, mut next) = if snapshot {
            let (rows, next) = store.tasks().page_where(offset, size, |_| true);
            let items = rows
                .into_iter()
                .map(|t| store.tasks().indexed(&t.task_id).unwrap_or(t))
                .collect();
            (items, next)
        } else {
            store.tasks().page_after(offset, size)
        };
        // Fault tasks-keyset-whole-second: the writer's probe for more rows uses the same cursor.
        if let Some(at) = next.filter(|_| faults.has(Fault::TasksKeysetWholeSecond)) {
            let resumed = store.tasks().after_same_second(at);
            if store.tasks().page_after(resumed, 1).0.is_empty() {
                next = None;
            }
        }
        // Fault tasks-last-single-item-lost: a token only when two or more tasks are left.
        if let Some(at) = next.filter(|_| faults.has(Fault::TasksLastSingleItemLost)) {
            if store.tasks().page_after(at, 2).0.len() == 1 {
                next = None;
            }
        }
        // Fault task-list-drops-newest: the most recently created task is left out.
        let newest = faults
            .has(Fault::TaskListDropsNewest)
            .then(|| store.tasks().visible().into_iter().last())
            .flatten()
            .map(|t| t.task_id.clone());
        let page = Page {
            items: items
                .iter()
                .filter(|t| newest.as_ref() != Some(&t.task_id))
                .map(|t| {
                    let mut v = task_json(t, faults);
                    // Fault tasks-list-created-at-join-collision: `SELECT *` over the join with
                    // the phone number, whose created_at comes last and wins.
                    if let Some(n) = t
                        .phone_number_id
                        .as_deref()
                        .and_then(|p| store.workspace().number(p))
                        .filter(|_| faults.has(Fault::TaskListCreatedAtJoinCollision))
                    {
                        v["createdAt"] = json!(crate::model::timestamp(n.created_at));
                    }
                    // Fault tasks-list-id-not-task-id: the list serializer names the id `id`.
                    if faults.has(Fault::TasksListIdNotTaskId) {
                        if let Some(o) = v.as_object_mut() {
                            if let Some(id) = o.remove("taskId") {
                                o.insert("id".to_string(), id);
                            }
                        }
                    }
                    v
                })
                .collect(),
            total: store.tasks().visible().len(),
            // Fault tasks-token-counts-visible: the token counts the live tasks handed out, and
            // the next page reads it as a row position.
            next_token: next
                .map(|at| {
                    if faults.has(Fault::TasksTokenCountsVisible) {
                        store.tasks().visible_before(at)
                    } else {
                        at
                    }
                })
                .map(pagination::encode_token),
        };
        Ok(reply::json(StatusCode::OK, &task_list_body(page, faults)))
    })();
    respond(&app, result)
}

/// The list body of GET /v1/tasks; fault tasks-list-page-nested wraps the task service's page
/// object in `data` as it is.
fn task_list_body(page: Page<Value>, faults: &FaultSet) -> Value {
    let body = pagination::list_body(page, faults);
    if !faults.has(Fault::TasksListPageNested) {
        return body;
    }
    let mut page = body;
    let items = page
        .as_object_mut()
        .and_then(|o| o.remove("data"))
        .unwrap_or_else(|| json!([]));
    page["items"] = items;
    json!({ "data": page })
}

/// Fault task-get-conversation-expanded: the detail serializer expands the conversation relation
/// into the related object (a reference holding its id).
fn expanded_links(faults: &FaultSet, mut json: Value) -> Value {
    if faults.has(Fault::TaskGetConversationExpanded) {
        if let Some(id) = json["conversationId"].as_str().map(str::to_string) {
            json["conversationId"] = json!({ "id": id });
        }
    }
    json
}

async fn get_one(State(app): State<App>, id: Result<Path<String>, PathRejection>) -> Response {
    let result = task_id_of(&app, id).and_then(|id| {
        let faults = &app.switches().faults;
        let mut store = app.store();
        // Fault task-get-cache-misses-transitions: a read-through cache of the task.
        if faults.has(Fault::TaskGetCacheMissesTransitions) {
            if let Some(cached) = store.tasks().get_cache.get(&id) {
                return Ok(reply::data(
                    StatusCode::OK,
                    expanded_links(faults, task_json(cached, faults)),
                ));
            }
            if let Some(task) = store.tasks().get(&id).filter(|t| !t.is_deleted).cloned() {
                store.tasks_mut().get_cache.insert(id.clone(), task);
            }
        }
        match store.tasks().get(&id) {
            // Fault task-get-open-only: the open-tasks query of the limit check, reused.
            Some(task) if task.completed && faults.has(Fault::TaskGetOpenOnly) => {
                Err(not_found(&id))
            }
            // Fault task-get-without-number-500: the detail reads the phone number's name.
            Some(task)
                if !task.is_deleted
                    && task.phone_number_id.is_none()
                    && faults.has(Fault::TaskGetWithoutNumber500) =>
            {
                Err(ApiError::for_path(
                    V1_PATH,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "AttributeError: 'NoneType' object has no attribute 'name'",
                ))
            }
            Some(task) if !task.is_deleted && faults.has(Fault::TaskGetAnswersFirst) => {
                let first = store.tasks().visible().first().copied().unwrap_or(task);
                Ok(reply::data(StatusCode::OK, task_json(first, faults)))
            }
            Some(task) if !task.is_deleted => Ok(reply::data(
                StatusCode::OK,
                expanded_links(faults, task_json(task, faults)),
            )),
            Some(task) if faults.has(Fault::TaskDeletedStillReadable) => {
                let live = Task {
                    is_deleted: false,
                    ..task.clone()
                };
                Ok(reply::data(StatusCode::OK, task_json(&live, faults)))
            }
            _ => Err(not_found(&id)),
        }
    });
    respond(&app, result)
}

async fn update(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
    body: Body,
) -> Response {
    let body = input::json_object(body, V1_PATH).await;
    let faults = &app.switches().faults;
    let result = task_id(id).and_then(|id| {
        change(&app, &id, "task.updated", |task| {
            let body = body?;
            let title = title_field(&body)?;
            let description = string_field(&body, "description")?;
            // Fault task-put-arguments-swapped: `update_task(id, description, title)`.
            let (title, description) = match (title, description) {
                (Some(t), Some(d)) if faults.has(Fault::TaskPutArgumentsSwapped) => {
                    (Some(d), Some(t))
                }
                sent => sent,
            };
            if title.is_none() && !body.contains_key("description") {
                return Err(ApiError::bad_request(
                    V1_PATH,
                    "send title, description or both",
                ));
            }
            nul_refused(faults, &[title.as_deref(), description.as_deref()])?;
            if let Some(title) = title {
                task.title = utf8mb3_column(faults, title);
            }
            if body.contains_key("description") && !faults.has(Fault::TaskPutIgnoresDescription) {
                let sent = description.map(|d| utf8mb3_column(faults, d));
                // Fault task-put-appends-description: `CONCAT(COALESCE(description, ''), ?)`.
                task.description = match sent {
                    Some(d) if faults.has(Fault::TaskPutAppendsDescription) => {
                        Some(task.description.take().unwrap_or_default() + &d)
                    }
                    sent => sent,
                };
            }
            // Fault task-put-reopens: the task rebuilt from the body comes back open.
            if faults.has(Fault::TaskPutReopens) {
                task.completed = false;
            }
            // Fault task-put-clears-due-date: the task rebuilt from the body has no due date.
            if faults.has(Fault::TaskPutClearsDueDate) {
                task.due_date = None;
            }
            Ok(Changed::Yes)
        })
    });
    respond(&app, result)
}

async fn delete(
    State(app): State<App>,
    headers: axum::http::HeaderMap,
    id: Result<Path<String>, PathRejection>,
) -> Response {
    let result = task_id(id).and_then(|id| {
        let mut linked = None;
        let answer = change(&app, &id, "task.deleted", |task| {
            if_match(&app.switches().faults, &headers, task)?;
            // Fault task-delete-completed-refused: the state machine deletes open tasks only.
            if task.completed && app.switches().faults.has(Fault::TaskDeleteCompletedRefused) {
                return Err(ApiError::bad_request(
                    V1_PATH,
                    "only open tasks can be deleted; reopen the task first",
                ));
            }
            task.is_deleted = true;
            linked = task.conversation_id.clone();
            Ok(Changed::Yes)
        })
        .map(|_| StatusCode::NO_CONTENT.into_response())?;
        // Fault task-delete-unlinks-siblings: the link rows are deleted `WHERE conversation_id =
        // ?` instead of `WHERE task_id = ?`.
        if let Some(conversation) =
            linked.filter(|_| app.switches().faults.has(Fault::TaskDeleteUnlinksSiblings))
        {
            let mut store = app.store();
            for task in store.tasks_mut().iter_mut() {
                if task.conversation_id.as_deref() == Some(conversation.as_str()) {
                    task.conversation_id = None;
                }
            }
        }
        Ok(answer)
    });
    respond(&app, result)
}

/// Fault task-delete-requires-if-match: the delete wants the task's revision in If-Match.
fn if_match(
    faults: &FaultSet,
    headers: &axum::http::HeaderMap,
    task: &Task,
) -> Result<(), ApiError> {
    if !faults.has(Fault::TaskDeleteRequiresIfMatch) {
        return Ok(());
    }
    let revision = shown_revision(task, faults).to_string();
    match headers.get(axum::http::header::IF_MATCH) {
        None => Err(ApiError::for_path(
            V1_PATH,
            StatusCode::PRECONDITION_REQUIRED,
            "this request must be conditional: send If-Match with the task's revision",
        )),
        Some(sent) if sent.as_bytes().trim_ascii() != revision.as_bytes() => {
            Err(ApiError::for_path(
                V1_PATH,
                StatusCode::PRECONDITION_FAILED,
                format!("If-Match does not match the task's revision {revision}"),
            ))
        }
        Some(_) => Ok(()),
    }
}

/// Fault task-reopen-undeletes: reopen brings a deleted task back, open; `None` when the task is
/// not a deleted one.
fn undelete(app: &App, id: &str) -> Option<()> {
    let mut store = app.store();
    let task = store.tasks_mut().get_mut(id).filter(|t| t.is_deleted)?;
    task.is_deleted = false;
    task.completed = false;
    task.revision += 1;
    Some(())
}

/// Whether an operation changed the task (a change moves `revision`).
enum Changed {
    Yes,
    No,
}

/// Applies `op` to a live task and answers `{data: {taskId, revision}}`; a change fires `event`.
fn change(
    app: &App,
    id: &str,
    event: &str,
    op: impl FnOnce(&mut Task) -> Result<Changed, ApiError>,
) -> Result<Response, ApiError> {
    change_data(app, id, event, op).map(|data| reply::data(StatusCode::OK, data))
}

fn change_data(
    app: &App,
    id: &str,
    event: &str,
    op: impl FnOnce(&mut Task) -> Result<Changed, ApiError>,
) -> Result<Value, ApiError> {
    let faults = &app.switches().faults;
    let mut store = app.store();
    let task = match store.tasks_mut().get_mut(id) {
        Some(task) if !task.is_deleted => task,
        _ => return Err(not_found(id)),
    };
    let before = task.clone();
    let mut updated = task.clone();
    let changed = matches!(op(&mut updated)?, Changed::Yes);
    let now = OffsetDateTime::now_utc().unix_timestamp();
    // Fault task-revision-whole-seconds: the revision follows the update time's whole seconds.
    let same_second = faults.has(Fault::TaskRevisionWholeSeconds)
        && store.tasks().revision_seconds.get(id) == Some(&now);
    let task = match store.tasks_mut().get_mut(id) {
        Some(task) => task,
        None => return Err(not_found(id)),
    };
    if changed {
        if !same_second {
            updated.revision += 1;
        }
        *task = updated;
    }
    let task = task.clone();
    if changed && faults.has(Fault::TaskRevisionWholeSeconds) {
        store
            .tasks_mut()
            .revision_seconds
            .insert(id.to_string(), now);
    }
    // Fault task-get-cache-misses-transitions: only PUT and DELETE invalidate the cache.
    if changed
        && matches!(event, "task.updated" | "task.deleted")
        && faults.has(Fault::TaskGetCacheMissesTransitions)
    {
        store.tasks_mut().get_cache.remove(id);
    }
    let data = json!({
        "taskId": task.task_id,
        "revision": shown_revision(&task, faults).to_string(),
    });
    if changed && event == "task.reopened" && faults.has(Fault::TaskOpenCounterSkipsReopen) {
        store.tasks_mut().uncounted_reopens += 1;
    }
    // Fault task-assignees-default-shared: assign and unassign change the shared list in
    // place, so every task holding it sees the change.
    let shares = matches!(event, "task.assigned" | "task.unassigned")
        && faults.has(Fault::TaskAssigneesDefaultShared)
        && store.tasks().shared_assignees.contains(&task.task_id);
    if changed && shares {
        let tasks = store.tasks_mut();
        let sharing: Vec<String> = tasks.shared_assignees.iter().cloned().collect();
        for other in sharing.iter().filter(|o| **o != task.task_id) {
            if let Some(t) = tasks.get_mut(other) {
                t.assignees = task.assignees.clone();
            }
        }
    }
    // Fault task-deleted-not-fired: the soft delete's bulk UPDATE runs no model hook.
    let silent = event == "task.deleted" && faults.has(Fault::TaskDeletedNotFired);
    // Fault task-noop-transitions-fire-events: the save hook publishes without a dirty check.
    let publish = changed || faults.has(Fault::TaskNoopTransitionsFireEvents);
    if publish && !silent {
        let event = if faults.has(Fault::TaskEventsAllUpdated) {
            "task.updated"
        } else {
            event
        };
        // Fault task-event-resource-before-change: the event is built from the task as read.
        let published = if faults.has(Fault::TaskEventResourceBeforeChange) {
            &before
        } else {
            &task
        };
        let line = event_line(&store, &task, faults);
        let jobs = crate::deliveries::fire(
            app,
            &mut store,
            event,
            line.as_deref(),
            &task.task_id,
            task_json(published, faults),
        );
        drop(store);
        crate::deliveries::dispatch(app, jobs);
    }
    Ok(data)
}

async fn transition(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    params: Result<Path<(String, String)>, PathRejection>,
    RawQuery(raw): RawQuery,
    body: Body,
) -> Response {
    let body = optional_object(body).await;
    // Fault task-unassign-user-from-query: the unassign handler, copied from a DELETE route,
    // reads userId from the query string.
    let from_query = app.switches().faults.has(Fault::TaskUnassignUserFromQuery);
    let body = match params.as_ref() {
        Ok(Path((_, action))) if from_query && action == "unassign" => {
            let query = Query::parse(raw.as_deref());
            let mut fields = Map::new();
            if let Some(user) = query.first("userId") {
                fields.insert("userId".to_string(), json!(user));
            }
            body.map(|_| fields)
        }
        _ => body,
    };
    let result = params
        .map_err(|e| {
            ApiError::bad_request(
                V1_PATH,
                format!("path parameter is not valid: {}", e.body_text()),
            )
        })
        .and_then(|Path((id, action))| {
            check_id(&id)?;
            run_transition(&app, &caller, &id, &action, body)
        });
    let response = respond(&app, result);
    if app
        .switches()
        .faults
        .has(Fault::TaskTransitionsResultEnvelope)
    {
        return result_envelope(response).await;
    }
    response
}

/// Fault task-transitions-result-envelope: a transition's success answer passed through in the
/// task service's RPC envelope, `{result: ...}`, instead of `{data: ...}`.
async fn result_envelope(response: Response) -> Response {
    if !response.status().is_success() {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        return Response::from_parts(parts, Body::empty());
    };
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(mut o)) if o.contains_key("data") => {
            let data = o.remove("data").unwrap_or(Value::Null);
            reply::json(parts.status, &json!({ "result": data }))
        }
        _ => Response::from_parts(parts, Body::from(bytes)),
    }
}

/// POST /v1/tasks/{taskId}/unassign: the named user is no longer assigned; the answer is
/// `{data: {taskId, revision}}`.
fn unassign(
    app: &App,
    id: &str,
    body: Result<Map<String, Value>, ApiError>,
) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    // Fault task-unassign-answers-previous-revision: the answer is built from the task
    // read before the save.
    let previous = faults
        .has(Fault::TaskUnassignAnswersPreviousRevision)
        .then(|| {
            let store = app.store();
            store.tasks().get(id).map(|t| shown_revision(t, faults))
        })
        .flatten();
    let mut data = change_data(app, id, "task.unassigned", |task| {
        let user = required_id(&body?, "userId", "US")?;
        if faults.has(Fault::TaskUnassignKeepsUser) {
            return Ok(Changed::Yes);
        }
        // Fault task-unassign-removes-last: the newest assignee goes, not the one named.
        if faults.has(Fault::TaskUnassignRemovesLast) && task.assignees.contains(&user) {
            task.assignees.pop();
            return Ok(Changed::Yes);
        }
        let before = task.assignees.len();
        // Fault task-assign-retry-duplicates: one entry of the user is removed.
        if faults.has(Fault::TaskAssignRetryDuplicates) {
            if let Some(at) = task.assignees.iter().position(|u| *u == user) {
                task.assignees.remove(at);
            }
        } else {
            task.assignees.retain(|u| *u != user);
        }
        Ok(if task.assignees.len() == before {
            Changed::No
        } else {
            Changed::Yes
        })
    })?;
    if let Some(revision) = previous {
        data["revision"] = json!(revision.to_string());
    }
    if faults.has(Fault::TaskUnassignNoRevision) {
        if let Some(data) = data.as_object_mut() {
            data.remove("revision");
        }
    }
    // Fault task-unassign-revision-integer: the counter column answered as read.
    if faults.has(Fault::TaskUnassignRevisionInteger) {
        if let Some(n) = data["revision"]
            .as_str()
            .and_then(|r| r.parse::<u64>().ok())
        {
            data["revision"] = json!(n);
        }
    }
    Ok(reply::data(StatusCode::OK, data))
}

/// POST /v1/tasks/{taskId}/link-conversation: the task is linked to the conversation named.
fn link_conversation(
    app: &App,
    id: &str,
    body: Result<Map<String, Value>, ApiError>,
) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let answer = change(app, id, "task.linked", |task| {
        let body = body?;
        // Fault task-link-conversation-prefix-unchecked: the unlink validator, copied.
        let linked = if faults.has(Fault::TaskLinkConversationPrefixUnchecked) {
            string_field(&body, "conversationId")?.ok_or_else(|| {
                ApiError::bad_request(V1_PATH, "body field conversationId is required")
            })?
        } else {
            required_id(&body, "conversationId", "CN")?
        };
        // Fault task-link-keeps-existing-conversation: `COALESCE(conversation_id, ?)`.
        if task.conversation_id.is_none() || !faults.has(Fault::TaskLinkKeepsExistingConversation) {
            task.conversation_id = Some(linked);
        }
        Ok(Changed::Yes)
    })?;
    // Fault task-conversation-link-unique: the link row is upserted under its UNIQUE index,
    // which moves it away from the task that had it.
    if faults.has(Fault::TaskConversationLinkUnique) {
        let mut store = app.store();
        if let Some(task) = store.tasks().get(id).cloned() {
            store.tasks_mut().move_conversation_link(&task);
        }
    }
    Ok(answer)
}

fn run_transition(
    app: &App,
    caller: &Caller,
    id: &str,
    action: &str,
    body: Result<Map<String, Value>, ApiError>,
) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    // Fault task-limit-blocks-transitions: the limit check guards every operation but complete
    // and reopen (which check it themselves), though none of them opens a task.
    if faults.has(Fault::TaskLimitBlocksTransitions)
        && !matches!(action, "complete" | "reopen")
        && app.store().tasks().open_count() >= OPEN_TASK_LIMIT
    {
        return Err(limit_reached(faults));
    }
    match action {
        "complete" => change(app, id, "task.completed", |task| {
            // Fault task-complete-toggles: the app's completion toggle, `completed = !completed`.
            if task.completed && faults.has(Fault::TaskCompleteToggles) {
                body?;
                task.completed = false;
                return Ok(Changed::Yes);
            }
            if task.completed || faults.has(Fault::TaskCompleteNoEffect) {
                return Ok(Changed::No);
            }
            body?;
            // Fault task-complete-requires-assignee: the app's workflow guard.
            if task.assignees.is_empty() && faults.has(Fault::TaskCompleteRequiresAssignee) {
                return Err(ApiError::bad_request(
                    V1_PATH,
                    "assign the task before completing it",
                ));
            }
            task.completed = true;
            Ok(Changed::Yes)
        }),
        "reopen" if faults.has(Fault::TaskReopenUndeletes) && undelete(app, id).is_some() => {
            let store = app.store();
            let task = store.tasks().get(id).ok_or_else(|| not_found(id))?;
            Ok(reply::data(
                StatusCode::OK,
                json!({"taskId": task.task_id, "revision": shown_revision(task, faults).to_string()}),
            ))
        }
        "reopen" => {
            let open = app.store().tasks().open_count();
            // Fault task-reopen-fires-completed: the toggle handler's one event name.
            let event = if faults.has(Fault::TaskReopenFiresCompleted) {
                "task.completed"
            } else {
                "task.reopened"
            };
            change(app, id, event, |task| {
                body?;
                if !task.completed || faults.has(Fault::TaskReopenNoEffect) {
                    return Ok(Changed::No);
                }
                // Fault task-reopen-limit-counts-itself: `open + 1 >= limit`.
                let counted = if faults.has(Fault::TaskReopenLimitCountsItself) {
                    open + 1
                } else {
                    open
                };
                if counted >= OPEN_TASK_LIMIT && !faults.has(Fault::TaskReopenIgnoresLimit) {
                    // Fault task-reopen-limit-generic-title: the HTTP reason as title.
                    if faults.has(Fault::TaskReopenLimitGenericTitle) {
                        return Err(limit_reached(faults).with_title("Payment Required"));
                    }
                    return Err(limit_reached(faults));
                }
                task.completed = false;
                // Fault task-reopen-clears-due-date: reopened with a new task's defaults.
                if faults.has(Fault::TaskReopenClearsDueDate) {
                    task.due_date = None;
                }
                Ok(Changed::Yes)
            })
        }
        "assign" => change(app, id, "task.assigned", |task| {
            let body = body?;
            if faults.has(Fault::TaskAssignWithoutUserAccepted) && !body.contains_key("userId") {
                return Ok(Changed::No);
            }
            let user = required_id(&body, "userId", "US")?;
            // Fault task-assign-replaces-assignees: the named user becomes the only assignee.
            if faults.has(Fault::TaskAssignReplacesAssignees) {
                task.assignees.clear();
            }
            // Fault task-assign-retry-duplicates: no look at who is assigned already.
            if !faults.has(Fault::TaskAssignRetryDuplicates) {
                task.assignees.retain(|u| *u != user);
            }
            task.assignees.push(user);
            task.assigned_by = Some(caller.user_id.to_string());
            Ok(Changed::Yes)
        }),
        "unassign" => unassign(app, id, body),
        "change-due-date" => change(app, id, "task.duedate.updated", |task| {
            let body = body?;
            let due = match date_field(&body, "dueDate") {
                Err(_) if faults.has(Fault::TaskInvalidDueDateAccepted) => return Ok(Changed::No),
                Err(_) if faults.has(Fault::TaskDueDateFreeText) => {
                    Some(OffsetDateTime::now_utc() + time::Duration::days(7))
                }
                parsed => parsed?,
            }
            .ok_or_else(|| ApiError::bad_request(V1_PATH, "body field dueDate is required"))?;
            leap_day_refused(faults, Some(due))?;
            // Fault task-due-date-offset-dropped: the wall time kept, the offset dropped.
            let due = if faults.has(Fault::TaskDueDateOffsetDropped) {
                due.replace_offset(time::UtcOffset::UTC)
            } else {
                due
            };
            // Fault task-due-date-truncated: only the date is kept.
            let due = if faults.has(Fault::TaskDueDateTruncated) {
                due.to_offset(time::UtcOffset::UTC)
                    .replace_time(time::Time::MIDNIGHT)
            } else {
                due
            };
            task.due_date = Some(stored_due_date(faults, due));
            Ok(Changed::Yes)
        }),
        // Fault duedate-removed-fires-updated: the event name copied from change-due-date.
        "remove-due-date" => change(
            app,
            id,
            if faults.has(Fault::DuedateRemovedFiresUpdated) {
                "task.duedate.updated"
            } else {
                "task.duedate.removed"
            },
            |task| {
                body?;
                if task.due_date.is_none() || faults.has(Fault::TaskDueDateNotCleared) {
                    return Ok(Changed::No);
                }
                task.due_date = None;
                Ok(Changed::Yes)
            },
        ),
        "link-conversation" => link_conversation(app, id, body),
        "unlink-conversation" => change(app, id, "task.unlinked", |task| {
            // A conversationId may be sent to name the link; the task has at most one.
            id_field(&body?, "conversationId", "CN")?;
            if task.conversation_id.is_none() || faults.has(Fault::TaskUnlinkNoEffect) {
                return Ok(Changed::No);
            }
            task.conversation_id = None;
            // Fault task-unlink-clears-phone-number: every link column is cleared together.
            if faults.has(Fault::TaskUnlinkClearsPhoneNumber) {
                task.phone_number_id = None;
            }
            Ok(Changed::Yes)
        }),
        other => Err(ApiError::for_path(
            V1_PATH,
            StatusCode::NOT_FOUND,
            format!("no endpoint POST /v1/tasks/{{taskId}}/{other}"),
        )),
    }
}
