//! Organizations, API keys, users and phone numbers; the routes that read them
//! (users, phone numbers, organization). OWNER: core.

use std::sync::Arc;

use axum::Router;

use crate::app::App;

/// The primary workspace: the certifier's own key, users and numbers.
pub const PRIMARY_ORG: &str = "ORq7Lm2Xv9";

/// The directory of the instance (seeded, read-mostly).
pub struct Directory {}

impl Directory {
    /// The seeded directory.
    pub fn seeded() -> Directory {
        Directory {}
    }
}

/// Routes of users, phone numbers and the organization.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
}
