//! Constraints of the route table that boundary properties probe: integer ranges, string lengths,
//! array sizes, patterns, and `x-not-blank` text. One property per constrained place.

use serde_json::Value;

use conformance_contract::E164;

/// What a generated array item is made of.
#[derive(Debug, Clone)]
pub enum ItemKind {
    /// Distinct realistic E.164 numbers (the items refer to the `E164` schema).
    E164,
    /// Distinct values cycled from the item schema's `enum`.
    Enum(Vec<Value>),
    /// Distinct strings tagged with the run id.
    Text,
    /// Copies of the example's first item.
    Example(Value),
}

/// One constraint on one place of a request.
#[derive(Debug, Clone)]
pub enum Constraint {
    /// `minimum` / `maximum` of an integer.
    Integer { min: Option<i64>, max: Option<i64> },
    /// `minLength` / `maxLength` of a string, in characters.
    Length { min: u64, max: Option<u64> },
    /// `minItems` / `maxItems` of an array. `phone` tells an example item that is a phone
    /// number, which the generated items then are too.
    Count {
        min: u64,
        max: Option<u64>,
        item: ItemKind,
        phone: E164,
    },
    /// `pattern` of a string.
    Pattern(String),
    /// The pattern of a string that refers to the `E164` schema: values are generated
    /// realistically.
    Phone(E164),
    /// `x-not-blank`: text of only whitespace is rejected.
    NotBlank,
    /// `format: uri` of a request field: text that is no URI (no scheme) is rejected.
    Uri,
    /// `x-not-item`: an array holding the value the template names (a profile fixture, the
    /// workspace's own number among participants) is rejected.
    NotItem(String),
}

impl Constraint {
    /// A short name for trial names: `length`, `range`, `count`, `pattern`, `not-blank`.
    pub fn kind(&self) -> &'static str {
        match self {
            Constraint::Integer { .. } => "range",
            Constraint::Length { .. } => "length",
            Constraint::Count { .. } => "count",
            Constraint::Pattern(_) | Constraint::Phone(_) => "pattern",
            Constraint::NotBlank => "not-blank",
            Constraint::Uri => "uri",
            Constraint::NotItem(_) => "excluded-item",
        }
    }

    /// The rule in words, for failure messages.
    pub fn describe(&self) -> String {
        let range = |min: String, max: Option<String>| match max {
            Some(max) => format!("{min}-{max}"),
            None => format!("at least {min}"),
        };
        match self {
            Constraint::Integer { min, max } => format!(
                "an integer {}",
                range(
                    min.map_or("any".into(), |m| m.to_string()),
                    max.map(|m| m.to_string())
                )
            ),
            Constraint::Length { min, max } => {
                format!(
                    "{} characters",
                    range(min.to_string(), max.map(|m| m.to_string()))
                )
            }
            Constraint::Count { min, max, .. } => {
                format!(
                    "{} items",
                    range(min.to_string(), max.map(|m| m.to_string()))
                )
            }
            Constraint::Pattern(p) => format!("a string matching {p}"),
            Constraint::Phone(e) => format!("a string matching {}", e.pattern()),
            Constraint::NotBlank => "text that is not only whitespace".into(),
            Constraint::Uri => "a URI (a scheme, then its part)".into(),
            Constraint::NotItem(t) => format!("items other than {t}"),
        }
    }
}

/// The constraints a schema states for one value; `phone` is the contract's E.164 format.
pub(crate) fn of_schema(schema: &Value, example: Option<&Value>, phone: &E164) -> Vec<Constraint> {
    let mut out = Vec::new();
    let int = |k: &str| schema.get(k).and_then(Value::as_i64);
    let uint = |k: &str| schema.get(k).and_then(Value::as_u64);
    let ty = schema.get("type").and_then(Value::as_str);
    if ty == Some("integer") && (int("minimum").is_some() || int("maximum").is_some()) {
        out.push(Constraint::Integer {
            min: int("minimum"),
            max: int("maximum"),
        });
    }
    if uint("minLength").is_some() || uint("maxLength").is_some() {
        out.push(Constraint::Length {
            min: uint("minLength").unwrap_or(0),
            max: uint("maxLength"),
        });
    }
    if E164::is_schema(schema) {
        out.push(Constraint::Phone(phone.clone()));
    } else if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
        out.push(Constraint::Pattern(p.to_string()));
    }
    if schema.get("x-not-blank").and_then(Value::as_bool) == Some(true) {
        out.push(Constraint::NotBlank);
    }
    if ty == Some("string") && schema.get("format").and_then(Value::as_str) == Some("uri") {
        out.push(Constraint::Uri);
    }
    if let Some(t) = schema.get("x-not-item").and_then(Value::as_str) {
        out.push(Constraint::NotItem(t.to_string()));
    }
    if uint("minItems").is_some() || uint("maxItems").is_some() {
        let items = schema.get("items").cloned().unwrap_or(Value::Null);
        let example_is_e164 = example
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            .is_some_and(|s| phone.matches(s));
        let item = if E164::is_schema(&items) || example_is_e164 {
            ItemKind::E164
        } else if let Some(values) = items.get("enum").and_then(Value::as_array) {
            ItemKind::Enum(values.clone())
        } else if let Some(first) = example.and_then(|e| e.as_array()).and_then(|a| a.first()) {
            ItemKind::Example(first.clone())
        } else {
            ItemKind::Text
        };
        out.push(Constraint::Count {
            min: uint("minItems").unwrap_or(0),
            max: uint("maxItems"),
            item,
            phone: phone.clone(),
        });
    }
    out
}

/// Every constrained place of a request body schema that the example body fills: (JSON Pointer,
/// constraint, the schema of that place). Array items are reached through index 0.
pub(crate) fn of_body(
    schema: &Value,
    example: &Value,
    phone: &E164,
) -> Vec<(String, Constraint, Value)> {
    let mut out = Vec::new();
    walk(schema, example, String::new(), phone, &mut out);
    out
}

fn walk(
    schema: &Value,
    example: &Value,
    pointer: String,
    phone: &E164,
    out: &mut Vec<(String, Constraint, Value)>,
) {
    if !pointer.is_empty() {
        for c in of_schema(schema, Some(example), phone) {
            out.push((pointer.clone(), c, schema.clone()));
        }
    }
    if let (Some(props), Some(fields)) = (
        schema.get("properties").and_then(Value::as_object),
        example.as_object(),
    ) {
        for (name, sub) in props {
            if let Some(v) = fields.get(name) {
                walk(
                    sub,
                    v,
                    format!("{pointer}/{}", name.replace('~', "~0").replace('/', "~1")),
                    phone,
                    out,
                );
            }
        }
    }
    if let (Some(items), Some(first)) = (
        schema.get("items"),
        example.as_array().and_then(|a| a.first()),
    ) {
        walk(items, first, format!("{pointer}/0"), phone, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_constraints_the_example_fills() {
        let phone = conformance_contract::Contract::embedded().unwrap().e164;
        let schema = json!({"type": "object", "properties": {
            "externalId": {"type": "string", "minLength": 1, "maxLength": 75},
            "source": {"type": "string", "minLength": 1, "maxLength": 72},
            "defaultFields": {"type": "object", "properties": {"phoneNumbers": {"type": "array", "items": {
                "type": "object", "properties": {"value": {"type": "string", "pattern": "^x$"}}}}}}
        }});
        let example = json!({"externalId": "x", "defaultFields": {"phoneNumbers": [{"value": "+14155550100"}]}});
        let found: Vec<String> = of_body(&schema, &example, &phone)
            .iter()
            .map(|(p, c, _)| format!("{p} {}", c.kind()))
            .collect();
        assert_eq!(
            found,
            vec![
                "/externalId length",
                "/defaultFields/phoneNumbers/0/value pattern"
            ]
        );
    }

    /// A place is a phone number where its schema refers to the `E164` component: the route
    /// table's phone number places are found by their `$ref`, an equal pattern written out is not.
    #[test]
    fn phone_numbers_are_known_by_their_ref() {
        let contract = conformance_contract::Contract::embedded().unwrap();
        let mut phones = Vec::new();
        for route in &contract.routes {
            for p in &route.params {
                let item = p.schema.get("items");
                let count = of_schema(&p.schema, None, &contract.e164)
                    .into_iter()
                    .chain(
                        item.map(|i| of_schema(i, None, &contract.e164))
                            .unwrap_or_default(),
                    );
                for c in count {
                    match c {
                        Constraint::Phone(_) => {
                            phones.push(format!("{} {}", route.template, p.name))
                        }
                        Constraint::Count {
                            item: ItemKind::E164,
                            ..
                        } => phones.push(format!("{} {} items", route.template, p.name)),
                        _ => {}
                    }
                }
            }
        }
        phones.sort();
        phones.dedup();
        assert_eq!(
            phones,
            vec![
                "/messages from",
                "/messages to",
                "/phone-numbers phoneNumber",
                "/v1/calls participants",
                "/v1/calls participants items",
                "/v1/messages participants",
                "/v1/messages participants items",
            ]
        );
        let written_out = json!({"type": "string", "pattern": contract.e164.pattern()});
        assert!(matches!(
            of_schema(&written_out, None, &contract.e164)[..],
            [Constraint::Pattern(_)]
        ));
    }
}
