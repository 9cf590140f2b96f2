//! The values the exploration sends, by class of each field's stated domain: a field of a
//! request body is varied within what its schema (or, where the contract shows no request body,
//! the resource's schema) states, never only in the middle of it. Values that name resources
//! (users, conversations, numbers) come from the profile or from what the target listed, never
//! invented (READINGS 6.6); text stays within one UTF-16 unit and one scalar a character at a
//! bound (so "characters" counts the same in every reading), with characters beyond the Basic
//! Multilingual Plane and combining marks inside the bounds; links stay absolute URIs
//! (READINGS 6.10); surrounding whitespace is never sent where a value must be kept (6.7).

use proptest::prelude::RngExt;
use proptest::test_runner::TestRng;
use serde_json::{Value, json};

/// A class of a field's domain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Class {
    /// Text in the middle of the domain: letters of several scripts.
    Plain,
    /// Text with characters beyond the Basic Multilingual Plane.
    BeyondBmp,
    /// Text with combining marks (a letter and its accent as two characters).
    Combining,
    /// Text with the characters that separate values in queries, lists and paths (a comma, a
    /// semicolon, a bar, a slash, an ampersand, an equals sign, a plus, a percent sign, a hash,
    /// a question mark), cut to the field's maximum where one is stated.
    Separators(Option<u64>),
    /// A length bound: exactly `n` characters.
    Length(u64),
    /// The maximum length in characters of more than one byte.
    LengthWide(u64),
    /// Longer than a common column (255 characters) where no maximum is stated: a target may
    /// refuse it (a bound the contract does not state); accepted, it reads back whole.
    Long(u64),
    /// An instant far in the past, far in the future, at another offset than UTC, with a
    /// fraction of a second.
    FarPast,
    FarFuture,
    OtherOffset,
    Fraction,
    /// An instant on an edge of the calendar: the last second of a leap day (a hand-written
    /// calendar, a day boundary).
    CalendarEdge,
    /// One value of a stated enumeration.
    Enum(Value),
    /// Left out of the body: `true` where the contract states the field optional (a field
    /// table with a Required column), `false` where its required-ness is not shown (READINGS
    /// 6.3: a target may then require it, so the request may be refused).
    Absent(bool),
    /// Null (a nullable field).
    Null,
    /// A link: an absolute URI, padded to `n` characters where a bound is stated.
    Link(Option<u64>),
}

impl Class {
    /// Its name in the reports' value classes.
    pub(crate) fn name(&self) -> String {
        match self {
            Class::Plain => "plain text".into(),
            Class::BeyondBmp => "beyond the BMP".into(),
            Class::Combining => "combining marks".into(),
            Class::Separators(_) => "separators".into(),
            Class::Length(n) => format!("length {n}"),
            Class::LengthWide(n) => format!("length {n}, multi-byte"),
            Class::Long(n) => format!("length {n}, no stated bound"),
            Class::FarPast => "far past".into(),
            Class::FarFuture => "far future".into(),
            Class::OtherOffset => "other offset".into(),
            Class::Fraction => "fractional seconds".into(),
            Class::CalendarEdge => "calendar edge".into(),
            Class::Enum(v) => format!("enum {}", v.as_str().unwrap_or("?")),
            Class::Absent(_) => "absent".into(),
            Class::Null => "null".into(),
            Class::Link(None) => "link".into(),
            Class::Link(Some(n)) => format!("link of {n}"),
        }
    }

    /// Whether a target may refuse it though it is in the stated domain: an instant at another
    /// offset than UTC (timestamps are stated in UTC), a century away (a range the contract
    /// does not state, which a target's rules may narrow), or a field left out whose
    /// required-ness is not shown (READINGS 6.3). Accepted, it must read back as sent.
    pub(crate) fn may_be_refused(&self) -> bool {
        matches!(
            self,
            Class::OtherOffset
                | Class::FarPast
                | Class::FarFuture
                | Class::Absent(false)
                | Class::Long(_)
        )
    }
}

/// Whether a schema is a date-time (the route table's `Timestamp`, or `format: date-time`).
fn is_instant(schema: &Value) -> bool {
    schema.get("format").and_then(Value::as_str) == Some("date-time")
        || schema
            .get("x-inlined-from")
            .and_then(Value::as_str)
            .is_some_and(|r| r.ends_with("/Timestamp"))
        || schema
            .get("pattern")
            .and_then(Value::as_str)
            .is_some_and(|p| p.contains("T[0-9]") || p.contains("\\d{2}T"))
}

/// Whether the field names a resource (an id with a stated prefix, a phone number): its values
/// come from the profile or the target only.
fn names_resource(schema: &Value) -> bool {
    schema
        .get("pattern")
        .and_then(Value::as_str)
        .is_some_and(|p| {
            p.starts_with("^US")
                || p.starts_with("^CN")
                || p.starts_with("^PN")
                || p.starts_with("^AC")
                || p.starts_with("^\\+")
        })
        || schema
            .get("x-inlined-from")
            .and_then(Value::as_str)
            .is_some_and(|r| r.ends_with("/E164") || r.ends_with("Id"))
}

/// Whether a body field may be left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presence {
    /// Required by the schema, the purpose (READINGS 6.3) or the operation table.
    Required,
    /// Stated optional: its object has a stated `required` list that does not name it.
    Optional,
    /// Its required-ness is not shown.
    NotShown,
}

/// The classes of a text or instant field's domain that a valid value may take. `presence`:
/// whether the field may be left out; `link`: a link (READINGS 6.10).
pub(crate) fn classes(schema: &Value, presence: Presence, link: bool) -> Vec<Class> {
    let types: Vec<&str> = match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        out.extend(
            values
                .iter()
                .filter(|v| !v.is_null())
                .cloned()
                .map(Class::Enum),
        );
    } else if is_instant(schema) {
        out.extend([
            Class::FarPast,
            Class::FarFuture,
            Class::OtherOffset,
            Class::Fraction,
            Class::CalendarEdge,
        ]);
    } else if link {
        out.push(Class::Link(None));
        if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
            out.push(Class::Link(Some(max)));
        }
    } else if types.contains(&"string") && !names_resource(schema) {
        let min = schema.get("minLength").and_then(Value::as_u64);
        let max = schema.get("maxLength").and_then(Value::as_u64);
        out.extend([
            Class::Plain,
            Class::BeyondBmp,
            Class::Combining,
            Class::Separators(max),
        ]);
        if let Some(n) = min {
            out.push(Class::Length(n.max(1)));
        }
        match max {
            Some(n) => {
                out.push(Class::Length(n));
                out.push(Class::LengthWide(n));
            }
            None => out.push(Class::Long(LONG)),
        }
    }
    match presence {
        Presence::Required => {}
        Presence::Optional => out.push(Class::Absent(true)),
        Presence::NotShown => out.push(Class::Absent(false)),
    }
    if types.contains(&"null") {
        out.push(Class::Null);
    }
    out
}

/// The length of a text where no maximum is stated: beyond a column of 255.
const LONG: u64 = 300;

/// Letters of several scripts, each one UTF-16 unit and one scalar.
const LETTERS: &[char] = &[
    'a', 'k', 'Q', 'é', 'ß', 'ø', 'Ω', 'λ', 'Ж', 'ع', '漢', 'テ', '한',
];
/// Characters outside the Basic Multilingual Plane.
const ASTRAL: &[char] = &['😀', '🎉', '𝄞', '🚀', '𐍈'];

fn pick<T: Clone>(rng: &mut TestRng, from: &[T]) -> T {
    from[rng.random_range(0..from.len())].clone()
}

/// Text of `n` characters starting with `tag` where it fits (what the run creates carries the
/// run id), padded with letters of `pad`.
fn padded(tag: &str, n: usize, pad: &[char], rng: &mut TestRng) -> String {
    let mut out: String = tag.chars().take(n).collect();
    while out.chars().count() < n {
        out.push(pick(rng, pad));
    }
    out
}

/// A value of `class` for a field, `tag` the run's tag for it (the run id and more).
pub(crate) fn value(class: &Class, tag: &str, rng: &mut TestRng) -> Option<Value> {
    let words = |rng: &mut TestRng, chars: &[char]| -> String {
        let n = rng.random_range(1..=6);
        (0..n).map(|_| pick(rng, chars)).collect()
    };
    Some(match class {
        Class::Plain => json!(format!("{tag} {}", words(rng, LETTERS))),
        Class::BeyondBmp => json!(format!(
            "{tag} {} {}",
            words(rng, ASTRAL),
            words(rng, LETTERS)
        )),
        // A letter and a combining acute accent, then a letter and a combining diaeresis.
        Class::Combining => json!(format!("{tag} e\u{301}te\u{301} u\u{308}ber")),
        Class::Separators(max) => {
            let text = format!("{tag} a,b;c|d/e&f=g+h%2i#j?k");
            json!(match max {
                Some(n) => text.chars().take(*n as usize).collect::<String>(),
                None => text,
            })
        }
        Class::Length(n) => json!(padded(tag, *n as usize, &['x', 'y', 'z'], rng)),
        Class::LengthWide(n) => json!(padded("", *n as usize, &['é', 'ß', 'ø', 'Ω', 'Ж'], rng)),
        Class::Long(n) => json!(padded(tag, *n as usize, LETTERS, rng)),
        Class::FarPast => json!("1901-01-01T00:00:00Z"),
        Class::FarFuture => json!("2199-12-31T23:59:59Z"),
        Class::OtherOffset => {
            let offset = pick(rng, &["+05:45", "-09:30", "+14:00", "-12:00"]);
            json!(format!(
                "2027-03-1{}T08:15:00{offset}",
                rng.random_range(0..9)
            ))
        }
        // Milliseconds: the finest fraction every reading keeps (READINGS 5.2 allows a
        // fraction; it does not state a precision beyond what JSON's common clocks show).
        Class::Fraction => json!(format!(
            "2027-06-0{}T12:34:56.{:03}Z",
            rng.random_range(1..9),
            rng.random_range(1..999)
        )),
        // Ahead of today, so that no rule about past dates can refuse it: the last second of
        // the next leap day.
        Class::CalendarEdge => {
            let year = time::OffsetDateTime::now_utc().year() + 1;
            let leap = (year..year + 4)
                .find(|y| time::util::is_leap_year(*y))
                .unwrap_or(year);
            json!(format!("{leap}-02-29T23:59:59Z"))
        }
        Class::Enum(v) => v.clone(),
        Class::Null => Value::Null,
        Class::Absent(_) => return None,
        Class::Link(None) => json!(format!("https://crm.example.test/{tag}")),
        Class::Link(Some(n)) => {
            let base = format!("https://crm.example.test/{tag}/");
            json!(padded(&base, *n as usize, &['a', 'b', '7', '-'], rng))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng() -> TestRng {
        TestRng::deterministic_rng(proptest::test_runner::RngAlgorithm::ChaCha)
    }

    #[test]
    fn text_at_a_bound_counts_the_same_in_every_reading() {
        let mut r = rng();
        for class in [Class::Length(75), Class::LengthWide(75)] {
            let v = value(&class, "r1234567-t", &mut r).unwrap();
            let s = v.as_str().unwrap();
            assert_eq!(s.chars().count(), 75);
            assert_eq!(s.encode_utf16().count(), 75, "{class:?}");
        }
        let beyond = value(&Class::BeyondBmp, "r1", &mut r).unwrap();
        assert!(beyond.as_str().unwrap().chars().any(|c| c as u32 > 0xFFFF));
    }

    #[test]
    fn a_link_stays_an_absolute_uri_at_its_bound() {
        let mut r = rng();
        let v = value(&Class::Link(Some(200)), "r1", &mut r).unwrap();
        let s = v.as_str().unwrap();
        assert_eq!(s.chars().count(), 200);
        assert!(s.starts_with("https://") && s.is_ascii());
    }

    #[test]
    fn the_classes_follow_the_schema() {
        let text = json!({"type": "string", "minLength": 1, "maxLength": 75});
        let c = classes(&text, Presence::NotShown, false);
        assert!(c.contains(&Class::Length(75)) && c.contains(&Class::Absent(false)));
        assert!(Class::Absent(false).may_be_refused() && !Class::Absent(true).may_be_refused());
        let nullable = json!({"type": ["string", "null"]});
        assert!(classes(&nullable, Presence::Required, false).contains(&Class::Null));
        let cut = value(&Class::Separators(Some(12)), "r1234567-t", &mut rng()).unwrap();
        assert_eq!(cut.as_str().unwrap().chars().count(), 12);
        let status = json!({"type": "string", "enum": ["enabled", "disabled"]});
        assert_eq!(classes(&status, Presence::Required, false).len(), 2);
        let user = json!({"type": "string", "pattern": "^US(.*)$"});
        assert!(
            classes(&user, Presence::Required, false).is_empty(),
            "ids come from the target"
        );
    }
}
