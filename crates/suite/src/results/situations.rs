//! Situation coverage: for each operation of the operation table, the situations a run put it in
//! and the classes of values it sent, and why a situation the table yields was not exercised.
//! Written by execution (the exploration, the limit cases), read by the reports.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use crate::cases::situations::{self, Situation};
use conformance_contract::Contract;

/// What the trials of a run recorded, shared by them.
#[derive(Default)]
pub struct SituationRecord(Mutex<Recorded>);

#[derive(Default)]
struct Recorded {
    /// (operation, situation) -> the trials that exercised it.
    done: BTreeMap<(String, Situation), BTreeSet<String>>,
    /// operation -> the value classes its requests carried.
    classes: BTreeMap<String, BTreeSet<String>>,
    /// (operation, situation) -> why it was not exercised, as the trial that carries it says.
    skipped: BTreeMap<(String, Situation), String>,
}

impl SituationRecord {
    fn lock(&self) -> std::sync::MutexGuard<'_, Recorded> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `trial` put `operation` in `situation`.
    pub fn done(&self, operation: &str, situation: Situation, trial: &str) {
        let mut r = self.lock();
        r.skipped.remove(&(operation.to_string(), situation));
        r.done
            .entry((operation.to_string(), situation))
            .or_default()
            .insert(trial.to_string());
    }

    /// A request of `operation` carried a value of `class`.
    pub fn class(&self, operation: &str, class: &str) {
        self.lock()
            .classes
            .entry(operation.to_string())
            .or_default()
            .insert(class.to_string());
    }

    /// The trial that carries (`operation`, `situation`) could not exercise it, for `why`.
    pub fn skipped(&self, operation: &str, situation: Situation, why: &str) {
        let mut r = self.lock();
        let key = (operation.to_string(), situation);
        if !r.done.contains_key(&key) {
            r.skipped.entry(key).or_insert_with(|| why.to_string());
        }
    }

    /// The coverage of the pairs the table yields. `carrier` says which trial carries a pair and,
    /// where it did not run, why (not selected, ignored and its reason).
    pub fn summary(
        &self,
        contract: &Contract,
        carrier: &dyn Fn(&str, Situation) -> Option<String>,
    ) -> SituationCoverage {
        let r = self.lock();
        let mut operations = Vec::new();
        let (mut pairs, mut exercised) = (0, 0);
        for route in &contract.routes {
            let Some(op) = route.operation_id.clone() else {
                continue;
            };
            let applicable = situations::applicable(contract, route);
            let route = Some(route);
            let mut rows = Vec::new();
            for s in applicable {
                pairs += 1;
                let key = (op.clone(), s);
                let trials: Vec<String> = r
                    .done
                    .get(&key)
                    .map(|t| t.iter().cloned().collect())
                    .unwrap_or_default();
                let reason = if trials.is_empty() {
                    Some(
                        r.skipped
                            .get(&key)
                            .cloned()
                            .or_else(|| carrier(&op, s))
                            .unwrap_or_else(|| "no trial of this run put it there".into()),
                    )
                } else {
                    exercised += 1;
                    None
                };
                rows.push(SituationRow {
                    situation: s.name().to_string(),
                    exercised: reason.is_none(),
                    trials,
                    reason,
                });
            }
            let none = applicable_none(contract, route, &rows);
            operations.push(OperationCoverage {
                reason: none,
                operation: op.clone(),
                method: route.map(|r| r.method.clone()).unwrap_or_default(),
                path: route.map(|r| r.template.clone()).unwrap_or_default(),
                situations: rows,
                classes: r
                    .classes
                    .get(&op)
                    .map(|c| c.iter().cloned().collect())
                    .unwrap_or_default(),
            });
        }
        SituationCoverage {
            pairs,
            exercised,
            operations,
        }
    }
}

/// The situation coverage of a run, as the reports show it.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct SituationCoverage {
    /// Pairs of operation and situation the operation table yields.
    pub pairs: usize,
    /// Of them, those the run exercised.
    pub exercised: usize,
    pub operations: Vec<OperationCoverage>,
}

impl SituationCoverage {
    /// The share exercised, in percent (rounded down).
    pub fn percent(&self) -> usize {
        (self.exercised * 100)
            .checked_div(self.pairs)
            .unwrap_or(100)
    }

    /// The coverage of the parts of one partitioned run: a pair is exercised where any part
    /// exercised it; a reason stays only where none did.
    pub fn merged<'a>(
        parts: impl IntoIterator<Item = &'a SituationCoverage>,
    ) -> Option<SituationCoverage> {
        let mut parts = parts.into_iter();
        let mut out = parts.next()?.clone();
        for part in parts {
            for op in &part.operations {
                let Some(mine) = out
                    .operations
                    .iter_mut()
                    .find(|o| o.operation == op.operation)
                else {
                    out.operations.push(op.clone());
                    continue;
                };
                for c in &op.classes {
                    if !mine.classes.contains(c) {
                        mine.classes.push(c.clone());
                    }
                }
                mine.classes.sort();
                for row in &op.situations {
                    match mine
                        .situations
                        .iter_mut()
                        .find(|r| r.situation == row.situation)
                    {
                        Some(r) if row.exercised => {
                            r.exercised = true;
                            r.reason = None;
                            r.trials.extend(row.trials.iter().cloned());
                            r.trials.sort();
                            r.trials.dedup();
                        }
                        Some(_) => {}
                        None => mine.situations.push(row.clone()),
                    }
                }
            }
        }
        out.pairs = out.operations.iter().map(|o| o.situations.len()).sum();
        out.exercised = out
            .operations
            .iter()
            .flat_map(|o| &o.situations)
            .filter(|r| r.exercised)
            .count();
        Some(out)
    }
}

/// Why the operation table yields no situation for an operation, where it yields none.
fn applicable_none(
    contract: &Contract,
    route: Option<&conformance_contract::Route>,
    rows: &[SituationRow],
) -> Option<String> {
    let route = route.filter(|_| rows.is_empty())?;
    Some(situations::none_because(contract, route))
}

/// One operation's situations and value classes.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct OperationCoverage {
    /// Where the table yields no situation for the operation: why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub operation: String,
    pub method: String,
    pub path: String,
    pub situations: Vec<SituationRow>,
    /// The classes of values its requests carried.
    pub classes: Vec<String>,
}

/// One situation of an operation: exercised (by which trials), or why not.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct SituationRow {
    pub situation: String,
    pub exercised: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub trials: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}
