//! The binary as a user runs it: exit codes, libtest arguments, serve with a profile, setup
//! errors with clear messages, redaction of the API key.

mod common;

use common::binary::{BIN, run, serve, temp_dir};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn default_run_certifies_the_reference_and_exits_0() {
    let o = run(&[]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("test result: ok."), "{out}");
    assert!(out.contains(" 0 failed"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("requests: ") && l.contains("requests/s")),
        "{out}"
    );
}

#[test]
fn list_names_start_with_generation_and_area() {
    let o = run(&["--list"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    let names: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .collect();
    assert!(names.len() >= 40, "{out}");
    assert!(
        names
            .iter()
            .all(|n| n.starts_with("v1.") || n.starts_with("latest.")),
        "{names:?}"
    );
    assert!(names.contains(&"v1.contacts.create.reserved-source-device-rejected"));
}

#[test]
fn filter_exact_and_skip_select_trials() {
    let (out, _) = text(&run(&["v1.contacts"]));
    assert!(out.contains("filtered out"), "{out}");
    let ran: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("test ") && !l.starts_with("test result"))
        .collect();
    assert!(
        !ran.is_empty() && ran.iter().all(|l| l.starts_with("test v1.contacts.")),
        "{ran:?}"
    );

    let (out, _) = text(&run(&["--exact", "v1.contacts.patch.replaces-emails"]));
    assert!(out.contains("1 passed"), "{out}");

    let (out, _) = text(&run(&[
        "v1.contacts.patch",
        "--skip",
        "replaces",
        "--test-threads",
        "1",
    ]));
    assert!(!out.contains("replaces-emails"), "{out}");
    assert!(
        out.contains("v1.contacts.patch.missing-contact-is-404"),
        "{out}"
    );
}

#[test]
fn a_fault_fails_with_an_explanation_and_exit_1() {
    let o = run(&["--fault", "patch-merges-entries", "v1.contacts.patch"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("clause:    v1 API: contacts > PATCH /v1/contacts/{id}"),
        "{out}"
    );
    assert!(
        out.contains("expected:")
            && out.contains("actual:")
            && out.contains("at:        /data/defaultFields"),
        "{out}"
    );
    assert!(out.contains("reproduce: curl -sS -i -X PATCH"), "{out}");
    assert!(out.contains("Authorization: <API_KEY>"), "{out}");
    // The reference's key never shows.
    let served = serve("key-scan", &[]);
    let profile = std::fs::read_to_string(&served.profile).expect("profile");
    let key = serde_json::from_str::<serde_json::Value>(&profile).expect("json")["apiKey"]
        .as_str()
        .expect("key")
        .to_string();
    assert!(!out.contains(&key), "the API key leaked into the output");
}

#[test]
fn serve_lists_faults_with_their_clauses() {
    let o = run(&["serve", "--list-faults"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() >= 12, "{out}");
    assert!(
        lines.iter().any(|l| l.starts_with("patch-merges-entries")
            && l.ends_with("v1 API: contacts > PATCH /v1/contacts/{id}")),
        "{out}"
    );
}

#[test]
fn variants_are_listed_and_all_of_them_pass() {
    let o = run(&["serve", "--list-variants"]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        out.lines().filter(|l| l.contains("READINGS ")).count() >= 25,
        "{out}"
    );
    let o = run(&["--variant", "all"]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains(" 0 failed"), "{out}");
    let o = run(&["--variant", "no-such-variant"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("unknown variant"));
}

#[test]
fn serve_profile_out_then_target_with_that_profile_passes() {
    let served = serve("profile", &[]);
    let profile = served.profile.to_str().expect("utf-8 path");
    let o = run(&["--target", &served.url, "--profile", profile]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains(" 0 failed") && out.contains(" 0 ignored"),
        "{out}"
    );
}

#[test]
fn api_key_from_the_environment_and_missing_fixtures_are_ignored_with_reason() {
    let served = serve("env-key", &[]);
    let full: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&served.profile).expect("profile"))
            .expect("json");
    let key = full["apiKey"].as_str().expect("key").to_string();
    // A profile with no key and no webhook fixture: the key comes from the environment.
    let mut partial = full.clone();
    partial.as_object_mut().expect("object").remove("apiKey");
    partial["fixtures"]
        .as_object_mut()
        .expect("fixtures")
        .remove("webhook_id");
    let path = temp_dir("env-key-profile").join("partial.json");
    std::fs::write(&path, partial.to_string()).expect("write");
    let o = Command::new(BIN)
        .args([
            "--target",
            &served.url,
            "--profile",
            path.to_str().expect("utf-8"),
        ])
        .env("WORKSPACE_API_KEY", &key)
        .output()
        .expect("runs");
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(
        out.contains("latest.webhooks.get.returns-the-webhook")
            && out.contains("ignored (the profile has no fixture `webhook_id`: "),
        "{out}"
    );
    assert!(!out.contains(&key));
}

#[test]
fn unreachable_target_exits_2_quickly_with_one_message() {
    // Bind then drop a listener: the port is closed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let start = Instant::now();
    let o = run(&[
        "--target",
        &format!("http://127.0.0.1:{port}"),
        "--api-key",
        "k-123456",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{out}\n{err}");
    assert!(start.elapsed() < Duration::from_secs(10));
    assert!(err.contains("unreachable"), "{err}");
    assert!(!out.contains("test "), "no trial should run: {out}");
}

#[test]
fn broken_case_file_exits_2_naming_file_and_line() {
    let dir = temp_dir("bad-case");
    let file = dir.join("broken.yaml");
    std::fs::write(&file, "area: contacts\napi: v1\ncases:\n  - id: x\n    clause: \"Authentication > 1\"\n    request: { method: FETCH, path: /v1/contacts }\n").expect("write");
    let o = run(&["--case-dir", dir.to_str().expect("utf-8")]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}:6:", file.display())), "{err}");

    std::fs::write(&file, "area: contacts\napi: v1\ncases:\n  - id: x\n    clause: \"No such clause\"\n    request: { method: GET, path: /v1/contacts }\n").expect("write");
    let (_, err) = text(&run(&["--case-dir", dir.to_str().expect("utf-8")]));
    assert!(
        err.contains(":5:") && err.contains("unknown clause"),
        "{err}"
    );

    std::fs::write(&file, "area: contacts\napi: v1\ncases:\n  - id: x\n    clause: \"Authentication > 1\"\n    request: { method: GET, path: \"/v1/contacts/{{typo}}\" }\n").expect("write");
    let (_, err) = text(&run(&["--case-dir", dir.to_str().expect("utf-8")]));
    assert!(err.contains(":6:") && err.contains("typo"), "{err}");

    // Text that only looks like a template would be sent as it stands: a load error.
    std::fs::write(&file, "area: contacts\napi: v1\ncases:\n  - id: literal\n    clause: \"Authentication > 1\"\n    request: { method: GET, path: \"/v1/contacts\", query: { q: \"{{987654321}}\" } }\n").expect("write");
    let o = run(&["--case-dir", dir.to_str().expect("utf-8")]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(&format!("{}:6:", file.display()))
            && err.contains("case `literal`")
            && err.contains("`{{987654321}}`"),
        "{err}"
    );
    assert!(!out.contains("test "), "nothing is sent: {out}");
}

#[test]
fn bad_profile_and_bad_arguments_exit_2() {
    let dir = temp_dir("bad-profile");
    let file = dir.join("profile.json");
    // Runs against an unreachable target with `profile` as the profile: exit code and stderr.
    let with_profile = |profile: &str| {
        std::fs::write(&file, profile).expect("write");
        let o = run(&[
            "--target",
            "http://127.0.0.1:9",
            "--profile",
            file.to_str().expect("utf-8"),
        ]);
        (o.status.code(), text(&o).1)
    };
    let (code, err) = with_profile("{\"apiKey\": \"k\",\n \"fixtures\": {\"webhook_id\": {}}}");
    assert_eq!(code, Some(2));
    assert!(
        err.contains("profile.json") && err.contains("webhook_id"),
        "{err}"
    );
    let (code, err) = with_profile(
        "{\"apiKey\": \"k\", \"fixtures\": {\"activity_trigger_path\": \"http://elsewhere\"}}",
    );
    assert_eq!(code, Some(2));
    assert!(
        err.contains("activity_trigger_path") && err.contains("starting with /"),
        "{err}"
    );
    let (code, err) = with_profile("{\"apiKey\": \"k\",\n \"fixtures\": [}");
    assert_eq!(code, Some(2));
    assert!(err.contains("line 2"), "{err}");

    for args in [
        &["--timeout", "abc"][..],
        &["--fault", "no-such-fault"],
        &["--target", "ftp://example.test", "--api-key", "k-123456"],
        &["--target", "http://127.0.0.1:9"],
        &["serve", "--listen", "not-an-address"],
    ] {
        let o = run(args);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            !err.is_empty() && !err.contains("panicked"),
            "{args:?}: {err}"
        );
    }
}
