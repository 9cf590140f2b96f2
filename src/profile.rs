//! The target profile: the API key and the existing fixtures of a target that cases need.
//!
//! The same format is read by `--profile` and written by `serve --profile-out`.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A target's profile: its API key and its named fixtures (ids, numbers, settings).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Profile {
    /// API key used for every request unless `--api-key` or `WORKSPACE_API_KEY` is given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
    /// Named fixtures, usable in case files as `{{name}}`. A value is a string, a number,
    /// a boolean or an array of those.
    #[serde(default)]
    pub fixtures: BTreeMap<String, Value>,
}

/// Why a profile could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot read profile {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("bad profile {path}: {detail}")]
    Parse { path: String, detail: String },
}

impl Profile {
    /// Reads a JSON profile file, reporting the file, line and column of a syntax or shape error.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
            path: shown.clone(),
            source,
        })?;
        let profile: Profile = serde_json::from_str(&text).map_err(|e| ProfileError::Parse {
            path: shown.clone(),
            detail: format!("line {} column {}: {e}", e.line(), e.column()),
        })?;
        for (name, value) in &profile.fixtures {
            if !fixture_value_is_valid(value) {
                return Err(ProfileError::Parse {
                    path: shown,
                    detail: format!(
                        "fixture `{name}` must be a string, number, boolean or an array of those"
                    ),
                });
            }
        }
        Ok(profile)
    }

    /// Values of the API key and of fixtures that hold secrets (API keys, webhook secrets): redacted in every output.
    pub fn secret_values(&self) -> Vec<String> {
        let mut out: Vec<String> = self.api_key.iter().cloned().collect();
        for (name, value) in &self.fixtures {
            if is_secret_name(name) {
                if let Some(s) = value.as_str() {
                    out.push(s.to_string());
                }
            }
        }
        out
    }
}

/// Fixture names ending in `api_key` or `_secret` hold secrets.
pub fn is_secret_name(name: &str) -> bool {
    name.ends_with("api_key") || name.ends_with("_secret")
}

fn fixture_value_is_valid(value: &Value) -> bool {
    match value {
        Value::String(_) | Value::Number(_) | Value::Bool(_) => true,
        Value::Array(items) => items
            .iter()
            .all(|v| matches!(v, Value::String(_) | Value::Number(_) | Value::Bool(_))),
        _ => false,
    }
}

/// The fixtures case files may name, with what each must hold. A template naming anything else
/// is a load error, so a typo never turns into a silently ignored case.
pub const KNOWN_FIXTURES: &[(&str, &str)] = &[
    (
        "restricted_api_key",
        "a second valid API key, of a user who is not a user of `phone_number_id`",
    ),
    ("user_id", "the id (US...) of the user of the API key"),
    (
        "phone_number_id",
        "the id (PN...) of a phone number of the workspace",
    ),
    ("phone_number", "the E.164 number of `phone_number_id`"),
    (
        "webhook_id",
        "the numeric id of an existing webhook, only read",
    ),
    (
        "custom_field_key",
        "the key of a workspace custom field that takes a string value",
    ),
    (
        "custom_field_multi_key",
        "the key of a workspace multi-select custom field",
    ),
    (
        "brand_name",
        "the service's brand name, reserved in contact sources",
    ),
    (
        "automation_integration_name",
        "an automation integration name, reserved in contact sources",
    ),
    (
        "contacts_sync_integration_name",
        "a contacts-sync integration name, reserved in contact sources",
    ),
    // --- messages and conversations (issue 4): add this area's fixtures below ---

    // --- calls, recordings, users, phone numbers, organization, access control (issue 5): add this area's fixtures below ---
    (
        "call_id",
        "the id (AC...) of a call of `phone_number_id` with `call_participant`, handled by `user_id` (a user of `phone_number_id`), with a recording of two or more segments and a transcript",
    ),
    (
        "call_participant",
        "the E.164 number of the other party of `call_id` (not a workspace number)",
    ),
    (
        "voicemail_call_id",
        "the id (AC...) of a call of `phone_number_id` that has a voicemail and an AI summary",
    ),
    (
        "available_number_country",
        "a country code (sent as `country`) in which GET /phone-numbers/available finds numbers; nothing is bought",
    ),
    // --- tasks (issue 6): add this area's fixtures below ---
    (
        "open_task_limit",
        "the workspace's open-task limit (a number): how many open tasks it keeps before a create answers 402",
    ),
    (
        "task_conversation_id",
        "the id (CN...) of a conversation that tasks may be linked to; the conversation itself is not changed",
    ),
];
