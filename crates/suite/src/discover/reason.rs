//! Why discovery did not find a fixture: what it looked at (the request, the count, the field)
//! and what it saw there. The table and the ignored trials show the text.

use std::fmt;

use super::request::{Request, RequestError};

/// Why a fixture, or one candidate for it, was not found.
#[derive(Debug, Clone, thiserror::Error)]
pub enum Reason {
    #[error(transparent)]
    Request(#[from] RequestError),
    /// Whatever a step did not settle: the budget ran out before it.
    #[error("discovery stopped before it (see the reasons of the fixtures it needs)")]
    Stopped,
    #[error("no phone_number_id: {0}")]
    NoPhoneNumberId(Box<Reason>),
    #[error("the workspace lists no phone number (GET /phone-numbers)")]
    NoPhoneNumbers,
    /// A read-back by id answered another one.
    #[error("{at} answered another id")]
    AnotherId { at: Request },

    // --- numbers and users ---
    #[error("{at} shows no E.164 `phoneNumber`")]
    NoE164 { at: Request },
    #[error("GET /phone-numbers lists no number other than phone_number_id")]
    NoOtherNumber,
    #[error("{path} lists {users} users, and no request of the API says which one the key acts as")]
    UsersUnclear { path: String, users: usize },
    #[error("{path} lists no user")]
    NoUser { path: String },
    #[error("the country of {number} is not one discovery knows")]
    UnknownCountry { number: String },
    #[error("{at} finds no number")]
    NoAvailableNumber { at: Request },

    // --- webhooks and custom fields ---
    #[error("GET /webhooks lists no webhook")]
    NoWebhook,
    #[error(
        "GET /v1/contacts?maxResults=50 ({contacts} contacts read): no contact holds a string custom field value"
    )]
    NoStringField { contacts: usize },
    #[error(
        "GET /v1/contacts?maxResults=50 ({contacts} contacts read): no contact holds a string value under `{key}` (custom_field_key)"
    )]
    NoValueUnder { key: String, contacts: usize },
    #[error(
        "GET /v1/contacts?maxResults=50 ({contacts} contacts read): no contact holds a custom field whose `type` is `multi-select`"
    )]
    NoMultiSelectField { contacts: usize },

    // --- one candidate of a conversation (its messages asked with `at`) ---
    #[error("{at}: {messages} messages in {conversations} conversations")]
    Scattered {
        at: Request,
        messages: usize,
        conversations: usize,
    },
    #[error("{at}: conversation {conversation} is not usable")]
    Unusable { at: Request, conversation: String },
    #[error("{at}: {conversation} is not among GET /v1/conversations?phoneNumbers={pn}")]
    NotListed {
        at: Request,
        conversation: String,
        pn: String,
    },
    #[error("{at}: {conversation} has other participants")]
    OtherParticipants { at: Request, conversation: String },
    #[error("{at}: fewer than two instants to split")]
    NoInstants { at: Request },
    #[error("{at}: {conversation} is not a group conversation of {pn}")]
    NotAGroup {
        at: Request,
        conversation: String,
        pn: String,
    },

    // --- the one-to-one conversation, the split, the groups ---
    #[error(
        "GET /messages?phoneNumberId={pn} and GET /v1/conversations show no one-to-one participant"
    )]
    NoOneToOne { pn: String },
    #[error("no candidate participant passed")]
    NoCandidatePassed,
    #[error("no participant of {pn} passed: {tried}")]
    NoParticipantPassed { pn: String, tried: Tried },
    #[error("no one-to-one conversation with messages at two instants: {0}")]
    NoSplitConversation(Box<Reason>),
    #[error(
        "{split} lies between two messages of {participant}, but createdBefore/createdAfter do not both list one"
    )]
    SplitNotFiltered { split: String, participant: String },
    #[error(
        "GET /messages?phoneNumberId={pn} and GET /v1/conversations show no group conversation (two or more participants)"
    )]
    NoGroup { pn: String },
    #[error("no group of {pn} passed: {tried}")]
    NoGroupPassed { pn: String, tried: Tried },
    #[error("it needs group_participants, which was not found")]
    NeedsGroup,
    #[error(
        "no other group conversation of {pn} holds every number of group_participants and more"
    )]
    NoSuperset { pn: String },

    // --- messages of a kind ---
    #[error("{at} does not keep only that direction")]
    MixedDirections { at: Request },
    #[error("the messages of GET /messages?phoneNumberId={pn} show no `direction`")]
    NoDirection { pn: String },
    /// Every candidate's own reason.
    #[error("{0}")]
    AllFailed(Tried),
    #[error("no message of GET /messages?phoneNumberId={pn} has media")]
    NoMedia { pn: String },
    #[error("{at} shows no media")]
    MediaEmpty { at: Request },
    #[error("GET /messages?phoneNumberId={pn}&status=undelivered lists no undelivered message")]
    NoUndelivered { pn: String },
    #[error("{at} is not undelivered")]
    NotUndelivered { at: Request },

    // --- fixtures that need a fixture given by hand, and the task conversation ---
    #[error("GET /v1/conversations?phoneNumbers={pn} lists no conversation")]
    NoConversation { pn: String },
    #[error("{at} leaves no conversation of {pn} out")]
    NoneLeftOut { at: Request, pn: String },
    #[error(
        "what the target counts as inactive shows only through the exclude-inactive filter, whose query name is not shown: give conversations_exclude_inactive_param and discovery finds it"
    )]
    InactiveNeedsParam,
    #[error("GET /v1/conversations?phoneNumbers={pn} could not be read")]
    ConversationsUnread { pn: String },
    #[error("sandbox_conversation_id has {participants} participants, not one")]
    SandboxParticipants { participants: usize },
    #[error(
        "GET /v1/conversations?phoneNumbers={pn} does not show the participants of sandbox_conversation_id"
    )]
    SandboxParticipantsHidden { pn: String },
    #[error(
        "it is the participant of sandbox_conversation_id, a conversation only a person can name as one cases may change: give sandbox_conversation_id and discovery finds it"
    )]
    SandboxNeedsConversation,

    // --- calls ---
    #[error("{call}: {segments} recording segments")]
    FewSegments { call: String, segments: usize },
    #[error("{call} is not listed by GET /calls?actorId={user}: not handled by user_id")]
    NotHandledBy { call: String, user: String },
    #[error("{call}: no transcript segment")]
    NoTranscript { call: String },
    #[error("GET /calls?phoneNumberId={pn} lists no call")]
    NoCall { pn: String },
    #[error(
        "no call of {pn} has a recording of two or more segments and a transcript{}: {tried}",
        if *.by_user { " and is handled by user_id" } else { "" }
    )]
    NoRecordedCall {
        pn: String,
        by_user: bool,
        tried: Tried,
    },
    #[error("no call_id: {0}")]
    NoCallId(Box<Reason>),
    #[error("{at} does not list call_id")]
    CallNotListed { at: Request },
    #[error("call_id shows {participants} participants besides the workspace's numbers, not one")]
    CallParticipants { participants: usize },
    #[error(
        "GET /calls?phoneNumberId={pn} does not show the `participants` of call_id, and GET /v1/calls needs them"
    )]
    CallParticipantsHidden { pn: String },
    #[error("{at} does not keep call_id and only calls of that status")]
    StatusNotFiltered { at: Request },
    #[error("GET /calls?phoneNumberId={pn} does not show the `status` of call_id")]
    CallStatusHidden { pn: String },
    #[error("no call_id to take a status from")]
    NoCallForStatus,
    #[error("no call of GET /calls?phoneNumberId={pn}&include=summary,voicemail has a {field}")]
    NoCallWith { pn: String, field: &'static str },
    #[error("{at} lacks the {field}")]
    CallLacks { at: Request, field: &'static str },
}

/// The reasons of the candidates tried for one fixture, in the order they were tried.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tried(pub Vec<Reason>);

impl Tried {
    pub fn push(&mut self, why: impl Into<Reason>) {
        self.0.push(why.into());
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for Tried {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, why) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{why}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::request::ErrorKind;
    use super::*;

    // The expected texts are the format strings of the free text each reason replaced, filled in.

    const PN: &str = "PN1";

    fn check(cases: Vec<(Reason, &str)>) {
        for (reason, text) in cases {
            assert_eq!(reason.to_string(), text, "{reason:?}");
        }
    }

    fn asked() -> Request {
        Request::new(
            "/v1/messages",
            &[("phoneNumberId", PN), ("participants", "+1")],
        )
    }

    fn tried() -> Tried {
        let e = RequestError {
            at: Request::new("/calls", &[]),
            kind: ErrorKind::Status(500),
        };
        Tried(vec![
            Reason::Request(e),
            Reason::NoTranscript { call: "AC1".into() },
        ])
    }

    #[test]
    fn reasons_of_numbers_webhooks_and_contacts_read_as_before() {
        let pn = || PN.to_string();
        check(vec![
            (
                Reason::Request(RequestError {
                    at: Request::new("/calls", &[]),
                    kind: ErrorKind::Status(500),
                }),
                "GET /calls answered 500",
            ),
            (
                Reason::Stopped,
                "discovery stopped before it (see the reasons of the fixtures it needs)",
            ),
            (
                Reason::NoPhoneNumberId(Box::new(Reason::NoPhoneNumbers)),
                "no phone_number_id: the workspace lists no phone number (GET /phone-numbers)",
            ),
            (
                Reason::AnotherId {
                    at: Request::new("/phone-numbers/PN2", &[]),
                },
                "GET /phone-numbers/PN2 answered another id",
            ),
            (
                Reason::NoE164 {
                    at: Request::new(format!("/phone-numbers/{PN}"), &[]),
                },
                "GET /phone-numbers/PN1 shows no E.164 `phoneNumber`",
            ),
            (
                Reason::NoOtherNumber,
                "GET /phone-numbers lists no number other than phone_number_id",
            ),
            (
                Reason::UsersUnclear {
                    path: "/phone-numbers/PN1/users".into(),
                    users: 2,
                },
                "/phone-numbers/PN1/users lists 2 users, and no request of the API says which one the key acts as",
            ),
            (
                Reason::NoUser {
                    path: "/phone-numbers/PN1/users".into(),
                },
                "/phone-numbers/PN1/users lists no user",
            ),
            (
                Reason::UnknownCountry {
                    number: "+999".into(),
                },
                "the country of +999 is not one discovery knows",
            ),
            (
                Reason::NoAvailableNumber {
                    at: Request::new("/phone-numbers/available", &[("country", "US")]),
                },
                "GET /phone-numbers/available?country=US finds no number",
            ),
            (Reason::NoWebhook, "GET /webhooks lists no webhook"),
            (
                Reason::NoStringField { contacts: 3 },
                "GET /v1/contacts?maxResults=50 (3 contacts read): no contact holds a string custom field value",
            ),
            (
                Reason::NoValueUnder {
                    key: "notes".into(),
                    contacts: 3,
                },
                "GET /v1/contacts?maxResults=50 (3 contacts read): no contact holds a string value under `notes` (custom_field_key)",
            ),
            (
                Reason::NoMultiSelectField { contacts: 3 },
                "GET /v1/contacts?maxResults=50 (3 contacts read): no contact holds a custom field whose `type` is `multi-select`",
            ),
            (
                Reason::NoConversation { pn: pn() },
                "GET /v1/conversations?phoneNumbers=PN1 lists no conversation",
            ),
            (
                Reason::NoneLeftOut {
                    at: Request::new("/v1/conversations", &[("phoneNumbers", PN), ("x", "true")]),
                    pn: pn(),
                },
                "GET /v1/conversations?phoneNumbers=PN1&x=true leaves no conversation of PN1 out",
            ),
            (
                Reason::InactiveNeedsParam,
                "what the target counts as inactive shows only through the exclude-inactive filter, whose query name is not shown: give conversations_exclude_inactive_param and discovery finds it",
            ),
            (
                Reason::ConversationsUnread { pn: pn() },
                "GET /v1/conversations?phoneNumbers=PN1 could not be read",
            ),
            (
                Reason::SandboxParticipants { participants: 2 },
                "sandbox_conversation_id has 2 participants, not one",
            ),
            (
                Reason::SandboxParticipantsHidden { pn: pn() },
                "GET /v1/conversations?phoneNumbers=PN1 does not show the participants of sandbox_conversation_id",
            ),
            (
                Reason::SandboxNeedsConversation,
                "it is the participant of sandbox_conversation_id, a conversation only a person can name as one cases may change: give sandbox_conversation_id and discovery finds it",
            ),
        ]);
    }

    #[test]
    fn reasons_of_messages_and_conversations_read_as_before() {
        let pn = || PN.to_string();
        let cn = || "CN1".to_string();
        let how = asked().to_string();
        let with_how = |rest: &str| format!("{how}: {rest}");
        let texts = [
            with_how("2 messages in 0 conversations"),
            with_how("conversation CN1 is not usable"),
            with_how("CN1 is not among GET /v1/conversations?phoneNumbers=PN1"),
            with_how("CN1 has other participants"),
            with_how("fewer than two instants to split"),
            with_how("CN1 is not a group conversation of PN1"),
        ];
        check(vec![
            (
                Reason::Scattered {
                    at: asked(),
                    messages: 2,
                    conversations: 0,
                },
                &texts[0],
            ),
            (
                Reason::Unusable {
                    at: asked(),
                    conversation: cn(),
                },
                &texts[1],
            ),
            (
                Reason::NotListed {
                    at: asked(),
                    conversation: cn(),
                    pn: pn(),
                },
                &texts[2],
            ),
            (
                Reason::OtherParticipants {
                    at: asked(),
                    conversation: cn(),
                },
                &texts[3],
            ),
            (Reason::NoInstants { at: asked() }, &texts[4]),
            (
                Reason::NotAGroup {
                    at: asked(),
                    conversation: cn(),
                    pn: pn(),
                },
                &texts[5],
            ),
            (
                Reason::NoOneToOne { pn: pn() },
                "GET /messages?phoneNumberId=PN1 and GET /v1/conversations show no one-to-one participant",
            ),
            (Reason::NoCandidatePassed, "no candidate participant passed"),
            (
                Reason::NoParticipantPassed {
                    pn: pn(),
                    tried: tried(),
                },
                "no participant of PN1 passed: GET /calls answered 500; AC1: no transcript segment",
            ),
            (
                Reason::NoSplitConversation(Box::new(Reason::NoCandidatePassed)),
                "no one-to-one conversation with messages at two instants: no candidate participant passed",
            ),
            (
                Reason::SplitNotFiltered {
                    split: "2026-01-11T09:00:00Z".into(),
                    participant: "+1".into(),
                },
                "2026-01-11T09:00:00Z lies between two messages of +1, but createdBefore/createdAfter do not both list one",
            ),
            (
                Reason::NoGroup { pn: pn() },
                "GET /messages?phoneNumberId=PN1 and GET /v1/conversations show no group conversation (two or more participants)",
            ),
            (
                Reason::NoGroupPassed {
                    pn: pn(),
                    tried: Tried::default(),
                },
                "no group of PN1 passed: ",
            ),
            (
                Reason::NeedsGroup,
                "it needs group_participants, which was not found",
            ),
            (
                Reason::NoSuperset { pn: pn() },
                "no other group conversation of PN1 holds every number of group_participants and more",
            ),
            (
                Reason::MixedDirections {
                    at: Request::new("/messages", &[("direction", "in")]),
                },
                "GET /messages?direction=in does not keep only that direction",
            ),
            (
                Reason::NoDirection { pn: pn() },
                "the messages of GET /messages?phoneNumberId=PN1 show no `direction`",
            ),
            (
                Reason::AllFailed(tried()),
                "GET /calls answered 500; AC1: no transcript segment",
            ),
            (
                Reason::NoMedia { pn: pn() },
                "no message of GET /messages?phoneNumberId=PN1 has media",
            ),
            (
                Reason::MediaEmpty {
                    at: Request::new("/messages/M1", &[]),
                },
                "GET /messages/M1 shows no media",
            ),
            (
                Reason::NoUndelivered { pn: pn() },
                "GET /messages?phoneNumberId=PN1&status=undelivered lists no undelivered message",
            ),
            (
                Reason::NotUndelivered {
                    at: Request::new("/messages/M1", &[]),
                },
                "GET /messages/M1 is not undelivered",
            ),
        ]);
    }

    #[test]
    fn reasons_of_calls_read_as_before() {
        let pn = || PN.to_string();
        check(vec![
            (
                Reason::FewSegments {
                    call: "AC1".into(),
                    segments: 1,
                },
                "AC1: 1 recording segments",
            ),
            (
                Reason::NotHandledBy {
                    call: "AC1".into(),
                    user: "US1".into(),
                },
                "AC1 is not listed by GET /calls?actorId=US1: not handled by user_id",
            ),
            (
                Reason::NoTranscript { call: "AC1".into() },
                "AC1: no transcript segment",
            ),
            (
                Reason::NoCall { pn: pn() },
                "GET /calls?phoneNumberId=PN1 lists no call",
            ),
            (
                Reason::NoRecordedCall {
                    pn: pn(),
                    by_user: true,
                    tried: tried(),
                },
                "no call of PN1 has a recording of two or more segments and a transcript and is handled by user_id: GET /calls answered 500; AC1: no transcript segment",
            ),
            (
                Reason::NoRecordedCall {
                    pn: pn(),
                    by_user: false,
                    tried: Tried::default(),
                },
                "no call of PN1 has a recording of two or more segments and a transcript: ",
            ),
            (
                Reason::NoCallId(Box::new(Reason::NoCall { pn: pn() })),
                "no call_id: GET /calls?phoneNumberId=PN1 lists no call",
            ),
            (
                Reason::CallNotListed {
                    at: Request::new("/v1/calls", &[("participants", "+1")]),
                },
                "GET /v1/calls?participants=+1 does not list call_id",
            ),
            (
                Reason::CallParticipants { participants: 2 },
                "call_id shows 2 participants besides the workspace's numbers, not one",
            ),
            (
                Reason::CallParticipantsHidden { pn: pn() },
                "GET /calls?phoneNumberId=PN1 does not show the `participants` of call_id, and GET /v1/calls needs them",
            ),
            (
                Reason::StatusNotFiltered {
                    at: Request::new("/calls", &[("status", "done")]),
                },
                "GET /calls?status=done does not keep call_id and only calls of that status",
            ),
            (
                Reason::CallStatusHidden { pn: pn() },
                "GET /calls?phoneNumberId=PN1 does not show the `status` of call_id",
            ),
            (Reason::NoCallForStatus, "no call_id to take a status from"),
            (
                Reason::NoCallWith {
                    pn: pn(),
                    field: "voicemail",
                },
                "no call of GET /calls?phoneNumberId=PN1&include=summary,voicemail has a voicemail",
            ),
            (
                Reason::CallLacks {
                    at: Request::new("/calls/AC1", &[("include", "summary")]),
                    field: "summary",
                },
                "GET /calls/AC1?include=summary lacks the summary",
            ),
        ]);
    }
}
