//! A hook of the reference only, not part of the API: `POST /_reference/activity` simulates what
//! no endpoint can cause (an inbound message, a call, a contact deleted in the app), so that the
//! events those fire can be certified. The route table does not list it, so no generated trial
//! probes it; the cases that use it name it through the profile fixture `activity_trigger_path`,
//! and a target without such a hook has those cases ignored with the reason (docs/reference.md, "Simulated
//! activity").
//!
//! Bodies (JSON):
//! - `{"kind": "inbound-message", "phoneNumberId", "from", "text"}`: records an incoming message
//!   in its conversation, fires `message.received`, answers 201 `{data: Message}`.
//! - `{"kind": "call", "phoneNumberId", "participant", "outcome"}`: fires the events of one call,
//!   answers 201 `{data: Call}`. `outcome` `answered`: ringing, answered, recording, summary,
//!   transcript, completed; `voicemail`: ringing, missed, voicemail, completed; `menu-forward`:
//!   ringing, menu selected, forwarded (with `forwardedFrom`, `forwardedTo`), completed. The call is
//!   not added to the call history, so lists other trials walk stay still.
//! - `{"kind": "delete-contact", "contactId"}`: deletes the contact, fires `contact.deleted`,
//!   answers 204.

use axum::Router;
use axum::body::Body;
use axum::extract::{Extension, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use super::respond::allow_only;
use crate::app::App;
use crate::auth::Caller;
use crate::deliveries;
use crate::errors::ApiError;
use crate::faults::Fault;
use crate::input;
use crate::model::timestamp;
use crate::paths::TRIGGER_PATH;
use crate::reply;
use crate::workspace::Call;

/// Where a simulated `menu-forward` call is forwarded to (a fictional number).
const FORWARD_TO: &str = "+14155550123";

/// The outcomes of a simulated call: its status, its route, and the events it fires in order.
type Outcome = (
    &'static str,
    &'static str,
    Option<&'static str>,
    &'static [&'static str],
);
const OUTCOMES: &[Outcome] = &[
    (
        "answered",
        "completed",
        None,
        &[
            "call.ringing",
            "call.answered",
            "call.recording.completed",
            "call.summary.completed",
            "call.transcript.completed",
            "call.completed",
        ],
    ),
    (
        "voicemail",
        "missed",
        Some("voicemail"),
        &[
            "call.ringing",
            "call.missed",
            "call.voicemail.completed",
            "call.completed",
        ],
    ),
    (
        "menu-forward",
        "completed",
        Some("phone-menu"),
        &[
            "call.ringing",
            "call.menu.selected",
            "call.forwarded",
            "call.completed",
        ],
    ),
];

pub(super) fn routes() -> Router<App> {
    Router::new().route(TRIGGER_PATH, allow_only(post(trigger), "POST"))
}

fn text_field<'a>(body: &'a Map<String, Value>, name: &str) -> Result<&'a str, ApiError> {
    body.get(name)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
        .ok_or_else(|| {
            ApiError::bad_request(
                TRIGGER_PATH,
                format!("body field {name} is required: a non-empty string"),
            )
        })
}

async fn trigger(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    body: Body,
) -> Response {
    let result = match input::json_object(body, TRIGGER_PATH).await {
        Ok(body) => match body.get("kind").and_then(Value::as_str) {
            Some("inbound-message") => inbound_message(&app, &body),
            Some("call") => call(&app, &caller, &body),
            Some("delete-contact") => delete_contact(&app, &body),
            _ => Err(ApiError::bad_request(
                TRIGGER_PATH,
                "body field kind must be inbound-message, call or delete-contact",
            )),
        },
        Err(e) => Err(e),
    };
    result.unwrap_or_else(|e| e.render(app.switches()))
}

fn inbound_message(app: &App, body: &Map<String, Value>) -> Result<Response, ApiError> {
    let phone_number_id = text_field(body, "phoneNumberId")?;
    let from = text_field(body, "from")?.to_string();
    let text = text_field(body, "text")?;
    let mut store = app.store();
    let line = store
        .messaging
        .line_by_id(phone_number_id)
        .cloned()
        .ok_or_else(|| {
            ApiError::bad_request(TRIGGER_PATH, format!("no phone number {phone_number_id}"))
        })?;
    let message = store.messaging.record(
        &line,
        std::slice::from_ref(&from),
        false,
        Some(&from),
        text,
        None,
        "received",
        OffsetDateTime::now_utc(),
    );
    // Fault conversation-created-at-on-update: the write to the conversation's row moves its
    // auto-updating createdAt (a new conversation's is its creation anyway).
    if app
        .switches()
        .faults
        .has(Fault::ConversationCreatedAtOnUpdate)
    {
        store
            .messaging
            .touch_created(&message.conversation_id, message.created_at);
    }
    let json = message.to_json(true);
    let jobs = if app.switches().faults.has(Fault::MessageReceivedNotFired) {
        Vec::new()
    } else {
        deliveries::fire(
            app,
            &mut store,
            "message.received",
            Some(line.id),
            &message.id,
            json.clone(),
        )
    };
    drop(store);
    deliveries::dispatch(app, jobs);
    Ok(reply::data(StatusCode::CREATED, json))
}

fn call(app: &App, caller: &Caller, body: &Map<String, Value>) -> Result<Response, ApiError> {
    let phone_number_id = text_field(body, "phoneNumberId")?.to_string();
    let participant = text_field(body, "participant")?.to_string();
    let outcome = text_field(body, "outcome")?;
    let faults = &app.switches().faults;
    let now = OffsetDateTime::now_utc();
    let mut store = app.store();
    let number = store
        .workspace()
        .number(&phone_number_id)
        .map(|n| n.number.clone())
        .ok_or_else(|| {
            ApiError::bad_request(TRIGGER_PATH, format!("no phone number {phone_number_id}"))
        })?;
    let id = format!("AC{:016x}", 0x51_0000_0000 + store.next_id());
    let user = caller.user_id.to_string();
    let Some((_, status, route, steps)) = OUTCOMES.iter().find(|(name, ..)| *name == outcome)
    else {
        return Err(ApiError::bad_request(
            TRIGGER_PATH,
            format!(
                "body field outcome must be answered, voicemail or menu-forward; got {outcome}"
            ),
        ));
    };
    let mut fields = json!({"direction": "incoming", "status": status, "callRoute": route,
                            "completedAt": timestamp(now), "duration": 0});
    if outcome == "answered" {
        fields["answeredBy"] = json!(user);
        fields["answeredAt"] = json!(timestamp(now));
    }
    let call = Call {
        id: id.clone(),
        phone_number_id: phone_number_id.clone(),
        participants: vec![participant.clone()],
        user_id: user,
        created_at: now,
        fields,
        summary: None,
        voicemail: None,
        recordings: Vec::new(),
        transcripts: Vec::new(),
    };
    let json = call.to_json(false, false, "AC");
    // Fault call-completed-payload-from-ringing: the call object captured when it started ringing.
    let mut ringing = json.clone();
    if let Some(o) = ringing.as_object_mut() {
        o.insert("status".into(), json!("ringing"));
        for field in ["duration", "completedAt", "answeredAt", "answeredBy"] {
            o.remove(field);
        }
    }
    let mut jobs = Vec::new();
    // Fault call-answered-fires-missed: an incoming call without a voicemail route that ends is
    // taken for missed, answered or not.
    let mut steps: Vec<&str> = steps.to_vec();
    if outcome == "answered" && faults.has(Fault::CallAnsweredFiresMissed) {
        let end = steps.len().saturating_sub(1);
        steps.insert(end, "call.missed");
    }
    for event in steps.iter().copied() {
        // Fault call-menu-selected-not-fired: the menu step publishes nothing.
        if event == "call.menu.selected" && faults.has(Fault::CallMenuSelectedNotFired) {
            continue;
        }
        // Fault call-completed-not-fired-unanswered: only an answered leg's hang-up publishes.
        if event == "call.completed"
            && outcome != "answered"
            && faults.has(Fault::CallCompletedNotFiredUnanswered)
        {
            continue;
        }
        // Fault voicemail-fires-call-answered: reaching voicemail counts as answered, whatever
        // the call's direction.
        let event = if event == "call.missed" && faults.has(Fault::VoicemailFiresCallAnswered) {
            "call.answered"
        } else {
            event
        };
        let processing = matches!(
            event,
            "call.recording.completed" | "call.summary.completed" | "call.transcript.completed"
        );
        if processing && faults.has(Fault::CallProcessingEventsNotFired) {
            continue;
        }
        // The call itself, except for the results of processing, which name their call.
        let resource = match event {
            "call.recording.completed" => json!({"id": format!("CR{}", &id[2..]), "callId": id,
                "status": "completed", "startTime": timestamp(now), "duration": 0}),
            "call.summary.completed" => json!({"callId": id, "summary": ["Simulated call."]}),
            "call.transcript.completed" => json!({"callId": id, "dialogue": []}),
            "call.voicemail.completed" => json!({"callId": id, "status": "completed",
                "transcript": "Simulated voicemail.", "duration": 0}),
            "call.completed" if faults.has(Fault::CallCompletedPayloadFromRinging) => {
                ringing.clone()
            }
            "call.forwarded" if !faults.has(Fault::CallForwardedWithoutNumbers) => {
                let mut forwarded = json.clone();
                forwarded["forwardedFrom"] = json!(number);
                // Fault call-forwarded-to-user-id: the forwarding rule's target is a user.
                forwarded["forwardedTo"] = if faults.has(Fault::CallForwardedToUserId) {
                    json!(caller.user_id)
                } else {
                    json!(FORWARD_TO)
                };
                forwarded
            }
            _ => json.clone(),
        };
        // Fault voicemail-event-without-call-id: the voicemail answers as a resource of its own.
        let resource = if event == "call.voicemail.completed"
            && faults.has(Fault::VoicemailEventWithoutCallId)
        {
            let mut voicemail = resource;
            if let Some(o) = voicemail.as_object_mut() {
                o.remove("callId");
                o.insert("id".into(), json!(format!("VM{}", &id[2..])));
            }
            voicemail
        } else {
            resource
        };
        jobs.extend(deliveries::fire(
            app,
            &mut store,
            event,
            Some(&phone_number_id),
            &id,
            resource,
        ));
    }
    drop(store);
    // Fault call-events-batched-per-endpoint: the outbox batches the call's events per endpoint.
    if faults.has(Fault::CallEventsBatchedPerEndpoint) {
        jobs = deliveries::batch(jobs);
    }
    deliveries::dispatch(app, jobs);
    Ok(reply::data(StatusCode::CREATED, json))
}

fn delete_contact(app: &App, body: &Map<String, Value>) -> Result<Response, ApiError> {
    let id = text_field(body, "contactId")?;
    let mut store = app.store();
    let Some(contact) = store.remove_contact(id) else {
        return Err(ApiError::for_path(
            TRIGGER_PATH,
            StatusCode::NOT_FOUND,
            format!("no contact {id}"),
        ));
    };
    let mut json = contact.to_json(store.custom_field_defs());
    // Fault contact-deleted-event-id-null: the instance is serialized after its delete, which
    // cleared its primary key.
    if app.switches().faults.has(Fault::ContactDeletedEventIdNull) {
        json["id"] = Value::Null;
    }
    // Faults contact-get-ignores-soft-delete, contacts-list-ignores-soft-delete: the delete only
    // flags the row.
    let faults = &app.switches().faults;
    if faults.has(Fault::ContactGetIgnoresSoftDelete)
        || faults.has(Fault::ContactsListIgnoresSoftDelete)
    {
        store.deleted_contacts.push(contact);
    }
    let jobs = if app.switches().faults.has(Fault::ContactDeletedNotFired) {
        Vec::new()
    } else {
        // Fault contact-delete-fires-updated: the soft delete runs the model's save hook.
        let event = if faults.has(Fault::ContactDeleteFiresUpdated) {
            "contact.updated"
        } else {
            "contact.deleted"
        };
        deliveries::fire(app, &mut store, event, None, id, json)
    };
    drop(store);
    deliveries::dispatch(app, jobs);
    Ok(StatusCode::NO_CONTENT.into_response())
}
