//! The state shared by every handler of one instance.

use std::sync::{Arc, Mutex, MutexGuard};

use super::fixtures::{self, ApiKey};
use super::seen::{Shown, Waiting};
use super::store::Store;
use super::strict::{self, Table};
use super::switches::Switches;
use super::variants::Variant;

/// Cheap to clone: handlers get their own handle on the one instance.
#[derive(Clone)]
pub(crate) struct App(Arc<Inner>);

struct Inner {
    switches: Switches,
    keys: Vec<ApiKey>,
    store: Mutex<Store>,
    /// The route table's checks under this instance's names, where a variant reads them
    /// (`contract-strict`, `unknown-fields-400`).
    strict: Option<Table>,
    /// Sends webhook deliveries (no proxy: receivers are often on loopback).
    delivery: reqwest::Client,
    /// What the instance has shown, where variant `unstated-values-refused` reads it.
    shown: Option<Shown>,
    /// The change waiting for a later one, where variant `in-flight-reversed` is on.
    waiting: Option<Waiting>,
}

impl App {
    pub fn new(switches: Switches) -> Self {
        let mut store = fixtures::seeded_store(&switches.variants);
        store.id_shapes = super::store::IdShapes {
            contact_uuid: switches.variant(Variant::ContactIdsUuid),
            entry_numeric: switches.variant(Variant::EntryIdsNumeric),
        };
        let strict = [
            Variant::ContractStrict,
            Variant::UnknownFields400,
            Variant::UnstatedRefused,
        ]
        .into_iter()
        .any(|v| switches.variant(v))
        .then(|| {
            let profile = fixtures::profile_for(&switches.variants);
            strict::route_table().map(|c| Table::build(c, &profile))
        })
        .flatten();
        let shown = switches.variant(Variant::UnstatedRefused).then(|| {
            let shown = Shown::default();
            // The profile is the target's own documentation: its values count as shown.
            let profile = fixtures::profile_for(&switches.variants);
            if let Ok(v) = serde_json::to_value(&profile) {
                shown.keep(&v);
            }
            shown
        });
        let waiting = switches
            .variant(Variant::InFlightReversed)
            .then(Waiting::default);
        App(Arc::new(Inner {
            shown,
            waiting,
            strict,
            switches,
            keys: fixtures::api_keys(),
            store: Mutex::new(store),
            delivery: delivery_client(),
        }))
    }

    pub fn switches(&self) -> &Switches {
        &self.0.switches
    }

    /// The compiled checks of the route table, where a variant that reads them is on.
    pub fn strict(&self) -> Option<&Table> {
        self.0.strict.as_ref()
    }

    pub(crate) fn shown(&self) -> Option<&Shown> {
        self.0.shown.as_ref()
    }

    pub(crate) fn waiting(&self) -> Option<&Waiting> {
        self.0.waiting.as_ref()
    }

    pub(crate) fn delivery_client(&self) -> &reqwest::Client {
        &self.0.delivery
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

/// The client that sends webhook deliveries: rustls with ring, the provider the whole process
/// uses (installed here when the reference runs alone). Without a CA store, deliveries to
/// http:// receivers still go out.
fn delivery_client() -> reqwest::Client {
    // Another part of the process may have installed a provider already; either is fine.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let builder = || reqwest::Client::builder().no_proxy();
    builder()
        .build()
        .or_else(|_| builder().tls_certs_only([]).build())
        .unwrap_or_default()
}
