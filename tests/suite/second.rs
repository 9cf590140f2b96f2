//! The suite against a second implementation of the contract (`crates/second`), written blind
//! from `contract/API.md`, `contract/READINGS.md` and a brief by authors who never read the
//! suite or its reference, taking other choices wherever the contract is open: a check that
//! fails it stands only where a clause decides against it (DESIGN, principle 19).

use conformance_contract::profile::Profile;
use conformance_suite::results::Verdict;
use workspace_conformance::app::{Certification, certify as certify_with, new_run_id};

use crate::common;

/// A fresh instance and the profile its documentation asks for, read as a user's file is.
async fn start() -> (second_implementation::Running, Profile) {
    let running = second_implementation::start(Default::default())
        .await
        .expect("the second implementation starts");
    let dir = std::env::temp_dir().join(format!("second-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(format!("{}.json", running.addr.port()));
    std::fs::write(&path, &running.profile).expect("profile written");
    let profile = Profile::load(&path).unwrap_or_else(|e| panic!("its profile: {e}"));
    let _ = std::fs::remove_file(&path);
    (running, profile)
}

/// Instances certified side by side, each by its own seeds one after another (a run against
/// this implementation waits on its asynchronous deliveries much of its time).
const LANES: u64 = 2;

/// The default run, seeds 1 to 20 (`SECOND_SEEDS` sets how many), one after another against
/// each of two served instances: no failed trial, and every trial it cannot run is ignored with
/// a reason.
#[test]
fn the_default_run_against_the_second_implementation_fails_nothing_over_20_seeds() {
    let (contract, cases) = common::catalog();
    let rt = common::runtime();
    let seeds: u64 = std::env::var("SECOND_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let lanes = (0..LANES).map(|lane| {
        let (contract, cases) = (contract.clone(), cases.clone());
        async move {
            let (running, profile) = start().await;
            let mut broken = Vec::new();
            for seed in (1..=seeds).filter(|s| s % LANES == lane) {
                let results = certify_with(
                    contract.clone(),
                    &cases,
                    Certification::target(&running.base_url(), profile.clone())
                        .seed(seed)
                        .run_id(&new_run_id()),
                )
                .await
                .expect("run");
                let failed = common::failure_report(&results);
                if !failed.is_empty() {
                    broken.push(format!("seed {seed}:\n{failed}"));
                }
                for (case, r) in &results {
                    if let Verdict::Ignored(why) = &r.verdict {
                        if why.trim().is_empty() {
                            broken.push(format!(
                                "seed {seed}: {} ignored without a reason",
                                case.name
                            ));
                        }
                    }
                }
            }
            running.stop().await;
            broken
        }
    });
    let broken: Vec<String> = rt
        .block_on(futures_util::future::join_all(lanes))
        .into_iter()
        .flatten()
        .collect();
    assert!(
        broken.is_empty(),
        "the suite fails the second implementation:\n{}",
        broken.join("\n")
    );
}

/// Every operation of the route table is one the second implementation serves: each sent with
/// the run's key (ids made up, a member of the set where a path parameter takes a closed set)
/// meets a route of its own, never the answer of a path or method it does not serve (405, or the
/// 404 of its fallback, which says "No route serves").
#[test]
fn the_second_implementation_serves_every_operation_of_the_route_table() {
    let (contract, _) = common::catalog();
    let rt = common::runtime();
    let (running, profile) = rt.block_on(start());
    let key = profile.api_key.clone().expect("its profile gives the key");
    let client = reqwest::Client::new();
    let mut unserved = Vec::new();
    for route in &contract.routes {
        let path: String = route
            .template
            .split('/')
            .map(|s| match s {
                "{kind}" => "messages",
                "{webhookId}" => "987654321",
                s if s.starts_with('{') => "ZZ0000",
                s => s,
            })
            .collect::<Vec<_>>()
            .join("/");
        let method = reqwest::Method::from_bytes(route.method.as_bytes()).expect("method");
        let mut req = client
            .request(method, format!("{}{path}", running.base_url()))
            .header("Authorization", &key)
            .header("Service-Api-Version", "2026-03-30");
        if route.method != "GET" && route.method != "DELETE" {
            req = req.json(&serde_json::json!({}));
        }
        let resp = rt.block_on(req.send()).expect("answer");
        let status = resp.status().as_u16();
        let body = rt.block_on(resp.text()).unwrap_or_default();
        if status == 405 || (status == 404 && body.contains("No route serves")) {
            unserved.push(format!("{} {} ({status})", route.method, route.template));
        }
    }
    rt.block_on(running.stop());
    assert_eq!(
        contract.routes.len(),
        59,
        "the route table has 59 operations"
    );
    assert!(unserved.is_empty(), "not served: {unserved:#?}");
}

/// Its documentation lists its choices on open points, one line each (the brief asks for them),
/// and the decisions where the suite and it disagreed, each with the clause that decided.
#[test]
fn the_second_implementation_lists_its_choices_and_the_decisions() {
    let choices = [
        include_str!("../../crates/second/choices/core.md"),
        include_str!("../../crates/second/choices/contacts-tasks.md"),
        include_str!("../../crates/second/choices/messaging-calls.md"),
        include_str!("../../crates/second/choices/webhooks.md"),
    ];
    let lines = |text: &str| text.lines().filter(|l| l.starts_with("- **")).count();
    let total: usize = choices.iter().map(|c| lines(c)).sum();
    assert!(total >= 40, "{total} choices listed, fewer than 40");
    let decisions = include_str!("../../crates/second/choices/decisions.md");
    assert!(lines(decisions) >= 1, "no decision recorded");
    let lib = include_str!("../../crates/second/src/lib.rs");
    for f in [
        "core",
        "contacts-tasks",
        "messaging-calls",
        "webhooks",
        "decisions",
    ] {
        assert!(
            lib.contains(&format!("include_str!(\"../choices/{f}.md\")")),
            "the crate's documentation leaves out choices/{f}.md"
        );
    }
}
