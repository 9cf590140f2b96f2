//! READINGS 7.2: two requests in flight at once may take effect in either order. The changes of
//! the run in flight, by the states they touch (the operation table's `touches` and the kind
//! they act on), so that a list walked while one could add, remove or move its items is judged
//! for a missing or repeated item only where none was in flight during the walk.

use std::collections::BTreeMap;
use std::sync::Mutex;

use crate::client::Outgoing;
use conformance_contract::{Contract, Route};

/// The run's changes in flight, and how many began, by touched state.
#[derive(Default)]
pub(crate) struct Flights(Mutex<BTreeMap<String, (u32, u64)>>);

/// What [`Flights::mark`] saw when a walk began: the count of changes begun of each state.
pub(crate) struct Mark(Vec<(String, u64)>);

/// The states a route touches: its `touches` and the kind it acts on.
fn states(route: &Route) -> Vec<String> {
    let mut s = route.effect.touches.clone();
    s.push(route.effect.on.clone());
    s
}

impl Flights {
    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, (u32, u64)>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A request is about to go: a change (anything but a read) is in flight from now on.
    pub(crate) fn begin(&self, contract: &Contract, out: &Outgoing) -> Vec<String> {
        if out.method.eq_ignore_ascii_case("GET") {
            return Vec::new();
        }
        let path = out.path.split('?').next().unwrap_or("");
        let Some(route) = contract.route(&out.method, path) else {
            return Vec::new();
        };
        let touched = states(route);
        let mut map = self.lock();
        for s in &touched {
            let e = map.entry(s.clone()).or_default();
            e.0 += 1;
            e.1 += 1;
        }
        touched
    }

    /// Its answer came (or none will): the change is no longer in flight.
    pub(crate) fn end(&self, touched: &[String]) {
        let mut map = self.lock();
        for s in touched {
            if let Some(e) = map.get_mut(s) {
                e.0 = e.0.saturating_sub(1);
            }
        }
    }

    /// Before a walk of the list `route`: `None` where a change that could move its items is in
    /// flight already, else what to compare with at the walk's end.
    pub(crate) fn mark(&self, route: &Route) -> Option<Mark> {
        let map = self.lock();
        let mut seen = Vec::new();
        for s in states(route) {
            let (flying, begun) = map.get(&s).copied().unwrap_or_default();
            if flying > 0 {
                return None;
            }
            seen.push((s, begun));
        }
        Some(Mark(seen))
    }

    /// After the walk: whether no change that could move its items was in flight at any time
    /// since `mark`.
    pub(crate) fn quiet_since(&self, mark: &Option<Mark>) -> bool {
        let Some(Mark(seen)) = mark else {
            return false;
        };
        let map = self.lock();
        seen.iter().all(|(s, begun)| {
            map.get(s)
                .is_none_or(|(flying, now)| *flying == 0 && now == begun)
        })
    }
}
