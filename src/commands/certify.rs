//! Certification as a library call, for the suite's own tests: every case against a fresh
//! in-process reference or a given target, no terminal output.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use conformance_contract::Contract;
use conformance_contract::profile::Profile;
use conformance_reference::{self as reference, FaultSet, VariantSet};
use conformance_suite::cases::Case;
use conformance_suite::execute::{Executor, RunSetup};
use conformance_suite::plan;
use conformance_suite::results::CaseResult;
use conformance_suite::rules::{Registry, Rule};

use super::checked::new_run_id;
use super::connection::client_for;
use crate::error::Error;

/// What a library certification runs against, and how.
#[derive(Clone)]
pub struct Certification {
    target: Certified,
    seed: u64,
    run_id: String,
    in_flight: usize,
    /// The rules every exchange is judged by.
    rules: Registry,
    /// Where the run records what it required to succeed (READINGS 6.12), for a test.
    must_accept: Option<Arc<conformance_suite::execute::MustAccept>>,
}

/// The target of a library certification.
#[derive(Debug, Clone)]
enum Certified {
    /// A fresh in-process reference with these switches, stopped when the run ends.
    Reference {
        faults: FaultSet,
        variants: VariantSet,
    },
    /// The target at `base` with `profile` (its key, its fixtures); `missing_reasons` says why
    /// the profile lacks a fixture (discovery's reasons).
    Target {
        base: String,
        profile: Profile,
        missing_reasons: BTreeMap<String, String>,
    },
}

impl Certification {
    /// A fresh reference with `faults` and `variants` on; seed 1, a new run id, trials in flight
    /// as a run of the binary keeps them.
    pub fn reference(faults: FaultSet, variants: VariantSet) -> Certification {
        Certification::of(Certified::Reference { faults, variants })
    }

    /// The target at `base`, with its profile.
    pub fn target(base: &str, profile: Profile) -> Certification {
        Certification::of(Certified::Target {
            base: base.to_string(),
            profile,
            missing_reasons: BTreeMap::new(),
        })
    }

    fn of(target: Certified) -> Certification {
        Certification {
            target,
            seed: 1,
            run_id: new_run_id(),
            in_flight: plan::DEFAULT_TRIALS_IN_FLIGHT,
            rules: Registry::standard(),
            must_accept: None,
        }
    }

    /// The run records in `sink` every generated request it holds to a success and every
    /// string the target showed, for a test that judges them apart from the run.
    pub fn recording(mut self, sink: Arc<conformance_suite::execute::MustAccept>) -> Certification {
        self.must_accept = Some(sink);
        self
    }

    /// The seed of the generated inputs (an exact replay with the same run id).
    pub fn seed(mut self, seed: u64) -> Certification {
        self.seed = seed;
        self
    }

    pub fn run_id(mut self, run_id: &str) -> Certification {
        self.run_id = run_id.to_string();
        self
    }

    /// Trials at once. Fewer make the order in which trials meet shared state (a fault that lets
    /// a keyless request delete a resource other trials use) depend less on timing.
    pub fn in_flight(mut self, in_flight: usize) -> Certification {
        self.in_flight = in_flight;
        self
    }

    /// The run with `rule` registered beside the standard rules: judged on every exchange it
    /// applies to, whatever trial sends it.
    pub fn rule(mut self, rule: Rule) -> Certification {
        self.rules = self.rules.with(rule);
        self
    }

    /// Why the target's profile lacks a fixture, added to an ignored trial's reason.
    pub fn missing_reasons(mut self, reasons: BTreeMap<String, String>) -> Certification {
        if let Certified::Target {
            missing_reasons, ..
        } = &mut self.target
        {
            *missing_reasons = reasons;
        }
        self
    }
}

/// Certifies what `how` names with every case of `cases`, no terminal output: the suite's own
/// tests prove with it that each fault is caught and that the clean reference passes.
pub async fn certify(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    how: Certification,
) -> Result<Vec<(Arc<Case>, CaseResult)>, Error> {
    let (base, profile, missing_reasons, running) = match how.target.clone() {
        Certified::Reference { faults, variants } => {
            let running = reference::start(reference::Options {
                faults,
                variants,
                ..Default::default()
            })
            .await
            .map_err(Error::StartReference)?;
            let base = format!("http://{}", running.addr);
            let profile = running.profile.clone();
            (base, profile, BTreeMap::new(), Some(running))
        }
        Certified::Target {
            base,
            profile,
            missing_reasons,
        } => (base, profile, missing_reasons, None),
    };
    let results = run(contract, cases, &base, profile, missing_reasons, &how).await;
    if let Some(running) = running {
        running.stop().await;
    }
    results
}

/// Every case against the target at `base`, with a client and a receiver of its own.
async fn run(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    base: &str,
    profile: Profile,
    missing_reasons: BTreeMap<String, String>,
    how: &Certification,
) -> Result<Vec<(Arc<Case>, CaseResult)>, Error> {
    // The in-process reference shares the machine with the suite's own tests, many runs at once
    // on two cores: its answers get a longer wait than a target's, which a slow answer fails.
    let timeout = match how.target {
        Certified::Reference { .. } => Duration::from_secs(30),
        Certified::Target { .. } => Duration::from_secs(10),
    };
    let client = client_for(
        base,
        profile.api_key.clone(),
        &profile,
        timeout,
        8 * 1024 * 1024,
        None,
    )?;
    let receiver = conformance_suite::webhooks::Receiver::start(([127, 0, 0, 1], 0).into(), None)
        .await
        .map_err(|source| Error::StartReceiver {
            listen: None,
            source,
        })?;
    let exec = Executor::new(RunSetup {
        contract,
        client: client.clone(),
        profile,
        run_id: how.run_id.clone(),
        seed: how.seed,
        property_cases: 4,
        sequence_depth: 1,
        far: matches!(how.target, Certified::Target { .. }),
        receiver: Some(receiver),
        missing_reasons,
        rules: how.rules.clone(),
    });
    let exec = match &how.must_accept {
        Some(sink) => exec.record(sink.clone()),
        None => exec,
    };
    let exec = Arc::new(exec);
    let results = plan::run_all(cases, exec.clone(), how.in_flight).await;
    // What the run made and did not delete goes, as a run of the binary leaves the target: a
    // target certified again and again (the second implementation over 20 seeds) must not fill
    // up with what earlier runs left open (its open-task limit).
    if matches!(how.target, Certified::Target { .. }) {
        exec.cleanup().finish(&client).await;
    }
    Ok(results)
}
