//! READINGS 6.12: every generated request a default run requires to succeed holds only values
//! the contract states a target accepts, or values the target itself showed. The run records
//! what it held to a success; this test judges each request apart from the run, from the route
//! table alone: a query parameter the table names, a member of a stated set as written, an
//! integer within its stated range (1-50 where none is stated), an instant, a length within its
//! bounds, and for a parameter whose values the contract does not give, a value some answer of
//! the run showed; a body that sets something.

use std::sync::Arc;

use conformance_reference::{FaultSet, VariantSet};
use conformance_suite::execute::MustAccept;
use serde_json::Value;
use workspace_conformance::app::{Certification, certify as certify_with, new_run_id};

use crate::common;

/// Why a query value is not stated for its parameter's schema, or `None`.
fn unstated_value(schema: &Value, v: &str, shown: &dyn Fn(&str) -> bool) -> Option<String> {
    if let Some(set) = schema.get("enum").or_else(|| schema.get("x-values")) {
        let members: Vec<&str> = set
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        return (!members.contains(&v)).then(|| format!("`{v}` is not one of {members:?}"));
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") => {
            let n: i64 = v.parse().ok()?;
            let min = schema.get("minimum").and_then(Value::as_i64).unwrap_or(1);
            let max = schema.get("maximum").and_then(Value::as_i64).unwrap_or(50);
            return (n < min || n > max).then(|| format!("{n} outside {min}-{max}"));
        }
        Some("boolean") => return None,
        _ => {}
    }
    if schema.get("format").and_then(Value::as_str) == Some("date-time") {
        return None;
    }
    let len = v.chars().count() as u64;
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        if len > max {
            return Some(format!("{len} characters, over {max}"));
        }
    }
    let bounded = schema.get("minLength").is_some() || schema.get("maxLength").is_some();
    let pattern = schema.get("pattern").and_then(Value::as_str);
    if let Some(p) = pattern {
        if !regex::Regex::new(p).is_ok_and(|re| re.is_match(v)) {
            return Some(format!("`{v}` does not match {p}"));
        }
    }
    // A domain the contract does not give (no set, range, length or pattern), or an id of a
    // stated prefix: only a value the target showed.
    let id = pattern.is_some_and(|p| {
        let p = p.trim_start_matches('^');
        p.len() >= 2 && p[..2].chars().all(|c| c.is_ascii_uppercase())
    });
    ((id || (!bounded && pattern.is_none())) && !shown(v)).then(|| {
        format!("`{v}` is of a domain the contract does not give, and no answer showed it")
    })
}

#[test]
fn every_request_a_default_run_requires_to_succeed_holds_only_stated_or_shown_values() {
    let (contract, cases) = common::catalog();
    let rt = common::runtime();
    let sink = Arc::new(MustAccept::default());
    let results = rt
        .block_on(certify_with(
            contract.clone(),
            &cases,
            Certification::reference(FaultSet::default(), VariantSet::default())
                .seed(1)
                .run_id(&new_run_id())
                .recording(sink.clone()),
        ))
        .expect("run");
    assert!(common::failure_report(&results).is_empty());
    let requests = sink.requests.lock().expect("requests").clone();
    let shown = sink.shown.lock().expect("shown").clone();
    let is_shown = |v: &str| shown.contains(v);
    assert!(
        requests.len() > 300,
        "only {} requests held to a success",
        requests.len()
    );
    let mut wrong = Vec::new();
    for out in &requests {
        let path = out.path.split('?').next().unwrap_or("");
        let route = contract
            .route(&out.method, path)
            .unwrap_or_else(|| panic!("{} {path} is not in the route table", out.method));
        for (k, v) in &out.query {
            let Some(param) = route.query_param(k) else {
                // The profile names the unshown parameters of GET /v1/conversations.
                if route.template != "/v1/conversations" {
                    wrong.push(format!(
                        "{} {path}: `{k}` is not a named parameter",
                        out.method
                    ));
                }
                continue;
            };
            let schema = match param.schema.get("items") {
                Some(items) => contract.resolve(items),
                None => contract.resolve(&param.schema),
            };
            let values: Vec<&str> = if k.ends_with("[in]") {
                v.split(',').collect()
            } else {
                vec![v.as_str()]
            };
            for one in values {
                if let Some(why) = unstated_value(schema, one, &is_shown) {
                    wrong.push(format!("{} {path}?{k}={one}: {why}", out.method));
                }
            }
        }
        if let (Some(Value::Object(m)), "PATCH" | "PUT") = (&out.body, out.method.as_str()) {
            if m.is_empty() {
                wrong.push(format!("{} {path}: an empty update", out.method));
            }
        }
    }
    wrong.sort();
    wrong.dedup();
    assert!(
        wrong.is_empty(),
        "requests held to a success with values the contract does not state as accepted:\n{}",
        wrong.join("\n")
    );
}
