//! Discovery (issue 17): against the reference it finds every fixture the API can show, and the
//! run with what it found has the verdicts of the run with `serve --profile-out`; against a
//! target that lacks fixtures it invents none and says why; it sends only GET, bounded by
//! `--timeout` per request; the command writes a profile `--profile` reads and keeps what a
//! hand-written profile holds.

use crate::common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use conformance_contract::profile::{KNOWN_FIXTURES, Profile};
use conformance_reference::{self as reference, VariantSet};
use conformance_suite::catalog;
use conformance_suite::client::Redactor;
use conformance_suite::discover::{DISCOVERABLE, Discovery, Limits, Outcome, discover};
use conformance_suite::results::Verdict;
use serde_json::{Value, json};
use workspace_conformance::app::{Certification, certify, client_for};

use crate::common::binary;

/// The profile `serve --profile-out` writes, cut down to what discovery cannot find: the
/// fixtures a person gives by hand.
fn by_hand(full: &Profile) -> Profile {
    let mut p = full.clone();
    p.fixtures
        .retain(|k, _| !DISCOVERABLE.contains(&k.as_str()));
    p
}

async fn discover_at(base: &str, profile: &Profile, timeout: Duration) -> Discovery {
    let client = client_for(
        base,
        profile.api_key.clone(),
        profile,
        timeout,
        8 << 20,
        None,
    )
    .expect("client");
    discover(
        &client,
        profile,
        Some("hand.json".into()),
        Limits::default(),
        &|_| {},
    )
    .await
}

fn not_found(d: &Discovery) -> BTreeSet<String> {
    d.entries
        .iter()
        .filter(|(_, e)| {
            matches!(
                e.outcome,
                Outcome::NotFound { .. } | Outcome::Undiscoverable { .. }
            )
        })
        .map(|(n, _)| n.clone())
        .collect()
}

fn counts(
    results: &[(
        Arc<conformance_suite::cases::Case>,
        conformance_suite::results::CaseResult,
    )],
) -> (usize, usize, usize) {
    let mut c = (0, 0, 0);
    for (_, r) in results {
        match r.verdict {
            Verdict::Passed => c.0 += 1,
            Verdict::Failed(_) => c.1 += 1,
            Verdict::Ignored(_) => c.2 += 1,
        }
    }
    c
}

/// Against `serve` (default, and every variant on): discovery, given by hand only what it cannot
/// find, finds every fixture the API shows, within its bounds; the run with its profile has the
/// passed/failed/ignored counts of the run with `--profile-out`.
#[test]
fn against_the_reference_discovery_finds_what_the_api_shows_and_certifies_alike() {
    let rt = common::runtime();
    let (contract, cases) = catalog::load(None).expect("catalog");
    // What a target answering only required fields (optional-fields-absent, in `all`) no
    // longer shows: a message's direction, a custom field's type, a call's or a conversation's
    // participants.
    let hidden_by_all = [
        "custom_field_multi_key",
        "message_direction",
        "call_participant",
        "sandbox_conversation_participant",
    ];
    for (label, variants) in [
        ("default", VariantSet::default()),
        ("all", VariantSet::all()),
    ] {
        let running = rt
            .block_on(reference::start(reference::Options {
                variants: variants.clone(),
                ..Default::default()
            }))
            .expect("reference");
        let base = running.base_url();
        let full = running.profile.clone();
        let hand = by_hand(&full);
        let started = Instant::now();
        let d = rt.block_on(discover_at(&base, &hand, Duration::from_secs(10)));
        let took = started.elapsed();
        assert!(
            took < Duration::from_secs(60),
            "{label}: discovery took {took:?}"
        );
        assert!(
            d.requests <= Limits::default().max_requests,
            "{label}: {} requests",
            d.requests
        );
        let expected: BTreeSet<String> = DISCOVERABLE
            .iter()
            .filter(|n| label == "default" || !hidden_by_all.contains(n))
            .map(|n| n.to_string())
            .collect();
        let found: BTreeSet<String> = d.found().keys().cloned().collect();
        assert_eq!(found, expected, "{label}: fixtures found");
        // What is given is kept, and nothing else is missing than what the API does not show.
        for name in hand.fixtures.keys() {
            assert_eq!(d.entries[name].outcome, Outcome::Given, "{label}: {name}");
        }
        let missing: BTreeSet<String> = not_found(&d);
        let want_missing: BTreeSet<String> = KNOWN_FIXTURES
            .iter()
            .map(|(n, _)| n.to_string())
            .filter(|n| !hand.fixtures.contains_key(n) && !expected.contains(n))
            .collect();
        assert_eq!(missing, want_missing, "{label}: fixtures not found");
        // Values the reference's own profile names the same way are found the same.
        for name in [
            "user_id",
            "phone_number_id",
            "phone_number",
            "call_id",
            "voicemail_call_id",
            "undelivered_message_id",
            "group_conversation_id",
        ] {
            assert_eq!(
                d.found().get(name),
                full.fixtures.get(name),
                "{label}: {name}"
            );
        }
        // The profile written is one --profile reads.
        let dir = binary::temp_dir(&format!("reference-{label}"));
        let path = dir.join("found.json");
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&d.profile()).expect("json"),
        )
        .expect("write");
        let read = Profile::load(&path).expect("the written profile loads");
        assert_eq!(read, d.profile());
        // The run with what was found (the rest from --profile-out) and with --profile-out.
        let mut profile = d.profile();
        for (k, v) in &full.fixtures {
            profile
                .fixtures
                .entry(k.clone())
                .or_insert_with(|| v.clone());
        }
        profile.request_fields = full.request_fields.clone();
        let found_run = rt
            .block_on(certify(
                contract.clone(),
                &cases,
                Certification::target(&base, profile)
                    .seed(7)
                    .missing_reasons(d.missing_reasons()),
            ))
            .expect("run");
        drop(running);
        let fresh = rt
            .block_on(reference::start(reference::Options {
                variants,
                ..Default::default()
            }))
            .expect("reference");
        let out_run = rt
            .block_on(certify(
                contract.clone(),
                &cases,
                Certification::target(&fresh.base_url(), fresh.profile.clone()).seed(7),
            ))
            .expect("run");
        drop(fresh);
        assert_eq!(
            counts(&found_run),
            counts(&out_run),
            "{label}: (passed, failed, ignored) with the discovered profile and with --profile-out"
        );
        assert_eq!(counts(&out_run).1, 0, "{label}: the reference passes");
    }
}

/// Without anything given by hand, the table lists as not found exactly what discovery cannot
/// show, each with its reason, and the certification ignores their cases with those reasons.
#[test]
fn missing_fixtures_are_ignored_with_discoverys_reasons() {
    let rt = common::runtime();
    let (contract, cases) = catalog::load(None).expect("catalog");
    let running = rt
        .block_on(reference::start(reference::Options::default()))
        .expect("reference");
    let key_only = Profile {
        api_key: running.profile.api_key.clone(),
        ..Profile::default()
    };
    let d = rt.block_on(discover_at(
        &running.base_url(),
        &key_only,
        Duration::from_secs(10),
    ));
    let missing = not_found(&d);
    let want: BTreeSet<String> = KNOWN_FIXTURES
        .iter()
        .map(|(n, _)| n.to_string())
        .filter(|n| {
            !DISCOVERABLE.contains(&n.as_str())
                || n == "inactive_conversation_id"
                || n == "sandbox_conversation_participant"
        })
        .collect();
    assert_eq!(missing, want);
    let table = d.table(&Redactor::default());
    let reasons = d.missing_reasons();
    for name in &missing {
        let why = &reasons[name];
        assert!(!why.is_empty());
        assert!(
            table.contains(&format!("  {name}: must hold ")),
            "the table names {name} with what it must hold"
        );
    }
    for secret in running.profile.secret_values() {
        assert!(!table.contains(&secret), "the table shows a key");
    }
    let results = rt
        .block_on(certify(
            contract,
            &cases,
            Certification::target(&running.base_url(), d.profile())
                .seed(3)
                .missing_reasons(reasons.clone()),
        ))
        .expect("run");
    let (passed, failed, ignored) = counts(&results);
    assert_eq!(failed, 0, "nothing fails for want of a fixture");
    assert!(passed > 0 && ignored > 0);
    for (case, r) in &results {
        if let Verdict::Ignored(why) = &r.verdict {
            let named: Vec<&String> = missing
                .iter()
                .filter(|n| why.contains(&format!("`{n}`")))
                .collect();
            assert!(
                !named.is_empty(),
                "{}: ignored for no missing fixture: {why}",
                case.name
            );
            for n in named {
                assert!(
                    why.contains(&reasons[n.as_str()]),
                    "{}: the reason of `{n}` is not discovery's: {why}",
                    case.name
                );
            }
        }
    }
}

/// A small target with one number and one one-to-one conversation: no group conversation, no
/// failed or undelivered message, no media, no call, and a webhook list that never answers in
/// time. It records the method of every request.
async fn small_target(methods: Arc<Mutex<Vec<String>>>) -> String {
    use axum::extract::{Request, State};
    use axum::response::IntoResponse;

    const PN: &str = "PNsmall00001";
    const LINE: &str = "+15550100001";
    const OTHER: &str = "+15550100002";
    fn list(items: Value) -> Value {
        json!({"data": items, "totalItems": 0, "nextPageToken": null})
    }
    let messages = json!([
        {"id": "ACm1", "to": [OTHER], "from": LINE, "conversationId": "CNsmall1", "status": "delivered",
         "direction": "outgoing", "createdAt": "2026-01-10T09:00:00Z", "updatedAt": "2026-01-10T09:00:00Z"},
        {"id": "ACm2", "to": [LINE], "from": OTHER, "conversationId": "CNsmall1", "status": "received",
         "direction": "incoming", "createdAt": "2026-01-12T09:00:00Z", "updatedAt": "2026-01-12T09:00:00Z"}
    ]);
    async fn handle(
        State((methods, messages)): State<(Arc<Mutex<Vec<String>>>, Value)>,
        req: Request,
    ) -> axum::response::Response {
        methods
            .lock()
            .unwrap()
            .push(format!("{} {}", req.method(), req.uri()));
        let path = req.uri().path().to_string();
        let query = req.uri().query().unwrap_or("").to_string();
        let body = match path.as_str() {
            "/phone-numbers" => list(json!([{"id": PN, "phoneNumber": LINE}])),
            "/phone-numbers/PNsmall00001" => json!({"data": {"id": PN, "phoneNumber": LINE}}),
            "/phone-numbers/PNsmall00001/users" => json!({"data": [{"id": "USsmall01"}]}),
            "/phone-numbers/available" | "/calls" | "/v1/contacts" => list(json!([])),
            "/v1/conversations" => list(json!([{"id": "CNsmall1", "participants": [OTHER]}])),
            "/messages" if query.contains("status=") => list(json!([])),
            "/messages" if query.contains("direction=outgoing") => {
                list(json!([messages[0].clone()]))
            }
            "/messages" => list(messages.clone()),
            "/v1/messages" => {
                let one = query.matches("participants=").count() == 1
                    && query.contains("participants=%2B15550100002");
                let items: Vec<Value> = messages
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|m| {
                        one && (!query.contains("createdBefore") || m["id"] == "ACm1")
                            && (!query.contains("createdAfter") || m["id"] == "ACm2")
                    })
                    .cloned()
                    .collect();
                list(json!(items))
            }
            "/webhooks" => {
                // A slow target: bounded by the timeout of each request.
                tokio::time::sleep(Duration::from_secs(5)).await;
                list(json!([]))
            }
            _ => {
                return (axum::http::StatusCode::NOT_FOUND, "{}").into_response();
            }
        };
        (
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response()
    }
    let app = axum::Router::new()
        .fallback(handle)
        .with_state((methods, messages));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

#[test]
fn a_target_without_a_group_or_a_failed_message_gets_none_invented_and_only_gets() {
    let rt = common::runtime();
    let methods = Arc::new(Mutex::new(Vec::new()));
    let base = rt.block_on(small_target(methods.clone()));
    let profile = Profile {
        api_key: Some("small-target-key-0001".into()),
        ..Profile::default()
    };
    let started = Instant::now();
    let d = rt.block_on(discover_at(&base, &profile, Duration::from_millis(500)));
    let took = started.elapsed();
    // The one slow request is cut at the timeout; nothing waits for the 5 s it would take.
    assert!(took < Duration::from_secs(4), "discovery took {took:?}");
    let sent = methods.lock().unwrap().clone();
    assert!(!sent.is_empty());
    assert!(
        sent.iter().all(|r| r.starts_with("GET ")),
        "only GET is sent: {sent:?}"
    );
    assert_eq!(sent.len() as u64, d.requests);
    let found = d.found();
    assert_eq!(found.get("phone_number_id"), Some(&json!("PNsmall00001")));
    assert_eq!(found.get("user_id"), Some(&json!("USsmall01")));
    assert_eq!(
        found.get("message_participant"),
        Some(&json!("+15550100002"))
    );
    assert_eq!(found.get("conversation_id"), Some(&json!("CNsmall1")));
    assert_eq!(found.get("message_direction"), Some(&json!("outgoing")));
    let split = found
        .get("message_time_split")
        .and_then(Value::as_str)
        .expect("a split");
    assert!(split > "2026-01-10T09:00:00Z" && split < "2026-01-12T09:00:00Z");
    for name in [
        "group_participants",
        "group_conversation_id",
        "undelivered_message_id",
        "media_message_id",
        "call_id",
        "call_participant",
        "voicemail_call_id",
        "webhook_id",
        "custom_field_key",
        "other_phone_number_id",
        "available_number_country",
    ] {
        match &d.entries[name].outcome {
            Outcome::NotFound { why } => assert!(!why.is_empty(), "{name}"),
            other => panic!("{name} is invented: {other:?}"),
        }
    }
    let why = |name: &str| match &d.entries[name].outcome {
        Outcome::NotFound { why } => why.clone(),
        _ => String::new(),
    };
    assert!(why("group_participants").contains("no group conversation"));
    assert!(
        why("webhook_id").contains("timeout"),
        "{}",
        why("webhook_id")
    );
    assert!(
        d.entries["sandbox_failed_message_id"]
            .guess
            .as_deref()
            .is_some_and(|g| g.contains("no failed message"))
    );
    assert!(
        !d.profile()
            .fixtures
            .contains_key("sandbox_failed_message_id")
    );
    let table = d.table(&Redactor::default());
    assert!(table.contains("group_participants"));
    assert!(table.contains("not found"));
}

/// The command: writes a profile --profile reads, keeps every value of the hand-written file,
/// prints the table, never shows a key; `--discover` on a run names each fixture's source.
#[test]
fn the_command_keeps_hand_written_values_and_a_run_with_discover_names_sources() {
    let served = binary::serve("discover-cmd", &[]);
    let dir = binary::temp_dir("discover-cmd-files");
    let full: Value =
        serde_json::from_str(&std::fs::read_to_string(&served.profile).expect("profile"))
            .expect("json");
    let key = full["apiKey"].as_str().expect("key").to_string();
    // A hand-written value that discovery would find otherwise: kept.
    let hand = dir.join("hand.json");
    std::fs::write(
        &hand,
        json!({"fixtures": {"webhook_id": "1002", "open_task_limit": 20}}).to_string(),
    )
    .expect("write");
    let out = dir.join("found.json");
    let o = binary::run(&[
        "discover",
        "--target",
        &served.url,
        "--api-key",
        &key,
        "--profile",
        hand.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{stdout}\n{stderr}");
    assert!(!stdout.contains(&key) && !stderr.contains(&key));
    assert!(stdout.contains("webhook_id") && stdout.contains("1002  (from"));
    assert!(stdout.contains("restricted_api_key") && stdout.contains("why: "));
    assert!(stderr.contains("discover [1] GET /phone-numbers"));
    let written = Profile::load(&out).expect("--profile reads it");
    assert_eq!(written.fixtures["webhook_id"], json!("1002"));
    assert_eq!(written.fixtures["open_task_limit"], json!(20));
    assert_eq!(written.fixtures["call_id"], full["fixtures"]["call_id"]);
    assert!(
        written.api_key.is_none(),
        "the key is not written to the file"
    );

    // Bad input: exit 2 with the problem named.
    let o = binary::run(&[
        "discover",
        "--target",
        &served.url,
        "--api-key",
        &key,
        "--timeout",
        "0",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--timeout"));
    let o = binary::run(&["discover", "--target", &served.url, "--out", "x.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no API key"));
    let bad = dir.join("bad.json");
    std::fs::write(&bad, r#"{"fixtures": {"webhook_idd": "1"}}"#).expect("write");
    let o = binary::run(&[
        "discover",
        "--target",
        &served.url,
        "--api-key",
        &key,
        "--profile",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.json") && err.contains("did you mean `webhook_id`"),
        "{err}"
    );
    let o = binary::run(&[
        "discover",
        "--target",
        "http://127.0.0.1:9",
        "--api-key",
        &key,
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("unreachable"));
    // The file written before stays what the first discovery wrote.
    assert_eq!(Profile::load(&out).expect("still there"), written);

    // One command: discovery in memory, then the certification; the JSON names the sources.
    let json_out = dir.join("run.json");
    let html_out = dir.join("run.html");
    let o = binary::run(&[
        "--target",
        &served.url,
        "--api-key",
        &key,
        "--discover",
        "--profile",
        hand.to_str().unwrap(),
        "--area",
        "calls",
        "--json",
        json_out.to_str().unwrap(),
        "--report",
        html_out.to_str().unwrap(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{stdout}");
    assert!(stdout.contains("discovery: "), "{stdout}");
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_out).expect("report")).expect("json");
    let sources = &report["fixtureSources"];
    assert!(
        sources["call_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("discovered: GET "))
    );
    assert!(
        sources["webhook_id"]
            .as_str()
            .is_some_and(|s| s.starts_with("file "))
    );
    assert!(
        report["profile"]
            .as_str()
            .unwrap()
            .ends_with("and discovery")
    );
    assert_eq!(report["totals"]["failed"], 0);
    let o = binary::run(&["--discover", "--area", "calls"]);
    assert_eq!(o.status.code(), Some(2));
}

/// A value of the profile anchors what depends on it: with another number given, discovery
/// searches that number and says where it can only guess (two users: which is the key's?).
#[test]
fn given_values_anchor_discovery_and_guesses_are_not_written() {
    let rt = common::runtime();
    let running = rt
        .block_on(reference::start(reference::Options::default()))
        .expect("reference");
    let shared = "PNs8h4r3d0n2";
    let mut hand = Profile {
        api_key: running.profile.api_key.clone(),
        ..Profile::default()
    };
    hand.fixtures
        .insert("phone_number_id".into(), json!(shared));
    let d = rt.block_on(discover_at(
        &running.base_url(),
        &hand,
        Duration::from_secs(10),
    ));
    assert_eq!(d.entries["phone_number_id"].outcome, Outcome::Given);
    assert_eq!(d.profile().fixtures["phone_number_id"], json!(shared));
    assert_ne!(d.found().get("other_phone_number_id"), Some(&json!(shared)));
    // Both seeded users are on the shared number: no request says which one the key is.
    let user = &d.entries["user_id"];
    assert!(matches!(user.outcome, Outcome::NotFound { .. }), "{user:?}");
    assert!(
        user.guess
            .as_deref()
            .is_some_and(|g| g.contains("USa1B2c3D4e5") && g.contains("USf6G7h8J9k0"))
    );
    assert!(!d.profile().fixtures.contains_key("user_id"));
    // The shared number's calls have no recording: call_id is not taken from another number.
    assert!(matches!(
        d.entries["call_id"].outcome,
        Outcome::NotFound { .. }
    ));
}
