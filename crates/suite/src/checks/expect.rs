//! The case's own expectations, each one check: status, schema, error, json, headers.
//! (`page` is the pagination walker.) Values are rendered from templates before they get here.

use serde_json::Value;

use super::Finding;
use crate::cases::matcher::{self, show};
use crate::cases::{Expect, StatusExpect};
use crate::client::Response;
use conformance_contract::Contract;

/// Checks `resp` against the expectation; findings cite `clauses` (the case's).
pub fn check(
    contract: &Contract,
    expect: &Expect,
    resp: &Response,
    clauses: &[String],
) -> Vec<Finding> {
    let mut out = Vec::new();
    let mut add = |f: Finding| out.push(f.with_clauses(clauses));
    let default_status = StatusExpect::Class("2xx".into());
    let status = expect.status.as_ref().unwrap_or(&default_status);
    if !status.allows(resp.status) {
        let mut f = Finding::new("", "status", status.describe(), resp.status.to_string())
            .status_class(class_of(status));
        if let Some(note) = super::generic::redirect_note(resp, None) {
            f.actual = format!("{}: {note}", resp.status);
        } else if let Some(body) = resp.value() {
            if let Some(msg) = body.get("message").and_then(Value::as_str) {
                f.actual = format!("{} (message: {msg:?})", resp.status);
            }
        }
        add(f);
        // Further checks on the wrong kind of answer only add noise.
        return out;
    }
    let body = resp.value();
    if let Some(name) = &expect.schema {
        match body.and_then(|b| b.get("data")) {
            None => add(
                Finding::new("", format!("schema {name}"), "a `data` property", "absent")
                    .at("/data"),
            ),
            Some(Value::Array(items)) => {
                for (i, item) in items.iter().enumerate() {
                    for v in contract.validate(name, item, crate::redact::compact) {
                        add(Finding::new(
                            "",
                            format!("schema {name}"),
                            "a value the schema allows",
                            v.message,
                        )
                        .at(format!("/data/{i}{}", v.pointer))
                        .keyword(&v.keyword));
                    }
                }
            }
            Some(data) => {
                for v in contract.validate(name, data, crate::redact::compact) {
                    add(Finding::new(
                        "",
                        format!("schema {name}"),
                        "a value the schema allows",
                        v.message,
                    )
                    .at(format!("/data{}", v.pointer))
                    .keyword(&v.keyword));
                }
            }
        }
    }
    if let Some(err) = &expect.error {
        if let Some(code) = &err.code {
            let got = body.and_then(|b| b.get("code"));
            if got.and_then(Value::as_str) != Some(code.as_str()) {
                add(Finding::new("", "error code", code.clone(), show(got)).at("/code"));
            }
        }
        if let Some(title) = &err.title {
            let got = body.and_then(|b| b.get("title"));
            if got.and_then(Value::as_str) != Some(title.as_str()) {
                add(Finding::new("", "error title", title.clone(), show(got)).at("/title"));
            }
        }
        if let Some(m) = &err.message {
            if let Err(mm) = matcher::check(m, body.and_then(|b| b.get("message")), "/message") {
                add(Finding::new("", "error message", mm.expected, mm.actual).at(mm.pointer));
            }
        }
    }
    for (pointer, m) in &expect.json {
        let actual = body.and_then(|b| b.pointer(pointer));
        if let Err(mm) = matcher::check(m, actual, pointer) {
            add(Finding::new("", format!("json {pointer}"), mm.expected, mm.actual).at(mm.pointer));
        }
    }
    for (name, m) in &expect.headers {
        if resp
            .non_utf8_headers
            .iter()
            .any(|h| h.eq_ignore_ascii_case(name))
        {
            add(Finding::new(
                "",
                format!("header {name}"),
                "a UTF-8 value",
                format!("header {} is not UTF-8", name.to_ascii_lowercase()),
            ));
            continue;
        }
        let actual = resp.header(name).map(|v| Value::String(v.to_string()));
        if let Err(mm) = matcher::check(m, actual.as_ref(), "") {
            add(Finding::new(
                "",
                format!("header {name}"),
                mm.expected,
                mm.actual,
            ));
        }
    }
    out
}

/// The classes of status an expectation allows (`2xx`, `4xx`, `2xx or 4xx`): the rule of a
/// status check, whatever code in the class the case names.
pub(crate) fn class_of(status: &StatusExpect) -> String {
    let classes: std::collections::BTreeSet<u16> = (100..600)
        .filter(|c| status.allows(*c))
        .map(|c| c / 100)
        .collect();
    classes
        .iter()
        .map(|c| format!("{c}xx"))
        .collect::<Vec<_>>()
        .join(" or ")
}
