//! Two certifications compared (`compare BASE.json NEW.json`): the defects that are new, fixed,
//! not re-tested and still present, by fingerprint (a defect's identity across runs, seeds and
//! partitions), and the trials whose verdict changed. The comparison is written as JSON and as
//! a section of the new run's HTML report.
//!
//! A defect is fixed only where the new run shows that it is: every trial that showed it ran
//! again, against the same target, and passed. A defect the new run does not show for another
//! reason (its trials ignored, not selected, gone from the catalog, failing on something else,
//! or run against another target) is not re-tested, with the count of each. Two results of
//! another target, another selection or another contract version are not comparable: the
//! comparison says why.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::defects::Defect;
use super::{Report, plural};

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

/// What became of the trials that showed a defect, in a later run: how many ran again and
/// passed, and why the others do not count.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Retest {
    /// The trials that showed the defect.
    pub trials: usize,
    /// Ran again and passed.
    pub passed: usize,
    /// Ran again and failed, on other defects.
    pub failed: usize,
    /// Ran again and were ignored (a fixture missing, a precondition that no longer holds).
    pub ignored: usize,
    /// Not run: the later run's selection left them out.
    pub not_selected: usize,
    /// Not run: the later run's catalog no longer has them.
    pub absent: usize,
    /// The later run certified another target than the one that showed the defect.
    #[serde(default)]
    pub other_target: bool,
}

impl Retest {
    /// The trials `showed` of a defect as the later run `now` has them, `same_target` as the
    /// caller tells the targets apart; `missing` says why a trial the later run lacks is not
    /// in it (`true`: its selection left it out; `false`: its catalog lacks it).
    pub fn of(
        showed: &[String],
        now: &BTreeMap<&str, &str>,
        same_target: bool,
        missing: &dyn Fn(&str) -> bool,
    ) -> Retest {
        let mut r = Retest {
            trials: showed.len(),
            other_target: !same_target,
            ..Retest::default()
        };
        for t in showed {
            match now.get(t.as_str()).copied() {
                Some("passed") => r.passed += 1,
                Some("failed") => r.failed += 1,
                Some(_) => r.ignored += 1,
                None if missing(t) => r.not_selected += 1,
                None => r.absent += 1,
            }
        }
        r
    }

    /// Fixed: every trial that showed the defect ran again against the same target and
    /// passed.
    pub fn fixed(&self) -> bool {
        !self.other_target && self.trials > 0 && self.passed == self.trials
    }

    /// Why the defect is not re-tested, in words (`of its 7 trials, 1 passed again, 6 ignored`).
    pub fn why(&self) -> String {
        let mut parts = vec![format!("{} passed again", self.passed)];
        for (n, what) in [
            (self.failed, "failed on other defects"),
            (self.ignored, "ignored"),
            (self.not_selected, "not selected"),
            (self.absent, "no longer in the catalog"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        let mut out = format!(
            "of its {}, {}",
            plural(self.trials, "trial"),
            parts.join(", ")
        );
        if self.other_target {
            out.push_str(", against another target than the one that showed it");
        }
        out
    }
}

/// A defect of the base that the new run does not show and that was not re-tested.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NotRetested {
    #[serde(flatten)]
    pub defect: DefectRef,
    pub retest: Retest,
    /// [`Retest::why`].
    pub why: String,
}

/// A trial whose verdict changed, or that only one of the runs ran.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrialChange {
    pub trial: String,
    /// `passed`, `failed`, `ignored`, or `not run` (the run did not run it).
    pub base: String,
    pub new: String,
}

/// What changed between two certifications.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub base: RunRef,
    pub new: RunRef,
    /// Why the two results are not comparable: another target, another selection, another
    /// contract version. Empty when they are.
    #[serde(default)]
    pub not_comparable: Vec<String>,
    /// In the new run and not in the base: what the change broke.
    pub new_defects: Vec<DefectRef>,
    /// In the base and not in the new run, whose every trial ran again against the same target
    /// and passed.
    pub fixed_defects: Vec<DefectRef>,
    /// In the base and not in the new run, but not shown fixed: some of its trials did not pass
    /// again, or the new run certified another target.
    #[serde(default)]
    pub not_retested: Vec<NotRetested>,
    /// In both (as the new run names them).
    pub still_present: Vec<DefectRef>,
    /// Trials whose verdict differs, by name (a trial one run did not run is `not run` there).
    pub changed_trials: Vec<TrialChange>,
    /// [`Comparison::summary`]: the terminal's last line.
    #[serde(default)]
    pub summary: String,
}

/// A trial one run did not run, as a trial change names it.
pub const NOT_RUN: &str = "not run";

impl Comparison {
    /// `new` compared with `base`.
    pub fn of(base: &Report, new: &Report) -> Comparison {
        let now: BTreeMap<String, &Defect> = new
            .defects
            .iter()
            .map(|d| (d.fingerprint.clone(), d))
            .collect();
        let was: BTreeMap<String, &Defect> = base
            .defects
            .iter()
            .map(|d| (d.fingerprint.clone(), d))
            .collect();
        let verdicts = |r: &Report| -> BTreeMap<String, String> {
            r.trials
                .iter()
                .map(|t| (t.name.clone(), t.verdict.clone()))
                .collect()
        };
        let (base_verdicts, new_verdicts) = (verdicts(base), verdicts(new));
        let not_comparable = not_comparable(base, new);
        let same_target = base.target_identity() == new.target_identity();
        let same_selection = same_selection(base, new);
        let new_by_name: BTreeMap<&str, &str> = new_verdicts
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        // A trial of the base the new run lacks: left out by another selection, else gone from
        // the catalog.
        let missing = |_: &str| !same_selection;
        let mut fixed_defects = Vec::new();
        let mut not_retested = Vec::new();
        for d in base
            .defects
            .iter()
            .filter(|d| !now.contains_key(&d.fingerprint))
        {
            let retest = Retest::of(&d.trials, &new_by_name, same_target, &missing);
            if retest.fixed() {
                fixed_defects.push(defect_ref(d));
            } else {
                not_retested.push(NotRetested {
                    defect: defect_ref(d),
                    why: retest.why(),
                    retest,
                });
            }
        }
        let mut names: Vec<&String> = base_verdicts.keys().chain(new_verdicts.keys()).collect();
        names.sort_unstable();
        names.dedup();
        let changed_trials = names
            .into_iter()
            .filter_map(|n| {
                let b = base_verdicts.get(n).map_or(NOT_RUN, String::as_str);
                let w = new_verdicts.get(n).map_or(NOT_RUN, String::as_str);
                (b != w).then(|| TrialChange {
                    trial: n.clone(),
                    base: b.to_string(),
                    new: w.to_string(),
                })
            })
            .collect();
        let mut out = Comparison {
            base: run_ref(base),
            new: run_ref(new),
            not_comparable,
            new_defects: new
                .defects
                .iter()
                .filter(|d| !was.contains_key(&d.fingerprint))
                .map(defect_ref)
                .collect(),
            fixed_defects,
            not_retested,
            still_present: new
                .defects
                .iter()
                .filter(|d| was.contains_key(&d.fingerprint))
                .map(defect_ref)
                .collect(),
            changed_trials,
            summary: String::new(),
        };
        out.summary = out.summary();
        out
    }

    /// The comparison as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Trials whose verdict changed between two runs that both ran them.
    fn both_ran(&self) -> impl Iterator<Item = &TrialChange> {
        self.changed_trials
            .iter()
            .filter(|t| t.base != NOT_RUN && t.new != NOT_RUN)
    }

    /// The lines the terminal shows, the summary last.
    pub fn lines(&self) -> String {
        let mut out = Vec::new();
        if !self.not_comparable.is_empty() {
            out.push(format!(
                "not comparable, compared all the same (--anyway): {}",
                self.not_comparable.join("; ")
            ));
        }
        let line = |word: &str, d: &DefectRef| {
            format!(
                "{word:<13} {} {} {:<6} [{}] {} ({})",
                d.fingerprint,
                d.id,
                d.severity,
                d.clauses.first().map_or("", String::as_str),
                super::defects::cut(&d.title, 120),
                plural(d.trial_count, "trial")
            )
        };
        out.extend(self.new_defects.iter().map(|d| line("new", d)));
        out.extend(self.fixed_defects.iter().map(|d| line("fixed", d)));
        for n in &self.not_retested {
            out.push(line("not re-tested", &n.defect));
            out.push(format!("              {}", n.retest.why()));
        }
        out.extend(self.still_present.iter().map(|d| line("still present", d)));
        let changed: Vec<&TrialChange> = self.both_ran().collect();
        for t in changed.iter().take(CHANGED_SHOWN) {
            out.push(format!("trial {}: {} -> {}", t.trial, t.base, t.new));
        }
        if changed.len() > CHANGED_SHOWN {
            out.push(format!(
                "... and {} more whose verdict changed (--json)",
                plural(changed.len() - CHANGED_SHOWN, "trial")
            ));
        }
        out.push(format!("compare: {}", self.summary()));
        out.join("\n")
    }

    /// The summary: the defects by what became of them, then the trials, then the runs'
    /// verdicts.
    fn summary(&self) -> String {
        let changed = self.both_ran().count();
        let only_base = self
            .changed_trials
            .iter()
            .filter(|t| t.new == NOT_RUN)
            .count();
        let only_new = self
            .changed_trials
            .iter()
            .filter(|t| t.base == NOT_RUN)
            .count();
        let mut trials = format!(
            "{} of those both ran changed verdict",
            plural(changed, "trial")
        );
        if only_base > 0 {
            trials.push_str(&format!(", {only_base} not run in the new run"));
        }
        if only_new > 0 {
            trials.push_str(&format!(", {only_new} not run in the base"));
        }
        format!(
            "defects: {} new, {} fixed, {} not re-tested, {} still present; {trials}; verdict {} -> {}{}",
            self.new_defects.len(),
            self.fixed_defects.len(),
            self.not_retested.len(),
            self.still_present.len(),
            self.base.verdict,
            self.new.verdict,
            if self.not_comparable.is_empty() {
                ""
            } else {
                " (not comparable)"
            }
        )
    }
}

/// Trials whose verdict changed the terminal names; the JSON and HTML name them all.
const CHANGED_SHOWN: usize = 20;

/// Why `base` and `new` are not comparable: another target, another selection, another
/// contract version.
fn not_comparable(base: &Report, new: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let (b, n) = (base.target_identity(), new.target_identity());
    if b != n {
        out.push(format!("another target (base: {b}; new: {n})"));
    }
    if !same_selection(base, new) {
        out.push(format!(
            "another selection (base: {}; new: {})",
            selection_words(base),
            selection_words(new)
        ));
    }
    if base.api_version != new.api_version {
        out.push(format!(
            "another contract version (base: {}; new: {})",
            base.api_version, new.api_version
        ));
    }
    out
}

/// Whether the two runs selected the same of the catalog: the same options, the same part.
fn same_selection(base: &Report, new: &Report) -> bool {
    let mut b = base.selection.options.clone();
    let mut n = new.selection.options.clone();
    b.sort();
    n.sort();
    b == n && base.selection.partition == new.selection.partition
}

/// A run's selection in words: its options and part, or the whole catalog; with its trials.
fn selection_words(r: &Report) -> String {
    let mut words = if r.selection.options.is_empty() {
        "the whole catalog".to_string()
    } else {
        r.selection.options.join(" ")
    };
    if let Some(p) = &r.selection.partition {
        words.push_str(&format!(", part {p}"));
    }
    format!("{words}, {}", plural(r.totals.total, "trial"))
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn now<'a>(pairs: &[(&'a str, &'a str)]) -> BTreeMap<&'a str, &'a str> {
        pairs.iter().copied().collect()
    }

    #[test]
    fn fixed_only_when_every_trial_ran_again_on_the_same_target_and_passed() {
        let showed = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        let all = now(&[("a", "passed"), ("b", "passed"), ("c", "passed")]);
        assert!(Retest::of(&showed, &all, true, &|_| false).fixed());
        let elsewhere = Retest::of(&showed, &all, false, &|_| false);
        assert!(!elsewhere.fixed());
        assert!(
            elsewhere.why().contains("another target"),
            "{}",
            elsewhere.why()
        );
        let partly = Retest::of(
            &showed,
            &now(&[("a", "passed"), ("b", "ignored")]),
            true,
            &|_| true,
        );
        assert!(!partly.fixed());
        assert_eq!(
            (partly.passed, partly.ignored, partly.not_selected),
            (1, 1, 1)
        );
        assert_eq!(
            partly.why(),
            "of its 3 trials, 1 passed again, 1 ignored, 1 not selected"
        );
    }
}
