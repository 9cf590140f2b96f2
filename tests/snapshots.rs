//! insta snapshots of each report format and of the failure explanation, for a small run: one
//! passing case, one failing under a fault and one ignored for a missing fixture. Ids, times,
//! durations and ports are redacted.

mod common;

use std::time::Duration;

use workspace_conformance::app::{certify_reference_as, client_for};
use workspace_conformance::checks::explain;
use workspace_conformance::execute::{Executor, Verdict};
use workspace_conformance::profile::Profile;
use workspace_conformance::reference::{Fault, FaultSet, VariantSet};
use workspace_conformance::report::{Report, RunInfo};

const CASES: [&str; 2] = [
    "v1.contacts.create.returns-201-with-contact",
    "v1.contacts.patch.replaces-emails",
];
const IGNORED: &str = "latest.webhooks.get.returns-the-webhook";

fn filters() -> Vec<(&'static str, &'static str)> {
    vec![
        (r"127\.0\.0\.1:\d+", "127.0.0.1:[port]"),
        (r"\b[0-9a-f]{24}\b", "[id]"),
        (r"\b(em|ph|cf)_[0-9a-f]+\b", "${1}_[id]"),
        (
            r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)",
            "[time]",
        ),
        (
            r#""(durationSeconds|elapsedSeconds)": [0-9.e-]+"#,
            r#""$1": "[duration]""#,
        ),
        (r#"time="[0-9.]+""#, r#"time="[duration]""#),
        (r"[0-9.]+ ms\b", "[ms] ms"),
        (r"[0-9.]+ bytes in", "[n] bytes in"),
        (
            r#"<td class="ms">[^<]*</td>"#,
            r#"<td class="ms">[ms]</td>"#,
        ),
        (r"requests in [0-9.]+ s", "requests in [duration] s"),
    ]
}

fn report() -> (Report, String) {
    let rt = common::runtime();
    let (contract, cases) = common::catalog();
    let chosen: Vec<_> = cases
        .iter()
        .filter(|c| CASES.contains(&c.name.as_str()))
        .cloned()
        .collect();
    assert_eq!(chosen.len(), CASES.len());
    let faults = FaultSet::new(vec![
        Fault::from_name("patch-merges-entries").expect("fault"),
    ]);
    let mut results = rt
        .block_on(certify_reference_as(
            contract.clone(),
            &chosen,
            faults,
            VariantSet::default(),
            1,
            "rsnap001",
        ))
        .expect("reference runs");
    // An ignored trial: a profile without fixtures; nothing is sent.
    let ignored = cases
        .iter()
        .find(|c| c.name == IGNORED)
        .expect("ignored case")
        .clone();
    let profile = Profile::default();
    let client = client_for(
        "http://127.0.0.1:9",
        Some("key-never-used".into()),
        &profile,
        Duration::from_secs(1),
        1024,
        None,
    )
    .expect("client");
    let exec = Executor::new(contract.clone(), client, profile, "rsnap001".into());
    let result = rt.block_on(exec.run(&ignored));
    assert!(matches!(result.verdict, Verdict::Ignored(_)));
    results.push((ignored, result));
    let (case, failed) = results
        .iter()
        .find(|(c, _)| c.name == CASES[1])
        .expect("patch case");
    let Verdict::Failed(failures) = &failed.verdict else {
        panic!("the patch case passes with patch-merges-entries on");
    };
    let redactor = workspace_conformance::client::Redactor::default();
    let explanation = explain::render(case, failures, &redactor);
    let info = RunInfo {
        target: "http://127.0.0.1:8080".into(),
        profile: "the embedded reference's fixtures".into(),
        fixture_sources: Default::default(),
        faults: vec!["patch-merges-entries".into()],
        run_id: "rsnap001".into(),
        seed: 1,
        started: time::macros::datetime!(2026-04-01 09:30:00 UTC),
        duration: Duration::from_millis(1234),
        requests: 7,
        interrupted: false,
        not_selected: Default::default(),
    };
    let report = Report::build(&info, &contract, &results, &redactor, None);
    (report, explanation)
}

#[test]
fn report_formats_and_explanation() {
    let (report, explanation) = report();
    let redactor = workspace_conformance::client::Redactor::default();
    let json = report.to_json(&redactor);
    let junit = report.to_junit(&redactor).expect("junit");
    let html = report.to_html(&redactor).expect("html");
    insta::with_settings!({ filters => filters(), snapshot_path => "../snapshots", prepend_module_to_snapshot => false }, {
        insta::assert_snapshot!("explanation", explanation);
        insta::assert_snapshot!("json", json);
        insta::assert_snapshot!("junit", junit);
        insta::assert_snapshot!("html", html);
    });
}

#[test]
fn the_coverage_matrix_credits_the_generic_checks_to_a_passed_trial() {
    // No case cites these clauses: the generic checks hold every answer to them, and the passed
    // trial's answer (201 with a contact) kept them.
    let (report, _) = report();
    for id in [
        "Errors > no server errors",
        "Endpoints > declared statuses",
        "Endpoints > JSON bodies",
        "What the service does > data envelope",
    ] {
        let row = report
            .clauses
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no row for {id}"));
        assert_eq!(
            row.status, "verified",
            "{id}: {row:?} (a passed trial's answer kept it)"
        );
    }
    // A clause only a failed trial's request reached stays unproven.
    let row = report
        .clauses
        .iter()
        .find(|c| c.id == "Pagination and collection conventions > list shape")
        .expect("row");
    assert_ne!(row.status, "verified", "{row:?}");
}
