//! The reports a run writes (`--json`, `--junit`, `--report`): before the cleanup, which a
//! silent target or a kill can cut short, and again once it is done.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::cases::Case;
use crate::cleanup::Summary;
use crate::cli::RunArgs;
use crate::client::Client;
use crate::contract::Contract;
use crate::discover::Discovery;
use crate::error::Error;
use crate::execute::{CaseResult, Executor};
use crate::profile::Profile;
use crate::report::{Report, RunInfo};

/// What the reports of a run are made of.
pub struct Reports<'a> {
    pub args: &'a RunArgs,
    pub base_url: &'a str,
    pub fixture_sources: &'a BTreeMap<String, String>,
    pub run_id: &'a str,
    pub seed: u64,
    pub started: time::OffsetDateTime,
    pub start: Instant,
    pub client: &'a Client,
    pub exec: &'a Executor,
    pub contract: &'a Contract,
    pub results: &'a [(Arc<Case>, CaseResult)],
    /// Per clause, the catalog's trials citing it that the run did not select.
    pub not_selected: &'a BTreeMap<String, usize>,
    /// What the run selected of the catalog.
    pub selection: &'a crate::report::SelectionOut,
}

impl Reports<'_> {
    /// The model of every output, with the cleanup's `summary`.
    pub fn model(&self, summary: &Summary) -> Report {
        let args = self.args;
        let info = RunInfo {
            target: self.base_url.to_string(),
            profile: match (&args.profile, &args.target, args.discover) {
                (Some(p), _, true) => format!("{} and discovery", p.display()),
                (None, Some(_), true) => "discovery".into(),
                (Some(p), _, false) => p.display().to_string(),
                (None, Some(_), false) => "none".into(),
                (None, None, _) => "the embedded reference's fixtures".into(),
            },
            fixture_sources: self.fixture_sources.clone(),
            faults: args.faults.clone(),
            run_id: self.run_id.to_string(),
            seed: self.seed,
            started: self.started,
            duration: self.start.elapsed(),
            requests: self.client.request_count(),
            interrupted: self.exec.cleanup.is_interrupted(),
            not_selected: self.not_selected.clone(),
            selection: self.selection.clone(),
        };
        let r = &self.client.redactor;
        Report::build(&info, self.contract, self.results, r, Some(summary))
    }

    /// Writes the reports asked for; each whole or not at all.
    pub fn write(&self, report: &Report) -> Result<(), Error> {
        let args = self.args;
        let r = &self.client.redactor;
        if let Some(p) = &args.json {
            write_whole(p, &report.to_json(r))?;
        }
        if let Some(p) = &args.junit {
            let text = report.to_junit(r)?;
            write_whole(p, &text)?;
        }
        if let Some(p) = &args.report {
            let text = report.to_html(r)?;
            write_whole(p, &text)?;
        }
        Ok(())
    }

    /// Whether any report file is asked for.
    pub fn asked(&self) -> bool {
        let a = self.args;
        a.junit.is_some() || a.json.is_some() || a.report.is_some()
    }
}

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
    args: &RunArgs,
    profile: &Profile,
    discovery: Option<&Discovery>,
) -> BTreeMap<String, String> {
    if let Some(d) = discovery {
        return d.sources();
    }
    let source = match (&args.profile, &args.target) {
        (Some(p), _) => format!("file {}", p.display()),
        (None, Some(_)) => return Default::default(),
        (None, None) => "the embedded reference".into(),
    };
    profile
        .fixtures
        .keys()
        .map(|k| (k.clone(), source.clone()))
        .collect()
}
