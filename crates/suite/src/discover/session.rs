//! One discovery under way: its bounds, the `GET`s it sends, and what it has settled so far.
//! The fixture families (the other files of this folder) add their steps to [`Discoverer`].

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::fixture::{DISCOVERABLE, Fixture, x_discovered};
use super::outcome::{Discovery, Entry, Outcome};
use super::reason::Reason;
use super::request::{ErrorKind, Request, RequestError};
use crate::client::{Auth, Client, Outgoing};
use conformance_contract::Api;
use conformance_contract::profile::{KNOWN_FIXTURES, Profile};

/// Bounds of one discovery: it sends at most `max_requests` requests and starts none after
/// `max_time`; each request has the client's own timeout (`--timeout`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_requests: u64,
    pub max_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_requests: 250,
            max_time: Duration::from_secs(60),
        }
    }
}

/// A discovery under way: the requests it sent and the fixtures it settled.
pub(crate) struct Discoverer<'a> {
    client: &'a Client,
    limits: Limits,
    started: Instant,
    sent: u64,
    progress: &'a (dyn Fn(&str) + Sync),
    base: &'a Profile,
    /// Settled fixtures by name: given, found, or not found with why.
    entries: BTreeMap<String, Entry>,
}

impl<'a> Discoverer<'a> {
    /// A discovery that starts now, with what `base` gives and what no request can show
    /// already settled.
    pub fn new(
        client: &'a Client,
        base: &'a Profile,
        limits: Limits,
        progress: &'a (dyn Fn(&str) + Sync),
    ) -> Discoverer<'a> {
        let started = Instant::now();
        let mut entries = BTreeMap::new();
        for (name, _) in KNOWN_FIXTURES {
            let outcome = if base.fixtures.contains_key(*name) {
                Outcome::Given
            } else if !DISCOVERABLE.contains(name) {
                let why = match x_discovered(name) {
                    Some(Value::String(s)) => s,
                    _ => "no request of the API shows it".to_string(),
                };
                Outcome::Undiscoverable { why }
            } else {
                continue;
            };
            entries.insert(
                name.to_string(),
                Entry {
                    outcome,
                    guess: None,
                },
            );
        }
        Discoverer {
            client,
            limits,
            started,
            sent: 0,
            progress,
            base,
            entries,
        }
    }

    /// The result: whatever a step did not settle (the budget ran out before it) is not found,
    /// with that.
    pub fn finish(mut self, base_name: Option<String>) -> Discovery {
        for (name, _) in KNOWN_FIXTURES {
            self.entries
                .entry(name.to_string())
                .or_insert_with(|| Entry {
                    outcome: Outcome::NotFound {
                        why: Reason::Stopped.to_string(),
                    },
                    guess: None,
                });
        }
        Discovery {
            entries: self.entries,
            base: self.base.clone(),
            base_name,
            requests: self.sent,
            elapsed: self.started.elapsed(),
        }
    }

    /// The value of `f`: given in the profile, or found.
    pub fn have(&self, f: Fixture) -> Option<Value> {
        if let Some(v) = self.base.fixtures.get(f.name()) {
            return Some(v.clone());
        }
        match self.entries.get(f.name()).map(|e| &e.outcome) {
            Some(Outcome::Found { value, .. }) => Some(value.clone()),
            _ => None,
        }
    }

    pub(crate) fn have_str(&self, f: Fixture) -> Option<String> {
        self.have(f).and_then(|v| v.as_str().map(str::to_string))
    }

    /// Whether a step should try `f`: not given, not yet settled.
    pub fn wants(&self, f: Fixture) -> bool {
        !self.entries.contains_key(f.name())
    }

    /// Whether `f`, one only a person can give, was left out of the profile.
    pub fn lacks(&self, f: Fixture) -> bool {
        self.entries
            .get(f.name())
            .is_some_and(|e| e.outcome != Outcome::Given)
    }

    pub fn found(&mut self, f: Fixture, value: Value, how: String) {
        self.settle(f, Outcome::Found { value, how });
    }

    pub fn not_found(&mut self, f: Fixture, why: impl Into<Reason>) {
        let why = why.into().to_string();
        self.settle(f, Outcome::NotFound { why });
    }

    /// The first word on `f` is the one that stays.
    fn settle(&mut self, f: Fixture, outcome: Outcome) {
        if self.wants(f) {
            self.entries.insert(
                f.name().into(),
                Entry {
                    outcome,
                    guess: None,
                },
            );
        }
    }

    /// A candidate named for a fixture still missing; it is never written.
    pub fn guess(&mut self, f: Fixture, guess: String) {
        if let Some(e) = self.entries.get_mut(f.name()) {
            if !matches!(e.outcome, Outcome::Given | Outcome::Found { .. }) {
                e.guess = Some(guess);
            }
        }
    }

    /// One `GET`; the JSON body of a 2xx answer, or why there is none.
    pub async fn get(&mut self, at: &Request) -> Result<Value, RequestError> {
        let error = |kind| RequestError {
            at: at.clone(),
            kind,
        };
        if self.sent >= self.limits.max_requests {
            return Err(error(ErrorKind::RequestBound {
                max: self.limits.max_requests,
            }));
        }
        if self.started.elapsed() >= self.limits.max_time {
            return Err(error(ErrorKind::TimeBound {
                max: self.limits.max_time,
            }));
        }
        let out = Outgoing {
            method: "GET".into(),
            path: at.path.clone(),
            query: at.query.clone(),
            headers: Api::of_path(&at.path).headers(),
            body: None,
            raw_body: None,
            auth: Auth::Primary,
        };
        self.sent += 1;
        let ex = self.client.send(&out).await;
        let (result, status) = match &ex.outcome {
            Ok(r) if (200..300).contains(&r.status) => match r.value() {
                Some(v) => (Ok(v.clone()), r.status.to_string()),
                None => (
                    Err(error(ErrorKind::NotJson(r.status))),
                    r.status.to_string(),
                ),
            },
            Ok(r) => (
                Err(error(ErrorKind::Status(r.status))),
                r.status.to_string(),
            ),
            Err(e) => (Err(error(ErrorKind::Transport(e.clone()))), e.to_string()),
        };
        (self.progress)(&format!("discover [{}] {at} -> {status}", self.sent));
        result
    }

    /// Items of a list (`data` array), following `nextPageToken` for at most `pages` pages.
    pub async fn walk(&mut self, at: &Request, pages: usize) -> Result<Vec<Value>, RequestError> {
        let mut items = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..pages {
            let page = match &token {
                Some(t) => at.with("pageToken", t),
                None => at.clone(),
            };
            let body = self.get(&page).await?;
            match body.get("data") {
                Some(Value::Array(a)) => items.extend(a.iter().cloned()),
                _ => {
                    // The list is named as asked, without the page token.
                    return Err(RequestError {
                        at: at.clone(),
                        kind: ErrorKind::NoDataArray,
                    });
                }
            }
            token = body
                .get("nextPageToken")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        Ok(items)
    }
}
