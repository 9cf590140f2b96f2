//! The target profile: the API key and the existing fixtures of a target that cases need.
//!
//! The same format is read by `--profile` and written by `serve --profile-out`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

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
    /// Request field names the spec does not show, renamed to the target's (READINGS 6.1):
    /// `"message.text": "content"`. Keys are those of [`REQUEST_FIELDS`]; the suite sends the
    /// renamed field only.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub request_fields: BTreeMap<String, String>,
}

/// The request fields whose names the spec does not show (READINGS 6.1), renameable in a
/// profile's `requestFields`: (key, method, route template, body field, what it holds).
pub const REQUEST_FIELDS: &[(&str, &str, &str, &str, &str)] = &[
    (
        "message.text",
        "POST",
        "/v1/messages",
        "text",
        "the text of a message sent",
    ),
    (
        "message.to",
        "POST",
        "/v1/messages",
        "to",
        "the recipients of a message sent",
    ),
    (
        "message.from",
        "POST",
        "/v1/messages",
        "from",
        "the sending number of a message sent",
    ),
    (
        "task.title",
        "POST",
        "/v1/tasks",
        "title",
        "the title of a task created",
    ),
    (
        "task.description",
        "POST",
        "/v1/tasks",
        "description",
        "the description of a task created",
    ),
    (
        "task.phoneNumberId",
        "POST",
        "/v1/tasks",
        "phoneNumberId",
        "the phone number a task created is linked to",
    ),
    (
        "task.conversationId",
        "POST",
        "/v1/tasks",
        "conversationId",
        "the conversation a task created is linked to",
    ),
    (
        "task.activityId",
        "POST",
        "/v1/tasks",
        "activityId",
        "the activity a task created is linked to",
    ),
    (
        "task.dueDate",
        "POST",
        "/v1/tasks",
        "dueDate",
        "the due date of a task created",
    ),
];

impl Profile {
    /// The body fields of `method` on the route `template` renamed by `requestFields`:
    /// (spec name, target name).
    pub fn renamed_fields(&self, method: &str, template: &str) -> Vec<(&'static str, &str)> {
        REQUEST_FIELDS
            .iter()
            .filter(|(_, m, t, _, _)| *m == method && *t == template)
            .filter_map(|(key, _, _, field, _)| {
                self.request_fields
                    .get(*key)
                    .map(|to| (*field, to.as_str()))
                    .filter(|(from, to)| from != to)
            })
            .collect()
    }

    /// Checks `requestFields`: known keys, a plain name each, no two fields of one request
    /// under one name.
    pub(crate) fn check_request_fields(&self) -> Result<(), RequestFieldError> {
        for (key, to) in &self.request_fields {
            let Some((_, m, t, _, _)) = REQUEST_FIELDS.iter().find(|(k, ..)| k == key) else {
                return Err(RequestFieldError::Unknown { key: key.clone() });
            };
            if to.is_empty() || to.chars().any(|c| c.is_whitespace() || c.is_control()) {
                return Err(RequestFieldError::NotAName { key: key.clone() });
            }
            // Another field of the same request, renamed or not, must not end up under it.
            let clash = REQUEST_FIELDS
                .iter()
                .filter(|(k, m2, t2, _, _)| k != key && m2 == m && t2 == t)
                .find(|(k, _, _, f, _)| {
                    self.request_fields.get(*k).map_or(*f, |s| s.as_str()) == to
                });
            if let Some((other, ..)) = clash {
                return Err(RequestFieldError::Clash {
                    key: key.clone(),
                    other,
                    to: to.clone(),
                });
            }
        }
        Ok(())
    }
}

/// A `requestFields` entry that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RequestFieldError {
    #[error("requestFields: unknown field `{key}` (renameable: {})", renameable())]
    Unknown { key: String },
    #[error("requestFields: `{key}` must be a field name without whitespace")]
    NotAName { key: String },
    #[error("requestFields: `{key}` and `{other}` would both be sent as `{to}`")]
    Clash {
        key: String,
        other: &'static str,
        to: String,
    },
}

/// The keys of [`REQUEST_FIELDS`], for the message naming an unknown one.
fn renameable() -> String {
    let known: Vec<&str> = REQUEST_FIELDS.iter().map(|(k, ..)| *k).collect();
    known.join(", ")
}

/// Why a profile could not be used.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("cannot read profile {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("bad profile {path}: {kind}")]
    Bad {
        path: String,
        kind: Box<ProfileErrorKind>,
    },
}

/// What is wrong with a profile that was read, with where: the line and column of a syntax
/// error, the line and JSON Pointer of a value, the fixture and the closest known name.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ProfileErrorKind {
    #[error("line {line} column {column}: {source}")]
    Syntax {
        line: usize,
        column: usize,
        source: Arc<serde_json::Error>,
    },
    #[error("line {line}, at {pointer}: unknown fixture `{name}`{}", closest_hint(*closest))]
    UnknownFixture {
        line: usize,
        pointer: String,
        name: String,
        /// The known fixture within a few edits of `name`, if any.
        closest: Option<&'static str>,
    },
    #[error(
        "line {line}, at /fixtures/activity_trigger_path: fixture `activity_trigger_path` must be a path starting with /"
    )]
    HookNotAPath { line: usize },
    /// The embedded `schemas/profile.schema.json` does not compile (a broken build of the
    /// suite, never a profile).
    #[error("bad schemas/profile.schema.json: {0}")]
    ProfileSchema(String),
    /// A value `schemas/profile.schema.json` refuses; `fixture` is the fixture's name and its
    /// type and range in words when the value is a fixture's.
    #[error(
        "line {line}, at {}: {message}{}",
        if pointer.is_empty() { "/" } else { pointer.as_str() },
        fixture_range(fixture)
    )]
    Schema {
        line: usize,
        pointer: String,
        message: String,
        fixture: Option<(String, String)>,
    },
    /// A value the schema lets through but the profile model cannot take.
    #[error("{0}")]
    Shape(Arc<serde_json::Error>),
    #[error("fixture `{name}` must be a string, number, boolean or an array of those")]
    FixtureValue { name: String },
    #[error(transparent)]
    RequestField(#[from] RequestFieldError),
}

fn closest_hint(closest: Option<&str>) -> String {
    match closest {
        Some(k) => format!("; did you mean `{k}`?"),
        None => "; docs/profile.md lists the fixtures".to_string(),
    }
}

fn fixture_range(fixture: &Option<(String, String)>) -> String {
    fixture
        .as_ref()
        .map(|(name, range)| format!(" (`{name}` is {range})"))
        .unwrap_or_default()
}

impl ProfileError {
    /// The variant's name, for tests that require an input for every kind.
    pub fn name(&self) -> &'static str {
        match self {
            ProfileError::Read { .. } => "Read",
            ProfileError::Bad { .. } => "Bad",
        }
    }
}

impl ProfileErrorKind {
    /// The variant's name, for tests that require an input for every kind.
    pub fn name(&self) -> &'static str {
        match self {
            ProfileErrorKind::Syntax { .. } => "Syntax",
            ProfileErrorKind::UnknownFixture { .. } => "UnknownFixture",
            ProfileErrorKind::HookNotAPath { .. } => "HookNotAPath",
            ProfileErrorKind::ProfileSchema(_) => "ProfileSchema",
            ProfileErrorKind::Schema { .. } => "Schema",
            ProfileErrorKind::Shape(_) => "Shape",
            ProfileErrorKind::FixtureValue { .. } => "FixtureValue",
            ProfileErrorKind::RequestField(_) => "RequestField",
        }
    }
}

impl RequestFieldError {
    /// The variant's name, for tests that require an input for every kind.
    pub fn name(&self) -> &'static str {
        match self {
            RequestFieldError::Unknown { .. } => "Unknown",
            RequestFieldError::NotAName { .. } => "NotAName",
            RequestFieldError::Clash { .. } => "Clash",
        }
    }
}

impl Profile {
    /// Reads a JSON profile file, reporting the file, line and column of a syntax error, and the
    /// line and JSON Pointer of a value `schemas/profile.schema.json` refuses. An unknown
    /// fixture is refused with the closest known name: a typo must not silently ignore the cases
    /// that need the fixture.
    pub fn load(path: &Path) -> Result<Profile, ProfileError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ProfileError::Read {
            path: shown.clone(),
            source,
        })?;
        Profile::parse(&text).map_err(|kind| ProfileError::Bad {
            path: shown,
            kind: Box::new(kind),
        })
    }

    /// A profile from its JSON text: [`Profile::load`] without the file.
    fn parse(text: &str) -> Result<Profile, ProfileErrorKind> {
        let value: Value = serde_json::from_str(text).map_err(|e| ProfileErrorKind::Syntax {
            line: e.line(),
            column: e.column(),
            source: Arc::new(e),
        })?;
        // JSON is YAML: the YAML reader knows the line of every pointer.
        let lines = crate::yaml::parse(text).ok().map(|(_, l)| l);
        let line_of = |pointer: &str| lines.as_ref().map_or(0, |l| l.line_of(pointer));
        if let Some(fixtures) = value.get("fixtures").and_then(Value::as_object) {
            for name in fixtures.keys() {
                if KNOWN_FIXTURES.iter().any(|(k, _)| k == name) {
                    continue;
                }
                let closest = KNOWN_FIXTURES
                    .iter()
                    .map(|(k, _)| (strsim::levenshtein(name, k), *k))
                    .min()
                    .filter(|(d, k)| *d <= 3.max(k.len() / 4))
                    .map(|(_, k)| k);
                let pointer = format!("/fixtures/{}", pointer_token(name));
                return Err(ProfileErrorKind::UnknownFixture {
                    line: line_of(&pointer),
                    pointer,
                    name: name.clone(),
                    closest,
                });
            }
        }
        // A hook is requested as a path of the target; anything else would go elsewhere.
        if let Some(p) = value.pointer("/fixtures/activity_trigger_path") {
            if !p.as_str().is_some_and(|p| p.starts_with('/')) {
                return Err(ProfileErrorKind::HookNotAPath {
                    line: line_of("/fixtures/activity_trigger_path"),
                });
            }
        }
        if let Some(e) = profile_validator()?.iter_errors(&value).next() {
            let pointer = e.instance_path().to_string();
            let fixture = pointer.strip_prefix("/fixtures/").and_then(fixture_schema);
            return Err(ProfileErrorKind::Schema {
                line: line_of(&pointer),
                message: e.to_string(),
                pointer,
                fixture,
            });
        }
        let profile: Profile =
            serde_json::from_value(value).map_err(|e| ProfileErrorKind::Shape(Arc::new(e)))?;
        for (name, value) in &profile.fixtures {
            if !fixture_value_is_valid(value) {
                return Err(ProfileErrorKind::FixtureValue { name: name.clone() });
            }
        }
        profile.check_request_fields()?;
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

/// `schemas/profile.schema.json`: every fixture with its type, range and meaning.
pub const PROFILE_SCHEMA: &str = include_str!("../../../schemas/profile.schema.json");

fn profile_validator() -> Result<&'static jsonschema::Validator, ProfileErrorKind> {
    static VALIDATOR: std::sync::LazyLock<Result<jsonschema::Validator, ProfileErrorKind>> =
        std::sync::LazyLock::new(|| {
            let bad = |e: String| ProfileErrorKind::ProfileSchema(e);
            let schema: Value =
                serde_json::from_str(PROFILE_SCHEMA).map_err(|e| bad(e.to_string()))?;
            jsonschema::validator_for(&schema).map_err(|e| bad(e.to_string()))
        });
    VALIDATOR.as_ref().map_err(Clone::clone)
}

/// A fixture's type and range as the schema states them, in words (`a number, at least 0`).
pub(crate) fn fixture_schema(name: &str) -> Option<(String, String)> {
    let schema: Value = serde_json::from_str(PROFILE_SCHEMA).ok()?;
    let s = schema.pointer(&format!("/properties/fixtures/properties/{name}"))?;
    Some((name.to_string(), type_in_words(s)))
}

/// The README's fixture table (`--list-fixtures --markdown`): every fixture of
/// `schemas/profile.schema.json` with its type and range, its meaning and whether discovery finds
/// it. Err names the fixture whose schema lacks a description or an `x-discovered`.
pub fn fixture_table() -> Result<String, FixtureSchemaError> {
    let mut table = String::from(
        "| fixture | type and range | what it must hold | discovered? | what the suite relies on, and how it checks it |\n|---|---|---|---|---|\n",
    );
    for (name, s) in &schema_fixtures()? {
        let meaning = s["description"]
            .as_str()
            .ok_or_else(|| FixtureSchemaError::NoDescription { name: name.clone() })?;
        let relies = s["x-relies"]
            .as_str()
            .filter(|r| !r.trim().is_empty())
            .ok_or_else(|| FixtureSchemaError::NoRelies { name: name.clone() })?;
        table.push_str(&format!(
            "| `{name}` | {} | {meaning} | {} | {} |\n",
            type_in_words(s).replace('|', "\\|"),
            discovered_in_words(name, s)?.replace('|', "\\|"),
            relies.replace('|', "\\|")
        ));
    }
    Ok(table)
}

/// Why the fixtures of `schemas/profile.schema.json` cannot be listed (a broken build of the
/// suite: the schema is embedded).
#[derive(Debug, thiserror::Error)]
pub enum FixtureSchemaError {
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error("the profile schema has no /properties/fixtures/properties")]
    NoFixtures,
    #[error("the fixture `{name}` has no description")]
    NoDescription { name: String },
    #[error(
        "the fixture `{name}` has no x-relies: what the suite relies on beyond its description, and how it checks it"
    )]
    NoRelies { name: String },
    #[error("the fixture `{name}` has no x-discovered (true or a reason): {found}")]
    NoDiscovered { name: String, found: Value },
}

/// `--list-fixtures`: one fixture a line, its name, then its type and range.
pub fn fixture_lines() -> Result<String, FixtureSchemaError> {
    let fixtures = schema_fixtures()?;
    let width = fixtures.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    Ok(fixtures
        .iter()
        .map(|(name, s)| format!("{name:width$}  {}\n", type_in_words(s)))
        .collect())
}

/// The fixtures of the profile schema, in the schema's order.
fn schema_fixtures() -> Result<Vec<(String, Value)>, FixtureSchemaError> {
    let schema: Value = serde_json::from_str(PROFILE_SCHEMA)?;
    let fixtures = schema
        .pointer("/properties/fixtures/properties")
        .and_then(Value::as_object)
        .ok_or(FixtureSchemaError::NoFixtures)?;
    Ok(fixtures
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect())
}

/// `x-discovered` in words: true, or why no request shows the fixture, or what it needs given
/// first.
fn discovered_in_words(name: &str, s: &Value) -> Result<String, FixtureSchemaError> {
    match &s["x-discovered"] {
        Value::Bool(true) => Ok("yes".to_string()),
        Value::String(w) if w.starts_with("with ") => Ok(format!("yes, {w}")),
        Value::String(w) => Ok(format!("no: {w}")),
        other => Err(FixtureSchemaError::NoDiscovered {
            name: name.to_string(),
            found: other.clone(),
        }),
    }
}

/// The type and range of a schema in words, for messages and the README's fixture table.
pub(crate) fn type_in_words(s: &Value) -> String {
    if let Some(alts) = s.get("oneOf").and_then(Value::as_array) {
        return alts
            .iter()
            .map(type_in_words)
            .collect::<Vec<_>>()
            .join(", or ");
    }
    let n = |k: &str| s.get(k).and_then(Value::as_f64);
    let mut out = match s.get("type").and_then(Value::as_str) {
        Some("string") => "a string".to_string(),
        Some("integer") => "an integer".to_string(),
        Some("number") => "a number".to_string(),
        Some("boolean") => "a boolean".to_string(),
        Some("array") => {
            let items = s.get("items").map(type_in_words).unwrap_or_default();
            let count = match (n("minItems"), n("maxItems")) {
                (Some(a), Some(b)) if a == b => format!("{a} "),
                (Some(a), Some(b)) => format!("{a} to {b} "),
                (Some(a), None) => format!("{a} or more "),
                _ => String::new(),
            };
            let unique = if s.get("uniqueItems") == Some(&Value::Bool(true)) {
                "distinct "
            } else {
                ""
            };
            format!("a list of {count}{unique}items, each {items}")
        }
        _ => "a value".to_string(),
    };
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        out.push_str(&format!(" matching `{p}`"));
    }
    if let Some(m) = n("minimum") {
        out.push_str(&format!(", at least {m}"));
    }
    if let Some(m) = n("minLength").filter(|m| *m > 0.0) {
        if m == 1.0 {
            out = out.replacen("a string", "a non-empty string", 1);
        }
    }
    out
}

/// A name as one JSON Pointer token (RFC 6901).
fn pointer_token(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
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
        "custom_field_value",
        "a value contacts hold under `custom_field_key` (a string): what cases send there, since the field's type is not shown",
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
    (
        "message_direction",
        "a value of a message's direction that GET /messages filters on (values are not shown)",
    ),
    (
        "message_participant",
        "an E.164 number with a one-to-one conversation with `phone_number_id` (only read)",
    ),
    (
        "message_time_split",
        "an instant (RFC 3339) with messages of `message_participant` before and after it",
    ),
    (
        "conversation_id",
        "the id (CN...) of the one-to-one conversation of `message_participant` on `phone_number_id` (only read)",
    ),
    (
        "group_participants",
        "the numbers (E.164, without the workspace number) of a group conversation of `phone_number_id`: two or more",
    ),
    (
        "group_conversation_id",
        "the id (CN...) of the group conversation of `group_participants`",
    ),
    (
        "group_superset_participants",
        "the numbers (E.164) of another group conversation of `phone_number_id`, with messages, whose participants are every number of `group_participants` and more (the exact-set filter must not match it)",
    ),
    (
        "inactive_conversation_id",
        "a conversation of `phone_number_id` the target counts as inactive",
    ),
    (
        "sandbox_conversation_id",
        "a conversation of `phone_number_id` open in the inbox and read; cases mark it done, open and read, and leave it open and read",
    ),
    (
        "sandbox_conversation_participant",
        "the one participant (E.164) of `sandbox_conversation_id`, whose messages are read",
    ),
    (
        "sandbox_failed_message_id",
        "a failed message that may be retried, or a list of them; a case retries the first one still failed, which sends it again (none failed: the case is ignored with that reason). The retry case and the control of the retry's versioning cells each use one up; with fewer listed than that, the cells run first and the retry case's retry, last, is their control",
    ),
    (
        "permanent_failed_message_id",
        "a failed message with a permanent error code; a case asks to retry it, which the contract refuses (States and transitions), so a conforming target never changes it",
    ),
    (
        "undelivered_message_id",
        "an undelivered message; a case asks to retry it, which the contract refuses (terminal), so a conforming target never changes it",
    ),
    (
        "media_message_id",
        "a message with media attached (only read)",
    ),
    (
        "conversations_exclude_inactive_param",
        "the query name of the exclude-inactive flag of GET /v1/conversations (not shown in the spec)",
    ),
    (
        "conversations_updated_after_param",
        "the query name of the updated-after filter of GET /v1/conversations (not shown in the spec)",
    ),
    (
        "conversations_updated_before_param",
        "the query name of the updated-before filter of GET /v1/conversations (not shown in the spec)",
    ),
    (
        "sandbox_recipient_number",
        "an E.164 number that may receive real test messages from `phone_number`",
    ),
    (
        "sandbox_group_recipient_numbers",
        "2 to 10 E.164 numbers that may receive a real group test message from `phone_number`",
    ),
    (
        "sandbox_eleven_recipient_numbers",
        "11 distinct E.164 numbers that may receive a real message (sent only if the target wrongly accepts 11 recipients)",
    ),
    (
        "sandbox_international_number",
        "an international E.164 number that may receive a real message (sent only if the target wrongly ignores the disabled setting)",
    ),
    (
        "international_disabled_api_key",
        "an API key of a workspace whose international messaging is disabled",
    ),
    (
        "international_disabled_phone_number",
        "a sending number (E.164) of that workspace",
    ),
    (
        "subscription_expired_api_key",
        "an API key of a workspace whose subscription has expired",
    ),
    (
        "subscription_expired_phone_number",
        "a sending number (E.164) of that workspace",
    ),
    (
        "a2p_unapproved_phone_number",
        "a sending number (E.164) of the workspace whose A2P 10DLC registration is not approved",
    ),
    (
        "a2p_capped_phone_number",
        "a sending number (E.164) of the workspace that has reached its daily A2P 10DLC message cap",
    ),
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
        "call_status",
        "the status of `call_id`, a value GET /calls filters on (values are not shown)",
    ),
    (
        "voicemail_call_id",
        "the id (AC...) of a call of `phone_number_id` that has a voicemail",
    ),
    (
        "summary_call_id",
        "the id (AC...) of a call of `phone_number_id` that has an AI summary",
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
    // --- webhooks (issue 7) ---
    (
        "other_phone_number_id",
        "the id (PN...) of a phone number of the workspace other than `phone_number_id`; webhooks subscribe to it, nothing is sent from it",
    ),
    (
        "activity_trigger_path",
        "a path on the target that simulates activity no endpoint can cause when POSTed a JSON body (docs/reference.md, \"Simulated activity\"); without it the cases of message.received, call and contact.deleted events are ignored, and the cases about a missing contact use an id derived from a contact the run created that answers 404",
    ),
    (
        "webhook_delivery_seconds",
        "how long to wait for a webhook delivery after the request that causes it (default 30)",
    ),
    (
        "webhook_retry_seconds",
        "how much longer to wait for an automatic retry after a failed answer (default 120)",
    ),
    (
        "effect_seconds",
        "how long a read-back marked `poll` waits for an asynchronous effect to show (default 10)",
    ),
    (
        "webhook_quiet_seconds",
        "how long to watch for deliveries that must not come (default 3)",
    ),
    (
        "webhook_secret_pointer",
        "a JSON Pointer to the signing secret in the create and rotate answers (default: the `whsec_` string found in the answer)",
    ),
];

#[cfg(test)]
mod request_field_tests {
    use super::*;

    fn with(fields: &[(&str, &str)]) -> Profile {
        Profile {
            request_fields: fields
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Profile::default()
        }
    }

    #[test]
    fn request_fields_are_checked_and_applied_per_route() {
        let p = with(&[("message.text", "content")]);
        assert!(p.check_request_fields().is_ok());
        assert_eq!(
            p.renamed_fields("POST", "/v1/messages"),
            [("text", "content")]
        );
        assert!(p.renamed_fields("GET", "/v1/messages").is_empty());
        assert!(p.renamed_fields("POST", "/v1/tasks").is_empty());
        assert!(
            with(&[("message.body", "content")])
                .check_request_fields()
                .is_err()
        );
        assert!(
            with(&[("message.text", "")])
                .check_request_fields()
                .is_err()
        );
        assert!(
            with(&[("message.text", "a b")])
                .check_request_fields()
                .is_err()
        );
        // Two fields of one request under one name.
        assert!(
            with(&[("message.text", "to")])
                .check_request_fields()
                .is_err()
        );
        assert!(
            with(&[("message.text", "x"), ("message.from", "x")])
                .check_request_fields()
                .is_err()
        );
        // A swap is fine.
        assert!(
            with(&[("message.text", "to"), ("message.to", "text")])
                .check_request_fields()
                .is_ok()
        );
    }
}

#[cfg(test)]
mod reader_tests {
    use super::*;

    #[test]
    fn the_embedded_profile_schema_compiles() {
        assert!(profile_validator().is_ok());
    }

    #[test]
    fn the_checks_the_schema_makes_first_hold_without_it() {
        // schemas/profile.schema.json types every fixture, so `tests/bad_input.rs` cannot reach
        // this check through a profile file.
        assert!(!fixture_value_is_valid(&serde_json::json!({"a": 1})));
        assert!(!fixture_value_is_valid(&serde_json::json!([[1]])));
        assert!(fixture_value_is_valid(&serde_json::json!(["a", 1, true])));
        assert_eq!(
            ProfileErrorKind::FixtureValue { name: "x".into() }.to_string(),
            "fixture `x` must be a string, number, boolean or an array of those"
        );
    }

    #[test]
    fn a_profile_error_names_the_file_then_what_and_where() {
        let kind = Profile::parse("{\"fixtures\": {\"user_di\": \"US1\"}}").expect_err("a typo");
        assert_eq!(kind.name(), "UnknownFixture");
        let e = ProfileError::Bad {
            path: "p.json".into(),
            kind: Box::new(kind),
        };
        assert_eq!(
            e.to_string(),
            "bad profile p.json: line 1, at /fixtures/user_di: unknown fixture `user_di`; did you mean `user_id`?"
        );
    }
}
