//! The deliveries a random sequence's changes must cause, and those they must not: the model's
//! prediction of every webhook's deliveries, judged against what the receiver got.
//!
//! From a sequence's exchanges, in the order they were answered, it follows each webhook the
//! sequence created (its events as last accepted, whether its `resourceIds` hold `*`, whether it
//! was deleted) and each event the sequence's accepted changes fire (the event table: a task
//! created, completed, reopened, assigned, unassigned, updated, deleted, its due date, its link;
//! a contact created or updated). Then:
//! - a live webhook on `*` whose events hold the event, when the change is one the event table
//!   names without condition (a task created, completed, reopened, assigned, unassigned or
//!   deleted; a contact created), must receive it, within the profile's delivery bound
//!   (READINGS 7.1);
//! - a webhook whose events, as last set before the change, do not hold the event must receive
//!   no delivery of it (`Resources > Webhook > events`), and a webhook deleted before the change
//!   receives none (`Header-versioned API > webhook management`).
//!
//! What is open stays open: which events a change fires beyond the table's row for it, whether a
//! scope of phone number ids covers a task's event, what a webhook gets for changes made before
//! it existed or while a change to it was not answered. A delivery whose event the sequence did
//! not cause (other trials' resources) is not judged.
//!
//! Then the delivery records: each record of the webhook's history whose `id` is the
//! `webhook-id` of a delivery the receiver got shows that delivery's payload id as `eventId`
//! and its resource's id as `resourceId` (`Events > delivery records`), where it shows them;
//! and no record is a delivery another webhook received of an event this one's events do not
//! hold (the history is the webhook's own).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::client::Exchange;
use crate::results::Finding;
use crate::webhooks::{Delivery, Receiver};
use conformance_contract::operations::Does;
use conformance_contract::{Contract, Route};

const SUBSCRIBED: &str = "Resources > Webhook > events";
const DELETED: &str = "Header-versioned API > webhook management";
const TABLE: &str = "Events > event table";
const RECORDS: &str = "Events > delivery records";
const HISTORY: &str = "Header-versioned API > webhook delivery history";

const POLL: Duration = Duration::from_millis(20);

/// A webhook of the sequence as the model follows it.
#[derive(Debug, Clone)]
enum Hook {
    Live {
        events: BTreeSet<String>,
        everywhere: bool,
    },
    Deleted,
    /// A change to it whose outcome is not known (no answer, a 5xx): judged no more.
    Unknown,
}

/// Where an event's resource holds its id (`/taskId` for a task, `/id` for a contact): the
/// kind's, from the operation table.
type Of = String;

/// What the model predicts for one webhook, event and resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    /// At least this many events (distinct deliveries, a retry not counted): one per change
    /// that fired it.
    Must(usize),
    MustNot(&'static str),
    Open,
}

/// What a verdict is about: (receiver sub-path, event, resource kind, resource id).
type Key = (String, String, Of, String);

/// Each key's verdict, with the exchange that caused it.
type Verdicts = BTreeMap<Key, (Verdict, Arc<Exchange>)>;

/// The predictions of a sequence's exchanges.
pub(super) struct Predictions {
    hooks: BTreeMap<String, String>,
    /// The webhooks live at the end, by id.
    live: BTreeSet<String>,
    verdicts: Verdicts,
}

fn json_of(ex: &Exchange) -> Option<&Value> {
    ex.outcome.as_ref().ok()?.json.as_ref()?.as_ref().ok()
}

fn strings(v: Option<&Value>) -> Option<BTreeSet<String>> {
    v?.as_array()?
        .iter()
        .map(|i| i.as_str().map(str::to_string))
        .collect()
}

/// The events an accepted request fires, as the operation table states them (`x-effect.fires`):
/// each with the kind and id of the resource it names (the one the request created, or the one
/// its path names), and whether the table ties the event to the change without condition.
fn fired_by(contract: &Contract, route: &Route, ex: &Exchange) -> Vec<(String, Of, String, bool)> {
    let effect = &route.effect;
    let Some(resource) = contract.resources.get(&effect.on) else {
        return Vec::new();
    };
    let id = if effect.does == Does::Create {
        json_of(ex)
            .and_then(|j| j.get("data"))
            .and_then(|d| resource.id_of(d))
    } else {
        effect.id.as_deref().and_then(|name| {
            let t: Vec<&str> = route.template.trim_matches('/').split('/').collect();
            let p: Vec<&str> = ex.path.trim_matches('/').split('/').collect();
            t.iter()
                .zip(&p)
                .find(|(t, _)| **t == format!("{{{name}}}"))
                .map(|(_, p)| p.to_string())
        })
    };
    let Some(id) = id else {
        return Vec::new();
    };
    effect
        .fires
        .iter()
        .map(|f| (f.event.clone(), resource.id.clone(), id.clone(), f.sure))
        .collect()
}

/// Follows the sequence's exchanges (in the order answered) and predicts the deliveries of the
/// webhooks it created at `base` (the trial's receiver URL).
pub(super) fn predict(contract: &Contract, base: &str, exchanges: &[Arc<Exchange>]) -> Predictions {
    // Webhook id -> (sub-path, state).
    let mut hooks: HashMap<String, (String, Hook)> = HashMap::new();
    let mut verdicts: Verdicts = BTreeMap::new();
    for ex in exchanges {
        let Some(route) = contract.route(&ex.method, &ex.path) else {
            continue;
        };
        let method = ex.method.to_ascii_uppercase();
        let template = route.template.as_str();
        let status = ex.outcome.as_ref().map(|r| r.status).ok();
        let accepted = status.is_some_and(|s| (200..300).contains(&s));
        let refused = status.is_some_and(|s| (400..500).contains(&s));
        let body: Option<Value> = ex
            .request_body
            .as_deref()
            .and_then(|b| serde_json::from_str(b).ok());
        let webhook_id = || {
            ex.path
                .trim_matches('/')
                .split('/')
                .nth(1)
                .map(str::to_string)
        };
        match (method.as_str(), template) {
            ("POST", "/webhooks") if accepted => {
                let body = body.as_ref();
                let sub = body
                    .and_then(|b| b.get("url"))
                    .and_then(Value::as_str)
                    .and_then(|u| u.strip_prefix(base))
                    .and_then(|rest| rest.strip_prefix('/'))
                    .filter(|rest| !rest.is_empty() && !rest.contains('/'));
                let id = json_of(ex)
                    .and_then(|j| j.pointer("/data/id"))
                    .and_then(|v| match v {
                        Value::String(s) => Some(s.clone()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    });
                let events = strings(body.and_then(|b| b.get("events")));
                if let (Some(sub), Some(id), Some(events)) = (sub, id, events) {
                    let everywhere = strings(body.and_then(|b| b.get("resourceIds")))
                        .is_none_or(|ids| ids.contains("*"));
                    hooks.insert(id, (sub.to_string(), Hook::Live { events, everywhere }));
                }
            }
            ("PATCH" | "PUT" | "DELETE", "/webhooks/{webhookId}") => {
                let Some(id) = webhook_id() else { continue };
                let Some((_, hook)) = hooks.get_mut(&id) else {
                    continue;
                };
                if refused {
                    continue;
                }
                if !accepted {
                    *hook = Hook::Unknown;
                    continue;
                }
                *hook = match (method.as_str(), std::mem::replace(hook, Hook::Unknown)) {
                    ("DELETE", _) => Hook::Deleted,
                    ("PATCH", Hook::Live { events, everywhere }) => {
                        let b = body.as_ref();
                        Hook::Live {
                            events: strings(b.and_then(|b| b.get("events"))).unwrap_or(events),
                            everywhere: strings(b.and_then(|b| b.get("resourceIds")))
                                .map_or(everywhere, |ids| ids.contains("*")),
                        }
                    }
                    // What a PUT does to what it leaves out is not shown; the sequence sends none.
                    _ => Hook::Unknown,
                };
            }
            _ if accepted => {
                for (event, of, resource, certain) in fired_by(contract, route, ex) {
                    for (sub, hook) in hooks.values() {
                        let verdict = match hook {
                            Hook::Live { events, .. } if !events.contains(&event) => {
                                Verdict::MustNot(SUBSCRIBED)
                            }
                            Hook::Live { everywhere, .. } if *everywhere && certain => {
                                Verdict::Must(1)
                            }
                            Hook::Deleted => Verdict::MustNot(DELETED),
                            _ => Verdict::Open,
                        };
                        let key = (sub.clone(), event.to_string(), of.clone(), resource.clone());
                        // Each change that must reach the webhook adds one event it must receive;
                        // once one must, what others must not deliver is no longer told apart.
                        let merged = match (verdicts.get(&key).map(|(v, _)| *v), verdict) {
                            (None, v) => v,
                            (Some(Verdict::Must(n)), Verdict::Must(m)) => Verdict::Must(n + m),
                            (Some(Verdict::Must(n)), _) | (Some(_), Verdict::Must(n)) => {
                                Verdict::Must(n)
                            }
                            (Some(Verdict::MustNot(c)), Verdict::MustNot(_)) => Verdict::MustNot(c),
                            (Some(_), _) => Verdict::Open,
                        };
                        let cause = match verdicts.get(&key) {
                            Some((old, cause)) if *old == merged => cause.clone(),
                            _ => ex.clone(),
                        };
                        verdicts.insert(key, (merged, cause));
                    }
                }
            }
            _ => {}
        }
    }
    // A webhook deleted later, or whose events later dropped the event, may lose what was
    // still on its way: what it must receive is what it still subscribes to at the end.
    for ((sub, event, _, _), (verdict, _)) in verdicts.iter_mut() {
        if let Verdict::Must(_) = verdict {
            let holds = hooks.values().any(|(s, h)| {
                s == sub
                    && matches!(h, Hook::Live { events, .. } if events.contains(event.as_str()))
            });
            if !holds {
                *verdict = Verdict::Open;
            }
        }
    }
    Predictions {
        live: hooks
            .iter()
            .filter(|(_, (_, h))| matches!(h, Hook::Live { .. }))
            .map(|(id, _)| id.clone())
            .collect(),
        hooks: hooks.into_iter().map(|(id, (sub, _))| (sub, id)).collect(),
        verdicts,
    }
}

fn resource_of(payload: &Value, of: &str) -> Option<String> {
    match payload.pointer(&format!("/data/resource{of}"))? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn is_of(d: &Delivery, event: &str, of: &str, resource: &str) -> bool {
    d.json().is_some_and(|p| {
        p.get("type").and_then(Value::as_str) == Some(event)
            && resource_of(p, of).as_deref() == Some(resource)
    })
}

/// How many events of `event` for `resource` came: distinct `webhook-id`s (a retry repeats
/// its delivery's), else distinct payloads.
fn events_of(ds: &[Delivery], event: &str, of: &str, resource: &str) -> usize {
    ds.iter()
        .filter(|d| is_of(d, event, of, resource))
        .map(|d| match d.header("webhook-id") {
            Some(id) => id.to_string(),
            None => String::from_utf8_lossy(&d.body).into_owned(),
        })
        .collect::<BTreeSet<_>>()
        .len()
}

impl Predictions {
    /// Whether anything is predicted.
    pub(super) fn is_empty(&self) -> bool {
        self.verdicts.values().all(|(v, _)| *v == Verdict::Open)
    }

    /// Waits (at most `bound`) for every delivery that must come, then judges what came: the
    /// missing, the ones that must not have come.
    pub(super) async fn judge(
        &self,
        receiver: &Receiver,
        run: &str,
        case: &str,
        bound: Duration,
    ) -> Vec<(Finding, Arc<Exchange>)> {
        let start = Instant::now();
        // Each webhook's deliveries, read once per look (not once per verdict).
        let subs: BTreeSet<&String> = self.verdicts.keys().map(|(sub, ..)| sub).collect();
        let look = || -> HashMap<&str, Vec<Delivery>> {
            subs.iter()
                .map(|sub| (sub.as_str(), receiver.deliveries(run, case, sub)))
                .collect()
        };
        let mut seen = look();
        loop {
            let waiting = self
                .verdicts
                .iter()
                .any(|((sub, event, of, resource), (v, _))| {
                    matches!(v, Verdict::Must(n) if events_of(&seen[sub.as_str()], event, of, resource) < *n)
                });
            if !waiting || start.elapsed() >= bound {
                break;
            }
            tokio::time::sleep(POLL).await;
            seen = look();
        }
        // Judged on a fresh look: what came while the last one was read counts.
        let seen = look();
        let mut found = Vec::new();
        for ((sub, event, of, resource), (verdict, cause)) in &self.verdicts {
            let came: Vec<Delivery> = seen[sub.as_str()]
                .iter()
                .filter(|d| is_of(d, event, of, resource))
                .cloned()
                .collect();
            let webhook = self.hooks.get(sub).map_or("?", String::as_str);
            match verdict {
                Verdict::Must(n) if events_of(&came, event, of, resource) < *n => found.push((
                    Finding::new(
                        TABLE,
                        "model: deliveries",
                        format!(
                            "{n} event(s) {event} for {resource} delivered to webhook {webhook}, one per change that fired it while its events held it on every resource (\"*\"), within {:.1} s",
                            bound.as_secs_f64()
                        ),
                        format!(
                            "{} after {:.1} s",
                            events_of(&came, event, of, resource),
                            start.elapsed().as_secs_f64()
                        ),
                    ),
                    cause.clone(),
                )),
                Verdict::MustNot(clause) if !came.is_empty() => {
                    let why = if *clause == DELETED {
                        format!("no delivery of {event} for {resource} to webhook {webhook}, deleted before the change")
                    } else {
                        format!("no delivery of {event} for {resource} to webhook {webhook}, whose events as last set do not hold it")
                    };
                    found.push((
                        Finding::new(
                            clause,
                            "model: deliveries",
                            why,
                            format!("{} delivered: {}", came.len(), came[0].describe()),
                        ),
                        cause.clone(),
                    ));
                }
                _ => {}
            }
        }
        found
    }

    /// What the history of each live webhook is judged against: the deliveries of the
    /// sequence's events it received, and those other webhooks of the sequence received of
    /// events it must not receive.
    pub(super) fn received(&self, receiver: &Receiver, run: &str, case: &str) -> Vec<History> {
        // Every delivery of the sequence's events: (sub-path, webhook-id, payload id, key).
        let mut all = Vec::new();
        for sub in self.hooks.keys() {
            for d in receiver.deliveries(run, case, sub) {
                let (Some(id), Some(p)) = (d.header("webhook-id"), d.json()) else {
                    continue;
                };
                let key = self.verdicts.keys().find(|(s, event, of, resource)| {
                    s == sub
                        && p.get("type").and_then(Value::as_str) == Some(event)
                        && resource_of(p, of).as_deref() == Some(resource)
                });
                if let (Some(key), Some(payload_id)) = (key, p.get("id").and_then(Value::as_str)) {
                    all.push((
                        sub.clone(),
                        id.to_string(),
                        payload_id.to_string(),
                        key.clone(),
                    ));
                }
            }
        }
        let mut out = Vec::new();
        for (sub, webhook) in self.hooks.iter().filter(|(_, w)| self.live.contains(*w)) {
            let mut history = History {
                webhook: webhook.clone(),
                own: HashMap::new(),
                foreign: HashMap::new(),
            };
            for (at, id, payload_id, (_, event, of, resource)) in &all {
                if at == sub {
                    history
                        .own
                        .insert(id.clone(), (payload_id.clone(), resource.clone()));
                } else if matches!(
                    self.verdicts
                        .get(&(sub.clone(), event.clone(), of.clone(), resource.clone())),
                    Some((Verdict::MustNot(SUBSCRIBED), _))
                ) {
                    history.foreign.insert(id.clone(), event.clone());
                }
            }
            if !history.own.is_empty() || !history.foreign.is_empty() {
                out.push(history);
            }
        }
        out
    }
}

/// A live webhook's history as the model predicts it.
pub(super) struct History {
    pub(super) webhook: String,
    /// The deliveries it received: `webhook-id` -> (payload id, resource id).
    own: HashMap<String, (String, String)>,
    /// Deliveries other webhooks received of events its events do not hold: `webhook-id` ->
    /// event. Its history does not list them.
    foreign: HashMap<String, String>,
}

/// Judges a webhook's delivery history (`GET /webhooks/{id}/events`) against the deliveries
/// the receiver got: a record whose `id` is a delivery's `webhook-id` shows, where it shows them,
/// that delivery's payload id as `eventId` and its resource's id as `resourceId`.
pub(super) fn judge_records(history: &Value, predicted: &History) -> Vec<Finding> {
    let received = &predicted.own;
    let Some(items) = history.get("data").and_then(Value::as_array) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let id = match item.get("id") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => continue,
        };
        if let (Some(event), false) = (predicted.foreign.get(&id), received.contains_key(&id)) {
            found.push(
                Finding::new(
                    HISTORY,
                    "model: delivery history",
                    format!(
                        "only deliveries to webhook {}: {id:?} is a delivery of {event} to another webhook, an event this webhook's events do not hold",
                        predicted.webhook
                    ),
                    format!("the record {id:?} listed"),
                )
                .at(format!("/data/{i}/id")),
            );
            continue;
        }
        let Some((payload_id, resource)) = received.get(&id) else {
            continue;
        };
        for (field, want) in [("eventId", payload_id), ("resourceId", resource)] {
            match item.get(field) {
                Some(Value::String(s)) if s != want => found.push(
                    Finding::new(
                        RECORDS,
                        format!("model: delivery {field}"),
                        format!(
                            "{field} {want:?}: the {} of the delivery whose webhook-id is {id:?}",
                            if field == "eventId" {
                                "payload id"
                            } else {
                                "resource id"
                            }
                        ),
                        format!("{s:?}"),
                    )
                    .at(format!("/data/{i}/{field}")),
                ),
                Some(v) if !v.is_null() && !v.is_string() => found.push(
                    Finding::new(
                        RECORDS,
                        format!("model: delivery {field}"),
                        format!("{field} {want:?}"),
                        crate::redact::compact(v),
                    )
                    .at(format!("/data/{i}/{field}")),
                ),
                _ => {}
            }
        }
    }
    found
}
