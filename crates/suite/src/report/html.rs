//! The HTML certification report: one self-contained file (inline CSS, no script, no external
//! asset), rendered by minijinja from `report.html` with HTML autoescaping. It leads with the
//! defects: each links to its cards, folded under it; each clause row links to the trials
//! behind its status.

use std::collections::BTreeMap;

use minijinja::value::Serde;
use minijinja::{Environment, context};
use serde::Serialize;

use super::{Defect, FailureOut, Report, ReportError, TrialOut};

const TEMPLATE: &str = include_str!("report.html");

/// A trial's card under one of its defects: the failures of that defect, and its others.
#[derive(Serialize)]
struct Card<'a> {
    anchor: String,
    trial: &'a TrialOut,
    failures: Vec<&'a FailureOut>,
    /// Its other defects, each with the anchor of its card there.
    others: Vec<(String, String)>,
}

/// A defect with the cards of its trials.
#[derive(Serialize)]
struct DefectCards<'a> {
    defect: &'a Defect,
    /// Anchors of its clauses' rows.
    clause_anchors: Vec<(String, String)>,
    cards: Vec<Card<'a>>,
}

/// The anchor of a trial's card under a defect.
fn card_anchor(defect: &str, trial: &str) -> String {
    format!("{defect}-{trial}")
}

/// The anchor of a trial in the table of every trial.
fn trial_anchor(trial: &str) -> String {
    format!("t-{trial}")
}

fn defect_cards<'a>(
    report: &'a Report,
    clause_anchor: &BTreeMap<&str, String>,
) -> Vec<DefectCards<'a>> {
    let trials: BTreeMap<&str, &TrialOut> =
        report.trials.iter().map(|t| (t.name.as_str(), t)).collect();
    report
        .defects
        .iter()
        .map(|d| DefectCards {
            defect: d,
            clause_anchors: d
                .clauses
                .iter()
                .map(|c| {
                    (
                        c.clone(),
                        clause_anchor.get(c.as_str()).cloned().unwrap_or_default(),
                    )
                })
                .collect(),
            cards: d
                .trials
                .iter()
                .filter_map(|name| trials.get(name.as_str()))
                .map(|t| Card {
                    anchor: card_anchor(&d.id, &t.name),
                    trial: t,
                    failures: t
                        .failures
                        .iter()
                        .filter(|f| f.defect.as_deref() == Some(d.id.as_str()))
                        .collect(),
                    others: t
                        .defects
                        .iter()
                        .filter(|o| **o != d.id)
                        .map(|o| (o.clone(), card_anchor(o, &t.name)))
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

/// Per clause row, its trials with where each links: the card of the defect that cites the
/// clause for a failed trial, else the trial's row in the table of every trial.
fn clause_links(report: &Report) -> Vec<Vec<(String, String)>> {
    let trials: BTreeMap<&str, &TrialOut> =
        report.trials.iter().map(|t| (t.name.as_str(), t)).collect();
    report
        .clauses
        .iter()
        .map(|c| {
            c.trials
                .iter()
                .map(|name| {
                    let card = trials.get(name.as_str()).and_then(|t| {
                        t.failures
                            .iter()
                            .find(|f| f.clauses.contains(&c.id))
                            .and_then(|f| f.defect.as_deref())
                    });
                    let href = match card {
                        Some(d) => card_anchor(d, name),
                        None => trial_anchor(name),
                    };
                    (name.clone(), href)
                })
                .collect()
        })
        .collect()
}

pub fn render(report: &Report) -> Result<String, ReportError> {
    let mut env = Environment::new();
    // `{{ n | count("trial") }}` is `1 trial` or `3 trials`; `{{ n | noun("trial") }}` the noun
    // alone, for a number shown apart.
    env.add_filter("count", |n: usize, word: String| super::plural(n, &word));
    env.add_filter("noun", |n: usize, word: String| {
        crate::results::noun(n, &word)
    });
    env.add_template("report.html", TEMPLATE)
        .map_err(ReportError::Template)?;
    let verified = report
        .clauses
        .iter()
        .filter(|c| c.status == "verified")
        .count();
    let clause_anchor: BTreeMap<&str, String> = report
        .clauses
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), format!("c{}", i + 1)))
        .collect();
    let ignored: Vec<_> = report
        .trials
        .iter()
        .filter(|t| t.verdict == "ignored")
        .collect();
    // The first card of each failed trial, where its row in the table of every trial links.
    let first_card: BTreeMap<&str, String> = report
        .trials
        .iter()
        .filter_map(|t| Some((t.name.as_str(), card_anchor(t.defects.first()?, &t.name))))
        .collect();
    env.get_template("report.html")
        .and_then(|t| {
            t.render(context! {
                r => Serde(report),
                verified => verified,
                defects => Serde(&defect_cards(report, &clause_anchor)),
                clause_links => Serde(&clause_links(report)),
                clause_anchor => Serde(&clause_anchor),
                first_card => Serde(&first_card),
                ignored => Serde(&ignored),
            })
        })
        .map_err(ReportError::Html)
}
