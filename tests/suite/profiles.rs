//! A fixture means what its documentation says, and no more (READINGS 6.11): the reference under
//! each profile variant (a profile that takes fixtures at the weakest reading their rows in
//! `docs/profile.md` allow, with the state of the reference that makes that reading true) fails
//! no trial, and every trial it cannot run is ignored with its reason. And what the suite sends
//! where it must be accepted holds to what every conforming target takes (READINGS 6.10).

use std::collections::BTreeSet;

use conformance_reference::{FaultSet, PROFILE_VARIANTS, Variant, VariantSet};
use conformance_suite::results::Verdict;
use serde_json::Value;
use workspace_conformance::app::{Certification, certify as certify_with, new_run_id};

use crate::common;

#[test]
fn each_profile_variant_fails_nothing_and_ignores_only_with_a_reason() {
    let (contract, cases) = common::catalog();
    let rt = common::runtime();
    let broken = common::in_parallel(PROFILE_VARIANTS, |v| {
        let results = rt
            .block_on(certify_with(
                contract.clone(),
                &cases,
                Certification::reference(FaultSet::default(), VariantSet::new([v.variant]))
                    .seed(3)
                    .run_id(&new_run_id()),
            ))
            .expect("run");
        let mut out = Vec::new();
        if results.len() != cases.len() {
            out.push(format!(
                "{}: {} trials ran of {}",
                v.name,
                results.len(),
                cases.len()
            ));
        }
        let failed = common::failure_report(&results);
        if !failed.is_empty() {
            out.push(format!("profile variant {}:\n{failed}", v.name));
        }
        let reasons: Vec<&str> = results
            .iter()
            .filter_map(|(_, r)| match &r.verdict {
                Verdict::Ignored(why) => Some(why.as_str()),
                _ => None,
            })
            .collect();
        if reasons.iter().any(|r| r.trim().is_empty()) {
            out.push(format!("{}: a trial ignored without a reason", v.name));
        }
        // Each variant takes something at its weakest reading that the run must meet: the
        // trials it cannot run are ignored for that, and only for that.
        let expected: &[&str] = match v.variant {
            Variant::OwnWorkspaceKeys => &["whose subscription has expired"],
            Variant::NoFixtures => &["the profile has no fixture"],
            _ => &[],
        };
        for r in &reasons {
            if !expected.iter().any(|e| r.contains(e)) {
                out.push(format!("{}: ignored for another reason: {r}", v.name));
            }
        }
        if !expected.is_empty() && reasons.is_empty() {
            out.push(format!("{}: no trial ignored for {expected:?}", v.name));
        }
        out
    });
    assert!(
        broken.is_empty(),
        "profile variants a check fails or ignores wrongly:\n{}",
        broken.join("\n")
    );
}

/// The run's own key given as `international_disabled_api_key` and
/// `subscription_expired_api_key`, against a reference whose own workspace has international
/// messaging disabled and serves reads under an expired subscription: over 20 seeds, nothing the
/// seed draws (random sequences, relations, boundary inputs) fails. The trials the seed does
/// not change run under the first test.
#[test]
fn the_run_s_own_key_in_every_key_role_fails_nothing_over_20_seeds() {
    let (contract, cases) = common::catalog();
    let drawn: Vec<_> = cases
        .iter()
        .filter(|c| c.property.is_some())
        .cloned()
        .collect();
    assert!(
        drawn
            .iter()
            .any(|c| c.name.starts_with("latest.sequences."))
    );
    let rt = common::runtime();
    let seeds: Vec<u64> = (1..=20).collect();
    let broken = common::in_parallel(&seeds, |seed| {
        let results = rt
            .block_on(certify_with(
                contract.clone(),
                &drawn,
                Certification::reference(
                    FaultSet::default(),
                    VariantSet::new([Variant::OwnWorkspaceKeys]),
                )
                .seed(*seed)
                .run_id(&new_run_id()),
            ))
            .expect("run");
        let failed = common::failure_report(&results);
        if failed.is_empty() {
            Vec::new()
        } else {
            vec![format!("--seed {seed}:\n{failed}")]
        }
    });
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

/// A link (`sourceUrl`, a webhook's `url`) that is no absolute URI goes out only where a refusal
/// is the answer: the clean reference, which takes any valid value whatever its syntax, refused
/// every such request, so none of them was one that must be accepted (READINGS 6.10).
#[test]
fn no_request_that_must_be_accepted_sends_a_link_that_is_not_a_uri() {
    let (contract, cases) = common::catalog();
    let results = common::certify(
        &common::runtime(),
        &contract,
        &cases,
        FaultSet::default(),
        VariantSet::default(),
    );
    let uri = regex::Regex::new(r"^https?://[!-~]+$").expect("regex");
    let mut links = 0;
    let mut accepted = BTreeSet::new();
    for (case, r) in &results {
        for ex in &r.exchanges {
            let Some(body) = ex
                .request_body
                .as_deref()
                .and_then(|b| serde_json::from_str::<Value>(b).ok())
            else {
                continue;
            };
            let status = ex.outcome.as_ref().map(|r| r.status).unwrap_or(0);
            for value in links_in(&body) {
                links += 1;
                if !uri.is_match(&value) && !(400..500).contains(&status) {
                    accepted.insert(format!("{} {} {value:?} -> {status}", case.name, ex.path));
                }
            }
        }
    }
    assert!(links > 50, "only {links} links sent");
    assert!(
        accepted.is_empty(),
        "links that are no absolute URI, sent where they were accepted:\n{}",
        accepted.into_iter().collect::<Vec<_>>().join("\n")
    );
}

/// The values of every `sourceUrl` and `url` field of a body, at any depth.
fn links_in(v: &Value) -> Vec<String> {
    match v {
        Value::Object(m) => m
            .iter()
            .flat_map(|(k, v)| match (k.as_str(), v) {
                ("sourceUrl" | "url", Value::String(s)) => vec![s.clone()],
                _ => links_in(v),
            })
            .collect(),
        Value::Array(items) => items.iter().flat_map(links_in).collect(),
        _ => Vec::new(),
    }
}

/// Every fixture the suite's code or case files read has its row in `docs/profile.md`, with what
/// the suite relies on and how it checks it: a name the code reads that is no fixture of the
/// table (other than the run's own variables) fails, and so does a row without that column.
#[test]
fn every_fixture_the_code_reads_has_its_row_with_what_the_suite_relies_on() {
    use crate::common::sources;
    let doc = sources::read(std::path::Path::new("docs/profile.md"));
    let rows: std::collections::BTreeMap<String, String> = doc
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split(" | ").collect();
            let name = cells.first()?.strip_prefix("| `")?.strip_suffix('`')?;
            (cells.len() == 5).then(|| {
                (
                    name.to_string(),
                    cells[4].trim_end_matches(" |").trim().to_string(),
                )
            })
        })
        .collect();
    assert!(rows.len() > 40, "{} rows in docs/profile.md", rows.len());
    // What a run sets besides the profile's fixtures.
    const RUN_VARIABLES: [&str; 2] = ["run", "webhook_url"];
    let read = regex::Regex::new(
        r#"(?:fixtures\.get|fixtures\.contains_key|\.text|vars\.get|\.seconds|\bfixture)\(\s*"([a-z][a-z0-9_]*)""#,
    )
    .expect("regex");
    let template = regex::Regex::new(r"\{\{([a-z][a-z0-9_]*)\}\}").expect("regex");
    let key_literal = regex::Regex::new(r#""([a-z_]+_api_key)""#).expect("regex");
    let known: BTreeSet<&str> = conformance_contract::profile::KNOWN_FIXTURES
        .iter()
        .map(|(n, _)| *n)
        .collect();
    let mut read_names: BTreeSet<(String, String)> = BTreeSet::new();
    for file in sources::rust_files("crates/suite/src") {
        let text = sources::read(&file);
        for c in read.captures_iter(&text) {
            read_names.insert((c[1].to_string(), sources::shown(&file)));
        }
        // The key fixtures a run compares (`workspaces::KEY_FIXTURES`, the sequences' foreign
        // keys, the preflight's extra keys) are named as string literals.
        for name in key_literal.captures_iter(&text) {
            read_names.insert((name[1].to_string(), sources::shown(&file)));
        }
    }
    let mut yaml: Vec<std::path::PathBuf> = ["cases/v1", "cases/latest"]
        .iter()
        .flat_map(|d| std::fs::read_dir(sources::root().join(d)).expect("a cases folder"))
        .map(|e| e.expect("an entry").path())
        .collect();
    yaml.push(sources::root().join("crates/suite/src/cases/setups.yaml"));
    yaml.push(sources::root().join("schemas/openapi.yaml"));
    for file in yaml {
        let text = sources::read(&file);
        for c in template.captures_iter(&text) {
            // Names a step saves are the case's own; only the profile's are rows.
            if known.contains(&c[1]) {
                read_names.insert((c[1].to_string(), sources::shown(&file)));
            }
        }
    }
    let mut missing = Vec::new();
    for (name, file) in &read_names {
        if RUN_VARIABLES.contains(&name.as_str()) {
            continue;
        }
        match rows.get(name) {
            Some(relies) if !relies.is_empty() => {}
            Some(_) => missing.push(format!(
                "{name} ({file}): its row says nothing in the last column"
            )),
            None => missing.push(format!("{name} ({file}): no row in docs/profile.md")),
        }
    }
    assert!(
        read_names.len() > 40,
        "{} fixture reads found: the scan no longer sees the code",
        read_names.len()
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
