//! The table the `discover` command prints.

use serde_json::Value;

use super::fixture::meaning;
use super::outcome::{Discovery, Outcome};
use crate::client::Redactor;
use conformance_contract::profile::{KNOWN_FIXTURES, is_secret_name};

impl Discovery {
    /// The table the `discover` command prints: each fixture, its value or "not found", how it
    /// was found, and for each missing one what it must hold and why. Secrets are never shown.
    pub fn table(&self, redactor: &Redactor) -> String {
        let width = KNOWN_FIXTURES
            .iter()
            .map(|(n, _)| n.len())
            .max()
            .unwrap_or(0);
        let file = self.file();
        let mut out = String::new();
        let mut missing = String::new();
        for (name, _) in KNOWN_FIXTURES {
            let Some(e) = self.entries.get(*name) else {
                continue;
            };
            match &e.outcome {
                Outcome::Given => {
                    let v = self
                        .base
                        .fixtures
                        .get(*name)
                        .cloned()
                        .unwrap_or(Value::Null);
                    out.push_str(&format!(
                        "{name:width$}  {}  (from {file}; kept)\n",
                        shown(name, &v)
                    ));
                }
                Outcome::Found { value, how } => {
                    out.push_str(&format!(
                        "{name:width$}  {}  found by {how}\n",
                        shown(name, value)
                    ));
                }
                Outcome::NotFound { why } | Outcome::Undiscoverable { why } => {
                    let kind = if matches!(e.outcome, Outcome::NotFound { .. }) {
                        "not found"
                    } else {
                        "not found (cannot be discovered)"
                    };
                    out.push_str(&format!("{name:width$}  {kind}\n"));
                    missing.push_str(&format!(
                        "  {name}: must hold {}\n    why: {why}\n",
                        meaning(name)
                    ));
                    if let Some(g) = &e.guess {
                        missing.push_str(&format!("    guess (not written): {g}\n"));
                    }
                }
            }
        }
        let (given, found, not_found, cannot) = self.counts();
        out.push_str(&format!(
            "\n{found} found, {given} kept from {file}, {} missing ({not_found} not found on this target, {cannot} no request can show); {} requests in {:.1} s\n",
            not_found + cannot,
            self.requests,
            self.elapsed.as_secs_f64()
        ));
        if !missing.is_empty() {
            out.push_str("\nmissing fixtures (give them by hand in the profile):\n");
            out.push_str(&missing);
        }
        redactor.redact(&out)
    }
}

/// A fixture's value as the table shows it; a secret never.
fn shown(name: &str, v: &Value) -> String {
    if is_secret_name(name) {
        return "<secret>".into();
    }
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
