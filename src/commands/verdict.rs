//! What a run certifies: the lines after libtest's summary, the verdict last, and the exit code
//! of a run that reached its trials (a run that did not ends with an [`crate::error::Error`]).
//!
//! The order a reader of a CI log's tail needs: the failure details (libtest's), the reasons
//! trials were ignored, one cleanup line, the requests sent, the defects worst first, and, as
//! the very last line of stdout, the verdict.

use crate::exit::Exit;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use conformance_suite::cases::Case;
use conformance_suite::report::plural;
use conformance_suite::results::{CaseResult, Verdict};

/// The verdict line: what the run certifies. A run with ignored trials is incomplete, an
/// interrupted one says so; only a complete run passes. A failed run counts its defects.
pub fn verdict_summary(
    results: &[(Arc<Case>, CaseResult)],
    interrupted: bool,
    require_complete: bool,
    defects: usize,
) -> String {
    let (passed, failed, reasons) = counts(results);
    let ignored: usize = reasons.values().sum();
    if interrupted {
        format!(
            "verdict: interrupted: {passed} passed, {failed} failed, {ignored} not run or stopped; not a certification"
        )
    } else if failed > 0 {
        format!(
            "verdict: FAILED: {} in {}, {passed} passed, {ignored} ignored",
            plural(defects, "defect"),
            plural(failed, "failed trial")
        )
    } else if ignored > 0 {
        let tail = if require_complete {
            "; --require-complete: the run fails"
        } else {
            "; not a certification (--require-complete fails such a run)"
        };
        format!("verdict: incomplete: {ignored} ignored, {passed} passed{tail}")
    } else {
        format!("verdict: PASSED: all {} passed", plural(passed, "trial"))
    }
}

/// Passed and failed trials, and the ignored ones by reason.
fn counts(results: &[(Arc<Case>, CaseResult)]) -> (usize, usize, BTreeMap<String, usize>) {
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut reasons: BTreeMap<String, usize> = Default::default();
    for (_, r) in results {
        match &r.verdict {
            Verdict::Passed => passed += 1,
            Verdict::Failed(_) => failed += 1,
            Verdict::Ignored(why) => *reasons.entry(why.clone()).or_default() += 1,
        }
    }
    (passed, failed, reasons)
}

/// The reasons of the ignored trials, grouped, the most frequent first (none for an
/// interrupted run, whose trials were stopped).
pub fn ignored_lines(results: &[(Arc<Case>, CaseResult)], interrupted: bool) -> String {
    let (_, _, reasons) = counts(results);
    if interrupted || reasons.is_empty() {
        return String::new();
    }
    let ignored: usize = reasons.values().sum();
    let mut grouped: Vec<(&String, &usize)> = reasons.iter().collect();
    grouped.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    let mut out = format!("{} ignored, by reason:", plural(ignored, "trial"));
    for (why, n) in grouped {
        out.push_str(&format!("\n  {n} ignored: {why}"));
    }
    out
}

/// What the run sent, measured when its cleanup ended.
pub struct Sent {
    pub requests: u64,
    pub elapsed: Duration,
}

/// The closing lines: the requests sent, the defects, and the verdict, last.
pub fn say_verdict(
    require_complete: bool,
    sent: &Sent,
    model: &conformance_suite::report::Report,
    results: &[(Arc<Case>, CaseResult)],
    interrupted: bool,
    script: Option<&std::path::Path>,
) {
    crate::output::say(&request_line(sent));
    let lines = conformance_suite::report::defect_lines(model);
    if !lines.is_empty() {
        crate::output::say(&lines);
    }
    if let Some(path) = script {
        crate::output::say(&format!(
            "     reproduce every defect: bash {} (written beside the reports: it runs each defect's requests against the same target and says whether it shows again)",
            path.display()
        ));
    }
    crate::output::say(&verdict_summary(
        results,
        interrupted,
        require_complete,
        model.defects.len(),
    ));
}

/// The requests line: every request the run sent to the target, the discovery's, the trials'
/// and the cleanup's, as the reports count them.
pub fn request_line(sent: &Sent) -> String {
    let secs = sent.elapsed.as_secs_f64();
    format!(
        "requests: {} sent in {secs:.2} s ({:.0} requests/s)",
        sent.requests,
        sent.requests as f64 / secs.max(1e-9)
    )
}

/// 130 or 143 for an interrupted run (`signal`, 130 when the interrupt came otherwise), 1 for a
/// failed one (or an incomplete one under `--require-complete`), else 0.
pub fn exit_code(
    require_complete: bool,
    results: &[(Arc<Case>, CaseResult)],
    interrupted: bool,
    signal: Option<u8>,
    conclusion: &libtest_mimic::Conclusion,
) -> ExitCode {
    let ignored = results
        .iter()
        .filter(|(_, r)| matches!(r.verdict, Verdict::Ignored(_)))
        .count();
    if interrupted {
        eprintln!("the run was interrupted: the results are partial");
        ExitCode::from(signal.unwrap_or(Exit::Interrupted.code()))
    } else if conclusion.has_failed() || (require_complete && ignored > 0) {
        Exit::Failed.into()
    } else {
        Exit::Passed.into()
    }
}
