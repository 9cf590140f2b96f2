//! The registry of rules: every rule one exchange can show, registered once, and run on every
//! exchange of the run from the one place every exchange passes (`Executor::send`), whatever
//! trial sent it. A rule names the clauses it holds an answer to, says what it applies to (the
//! operations, generations and statuses of its reach), and judges one exchange. As Schemathesis
//! keeps its checks registry, no caller chooses which rules run: a caller that wants the
//! findings to decide what it does next takes them from the exchange's [`Judged`]; one that
//! leaves them leaves them to its trial, which fails on them all the same.
//!
//! Rules that span the run (the model of what the run created and changed, the delivery
//! predictions of a random sequence) judge from their own state: the model is fed by the same
//! place (`crate::model`), and its findings, like those of the rules judged "at the end", go to
//! the trial that sent the exchange when it ends ([`collect`]).

use std::cell::RefCell;
use std::sync::Arc;

use super::generic;
pub use super::rule::{AppliesTo, Deviation, Judging, Rule, When};
use crate::client::{Exchange, Outgoing};
use crate::results::Finding;
use conformance_contract::{API_VERSION, Api, Contract};

/// The rules of a run, in the order they judge.
#[derive(Clone)]
pub struct Registry {
    rules: Vec<Rule>,
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::standard()
    }
}

impl Registry {
    /// The rules of the contract every answer keeps (`checks::generic`), and the filter rule of
    /// every list answer (`checks::filters`).
    pub fn standard() -> Registry {
        let mut rules = generic::rules();
        rules.push(
            Rule::new(
                "filters",
                AppliesTo {
                    statuses: Some(vec![(200, 299)]),
                    ..AppliesTo::default()
                },
                &[],
                |j| match (j.route, j.ex.outcome.as_ref().ok().and_then(|r| r.value())) {
                    (Some(route), Some(body)) => super::filters::check(route, j.out, body),
                    _ => Vec::new(),
                },
            )
            .at_the_end(),
        );
        Registry { rules }
    }

    /// This registry with `rule` registered too.
    pub fn with(mut self, rule: Rule) -> Registry {
        self.rules.push(rule);
        self
    }

    /// The names of its rules, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.rules.iter().map(|r| r.name).collect()
    }

    /// Judges one exchange with every rule that applies: the findings of the rules judged with
    /// the answer, and of those judged at the trial's end.
    pub fn judge(
        &self,
        contract: &Contract,
        out: &Outgoing,
        ex: &Exchange,
    ) -> (Vec<Finding>, Vec<Finding>) {
        let j = judging(contract, out, ex);
        let mut now = Vec::new();
        let mut later = Vec::new();
        for rule in self.rules.iter().filter(|r| r.applies.covers(&j)) {
            let found = (rule.judge)(&j);
            match rule.when {
                When::Now => now.extend(found),
                When::AtTheEnd => later.extend(found),
            }
            // An answer that is no complete answer, or a body that is no JSON, is all the later
            // rules would say too.
            if rule.name == generic::ANSWER_RULE && ex.outcome.is_err() {
                break;
            }
            if rule.name == generic::JSON_RULE && now.iter().any(|f| f.check == "JSON body") {
                break;
            }
        }
        (now, later)
    }

    /// The clauses the rules that apply held a recorded answer to, where they found nothing
    /// wrong with it: the clause matrix credits them (a clause no case cites is still verified
    /// on every answer).
    pub fn held(&self, contract: &Contract, ex: &Exchange) -> Vec<String> {
        let out = outgoing_of(ex);
        let j = judging(contract, &out, ex);
        let mut held = Vec::new();
        for rule in self.rules.iter().filter(|r| r.applies.covers(&j)) {
            for c in (rule.held)(&j) {
                if !held.contains(&c) {
                    held.push(c);
                }
            }
        }
        held
    }
}

fn judging<'a>(contract: &'a Contract, out: &'a Outgoing, ex: &'a Exchange) -> Judging<'a> {
    Judging {
        contract,
        route: contract.route(&ex.method, &ex.path),
        out,
        ex,
        deviation: deviation_of(out),
    }
}

/// The request of a recorded exchange, as far as the rules read it (its method, path and
/// headers): what coverage looks at after the body is gone.
fn outgoing_of(ex: &Exchange) -> Outgoing {
    Outgoing {
        method: ex.method.clone(),
        path: ex.path.clone(),
        query: Vec::new(),
        headers: ex.request_headers.clone(),
        body: None,
        raw_body: None,
        auth: crate::client::Auth::Primary,
    }
}

/// How the request deviated on purpose, read from the request itself (READINGS 8.1): a
/// header-versioned request without `Service-Api-Version`, or any request with a value other than
/// the one stated.
pub fn deviation_of(out: &Outgoing) -> Deviation {
    let sent = out
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("Service-Api-Version"))
        .map(|(_, v)| v.as_str());
    Deviation {
        version: match sent {
            Some(v) => v != API_VERSION,
            None => Api::of_path(&out.path) == Api::Latest,
        },
    }
}

/// An exchange with what the rules judged of it. A sender that needs the findings to decide what
/// it does next takes them ([`Judged::take`]) and makes them its own; findings left here join the
/// trial that sent the exchange when this is dropped: no rule's finding is lost by a caller that
/// did not look.
pub struct Judged {
    pub ex: Arc<Exchange>,
    found: Option<Vec<Finding>>,
}

impl Judged {
    pub(crate) fn new(ex: Arc<Exchange>, found: Vec<Finding>) -> Judged {
        Judged {
            ex,
            found: Some(found),
        }
    }

    /// The findings of the rules judged with the answer: the taker reports them.
    pub fn take(&mut self) -> Vec<Finding> {
        self.found.take().unwrap_or_default()
    }

    /// The exchange, with its findings and the exchange taken together.
    pub fn into_parts(mut self) -> (Arc<Exchange>, Vec<Finding>) {
        let found = self.take();
        (self.ex.clone(), found)
    }
}

impl Drop for Judged {
    fn drop(&mut self) {
        if let Some(found) = self.found.take() {
            report(found, &self.ex);
        }
    }
}

tokio::task_local! {
    /// The findings that join the trial running in this task when it ends: those of the model,
    /// of the rules judged at the end, and those no sender took.
    static SINK: RefCell<Vec<(Finding, Arc<Exchange>)>>;
}

/// Runs `fut` (one trial, or one try of a random sequence) with a sink of its own; returns its
/// output and the findings that reached the sink.
pub(crate) async fn collect<F: std::future::Future>(
    fut: F,
) -> (F::Output, Vec<(Finding, Arc<Exchange>)>) {
    SINK.scope(RefCell::new(Vec::new()), async move {
        let out = fut.await;
        let found = SINK.with(|s| std::mem::take(&mut *s.borrow_mut()));
        (out, found)
    })
    .await
}

/// Sends findings on `ex` to the trial running in this task. Outside a trial (discovery, the
/// cleanup, the reads after a trial's verdict) there is no sink: nothing of a verdict reads there.
pub(crate) fn report(found: Vec<Finding>, ex: &Exchange) {
    if found.is_empty() {
        return;
    }
    let ex = Arc::new(ex.recorded());
    let _ = SINK.try_with(|s| {
        let mut s = s.borrow_mut();
        for f in found {
            s.push((f, ex.clone()));
        }
    });
}
