//! The limit runner: a step with `repeat` sends its request until the status of `until` (the
//! limit reached) or until `max` answers 2xx, collecting what each 2xx answer names, and says
//! when the target refused too late or too early.

use std::sync::Arc;

use serde_json::Value;

use super::{Executor, with_exchange};
use crate::cases::template::{TemplateError, Vars};
use crate::cases::{Case, Repeat, Request, Step};
use crate::checks::{Finding, generic};
use crate::client::Exchange;

impl Executor {
    /// Runs a `repeat` step: the request again and again while it is answered 2xx without the
    /// `until` status, at most `max` times; the last answer is judged with the step's
    /// expectations, and the count of 2xx answers with the limit.
    pub(super) async fn run_limit(
        &self,
        case: &Case,
        step: &Step,
        request: &Request,
        repeat: &Repeat,
        vars: &mut Vars,
        exchanges: &mut Vec<Arc<Exchange>>,
    ) -> Result<Vec<(Finding, Option<Arc<Exchange>>)>, TemplateError> {
        let limit = match Limit::read(repeat, vars)? {
            Ok(limit) => limit,
            // A profile value that is no count: say so, before sending anything.
            Err(finding) => return Ok(vec![(finding.citing(step.cites(case)), None)]),
        };
        start_collections(repeat, vars);
        let mut accepted = 0u64;
        loop {
            let (outgoing, deviation) = self.render_request(request, vars)?;
            let ex = Arc::new(self.send(&outgoing).await);
            let status = ex.outcome.as_ref().ok().map(|r| r.status);
            let again = status.is_some_and(|s| (200..300).contains(&s) && !repeat.until.allows(s));
            if again {
                collect(repeat, &ex, vars);
            }
            if !again || accepted >= limit.max {
                let mut found = self
                    .judge(
                        case,
                        step,
                        vars,
                        exchanges,
                        ex.clone(),
                        &outgoing,
                        deviation,
                    )
                    .await?;
                if let Some(f) = limit.finding(repeat, again, accepted) {
                    found.push((f.citing(step.cites(case)), ex));
                }
                return Ok(with_exchange(found));
            }
            let generic = generic::check(&self.contract, &ex, deviation);
            let ex = Arc::new(ex.recorded());
            exchanges.push(ex.clone());
            if !generic.is_empty() {
                return Ok(generic.into_iter().map(|f| (f, Some(ex.clone()))).collect());
            }
            accepted += 1;
        }
    }
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
            Err(f) => return Ok(Err(f)),
        };
        let maybe = match count_of(vars, "maybe", repeat.maybe.as_deref()) {
            Ok(n) => n.unwrap_or(0),
            Err(f) => return Ok(Err(f)),
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

    /// What is wrong with the last answer of the walk to the limit: still 2xx after `max`
    /// (`again`), or refused after fewer than `least` 2xx answers when the workspace's holdings
    /// count. None when the limit held.
    fn finding(&self, repeat: &Repeat, again: bool, accepted: u64) -> Option<Finding> {
        let Limit {
            full,
            max,
            least,
            existing,
            maybe,
        } = *self;
        let until = repeat.until.describe();
        if again {
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
                format!("{} answers 2xx", accepted + 1),
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
fn count_of(vars: &Vars, field: &str, name: Option<&str>) -> Result<Option<u64>, Finding> {
    match name.map(|name| vars.get(name)) {
        None => Ok(None),
        Some(Some(Value::Array(items))) => Ok(Some(items.len() as u64)),
        Some(Some(Value::Number(n))) if n.as_u64().is_some() => Ok(n.as_u64()),
        Some(other) => Err(Finding::new(
            "",
            "repeat",
            format!("`{field}` names a list (or a count) saved by an earlier step"),
            other.map_or("absent".into(), Value::to_string),
        )),
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
