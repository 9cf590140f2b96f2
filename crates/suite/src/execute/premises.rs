//! What a trial relies on about the profile's keys beyond their documentation, read from the
//! target before the trial runs (READINGS 6.11, `crate::workspaces`). A trial whose premise does
//! not hold is ignored with the reason, never failed:
//!
//! - a request that sends a message (`x-sends`) with a key of the workspace whose subscription
//!   has expired is refused 402 whatever else it holds (Errors > Rules > 7), so a trial that
//!   sends with such a key, other than `subscription_expired_api_key` itself, cannot show what
//!   it is about; a key the target does not show to be of that workspace is taken for one that
//!   can send, as `docs/profile.md` states of the run's key;
//! - a number-scoped refusal (403) of `restricted_api_key` is stated for a user of the run's
//!   workspace: where the target shows the key to be of another workspace, such a trial cannot
//!   run (a workspace may well answer 404 for what is not its own).

use crate::cases::{Case, Request, StatusExpect, Step};
use crate::workspaces::{Key, Workspaces, name};

use super::Executor;

const EXPIRED: &str = "subscription_expired_api_key";
const RESTRICTED: &str = "restricted_api_key";

impl Executor {
    /// The workspaces of the run's keys, read once, by the first trial that needs them.
    pub(crate) async fn workspaces(&self) -> &Workspaces {
        self.workspaces
            .get_or_init(|| Workspaces::read(&self.client, &self.profile))
            .await
    }

    /// Why `case` cannot run with the keys of this profile, or `None`.
    pub(crate) async fn unmet_premise(&self, case: &Case) -> Option<String> {
        let requests = all_requests(case);
        let sends: Vec<Key<'_>> = requests
            .iter()
            .filter(|(r, _)| self.sends(r))
            .filter_map(|(r, _)| key_of(r))
            .filter(|k| *k != Some(EXPIRED))
            .collect();
        let refused_restricted = requests.iter().any(|(r, status)| {
            r.auth.as_deref() == Some(RESTRICTED) && matches!(status, Some(StatusExpect::Code(403)))
        });
        let expired_given = self.profile.fixtures.contains_key(EXPIRED);
        if (sends.is_empty() || !expired_given) && !refused_restricted {
            return None;
        }
        let w = self.workspaces().await;
        if expired_given {
            for key in sends {
                if w.same(key, Some(EXPIRED)) == Some(true) {
                    return Some(format!(
                        "it sends a message with {}, a key of the workspace whose subscription has expired ({}): a send there is refused 402 whatever else it holds (Errors > Rules > 7; READINGS 6.11)",
                        name(key),
                        w.evidence(key, Some(EXPIRED))
                    ));
                }
            }
        }
        if refused_restricted && w.same(None, Some(RESTRICTED)) == Some(false) {
            return Some(format!(
                "it expects the number-scoped refusal (403) of `{RESTRICTED}`, stated for a user of the run's workspace, and the key is of another workspace ({}; READINGS 6.11)",
                w.evidence(None, Some(RESTRICTED))
            ));
        }
        None
    }

    /// Whether `r` sends a message (`x-sends` of its route).
    fn sends(&self, r: &Request) -> bool {
        self.contract
            .route(&r.method, &r.path)
            .is_some_and(|route| route.sends)
    }
}

/// The key a request carries: the run's (`None`), a fixture's, or none at all (`None` of the
/// outer option: no key, or a key no target issued).
fn key_of(r: &Request) -> Option<Key<'_>> {
    match r.auth.as_deref() {
        None => Some(None),
        Some("none" | "invalid") => None,
        Some(fixture) => Some(Some(fixture)),
    }
}

/// Every request the case may send, with the status its step expects: its setups' (and what
/// runs in their place), its own steps', and a property's example with its preparation.
fn all_requests(case: &Case) -> Vec<(&Request, Option<&StatusExpect>)> {
    let mut steps: Vec<&Step> = Vec::new();
    for setup in &case.setups {
        steps.extend(&setup.case.steps);
        if let Some(instead) = &setup.instead {
            steps.extend(&instead.setup.case.steps);
        }
    }
    steps.extend(&case.steps);
    let mut out: Vec<(&Request, Option<&StatusExpect>)> = Vec::new();
    if let Some(crate::cases::properties::Property::Limit(limit)) = case.property.as_deref() {
        steps.extend(&limit.example.setup);
        out.push((&limit.example.request, None));
    }
    out.extend(
        steps
            .into_iter()
            .filter_map(|s| s.request.as_ref().map(|r| (r, s.expect.status.as_ref()))),
    );
    out
}
