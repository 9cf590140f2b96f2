//! Constraints of the route table that boundary properties probe: integer ranges, string lengths,
//! array sizes, patterns, and `x-not-blank` text. One property per constrained place.

use serde_json::Value;

/// The E.164 pattern of the spec (Conventions); values matching it are generated realistically.
pub const E164: &str = r"^\+[1-9]\d{1,14}$";

/// What a generated array item is made of.
#[derive(Debug, Clone)]
pub enum ItemKind {
    /// Distinct realistic E.164 numbers.
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
    /// `minItems` / `maxItems` of an array.
    Count {
        min: u64,
        max: Option<u64>,
        item: ItemKind,
    },
    /// `pattern` of a string.
    Pattern(String),
    /// `x-not-blank`: text of only whitespace is rejected.
    NotBlank,
}

impl Constraint {
    /// A short name for trial names: `length`, `range`, `count`, `pattern`, `not-blank`.
    pub fn kind(&self) -> &'static str {
        match self {
            Constraint::Integer { .. } => "range",
            Constraint::Length { .. } => "length",
            Constraint::Count { .. } => "count",
            Constraint::Pattern(_) => "pattern",
            Constraint::NotBlank => "not-blank",
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
            Constraint::NotBlank => "text that is not only whitespace".into(),
        }
    }
}

/// The constraints a schema states for one value.
pub fn of_schema(schema: &Value, example: Option<&Value>) -> Vec<Constraint> {
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
    if let Some(p) = schema.get("pattern").and_then(Value::as_str) {
        out.push(Constraint::Pattern(p.to_string()));
    }
    if schema.get("x-not-blank").and_then(Value::as_bool) == Some(true) {
        out.push(Constraint::NotBlank);
    }
    if uint("minItems").is_some() || uint("maxItems").is_some() {
        let items = schema.get("items").cloned().unwrap_or(Value::Null);
        let example_is_e164 = example
            .and_then(Value::as_array)
            .and_then(|a| a.first())
            .and_then(Value::as_str)
            .is_some_and(|s| regex::Regex::new(E164).is_ok_and(|re| re.is_match(s)));
        let item = if items.get("pattern").and_then(Value::as_str) == Some(E164) || example_is_e164
        {
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
        });
    }
    out
}

/// Every constrained place of a request body schema that the example body fills: (JSON Pointer,
/// constraint, the schema of that place). Array items are reached through index 0.
pub fn of_body(schema: &Value, example: &Value) -> Vec<(String, Constraint, Value)> {
    let mut out = Vec::new();
    walk(schema, example, String::new(), &mut out);
    out
}

fn walk(
    schema: &Value,
    example: &Value,
    pointer: String,
    out: &mut Vec<(String, Constraint, Value)>,
) {
    if !pointer.is_empty() {
        for c in of_schema(schema, Some(example)) {
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
                    out,
                );
            }
        }
    }
    if let (Some(items), Some(first)) = (
        schema.get("items"),
        example.as_array().and_then(|a| a.first()),
    ) {
        walk(items, first, format!("{pointer}/0"), out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_constraints_the_example_fills() {
        let schema = json!({"type": "object", "properties": {
            "externalId": {"type": "string", "minLength": 1, "maxLength": 75},
            "source": {"type": "string", "minLength": 1, "maxLength": 72},
            "defaultFields": {"type": "object", "properties": {"phoneNumbers": {"type": "array", "items": {
                "type": "object", "properties": {"value": {"type": "string", "pattern": E164}}}}}}
        }});
        let example = json!({"externalId": "x", "defaultFields": {"phoneNumbers": [{"value": "+14155550100"}]}});
        let found: Vec<String> = of_body(&schema, &example)
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
}
