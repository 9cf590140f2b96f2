//! `compare BASE.json NEW.json`: what changed between two certifications, by defect
//! fingerprint. Exit codes, for a CI job that gates a change on its baseline: 0 when no defect is
//! new, 1 when one is, 2 when a result cannot be read or the two are not comparable (another
//! target, selection or contract version) and `--anyway` does not ask for the comparison.

use crate::exit::Exit;
use std::process::ExitCode;

use crate::cli::CompareArgs;
use crate::error::Error;
use conformance_suite::client::Redactor;
use conformance_suite::report::compare::Comparison;
use conformance_suite::report::merge::read_result;

use super::reports::write_whole;

/// Compares the two results, writes the comparison asked for, prints it with its summary last.
pub fn compare(args: CompareArgs) -> Result<ExitCode, Error> {
    let base = read_result(&args.base)?;
    let mut new = read_result(&args.new)?;
    let comparison = Comparison::of(&base, &new);
    if !comparison.not_comparable.is_empty() && !args.anyway {
        return Err(Error::NotComparable {
            reasons: comparison.not_comparable.clone(),
        });
    }
    // The results were redacted when they were written; nothing secret is known here.
    let redactor = Redactor::default();
    if let Some(p) = &args.json {
        write_whole(p, &comparison.to_json())?;
    }
    if let Some(p) = &args.report {
        new.comparison = Some(comparison.clone());
        write_whole(p, &new.to_html(&redactor)?)?;
    }
    crate::output::say(&comparison.lines());
    Ok(if comparison.new_defects.is_empty() {
        Exit::Passed
    } else {
        Exit::Failed
    }
    .into())
}
