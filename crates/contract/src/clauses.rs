//! The clause catalog: every heading and rule of the spec that a case may cite.

use serde::Deserialize;

use crate::yaml;

/// One clause of the spec.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Clause {
    pub id: String,
    pub text: String,
}

/// The catalog, in spec order.
#[derive(Debug, Clone, Default)]
pub struct Clauses(Vec<Clause>);

impl Clauses {
    /// Parses `schemas/clauses.yaml`; an error carries the line.
    pub fn parse(source: &str) -> Result<Clauses, (usize, String)> {
        let (value, lines) = yaml::parse(source).map_err(|e| (e.line, e.message))?;
        let list: Vec<Clause> = serde_path_to_error::deserialize(&value).map_err(|e| {
            let pointer = crate::yaml::path_to_pointer(e.path());
            (lines.line_of(&pointer), e.inner().to_string())
        })?;
        let mut seen = std::collections::HashSet::new();
        for (i, c) in list.iter().enumerate() {
            if !seen.insert(c.id.as_str()) {
                return Err((
                    lines.line_of(&format!("/{i}")),
                    format!("duplicate clause `{}`", c.id),
                ));
            }
        }
        Ok(Clauses(list))
    }

    pub fn contains(&self, id: &str) -> bool {
        self.0.iter().any(|c| c.id == id)
    }

    pub fn iter(&self) -> impl Iterator<Item = &Clause> {
        self.0.iter()
    }
}
