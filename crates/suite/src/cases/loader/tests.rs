//! The loader on small case files: what a case becomes, the position of an error, and the
//! checks `schemas/case-file.schema.json` makes first (`tests/bad_input.rs` cannot reach them
//! through the schema, so they are run here without it).

use super::*;

const HEAD: &str = "area: contacts\napi: v1\ncases:\n";
const CLAUSE: &str = "Authentication > 1";

fn contract() -> Contract {
    Contract::embedded().expect("the embedded contract loads")
}

/// Loads `cases` (the YAML after `cases:`) as `t.yaml`, through the case-file schema.
fn load(cases: &str) -> Result<Vec<Case>, LoadError> {
    load_sources(&[("t.yaml".into(), format!("{HEAD}{cases}"))], &contract())
}

/// Loads `cases` without the case-file schema: what the loader's own checks say.
fn load_unchecked(cases: &str) -> Result<Vec<Case>, LoadError> {
    let anything = jsonschema::validator_for(&serde_json::json!({})).expect("empty schema");
    let setups = super::setups::embedded(&contract()).expect("the setups load");
    load_file(
        "t.yaml",
        &format!("{HEAD}{cases}"),
        &anything,
        &contract(),
        &setups,
    )
}

#[test]
fn the_embedded_case_file_schema_compiles() {
    assert!(
        CASE_FILE_VALIDATOR.is_ok(),
        "{:?}",
        CASE_FILE_VALIDATOR.as_ref().err()
    );
}

#[test]
fn an_error_in_a_case_names_the_file_line_and_case() {
    let e = load(
        "  - id: ok\n    clause: \"Authentication > 1\"\n    request: { method: GET, path: /v1/contacts }\n  - id: typo\n    clause: \"Authentication > 1\"\n    request: { method: GET, path: /v1/contacts, query: { q: \"{{tpyo}}\" } }\n",
    )
    .expect_err("an undefined name");
    assert_eq!(
        e.pos,
        Position {
            file: "t.yaml".into(),
            line: 9,
            case: Some("typo".into()),
        }
    );
    assert_eq!(e.kind.name(), "UndefinedName");
    assert_eq!(
        e.to_string(),
        "t.yaml:9: case `typo`: `{{tpyo}}` is not a builtin (run, webhook_url, cell, cell_instant), not saved by an earlier step, and not a known fixture (see docs/profile.md)"
    );
}

#[test]
fn an_error_outside_a_case_names_no_case() {
    let e =
        load_sources(&[("t.yaml".into(), "area: [\n".into())], &contract()).expect_err("bad YAML");
    assert_eq!(e.pos.case, None);
    assert_eq!(e.kind.name(), "Yaml");
    assert!(e.to_string().starts_with("t.yaml:"), "{e}");
}

#[test]
fn a_case_records_its_fixtures_and_the_steps_its_options_add() {
    let cases = load(
        "  - id: patch\n    clause: \"v1 API: contacts > PATCH /v1/contacts/{id}\"\n    request: { method: PATCH, path: \"/v1/contacts/{{run}}\", headers: { X-Who: \"{{user_id}}\" }, body: { externalId: 5 } }\n    control: { body: { externalId: x } }\n    expect: { status: 400 }\n",
    )
    .expect("loads");
    let case = &cases[0];
    assert_eq!(case.name, "v1.contacts.patch");
    assert_eq!(case.line, 4);
    assert!(!case.read_only);
    assert_eq!(
        case.fixtures.iter().collect::<Vec<_>>(),
        ["user_id"],
        "builtins are no fixtures"
    );
    // The must-reject step, then its control: the same route, expected to be accepted.
    assert_eq!(case.steps.len(), 2);
    let control = case.steps[1].control_of.as_ref().expect("a control");
    assert_eq!(control.step, 0);
    assert!(
        matches!(&case.steps[1].expect.status, Some(StatusExpect::Class(c)) if c == "2xx"),
        "{:?}",
        case.steps[1].expect.status
    );
}

#[test]
fn a_read_back_keeping_a_value_reads_before_and_after_the_step() {
    let cases = load(
        "  - id: create\n    clause: \"v1 API: contacts > POST /v1/contacts\"\n    request: { method: POST, path: /v1/contacts, body: { externalId: \"{{run}}-x\" } }\n    save: { contact: /data/id }\n    read_back: { path: \"/contacts/{{contact}}\", same: [/data/source] }\n",
    )
    .expect("loads");
    let steps = &cases[0].steps;
    assert_eq!(steps.len(), 3);
    assert_eq!(steps[0].read_back_of, Some(1), "the read of what is kept");
    assert_eq!(
        steps[0].save,
        [("read_back_0_0".into(), "/data/source".into())]
    );
    assert_eq!(steps[1].read_back_of, None, "the step itself");
    assert_eq!(steps[2].read_back_of, Some(1), "the read of the effect");
}

/// The kind and text of what `cases` gives without the schema.
fn refused(cases: &str) -> (&'static str, String) {
    let e = load_unchecked(cases).expect_err("refused");
    (e.kind.name(), e.to_string())
}

#[test]
fn checks_the_schema_makes_first_hold_without_it() {
    let request = "    request: { method: GET, path: /v1/contacts }\n";
    let post =
        "    request: { method: POST, path: /v1/contacts, body: { externalId: \"{{run}}-x\" } }\n";
    let id = format!("  - id: x\n    clause: \"{CLAUSE}\"\n");
    let step_head = "    steps:\n";
    for (cases, kind, text) in [
        (
            format!("{id}    readings: [\"one\"]\n{request}"),
            "BadReading",
            "t.yaml:6: case `x`: bad reading number `one`",
        ),
        (
            id.clone(),
            "NoRequest",
            "t.yaml:4: case `x`: needs `request` or `steps`",
        ),
        (
            format!("{id}{step_head}      - always: true\n"),
            "StepWithoutRequest",
            "t.yaml:7: case `x`: a step needs `request` or `deliveries`",
        ),
        (
            format!(
                "{id}{step_head}      - request: {{ method: GET, path: /v1/contacts }}\n        secret: s\n      - deliveries: {{ min: 1, verify: s, save: {{ n: data }} }}\n"
            ),
            "DeliverySave",
            "t.yaml:9: case `x`: save `n`: `header:NAME` or a JSON Pointer",
        ),
        (
            format!("{id}{request}    expect: {{ page: {{ tally: {{ n: 5 }} }} }}\n"),
            "Tally",
            "t.yaml:7: case `x`: tally `n`: pointer -> matcher",
        ),
        (
            format!("{id}{post}    unchanged: {{ path: /v1/contacts, ids: id }}\n"),
            "WatchIds",
            "t.yaml:7: case `x`: `ids` is a JSON Pointer inside each item (`/id`)",
        ),
        (
            format!(
                "{id}{post}    save: {{ c: /data/id }}\n    read_back: {{ path: \"/contacts/{{{{c}}}}\", json: {{ data: 1 }} }}\n"
            ),
            "NotAPointer",
            "t.yaml:8: case `x`: `data` is not a JSON Pointer",
        ),
    ] {
        assert_eq!(refused(&cases), (kind, text.to_string()), "{cases}");
    }
}

#[test]
fn the_embedded_schema_kind_names_the_schema_file() {
    let e = LoadError::at(
        "schemas/case-file.schema.json",
        0,
        LoadErrorKind::CaseFileSchema("expected value".into()),
    );
    assert_eq!(
        e.to_string(),
        "schemas/case-file.schema.json:0: expected value"
    );
}
