//! A rule of the registry (`checks::rules`): what it sees of one exchange, what it applies to,
//! when its findings reach the trial, and how it judges.

use std::sync::Arc;

use crate::client::{Exchange, Outgoing};
use crate::results::Finding;
use conformance_contract::{Api, Contract, Route};

/// How the request deviated on purpose, which widens what an answer may be (READINGS 8.1).
#[derive(Debug, Clone, Copy, Default)]
pub struct Deviation {
    /// `Service-Api-Version` was left out or not `2026-03-30`.
    pub version: bool,
}

/// What a rule sees of one exchange: the request as the suite built it, the answer, the route
/// the request went to (if the route table has it), and how the request deviated on purpose.
pub struct Judging<'a> {
    pub contract: &'a Contract,
    pub route: Option<&'a Route>,
    pub out: &'a Outgoing,
    pub ex: &'a Exchange,
    pub deviation: Deviation,
}

/// When a rule's findings reach the trial.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// With the answer: the sender sees them and may stop there (a step after a failed one does
    /// not run).
    Now,
    /// When the trial ends: a rule about the data a list showed, which says nothing of the step
    /// that read it.
    AtTheEnd,
}

/// What a rule applies to; `None` in a field: every one.
#[derive(Debug, Clone, Default)]
pub struct AppliesTo {
    /// The operations (`operationId`s of the route table).
    pub operations: Option<Vec<String>>,
    pub generations: Option<Vec<Api>>,
    /// The statuses of the answers it judges (inclusive ranges).
    pub statuses: Option<Vec<(u16, u16)>>,
}

impl AppliesTo {
    /// Whether the rule applies to this exchange (an exchange without an answer has no status:
    /// only rules without a status range apply to it).
    pub fn covers(&self, j: &Judging<'_>) -> bool {
        if let Some(ops) = &self.operations {
            let op = j.route.and_then(|r| r.operation_id.as_deref());
            if !op.is_some_and(|op| ops.iter().any(|o| o == op)) {
                return false;
            }
        }
        if let Some(gens) = &self.generations {
            if !gens.contains(&Api::of_path(&j.ex.path)) {
                return false;
            }
        }
        if let Some(ranges) = &self.statuses {
            let Ok(resp) = &j.ex.outcome else {
                return false;
            };
            if !ranges
                .iter()
                .any(|(lo, hi)| (*lo..=*hi).contains(&resp.status))
            {
                return false;
            }
        }
        true
    }
}

type JudgeFn = dyn Fn(&Judging<'_>) -> Vec<Finding> + Send + Sync;
type HeldFn = dyn Fn(&Judging<'_>) -> Vec<String> + Send + Sync;

/// One rule of the registry.
#[derive(Clone)]
pub struct Rule {
    /// Its name, as reports and tests call it.
    pub name: &'static str,
    pub applies: AppliesTo,
    pub when: When,
    pub(crate) judge: Arc<JudgeFn>,
    /// The clauses it held an exchange to that it found nothing wrong with: the clause
    /// matrix credits them.
    pub(crate) held: Arc<HeldFn>,
}

impl Rule {
    /// A rule judged with the answer, holding the exchanges it applies to to `clauses`.
    pub fn new(
        name: &'static str,
        applies: AppliesTo,
        clauses: &[&str],
        judge: impl Fn(&Judging<'_>) -> Vec<Finding> + Send + Sync + 'static,
    ) -> Rule {
        let clauses: Vec<String> = clauses.iter().map(|c| c.to_string()).collect();
        Rule {
            name,
            applies,
            when: When::Now,
            judge: Arc::new(judge),
            held: Arc::new(move |_| clauses.clone()),
        }
    }

    /// The rule with the clauses it held an exchange to computed from the exchange.
    pub fn holding(
        mut self,
        held: impl Fn(&Judging<'_>) -> Vec<String> + Send + Sync + 'static,
    ) -> Rule {
        self.held = Arc::new(held);
        self
    }

    /// The rule, its findings joining the trial when it ends.
    pub fn at_the_end(mut self) -> Rule {
        self.when = When::AtTheEnd;
        self
    }
}
