//! Runs a property: its setup, the boundary inputs, then seeded random inputs on either side;
//! a failing random input is shrunk to a minimal one before it is reported.

use std::sync::Arc;

use serde_json::Value;

use super::Executor;
use super::search::{Found, failures, input_note, runner_for, search, show};
use crate::cases::Case;
use crate::cases::properties::generate::{self, Context};
use crate::cases::properties::{Limit, Property, Target};
use crate::cases::template::Vars;
use crate::client::{Exchange, Outgoing};
use crate::results::{Failure, Finding};

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
        Property::Relations(r) => super::relations::run(exec, *r, &vars, &mut exchanges).await,
        Property::Sequence { index, of } => {
            super::sequences::run(
                exec,
                case,
                &vars,
                (*index, *of),
                exec.sequence_depth,
                &mut exchanges,
            )
            .await
        }
    };
    (failures, exchanges)
}

/// FNV-1a of a text: a stable hash for names.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    })
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Whether the property's request adds to a counted state of the workspace (a webhook, an open
/// task): its valid inputs create what the plan counts one at a time.
fn adds_to_counted(exec: &Executor, base: &Outgoing) -> bool {
    let Some(route) = exec.contract.route(&base.method, &base.path) else {
        return true;
    };
    crate::cases::State::ALL.iter().any(|s| s.added_by(route))
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
    if let Err(failed) = run_setup(exec, case, limit, &tag, &mut vars, exchanges).await {
        return failed;
    }
    let base = match exec.render_request(&limit.example.request, &vars) {
        Ok(r) => r,
        Err(missing) => return template_failure(case, missing.to_string(), steps, steps),
    };
    let ctx = context(limit, &base, &vars);
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
    // Each exchange with the rank of its input: inputs that go out together are recorded in
    // the order they were drawn, so a seed replays the same record.
    let recorded = std::sync::Mutex::new(Vec::new());
    let inputs = std::sync::atomic::AtomicU64::new(0);
    let drawn = std::sync::atomic::AtomicU64::new(0);
    let check = |value: Value, valid: bool| {
        let skip = no_probe(limit, &value);
        let out = probe_request(&base, limit, &value, &tag, &inputs);
        let rank = drawn.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let recorded = &recorded;
        let invented = valid && invents(&value);
        async move {
            if skip {
                return Found::new();
            }
            let input = Input {
                out: &out,
                value: &value,
                valid,
                invented,
                rank,
            };
            judge(exec, case, limit, input, recorded).await
        }
    };
    let fail = |found: Found, note: String| failures(found, &note, steps);
    let result = 'search: {
        let bounds = generate::boundaries(&limit.constraint, &ctx);
        let inputs = bounds
            .valid
            .iter()
            .map(|v| (v, true))
            .chain(bounds.invalid.iter().map(|v| (v, false)));
        // The boundary inputs are independent: they go out together (the client bounds the
        // requests in flight), and the first that fails, in the order above, is reported. An
        // input that adds to a counted state (a webhook, an open task) waits for the one
        // before, so the trial holds one such resource at a time, as the plan counts it.
        let found = if adds_to_counted(exec, &base) {
            let mut first = Found::new();
            for (v, valid) in inputs {
                first = check(v.clone(), valid).await;
                if !first.is_empty() {
                    break;
                }
            }
            first
        } else {
            let all =
                futures_util::future::join_all(inputs.map(|(v, valid)| check(v.clone(), valid)));
            all.await
                .into_iter()
                .find(|f| !f.is_empty())
                .unwrap_or_default()
        };
        if !found.is_empty() {
            break 'search fail(found, "a boundary input".into());
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
    let mut recorded = recorded.into_inner().unwrap_or_default();
    recorded.sort_by_key(|(rank, _)| *rank);
    exchanges.extend(recorded.into_iter().map(|(_, ex)| ex));
    result
}

/// Runs the example's setup steps. What the setup creates is the trial's own: the example's
/// unique fields (an externalId a target may keep unique, 409) get the trial's tag, as every
/// input does. Err: the failures of the step that failed.
async fn run_setup(
    exec: &Executor,
    case: &Case,
    limit: &Limit,
    tag: &str,
    vars: &mut Vars,
    exchanges: &mut Vec<Arc<Exchange>>,
) -> Result<(), Vec<Failure>> {
    let steps = limit.example.setup.len() + 1;
    for (i, step) in limit.example.setup.iter().enumerate() {
        let mut step = step.clone();
        if let Some(body) = step.request.as_mut().and_then(|r| r.body.as_mut()) {
            for pointer in &limit.example.unique {
                if let Some(Value::String(s)) = body.pointer_mut(pointer) {
                    s.push_str(&format!("-{tag}"));
                }
            }
        }
        match exec.run_step(case, &step, vars, exchanges).await {
            Ok(found) if found.is_empty() => {}
            Ok(found) => {
                return Err(found
                    .into_iter()
                    .map(|(finding, ex)| Failure {
                        finding,
                        step: i + 1,
                        steps,
                        exchange: ex,
                        cause: None,
                    })
                    .collect());
            }
            Err(missing) => return Err(template_failure(case, missing.to_string(), i + 1, steps)),
        }
    }
    Ok(())
}

/// The failure of step `step` whose request names a variable without a value.
fn template_failure(case: &Case, missing: String, step: usize, steps: usize) -> Vec<Failure> {
    let finding = Finding::new("", "template", "every variable has a value", missing)
        .with_clauses(&case.clauses);
    vec![Failure {
        finding,
        step,
        steps,
        exchange: None,
        cause: None,
    }]
}

/// What the generators need of the example: its value at the probed place, the names a valid
/// text must avoid (reserved names, READINGS 3.4) and the items an array is drawn from.
fn context(limit: &Limit, base: &Outgoing, vars: &Vars) -> Context {
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
    let excluded = limit
        .schema
        .get("x-not-item")
        .and_then(|t| vars.render_value(t).ok())
        .filter(|v| !v.is_null());
    Context {
        excluded,
        example: current(base, limit),
        // A link keeps its URI form too (`x-link`, READINGS 6.10).
        keeps_format: limit.schema.get("format").is_some()
            || limit.schema.get("x-link").and_then(Value::as_bool) == Some(true),
        avoid,
        pool: match pool {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        resources: limit.accept_invented.is_some(),
    }
}

/// Whether `value` is no probe of the place. An empty or dot segment is no value of the
/// parameter: URL resolution turns it into another path. An empty query value may mean "not
/// given" to a conforming target (required-ness is not shown, READINGS 6.3), so it is no probe
/// either.
fn no_probe(limit: &Limit, value: &Value) -> bool {
    let empty = match value {
        Value::Array(items) => items.is_empty() || items.iter().all(|i| text(i).is_empty()),
        other => text(other).is_empty(),
    };
    value.is_null()
        || match limit.target {
            Target::Path(_) => matches!(text(value).as_str(), "" | "." | ".."),
            Target::Query(_) => empty,
            Target::Body(_) => false,
        }
}

/// The example's request with `value` at the probed place, and the input's own suffix (the
/// trial's tag and the input's rank) on every other unique field.
fn probe_request(
    base: &Outgoing,
    limit: &Limit,
    value: &Value,
    tag: &str,
    inputs: &std::sync::atomic::AtomicU64,
) -> Outgoing {
    let mut out = apply(base, limit, value);
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
    out
}

/// One input of a property: the request that carries it, the value, whether it is valid, and
/// whether (valid) it names a resource the profile does not give.
struct Input<'a> {
    out: &'a Outgoing,
    value: &'a Value,
    valid: bool,
    invented: bool,
    /// The order it was drawn in.
    rank: u64,
}

/// Sends one input and judges its answer: the generic checks, then accepted or rejected as the
/// constraint says. Whatever the target created is deleted, an invalid input it wrongly accepted
/// too; every exchange is recorded.
async fn judge(
    exec: &Executor,
    case: &Case,
    limit: &Limit,
    input: Input<'_>,
    recorded: &std::sync::Mutex<Vec<(u64, Arc<Exchange>)>>,
) -> Found {
    let Input {
        out,
        value,
        valid,
        invented,
        rank,
    } = input;
    let (ex, found) = exec.exchange(out).await;
    let mut found: Found = found.into_iter().map(|f| (f, ex.clone())).collect();
    recorded
        .lock()
        .map(|mut r| r.push((rank, Arc::new(ex.recorded()))))
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
    if status.is_some_and(|s| (200..300).contains(&s)) {
        if let Some(id) = created_id(limit, &ex) {
            let cleanup_ex = cleanup(exec, limit, &id).await;
            recorded
                .lock()
                .map(|mut r| r.extend(cleanup_ex.map(|ex| (rank, ex))))
                .ok();
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
                        show(value),
                        limit.field,
                        limit.constraint.describe()
                    ),
                    got,
                )
                .status_class(crate::checks::expect::class_of(want))
                .with_clauses(&case.clauses),
                ex.clone(),
            ),
        );
    }
    found
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
        raw_body: None,
        auth: None,
        version: None,
    };
    let out = exec.render_request(&request, &vars).ok()?;
    Some(exec.exchange(&out).await.0)
}
