//! Reports and run controls as a user runs them: --junit, --json, --report, secrets in every
//! output, --read-only/--area/--tag/--partition, --rate, and the cleanup after Ctrl-C.

use crate::common::binary::{BIN, Served, run, serve, temp_dir};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn profile_json(s: &Served) -> Value {
    serde_json::from_str(&std::fs::read_to_string(&s.profile).expect("profile")).expect("json")
}

/// Every secret of a profile: the API key and fixtures named `*api_key` or `*_secret`.
fn secrets(profile: &Value) -> Vec<String> {
    let mut out = vec![profile["apiKey"].as_str().expect("apiKey").to_string()];
    for (k, v) in profile["fixtures"].as_object().expect("fixtures") {
        if k.ends_with("api_key") || k.ends_with("_secret") {
            out.push(v.as_str().expect("string secret").to_string());
        }
    }
    out
}

#[test]
fn a_failing_run_writes_every_report_and_no_secret_anywhere() {
    let served = serve(
        "secrets",
        &[
            "--fault",
            "patch-merges-entries",
            "--fault",
            "unauthorized-wrong-title",
            "--fault",
            "task-complete-no-effect",
        ],
    );
    let dir = temp_dir("secrets-out");
    let (junit, json, html) = (
        dir.join("junit.xml"),
        dir.join("result.json"),
        dir.join("report.html"),
    );
    let o = Command::new(BIN)
        .args(["--target", &served.url, "--profile"])
        .arg(&served.profile)
        .arg("--junit")
        .arg(&junit)
        .arg("--json")
        .arg(&json)
        .arg("--report")
        .arg(&html)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{stdout}\n{stderr}");
    let outputs = [
        ("stdout", stdout.clone()),
        ("stderr", stderr),
        (
            "junit",
            std::fs::read_to_string(&junit).expect("junit written"),
        ),
        (
            "json",
            std::fs::read_to_string(&json).expect("json written"),
        ),
        (
            "html",
            std::fs::read_to_string(&html).expect("html written"),
        ),
    ];
    let keys = secrets(&profile_json(&served));
    assert!(keys.len() >= 2, "{keys:?}");
    for (name, text) in &outputs {
        for key in &keys {
            assert!(!text.contains(key.as_str()), "{name} shows a secret");
        }
    }
    // The failure is there, with its reproduction, in every format.
    assert!(
        stdout.contains("\"Authorization: $WORKSPACE_API_KEY\""),
        "{stdout}"
    );
    for (name, text) in &outputs[2..] {
        assert!(text.contains("v1.contacts.patch.replaces-emails"), "{name}");
        assert!(text.contains("curl -sS -i -X PATCH"), "{name}");
    }
    // JSON: metadata and every trial.
    let result: Value = serde_json::from_str(&outputs[3].1).expect("valid JSON");
    assert_eq!(result["verdict"], "failed");
    assert_eq!(result["target"], served.url.as_str());
    // The seed is a string (a 64-bit number loses digits in jq and JavaScript), since format 2.
    assert_eq!(result["formatVersion"], 3);
    assert!(
        result["seed"]
            .as_str()
            .is_some_and(|s| s.parse::<u64>().is_ok())
            && result["started"].is_string()
    );
    assert!(result["durationSeconds"].is_f64());
    let trials = result["trials"].as_array().expect("trials");
    assert!(trials.len() > 300);
    let failed: Vec<&Value> = trials.iter().filter(|t| t["verdict"] == "failed").collect();
    assert!(!failed.is_empty());
    for t in &failed {
        assert!(t["explanation"].is_string());
        let first = &t["failures"][0];
        // A delivery that did not come has no request of its own to reproduce.
        if !matches!(first["check"].as_str(), Some("deliveries" | "signature")) {
            assert!(first["exchange"]["reproduce"].is_string(), "{t}");
        }
        assert!(first["clauses"][0].is_string());
    }
    // JUnit: suites per area, failures with the explanation.
    let xml = &outputs[2].1;
    assert!(
        xml.contains("<testsuite name=\"v1.contacts\""),
        "{xml:.400}"
    );
    assert!(xml.contains("<failure"));
    assert_eq!(
        xml.matches("<testcase ").count(),
        trials.len(),
        "one testcase per trial"
    );
    // HTML: self-contained, with the coverage matrix.
    let page = &outputs[4].1;
    for external in ["src=\"http", "href=\"http", "<link", "<script", "url("] {
        assert!(!page.contains(external), "the report loads {external}");
    }
    assert!(page.contains("Clause coverage"));
    // The clause the patch fault breaks is failed in the matrix.
    let unescaped = page.replace("&#x2f;", "/");
    let row = unescaped
        .split("<tr>")
        .find(|r| r.contains("<b>v1 API: contacts &gt; PATCH /v1/contacts/{id}</b>"))
        .expect("clause row");
    assert!(row.contains("badge failed"), "{row}");
    assert!(page.contains("Verdict per area") && page.contains("Verdict per API generation"));
}

#[test]
fn partition_splits_the_selection_without_overlap() {
    let list = |extra: &[&str]| -> Vec<String> {
        let mut args = vec!["--area", "tasks", "--list"];
        args.extend_from_slice(extra);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(0));
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter_map(|l| l.strip_suffix(": test"))
            .map(str::to_string)
            .collect()
    };
    let all = list(&[]);
    assert!(all.len() > 10 && all.iter().all(|n| n.starts_with("v1.tasks.")));
    let parts: Vec<Vec<String>> = (1..=3)
        .map(|k| list(&["--partition", &format!("{k}/3")]))
        .collect();
    let mut union: Vec<String> = parts.concat();
    union.sort();
    let mut sorted = all.clone();
    sorted.sort();
    assert_eq!(union, sorted, "the parts cover the selection exactly once");
    assert_eq!(parts[1], list(&["--partition", "2/3"]), "deterministic");
    assert_eq!(
        run(&["--partition", "4/3", "--list"]).status.code(),
        Some(2)
    );
}

#[test]
fn tag_read_only_and_rate_select_and_pace_the_run() {
    let o = run(&["--tag", "generated", "--read-only", "--list"]);
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    assert!(!names.is_empty());
    assert!(
        names
            .iter()
            .all(|n| n.contains(".access.") || n.contains(".versioning.")),
        "{text}"
    );
    // The tasks area sends some 80 requests: at 100 a second, that takes 0.8 s at least.
    let o = run(&["--area", "tasks", "--rate", "100"]);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("requests: "))
        .expect("requests line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let (n, secs): (f64, f64) = (words[1].parse().unwrap(), words[4].parse().unwrap());
    assert!(n >= 30.0, "{line}");
    // The count includes the reachability probe, sent before the clock starts.
    assert!(secs >= (n - 2.0) / 100.0 * 0.95, "{line}");
    assert_eq!(run(&["--rate", "0", "--list"]).status.code(), Some(2));
}

/// The tasks of the target whose title carries `run`.
fn tagged_tasks(url: &str, key: &str, run: &str) -> Vec<String> {
    let host = url.trim_start_matches("http://");
    let mut token: Option<String> = None;
    let mut out = Vec::new();
    loop {
        let path = match &token {
            Some(t) => format!("/v1/tasks?maxResults=100&pageToken={t}"),
            None => "/v1/tasks?maxResults=100".to_string(),
        };
        let mut s = TcpStream::connect(host).expect("connect");
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: {key}\r\nConnection: close\r\n\r\n"
        )
        .expect("send");
        let mut raw = String::new();
        s.read_to_string(&mut raw).expect("read");
        let body = raw.split_once("\r\n\r\n").expect("head").1;
        let page: Value = serde_json::from_str(body).expect("JSON page");
        for t in page["data"].as_array().expect("data") {
            let title = t["title"].as_str().unwrap_or_default();
            if title.contains(run) && t["isDeleted"] != Value::Bool(true) {
                out.push(t["taskId"].to_string());
            }
        }
        match page["nextPageToken"].as_str() {
            Some(t) => token = Some(t.to_string()),
            None => return out,
        }
    }
}

/// A child process killed when the test ends, however it ends.
struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_interrupted_run_removes_what_it_created() {
    let served = serve("interrupt", &[]);
    let key = profile_json(&served)["apiKey"]
        .as_str()
        .expect("key")
        .to_string();
    let run_id = "rintr001";
    let mut guard = KillOnDrop(
        Command::new(BIN)
            .args(["--target", &served.url, "--profile"])
            .arg(&served.profile)
            .args([
                "--area",
                "tasks",
                "--rate",
                "20",
                "--test-threads",
                "2",
                "--run-id",
                run_id,
            ])
            .env_remove("WORKSPACE_API_KEY")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts"),
    );
    let child = &mut guard.0;
    // Interrupt once the run holds tasks it created.
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut seen = Vec::new();
    while seen.is_empty() && Instant::now() < deadline {
        seen = tagged_tasks(&served.url, &key, run_id);
        std::thread::sleep(Duration::from_millis(20));
    }
    let sigint = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let finished = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if Instant::now() > finished {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(!seen.is_empty(), "the run created no task within 20 s");
    assert!(sigint.expect("kill runs").success());
    let status = status.expect("the interrupted run ends within 30 s");
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .expect("out")
        .read_to_string(&mut stdout)
        .ok();
    child
        .stderr
        .take()
        .expect("err")
        .read_to_string(&mut stderr)
        .ok();
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    // libtest's summary and the verdict line say so; never `ok`.
    assert!(
        stdout.contains("test result: interrupted.") && !stdout.contains("test result: ok"),
        "{stdout}"
    );
    assert!(stdout.contains("verdict: interrupted: "), "{stdout}");
    assert!(
        stdout.contains(&format!("cleanup (run {run_id}):")),
        "{stdout}"
    );
    let line = stdout
        .lines()
        .find(|l| l.starts_with("cleanup (run"))
        .expect("cleanup line");
    let words: Vec<&str> = line.split_whitespace().collect();
    let removed: usize = words[3].parse().expect("removed count");
    let gone: usize = words[5].parse().expect("already gone count");
    assert!(
        removed + gone >= 1,
        "the cleanup found nothing to remove: {line}"
    );
    assert!(line.contains(" 0 could not be removed"), "{line}");
    assert_eq!(
        tagged_tasks(&served.url, &key, run_id),
        Vec::<String>::new(),
        "tasks of the run left after the interrupt:\n{stdout}"
    );
}

#[test]
fn a_defect_reads_as_its_root_cause_and_the_html_says_it_in_plain_words() {
    let served = serve(
        "root-cause",
        &[
            "--fault",
            "webhook-wrong-secret",
            "--fault",
            "task-complete-no-effect",
            "--fault",
            "contact-404-wrong-code",
        ],
    );
    let dir = temp_dir("root-cause-out");
    let (json, html) = (dir.join("result.json"), dir.join("report.html"));
    let o = Command::new(BIN)
        .args(["--target", &served.url, "--profile"])
        .arg(&served.profile)
        .args(["-q", "--json"])
        .arg(&json)
        .arg("--report")
        .arg(&html)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("runs");
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON")).expect("JSON");
    // The task fault's defect leads with the transition that did nothing: completing a task.
    let defects = result["defects"].as_array().expect("defects");
    let task = defects
        .iter()
        .find(|d| d["check"] == "json /data/completed")
        .unwrap_or_else(|| panic!("no defect of the completed task: {defects:#?}"));
    assert_eq!(
        task["clauses"][0], "States and transitions > Task > complete",
        "{task:#}"
    );
    // A clause fails only where a check of its own failed: the limit a case met on the way, the
    // operation another step of a case made, are not failed by it.
    let status = |id: &str| {
        result["clauses"]
            .as_array()
            .expect("clauses")
            .iter()
            .find(|c| c["id"] == id)
            .map(|c| c["status"].as_str().unwrap_or_default().to_string())
            .unwrap_or_else(|| panic!("no clause {id}"))
    };
    for id in [
        "Limits > open tasks",
        "Errors > Rules > 6",
        "v1 API: tasks > POST /v1/tasks/{taskId}/unassign",
    ] {
        // Verified, or not reached where the case stopped at the failure before its later steps.
        assert_ne!(status(id), "failed", "{id}");
    }
    assert_eq!(status("States and transitions > Task > complete"), "failed");
    let failed = result["clauses"]
        .as_array()
        .expect("clauses")
        .iter()
        .filter(|c| c["status"] == "failed")
        .count();
    assert!(failed <= 8, "3 faults fail {failed} clauses");
    // The HTML says it in words: no placeholder where the key leaves a value out, and every
    // count with its noun in the right number.
    let page = std::fs::read_to_string(&html).expect("HTML");
    for placeholder in ["<code>…</code>", "expected …", "got …"] {
        assert!(
            !page.contains(placeholder),
            "the HTML shows `{placeholder}`"
        );
    }
    let text = regex::Regex::new(r"<[^>]*>")
        .expect("a regex")
        .replace_all(&page, " ");
    let wrong = regex::Regex::new(
        r"\b1 (trials|defects|findings|operations|deliveries|requests|parts|clauses|items|steps)\b",
    )
    .expect("a regex");
    let found: Vec<&str> = wrong.find_iter(&text).map(|m| m.as_str()).collect();
    assert!(found.is_empty(), "wrong plurals in the HTML: {found:?}");
    // Each defect's counts are on the page, each with its noun in the right number: the check
    // above would pass on a page without counts.
    for d in defects {
        for (count, noun) in [("trialCount", "trial"), ("findings", "finding")] {
            let n = d[count].as_u64().expect("a count");
            let words = format!("{n} {noun}{}", if n == 1 { "" } else { "s" });
            assert!(
                text.contains(&format!("{words},")) || text.contains(&format!("{words} ")),
                "defect {} shows no `{words}`",
                d["id"]
            );
        }
    }
}

#[test]
fn situation_coverage_is_reported_and_the_default_run_covers_nine_tenths() {
    let served = serve("situations", &[]);
    let dir = temp_dir("situations-out");
    let (json, html) = (dir.join("result.json"), dir.join("report.html"));
    let o = Command::new(BIN)
        .args(["--target", &served.url, "--seed", "1", "--profile"])
        .arg(&served.profile)
        .arg("--json")
        .arg(&json)
        .arg("--report")
        .arg(&html)
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("runs");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    let result: Value =
        serde_json::from_str(&std::fs::read_to_string(&json).expect("JSON")).expect("JSON");
    let sc = &result["situations"];
    let (pairs, exercised) = (
        sc["pairs"].as_u64().expect("pairs"),
        sc["exercised"].as_u64().expect("exercised"),
    );
    // Every operation the table describes, in each situation it yields: more than a hundred.
    assert!(pairs > 100, "{sc:#}");
    assert!(
        exercised * 100 >= pairs * 90,
        "the default run exercised {exercised} of {pairs} pairs: {sc:#}"
    );
    let operations = sc["operations"].as_array().expect("operations");
    // Every operation of the route table, each with its situations or why it has none.
    let (contract, _) = crate::common::catalog();
    let table: std::collections::BTreeSet<(String, String)> = contract
        .routes
        .iter()
        .filter(|r| r.operation_id.is_some())
        .map(|r| (r.method.clone(), r.template.clone()))
        .collect();
    let reported: std::collections::BTreeSet<(String, String)> = operations
        .iter()
        .map(|o| {
            (
                o["method"].as_str().unwrap_or_default().to_string(),
                o["path"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        reported, table,
        "the coverage's operations are the route table's"
    );
    for op in operations {
        let none = op["situations"].as_array().is_none_or(|s| s.is_empty());
        assert_eq!(
            none,
            op["reason"].as_str().is_some_and(|r| !r.is_empty()),
            "an operation without situations says why, and only then: {op:#}"
        );
    }
    let mut with_values = 0;
    for op in operations {
        for row in op["situations"].as_array().expect("situations") {
            if row["exercised"] == true {
                assert!(
                    row["trials"].as_array().is_some_and(|t| !t.is_empty()),
                    "{row:#}"
                );
            } else {
                // A pair the run did not exercise says why.
                assert!(
                    row["reason"].as_str().is_some_and(|r| !r.is_empty()),
                    "{row:#}"
                );
            }
        }
        // The classes of the values drawn, where a field's domain has classes (a user to
        // assign has none: it comes from the target).
        if op["classes"].as_array().is_some_and(|c| !c.is_empty()) {
            with_values += 1;
        }
    }
    assert!(with_values >= 5, "{with_values}");
    // Classes beyond the middle of each domain were sent.
    let classes: Vec<&str> = operations
        .iter()
        .flat_map(|o| o["classes"].as_array().into_iter().flatten())
        .filter_map(Value::as_str)
        .collect();
    // Which class each field gets is drawn; over the run, text beyond the Basic Multilingual
    // Plane, combining marks, an optional field left out and an instant beyond the middle of
    // its domain are among them.
    for class in ["beyond the BMP", "combining marks", "absent"] {
        assert!(classes.contains(&class), "{class} never sent: {classes:?}");
    }
    assert!(
        classes.iter().any(|c| matches!(
            *c,
            "far past" | "far future" | "other offset" | "fractional seconds"
        )),
        "no instant of any class: {classes:?}"
    );
    let page = std::fs::read_to_string(&html).expect("HTML");
    assert!(page.contains("Situation coverage"));
    assert!(page.contains(&format!("this run exercised {exercised}")));
}
