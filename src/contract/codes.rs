//! The v1 error code table (`x-v1-error-codes` of the route table) and READINGS 3.4.

use std::collections::HashMap;

use serde_json::Value;

/// One row of the v1 code table.
#[derive(Debug, Clone)]
pub struct CodeRow {
    pub code: String,
    pub title: String,
}

/// Titles that name no particular condition: any condition of that status may take the row
/// (READINGS 3.4).
const GENERIC_TITLES: &[&str] = &[
    "Unauthorized",
    "Forbidden",
    "Not Found",
    "Bad Request",
    "Conflict",
    "Unknown",
];

impl CodeRow {
    /// Whether the row is generic, so every condition of its status takes it.
    pub fn is_generic(&self) -> bool {
        GENERIC_TITLES.contains(&self.title.as_str())
    }
}

/// Area -> status -> row.
#[derive(Debug, Clone, Default)]
pub struct V1Codes(HashMap<String, HashMap<u16, CodeRow>>);

impl V1Codes {
    /// Reads `x-v1-error-codes`: `{Area: {"404": {code, title}}}`. Errors carry a JSON Pointer.
    pub fn from_openapi(doc: &Value) -> Result<V1Codes, (String, String)> {
        let mut out = HashMap::new();
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
