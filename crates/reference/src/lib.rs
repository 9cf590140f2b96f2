//! The embedded reference implementation of the Workspace Communications API (axum, in memory).
//!
//! It is the default target of a run, a standalone server (`serve`), and the suite's proof of
//! correctness: every fault of [`faults::CATALOG`] is a deliberate deviation from one clause.
//! It depends on the contract crate only; the suite never imports it (the binary starts it as
//! the default target), which the crate borders enforce.

pub mod faults;
pub mod listing;
pub mod variants;

mod app;
mod auth;
mod contact_input;
mod deliveries;
mod demands;
mod errors;
mod fixtures;
mod hooks;
mod input;
mod issued;
mod messaging;
mod model;
mod pagination;
mod paths;
mod quirks;
mod reply;
mod reshape;
pub(crate) mod routes;
mod seen;
mod store;
mod strict;
mod switches;
mod task_store;
mod unstated;
mod workspace;

use std::net::SocketAddr;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use faults::{CATALOG, Fault, FaultInfo, FaultSet, PENDING};
pub use variants::{PROFILE_VARIANTS, VARIANTS, Variant, VariantInfo, VariantSet};

use app::App;
use conformance_contract::profile::Profile;
use switches::Switches;

/// How long [`Running::stop`] waits for open requests before cutting them off.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// How to start a reference instance.
#[derive(Debug, Clone)]
pub struct Options {
    /// Address to listen on; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Faults switched on.
    pub faults: FaultSet,
    /// Variants switched on.
    pub variants: VariantSet,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            faults: FaultSet::default(),
            variants: VariantSet::default(),
        }
    }
}

/// A running reference instance; dropping it (or calling [`Running::stop`]) shuts it down.
pub struct Running {
    /// The bound address.
    pub addr: SocketAddr,
    /// The profile of its fixtures and API keys, as `serve --profile-out` writes it.
    pub profile: Profile,
    /// Dropping the sender ends the server, so a forgotten `Running` does not outlive its owner.
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// The router of a fresh instance with its own seeded store; it needs no listener of its own.
pub(crate) fn router(opts: &Options) -> axum::Router {
    routes::router(App::new(Switches::new(
        opts.faults.clone(),
        opts.variants.clone(),
    )))
}

/// Binds `opts.listen` and serves a fresh instance on a tokio task.
pub async fn start(opts: Options) -> std::io::Result<Running> {
    let listener = tokio::net::TcpListener::bind(opts.listen).await?;
    let addr = listener.local_addr()?;
    let router = router(&opts);
    let profile = fixtures::profile_for(&opts.variants);
    let (shutdown, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let signal = async move {
            // Either an explicit stop or the sender being dropped ends the server.
            let _ = stopped.await;
        };
        // An accept error ends the task; there is no caller left to report it to.
        let _ = axum::serve(listener, router)
            .with_graceful_shutdown(signal)
            .await;
    });
    Ok(Running {
        addr,
        profile,
        shutdown: Some(shutdown),
        task: Some(task),
    })
}

impl Running {
    /// The base URL of the instance, e.g. `http://127.0.0.1:41234`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets open requests finish (bounded), and waits for the server to end.
    pub async fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(mut task) = self.task.take() {
            if tokio::time::timeout(STOP_GRACE, &mut task).await.is_err() {
                task.abort();
            }
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // Dropping the sender starts the graceful shutdown; the task ends on its own.
        self.shutdown.take();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn port_is_free(addr: SocketAddr) -> bool {
        for _ in 0..50 {
            if tokio::net::TcpListener::bind(addr).await.is_ok() {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }

    #[tokio::test]
    async fn stop_and_drop_both_release_the_port() {
        let running = start(Options::default()).await;
        let Ok(running) = running else {
            panic!("loopback bind failed")
        };
        let addr = running.addr;
        assert_ne!(addr.port(), 0);
        assert_eq!(running.profile.api_key, fixtures::profile().api_key);
        running.stop().await;
        assert!(port_is_free(addr).await, "stop releases {addr}");

        let Ok(running) = start(Options::default()).await else {
            panic!("loopback bind failed")
        };
        let addr = running.addr;
        drop(running);
        assert!(port_is_free(addr).await, "drop releases {addr}");
    }
}
