//! `merge`: one certificate from the JSON results of the parts of a partitioned run. The parts
//! are checked (one catalog, selection, target and split; each trial once) before anything is
//! written; the merged verdict is the last line, as a run's is.
//!
//! Exit codes, for a CI job: 0 when every part is there and the merged verdict passed (or is
//! incomplete without `--require-complete`); 1 when it failed or was interrupted, or when a
//! part is missing (the certificate lacks trials: the job fails); 2 when the parts cannot be
//! merged (unreadable, of different runs, a part or a trial twice).

use crate::exit::Exit;
use std::process::ExitCode;

use crate::cli::MergeArgs;
use crate::error::Error;
use conformance_suite::client::Redactor;
use conformance_suite::report::merge::merge_files;

use super::reports::write_whole;

/// Merges the parts, writes the reports asked for, prints the defects and the verdict.
pub fn merge(args: MergeArgs) -> Result<ExitCode, Error> {
    let merged = merge_files(&args.parts)?;
    let report = &merged.report;
    // The parts were redacted when they were written; nothing secret is known here.
    let redactor = Redactor::default();
    if let Some(p) = &args.json {
        write_whole(p, &report.to_json(&redactor))?;
    }
    if let Some(p) = &args.junit {
        write_whole(p, &report.to_junit(&redactor)?)?;
    }
    if let Some(p) = &args.report {
        write_whole(p, &report.to_html(&redactor)?)?;
    }
    let t = &report.totals;
    crate::output::say(&format!(
        "merged {} of {} parts: {} trials, {} passed, {} failed, {} ignored, {} requests",
        args.parts.len(),
        args.parts.len() + merged.missing.len(),
        t.total,
        t.passed,
        t.failed,
        t.ignored,
        report.requests
    ));
    for p in &report.parts {
        crate::output::say(&format!(
            "  part {}: run {}, seed {}, {} requests",
            p.partition, p.run_id, p.seed, p.requests
        ));
    }
    let lines = conformance_suite::report::defect_lines(report);
    if !lines.is_empty() {
        crate::output::say(&lines);
    }
    let word = match report.verdict.as_str() {
        "passed" => "PASSED",
        "failed" => "FAILED",
        other => other,
    };
    let text = report
        .verdict_text
        .split_once(": ")
        .map_or(report.verdict_text.as_str(), |(_, rest)| rest);
    crate::output::say(&format!("verdict: {word}: {text}"));
    let failed = report.verdict == "failed"
        || report.verdict == "interrupted"
        || !merged.missing.is_empty()
        || (args.require_complete && t.ignored > 0);
    Ok(if failed { Exit::Failed } else { Exit::Passed }.into())
}
