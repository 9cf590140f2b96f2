//! The webhook receiver as a user sees it: a wrongly signed, stale or unsigned delivery fails its
//! case with the reason; signing secrets never appear in any output; `--webhook-listen` and
//! `--webhook-url` place the receiver.

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_workspace-conformance");
const SIGNED: &str = "latest.webhooks.deliveries.test-delivery-is-signed";

fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn bad_signature_stale_timestamp_and_missing_header_fail_with_the_reason() {
    for (fault, reason) in [
        (
            "webhook-signed-body-only",
            "webhook-signature is not the HMAC-SHA256 of `webhook-id.webhook-timestamp.body`",
        ),
        (
            "webhook-stale-timestamp",
            "webhook-timestamp is stale: 600 s",
        ),
        (
            "webhook-unsigned",
            "the header `webhook-signature` is missing",
        ),
    ] {
        let o = run(&["--fault", fault, "--exact", SIGNED]);
        let out = stdout(&o);
        assert_eq!(o.status.code(), Some(1), "{fault}: {out}");
        assert!(out.contains(reason), "{fault}: no `{reason}` in {out}");
        assert!(out.contains("Authentication > 4"), "{fault}: {out}");
        assert!(!out.contains("whsec_"), "{fault}: a secret leaked: {out}");
    }
}

#[test]
fn the_clean_reference_verifies_and_a_missing_retry_says_how_long_was_waited() {
    let o = run(&["--exact", SIGNED]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(&[
        "--fault",
        "webhook-no-retry",
        "--exact",
        "latest.webhooks.deliveries.retry-keeps-the-webhook-id",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("2 deliveries at {{webhook_url}} within 10.0 s"),
        "{out}"
    );
    assert!(out.contains("1 after waiting 10."), "{out}");
}

#[test]
fn secrets_of_answers_are_redacted_in_failures() {
    let dir = std::env::temp_dir().join(format!("wc-webhooks-redact-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(
        dir.join("hooks.yaml"),
        r#"area: webhooks
api: latest
cases:
  - id: create-shows-its-answer
    clause: "Header-versioned API > POST /webhooks"
    steps:
      - request:
          method: POST
          path: /webhooks
          body: { label: "{{run}} redact", url: "{{webhook_url}}", events: [message.received], resourceIds: ["*"] }
        save: { hook: /data/id }
        secret: signing
        expect: { json: { /data/label: "not the label" } }
      - request: { method: DELETE, path: "/webhooks/{{hook}}" }
        always: true
"#,
    )
    .expect("case file");
    let o = run(&[
        "--case-dir",
        dir.to_str().expect("utf-8 path"),
        "create-shows",
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("<REDACTED>"), "{out}");
    assert!(!out.contains("whsec_"), "a secret leaked: {out}");
}

#[test]
fn webhook_listen_and_url_place_the_receiver() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let listen = format!("127.0.0.1:{port}");
    let url = format!("http://127.0.0.1:{port}/");
    let o = run(&[
        "--webhook-listen",
        &listen,
        "--webhook-url",
        &url,
        "--exact",
        SIGNED,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(&["--webhook-url", "ftp://hooks.example/", "--exact", SIGNED]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--webhook-url"));
}

// --- issue 20, points 5 and 6: forged deliveries are never credited; the receiver is bounded ---

use crate::common;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};

use conformance_reference::{CATALOG, FaultSet, VariantSet};
use conformance_suite::cases::Case;
use conformance_suite::results::Verdict;
use conformance_suite::webhooks::{BODY_CAP, KEPT_BYTES_PER_TRIAL, Receiver};

/// The faults that make the reference send forged deliveries instead of genuine ones.
const FORGERIES: [&str; 5] = [
    "webhook-unsigned",
    "webhook-wrong-secret",
    "webhook-stale-timestamp",
    "webhook-malformed-signature",
    "webhook-signed-body-only",
];

/// Every case of the catalog with a step that waits for at least one delivery.
fn waiting_cases(cases: &[Arc<Case>]) -> Vec<Arc<Case>> {
    cases
        .iter()
        .filter(|c| {
            c.steps.iter().any(|s| {
                s.deliveries
                    .as_ref()
                    .is_some_and(|d| d.count.or(d.min).unwrap_or(1) > 0)
            })
        })
        .cloned()
        .collect()
}

#[test]
fn no_case_that_waits_for_a_delivery_passes_on_forged_ones() {
    let (contract, cases) = common::catalog();
    let waiting = waiting_cases(&cases);
    let names: Vec<&str> = waiting.iter().map(|c| c.name.as_str()).collect();
    // The list comes from the case files; these three were credited forged deliveries once.
    for known in [
        "latest.events.contact-deleted",
        "latest.events.task-assigned-then-unassigned",
        "latest.webhooks.deliveries.resource-filter-skips-test-deliveries",
    ] {
        assert!(names.contains(&known), "{known} not among {names:?}");
    }
    let rt = common::runtime();
    // Genuine deliveries: every one of them passes, so a failure below is the forgery's.
    let clean = common::certify(
        &rt,
        &contract,
        &waiting,
        FaultSet::default(),
        VariantSet::default(),
    );
    let failed = common::failure_report(&clean);
    assert!(failed.is_empty(), "against genuine deliveries:\n{failed}");
    let incomplete = common::incomplete("genuine deliveries", &waiting, &clean);
    assert!(incomplete.is_empty(), "{}", incomplete.join("\n"));
    let mut credited = Vec::new();
    for name in FORGERIES {
        let fault = CATALOG
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("no fault {name}"));
        let results = common::certify(
            &rt,
            &contract,
            &waiting,
            FaultSet::new([fault.fault]),
            VariantSet::default(),
        );
        let incomplete = common::incomplete(name, &waiting, &results);
        assert!(incomplete.is_empty(), "{}", incomplete.join("\n"));
        for (case, r) in &results {
            let Verdict::Failed(failures) = &r.verdict else {
                credited.push(format!("{name}: {} {:?}", case.name, r.verdict));
                continue;
            };
            // The first failure is the first delivery step: nothing credited, each delivery
            // with the reason it was not, citing the signing clause.
            let f = &failures[0].finding;
            let why = format!("{name}: {}: {} / {}", case.name, f.expected, f.actual);
            assert_eq!(f.check, "deliveries", "{why}");
            assert!(f.actual.starts_with("0 after waiting"), "{why}");
            assert!(f.actual.contains("not credited, "), "{why}");
            assert!(
                f.clauses.iter().any(|c| c == "Authentication > 4"),
                "{why}: cites {:?}",
                f.clauses
            );
            assert!(!f.actual.contains("whsec_"), "a secret in {why}");
        }
    }
    assert!(
        credited.is_empty(),
        "trials passed on forged deliveries:\n{}",
        credited.join("\n")
    );
}

#[test]
fn a_step_that_waits_without_a_secret_does_not_load() {
    let dir = common::binary::temp_dir("unverified-step");
    std::fs::write(
        dir.join("hooks.yaml"),
        r#"area: hooks
api: latest
cases:
  - id: waits-unverified
    clause: "Events > deliveries"
    steps:
      - request:
          method: POST
          path: /webhooks
          body: { label: "{{run}} unverified", url: "{{webhook_url}}", events: [message.received], resourceIds: ["*"] }
        save: { hook: /data/id }
      - deliveries: { min: 1 }
"#,
    )
    .expect("case file");
    let o = run(&["--case-dir", dir.to_str().expect("utf-8 path"), "waits"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}{}", stdout(&o));
    assert!(err.contains("names `verify`"), "{err}");
}

/// One HTTP/1.1 POST on a fresh connection: the status answered, None when the connection
/// failed before one. The body is sent in 64 KiB writes (chunked when `chunked`); a refused
/// rest of the body is no error, the answer is read all the same.
fn post(addr: SocketAddr, path: &str, body_len: usize, chunked: bool) -> Option<u16> {
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_secs(2)).ok()?;
    s.set_write_timeout(Some(Duration::from_secs(2))).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let length = if chunked {
        "transfer-encoding: chunked".to_string()
    } else {
        format!("content-length: {body_len}")
    };
    let head = format!(
        "POST {path} HTTP/1.1\r\nhost: {addr}\r\ncontent-type: application/json\r\n{length}\r\nconnection: close\r\n\r\n"
    );
    s.write_all(head.as_bytes()).ok()?;
    let piece = vec![b'x'; 64 * 1024];
    let mut left = body_len;
    while left > 0 {
        let n = left.min(piece.len());
        let ok = if chunked {
            s.write_all(format!("{n:x}\r\n").as_bytes())
                .and_then(|_| s.write_all(&piece[..n]))
                .and_then(|_| s.write_all(b"\r\n"))
        } else {
            s.write_all(&piece[..n])
        };
        if ok.is_err() {
            break;
        }
        left -= n;
    }
    if chunked && left == 0 {
        let _ = s.write_all(b"0\r\n\r\n");
    }
    let mut answer = [0u8; 12];
    s.read_exact(&mut answer).ok()?;
    std::str::from_utf8(&answer[9..12]).ok()?.parse().ok()
}

#[test]
fn the_receiver_takes_only_live_trials_capped_bodies_and_a_capped_count() {
    let rt = common::runtime();
    let receiver = rt
        .block_on(Receiver::start(([127, 0, 0, 1], 0).into(), None))
        .expect("receiver");
    let addr = receiver.addr;
    let lease = receiver.open("run00001", "latest.hooks.case", &[]);
    let live = "/hooks/run00001/latest.hooks.case";
    // Strangers: another path, another run, another case, a deeper path.
    for stray in [
        "/hooks/zzzzzzzz/not-a-trial",
        "/hooks/run00002/latest.hooks.case",
        "/hooks/run00001/latest.hooks.other",
        "/hooks/run00001/latest.hooks.case/a/b",
        "/elsewhere",
    ] {
        assert_eq!(post(addr, stray, 10, false), Some(404), "{stray}");
    }
    assert!(
        receiver
            .deliveries("zzzzzzzz", "not-a-trial", "")
            .is_empty()
    );
    // Bodies over the cap, declared or chunked, are refused and not kept.
    assert_eq!(post(addr, live, BODY_CAP + 1, false), Some(413));
    assert_eq!(post(addr, live, BODY_CAP + 1, true), Some(413));
    assert_eq!(post(addr, &format!("{live}/sub"), 2 << 20, true), Some(413));
    assert!(
        receiver
            .deliveries("run00001", "latest.hooks.case", "")
            .is_empty()
    );
    // A body of the cap is taken.
    assert_eq!(post(addr, live, BODY_CAP, false), Some(204));
    assert_eq!(
        receiver.deliveries("run00001", "latest.hooks.case", "")[0]
            .body
            .len(),
        BODY_CAP
    );
    // The trial keeps KEPT_BYTES_PER_TRIAL of bodies over all its paths (the one above counts);
    // the rest are answered and counted.
    let fit = KEPT_BYTES_PER_TRIAL / BODY_CAP;
    for i in 1..fit + 10 {
        let path = if i % 2 == 0 {
            live.to_string()
        } else {
            format!("{live}/other")
        };
        assert_eq!(
            post(addr, &path, BODY_CAP, false),
            Some(204),
            "delivery {i}"
        );
    }
    let root = receiver.deliveries("run00001", "latest.hooks.case", "");
    let other = receiver.deliveries("run00001", "latest.hooks.case", "other");
    assert_eq!(root.len() + other.len(), fit);
    let not_kept = receiver.not_kept("run00001", "latest.hooks.case", "")
        + receiver.not_kept("run00001", "latest.hooks.case", "other");
    assert_eq!(not_kept, 10);
    // The trial ends: its paths are strangers' now, and what it kept is gone.
    drop(lease);
    assert_eq!(post(addr, live, 2, false), Some(404));
    assert!(
        receiver
            .deliveries("run00001", "latest.hooks.case", "")
            .is_empty()
    );
    assert!(!receiver.is_open("run00001", "latest.hooks.case"));
}

#[test]
fn seven_hundred_deliveries_of_2_mb_during_a_run_keep_memory_bounded() {
    let timer = common::binary::gnu_time();
    let dir = common::binary::temp_dir("flood");
    // One trial that waits out the retry bound of the reference's profile (10 s) for a
    // delivery that never comes: the flood lands while it is live.
    std::fs::write(
        dir.join("flood.yaml"),
        r#"area: flood
api: latest
cases:
  - id: waits
    clause: "Events > deliveries"
    steps:
      - request:
          method: POST
          path: /webhooks
          body: { label: "{{run}} flood", url: "{{webhook_url}}", events: [message.received], resourceIds: ["*"] }
        save: { hook: /data/id }
        secret: signing
      - deliveries: { min: 1, bound: retry, match: { /type: never.sent }, verify: signing }
      - request: { method: DELETE, path: "/webhooks/{{hook}}" }
        always: true
"#,
    )
    .expect("case file");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let time_out = dir.join("time");
    let mut cmd = if let Some(timer) = timer {
        let mut c = std::process::Command::new(timer);
        c.arg("-f").arg("%M").arg("-o").arg(&time_out).arg(BIN);
        c
    } else {
        std::process::Command::new(BIN)
    };
    let child = cmd
        .args([
            "--run-id",
            "flood001",
            "--webhook-listen",
            &addr.to_string(),
        ])
        .arg("--case-dir")
        .arg(&dir)
        .arg("latest.flood.waits")
        .env_remove("WORKSPACE_API_KEY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let started = Instant::now();
    let live = "/hooks/flood001/latest.flood.waits";
    // Wait (bounded) until the trial's slot is live: a small delivery is then answered 204.
    let mut open = false;
    for _ in 0..200 {
        if post(addr, live, 2, false) == Some(204) {
            open = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    let output = |child: std::process::Child| child.wait_with_output().expect("the run ends");
    if !open {
        let o = output(child);
        panic!("the trial's path never opened: {}", stdout(&o));
    }
    // More than the trial keeps (the probe above kept 2 bytes, so 15 bodies of the cap fit):
    // the rest are counted.
    for _ in 0..KEPT_BYTES_PER_TRIAL / BODY_CAP + 5 {
        assert_eq!(post(addr, live, BODY_CAP, false), Some(204));
    }
    // 700 deliveries of 2 MB from 8 connections at a time: declared and chunked ones at the
    // live path, and some at a path of no trial.
    const FLOOD: usize = 700;
    let next = std::sync::atomic::AtomicUsize::new(0);
    let answers = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..8 {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= FLOOD {
                        break;
                    }
                    let (path, chunked) = match i % 3 {
                        0 => (live.to_string(), false),
                        1 => (live.to_string(), true),
                        _ => (format!("/hooks/flood001/stranger-{i}"), false),
                    };
                    let status = post(addr, &path, 2 << 20, chunked);
                    answers.lock().expect("answers").push((i % 3, status));
                }
            });
        }
    });
    let flood_took = started.elapsed();
    let answers = answers.into_inner().expect("answers");
    let o = output(child);
    let out = stdout(&o);
    let peak_kb: Option<u64> = std::fs::read_to_string(&time_out)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
    eprintln!(
        "flood of {FLOOD} x 2 MB in {flood_took:?}; run peak memory {peak_kb:?} KB; answers 413: {}, 404: {}, none: {}",
        answers.iter().filter(|(_, s)| *s == Some(413)).count(),
        answers.iter().filter(|(_, s)| *s == Some(404)).count(),
        answers.iter().filter(|(_, s)| s.is_none()).count(),
    );
    assert_eq!(answers.len(), FLOOD);
    // Nothing of 2 MB is ever taken; at a live path it is 413, elsewhere 404.
    for (kind, status) in &answers {
        assert!(
            !status.is_some_and(|s| (200..300).contains(&s)),
            "a 2 MB delivery was taken: {kind} {status:?}"
        );
        if *kind == 2 {
            assert!(matches!(status, Some(404) | None), "{status:?}");
        }
    }
    assert!(
        answers.iter().any(|(k, s)| *k == 0 && *s == Some(413)),
        "no 413 at the live path: {answers:?}"
    );
    // The trial failed waiting, and says that deliveries were not kept.
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!(
            "6 more deliveries at this path were not kept (the receiver keeps {KEPT_BYTES_PER_TRIAL} bytes of bodies per trial)"
        )),
        "{out}"
    );
    if let Some(kb) = peak_kb {
        assert!(kb < 300 * 1024, "peak memory {kb} KB");
    } else {
        assert!(
            timer.is_none(),
            "/usr/bin/time wrote no figure to {}",
            time_out.display()
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A workspace that already holds 30 of its 50 webhooks still certifies. The trials together
/// hold no more webhooks than it may still take (50 less the 30 and the reference's own, less
/// the run's once-per-run setups and a margin: a fixed half of the limit, 25, would overrun it),
/// and each trial deletes what it made of them when it ends (a refusal's control, a setup made
/// for it alone), not at the end of the run. Before both, such a run failed trials whose
/// creates met the limit.
#[test]
fn a_workspace_already_holding_thirty_webhooks_still_certifies() {
    let served = common::binary::serve("held-webhooks", &[]);
    let profile: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&served.profile).expect("the profile is written"),
    )
    .expect("the profile is JSON");
    let key = profile["apiKey"].as_str().expect("the profile's key");
    let rt = common::runtime();
    let held = rt.block_on(async {
        let client =
            conformance_suite::tls::build(reqwest::Client::builder, false).expect("an HTTP client");
        for n in 0..30 {
            let body = serde_json::json!({
                "label": format!("held before the run {n}"),
                "url": "https://example.test/held",
                "status": "disabled",
                "events": ["call.missed"],
                "resourceIds": ["*"],
            });
            let resp = client
                .post(format!("{}/webhooks", served.url))
                .header("Authorization", key)
                .header("Service-Api-Version", "2026-03-30")
                .json(&body)
                .send()
                .await
                .expect("the reference answers");
            assert!(resp.status().is_success(), "create {n}: {}", resp.status());
        }
        let list: serde_json::Value = client
            .get(format!("{}/webhooks", served.url))
            .header("Authorization", key)
            .header("Service-Api-Version", "2026-03-30")
            .send()
            .await
            .expect("the reference answers")
            .json()
            .await
            .expect("a JSON list");
        list["data"].as_array().map_or(0, Vec::len)
    });
    assert!(held >= 30, "the workspace holds {held} webhooks");
    let o = Command::new(BIN)
        .args(["--target", &served.url, "--profile"])
        .arg(&served.profile)
        .arg("-q")
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs");
    let out = stdout(&o);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.contains("PASSED"), "{out}");
}
