//! Defects, not trials: every failed finding of a run grouped with the others that share its
//! clauses, its check and the shape of its difference, whatever trials and operations they come
//! from. The shape is the expected and the actual text with the run's ids, paths and values taken
//! out, so one wrong behaviour met by forty trials is one defect, and two wrong behaviours met by
//! one trial are two. Defects come worst first (`checks::severity`), then the most widespread.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use serde::Serialize;

use super::{ExchangeOut, TrialOut};
use crate::checks::severity::{CheckKind, Severity};
use crate::contract::Contract;

/// Trials and operations a defect names in the terminal; the reports name them all.
pub const NAMED: usize = 3;

/// One defect of the target: the findings of one clause, check and shape of difference.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Defect {
    /// `D1`, `D2`, ... in the order of the list: worst first.
    pub id: String,
    /// `access`, `data`, `codes` or `shape`.
    pub severity: String,
    /// 1 (access) to 4 (shape).
    pub severity_rank: u8,
    /// What is wrong in one line: the clause's words, then the check and the difference.
    pub title: String,
    /// The clauses of the check that failed.
    pub clauses: Vec<String>,
    /// The check, with step numbers and delivery ranks as `N`.
    pub check: String,
    /// The shape of what was expected: the findings' expected text, values taken out.
    pub expected_shape: String,
    /// The shape of what came back.
    pub actual_shape: String,
    /// Failed findings it groups.
    pub findings: usize,
    pub trial_count: usize,
    /// Every trial it touched, by name.
    pub trials: Vec<String>,
    pub operation_count: usize,
    /// Every operation it touched (`GET /v1/contacts/{id}`), sorted.
    pub operations: Vec<String>,
    /// One representative finding, with its exchange and reproduction.
    pub example: Example,
}

/// The finding that stands for a defect.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Example {
    pub trial: String,
    pub step: usize,
    pub expected: String,
    pub actual: String,
    pub exchange: Option<ExchangeOut>,
}

/// What makes two findings one defect.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    clauses: Vec<String>,
    check: String,
    expected: String,
    actual: String,
}

/// The findings of one defect, as they are gathered.
struct Group {
    severity: Severity,
    findings: usize,
    trials: BTreeSet<String>,
    operations: BTreeSet<String>,
    /// (trial, failure index) of the representative.
    example: (usize, usize),
}

/// Groups the failed findings of `trials` into defects, worst first, and names each finding's
/// defect on it (`FailureOut::defect`) and each failed trial's on the trial.
pub fn group(trials: &mut [TrialOut], contract: &Contract, run_id: &str) -> Vec<Defect> {
    let mut groups: BTreeMap<Key, Group> = BTreeMap::new();
    let mut keys: Vec<Vec<Key>> = Vec::with_capacity(trials.len());
    for (ti, t) in trials.iter().enumerate() {
        let mut of_trial = Vec::new();
        for (fi, f) in t.failures.iter().enumerate() {
            let kind = CheckKind::of(&f.check);
            let key = Key {
                clauses: f.clauses.clone(),
                check: numbers_out(&f.check),
                expected: shape(&f.expected, run_id, kind),
                actual: shape(&f.actual, run_id, kind),
            };
            let g = groups.entry(key.clone()).or_insert_with(|| Group {
                severity: f.rank,
                findings: 0,
                trials: BTreeSet::new(),
                operations: BTreeSet::new(),
                example: (ti, fi),
            });
            g.severity = g.severity.min(f.rank);
            g.findings += 1;
            g.trials.insert(t.name.clone());
            if let Some(op) = &f.operation {
                g.operations.insert(op.clone());
            }
            // A finding with its exchange shows the defect better than one without.
            let (eti, efi) = g.example;
            if trials[eti].failures[efi].exchange.is_none() && f.exchange.is_some() {
                g.example = (ti, fi);
            }
            of_trial.push(key);
        }
        keys.push(of_trial);
    }
    let mut ordered: Vec<(Key, Group)> = groups.into_iter().collect();
    ordered.sort_by(|(ka, a), (kb, b)| {
        a.severity
            .cmp(&b.severity)
            .then(b.trials.len().cmp(&a.trials.len()))
            .then(b.findings.cmp(&a.findings))
            .then(ka.cmp(kb))
    });
    let ids: BTreeMap<Key, String> = ordered
        .iter()
        .enumerate()
        .map(|(i, (k, _))| (k.clone(), format!("D{}", i + 1)))
        .collect();
    let defects = ordered
        .iter()
        .map(|(key, g)| defect(&ids[key], key, g, trials, contract))
        .collect();
    for (t, of_trial) in trials.iter_mut().zip(keys) {
        let mut named: Vec<String> = Vec::new();
        for (f, key) in t.failures.iter_mut().zip(of_trial) {
            let id = ids[&key].clone();
            if !named.contains(&id) {
                named.push(id.clone());
            }
            f.defect = Some(id);
        }
        t.defects = named;
    }
    defects
}

fn defect(id: &str, key: &Key, g: &Group, trials: &[TrialOut], contract: &Contract) -> Defect {
    let (ti, fi) = g.example;
    let t = &trials[ti];
    let f = &t.failures[fi];
    let text = key
        .clauses
        .first()
        .and_then(|c| contract.clauses.iter().find(|k| &k.id == c))
        .map_or_else(|| key.clauses.join("; "), |c| c.text.clone());
    Defect {
        id: id.to_string(),
        severity: g.severity.word().to_string(),
        severity_rank: g.severity.rank(),
        title: format!(
            "{} — {}: expected {}, got {}",
            text.trim_end_matches('.'),
            f.check,
            cut(&f.expected, 80),
            cut(&f.actual, 80)
        ),
        clauses: key.clauses.clone(),
        check: key.check.clone(),
        expected_shape: key.expected.clone(),
        actual_shape: key.actual.clone(),
        findings: g.findings,
        trial_count: g.trials.len(),
        trials: g.trials.iter().cloned().collect(),
        operation_count: g.operations.len(),
        operations: g.operations.iter().cloned().collect(),
        example: Example {
            trial: t.name.clone(),
            step: f.step,
            expected: f.expected.clone(),
            actual: f.actual.clone(),
            exchange: f.exchange.clone(),
        },
    }
}

/// `text` cut to `n` characters, with an ellipsis when cut.
pub fn cut(text: &str, n: usize) -> String {
    let one_line = text.replace('\n', " ");
    if one_line.chars().count() <= n {
        return one_line;
    }
    let kept: String = one_line.chars().take(n.saturating_sub(1)).collect();
    format!("{kept}…")
}

/// A check's name with its numbers (a control's step, a delivery's rank) as `N`.
fn numbers_out(check: &str) -> String {
    static DIGITS: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r"[0-9]+").expect("regex"));
    DIGITS.replace_all(check, "N").into_owned()
}

/// What a property adds to a finding's actual text to say which input failed: the input is a
/// value of the run, not part of the difference.
const INPUT_NOTES: [&str; 3] = [
    "; a boundary input",
    "; minimal input after shrinking",
    "; a transport failure on the random input",
];

/// The shape of an expected or actual text: the run id, quoted strings (values, the target's
/// messages), URLs, ids (words of six or more characters with a digit) and numbers taken out.
/// A status (a three-digit number from 100 to 599 in a check of statuses) keeps its class:
/// `401` and `200` are `4xx` and `2xx`, so "refused" and "served" stay two shapes.
pub fn shape(text: &str, run_id: &str, kind: CheckKind) -> String {
    static TOKEN: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r#""(?:[^"\\]|\\.)*"?|https?://[^\s"']+|[A-Za-z0-9_]+"#).expect("regex")
    });
    let mut text = text;
    for note in INPUT_NOTES {
        if let Some(at) = text.find(note) {
            text = &text[..at];
        }
    }
    let owned;
    if !run_id.is_empty() && text.contains(run_id) {
        owned = text.replace(run_id, "RUN");
        text = &owned;
    }
    let statuses = matches!(
        kind,
        CheckKind::Status
            | CheckKind::DeclaredStatus
            | CheckKind::ServerError
            | CheckKind::ErrorStatus
            | CheckKind::Boundary
    );
    let out = TOKEN.replace_all(text, |c: &regex::Captures<'_>| {
        let t = &c[0];
        if t.starts_with('"') {
            "\"…\"".to_string()
        } else if t.starts_with("http") && t.contains("://") {
            "URL".to_string()
        } else if t.bytes().all(|b| b.is_ascii_digit()) {
            match t.parse::<u16>() {
                Ok(n) if statuses && t.len() == 3 && (100..600).contains(&n) => {
                    format!("{}xx", n / 100)
                }
                _ => "N".to_string(),
            }
        } else if t.len() >= 6 && t.bytes().any(|b| b.is_ascii_digit()) {
            "ID".to_string()
        } else {
            t.to_string()
        }
    });
    // The target's message beside a status is a value of the answer.
    let out = out.replace(" (message: \"…\")", "");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shape_takes_out_ids_values_and_the_run() {
        let s = |t: &str, k| shape(t, "r9e8bc4f", k);
        assert_eq!(
            s("\"PNq7R2s9T4u1\" again on page 2", CheckKind::Page),
            s("\"ACc4ll0000000004\" again on page 4", CheckKind::Page)
        );
        assert_eq!(
            s(
                "404 (message: \"Task 'r9e8bc4f' was not found\")",
                CheckKind::Status
            ),
            "4xx"
        );
        assert_eq!(s("200", CheckKind::Status), "2xx");
        assert_ne!(s("200", CheckKind::Status), s("401", CheckKind::Status));
        assert_eq!(
            s(
                "text/plain; charset=utf-8; a boundary input",
                CheckKind::ContentType
            ),
            "text/plain; charset=utf-8"
        );
        assert_eq!(
            s(
                "GET http://127.0.0.1:4000/v1/contacts/6b06ceee0000000000000041 r9e8bc4f-x",
                CheckKind::Value
            ),
            "GET URL RUN-x"
        );
        // Outside a check of statuses a number is a value.
        assert_eq!(
            s("length 2", CheckKind::Value),
            s("length 200", CheckKind::Value)
        );
    }

    #[test]
    fn numbers_of_a_check_name_are_taken_out() {
        assert_eq!(
            numbers_out("control of step 3: status"),
            "control of step N: status"
        );
        assert_eq!(
            numbers_out("delivery #2 json /data"),
            "delivery #N json /data"
        );
    }

    #[test]
    fn a_long_text_is_cut_with_an_ellipsis() {
        assert_eq!(cut("abcdef", 4), "abc…");
        assert_eq!(cut("ab\ncd", 10), "ab cd");
    }
}
