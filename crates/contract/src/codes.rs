//! The error tables of the route table: the v1 codes (`x-v1-error-codes`, READINGS 3.4) and the
//! titles of the header-versioned webhook error body (`x-webhook-error-titles`).

use std::collections::HashMap;

use serde_json::Value;

/// One row of the v1 code table.
#[derive(Debug, Clone)]
pub struct CodeRow {
    pub code: String,
    pub title: String,
    /// The title names no particular condition (`x-v1-generic-titles`, READINGS 3.4).
    generic: bool,
}

impl CodeRow {
    /// Whether the row is generic, so every condition of its status takes it.
    pub fn is_generic(&self) -> bool {
        self.generic
    }
}

/// Area -> status -> row.
#[derive(Debug, Clone, Default)]
pub struct V1Codes(HashMap<String, HashMap<u16, CodeRow>>);

impl V1Codes {
    /// Reads `x-v1-error-codes`: `{Area: {"404": {code, title}}}`. Errors carry a JSON Pointer.
    pub(crate) fn from_openapi(doc: &Value) -> Result<V1Codes, (String, String)> {
        let mut out = HashMap::new();
        let Some(generic) = doc.get("x-v1-generic-titles").and_then(Value::as_array) else {
            return Err((String::new(), "x-v1-generic-titles is missing".into()));
        };
        let generic: Vec<&str> = generic.iter().filter_map(Value::as_str).collect();
        let Some(areas) = doc.get("x-v1-error-codes").and_then(Value::as_object) else {
            return Err((String::new(), "x-v1-error-codes is missing".into()));
        };
        for (area, rows) in areas {
            let mut by_status = HashMap::new();
            for (status, row) in rows.as_object().into_iter().flatten() {
                let pointer = format!("/x-v1-error-codes/{area}/{status}");
                let status: u16 = status
                    .parse()
                    .map_err(|_| (pointer.clone(), "status must be a number".to_string()))?;
                let code = row.get("code").and_then(Value::as_str);
                let title = row.get("title").and_then(Value::as_str);
                let (Some(code), Some(title)) = (code, title) else {
                    return Err((pointer, "each row needs `code` and `title`".into()));
                };
                by_status.insert(
                    status,
                    CodeRow {
                        code: code.into(),
                        title: title.into(),
                        generic: generic.contains(&title),
                    },
                );
            }
            out.insert(area.clone(), by_status);
        }
        Ok(V1Codes(out))
    }

    /// Whether `code` or `title` is that of a row naming one condition (not a generic title):
    /// an answer carrying it says why the request was refused (READINGS 6.9).
    pub fn names_a_condition(&self, code: Option<&str>, title: Option<&str>) -> bool {
        self.0.values().flat_map(HashMap::values).any(|row| {
            !row.is_generic()
                && (code == Some(row.code.as_str()) || title == Some(row.title.as_str()))
        })
    }

    /// The row of `area` for `status`, if the table has one.
    pub fn row(&self, area: &str, status: u16) -> Option<&CodeRow> {
        self.0.get(area)?.get(&status)
    }
}

/// The titles of the header-versioned webhook error body, by status.
#[derive(Debug, Clone, Default)]
pub struct WebhookTitles(HashMap<u16, String>);

impl WebhookTitles {
    /// Reads `x-webhook-error-titles`: `{"404": "Not Found"}`. Errors carry a JSON Pointer.
    pub(crate) fn from_openapi(doc: &Value) -> Result<WebhookTitles, (String, String)> {
        let Some(rows) = doc.get("x-webhook-error-titles").and_then(Value::as_object) else {
            return Err((String::new(), "x-webhook-error-titles is missing".into()));
        };
        let mut out = HashMap::new();
        for (status, title) in rows {
            let pointer = format!("/x-webhook-error-titles/{status}");
            let status: u16 = status
                .parse()
                .map_err(|_| (pointer.clone(), "status must be a number".to_string()))?;
            let title = title
                .as_str()
                .ok_or_else(|| (pointer, "each title must be a string".to_string()))?;
            out.insert(status, title.to_string());
        }
        Ok(WebhookTitles(out))
    }

    /// The title the table names for `status`, if any.
    pub fn title(&self, status: u16) -> Option<&str> {
        self.0.get(&status).map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_tables_come_from_the_route_table() {
        let contract = crate::Contract::embedded().unwrap();
        let titles = &contract.webhook_titles;
        assert_eq!(titles.title(404), Some("Not Found"));
        assert_eq!(titles.title(500), Some("Unknown Error"));
        assert_eq!(titles.title(409), None);
        let codes = &contract.codes;
        assert!(codes.row("Contacts", 404).unwrap().is_generic());
        assert!(!codes.row("Contacts", 400).unwrap().is_generic());
        assert!(codes.row("Calls", 500).unwrap().is_generic());
        let doc = serde_json::json!({"x-webhook-error-titles": {"4o4": "Not Found"}});
        assert!(WebhookTitles::from_openapi(&doc).is_err());
        assert!(WebhookTitles::from_openapi(&serde_json::json!({})).is_err());
    }
}
