//! The defect list the terminal shows at the end of a run, before the verdict: "N defects in M
//! failed trials", then each defect worst first, in one line with its fingerprint, and the curl
//! of its representative exchange (saying so when it changes the target). Against the embedded
//! reference, the `serve` command that starts the same reference comes first: the curls run
//! against it as printed.

use super::defects::{NAMED, cut};
use super::{Report, plural};

/// Defects the terminal lists; the reports list them all.
const SHOWN: usize = 30;

/// The defect list of a failed run (empty when nothing failed), without a final newline.
pub fn defect_lines(report: &Report) -> String {
    if report.defects.is_empty() {
        return String::new();
    }
    let mut lines = Vec::new();
    if let Some(serve) = &report.serve {
        lines.push(format!(
            "reproduce against the same reference: {serve} & export WORKSPACE_API_KEY=\"$(jq -r .apiKey {})\"",
            serve.rsplit(' ').next().unwrap_or_default()
        ));
    }
    lines.push(format!(
        "{} in {}, worst first:",
        plural(report.defects.len(), "defect"),
        plural(report.totals.failed, "failed trial")
    ));
    for d in report.defects.iter().take(SHOWN) {
        let mut named: Vec<&str> = d.trials.iter().take(NAMED).map(String::as_str).collect();
        // The representative first: its exchange is the one the reports show.
        named.retain(|t| *t != d.example.trial);
        named.insert(0, &d.example.trial);
        named.truncate(NAMED);
        let more = d.trial_count.saturating_sub(named.len());
        let more = if more > 0 {
            format!(", +{more} more")
        } else {
            String::new()
        };
        let operations = match d.operation_count {
            0 => String::new(),
            n => format!(" in {}", plural(n, "operation")),
        };
        lines.push(format!(
            "  {} {:<6} {} [{}] {} ({}{operations}: {}{more})",
            d.id,
            d.severity,
            d.fingerprint,
            cut(&d.clauses.join("; "), 160),
            cut(&d.title, 160),
            plural(d.trial_count, "trial"),
            named.join(", "),
        ));
        let longer = super::reproduce::terminal_lines(d, &report.target);
        match &d.example.exchange {
            Some(ex) if longer.is_empty() => {
                let note = super::reproduce::destructive(&ex.method)
                    .map(|n| format!(" ({n})"))
                    .unwrap_or_default();
                lines.push(format!("     reproduce{note}: {}", ex.reproduce));
            }
            _ => lines.extend(longer),
        }
    }
    if report.defects.len() > SHOWN {
        lines.push(format!(
            "  ... and {} more defects in the reports (--json, --report, --junit)",
            report.defects.len() - SHOWN
        ));
    }
    lines.join("\n")
}
