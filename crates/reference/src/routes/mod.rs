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

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::Response;

use super::app::App;
use super::auth;
use super::errors::ApiError;
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
        .merge(tasks::v1_routes())
        //
        // --- webhooks (issue 7): legacy v1 creation endpoints ---
        .merge(webhooks::v1_routes())
        // The reference's own hook simulating inbound activity (not part of the API).
        .merge(activity::routes())
        //
        .merge(header_versioned)
        .fallback(not_found)
        // Demanding variants (READINGS 6): after authentication, in front of the handlers.
        .layer(middleware::from_fn_with_state(
            app.clone(),
            super::demands::demand,
        ))
        .layer(middleware::from_fn_with_state(
            app.clone(),
            auth::require_key,
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
    if app.switches().faults.has(Fault::PhoneNumbersXssiPrefix) {
        // Outermost, as the web console's JSON helper writes the bodies last.
        router = router.layer(middleware::from_fn(xssi_prefix_phone_numbers));
    }
    if app.switches().faults.has(Fault::WrongContentType) {
        // Outermost, so that the 401s of contact paths are mislabelled too.
        router = router.layer(middleware::from_fn(label_contact_answers_as_text));
    }
    router.with_state(app)
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
