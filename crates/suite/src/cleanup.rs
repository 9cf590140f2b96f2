//! Cleanup of what a run created, also after Ctrl-C.
//!
//! Every answer the executor receives is shown to [`Cleanup::observe`]: a `POST` answered 2xx with
//! an id whose resource path has a `DELETE` route in the route table (a task) is registered; a
//! `DELETE` of a registered path answered 2xx or 404 unregisters it (the case cleaned up itself).
//! A created resource without a delete endpoint (a contact) is listed as left: it carries the run
//! id. At the end of the run, or when it is interrupted, [`Cleanup::finish`] deletes what is still
//! registered and says what was removed and what could not be.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::client::{Auth, Client, Exchange, Outgoing};
use crate::results::Summary;
use conformance_contract::Api;
use conformance_contract::Contract;

/// What the run created and has not yet seen deleted.
pub struct Cleanup {
    contract: Arc<Contract>,
    run_id: String,
    /// Deletable resource paths, in creation order.
    created: Mutex<Vec<String>>,
    /// Created resources the API offers no delete for (path, run-tagged label).
    left: Mutex<Vec<String>>,
    /// Every resource path an answer of the run named as created, deleted or not.
    known: Mutex<std::collections::HashSet<String>>,
    /// Creates of a deletable resource that got no answer (path, body): each may have taken
    /// effect, so [`Cleanup::recover`] looks for what it made.
    lost: Mutex<Vec<(String, Value)>>,
    interrupted: AtomicBool,
    stop: tokio::sync::watch::Sender<bool>,
}

impl Cleanup {
    pub fn new(contract: Arc<Contract>, run_id: String) -> Cleanup {
        Cleanup {
            contract,
            run_id,
            created: Mutex::default(),
            left: Mutex::default(),
            known: Mutex::default(),
            lost: Mutex::default(),
            interrupted: AtomicBool::new(false),
            stop: tokio::sync::watch::Sender::new(false),
        }
    }

    /// Registers what an answer created, or forgets what it deleted.
    pub(crate) fn observe(&self, ex: &Exchange) {
        let Ok(resp) = &ex.outcome else {
            self.observe_lost(ex);
            return;
        };
        let path = ex.path.trim_end_matches('/');
        if ex.method.eq_ignore_ascii_case("DELETE") {
            if (200..300).contains(&resp.status) || resp.status == 404 {
                if let Ok(mut v) = self.created.lock() {
                    v.retain(|p| p != path);
                }
            }
            return;
        }
        if !ex.method.eq_ignore_ascii_case("POST") || !(200..300).contains(&resp.status) {
            return;
        }
        let Some(body) = resp.value() else {
            return;
        };
        if self.contract.route("POST", path).is_none() {
            self.observe_hook(ex);
            return;
        }
        let Some(id) = created_id(&self.contract, path, body) else {
            return;
        };
        let resource = format!("{path}/{id}");
        if self.contract.route("DELETE", &resource).is_some() {
            if let Ok(mut k) = self.known.lock() {
                k.insert(resource.clone());
            }
            if let Ok(mut v) = self.created.lock() {
                if !v.contains(&resource) {
                    v.push(resource);
                }
            }
        } else if ["GET", "PATCH", "PUT"]
            .iter()
            .any(|m| self.contract.route(m, &resource).is_some())
        {
            let tag = body
                .pointer("/data/externalId")
                .or_else(|| body.pointer("/externalId"))
                .and_then(Value::as_str)
                .map(|e| format!(" (externalId {e})"))
                .unwrap_or_default();
            if let Ok(mut v) = self.left.lock() {
                v.push(format!("{resource}{tag}"));
            }
        }
    }

    /// A create of a deletable resource that got no answer, with a body that carries the run id:
    /// kept, so that what it may have made is found by that tag.
    fn observe_lost(&self, ex: &Exchange) {
        // Only a connection lost after the request went out leaves the effect unknown: a
        // timeout is a target that stopped answering (the run's cleanup's), an answer too large
        // or cut short came from a target that did answer.
        if !matches!(
            ex.outcome,
            Err(crate::client::TransportError::ClosedBeforeAnswer(_)
                | crate::client::TransportError::Reset { received: None })
        ) {
            return;
        }
        let path = ex.path.trim_end_matches('/');
        if !ex.method.eq_ignore_ascii_case("POST")
            || self.contract.route("POST", path).is_none()
            || self
                .contract
                .route("GET", path)
                .is_none_or(|r| !r.list && !r.template.ends_with("webhooks"))
        {
            return;
        }
        let Some(body) = request_json(ex) else {
            return;
        };
        if !tags(&body, &self.run_id).is_empty() {
            if let Ok(mut lost) = self.lost.lock() {
                lost.push((path.to_string(), body));
            }
        }
    }

    /// Finds what the creates that got no answer made (READINGS 7.2: they may have taken
    /// effect): the items of their list that carry each run-tagged field of the lost body and
    /// that no answer of the run named. Each is registered as created, so that it is deleted
    /// like what the run made, and its path given back. `list` sends one read and gives its
    /// answer's body. A lost create whose item the list does not show is left alone (nothing is
    /// known of it): each is looked for once, by the release of the trial that lost it.
    pub(crate) async fn recover<F, Fut>(&self, list: F) -> Vec<String>
    where
        F: Fn(Outgoing) -> Fut,
        Fut: std::future::Future<Output = Option<Value>>,
    {
        let lost: Vec<(String, Value)> = self
            .lost
            .lock()
            .map(|mut l| std::mem::take(&mut *l))
            .unwrap_or_default();
        let mut found = Vec::new();
        for (path, body) in lost {
            let wanted = tags(&body, &self.run_id);
            let mut token: Option<String> = None;
            // Bounded: a list of 20 pages is read whole; a longer one is left to the end of the run.
            for _ in 0..20 {
                let mut out = delete(&path);
                out.method = "GET".into();
                if let Some(t) = &token {
                    out.query.push(("pageToken".into(), t.clone()));
                }
                let Some(page) = list(out).await else { break };
                let items = page
                    .get("data")
                    .and_then(Value::as_array)
                    .or_else(|| page.as_array())
                    .cloned()
                    .unwrap_or_default();
                for item in items {
                    let Some(id) = item.get("id").and_then(|v| match v {
                        Value::String(s) => Some(s.clone()),
                        Value::Number(n) => Some(n.to_string()),
                        _ => None,
                    }) else {
                        continue;
                    };
                    let resource = format!("{path}/{id}");
                    let known = self.known.lock().is_ok_and(|k| k.contains(&resource));
                    let fits = wanted
                        .iter()
                        .all(|(pointer, v)| item.pointer(pointer) == Some(v));
                    if !known && fits && self.contract.route("DELETE", &resource).is_some() {
                        if let Ok(mut k) = self.known.lock() {
                            k.insert(resource.clone());
                        }
                        if let Ok(mut v) = self.created.lock() {
                            v.push(resource.clone());
                        }
                        found.push(resource);
                    }
                }
                token = page
                    .get("nextPageToken")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if token.is_none() {
                    break;
                }
            }
        }
        found
    }

    /// A contact the activity hook deleted (docs/reference.md, "Simulated activity") is no longer left.
    fn observe_hook(&self, ex: &Exchange) {
        let Some(body) = request_json(ex) else {
            return;
        };
        if body["kind"] != "delete-contact" {
            return;
        }
        if let (Some(id), Ok(mut left)) = (body["contactId"].as_str(), self.left.lock()) {
            let resource = format!("/v1/contacts/{id}");
            left.retain(|l| l != &resource && !l.starts_with(&format!("{resource} ")));
        }
    }

    /// Paths registered and not yet deleted.
    pub(crate) fn pending(&self) -> Vec<String> {
        self.created.lock().map(|v| v.clone()).unwrap_or_default()
    }

    /// Stops the run: no new case starts, running ones end at their next await.
    pub fn interrupt(&self) {
        self.interrupted.store(true, Ordering::SeqCst);
        self.stop.send_replace(true);
    }

    pub fn is_interrupted(&self) -> bool {
        self.interrupted.load(Ordering::SeqCst)
    }

    /// Resolves once the run is interrupted.
    pub async fn interrupted(&self) {
        let mut rx = self.stop.subscribe();
        let _ = rx.wait_for(|stopped| *stopped).await;
    }

    /// What the summary would say if the cleanup never ran: every registered resource is not
    /// (yet) removed. The reports written before the cleanup carry it, so a run killed during
    /// the cleanup still says what may be left.
    pub fn pending_summary(&self) -> Summary {
        Summary {
            run_id: self.run_id.clone(),
            not_removed: self
                .pending()
                .into_iter()
                .rev()
                .map(|p| format!("{p}: the cleanup had not run when this report was written"))
                .collect(),
            left: self.left.lock().map(|v| v.clone()).unwrap_or_default(),
            ..Summary::default()
        }
    }

    /// Deletes every registered resource, [`CLEANUP_CONCURRENCY`] at a time, within
    /// [`cleanup_bound`] in all, and says what happened. Once a delete gets no answer (a silent
    /// target), no further delete starts: each would only wait out its own timeout.
    pub async fn finish(&self, client: &Arc<Client>) -> Summary {
        let pending: Vec<String> = self
            .created
            .lock()
            .map(|mut v| std::mem::take(&mut *v))
            .unwrap_or_default();
        let summary = Arc::new(Mutex::new(Summary {
            run_id: self.run_id.clone(),
            left: self.left.lock().map(|v| v.clone()).unwrap_or_default(),
            ..Summary::default()
        }));
        let record = |summary: &Mutex<Summary>, f: &dyn Fn(&mut Summary)| {
            if let Ok(mut s) = summary.lock() {
                f(&mut s);
            }
        };
        // Newest first: a resource created from another goes before it.
        let queue: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(pending.clone()));
        let started: Arc<Mutex<Vec<String>>> = Arc::default();
        let silent = Arc::new(AtomicBool::new(false));
        let mut workers = tokio::task::JoinSet::new();
        for _ in 0..CLEANUP_CONCURRENCY.min(pending.len()) {
            let (queue, started, silent) = (queue.clone(), started.clone(), silent.clone());
            let (client, summary) = (client.clone(), summary.clone());
            workers.spawn(async move {
                loop {
                    if silent.load(Ordering::SeqCst) {
                        break;
                    }
                    let Some(path) = queue.lock().ok().and_then(|mut q| q.pop()) else {
                        break;
                    };
                    if let Ok(mut s) = started.lock() {
                        s.push(path.clone());
                    }
                    let ex = client.send(&delete(&path)).await;
                    let done = path.clone();
                    match &ex.outcome {
                        Ok(r) if (200..300).contains(&r.status) => {
                            record(&summary, &|s| s.removed.push(done.clone()))
                        }
                        Ok(r) if r.status == 404 || r.status == 410 => {
                            record(&summary, &|s| s.already_gone.push(done.clone()))
                        }
                        Ok(r) => record(&summary, &|s| {
                            s.not_removed
                                .push(format!("{done}: DELETE answered {}", r.status))
                        }),
                        Err(e) => {
                            silent.store(true, Ordering::SeqCst);
                            record(&summary, &|s| s.not_removed.push(format!("{done}: {e}")))
                        }
                    }
                }
            });
        }
        let bound = cleanup_bound(client.timeout());
        let in_time = tokio::time::timeout(bound, async {
            while workers.join_next().await.is_some() {}
        })
        .await
        .is_ok();
        // Whatever did not finish in time is aborted and said so.
        workers.abort_all();
        let mut summary = summary.lock().map(|s| s.clone()).unwrap_or_default();
        let accounted: Vec<String> = summary
            .removed
            .iter()
            .chain(&summary.already_gone)
            .cloned()
            .chain(
                summary
                    .not_removed
                    .iter()
                    .map(|n| n.split(": ").next().unwrap_or(n).to_string()),
            )
            .collect();
        let started = started.lock().map(|s| s.clone()).unwrap_or_default();
        for path in pending.iter().rev() {
            if accounted.contains(path) {
                continue;
            }
            let why = if started.contains(path) {
                format!(
                    "no answer within the cleanup's bound of {} s",
                    bound.as_secs_f64()
                )
            } else if silent.load(Ordering::SeqCst) {
                "not tried: the target did not answer an earlier delete".to_string()
            } else if !in_time {
                format!(
                    "not tried within the cleanup's bound of {} s",
                    bound.as_secs_f64()
                )
            } else {
                "not tried".to_string()
            };
            summary.not_removed.push(format!("{path}: {why}"));
        }
        summary
    }
}

/// Deletes the cleanup runs at the same time.
pub(crate) const CLEANUP_CONCURRENCY: usize = 8;

/// The longest the whole cleanup takes: three request timeouts (each delete is bounded by one,
/// a silent target stops new deletes after its first), at least one second.
/// The id of what a successful `POST {path}` created, as its answer gives it: under the name
/// of the item route's parameter (`/v1/tasks/{taskId}`: `taskId`), or under `id`, at the top
/// or under `data`.
pub(crate) fn created_id(contract: &Contract, path: &str, body: &Value) -> Option<String> {
    let post = contract.route("POST", path)?;
    let prefix = format!("{}/{{", post.template.trim_end_matches('/'));
    let mut names: Vec<String> = contract
        .routes
        .iter()
        .filter_map(|r| r.template.strip_prefix(&prefix))
        .filter_map(|rest| rest.strip_suffix('}'))
        .filter(|name| !name.contains('/'))
        .map(str::to_string)
        .collect();
    names.push("id".into());
    names
        .iter()
        .flat_map(|n| [format!("/data/{n}"), format!("/{n}")])
        .find_map(|pointer| match body.pointer(&pointer) {
            Some(Value::String(s)) if !s.is_empty() && !s.contains('/') => Some(s.clone()),
            Some(Value::Number(n)) => Some(n.to_string()),
            _ => None,
        })
}

pub fn cleanup_bound(timeout: std::time::Duration) -> std::time::Duration {
    (timeout * 3).max(std::time::Duration::from_secs(1))
}

/// The JSON body `ex` sent, if it sent one.
fn request_json(ex: &Exchange) -> Option<Value> {
    serde_json::from_str(ex.request_body.as_deref()?).ok()
}

/// The top-level string fields of a request body that carry the run id (a label, a title, a
/// URL), as pointers with their values.
fn tags(body: &Value, run_id: &str) -> Vec<(String, Value)> {
    body.as_object()
        .into_iter()
        .flatten()
        .filter(|(_, v)| v.as_str().is_some_and(|s| s.contains(run_id)))
        .map(|(k, v)| {
            (
                format!("/{}", k.replace('~', "~0").replace('/', "~1")),
                v.clone(),
            )
        })
        .collect()
}

/// The `DELETE` of a registered resource, with the version header of its generation.
pub(crate) fn delete(path: &str) -> Outgoing {
    let headers = Api::of_path(path).headers();
    Outgoing {
        method: "DELETE".into(),
        path: path.to_string(),
        query: vec![],
        headers,
        body: None,
        raw_body: None,
        auth: Auth::Primary,
    }
}
