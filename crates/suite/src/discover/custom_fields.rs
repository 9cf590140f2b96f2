//! `custom_field_key`, `custom_field_value`, `custom_field_multi_key`: keys contacts hold values
//! under, and a value of the first.
//!
//! The contract leaves the type of a custom field's value open beyond string and array of string,
//! so the value a case sends under `custom_field_key` is one the target has shown there (READINGS
//! 6.6): a field of numbers or dates shown as strings may refuse other text. Discovery prefers a
//! key some contact holds free text under (letters, not a number, a date, a boolean or an
//! address), and says so in its table.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::fields::str_at;
use super::fixture::Fixture;
use super::reason::Reason;
use super::request::Request;
use super::session::Discoverer;

/// The string values contacts hold under one key.
#[derive(Default)]
struct Held {
    /// How many contacts hold a string under it.
    contacts: usize,
    /// The first value shown, and the first that is free text.
    first: Option<String>,
    free: Option<String>,
}

/// How many contacts hold each key, by the kind of value.
#[derive(Default)]
struct Keys {
    strings: BTreeMap<String, Held>,
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
                    (Some(Value::String(v)), _) if !v.trim().is_empty() => {
                        let held = keys.strings.entry(key.into()).or_default();
                        held.contacts += 1;
                        held.first.get_or_insert_with(|| v.clone());
                        if held.free.is_none() && is_free_text(v) {
                            held.free = Some(v.clone());
                        }
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

/// Whether a value reads as free text: it has a letter, and is not a number, a date or time, a
/// boolean, an email address or a URL (values a typed field would hold as strings).
fn is_free_text(v: &str) -> bool {
    let t = v.trim();
    let lower = t.to_lowercase();
    t.chars().any(char::is_alphabetic)
        && t.parse::<f64>().is_err()
        && !matches!(lower.as_str(), "true" | "false" | "yes" | "no")
        && time::OffsetDateTime::parse(t, &time::format_description::well_known::Rfc3339).is_err()
        && !(t.len() == 10
            && t.chars().filter(|c| *c == '-').count() == 2
            && t.chars().filter(char::is_ascii_digit).count() == 8)
        && !t.contains('@')
        && !t.contains("://")
}

/// The key to send values under: one that holds free text first, then the one most contacts
/// hold (the first by name among equals).
fn best(m: &BTreeMap<String, Held>) -> Option<(&String, &Held)> {
    m.iter().max_by(|a, b| {
        (a.1.free.is_some(), a.1.contacts)
            .cmp(&(b.1.free.is_some(), b.1.contacts))
            .then(b.0.cmp(a.0))
    })
}

/// The key most contacts hold (the first by name among equals), and how many hold it.
fn most(m: &BTreeMap<String, usize>) -> Option<(String, usize)> {
    m.iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map(|(k, n)| (k.clone(), *n))
}

impl Discoverer<'_> {
    /// `custom_field_key`, `custom_field_value`, `custom_field_multi_key`: keys contacts hold
    /// values under, and a value shown under the first.
    pub(crate) async fn custom_fields(&mut self) {
        let wanted = [
            Fixture::CustomFieldKey,
            Fixture::CustomFieldValue,
            Fixture::CustomFieldMultiKey,
        ];
        if !wanted.iter().any(|f| self.wants(*f)) {
            return;
        }
        let contacts = match self
            .walk(&Request::new("/v1/contacts", &[("maxResults", "50")]), 4)
            .await
        {
            Ok(c) => c,
            Err(e) => {
                for f in wanted {
                    self.not_found(f, e.clone());
                }
                return;
            }
        };
        let keys = Keys::of(&contacts);
        let read = format!(
            "GET /v1/contacts?maxResults=50 ({} contacts read)",
            contacts.len()
        );
        self.string_field(&keys, &read, contacts.len());
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

    /// `custom_field_key` and a value shown under it (under the profile's key, when it gives one).
    fn string_field(&mut self, keys: &Keys, read: &str, contacts: usize) {
        let given = self.have_str(Fixture::CustomFieldKey);
        let chosen = match &given {
            Some(k) => keys.strings.get_key_value(k),
            None => best(&keys.strings),
        };
        let Some((key, held)) = chosen else {
            let why = match given {
                Some(key) => Reason::NoValueUnder { key, contacts },
                None => Reason::NoStringField { contacts },
            };
            self.not_found(Fixture::CustomFieldKey, why.clone());
            self.not_found(Fixture::CustomFieldValue, why);
            return;
        };
        let n = held.contacts;
        let why_key = match &held.free {
            Some(v) => format!(
                "{read}: {n} contacts hold a string value under it, free text among them ({v:?}); a key of numbers or dates shown as strings may refuse other text"
            ),
            None => format!(
                "{read}: {n} contacts hold a string value under it (no key holds free text: the cases send only a value shown under it)"
            ),
        };
        self.found(Fixture::CustomFieldKey, json!(key), why_key);
        let value = held.free.clone().or_else(|| held.first.clone());
        if let Some(v) = value {
            self.found(
                Fixture::CustomFieldValue,
                json!(v),
                format!(
                    "{read}: a value shown under `{key}`; the field's type is not shown, so the cases send what the target holds there"
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_text_is_told_from_typed_values_shown_as_strings() {
        for v in ["Seeded note 1", "gold", "Call après 17h", "VIP"] {
            assert!(is_free_text(v), "{v}");
        }
        for v in [
            "12",
            "3.5",
            "-7",
            "true",
            "2026-01-05",
            "2026-01-05T09:00:00Z",
            "a@example.test",
            "https://x.test/a",
            "  ",
        ] {
            assert!(!is_free_text(v), "{v}");
        }
    }

    #[test]
    fn a_key_of_free_text_wins_over_one_more_contacts_hold_as_numbers() {
        let contacts = vec![
            json!({"customFields": [{"key": "score", "value": "12"}, {"key": "notes", "value": "call back"}]}),
            json!({"customFields": [{"key": "score", "value": "40"}]}),
            json!({"customFields": [{"key": "score", "value": "7"}]}),
        ];
        let keys = Keys::of(&contacts);
        let (key, held) = best(&keys.strings).expect("a key");
        assert_eq!(key, "notes");
        assert_eq!(held.free.as_deref(), Some("call back"));
        // Without free text anywhere, the key most contacts hold, and a value it holds.
        let keys = Keys::of(&contacts[1..]);
        let (key, held) = best(&keys.strings).expect("a key");
        assert_eq!((key.as_str(), held.first.as_deref()), ("score", Some("40")));
    }
}
