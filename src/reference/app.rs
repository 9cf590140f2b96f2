//! The state shared by every handler of one instance.

use std::sync::{Arc, Mutex, MutexGuard};

use super::fixtures::{self, ApiKey};
use super::store::Store;
use super::switches::Switches;

/// Cheap to clone: handlers get their own handle on the one instance.
#[derive(Clone)]
pub(crate) struct App(Arc<Inner>);

struct Inner {
    switches: Switches,
    keys: Vec<ApiKey>,
    store: Mutex<Store>,
}

impl App {
    pub fn new(switches: Switches) -> Self {
        App(Arc::new(Inner {
            switches,
            keys: fixtures::api_keys(),
            store: Mutex::new(fixtures::seeded_store()),
        }))
    }

    pub fn switches(&self) -> &Switches {
        &self.0.switches
    }

    pub fn keys(&self) -> &[ApiKey] {
        &self.0.keys
    }

    /// Handlers never panic while holding the lock, but a poisoned store is still consistent
    /// (every mutation is a single assignment), so serving on is better than failing every request.
    pub fn store(&self) -> MutexGuard<'_, Store> {
        self.0
            .store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
