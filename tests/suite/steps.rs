//! Step options of case files, run against the reference: `repeat` (until a status, bounded,
//! collecting values), `for_each` (once per collected item) and `always` (cleanup after a failure).

use std::sync::Arc;

use conformance_contract::Contract;
use conformance_reference::{Fault, FaultSet, VariantSet};
use conformance_suite::cases::{Case, load_sources};
use conformance_suite::results::{CaseResult, Verdict};
use workspace_conformance::app::{Certification, certify};

fn load(text: &str) -> Result<Vec<Arc<Case>>, String> {
    let contract = Contract::embedded().expect("contract loads");
    load_sources(&[("steps.yaml".to_string(), text.to_string())], &contract)
        .map(|cases| cases.into_iter().map(Arc::new).collect())
        .map_err(|e| e.to_string())
}

fn run(text: &str, faults: FaultSet) -> Vec<(Arc<Case>, CaseResult)> {
    let cases = load(text).expect("case file loads");
    let contract = Arc::new(Contract::embedded().expect("contract loads"));
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(certify(
            contract,
            &cases,
            Certification::reference(faults, VariantSet::default()),
        ))
        .expect("run")
}

/// Fills to the limit, then checks that every collected task was deleted by the cleanup.
const FILL: &str = r#"
area: steps
api: v1
cases:
  - id: fill
    clause: "Errors > Rules > 6"
    exclusive: true
    steps:
      - request: { method: POST, path: /v1/tasks, body: { title: "{{run}} fill", phoneNumberId: "{{phone_number_id}}" } }
        repeat: { until: 402, max: "{{open_task_limit}}", collect: { filled: /data/taskId } }
        expect: { status: 402 }
      - request: { method: DELETE, path: "/v1/tasks/{{t}}" }
        for_each: { in: filled, as: t }
        always: true
      - request: { method: GET, path: "/v1/tasks/{{t}}" }
        for_each: { in: filled, as: t }
        expect: { status: 404 }
"#;

fn count(result: &CaseResult, method: &str) -> usize {
    result
        .exchanges
        .iter()
        .filter(|e| e.method == method)
        .count()
}

/// The reference's open-task limit, as its profile states it (`open_task_limit`).
const LIMIT: usize = 40;

#[test]
fn repeat_stops_at_until_and_for_each_visits_every_collected_item() {
    let results = run(FILL, FaultSet::default());
    let (_, result) = &results[0];
    assert!(
        matches!(result.verdict, Verdict::Passed),
        "{:?}",
        result.verdict
    );
    // The reference keeps 2 seeded open tasks below its limit: LIMIT - 2 creates, then the 402.
    assert_eq!(count(result, "POST"), LIMIT - 2 + 1);
    assert_eq!(count(result, "DELETE"), LIMIT - 2);
    assert_eq!(count(result, "GET"), LIMIT - 2);
}

#[test]
fn repeat_past_max_fails_and_always_steps_still_clean_up() {
    let results = run(FILL, FaultSet::new([Fault::TaskLimitNotEnforced]));
    let (_, result) = &results[0];
    let Verdict::Failed(failures) = &result.verdict else {
        panic!("expected a failure, got {:?}", result.verdict)
    };
    assert!(failures.iter().any(|f| f.finding.check == "repeat"));
    assert!(failures.iter().all(|f| f.step == 1));
    // max + 1 answers 2xx, each collected and deleted; the GET step (not `always`) is skipped.
    assert_eq!(count(result, "POST"), LIMIT + 1);
    assert_eq!(count(result, "DELETE"), LIMIT + 1);
    assert_eq!(count(result, "GET"), 0);
}

#[test]
fn for_each_needs_a_defined_list_and_names_must_not_shadow_fixtures() {
    let unknown = r#"
area: steps
api: v1
cases:
  - id: each
    clause: "Errors > Rules > 6"
    steps:
      - request: { method: DELETE, path: "/v1/tasks/{{t}}" }
        for_each: { in: nowhere, as: t }
"#;
    let err = load(unknown).expect_err("unknown list");
    assert!(err.contains("nowhere"), "{err}");
    let shadow = r#"
area: steps
api: v1
cases:
  - id: shadow
    clause: "Errors > Rules > 6"
    steps:
      - request: { method: POST, path: /v1/tasks, body: { title: x, phoneNumberId: PN1 } }
        repeat: { until: 402, max: 3, collect: { user_id: /data/taskId } }
"#;
    let err = load(shadow).expect_err("shadowing collect");
    assert!(err.contains("user_id"), "{err}");
}

#[test]
fn repeat_with_a_max_that_is_no_count_fails_before_sending() {
    let text = r#"
area: steps
api: v1
cases:
  - id: bad-max
    clause: "Errors > Rules > 6"
    steps:
      - request: { method: POST, path: /v1/tasks, body: { title: "{{run}} x", phoneNumberId: "{{phone_number_id}}" } }
        repeat: { until: 402, max: "{{run}}" }
        expect: { status: 402 }
"#;
    let results = run(text, FaultSet::default());
    let (_, result) = &results[0];
    let Verdict::Failed(failures) = &result.verdict else {
        panic!("expected a failure, got {:?}", result.verdict)
    };
    assert_eq!(failures[0].finding.check, "repeat");
    assert_eq!(count(result, "POST"), 0);
}

#[test]
fn text_that_only_looks_like_a_template_is_a_load_error_naming_file_line_and_case() {
    for (part, request) in [
        (
            "path",
            r#"{ method: GET, path: "/v1/contacts/{{987654321}}" }"#,
        ),
        (
            "query",
            r#"{ method: GET, path: /v1/contacts, query: { q: "a{{ no such }}" } }"#,
        ),
        (
            "headers",
            r#"{ method: GET, path: /v1/contacts, headers: { X-Id: "{{1}}" } }"#,
        ),
        (
            "body",
            r#"{ method: POST, path: /v1/contacts, body: { externalId: "{{run}}-{{-}}" } }"#,
        ),
    ] {
        let text = format!(
            "area: steps\napi: v1\ncases:\n  - id: looks-like-a-template\n    clause: \"Authentication > 1\"\n    request: {request}\n"
        );
        let err = load(&text).expect_err(part);
        assert!(
            err.starts_with("steps.yaml:6:")
                && err.contains("case `looks-like-a-template`")
                && err.contains(&format!("in the request's {part}"))
                && err.contains("it would be sent as it stands"),
            "{part}: {err}"
        );
    }
}

#[test]
fn no_generated_trial_sends_a_template() {
    // The access matrix and versioning cells, run against the reference: every path, query,
    // header and body went out rendered.
    let contract = Arc::new(Contract::embedded().expect("contract loads"));
    let cases: Vec<Arc<Case>> = conformance_suite::cases::generated::generate(&contract)
        .expect("generated")
        .into_iter()
        .map(Arc::new)
        .collect();
    let results = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime")
        .block_on(certify(
            contract,
            &cases,
            Certification::reference(FaultSet::default(), VariantSet::default()),
        ))
        .expect("run");
    let mut sent = 0;
    for (case, r) in &results {
        assert!(
            matches!(r.verdict, Verdict::Passed),
            "{}: {:?}",
            case.name,
            r.verdict
        );
        for ex in &r.exchanges {
            sent += 1;
            let shown = format!("{} {:?} {:?}", ex.url, ex.request_headers, ex.request_body);
            assert!(
                !shown.contains("{{") && !shown.to_ascii_uppercase().contains("%7B%7B"),
                "{}: {shown}",
                case.name
            );
        }
    }
    assert!(
        sent >= cases.len(),
        "{sent} requests for {} cases",
        cases.len()
    );
}

/// A read-back whose effect never shows: with `poll`, the read is repeated for the reference's
/// `effect_seconds` (1) and the failure says how long; without, it fails at once.
const READ_BACK: &str = r#"
area: steps
api: v1
cases:
  - id: read-back-polls
    clause: "States and transitions > Task > complete"
    steps:
      - request: { method: POST, path: /v1/tasks, body: { title: "{{run}} poll", phoneNumberId: "{{phone_number_id}}" } }
        save: { task: /data/taskId }
      - request: { method: POST, path: "/v1/tasks/{{task}}/complete" }
        read_back: { path: "/v1/tasks/{{task}}", json: { /data/completed: false }, poll: true }
      - request: { method: DELETE, path: "/v1/tasks/{{task}}" }
        always: true
  - id: read-back-keeps
    clause: "Header-versioned API > POST /webhooks/{id}/rotate"
    steps:
      - request:
          method: POST
          path: /webhooks
          body: { label: "{{run}} keeps", url: "{{webhook_url}}", status: disabled, events: [message.received, message.delivered], resourceIds: ["{{phone_number_id}}"] }
        save: { hook: /data/id }
      - request: { method: POST, path: "/webhooks/{{hook}}/rotate" }
        read_back: { path: "/webhooks/{{hook}}", same: [/data/events] }
      - request: { method: DELETE, path: "/webhooks/{{hook}}" }
        always: true
"#;

#[test]
fn read_back_polls_within_the_bound_and_keeps_what_is_named() {
    let started = std::time::Instant::now();
    let results = run(READ_BACK, FaultSet::default());
    let took = started.elapsed();
    let verdict = |name: &str| {
        results
            .iter()
            .find(|(c, _)| c.name.ends_with(name))
            .map(|(_, r)| r)
            .expect("the case ran")
    };
    // Completed tasks read back `completed: true`: the effect `false` never shows.
    match &verdict("read-back-polls").verdict {
        Verdict::Failed(f) => {
            let text = format!("{f:?}");
            assert!(text.contains("effect_seconds"), "{text}");
        }
        other => panic!("expected a failure, got {other:?}"),
    }
    assert!(
        took >= std::time::Duration::from_millis(900),
        "no poll: {took:?}"
    );
    assert!(
        took < std::time::Duration::from_secs(8),
        "poll not bounded: {took:?}"
    );
    assert!(
        matches!(verdict("read-back-keeps").verdict, Verdict::Passed),
        "{:?}",
        verdict("read-back-keeps").verdict
    );
    // The rotate that cuts the events fails the `same` read.
    let results = run(
        READ_BACK,
        FaultSet::new(vec![Fault::WebhookRotateResetsEvents]),
    );
    let keeps = results
        .iter()
        .find(|(c, _)| c.name.ends_with("read-back-keeps"))
        .expect("ran");
    assert!(
        matches!(keeps.1.verdict, Verdict::Failed(_)),
        "{:?}",
        keeps.1.verdict
    );
}

#[test]
fn a_read_back_belongs_to_an_accepted_change() {
    let on_get = READ_BACK.replace(
        r#"- request: { method: POST, path: "/v1/tasks/{{task}}/complete" }"#,
        r#"- request: { method: GET, path: "/v1/tasks/{{task}}" }"#,
    );
    let e = load(&on_get).expect_err("a read-back on a GET");
    assert!(e.contains("not a GET"), "{e}");
    let both = READ_BACK.replace(
        "same: [/data/events]",
        "json: { /data/events: [] }, same: [/data/events]",
    );
    let e = load(&both).expect_err("a pointer both asserted and kept");
    assert!(e.contains("does not also assert"), "{e}");
}

const NARROWED: &str = r#"
area: contacts
api: v1
cases:
  - id: narrowed
    clause: ["Resources > Contact > defaultFields", "v1 API: contacts > PATCH /v1/contacts/{id}"]
    steps:
      - request: { method: POST, path: /v1/contacts, body: { defaultFields: { firstName: Ada, emails: [ { name: work, value: a@x.test }, { name: home, value: b@x.test } ] } } }
        expect: { status: 201 }
        save: { contact: /data/id }
      - clause: "v1 API: contacts > PATCH /v1/contacts/{id}"
        request: { method: PATCH, path: "/v1/contacts/{{contact}}", body: { defaultFields: { emails: [ { name: work, value: a@x.test } ] } } }
        expect: { status: 200, json: { /data/defaultFields/emails: { length: 1 } } }
"#;

#[test]
fn a_step_clause_narrows_what_its_expectation_findings_cite() {
    let results = run(
        NARROWED,
        FaultSet::new([Fault::from_name("patch-merges-entries").expect("fault")]),
    );
    let Verdict::Failed(failures) = &results[0].1.verdict else {
        panic!("the PATCH step passes with patch-merges-entries on");
    };
    for f in failures {
        assert_eq!(
            f.finding.clauses,
            vec!["v1 API: contacts > PATCH /v1/contacts/{id}".to_string()],
            "{f:?}"
        );
    }
    // Without the step's clause, the findings cite the case's whole list.
    let whole = NARROWED.replace(
        "      - clause: \"v1 API: contacts > PATCH /v1/contacts/{id}\"\n        request",
        "      - request",
    );
    let results = run(
        &whole,
        FaultSet::new([Fault::from_name("patch-merges-entries").expect("fault")]),
    );
    let Verdict::Failed(failures) = &results[0].1.verdict else {
        panic!("the PATCH step passes with patch-merges-entries on");
    };
    assert_eq!(failures[0].finding.clauses.len(), 2, "{:?}", failures[0]);
}

#[test]
fn a_step_clause_is_one_of_the_cases_clauses() {
    let other = NARROWED.replace(
        "      - clause: \"v1 API: contacts > PATCH /v1/contacts/{id}\"",
        "      - clause: \"Errors > Rules > 2\"",
    );
    let err = load(&other).expect_err("a step clause outside the case's list");
    assert!(
        err.contains("steps.yaml:11") && err.contains("not one of the case's clauses"),
        "{err}"
    );
    let unknown = NARROWED.replace(
        "      - clause: \"v1 API: contacts > PATCH /v1/contacts/{id}\"",
        "      - clause: \"No such clause\"",
    );
    let err = load(&unknown).expect_err("an unknown step clause");
    assert!(
        err.contains("steps.yaml:11") && err.contains("unknown clause"),
        "{err}"
    );
}
