//! Inputs for a constraint: the boundary values (on and just inside each bound valid, just outside
//! invalid), and proptest strategies for random values on either side.
//!
//! Generated strings start from the example's own value, which carries the run id, so what a
//! property creates is tagged like everything else the run creates.

use proptest::prelude::*;
use proptest::strategy::SBoxedStrategy;
use regex::Regex;
use serde_json::{Value, json};

use crate::cases::constraint::{Constraint, ItemKind};
use conformance_contract::E164;

/// Characters of random text: ASCII, Latin with diacritics, Greek, CJK; all one UTF-16 unit and
/// one Unicode scalar each, so "characters" counts the same in every reasonable reading.
const TEXT_CHARS: &[char] = &[
    'a', 'b', 'k', 'q', 'z', 'A', 'M', 'Z', '0', '7', '-', '_', 'é', 'ü', 'ñ', 'ß', 'ø', 'Ω', 'λ',
    '漢', '字', 'テ',
];
/// Characters that keep a URL a URL.
const URL_CHARS: &[char] = &['a', 'b', 'k', 'q', 'z', '0', '7', '-', '_'];
/// Whitespace of every kind (Unicode White_Space), for text that must not be blank.
const WHITESPACE: &[char] = &[
    ' ', '\t', '\n', '\r', '\u{0B}', '\u{0C}', '\u{85}', '\u{A0}', '\u{1680}', '\u{2002}',
    '\u{2003}', '\u{2009}', '\u{200A}', '\u{2028}', '\u{2029}', '\u{202F}', '\u{205F}', '\u{3000}',
];

/// What generation needs to know besides the constraint.
#[derive(Debug, Clone)]
pub(crate) struct Context {
    /// The example's value at the probed place (a valid value).
    pub example: Value,
    /// The value keeps a format (a URL): shorter values than the example are not generated.
    pub keeps_format: bool,
    /// Lowercase names a valid text value must not equal or start with (reserved names).
    pub avoid: Vec<String>,
    /// Items an array must be drawn from (`x-example.items`); empty: generated items.
    pub pool: Vec<Value>,
    /// The value names workspace resources (`x-example.resources`): a count input starts with
    /// the example's own (profile) item, so the smallest valid input names nothing invented.
    pub resources: bool,
    /// The item an array must not hold (`x-not-item`, rendered with the profile).
    pub excluded: Option<Value>,
}

/// Deterministic boundary inputs.
#[derive(Debug, Clone, Default)]
pub(crate) struct Boundaries {
    pub valid: Vec<Value>,
    pub invalid: Vec<Value>,
}

fn example_text(ctx: &Context) -> String {
    match &ctx.example {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .first()
            .and_then(Value::as_str)
            .unwrap_or("x")
            .to_string(),
        other => other.to_string(),
    }
}

/// A string of exactly `n` characters grown from the example (truncated, or padded with `pad`).
fn sized(base: &str, n: usize, pad: impl Iterator<Item = char>) -> String {
    let mut out: String = base.chars().take(n).collect();
    out.extend(pad.take(n.saturating_sub(out.chars().count())));
    out
}

fn allowed(ctx: &Context, s: &str) -> bool {
    let lower = s.to_lowercase();
    !ctx.avoid
        .iter()
        .any(|r| !r.is_empty() && lower.starts_with(r.as_str()))
}

/// Realistic E.164 numbers (fictional ranges), distinct for distinct `i`.
pub(crate) fn e164(i: usize) -> String {
    match i % 3 {
        0 => format!("+1415555{:04}", 100 + i),
        1 => format!("+4477009{:05}", 100 + i),
        _ => format!("+6149157{:04}", 100 + i),
    }
}

/// `n` items of the kind. Copies of the example's item become distinct E.164 numbers when the
/// (rendered) example item is one, so a target that drops duplicates still sees `n` items.
fn items(kind: &ItemKind, phone: &E164, n: usize, ctx: &Context) -> Value {
    if !ctx.pool.is_empty() {
        // Drawn from the profile's list only; an input it cannot make is no input (Null).
        return if n <= ctx.pool.len() {
            Value::Array(ctx.pool[..n].to_vec())
        } else {
            Value::Null
        };
    }
    // A query example is one value; a body example an array.
    let first = match &ctx.example {
        Value::Array(a) => a.first().cloned(),
        Value::Null => None,
        one => Some(one.clone()),
    };
    let first_is_e164 = first
        .as_ref()
        .and_then(Value::as_str)
        .is_some_and(|s| phone.matches(s));
    let generated = (0..).map(|i| match kind {
        ItemKind::E164 => json!(e164(i)),
        ItemKind::Example(_) if first_is_e164 => json!(e164(i)),
        ItemKind::Enum(values) => values
            .get(i % values.len().max(1))
            .cloned()
            .unwrap_or(Value::Null),
        ItemKind::Text => json!(format!("item-{i}")),
        ItemKind::Example(v) => first.clone().unwrap_or_else(|| v.clone()),
    });
    match first.clone().filter(|_| ctx.resources && n > 0) {
        // The profile's resource first, then distinct invented ones (READINGS 6.6); only where
        // generated items are distinct (phone numbers), so the filter always finds more.
        Some(own) if first_is_e164 || matches!(kind, ItemKind::E164) => Value::Array(
            std::iter::once(own.clone())
                .chain(generated.filter(|v| v != &own).take(n - 1))
                .collect(),
        ),
        _ => Value::Array(generated.take(n).collect()),
    }
}

fn push_unique(list: &mut Vec<Value>, v: Value) {
    if !list.contains(&v) {
        list.push(v);
    }
}

/// The boundary inputs of a constraint.
pub(crate) fn boundaries(c: &Constraint, ctx: &Context) -> Boundaries {
    let mut b = Boundaries::default();
    match c {
        Constraint::Integer { min, max } => {
            let lo = min.unwrap_or(i64::MIN);
            let hi = max.unwrap_or(i64::MAX);
            for v in [*min, min.map(|m| m + 1), max.map(|m| m - 1), *max]
                .into_iter()
                .flatten()
            {
                if (lo..=hi).contains(&v) {
                    push_unique(&mut b.valid, json!(v));
                }
            }
            if let Some(m) = min {
                push_unique(&mut b.invalid, json!(m - 1));
            }
            if let Some(m) = max {
                push_unique(&mut b.invalid, json!(m + 1));
            }
            // A number inside the range that is no integer: refused, not read as its integer
            // part (a parser that stops at the first character it cannot read).
            if lo < hi && lo > i64::MIN {
                push_unique(&mut b.invalid, json!(lo as f64 + 0.5));
            }
        }
        Constraint::Length { min, max } => {
            let base = example_text(ctx);
            let floor = if ctx.keeps_format {
                base.chars().count() as u64
            } else {
                (*min).max(1)
            };
            let lengths = [
                Some(*min),
                Some(min + 1),
                max.map(|m| m.saturating_sub(1)),
                *max,
            ];
            for n in lengths.into_iter().flatten() {
                if n >= floor.max(*min) && max.is_none_or(|m| n <= m) {
                    let s = sized(&base, n as usize, std::iter::repeat('x'));
                    if allowed(ctx, &s) {
                        push_unique(&mut b.valid, json!(s));
                    }
                }
            }
            // A length counts characters, and text is not only ASCII: at the maximum, one input
            // of characters that take more than one byte (and one UTF-16 unit each).
            if let Some(m) = max.filter(|m| !ctx.keeps_format && *m >= floor.max(*min)) {
                let s = sized(&base, m as usize, std::iter::repeat('é'));
                if allowed(ctx, &s) {
                    push_unique(&mut b.valid, json!(s));
                }
            }
            if *min > 0 {
                push_unique(
                    &mut b.invalid,
                    json!(sized(&base, (min - 1) as usize, std::iter::repeat('x'))),
                );
            }
            if let Some(m) = max {
                push_unique(
                    &mut b.invalid,
                    json!(sized(&base, (m + 1) as usize, std::iter::repeat('x'))),
                );
            }
        }
        Constraint::Count {
            min,
            max,
            item,
            phone,
        } => {
            for n in [Some(*min), *max].into_iter().flatten() {
                push_unique(&mut b.valid, items(item, phone, n as usize, ctx));
            }
            if let Some(m) = max {
                push_unique(&mut b.invalid, items(item, phone, (m + 1) as usize, ctx));
            }
            if *min > 0 {
                push_unique(&mut b.invalid, items(item, phone, (min - 1) as usize, ctx));
            }
        }
        Constraint::Phone(_) => {
            for i in 0..3 {
                b.valid.push(json!(e164(i)));
            }
            for v in [
                "+04155550123",
                "14155550123",
                "+1234567890123456",
                "+1415555ABCD",
                "+",
                "",
                "+1 415 555 0123",
                "++14155550123",
                // Digits of other scripts: a Unicode-aware `\d` takes them; the pattern (ECMA
                // 262, as JSON Schema reads it) does not.
                "+1\u{664}\u{661}\u{665}\u{665}\u{665}\u{665}\u{660}\u{661}\u{662}\u{663}",
                "+\u{ff11}\u{ff14}\u{ff11}\u{ff15}\u{ff15}\u{ff15}\u{ff15}\u{ff10}\u{ff11}\u{ff12}\u{ff13}",
            ] {
                b.invalid.push(json!(v));
            }
        }
        Constraint::Pattern(p) => {
            if !ctx.example.is_null() {
                b.valid.push(ctx.example.clone());
            }
            if let Ok(re) = Regex::new(p) {
                for v in ["", "x", "abc", "-1", "12a", "1.5", "ZZ123", "us123"] {
                    if !re.is_match(v) && !re.is_match(v.trim()) {
                        b.invalid.push(json!(v));
                    }
                }
            }
        }
        Constraint::NotItem(_) => {
            if !ctx.example.is_null() {
                b.valid.push(ctx.example.clone());
            }
            if let Some(x) = &ctx.excluded {
                // The excluded item alone, and beside the example's items.
                b.invalid.push(json!([x]));
                if let Value::Array(items) = &ctx.example {
                    let mut with = items.clone();
                    with.push(x.clone());
                    push_unique(&mut b.invalid, Value::Array(with));
                }
            }
        }
        Constraint::Uri => {
            if !ctx.example.is_null() {
                b.valid.push(ctx.example.clone());
            }
            // No scheme: a host and path, a relative reference, words, a scheme without its
            // colon (RFC 3986: a URI starts with a scheme and ':').
            for v in [
                "hooks.example.test/in",
                "//hooks.example.test/in",
                "/in",
                "not a uri",
                "https//hooks.example.test/in",
            ] {
                b.invalid.push(json!(v));
            }
        }
        Constraint::NotBlank => {
            if !ctx.example.is_null() {
                b.valid.push(ctx.example.clone());
            }
            for v in [
                " ",
                "\t",
                "\n",
                "\r\n",
                "\u{A0}",
                "\u{2003}",
                "\u{3000}",
                "\u{2028}",
                " \t\n\u{3000} ",
            ] {
                b.invalid.push(json!(v));
            }
        }
    }
    b
}

fn text_strategy(
    chars: &'static [char],
    len: std::ops::RangeInclusive<usize>,
) -> SBoxedStrategy<String> {
    proptest::collection::vec(proptest::sample::select(chars), len)
        .prop_map(|v| v.into_iter().collect())
        .sboxed()
}

/// A strategy for random valid (`valid`) or invalid inputs, where the constraint has a range to
/// draw from.
pub(crate) fn strategy(
    c: &Constraint,
    valid: bool,
    ctx: &Context,
) -> Option<SBoxedStrategy<Value>> {
    match c {
        Constraint::Integer { min, max } => {
            let (lo, hi) = (min.unwrap_or(-1000), max.unwrap_or(lo_plus(*min)));
            if valid {
                Some((lo..=hi).prop_map(|v| json!(v)).sboxed())
            } else {
                let mut outs: Vec<SBoxedStrategy<Value>> = Vec::new();
                if let Some(m) = max {
                    outs.push(((m + 1)..=(m + 1000)).prop_map(|v| json!(v)).sboxed());
                }
                if let Some(m) = min {
                    outs.push(((m - 1000)..=(m - 1)).prop_map(|v| json!(v)).sboxed());
                }
                (!outs.is_empty()).then(|| proptest::strategy::Union::new(outs).sboxed())
            }
        }
        Constraint::Length { min, max } => {
            let base = example_text(ctx);
            let chars = if ctx.keeps_format {
                URL_CHARS
            } else {
                TEXT_CHARS
            };
            let base_len = base.chars().count();
            let ctx = ctx.clone();
            if valid {
                let floor = if ctx.keeps_format {
                    base_len as u64
                } else {
                    (*min).max(1)
                };
                let hi = max.unwrap_or(floor + 100);
                if floor > hi {
                    return None;
                }
                // Shrinks toward the example itself, truncated to the shortest allowed length.
                Some(
                    (floor..=hi)
                        .prop_flat_map(move |n| {
                            let base = base.clone();
                            text_strategy(chars, n as usize..=n as usize)
                                .prop_map(move |pad| sized(&base, n as usize, pad.chars()))
                        })
                        .prop_filter("reserved name", move |s| allowed(&ctx, s))
                        .prop_map(|s| json!(s))
                        .sboxed(),
                )
            } else {
                let m = (*max)?;
                Some(
                    ((m + 1)..=(m + 64))
                        .prop_flat_map(move |n| {
                            let base = base.clone();
                            text_strategy(chars, n as usize..=n as usize)
                                .prop_map(move |pad| json!(sized(&base, n as usize, pad.chars())))
                        })
                        .sboxed(),
                )
            }
        }
        Constraint::Count {
            min,
            max,
            item,
            phone,
        } => {
            let (item, phone, ctx) = (item.clone(), phone.clone(), ctx.clone());
            if valid {
                let mut hi = max.unwrap_or(min + 10);
                if !ctx.pool.is_empty() {
                    // Drawn from a list: no more items than it holds.
                    hi = hi.min(ctx.pool.len() as _).max(*min);
                }
                Some(
                    (*min..=hi)
                        .prop_map(move |n| items(&item, &phone, n as usize, &ctx))
                        .sboxed(),
                )
            } else {
                let m = (*max)?;
                Some(
                    ((m + 1)..=(m + 5))
                        .prop_map(move |n| items(&item, &phone, n as usize, &ctx))
                        .sboxed(),
                )
            }
        }
        Constraint::Phone(phone) => {
            let phone = phone.clone();
            if valid {
                Some((0usize..300).prop_map(|i| json!(e164(i))).sboxed())
            } else {
                let digits =
                    || text_strategy(&['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'], 1..=1);
                let many =
                    |r: std::ops::RangeInclusive<usize>| text_strategy(&['0', '1', '5', '9'], r);
                Some(
                    prop_oneof![
                        many(5..=13).prop_map(|d| format!("+0{d}")),
                        (digits(), many(7..=13)).prop_map(|(a, d)| format!(
                            "{}{d}",
                            if a == "0" { "1" } else { a.as_str() }
                        )),
                        many(16..=19).prop_map(|d| format!("+1{d}")),
                        (
                            many(3..=8),
                            text_strategy(&['A', 'x', ' ', '-', '.'], 1..=2)
                        )
                            .prop_map(|(d, l)| format!("+1{d}{l}")),
                    ]
                    // READINGS 6.7: a target may trim surrounding whitespace before validating,
                    // so a must-reject value stays invalid once trimmed ("+1000 " is no input).
                    .prop_filter("must stay invalid after trimming", move |s| {
                        !phone.matches(s.trim())
                    })
                    .prop_map(|s| json!(s))
                    .sboxed(),
                )
            }
        }
        Constraint::Pattern(p) => {
            if valid {
                return None;
            }
            let re = Regex::new(p).ok()?;
            Some(
                text_strategy(&['a', 'b', 'q', 'z', '-', '.'], 1..=6)
                    .prop_filter("must violate the pattern, also trimmed", move |s| {
                        !re.is_match(s) && !re.is_match(s.trim())
                    })
                    .prop_map(|s| json!(s))
                    .sboxed(),
            )
        }
        Constraint::NotItem(_) => None,
        Constraint::Uri => {
            if valid {
                return None;
            }
            // Letters, digits, dots and slashes, never a colon: no scheme.
            Some(
                text_strategy(&['a', 'h', 'q', 'z', '7', '.', '/', '-'], 1..=12)
                    .prop_map(|s| json!(s))
                    .sboxed(),
            )
        }
        Constraint::NotBlank => {
            if valid {
                None
            } else {
                Some(
                    text_strategy(WHITESPACE, 1..=8)
                        .prop_map(|s| json!(s))
                        .sboxed(),
                )
            }
        }
    }
}

fn lo_plus(min: Option<i64>) -> i64 {
    min.unwrap_or(-1000) + 1000
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(example: &str) -> Context {
        Context {
            example: json!(example),
            keeps_format: false,
            avoid: vec![],
            pool: vec![],
            resources: false,
            excluded: None,
        }
    }

    #[test]
    fn length_boundaries_sit_on_and_beside_each_bound() {
        let b = boundaries(
            &Constraint::Length {
                min: 1,
                max: Some(75),
            },
            &ctx("r1234567-p"),
        );
        let lens: Vec<usize> = b
            .valid
            .iter()
            .map(|v| v.as_str().unwrap().chars().count())
            .collect();
        // The maximum twice: in ASCII, and in characters of more than one byte.
        assert_eq!(lens, vec![1, 2, 74, 75, 75]);
        let wide = b.valid[4].as_str().unwrap();
        assert!(wide.starts_with("r1234567-p") && wide.len() > 75, "{wide}");
        let bad: Vec<usize> = b
            .invalid
            .iter()
            .map(|v| v.as_str().unwrap().chars().count())
            .collect();
        assert_eq!(bad, vec![0, 76]);
        assert!(b.valid[3].as_str().unwrap().starts_with("r1234567-p"));
    }

    #[test]
    fn integer_boundaries() {
        let b = boundaries(
            &Constraint::Integer {
                min: Some(1),
                max: Some(50),
            },
            &ctx("10"),
        );
        assert_eq!(b.valid, vec![json!(1), json!(2), json!(49), json!(50)]);
        assert_eq!(b.invalid, vec![json!(0), json!(51), json!(1.5)]);
    }

    #[test]
    fn e164_sets_respect_the_pattern() {
        let phone = E164::embedded();
        let b = boundaries(&Constraint::Phone(phone.clone()), &ctx("+14155550100"));
        assert!(b.valid.iter().all(|v| phone.matches(v.as_str().unwrap())));
        // READINGS 6.7: invalid also once surrounding whitespace is trimmed.
        assert!(
            b.invalid
                .iter()
                .all(|v| !phone.matches(v.as_str().unwrap().trim()))
        );
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let s = strategy(&Constraint::Phone(phone.clone()), false, &ctx("+1")).unwrap();
        for _ in 0..2000 {
            let v = s.new_tree(&mut runner).unwrap().current();
            assert!(!phone.matches(v.as_str().unwrap().trim()), "{v}");
        }
    }

    #[test]
    fn resource_counts_start_with_the_example_and_stay_distinct() {
        let mut c = ctx("+14155550103");
        c.resources = true;
        let count = Constraint::Count {
            min: 1,
            max: Some(100),
            item: ItemKind::E164,
            phone: E164::embedded().clone(),
        };
        let b = boundaries(&count, &c);
        // The smallest valid input names only the profile's number.
        assert_eq!(b.valid[0], json!(["+14155550103"]));
        for v in b.valid.iter().chain(&b.invalid) {
            let items = v.as_array().unwrap();
            if items.is_empty() {
                continue; // below the minimum
            }
            assert_eq!(items.first(), Some(&json!("+14155550103")));
            let distinct: std::collections::BTreeSet<_> =
                items.iter().map(Value::to_string).collect();
            assert_eq!(distinct.len(), items.len(), "{v}");
        }
        assert_eq!(b.invalid[0].as_array().unwrap().len(), 101);
    }

    #[test]
    fn reserved_prefixes_are_avoided() {
        let c = Context {
            example: json!("workspace-x"),
            keeps_format: false,
            avoid: vec!["workspace".into()],
            pool: vec![],
            resources: false,
            excluded: None,
        };
        let b = boundaries(
            &Constraint::Length {
                min: 1,
                max: Some(20),
            },
            &c,
        );
        assert!(
            b.valid
                .iter()
                .all(|v| !v.as_str().unwrap().starts_with("workspace"))
        );
    }

    #[test]
    fn url_values_keep_the_example_prefix() {
        let c = Context {
            example: json!("https://crm.example.test/r1234567"),
            keeps_format: true,
            avoid: vec![],
            pool: vec![],
            resources: false,
            excluded: None,
        };
        let b = boundaries(
            &Constraint::Length {
                min: 1,
                max: Some(200),
            },
            &c,
        );
        assert!(
            b.valid
                .iter()
                .all(|v| v.as_str().unwrap().starts_with("https://crm.example.test/"))
        );
        assert_eq!(b.invalid.len(), 2);
    }
}
