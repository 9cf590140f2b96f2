//! Reports of a run: JSON (`--json`), JUnit XML (`--junit`), a self-contained HTML
//! certification report (`--report`) and the defect list the terminal shows. All are built from
//! one model, [`Report`], whose every text has passed the run's redactor; the written text is
//! redacted once more as a safety net. Every output leads with the defects (`defects`): failed
//! findings grouped by clause, check and shape of difference, worst first.

pub mod compare;
pub mod coverage;
pub mod defects;
pub mod har;
mod html;
mod junit;
pub mod merge;
pub mod reproduce;
pub mod reproduction;
mod terminal;

pub(crate) use coverage::ClauseRow;
pub(crate) use defects::Defect;
pub use terminal::defect_lines;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::cases::Case;
use crate::client::{Exchange, Redactor};
use crate::results::severity::{self, Severity};
use crate::results::situations::SituationCoverage;
use crate::results::{CaseResult, Failure, Rule, Summary, Verdict, explain};
use conformance_contract::API_VERSION;
use conformance_contract::Contract;

/// Why a report could not be rendered or written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("bad report template: {0}")]
    Template(minijinja::Error),
    #[error("cannot render the HTML report: {0}")]
    Html(minijinja::Error),
    #[error("cannot write JUnit XML: {0}")]
    Junit(quick_junit::SerializeError),
}

/// What the reports say about the run itself.
#[derive(Debug, Clone)]
pub struct RunInfo {
    /// The target's base URL.
    pub target: String,
    /// The profile file, or what supplied the fixtures.
    pub profile: String,
    /// Where each fixture came from (`file target.json`, `discovered: GET ...`, the reference).
    pub fixture_sources: BTreeMap<String, String>,
    /// Faults switched on in the embedded reference.
    pub faults: Vec<String>,
    /// What `--rerun` needs to certify the same target again.
    pub origin: Origin,
    pub run_id: String,
    pub seed: u64,
    pub started: OffsetDateTime,
    pub duration: Duration,
    pub requests: u64,
    /// Requests the run's webhook receiver got from the target (deliveries, whatever it
    /// answered).
    pub deliveries: u64,
    /// The base URL the run's webhook receiver had (a reproduction puts its own in its place).
    pub receiver: Option<String>,
    pub interrupted: bool,
    /// Per clause, the trials of the catalog that cite it and that this run did not select
    /// (`--area`, a filter, `--partition`): the matrix says such a clause was not reached.
    pub not_selected: BTreeMap<String, usize>,
    /// What the run selected of the catalog, and which part of it.
    pub selection: SelectionOut,
    /// The `serve` command that starts the same embedded reference (none for a target).
    pub serve: Option<String>,
    /// The HAR file the run writes (`--har`).
    pub har: Option<String>,
    /// Which situations the run put each operation of the operation table in.
    pub situations: Option<SituationCoverage>,
}

/// Where a run's target came from, beyond its URL and faults: what `--rerun` needs to certify
/// the same target again (the embedded reference's variants; the profile file and discovery of
/// a `--target`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Origin {
    /// The embedded reference's variants, by name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variants: Vec<String>,
    /// The `--profile` file, as an absolute path; absent without one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile_file: Option<String>,
    /// Whether the run discovered the fixtures its profile lacked (`--discover`).
    #[serde(default)]
    pub discovered: bool,
}

/// What a run selected of the catalog: enough for `merge` to tell the parts of one partitioned
/// run from results of another catalog, another selection or another split, and for `compare`
/// to tell results of another selection.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectionOut {
    /// The options that narrowed the selection, as given (`--area contacts`, `the filter
    /// v1.contacts`, `--rerun`); empty for the whole catalog.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<String>,
    /// `K/N` of `--partition`; absent for a run of the whole selection.
    pub partition: Option<String>,
    /// How many trials the selection keeps before the partition (the options and the filter).
    pub trials: usize,
    /// SHA-256 of the suite's version and those trials' names, sorted: the parts of one
    /// partitioned run share it.
    pub catalog: String,
}

/// The whole result of a run, as the reports show it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The version of this JSON format: 2 since `seed` is a string and `verdict` may be
    /// `incomplete`; 3 since `defects`, and clauses `not reached` where 2 said `not verified`.
    pub format_version: u32,
    pub suite: String,
    pub suite_version: String,
    pub api_version: String,
    pub target: String,
    pub profile: String,
    /// Where the target came from beyond its URL and faults (`--rerun` reads it).
    #[serde(default)]
    pub origin: Origin,
    /// Where each fixture of the profile came from; absent when nothing is known of it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fixture_sources: BTreeMap<String, String>,
    pub faults: Vec<String>,
    pub run_id: String,
    /// A string: a 64-bit seed read as a JSON number loses digits in jq and JavaScript, and a
    /// replay with it would use another seed.
    #[serde(serialize_with = "as_string", deserialize_with = "from_string")]
    pub seed: u64,
    /// RFC 3339.
    pub started: String,
    pub duration_seconds: f64,
    /// Every request the run sent to the target: discovery's, the trials' and the cleanup's.
    pub requests: u64,
    /// Every request the target sent the run's webhook receiver (its deliveries).
    #[serde(default)]
    pub deliveries_received: u64,
    pub interrupted: bool,
    /// `passed` (every trial run and passed), `failed`, `incomplete` (none failed, some
    /// ignored: not a certification) or `interrupted`.
    pub verdict: String,
    /// The verdict in words: `passed`, `incomplete: 246 ignored`, `failed: 3 failed`, ...
    pub verdict_text: String,
    /// The reasons of the ignored trials, grouped, the most frequent first.
    pub ignored_reasons: Vec<IgnoredReason>,
    pub totals: Totals,
    /// The failed findings grouped into defects, worst first; each failed trial and finding
    /// names its defect.
    pub defects: Vec<Defect>,
    /// Per area (`contacts`, `tasks`, ...).
    pub areas: Vec<Group>,
    /// Per API generation (`v1`, `latest`).
    pub generations: Vec<Group>,
    /// Every clause of the catalog, in spec order.
    pub clauses: Vec<ClauseRow>,
    /// Every trial run, by name.
    pub trials: Vec<TrialOut>,
    pub cleanup: Option<Summary>,
    /// What the run selected of the catalog (`merge` reads it); absent in results older than
    /// format 3.
    #[serde(default)]
    pub selection: SelectionOut,
    /// The parts of a merged certificate, each with its seed and run id; empty for a run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<PartOut>,
    /// What changed since a baseline certification (`compare`); absent in a run's result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comparison: Option<compare::Comparison>,
    /// How to start the same embedded reference again (`serve` with the run's faults,
    /// variants and port), so that the reproductions run as printed; absent for a target.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub serve: Option<String>,
    /// The HAR file of the run's exchanges (`--har`), which the HTML report links to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub har: Option<String>,
    /// Situation coverage: for each operation of the operation table, the situations the run
    /// put it in and the value classes it sent, and why not for the others.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub situations: Option<SituationCoverage>,
}

/// One part of a merged certificate: which part it was, and the seed and run id that replay it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartOut {
    /// `K/N`.
    pub partition: String,
    pub run_id: String,
    #[serde(serialize_with = "as_string", deserialize_with = "from_string")]
    pub seed: u64,
    pub requests: u64,
}

/// One reason trials were ignored, and how many.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IgnoredReason {
    pub reason: String,
    pub trials: usize,
}

fn as_string<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

fn from_string<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let text = String::deserialize(d)?;
    text.parse().map_err(serde::de::Error::custom)
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Totals {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub ignored: usize,
}

impl Totals {
    fn add(&mut self, verdict: &str) {
        self.total += 1;
        match verdict {
            "passed" => self.passed += 1,
            "failed" => self.failed += 1,
            _ => self.ignored += 1,
        }
    }

    fn verdict(&self) -> &'static str {
        if self.failed > 0 {
            "failed"
        } else if self.passed == 0 {
            "not run"
        } else if self.ignored > 0 {
            "incomplete"
        } else {
            "passed"
        }
    }
}

/// The verdict of an area or an API generation.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Group {
    pub name: String,
    pub verdict: String,
    #[serde(flatten)]
    pub totals: Totals,
    /// The clauses of the checks that failed in its trials, the most frequent first: an access
    /// trial that failed on an error code failed `Errors > v1 codes`, not access.
    pub failed_clauses: Vec<String>,
}

/// One trial.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrialOut {
    pub name: String,
    pub api: String,
    pub area: String,
    /// `passed`, `failed` or `ignored`.
    pub verdict: String,
    /// Why it was ignored.
    pub reason: Option<String>,
    pub clauses: Vec<String>,
    pub summary: Option<String>,
    /// Case file and line (`cases/v1/contacts.yaml:12`), or the generator.
    pub source: String,
    pub duration_seconds: f64,
    /// The explanation libtest prints for a failure (`results::explain`).
    pub explanation: Option<String>,
    /// Its failed findings, the most severe first.
    pub failures: Vec<FailureOut>,
    /// The defects its failures belong to, in the order of its failures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defects: Vec<String>,
}

/// One failed check of a trial.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FailureOut {
    pub check: String,
    /// The clauses of the check that failed (the case's only where the check has none).
    pub clauses: Vec<String>,
    /// `access`, `data`, `codes` or `shape`.
    pub severity: String,
    #[serde(skip, default = "least_severe")]
    pub rank: Severity,
    pub expected: String,
    pub actual: String,
    pub pointer: Option<String>,
    /// Where the finding was made when not in the trial's own step (a random sequence's steps).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The rule as the check stated it (`results::Rule`): what the finding's defect is grouped on.
    #[serde(default, skip_serializing_if = "is_default")]
    pub rule: Rule,
    pub step: usize,
    /// The operation of the request (`GET /v1/contacts/{id}`), when it has one.
    pub operation: Option<String>,
    /// The defect it belongs to (`D1`).
    pub defect: Option<String>,
    pub exchange: Option<ExchangeOut>,
    /// For a finding on no answer of its own (deliveries): the number of the request the trial
    /// sent last before it, which caused them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ExchangeOut {
    pub method: String,
    pub url: String,
    pub request_headers: Vec<(String, String)>,
    pub request_body: Option<String>,
    pub status: Option<u16>,
    pub content_type: Option<String>,
    pub response_body: Option<String>,
    /// Why no answer came back.
    pub error: Option<String>,
    pub elapsed_seconds: f64,
    /// A curl command reproducing the request (credentials as placeholders).
    pub reproduce: String,
    /// The request's number in the run (the HAR's), 0 when unknown.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub seq: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn exchange_out(ex: &Exchange, r: &Redactor) -> ExchangeOut {
    let (status, content_type, response_body, error) = match &ex.outcome {
        Ok(resp) => (
            Some(resp.status),
            resp.header("content-type").map(|c| r.excerpt(c, 200)),
            Some(ex.body_excerpt(2000, r)),
            None,
        ),
        Err(e) => (None, None, None, Some(r.redact(&e.to_string()))),
    };
    ExchangeOut {
        method: ex.method.clone(),
        url: r.redact(&ex.url),
        request_headers: ex
            .request_headers
            .iter()
            .map(|(k, v)| (k.clone(), r.redact(v)))
            .collect(),
        request_body: ex.request_body.as_deref().map(|b| r.redact(b)),
        status,
        content_type,
        response_body,
        error,
        elapsed_seconds: ex.elapsed.as_secs_f64(),
        reproduce: ex.curl(r),
        seq: ex.seq,
    }
}

/// A failed finding as the reports show it, with its severity and operation.
fn failure_out(f: &Failure, case: &Case, contract: &Contract, r: &Redactor) -> FailureOut {
    let clauses: Vec<String> = if f.finding.clauses.iter().all(String::is_empty) {
        case.clauses.clone()
    } else {
        f.finding.clauses.clone()
    };
    let rank = severity::of_failure(f);
    FailureOut {
        check: r.redact(&f.finding.check),
        clauses,
        severity: rank.word().to_string(),
        rank,
        expected: r.redact(&f.finding.expected),
        actual: r.redact(&f.finding.actual),
        pointer: f.finding.pointer.clone(),
        context: f.finding.context.as_ref().map(|c| r.redact(c)),
        rule: f.finding.rule.clone(),
        step: f.step,
        operation: f
            .exchange
            .as_ref()
            .map(|ex| match contract.route(&ex.method, &ex.path) {
                Some(route) => format!("{} {}", ex.method, route.template),
                None => format!("{} {}", ex.method, r.redact(&ex.path)),
            }),
        defect: None,
        exchange: f.exchange.as_ref().map(|ex| exchange_out(ex, r)),
        cause: f.cause.as_ref().map(|ex| ex.seq).filter(|s| *s > 0),
    }
}

/// One trial as the reports show it.
fn trial_out(case: &Case, result: &CaseResult, contract: &Contract, r: &Redactor) -> TrialOut {
    let (verdict, reason, explanation, failures) = match &result.verdict {
        Verdict::Passed => ("passed", None, None, Vec::new()),
        Verdict::Ignored(why) => ("ignored", Some(r.redact(why)), None, Vec::new()),
        Verdict::Failed(failures) => (
            "failed",
            None,
            Some(r.redact(&explain::render(case, failures, r))),
            severity::worst_first(failures)
                .into_iter()
                .map(|f| failure_out(f, case, contract, r))
                .collect(),
        ),
    };
    TrialOut {
        name: case.name.clone(),
        api: case.api.as_str().to_string(),
        area: case.area.clone(),
        verdict: verdict.to_string(),
        reason,
        clauses: case.clauses.clone(),
        summary: case.summary.as_deref().map(|s| r.redact(s)),
        source: if case.line > 0 {
            format!("{}:{}", case.file, case.line)
        } else {
            case.file.clone()
        },
        duration_seconds: result.duration.as_secs_f64(),
        explanation,
        failures,
        defects: Vec::new(),
    }
}

/// The verdicts of the areas (or generations: `key`), with the clauses their failures cite.
fn groups(trials: &[TrialOut], key: impl Fn(&TrialOut) -> &str) -> Vec<Group> {
    let mut totals: BTreeMap<String, Totals> = BTreeMap::new();
    let mut cited: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for t in trials {
        totals
            .entry(key(t).to_string())
            .or_default()
            .add(&t.verdict);
        let counts = cited.entry(key(t).to_string()).or_default();
        for c in t.failures.iter().flat_map(|f| &f.clauses) {
            *counts.entry(c.clone()).or_default() += 1;
        }
    }
    totals
        .into_iter()
        .map(|(name, t)| {
            let mut failed: Vec<(String, usize)> = cited
                .remove(&name)
                .unwrap_or_default()
                .into_iter()
                .collect();
            failed.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            Group {
                verdict: t.verdict().to_string(),
                totals: t,
                failed_clauses: failed.into_iter().map(|(c, _)| c).collect(),
                name,
            }
        })
        .collect()
}

/// The run's verdict (`passed`, `failed`, `incomplete`, `interrupted`) and its words.
fn verdict_of(interrupted: bool, totals: &Totals, defects: usize) -> (&'static str, String) {
    let verdict = if interrupted {
        "interrupted"
    } else if totals.failed > 0 {
        "failed"
    } else if totals.ignored > 0 || totals.passed == 0 {
        "incomplete"
    } else {
        "passed"
    };
    let text = match verdict {
        "interrupted" => format!(
            "interrupted: {} passed, {} failed, {} not run",
            totals.passed, totals.failed, totals.ignored
        ),
        "failed" => format!(
            "failed: {} in {}, {} passed, {} ignored",
            plural(defects, "defect"),
            plural(totals.failed, "failed trial"),
            totals.passed,
            totals.ignored
        ),
        "incomplete" => format!("incomplete: {} ignored", totals.ignored),
        _ => format!("passed: all {}", plural(totals.passed, "trial")),
    };
    (verdict, text)
}

pub use crate::results::plural;

/// The reasons of the ignored trials, grouped, the most frequent first.
fn ignored_reasons(trials: &[TrialOut]) -> Vec<IgnoredReason> {
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for t in trials {
        if let Some(why) = t.reason.as_ref().filter(|_| t.verdict == "ignored") {
            *reasons.entry(why.clone()).or_default() += 1;
        }
    }
    let mut out: Vec<IgnoredReason> = reasons
        .into_iter()
        .map(|(reason, trials)| IgnoredReason { reason, trials })
        .collect();
    out.sort_by(|a, b| b.trials.cmp(&a.trials).then(a.reason.cmp(&b.reason)));
    out
}

impl Report {
    /// Builds the model from the recorded results (any order; sorted by trial name).
    pub fn build(
        info: &RunInfo,
        contract: &Contract,
        results: &[(Arc<Case>, CaseResult)],
        redactor: &Redactor,
        cleanup: Option<&Summary>,
    ) -> Report {
        let r = redactor;
        let mut sorted: Vec<&(Arc<Case>, CaseResult)> = results.iter().collect();
        sorted.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        let mut totals = Totals::default();
        let mut trials: Vec<TrialOut> = Vec::with_capacity(sorted.len());
        for (case, result) in sorted.iter().map(|x| (&x.0, &x.1)) {
            let t = trial_out(case, result, contract, r);
            totals.add(&t.verdict);
            trials.push(t);
        }
        let mut defects = defects::group(&mut trials, contract);
        reproduce::attach(
            &mut defects,
            &reproduce::Run {
                results: &sorted,
                trials: &trials,
                contract,
                base: &info.target,
                receiver: info.receiver.as_deref(),
            },
            r,
        );
        let clauses = coverage::rows(contract, &sorted, &trials, &info.not_selected);
        let (verdict, verdict_text) = verdict_of(info.interrupted, &totals, defects.len());
        Report {
            format_version: 3,
            suite: "workspace-conformance".into(),
            suite_version: env!("CARGO_PKG_VERSION").into(),
            api_version: API_VERSION.into(),
            target: r.redact(&info.target),
            profile: r.redact(&info.profile),
            fixture_sources: info
                .fixture_sources
                .iter()
                .map(|(k, v)| (k.clone(), r.redact(v)))
                .collect(),
            faults: info.faults.clone(),
            origin: info.origin.clone(),
            run_id: info.run_id.clone(),
            seed: info.seed,
            started: info
                .started
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            duration_seconds: info.duration.as_secs_f64(),
            requests: info.requests,
            deliveries_received: info.deliveries,
            interrupted: info.interrupted,
            verdict: verdict.into(),
            verdict_text,
            ignored_reasons: ignored_reasons(&trials),
            totals,
            defects,
            areas: groups(&trials, |t| &t.area),
            generations: groups(&trials, |t| &t.api),
            clauses,
            trials,
            cleanup: cleanup.cloned(),
            selection: info.selection.clone(),
            parts: Vec::new(),
            comparison: None,
            serve: info.serve.clone(),
            har: info.har.clone(),
            situations: info.situations.clone(),
        }
    }

    /// The JSON report.
    pub fn to_json(&self, redactor: &Redactor) -> String {
        let text = serde_json::to_string_pretty(self).unwrap_or_default();
        redactor.redact(&text) + "\n"
    }

    /// The JUnit XML report.
    pub fn to_junit(&self, redactor: &Redactor) -> Result<String, ReportError> {
        junit::render(self).map(|t| redactor.redact(&t))
    }

    /// The HTML certification report.
    pub fn to_html(&self, redactor: &Redactor) -> Result<String, ReportError> {
        html::render(self).map(|t| redactor.redact(&t))
    }

    /// The defect a failure names.
    pub fn defect(&self, id: &str) -> Option<&Defect> {
        self.defects.iter().find(|d| d.id == id)
    }

    /// Whether the run certified the embedded reference (its result names the `serve` command
    /// that starts it again).
    pub fn embedded(&self) -> bool {
        self.serve.is_some()
    }

    /// The target as `compare` and `--rerun` tell targets apart: the embedded reference, whatever
    /// port it had (its faults are what one release changes from the next), or the URL as given,
    /// without a trailing slash.
    pub fn target_identity(&self) -> String {
        if self.embedded() {
            EMBEDDED.to_string()
        } else {
            self.target.trim_end_matches('/').to_string()
        }
    }
}

/// How a result of the embedded reference names its target where targets are compared.
pub const EMBEDDED: &str = "the embedded reference";

fn is_default(rule: &Rule) -> bool {
    *rule == Rule::default()
}

/// A failure read back from a JSON report has its severity word; its rank is set from it.
fn least_severe() -> Severity {
    Severity::Shape
}
