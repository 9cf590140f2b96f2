//! Defects, not trials: every failed finding of a run grouped into the root cause it shows.
//!
//! A finding's rule is a key of fields the check set on it (`results::Rule`) and its check's
//! kind, never its rendered text: the clause of the rule, the check, and what was expected,
//! normalised where the detail varies with the trial and not with the cause (the envelope or
//! list around a resource: the schema keyword's place in the resource's schema; the matcher of
//! a delivery wait: the property of the deliveries that failed; the value that came back where
//! only the expected one defines the rule). Findings of one key are one defect.
//!
//! A finding that follows from another of its trial is part of that one's defect: what a
//! request that should have been refused did once served, the later steps of a trial whose
//! earlier step already broke the case's rule, a value a step could not save.
//!
//! A defect's fingerprint is a hash of its key: the same across runs, seeds, run ids, orders of
//! completion and merged partitions. Its title and clause order come from the key and the
//! contract alone. Defects come worst first (`results::severity`), then the more specific
//! check, then by fingerprint.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{ExchangeOut, FailureOut, TrialOut};
use crate::results::severity::{CheckKind, Severity};
use conformance_contract::Contract;

/// Trials and operations a defect names in the terminal; the reports name them all.
pub(crate) const NAMED: usize = 3;

/// One defect of the target: the findings of one rule, with those that follow from them.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Defect {
    /// `D1`, `D2`, ... in the order of the list: worst first.
    pub id: String,
    /// 12 hex digits of SHA-256 of the defect's key (clause, check, expected): the defect's
    /// identity, which `compare` and `--rerun --defect` name.
    #[serde(default)]
    pub fingerprint: String,
    /// `access`, `data`, `codes` or `shape`.
    pub severity: String,
    /// 1 (access) to 4 (shape).
    pub severity_rank: u8,
    /// What is wrong in one line: the clause's words, then the check and what was expected.
    pub title: String,
    /// The clause of the rule first, then every other clause its findings cite (not those of
    /// the findings that follow from another), sorted.
    pub clauses: Vec<String>,
    /// The check of the rule (`status`, `schema`, `json /data/source`, `deliveries`).
    pub check: String,
    /// What the rule expects, normalised (`4xx`, `/components/schemas/Contact/...`); empty
    /// where the rule leaves it out (the example's `expected` says it).
    pub expected_shape: String,
    /// What came back where it is part of the rule (a refused request's status), else empty.
    pub actual_shape: String,
    /// Failed findings it groups, those that follow from its rule included.
    pub findings: usize,
    pub trial_count: usize,
    /// Every trial it touched, by name.
    pub trials: Vec<String>,
    pub operation_count: usize,
    /// Every operation it touched (`GET /v1/contacts/{id}`), sorted.
    pub operations: Vec<String>,
    /// One representative finding, with its exchange and reproduction.
    pub example: Example,
    /// The shortest run of requests of the run that shows the defect, as shell lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reproduction: Option<super::reproduction::Reproduction>,
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
    /// The finding's check, place and rule, and the request that caused a finding without an
    /// exchange: what a reproduction needs to tell that its last answer shows the defect.
    #[serde(skip)]
    pub(crate) finding: Option<FailureOut>,
}

/// The rule of a finding: what a defect is grouped on and its fingerprint hashes.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Key {
    pub clause: String,
    pub check: String,
    pub expected: String,
    pub actual: String,
}

impl Key {
    /// 12 hex digits of SHA-256 of the key's fields.
    pub fn fingerprint(&self) -> String {
        let mut hash = hmac_sha256::Hash::new();
        for part in [&self.clause, &self.check, &self.expected, &self.actual] {
            hash.update(part.as_bytes());
            hash.update(b"\n");
        }
        hash.finalize()
            .iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// A check's name without what the trial adds: a control's wrapper, a setup's step.
fn check_name(check: &str) -> &str {
    let name = match check.strip_prefix("control of step ") {
        Some(rest) => rest.split_once(": ").map_or(rest, |(_, c)| c),
        None => check,
    };
    match name.split_once(": ") {
        // `setup `contact` step 2: data envelope`: the setup's step is where, not what.
        Some((head, rest)) if head.starts_with("setup ") => rest,
        _ => name,
    }
}

/// `pointer` with array indices as `*`.
fn starred(pointer: &str) -> String {
    pointer
        .split('/')
        .map(|p| {
            if !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) {
                "*"
            } else {
                p
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// `text` with its numbers (a delivery's rank, a step) as `N`.
fn numbers_out(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_number = false;
    for c in text.chars() {
        if c.is_ascii_digit() {
            if !in_number {
                out.push('N');
            }
            in_number = true;
        } else {
            in_number = false;
            out.push(c);
        }
    }
    out
}

fn kind(f: &FailureOut) -> CheckKind {
    CheckKind::of(check_name(&f.check))
}

/// A generic check's finding: judged on every answer, with its own clause.
fn generic(f: &FailureOut) -> bool {
    matches!(
        kind(f),
        CheckKind::DeclaredStatus
            | CheckKind::ServerError
            | CheckKind::Answer
            | CheckKind::ContentType
            | CheckKind::JsonBody
            | CheckKind::Envelope
            | CheckKind::ListShape
            | CheckKind::ErrorBody
            | CheckKind::ErrorStatus
    ) || f.rule.keyword.is_some()
}

/// A generic finding on the structure of a body (the envelope, a list, a schema keyword, an
/// error body, JSON itself): what a case reads at or under its place follows from it.
fn structural(f: &FailureOut) -> bool {
    matches!(
        kind(f),
        CheckKind::JsonBody | CheckKind::Envelope | CheckKind::ListShape | CheckKind::ErrorBody
    ) || f.rule.keyword.is_some()
}

/// A finding that says only that a later step lacks what an earlier one broke: a value not
/// saved, a template without it, a trial that could not go on.
fn dependent(f: &FailureOut) -> bool {
    matches!(kind(f), CheckKind::Saved | CheckKind::Suite)
}

/// The class of status a status rule expects: a rule that accepts a success expects one.
fn status_class(f: &FailureOut) -> Option<&str> {
    let class = f.rule.status.as_deref()?;
    Some(if class.contains("2xx") { "2xx" } else { class })
}

/// The family of a case's own check: findings of one family that share a clause or (for data)
/// an operation are one defect.
fn family(f: &FailureOut) -> String {
    let k = kind(f);
    if k == CheckKind::Signature || f.rule.delivery.as_deref() == Some("signature") {
        return "signature".into();
    }
    if let Some(class) = status_class(f) {
        return format!("status {class}");
    }
    match k {
        CheckKind::Value
        | CheckKind::Page
        | CheckKind::Deliveries
        | CheckKind::SideEffect
        | CheckKind::Limit
        | CheckKind::RoundTrip => "data".into(),
        _ => numbers_out(check_name(&f.check)),
    }
}

/// The field of a resource a value finding is about: the model's (`model: defaultFields/emails`)
/// or a case's read of it (`json /data/defaultFields/emails`). A value the run set that reads
/// back wrong is one defect whichever trial read it, the one that set it or a later one.
fn field(f: &FailureOut) -> Option<String> {
    let name = check_name(&f.check);
    let field = match name.strip_prefix("model: ") {
        Some(field) => field.to_string(),
        None => name
            .strip_prefix("json /data/")
            .map(|p| starred(p).trim_end_matches("/*").to_string())?,
    };
    // An id names the resource rather than a value set on it.
    (!field.is_empty() && !field.starts_with('*') && field != "id").then_some(field)
}

/// A finding of the model: a read judged against what the run set, in whatever trial sent it.
fn by_model(f: &FailureOut) -> bool {
    check_name(&f.check).starts_with("model: ")
}

/// The trials of the sequences generated from the operation table.
const SEQUENCES: &str = "latest.sequences.";

/// Whether a key leads a defect steadily: the model's findings come in a run where a read met
/// no change in flight, so a case's own key leads where the defect has one.
/// An order broken before the items a walk met twice: pages cut from an order that shifts
/// under the walk repeat items, so the order is the cause (`Greater`: `a` leads).
fn order_first(a: &Key, b: &Key) -> std::cmp::Ordering {
    let twice = |k: &Key| k.check == "no duplicates";
    match (a.check.as_str(), b.check.as_str()) {
        ("order", _) if twice(b) => std::cmp::Ordering::Greater,
        (_, "order") if twice(a) => std::cmp::Ordering::Less,
        _ => std::cmp::Ordering::Equal,
    }
}

fn steady(k: &Key) -> bool {
    !k.check.starts_with("model: ")
}

/// The status of the answer a finding judged.
fn answered(f: &FailureOut) -> Option<u16> {
    f.exchange.as_ref().and_then(|e| e.status)
}

/// The rule of a finding: its key. A schema keyword is the rule whichever envelope, list,
/// generation or case met it; a signature is Authentication 4's; a server error is one defect
/// whatever status a case expected; a request refused with a status is keyed by that status
/// (the refusal is the behaviour, whatever the case expected instead); a refusal that did not
/// come by the rule's clause and the class expected, whatever came instead.
pub(crate) fn key(f: &FailureOut) -> Key {
    let clause = f.clauses.first().cloned().unwrap_or_default();
    let k = kind(f);
    let plain = |clause: &str, check: &str, expected: &str, actual: &str| Key {
        clause: clause.to_string(),
        check: check.to_string(),
        expected: expected.to_string(),
        actual: actual.to_string(),
    };
    if let Some(keyword) = &f.rule.keyword {
        return plain("", "schema", &starred(keyword), "");
    }
    if family(f) == "signature" {
        return plain(SIGNED, "signature", "a delivery that verifies", "");
    }
    if let Some(class) = status_class(f) {
        return match answered(f) {
            Some(a) if a >= 500 => plain(NO_SERVER_ERRORS, "no server error", "", ""),
            Some(a) if (400..500).contains(&a) => plain("", "status", "", &a.to_string()),
            _ => plain(&clause, "status", class, ""),
        };
    }
    match k {
        CheckKind::ServerError => plain(NO_SERVER_ERRORS, "no server error", "", ""),
        CheckKind::ListShape => plain(
            &clause,
            "list shape",
            &starred(f.pointer.as_deref().unwrap_or_default()),
            "",
        ),
        _ => plain(&clause, &numbers_out(check_name(&f.check)), "", ""),
    }
}

const SIGNED: &str = "Authentication > 4";
const NO_SERVER_ERRORS: &str = "Errors > no server errors";

/// The same exchange: the same step, method and URL.
fn same_exchange(a: &FailureOut, b: &FailureOut) -> bool {
    a.step == b.step
        && match (&a.exchange, &b.exchange) {
            (Some(x), Some(y)) => x.method == y.method && x.url == y.url,
            _ => false,
        }
}

/// Whether `place` is at or under `at` in one body (`/data/2/name` is under `/data/2`, not
/// under `/data/20`).
fn under(place: &str, at: &str) -> bool {
    place == at
        || place
            .strip_prefix(at)
            .is_some_and(|rest| at.is_empty() || rest.starts_with('/'))
}

/// Union-find over findings and keys.
struct Union {
    parent: Vec<usize>,
}

impl Union {
    fn add(&mut self) -> usize {
        self.parent.push(self.parent.len());
        self.parent.len() - 1
    }

    fn root(&mut self, mut i: usize) -> usize {
        while self.parent[i] != i {
            self.parent[i] = self.parent[self.parent[i]];
            i = self.parent[i];
        }
        i
    }

    fn join(&mut self, a: usize, b: usize) {
        let (a, b) = (self.root(a), self.root(b));
        if a != b {
            self.parent[a.max(b)] = a.min(b);
        }
    }
}

/// The findings of one defect.
struct Group {
    key: Key,
    lead_clause: String,
    clauses: BTreeSet<String>,
    severity: Severity,
    kind: CheckKind,
    findings: usize,
    trials: BTreeSet<String>,
    operations: BTreeSet<String>,
    /// (trial, failure) of the representative: a finding of the lead key, the first by trial
    /// name and step that has an exchange.
    example: (usize, usize),
    at: Vec<(usize, usize)>,
}

/// Which findings are one defect: the components of the union of (a) findings of one key,
/// (b) a trial's own findings (the case's checks: what a later step found follows from an
/// earlier one), (c) a case's findings of one family sharing a clause, or (for data) an
/// operation, (d) a structural finding with the case's findings at or under its place on the
/// same answer, and its own kind's other findings there. A generic finding on an answer whose
/// status a case refused follows from that status, and a dependent finding from the first
/// finding of its trial at its step or before; neither joins its own key then.
/// Returns, per (trial, failure), its component, and per finding its own key (none for a
/// finding that follows from another).
fn components(trials: &[TrialOut]) -> (Vec<Vec<usize>>, Vec<Vec<Option<Key>>>) {
    let mut u = Union { parent: Vec::new() };
    let mut node: Vec<Vec<usize>> = Vec::new();
    let mut keys: Vec<Vec<Option<Key>>> = Vec::new();
    for t in trials {
        node.push(t.failures.iter().map(|_| u.add()).collect());
        keys.push(vec![None; t.failures.len()]);
    }
    let mut key_node: BTreeMap<Key, usize> = BTreeMap::new();
    let mut shared: BTreeMap<(String, String), usize> = BTreeMap::new();
    // The fields the model found wrong in this run: a case's read of one of them is the same
    // defect. Other fields of the same name (a `status` of another resource) are not joined.
    let model_fields: BTreeSet<String> = trials
        .iter()
        .flat_map(|t| &t.failures)
        .filter(|f| by_model(f))
        .filter_map(field)
        .collect();
    for (ti, t) in trials.iter().enumerate() {
        let fs = &t.failures;
        let own: Vec<usize> = (0..fs.len())
            // The model's findings are not the case's: a read of another trial's resource does
            // not follow from the case's step.
            .filter(|&i| !generic(&fs[i]) && !dependent(&fs[i]) && !by_model(&fs[i]))
            .collect();
        for (i, f) in fs.iter().enumerate() {
            if dependent(f) {
                continue;
            }
            let n = node[ti][i];
            let status_here = own
                .iter()
                .find(|&&j| j != i && fs[j].rule.status.is_some() && same_exchange(&fs[j], f));
            if let (true, Some(&j)) = (generic(f), status_here) {
                u.join(n, node[ti][j]);
                continue;
            }
            let k = key(f);
            let kn = *key_node.entry(k.clone()).or_insert_with(|| u.add());
            u.join(n, kn);
            keys[ti][i] = Some(k);
            if !generic(f) {
                let fam = family(f);
                let mut joins: Vec<(String, String)> = f
                    .clauses
                    .iter()
                    .map(|c| (fam.clone(), format!("clause {c}")))
                    .collect();
                // The model reads every resource through a few operations: its findings join
                // by the field they are about, not by the operation that read them.
                if let (true, Some(op), false) = (fam == "data", &f.operation, by_model(f)) {
                    joins.push((fam.clone(), format!("operation {op}")));
                }
                if let (true, Some(field)) = (fam == "data", field(f)) {
                    if model_fields.contains(&field) {
                        joins.push((fam.clone(), format!("field {field}")));
                    }
                }
                for j in joins {
                    let sn = *shared.entry(j).or_insert_with(|| u.add());
                    u.join(n, sn);
                }
            }
            if structural(f) {
                let at = f.pointer.as_deref().filter(|p| *p != "/").unwrap_or("");
                for &j in &own {
                    let g = &fs[j];
                    let place = g.pointer.as_deref().unwrap_or("");
                    // A list's rule (a filter, the order) judged on a value a schema keyword
                    // refused does not follow from it; under a broken envelope everything does.
                    let follows = at.is_empty() || kind(g) != CheckKind::Page;
                    if same_exchange(g, f) && under(place, at) && g.rule.status.is_none() && follows
                    {
                        u.join(node[ti][j], n);
                    }
                }
                for (j, g) in fs.iter().enumerate() {
                    if j != i && generic(g) && same_exchange(g, f) && kind(g) == kind(f) {
                        u.join(node[ti][j], n);
                    }
                }
            }
        }
        for w in own.windows(2) {
            u.join(node[ti][w[0]], node[ti][w[1]]);
        }
        for (i, f) in fs.iter().enumerate() {
            if !dependent(f) {
                continue;
            }
            let cause = (0..fs.len())
                .filter(|&j| !dependent(&fs[j]) && fs[j].step <= f.step)
                .min_by_key(|&j| (fs[j].step, j));
            match cause {
                Some(j) => u.join(node[ti][i], node[ti][j]),
                None => {
                    let k = key(f);
                    let kn = *key_node.entry(k.clone()).or_insert_with(|| u.add());
                    u.join(node[ti][i], kn);
                    keys[ti][i] = Some(k);
                }
            }
        }
    }
    let roots = node
        .iter()
        .map(|ns| ns.iter().map(|&n| u.root(n)).collect())
        .collect();
    (roots, keys)
}

/// Groups the failed findings of `trials` into defects, worst first, and names each finding's
/// defect on it (`FailureOut::defect`) and each failed trial's on the trial. `contract` gives
/// the clauses' words for the titles.
///
/// A defect's key is the key of its component that a case's own check gave (the model's come
/// only where a read met no change in flight), an order before the items a walk met twice, met
/// in the most cases (the generated sequences apart: among keys no case met, the one met in the
/// most trials), then the least: its
/// fingerprint, title and first clause. Worst first: by severity, a check's before the model's,
/// then by fingerprint, so that every run and merge lists the same defects in the same order.
pub fn group(trials: &mut [TrialOut], contract: &Contract) -> Vec<Defect> {
    let (roots, keys) = components(trials);
    // Per component: its findings, and per key the trials that met it.
    let mut members: BTreeMap<usize, Vec<(usize, usize)>> = BTreeMap::new();
    let mut key_trials: BTreeMap<usize, BTreeMap<Key, BTreeSet<usize>>> = BTreeMap::new();
    for (ti, rs) in roots.iter().enumerate() {
        for (fi, &r) in rs.iter().enumerate() {
            members.entry(r).or_default().push((ti, fi));
            if let Some(k) = &keys[ti][fi] {
                key_trials
                    .entry(r)
                    .or_default()
                    .entry(k.clone())
                    .or_default()
                    .insert(ti);
            }
        }
    }
    let mut list: Vec<Group> = members
        .into_iter()
        .map(|(r, at)| {
            let lead = key_trials
                .get(&r)
                .and_then(|m| {
                    // The key met in the most cases leads: a case is written from its clause,
                    // a generated sequence meets a defect on the way (and the more sequences a
                    // run has, the more it would meet). Met in no case, the most trials.
                    let cases = |ts: &BTreeSet<usize>| {
                        ts.iter()
                            .filter(|t| !trials[**t].name.starts_with(SEQUENCES))
                            .count()
                    };
                    m.iter()
                        .max_by(|a, b| {
                            let (ca, cb) = (cases(a.1), cases(b.1));
                            steady(a.0)
                                .cmp(&steady(b.0))
                                .then(order_first(a.0, b.0))
                                .then(ca.cmp(&cb))
                                .then(if ca == 0 && cb == 0 {
                                    a.1.len().cmp(&b.1.len())
                                } else {
                                    std::cmp::Ordering::Equal
                                })
                                .then(b.0.cmp(a.0))
                        })
                        .map(|(k, _)| k.clone())
                })
                .unwrap_or_else(|| key(&trials[at[0].0].failures[at[0].1]));
            gather(lead, &at, trials, &keys)
        })
        .collect();
    // Worst first, then by fingerprint: the order is the same in every run and merge (how many
    // trials meet a defect may vary where the run's requests meet one another).
    list.sort_by(|a, b| {
        a.severity
            .cmp(&b.severity)
            // What a check saw before what only the model saw (its reads and the payloads
            // it holds to the run's changes), of the same severity.
            .then(steady(&b.key).cmp(&steady(&a.key)))
            .then(a.key.fingerprint().cmp(&b.key.fingerprint()))
    });
    let mut ids: BTreeMap<(usize, usize), String> = BTreeMap::new();
    let mut defects = Vec::with_capacity(list.len());
    for (i, g) in list.iter().enumerate() {
        let id = format!("D{}", i + 1);
        for a in &g.at {
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

/// The group of a component's findings `at`, led by `lead`.
fn gather(
    lead: Key,
    at: &[(usize, usize)],
    trials: &[TrialOut],
    keys: &[Vec<Option<Key>>],
) -> Group {
    // Per clause: how many findings of the lead key cite it in cases, and in all trials.
    let mut cited: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut g = Group {
        kind: CheckKind::Suite,
        lead_clause: lead.clause.clone(),
        key: lead,
        clauses: BTreeSet::new(),
        severity: Severity::Shape,
        findings: 0,
        trials: BTreeSet::new(),
        operations: BTreeSet::new(),
        example: at[0],
        at: at.to_vec(),
    };
    let mut example: Option<(bool, &str, usize, usize, usize)> = None;
    for &(ti, fi) in at {
        let (t, f) = (&trials[ti], &trials[ti].failures[fi]);
        // The clauses of the findings that carry a rule of their own: what follows from a
        // cause (a generic check on an answer that should have been refused) adds none, but
        // for the status rules of that same answer (declared, no server error).
        let status_rule = matches!(kind(f), CheckKind::DeclaredStatus | CheckKind::ServerError);
        if keys[ti][fi].is_some() || status_rule {
            g.clauses.extend(f.clauses.iter().cloned());
        }
        g.severity = g.severity.min(f.rank);
        g.findings += 1;
        g.trials.insert(t.name.clone());
        if let Some(op) = &f.operation {
            g.operations.insert(op.clone());
        }
        if keys[ti][fi].as_ref() == Some(&g.key) {
            let case = !t.name.starts_with(SEQUENCES);
            for c in &f.clauses {
                let n = cited.entry(c.as_str()).or_default();
                n.0 += usize::from(case);
                n.1 += 1;
            }
            // The first finding of the lead key by trial name and step, one with an exchange
            // before one without.
            let candidate = (f.exchange.is_none(), t.name.as_str(), f.step, fi, ti);
            if example.is_none_or(|e| candidate < e) {
                example = Some(candidate);
            }
        }
    }
    if let Some((_, _, _, fi, ti)) = example {
        g.example = (ti, fi);
    }
    g.kind = kind(&trials[g.example.0].failures[g.example.1]);
    if g.lead_clause.is_empty() {
        // A key without a clause (a schema keyword, a refusal's status) is led by the clause
        // its findings cite most: in cases, which are written from their clause, then in all
        // trials (a generated sequence meets a defect on the way, under its operation's clause).
        g.lead_clause = cited
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(c, _)| c.to_string())
            .unwrap_or_default();
    }
    g
}

fn defect(id: &str, g: &Group, trials: &[TrialOut], contract: &Contract) -> Defect {
    let (ti, fi) = g.example;
    let t = &trials[ti];
    let f = &t.failures[fi];
    let lead = g.lead_clause.clone();
    let mut clauses = vec![lead.clone()];
    clauses.extend(g.clauses.iter().filter(|c| **c != lead).cloned());
    clauses.retain(|c| !c.is_empty());
    let text = contract
        .clauses
        .iter()
        .find(|k| k.id == lead)
        .map_or_else(|| lead.clone(), |c| c.text.clone());
    let expected = g.key.expected.clone();
    let actual = g.key.actual.clone();
    Defect {
        id: id.to_string(),
        fingerprint: g.key.fingerprint(),
        severity: g.severity.word().to_string(),
        severity_rank: g.severity.rank(),
        title: title(&text, &g.key),
        clauses,
        check: g.key.check.clone(),
        expected_shape: expected,
        actual_shape: actual,
        findings: g.findings,
        trial_count: g.trials.len(),
        trials: g.trials.iter().cloned().collect(),
        operation_count: g.operations.len(),
        operations: g.operations.iter().cloned().collect(),
        reproduction: None,
        example: Example {
            trial: t.name.clone(),
            step: f.step,
            expected: f.expected.clone(),
            actual: f.actual.clone(),
            exchange: f.exchange.clone(),
            finding: Some(f.clone()),
        },
    }
}

/// The title: the clause's words, then the check and what it expected, from the key alone.
fn title(text: &str, key: &Key) -> String {
    let mut out = format!("{} — {}", text.trim_end_matches('.'), key.check);
    if !key.expected.is_empty() {
        out.push_str(&format!(": expected {}", cut(&key.expected, 80)));
    }
    if !key.actual.is_empty() {
        let sep = if key.expected.is_empty() { ": " } else { ", " };
        out.push_str(&format!("{sep}got {}", cut(&key.actual, 80)));
    }
    out
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

#[cfg(test)]
mod tests {
    use super::super::{ExchangeOut, FailureOut, TrialOut};
    use super::*;
    use crate::results::Rule;

    fn exchange(method: &str, url: &str, status: u16) -> ExchangeOut {
        ExchangeOut {
            method: method.into(),
            url: url.into(),
            request_headers: Vec::new(),
            request_body: None,
            status: Some(status),
            content_type: Some("application/json".into()),
            response_body: None,
            error: None,
            elapsed_seconds: 0.0,
            reproduce: format!("curl -X {method} '{url}'"),
            seq: 0,
        }
    }

    fn failure(check: &str, clauses: &[&str], rule: Rule, ex: ExchangeOut) -> FailureOut {
        FailureOut {
            check: check.into(),
            clauses: clauses.iter().map(|c| c.to_string()).collect(),
            severity: "codes".into(),
            rank: Severity::Codes,
            expected: "x".into(),
            actual: "y".into(),
            pointer: None,
            context: None,
            rule,
            step: 1,
            operation: Some(format!("{} /v1/contacts", ex.method)),
            defect: None,
            exchange: Some(ex),
            cause: None,
        }
    }

    fn trial(name: &str, failures: Vec<FailureOut>) -> TrialOut {
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

    fn refusal() -> Rule {
        Rule {
            status: Some("4xx".into()),
            ..Rule::default()
        }
    }

    fn keyword(at: &str) -> Rule {
        Rule {
            keyword: Some(at.into()),
            ..Rule::default()
        }
    }

    #[test]
    fn an_access_bypass_is_one_defect_whatever_the_unrefused_request_did() {
        let contract = Contract::embedded().expect("contract");
        let a = "Authentication > 1";
        let b = "Authentication > 3";
        let mut trials = vec![
            trial(
                "x.no-key",
                vec![failure(
                    "status",
                    &[a, b],
                    refusal(),
                    exchange("DELETE", "http://t/a", 204),
                )],
            ),
            // The unrefused request met a conflict: what it did, not a second defect.
            trial(
                "y.no-key",
                vec![failure(
                    "status",
                    &[b, a],
                    refusal(),
                    exchange("POST", "http://t/b", 200),
                )],
            ),
            trial(
                "z.wrong-key",
                vec![failure(
                    "status",
                    &[b],
                    refusal(),
                    exchange("GET", "http://t/c", 200),
                )],
            ),
        ];
        let defects = group(&mut trials, &contract);
        assert_eq!(defects.len(), 1, "{defects:#?}");
        assert_eq!(defects[0].trial_count, 3);
        assert_eq!(defects[0].fingerprint.len(), 12);
    }

    #[test]
    fn a_schema_keyword_is_one_defect_whichever_envelope_held_the_value() {
        let contract = Contract::embedded().expect("contract");
        let at = "/components/schemas/CallBase/properties/id/pattern";
        let mut trials = vec![
            trial(
                "a",
                vec![failure(
                    "schema CallEnvelope",
                    &["Resources > Call"],
                    keyword(at),
                    exchange("GET", "http://t/calls/1", 200),
                )],
            ),
            trial(
                "b",
                vec![failure(
                    "schema LatestCallList",
                    &["Header-versioned API > GET /calls"],
                    keyword(at),
                    exchange("GET", "http://t/calls", 200),
                )],
            ),
        ];
        let defects = group(&mut trials, &contract);
        assert_eq!(defects.len(), 1, "{defects:#?}");
        assert_eq!(defects[0].check, "schema");
    }

    #[test]
    fn a_value_not_saved_and_what_a_served_refusal_did_follow_from_their_cause() {
        let contract = Contract::embedded().expect("contract");
        let ex = exchange("POST", "http://t/v1/contacts", 201);
        let mut save = failure(
            "save contact",
            &["Resources > Contact"],
            Rule::default(),
            ex.clone(),
        );
        save.step = 2;
        let mut trials = vec![trial(
            "a",
            vec![
                failure(
                    "status",
                    &["Resources > Contact > source"],
                    refusal(),
                    ex.clone(),
                ),
                // The generic check on the answer that should not have been served.
                failure(
                    "schema ContactEnvelope",
                    &["Resources > Contact"],
                    keyword("/components/schemas/Contact/properties/source/maxLength"),
                    ex,
                ),
                save,
            ],
        )];
        let defects = group(&mut trials, &contract);
        assert_eq!(defects.len(), 1, "{defects:#?}");
        assert_eq!(defects[0].findings, 3);
        assert_eq!(defects[0].clauses[0], "Resources > Contact > source");
    }

    #[test]
    fn the_identity_does_not_depend_on_the_order_of_the_trials() {
        let contract = Contract::embedded().expect("contract");
        let make = || {
            vec![
                trial(
                    "a",
                    vec![failure(
                        "status",
                        &["Errors > Rules > 4"],
                        refusal(),
                        exchange("POST", "http://t/1", 201),
                    )],
                ),
                trial(
                    "b",
                    vec![failure(
                        "content type",
                        &["Endpoints > JSON bodies"],
                        Rule::default(),
                        exchange("GET", "http://t/2", 200),
                    )],
                ),
            ]
        };
        let mut one = make();
        let mut two = make();
        two.reverse();
        let (x, y) = (group(&mut one, &contract), group(&mut two, &contract));
        let id = |d: &[Defect]| -> Vec<(String, String, Vec<String>)> {
            d.iter()
                .map(|d| (d.fingerprint.clone(), d.title.clone(), d.clauses.clone()))
                .collect()
        };
        assert_eq!(id(&x), id(&y));
        assert_eq!(x.len(), 2);
    }
}
