//! `--rerun RESULT.json` (with `--defect ID`, repeatable): the trials of the defects of a
//! previous result run again, and each of those defects said to hold still or to be gone. A
//! defect is known by its fingerprint, the same in every run of the same behaviour, so the
//! re-run finds it whatever id it gets this time.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::Error;
use conformance_suite::report::Report;
use conformance_suite::report::merge::read_result;

/// A defect of the previous result, with the trials that showed it.
#[derive(Debug, Clone)]
pub struct Wanted {
    pub id: String,
    pub fingerprint: String,
    pub title: String,
    pub trials: Vec<String>,
}

/// What a re-run runs again.
#[derive(Debug, Clone)]
pub struct Rerun {
    pub path: PathBuf,
    pub defects: Vec<Wanted>,
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
        })
    }

    /// Every trial of the defects.
    pub fn trials(&self) -> BTreeSet<String> {
        self.defects
            .iter()
            .flat_map(|d| d.trials.iter().cloned())
            .collect()
    }

    /// One line per defect: still holds (with its id in this run) or gone.
    pub fn lines(&self, now: &Report) -> String {
        let mut out = vec![format!(
            "re-run of {} defects of {}:",
            self.defects.len(),
            self.path.display()
        )];
        for d in &self.defects {
            let found = now.defects.iter().find(|n| n.fingerprint == d.fingerprint);
            let line = match found {
                Some(n) => format!(
                    "  {} {} still holds (as {} here, in {} of its {} trials): {}",
                    d.id,
                    d.fingerprint,
                    n.id,
                    n.trial_count,
                    d.trials.len(),
                    d.title
                ),
                None => format!(
                    "  {} {} no longer holds: its {} trials ran and none shows it: {}",
                    d.id,
                    d.fingerprint,
                    d.trials.len(),
                    d.title
                ),
            };
            out.push(line);
        }
        out.join("\n")
    }
}
