//! The resources the model tracks: which requests create, change and read them, what an accepted
//! change does to them (as the contract states it), and how a read of one is judged.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::client::Outgoing;
use crate::results::Finding;
use conformance_contract::Contract;

/// A kind of resource the model tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Kind {
    Task,
    Contact,
    Webhook,
    Message,
}

const TASK: &str = "Resources > Task";
const COMPLETE: &str = "States and transitions > Task > complete";
const REOPEN: &str = "States and transitions > Task > reopen";
const DELETE: &str = "States and transitions > Task > delete";
const ASSIGN: &str = "States and transitions > Task > assign and unassign";
const DUE: &str = "States and transitions > Task > due date";
const LINK: &str = "States and transitions > Task > link conversation";
const PUT: &str = "v1 API: tasks > PUT /v1/tasks/{taskId}";
const CONTACT_PATCH: &str = "v1 API: contacts > PATCH /v1/contacts/{id}";
const CONTACT: &str = "Resources > Contact > defaultFields";
const CONTACT_EXTERNAL: &str = "Resources > Contact > externalId";
const CONTACT_URL: &str = "Resources > Contact > sourceUrl";
const WEBHOOK: &str = "Header-versioned API > webhook management";
const WEBHOOK_EVENTS: &str = "Resources > Webhook > events";
const WEBHOOK_IDS: &str = "Resources > Webhook > resourceIds";
const ROTATE: &str = "Header-versioned API > POST /webhooks/{id}/rotate";
const MESSAGE: &str = "v1 API: messages > POST /v1/messages";
const MESSAGE_TO: &str = "v1 API: messages > POST /v1/messages > to";

impl Kind {
    /// The id of the resource an accepted create answered.
    pub(crate) fn id_in(self, body: &Value) -> Option<String> {
        self.item_id(body.get("data")?)
    }

    /// The id of one item of a list (or the `data` of a GET).
    pub(crate) fn item_id(self, item: &Value) -> Option<String> {
        let field = match self {
            Kind::Task => "taskId",
            _ => "id",
        };
        match item.get(field)? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }

    /// Whether the answer of an accepted create is stated to be the resource.
    pub(crate) fn create_answers_resource(self) -> bool {
        self == Kind::Contact
    }

    /// The fields (JSON Pointers) whose null the model judges as a value once the target has
    /// shown them non-null on some resource of the kind.
    pub(crate) fn judged_fields(self) -> &'static [&'static str] {
        match self {
            Kind::Task => &[
                "/title",
                "/description",
                "/completed",
                "/dueDate",
                "/assignedTo",
                "/conversationId",
            ],
            Kind::Contact => &[
                "/externalId",
                "/sourceUrl",
                "/defaultFields/firstName",
                "/defaultFields/lastName",
                "/defaultFields/company",
                "/defaultFields/role",
                "/defaultFields/emails",
                "/defaultFields/phoneNumbers",
            ],
            Kind::Webhook => &["/url", "/label", "/events", "/resourceIds"],
            Kind::Message => &["/text", "/to", "/from"],
        }
    }
}

/// What one request does to the model's resources.
pub(crate) enum Op {
    Create {
        kind: Kind,
        request: Value,
    },
    Change {
        kind: Kind,
        id: String,
        change: Change,
    },
    Read {
        kind: Kind,
        id: Option<String>,
    },
    /// A request on a tracked resource the model cannot interpret.
    Other {
        kind: Kind,
        id: String,
    },
}

/// An accepted change, as the contract states its effect.
pub(crate) enum Change {
    TaskPut(Value),
    TaskDelete,
    TaskCompleted(bool),
    TaskAssign(String),
    TaskUnassign(String),
    TaskDue(Option<Value>),
    TaskConversation(Option<String>),
    ContactPatch(Value),
    WebhookPatch(Value),
    WebhookPut(Value),
    WebhookRotate,
    WebhookDelete,
}

/// The value of the path parameter of `template` in `path`.
fn param(template: &str, path: &str) -> Option<String> {
    let t: Vec<&str> = template.trim_matches('/').split('/').collect();
    let p: Vec<&str> = path.trim_matches('/').split('/').collect();
    (t.len() == p.len())
        .then(|| {
            t.iter()
                .zip(&p)
                .find(|(t, _)| t.starts_with('{'))
                .map(|(_, p)| p.to_string())
        })
        .flatten()
}

fn field_text(body: Option<&Value>, name: &str) -> Option<String> {
    match body?.get(name)? {
        Value::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// What `out` does, by its route.
pub(crate) fn classify(contract: &Contract, out: &Outgoing) -> Option<Op> {
    let path = out.path.split('?').next().unwrap_or("");
    let route = contract.route(&out.method, path)?;
    let method = out.method.to_ascii_uppercase();
    let template = route.template.as_str();
    let id = || param(template, path);
    let body = out.body.as_ref();
    let change = |kind, change| {
        Some(Op::Change {
            kind,
            id: id()?,
            change,
        })
    };
    match (method.as_str(), template) {
        ("POST", "/v1/tasks") => Some(Op::Create {
            kind: Kind::Task,
            request: body.cloned().unwrap_or(Value::Null),
        }),
        ("GET", "/v1/tasks") => Some(Op::Read {
            kind: Kind::Task,
            id: None,
        }),
        ("GET", "/v1/tasks/{taskId}") => Some(Op::Read {
            kind: Kind::Task,
            id: id(),
        }),
        ("PUT", "/v1/tasks/{taskId}") => change(
            Kind::Task,
            Change::TaskPut(body.cloned().unwrap_or(Value::Null)),
        ),
        ("DELETE", "/v1/tasks/{taskId}") => change(Kind::Task, Change::TaskDelete),
        ("POST", t) if t.starts_with("/v1/tasks/{taskId}/") => {
            let action = t.rsplit('/').next().unwrap_or("");
            let user = field_text(body, "userId");
            let made = match action {
                "complete" => Some(Change::TaskCompleted(true)),
                "reopen" => Some(Change::TaskCompleted(false)),
                "assign" => user.map(Change::TaskAssign),
                "unassign" => user.map(Change::TaskUnassign),
                "change-due-date" => body
                    .and_then(|b| b.get("dueDate"))
                    .map(|d| Change::TaskDue(Some(d.clone()))),
                "remove-due-date" => Some(Change::TaskDue(None)),
                "link-conversation" => {
                    field_text(body, "conversationId").map(|c| Change::TaskConversation(Some(c)))
                }
                "unlink-conversation" => Some(Change::TaskConversation(None)),
                _ => None,
            };
            match made {
                Some(c) => change(Kind::Task, c),
                None => Some(Op::Other {
                    kind: Kind::Task,
                    id: id()?,
                }),
            }
        }
        ("POST", "/v1/contacts") => Some(Op::Create {
            kind: Kind::Contact,
            request: body.cloned().unwrap_or(Value::Null),
        }),
        ("PATCH", "/v1/contacts/{id}") => change(
            Kind::Contact,
            Change::ContactPatch(body.cloned().unwrap_or(Value::Null)),
        ),
        ("GET", "/contacts" | "/v1/contacts") => Some(Op::Read {
            kind: Kind::Contact,
            id: None,
        }),
        ("GET", "/contacts/{contactId}") => Some(Op::Read {
            kind: Kind::Contact,
            id: id(),
        }),
        ("POST", "/webhooks") => Some(Op::Create {
            kind: Kind::Webhook,
            request: body.cloned().unwrap_or(Value::Null),
        }),
        ("GET", "/webhooks") => Some(Op::Read {
            kind: Kind::Webhook,
            id: None,
        }),
        ("GET", "/webhooks/{webhookId}") => Some(Op::Read {
            kind: Kind::Webhook,
            id: id(),
        }),
        ("PATCH", t) if t.starts_with("/webhooks/{") && t.matches('/').count() == 2 => change(
            Kind::Webhook,
            Change::WebhookPatch(body.cloned().unwrap_or(Value::Null)),
        ),
        ("PUT", t) if t.starts_with("/webhooks/{") && t.matches('/').count() == 2 => change(
            Kind::Webhook,
            Change::WebhookPut(body.cloned().unwrap_or(Value::Null)),
        ),
        ("DELETE", t) if t.starts_with("/webhooks/{") && t.matches('/').count() == 2 => {
            change(Kind::Webhook, Change::WebhookDelete)
        }
        ("POST", t) if t.starts_with("/webhooks/{") && t.ends_with("/rotate") => {
            change(Kind::Webhook, Change::WebhookRotate)
        }
        ("POST", "/v1/messages") => Some(Op::Create {
            kind: Kind::Message,
            request: body.cloned().unwrap_or(Value::Null),
        }),
        ("GET", "/messages" | "/v1/messages") => Some(Op::Read {
            kind: Kind::Message,
            id: None,
        }),
        ("GET", "/messages/{messageId}") => Some(Op::Read {
            kind: Kind::Message,
            id: id(),
        }),
        ("POST", "/messages/{messageId}/retry") => Some(Op::Other {
            kind: Kind::Message,
            id: id()?,
        }),
        _ => None,
    }
}

/// One field the model knows: its value as last set, or that it was cleared.
#[derive(Debug, Clone)]
enum Known {
    Text(String),
    Instant(OffsetDateTime),
    Bool(bool),
    /// A set of strings (recipients, events, entry values); `fold` compares ignoring case.
    Set(BTreeSet<String>, bool),
    /// Cleared: null or absent.
    Cleared,
}

/// A resource the run created, as the model knows it.
pub(crate) struct Tracked {
    kind: Kind,
    fields: Vec<(&'static str, &'static str, Known)>,
    /// Fields a read showed as last set, since they were set, with the clauses of the changes
    /// accepted since that read which the contract says leave them alone: a different value
    /// later breaks one of those changes, not the one that set the field.
    confirmed: BTreeMap<&'static str, Vec<&'static str>>,
    /// Assignees: users known assigned, and known unassigned (the initial ones are not stated).
    assigned: BTreeSet<String>,
    unassigned: BTreeSet<String>,
    deleted: bool,
    /// Changes to it in flight.
    pub(crate) pending: u32,
    /// The model's clock at its last change (sent or answered).
    pub(crate) changed: u64,
    /// Something the model cannot follow happened to it: it is judged no more.
    pub(crate) unknown: bool,
}

fn trimmed(v: &Value) -> Option<String> {
    v.as_str().map(|s| s.trim().to_string())
}

fn instant(v: &Value) -> Option<OffsetDateTime> {
    OffsetDateTime::parse(v.as_str()?, &Rfc3339).ok()
}

fn strings(v: &Value) -> Option<BTreeSet<String>> {
    v.as_array()?
        .iter()
        .map(|i| i.as_str().map(|s| s.trim().to_string()))
        .collect()
}

/// The `value`s of contact entries (emails or phone numbers).
fn entry_values(v: Option<&Value>, fold: bool) -> Known {
    let set = v
        .and_then(Value::as_array)
        .map(|items| {
            items
                .iter()
                .filter_map(|i| i.get("value").and_then(Value::as_str))
                .map(|s| {
                    let s = s.trim();
                    if fold {
                        s.to_lowercase()
                    } else {
                        s.to_string()
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    Known::Set(set, fold)
}

impl Tracked {
    pub(crate) fn created(kind: Kind, request: &Value) -> Tracked {
        let mut t = Tracked {
            kind,
            fields: Vec::new(),
            confirmed: BTreeMap::new(),
            assigned: BTreeSet::new(),
            unassigned: BTreeSet::new(),
            deleted: false,
            pending: 0,
            changed: 0,
            unknown: false,
        };
        match kind {
            Kind::Task => {
                t.set_text(request, "title", "/title", TASK);
                t.set_text(request, "description", "/description", TASK);
                t.set("/completed", Known::Bool(false), TASK);
                if let Some(d) = request.get("dueDate").and_then(instant) {
                    t.set("/dueDate", Known::Instant(d), DUE);
                }
                t.set_text(request, "conversationId", "/conversationId", TASK);
            }
            Kind::Contact => t.contact(request, false),
            Kind::Webhook => t.webhook(request),
            Kind::Message => {
                t.set_text(request, "text", "/text", MESSAGE);
                if let Some(to) = request.get("to").and_then(strings) {
                    t.set("/to", Known::Set(to, false), MESSAGE_TO);
                }
                if let Some(from) = request.get("from").and_then(Value::as_str) {
                    if from.starts_with('+') {
                        t.set("/from", Known::Text(from.trim().into()), MESSAGE);
                    }
                }
            }
        }
        t
    }

    fn set(&mut self, pointer: &'static str, known: Known, clause: &'static str) {
        self.fields.retain(|(p, _, _)| *p != pointer);
        self.fields.push((pointer, clause, known));
        self.confirmed.remove(pointer);
    }

    fn forget(&mut self, pointer: &str) {
        self.fields.retain(|(p, _, _)| *p != pointer);
        self.confirmed.remove(pointer);
    }

    /// An accepted change that the contract says touches only `touched`: every other field a
    /// read showed as last set is now also the change's to keep, so a different value later
    /// breaks the clause of one of the changes since that read (a PUT that reopens a completed
    /// task breaks the PUT's, not the completion's). A field not read back since it was set
    /// keeps its own clause: the change that set it may be the one that lost it.
    fn kept_by(&mut self, clause: &'static str, touched: &[&str]) {
        for (pointer, since) in &mut self.confirmed {
            if !touched.contains(pointer) && !since.contains(&clause) {
                since.push(clause);
            }
        }
    }

    /// Sets the text field `name` as `body` sent it; forgets it when `body` left it out.
    fn set_text(&mut self, body: &Value, name: &str, pointer: &'static str, clause: &'static str) {
        match body.get(name).and_then(trimmed) {
            Some(v) => self.set(pointer, Known::Text(v), clause),
            None => self.forget(pointer),
        }
    }

    /// A contact's fields as a create or a PATCH sent them. PATCH replaces the entries
    /// (READINGS 2.6): emails and phone numbers omitted are gone; what becomes of other omitted
    /// fields is not stated, so the model forgets them.
    fn contact(&mut self, body: &Value, patch: bool) {
        let clause = if patch { CONTACT_PATCH } else { CONTACT };
        let defaults = body.get("defaultFields");
        for (name, pointer) in [
            ("firstName", "/defaultFields/firstName"),
            ("lastName", "/defaultFields/lastName"),
            ("company", "/defaultFields/company"),
            ("role", "/defaultFields/role"),
        ] {
            match defaults.and_then(|d| d.get(name)).and_then(trimmed) {
                Some(v) => self.set(pointer, Known::Text(v), clause),
                None => self.forget(pointer),
            }
        }
        let emails = defaults.and_then(|d| d.get("emails"));
        let phones = defaults.and_then(|d| d.get("phoneNumbers"));
        if patch || emails.is_some() {
            self.set("/defaultFields/emails", entry_values(emails, true), clause);
        }
        if patch || phones.is_some() {
            self.set(
                "/defaultFields/phoneNumbers",
                entry_values(phones, false),
                clause,
            );
        }
        match body.get("externalId").and_then(trimmed) {
            Some(v) => self.set("/externalId", Known::Text(v), CONTACT_EXTERNAL),
            None => self.forget("/externalId"),
        }
        match body.get("sourceUrl").and_then(trimmed) {
            Some(v) => self.set("/sourceUrl", Known::Text(v), CONTACT_URL),
            None => self.forget("/sourceUrl"),
        }
    }

    /// A webhook's fields as a create, a PATCH or a PUT sent them: the fields sent are set.
    fn webhook(&mut self, body: &Value) {
        if let Some(v) = body.get("url").and_then(trimmed) {
            self.set("/url", Known::Text(v), WEBHOOK);
        }
        match body.get("label") {
            Some(Value::String(s)) => self.set("/label", Known::Text(s.trim().into()), WEBHOOK),
            Some(Value::Null) => self.set("/label", Known::Cleared, WEBHOOK),
            _ => {}
        }
        if let Some(v) = body.get("events").and_then(strings) {
            self.set("/events", Known::Set(v, false), WEBHOOK_EVENTS);
        }
        if let Some(v) = body.get("resourceIds").and_then(strings) {
            self.set("/resourceIds", Known::Set(v, false), WEBHOOK_IDS);
        }
    }

    pub(crate) fn apply(&mut self, change: &Change) {
        match change {
            Change::TaskPut(_) => self.kept_by(PUT, &["/title", "/description"]),
            Change::TaskCompleted(done) => {
                self.kept_by(if *done { COMPLETE } else { REOPEN }, &["/completed"]);
            }
            Change::TaskAssign(_) | Change::TaskUnassign(_) => self.kept_by(ASSIGN, &[]),
            Change::TaskDue(_) => self.kept_by(DUE, &["/dueDate"]),
            Change::TaskConversation(_) => self.kept_by(LINK, &["/conversationId"]),
            Change::WebhookPatch(body) => {
                let sent: Vec<String> = body
                    .as_object()
                    .map(|o| o.keys().map(|k| format!("/{k}")).collect())
                    .unwrap_or_default();
                let sent: Vec<&str> = sent.iter().map(String::as_str).collect();
                self.kept_by(WEBHOOK, &sent);
            }
            // The others replace what they touch (a contact's PATCH, a webhook's PUT), end the
            // resource, or state what they keep themselves (rotate).
            _ => {}
        }
        match change {
            Change::TaskPut(body) => {
                // PUT updates title and description (a field it leaves out is forgotten: what
                // becomes of it is not shown); the rest of the task stays as it was.
                self.set_text(body, "title", "/title", PUT);
                self.set_text(body, "description", "/description", PUT);
            }
            Change::TaskDelete | Change::WebhookDelete => self.deleted = true,
            Change::TaskCompleted(done) => {
                let clause = if *done { COMPLETE } else { REOPEN };
                self.set("/completed", Known::Bool(*done), clause);
            }
            Change::TaskAssign(user) => {
                self.unassigned.remove(user);
                self.assigned.insert(user.clone());
            }
            Change::TaskUnassign(user) => {
                self.assigned.remove(user);
                self.unassigned.insert(user.clone());
            }
            Change::TaskDue(Some(v)) => match instant(v) {
                Some(d) => self.set("/dueDate", Known::Instant(d), DUE),
                None => self.forget("/dueDate"),
            },
            Change::TaskDue(None) => self.set("/dueDate", Known::Cleared, DUE),
            Change::TaskConversation(Some(c)) => {
                self.set("/conversationId", Known::Text(c.clone()), LINK);
            }
            Change::TaskConversation(None) => {
                self.set("/conversationId", Known::Cleared, LINK);
            }
            Change::ContactPatch(body) => self.contact(body, true),
            Change::WebhookPatch(body) => self.webhook(body),
            Change::WebhookPut(body) => {
                // What a PUT does to the fields it leaves out is not shown.
                self.fields.clear();
                self.webhook(body);
            }
            Change::WebhookRotate => {
                // Rotate issues a secret "without changing events or apiVersion": the rest
                // stays as it was.
                for f in &mut self.fields {
                    if f.0 == "/events" {
                        f.1 = ROTATE;
                    }
                }
            }
        }
    }

    /// Judges the resource as a GET by id showed it.
    pub(crate) fn judge(
        &mut self,
        data: &Value,
        shown: &HashSet<(Kind, &'static str)>,
        at: &str,
    ) -> Vec<Finding> {
        if self.deleted {
            let clause = match self.kind {
                Kind::Task => DELETE,
                _ => WEBHOOK,
            };
            // A deleted task may be kept with `isDeleted` (the field is in the table); a
            // webhook's answer after its delete is not stated beyond "delete".
            if self.kind == Kind::Task && data.get("isDeleted") != Some(&Value::Bool(true)) {
                return vec![
                    Finding::new(
                        clause,
                        "model: deleted task",
                        "404, or the task with isDeleted true, after its DELETE was accepted",
                        format!(
                            "200 with isDeleted {}",
                            data.get("isDeleted").unwrap_or(&Value::Null)
                        ),
                    )
                    .at(format!("{at}/isDeleted")),
                ];
            }
            return Vec::new();
        }
        self.judge_fields(data, shown, at)
    }

    /// Judges the resource as a list showed it: a deleted task may be listed only with
    /// `isDeleted` true.
    pub(crate) fn judge_listed(
        &mut self,
        item: &Value,
        shown: &HashSet<(Kind, &'static str)>,
        at: &str,
    ) -> Vec<Finding> {
        self.judge(item, shown, at)
    }

    fn judge_fields(
        &mut self,
        data: &Value,
        shown: &HashSet<(Kind, &'static str)>,
        at: &str,
    ) -> Vec<Finding> {
        let mut out = Vec::new();
        let mut confirmed = Vec::new();
        let is_shown = |pointer: &'static str| shown.contains(&(self.kind, pointer));
        for (pointer, clause, known) in &self.fields {
            let actual = data.pointer(pointer);
            let present = actual.filter(|v| !v.is_null());
            let wrong = match (known, present) {
                (Known::Cleared, None) => None,
                (Known::Cleared, Some(v)) => Some(("null or absent".to_string(), v.clone())),
                // Absent or null is allowed (READINGS 1.3), unless the target shows the field
                // on other resources of the kind: then a null is a value, and a wrong one.
                (_, None) => {
                    if is_shown(pointer) && !matches!(known, Known::Set(s, _) if s.is_empty()) {
                        Some((describe(known), actual.cloned().unwrap_or(Value::Null)))
                    } else {
                        None
                    }
                }
                (Known::Text(t), Some(v)) => (trimmed(v).as_deref() != Some(t.as_str()))
                    .then(|| (describe(known), v.clone())),
                (Known::Instant(t), Some(v)) => {
                    (instant(v) != Some(*t)).then(|| (describe(known), v.clone()))
                }
                (Known::Bool(b), Some(v)) => {
                    (v.as_bool() != Some(*b)).then(|| (describe(known), v.clone()))
                }
                (Known::Set(s, fold), Some(v)) => {
                    let got: Option<BTreeSet<String>> = match v {
                        Value::Array(items) if items.iter().all(|i| i.is_string()) => {
                            strings(v).map(|s| fold_set(s, *fold))
                        }
                        Value::Array(_) => match entry_values(Some(v), *fold) {
                            Known::Set(s, _) => Some(s),
                            _ => None,
                        },
                        _ => None,
                    };
                    (got.as_ref() != Some(s)).then(|| (describe(known), v.clone()))
                }
            };
            // A value shown as last set (a cleared field shown null or absent) confirms it.
            if wrong.is_none() && (present.is_some() || matches!(known, Known::Cleared)) {
                confirmed.push(*pointer);
            }
            if let Some((expected, actual)) = wrong {
                let cited: Vec<String> = match self.confirmed.get(pointer) {
                    Some(since) if !since.is_empty() => {
                        since.iter().map(|c| c.to_string()).collect()
                    }
                    _ => vec![clause.to_string()],
                };
                out.push(
                    Finding::new(
                        clause,
                        format!("model: {}", pointer.trim_start_matches('/')),
                        format!("{expected}, as the run last set it"),
                        crate::redact::compact(&actual),
                    )
                    .at(format!("{at}{pointer}"))
                    .with_clauses(&cited),
                );
            }
        }
        for pointer in confirmed {
            self.confirmed.insert(pointer, Vec::new());
        }
        if self.kind == Kind::Task {
            out.extend(self.judge_assignees(data, shown, at));
        }
        out
    }

    /// `assignedTo` holds user ids: none the run unassigned since, and, where it lists them all
    /// (an array), every user the run assigned since.
    fn judge_assignees(
        &self,
        data: &Value,
        shown: &HashSet<(Kind, &'static str)>,
        at: &str,
    ) -> Vec<Finding> {
        let actual = data.get("assignedTo").filter(|v| !v.is_null());
        let listed: Option<BTreeSet<String>> = match actual {
            Some(Value::String(s)) => Some([s.clone()].into()),
            Some(Value::Array(_)) => actual.and_then(strings),
            _ => None,
        };
        let wrong = match (actual, &listed) {
            (None, _) => !self.assigned.is_empty() && shown.contains(&(Kind::Task, "/assignedTo")),
            (Some(Value::Array(_)), Some(l)) => {
                !self.assigned.is_subset(l) || l.iter().any(|u| self.unassigned.contains(u))
            }
            (Some(_), Some(l)) => l.iter().any(|u| self.unassigned.contains(u)),
            _ => false,
        };
        if !wrong {
            return Vec::new();
        }
        let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        vec![
            Finding::new(
                ASSIGN,
                "model: assignedTo",
                format!(
                    "assignees that include [{}] and none of [{}], as the run assigned and unassigned them",
                    list(&self.assigned),
                    list(&self.unassigned)
                ),
                actual.map_or("null".into(), crate::redact::compact),
            )
            .at(format!("{at}/assignedTo")),
        ]
    }
}

fn fold_set(s: BTreeSet<String>, fold: bool) -> BTreeSet<String> {
    if fold {
        s.into_iter().map(|v| v.to_lowercase()).collect()
    } else {
        s
    }
}

fn describe(known: &Known) -> String {
    match known {
        Known::Text(t) => Value::String(t.clone()).to_string(),
        Known::Instant(t) => format!(
            "the instant {}",
            t.format(&Rfc3339).unwrap_or_else(|_| "?".into())
        ),
        Known::Bool(b) => b.to_string(),
        Known::Set(s, _) => format!(
            "the set {}",
            Value::Array(s.iter().cloned().map(Value::String).collect())
        ),
        Known::Cleared => "null or absent".into(),
    }
}
