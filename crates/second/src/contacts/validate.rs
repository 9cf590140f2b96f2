//! Validation of contact bodies (create and the replacing update). OWNER: contacts-tasks.

use serde_json::{Map, Value};

use super::model::{Contact, Content, Entry, FieldDef, FieldKind, FieldValue};
use super::util::{
    chars, err_item, has_control, is_e164, is_email, is_http_url, new_id, type_name,
};

/// The service's brand name (reserved as a contact source, and as a source prefix).
pub const BRAND_NAME: &str = "Ringlet";
/// Automation integrations whose names are reserved as contact sources.
pub const AUTOMATION_INTEGRATIONS: &[&str] = &["Flowmatic", "Autoweave"];
/// Contacts-sync integrations whose names are reserved as contact sources.
pub const CONTACTS_SYNC_INTEGRATIONS: &[&str] = &["PeopleSync", "Contactbridge"];
/// Sources the contract reserves.
const RESERVED_WORDS: &[&str] = &["device", "csv", "other"];
/// The source given to contacts created through the API without one.
pub const API_SOURCE: &str = "public-api";
/// Most e-mail addresses or phone numbers one contact may hold.
const MAX_ENTRIES: usize = 20;

/// Why a contact request is refused.
pub enum CErr {
    /// 400, a condition no rule names.
    Bad(String, Vec<Value>),
    /// 400 `Invalid Custom Field Item`.
    Field(String, Vec<Value>),
    /// 404.
    NotFound(String),
    /// 409.
    Conflict(String),
}

fn bad(path: &str, message: String, expected: &str, value: &Value) -> CErr {
    let item = err_item(path, &message, expected, value);
    CErr::Bad(message, vec![item])
}

fn field(path: &str, message: String, expected: &str, value: &Value) -> CErr {
    let item = err_item(path, &message, expected, value);
    CErr::Field(message, vec![item])
}

fn unknown_keys(body: &Map<String, Value>, allowed: &[&str], at: &str) -> Result<(), CErr> {
    for (k, v) in body {
        if !allowed.contains(&k.as_str()) {
            let path = format!("{at}/{k}");
            let dotted = path.trim_start_matches('/').replace('/', ".");
            return Err(bad(
                &path,
                format!(
                    "Unknown field `{dotted}`; allowed here: {}",
                    allowed.join(", ")
                ),
                "never",
                v,
            ));
        }
    }
    Ok(())
}

/// An identifier-like string (external id, source): trimmed, 1..=max characters.
fn ident(v: &Value, path: &str, name: &str, max: usize) -> Result<String, CErr> {
    let Value::String(s) = v else {
        return Err(bad(
            path,
            format!("`{name}` must be a string of 1 to {max} characters"),
            "string",
            v,
        ));
    };
    let t = s.trim();
    if t.is_empty() || chars(t) > max || has_control(t) {
        return Err(bad(
            path,
            format!(
                "`{name}` must be a string of 1 to {max} characters (got {})",
                chars(t)
            ),
            "string",
            v,
        ));
    }
    Ok(t.to_string())
}

fn source_url(v: &Value) -> Result<String, CErr> {
    let s = ident(v, "/sourceUrl", "sourceUrl", 200)?;
    if !is_http_url(&s) {
        return Err(bad(
            "/sourceUrl",
            "`sourceUrl` must be an absolute http or https URL".into(),
            "string",
            v,
        ));
    }
    Ok(s)
}

/// Refuses a reserved source: the contract's words, the brand and integration names (whole,
/// any letter case) and the reserved prefixes.
fn check_source(s: &str, v: &Value, prefixes: bool) -> Result<(), CErr> {
    let lower = s.to_lowercase();
    let brand = BRAND_NAME.to_lowercase();
    let whole = RESERVED_WORDS.iter().any(|w| *w == lower)
        || lower == brand
        || AUTOMATION_INTEGRATIONS
            .iter()
            .any(|n| n.to_lowercase() == lower)
        || CONTACTS_SYNC_INTEGRATIONS
            .iter()
            .any(|n| n.to_lowercase() == lower);
    if whole {
        return Err(bad(
            "/source",
            format!("`source` `{s}` is reserved for contacts the service itself creates"),
            "string",
            v,
        ));
    }
    if prefixes && (lower.starts_with("csv") || lower.starts_with(&brand)) {
        return Err(bad(
            "/source",
            format!("`source` `{s}` starts with a reserved prefix (`csv`, `{BRAND_NAME}`)"),
            "string",
            v,
        ));
    }
    Ok(())
}

/// A default scalar (company, names, role): absent or null is none; otherwise 1-120 characters,
/// not blank.
fn scalar(obj: &Map<String, Value>, key: &str) -> Result<Option<String>, CErr> {
    let path = format!("/defaultFields/{key}");
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.trim().is_empty() && chars(s) <= 120 && !has_control(s) => {
            Ok(Some(s.clone()))
        }
        Some(v) => Err(bad(
            &path,
            format!("`defaultFields.{key}` must be a non-blank string of at most 120 characters"),
            "string",
            v,
        )),
    }
}

/// The email or phone entries of a body; `old` holds the contact's current entries of that kind
/// on update (None on create, where an entry id must be left out).
fn entries(v: &Value, key: &str, old: Option<&[Entry]>) -> Result<Vec<Entry>, CErr> {
    let path = format!("/defaultFields/{key}");
    let Value::Array(items) = v else {
        return Err(bad(
            &path,
            format!("`defaultFields.{key}` must be an array"),
            "array",
            v,
        ));
    };
    if items.len() > MAX_ENTRIES {
        return Err(bad(
            &path,
            format!("`defaultFields.{key}` holds at most {MAX_ENTRIES} entries"),
            "array",
            v,
        ));
    }
    let phone = key == "phoneNumbers";
    let mut out: Vec<Entry> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = format!("{path}/{i}");
        let Value::Object(o) = item else {
            return Err(bad(
                &ip,
                format!("each item of `defaultFields.{key}` must be an object {{name, value, id}}"),
                "object",
                item,
            ));
        };
        unknown_keys(o, &["name", "value", "id"], &ip)?;
        let value = match o.get("value") {
            Some(Value::String(s)) => s.trim().to_string(),
            Some(other) => {
                return Err(bad(
                    &format!("{ip}/value"),
                    "`value` must be a string".into(),
                    "string",
                    other,
                ));
            }
            None => {
                return Err(bad(
                    &format!("{ip}/value"),
                    "`value` is required".into(),
                    "string",
                    &Value::Null,
                ));
            }
        };
        let ok = if phone {
            is_e164(&value)
        } else {
            is_email(&value)
        };
        if !ok {
            let what = if phone {
                "an E.164 phone number (^\\+[1-9]\\d{1,14}$)"
            } else {
                "an e-mail address"
            };
            return Err(bad(
                &format!("{ip}/value"),
                format!("`value` must be {what}"),
                "string",
                &Value::String(value),
            ));
        }
        let name = match o.get("name") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) if !s.trim().is_empty() && chars(s) <= 40 && !has_control(s) => {
                Some(s.clone())
            }
            Some(other) => {
                return Err(bad(
                    &format!("{ip}/name"),
                    "`name` must be a non-blank string of at most 40 characters".into(),
                    "string",
                    other,
                ));
            }
        };
        let norm = |s: &str| {
            if phone {
                s.to_string()
            } else {
                s.to_lowercase()
            }
        };
        if out.iter().any(|e| norm(&e.value) == norm(&value)) {
            return Err(bad(
                &format!("{ip}/value"),
                format!("`{value}` appears twice in `defaultFields.{key}`"),
                "string",
                &Value::String(value),
            ));
        }
        let id = match (o.get("id"), old) {
            (None | Some(Value::Null), None) => new_id(if phone { "cph_" } else { "cem_" }, 12),
            (Some(v), None) => {
                return Err(bad(
                    &format!("{ip}/id"),
                    "`id` of an entry is assigned by the service: leave it out on create".into(),
                    "never",
                    v,
                ));
            }
            (None | Some(Value::Null), Some(old)) => {
                // Without an id, an entry of the same value keeps its id.
                old.iter()
                    .find(|e| {
                        norm(&e.value) == norm(&value)
                            && !out.iter().any(|x| x.id == e.id)
                            && !items.iter().any(|it| {
                                it.get("id").and_then(Value::as_str) == Some(e.id.as_str())
                            })
                    })
                    .map(|e| e.id.clone())
                    .unwrap_or_else(|| new_id(if phone { "cph_" } else { "cem_" }, 12))
            }
            (Some(Value::String(id)), Some(old)) => {
                if !old.iter().any(|e| &e.id == id) {
                    return Err(bad(
                        &format!("{ip}/id"),
                        format!("`{id}` is not the id of one of this contact's {key}"),
                        "string",
                        &Value::String(id.clone()),
                    ));
                }
                if out.iter().any(|e| &e.id == id) {
                    return Err(bad(
                        &format!("{ip}/id"),
                        format!("entry id `{id}` appears twice"),
                        "string",
                        &Value::String(id.clone()),
                    ));
                }
                id.clone()
            }
            (Some(other), Some(_)) => {
                return Err(bad(
                    &format!("{ip}/id"),
                    "`id` must be a string".into(),
                    "string",
                    other,
                ));
            }
        };
        out.push(Entry { id, name, value });
    }
    Ok(out)
}

fn is_decimal(s: &str) -> bool {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    !int.is_empty()
        && int.len() <= 15
        && int.bytes().all(|b| b.is_ascii_digit())
        && frac
            .is_none_or(|f| !f.is_empty() && f.len() <= 6 && f.bytes().all(|b| b.is_ascii_digit()))
}

fn is_date(s: &str) -> bool {
    s.len() == 10
        && time::Date::parse(s, time::macros::format_description!("[year]-[month]-[day]")).is_ok()
}

/// The custom field items of a body: each `{key, value}` (with an optional `id`, and `name`
/// and `type` when they agree with the definition), the key a field of the workspace, the value
/// of that field's type; a key at most once.
pub fn custom_fields(defs: &[FieldDef], v: &Value) -> Result<Vec<FieldValue>, CErr> {
    let Value::Array(items) = v else {
        return Err(field(
            "/customFields",
            "`customFields` must be an array of {key, value} items".into(),
            "array",
            v,
        ));
    };
    let mut out: Vec<FieldValue> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = format!("/customFields/{i}");
        let Value::Object(o) = item else {
            return Err(field(
                &ip,
                format!("custom field item {i} must be an object {{key, value}}"),
                "object",
                item,
            ));
        };
        if let Some(k) = o
            .keys()
            .find(|k| !["key", "value", "id", "name", "type"].contains(&k.as_str()))
        {
            return Err(field(
                &format!("{ip}/{k}"),
                format!("custom field item {i} has an unknown field `{k}`"),
                "never",
                &o[k],
            ));
        }
        let key = match o.get("key") {
            Some(Value::String(k)) => k.as_str(),
            Some(other) => {
                return Err(field(
                    &format!("{ip}/key"),
                    format!("`key` of custom field item {i} must be a string"),
                    "string",
                    other,
                ));
            }
            None => {
                return Err(field(
                    &format!("{ip}/key"),
                    format!("custom field item {i} needs a `key`"),
                    "string",
                    &Value::Null,
                ));
            }
        };
        let Some(def) = defs.iter().find(|d| d.key == key) else {
            return Err(field(
                &format!("{ip}/key"),
                format!("`{key}` is not a custom field of this workspace"),
                "string",
                &Value::String(key.into()),
            ));
        };
        if let Some(id) = o.get("id") {
            if id.as_str() != Some(def.id.as_str()) {
                return Err(field(
                    &format!("{ip}/id"),
                    format!(
                        "`id` of custom field item {i} must be `{}`, the id of the field `{key}`",
                        def.id
                    ),
                    "string",
                    id,
                ));
            }
        }
        if let Some(n) = o.get("name") {
            if n.as_str() != Some(def.name.as_str()) {
                return Err(field(
                    &format!("{ip}/name"),
                    format!("`name` of custom field item {i} does not match the field `{key}`"),
                    "string",
                    n,
                ));
            }
        }
        if let Some(t) = o.get("type") {
            if t.as_str() != Some(def.kind.as_str()) {
                return Err(field(
                    &format!("{ip}/type"),
                    format!("the field `{key}` is of type `{}`", def.kind.as_str()),
                    "string",
                    t,
                ));
            }
        }
        if out.iter().any(|f| f.key == key) {
            return Err(field(
                &format!("{ip}/key"),
                format!("the custom field `{key}` appears twice"),
                "string",
                &Value::String(key.into()),
            ));
        }
        let vp = format!("{ip}/value");
        let Some(value) = o.get("value") else {
            return Err(field(
                &vp,
                format!("custom field item {i} needs a `value`"),
                "string",
                &Value::Null,
            ));
        };
        let value = match def.kind {
            FieldKind::Text => match value {
                Value::String(s) if !s.trim().is_empty() && chars(s) <= 1000 && !has_control(s) => {
                    value.clone()
                }
                _ => {
                    return Err(field(
                        &vp,
                        format!(
                            "the field `{key}` takes a non-blank string of at most 1000 characters"
                        ),
                        "string",
                        value,
                    ));
                }
            },
            FieldKind::Number => match value {
                Value::String(s) if is_decimal(s) => value.clone(),
                _ => {
                    return Err(field(
                        &vp,
                        format!(
                            "the field `{key}` takes a decimal number written as a string, e.g. \"1250.50\""
                        ),
                        "string",
                        value,
                    ));
                }
            },
            FieldKind::Date => match value {
                Value::String(s) if is_date(s) => value.clone(),
                _ => {
                    return Err(field(
                        &vp,
                        format!("the field `{key}` takes a date written as YYYY-MM-DD"),
                        "string",
                        value,
                    ));
                }
            },
            FieldKind::MultiSelect => {
                let Value::Array(vals) = value else {
                    return Err(field(
                        &vp,
                        format!("the multi-select field `{key}` takes an array of its options"),
                        "array",
                        value,
                    ));
                };
                if vals.is_empty() {
                    return Err(field(
                        &vp,
                        format!(
                            "the multi-select field `{key}` needs one option at least (leave the item out to clear it)"
                        ),
                        "array",
                        value,
                    ));
                }
                let mut seen: Vec<&str> = Vec::new();
                for (j, x) in vals.iter().enumerate() {
                    let Some(s) = x.as_str() else {
                        return Err(field(
                            &format!("{vp}/{j}"),
                            format!("options of `{key}` are strings, got {}", type_name(x)),
                            "string",
                            x,
                        ));
                    };
                    if !def.options.iter().any(|o| o == s) {
                        return Err(field(
                            &format!("{vp}/{j}"),
                            format!(
                                "`{s}` is not an option of `{key}` (options: {})",
                                def.options.join(", ")
                            ),
                            "string",
                            x,
                        ));
                    }
                    if seen.contains(&s) {
                        return Err(field(
                            &format!("{vp}/{j}"),
                            format!("the option `{s}` appears twice"),
                            "string",
                            x,
                        ));
                    }
                    seen.push(s);
                }
                value.clone()
            }
        };
        out.push(FieldValue {
            def_id: def.id.clone(),
            key: def.key.clone(),
            name: def.name.clone(),
            kind: def.kind,
            value,
        });
    }
    Ok(out)
}

/// The default fields of a body (`old`: the contact's entries on update).
fn default_fields(v: &Value, old: Option<&Content>, into: &mut Content) -> Result<(), CErr> {
    let Value::Object(o) = v else {
        return Err(bad(
            "/defaultFields",
            "`defaultFields` must be an object".into(),
            "object",
            v,
        ));
    };
    unknown_keys(
        o,
        &[
            "company",
            "firstName",
            "lastName",
            "role",
            "emails",
            "phoneNumbers",
        ],
        "/defaultFields",
    )?;
    into.company = scalar(o, "company")?;
    into.first_name = scalar(o, "firstName")?;
    into.last_name = scalar(o, "lastName")?;
    into.role = scalar(o, "role")?;
    into.emails = match o.get("emails") {
        None => Vec::new(),
        Some(e) => entries(e, "emails", old.map(|c| c.emails.as_slice()))?,
    };
    into.phones = match o.get("phoneNumbers") {
        None => Vec::new(),
        Some(p) => entries(p, "phoneNumbers", old.map(|c| c.phones.as_slice()))?,
    };
    Ok(())
}

/// How strictly a create body's `source` is checked (the conforming service: 72 characters and
/// the reserved prefixes).
pub struct SourceRules {
    /// Longest source accepted.
    pub max: usize,
    /// Whether the reserved prefixes are refused.
    pub prefixes: bool,
}

impl Default for SourceRules {
    fn default() -> Self {
        SourceRules {
            max: 72,
            prefixes: true,
        }
    }
}

/// A create body: the contact's content and the `createdByUserId` it names, if any.
pub fn create(
    defs: &[FieldDef],
    body: &Map<String, Value>,
    rules: &SourceRules,
) -> Result<(Content, Option<String>), CErr> {
    unknown_keys(
        body,
        &[
            "defaultFields",
            "customFields",
            "createdByUserId",
            "source",
            "sourceUrl",
            "externalId",
        ],
        "",
    )?;
    let mut c = Content::default();
    match body.get("defaultFields") {
        None => return Err(bad("/defaultFields", "`defaultFields` is required (with a firstName, lastName, company, phone number or e-mail)".into(), "object", &Value::Null)),
        Some(v) => default_fields(v, None, &mut c)?,
    }
    if let Some(v) = body.get("customFields") {
        c.custom = custom_fields(defs, v)?;
    }
    if let Some(v) = body.get("externalId") {
        c.external_id = Some(ident(v, "/externalId", "externalId", 75)?);
    }
    c.source = Some(match body.get("source") {
        None => API_SOURCE.to_string(),
        Some(v) => {
            let s = ident(v, "/source", "source", rules.max)?;
            check_source(&s, v, rules.prefixes)?;
            s
        }
    });
    if let Some(v) = body.get("sourceUrl") {
        c.source_url = Some(source_url(v)?);
    }
    let created_by = match body.get("createdByUserId") {
        None => None,
        Some(Value::String(s)) if s.starts_with("US") && s.len() > 2 && s.len() <= 64 => {
            Some(s.clone())
        }
        Some(v) => {
            return Err(bad(
                "/createdByUserId",
                "`createdByUserId` must be a user id (^US(.*)$)".into(),
                "string",
                v,
            ));
        }
    };
    if !c.identifiable() {
        return Err(bad(
            "/defaultFields",
            "a contact needs a firstName, lastName, company, phone number or e-mail".into(),
            "object",
            body.get("defaultFields").unwrap_or(&Value::Null),
        ));
    }
    Ok((c, created_by))
}

/// An update body, which replaces the contact: e-mails, phone numbers and custom fields left
/// out are deleted; `defaultFields`, when sent, replaces the default fields whole; `externalId`,
/// `source` and `sourceUrl` left out are kept (null clears `externalId` and `sourceUrl`).
pub fn update(
    defs: &[FieldDef],
    body: &Map<String, Value>,
    old: &Contact,
) -> Result<Content, CErr> {
    if body.is_empty() {
        return Err(CErr::Bad(
            "The update body is empty: send the contact's full set of fields".into(),
            Vec::new(),
        ));
    }
    unknown_keys(
        body,
        &[
            "externalId",
            "source",
            "sourceUrl",
            "defaultFields",
            "customFields",
        ],
        "",
    )?;
    let o = &old.content;
    let mut c = Content {
        external_id: o.external_id.clone(),
        source: o.source.clone(),
        source_url: o.source_url.clone(),
        company: o.company.clone(),
        first_name: o.first_name.clone(),
        last_name: o.last_name.clone(),
        role: o.role.clone(),
        ..Content::default()
    };
    match body.get("defaultFields") {
        None => {}
        Some(v) => default_fields(v, Some(o), &mut c)?,
    }
    c.custom = match body.get("customFields") {
        None => Vec::new(),
        Some(v) => custom_fields(defs, v)?,
    };
    match body.get("externalId") {
        None => {}
        Some(Value::Null) => c.external_id = None,
        Some(v) => c.external_id = Some(ident(v, "/externalId", "externalId", 75)?),
    }
    match body.get("source") {
        None => {}
        Some(v) => {
            let s = ident(v, "/source", "source", 75)?;
            if o.source.as_deref() != Some(s.as_str()) {
                check_source(&s, v, true)?;
            }
            c.source = Some(s);
        }
    }
    match body.get("sourceUrl") {
        None => {}
        Some(Value::Null) => c.source_url = None,
        Some(v) => c.source_url = Some(source_url(v)?),
    }
    if !c.identifiable() {
        return Err(bad("/defaultFields", "after the update the contact would have no firstName, lastName, company, phone number or e-mail".into(), "object", body.get("defaultFields").unwrap_or(&Value::Null)));
    }
    if c.same_as(o) {
        return Err(CErr::Bad(
            "The update changes nothing: the contact already holds exactly these fields".into(),
            Vec::new(),
        ));
    }
    Ok(c)
}
