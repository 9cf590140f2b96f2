//! The results of a run, in one place: execution writes them and the reports read them. A
//! trial's result (its verdict with the findings and exchanges behind it), each finding with its
//! clause and severity, the explanation of a failure, what the cleanup did, and which situations
//! the run put each operation in.

mod cleanup;
pub mod explain;
mod finding;
pub mod severity;
pub mod situations;

use std::sync::Arc;
use std::time::Duration;

use crate::client::Exchange;

pub use cleanup::Summary;
pub(crate) use finding::Failure;
pub use finding::{Finding, Rule};
pub(crate) use severity::Severity;

/// `1 defect`, `3 defects`, `1 delivery`, `2 deliveries`: a count with its noun, as every
/// output writes it.
pub fn plural(n: usize, word: &str) -> String {
    format!("{n} {}", noun(n, word))
}

/// `word` for `n` of it: `trial` for 1, `trials` for any other count (`delivery`,
/// `deliveries`).
pub fn noun(n: usize, word: &str) -> String {
    if n == 1 {
        return word.to_string();
    }
    match word.strip_suffix('y') {
        Some(stem) if !stem.ends_with(['a', 'e', 'i', 'o', 'u']) => format!("{stem}ies"),
        _ => format!("{word}s"),
    }
}

/// The outcome of one case.
#[derive(Debug, Clone)]
pub enum Verdict {
    Passed,
    /// Not run, with the reason (a fixture the profile lacks).
    Ignored(String),
    Failed(Vec<Failure>),
}

/// A verdict with everything the reports need.
#[derive(Debug, Clone)]
pub struct CaseResult {
    pub verdict: Verdict,
    pub exchanges: Vec<Arc<Exchange>>,
    pub duration: Duration,
    /// The clauses the generic checks held this trial's answers to, on the answers that gave
    /// no finding: the clause matrix credits them (a clause no case cites is still verified on
    /// every answer).
    pub held: Vec<String>,
}
