//! Helpers of the suite's own tests: running the catalog against an in-process reference and
//! reading the verdicts.
#![allow(dead_code)]

pub mod binary;

use std::collections::BTreeSet;
use std::sync::Arc;

use workspace_conformance::app::{certify_reference_as, new_run_id};
use workspace_conformance::cases::Case;
use workspace_conformance::catalog;
use workspace_conformance::contract::Contract;
use workspace_conformance::execute::{CaseResult, Verdict};
use workspace_conformance::reference::{FaultSet, VariantSet};

pub type Results = Vec<(Arc<Case>, CaseResult)>;

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

pub fn catalog() -> (Arc<Contract>, Vec<Arc<Case>>) {
    catalog::load(None).expect("catalog loads")
}

/// Runs every case against a fresh reference with these switches.
pub fn certify(
    rt: &tokio::runtime::Runtime,
    contract: &Arc<Contract>,
    cases: &[Arc<Case>],
    faults: FaultSet,
    variants: VariantSet,
) -> Results {
    rt.block_on(certify_reference_as(
        contract.clone(),
        cases,
        faults,
        variants,
        1,
        &new_run_id(),
    ))
    .expect("run")
}

/// Clauses cited by the failed checks (of property trials only, if `properties`).
pub fn failed_clauses(results: &Results, properties: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (case, r) in results
        .iter()
        .filter(|(c, _)| !properties || c.property.is_some())
    {
        if let Verdict::Failed(failures) = &r.verdict {
            for f in failures {
                let cited = &f.finding.clauses;
                if cited.iter().all(String::is_empty) {
                    out.extend(case.clauses.iter().cloned());
                } else {
                    out.extend(cited.iter().filter(|c| !c.is_empty()).cloned());
                }
            }
        }
    }
    out
}

pub fn failed_names(results: &Results) -> Vec<String> {
    results
        .iter()
        .filter(|(_, r)| matches!(r.verdict, Verdict::Failed(_)))
        .map(|(c, _)| c.name.clone())
        .collect()
}

/// Failed trials with their first finding, for assertion messages.
pub fn failure_report(results: &Results) -> String {
    results
        .iter()
        .filter_map(|(c, r)| match &r.verdict {
            Verdict::Failed(f) => Some(format!(
                "{}: {} (expected {}, got {})",
                c.name, f[0].finding.check, f[0].finding.expected, f[0].finding.actual
            )),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn ignored(results: &Results) -> Vec<String> {
    results
        .iter()
        .filter_map(|(c, r)| match &r.verdict {
            Verdict::Ignored(why) => Some(format!("{}: {why}", c.name)),
            _ => None,
        })
        .collect()
}

/// Faults not caught as the self-test requires: a failed check citing the fault's clause, and
/// for boundary faults a failed property citing it.
/// Runs `f` on every item, `AT_ONCE` items at a time, and gathers what it returns. Each item gets
/// a reference of its own; most of a run is waiting (deliveries, the bound of a missing one), not
/// computing, so a few runs at once share the two cores well.
pub fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> Vec<R> + Sync) -> Vec<R> {
    use std::sync::Mutex;
    const AT_ONCE: usize = 3;
    let next = Mutex::new(items.iter());
    let out = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..AT_ONCE {
            scope.spawn(|| {
                loop {
                    let Some(item) = next.lock().expect("queue").next() else {
                        break;
                    };
                    let found = f(item);
                    out.lock().expect("results").extend(found);
                }
            });
        }
    });
    out.into_inner().expect("results")
}

pub fn uncaught_faults(
    rt: &tokio::runtime::Runtime,
    contract: &Arc<Contract>,
    cases: &[Arc<Case>],
    variants: &VariantSet,
) -> Vec<String> {
    use workspace_conformance::reference::{BOUNDARY_FAULTS, CATALOG};
    let mut uncaught = in_parallel(CATALOG, |fault| {
        // A fault of what the suite sends may show only with its variant on (issue 15).
        let mut variants = match fault.fault.needs() {
            Some(v) => variants.with(v),
            None => variants.clone(),
        };
        // A variant that hides what the fault breaks (a freedom of the contract) stays off.
        for v in fault.fault.hidden_by() {
            variants = variants.without(*v);
        }
        let results = certify(rt, contract, cases, FaultSet::new([fault.fault]), variants);
        let mut found = Vec::new();
        if BOUNDARY_FAULTS.contains(&fault.fault)
            && !failed_clauses(&results, true).contains(fault.clause)
        {
            found.push(format!(
                "boundary fault {} ({}) is not caught by a property: failed {:?}",
                fault.name,
                fault.clause,
                failed_names(&results)
            ));
        }
        let clauses = failed_clauses(&results, false);
        if !clauses.contains(fault.clause) {
            found.push(format!(
                "{} ({}): failed cases {:?} cite {:?}",
                fault.name,
                fault.clause,
                failed_names(&results),
                clauses
            ));
        }
        found
    });
    uncaught.sort();
    uncaught
}
