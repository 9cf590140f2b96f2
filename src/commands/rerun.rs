//! `--rerun RESULT.json` (with `--defect ID`, repeatable): the trials of the defects of a
//! previous result run again, against the result's own target (unless `--target`, `--fault` or
//! `--variant` say otherwise), and each of those defects said to hold still, to be fixed, or not
//! to be re-tested. A defect is known by its fingerprint, the same in every run of the same
//! behaviour, so the re-run finds it whatever id it gets this time; it is fixed only when every
//! trial that showed it ran again against the same target and passed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::error::Error;
use conformance_suite::report::compare::Retest;
use conformance_suite::report::merge::read_result;
use conformance_suite::report::{Origin, Report, plural};

/// A defect of the previous result, with the trials that showed it.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub id: String,
    pub fingerprint: String,
    pub title: String,
    pub trials: Vec<String>,
}

/// The target the previous result certified, as a re-run certifies it again.
#[derive(Debug, Clone)]
pub struct Certified {
    /// Its URL (the embedded reference's, whose port is gone with it).
    pub url: String,
    /// [`Report::target_identity`].
    pub identity: String,
    /// Whether it was the embedded reference.
    pub embedded: bool,
    /// The embedded reference's faults, by name.
    pub faults: Vec<String>,
    /// The profile file, the variants and discovery.
    pub origin: Origin,
    /// How the result names its profile (`none`, `discovery`, a file), for results written
    /// before they named the file.
    pub profile: String,
}

/// What a re-run runs again.
#[derive(Debug, Clone)]
pub struct Rerun {
    pub path: PathBuf,
    pub defects: Vec<Wanted>,
    pub certified: Certified,
}

impl Rerun {
    /// The defects of the result at `path` that `ids` name (an id or a fingerprint; all of them
    /// when `ids` is empty).
    pub fn load(path: &Path, ids: &[String]) -> Result<Rerun, Error> {
        let report = read_result(path)?;
        Rerun::of(path, &report, ids)
    }

    fn of(path: &Path, report: &Report, ids: &[String]) -> Result<Rerun, Error> {
        if report.defects.is_empty() {
            return Err(Error::NothingToRerun { path: path.into() });
        }
        for id in ids {
            let known = report
                .defects
                .iter()
                .any(|d| &d.id == id || &d.fingerprint == id);
            if !known {
                return Err(Error::UnknownDefect {
                    id: id.clone(),
                    path: path.into(),
                    known: report
                        .defects
                        .iter()
                        .map(|d| format!("{} ({})", d.id, d.fingerprint))
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
        let defects = report
            .defects
            .iter()
            .filter(|d| ids.is_empty() || ids.iter().any(|i| i == &d.id || i == &d.fingerprint))
            .map(|d| Wanted {
                id: d.id.clone(),
                fingerprint: d.fingerprint.clone(),
                title: d.title.clone(),
                trials: d.trials.clone(),
            })
            .collect();
        Ok(Rerun {
            path: path.into(),
            defects,
            certified: Certified {
                url: report.target.clone(),
                identity: report.target_identity(),
                embedded: report.embedded(),
                faults: report.faults.clone(),
                origin: report.origin.clone(),
                profile: report.profile.clone(),
            },
        })
    }

    /// Every trial of the defects.
    pub fn trials(&self) -> BTreeSet<String> {
        self.defects
            .iter()
            .flat_map(|d| d.trials.iter().cloned())
            .collect()
    }

    /// One line per defect: still holds (with its id in this run), no longer holds (every trial
    /// that showed it ran again against the same target and passed), or not re-tested (how many
    /// of its trials were ignored, not selected, gone from the catalog, failed on something else,
    /// or ran against another target). `in_catalog` tells a trial the run did not select from
    /// one its catalog no longer has.
    pub fn lines(&self, now: &Report, in_catalog: &dyn Fn(&str) -> bool) -> String {
        let verdicts: BTreeMap<&str, &str> = now
            .trials
            .iter()
            .map(|t| (t.name.as_str(), t.verdict.as_str()))
            .collect();
        let same_target = now.target_identity() == self.certified.identity;
        let mut out = vec![format!(
            "re-run of {} of {} (certified {}) against {}:",
            plural(self.defects.len(), "defect"),
            self.path.display(),
            self.certified.identity,
            now.target_identity()
        )];
        let (mut holding, mut fixed, mut untested) = (0, 0, 0);
        for d in &self.defects {
            let found = now.defects.iter().find(|n| n.fingerprint == d.fingerprint);
            let line = match found {
                Some(n) => {
                    holding += 1;
                    format!(
                        "  {} {} still holds (as {} here, in {} of its {}): {}",
                        d.id,
                        d.fingerprint,
                        n.id,
                        n.trial_count,
                        plural(d.trials.len(), "trial"),
                        d.title
                    )
                }
                None => {
                    let retest = Retest::of(&d.trials, &verdicts, same_target, in_catalog);
                    if retest.fixed() {
                        fixed += 1;
                        format!(
                            "  {} {} no longer holds: {} ran again against the same target and passed: {}",
                            d.id,
                            d.fingerprint,
                            if d.trials.len() == 1 {
                                "its trial".to_string()
                            } else {
                                format!("its {} trials", d.trials.len())
                            },
                            d.title
                        )
                    } else {
                        untested += 1;
                        format!(
                            "  {} {} not re-tested ({}): {}",
                            d.id,
                            d.fingerprint,
                            retest.why(),
                            d.title
                        )
                    }
                }
            };
            out.push(line);
        }
        out.push(format!(
            "re-run: {holding} still {}, {fixed} no longer {}, {untested} not re-tested",
            if holding == 1 { "holds" } else { "hold" },
            if fixed == 1 { "holds" } else { "hold" },
        ));
        out.join("\n")
    }
}
