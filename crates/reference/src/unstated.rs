//! Variant `unstated-values-refused` (READINGS 6.12): the reference refuses every value the
//! contract does not state as accepted and the reference itself never showed, on top of what
//! `contract-strict` refuses. What it has shown is every string of every success body it sent
//! (read as it leaves, after every other layer) and of the profile it documents.
//!
//! Variant `in-flight-reversed` (READINGS 7.2): of two changes in flight at once, the one sent
//! later takes effect first.
//!
//! Both are written from the contract's words, apart from the suite's reading of them.

use std::time::Duration;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{Method, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;
use tokio::sync::oneshot;

use super::app::App;
use super::errors::ApiError;
use super::paths::TRIGGER_PATH;
use super::seen::{Shown, Waiting};
use conformance_contract::{Contract, ParamIn, Route};

/// Outermost layer: the strings of every success body as it leaves.
pub(crate) async fn observe(State(app): State<App>, req: Request, next: Next) -> Response {
    let response = next.run(req).await;
    let Some(shown) = app.shown() else {
        return response;
    };
    let json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("json"));
    if !response.status().is_success() || !json {
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, 16 * 1024 * 1024).await else {
        return Response::from_parts(parts, Body::empty());
    };
    // A body may carry a prefix before its JSON (a fault's XSSI guard): read from the first brace.
    let start = bytes
        .iter()
        .position(|b| *b == b'{' || *b == b'[')
        .unwrap_or(0);
    if let Ok(v) = serde_json::from_slice::<Value>(&bytes[start..]) {
        shown.keep(&v);
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// The first value of a request that the contract does not state as accepted and the instance
/// never showed. `faulted`: whether a fault switched on breaks a clause (its route is left to
/// the handler, so the fault still shows).
pub(crate) fn refusal(
    app: &App,
    contract: &Contract,
    route: &Route,
    path: &str,
    query: &[(String, String)],
    body: Option<&Value>,
    faulted: &dyn Fn(&str) -> bool,
) -> Option<ApiError> {
    let shown = app.shown()?;
    if faulted(&route.clause) {
        return None;
    }
    let why = query_refusal(contract, route, query, shown, faulted)
        .or_else(|| body_refusal(contract, route, body, shown))?;
    Some(ApiError::bad_request(path, &why))
}

fn query_refusal(
    contract: &Contract,
    route: &Route,
    query: &[(String, String)],
    shown: &Shown,
    faulted: &dyn Fn(&str) -> bool,
) -> Option<String> {
    for (name, value) in query {
        if name == "pageToken" {
            // A token is the target's to judge: one it issued, whatever shape reached here.
            continue;
        }
        let Some(param) = route
            .params
            .iter()
            .find(|p| p.location == ParamIn::Query && &p.name == name)
        else {
            // A name the profile gives (READINGS 6.1): its values are the profile's.
            continue;
        };
        if param.clause.as_deref().is_some_and(faulted) {
            continue;
        }
        let schema = match param.schema.get("items") {
            Some(items) if param.schema.get("type").and_then(Value::as_str) == Some("array") => {
                items
            }
            _ => &param.schema,
        };
        let schema = contract.resolve(schema);
        let members: Vec<&str> = if name.ends_with("[in]") {
            value.split(',').collect()
        } else {
            vec![value.as_str()]
        };
        for m in members {
            if let Some(why) = text(contract, schema, m, shown, true) {
                return Some(format!("query parameter {name}: {why}"));
            }
        }
    }
    None
}

/// A text against its schema: a listed value as written, a stated bound, or one shown.
/// `filter`: a query value, compared with what the instance holds.
fn text(
    contract: &Contract,
    schema: &Value,
    t: &str,
    shown: &Shown,
    filter: bool,
) -> Option<String> {
    let schema = contract.resolve(schema);
    if let Some(refused) = alternatives(schema, |a| text(contract, a, t, shown, filter)) {
        return refused;
    }
    let listed = schema
        .get("enum")
        .or_else(|| schema.get("x-values"))
        .and_then(Value::as_array);
    if let Some(values) = listed {
        return (!values.iter().any(|v| v.as_str() == Some(t)))
            .then(|| format!("`{t}` is not one of the stated values, as written"));
    }
    // Types, ranges and formats are contract-strict's.
    if let Some("integer" | "number" | "boolean") = schema.get("type").and_then(Value::as_str) {
        return None;
    }
    if schema.get("const").is_some() || schema.get("format").is_some() || shown.has(t) {
        return None;
    }
    if let Some(pattern) = schema.get("pattern").and_then(Value::as_str) {
        let prefix = pattern.trim_start_matches('^');
        let names_an_id = prefix.len() >= 2 && prefix[..2].chars().all(|c| c.is_ascii_uppercase());
        return names_an_id.then(|| format!("`{t}`: no resource this target showed has that id"));
    }
    let bounded = schema.get("minLength").is_some() || schema.get("maxLength").is_some();
    (filter && !bounded).then(|| {
        format!(
            "`{t}` is not a value this target showed, and the contract does not list the values"
        )
    })
}

/// Where `schema` offers alternatives (`anyOf`, `oneOf`): the first refusal when every
/// alternative refuses (`check` gives an alternative's refusal), `Some(None)` when one accepts.
fn alternatives(
    schema: &Value,
    check: impl Fn(&Value) -> Option<String>,
) -> Option<Option<String>> {
    let alts = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)?;
    let whys: Vec<String> = alts.iter().filter_map(check).collect();
    Some((whys.len() == alts.len()).then(|| whys.into_iter().next().unwrap_or_default()))
}

fn body_refusal(
    contract: &Contract,
    route: &Route,
    body: Option<&Value>,
    shown: &Shown,
) -> Option<String> {
    // A body that is no JSON object is the handler's to refuse.
    let empty = body.is_some_and(|b| b.as_object().is_some_and(|m| m.is_empty()));
    if route.method == "PATCH" && empty {
        return Some("an empty partial update changes nothing".into());
    }
    let body = body?;
    if let Some(groups) = route
        .purpose
        .as_ref()
        .and_then(|p| p.get("body"))
        .and_then(Value::as_array)
    {
        for group in groups.iter().filter_map(Value::as_array) {
            let sent: Vec<&str> = group
                .iter()
                .filter_map(Value::as_str)
                .filter(|p| body.pointer(p).is_some_and(|v| !v.is_null()))
                .collect();
            if sent.len() > 1 {
                return Some(format!(
                    "{} sent together: the contract names one",
                    sent.join(", ")
                ));
            }
        }
    }
    let schema = route.request_schema.as_ref()?;
    walk(contract, schema, body, shown, "")
}

fn walk(contract: &Contract, schema: &Value, v: &Value, shown: &Shown, at: &str) -> Option<String> {
    let schema = contract.resolve(schema);
    if let Some(refused) = alternatives(schema, |a| walk(contract, a, v, shown, at)) {
        return refused;
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        return all.iter().find_map(|a| walk(contract, a, v, shown, at));
    }
    match v {
        Value::Object(m) => {
            let props = schema.get("properties").and_then(Value::as_object)?;
            m.iter().find_map(|(k, item)| {
                walk(contract, props.get(k)?, item, shown, &format!("{at}/{k}"))
            })
        }
        Value::Array(items) => {
            let each = schema.get("items")?;
            items
                .iter()
                .enumerate()
                .find_map(|(i, item)| walk(contract, each, item, shown, &format!("{at}/{i}")))
        }
        Value::String(t) => {
            text(contract, schema, t, shown, false).map(|why| format!("body field {at}: {why}"))
        }
        _ => None,
    }
}

/// How long a change waits for another to arrive.
const WINDOW: Duration = Duration::from_millis(25);

/// Innermost layer (in front of the handlers): a change waits up to [`WINDOW`]; a change that
/// arrives meanwhile takes effect first, and the waiting one once it is done.
pub(crate) async fn reverse(State(app): State<App>, req: Request, next: Next) -> Response {
    let change = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let Some(waiting) = app
        .waiting()
        .filter(|_| change && req.uri().path() != TRIGGER_PATH)
    else {
        return next.run(req).await;
    };
    let earlier = match take_or_wait(waiting) {
        Turn::First(done) => Some(done),
        Turn::Wait(id, rx) => {
            wait(waiting, id, rx).await;
            None
        }
    };
    let response = next.run(req).await;
    drop(earlier);
    response
}

enum Turn {
    /// A change was waiting: this one runs first, and drops the sender once done.
    First(oneshot::Sender<()>),
    /// Nothing was waiting: this one waits, as `id`.
    Wait(u64, oneshot::Receiver<oneshot::Receiver<()>>),
}

fn take_or_wait(waiting: &Waiting) -> Turn {
    let mut slot = waiting.slot.lock().unwrap_or_else(|e| e.into_inner());
    match slot.take() {
        Some((_, tx)) => {
            let (done, done_rx) = oneshot::channel::<()>();
            // Under the lock, so that the waiting change finds it as its window closes.
            let _ = tx.send(done_rx);
            Turn::First(done)
        }
        None => {
            let id = waiting.next_id();
            let (tx, rx) = oneshot::channel();
            *slot = Some((id, tx));
            Turn::Wait(id, rx)
        }
    }
}

/// Whether the change `id` is still the one waiting; takes it out of the slot if so.
fn still_waiting(waiting: &Waiting, id: u64) -> bool {
    let mut slot = waiting.slot.lock().unwrap_or_else(|e| e.into_inner());
    if slot.as_ref().is_some_and(|(i, _)| *i == id) {
        *slot = None;
        true
    } else {
        false
    }
}

async fn wait(waiting: &Waiting, id: u64, mut rx: oneshot::Receiver<oneshot::Receiver<()>>) {
    let later = match tokio::time::timeout(WINDOW, &mut rx).await {
        Ok(Ok(done)) => Some(done),
        Ok(Err(_)) => None,
        // A later change that took this one out of the slot as the window closed has sent its
        // end under the lock.
        Err(_) if still_waiting(waiting, id) => None,
        Err(_) => rx.await.ok(),
    };
    if let Some(done) = later {
        // Bounded: a later change's handler that never ends must not hold this one for ever.
        let _ = tokio::time::timeout(Duration::from_secs(30), done).await;
    }
}
