//! The limit runner: a step with `repeat` sends its request until the status of `until` (the
//! limit reached) or until `max` answers 2xx, collecting what each 2xx answer names, and says
//! when the target refused too late or too early. The contract states how many creates a
//! workspace accepts and that the next is refused, not in which order they come: the creates
//! the limit must accept go out together, then the rest a few at a time, so a limit costs a
//! handful of round trips, not one per create. A `for_each` step over distinct resources (the
//! deletes of what a limit created) goes out together too.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures_util::StreamExt;
use serde_json::Value;

use super::{Executor, transport_failed, with_exchange};
use crate::cases::template::{MissingVar, TemplateError, Vars};
use crate::cases::{Case, ForEach, Repeat, Request, Step};
use crate::checks::rules::Judged;
use crate::client::{Exchange, Outgoing};
use crate::results::Finding;

/// Requests of one `repeat` or `for_each` step in flight at once: as many as the client lets
/// out at once ([`crate::client`]'s bound), so that a limit of 40 or 50 fills, and is emptied,
/// in two round trips (a limit case holds every trial that touches its count back: behind a
/// slow network its round trips are the run's); a target gets no more than this from one step.
pub(crate) const STEP_FAN_OUT: usize = 32;

/// One request of a step as sent, with its answer as the rules judged it.
struct Sent {
    out: Outgoing,
    judged: Judged,
}

type Found = Vec<(Finding, Option<Arc<Exchange>>)>;

impl Executor {
    /// Runs a `repeat` step: the request again and again while it is answered 2xx without the
    /// `until` status, at most `max` times and once more; the answer that ended the walk is
    /// judged with the step's expectations, and the count of 2xx answers with the limit.
    ///
    /// The first wave holds the creates the limit must accept (`max` less what the workspace
    /// may hold without showing it), all at once; later waves ([`Limit::later_wave`]) go where
    /// the refusal may come, and never past `max` + 1 requests in all.
    pub(super) async fn run_limit(
        &self,
        case: &Case,
        step: &Step,
        request: &Request,
        repeat: &Repeat,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Result<Found, TemplateError> {
        let limit = match Limit::read(repeat, vars)? {
            Ok(limit) => limit,
            // A profile value that is no count: say so, before sending anything.
            Err(finding) => return Ok(vec![(finding.citing(step.cites(case)), None)]),
        };
        start_collections(repeat, vars);
        let budget = limit.max + 1;
        let mut sent = 0u64;
        let mut accepted = 0u64;
        let mut wave = limit.sure().max(1);
        loop {
            let size = wave.min(budget - sent);
            let outgoing = (0..size)
                .map(|_| self.render_request(request, vars))
                .collect::<Result<Vec<_>, _>>()?;
            // Situation coverage: the operation was sent concurrently at its counted limit.
            if let Some(op) = outgoing.first().filter(|_| size > 1).and_then(|o| {
                self.contract
                    .route(&o.method, &o.path)
                    .and_then(|r| r.operation_id.clone())
            }) {
                self.situations.done(
                    &op,
                    crate::cases::situations::Situation::ConcurrentLimit,
                    &case.name,
                );
            }
            let answers = self.send_all(outgoing).await;
            sent += answers.len() as u64;
            let again: Vec<bool> = answers
                .iter()
                .map(|a| limit.again(repeat, &a.judged.ex))
                .collect();
            for a in answers.iter().zip(&again).filter(|(_, again)| **again) {
                collect(repeat, &a.0.judged.ex, vars);
                accepted += 1;
            }
            let ended = again.iter().any(|a| !a) || sent >= budget;
            // The answer the step's expectations judge: one that is neither 2xx nor the
            // refusal first, then the refusal, else (over the limit) the last 2xx answer.
            let judged = ended.then(|| {
                let stop = |want_until: bool| {
                    answers.iter().zip(&again).position(|(a, again)| {
                        !again && want_until == limit.refused(repeat, &a.judged.ex)
                    })
                };
                stop(false)
                    .or_else(|| stop(true))
                    .unwrap_or(answers.len() - 1)
            });
            let mut found: Found = Vec::new();
            let mut last = None;
            for (i, mut a) in answers.into_iter().enumerate() {
                if Some(i) == judged {
                    last = Some(a);
                    continue;
                }
                let ex = Arc::new(a.judged.ex.recorded());
                exchanges.push(ex.clone());
                found.extend(a.judged.take().into_iter().map(|f| (f, Some(ex.clone()))));
            }
            // A 2xx answer that breaks a generic check ends the step: what it created is the
            // cleanup's.
            if !found.is_empty() && judged.is_none() {
                return Ok(found);
            }
            let Some(last) = last else {
                wave = limit.later_wave();
                continue;
            };
            let ex = last.judged.ex.clone();
            found.extend(with_exchange(
                self.judge(case, step, vars, exchanges, last.judged, &last.out)
                    .await?,
            ));
            if let Some(f) = limit.finding(repeat, accepted) {
                found.push((f.citing(step.cites(case)), Some(ex)));
            }
            return Ok(found);
        }
    }

    /// `for_each`: the step once per item of its list, bound to its name. Where each item names
    /// its own resource in the path (`/webhooks/{{hook}}` over distinct ids: the deletes of what
    /// a limit created), the requests go out together and are judged in the list's order;
    /// otherwise one after another. A target that stopped answering is not asked again.
    pub(super) async fn run_for_each(
        &self,
        case: &Case,
        step: &Step,
        each: &ForEach,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Result<Found, TemplateError> {
        let items = match vars.get(&each.list) {
            Some(Value::Array(items)) => items.clone(),
            Some(other) => vec![other.clone()],
            None => return Err(MissingVar(each.list.clone()).into()),
        };
        let Some(request) = step.request.as_ref().filter(|r| apart(r, each, &items)) else {
            let mut found = Vec::new();
            for item in items {
                vars.set(each.item.clone(), item);
                found.extend(self.run_once(case, step, vars, exchanges).await?);
                // A target that stopped answering is not asked again for every item: each
                // request would only wait out its timeout (the run's cleanup is bounded).
                if transport_failed(exchanges) {
                    break;
                }
            }
            return Ok(with_exchange(found));
        };
        let mut outgoing = Vec::new();
        for item in &items {
            vars.set(each.item.clone(), item.clone());
            outgoing.push(self.render_request(request, vars)?);
        }
        let answers = self.send_all(outgoing).await;
        let mut found = Vec::new();
        for (item, a) in items.into_iter().zip(answers) {
            vars.set(each.item.clone(), item);
            found.extend(
                self.judge(case, step, vars, exchanges, a.judged, &a.out)
                    .await?,
            );
        }
        Ok(with_exchange(found))
    }

    /// Sends every request, [`STEP_FAN_OUT`] at a time, and gives the answers in the order of
    /// `outgoing`. Once one gets no answer, no further one starts: a target that stopped
    /// answering would only make each wait out its timeout.
    async fn send_all(&self, outgoing: Vec<Outgoing>) -> Vec<Sent> {
        let silent = AtomicBool::new(false);
        let silent = &silent;
        futures_util::stream::iter(outgoing)
            .take_while(|_| std::future::ready(!silent.load(Ordering::SeqCst)))
            .map(|out| async move {
                let judged = self.send(&out).await;
                if judged.ex.outcome.is_err() {
                    silent.store(true, Ordering::SeqCst);
                }
                Sent { out, judged }
            })
            .buffered(STEP_FAN_OUT)
            .collect()
            .await
    }
}

/// Whether the requests of a `for_each` step address one resource each: the item's variable is
/// in the path and no two items are the same, so their order cannot matter to the target.
fn apart(request: &Request, each: &ForEach, items: &[Value]) -> bool {
    let named = request.path.contains(&format!("{{{{{}}}}}", each.item));
    let distinct = items
        .iter()
        .enumerate()
        .all(|(i, a)| items[..i].iter().all(|b| a != b));
    named && distinct
}

/// How many 2xx answers a limit step accepts. A limit counted from the workspace: what it
/// already holds (`existing`) counts toward `max`; what it may hold without showing (`maybe`)
/// widens the number to accept into a range, `least` to `max`.
#[derive(Debug, Clone, Copy)]
struct Limit {
    /// `max` as the case states it (the whole limit).
    full: u64,
    /// 2xx answers accepted at most: `full` less `existing`.
    max: u64,
    /// 2xx answers required at least: `max` less `maybe`.
    least: u64,
    existing: Option<u64>,
    maybe: u64,
}

impl Limit {
    /// The limit of `repeat` with the run's variables, or the finding (without clauses) that
    /// says why `max`, `existing` or `maybe` is no count.
    fn read(repeat: &Repeat, vars: &Vars) -> Result<Result<Limit, Finding>, TemplateError> {
        let rendered = vars.render_value(&repeat.max)?;
        let max = match &rendered {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.trim().parse::<u64>().ok(),
            _ => None,
        };
        let Some(full) = max else {
            return Ok(Err(Finding::new(
                "",
                "repeat",
                "`max` renders to a non-negative integer",
                rendered.to_string(),
            )));
        };
        let existing = match count_of(vars, "existing", repeat.existing.as_deref()) {
            Ok(n) => n,
            Err(f) => return Ok(Err(*f)),
        };
        let maybe = match count_of(vars, "maybe", repeat.maybe.as_deref()) {
            Ok(n) => n.unwrap_or(0),
            Err(f) => return Ok(Err(*f)),
        };
        let max = full.saturating_sub(existing.unwrap_or(0));
        Ok(Ok(Limit {
            full,
            max,
            least: max.saturating_sub(maybe),
            existing,
            maybe,
        }))
    }

    /// The 2xx answers the target must give whatever else happens: `least` when the
    /// workspace's holdings count; none when they do not (an early refusal is then allowed).
    fn sure(&self) -> u64 {
        if self.existing.is_some() {
            self.least
        } else {
            0
        }
    }

    /// How many creates go out together once the sure ones are in: [`STEP_FAN_OUT`] where the
    /// workspace's holdings count (the refusal comes within the `maybe` range, and never more
    /// than `max` + 1 requests go out); one at a time where they do not, since the refusal may
    /// then come at any point and every create past it would be one more refusal.
    fn later_wave(&self) -> u64 {
        if self.existing.is_some() {
            STEP_FAN_OUT as u64
        } else {
            1
        }
    }

    /// Whether the walk goes on after `ex`: a 2xx answer that is not the `until` status.
    fn again(&self, repeat: &Repeat, ex: &Exchange) -> bool {
        ex.outcome
            .as_ref()
            .is_ok_and(|r| (200..300).contains(&r.status) && !repeat.until.allows(r.status))
    }

    /// Whether `ex` is the refusal the step waits for (the `until` status).
    fn refused(&self, repeat: &Repeat, ex: &Exchange) -> bool {
        ex.outcome
            .as_ref()
            .is_ok_and(|r| repeat.until.allows(r.status))
    }

    /// What is wrong with the count of 2xx answers of the walk to the limit: more than `max`
    /// (still 2xx after `max`), or fewer than `least` when the workspace's holdings count.
    /// None when the limit held.
    fn finding(&self, repeat: &Repeat, accepted: u64) -> Option<Finding> {
        let Limit {
            full,
            max,
            least,
            existing,
            maybe,
        } = *self;
        let until = repeat.until.describe();
        if accepted > max {
            let expected = match existing {
                Some(e) => format!(
                    "status {until} after at most {max} answers 2xx (the limit {full} less the {e} the workspace already held)"
                ),
                None => format!("status {until} after at most {max} answers 2xx"),
            };
            return Some(Finding::new(
                "",
                "repeat",
                expected,
                format!("{accepted} answers 2xx"),
            ));
        }
        let e = existing.filter(|_| accepted < least)?;
        let expected = if maybe == 0 {
            format!(
                "exactly {max} answers 2xx before status {until} (the limit {full} less the {e} the workspace already held)"
            )
        } else {
            format!(
                "{least} to {max} answers 2xx before status {until} (the limit {full} less the {e} the workspace already held, and less up to {maybe} whose state it does not show)"
            )
        };
        Some(Finding::new(
            "",
            "repeat",
            expected,
            format!("refused after {accepted} answers 2xx"),
        ))
    }
}

/// The count `name` holds (a list saved by an earlier step, or a count), None when the step
/// names none; the finding (without clauses) when the variable holds neither.
fn count_of(vars: &Vars, field: &str, name: Option<&str>) -> Result<Option<u64>, Box<Finding>> {
    match name.map(|name| vars.get(name)) {
        None => Ok(None),
        Some(Some(Value::Array(items))) => Ok(Some(items.len() as u64)),
        Some(Some(Value::Number(n))) if n.as_u64().is_some() => Ok(n.as_u64()),
        Some(other) => Err(Box::new(Finding::new(
            "",
            "repeat",
            format!("`{field}` names a list (or a count) saved by an earlier step"),
            other.map_or("absent".into(), Value::to_string),
        ))),
    }
}

/// Each list of `collect` starts empty unless an earlier step saved it.
fn start_collections(repeat: &Repeat, vars: &mut Vars) {
    for name in repeat.collect.keys() {
        if !matches!(vars.get(name), Some(Value::Array(_))) {
            vars.set(name.clone(), Value::Array(Vec::new()));
        }
    }
}

/// Appends what a 2xx answer shows at each pointer of `collect` to its list.
fn collect(repeat: &Repeat, ex: &Exchange, vars: &mut Vars) {
    for (name, pointer) in &repeat.collect {
        let pointer = pointer.as_str().unwrap_or_default();
        let value = ex
            .outcome
            .as_ref()
            .ok()
            .and_then(|r| r.value())
            .and_then(|b| b.pointer(pointer))
            .cloned();
        if let (Some(v), Some(Value::Array(list))) = (value, vars.get(name)) {
            let mut list = list.clone();
            list.push(v);
            vars.set(name.clone(), Value::Array(list));
        }
    }
}
