//! The preflight: before any trial, one authenticated read that every conforming target serves
//! to the run's key, answering 2xx with the `data` envelope. A refused key, or an answer that
//! shows the target does not serve the API at all (a 404 of a wrong base path, an HTML page, a
//! body that is not JSON), ends the run with exit 2 instead of hundreds of failures blamed on
//! clauses of the contract.

use std::time::Duration;

use crate::client::{Auth, Client, Exchange, Outgoing, Redactor};
use conformance_contract::API_VERSION;

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
pub(crate) const METHOD: &str = "GET";
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

/// What came back from the read, showing that the target does not serve the API: no 2xx with a
/// `data` envelope, and no refusal of the key, rate limit or server error of an API either.
#[derive(Debug, thiserror::Error)]
#[error(
    "the target {base_url} does not serve the API: {} {} (Service-Api-Version: {}), a read every conforming target answers with 2xx and a `data` envelope, answered {answer}; no trial was run. Is the base path right? The suite appends the API's paths (/phone-numbers, /v1/contacts) to the base URL as given",
    METHOD,
    PATH,
    API_VERSION
)]
pub struct NotTheApi {
    /// The `--target` as given.
    pub base_url: String,
    /// What came back: the status, the content type and an excerpt of the body.
    pub answer: String,
}

/// Sends the read with `auth`, bounded; `None` when no answer came within the bound.
pub async fn read(client: &Client, auth: Auth) -> Option<Exchange> {
    let out = Outgoing {
        method: METHOD.into(),
        path: PATH.into(),
        // READINGS 6.3: maxResults on a list whose default page size is not stated.
        query: vec![("maxResults".into(), "10".into())],
        headers: vec![("Service-Api-Version".into(), API_VERSION.into())],
        body: None,
        raw_body: None,
        auth,
    };
    tokio::time::timeout(Duration::from_secs(15), client.send(&out))
        .await
        .ok()
}

/// `Err` naming `who` and the request when the read says the key is refused. A transport
/// failure or any other status is left to [`serves_the_api`] and the trials.
pub fn key_taken(ex: Option<&Exchange>, who: &str, forbidden_counts: bool) -> Result<(), Refused> {
    match ex.map(|ex| &ex.outcome) {
        Some(Ok(r)) if refused(r.status, forbidden_counts) => Err(Refused {
            who: who.to_string(),
            status: r.status,
        }),
        _ => Ok(()),
    }
}

/// `Err` saying what came back when the read's answer shows that `base_url` does not serve the
/// API: anything but a 2xx JSON object with `data`, except what an API answers when it is
/// limited or broken (a 429, a 5xx with a JSON body), which the trials judge, as they judge a
/// target that gave no answer.
pub fn serves_the_api(
    ex: Option<&Exchange>,
    base_url: &str,
    redactor: &Redactor,
) -> Result<(), NotTheApi> {
    let Some(Ok(r)) = ex.map(|ex| &ex.outcome) else {
        return Ok(());
    };
    let value = r.value();
    let api_answer = match r.status {
        200..=299 => value.is_some_and(|v| v.get("data").is_some()),
        429 => true,
        500.. => value.is_some(),
        _ => false,
    };
    if api_answer {
        return Ok(());
    }
    let ct = r.header("content-type").unwrap_or("no Content-Type");
    let what = match (&r.json, value) {
        (None, _) => "an empty body".to_string(),
        (Some(Err(_)), _) => "a body that is not JSON".to_string(),
        (Some(Ok(_)), Some(v)) if v.is_object() && (200..300).contains(&r.status) => {
            "a JSON body without a `data` property".to_string()
        }
        (Some(Ok(_)), _) => "a JSON body".to_string(),
    };
    // One line: an HTML page's lines would break the one message.
    let excerpt = ex
        .map(|ex| ex.body_excerpt(200, redactor))
        .map(|e| e.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|e| !e.is_empty())
        .map_or(String::new(), |e| format!(": {e}"));
    Err(NotTheApi {
        base_url: redactor.redact(base_url),
        answer: format!(
            "{} ({}) with {what}{excerpt}",
            r.status,
            redactor.excerpt(ct, 100)
        ),
    })
}

/// Sends the read with `auth`; `Err` names `who` and the request when the key is refused.
/// A transport failure or any other status is left to the trials, which judge answers.
pub async fn check(
    client: &Client,
    auth: Auth,
    who: &str,
    forbidden_counts: bool,
) -> Result<(), Refused> {
    let ex = read(client, auth).await;
    key_taken(ex.as_ref(), who, forbidden_counts)
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
