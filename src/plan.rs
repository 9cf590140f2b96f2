//! Cases become trials: libtest-mimic trials for the terminal, or a plain concurrent run for the
//! suite's own tests, both in one order behind one gate. Exclusive cases (workspace-wide state)
//! run alone, first.

use std::sync::{Arc, Mutex, RwLock};

use libtest_mimic::{Completion, Failed, Trial};
use tokio::sync::Semaphore;

use crate::cases::Case;
use crate::checks::{Failure, Finding, explain};
use crate::execute::{CaseResult, Executor, Verdict};

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

/// The order every run starts its trials in, for users (libtest) and the suite's own tests
/// alike: exclusive cases first, back to back, then the shared ones. An exclusive case waits for
/// the trials in flight to end (the gate prefers writers), so one met in the middle of the run
/// would stall every thread behind the slowest trial running then.
pub fn order(cases: &[Arc<Case>]) -> Vec<Arc<Case>> {
    let (alone, shared): (Vec<_>, Vec<_>) = cases.iter().cloned().partition(|c| c.exclusive);
    alone.into_iter().chain(shared).collect()
}

/// Lets exclusive cases run alone: they hold the write side, every other trial the read side.
#[derive(Default)]
pub struct Gate(RwLock<()>);

/// Runs one trial to its verdict on the calling thread (blocking on `rt`), behind the gate. A
/// panic of the suite while it runs is a failed trial that says so, never a lost one.
pub fn run_trial(
    case: &Arc<Case>,
    exec: &Executor,
    rt: &tokio::runtime::Handle,
    gate: &Gate,
) -> CaseResult {
    let run = || {
        if case.exclusive {
            let _alone = gate.0.write().unwrap_or_else(|e| e.into_inner());
            rt.block_on(exec.run(case))
        } else {
            let _shared = gate.0.read().unwrap_or_else(|e| e.into_inner());
            rt.block_on(exec.run(case))
        }
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
                }]),
                exchanges: Vec::new(),
                duration: started.elapsed(),
            }
        }
    }
}

/// The libtest-mimic trials of a run, in [`order`]. Each trial blocks on the shared runtime.
pub fn trials(
    cases: &[Arc<Case>],
    exec: Arc<Executor>,
    rt: tokio::runtime::Handle,
    recorder: Arc<Recorder>,
) -> Vec<Trial> {
    let gate = Arc::new(Gate::default());
    order(cases)
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
                        &exec.client.redactor,
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
    let gate = Arc::new(Gate::default());
    let mut set = tokio::task::JoinSet::new();
    for case in order(cases) {
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
    use crate::contract::Contract;

    fn case(exclusive: bool, id: &str) -> Arc<Case> {
        let text = format!(
            "area: a\napi: v1\ncases:\n  - id: {id}\n    clause: \"Errors > Rules > 2\"\n    exclusive: {exclusive}\n    request: {{ method: GET, path: /v1/contacts }}\n"
        );
        let contract = Contract::embedded().expect("contract");
        let mut cases =
            crate::cases::load_sources(&[("a.yaml".into(), text)], &contract).expect("case loads");
        Arc::new(cases.remove(0))
    }

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
        let names: Vec<String> = order(&cases).iter().map(|c| c.name.clone()).collect();
        assert_eq!(names, ["v1.a.b", "v1.a.d", "v1.a.a", "v1.a.c"]);
    }
}
