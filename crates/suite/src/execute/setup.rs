//! Runs the setups a case names (READINGS 6.6): once per run for a shared setup, whichever trial
//! needs it first (the others wait for it and take what it saved), or for each trial where the
//! trial's accepted request uses the resource up.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;
use tokio::sync::OnceCell;

use super::{Executor, Stopped};
use crate::cases::template::Vars;
use crate::cases::{Case, Setup};
use crate::checks::deliveries::{Bounds, Slot};
use crate::client::Exchange;
use crate::results::Failure;

/// What one run of a setup gave: the values it saved, or why it stopped, and its exchanges.
#[derive(Debug)]
pub(crate) struct SetupRun {
    outcome: Result<Vec<(String, Value)>, Stopped>,
    exchanges: Vec<Arc<Exchange>>,
}

/// The shared setups of a run, each run at most once.
#[derive(Debug, Default)]
pub(crate) struct Shared {
    runs: std::sync::Mutex<HashMap<String, Arc<OnceCell<Arc<SetupRun>>>>>,
}

impl Shared {
    fn cell(&self, name: &str) -> Arc<OnceCell<Arc<SetupRun>>> {
        let mut runs = self.runs.lock().unwrap_or_else(|e| e.into_inner());
        runs.entry(name.to_string()).or_default().clone()
    }
}

impl Executor {
    /// The values `setup` saved for `case` and the exchanges to show with the case (a shared
    /// setup's only in the trial that ran it), or why the case stops: the setup's precondition
    /// found nothing (ignored), or a step of it failed (every trial that names it fails with the
    /// setup's findings).
    pub(crate) async fn setup(
        &self,
        setup: &Arc<Setup>,
        case: &Case,
        vars: &Vars,
        slot: Option<&mut Slot<'_>>,
        bounds: &Bounds,
    ) -> Result<(Vec<(String, Value)>, Vec<Arc<Exchange>>), Stopped> {
        let (run, ran_here) = if setup.per_trial {
            (
                Arc::new(self.run_setup(setup, vars, slot, bounds).await),
                true,
            )
        } else {
            let cell = self.shared.cell(&setup.name);
            let mut ran_here = false;
            let run = cell
                .get_or_init(|| {
                    ran_here = true;
                    async { Arc::new(self.run_setup(setup, vars, slot, bounds).await) }
                })
                .await
                .clone();
            (run, ran_here)
        };
        let exchanges = if ran_here {
            run.exchanges.clone()
        } else {
            Vec::new()
        };
        match &run.outcome {
            Ok(saved) => Ok((saved.clone(), exchanges)),
            Err(Stopped::Ignored(reason)) => Err(Stopped::Ignored(format!(
                "setup `{}` (src/cases/setups.yaml): {reason}",
                setup.name
            ))),
            Err(Stopped::Failed(failures)) => Err(Stopped::Failed(
                failures
                    .iter()
                    .map(|f| {
                        let mut finding = f.finding.clone();
                        finding.check =
                            format!("setup `{}` step {}: {}", setup.name, f.step, finding.check);
                        Failure {
                            finding,
                            step: 1,
                            steps: case.steps.len(),
                            exchange: f.exchange.clone(),
                            cause: None,
                        }
                    })
                    .collect(),
            )),
        }
    }

    /// Runs the steps of a setup with the case's variables and keeps what they define: the
    /// resource is made when every name it defines has a value.
    async fn run_setup(
        &self,
        setup: &Setup,
        vars: &Vars,
        slot: Option<&mut Slot<'_>>,
        bounds: &Bounds,
    ) -> SetupRun {
        let mut vars = vars.clone();
        let mut exchanges = Vec::new();
        let ran = self
            .run_steps(&setup.case, &mut vars, slot, bounds, &mut exchanges, None)
            .await;
        // A setup is a means: what its answers break beyond the resource itself (a schema, a
        // content type) is the verdict of the cases about that operation, not of every trial
        // that needs the resource. Only a setup that could not make it stops them: a name it
        // defines has no value, or a step failed before the last, so the steps after it (a
        // delete that makes a resource missing) never ran.
        let saved: Vec<(String, Value)> = setup
            .defines
            .iter()
            .filter_map(|name| vars.get(name).map(|v| (name.clone(), v.clone())))
            .collect();
        let last = setup.case.steps.len();
        let outcome = match ran {
            Err(reason) => Err(Stopped::Ignored(reason)),
            Ok(failures)
                if saved.len() == setup.defines.len()
                    && failures.iter().all(|f| f.step == last) =>
            {
                Ok(saved)
            }
            Ok(failures) => Err(Stopped::Failed(failures)),
        };
        SetupRun { outcome, exchanges }
    }
}
