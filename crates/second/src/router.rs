//! The router: each area contributes its routes.

use std::sync::Arc;

use axum::Router;

use crate::app::App;

/// The whole API plus the activity hook.
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
        .with_state(app)
}
