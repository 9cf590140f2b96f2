//! The resources the model tracks: which requests create, change and read them, what an accepted
//! change does to them, and how a read of one is judged. All of it is the operation table's
//! (`x-effect` and `x-resources` of the route table, `conformance_contract::operations`): this
//! file only follows what the table states, field by field.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::client::Outgoing;
use crate::results::Finding;
use conformance_contract::operations::{Absent, Does, Effect, Resource, Set, Shape};
use conformance_contract::{Contract, Route};

/// A kind of resource the model tracks: one of the table's kinds whose fields a run sets.
pub(crate) type Kind = String;

/// The fields a target has shown non-null on some resource of a kind.
pub(crate) type Shown = HashSet<(Kind, String)>;

/// What one request does to the model's resources.
pub(crate) enum Op<'c> {
    Create {
        kind: Kind,
        route: &'c Route,
        request: Value,
    },
    Change {
        kind: Kind,
        id: String,
        route: &'c Route,
        request: Value,
    },
    Read {
        kind: Kind,
        id: Option<String>,
    },
    /// A request on a tracked resource the model cannot interpret.
    Other {
        kind: Kind,
        id: String,
    },
}

/// The value of the path parameter `name` of `template` in `path`.
fn param(template: &str, path: &str, name: &str) -> Option<String> {
    let t: Vec<&str> = template.trim_matches('/').split('/').collect();
    let p: Vec<&str> = path.trim_matches('/').split('/').collect();
    (t.len() == p.len())
        .then(|| {
            t.iter()
                .zip(&p)
                .find(|(t, _)| **t == format!("{{{name}}}"))
                .map(|(_, p)| p.to_string())
        })
        .flatten()
}

/// The kind an effect acts on, where the model tracks it (its table entry names fields).
pub(crate) fn tracked<'c>(contract: &'c Contract, effect: &Effect) -> Option<&'c Resource> {
    contract
        .resources
        .get(&effect.on)
        .filter(|r| !r.fields.is_empty())
}

/// What `out` does, by its route's entry in the operation table.
pub(crate) fn classify<'c>(contract: &'c Contract, out: &Outgoing) -> Option<Op<'c>> {
    let path = out.path.split('?').next().unwrap_or("");
    let route = contract.route(&out.method, path)?;
    let effect = &route.effect;
    let kind = tracked(contract, effect)?.name.clone();
    let id = || {
        effect
            .id
            .as_deref()
            .and_then(|name| param(&route.template, path, name))
    };
    let request = out.body.clone().unwrap_or(Value::Null);
    match effect.does {
        Does::Create => Some(Op::Create {
            kind,
            route,
            request,
        }),
        Does::Read => Some(Op::Read { kind, id: id() }),
        Does::List if effect.of.is_none() => Some(Op::Read { kind, id: None }),
        Does::List => None,
        Does::Change | Does::Delete => {
            let id = id()?;
            // A change whose table entry needs a body field the request leaves out (or sends
            // as no name, where the field holds names) does what the table does not say.
            let resource = tracked(contract, effect)?;
            let unknown = effect.fields.iter().any(|f| {
                let source = match &f.set {
                    Set::From(p) | Set::Add(p) | Set::Remove(p) => request.pointer(p),
                    _ => return false,
                };
                let named = matches!(
                    resource.field(&f.field).map(|x| x.shape),
                    Some(Shape::Text | Shape::Members)
                );
                f.required && source.is_none_or(|v| named && !v.is_string())
            });
            if unknown {
                Some(Op::Other { kind, id })
            } else {
                Some(Op::Change {
                    kind,
                    id,
                    route,
                    request,
                })
            }
        }
        Does::Other => Some(Op::Other { kind, id: id()? }),
    }
}

/// One field the model knows: its value as last set, or that it was cleared.
#[derive(Debug, Clone)]
enum Known {
    Text(String),
    Instant(OffsetDateTime),
    Bool(bool),
    /// A set of strings (recipients, events, entry values); `fold` compares ignoring case.
    Set(BTreeSet<String>, bool),
    /// Cleared: null or absent.
    Cleared,
}

/// The convention instants break when they are not in UTC.
pub(crate) const CLOCK: &str = "Conventions > timestamps";

/// The `Date` of an answer: the target's clock when it answered.
pub(crate) fn answered_at(headers: &[(String, String)]) -> Option<OffsetDateTime> {
    let (_, v) = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("date"))?;
    OffsetDateTime::parse(v, &time::format_description::well_known::Rfc2822).ok()
}

/// A resource the run created, as the model knows it.
pub(crate) struct Tracked {
    kind: Kind,
    /// (field, clause of the change that set it, value).
    fields: Vec<(String, String, Known)>,
    /// Fields a read showed as last set, since they were set, with the clauses of the changes
    /// accepted since that read which the contract says leave them alone: a different value
    /// later breaks one of those changes, not the one that set the field.
    confirmed: BTreeMap<String, Vec<String>>,
    /// Members (a task's assignees) known added, and known removed (the initial ones are not
    /// stated), with the clause of the changes that add and remove them.
    members: Option<Members>,
    /// The clause of the delete that was accepted.
    deleted: Option<String>,
    /// Changes to it in flight.
    pub(crate) pending: u32,
    /// Requests in flight that the contract has refused whatever its state: none is a change,
    /// but a read answered meanwhile is not judged (a target that took one changed it).
    pub(crate) refusing: u32,
    /// Every change in flight adds a member (adds commute: whatever order the target applies
    /// them in, each member is in).
    pub(crate) adding: bool,
    /// The model's clock at its last change (sent or answered).
    pub(crate) changed: u64,
    /// Something the model cannot follow happened to it: it is judged no more.
    pub(crate) unknown: bool,
    /// What it was after each change, by the model's clock when the change was answered, with
    /// the clock when it was sent: what it was when another change fired an event (a webhook's
    /// events then) is read from here.
    history: Vec<(u64, u64, Snapshot)>,
    /// The writes accepted on it, its create included: no event fires more often.
    pub(crate) writes: usize,
    /// Of each view (a list's item, a read by id), what the last read showed of the fields no
    /// operation sets (`Resource::unset`), with the clauses of the changes accepted since, each
    /// of which keeps the others; `None` after a change that may alter them.
    unset: [Option<Unset>; 2],
    /// When the target answered its create, by the target's own clock (the answer's `Date`).
    pub(crate) made: Option<OffsetDateTime>,
    /// When its create went and was answered, by the suite's clock.
    pub(crate) went: Option<(std::time::SystemTime, std::time::SystemTime)>,
    /// Whether a read has shown its creation instant yet (the model compares it with the
    /// other creates of its kind once).
    pub(crate) born: bool,
}

/// The fields no operation sets as one view last showed them (present and not null), and the
/// clauses of the changes since.
type Unset = (BTreeMap<String, Value>, Vec<String>);

/// A resource as it was at one moment.
#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    fields: Vec<(String, Known)>,
    pub(crate) deleted: bool,
    pub(crate) unknown: bool,
}

impl Snapshot {
    /// The field's value as last set: `Some(Value::Null)` once cleared, `None` when not known.
    pub(crate) fn value(&self, pointer: &str) -> Option<Value> {
        self.fields
            .iter()
            .find(|(p, _)| p == pointer)
            .map(|(_, k)| known_value(k))
    }

    /// The first field `data` shows (present and not null) otherwise than this snapshot holds
    /// it: (pointer, what it holds, what `data` shows). Absent or null fields are no answer
    /// (READINGS 1.3).
    pub(crate) fn mismatch(&self, data: &Value) -> Option<(String, String, Value)> {
        self.fields.iter().find_map(|(pointer, known)| {
            let v = data.pointer(pointer).filter(|v| !v.is_null())?;
            differs(known, v).then(|| (pointer.clone(), describe(known), v.clone()))
        })
    }

    /// Whether the field at `pointer` is known to hold what `v` says already (a cleared field
    /// holds null).
    pub(crate) fn holds(&self, pointer: &str, v: &Value) -> bool {
        self.fields
            .iter()
            .find(|(p, _)| p == pointer)
            .is_some_and(|(_, k)| match k {
                Known::Cleared => v.is_null(),
                k => !v.is_null() && !differs(k, v),
            })
    }

    /// The fields whose value is known.
    pub(crate) fn pointers(&self) -> Vec<String> {
        self.fields.iter().map(|(p, _)| p.clone()).collect()
    }
}

/// A known value as JSON: a set as an array of strings, a cleared field as null.
fn known_value(k: &Known) -> Value {
    match k {
        Known::Text(t) => Value::String(t.clone()),
        Known::Instant(t) => Value::String(t.format(&Rfc3339).unwrap_or_default()),
        Known::Bool(b) => Value::Bool(*b),
        Known::Set(s, _) => Value::Array(s.iter().cloned().map(Value::String).collect()),
        Known::Cleared => Value::Null,
    }
}

/// The members of a members-shaped field, as the run added and removed them.
struct Members {
    field: String,
    clause: String,
    added: BTreeSet<String>,
    removed: BTreeSet<String>,
}

fn trimmed(v: &Value) -> Option<String> {
    v.as_str().map(|s| s.trim().to_string())
}

pub(crate) fn instant(v: &Value) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(v.as_str()?, &Rfc3339).ok()
}

/// Whether the shown date-time `v` is the instant `sent`, at the precision the target shows:
/// the contract allows fractional seconds (READINGS 5.2) and states no precision, so a target
/// that keeps whole seconds, or milliseconds, shows the sent instant truncated or rounded to
/// the digits it shows.
fn same_instant(sent: OffsetDateTime, v: &Value) -> bool {
    let Some(shown) = instant(v) else {
        return false;
    };
    if shown == sent {
        return true;
    }
    let text = v.as_str().unwrap_or_default();
    let digits = text.split_once('.').map_or(0, |(_, rest)| {
        rest.chars().take_while(char::is_ascii_digit).count()
    });
    if digits >= 9 {
        return false;
    }
    let unit = 10i64.pow(9 - digits as u32);
    let nanos = i64::from(sent.nanosecond());
    let down = sent - time::Duration::nanoseconds(nanos % unit);
    let up = down + time::Duration::nanoseconds(unit);
    shown == down || (shown == up && nanos % unit * 2 >= unit)
}

fn strings(v: &Value) -> Option<BTreeSet<String>> {
    v.as_array()?
        .iter()
        .map(|i| i.as_str().map(|s| s.trim().to_string()))
        .collect()
}

/// The `value`s of entries (emails or phone numbers), lower-cased when `fold`.
fn entry_values(v: Option<&Value>, fold: bool) -> Known {
    let set = v
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.get("value").and_then(Value::as_str))
                .map(|s| {
                    let s = s.trim();
                    if fold {
                        s.to_lowercase()
                    } else {
                        s.to_string()
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Known::Set(set, fold)
}

/// What a sent value of a field of `shape` says it now holds; `None`: nothing it can hold
/// (absent, or of another type), which counts as left out.
fn known(shape: Shape, v: Option<&Value>) -> Option<Known> {
    let v = v?;
    match shape {
        Shape::Text => trimmed(v).map(Known::Text),
        Shape::Bool => v.as_bool().map(Known::Bool),
        Shape::Instant => v.as_str().map(|_| match instant(v) {
            Some(d) => Known::Instant(d),
            // A date-time that does not parse: what the target keeps is not known.
            None => Known::Cleared,
        }),
        Shape::Set => strings(v).map(|s| Known::Set(s, false)),
        Shape::Entries { folded } => v.is_array().then(|| entry_values(Some(v), folded)),
        Shape::Members => None,
    }
}

/// Whether every field `route` changes is a member it adds.
pub(crate) fn adds_only(route: &Route) -> bool {
    !route.effect.fields.is_empty()
        && route
            .effect
            .fields
            .iter()
            .all(|f| matches!(f.set, Set::Add(_)))
}

impl Tracked {
    /// A resource as the accepted create of `route` with `request` made it.
    pub(crate) fn created(
        kind: &Kind,
        route: &Route,
        resource: &Resource,
        request: &Value,
    ) -> Tracked {
        let mut t = Tracked {
            kind: kind.clone(),
            fields: Vec::new(),
            confirmed: BTreeMap::new(),
            members: None,
            deleted: None,
            pending: 0,
            refusing: 0,
            adding: false,
            changed: 0,
            unknown: false,
            history: Vec::new(),
            writes: 1,
            unset: [None, None],
            made: None,
            went: None,
            born: false,
        };
        t.apply(route, resource, request);
        t
    }

    /// It as it is now.
    pub(crate) fn snapshot(&self) -> Snapshot {
        Snapshot {
            fields: self
                .fields
                .iter()
                .map(|(p, _, k)| (p.clone(), k.clone()))
                .collect(),
            deleted: self.deleted.is_some(),
            unknown: self.unknown,
        }
    }

    /// Keeps what it is at `clock` (after a change sent at `sent`, or once it is no longer
    /// known).
    pub(crate) fn record(&mut self, sent: u64, clock: u64) {
        let now = self.snapshot();
        self.history.push((clock, sent, now));
    }

    /// Whether one of its changes was in flight at some time between `sent` and `answered`:
    /// which came first, that change or a request in flight then, is not known.
    pub(crate) fn changed_during(&self, sent: u64, answered: u64) -> bool {
        self.history
            .iter()
            .any(|(done, began, _)| *began < answered && *done > sent)
    }

    /// What it was after each change the model saw answered at `clock` or later.
    pub(crate) fn since(&self, clock: u64) -> Vec<Snapshot> {
        self.history
            .iter()
            .filter(|(c, _, _)| *c >= clock)
            .map(|(_, _, s)| s.clone())
            .collect()
    }

    /// What it was at `clock`: after the last change the model saw before then.
    pub(crate) fn at(&self, clock: u64) -> Option<&Snapshot> {
        self.history
            .iter()
            .rev()
            .find(|(c, _, _)| *c <= clock)
            .map(|(_, _, s)| s)
    }

    /// The members a members field holds as the run added and removed them: (added, removed).
    pub(crate) fn members(&self) -> (BTreeSet<String>, BTreeSet<String>) {
        self.members
            .as_ref()
            .map(|m| (m.added.clone(), m.removed.clone()))
            .unwrap_or_default()
    }

    fn set(&mut self, pointer: &str, known: Known, clause: &str) {
        self.fields.retain(|(p, _, _)| p != pointer);
        self.fields
            .push((pointer.to_string(), clause.to_string(), known));
        self.confirmed.remove(pointer);
    }

    fn forget(&mut self, pointer: &str) {
        self.fields.retain(|(p, _, _)| p != pointer);
        self.confirmed.remove(pointer);
    }

    /// An accepted change that the contract says touches only `touched`: every other field a
    /// read showed as last set is now also the change's to keep, so a different value later
    /// breaks the clause of one of the changes since that read (a PUT that reopens a completed
    /// task breaks the PUT's, not the completion's). A field not read back since it was set
    /// keeps its own clause: the change that set it may be the one that lost it.
    fn kept_by(&mut self, clause: &str, touched: &[&str]) {
        for (pointer, since) in &mut self.confirmed {
            if !touched.contains(&pointer.as_str()) && !since.iter().any(|c| c == clause) {
                since.push(clause.to_string());
            }
        }
    }

    /// Applies what the accepted request `request` of `route` does, as its table entry states.
    pub(crate) fn apply(&mut self, route: &Route, resource: &Resource, request: &Value) {
        let effect = &route.effect;
        if effect.does == Does::Delete {
            self.deleted = Some(route.clause.clone());
            return;
        }
        // The fields the change sets or forgets (a field it keeps because the body left it out
        // is not touched).
        let touched: Vec<&str> = effect
            .fields
            .iter()
            .filter(|f| match &f.set {
                Set::From(p) => f.absent != Absent::Keep || request.pointer(p).is_some(),
                _ => true,
            })
            .map(|f| f.field.as_str())
            .collect();
        if let Some(clause) = &effect.keeps_others {
            self.kept_by(clause, &touched);
        }
        for view in &mut self.unset {
            match (&effect.keeps_others, view.as_mut()) {
                (Some(clause), Some((_, since))) => {
                    if !since.contains(clause) {
                        since.push(clause.clone());
                    }
                }
                _ => *view = None,
            }
        }
        if effect.replaces {
            // What the change does to the fields it leaves out is not shown.
            self.fields.clear();
        }
        for r in &effect.restates {
            for f in self.fields.iter_mut().filter(|f| &f.0 == r) {
                f.1 = route.clause.clone();
            }
        }
        for f in &effect.fields {
            let Some(shape) = resource.field(&f.field).map(|field| field.shape) else {
                continue;
            };
            match &f.set {
                Set::Value(v) => match known(shape, Some(v)) {
                    Some(k) => self.set(&f.field, k, &f.clause),
                    None => self.forget(&f.field),
                },
                Set::Clear => self.set(&f.field, Known::Cleared, &f.clause),
                Set::Add(p) | Set::Remove(p) => {
                    let Some(user) = request.pointer(p).and_then(Value::as_str) else {
                        continue;
                    };
                    let m = self.members.get_or_insert_with(|| Members {
                        field: f.field.clone(),
                        clause: f.clause.clone(),
                        added: BTreeSet::new(),
                        removed: BTreeSet::new(),
                    });
                    if matches!(f.set, Set::Add(_)) {
                        m.removed.remove(user);
                        m.added.insert(user.to_string());
                    } else {
                        m.added.remove(user);
                        m.removed.insert(user.to_string());
                    }
                }
                Set::From(p) => {
                    let sent = request.pointer(p);
                    let value = if f.null_clears && sent.is_some_and(Value::is_null) {
                        Some(Known::Cleared)
                    } else if f.e164_only
                        && !sent
                            .and_then(Value::as_str)
                            .is_some_and(|s| s.starts_with('+'))
                    {
                        None
                    } else {
                        known(shape, sent)
                    };
                    match (value, f.absent) {
                        (Some(Known::Cleared), _) if shape == Shape::Instant => {
                            self.forget(&f.field)
                        }
                        (Some(k), _) => self.set(&f.field, k, &f.clause),
                        (None, Absent::Forget) => self.forget(&f.field),
                        (None, Absent::Keep) => {}
                        (None, Absent::Empty) => {
                            let fold = matches!(shape, Shape::Entries { folded: true });
                            self.set(&f.field, Known::Set(BTreeSet::new(), fold), &f.clause)
                        }
                    }
                }
            }
        }
    }

    /// Judges the resource as a read (its GET, or an item of a list: `listed`) answered at
    /// `date` (the answer's `Date`, the target's clock) showed it.
    pub(crate) fn judge(
        &mut self,
        resource: &Resource,
        data: &Value,
        shown: &Shown,
        at: &str,
        listed: bool,
        date: Option<OffsetDateTime>,
    ) -> Vec<Finding> {
        if let Some(clause) = &self.deleted {
            // A deleted resource may still be shown with its `deleted` field true (a task's
            // `isDeleted`, in the table); what else a read of it shows is not stated.
            let Some(flag) = &resource.deleted else {
                return Vec::new();
            };
            if data.pointer(flag) != Some(&Value::Bool(true)) {
                let name = flag.trim_start_matches('/');
                return vec![
                    Finding::new(
                        clause,
                        format!("model: deleted {}", self.kind),
                        format!(
                            "404, or the {} with {name} true, after its DELETE was accepted",
                            self.kind
                        ),
                        format!(
                            "200 with {name} {}",
                            data.pointer(flag).unwrap_or(&Value::Null)
                        ),
                    )
                    .at(format!("{at}{flag}")),
                ];
            }
            return Vec::new();
        }
        let mut out = self.judge_fields(data, shown, at);
        out.extend(self.judge_members(data, shown, at));
        out.extend(self.judge_unset(resource, data, at, listed));
        out.extend(self.judge_clocked(resource, data, at, date));
        if let (Some(flag), Some(clause)) = (&resource.deleted, &resource.clause) {
            // Only a delete deletes: a resource the run never deleted is not shown deleted.
            if data.pointer(flag) == Some(&Value::Bool(true)) {
                let name = flag.trim_start_matches('/');
                out.push(
                    Finding::new(
                        clause,
                        format!("model: {name}"),
                        format!(
                            "{name} false or absent: the run never deleted this {}",
                            self.kind
                        ),
                        format!("{name} true"),
                    )
                    .at(format!("{at}{flag}")),
                );
            }
        }
        out
    }

    /// The instants the target sets from its clock fall between its create's answer and this
    /// read's, by the target's own clock, within a margin for clocks of its parts (a database's)
    /// that differ: an instant hours away is not one in UTC (a local time written with `Z`, a
    /// date without its time).
    fn judge_clocked(
        &self,
        resource: &Resource,
        data: &Value,
        at: &str,
        date: Option<OffsetDateTime>,
    ) -> Vec<Finding> {
        const MARGIN: time::Duration = time::Duration::minutes(10);
        let (Some(made), Some(date)) = (self.made, date) else {
            return Vec::new();
        };
        let (from, to) = (made - MARGIN, date + MARGIN);
        let fmt = |t: OffsetDateTime| t.format(&Rfc3339).unwrap_or_default();
        resource
            .clocked
            .iter()
            .filter_map(|pointer| {
                let v = data.pointer(pointer)?;
                let t = instant(v)?;
                (t < from || t > to).then(|| {
                    Finding::new(
                        CLOCK,
                        format!("model: {}", pointer.trim_start_matches('/')),
                        format!(
                            "an instant in UTC from {} to {}: the target created this {} at {} by its own clock (the Date of the answer), and this read was answered at {}, give or take ten minutes",
                            fmt(from),
                            fmt(to),
                            self.kind,
                            fmt(made),
                            fmt(date)
                        ),
                        crate::redact::compact(v),
                    )
                    .at(format!("{at}{pointer}"))
                })
            })
            .collect()
    }

    /// The fields no operation sets, as this view last showed them: a change that keeps the
    /// others since then leaves each as it was (shown with the same value, not dropped).
    fn judge_unset(
        &mut self,
        resource: &Resource,
        data: &Value,
        at: &str,
        listed: bool,
    ) -> Vec<Finding> {
        let mut out = Vec::new();
        let view = &mut self.unset[usize::from(listed)];
        if let Some((seen, since)) = view.as_ref().filter(|(_, since)| !since.is_empty()) {
            for (pointer, was) in seen {
                let now = data.pointer(pointer).filter(|v| !v.is_null());
                let same = match (now, instant(was)) {
                    (Some(v), Some(t)) => instant(v) == Some(t),
                    (Some(v), None) => v == was,
                    (None, _) => false,
                };
                if same {
                    continue;
                }
                out.push(
                    Finding::new(
                        &since[0],
                        format!("model: {}", pointer.trim_start_matches('/')),
                        format!(
                            "{}, as a read showed it before changes that set other fields",
                            crate::redact::compact(was)
                        ),
                        now.map_or("null or absent".into(), crate::redact::compact),
                    )
                    .at(format!("{at}{pointer}"))
                    .with_clauses(since),
                );
            }
        }
        let seen = resource
            .unset
            .iter()
            .filter_map(|p| {
                let v = data.pointer(p).filter(|v| !v.is_null())?;
                Some((p.clone(), v.clone()))
            })
            .collect();
        *view = Some((seen, Vec::new()));
        out
    }

    fn judge_fields(&mut self, data: &Value, shown: &Shown, at: &str) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut confirmed = Vec::new();
        let is_shown = |pointer: &str| shown.contains(&(self.kind.clone(), pointer.to_string()));
        for (pointer, clause, known) in &self.fields {
            let actual = data.pointer(pointer);
            let present = actual.filter(|v| !v.is_null());
            let wrong = match (known, present) {
                (Known::Cleared, None) => None,
                (Known::Cleared, Some(v)) => Some(("null or absent".to_string(), v.clone())),
                // Absent or null is allowed (READINGS 1.3), unless the target shows the field
                // on other resources of the kind: then a null is a value, and a wrong one.
                (_, None) => {
                    if is_shown(pointer) && !matches!(known, Known::Set(s, _) if s.is_empty()) {
                        Some((describe(known), actual.cloned().unwrap_or(Value::Null)))
                    } else {
                        None
                    }
                }
                (_, Some(v)) => differs(known, v).then(|| (describe(known), v.clone())),
            };
            // A value shown as last set (a cleared field shown null or absent) confirms it.
            if wrong.is_none() && (present.is_some() || matches!(known, Known::Cleared)) {
                confirmed.push(pointer.clone());
            }
            if let Some((expected, actual)) = wrong {
                let cited: Vec<String> = match self.confirmed.get(pointer) {
                    Some(since) if !since.is_empty() => since.clone(),
                    _ => vec![clause.clone()],
                };
                out.push(
                    Finding::new(
                        clause,
                        format!("model: {}", pointer.trim_start_matches('/')),
                        format!("{expected}, as the run last set it"),
                        crate::redact::compact(&actual),
                    )
                    .at(format!("{at}{pointer}"))
                    .with_clauses(&cited),
                );
            }
        }
        for pointer in confirmed {
            self.confirmed.insert(pointer, Vec::new());
        }
        out
    }

    /// A members field holds user ids: none the run removed since, and, where it lists them all
    /// (an array), every user the run added since.
    fn judge_members(&self, data: &Value, shown: &Shown, at: &str) -> Vec<Finding> {
        let Some(m) = &self.members else {
            return Vec::new();
        };
        let actual = data.pointer(&m.field).filter(|v| !v.is_null());
        let listed: Option<BTreeSet<String>> = match actual {
            Some(Value::String(s)) => Some([s.clone()].into()),
            Some(Value::Array(_)) => actual.and_then(strings),
            _ => None,
        };
        let wrong = match (actual, &listed) {
            (None, _) => {
                !m.added.is_empty() && shown.contains(&(self.kind.clone(), m.field.clone()))
            }
            (Some(Value::Array(_)), Some(l)) => {
                !m.added.is_subset(l) || l.iter().any(|u| m.removed.contains(u))
            }
            (Some(_), Some(l)) => l.iter().any(|u| m.removed.contains(u)),
            _ => false,
        };
        if !wrong {
            return Vec::new();
        }
        let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        let name = m.field.trim_start_matches('/');
        vec![
            Finding::new(
                &m.clause,
                format!("model: {name}"),
                format!(
                    "assignees that include [{}] and none of [{}], as the run assigned and unassigned them",
                    list(&m.added),
                    list(&m.removed)
                ),
                actual.map_or("null".into(), crate::redact::compact),
            )
            .at(format!("{at}{}", m.field)),
        ]
    }
}

/// Whether `v`, shown and not null, differs from the value `known` holds.
fn differs(known: &Known, v: &Value) -> bool {
    match known {
        Known::Cleared => true,
        Known::Text(t) => trimmed(v).as_deref() != Some(t.as_str()),
        Known::Instant(t) => !same_instant(*t, v),
        Known::Bool(b) => v.as_bool() != Some(*b),
        Known::Set(s, fold) => {
            let got: Option<BTreeSet<String>> = match v {
                Value::Array(items) if items.iter().all(|i| i.is_string()) => {
                    strings(v).map(|s| fold_set(s, *fold))
                }
                Value::Array(_) => match entry_values(Some(v), *fold) {
                    Known::Set(s, _) => Some(s),
                    _ => None,
                },
                _ => None,
            };
            got.as_ref() != Some(s)
        }
    }
}

fn fold_set(s: BTreeSet<String>, fold: bool) -> BTreeSet<String> {
    if fold {
        s.into_iter().map(|v| v.to_lowercase()).collect()
    } else {
        s
    }
}

fn describe(known: &Known) -> String {
    match known {
        Known::Text(t) => Value::String(t.clone()).to_string(),
        Known::Instant(t) => format!(
            "the instant {}",
            t.format(&Rfc3339).unwrap_or_else(|_| "?".into())
        ),
        Known::Bool(b) => b.to_string(),
        Known::Set(s, _) => format!(
            "the set {}",
            Value::Array(s.iter().cloned().map(Value::String).collect())
        ),
        Known::Cleared => "null or absent".into(),
    }
}
