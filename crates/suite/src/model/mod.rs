//! The model of the contract's state: one place, fed by every exchange of the run, that knows
//! what the run created and changed and what the contract says must follow from it, and holds
//! every later read of the run to it, whichever trial sends the read.
//!
//! - What it tracks: the tasks, contacts, webhooks and messages the run created (their fields as
//!   last set, their state), from the requests the run sent (before the profile renames a field)
//!   and the answers that accepted them. A refused request (4xx) changes nothing; an answer that
//!   says nothing certain (5xx, no answer) makes the resource unknown from then on.
//! - What it judges: every answer to a read with the run's own key (the GET of the resource, each
//!   list of its kind whatever its filters and page size, either generation) that shows a tracked
//!   resource, where no change to that resource was in flight between the read's request and its
//!   answer (trials run concurrently). Resources other trials or the workspace hold may appear in
//!   any list without being a finding.
//! - What it does not hold: anything a reading leaves open (READINGS). A field may be absent or
//!   null (1.3), except where the target has shown the same field non-null on another resource of
//!   the kind: then a null is judged as a value. Strings compare after trimming surrounding
//!   whitespace (6.7); instants as instants (5.2); recipient and entry lists as sets.
//!
//! What the model tracks and how each request changes it is the operation table's
//! (`conformance_contract::operations`). Findings go to the trial that sent the read
//! (`checks::rules::collect`), citing the rule's own clause.

mod resources;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::client::{Auth, Exchange, Outgoing};
use crate::results::Finding;
use conformance_contract::Contract;

pub(crate) use resources::Kind;
pub(crate) use resources::Snapshot;
pub(crate) use resources::adds_only;
use resources::{Op, Shown, Tracked};

/// What the run knows of the target's state.
pub(crate) struct Model {
    contract: Arc<Contract>,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Every change the model saw, numbered: a read is judged against a resource only when the
    /// resource's last change came before the read went out.
    clock: u64,
    resources: HashMap<(Kind, String), Tracked>,
    /// The fields the target has shown non-null on some resource of a kind.
    shown: Shown,
    /// The events the accepted changes fired, in the order the model saw them answered.
    fired: Vec<Fired>,
    /// Per kind, the creation instant a read showed of each resource the run created, with
    /// when its create went and was answered.
    births: HashMap<Kind, Vec<Birth>>,
}

/// A created resource's creation instant as read, beside its create's times by the suite's
/// clock.
struct Birth {
    id: String,
    went: std::time::SystemTime,
    back: std::time::SystemTime,
    shown: String,
    at: time::OffsetDateTime,
}

/// How long after one create's answer another must have gone for their creation instants to
/// be in that order, where both show a fraction of a second: far above the tick of any clock
/// that writes one.
const CREATES_APART: std::time::Duration = std::time::Duration::from_millis(100);

/// An event an accepted change fired, as the operation table says (`x-effect.fires`).
#[derive(Debug, Clone)]
pub(crate) struct Fired {
    /// The model's clock when the change was answered.
    pub(crate) clock: u64,
    /// The model's clock when the change was sent.
    pub(crate) sent: u64,
    pub(crate) event: String,
    /// Where the event's resource holds its id (`/taskId`), and its id.
    pub(crate) id_at: String,
    pub(crate) resource: String,
    pub(crate) kind: Kind,
    /// The table ties the event to the change without condition.
    pub(crate) sure: bool,
    /// The exchange of the change.
    pub(crate) cause: Arc<Exchange>,
}

/// What [`Model::before`] learned of a request, handed to [`Model::after`] with its answer.
pub(crate) struct Ticket {
    clock: u64,
    /// The contract has the request refused whatever the resource's state: it is no change in
    /// flight ([`must_be_refused`]).
    refused: bool,
}

/// Whether the contract has `out` refused whatever the state of what it names: it carries no
/// valid key (no `Authorization`, or a near miss of the run's key: Authentication > 3), or it
/// names a version of the header-versioned API other than the stated one (Versioning > 1).
/// Such a request changes nothing where the target keeps the contract, so it may go out beside
/// a change of the same resource without leaving the model unsure of the resource's state.
pub(crate) fn must_be_refused(contract: &Contract, out: &Outgoing) -> bool {
    if matches!(out.auth, Auth::None | Auth::NearMiss(_)) {
        return true;
    }
    let Some(version) = out
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Service-Api-Version"))
        .map(|(_, v)| v.as_str())
    else {
        return false;
    };
    version != conformance_contract::API_VERSION
        && contract
            .route(&out.method, out.path.split('?').next().unwrap_or(""))
            .is_some_and(|r| r.api == conformance_contract::Api::Latest)
}

impl Model {
    pub(crate) fn new(contract: Arc<Contract>) -> Model {
        Model {
            contract,
            state: Mutex::new(State::default()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called before `out` goes out: a change to a tracked resource is in flight from now.
    pub(crate) fn before(&self, out: &Outgoing) -> Ticket {
        let op = resources::classify(&self.contract, out);
        let refused = must_be_refused(&self.contract, out);
        let mut state = self.lock();
        state.clock += 1;
        let clock = state.clock;
        if refused {
            if let Some(Op::Change { kind, id, .. } | Op::Other { kind, id }) = &op {
                if let Some(t) = state.resources.get_mut(&(kind.clone(), id.clone())) {
                    t.refusing += 1;
                    t.changed = clock;
                }
            }
            return Ticket { clock, refused };
        }
        if let Some(Op::Change {
            kind, id, route, ..
        }) = &op
        {
            if let Some(t) = state.resources.get_mut(&(kind.clone(), id.clone())) {
                // Two changes in flight at once (trials sharing a resource): the order the
                // target applied them in is not known, so neither is the resource; unless each
                // adds a member (adds commute).
                let adds = resources::adds_only(route);
                if t.pending > 0 && !(t.adding && adds) {
                    t.unknown = true;
                }
                t.adding = adds && (t.pending == 0 || t.adding);
                t.pending += 1;
                t.changed = clock;
            }
        }
        Ticket { clock, refused }
    }

    /// Called with the answer: applies what an accepted change did and judges what a read
    /// showed; the findings go to the trial that sent it.
    pub(crate) fn after(&self, ticket: Ticket, out: &Outgoing, ex: &Exchange) {
        let contract = &*self.contract;
        let op = resources::classify(contract, out);
        let mut found = Vec::new();
        let mut state = self.lock();
        state.clock += 1;
        let now = state.clock;
        if ticket.refused {
            state.refused_or_not(op, ticket.clock, now, ex);
            return;
        }
        match op {
            Some(Op::Create {
                kind,
                route,
                request,
            }) => {
                let resource = &contract.resources[&kind];
                if let Ok(resp) = &ex.outcome {
                    if (200..300).contains(&resp.status) {
                        if let Some(Ok(body)) = &resp.json {
                            if let Some(id) = body.get("data").and_then(|d| resource.id_of(d)) {
                                let mut t = Tracked::created(&kind, route, resource, &request);
                                t.changed = now;
                                t.made = resources::answered_at(&resp.headers);
                                t.went = ex.sent.map(|s| (s, s + ex.elapsed));
                                t.record(ticket.clock, now);
                                state.fire(route, &kind, resource, &id, (ticket.clock, now), ex);
                                // The answer of a create is stated to be the resource for
                                // contacts only (201 `{data: Contact}`); the others' answers
                                // are not shown (READINGS 2.3) and say nothing here.
                                if resource.create_answers && primary(out) {
                                    state.remember_shown(resource, body.get("data"));
                                    found.extend(t.judge(
                                        resource,
                                        body.get("data").unwrap_or(&Value::Null),
                                        &state.shown,
                                        "/data",
                                        false,
                                        t.made,
                                    ));
                                }
                                state.resources.insert((kind, id), t);
                            }
                        }
                    }
                }
            }
            Some(Op::Change {
                kind,
                id,
                route,
                request,
            }) => {
                let resource = &contract.resources[&kind];
                let status = ex.outcome.as_ref().map(|r| r.status).ok();
                // Whether the change came in the state the contract states it for: only then
                // is what the table says it fires sure to fire.
                let mut stated = false;
                let accepted = if let Some(t) = state.resources.get_mut(&(kind.clone(), id.clone()))
                {
                    t.pending = t.pending.saturating_sub(1);
                    t.changed = now;
                    stated = !t.unknown && stated_for(route, &t.snapshot(), t.members(), &request);
                    let accepted = match status {
                        Some(s) if (200..300).contains(&s) => {
                            let before = state_of(t);
                            t.apply(route, resource, &request);
                            t.writes += 1;
                            // A change that leaves the resource as it was (a member added again,
                            // a value set to what it held) is no "corresponding change": what it
                            // fires is not stated either.
                            if state_of(t) == before {
                                stated = false;
                            }
                            true
                        }
                        // A refusal changes nothing (Errors > Rules; READINGS 2.4).
                        Some(s) if (400..500).contains(&s) => false,
                        _ => {
                            t.unknown = true;
                            false
                        }
                    };
                    t.record(ticket.clock, now);
                    accepted
                } else {
                    false
                };
                if accepted {
                    state.fire(route, &kind, resource, &id, (ticket.clock, now), ex);
                    if !stated {
                        // Outside its from-state, what a change fires is not stated.
                        for f in state.fired.iter_mut().rev().take(route.effect.fires.len()) {
                            f.sure = false;
                        }
                    }
                }
            }
            Some(Op::Read { kind, id }) if primary(out) => {
                if let Ok(resp) = &ex.outcome {
                    let body = resp.json.as_ref().and_then(|j| j.as_ref().ok());
                    let resource = &contract.resources[&kind];
                    found.extend(state.judge_read(
                        resource,
                        id.as_deref(),
                        resp.status,
                        body,
                        (ticket.clock, resources::answered_at(&resp.headers)),
                    ));
                }
            }
            Some(Op::Read { .. }) => {}
            Some(Op::Other { kind, id }) => {
                // A request the model cannot interpret (a route of the reference's own, a
                // transition whose effect the table does not state) may have changed the
                // resource.
                if let Some(t) = state.resources.get_mut(&(kind, id)) {
                    t.unknown = true;
                    t.record(ticket.clock, now);
                }
            }
            None => {}
        }
        drop(state);
        crate::checks::rules::report(found, ex);
    }
}

/// What the model knows of one resource, for a generator that chooses what to send next.
pub(crate) struct View {
    pub(crate) now: resources::Snapshot,
    /// Members added and removed (a task's assignees).
    pub(crate) added: std::collections::BTreeSet<String>,
    pub(crate) removed: std::collections::BTreeSet<String>,
}

impl Model {
    /// Whether the change `route` with `body` to the resource `id` of `kind` is one the contract
    /// states in the resource's state now; `None` when the model does not track it.
    pub(crate) fn stated(
        &self,
        route: &conformance_contract::Route,
        kind: &str,
        id: &str,
        body: &Value,
    ) -> Option<bool> {
        let state = self.lock();
        let t = state.resources.get(&(kind.to_string(), id.to_string()))?;
        Some(stated_for(route, &t.snapshot(), t.members(), body))
    }

    /// Whether the change `route` with `body` to the resource `id` of `kind` is known to change
    /// nothing ([`no_op`]).
    pub(crate) fn no_op(
        &self,
        route: &conformance_contract::Route,
        kind: &str,
        id: &str,
        body: &Value,
    ) -> bool {
        let state = self.lock();
        state
            .resources
            .get(&(kind.to_string(), id.to_string()))
            .is_some_and(|t| {
                let (added, removed) = t.members();
                t.pending == 0 && no_op(route, &t.snapshot(), (&added, &removed), body)
            })
    }

    /// What the model knows of the resource `id` of `kind` now, if it tracks it.
    pub(crate) fn view(&self, kind: &str, id: &str) -> Option<View> {
        let state = self.lock();
        let t = state.resources.get(&(kind.to_string(), id.to_string()))?;
        let (added, removed) = t.members();
        Some(View {
            now: t.snapshot(),
            added,
            removed,
        })
    }

    /// What the resource `id` of `kind` was when the model's clock read `clock`.
    pub(crate) fn at(&self, kind: &str, id: &str, clock: u64) -> Option<resources::Snapshot> {
        let state = self.lock();
        state
            .resources
            .get(&(kind.to_string(), id.to_string()))?
            .at(clock)
            .cloned()
    }

    /// What the resource `id` of `kind` was after each change answered at `clock` or later.
    pub(crate) fn since(&self, kind: &str, id: &str, clock: u64) -> Vec<resources::Snapshot> {
        self.lock()
            .resources
            .get(&(kind.to_string(), id.to_string()))
            .map(|t| t.since(clock))
            .unwrap_or_default()
    }

    /// Whether a change of the resource `id` of `kind` was in flight at some time between the
    /// model's clocks `sent` and `answered` (the span of another request).
    pub(crate) fn changed_during(&self, kind: &str, id: &str, sent: u64, answered: u64) -> bool {
        self.lock()
            .resources
            .get(&(kind.to_string(), id.to_string()))
            .is_some_and(|t| t.changed_during(sent, answered))
    }

    /// How many writes the resource `id` of `kind` accepted, its create included, while the
    /// model followed it; `None` once it could not (an answer it cannot read, a change in
    /// flight).
    pub(crate) fn writes(&self, kind: &str, id: &str) -> Option<usize> {
        let state = self.lock();
        let t = state.resources.get(&(kind.to_string(), id.to_string()))?;
        (!t.unknown && t.pending == 0).then_some(t.writes)
    }

    /// The events the accepted changes of the resources `of` fired, in order.
    pub(crate) fn fired(&self, of: &std::collections::BTreeSet<(Kind, String)>) -> Vec<Fired> {
        self.lock()
            .fired
            .iter()
            .filter(|f| of.contains(&(f.kind.clone(), f.resource.clone())))
            .cloned()
            .collect()
    }
}

impl State {
    /// Records the events an accepted change of `id` fired.
    fn fire(
        &mut self,
        route: &conformance_contract::Route,
        kind: &Kind,
        resource: &conformance_contract::operations::Resource,
        id: &str,
        (sent, clock): (u64, u64),
        ex: &Exchange,
    ) {
        if route.effect.fires.is_empty() {
            return;
        }
        let cause = Arc::new(ex.recorded());
        for f in &route.effect.fires {
            self.fired.push(Fired {
                clock,
                sent,
                event: f.event.clone(),
                id_at: resource.id.clone(),
                resource: id.to_string(),
                kind: kind.clone(),
                sure: f.sure,
                cause: cause.clone(),
            });
        }
    }
}

/// Whether the resource `now` (with its members `added` and `removed`) is in the state in which
/// the contract states the change `route` with the body `request`: every condition of the
/// table's from-state holds (a change without one is stated in every state).
pub(crate) fn stated_for(
    route: &conformance_contract::Route,
    now: &Snapshot,
    (added, removed): (
        std::collections::BTreeSet<String>,
        std::collections::BTreeSet<String>,
    ),
    request: &Value,
) -> bool {
    use conformance_contract::operations::{From, Set};
    if now.deleted || now.unknown {
        return false;
    }
    route.effect.from.iter().all(|(field, cond)| {
        let value = now.value(field);
        match cond {
            From::Is(v) => value.as_ref() == Some(v),
            From::Set => value.as_ref().is_some_and(|v| !v.is_null()),
            From::Unset => value.as_ref().is_none_or(Value::is_null),
            From::HasMember => route
                .effect
                .fields
                .iter()
                .find_map(|f| match &f.set {
                    Set::Remove(p) | Set::Add(p) => request.pointer(p).and_then(Value::as_str),
                    _ => None,
                })
                .is_some_and(|m| added.contains(m) && !removed.contains(m)),
        }
    })
}

/// Whether the change `route` with the body `request` would leave the resource `now` (with its
/// members `added` and `removed`) as it is: every field it sets is known to hold that value
/// already (a member added that is in, a due date cleared that is clear), or it sets none. A
/// no-op update is one a target may refuse (READINGS 6.12).
pub(crate) fn no_op(
    route: &conformance_contract::Route,
    now: &Snapshot,
    (added, removed): (
        &std::collections::BTreeSet<String>,
        &std::collections::BTreeSet<String>,
    ),
    request: &Value,
) -> bool {
    use conformance_contract::operations::{Does, Set};
    if route.effect.does != Does::Change || route.effect.fields.is_empty() {
        return false;
    }
    for f in &route.effect.fields {
        let holds = match &f.set {
            Set::From(p) => match request.pointer(p) {
                Some(v) => now.holds(&f.field, v),
                // Left out: kept, or what becomes of it is not shown.
                None => true,
            },
            Set::Value(v) => now.holds(&f.field, v),
            Set::Clear => now.holds(&f.field, &Value::Null),
            Set::Add(p) => request
                .pointer(p)
                .and_then(Value::as_str)
                .is_some_and(|m| added.contains(m) && !removed.contains(m)),
            Set::Remove(p) => request
                .pointer(p)
                .and_then(Value::as_str)
                .is_some_and(|m| removed.contains(m)),
        };
        if !holds {
            return false;
        }
    }
    true
}

/// Whether the request carries the run's own key: what other keys are shown is not stated.
fn primary(out: &Outgoing) -> bool {
    matches!(out.auth, Auth::Primary)
}

impl State {
    /// A request the contract has refused ([`must_be_refused`]) was answered: refused, it
    /// changed nothing; taken (or not answered for certain), it may have changed what it names,
    /// which the model no longer knows. What a taken request should have done is the status
    /// rule's finding, not the model's.
    fn refused_or_not(&mut self, op: Option<Op>, sent: u64, now: u64, ex: &Exchange) {
        let refused = ex
            .outcome
            .as_ref()
            .is_ok_and(|r| (400..500).contains(&r.status));
        if let Some(Op::Change { kind, id, .. } | Op::Other { kind, id }) = op {
            if let Some(t) = self.resources.get_mut(&(kind, id)) {
                t.refusing = t.refusing.saturating_sub(1);
                if !refused {
                    t.unknown = true;
                    t.changed = now;
                    t.record(sent, now);
                }
            }
        }
    }

    fn remember_shown(
        &mut self,
        resource: &conformance_contract::operations::Resource,
        item: Option<&Value>,
    ) {
        let Some(item) = item else {
            return;
        };
        for field in &resource.fields {
            if item.pointer(&field.pointer).is_some_and(|v| !v.is_null()) {
                self.shown
                    .insert((resource.name.clone(), field.pointer.clone()));
            }
        }
    }

    /// The first creation instant a read shows of a resource the run created, held against
    /// those of the other creates of its kind: a create sent a tenth of a second or more after
    /// another was answered was created after it, so where both instants show a fraction of a
    /// second, its instant is the later one (a default computed once and reused, a clock read
    /// at start-up, is not).
    fn born(
        &mut self,
        resource: &conformance_contract::operations::Resource,
        id: &str,
        item: &Value,
        at: &str,
    ) -> Vec<Finding> {
        let key = (resource.name.clone(), id.to_string());
        let Some(t) = self.resources.get_mut(&key) else {
            return Vec::new();
        };
        let (Some((went, back)), false) = (t.went, t.born) else {
            return Vec::new();
        };
        let Some(pointer) = resource.clocked.iter().find(|p| p.ends_with("createdAt")) else {
            return Vec::new();
        };
        let Some(shown) = item.pointer(pointer).and_then(Value::as_str) else {
            return Vec::new();
        };
        let Some(instant) = resources::instant(&Value::String(shown.to_string())) else {
            return Vec::new();
        };
        t.born = true;
        let me = Birth {
            id: id.to_string(),
            went,
            back,
            shown: shown.to_string(),
            at: instant,
        };
        let precise = |b: &Birth| {
            b.shown
                .split_once('.')
                .is_some_and(|(_, f)| f.chars().take_while(char::is_ascii_digit).any(|c| c != '0'))
        };
        let mut found = Vec::new();
        let births = self.births.entry(resource.name.clone()).or_default();
        if precise(&me) {
            for other in births.iter().filter(|o| precise(o)) {
                let (first, then) = if me.went > other.back {
                    (other, &me)
                } else {
                    (&me, other)
                };
                let apart = then.went.duration_since(first.back).unwrap_or_default();
                if apart >= CREATES_APART && then.at <= first.at {
                    found.push(
                        Finding::new(
                            resources::CLOCK,
                            format!("model: {}", pointer.trim_start_matches('/')),
                            format!(
                                "creation instants in the order of the creates: {} {} before {} {}, whose create went {} ms after the first's was answered",
                                resource.name,
                                first.id,
                                resource.name,
                                then.id,
                                apart.as_millis()
                            ),
                            format!("{} at {}, {} at {}", first.id, first.shown, then.id, then.shown),
                        )
                        .at(format!("{at}{pointer}")),
                    );
                    break;
                }
            }
        }
        births.push(me);
        found
    }

    /// Judges a read's answer: the one resource of a GET by id, or every tracked item of a list.
    fn judge_read(
        &mut self,
        resource: &conformance_contract::operations::Resource,
        id: Option<&str>,
        status: u16,
        body: Option<&Value>,
        (sent, date): (u64, Option<time::OffsetDateTime>),
    ) -> Vec<Finding> {
        let mut found = Vec::new();
        let settled =
            |t: &Tracked| t.pending == 0 && t.refusing == 0 && t.changed < sent && !t.unknown;
        let kind = resource.name.clone();
        match id {
            Some(id) => {
                let key = (kind, id.to_string());
                if (200..300).contains(&status) {
                    let data = body.and_then(|b| b.get("data"));
                    self.remember_shown(resource, data);
                    // An answer that shows another resource than the one read is wrong on its
                    // own account (the read's check says so); it says nothing of this one.
                    let data = data.filter(|d| resource.id_of(d).is_none_or(|shown| shown == id));
                    if let (Some(t), Some(data)) = (self.resources.get_mut(&key), data) {
                        if settled(t) {
                            found.extend(t.judge(
                                resource,
                                data,
                                &self.shown,
                                "/data",
                                false,
                                date,
                            ));
                        }
                    }
                    if let Some(data) = data {
                        found.extend(self.born(resource, id, data, "/data"));
                    }
                }
            }
            None => {
                if !(200..300).contains(&status) {
                    return found;
                }
                let Some(Value::Array(items)) = body.and_then(|b| b.get("data")) else {
                    return found;
                };
                for item in items {
                    self.remember_shown(resource, Some(item));
                }
                for (i, item) in items.iter().enumerate() {
                    let Some(item_id) = resource.id_of(item) else {
                        continue;
                    };
                    if let Some(t) = self.resources.get_mut(&(kind.clone(), item_id.clone())) {
                        if settled(t) {
                            found.extend(t.judge(
                                resource,
                                item,
                                &self.shown,
                                &format!("/data/{i}"),
                                true,
                                date,
                            ));
                        }
                    }
                    found.extend(self.born(resource, &item_id, item, &format!("/data/{i}")));
                }
            }
        }
        found
    }
}

/// What the model knows of a resource, comparable: its known fields by pointer, and its members.
type Members = (
    std::collections::BTreeSet<String>,
    std::collections::BTreeSet<String>,
);

fn state_of(t: &Tracked) -> (Vec<(String, Option<Value>)>, Members) {
    let now = t.snapshot();
    let mut fields: Vec<(String, Option<Value>)> = now
        .pointers()
        .into_iter()
        .map(|p| {
            let v = now.value(&p);
            (p, v)
        })
        .collect();
    fields.sort_by(|a, b| a.0.cmp(&b.0));
    (fields, t.members())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::{NearKey, Response};
    use serde_json::json;

    fn out(method: &str, path: &str, auth: Auth, body: Option<Value>) -> Outgoing {
        Outgoing {
            method: method.into(),
            path: path.into(),
            query: Vec::new(),
            headers: Vec::new(),
            body,
            raw_body: None,
            auth,
        }
    }

    fn answer(status: u16, body: Value) -> Exchange {
        Exchange::standing_in(Ok(Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
            size: 0,
            json: Some(Ok(body)),
            non_utf8_headers: Vec::new(),
            head: String::new(),
            head_cut: false,
        }))
    }

    /// A model that tracks one task the run created.
    fn with_task() -> (Model, Outgoing) {
        let contract = Contract::shared().expect("contract");
        let model = Model::new(contract);
        let create = out(
            "POST",
            "/v1/tasks",
            Auth::Primary,
            Some(json!({"title": "t", "phoneNumberId": "PN1"})),
        );
        let ticket = model.before(&create);
        model.after(
            ticket,
            &create,
            &answer(201, json!({"data": {"taskId": "TK1", "title": "t"}})),
        );
        let complete = out("POST", "/v1/tasks/TK1/complete", Auth::Primary, None);
        (model, complete)
    }

    fn unknown(model: &Model) -> bool {
        model.view("task", "TK1").expect("tracked").now.unknown
    }

    /// What the contract refuses whatever the state: no key, a near miss of the run's key, another
    /// version of the header-versioned API. A request with the run's key is not, nor a version
    /// header on a `/v1` route.
    #[test]
    fn requests_without_a_valid_key_or_with_another_version_must_be_refused() {
        let contract = Contract::shared().expect("contract");
        let refused = |o: &Outgoing| must_be_refused(&contract, o);
        assert!(refused(&out("DELETE", "/v1/tasks/TK1", Auth::None, None)));
        assert!(refused(&out(
            "DELETE",
            "/v1/tasks/TK1",
            Auth::NearMiss(NearKey::Cut),
            None
        )));
        assert!(!refused(&out(
            "DELETE",
            "/v1/tasks/TK1",
            Auth::Primary,
            None
        )));
        let mut latest = out("DELETE", "/webhooks/2001", Auth::Primary, None);
        latest
            .headers
            .push(("Service-Api-Version".into(), "2026-03-31".into()));
        assert!(refused(&latest));
        latest.headers[0].1 = conformance_contract::API_VERSION.into();
        assert!(!refused(&latest));
        let mut v1 = out("DELETE", "/v1/tasks/TK1", Auth::Primary, None);
        v1.headers
            .push(("Service-Api-Version".into(), "2026-03-31".into()));
        assert!(!refused(&v1));
    }

    /// Keyless changes in flight beside a change with the run's key leave the resource known
    /// when they are refused; one the target takes all the same leaves it unknown.
    #[test]
    fn a_refused_request_beside_a_change_leaves_the_resource_known() {
        let (model, complete) = with_task();
        let keyless = out("POST", "/v1/tasks/TK1/complete", Auth::None, None);
        let (a, b, c) = (
            model.before(&keyless),
            model.before(&complete),
            model.before(&keyless),
        );
        model.after(a, &keyless, &answer(401, json!({})));
        model.after(b, &complete, &answer(200, json!({})));
        model.after(c, &keyless, &answer(401, json!({})));
        assert!(!unknown(&model), "refusals are no change in flight");
        let taken = model.before(&keyless);
        model.after(taken, &keyless, &answer(200, json!({})));
        assert!(
            unknown(&model),
            "a keyless change taken leaves the task unknown"
        );

        let (model, complete) = with_task();
        let (a, b) = (model.before(&complete), model.before(&complete));
        model.after(a, &complete, &answer(200, json!({})));
        model.after(b, &complete, &answer(200, json!({})));
        assert!(
            unknown(&model),
            "two changes with the key in flight at once"
        );
    }
}
