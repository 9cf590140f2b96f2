//! Calls, their recordings, transcripts, summaries and voicemails: the store, its seeded data,
//! the activity simulator's calls and the routes of both generations. OWNER: messaging-calls.

mod api;
mod seed;

use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use serde_json::{Map, Value, json};

use crate::app::App;
use crate::auth::Caller;
use crate::directory::Directory;
use crate::messaging::common::{self, Gen, Invalid, Key, Ts};

/// The other party of the seeded calls (`call_participant`).
pub const CALL_PARTICIPANT: &str = "+16465550181";
/// Where menu-forwarded calls go (an external number).
pub const FORWARD_TARGET: &str = "+16505550127";
/// The seeded AI agent that answers some calls.
pub const AI_AGENT: &str = "AGr3c3pt10n1st";

/// The call status values, as written on the wire.
pub const CALL_STATUSES: &[&str] = &[
    "ringing",
    "in-progress",
    "completed",
    "missed",
    "forwarded",
    "abandoned",
];
/// The call direction values.
pub const CALL_DIRECTIONS: &[&str] = &["inbound", "outbound"];

/// A segment of a call's recording.
#[derive(Debug, Clone)]
pub struct Recording {
    pub id: String,
    pub start: Ts,
    pub duration_ms: i64,
    pub seq: u64,
}

impl Recording {
    fn json(&self, call_id: &str) -> Value {
        json!({
            "id": self.id,
            "callId": call_id,
            "duration": self.duration_ms,
            "startTime": common::fmt(self.start),
            "status": "completed",
            "type": "audio/mpeg",
            "url": format!("https://media.second.example/recordings/{}.mp3", self.id),
        })
    }
}

/// One line of a transcript.
#[derive(Debug, Clone)]
pub struct Line {
    pub id: String,
    pub start: Ts,
    pub end: Ts,
    /// The E.164 number or the user id of who spoke.
    pub speaker: String,
    pub content: String,
    pub seq: u64,
}

impl Line {
    fn json(&self, call_id: &str) -> Value {
        json!({
            "id": self.id,
            "callId": call_id,
            "startTime": common::fmt(self.start),
            "endTime": common::fmt(self.end),
            "speaker": self.speaker,
            "userId": if self.speaker.starts_with("US") { Value::String(self.speaker.clone()) } else { Value::Null },
            "content": self.content,
        })
    }
}

/// An AI summary of a call.
#[derive(Debug, Clone)]
pub struct Summary {
    pub points: Vec<String>,
    pub next_steps: Vec<String>,
    pub completed: Ts,
}

/// A voicemail left on a call.
#[derive(Debug, Clone)]
pub struct Voicemail {
    pub duration_ms: i64,
    pub transcript: String,
    pub completed: Ts,
}

/// A call.
#[derive(Debug, Clone)]
pub struct Call {
    pub id: String,
    pub org_id: String,
    pub phone_number_id: String,
    pub user_id: Option<String>,
    pub participants: Vec<String>,
    pub inbound: bool,
    pub status: &'static str,
    pub answered_at: Option<Ts>,
    pub answered_by: Option<String>,
    pub initiated_by: Option<String>,
    pub completed_at: Option<Ts>,
    pub created: Ts,
    pub updated: Ts,
    pub duration_ms: Option<i64>,
    pub call_route: &'static str,
    pub forwarded_from: Option<String>,
    pub forwarded_to: Option<String>,
    pub ai_agent: Option<String>,
    pub seq: u64,
    pub recordings: Vec<Recording>,
    pub transcript: Vec<Line>,
    pub summary: Option<Summary>,
    pub voicemail: Option<Voicemail>,
}

impl Call {
    /// The users and AI agents who took part.
    pub fn actor_ids(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for a in [
            &self.user_id,
            &self.answered_by,
            &self.initiated_by,
            &self.forwarded_from,
            &self.ai_agent,
        ]
        .into_iter()
        .flatten()
        {
            if !out.contains(a) {
                out.push(a.clone());
            }
        }
        out
    }

    /// The wire form.
    pub fn json(&self) -> Value {
        json!({
            "id": self.id,
            "phoneNumberId": self.phone_number_id,
            "userId": self.user_id,
            "participants": self.participants,
            "direction": if self.inbound { "inbound" } else { "outbound" },
            "status": self.status,
            "answeredAt": common::fmt_opt(self.answered_at),
            "answeredBy": self.answered_by,
            "initiatedBy": self.initiated_by,
            "completedAt": common::fmt_opt(self.completed_at),
            "createdAt": common::fmt(self.created),
            "updatedAt": common::fmt(self.updated),
            "duration": self.duration_ms,
            "callRoute": self.call_route,
            "forwardedFrom": self.forwarded_from,
            "forwardedTo": self.forwarded_to,
            "aiHandled": if self.ai_agent.is_some() { "ai-agent" } else { "none" },
            "actorIds": self.actor_ids(),
        })
    }

    /// The wire form with `summary` and `voicemail` when asked (null where the call has none).
    pub fn json_with(&self, summary: bool, voicemail: bool) -> Value {
        let mut v = self.json();
        if let Value::Object(m) = &mut v {
            if summary {
                m.insert("summary".into(), self.summary_json().unwrap_or(Value::Null));
            }
            if voicemail {
                m.insert(
                    "voicemail".into(),
                    self.voicemail_json().unwrap_or(Value::Null),
                );
            }
        }
        v
    }

    /// The summary object (`callId`-correlated).
    pub fn summary_json(&self) -> Option<Value> {
        self.summary.as_ref().map(|s| {
            json!({
                "callId": self.id,
                "status": "completed",
                "summary": s.points,
                "nextSteps": s.next_steps,
                "completedAt": common::fmt(s.completed),
            })
        })
    }

    /// The voicemail object (`callId`-correlated).
    pub fn voicemail_json(&self) -> Option<Value> {
        self.voicemail.as_ref().map(|v| {
            json!({
                "callId": self.id,
                "status": "completed",
                "duration": v.duration_ms,
                "type": "audio/mpeg",
                "url": format!("https://media.second.example/voicemails/{}.mp3", self.id),
                "transcript": v.transcript,
                "completedAt": common::fmt(v.completed),
            })
        })
    }

    /// The transcript object of the `call.transcript.completed` event.
    pub fn transcript_json(&self) -> Value {
        let lines: Vec<Value> = self.transcript.iter().map(|l| l.json(&self.id)).collect();
        json!({
            "callId": self.id,
            "status": "completed",
            "duration": self.duration_ms,
            "dialogue": lines,
            "createdAt": common::fmt(self.completed_at.unwrap_or(self.updated)),
        })
    }

    /// Recording segments, oldest first.
    pub fn recordings_json(&self) -> Vec<Value> {
        let mut r: Vec<&Recording> = self.recordings.iter().collect();
        r.sort_by_key(|x| (x.start, x.seq));
        r.into_iter().map(|x| x.json(&self.id)).collect()
    }

    /// The sort key by creation.
    pub fn key(&self) -> Key {
        Key(common::nanos(self.created), self.seq)
    }
}

pub(crate) struct Inner {
    pub calls: Vec<Call>,
    pub seq: u64,
}

impl Inner {
    pub(crate) fn next_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
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

    /// Whether the organization has a call with that id.
    pub fn call_in_org(&self, org_id: &str, id: &str) -> bool {
        self.lock()
            .calls
            .iter()
            .any(|c| c.id == id && c.org_id == org_id)
    }
}

// ---------------------------------------------------------------------------------------------
// The activity simulator: a call.

/// `{"kind": "call", "phoneNumberId", "participant", "outcome"}` with outcome `answered`,
/// `voicemail` or `menu-forward`: records the call and fires its events in order.
pub async fn simulate_call(app: &Arc<App>, caller: &Caller, body: &Value) -> Response {
    simulate_call_inner(app, caller, body).unwrap_or_else(|e| e)
}

fn simulate_call_inner(app: &Arc<App>, caller: &Caller, body: &Value) -> common::Answer {
    let g = Gen::Latest;
    let inv = |i: Invalid| g.invalid(i);
    let Some(m) = body.as_object() else {
        return Err(inv(Invalid::new(
            "body",
            "must be a JSON object",
            body.clone(),
            "object",
        )));
    };
    common::only_fields(m, &["kind", "phoneNumberId", "participant", "outcome"]).map_err(inv)?;
    let number_id = common::str_field(m, "phoneNumberId")
        .map_err(inv)?
        .ok_or_else(|| {
            inv(Invalid::new(
                "body.phoneNumberId",
                "is required",
                Value::Null,
                "string",
            ))
        })?;
    if !common::id_shape(number_id, "PN") {
        return Err(inv(Invalid::new(
            "body.phoneNumberId",
            "must be a phone number id (PN...)",
            json!(number_id),
            "string",
        )));
    }
    let participant = common::str_field(m, "participant")
        .map_err(inv)?
        .ok_or_else(|| {
            inv(Invalid::new(
                "body.participant",
                "is required",
                Value::Null,
                "string",
            ))
        })?;
    if !common::is_e164(participant) {
        return Err(inv(Invalid::new(
            "body.participant",
            "must be an E.164 number",
            json!(participant),
            "string",
        )));
    }
    let outcome = common::str_field(m, "outcome")
        .map_err(inv)?
        .ok_or_else(|| {
            inv(Invalid::new(
                "body.outcome",
                "is required",
                Value::Null,
                "string",
            ))
        })?;
    if !["answered", "voicemail", "menu-forward"].contains(&outcome) {
        return Err(inv(Invalid::new(
            "body.outcome",
            "must be one of answered, voicemail, menu-forward",
            json!(outcome),
            "string",
        )));
    }
    let number = app
        .directory
        .number(number_id)
        .filter(|n| n.org_id == caller.org_id)
        .ok_or_else(|| g.not_found(format!("No phone number {number_id} in this workspace")))?;
    if participant == number.number {
        return Err(inv(Invalid::new(
            "body.participant",
            "must not be the workspace number itself",
            json!(participant),
            "string",
        )));
    }
    let handler = if common::can_use_number(app, &caller.user_id, number_id) {
        caller.user_id.clone()
    } else {
        number
            .user_ids
            .first()
            .cloned()
            .unwrap_or_else(|| caller.user_id.clone())
    };

    let now = common::now();
    let ms = time::Duration::milliseconds;
    let id = common::random_id("AC", 32);
    let mut call = Call {
        id: id.clone(),
        org_id: caller.org_id.clone(),
        phone_number_id: number_id.to_string(),
        user_id: Some(handler.clone()),
        participants: vec![participant.to_string()],
        inbound: true,
        status: "ringing",
        answered_at: None,
        answered_by: None,
        initiated_by: None,
        completed_at: None,
        created: now,
        updated: now,
        duration_ms: None,
        call_route: "direct",
        forwarded_from: None,
        forwarded_to: None,
        ai_agent: None,
        seq: 0,
        recordings: Vec::new(),
        transcript: Vec::new(),
        summary: None,
        voicemail: None,
    };
    // (event type, resource) in firing order; the call's times are laid out backwards from now.
    let mut events: Vec<(&'static str, Value)> = Vec::new();
    match outcome {
        "answered" => {
            let (ring, talk) = (7_000, 64_000);
            call.created = now - ms(ring + talk);
            call.updated = call.created;
            events.push(("call.ringing", call.json()));
            let answered = call.created + ms(ring);
            call.status = "in-progress";
            call.answered_at = Some(answered);
            call.answered_by = Some(handler.clone());
            call.updated = answered;
            events.push(("call.answered", call.json()));
            call.status = "completed";
            call.completed_at = Some(now);
            call.duration_ms = Some(talk);
            call.updated = now;
            call.recordings = vec![
                Recording {
                    id: common::random_id("CR", 32),
                    start: answered,
                    duration_ms: 40_000,
                    seq: 1,
                },
                Recording {
                    id: common::random_id("CR", 32),
                    start: answered + ms(46_000),
                    duration_ms: 18_000,
                    seq: 2,
                },
            ];
            let lines = [
                (
                    0,
                    4_000,
                    handler.as_str(),
                    "Harborview Dental, this is the front desk.",
                ),
                (
                    4_500,
                    11_000,
                    participant,
                    "Hi, I'd like to book a cleaning.",
                ),
                (
                    11_500,
                    20_000,
                    handler.as_str(),
                    "Sure, does next Wednesday at 2pm work?",
                ),
                (20_500, 24_000, participant, "Perfect, thank you."),
            ];
            call.transcript = lines
                .iter()
                .enumerate()
                .map(|(i, (s, e, who, text))| Line {
                    id: common::random_id("TL", 20),
                    start: answered + ms(*s),
                    end: answered + ms(*e),
                    speaker: who.to_string(),
                    content: text.to_string(),
                    seq: i as u64,
                })
                .collect();
            call.summary = Some(Summary {
                points: vec![format!(
                    "{participant} booked a cleaning for next Wednesday at 2pm."
                )],
                next_steps: vec!["Send a reminder the day before.".to_string()],
                completed: now,
            });
            let mut with_recordings = call.json();
            if let Value::Object(o) = &mut with_recordings {
                o.insert("recordings".into(), Value::Array(call.recordings_json()));
            }
            events.push(("call.recording.completed", with_recordings));
            events.push((
                "call.summary.completed",
                call.summary_json().unwrap_or(Value::Null),
            ));
            events.push(("call.transcript.completed", call.transcript_json()));
            events.push(("call.completed", call.json()));
        }
        "voicemail" => {
            let (ring, message) = (25_000, 19_000);
            call.created = now - ms(ring + message);
            call.updated = call.created;
            events.push(("call.ringing", call.json()));
            call.status = "missed";
            call.updated = call.created + ms(ring);
            call.call_route = "voicemail";
            events.push(("call.missed", call.json()));
            call.voicemail = Some(Voicemail {
                duration_ms: message,
                transcript: "Hi, it's about my appointment on Friday; please call me back."
                    .to_string(),
                completed: now,
            });
            events.push((
                "call.voicemail.completed",
                call.voicemail_json().unwrap_or(Value::Null),
            ));
            call.completed_at = Some(now);
            call.duration_ms = Some(0);
            call.updated = now;
            events.push(("call.completed", call.json()));
        }
        _ => {
            let (ring, menu) = (4_000, 9_000);
            call.created = now - ms(ring + menu);
            call.updated = call.created;
            call.call_route = "phone-menu";
            events.push(("call.ringing", call.json()));
            call.updated = call.created + ms(ring + menu - 1_000);
            let mut selected = call.json();
            if let Value::Object(o) = &mut selected {
                o.insert(
                    "menuSelection".into(),
                    json!({"digit": "2", "label": "Billing questions"}),
                );
            }
            events.push(("call.menu.selected", selected));
            call.status = "forwarded";
            call.forwarded_from = Some(handler.clone());
            call.forwarded_to = Some(FORWARD_TARGET.to_string());
            call.updated = call.created + ms(ring + menu);
            let mut forwarded = call.json();
            if app.faults.on("b16-events-call-forwarded-without-fields") {
                if let Value::Object(o) = &mut forwarded {
                    o.remove("forwardedFrom");
                    o.remove("forwardedTo");
                }
            }
            events.push(("call.forwarded", forwarded));
            call.completed_at = Some(now);
            call.duration_ms = Some(ring + menu);
            call.updated = now;
            events.push(("call.completed", call.json()));
        }
    }
    {
        let mut inner = app.calls.lock();
        call.seq = inner.next_seq();
        inner.calls.push(call.clone());
    }
    let context = json!({
        "phoneNumberId": number_id,
        "phoneNumber": number.number,
        "participants": [participant],
        "userId": handler,
        "callId": id,
        "contact": Value::Null,
    });
    for (event, resource) in events {
        let mut ctx = context.clone();
        if event == "call.menu.selected" {
            if let Value::Object(o) = &mut ctx {
                o.insert(
                    "menu".into(),
                    json!({"digit": "2", "label": "Billing questions", "action": "forward"}),
                );
            }
        }
        crate::events::emit(app, &caller.org_id, event, resource, ctx, Some(number_id));
    }
    Ok(common::data(StatusCode::CREATED, call.json()))
}

/// This area's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/v1/calls", get(api::v1_list))
        .route("/v1/calls/{callId}", get(api::v1_get))
        .route("/v1/call-recordings/{callId}", get(api::v1_recordings))
        .route("/calls", get(api::latest_list))
        .route("/calls/{callId}", get(api::latest_get))
        .route("/calls/{callId}/recordings", get(api::latest_recordings))
        .route("/calls/{callId}/transcripts", get(api::latest_transcripts))
}
