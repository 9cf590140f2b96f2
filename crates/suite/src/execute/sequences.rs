//! Runs random sequences (`cases::sequence`): each step becomes its requests on the run's own
//! resources, followed by a read of what it changed. Every answer goes through the generic checks
//! and the model (which judges every read against what the run set), and each step's request,
//! one the contract allows, must be accepted. A failing sequence is shrunk (proptest-state-machine
//! drops and simplifies steps; each try runs the shorter sequence on fresh resources, a bounded
//! number of times) and reported as numbered steps, each with its curl; the seed replays it.

use std::sync::Arc;

use proptest::strategy::{Strategy, ValueTree};
use proptest_state_machine::ReferenceStateMachine;
use serde_json::{Value, json};

use super::Executor;
use super::search::runner_for;
use crate::cases::Case;
use crate::cases::properties::generate::e164;
use crate::cases::sequence::{ContactFilter, Link, Machine, STEPS, Step};
use crate::cases::template::Vars;
use crate::client::{Auth, Exchange, Outgoing};
use crate::redact::Redactor;
use crate::results::{Failure, Finding};
use conformance_contract::Api;

/// Shorter sequences tried after one fails.
const MAX_SHRINK_RUNS: usize = 12;
/// Pages a list walk of a sequence reads at most.
const MAX_PAGES: usize = 5;

type Found = Vec<(Finding, Arc<Exchange>)>;

/// Runs `depth` sequences of the trial; the failures of the first that fails, shrunk.
pub(super) async fn run(
    exec: &Executor,
    case: &Case,
    vars: &Vars,
    depth: u32,
    exchanges: &mut Vec<Arc<Exchange>>,
) -> Vec<Failure> {
    let mut world = World::new(exec, vars, &case.name);
    let mut runner = runner_for(exec.seed, &case.name);
    let strategy = Machine::sequential_strategy(STEPS);
    for round in 0..depth.max(1) {
        let Ok(mut tree) = strategy.new_tree(&mut runner) else {
            break;
        };
        let (_, steps, _) = tree.current();
        let first = world.replay(exec, &steps, round, 0).await;
        exchanges.extend(first.exchanges.iter().cloned());
        if first.found.is_empty() {
            continue;
        }
        // Shrink: a shorter sequence that still fails replaces the one we have.
        let mut best = (steps, first);
        let mut passed_last = false;
        for attempt in 1..=MAX_SHRINK_RUNS {
            let moved = if passed_last {
                tree.complicate()
            } else {
                tree.simplify()
            };
            if !moved {
                break;
            }
            let (_, steps, _) = tree.current();
            let tried = world.replay(exec, &steps, round, attempt).await;
            exchanges.extend(tried.exchanges.iter().cloned());
            passed_last = tried.found.is_empty();
            if !passed_last && steps.len() <= best.0.len() {
                best = (steps, tried);
            }
        }
        return failures(best.1, exec.seed, &exec.run_id);
    }
    Vec::new()
}

/// The findings of the minimal failing sequence, each saying which sequence it was: its steps,
/// numbered, each request with its curl, and how to replay it.
fn failures(replay: Replay, seed: u64, run: &str) -> Vec<Failure> {
    let redactor = Redactor::global();
    let mut listing = String::new();
    for (n, (step, exs)) in replay.steps.iter().enumerate() {
        listing.push_str(&format!("\n  {}. {step}", n + 1));
        for ex in exs {
            listing.push_str(&format!("\n       {}", ex.curl(&redactor)));
        }
    }
    let note = format!(
        "in a random sequence of {}, shrunk (replay: --seed {seed} --run-id {run}):{listing}",
        crate::results::plural(replay.steps.len(), "step")
    );
    let steps = replay.steps.len().max(1);
    replay
        .found
        .into_iter()
        .map(|(mut finding, ex)| {
            finding.context = Some(note.clone());
            Failure {
                finding,
                step: steps,
                steps,
                exchange: Some(ex),
                cause: None,
            }
        })
        .collect()
}

/// One run of a sequence: what each step sent, and what was found.
struct Replay {
    steps: Vec<(String, Vec<Arc<Exchange>>)>,
    exchanges: Vec<Arc<Exchange>>,
    found: Found,
}

/// A task the sequence created, as the sequence itself follows it (to send only requests the
/// contract allows: unassign an assigned user, unlink a linked conversation).
#[derive(Default, Clone)]
struct LiveTask {
    id: Option<String>,
    /// In the order assigned.
    assigned: Vec<String>,
    linked: bool,
    due: bool,
    completed: bool,
    deleted: bool,
}

#[derive(Default, Clone)]
struct LiveContact {
    id: Option<String>,
    external_id: String,
    source: String,
}

/// What a sequence works with: the profile's fixtures, the users the target showed, and the
/// resources of the replay running now.
struct World {
    run: String,
    /// The trial's name: its slot at the receiver.
    case: String,
    /// The start of this replay's receiver sub-paths, distinct between replays.
    hooks_prefix: String,
    /// The replay's watcher webhooks (`World::watch`).
    watchers: Vec<Option<String>>,
    /// The trial's own part of the names it gives (external ids), distinct between trials.
    trial: String,
    users: Vec<String>,
    fixtures: Vars,
    tasks: Vec<LiveTask>,
    contacts: Vec<LiveContact>,
    messages: Vec<Option<String>>,
    webhooks: Vec<(Option<String>, bool)>,
}

impl World {
    fn new(exec: &Executor, vars: &Vars, case: &str) -> World {
        World {
            run: exec.run_id.clone(),
            case: case.to_string(),
            hooks_prefix: String::new(),
            watchers: Vec::new(),
            trial: case.rsplit('.').next().unwrap_or("").to_string(),
            users: Vec::new(),
            fixtures: vars.clone(),
            tasks: Vec::new(),
            contacts: Vec::new(),
            messages: Vec::new(),
            webhooks: Vec::new(),
        }
    }

    /// A key the profile gives that the target shows to be of another workspace than the run's
    /// key, with its fixture's name. A key fixture's documentation names a workspace by a
    /// setting, not as another one: the run's own key may be given for it (READINGS 6.11), so
    /// only a key whose organization `GET /organization` shows to differ is taken for another
    /// workspace's; where the target does not say, no key is.
    async fn foreign_key(&self, exec: &Executor) -> Option<(String, &'static str)> {
        let workspaces = exec.workspaces().await;
        [
            "international_disabled_api_key",
            "subscription_expired_api_key",
        ]
        .into_iter()
        .filter(|f| workspaces.same(None, Some(f)) == Some(false))
        .find_map(|f| self.text(f).filter(|k| !k.is_empty()).map(|k| (k, f)))
    }

    /// Whether the run's own workspace is the one whose subscription has expired (the profile
    /// gives its key as `subscription_expired_api_key`, or the target shows them of one
    /// workspace): a message it sends is refused 402, so the sequence sends none.
    async fn cannot_send(&self, exec: &Executor) -> bool {
        self.fixtures.get("subscription_expired_api_key").is_some()
            && exec
                .workspaces()
                .await
                .same(None, Some("subscription_expired_api_key"))
                == Some(true)
    }

    /// After the run's key read `path` (a message the sequence sent), a key the target shows to
    /// be of another workspace, where the profile gives one, must not read it: the message is
    /// of a number of the run's workspace (Authentication 3: a caller without access is
    /// refused; 404 hides it too).
    async fn foreign_read(&self, s: &mut Sender<'_>, path: &str) {
        let Some((key, fixture)) = self.foreign_key(s.exec).await else {
            return;
        };
        let mut out = request("GET", path, &[], None);
        out.auth = Auth::Key {
            key,
            label: format!("<{}>", fixture.to_ascii_uppercase()),
        };
        let ex = s.send(out, "Authentication > 3", false).await;
        if let Ok(resp) = &ex.outcome {
            if (200..300).contains(&resp.status) {
                s.found.push((
                    Finding::new(
                        "Authentication > 3",
                        "status",
                        format!(
                            "a refusal (403, or 404): the key of another workspace ({fixture}, whose organization GET /organization shows to differ from the run's key's) has no access to a resource the run's key created"
                        ),
                        resp.status.to_string(),
                    )
                    .status_class("4xx"),
                    ex.clone(),
                ));
            }
        }
    }

    fn text(&self, name: &str) -> Option<String> {
        match self.fixtures.get(name)? {
            Value::String(s) => Some(s.clone()),
            _ => None,
        }
    }

    /// Keeps the users the target shows in `ex` (the first page of `GET /users`), else the
    /// profile's user.
    fn users(&mut self, ex: &Exchange) {
        if let Ok(resp) = &ex.outcome {
            if let Some(Ok(body)) = &resp.json {
                if let Some(items) = body.get("data").and_then(Value::as_array) {
                    self.users = items
                        .iter()
                        .filter_map(|u| u.get("id").and_then(Value::as_str).map(str::to_string))
                        .collect();
                }
            }
        }
        if self.users.is_empty() {
            self.users.extend(self.text("user_id"));
        }
    }

    async fn replay(
        &mut self,
        exec: &Executor,
        steps: &[Step],
        round: u32,
        attempt: usize,
    ) -> Replay {
        self.tasks.clear();
        self.contacts.clear();
        self.messages.clear();
        self.webhooks.clear();
        self.hooks_prefix = format!("r{round}a{attempt}");
        let tag = format!("{}-sq{}-{round}-{attempt}", self.run, self.trial);
        let (mut replay, model) = crate::checks::rules::collect(async {
            let mut replay = Replay {
                steps: Vec::new(),
                exchanges: Vec::new(),
                found: Vec::new(),
            };
            if let Some((what, exs, found)) = self.watch(exec).await {
                replay.exchanges.extend(exs.iter().cloned());
                replay.found.extend(found);
                replay.steps.push((what, exs));
            }
            for step in steps {
                let (what, exs, found) = self.step(exec, step, &tag).await;
                replay.exchanges.extend(exs.iter().cloned());
                replay.found.extend(found);
                replay.steps.push((what, exs));
            }
            // The closing changes: every user the sequence assigned and did not unassign is
            // unassigned (each read back: the model holds what is left); the second watcher is
            // deleted, then the tasks the sequence left: their events must reach the first
            // watcher and not the deleted one.
            // Round after round, each task's first user left is unassigned, the tasks together,
            // and each read back.
            let mut s = Sender::new(exec);
            loop {
                let round: Vec<(String, String)> = self
                    .tasks
                    .iter_mut()
                    .filter(|t| !t.deleted)
                    .filter_map(|t| {
                        let id = t.id.clone()?;
                        (!t.assigned.is_empty()).then(|| (id, t.assigned.remove(0)))
                    })
                    .collect();
                if round.is_empty() {
                    break;
                }
                let posts = round
                    .iter()
                    .map(|(id, user)| {
                        request(
                            "POST",
                            &format!("/v1/tasks/{id}/unassign"),
                            &[],
                            Some(json!({"userId": user})),
                        )
                    })
                    .collect();
                s.send_all(posts, "v1 API: tasks > POST /v1/tasks/{taskId}/unassign")
                    .await;
                let ids: Vec<&str> = round.iter().map(|(id, _)| id.as_str()).collect();
                s.read_tasks(&ids).await;
            }
            if !s.exchanges.is_empty() {
                replay.exchanges.extend(s.exchanges.iter().cloned());
                replay.found.extend(s.found);
                replay.steps.push((
                    "unassign every user the sequence assigned and left assigned".into(),
                    s.exchanges,
                ));
            }
            // The watcher goes first; then the tasks, together.
            let mut watcher = Vec::new();
            if let Some(id) = self.watchers.get(1).cloned().flatten() {
                watcher.push(request("DELETE", &format!("/webhooks/{id}"), &[], None));
            }
            let tasks: Vec<Outgoing> = self
                .tasks
                .iter()
                .filter(|t| !t.deleted)
                .filter_map(|t| t.id.as_ref())
                .map(|id| request("DELETE", &format!("/v1/tasks/{id}"), &[], None))
                .collect();
            if !watcher.is_empty() || !tasks.is_empty() {
                let exs = self
                    .tidy(exec, vec![watcher, tasks], &mut replay.found)
                    .await;
                replay.exchanges.extend(exs.iter().cloned());
                replay.steps.push((
                    "delete the second watcher, then the tasks the sequence left".into(),
                    exs,
                ));
            }
            // The deliveries the changes must cause, and must not, at the webhooks the sequence
            // created; then the records of the webhooks' history that name them.
            let (found, exs) = self.deliveries(exec, &replay.exchanges).await;
            replay.found.extend(found);
            if !exs.is_empty() {
                replay.exchanges.extend(exs.iter().cloned());
                replay
                    .steps
                    .push(("read the delivery history of the webhooks".into(), exs));
            }
            // The webhooks the sequence made and did not delete go now: the counted states
            // (open tasks, webhooks) are back where they were for the trials that follow.
            let mut tidy = Vec::new();
            if let Some(Some(id)) = self.watchers.first() {
                tidy.push(request("DELETE", &format!("/webhooks/{id}"), &[], None));
            }
            for (id, deleted) in &self.webhooks {
                if let (Some(id), false) = (id, deleted) {
                    tidy.push(request("DELETE", &format!("/webhooks/{id}"), &[], None));
                }
            }
            self.watchers.clear();
            let exs = self.tidy(exec, vec![tidy], &mut replay.found).await;
            replay.exchanges.extend(exs);
            replay
        })
        .await;
        replay.found.extend(model);
        replay
    }

    /// Sends requests that tidy up, held to the generic checks only: group after group, the
    /// requests of a group together (they do not depend on one another).
    async fn tidy(
        &self,
        exec: &Executor,
        groups: Vec<Vec<Outgoing>>,
        found: &mut Found,
    ) -> Vec<Arc<Exchange>> {
        let mut exs = Vec::new();
        for group in groups.into_iter().filter(|g| !g.is_empty()) {
            let sent = futures_util::future::join_all(group.iter().map(|out| exec.send(out))).await;
            for judged in sent {
                let (ex, by_rules) = judged.into_parts();
                found.extend(by_rules.into_iter().map(|f| (f, ex.clone())));
                exs.push(ex);
            }
        }
        exs
    }

    /// Judges the deliveries of the replay's webhooks (`execute::deliveries`) and the records
    /// of their history.
    async fn deliveries(
        &self,
        exec: &Executor,
        exchanges: &[Arc<Exchange>],
    ) -> (Found, Vec<Arc<Exchange>>) {
        let (Some(receiver), Some(base)) = (&exec.receiver, self.text("webhook_url")) else {
            return (Vec::new(), Vec::new());
        };
        let _ = exchanges;
        let webhooks: Vec<String> = self
            .watchers
            .iter()
            .flatten()
            .chain(self.webhooks.iter().filter_map(|(id, _)| id.as_ref()))
            .cloned()
            .collect();
        let resources: std::collections::BTreeSet<(String, String)> = self
            .tasks
            .iter()
            .filter_map(|t| t.id.clone().map(|id| ("task".to_string(), id)))
            .chain(
                self.contacts
                    .iter()
                    .filter_map(|c| c.id.clone().map(|id| ("contact".to_string(), id))),
            )
            .collect();
        let predicted = super::deliveries::predict(exec.model(), &base, &webhooks, &resources);
        if predicted.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let mut found = predicted
            .judge(receiver, &exec.run_id, &self.case, exec.bounds().delivery)
            .await;
        let mut s = Sender::new(exec);
        // The histories are read together.
        let histories = predicted.received(receiver, &exec.run_id, &self.case);
        let reads = histories
            .iter()
            .map(|h| request("GET", &format!("/webhooks/{}/events", h.webhook), &[], None))
            .collect();
        let exs = s
            .send_all(reads, "Header-versioned API > webhook delivery history")
            .await;
        for (history, ex) in histories.iter().zip(exs) {
            if let Ok(resp) = &ex.outcome {
                if let (true, Some(Ok(body))) = ((200..300).contains(&resp.status), &resp.json) {
                    found.extend(
                        super::deliveries::judge_records(body, history)
                            .into_iter()
                            .map(|f| (f, ex.clone())),
                    );
                }
            }
        }
        found.extend(s.found);
        (found, s.exchanges)
    }

    /// Creates the replay's two watchers: webhooks on every task event of every number, so that
    /// the model has deliveries to predict whatever the steps are. The second is deleted before
    /// the sequence's closing changes, whose events it must then not receive.
    async fn watch(&mut self, exec: &Executor) -> Option<(String, Vec<Arc<Exchange>>, Found)> {
        let mut s = Sender::new(exec);
        // The first replay reads the users the steps may assign, beside the watchers' creates
        // (neither depends on the other).
        let users = self.users.is_empty().then_some(async {
            let out = request("GET", "/users", &[("maxResults", "50".into())], None);
            // Judged as every exchange is: what the rules find on it joins the replay at its end.
            exec.send(&out).await.ex.clone()
        });
        // Without a receiver there is nothing to watch: no webhook is created.
        let url = self.text("webhook_url");
        let (prefix, run) = (&self.hooks_prefix, &self.run);
        let creates: Vec<Outgoing> = url
            .iter()
            .flat_map(|url| {
                (0..2).map(move |n| {
                    let body = json!({
                        "url": format!("{url}/{prefix}watch{n}"),
                        "events": crate::cases::sequence::TASK_EVENTS,
                        "resourceIds": ["*"],
                        "label": format!("{run} sequence watcher {n}"),
                    });
                    request("POST", "/webhooks", &[], Some(body))
                })
            })
            .collect();
        // All together: none depends on another.
        let (users, created) = tokio::join!(
            futures_util::future::OptionFuture::from(users),
            s.send_all(creates, "Header-versioned API > POST /webhooks")
        );
        if url.is_some() {
            self.watchers = created.iter().map(|ex| created_id(ex, "id")).collect();
        }
        let mut what = Vec::new();
        if let Some(ex) = users {
            self.users(&ex);
            s.exchanges.insert(0, ex);
            what.push("read the users");
        }
        if url.is_some() {
            what.push(
                "create two webhooks on every task event of every number (\"*\"), to watch the deliveries",
            );
        }
        (!what.is_empty()).then(|| (what.join("; "), s.exchanges, s.found))
    }

    /// Runs one step: a description, its exchanges and what they showed wrong.
    async fn step(
        &mut self,
        exec: &Executor,
        step: &Step,
        tag: &str,
    ) -> (String, Vec<Arc<Exchange>>, Found) {
        let mut s = Sender::new(exec);
        let what = self.act(&mut s, step, tag).await;
        (what, s.exchanges, s.found)
    }

    fn user(&self, i: usize) -> Option<String> {
        (!self.users.is_empty()).then(|| self.users[i % self.users.len()].clone())
    }

    /// Runs one step of a sequence and says what it did.
    async fn act(&mut self, s: &mut Sender<'_>, step: &Step, tag: &str) -> String {
        match step {
            Step::CreateTask { .. }
            | Step::PutTask { .. }
            | Step::CompleteTask(_)
            | Step::ReopenTask(_)
            | Step::Assign { .. }
            | Step::Unassign { .. } => self.task_step(s, step).await,
            Step::ChangeDueDate { .. }
            | Step::RemoveDueDate(_)
            | Step::LinkConversation(_)
            | Step::UnlinkConversation(_)
            | Step::DeleteTask(_)
            | Step::ListTasks => self.task_date_link_step(s, step).await,
            Step::CreateContact { .. } | Step::PatchContact { .. } => {
                self.contact_step(s, step, tag).await
            }
            Step::ListContacts { contact, filter } => {
                self.list_contacts(s, *contact, *filter, tag).await
            }
            Step::SendMessage { .. } | Step::ReadMessage(_) | Step::ListMessages => {
                self.message_step(s, step).await
            }
            _ => self.webhook_step(s, step, tag).await,
        }
    }

    async fn task_step(&mut self, s: &mut Sender<'_>, step: &Step) -> String {
        match step {
            Step::CreateTask {
                link,
                title,
                description,
            } => {
                let mut body = json!({"title": title, "description": description});
                let (field, value) = match link {
                    Link::Conversation => (
                        "conversationId",
                        self.text("task_conversation_id")
                            .or_else(|| self.text("conversation_id")),
                    ),
                    Link::Activity => ("activityId", self.text("call_id")),
                    Link::PhoneNumber => ("phoneNumberId", None),
                };
                let (field, value) = match value {
                    Some(v) => (field, v),
                    None => (
                        "phoneNumberId",
                        self.text("phone_number_id").unwrap_or_default(),
                    ),
                };
                body[field] = json!(value);
                let ex = s
                    .send(
                        request("POST", "/v1/tasks", &[], Some(body)),
                        "v1 API: tasks > POST /v1/tasks",
                        true,
                    )
                    .await;
                let id = created_id(&ex, "taskId");
                self.tasks.push(LiveTask {
                    id: id.clone(),
                    linked: field == "conversationId",
                    ..LiveTask::default()
                });
                if let Some(id) = id {
                    s.read_task(&id).await;
                }
                format!("create a task linked by {field}")
            }
            Step::PutTask {
                task,
                title,
                description,
            } => {
                let body = json!({"title": title, "description": description});
                self.change(
                    s,
                    *task,
                    "PUT",
                    "",
                    Some(body),
                    "v1 API: tasks > PUT /v1/tasks/{taskId}",
                )
                .await;
                format!("PUT task {} with a new title and description", task + 1)
            }
            Step::CompleteTask(t) => {
                if self.tasks[*t].completed {
                    return format!("(task {} is completed already: nothing sent)", t + 1);
                }
                self.change(
                    s,
                    *t,
                    "POST",
                    "/complete",
                    None,
                    "States and transitions > Task > complete",
                )
                .await;
                self.tasks[*t].completed = true;
                format!("complete task {}", t + 1)
            }
            Step::ReopenTask(t) => {
                if !self.tasks[*t].completed {
                    return format!("(task {} is open: nothing sent)", t + 1);
                }
                self.change(
                    s,
                    *t,
                    "POST",
                    "/reopen",
                    None,
                    "States and transitions > Task > reopen",
                )
                .await;
                self.tasks[*t].completed = false;
                format!("reopen task {}", t + 1)
            }
            Step::Assign { task, users } => {
                let mut named = Vec::new();
                for u in users {
                    let Some(user) = self.user(*u) else {
                        continue;
                    };
                    if self.tasks[*task].assigned.contains(&user) {
                        continue;
                    }
                    self.change(
                        s,
                        *task,
                        "POST",
                        "/assign",
                        Some(json!({"userId": user})),
                        "States and transitions > Task > assign and unassign",
                    )
                    .await;
                    self.tasks[*task].assigned.push(user.clone());
                    named.push(user);
                }
                if named.is_empty() {
                    return format!(
                        "(no user left to assign to task {}: nothing sent)",
                        task + 1
                    );
                }
                format!("assign {} to task {}", named.join(", "), task + 1)
            }
            Step::Unassign { task, pick } => {
                let assigned = &self.tasks[*task].assigned;
                if assigned.is_empty() {
                    return format!("(nobody is assigned to task {}: nothing sent)", task + 1);
                }
                let user = assigned[pick % assigned.len()].clone();
                self.change(
                    s,
                    *task,
                    "POST",
                    "/unassign",
                    Some(json!({"userId": user})),
                    "v1 API: tasks > POST /v1/tasks/{taskId}/unassign",
                )
                .await;
                self.tasks[*task].assigned.retain(|u| *u != user);
                format!("unassign {user} from task {}", task + 1)
            }
            _ => unreachable!("task_step is given its own steps only"),
        }
    }

    async fn task_date_link_step(&mut self, s: &mut Sender<'_>, step: &Step) -> String {
        match step {
            Step::ChangeDueDate { task, due } => {
                // Timestamps are stated in UTC: a target may refuse another offset (400), and
                // one it accepts must mean the same instant (the model judges the read-back).
                s.expect = if due.ends_with('Z') {
                    Expect::Success
                } else {
                    Expect::SuccessOr400
                };
                let accepted = self
                    .change(
                        s,
                        *task,
                        "POST",
                        "/change-due-date",
                        Some(json!({"dueDate": due})),
                        "States and transitions > Task > due date",
                    )
                    .await;
                s.expect = Expect::Success;
                self.tasks[*task].due |= accepted;
                format!("set the due date of task {} to {due}", task + 1)
            }
            Step::RemoveDueDate(t) => {
                if !self.tasks[*t].due {
                    return format!("(task {} has no due date: nothing sent)", t + 1);
                }
                self.change(
                    s,
                    *t,
                    "POST",
                    "/remove-due-date",
                    None,
                    "States and transitions > Task > due date",
                )
                .await;
                self.tasks[*t].due = false;
                format!("remove the due date of task {}", t + 1)
            }
            Step::LinkConversation(t) => {
                let Some(c) = self
                    .text("task_conversation_id")
                    .or_else(|| self.text("conversation_id"))
                else {
                    return "(no conversation in the profile: nothing sent)".into();
                };
                if self.tasks[*t].linked {
                    return format!("(task {} is linked already: nothing sent)", t + 1);
                }
                self.change(
                    s,
                    *t,
                    "POST",
                    "/link-conversation",
                    Some(json!({"conversationId": c})),
                    "States and transitions > Task > link conversation",
                )
                .await;
                self.tasks[*t].linked = true;
                format!("link task {} to conversation {c}", t + 1)
            }
            Step::UnlinkConversation(t) => {
                let Some(c) = self
                    .text("task_conversation_id")
                    .or_else(|| self.text("conversation_id"))
                else {
                    return "(no conversation in the profile: nothing sent)".into();
                };
                if !self.tasks[*t].linked {
                    return format!("(task {} is not linked: nothing sent)", t + 1);
                }
                self.change(
                    s,
                    *t,
                    "POST",
                    "/unlink-conversation",
                    Some(json!({"conversationId": c})),
                    "States and transitions > Task > link conversation",
                )
                .await;
                self.tasks[*t].linked = false;
                format!("unlink task {} from conversation {c}", t + 1)
            }
            Step::DeleteTask(t) => {
                self.change(
                    s,
                    *t,
                    "DELETE",
                    "",
                    None,
                    "States and transitions > Task > delete",
                )
                .await;
                self.tasks[*t].deleted = true;
                format!("delete task {}", t + 1)
            }
            Step::ListTasks => {
                s.walk("/v1/tasks", &[], "v1 API: tasks > GET /v1/tasks")
                    .await;
                "list the tasks".into()
            }
            _ => unreachable!("task_date_link_step is given its own steps only"),
        }
    }

    async fn contact_step(&mut self, s: &mut Sender<'_>, step: &Step, tag: &str) -> String {
        match step {
            Step::CreateContact {
                first,
                last,
                company,
                emails,
                phones,
            } => {
                let n = self.contacts.len();
                // Letters of both cases: a filter by the id in other letter case must not match.
                let external_id = format!("{tag}-Ct{n}");
                let source = format!("{}-seq", self.run);
                let mut defaults = contact_fields(first, last, emails, phones);
                if let Some(c) = company {
                    defaults["company"] = json!(c);
                }
                let body =
                    json!({"defaultFields": defaults, "externalId": external_id, "source": source});
                let ex = s
                    .send(
                        request("POST", "/v1/contacts", &[], Some(body)),
                        "v1 API: contacts > POST /v1/contacts",
                        true,
                    )
                    .await;
                let id = created_id(&ex, "id");
                // The source the target shows for it, which may be its own (READINGS 1.3).
                let shown = ex
                    .outcome
                    .as_ref()
                    .ok()
                    .and_then(|r| r.json.as_ref())
                    .and_then(|j| j.as_ref().ok())
                    .and_then(|b| b.pointer("/data/source"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                self.contacts.push(LiveContact {
                    id: id.clone(),
                    external_id,
                    source: shown.unwrap_or(source),
                });
                // Read back, and every list of the kind shows it as the model knows it: by its
                // external id, and under a source filter it must not match. The four reads
                // together (none changes anything: behind a slow network one round trip, not
                // four), their exchanges kept in this order.
                let (mut read, mut by_id, mut by_source, mut by_case) =
                    (s.beside(), s.beside(), s.beside(), s.beside());
                let this = &*self;
                let read_back = async {
                    if let Some(id) = &id {
                        read.read(
                            &format!("/contacts/{id}"),
                            "Header-versioned API > GET /contacts/{contactId}",
                        )
                        .await;
                    }
                };
                tokio::join!(
                    read_back,
                    this.list_contacts(&mut by_id, n, ContactFilter::ExternalId, tag),
                    this.list_contacts(&mut by_source, n, ContactFilter::SourcePrefix, tag),
                    this.list_contacts(&mut by_case, n, ContactFilter::V1ExternalIdsOtherCase, tag),
                );
                for other in [read, by_id, by_source, by_case] {
                    s.absorb(other);
                }
                format!(
                    "create contact {} (then read it, list it by externalId, by a prefix of its source and by its externalId in other letter case)",
                    n + 1
                )
            }
            Step::PatchContact {
                contact,
                first,
                last,
                emails,
                phones,
            } => {
                let Some(id) = self.contacts[*contact].id.clone() else {
                    return format!("(contact {} has no id: nothing sent)", contact + 1);
                };
                let body = json!({
                    "defaultFields": contact_fields(first, last, emails, phones),
                    "externalId": self.contacts[*contact].external_id,
                });
                s.send(
                    request("PATCH", &format!("/v1/contacts/{id}"), &[], Some(body)),
                    "v1 API: contacts > PATCH /v1/contacts/{id}",
                    true,
                )
                .await;
                s.read(
                    &format!("/contacts/{id}"),
                    "Header-versioned API > GET /contacts/{contactId}",
                )
                .await;
                format!("PATCH contact {} (replacing its entries)", contact + 1)
            }
            _ => unreachable!("contact_step is given its own steps only"),
        }
    }

    async fn message_step(&mut self, s: &mut Sender<'_>, step: &Step) -> String {
        match step {
            Step::SendMessage { text, recipients } => {
                if self.cannot_send(s.exec).await {
                    self.messages.push(None);
                    return "(the run's workspace is the one whose subscription has expired: a message it sends is refused 402, so none is sent)".into();
                }
                let (Some(from), Some(to)) =
                    (self.text("phone_number"), self.recipients(*recipients))
                else {
                    self.messages.push(None);
                    return "(no sandbox recipient in the profile: nothing sent)".into();
                };
                let body = json!({"to": to, "from": from, "text": text});
                let ex = s
                    .send(
                        request("POST", "/v1/messages", &[], Some(body)),
                        "v1 API: messages > POST /v1/messages",
                        true,
                    )
                    .await;
                let id = created_id(&ex, "id");
                self.messages.push(id.clone());
                if let Some(id) = id {
                    // The read and another workspace's read, together (neither changes it).
                    let path = format!("/messages/{id}");
                    let (mut own, mut foreign) = (s.beside(), s.beside());
                    tokio::join!(
                        own.read(&path, "Header-versioned API > GET /messages/{messageId}"),
                        self.foreign_read(&mut foreign, &path),
                    );
                    s.absorb(own);
                    s.absorb(foreign);
                }
                format!("send a message to {} recipient(s)", to.len())
            }
            Step::ReadMessage(m) => {
                let Some(id) = self.messages[*m].clone() else {
                    return format!("(message {} has no id: nothing sent)", m + 1);
                };
                s.read(
                    &format!("/messages/{id}"),
                    "Header-versioned API > GET /messages/{messageId}",
                )
                .await;
                format!("read message {}", m + 1)
            }
            Step::ListMessages => {
                s.walk("/messages", &[], "Header-versioned API > GET /messages")
                    .await;
                "list the messages".into()
            }
            _ => unreachable!("message_step is given its own steps only"),
        }
    }

    async fn webhook_step(&mut self, s: &mut Sender<'_>, step: &Step, tag: &str) -> String {
        match step {
            Step::CreateWebhook {
                label,
                events,
                every_number,
            } => {
                let n = self.webhooks.len();
                let Some(url) = self.text("webhook_url") else {
                    self.webhooks.push((None, true));
                    return "(no webhook receiver in this run: nothing sent)".into();
                };
                let ids = if *every_number {
                    json!(["*"])
                } else {
                    json!([self.text("phone_number_id").unwrap_or_default()])
                };
                let body = json!({"url": format!("{url}/{}w{n}", self.hooks_prefix), "events": events, "resourceIds": ids, "label": label});
                let ex = s
                    .send(
                        request("POST", "/webhooks", &[], Some(body)),
                        "Header-versioned API > POST /webhooks",
                        true,
                    )
                    .await;
                let id = created_id(&ex, "id");
                self.webhooks.push((id.clone(), false));
                if let Some(id) = id {
                    s.read(
                        &format!("/webhooks/{id}"),
                        "Header-versioned API > GET /webhooks/{webhookId}",
                    )
                    .await;
                }
                format!("create webhook {} for {}", n + 1, events.join(", "))
            }
            Step::PatchWebhook {
                webhook,
                label,
                events,
            } => {
                let Some(id) = self.webhooks[*webhook].0.clone() else {
                    return format!("(webhook {} has no id: nothing sent)", webhook + 1);
                };
                let mut body = json!({});
                if let Some(e) = events {
                    body["events"] = json!(e);
                }
                if label.is_some() || events.is_none() {
                    body["label"] =
                        json!(label.clone().unwrap_or_else(|| format!("{tag} patched")));
                }
                s.send(
                    request("PATCH", &format!("/webhooks/{id}"), &[], Some(body)),
                    "Header-versioned API > webhook management",
                    true,
                )
                .await;
                s.read(
                    &format!("/webhooks/{id}"),
                    "Header-versioned API > GET /webhooks/{webhookId}",
                )
                .await;
                format!("PATCH webhook {}", webhook + 1)
            }
            Step::RotateWebhook(w) => {
                let Some(id) = self.webhooks[*w].0.clone() else {
                    return format!("(webhook {} has no id: nothing sent)", w + 1);
                };
                s.send(
                    request("POST", &format!("/webhooks/{id}/rotate"), &[], None),
                    "Header-versioned API > POST /webhooks/{id}/rotate",
                    true,
                )
                .await;
                s.read(
                    &format!("/webhooks/{id}"),
                    "Header-versioned API > GET /webhooks/{webhookId}",
                )
                .await;
                format!("rotate the secret of webhook {}", w + 1)
            }
            Step::DeleteWebhook(w) => {
                let Some(id) = self.webhooks[*w].0.clone() else {
                    return format!("(webhook {} has no id: nothing sent)", w + 1);
                };
                s.send(
                    request("DELETE", &format!("/webhooks/{id}"), &[], None),
                    "Header-versioned API > webhook management",
                    true,
                )
                .await;
                self.webhooks[*w].1 = true;
                format!("delete webhook {}", w + 1)
            }
            Step::ListWebhooks => {
                // The route table names no parameter of this list: none is sent.
                s.read("/webhooks", "Header-versioned API > webhook management")
                    .await;
                "list the webhooks".into()
            }
            _ => unreachable!("webhook_step is given its own steps only"),
        }
    }

    /// Lists the contacts under one filter that names contact `contact`.
    async fn list_contacts(
        &self,
        s: &mut Sender<'_>,
        contact: usize,
        filter: ContactFilter,
        tag: &str,
    ) -> String {
        let c = self.contacts[contact].clone();
        let other = format!("{tag}-none");
        let swapped: String = c
            .external_id
            .chars()
            .map(|ch| {
                if ch.is_lowercase() {
                    ch.to_uppercase().next().unwrap_or(ch)
                } else {
                    ch.to_lowercase().next().unwrap_or(ch)
                }
            })
            .collect();
        let (path, query, clause) = match filter {
            ContactFilter::ExternalId => (
                "/contacts",
                vec![("externalId", c.external_id.clone())],
                "Pagination and collection conventions > filters",
            ),
            ContactFilter::ExternalIdIn => (
                "/contacts",
                vec![("externalId[in]", format!("{},{other}", c.external_id))],
                "Pagination and collection conventions > in operator",
            ),
            ContactFilter::V1ExternalIds => (
                "/v1/contacts",
                vec![
                    ("externalIds", c.external_id.clone()),
                    ("externalIds", other),
                ],
                "v1 API: contacts > GET /v1/contacts",
            ),
            ContactFilter::ExternalIdOtherCase | ContactFilter::V1ExternalIdsOtherCase => {
                // Every item listed must carry an external id the filter names, exactly: the
                // filter rule of the model judges each (the contact itself must not be listed).
                let (path, key, clause) = if filter == ContactFilter::ExternalIdOtherCase {
                    (
                        "/contacts",
                        "externalId",
                        "Pagination and collection conventions > filters",
                    )
                } else {
                    (
                        "/v1/contacts",
                        "externalIds",
                        "v1 API: contacts > GET /v1/contacts",
                    )
                };
                s.walk(path, &[(key, swapped.clone())], clause).await;
                return format!(
                    "list the contacts by {key} {swapped:?}, contact {}'s in other letter case",
                    contact + 1
                );
            }
            ContactFilter::SourcePrefix => {
                let cut: String = c
                    .source
                    .chars()
                    .take(c.source.chars().count().div_ceil(2).max(1))
                    .collect();
                if cut == c.source {
                    return format!(
                        "(the source of contact {} has no proper prefix: nothing sent)",
                        contact + 1
                    );
                }
                let items = s
                    .walk(
                        "/contacts",
                        &[("source", cut.clone())],
                        "Pagination and collection conventions > filters",
                    )
                    .await;
                let _ = items;
                return format!(
                    "list the contacts whose source is {cut:?}, a prefix of contact {}'s",
                    contact + 1
                );
            }
        };
        let items = s.walk(path, &query, clause).await;
        if let (Some(items), Some(id)) = (items, &c.id) {
            // Every contact whose external id the filter names is listed (the filter
            // "limits results to contacts with those external ids").
            if !items
                .iter()
                .any(|i| i.get("id").and_then(Value::as_str) == Some(id))
            {
                if let Some(ex) = s.exchanges.last().cloned() {
                    s.found.push((
                        Finding::new(
                            clause,
                            "filter completeness",
                            format!(
                                "contact {id} listed: its externalId {:?} is one the filter names",
                                c.external_id
                            ),
                            format!("{}, not it", crate::results::plural(items.len(), "item")),
                        ),
                        ex,
                    ));
                }
            }
        }
        format!("list the contacts by {filter:?} of contact {}", contact + 1)
    }

    fn recipients(&self, n: usize) -> Option<Vec<String>> {
        if n <= 1 {
            return self.text("sandbox_recipient_number").map(|r| vec![r]);
        }
        match self.fixtures.get("sandbox_group_recipient_numbers")? {
            Value::Array(items) => Some(
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect(),
            ),
            _ => None,
        }
    }

    /// A change to task `t` (`suffix` after its path), then its read-back: whether the change
    /// was accepted.
    async fn change(
        &mut self,
        s: &mut Sender<'_>,
        t: usize,
        method: &str,
        suffix: &str,
        body: Option<Value>,
        clause: &'static str,
    ) -> bool {
        let Some(id) = self.tasks[t].id.clone() else {
            return false;
        };
        let ex = s
            .send(
                request(method, &format!("/v1/tasks/{id}{suffix}"), &[], body),
                clause,
                true,
            )
            .await;
        s.read_task(&id).await;
        ex.outcome
            .as_ref()
            .is_ok_and(|r| (200..300).contains(&r.status))
    }
}

/// What a step's request must get.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Success,
    SuccessOr400,
}

/// Sends a sequence's requests and keeps what they showed.
struct Sender<'a> {
    exec: &'a Executor,
    expect: Expect,
    exchanges: Vec<Arc<Exchange>>,
    found: Found,
}

impl<'a> Sender<'a> {
    /// A sender whose requests must succeed.
    fn new(exec: &'a Executor) -> Sender<'a> {
        Sender {
            exec,
            expect: Expect::Success,
            exchanges: Vec::new(),
            found: Vec::new(),
        }
    }

    /// A sender beside this one, with its expectation, for requests sent together with this
    /// one's; [`Sender::absorb`] takes back what it sent and found.
    fn beside(&self) -> Sender<'a> {
        Sender {
            exec: self.exec,
            expect: self.expect,
            exchanges: Vec::new(),
            found: Vec::new(),
        }
    }

    /// Takes what `other` (from [`Sender::beside`]) sent and found, after what this one holds.
    fn absorb(&mut self, other: Sender<'a>) {
        self.exchanges.extend(other.exchanges);
        self.found.extend(other.found);
    }

    /// Sends `out`; its answer is held to the generic checks and, when `accepted`, must be a
    /// success: the request is one the contract allows.
    /// A GET of the run's own key that must succeed: a read the model judges.
    async fn read(&mut self, path: &str, clause: &'static str) -> Arc<Exchange> {
        self.send(request("GET", path, &[], None), clause, true)
            .await
    }

    async fn send(&mut self, out: Outgoing, clause: &'static str, accepted: bool) -> Arc<Exchange> {
        let (ex, by_rules) = self.exec.send(&out).await.into_parts();
        self.judge(&ex, by_rules, clause, accepted);
        ex
    }

    /// Sends requests that do not depend on one another together (behind a slow network a
    /// sequence's closing waits one round trip, not one per request), each judged as
    /// [`Sender::send`] judges it, kept in the order given.
    async fn send_all(&mut self, outs: Vec<Outgoing>, clause: &'static str) -> Vec<Arc<Exchange>> {
        let exec = self.exec;
        let sent = futures_util::future::join_all(outs.iter().map(|out| exec.send(out))).await;
        sent.into_iter()
            .map(|judged| {
                let (ex, by_rules) = judged.into_parts();
                self.judge(&ex, by_rules, clause, true);
                ex
            })
            .collect()
    }

    /// Holds an answer to the generic checks and, when `accepted`, to a success: the request is
    /// one the contract allows.
    fn judge(
        &mut self,
        ex: &Arc<Exchange>,
        by_rules: Vec<Finding>,
        clause: &'static str,
        accepted: bool,
    ) {
        let transport = ex.outcome.is_err();
        self.found
            .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
        if let Ok(resp) = &ex.outcome {
            let allowed = (200..300).contains(&resp.status)
                || (self.expect == Expect::SuccessOr400 && resp.status == 400);
            if accepted && !allowed && !transport {
                let expected = match self.expect {
                    Expect::Success => {
                        "a success (2xx): the request is one the contract allows, on a resource the sequence created"
                    }
                    Expect::SuccessOr400 => {
                        "a success (2xx), or 400 for a timestamp not in UTC (timestamps are stated in UTC)"
                    }
                };
                let class = match self.expect {
                    Expect::Success => "2xx",
                    Expect::SuccessOr400 => "2xx or 400",
                };
                self.found.push((
                    Finding::new(clause, "status", expected, resp.status.to_string())
                        .status_class(class),
                    ex.clone(),
                ));
            }
        }
        self.exchanges.push(ex.clone());
    }

    /// Reads a task back; a deleted one may answer 404 (or show `isDeleted`, which the model
    /// judges).
    async fn read_task(&mut self, id: &str) {
        self.read_tasks(&[id]).await;
    }

    /// Reads tasks back, together (as [`Sender::read_task`]).
    async fn read_tasks(&mut self, ids: &[&str]) {
        let outs: Vec<Outgoing> = ids
            .iter()
            .map(|id| request("GET", &format!("/v1/tasks/{id}"), &[], None))
            .collect();
        let exec = self.exec;
        let sent = futures_util::future::join_all(outs.iter().map(|out| exec.send(out))).await;
        for judged in sent {
            let (ex, by_rules) = judged.into_parts();
            self.found
                .extend(by_rules.into_iter().map(|f| (f, ex.clone())));
            self.exchanges.push(ex);
        }
    }

    /// Walks a list with `query`, `maxResults` 50, at most [`MAX_PAGES`] pages: every item, or
    /// `None` when a page was not a list or the walk did not end.
    async fn walk(
        &mut self,
        path: &str,
        query: &[(&str, String)],
        clause: &'static str,
    ) -> Option<Vec<Value>> {
        let mut items = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let mut q: Vec<(&str, String)> = query.to_vec();
            q.push(("maxResults", "50".into()));
            if let Some(t) = &token {
                q.push(("pageToken", t.clone()));
            }
            let ex = self
                .send(request("GET", path, &q, None), clause, true)
                .await;
            let body = ex.outcome.as_ref().ok()?.json.as_ref()?.as_ref().ok()?;
            items.extend(body.get("data")?.as_array()?.iter().cloned());
            match body.get("nextPageToken") {
                Some(Value::String(t)) if !t.is_empty() => token = Some(t.clone()),
                _ => return Some(items),
            }
        }
        None
    }
}

fn contact_fields(first: &str, last: &str, emails: &[String], phones: &[usize]) -> Value {
    json!({
        "firstName": first,
        "lastName": last,
        "emails": emails.iter().enumerate().map(|(i, e)| json!({"name": if i == 0 { "work" } else { "home" }, "value": format!("{e}.{i}@example.test")})).collect::<Vec<_>>(),
        "phoneNumbers": phones.iter().map(|p| json!({"name": "mobile", "value": e164(*p)})).collect::<Vec<_>>(),
    })
}

/// The id an accepted create answered (`data.{field}`), if it did.
fn created_id(ex: &Exchange, field: &str) -> Option<String> {
    let resp = ex
        .outcome
        .as_ref()
        .ok()
        .filter(|r| (200..300).contains(&r.status))?;
    let body = resp.json.as_ref()?.as_ref().ok()?;
    match body.get("data")?.get(field)? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A request of the run's own key, with the headers of its generation.
pub(super) fn request(
    method: &str,
    path: &str,
    query: &[(&str, String)],
    body: Option<Value>,
) -> Outgoing {
    Outgoing {
        method: method.into(),
        path: path.into(),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        headers: Api::of_path(path).headers(),
        body,
        raw_body: None,
        auth: Auth::Primary,
    }
}
