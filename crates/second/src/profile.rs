//! The certification profile of an instance. OWNER: core.
//!
//! `{"apiKey": ..., "fixtures": {...}, "requestFields": {...}}` (docs/profile.md): the keys and
//! numbers of the directory, each area store's `fixtures()`, the hook's path and the run's timing
//! settings. Only fixture names the profile format knows are written (an unknown one would make
//! the certifier refuse the whole profile); an area that renames request fields puts a
//! `requestFields` object among its fixtures, which is lifted to the top level.

use std::net::SocketAddr;

use serde_json::{Map, Value, json};

use crate::app::App;
use crate::directory as d;

/// Every fixture name the profile format defines (docs/profile.md).
const KNOWN: &[&str] = &[
    "restricted_api_key",
    "user_id",
    "phone_number_id",
    "phone_number",
    "webhook_id",
    "custom_field_key",
    "custom_field_value",
    "custom_field_multi_key",
    "brand_name",
    "automation_integration_name",
    "contacts_sync_integration_name",
    "message_direction",
    "message_participant",
    "message_time_split",
    "conversation_id",
    "group_participants",
    "group_conversation_id",
    "group_superset_participants",
    "inactive_conversation_id",
    "sandbox_conversation_id",
    "sandbox_conversation_participant",
    "sandbox_failed_message_id",
    "permanent_failed_message_id",
    "undelivered_message_id",
    "media_message_id",
    "conversations_exclude_inactive_param",
    "conversations_updated_after_param",
    "conversations_updated_before_param",
    "sandbox_recipient_number",
    "sandbox_group_recipient_numbers",
    "sandbox_eleven_recipient_numbers",
    "sandbox_international_number",
    "international_disabled_api_key",
    "international_disabled_phone_number",
    "subscription_expired_api_key",
    "subscription_expired_phone_number",
    "a2p_unapproved_phone_number",
    "a2p_capped_phone_number",
    "call_id",
    "call_participant",
    "call_status",
    "voicemail_call_id",
    "summary_call_id",
    "available_number_country",
    "open_task_limit",
    "task_conversation_id",
    "other_phone_number_id",
    "activity_trigger_path",
    "webhook_delivery_seconds",
    "webhook_retry_seconds",
    "webhook_quiet_seconds",
    "effect_seconds",
    "webhook_secret_pointer",
];

/// Every `requestFields` key the profile format defines.
const KNOWN_REQUEST_FIELDS: &[&str] = &[
    "message.text",
    "message.to",
    "message.from",
    "task.title",
    "task.description",
    "task.phoneNumberId",
    "task.conversationId",
    "task.activityId",
    "task.dueDate",
];

/// The fixtures of the directory and the hook.
fn core_fixtures() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("user_id".into(), json!(d::OWNER_USER));
    m.insert("phone_number_id".into(), json!(d::MAIN_NUMBER));
    m.insert("phone_number".into(), json!(d::MAIN_E164));
    m.insert("other_phone_number_id".into(), json!(d::SECOND_NUMBER));
    m.insert("restricted_api_key".into(), json!(d::RESTRICTED_KEY));
    m.insert(
        "international_disabled_api_key".into(),
        json!(d::INTL_DISABLED_KEY),
    );
    m.insert(
        "international_disabled_phone_number".into(),
        json!(d::INTL_DISABLED_E164),
    );
    m.insert("subscription_expired_api_key".into(), json!(d::EXPIRED_KEY));
    m.insert(
        "subscription_expired_phone_number".into(),
        json!(d::EXPIRED_E164),
    );
    m.insert(
        "a2p_unapproved_phone_number".into(),
        json!(d::A2P_UNAPPROVED_E164),
    );
    m.insert("a2p_capped_phone_number".into(), json!(d::A2P_CAPPED_E164));
    m.insert("available_number_country".into(), json!("US"));
    m.insert("activity_trigger_path".into(), json!(crate::hook::PATH));
    m
}

/// Timing settings used where no area gives its own (the webhooks area gives the webhook ones).
fn default_timing() -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("webhook_delivery_seconds".into(), json!(10));
    m.insert("webhook_retry_seconds".into(), json!(20));
    m.insert("webhook_quiet_seconds".into(), json!(3));
    m.insert("effect_seconds".into(), json!(6));
    m
}

/// The profile (JSON text) of this instance's fixtures and keys.
pub fn profile_json(app: &App, _addr: SocketAddr) -> String {
    let mut fixtures = core_fixtures();
    let mut request_fields = Map::new();
    let areas = [
        app.contacts.fixtures(),
        app.tasks.fixtures(),
        app.messaging.fixtures(),
        app.calls.fixtures(),
        app.webhooks.fixtures(),
    ];
    for area in areas {
        for (k, v) in area {
            if k == "requestFields" {
                if let Value::Object(rf) = v {
                    for (rk, rv) in rf {
                        if KNOWN_REQUEST_FIELDS.contains(&rk.as_str()) && rv.is_string() {
                            request_fields.insert(rk, rv);
                        }
                    }
                }
            } else if KNOWN.contains(&k.as_str()) && !v.is_null() {
                // The directory's own values win over an area's copy of them.
                fixtures.entry(k).or_insert(v);
            }
        }
    }
    for (k, v) in default_timing() {
        fixtures.entry(k).or_insert(v);
    }
    let mut profile = Map::new();
    profile.insert("apiKey".into(), json!(d::PRIMARY_KEY));
    profile.insert("fixtures".into(), Value::Object(fixtures));
    if !request_fields.is_empty() {
        profile.insert("requestFields".into(), Value::Object(request_fields));
    }
    serde_json::to_string_pretty(&Value::Object(profile)).unwrap_or_else(|_| "{}".to_string())
}
