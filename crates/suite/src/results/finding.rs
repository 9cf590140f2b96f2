//! A finding: one failed check, with the clause it proves broken; and a failure, the finding with
//! the step and exchange it came from.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

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
    /// What the check knows of the rule the finding breaks, in fields (not in the text): the
    /// report groups findings into defects on them.
    pub rule: Rule,
}

/// The rule a finding breaks, as the check that found it states it: the fields a defect is
/// grouped on, none of which holds a value of the run (an id, a time, a body, a matcher).
#[derive(Debug, Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// Where the failing keyword is in the contract's schemas, `$ref`s resolved
    /// (`/components/schemas/CallBase/properties/id/pattern`): the resource's schema and the
    /// place in it, whichever envelope, list or generation held the value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    /// The property of the deliveries that failed a delivery check: `count`, `signature`,
    /// `payload` or `retry id`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delivery: Option<String>,
    /// The status class the check expected (`2xx`, `4xx`), for a check of a status; what came
    /// instead is not part of the rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
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
            rule: Rule::default(),
        }
    }

    /// The finding of a schema keyword (`SchemaViolation::keyword`).
    pub fn keyword(mut self, keyword: &str) -> Finding {
        if !keyword.is_empty() {
            self.rule.keyword = Some(keyword.to_string());
        }
        self
    }

    /// The finding of a delivery check, naming the property of the deliveries that failed.
    pub fn delivery(mut self, property: &str) -> Finding {
        self.rule.delivery = Some(property.to_string());
        self
    }

    /// The finding of a status check, naming the class of status expected (`2xx`, `4xx`; a
    /// mixed expectation keeps its words).
    pub fn status_class(mut self, class: impl Into<String>) -> Finding {
        self.rule.status = Some(class.into());
        self
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
    /// For a finding on no answer of its own (a delivery that did not come, or did not
    /// verify): the last request the trial sent before it, which caused the deliveries.
    pub cause: Option<Arc<Exchange>>,
}
