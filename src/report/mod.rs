//! Reports of a run: JSON (`--json`), JUnit XML (`--junit`) and a self-contained HTML
//! certification report (`--report`). All three are built from one model, [`Report`], whose every
//! text has passed the run's redactor; the written text is redacted once more as a safety net.

mod html;
mod junit;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;
use time::OffsetDateTime;

use crate::cases::Case;
use crate::checks::explain;
use crate::cleanup::Summary;
use crate::client::{Exchange, Redactor};
use crate::contract::API_VERSION;
use crate::contract::Contract;
use crate::execute::{CaseResult, Verdict};

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
    pub run_id: String,
    pub seed: u64,
    pub started: OffsetDateTime,
    pub duration: Duration,
    pub requests: u64,
    pub interrupted: bool,
}

/// The whole result of a run, as the reports show it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// The version of this JSON format: 2 since `seed` is a string and `verdict` may be
    /// `incomplete`.
    pub format_version: u32,
    pub suite: String,
    pub suite_version: String,
    pub api_version: String,
    pub target: String,
    pub profile: String,
    /// Where each fixture of the profile came from; absent when nothing is known of it.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fixture_sources: BTreeMap<String, String>,
    pub faults: Vec<String>,
    pub run_id: String,
    /// A string: a 64-bit seed read as a JSON number loses digits in jq and JavaScript, and a
    /// replay with it would use another seed.
    #[serde(serialize_with = "as_string")]
    pub seed: u64,
    /// RFC 3339.
    pub started: String,
    pub duration_seconds: f64,
    pub requests: u64,
    pub interrupted: bool,
    /// `passed` (every trial run and passed), `failed`, `incomplete` (none failed, some
    /// ignored: not a certification) or `interrupted`.
    pub verdict: String,
    /// The verdict in words: `passed`, `incomplete: 246 ignored`, `failed: 3 failed`, ...
    pub verdict_text: String,
    /// The reasons of the ignored trials, grouped, the most frequent first.
    pub ignored_reasons: Vec<IgnoredReason>,
    pub totals: Totals,
    /// Per area (`contacts`, `tasks`, ...).
    pub areas: Vec<Group>,
    /// Per API generation (`v1`, `latest`).
    pub generations: Vec<Group>,
    /// Every clause of the catalog, in spec order.
    pub clauses: Vec<ClauseRow>,
    /// Every trial run, by name.
    pub trials: Vec<TrialOut>,
    pub cleanup: Option<Summary>,
}

/// One reason trials were ignored, and how many.
#[derive(Debug, Clone, Serialize)]
pub struct IgnoredReason {
    pub reason: String,
    pub trials: usize,
}

fn as_string<S: serde::Serializer>(v: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.to_string())
}

#[derive(Debug, Clone, Default, Serialize)]
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

#[derive(Debug, Clone, Serialize)]
pub struct Group {
    pub name: String,
    pub verdict: String,
    #[serde(flatten)]
    pub totals: Totals,
}

/// One clause of the spec and what the run says about it.
#[derive(Debug, Clone, Serialize)]
pub struct ClauseRow {
    pub id: String,
    pub text: String,
    /// `failed`, `verified` (a passing trial cites it, or the generic checks held a passing
    /// trial's answers to it), `not verified` (only ignored trials cite it) or `not covered`.
    pub status: String,
    /// Why it is not verified (the first reason of the ignored trials citing it), or how the
    /// generic checks verified it.
    pub reason: Option<String>,
    /// Trials citing it: the failing ones for a failed clause, else all.
    pub trials: Vec<String>,
}

/// One trial.
#[derive(Debug, Clone, Serialize)]
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
    /// The explanation libtest prints for a failure (`checks::explain`).
    pub explanation: Option<String>,
    pub failures: Vec<FailureOut>,
}

#[derive(Debug, Clone, Serialize)]
pub struct FailureOut {
    pub check: String,
    pub clauses: Vec<String>,
    pub expected: String,
    pub actual: String,
    pub pointer: Option<String>,
    pub step: usize,
    pub exchange: Option<ExchangeOut>,
}

#[derive(Debug, Clone, Serialize)]
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
    }
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
        let mut areas: BTreeMap<String, Totals> = BTreeMap::new();
        let mut generations: BTreeMap<String, Totals> = BTreeMap::new();
        let mut trials = Vec::new();
        // Clause -> passed trials whose answers the generic checks held to it.
        let mut held: BTreeMap<String, usize> = BTreeMap::new();
        for (case, result) in sorted {
            if matches!(result.verdict, Verdict::Passed) {
                let clauses: std::collections::BTreeSet<String> = result
                    .exchanges
                    .iter()
                    .flat_map(|ex| crate::checks::generic::held_to(contract, ex))
                    .collect();
                for c in clauses {
                    *held.entry(c).or_default() += 1;
                }
            }
            let (verdict, reason, explanation, failures) = match &result.verdict {
                Verdict::Passed => ("passed", None, None, Vec::new()),
                Verdict::Ignored(why) => ("ignored", Some(r.redact(why)), None, Vec::new()),
                Verdict::Failed(failures) => (
                    "failed",
                    None,
                    Some(r.redact(&explain::render(case, failures, r))),
                    failures
                        .iter()
                        .map(|f| {
                            let clauses: Vec<String> =
                                if f.finding.clauses.iter().all(String::is_empty) {
                                    case.clauses.clone()
                                } else {
                                    f.finding.clauses.clone()
                                };
                            FailureOut {
                                check: r.redact(&f.finding.check),
                                clauses,
                                expected: r.redact(&f.finding.expected),
                                actual: r.redact(&f.finding.actual),
                                pointer: f.finding.pointer.clone(),
                                step: f.step,
                                exchange: f.exchange.as_ref().map(|ex| exchange_out(ex, r)),
                            }
                        })
                        .collect(),
                ),
            };
            totals.add(verdict);
            areas.entry(case.area.clone()).or_default().add(verdict);
            generations
                .entry(case.api.as_str().to_string())
                .or_default()
                .add(verdict);
            trials.push(TrialOut {
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
            });
        }
        let clauses = contract
            .clauses
            .iter()
            .map(|c| clause_row(&c.id, &c.text, &trials, held.get(&c.id).copied()))
            .collect();
        let group = |m: BTreeMap<String, Totals>| {
            m.into_iter()
                .map(|(name, t)| Group {
                    name,
                    verdict: t.verdict().to_string(),
                    totals: t,
                })
                .collect()
        };
        let verdict = if info.interrupted {
            "interrupted"
        } else if totals.failed > 0 {
            "failed"
        } else if totals.ignored > 0 || totals.passed == 0 {
            "incomplete"
        } else {
            "passed"
        };
        let verdict_text = match verdict {
            "interrupted" => format!(
                "interrupted: {} passed, {} failed, {} not run",
                totals.passed, totals.failed, totals.ignored
            ),
            "failed" => format!(
                "failed: {} failed, {} passed, {} ignored",
                totals.failed, totals.passed, totals.ignored
            ),
            "incomplete" => format!("incomplete: {} ignored", totals.ignored),
            _ => format!("passed: all {} trials", totals.passed),
        };
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        for t in &trials {
            if let Some(why) = t.reason.as_ref().filter(|_| t.verdict == "ignored") {
                *reasons.entry(why.clone()).or_default() += 1;
            }
        }
        let mut ignored_reasons: Vec<IgnoredReason> = reasons
            .into_iter()
            .map(|(reason, trials)| IgnoredReason { reason, trials })
            .collect();
        ignored_reasons.sort_by(|a, b| b.trials.cmp(&a.trials).then(a.reason.cmp(&b.reason)));
        Report {
            format_version: 2,
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
            run_id: info.run_id.clone(),
            seed: info.seed,
            started: info
                .started
                .format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_default(),
            duration_seconds: info.duration.as_secs_f64(),
            requests: info.requests,
            interrupted: info.interrupted,
            verdict: verdict.into(),
            verdict_text,
            ignored_reasons,
            totals,
            areas: group(areas),
            generations: group(generations),
            clauses,
            trials,
            cleanup: cleanup.cloned(),
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
}

/// The row of a clause: failed, verified (a passed trial cites it, or the generic checks held
/// `held` passed trials' answers to it), not verified (only ignored trials cite it), or not
/// covered.
fn clause_row(id: &str, text: &str, trials: &[TrialOut], held: Option<usize>) -> ClauseRow {
    let failing: Vec<String> = trials
        .iter()
        .filter(|t| t.failures.iter().any(|f| f.clauses.iter().any(|c| c == id)))
        .map(|t| t.name.clone())
        .collect();
    let citing: Vec<&TrialOut> = trials
        .iter()
        .filter(|t| t.clauses.iter().any(|c| c == id))
        .collect();
    let (status, reason, names) = if !failing.is_empty() {
        ("failed", None, failing)
    } else if citing.iter().any(|t| t.verdict == "passed") || held.is_some() {
        (
            "verified",
            held.map(|n| {
                format!("held by the generic checks on every answer of {n} passed trials")
            }),
            citing.iter().map(|t| t.name.clone()).collect(),
        )
    } else if let Some(t) = citing.iter().find(|t| t.verdict == "ignored") {
        (
            "not verified",
            t.reason.clone(),
            citing.iter().map(|t| t.name.clone()).collect(),
        )
    } else {
        // Only cited by trials that failed on other clauses, or by none: nothing shows it kept.
        (
            "not covered",
            None,
            citing.iter().map(|t| t.name.clone()).collect(),
        )
    };
    ClauseRow {
        id: id.to_string(),
        text: text.to_string(),
        status: status.to_string(),
        reason,
        trials: names,
    }
}
