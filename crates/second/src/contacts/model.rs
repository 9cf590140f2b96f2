//! Contacts, their entries and the workspace's custom field definitions. OWNER: contacts-tasks.

use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use super::util::fmt_ts;

/// The kind of a custom field definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldKind {
    /// Free text (a JSON string).
    Text,
    /// A subset of the definition's options (a JSON array of strings).
    MultiSelect,
    /// A decimal number written as a string (`"1250.50"`).
    Number,
    /// A calendar date written as a string (`"2025-04-30"`).
    Date,
}

impl FieldKind {
    /// The `type` shown in `customFields` items.
    pub fn as_str(self) -> &'static str {
        match self {
            FieldKind::Text => "string",
            FieldKind::MultiSelect => "multi-select",
            FieldKind::Number => "number",
            FieldKind::Date => "date",
        }
    }
}

/// A custom field definition of a workspace.
#[derive(Debug, Clone)]
pub struct FieldDef {
    pub id: String,
    pub key: String,
    pub name: String,
    pub kind: FieldKind,
    /// Allowed values of a multi-select field (exact spelling).
    pub options: Vec<String>,
}

/// An e-mail address or phone number of a contact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub name: Option<String>,
    pub value: String,
}

/// A custom field value held by a contact.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldValue {
    pub def_id: String,
    pub key: String,
    pub name: String,
    pub kind: FieldKind,
    pub value: Value,
}

/// What a client may change on a contact.
#[derive(Debug, Clone, Default)]
pub struct Content {
    pub external_id: Option<String>,
    pub source: Option<String>,
    pub source_url: Option<String>,
    pub company: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub role: Option<String>,
    pub emails: Vec<Entry>,
    pub phones: Vec<Entry>,
    pub custom: Vec<FieldValue>,
}

impl Content {
    /// Whether both hold the same data (entry ids aside).
    pub fn same_as(&self, o: &Content) -> bool {
        let entries = |a: &[Entry], b: &[Entry]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| x.name == y.name && x.value == y.value)
        };
        let customs = |a: &[FieldValue], b: &[FieldValue]| {
            a.len() == b.len()
                && a.iter()
                    .all(|x| b.iter().any(|y| y.key == x.key && y.value == x.value))
        };
        self.external_id == o.external_id
            && self.source == o.source
            && self.source_url == o.source_url
            && self.company == o.company
            && self.first_name == o.first_name
            && self.last_name == o.last_name
            && self.role == o.role
            && entries(&self.emails, &o.emails)
            && entries(&self.phones, &o.phones)
            && customs(&self.custom, &o.custom)
    }

    /// Whether the contact can still be told apart: a name, a company, a phone or an e-mail.
    pub fn identifiable(&self) -> bool {
        self.first_name.is_some()
            || self.last_name.is_some()
            || self.company.is_some()
            || !self.emails.is_empty()
            || !self.phones.is_empty()
    }
}

/// A contact.
#[derive(Debug, Clone)]
pub struct Contact {
    pub id: String,
    pub org_id: String,
    /// Creation order within the instance (tie-break of equal timestamps).
    pub seq: u64,
    pub content: Content,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub created_by: Option<String>,
    /// Bumped on every change (optimistic concurrency of updates).
    pub version: u64,
}

fn opt(s: &Option<String>) -> Value {
    s.as_ref()
        .map(|v| Value::String(v.clone()))
        .unwrap_or(Value::Null)
}

fn entries(list: &[Entry]) -> Value {
    Value::Array(
        list.iter()
            .map(|e| json!({"name": opt(&e.name), "value": e.value, "id": e.id}))
            .collect(),
    )
}

impl Contact {
    /// The resource as both generations show it.
    pub fn render(&self) -> Value {
        let c = &self.content;
        let mut m = Map::new();
        m.insert("id".into(), json!(self.id));
        m.insert("orgId".into(), json!(self.org_id));
        m.insert("externalId".into(), opt(&c.external_id));
        m.insert("source".into(), opt(&c.source));
        m.insert("sourceUrl".into(), opt(&c.source_url));
        m.insert(
            "defaultFields".into(),
            json!({
                "company": opt(&c.company),
                "firstName": opt(&c.first_name),
                "lastName": opt(&c.last_name),
                "role": opt(&c.role),
                "emails": entries(&c.emails),
                "phoneNumbers": entries(&c.phones),
            }),
        );
        m.insert(
            "customFields".into(),
            Value::Array(
                c.custom
                    .iter()
                    .map(|f| {
                        json!({
                            "name": f.name,
                            "type": f.kind.as_str(),
                            "value": f.value,
                            "key": f.key,
                            "id": f.def_id,
                        })
                    })
                    .collect(),
            ),
        );
        m.insert("createdAt".into(), json!(fmt_ts(self.created_at)));
        m.insert("updatedAt".into(), json!(fmt_ts(self.updated_at)));
        m.insert("createdByUserId".into(), opt(&self.created_by));
        m.insert("version".into(), json!(self.version));
        Value::Object(m)
    }
}
