//! Messages and conversations: the store, its seeded data, delivery, and the routes of both
//! generations. OWNER: messaging-calls.

pub(crate) mod api;
pub(crate) mod common;
mod conversations;
mod seed;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, post};
use serde_json::{Map, Value, json};

use crate::app::App;
use crate::auth::Caller;
use crate::directory::Directory;
use common::{Gen, Invalid, Key, Ts};

// ---------------------------------------------------------------------------------------------
// External numbers of the seeded data and of the profile (none is a workspace number).

/// The other party of the seeded one-to-one conversation (`message_participant`).
pub const MESSAGE_PARTICIPANT: &str = "+15125550134";
/// The two numbers of the seeded group conversation.
pub const GROUP_A: &str = "+15125550171";
/// Second number of the group.
pub const GROUP_B: &str = "+17375550122";
/// The extra number of the superset group.
pub const GROUP_C: &str = "+15125550158";
/// The other party of the inactive conversation.
pub const INACTIVE_PARTICIPANT: &str = "+19725550143";
/// The other party of the sandbox conversation.
pub const SANDBOX_PARTICIPANT: &str = "+15035550116";
/// The other party of the conversation tasks may link.
pub const TASK_PARTICIPANT: &str = "+16175550152";
/// Numbers that cannot receive text (landlines): a send fails, and may be retried (fails again).
pub const UNREACHABLE: &[&str] = &["+12125550108", "+12125550118"];
/// Numbers that do not exist: a send fails with a permanent error.
pub const UNALLOCATED: &[&str] = &["+12125550109"];
/// Numbers whose carrier blocks the workspace: a send ends undelivered.
pub const BLOCKED: &[&str] = &["+13055550177"];
/// Sandbox recipients (domestic, accept everything).
pub const SANDBOX_RECIPIENT: &str = "+17185550123";
/// The sandbox international recipient (UK drama range).
pub const SANDBOX_INTERNATIONAL: &str = "+447700900461";

/// Messages a number may send per UTC day before its A2P 10DLC cap is reached.
pub const DAILY_CAP: u32 = 5000;

/// Milliseconds before a send to a reachable recipient is delivered.
const DELIVERY_MS: u64 = 400;
/// Milliseconds before a send to a recipient that cannot receive is given up (failed).
const FAILURE_MS: u64 = 2500;

// ---------------------------------------------------------------------------------------------
// Model.

/// The direction of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Inbound,
    Outbound,
}

/// The direction values, as written on the wire.
pub const DIRECTIONS: &[&str] = &["inbound", "outbound"];

impl Direction {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Inbound => "inbound",
            Direction::Outbound => "outbound",
        }
    }
}

/// The delivery status of a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Queued,
    Delivered,
    Failed,
    Undelivered,
    Received,
}

/// The status values, as written on the wire.
pub const STATUSES: &[&str] = &["queued", "delivered", "failed", "undelivered", "received"];

impl Status {
    /// The wire value.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Queued => "queued",
            Status::Delivered => "delivered",
            Status::Failed => "failed",
            Status::Undelivered => "undelivered",
            Status::Received => "received",
        }
    }
}

/// Why a message was not delivered.
#[derive(Debug, Clone, Copy)]
pub struct Failure {
    pub code: &'static str,
    pub reason: &'static str,
    pub permanent: bool,
}

const F_UNREACHABLE: Failure = Failure {
    code: "carrier-unreachable",
    reason: "The recipient's carrier did not accept the message (the number cannot receive text); it may be retried",
    permanent: false,
};
const F_UNALLOCATED: Failure = Failure {
    code: "destination-unallocated",
    reason: "The recipient number is not in service; retrying cannot succeed",
    permanent: true,
};
const F_BLOCKED: Failure = Failure {
    code: "carrier-blocked",
    reason: "The recipient's carrier blocked the message; it will not be delivered",
    permanent: true,
};

/// A text message.
#[derive(Debug, Clone)]
pub struct Message {
    pub id: String,
    pub org_id: String,
    pub phone_number_id: String,
    pub conversation_id: String,
    pub from: String,
    pub to: Vec<String>,
    pub text: String,
    pub direction: Direction,
    pub user_id: Option<String>,
    pub status: Status,
    pub created: Ts,
    pub updated: Ts,
    pub seq: u64,
    pub media: Vec<(String, String)>,
    pub failure: Option<Failure>,
    pub attempts: u32,
}

impl Message {
    /// The wire form.
    pub fn json(&self) -> Value {
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("to".into(), json!(self.to));
        m.insert("from".into(), json!(self.from));
        m.insert("text".into(), json!(self.text));
        m.insert("phoneNumberId".into(), json!(self.phone_number_id));
        m.insert("conversationId".into(), json!(self.conversation_id));
        m.insert("direction".into(), json!(self.direction.as_str()));
        m.insert("userId".into(), json!(self.user_id));
        m.insert("status".into(), json!(self.status.as_str()));
        m.insert("createdAt".into(), json!(common::fmt(self.created)));
        m.insert("updatedAt".into(), json!(common::fmt(self.updated)));
        if !self.media.is_empty() {
            let media: Vec<Value> = self
                .media
                .iter()
                .map(|(u, t)| json!({"url": u, "type": t}))
                .collect();
            m.insert("media".into(), Value::Array(media));
        }
        if self.direction == Direction::Outbound {
            m.insert("attempts".into(), json!(self.attempts));
        }
        if let Some(f) = self.failure {
            m.insert(
                "failure".into(),
                json!({"code": f.code, "reason": f.reason, "retryable": !f.permanent && self.status == Status::Failed}),
            );
        }
        Value::Object(m)
    }

    /// The sort key by creation.
    pub fn key(&self) -> Key {
        Key(common::nanos(self.created), self.seq)
    }
}

/// A conversation: one workspace number and a set of external participants.
#[derive(Debug, Clone)]
pub struct Conversation {
    pub id: String,
    pub org_id: String,
    pub phone_number_id: String,
    pub participants: Vec<String>,
    pub name: Option<String>,
    pub assigned_to: Option<String>,
    pub created: Ts,
    pub updated: Ts,
    pub deleted_at: Option<Ts>,
    pub last_activity_at: Option<Ts>,
    pub last_activity_id: Option<String>,
    pub muted_until: Option<Ts>,
    pub snoozed_until: Option<Ts>,
    pub done: bool,
    pub unread: u32,
    pub seq: u64,
}

/// Days without activity after which a conversation counts as inactive.
pub const INACTIVE_AFTER_DAYS: i64 = 60;

impl Conversation {
    /// Whether the conversation counts as inactive at `now`: deleted, or no activity for
    /// `INACTIVE_AFTER_DAYS` days.
    pub fn inactive(&self, now: Ts) -> bool {
        let last = self.last_activity_at.unwrap_or(self.created);
        self.deleted_at.is_some() || now - last > time::Duration::days(INACTIVE_AFTER_DAYS)
    }

    /// The wire form.
    pub fn json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "participants": self.participants,
            "phoneNumberId": self.phone_number_id,
            "assignedTo": self.assigned_to,
            "createdAt": common::fmt(self.created),
            "updatedAt": common::fmt(self.updated),
            "deletedAt": common::fmt_opt(self.deleted_at),
            "lastActivityAt": common::fmt_opt(self.last_activity_at),
            "lastActivityId": self.last_activity_id,
            "mutedUntil": common::fmt_opt(self.muted_until),
            "snoozedUntil": common::fmt_opt(self.snoozed_until),
            "inboxStatus": if self.done { "done" } else { "open" },
            "unreadCount": self.unread,
            "inactive": self.inactive(common::now()),
        })
    }

    fn same_set(&self, phone_number_id: &str, sorted: &[String]) -> bool {
        if self.phone_number_id != phone_number_id || self.participants.len() != sorted.len() {
            return false;
        }
        let mut mine = self.participants.clone();
        mine.sort();
        mine == sorted
    }
}

// ---------------------------------------------------------------------------------------------
// The store.

pub(crate) struct Inner {
    pub messages: Vec<Message>,
    pub conversations: Vec<Conversation>,
    pub seq: u64,
    /// Sends per (number id, UTC day number).
    pub sends: HashMap<(String, i32), u32>,
}

impl Inner {
    fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// The conversation of `number` with exactly the `participants` (any order), created when
    /// missing. Returns its index.
    fn conversation_for(
        &mut self,
        org_id: &str,
        number_id: &str,
        participants: &[String],
        at: Ts,
    ) -> usize {
        let mut sorted = participants.to_vec();
        sorted.sort();
        sorted.dedup();
        if let Some(i) = self
            .conversations
            .iter()
            .position(|c| c.org_id == org_id && c.same_set(number_id, &sorted))
        {
            return i;
        }
        let seq = self.next_seq();
        self.conversations.push(Conversation {
            id: common::random_id("CN", 22),
            org_id: org_id.to_string(),
            phone_number_id: number_id.to_string(),
            participants: participants.to_vec(),
            name: None,
            assigned_to: None,
            created: at,
            updated: at,
            deleted_at: None,
            last_activity_at: None,
            last_activity_id: None,
            muted_until: None,
            snoozed_until: None,
            done: false,
            unread: 0,
            seq,
        });
        self.conversations.len() - 1
    }

    fn touch_conversation(&mut self, idx: usize, msg_id: &str, at: Ts, inbound: bool) {
        if let Some(c) = self.conversations.get_mut(idx) {
            c.last_activity_at = Some(at);
            c.last_activity_id = Some(msg_id.to_string());
            c.updated = at;
            c.deleted_at = None;
            if inbound {
                c.unread += 1;
                c.done = false;
            }
        }
    }
}

/// This area's data.
pub struct Store {
    inner: Mutex<Inner>,
    fixtures: Map<String, Value>,
}

impl Store {
    /// The seeded store.
    pub fn seeded(directory: &Directory) -> Store {
        let (inner, fixtures) = seed::seed(directory);
        Store {
            inner: Mutex::new(inner),
            fixtures,
        }
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The profile fixtures of this area's seeded data.
    pub fn fixtures(&self) -> Map<String, Value> {
        self.fixtures.clone()
    }

    /// Whether the organization has a conversation with that id.
    pub fn conversation_in_org(&self, org_id: &str, id: &str) -> bool {
        self.lock()
            .conversations
            .iter()
            .any(|c| c.id == id && c.org_id == org_id)
    }

    /// A message of the organization (wire form).
    pub fn message_json(&self, org_id: &str, id: &str) -> Option<Value> {
        self.lock()
            .messages
            .iter()
            .find(|m| m.id == id && m.org_id == org_id)
            .map(Message::json)
    }
}

/// The context of a message event.
fn message_context(app: &App, m: &Message, participants: &[String]) -> Value {
    json!({
        "phoneNumberId": m.phone_number_id,
        "phoneNumber": app.directory.number(&m.phone_number_id).map(|n| n.number.clone()),
        "conversationId": m.conversation_id,
        "participants": participants,
        "userId": m.user_id,
        "direction": m.direction.as_str(),
        "contact": Value::Null,
    })
}

/// The outcome of a delivery attempt to these recipients.
fn outcome(to: &[String]) -> (Status, Option<Failure>) {
    let any = |set: &[&str]| to.iter().any(|t| set.contains(&t.as_str()));
    if any(BLOCKED) {
        (Status::Undelivered, Some(F_BLOCKED))
    } else if any(UNALLOCATED) {
        (Status::Failed, Some(F_UNALLOCATED))
    } else if any(UNREACHABLE) {
        (Status::Failed, Some(F_UNREACHABLE))
    } else {
        (Status::Delivered, None)
    }
}

/// Settles attempt `attempt` of message `id` later, and fires its event.
pub(crate) fn schedule_delivery(app: &Arc<App>, id: String, attempt: u32, to: &[String]) {
    let (_, failure) = outcome(to);
    let delay = if failure.is_some() {
        FAILURE_MS
    } else {
        DELIVERY_MS
    };
    let app = Arc::clone(app);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(delay)).await;
        let settled = {
            let mut inner = app.messaging.lock();
            let Some(m) = inner.messages.iter_mut().find(|m| m.id == id) else {
                return;
            };
            if m.status != Status::Queued || m.attempts != attempt {
                return;
            }
            let (status, failure) = outcome(&m.to);
            m.status = status;
            m.failure = failure;
            m.updated = common::now().max(m.updated);
            m.clone()
        };
        let event = match settled.status {
            Status::Delivered => "message.delivered",
            Status::Undelivered => "message.undelivered",
            _ => "message.failed",
        };
        let ctx = message_context(&app, &settled, &settled.to);
        crate::events::emit(
            &app,
            &settled.org_id,
            event,
            settled.json(),
            ctx,
            Some(&settled.phone_number_id),
        );
    });
}

/// Records an outbound message (queued) in its conversation and counts it against the daily cap;
/// Err(()) when the cap is reached.
pub(crate) fn record_outbound(
    app: &App,
    org_id: &str,
    number_id: &str,
    from: &str,
    to: &[String],
    text: &str,
    user_id: &str,
) -> Result<Message, ()> {
    let now = common::now();
    let day = now.date().to_julian_day();
    let mut inner = app.messaging.lock();
    let count = inner.sends.entry((number_id.to_string(), day)).or_insert(0);
    if *count >= DAILY_CAP {
        return Err(());
    }
    *count += 1;
    let idx = inner.conversation_for(org_id, number_id, to, now);
    let conversation_id = inner.conversations[idx].id.clone();
    let seq = inner.next_seq();
    let m = Message {
        id: common::random_id("AC", 30),
        org_id: org_id.to_string(),
        phone_number_id: number_id.to_string(),
        conversation_id,
        from: from.to_string(),
        to: to.to_vec(),
        text: text.to_string(),
        direction: Direction::Outbound,
        user_id: Some(user_id.to_string()),
        status: Status::Queued,
        created: now,
        updated: now,
        seq,
        media: Vec::new(),
        failure: None,
        attempts: 1,
    };
    inner.touch_conversation(idx, &m.id, now, false);
    inner.messages.push(m.clone());
    Ok(m)
}

/// Whether a retry is allowed on the number today (counts it against the cap).
pub(crate) fn count_send(app: &App, number_id: &str) -> bool {
    let day = common::now().date().to_julian_day();
    let mut inner = app.messaging.lock();
    let count = inner.sends.entry((number_id.to_string(), day)).or_insert(0);
    if *count >= DAILY_CAP {
        return false;
    }
    *count += 1;
    true
}

// ---------------------------------------------------------------------------------------------
// The activity simulator: an inbound message.

/// `{"kind": "inbound-message", "phoneNumberId", "from", "text"}` (optional `media`: a list of
/// `{url, type}`): an incoming message on that number; fires `message.received`.
pub async fn simulate_inbound(app: &Arc<App>, caller: &Caller, body: &Value) -> Response {
    simulate_inbound_inner(app, caller, body).unwrap_or_else(|e| e)
}

fn simulate_inbound_inner(app: &Arc<App>, caller: &Caller, body: &Value) -> common::Answer {
    let g = Gen::Latest;
    let Some(m) = body.as_object() else {
        return Err(g.invalid(Invalid::new(
            "body",
            "must be a JSON object",
            body.clone(),
            "object",
        )));
    };
    common::only_fields(m, &["kind", "phoneNumberId", "from", "text", "media"])
        .map_err(|i| g.invalid(i))?;
    let number_id = common::str_field(m, "phoneNumberId")
        .map_err(|i| g.invalid(i))?
        .ok_or_else(|| {
            g.invalid(Invalid::new(
                "body.phoneNumberId",
                "is required",
                Value::Null,
                "string",
            ))
        })?;
    if !common::id_shape(number_id, "PN") {
        return Err(g.invalid(Invalid::new(
            "body.phoneNumberId",
            "must be a phone number id (PN...)",
            json!(number_id),
            "string",
        )));
    }
    let number = app
        .directory
        .number(number_id)
        .filter(|n| n.org_id == caller.org_id)
        .ok_or_else(|| g.not_found(format!("No phone number {number_id} in this workspace")))?;
    let from = common::str_field(m, "from")
        .map_err(|i| g.invalid(i))?
        .ok_or_else(|| {
            g.invalid(Invalid::new(
                "body.from",
                "is required",
                Value::Null,
                "string",
            ))
        })?;
    if !common::is_e164(from) {
        return Err(g.invalid(Invalid::new(
            "body.from",
            "must be an E.164 number",
            json!(from),
            "string",
        )));
    }
    if from == number.number {
        return Err(g.invalid(Invalid::new(
            "body.from",
            "must not be the receiving number itself",
            json!(from),
            "string",
        )));
    }
    let text = common::str_field(m, "text")
        .map_err(|i| g.invalid(i))?
        .ok_or_else(|| {
            g.invalid(Invalid::new(
                "body.text",
                "is required",
                Value::Null,
                "string",
            ))
        })?;
    if text.trim().is_empty() || text.chars().count() > 1600 {
        return Err(g.invalid(Invalid::new(
            "body.text",
            "must hold 1 to 1600 characters, not only whitespace",
            json!(text),
            "string",
        )));
    }
    let mut media = Vec::new();
    if let Some(v) = m.get("media") {
        let Some(items) = v.as_array() else {
            return Err(g.invalid(Invalid::new(
                "body.media",
                "must be an array of {url, type}",
                v.clone(),
                "array",
            )));
        };
        if items.len() > 10 {
            return Err(g.invalid(Invalid::new(
                "body.media",
                "takes at most 10 items",
                v.clone(),
                "array",
            )));
        }
        for it in items {
            let url = it.get("url").and_then(Value::as_str);
            let ty = it.get("type").and_then(Value::as_str);
            match (url, ty) {
                (Some(u), Some(t)) if u.starts_with("https://") && t.contains('/') => {
                    media.push((u.to_string(), t.to_string()))
                }
                _ => {
                    return Err(g.invalid(Invalid::new(
                        "body.media",
                        "each item needs an https `url` and a MIME `type`",
                        it.clone(),
                        "object",
                    )));
                }
            }
        }
    }
    let now = common::now();
    let participants = vec![from.to_string()];
    let msg = {
        let mut inner = app.messaging.lock();
        let idx = inner.conversation_for(&caller.org_id, number_id, &participants, now);
        let seq = inner.next_seq();
        let msg = Message {
            id: common::random_id("AC", 30),
            org_id: caller.org_id.clone(),
            phone_number_id: number_id.to_string(),
            conversation_id: inner.conversations[idx].id.clone(),
            from: from.to_string(),
            to: vec![number.number.clone()],
            text: text.to_string(),
            direction: Direction::Inbound,
            user_id: None,
            status: Status::Received,
            created: now,
            updated: now,
            seq,
            media,
            failure: None,
            attempts: 0,
        };
        inner.touch_conversation(idx, &msg.id, now, true);
        inner.messages.push(msg.clone());
        msg
    };
    let ctx = message_context(app, &msg, &participants);
    crate::events::emit(
        app,
        &caller.org_id,
        "message.received",
        msg.json(),
        ctx,
        Some(number_id),
    );
    Ok(common::data(StatusCode::CREATED, msg.json()))
}

/// This area's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/v1/messages", get(api::v1_list).post(api::v1_send))
        .route("/messages", get(api::latest_list))
        .route("/messages/{messageId}", get(api::latest_get))
        .route("/messages/{messageId}/retry", post(api::latest_retry))
        .route("/v1/conversations", get(conversations::v1_list))
        .route("/conversations", get(conversations::latest_list))
        .route(
            "/v1/conversations/{conversationId}/mark-as-done",
            post(conversations::v1_done),
        )
        .route(
            "/v1/conversations/{conversationId}/mark-as-open",
            post(conversations::v1_open),
        )
        .route(
            "/v1/conversations/{conversationId}/mark-as-read",
            post(conversations::v1_read),
        )
        .route(
            "/conversations/{conversationId}/mark-as-done",
            post(conversations::latest_done),
        )
        .route(
            "/conversations/{conversationId}/mark-as-open",
            post(conversations::latest_open),
        )
        .route(
            "/conversations/{conversationId}/mark-as-read",
            post(conversations::latest_read),
        )
}
