//! The key preflight: before any trial, one authenticated read that every conforming target
//! serves to the run's key, so a refused key ends the run with exit 2 instead of hundreds of
//! failures blamed on clauses of the contract.

use std::time::Duration;

use crate::client::{Auth, Client, Outgoing};
use crate::contract::API_VERSION;

/// Where the run's key came from, as a message names it (never the key itself).
#[derive(Debug, Clone)]
pub enum KeySource {
    Flag,
    Environment,
    Profile(String),
    /// The embedded reference's own key.
    Reference,
}

impl std::fmt::Display for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::Flag => write!(f, "the API key given with --api-key"),
            KeySource::Environment => {
                write!(
                    f,
                    "the API key of the environment variable WORKSPACE_API_KEY"
                )
            }
            KeySource::Profile(p) => write!(f, "the API key `apiKey` of the profile {p}"),
            KeySource::Reference => write!(f, "the embedded reference's API key"),
        }
    }
}

/// The read: `GET /phone-numbers` on the header-versioned API. It needs no fixture, lists
/// what the workspace has (any user may list its numbers: `x-access` gives the second key any
/// answer but 401 there), and changes nothing.
pub const METHOD: &str = "GET";
pub const PATH: &str = "/phone-numbers";

/// Statuses that say the key itself is refused (Authentication 3: 401 for invalid credentials,
/// 403 for a caller without access to what every user may read).
fn refused(status: u16, forbidden_counts: bool) -> bool {
    status == 401 || (forbidden_counts && status == 403)
}

/// A key the target refuses: where it came from (never the key itself) and the status the read
/// got.
#[derive(Debug, thiserror::Error)]
#[error(
    "{who} is refused: {} {} (Service-Api-Version: {}), a read every conforming target serves to a valid key, answered {status}; no trial was run (check the key and the target)",
    METHOD,
    PATH,
    API_VERSION
)]
pub struct Refused {
    /// Where the key came from, as [`KeySource`] or a fixture names it.
    pub who: String,
    /// The status of the read.
    pub status: u16,
}

/// Sends the read with `auth`; `Err` names `who` and the request when the key is refused.
/// A transport failure or any other status is left to the trials, which judge answers.
pub async fn check(
    client: &Client,
    auth: Auth,
    who: &str,
    forbidden_counts: bool,
) -> Result<(), Refused> {
    let out = Outgoing {
        method: METHOD.into(),
        path: PATH.into(),
        // READINGS 6.3: maxResults on a list whose default page size is not stated.
        query: vec![("maxResults".into(), "10".into())],
        headers: vec![("Service-Api-Version".into(), API_VERSION.into())],
        body: None,
        auth,
    };
    let ex = tokio::time::timeout(Duration::from_secs(15), client.send(&out)).await;
    let Ok(ex) = ex else { return Ok(()) };
    match &ex.outcome {
        Ok(r) if refused(r.status, forbidden_counts) => Err(Refused {
            who: who.to_string(),
            status: r.status,
        }),
        _ => Ok(()),
    }
}

/// The extra keys of a profile: fixture name, and whether a 403 on the read means the key is
/// refused. A restricted key may still list the workspace's numbers; a key of a workspace whose
/// subscription expired, or whose international messaging is off, may be refused more than
/// the contract states, so only 401 counts for those.
pub fn extra_keys() -> &'static [(&'static str, bool)] {
    &[
        ("restricted_api_key", true),
        ("international_disabled_api_key", false),
        ("subscription_expired_api_key", false),
    ]
}
