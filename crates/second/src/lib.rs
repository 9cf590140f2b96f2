//! A second implementation of the Workspace Communications API, written from `contract/API.md`
//! and `contract/READINGS.md` alone, by authors who never read the certification suite or its
//! reference implementation. Wherever the contract is open it takes the choice a strict, careful
//! production service would take; each such choice is listed below, one line each.
#![doc = include_str!("../choices/core.md")]
#![doc = include_str!("../choices/contacts-tasks.md")]
#![doc = include_str!("../choices/messaging-calls.md")]
#![doc = include_str!("../choices/webhooks.md")]
#![doc = include_str!("../choices/decisions.md")]
// Handlers return `Result<_, Response>` to answer early with an error body; the size of
// `Response` is no concern here.
#![allow(clippy::result_large_err)]

mod app;
mod auth;
mod calls;
mod contacts;
mod directory;
mod errors;
mod events;
pub mod faults;
mod hook;
mod messaging;
mod paging;
mod profile;
mod router;
mod tasks;
mod webhooks;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How to start an instance.
#[derive(Debug, Clone)]
pub struct Options {
    /// Address to listen on; port 0 picks a free port.
    pub listen: SocketAddr,
    /// Names of injected faults switched on (see `faults`); empty for the conforming server.
    pub faults: Vec<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            faults: Vec::new(),
        }
    }
}

/// A running instance; dropping it (or calling [`Running::stop`]) shuts it down.
pub struct Running {
    /// The bound address.
    pub addr: SocketAddr,
    /// The certification profile of this instance's seeded fixtures and keys (JSON text), as
    /// its documentation asks a certifier to use.
    pub profile: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

/// Binds `opts.listen` and serves a fresh, seeded instance on a tokio task.
pub async fn start(opts: Options) -> std::io::Result<Running> {
    let listener = tokio::net::TcpListener::bind(opts.listen).await?;
    let addr = listener.local_addr()?;
    let app = Arc::new(app::App::seeded(faults::FaultSet::new(&opts.faults)?));
    // Every name was checked against the catalog; the set travels with the instance.
    debug_assert!(opts.faults.iter().all(|f| app.faults.on(f)));
    let profile = profile::profile_json(&app, addr);
    let router = router::router(app);
    let (shutdown, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let signal = async move {
            let _ = stopped.await;
        };
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
    /// The base URL, e.g. `http://127.0.0.1:41234`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets open requests finish (bounded), and waits for the server to end.
    pub async fn stop(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(5), &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.shutdown.take();
    }
}
