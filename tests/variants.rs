//! No check fails where the contract is open: the reference with any variant on, alone or all
//! together, passes every case; and faults and variants compose: every fault is still caught
//! with all variants on.

mod common;

use workspace_conformance::reference::{FaultSet, VARIANTS, VariantSet};

#[test]
fn catalog_has_at_least_25_variants_each_with_a_reading() {
    assert!(VARIANTS.len() >= 25, "only {} variants", VARIANTS.len());
    let readings = include_str!("../docs/READINGS.md");
    for v in VARIANTS {
        let section = v.reading.split('.').next().unwrap_or("");
        assert!(
            readings.contains(&format!("## {section}.")),
            "variant {} cites unknown reading {}",
            v.name,
            v.reading
        );
    }
}

#[test]
fn the_demanding_family_has_at_least_ten_variants_of_readings_6_or_2() {
    // Issue 15: what a target may demand of a request is tested like what it answers.
    let demanding: Vec<_> = VARIANTS.iter().filter(|v| v.variant.demanding()).collect();
    assert!(
        demanding.len() >= 9,
        "only {} demanding variants",
        demanding.len()
    );
    for v in [
        "message-text-content",
        "require-default-fields",
        "require-list-filters",
        "unknown-resources-404",
        "route-before-auth",
        "trim-whitespace",
        "unknown-fields-400",
        "json-body-415",
        "group-recipients-10",
    ] {
        assert!(
            demanding.iter().any(|d| d.name == v),
            "demanding variant {v} missing"
        );
    }
}

#[test]
fn each_variant_alone_fails_no_case() {
    let (contract, cases) = common::catalog();
    let rt = common::runtime();
    let broken = common::in_parallel(VARIANTS, |v| {
        let results = common::certify(
            &rt,
            &contract,
            &cases,
            FaultSet::default(),
            VariantSet::new([v.variant]),
        );
        let failed = common::failure_report(&results);
        let ignored = common::ignored(&results);
        let mut out = Vec::new();
        // Every trial of the default run ran: none failed, none ignored, none missing.
        if results.len() != cases.len() {
            out.push(format!(
                "variant {}: {} trials, not {}",
                v.name,
                results.len(),
                cases.len()
            ));
        }
        if !ignored.is_empty() {
            out.push(format!("variant {}: ignored {ignored:?}", v.name));
        }
        if !failed.is_empty() {
            out.push(format!(
                "variant {} (READINGS {}):\n{failed}",
                v.name, v.reading
            ));
        }
        out
    });
    assert!(
        broken.is_empty(),
        "checks that fail a conforming variant:\n{}",
        broken.join("\n")
    );
}

#[test]
fn all_variants_together_fail_no_case() {
    let (contract, cases) = common::catalog();
    let results = common::certify(
        &common::runtime(),
        &contract,
        &cases,
        FaultSet::default(),
        VariantSet::all(),
    );
    let failed = common::failure_report(&results);
    assert!(
        failed.is_empty(),
        "checks that fail with every variant on:\n{failed}"
    );
    let ignored = common::ignored(&results);
    assert!(ignored.is_empty(), "{ignored:?}");
    assert_eq!(results.len(), cases.len(), "every trial ran");
    assert!(cases.len() >= 480, "only {} trials", cases.len());
}

#[test]
fn every_fault_is_still_caught_with_all_variants_on() {
    let (contract, cases) = common::catalog();
    let uncaught =
        common::uncaught_faults(&common::runtime(), &contract, &cases, &VariantSet::all());
    assert!(
        uncaught.is_empty(),
        "faults hidden by the variants:\n{}",
        uncaught.join("\n")
    );
}
