//! READINGS 7.2: two requests in flight at once may take effect in either order. The run's
//! changes, by the states they touch (the operation table's `touches` and the kind they act on)
//! and the resources they name (the ids of their path, and those of their answer: what a create
//! made, the conversation a send moved), so that a list walked while one was in flight is judged
//! for a missing or repeated item only where no change in flight meanwhile named that item.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Mutex;

use serde_json::Value;

use crate::client::{Exchange, Outgoing};
use conformance_contract::{Contract, Route};

/// How many answered changes are kept for the walks that began before them.
const KEPT: usize = 4096;

/// The run's changes: those in flight, and the last ones answered.
#[derive(Default)]
pub(crate) struct Flights(Mutex<Log>);

#[derive(Default)]
struct Log {
    /// Changes begun so far: the number of the next.
    begun: u64,
    /// In flight: number -> (states touched, ids of its path).
    flying: BTreeMap<u64, (Vec<String>, BTreeSet<String>)>,
    /// Answered, in order: (number, states touched, ids named by its path and its answer).
    landed: Vec<(u64, Vec<String>, BTreeSet<String>)>,
}

/// A change in flight ([`Flights::begin`]).
pub(crate) struct Ticket(Option<u64>);

/// Where a walk began: the changes begun so far, and those in flight then.
pub(crate) struct Mark {
    begun: u64,
    flying: BTreeSet<u64>,
}

/// The states a route touches: its `touches` and the kind it acts on.
fn states(route: &Route) -> Vec<String> {
    let mut s = route.effect.touches.clone();
    s.push(route.effect.on.clone());
    s
}

/// The ids a value names: every string of the `data` of an answer that is a resource's or
/// names one (`id`, `taskId`, `conversationId`, ...), at its top level.
fn named(data: &Value, out: &mut BTreeSet<String>) {
    if let Value::Object(m) = data {
        for (k, v) in m {
            let id_like = k == "id" || k.ends_with("Id");
            match v {
                Value::String(s) if id_like && !s.is_empty() => {
                    out.insert(s.clone());
                }
                Value::Number(n) if id_like => {
                    out.insert(n.to_string());
                }
                _ => {}
            }
        }
    }
}

impl Flights {
    fn lock(&self) -> std::sync::MutexGuard<'_, Log> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A request is about to go: a change (anything but a read) is in flight from now on.
    pub(crate) fn begin(&self, contract: &Contract, out: &Outgoing) -> Ticket {
        if out.method.eq_ignore_ascii_case("GET") {
            return Ticket(None);
        }
        let path = out.path.split('?').next().unwrap_or("");
        let Some(route) = contract.route(&out.method, path) else {
            return Ticket(None);
        };
        // The path's segments that are not the template's literals: the ids it names.
        let literals: BTreeSet<&str> = route.template.split('/').collect();
        let ids: BTreeSet<String> = path
            .split('/')
            .filter(|s| !s.is_empty() && !literals.contains(s))
            .map(str::to_string)
            .collect();
        let mut log = self.lock();
        let n = log.begun;
        log.begun += 1;
        log.flying.insert(n, (states(route), ids));
        Ticket(Some(n))
    }

    /// Its answer came (or none will): what it named joins it, and it is no longer in flight.
    pub(crate) fn end(&self, ticket: Ticket, ex: &Exchange) {
        let Some(n) = ticket.0 else {
            return;
        };
        let mut log = self.lock();
        let Some((states, mut ids)) = log.flying.remove(&n) else {
            return;
        };
        if let Ok(resp) = &ex.outcome {
            if let Some(data) = resp.value().and_then(|b| b.get("data")) {
                named(data, &mut ids);
            }
        }
        log.landed.push((n, states, ids));
        if log.landed.len() > KEPT {
            let cut = log.landed.len() - KEPT;
            log.landed.drain(..cut);
        }
    }

    /// Before a walk: where it begins.
    pub(crate) fn mark(&self) -> Mark {
        let log = self.lock();
        Mark {
            begun: log.begun,
            flying: log.flying.keys().copied().collect(),
        }
    }

    /// After (or during) a walk of the list `route` begun at `mark`: the ids that a change
    /// touching its states, in flight at some time since, named. An item among them may be
    /// missed or repeated by the walk (READINGS 7.2); any other may not.
    pub(crate) fn moved_since(&self, mark: &Mark, route: &Route) -> BTreeSet<String> {
        let mine = states(route);
        let touches = |s: &[String]| s.iter().any(|x| mine.contains(x));
        let since = |n: &u64| *n >= mark.begun || mark.flying.contains(n);
        let log = self.lock();
        let mut out = BTreeSet::new();
        for (n, (s, ids)) in &log.flying {
            if since(n) && touches(s) {
                out.extend(ids.iter().cloned());
            }
        }
        for (n, s, ids) in &log.landed {
            if since(n) && touches(s) {
                out.extend(ids.iter().cloned());
            }
        }
        out
    }
}
