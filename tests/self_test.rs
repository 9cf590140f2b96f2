//! The suite proves itself against its reference: the clean reference passes every case, and
//! every fault of the catalog makes a case fail with a finding that cites the fault's clause
//! (a property, for the faults that move a limit).

mod common;

use workspace_conformance::reference::{BOUNDARY_FAULTS, CATALOG, FaultSet, VariantSet};

#[test]
fn clean_reference_passes_every_case() {
    let (contract, cases) = common::catalog();
    assert!(cases.len() >= 40, "only {} cases", cases.len());
    let results = common::certify(
        &common::runtime(),
        &contract,
        &cases,
        FaultSet::default(),
        VariantSet::default(),
    );
    assert_eq!(results.len(), cases.len());
    let failed = common::failure_report(&results);
    assert!(
        failed.is_empty(),
        "cases failed against the clean reference:\n{failed}"
    );
    let ignored = common::ignored(&results);
    assert!(
        ignored.is_empty(),
        "the reference profile lacks fixtures: {ignored:?}"
    );
}

#[test]
fn every_fault_is_caught_by_a_case_citing_its_clause() {
    let (contract, cases) = common::catalog();
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
    for fault in CATALOG {
        assert!(
            contract.clauses.contains(fault.clause),
            "fault {} cites unknown clause {}",
            fault.name,
            fault.clause
        );
    }
    let uncaught = common::uncaught_faults(
        &common::runtime(),
        &contract,
        &cases,
        &VariantSet::default(),
    );
    assert!(
        uncaught.is_empty(),
        "faults not caught by a case citing their clause:\n{}",
        uncaught.join("\n")
    );
}
