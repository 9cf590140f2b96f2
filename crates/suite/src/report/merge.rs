//! One certificate from the JSON results of N parts of a run (`--partition K/N`): the parts are
//! checked to come from one catalog, selection and target and to cover each trial once; their
//! trials are joined, the totals, defects and clause matrix computed again, and a missing part
//! makes the verdict incomplete, naming it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use super::coverage::ClauseRow;
use super::{PartOut, Report, SelectionOut, Totals, TrialOut, groups, ignored_reasons, plural};
use crate::results::{Severity, Summary};
use conformance_contract::Contract;

/// Why the parts cannot be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No file was given.
    #[error("merge needs the JSON results of the parts (--json of each `--partition K/N` run)")]
    NoParts,
    /// A part cannot be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A part is not a JSON result of this suite.
    #[error("{path}: not a JSON result of workspace-conformance (`--json`): {source}")]
    Parse {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// A part of another format.
    #[error(
        "{path}: JSON result format {found}; merge reads format 3 (write the parts with this version of the suite)"
    )]
    Format { path: PathBuf, found: u32 },
    /// A result of a whole run, not a part.
    #[error("{path}: the result of a whole run (no `--partition K/N`): nothing to merge it with")]
    NotAPart { path: PathBuf },
    /// Two parts of different runs.
    #[error(
        "{path} is not a part of the same run as {first}: {what} differs ({theirs} there, {ours} here)"
    )]
    Mismatch {
        path: PathBuf,
        first: PathBuf,
        what: &'static str,
        theirs: String,
        ours: String,
    },
    /// One part given twice.
    #[error("part {part} is given twice: {first} and {path}")]
    Doubled {
        part: String,
        first: PathBuf,
        path: PathBuf,
    },
    /// The embedded contract does not load (a broken build).
    #[error("the embedded contract does not load: {0}")]
    Contract(conformance_contract::ContractError),
    /// One trial in two parts (parts of splits that do not match).
    #[error(
        "trial {trial} is in two parts: {first} and {path}; each trial must be in one part exactly"
    )]
    TrialTwice {
        trial: String,
        first: PathBuf,
        path: PathBuf,
    },
}

/// The merged result, and the parts that were missing (`K/N`).
pub struct Merged {
    pub report: Report,
    pub missing: Vec<String>,
}

/// Reads and merges the parts at `paths`.
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, MergeError> {
    let mut parts = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(path).map_err(|source| MergeError::Read {
            path: path.clone(),
            source,
        })?;
        let report = read_part(path, &text)?;
        parts.push((path.clone(), report));
    }
    merge(parts)
}

/// One part read: a format-3 result of a partitioned run.
fn read_part(path: &Path, text: &str) -> Result<Report, MergeError> {
    let report = parse_result(path, text)?;
    if report.selection.partition.is_none() {
        return Err(MergeError::NotAPart { path: path.into() });
    }
    Ok(report)
}

/// A JSON result of a run or a merge (`--json`), read from `path`: for `compare` and
/// `--rerun`.
pub fn read_result(path: &Path) -> Result<Report, MergeError> {
    let text = std::fs::read_to_string(path).map_err(|source| MergeError::Read {
        path: path.into(),
        source,
    })?;
    parse_result(path, &text)
}

/// A format-3 JSON result, its failures' severities set from their words.
fn parse_result(path: &Path, text: &str) -> Result<Report, MergeError> {
    #[derive(serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Head {
        format_version: u32,
    }
    let head: Head = serde_json::from_str(text).map_err(|source| MergeError::Parse {
        path: path.into(),
        source,
    })?;
    if head.format_version != 3 {
        return Err(MergeError::Format {
            path: path.into(),
            found: head.format_version,
        });
    }
    let mut report: Report = serde_json::from_str(text).map_err(|source| MergeError::Parse {
        path: path.into(),
        source,
    })?;
    for f in report.trials.iter_mut().flat_map(|t| t.failures.iter_mut()) {
        f.rank = Severity::ALL
            .into_iter()
            .find(|s| s.word() == f.severity)
            .unwrap_or(Severity::Shape);
    }
    Ok(report)
}

/// `K/N` as numbers.
fn part_of(selection: &SelectionOut) -> (usize, usize) {
    let text = selection.partition.as_deref().unwrap_or("1/1");
    let (k, n) = text.split_once('/').unwrap_or(("1", "1"));
    (k.parse().unwrap_or(1), n.parse().unwrap_or(1))
}

/// Checks that `parts` are of one run, then joins them.
pub fn merge(parts: Vec<(PathBuf, Report)>) -> Result<Merged, MergeError> {
    let Some((first_path, first)) = parts.first() else {
        return Err(MergeError::NoParts);
    };
    let (_, n) = part_of(&first.selection);
    let mut seen: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut owner: BTreeMap<String, PathBuf> = BTreeMap::new();
    for (path, part) in &parts {
        let same = |what: &'static str, theirs: String, ours: String| {
            if theirs == ours {
                Ok(())
            } else {
                Err(MergeError::Mismatch {
                    path: path.clone(),
                    first: first_path.clone(),
                    what,
                    theirs,
                    ours,
                })
            }
        };
        same(
            "the suite version",
            first.suite_version.clone(),
            part.suite_version.clone(),
        )?;
        same(
            "the catalog and selection (case files, --area, --tag, --read-only, the filter)",
            format!(
                "{} trials, {}",
                first.selection.trials,
                &first.selection.catalog[..12.min(first.selection.catalog.len())]
            ),
            format!(
                "{} trials, {}",
                part.selection.trials,
                &part.selection.catalog[..12.min(part.selection.catalog.len())]
            ),
        )?;
        let (k, this_n) = part_of(&part.selection);
        same("the number of parts", n.to_string(), this_n.to_string())?;
        same("the target", first.target.clone(), part.target.clone())?;
        same(
            "the faults of the reference",
            first.faults.join(","),
            part.faults.join(","),
        )?;
        if let Some(earlier) = seen.insert(k, path.clone()) {
            return Err(MergeError::Doubled {
                part: format!("{k}/{n}"),
                first: earlier,
                path: path.clone(),
            });
        }
        for t in &part.trials {
            if let Some(earlier) = owner.insert(t.name.clone(), path.clone()) {
                return Err(MergeError::TrialTwice {
                    trial: t.name.clone(),
                    first: earlier,
                    path: path.clone(),
                });
            }
        }
    }
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    let contract = Contract::embedded().map_err(MergeError::Contract)?;
    Ok(join(
        parts.into_iter().map(|(_, r)| r).collect(),
        missing,
        &contract,
    ))
}

/// The parts joined (checked before): trials, defects, matrix and verdict computed again. The
/// defects are grouped again from every part's findings, as one run groups its own: the same
/// findings give the same defects, fingerprints, titles and clause order, however the run was
/// split.
fn join(mut parts: Vec<Report>, missing: Vec<String>, contract: &Contract) -> Merged {
    parts.sort_by_key(|p| part_of(&p.selection));
    let first = parts[0].clone();
    let mut trials: Vec<TrialOut> = parts
        .iter()
        .flat_map(|p| p.trials.iter().cloned())
        .collect();
    trials.sort_by(|a, b| a.name.cmp(&b.name));
    let mut defects = super::defects::group(&mut trials, contract);
    let reproductions = super::reproduce::by_fingerprint(&parts);
    for d in &mut defects {
        d.reproduction = reproductions.get(&d.fingerprint).cloned();
    }
    let mut totals = Totals::default();
    for t in &trials {
        totals.add(&t.verdict);
    }
    let clauses = join_clauses(&parts, &trials);
    let interrupted = parts.iter().any(|p| p.interrupted);
    let not_run = first.selection.trials.saturating_sub(trials.len());
    let (verdict, verdict_text) = verdict(interrupted, &totals, defects.len(), &missing, not_run);
    let started = parts
        .iter()
        .map(|p| p.started.clone())
        .min()
        .unwrap_or_default();
    let part_list = parts
        .iter()
        .map(|p| PartOut {
            partition: p.selection.partition.clone().unwrap_or_default(),
            run_id: p.run_id.clone(),
            seed: p.seed,
            requests: p.requests,
        })
        .collect();
    let report = Report {
        run_id: parts
            .iter()
            .map(|p| p.run_id.as_str())
            .collect::<Vec<_>>()
            .join(","),
        started,
        duration_seconds: parts.iter().map(|p| p.duration_seconds).fold(0.0, f64::max),
        requests: parts.iter().map(|p| p.requests).sum(),
        deliveries_received: parts.iter().map(|p| p.deliveries_received).sum(),
        interrupted,
        verdict: verdict.into(),
        verdict_text,
        ignored_reasons: ignored_reasons(&trials),
        totals,
        defects,
        areas: groups(&trials, |t| &t.area),
        generations: groups(&trials, |t| &t.api),
        clauses,
        trials,
        cleanup: join_cleanup(&parts),
        selection: SelectionOut {
            partition: None,
            ..first.selection.clone()
        },
        parts: part_list,
        situations: crate::results::situations::SituationCoverage::merged(
            parts.iter().filter_map(|p| p.situations.as_ref()),
        ),
        ..first
    };
    Merged { report, missing }
}

/// The merged verdict: a missing part makes a run that failed nothing incomplete.
fn verdict(
    interrupted: bool,
    totals: &Totals,
    defects: usize,
    missing: &[String],
    not_run: usize,
) -> (&'static str, String) {
    let (verdict, text) = super::verdict_of(interrupted, totals, defects);
    if missing.is_empty() {
        return (verdict, text);
    }
    let gap = format!(
        "part{} {} missing ({} not run)",
        if missing.len() == 1 { "" } else { "s" },
        missing.join(", "),
        plural(not_run, "trial")
    );
    match verdict {
        "passed" | "incomplete" => {
            let ignored = if totals.ignored > 0 {
                format!(", {} ignored", totals.ignored)
            } else {
                String::new()
            };
            ("incomplete", format!("incomplete: {gap}{ignored}"))
        }
        _ => (verdict, format!("{text}; {gap}")),
    }
}

/// The clause matrix of the parts as one run's: failed in any part is failed; else verified by
/// a check in any part; else held by the generic checks; else not reached (with the trials
/// that did not get to it) or not covered, as every part says.
fn join_clauses(parts: &[Report], trials: &[TrialOut]) -> Vec<ClauseRow> {
    let first = &parts[0];
    // The defects that cite each clause, from the merged trials' findings.
    let mut cited: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for f in trials.iter().flat_map(|t| &t.failures) {
        for c in &f.clauses {
            cited
                .entry(c.as_str())
                .or_default()
                .extend(f.defect.iter().cloned());
        }
    }
    first
        .clauses
        .iter()
        .enumerate()
        .map(|(at, row)| {
            let rows: Vec<(usize, &ClauseRow)> = parts
                .iter()
                .enumerate()
                .filter_map(|(i, p)| {
                    p.clauses
                        .get(at)
                        .filter(|r| r.id == row.id)
                        .or_else(|| p.clauses.iter().find(|r| r.id == row.id))
                        .map(|r| (i, r))
                })
                .collect();
            join_row(row, &rows, cited.get(row.id.as_str()))
        })
        .collect()
}

fn join_row(
    row: &ClauseRow,
    rows: &[(usize, &ClauseRow)],
    defects: Option<&BTreeSet<String>>,
) -> ClauseRow {
    let union = |keep: &dyn Fn(&ClauseRow) -> bool| -> Vec<String> {
        let set: BTreeSet<String> = rows
            .iter()
            .filter(|(_, r)| keep(r))
            .flat_map(|(_, r)| r.trials.iter().cloned())
            .collect();
        set.into_iter().collect()
    };
    let defects: BTreeSet<String> = defects.cloned().unwrap_or_default();
    let base = ClauseRow {
        id: row.id.clone(),
        text: row.text.clone(),
        status: String::new(),
        reason: None,
        trials: Vec::new(),
        defects: defects.into_iter().collect(),
    };
    let is = |s: &'static str| move |r: &ClauseRow| r.status == s;
    if rows.iter().any(|(_, r)| r.status == "failed") {
        return ClauseRow {
            status: "failed".into(),
            trials: union(&is("failed")),
            ..base
        };
    }
    let by_check = |r: &ClauseRow| r.status == "verified" && r.reason.is_none();
    if rows.iter().any(|(_, r)| by_check(r)) {
        return ClauseRow {
            status: "verified".into(),
            trials: union(&by_check),
            ..base
        };
    }
    if rows.iter().any(|(_, r)| r.status == "verified") {
        let trials = union(&is("verified"));
        return ClauseRow {
            status: "verified".into(),
            reason: Some(format!(
                "held by the generic checks on every answer of {} (answers without a finding)",
                plural(trials.len(), "trial")
            )),
            trials,
            ..base
        };
    }
    if rows.iter().all(|(_, r)| r.status == "not covered") {
        return ClauseRow {
            status: "not covered".into(),
            reason: row.reason.clone(),
            ..base
        };
    }
    // Not reached: the trials that did not get to it, in any part; a part's count of trials
    // "not selected" includes the other parts' and is left out.
    let trials = union(&is("not reached"));
    let mut reasons: Vec<String> = Vec::new();
    for fragment in rows
        .iter()
        .filter_map(|(_, r)| r.reason.as_deref())
        .flat_map(|r| r.split("; "))
    {
        let counted = fragment.starts_with("and ") && fragment.ends_with(" more");
        let other_parts = fragment.contains("were not selected in this run") && !trials.is_empty();
        if !counted && !other_parts && !reasons.iter().any(|r| r == fragment) {
            reasons.push(fragment.to_string());
        }
    }
    if reasons.len() > NAMED {
        let more = reasons.len() - NAMED;
        reasons.truncate(NAMED);
        reasons.push(format!("and {more} more"));
    }
    ClauseRow {
        status: "not reached".into(),
        reason: Some(reasons.join("; ")).filter(|r| !r.is_empty()),
        trials,
        ..base
    }
}

/// Reasons a merged row names.
const NAMED: usize = 3;

/// The parts' cleanups as one.
fn join_cleanup(parts: &[Report]) -> Option<Summary> {
    let all: Vec<&Summary> = parts.iter().filter_map(|p| p.cleanup.as_ref()).collect();
    if all.is_empty() {
        return None;
    }
    let list = |f: &dyn Fn(&Summary) -> &Vec<String>| -> Vec<String> {
        all.iter().flat_map(|s| f(s).iter().cloned()).collect()
    };
    Some(Summary {
        run_id: all
            .iter()
            .map(|s| s.run_id.as_str())
            .collect::<Vec<_>>()
            .join(","),
        removed: list(&|s| &s.removed),
        already_gone: list(&|s| &s.already_gone),
        not_removed: list(&|s| &s.not_removed),
        left: list(&|s| &s.left),
    })
}
