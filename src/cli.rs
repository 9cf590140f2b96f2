//! Command-line arguments: `run` (the default) with libtest's arguments flattened in, and `serve`.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Certify an implementation of the Workspace Communications API.
///
/// With no --target, the embedded reference implementation is started on a loopback port and
/// certified. Trial names start with the API generation and the area (v1.contacts...), so a
/// filter selects an area.
#[derive(Debug, Parser)]
#[command(
    name = "workspace-conformance",
    bin_name = "workspace-conformance",
    version,
    about = "workspace-conformance: certify an implementation of the Workspace Communications API, clause by clause",
    help_template = HELP_TEMPLATE,
    after_help = AFTER_HELP,
    disable_version_flag = true,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// Print the version and exit.
    #[arg(short = 'V', long = "version", action = clap::ArgAction::Version)]
    pub version: Option<bool>,
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// `--help`: the program, what it does, usage, the options by group, then exit codes and
/// environment (libtest's own template names no program).
const HELP_TEMPLATE: &str =
    "{name} {version}\n{about}\n\n{usage-heading} {usage}\n\n{all-args}\n{after-help}";

/// The exit codes and environment variables, after the options of `--help`.
pub const AFTER_HELP: &str = "\
Exit codes:
  0    every selected trial passed (ignored ones allowed unless --require-complete; the
       summary then says \"incomplete: N ignored\")
  1    some trial failed (or, with --require-complete, some trial was ignored)
  2    the run could not start or certify: bad arguments, an unreachable target, a refused
       API key, a bad profile or case file, nothing selected
  130  interrupted by Ctrl-C; 143 by SIGTERM (the reports say \"interrupted\")

Environment:
  WORKSPACE_API_KEY  the API key, when --api-key is not given (before the profile's apiKey)
  SSL_CERT_FILE, SSL_CERT_DIR  CA certificates for an https:// target (else the system's store)
  NO_COLOR           no colours in libtest's output
  CI                 progress as a plain line every 10 s instead of a live bar

Examples:
  workspace-conformance
      certify the embedded reference (every case)
  workspace-conformance discover --target https://api.example.test --out profile.json
      find a target's fixtures with GET requests and write a profile
  workspace-conformance --target https://api.example.test --profile profile.json --report report.html
      certify a target; the HTML certificate leads with its defects
  workspace-conformance --target https://api.example.test --discover v1.contacts
      certify one area, discovering the fixtures on the way
  workspace-conformance serve --listen 127.0.0.1:8080 --profile-out profile.json
      run the reference alone, to point another tool at it
  workspace-conformance compare base.json new.json --report report.html
      what is new, fixed and still present since the last certification (exit 1 on a new defect)
  workspace-conformance --rerun result.json --defect D1
      run the trials of a defect again against the result's target: does it still hold?

See README.md and docs/ for the profile format, the reports and the cases.";

/// Subcommands besides the default run.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the reference implementation standalone.
    Serve(ServeArgs),
    /// Find the target's fixtures with read-only requests (GET only) and write a profile.
    Discover(DiscoverArgs),
    /// Merge the JSON results of the parts of a run (--partition K/N) into one certificate.
    Merge(MergeArgs),
    /// Receive webhook deliveries on a free port and print them, each with whether its signature
    /// verifies with the secret in --secret-file (the reproduction script of a defect found in
    /// deliveries starts one).
    Receive(ReceiveArgs),
    /// Compare two certifications (--json results): the defects that are new, fixed, not
    /// re-tested and still present, by fingerprint, and the trials whose verdict changed. Exits
    /// 1 when a defect is new, 2 when the results are not comparable (without --anyway).
    Compare(CompareArgs),
}

/// Arguments of `compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The JSON result (--json) of the baseline certification.
    #[arg(value_name = "BASE.json")]
    pub base: PathBuf,
    /// The JSON result (--json) of the certification to compare with it.
    #[arg(value_name = "NEW.json")]
    pub new: PathBuf,
    /// Write the comparison as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the new certification's HTML report to FILE, with a section on what changed.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Compare results that are not comparable (another target, another selection, another
    /// contract version) all the same; the comparison says they are not.
    #[arg(long)]
    pub anyway: bool,
}

/// Arguments of `receive`.
#[derive(Debug, Args)]
pub struct ReceiveArgs {
    /// Address to listen on (port 0 picks a free port); the first line says the URL.
    #[arg(long, default_value = "127.0.0.1:0")]
    pub listen: SocketAddr,
    /// Stop after this many seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0)]
    pub seconds: f64,
    /// Stop after this many deliveries.
    #[arg(long, value_name = "N")]
    pub count: Option<usize>,
    /// A file holding the webhook's signing secret (read when a delivery comes), to verify each
    /// delivery's signature with; never printed.
    #[arg(long, value_name = "FILE")]
    pub secret_file: Option<PathBuf>,
}

/// Arguments of `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The JSON results (--json) of the parts, one per `--partition K/N` run.
    #[arg(value_name = "PART.json", required = true)]
    pub parts: Vec<PathBuf>,
    /// Write the merged result as JSON to FILE.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,
    /// Write the merged JUnit XML report to FILE.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Write the merged HTML certification report to FILE.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Ignored trials fail the merged verdict (exit 1), as for a run.
    #[arg(long)]
    pub require_complete: bool,
}

/// Arguments of `discover`.
#[derive(Debug, Args)]
pub struct DiscoverArgs {
    /// Base URL of the implementation whose fixtures to find.
    #[arg(long, value_name = "URL")]
    pub target: String,
    /// API key for the target (else WORKSPACE_API_KEY, else the profile's apiKey).
    #[arg(
        long,
        env = "WORKSPACE_API_KEY",
        value_name = "KEY",
        hide_env_values = true
    )]
    pub api_key: Option<String>,
    /// A hand-written profile: its values are kept, only its gaps are filled.
    #[arg(long, value_name = "FILE")]
    pub profile: Option<PathBuf>,
    /// Where to write the profile (the fixtures of --profile and those found).
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Seconds to wait for each answer.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
    /// Most requests discovery sends.
    #[arg(long, value_name = "N", default_value_t = 250)]
    pub max_requests: u64,
    /// Seconds after which discovery starts no request.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub max_seconds: f64,
}

/// Arguments of a certification run.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Base URL of the implementation to certify (default: the embedded reference).
    #[arg(long, value_name = "URL", help_heading = "Target")]
    pub target: Option<String>,
    /// API key for the target (else WORKSPACE_API_KEY, else the profile's apiKey).
    #[arg(
        long,
        env = "WORKSPACE_API_KEY",
        value_name = "KEY",
        hide_env_values = true,
        help_heading = "Target"
    )]
    pub api_key: Option<String>,
    /// Profile of the target's fixtures (JSON); see docs/profile.md.
    #[arg(long, value_name = "FILE", help_heading = "Profile")]
    pub profile: Option<PathBuf>,
    /// Discover the fixtures the profile lacks (GET only) before certifying; see docs/running.md.
    #[arg(long, help_heading = "Profile")]
    pub discover: bool,
    /// Print the fixtures a profile may name (name, then type and range) and exit; with
    /// --markdown, the fixture table of docs/profile.md.
    #[arg(long, help_heading = "Profile")]
    pub list_fixtures: bool,
    /// Print --list-fixtures as the Markdown table of docs/profile.md.
    #[arg(long, requires = "list_fixtures", help_heading = "Profile")]
    pub markdown: bool,
    /// Seconds to wait for each answer.
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 10.0,
        help_heading = "Run control"
    )]
    pub timeout: f64,
    /// Largest answer body accepted, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 8 * 1024 * 1024, help_heading = "Run control")]
    pub max_body: usize,
    /// Load case files from this directory instead of the built-in catalog.
    #[arg(long, value_name = "DIR", help_heading = "Selection")]
    pub case_dir: Option<PathBuf>,
    /// Seed of the generated inputs of properties; printed by every run, replays it exactly.
    #[arg(long, value_name = "N", help_heading = "Run control")]
    pub seed: Option<u64>,
    /// Run id (8 characters a-z0-9) tagging what the run creates; with --seed it replays a
    /// property's inputs exactly. Default: a fresh one.
    #[arg(long, value_name = "ID", value_parser = parse_run_id, help_heading = "Run control")]
    pub run_id: Option<String>,
    /// Random inputs per property and direction (valid, invalid), besides the boundary values.
    #[arg(
        long = "cases",
        value_name = "N",
        default_value_t = 1,
        help_heading = "Run control"
    )]
    pub property_cases: u32,
    /// Random sequences each sequence trial runs (`latest.sequences.*`): the default run has
    /// one each; a nightly job may run more (see the README for the requests each adds).
    #[arg(
        long = "depth",
        value_name = "N",
        default_value_t = 1,
        value_parser = clap::value_parser!(u32).range(1..=1000),
        help_heading = "Run control"
    )]
    pub depth: u32,
    /// Switch on a fault of the embedded reference (only without --target); repeatable.
    #[arg(long = "fault", value_name = "NAME", help_heading = "Target")]
    pub faults: Vec<String>,
    /// Switch on a variant of the embedded reference (only without --target); repeatable, `all`.
    #[arg(long = "variant", value_name = "NAME", help_heading = "Target")]
    pub variants: Vec<String>,
    /// Write a JUnit XML report (one testcase per trial, grouped by area) to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Reports")]
    pub junit: Option<PathBuf>,
    /// Write the result as JSON (run metadata, every trial) to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Reports")]
    pub json: Option<PathBuf>,
    /// Write a self-contained HTML certification report to FILE.
    #[arg(long, value_name = "FILE", help_heading = "Reports")]
    pub report: Option<PathBuf>,
    /// Run only the cases that change nothing on the target (every request a GET).
    #[arg(long, help_heading = "Selection")]
    pub read_only: bool,
    /// Send at most N requests per second (one limit shared by every trial).
    #[arg(long, value_name = "N", help_heading = "Run control")]
    pub rate: Option<f64>,
    /// Run part K of N (1-based) of the selected trials, split deterministically by name.
    #[arg(long, value_name = "K/N", value_parser = parse_partition, help_heading = "Selection")]
    pub partition: Option<(usize, usize)>,
    /// Run only cases with this tag (`generated`, `property`, or a case file's tags); repeatable.
    #[arg(long = "tag", value_name = "TAG", help_heading = "Selection")]
    pub tags: Vec<String>,
    /// Run only cases of this area (`contacts`, `tasks`, `properties`, ...); repeatable.
    #[arg(long = "area", value_name = "AREA", help_heading = "Selection")]
    pub areas: Vec<String>,
    /// Local address the webhook receiver binds (default: a free loopback port).
    #[arg(long, value_name = "ADDR", help_heading = "Run control")]
    pub webhook_listen: Option<SocketAddr>,
    /// The receiver's URL as the target must reach it (default: http://<bound address>); cases
    /// append their own path to it.
    #[arg(long, value_name = "URL", help_heading = "Run control")]
    pub webhook_url: Option<String>,
    /// Ignored trials (a fixture the profile lacks, a precondition that no longer holds) fail
    /// the run (exit 1): for CI that wants a full certification.
    #[arg(long, help_heading = "Run control")]
    pub require_complete: bool,
    /// List what the cleanup removed and left on the terminal, not only its counts (the reports
    /// always list it).
    #[arg(long, help_heading = "Reports")]
    pub verbose: bool,
    /// Write every exchange of the run as HAR 1.2 to FILE (redacted as every output), for a
    /// browser's developer tools or an HTTP debugger.
    #[arg(long, value_name = "FILE", help_heading = "Reports")]
    pub har: Option<PathBuf>,
    /// With --har: only the exchanges of failed trials.
    #[arg(long, requires = "har", help_heading = "Reports")]
    pub har_failed: bool,
    /// Run exactly the trials of the defects of a previous result (--json) against the result's
    /// own target (its URL and profile, or the embedded reference with its faults) unless
    /// --target, --fault or --variant say otherwise, and say of each defect whether it still
    /// holds, no longer holds (its trials ran again and passed) or was not re-tested.
    #[arg(long, value_name = "RESULT.json", help_heading = "Selection")]
    pub rerun: Option<PathBuf>,
    /// With --rerun: only this defect (its id, `D2`, or its fingerprint); repeatable.
    #[arg(
        long = "defect",
        value_name = "ID",
        requires = "rerun",
        help_heading = "Selection"
    )]
    pub defects: Vec<String>,
    #[command(flatten, next_help_heading = "Trials")]
    pub test: TrialArgs,
}

/// The test-runner arguments a run takes from libtest, in the suite's words: the ones that
/// matter for choosing and showing trials are listed, libtest's no-ops and internals are accepted
/// (a script written for libtest still runs) but hidden from `--help`.
#[derive(Debug, Clone, Default, Args)]
pub struct TrialArgs {
    /// Run only the trials whose name contains FILTER (e.g. `v1.contacts`, `latest.access`).
    #[arg(value_name = "FILTER")]
    pub filter: Option<String>,
    /// Match FILTER against the whole trial name instead of a part of it.
    #[arg(long)]
    pub exact: bool,
    /// Leave out the trials whose name contains FILTER; repeatable.
    #[arg(long, value_name = "FILTER")]
    pub skip: Vec<String>,
    /// Print the names of the selected trials and exit, sending nothing to the target.
    #[arg(long)]
    pub list: bool,
    /// Trials in flight at once (default: a number chosen for a target across a network; 1 runs
    /// them one after another).
    #[arg(long, value_name = "N")]
    pub test_threads: Option<usize>,
    /// One character per trial instead of one line (the same as --format terse).
    #[arg(short = 'q', long, conflicts_with = "format")]
    pub quiet: bool,
    /// How trials are shown on stdout.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<TrialFormat>,
    /// Run only the trials marked ignored (libtest's flag; the suite marks none ignored up front).
    #[arg(long, hide = true)]
    pub ignored: bool,
    /// libtest's flag, accepted and passed on.
    #[arg(long, hide = true)]
    pub include_ignored: bool,
    /// libtest's colour choice, accepted and passed on (NO_COLOR is the documented way).
    #[arg(long, value_enum, hide = true)]
    pub color: Option<libtest_mimic::ColorSetting>,
    /// libtest's log file, accepted and passed on.
    #[arg(long, hide = true)]
    pub logfile: Option<String>,
    /// libtest's no-ops, accepted so that a command line written for libtest runs.
    #[arg(long, hide = true)]
    pub nocapture: bool,
    /// libtest's no-op, accepted.
    #[arg(long, hide = true)]
    pub show_output: bool,
    /// libtest's no-op, accepted.
    #[arg(long = "test", hide = true)]
    pub test_mode: bool,
}

/// The forms of libtest's output a run can print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TrialFormat {
    /// One line per trial with its verdict (the default).
    Pretty,
    /// One character per trial.
    Terse,
    /// libtest's JSON events on stdout (the suite's own lines go to stderr).
    Json,
}

impl TrialArgs {
    /// libtest-mimic's arguments for these.
    pub fn libtest(&self) -> libtest_mimic::Arguments {
        libtest_mimic::Arguments {
            filter: self.filter.clone(),
            exact: self.exact,
            skip: self.skip.clone(),
            list: self.list,
            test_threads: self.test_threads,
            quiet: self.quiet,
            format: self.format.map(|f| match f {
                TrialFormat::Pretty => libtest_mimic::FormatSetting::Pretty,
                TrialFormat::Terse => libtest_mimic::FormatSetting::Terse,
                TrialFormat::Json => libtest_mimic::FormatSetting::Json,
            }),
            ignored: self.ignored,
            include_ignored: self.include_ignored,
            color: self.color,
            logfile: self.logfile.clone(),
            nocapture: self.nocapture,
            show_output: self.show_output,
            test: self.test_mode,
            ..libtest_mimic::Arguments::default()
        }
    }

    /// Whether the trials print libtest's JSON events.
    pub fn json(&self) -> bool {
        self.format == Some(TrialFormat::Json)
    }
}

/// Arguments of `serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (loopback by default; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Switch on a fault of the catalog; repeatable.
    #[arg(long = "fault", value_name = "NAME")]
    pub faults: Vec<String>,
    /// Switch on a variant (a conforming open choice); repeatable; `all` for every one.
    #[arg(long = "variant", value_name = "NAME")]
    pub variants: Vec<String>,
    /// Print the variant catalog (name, then the READINGS section it exercises) and exit.
    #[arg(long)]
    pub list_variants: bool,
    /// Write the profile of the reference's fixtures and API keys to FILE.
    #[arg(long, value_name = "FILE")]
    pub profile_out: Option<PathBuf>,
    /// Print the fault catalog (name, then the clause it breaks) and exit.
    #[arg(long)]
    pub list_faults: bool,
    /// Print --list-faults or --list-variants as the Markdown tables of docs/reference.md.
    #[arg(long)]
    pub markdown: bool,
}

/// A `--run-id` that is not 8 characters from a-z and 0-9.
#[derive(Debug, thiserror::Error)]
#[error("a run id is 8 characters from a-z and 0-9")]
pub struct BadRunId;

/// A `--partition` that is not K/N with 1 <= K <= N.
#[derive(Debug, thiserror::Error)]
#[error("a partition is K/N with 1 <= K <= N, e.g. 2/4")]
pub struct BadPartition;

fn parse_run_id(text: &str) -> Result<String, BadRunId> {
    if text.len() == 8
        && text
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        Ok(text.to_string())
    } else {
        Err(BadRunId)
    }
}

fn parse_partition(text: &str) -> Result<(usize, usize), BadPartition> {
    let (k, n) = text.split_once('/').ok_or(BadPartition)?;
    let k: usize = k.trim().parse().map_err(|_| BadPartition)?;
    let n: usize = n.trim().parse().map_err(|_| BadPartition)?;
    if k == 0 || n == 0 || k > n {
        return Err(BadPartition);
    }
    Ok((k, n))
}
