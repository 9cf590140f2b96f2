//! Properties replay: the same seed gives the same inputs and the same verdicts.

use std::collections::BTreeMap;

use conformance_reference::{Fault, FaultSet, VariantSet};
use conformance_suite::catalog;
use conformance_suite::results::Verdict;
use workspace_conformance::app::{Certification, certify};

/// Per property trial: its verdict and the inputs it sent (query and body, run id masked).
fn inputs_and_verdicts(seed: u64) -> BTreeMap<String, (String, Vec<String>)> {
    let (contract, cases) = catalog::load(None).expect("catalog");
    let properties: Vec<_> = cases.into_iter().filter(|c| c.property.is_some()).collect();
    assert!(
        properties.len() >= 10,
        "only {} properties",
        properties.len()
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    // A fault makes some verdicts failures, so failures and shrinking replay too.
    let results = rt
        .block_on(certify(
            contract,
            &properties,
            Certification::reference(
                FaultSet::new([Fault::ExternalId76Accepted, Fault::PatchMergesEntries]),
                VariantSet::default(),
            )
            .seed(seed)
            .run_id("rreplay0")
            // One trial at a time: the relations walk whole collections, whose sizes (and so
            // the page sizes and page counts of a walk) depend on what the trials before them
            // created; concurrent, that depends on timing.
            .in_flight(1),
        ))
        .expect("run");
    let port = regex::Regex::new(r"127\.0\.0\.1:[0-9]+").expect("pattern");
    // A page token is the target's (read from its answer, and it names items other trials
    // created): it is no input either.
    let token = regex::Regex::new(r"pageToken=[^& ]*").expect("pattern");
    // Nor is an instant the target showed (a resource's creation time, which a filter of the
    // generated sequences sends back): the run's own resources are created at the time it runs.
    let instant = regex::Regex::new(
        r"20[0-9]{2}-[0-9]{2}-[0-9]{2}T[0-9]{2}%3A[0-9]{2}%3A[0-9.]+(Z|%2B[0-9%A]+|-[0-9%A]+)",
    )
    .expect("pattern");
    let mut out = BTreeMap::new();
    for (case, result) in results {
        let verdict = match &result.verdict {
            Verdict::Passed => "passed".to_string(),
            Verdict::Ignored(r) => format!("ignored: {r}"),
            Verdict::Failed(f) => format!(
                "failed: {}",
                f.iter()
                    .map(|x| x.finding.check.clone())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let inputs = result
            .exchanges
            .iter()
            .map(|ex| {
                let query = ex
                    .url
                    .split_once('?')
                    .map(|(_, q)| q.to_string())
                    .unwrap_or_default();
                // The receiver's port changes from run to run; it is no input.
                let text = format!(
                    "{} {query} {}",
                    ex.method,
                    ex.request_body.clone().unwrap_or_default()
                );
                let text = token.replace_all(&text, "pageToken=TOKEN");
                let text = instant.replace_all(&text, "INSTANT");
                port.replace_all(&text, "127.0.0.1:PORT").into_owned()
            })
            .collect();
        out.insert(case.name.clone(), (verdict, inputs));
    }
    out
}

#[test]
fn same_seed_gives_same_inputs_and_verdicts() {
    let first = inputs_and_verdicts(42);
    let second = inputs_and_verdicts(42);
    assert!(
        first.values().any(|(v, _)| v.starts_with("failed")),
        "the faults should fail some property"
    );
    for (name, a) in &first {
        let b = &second[name];
        // A generated sequence's inputs are the seed's; its verdict may also rest on what it
        // reads of the items other trials left (a list's first page), and which trials ran
        // before it is the scheduler's: its inputs are compared, not its verdict. So for the
        // relations, which walk whole lists other trials add to (the contacts among them).
        let same = if name.starts_with("latest.sequences.") || name.starts_with("latest.relations.")
        {
            a.1 == b.1
        } else {
            a == b
        };
        if !same {
            let diff: Vec<_> =
                a.1.iter()
                    .zip(&b.1)
                    .filter(|(x, y)| x != y)
                    .take(2)
                    .collect();
            panic!(
                "{name} differs: {} vs {}; {} vs {} inputs; first differences {diff:?}",
                a.0,
                b.0,
                a.1.len(),
                b.1.len()
            );
        }
    }
    let other = inputs_and_verdicts(43);
    assert_ne!(first, other, "another seed should draw other inputs");
}
