//! Certification as a library call, for the suite's own tests: every case against a fresh
//! in-process reference or a given target, no terminal output.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use crate::cases::Case;
use crate::contract::Contract;
use crate::error::Error;
use crate::execute::{CaseResult, Executor};
use crate::plan;
use crate::profile::Profile;
use crate::reference::{self, FaultSet, VariantSet};

use super::checked::new_run_id;
use super::connection::client_for;

/// Certifies a fresh in-process reference with `faults` on: every case, no terminal output.
/// The suite's own tests use it to prove that each fault is caught and the clean reference passes.
pub async fn certify_reference(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    faults: FaultSet,
    seed: u64,
) -> Result<Vec<(Arc<Case>, CaseResult)>, Error> {
    certify_reference_as(
        contract,
        cases,
        faults,
        VariantSet::default(),
        seed,
        &new_run_id(),
    )
    .await
}

/// As [`certify_reference`], with variants and a given run id (an exact replay of a seed).
pub async fn certify_reference_as(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    faults: FaultSet,
    variants: VariantSet,
    seed: u64,
    run_id: &str,
) -> Result<Vec<(Arc<Case>, CaseResult)>, Error> {
    certify_reference_paced(
        contract,
        cases,
        faults,
        variants,
        seed,
        run_id,
        plan::DEFAULT_TRIALS_IN_FLIGHT,
    )
    .await
}

/// As [`certify_reference_as`], with `in_flight` trials at once. Fewer trials at once make the
/// order in which trials meet shared state (a fault that lets a keyless request delete a
/// resource other trials use) depend less on timing: a snapshot of such a run uses few.
pub async fn certify_reference_paced(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    faults: FaultSet,
    variants: VariantSet,
    seed: u64,
    run_id: &str,
    in_flight: usize,
) -> Result<Vec<(Arc<Case>, CaseResult)>, Error> {
    let running = reference::start(reference::Options {
        faults,
        variants,
        ..Default::default()
    })
    .await
    .map_err(Error::StartReference)?;
    let base = format!("http://{}", running.addr);
    let profile = running.profile.clone();
    let results = certify_target_paced(
        contract,
        cases,
        &base,
        profile,
        seed,
        run_id,
        Default::default(),
        in_flight,
    )
    .await;
    running.stop().await;
    results
}

/// Certifies the target at `base` with `profile` (its key, its fixtures): every case, no terminal
/// output. `missing_reasons` says why the profile lacks a fixture (discovery's reasons).
pub async fn certify_target(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    base: &str,
    profile: Profile,
    seed: u64,
    run_id: &str,
    missing_reasons: BTreeMap<String, String>,
) -> Result<Vec<(Arc<Case>, CaseResult)>, Error> {
    certify_target_paced(
        contract,
        cases,
        base,
        profile,
        seed,
        run_id,
        missing_reasons,
        plan::DEFAULT_TRIALS_IN_FLIGHT,
    )
    .await
}

/// As [`certify_target`], with `in_flight` trials at once.
#[allow(clippy::too_many_arguments)]
async fn certify_target_paced(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    base: &str,
    profile: Profile,
    seed: u64,
    run_id: &str,
    missing_reasons: BTreeMap<String, String>,
    in_flight: usize,
) -> Result<Vec<(Arc<Case>, CaseResult)>, Error> {
    let client = client_for(
        base,
        profile.api_key.clone(),
        &profile,
        Duration::from_secs(10),
        8 * 1024 * 1024,
        None,
    )?;
    let receiver = crate::webhooks::Receiver::start(([127, 0, 0, 1], 0).into(), None)
        .await
        .map_err(|source| Error::StartReceiver {
            listen: None,
            source,
        })?;
    let mut exec = Executor::new(contract, client, profile, run_id.to_string())
        .with_properties(seed, 4)
        .with_receiver(Some(receiver));
    exec.missing_reasons = missing_reasons;
    Ok(plan::run_all(cases, Arc::new(exec), in_flight).await)
}
