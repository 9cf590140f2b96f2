//! The reports a run writes (`--json`, `--junit`, `--report`): before the cleanup, which a
//! silent target or a kill can cut short, and again once it is done.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::error::Error;
use conformance_suite::cases::Case;
use conformance_suite::client::Client;
use conformance_suite::discover::Discovery;
use conformance_suite::results::Summary;

use super::checked::RunPlan;
use conformance_contract::profile::Profile;
use conformance_suite::cases::properties::SEQUENCE_TRIALS;
use conformance_suite::cases::situations::{self, Situation};
use conformance_suite::execute::Executor;
use conformance_suite::report::{Origin, Report, RunInfo};
use conformance_suite::results::situations::SituationCoverage;
use conformance_suite::results::{CaseResult, Verdict};

/// What the reports of a run are made of.
pub struct Reports<'a> {
    pub plan: &'a RunPlan,
    pub base_url: &'a str,
    pub fixture_sources: &'a BTreeMap<String, String>,
    pub started: time::OffsetDateTime,
    pub start: Instant,
    pub client: &'a Client,
    pub exec: &'a Executor,
    pub results: &'a [(Arc<Case>, CaseResult)],
}

impl Reports<'_> {
    /// The model of every output, with the cleanup's `summary`.
    pub fn model(&self, summary: &Summary) -> Report {
        let plan = self.plan;
        let info = RunInfo {
            target: self.base_url.to_string(),
            profile: match (&plan.profile_file, plan.embedded(), plan.discover) {
                (_, true, _) => "the embedded reference's fixtures".into(),
                (Some(p), false, true) => format!("{} and discovery", p.display()),
                (None, false, true) => "discovery".into(),
                (Some(p), false, false) => p.display().to_string(),
                (None, false, false) => "none".into(),
            },
            fixture_sources: self.fixture_sources.clone(),
            faults: plan.fault_names.clone(),
            origin: Origin {
                variants: plan.variant_names.clone(),
                // Absolute, so that `--rerun` finds it from another directory.
                profile_file: plan.profile_file.as_ref().map(|p| {
                    std::path::absolute(p)
                        .unwrap_or_else(|_| p.clone())
                        .display()
                        .to_string()
                }),
                discovered: plan.discover,
            },
            run_id: plan.run_id.clone(),
            seed: plan.seed,
            started: self.started,
            duration: self.start.elapsed(),
            requests: self.client.request_count(),
            deliveries: self.exec.receiver().map_or(0, |r| r.heard().1),
            receiver: self.exec.receiver().map(|r| r.public_base().to_string()),
            interrupted: self.exec.cleanup().is_interrupted(),
            not_selected: plan.not_selected.clone(),
            selection: plan.selection.clone(),
            serve: plan.embedded().then(|| serve_command(plan, self.base_url)),
            har: plan.har.as_ref().map(|h| h.path.display().to_string()),
            situations: Some(self.situations()),
        };
        let r = &self.client.redactor;
        Report::build(&info, &plan.contract, self.results, r, Some(summary))
    }

    /// Which situations the run put each operation in; for each pair it did not exercise, the
    /// trial that carries it and why that trial did not reach it.
    fn situations(&self) -> SituationCoverage {
        let contract = &self.plan.contract;
        let verdicts: BTreeMap<&str, &Verdict> = self
            .results
            .iter()
            .map(|(c, r)| (c.name.as_str(), &r.verdict))
            .collect();
        let carrier = |op: &str, s: Situation| {
            let who = situations::carrier(contract, op, s, SEQUENCE_TRIALS);
            Some(match verdicts.get(who.as_str()) {
                Some(Verdict::Ignored(why)) => format!("{who} carries it and was ignored: {why}"),
                Some(Verdict::Failed(_)) => {
                    format!("{who} carries it and failed before it got there")
                }
                Some(Verdict::Passed) => format!("{who} carries it and did not get there"),
                None if s == Situation::ConcurrentLimit => format!("{who}: none ran"),
                None => format!("{who} carries it; this run did not select it"),
            })
        };
        self.exec.situations().summary(contract, &carrier)
    }

    /// Writes the reports asked for; each whole or not at all.
    pub fn write(&self, report: &Report) -> Result<(), Error> {
        let outputs = &self.plan.outputs;
        let r = &self.client.redactor;
        if let Some(p) = &outputs.json {
            write_whole(p, &report.to_json(r))?;
        }
        if let Some(p) = &outputs.junit {
            let text = report.to_junit(r)?;
            write_whole(p, &text)?;
        }
        if let Some(p) = &outputs.html {
            let text = report.to_html(r)?;
            write_whole(p, &text)?;
        }
        Ok(())
    }
}

/// The `serve` command that starts the embedded reference of the run again, with its faults and
/// variants, on the port the run's reference had (free again once the run ended): the run's
/// reproductions name that port, so they run as printed against it. Its profile (with the
/// reference's API key, which no output prints) goes to `reference-profile.json`.
pub fn serve_command(plan: &RunPlan, base_url: &str) -> String {
    let listen = base_url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_string();
    let mut cmd = format!("workspace-conformance serve --listen {listen}");
    for f in &plan.fault_names {
        cmd.push_str(&format!(" --fault {f}"));
    }
    for v in &plan.variant_names {
        cmd.push_str(&format!(" --variant {v}"));
    }
    cmd.push_str(&format!(" --profile-out {SERVE_PROFILE}"));
    cmd
}

/// The name of the reproduction script a failing run writes beside its reports.
pub const REPRODUCTIONS: &str = "reproduce.sh";

/// Writes the reproductions of the run's defects as a script beside its reports (the directory
/// of the first report asked for), and says where; nothing when no report is asked for or no
/// defect has a reproduction.
pub fn write_reproductions(plan: &RunPlan, report: &Report) -> Result<Option<PathBuf>, Error> {
    let beside = [
        plan.outputs.json.as_ref(),
        plan.outputs.html.as_ref(),
        plan.outputs.junit.as_ref(),
        plan.har.as_ref().map(|h| &h.path),
    ]
    .into_iter()
    .flatten()
    .next();
    let (Some(beside), Some(text)) = (beside, conformance_suite::report::reproduce::script(report))
    else {
        return Ok(None);
    };
    let dir = beside
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let path = dir.join(REPRODUCTIONS);
    write_whole(&path, &text)?;
    Ok(Some(path))
}

/// Where the printed `serve` command writes the reference's profile.
pub const SERVE_PROFILE: &str = "reference-profile.json";

/// Writes a report whole or not at all (a temporary file renamed over it), so a kill while
/// rewriting leaves the earlier report.
pub fn write_whole(path: &Path, text: &str) -> Result<(), Error> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, text).map_err(|source| Error::Write {
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, path).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Where each fixture of a run's profile came from: the file, discovery, or the embedded
/// reference.
pub fn fixture_sources(
    plan: &RunPlan,
    profile: &Profile,
    discovery: Option<&Discovery>,
) -> BTreeMap<String, String> {
    if let Some(d) = discovery {
        return d.sources();
    }
    let source = match (&plan.profile_file, plan.embedded()) {
        (_, true) => "the embedded reference".into(),
        (Some(p), false) => format!("file {}", p.display()),
        (None, false) => return Default::default(),
    };
    profile
        .fixtures
        .keys()
        .map(|k| (k.clone(), source.clone()))
        .collect()
}
