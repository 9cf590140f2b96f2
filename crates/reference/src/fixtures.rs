//! The seeded workspace: API keys, users, custom field definitions, contacts and webhooks.
//!
//! Everything here is fixed (ids, keys, 2026 timestamps) so that a profile written by one run
//! is valid for the next, and a failure can be replayed against a fresh instance.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};

use super::contact_input::{ContactInput, CustomFieldInput, EntryInput, ReservedNames};
use super::messaging;
use super::model::{CustomFieldDef, Webhook};
use super::paths::{API_VERSION, TRIGGER_PATH};
use super::store::Store;
use super::task_store::{NewTask, OPEN_TASK_LIMIT};
use super::variants::Variant;
use super::workspace;
use conformance_contract::profile::Profile;

const PRIMARY_KEY: &str = "wsk_live_7fQ2mZ9xKc4LrT8vWb1NhY6dPa3E";
const RESTRICTED_KEY: &str = "wsk_live_3JpX8sVn2QeR5tLm9KaZ4wHcGu7B";
const PRIMARY_USER: &str = "USa1B2c3D4e5";
const RESTRICTED_USER: &str = "USf6G7h8J9k0";
/// Keys of users whose workspaces are in the states the messaging rules name.
const INTL_DISABLED_KEY: &str = "wsk_live_9Ht4Rq2LmZ8xVb6NcW1KpJ5sDy3G";
const INTL_DISABLED_USER: &str = "USi9N8t7L6o5";
const EXPIRED_KEY: &str = "wsk_live_5Gd8Lw3QnT7vXc2MbR9KzH4pFj6S";
const EXPIRED_USER: &str = "USe4X3p2I1r0";
pub(crate) const ORG_ID: &str = "ORw0rk5p4c3e";
const TEXT_FIELD_KEY: &str = "notes";
const MULTI_FIELD_KEY: &str = "interests";
/// What the multi-select field offers; a value outside them is an invalid custom field item.
const MULTI_FIELD_OPTIONS: [&str; 4] = ["sales", "support", "billing", "partners"];
const WEBHOOK_ID: &str = "1001";
const BRAND: &str = "workspace";
const AUTOMATION_INTEGRATION: &str = "autoflow";
const CONTACTS_SYNC_INTEGRATION: &str = "contactsync";

/// An accepted API key and the user it acts as.
#[derive(Debug, Clone)]
pub(crate) struct ApiKey {
    pub key: &'static str,
    pub user_id: &'static str,
}

/// The primary key first: a request without credentials is served as it when a fault says so.
pub(crate) fn api_keys() -> Vec<ApiKey> {
    vec![
        ApiKey {
            key: PRIMARY_KEY,
            user_id: PRIMARY_USER,
        },
        ApiKey {
            key: RESTRICTED_KEY,
            user_id: RESTRICTED_USER,
        },
        ApiKey {
            key: INTL_DISABLED_KEY,
            user_id: INTL_DISABLED_USER,
        },
        ApiKey {
            key: EXPIRED_KEY,
            user_id: EXPIRED_USER,
        },
    ]
}

pub(crate) fn reserved_names() -> ReservedNames {
    ReservedNames {
        brand: BRAND.to_string(),
        automation_integration: AUTOMATION_INTEGRATION.to_string(),
        contacts_sync_integration: CONTACTS_SYNC_INTEGRATION.to_string(),
    }
}

/// The profile of an instance with these variants: a variant that names a request field its own
/// way declares it in `requestFields` (READINGS 6.1), and a profile variant gives its fixtures at
/// the weakest reading their documentation allows.
pub(crate) fn profile_for(variants: &super::variants::VariantSet) -> Profile {
    let mut p = profile();
    if variants.has(Variant::MessageTextContent) {
        p.request_fields
            .insert("message.text".to_string(), "content".to_string());
    }
    if variants.has(Variant::GroupRecipients10) {
        // The other end of the stated range (2 to 10, READINGS 6.5).
        p.fixtures.insert(
            "sandbox_group_recipient_numbers".to_string(),
            json!(
                (0..10)
                    .map(|i| format!("+141555501{:02}", 70 + i))
                    .collect::<Vec<_>>()
            ),
        );
    }
    let mut set = |name: &str, value: Value| {
        p.fixtures.insert(name.to_string(), value);
    };
    if variants.has(Variant::OwnWorkspaceKeys) {
        // "A workspace whose ... is disabled / has expired": the run's own, by its own key.
        set("international_disabled_api_key", json!(PRIMARY_KEY));
        set("subscription_expired_api_key", json!(PRIMARY_KEY));
        set("international_disabled_phone_number", json!(phone_number()));
        set("subscription_expired_phone_number", json!(phone_number()));
    }
    if variants.has(Variant::SharedNumbers) {
        let shared = json!(messaging::seed().participant);
        set("call_participant", shared.clone());
        set("sandbox_recipient_number", shared);
    }
    if variants.has(Variant::FewestItems) {
        let failed = p.fixtures.get("sandbox_failed_message_id").cloned();
        if let Some(Value::String(one)) = failed {
            p.fixtures
                .insert("sandbox_failed_message_id".to_string(), json!([one]));
        }
        p.fixtures.insert(
            "sandbox_group_recipient_numbers".to_string(),
            json!(["+14155550198", "+14155550197"]),
        );
    }
    if variants.has(Variant::NoFixtures) {
        p.fixtures.clear();
    }
    p
}

/// The id of the primary line of the seed (`seed.json`): the profile's `phone_number_id`.
fn phone_number_id() -> &'static str {
    messaging::seed().line_id("primary")
}

/// The number of the primary line of the seed: the profile's `phone_number`.
fn phone_number() -> &'static str {
    messaging::seed().number("primary")
}

pub(crate) fn profile() -> Profile {
    let (_, ids) = messaging::seeded(PRIMARY_USER, RESTRICTED_USER);
    let fixtures: BTreeMap<String, Value> = [
        ("restricted_api_key", RESTRICTED_KEY),
        ("user_id", PRIMARY_USER),
        ("phone_number_id", phone_number_id()),
        ("phone_number", phone_number()),
        ("webhook_id", WEBHOOK_ID),
        ("custom_field_key", TEXT_FIELD_KEY),
        // A value the seeded contacts hold under it (the first contact's).
        ("custom_field_value", "Seeded note 1"),
        ("custom_field_multi_key", MULTI_FIELD_KEY),
        ("brand_name", BRAND),
        ("automation_integration_name", AUTOMATION_INTEGRATION),
        ("contacts_sync_integration_name", CONTACTS_SYNC_INTEGRATION),
        // --- messages and conversations (issue 4): add this area's fixtures below ---
        ("message_direction", "outgoing"),
        (
            "message_participant",
            messaging::seed().participant.as_str(),
        ),
        ("message_time_split", messaging::seed().time_split.as_str()),
        ("conversation_id", ids.conversation.as_str()),
        ("group_conversation_id", ids.group_conversation.as_str()),
        (
            "inactive_conversation_id",
            ids.inactive_conversation.as_str(),
        ),
        ("sandbox_conversation_id", ids.sandbox_conversation.as_str()),
        (
            "sandbox_conversation_participant",
            messaging::seed().sandbox_participant.as_str(),
        ),
        ("sandbox_failed_message_id", ids.failed_message.as_str()),
        (
            "permanent_failed_message_id",
            ids.permanent_failed_message.as_str(),
        ),
        ("undelivered_message_id", ids.undelivered_message.as_str()),
        ("media_message_id", ids.media_message.as_str()),
        (
            "conversations_exclude_inactive_param",
            messaging::EXCLUDE_INACTIVE,
        ),
        (
            "conversations_updated_after_param",
            messaging::UPDATED_AFTER,
        ),
        (
            "conversations_updated_before_param",
            messaging::UPDATED_BEFORE,
        ),
        ("sandbox_recipient_number", "+14155550199"),
        ("sandbox_international_number", "+447700900123"),
        ("international_disabled_api_key", INTL_DISABLED_KEY),
        (
            "international_disabled_phone_number",
            messaging::seed().number("international_disabled"),
        ),
        ("subscription_expired_api_key", EXPIRED_KEY),
        (
            "subscription_expired_phone_number",
            messaging::seed().number("subscription_expired"),
        ),
        (
            "a2p_unapproved_phone_number",
            messaging::seed().number("a2p_unapproved"),
        ),
        (
            "a2p_capped_phone_number",
            messaging::seed().number("a2p_capped"),
        ),
        // --- calls, recordings, users, phone numbers, organization, access control (issue 5): add this area's fixtures below ---
        ("call_id", workspace::CALL_ID),
        ("call_participant", workspace::CALL_PARTICIPANT),
        ("call_status", "completed"),
        ("voicemail_call_id", workspace::VOICEMAIL_CALL_ID),
        ("summary_call_id", workspace::CALL_ID),
        ("available_number_country", workspace::AVAILABLE_COUNTRY),
        // --- tasks (issue 6): add this area's fixtures below ---
        ("task_conversation_id", TASK_CONVERSATION_ID),
        // --- webhooks (issue 7) ---
        ("other_phone_number_id", workspace::SHARED_NUMBER_ID),
        ("activity_trigger_path", TRIGGER_PATH),
    ]
    .into_iter()
    .map(|(name, value)| (name.to_string(), json!(value)))
    .chain([
        ("open_task_limit".to_string(), json!(OPEN_TASK_LIMIT)),
        // The reference delivers within tens of milliseconds and retries after 60 ms.
        ("webhook_delivery_seconds".to_string(), json!(5)),
        ("webhook_retry_seconds".to_string(), json!(5)),
        ("webhook_quiet_seconds".to_string(), json!(0.3)),
        // Every effect of the reference shows at once: a poll waits only under a fault.
        ("effect_seconds".to_string(), json!(1)),
        // --- messages and conversations (issue 4): array fixtures ---
        (
            "group_participants".to_string(),
            json!(messaging::seed().group),
        ),
        (
            "group_superset_participants".to_string(),
            json!(messaging::seed().group_superset),
        ),
        (
            "sandbox_group_recipient_numbers".to_string(),
            json!(["+14155550198", "+14155550197"]),
        ),
        (
            "sandbox_eleven_recipient_numbers".to_string(),
            json!(
                (20..31)
                    .map(|i| format!("+141555502{i:02}"))
                    .collect::<Vec<_>>()
            ),
        ),
    ])
    .collect();
    Profile {
        api_key: Some(PRIMARY_KEY.to_string()),
        fixtures,
        request_fields: Default::default(),
    }
}

/// A fresh store holding the seeded workspace, as the profile variants among `variants` need it.
pub(crate) fn seeded_store(variants: &super::variants::VariantSet) -> Store {
    let mut store = Store::default();
    for (key, name, kind, options) in [
        (TEXT_FIELD_KEY, "Notes", "string", &[][..]),
        (
            MULTI_FIELD_KEY,
            "Interests",
            "multi-select",
            &MULTI_FIELD_OPTIONS[..],
        ),
        ("tier", "Tier", "string", &[][..]),
    ] {
        store.add_custom_field_def(CustomFieldDef {
            key: key.to_string(),
            name: name.to_string(),
            kind: kind.to_string(),
            options: options.iter().map(|o| o.to_string()).collect(),
        });
    }
    seed_contacts(&mut store);
    seed_webhooks(&mut store);
    seed_tasks(&mut store);
    let mut seeded = workspace::seed(
        PRIMARY_USER,
        RESTRICTED_USER,
        ORG_ID,
        phone_number_id(),
        phone_number(),
    );
    if variants.has(Variant::SharedNumbers) {
        seeded = seeded.with_call_participant(&messaging::seed().participant);
    }
    store.set_workspace(seeded);
    store.messaging = messaging::seeded(PRIMARY_USER, RESTRICTED_USER).0;
    store
}

/// A conversation tasks may be linked to (the reference accepts any `CN` id as a link).
const TASK_CONVERSATION_ID: &str = "CNt4sKc0nv01";

/// Three seeded tasks, two of them open, so that filling to the limit must count what exists.
fn seed_tasks(store: &mut Store) {
    let tasks = store.tasks_mut();
    for (i, (title, completed)) in [
        ("Call back about the quote", false),
        ("Send the signed contract", true),
        ("Follow up on the voicemail", false),
    ]
    .into_iter()
    .enumerate()
    {
        let input = NewTask {
            title: title.to_string(),
            description: Some(format!("Seeded task {}", i + 1)),
            phone_number_id: Some(phone_number_id().to_string()),
            conversation_id: (i == 2).then(|| TASK_CONVERSATION_ID.to_string()),
            ..NewTask::default()
        };
        tasks.seed(input, ORG_ID, PRIMARY_USER, completed);
    }
}

const FIRST_NAMES: [&str; 5] = ["Ada", "Grace", "Alan", "Edsger", "Barbara"];
const LAST_NAMES: [&str; 5] = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov"];
const COMPANIES: [&str; 3] = ["Analytical Engines", "Compilers Inc", "Enigma Ltd"];

/// 25 contacts, more than two default pages, with a mix of sources and of filled fields.
fn seed_contacts(store: &mut Store) {
    let start = datetime!(2026-01-05 09:00 UTC);
    for i in 1..=25usize {
        let at: OffsetDateTime = start + Duration::minutes(37 * i as i64);
        let source = match i {
            _ if i % 5 == 0 => Some("hubspot".to_string()),
            _ if i % 3 == 0 => None,
            _ => Some("public-api".to_string()),
        };
        let mut custom_fields = Vec::new();
        if i % 3 == 1 {
            custom_fields.push(CustomFieldInput {
                id: None,
                key: TEXT_FIELD_KEY.to_string(),
                value: json!(format!("Seeded note {i}")),
            });
        }
        if i % 6 == 1 {
            custom_fields.push(CustomFieldInput {
                id: None,
                key: MULTI_FIELD_KEY.to_string(),
                value: json!(["sales", "support"]),
            });
        }
        let first = FIRST_NAMES[i % FIRST_NAMES.len()];
        let emails = if i % 2 == 1 {
            vec![EntryInput {
                id: None,
                name: Some("work".to_string()),
                value: format!("{}.{i:03}@example.test", first.to_lowercase()),
            }]
        } else {
            Vec::new()
        };
        let phone_numbers = if i % 4 == 1 {
            vec![EntryInput {
                id: None,
                name: Some("mobile".to_string()),
                value: format!("+1415555{i:04}"),
            }]
        } else {
            Vec::new()
        };
        let input = ContactInput {
            external_id: Some(format!("seed-{i:03}")),
            source_url: source
                .as_deref()
                .filter(|s| *s == "hubspot")
                .map(|_| format!("https://crm.example.test/contacts/{i}")),
            company: (i % 2 == 0).then(|| COMPANIES[i % COMPANIES.len()].to_string()),
            first_name: Some(first.to_string()),
            last_name: Some(LAST_NAMES[(i / 5) % LAST_NAMES.len()].to_string()),
            role: (i % 4 == 2).then(|| "Engineer".to_string()),
            emails,
            phone_numbers,
            custom_fields,
            ..ContactInput::default()
        };
        store.create_contact(input, source, Some(PRIMARY_USER.to_string()), at);
    }
}

fn seed_webhooks(store: &mut Store) {
    let at = datetime!(2026-01-10 12:00 UTC);
    store.add_webhook(Webhook {
        id: WEBHOOK_ID.to_string(),
        org_id: ORG_ID.to_string(),
        label: Some("Message events".to_string()),
        status: "enabled".to_string(),
        url: "https://hooks.workspace.example/messages".to_string(),
        created_at: at,
        updated_at: at,
        api_version: Some(API_VERSION.to_string()),
        events: vec!["message.received".into(), "message.delivered".into()],
        resource_ids: vec![phone_number_id().to_string()],
    });
    let at = datetime!(2026-01-12 08:30 UTC);
    store.add_webhook(Webhook {
        id: "1002".to_string(),
        org_id: ORG_ID.to_string(),
        label: None,
        status: "enabled".to_string(),
        url: "https://hooks.workspace.example/calls".to_string(),
        created_at: at,
        updated_at: at + Duration::days(3),
        api_version: Some(API_VERSION.to_string()),
        events: vec![
            "call.completed".into(),
            "call.ringing".into(),
            "call.recording.completed".into(),
        ],
        resource_ids: vec!["*".to_string()],
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seeds_are_deterministic_and_match_the_profile() {
        let a = seeded_store(&Default::default());
        let b = seeded_store(&Default::default());
        assert_eq!(a.contacts(), b.contacts());
        assert_eq!(a.contacts().len(), 25);
        assert!(a.contacts().iter().all(|c| {
            c.id.len() == 24
                && c.id
                    .bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        }));
        let profile = profile();
        let fixture = |name: &str| profile.fixtures.get(name).and_then(Value::as_str);
        assert!(
            a.webhook(fixture("webhook_id").unwrap_or_default())
                .is_some()
        );
        for name in ["custom_field_key", "custom_field_multi_key"] {
            let key = fixture(name).unwrap_or_default();
            assert!(a.custom_field_defs().iter().any(|d| d.key == key), "{name}");
        }
        let keys = api_keys();
        assert_eq!(profile.api_key.as_deref(), Some(keys[0].key));
        assert_eq!(fixture("restricted_api_key"), Some(keys[1].key));
        assert_eq!(fixture("user_id"), Some(keys[0].user_id));
    }
}
