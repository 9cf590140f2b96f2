//! The explanation of a failed case: for each failed check the clause, what was expected, what
//! came back and where, then the exchange and a curl command that reproduces it. The findings
//! come worst first (`severity`), in step order within a severity.

use std::fmt::Write;
use std::sync::Arc;

use super::Failure;
use super::severity::{self, worst_first};
use crate::cases::Case;
use crate::client::{Exchange, Redactor};

/// Renders the failures of one case as the text libtest prints under the case.
pub fn render(case: &Case, failures: &[Failure], redactor: &Redactor) -> String {
    let mut out = String::new();
    if case.line > 0 {
        let _ = writeln!(out, "{} ({}:{})", case.name, case.file, case.line);
    } else {
        let _ = writeln!(out, "{} ({})", case.name, case.file);
    }
    if let Some(s) = &case.summary {
        let _ = writeln!(out, "  {s}");
    }
    let mut shown: Vec<*const Exchange> = Vec::new();
    // The worst finding first: an access defect is not to be read under a content type.
    for (i, f) in worst_first(failures).into_iter().enumerate() {
        let fi = &f.finding;
        let clauses = if fi.clauses.is_empty() || fi.clauses.iter().all(String::is_empty) {
            case.clauses.clone()
        } else {
            fi.clauses.clone()
        };
        let _ = writeln!(
            out,
            "\n  [{}] {} ({})",
            i + 1,
            fi.check,
            severity::of_failure(f).word()
        );
        let _ = writeln!(out, "  clause:    {}", clauses.join("; "));
        let _ = writeln!(out, "  expected:  {}", redactor.redact(&fi.expected));
        let _ = writeln!(out, "  actual:    {}", redactor.redact(&fi.actual));
        if let Some(p) = &fi.pointer {
            let _ = writeln!(out, "  at:        {p}");
        }
        if let Some(c) = &fi.context {
            let _ = writeln!(out, "  context:   {}", redactor.redact(c));
        }
        if f.steps > 1 {
            let line = case
                .steps
                .get(f.step.saturating_sub(1))
                .map(|s| s.line)
                .unwrap_or(case.line);
            let _ = writeln!(
                out,
                "  step:      {} of {} ({}:{line})",
                f.step, f.steps, case.file
            );
        }
        if let Some(ex) = &f.exchange {
            let ptr = Arc::as_ptr(ex);
            if shown.contains(&ptr) {
                let _ = writeln!(
                    out,
                    "  exchange:  as above ({} {})",
                    ex.method,
                    redactor.redact(&ex.url)
                );
            } else {
                shown.push(ptr);
                write_exchange(&mut out, ex, redactor);
            }
        }
    }
    out
}

fn write_exchange(out: &mut String, ex: &Exchange, redactor: &Redactor) {
    let _ = writeln!(
        out,
        "  request:   {} {}",
        ex.method,
        redactor.redact(&ex.url)
    );
    match &ex.outcome {
        Ok(r) => {
            let ct = r.header("content-type").unwrap_or("no Content-Type");
            let _ = writeln!(
                out,
                "  response:  {} ({}), {} bytes in {:.1} ms",
                r.status,
                redactor.excerpt(ct, 200),
                r.size,
                ex.elapsed.as_secs_f64() * 1000.0
            );
            for name in ["retry-after", "location", "www-authenticate"] {
                if let Some(v) = r.header(name) {
                    let _ = writeln!(out, "             {name}: {}", redactor.excerpt(v, 300));
                }
            }
            if r.size > 0 {
                let _ = writeln!(out, "  body:      {}", ex.body_excerpt(600, redactor));
            }
        }
        Err(e) => {
            let _ = writeln!(
                out,
                "  response:  none after {:.1} s: {e}",
                ex.elapsed.as_secs_f64()
            );
        }
    }
    let _ = writeln!(out, "  reproduce: {}", ex.curl(redactor));
}
