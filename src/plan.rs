//! Cases become trials: libtest-mimic trials for the terminal, or a plain concurrent run for the
//! suite's own tests. Exclusive cases (workspace-wide state) run alone.

use std::sync::{Arc, Mutex, RwLock};

use libtest_mimic::{Completion, Failed, Trial};
use tokio::sync::Semaphore;

use crate::cases::Case;
use crate::checks::explain;
use crate::execute::{CaseResult, Executor, Verdict};

/// Every trial's result, in completion order, for reports and the suite's own tests.
#[derive(Default)]
pub struct Recorder(Mutex<Vec<(Arc<Case>, CaseResult)>>);

impl Recorder {
    pub fn record(&self, case: Arc<Case>, result: CaseResult) {
        if let Ok(mut v) = self.0.lock() {
            v.push((case, result));
        }
    }

    pub fn take(&self) -> Vec<(Arc<Case>, CaseResult)> {
        self.0
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default()
    }
}

/// The libtest-mimic trials of a run. Each trial blocks on the shared runtime.
pub fn trials(
    cases: &[Arc<Case>],
    exec: Arc<Executor>,
    rt: tokio::runtime::Handle,
    recorder: Arc<Recorder>,
) -> Vec<Trial> {
    let gate = Arc::new(RwLock::new(()));
    // Exclusive cases first: each waits for the trials in flight to end (the lock prefers
    // writers), so one met in the middle of the run would stall every thread behind the slowest
    // trial running then. First, they run back to back before the shared ones start.
    let (alone, shared): (Vec<_>, Vec<_>) = cases.iter().partition(|c| c.exclusive);
    alone
        .into_iter()
        .chain(shared)
        .map(|case| {
            let (case, exec, rt, recorder, gate) = (
                case.clone(),
                exec.clone(),
                rt.clone(),
                recorder.clone(),
                gate.clone(),
            );
            let name = case.name.clone();
            Trial::ignorable_test(name, move || {
                // Exclusive cases hold the write side: nothing else runs beside them.
                let result = if case.exclusive {
                    let _alone = gate.write().unwrap_or_else(|e| e.into_inner());
                    rt.block_on(exec.run(&case))
                } else {
                    let _shared = gate.read().unwrap_or_else(|e| e.into_inner());
                    rt.block_on(exec.run(&case))
                };
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

/// Runs every case without libtest: `concurrency` at a time, exclusive ones alone at the end.
pub async fn run_all(
    cases: &[Arc<Case>],
    exec: Arc<Executor>,
    concurrency: usize,
) -> Vec<(Arc<Case>, CaseResult)> {
    let permits = Arc::new(Semaphore::new(concurrency.max(1)));
    let handle = tokio::runtime::Handle::current();
    let mut set = tokio::task::JoinSet::new();
    for case in cases.iter().filter(|c| !c.exclusive).cloned() {
        // A property holds proptest's value tree (not `Send`) across requests, so each case runs
        // on a blocking thread of its own that drives its future; the permit bounds how many.
        let Ok(permit) = permits.clone().acquire_owned().await else {
            break;
        };
        let (exec, handle) = (exec.clone(), handle.clone());
        set.spawn_blocking(move || {
            let result = handle.block_on(exec.run(&case));
            drop(permit);
            (case, result)
        });
    }
    let mut out = Vec::new();
    while let Some(joined) = set.join_next().await {
        if let Ok(r) = joined {
            out.push(r);
        }
    }
    for case in cases.iter().filter(|c| c.exclusive) {
        let result = exec.run(case).await;
        out.push((case.clone(), result));
    }
    out
}
