//! Helpers of the suite's own tests: running the catalog against an in-process reference and
//! reading the verdicts.
#![allow(dead_code)]

pub mod binary;
pub mod catches;
pub mod defects;
pub mod sources;

use std::collections::BTreeSet;
use std::sync::Arc;

use conformance_contract::Contract;
use conformance_reference::{FaultSet, VariantSet};
use conformance_suite::cases::Case;
use conformance_suite::catalog;
use conformance_suite::results::{CaseResult, Verdict};
use workspace_conformance::app::{Certification, certify as certify_with, new_run_id};

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
    certify_as(rt, contract, cases, faults, variants, &new_run_id())
}

/// As [`certify`], with the run id given (the defects' shapes take it out).
pub fn certify_as(
    rt: &tokio::runtime::Runtime,
    contract: &Arc<Contract>,
    cases: &[Arc<Case>],
    faults: FaultSet,
    variants: VariantSet,
    run_id: &str,
) -> Results {
    rt.block_on(certify_with(
        contract.clone(),
        cases,
        Certification::reference(faults, variants).run_id(run_id),
    ))
    .expect("run")
}

/// Clauses cited by the failed checks (of property trials only, if `properties`). Every finding
/// names its clauses (its own check's, else its step's, else its case's).
pub fn failed_clauses(results: &Results, properties: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, r) in results
        .iter()
        .filter(|(c, _)| !properties || c.property.is_some())
    {
        if let Verdict::Failed(failures) = &r.verdict {
            for f in failures {
                out.extend(f.finding.clauses.iter().cloned());
            }
        }
    }
    out
}

/// What makes a run incomplete: a trial count other than the catalog's, ignored trials.
pub fn incomplete(what: &str, cases: &[Arc<Case>], results: &Results) -> Vec<String> {
    let mut out = Vec::new();
    if results.len() != cases.len() {
        out.push(format!(
            "{what}: {} trials ran, the catalog has {}",
            results.len(),
            cases.len()
        ));
    }
    let ignored = ignored(results);
    if !ignored.is_empty() {
        out.push(format!("{what}: ignored trials {ignored:?}"));
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

/// Runs `f` on every item, a few items per core at a time, and gathers what it returns. Each item
/// gets a reference of its own; much of a run is waiting (deliveries, the bound of a missing one,
/// a fault's slow answer), not computing, so several runs per core keep the cores busy (on 2
/// cores: 8 at once; the self-test measured 388 s at 3, 135 s at 8).
pub fn in_parallel<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> Vec<R> + Sync) -> Vec<R> {
    use std::sync::Mutex;
    let at_once = std::thread::available_parallelism()
        .map(|n| n.get() * 4)
        .unwrap_or(8)
        .clamp(4, 16);
    let next = Mutex::new(items.iter());
    let out = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..at_once {
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

/// What the runs with each fault on showed: every catch, and every fault not caught as the
/// self-test requires (a failed check citing the fault's clause; for a boundary fault, a failed
/// property citing it) or run incompletely.
pub struct FaultRuns {
    pub catches: BTreeSet<catches::Catch>,
    pub problems: Vec<String>,
    /// Per fault, the problems of its run (`problems` holds them all).
    pub problems_of: std::collections::BTreeMap<String, Vec<String>>,
    /// Per fault, the defects its run reports.
    pub defects: std::collections::BTreeMap<String, defects::FaultDefects>,
}

impl FaultRuns {
    /// The catches of `fault`'s run.
    pub fn catches_of(&self, fault: &str) -> BTreeSet<catches::Catch> {
        self.catches
            .iter()
            .filter(|c| c.fault == fault)
            .cloned()
            .collect()
    }

    /// Takes `fault`'s run from `other` (a run of it again) in place of this one's.
    pub fn take_fault(&mut self, fault: &str, other: &FaultRuns) {
        self.catches.retain(|c| c.fault != fault);
        self.catches.extend(other.catches_of(fault));
        match other.defects.get(fault) {
            Some(d) => self.defects.insert(fault.to_string(), d.clone()),
            None => self.defects.remove(fault),
        };
        self.problems_of.insert(
            fault.to_string(),
            other.problems_of.get(fault).cloned().unwrap_or_default(),
        );
        self.problems = self.problems_of.values().flatten().cloned().collect();
        self.problems.sort();
    }
}

/// How many more times a fault whose run differs from what a test requires runs before the test
/// fails on it: with 48 trials in flight, one run may meet what another trial left at that moment.
pub const RERUNS: usize = 2;

/// The trials a fault's run holds, by the fault's name.
pub type TrialsOf<'a> = dyn Fn(&str) -> BTreeSet<String> + Sync + 'a;

/// Runs every trial once per fault of `faults` (the catalog, or the faults to run again), each
/// against a reference of its own with that fault on and `variants` (with the variant the fault
/// `needs`, without those that hide it). With `only`, a fault's run holds only the trials `only`
/// names for that fault (the catalog's other trials would show nothing the caller reads).
pub fn fault_runs(
    faults: &[conformance_reference::FaultInfo],
    rt: &tokio::runtime::Runtime,
    contract: &Arc<Contract>,
    cases: &[Arc<Case>],
    variants: &VariantSet,
    only: Option<&TrialsOf<'_>>,
) -> FaultRuns {
    let found = in_parallel(faults, |fault| {
        let selected: Vec<Arc<Case>>;
        let cases = match only {
            Some(names) => {
                let names = names(fault.name);
                selected = cases
                    .iter()
                    .filter(|c| names.contains(&c.name))
                    .cloned()
                    .collect();
                &selected[..]
            }
            None => cases,
        };
        // A fault of what the suite sends may show only with its variant on (issue 15).
        let mut variants = match fault.fault.needs() {
            Some(v) => variants.with(v),
            None => variants.clone(),
        };
        // A variant that hides what the fault breaks (a freedom of the contract) stays off.
        for v in fault.fault.hidden_by() {
            variants = variants.without(*v);
        }
        let run_id = new_run_id();
        let results = certify_as(
            rt,
            contract,
            cases,
            FaultSet::new([fault.fault]),
            variants,
            &run_id,
        );
        let mut problems = incomplete(&format!("fault {}", fault.name), cases, &results);
        if fault.boundary && !failed_clauses(&results, true).contains(fault.clause) {
            problems.push(format!(
                "boundary fault {} ({}) is not caught by a property: failed {:?}",
                fault.name,
                fault.clause,
                failed_names(&results)
            ));
        }
        let clauses = failed_clauses(&results, false);
        if !clauses.contains(fault.clause) {
            problems.push(format!(
                "{} ({}) is caught by no check citing its clause: failed trials {:?} cite {:?}",
                fault.name,
                fault.clause,
                failed_names(&results),
                clauses
            ));
        }
        let defects = defects::of_run(fault, contract, &results, &run_id);
        vec![(catches::of_run(fault, &results), problems, defects)]
    });
    let mut runs = FaultRuns {
        catches: BTreeSet::new(),
        problems: Vec::new(),
        problems_of: Default::default(),
        defects: Default::default(),
    };
    for (c, p, d) in found {
        runs.catches.extend(c);
        runs.problems.extend(p.iter().cloned());
        runs.problems_of.insert(d.fault.clone(), p);
        runs.defects.insert(d.fault.clone(), d);
    }
    runs.problems.sort();
    runs
}
