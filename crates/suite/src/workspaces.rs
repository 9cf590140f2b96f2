//! Which workspace each API key of a run belongs to, as the target shows it (READINGS 6.11).
//!
//! A fixture's documentation says what its key is for ("a workspace whose international
//! messaging is disabled"), not whose workspace it is: the run's own key may be given for such
//! a role. What the suite relies on beyond that (that a key is of another workspace, or of the
//! run's own) it reads first: two keys are of one workspace when they are the same key, or when
//! `GET /organization` shows the same `id` for both; they are of two when it shows two ids. An
//! answer without an id (a refusal, no answer) leaves the question open, and a trial that needs
//! the answer does not take the open question for either.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use crate::client::{Auth, Client, Exchange, Outgoing};
use conformance_contract::API_VERSION;
use conformance_contract::profile::Profile;

/// The key fixtures of a profile: keys of a user or a workspace other than the run's own key.
pub const KEY_FIXTURES: &[&str] = &[
    "restricted_api_key",
    "international_disabled_api_key",
    "subscription_expired_api_key",
];

/// The read that names a key's workspace. It needs no fixture and changes nothing.
pub const PATH: &str = "/organization";

/// A key of the run: its own (`None`), or a key fixture of the profile.
pub type Key<'a> = Option<&'a str>;

/// The workspace of each key of a run.
#[derive(Clone, Default)]
pub struct Workspaces {
    /// For each key (the run's own under `None`), the first key given with the same value: a
    /// key given for two roles is one key. Numbers, not the keys themselves, which are secrets.
    keys: BTreeMap<Option<String>, usize>,
    /// The organization id `GET /organization` showed for each key, where it showed one.
    ids: BTreeMap<Option<String>, String>,
    /// The reads, for the run's record of what it sent.
    pub exchanges: Vec<Arc<Exchange>>,
}

impl Workspaces {
    /// Reads the workspace of the run's key and of each key fixture the profile gives, the reads
    /// together.
    pub async fn read(client: &Client, profile: &Profile) -> Workspaces {
        let mut w = Workspaces::default();
        let mut reads: Vec<(Option<String>, Outgoing)> = vec![(None, read(Auth::Primary))];
        w.keys.insert(None, 0);
        let mut given: Vec<&str> = Vec::new();
        for name in KEY_FIXTURES {
            let Some(key) = profile.fixtures.get(*name).and_then(Value::as_str) else {
                continue;
            };
            let class = if client.is_run_key(key) {
                0
            } else {
                match given.iter().position(|k| *k == key) {
                    Some(i) => i + 1,
                    None => {
                        given.push(key);
                        given.len()
                    }
                }
            };
            w.keys.insert(Some(name.to_string()), class);
            let auth = Auth::Key {
                key: key.to_string(),
                label: format!("<{}>", name.to_ascii_uppercase()),
            };
            reads.push((Some(name.to_string()), read(auth)));
        }
        let sent =
            futures_util::future::join_all(reads.iter().map(|(_, out)| client.send(out))).await;
        for ((who, _), ex) in reads.into_iter().zip(sent) {
            if let Some(id) = organization_id(&ex) {
                w.ids.insert(who, id);
            }
            w.exchanges.push(Arc::new(ex.recorded()));
        }
        w
    }

    /// Whether keys `a` and `b` are of one workspace: `None` when the target did not say.
    pub fn same(&self, a: Key<'_>, b: Key<'_>) -> Option<bool> {
        let (a, b) = (a.map(str::to_string), b.map(str::to_string));
        if a == b {
            return Some(true);
        }
        if let (Some(x), Some(y)) = (self.keys.get(&a), self.keys.get(&b)) {
            if x == y {
                return Some(true);
            }
        }
        match (self.ids.get(&a), self.ids.get(&b)) {
            (Some(x), Some(y)) => Some(x == y),
            _ => None,
        }
    }

    /// What the relation of keys `a` and `b` rests on, in words, for a reason: they are one key,
    /// or what `GET /organization` showed for each.
    pub fn evidence(&self, a: Key<'_>, b: Key<'_>) -> String {
        let class = |k: Key<'_>| self.keys.get(&k.map(str::to_string));
        if class(a).is_some() && class(a) == class(b) {
            return format!("{} is {}", name(a), name(b));
        }
        let shown = |k: Key<'_>| match self.ids.get(&k.map(str::to_string)) {
            Some(id) => format!("organization {id} for {}", name(k)),
            None => format!("no organization id for {}", name(k)),
        };
        format!("GET {PATH} shows {} and {}", shown(a), shown(b))
    }
}

/// A key as a reason names it.
pub fn name(key: Key<'_>) -> String {
    key.map_or("the run's key".to_string(), |k| format!("`{k}`"))
}

/// `GET /organization` with `auth`, as the header-versioned API takes it.
fn read(auth: Auth) -> Outgoing {
    Outgoing {
        method: "GET".into(),
        path: PATH.into(),
        query: Vec::new(),
        headers: vec![("Service-Api-Version".into(), API_VERSION.into())],
        body: None,
        raw_body: None,
        auth,
    }
}

/// The organization id of an accepted read (`data.id`, the identifier every resource carries,
/// READINGS 1.2).
fn organization_id(ex: &Exchange) -> Option<String> {
    let resp = ex
        .outcome
        .as_ref()
        .ok()
        .filter(|r| (200..300).contains(&r.status))?;
    match resp.value()?.get("data")?.get("id")? {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(keys: &[(Option<&str>, usize)], ids: &[(Option<&str>, &str)]) -> Workspaces {
        Workspaces {
            keys: keys
                .iter()
                .map(|(k, v)| (k.map(str::to_string), *v))
                .collect(),
            ids: ids
                .iter()
                .map(|(k, v)| (k.map(str::to_string), v.to_string()))
                .collect(),
            exchanges: Vec::new(),
        }
    }

    #[test]
    fn the_same_key_is_one_workspace_whatever_the_reads_said() {
        let w = with(&[(None, 0), (Some("subscription_expired_api_key"), 0)], &[]);
        assert_eq!(
            w.same(None, Some("subscription_expired_api_key")),
            Some(true)
        );
        assert_eq!(
            w.evidence(None, Some("subscription_expired_api_key")),
            "the run's key is `subscription_expired_api_key`"
        );
    }

    #[test]
    fn organization_ids_tell_one_workspace_from_two_and_nothing_is_taken_for_either() {
        let w = with(
            &[
                (None, 0),
                (Some("international_disabled_api_key"), 1),
                (Some("restricted_api_key"), 2),
                (Some("subscription_expired_api_key"), 3),
            ],
            &[
                (None, "OR1"),
                (Some("international_disabled_api_key"), "OR2"),
                (Some("restricted_api_key"), "OR1"),
            ],
        );
        let intl = Some("international_disabled_api_key");
        assert_eq!(w.same(None, intl), Some(false));
        assert_eq!(w.same(None, Some("restricted_api_key")), Some(true));
        assert_eq!(w.same(None, Some("subscription_expired_api_key")), None);
        assert_eq!(
            w.evidence(None, intl),
            "GET /organization shows organization OR1 for the run's key and organization OR2 for `international_disabled_api_key`"
        );
        assert!(
            w.evidence(None, Some("subscription_expired_api_key"))
                .ends_with("no organization id for `subscription_expired_api_key`")
        );
    }
}
