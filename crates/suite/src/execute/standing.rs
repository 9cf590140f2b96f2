//! What a trial created of a counted state (webhooks, open tasks) and has not deleted: the plan
//! lets trials hold these side by side within a budget, counting what a trial holds until it
//! ends, so the executor deletes them when the trial ends ([`super::Executor::release`]), not
//! at the end of the run. Kept per trial (a task-local list fed by every answer the trial's
//! requests get); what a once-per-run setup made is taken out, since later trials use it.

use std::cell::RefCell;

use conformance_contract::Contract;

use crate::cases::State;
use crate::client::Exchange;

tokio::task_local! {
    static MADE: RefCell<Vec<String>>;
}

/// Runs `fut` (one trial) with its own list.
pub(super) async fn scope<F: std::future::Future>(fut: F) -> F::Output {
    MADE.scope(RefCell::new(Vec::new()), fut).await
}

/// Adds what `ex` created of a counted state to the trial's list, or takes out what it
/// deleted. Outside a trial (discovery, the cleanup) nothing is kept.
pub(super) fn observe(contract: &Contract, ex: &Exchange) {
    let Ok(resp) = &ex.outcome else { return };
    let path = ex.path.trim_end_matches('/');
    if ex.method.eq_ignore_ascii_case("DELETE") {
        if (200..300).contains(&resp.status) || resp.status == 404 {
            let _ = MADE.try_with(|m| m.borrow_mut().retain(|p| p != path));
        }
        return;
    }
    if !ex.method.eq_ignore_ascii_case("POST") || !(200..300).contains(&resp.status) {
        return;
    }
    let Some(route) = contract.route("POST", path) else {
        return;
    };
    if !State::ALL.iter().any(|s| s.added_by(route)) {
        return;
    }
    let Some(id) = resp
        .value()
        .and_then(|b| crate::cleanup::created_id(contract, path, b))
    else {
        return;
    };
    let resource = format!("{path}/{id}");
    if contract.route("DELETE", &resource).is_none() {
        return;
    }
    let _ = MADE.try_with(|m| {
        let mut m = m.borrow_mut();
        if !m.contains(&resource) {
            m.push(resource);
        }
    });
}

/// How long the trial's list is now.
pub(super) fn mark() -> usize {
    MADE.try_with(|m| m.borrow().len()).unwrap_or(0)
}

/// Takes out what was added since `mark`.
pub(super) fn forget_since(mark: usize) {
    let _ = MADE.try_with(|m| m.borrow_mut().truncate(mark));
}

/// The trial's list, emptied.
pub(super) fn take() -> Vec<String> {
    MADE.try_with(|m| std::mem::take(&mut *m.borrow_mut()))
        .unwrap_or_default()
}
