//! The resources the reference keeps, and their JSON answers.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::format_description;

/// An email or phone entry of a contact's default fields.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Entry {
    pub id: String,
    pub name: Option<String>,
    pub value: String,
}

/// A custom field value on a contact; its name and type live in the workspace's definition.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct CustomFieldItem {
    pub id: String,
    pub key: String,
    /// A string or an array of strings, as sent.
    pub value: Value,
}

/// A custom field the workspace defines; contacts may only carry values for defined keys.
#[derive(Debug, Clone)]
pub(crate) struct CustomFieldDef {
    pub key: String,
    pub name: String,
    pub kind: String,
    /// The options a `multi-select` field takes (empty for other kinds).
    pub options: Vec<String>,
}

/// A contact of the workspace.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Contact {
    pub id: String,
    pub external_id: Option<String>,
    pub source: Option<String>,
    pub source_url: Option<String>,
    pub company: Option<String>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub role: Option<String>,
    pub emails: Vec<Entry>,
    pub phone_numbers: Vec<Entry>,
    pub custom_fields: Vec<CustomFieldItem>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub created_by_user_id: Option<String>,
}

/// A webhook subscription of the header-versioned API.
#[derive(Debug, Clone)]
pub(crate) struct Webhook {
    pub id: String,
    pub org_id: String,
    pub label: Option<String>,
    pub status: String,
    pub url: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// Pinned at creation (Versioning 3); null only under a fault.
    pub api_version: Option<String>,
    pub events: Vec<String>,
    pub resource_ids: Vec<String>,
}

/// RFC 3339 in UTC with milliseconds and `Z`, the one timestamp shape the reference answers with.
pub(crate) fn timestamp(t: OffsetDateTime) -> String {
    let format =
        format_description!("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:3]Z");
    let utc = t.to_offset(time::UtcOffset::UTC);
    // Formatting only fails for years outside 0..=9999, which no clock or seed produces.
    utc.format(&format)
        .unwrap_or_else(|_| "1970-01-01T00:00:00.000Z".to_string())
}

fn entry_json(entry: &Entry) -> Value {
    json!({"name": entry.name, "value": entry.value, "id": entry.id})
}

impl Contact {
    /// The contact as the API answers it; `defs` supply the name and type of each custom field.
    pub fn to_json(&self, defs: &[CustomFieldDef]) -> Value {
        let custom_fields: Vec<Value> = self
            .custom_fields
            .iter()
            .map(|item| {
                let def = defs.iter().find(|d| d.key == item.key);
                json!({
                    "name": def.map(|d| d.name.as_str()),
                    "type": def.map(|d| d.kind.as_str()),
                    "value": item.value,
                    "key": item.key,
                    "id": item.id,
                })
            })
            .collect();
        json!({
            "id": self.id,
            "externalId": self.external_id,
            "source": self.source,
            "sourceUrl": self.source_url,
            "defaultFields": {
                "company": self.company,
                "firstName": self.first_name,
                "lastName": self.last_name,
                "role": self.role,
                "emails": self.emails.iter().map(entry_json).collect::<Vec<_>>(),
                "phoneNumbers": self.phone_numbers.iter().map(entry_json).collect::<Vec<_>>(),
            },
            "customFields": custom_fields,
            "createdAt": timestamp(self.created_at),
            "updatedAt": timestamp(self.updated_at),
            "createdByUserId": self.created_by_user_id,
        })
    }
}

impl Webhook {
    /// The webhook as the API answers it.
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "orgId": self.org_id,
            "label": self.label,
            "status": self.status,
            "url": self.url,
            "createdAt": timestamp(self.created_at),
            "updatedAt": timestamp(self.updated_at),
            "apiVersion": self.api_version,
            "events": self.events,
            "resourceIds": self.resource_ids,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn timestamps_are_utc_with_milliseconds() {
        assert_eq!(
            timestamp(datetime!(2026-01-05 09:00:00.5 +02:00)),
            "2026-01-05T07:00:00.500Z"
        );
    }
}
