//! Certificates beyond one run (issue 37): defects with an identity that holds across runs,
//! seeds, run ids and merged partitions; `compare` of two certifications; `--rerun` of a
//! result's defects; `--har` of the exchanges; and the `serve` command a run against the
//! embedded reference prints, whose curls run as printed.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::common::binary::{BIN, serve, serve_on, temp_dir};

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Runs the binary (no key in the environment) with `args`.
fn run(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs")
}

fn read(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("a JSON result")).expect("JSON")
}

fn path(p: &Path) -> &str {
    p.to_str().expect("a UTF-8 path")
}

/// A result's defects as the identity compares them: fingerprint, title and clause order.
fn identity(result: &Value) -> Vec<(String, String, Vec<String>)> {
    result["defects"]
        .as_array()
        .expect("defects")
        .iter()
        .map(|d| {
            (
                d["fingerprint"].as_str().unwrap_or_default().to_string(),
                d["title"].as_str().unwrap_or_default().to_string(),
                d["clauses"]
                    .as_array()
                    .expect("clauses")
                    .iter()
                    .map(|c| c.as_str().unwrap_or_default().to_string())
                    .collect(),
            )
        })
        .collect()
}

/// The three faults of the instability (an access bypass, a pagination fault and a
/// content type on every answer), from three areas.
const THREE: [&str; 3] = [
    "missing-auth-accepted",
    "duplicate-across-pages",
    "wrong-content-type",
];

#[test]
fn three_faults_give_the_same_defects_across_seeds_run_ids_and_a_merged_split() {
    let faults: Vec<&str> = THREE.iter().flat_map(|f| ["--fault", *f]).collect();
    // One target with the three faults (merge joins parts of one target), certified five
    // times, each run with its seed and run id, and once in three parts.
    let served = serve("stable-defects", &faults);
    let dir = temp_dir("stable-defects-runs");
    let runs: Vec<PathBuf> = (1..=5).map(|i| dir.join(format!("run-{i}.json"))).collect();
    let parts: Vec<PathBuf> = (1..=3)
        .map(|k| dir.join(format!("part-{k}.json")))
        .collect();
    let certify = |extra: Vec<String>, json: &Path| {
        let o = Command::new(BIN)
            .args(["--target", &served.url, "--profile"])
            .arg(&served.profile)
            .args(["-q", "--json", path(json)])
            .args(&extra)
            .env_remove("WORKSPACE_API_KEY")
            .output()
            .expect("the binary runs");
        assert_eq!(o.status.code(), Some(1), "{extra:?}: {}", text(&o).1);
    };
    for (i, json) in runs.iter().enumerate() {
        let extra = vec![
            "--seed".to_string(),
            format!("{}", 1000 + i * 7919),
            "--run-id".to_string(),
            format!("st{i}ab{i}cd"),
        ];
        certify(extra, json);
    }
    for (k, json) in parts.iter().enumerate() {
        certify(vec!["--partition".into(), format!("{}/3", k + 1)], json);
    }
    let merged = dir.join("merged.json");
    let mut args: Vec<&str> = vec!["merge", "--json", path(&merged)];
    args.extend(parts.iter().map(|p| path(p)));
    let o = run(&args);
    assert_eq!(o.status.code(), Some(1), "{}{}", text(&o).0, text(&o).1);
    let first = identity(&read(&runs[0]));
    assert!(
        (1..=4).contains(&first.len()),
        "three faults, a defect each at most one more: {first:#?}"
    );
    for json in runs.iter().skip(1).chain([&merged]) {
        assert_eq!(
            identity(&read(json)),
            first,
            "{} lists other defects than {}",
            json.display(),
            runs[0].display()
        );
    }
    // The merged certificate names every part's seed and run id.
    let merged = read(&merged);
    let listed = merged["parts"].as_array().expect("parts");
    assert_eq!(listed.len(), 3, "{listed:?}");
    for (k, part) in parts.iter().enumerate() {
        let p = read(part);
        assert_eq!(listed[k]["runId"], p["runId"]);
        assert_eq!(listed[k]["seed"], p["seed"]);
    }
}

/// A contacts-only run of the embedded reference with `faults`, its result at `json`.
fn contacts_run(faults: &[&str], json: &Path, extra: &[&str]) -> Output {
    let mut args: Vec<&str> = vec!["--area", "contacts", "-q", "--json", path(json)];
    for f in faults {
        args.extend(["--fault", f]);
    }
    args.extend(extra);
    run(&args)
}

#[test]
fn compare_lists_new_fixed_and_still_present_defects_and_fails_on_a_new_one() {
    let dir = temp_dir("compare");
    let (clean, faulty) = (dir.join("clean.json"), dir.join("faulty.json"));
    assert_eq!(contacts_run(&[], &clean, &[]).status.code(), Some(0));
    let o = contacts_run(&["reserved-source-accepted"], &faulty, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let defects = read(&faulty)["defects"]
        .as_array()
        .expect("defects")
        .clone();
    assert!(!defects.is_empty());
    // From the clean baseline, the fault's defects are new: exit 1, JSON and HTML written.
    let (json, html) = (dir.join("comparison.json"), dir.join("report.html"));
    let o = run(&[
        "compare",
        path(&clean),
        path(&faulty),
        "--json",
        path(&json),
        "--report",
        path(&html),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let last = out.trim_end().lines().last().unwrap_or_default();
    assert!(
        last.starts_with(&format!(
            "compare: defects: {} new, 0 fixed, 0 not re-tested, 0 still present",
            defects.len()
        )),
        "{out}"
    );
    let comparison = read(&json);
    let new: BTreeSet<&str> = comparison["newDefects"]
        .as_array()
        .expect("newDefects")
        .iter()
        .filter_map(|d| d["fingerprint"].as_str())
        .collect();
    let all: BTreeSet<&str> = defects
        .iter()
        .filter_map(|d| d["fingerprint"].as_str())
        .collect();
    assert_eq!(new, all);
    assert!(
        comparison["changedTrials"].as_array().is_some_and(|c| c
            .iter()
            .all(|t| t["base"] == "passed" && t["new"] == "failed")
            && !c.is_empty()),
        "{comparison}"
    );
    let page = std::fs::read_to_string(&html).expect("HTML");
    assert!(page.contains("Since the baseline") && page.contains("<b>new</b>"));
    // Against itself nothing is new (exit 0); the other way round, the defects are fixed.
    let o = run(&["compare", path(&faulty), path(&faulty)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    assert!(text(&o).0.contains("0 new, 0 fixed, "), "{}", text(&o).0);
    let o = run(&["compare", path(&faulty), path(&clean)]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o).0);
    assert!(
        text(&o).0.contains(&format!(
            "0 new, {} fixed, 0 not re-tested, 0 still present",
            defects.len()
        )),
        "{}",
        text(&o).0
    );
    // A file that is not a result: exit 2, named.
    let junk = dir.join("junk.json");
    std::fs::write(&junk, "{}").expect("write");
    let o = run(&["compare", path(&clean), path(&junk)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("junk.json"), "{}", text(&o).1);
}

#[test]
fn rerun_runs_a_defects_trials_and_says_whether_it_still_holds() {
    let dir = temp_dir("rerun");
    let faulty = dir.join("faulty.json");
    let o = contacts_run(&["reserved-source-accepted"], &faulty, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let result = read(&faulty);
    let d1 = &result["defects"][0];
    let (id, print) = (
        d1["id"].as_str().expect("id"),
        d1["fingerprint"].as_str().expect("fingerprint"),
    );
    let trials = d1["trials"].as_array().expect("trials").len();
    // Without --fault, the result's own target again: the embedded reference with its fault;
    // the defect still holds, and only its trials ran.
    let again = dir.join("again.json");
    let o = run(&[
        "--rerun",
        path(&faulty),
        "--defect",
        id,
        "-q",
        "--json",
        path(&again),
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains(&format!("{id} {print} still holds")), "{out}");
    assert_eq!(read(&again)["faults"][0], "reserved-source-accepted");
    assert_eq!(
        read(&again)["totals"]["total"].as_u64(),
        Some(trials as u64),
        "only the defect's trials"
    );
    // A defect the result lacks: exit 2, naming the known ones.
    let o = contacts_run(&[], &again, &["--rerun", path(&faulty), "--defect", "D99"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--defect D99") && err.contains(print), "{err}");

    // A target fixed in place: the same URL served again without the fault. The re-run of the
    // result (no --target: the result's URL and profile) runs every trial of the defect again
    // against the same target, they pass, and the defect no longer holds.
    let port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        probe.local_addr().expect("its address").port()
    };
    let listen = format!("127.0.0.1:{port}");
    let on_target = dir.join("on-target.json");
    {
        let served = serve_on(
            "rerun-faulty",
            &listen,
            &["--fault", "reserved-source-accepted"],
        );
        let o = Command::new(BIN)
            .args(["--target", &served.url, "--profile"])
            .arg(&served.profile)
            .args(["--area", "contacts", "-q", "--json", path(&on_target)])
            .env_remove("WORKSPACE_API_KEY")
            .output()
            .expect("runs");
        assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    }
    let _fixed = serve_on("rerun-fixed", &listen, &[]);
    let o = run(&["--rerun", path(&on_target), "-q"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let print = read(&on_target)["defects"][0]["fingerprint"]
        .as_str()
        .expect("fingerprint")
        .to_string();
    assert!(
        out.contains(&format!("{print} no longer holds: "))
            && out.contains("ran again against the same target and passed"),
        "{out}"
    );
}

/// The three faults of the history's first users (a webhook signature, a task transition, an
/// error code): `--rerun` and `compare` of their certificate.
const HISTORY: [&str; 3] = [
    "webhook-wrong-secret",
    "task-complete-no-effect",
    "contact-404-wrong-code",
];

/// The lines of a re-run's verdict on each defect.
fn rerun_lines(out: &str) -> Vec<&str> {
    out.lines()
        .filter(|l| {
            l.starts_with("  D")
                && (l.contains(" still holds ")
                    || l.contains(" no longer holds")
                    || l.contains(" not re-tested "))
        })
        .collect()
}

#[test]
fn nothing_is_called_fixed_that_was_not_re_tested_against_the_same_target() {
    let faults: Vec<&str> = HISTORY.iter().flat_map(|f| ["--fault", *f]).collect();
    let served = serve("history", &faults);
    let dir = temp_dir("history-runs");
    let key = read(&served.profile)["apiKey"]
        .as_str()
        .expect("apiKey")
        .to_string();
    // The profile the certificate names, in a file of its own (removed at the end).
    let profile = dir.join("target.json");
    std::fs::copy(&served.profile, &profile).expect("copy the profile");
    let (fail, partial) = (dir.join("fail.json"), dir.join("partial.json"));
    let certify = |extra: &[&str], json: &Path| {
        Command::new(BIN)
            .args(["--target", &served.url, "--profile"])
            .arg(&profile)
            .args(["-q", "--json", path(json)])
            .args(extra)
            .env_remove("WORKSPACE_API_KEY")
            .output()
            .expect("the binary runs")
    };
    let o = certify(&[], &fail);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let defects = read(&fail)["defects"].as_array().expect("defects").clone();
    assert!(defects.len() >= 3, "{defects:#?}");

    // --rerun without --target: the result's own target and profile, never the embedded
    // reference; the faults are still served, so nothing is fixed.
    let again = dir.join("again.json");
    let o = run(&["--rerun", path(&fail), "-q", "--json", path(&again)]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    let rerun = read(&again);
    assert_eq!(rerun["target"], served.url.as_str(), "{out}");
    assert!(rerun.get("serve").is_none(), "the embedded reference ran");
    let lines = rerun_lines(&out);
    assert_eq!(lines.len(), defects.len(), "{out}");
    assert!(
        lines.iter().all(|l| !l.contains("no longer holds")),
        "{out}"
    );
    assert!(lines.iter().any(|l| l.contains(" still holds ")), "{out}");

    // --rerun with --target and without the profile: the trials that need its fixtures are
    // ignored, and the defects they showed are not re-tested, never fixed.
    let o = run(&[
        "--rerun",
        path(&fail),
        "--target",
        &served.url,
        "--api-key",
        &key,
        "-q",
    ]);
    let (out, err) = text(&o);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{out}{err}");
    let lines = rerun_lines(&out);
    assert_eq!(lines.len(), defects.len(), "{out}");
    assert!(
        lines.iter().all(|l| !l.contains("no longer holds")),
        "{out}"
    );
    let untested: Vec<&&str> = lines
        .iter()
        .filter(|l| l.contains(" not re-tested "))
        .collect();
    assert!(
        !untested.is_empty() && untested.iter().all(|l| l.contains(" ignored")),
        "the defects whose trials were ignored are not re-tested:\n{out}"
    );

    // compare with a run of one area: another selection, not comparable (exit 2), and with
    // --anyway no defect is fixed: those of other areas were not re-tested.
    let o = certify(&["--area", "contacts"], &partial);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let o = run(&["compare", path(&fail), path(&partial)]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(
        err.contains("not comparable")
            && err.contains("another selection")
            && err.contains("--anyway"),
        "{err}"
    );
    let (json, html) = (dir.join("comparison.json"), dir.join("comparison.html"));
    let o = run(&[
        "compare",
        path(&fail),
        path(&partial),
        "--anyway",
        "--json",
        path(&json),
        "--report",
        path(&html),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    let comparison = read(&json);
    assert_eq!(
        comparison["fixedDefects"],
        serde_json::json!([]),
        "{comparison}"
    );
    assert!(
        comparison["notComparable"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r
                .as_str()
                .is_some_and(|r| r.starts_with("another selection")))),
        "{comparison}"
    );
    assert!(
        !comparison["notRetested"]
            .as_array()
            .expect("notRetested")
            .is_empty(),
        "{comparison}"
    );
    assert!(!out.lines().any(|l| l.starts_with("fixed ")), "{out}");
    let summary = out.trim_end().lines().last().unwrap_or_default();
    assert!(
        summary.starts_with("compare: defects: 0 new, 0 fixed, ")
            && summary.contains(" not re-tested"),
        "{summary}"
    );
    let page = std::fs::read_to_string(&html).expect("HTML");
    assert!(
        page.contains("Not comparable")
            && page.contains("not re-tested")
            && !page.contains("<td>fixed</td>"),
        "the HTML's section since the baseline"
    );

    // A result whose profile file is gone: its target cannot be certified the same way again.
    std::fs::remove_file(&profile).expect("remove the profile");
    let o = run(&["--rerun", path(&fail), "-q"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}{err}");
    assert!(err.contains("target.json") && err.contains("gone"), "{err}");
}

/// The HAR 1.2 schema of the tests (written from the specification's tables).
fn har_schema() -> jsonschema::Validator {
    let schema: Value =
        serde_json::from_str(include_str!("data/har-1.2.schema.json")).expect("schema JSON");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the HAR schema compiles")
}

fn check_har(har: &Path, secrets: &[&str]) -> Value {
    let text = std::fs::read_to_string(har).expect("HAR written");
    for s in secrets {
        assert!(!text.contains(s), "{} holds a secret", har.display());
    }
    let value: Value = serde_json::from_str(&text).expect("HAR is JSON");
    let errors: Vec<String> = har_schema()
        .iter_errors(&value)
        .take(5)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not HAR 1.2: {errors:#?}");
    value
}

#[test]
fn har_records_the_exchanges_as_har_1_2_without_a_secret() {
    let served = serve("har", &[]);
    let profile: Value = read(&served.profile);
    let dir = temp_dir("har-out");
    let (har, json) = (dir.join("run.har"), dir.join("r.json"));
    let o = Command::new(BIN)
        .args(["--target", &served.url, "--profile"])
        .arg(&served.profile)
        .args([
            "--area",
            "webhooks",
            "-q",
            "--har",
            path(&har),
            "--json",
            path(&json),
        ])
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("runs");
    assert_eq!(o.status.code(), Some(0), "{}{}", text(&o).0, text(&o).1);
    let mut secrets: Vec<String> = Vec::new();
    for (k, v) in profile.as_object().expect("profile") {
        if k.to_ascii_lowercase().contains("key") {
            if let Some(v) = v.as_str() {
                secrets.push(v.to_string());
            }
        }
    }
    for v in profile["fixtures"].as_object().into_iter().flatten() {
        if v.0.contains("key") {
            if let Some(s) = v.1.as_str() {
                secrets.push(s.to_string());
            }
        }
    }
    assert!(!secrets.is_empty(), "the profile's keys: {profile}");
    let refs: Vec<&str> = secrets.iter().map(String::as_str).collect();
    let value = check_har(&har, &refs);
    let entries = value["log"]["entries"].as_array().expect("entries");
    assert!(
        entries.len() > 20,
        "every exchange of the run: {}",
        entries.len()
    );
    // Every request the run sent is one entry, once, whichever trials share it: the entries of
    // requests sent are the request count, numbered 1 to N; the preflight and the cleanup are
    // there; and so is every delivery the receiver got.
    let result = read(&json);
    let requests = result["requests"].as_u64().expect("requests");
    let comment = |e: &Value| e["comment"].as_str().unwrap_or_default().to_string();
    let mut numbers: Vec<u64> = entries
        .iter()
        .filter_map(|e| {
            let c = comment(e);
            let n = c
                .strip_prefix("request ")?
                .split(' ')
                .next()?
                .parse()
                .ok()?;
            Some(n)
        })
        .collect();
    numbers.sort_unstable();
    assert_eq!(
        numbers,
        (1..=requests).collect::<Vec<u64>>(),
        "the HAR's requests are the run's {requests}, each once"
    );
    for part in [
        "before the trials (the preflight",
        "after the trials (the cleanup)",
    ] {
        assert!(entries.iter().any(|e| comment(e).contains(part)), "{part}");
    }
    let deliveries = entries
        .iter()
        .filter(|e| comment(e).starts_with("webhook delivery received"))
        .count() as u64;
    assert!(deliveries > 0, "the webhooks area gets deliveries");
    assert_eq!(
        Some(deliveries),
        result["deliveriesReceived"].as_u64(),
        "every delivery the receiver got"
    );
    assert_eq!(entries.len() as u64, requests + deliveries);
    // Each entry starts when its request went (a timeline a HAR viewer can draw): within one
    // trial the starts never go back, and the run's entries do not all share one start.
    let mut starts: std::collections::BTreeMap<String, Vec<time::OffsetDateTime>> =
        Default::default();
    for e in entries {
        let at = e["startedDateTime"].as_str().expect("startedDateTime");
        let at = time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
            .unwrap_or_else(|err| panic!("startedDateTime {at:?}: {err}"));
        let c = comment(e);
        let trial = c
            .split_once("; trial ")
            .map(|(_, t)| t.split([' ', ';']).next().unwrap_or_default().to_string())
            .unwrap_or_default();
        starts.entry(trial).or_default().push(at);
    }
    for (trial, at) in &starts {
        assert!(
            at.windows(2).all(|w| w[0] <= w[1]),
            "{trial}: its exchanges start out of order: {at:?}"
        );
    }
    let distinct: std::collections::BTreeSet<_> = starts.values().flatten().collect();
    assert!(
        distinct.len() > entries.len() / 2,
        "{} distinct starts for {} entries",
        distinct.len(),
        entries.len()
    );
    // Webhook signing secrets came back in the answers; none is in the HAR.
    let whole = std::fs::read_to_string(&har).expect("HAR");
    let leaked: Vec<&str> = whole
        .match_indices("whsec_")
        .map(|(i, _)| &whole[i..(i + 20).min(whole.len())])
        .filter(|s| s.len() > 12 && s[6..].chars().all(|c| c.is_ascii_alphanumeric()))
        .collect();
    assert!(leaked.is_empty(), "signing secrets in the HAR: {leaked:?}");

    // With a fault and --har-failed: the exchanges of the failed trials only, commented with
    // their defects.
    let (har, json) = (dir.join("failed.har"), dir.join("failed.json"));
    let o = contacts_run(
        &["reserved-source-accepted"],
        &json,
        &["--har", path(&har), "--har-failed"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let value = check_har(&har, &[]);
    let failed: BTreeSet<String> = read(&json)["trials"]
        .as_array()
        .expect("trials")
        .iter()
        .filter(|t| t["verdict"] == "failed")
        .filter_map(|t| t["name"].as_str().map(str::to_string))
        .collect();
    let entries = value["log"]["entries"].as_array().expect("entries");
    assert!(!entries.is_empty());
    for e in entries {
        let comment = e["comment"].as_str().unwrap_or_default();
        let trial = comment
            .split_once("; trial ")
            .and_then(|(_, t)| t.split([' ', ';']).next())
            .unwrap_or_default();
        assert!(failed.contains(trial), "{comment}");
        assert!(comment.contains("; defects D"), "{comment}");
    }
}

#[test]
fn a_run_against_the_embedded_reference_prints_a_serve_command_its_curls_run_against() {
    let dir = temp_dir("reproduce");
    let json = dir.join("r.json");
    let o = contacts_run(&["reserved-source-accepted"], &json, &[]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("reproduce against the same reference: "))
        .unwrap_or_else(|| panic!("no serve command:\n{out}"));
    let command = line.split(" & ").next().expect("the command");
    assert!(
        command.starts_with("workspace-conformance serve --listen 127.0.0.1:")
            && command.contains("--fault reserved-source-accepted"),
        "{command}"
    );
    let curl = out
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("reproduce"))
        .filter_map(|l| l.split_once(": curl ").map(|(_, c)| format!("curl {c}")))
        .next()
        .unwrap_or_else(|| panic!("no curl:\n{out}"));
    // The printed command, as printed (the binary for its name), in a directory of its own.
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let mut child = Command::new(BIN)
        .args(&args)
        .current_dir(&dir)
        .stdout(Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut first = String::new();
    let mut reader = BufReader::new(child.stdout.take().expect("stdout"));
    reader.read_line(&mut first).expect("a line");
    let served = first
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_string();
    let key = read(&dir.join("reference-profile.json"))["apiKey"]
        .as_str()
        .expect("apiKey")
        .to_string();
    let o = Command::new("sh")
        .args(["-c", &format!("{curl} --max-time 10")])
        .env("WORKSPACE_API_KEY", &key)
        .output()
        .expect("curl runs");
    let _ = child.kill();
    let _ = child.wait();
    let (answer, err) = text(&o);
    assert!(
        o.status.success() && answer.starts_with("HTTP/1.1 "),
        "{curl} against {served}: {answer}{err}"
    );
    assert!(
        curl.contains(served.trim_start_matches("http://")),
        "{curl} names {served}"
    );
}

/// Runs the reproduction script a failing run wrote beside its result against the same
/// `served`, and gives its output.
fn run_script(script: &Path, served: &crate::common::binary::Served) -> (bool, String) {
    let o = Command::new("bash")
        .arg(script)
        .env_remove("WORKSPACE_API_KEY")
        .env("WORKSPACE_PROFILE", &served.profile)
        .env("WORKSPACE_CONFORMANCE", BIN)
        .output()
        .expect("bash runs the script");
    let (out, err) = text(&o);
    (o.status.success(), format!("{out}{err}"))
}

#[test]
fn each_defect_of_the_three_fault_runs_reproduces_from_the_script_beside_the_reports() {
    for (name, faults) in [("three", THREE), ("history", HISTORY)] {
        let args: Vec<&str> = faults.iter().flat_map(|f| ["--fault", *f]).collect();
        let served = serve(&format!("reproduce-{name}"), &args);
        let dir = temp_dir(&format!("reproduce-{name}-out"));
        let json = dir.join("result.json");
        let o = Command::new(BIN)
            .args(["--target", &served.url, "--profile"])
            .arg(&served.profile)
            .args(["-q", "--json", path(&json)])
            .env_remove("WORKSPACE_API_KEY")
            .output()
            .expect("the binary runs");
        let (out, _) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{out}");
        let script = dir.join("reproduce.sh");
        assert!(
            out.contains(&format!(
                "reproduce every defect: bash {}",
                script.display()
            )),
            "the run says where its reproductions are:\n{out}"
        );
        let defects = read(&json)["defects"].as_array().expect("defects").clone();
        assert!(!defects.is_empty());
        // Nothing secret is written: keys come from the environment or the profile.
        let text_of_script = std::fs::read_to_string(&script).expect("the script");
        let profile = read(&served.profile);
        let mut secrets = vec![profile["apiKey"].as_str().expect("apiKey").to_string()];
        for (k, v) in profile["fixtures"].as_object().expect("fixtures") {
            if k.ends_with("api_key") || k.ends_with("_secret") {
                secrets.extend(v.as_str().map(str::to_string));
            }
        }
        for s in &secrets {
            assert!(
                !text_of_script.contains(s.as_str()),
                "the script holds a secret"
            );
        }
        assert!(
            !text_of_script.contains("whsec_"),
            "the script holds a signing secret"
        );
        // Each defect has a reproduction, and run against the same serve, each shows again.
        for d in &defects {
            let lines = d["reproduction"]["lines"].as_array();
            assert!(
                lines.is_some_and(|l| !l.is_empty()),
                "{name}: {} has no reproduction",
                d["id"]
            );
        }
        let (ok, said) = run_script(&script, &served);
        for d in &defects {
            let id = d["id"].as_str().expect("id");
            assert!(
                said.lines()
                    .any(|l| l.starts_with(&format!("{id}: shown: "))),
                "{name}: {id} ({}) is not shown again:\n{said}",
                d["title"]
            );
        }
        assert!(
            ok && said.contains(&format!(
                "reproduce: {n} of {n} defects shown",
                n = defects.len()
            )),
            "{said}"
        );
        for s in &secrets {
            assert!(!said.contains(s.as_str()), "the script printed a secret");
        }
    }
}

#[test]
fn a_reproduction_against_the_clean_reference_does_not_show_its_defect() {
    // The script judges: against a target without the fault, it says the defect is not shown
    // (and fails), so that its "shown" means something.
    let faulty = serve("reproduce-faulty", &["--fault", "task-complete-no-effect"]);
    let dir = temp_dir("reproduce-clean-out");
    let json = dir.join("result.json");
    let o = Command::new(BIN)
        .args(["--target", &faulty.url, "--profile"])
        .arg(&faulty.profile)
        .args(["--area", "tasks", "-q", "--json", path(&json)])
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs");
    assert_eq!(o.status.code(), Some(1), "{}", text(&o).0);
    let clean = serve("reproduce-clean", &[]);
    let script = dir.join("reproduce.sh");
    let o = Command::new("bash")
        .arg(&script)
        .env("WORKSPACE_TARGET", &clean.url)
        .env("WORKSPACE_PROFILE", &clean.profile)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("bash runs");
    let (out, err) = text(&o);
    assert!(!o.status.success(), "{out}{err}");
    assert!(out.contains(": not shown: "), "{out}{err}");
    assert!(out.contains("reproduce: 0 of "), "{out}{err}");
}
