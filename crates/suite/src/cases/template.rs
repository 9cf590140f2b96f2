//! `{{name}}` templates: the run id, profile fixtures and values saved by earlier steps.
//!
//! A string that is exactly one template takes the variable's JSON value (an array stays an
//! array); a template inside a longer string is replaced by the value's text.

use std::collections::{BTreeSet, HashMap};
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

static TEMPLATE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}").expect("valid regex"));

/// Variables every case has: `run` is the run id, always 8 characters `[a-z0-9]`;
/// `webhook_url` the case's own URL at the suite's webhook receiver; `cell` a word and
/// `cell_instant` an instant of the trial's own, so that trials changing one shared resource
/// each change it (READINGS 6.12: a no-op change may be refused).
pub(crate) const BUILTINS: &[&str] = &["run", "webhook_url", "cell", "cell_instant"];

/// Variables visible to a case: builtins, fixtures, saved values.
#[derive(Debug, Clone, Default)]
pub struct Vars(HashMap<String, Value>);

/// Anything between `{{` and `}}`: a template, or text that only looks like one.
static BRACES: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{[^{}]*\}\}").expect("valid regex"));

/// A template named a variable that has no value.
#[derive(Debug, Clone, thiserror::Error)]
#[error("template variable `{0}` has no value")]
pub(crate) struct MissingVar(pub String);

/// Why a request could not be rendered: it is never sent.
#[derive(Debug, Clone, thiserror::Error)]
pub(crate) enum TemplateError {
    #[error(transparent)]
    Missing(#[from] MissingVar),
    /// The rendered request still holds `{{...}}`: a template that names no variable
    /// (`{{987654321}}`), or a value that carried one in.
    #[error("the rendered request still holds `{0}` in its {1}: not sent")]
    Unresolved(String, &'static str),
}

/// The first `{{...}}` in a template text that is not a template of a variable
/// (`{{987654321}}`, `{{ a b }}`): it would be sent as it stands.
pub(crate) fn unresolved_in_template(text: &str) -> Option<String> {
    let rest = TEMPLATE.replace_all(text, "");
    BRACES.find(&rest).map(|m| m.as_str().to_string())
}

/// The first `{{...}}` in a template value (strings and keys), as [`unresolved_in_template`].
pub(crate) fn unresolved_in_template_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => unresolved_in_template(s),
        Value::Array(items) => items.iter().find_map(unresolved_in_template_value),
        Value::Object(map) => map.iter().find_map(|(k, v)| {
            unresolved_in_template(k).or_else(|| unresolved_in_template_value(v))
        }),
        _ => None,
    }
}

/// The first `{{...}}` left in a rendered text.
pub(crate) fn unresolved_in(text: &str) -> Option<String> {
    BRACES.find(text).map(|m| m.as_str().to_string())
}

/// The first `{{...}}` left in a rendered value (strings and keys).
pub(crate) fn unresolved_in_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => unresolved_in(s),
        Value::Array(items) => items.iter().find_map(unresolved_in_value),
        Value::Object(map) => map
            .iter()
            .find_map(|(k, v)| unresolved_in(k).or_else(|| unresolved_in_value(v))),
        _ => None,
    }
}

impl Vars {
    pub fn set(&mut self, name: impl Into<String>, value: Value) {
        self.0.insert(name.into(), value);
    }

    /// Every variable with its value.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Value)> {
        self.0.iter()
    }

    pub fn get(&self, name: &str) -> Option<&Value> {
        self.0.get(name)
    }

    /// Renders a string: a whole-string template yields the variable's value.
    pub(crate) fn render_str(&self, text: &str) -> Result<Value, MissingVar> {
        if let Some(caps) = TEMPLATE.captures(text) {
            if caps
                .get(0)
                .is_some_and(|m| m.start() == 0 && m.end() == text.len())
            {
                let name = &caps[1];
                return self
                    .0
                    .get(name)
                    .cloned()
                    .ok_or_else(|| MissingVar(name.to_string()));
            }
        } else {
            return Ok(Value::String(text.to_string()));
        }
        let mut missing = None;
        let out = TEMPLATE.replace_all(text, |caps: &regex::Captures| match self.0.get(&caps[1]) {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => {
                missing.get_or_insert_with(|| caps[1].to_string());
                String::new()
            }
        });
        match missing {
            Some(name) => Err(MissingVar(name)),
            None => Ok(Value::String(out.into_owned())),
        }
    }

    /// Renders a string that must stay a string (paths, header values, query values).
    pub(crate) fn render_text(&self, text: &str) -> Result<String, MissingVar> {
        Ok(match self.render_str(text)? {
            Value::String(s) => s,
            other => other.to_string(),
        })
    }

    /// Renders every string inside a JSON value, keys included.
    pub(crate) fn render_value(&self, value: &Value) -> Result<Value, MissingVar> {
        Ok(match value {
            Value::String(s) => self.render_str(s)?,
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.render_value(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => {
                let mut out = serde_json::Map::new();
                for (k, v) in map {
                    out.insert(self.render_text(k)?, self.render_value(v)?);
                }
                Value::Object(out)
            }
            other => other.clone(),
        })
    }
}

/// Names of the variables a string refers to.
pub(crate) fn names_in_str(text: &str, out: &mut BTreeSet<String>) {
    for caps in TEMPLATE.captures_iter(text) {
        out.insert(caps[1].to_string());
    }
}

/// Names of the variables a JSON value refers to, keys included.
pub(crate) fn names_in_value(value: &Value, out: &mut BTreeSet<String>) {
    match value {
        Value::String(s) => names_in_str(s, out),
        Value::Array(items) => items.iter().for_each(|v| names_in_value(v, out)),
        Value::Object(map) => {
            for (k, v) in map {
                names_in_str(k, out);
                names_in_value(v, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars() -> Vars {
        let mut v = Vars::default();
        v.set("run", json!("r1234567"));
        v.set("ids", json!(["a", "b"]));
        v
    }

    #[test]
    fn whole_template_keeps_type() {
        assert_eq!(vars().render_str("{{ids}}").unwrap(), json!(["a", "b"]));
    }

    #[test]
    fn embedded_template_is_text() {
        assert_eq!(
            vars().render_str("x-{{run}}-y").unwrap(),
            json!("x-r1234567-y")
        );
    }

    #[test]
    fn missing_variable_is_named() {
        assert_eq!(vars().render_str("{{nope}}/x").unwrap_err().0, "nope");
    }

    #[test]
    fn text_that_only_looks_like_a_template_is_found() {
        assert_eq!(
            unresolved_in_template("/webhooks/{{987654321987654321}}/{{run}}"),
            Some("{{987654321987654321}}".to_string())
        );
        assert_eq!(unresolved_in_template("/x/{{ run }}-{{id}}"), None);
        assert_eq!(
            unresolved_in_template_value(&json!({"a": ["{{not a name}}"]})),
            Some("{{not a name}}".to_string())
        );
        assert_eq!(unresolved_in("/x/r1234567"), None);
        assert_eq!(unresolved_in("/x/{{id}}"), Some("{{id}}".to_string()));
    }

    #[test]
    fn collects_names() {
        let mut names = BTreeSet::new();
        names_in_value(&json!({"a": "{{x}}", "{{y}}": ["{{z}}-1"]}), &mut names);
        assert_eq!(names.into_iter().collect::<Vec<_>>(), vec!["x", "y", "z"]);
    }
}
