//! The record of who catches each fault (`snapshots/fault-catches.txt`): for every fault of the
//! catalog, each failed check of each trial that fails with the fault on, as
//! `fault | trial | check | clause`. The self-test compares a run with the record and fails on
//! any difference; `UPDATE_SNAPSHOTS=1` rewrites it for review.

use std::collections::BTreeSet;
use std::path::PathBuf;

use conformance_reference::{CATALOG, FaultInfo};
use conformance_suite::results::Verdict;

use super::Results;

/// Where the record lives.
pub fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("snapshots/fault-catches.txt")
}

/// A line's last field when the catch is known to depend on timing (see the record's header).
pub const SOMETIMES: &str = "sometimes";

const SEP: &str = " | ";

/// One failed check under one fault.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Catch {
    pub fault: String,
    pub trial: String,
    pub check: String,
    pub clause: String,
}

impl Catch {
    /// Whether the catch depends on timing by its nature: the model judges a read of what
    /// another trial changed only when no change was in flight, and the random sequences and
    /// the relations meet what the other trials made. Such a catch is recorded `sometimes`.
    pub fn timing_dependent(&self) -> bool {
        self.check.starts_with("model:")
            || self.trial.starts_with("latest.sequences.")
            || self.trial.starts_with("latest.relations.")
    }

    pub fn line(&self) -> String {
        [&self.fault, &self.trial, &self.check, &self.clause]
            .map(|s| s.as_str())
            .join(SEP)
    }
}

/// The catches of one run with `fault` on: every clause of every finding of every failed trial.
pub fn of_run(fault: &FaultInfo, results: &Results) -> BTreeSet<Catch> {
    let mut out = BTreeSet::new();
    for (case, r) in results {
        let Verdict::Failed(failures) = &r.verdict else {
            continue;
        };
        for f in failures {
            for clause in &f.finding.clauses {
                let catch = Catch {
                    fault: fault.name.to_string(),
                    trial: case.name.clone(),
                    check: f.finding.check.clone(),
                    clause: clause.clone(),
                };
                for field in [&catch.trial, &catch.check, &catch.clause] {
                    assert!(
                        !field.contains(SEP) && !field.contains('\n') && !field.is_empty(),
                        "a catch field cannot be written to the record: {field:?} in {catch:?}"
                    );
                }
                out.insert(catch);
            }
        }
    }
    out
}

/// The record as written: each catch, and whether it is marked `sometimes`.
#[derive(Debug, Default)]
pub struct Record {
    pub always: BTreeSet<Catch>,
    pub sometimes: BTreeSet<Catch>,
}

impl Record {
    /// Reads the record; a missing file is an empty record.
    pub fn read() -> Result<Record, String> {
        let text = match std::fs::read_to_string(path()) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Record::default()),
            Err(e) => return Err(format!("cannot read {}: {e}", path().display())),
        };
        let mut record = Record::default();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() || line.starts_with('#') {
                continue;
            }
            let fields: Vec<&str> = line.split(SEP).collect();
            let (catch, sometimes) = match fields.as_slice() {
                [fault, trial, check, clause] => ((fault, trial, check, clause), false),
                [fault, trial, check, clause, mark] if *mark == SOMETIMES => {
                    ((fault, trial, check, clause), true)
                }
                _ => {
                    return Err(format!(
                        "{}:{}: not `fault | trial | check | clause` (with `| {SOMETIMES}` at most): {line}",
                        path().display(),
                        i + 1
                    ));
                }
            };
            let catch = Catch {
                fault: catch.0.to_string(),
                trial: catch.1.to_string(),
                check: catch.2.to_string(),
                clause: catch.3.to_string(),
            };
            if sometimes {
                record.sometimes.insert(catch);
            } else {
                record.always.insert(catch);
            }
        }
        Ok(record)
    }

    /// The record of `observed`, keeping the `sometimes` marks (and lines) of `self`: a catch
    /// that depends on timing stays recorded whether or not this run saw it.
    pub fn updated(&self, observed: &BTreeSet<Catch>) -> Record {
        Record {
            always: observed
                .difference(&self.sometimes)
                .filter(|c| !c.timing_dependent())
                .cloned()
                .collect(),
            sometimes: self
                .sometimes
                .iter()
                .chain(observed.iter().filter(|c| c.timing_dependent()))
                .cloned()
                .collect(),
        }
    }

    pub fn text(&self, trials: usize) -> String {
        let mut lines: Vec<String> = self
            .always
            .iter()
            .map(Catch::line)
            .chain(
                self.sometimes
                    .iter()
                    .map(|c| format!("{}{SEP}{SOMETIMES}", c.line())),
            )
            .collect();
        lines.sort();
        let boundary = CATALOG.iter().filter(|f| f.boundary).count();
        format!(
            "# Who catches each fault of the reference's catalog (crates/reference/src/faults.rs): one line per\n\
             # fault | trial | check | clause of a failed finding, when the self-test runs every trial\n\
             # against the reference with that fault on (and the variant its `needs` names).\n\
             # A line ending in `| {SOMETIMES}` depends on timing: the self-test accepts it seen or not.\n\
             # Rewrite after a change with `UPDATE_SNAPSHOTS=1 cargo test --test suite self_test`, and review\n\
             # the diff: every fault must stay caught by a trial citing its own clause.\n\
             # {trials} trials, {} faults ({boundary} boundary faults)\n\
             {}\n",
            CATALOG.len(),
            lines.join("\n")
        )
    }

    /// What differs between the record and `observed`, as `+`/`-` lines (empty: nothing).
    pub fn diff(&self, observed: &BTreeSet<Catch>) -> Vec<String> {
        let mut out: Vec<String> = observed
            .iter()
            // A catch that depends on timing by its nature may come in any run: one not
            // recorded yet is not a change of what the suite catches.
            .filter(|c| {
                !self.always.contains(c) && !self.sometimes.contains(c) && !c.timing_dependent()
            })
            .map(|c| format!("+ {}", c.line()))
            .chain(
                self.always
                    .iter()
                    .filter(|c| !observed.contains(c))
                    .map(|c| format!("- {}", c.line())),
            )
            .collect();
        out.sort_by(|a, b| a[2..].cmp(&b[2..]));
        out
    }
}
