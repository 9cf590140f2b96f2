//! Each defect's reproduction: the shortest run of the run's own requests that shows it, as
//! shell lines (curl, with `jq` to carry a value of an answer into a later request), and how a
//! script tells that the last answer shows the defect again.
//!
//! The run starts from the request of a finding of the defect (for a finding on deliveries, the
//! request the trial sent last before them, and the webhook they came to): its representative's,
//! or another of the same check whose run is shorter. It takes, for each value of its
//! path, query and body that an earlier answer gave (an id a create answered, a page token), the
//! request that gave it, then the changes the trial made to that resource between them (a
//! complete, a delete); and so on for those. A value no answer gave (a fixture of the profile, a
//! literal of the case) is sent as it was. The ids of the run are gone (the cleanup removed what
//! it could): every value an answer gave is read from that answer again, so the run works on
//! the same target later. Nothing secret is written: keys are read from the environment as the
//! printed curls do, a webhook's signing secret is carried from its answer to the receiver in a
//! file of the script's own temporary directory, and every line passes the run's redactor.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;

pub use super::reproduction::{Check, Reproduction};
use super::{Defect, FailureOut, Report, TrialOut};
use crate::cases::Case;
use crate::client::curl::{key_variable, shell_quote};
use crate::client::{Exchange, Redactor};
use crate::results::CaseResult;
use crate::results::severity::CheckKind;
use conformance_contract::Contract;

/// One request of the run, as the reproduction takes it.
struct Sent<'a> {
    ex: &'a Arc<Exchange>,
    trial: &'a str,
}

/// A value an answer gave that a later request sends: the variable it is read into.
struct Bound {
    var: String,
    /// The request that gave it, and where in its answer.
    from: u64,
    path: Vec<Value>,
}

/// Every request of the run the results hold, by number, with the trial that holds it first;
/// and the values their answers gave (a create's id, a page's next token), each with where it is
/// in its answer, read once.
struct Pool<'a> {
    sent: BTreeMap<u64, Sent<'a>>,
    gave: std::collections::HashMap<String, Vec<(u64, Vec<Value>)>>,
}

fn pool<'a>(results: &[&'a (Arc<Case>, CaseResult)], contract: &Contract) -> Pool<'a> {
    let mut sent = BTreeMap::new();
    for (case, result) in results.iter().map(|r| (&r.0, &r.1)) {
        for ex in &result.exchanges {
            if ex.seq > 0 {
                sent.entry(ex.seq).or_insert(Sent {
                    ex,
                    trial: &case.name,
                });
            }
        }
    }
    let mut gave: std::collections::HashMap<String, Vec<(u64, Vec<Value>)>> = Default::default();
    for (seq, s) in &sent {
        if !succeeded(s.ex) {
            continue;
        }
        let create = s.ex.method == "POST"
            && contract
                .route("POST", &s.ex.path)
                .is_some_and(|r| !r.template.contains('{'));
        let page = s.ex.method == "GET"
            && s.ex
                .outcome
                .as_ref()
                .is_ok_and(|r| r.head.contains("Token"));
        if !(create || page) {
            continue;
        }
        let Some(body) = answer(s.ex) else {
            continue;
        };
        strings(&body, &mut Vec::new(), &mut |at, v| {
            let key = at.last().and_then(Value::as_str).unwrap_or_default();
            let gives = if create {
                at.len() <= 2 && (key == "id" || key.ends_with("Id"))
            } else {
                key.ends_with("Token")
            };
            if gives && v.chars().count() >= 4 {
                gave.entry(v.to_string())
                    .or_default()
                    .push((*seq, at.to_vec()));
            }
        });
    }
    Pool { sent, gave }
}

/// The answer's body as JSON, when the head the run kept is all of it.
fn answer(ex: &Exchange) -> Option<Value> {
    let resp = ex.outcome.as_ref().ok()?;
    if resp.head_cut {
        return None;
    }
    serde_json::from_str(&resp.head).ok()
}

fn succeeded(ex: &Exchange) -> bool {
    ex.outcome
        .as_ref()
        .is_ok_and(|r| (200..300).contains(&r.status))
}

/// The values a request sends that an answer may have given: its path's segments, its query's
/// values and its body's strings (four characters or more: an id, a token).
fn sent_values(ex: &Exchange) -> Vec<String> {
    let mut out: Vec<String> = ex.path.split('/').map(str::to_string).collect();
    if let Ok(url) = reqwest::Url::parse(&ex.url) {
        out.extend(url.query_pairs().map(|(_, v)| v.into_owned()));
    }
    if let Some(body) = ex
        .request_body
        .as_deref()
        .and_then(|b| serde_json::from_str::<Value>(b).ok())
    {
        strings(&body, &mut Vec::new(), &mut |_, s| out.push(s.to_string()));
    }
    out.retain(|v| v.chars().count() >= 4);
    out.sort();
    out.dedup();
    out
}

/// Calls `f` with the path and value of every string of `v`, depth first.
fn strings(v: &Value, at: &mut Vec<Value>, f: &mut dyn FnMut(&[Value], &str)) {
    match v {
        Value::String(s) => f(at, s),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                at.push(Value::from(i));
                strings(item, at, f);
                at.pop();
            }
        }
        Value::Object(map) => {
            for (k, item) in map {
                at.push(Value::String(k.clone()));
                strings(item, at, f);
                at.pop();
            }
        }
        _ => {}
    }
}

/// Whether the request sends `value` (in its URL or its body).
fn sends(ex: &Exchange, value: &str) -> bool {
    ex.url.contains(value)
        || ex
            .request_body
            .as_deref()
            .is_some_and(|b| b.contains(value))
}

/// The request before `by` (of `trial`, to `to`) whose answer gave `value`: a create (a POST to
/// a collection, whose answer's id it is; in the trial first, else in another, such as a setup
/// the trials share) or the page before of the same list in the same trial (whose next page's
/// token it is); never one that sent the value itself. A value other answers only echo (a
/// fixture, a field the run set) has none.
fn giver(pool: &Pool<'_>, value: &str, by: (u64, &str, &str)) -> Option<(u64, Vec<Value>)> {
    let (before, trial, to) = by;
    let places = pool.gave.get(value)?;
    let found = |anywhere: bool| {
        places
            .iter()
            .rev()
            .filter(|(seq, _)| *seq < before)
            .find(|(seq, _)| {
                pool.sent.get(seq).is_some_and(|s| {
                    !sends(s.ex, value)
                        && (anywhere && s.ex.method == "POST"
                            || !anywhere
                                && s.trial == trial
                                && (s.ex.method == "POST" || s.ex.path == to))
                })
            })
            .cloned()
    };
    found(false).or_else(|| found(true))
}

/// The variable a value is read into: named after where it is (`TASK_ID`, `PAGE_TOKEN`), and
/// numbered when the name is taken.
fn var_name(path: &[Value], taken: &BTreeSet<String>) -> String {
    let key = path.iter().rev().find_map(Value::as_str).unwrap_or("value");
    let mut name = String::new();
    for (i, c) in key.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            name.push('_');
        }
        if c.is_ascii_alphanumeric() {
            name.push(c.to_ascii_uppercase());
        } else {
            name.push('_');
        }
    }
    if name == "ID" || name.is_empty() {
        name = "ID".into();
    }
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, 'V');
    }
    let mut candidate = name.clone();
    let mut n = 1;
    while taken.contains(&candidate) {
        n += 1;
        candidate = format!("{name}_{n}");
    }
    candidate
}

/// The requests of the reproduction, by number: `last`, the requests whose answers gave what it
/// and they send, and the changes their trials made to those resources in between.
fn chain(pool: &Pool<'_>, last: u64) -> (BTreeSet<u64>, BTreeMap<String, Bound>) {
    let mut taken: BTreeSet<u64> = BTreeSet::from([last]);
    let mut bound: BTreeMap<String, Bound> = BTreeMap::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut queue = vec![last];
    while let Some(seq) = queue.pop() {
        let Some(s) = pool.sent.get(&seq) else {
            continue;
        };
        for value in sent_values(s.ex) {
            if bound.contains_key(&value) {
                continue;
            }
            let Some((from, path)) = giver(pool, &value, (seq, s.trial, &s.ex.path)) else {
                continue;
            };
            let var = var_name(&path, &names);
            names.insert(var.clone());
            bound.insert(value.clone(), Bound { var, from, path });
            if taken.insert(from) {
                queue.push(from);
            }
            // What the trials changed of that resource between its answer and this request.
            let trials = [s.trial, pool.sent.get(&from).map_or("", |g| g.trial)];
            for (x, other) in pool.sent.range(from + 1..seq) {
                let change = other.ex.method != "GET"
                    && succeeded(other.ex)
                    && trials.contains(&other.trial)
                    && sends(other.ex, &value);
                if change && taken.insert(*x) {
                    queue.push(*x);
                }
            }
        }
    }
    (taken, bound)
}

/// The values of the request `own` that come from a variable: each value an earlier answer gave,
/// and the run's webhook receiver (a reproduction's own in its place).
fn variables(
    bound: &BTreeMap<String, Bound>,
    own: u64,
    receiver: Option<&str>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = bound
        .iter()
        .filter(|(_, b)| b.from < own)
        .map(|(v, b)| (v.clone(), b.var.clone()))
        .collect();
    if let Some(r) = receiver {
        out.push((r.to_string(), "RECEIVER".to_string()));
    }
    out
}

/// `text` for a double-quoted shell word, each of `vars` (value, variable) read from its
/// variable.
fn dq(text: &str, vars: &[(String, String)]) -> String {
    // The longest values first, so that one inside another is not cut.
    let mut values: Vec<&(String, String)> = vars.iter().collect();
    values.sort_by_key(|(v, _)| std::cmp::Reverse(v.len()));
    let mut pieces: Vec<(String, bool)> = vec![(text.to_string(), false)];
    for (value, var) in values {
        let mut next = Vec::new();
        for (piece, is_var) in pieces {
            if is_var {
                next.push((piece, true));
                continue;
            }
            let mut rest = piece.as_str();
            while let Some(at) = rest.find(value.as_str()) {
                next.push((rest[..at].to_string(), false));
                next.push((format!("${{{var}}}"), true));
                rest = &rest[at + value.len()..];
            }
            next.push((rest.to_string(), false));
        }
        pieces = next;
    }
    pieces
        .into_iter()
        .map(|(p, is_var)| {
            if is_var {
                p
            } else {
                p.replace('\\', "\\\\")
                    .replace('"', "\\\"")
                    .replace('$', "\\$")
                    .replace('`', "\\`")
            }
        })
        .collect()
}

/// The curl of one request, its URL's base and `vars` as variables; `-i` for the request whose
/// answer shows the defect.
fn curl(ex: &Exchange, base: &str, vars: &[(String, String)], shows: bool) -> String {
    // The request's place under the target (the run's target is its base; a URL elsewhere
    // keeps its path and query).
    let path = ex.url.strip_prefix(base).unwrap_or_else(|| {
        let after = ex.url.split_once("://").map_or(ex.url.as_str(), |(_, a)| a);
        after.find('/').map_or("", |i| &after[i..])
    });
    let mut cmd = format!(
        "curl -sS{} -X {} \"${{BASE}}{}\"",
        if shows { " -i" } else { "" },
        ex.method,
        dq(path, vars)
    );
    for (k, v) in &ex.request_headers {
        let var = k
            .eq_ignore_ascii_case("authorization")
            .then(|| key_variable(v))
            .flatten();
        match var {
            Some(var) => cmd.push_str(&format!(" -H \"{k}: ${{{var}}}\"")),
            None => cmd.push_str(&format!(" -H {}", shell_quote(&format!("{k}: {v}")))),
        }
    }
    if let Some(b) = &ex.request_body {
        let inside = dq(b, vars);
        if inside.contains("${") {
            cmd.push_str(&format!(" --data-raw \"{inside}\""));
        } else {
            cmd.push_str(&format!(" --data-raw {}", shell_quote(b)));
        }
    }
    cmd
}

/// The jq program that reads `path` of an answer.
fn jq_path(path: &[Value]) -> String {
    format!(
        "getpath({})",
        serde_json::to_string(path).unwrap_or_else(|_| "[]".into())
    )
}

/// What of a value read at a finding's place is the same on another run of the same requests:
/// an object's ids and times (`id`, `...Id`, `...At`) are the target's new ones, so they are
/// left out on both sides ([`STEADY_JQ`] in the script).
fn steady(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !(k == "id" || k.ends_with("Id") || k.ends_with("At")))
                .map(|(k, v)| (k, steady(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(steady).collect()),
        other => other,
    }
}

/// [`steady`] in jq.
const STEADY_JQ: &str = r#"walk(if type == "object" then with_entries(select(.key | test("^id$|Id$|At$") | not)) else . end)"#;

/// The reproduction of the finding `f`, or none when its request is not among the results (a
/// finding of no request).
fn of_finding(
    f: &FailureOut,
    pool: &Pool<'_>,
    base: &str,
    receiver: Option<&str>,
) -> Option<Reproduction> {
    let deliveries = matches!(
        CheckKind::of(&f.check),
        CheckKind::Deliveries | CheckKind::Signature
    ) || f.rule.delivery.is_some();
    let last = match (&f.exchange, f.cause) {
        (Some(ex), _) if ex.seq > 0 => ex.seq,
        (None, Some(cause)) if deliveries => cause,
        _ => return None,
    };
    let (mut taken, mut bound) = chain(pool, last);
    let mut secret = None;
    if deliveries {
        // The webhook the deliveries came to: the trial's last create before them that names
        // the run's receiver, with what it needs.
        let receiver = receiver?;
        let trial = pool.sent.get(&last)?.trial;
        // The finding names the trial's path the deliveries were awaited at (`{{webhook_url}}`
        // and a sub-path); the webhook created with that URL is the one.
        let sub = f
            .expected
            .split_once("{{webhook_url}}")
            .map(|(_, rest)| rest.split([' ', ',']).next().unwrap_or_default())
            .unwrap_or_default();
        let url_end = format!("/{trial}{sub}\"");
        let (hook, _) = pool.sent.range(..=last).rev().find(|(_, s)| {
            s.trial == trial
                && s.ex.method == "POST"
                && s.ex
                    .request_body
                    .as_deref()
                    .is_some_and(|b| b.contains(receiver) && b.contains(&url_end))
        })?;
        let (more, also) = chain(pool, *hook);
        taken.extend(more);
        for (v, b) in also {
            bound.entry(v).or_insert(b);
        }
        let created = answer(pool.sent.get(hook)?.ex)?;
        let mut place = None;
        strings(&created, &mut Vec::new(), &mut |at, s| {
            if place.is_none() && s.starts_with("whsec_") {
                place = Some(at.to_vec());
            }
        });
        secret = place.map(|p| (*hook, p));
    }
    let mut lines = Vec::new();
    for (n, seq) in taken.iter().enumerate() {
        let n = n + 1;
        let s = pool.sent.get(seq)?;
        let vars = variables(&bound, *seq, receiver.filter(|_| deliveries));
        let line = curl(s.ex, base, &vars, *seq == last && !deliveries);
        let gives: Vec<&Bound> = bound.values().filter(|b| b.from == *seq).collect();
        let keeps_secret = secret.as_ref().filter(|(h, _)| h == seq);
        if gives.is_empty() && keeps_secret.is_none() {
            lines.push(line);
            continue;
        }
        // The answer is read once; each value it gave goes to its variable (a signing secret to
        // the receiver's file only, never to the output).
        let mut reads = vec![format!("ANSWER_{n}=\"$({line})\"")];
        for b in gives {
            reads.push(format!(
                "{}=\"$(printf '%s' \"$ANSWER_{n}\" | jq -r {})\"",
                b.var,
                shell_quote(&jq_path(&b.path))
            ));
        }
        if let Some((_, path)) = keeps_secret {
            reads.push(format!(
                "printf '%s' \"$ANSWER_{n}\" | jq -r {} > \"$WORK/secret\"",
                shell_quote(&jq_path(path))
            ));
        }
        lines.push(reads.join("; "));
    }
    let (check, shows) = check_of(f, pool.sent.get(&last)?.ex, deliveries);
    Some(Reproduction {
        trial: pool.sent.get(&last)?.trial.to_string(),
        lines,
        shows,
        check,
    })
}

/// How a script tells that the last answer shows the finding `f` again, and the words for it.
fn check_of(f: &FailureOut, last: &Exchange, deliveries: bool) -> (Check, String) {
    if deliveries {
        if CheckKind::of(&f.check) == CheckKind::Signature
            || f.rule.delivery.as_deref() == Some("signature")
        {
            return (
                Check::Signature,
                "a delivery whose signature does not verify with the webhook's secret".into(),
            );
        }
        let count = f
            .actual
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0);
        return (
            Check::Deliveries { count },
            format!(
                "{} at the receiver, as in the run (expected {})",
                super::plural(count, "delivery"),
                f.expected
            ),
        );
    }
    let status = last.outcome.as_ref().map_or(0, |r| r.status);
    let status_check = (
        Check::Status { status },
        format!(
            "the answer's status {status}, as in the run (expected {})",
            f.expected
        ),
    );
    if f.rule.status.is_some() || CheckKind::of(&f.check) == CheckKind::Status {
        return status_check;
    }
    if CheckKind::of(&f.check) == CheckKind::ContentType {
        if let Some(value) = last
            .outcome
            .as_ref()
            .ok()
            .and_then(|r| r.header("content-type"))
        {
            return (
                Check::Header {
                    name: "content-type".into(),
                    value: value.to_string(),
                },
                format!("the answer's Content-Type {value}, as in the run"),
            );
        }
    }
    let at = f.pointer.as_deref().filter(|p| p.starts_with('/'));
    let seen = at.and_then(|p| Some((p, answer(last)?.pointer(p)?.clone())));
    match seen {
        Some((p, value)) => {
            let path = p
                .split('/')
                .skip(1)
                .map(|seg| {
                    let seg = seg.replace("~1", "/").replace("~0", "~");
                    match seg.parse::<u64>() {
                        Ok(i) => Value::from(i),
                        Err(_) => Value::String(seg),
                    }
                })
                .collect();
            let value = serde_json::to_string(&steady(value)).unwrap_or_default();
            // Cut only once redacted (in `attach`): a secret the target echoed goes whole.
            let words = format!(
                "the answer's {p} is {value}, as in the run (expected {})",
                f.expected
            );
            (
                Check::Json {
                    pointer: p.to_string(),
                    path,
                    value,
                },
                words,
            )
        }
        None => status_check,
    }
}

/// Findings of a defect a reproduction is sought from: its representative's check, in other
/// trials too (the one whose run of requests is shortest wins).
const CANDIDATES: usize = 40;

/// Where the run was: its results and trials, its target and its webhook receiver's base URL.
pub(crate) struct Run<'a> {
    pub results: &'a [&'a (Arc<Case>, CaseResult)],
    pub trials: &'a [TrialOut],
    pub contract: &'a Contract,
    pub base: &'a str,
    pub receiver: Option<&'a str>,
}

/// Gives each defect its reproduction: the shortest run of requests that shows it, from its
/// representative finding or another of the same check.
pub(crate) fn attach(defects: &mut [Defect], run: &Run<'_>, redactor: &Redactor) {
    let pool = pool(run.results, run.contract);
    let base = run.base.trim_end_matches('/');
    for d in defects.iter_mut() {
        let Some(example) = d.example.finding.as_ref() else {
            continue;
        };
        let others = run
            .trials
            .iter()
            .flat_map(|t| &t.failures)
            .filter(|f| f.defect.as_deref() == Some(d.id.as_str()) && f.check == example.check)
            .take(CANDIDATES);
        let mut best: Option<Reproduction> = None;
        for f in std::iter::once(example).chain(others) {
            if let Some(r) = of_finding(f, &pool, base, run.receiver) {
                if best.as_ref().is_none_or(|b| r.lines.len() < b.lines.len()) {
                    best = Some(r);
                }
            }
        }
        d.reproduction = best.map(|mut r| {
            r.lines = r.lines.iter().map(|l| redactor.redact(l)).collect();
            r.shows = super::defects::cut(&redactor.redact(&r.shows), 240);
            if let Check::Json { value, .. } | Check::Header { value, .. } = &mut r.check {
                *value = redactor.redact(value);
            }
            r
        });
    }
}

/// The script of a report's reproductions (none when no defect has one): `bash FILE` against
/// the same target shows each defect again, and says so.
pub fn script(report: &Report) -> Option<String> {
    let with: Vec<&Defect> = report
        .defects
        .iter()
        .filter(|d| d.reproduction.is_some())
        .collect();
    if with.is_empty() {
        return None;
    }
    let deliveries = with.iter().any(|d| {
        matches!(
            d.reproduction.as_ref().map(|r| &r.check),
            Some(Check::Signature | Check::Deliveries { .. })
        )
    });
    let mut out = prelude(report, deliveries);
    for d in &with {
        out.push_str(&defect_function(d));
    }
    out.push_str("\nSHOWN=0\n");
    for d in &with {
        out.push_str(&format!("{}\n", d.id.to_ascii_lowercase()));
    }
    out.push_str(&format!(
        "echo \"reproduce: $SHOWN of {} shown\"\n",
        super::plural(with.len(), "defect")
    ));
    out.push_str(&format!("[ \"$SHOWN\" -eq {} ]\n", with.len()));
    Some(out)
}

/// The script's head: what it is, where the target and the keys come from, and the helpers.
fn prelude(report: &Report, deliveries: bool) -> String {
    let mut out = format!(
        "#!/usr/bin/env bash\n\
         # The reproductions of the defects of run {run} against {target}, written by\n\
         # workspace-conformance {version}: for each defect, the shortest run of the run's requests\n\
         # that showed it (values an answer gave are read from that answer again), then whether the\n\
         # last answer shows it again. Needs curl and jq. Destructive: it creates and changes what\n\
         # the run did on the target (nothing the run did not create, but what it creates stays).\n\
         #   WORKSPACE_API_KEY   the target's API key (or WORKSPACE_PROFILE: a profile file holding it)\n\
         #   WORKSPACE_TARGET    the target, if not {target}\n",
        run = report.run_id,
        target = report.target,
        version = report.suite_version
    );
    if let Some(serve) = &report.serve {
        out.push_str(&format!(
            "# Against the embedded reference, start it again first:\n#   {serve} &\n#   export WORKSPACE_PROFILE=reference-profile.json\n"
        ));
    }
    if deliveries {
        out.push_str("#   WORKSPACE_CONFORMANCE  the binary, for the webhook receiver (default: workspace-conformance)\n");
    }
    out.push_str(&format!(
        "set -u\n\
         BASE=\"${{WORKSPACE_TARGET:-{}}}\"\n\
         if [ -n \"${{WORKSPACE_PROFILE:-}}\" ]; then\n\
         \x20 WORKSPACE_API_KEY=\"${{WORKSPACE_API_KEY:-$(jq -r '.apiKey // empty' \"$WORKSPACE_PROFILE\")}}\"\n\
         \x20 for k in $(jq -r '.fixtures // {{}} | keys[] | select(endswith(\"api_key\"))' \"$WORKSPACE_PROFILE\"); do\n\
         \x20   v=\"$(printf '%s' \"$k\" | tr '[:lower:]' '[:upper:]')\"\n\
         \x20   [ -n \"${{!v:-}}\" ] || export \"$v=$(jq -r --arg k \"$k\" '.fixtures[$k]' \"$WORKSPACE_PROFILE\")\"\n\
         \x20 done\n\
         fi\n\
         : \"${{WORKSPACE_API_KEY:?set WORKSPACE_API_KEY (or WORKSPACE_PROFILE) to the key of the target}}\"\n\
         WORK=\"$(mktemp -d)\"\n\
         trap 'kill $(jobs -p) 2>/dev/null; rm -rf \"$WORK\"' EXIT\n\
         # The status, a header and the body of a `curl -i` answer.\n\
         status_of() {{ printf '%s\\n' \"$1\" | tr -d '\\r' | awk '/^HTTP\\// {{ s = $2 }} /^$/ {{ if (s != \"100\") exit }} END {{ print s }}'; }}\n\
         header_of() {{ printf '%s\\n' \"$1\" | tr -d '\\r' | awk -v h=\"$2\" '/^$/ {{ exit }} {{ i = index($0, \":\"); if (i && tolower(substr($0, 1, i - 1)) == h) {{ v = substr($0, i + 1); sub(/^ */, \"\", v); print v; exit }} }}'; }}\n\
         body_of() {{ printf '%s\\n' \"$1\" | tr -d '\\r' | awk 'b {{ print }} /^$/ {{ b = 1 }}'; }}\n\
         # Whether what the last answer shows ($3) is what the run saw ($4).\n\
         judge() {{\n\
         \x20 if [ \"$3\" = \"$4\" ]; then echo \"$1: shown: $2 is $3, as in the run\"; SHOWN=$((SHOWN + 1));\n\
         \x20 else echo \"$1: not shown: $2 is $3 here, the run saw $4\"; fi\n\
         }}\n",
        report.target.trim_end_matches('/')
    ));
    if deliveries {
        out.push_str(
            "# A webhook receiver for one defect's deliveries, on a free loopback port: $RECEIVER.\n\
             receiver() {\n\
             \x20 : > \"$WORK/secret\"\n\
             \x20 \"${WORKSPACE_CONFORMANCE:-workspace-conformance}\" receive --listen 127.0.0.1:0 --seconds \"$1\" --count \"$2\" --secret-file \"$WORK/secret\" > \"$WORK/received\" &\n\
             \x20 RECEIVER_PID=$!\n\
             \x20 RECEIVER=\"\"\n\
             \x20 for _ in $(seq 100); do\n\
             \x20   RECEIVER=\"$(sed -n 's/^receiving webhook deliveries at //p' \"$WORK/received\")\"\n\
             \x20   [ -n \"$RECEIVER\" ] && break\n\
             \x20   sleep 0.1\n\
             \x20 done\n\
             }\n",
        );
    }
    out
}

/// One defect's function: its requests, then whether the last answer shows it.
fn defect_function(d: &Defect) -> String {
    let Some(r) = &d.reproduction else {
        return String::new();
    };
    let mut out = format!(
        "\n{}() {{\n  echo \"== {} {} {}: {}\"\n  echo \"   shown by {} (requests of {})\"\n",
        d.id.to_ascii_lowercase(),
        d.id,
        d.severity,
        d.fingerprint,
        dq(&d.title, &[]),
        dq(&r.shows, &[]),
        dq(&r.trial, &[])
    );
    let (head, last) = r.lines.split_at(r.lines.len().saturating_sub(1));
    let delivered = matches!(r.check, Check::Signature | Check::Deliveries { .. });
    if delivered {
        let (seconds, count) = match r.check {
            Check::Deliveries { count } => (10, count.max(1) + 1),
            _ => (15, 1),
        };
        out.push_str(&format!("  receiver {seconds} {count}\n"));
    }
    for line in head {
        out.push_str(&format!("  {line}\n"));
    }
    let last = last.first().map(String::as_str).unwrap_or_default();
    match &r.check {
        Check::Signature => {
            out.push_str(&format!(
                "  {last} > /dev/null\n  wait \"$RECEIVER_PID\"\n  cat \"$WORK/received\"\n"
            ));
            out.push_str(&format!(
                "  if grep -q 'signature: does not verify' \"$WORK/received\"; then judge {id} 'the signature' 'not verified' 'not verified'; else judge {id} 'the signature' 'verified or no delivery' 'not verified'; fi\n",
                id = d.id
            ));
        }
        Check::Deliveries { count } => {
            out.push_str(&format!(
                "  {last} > /dev/null\n  wait \"$RECEIVER_PID\"\n  cat \"$WORK/received\"\n"
            ));
            out.push_str(&format!(
                "  judge {} 'the deliveries received' \"$(grep -c '^delivery ' \"$WORK/received\")\" '{count}'\n",
                d.id
            ));
        }
        check => {
            out.push_str(&format!(
                "  ANSWER=\"$({last})\"\n  printf '%s\\n' \"$ANSWER\"\n"
            ));
            out.push_str(&match check {
                Check::Status { status } => {
                    format!(
                        "  judge {} 'the status' \"$(status_of \"$ANSWER\")\" '{status}'\n",
                        d.id
                    )
                }
                Check::Header { name, value } => format!(
                    "  judge {} {} \"$(header_of \"$ANSWER\" {})\" {}\n",
                    d.id,
                    shell_quote(&format!("the header {name}")),
                    shell_quote(name),
                    shell_quote(value)
                ),
                Check::Json {
                    pointer,
                    path,
                    value,
                } => format!(
                    "  judge {} {} \"$(body_of \"$ANSWER\" | jq -c {} 2>/dev/null)\" {}\n",
                    d.id,
                    shell_quote(&format!("the value at {pointer}")),
                    shell_quote(&format!("{} | {STEADY_JQ}", jq_path(path))),
                    shell_quote(value)
                ),
                _ => String::new(),
            });
        }
    }
    out.push_str("}\n");
    out
}

/// The reproduction of a defect in the terminal's lines: one request as a curl that runs as
/// printed, several after the `BASE` they read, one that needs a receiver pointing to the script.
pub(crate) fn terminal_lines(d: &Defect, base: &str) -> Vec<String> {
    let Some(r) = &d.reproduction else {
        return Vec::new();
    };
    let base = base.trim_end_matches('/');
    if matches!(r.check, Check::Signature | Check::Deliveries { .. }) {
        return vec![format!(
            "     reproduce: {} of {} and the deliveries received (the reproduction script starts a receiver)",
            super::plural(r.lines.len(), "request"),
            r.trial
        )];
    }
    if let [line] = r.lines.as_slice() {
        let method = line
            .split_once(" -X ")
            .and_then(|(_, rest)| rest.split(' ').next())
            .unwrap_or_default();
        let note = destructive(method)
            .map(|n| format!(" ({n})"))
            .unwrap_or_default();
        return vec![format!(
            "     reproduce{note}: {}",
            line.replace("${BASE}", base)
        )];
    }
    let mut out = vec![format!(
        "     reproduce ({} of {}, the last shows it): BASE={}",
        super::plural(r.lines.len(), "request"),
        r.trial,
        shell_quote(base)
    )];
    out.extend(r.lines.iter().map(|l| format!("       {l}")));
    out
}

/// What a reproduction does to the target when it is not a read: a DELETE removes, a POST, PUT
/// or PATCH creates or changes.
pub fn destructive(method: &str) -> Option<&'static str> {
    match method {
        "DELETE" => Some("destructive: it deletes on the target"),
        "POST" | "PUT" | "PATCH" => Some("destructive: it creates or changes data on the target"),
        _ => None,
    }
}

/// The reproductions of the parts' defects, by fingerprint: a merged certificate's defects take
/// them from the parts (the parts' requests are not in it).
pub(crate) fn by_fingerprint(parts: &[Report]) -> BTreeMap<String, Reproduction> {
    let mut out = BTreeMap::new();
    for p in parts {
        for d in &p.defects {
            if let Some(r) = &d.reproduction {
                out.entry(d.fingerprint.clone())
                    .or_insert_with(|| r.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_an_answer_gave_is_read_from_its_variable_and_the_rest_is_quoted() {
        let mut bound = BTreeMap::new();
        bound.insert(
            "TK123456".to_string(),
            Bound {
                var: "TASK_ID".into(),
                from: 1,
                path: vec![Value::from("data"), Value::from("taskId")],
            },
        );
        assert_eq!(
            dq(
                "/v1/tasks/TK123456/complete?x=$y\"",
                &variables(&bound, 2, None)
            ),
            "/v1/tasks/${TASK_ID}/complete?x=\\$y\\\""
        );
        // The request that gives the value sends it as it is.
        assert_eq!(dq("TK123456", &variables(&bound, 1, None)), "TK123456");
        assert_eq!(
            dq(
                "{\"url\":\"http://r:1/hooks\"}",
                &variables(&bound, 1, Some("http://r:1"))
            ),
            "{\\\"url\\\":\\\"${RECEIVER}/hooks\\\"}"
        );
        let taken = BTreeSet::from(["TASK_ID".to_string()]);
        assert_eq!(
            var_name(&[Value::from("data"), Value::from("taskId")], &taken),
            "TASK_ID_2"
        );
        assert_eq!(
            var_name(&[Value::from("nextPageToken")], &BTreeSet::new()),
            "NEXT_PAGE_TOKEN"
        );
    }
}
