//! The router: every route, the answer to unknown paths, and the layers around them (a known
//! path's other methods get their 405 from `respond.rs`).

mod activity;
mod contacts;
mod webhooks;
// --- messages and conversations (issue 4): add this area's route module below ---
mod conversations;
mod messages;

// --- calls, recordings, users, phone numbers, organization, access control (issue 5): add this area's route module below ---
mod calls;

// --- tasks (issue 6): add this area's route module below ---
mod tasks;

mod respond;
mod wire;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::Response;

use super::app::App;
use super::auth;
use super::errors::{ApiError, Generation};
use super::faults::Fault;

/// The whole API of one instance.
pub(crate) fn router(app: App) -> Router {
    let header_versioned = Router::new()
        .merge(contacts::header_versioned_routes())
        .merge(webhooks::routes())
        // --- messages and conversations (issue 4): merge this area's header-versioned routes below ---
        .merge(messages::header_versioned_routes())
        .merge(conversations::header_versioned_routes())
        //
        // --- calls, recordings, users, phone numbers, organization, access control (issue 5): merge this area's header-versioned routes below ---
        .merge(calls::header_versioned_routes())
        //
        // --- tasks (issue 6): merge this area's header-versioned routes below ---
        //
        .route_layer(middleware::from_fn_with_state(
            app.clone(),
            auth::require_version,
        ));
    let mut router = Router::new()
        .merge(contacts::v1_routes())
        // --- messages and conversations (issue 4): merge this area's v1 routes below ---
        .merge(messages::v1_routes())
        .merge(conversations::v1_routes())
        //
        // --- calls, recordings, users, phone numbers, organization, access control (issue 5): merge this area's v1 routes below ---
        .merge(calls::v1_routes())
        //
        // --- tasks (issue 6): merge this area's v1 routes below ---
        .merge(tasks::v1_routes(
            app.switches().faults.has(Fault::TaskPutRoutedAsPatch),
        ))
        //
        // --- webhooks (issue 7): legacy v1 creation endpoints ---
        .merge(webhooks::v1_routes())
        // The reference's own hook simulating inbound activity (not part of the API).
        .merge(activity::routes())
        //
        .merge(header_versioned)
        .fallback(not_found);
    if app.switches().faults.has(Fault::TasksAcceptExact406) {
        // Inside authentication, as the task service's negotiation runs in front of its handlers.
        router = router.layer(middleware::from_fn_with_state(
            app.clone(),
            wire::accept_exact_tasks,
        ));
    }
    if app
        .switches()
        .variant(super::variants::Variant::InFlightReversed)
    {
        // Innermost, so that only changes the handlers apply wait (READINGS 7.2).
        router = router.layer(middleware::from_fn_with_state(
            app.clone(),
            super::unstated::reverse,
        ));
    }
    router = router
        // Demanding variants (READINGS 6): after authentication, in front of the handlers.
        .layer(middleware::from_fn_with_state(
            app.clone(),
            super::demands::demand,
        ))
        .layer(middleware::from_fn_with_state(
            app.clone(),
            auth::require_key,
        ))
        // Fault contact-body-validated-before-auth: the contact body schema runs first.
        .layer(middleware::from_fn_with_state(
            app.clone(),
            contact_body_before_auth,
        ))
        // Routing before authentication (variant route-before-auth, READINGS 6.8).
        .layer(middleware::from_fn_with_state(
            app.clone(),
            super::demands::route_first,
        ))
        // Outside authentication, so 401 answers take the variants' shapes too.
        .layer(middleware::from_fn_with_state(
            app.clone(),
            super::reshape::rewrite,
        ));
    if app.switches().faults.has(Fault::ContactsHvBodyLatin1) {
        // Outermost, as the contact service encodes its bodies last.
        router = router.layer(middleware::from_fn(wire::latin1_contacts));
    }
    if app.switches().faults.has(Fault::MessageContentLengthUtf16) {
        // Outermost, as the message service declares the length of what it writes last.
        router = router.layer(middleware::from_fn(wire::utf16_content_length_messages));
    }
    if app.switches().faults.has(Fault::PhoneNumbersXssiPrefix) {
        // Outermost, as the web console's JSON helper writes the bodies last.
        router = router.layer(middleware::from_fn(xssi_prefix_phone_numbers));
    }
    if app
        .switches()
        .faults
        .has(Fault::V1ErrorsShapedByVersionHeader)
    {
        // Outermost, as the error serializer writes the bodies last.
        router = router.layer(middleware::from_fn(v1_errors_shaped_by_version_header));
    }
    if app.switches().faults.has(Fault::WrongContentType) {
        // Outermost, so that the 401s of contact paths are mislabelled too.
        router = router.layer(middleware::from_fn(label_contact_answers_as_text));
    }
    if app
        .switches()
        .variant(super::variants::Variant::UnstatedRefused)
    {
        // Outermost: what the instance shows is what leaves it (READINGS 6.12).
        router = router.layer(middleware::from_fn_with_state(
            app.clone(),
            super::unstated::observe,
        ));
    }
    router.with_state(app)
}

/// Fault contact-body-validated-before-auth: a middleware in front of authentication runs the
/// contact write routes' body schema, so a request without a known key whose body breaks a rule
/// gets the body's refusal instead of 401.
async fn contact_body_before_auth(State(app): State<App>, req: Request, next: Next) -> Response {
    if !app
        .switches()
        .faults
        .has(Fault::ContactBodyValidatedBeforeAuth)
    {
        return next.run(req).await;
    }
    let path = req.uri().path();
    let create = match *req.method() {
        Method::POST if path == "/v1/contacts" => true,
        Method::PATCH if path.starts_with("/v1/contacts/") => false,
        _ => return next.run(req).await,
    };
    let known = req
        .headers()
        .get(header::AUTHORIZATION)
        .is_some_and(|v| app.keys().iter().any(|k| v.as_bytes() == k.key.as_bytes()));
    if known {
        return next.run(req).await;
    }
    let (parts, body) = req.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 1 << 20).await else {
        return next
            .run(Request::from_parts(parts, axum::body::Body::empty()))
            .await;
    };
    if let Ok(serde_json::Value::Object(body)) = serde_json::from_slice(&bytes) {
        if let Some(refusal) = contacts::body_refusal(&app, &body, create) {
            return refusal.render(app.switches());
        }
    }
    next.run(Request::from_parts(parts, axum::body::Body::from(bytes)))
        .await
}

async fn not_found(State(app): State<App>, method: Method, uri: Uri) -> Response {
    ApiError::for_path(
        uri.path(),
        StatusCode::NOT_FOUND,
        format!("no endpoint {method} {}", uri.path()),
    )
    .render(app.switches())
}

async fn label_contact_answers_as_text(req: Request, next: Next) -> Response {
    let contact_path = contacts::is_contact_path(req.uri().path());
    let mut response = next.run(req).await;
    if contact_path {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/plain; charset=utf-8"),
        );
    }
    response
}

/// Fault v1-errors-shaped-by-version-header: the error serializer picks the generation by the
/// presence of Service-Api-Version, so a v1 request that carries it gets the header-versioned
/// error body (without code, status and trace).
async fn v1_errors_shaped_by_version_header(req: Request, next: Next) -> Response {
    let v1 = Generation::of_path(req.uri().path()) == Generation::V1;
    let versioned = req.headers().contains_key("service-api-version");
    let response = next.run(req).await;
    if !(v1 && versioned) || response.status().as_u16() < 400 {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 16 * 1024 * 1024).await else {
        return Response::from_parts(parts, axum::body::Body::empty());
    };
    let Ok(serde_json::Value::Object(mut error)) = serde_json::from_slice(&bytes) else {
        return Response::from_parts(parts, axum::body::Body::from(bytes));
    };
    for field in ["code", "status", "trace", "description"] {
        error.remove(field);
    }
    let status = parts.status.as_u16();
    error.insert(
        "docs".into(),
        serde_json::json!(format!(
            "https://docs.workspace.example/api/errors#{status}"
        )),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    let text = serde_json::Value::Object(error).to_string();
    Response::from_parts(parts, axum::body::Body::from(text))
}

/// Fault phone-numbers-xssi-prefix: the web console's JSON helper guards every body of the phone
/// number routes against cross-site script inclusion with a prefix no JSON parser takes.
async fn xssi_prefix_phone_numbers(req: Request, next: Next) -> Response {
    let phone_numbers =
        req.uri().path() == "/phone-numbers" || req.uri().path().starts_with("/phone-numbers/");
    let response = next.run(req).await;
    if !phone_numbers {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 16 * 1024 * 1024).await else {
        return Response::from_parts(parts, axum::body::Body::empty());
    };
    let mut guarded = b")]}',\n".to_vec();
    guarded.extend_from_slice(&bytes);
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, axum::body::Body::from(guarded))
}
