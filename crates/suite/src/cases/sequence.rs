//! Random sequences over the run's own resources: which operations a sequence may take, from the
//! contract's routes on both generations, and the abstract state that keeps every generated
//! sequence one the contract allows (a transition names only a resource an earlier step created;
//! counted resources stay within a small bound). Generated and shrunk by proptest-state-machine;
//! `execute::sequences` turns each step into requests and the model judges every answer.
//!
//! Values come from each field's stated domain, not its plainest part: text beyond ASCII (letters
//! of other scripts, characters outside the Basic Multilingual Plane), instants at offsets other
//! than UTC, several users assigned to one task, several recipients, several entries.

use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use proptest_state_machine::ReferenceStateMachine;

/// How many resources of each kind one sequence may create.
pub const MAX_TASKS: usize = 3;
pub const MAX_CONTACTS: usize = 2;
pub const MAX_MESSAGES: usize = 2;
pub const MAX_WEBHOOKS: usize = 2;
/// Steps of one sequence. Behind a slow network the longest sequence is the run's last trial
/// (each step is a change and its read-back, one round trip after the other): behind 50 ms a
/// request, 8 to 16 steps took the default run 4.9-5.9 s, 6 to 12 steps 4.6-5.0 s (2 cores, no
/// HAR). `--depth N` runs more sequences, for a nightly job.
pub const STEPS: std::ops::RangeInclusive<usize> = 6..=12;

/// What a task is linked to when created: the three forms the contract states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Link {
    PhoneNumber,
    Conversation,
    Activity,
}

/// How a list of contacts is filtered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContactFilter {
    /// `GET /contacts?externalId=` its external id: it must be listed.
    ExternalId,
    /// `GET /contacts?externalId[in]=` its external id and another.
    ExternalIdIn,
    /// `GET /v1/contacts?externalIds=`.
    V1ExternalIds,
    /// `GET /contacts?source=` a proper prefix of the source the target showed for it: an
    /// exact filter lists no contact whose source is longer.
    SourcePrefix,
    /// `GET /contacts?externalId=` its external id with the case of its letters swapped: an
    /// exact filter lists no contact whose external id differs (the filter rule judges it).
    ExternalIdOtherCase,
    /// `GET /v1/contacts?externalIds=` the same.
    V1ExternalIdsOtherCase,
}

/// One step of a sequence. Indices name the resources the sequence created, in order; users
/// and recipients are indices into what the target and the profile give, taken modulo their
/// number at run time.
#[derive(Debug, Clone)]
pub enum Step {
    CreateTask {
        link: Link,
        title: String,
        description: String,
    },
    PutTask {
        task: usize,
        title: String,
        description: String,
    },
    CompleteTask(usize),
    ReopenTask(usize),
    /// Assigns one user or several (consecutive from a random one: distinct), one request each.
    Assign {
        task: usize,
        users: Vec<usize>,
    },
    /// Unassigns the `pick`-th of the users assigned to the task (in the order assigned).
    Unassign {
        task: usize,
        pick: usize,
    },
    ChangeDueDate {
        task: usize,
        due: String,
    },
    RemoveDueDate(usize),
    LinkConversation(usize),
    UnlinkConversation(usize),
    DeleteTask(usize),
    ListTasks,
    CreateContact {
        first: String,
        last: String,
        company: Option<String>,
        emails: Vec<String>,
        phones: Vec<usize>,
    },
    PatchContact {
        contact: usize,
        first: String,
        last: String,
        emails: Vec<String>,
        phones: Vec<usize>,
    },
    ListContacts {
        contact: usize,
        filter: ContactFilter,
    },
    SendMessage {
        text: String,
        recipients: usize,
    },
    ReadMessage(usize),
    ListMessages,
    CreateWebhook {
        label: String,
        events: Vec<&'static str>,
        every_number: bool,
    },
    PatchWebhook {
        webhook: usize,
        label: Option<String>,
        events: Option<Vec<&'static str>>,
    },
    RotateWebhook(usize),
    DeleteWebhook(usize),
    ListWebhooks,
}

/// What the generator knows: how many of each kind were created, and which are gone.
#[derive(Debug, Clone, Default)]
pub struct Abstract {
    pub tasks: Vec<bool>,
    /// Per task: how many assign steps it had, whether it is completed, whether it has a due
    /// date (so that the transitions generated are the ones that change something).
    pub assigns: Vec<usize>,
    pub completed: Vec<bool>,
    pub due: Vec<bool>,
    pub contacts: usize,
    pub messages: usize,
    pub webhooks: Vec<bool>,
}

/// Characters beyond ASCII that text fields may hold: accented Latin, Greek, Cyrillic, Arabic,
/// CJK, and characters outside the Basic Multilingual Plane (emoji, a musical symbol), with
/// plain letters and an apostrophe. No surrounding whitespace (READINGS 6.7 lets a target trim
/// it), no decomposed forms (normalisation is not stated either way).
const CHARS: &[char] = &[
    'a', 'k', 'z', 'Q', 'é', 'ß', 'ø', 'Ł', 'Ω', 'λ', 'Ж', 'ع', '漢', 'テ', '한', '\'', '😀', '🎉',
    '𝄞', '🚀',
];

pub fn text() -> BoxedStrategy<String> {
    proptest::collection::vec(
        proptest::collection::vec(proptest::sample::select(CHARS), 1..=6),
        1..=3,
    )
    .prop_map(|words| {
        words
            .into_iter()
            .map(|w| w.into_iter().collect::<String>())
            .collect::<Vec<_>>()
            .join(" ")
    })
    .boxed()
}

/// An instant in the next years at a random offset (whole quarter hours from -12:00 to +14:00,
/// UTC among them), as RFC 3339.
pub fn instant() -> BoxedStrategy<String> {
    (0i64..4 * 365 * 24 * 3600, -48i32..=56)
        .prop_map(|(secs, quarters)| {
            let base = 1_798_761_600i64; // 2027-01-01T00:00:00Z
            let offset = time::UtcOffset::from_whole_seconds(quarters * 15 * 60)
                .unwrap_or(time::UtcOffset::UTC);
            let at = time::OffsetDateTime::from_unix_timestamp(base + secs)
                .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
                .to_offset(offset);
            at.format(&time::format_description::well_known::Rfc3339)
                .unwrap_or_else(|_| "2027-01-01T00:00:00Z".into())
        })
        .boxed()
}

fn emails() -> BoxedStrategy<Vec<String>> {
    proptest::collection::btree_set("[a-z]{1,6}", 0..=2)
        .prop_map(|s| s.into_iter().collect())
        .boxed()
}

fn phones() -> BoxedStrategy<Vec<usize>> {
    proptest::collection::btree_set(0usize..200, 0..=2)
        .prop_map(|s| s.into_iter().collect())
        .boxed()
}

/// Every task event of the event table: what the sequences' watcher webhooks subscribe to.
pub const TASK_EVENTS: &[&str] = &[
    "task.created",
    "task.updated",
    "task.deleted",
    "task.completed",
    "task.reopened",
    "task.assigned",
    "task.unassigned",
    "task.overdue",
    "task.linked",
    "task.unlinked",
    "task.duedate.updated",
    "task.duedate.removed",
];

/// The events of a webhook: a non-empty subset of one variant of the events union.
fn events() -> BoxedStrategy<Vec<&'static str>> {
    const VARIANTS: &[&[&str]] = &[
        // The events the sequence's own changes fire (the model predicts their deliveries).
        &[
            "task.created",
            "task.completed",
            "task.reopened",
            "task.assigned",
            "task.unassigned",
            "task.updated",
            "task.deleted",
        ],
        &["task.created", "task.assigned"],
        &[
            "task.completed",
            "task.reopened",
            "task.deleted",
            "task.unassigned",
        ],
        &["contact.updated"],
        &["message.received", "message.delivered"],
        &["call.completed", "call.ringing", "call.recording.completed"],
        &["call.summary.completed"],
        &["call.transcript.completed"],
    ];
    proptest::sample::select(VARIANTS)
        .prop_flat_map(|v| proptest::sample::subsequence(v.to_vec(), 1..=v.len()))
        .boxed()
}

fn live(flags: &[bool]) -> Vec<usize> {
    flags
        .iter()
        .enumerate()
        .filter(|(_, gone)| !**gone)
        .map(|(i, _)| i)
        .collect()
}

/// The generator of sequences.
pub struct Machine;

impl ReferenceStateMachine for Machine {
    type State = Abstract;
    type Transition = Step;

    fn init_state() -> BoxedStrategy<Abstract> {
        Just(Abstract::default()).boxed()
    }

    fn transitions(state: &Abstract) -> BoxedStrategy<Step> {
        let mut options: Vec<(u32, BoxedStrategy<Step>)> = Vec::new();
        if state.tasks.len() < MAX_TASKS {
            let link = prop_oneof![
                Just(Link::PhoneNumber),
                Just(Link::Conversation),
                Just(Link::Activity)
            ];
            options.push((
                4,
                (link, text(), text())
                    .prop_map(|(link, title, description)| Step::CreateTask {
                        link,
                        title,
                        description,
                    })
                    .boxed(),
            ));
        }
        let tasks = live(&state.tasks);
        if !tasks.is_empty() {
            let t = proptest::sample::select(tasks);
            options.push((
                2,
                (t.clone(), text(), text())
                    .prop_map(|(task, title, description)| Step::PutTask {
                        task,
                        title,
                        description,
                    })
                    .boxed(),
            ));
            let open: Vec<usize> = live(&state.tasks)
                .into_iter()
                .filter(|i| !state.completed[*i])
                .collect();
            let done: Vec<usize> = live(&state.tasks)
                .into_iter()
                .filter(|i| state.completed[*i])
                .collect();
            let assigned: Vec<usize> = live(&state.tasks)
                .into_iter()
                .filter(|i| state.assigns[*i] > 0)
                .collect();
            let dated: Vec<usize> = live(&state.tasks)
                .into_iter()
                .filter(|i| state.due[*i])
                .collect();
            if !open.is_empty() {
                options.push((
                    2,
                    proptest::sample::select(open)
                        .prop_map(Step::CompleteTask)
                        .boxed(),
                ));
            }
            if !done.is_empty() {
                options.push((
                    2,
                    proptest::sample::select(done)
                        .prop_map(Step::ReopenTask)
                        .boxed(),
                ));
            }
            options.push((
                3,
                (t.clone(), 0usize..8, 1usize..=3)
                    .prop_map(|(task, first, count)| Step::Assign {
                        task,
                        users: (first..first + count).collect(),
                    })
                    .boxed(),
            ));
            if !assigned.is_empty() {
                options.push((
                    4,
                    (proptest::sample::select(assigned), 0usize..3)
                        .prop_map(|(task, pick)| Step::Unassign { task, pick })
                        .boxed(),
                ));
            }
            options.push((
                2,
                (t.clone(), instant())
                    .prop_map(|(task, due)| Step::ChangeDueDate { task, due })
                    .boxed(),
            ));
            if !dated.is_empty() {
                options.push((
                    1,
                    proptest::sample::select(dated)
                        .prop_map(Step::RemoveDueDate)
                        .boxed(),
                ));
            }
            options.push((1, t.clone().prop_map(Step::LinkConversation).boxed()));
            options.push((1, t.clone().prop_map(Step::UnlinkConversation).boxed()));
            options.push((1, t.prop_map(Step::DeleteTask).boxed()));
            options.push((1, Just(Step::ListTasks).boxed()));
        }
        if state.contacts < MAX_CONTACTS {
            options.push((
                3,
                (
                    text(),
                    text(),
                    proptest::option::of(text()),
                    emails(),
                    phones(),
                )
                    .prop_map(
                        |(first, last, company, emails, phones)| Step::CreateContact {
                            first,
                            last,
                            company,
                            emails,
                            phones,
                        },
                    )
                    .boxed(),
            ));
        }
        if state.contacts > 0 {
            let c = 0..state.contacts;
            options.push((
                2,
                (c.clone(), text(), text(), emails(), phones())
                    .prop_map(
                        |(contact, first, last, emails, phones)| Step::PatchContact {
                            contact,
                            first,
                            last,
                            emails,
                            phones,
                        },
                    )
                    .boxed(),
            ));
            let filter = prop_oneof![
                Just(ContactFilter::ExternalId),
                Just(ContactFilter::ExternalIdIn),
                Just(ContactFilter::V1ExternalIds),
                Just(ContactFilter::SourcePrefix),
                Just(ContactFilter::ExternalIdOtherCase),
                Just(ContactFilter::V1ExternalIdsOtherCase)
            ];
            options.push((
                3,
                (c, filter)
                    .prop_map(|(contact, filter)| Step::ListContacts { contact, filter })
                    .boxed(),
            ));
        }
        if state.messages < MAX_MESSAGES {
            options.push((
                2,
                (text(), 1usize..=3)
                    .prop_map(|(text, recipients)| Step::SendMessage { text, recipients })
                    .boxed(),
            ));
        }
        if state.messages > 0 {
            options.push((2, (0..state.messages).prop_map(Step::ReadMessage).boxed()));
            options.push((1, Just(Step::ListMessages).boxed()));
        }
        if state.webhooks.len() < MAX_WEBHOOKS {
            options.push((
                4,
                (text(), events(), any::<bool>())
                    .prop_map(|(label, events, every_number)| Step::CreateWebhook {
                        label,
                        events,
                        every_number,
                    })
                    .boxed(),
            ));
        }
        let webhooks = live(&state.webhooks);
        if !webhooks.is_empty() {
            let w = proptest::sample::select(webhooks);
            options.push((
                2,
                (
                    w.clone(),
                    proptest::option::of(text()),
                    proptest::option::of(events()),
                )
                    .prop_map(|(webhook, label, events)| Step::PatchWebhook {
                        webhook,
                        label,
                        events,
                    })
                    .boxed(),
            ));
            options.push((1, w.clone().prop_map(Step::RotateWebhook).boxed()));
            options.push((2, w.prop_map(Step::DeleteWebhook).boxed()));
            options.push((1, Just(Step::ListWebhooks).boxed()));
        }
        proptest::strategy::Union::new_weighted(options).boxed()
    }

    fn preconditions(state: &Abstract, step: &Step) -> bool {
        let task = |i: &usize| state.tasks.get(*i) == Some(&false);
        let webhook = |i: &usize| state.webhooks.get(*i) == Some(&false);
        match step {
            Step::CreateTask { .. } => state.tasks.len() < MAX_TASKS,
            Step::PutTask { task: t, .. }
            | Step::Assign { task: t, .. }
            | Step::ChangeDueDate { task: t, .. } => task(t),
            Step::Unassign { task: t, .. } => task(t) && state.assigns[*t] > 0,
            Step::CompleteTask(t) => task(t) && !state.completed[*t],
            Step::ReopenTask(t) => task(t) && state.completed[*t],
            Step::RemoveDueDate(t) => task(t) && state.due[*t],
            Step::LinkConversation(t) | Step::UnlinkConversation(t) | Step::DeleteTask(t) => {
                task(t)
            }
            Step::ListTasks => !state.tasks.is_empty(),
            Step::CreateContact { .. } => state.contacts < MAX_CONTACTS,
            Step::PatchContact { contact, .. } | Step::ListContacts { contact, .. } => {
                *contact < state.contacts
            }
            Step::SendMessage { .. } => state.messages < MAX_MESSAGES,
            Step::ReadMessage(m) => *m < state.messages,
            Step::ListMessages => state.messages > 0,
            Step::CreateWebhook { .. } => state.webhooks.len() < MAX_WEBHOOKS,
            Step::PatchWebhook { webhook: w, .. }
            | Step::RotateWebhook(w)
            | Step::DeleteWebhook(w) => webhook(w),
            Step::ListWebhooks => !state.webhooks.is_empty(),
        }
    }

    fn apply(mut state: Abstract, step: &Step) -> Abstract {
        match step {
            Step::CreateTask { .. } => {
                state.tasks.push(false);
                state.assigns.push(0);
                state.completed.push(false);
                state.due.push(false);
            }
            Step::Assign { task, .. } => state.assigns[*task] += 1,
            Step::CompleteTask(t) => state.completed[*t] = true,
            Step::ReopenTask(t) => state.completed[*t] = false,
            Step::ChangeDueDate { task, .. } => state.due[*task] = true,
            Step::RemoveDueDate(t) => state.due[*t] = false,
            Step::DeleteTask(t) => state.tasks[*t] = true,
            Step::CreateContact { .. } => state.contacts += 1,
            Step::SendMessage { .. } => state.messages += 1,
            Step::CreateWebhook { .. } => state.webhooks.push(false),
            Step::DeleteWebhook(w) => state.webhooks[*w] = true,
            _ => {}
        }
        state
    }
}

/// The requests a sequence may send (templates), each as often as a sequence may send it where
/// it adds to a counted state: for the plan's count of what the trial holds and touches.
pub const REQUESTS: &[(&str, &str)] = &[
    ("POST", "/v1/tasks"),
    ("POST", "/v1/tasks"),
    ("POST", "/v1/tasks"),
    ("GET", "/v1/tasks"),
    ("GET", "/v1/tasks/{taskId}"),
    ("PUT", "/v1/tasks/{taskId}"),
    ("DELETE", "/v1/tasks/{taskId}"),
    ("POST", "/v1/tasks/{taskId}/complete"),
    ("POST", "/v1/tasks/{taskId}/reopen"),
    ("POST", "/v1/tasks/{taskId}/assign"),
    ("POST", "/v1/tasks/{taskId}/unassign"),
    ("POST", "/v1/tasks/{taskId}/change-due-date"),
    ("POST", "/v1/tasks/{taskId}/remove-due-date"),
    ("POST", "/v1/tasks/{taskId}/link-conversation"),
    ("POST", "/v1/tasks/{taskId}/unlink-conversation"),
    ("POST", "/v1/contacts"),
    ("PATCH", "/v1/contacts/{id}"),
    ("GET", "/contacts"),
    ("GET", "/v1/contacts"),
    ("GET", "/contacts/{contactId}"),
    ("POST", "/v1/messages"),
    ("GET", "/messages/{messageId}"),
    ("GET", "/messages"),
    ("POST", "/webhooks"),
    ("POST", "/webhooks"),
    ("POST", "/webhooks"),
    ("POST", "/webhooks"),
    ("GET", "/webhooks"),
    ("GET", "/webhooks/{webhookId}"),
    ("PATCH", "/webhooks/{webhookId}"),
    ("POST", "/webhooks/{webhookId}/rotate"),
    ("DELETE", "/webhooks/{webhookId}"),
    ("GET", "/webhooks/{webhookId}/events"),
    ("GET", "/users"),
];
