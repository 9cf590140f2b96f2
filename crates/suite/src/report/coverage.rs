//! The clause matrix: what the run says of each clause of `schemas/clauses.yaml`, and why.
//!
//! - `failed`: a failed check cites it (the clause of the check, not the case's);
//! - `verified`: a trial citing it got through every step that cites it with no finding on it,
//!   or the generic checks held an answer with no finding to it;
//! - `not reached`: the trials citing it did not get to it: ignored, stopped at an earlier
//!   failure, or not selected (each named, with why);
//! - `not covered`: no check of the suite can cite it, with the reason of its `uncited` waiver in
//!   `schemas/clause-waivers.yaml` (the self-test holds the waivers to the checks).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, LazyLock};

use serde::Serialize;

use super::TrialOut;
use crate::cases::Case;
use crate::results::{CaseResult, Verdict};
use conformance_contract::Contract;

/// The waivers as shipped: why a clause has no fault, or (`uncited`) why no check cites it.
pub(crate) const WAIVERS_YAML: &str = include_str!("../../../../schemas/clause-waivers.yaml");

/// The waiver kind of a clause no check of the suite can cite.
pub(crate) const UNCITED: &str = "uncited";

/// Trials a clause row names in its reason; the row's list has them all.
const NAMED: usize = 3;

/// One clause of the spec and what the run says about it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ClauseRow {
    pub id: String,
    pub text: String,
    /// `failed`, `verified`, `not reached` or `not covered`.
    pub status: String,
    /// Why it is not reached or not covered, or how the generic checks verified it.
    pub reason: Option<String>,
    /// Trials behind the status: the failing ones, the verifying ones, or those that did not
    /// get to it.
    pub trials: Vec<String>,
    /// The defects that cite it (a failed clause).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub defects: Vec<String>,
}

/// What the trials of a run showed of one clause.
#[derive(Default)]
struct Evidence {
    failed: BTreeSet<String>,
    defects: BTreeSet<String>,
    verified: BTreeSet<String>,
    /// Trials with an answer the generic checks held to it, with no finding on that answer.
    held: BTreeSet<String>,
    /// Trial -> why it did not get to the clause.
    unreached: BTreeMap<String, String>,
}

/// The reason of each `uncited` waiver, by clause.
fn uncited() -> &'static BTreeMap<String, String> {
    static MAP: LazyLock<BTreeMap<String, String>> = LazyLock::new(|| {
        let Ok((value, _)) = conformance_contract::yaml::parse(WAIVERS_YAML) else {
            return BTreeMap::new();
        };
        value
            .as_array()
            .into_iter()
            .flatten()
            .filter(|w| w["kind"] == UNCITED)
            .filter_map(|w| Some((w["clause"].as_str()?.into(), w["reason"].as_str()?.into())))
            .collect()
    });
    &MAP
}

/// Every clause a case can cite: its own and its steps'.
pub fn cited(case: &Case) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in case
        .clauses
        .iter()
        .chain(case.steps.iter().flat_map(|s| &s.clauses))
    {
        if !out.contains(c) {
            out.push(c.clone());
        }
    }
    out
}

/// What one trial showed: `out` is its report entry (failures with their clauses and defects).
fn gather(case: &Case, result: &CaseResult, out: &TrialOut, ev: &mut BTreeMap<String, Evidence>) {
    let name = &case.name;
    let failures = match &result.verdict {
        Verdict::Passed => &[][..],
        Verdict::Ignored(why) => {
            for c in cited(case) {
                let e = ev.entry(c).or_default();
                e.unreached.insert(name.clone(), format!("ignored: {why}"));
            }
            return;
        }
        Verdict::Failed(f) => &f[..],
    };
    let mut failed_here: BTreeSet<&str> = BTreeSet::new();
    for f in &out.failures {
        for c in &f.clauses {
            failed_here.insert(c);
            let e = ev.entry(c.clone()).or_default();
            e.failed.insert(name.clone());
            e.defects.extend(f.defect.iter().cloned());
        }
    }
    // After a failed step only `always` (cleanup) steps run.
    let stopped = failures.iter().map(|f| f.step).min();
    let ran = |i: usize| stopped.is_none_or(|k| i < k) || case.steps[i].always;
    let why = stopped.map(|k| {
        let first = out.failures.first();
        format!(
            "stopped at step {k} of {}: {} failed ({})",
            case.steps.len().max(k),
            first.map_or("a check", |f| f.check.as_str()),
            first.map_or(String::new(), |f| f.clauses.join("; "))
        )
    });
    for c in cited(case) {
        if failed_here.contains(c.as_str()) {
            continue;
        }
        let skipped = case
            .steps
            .iter()
            .enumerate()
            .any(|(i, s)| s.cites(case).contains(&c) && !ran(i));
        let e = ev.entry(c).or_default();
        match &why {
            Some(why) if skipped => {
                e.unreached.insert(name.clone(), why.clone());
            }
            _ => {
                e.verified.insert(name.clone());
            }
        }
    }
    for c in &result.held {
        ev.entry(c.clone()).or_default().held.insert(name.clone());
    }
}

/// The clause matrix of a run: `results` and `trials` in the same order; `not_selected`: per
/// clause, trials of the catalog that cite it and that the run did not select.
pub fn rows(
    contract: &Contract,
    results: &[&(Arc<Case>, CaseResult)],
    trials: &[TrialOut],
    not_selected: &BTreeMap<String, usize>,
) -> Vec<ClauseRow> {
    let mut ev: BTreeMap<String, Evidence> = BTreeMap::new();
    for ((case, result), out) in results.iter().map(|r| (&r.0, &r.1)).zip(trials) {
        gather(case, result, out, &mut ev);
    }
    let none = Evidence::default();
    contract
        .clauses
        .iter()
        .map(|c| {
            let e = ev.get(&c.id).unwrap_or(&none);
            let (status, reason, trials) = judge(&c.id, e, not_selected.get(&c.id).copied());
            ClauseRow {
                id: c.id.clone(),
                text: c.text.clone(),
                status: status.to_string(),
                reason,
                trials,
                defects: e.defects.iter().cloned().collect(),
            }
        })
        .collect()
}

/// The status of one clause, its reason and the trials behind it.
fn judge(
    id: &str,
    e: &Evidence,
    not_selected: Option<usize>,
) -> (&'static str, Option<String>, Vec<String>) {
    let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>();
    if !e.failed.is_empty() {
        return ("failed", None, list(&e.failed));
    }
    if !e.verified.is_empty() {
        return ("verified", None, list(&e.verified));
    }
    if !e.held.is_empty() {
        let why = format!(
            "held by the generic checks on every answer of {} (answers without a finding)",
            super::plural(e.held.len(), "trial")
        );
        return ("verified", Some(why), list(&e.held));
    }
    let unselected = not_selected.filter(|n| *n > 0).map(|n| {
        format!(
            "{} of the catalog that cite it {} not selected in this run",
            super::plural(n, "trial"),
            if n == 1 { "was" } else { "were" }
        )
    });
    if !e.unreached.is_empty() {
        let mut parts: Vec<String> = e
            .unreached
            .iter()
            .take(NAMED)
            .map(|(t, why)| format!("{t} {why}"))
            .collect();
        if e.unreached.len() > NAMED {
            parts.push(format!("and {} more", e.unreached.len() - NAMED));
        }
        parts.extend(unselected);
        let names = e.unreached.keys().cloned().collect();
        return ("not reached", Some(parts.join("; ")), names);
    }
    if let Some(why) = unselected {
        return ("not reached", Some(why), Vec::new());
    }
    if let Some(why) = uncited().get(id) {
        return ("not covered", Some(why.clone()), Vec::new());
    }
    (
        "not reached",
        Some(
            "no trial of this run cites it, and no answer of this run came under a generic check that does"
                .into(),
        ),
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_wins_then_verified_then_not_reached() {
        let mut e = Evidence::default();
        e.unreached.insert("a".into(), "ignored: why".into());
        assert_eq!(judge("x", &e, None).0, "not reached");
        assert_eq!(judge("x", &e, None).1.as_deref(), Some("a ignored: why"));
        e.held.insert("b".into());
        assert_eq!(judge("x", &e, None).0, "verified");
        e.failed.insert("c".into());
        assert_eq!(
            judge("x", &e, None),
            ("failed", None, vec!["c".to_string()])
        );
    }

    #[test]
    fn not_covered_only_with_the_reason_of_a_waiver() {
        let e = Evidence::default();
        let (status, reason, _) = judge("no such clause", &e, None);
        assert_eq!(status, "not reached");
        assert!(reason.is_some());
        let (status, _, _) = judge("no such clause", &e, Some(2));
        assert_eq!(status, "not reached");
        if let Some((id, why)) = uncited().iter().next() {
            assert_eq!(
                judge(id, &e, None),
                ("not covered", Some(why.clone()), vec![])
            );
        }
    }
}
