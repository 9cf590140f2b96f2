//! The exploration: sequences of requests generated from the operation table (`x-effect`), the
//! request schemas and the situations (`cases::situations`), over the run's own resources. No
//! step is written for one operation: every operation the table describes is put in every
//! situation it yields, the trials of the run sharing the pairs of operation and situation among
//! them, in an order and with values drawn from the run's seed.
//!
//! The model is the one state of what the run created: which resources a sequence holds is a
//! list of ids, and everything else (a task's completion, its assignees, a webhook's events, a
//! resource deleted) is read from the model, which every exchange feeds (`Executor::send`).
//! Every answer is judged by the registry's rules and the model; a request the contract states
//! for the resource's state must be accepted, one that breaks a stated constraint refused, and
//! afterwards every route that shows the resource is read. The model predicts the deliveries
//! of the sequence's changes to its webhooks (`execute::deliveries`). A failure lists the steps
//! of its sequence, each request with its curl; the seed replays it.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use proptest::prelude::RngExt;
use proptest::test_runner::TestRng;
use serde_json::{Value, json};

use super::Executor;
use super::search::runner_for;
use super::values::{self, Class, Presence};
use crate::cases::Case;
use crate::cases::situations::{self, Situation};
use crate::cases::template::Vars;
use crate::client::{Auth, Exchange, NearKey, Outgoing};
use crate::redact::Redactor;
use crate::results::{Failure, Finding};
use conformance_contract::operations::{Does, From, Rule, Set, Shape};
use conformance_contract::{Api, Contract, Route, StatusKey};

/// Pages a list walk of a sequence reads at most.
const MAX_PAGES: usize = 5;
use crate::cases::situations::CAPS;

mod look_alike;

type Found = Vec<(Finding, Arc<Exchange>)>;

/// Runs the sequences of trial `index` of `of`: `depth` rounds of its agenda, each in an order
/// and with values drawn anew, on fresh resources; the failures of the rounds that failed.
pub(super) async fn run(
    exec: &Executor,
    case: &Case,
    vars: &Vars,
    (index, of): (usize, usize),
    depth: u32,
    exchanges: &mut Vec<Arc<Exchange>>,
) -> Vec<Failure> {
    let mut failures = Vec::new();
    for round in 0..depth.max(1) {
        let mut runner = runner_for(exec.seed, &format!("{}#{round}", case.name));
        let rng = runner.rng().clone();
        let mut x = Explorer::new(exec, vars, &case.name, round, rng);
        let lanes: Vec<Explorer> = (1..situations::LANES)
            .map(|lane| {
                let mut runner = runner_for(exec.seed, &format!("{}#{round}/{lane}", case.name));
                let rng = runner.rng().clone();
                Explorer::new(exec, vars, &case.name, round, rng).in_lane(lane)
            })
            .collect();
        let mut pairs = situations::agenda(&exec.contract, index, of);
        if round > 0 {
            shuffle(&mut pairs, &mut x.rng);
        }
        let (steps, found) = x.round(&pairs, lanes).await;
        for s in &steps {
            exchanges.extend(s.1.iter().cloned());
        }
        if !found.is_empty() {
            failures.extend(described(found, &steps, exec.seed, &exec.run_id));
        }
    }
    failures
}

/// The kind whose events the webhooks a sequence makes subscribe to.
const HEARD: &str = "task";

/// The pairs dealt to `lanes` lanes by the kind their operation acts on: every pair of a kind
/// goes to one lane (the kinds with the most pairs first, each to the lane with the fewest so
/// far), so that a lane makes only resources of its own kinds and the round holds no more of a
/// counted kind than one lane does. Each lane keeps the pairs in their order.
fn deal(
    contract: &Contract,
    pairs: &[(usize, Situation)],
    lanes: usize,
) -> Vec<Vec<(usize, Situation)>> {
    let kind = |p: &(usize, Situation)| contract.routes[p.0].effect.on.as_str();
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for p in pairs {
        match kinds.iter_mut().find(|(k, _)| *k == kind(p)) {
            Some((_, n)) => *n += 1,
            None => kinds.push((kind(p), 1)),
        }
    }
    kinds.sort_by_key(|(_, n)| std::cmp::Reverse(*n));
    let mut load = vec![0usize; lanes.max(1)];
    let mut lane_of: BTreeMap<&str, usize> = BTreeMap::new();
    for (k, n) in kinds {
        let lightest = (0..load.len()).min_by_key(|&i| load[i]).unwrap_or(0);
        load[lightest] += n;
        lane_of.insert(k, lightest);
    }
    let mut out = vec![Vec::new(); lanes.max(1)];
    for p in pairs {
        out[lane_of.get(kind(p)).copied().unwrap_or(0)].push(*p);
    }
    out
}

fn shuffle<T>(items: &mut [T], rng: &mut TestRng) {
    for i in (1..items.len()).rev() {
        let j = rng.random_range(0..=i);
        items.swap(i, j);
    }
}

/// The findings of a round, each saying in which steps it came: the steps up to the one that
/// sent its exchange, numbered, each request with its curl, and how to replay them.
fn described(
    found: Found,
    steps: &[(String, Vec<Arc<Exchange>>)],
    seed: u64,
    run: &str,
) -> Vec<Failure> {
    let redactor = Redactor::global();
    found
        .into_iter()
        .map(|(mut finding, ex)| {
            let at = steps
                .iter()
                .position(|(_, exs)| exs.iter().any(|e| e.url == ex.url && e.sent == ex.sent))
                .map_or(steps.len(), |i| i + 1);
            let mut listing = String::new();
            for (n, (what, exs)) in steps.iter().take(at).enumerate() {
                listing.push_str(&format!("\n  {}. {what}", n + 1));
                for e in exs.iter().take(8) {
                    listing.push_str(&format!("\n       {}", e.curl(&redactor)));
                }
            }
            finding.context = Some(format!(
                "in a sequence generated from the operation table, step {at} of {} (replay: --seed {seed} --run-id {run}):{listing}",
                crate::results::plural(steps.len(), "step")
            ));
            let n = steps.len().max(1);
            Failure {
                finding,
                step: n,
                steps: n,
                exchange: Some(ex),
                cause: None,
            }
        })
        .collect()
}

/// What a request must get.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Want {
    /// A success: the contract states the request for the resource's state.
    Success,
    /// A success, or 400 for a value a target may refuse (an instant at another offset).
    SuccessOr400,
    /// A success or a refusal: the contract does not state the request in this state.
    Either,
    /// A success or a refusal: a value in the request is not one the contract states a target
    /// accepts, nor one the target showed (READINGS 6.12); accepted, its effects are judged.
    Open(String),
    /// A refusal: 400 where the operation declares it, else a 4xx; the clause of what it breaks.
    Refusal(Option<u16>, String, Option<String>),
    /// 401: no key, or a key the target never issued.
    Unauthorized,
    /// A refusal (403, or 404 that hides the resource): a key of another workspace.
    Foreign,
    /// Any answer but 401 (the second key of the workspace).
    NotUnauthorized,
    /// An id like a resource's: a refusal other than 401, or a success about another resource
    /// (`reached`: a success that shows the resource's id).
    LookAlike { reached: bool, why: String },
}

/// A sequence's resources and the fixtures it works with.
struct Explorer<'a> {
    exec: &'a Executor,
    trial: String,
    /// A short tag of the round for what it names (external ids, labels).
    tag: String,
    /// The start of the round's receiver sub-paths.
    prefix: String,
    fixtures: Vars,
    users: Vec<String>,
    /// The ids of what the round created, by kind, in order.
    created: BTreeMap<String, Vec<String>>,
    /// Creates sent, by kind (what the round may hold).
    sent: BTreeMap<String, usize>,
    watchers: Vec<String>,
    rng: TestRng,
    steps: Vec<(String, Vec<Arc<Exchange>>)>,
    found: Found,
    /// The step being sent.
    now: (Vec<Arc<Exchange>>, Found),
    /// The webhook URLs drawn so far (each names a receiver sub-path of its own).
    urls: usize,
    /// Lists that did not yet show a resource of the run's own whose listing may come late
    /// (x-resources `listed-late`): walked again before the round ends.
    late: Vec<Late>,
}

/// A list that did not show the run's `id` of `kind`, though its filters admit it, where the
/// listing may come late: `out` is walked again, within the profile's `effect_seconds`.
struct Late {
    out: Outgoing,
    kind: String,
    id: String,
    clause: String,
}

impl<'a> Explorer<'a> {
    fn new(exec: &'a Executor, vars: &Vars, trial: &str, round: u32, rng: TestRng) -> Explorer<'a> {
        let short = trial.rsplit('.').next().unwrap_or("");
        Explorer {
            exec,
            trial: trial.to_string(),
            tag: format!("{}-sq{short}-{round}", exec.run_id),
            prefix: format!("r{round}"),
            fixtures: vars.clone(),
            users: Vec::new(),
            created: BTreeMap::new(),
            sent: BTreeMap::new(),
            watchers: Vec::new(),
            rng,
            steps: Vec::new(),
            found: Vec::new(),
            now: Default::default(),
            urls: 0,
            late: Vec::new(),
        }
    }

    /// This explorer as lane `lane` of its round: its own tag and receiver sub-paths, so that
    /// what it names and the webhooks it makes are its own.
    fn in_lane(mut self, lane: usize) -> Explorer<'a> {
        self.tag = format!("{}l{lane}", self.tag);
        self.prefix = format!("{}l{lane}", self.prefix);
        self
    }

    /// Takes what a lane of the round made, sent, saw and found, after this explorer's own.
    fn merge(&mut self, lane: Explorer<'_>) {
        for (kind, ids) in lane.created {
            self.created.entry(kind).or_default().extend(ids);
        }
        for (kind, n) in lane.sent {
            *self.sent.entry(kind).or_default() += n;
        }
        self.steps.extend(lane.steps);
        self.found.extend(lane.found);
        self.late.extend(lane.late);
    }

    fn text(&self, name: &str) -> Option<String> {
        self.fixtures
            .get(name)
            .and_then(Value::as_str)
            .map(str::to_string)
    }

    /// Closes the step being sent under `what`.
    fn close(&mut self, what: String) {
        let (exs, found) = std::mem::take(&mut self.now);
        if !exs.is_empty() {
            self.steps.push((what, exs));
        }
        self.found.extend(found);
    }

    /// One round: the watchers, the agenda (its pairs dealt to the lanes, which play them side
    /// by side on resources of their own), the closing changes, the deliveries and the
    /// tidying. The steps with their exchanges, and what they showed wrong (the model's and the
    /// rules' findings at the end included).
    async fn round(
        &mut self,
        pairs: &[(usize, Situation)],
        mut lanes: Vec<Explorer<'_>>,
    ) -> (Vec<(String, Vec<Arc<Exchange>>)>, Found) {
        let ((), late) = crate::checks::rules::collect(async {
            self.watch().await;
            for lane in &mut lanes {
                lane.users = self.users.clone();
                lane.watchers = self.watchers.clone();
            }
            let mut dealt = deal(&self.exec.contract, pairs, lanes.len() + 1).into_iter();
            let own = dealt.next().unwrap_or_default();
            let others: Vec<Vec<(usize, Situation)>> = dealt.collect();
            futures_util::future::join(
                self.play(&own),
                futures_util::future::join_all(
                    lanes.iter_mut().zip(&others).map(|(lane, p)| lane.play(p)),
                ),
            )
            .await;
            for lane in lanes {
                self.merge(lane);
            }
            self.closing().await;
            self.relist().await;
            self.deliveries().await;
            self.tidy().await;
        })
        .await;
        self.found.extend(late);
        (
            std::mem::take(&mut self.steps),
            std::mem::take(&mut self.found),
        )
    }

    /// Puts each operation in its situation, in turn, each a step of its own.
    async fn play(&mut self, pairs: &[(usize, Situation)]) {
        let exec = self.exec;
        for &(route, situation) in pairs {
            let route = &exec.contract.routes[route];
            let op = route.operation_id.clone().unwrap_or_default();
            let what = format!(
                "{} of {} {}",
                situation.name(),
                route.method,
                route.template
            );
            match self.exercise(route, situation).await {
                Ok(()) => self.exec.situations.done(&op, situation, &self.trial),
                Err(why) => self.exec.situations.skipped(&op, situation, &why.0),
            }
            self.close(what);
        }
    }

    /// What `out` must get: `want`, except that a success is required only of a request whose
    /// every value the contract states as accepted or the target showed (READINGS 6.12), the
    /// one place every generated request's success is decided.
    fn stated(&self, out: &Outgoing, want: Want) -> Want {
        match want {
            Want::Success | Want::SuccessOr400 => match self.exec.unstated(out) {
                Some(why) => Want::Open(why),
                None => {
                    self.exec.held_to_success(out);
                    want
                }
            },
            _ => want,
        }
    }

    /// Sends `out` and holds its answer to `want` (the rules' findings on it join the step's).
    async fn send(&mut self, out: &Outgoing, want: Want, clause: &str) -> Arc<Exchange> {
        let want = self.stated(out, want);
        let (ex, by_rules) = self.exec.send(out).await.into_parts();
        self.judge(&ex, by_rules, &want, clause);
        ex
    }

    /// Sends requests that do not depend on one another together, each held to `want`.
    async fn send_all(
        &mut self,
        outs: &[Outgoing],
        want: Want,
        clause: &str,
    ) -> Vec<Arc<Exchange>> {
        let exec = self.exec;
        let wants: Vec<Want> = outs.iter().map(|o| self.stated(o, want.clone())).collect();
        let sent = futures_util::future::join_all(outs.iter().map(|o| exec.send(o))).await;
        sent.into_iter()
            .zip(&wants)
            .map(|(j, want)| {
                let (ex, by_rules) = j.into_parts();
                self.judge(&ex, by_rules, want, clause);
                ex
            })
            .collect()
    }

    /// Sends requests that do not depend on one another together, each held to its own want.
    async fn send_each(&mut self, outs: &[(Outgoing, Want)], clause: &str) -> Vec<Arc<Exchange>> {
        let exec = self.exec;
        let wants: Vec<Want> = outs
            .iter()
            .map(|(o, w)| self.stated(o, w.clone()))
            .collect();
        let sent = futures_util::future::join_all(outs.iter().map(|(o, _)| exec.send(o))).await;
        sent.into_iter()
            .zip(&wants)
            .map(|(j, want)| {
                let (ex, by_rules) = j.into_parts();
                self.judge(&ex, by_rules, want, clause);
                ex
            })
            .collect()
    }

    fn judge(&mut self, ex: &Arc<Exchange>, by_rules: Vec<Finding>, want: &Want, clause: &str) {
        // The step keeps the exchange as the reports record it (its body's head, not the body
        // and its parsed value): a round holds a hundred exchanges or more until it ends.
        let ex = &Arc::new(ex.recorded());
        self.now
            .1
            .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
        self.now.0.push(ex.clone());
        let Ok(resp) = &ex.outcome else {
            return;
        };
        let s = resp.status;
        let ok = (200..300).contains(&s);
        let refused = (400..500).contains(&s);
        let (fine, expected, class, clause) = match want {
            Want::Success => (ok, "a success (2xx): the request is one the contract states for the resource's state".to_string(), "2xx", clause),
            Want::SuccessOr400 => (ok || s == 400, "a success (2xx), or 400 for a value a target may refuse (a field whose required-ness is not shown left out, a timestamp not in UTC, a century away)".to_string(), "2xx or 400", clause),
            Want::Either => (ok || refused, "a success or a refusal (2xx or 4xx): the contract does not state the request in this state".to_string(), "2xx or 4xx", clause),
            Want::Open(why) => (ok || refused, format!("a success or a refusal (2xx or 4xx): {why}, so the contract does not state that a target accepts it (READINGS 6.12)"), "2xx or 4xx", clause),
            Want::Refusal(Some(code), why, own) => (s == *code, format!("{code}: the request breaks a stated constraint ({why})"), "4xx", own.as_deref().unwrap_or(clause)),
            Want::Refusal(None, why, own) => (refused, format!("a refusal (4xx): the request breaks a stated constraint ({why})"), "4xx", own.as_deref().unwrap_or(clause)),
            Want::Unauthorized => (s == 401, "401: the request carries no valid key".to_string(), "4xx", "Authentication > 3"),
            Want::Foreign => (refused, "a refusal (403, or 404): a key of another workspace has no access to a resource the run's key created".to_string(), "4xx", "Authentication > 3"),
            Want::NotUnauthorized => (s != 401, "any answer but 401: the second key of the workspace is valid".to_string(), "not 401", "Authentication > 3"),
            Want::LookAlike { reached, why } => ((ok && !reached) || (refused && s != 401), why.clone(), "4xx or another resource", clause),
        };
        if !fine {
            self.now.1.push((
                Finding::new(clause, "status", expected, s.to_string()).status_class(class),
                ex.clone(),
            ));
        }
    }
}

/// The events the operations on `kind` fire, as the table says: what a watcher subscribes to.
fn events_of(contract: &Contract, kind: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in contract.routes.iter().filter(|r| r.effect.on == kind) {
        for f in &r.effect.fires {
            if !out.contains(&f.event) {
                out.push(f.event.clone());
            }
        }
    }
    out
}

/// A list request to send: its query, the pointer of the items' field it filters on, and what
/// its answer must be.
type Ask = (Vec<(String, String)>, Option<String>, Want);

impl Explorer<'_> {
    /// The round's watchers: two webhooks on every task event of every number, so that the model
    /// has deliveries to predict whatever the steps are (the second is deleted before the
    /// closing changes, whose events it must then not receive), and one on the events of each
    /// other kind whose changes fire some; and the users the steps may assign, read beside them.
    async fn watch(&mut self) {
        let users = request("GET", "/users", &[("maxResults", "50".into())], None);
        let mut outs = vec![users];
        if let Some(url) = self.text("webhook_url") {
            // One webhook per kind whose changes fire events (a webhook's events are of one
            // variant of the union), two on the tasks'.
            for (n, kind) in situations::watched(&self.exec.contract).iter().enumerate() {
                let body = json!({
                    "url": format!("{url}/{}watch{n}", self.prefix),
                    "events": events_of(&self.exec.contract, kind),
                    "resourceIds": ["*"],
                    "label": format!("{} sequence watcher {n}", self.exec.run_id),
                });
                outs.push(request("POST", "/webhooks", &[], Some(body)));
            }
        }
        let sent = self
            .send_all(
                &outs,
                Want::Success,
                "Header-versioned API > POST /webhooks",
            )
            .await;
        if let Some(body) = sent.first().and_then(|ex| json_of(ex)) {
            self.users = body
                .get("data")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|u| u.get("id").and_then(Value::as_str).map(str::to_string))
                .collect();
        }
        if self.users.is_empty() {
            self.users.extend(self.text("user_id"));
        }
        self.watchers = sent
            .iter()
            .skip(1)
            .filter_map(|ex| created_id(ex, "/id"))
            .collect();
        self.close("read the users; create two webhooks on every task event of every number (\"*\") and one on the events of each other kind, to watch the deliveries".into());
    }

    /// The live resources of `kind` the round created, as the model knows them.
    fn live(&self, kind: &str) -> Vec<String> {
        self.created
            .get(kind)
            .into_iter()
            .flatten()
            .filter(|id| {
                self.exec
                    .model
                    .view(kind, id)
                    .is_some_and(|v| !v.now.deleted && !v.now.unknown)
            })
            .cloned()
            .collect()
    }

    /// The closing changes: every user still assigned to a live task is unassigned, each read
    /// back; the second watcher is deleted, then the live tasks, whose events must reach the
    /// first watcher and not the deleted one.
    async fn closing(&mut self) {
        let tasks = self.live("task");
        let mut unassign = Vec::new();
        for id in &tasks {
            if let Some(v) = self.exec.model.view("task", id) {
                for user in v.added.difference(&v.removed) {
                    unassign.push(request(
                        "POST",
                        &format!("/v1/tasks/{id}/unassign"),
                        &[],
                        Some(json!({"userId": user})),
                    ));
                }
            }
        }
        if !unassign.is_empty() {
            self.send_all(
                &unassign,
                Want::Success,
                "v1 API: tasks > POST /v1/tasks/{taskId}/unassign",
            )
            .await;
            let reads: Vec<Outgoing> = tasks
                .iter()
                .map(|id| request("GET", &format!("/v1/tasks/{id}"), &[], None))
                .collect();
            self.send_all(
                &reads,
                Want::Either,
                "v1 API: tasks > GET /v1/tasks/{taskId}",
            )
            .await;
            self.close("unassign every user the sequence assigned and left assigned".into());
        }
        if let Some(w) = self.watchers.get(1).cloned() {
            self.send(
                &request("DELETE", &format!("/webhooks/{w}"), &[], None),
                Want::Success,
                "Header-versioned API > webhook management",
            )
            .await;
        }
        let deletes: Vec<Outgoing> = tasks
            .iter()
            .map(|id| request("DELETE", &format!("/v1/tasks/{id}"), &[], None))
            .collect();
        self.send_all(
            &deletes,
            Want::Success,
            "States and transitions > Task > delete",
        )
        .await;
        self.close("delete the second watcher, then the tasks the sequence left".into());
    }

    /// Judges the deliveries of the round's webhooks, as the model predicts them
    /// (`execute::deliveries`), and the records of their history.
    async fn deliveries(&mut self) {
        let (Some(receiver), Some(base)) = (&self.exec.receiver, self.text("webhook_url")) else {
            return;
        };
        let webhooks: Vec<String> = self
            .watchers
            .iter()
            .chain(self.created.get("webhook").into_iter().flatten())
            .cloned()
            .collect();
        let resources: BTreeSet<(String, String)> = self
            .created
            .iter()
            .flat_map(|(k, ids)| ids.iter().map(move |id| (k.clone(), id.clone())))
            .collect();
        let predicted = super::deliveries::predict(&self.exec.model, &base, &webhooks, &resources);
        if predicted.is_empty() {
            return;
        }
        let found = predicted
            .judge(
                receiver,
                &self.exec.run_id,
                &self.trial,
                self.exec.bounds().delivery,
            )
            .await;
        self.now.1.extend(found);
        let histories = predicted.received(receiver, &self.exec.run_id, &self.trial);
        let reads: Vec<Outgoing> = histories
            .iter()
            .map(|h| request("GET", &format!("/webhooks/{}/events", h.webhook), &[], None))
            .collect();
        let exs = self
            .send_all(
                &reads,
                Want::Success,
                "Header-versioned API > webhook delivery history",
            )
            .await;
        for (history, ex) in histories.iter().zip(exs) {
            if let Some(body) = json_of(&ex).filter(|_| ok(&ex)) {
                let found = super::deliveries::judge_records(body, history);
                self.now
                    .1
                    .extend(found.into_iter().map(|f| (f, ex.clone())));
            }
        }
        self.close("read the delivery history of the webhooks".into());
    }

    /// The webhooks the round made and did not delete go now: the counted states (open tasks,
    /// webhooks) are back where they were for the trials that follow.
    async fn tidy(&mut self) {
        // All but the second watcher, deleted before the closing changes.
        let mut hooks: Vec<String> = self
            .watchers
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != 1)
            .map(|(_, w)| w.clone())
            .collect();
        hooks.extend(self.live("webhook"));
        let outs: Vec<Outgoing> = hooks
            .iter()
            .map(|id| request("DELETE", &format!("/webhooks/{id}"), &[], None))
            .collect();
        self.send_all(
            &outs,
            Want::Either,
            "Header-versioned API > webhook management",
        )
        .await;
        self.close("delete the webhooks the sequence made".into());
    }
}

fn ok(ex: &Exchange) -> bool {
    ex.outcome
        .as_ref()
        .is_ok_and(|r| (200..300).contains(&r.status))
}

fn json_of(ex: &Exchange) -> Option<&Value> {
    ex.outcome.as_ref().ok()?.value()
}

/// The id an accepted create answered (`data` at `pointer`), if it did.
fn created_id(ex: &Exchange, pointer: &str) -> Option<String> {
    if !ok(ex) {
        return None;
    }
    match json_of(ex)?.get("data")?.pointer(pointer)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A request of the run's own key, with the headers of its generation.
pub(super) fn request(
    method: &str,
    path: &str,
    query: &[(&str, String)],
    body: Option<Value>,
) -> Outgoing {
    let mut headers = Api::of_path(path).headers();
    // As a browser's or a JavaScript client's requests carry it: JSON first among the types
    // the caller takes. The cases send no Accept at all; a target serves JSON to both.
    headers.push(("Accept".to_string(), CLIENT_ACCEPT.to_string()));
    Outgoing {
        method: method.into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        headers,
        body,
        raw_body: None,
        auth: Auth::Primary,
    }
}

/// The Accept header of the generated exploration's requests.
pub(super) const CLIENT_ACCEPT: &str = "application/json, text/plain, */*";

/// Most creates of each kind one round sends (contacts have no delete, and messages are real
/// sends to the profile's sandbox numbers).
const MOST_CREATES: &[(&str, usize)] =
    &[("task", 8), ("contact", 4), ("message", 3), ("webhook", 4)];

fn cap(table: &[(&str, usize)], kind: &str) -> usize {
    table
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(0, |(_, n)| *n)
}

/// The schema a request body field has: the operation's request schema at `pointer`, else (where
/// the contract shows no body, a webhook's update) the create's of the same kind.
fn field_schema(contract: &Contract, route: &Route, pointer: &str) -> Option<Value> {
    let at = |schema: &Value| -> Option<Value> {
        let mut s = schema.clone();
        for part in pointer.trim_start_matches('/').split('/') {
            s = s.get("properties")?.get(part)?.clone();
        }
        Some(s)
    };
    route.request_schema.as_ref().and_then(at).or_else(|| {
        contract
            .routes
            .iter()
            .filter(|r| r.effect.on == route.effect.on && r.effect.does == Does::Create)
            .find_map(|r| r.request_schema.as_ref().and_then(at))
    })
}

/// Whether the body field at `pointer` is one the request must carry: required by its schema,
/// or named by the operation's purpose (READINGS 6.3), or without which the effect is unknown.
fn required(route: &Route, pointer: &str) -> bool {
    presence(route, pointer) == Presence::Required
}

/// Whether the body field `pointer` of `route` may be left out: required by the schema, the
/// purpose or the table; stated optional where the table states that a change leaving it out
/// keeps it; else not shown (READINGS 6.3: a target may require it).
fn presence(route: &Route, pointer: &str) -> Presence {
    let mut parts: Vec<&str> = pointer.trim_start_matches('/').split('/').collect();
    let last = parts.pop().unwrap_or("");
    let in_schema = route.request_schema.as_ref().and_then(|s| {
        let mut node = s.clone();
        for p in &parts {
            node = node.get("properties").and_then(|x| x.get(*p))?.clone();
        }
        node.get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().any(|v| v.as_str() == Some(last)))
    }) == Some(true);
    let kept = route.effect.does == Does::Change
        && route.effect.fields.iter().any(|f| {
            f.absent == conformance_contract::operations::Absent::Keep
                && matches!(&f.set, Set::From(p) if p == pointer)
        });
    let purpose = route
        .purpose
        .as_ref()
        .and_then(|p| p.get("body"))
        .and_then(Value::as_array)
        .is_some_and(|b| b.iter().any(|v| v.as_str() == Some(pointer)));
    let effect = route.effect.fields.iter().any(|f| {
        f.required && matches!(&f.set, Set::From(p) | Set::Add(p) | Set::Remove(p) if p == pointer)
    });
    if in_schema || purpose || effect {
        Presence::Required
    } else if kept {
        Presence::Optional
    } else {
        Presence::NotShown
    }
}

/// Sets `value` at `pointer` of `body`, making the objects on the way (`None`: removes it).
fn put(body: &mut Value, pointer: &str, value: Option<Value>) {
    let parts: Vec<String> = pointer
        .trim_start_matches('/')
        .split('/')
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect();
    let Some((last, path)) = parts.split_last() else {
        return;
    };
    let mut node = body;
    for p in path {
        node = match node {
            Value::Array(items) => match p.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                Some(item) => item,
                None => return,
            },
            other => {
                if !other.is_object() {
                    *other = json!({});
                }
                let Value::Object(m) = other else { return };
                m.entry(p.clone()).or_insert_with(|| json!({}))
            }
        };
    }
    match (node, value) {
        (Value::Array(items), value) => {
            let Ok(i) = last.parse::<usize>() else { return };
            match value {
                Some(v) if i < items.len() => items[i] = v,
                Some(v) if i == items.len() => items.push(v),
                None if i < items.len() => {
                    items.remove(i);
                }
                _ => {}
            }
        }
        (Value::Object(m), Some(v)) => {
            m.insert(last.clone(), v);
        }
        (Value::Object(m), None) => {
            m.remove(last.as_str());
        }
        _ => {}
    }
}

impl Explorer<'_> {
    /// The body of a valid request of `route`: its example's or its access cell's, rendered with
    /// the fixtures and the round's receiver, what it names tagged with the round (distinct
    /// between creates), a webhook's URL at the round's receiver, and a default of the contract
    /// (a webhook's `status`) left to the target.
    fn body(&mut self, route: &Route) -> Result<Option<Value>, Skip> {
        let source = route
            .example
            .as_ref()
            .and_then(|e| e.pointer("/request/body"))
            .or_else(|| route.access.as_ref().and_then(|a| a.get("body")));
        let Some(source) = source else {
            return Ok(route.request_schema.as_ref().map(|_| json!({})));
        };
        let mut vars = self.fixtures.clone();
        vars.set("run", json!(self.tag));
        let mut body = vars
            .render_value(source)
            .map_err(|m| format!("its request needs {m}, which the profile does not give"))?;
        let kind = route.effect.on.clone();
        let n = self.sent.get(&kind).copied().unwrap_or(0);
        retag(
            &mut body,
            &self.tag,
            &format!("{}{n}", &kind[..1].to_uppercase()),
        );
        if let (Some(url), Some(_)) = (self.text("webhook_url"), body.get("url")) {
            put(
                &mut body,
                "/url",
                Some(json!(format!("{url}/{}w{n}", self.prefix))),
            );
            let events = events_of(&self.exec.contract, HEARD);
            let take = self.rng.random_range(1..=events.len().max(1));
            put(
                &mut body,
                "/events",
                Some(json!(events[..take.min(events.len())].to_vec())),
            );
            // A number of the workspace, not the wildcard the watchers use: a change that puts
            // a field back to a value the target may default to then shows.
            let ids = match self.text("phone_number_id") {
                Some(id) => json!([id]),
                None => json!(["*"]),
            };
            put(&mut body, "/resourceIds", Some(ids));
            put(&mut body, "/status", None);
        }
        Ok(Some(body))
    }

    /// The path of `route` naming the resource `id` (its `id` parameter; `of` for a list of a
    /// resource's parts).
    fn path(route: &Route, id: Option<&str>) -> String {
        let mut path = route.template.clone();
        for name in route.effect.id.iter().chain(route.effect.of.iter()) {
            if let Some(id) = id {
                path = path.replace(&format!("{{{name}}}"), id);
            }
        }
        path
    }

    /// A live resource of `kind` the round created, or a new one.
    async fn ensure(&mut self, kind: &str) -> Result<String, Skip> {
        if let Some(id) = self.live(kind).last() {
            return Ok(id.clone());
        }
        let create = self
            .exec
            .contract
            .routes
            .iter()
            .find(|r| r.effect.on == kind && r.effect.does == Does::Create)
            .ok_or_else(|| format!("no operation creates a {kind}"))?;
        self.create(create, None).await?;
        self.live(kind)
            .last()
            .cloned()
            .ok_or_else(|| format!("the create of a {kind} was not accepted").into())
    }

    /// Sends a create of `route` with `body` (its valid body when `None`), held to `want`; the
    /// created resource is read back. Its id, when the target made one.
    async fn create_with(
        &mut self,
        route: &Route,
        body: Option<Value>,
        want: Want,
    ) -> Result<Option<String>, Skip> {
        self.create_read(route, body, want, true).await
    }

    /// As `create_with`; `read`: whether the created resource is read back at once (a create
    /// whose resource a later step reads may leave it).
    async fn create_read(
        &mut self,
        route: &Route,
        body: Option<Value>,
        want: Want,
        read: bool,
    ) -> Result<Option<String>, Skip> {
        if route.sends && self.cannot_send().await {
            return Err(NO_SENDS.into());
        }
        let kind = route.effect.on.clone();
        let made = self.sent.get(&kind).copied().unwrap_or(0);
        if made >= cap(MOST_CREATES, &kind) {
            return Err(
                format!("the sequence made the {made} {kind}s of its share already").into(),
            );
        }
        if self.live(&kind).len() >= cap(CAPS, &kind) {
            // Within what the plan counts it holding: the oldest goes first.
            if let Some(old) = self.live(&kind).first().cloned() {
                self.delete(&kind, &old).await;
            }
        }
        let body = match body {
            Some(b) => Some(b),
            None => self.body(route)?,
        };
        self.sent.insert(kind.clone(), made + 1);
        let out = Outgoing {
            body,
            ..request(&route.method, &route.template, &[], None)
        };
        let ex = self.send(&out, want, &route.clause).await;
        let resource = self.exec.contract.resources.get(&kind);
        let id = resource.and_then(|r| {
            json_of(&ex)
                .and_then(|b| b.get("data"))
                .and_then(|d| r.id_of(d))
        });
        if let (Some(id), true) = (&id, ok(&ex)) {
            // A create makes a new resource: an answer showing one the round made before is an
            // upsert or a cache (Endpoints: the create's purpose).
            if self.created.get(&kind).is_some_and(|ids| ids.contains(id)) {
                self.now.1.push((
                    Finding::new(
                        &route.clause,
                        "new resource",
                        format!("a {kind} the round has not seen: a create makes a new resource"),
                        format!("{id}, the {kind} an earlier create of the round made"),
                    )
                    .at("/data"),
                    ex.clone(),
                ));
            }
            self.created
                .entry(kind.clone())
                .or_default()
                .push(id.clone());
            if read {
                self.read_back(&kind, id, false).await;
            }
        }
        Ok(id.filter(|_| ok(&ex)))
    }

    async fn create(&mut self, route: &Route, body: Option<Value>) -> Result<Option<String>, Skip> {
        self.create_with(route, body, Want::Success).await
    }

    /// Deletes the round's `id` of `kind` where an operation does, and reads it back.
    async fn delete(&mut self, kind: &str, id: &str) {
        let Some(route) = self
            .exec
            .contract
            .routes
            .iter()
            .find(|r| r.effect.on == kind && r.effect.does == Does::Delete)
        else {
            return;
        };
        let out = request(&route.method, &Self::path(route, Some(id)), &[], None);
        self.send(&out, Want::Success, &route.clause).await;
    }

    /// What the change `route` with `body` must get from the resource `id` in its state now:
    /// a success where the table's from-state holds, else either.
    fn want(&self, route: &Route, id: &str, body: Option<&Value>) -> Want {
        let body = body.cloned().unwrap_or(Value::Null);
        match self.exec.model.stated(route, &route.effect.on, id, &body) {
            Some(true) if self.exec.model.no_op(route, &route.effect.on, id, &body) => {
                Want::Open("a no-op change: every field it sets holds that value already".into())
            }
            Some(true) => Want::Success,
            _ => Want::Either,
        }
    }

    /// Sends the change `route` to `id` with `body`, held to what the state asks, then reads the
    /// resource back.
    async fn change(
        &mut self,
        route: &Route,
        id: &str,
        body: Option<Value>,
        want: Option<Want>,
        lists: bool,
    ) -> Arc<Exchange> {
        let want = want.unwrap_or_else(|| self.want(route, id, body.as_ref()));
        let out = Outgoing {
            body,
            ..request(&route.method, &Self::path(route, Some(id)), &[], None)
        };
        let ex = self.send(&out, want, &route.clause).await;
        self.read_back(&route.effect.on, id, lists).await;
        ex
    }
}

/// Gives every string of `body` that carries the run's tag a suffix of its own, so that what a
/// round creates is distinct from what it created before (an external id).
fn retag(body: &mut Value, tag: &str, suffix: &str) {
    match body {
        Value::String(s) if s.starts_with(tag) && !s.contains(' ') => {
            s.push('-');
            s.push_str(suffix);
        }
        Value::Array(items) => items.iter_mut().for_each(|v| retag(v, tag, suffix)),
        Value::Object(m) => m.values_mut().for_each(|v| retag(v, tag, suffix)),
        _ => {}
    }
}

/// Whether `body` holds another of the alternatives `pointer` is one of (`x-purpose`: a task
/// linked to a phone number, a conversation or an activity).
fn other_alternative(route: &Route, body: &Value, pointer: &str) -> bool {
    situations::body_shapes(route).iter().any(|group| {
        group.iter().any(|p| p == pointer)
            && group
                .iter()
                .any(|p| p != pointer && body.pointer(p).is_some())
    })
}

/// The profile fixtures that give a value of a request field naming a resource, by the field's
/// name: what an input that must be accepted may name (READINGS 6.6).
const NAMED: &[(&str, &[&str])] = &[
    ("phoneNumberId", &["phone_number_id"]),
    (
        "conversationId",
        &["task_conversation_id", "conversation_id"],
    ),
    ("activityId", &["call_id"]),
    ("userId", &["user_id"]),
];

/// The sets a set filter is sent with, each holding the item's value `v`: first, then last
/// beside `second` (a set is read whole, not its first or last value alone), and, for free text
/// (`free`: the parameter's schema), last of a long set (eleven values no item has before it, or
/// as many as the parameter takes): a store that takes a set of ten at most, or a cut that
/// drops the rest, loses it.
fn set_orders(
    v: &str,
    second: Option<String>,
    free: Option<&Value>,
    tag: &str,
) -> Vec<Vec<String>> {
    let mut orders = match second {
        Some(w) => vec![vec![v.to_string(), w.clone()], vec![w, v.to_string()]],
        None => vec![vec![v.to_string()]],
    };
    if let Some(schema) = free {
        let most = schema
            .get("maxItems")
            .and_then(Value::as_u64)
            .map_or(12, |m| m.min(12)) as usize;
        let mut long: Vec<String> = (1..most).map(|k| format!("{tag}-none{k}")).collect();
        long.push(v.to_string());
        if long.len() > 2 {
            orders.push(long);
        }
    }
    orders
}

/// The last name of a pointer.
fn leaf(pointer: &str) -> &str {
    pointer.rsplit('/').next().unwrap_or(pointer)
}

/// A string of a value: a string itself, a number or bool written out.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The same text with the letter case of each letter swapped, where that changes only its case.
fn swapped(text: &str) -> String {
    // A letter whose other case is one letter that turns back into it: `ß` (upper case `SS`)
    // and the like stay as they are, so that the text differs from `text` in case only.
    text.chars()
        .map(|c| match other_case(c) {
            Some(o) if other_case(o) == Some(c) => o,
            _ => c,
        })
        .collect()
}

/// The other case of `c`, where it is one letter.
fn other_case(c: char) -> Option<char> {
    let mut other: Vec<char> = if c.is_lowercase() {
        c.to_uppercase().collect()
    } else {
        c.to_lowercase().collect()
    };
    match (other.pop(), other.is_empty()) {
        (Some(o), true) => Some(o),
        _ => None,
    }
}

/// The page size a list is walked with: the stated maximum of `maxResults`, at most 50 (READINGS
/// 4.4), or `small` where the walk should take several pages.
fn page_size(route: &Route, small: bool) -> Option<String> {
    let schema = &route.query_param("maxResults")?.schema;
    let max = schema
        .get("maximum")
        .and_then(Value::as_u64)
        .unwrap_or(50)
        .min(50);
    let min = schema
        .get("minimum")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1);
    Some(if small { min.max(1).min(max) } else { max }.to_string())
}

/// Whether the filter `rule` with the query values `set` admits an item whose field holds
/// `actual`: `None` where the rule does not decide (an instant on the bound, another shape).
fn admits(rule: &Rule, set: &[String], actual: &str) -> Option<bool> {
    match rule {
        Rule::Eq => Some(set.first().is_some_and(|v| v.trim() == actual.trim())),
        Rule::InComma | Rule::InRepeated => Some(set.iter().any(|v| v.trim() == actual.trim())),
        Rule::InRepeatedIds(prefix) => set
            .iter()
            .all(|v| v.starts_with(prefix.as_str()))
            .then(|| set.iter().any(|v| v == actual)),
        _ => None,
    }
}

/// One page of a walk: its exchange, the rules' findings on it, and its items.
struct Page {
    ex: Arc<Exchange>,
    by_rules: Vec<Finding>,
    items: Vec<Value>,
    /// Why its request is not one a target must accept (READINGS 6.12), if it is not.
    unstated: Option<String>,
    /// Its request.
    out: Outgoing,
}

/// A walk of a list: its pages, and whether it reached the page whose token is null.
struct Walked {
    pages: Vec<Page>,
    ended: bool,
}

/// Walks the list `out` asks for, at most `pages` pages, resending its query with each token.
async fn walk(exec: &Executor, out: Outgoing, pages: usize) -> Walked {
    let mut walked = Walked {
        pages: Vec::new(),
        ended: false,
    };
    let mut token: Option<String> = None;
    for _ in 0..pages.max(1) {
        let mut o = out.clone();
        if let Some(t) = &token {
            o.query.retain(|(k, _)| k != "pageToken");
            o.query.push(("pageToken".into(), t.clone()));
        }
        let unstated = exec.unstated(&o);
        let (ex, by_rules) = exec.send(&o).await.into_parts();
        let body = json_of(&ex).filter(|_| ok(&ex)).cloned();
        let items = body
            .as_ref()
            .and_then(|b| b.get("data"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let next = body
            .as_ref()
            .and_then(|b| b.get("nextPageToken"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        let answered = body.is_some();
        walked.pages.push(Page {
            ex,
            by_rules,
            items,
            unstated,
            out: o,
        });
        match next {
            Some(t) if answered => token = Some(t),
            _ => {
                walked.ended = answered;
                break;
            }
        }
    }
    walked
}

/// Why an operation could not be put in a situation (a fixture the profile lacks, a state the
/// target does not offer): the reason the situation coverage gives.
#[derive(Debug)]
struct Skip(String);

impl std::convert::From<String> for Skip {
    fn from(why: String) -> Skip {
        Skip(why)
    }
}

impl std::convert::From<&str> for Skip {
    fn from(why: &str) -> Skip {
        Skip(why.to_string())
    }
}

/// The step that walks again the lists that had not shown a resource listed late.
const RELISTED: &str = "the lists whose filters admit a resource of the run's that they had not shown yet, walked again";

/// The most bodies a sweep of an operation's value classes sends.
const SWEEP: usize = 6;

/// Why a sequence sends nothing under an expired subscription (Errors > Rules 7).
const NO_SENDS: &str = "the run's own workspace is the one whose subscription has expired (the target shows its key as the profile's subscription_expired_api_key): a send is refused 402";

/// Near misses of the free-text filter value `v`: the same letters in the other case, and its
/// first half (a prefix). An item holding `v` is admitted by neither.
fn near_misses(v: &str) -> Vec<String> {
    let mut out = Vec::new();
    let other = swapped(v);
    if other != v {
        out.push(other);
    }
    let n = v.chars().count();
    if n > 1 {
        out.push(v.chars().take(n.div_ceil(2)).collect());
    }
    out
}

/// A list request: `route`'s path with the query `query` and the headers of its generation.
fn list(route: &Route, path: &str, query: Vec<(String, String)>) -> Outgoing {
    Outgoing {
        query,
        ..request(&route.method, path, &[], None)
    }
}

impl Explorer<'_> {
    /// Puts `route` in `situation`; why not, where it cannot.
    async fn exercise(&mut self, route: &Route, situation: Situation) -> Result<(), Skip> {
        if route.sends && self.cannot_send().await {
            return Err(NO_SENDS.into());
        }
        match situation {
            Situation::ReadBack => self.read_back_after(route).await,
            Situation::RepeatSame => self.repeat(route, false).await,
            Situation::RepeatOther => self.repeat(route, true).await,
            Situation::ChangeOne => self.change_one(route).await,
            Situation::Values => self.values(route).await,
            Situation::InvalidOne => self.invalid_one(route).await,
            Situation::Actors => self.actors(route).await,
            Situation::BodyShapes => self.body_shapes(route).await,
            Situation::WalkWrite => self.walk_write(route).await,
            Situation::FilterValues => self.filter_values(route, false).await,
            Situation::FiltersCombined => self.filter_values(route, true).await,
            Situation::LookAlike => self.look_alike(route).await,
            Situation::ConcurrentLimit => {
                Err("carried by the limit cases, whose last wave crosses the limit with concurrent creates".into())
            }
        }
    }

    /// Whether the run's own workspace is the one whose subscription has expired: its sends are
    /// refused 402, so the sequence sends none.
    async fn cannot_send(&self) -> bool {
        self.fixtures.get("subscription_expired_api_key").is_some()
            && self
                .exec
                .workspaces()
                .await
                .same(None, Some("subscription_expired_api_key"))
                == Some(true)
    }

    /// A resource of `route`'s kind for a change or delete to act on, in the state the change is
    /// stated for where the table's other operations can bring it there for `bodies`.
    async fn subject(&mut self, route: &Route, bodies: &[Option<Value>]) -> Result<String, Skip> {
        let id = self.ensure(&route.effect.on).await?;
        for body in bodies {
            self.prepare(route, &id, body.as_ref()).await;
        }
        Ok(id)
    }

    /// Brings the resource `id` into the from-state of `route` (for the member `body` names):
    /// each condition that does not hold is made to by an operation of the table that sets the
    /// field so (a completion before a reopen, an assignment before an unassignment).
    async fn prepare(&mut self, route: &Route, id: &str, body: Option<&Value>) {
        let exec = self.exec;
        for (field, cond) in &route.effect.from {
            if self.want(route, id, body) == Want::Success {
                return;
            }
            let maker = exec.contract.routes.iter().find(|r| {
                r.effect.on == route.effect.on
                    && r.effect.does == Does::Change
                    && r.effect.fields.iter().any(|f| {
                        &f.field == field
                            && match (cond, &f.set) {
                                (From::Is(v), Set::Value(w)) => v == w,
                                (From::Set, Set::From(_)) => true,
                                (From::Unset, Set::Clear) => true,
                                (From::HasMember, Set::Add(_)) => true,
                                _ => false,
                            }
                    })
            });
            let Some(maker) = maker else {
                continue;
            };
            let Ok(mut made) = self.body(maker) else {
                continue;
            };
            // The member the change names is the one added.
            let mut added = None;
            if let (From::HasMember, Some(b), Some(m)) = (cond, body, made.as_mut()) {
                for f in &maker.effect.fields {
                    if let Set::Add(p) = &f.set {
                        let named = route.effect.fields.iter().find_map(|g| match &g.set {
                            Set::Remove(q) | Set::Add(q) if g.field == f.field => {
                                b.pointer(q).cloned()
                            }
                            _ => None,
                        });
                        if let Some(v) = named {
                            put(m, p, Some(v.clone()));
                            added = Some((p.clone(), v));
                        }
                    }
                }
            }
            let again = made.clone();
            self.change(maker, id, made, None, false).await;
            // Then another member after it, where the profile or the target offers one: the
            // member the change names is then not the last one added, so a removal by position
            // shows apart from a removal by name.
            if let (Some((p, named)), Some(mut second)) = (added, again) {
                let other = self.users.iter().map(|u| json!(u)).find(|u| *u != named);
                if let Some(other) = other {
                    put(&mut second, &p, Some(other));
                    self.change(maker, id, Some(second), None, false).await;
                }
            }
        }
    }

    /// A request body for `route` whose fields are drawn anew: for each field the change or
    /// create reads, a value of a class of its domain (`values::classes`), or a resource of the
    /// profile or the target for a field that names one. The classes sent, by field.
    fn drawn(
        &mut self,
        route: &Route,
        fields: &[String],
        differ: Option<&Value>,
    ) -> Result<(Option<Value>, Vec<Class>), Skip> {
        let mut body = self.body(route)?;
        let mut classes = Vec::new();
        let exec = self.exec;
        for pointer in fields {
            let before = differ.and_then(|d| d.pointer(pointer)).cloned();
            let Some(b) = body.as_mut() else { break };
            if let Some((v, class)) = self.draw(route, pointer, before.as_ref()) {
                put(b, pointer, v);
                classes.extend(class);
            }
        }
        let _ = exec;
        Ok((body, classes))
    }

    /// A value for the body field `pointer` of `route`, other than `differ` where one can be:
    /// `None` inside to leave it out. The class it is of, where its domain has classes.
    fn draw(
        &mut self,
        route: &Route,
        pointer: &str,
        differ: Option<&Value>,
    ) -> Option<(Option<Value>, Option<Class>)> {
        let schema = field_schema(&self.exec.contract, route, pointer)?;
        let name = leaf(pointer);
        // A field that names a resource: a user the target listed, a fixture of the profile.
        let pool: Vec<Value> = if name == "userId" {
            self.users.iter().map(|u| json!(u)).collect()
        } else if let Some((_, fixtures)) = NAMED.iter().find(|(n, _)| *n == name) {
            fixtures
                .iter()
                .filter_map(|f| self.text(f))
                .map(Value::String)
                .collect()
        } else {
            Vec::new()
        };
        if !pool.is_empty() {
            let other: Vec<&Value> = pool.iter().filter(|v| Some(*v) != differ).collect();
            let from = if other.is_empty() {
                pool.iter().collect()
            } else {
                other
            };
            let v = from[self.rng.random_range(0..from.len())].clone();
            return Some((Some(v), None));
        }
        // A set of events, of resource ids: a subset the run's watchers can follow.
        if name == "events" {
            let events = events_of(&self.exec.contract, &route.effect.on);
            let events = if events.is_empty() {
                events_of(&self.exec.contract, "task")
            } else {
                events
            };
            let take = self.rng.random_range(1..=events.len().max(1));
            return Some((Some(json!(events[..take.min(events.len())].to_vec())), None));
        }
        if name == "resourceIds" {
            let v = if differ == Some(&json!(["*"])) || self.rng.random_range(0..2) == 0 {
                json!([self.text("phone_number_id").unwrap_or_default()])
            } else {
                json!(["*"])
            };
            return Some((Some(v), None));
        }
        let classes = self.field_classes(route, pointer, &schema);
        if classes.is_empty() {
            return None;
        }
        for _ in 0..4 {
            let class = classes[self.rng.random_range(0..classes.len())].clone();
            let v = self.of_class(route, pointer, &class);
            if v.as_ref() != differ || classes.len() == 1 {
                return Some((v, Some(class)));
            }
        }
        None
    }

    /// The classes of the domain of the body field `pointer` of `route` (`schema`: its schema).
    fn field_classes(&self, route: &Route, pointer: &str, schema: &Value) -> Vec<Class> {
        let link = leaf(pointer).to_ascii_lowercase().ends_with("url");
        let mut classes = values::classes(schema, presence(route, pointer), link);
        // A field whose value must be unique (the example's `unique`: an external id) keeps
        // the round's tag: a value too short to hold it may be one another round, or another
        // run on the same target, already holds (contacts are never deleted).
        if self.unique(route, pointer) {
            let least = self.tag.chars().count() + 4;
            classes.retain(|c| !matches!(c, Class::Length(n) if (*n as usize) < least));
        }
        classes
    }

    /// Whether the body field `pointer` of `route` must be unique (an external id): the
    /// `unique` of the x-example of an operation on the same kind (its create's, for a change).
    fn unique(&self, route: &Route, pointer: &str) -> bool {
        let of = |r: &Route| {
            r.example
                .as_ref()
                .and_then(|e| e.get("unique"))
                .and_then(Value::as_array)
                .is_some_and(|u| u.iter().any(|p| p.as_str() == Some(pointer)))
        };
        of(route)
            || self
                .exec
                .contract
                .routes
                .iter()
                .any(|r| r.effect.on == route.effect.on && r.effect.does == Does::Create && of(r))
    }

    /// A value of `class` for the body field `pointer` of `route`, tagged with the round's tag.
    /// A field that must be unique carries the tag whatever its class (at the class's length,
    /// where it has room), so that no other resource of any run holds the same value.
    fn of_class(&mut self, route: &Route, pointer: &str, class: &Class) -> Option<Value> {
        let name = leaf(pointer);
        let n = self.sent.values().sum::<usize>();
        let tag = format!("{}-{}{n}", self.tag, &name[..1]);
        let mut v = values::value(class, &tag, &mut self.rng);
        if let Some(Value::String(s)) = v.as_mut() {
            if !s.contains(&tag) && self.unique(route, pointer) {
                let keep = s.chars().count().saturating_sub(tag.chars().count());
                *s = format!("{tag}{}", s.chars().take(keep).collect::<String>());
            }
        }
        if name.to_ascii_lowercase().ends_with("url") {
            // A webhook's URL stays at the round's receiver, so its deliveries stay the run's.
            // Each URL drawn is new: a receiver sub-path names one webhook for the whole round,
            // so a delivery is never taken for that of another webhook that had its URL before.
            if let (Some(url), true) = (self.text("webhook_url"), route.effect.on == "webhook") {
                self.urls += 1;
                return Some(json!(format!("{url}/{}v{}", self.prefix, self.urls)));
            }
        }
        v
    }

    /// Records the classes a request of `route` carried.
    fn classes(&self, route: &Route, classes: &[Class]) {
        let op = route.operation_id.clone().unwrap_or_default();
        for c in classes {
            self.exec.situations.class(&op, &c.name());
        }
    }

    /// A create, change or delete of `route`, then every route that shows its resource.
    async fn read_back_after(&mut self, route: &Route) -> Result<(), Skip> {
        let kind = route.effect.on.clone();
        match route.effect.does {
            Does::Create => {
                let id = self
                    .create(route, None)
                    .await?
                    .ok_or("the create was not accepted")?;
                self.read_back(&kind, &id, true).await;
            }
            Does::Delete => {
                let id = self.subject(route, &[]).await?;
                self.delete(&kind, &id).await;
                self.read_back(&kind, &id, true).await;
            }
            _ => {
                let id = self.subject(route, &[]).await?;
                let body = self.body(route)?;
                self.prepare(route, &id, body.as_ref()).await;
                self.change(route, &id, body, None, true).await;
            }
        }
        Ok(())
    }

    /// The change or delete of `route` twice on one resource: with the same arguments, or with
    /// others (each in the from-state where the table can bring it there first).
    async fn repeat(&mut self, route: &Route, other: bool) -> Result<(), Skip> {
        let kind = route.effect.on.clone();
        // A create sent again with the same body makes another resource, or is refused (a
        // value that must be unique): never answered with the first (`create_with` judges the
        // id).
        if route.effect.does == Does::Create {
            let body = self.body(route)?;
            let Some(first) = self
                .create_read(route, body.clone(), Want::Success, false)
                .await?
            else {
                return Err("the first create made nothing to repeat".into());
            };
            // Each read back once the second is answered.
            if let Some(second) = self.create_read(route, body, Want::Either, false).await? {
                self.read_back(&kind, &second, false).await;
            }
            self.read_back(&kind, &first, false).await;
            return Ok(());
        }
        if route.effect.does == Does::Delete {
            let id = self.subject(route, &[]).await?;
            self.delete(&kind, &id).await;
            self.read_back(&kind, &id, false).await;
            let out = request(&route.method, &Self::path(route, Some(&id)), &[], None);
            self.send(&out, Want::Either, &route.clause).await;
            self.read_back(&kind, &id, true).await;
            return Ok(());
        }
        let fields = situations::body_fields(route);
        let (first, classes) = self.drawn(route, &fields, None)?;
        let (second, more) = if other {
            let (b, more) = self.drawn(route, &fields, first.as_ref())?;
            self.classes(route, &more);
            if b == first {
                return Err(
                    "the profile and the target offer one value only for its fields".into(),
                );
            }
            (b, more)
        } else {
            (first.clone(), classes.clone())
        };
        self.classes(route, &classes);
        let id = self
            .subject(route, &[first.clone(), second.clone()])
            .await?;
        let want = |c: &[Class]| {
            c.iter()
                .any(Class::may_be_refused)
                .then_some(Want::SuccessOr400)
        };
        if other && crate::model::adds_only(route) {
            // Two members added at once: adds commute, so whatever order the target applies
            // them in, both are in (a write that reads the set, adds one and writes the set back
            // loses the other's member).
            let exec = self.exec;
            let outs: Vec<(Outgoing, Want)> = [(first, want(&classes)), (second, want(&more))]
                .into_iter()
                .map(|(body, w)| {
                    let w = w.unwrap_or_else(|| self.want(route, &id, body.as_ref()));
                    let out = Outgoing {
                        body,
                        ..request(&route.method, &Self::path(route, Some(&id)), &[], None)
                    };
                    (out, w)
                })
                .collect();
            let sent = futures_util::future::join_all(outs.iter().map(|(o, _)| exec.send(o))).await;
            for (j, (_, w)) in sent.into_iter().zip(&outs) {
                let (ex, by_rules) = j.into_parts();
                self.judge(&ex, by_rules, w, &route.clause);
            }
            self.read_back(&route.effect.on, &id, true).await;
            return Ok(());
        }
        self.change(route, &id, first, want(&classes), false).await;
        self.change(route, &id, second, want(&more), true).await;
        Ok(())
    }

    /// A change of one field of several: the others left out where the change keeps them, else
    /// sent as the resource holds them.
    async fn change_one(&mut self, route: &Route) -> Result<(), Skip> {
        let fields = situations::body_fields(route);
        let id = self.subject(route, &[]).await?;
        // First every field at the value a create of the run sends (a number of the workspace,
        // not a wildcard; text, not null): a change that puts another field back to a default
        // then shows.
        let create = self
            .exec
            .contract
            .routes
            .iter()
            .find(|r| r.effect.on == route.effect.on && r.effect.does == Does::Create);
        if let Some(Some(made)) = create.map(|c| self.body(c)).transpose()? {
            let mut restate = json!({});
            for p in &fields {
                if let Some(v) = made.pointer(p).filter(|v| !v.is_null()) {
                    put(&mut restate, p, Some(v.clone()));
                }
            }
            if restate.as_object().is_some_and(|m| m.len() >= 2) {
                self.change(route, &id, Some(restate), None, false).await;
            }
        }
        // Each field in turn, the others kept: a change of one field that moves another shows
        // whichever field it is.
        for one in &fields {
            self.change_only(route, &id, one).await?;
        }
        Ok(())
    }

    /// A change of the field `one` of the resource `id`, the others left out where the change
    /// keeps them, else sent as the resource holds them.
    async fn change_only(&mut self, route: &Route, id: &str, one: &str) -> Result<(), Skip> {
        let Some(mut body) = self.body(route)? else {
            return Err("the operation has no body".into());
        };
        let view = self.exec.model.view(&route.effect.on, id);
        for f in &route.effect.fields {
            let (Set::From(p), Some(view)) = (&f.set, &view) else {
                continue;
            };
            if p == one {
                continue;
            }
            let keeps = f.absent == conformance_contract::operations::Absent::Keep
                && !route.effect.replaces;
            if keeps && !required(route, p) {
                put(&mut body, p, None);
            } else if let Some(v) = view.now.value(&f.field).filter(|v| !v.is_null()) {
                // The model holds entries by their values, not in the form a body sends them:
                // those stay as the body has them.
                let shape = self
                    .exec
                    .contract
                    .resources
                    .get(&route.effect.on)
                    .and_then(|r| r.field(&f.field))
                    .map(|f| f.shape);
                if !matches!(shape, Some(Shape::Entries { .. } | Shape::Members)) {
                    put(&mut body, p, Some(v));
                }
            }
        }
        let before = body.pointer(one).cloned();
        let mut want = None;
        if let Some((v, class)) = self.draw(route, one, before.as_ref()) {
            put(&mut body, one, v);
            if class.as_ref().is_some_and(Class::may_be_refused) {
                want = Some(Want::SuccessOr400);
            }
            self.classes(route, &class.into_iter().collect::<Vec<_>>());
        }
        self.change(route, id, Some(body), want, true).await;
        Ok(())
    }

    /// A create or change with each field's value drawn from a class of its domain.
    async fn values(&mut self, route: &Route) -> Result<(), Skip> {
        let fields = situations::body_fields(route);
        let Some(base) = self.body(route)? else {
            return Err("the operation has no body".into());
        };
        // Each field drawn; those whose class a target may refuse (an offset, a century away, a
        // field left out whose required-ness is not shown) go in a request of their own, so the
        // values every target must accept are sent in one that must be accepted.
        let mut sure = base;
        let mut risky_fields = Vec::new();
        let (mut sure_classes, mut risky_classes) = (Vec::new(), Vec::new());
        for pointer in &fields {
            // Of alternatives the contract names one of (READINGS 6.12), the body keeps the
            // one it holds: the others are the body-shapes situation's.
            if other_alternative(route, &sure, pointer) {
                continue;
            }
            let Some((v, class)) = self.draw(route, pointer, None) else {
                continue;
            };
            if class.as_ref().is_some_and(Class::may_be_refused) {
                risky_fields.push((pointer.clone(), v));
                risky_classes.extend(class);
            } else {
                put(&mut sure, pointer, v);
                sure_classes.extend(class);
            }
        }
        self.classes(route, &sure_classes);
        self.classes(route, &risky_classes);
        self.send_values(route, sure, Want::Success).await?;
        if !risky_fields.is_empty() {
            // A body of its own, made after the first went (what must be unique, an external
            // id, is tagged anew).
            let mut risky = self.body(route)?.unwrap_or_default();
            for (pointer, v) in risky_fields {
                put(&mut risky, &pointer, v);
            }
            self.send_values(route, risky, Want::SuccessOr400).await?;
        }
        self.sweep(route, &fields).await
    }

    /// Every class of each field's domain that every target must accept, in turn: body k gives
    /// each field the k-th of its classes, until every class of every field went (at most
    /// `SWEEP` bodies), each read back. What a create made is deleted where the table has a
    /// delete, and the round does not keep it; the seed's draws for the rest of the round are
    /// those it had without the sweep. A create that adds to a counted state, or sends a message,
    /// is left to `--depth`.
    async fn sweep(&mut self, route: &Route, fields: &[String]) -> Result<(), Skip> {
        if !route.effect.adds.is_empty() || route.sends {
            return Ok(());
        }
        let mut domains: Vec<(String, Vec<Class>)> = Vec::new();
        for pointer in fields {
            // What names a resource, or the events and numbers a webhook follows, is drawn from
            // what the run has (`draw`), not from classes.
            let name = leaf(pointer);
            if ["userId", "events", "resourceIds"].contains(&name)
                || NAMED.iter().any(|(n, _)| *n == name)
            {
                continue;
            }
            let Some(schema) = field_schema(&self.exec.contract, route, pointer) else {
                continue;
            };
            let classes: Vec<Class> = self
                .field_classes(route, pointer, &schema)
                .into_iter()
                .filter(|c| !c.may_be_refused())
                .collect();
            if classes.len() > 1 {
                domains.push((pointer.clone(), classes));
            }
        }
        let bodies = domains
            .iter()
            .map(|(_, c)| c.len())
            .max()
            .unwrap_or(0)
            .min(SWEEP);
        let saved = self.rng.clone();
        let kind = route.effect.on.clone();
        for k in 0..bodies {
            let Some(mut body) = self.body(route)? else {
                break;
            };
            let mut sent = Vec::new();
            for (pointer, classes) in &domains {
                let class = classes[k % classes.len()].clone();
                let v = self.of_class(route, pointer, &class);
                put(&mut body, pointer, v);
                sent.push(class);
            }
            self.classes(route, &sent);
            if route.effect.does == Does::Create {
                let Some(id) = self.create_with(route, Some(body), Want::Success).await? else {
                    continue;
                };
                self.read_back(&kind, &id, false).await;
                self.delete(&kind, &id).await;
                if let Some(ids) = self.created.get_mut(&kind) {
                    ids.retain(|i| *i != id);
                }
            } else {
                let id = self.subject(route, &[]).await?;
                self.change(route, &id, Some(body), None, false).await;
            }
        }
        self.rng = saved;
        Ok(())
    }

    /// A create or change of `route` with `body`, held to `want`, read back.
    async fn send_values(&mut self, route: &Route, body: Value, want: Want) -> Result<(), Skip> {
        if route.effect.does == Does::Create {
            if let Some(id) = self.create_with(route, Some(body), want).await? {
                self.read_back(&route.effect.on, &id, true).await;
            }
        } else {
            let body = Some(body);
            let id = self.subject(route, std::slice::from_ref(&body)).await?;
            let want = (want == Want::SuccessOr400).then_some(want);
            self.change(route, &id, body, want, true).await;
        }
        Ok(())
    }

    /// One stated constraint of the body broken: refused, and afterwards the resource as it was.
    async fn invalid_one(&mut self, route: &Route) -> Result<(), Skip> {
        let (Some(schema), Some(body)) = (route.request_schema.clone(), self.body(route)?) else {
            return Err("the operation has no body".into());
        };
        let phone = self.exec.contract.e164.clone();
        let mut broken = Vec::new();
        for (pointer, c, leaf) in crate::cases::constraint::of_body(&schema, &body, &phone) {
            if matches!(c, crate::cases::constraint::Constraint::NotItem(_)) {
                continue;
            }
            // The clause that states the constraint, where its schema names one (a phone
            // number's form, a limit), else the operation's.
            let own = leaf
                .get("x-clause")
                .and_then(Value::as_str)
                .map(str::to_string);
            let ctx = crate::cases::properties::generate::Context {
                example: body.pointer(&pointer).cloned().unwrap_or(Value::Null),
                keeps_format: false,
                avoid: Vec::new(),
                pool: Vec::new(),
                resources: false,
                excluded: None,
            };
            // A field that names a resource (a pattern of a stated prefix): a target may look
            // the value up before it checks its form, and answer 404 for an id that names
            // nothing; the order of the two checks is not stated (READINGS 7.2).
            let names = leaf
                .get("pattern")
                .and_then(Value::as_str)
                .is_some_and(super::stated::id_prefix);
            for v in crate::cases::properties::generate::boundaries(&c, &ctx).invalid {
                broken.push((pointer.clone(), c.describe(), v, own.clone(), names));
            }
        }
        if broken.is_empty() {
            return Err("the body the run sends fills no constrained field".into());
        }
        let (pointer, rule, value, own, names) =
            broken.swap_remove(self.rng.random_range(0..broken.len()));
        let mut bad = body.clone();
        put(&mut bad, &pointer, Some(value));
        let code = route
            .responses
            .iter()
            .any(|r| r.status == StatusKey::Exact(400))
            .then_some(400);
        let (first, why) = if names {
            (
                None,
                format!(
                    "{pointer}: {rule}; 400, or 404 where a target looks the id up first: the order of the two checks is not stated"
                ),
            )
        } else {
            (code, format!("{pointer}: {rule}"))
        };
        self.send_invalid(route, bad, Want::Refusal(first, why, own))
            .await?;
        // Each field the body schema requires, left out alone.
        let required: Vec<String> = schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .filter(|f| body.get(*f).is_some())
            .map(str::to_string)
            .collect();
        for field in required {
            let mut bad = body.clone();
            if let Some(m) = bad.as_object_mut() {
                m.remove(&field);
            }
            let want = Want::Refusal(code, format!("/{field}: required, left out"), None);
            self.send_invalid(route, bad, want).await?;
        }
        Ok(())
    }

    /// Sends `bad`, a body `route` must refuse, held to `want`; what it names is read back.
    async fn send_invalid(&mut self, route: &Route, bad: Value, want: Want) -> Result<(), Skip> {
        if route.effect.does == Does::Create {
            let id = self.create_with(route, Some(bad), want).await?;
            if let Some(id) = id {
                self.read_back(&route.effect.on, &id, false).await;
            }
        } else {
            let id = self.subject(route, &[]).await?;
            self.change(route, &id, Some(bad), Some(want), true).await;
        }
        Ok(())
    }

    /// The request with each actor the profile gives: no key and a wrong key (401), a key the
    /// target shows to be of another workspace (refused), the second key of the workspace (not
    /// 401). A change the contract has refused whatever the state goes out beside the others;
    /// one that may be taken goes alone: two changes of one resource in flight at once leave
    /// the model without its state.
    async fn actors(&mut self, route: &Route) -> Result<(), Skip> {
        let kind = route.effect.on.clone();
        let id = match route.effect.does {
            Does::Create => None,
            _ => Some(self.subject(route, &[]).await?),
        };
        let body = self.body(route)?;
        let base = Outgoing {
            body,
            ..request(&route.method, &Self::path(route, id.as_deref()), &[], None)
        };
        let mut actors = vec![
            (Auth::None, Want::Unauthorized),
            (Auth::NearMiss(NearKey::Cut), Want::Unauthorized),
            (Auth::NearMiss(NearKey::OtherCase), Want::Unauthorized),
            (Auth::NearMiss(NearKey::Longer), Want::Unauthorized),
            (Auth::NearMiss(NearKey::Empty), Want::Unauthorized),
        ];
        // A key of another workspace creates in its own workspace: only what names the run's
        // resources is refused to it.
        // Only a kind the contract puts on a number of the workspace is refused to another
        // workspace's key (x-resources `of-number`).
        let names_own = route.effect.does != Does::Create
            && self
                .exec
                .contract
                .resources
                .get(&kind)
                .is_some_and(|r| r.of_number);
        let workspaces = self.exec.workspaces().await;
        for fixture in crate::workspaces::KEY_FIXTURES {
            let Some(key) = self.text(fixture).filter(|k| !k.is_empty()) else {
                continue;
            };
            let auth = Auth::Key {
                key,
                label: format!("<{}>", fixture.to_ascii_uppercase()),
            };
            match workspaces.same(None, Some(fixture)) {
                Some(false) if names_own => actors.push((auth, Want::Foreign)),
                _ if *fixture == "restricted_api_key"
                    && matches!(route.effect.does, Does::Read | Does::Change) =>
                {
                    actors.push((auth, Want::NotUnauthorized));
                }
                _ => {}
            }
        }
        let clause = route.clause.clone();
        let mut outs: Vec<(Outgoing, Want)> = actors
            .into_iter()
            .map(|(auth, want)| {
                (
                    Outgoing {
                        auth,
                        ..base.clone()
                    },
                    want,
                )
            })
            .collect();
        // The version header is compared as the key is: near misses of the stated version
        // are other versions, refused (Versioning > 1).
        if route.api == Api::Latest {
            for version in near_versions(conformance_contract::API_VERSION) {
                let mut out = base.clone();
                out.headers
                    .retain(|(k, _)| !k.eq_ignore_ascii_case("Service-Api-Version"));
                out.headers
                    .push(("Service-Api-Version".to_string(), version.clone()));
                let why = format!("Service-Api-Version {version}, not the stated version");
                outs.push((out, Want::Refusal(None, why, Some("Versioning > 1".into()))));
            }
        }
        if route.effect.does == Does::Read {
            self.send_each(&outs, &clause).await;
        } else {
            // The requests the contract has refused whatever the state go out together (the
            // model counts none of them as a change in flight); the others one after another:
            // two changes of one resource in flight at once leave the model not knowing which
            // the target applied last.
            let exec = self.exec;
            let (refused, others): (Vec<_>, Vec<_>) = outs
                .into_iter()
                .partition(|(o, _)| crate::model::must_be_refused(&exec.contract, o));
            let mut exchanges = self.send_each(&refused, &clause).await;
            for (out, want) in others {
                exchanges.push(self.send(&out, want, &clause).await);
            }
            // What a refused create made all the same is the run's to delete.
            if route.effect.does == Does::Create {
                for ex in &exchanges {
                    if let Some(made) = self.exec.contract.resources.get(&kind).and_then(|r| {
                        json_of(ex)
                            .filter(|_| ok(ex))
                            .and_then(|b| b.get("data"))
                            .and_then(|d| r.id_of(d))
                    }) {
                        self.created.entry(kind.clone()).or_default().push(made);
                    }
                }
            }
        }
        if let Some(id) = id {
            self.read_back(&kind, &id, false).await;
        }
        Ok(())
    }

    /// A create in each form of body the contract allows: for each group of alternatives
    /// (`x-purpose`), each alternative alone, with its value from the profile.
    async fn body_shapes(&mut self, route: &Route) -> Result<(), Skip> {
        let mut sent = 0;
        let mut missing = Vec::new();
        let mut given: Vec<(String, String)> = Vec::new();
        for group in situations::body_shapes(route) {
            for alt in &group {
                let Some(mut body) = self.body(route)? else {
                    continue;
                };
                for other in &group {
                    put(&mut body, other, None);
                }
                let value = NAMED
                    .iter()
                    .find(|(n, _)| *n == leaf(alt))
                    .and_then(|(_, fixtures)| fixtures.iter().find_map(|f| self.text(f)));
                let Some(value) = value else {
                    missing.push(alt.clone());
                    continue;
                };
                put(&mut body, alt, Some(json!(value.clone())));
                if let Some(id) = self.create(route, Some(body)).await? {
                    self.read_back(&route.effect.on, &id, true).await;
                }
                given.push((alt.clone(), value));
                sent += 1;
            }
            // The alternatives together: a target may refuse more than one, and one that takes
            // them keeps each as sent (the model reads the create back), not one in place of the
            // others.
            if given.len() >= 2 {
                if let Some(mut body) = self.body(route)? {
                    for (alt, value) in given.drain(..) {
                        put(&mut body, &alt, Some(json!(value)));
                    }
                    // The create reads it back on every route that reads it by id.
                    self.create_with(route, Some(body), Want::Either).await?;
                }
            }
            given.clear();
        }
        if sent == 0 {
            return Err(format!("the profile gives no value for {}", missing.join(", ")).into());
        }
        Ok(())
    }

    /// A list walked while the run writes: after the first page, a resource of the kind is
    /// created and the item the page's token points after is deleted where it is the run's own;
    /// the walk then goes on with the token and must show no id twice (READINGS 4.2), nor the
    /// deleted item (the model).
    async fn walk_write(&mut self, route: &Route) -> Result<(), Skip> {
        let kind = route.effect.on.clone();
        self.ensure(&kind).await?;
        // Two of the run's own at least, so that a walk of them alone has a second page.
        if self.live(&kind).len() < 2 && cap(CAPS, &kind) >= 2 {
            if let Some(create) = self
                .exec
                .contract
                .routes
                .iter()
                .find(|r| r.effect.on == kind && r.effect.does == Does::Create)
            {
                let _ = self.create(create, None).await;
            }
        }
        let mut query = self.query(route)?;
        // Where a filter can name the run's own resources, the walk is of them only.
        let mine = self.live(&kind);
        let exec = self.exec;
        let own = route.effect.filters.iter().find_map(|f| {
            let values: Vec<String> = mine
                .iter()
                .filter_map(|id| {
                    exec.model
                        .view(&kind, id)?
                        .now
                        .value(&f.field)
                        .as_ref()
                        .and_then(text_of)
                })
                .collect();
            (matches!(f.rule, Rule::InComma | Rule::InRepeated) && !values.is_empty())
                .then_some((f, values))
        });
        if let Some((f, values)) = &own {
            query.retain(|(k, _)| k != &f.param);
            match f.rule {
                Rule::InComma => query.push((f.param.clone(), values.join(","))),
                _ => query.extend(values.iter().map(|v| (f.param.clone(), v.clone()))),
            }
        }
        query.retain(|(k, _)| k != "maxResults");
        if let Some(n) = page_size(route, true) {
            query.push(("maxResults".into(), n));
        }
        let out = list(route, &route.template, query);
        let first = walk(exec, out.clone(), 1).await;
        let token = first.pages.last().and_then(|p| {
            json_of(&p.ex)?
                .get("nextPageToken")?
                .as_str()
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        });
        let page_one: Vec<String> = first
            .pages
            .iter()
            .flat_map(|p| p.items.iter())
            .filter_map(|i| exec.contract.resources.get(&kind)?.id_of(i))
            .collect();
        self.absorb(first, &Want::Success, &route.clause, &kind);
        let Some(token) = token else {
            return Err("the list held one page only".into());
        };
        // The writes between the pages.
        let create = exec
            .contract
            .routes
            .iter()
            .find(|r| r.effect.on == kind && r.effect.does == Does::Create);
        if let Some(create) = create {
            let _ = self.create(create, None).await;
        }
        if let Some(last) = page_one
            .last()
            .filter(|id| self.live(&kind).contains(id))
            .cloned()
        {
            self.delete(&kind, &last).await;
        }
        let mut rest = out;
        rest.query.push(("pageToken".into(), token));
        let walked = walk(exec, rest, 3).await;
        let resource = exec.contract.resources.get(&kind);
        let mut seen: BTreeSet<String> = page_one.into_iter().collect();
        for page in &walked.pages {
            for item in &page.items {
                let Some(id) = resource.and_then(|r| r.id_of(item)) else {
                    continue;
                };
                if !seen.insert(id.clone()) {
                    self.now.1.push((
                        Finding::new(
                            "Pagination and collection conventions > pageToken",
                            "pagination",
                            "no id twice in a walk of the pages (READINGS 4.2), a resource created and one deleted between two pages included".to_string(),
                            format!("{id} again"),
                        ),
                        page.ex.clone(),
                    ));
                }
            }
        }
        self.absorb(walked, &Want::Success, &route.clause, &kind);
        Ok(())
    }

    /// Takes a walk's pages into the step, each held to `want`.
    /// A page whose request holds a value the contract does not state as accepted is held to
    /// either answer (READINGS 6.12), as [`Explorer::stated`] holds every other request.
    fn absorb(&mut self, walked: Walked, want: &Want, clause: &str, _kind: &str) {
        for page in walked.pages {
            let want = match (want, page.unstated) {
                (Want::Success | Want::SuccessOr400, Some(why)) => Want::Open(why),
                (Want::Success | Want::SuccessOr400, None) => {
                    self.exec.held_to_success(&page.out);
                    want.clone()
                }
                _ => want.clone(),
            };
            self.judge(&page.ex, page.by_rules, &want, clause);
        }
    }

    /// The base query of a list: the parameters its purpose needs (READINGS 6.3), rendered with
    /// the profile, and its largest page.
    fn query(&self, route: &Route) -> Result<Vec<(String, String)>, Skip> {
        let purpose: Vec<String> = route
            .purpose
            .as_ref()
            .and_then(|p| p.get("query"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect();
        let source = route
            .access
            .as_ref()
            .and_then(|a| a.get("query"))
            .cloned()
            .or_else(|| {
                let q = route
                    .example
                    .as_ref()?
                    .pointer("/request/query")?
                    .as_object()?;
                Some(Value::Object(
                    q.iter()
                        .filter(|(k, _)| purpose.contains(k))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect(),
                ))
            });
        let mut out = Vec::new();
        if let Some(source) = source {
            let rendered = self
                .fixtures
                .render_value(&source)
                .map_err(|m| format!("its query needs {m}, which the profile does not give"))?;
            for (k, v) in rendered.as_object().into_iter().flatten() {
                match v {
                    Value::Array(items) => {
                        out.extend(items.iter().filter_map(text_of).map(|t| (k.clone(), t)))
                    }
                    other => out.extend(text_of(other).map(|t| (k.clone(), t))),
                }
            }
        }
        if !out.iter().any(|(k, _)| k == "maxResults") {
            if let Some(n) = page_size(route, false) {
                out.push(("maxResults".into(), n));
            }
        }
        Ok(out)
    }

    /// The items a list's filter values are drawn from: the run's own of its kind (live, as the
    /// model knows them; one made if the round holds none), then the first items of the list's
    /// first page, each with whether it is the run's own.
    async fn filter_sources(
        &mut self,
        route: &Route,
        kind: &str,
        base: &[(String, String)],
    ) -> Vec<(Value, bool)> {
        let exec = self.exec;
        let resource = exec.contract.resources.get(kind);
        let mut sources: Vec<(Value, bool)> = Vec::new();
        if resource.is_some_and(|r| !r.fields.is_empty()) {
            if self.live(kind).is_empty()
                && exec
                    .contract
                    .routes
                    .iter()
                    .any(|r| r.effect.on == kind && r.effect.does == Does::Create)
            {
                let _ = self.ensure(kind).await;
            }
            for id in self.live(kind) {
                if let Some(v) = exec.model.view(kind, &id) {
                    let mut item = json!({});
                    for pointer in v.now.pointers() {
                        put(
                            &mut item,
                            &pointer,
                            Some(v.now.value(&pointer).unwrap_or(Value::Null)),
                        );
                    }
                    if let Some(r) = resource {
                        put(&mut item, &r.id, Some(json!(id)));
                    }
                    sources.push((item, true));
                }
            }
        }
        let first = walk(exec, list(route, &route.template, base.to_vec()), 1).await;
        sources.extend(
            first
                .pages
                .iter()
                .flat_map(|p| p.items.iter().take(5).cloned())
                .map(|i| (i, false)),
        );
        self.absorb(first, &Want::Success, &route.clause, kind);
        sources
    }

    /// Each filter of a list sent with the values the run's own resources, the target's items and
    /// the profile offer (the value, the value in the other letter case, a proper prefix, a
    /// value no item has, each value of an enumeration; an instant, the same instant at another
    /// offset and a second either side; an id's look-alikes), or (`combined`) two filters of
    /// different fields at once, with the values
    /// of one item. The filter rule judges every item; a resource of the run's own that every
    /// filter of the query admits must be listed when the walk ends.
    async fn filter_values(&mut self, route: &Route, combined: bool) -> Result<(), Skip> {
        let exec = self.exec;
        let kind = route.effect.on.clone();
        let resource = exec.contract.resources.get(&kind);
        let base = self.query(route)?;
        let sources = self.filter_sources(route, &kind, &base).await;
        let filters = &route.effect.filters;
        let value_of = |item: &Value, f: &conformance_contract::operations::Filter| {
            item.pointer(&f.field)
                .and_then(text_of)
                .filter(|t| !t.is_empty())
        };
        // (query, the run's own item it must list, when the walk ends)
        let mut asks: Vec<Ask> = Vec::new();
        let with = |pairs: &[(&str, String)]| -> Vec<(String, String)> {
            let mut q: Vec<(String, String)> = base
                .iter()
                .filter(|(k, _)| !pairs.iter().any(|(p, _)| p == k))
                .cloned()
                .collect();
            q.extend(pairs.iter().map(|(k, v)| (k.to_string(), v.clone())));
            q
        };
        let own_id = |item: &Value, mine: bool| -> Option<String> {
            mine.then(|| resource.and_then(|r| r.id_of(item))).flatten()
        };
        if combined {
            let mut pick: Option<(usize, usize, &Value, bool)> = None;
            'items: for (item, mine) in &sources {
                for (i, a) in filters.iter().enumerate() {
                    for (j, b) in filters.iter().enumerate().skip(i + 1) {
                        // A value with a comma cannot be sent where the filter takes a
                        // comma-separated set.
                        let sendable = |f: &conformance_contract::operations::Filter| {
                            value_of(item, f).is_some_and(|v| {
                                !(matches!(f.rule, Rule::InComma) && v.contains(','))
                            })
                        };
                        if a.field != b.field
                            && sendable(a)
                            && sendable(b)
                            && !matches!(
                                a.rule,
                                Rule::After | Rule::Before | Rule::AtOrAfter | Rule::AtOrBefore
                            )
                        {
                            pick = Some((i, j, item, *mine));
                            if self.rng.random_range(0..2) == 0 {
                                break 'items;
                            }
                        }
                    }
                }
            }
            let Some((i, j, item, mine)) = pick else {
                return Err(
                    "no item the run or the target shows has values for two of its filters".into(),
                );
            };
            let (a, b) = (&filters[i], &filters[j]);
            let (va, vb) = (
                value_of(item, a).unwrap_or_default(),
                value_of(item, b).unwrap_or_default(),
            );
            let q = with(&[(a.param.as_str(), va), (b.param.as_str(), vb)]);
            asks.push((q, own_id(item, mine), Want::Success));
        } else {
            for f in filters {
                let schema = route
                    .query_param(&f.param)
                    .map(|p| p.schema.clone())
                    .unwrap_or(Value::Null);
                // Free text (an external id, a source): other letter case, a prefix and a value no
                // item has are values of its domain, each a near miss of a value an item holds.
                // Elsewhere (a status, an id, an instant) only values the target showed are sent.
                let string = matches!(schema.get("type"), Some(Value::String(t)) if t == "string")
                    || schema.pointer("/items/type").and_then(Value::as_str) == Some("string");
                let free = string
                    && schema.get("pattern").is_none()
                    && schema.pointer("/items/pattern").is_none()
                    && schema.get("format").is_none()
                    && schema.pointer("/items/format").is_none()
                    && schema.get("enum").is_none()
                    && schema.pointer("/items/enum").is_none();
                if let Some(values) = schema.get("enum").and_then(Value::as_array) {
                    for v in values.iter().filter_map(text_of) {
                        asks.push((with(&[(f.param.as_str(), v)]), None, Want::Success));
                    }
                    continue;
                }
                // The item whose value holds a separator where one does (a value a parser that
                // splits or decodes it would lose), except a comma where the filter takes a
                // comma-separated set (such a value cannot be sent there).
                let usable = |(i, _): &&(Value, bool)| {
                    value_of(i, f)
                        .is_some_and(|v| !(matches!(f.rule, Rule::InComma) && v.contains(',')))
                };
                let separated = |(i, _): &&(Value, bool)| {
                    value_of(i, f).is_some_and(|v| v.contains(|c| ",;|/&=+%#?".contains(c)))
                };
                let Some((item, mine)) = sources
                    .iter()
                    .filter(usable)
                    .find(separated)
                    .or_else(|| sources.iter().find(usable))
                else {
                    continue;
                };
                let v = value_of(item, f).unwrap_or_default();
                match f.rule {
                    Rule::After | Rule::Before | Rule::AtOrAfter | Rule::AtOrBefore => {
                        asks.push((with(&[(f.param.as_str(), v.clone())]), None, Want::Success));
                        // A second either side of the item's instant: the same day, the same
                        // minute; admitted on one side only.
                        for (bound, admitted) in a_second_apart(&v, &f.rule) {
                            let own = if admitted { own_id(item, *mine) } else { None };
                            asks.push((with(&[(f.param.as_str(), bound)]), own, Want::Success));
                        }
                        if let Some(shifted) = at_other_offset(&v) {
                            asks.push((
                                with(&[(f.param.as_str(), shifted)]),
                                None,
                                Want::SuccessOr400,
                            ));
                        }
                    }
                    Rule::InComma | Rule::InRepeated | Rule::InRepeatedIds(_) => {
                        // A second value: one no item has (free text), else another the target
                        // showed for the field.
                        let second = if free {
                            Some(format!("{}-none", self.tag))
                        } else {
                            sources
                                .iter()
                                .filter_map(|(i, _)| value_of(i, f))
                                .find(|w| *w != v)
                        };
                        let orders = set_orders(&v, second, free.then_some(&schema), &self.tag);
                        for values in orders {
                            let q = match f.rule {
                                Rule::InComma => with(&[(f.param.as_str(), values.join(","))]),
                                _ => with(
                                    &values
                                        .into_iter()
                                        .map(|x| (f.param.as_str(), x))
                                        .collect::<Vec<_>>(),
                                ),
                            };
                            asks.push((q, own_id(item, *mine), Want::Success));
                        }
                    }
                    Rule::Eq => {
                        asks.push((
                            with(&[(f.param.as_str(), v.clone())]),
                            own_id(item, *mine),
                            Want::Success,
                        ));
                    }
                }
                if matches!(
                    f.rule,
                    Rule::Eq | Rule::InComma | Rule::InRepeated | Rule::InRepeatedIds(_)
                ) {
                    // Every other value the run and the target offer, up to three: a filter
                    // sent only with the value the caller itself holds (its own user, its own
                    // number) cannot tell a filter from a default.
                    let others: Vec<String> =
                        sources.iter().filter_map(|(i, _)| value_of(i, f)).collect();
                    for (w, want) in self.offered(&schema, &others, &v) {
                        asks.push((with(&[(f.param.as_str(), w)]), None, want));
                    }
                    if free {
                        for near in near_misses(&v) {
                            asks.push((with(&[(f.param.as_str(), near)]), None, Want::Success));
                        }
                    } else if let Some(prefix) = id_prefix(&schema) {
                        // An id's look-alikes: a target may refuse one its kind never has (400),
                        // or that names nothing (404); what it lists, the filter admits.
                        for near in look_alike::look_alikes(&v, &prefix).into_iter().take(3) {
                            asks.push((with(&[(f.param.as_str(), near.id)]), None, Want::Either));
                        }
                    }
                }
            }
        }
        if asks.is_empty() {
            return Err(
                "no value of its filters is offered by the run, the target or the profile".into(),
            );
        }
        self.walk_asks(route, &kind, asks).await;
        Ok(())
    }

    /// Up to three values of a filter's domain (`schema`) other than `sent`, first those items
    /// showed (`shown`), then the ids the run knows that match the filter's stated pattern: the
    /// target's users and what the run made (each listed: a success), then the profile's
    /// fixtures (no key or secret; one may name another workspace's resource: a success or a
    /// refusal). None for free text (its near misses stand for the rest of its domain).
    fn offered(&self, schema: &Value, shown: &[String], sent: &str) -> Vec<(String, Want)> {
        let pattern = schema
            .get("pattern")
            .or_else(|| schema.pointer("/items/pattern"))
            .and_then(Value::as_str)
            .and_then(|p| regex::Regex::new(p).ok());
        let Some(pattern) = pattern else {
            return Vec::new();
        };
        // By name: the same seed sends the same values.
        let fixtures: BTreeMap<&String, String> = self
            .fixtures
            .iter()
            .filter(|(name, _)| !name.contains("key") && !name.contains("secret"))
            .filter_map(|(name, v)| Some((name, v.as_str()?.to_string())))
            .collect();
        let listed = shown
            .iter()
            .chain(&self.users)
            .chain(self.created.values().flatten())
            .map(|w| (w.clone(), Want::Success));
        let fixtures = fixtures.into_values().map(|w| (w, Want::Either));
        let mut out: Vec<(String, Want)> = Vec::new();
        for (w, want) in listed.chain(fixtures) {
            if out.len() == 3 {
                break;
            }
            if w != sent
                && !out.iter().any(|(o, _)| *o == w)
                && pattern.is_match(&w)
                && !w.contains(',')
            {
                out.push((w, want));
            }
        }
        out
    }

    /// Walks the list of `route` under each query of `asks`, each answer held to its want and
    /// the clause of the filter it sends; a resource of the run's own that every filter admits
    /// must be listed by a walk that ended.
    async fn walk_asks(&mut self, route: &Route, kind: &str, asks: Vec<Ask>) {
        let exec = self.exec;
        let resource = exec.contract.resources.get(kind);
        let walks = futures_util::future::join_all(asks.iter().map(|(q, own, _)| {
            walk(
                exec,
                list(route, &route.template, q.clone()),
                if own.is_some() { MAX_PAGES } else { 1 },
            )
        }))
        .await;
        for (walked, (q, own, want)) in walks.into_iter().zip(asks) {
            let listed = walked.ended.then(|| {
                walked
                    .pages
                    .iter()
                    .flat_map(|p| p.items.iter())
                    .filter_map(|i| resource?.id_of(i))
                    .collect::<BTreeSet<String>>()
            });
            let last = walked.pages.last().map(|p| p.ex.clone());
            self.absorb(walked, &want, &route.clause, kind);
            if let (Some(own), Some(listed), Some(last)) = (own, listed, last) {
                self.complete(route, kind, &own, &q, &listed, &last);
            }
        }
    }

    /// The lists that did not yet show a resource whose listing may come late, walked again a
    /// quarter second apart until they show it or the profile's `effect_seconds` have passed
    /// (READINGS 7.1); one that never does is a finding that says how long was waited.
    async fn relist(&mut self) {
        let late = std::mem::take(&mut self.late);
        if late.is_empty() {
            return;
        }
        let exec = self.exec;
        let bound = exec.effect_bound();
        let started = std::time::Instant::now();
        let mut waiting = late;
        loop {
            let walks = futures_util::future::join_all(
                waiting.iter().map(|l| walk(exec, l.out.clone(), MAX_PAGES)),
            )
            .await;
            let mut still = Vec::new();
            let mut last = Vec::new();
            for (w, l) in walks.into_iter().zip(waiting) {
                let resource = exec.contract.resources.get(&l.kind);
                let shown =
                    w.pages.iter().flat_map(|p| p.items.iter()).any(|i| {
                        resource.and_then(|r| r.id_of(i)).as_deref() == Some(l.id.as_str())
                    });
                let live = exec
                    .model
                    .view(&l.kind, &l.id)
                    .is_some_and(|v| !v.now.deleted && !v.now.unknown);
                let ended = w.ended;
                let items = w.pages.iter().map(|p| p.items.len()).sum::<usize>();
                let ex = w.pages.last().map(|p| p.ex.clone());
                self.absorb(w, &Want::Success, &l.clause, &l.kind);
                if !shown && live && ended {
                    if let Some(ex) = ex {
                        last.push((ex, items));
                        still.push(l);
                    }
                }
            }
            if still.is_empty() {
                self.close(RELISTED.into());
                return;
            }
            if started.elapsed() >= bound {
                for (l, (ex, items)) in still.into_iter().zip(last) {
                    self.now.1.push((
                        Finding::new(
                            &l.clause,
                            "filter completeness",
                            format!(
                                "the run's {} {} listed: every filter of the query admits it (listed again for {:.1} s, the profile's effect_seconds, READINGS 7.1)",
                                l.kind,
                                l.id,
                                started.elapsed().as_secs_f64()
                            ),
                            format!("a walk of {} without it", crate::results::plural(items, "item")),
                        ),
                        ex,
                    ));
                }
                self.close(RELISTED.into());
                return;
            }
            waiting = still;
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
    }

    /// A resource of the run's own that every filter of `query` admits is listed by a walk that
    /// ended (a filter "limits results to" the items it admits: those it admits are results).
    fn complete(
        &mut self,
        route: &Route,
        kind: &str,
        id: &str,
        query: &[(String, String)],
        listed: &BTreeSet<String>,
        ex: &Arc<Exchange>,
    ) {
        let Some(view) = self.exec.model.view(kind, id) else {
            return;
        };
        if view.now.deleted || view.now.unknown || listed.contains(id) {
            return;
        }
        let mut clause = None;
        for (k, _) in query {
            if k == "maxResults" || k == "pageToken" {
                continue;
            }
            let Some(f) = route.effect.filters.iter().find(|f| &f.param == k) else {
                return;
            };
            let set: Vec<String> = query
                .iter()
                .filter(|(p, _)| p == k)
                .flat_map(|(_, v)| {
                    if f.rule == Rule::InComma {
                        v.split(',').map(str::to_string).collect()
                    } else {
                        vec![v.clone()]
                    }
                })
                .collect();
            let Some(actual) = view.now.value(&f.field).as_ref().and_then(text_of) else {
                return;
            };
            if admits(&f.rule, &set, &actual) != Some(true) {
                return;
            }
            clause.get_or_insert(f.clause.clone());
        }
        let Some(clause) = clause else { return };
        if self
            .exec
            .contract
            .resources
            .get(kind)
            .is_some_and(|r| r.listed_late)
        {
            let mut out = list(route, &route.template, query.to_vec());
            out.query.retain(|(k, _)| k != "pageToken");
            self.late.push(Late {
                out,
                kind: kind.to_string(),
                id: id.to_string(),
                clause,
            });
            return;
        }
        self.now.1.push((
            Finding::new(
                &clause,
                "filter completeness",
                format!("the run's {kind} {id} listed: every filter of the query admits it"),
                format!(
                    "a walk of {} without it",
                    crate::results::plural(listed.len(), "item")
                ),
            ),
            ex.clone(),
        ));
    }

    /// Reads the resource `id` of `kind` back from every route that shows it: each generation's
    /// read, the lists of its parts, and (`lists`) each list of its kind under each filter that
    /// names it, walked; a live resource every filter admits must be listed.
    async fn read_back(&mut self, kind: &str, id: &str, lists: bool) {
        let exec = self.exec;
        let Some(view) = exec.model.view(kind, id) else {
            return;
        };
        if view.now.unknown {
            return;
        }
        let live = !view.now.deleted;
        let want = if live { Want::Success } else { Want::Either };
        let reads: Vec<&Route> = exec
            .contract
            .routes
            .iter()
            .filter(|r| r.effect.on == kind && r.effect.does == Does::Read && r.effect.id.is_some())
            .collect();
        let parts: Vec<&Route> = exec
            .contract
            .routes
            .iter()
            .filter(|r| {
                r.effect.does == Does::List
                    && r.effect.of.is_some()
                    && reads.iter().any(|read| {
                        r.template.strip_prefix(&read.template).is_some_and(|rest| {
                            rest.starts_with('/') && rest.matches('/').count() == 1
                        })
                    })
            })
            .collect();
        let mut outs: Vec<(Outgoing, Want, String)> = reads
            .iter()
            .map(|r| {
                (
                    request("GET", &Self::path(r, Some(id)), &[], None),
                    want.clone(),
                    r.clause.clone(),
                )
            })
            .collect();
        // Another resource of the kind the round holds, read beside it: a change reaches no
        // other resource (a default shared between them, a cache keyed by less than the id).
        if let (Some(other), Some(r)) = (
            self.live(kind).into_iter().rev().find(|o| o != id),
            reads.first(),
        ) {
            outs.push((
                request("GET", &Self::path(r, Some(&other)), &[], None),
                Want::Success,
                r.clause.clone(),
            ));
        }
        for r in &parts {
            let mut q = Vec::new();
            if let Some(n) = page_size(r, false) {
                q.push(("maxResults".to_string(), n));
            }
            let path = r
                .template
                .replace(&format!("{{{}}}", r.effect.of.as_deref().unwrap_or("")), id);
            let want = if live { Want::Success } else { Want::Either };
            outs.push((list(r, &path, q), want, r.clause.clone()));
        }
        let mut walks: Vec<(Outgoing, bool, String)> = Vec::new();
        if lists {
            for r in exec.contract.routes.iter().filter(|r| {
                r.effect.on == kind && r.effect.does == Does::List && r.effect.of.is_none()
            }) {
                let Ok(base) = self.query(r) else { continue };
                let mut named = false;
                for f in &r.effect.filters {
                    let Some(v) = view
                        .now
                        .value(&f.field)
                        .as_ref()
                        .and_then(text_of)
                        .filter(|v| !v.is_empty())
                    else {
                        continue;
                    };
                    if admits(&f.rule, std::slice::from_ref(&v), &v) != Some(true) {
                        continue;
                    }
                    let mut q: Vec<(String, String)> = base
                        .iter()
                        .filter(|(k, _)| *k != f.param)
                        .cloned()
                        .collect();
                    q.push((f.param.clone(), v));
                    walks.push((list(r, &r.template, q), true, r.clause.clone()));
                    named = true;
                }
                if !named {
                    walks.push((list(r, &r.template, base), false, r.clause.clone()));
                }
            }
        }
        let (sent, walked) =
            futures_util::future::join(
                futures_util::future::join_all(outs.iter().map(|(o, _, _)| exec.send(o))),
                futures_util::future::join_all(walks.iter().map(|(o, named, _)| {
                    walk(exec, o.clone(), if *named { MAX_PAGES } else { 1 })
                })),
            )
            .await;
        for (j, (_, want, clause)) in sent.into_iter().zip(&outs) {
            let (ex, by_rules) = j.into_parts();
            self.judge(&ex, by_rules, want, clause);
        }
        let resource = exec.contract.resources.get(kind);
        for (w, (out, named, clause)) in walked.into_iter().zip(walks) {
            let listed = (w.ended && named).then(|| {
                w.pages
                    .iter()
                    .flat_map(|p| p.items.iter())
                    .filter_map(|i| resource?.id_of(i))
                    .collect::<BTreeSet<String>>()
            });
            let last = w.pages.last().map(|p| p.ex.clone());
            self.absorb(w, &Want::Success, &clause, kind);
            if let (Some(listed), Some(last), true) = (listed, last, live) {
                let route = exec.contract.route("GET", &out.path);
                if let Some(route) = route {
                    self.complete(route, kind, id, &out.query, &listed, &last);
                }
            }
        }
    }
}

/// Near misses of a version date: one character more, one fewer, the date without its dashes,
/// the header with an empty value.
fn near_versions(version: &str) -> Vec<String> {
    let mut cut = version.to_string();
    cut.pop();
    vec![
        format!("{version}1"),
        cut,
        version.replace('-', ""),
        String::new(),
    ]
}

/// The instant `text` at an offset of +05:45: the same instant written otherwise.
/// The stated prefix of an id filter (a pattern of leading capitals, of the value or of its
/// items), `None` for a filter that is no id.
fn id_prefix(schema: &Value) -> Option<String> {
    let pattern = schema
        .get("pattern")
        .or_else(|| schema.pointer("/items/pattern"))?
        .as_str()?
        .strip_prefix('^')?;
    let prefix: String = pattern
        .chars()
        .take_while(char::is_ascii_uppercase)
        .collect();
    (!prefix.is_empty()).then_some(prefix)
}

/// The instants a second before and a second after `text`, in UTC, each with whether a filter
/// of `rule` bounded there admits an item at `text`.
fn a_second_apart(text: &str, rule: &Rule) -> Vec<(String, bool)> {
    use time::format_description::well_known::Rfc3339;
    let Ok(t) = time::OffsetDateTime::parse(text.trim(), &Rfc3339) else {
        return Vec::new();
    };
    let t = t.to_offset(time::UtcOffset::UTC);
    let after = matches!(rule, Rule::After | Rule::AtOrAfter);
    [
        (t - time::Duration::SECOND, after),
        (t + time::Duration::SECOND, !after),
    ]
    .into_iter()
    .filter_map(|(at, admitted)| Some((at.format(&Rfc3339).ok()?, admitted)))
    .collect()
}

fn at_other_offset(text: &str) -> Option<String> {
    use time::format_description::well_known::Rfc3339;
    let t = time::OffsetDateTime::parse(text.trim(), &Rfc3339).ok()?;
    let offset = time::UtcOffset::from_hms(5, 45, 0).ok()?;
    t.to_offset(offset).format(&Rfc3339).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The other-case near miss of a value differs from it in letter case only: a comparison
    /// that folds case takes it for the value, one that does not tells them apart.
    #[test]
    fn the_other_case_differs_in_case_only() {
        assert_eq!(swapped("Ab-1 é"), "aB-1 É");
        for v in ["ßøøΩΩЖé", "İstanbul straße", "r1-sq8 ǅ 𝄞"] {
            let other = swapped(v);
            assert_eq!(other.to_lowercase(), v.to_lowercase(), "{v} -> {other}");
            assert_eq!(other.chars().count(), v.chars().count());
        }
        assert_ne!(swapped("ßøø"), "ßøø");
    }
}
