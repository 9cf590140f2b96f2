//! Cases become trials: libtest-mimic trials for the terminal, or a plain concurrent run for the
//! suite's own tests, both in one order behind one gate. An exclusive case needs workspace-wide
//! state to itself (the webhook count, the open tasks, the conversations, ...): it starts first,
//! beside every trial that touches none of that state, and trials that touch it wait for it.
//!
//! The cases are first arranged for the profile ([`arrange`]): a setup with another in its place
//! where the profile lacks a fixture (a missing contact derived from a served id where no
//! activity hook can delete one), and the fixtures the run uses up planned. A trial that uses up
//! an instance of a fixture (a retry sends a failed message again) runs alone among the trials
//! using that fixture; where the profile lists fewer instances than trials using one, the cells
//! whose use is only their control give it up: they run first, leaving the instance as it is,
//! and the one use comes last and is their control.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::{Arc, Condvar, Mutex};

use libtest_mimic::{Completion, Failed, Trial};
use tokio::sync::Semaphore;

use crate::cases::properties::Property;
use crate::cases::template::Vars;
use crate::cases::{Case, Hold, State, Uses};
use crate::execute::Executor;
use crate::results::{CaseResult, Failure, Finding, Verdict, explain};
use conformance_contract::Contract;

/// Trials in flight when `--test-threads` is not given, and in the library's `certify_*`: they
/// wait on the network, not the CPU (measurements where the CLI sets it, `commands/run.rs`).
pub const DEFAULT_TRIALS_IN_FLIGHT: usize = 48;

/// Every trial's result, in completion order, for reports and the suite's own tests; and how
/// many are done and failed so far, for the progress of a run.
#[derive(Default)]
pub struct Recorder(
    Mutex<Vec<(Arc<Case>, CaseResult)>>,
    std::sync::atomic::AtomicUsize,
    std::sync::atomic::AtomicUsize,
);

impl Recorder {
    pub fn record(&self, case: Arc<Case>, result: CaseResult) {
        use std::sync::atomic::Ordering;
        if matches!(result.verdict, Verdict::Failed(_)) {
            self.2.fetch_add(1, Ordering::SeqCst);
        }
        self.1.fetch_add(1, Ordering::SeqCst);
        if let Ok(mut v) = self.0.lock() {
            v.push((case, result));
        }
    }

    /// Trials recorded so far, and how many of them failed.
    pub fn counts(&self) -> (usize, usize) {
        use std::sync::atomic::Ordering;
        (self.1.load(Ordering::SeqCst), self.2.load(Ordering::SeqCst))
    }

    pub fn take(&self) -> Vec<(Arc<Case>, CaseResult)> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

/// How a trial holds a state while it runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// It touches the state as the catalog's shared cases do, beside each other.
    Share,
    /// It only changes the state, beside other trials that only change it.
    Change,
    /// It needs the state to itself.
    Own,
}

impl Mode {
    fn beside(self, other: Mode) -> bool {
        matches!(
            (self, other),
            (Mode::Share, Mode::Share) | (Mode::Change, Mode::Change)
        )
    }
}

/// What a trial needs while it runs: the whole workspace (`alone`), or how it holds each state
/// it touches, and how many of a counted state's resources (webhooks, open tasks) it may hold
/// at once; and the fixture whose instance it uses up or must leave as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    pub alone: bool,
    pub states: BTreeMap<State, Mode>,
    pub holds: BTreeMap<State, u32>,
    pub fixture: Option<(String, Role)>,
}

/// How a trial holds a fixture the run uses up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// It uses an instance up: alone among the trials of that fixture, and after every trial
    /// that must leave it as it is.
    Use,
    /// It must leave the instance as it is (its control is another trial's use): beside the
    /// others that must, before the use.
    Spare,
}

impl Needs {
    /// Whether two trials may not run side by side.
    fn conflicts(&self, other: &Needs) -> bool {
        self.alone
            || other.alone
            || self
                .states
                .iter()
                .any(|(s, m)| other.states.get(s).is_some_and(|o| !m.beside(*o)))
            || matches!((&self.fixture, &other.fixture), (Some((a, r)), Some((b, o)))
                if a == b && !(*r == Role::Spare && *o == Role::Spare))
    }

    /// The fixture this trial uses up, if it does.
    fn uses(&self) -> Option<&str> {
        match &self.fixture {
            Some((f, Role::Use)) => Some(f),
            _ => None,
        }
    }

    /// The fixture this trial must leave as it is, if any.
    fn spares(&self) -> Option<&str> {
        match &self.fixture {
            Some((f, Role::Spare)) => Some(f),
            _ => None,
        }
    }
}

/// The cases of a run as the plan runs them ([`arrange`]), and how many trials of each fixture
/// must leave its instance as it is before its use may run.
pub struct Arranged {
    pub cases: Vec<Arc<Case>>,
    pub spares: BTreeMap<String, usize>,
}

/// How many instances of a fixture the profile lists: the items of a list, else one; none when
/// it lacks the fixture.
fn instances(vars: &Vars, fixture: &str) -> usize {
    match vars.get(fixture) {
        None => 0,
        Some(serde_json::Value::Array(items)) => items.len(),
        Some(_) => 1,
    }
}

/// The cases made ready for the profile (`vars`), of which those `chosen` run.
///
/// - A setup with another in its place where the profile lacks a fixture takes that other
///   (`instead:` in `src/cases/setups.yaml`).
/// - The trials that use up an instance of a fixture are planned: where the profile lists as
///   many instances as chosen trials use, each takes its own (they run one at a time, each the
///   first instance still in the needed state). Where it lists fewer, the one use is the last of
///   them that is a case's own use (else the last cell's control); every other cell whose use is
///   only its control gives it up: it runs without it, before that use, which is its control.
pub fn arrange(cases: &[Arc<Case>], chosen: &dyn Fn(&Case) -> bool, vars: &Vars) -> Arranged {
    let has = |f: &str| vars.get(f).is_some();
    let mut out: Vec<Arc<Case>> = cases
        .iter()
        .map(|c| {
            let swapped: Vec<Arc<crate::cases::Setup>> =
                c.setups.iter().map(|s| s.for_profile(&has)).collect();
            if swapped
                .iter()
                .zip(&c.setups)
                .all(|(a, b)| Arc::ptr_eq(a, b))
            {
                c.clone()
            } else {
                let mut case = (**c).clone();
                case.setups = swapped;
                Arc::new(case)
            }
        })
        .collect();
    let mut spares = BTreeMap::new();
    let fixtures: std::collections::BTreeSet<String> = out
        .iter()
        .filter_map(|c| c.uses.as_ref().map(|u| u.fixture.clone()))
        .collect();
    for fixture in fixtures {
        let users: Vec<usize> = (0..out.len())
            .filter(|&i| chosen(&out[i]))
            .filter(|&i| out[i].uses.as_ref().is_some_and(|u| u.fixture == fixture))
            .collect();
        let have = instances(vars, &fixture);
        if have == 0 || users.len() <= have {
            continue;
        }
        let by_control = |i: usize| out[i].uses.as_ref().is_some_and(|u| u.by_control);
        let Some(last) = users
            .iter()
            .rev()
            .find(|&&i| !by_control(i))
            .or(users.last())
            .copied()
        else {
            continue;
        };
        let the_use = out[last].name.clone();
        let spared: Vec<usize> = users
            .iter()
            .copied()
            .filter(|&i| i != last && by_control(i))
            .collect();
        for i in spared {
            out[i] = Arc::new(without_control(&out[i], &the_use, have));
            *spares.entry(fixture.clone()).or_insert(0) += 1;
        }
    }
    Arranged { cases: out, spares }
}

/// `case` without its control (and the steps after it, which restore what the control changed):
/// its control is the use of trial `the_use`, which runs after it.
fn without_control(case: &Case, the_use: &str, instances: usize) -> Case {
    let mut case = case.clone();
    if let Some(at) = case.steps.iter().position(|s| s.control_of.is_some()) {
        case.steps.truncate(at);
    }
    let fixture = case
        .uses
        .as_ref()
        .map(|u| u.fixture.clone())
        .unwrap_or_default();
    let spare_setups = case
        .uses
        .as_ref()
        .map(|u| u.spare_setups.clone())
        .unwrap_or_default();
    if !spare_setups.is_empty() {
        case.setups = spare_setups.clone();
    }
    case.uses = Some(Uses {
        fixture: fixture.clone(),
        by_control: true,
        control_in: Some(the_use.to_string()),
        spare_setups,
    });
    let more = format!(
        " Its control is the accepted request of {the_use}, which runs after it: the profile lists {instances} `{fixture}`, which that request uses up."
    );
    case.summary = Some(case.summary.clone().unwrap_or_default() + &more);
    case
}

/// The states a case touches: those with a route that one of its requests goes to, each with
/// whether a request reads it (`GET`) rather than only changing it.
pub(crate) fn touched(case: &Case, contract: &Contract) -> BTreeMap<State, bool> {
    let mut out = BTreeMap::new();
    for (method, path) in requests_with_setups(case) {
        let Some(route) = contract.route(method, path) else {
            continue;
        };
        for s in State::ALL {
            if s.touched_by(route) {
                let reads = out.entry(s).or_insert(false);
                *reads |= method.eq_ignore_ascii_case("GET");
            }
        }
    }
    out
}

/// The requests of a case and of the setups it names: a setup that opens a task or creates a
/// webhook may run inside the trial that first names it, so the trial touches what it touches
/// (counted per trial, though a per-run setup creates once: the cautious side).
fn requests_with_setups(case: &Case) -> Vec<(&str, &str)> {
    let mut out = case.requests();
    for setup in &case.setups {
        out.extend(setup.case.requests());
    }
    out
}

/// What `case` needs while it runs. An exclusive case holds the states it names as it names
/// them; a generated property that runs alone (it sends messages) changes the states its
/// requests touch (owns those it reads); an exclusive case that names none (`exclusive: true`)
/// has the whole workspace to itself. Every trial shares the other states its requests touch.
pub fn needs(case: &Case, contract: &Contract) -> Needs {
    Needs {
        fixture: case.uses.as_ref().map(|u| {
            let role = if u.control_in.is_some() {
                Role::Spare
            } else {
                Role::Use
            };
            (u.fixture.clone(), role)
        }),
        ..state_needs(case, contract)
    }
}

/// What `case` needs of the workspace's states.
fn state_needs(case: &Case, contract: &Contract) -> Needs {
    let touched = touched(case, contract);
    let mut states: BTreeMap<State, Mode> = touched.keys().map(|s| (*s, Mode::Share)).collect();
    if !case.exclusive {
        return Needs {
            alone: false,
            states,
            holds: holds(case, contract),
            fixture: None,
        };
    }
    if !case.needs.is_empty() {
        for (s, hold) in &case.needs {
            let mode = match hold {
                Hold::Own => Mode::Own,
                Hold::Change => Mode::Change,
            };
            states.insert(*s, mode);
        }
    } else if case.property.is_some() && !touched.is_empty() {
        for (s, reads) in &touched {
            states.insert(*s, if *reads { Mode::Own } else { Mode::Change });
        }
    } else {
        return Needs {
            alone: true,
            ..Needs::default()
        };
    }
    Needs {
        alone: false,
        states,
        // A case that holds a counted state runs without others that add to it; one that
        // changes it (a property) deletes what it makes at once.
        holds: BTreeMap::new(),
        fixture: None,
    }
}

/// How many resources of each counted state a case may hold at once: one per request that
/// adds one (a case deletes what it made at its end, a property at once).
fn holds(case: &Case, contract: &Contract) -> BTreeMap<State, u32> {
    let mut out = BTreeMap::new();
    for (method, path) in requests_with_setups(case) {
        let Some(route) = contract.route(method, path) else {
            continue;
        };
        for s in State::ALL {
            if s.added_by(route) {
                *out.entry(s).or_insert(0) += 1;
            }
        }
    }
    out
}

/// Webhooks a workspace may hold (Limits: webhooks per workspace).
const WEBHOOK_LIMIT: u32 = 50;
/// Of the webhooks the workspace may still hold, how many the run leaves free: another user of
/// the workspace may add some meanwhile.
const WEBHOOK_MARGIN: u32 = 5;

/// How many resources of each counted state the trials running together may hold. Webhooks:
/// the stated 50 less what the workspace `held` when the run started, less the webhooks the
/// run's once-per-run setups keep until its end (`standing`), less a margin of 5 for other users
/// of the workspace; at least 1 (a trial that needs more runs when no other holds any); half of
/// the 50 when the list could not be read. (Half of what is left was the budget before: behind
/// 50 ms a request, the six random sequences, four webhooks each, then waited for the webhook
/// trials of earlier waves to free theirs, and the run took 4.9-5.2 s; with what is left,
/// 4.5-4.7 s.) Open tasks: half the profile's `open_task_limit` (8 when the profile does not give
/// it).
pub(crate) fn budgets(exec: &Executor, webhooks: Option<Held>) -> BTreeMap<State, u32> {
    let open_tasks = exec
        .vars()
        .get("open_task_limit")
        .and_then(|v| match v {
            serde_json::Value::Number(n) => n.as_u64(),
            serde_json::Value::String(s) => s.trim().parse().ok(),
            _ => None,
        })
        .map_or(8, |limit| (limit / 2).max(1));
    let half = WEBHOOK_LIMIT / 2;
    let webhooks = webhooks.map_or(half, |w| {
        WEBHOOK_LIMIT
            .saturating_sub(w.held + w.standing + WEBHOOK_MARGIN)
            .max(1)
    });
    BTreeMap::from([
        (State::WebhookCount, webhooks),
        (
            State::OpenTaskCount,
            u32::try_from(open_tasks).unwrap_or(u32::MAX),
        ),
    ])
}

/// The webhooks the workspace holds when the run starts, and those the run's once-per-run
/// setups will keep standing until its end.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Held {
    held: u32,
    standing: u32,
}

/// What the webhook budget depends on, where a trial of `cases` will hold webhooks: the items
/// of `GET /webhooks` (all of them: the list is not paginated), and the once-per-run setups of
/// `cases` that create one. `None` when no trial will hold any, or the list could not be read.
pub(crate) async fn held_webhooks(exec: &Executor, cases: &[Arc<Case>]) -> Option<Held> {
    let contract = exec.contract();
    let adds = |c: &Case| holds(c, contract).contains_key(&State::WebhookCount);
    if !cases.iter().any(|c| adds(c)) {
        return None;
    }
    let standing: BTreeSet<&str> = cases
        .iter()
        .flat_map(|c| c.setups.iter())
        .filter(|s| !s.per_trial && adds(&s.case))
        .map(|s| s.name.as_str())
        .collect();
    let out = crate::client::Outgoing {
        method: "GET".into(),
        path: "/webhooks".into(),
        query: Vec::new(),
        headers: conformance_contract::Api::Latest.headers(),
        body: None,
        raw_body: None,
        auth: crate::client::Auth::Primary,
    };
    // Before the first trial: what the rules find here reaches no verdict.
    let judged = exec.send(&out).await;
    let resp = judged.ex.outcome.as_ref().ok()?;
    if !(200..300).contains(&resp.status) {
        return None;
    }
    let body = resp.json.as_ref()?.as_ref().ok()?;
    let items = body.get("data")?.as_array()?;
    Some(Held {
        held: u32::try_from(items.len()).ok()?,
        standing: u32::try_from(standing.len()).ok()?,
    })
}

/// The order every run starts its trials in, for users (libtest) and the suite's own tests
/// alike. Exclusive cases come first, in waves: each wave takes, in catalog order, every case left
/// that conflicts with none already in it, so the cases of one wave run together and a wave
/// waits only on earlier ones. Then the shared cases, in an order for where the target is (`far`:
/// across a network), as the comments below say; by the last wave they wait for, those that
/// conflict with no exclusive case first (they run beside them). A trial that
/// waits at the gate holds its thread: met early, it would idle a thread that a trial free to
/// run could use.
pub fn order(cases: &[Arc<Case>], contract: &Contract, far: bool) -> Vec<Arc<Case>> {
    let needs: Vec<Needs> = cases.iter().map(|c| needs(c, contract)).collect();
    let mut wave: Vec<Option<usize>> = vec![None; cases.len()];
    let mut left: Vec<usize> = (0..cases.len()).filter(|&i| cases[i].exclusive).collect();
    let exclusive = left.clone();
    let mut w = 0;
    while !left.is_empty() {
        let mut this: Vec<usize> = Vec::new();
        left.retain(|&i| {
            if this.iter().any(|&j| needs[j].conflicts(&needs[i])) {
                return true;
            }
            this.push(i);
            wave[i] = Some(w);
            false
        });
        w += 1;
    }
    // A shared case waits for the last wave that holds a case it conflicts with.
    for i in (0..cases.len()).filter(|&i| !cases[i].exclusive) {
        wave[i] = exclusive
            .iter()
            .filter(|&&j| needs[j].conflicts(&needs[i]))
            .filter_map(|&j| wave[j])
            .max();
    }
    let mut order: Vec<usize> = (0..cases.len()).collect();
    let property = |i: usize| cases[i].property.as_deref();
    let holds_webhooks = |i: usize| needs[i].holds.contains_key(&State::WebhookCount);
    // Stable. After the exclusive trials, the shared ones:
    // - near (the embedded reference, where the run is bound by the processor and memory): the
    //   relations, read-only and long, which wait for no wave; then the others by the last wave
    //   they wait for, the random sequences first within a wave (the longest trials), then the
    //   catalog's order. The sequences come after the task trials of earlier waves: beside
    //   them, their watchers, which hear every task event, would keep those trials' deliveries
    //   too (a third more memory);
    // - far (a target across a network, where the run is bound by its longest chain of round
    //   trips): first the trials that hold webhooks, which run while the sequences still wait
    //   for the exclusive trials they conflict with (the sequences then hold nearly the whole
    //   webhook budget, and these would otherwise run one after another at the run's tail),
    //   then the sequences and the relations, then the others by wave.
    order.sort_by_key(|&i| {
        let relation = matches!(property(i), Some(Property::Relations(_)));
        let sequence = matches!(property(i), Some(Property::Sequence { .. }));
        let by_wave = 2 + wave[i].map_or(0, |w| w + 1);
        let group = match (far, relation || sequence, holds_webhooks(i)) {
            (false, _, _) if relation => 0,
            (false, _, _) => by_wave,
            (true, true, _) => 1,
            (true, false, true) => 0,
            (true, false, false) => by_wave,
        };
        (!cases[i].exclusive, group, !sequence)
    });
    // A use comes after every trial that must leave its fixture as it is: it waits for them at
    // the gate, so it must not hold a thread they need to start.
    for (i, n) in needs.iter().enumerate() {
        let Some(fixture) = n.uses() else {
            continue;
        };
        let at = |j: usize| order.iter().position(|&k| k == j).unwrap_or(0);
        let last_spare = (0..cases.len())
            .filter(|&j| needs[j].spares() == Some(fixture))
            .map(at)
            .max();
        if let Some(last) = last_spare.filter(|&l| l > at(i)) {
            let from = at(i);
            order.remove(from);
            order.insert(last, i);
        }
    }
    order.into_iter().map(|i| cases[i].clone()).collect()
}

/// Lets trials run side by side only where their needs do not conflict, and the resources of a
/// counted state they hold stay within its budget. A trial enters when it conflicts with no
/// trial running and with no trial that came to the gate before it and still waits, and when
/// what it holds fits beside what those hold: among trials that conflict, the one earlier in the
/// order goes first, and none waits for ever.
#[derive(Default)]
pub(crate) struct Gate {
    queue: Mutex<Queue>,
    turn: Condvar,
    /// Most resources of each counted state held at once; none: no bound.
    budgets: BTreeMap<State, u32>,
}

#[derive(Default)]
struct Queue {
    next: u64,
    waiting: Vec<(u64, Needs)>,
    running: Vec<(u64, Needs)>,
    /// Per fixture, the trials that must leave its instance as it is and are not done yet: its
    /// use waits for them ([`Arranged::spares`]).
    spares: BTreeMap<String, usize>,
}

impl Queue {
    /// Whether trial `id`, waiting with `needs`, conflicts with a running trial or with one that
    /// waits before it.
    fn conflicted(&self, id: u64, needs: &Needs) -> bool {
        self.running.iter().any(|(_, r)| r.conflicts(needs))
            || self
                .waiting
                .iter()
                .any(|(w, n)| *w < id && n.conflicts(needs))
    }
}

/// A trial's place inside the gate; leaving it lets the trials that wait on it in.
pub struct Inside<'a> {
    gate: &'a Gate,
    id: u64,
}

impl Drop for Inside<'_> {
    fn drop(&mut self) {
        let mut q = self.gate.lock();
        let spared = q
            .running
            .iter()
            .find(|(id, _)| *id == self.id)
            .and_then(|(_, n)| n.spares().map(str::to_string));
        if let Some(left) = spared.and_then(|f| q.spares.get_mut(&f)) {
            *left = left.saturating_sub(1);
        }
        q.running.retain(|(id, _)| *id != self.id);
        drop(q);
        self.gate.turn.notify_all();
    }
}

impl Gate {
    /// A gate that keeps what trials hold of each counted state within `budgets`.
    pub fn new(budgets: BTreeMap<State, u32>) -> Gate {
        Gate {
            budgets,
            ..Gate::default()
        }
    }

    /// This gate, where the use of each fixture waits for `spares` trials that must leave its
    /// instance as it is.
    pub fn with_spares(self, spares: BTreeMap<String, usize>) -> Gate {
        if let Ok(mut q) = self.queue.lock() {
            q.spares = spares;
        }
        self
    }

    /// Whether `needs` (trial `id`) fits beside what the running trials and the trials waiting
    /// before it for the budget hold. A trial that needs more than a budget runs when nothing
    /// else holds any. A trial that waits on a conflict reserves nothing meanwhile: it could
    /// not run anyway, and what it would hold would only keep others waiting (a random sequence
    /// queued early waits for the limit trials, and must not hold up everything that creates a
    /// webhook or a task until they end); once nothing conflicts with it, it reserves what it
    /// holds, so that no stream of smaller trials keeps it waiting for ever.
    fn fits(&self, q: &Queue, id: u64, needs: &Needs) -> bool {
        needs.holds.iter().all(|(state, n)| {
            let Some(budget) = self.budgets.get(state) else {
                return true;
            };
            let running: u32 = q
                .running
                .iter()
                .filter_map(|(_, r)| r.holds.get(state))
                .sum();
            let reserved: u32 = q
                .waiting
                .iter()
                .filter(|(w, _)| *w < id)
                .filter_map(|(w, r)| Some((*w, r, r.holds.get(state)?)))
                .filter(|(w, r, _)| !q.conflicted(*w, r))
                .map(|(_, _, n)| *n)
                .sum();
            let held = running + reserved;
            held == 0 || held + n <= *budget
        })
    }

    /// The queue; a trial that panicked inside the gate is over, so a poisoned lock is taken all
    /// the same.
    fn lock(&self) -> std::sync::MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks until a trial with `needs` may run.
    pub(crate) fn enter(&self, needs: &Needs) -> Inside<'_> {
        let mut q = self.lock();
        // A use waits for the trials that must leave its fixture as it is before it queues, so
        // that it holds up none of them meanwhile.
        if let Some(fixture) = needs.uses() {
            while q.spares.get(fixture).is_some_and(|n| *n > 0) {
                q = self.turn.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        }
        let id = q.next;
        q.next += 1;
        q.waiting.push((id, needs.clone()));
        loop {
            let blocked = q.conflicted(id, needs) || !self.fits(&q, id, needs);
            if !blocked {
                q.waiting.retain(|(w, _)| *w != id);
                q.running.push((id, needs.clone()));
                return Inside { gate: self, id };
            }
            q = self.turn.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// Runs one trial to its verdict on the calling thread (blocking on `rt`), behind the gate. A
/// panic of the suite while it runs is a failed trial that says so, never a lost one.
pub(crate) fn run_trial(
    case: &Arc<Case>,
    exec: &Executor,
    rt: &tokio::runtime::Handle,
    gate: &Gate,
) -> CaseResult {
    let run = || {
        let _held = gate.enter(&needs(case, exec.contract()));
        rt.block_on(exec.run(case))
    };
    guarded(case, run)
}

/// `run`'s result, or a failed verdict that says the suite panicked.
fn guarded(case: &Case, run: impl FnOnce() -> CaseResult) -> CaseResult {
    let started = std::time::Instant::now();
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(run)) {
        Ok(result) => result,
        Err(payload) => {
            let why = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "a panic without a message".to_string());
            CaseResult {
                verdict: Verdict::Failed(vec![Failure {
                    finding: Finding::new(
                        "",
                        "trial",
                        "the trial runs to its verdict",
                        format!("the suite panicked: {why}"),
                    )
                    .with_clauses(&case.clauses),
                    step: 1,
                    steps: case.steps.len().max(1),
                    exchange: None,
                    cause: None,
                }]),
                exchanges: Vec::new(),
                duration: started.elapsed(),
                held: Vec::new(),
            }
        }
    }
}

/// The libtest-mimic trials of a run, arranged for the profile ([`arrange`]; `chosen`: the names
/// libtest will run, of which the planned uses count), in [`order`]. Each trial blocks on the
/// shared runtime.
pub fn trials(
    cases: &[Arc<Case>],
    chosen: &HashSet<String>,
    exec: Arc<Executor>,
    rt: tokio::runtime::Handle,
    recorder: Arc<Recorder>,
) -> Vec<Trial> {
    let arranged = arrange(cases, &|c| chosen.contains(&c.name), &exec.vars());
    let held = rt.block_on(held_webhooks(&exec, &arranged.cases));
    let gate = Arc::new(Gate::new(budgets(&exec, held)).with_spares(arranged.spares));
    order(&arranged.cases, exec.contract(), exec.far())
        .into_iter()
        .map(|case| {
            let (exec, rt, recorder, gate) =
                (exec.clone(), rt.clone(), recorder.clone(), gate.clone());
            let name = case.name.clone();
            Trial::ignorable_test(name, move || {
                let result = run_trial(&case, &exec, &rt, &gate);
                let outcome = match &result.verdict {
                    Verdict::Passed => Ok(Completion::Completed),
                    Verdict::Ignored(reason) => Ok(Completion::ignored_with(reason)),
                    Verdict::Failed(failures) => Err(Failed::from(explain::render(
                        &case,
                        failures,
                        &exec.client().redactor,
                    ))),
                };
                recorder.record(case, result);
                outcome
            })
        })
        .collect()
}

/// Runs every case without libtest, as [`trials`] does: in [`order`], `concurrency` at a time,
/// behind the same gate. Every case gets a result, in completion order.
pub async fn run_all(
    cases: &[Arc<Case>],
    exec: Arc<Executor>,
    concurrency: usize,
) -> Vec<(Arc<Case>, CaseResult)> {
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let handle = tokio::runtime::Handle::current();
    let arranged = arrange(cases, &|_| true, &exec.vars());
    let held = held_webhooks(&exec, &arranged.cases).await;
    let gate = Arc::new(Gate::new(budgets(&exec, held)).with_spares(arranged.spares));
    let mut set = tokio::task::JoinSet::new();
    for case in order(&arranged.cases, exec.contract(), exec.far()) {
        // A property holds proptest's value tree (not `Send`) across requests, so each case runs
        // on a blocking thread of its own that drives its future; the permit bounds how many.
        let permit = permits
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let (exec, handle, gate) = (exec.clone(), handle.clone(), gate.clone());
        set.spawn_blocking(move || {
            let result = run_trial(&case, &exec, &handle, &gate);
            drop(permit);
            (case, result)
        });
    }
    let mut out = Vec::new();
    while let Some(joined) = set.join_next().await {
        // `run_trial` turns a panic into a failed trial; a join error is a bug of this function.
        out.push(joined.expect("a trial's thread ends with its result"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_contract::Contract;

    fn case(exclusive: bool, id: &str) -> Arc<Case> {
        case_with(
            &exclusive.to_string(),
            id,
            "{ method: GET, path: /v1/contacts }",
        )
    }

    /// A case with `exclusive: <exclusive>` sending `request` (YAML).
    fn case_with(exclusive: &str, id: &str, request: &str) -> Arc<Case> {
        let text = format!(
            "area: a\napi: v1\ncases:\n  - id: {id}\n    clause: \"Errors > Rules > 2\"\n    exclusive: {exclusive}\n    request: {request}\n"
        );
        let contract = Contract::embedded().expect("contract");
        let mut cases =
            crate::cases::load_sources(&[("a.yaml".into(), text)], &contract).expect("case loads");
        Arc::new(cases.remove(0))
    }

    fn names(cases: &[Arc<Case>]) -> Vec<String> {
        let contract = Contract::embedded().expect("contract");
        order(cases, &contract, false)
            .iter()
            .map(|c| c.name.clone())
            .collect()
    }

    const HOOK: &str = "{ method: POST, path: /webhooks, body: { url: \"http://x.test\" } }";
    const SEND: &str = "{ method: POST, path: /v1/messages, body: { text: x } }";

    #[test]
    fn a_panicking_trial_is_a_failed_trial_that_says_so() {
        let c = case(false, "boom");
        let result = guarded(&c, || panic!("boom at step 2"));
        let Verdict::Failed(failures) = &result.verdict else {
            panic!("a panic gave {:?}", result.verdict);
        };
        assert_eq!(failures[0].finding.check, "trial");
        assert!(
            failures[0]
                .finding
                .actual
                .contains("the suite panicked: boom at step 2"),
            "{:?}",
            failures[0].finding
        );
        assert_eq!(failures[0].finding.clauses, c.clauses);
    }

    #[test]
    fn exclusive_cases_come_first_in_the_one_order() {
        let cases = vec![
            case(false, "a"),
            case(true, "b"),
            case(false, "c"),
            case(true, "d"),
        ];
        assert_eq!(names(&cases), ["v1.a.b", "v1.a.d", "v1.a.a", "v1.a.c"]);
    }

    fn states(pairs: &[(State, Mode)]) -> BTreeMap<State, Mode> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn a_case_needs_what_it_names_and_shares_what_its_requests_touch() {
        let contract = Contract::embedded().expect("contract");
        let of =
            |exclusive: &str, request: &str| needs(&case_with(exclusive, "c", request), &contract);
        assert_eq!(
            of("[webhook-count]", HOOK).states,
            states(&[
                (State::WebhookCount, Mode::Own),
                (State::InboundMessages, Mode::Share)
            ])
        );
        assert_eq!(
            of("[messages]", SEND).states,
            states(&[
                (State::Messages, Mode::Own),
                (State::Conversations, Mode::Share)
            ])
        );
        assert_eq!(
            of("{ changes: [messages, conversations] }", SEND).states,
            states(&[
                (State::Messages, Mode::Change),
                (State::Conversations, Mode::Change)
            ])
        );
        assert_eq!(
            of("{ needs: [conversations], changes: [messages] }", SEND).states,
            states(&[
                (State::Messages, Mode::Change),
                (State::Conversations, Mode::Own)
            ])
        );
        assert_eq!(
            of("false", HOOK).states,
            states(&[
                (State::WebhookCount, Mode::Share),
                (State::InboundMessages, Mode::Share)
            ])
        );
        let delete = "{ method: DELETE, path: \"/webhooks/{{webhook_id}}\" }";
        assert_eq!(
            of("false", delete).states,
            states(&[(State::WebhookCount, Mode::Share)])
        );
        assert_eq!(
            of("false", HOOK).holds,
            BTreeMap::from([(State::WebhookCount, 1)])
        );
        assert!(needs(&case(true, "alone"), &contract).alone);
        assert_eq!(needs(&case(false, "free"), &contract), Needs::default());
    }

    #[test]
    fn trials_that_only_change_a_state_run_beside_each_other_not_beside_its_readers() {
        let of = |pairs: &[(State, Mode)]| Needs {
            alone: false,
            states: states(pairs),
            ..Needs::default()
        };
        let change = of(&[(State::Messages, Mode::Change)]);
        let own = of(&[(State::Messages, Mode::Own)]);
        let share = of(&[(State::Messages, Mode::Share)]);
        let elsewhere = of(&[(State::WebhookCount, Mode::Own)]);
        assert!(!change.conflicts(&change));
        assert!(!share.conflicts(&share));
        assert!(change.conflicts(&share) && share.conflicts(&change));
        assert!(own.conflicts(&own) && own.conflicts(&change) && own.conflicts(&share));
        assert!(!own.conflicts(&elsewhere) && !own.conflicts(&Needs::default()));
        let alone = Needs {
            alone: true,
            ..Needs::default()
        };
        assert!(alone.conflicts(&Needs::default()));
    }

    #[test]
    fn disjoint_exclusive_cases_take_turns_and_touching_cases_come_last() {
        let cases = vec![
            case_with("false", "hook", HOOK),
            case_with("[messages]", "send-one", SEND),
            case(false, "contacts"),
            case_with("[conversations]", "send-two", SEND),
            case_with("[webhook-count]", "limit", HOOK),
        ];
        assert_eq!(
            names(&cases),
            [
                // send-two conflicts with send-one (both send): its group's second turn.
                "v1.a.send-one",
                "v1.a.limit",
                "v1.a.send-two",
                "v1.a.contacts",
                "v1.a.hook",
            ]
        );
    }

    /// Across a network, the shared trials that hold webhooks start first among the shared
    /// ones: they run while the exclusive trials still hold the sequences back.
    #[test]
    fn far_from_the_target_webhook_holders_lead_the_shared_trials() {
        let cases = vec![
            case(false, "contacts"),
            case_with("false", "hook", HOOK),
            case_with("[messages]", "send-one", SEND),
        ];
        let contract = Contract::embedded().expect("contract");
        let names = |far: bool| -> Vec<String> {
            order(&cases, &contract, far)
                .iter()
                .map(|c| c.name.clone())
                .collect()
        };
        assert_eq!(names(true), ["v1.a.send-one", "v1.a.hook", "v1.a.contacts"]);
        assert_eq!(
            names(false),
            ["v1.a.send-one", "v1.a.contacts", "v1.a.hook"]
        );
    }

    /// Waits at most `ms` for a trial with `needs` to enter the gate on another thread; true
    /// when it did. The thread is left to enter later and is joined by `finish`.
    fn enters_within(
        gate: &Arc<Gate>,
        needs: Needs,
        ms: u64,
    ) -> (bool, std::thread::JoinHandle<()>) {
        let (tx, rx) = std::sync::mpsc::channel();
        let gate = gate.clone();
        let thread = std::thread::spawn(move || {
            let _inside = gate.enter(&needs);
            let _ = tx.send(());
        });
        let entered = rx
            .recv_timeout(std::time::Duration::from_millis(ms))
            .is_ok();
        (entered, thread)
    }

    /// Trials whose needs are disjoint are inside the gate together; one that touches a state
    /// another owns waits until that one is done; trials that only change a state are inside
    /// together, a reader of it waits for them.
    #[test]
    fn the_gate_lets_disjoint_needs_run_side_by_side() {
        let gate = Arc::new(Gate::default());
        let of = |pairs: &[(State, Mode)]| Needs {
            alone: false,
            states: states(pairs),
            ..Needs::default()
        };
        let webhooks = gate.enter(&of(&[(State::WebhookCount, Mode::Own)]));
        let (entered, t) = enters_within(&gate, of(&[(State::OpenTaskCount, Mode::Own)]), 5000);
        assert!(entered, "a disjoint trial waited");
        t.join().expect("no panic");
        let reader = of(&[
            (State::WebhookCount, Mode::Share),
            (State::Messages, Mode::Share),
        ]);
        let (entered, t) = enters_within(&gate, reader, 200);
        assert!(
            !entered,
            "a trial touching the webhook count ran beside its owner"
        );
        drop(webhooks);
        t.join().expect("the reader enters once the owner is done");

        let first = gate.enter(&of(&[(State::Messages, Mode::Change)]));
        let (entered, t) = enters_within(&gate, of(&[(State::Messages, Mode::Change)]), 5000);
        assert!(
            entered,
            "two trials that only change messages waited on each other"
        );
        t.join().expect("no panic");
        let (entered, t) = enters_within(&gate, of(&[(State::Messages, Mode::Share)]), 200);
        assert!(
            !entered,
            "a reader of messages ran beside a trial changing them"
        );
        drop(first);
        t.join().expect("the reader enters once the change is done");

        let alone = gate.enter(&Needs {
            alone: true,
            ..Needs::default()
        });
        let (entered, t) = enters_within(&gate, Needs::default(), 200);
        assert!(!entered, "a trial ran beside one that runs alone");
        drop(alone);
        t.join().expect("runs after the one that runs alone");
    }

    /// Trials that each hold a few open tasks run together only while what they hold stays
    /// within the budget; a later one does not take the place an earlier waiting one needs.
    #[test]
    fn the_gate_keeps_what_trials_hold_within_the_budget() {
        let gate = Arc::new(Gate::new(BTreeMap::from([(State::OpenTaskCount, 3)])));
        let holding = |n: u32| Needs {
            states: states(&[(State::OpenTaskCount, Mode::Share)]),
            holds: BTreeMap::from([(State::OpenTaskCount, n)]),
            ..Needs::default()
        };
        let two = gate.enter(&holding(2));
        let (entered, t) = enters_within(&gate, holding(1), 5000);
        assert!(entered, "1 beside 2 fits a budget of 3");
        t.join().expect("no panic");
        let (entered, waiting) = enters_within(&gate, holding(2), 200);
        assert!(!entered, "2 beside 2 went past a budget of 3");
        let (entered, later) = enters_within(&gate, holding(1), 200);
        assert!(
            !entered,
            "a later trial took the place an earlier one waits for"
        );
        drop(two);
        waiting.join().expect("enters once the first is done");
        later.join().expect("then the later one");
        // More than the budget: runs when nothing else holds any.
        let (entered, t) = enters_within(&gate, holding(5), 5000);
        assert!(entered);
        t.join().expect("no panic");
    }

    /// A trial that waits on a conflict reserves none of the budget meanwhile: a later trial
    /// that fits beside the running ones goes in. Once nothing conflicts with it, it reserves
    /// what it holds again, and a later trial does not take its place.
    #[test]
    fn a_trial_waiting_on_a_conflict_reserves_no_budget() {
        let gate = Arc::new(Gate::new(BTreeMap::from([(State::OpenTaskCount, 3)])));
        let holding = |n: u32, extra: &[(State, Mode)]| {
            let mut pairs = vec![(State::OpenTaskCount, Mode::Share)];
            pairs.extend_from_slice(extra);
            Needs {
                states: states(&pairs),
                holds: BTreeMap::from([(State::OpenTaskCount, n)]),
                ..Needs::default()
            }
        };
        let owner = gate.enter(&Needs {
            states: states(&[(State::TaskList, Mode::Own)]),
            ..Needs::default()
        });
        let one = gate.enter(&holding(1, &[]));
        // Waits for the owner: it would hold 2, which fits beside 1.
        let (entered, blocked) =
            enters_within(&gate, holding(2, &[(State::TaskList, Mode::Share)]), 200);
        assert!(!entered, "a trial ran beside one that owns what it touches");
        let (entered, t) = enters_within(&gate, holding(2, &[]), 5000);
        assert!(
            entered,
            "a trial that waits on a conflict kept the budget from a later one that fits"
        );
        t.join().expect("no panic");
        // It fits (it entered and left): now it stays inside, 3 of 3 held.
        let two = gate.enter(&holding(2, &[]));
        let (entered, later) = enters_within(&gate, holding(1, &[]), 200);
        assert!(!entered, "3 + 1 went past a budget of 3");
        // Nothing conflicts with the first waiting trial now: it reserves its 2, and a later
        // trial of 1 (1 of 3 free once `one` leaves) waits behind it.
        drop(owner);
        drop(one);
        let (entered, third) = enters_within(&gate, holding(1, &[]), 200);
        assert!(
            !entered,
            "a later trial took the place of one that waits only for the budget"
        );
        drop(two);
        blocked
            .join()
            .expect("enters once the owner is done and the budget allows");
        later.join().expect("then the later ones");
        third.join().expect("no panic");
    }

    /// Among trials that conflict, the one that came to the gate first goes first: a later
    /// reader does not overtake a waiting owner.
    #[test]
    fn the_gate_lets_conflicting_trials_in_in_their_order() {
        let gate = Arc::new(Gate::default());
        let of = |mode: Mode| Needs {
            alone: false,
            states: states(&[(State::Conversations, mode)]),
            ..Needs::default()
        };
        let reader = gate.enter(&of(Mode::Share));
        let (entered, owner) = enters_within(&gate, of(Mode::Own), 200);
        assert!(!entered);
        let (entered, late) = enters_within(&gate, of(Mode::Share), 200);
        assert!(
            !entered,
            "a later reader overtook the owner waiting before it"
        );
        drop(reader);
        owner.join().expect("the owner enters first");
        late.join().expect("then the later reader");
    }

    /// The catalog arranged for a profile with these fixtures.
    fn arranged(fixtures: &[(&str, serde_json::Value)]) -> (Arc<Contract>, Arranged) {
        let (contract, cases) = crate::catalog::load(None).expect("the catalog loads");
        let mut vars = Vars::default();
        for (k, v) in fixtures {
            vars.set(*k, v.clone());
        }
        let arranged = arrange(&cases, &|_| true, &vars);
        (contract, arranged)
    }

    const RETRY: &str = "latest.messages.retry.failed-is-reattempted";
    const CELLS: [&str; 2] = [
        "latest.versioning.POST-messages-messageId-retry.no-version",
        "latest.versioning.POST-messages-messageId-retry.other-version",
    ];

    /// With one failed message in the profile, the retry's versioning cells give up their
    /// control (the retry case's retry is it) and come before the retry case, which waits for
    /// them; with one for each use, every trial keeps its own.
    #[test]
    fn a_fixture_with_fewer_instances_than_uses_is_used_last_and_once() {
        use serde_json::json;
        let (contract, one) = arranged(&[("sandbox_failed_message_id", json!("AC1"))]);
        let find =
            |a: &Arranged, name: &str| a.cases.iter().find(|c| c.name == name).expect(name).clone();
        assert_eq!(
            one.spares,
            BTreeMap::from([("sandbox_failed_message_id".to_string(), 2)])
        );
        for cell in CELLS {
            let c = find(&one, cell);
            assert!(c.steps.iter().all(|s| s.control_of.is_none()), "{cell}");
            let setups: Vec<&str> = c.setups.iter().map(|s| s.name.as_str()).collect();
            assert_eq!(setups, ["spared_failed_message"], "{cell}");
            assert_eq!(
                c.uses.as_ref().and_then(|u| u.control_in.as_deref()),
                Some(RETRY)
            );
            assert_eq!(
                needs(&c, &contract).fixture,
                Some(("sandbox_failed_message_id".to_string(), Role::Spare))
            );
        }
        let retry = find(&one, RETRY);
        assert_eq!(
            needs(&retry, &contract).fixture,
            Some(("sandbox_failed_message_id".to_string(), Role::Use))
        );
        let names: Vec<String> = order(&one.cases, &contract, false)
            .iter()
            .map(|c| c.name.clone())
            .collect();
        let at = |n: &str| names.iter().position(|x| x == n).expect(n);
        assert!(CELLS.iter().all(|c| at(c) < at(RETRY)), "{names:?}");

        let (_, three) = arranged(&[("sandbox_failed_message_id", json!(["AC1", "AC2", "AC3"]))]);
        assert!(three.spares.is_empty());
        for cell in CELLS {
            let c = find(&three, cell);
            assert!(c.steps.iter().any(|s| s.control_of.is_some()), "{cell}");
            assert_eq!(
                needs(&c, &contract).fixture,
                Some(("sandbox_failed_message_id".to_string(), Role::Use))
            );
        }
        // Only the trials chosen count: one cell alone keeps its control.
        let (_, cases) = crate::catalog::load(None).expect("the catalog loads");
        let mut vars = Vars::default();
        vars.set("sandbox_failed_message_id", json!("AC1"));
        let alone = arrange(&cases, &|c| c.name == CELLS[0], &vars);
        assert!(alone.spares.is_empty());
    }

    /// Without the activity hook in the profile, the cases about a missing contact derive one
    /// from a contact the run created; with it, the hook deletes one.
    #[test]
    fn without_the_hook_a_missing_contact_is_derived_from_a_served_one() {
        use serde_json::json;
        let setup_of = |a: &Arranged| {
            let c = a
                .cases
                .iter()
                .find(|c| c.name == "latest.contacts.get.missing-contact-is-404")
                .expect("the case");
            c.setups.iter().map(|s| s.name.clone()).collect::<Vec<_>>()
        };
        let (_, with) = arranged(&[("activity_trigger_path", json!("/hook"))]);
        assert_eq!(setup_of(&with), ["deleted_contact"]);
        let (_, without) = arranged(&[]);
        assert_eq!(setup_of(&without), ["missing_contact"]);
        let (_, cases) = crate::catalog::load(None).expect("the catalog loads");
        let c = cases
            .iter()
            .find(|c| c.name == "v1.contacts.patch.missing-contact-is-404")
            .expect("the case");
        assert!(
            !c.fixtures.contains("activity_trigger_path"),
            "{:?}",
            c.fixtures
        );
    }

    /// A use of a fixture waits for every trial that must leave it as it is, and the uses of a
    /// fixture run one at a time.
    #[test]
    fn the_gate_lets_a_use_in_after_the_trials_that_spare_it() {
        let gate = Arc::new(Gate::default().with_spares(BTreeMap::from([("f".to_string(), 2)])));
        let of = |role: Role| Needs {
            fixture: Some(("f".to_string(), role)),
            ..Needs::default()
        };
        let first = gate.enter(&of(Role::Spare));
        let (entered, use_) = enters_within(&gate, of(Role::Use), 200);
        assert!(
            !entered,
            "the use ran before the trials that spare its fixture"
        );
        let (entered, t) = enters_within(&gate, of(Role::Spare), 5000);
        assert!(
            entered,
            "two trials that spare a fixture waited on each other"
        );
        t.join().expect("no panic");
        drop(first);
        use_.join().expect("the use enters once both are done");
        let one = gate.enter(&of(Role::Use));
        let (entered, t) = enters_within(&gate, of(Role::Use), 200);
        assert!(!entered, "two uses of one fixture ran together");
        drop(one);
        t.join().expect("the second use enters after the first");
    }

    /// Every exclusive trial of the built-in catalog names the state it needs (none runs with
    /// the whole workspace to itself), and the limits need what they count.
    #[test]
    fn every_exclusive_trial_of_the_catalog_names_its_state() {
        let (contract, cases) = crate::catalog::load(None).expect("the catalog loads");
        let mut exclusive = 0;
        for c in cases.iter().filter(|c| c.exclusive) {
            exclusive += 1;
            let n = needs(c, &contract);
            let holds = n.states.values().any(|m| *m != Mode::Share);
            assert!(!n.alone && holds, "{}: {n:?}", c.name);
        }
        assert!(exclusive >= 10, "{exclusive} exclusive trials");
        let of = |name: &str| {
            let c = cases.iter().find(|c| c.name == name).expect(name);
            needs(c, &contract)
        };
        assert_eq!(
            of("latest.webhooks.limit.fifty-webhooks-per-workspace").states,
            states(&[
                (State::WebhookCount, Mode::Own),
                (State::InboundMessages, Mode::Share)
            ])
        );
        assert_eq!(
            of("v1.tasks.limit.create-beyond-is-402-and-complete-frees-a-place").states,
            states(&[
                (State::OpenTaskCount, Mode::Own),
                (State::TaskList, Mode::Share)
            ])
        );
        // A property that sends messages (and reads none back) changes what its requests touch.
        assert_eq!(
            of("v1.properties.sendMessage.text.not-blank").states,
            states(&[
                (State::Messages, Mode::Change),
                (State::Conversations, Mode::Change)
            ])
        );
    }
}
