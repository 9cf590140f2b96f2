//! The HTML certification report: one self-contained file (inline CSS, no script, no external
//! asset), rendered by minijinja from `report.html` with HTML autoescaping.

use minijinja::value::Serde;
use minijinja::{Environment, context};

use super::{Report, ReportError};

const TEMPLATE: &str = include_str!("report.html");

pub fn render(report: &Report) -> Result<String, ReportError> {
    let mut env = Environment::new();
    env.add_template("report.html", TEMPLATE)
        .map_err(ReportError::Template)?;
    // Verified: a passing trial cites the clause; one cited only by ignored trials is not.
    let verified = report
        .clauses
        .iter()
        .filter(|c| c.status == "verified")
        .count();
    let failures: Vec<_> = report
        .trials
        .iter()
        .filter(|t| t.verdict == "failed")
        .collect();
    let ignored: Vec<_> = report
        .trials
        .iter()
        .filter(|t| t.verdict == "ignored")
        .collect();
    env.get_template("report.html")
        .and_then(|t| {
            t.render(context! {
                r => Serde(report),
                verified => verified,
                failures => Serde(&failures),
                ignored => Serde(&ignored),
            })
        })
        .map_err(ReportError::Html)
}
