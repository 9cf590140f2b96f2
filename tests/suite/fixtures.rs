//! What the run uses up and what it cannot make: a fixture a trial uses up is planned (the
//! trials that must leave it as it is first, its one use last, which is their control), and a
//! missing contact is derived from a served one where the target has no activity hook.

use std::sync::Arc;

use conformance_contract::profile::Profile;
use conformance_reference::{Fault, FaultSet, Variant, VariantSet};
use conformance_suite::cases::Case;
use conformance_suite::results::Verdict;
use workspace_conformance::app::{Certification, certify};

use crate::common;

/// The trials that retry the profile's failed message: the versioning cells (their control
/// retries it) and the retry case.
const RETRIES: [&str; 3] = [
    "latest.versioning.POST-messages-messageId-retry.no-version",
    "latest.versioning.POST-messages-messageId-retry.other-version",
    "latest.messages.retry.failed-is-reattempted",
];

/// The verdict of each trial, by name, as `passed`, `failed: ...` or `ignored: ...`.
fn verdicts(results: &common::Results) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = results
        .iter()
        .map(|(c, r)| {
            let v = match &r.verdict {
                Verdict::Passed => "passed".to_string(),
                Verdict::Ignored(why) => format!("ignored: {why}"),
                Verdict::Failed(f) => format!(
                    "failed: {}",
                    f.iter()
                        .map(|f| format!("{}: {}", f.finding.check, f.finding.actual))
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            };
            (c.name.clone(), v)
        })
        .collect();
    out.sort();
    out
}

/// The cases of the catalog named `names`, in that order.
fn named(cases: &[Arc<Case>], names: &[&str]) -> Vec<Arc<Case>> {
    names
        .iter()
        .map(|n| {
            cases
                .iter()
                .find(|c| c.name == *n)
                .unwrap_or_else(|| panic!("no trial {n}"))
                .clone()
        })
        .collect()
}

/// A target that re-attempts a retried failed message (it is failed no more afterwards) and a
/// profile with one failed message: the retry cells and the retry case all pass, whatever order
/// they come in and however many run at once. The cells leave the message failed and run first;
/// the retry case's retry, last, is their control.
#[test]
fn the_retry_cells_and_the_retry_case_pass_together_in_any_order() {
    let (contract, cases) = common::catalog();
    let rt = common::runtime();
    let orders: [[usize; 3]; 6] = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    let mut bad = Vec::new();
    for order in orders {
        for in_flight in [1, 3] {
            let names: Vec<&str> = order.iter().map(|&i| RETRIES[i]).collect();
            let results = rt
                .block_on(certify(
                    contract.clone(),
                    &named(&cases, &names),
                    Certification::reference(
                        FaultSet::default(),
                        VariantSet::new([Variant::RetryDelivers]),
                    )
                    .in_flight(in_flight),
                ))
                .expect("run");
            assert_eq!(results.len(), 3);
            for (name, v) in verdicts(&results) {
                if v != "passed" {
                    bad.push(format!("order {names:?}, {in_flight} at once: {name} {v}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// The retry variant is not idle: against it, a second retry of the same message is refused,
/// so trials that each retried the one failed message would not all pass.
#[test]
fn a_retried_message_is_failed_no_more_with_retry_delivers() {
    let rt = common::runtime();
    let statuses = rt.block_on(async {
        let running = conformance_reference::start(conformance_reference::Options {
            variants: VariantSet::new([Variant::RetryDelivers]),
            ..Default::default()
        })
        .await
        .expect("reference");
        let failed = running.profile.fixtures["sandbox_failed_message_id"]
            .as_str()
            .expect("one failed message")
            .to_string();
        let client = reqwest::Client::new();
        let mut out = Vec::new();
        for _ in 0..2 {
            let answer = client
                .post(format!("{}/messages/{failed}/retry", running.base_url()))
                .header(
                    "Authorization",
                    running.profile.api_key.clone().expect("key"),
                )
                .header("Service-Api-Version", conformance_contract::API_VERSION)
                .send()
                .await
                .expect("answer");
            out.push(answer.status().as_u16());
        }
        running.stop().await;
        out
    });
    assert_eq!(statuses[0] / 100, 2, "{statuses:?}");
    assert_eq!(statuses[1] / 100, 4, "{statuses:?}");
}

/// The cases about a missing contact.
const MISSING_CONTACT: [&str; 2] = [
    "latest.contacts.get.missing-contact-is-404",
    "v1.contacts.patch.missing-contact-is-404",
];

/// The missing-contact cases against the reference with `faults` on, its profile without the
/// activity hook (`activity_trigger_path`): the suite cannot delete a contact there.
fn missing_contact_without_hook(faults: &[Fault]) -> common::Results {
    let (contract, cases) = common::catalog();
    let rt = common::runtime();
    rt.block_on(async {
        let running = conformance_reference::start(conformance_reference::Options {
            faults: FaultSet::new(faults.iter().copied()),
            ..Default::default()
        })
        .await
        .expect("reference");
        let mut profile: Profile = running.profile.clone();
        assert!(
            profile.fixtures.remove("activity_trigger_path").is_some(),
            "the reference's profile names its hook"
        );
        let results = certify(
            contract,
            &named(&cases, &MISSING_CONTACT),
            Certification::target(&running.base_url(), profile),
        )
        .await
        .expect("run");
        running.stop().await;
        results
    })
}

/// Without the hook, the missing-contact cases use an id derived from a contact the run created,
/// which answers 404 first, and pass against the reference.
#[test]
fn without_the_hook_the_missing_contact_cases_run_and_pass() {
    let results = missing_contact_without_hook(&[]);
    let v = verdicts(&results);
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|(_, v)| v == "passed"), "{v:#?}");
    // The request about the missing contact names the derived id, not the served one.
    for (case, r) in &results {
        let served = r
            .exchanges
            .iter()
            .find(|e| e.method == "POST" && e.path == "/v1/contacts")
            .and_then(|e| e.outcome.as_ref().ok())
            .and_then(|a| a.value())
            .and_then(|b| {
                b.pointer("/data/id")
                    .and_then(|i| i.as_str())
                    .map(str::to_string)
            });
        let last = r.exchanges.last().expect("an exchange");
        assert!(last.path.starts_with("/contacts/") || last.path.starts_with("/v1/contacts/"));
        let id = last.path.rsplit('/').next().unwrap_or_default();
        if let Some(served) = served {
            assert_ne!(id, served, "{}", case.name);
            assert_eq!(id.len(), served.len(), "{}", case.name);
        }
    }
}

/// Without the hook, a target that answers a missing contact with something else than a 404
/// with a message fails the missing-contact cases it breaks: a 500 for GET /contacts/{id} fails
/// the GET case (the v1 PATCH still answers 404 with its code, and passes); a 404 with an empty
/// message fails both.
#[test]
fn without_the_hook_a_wrong_answer_for_a_missing_contact_fails_them() {
    for (fault, failing) in [
        (Fault::ContactIdNotFoundAs500, &MISSING_CONTACT[..1]),
        (Fault::MissingContactBlankMessage, &MISSING_CONTACT[..]),
    ] {
        let results = missing_contact_without_hook(&[fault]);
        let v = verdicts(&results);
        assert_eq!(v.len(), 2);
        for (name, verdict) in &v {
            let fails = failing.contains(&name.as_str());
            assert_eq!(
                verdict.starts_with("failed: "),
                fails,
                "{fault:?}: {name} {verdict}"
            );
            assert!(fails || verdict == "passed", "{fault:?}: {name} {verdict}");
        }
    }
}
