//! Tasks: every `/v1/tasks` operation, the open-task limit, `task.*` events (and `task.overdue`
//! when an open task's due date passes). OWNER: contacts-tasks.

pub mod model;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::app::App;
use crate::auth::{self, Caller};
use crate::contacts::util::{
    self, chars, err_item, has_control, nanos, now, parse_ts, query_pairs, seed_ts,
};
use crate::directory::{self, Directory};
use crate::errors;

use model::{Task, revision};

/// The open-task limit of every workspace (open: neither completed nor deleted).
pub const OPEN_TASK_LIMIT: usize = 30;
/// Prefix of task ids.
const ID_PREFIX: &str = "tsk_";
/// Prefix of task page tokens.
const TOKEN_PREFIX: &str = "tq1.";
/// Page size bounds of the task list (no default: `maxResults` is required).
const MAX_PAGE: usize = 50;
/// Most assignees of one task.
const MAX_ASSIGNEES: usize = 10;
/// The name of the due date in a create body (renamed in the profile's `requestFields`).
const CREATE_DUE_FIELD: &str = "dueAt";
/// Bounds of text fields.
const TITLE_MAX: usize = 200;
const DESCRIPTION_MAX: usize = 5000;

/// Tasks of every workspace.
pub struct Store {
    inner: Mutex<Inner>,
}

struct Inner {
    tasks: Vec<Task>,
    next_seq: u64,
}

#[allow(clippy::too_many_arguments)]
fn seed(
    id: &str,
    seq: u64,
    org: &str,
    number: &str,
    title: &str,
    description: Option<&str>,
    due: Option<&str>,
    assignees: &[&str],
    by: &str,
    created: &str,
    completed: Option<&str>,
) -> Task {
    let changes = 1 + assignees.len() as u64 + u64::from(completed.is_some());
    Task {
        id: id.to_string(),
        org_id: org.to_string(),
        seq,
        phone_number_id: Some(number.to_string()),
        conversation_id: None,
        activity_id: None,
        title: title.to_string(),
        description: description.map(str::to_string),
        due: due.map(seed_ts),
        assignees: assignees.iter().map(|s| s.to_string()).collect(),
        assigned_by: (!assignees.is_empty()).then(|| by.to_string()),
        created_by: by.to_string(),
        created_at: seed_ts(created),
        updated_at: seed_ts(completed.unwrap_or(created)),
        completed_at: completed.map(seed_ts),
        completed_by: completed.map(|_| by.to_string()),
        deleted: false,
        changes,
        revision: format!("{changes}.{}", &id[4..12]),
        overdue_fired_for: due.map(seed_ts),
    }
}

impl Store {
    /// The seeded store.
    pub fn seeded(_directory: &Directory) -> Store {
        use directory::*;
        let tasks = vec![
            seed(
                "tsk_8d2kq4w7z1m9x3v5b0c6",
                1,
                PRIMARY_ORG,
                MAIN_NUMBER,
                "Call back about the crown estimate",
                Some("Patient asked for a payment plan; check with billing first."),
                Some("2025-10-20T17:00:00.000Z"),
                &[MEMBER_USER],
                OWNER_USER,
                "2025-10-14T09:12:44.120Z",
                None,
            ),
            seed(
                "tsk_3f6h9j2l5n8p1r4t7v0x",
                2,
                PRIMARY_ORG,
                MAIN_NUMBER,
                "Send insurance pre-authorization",
                Some("Delta PPO form 12-B, signed copy in the chart."),
                None,
                &[OWNER_USER],
                OWNER_USER,
                "2025-10-15T14:03:10.771Z",
                Some("2025-10-16T10:30:00.000Z"),
            ),
            seed(
                "tsk_q7w4e1r8t5y2u9i6o3p0",
                3,
                PRIMARY_ORG,
                SECOND_NUMBER,
                "Confirm Friday hygiene slots",
                None,
                Some("2031-03-14T16:00:00.000Z"),
                &[RESTRICTED_USER],
                OWNER_USER,
                "2025-11-01T08:45:00.000Z",
                None,
            ),
            seed(
                "tsk_z5x8c1v4b7n0m3a6s9d2",
                4,
                PRIMARY_ORG,
                MAIN_NUMBER,
                "Update the recall list for December",
                Some(""),
                None,
                &[],
                MEMBER_USER,
                "2025-11-02T11:20:31.402Z",
                None,
            ),
            seed(
                "tsk_g1h2j3k4l5a6s7d8f9q0",
                5,
                INTL_DISABLED_ORG,
                INTL_DISABLED_NUMBER,
                "Renew the lease for unit 4B",
                None,
                None,
                &[INTL_DISABLED_USER],
                INTL_DISABLED_USER,
                "2025-09-09T09:09:09.090Z",
                None,
            ),
        ];
        Store {
            inner: Mutex::new(Inner { tasks, next_seq: 6 }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The profile fixtures of this area's seeded data (names and meanings: docs/profile.md).
    pub fn fixtures(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("open_task_limit".into(), json!(OPEN_TASK_LIMIT));
        m.insert(
            "requestFields".into(),
            json!({ "task.dueDate": CREATE_DUE_FIELD }),
        );
        m
    }
}

// ------------------------------------------------------------------------------------------
// Errors.

/// Why a task request is refused.
enum TErr {
    Bad(String, Vec<Value>),
    Forbidden(String),
    NotFound(String),
    Limit(String),
}

fn bad(path: &str, message: String, expected: &str, value: &Value) -> TErr {
    let item = err_item(path, &message, expected, value);
    TErr::Bad(message, vec![item])
}

fn plain(message: impl Into<String>) -> TErr {
    TErr::Bad(message.into(), Vec::new())
}

fn render_err(e: TErr) -> Response {
    match e {
        TErr::Bad(m, errs) => {
            errors::v1_errors(StatusCode::BAD_REQUEST, "0600400", "Bad Request", m, errs)
        }
        TErr::Forbidden(m) => errors::v1(StatusCode::FORBIDDEN, "0600403", "Forbidden", m),
        TErr::NotFound(m) => errors::v1(StatusCode::NOT_FOUND, "0600404", "Not Found", m),
        TErr::Limit(m) => errors::v1(
            StatusCode::PAYMENT_REQUIRED,
            "0600402",
            "Open Tasks Limit Reached",
            m,
        ),
    }
}

fn unauthorized() -> Response {
    errors::v1(
        StatusCode::UNAUTHORIZED,
        "0600401",
        "Unauthorized",
        "A valid API key is required in the Authorization header",
    )
}

fn not_found(id: &str) -> TErr {
    let shown: String = id.chars().take(80).collect();
    TErr::NotFound(format!(
        "No task with id `{shown}` exists in this workspace"
    ))
}

fn limit_reached() -> TErr {
    TErr::Limit(format!(
        "This workspace already has {OPEN_TASK_LIMIT} open tasks, its limit; complete or delete one first"
    ))
}

fn ok(data: Value, status: StatusCode) -> Response {
    errors::json_response(status, &json!({ "data": data }))
}

// ------------------------------------------------------------------------------------------
// Body fields.

/// The JSON object of a body; an empty body is an empty object.
fn body_object(headers: &HeaderMap, body: &[u8]) -> Result<Map<String, Value>, TErr> {
    match util::json_object(headers, body) {
        Ok(m) => Ok(m.unwrap_or_default()),
        Err(e) => Err(plain(e.message())),
    }
}

fn only(body: &Map<String, Value>, allowed: &[&str], op: &str) -> Result<(), TErr> {
    if let Some((k, v)) = body.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
        let list = if allowed.is_empty() {
            "no fields".to_string()
        } else {
            allowed.join(", ")
        };
        return Err(bad(
            &format!("/{k}"),
            format!("Unknown field `{k}`; {op} takes {list}"),
            "never",
            v,
        ));
    }
    Ok(())
}

/// A required string with the given id prefix.
fn id_field(body: &Map<String, Value>, key: &str, prefix: &str) -> Result<Option<String>, TErr> {
    match body.get(key) {
        None => Ok(None),
        Some(Value::String(s))
            if s.starts_with(prefix)
                && s.len() > prefix.len()
                && s.len() <= 64
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
        {
            Ok(Some(s.clone()))
        }
        Some(v) => Err(bad(
            &format!("/{key}"),
            format!("`{key}` must be an id of the form ^{prefix}(.*)$"),
            "string",
            v,
        )),
    }
}

fn require<T>(v: Option<T>, key: &str, expected: &str) -> Result<T, TErr> {
    v.ok_or_else(|| {
        bad(
            &format!("/{key}"),
            format!("`{key}` is required"),
            expected,
            &Value::Null,
        )
    })
}

fn title(body: &Map<String, Value>) -> Result<Option<String>, TErr> {
    match body.get("title") {
        None => Ok(None),
        Some(Value::String(s))
            if !s.trim().is_empty() && chars(s) <= TITLE_MAX && !has_control(s) =>
        {
            Ok(Some(s.clone()))
        }
        Some(v) => Err(bad(
            "/title",
            format!("`title` must be a non-blank string of at most {TITLE_MAX} characters"),
            "string",
            v,
        )),
    }
}

fn description(body: &Map<String, Value>) -> Result<Option<String>, TErr> {
    match body.get("description") {
        None => Ok(None),
        Some(Value::String(s))
            if chars(s) <= DESCRIPTION_MAX
                && !s
                    .chars()
                    .any(|c| c.is_control() && !matches!(c, '\n' | '\r' | '\t')) =>
        {
            Ok(Some(s.clone()))
        }
        Some(v) => Err(bad(
            "/description",
            format!("`description` must be a string of at most {DESCRIPTION_MAX} characters"),
            "string",
            v,
        )),
    }
}

fn due_date(body: &Map<String, Value>, key: &str) -> Result<Option<OffsetDateTime>, TErr> {
    let path = format!("/{key}");
    match body.get(key) {
        None => Ok(None),
        Some(v @ Value::String(s)) => parse_ts(s).map(Some).ok_or_else(|| {
            bad(&path, format!("`{key}` must be an RFC 3339 date-time with an offset (e.g. 2026-05-01T17:00:00Z), years 2000-2199"), "string", v)
        }),
        Some(v) => Err(bad(&path, format!("`{key}` must be an RFC 3339 date-time string"), "string", v)),
    }
}

/// The optional `revision` a client may send to guard a change.
fn guard(body: &Map<String, Value>) -> Result<Option<String>, TErr> {
    match body.get("revision") {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(v) => Err(bad(
            "/revision",
            "`revision` must be a string (the task's current revision)".into(),
            "string",
            v,
        )),
    }
}

fn user_of_org(app: &App, caller: &Caller, user: &str, key: &str) -> Result<(), TErr> {
    if app
        .directory
        .user(user)
        .is_some_and(|u| u.org_id == caller.org_id)
    {
        Ok(())
    } else {
        Err(TErr::NotFound(format!(
            "No user `{user}` exists in this workspace ({key})"
        )))
    }
}

fn conversation_of_org(app: &App, caller: &Caller, id: &str) -> Result<(), TErr> {
    if app.messaging.conversation_in_org(&caller.org_id, id) {
        Ok(())
    } else {
        Err(TErr::NotFound(format!(
            "No conversation `{id}` exists in this workspace"
        )))
    }
}

/// Whether a caller may see and change a task: owners and admins always; otherwise the task's
/// creator, an assignee, or a user of the task's phone number (tasks without one: everyone).
fn may_access(dir: &Directory, caller: &Caller, t: &Task) -> bool {
    dir.is_admin(&caller.user_id)
        || t.created_by == caller.user_id
        || t.assignees.contains(&caller.user_id)
        || t.phone_number_id
            .as_deref()
            .is_none_or(|pn| dir.user_on_number(&caller.user_id, pn))
}

fn open_count(inner: &Inner, org: &str) -> usize {
    inner
        .tasks
        .iter()
        .filter(|t| t.org_id == org && t.is_open())
        .count()
}

/// Runs `change` on a task of the caller's workspace under the store's lock: 404 for a task
/// that is not there (or deleted), 403 for one the caller may not access, 400 for a stale
/// `revision`; `change` gets the workspace's open-task count and returns whether it changed
/// anything (a new revision then).
fn with_task<F>(
    app: &App,
    caller: &Caller,
    id: &str,
    rev: Option<&str>,
    change: F,
) -> Result<Task, TErr>
where
    F: FnOnce(&mut Task, usize) -> Result<bool, TErr>,
{
    if !id.starts_with(ID_PREFIX) || id.len() > 64 {
        return Err(not_found(id));
    }
    let mut inner = app.tasks.lock();
    let open = open_count(&inner, &caller.org_id);
    let Some(t) = inner
        .tasks
        .iter_mut()
        .find(|t| t.id == id && t.org_id == caller.org_id && !t.deleted)
    else {
        return Err(not_found(id));
    };
    if !may_access(&app.directory, caller, t) {
        return Err(TErr::Forbidden(format!(
            "Task `{id}` belongs to a phone number you are not a user of"
        )));
    }
    if let Some(r) = rev {
        if r != t.revision {
            return Err(bad(
                "/revision",
                format!(
                    "`revision` `{r}` is stale: the task is at revision `{}`",
                    t.revision
                ),
                "string",
                &json!(r),
            ));
        }
    }
    if change(t, open)? {
        t.touch();
    }
    Ok(t.clone())
}

fn event_context(t: &Task, caller: &Caller, extra: &[(&str, Value)]) -> Value {
    let mut m = Map::new();
    m.insert("taskId".into(), json!(t.id));
    m.insert("phoneNumberId".into(), json!(t.phone_number_id));
    m.insert("conversationId".into(), json!(t.conversation_id));
    m.insert("activityId".into(), json!(t.activity_id));
    m.insert("userId".into(), json!(caller.user_id));
    for (k, v) in extra {
        m.insert((*k).into(), v.clone());
    }
    Value::Object(m)
}

fn fire(app: &Arc<App>, caller: &Caller, event: &str, t: &Task, extra: &[(&str, Value)]) {
    crate::events::emit(
        app,
        &t.org_id,
        event,
        t.render(),
        event_context(t, caller, extra),
        t.phone_number_id.as_deref(),
    );
}

/// Fires `task.overdue` once when the due date passes on a task still open with that due date.
fn schedule_overdue(app: &Arc<App>, caller: &Caller, t: &Task) {
    let Some(due) = t.due else { return };
    if !t.is_open() || t.overdue_fired_for == Some(due) {
        return;
    }
    let wait = due - now();
    if wait > time::Duration::days(30) {
        return;
    }
    let wait = Duration::from_millis(u64::try_from(wait.whole_milliseconds().max(0)).unwrap_or(0));
    let (app, caller, id) = (Arc::clone(app), caller.clone(), t.id.clone());
    tokio::spawn(async move {
        tokio::time::sleep(wait).await;
        let fired = {
            let mut inner = app.tasks.lock();
            match inner.tasks.iter_mut().find(|x| x.id == id) {
                Some(x)
                    if x.is_open() && x.due == Some(due) && x.overdue_fired_for != Some(due) =>
                {
                    x.overdue_fired_for = Some(due);
                    Some(x.clone())
                }
                _ => None,
            }
        };
        if let Some(x) = fired {
            crate::events::emit(
                &app,
                &x.org_id,
                "task.overdue",
                x.render(),
                event_context(&x, &caller, &[("dueDate", json!(util::fmt_ts(due)))]),
                x.phone_number_id.as_deref(),
            );
        }
    });
}

// ------------------------------------------------------------------------------------------
// Handlers.

macro_rules! authed {
    ($app:expr, $headers:expr) => {
        match auth::authenticate(&$app, &$headers) {
            Some(c) => c,
            None => return unauthorized(),
        }
    };
}

async fn list(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Response {
    let caller = authed!(app, headers);
    match list_inner(&app, &caller, raw.as_deref()) {
        Ok(body) => errors::json_response(StatusCode::OK, &body),
        Err(e) => render_err(e),
    }
}

fn list_inner(app: &App, caller: &Caller, raw: Option<&str>) -> Result<Value, TErr> {
    const PARAMS: &[&str] = &[
        "maxResults",
        "pageToken",
        "phoneNumberId",
        "conversationId",
        "activityId",
        "assignedTo",
        "createdBy",
        "completed",
    ];
    let pairs = query_pairs(raw);
    let mut q = Map::new();
    for (k, v) in &pairs {
        if !PARAMS.contains(&k.as_str()) {
            return Err(plain(format!(
                "Unknown query parameter `{k}`; GET /v1/tasks takes {}",
                PARAMS.join(", ")
            )));
        }
        if q.insert(k.clone(), Value::String(v.clone())).is_some() {
            return Err(plain(format!(
                "The query parameter `{k}` may be given once"
            )));
        }
    }
    let max = util::max_results(q.get("maxResults").and_then(Value::as_str), None, MAX_PAGE)
        .map_err(plain)?;
    let pn = id_field(&q, "phoneNumberId", "PN")?;
    let cn = id_field(&q, "conversationId", "CN")?;
    let ac = id_field(&q, "activityId", "AC")?;
    let assigned = id_field(&q, "assignedTo", "US")?;
    let created_by = id_field(&q, "createdBy", "US")?;
    let completed = match q.get("completed").and_then(Value::as_str) {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(other) => {
            return Err(plain(format!(
                "`completed` must be `true` or `false`, got `{other}`"
            )));
        }
    };
    if let Some(pn) = &pn {
        let ours = app
            .directory
            .number(pn)
            .is_some_and(|n| n.org_id == caller.org_id);
        if ours
            && !app.directory.is_admin(&caller.user_id)
            && !app.directory.user_on_number(&caller.user_id, pn)
        {
            return Err(TErr::Forbidden(format!(
                "You are not a user of the phone number `{pn}`"
            )));
        }
    }
    let fp = util::fingerprint("tasks", &caller.key, &pairs);
    let after = match q.get("pageToken").and_then(Value::as_str) {
        None => None,
        Some(t) => Some(util::read_token(TOKEN_PREFIX, t, fp).ok_or_else(|| {
            plain("`pageToken` is not a token this service issued for this query")
        })?),
    };
    // Fault: continue from the last task of the previous page again (keys are unique sequences).
    let after = match after {
        Some((ts, seq)) if max > 1 && seq > 0 && app.faults.on("b16-tasks-list-page-repeats") => {
            Some((ts, seq - 1))
        }
        other => other,
    };
    let inner = app.tasks.lock();
    let items: Vec<((i128, u64), &Task)> = inner
        .tasks
        .iter()
        .filter(|t| {
            t.org_id == caller.org_id && !t.deleted && may_access(&app.directory, caller, t)
        })
        .filter(|t| pn.is_none() || t.phone_number_id == pn)
        .filter(|t| cn.is_none() || t.conversation_id == cn)
        .filter(|t| ac.is_none() || t.activity_id == ac)
        .filter(|t| assigned.as_ref().is_none_or(|u| t.assignees.contains(u)))
        .filter(|t| created_by.as_ref().is_none_or(|u| &t.created_by == u))
        .filter(|t| completed.is_none_or(|c| c == t.completed_at.is_some()))
        .map(|t| ((nanos(t.created_at), t.seq), t))
        .collect();
    let total = items.len();
    let (page, last) = util::keyset_page(items, false, after, max);
    let data: Vec<Value> = page.iter().map(|t| t.render()).collect();
    drop(inner);
    let next = last.map(|(ts, seq)| util::issue_token(TOKEN_PREFIX, fp, ts, seq));
    Ok(json!({ "data": data, "totalItems": total, "nextPageToken": next }))
}

async fn create(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let caller = authed!(app, headers);
    match create_inner(&app, &caller, &headers, &body) {
        Ok(t) => {
            fire(&app, &caller, "task.created", &t, &[]);
            schedule_overdue(&app, &caller, &t);
            ok(t.render(), StatusCode::CREATED)
        }
        Err(e) => render_err(e),
    }
}

fn create_inner(
    app: &App,
    caller: &Caller,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Task, TErr> {
    let body = body_object(headers, body)?;
    if body.is_empty() {
        return Err(plain(
            "A JSON object body is required: title and one link (phoneNumberId, conversationId or activityId)",
        ));
    }
    if let Some(v) = body.get("dueDate") {
        return Err(bad(
            "/dueDate",
            format!(
                "Creating a task takes its due date as `{CREATE_DUE_FIELD}` (the profile's requestFields says so); `dueDate` is the name in the resource and in change-due-date"
            ),
            "never",
            v,
        ));
    }
    only(
        &body,
        &[
            "title",
            "description",
            "phoneNumberId",
            "conversationId",
            "activityId",
            CREATE_DUE_FIELD,
            "assignedTo",
        ],
        "creating a task",
    )?;
    let title = require(title(&body)?, "title", "string")?;
    let description = description(&body)?;
    let pn = id_field(&body, "phoneNumberId", "PN")?;
    let cn = id_field(&body, "conversationId", "CN")?;
    let ac = id_field(&body, "activityId", "AC")?;
    let links = usize::from(pn.is_some()) + usize::from(cn.is_some()) + usize::from(ac.is_some());
    if links != 1 {
        return Err(plain(format!(
            "A task is created linked to exactly one of phoneNumberId, conversationId or activityId ({links} given); link a conversation later with link-conversation"
        )));
    }
    let due = due_date(&body, CREATE_DUE_FIELD)?;
    let assignee = id_field(&body, "assignedTo", "US")?;
    if let Some(pn) = &pn {
        if app
            .directory
            .number(pn)
            .is_none_or(|n| n.org_id != caller.org_id)
        {
            return Err(TErr::NotFound(format!(
                "No phone number `{pn}` exists in this workspace"
            )));
        }
        if !app.directory.is_admin(&caller.user_id)
            && !app.directory.user_on_number(&caller.user_id, pn)
        {
            return Err(TErr::Forbidden(format!(
                "You are not a user of the phone number `{pn}`"
            )));
        }
    }
    if let Some(cn) = &cn {
        conversation_of_org(app, caller, cn)?;
    }
    if let Some(ac) = &ac {
        if !app.calls.call_in_org(&caller.org_id, ac) {
            return Err(TErr::NotFound(format!(
                "No activity (call) `{ac}` exists in this workspace"
            )));
        }
    }
    if let Some(u) = &assignee {
        user_of_org(app, caller, u, "assignedTo")?;
    }
    let mut inner = app.tasks.lock();
    let open = open_count(&inner, &caller.org_id);
    let over = if app.faults.on("b16-tasks-open-limit-off-by-one") {
        open > OPEN_TASK_LIMIT
    } else {
        open >= OPEN_TASK_LIMIT
    };
    if over {
        return Err(limit_reached());
    }
    let t = now();
    let seq = inner.next_seq;
    inner.next_seq += 1;
    let mut id = util::new_id(ID_PREFIX, 20);
    while inner.tasks.iter().any(|x| x.id == id) {
        id = util::new_id(ID_PREFIX, 20);
    }
    let task = Task {
        id,
        org_id: caller.org_id.clone(),
        seq,
        phone_number_id: pn,
        conversation_id: cn,
        activity_id: ac,
        title,
        description,
        due,
        assigned_by: assignee.as_ref().map(|_| caller.user_id.clone()),
        assignees: assignee.into_iter().collect(),
        created_by: caller.user_id.clone(),
        created_at: t,
        updated_at: t,
        completed_at: None,
        completed_by: None,
        deleted: false,
        changes: 1,
        revision: revision(1),
        overdue_fired_for: None,
    };
    inner.tasks.push(task.clone());
    Ok(task)
}

async fn get_one(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
    Path(id): Path<String>,
) -> Response {
    let caller = authed!(app, headers);
    if let Some((k, _)) = query_pairs(raw.as_deref()).first() {
        return render_err(plain(format!(
            "Unknown query parameter `{k}`; GET /v1/tasks/{{taskId}} takes none"
        )));
    }
    match with_task(&app, &caller, &id, None, |_, _| Ok(false)) {
        Ok(t) => ok(t.render(), StatusCode::OK),
        Err(e) => render_err(e),
    }
}

/// A task operation: parse the body, change the task, fire the event, answer.
async fn operate<F>(app: &Arc<App>, headers: &HeaderMap, id: &str, body: &[u8], op: F) -> Response
where
    F: FnOnce(
        &App,
        &Caller,
        &Map<String, Value>,
    ) -> Result<(Task, Option<(&'static str, Vec<(&'static str, Value)>)>), TErr>,
{
    let caller = authed!(app, headers);
    let body = match body_object(headers, body) {
        Ok(b) => b,
        Err(e) => return render_err(e),
    };
    let _ = id;
    match op(app, &caller, &body) {
        Ok((t, event)) => {
            if let Some((name, extra)) = event {
                fire(app, &caller, name, &t, &extra);
                let due_changed =
                    name == "task.updated" && app.faults.on("b16-tasks-duedate-event-type");
                if due_changed || matches!(name, "task.duedate.updated" | "task.reopened") {
                    schedule_overdue(app, &caller, &t);
                }
            }
            ok(t.render(), StatusCode::OK)
        }
        Err(e) => render_err(e),
    }
}

async fn put(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["title", "description", "revision"], "updating a task")?;
        let title = require(title(b)?, "title", "string")?;
        let description = require(description(b)?, "description", "string")?;
        let rev = guard(b)?;
        let mut changed = false;
        let t = with_task(app, caller, &id, rev.as_deref(), |t, _| {
            if t.title == title && t.description.as_deref() == Some(description.as_str()) {
                // The same title and description again: answered, no new revision, no event.
                return Ok(false);
            }
            t.title = title;
            if !app.faults.on("b16-tasks-put-ignores-description") {
                t.description = Some(description);
            }
            changed = true;
            Ok(true)
        })?;
        Ok((t, changed.then(|| ("task.updated", Vec::new()))))
    })
    .await
}

async fn delete(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["revision"], "deleting a task")?;
        let t = with_task(app, caller, &id, guard(b)?.as_deref(), |t, _| {
            if !app.faults.on("b16-tasks-delete-not-persisted") {
                t.deleted = true;
            }
            Ok(true)
        })?;
        Ok((t, Some(("task.deleted", Vec::new()))))
    })
    .await
}

async fn complete(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["revision"], "completing a task")?;
        let user = caller.user_id.clone();
        let t = with_task(app, caller, &id, guard(b)?.as_deref(), |t, _| {
            if t.completed_at.is_some() {
                return Err(plain(format!(
                    "Task `{}` is already completed; reopen it first",
                    t.id
                )));
            }
            t.completed_at = Some(now());
            t.completed_by = Some(user);
            Ok(true)
        })?;
        Ok((t, Some(("task.completed", Vec::new()))))
    })
    .await
}

async fn reopen(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["revision"], "reopening a task")?;
        let t = with_task(app, caller, &id, guard(b)?.as_deref(), |t, open| {
            if t.completed_at.is_none() {
                return Err(plain(format!(
                    "Task `{}` is open, not completed: nothing to reopen",
                    t.id
                )));
            }
            if open >= OPEN_TASK_LIMIT {
                return Err(limit_reached());
            }
            if !app.faults.on("b16-tasks-reopen-stays-completed") {
                t.completed_at = None;
            }
            t.completed_by = None;
            Ok(true)
        })?;
        Ok((t, Some(("task.reopened", Vec::new()))))
    })
    .await
}

async fn assign(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["userId", "revision"], "assigning a task")?;
        let user = require(id_field(b, "userId", "US")?, "userId", "string")?;
        let rev = guard(b)?;
        let t = with_task(app, caller, &id, rev.as_deref(), |t, _| {
            user_of_org(app, caller, &user, "userId")?;
            if t.assignees.contains(&user) {
                return Err(plain(format!(
                    "User `{user}` is already an assignee of task `{}`",
                    t.id
                )));
            }
            if t.assignees.len() >= MAX_ASSIGNEES {
                return Err(plain(format!(
                    "A task has at most {MAX_ASSIGNEES} assignees"
                )));
            }
            t.assignees.push(user.clone());
            t.assigned_by = Some(caller.user_id.clone());
            Ok(true)
        })?;
        Ok((
            t,
            Some(("task.assigned", vec![("assigneeId", json!(user))])),
        ))
    })
    .await
}

async fn unassign(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let caller = authed!(app, headers);
    let result = (|| {
        let b = body_object(&headers, &body)?;
        only(&b, &["userId", "revision"], "unassigning a task")?;
        let user = require(id_field(&b, "userId", "US")?, "userId", "string")?;
        let rev = guard(&b)?;
        let mut before = String::new();
        with_task(&app, &caller, &id, rev.as_deref(), |t, _| {
            before = t.revision.clone();
            user_of_org(&app, &caller, &user, "userId")?;
            let Some(i) = t.assignees.iter().position(|u| *u == user) else {
                return Err(plain(format!(
                    "User `{user}` is not an assignee of task `{}`",
                    t.id
                )));
            };
            t.assignees.remove(i);
            Ok(true)
        })
        .map(|t| (t, user, before))
    })();
    match result {
        Ok((t, user, before)) => {
            fire(
                &app,
                &caller,
                "task.unassigned",
                &t,
                &[("assigneeId", json!(user))],
            );
            let revision = if app.faults.on("b16-tasks-unassign-stale-revision") {
                before
            } else {
                t.revision.clone()
            };
            ok(
                json!({ "taskId": t.id, "revision": revision }),
                StatusCode::OK,
            )
        }
        Err(e) => render_err(e),
    }
}

async fn change_due_date(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["dueDate", "revision"], "changing a due date")?;
        let due = require(due_date(b, "dueDate")?, "dueDate", "string")?;
        let t = with_task(app, caller, &id, guard(b)?.as_deref(), |t, _| {
            if t.due == Some(due) {
                return Err(plain(format!(
                    "Task `{}` is already due at that instant",
                    t.id
                )));
            }
            t.due = Some(due);
            Ok(true)
        })?;
        let event = if app.faults.on("b16-tasks-duedate-event-type") {
            "task.updated"
        } else {
            "task.duedate.updated"
        };
        Ok((t, Some((event, Vec::new()))))
    })
    .await
}

async fn remove_due_date(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["revision"], "removing a due date")?;
        let t = with_task(app, caller, &id, guard(b)?.as_deref(), |t, _| {
            if t.due.is_none() {
                return Err(plain(format!("Task `{}` has no due date to remove", t.id)));
            }
            t.due = None;
            Ok(true)
        })?;
        Ok((t, Some(("task.duedate.removed", Vec::new()))))
    })
    .await
}

async fn link_conversation(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(b, &["conversationId", "revision"], "linking a conversation")?;
        let cn = require(
            id_field(b, "conversationId", "CN")?,
            "conversationId",
            "string",
        )?;
        let rev = guard(b)?;
        // The task first (404, 403), then the conversation it names (404).
        with_task(app, caller, &id, None, |_, _| Ok(false))?;
        conversation_of_org(app, caller, &cn)?;
        let t = with_task(app, caller, &id, rev.as_deref(), |t, _| {
            if t.conversation_id.as_deref() == Some(cn.as_str()) {
                return Err(plain(format!(
                    "Task `{}` is already linked to conversation `{cn}`",
                    t.id
                )));
            }
            t.conversation_id = Some(cn.clone());
            Ok(true)
        })?;
        Ok((
            t,
            Some(("task.linked", vec![("linkedConversationId", json!(cn))])),
        ))
    })
    .await
}

async fn unlink_conversation(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    operate(&app, &headers, &id, &body, |app, caller, b| {
        only(
            b,
            &["conversationId", "revision"],
            "unlinking a conversation",
        )?;
        let named = id_field(b, "conversationId", "CN")?;
        let mut unlinked = String::new();
        let t = with_task(app, caller, &id, guard(b)?.as_deref(), |t, _| {
            let Some(current) = t.conversation_id.clone() else {
                return Err(plain(format!(
                    "Task `{}` is linked to no conversation",
                    t.id
                )));
            };
            if let Some(n) = &named {
                if *n != current {
                    return Err(plain(format!(
                        "Task `{}` is linked to conversation `{current}`, not `{n}`",
                        t.id
                    )));
                }
            }
            t.conversation_id = None;
            unlinked = current;
            Ok(true)
        })?;
        Ok((
            t,
            Some((
                "task.unlinked",
                vec![("unlinkedConversationId", json!(unlinked))],
            )),
        ))
    })
    .await
}

async fn method_not_allowed() -> Response {
    errors::v1(
        StatusCode::METHOD_NOT_ALLOWED,
        "0600405",
        "Method Not Allowed",
        "This method is not served on this tasks path",
    )
}

/// This area's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route(
            "/v1/tasks",
            get(list).post(create).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}",
            get(get_one)
                .put(put)
                .delete(delete)
                .fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/complete",
            post(complete).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/reopen",
            post(reopen).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/assign",
            post(assign).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/unassign",
            post(unassign).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/change-due-date",
            post(change_due_date).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/remove-due-date",
            post(remove_due_date).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/link-conversation",
            post(link_conversation).fallback(method_not_allowed),
        )
        .route(
            "/v1/tasks/{taskId}/unlink-conversation",
            post(unlink_conversation).fallback(method_not_allowed),
        )
}
