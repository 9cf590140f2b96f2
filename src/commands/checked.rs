//! The arguments of each command, checked before any I/O that reaches out: no runtime is
//! started, no socket opened. A mistake on the command line, in the profile or in the case files
//! ends the command here, with the same message whatever the target would have said.

use std::collections::{BTreeMap, HashSet};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::cli::{DiscoverArgs, RunArgs, ServeArgs};
use crate::error::{Error, UrlProblem};
use conformance_contract::Contract;
use conformance_contract::profile::Profile;
use conformance_reference::{
    CATALOG, Fault, FaultSet, PENDING, VARIANTS, Variant, VariantSet, listing,
};
use conformance_suite::cases::Case;
use conformance_suite::preflight::KeySource;
use conformance_suite::{catalog, plan};

use super::{progress, selection};

/// A certification run whose arguments hold together, owning what the run needs: nothing below
/// the commands reads the command line (ripgrep's `HiArgs`, built from its `LowArgs`).
pub struct RunPlan {
    /// libtest's arguments: the filter, the format, and the trials in flight (decided here).
    pub libtest: libtest_mimic::Arguments,
    /// `--list`: the trials are listed, not run.
    pub listing: bool,
    /// How the run's progress shows (a live line, periodic lines, or none).
    pub progress: progress::Mode,
    /// `--timeout`.
    pub timeout: Duration,
    /// `--max-body`: bytes of an answer the client keeps.
    pub max_body: usize,
    /// `--rate`: requests per second, at most.
    pub rate: Option<f64>,
    /// Random inputs per property and direction.
    pub property_cases: u32,
    /// Random sequences per sequence trial.
    pub sequence_depth: u32,
    /// `--require-complete`: an ignored trial fails the run.
    pub require_complete: bool,
    /// `--discover`: the profile's gaps are filled with GET requests before the trials.
    pub discover: bool,
    /// `--profile`, the file the fixtures came from.
    pub profile_file: Option<PathBuf>,
    /// Where the webhook receiver listens, and the URL the target must reach it at.
    pub webhook_listen: Option<SocketAddr>,
    pub webhook_url: Option<String>,
    /// The report files asked for.
    pub outputs: Outputs,
    /// `--verbose`: the cleanup's listing on the terminal.
    pub verbose: bool,
    /// `--har FILE`, with `--har-failed`.
    pub har: Option<HarOutput>,
    /// `--rerun RESULT.json`: the defects of a previous result whose trials the run selects.
    pub rerun: Option<super::rerun::Rerun>,
    /// The trials of the whole catalog, by name (a re-run tells a trial it did not select from
    /// one the catalog no longer has).
    pub catalog_names: HashSet<String>,
    /// The faults switched on in the embedded reference, by name (the reports list them).
    pub fault_names: Vec<String>,
    /// The variants switched on in the embedded reference, by name (`serve` takes them again).
    pub variant_names: Vec<String>,
    pub contract: Arc<Contract>,
    /// The cases the selection options keep.
    pub cases: Vec<Arc<Case>>,
    /// The names of those libtest will run (its filter, --skip, --exact, --ignored).
    pub chosen: HashSet<String>,
    /// Per clause, the trials of the whole catalog citing it that the run does not select.
    pub not_selected: BTreeMap<String, usize>,
    /// What the run selects of the catalog before `--partition`, for the reports.
    pub selection: conformance_suite::report::SelectionOut,
    pub target: TargetSpec,
    pub run_id: String,
    pub seed: u64,
}

/// The HAR file a run writes.
#[derive(Debug, Clone)]
pub struct HarOutput {
    pub path: PathBuf,
    /// `--har-failed`: only the exchanges of failed trials.
    pub failed_only: bool,
}

/// The report files a run writes.
#[derive(Debug, Clone, Default)]
pub struct Outputs {
    pub json: Option<PathBuf>,
    pub junit: Option<PathBuf>,
    pub html: Option<PathBuf>,
}

impl Outputs {
    /// Whether any report file is asked for.
    pub fn any(&self) -> bool {
        self.json.is_some() || self.junit.is_some() || self.html.is_some()
    }
}

/// What a run certifies, before it is reached or started.
#[derive(Clone)]
pub enum TargetSpec {
    /// `--target`, with its profile (or none) and the key from the flag, the environment or the
    /// profile (none only for `--list`).
    Given {
        url: String,
        profile: Profile,
        api_key: Option<String>,
        key_source: KeySource,
    },
    /// The embedded reference, to be started with these faults and variants.
    Embedded {
        faults: FaultSet,
        variants: VariantSet,
    },
}

impl RunPlan {
    /// Checks a run's arguments, in the order a user meets the messages: the options no later
    /// step could use, the case files, the fault and variant names, the URLs, the selection,
    /// then what is certified.
    pub fn check(args: RunArgs, key_from_env: bool) -> Result<RunPlan, Error> {
        check_run_options(&args)?;
        let timeout = Duration::from_secs_f64(args.timeout);
        let (contract, cases) = catalog::load(args.case_dir.as_deref())?;
        let faults = parse_faults(&args.faults)?;
        let variants = parse_variants(&args.variants)?;
        check_run_urls(&args)?;
        let all = cases.clone();
        let (mut cases, mut chosen) = selection::select_trials(&args, cases)?;
        let mut selected = selection::identity(&args, all.clone());
        let rerun = match &args.rerun {
            Some(path) => {
                let rerun = super::rerun::Rerun::load(path, &args.defects)?;
                let names = rerun.trials();
                cases.retain(|c| names.contains(&c.name));
                chosen.retain(|n| names.contains(n));
                selected.options.push(format!(
                    "--rerun ({})",
                    conformance_suite::report::plural(names.len(), "trial")
                ));
                Some(rerun)
            }
            None => None,
        };
        let not_selected = selection::not_selected(&all, &chosen);
        let resolved = match (&args.target, &rerun) {
            (Some(url), _) => Resolved {
                target: given_target(&args, url, args.profile.as_ref(), key_from_env)?,
                fault_names: Vec::new(),
                variant_names: Vec::new(),
                profile_file: args.profile.clone(),
                discover: args.discover,
            },
            (None, Some(rerun)) => rerun_target(&args, rerun, key_from_env)?,
            (None, None) if args.profile.is_some() => return Err(Error::ProfileWithReference),
            (None, None) => Resolved {
                target: TargetSpec::Embedded { faults, variants },
                fault_names: args.faults.clone(),
                variant_names: args.variants.clone(),
                profile_file: None,
                discover: false,
            },
        };
        let mut libtest = args.test.libtest();
        // Trials wait on the network, not the CPU: many more threads than cores keep the pipe
        // full (the client lets at most 64 requests in flight at once, so a target is not
        // flooded). Measured behind 50 ms a request on the 2-core machine, with 32 in flight:
        // 8 threads 13 s, 16 threads 7.6 s, 32 threads 5.2 s, 48 threads 4.8 s, 64 threads
        // 5.2 s; with 64 in flight, writing a HAR: 48 threads 5.3 s, 64 threads 5.3 s, 96
        // threads 5.7 s (more trials wait at the gate, not more run). Locally 48 threads cost
        // no time and 9 MB more than 8.
        libtest
            .test_threads
            .get_or_insert(plan::DEFAULT_TRIALS_IN_FLIGHT);
        let terse = args.test.quiet || args.test.format == Some(crate::cli::TrialFormat::Terse);
        Ok(RunPlan {
            libtest,
            listing: args.test.list,
            progress: progress::mode(args.test.list, terse),
            timeout,
            max_body: args.max_body,
            rate: args.rate,
            property_cases: args.property_cases,
            sequence_depth: args.depth,
            require_complete: args.require_complete,
            discover: resolved.discover,
            profile_file: resolved.profile_file,
            webhook_listen: args.webhook_listen,
            webhook_url: args.webhook_url.clone(),
            outputs: Outputs {
                json: args.json.clone(),
                junit: args.junit.clone(),
                html: args.report.clone(),
            },
            verbose: args.verbose,
            har: args.har.clone().map(|path| HarOutput {
                path,
                failed_only: args.har_failed,
            }),
            rerun,
            catalog_names: all.iter().map(|c| c.name.clone()).collect(),
            fault_names: resolved.fault_names,
            variant_names: resolved.variant_names,
            contract,
            cases,
            chosen,
            not_selected,
            selection: selected,
            target: resolved.target,
            run_id: args.run_id.clone().unwrap_or_else(new_run_id),
            seed: args.seed.unwrap_or_else(rand::random),
        })
    }

    /// Whether the target is the embedded reference.
    pub fn embedded(&self) -> bool {
        matches!(self.target, TargetSpec::Embedded { .. })
    }
}

/// What a run certifies, with what the reports and the `serve` command name of it.
struct Resolved {
    target: TargetSpec,
    /// The embedded reference's faults and variants, by name.
    fault_names: Vec<String>,
    variant_names: Vec<String>,
    /// The profile file of a `--target`.
    profile_file: Option<PathBuf>,
    /// Whether the fixtures the profile lacks are discovered first.
    discover: bool,
}

/// The target a `--rerun` certifies without `--target`: the result's own. The embedded
/// reference again with the result's faults and variants (unless `--fault` or `--variant`
/// give others), refused when the catalog no longer has one of them; or the result's target
/// URL with its profile file (unless `--profile` gives another) and discovery, refused when
/// the file is gone or the key missing. Never the embedded reference in place of a target.
fn rerun_target(
    args: &RunArgs,
    rerun: &super::rerun::Rerun,
    key_from_env: bool,
) -> Result<Resolved, Error> {
    let certified = &rerun.certified;
    let path = rerun.path.clone();
    if certified.embedded {
        if args.profile.is_some() {
            return Err(Error::ProfileWithReference);
        }
        let (fault_names, variant_names) = if args.faults.is_empty() && args.variants.is_empty() {
            (certified.faults.clone(), certified.origin.variants.clone())
        } else {
            (args.faults.clone(), args.variants.clone())
        };
        let gone = |name: String| Error::RerunFaultGone {
            name,
            path: path.clone(),
        };
        let faults = parse_faults(&fault_names).map_err(|e| match e {
            Error::UnknownFault { name, .. } => gone(name),
            e => e,
        })?;
        let variants = parse_variants(&variant_names).map_err(|e| match e {
            Error::UnknownVariant { name, .. } => gone(name),
            e => e,
        })?;
        return Ok(Resolved {
            target: TargetSpec::Embedded { faults, variants },
            fault_names,
            variant_names,
            profile_file: None,
            discover: false,
        });
    }
    if !args.faults.is_empty() || !args.variants.is_empty() {
        return Err(Error::FaultsWithTarget);
    }
    let profile_file = match (&args.profile, &certified.origin.profile_file) {
        (Some(p), _) => Some(p.clone()),
        (None, Some(p)) => Some(PathBuf::from(p)),
        (None, None) if matches!(certified.profile.as_str(), "none" | "discovery") => None,
        (None, None) => return Err(Error::RerunProfileUnnamed { path }),
    };
    if let Some(p) = profile_file.as_ref().filter(|p| !p.exists()) {
        return Err(Error::RerunProfileGone {
            profile: p.clone(),
            path,
        });
    }
    check_target_url(&certified.url)?;
    Ok(Resolved {
        target: given_target(args, &certified.url, profile_file.as_ref(), key_from_env)?,
        fault_names: Vec::new(),
        variant_names: Vec::new(),
        profile_file,
        discover: args.discover || certified.origin.discovered,
    })
}

/// The options of a run that no later step could use: a thread count, a timeout and a rate.
fn check_run_options(args: &RunArgs) -> Result<(), Error> {
    if args.test.test_threads == Some(0) {
        return Err(Error::NoTestThreads);
    }
    check_seconds("--timeout", args.timeout)?;
    if let Some(rate) = args.rate {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(Error::NotPositiveRate { value: rate });
        }
    }
    Ok(())
}

/// A number of seconds that can bound a wait: finite and above zero.
fn check_seconds(option: &'static str, value: f64) -> Result<(), Error> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(Error::NotPositiveSeconds { option, value })
    }
}

/// `--target` and `--webhook-url` are http(s) URLs.
fn check_run_urls(args: &RunArgs) -> Result<(), Error> {
    if let Some(url) = &args.target {
        check_target_url(url)?;
    }
    if let Some(url) = &args.webhook_url {
        check_http_url("--webhook-url", url)?;
    }
    Ok(())
}

/// A `--target` must be an http(s) URL; one without a scheme gets the likely fix.
fn check_target_url(url: &str) -> Result<(), Error> {
    const OPTION: &str = "--target URL";
    if !url.contains("://") {
        return Err(Error::BadUrl {
            option: OPTION,
            url: url.to_string(),
            problem: UrlProblem::NoScheme {
                likely: format!("http://{url}"),
            },
        });
    }
    check_http_url(OPTION, url)
}

/// `url` parses, as http or https.
fn check_http_url(option: &'static str, url: &str) -> Result<(), Error> {
    let bad = |problem| Error::BadUrl {
        option,
        url: url.to_string(),
        problem,
    };
    let parsed = reqwest::Url::parse(url).map_err(|e| bad(UrlProblem::Unparsable(e)))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(bad(UrlProblem::NotHttp));
    }
    Ok(())
}

/// The target at `url`, with its profile file (or none) and the key from the flag, the
/// environment or the profile.
fn given_target(
    args: &RunArgs,
    url: &str,
    profile_file: Option<&PathBuf>,
    key_from_env: bool,
) -> Result<TargetSpec, Error> {
    if !args.faults.is_empty() || !args.variants.is_empty() {
        return Err(Error::FaultsWithTarget);
    }
    let profile = load_profile(profile_file)?;
    let (api_key, key_source) =
        key_and_source(args.api_key.as_ref(), key_from_env, &profile, profile_file);
    if api_key.is_none() && !args.test.list {
        return Err(Error::NoApiKey);
    }
    Ok(TargetSpec::Given {
        url: url.to_string(),
        profile,
        api_key,
        key_source,
    })
}

/// The `--profile` read, or an empty profile without one.
fn load_profile(path: Option<&PathBuf>) -> Result<Profile, Error> {
    Ok(match path {
        Some(p) => Profile::load(p)?,
        None => Profile::default(),
    })
}

/// The key given (by `--api-key` or, when `from_env`, the environment), else the profile's, and
/// where it came from.
fn key_and_source(
    given: Option<&String>,
    from_env: bool,
    profile: &Profile,
    profile_path: Option<&PathBuf>,
) -> (Option<String>, KeySource) {
    // An empty WORKSPACE_API_KEY is no key: CI systems set the variable empty when a secret is
    // not defined (a job that passes a secret through), and the profile's key must then count.
    let given = given.filter(|k| !(from_env && k.is_empty()));
    match (given, &profile.api_key) {
        (Some(k), _) if from_env => (Some(k.clone()), KeySource::Environment),
        (Some(k), _) => (Some(k.clone()), KeySource::Flag),
        (None, Some(k)) => (
            Some(k.clone()),
            KeySource::Profile(
                profile_path
                    .map(|p| p.display().to_string())
                    .unwrap_or_default(),
            ),
        ),
        (None, None) => (None, KeySource::Flag),
    }
}

/// Parses fault names; an unknown one lists the catalog.
pub fn parse_faults(names: &[String]) -> Result<FaultSet, Error> {
    let mut faults = Vec::new();
    for n in names {
        match Fault::from_name(n) {
            Some(f) => faults.push(f),
            None => {
                let known = CATALOG.iter().chain(PENDING).map(|f| f.name);
                return Err(Error::UnknownFault {
                    name: n.clone(),
                    nearest: super::nearest::nearest(n, known),
                    catalog: CATALOG.len(),
                    pending: PENDING.len(),
                });
            }
        }
    }
    Ok(FaultSet::new(faults))
}

/// Parses variant names; `all` switches on every one; an unknown one lists the catalog.
pub fn parse_variants(names: &[String]) -> Result<VariantSet, Error> {
    if names.iter().any(|n| n == "all") {
        return Ok(VariantSet::all());
    }
    let mut out = Vec::new();
    for n in names {
        match Variant::from_name(n) {
            Some(v) => out.push(v),
            None => {
                return Err(Error::UnknownVariant {
                    name: n.clone(),
                    nearest: super::nearest::nearest(n, VARIANTS.iter().map(|v| v.name)),
                    count: VARIANTS.len(),
                });
            }
        }
    }
    Ok(VariantSet::new(out))
}

/// A fresh run id: 8 characters `[a-z0-9]`, starting with `r`.
pub fn new_run_id() -> String {
    format!("r{:07x}", rand::random::<u32>() & 0x0fff_ffff)
}

/// `discover`'s arguments, checked: the bounds, the target's URL, the profile whose gaps it fills
/// and the key.
pub struct CheckedDiscover {
    pub args: DiscoverArgs,
    /// The hand-written profile, or an empty one.
    pub base: Profile,
    pub key: String,
    pub key_source: KeySource,
}

impl CheckedDiscover {
    /// Checks `discover`'s arguments: the bounds, the URL, the profile, then the key.
    pub fn check(args: DiscoverArgs, key_from_env: bool) -> Result<CheckedDiscover, Error> {
        check_seconds("--timeout", args.timeout)?;
        check_seconds("--max-seconds", args.max_seconds)?;
        check_target_url(&args.target)?;
        let base = load_profile(args.profile.as_ref())?;
        let (key, key_source) = key_and_source(
            args.api_key.as_ref(),
            key_from_env,
            &base,
            args.profile.as_ref(),
        );
        let Some(key) = key else {
            return Err(Error::NoApiKey);
        };
        Ok(CheckedDiscover {
            args,
            base,
            key,
            key_source,
        })
    }
}

/// What `serve` was asked: a listing to print, or the reference to serve.
pub enum CheckedServe {
    /// `--list-faults` or `--list-variants` (the README's tables with `--markdown`).
    Listing(String),
    /// The reference on `--listen`, with these faults and variants.
    Serve {
        faults: FaultSet,
        variants: VariantSet,
        args: ServeArgs,
    },
}

impl CheckedServe {
    /// Checks `serve`'s arguments: the listing asked for, then the variant and fault names.
    pub fn check(args: ServeArgs) -> Result<CheckedServe, Error> {
        let listing = match (args.list_faults, args.list_variants, args.markdown) {
            (true, _, false) => listing::fault_lines(),
            (true, _, true) => listing::fault_tables(),
            (false, true, false) => listing::variant_lines(),
            (false, true, true) => listing::variant_tables(),
            (false, false, true) => return Err(Error::MarkdownWithoutList),
            (false, false, false) => {
                let variants = parse_variants(&args.variants)?;
                let faults = parse_faults(&args.faults)?;
                return Ok(CheckedServe::Serve {
                    faults,
                    variants,
                    args,
                });
            }
        };
        Ok(CheckedServe::Listing(listing))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};
    use crate::error::NothingSelected;

    /// The run arguments of a command line, the key left to the line (not the environment).
    fn run_args(line: &[&str]) -> RunArgs {
        let cli = Cli::try_parse_from(
            std::iter::once("workspace-conformance").chain(line.iter().copied()),
        )
        .expect("a valid command line");
        let mut args = cli.run;
        if !line.contains(&"--api-key") {
            args.api_key = None;
        }
        args
    }

    fn check(line: &[&str]) -> Result<RunPlan, Error> {
        RunPlan::check(run_args(line), false)
    }

    #[test]
    fn a_run_of_the_reference_is_checked_without_reaching_anything() {
        let checked =
            check(&["--fault", "contact-404-wrong-code", "v1.contacts"]).expect("checked");
        assert!(matches!(checked.target, TargetSpec::Embedded { .. }));
        assert!(!checked.chosen.is_empty());
        assert!(checked.chosen.iter().all(|n| n.contains("v1.contacts")));
        assert_eq!(checked.run_id.len(), 8);
    }

    #[test]
    fn a_target_without_a_key_is_refused_before_it_is_reached() {
        // Port 9 answers nothing: reaching it would be a different error.
        let e = check(&["--target", "http://127.0.0.1:9"])
            .err()
            .expect("refused");
        assert!(matches!(e, Error::NoApiKey), "{e}");
        let checked = check(&["--target", "http://127.0.0.1:9", "--api-key", "k-123456"])
            .expect("a key is all a target needs here");
        assert!(matches!(
            checked.target,
            TargetSpec::Given {
                key_source: KeySource::Flag,
                ..
            }
        ));
        // `--list` names the trials: no key needed.
        assert!(check(&["--target", "http://127.0.0.1:9", "--list"]).is_ok());
    }

    #[test]
    fn two_mistakes_give_the_first_message() {
        let e = check(&["--test-threads", "0", "--timeout", "0", "--fault", "x"]).err();
        assert!(matches!(e, Some(Error::NoTestThreads)));
        let e = check(&["--target", "http://127.0.0.1:9", "--fault", "x"]).err();
        assert!(matches!(e, Some(Error::UnknownFault { .. })));
        let e = check(&["--target", "nope", "--area", "contact"]).err();
        assert!(
            matches!(&e, Some(Error::BadUrl { problem: UrlProblem::NoScheme { likely }, .. }) if likely == "http://nope")
        );
        let e = check(&["--area", "contact", "--discover"]).err();
        assert!(matches!(e, Some(Error::UnknownArea { .. })));
        let e = check(&["--target", "http://127.0.0.1:9", "--variant", "all"]).err();
        assert!(matches!(e, Some(Error::FaultsWithTarget)));
    }

    #[test]
    fn options_of_the_target_are_refused_without_one() {
        let e = check(&["--profile", "profile.json"]).err();
        assert!(matches!(e, Some(Error::ProfileWithReference)));
        let e = check(&["--discover"]).err();
        assert!(matches!(e, Some(Error::DiscoverWithoutTarget)));
    }

    #[test]
    fn an_unknown_area_names_the_closest_even_beside_a_known_one() {
        for line in [
            &["--area", "contact"][..],
            &["--area", "contact", "--area", "tasks"],
        ] {
            let e = check(line).err();
            assert!(
                matches!(&e, Some(Error::UnknownArea { name, nearest: Some(n), .. }) if name == "contact" && n == "contacts"),
                "{line:?}: {e:?}"
            );
        }
        let Some(Error::NothingSelected(why)) = check(&["--tag", "no-such-tag"]).err() else {
            panic!("a selection of nothing is refused");
        };
        assert_eq!(why.given, ["--tag no-such-tag"]);
        let empty = NothingSelected {
            given: vec![],
            areas: vec![],
        };
        assert!(empty.to_string().contains("(the catalog is empty)"));
    }

    #[test]
    fn a_mistyped_fault_or_variant_gets_one_short_line_with_the_name_meant() {
        let e = check(&["--fault", "webhook-wrong-secrt"])
            .err()
            .expect("refused");
        let text = e.to_string();
        assert!(
            text.contains("did you mean `webhook-wrong-secret`?"),
            "{text}"
        );
        assert!(text.len() < 200, "{text}");
        let e = check(&["--variant", "nul-fields"]).err().expect("refused");
        assert!(matches!(e, Error::UnknownVariant { .. }), "{e}");
        assert!(e.to_string().len() < 200, "{e}");
    }

    #[test]
    fn discover_and_serve_check_their_arguments_first() {
        let parse = |line: &[&str]| {
            Cli::try_parse_from(
                std::iter::once("workspace-conformance").chain(line.iter().copied()),
            )
            .expect("a valid command line")
            .command
        };
        let Some(Command::Discover(args)) = parse(&[
            "discover",
            "--target",
            "http://127.0.0.1:9",
            "--out",
            "o.json",
            "--api-key",
            "k",
            "--max-seconds",
            "0",
        ]) else {
            panic!("discover");
        };
        let e = CheckedDiscover::check(args, false).err();
        assert!(
            matches!(
                e,
                Some(Error::NotPositiveSeconds {
                    option: "--max-seconds",
                    ..
                })
            ),
            "{e:?}"
        );
        let Some(Command::Serve(args)) = parse(&["serve", "--markdown", "--fault", "x"]) else {
            panic!("serve");
        };
        let e = CheckedServe::check(args).err();
        assert!(matches!(e, Some(Error::MarkdownWithoutList)), "{e:?}");
    }

    #[test]
    fn every_error_of_a_command_exits_2() {
        for e in [
            Error::NoTestThreads,
            Error::NoApiKey,
            Error::FaultsWithTarget,
            Error::Runtime(std::io::Error::other("x")),
        ] {
            assert_eq!(e.exit_code(), std::process::ExitCode::from(2), "{e}");
        }
    }

    #[test]
    fn an_empty_key_of_the_environment_leaves_the_profiles() {
        let profile = Profile {
            api_key: Some("profile-key".into()),
            ..Profile::default()
        };
        let empty = String::new();
        let (key, _) = key_and_source(Some(&empty), true, &profile, None);
        assert_eq!(key.as_deref(), Some("profile-key"));
        // An empty --api-key is the user's own word: it is sent, and the preflight refuses it.
        let (key, _) = key_and_source(Some(&empty), false, &profile, None);
        assert_eq!(key.as_deref(), Some(""));
        let given = "env-key".to_string();
        let (key, _) = key_and_source(Some(&given), true, &profile, None);
        assert_eq!(key.as_deref(), Some("env-key"));
    }
}
