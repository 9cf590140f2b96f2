//! The binary's one error type. A command that stops without a verdict (a bad argument, an
//! unreachable target, a refused key, a bad profile or case file, a report it cannot write) says
//! why in one message, and [`Error::exit_code`] decides the exit code in one place.

use crate::exit::Exit;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use conformance_contract::profile::{FixtureSchemaError, ProfileError};
use conformance_suite::catalog::CatalogError;
use conformance_suite::client::TransportError;
use conformance_suite::preflight::{NotTheApi, Refused};
use conformance_suite::report::ReportError;
use conformance_suite::tls::ClientBuildError;

/// Why a URL given on the command line cannot be used.
pub type UrlError = <reqwest::Url as std::str::FromStr>::Err;

/// Why a command of the binary stopped without a verdict.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `--test-threads 0`: libtest would wait for a thread that never comes.
    #[error("--test-threads 0 would run no trial and wait forever: give at least 1")]
    NoTestThreads,
    /// `--timeout` or `--max-seconds` is not a positive number.
    #[error("{option} must be a positive number of seconds")]
    NotPositiveSeconds { option: &'static str, value: f64 },
    /// `--rate` is not a positive number.
    #[error("--rate must be a positive number of requests per second")]
    NotPositiveRate { value: f64 },
    /// `--target` or `--webhook-url` is not an http(s) URL; `option` is how the message names it.
    #[error("bad {option} `{url}`: {problem}")]
    BadUrl {
        option: &'static str,
        url: String,
        problem: UrlProblem,
    },
    /// A `--fault` the catalog does not have, with the nearest name when one is near.
    #[error("unknown fault `{name}`{}; `serve --list-faults` lists the {catalog} faults of the catalog and {pending} not yet in it", did_you_mean(nearest.as_deref()))]
    UnknownFault {
        name: String,
        nearest: Option<&'static str>,
        catalog: usize,
        pending: usize,
    },
    /// A `--variant` the catalog does not have, with the nearest name when one is near.
    #[error("unknown variant `{name}`{}; `serve --list-variants` lists the {count} variants (or `all`)", did_you_mean(nearest.as_deref()))]
    UnknownVariant {
        name: String,
        nearest: Option<&'static str>,
        count: usize,
    },
    /// An `--area` the catalog does not have, with the nearest name when one is near.
    #[error("unknown area `{name}`{} (areas: {})", did_you_mean(nearest.as_deref()), areas.join(", "))]
    UnknownArea {
        name: String,
        nearest: Option<String>,
        areas: Vec<String>,
    },
    /// `--fault` or `--variant` with `--target`: only the embedded reference has them.
    #[error("--fault and --variant apply to the embedded reference only; leave out --target")]
    FaultsWithTarget,
    /// `--profile` without `--target`: the embedded reference has its own fixtures.
    #[error("--profile describes a --target; the embedded reference supplies its own")]
    ProfileWithReference,
    /// `--discover` without `--target`.
    #[error("--discover finds the fixtures of a --target; the embedded reference supplies its own")]
    DiscoverWithoutTarget,
    /// `serve --markdown` without a list to print.
    #[error("--markdown prints --list-faults or --list-variants as tables: give one of them")]
    MarkdownWithoutList,
    /// The selection options and libtest's filters keep no trial.
    #[error("{0}")]
    NothingSelected(NothingSelected),
    /// No key from `--api-key`, the environment or the profile.
    #[error("no API key: give --api-key, set WORKSPACE_API_KEY, or put apiKey in the profile")]
    NoApiKey,
    /// The contract or a case file cannot be read.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
    /// The `--profile` cannot be read.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// The fixture list of `--list-fixtures` cannot be made from the profile schema.
    #[error(transparent)]
    FixtureList(#[from] FixtureSchemaError),
    /// The async runtime does not start.
    #[error("cannot start the async runtime: {0}")]
    Runtime(std::io::Error),
    /// The HTTP client for the target cannot be built (a TLS setup without CA certificates).
    #[error(transparent)]
    Client(#[from] ClientBuildError),
    /// The embedded reference cannot bind its loopback port.
    #[error("cannot start the reference implementation: {0}")]
    StartReference(std::io::Error),
    /// `serve` cannot bind `--listen`.
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: SocketAddr,
        source: std::io::Error,
    },
    /// The webhook receiver cannot bind (`--webhook-listen`, when given, is named).
    #[error("cannot start the webhook receiver{}: {source}", match listen {
        Some(addr) => format!(" on {addr}"),
        None => String::new(),
    })]
    StartReceiver {
        listen: Option<SocketAddr>,
        source: std::io::Error,
    },
    /// The target does not answer the probe.
    #[error("the target {url} is unreachable: {source}")]
    Unreachable { url: String, source: TransportError },
    /// The target refuses the run's key, or an extra key of the profile.
    #[error(transparent)]
    KeyRefused(#[from] Refused),
    #[error(transparent)]
    NotTheApi(#[from] NotTheApi),
    /// A report cannot be rendered.
    #[error(transparent)]
    Render(#[from] ReportError),
    /// A profile cannot be serialized.
    #[error("{0}")]
    Serialize(#[from] serde_json::Error),
    /// A file (a report, a profile) cannot be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `merge` was given parts that are not of one partitioned run.
    #[error(transparent)]
    Merge(#[from] conformance_suite::report::merge::MergeError),
    /// `--defect` names no defect of the `--rerun` result.
    #[error("--defect {id}: {} has no such defect (an id such as D1, or a fingerprint); its defects: {known}", path.display())]
    UnknownDefect {
        id: String,
        path: PathBuf,
        known: String,
    },
    /// `compare` of results of another target, selection or contract version, without
    /// `--anyway`.
    #[error("the results are not comparable: {}; `compare --anyway` compares them all the same", reasons.join("; "))]
    NotComparable { reasons: Vec<String> },
    /// The `--rerun` result came from the embedded reference with a fault or variant the catalog
    /// no longer has: the same reference cannot be started again.
    #[error("--rerun {}: the result certified the embedded reference with `{name}`, which this version's catalog no longer has; give --target, --fault or --variant", path.display())]
    RerunFaultGone { name: String, path: PathBuf },
    /// The profile file the `--rerun` result was certified with is gone.
    #[error("--rerun {}: the result was certified with the profile {}, which is gone; give --profile", path.display(), profile.display())]
    RerunProfileGone { profile: PathBuf, path: PathBuf },
    /// The `--rerun` result does not name its profile file (written by an earlier version).
    #[error("--rerun {}: the result does not name the profile file it was certified with; give --profile (and --target)", path.display())]
    RerunProfileUnnamed { path: PathBuf },
    /// The `--rerun` result has no defect: nothing to run again.
    #[error("--rerun {}: the result has no defects, so there is nothing to run again", path.display())]
    NothingToRerun { path: PathBuf },
    /// `discover` wrote a profile that `--profile` refuses: a bug of discovery.
    #[error("the profile written is not one --profile reads: {0}")]
    WrittenProfileUnreadable(ProfileError),
}

impl Error {
    /// The process's exit code for this error. Every error is a setup problem (2): a
    /// certification that could not be made is never a verdict (README, "Exit codes").
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Error::NoTestThreads
            | Error::NotPositiveSeconds { .. }
            | Error::NotPositiveRate { .. }
            | Error::BadUrl { .. }
            | Error::UnknownFault { .. }
            | Error::UnknownVariant { .. }
            | Error::UnknownArea { .. }
            | Error::FaultsWithTarget
            | Error::ProfileWithReference
            | Error::DiscoverWithoutTarget
            | Error::MarkdownWithoutList
            | Error::NothingSelected(_)
            | Error::NoApiKey
            | Error::Catalog(_)
            | Error::Profile(_)
            | Error::FixtureList(_)
            | Error::Runtime(_)
            | Error::Client(_)
            | Error::StartReference(_)
            | Error::Listen { .. }
            | Error::StartReceiver { .. }
            | Error::Unreachable { .. }
            | Error::KeyRefused(_)
            | Error::NotTheApi(_)
            | Error::Render(_)
            | Error::Serialize(_)
            | Error::Write { .. }
            | Error::Merge(_)
            | Error::UnknownDefect { .. }
            | Error::NothingToRerun { .. }
            | Error::NotComparable { .. }
            | Error::RerunFaultGone { .. }
            | Error::RerunProfileGone { .. }
            | Error::RerunProfileUnnamed { .. }
            | Error::WrittenProfileUnreadable(_) => Exit::Setup.into(),
        }
    }
}

/// `; did you mean `NAME`?` for a name that is near, else nothing.
fn did_you_mean(nearest: Option<&str>) -> String {
    nearest
        .map(|n| format!("; did you mean `{n}`?"))
        .unwrap_or_default()
}

/// What is wrong with a URL of the command line.
#[derive(Debug, thiserror::Error)]
pub enum UrlProblem {
    /// `host:port` without `http://`: the likely fix is named.
    #[error("it has no scheme; did you mean {likely}?")]
    NoScheme { likely: String },
    /// Not a URL at all.
    #[error("{0}")]
    Unparsable(UrlError),
    /// A URL of another scheme than http or https.
    #[error("use http:// or https://")]
    NotHttp,
}

/// Why a run selects nothing: the selection as given and the areas the catalog has.
#[derive(Debug)]
pub struct NothingSelected {
    /// Each option that narrowed the selection, as the user wrote it (`--tag smoke`).
    pub given: Vec<String>,
    /// The catalog's areas.
    pub areas: Vec<String>,
}

impl std::fmt::Display for NothingSelected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "nothing selected: no trial matches")?;
        if self.given.is_empty() {
            write!(f, " (the catalog is empty)")?;
        } else {
            write!(f, " {}", self.given.join(", "))?;
        }
        write!(
            f,
            " (areas: {}; `--list` shows every trial)",
            self.areas.join(", ")
        )
    }
}
