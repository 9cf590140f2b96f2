//! The two commands: a certification run (default) and `serve`. Setup problems end the process
//! with exit code 2 and one message; failed cases with 1.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use clap::{CommandFactory, FromArgMatches};

use crate::cases::Case;
use crate::catalog;
use crate::cli::{Cli, Command, DiscoverArgs, RunArgs, ServeArgs};
use crate::client::{Client, ClientConfig, Outgoing, Redactor, TransportError};
use crate::contract::Contract;
use crate::execute::Executor;
use crate::plan::{self, Recorder};
use crate::profile::Profile;
use crate::reference::{self, CATALOG, Fault, FaultSet, VARIANTS, Variant, VariantSet};
use crate::report::{self, Report, RunInfo};

/// A problem that stops the run before any case: exit code 2.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(pub String);

impl SetupError {
    fn new(msg: impl Into<String>) -> Self {
        SetupError(msg.into())
    }
}

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let matches = command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let key_from_env = matches!(
        matches.value_source("api_key"),
        Some(clap::parser::ValueSource::EnvVariable)
    );
    crate::output::guard_stdout();
    let result = match cli.command {
        Some(Command::Serve(args)) => serve(args),
        Some(Command::Discover(args)) => {
            let from_env = matches.subcommand_matches("discover").is_some_and(|m| {
                matches!(
                    m.value_source("api_key"),
                    Some(clap::parser::ValueSource::EnvVariable)
                )
            });
            discover(args, from_env)
        }
        None => run(cli.run, key_from_env),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    };
    crate::output::finish();
    code
}

/// The command line: [`Cli`] with libtest's options that do not apply to a certification
/// (benchmarks, capture, unstable flags) hidden from `--help`.
pub fn command() -> clap::Command {
    let mut cmd = Cli::command();
    for id in [
        "test",
        "bench",
        "nocapture",
        "show_output",
        "unstable_flags",
    ] {
        cmd = cmd.mut_arg(id, |a| a.hide(true));
    }
    cmd
}

fn runtime() -> Result<tokio::runtime::Runtime, SetupError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| SetupError::new(format!("cannot start the async runtime: {e}")))
}

/// Parses fault names; an unknown one lists the catalog.
pub fn parse_faults(names: &[String]) -> Result<FaultSet, SetupError> {
    let mut faults = Vec::new();
    for n in names {
        match Fault::from_name(n) {
            Some(f) => faults.push(f),
            None => {
                let known: Vec<&str> = CATALOG.iter().map(|f| f.name).collect();
                return Err(SetupError::new(format!(
                    "unknown fault `{n}`; known faults: {}",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(FaultSet::new(faults))
}

/// Parses variant names; `all` switches on every one; an unknown one lists the catalog.
pub fn parse_variants(names: &[String]) -> Result<VariantSet, SetupError> {
    if names.iter().any(|n| n == "all") {
        return Ok(VariantSet::all());
    }
    let mut out = Vec::new();
    for n in names {
        match Variant::from_name(n) {
            Some(v) => out.push(v),
            None => {
                let known: Vec<&str> = VARIANTS.iter().map(|v| v.name).collect();
                return Err(SetupError::new(format!(
                    "unknown variant `{n}`; known variants: all, {}",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(VariantSet::new(out))
}

/// A fresh run id: 8 characters `[a-z0-9]`, starting with `r`.
pub fn new_run_id() -> String {
    format!("r{:07x}", rand::random::<u32>() & 0x0fff_ffff)
}

/// Builds the client for a target, with every secret of the profile registered for redaction.
pub fn client_for(
    base_url: &str,
    api_key: Option<String>,
    profile: &Profile,
    timeout: Duration,
    max_body: usize,
    rate: Option<f64>,
) -> Result<Arc<Client>, SetupError> {
    // The process's redactor: checks redact what they quote from the target with it.
    let redactor = Redactor::global();
    for s in profile.secret_values() {
        redactor.secret(&s);
    }
    Client::new(
        ClientConfig {
            base_url: base_url.to_string(),
            api_key,
            timeout,
            max_body_bytes: max_body,
            rate,
        },
        redactor,
    )
    .map_err(SetupError)
}

/// Whether the target answers at all (any HTTP status will do), within 5 seconds.
pub async fn probe(client: &Client) -> Result<(), TransportError> {
    let out = Outgoing {
        method: "GET".into(),
        path: "/".into(),
        query: vec![],
        headers: vec![],
        body: None,
        auth: crate::client::Auth::None,
    };
    let ex = tokio::time::timeout(Duration::from_secs(5), client.send(&out))
        .await
        .map_err(|_| TransportError::Timeout(Duration::from_secs(5)))?;
    match ex.outcome {
        // A target that says it closes is taken at its word: that connection is never reused.
        Ok(r)
            if r.header("connection")
                .is_some_and(|c| c.to_ascii_lowercase().contains("close")) =>
        {
            return Ok(());
        }
        Ok(_) => {}
        Err(TransportError::BodyTooLarge { .. }) => return Ok(()),
        Err(e) => return Err(e),
    }
    // Bounded like the probe: a target that answered once answers again, or keeps its pool.
    let _ =
        tokio::time::timeout(Duration::from_secs(5), client.settle_connection_reuse(&out)).await;
    Ok(())
}

/// A certification run: the options checked, the trials selected, the target reached and its
/// keys checked, the trials run, the reports written, what the run created removed.
fn run(mut args: RunArgs, key_from_env: bool) -> Result<ExitCode, SetupError> {
    if args.list_fixtures {
        return list_fixtures(&args);
    }
    check_run_options(&args)?;
    if args.test.format == Some(libtest_mimic::FormatSetting::Json) {
        // stdout carries libtest's JSON events only.
        crate::output::lines_to_stderr();
    }
    let timeout = Duration::from_secs_f64(args.timeout);
    let (contract, cases) =
        catalog::load(args.case_dir.as_deref()).map_err(|e| SetupError::new(e.to_string()))?;
    let faults = parse_faults(&args.faults)?;
    let variants = parse_variants(&args.variants)?;
    let listing = args.test.list;
    check_run_urls(&args)?;
    let (cases, chosen) = select_trials(&args, cases)?;
    let rt = runtime()?;
    let target = Target::resolve(&args, key_from_env, faults, variants, &rt)?;
    let client = target.client(&args, timeout)?;
    let (profile, discovery) = if listing {
        (target.profile.clone(), None)
    } else {
        prepare_target(&rt, &client, &args, &target, &cases, &chosen)?
    };
    let run_id = args.run_id.clone().unwrap_or_else(new_run_id);
    let seed = args.seed.unwrap_or_else(rand::random);
    let receiver = start_receiver(&args, &rt, &cases, &chosen)?;
    // Where each fixture came from, for the reports.
    let fixture_sources = fixture_sources(&args, &profile, discovery.as_ref());
    let mut exec = Executor::new(contract.clone(), client.clone(), profile, run_id.clone())
        .with_properties(seed, args.property_cases)
        .with_receiver(receiver);
    if let Some(d) = &discovery {
        exec.missing_reasons = d.missing_reasons();
    }
    let exec = Arc::new(exec);
    let recorder = Arc::new(Recorder::default());
    let trials = plan::trials(&cases, exec.clone(), rt.handle().clone(), recorder.clone());
    if args.test.test_threads.is_none() {
        // Trials wait on the network, not the CPU: more threads than cores keeps the pipe full.
        args.test.test_threads = Some(8);
    }
    // What the run is doing, for a signal: trials, or the cleanup (the reports are written).
    let phase = Arc::new(AtomicU8::new(TRIALS));
    // The exit code of the signal that interrupted the run (130 Ctrl-C, 143 SIGTERM).
    let signal = Arc::new(AtomicU8::new(0));
    if !listing {
        let what = if args.target.is_some() {
            target.base_url.clone()
        } else {
            format!("the embedded reference at {}", target.base_url)
        };
        let n = chosen.len();
        crate::output::say(&format!(
            "certifying {what} (run {run_id}, seed {seed}, {n} trials)"
        ));
        handle_signals(&rt, &exec, &phase, &signal);
    }
    let started = time::OffsetDateTime::now_utc();
    let start = Instant::now();
    let conclusion = libtest_mimic::run(&args.test, trials);
    if listing {
        return Ok(ExitCode::SUCCESS);
    }
    let results = recorder.take();
    let interrupted = exec.cleanup.is_interrupted();
    say_verdict(&args, &client, &results, interrupted, start);
    let reports = Reports {
        args: &args,
        base_url: &target.base_url,
        fixture_sources: &fixture_sources,
        run_id: &run_id,
        seed,
        started,
        start,
        client: &client,
        exec: &exec,
        contract: &contract,
        results: &results,
    };
    // The reports exist before the cleanup, which a silent target or a kill can cut short; they
    // list what is still registered as not removed, and are rewritten once the cleanup is done.
    reports.write(&exec.cleanup.pending_summary())?;
    phase.store(CLEANING, Ordering::SeqCst);
    let summary = clean_up(&rt, &exec, &client, timeout);
    phase.store(REWRITING, Ordering::SeqCst);
    reports.write(&summary)?;
    Ok(exit_code(
        &args,
        &results,
        interrupted,
        &signal,
        &conclusion,
    ))
}

/// `--list-fixtures`: the fixtures a profile may name, as lines or (`--markdown`) the README's
/// table.
fn list_fixtures(args: &RunArgs) -> Result<ExitCode, SetupError> {
    let text = if args.markdown {
        crate::profile::fixture_table()
    } else {
        crate::profile::fixture_lines()
    };
    print!("{}", text.map_err(|e| SetupError(e.to_string()))?);
    Ok(ExitCode::SUCCESS)
}

/// The options of a run that no later step could use: a thread count, a timeout and a rate.
fn check_run_options(args: &RunArgs) -> Result<(), SetupError> {
    if args.test.test_threads == Some(0) {
        return Err(SetupError::new(
            "--test-threads 0 would run no trial and wait forever: give at least 1",
        ));
    }
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(SetupError::new(
            "--timeout must be a positive number of seconds",
        ));
    }
    if let Some(rate) = args.rate {
        if !(rate.is_finite() && rate > 0.0) {
            return Err(SetupError::new(
                "--rate must be a positive number of requests per second",
            ));
        }
    }
    Ok(())
}

/// `--target` and `--webhook-url` are http(s) URLs.
fn check_run_urls(args: &RunArgs) -> Result<(), SetupError> {
    if let Some(url) = &args.target {
        check_target_url(url)?;
    }
    if let Some(url) = &args.webhook_url {
        let parsed = reqwest::Url::parse(url)
            .map_err(|e| SetupError::new(format!("bad --webhook-url `{url}`: {e}")))?;
        if !matches!(parsed.scheme(), "http" | "https") {
            return Err(SetupError::new(format!(
                "bad --webhook-url `{url}`: use http:// or https://"
            )));
        }
    }
    Ok(())
}

/// The cases the selection options keep, and the names of those libtest will run of them (its
/// filter, --skip, --exact, --ignored). Nothing chosen is a setup mistake (a typo of an area or
/// a filter), never a pass.
fn select_trials(
    args: &RunArgs,
    cases: Vec<Arc<Case>>,
) -> Result<(Vec<Arc<Case>>, std::collections::HashSet<String>), SetupError> {
    let known_areas: std::collections::BTreeSet<String> =
        cases.iter().map(|c| c.area.clone()).collect();
    let cases = catalog::select(
        cases,
        &catalog::Selection {
            areas: args.areas.clone(),
            tags: args.tags.clone(),
            read_only: args.read_only,
            partition: args.partition,
        },
    );
    let chosen: std::collections::HashSet<String> = cases
        .iter()
        .filter(|c| {
            !args
                .test
                .is_filtered_out(&libtest_mimic::Trial::test(c.name.clone(), || Ok(())))
        })
        .map(|c| c.name.clone())
        .collect();
    if chosen.is_empty() && !args.test.list {
        return Err(SetupError::new(nothing_selected(args, &known_areas)));
    }
    if args.discover && args.target.is_none() {
        return Err(SetupError::new(
            "--discover finds the fixtures of a --target; the embedded reference supplies its own",
        ));
    }
    Ok((cases, chosen))
}

/// What a run certifies: a `--target` with the profile and key given, or the embedded reference
/// (started here, stopped when this is dropped) with its own.
struct Target {
    base_url: String,
    profile: Profile,
    api_key: Option<String>,
    key_source: crate::preflight::KeySource,
    _reference: Option<reference::Running>,
}

impl Target {
    fn resolve(
        args: &RunArgs,
        key_from_env: bool,
        faults: FaultSet,
        variants: VariantSet,
        rt: &tokio::runtime::Runtime,
    ) -> Result<Target, SetupError> {
        match &args.target {
            Some(url) => Target::given(args, url, key_from_env),
            None => Target::embedded(args, faults, variants, rt),
        }
    }

    /// The client for the target, with every secret of its profile registered for redaction.
    fn client(&self, args: &RunArgs, timeout: Duration) -> Result<Arc<Client>, SetupError> {
        client_for(
            &self.base_url,
            self.api_key.clone(),
            &self.profile,
            timeout,
            args.max_body,
            args.rate,
        )
    }

    /// The `--target` at `url`, with its profile (or none) and the key from the flag, the
    /// environment or the profile.
    fn given(args: &RunArgs, url: &str, key_from_env: bool) -> Result<Target, SetupError> {
        if !args.faults.is_empty() || !args.variants.is_empty() {
            return Err(SetupError::new(
                "--fault and --variant apply to the embedded reference only; leave out --target",
            ));
        }
        let profile = match &args.profile {
            Some(p) => Profile::load(p).map_err(|e| SetupError::new(e.to_string()))?,
            None => Profile::default(),
        };
        let (api_key, key_source) = key_and_source(
            args.api_key.as_ref(),
            key_from_env,
            &profile,
            args.profile.as_deref(),
        );
        if api_key.is_none() && !args.test.list {
            return Err(SetupError::new(NO_API_KEY));
        }
        Ok(Target {
            base_url: url.to_string(),
            profile,
            api_key,
            key_source,
            _reference: None,
        })
    }

    /// The embedded reference with `faults` and `variants` on, on a loopback port.
    fn embedded(
        args: &RunArgs,
        faults: FaultSet,
        variants: VariantSet,
        rt: &tokio::runtime::Runtime,
    ) -> Result<Target, SetupError> {
        if args.profile.is_some() {
            return Err(SetupError::new(
                "--profile describes a --target; the embedded reference supplies its own",
            ));
        }
        let running = rt
            .block_on(reference::start(reference::Options {
                faults,
                variants,
                ..Default::default()
            }))
            .map_err(|e| {
                SetupError::new(format!("cannot start the reference implementation: {e}"))
            })?;
        let profile = running.profile.clone();
        Ok(Target {
            base_url: format!("http://{}", running.addr),
            api_key: profile.api_key.clone(),
            profile,
            key_source: crate::preflight::KeySource::Reference,
            _reference: Some(running),
        })
    }
}

const NO_API_KEY: &str =
    "no API key: give --api-key, set WORKSPACE_API_KEY, or put apiKey in the profile";

/// The key given (by `--api-key` or, when `from_env`, the environment), else the profile's, and
/// where it came from.
fn key_and_source(
    given: Option<&String>,
    from_env: bool,
    profile: &Profile,
    profile_path: Option<&Path>,
) -> (Option<String>, crate::preflight::KeySource) {
    use crate::preflight::KeySource;
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

/// Before the first trial: the target answers and takes the run's key, `--discover` fills the
/// profile's gaps, and each extra key a chosen case sends is taken. The profile the trials use,
/// and the discovery if any.
fn prepare_target(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    args: &RunArgs,
    target: &Target,
    cases: &[Arc<Case>],
    chosen: &std::collections::HashSet<String>,
) -> Result<(Profile, Option<crate::discover::Discovery>), SetupError> {
    reach(rt, client, target)?;
    let mut profile = target.profile.clone();
    let mut discovery = None;
    if args.discover {
        let d = discover_before_trials(rt, client, args, &profile);
        profile = d.profile();
        discovery = Some(d);
    }
    check_extra_keys(rt, client, &profile, cases, chosen)?;
    Ok((profile, discovery))
}

/// The target answers, and takes the run's key.
fn reach(rt: &tokio::runtime::Runtime, client: &Client, target: &Target) -> Result<(), SetupError> {
    rt.block_on(probe(client)).map_err(|e| {
        SetupError::new(format!(
            "the target {} is unreachable: {e}",
            target.base_url
        ))
    })?;
    if client.one_connection_per_request() {
        crate::output::say(
            "note: the target closes its connection after each answer without `Connection: close`; the suite opens one connection per request",
        );
    }
    rt.block_on(crate::preflight::check(
        client,
        crate::client::Auth::Primary,
        &target.key_source.to_string(),
        true,
    ))
    .map_err(SetupError)
}

/// `--discover`: the fixtures the profile lacks, found with GET requests before the first
/// trial.
fn discover_before_trials(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    args: &RunArgs,
    profile: &Profile,
) -> crate::discover::Discovery {
    let d = rt.block_on(crate::discover::discover(
        client,
        profile,
        args.profile.as_ref().map(|p| p.display().to_string()),
        crate::discover::Limits::default(),
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

/// Each extra key of the profile that a chosen case sends is taken by the target.
fn check_extra_keys(
    rt: &tokio::runtime::Runtime,
    client: &Client,
    profile: &Profile,
    cases: &[Arc<Case>],
    chosen: &std::collections::HashSet<String>,
) -> Result<(), SetupError> {
    for (name, forbidden_counts) in crate::preflight::extra_keys() {
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
        rt.block_on(crate::preflight::check(
            client,
            crate::client::Auth::Key {
                key: key.to_string(),
                label,
            },
            &format!("the profile's fixture `{name}` (an API key)"),
            *forbidden_counts,
        ))
        .map_err(SetupError)?;
    }
    Ok(())
}

/// The webhook receiver, started once when a chosen case needs it (never for `--list`).
fn start_receiver(
    args: &RunArgs,
    rt: &tokio::runtime::Runtime,
    cases: &[Arc<Case>],
    chosen: &std::collections::HashSet<String>,
) -> Result<Option<Arc<crate::webhooks::Receiver>>, SetupError> {
    let needed = cases
        .iter()
        .any(|c| c.uses_receiver && chosen.contains(&c.name));
    if args.test.list || !needed {
        return Ok(None);
    }
    let listen = args
        .webhook_listen
        .unwrap_or_else(|| std::net::SocketAddr::from(([127, 0, 0, 1], 0)));
    rt.block_on(crate::webhooks::Receiver::start(
        listen,
        args.webhook_url.as_deref(),
    ))
    .map(Some)
    .map_err(|e| {
        SetupError::new(format!(
            "cannot start the webhook receiver on {listen}: {e}"
        ))
    })
}

/// Ctrl-C or SIGTERM (a CI kill): no new trial starts, running ones stop, the reports are
/// written, what the run created is deleted. During the cleanup, or a second time: quit at once;
/// the reports written before the cleanup stand.
fn handle_signals(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    phase: &Arc<AtomicU8>,
    signal: &Arc<AtomicU8>,
) {
    let cleanup = exec.cleanup.clone();
    let phase = phase.clone();
    let signal = signal.clone();
    rt.spawn(async move {
        let mut first = true;
        while let Some(code) = next_signal().await {
            if phase.load(Ordering::SeqCst) == CLEANING {
                eprintln!(
                    "interrupted during the cleanup: quitting; the reports written before it list what may be left"
                );
                std::process::exit(i32::from(code));
            }
            if !first {
                eprintln!("interrupted again: quitting at once");
                std::process::exit(i32::from(code));
            }
            first = false;
            signal.store(code, Ordering::SeqCst);
            crate::output::mark_interrupted();
            eprintln!(
                "interrupted: stopping the trials and removing what the run created (Ctrl-C again to quit at once)"
            );
            cleanup.interrupt();
        }
    });
}

/// The verdict line and the request rate, after libtest's summary.
fn say_verdict(
    args: &RunArgs,
    client: &Client,
    results: &[(Arc<Case>, crate::execute::CaseResult)],
    interrupted: bool,
    start: Instant,
) {
    let secs = start.elapsed().as_secs_f64();
    let n = client.request_count();
    crate::output::say(&verdict_summary(
        results,
        interrupted,
        args.require_complete,
    ));
    crate::output::say(&format!(
        "requests: {n} sent in {secs:.2} s ({:.0} requests/s)",
        n as f64 / secs.max(1e-9)
    ));
}

/// What the reports of a run are made of; they are written before the cleanup and again after.
struct Reports<'a> {
    args: &'a RunArgs,
    base_url: &'a str,
    fixture_sources: &'a std::collections::BTreeMap<String, String>,
    run_id: &'a str,
    seed: u64,
    started: time::OffsetDateTime,
    start: Instant,
    client: &'a Client,
    exec: &'a Executor,
    contract: &'a Contract,
    results: &'a [(Arc<Case>, crate::execute::CaseResult)],
}

impl Reports<'_> {
    /// Writes the reports asked for (`--json`, `--junit`, `--report`) with the cleanup's
    /// `summary`; each whole or not at all.
    fn write(&self, summary: &crate::cleanup::Summary) -> Result<(), SetupError> {
        let args = self.args;
        if args.junit.is_none() && args.json.is_none() && args.report.is_none() {
            return Ok(());
        }
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
        };
        let r = &self.client.redactor;
        let report = Report::build(&info, self.contract, self.results, r, Some(summary));
        if let Some(p) = &args.json {
            write_whole(p, &report.to_json(r))?;
        }
        if let Some(p) = &args.junit {
            write_whole(p, &report.to_junit(r).map_err(SetupError)?)?;
        }
        if let Some(p) = &args.report {
            write_whole(p, &report.to_html(r).map_err(SetupError)?)?;
        }
        Ok(())
    }
}

/// Removes what the run created, and says what was left and how long it took.
fn clean_up(
    rt: &tokio::runtime::Runtime,
    exec: &Executor,
    client: &Arc<Client>,
    timeout: Duration,
) -> crate::cleanup::Summary {
    let cleanup_start = Instant::now();
    let summary = rt.block_on(exec.cleanup.finish(client));
    let cleanup_secs = cleanup_start.elapsed().as_secs_f64();
    crate::output::say(
        client
            .redactor
            .redact(&summary.render())
            .trim_end_matches('\n'),
    );
    if cleanup_secs >= 1.0 || !summary.not_removed.is_empty() {
        crate::output::say(&format!(
            "cleanup took {cleanup_secs:.1} s (bound {} s)",
            crate::cleanup::cleanup_bound(timeout).as_secs_f64()
        ));
    }
    summary
}

/// 130 or 143 for an interrupted run, 1 for a failed one (or an incomplete one under
/// `--require-complete`), else 0.
fn exit_code(
    args: &RunArgs,
    results: &[(Arc<Case>, crate::execute::CaseResult)],
    interrupted: bool,
    signal: &AtomicU8,
    conclusion: &libtest_mimic::Conclusion,
) -> ExitCode {
    let ignored = results
        .iter()
        .filter(|(_, r)| matches!(r.verdict, crate::execute::Verdict::Ignored(_)))
        .count();
    if interrupted {
        eprintln!("the run was interrupted: the results are partial");
        ExitCode::from(match signal.load(Ordering::SeqCst) {
            0 => 130,
            code => code,
        })
    } else if conclusion.has_failed() || (args.require_complete && ignored > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Where each fixture of a run's profile came from: the file, discovery, or the embedded
/// reference.
fn fixture_sources(
    args: &RunArgs,
    profile: &Profile,
    discovery: Option<&crate::discover::Discovery>,
) -> std::collections::BTreeMap<String, String> {
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

/// `discover`: finds the target's fixtures with GET requests, writes the profile, prints the
/// table.
fn discover(args: DiscoverArgs, key_from_env: bool) -> Result<ExitCode, SetupError> {
    if !(args.timeout.is_finite() && args.timeout > 0.0) {
        return Err(SetupError::new(
            "--timeout must be a positive number of seconds",
        ));
    }
    if !(args.max_seconds.is_finite() && args.max_seconds > 0.0) {
        return Err(SetupError::new(
            "--max-seconds must be a positive number of seconds",
        ));
    }
    check_target_url(&args.target)?;
    let base = match &args.profile {
        Some(p) => Profile::load(p).map_err(|e| SetupError::new(e.to_string()))?,
        None => Profile::default(),
    };
    let (key, source) = key_and_source(
        args.api_key.as_ref(),
        key_from_env,
        &base,
        args.profile.as_deref(),
    );
    let Some(key) = key else {
        return Err(SetupError::new(NO_API_KEY));
    };
    let client = client_for(
        &args.target,
        Some(key),
        &base,
        Duration::from_secs_f64(args.timeout),
        8 * 1024 * 1024,
        None,
    )?;
    let rt = runtime()?;
    rt.block_on(probe(&client))
        .map_err(|e| SetupError::new(format!("the target {} is unreachable: {e}", args.target)))?;
    rt.block_on(crate::preflight::check(
        &client,
        crate::client::Auth::Primary,
        &source.to_string(),
        true,
    ))
    .map_err(SetupError)?;
    eprintln!(
        "discovering the fixtures of {} (GET only; at most {} requests, {} s)",
        args.target, args.max_requests, args.max_seconds
    );
    let d = rt.block_on(crate::discover::discover(
        &client,
        &base,
        args.profile.as_ref().map(|p| p.display().to_string()),
        crate::discover::Limits {
            max_requests: args.max_requests,
            max_time: Duration::from_secs_f64(args.max_seconds),
        },
        &|line| eprintln!("{}", client.redactor.redact(line)),
    ));
    let text =
        serde_json::to_string_pretty(&d.profile()).map_err(|e| SetupError::new(e.to_string()))?;
    std::fs::write(&args.out, text + "\n")
        .map_err(|e| SetupError::new(format!("cannot write {}: {e}", args.out.display())))?;
    // What was written is read back as a run reads it: a profile `--profile` refuses is a bug.
    Profile::load(&args.out).map_err(|e| {
        SetupError::new(format!(
            "the profile written is not one --profile reads: {e}"
        ))
    })?;
    print!("{}", d.table(&client.redactor));
    println!("profile written to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}

/// A `--target` must be an http(s) URL; one without a scheme gets the likely fix.
fn check_target_url(url: &str) -> Result<(), SetupError> {
    if !url.contains("://") {
        return Err(SetupError::new(format!(
            "bad --target URL `{url}`: it has no scheme; did you mean http://{url}?"
        )));
    }
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| SetupError::new(format!("bad --target URL `{url}`: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(SetupError::new(format!(
            "bad --target URL `{url}`: use http:// or https://"
        )));
    }
    Ok(())
}

/// Why nothing is selected, with the likely fix of an unknown area.
fn nothing_selected(args: &RunArgs, known: &std::collections::BTreeSet<String>) -> String {
    let mut msg = String::from("nothing selected: no trial matches");
    let mut given = Vec::new();
    for a in &args.areas {
        given.push(format!("--area {a}"));
    }
    for t in &args.tags {
        given.push(format!("--tag {t}"));
    }
    if args.read_only {
        given.push("--read-only".into());
    }
    if let Some((k, n)) = args.partition {
        given.push(format!("--partition {k}/{n}"));
    }
    if let Some(f) = &args.test.filter {
        given.push(format!("the filter `{f}`"));
    }
    for s in &args.test.skip {
        given.push(format!("--skip {s}"));
    }
    if args.test.exact {
        given.push("--exact".into());
    }
    if args.test.ignored {
        given.push("--ignored (no trial is marked ignored)".into());
    }
    if given.is_empty() {
        msg.push_str(" (the catalog is empty)");
    } else {
        msg.push(' ');
        msg.push_str(&given.join(", "));
    }
    for a in args.areas.iter().filter(|a| !known.contains(*a)) {
        let closest = known
            .iter()
            .map(|k| (strsim::levenshtein(a, k), k))
            .min()
            .filter(|(d, _)| *d <= 3);
        match closest {
            Some((_, k)) => msg.push_str(&format!("; unknown area `{a}`: did you mean `{k}`?")),
            None => msg.push_str(&format!("; unknown area `{a}`")),
        }
    }
    msg.push_str(&format!(
        " (areas: {}; `--list` shows every trial)",
        known.iter().cloned().collect::<Vec<_>>().join(", ")
    ));
    msg
}

/// The line after libtest's summary: what the run certifies. A run with ignored trials is
/// incomplete (the reasons grouped), an interrupted one says so; only a complete run passes.
pub fn verdict_summary(
    results: &[(Arc<Case>, crate::execute::CaseResult)],
    interrupted: bool,
    require_complete: bool,
) -> String {
    use crate::execute::Verdict;
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut reasons: std::collections::BTreeMap<String, usize> = Default::default();
    for (_, r) in results {
        match &r.verdict {
            Verdict::Passed => passed += 1,
            Verdict::Failed(_) => failed += 1,
            Verdict::Ignored(why) => *reasons.entry(why.clone()).or_default() += 1,
        }
    }
    let ignored: usize = reasons.values().sum();
    let mut out = if interrupted {
        format!(
            "verdict: interrupted: {passed} passed, {failed} failed, {ignored} not run or stopped; not a certification"
        )
    } else if failed > 0 {
        format!("verdict: FAILED: {failed} failed, {passed} passed, {ignored} ignored")
    } else if ignored > 0 {
        let tail = if require_complete {
            "; --require-complete: the run fails"
        } else {
            "; not a certification (--require-complete fails such a run)"
        };
        format!("verdict: incomplete: {ignored} ignored, {passed} passed{tail}")
    } else {
        format!("verdict: PASSED: all {passed} trials passed")
    };
    if ignored > 0 && !interrupted {
        let mut grouped: Vec<(&String, &usize)> = reasons.iter().collect();
        grouped.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        for (why, n) in grouped {
            out.push_str(&format!("\n  {n} ignored: {why}"));
        }
    }
    out
}

/// Phases of a run, as a signal sees them.
const TRIALS: u8 = 0;
/// The reports are written; the cleanup runs.
const CLEANING: u8 = 1;
/// The reports are being rewritten after the cleanup.
const REWRITING: u8 = 2;

/// The next Ctrl-C (130) or SIGTERM (143), as the exit code it gives.
async fn next_signal() -> Option<u8> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).ok()?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.ok().map(|_| 130),
            r = term.recv() => r.map(|_| 143),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c().await.ok().map(|_| 130)
    }
}

/// Writes a report whole or not at all (a temporary file renamed over it), so a kill while
/// rewriting leaves the earlier report.
fn write_whole(path: &Path, text: &str) -> Result<(), SetupError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".partial");
    let tmp = std::path::PathBuf::from(tmp);
    report::write(&tmp, text).map_err(SetupError)?;
    std::fs::rename(&tmp, path)
        .map_err(|e| SetupError::new(format!("cannot write {}: {e}", path.display())))
}

/// What `serve --list-faults` or `--list-variants` prints (the README's tables with
/// `--markdown`), or None to serve.
fn serve_listing(args: &ServeArgs) -> Result<Option<String>, SetupError> {
    use reference::listing;
    Ok(Some(
        match (args.list_faults, args.list_variants, args.markdown) {
            (true, _, false) => listing::fault_lines(),
            (true, _, true) => listing::fault_tables(),
            (false, true, false) => listing::variant_lines(),
            (false, true, true) => listing::variant_tables(),
            (false, false, true) => {
                return Err(SetupError::new(
                    "--markdown prints --list-faults or --list-variants as tables: give one of them",
                ));
            }
            (false, false, false) => return Ok(None),
        },
    ))
}

fn serve(args: ServeArgs) -> Result<ExitCode, SetupError> {
    if let Some(listing) = serve_listing(&args)? {
        print!("{listing}");
        return Ok(ExitCode::SUCCESS);
    }
    let variants = parse_variants(&args.variants)?;
    let faults = parse_faults(&args.faults)?;
    let rt = runtime()?;
    rt.block_on(async {
        let running = reference::start(reference::Options {
            listen: args.listen,
            faults,
            variants,
        })
        .await
        .map_err(|e| SetupError::new(format!("cannot listen on {}: {e}", args.listen)))?;
        if let Some(path) = &args.profile_out {
            let text = serde_json::to_string_pretty(&running.profile)
                .map_err(|e| SetupError::new(e.to_string()))?;
            std::fs::write(path, text + "\n")
                .map_err(|e| SetupError::new(format!("cannot write {}: {e}", path.display())))?;
        }
        println!(
            "reference implementation listening on http://{}",
            running.addr
        );
        if !args.faults.is_empty() {
            println!("faults on: {}", args.faults.join(", "));
        }
        if !args.variants.is_empty() {
            println!("variants on: {}", args.variants.join(", "));
        }
        let _ = tokio::signal::ctrl_c().await;
        running.stop().await;
        Ok(ExitCode::SUCCESS)
    })
}

/// Certifies a fresh in-process reference with `faults` on: every case, no terminal output.
/// The suite's own tests use it to prove that each fault is caught and the clean reference passes.
pub async fn certify_reference(
    contract: Arc<Contract>,
    cases: &[Arc<Case>],
    faults: FaultSet,
    seed: u64,
) -> Result<Vec<(Arc<Case>, crate::execute::CaseResult)>, SetupError> {
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
) -> Result<Vec<(Arc<Case>, crate::execute::CaseResult)>, SetupError> {
    let running = reference::start(reference::Options {
        faults,
        variants,
        ..Default::default()
    })
    .await
    .map_err(|e| SetupError::new(format!("cannot start the reference implementation: {e}")))?;
    let base = format!("http://{}", running.addr);
    let profile = running.profile.clone();
    let results = certify_target(
        contract,
        cases,
        &base,
        profile,
        seed,
        run_id,
        Default::default(),
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
    missing_reasons: std::collections::BTreeMap<String, String>,
) -> Result<Vec<(Arc<Case>, crate::execute::CaseResult)>, SetupError> {
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
        .map_err(|e| SetupError::new(format!("cannot start the webhook receiver: {e}")))?;
    let mut exec = Executor::new(contract, client, profile, run_id.to_string())
        .with_properties(seed, 4)
        .with_receiver(Some(receiver));
    exec.missing_reasons = missing_reasons;
    Ok(plan::run_all(cases, Arc::new(exec), 8).await)
}
