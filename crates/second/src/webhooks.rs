//! OWNER: webhooks.

use std::sync::Arc;

use axum::Router;

use crate::app::App;
use crate::directory::Directory;

/// This area's data.
pub struct Store {}

impl Store {
    /// The seeded store.
    pub fn seeded(_directory: &Directory) -> Store {
        Store {}
    }
}

/// This area's routes.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
}
