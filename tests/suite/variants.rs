//! No check fails where the contract is open: the reference with any variant on, alone or all
//! together, passes every case; and faults and variants compose: every fault is still caught
//! with all variants on.

use crate::common;

use conformance_reference::{FaultSet, VARIANTS, VariantSet};
use workspace_conformance::app::{Certification, certify as certify_with, new_run_id};

#[test]
fn the_variant_catalog_has_the_size_the_readme_gives_each_with_a_reading() {
    // Not a floor: the README states the catalog's size, and a variant added or removed must
    // change that sentence too.
    let demanding = VARIANTS.iter().filter(|v| v.variant.demanding()).count();
    let sentence = format!(
        "{} variants in all, {} of what a target may answer and {} of what it may demand",
        VARIANTS.len(),
        VARIANTS.len() - demanding,
        demanding
    );
    assert!(
        concat!(
            include_str!("../../README.md"),
            include_str!("../../docs/running.md"),
            include_str!("../../docs/reports.md"),
            include_str!("../../docs/profile.md"),
            include_str!("../../docs/reference.md"),
            include_str!("../../docs/writing-cases.md"),
            include_str!("../../docs/self-proof.md")
        )
        .contains(&sentence),
        "the README or a docs/ page should say: {sentence}"
    );
    let readings = include_str!("../../contract/READINGS.md");
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
        demanding.len() >= 10,
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
        "external-id-conflict-409",
        "contract-strict",
        "issued-ids-only",
    ] {
        assert!(
            demanding.iter().any(|d| d.name == v),
            "demanding variant {v} missing"
        );
    }
}

#[test]
fn every_reading_of_the_demanding_family_has_a_fault_of_what_the_suite_sends() {
    // Issue 15: for each family (a reading of what a target may demand), a fault that a suite
    // sending the wrong request would miss; `every_fault_is_still_caught_with_all_variants_on`
    // then proves each caught with every variant on.
    use conformance_reference::CATALOG;
    let covered: std::collections::BTreeSet<&str> = CATALOG
        .iter()
        .filter_map(|f| f.fault.family())
        .map(|(v, _)| v.info().reading)
        .collect();
    let missing: Vec<String> = VARIANTS
        .iter()
        .filter(|v| v.variant.demanding() && !covered.contains(v.reading))
        .map(|v| format!("{} (READINGS {})", v.name, v.reading))
        .collect();
    assert!(missing.is_empty(), "families without a fault: {missing:?}");
    let faults = CATALOG
        .iter()
        .filter(|f| f.fault.family().is_some())
        .count();
    assert!(faults >= 8, "only {faults} faults of what the suite sends");
}

#[test]
fn each_variant_alone_fails_no_case() {
    let (contract, cases) = common::catalog();
    let rt = common::runtime();
    let broken = common::in_parallel(VARIANTS, |v| {
        // Under one seed: the random sequences draw the same steps against every variant.
        let results = rt
            .block_on(certify_with(
                contract.clone(),
                &cases,
                Certification::reference(FaultSet::default(), VariantSet::new([v.variant]))
                    .seed(ONE_SEED)
                    .run_id(&new_run_id()),
            ))
            .expect("run");
        let failed = common::failure_report(&results);
        // Every trial of the default run ran: none failed, none ignored, none missing.
        let mut out = common::incomplete(&format!("variant {}", v.name), &cases, &results);
        if !failed.is_empty() {
            out.push(format!(
                "variant {} (READINGS {}, --seed {ONE_SEED}):\n{failed}",
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

/// The seed of the variants' runs one by one.
const ONE_SEED: u64 = 7;

/// The random sequences and the relations, with every variant on, over 20 seeds: 0 failed,
/// 0 ignored. Each seed draws other steps, inputs and orders; a check of the model that holds
/// only for the reference's own choices fails one of them.
#[test]
fn random_sequences_pass_with_every_variant_over_20_seeds() {
    let (contract, cases) = common::catalog();
    let random: Vec<_> = cases
        .iter()
        .filter(|c| {
            c.name.starts_with("latest.sequences.") || c.name.starts_with("latest.relations.")
        })
        .cloned()
        .collect();
    assert!(random.len() >= 5, "{} random trials", random.len());
    let rt = common::runtime();
    let seeds: Vec<u64> = (1..=20).collect();
    let broken = common::in_parallel(&seeds, |seed| {
        let results = rt
            .block_on(certify_with(
                contract.clone(),
                &random,
                Certification::reference(FaultSet::default(), VariantSet::all())
                    .seed(*seed)
                    .run_id(&new_run_id()),
            ))
            .expect("run");
        let mut out = common::incomplete(&format!("--seed {seed}"), &random, &results);
        let failed = common::failure_report(&results);
        if !failed.is_empty() {
            out.push(format!("--seed {seed} with every variant:\n{failed}"));
        }
        out
    });
    assert!(
        broken.is_empty(),
        "random sequences that fail a conforming target:\n{}",
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
    let incomplete = common::incomplete("all variants", &cases, &results);
    assert!(incomplete.is_empty(), "{}", incomplete.join("\n"));
    let failed = common::failure_report(&results);
    assert!(
        failed.is_empty(),
        "checks that fail with every variant on:\n{failed}"
    );
}

#[test]
fn every_fault_is_still_caught_with_all_variants_on() {
    // Caught as the self-test requires (a check citing the fault's clause; a property for a
    // boundary fault), by a trial the record names for the fault.
    // Each fault's run holds the trials the record names for it with its own clause: what this
    // test reads (the self-test runs every trial per fault and holds the whole record).
    let (contract, cases) = common::catalog();
    let record = common::catches::Record::read().unwrap_or_else(|e| panic!("{e}"));
    let named = |fault: &str| -> std::collections::BTreeSet<String> {
        let clause = conformance_reference::CATALOG
            .iter()
            .find(|i| i.name == fault)
            .map(|i| i.clause)
            .unwrap_or_default();
        record
            .always
            .iter()
            .chain(&record.sometimes)
            .filter(|c| c.fault == fault && c.clause == clause)
            .map(|c| c.trial.clone())
            .collect()
    };
    let rt = common::runtime();
    let mut runs = common::fault_runs(
        conformance_reference::CATALOG,
        &rt,
        &contract,
        &cases,
        &VariantSet::all(),
        Some(&named),
    );
    // What keeps a fault's run from counting: its problems, or no catch by a recorded trial.
    let shortfall = |runs: &common::FaultRuns, fault: &conformance_reference::FaultInfo| {
        let mut out = runs
            .problems_of
            .get(fault.name)
            .cloned()
            .unwrap_or_default();
        let recorded = |trial: &str| {
            record
                .always
                .iter()
                .chain(&record.sometimes)
                .any(|c| c.fault == fault.name && c.trial == trial && c.clause == fault.clause)
        };
        let caught = runs.catches_of(fault.name);
        if !caught
            .iter()
            .any(|c| c.clause == fault.clause && recorded(&c.trial))
        {
            let seen: Vec<String> = caught
                .iter()
                .filter(|c| c.clause == fault.clause)
                .map(|c| c.trial.clone())
                .collect();
            out.push(format!(
                "{} ({}) is caught with every variant on by no trial the record names for it (caught by {seen:?})",
                fault.name, fault.clause
            ));
        }
        out
    };
    // A run that falls short runs again, as in the self-test.
    for _ in 0..common::RERUNS {
        let short: Vec<conformance_reference::FaultInfo> = conformance_reference::CATALOG
            .iter()
            .filter(|f| !shortfall(&runs, f).is_empty())
            .copied()
            .collect();
        if short.is_empty() {
            break;
        }
        let again = common::fault_runs(
            &short,
            &rt,
            &contract,
            &cases,
            &VariantSet::all(),
            Some(&named),
        );
        for f in &short {
            if shortfall(&again, f).is_empty() {
                eprintln!("fault {}: caught as required when run again", f.name);
                runs.take_fault(f.name, &again);
            }
        }
    }
    let problems: Vec<String> = conformance_reference::CATALOG
        .iter()
        .flat_map(|f| shortfall(&runs, f))
        .collect();
    assert!(
        problems.is_empty(),
        "faults hidden by the variants:\n{}",
        problems.join("\n")
    );
}

/// Variant `in-flight-reversed` does reverse (READINGS 7.2): of two webhook creates in flight at
/// once, the later one is made first (webhook ids count up); one at a time, they keep their order.
#[test]
fn in_flight_reversed_makes_the_later_of_two_changes_first() {
    use conformance_reference::{Options, Variant, start};
    let rt = common::runtime();
    let ids = |variants: Vec<Variant>| {
        rt.block_on(async {
            let running = start(Options {
                variants: VariantSet::new(variants),
                ..Options::default()
            })
            .await
            .expect("reference");
            let client = reqwest::Client::new();
            let key = running.profile.api_key.clone().expect("key");
            let create = |label: &'static str| {
                client
                    .post(format!("{}/webhooks", running.base_url()))
                    .header("Authorization", key.clone())
                    .header("Service-Api-Version", "2026-03-30")
                    .json(&serde_json::json!({
                        "label": label, "url": "https://hooks.example.test/r",
                        "events": ["call.completed"], "resourceIds": ["*"]
                    }))
                    .send()
            };
            let first = create("first");
            let second = async {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                create("second").await
            };
            let (a, b) = tokio::join!(first, second);
            let id = |r: reqwest::Response| async move {
                let v: serde_json::Value = r.json().await.expect("json");
                let id = &v["data"]["id"];
                id.as_u64()
                    .or_else(|| id.as_str().and_then(|s| s.parse().ok()))
                    .expect("a numeric id")
            };
            (id(a.expect("answer")).await, id(b.expect("answer")).await)
        })
    };
    let (first, second) = ids(vec![Variant::InFlightReversed]);
    assert!(
        second < first,
        "the later create was not made first: {first}, {second}"
    );
    let (first, second) = ids(vec![]);
    assert!(
        first < second,
        "by default they are made in order: {first}, {second}"
    );
}

/// Status of one request to a reference with `variants` on; `key`: send the profile's API key.
async fn status_with(
    variants: &[conformance_reference::Variant],
    method: &str,
    path_and_query: &str,
    body: Option<(&str, &str)>,
    key: bool,
) -> u16 {
    use conformance_reference::{Options, start};
    let running = start(Options {
        variants: VariantSet::new(variants.iter().copied()),
        ..Options::default()
    })
    .await
    .expect("reference");
    let client = reqwest::Client::new();
    let mut req = client.request(
        method.parse().expect("method"),
        format!("{}{path_and_query}", running.base_url()),
    );
    if key {
        req = req.header(
            "Authorization",
            running.profile.api_key.clone().expect("key"),
        );
    }
    if !path_and_query.starts_with("/v1") {
        req = req.header("Service-Api-Version", "2026-03-30");
    }
    if let Some((content_type, text)) = body {
        req = req
            .header("Content-Type", content_type)
            .body(text.to_string());
    }
    req.send().await.expect("answer").status().as_u16()
}

/// A request a demanding variant refuses: the variant, method, path, (content type, body),
/// whether it carries the key, and the status the variant answers (the default answers another).
type Probe<'a> = (
    conformance_reference::Variant,
    &'a str,
    String,
    Option<(&'a str, &'a str)>,
    bool,
    u16,
);

#[test]
fn each_demanding_variant_refuses_what_the_default_accepts() {
    // The variants are not idle: each refuses (or routes away) a request the default reference
    // takes, so "0 failed with the variant" says the suite no longer sends that request.
    use conformance_reference::Variant as V;
    let rt = common::runtime();
    let json = "application/json";
    let pn = "PNq7R2s9T4u1";
    let probes: Vec<Probe> = vec![
        (
            V::RequireDefaultFields,
            "POST",
            "/v1/contacts".into(),
            Some((json, r#"{"externalId":"rprobe01-a"}"#)),
            true,
            400,
        ),
        (
            V::RequireListFilters,
            "GET",
            format!("/v1/messages?phoneNumberId={pn}&maxResults=10"),
            None,
            true,
            400,
        ),
        (
            V::UnknownResources404,
            "GET",
            "/v1/conversations?phoneNumbers=%2B14155550111&maxResults=10".into(),
            None,
            true,
            404,
        ),
        (
            V::RouteBeforeAuth,
            "POST",
            "/v1/webhooks/rprobe01".into(),
            Some((json, "{}")),
            false,
            404,
        ),
        (
            V::UnknownFields400,
            "POST",
            "/v1/contacts".into(),
            Some((json, r#"{"defaultFields":{"firstName":"A"},"bogus":1}"#)),
            true,
            400,
        ),
        (
            V::JsonBody415,
            "POST",
            "/v1/contacts".into(),
            Some(("text/plain", r#"{"defaultFields":{"firstName":"A"}}"#)),
            true,
            415,
        ),
        (
            V::ContractStrict,
            "GET",
            "/v1/tasks?maxResults=100".into(),
            None,
            true,
            400,
        ),
        // The stated prefix of a path parameter, checked before the key.
        (
            V::ContractStrict,
            "GET",
            "/v1/calls/rprobe01".into(),
            None,
            false,
            400,
        ),
        (
            V::IssuedIdsOnly,
            "GET",
            "/v1/tasks/rprobe01-no-such-task".into(),
            None,
            false,
            404,
        ),
        // A filter value of a domain the contract does not give, in another letter case than
        // any the target showed (READINGS 6.12).
        (
            V::UnstatedRefused,
            "GET",
            "/calls?status=COMPLETED&maxResults=10".into(),
            None,
            true,
            400,
        ),
        (
            V::MessageTextContent,
            "POST",
            "/v1/messages".into(),
            Some((
                json,
                r#"{"to":["+14155550104"],"from":"+14155550100","text":"hi"}"#,
            )),
            true,
            400,
        ),
    ];
    for (v, method, path, body, key, refused) in probes {
        let default = rt.block_on(status_with(&[], method, &path, body, key));
        let demanding = rt.block_on(status_with(&[v], method, &path, body, key));
        assert_eq!(demanding, refused, "{v:?}: {method} {path}");
        assert_ne!(
            default, refused,
            "{v:?}: the default reference refuses it too"
        );
    }
    // Trimming: a participant with a trailing space is refused by default, read once trimmed.
    let path =
        format!("/v1/messages?phoneNumberId={pn}&participants=%2B14155550101%20&maxResults=10");
    assert_eq!(rt.block_on(status_with(&[], "GET", &path, None, true)), 400);
    assert_eq!(
        rt.block_on(status_with(&[V::TrimWhitespace], "GET", &path, None, true)),
        200
    );
    // Profile lists at the other end of their range.
    let ten = rt.block_on(async {
        conformance_reference::start(conformance_reference::Options {
            variants: VariantSet::new([V::GroupRecipients10]),
            ..Default::default()
        })
        .await
        .expect("reference")
        .profile
        .fixtures["sandbox_group_recipient_numbers"]
            .as_array()
            .map(Vec::len)
    });
    assert_eq!(ten, Some(10));
    // A second contact with an externalId in use: 201 by default, 409 when the target keeps
    // externalIds unique.
    let second = |variants: Vec<V>| {
        rt.block_on(async {
            use conformance_reference::{Options, start};
            let running = start(Options {
                variants: VariantSet::new(variants),
                ..Options::default()
            })
            .await
            .expect("reference");
            let client = reqwest::Client::new();
            let mut last = 0;
            for _ in 0..2 {
                last = client
                    .post(format!("{}/v1/contacts", running.base_url()))
                    .header(
                        "Authorization",
                        running.profile.api_key.clone().expect("key"),
                    )
                    .header("Content-Type", json)
                    .body(r#"{"defaultFields":{"firstName":"A"},"externalId":"rprobe01-twice"}"#)
                    .send()
                    .await
                    .expect("answer")
                    .status()
                    .as_u16();
            }
            last
        })
    };
    assert_eq!(second(vec![]), 201);
    assert_eq!(second(vec![V::ExternalIdConflict409]), 409);
}
