//! What a run certifies: the verdict line after libtest's summary, and the exit code of a run
//! that reached its trials (a run that did not ends with an [`crate::error::Error`]).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use crate::cases::Case;
use crate::client::Client;
use crate::execute::{CaseResult, Verdict};

/// The line after libtest's summary: what the run certifies. A run with ignored trials is
/// incomplete (the reasons grouped), an interrupted one says so; only a complete run passes.
pub fn verdict_summary(
    results: &[(Arc<Case>, CaseResult)],
    interrupted: bool,
    require_complete: bool,
) -> String {
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut reasons: BTreeMap<String, usize> = Default::default();
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

/// The verdict line and the request rate, after libtest's summary.
pub fn say_verdict(
    require_complete: bool,
    client: &Client,
    results: &[(Arc<Case>, CaseResult)],
    interrupted: bool,
    start: Instant,
) {
    let secs = start.elapsed().as_secs_f64();
    let n = client.request_count();
    crate::output::say(&verdict_summary(results, interrupted, require_complete));
    crate::output::say(&format!(
        "requests: {n} sent in {secs:.2} s ({:.0} requests/s)",
        n as f64 / secs.max(1e-9)
    ));
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
        ExitCode::from(signal.unwrap_or(130))
    } else if conclusion.has_failed() || (require_complete && ignored > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
