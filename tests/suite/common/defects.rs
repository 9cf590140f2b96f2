//! The record of the defects each fault's run reports (`snapshots/fault-defects.txt`), beside
//! the record of who catches it: per fault, the defects of its run worst first, as the reports
//! group them. The self-test requires every fault to give a defect citing its own clause, at
//! least 88% of the faults to give exactly one defect and none more than three, the first defect
//! to cite the fault's own clause for at least 95% of them, and the README to state the figures.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use conformance_contract::Contract;
use conformance_reference::{CATALOG, FaultInfo};
use conformance_suite::client::Redactor;
use conformance_suite::report::{Report, RunInfo};

use super::Results;

/// Where the record lives.
pub fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("snapshots/fault-defects.txt")
}

/// The share of faults whose first defect must cite the fault's own clause.
pub const FIRST_AT_LEAST: f64 = 0.95;

/// The share of faults that must give exactly one defect (issue 37: one fault, one defect).
pub const ONE_AT_LEAST: f64 = 0.88;

/// The most defects one fault's run may give.
pub const AT_MOST: usize = 3;

/// What one fault's run reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaultDefects {
    pub fault: String,
    pub clause: String,
    /// Each defect: severity, clauses, check, shapes and trial count, as one line.
    pub lines: Vec<String>,
    /// Whether each defect cites the fault's clause, in the same order.
    pub own: Vec<bool>,
}

impl FaultDefects {
    /// The rank (1-based) of the first defect citing the fault's clause.
    pub fn own_rank(&self) -> Option<usize> {
        self.own.iter().position(|o| *o).map(|i| i + 1)
    }

    /// Whether the first defect leads with the fault's own clause: its title and first clause
    /// are the clause the fault breaks (the root cause), not another the fault also touches.
    pub fn leads_with_own(&self) -> bool {
        self.lines
            .first()
            .and_then(|l| l.split_once(" [")?.1.split_once(']'))
            .is_some_and(|(lead, _)| lead == self.clause)
    }
}

/// The defects of the run with `fault` on, as the reports group them.
pub fn of_run(
    fault: &FaultInfo,
    contract: &Contract,
    results: &Results,
    run_id: &str,
) -> FaultDefects {
    let info = RunInfo {
        origin: Default::default(),
        target: "http://127.0.0.1".into(),
        profile: "the embedded reference's fixtures".into(),
        fixture_sources: Default::default(),
        faults: vec![fault.name.to_string()],
        run_id: run_id.to_string(),
        seed: 1,
        started: time::OffsetDateTime::UNIX_EPOCH,
        duration: Duration::ZERO,
        requests: 0,
        deliveries: 0,
        receiver: None,
        interrupted: false,
        not_selected: Default::default(),
        selection: Default::default(),
        serve: None,
        har: None,
        situations: None,
    };
    let report = Report::build(&info, contract, results, &Redactor::default(), None);
    let mut out = FaultDefects {
        fault: fault.name.to_string(),
        clause: fault.clause.to_string(),
        lines: Vec::new(),
        own: Vec::new(),
    };
    for d in &report.defects {
        out.own.push(d.clauses.iter().any(|c| c == fault.clause));
        out.lines.push(format!(
            "{} {} {} [{}] {}: expected {}, got {} ({} trials)",
            d.id,
            d.severity,
            d.fingerprint,
            d.clauses.first().map_or("", String::as_str),
            d.check,
            or_gap(&d.expected_shape),
            or_gap(&d.actual_shape),
            d.trial_count
        ));
    }
    out
}

/// A part of a defect's key as the record writes it: `…` where the key leaves it out.
fn or_gap(part: &str) -> &str {
    if part.is_empty() { "…" } else { part }
}

/// The record's text for the runs of every fault.
pub fn text(runs: &BTreeMap<String, FaultDefects>) -> String {
    let mut out = String::from(
        "# The defects each fault's run reports (crates/suite/src/report/defects.rs), worst first: per fault,\n\
         # `fault NAME breaks CLAUSE: N defects, its own first|at K|missing`, then each defect as\n\
         # `ID severity fingerprint [first clause] check: expected E, got A (trials)`, E and A the\n\
         # parts of the defect's key (`…` where the key leaves the value out).\n\
         # Rewrite after a change with `UPDATE_SNAPSHOTS=1 cargo test --test suite self_test`, and review\n\
         # the diff.\n",
    );
    out.push_str(&format!("# {}\n", summary(runs)));
    for f in CATALOG {
        let Some(d) = runs.get(f.name) else {
            continue;
        };
        let own = match d.own_rank() {
            Some(1) => "its own first".to_string(),
            Some(k) => format!("its own at {k}"),
            None => "its own missing".to_string(),
        };
        out.push_str(&format!(
            "fault {} breaks {}: {} defects, {own}\n",
            d.fault,
            d.clause,
            d.lines.len()
        ));
        for l in &d.lines {
            out.push_str(&format!("  {l}\n"));
        }
    }
    out
}

/// Counts of faults by their number of defects (1, 2, 3, more than 3), and how many have their
/// own clause's defect first.
pub fn counts(runs: &BTreeMap<String, FaultDefects>) -> (usize, usize, usize, usize, usize) {
    let by = |n: &dyn Fn(usize) -> bool| runs.values().filter(|d| n(d.lines.len())).count();
    let first = runs.values().filter(|d| d.own_rank() == Some(1)).count();
    (
        by(&|n| n == 1),
        by(&|n| n == 2),
        by(&|n| n == 3),
        by(&|n| n > 3),
        first,
    )
}

/// How many faults' first defect leads with the fault's own clause.
pub fn leading(runs: &BTreeMap<String, FaultDefects>) -> usize {
    runs.values().filter(|d| d.leads_with_own()).count()
}

/// `runs` with each fault of `unsteady` as `record` (the defects record's text) holds it, where
/// it holds it: such a fault's defects depend on timing (which reads of other trials meet what
/// it broke), so its run may give one defect more or less than the record, and the figures the
/// README states would move with one run's timing.
pub fn settled(
    runs: &BTreeMap<String, FaultDefects>,
    record: &str,
    unsteady: &std::collections::BTreeSet<String>,
) -> BTreeMap<String, FaultDefects> {
    let mut out = runs.clone();
    let mut current: Option<FaultDefects> = None;
    let mut recorded: Vec<FaultDefects> = Vec::new();
    for line in record.lines() {
        if let Some(rest) = line.strip_prefix("fault ") {
            recorded.extend(current.take());
            let name = rest
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            let rank = if rest.ends_with("its own first") {
                Some(1)
            } else {
                rest.rsplit_once("its own at ")
                    .and_then(|(_, k)| k.trim().parse::<usize>().ok())
            };
            current = Some(FaultDefects {
                fault: name,
                clause: String::new(),
                lines: Vec::new(),
                own: rank.map_or(Vec::new(), |k| vec![false; k]),
            });
            if let (Some(c), Some(k)) = (current.as_mut(), rank) {
                c.own[k - 1] = true;
            }
        } else if let (Some(c), true) = (current.as_mut(), line.starts_with("  ")) {
            c.lines.push(line.trim().to_string());
        } else {
            recorded.extend(current.take());
        }
    }
    recorded.extend(current.take());
    for mut r in recorded {
        if let (true, Some(now)) = (unsteady.contains(&r.fault), out.get(&r.fault)) {
            r.clause = now.clause.clone();
            r.own.resize(r.lines.len(), false);
            out.insert(r.fault.clone(), r);
        }
    }
    out
}

/// The sentence the README states.
pub fn summary(runs: &BTreeMap<String, FaultDefects>) -> String {
    let (one, two, three, more, first) = counts(runs);
    let total = runs.len().max(1) as f64;
    let more = match more {
        0 => "none more than 3".to_string(),
        n => format!("{n} more than 3"),
    };
    let lead = leading(runs);
    format!(
        "Of the {} faults of the catalog, {one} ({:.0}%) give exactly 1 defect, {two} give 2, {three} give 3 and {more}; for {first} of them ({:.0}%) the first defect cites the fault's own clause, and for {lead} ({:.0}%) it leads with it (its title and first clause).",
        runs.len(),
        100.0 * one as f64 / total,
        100.0 * first as f64 / total,
        100.0 * lead as f64 / total
    )
}
