//! What a run certifies, reached: a `--target`, or the embedded reference started here. Before
//! the first trial the target answers, takes the run's key, has its fixtures discovered when
//! asked, and takes each extra key a chosen case sends.

use std::collections::HashSet;
use std::sync::Arc;

use crate::error::Error;
use conformance_contract::profile::Profile;
use conformance_reference as reference;
use conformance_suite::cases::Case;
use conformance_suite::client::{Auth, Client};
use conformance_suite::discover::{self, Discovery};
use conformance_suite::preflight::{self, KeySource};

use super::checked::{RunPlan, TargetSpec};
use super::connection;

/// A target ready to be reached: its URL, profile and key. The embedded reference runs while
/// this lives.
pub struct Target {
    pub base_url: String,
    pub profile: Profile,
    api_key: Option<String>,
    key_source: KeySource,
    _reference: Option<reference::Running>,
}

impl Target {
    /// The `--target` as given, or the embedded reference started on a loopback port.
    pub fn start(spec: TargetSpec, rt: &tokio::runtime::Runtime) -> Result<Target, Error> {
        match spec {
            TargetSpec::Given {
                url,
                profile,
                api_key,
                key_source,
            } => Ok(Target {
                base_url: url,
                profile,
                api_key,
                key_source,
                _reference: None,
            }),
            TargetSpec::Embedded { faults, variants } => {
                let running = rt
                    .block_on(reference::start(reference::Options {
                        faults,
                        variants,
                        ..Default::default()
                    }))
                    .map_err(Error::StartReference)?;
                let profile = running.profile.clone();
                Ok(Target {
                    base_url: format!("http://{}", running.addr),
                    api_key: profile.api_key.clone(),
                    profile,
                    key_source: KeySource::Reference,
                    _reference: Some(running),
                })
            }
        }
    }

    /// The client for the target, with every secret of its profile registered for redaction.
    pub fn client(&self, plan: &RunPlan) -> Result<Arc<Client>, Error> {
        connection::client_for(
            &self.base_url,
            self.api_key.clone(),
            &self.profile,
            plan.timeout,
            plan.max_body,
            plan.rate,
        )
    }

    /// Before the first trial: the target answers and takes the run's key, `--discover` fills
    /// the profile's gaps, and each extra key a chosen case sends is taken. The profile the
    /// trials use, and the discovery if any.
    pub fn prepare(
        &self,
        rt: &tokio::runtime::Runtime,
        client: &Client,
        plan: &RunPlan,
    ) -> Result<(Profile, Option<Discovery>), Error> {
        connection::answers(rt, client, &self.base_url)?;
        if client.one_connection_per_request() {
            crate::output::say(
                "note: the target closes its connection after each answer without `Connection: close`; the suite opens one connection per request",
            );
        }
        // The run's key and the extra keys are read together (a round trip each, across a
        // network); a refusal of the run's key is the one reported. Discovery finds no keys: the
        // extra keys are the profile's.
        let (key, extra) = rt.block_on(futures_util::future::join(
            connection::key_read_taken(client, &self.key_source, &self.base_url),
            check_extra_keys(client, &self.profile, &plan.cases, &plan.chosen),
        ));
        key?;
        extra?;
        let mut profile = self.profile.clone();
        let mut discovery = None;
        if plan.discover {
            let d = discover_before_trials(rt, client, plan, &profile);
            profile = d.profile();
            discovery = Some(d);
        }
        Ok((profile, discovery))
    }
}

/// `--discover`: the fixtures the profile lacks, found with GET requests before the first
/// trial.
fn discover_before_trials(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    plan: &RunPlan,
    profile: &Profile,
) -> Discovery {
    let d = rt.block_on(discover::discover(
        client,
        profile,
        plan.profile_file.as_ref().map(|p| p.display().to_string()),
        discover::Limits::default(),
        &|line| eprintln!("{}", client.redactor.redact(line)),
    ));
    let (given, found, not_found, cannot) = d.counts();
    crate::output::say(&format!(
        "discovery: {found} fixtures found, {given} from the profile, {} missing ({} requests in {:.1} s, GET only); `discover` prints the table",
        not_found + cannot,
        d.requests,
        d.elapsed.as_secs_f64()
    ));
    d
}

/// Each extra key of the profile that a chosen case sends is taken by the target. The keys are
/// tried together (a read each); a refusal is reported for the first key in the list's order.
async fn check_extra_keys(
    client: &Client,
    profile: &Profile,
    cases: &[Arc<Case>],
    chosen: &HashSet<String>,
) -> Result<(), Error> {
    let mut checks = Vec::new();
    for (name, forbidden_counts) in preflight::extra_keys() {
        let Some(key) = profile.fixtures.get(*name).and_then(|v| v.as_str()) else {
            continue;
        };
        let needed = cases
            .iter()
            .any(|c| chosen.contains(&c.name) && c.fixtures.iter().any(|f| f == name));
        if !needed {
            continue;
        }
        let label = format!("<{}>", name.to_ascii_uppercase());
        checks.push(async move {
            preflight::check(
                client,
                Auth::Key {
                    key: key.to_string(),
                    label,
                },
                &format!("the profile's fixture `{name}` (an API key)"),
                *forbidden_counts,
            )
            .await
        });
    }
    for checked in futures_util::future::join_all(checks).await {
        checked?;
    }
    Ok(())
}
