//! The case model: what a case file says, after loading and normalisation.

use conformance_contract::Api;
use std::collections::BTreeSet;

pub use super::state::{Hold, State};

use serde::Deserialize;
use serde_json::{Map, Value};

/// One or several values (`clause: "x"` or `clause: [x, y]`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    pub(crate) fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(v) => vec![v],
            OneOrMany::Many(v) => v,
        }
    }
}

/// A case file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CaseFileDoc {
    pub area: String,
    pub api: Api,
    pub cases: Vec<CaseDoc>,
}

/// A case as written: a single request with `expect`, or `steps`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CaseDoc {
    pub id: String,
    pub clause: OneOrMany<String>,
    #[serde(default)]
    pub readings: Vec<String>,
    #[serde(default)]
    pub summary: Option<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    /// `true`: runs alone; a list of states: runs while no other case touches them.
    #[serde(default)]
    pub exclusive: Exclusive,
    /// Setups (`src/cases/setups.yaml`) run before the case's steps.
    #[serde(default)]
    pub setup: Vec<String>,
    /// The fixture whose instance the case uses up (a retry sends a failed message again): the
    /// plan runs the trials that must leave it as it is first (`plan.rs`).
    #[serde(default)]
    pub uses: Option<String>,
    #[serde(default)]
    pub request: Option<Request>,
    #[serde(default)]
    pub expect: Option<Expect>,
    #[serde(default)]
    pub save: Map<String, Value>,
    #[serde(default)]
    pub steps: Option<Vec<StepDoc>>,
    /// The same request without the defect under test, which must be accepted (READINGS 6.9).
    #[serde(default)]
    pub control: Option<Control>,
    /// A listing that must be the same before and after the request (a read that changes nothing).
    #[serde(default)]
    pub unchanged: Option<Watch>,
    /// The read that shows the request's effect.
    #[serde(default)]
    pub read_back: Option<ReadBack>,
    /// How the webhook receiver answers this case's deliveries, in order (then 204).
    #[serde(default)]
    pub receiver: Vec<crate::webhooks::Answer>,
}

/// What an exclusive case needs, as written: the whole workspace to itself (`true`), the
/// workspace-wide states it needs to itself (`[webhook-count]`), or states it needs to itself
/// and states it only changes (`{ needs: [...], changes: [...] }`).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub(crate) enum Exclusive {
    Alone(bool),
    Needs(Vec<State>),
    Holds(ExclusiveHolds),
}

/// The map form of `exclusive`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ExclusiveHolds {
    #[serde(default)]
    pub needs: Vec<State>,
    #[serde(default)]
    pub changes: Vec<State>,
}

impl Default for Exclusive {
    fn default() -> Exclusive {
        Exclusive::Alone(false)
    }
}

impl Exclusive {
    /// Whether the case needs anything to itself.
    pub(crate) fn is_exclusive(&self) -> bool {
        match self {
            Exclusive::Alone(alone) => *alone,
            Exclusive::Needs(_) | Exclusive::Holds(_) => !self.holds().is_empty(),
        }
    }

    /// The states named and how each is held (none for `true`: the whole workspace).
    pub fn holds(&self) -> Vec<(State, Hold)> {
        match self {
            Exclusive::Alone(_) => Vec::new(),
            Exclusive::Needs(states) => states.iter().map(|s| (*s, Hold::Own)).collect(),
            Exclusive::Holds(h) => h
                .needs
                .iter()
                .map(|s| (*s, Hold::Own))
                .chain(h.changes.iter().map(|s| (*s, Hold::Change)))
                .collect(),
        }
    }
}

/// One step of a multi-step case as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct StepDoc {
    /// The clause(s) this step's expectations prove, when narrower than the case's list (each
    /// one of the case's clauses). Default: the case's clauses.
    #[serde(default)]
    pub clause: Option<OneOrMany<String>>,
    #[serde(default)]
    pub request: Option<Request>,
    /// Instead of a request: what the webhook receiver must have got.
    #[serde(default)]
    pub deliveries: Option<DeliveriesExpect>,
    /// Save the webhook signing secret of the answer under this name (READINGS 6.2).
    #[serde(default)]
    pub secret: Option<String>,
    #[serde(default)]
    pub expect: Option<Expect>,
    #[serde(default)]
    pub save: Map<String, Value>,
    #[serde(default)]
    pub repeat: Option<Repeat>,
    #[serde(default)]
    pub for_each: Option<ForEach>,
    /// A state the case needs before it changes anything: see [`Step::precondition`].
    #[serde(default)]
    pub precondition: Option<ForEach>,
    #[serde(default)]
    pub always: bool,
    /// The same request without the defect under test, which must be accepted (READINGS 6.9).
    #[serde(default)]
    pub control: Option<Control>,
    /// A listing that must be the same before and after this step (a read that changes nothing).
    #[serde(default)]
    pub unchanged: Option<Watch>,
    /// The read that shows this step's effect (READINGS 2.3: a 2xx is not proof of a change).
    #[serde(default)]
    pub read_back: Option<ReadBack>,
}

/// A state-changing step's read-back: the resource is read with GET after the step, and the
/// effect the contract states is asserted on what comes back. `same` names fields the contract
/// says the operation leaves as they were: they are read before the step too and must be equal
/// after it. `poll` marks an effect that may show later: the read is repeated until it holds, at
/// most the profile's `effect_seconds`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ReadBack {
    pub path: String,
    #[serde(default)]
    pub query: Map<String, Value>,
    /// JSON Pointer -> matcher, as in `expect.json`: the effect.
    #[serde(default)]
    pub json: Map<String, Value>,
    /// JSON Pointers whose values must be the same before and after the step.
    #[serde(default)]
    pub same: Vec<String>,
    #[serde(default)]
    pub poll: bool,
    /// The clause(s) its findings cite when the effect it reads is another clause's than the
    /// step's (a limit case completes a task on the way: what the read shows is the complete
    /// transition's, not the limit's); each one of the case's clauses. Default: the step's.
    #[serde(default)]
    pub clause: Option<OneOrMany<String>>,
}

impl ReadBack {
    /// The read, as a request.
    pub fn request(&self) -> Request {
        Request::get(&self.path, &self.query)
    }
}

/// A must-reject step's control (READINGS 6.9): what to change in its request to take the defect
/// under test away. The changed request is sent right after it and must be accepted, so the
/// refusal was for that defect and not for something else the target wants of the request.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Control {
    /// Another path (the same route with a valid parameter).
    #[serde(default)]
    pub path: Option<String>,
    /// Query parameters to set; `null` removes one.
    #[serde(default)]
    pub query: Map<String, Value>,
    /// Headers to set; `null` removes one.
    #[serde(default)]
    pub headers: Map<String, Value>,
    /// A JSON merge patch (RFC 7396) of the body: `null` removes a field.
    #[serde(default)]
    pub body: Option<Value>,
    /// `none` or a value of `Service-Api-Version`, as in a request.
    #[serde(default)]
    pub version: Option<String>,
    /// What counts as accepted. Default `2xx`.
    #[serde(default)]
    pub status: Option<StatusExpect>,
}

impl Control {
    /// `request` without the defect.
    pub fn apply(&self, request: &Request) -> Request {
        let mut out = request.clone();
        if let Some(p) = &self.path {
            out.path = p.clone();
        }
        for (k, v) in &self.query {
            if v.is_null() {
                out.query.remove(k);
            } else {
                out.query.insert(k.clone(), v.clone());
            }
        }
        for (k, v) in &self.headers {
            if v.is_null() {
                out.headers.remove(k);
            } else {
                out.headers.insert(k.clone(), v.clone());
            }
        }
        if let Some(patch) = &self.body {
            let mut body = out.body.take().unwrap_or(Value::Object(Map::new()));
            json_patch::merge(&mut body, patch);
            out.body = Some(body);
        }
        if let Some(v) = &self.version {
            out.version = Some(v.clone());
        }
        out
    }

    /// What the control changes, as a finding shows it.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(p) = &self.path {
            parts.push(format!("path {p}"));
        }
        for (k, v) in &self.query {
            parts.push(format!(
                "query {k}={}",
                if v.is_null() {
                    "(removed)".into()
                } else {
                    v.to_string()
                }
            ));
        }
        for (k, v) in &self.headers {
            parts.push(format!(
                "header {k}: {}",
                if v.is_null() {
                    "(removed)".into()
                } else {
                    v.to_string()
                }
            ));
        }
        if let Some(b) = &self.body {
            parts.push(format!("body patched with {b}"));
        }
        if let Some(v) = &self.version {
            parts.push(format!("Service-Api-Version {v}"));
        }
        if parts.is_empty() {
            "the same request".into()
        } else {
            parts.join(", ")
        }
    }
}

/// The side-effect watch of a step: a listing (`GET path` with `query`) whose items, named by
/// the `ids` pointer inside each item of `/data`, must be the same before and after the step.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Watch {
    pub path: String,
    #[serde(default)]
    pub query: Map<String, Value>,
    /// JSON Pointer inside each listed item to what names it. Default `/id`.
    #[serde(default = "default_id_pointer")]
    pub ids: String,
}

fn default_id_pointer() -> String {
    "/id".into()
}

impl Watch {
    /// The listing request.
    pub fn request(&self) -> Request {
        Request::get(&self.path, &self.query)
    }
}

/// A step that is the control of a must-reject step (READINGS 6.9).
#[derive(Debug, Clone)]
pub struct ControlOf {
    /// 0-based index of the must-reject step in the case.
    pub step: usize,
    /// What the control changed (`Control::describe`).
    pub change: String,
}

/// What the webhook receiver must have got since the case's previous `deliveries` step on the
/// same path, waited for within a bound of the profile (READINGS 7.1).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeliveriesExpect {
    /// The segment a case appended to `{{webhook_url}}` ("" for the URL itself).
    #[serde(default)]
    pub path: String,
    /// Exactly this many new deliveries: wait for them, then a quiet period for more.
    #[serde(default)]
    pub count: Option<usize>,
    /// At least this many new deliveries.
    #[serde(default)]
    pub min: Option<usize>,
    /// Which bound of the profile applies: `delivery` (default) or `retry`.
    #[serde(default)]
    pub bound: Bound,
    /// The variable holding the secret every delivery must verify with.
    #[serde(default)]
    pub verify: Option<String>,
    /// The variable holding the secret that `verify`'s replaced (rotation issues a new one): the
    /// two must differ. Whether the replaced one still signs beside the new one for a while is
    /// not stated (Standard Webhooks carries several signatures), so nothing is asserted of it.
    #[serde(default)]
    pub replaces: Option<String>,
    /// Every delivery carries the `webhook-id` of the first (a retry keeps it).
    #[serde(default)]
    pub same_id: bool,
    /// Pointer into each delivery's JSON body -> matcher.
    #[serde(default)]
    pub json: Map<String, Value>,
    /// Only deliveries whose JSON body matches these count: the case's own resource, when other
    /// activity of the workspace fires the same event at a wildcard subscription.
    #[serde(default, rename = "match")]
    pub select: Map<String, Value>,
    /// Name -> `header:NAME` or a pointer into the first delivery's body.
    #[serde(default)]
    pub save: Map<String, Value>,
}

/// The bounds of the profile a wait takes (docs/profile.md).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Bound {
    #[default]
    Delivery,
    Retry,
}

/// Resend a step's request while it answers 2xx, until it answers `until` (a workspace-wide
/// limit reached after an unknown number of creates). The `until` answer is judged by `expect`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Repeat {
    pub until: StatusExpect,
    /// The most 2xx answers accepted before `until`: an integer or one `{{template}}`.
    pub max: Value,
    /// Variable name -> JSON Pointer: the value of every 2xx answer is appended to the list.
    #[serde(default)]
    pub collect: Map<String, Value>,
    /// A variable holding what the workspace already has (a list saved by an earlier step, or a
    /// count): those count toward `max`, and exactly `max` minus their number must be answered
    /// 2xx before `until` (a limit counted from the workspace, not from the run's creations).
    #[serde(default)]
    pub existing: Option<String>,
    /// A variable holding how many more the workspace may hold without showing it (items whose
    /// state is not shown, READINGS 1.3): between `max` less `existing` less these and `max` less
    /// `existing` creations are then accepted.
    #[serde(default)]
    pub maybe: Option<String>,
}

/// Send a step once per item of a list variable (deleting what a `repeat` collected).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ForEach {
    /// The list variable.
    #[serde(rename = "in")]
    pub list: String,
    /// The name each item is bound to.
    #[serde(rename = "as")]
    pub item: String,
    /// Only on a `precondition`: `in` holds the id of a resource the target served, and the
    /// items are ids derived from it (same length and alphabet, characters changed:
    /// `cases::derive`), for a missing resource of a kind whose id shape the contract does not
    /// state. None meeting the step ignores the case with that reason.
    #[serde(default)]
    pub derived: bool,
}

/// A request: method, path template, query, headers, body, credentials and version header.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Request {
    pub method: String,
    pub path: String,
    /// Query parameters; an array value is sent as repeated keys.
    #[serde(default)]
    pub query: Map<String, Value>,
    #[serde(default)]
    pub headers: Map<String, Value>,
    #[serde(default)]
    pub body: Option<Value>,
    /// A body sent as it is, as `application/json`, in place of `body` (templates allowed): a
    /// body that is not JSON, which READINGS 2.4 makes invalid input.
    #[serde(default)]
    pub raw_body: Option<String>,
    /// `none` (no Authorization header), `invalid` (a key the target cannot know), or the name of
    /// a profile fixture that holds another key. Default: the run's API key.
    #[serde(default)]
    pub auth: Option<String>,
    /// `none` (no `Service-Api-Version`) or a value to send. Default: `2026-03-30` on the
    /// header-versioned API, no header on v1.
    #[serde(default)]
    pub version: Option<String>,
}

impl Request {
    /// A GET of `path` with `query`, the key and version of the case (a read the suite adds).
    pub fn get(path: &str, query: &Map<String, Value>) -> Request {
        Request {
            method: "GET".into(),
            path: path.to_string(),
            query: query.clone(),
            headers: Map::new(),
            body: None,
            raw_body: None,
            auth: None,
            version: None,
        }
    }
}

/// Expected status: an exact code, a class such as `4xx`, or a list of those.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum StatusExpect {
    Code(u16),
    Class(String),
    Any(Vec<StatusExpect>),
    /// `{not: 401}`: any status the inner expectation does not allow.
    Not {
        not: Box<StatusExpect>,
    },
}

impl StatusExpect {
    /// Whether `status` satisfies the expectation.
    pub fn allows(&self, status: u16) -> bool {
        match self {
            StatusExpect::Code(c) => *c == status,
            StatusExpect::Class(class) => class
                .chars()
                .next()
                .and_then(|c| c.to_digit(10))
                .is_some_and(|d| u32::from(status / 100) == d),
            StatusExpect::Any(list) => list.iter().any(|s| s.allows(status)),
            StatusExpect::Not { not } => !not.allows(status),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            StatusExpect::Code(c) => c.to_string(),
            StatusExpect::Class(c) => c.clone(),
            StatusExpect::Any(list) => list
                .iter()
                .map(StatusExpect::describe)
                .collect::<Vec<_>>()
                .join(" or "),
            StatusExpect::Not { not } => format!("any status but {}", not.describe()),
        }
    }
}

/// What a response must show. Each field is one check.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default)]
    pub status: Option<StatusExpect>,
    /// A schema of `schemas/openapi.yaml` (components) that `/data` must match.
    #[serde(default)]
    pub schema: Option<String>,
    #[serde(default)]
    pub error: Option<ErrorExpect>,
    /// JSON Pointer into the body -> matcher.
    #[serde(default)]
    pub json: Map<String, Value>,
    /// Header name -> matcher on its value.
    #[serde(default)]
    pub headers: Map<String, Value>,
    #[serde(default)]
    pub page: Option<PageExpect>,
}

/// The error body's code, title and message.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorExpect {
    #[serde(default)]
    pub code: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// A matcher on `message`.
    #[serde(default)]
    pub message: Option<Value>,
}

/// Walk every page of a list answer and check the walk.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageExpect {
    /// Ids the walk must yield.
    #[serde(default)]
    pub includes: Vec<Value>,
    /// Ids the walk must not yield.
    #[serde(default)]
    pub excludes: Vec<Value>,
    /// Exact number of items the walk yields.
    #[serde(default)]
    pub count: Option<usize>,
    /// Pointer (relative to an item) -> matcher that every item must satisfy.
    #[serde(default)]
    pub every: Map<String, Value>,
    /// Pointer of the id within an item (default `/id`).
    #[serde(default)]
    pub id: Option<String>,
    /// Bound on the number of pages followed (default 100).
    #[serde(default)]
    pub max_pages: Option<usize>,
    /// The order the whole walk must keep.
    #[serde(default)]
    pub order: Option<OrderExpect>,
    /// Variable name -> (pointer -> matcher): the number of items of the walk that match every
    /// matcher is saved under the name (what a workspace already holds, for a repeat's limit).
    #[serde(default)]
    pub tally: Map<String, Value>,
}

/// A stated order: the key (a JSON Pointer into an item) and its direction (READINGS 4.5).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderExpect {
    pub by: String,
    pub direction: Direction,
}

/// Ascending ("chronological", "oldest first") or descending ("newest first").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Asc,
    Desc,
}

/// A loaded, normalised case.
#[derive(Debug, Clone)]
pub struct Case {
    /// `{api}.{area}.{id}`: the trial name.
    pub name: String,
    pub api: Api,
    pub area: String,
    pub clauses: Vec<String>,
    pub readings: Vec<String>,
    pub summary: Option<String>,
    pub tags: Vec<String>,
    /// Needs workspace-wide state: the states of `needs`, or when it names none the whole
    /// workspace to itself (a generated property: changes the states its requests touch).
    pub exclusive: bool,
    /// The workspace-wide states an exclusive case names, and how it holds each.
    pub needs: Vec<(State, Hold)>,
    /// Sends only GET requests.
    pub read_only: bool,
    pub steps: Vec<Step>,
    /// Profile fixtures the case needs.
    pub fixtures: BTreeSet<String>,
    pub file: String,
    pub line: usize,
    /// A generated property (boundary inputs, round trip) instead of declarative steps.
    pub property: Option<std::sync::Arc<Property>>,
    /// The webhook receiver's answers to this case's deliveries, in order.
    pub receiver: Vec<crate::webhooks::Answer>,
    /// Uses the webhook receiver (`{{webhook_url}}` or a `deliveries` step).
    pub uses_receiver: bool,
    /// Setups run before the steps; the names they define are the case's (READINGS 6.6: the
    /// resources a request names are ones the target has shown).
    pub setups: Vec<std::sync::Arc<Setup>>,
    /// The fixture whose instance the case (or its control) uses up; planned (`plan.rs`).
    pub uses: Option<Uses>,
}

/// A fixture instance a case uses up: a retry sends a failed message again, after which it may
/// be failed no more. With fewer instances in the profile than trials using one, the plan runs
/// the trials that must leave it as it is first and its one use last (`plan::arrange`).
#[derive(Debug, Clone)]
pub struct Uses {
    /// The profile fixture (one value, or a list of instances).
    pub fixture: String,
    /// The use is the control of the case's must-reject step (a versioning cell's): the plan
    /// may give it up for another trial's use of the same instance, which is then its control.
    pub by_control: bool,
    /// Set by the plan on a case whose control it gave up: the trial whose use is its control.
    /// The case must leave the fixture as it is and runs before that trial.
    pub control_in: Option<String>,
    /// The setups such a case runs in place of its own (none: its own).
    pub spare_setups: Vec<std::sync::Arc<Setup>>,
}

/// Steps that make a resource the target shows, for cases that only need one to exist (an
/// access cell, a control, a missing resource that was created and deleted): run once per run
/// and shared by every case that names it, or once per trial where the case's accepted request
/// uses the resource up (a delete).
#[derive(Debug, Clone)]
pub struct Setup {
    pub name: String,
    /// Run for each trial that names it, not once per run.
    pub per_trial: bool,
    /// Its steps, clauses, fixtures, file and line, as a case.
    pub case: Case,
    /// The names it saves for the cases that name it.
    pub defines: BTreeSet<String>,
    /// The setup run in its place when the profile lacks a fixture (`instead:`).
    pub instead: Option<Instead>,
}

/// A setup run in place of another when the profile lacks a fixture: a missing contact derived
/// from a served id (`missing_contact`) where no activity hook can delete one.
#[derive(Debug, Clone)]
pub struct Instead {
    /// The fixture whose absence calls for the other setup.
    pub without: String,
    pub setup: std::sync::Arc<Setup>,
}

impl Setup {
    /// The profile fixtures a case naming this setup needs: the setup's, or where another runs
    /// in its place without a fixture, what either needs but that fixture.
    pub fn fixtures(&self) -> BTreeSet<String> {
        let mut out = self.case.fixtures.clone();
        if let Some(i) = &self.instead {
            out.remove(&i.without);
            out.extend(i.setup.fixtures());
        }
        out
    }

    /// The setup that runs for a profile with these fixtures.
    pub fn for_profile(
        self: &std::sync::Arc<Setup>,
        has: &dyn Fn(&str) -> bool,
    ) -> std::sync::Arc<Setup> {
        match &self.instead {
            Some(i) if !has(&i.without) => i.setup.for_profile(has),
            _ => self.clone(),
        }
    }
}

/// One request of a case and what its answer must show.
#[derive(Debug, Clone, Default)]
pub struct Step {
    /// The clauses its expectation findings cite (the step's `clause`); empty: the case's.
    pub clauses: Vec<String>,
    /// Absent on a `deliveries` step.
    pub request: Option<Request>,
    pub deliveries: Option<DeliveriesExpect>,
    /// Save the signing secret of the answer under this name.
    pub secret: Option<String>,
    pub expect: Expect,
    /// Variable name -> JSON Pointer into the response body.
    pub save: Vec<(String, String)>,
    pub repeat: Option<Repeat>,
    pub for_each: Option<ForEach>,
    /// A precondition: the step is sent for each item of the fixture `in` (one value or a list),
    /// bound to `as`, until an answer meets its `expect`; that item is kept. When none does (an
    /// earlier run used the fixture up), the case is ignored with the reason, never failed.
    pub precondition: Option<ForEach>,
    /// Runs even after an earlier step failed (cleanup).
    pub always: bool,
    /// This step is the control of an earlier must-reject step (READINGS 6.9).
    pub control_of: Option<ControlOf>,
    /// A listing that must be the same before and after this step (side-effect watch).
    pub unchanged: Option<Watch>,
    /// Repeat this read until its expectations hold, within the profile's `effect_seconds`.
    pub poll: bool,
    /// This step reads back the effect of step N (0-based), or reads the values N must keep.
    pub read_back_of: Option<usize>,
    pub line: usize,
}

impl Step {
    /// The clauses a finding of this step cites when the check has no clause of its own: the
    /// step's, else the case's (the case author's statement of what it proves).
    pub fn cites<'a>(&'a self, case: &'a Case) -> &'a [String] {
        if self.clauses.is_empty() {
            &case.clauses
        } else {
            &self.clauses
        }
    }
}

impl Case {
    /// The method and path (templates unrendered) of every request the case may send: its
    /// steps, their side-effect watches, and a property's setup, example and cleanup. The
    /// contacts of the round-trip property touch no workspace-wide state and are left out.
    pub fn requests(&self) -> Vec<(&str, &str)> {
        let mut out = Vec::new();
        let property = match self.property.as_deref() {
            Some(Property::Limit(limit)) => Some(&limit.example),
            _ => None,
        };
        let setup = property.into_iter().flat_map(|e| e.setup.iter());
        for s in self.steps.iter().chain(setup) {
            if let Some(r) = &s.request {
                out.push((r.method.as_str(), r.path.as_str()));
            }
            if let Some(w) = &s.unchanged {
                out.push(("GET", w.path.as_str()));
            }
        }
        match self.property.as_deref() {
            Some(Property::Sequence { .. }) => out.extend(
                super::situations::REQUESTS
                    .iter()
                    .map(|(m, p)| (m.as_str(), p.as_str())),
            ),
            Some(Property::Relations(_)) => out.extend(RELATION_READS.iter().copied()),
            _ => {}
        }
        if let Some(e) = property {
            out.push((e.request.method.as_str(), e.request.path.as_str()));
            if let Some(c) = &e.cleanup {
                out.push((c.method.as_str(), c.path.as_str()));
            }
        }
        out
    }
}

/// Where a property puts its generated value.
#[derive(Debug, Clone)]
pub enum Target {
    Query(String),
    /// The path parameter at this segment index of the route template.
    Path(usize),
    /// A JSON Pointer into the body.
    Body(String),
}

/// A cleanup request for what an accepted input created: `path` holds `{{id}}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Cleanup {
    pub method: String,
    pub path: String,
    /// Pointer of the created resource's id in the answer.
    pub id: String,
}

/// A valid request of an operation (`x-example`), with the steps that prepare it.
#[derive(Debug, Clone)]
pub struct Example {
    pub setup: Vec<Step>,
    pub request: Request,
    pub cleanup: Option<Cleanup>,
    /// Body pointers whose string gets a fresh suffix for every input, so that inputs never
    /// collide on a value the target may keep unique.
    pub unique: Vec<String>,
    /// When not empty, only these places (body pointers, parameter names) are probed.
    pub only: Vec<String>,
    /// Body pointer -> a list, or a template of one (a profile fixture): the items a count
    /// property draws from, so no generated value reaches the target there (sandbox recipients,
    /// the events of one variant of the webhook events union).
    pub items: std::collections::BTreeMap<String, Value>,
    /// Parameter names or body pointers whose values name workspace resources (phone numbers of
    /// a filter): a count input keeps the example's (profile) value first, and where a bound needs
    /// more distinct resources than the profile gives, a 404 on a route that declares 404 counts
    /// as accepted (READINGS 6.6).
    pub resources: Vec<String>,
}

/// One boundary property: a constraint at one place of one operation's request.
#[derive(Debug, Clone)]
pub struct Limit {
    pub example: Example,
    pub target: Target,
    /// The value is one item of an array parameter (`externalIds` items of 1-75 characters).
    pub wrap_in_array: bool,
    pub constraint: super::constraint::Constraint,
    /// The schema of the probed value (`format`, `x-reserved-names`).
    pub schema: Value,
    pub field: String,
    /// What a valid input must get.
    pub accept: StatusExpect,
    /// What an invalid input must get.
    pub reject: StatusExpect,
    /// What a valid input that names resources the profile does not give (invented) must get:
    /// `accept` or a 404, where the place names resources and the route declares 404.
    pub accept_invented: Option<StatusExpect>,
}

/// A generated trial.
#[derive(Debug, Clone)]
pub enum Property {
    Limit(Box<Limit>),
    /// Random valid contacts read back equal through create, get, list and PATCH.
    ContactRoundTrip,
    /// Sequences generated from the operation table over the run's own resources: trial `index`
    /// of `of` carries its share of the pairs of operation and situation (`cases::situations`).
    Sequence {
        index: usize,
        of: usize,
    },
    /// A relation between answers that must show the same items (`execute::relations`).
    Relations(Relation),
}

/// The lists the relations read (all GETs: they change nothing).
const RELATION_READS: &[(&str, &str)] = &[
    ("GET", "/users"),
    ("GET", "/phone-numbers"),
    ("GET", "/calls"),
    ("GET", "/messages"),
    ("GET", "/conversations"),
    ("GET", "/v1/conversations"),
    ("GET", "/v1/calls"),
    ("GET", "/v1/messages"),
    ("GET", "/users/{userId}/phone-numbers"),
    ("GET", "/phone-numbers/{phoneNumberId}/users"),
];

/// Which relation a relations trial reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    PageSizes,
    Instants,
    Sets,
    Assignments,
    Shown,
}
