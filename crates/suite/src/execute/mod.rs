//! Runs one case against the target: renders each step, sends it, runs the generic checks and
//! the case's expectations, saves values for later steps, and gives the verdict.

mod deliveries;
mod flights;
mod limit;
mod premises;
pub mod properties;
mod relations;
mod roundtrip;
mod search;
mod sequences;
mod setup;
mod standing;
mod stated;
pub use stated::MustAccept;
mod values;

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::cases::template::{MissingVar, TemplateError, Vars, unresolved_in, unresolved_in_value};
use crate::cases::{Case, Expect, Request, Step};
use crate::checks::deliveries::{Bounds, Slot};
use crate::checks::rules::{self, Judged, Registry};
use crate::checks::{expect, pagination};
use crate::client::{Auth, Client, Exchange, Outgoing};
use crate::results::{CaseResult, Failure, Finding, Verdict};
use conformance_contract::profile::{KNOWN_FIXTURES, Profile};
use conformance_contract::{Api, Contract};

/// Why a case stops before its steps: ignored with the reason, or failed.
#[derive(Debug, Clone)]
pub(crate) enum Stopped {
    Ignored(String),
    Failed(Vec<Failure>),
}

/// What a run gives every trial, set once when the run starts.
pub struct RunSetup {
    pub contract: Arc<Contract>,
    pub client: Arc<Client>,
    /// The target's fixtures, its key among them.
    pub profile: Profile,
    pub run_id: String,
    /// Seed of the generated inputs of properties.
    pub seed: u64,
    /// Random inputs per property and direction.
    pub property_cases: u32,
    /// Random sequences per sequence trial (`--depth`).
    pub sequence_depth: u32,
    /// The suite's webhook receiver, when a selected case needs it.
    pub receiver: Option<Arc<crate::webhooks::Receiver>>,
    /// Why the profile lacks a fixture (discovery's reasons), added to an ignored trial's reason.
    pub missing_reasons: std::collections::BTreeMap<String, String>,
    /// The rules every exchange of the run is judged by (`Registry::standard`).
    pub rules: Registry,
    /// The target is reached across a network (not the embedded reference): the trials start
    /// in the order that shortens the run's longest chain of round trips ([`crate::plan::order`]).
    pub far: bool,
}

/// Runs cases: what a run shares, read by every trial and changed by none but through the
/// cleanup's registry, the setups run once and the control reads. Each trial's own state (its
/// variables, exchanges and failures so far) lives in the calls that run it.
pub struct Executor {
    contract: Arc<Contract>,
    client: Arc<Client>,
    run_id: String,
    seed: u64,
    property_cases: u32,
    sequence_depth: u32,
    /// What the run created, deleted at its end (and on Ctrl-C).
    cleanup: Arc<crate::cleanup::Cleanup>,
    receiver: Option<Arc<crate::webhooks::Receiver>>,
    missing_reasons: std::collections::BTreeMap<String, String>,
    profile: Profile,
    /// The setups run once per run and shared by the trials that name them.
    shared: setup::Shared,
    /// The answers of the run's control reads (READINGS 6.9), shared by the trials whose
    /// control is the same GET.
    controls: Controls,
    /// The model of the target's state, fed by every exchange of the run.
    model: crate::model::Model,
    /// The rules every exchange is judged by, in `send`.
    rules: Registry,
    /// The workspace of each key of the run, read by the first trial that needs it.
    workspaces: tokio::sync::OnceCell<crate::workspaces::Workspaces>,
    /// The situations the run put each operation in.
    situations: crate::results::situations::SituationRecord,
    /// The target is reached across a network.
    far: bool,
    /// Every string the target showed (READINGS 6.12: a value a generated request may require
    /// the target to accept).
    shown: stated::Shown,
    /// The run's changes in flight, by the states they touch (READINGS 7.2).
    flights: flights::Flights,
    /// The trials' own values handed out so far (`cell` in [`Executor::vars`]).
    cells: std::sync::atomic::AtomicU64,
    /// Where the run records what it required to succeed, for a test ([`Executor::record`]).
    must_accept: Option<Arc<MustAccept>>,
}

/// Control reads by request: a control GET shows that the target serves the request as the run
/// sends it, which one answer shows for every trial whose control it is (the two versioning
/// cells of a route, the rejections of one list). It is sent once, when the first trial needs it.
type Controls =
    std::sync::Mutex<std::collections::HashMap<String, Arc<tokio::sync::OnceCell<Arc<Exchange>>>>>;

impl Executor {
    pub fn new(setup: RunSetup) -> Executor {
        Executor {
            cleanup: Arc::new(crate::cleanup::Cleanup::new(
                setup.contract.clone(),
                setup.run_id.clone(),
            )),
            client: setup.client,
            run_id: setup.run_id,
            seed: setup.seed,
            property_cases: setup.property_cases,
            sequence_depth: setup.sequence_depth,
            receiver: setup.receiver,
            missing_reasons: setup.missing_reasons,
            profile: setup.profile,
            shared: Default::default(),
            controls: Default::default(),
            model: crate::model::Model::new(setup.contract.clone()),
            rules: setup.rules,
            workspaces: Default::default(),
            situations: Default::default(),
            contract: setup.contract,
            far: setup.far,
            shown: Default::default(),
            flights: Default::default(),
            cells: Default::default(),
            must_accept: None,
        }
        .documented()
    }

    /// From now on, every generated request the run holds to a success, and every string of
    /// every success, go to `sink` (a test judges them apart from the run: READINGS 6.12).
    pub fn record(mut self, sink: Arc<MustAccept>) -> Executor {
        for v in self.profile.fixtures.values() {
            sink.document(v);
        }
        self.must_accept = Some(sink);
        self
    }

    /// `out` is held to a success: recorded where the run records it.
    pub(crate) fn held_to_success(&self, out: &Outgoing) {
        if let Some(sink) = &self.must_accept {
            sink.request(out);
        }
    }

    /// The profile's fixtures are the target's own documentation: what they name was shown.
    fn documented(self) -> Executor {
        for v in self.profile.fixtures.values() {
            self.shown.document(v);
        }
        self
    }

    /// Why the generated request `out` is not one the contract states a target accepts
    /// (READINGS 6.12), or `None` where it must be accepted.
    pub(crate) fn unstated(&self, out: &Outgoing) -> Option<String> {
        let extra: Vec<&str> = [
            "conversations_exclude_inactive_param",
            "conversations_updated_after_param",
            "conversations_updated_before_param",
        ]
        .iter()
        .filter_map(|k| self.profile.fixtures.get(*k).and_then(Value::as_str))
        .collect();
        stated::unstated(&self.contract, out, &self.shown, &extra)
    }

    /// Whether the target is reached across a network (not the embedded reference).
    pub fn far(&self) -> bool {
        self.far
    }

    /// What the run created: deleted at its end, and on Ctrl-C.
    pub fn cleanup(&self) -> &Arc<crate::cleanup::Cleanup> {
        &self.cleanup
    }

    /// The run's webhook receiver, when a selected case needs it.
    pub fn receiver(&self) -> Option<&Arc<crate::webhooks::Receiver>> {
        self.receiver.as_ref()
    }

    pub fn contract(&self) -> &Arc<Contract> {
        &self.contract
    }

    /// The situations the run put each operation in, for the reports.
    pub fn situations(&self) -> &crate::results::situations::SituationRecord {
        &self.situations
    }

    pub fn client(&self) -> &Arc<Client> {
        &self.client
    }

    /// The waiting bounds of deliveries: profile fixtures, else the README's defaults.
    fn bounds(&self) -> Bounds {
        let secs = |name: &str| self.seconds(name);
        let d = Bounds::default();
        Bounds {
            delivery: secs("webhook_delivery_seconds").unwrap_or(d.delivery),
            retry: secs("webhook_retry_seconds").unwrap_or(d.retry),
            quiet: secs("webhook_quiet_seconds").unwrap_or(d.quiet),
        }
    }

    /// The variables every case starts with: the run id and the profile's fixtures.
    pub(crate) fn vars(&self) -> Vars {
        let mut vars = Vars::default();
        vars.set("run", Value::String(self.run_id.clone()));
        // A value of each trial's own (`cell`: a word; `cell_instant`: an instant), so that
        // the changes trials send to one shared resource each change it: a change that sets
        // what another trial set already is a no-op, which a target may refuse (READINGS 6.12).
        let n = self
            .cells
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        vars.set("cell", Value::String(format!("c{n}")));
        vars.set(
            "cell_instant",
            Value::String(format!(
                "2026-09-{:02}T10:{:02}:{:02}Z",
                1 + (n / 3600) % 28,
                (n / 60) % 60,
                n % 60
            )),
        );
        for (k, v) in &self.profile.fixtures {
            vars.set(k.clone(), v.clone());
        }
        vars
    }

    /// Sends one request, the one place every exchange of a run passes: what it creates or
    /// deletes is shown to the cleanup, the model sees it, and every rule of the registry
    /// judges it. The findings of the rules judged with the answer come with it ([`Judged`]);
    /// the model's, and those of the rules judged at the end, join the trial that sent it.
    ///
    /// Body fields the profile renames (`requestFields`, READINGS 6.1) go out under the target's
    /// name only, whichever case or property built the request. The model and the rules see the
    /// request as the suite built it (before the renaming) and its answer.
    pub(crate) async fn send(&self, out: &Outgoing) -> Judged {
        let ticket = self.model.before(out);
        let renamed = self.rename_fields(out);
        let sent = renamed.as_ref().unwrap_or(out);
        let flight = self.flights.begin(&self.contract, out);
        let ex = self.client.send(sent).await;
        self.flights.end(flight, &ex);
        self.shown.observe(&ex);
        if let Some(sink) = &self.must_accept {
            sink.answer(&ex);
        }
        self.cleanup.observe(&ex);
        standing::observe(&self.contract, &ex);
        let (now, later) = self.rules.judge(&self.contract, out, &ex);
        rules::report(later, &ex);
        self.model.after(ticket, out, &ex);
        Judged::new(Arc::new(ex), now)
    }

    /// An exchange another trial sent, judged for this one: the rules judged with the answer
    /// hold it again (a shared control read is every sharing trial's answer).
    fn judged_again(&self, out: &Outgoing, ex: Arc<Exchange>) -> Judged {
        let (now, _) = self.rules.judge(&self.contract, out, &ex);
        Judged::new(ex, now)
    }

    /// The request with the profile's renamed body fields, or `None` when nothing is renamed.
    fn rename_fields(&self, out: &Outgoing) -> Option<Outgoing> {
        if self.profile.request_fields.is_empty() {
            return None;
        }
        let path = out.path.split('?').next().unwrap_or("");
        let route = self.contract.route(&out.method, path)?;
        let renames = self.profile.renamed_fields(&out.method, &route.template);
        let body = out.body.as_ref()?.as_object()?;
        if !renames.iter().any(|(from, _)| body.contains_key(*from)) {
            return None;
        }
        let mut moved = serde_json::Map::new();
        for (k, v) in body {
            let name = renames
                .iter()
                .find(|(from, _)| from == k)
                .map_or(k.as_str(), |(_, to)| to);
            moved.insert(name.to_string(), v.clone());
        }
        let mut renamed = out.clone();
        renamed.body = Some(Value::Object(moved));
        Some(renamed)
    }

    /// Sends one request: its exchange and the findings of the rules judged with the answer.
    pub(crate) async fn exchange(&self, out: &Outgoing) -> (Arc<Exchange>, Vec<Finding>) {
        self.send(out).await.into_parts()
    }

    /// Fixtures the case needs that the profile lacks, with what each must hold.
    pub(crate) fn missing_fixtures(&self, case: &Case) -> Vec<String> {
        case.fixtures
            .iter()
            .filter(|f| !self.profile.fixtures.contains_key(*f))
            .map(|f| {
                let what = KNOWN_FIXTURES
                    .iter()
                    .find(|(n, _)| n == f)
                    .map(|(_, d)| *d)
                    .unwrap_or("");
                match self.missing_reasons.get(f) {
                    Some(why) => format!("`{f}`: {what} ({why})"),
                    None => format!("`{f}`: {what}"),
                }
            })
            .collect()
    }

    /// Runs the case, unless the run is interrupted (Ctrl-C): then it does not start, or stops
    /// at its next request, and is ignored.
    pub async fn run(&self, case: &Case) -> CaseResult {
        let start = Instant::now();
        let interrupted = || CaseResult {
            verdict: Verdict::Ignored("the run was interrupted".into()),
            exchanges: Vec::new(),
            duration: start.elapsed(),
            held: Vec::new(),
        };
        if self.cleanup.is_interrupted() {
            return interrupted();
        }
        // The failures of the steps done so far: a trial that failed before the interrupt stays
        // failed.
        let so_far = std::sync::Mutex::new(Vec::new());
        let release = std::sync::Mutex::new(Vec::new());
        // The trial's future is large: boxed, the layers around it move a pointer, not it.
        let run = crate::client::with_large_body_slot(rules::collect(standing::scope(Box::pin(
            self.run_case(case, &so_far, &release),
        ))));
        let result = tokio::select! {
            (result, found) = run => with_model_findings(result, found, case),
            _ = self.cleanup.interrupted() => {
                let failed = std::mem::take(&mut *so_far.lock().unwrap_or_else(|e| e.into_inner()));
                if failed.is_empty() {
                    interrupted()
                } else {
                    CaseResult {
                        verdict: Verdict::Failed(failed),
                        exchanges: Vec::new(),
                        duration: start.elapsed(),
                        held: Vec::new(),
                    }
                }
            }
        };
        let mut result = recorded(result);
        result.held = self.held(&result);
        let release = std::mem::take(&mut *release.lock().unwrap_or_else(|e| e.into_inner()));
        // After another transport failure (a connection closed or reset) the release is bounded
        // as the run's cleanup is, and what it leaves stays in the cleanup's registry. It still
        // runs, so that a lost create's resource is found and deleted before the trial gives its
        // place in the budget back (READINGS 7.2).
        let answered = result.exchanges.iter().all(|ex| ex.outcome.is_ok());
        // A target that let a request time out may have stopped answering altogether: what
        // the trial made is then the run's cleanup's alone.
        let silent = result.exchanges.iter().any(|ex| {
            matches!(
                ex.outcome,
                Err(crate::client::TransportError::Timeout(_)
                    | crate::client::TransportError::BodyTimeout { .. })
            )
        });
        if !self.cleanup.is_interrupted() && !silent {
            if answered {
                self.release(release).await;
            } else {
                let bound = crate::cleanup::cleanup_bound(self.client.timeout());
                let _ = tokio::time::timeout(bound, self.release(release)).await;
            }
        }
        result
    }

    /// Deletes, together, what a trial created of a counted state (webhooks, open tasks) and
    /// left standing (a control's create, a setup made for the trial alone): the plan lets
    /// trials hold these side by side within a budget, counting what a trial holds until it
    /// ends, so it must not hold them longer. Sent after the trial's verdict and outside it,
    /// as the run's cleanup sends its deletes (what fails stays in the cleanup's registry).
    async fn release(&self, mut resources: Vec<String>) {
        // A create that got no answer may have made its resource (READINGS 7.2): it is found by
        // its run tag and deleted with the rest, before the trial gives its place back.
        resources.extend(
            self.cleanup
                .recover(|out| async move {
                    let (ex, _) = self.send(&out).await.into_parts();
                    ex.outcome
                        .as_ref()
                        .ok()
                        .filter(|r| (200..300).contains(&r.status))
                        .and_then(|r| r.value().cloned())
                })
                .await,
        );
        let outs: Vec<Outgoing> = resources
            .iter()
            .map(|path| crate::cleanup::delete(path))
            .collect();
        // After the verdict, outside the trial: what the rules find here reaches no verdict.
        futures_util::future::join_all(outs.iter().map(|out| self.send(out))).await;
    }

    /// The clauses the registry's rules held the trial's answers to, on the answers without a
    /// finding.
    fn held(&self, result: &CaseResult) -> Vec<String> {
        let flagged: Vec<*const Exchange> = match &result.verdict {
            Verdict::Failed(failures) => failures
                .iter()
                .filter_map(|f| f.exchange.as_ref().map(Arc::as_ptr))
                .collect(),
            _ => Vec::new(),
        };
        let mut held = std::collections::BTreeSet::new();
        for ex in result
            .exchanges
            .iter()
            .filter(|ex| !flagged.contains(&Arc::as_ptr(ex)))
        {
            held.extend(self.rules.held(&self.contract, ex));
        }
        held.into_iter().collect()
    }

    /// Runs every step of the case (or its property) and gives the verdict.
    async fn run_case(
        &self,
        case: &Case,
        so_far: &std::sync::Mutex<Vec<Failure>>,
        release: &std::sync::Mutex<Vec<String>>,
    ) -> CaseResult {
        let start = Instant::now();
        let missing = self.missing_fixtures(case);
        if !missing.is_empty() {
            return CaseResult {
                verdict: Verdict::Ignored(format!(
                    "the profile has no fixture {}",
                    missing.join("; ")
                )),
                exchanges: Vec::new(),
                duration: start.elapsed(),
                held: Vec::new(),
            };
        }
        if let Some(reason) = self.unmet_premise(case).await {
            return CaseResult {
                verdict: Verdict::Ignored(reason),
                exchanges: Vec::new(),
                duration: start.elapsed(),
                held: Vec::new(),
            };
        }
        let mut vars = self.vars();
        let mut slot = None;
        // The trial's slot at the receiver: open while the case runs, closed when this lease is
        // dropped, on every way out of this function (and when an interrupted run drops it).
        let mut _lease = None;
        if case.uses_receiver {
            let Some(receiver) = &self.receiver else {
                return CaseResult {
                    verdict: Verdict::Ignored(
                        "the case needs the webhook receiver, which this run did not start".into(),
                    ),
                    exchanges: Vec::new(),
                    duration: start.elapsed(),
                    held: Vec::new(),
                };
            };
            _lease = Some(receiver.open(&self.run_id, &case.name, &case.receiver));
            vars.set(
                "webhook_url",
                Value::String(receiver.url_for(&self.run_id, &case.name)),
            );
            slot = Some(Slot {
                receiver,
                run: &self.run_id,
                case: &case.name,
                seen: Default::default(),
            });
        }
        if let Some(property) = &case.property {
            let (failures, exchanges) =
                crate::execute::properties::run(self, case, property, vars).await;
            let verdict = if failures.is_empty() {
                Verdict::Passed
            } else {
                Verdict::Failed(failures)
            };
            return CaseResult {
                verdict,
                exchanges,
                duration: start.elapsed(),
                held: Vec::new(),
            };
        }
        let bounds = self.bounds();
        let mut exchanges = Vec::new();
        // READINGS 6.6: the resources the case names that the run makes first.
        for setup in &case.setups {
            // What a once-per-run setup makes stays for the trials after this one.
            let mark = standing::mark();
            let made = self.setup(setup, case, &vars, slot.as_mut(), &bounds).await;
            if !setup.per_trial {
                standing::forget_since(mark);
            }
            match made {
                Ok((saved, setup_exchanges)) => {
                    exchanges.extend(setup_exchanges);
                    for (k, v) in saved {
                        vars.set(k, v);
                    }
                }
                Err(Stopped::Ignored(reason)) => {
                    return CaseResult {
                        verdict: Verdict::Ignored(reason),
                        exchanges,
                        duration: start.elapsed(),
                        held: Vec::new(),
                    };
                }
                Err(Stopped::Failed(failures)) => {
                    return CaseResult {
                        verdict: Verdict::Failed(failures),
                        exchanges,
                        duration: start.elapsed(),
                        held: Vec::new(),
                    };
                }
            }
        }
        let ran = self
            .run_steps(
                case,
                &mut vars,
                slot.as_mut(),
                &bounds,
                &mut exchanges,
                Some(so_far),
            )
            .await;
        let verdict = match ran {
            Err(reason) => Verdict::Ignored(reason),
            Ok(failures) if failures.is_empty() => Verdict::Passed,
            Ok(failures) => Verdict::Failed(failures),
        };
        if let Ok(mut r) = release.lock() {
            *r = standing::take();
        }
        CaseResult {
            verdict,
            exchanges,
            duration: start.elapsed(),
            held: Vec::new(),
        }
    }

    /// Runs the steps of `case` in order: the failures (empty when every step held), or the
    /// reason the case is ignored (a precondition no fixture meets).
    async fn run_steps(
        &self,
        case: &Case,
        vars: &mut Vars,
        mut slot: Option<&mut Slot<'_>>,
        bounds: &Bounds,
        exchanges: &mut Vec<Arc<Exchange>>,
        so_far: Option<&std::sync::Mutex<Vec<Failure>>>,
    ) -> Result<Vec<Failure>, String> {
        let steps = case.steps.len();
        let mut failures: Vec<Failure> = Vec::new();
        for (i, step) in case.steps.iter().enumerate() {
            if let Some(Ok(mut s)) = so_far.map(|s| s.lock()) {
                s.clone_from(&failures);
            }
            // After a failure only cleanup steps run: later steps build on the failed one.
            let after_failure = !failures.is_empty();
            if after_failure && !step.always {
                continue;
            }
            // After a transport failure nothing runs: the target stopped answering, and what
            // the case created is the run's cleanup's, which is bounded.
            if after_failure && transport_failed(exchanges) {
                break;
            }
            let fail = |finding: Finding, exchange: Option<Arc<Exchange>>| Failure {
                finding,
                step: i + 1,
                steps,
                exchange,
                cause: None,
            };
            if let (Some(d), Some(slot)) = (&step.deliveries, slot.as_deref_mut()) {
                let found = crate::checks::deliveries::check(slot, d, vars, bounds).await;
                // Each finding cites its own clause (a delivery that does not verify breaks
                // Authentication 4 whatever the case is about), else the step's; the request
                // sent last before the wait is what caused the deliveries.
                let cause = exchanges.last().cloned();
                failures.extend(found.into_iter().map(|f| Failure {
                    cause: cause.clone(),
                    ..fail(f.citing(step.cites(case)), None)
                }));
                continue;
            }
            if let Some(pre) = step.precondition.as_ref().filter(|_| !after_failure) {
                match self.precondition(case, step, pre, vars, exchanges).await {
                    Precondition::Met => {}
                    Precondition::Gone(reason) => return Err(reason),
                    Precondition::Failed(found) => {
                        failures.extend(found.into_iter().map(|(f, ex)| fail(f, ex)))
                    }
                }
                continue;
            }
            // Side-effect watch: the listing before the step, to compare with the one after.
            let watched = match &step.unchanged {
                Some(w) => match self.listing(w, vars, exchanges).await {
                    Ok(ids) => Some(ids),
                    Err((f, ex)) => {
                        failures.push(fail(f.citing(step.cites(case)), ex));
                        continue;
                    }
                },
                None => None,
            };
            let ran = self.run_step(case, step, vars, exchanges).await;
            if let (Some(before), Some(w), Ok(found)) = (&watched, &step.unchanged, &ran) {
                if found.is_empty() {
                    let f = match self.listing(w, vars, exchanges).await {
                        Ok(after) if &after == before => None,
                        Ok(after) => {
                            let added: Vec<&String> =
                                after.iter().filter(|i| !before.contains(i)).collect();
                            let removed: Vec<&String> =
                                before.iter().filter(|i| !after.contains(i)).collect();
                            Some((
                                Finding::new(
                                    "",
                                    "side effect",
                                    format!(
                                        "GET {} lists the same items after the step as before: it changes nothing",
                                        w.path
                                    ),
                                    format!("added {added:?}, removed {removed:?}"),
                                ),
                                exchanges.last().cloned(),
                            ))
                        }
                        Err(found) => Some(found),
                    };
                    if let Some((f, ex)) = f {
                        failures.push(fail(f.citing(step.cites(case)), ex));
                    }
                }
            }
            match ran {
                Ok(found) => failures.extend(found.into_iter().map(|(mut f, ex)| {
                    if let Some(c) = &step.control_of {
                        // READINGS 6.9: the refusal before proves nothing unless this is accepted.
                        f.check = format!("control of step {}: {}", c.step + 1, f.check);
                        f.expected = format!(
                            "{}: the request of step {} without the defect under test ({}) is accepted, so its refusal was for that defect and not for something else the target wants (READINGS 6.9)",
                            f.expected,
                            c.step + 1,
                            c.change
                        );
                    }
                    fail(f, ex)
                })),
                // A cleanup step after a failure may lack what the failed step would have saved.
                Err(_) if after_failure => {}
                Err(missing) => failures.push(fail(
                    Finding::new(
                        "",
                        "template",
                        "every variable has a value",
                        missing.to_string(),
                    )
                    .citing(step.cites(case)),
                    exchanges.last().cloned(),
                )),
            }
        }
        Ok(failures)
    }

    /// A precondition step: sent for each item of its fixture until an answer meets the step's
    /// `expect`. A transport failure, a 5xx or a failed generic check is the target's failure;
    /// an answer that does not meet the expectation says the fixture is no longer in the state
    /// the case needs.
    async fn precondition(
        &self,
        case: &Case,
        step: &Step,
        pre: &crate::cases::ForEach,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Precondition {
        let items = match vars.get(&pre.list) {
            // Ids derived from one the target served (`cases::derive`): a missing resource.
            Some(Value::String(served)) if pre.derived => {
                crate::cases::derive::missing_ids(served, crate::cases::derive::TRIES)
                    .into_iter()
                    .map(Value::String)
                    .collect()
            }
            Some(Value::Array(items)) => items.clone(),
            Some(other) => vec![other.clone()],
            None => {
                return Precondition::Gone(format!("the profile has no fixture `{}`", pre.list));
            }
        };
        let mut why = Vec::new();
        for item in items {
            vars.set(pre.item.clone(), item.clone());
            let found = match self.run_once(case, step, vars, exchanges).await {
                Ok(found) => found,
                Err(missing) => {
                    return Precondition::Failed(vec![(
                        Finding::new(
                            "",
                            "template",
                            "every variable has a value",
                            missing.to_string(),
                        )
                        .citing(step.cites(case)),
                        exchanges.last().cloned(),
                    )]);
                }
            };
            let Some((first, ex)) = found.first() else {
                return Precondition::Met;
            };
            // A finding citing a clause beyond the step's is a check of the answer itself (a
            // schema, a declared status, no server error): the target failed whatever state the
            // fixture is in, and that is a verdict, not a fixture used up.
            let own = step.cites(case);
            let broken = match &ex.outcome {
                Err(_) => true,
                Ok(r) => r.status >= 500,
            } || found
                .iter()
                .any(|(f, _)| f.clauses.iter().any(|c| !own.contains(c)));
            if broken {
                return Precondition::Failed(with_exchange(found));
            }
            why.push(format!(
                "{}: {} expected {}, got {}",
                text_of(&item),
                first.check,
                first.expected,
                self.client.redactor.excerpt(&first.actual, 120)
            ));
        }
        if pre.derived {
            return Precondition::Gone(format!(
                "no id derived from `{}` ({}: same length and alphabet, characters changed) answers as a missing one must{}",
                pre.list,
                vars.get(&pre.list).map(text_of).unwrap_or_default(),
                if why.is_empty() {
                    ": it has no character that can change within its alphabet".to_string()
                } else {
                    format!(" ({})", why.join("; "))
                }
            ));
        }
        Precondition::Gone(format!(
            "precondition no longer holds: no `{}` is in the state the case needs ({}); an earlier run may have used it up: list fresh ones in the profile",
            pre.list,
            why.join("; ")
        ))
    }

    /// The names of what a side-effect watch lists (sorted), or the finding that it could not.
    async fn listing(
        &self,
        watch: &crate::cases::Watch,
        vars: &Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Result<Vec<String>, (Finding, Option<Arc<Exchange>>)> {
        let out = self
            .render_request(&watch.request(), vars)
            .map_err(|missing| {
                (
                    Finding::new(
                        "",
                        "template",
                        "every variable has a value",
                        missing.to_string(),
                    ),
                    None,
                )
            })?;
        let (ex, found) = self.exchange(&out).await;
        exchanges.push(ex.clone());
        if let Some(f) = found.into_iter().next() {
            return Err((f, Some(ex)));
        }
        let items = match &ex.outcome {
            Ok(r) if r.status == 200 => r
                .value()
                .and_then(|b| b.get("data"))
                .and_then(Value::as_array)
                .cloned(),
            _ => None,
        };
        let Some(items) = items else {
            let got = match &ex.outcome {
                Ok(r) => r.status.to_string(),
                Err(e) => e.to_string(),
            };
            return Err((
                Finding::new(
                    "",
                    "side-effect watch",
                    format!("GET {} answers 200 with a data array", watch.path),
                    got,
                ),
                Some(ex),
            ));
        };
        let mut ids: Vec<String> = items
            .iter()
            .map(|i| match i.pointer(&watch.ids) {
                Some(Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => i.to_string(),
            })
            .collect();
        ids.sort();
        Ok(ids)
    }

    /// Runs a step: once, once per item of its `for_each` list, or repeated until its `until`.
    pub(crate) async fn run_step(
        &self,
        case: &Case,
        step: &Step,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Result<Vec<(Finding, Option<Arc<Exchange>>)>, TemplateError> {
        let Some(request) = &step.request else {
            return Ok(Vec::new());
        };
        if let Some(each) = &step.for_each {
            return self.run_for_each(case, step, each, vars, exchanges).await;
        }
        if step.poll {
            return Ok(with_exchange(self.poll(case, step, vars, exchanges).await?));
        }
        let Some(repeat) = &step.repeat else {
            return Ok(with_exchange(
                self.run_once(case, step, vars, exchanges).await?,
            ));
        };
        self.run_limit(case, step, request, repeat, vars, exchanges)
            .await
    }

    /// A read of an effect that may show later: sent again, a quarter second apart, until its
    /// checks hold or the profile's `effect_seconds` have passed; the last answer is judged.
    async fn poll(
        &self,
        case: &Case,
        step: &Step,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Result<Vec<(Finding, Arc<Exchange>)>, TemplateError> {
        let bound = self.effect_bound();
        let started = Instant::now();
        loop {
            let found = self.run_once(case, step, vars, exchanges).await?;
            if found.is_empty() || transport_failed(exchanges) {
                return Ok(found);
            }
            if started.elapsed() >= bound {
                // READINGS 7.1: the bound running out says how long was waited.
                let waited = format!(
                    " (read again for {:.1} s, the profile's effect_seconds, READINGS 7.1)",
                    started.elapsed().as_secs_f64()
                );
                return Ok(found
                    .into_iter()
                    .map(|(mut f, ex)| {
                        f.expected.push_str(&waited);
                        (f, ex)
                    })
                    .collect());
            }
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
    }

    /// How long an asynchronous effect may take to show: the profile's `effect_seconds`, else 10.
    fn effect_bound(&self) -> Duration {
        self.seconds("effect_seconds")
            .map_or(Duration::from_secs(10), |d| d.min(Duration::from_secs(600)))
    }

    /// A waiting bound the profile gives in seconds (a number, or a string holding one).
    fn seconds(&self, name: &str) -> Option<Duration> {
        self.profile
            .fixtures
            .get(name)
            .and_then(|v| match v {
                Value::Number(n) => n.as_f64(),
                Value::String(s) => s.trim().parse::<f64>().ok(),
                _ => None,
            })
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(Duration::from_secs_f64)
    }

    /// Renders, sends and judges one request of a step.
    async fn run_once(
        &self,
        case: &Case,
        step: &Step,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Result<Vec<(Finding, Arc<Exchange>)>, TemplateError> {
        let Some(request) = &step.request else {
            return Ok(Vec::new());
        };
        let outgoing = self.render_request(request, vars)?;
        let judged = if step.control_of.is_some() && outgoing.method.eq_ignore_ascii_case("GET") {
            self.control_read(&outgoing).await
        } else {
            self.send(&outgoing).await
        };
        self.judge(case, step, vars, exchanges, judged, &outgoing)
            .await
    }

    /// The answer to a control GET: sent by the first trial that needs it, shared by the others,
    /// and judged for each.
    async fn control_read(&self, out: &Outgoing) -> Judged {
        let auth = match &out.auth {
            Auth::Primary => "primary".to_string(),
            Auth::None => "none".to_string(),
            Auth::NearMiss(how) => how.name().to_string(),
            // Held in memory for the run only, never shown.
            Auth::Key { key, .. } => format!("key {key}"),
        };
        let key = serde_json::json!([out.path, out.query, out.headers, auth]).to_string();
        let cell = {
            let mut controls = self.controls.lock().unwrap_or_else(|e| e.into_inner());
            controls.entry(key).or_default().clone()
        };
        let ex = cell
            .get_or_init(|| async {
                // Judged below for every trial that shares it, this one included.
                let (ex, _judged_below) = self.send(out).await.into_parts();
                ex
            })
            .await
            .clone();
        self.judged_again(out, ex)
    }

    /// The rules' findings, saves and the step's expectations on one answer.
    async fn judge(
        &self,
        case: &Case,
        step: &Step,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
        judged: Judged,
        outgoing: &Outgoing,
    ) -> Result<Vec<(Finding, Arc<Exchange>)>, TemplateError> {
        let (ex, by_rules) = judged.into_parts();
        exchanges.push(ex.clone());
        let mut found: Vec<(Finding, Arc<Exchange>)> =
            by_rules.into_iter().map(|f| (f, ex.clone())).collect();
        let Ok(resp) = &ex.outcome else {
            return Ok(found);
        };
        let body = resp.value();
        let status_ok = step
            .expect
            .status
            .as_ref()
            .map_or((200..300).contains(&resp.status), |s| s.allows(resp.status));
        if status_ok {
            for (name, pointer) in &step.save {
                match body.and_then(|b| b.pointer(pointer)) {
                    Some(v) => vars.set(name.clone(), v.clone()),
                    None => found.push((
                        Finding::new(
                            "",
                            format!("save {name}"),
                            format!("a value at {pointer} to save as `{name}`"),
                            "absent",
                        )
                        .at(pointer.clone())
                        .citing(step.cites(case)),
                        ex.clone(),
                    )),
                }
            }
        }
        if let Some(name) = step.secret.as_ref().filter(|_| status_ok) {
            // READINGS 6.2: the field the profile names, else the `whsec_` string of the answer.
            let named = self
                .profile
                .fixtures
                .get("webhook_secret_pointer")
                .and_then(Value::as_str)
                .and_then(|p| body.and_then(|b| b.pointer(p)))
                .and_then(Value::as_str)
                .map(str::to_string);
            match named.or_else(|| body.and_then(crate::checks::deliveries::find_secret)) {
                Some(secret) => {
                    self.client.redactor.secret(&secret);
                    if let Some(raw) = secret.strip_prefix("whsec_") {
                        self.client.redactor.secret(raw);
                    }
                    vars.set(name.clone(), Value::String(secret));
                }
                None => found.push((
                    Finding::new(
                        "",
                        format!("secret {name}"),
                        "a signing secret (`whsec_...`) in the answer, or at the profile's `webhook_secret_pointer`",
                        "none",
                    )
                    .citing(step.cites(case)),
                    ex.clone(),
                )),
            }
        }
        // A step held to a success whose request carries a value the contract does not state
        // as accepted and the target never showed gets either answer (READINGS 6.12): refused,
        // the generic checks judge the refusal and nothing else is asked of it.
        let held_to_success = step
            .expect
            .status
            .as_ref()
            .is_none_or(|s| !(400..500).any(|c| s.allows(c)));
        let refused = (400..500).contains(&resp.status) && !matches!(resp.status, 401 | 403);
        if held_to_success && refused && self.unstated(outgoing).is_some() {
            record_in(&ex, exchanges, &mut found);
            return Ok(found);
        }
        let expectation = render_expect(&step.expect, vars)?;
        found.extend(
            expect::check(&self.contract, &expectation, resp, step.cites(case))
                .into_iter()
                .map(|f| (f, ex.clone())),
        );
        if let Some(page) = expectation.page.as_ref().filter(|_| status_ok) {
            let route = self.contract.route(&outgoing.method, &outgoing.path);
            let limit = pagination::page_limit(route, &outgoing.query);
            let fetch = |token: String| {
                let mut next = outgoing.clone();
                next.query.retain(|(k, _)| k != "pageToken");
                next.query.push(("pageToken".to_string(), token));
                async move { self.send(&next).await.into_parts() }
            };
            // A change in flight during the walk may make it miss or repeat the item it names
            // (READINGS 7.2): such an item is not judged.
            let mark = self.flights.mark();
            let moved =
                |id: &str| route.is_some_and(|r| self.flights.moved_since(&mark, r).contains(id));
            let mut walk =
                pagination::walk(ex.clone(), fetch, limit, page, step.cites(case), &moved).await;
            self.lost_or_unlisted(outgoing, page, &mut walk).await;
            for (name, n) in &walk.tally {
                vars.set(name.clone(), Value::from(*n));
            }
            // The first page is this step's exchange, already recorded above.
            exchanges.extend(walk.exchanges.into_iter().skip(1));
            found.extend(walk.findings);
        }
        record_in(&ex, exchanges, &mut found);
        Ok(found)
    }

    pub(crate) fn render_request(
        &self,
        req: &Request,
        vars: &Vars,
    ) -> Result<Outgoing, TemplateError> {
        let mut query = Vec::new();
        for (k, v) in &req.query {
            let key = vars.render_text(k)?;
            match vars.render_value(v)? {
                Value::Array(items) => {
                    for item in items {
                        query.push((key.clone(), text_of(&item)));
                    }
                }
                other => query.push((key, text_of(&other))),
            }
        }
        let mut headers = Vec::new();
        for (k, v) in &req.headers {
            headers.push((k.clone(), text_of(&vars.render_value(v)?)));
        }
        // The generation of a request is its path's: a latest case may create through /v1.
        // How a request deviates from the stated version is read from its headers by the
        // rules (`rules::deviation_of`).
        let api = Api::of_path(&req.path);
        match req.version.as_deref() {
            Some("none") => {}
            Some(v) => headers.push(("Service-Api-Version".to_string(), vars.render_text(v)?)),
            None => headers.extend(api.headers()),
        }
        let auth = match req.auth.as_deref() {
            None => Auth::Primary,
            Some("none") => Auth::None,
            // A wrong key: the run's own without its last character, the nearest wrong key
            // there is (Authentication 3: any key the target did not issue is refused).
            Some("invalid") => Auth::NearMiss(crate::client::NearKey::Cut),
            Some(fixture) => Auth::Key {
                key: vars
                    .get(fixture)
                    .map(text_of)
                    .ok_or_else(|| MissingVar(fixture.to_string()))?,
                label: format!("<{}>", fixture.to_ascii_uppercase()),
            },
        };
        let body = req
            .body
            .as_ref()
            .map(|b| vars.render_value(b))
            .transpose()?;
        let raw_body = req
            .raw_body
            .as_ref()
            .map(|b| vars.render_text(b))
            .transpose()?;
        let out = Outgoing {
            method: req.method.clone(),
            path: vars.render_text(&req.path)?,
            query,
            headers,
            body,
            raw_body,
            auth,
        };
        // What still looks like a template after rendering is never sent.
        let left = unresolved_in(&out.path)
            .map(|t| (t, "path"))
            .or_else(|| {
                out.query
                    .iter()
                    .find_map(|(k, v)| unresolved_in(k).or_else(|| unresolved_in(v)))
                    .map(|t| (t, "query"))
            })
            .or_else(|| {
                out.headers
                    .iter()
                    .find_map(|(k, v)| unresolved_in(k).or_else(|| unresolved_in(v)))
                    .map(|t| (t, "headers"))
            })
            .or_else(|| {
                out.body
                    .as_ref()
                    .and_then(unresolved_in_value)
                    .or_else(|| out.raw_body.as_deref().and_then(unresolved_in))
                    .map(|t| (t, "body"))
            });
        if let Some((text, part)) = left {
            return Err(TemplateError::Unresolved(text, part));
        }
        Ok(out)
    }
}

/// The trial's result with the findings that joined it at its end (the model's, those of the
/// rules judged at the end, and those no sender took: a rule of the contract that an answer of
/// this trial broke, whatever the trial is about): a trial that passed or was ignored fails on
/// them.
fn with_model_findings(
    mut result: CaseResult,
    found: Vec<(Finding, Arc<Exchange>)>,
    case: &Case,
) -> CaseResult {
    if found.is_empty() {
        return result;
    }
    let steps = case.steps.len().max(1);
    let failures = found.into_iter().map(|(finding, ex)| Failure {
        finding,
        step: steps,
        steps,
        exchange: Some(ex),
        cause: None,
    });
    result.verdict = match result.verdict {
        Verdict::Failed(mut already) => {
            already.extend(failures);
            Verdict::Failed(already)
        }
        _ => Verdict::Failed(failures.collect()),
    };
    result
}

/// The result as the reports keep it: every exchange without its body ([`Exchange::recorded`]),
/// one recorded copy per exchange so that "as above" still finds the same one.
fn recorded(mut result: CaseResult) -> CaseResult {
    let mut copies: std::collections::HashMap<*const Exchange, Arc<Exchange>> = Default::default();
    let mut copy = |ex: &Arc<Exchange>| -> Arc<Exchange> {
        copies
            .entry(Arc::as_ptr(ex))
            .or_insert_with(|| Arc::new(ex.recorded()))
            .clone()
    };
    for ex in result.exchanges.iter_mut() {
        *ex = copy(ex);
    }
    if let Verdict::Failed(failures) = &mut result.verdict {
        for f in failures.iter_mut() {
            if let Some(ex) = &mut f.exchange {
                *ex = copy(ex);
            }
        }
    }
    result
}

/// Replaces `full` by its recorded copy wherever a step's list holds it: its checks are done.
fn record_in<T>(
    full: &Arc<Exchange>,
    exchanges: &mut [Arc<Exchange>],
    found: &mut [(T, Arc<Exchange>)],
) {
    let copy = Arc::new(full.recorded());
    for ex in exchanges.iter_mut().filter(|e| Arc::ptr_eq(e, full)) {
        *ex = copy.clone();
    }
    for (_, ex) in found.iter_mut().filter(|(_, e)| Arc::ptr_eq(e, full)) {
        *ex = copy.clone();
    }
}

/// What a precondition step found.
enum Precondition {
    /// An item is in the needed state (bound to the step's `as`).
    Met,
    /// None is: the case is ignored with this reason.
    Gone(String),
    /// The target failed (no answer, a 5xx): a failure like any other.
    Failed(Vec<(Finding, Option<Arc<Exchange>>)>),
}

/// Whether the last request of a trial got no complete answer.
fn transport_failed(exchanges: &[Arc<Exchange>]) -> bool {
    exchanges.last().is_some_and(|ex| ex.outcome.is_err())
}

fn with_exchange(found: Vec<(Finding, Arc<Exchange>)>) -> Vec<(Finding, Option<Arc<Exchange>>)> {
    found.into_iter().map(|(f, ex)| (f, Some(ex))).collect()
}

fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn render_expect(e: &Expect, vars: &Vars) -> Result<Expect, MissingVar> {
    let render_map =
        |m: &serde_json::Map<String, Value>| -> Result<serde_json::Map<String, Value>, MissingVar> {
            m.iter()
                .map(|(k, v)| Ok((vars.render_text(k)?, vars.render_value(v)?)))
                .collect()
        };
    let mut out = e.clone();
    out.json = render_map(&e.json)?;
    out.headers = render_map(&e.headers)?;
    if let Some(err) = &mut out.error {
        if let Some(m) = &err.message {
            err.message = Some(vars.render_value(m)?);
        }
        if let Some(c) = &err.code {
            err.code = Some(vars.render_text(c)?);
        }
        if let Some(t) = &err.title {
            err.title = Some(vars.render_text(t)?);
        }
    }
    if let Some(p) = &mut out.page {
        p.includes = p
            .includes
            .iter()
            .map(|v| vars.render_value(v))
            .collect::<Result<_, _>>()?;
        p.excludes = p
            .excludes
            .iter()
            .map(|v| vars.render_value(v))
            .collect::<Result<_, _>>()?;
        p.every = render_map(&p.every)?;
    }
    Ok(out)
}

impl Executor {
    /// A walk that did not yield an id the case expects names the rule it broke. The list seen
    /// whole in one page (the walk's only page, or one page of the same query at the largest
    /// page size whose token is null) without the id: the list did not list it, which breaks
    /// the list operation's own clause besides the step's. One page at the largest size that
    /// lists an id a walk of several pages did not yield: the walk lost it, last page where
    /// every id it lost comes after every id it yielded (a page said null before the last
    /// result), pageToken otherwise (a token did not continue where its page ended).
    async fn lost_or_unlisted(
        &self,
        outgoing: &Outgoing,
        page: &crate::cases::PageExpect,
        walk: &mut pagination::Walk,
    ) {
        const INCLUDES: &str = "page includes";
        if !walk.findings.iter().any(|(f, _)| f.check == INCLUDES) {
            return;
        }
        let Some(route) = self.contract.route(&outgoing.method, &outgoing.path) else {
            return;
        };
        let id = page.id.as_deref().unwrap_or("/id");
        let yielded: Vec<Value> = walk
            .items
            .iter()
            .filter_map(|i| i.pointer(id))
            .cloned()
            .collect();
        let missing: Vec<&Value> = page
            .includes
            .iter()
            .filter(|w| !yielded.contains(w))
            .collect();
        // Each missing id with the clause its finding leads with, or is also owed.
        let mut named: Vec<(&Value, String, bool)> = Vec::new();
        if walk.exchanges.len() < 2 {
            named.extend(missing.iter().map(|v| (*v, route.clause.clone(), false)));
        } else {
            let largest = route
                .query_param("maxResults")
                .and_then(|p| p.schema.get("maximum").and_then(Value::as_u64))
                .unwrap_or(50)
                .min(50);
            let mut one = outgoing.clone();
            one.query
                .retain(|(k, _)| k != "pageToken" && k != "maxResults");
            one.query
                .push(("maxResults".to_string(), largest.to_string()));
            // Judged as every exchange is: what the rules find on it joins the trial at its end.
            let ex = self.send(&one).await.ex.clone();
            // Recorded with the walk's pages: the step's exchanges (and a HAR) hold every
            // request the run sent.
            walk.exchanges.push(Arc::new(ex.recorded()));
            let Some(body) = ex
                .outcome
                .as_ref()
                .ok()
                .filter(|r| r.status == 200)
                .and_then(|r| r.value())
            else {
                return;
            };
            let listed: Vec<Value> = body
                .get("data")
                .and_then(Value::as_array)
                .map(|items| {
                    items
                        .iter()
                        .filter_map(|i| i.pointer(id))
                        .cloned()
                        .collect()
                })
                .unwrap_or_default();
            let whole = body.get("nextPageToken").is_some_and(Value::is_null);
            let lost: Vec<Value> = missing
                .iter()
                .filter(|w| listed.contains(w))
                .map(|w| (*w).clone())
                .collect();
            let lead = pagination::lost_rule(&listed, &yielded, &lost);
            named.extend(
                missing
                    .iter()
                    .filter(|w| listed.contains(w))
                    .map(|v| (*v, lead.to_string(), true)),
            );
            if whole {
                named.extend(
                    missing
                        .iter()
                        .filter(|w| !listed.contains(w))
                        .map(|v| (*v, route.clause.clone(), false)),
                );
            }
        }
        for (f, _) in walk
            .findings
            .iter_mut()
            .filter(|(f, _)| f.check == INCLUDES)
        {
            let Some((_, clause, lost)) = named
                .iter()
                .find(|(v, _, _)| f.expected.contains(&crate::redact::compact(v)))
            else {
                continue;
            };
            if f.clauses.contains(clause) {
                continue;
            }
            if *lost {
                // The walk lost it: the pagination rule leads.
                f.clauses.insert(0, clause.clone());
                f.actual = format!(
                    "{}; one page at the largest size lists it, so the walk lost it",
                    f.actual
                );
            } else {
                // Not listed at all: the list's own clause, after the step's.
                f.clauses.push(clause.clone());
            }
        }
    }
}
