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
pub struct Tried(pub Vec<Reason>);

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

    /// Each reason reads as the free text it replaced (the format strings of before, filled in).
    #[test]
    fn reasons_read_as_the_text_they_replaced() {
        let pn = "PN1".to_string();
        let at = Request::new(
            "/v1/messages",
            &[("phoneNumberId", "PN1"), ("participants", "+1")],
        );
        let how = at.to_string();
        let e = RequestError {
            at: Request::new("/calls", &[]),
            kind: ErrorKind::Status(500),
        };
        let tried = Tried(vec![
            Reason::Request(e.clone()),
            Reason::NoTranscript { call: "AC1".into() },
        ]);
        let cases: Vec<(Reason, String)> = vec![
            (Reason::Request(e.clone()), "GET /calls answered 500".into()),
            (
                Reason::Stopped,
                "discovery stopped before it (see the reasons of the fixtures it needs)".into(),
            ),
            (
                Reason::NoPhoneNumberId(Box::new(Reason::NoPhoneNumbers)),
                "no phone_number_id: the workspace lists no phone number (GET /phone-numbers)"
                    .into(),
            ),
            (
                Reason::AnotherId {
                    at: Request::new("/phone-numbers/PN2", &[]),
                },
                "GET /phone-numbers/PN2 answered another id".into(),
            ),
            (
                Reason::NoE164 {
                    at: Request::new(format!("/phone-numbers/{pn}"), &[]),
                },
                format!("GET /phone-numbers/{pn} shows no E.164 `phoneNumber`"),
            ),
            (
                Reason::UsersUnclear {
                    path: "/phone-numbers/PN1/users".into(),
                    users: 2,
                },
                "/phone-numbers/PN1/users lists 2 users, and no request of the API says which one the key acts as".into(),
            ),
            (
                Reason::NoUser {
                    path: "/phone-numbers/PN1/users".into(),
                },
                "/phone-numbers/PN1/users lists no user".into(),
            ),
            (
                Reason::UnknownCountry {
                    number: "+999".into(),
                },
                "the country of +999 is not one discovery knows".into(),
            ),
            (
                Reason::NoAvailableNumber {
                    at: Request::new("/phone-numbers/available", &[("country", "US")]),
                },
                "GET /phone-numbers/available?country=US finds no number".into(),
            ),
            (
                Reason::NoStringField { contacts: 3 },
                "GET /v1/contacts?maxResults=50 (3 contacts read): no contact holds a string custom field value".into(),
            ),
            (
                Reason::Scattered {
                    at: at.clone(),
                    messages: 2,
                    conversations: 0,
                },
                format!("{how}: 2 messages in 0 conversations"),
            ),
            (
                Reason::NotListed {
                    at: at.clone(),
                    conversation: "CN1".into(),
                    pn: pn.clone(),
                },
                format!("{how}: CN1 is not among GET /v1/conversations?phoneNumbers={pn}"),
            ),
            (
                Reason::NoParticipantPassed {
                    pn: pn.clone(),
                    tried: tried.clone(),
                },
                format!("no participant of {pn} passed: GET /calls answered 500; AC1: no transcript segment"),
            ),
            (
                Reason::NoSplitConversation(Box::new(Reason::NoCandidatePassed)),
                "no one-to-one conversation with messages at two instants: no candidate participant passed".into(),
            ),
            (
                Reason::SplitNotFiltered {
                    split: "2026-01-11T09:00:00Z".into(),
                    participant: "+1".into(),
                },
                "2026-01-11T09:00:00Z lies between two messages of +1, but createdBefore/createdAfter do not both list one".into(),
            ),
            (
                Reason::AllFailed(tried.clone()),
                "GET /calls answered 500; AC1: no transcript segment".into(),
            ),
            (
                Reason::NoRecordedCall {
                    pn: pn.clone(),
                    by_user: true,
                    tried: tried.clone(),
                },
                format!("no call of {pn} has a recording of two or more segments and a transcript and is handled by user_id: GET /calls answered 500; AC1: no transcript segment"),
            ),
            (
                Reason::NoRecordedCall {
                    pn: pn.clone(),
                    by_user: false,
                    tried: Tried::default(),
                },
                format!("no call of {pn} has a recording of two or more segments and a transcript: "),
            ),
            (
                Reason::NoCallId(Box::new(Reason::NoCall { pn: pn.clone() })),
                format!("no call_id: GET /calls?phoneNumberId={pn} lists no call"),
            ),
            (
                Reason::NotHandledBy {
                    call: "AC1".into(),
                    user: "US1".into(),
                },
                "AC1 is not listed by GET /calls?actorId=US1: not handled by user_id".into(),
            ),
            (
                Reason::NoCallWith {
                    pn: pn.clone(),
                    field: "voicemail",
                },
                format!("no call of GET /calls?phoneNumberId={pn}&include=summary,voicemail has a voicemail"),
            ),
            (
                Reason::CallLacks {
                    at: Request::new("/calls/AC1", &[("include", "summary")]),
                    field: "summary",
                },
                "GET /calls/AC1?include=summary lacks the summary".into(),
            ),
        ];
        for (reason, text) in cases {
            assert_eq!(reason.to_string(), text, "{reason:?}");
        }
    }
}
