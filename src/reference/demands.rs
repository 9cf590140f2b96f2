//! Demanding variants: strictness the contract allows in what a target accepts (READINGS 6).
//! Each is switched on like any variant; the suite must pass with each alone and all together,
//! so what the suite *sends* is tested, not only what it reads.
//!
//! Two layers: [`route_first`] runs before authentication (routing before the key, READINGS 6.8);
//! [`demand`] runs after it, in front of the handlers.

use std::sync::OnceLock;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::Value;

use super::app::App;
use super::errors::ApiError;
use super::faults::Fault;
use super::paths::TRIGGER_PATH;
use super::variants::Variant;
use crate::contract::{Contract, ParamIn, Route};

/// The route table the reference serves (the contract's).
fn contract() -> Option<&'static Contract> {
    static CONTRACT: OnceLock<Option<Contract>> = OnceLock::new();
    CONTRACT.get_or_init(|| Contract::embedded().ok()).as_ref()
}

fn error(app: &App, path: &str, status: StatusCode, message: String) -> Response {
    ApiError::for_path(path, status, message).render(app.switches())
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
pub(crate) async fn route_first(State(app): State<App>, req: Request, next: Next) -> Response {
    if !app.switches().variant(Variant::RouteBeforeAuth) {
        return next.run(req).await;
    }
    let path = req.uri().path().to_string();
    let Some(contract) = contract() else {
        return next.run(req).await;
    };
    if path == TRIGGER_PATH {
        return next.run(req).await;
    }
    let method = req.method().as_str().to_string();
    match contract.route(&method, &path) {
        Some(route) => {
            if let Some(why) = outside_closed_set(route, &path) {
                return error(
                    &app,
                    &path,
                    StatusCode::NOT_FOUND,
                    format!("no endpoint: {why}"),
                );
            }
            next.run(req).await
        }
        None => {
            let allowed: Vec<&str> = contract
                .routes
                .iter()
                .filter(|r| r.match_path(&path).is_some())
                .map(|r| r.method.as_str())
                .collect();
            if allowed.is_empty() {
                error(
                    &app,
                    &path,
                    StatusCode::NOT_FOUND,
                    format!("no endpoint {method} {path}"),
                )
            } else {
                let mut response = error(
                    &app,
                    &path,
                    StatusCode::METHOD_NOT_ALLOWED,
                    format!("method {method} is not allowed on {path}"),
                );
                if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
                    response.headers_mut().insert(header::ALLOW, v);
                }
                response
            }
        }
    }
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

/// What a demanding variant refuses in a request: (status, message).
fn refusal(
    app: &App,
    method: &Method,
    path: &str,
    query: &[(String, String)],
    body: Option<&Value>,
) -> Option<(StatusCode, String)> {
    let on = |v| app.switches().variant(v);
    // Present, even empty: an empty value is the handler's to judge (Errors > Rules > 3).
    let has = |name: &str| query.iter().any(|(k, _)| k == name);
    if on(Variant::RequireDefaultFields) && method == Method::POST && path == "/v1/contacts" {
        let first = body
            .and_then(|b| b.pointer("/defaultFields/firstName"))
            .and_then(Value::as_str);
        if first.is_none_or(|f| f.trim().is_empty()) {
            return Some((
                StatusCode::BAD_REQUEST,
                "defaultFields with a firstName is required".into(),
            ));
        }
    }
    if on(Variant::RequireListFilters)
        && method == Method::GET
        && (path == "/v1/messages" || path == "/v1/calls")
        && !(has("phoneNumberId") && has("participants"))
    {
        return Some((
            StatusCode::BAD_REQUEST,
            "phoneNumberId and participants are required".into(),
        ));
    }
    if on(Variant::UnknownFields400) {
        if let Some(route) = contract().and_then(|c| c.route(method.as_str(), path)) {
            // Query parameters the contract does not name, except on GET /v1/conversations,
            // whose update and inactivity filters are not shown (their names are the profile's).
            if route.template != "/v1/conversations" {
                let named = |k: &str| {
                    route.params.iter().any(|p| {
                        matches!(p.location, ParamIn::Query)
                            && (p.name == k || k.starts_with(&format!("{}[", p.name)))
                    })
                };
                if let Some((k, _)) = query.iter().find(|(k, _)| !named(k)) {
                    return Some((
                        StatusCode::BAD_REQUEST,
                        format!("unknown query parameter {k}"),
                    ));
                }
            }
            // Body fields outside a closed object schema's properties.
            let props = route
                .request_schema
                .as_ref()
                .and_then(|s| s.get("properties"))
                .and_then(Value::as_object);
            // The target's own names of renamed fields (its requestFields) are named too.
            let profile = super::fixtures::profile_for(&app.switches().variants);
            let renamed = profile.renamed_fields(method.as_str(), &route.template);
            if let (Some(props), Some(Value::Object(b))) = (props, body) {
                let named = |k: &str| {
                    renamed.iter().any(|(_, to)| *to == k)
                        || (props.contains_key(k) && !renamed.iter().any(|(from, _)| *from == k))
                };
                if let Some(k) = b.keys().find(|k| !named(k)) {
                    return Some((StatusCode::BAD_REQUEST, format!("unknown body field {k}")));
                }
            }
        }
    }
    None
}

/// The demanding variants that look at a request before its handler: `json-body-415`,
/// `trim-whitespace`, `require-default-fields`, `require-list-filters`, `unknown-fields-400`.
pub(crate) async fn demand(State(app): State<App>, mut req: Request, next: Next) -> Response {
    let s = app.switches();
    let any = [
        Variant::JsonBody415,
        Variant::TrimWhitespace,
        Variant::RequireDefaultFields,
        Variant::RequireListFilters,
        Variant::UnknownFields400,
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
    let mut value: Option<Value> = if json {
        serde_json::from_slice(&bytes).ok()
    } else {
        None
    };
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
    if let Some((status, message)) = refusal(&app, req.method(), &path, &query, value.as_ref()) {
        return error(&app, &path, status, message);
    }
    next.run(req).await
}
