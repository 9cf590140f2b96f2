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
pub struct Bounds {
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
pub struct Slot<'a> {
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
    let start = slot.seen.get(&exp.path).copied().unwrap_or(0);
    let select: Vec<(String, Value)> = exp
        .select
        .iter()
        .map(|(p, m)| {
            (
                p.clone(),
                vars.render_value(m).unwrap_or_else(|_| m.clone()),
            )
        })
        .collect();
    let selected = |d: &Delivery| {
        select.is_empty() || {
            let body = d.json();
            select.iter().all(|(p, m)| {
                matcher::check(m, body.as_ref().and_then(|b| b.pointer(p)), p).is_ok()
            })
        }
    };
    let total = |slot: &Slot<'_>| {
        slot.receiver
            .deliveries(slot.run, slot.case, &exp.path)
            .len()
    };
    let fresh = |slot: &Slot<'_>| -> Vec<Delivery> {
        slot.receiver
            .deliveries(slot.run, slot.case, &exp.path)
            .into_iter()
            .skip(start)
            .filter(|d| selected(d))
            .collect()
    };
    let not_kept = |slot: &Slot<'_>| {
        let n = slot.receiver.not_kept(slot.run, slot.case, &exp.path);
        if n == 0 {
            String::new()
        } else {
            format!(
                "; {n} more deliveries at this path were not kept (the receiver keeps {} bytes of bodies per trial)",
                crate::webhooks::KEPT_BYTES_PER_TRIAL
            )
        }
    };
    let secret_of = |name: &str| vars.get(name).and_then(Value::as_str).map(str::to_string);
    let want = exp.count.or(exp.min).unwrap_or(1);
    let secret = exp.verify.as_deref().and_then(secret_of);
    if want > 0 {
        let problem = match (&exp.verify, &secret) {
            (None, _) => Some((
                "a `verify` secret for a step that waits for deliveries".to_string(),
                "none named: no delivery can be credited".to_string(),
            )),
            (Some(name), None) => Some((
                format!("a signing secret saved as `{name}`"),
                "no secret".to_string(),
            )),
            _ => None,
        };
        if let Some((expected, actual)) = problem {
            out.push(Finding::new("", "signature", expected, actual));
            slot.seen.insert(exp.path.clone(), total(slot));
            return out;
        }
    }
    // Why a delivery is not credited: None when it verifies with the step's secret.
    let uncredited = |d: &Delivery| -> Option<String> {
        let secret = secret.as_deref()?;
        verify(d, secret).err().map(|why| why.to_string())
    };
    let bound = match exp.bound {
        Bound::Delivery => bounds.delivery,
        Bound::Retry => bounds.delivery + bounds.retry,
    };
    let credited = |ds: &[Delivery]| ds.iter().filter(|d| uncredited(d).is_none()).count();
    let began = Instant::now();
    let mut got = fresh(slot);
    // An unverifiable delivery fails the step whatever comes after it (every delivery the step
    // selects must verify, below), so the wait ends there.
    while credited(&got) < want
        && got.iter().all(|d| uncredited(d).is_none())
        && began.elapsed() < bound
    {
        tokio::time::sleep(POLL).await;
        got = fresh(slot);
    }
    let at = if select.is_empty() {
        where_(&exp.path)
    } else {
        let what: Vec<String> = select
            .iter()
            .map(|(p, m)| format!("{p} {}", matcher::describe(m)))
            .collect();
        format!("{} matching {}", where_(&exp.path), what.join(", "))
    };
    let good = credited(&got);
    if good < want {
        let forged = got.iter().any(|d| uncredited(d).is_some());
        let name = exp.verify.as_deref().unwrap_or_default();
        let mut finding = Finding::new(
            "",
            "deliveries",
            format!(
                "{want} deliveries at {at} within {}, each verified with the secret `{name}`",
                secs(bound)
            ),
            format!(
                "{good} after waiting {}: {}{}",
                secs(began.elapsed()),
                listing_with(&got, |d| match uncredited(d) {
                    Some(why) => format!("not credited, {why}: "),
                    None => String::new(),
                }),
                not_kept(slot)
            ),
        );
        // Deliveries that came but do not verify break Authentication 4; when they alone make
        // up the shortfall, that is the finding's only clause, else the step's too.
        if forged && got.len() >= want {
            finding.clauses = vec![SIGNED.to_string()];
        } else if forged {
            finding.clauses.push(SIGNED.to_string());
        }
        out.push(finding);
        slot.seen.insert(exp.path.clone(), total(slot));
        return out;
    }
    if let Some(count) = exp.count {
        tokio::time::sleep(bounds.quiet).await;
        got = fresh(slot);
        // "Exactly N" counts every delivery the step selects, verified or not: a delivery that
        // must not come is wrong whether or not it is signed, and an unsigned or forged one at a
        // trial's own path is itself a failure (Authentication 4). Crediting only verified
        // deliveries here would let a target pass a quiet check (`count: 0`) by sending its
        // unwanted delivery unsigned. A stranger who knows a live trial's path can make the
        // check fail, never pass.
        if got.len() != count {
            out.push(Finding::new(
                "",
                "deliveries",
                format!(
                    "exactly {count} deliveries at {at} (watched {} more for others)",
                    secs(bounds.quiet)
                ),
                format!("{}: {}{}", got.len(), listing(&got), not_kept(slot)),
            ));
        }
    }
    slot.seen.insert(exp.path.clone(), total(slot));
    if let (Some(name), Some(secret)) = (&exp.verify, &secret) {
        for (i, d) in got.iter().enumerate() {
            if let Err(why) = verify(d, secret) {
                out.push(Finding::new(
                    SIGNED,
                    "signature",
                    format!(
                        "delivery #{} verifies (Standard Webhooks) with the secret `{name}`",
                        i + 1
                    ),
                    format!("{why}; delivery {}", d.describe()),
                ));
            }
        }
    }
    if let Some(name) = &exp.reject {
        if let Some(secret) = secret_of(name) {
            for (i, d) in got.iter().enumerate() {
                if verify(d, &secret).is_ok() {
                    out.push(Finding::new(
                        "",
                        "signature",
                        format!(
                            "delivery #{} does not verify with the replaced secret `{name}`",
                            i + 1
                        ),
                        format!("it verifies; delivery {}", d.describe()),
                    ));
                }
            }
        }
    }
    if exp.same_id {
        let first = got.first().and_then(|d| d.header("webhook-id"));
        for (i, d) in got.iter().enumerate().skip(1) {
            if d.header("webhook-id") != first || first.is_none() {
                out.push(Finding::new(
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
                        listing(&got)
                    ),
                ));
            }
        }
    }
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
                    .at(mm.pointer),
                );
            }
        }
    }
    // Values are saved from the first credited delivery only.
    if let Some(first) = got.iter().find(|d| uncredited(d).is_none()) {
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
    }
    out
}

/// The first string starting with `whsec_` anywhere in `value` (READINGS 6.2).
pub fn find_secret(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if s.starts_with("whsec_") => Some(s.clone()),
        Value::Object(o) => o.values().find_map(find_secret),
        Value::Array(a) => a.iter().find_map(find_secret),
        _ => None,
    }
}
