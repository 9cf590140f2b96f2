//! JUnit XML: one testsuite per `<generation>.<area>`, one testcase per trial; a failure carries
//! its most severe failed check as its message, and as its text the defects it belongs to, then
//! the whole explanation (with the curl reproduction); an ignored trial is skipped with its
//! reason.

use std::collections::BTreeMap;
use std::time::Duration;

use quick_junit::{NonSuccessKind, Report as JUnit, TestCase, TestCaseStatus, TestSuite};

use super::{Report, ReportError};

pub fn render(report: &Report) -> Result<String, ReportError> {
    // The run's verdict in the report's name: a JUnit viewer shows skipped tests in green, and a
    // partial run must not read as a certification.
    let mut junit = JUnit::new(format!("workspace-conformance ({})", report.verdict_text));
    junit.set_time(Duration::from_secs_f64(report.duration_seconds));
    let mut suites: BTreeMap<String, TestSuite> = BTreeMap::new();
    for t in &report.trials {
        let suite_name = format!("{}.{}", t.api, t.area);
        let status = match t.verdict.as_str() {
            "passed" => TestCaseStatus::success(),
            "failed" => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                if let Some(f) = t.failures.first() {
                    s.set_message(format!(
                        "{}{}: expected {}, got {} ({})",
                        f.defect
                            .as_deref()
                            .map_or(String::new(), |d| format!("{d} {}: ", f.severity)),
                        f.check,
                        f.expected,
                        f.actual,
                        f.clauses.join("; ")
                    ));
                    s.set_type(f.check.clone());
                }
                let mut text: String = t
                    .defects
                    .iter()
                    .filter_map(|id| report.defect(id))
                    .map(|d| {
                        format!(
                            "defect {} ({}, {} in the run): {}\n",
                            d.id,
                            d.severity,
                            super::plural(d.trial_count, "trial"),
                            d.title
                        )
                    })
                    .collect();
                if let Some(e) = &t.explanation {
                    text.push('\n');
                    text.push_str(e);
                }
                s.set_description(text);
                s
            }
            _ => {
                let mut s = TestCaseStatus::skipped();
                if let Some(r) = &t.reason {
                    s.set_message(r.clone());
                }
                s
            }
        };
        let mut case = TestCase::new(t.name.clone(), status);
        case.set_classname(suite_name.clone());
        case.set_time(Duration::from_secs_f64(t.duration_seconds));
        let reproduce: Vec<&str> = t
            .failures
            .iter()
            .filter_map(|f| f.exchange.as_ref().map(|e| e.reproduce.as_str()))
            .collect();
        if !reproduce.is_empty() {
            let mut seen = Vec::new();
            for r in reproduce {
                if !seen.contains(&r) {
                    seen.push(r);
                }
            }
            case.set_system_out(format!("reproduce:\n{}\n", seen.join("\n")));
        }
        suites
            .entry(suite_name.clone())
            .or_insert_with(|| {
                let mut suite = TestSuite::new(suite_name);
                suite.add_property(("verdict", report.verdict_text.as_str()));
                suite
            })
            .add_test_case(case);
    }
    for (_, mut suite) in suites {
        let secs: f64 = suite
            .test_cases
            .iter()
            .filter_map(|c| c.time)
            .map(|d| d.as_secs_f64())
            .sum();
        suite.set_time(Duration::from_secs_f64(secs));
        junit.add_test_suite(suite);
    }
    junit.to_string().map_err(ReportError::Junit)
}
