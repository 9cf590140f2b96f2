//! How every route answers: a handler's result rendered with the instance's switches, and a 405
//! for a known path's other methods. Apart from the router so that route modules need not import it.

use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use axum::routing::MethodRouter;

use crate::app::App;
use crate::errors::ApiError;

/// The response of a handler's result: the answer, or the error rendered as the switches say.
pub(super) fn answer(app: &App, result: Result<Response, ApiError>) -> Response {
    result.unwrap_or_else(|e| e.render(app.switches()))
}

/// Gives a known path's wrong methods a 405 with an error body of its generation and `Allow`
/// (axum's own 405 has an empty body).
pub(super) fn allow_only(methods: MethodRouter<App>, allow: &'static str) -> MethodRouter<App> {
    methods.fallback(
        move |State(app): State<App>, method: Method, uri: Uri| async move {
            let mut response = ApiError::for_path(
                uri.path(),
                StatusCode::METHOD_NOT_ALLOWED,
                format!(
                    "method {method} is not allowed on {}; allowed: {allow}",
                    uri.path()
                ),
            )
            .render(app.switches());
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static(allow));
            response
        },
    )
}
