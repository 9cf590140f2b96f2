//! READINGS 6.9: every must-reject step of a case proves it was refused for its own reason. This
//! sorts each such step by how it proves it; `cargo test` fails on a step that has no way.

use super::loader::must_reject;
use super::model::{Case, Step};
use conformance_contract::Contract;

/// How a must-reject step shows that its refusal was for the defect it tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// A control step sends the same request without the defect, and it must be accepted.
    Control,
    /// The answer must carry the code or title the contract names for that condition.
    NamedCode,
    /// A `repeat` sends the same request until it is refused: the same request was accepted
    /// before the limit was reached.
    Limit,
    /// The refusal is for the state of a resource (a terminal message), which an earlier step
    /// of the case reads and asserts; the request itself has nothing to leave out.
    State,
}

impl Reason {
    pub fn describe(self) -> &'static str {
        match self {
            Reason::Control => "a control: the same request without the defect is accepted",
            Reason::NamedCode => "the answer carries the code or title a rule names",
            Reason::Limit => "a limit: the same request was accepted until the limit",
            Reason::State => "a state: an earlier step reads and asserts the state refused",
        }
    }
}

/// Each must-reject step of `case` (0-based index) with how it proves its reason, `None` when
/// it does not. Property trials are not listed: each sends its must-reject inputs in the same
/// request as must-accept ones (`execute::properties`).
pub fn must_reject_steps(case: &Case, contract: &Contract) -> Vec<(usize, Option<Reason>)> {
    let mut out = Vec::new();
    for (i, step) in case.steps.iter().enumerate() {
        let Some(request) = &step.request else {
            continue;
        };
        if step.control_of.is_some() || !step.expect.status.as_ref().is_some_and(must_reject) {
            continue;
        }
        let controlled = case.steps[i + 1..]
            .iter()
            .any(|s| s.control_of.as_ref().is_some_and(|c| c.step == i));
        let named = step.expect.error.as_ref().is_some_and(|e| {
            contract
                .codes
                .names_a_condition(e.code.as_deref(), e.title.as_deref())
        });
        let limit = step.repeat.as_ref().is_some_and(|r| must_reject(&r.until));
        let state = case.steps[..i]
            .iter()
            .any(|s| reads_state_of(s, &request.path));
        let reason = if controlled {
            Some(Reason::Control)
        } else if named {
            Some(Reason::NamedCode)
        } else if limit {
            Some(Reason::Limit)
        } else if state {
            Some(Reason::State)
        } else {
            None
        };
        out.push((i, reason));
    }
    out
}

/// Whether `step` reads the resource at a prefix of `path` and asserts something of its body.
fn reads_state_of(step: &Step, path: &str) -> bool {
    step.request.as_ref().is_some_and(|r| {
        r.method == "GET"
            && !step.expect.json.is_empty()
            && path.starts_with(&format!("{}/", r.path))
    })
}
