//! Judges a `deliveries` step: waits (bounded, READINGS 7.1) for the deliveries a case expects at
//! its receiver path, then verifies signatures, the retry's `webhook-id`, and the bodies.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Finding;
use crate::cases::matcher;
use crate::cases::template::Vars;
use crate::cases::{Bound, DeliveriesExpect};
use crate::webhooks::verify::verify;
use crate::webhooks::{Delivery, Receiver};

/// How long a case waits, from the profile or the README's defaults.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bounds {
    /// For a first delivery after the request that causes it.
    pub delivery: Duration,
    /// For an automatic retry after a failed answer.
    pub retry: Duration,
    /// How long "no more deliveries" is watched for.
    pub quiet: Duration,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            delivery: Duration::from_secs(30),
            retry: Duration::from_secs(120),
            quiet: Duration::from_secs(3),
        }
    }
}

/// Where a case's deliveries are and how far earlier steps have read them.
pub(crate) struct Slot<'a> {
    pub receiver: &'a Receiver,
    pub run: &'a str,
    pub case: &'a str,
    /// Path -> deliveries already judged by an earlier step.
    pub seen: HashMap<String, usize>,
}

const POLL: Duration = Duration::from_millis(20);

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

fn where_(path: &str) -> String {
    if path.is_empty() {
        "{{webhook_url}}".to_string()
    } else {
        format!("{{{{webhook_url}}}}/{path}")
    }
}

/// Deliveries shown in a failure message at most; the rest are counted.
const SHOWN: usize = 5;

/// The clause every credited delivery is verified against.
const SIGNED: &str = "Authentication > 4";
/// The clause of automatic retries (a retry is the same message: it keeps its `webhook-id`).
const RETRIED: &str = "Events > deliveries";

fn listing(ds: &[Delivery]) -> String {
    listing_with(ds, |_| String::new())
}

/// Numbered one-line descriptions, at most [`SHOWN`], each after the `note` of it.
fn listing_with(ds: &[Delivery], note: impl Fn(&Delivery) -> String) -> String {
    if ds.is_empty() {
        return "none".to_string();
    }
    let mut lines: Vec<String> = ds
        .iter()
        .take(SHOWN)
        .enumerate()
        .map(|(i, d)| format!("#{} {}{}", i + 1, note(d), d.describe()))
        .collect();
    if ds.len() > SHOWN {
        lines.push(format!("... and {} more", ds.len() - SHOWN));
    }
    lines.join("\n             ")
}

/// Runs the step; `vars` give the secrets and take what `save` names. A finding cites its own
/// clause where the check has one (a signature, a retry's id); an empty clause stands for the
/// step's (what the case says the deliveries prove: the event table, a subscription, ...).
///
/// A delivery counts towards `count` or `min` (is credited) only if it verifies with the secret
/// `verify` names: the headers webhook-id, webhook-timestamp and webhook-signature present, the
/// timestamp within the scheme's five minutes, the signature that of the secret (Authentication
/// 4). A step that waits for deliveries therefore needs `verify` (the loader requires it).
pub async fn check(
    slot: &mut Slot<'_>,
    exp: &DeliveriesExpect,
    vars: &mut Vars,
    bounds: &Bounds,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let view = View::new(slot, exp, vars);
    let want = exp.count.or(exp.min).unwrap_or(1);
    let secret = exp.verify.as_deref().and_then(|name| secret_of(vars, name));
    if want > 0 {
        if let Some((expected, actual)) = secret_problem(exp, secret.as_deref()) {
            out.push(Finding::new("", "signature", expected, actual).delivery("signature"));
            slot.seen.insert(exp.path.clone(), view.total(slot));
            return out;
        }
    }
    let secret = secret.as_deref();
    let bound = match exp.bound {
        Bound::Delivery => bounds.delivery,
        Bound::Retry => bounds.delivery + bounds.retry,
    };
    let began = Instant::now();
    let mut got = wait(slot, &view, secret, want, bound).await;
    let good = credited(&got, secret);
    if good < want {
        out.push(shortfall(
            slot, &view, exp, &got, secret, want, bound, began,
        ));
        slot.seen.insert(exp.path.clone(), view.total(slot));
        return out;
    }
    if let Some(count) = exp.count {
        tokio::time::sleep(bounds.quiet).await;
        got = view.fresh(slot);
        // "Exactly N" counts every delivery the step selects, verified or not: a delivery that
        // must not come is wrong whether or not it is signed, and an unsigned or forged one at a
        // trial's own path is itself a failure (Authentication 4). Crediting only verified
        // deliveries here would let a target pass a quiet check (`count: 0`) by sending its
        // unwanted delivery unsigned. A stranger who knows a live trial's path can make the
        // check fail, never pass.
        if got.len() != count {
            out.push(
                Finding::new(
                    "",
                    "deliveries",
                    format!(
                        "exactly {} at {} (watched {} more for others)",
                        crate::results::plural(count, "delivery"),
                        view.at(),
                        secs(bounds.quiet)
                    ),
                    format!("{}: {}{}", got.len(), listing(&got), view.not_kept(slot)),
                )
                .delivery("count"),
            );
        }
    }
    slot.seen.insert(exp.path.clone(), view.total(slot));
    if let (Some(name), Some(secret)) = (&exp.verify, secret) {
        out.extend(unverified(&got, name, secret));
    }
    if let (Some(name), Some(verify)) = (&exp.replaces, &exp.verify) {
        if let (Some(old), Some(new)) = (secret_of(vars, name), secret_of(vars, verify)) {
            if old == new {
                out.push(
                    Finding::new(
                        "",
                        "signature",
                        format!("`{verify}`, the secret issued in place of `{name}`, is a new one"),
                        format!("it is `{name}` itself"),
                    )
                    .delivery("signature"),
                );
            }
        }
    }
    if exp.same_id {
        out.extend(retry_ids(&got));
    }
    out.extend(body_mismatches(&got, exp, vars));
    // Values are saved from the first credited delivery only.
    if let Some(first) = got.iter().find(|d| uncredited(d, secret).is_none()) {
        out.extend(save_values(first, exp, vars));
    }
    out
}

/// What a step looks at: the deliveries at its path after those earlier steps judged, that match
/// its `match` (rendered once).
struct View<'e> {
    exp: &'e DeliveriesExpect,
    /// Deliveries at the path judged by earlier steps.
    start: usize,
    select: Vec<(String, Value)>,
}

impl<'e> View<'e> {
    fn new(slot: &Slot<'_>, exp: &'e DeliveriesExpect, vars: &Vars) -> Self {
        let select = exp
            .select
            .iter()
            .map(|(p, m)| {
                (
                    p.clone(),
                    vars.render_value(m).unwrap_or_else(|_| m.clone()),
                )
            })
            .collect();
        View {
            exp,
            start: slot.seen.get(&exp.path).copied().unwrap_or(0),
            select,
        }
    }

    fn selected(&self, d: &Delivery) -> bool {
        self.select.is_empty() || {
            let body = d.json();
            self.select.iter().all(|(p, m)| {
                matcher::check(m, body.as_ref().and_then(|b| b.pointer(p)), p).is_ok()
            })
        }
    }

    /// Every delivery at the path, judged or not.
    fn total(&self, slot: &Slot<'_>) -> usize {
        slot.receiver
            .deliveries(slot.run, slot.case, &self.exp.path)
            .len()
    }

    /// The deliveries no earlier step judged that the step selects.
    fn fresh(&self, slot: &Slot<'_>) -> Vec<Delivery> {
        slot.receiver
            .deliveries(slot.run, slot.case, &self.exp.path)
            .into_iter()
            .skip(self.start)
            .filter(|d| self.selected(d))
            .collect()
    }

    /// A note on the deliveries the receiver did not keep (bounded per trial); empty if none.
    fn not_kept(&self, slot: &Slot<'_>) -> String {
        let n = slot.receiver.not_kept(slot.run, slot.case, &self.exp.path);
        if n == 0 {
            String::new()
        } else {
            format!(
                "; {n} more deliveries at this path were not kept (the receiver keeps {} bytes of bodies per trial)",
                crate::webhooks::KEPT_BYTES_PER_TRIAL
            )
        }
    }

    /// Where the deliveries are, in words: the receiver path and what they must match.
    fn at(&self) -> String {
        if self.select.is_empty() {
            where_(&self.exp.path)
        } else {
            let what: Vec<String> = self
                .select
                .iter()
                .map(|(p, m)| format!("{p} {}", matcher::describe(m)))
                .collect();
            format!("{} matching {}", where_(&self.exp.path), what.join(", "))
        }
    }
}

fn secret_of(vars: &Vars, name: &str) -> Option<String> {
    vars.get(name).and_then(Value::as_str).map(str::to_string)
}

/// Why no delivery can be credited, as (expected, actual): no `verify` named, or no secret
/// saved under its name.
fn secret_problem(exp: &DeliveriesExpect, secret: Option<&str>) -> Option<(String, String)> {
    match (&exp.verify, secret) {
        (None, _) => Some((
            "a `verify` secret for a step that waits for deliveries".to_string(),
            "none named: no delivery can be credited".to_string(),
        )),
        (Some(name), None) => Some((
            format!("a signing secret saved as `{name}`"),
            "no secret".to_string(),
        )),
        _ => None,
    }
}

/// Why a delivery is not credited: None when it verifies with the step's secret.
fn uncredited(d: &Delivery, secret: Option<&str>) -> Option<String> {
    let secret = secret?;
    verify(d, secret).err().map(|why| why.to_string())
}

fn credited(ds: &[Delivery], secret: Option<&str>) -> usize {
    ds.iter()
        .filter(|d| uncredited(d, secret).is_none())
        .count()
}

/// Waits within `bound` until `want` deliveries are credited. An unverifiable delivery fails the
/// step whatever comes after it (every delivery the step selects must verify), so the wait ends
/// there.
async fn wait(
    slot: &Slot<'_>,
    view: &View<'_>,
    secret: Option<&str>,
    want: usize,
    bound: Duration,
) -> Vec<Delivery> {
    let began = Instant::now();
    let mut got = view.fresh(slot);
    while credited(&got, secret) < want
        && got.iter().all(|d| uncredited(d, secret).is_none())
        && began.elapsed() < bound
    {
        tokio::time::sleep(POLL).await;
        got = view.fresh(slot);
    }
    got
}

/// The finding of a step that got fewer credited deliveries than it waits for.
#[allow(clippy::too_many_arguments)]
fn shortfall(
    slot: &Slot<'_>,
    view: &View<'_>,
    exp: &DeliveriesExpect,
    got: &[Delivery],
    secret: Option<&str>,
    want: usize,
    bound: Duration,
    began: Instant,
) -> Finding {
    let good = credited(got, secret);
    let forged = got.iter().any(|d| uncredited(d, secret).is_some());
    let name = exp.verify.as_deref().unwrap_or_default();
    let mut finding = Finding::new(
        "",
        "deliveries",
        format!(
            "{} at {} within {}, each verified with the secret `{name}`",
            crate::results::plural(want, "delivery"),
            view.at(),
            secs(bound)
        ),
        format!(
            "{good} after waiting {}: {}{}",
            secs(began.elapsed()),
            listing_with(got, |d| match uncredited(d, secret) {
                Some(why) => format!("not credited, {why}: "),
                None => String::new(),
            }),
            view.not_kept(slot)
        ),
    );
    // Deliveries that came but do not verify break Authentication 4; when they alone make
    // up the shortfall, that is the finding's only clause, else the step's too.
    if forged && got.len() >= want {
        finding.clauses = vec![SIGNED.to_string()];
        finding.delivery("signature")
    } else if forged {
        finding.clauses.push(SIGNED.to_string());
        finding.delivery("signature")
    } else {
        finding.delivery("count")
    }
}

/// A finding for every delivery that does not verify with the secret `name`.
fn unverified(got: &[Delivery], name: &str, secret: &str) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, d) in got.iter().enumerate() {
        if let Err(why) = verify(d, secret) {
            out.push(
                Finding::new(
                    SIGNED,
                    "signature",
                    format!(
                        "delivery #{} verifies (Standard Webhooks) with the secret `{name}`",
                        i + 1
                    ),
                    format!("{why}; delivery {}", d.describe()),
                )
                .delivery("signature"),
            );
        }
    }
    out
}

/// A finding for every retry that does not carry the webhook-id of the first delivery.
fn retry_ids(got: &[Delivery]) -> Vec<Finding> {
    let mut out = Vec::new();
    let first = got.first().and_then(|d| d.header("webhook-id"));
    for (i, d) in got.iter().enumerate().skip(1) {
        if d.header("webhook-id") != first || first.is_none() {
            out.push(
                Finding::new(
                    RETRIED,
                    "webhook-id",
                    format!(
                        "delivery #{} (a retry) carries the webhook-id of the first, {}",
                        i + 1,
                        first.unwrap_or("(none)")
                    ),
                    format!(
                        "{}; deliveries: {}",
                        d.header("webhook-id").unwrap_or("(none)"),
                        listing(got)
                    ),
                )
                .delivery("retry id"),
            );
        }
    }
    out
}

/// A finding for every body of a delivery that does not match the step's `json`.
fn body_mismatches(got: &[Delivery], exp: &DeliveriesExpect, vars: &Vars) -> Vec<Finding> {
    let mut out = Vec::new();
    for (i, d) in got.iter().enumerate() {
        let body = d.json();
        for (pointer, m) in &exp.json {
            let m = vars.render_value(m).unwrap_or_else(|_| m.clone());
            let actual = body.as_ref().and_then(|b| b.pointer(pointer));
            if let Err(mm) = matcher::check(&m, actual, pointer) {
                out.push(
                    Finding::new(
                        "",
                        format!("delivery #{} json {pointer}", i + 1),
                        mm.expected,
                        mm.actual,
                    )
                    .at(mm.pointer)
                    .delivery("payload"),
                );
            }
        }
    }
    out
}

/// Saves what the step's `save` names from `first` (a header or a body pointer); a finding for
/// each value that is absent.
fn save_values(first: &Delivery, exp: &DeliveriesExpect, vars: &mut Vars) -> Vec<Finding> {
    let mut out = Vec::new();
    for (name, from) in &exp.save {
        let from = from.as_str().unwrap_or_default();
        let value = match from.strip_prefix("header:") {
            Some(h) => first.header(h).map(|v| Value::String(v.to_string())),
            None => first.json().and_then(|b| b.pointer(from).cloned()),
        };
        match value {
            Some(v) => vars.set(name.clone(), v),
            None => out.push(Finding::new(
                "",
                format!("save {name}"),
                format!("{from} in the first delivery"),
                "absent",
            )),
        }
    }
    out
}

/// The first string starting with `whsec_` anywhere in `value` (READINGS 6.2).
pub(crate) fn find_secret(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if s.starts_with("whsec_") => Some(s.clone()),
        Value::Object(o) => o.values().find_map(find_secret),
        Value::Array(a) => a.iter().find_map(find_secret),
        _ => None,
    }
}
