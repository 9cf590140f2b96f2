//! The suite proves itself against its reference: the clean reference passes every case, and
//! every fault of the catalog makes a case fail with a finding that cites the fault's clause.

use std::collections::BTreeSet;
use std::sync::Arc;

use workspace_conformance::app::{certify_reference, load_catalog};
use workspace_conformance::cases::Case;
use workspace_conformance::execute::{CaseResult, Verdict};
use workspace_conformance::reference::{BOUNDARY_FAULTS, CATALOG, FaultSet};

type Results = Vec<(Arc<Case>, CaseResult)>;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// Clauses cited by the failed checks of a result (of property trials only, if `properties`).
fn failed_clauses_of(results: &Results, properties: bool) -> BTreeSet<String> {
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

fn failed_clauses(results: &Results) -> BTreeSet<String> {
    failed_clauses_of(results, false)
}

fn failed_names(results: &Results) -> Vec<String> {
    results
        .iter()
        .filter(|(_, r)| matches!(r.verdict, Verdict::Failed(_)))
        .map(|(c, _)| c.name.clone())
        .collect()
}

#[test]
fn clean_reference_passes_every_case() {
    let (contract, cases) = load_catalog(None).expect("catalog loads");
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let results = runtime()
        .block_on(certify_reference(contract, &cases, FaultSet::default(), 1))
        .expect("run");
    assert_eq!(results.len(), cases.len());
    let failed = failed_names(&results);
    assert!(
        failed.is_empty(),
        "cases failed against the clean reference: {failed:?}"
    );
    let ignored: Vec<_> = results
        .iter()
        .filter_map(|(c, r)| match &r.verdict {
            Verdict::Ignored(why) => Some(format!("{}: {why}", c.name)),
            _ => None,
        })
        .collect();
    assert!(
        ignored.is_empty(),
        "the reference profile lacks fixtures: {ignored:?}"
    );
}

#[test]
fn every_fault_is_caught_by_a_case_citing_its_clause() {
    let (contract, cases) = load_catalog(None).expect("catalog loads");
    assert!(
        CATALOG.len() >= 12,
        "the catalog has {} faults",
        CATALOG.len()
    );
    assert!(
        BOUNDARY_FAULTS.len() >= 8,
        "only {} boundary faults",
        BOUNDARY_FAULTS.len()
    );
    let rt = runtime();
    let mut uncaught = Vec::new();
    for fault in CATALOG {
        assert!(
            contract.clauses.contains(fault.clause),
            "fault {} cites unknown clause {}",
            fault.name,
            fault.clause
        );
        let results = rt
            .block_on(certify_reference(
                contract.clone(),
                &cases,
                FaultSet::new([fault.fault]),
                1,
            ))
            .expect("run");
        let clauses = failed_clauses(&results);
        let by_property = failed_clauses_of(&results, true);
        if BOUNDARY_FAULTS.contains(&fault.fault) && !by_property.contains(fault.clause) {
            uncaught.push(format!(
                "boundary fault {} ({}) is not caught by a property: failed {:?}",
                fault.name,
                fault.clause,
                failed_names(&results)
            ));
        }
        if !clauses.contains(fault.clause) {
            uncaught.push(format!(
                "{} ({}): failed cases {:?} cite {:?}",
                fault.name,
                fault.clause,
                failed_names(&results),
                clauses
            ));
        }
    }
    assert!(
        uncaught.is_empty(),
        "faults not caught by a case citing their clause:\n{}",
        uncaught.join("\n")
    );
}
