//! The router: each area contributes its routes.

use std::sync::Arc;

use axum::Router;

use crate::app::App;

/// The whole API plus the activity hook. A path no route serves answers 404, a method a served
/// path does not take answers 405, both with the error body of the path's generation.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .merge(crate::directory::routes())
        .merge(crate::contacts::routes())
        .merge(crate::tasks::routes())
        .merge(crate::messaging::routes())
        .merge(crate::calls::routes())
        .merge(crate::webhooks::routes())
        .merge(crate::hook::routes())
        .fallback(crate::errors::fallback)
        .method_not_allowed_fallback(crate::errors::method_not_allowed)
        .with_state(app)
}
