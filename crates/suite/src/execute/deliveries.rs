//! The deliveries a random sequence's changes must cause, and those they must not: the model's
//! prediction of every webhook's deliveries, judged against what the receiver got.
//!
//! It reads the model, the run's one state of what it created: each event the accepted changes of
//! the sequence's resources fired (as the operation table says each change fires), and each
//! webhook of the sequence as it was when the change was answered (its events as last accepted,
//! whether its `resourceIds` hold `*`, whether it was deleted). Then:
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
use crate::model::Model;
use crate::results::Finding;
use crate::webhooks::{Delivery, Receiver};

const SUBSCRIBED: &str = "Resources > Webhook > events";
const DELETED: &str = "Header-versioned API > webhook management";
const TABLE: &str = "Events > event table";
const RECORDS: &str = "Events > delivery records";
const HISTORY: &str = "Header-versioned API > webhook delivery history";

const POLL: Duration = Duration::from_millis(20);

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
    /// The writes each resource accepted (`None`: not known): a change fires an event once, so
    /// no webhook gets more events of one kind for the resource (a retry repeats its ids).
    writes: BTreeMap<String, Option<usize>>,
    /// What each resource was after each change that fired an event, by (event, resource):
    /// an event's `data.resource` shows one of them, or a later state (a payload may be
    /// rendered when it leaves).
    after: BTreeMap<(String, String), Vec<crate::model::Snapshot>>,
}

/// Predicts the deliveries of the sequence's webhooks (`webhooks`: their ids) from what the
/// model knows: every event the accepted changes of the sequence's resources (`resources`) fired,
/// as the operation table says each change fires (`x-effect.fires`), judged against what each
/// webhook was when the change was answered (its events, its scope, deleted or not known). `base`
/// is the trial's receiver URL: a webhook's deliveries come to the sub-path of its URL there.
pub(super) fn predict(
    model: &Model,
    base: &str,
    webhooks: &[String],
    resources: &BTreeSet<(String, String)>,
) -> Predictions {
    // The receiver sub-path of the webhook `id` as it was at `clock`: a webhook's deliveries go
    // to its URL as it was when the change fired.
    let sub_of = |then: &crate::model::Snapshot| -> Option<String> {
        then.value("/url")?
            .as_str()?
            .strip_prefix(base)?
            .strip_prefix('/')
            .filter(|rest| !rest.is_empty() && !rest.contains('/'))
            .map(str::to_string)
    };
    let sub_at =
        |id: &str, clock: u64| -> Option<String> { sub_of(&model.at("webhook", id, clock)?) };
    // Every sub-path a webhook had, with its id.
    let mut subs: BTreeMap<String, String> = BTreeMap::new();
    let hooks: Vec<String> = webhooks
        .iter()
        .filter(|id| sub_at(id, u64::MAX).is_some())
        .cloned()
        .collect();
    for id in &hooks {
        subs.extend(sub_at(id, u64::MAX).map(|s| (s, id.clone())));
    }
    let set = |v: Option<Value>| -> Option<BTreeSet<String>> {
        v?.as_array()?
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect()
    };
    let mut verdicts: Verdicts = BTreeMap::new();
    let mut writes: BTreeMap<String, Option<usize>> = BTreeMap::new();
    let mut after: BTreeMap<(String, String), Vec<crate::model::Snapshot>> = BTreeMap::new();
    for fired in model.fired(resources) {
        after
            .entry((fired.event.clone(), fired.resource.clone()))
            .or_default()
            .extend(model.since(&fired.kind, &fired.resource, fired.clock));
        writes
            .entry(fired.resource.clone())
            .or_insert_with(|| model.writes(&fired.kind, &fired.resource));
        for id in &hooks {
            let Some(then) = model.at("webhook", id, fired.clock) else {
                // Made after the change: what it gets for changes before it is not stated (one
                // made while the change was in flight may have got it: at a URL another webhook
                // had too, the verdicts there are left open below).
                continue;
            };
            let Some(sub) = sub_at(id, fired.clock) else {
                continue;
            };
            subs.insert(sub.clone(), id.clone());
            let sub = &sub;
            let events = set(then.value("/events"));
            let everywhere = set(then.value("/resourceIds")).is_none_or(|ids| ids.contains("*"));
            // What a webhook whose status is not `enabled` receives is not stated (Resources >
            // Webhook > status: its transitions and their meaning are not shown).
            let enabled = then
                .value("/status")
                .is_none_or(|s| s.as_str() == Some("enabled"));
            // A change of the webhook in flight while the change fired: which the target
            // applied first is not known, so neither is what the webhook then received.
            let raced = model.changed_during("webhook", id, fired.sent, fired.clock);
            let verdict = match events {
                _ if then.unknown || !enabled || raced => Verdict::Open,
                _ if then.deleted => Verdict::MustNot(DELETED),
                Some(events) if !events.contains(&fired.event) => Verdict::MustNot(SUBSCRIBED),
                Some(_) if everywhere && fired.sure => Verdict::Must(1),
                _ => Verdict::Open,
            };
            let key = (
                sub.clone(),
                fired.event.clone(),
                fired.id_at.clone(),
                fired.resource.clone(),
            );
            // Each change that must reach the webhook adds one event it must receive; once one
            // must, what others must not deliver is no longer told apart.
            let merged = match (verdicts.get(&key).map(|(v, _)| *v), verdict) {
                (None, v) => v,
                (Some(Verdict::Must(n)), Verdict::Must(m)) => Verdict::Must(n + m),
                (Some(Verdict::Must(n)), _) | (Some(_), Verdict::Must(n)) => Verdict::Must(n),
                (Some(Verdict::MustNot(c)), Verdict::MustNot(_)) => Verdict::MustNot(c),
                (Some(_), _) => Verdict::Open,
            };
            let cause = match verdicts.get(&key) {
                Some((old, cause)) if *old == merged => cause.clone(),
                _ => fired.cause.clone(),
            };
            verdicts.insert(key, (merged, cause));
        }
    }
    // A webhook deleted later, whose events later dropped the event, or whose URL later moved,
    // may lose what was still on its way, or take it at its new URL: what it must receive is
    // what it still subscribes to at the end, at the URL it still has.
    let now: BTreeMap<&str, Option<crate::model::Snapshot>> = hooks
        .iter()
        .map(|id| (id.as_str(), model.at("webhook", id, u64::MAX)))
        .collect();
    let last_sub: BTreeMap<&str, Option<String>> = hooks
        .iter()
        .map(|id| (id.as_str(), sub_at(id, u64::MAX)))
        .collect();
    let holds = |sub: &str, event: &str| {
        let Some(id) = subs.get(sub) else {
            return false;
        };
        last_sub.get(id.as_str()).cloned().flatten().as_deref() == Some(sub)
            && now.get(id.as_str()).cloned().flatten().is_some_and(|s| {
                !s.deleted
                    && !s.unknown
                    && set(s.value("/events")).is_some_and(|e| e.contains(event))
            })
    };
    // Deliveries are told apart by the URL they come to: where two webhooks of the sequence had
    // one URL (a create repeated with the same body, a change of one to another's URL), a
    // delivery there may be either's, so none is one that must not come.
    let mut owners: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
    for id in &hooks {
        for sub in model.since("webhook", id, 0).iter().filter_map(sub_of) {
            owners.entry(sub).or_default().insert(id.as_str());
        }
    }
    let shared = |sub: &str| owners.get(sub).is_some_and(|o| o.len() > 1);
    // A webhook whose URL moved may take at its new URL what an earlier change fired while it
    // was still on its way (which URL a delivery goes to, the one when the event fired or the
    // one when it is sent, is not stated: READINGS 7.2): where the same webhook had the event
    // of the same resource due or open at another of its URLs, none is one that must not come.
    let earlier: Vec<(String, String, String, String)> = verdicts
        .iter()
        .filter(|(_, (v, _))| !matches!(v, Verdict::MustNot(_)))
        .map(|(k, _)| k.clone())
        .collect();
    let moved = |sub: &str, event: &str, at: &str, resource: &str| {
        let mine = owners.get(sub);
        earlier.iter().any(|(s, e, a, r)| {
            s != sub
                && e == event
                && a == at
                && r == resource
                && owners
                    .get(s)
                    .zip(mine)
                    .is_some_and(|(o, m)| o.intersection(m).next().is_some())
        })
    };
    for ((sub, event, at, resource), (verdict, _)) in verdicts.iter_mut() {
        if matches!(verdict, Verdict::MustNot(_)) && moved(sub, event, at, resource) {
            *verdict = Verdict::Open;
        }
        if matches!(verdict, Verdict::Must(_)) && !holds(sub, event) {
            *verdict = Verdict::Open;
        }
        if matches!(verdict, Verdict::MustNot(_)) && shared(sub) {
            *verdict = Verdict::Open;
        }
    }
    Predictions {
        live: hooks
            .iter()
            .filter(|id| {
                now.get(id.as_str())
                    .cloned()
                    .flatten()
                    .is_some_and(|s| !s.deleted && !s.unknown)
            })
            .cloned()
            .collect(),
        hooks: subs,
        verdicts,
        writes,
        after,
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

/// How many events at least came among `ds`: the fewer of the distinct payload ids and the
/// distinct `webhook-id`s (a retry, automatic or manual, repeats one of them).
fn events_at_least(ds: &[Delivery]) -> usize {
    let ids = |f: &dyn Fn(&Delivery) -> Option<String>| -> usize {
        ds.iter()
            .map(|d| f(d).unwrap_or_else(|| String::from_utf8_lossy(&d.body).into_owned()))
            .collect::<BTreeSet<_>>()
            .len()
    };
    let by_payload = ids(&|d| {
        d.json()
            .and_then(|p| p.get("id").and_then(Value::as_str).map(str::to_string))
    });
    let by_header = ids(&|d| d.header("webhook-id").map(str::to_string));
    by_payload.min(by_header)
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
    /// An event of `came` whose `data.resource` shows a field otherwise than the resource was
    /// after any change that fired the event (or later): the event reports a change its payload
    /// does not show (a resource read before the change, or another moment's).
    fn stale_payload(
        &self,
        came: &[Delivery],
        event: &str,
        resource: &str,
        webhook: &str,
    ) -> Option<Finding> {
        let states = self.after.get(&(event.to_string(), resource.to_string()))?;
        if states.is_empty() || states.iter().any(|s| s.unknown) {
            return None;
        }
        came.iter().find_map(|d| {
            let shown = d.json()?.pointer("/data/resource")?.clone();
            if states.iter().any(|s| s.mismatch(&shown).is_none()) {
                return None;
            }
            let (pointer, expected, actual) = states.first()?.mismatch(&shown)?;
            Some(
                // Named after the field, as the model's reads are: a payload that shows a value
                // the resource never held is the defect of that field wherever it shows.
                Finding::new(
                    TABLE,
                    format!("model: {}", pointer.trim_start_matches('/')),
                    format!(
                        "the payload of {event} for {resource} to webhook {webhook} shows the resource as the change left it (or later): {} {expected}",
                        pointer.trim_start_matches('/')
                    ),
                    format!("{}: {}", d.describe(), crate::redact::compact(&actual)),
                )
                .at(format!("/data/resource{pointer}")),
            )
        })
    }

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
            if let Some(f) = self.stale_payload(&came, event, resource, webhook) {
                found.push((f, cause.clone()));
            }
            if let Some(Some(bound)) = self.writes.get(resource) {
                let many = events_at_least(&came);
                if many > *bound {
                    found.push((
                        Finding::new(
                            TABLE,
                            "model: deliveries",
                            format!(
                                "at most {} of {event} for {resource} delivered to webhook {webhook}: a change fires an event once, and the resource accepted {}",
                                crate::results::plural(*bound, "event"),
                                crate::results::plural(*bound, "write")
                            ),
                            format!(
                                "{many} events (distinct event ids and webhook-ids): {}",
                                came.iter().map(Delivery::describe).collect::<Vec<_>>().join("; ")
                            ),
                        ),
                        cause.clone(),
                    ));
                }
            }
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
        for webhook in &self.live {
            let mine: BTreeSet<&String> = self
                .hooks
                .iter()
                .filter(|(_, w)| *w == webhook)
                .map(|(sub, _)| sub)
                .collect();
            let mut history = History {
                webhook: webhook.clone(),
                own: HashMap::new(),
                foreign: HashMap::new(),
            };
            for (at, id, payload_id, (_, event, of, resource)) in &all {
                if mine.contains(at) {
                    history
                        .own
                        .insert(id.clone(), (payload_id.clone(), resource.clone()));
                } else if mine.iter().any(|sub| {
                    matches!(
                        self.verdicts.get(&(
                            (*sub).clone(),
                            event.clone(),
                            of.clone(),
                            resource.clone()
                        )),
                        Some((Verdict::MustNot(SUBSCRIBED), _))
                    )
                }) {
                    history.foreign.insert(id.clone(), event.clone());
                }
            }
            // Every live webhook's history is read, whatever came yet: which deliveries came by
            // now is timing, what a round sends is its seed's.
            out.push(history);
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
