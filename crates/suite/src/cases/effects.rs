//! READINGS 2.3 and principle 10 (docs/architecture.md): a 2xx is not proof that a change happened. This sorts every
//! state-changing step that must be accepted by how its case shows the effect; `cargo test`
//! fails on a step that shows none (`crates/suite/src/catalog/requests_tests.rs`).

use std::collections::BTreeSet;

use super::loader::must_reject;
use super::model::{Case, Step};
use super::template::names_in_str;

/// How a case shows the effect of an accepted state-changing step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Effect {
    /// A `read_back` reads the resource after the step and asserts the effect (and what stays).
    ReadBack,
    /// A later step reads the resource the step changed, or a listing of it, and asserts
    /// something of the answer.
    ReadLater,
    /// The effect is a webhook delivery, which a later `deliveries` step waits for and asserts.
    Delivery,
    /// The step makes what the case tests with: a later step names what it saved (the created
    /// resource), and that step's own assertions need it to exist.
    Setup,
    /// The step's answer is the effect the contract states (a new signing secret, the answer
    /// of unassign), saved and used or asserted by the step itself.
    Answer,
    /// The effect is a count the case walks (a limit): the step is repeated until refused.
    Limit,
}

impl Effect {
    pub fn describe(self) -> &'static str {
        match self {
            Effect::ReadBack => "a read_back: read after the step, effect and kept fields asserted",
            Effect::ReadLater => "a later step reads the changed resource and asserts it",
            Effect::Delivery => "a later deliveries step waits for the event it causes",
            Effect::Setup => "setup: a later step works on what it created",
            Effect::Answer => "the answer is the stated effect, asserted by the step",
            Effect::Limit => "a limit: repeated until refused, counted from the workspace",
        }
    }
}

/// Whether `step` changes state on the target and must be accepted: the steps this audit is for.
/// Cleanup (`always`), controls and must-reject steps are not.
pub(crate) fn changes_state(step: &Step) -> bool {
    let Some(r) = &step.request else {
        return false;
    };
    r.method != "GET"
        && !r.path.starts_with("{{")
        && !step.always
        && step.control_of.is_none()
        && !step.expect.status.as_ref().is_some_and(must_reject)
        && !step
            .expect
            .status
            .as_ref()
            .is_some_and(|s| !s.allows(200) && !s.allows(201) && !s.allows(204))
}

/// Each accepted state-changing step of `case` (0-based index) with how the case shows its
/// effect, `None` when it does not. Generated cells and property trials are not listed: the
/// first test who may send a request, the second what a request may hold.
pub fn state_changes(case: &Case) -> Vec<(usize, Option<Effect>)> {
    let mut out = Vec::new();
    // Generated access cells test who may send a request, not what it does.
    if case.file.starts_with("schemas/") {
        return out;
    }
    for (i, step) in case.steps.iter().enumerate() {
        if !changes_state(step) || step.read_back_of.is_some() {
            continue;
        }
        out.push((i, effect_of(case, i)));
    }
    out
}

fn effect_of(case: &Case, i: usize) -> Option<Effect> {
    let step = &case.steps[i];
    let request = step.request.as_ref()?;
    let later = &case.steps[i + 1..];
    if later.iter().any(|s| s.read_back_of == Some(i)) {
        return Some(Effect::ReadBack);
    }
    if step.repeat.is_some() {
        return Some(Effect::Limit);
    }
    // The resource the step changed: its path (a transition's path less its verb), and what it
    // saved (a create's id).
    let resource = resource_of(&request.path);
    let saved: BTreeSet<&str> = step.save.iter().map(|(n, _)| n.as_str()).collect();
    let asserts = |s: &Step| {
        !s.expect.json.is_empty()
            || s.expect.page.is_some()
            || s.expect.error.is_some()
            || s.expect.status.is_some()
    };
    // Strings of the run the step wrote (`"{{run}} one recipient"`, `"{{run}}-exact"`): a later
    // read that filters for one or asserts one reads what the step wrote.
    let mut written = Vec::new();
    if let Some(b) = &request.body {
        strings_of_run(b, &mut written);
    }
    let mentions = |s: &Step| {
        let text = format!(
            "{:?} {:?} {:?}",
            s.request.as_ref().map(|r| &r.query),
            s.expect.json,
            s.expect.page
        );
        written.iter().any(|w| text.contains(w.as_str()))
            || saved.iter().any(|n| text.contains(&format!("{{{{{n}}}}}")))
    };
    let reads_it = later.iter().any(|s| {
        s.request.as_ref().is_some_and(|r| {
            if r.method != "GET" || !asserts(s) {
                return false;
            }
            let mut names = BTreeSet::new();
            names_in_str(&r.path, &mut names);
            for v in r.query.values() {
                super::template::names_in_value(v, &mut names);
            }
            r.path == resource
                || resource.starts_with(&format!("{}/", r.path))
                || r.path.starts_with(&format!("{resource}/"))
                || names.iter().any(|n| saved.contains(n.as_str()))
                || (s.expect.page.is_some() && same_collection(&r.path, &request.path))
                || mentions(s)
        })
    });
    if reads_it {
        return Some(Effect::ReadLater);
    }
    if later.iter().any(|s| s.deliveries.is_some()) {
        return Some(Effect::Delivery);
    }
    if step.secret.is_some() {
        return Some(Effect::Answer);
    }
    let uses_saved = later.iter().any(|s| {
        s.request.as_ref().is_some_and(|r| {
            let mut names = BTreeSet::new();
            names_in_str(&r.path, &mut names);
            if let Some(b) = &r.body {
                super::template::names_in_value(b, &mut names);
            }
            names.iter().any(|n| saved.contains(n.as_str()))
        })
    });
    if uses_saved {
        return Some(Effect::Setup);
    }
    None
}

/// The strings of `v` that carry the run id, as `Debug` writes them.
fn strings_of_run(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) if s.contains("{{run}}") => {
            out.push(format!("{s:?}"));
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| strings_of_run(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| strings_of_run(x, out)),
        _ => {}
    }
}

/// The resource a request addresses: a transition's path (`/v1/tasks/{{task}}/complete`) less
/// its verb; any other path as it is.
fn resource_of(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.last() {
        Some(last)
            if parts.len() > 3 && !last.contains("{{") && parts[parts.len() - 2].contains("{{") =>
        {
            parts[..parts.len() - 1].join("/")
        }
        _ => path.to_string(),
    }
}

/// Whether a listing at `list` is the collection `changed` belongs to (`/v1/tasks` for
/// `/v1/tasks/{{t}}/complete`).
fn same_collection(list: &str, changed: &str) -> bool {
    changed == list || changed.starts_with(&format!("{list}/"))
}
