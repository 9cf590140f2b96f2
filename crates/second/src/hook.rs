//! The activity simulator (outside the API). OWNER: core.

use std::sync::Arc;

use axum::Router;

use crate::app::App;

/// The hook's route.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
}
