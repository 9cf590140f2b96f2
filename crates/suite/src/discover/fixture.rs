//! The fixtures discovery names, each name written once here. A name that is not one of the
//! profile's (`KNOWN_FIXTURES`) does not compile, so a typo cannot leave a fixture unfound.

use serde_json::Value;

use conformance_contract::profile::{KNOWN_FIXTURES, PROFILE_SCHEMA};

/// A fixture of the profile that discovery finds, or (the last four) one only a person can give,
/// which discovery reads to find another or names a guess for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fixture {
    UserId,
    PhoneNumberId,
    PhoneNumber,
    WebhookId,
    CustomFieldKey,
    CustomFieldValue,
    CustomFieldMultiKey,
    MessageDirection,
    MessageParticipant,
    MessageTimeSplit,
    ConversationId,
    GroupParticipants,
    GroupConversationId,
    GroupSupersetParticipants,
    InactiveConversationId,
    SandboxConversationParticipant,
    UndeliveredMessageId,
    MediaMessageId,
    CallId,
    CallParticipant,
    CallStatus,
    VoicemailCallId,
    SummaryCallId,
    AvailableNumberCountry,
    TaskConversationId,
    OtherPhoneNumberId,
    SandboxConversationId,
    ConversationsExcludeInactiveParam,
    SandboxFailedMessageId,
    PermanentFailedMessageId,
}

impl Fixture {
    /// Every fixture, in the order of the declaration (checked below).
    pub(crate) const ALL: [Fixture; 30] = [
        Fixture::UserId,
        Fixture::PhoneNumberId,
        Fixture::PhoneNumber,
        Fixture::WebhookId,
        Fixture::CustomFieldKey,
        Fixture::CustomFieldValue,
        Fixture::CustomFieldMultiKey,
        Fixture::MessageDirection,
        Fixture::MessageParticipant,
        Fixture::MessageTimeSplit,
        Fixture::ConversationId,
        Fixture::GroupParticipants,
        Fixture::GroupConversationId,
        Fixture::GroupSupersetParticipants,
        Fixture::InactiveConversationId,
        Fixture::SandboxConversationParticipant,
        Fixture::UndeliveredMessageId,
        Fixture::MediaMessageId,
        Fixture::CallId,
        Fixture::CallParticipant,
        Fixture::CallStatus,
        Fixture::VoicemailCallId,
        Fixture::SummaryCallId,
        Fixture::AvailableNumberCountry,
        Fixture::TaskConversationId,
        Fixture::OtherPhoneNumberId,
        Fixture::SandboxConversationId,
        Fixture::ConversationsExcludeInactiveParam,
        Fixture::SandboxFailedMessageId,
        Fixture::PermanentFailedMessageId,
    ];

    /// Its name in the profile and in case files.
    pub const fn name(self) -> &'static str {
        match self {
            Fixture::UserId => "user_id",
            Fixture::PhoneNumberId => "phone_number_id",
            Fixture::PhoneNumber => "phone_number",
            Fixture::WebhookId => "webhook_id",
            Fixture::CustomFieldKey => "custom_field_key",
            Fixture::CustomFieldValue => "custom_field_value",
            Fixture::CustomFieldMultiKey => "custom_field_multi_key",
            Fixture::MessageDirection => "message_direction",
            Fixture::MessageParticipant => "message_participant",
            Fixture::MessageTimeSplit => "message_time_split",
            Fixture::ConversationId => "conversation_id",
            Fixture::GroupParticipants => "group_participants",
            Fixture::GroupConversationId => "group_conversation_id",
            Fixture::GroupSupersetParticipants => "group_superset_participants",
            Fixture::InactiveConversationId => "inactive_conversation_id",
            Fixture::SandboxConversationParticipant => "sandbox_conversation_participant",
            Fixture::UndeliveredMessageId => "undelivered_message_id",
            Fixture::MediaMessageId => "media_message_id",
            Fixture::CallId => "call_id",
            Fixture::CallParticipant => "call_participant",
            Fixture::CallStatus => "call_status",
            Fixture::VoicemailCallId => "voicemail_call_id",
            Fixture::SummaryCallId => "summary_call_id",
            Fixture::AvailableNumberCountry => "available_number_country",
            Fixture::TaskConversationId => "task_conversation_id",
            Fixture::OtherPhoneNumberId => "other_phone_number_id",
            Fixture::SandboxConversationId => "sandbox_conversation_id",
            Fixture::ConversationsExcludeInactiveParam => "conversations_exclude_inactive_param",
            Fixture::SandboxFailedMessageId => "sandbox_failed_message_id",
            Fixture::PermanentFailedMessageId => "permanent_failed_message_id",
        }
    }

    /// Whether a request can show it (`x-discovered: true`, or `with ...`, in the schema).
    pub const fn discoverable(self) -> bool {
        !matches!(
            self,
            Fixture::SandboxConversationId
                | Fixture::ConversationsExcludeInactiveParam
                | Fixture::SandboxFailedMessageId
                | Fixture::PermanentFailedMessageId
        )
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

const fn is_known(name: &str) -> bool {
    let mut i = 0;
    while i < KNOWN_FIXTURES.len() {
        if same(KNOWN_FIXTURES[i].0, name) {
            return true;
        }
        i += 1;
    }
    false
}

// At compile time: `ALL` holds each variant once, in order, and every name is the profile's.
const _: () = {
    let mut i = 0;
    while i < Fixture::ALL.len() {
        assert!(
            Fixture::ALL[i] as usize == i,
            "Fixture::ALL is out of order"
        );
        assert!(
            is_known(Fixture::ALL[i].name()),
            "a Fixture name is not in profile::KNOWN_FIXTURES"
        );
        i += 1;
    }
};

const DISCOVERABLE_COUNT: usize = {
    let (mut i, mut n) = (0, 0);
    while i < Fixture::ALL.len() {
        if Fixture::ALL[i].discoverable() {
            n += 1;
        }
        i += 1;
    }
    n
};

/// Fixtures a request can show (`x-discovered: true` in the schema); a unit test keeps the two
/// equal. Those with a condition need another fixture first (`x-discovered` says which).
pub const DISCOVERABLE: &[&str] = &{
    let mut names = [""; DISCOVERABLE_COUNT];
    let (mut i, mut n) = (0, 0);
    while i < Fixture::ALL.len() {
        if Fixture::ALL[i].discoverable() {
            names[n] = Fixture::ALL[i].name();
            n += 1;
        }
        i += 1;
    }
    names
};

/// `x-discovered` of a fixture in the schema: `true`, or the reason no request can show it, or
/// (for a conditional one) what it needs.
pub(crate) fn x_discovered(name: &str) -> Option<Value> {
    static SCHEMA: std::sync::LazyLock<Value> =
        std::sync::LazyLock::new(|| serde_json::from_str(PROFILE_SCHEMA).unwrap_or(Value::Null));
    SCHEMA
        .pointer(&format!(
            "/properties/fixtures/properties/{name}/x-discovered"
        ))
        .cloned()
}

/// What a fixture must hold, as the profile describes it.
pub(crate) fn meaning(name: &str) -> &'static str {
    KNOWN_FIXTURES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, d)| *d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_marks_exactly_the_discoverable_fixtures() {
        for (name, _) in KNOWN_FIXTURES {
            let x = x_discovered(name);
            let ok = match &x {
                Some(Value::Bool(true)) => DISCOVERABLE.contains(name),
                Some(Value::String(s)) if s.starts_with("with ") => DISCOVERABLE.contains(name),
                Some(Value::String(s)) => !s.is_empty() && !DISCOVERABLE.contains(name),
                _ => false,
            };
            assert!(
                ok,
                "x-discovered of `{name}` is {x:?}; DISCOVERABLE says otherwise"
            );
        }
    }
}
