//! The certification profile of an instance. OWNER: core.

use std::net::SocketAddr;

use crate::app::App;

/// The profile (JSON text) of this instance's fixtures and keys.
pub fn profile_json(_app: &App, _addr: SocketAddr) -> String {
    "{}".to_string()
}
