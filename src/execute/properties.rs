//! Runs a property: its setup, the boundary inputs, then seeded random inputs on either side;
//! a failing random input is shrunk to a minimal one before it is reported.

use std::future::Future;
use std::sync::Arc;

use proptest::strategy::{SBoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

use super::Executor;
use crate::cases::Case;
use crate::cases::properties::generate::{self, Context};
use crate::cases::properties::{Limit, Property, Target};
use crate::cases::template::Vars;
use crate::checks::{Failure, Finding};
use crate::client::{Exchange, Outgoing};

/// Findings of one input, with the exchange they concern.
pub(super) type Found = Vec<(Finding, Arc<Exchange>)>;

/// Shrinking steps tried after a random input fails; each step is one or a few requests.
const MAX_SHRINK_STEPS: usize = 48;

/// Runs the property of `case`: the failures (empty when it holds) and every exchange.
pub async fn run(
    exec: &Executor,
    case: &Case,
    property: &Property,
    vars: Vars,
) -> (Vec<Failure>, Vec<Arc<Exchange>>) {
    let mut exchanges = Vec::new();
    let failures = match property {
        Property::Limit(limit) => run_limit(exec, case, limit, vars, &mut exchanges).await,
        Property::ContactRoundTrip => super::roundtrip::run(exec, case, &mut exchanges).await,
    };
    (failures, exchanges)
}

/// FNV-1a of a text: a stable hash for names.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

/// A deterministic rng for one property: the run's seed mixed with the trial name, so a filter
/// does not change the inputs of the trials it keeps.
/// The findings of a property's failing input as failures of its last step, each saying which
/// input failed (`note`).
pub(super) fn failures(found: Found, note: &str, steps: usize) -> Vec<Failure> {
    found
        .into_iter()
        .map(|(mut finding, ex)| {
            finding.actual = format!("{}; {note}", finding.actual);
            Failure {
                finding,
                step: steps,
                steps,
                exchange: Some(ex),
            }
        })
        .collect()
}

pub(super) fn runner_for(seed: u64, name: &str) -> TestRunner {
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in name.bytes() {
        state = (state ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Whether the findings hold a transport failure (no complete answer): it says nothing about the
/// input, so it is never shrunk.
pub(super) fn transport_failure(found: &Found) -> bool {
    found.iter().any(|(_, ex)| ex.outcome.is_err())
}

/// The note on a failing random input: the minimal input after shrinking, or, for a transport
/// failure, the input as it was (a transport failure is not the input's fault).
pub(super) fn input_note(input: &Value, found: &Found, seed: u64, run: &str) -> String {
    if transport_failure(found) {
        format!(
            "a transport failure on the random input {}, not shrunk: it says nothing of the input (replay: --seed {seed} --run-id {run})",
            show(input)
        )
    } else {
        format!(
            "minimal input after shrinking: {} (replay: --seed {seed} --run-id {run})",
            show(input)
        )
    }
}

/// Tries `n` random inputs; on the first failure shrinks it and returns the minimal failing input
/// with its findings. A transport failure is returned as it came, unshrunk, and a transport
/// failure while shrinking ends the shrinking with the smallest input that failed on its own.
pub(super) async fn search<F, Fut>(
    runner: &mut TestRunner,
    strategy: &SBoxedStrategy<Value>,
    n: u32,
    mut test: F,
) -> Option<(Value, Found)>
where
    F: FnMut(Value) -> Fut,
    Fut: Future<Output = Found>,
{
    for _ in 0..n {
        let Ok(mut tree) = strategy.new_tree(runner) else {
            return None;
        };
        let found = test(tree.current()).await;
        if found.is_empty() {
            continue;
        }
        if transport_failure(&found) {
            return Some((tree.current(), found));
        }
        let mut best = (tree.current(), found);
        let mut passed_last = false;
        for _ in 0..MAX_SHRINK_STEPS {
            let moved = if passed_last {
                tree.complicate()
            } else {
                tree.simplify()
            };
            if !moved {
                break;
            }
            let found = test(tree.current()).await;
            if transport_failure(&found) {
                break;
            }
            if found.is_empty() {
                passed_last = true;
            } else {
                best = (tree.current(), found);
                passed_last = false;
            }
        }
        return Some(best);
    }
    None
}

/// A value in words: short values whole, long strings by length and start.
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(24).collect();
            format!("a string of {} characters ({head:?}…)", s.chars().count())
        }
        Value::Array(items) if items.len() > 3 => format!("an array of {} items", items.len()),
        other => other.to_string(),
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The request with `value` put at the target.
fn apply(base: &Outgoing, limit: &Limit, value: &Value) -> Outgoing {
    let mut out = base.clone();
    let value = if limit.wrap_in_array {
        Value::Array(vec![value.clone()])
    } else {
        value.clone()
    };
    match &limit.target {
        Target::Query(name) => {
            out.query.retain(|(k, _)| k != name);
            match &value {
                Value::Array(items) => out
                    .query
                    .extend(items.iter().map(|i| (name.clone(), text(i)))),
                other => out.query.push((name.clone(), text(other))),
            }
        }
        Target::Path(index) => {
            let mut segments: Vec<String> = out
                .path
                .trim_start_matches('/')
                .split('/')
                .map(str::to_string)
                .collect();
            if let Some(seg) = segments.get_mut(*index) {
                *seg = text(&value);
            }
            out.path = format!("/{}", segments.join("/"));
        }
        Target::Body(pointer) => {
            if let Some(slot) = out.body.as_mut().and_then(|b| b.pointer_mut(pointer)) {
                *slot = value;
            }
        }
    }
    out
}

/// The example's value at the target.
fn current(base: &Outgoing, limit: &Limit) -> Value {
    match &limit.target {
        Target::Query(name) => base
            .query
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| Value::String(v.clone()))
            .unwrap_or(Value::Null),
        Target::Path(index) => base
            .path
            .trim_start_matches('/')
            .split('/')
            .nth(*index)
            .map(|s| Value::String(s.to_string()))
            .unwrap_or(Value::Null),
        Target::Body(pointer) => base
            .body
            .as_ref()
            .and_then(|b| b.pointer(pointer))
            .cloned()
            .unwrap_or(Value::Null),
    }
}

async fn run_limit(
    exec: &Executor,
    case: &Case,
    limit: &Limit,
    mut vars: Vars,
    exchanges: &mut Vec<Arc<Exchange>>,
) -> Vec<Failure> {
    let steps = limit.example.setup.len() + 1;
    // Unique suffixes depend only on the trial and the input's rank, so a seed replays exactly.
    let tag = format!("{:04x}", fnv(&case.name) & 0xffff);
    for (i, step) in limit.example.setup.iter().enumerate() {
        // What the setup creates is the trial's own: the example's unique fields (an externalId
        // a target may keep unique, 409) get the trial's tag, as every input does.
        let mut step = step.clone();
        if let Some(body) = step.request.as_mut().and_then(|r| r.body.as_mut()) {
            for pointer in &limit.example.unique {
                if let Some(Value::String(s)) = body.pointer_mut(pointer) {
                    s.push_str(&format!("-{tag}"));
                }
            }
        }
        match exec.run_step(case, &step, &mut vars, exchanges).await {
            Ok(found) if found.is_empty() => {}
            Ok(found) => {
                return found
                    .into_iter()
                    .map(|(finding, ex)| Failure {
                        finding,
                        step: i + 1,
                        steps,
                        exchange: ex,
                    })
                    .collect();
            }
            Err(missing) => {
                let finding = Finding::new(
                    "",
                    "template",
                    "every variable has a value",
                    missing.to_string(),
                )
                .with_clauses(&case.clauses);
                return vec![Failure {
                    finding,
                    step: i + 1,
                    steps,
                    exchange: None,
                }];
            }
        }
    }
    let (base, deviation) = match exec.render_request(&limit.example.request, &vars) {
        Ok(r) => r,
        Err(missing) => {
            let finding = Finding::new(
                "",
                "template",
                "every variable has a value",
                missing.to_string(),
            )
            .with_clauses(&case.clauses);
            return vec![Failure {
                finding,
                step: steps,
                steps,
                exchange: None,
            }];
        }
    };
    let avoid = if limit
        .schema
        .get("x-reserved-names")
        .and_then(Value::as_bool)
        == Some(true)
    {
        [
            "brand_name",
            "automation_integration_name",
            "contacts_sync_integration_name",
        ]
        .iter()
        .filter_map(|f| vars.get(f).and_then(Value::as_str).map(str::to_lowercase))
        .chain(["device", "csv", "other"].iter().map(|s| s.to_string()))
        .collect()
    } else {
        Vec::new()
    };
    let pool = match &limit.target {
        Target::Body(pointer) => limit
            .example
            .items
            .get(pointer)
            .and_then(|t| vars.render_value(t).ok()),
        _ => None,
    };
    let ctx = Context {
        example: current(&base, limit),
        keeps_format: limit.schema.get("format").is_some(),
        avoid,
        pool: match pool {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        resources: limit.accept_invented.is_some(),
    };
    // The values the example (the profile, the run) gives at the probed place: a valid input
    // naming anything else names an invented resource (READINGS 6.6).
    let own: Vec<Value> = match &ctx.example {
        Value::Array(items) => items.clone(),
        Value::Null => Vec::new(),
        one => vec![one.clone()],
    };
    let invents = |value: &Value| match value {
        Value::Array(items) => items.iter().any(|i| !own.contains(i)),
        Value::Null => false,
        one => !own.contains(one),
    };
    let recorded = std::sync::Mutex::new(Vec::new());
    let inputs = std::sync::atomic::AtomicU64::new(0);
    let check = |value: Value, valid: bool| {
        // An empty or dot segment is no value of the parameter: URL resolution turns it into
        // another path. An empty query value may mean "not given" to a conforming target
        // (required-ness is not shown, READINGS 6.3), so it is no probe either.
        let empty = match &value {
            Value::Array(items) => items.is_empty() || items.iter().all(|i| text(i).is_empty()),
            other => text(other).is_empty(),
        };
        let skip = value.is_null()
            || match limit.target {
                Target::Path(_) => matches!(text(&value).as_str(), "" | "." | ".."),
                Target::Query(_) => empty,
                Target::Body(_) => false,
            };
        let mut out = apply(&base, limit, &value);
        for pointer in &limit.example.unique {
            let own = matches!(&limit.target, Target::Body(p) if p == pointer);
            if let Some(Value::String(s)) = out
                .body
                .as_mut()
                .and_then(|b| b.pointer_mut(pointer))
                .filter(|_| !own)
            {
                s.push_str(&format!(
                    "-{tag}{}",
                    inputs.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
                ));
            }
        }
        let recorded = &recorded;
        let invented = valid && invents(&value);
        async move {
            if skip {
                return Found::new();
            }
            let (ex, found) = exec.exchange(&out, deviation).await;
            let mut found: Found = found.into_iter().map(|f| (f, ex.clone())).collect();
            recorded
                .lock()
                .map(|mut r| r.push(Arc::new(ex.recorded())))
                .ok();
            let (want, word) = if valid {
                match &limit.accept_invented {
                    Some(either) if invented => (
                        either,
                        "accepted (or 404: names a resource the profile does not give)",
                    ),
                    _ => (&limit.accept, "accepted"),
                }
            } else {
                (&limit.reject, "rejected")
            };
            let status = ex.outcome.as_ref().map(|r| r.status).ok();
            // Whatever the target created is deleted, an invalid input it wrongly accepted too.
            if status.is_some_and(|s| (200..300).contains(&s)) {
                if let Some(id) = created_id(limit, &ex) {
                    let cleanup_ex = cleanup(exec, limit, &id).await;
                    recorded.lock().map(|mut r| r.extend(cleanup_ex)).ok();
                }
            }
            if !status.is_some_and(|s| want.allows(s)) {
                let got = match &ex.outcome {
                    Ok(r) => match r
                        .value()
                        .and_then(|b| b.get("message"))
                        .and_then(Value::as_str)
                    {
                        Some(m) => format!("{} (message: {m:?})", r.status),
                        None => r.status.to_string(),
                    },
                    Err(e) => e.to_string(),
                };
                found.insert(
                    0,
                    (
                        Finding::new(
                            "",
                            format!("{} {}", limit.constraint.kind(), limit.field),
                            format!(
                                "{word} ({}) for {}: {} must be {}",
                                want.describe(),
                                show(&value),
                                limit.field,
                                limit.constraint.describe()
                            ),
                            got,
                        )
                        .with_clauses(&case.clauses),
                        ex.clone(),
                    ),
                );
            }
            found
        }
    };
    let fail = |found: Found, note: String| failures(found, &note, steps);
    let result = 'search: {
        let bounds = generate::boundaries(&limit.constraint, &ctx);
        for (values, valid) in [(&bounds.valid, true), (&bounds.invalid, false)] {
            for v in values {
                let found = check(v.clone(), valid).await;
                if !found.is_empty() {
                    break 'search fail(found, "a boundary input".into());
                }
            }
        }
        let mut runner = runner_for(exec.seed, &case.name);
        for valid in [true, false] {
            let Some(strategy) = generate::strategy(&limit.constraint, valid, &ctx) else {
                continue;
            };
            if let Some((input, found)) = search(&mut runner, &strategy, exec.property_cases, |v| {
                check(v, valid)
            })
            .await
            {
                let note = input_note(&input, &found, exec.seed, &exec.run_id);
                break 'search fail(found, note);
            }
        }
        Vec::new()
    };
    exchanges.extend(recorded.into_inner().unwrap_or_default());
    result
}

fn created_id(limit: &Limit, ex: &Exchange) -> Option<String> {
    let pointer = &limit.example.cleanup.as_ref()?.id;
    ex.outcome
        .as_ref()
        .ok()?
        .value()?
        .pointer(pointer)
        .map(text)
}

async fn cleanup(exec: &Executor, limit: &Limit, id: &str) -> Option<Arc<Exchange>> {
    let c = limit.example.cleanup.as_ref()?;
    let mut vars = exec.vars();
    vars.set("id", Value::String(id.to_string()));
    let request = crate::cases::Request {
        method: c.method.clone(),
        path: c.path.clone(),
        query: Default::default(),
        headers: Default::default(),
        body: None,
        auth: None,
        version: None,
    };
    let (out, deviation) = exec.render_request(&request, &vars).ok()?;
    Some(exec.exchange(&out, deviation).await.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A real exchange that failed in transport: a request to a port nobody listens on.
    async fn failed_exchange() -> Arc<Exchange> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let client = crate::client::Client::new(
            crate::client::ClientConfig {
                base_url: format!("http://127.0.0.1:{port}"),
                api_key: None,
                timeout: Duration::from_secs(2),
                max_body_bytes: 1024,
                rate: None,
            },
            Default::default(),
        )
        .expect("client");
        let out = Outgoing {
            method: "GET".into(),
            path: "/".into(),
            query: vec![],
            headers: vec![],
            body: None,
            auth: crate::client::Auth::None,
        };
        let ex = client.send(&out).await;
        assert!(ex.outcome.is_err());
        Arc::new(ex)
    }

    #[tokio::test]
    async fn a_transport_failure_is_not_shrunk() {
        let strategy: SBoxedStrategy<Value> = proptest::string::string_regex("[a-z]{5,40}")
            .expect("regex")
            .prop_map(Value::String)
            .sboxed();
        let mut runner = runner_for(7, "t");
        let ex = failed_exchange().await;
        let mut calls = 0;
        let result = search(&mut runner, &strategy, 4, |_| {
            calls += 1;
            let ex = ex.clone();
            async move { vec![(Finding::new("", "answer", "an answer", "none"), ex)] }
        })
        .await;
        let (input, found) = result.expect("a failure");
        assert_eq!(calls, 1, "no shrinking step after a transport failure");
        let note = input_note(&input, &found, 7, "r0000001");
        assert!(
            note.starts_with("a transport failure on the random input")
                && !note.contains("minimal input"),
            "{note}"
        );
    }
}
