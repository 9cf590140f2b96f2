//! Demanding variants: strictness the contract allows in what a target accepts (READINGS 6).
//! Each is switched on like any variant; the suite must pass with each alone and all together,
//! so what the suite *sends* is tested, not only what it reads.
//!
//! Two layers: [`route_first`] runs before authentication (routing before the key, READINGS 6.8);
//! [`demand`] runs after it, in front of the handlers.

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

use super::app::App;
use super::errors::ApiError;
use super::faults::{CATALOG, Fault, FaultSet};
use super::issued;
use super::paths::TRIGGER_PATH;
use super::strict::{Breach, Scope, route_table as contract};
use super::variants::Variant;
use conformance_contract::{Contract, ParamIn, Route, StatusKey};

fn error(app: &App, path: &str, status: StatusCode, message: String) -> Response {
    ApiError::for_path(path, status, message).render(app.switches())
}

/// The clauses the faults switched on break: a strict check of such a clause is left to the
/// handler, so the fault shows with the strict variants on too.
fn faulted_clauses(faults: &FaultSet) -> Vec<&'static str> {
    CATALOG
        .iter()
        .filter(|f| faults.has(f.fault))
        .map(|f| f.clause)
        .collect()
}

/// The answer to a breach of the route table: 400 with the error body of the generation and
/// area, naming the place and the constraint (404 for a path value outside a closed set; 422
/// where the route declares no 400 and variant `unstated-limit-422` is on, READINGS 2.4); the
/// code and title of the area's row where that row names the condition.
fn breach_error(app: &App, route: &Route, path: &str, breach: Breach) -> ApiError {
    let declares_400 = route
        .responses
        .iter()
        .any(|r| r.status == StatusKey::Exact(400));
    let status = if breach.no_endpoint {
        StatusCode::NOT_FOUND
    } else if !declares_400 && app.switches().variant(Variant::UnstatedLimit422) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::BAD_REQUEST
    };
    let message = breach.message();
    let mut error = ApiError::for_path(path, status, message.clone()).with_item(
        &breach.item_path,
        &message,
        breach.value,
        breach.schema,
    );
    if let (Some((code, title)), StatusCode::BAD_REQUEST) = (&breach.row, status) {
        error = error.with_code(code).with_title(title);
    }
    error
}

/// A path parameter outside the closed set (`enum`) its route declares.
fn outside_closed_set(route: &Route, path: &str) -> Option<String> {
    let template: Vec<&str> = route.template.trim_start_matches('/').split('/').collect();
    let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
    for (seg, value) in template.iter().zip(&parts) {
        let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
            continue;
        };
        let closed = route
            .params
            .iter()
            .find(|p| p.name == name && matches!(p.location, ParamIn::Path))
            .and_then(|p| p.schema.get("enum"))
            .and_then(Value::as_array);
        if let Some(set) = closed {
            if !set.iter().any(|v| v.as_str() == Some(value)) {
                return Some(format!("{value} is not one of the {name} values"));
            }
        }
    }
    None
}

/// Variant `route-before-auth` (READINGS 6.8): a path the target does not serve answers 404, a
/// method it does not serve on a path 405, and a path value outside a closed set 404, before the
/// key is looked at.
fn unrouted(
    app: &App,
    contract: &Contract,
    route: Option<&Route>,
    method: &str,
    path: &str,
) -> Option<Response> {
    if let Some(route) = route {
        let why = outside_closed_set(route, path)?;
        return Some(error(
            app,
            path,
            StatusCode::NOT_FOUND,
            format!("no endpoint: {why}"),
        ));
    }
    let allowed: Vec<&str> = contract
        .routes
        .iter()
        .filter(|r| r.match_path(path).is_some())
        .map(|r| r.method.as_str())
        .collect();
    if allowed.is_empty() {
        return Some(error(
            app,
            path,
            StatusCode::NOT_FOUND,
            format!("no endpoint {method} {path}"),
        ));
    }
    let mut response = error(
        app,
        path,
        StatusCode::METHOD_NOT_ALLOWED,
        format!("method {method} is not allowed on {path}"),
    );
    if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
        response.headers_mut().insert(header::ALLOW, v);
    }
    Some(response)
}

/// What runs before authentication: `route-before-auth` (unserved paths and methods),
/// `issued-ids-only` (404 for ids of a shape the reference does not issue, READINGS 6.6, 6.8) and
/// the path parameters of `contract-strict` (400: a target may check a stated prefix before the
/// key, READINGS 6.6).
pub(crate) async fn route_first(State(app): State<App>, req: Request, next: Next) -> Response {
    let s = app.switches();
    let on = [
        Variant::RouteBeforeAuth,
        Variant::IssuedIdsOnly,
        Variant::ContractStrict,
        Variant::UnstatedRefused,
    ]
    .into_iter()
    .any(|v| s.variant(v));
    let path = req.uri().path().to_string();
    let Some(contract) = contract().filter(|_| on && path != TRIGGER_PATH) else {
        return next.run(req).await;
    };
    let method = req.method().as_str().to_string();
    let route = contract.route(&method, &path);
    if s.variant(Variant::RouteBeforeAuth) {
        if let Some(answer) = unrouted(&app, contract, route, &method, &path) {
            return answer;
        }
    }
    let Some(route) = route else {
        return next.run(req).await;
    };
    if s.variant(Variant::IssuedIdsOnly) {
        let shapes = app.store().id_shapes;
        if let Some(why) = issued::unissued(route, &path, &shapes) {
            return error(&app, &path, StatusCode::NOT_FOUND, why);
        }
    }
    if s.variant(Variant::ContractStrict) || s.variant(Variant::UnstatedRefused) {
        let clauses = faulted_clauses(&s.faults);
        let faulted = |c: &str| clauses.contains(&c);
        if let Some(b) = app
            .strict()
            .and_then(|t| t.path_breach(route, &path, &faulted))
        {
            return breach_error(&app, route, &path, b).render(s);
        }
    }
    next.run(req).await
}

/// Trims surrounding (ASCII) whitespace of every string of a JSON value: space, tab, CR, LF, FF,
/// as a target's framework commonly does. Unicode spaces stay, so a rule about whitespace itself
/// (a text of only whitespace) is still the handler's to apply.
fn trim_strings(value: &mut Value) {
    match value {
        Value::String(s) => {
            let t = s.trim_matches(|c: char| c.is_ascii_whitespace());
            if t.len() != s.len() {
                *s = t.to_string();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(trim_strings),
        Value::Object(map) => map.values_mut().for_each(trim_strings),
        _ => {}
    }
}

/// The query with each value's surrounding whitespace trimmed (percent-decoded, re-encoded).
fn trimmed_query(uri: &Uri) -> Option<Uri> {
    let query = uri.query()?;
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| {
            let v = v.trim_matches(|c: char| c.is_ascii_whitespace());
            (k.into_owned(), v.to_string())
        })
        .collect();
    let encoded = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish();
    format!("{}?{encoded}", uri.path()).parse().ok()
}

fn is_json(req: &Request) -> bool {
    req.headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .is_some_and(|v| {
            let v = v.trim().to_ascii_lowercase();
            v == "application/json" || (v.starts_with("application/") && v.ends_with("+json"))
        })
}

/// What a demanding variant refuses in a request.
fn refusal(
    app: &App,
    method: &Method,
    path: &str,
    query: &[(String, String)],
    body: Option<&Value>,
) -> Option<ApiError> {
    let on = |v| app.switches().variant(v);
    // Present, even empty: an empty value is the handler's to judge (Errors > Rules > 3).
    let has = |name: &str| query.iter().any(|(k, _)| k == name);
    if on(Variant::RequireDefaultFields) && method == Method::POST && path == "/v1/contacts" {
        let first = body
            .and_then(|b| b.pointer("/defaultFields/firstName"))
            .and_then(Value::as_str);
        if first.is_none_or(|f| f.trim().is_empty()) {
            return Some(ApiError::bad_request(
                path,
                "defaultFields with a firstName is required",
            ));
        }
    }
    if on(Variant::RequireListFilters)
        && method == Method::GET
        && (path == "/v1/messages" || path == "/v1/calls")
        && !(has("phoneNumberId") && has("participants"))
    {
        return Some(ApiError::bad_request(
            path,
            "phoneNumberId and participants are required",
        ));
    }
    // `contract-strict` checks everything the route table states; `unknown-fields-400` only
    // the names, from the same table.
    let scope = if on(Variant::ContractStrict) || on(Variant::UnstatedRefused) {
        Scope::All
    } else if on(Variant::UnknownFields400) {
        Scope::Names
    } else {
        return None;
    };
    let route = contract()?.route(method.as_str(), path)?;
    let clauses = faulted_clauses(&app.switches().faults);
    let faulted = |c: &str| clauses.contains(&c);
    if let Some(breach) = app
        .strict()?
        .request_breach(route, query, body, scope, &faulted)
    {
        return Some(breach_error(app, route, path, breach));
    }
    super::unstated::refusal(app, contract()?, route, path, query, body, &faulted)
}

/// The demanding variants that look at a request before its handler: `json-body-415`,
/// `trim-whitespace`, `require-default-fields`, `require-list-filters`, `unknown-fields-400`,
/// `contract-strict` (its query and body part).
pub(crate) async fn demand(State(app): State<App>, mut req: Request, next: Next) -> Response {
    let s = app.switches();
    let any = [
        Variant::JsonBody415,
        Variant::TrimWhitespace,
        Variant::RequireDefaultFields,
        Variant::RequireListFilters,
        Variant::UnknownFields400,
        Variant::ContractStrict,
        Variant::UnstatedRefused,
    ]
    .into_iter()
    .any(|v| s.variant(v))
        || s.faults.has(Fault::BodylessPost415);
    let path = req.uri().path().to_string();
    if !any || path == TRIGGER_PATH {
        return next.run(req).await;
    }
    let json = is_json(&req);
    let (parts, body) = req.into_parts();
    let Ok(bytes) = to_bytes(body, 16 * 1024 * 1024).await else {
        return error(
            &app,
            &path,
            StatusCode::PAYLOAD_TOO_LARGE,
            "body too large".into(),
        );
    };
    if s.faults.has(Fault::BodylessPost415) && parts.method == Method::POST && bytes.is_empty() {
        return error(
            &app,
            &path,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a request body must be sent as application/json".into(),
        );
    }
    if s.variant(Variant::JsonBody415) && !bytes.is_empty() && !json {
        return error(
            &app,
            &path,
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "a request body must be sent as application/json".into(),
        );
    }
    req = Request::from_parts(parts, Body::from(bytes.clone()));
    // The handlers read a body whatever its label, so the checks read it too.
    let mut value: Option<Value> = serde_json::from_slice(&bytes).ok();
    if s.variant(Variant::TrimWhitespace) {
        if let Some(uri) = trimmed_query(req.uri()) {
            *req.uri_mut() = uri;
        }
        if let Some(v) = value.as_mut() {
            trim_strings(v);
            let text = v.to_string();
            req.headers_mut().remove(header::CONTENT_LENGTH);
            *req.body_mut() = Body::from(text);
        }
    }
    let query: Vec<(String, String)> = req
        .uri()
        .query()
        .map(|q| {
            form_urlencoded::parse(q.as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect()
        })
        .unwrap_or_default();
    if let Some(refused) = refusal(&app, req.method(), &path, &query, value.as_ref()) {
        return refused.render(s);
    }
    next.run(req).await
}
