//! Reaching a target: the async runtime, the client with the profile's secrets registered for
//! redaction, the probe that the target answers, and the key preflight.

use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use conformance_contract::profile::Profile;
use conformance_suite::client::{Auth, Client, ClientConfig, Outgoing, Redactor, TransportError};
use conformance_suite::preflight::{self, KeySource};

/// The runtime the trials, the reference and the receiver run on.
pub fn runtime() -> Result<tokio::runtime::Runtime, Error> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(Error::Runtime)
}

/// Builds the client for a target, with every secret of the profile registered for redaction.
pub fn client_for(
    base_url: &str,
    api_key: Option<String>,
    profile: &Profile,
    timeout: Duration,
    max_body: usize,
    rate: Option<f64>,
) -> Result<Arc<Client>, Error> {
    // The process's redactor: checks redact what they quote from the target with it.
    let redactor = Redactor::global();
    for s in profile.secret_values() {
        redactor.secret(&s);
    }
    Client::new(
        ClientConfig {
            base_url: base_url.to_string(),
            api_key,
            timeout,
            max_body_bytes: max_body,
            rate,
        },
        redactor,
    )
    .map_err(Error::Client)
}

/// Whether the target answers at all (any HTTP status will do), within 5 seconds.
pub async fn probe(client: &Client) -> Result<(), TransportError> {
    let out = Outgoing {
        method: "GET".into(),
        path: "/".into(),
        query: vec![],
        headers: vec![],
        body: None,
        raw_body: None,
        auth: Auth::None,
    };
    let ex = tokio::time::timeout(Duration::from_secs(5), client.send(&out))
        .await
        .map_err(|_| TransportError::Timeout(Duration::from_secs(5)))?;
    match ex.outcome {
        // A target that says it closes is taken at its word: that connection is never reused.
        Ok(r)
            if r.header("connection")
                .is_some_and(|c| c.to_ascii_lowercase().contains("close")) =>
        {
            return Ok(());
        }
        Ok(_) => {}
        Err(TransportError::BodyTooLarge { .. }) => return Ok(()),
        Err(e) => return Err(e),
    }
    // Bounded like the probe: a target that answered once answers again, or keeps its pool.
    let _ =
        tokio::time::timeout(Duration::from_secs(5), client.settle_connection_reuse(&out)).await;
    Ok(())
}

/// The target at `url` answers the probe.
pub fn answers(rt: &tokio::runtime::Runtime, client: &Client, url: &str) -> Result<(), Error> {
    rt.block_on(probe(client))
        .map_err(|source| Error::Unreachable {
            url: url.to_string(),
            source,
        })
}

/// The target at `base_url` takes the run's key, from `source` (a 403 counts as a refusal),
/// and serves the API: its read answers 2xx with the `data` envelope.
pub fn key_taken(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    source: &KeySource,
    base_url: &str,
) -> Result<(), Error> {
    rt.block_on(key_read_taken(client, source, base_url))
}

/// [`key_taken`], awaited: a read with the run's key.
pub async fn key_read_taken(
    client: &Client,
    source: &KeySource,
    base_url: &str,
) -> Result<(), Error> {
    let ex = preflight::read(client, Auth::Primary).await;
    preflight::key_taken(ex.as_ref(), &source.to_string(), true)?;
    preflight::serves_the_api(ex.as_ref(), base_url, &client.redactor)?;
    Ok(())
}
