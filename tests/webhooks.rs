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
