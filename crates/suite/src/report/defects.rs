//! Defects, not trials: every failed finding of a run grouped with the others that share its
//! clauses, its check and the shape of its difference, whatever trials and operations they come
//! from. The shape is the expected and the actual text with the run's ids, paths and values taken
//! out, so one wrong behaviour met by forty trials is one defect, and two wrong behaviours met by
//! one trial are two. Defects come worst first (`results::severity`), then the most widespread.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use serde::{Deserialize, Serialize};

use super::{ExchangeOut, TrialOut};
use crate::results::severity::{CheckKind, Severity};
use conformance_contract::Contract;

/// Trials and operations a defect names in the terminal; the reports name them all.
pub(crate) const NAMED: usize = 3;

/// One defect of the target: the findings of one clause, check and shape of difference.
#[derive(Debug, Clone, Serialize, Deserialize)]
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
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Example {
    pub trial: String,
    pub step: usize,
    pub expected: String,
    pub actual: String,
    pub exchange: Option<ExchangeOut>,
}

/// What two findings of one defect share besides a clause: the check and the shapes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Difference {
    check: String,
    expected: String,
    actual: String,
}

/// The findings of one defect.
struct Group {
    difference: Difference,
    kind: CheckKind,
    /// Each clause its findings cite, with how many cite it.
    clauses: BTreeMap<String, usize>,
    severity: Severity,
    findings: usize,
    trials: BTreeSet<String>,
    operations: BTreeSet<String>,
    /// (trial, failure index) of the representative.
    example: (usize, usize),
}

impl Group {
    /// The clauses, the most cited first.
    fn clauses(&self) -> Vec<String> {
        let mut out: Vec<(&String, &usize)> = self.clauses.iter().collect();
        out.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        out.into_iter().map(|(c, _)| c.clone()).collect()
    }
}

/// The difference of a finding. A control's check is the check it wraps, and what its
/// expected text adds (why a control must be accepted) is the same for every control: the
/// refusal of the control is the same defect as the refusal of the request itself.
fn difference(check: &str, expected: &str, actual: &str, run_id: &str) -> Difference {
    let kind = CheckKind::of(check);
    let (check, expected) = match check.strip_prefix("control of step ") {
        Some(rest) => (
            rest.split_once(": ").map_or(rest, |(_, c)| c),
            expected
                .split(": the request of step ")
                .next()
                .unwrap_or(expected),
        ),
        None => (check, expected),
    };
    Difference {
        check: numbers_out(check),
        expected: shape(expected, run_id, kind),
        actual: shape(actual, run_id, kind),
    }
}

/// Finds the root of `i`, halving the path.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The findings of `trials` (trial, failure index) as defects: one per difference, split where
/// findings share no clause (directly or through others).
fn components(trials: &[TrialOut], run_id: &str) -> Vec<(Difference, Vec<(usize, usize)>)> {
    let mut by_difference: BTreeMap<Difference, Vec<(usize, usize)>> = BTreeMap::new();
    for (ti, t) in trials.iter().enumerate() {
        for (fi, f) in t.failures.iter().enumerate() {
            let d = difference(&f.check, &f.expected, &f.actual, run_id);
            by_difference.entry(d).or_default().push((ti, fi));
        }
    }
    let mut out = Vec::new();
    for (d, findings) in by_difference {
        let mut parent: Vec<usize> = (0..findings.len()).collect();
        let mut first_citing: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, (ti, fi)) in findings.iter().enumerate() {
            for c in &trials[*ti].failures[*fi].clauses {
                match first_citing.get(c.as_str()) {
                    Some(&j) => {
                        let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                        parent[a] = b;
                    }
                    None => {
                        first_citing.insert(c, i);
                    }
                }
            }
        }
        let mut parts: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
        for (i, at) in findings.iter().enumerate() {
            let r = root(&mut parent, i);
            parts.entry(r).or_default().push(*at);
        }
        out.extend(parts.into_values().map(|p| (d.clone(), p)));
    }
    out
}

/// The group of one component's findings.
fn gather(difference: Difference, at: &[(usize, usize)], trials: &[TrialOut]) -> Group {
    let (ti, fi) = at[0];
    let mut g = Group {
        kind: CheckKind::of(&difference.check),
        difference,
        clauses: BTreeMap::new(),
        severity: trials[ti].failures[fi].rank,
        findings: 0,
        trials: BTreeSet::new(),
        operations: BTreeSet::new(),
        example: (ti, fi),
    };
    for &(ti, fi) in at {
        let (t, f) = (&trials[ti], &trials[ti].failures[fi]);
        for c in &f.clauses {
            *g.clauses.entry(c.clone()).or_default() += 1;
        }
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
    }
    g
}

/// Groups the failed findings of `trials` into defects, worst first, and names each finding's
/// defect on it (`FailureOut::defect`) and each failed trial's on the trial. Findings are one
/// defect when they share the check and the shape of the difference and a clause (directly, or
/// through other findings of the same difference).
///
/// Worst first: by severity; within one, the most trials first; then the more specific check (a
/// case's own status before the generic declared-status check every wrong status trips); then
/// the fewer clauses (a defect one rule names before one a case citing several names).
pub fn group(trials: &mut [TrialOut], contract: &Contract, run_id: &str) -> Vec<Defect> {
    let parts = components(trials, run_id);
    let mut groups: Vec<(Group, Vec<(usize, usize)>)> = parts
        .into_iter()
        .map(|(d, at)| (gather(d, &at, trials), at))
        .collect();
    groups.sort_by(|(a, _), (b, _)| {
        a.severity
            .cmp(&b.severity)
            .then(b.trials.len().cmp(&a.trials.len()))
            .then(a.kind.order().cmp(&b.kind.order()))
            .then(a.clauses.len().cmp(&b.clauses.len()))
            .then(b.findings.cmp(&a.findings))
            .then(a.difference.cmp(&b.difference))
            .then(a.clauses().cmp(&b.clauses()))
    });
    let mut ids: BTreeMap<(usize, usize), String> = BTreeMap::new();
    let mut defects = Vec::with_capacity(groups.len());
    for (i, (g, at)) in groups.iter().enumerate() {
        let id = format!("D{}", i + 1);
        for a in at {
            ids.insert(*a, id.clone());
        }
        defects.push(defect(&id, g, trials, contract));
    }
    for (ti, t) in trials.iter_mut().enumerate() {
        let mut named: Vec<String> = Vec::new();
        for (fi, f) in t.failures.iter_mut().enumerate() {
            let id = ids.get(&(ti, fi)).cloned();
            if let Some(id) = &id {
                if !named.contains(id) {
                    named.push(id.clone());
                }
            }
            f.defect = id;
        }
        t.defects = named;
    }
    defects
}

fn defect(id: &str, g: &Group, trials: &[TrialOut], contract: &Contract) -> Defect {
    let (ti, fi) = g.example;
    let t = &trials[ti];
    let f = &t.failures[fi];
    let clauses = g.clauses();
    let text = clauses
        .first()
        .and_then(|c| contract.clauses.iter().find(|k| &k.id == c))
        .map_or_else(|| clauses.join("; "), |c| c.text.clone());
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
        clauses,
        check: g.difference.check.clone(),
        expected_shape: g.difference.expected.clone(),
        actual_shape: g.difference.actual.clone(),
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
/// messages), URLs, ids (words of six or more characters with a digit), numbers and booleans
/// taken out.
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
    // A body cut to fit a line ends wherever its values made it end: its shape is the kind of
    // body, or one wrong answer would make as many defects as the lengths of its bodies.
    let trimmed = text.trim();
    if trimmed.ends_with('…') || (trimmed.contains('…') && trimmed.ends_with(" bytes in all)"))
    {
        if trimmed.starts_with('{') {
            return "{…}".to_string();
        }
        if trimmed.starts_with('[') {
            return "[…]".to_string();
        }
    }
    let owned;
    if !run_id.is_empty() && text.contains(run_id) {
        owned = text.replace(run_id, "RUN");
        text = &owned;
    }
    // A time and a signature are values of the moment: a record of the shapes made at 13:59
    // must read the same at 14:00, and an HMAC's base64 has runs of letters without a digit.
    static MOMENT: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]+)?)?(?:Z|[+-][0-9]{2}:?[0-9]{2})?|\bv1,[A-Za-z0-9+/=]+",
        )
        .expect("regex")
    });
    let moments;
    if MOMENT.is_match(text) {
        moments = MOMENT
            .replace_all(text, |c: &regex::Captures<'_>| {
                if c[0].starts_with("v1,") {
                    "v1,SIGNATURE"
                } else {
                    "TIME"
                }
            })
            .into_owned();
        text = &moments;
    }
    // A JSON body cut short inside a longer text (`{"id":…,"text":"Can yo… on page 1`).
    static CUT_BODY: LazyLock<regex::Regex> =
        LazyLock::new(|| regex::Regex::new(r#"[{\[][{\["][^…]*…"#).expect("regex"));
    let bodies;
    if text.contains('…') && CUT_BODY.is_match(text) {
        bodies = CUT_BODY.replace_all(text, "{…}").into_owned();
        text = &bodies;
    }
    // What a received delivery was (its time, answer, headers and body: src/webhooks/receiver.rs)
    // is a value of the run; what the check says of it comes before.
    if let Some(at) = text.find("[TIME] answered ") {
        text = &text[..at];
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
        } else if t == "true" || t == "false" {
            "BOOL".to_string()
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
        // A property's note on its input is not part of the difference.
        assert_eq!(
            s(
                "text/plain; charset=utf-8; a boundary input",
                CheckKind::ContentType
            ),
            s("text/plain; charset=utf-8", CheckKind::ContentType)
        );
        assert_eq!(
            s(
                "GET http://127.0.0.1:4000/v1/contacts/6b06ceee0000000000000041 r9e8bc4f-x",
                CheckKind::Value
            ),
            "GET URL RUN-x"
        );
        // A delivery's time and signature are values of the moment.
        assert_eq!(
            s(
                "#1 [2026-11-25T13:59:58.120Z] answered 200; webhook-signature: v1,ePvw+DNTo/Ab=; b",
                CheckKind::Deliveries
            ),
            s(
                "#1 [2026-11-25T14:00:01.5Z] answered 200; webhook-signature: v1,QkZx9+Kp=; b",
                CheckKind::Deliveries
            )
        );
        assert_eq!(s("2026-11-25T14:00:01Z", CheckKind::Value), "TIME");
        assert_eq!(
            s(
                "{\"id\":\"AC0\",\"text\":\"Can yo… on page 1",
                CheckKind::Page
            ),
            s(
                "{\"id\":\"AC0\",\"text\":\"Can you send\",\"a\":[1,… on page 2",
                CheckKind::Page
            )
        );
        assert_eq!(
            s(
                "1 after waiting 3.0 s: #1 not credited, the header is missing: [2026-11-25T14:00:01Z] answered 200; no webhook-* headers; body {\"id\":\"x",
                CheckKind::Deliveries
            ),
            "N after waiting N.N s: #N not credited, the header is missing:"
        );
        // A body cut at one length or another is one shape.
        assert_eq!(
            s("{\"id\":\"ab\",\"name\":\"x…", CheckKind::Envelope),
            s("{\"id\":\"abcdef12\",\"na…", CheckKind::Envelope)
        );
        // Outside a check of statuses a number is a value.
        assert_eq!(
            s("length 2", CheckKind::Value),
            s("length 200", CheckKind::Value)
        );
    }

    fn failure(
        check: &str,
        clauses: &[&str],
        expected: &str,
        actual: &str,
    ) -> super::super::FailureOut {
        super::super::FailureOut {
            check: check.into(),
            clauses: clauses.iter().map(|c| c.to_string()).collect(),
            severity: "codes".into(),
            rank: Severity::Codes,
            expected: expected.into(),
            actual: actual.into(),
            pointer: None,
            context: None,
            step: 1,
            operation: Some("GET /v1/contacts".into()),
            defect: None,
            exchange: None,
        }
    }

    fn trial(name: &str, failures: Vec<super::super::FailureOut>) -> TrialOut {
        TrialOut {
            name: name.into(),
            api: "v1".into(),
            area: "contacts".into(),
            verdict: "failed".into(),
            reason: None,
            clauses: Vec::new(),
            summary: None,
            source: String::new(),
            duration_seconds: 0.0,
            explanation: None,
            failures,
            defects: Vec::new(),
        }
    }

    #[test]
    fn findings_of_one_difference_sharing_a_clause_are_one_defect() {
        let contract = Contract::embedded().expect("contract");
        let ctl = "control of step 2: status";
        let ctl_expected =
            "2xx: the request of step 2 without the defect under test (x) is accepted, so ...";
        let mut trials = vec![
            trial("a", vec![failure("status", &["A", "B"], "401", "200")]),
            trial("b", vec![failure("status", &["B", "C"], "401", "201")]),
            // Shares no clause with the others: another defect.
            trial("c", vec![failure("status", &["D"], "401", "200")]),
            // A control's refusal is the refusal of its request.
            trial("d", vec![failure(ctl, &["E"], ctl_expected, "400")]),
            trial("e", vec![failure("status", &["E"], "2xx", "404")]),
        ];
        let defects = group(&mut trials, &contract, "r0000000");
        assert_eq!(defects.len(), 3, "{defects:#?}");
        let ab = defects
            .iter()
            .find(|d| d.trials.contains(&"a".to_string()))
            .expect("a's defect");
        assert_eq!(ab.trials, ["a", "b"]);
        // The most cited clause first.
        assert_eq!(ab.clauses, ["B", "A", "C"]);
        // Of two defects of two trials, the one a single rule names comes first.
        assert_eq!(defects[0].trials, ["d", "e"]);
        assert_eq!(trials[0].failures[0].defect, trials[1].failures[0].defect);
        assert_ne!(trials[0].failures[0].defect, trials[2].failures[0].defect);
        assert_eq!(trials[3].failures[0].defect, trials[4].failures[0].defect);
        assert_eq!(
            trials[3].defects,
            [trials[3].failures[0].defect.clone().unwrap()]
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
