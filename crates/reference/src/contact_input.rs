//! What a client may send to create or update a contact, checked field by field.
//!
//! Parsing works on a `serde_json` object rather than derived types so that every rejection can
//! name the field and the rule it broke, and none of it can panic or fall back to plain text.

use serde_json::{Map, Value};

use super::model::CustomFieldDef;

/// A validated create or update body. `None` and empty lists mean "not sent".
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct ContactInput {
    pub external_id: Option<String>,
    pub source: Option<String>,
    pub source_url: Option<String>,
    pub created_by_user_id: Option<String>,
    pub company: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub role: Option<String>,
    pub emails: Vec<EntryInput>,
    pub phone_numbers: Vec<EntryInput>,
    pub custom_fields: Vec<CustomFieldInput>,
}

/// An email or phone entry as sent; `id` only matters on update.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EntryInput {
    pub id: Option<String>,
    pub name: Option<String>,
    pub value: String,
}

/// A custom field item as sent, its key known to the workspace.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CustomFieldInput {
    pub id: Option<String>,
    pub key: String,
    pub value: Value,
}

/// Why a body was refused; the two kinds get different error codes.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum InputError {
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    CustomField(String),
}

/// The source names this workspace keeps for itself (the spec leaves their values to the target).
#[derive(Debug, Clone)]
pub(crate) struct ReservedNames {
    pub brand: String,
    pub automation_integration: String,
    pub contacts_sync_integration: String,
}

/// The rules that differ between create and update, or that a fault loosens.
#[derive(Debug, Clone)]
pub(crate) struct Rules<'a> {
    /// Create takes `createdByUserId`; update ignores it.
    pub create: bool,
    /// Allowed lengths, in characters (the spec's limits, unless a boundary fault moves one).
    pub source: (usize, usize),
    pub external_id: (usize, usize),
    pub source_url: (usize, usize),
    /// `e164-leading-zero-accepted`: phone entries also take `+0...`.
    pub phone_leading_zero: bool,
    /// `contact-phone-e164-first-only`: a later phone entry that is not E.164 is left out.
    pub phone_first_only: bool,
    /// `patch-phone-e164-unchecked`: phone entries are not checked against E.164 at all.
    pub phone_unchecked: bool,
    /// Variant: custom field items with an unknown key are dropped instead of refused.
    pub ignore_unknown_custom_keys: bool,
    /// `custom-field-type-unchecked`: any string or list of strings fits any field.
    pub custom_field_types_unchecked: bool,
    /// `multi-select-options-unchecked`: a multi-select takes any strings.
    pub multi_select_options_unchecked: bool,
    /// Variant: reserved source names are compared case-sensitively.
    pub reserved_case_sensitive: bool,
    /// `None` accepts every source name.
    pub reserved: Option<&'a ReservedNames>,
}

impl ReservedNames {
    /// Whether a source is one the workspace keeps for itself, compared without case.
    pub(crate) fn reserves(&self, source: &str, case_sensitive: bool) -> bool {
        let fold = |s: &str| {
            if case_sensitive {
                s.to_string()
            } else {
                s.to_lowercase()
            }
        };
        let source = fold(source);
        let brand = fold(&self.brand);
        let words = [
            "device",
            "csv",
            "other",
            brand.as_str(),
            &fold(&self.automation_integration),
            &fold(&self.contacts_sync_integration),
        ];
        words.contains(&source.as_str()) || source.starts_with("csv") || source.starts_with(&brand)
    }
}

/// `^\+[1-9]\d{1,14}$` with ASCII digits only (a regex `\d` would also take other scripts' digits).
pub(crate) fn is_e164(value: &str) -> bool {
    let Some(digits) = value.strip_prefix('+') else {
        return false;
    };
    let bytes = digits.as_bytes();
    (2..=15).contains(&bytes.len())
        && bytes.iter().all(u8::is_ascii_digit)
        && bytes.first() != Some(&b'0')
}

/// Checks a create or update body against the contract and the workspace's custom fields.
pub(crate) fn parse_contact(
    body: &Map<String, Value>,
    rules: &Rules<'_>,
    defs: &[CustomFieldDef],
) -> Result<ContactInput, InputError> {
    let mut input = ContactInput {
        external_id: bounded_string(
            body,
            "externalId",
            "externalId",
            rules.external_id.0,
            rules.external_id.1,
        )?,
        source: bounded_string(body, "source", "source", rules.source.0, rules.source.1)?,
        source_url: bounded_string(
            body,
            "sourceUrl",
            "sourceUrl",
            rules.source_url.0,
            rules.source_url.1,
        )?,
        ..ContactInput::default()
    };
    if let (Some(source), Some(reserved)) = (&input.source, rules.reserved) {
        if reserved.reserves(source, rules.reserved_case_sensitive) {
            return Err(InputError::Invalid(format!(
                "source '{source}' is reserved: it may not be device, csv, other, {}, {} or {}, \
                 nor start with csv or {}",
                reserved.brand,
                reserved.automation_integration,
                reserved.contacts_sync_integration,
                reserved.brand
            )));
        }
    }
    if rules.create {
        input.created_by_user_id =
            bounded_string(body, "createdByUserId", "createdByUserId", 0, usize::MAX)?;
        if let Some(user) = &input.created_by_user_id {
            if !user.starts_with("US") {
                return Err(InputError::Invalid(format!(
                    "createdByUserId '{user}' must match pattern ^US(.*)$"
                )));
            }
        }
    }
    match present(body, "defaultFields") {
        None => {}
        Some(Value::Object(fields)) => parse_default_fields(fields, &mut input, rules)?,
        Some(_) => {
            return Err(InputError::Invalid(
                "defaultFields must be an object".to_string(),
            ));
        }
    }
    input.custom_fields = parse_custom_fields(present(body, "customFields"), defs, rules)?;
    Ok(input)
}

/// A JSON `null` counts as absent: clients that serialize every optional field send nulls.
fn present<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

fn bounded_string(
    object: &Map<String, Value>,
    key: &str,
    path: &str,
    min: usize,
    max: usize,
) -> Result<Option<String>, InputError> {
    let Some(value) = present(object, key) else {
        return Ok(None);
    };
    let rule = if max == usize::MAX {
        "a string".to_string()
    } else {
        format!("a string of {min} to {max} characters")
    };
    match value {
        Value::String(s) if (min..=max).contains(&s.chars().count()) => Ok(Some(s.clone())),
        Value::String(s) => Err(InputError::Invalid(format!(
            "{path} must be {rule}, got {} characters",
            s.chars().count()
        ))),
        _ => Err(InputError::Invalid(format!(
            "{path} must be {rule}, got {}",
            json_type(value)
        ))),
    }
}

fn parse_default_fields(
    fields: &Map<String, Value>,
    input: &mut ContactInput,
    rules: &Rules<'_>,
) -> Result<(), InputError> {
    let text =
        |key: &str| bounded_string(fields, key, &format!("defaultFields.{key}"), 0, usize::MAX);
    input.company = text("company")?;
    input.first_name = text("firstName")?;
    input.last_name = text("lastName")?;
    input.role = text("role")?;
    input.emails = parse_entries(fields, "emails", false, rules)?;
    input.phone_numbers = parse_entries(fields, "phoneNumbers", true, rules)?;
    Ok(())
}

fn parse_entries(
    fields: &Map<String, Value>,
    key: &str,
    phone: bool,
    rules: &Rules<'_>,
) -> Result<Vec<EntryInput>, InputError> {
    let items = match present(fields, key) {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(InputError::Invalid(format!(
                "defaultFields.{key} must be an array, got {}",
                json_type(other)
            )));
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("defaultFields.{key}[{i}]");
        let Value::Object(entry) = item else {
            return Err(InputError::Invalid(format!(
                "{path} must be an object with a string value"
            )));
        };
        let value = match entry.get("value") {
            Some(Value::String(value)) => value.clone(),
            _ => {
                return Err(InputError::Invalid(format!(
                    "{path}.value is required and must be a string"
                )));
            }
        };
        let leading_zero_ok = rules.phone_leading_zero
            && value.starts_with("+0")
            && is_e164(&value.replacen("+0", "+1", 1));
        if phone && i > 0 && rules.phone_first_only && !is_e164(&value) {
            continue;
        }
        if phone && !is_e164(&value) && !leading_zero_ok && !rules.phone_unchecked {
            return Err(InputError::Invalid(format!(
                "{path}.value '{value}' must be an E.164 phone number matching ^\\+[1-9]\\d{{1,14}}$"
            )));
        }
        out.push(EntryInput {
            id: bounded_string(entry, "id", &format!("{path}.id"), 0, usize::MAX)?,
            name: bounded_string(entry, "name", &format!("{path}.name"), 0, usize::MAX)?,
            value,
        });
    }
    Ok(out)
}

fn parse_custom_fields(
    value: Option<&Value>,
    defs: &[CustomFieldDef],
    rules: &Rules<'_>,
) -> Result<Vec<CustomFieldInput>, InputError> {
    let items = match value {
        None => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(other) => {
            return Err(InputError::CustomField(format!(
                "customFields must be an array of {{key, value}} items, got {}",
                json_type(other)
            )));
        }
    };
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = format!("customFields[{i}]");
        let Value::Object(item) = item else {
            return Err(InputError::CustomField(format!(
                "{path} must be an object with a key and a value"
            )));
        };
        let Some(Value::String(key)) = item.get("key") else {
            return Err(InputError::CustomField(format!(
                "{path}.key is required and must be a string"
            )));
        };
        if !defs.iter().any(|d| &d.key == key) {
            if rules.ignore_unknown_custom_keys {
                continue;
            }
            return Err(InputError::CustomField(format!(
                "{path}.key '{key}' is not a custom field of this workspace"
            )));
        }
        let value = match item.get("value") {
            Some(v @ Value::String(_)) => v.clone(),
            Some(v @ Value::Array(values)) if values.iter().all(Value::is_string) => v.clone(),
            _ => {
                return Err(InputError::CustomField(format!(
                    "{path}.value must be a string or an array of strings"
                )));
            }
        };
        if let Some(def) = defs.iter().find(|d| &d.key == key) {
            fits(def, &value, &path, rules)?;
        }
        let id = match present(item, "id") {
            None => None,
            Some(Value::String(id)) => Some(id.clone()),
            Some(_) => {
                return Err(InputError::CustomField(format!(
                    "{path}.id must be a string"
                )));
            }
        };
        out.push(CustomFieldInput {
            id,
            key: key.clone(),
            value,
        });
    }
    Ok(out)
}

/// Whether a value fits its field: a multi-select takes a list of its options, any other field
/// (the reference's are text) a single string. A value of another field's shape, or a choice the
/// field does not offer, is an invalid custom field item (Errors > Rules > 1).
fn fits(
    def: &CustomFieldDef,
    value: &Value,
    path: &str,
    rules: &Rules<'_>,
) -> Result<(), InputError> {
    let multi = def.kind == "multi-select";
    match value {
        Value::Array(items) if multi => {
            let outside = items
                .iter()
                .filter_map(Value::as_str)
                .find(|s| !def.options.iter().any(|o| o == s));
            match outside {
                Some(s) if !rules.multi_select_options_unchecked => {
                    Err(InputError::CustomField(format!(
                        "{path}.value '{s}' is not an option of {} ({})",
                        def.key,
                        def.options.join(", ")
                    )))
                }
                _ => Ok(()),
            }
        }
        Value::String(_) if !multi => Ok(()),
        _ if rules.custom_field_types_unchecked => Ok(()),
        _ if multi => Err(InputError::CustomField(format!(
            "{path}.value must be a list of options of the multi-select {}",
            def.key
        ))),
        _ => Err(InputError::CustomField(format!(
            "{path}.value must be a string: {} is a {} field",
            def.key, def.kind
        ))),
    }
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names() -> ReservedNames {
        ReservedNames {
            brand: "workspace".into(),
            automation_integration: "autoflow".into(),
            contacts_sync_integration: "contactsync".into(),
        }
    }

    fn defs() -> Vec<CustomFieldDef> {
        vec![
            CustomFieldDef {
                key: "notes".into(),
                name: "Notes".into(),
                kind: "string".into(),
                options: Vec::new(),
            },
            CustomFieldDef {
                key: "interests".into(),
                name: "Interests".into(),
                kind: "multi-select".into(),
                options: vec!["sales".into(), "support".into()],
            },
        ]
    }

    fn create_rules(reserved: &ReservedNames) -> Rules<'_> {
        Rules {
            create: true,
            source: (1, 72),
            external_id: (1, 75),
            source_url: (1, 200),
            phone_leading_zero: false,
            phone_first_only: false,
            phone_unchecked: false,
            ignore_unknown_custom_keys: false,
            custom_field_types_unchecked: false,
            multi_select_options_unchecked: false,
            reserved_case_sensitive: false,
            reserved: Some(reserved),
        }
    }

    fn parse(body: Value) -> Result<ContactInput, InputError> {
        let names = names();
        let Value::Object(body) = body else {
            panic!("test bodies are objects")
        };
        parse_contact(&body, &create_rules(&names), &defs())
    }

    #[test]
    fn reserved_words_and_prefixes_ignore_case() {
        let names = names();
        for source in [
            "device",
            "CSV",
            "Other",
            "workspace",
            "AutoFlow",
            "contactsync",
            "csv-import",
            "Workspace Mobile",
        ] {
            assert!(names.reserves(source, false), "{source} is reserved");
        }
        for source in [
            "public-api",
            "hubspot",
            "my-csv",
            "devices",
            "autoflow2",
            "others",
        ] {
            assert!(!names.reserves(source, false), "{source} is free");
        }
    }

    #[test]
    fn e164_follows_the_pattern() {
        for ok in ["+15551234567", "+12", "+123456789012345"] {
            assert!(is_e164(ok), "{ok}");
        }
        for bad in [
            "15551234567",
            "+05551234567",
            "+1",
            "+1234567890123456",
            "+1555-123",
            "+١٢٣",
            "",
        ] {
            assert!(!is_e164(bad), "{bad}");
        }
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        let ok = "é".repeat(75);
        assert!(parse(json!({"externalId": ok})).is_ok());
        let long = "é".repeat(76);
        assert!(matches!(
            parse(json!({"externalId": long})),
            Err(InputError::Invalid(_))
        ));
        assert!(parse(json!({"source": "s".repeat(73)})).is_err());
        assert!(parse(json!({"sourceUrl": ""})).is_err());
    }

    #[test]
    fn custom_field_problems_are_their_own_kind() {
        for body in [
            json!({"customFields": {"key": "notes"}}),
            json!({"customFields": ["notes"]}),
            json!({"customFields": [{"value": "x"}]}),
            json!({"customFields": [{"key": "unknown", "value": "x"}]}),
            json!({"customFields": [{"key": "notes", "value": 3}]}),
            json!({"customFields": [{"key": "notes", "value": ["a", 1]}]}),
            json!({"customFields": [{"key": "notes"}]}),
            // A value of the wrong type for its field, or outside a multi-select's options.
            json!({"customFields": [{"key": "notes", "value": ["a", "b"]}]}),
            json!({"customFields": [{"key": "interests", "value": "sales"}]}),
            json!({"customFields": [{"key": "interests", "value": ["sales", "golf"]}]}),
        ] {
            assert!(
                matches!(parse(body.clone()), Err(InputError::CustomField(_))),
                "{body}"
            );
        }
        for body in [
            json!({"customFields": [{"key": "notes", "value": "a"}]}),
            json!({"customFields": [{"key": "interests", "value": ["sales", "support"]}]}),
            json!({"customFields": [{"key": "interests", "value": []}]}),
        ] {
            assert!(parse(body.clone()).is_ok(), "{body}");
        }
    }

    #[test]
    fn nulls_are_absent_and_wrong_types_are_refused() {
        let input = parse(json!({"source": null, "defaultFields": null, "customFields": null}));
        assert_eq!(input, Ok(ContactInput::default()));
        assert!(parse(json!({"createdByUserId": "XX1"})).is_err());
        assert!(parse(json!({"defaultFields": {"phoneNumbers": [{"value": "555"}]}})).is_err());
        assert!(parse(json!({"defaultFields": {"emails": [{"name": "w"}]}})).is_err());
        assert!(parse(json!({"externalId": 12})).is_err());
    }
}
