//! `custom_field_key`, `custom_field_multi_key`: keys contacts hold values under.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::fields::str_at;
use super::fixture::Fixture;
use super::reason::Reason;
use super::request::Request;
use super::session::Discoverer;

/// How many contacts hold each key, by the kind of value.
#[derive(Default)]
struct Keys {
    strings: BTreeMap<String, usize>,
    multi: BTreeMap<String, usize>,
    /// Keys with a list value and no `type`: multi-select, maybe.
    arrays: BTreeSet<String>,
}

impl Keys {
    fn of(contacts: &[Value]) -> Keys {
        let mut keys = Keys::default();
        for c in contacts {
            for f in c
                .get("customFields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(key) = str_at(f, "/key").filter(|k| !k.is_empty()) else {
                    continue;
                };
                let kind = str_at(f, "/type");
                match (f.get("value"), kind) {
                    (_, Some("multi-select")) => *keys.multi.entry(key.into()).or_default() += 1,
                    (Some(Value::String(_)), _) => {
                        *keys.strings.entry(key.into()).or_default() += 1
                    }
                    (Some(Value::Array(_)), None) => {
                        keys.arrays.insert(key.into());
                    }
                    _ => {}
                }
            }
        }
        keys
    }
}

/// The key most contacts hold (the first by name among equals), and how many hold it.
fn most(m: &BTreeMap<String, usize>) -> Option<(String, usize)> {
    m.iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, n)| (k.clone(), *n))
}

impl Discoverer<'_> {
    /// `custom_field_key`, `custom_field_multi_key`: keys contacts hold values under.
    pub async fn custom_fields(&mut self) {
        if !self.wants(Fixture::CustomFieldKey) && !self.wants(Fixture::CustomFieldMultiKey) {
            return;
        }
        let contacts = match self
            .walk(&Request::new("/v1/contacts", &[("maxResults", "50")]), 4)
            .await
        {
            Ok(c) => c,
            Err(e) => {
                self.not_found(Fixture::CustomFieldKey, e.clone());
                self.not_found(Fixture::CustomFieldMultiKey, e);
                return;
            }
        };
        let keys = Keys::of(&contacts);
        let read = format!(
            "GET /v1/contacts?maxResults=50 ({} contacts read)",
            contacts.len()
        );
        match most(&keys.strings) {
            Some((k, n)) => self.found(
                Fixture::CustomFieldKey,
                json!(k),
                format!("{read}: {n} contacts hold a string value under it"),
            ),
            None => self.not_found(
                Fixture::CustomFieldKey,
                Reason::NoStringField {
                    contacts: contacts.len(),
                },
            ),
        }
        match most(&keys.multi) {
            Some((k, n)) => self.found(
                Fixture::CustomFieldMultiKey,
                json!(k),
                format!("{read}: {n} contacts hold it with type `multi-select`"),
            ),
            None => {
                self.not_found(
                    Fixture::CustomFieldMultiKey,
                    Reason::NoMultiSelectField {
                        contacts: contacts.len(),
                    },
                );
                if !keys.arrays.is_empty() {
                    let keys: Vec<String> = keys.arrays.into_iter().collect();
                    self.guess(
                        Fixture::CustomFieldMultiKey,
                        format!(
                            "{} (values are lists, but no `type` says multi-select)",
                            keys.join(", ")
                        ),
                    );
                }
            }
        }
    }
}
