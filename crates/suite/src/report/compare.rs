//! Two certifications compared (`compare BASE.json NEW.json`): the defects that are new, fixed
//! and still present, by fingerprint (a defect's identity across runs, seeds and partitions),
//! and the trials whose verdict changed. The comparison is written as JSON and as a section of
//! the new run's HTML report.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Report;
use super::defects::Defect;

/// One run of a comparison, as the comparison names it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRef {
    pub target: String,
    pub run_id: String,
    pub started: String,
    pub verdict: String,
    pub verdict_text: String,
}

/// A defect as a comparison lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DefectRef {
    pub fingerprint: String,
    /// Its id in the run it comes from (the new run's, for a defect still present).
    pub id: String,
    pub severity: String,
    pub title: String,
    pub clauses: Vec<String>,
    pub trial_count: usize,
}

/// A trial whose verdict changed, or that only one of the runs ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrialChange {
    pub trial: String,
    /// `passed`, `failed`, `ignored`, or `absent` (the run did not run it).
    pub base: String,
    pub new: String,
}

/// What changed between two certifications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub base: RunRef,
    pub new: RunRef,
    /// In the new run and not in the base: what the change broke.
    pub new_defects: Vec<DefectRef>,
    /// In the base and not in the new run.
    pub fixed_defects: Vec<DefectRef>,
    /// In both (as the new run names them).
    pub still_present: Vec<DefectRef>,
    /// Trials whose verdict differs, by name.
    pub changed_trials: Vec<TrialChange>,
}

impl Comparison {
    /// `new` compared with `base`.
    pub fn of(base: &Report, new: &Report) -> Comparison {
        let by_print = |r: &Report| -> BTreeMap<String, Defect> {
            r.defects
                .iter()
                .map(|d| (d.fingerprint.clone(), d.clone()))
                .collect()
        };
        let (was, now) = (by_print(base), by_print(new));
        let listed = |list: &[Defect], keep: &dyn Fn(&Defect) -> bool| -> Vec<DefectRef> {
            list.iter().filter(|d| keep(d)).map(defect_ref).collect()
        };
        let base_verdicts: BTreeMap<&str, &str> = base
            .trials
            .iter()
            .map(|t| (t.name.as_str(), t.verdict.as_str()))
            .collect();
        let new_verdicts: BTreeMap<&str, &str> = new
            .trials
            .iter()
            .map(|t| (t.name.as_str(), t.verdict.as_str()))
            .collect();
        let mut names: Vec<&str> = base_verdicts
            .keys()
            .chain(new_verdicts.keys())
            .copied()
            .collect();
        names.sort_unstable();
        names.dedup();
        let changed_trials = names
            .into_iter()
            .filter_map(|n| {
                let b = base_verdicts.get(n).copied().unwrap_or("absent");
                let w = new_verdicts.get(n).copied().unwrap_or("absent");
                (b != w).then(|| TrialChange {
                    trial: n.to_string(),
                    base: b.to_string(),
                    new: w.to_string(),
                })
            })
            .collect();
        Comparison {
            base: run_ref(base),
            new: run_ref(new),
            new_defects: listed(&new.defects, &|d| !was.contains_key(&d.fingerprint)),
            fixed_defects: listed(&base.defects, &|d| !now.contains_key(&d.fingerprint)),
            still_present: listed(&new.defects, &|d| was.contains_key(&d.fingerprint)),
            changed_trials,
        }
    }

    /// The comparison as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// The lines the terminal shows, the summary last.
    pub fn lines(&self) -> String {
        let mut out = Vec::new();
        for (word, list) in [
            ("new", &self.new_defects),
            ("fixed", &self.fixed_defects),
            ("still", &self.still_present),
        ] {
            for d in list {
                out.push(format!(
                    "{word:<5} {} {} {:<6} [{}] {} ({} trials)",
                    d.fingerprint,
                    d.id,
                    d.severity,
                    d.clauses.first().map_or("", String::as_str),
                    super::defects::cut(&d.title, 120),
                    d.trial_count
                ));
            }
        }
        for t in self.changed_trials.iter().take(CHANGED_SHOWN) {
            out.push(format!("trial {}: {} -> {}", t.trial, t.base, t.new));
        }
        if self.changed_trials.len() > CHANGED_SHOWN {
            out.push(format!(
                "... and {} more trials whose verdict changed (--json)",
                self.changed_trials.len() - CHANGED_SHOWN
            ));
        }
        out.push(format!(
            "compare: {} new, {} fixed, {} still present; {} trials changed verdict ({} -> {})",
            self.new_defects.len(),
            self.fixed_defects.len(),
            self.still_present.len(),
            self.changed_trials.len(),
            self.base.verdict,
            self.new.verdict
        ));
        out.join("\n")
    }
}

/// Trials whose verdict changed the terminal names; the JSON and HTML name them all.
const CHANGED_SHOWN: usize = 20;

fn run_ref(r: &Report) -> RunRef {
    RunRef {
        target: r.target.clone(),
        run_id: r.run_id.clone(),
        started: r.started.clone(),
        verdict: r.verdict.clone(),
        verdict_text: r.verdict_text.clone(),
    }
}

fn defect_ref(d: &Defect) -> DefectRef {
    DefectRef {
        fingerprint: d.fingerprint.clone(),
        id: d.id.clone(),
        severity: d.severity.clone(),
        title: d.title.clone(),
        clauses: d.clauses.clone(),
        trial_count: d.trial_count,
    }
}
