//! A finding: one failed check, with the clause it proves broken; and a failure, the finding with
//! the step and exchange it came from.

use std::sync::Arc;

use crate::client::Exchange;

/// One failed check: the clause(s) it proves broken, what was expected, what came back.
#[derive(Debug, Clone)]
pub struct Finding {
    /// Clause ids the failed check cites.
    pub clauses: Vec<String>,
    /// Short name of the check (`status`, `json /data/source`, `data envelope`).
    pub check: String,
    pub expected: String,
    pub actual: String,
    /// JSON Pointer where the body differs, if the check looked at one place.
    pub pointer: Option<String>,
    /// Where the finding was made, when that is not the trial's own step: a random sequence's
    /// shrunk steps with their curls and replay. It is not part of the defect the finding shows.
    pub context: Option<String>,
}

impl Finding {
    pub fn new(
        clause: &str,
        check: impl Into<String>,
        expected: impl Into<String>,
        actual: impl Into<String>,
    ) -> Finding {
        Finding {
            clauses: vec![clause.to_string()],
            check: check.into(),
            expected: shown(expected.into()),
            actual: shown(actual.into()),
            pointer: None,
            context: None,
        }
    }

    pub fn at(mut self, pointer: impl Into<String>) -> Finding {
        let p = pointer.into();
        self.pointer = Some(if p.is_empty() { "/".to_string() } else { p });
        self
    }

    pub(crate) fn with_clauses(mut self, clauses: &[String]) -> Finding {
        self.clauses = clauses.to_vec();
        self
    }

    /// The finding citing its own clauses, an empty one (a check that cannot know better, such
    /// as a case's expectation) standing for `fallback`: the step's clauses, else the case's.
    pub fn citing(mut self, fallback: &[String]) -> Finding {
        let mut out: Vec<String> = Vec::new();
        for c in std::mem::take(&mut self.clauses) {
            if c.is_empty() {
                out.extend(fallback.iter().cloned());
            } else {
                out.push(c);
            }
        }
        if out.is_empty() {
            out = fallback.to_vec();
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|c| seen.insert(c.clone()));
        self.clauses = out;
        self
    }
}

/// Characters of an expected or actual text a finding keeps: whatever a check puts there (a
/// value of the target, a schema message quoting it) is redacted, then cut to this.
pub(crate) const FINDING_CHARS: usize = 1000;

fn shown(text: String) -> String {
    if text.len() <= 64 && !text.contains(['\\', '%', '&']) {
        // Short text: redaction alone (nothing to cut).
        return crate::redact::Redactor::global().redact(&text);
    }
    crate::redact::excerpt(&text, FINDING_CHARS)
}

/// A finding with the step and exchange it came from.
#[derive(Debug, Clone)]
pub struct Failure {
    pub finding: Finding,
    /// 1-based step number.
    pub step: usize,
    pub steps: usize,
    pub exchange: Option<Arc<Exchange>>,
}
