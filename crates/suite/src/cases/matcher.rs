//! Matchers: the values of `json`, `headers` and `every` expectations.
//!
//! A plain value matches by equality, objects by subset (extra fields are allowed everywhere,
//! Versioning rule 2). An object with a single operator key is an operator: `length`, `absent`,
//! `absentOrNull`, `present`, `nonEmpty`, `pattern`, `contains`, `excludes`, `type`, `oneOf`,
//! `not`, `equals`, `nullOr` (absent, null, or matching: READINGS 1.3 for fields that are
//! not required), `length` (an integer, or a list such as a profile list given as a whole
//! template `"{{name}}"`: as long as that list, READINGS 6.5), and `atOrAfter` / `atOrBefore` (an RFC 3339 instant compared as an instant, the
//! bound included, for the time-range filters of lists).

use regex::Regex;
use serde_json::Value;

use crate::redact::compact;

/// Operator keys; an object whose only key is one of these is an operator.
pub(crate) const OPERATORS: &[&str] = &[
    "length",
    "absent",
    "absentOrNull",
    "present",
    "nonEmpty",
    "pattern",
    "contains",
    "excludes",
    "type",
    "oneOf",
    "not",
    "equals",
    "nullOr",
    "atOrAfter",
    "atOrBefore",
];

/// Why a value did not match: the expectation and what was there, at a pointer.
#[derive(Debug, Clone, PartialEq)]
pub struct Mismatch {
    pub pointer: String,
    pub expected: String,
    pub actual: String,
}

/// A malformed matcher (reported at load time with the case file's line).
#[derive(Debug, Clone, thiserror::Error)]
pub enum BadMatcher {
    #[error(
        "`length` takes a non-negative integer, a list, or a whole template naming a list (\"{{{{name}}}}\")"
    )]
    Length,
    #[error("`absent`, `absentOrNull`, `present` and `nonEmpty` take `true`")]
    Flag,
    #[error("bad `pattern`: {0}")]
    Pattern(#[source] regex::Error),
    #[error("`pattern` takes a regular expression string")]
    PatternNotText,
    #[error("`type` takes string, number, integer, boolean, array, object or null")]
    Type,
    #[error("`oneOf` takes a list of matchers")]
    OneOf,
    #[error("`atOrAfter` and `atOrBefore` take an RFC 3339 date-time string")]
    Bound,
}

impl BadMatcher {
    /// The variant's name, for tests that require an input for every kind.
    pub fn name(&self) -> &'static str {
        match self {
            BadMatcher::Length => "Length",
            BadMatcher::Flag => "Flag",
            BadMatcher::Pattern(_) => "Pattern",
            BadMatcher::PatternNotText => "PatternNotText",
            BadMatcher::Type => "Type",
            BadMatcher::OneOf => "OneOf",
            BadMatcher::Bound => "Bound",
        }
    }
}

/// A list, or a string that is one whole template (`"{{name}}"`), which renders to a list.
fn is_list_or_list_template(v: &Value) -> bool {
    match v {
        Value::Array(_) => true,
        Value::String(s) => {
            let t = s.trim();
            t.starts_with("{{") && t.ends_with("}}") && t.matches("{{").count() == 1 && t.len() > 4
        }
        _ => false,
    }
}

/// Checks that the matcher is well formed, without evaluating it.
pub fn validate(matcher: &Value) -> Result<(), BadMatcher> {
    match operator(matcher) {
        Some(("length", v)) if v.as_u64().is_none() && !is_list_or_list_template(v) => {
            Err(BadMatcher::Length)
        }
        Some(("absent" | "absentOrNull" | "present" | "nonEmpty", v))
            if v != &Value::Bool(true) =>
        {
            Err(BadMatcher::Flag)
        }
        Some(("pattern", v)) => match v.as_str() {
            Some(p) => Regex::new(p).map(|_| ()).map_err(BadMatcher::Pattern),
            None => Err(BadMatcher::PatternNotText),
        },
        Some(("type", v)) => match v.as_str() {
            Some("string" | "number" | "integer" | "boolean" | "array" | "object" | "null") => {
                Ok(())
            }
            _ => Err(BadMatcher::Type),
        },
        Some(("oneOf", Value::Array(items))) => items.iter().try_for_each(validate),
        Some(("oneOf", _)) => Err(BadMatcher::OneOf),
        Some(("not" | "contains" | "excludes" | "nullOr", v)) => validate(v),
        // A bound is usually a template; it is checked when the case runs.
        Some(("atOrAfter" | "atOrBefore", v)) if !v.is_string() => Err(BadMatcher::Bound),
        Some(_) => Ok(()),
        None => match matcher {
            Value::Object(map) => map.values().try_for_each(validate),
            Value::Array(items) => items.iter().try_for_each(validate),
            _ => Ok(()),
        },
    }
}

fn operator(matcher: &Value) -> Option<(&str, &Value)> {
    let map = matcher.as_object()?;
    if map.len() != 1 {
        return None;
    }
    let (k, v) = map.iter().next()?;
    OPERATORS.contains(&k.as_str()).then_some((k.as_str(), v))
}

/// Matches `actual` (absent when `None`) against `expected`; `pointer` names the place.
pub fn check(expected: &Value, actual: Option<&Value>, pointer: &str) -> Result<(), Mismatch> {
    let fail = |expected: String| Mismatch {
        pointer: pointer.to_string(),
        expected,
        actual: show(actual),
    };
    if let Some((op, arg)) = operator(expected) {
        let ok = match op {
            "absent" => actual.is_none(),
            "absentOrNull" => actual.is_none_or(Value::is_null),
            "present" => actual.is_some_and(|v| !v.is_null()),
            "nonEmpty" => match actual {
                Some(Value::String(s)) => !s.trim().is_empty(),
                Some(Value::Array(a)) => !a.is_empty(),
                Some(Value::Object(o)) => !o.is_empty(),
                _ => false,
            },
            "length" => {
                // A list (a rendered profile list): its length, whatever the profile gives.
                let want = match arg {
                    Value::Array(list) => list.len() as u64,
                    other => other.as_u64().unwrap_or(u64::MAX),
                };
                match actual {
                    Some(Value::Array(a)) => a.len() as u64 == want,
                    Some(Value::String(s)) => s.chars().count() as u64 == want,
                    _ => false,
                }
            }
            "pattern" => match (arg.as_str().map(Regex::new), actual) {
                (Some(Ok(re)), Some(Value::String(s))) => re.is_match(s),
                _ => false,
            },
            "type" => actual.is_some_and(|v| type_name_matches(arg.as_str().unwrap_or(""), v)),
            "contains" => match actual {
                Some(Value::Array(items)) => {
                    items.iter().any(|i| check(arg, Some(i), pointer).is_ok())
                }
                Some(Value::String(s)) => arg.as_str().is_some_and(|sub| s.contains(sub)),
                _ => false,
            },
            "excludes" => match actual {
                Some(Value::Array(items)) => {
                    !items.iter().any(|i| check(arg, Some(i), pointer).is_ok())
                }
                Some(Value::String(s)) => arg.as_str().is_none_or(|sub| !s.contains(sub)),
                None => true,
                _ => false,
            },
            "oneOf" => arg
                .as_array()
                .is_some_and(|alts| alts.iter().any(|m| check(m, actual, pointer).is_ok())),
            "not" => check(arg, actual, pointer).is_err(),
            "equals" => actual == Some(arg),
            "atOrAfter" | "atOrBefore" => match (instant(Some(arg)), instant(actual)) {
                (Some(bound), Some(at)) if op == "atOrAfter" => at >= bound,
                (Some(bound), Some(at)) => at <= bound,
                _ => false,
            },
            "nullOr" => match actual {
                None | Some(Value::Null) => true,
                Some(_) => return check(arg, actual, pointer),
            },
            _ => false,
        };
        return if ok {
            Ok(())
        } else {
            Err(fail(describe(expected)))
        };
    }
    match (expected, actual) {
        (Value::Object(want), Some(Value::Object(have))) => {
            for (k, v) in want {
                let child = format!("{pointer}/{}", k.replace('~', "~0").replace('/', "~1"));
                check(v, have.get(k), &child)?;
            }
            Ok(())
        }
        (Value::Array(want), Some(Value::Array(have))) => {
            if want.len() != have.len() {
                return Err(fail(format!(
                    "an array of {} item{}: {}",
                    want.len(),
                    if want.len() == 1 { "" } else { "s" },
                    compact(expected)
                )));
            }
            for (i, (w, h)) in want.iter().zip(have).enumerate() {
                check(w, Some(h), &format!("{pointer}/{i}"))?;
            }
            Ok(())
        }
        (Value::Number(w), Some(Value::Number(h))) if w.as_f64() == h.as_f64() => Ok(()),
        (w, Some(h)) if w == h => Ok(()),
        _ => Err(fail(compact(expected))),
    }
}

/// An RFC 3339 string as an instant; equal instants written differently compare equal.
fn instant(v: Option<&Value>) -> Option<time::OffsetDateTime> {
    let text = v?.as_str()?;
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()
}

fn type_name_matches(name: &str, v: &Value) -> bool {
    match name {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_i64() || v.is_u64(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "null" => v.is_null(),
        _ => false,
    }
}

/// A matcher in words, for failure messages.
pub fn describe(expected: &Value) -> String {
    match operator(expected) {
        Some(("absent", _)) => "absent".into(),
        Some(("absentOrNull", _)) => "absent or null".into(),
        Some(("present", _)) => "present and not null".into(),
        Some(("nonEmpty", _)) => "a non-empty value".into(),
        Some(("length", Value::Array(list))) => {
            format!(
                "length {} (the length of {})",
                list.len(),
                compact(&Value::Array(list.clone()))
            )
        }
        Some(("length", n)) => format!("length {n}"),
        Some(("pattern", p)) => format!("a string matching {}", compact(p)),
        Some(("type", t)) => format!("a value of type {}", t.as_str().unwrap_or("?")),
        Some(("contains", m)) => format!("something containing {}", describe(m)),
        Some(("excludes", m)) => format!("nothing containing {}", describe(m)),
        Some(("oneOf", Value::Array(alts))) => {
            alts.iter().map(describe).collect::<Vec<_>>().join(" or ")
        }
        Some(("not", m)) => format!("not {}", describe(m)),
        Some(("equals", v)) => format!("exactly {}", compact(v)),
        Some(("nullOr", m)) => format!("absent, null or {}", describe(m)),
        Some(("atOrAfter", t)) => format!("an instant at or after {}", compact(t)),
        Some(("atOrBefore", t)) => format!("an instant at or before {}", compact(t)),
        _ => compact(expected),
    }
}

/// What was found, in words.
pub fn show(actual: Option<&Value>) -> String {
    match actual {
        None => "absent".into(),
        Some(v @ Value::Array(a)) => format!("{} (length {})", compact(v), a.len()),
        Some(v) => compact(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_match_as_subsets() {
        assert!(check(&json!({"a": 1}), Some(&json!({"a": 1, "b": 2})), "").is_ok());
        let m = check(
            &json!({"a": {"b": 1}}),
            Some(&json!({"a": {"b": 2}})),
            "/data",
        )
        .unwrap_err();
        assert_eq!(m.pointer, "/data/a/b");
    }

    #[test]
    fn operators() {
        assert!(check(&json!({"length": 2}), Some(&json!([1, 2])), "").is_ok());
        assert!(check(&json!({"length": 2}), Some(&json!([1])), "").is_err());
        assert!(check(&json!({"absent": true}), None, "").is_ok());
        assert!(check(&json!({"absent": true}), Some(&json!(null)), "").is_err());
        assert!(check(&json!({"absentOrNull": true}), Some(&json!(null)), "").is_ok());
        assert!(
            check(
                &json!({"contains": {"value": "a"}}),
                Some(&json!([{"value": "a", "id": "1"}])),
                ""
            )
            .is_ok()
        );
        assert!(
            check(
                &json!({"excludes": {"value": "a"}}),
                Some(&json!([{"value": "a"}])),
                ""
            )
            .is_err()
        );
        assert!(
            check(
                &json!({"pattern": "^[0-9]{7}$"}),
                Some(&json!("0800404")),
                ""
            )
            .is_ok()
        );
        assert!(check(&json!({"nonEmpty": true}), Some(&json!(" ")), "").is_err());
        assert!(check(&json!({"oneOf": [1, 2]}), Some(&json!(2)), "").is_ok());
        assert!(check(&json!({"not": {"type": "string"}}), Some(&json!(2)), "").is_ok());
        assert!(check(&json!({"nullOr": "a"}), None, "").is_ok());
        assert!(check(&json!({"nullOr": "a"}), Some(&json!("b")), "").is_err());
    }

    #[test]
    fn instants_compare_as_instants_bound_included() {
        let t = "2026-02-01T00:00:00Z";
        assert!(
            check(
                &json!({"atOrAfter": t}),
                Some(&json!("2026-02-01T00:00:00.000+00:00")),
                ""
            )
            .is_ok()
        );
        assert!(
            check(
                &json!({"atOrAfter": t}),
                Some(&json!("2026-01-31T23:59:59.999Z")),
                ""
            )
            .is_err()
        );
        assert!(
            check(
                &json!({"atOrBefore": t}),
                Some(&json!("2026-01-31T23:59:59Z")),
                ""
            )
            .is_ok()
        );
        assert!(
            check(
                &json!({"atOrBefore": t}),
                Some(&json!("2026-02-01T00:00:01Z")),
                ""
            )
            .is_err()
        );
        assert!(check(&json!({"atOrBefore": t}), Some(&json!("not a time")), "").is_err());
        assert!(check(&json!({"atOrBefore": t}), None, "").is_err());
        assert!(validate(&json!({"atOrAfter": 3})).is_err());
    }

    #[test]
    fn validate_rejects_bad_operators() {
        assert!(validate(&json!({"pattern": "("})).is_err());
        assert!(validate(&json!({"type": "str"})).is_err());
        assert!(validate(&json!({"a": {"length": "x"}})).is_err());
        assert!(validate(&json!({"a": {"length": "x {{list}}"}})).is_err());
        assert!(validate(&json!({"a": {"length": "{{list}}"}})).is_ok());
    }

    #[test]
    fn length_of_a_list_is_that_lists_length() {
        let three = json!({"length": ["+1", "+2", "+3"]});
        assert!(check(&three, Some(&json!(["a", "b", "c"])), "").is_ok());
        assert!(check(&three, Some(&json!(["a", "b"])), "").is_err());
        assert!(check(&json!({"length": []}), Some(&json!([])), "").is_ok());
    }
}
