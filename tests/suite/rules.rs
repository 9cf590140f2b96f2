//! The registry of rules: a rule registered once is judged on every exchange of the operations
//! it applies to, whatever trial sent the exchange (a case, a generated cell, a property, a
//! random sequence, a relation), and its findings reach that trial's verdict.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use conformance_reference::{FaultSet, VariantSet};
use conformance_suite::results::{Finding, Verdict};
use conformance_suite::rules::{AppliesTo, Rule};
use workspace_conformance::app::{Certification, certify};

use crate::common;

/// The operation the made-up rule applies to: `GET /v1/tasks/{taskId}`.
const OPERATION: &str = "getTask";

fn is_get_task(method: &str, path: &str) -> bool {
    let parts: Vec<&str> = path.trim_matches('/').split('/').collect();
    method == "GET" && parts.len() == 3 && parts[0] == "v1" && parts[1] == "tasks"
}

#[test]
fn a_rule_registered_once_judges_every_exchange_of_its_operations_whatever_trial_sent_it() {
    let judged: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = judged.clone();
    let rule = Rule::new(
        "made-up",
        AppliesTo {
            operations: Some(vec![OPERATION.to_string()]),
            ..AppliesTo::default()
        },
        &["Resources > Task"],
        move |j| {
            if let Ok(mut s) = seen.lock() {
                s.push(format!("{} {}", j.ex.method, j.ex.path));
            }
            vec![Finding::new(
                "Resources > Task",
                "made-up rule",
                "no read of a task",
                j.ex.path.clone(),
            )]
        },
    );
    let (contract, cases) = common::catalog();
    let results = common::runtime()
        .block_on(certify(
            contract,
            &cases,
            Certification::reference(FaultSet::default(), VariantSet::default()).rule(rule),
        ))
        .expect("run");
    let judged: BTreeSet<String> = judged.lock().expect("lock").iter().cloned().collect();
    // It applied to its operation only.
    assert!(
        judged.iter().all(|j| {
            let (m, p) = j.split_once(' ').expect("method and path");
            is_get_task(m, p)
        }),
        "judged other operations: {judged:?}"
    );
    let mut senders = BTreeSet::new();
    let mut unjudged = Vec::new();
    let mut unfailed = Vec::new();
    for (case, r) in &results {
        let sent: Vec<String> = r
            .exchanges
            .iter()
            .filter(|ex| is_get_task(&ex.method, &ex.path))
            .map(|ex| format!("{} {}", ex.method, ex.path))
            .collect();
        if sent.is_empty() {
            continue;
        }
        senders.insert(case.name.clone());
        unjudged.extend(sent.iter().filter(|s| !judged.contains(*s)).cloned());
        let failed_on_it = matches!(&r.verdict, Verdict::Failed(f)
            if f.iter().any(|f| f.finding.check == "made-up rule"));
        if !failed_on_it {
            unfailed.push(case.name.clone());
        }
    }
    assert!(
        unjudged.is_empty(),
        "exchanges the rule never judged: {unjudged:?}"
    );
    assert!(
        unfailed.is_empty(),
        "trials that sent the operation and did not fail on the rule: {unfailed:?}"
    );
    // Every kind of trial sends it: case files, generated cells, random sequences.
    for kind in [".tasks.", ".access.", ".sequences."] {
        assert!(
            senders.iter().any(|s| s.contains(kind)),
            "no trial of {kind} sent {OPERATION}: {senders:?}"
        );
    }
    assert!(senders.len() >= 10, "{} trials sent it", senders.len());
}
