//! The task resource. OWNER: contacts-tasks.

use serde_json::{Map, Value, json};
use time::OffsetDateTime;

use crate::contacts::util::{fmt_ts, new_id, now};

/// A task of a workspace.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    pub org_id: String,
    /// Creation order within the instance (tie-break of equal timestamps).
    pub seq: u64,
    pub phone_number_id: Option<String>,
    pub conversation_id: Option<String>,
    pub activity_id: Option<String>,
    pub title: String,
    pub description: Option<String>,
    pub due: Option<OffsetDateTime>,
    /// Assignees, oldest assignment first; `assignedTo` shows the latest.
    pub assignees: Vec<String>,
    pub assigned_by: Option<String>,
    pub created_by: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
    pub completed_by: Option<String>,
    pub deleted: bool,
    /// Number of changes so far; `revision` is this number and a random tag.
    pub changes: u64,
    pub revision: String,
    /// The due date a `task.overdue` was already fired for.
    pub overdue_fired_for: Option<OffsetDateTime>,
}

/// A fresh revision string after `changes` changes.
pub fn revision(changes: u64) -> String {
    format!("{changes}.{}", new_id("", 8))
}

fn opt(s: &Option<String>) -> Value {
    s.as_ref()
        .map(|v| Value::String(v.clone()))
        .unwrap_or(Value::Null)
}

impl Task {
    /// Whether the task counts against the open-task limit.
    pub fn is_open(&self) -> bool {
        !self.deleted && self.completed_at.is_none()
    }

    /// Records one change: a new revision and update time.
    pub fn touch(&mut self) {
        self.changes += 1;
        self.revision = revision(self.changes);
        self.updated_at = now().max(self.updated_at);
    }

    /// The resource.
    pub fn render(&self) -> Value {
        let mut m = Map::new();
        m.insert("taskId".into(), json!(self.id));
        m.insert("orgId".into(), json!(self.org_id));
        m.insert("title".into(), json!(self.title));
        m.insert("description".into(), opt(&self.description));
        m.insert("phoneNumberId".into(), opt(&self.phone_number_id));
        m.insert("conversationId".into(), opt(&self.conversation_id));
        m.insert("activityId".into(), opt(&self.activity_id));
        m.insert("phoneNumberGroupId".into(), Value::Null);
        m.insert(
            "dueDate".into(),
            self.due.map(|d| json!(fmt_ts(d))).unwrap_or(Value::Null),
        );
        m.insert(
            "isOverdue".into(),
            json!(self.is_open() && self.due.is_some_and(|d| d <= now())),
        );
        m.insert("assignedTo".into(), opt(&self.assignees.last().cloned()));
        m.insert("assignees".into(), json!(self.assignees));
        m.insert("assignedBy".into(), opt(&self.assigned_by));
        m.insert("createdBy".into(), json!(self.created_by));
        m.insert("createdAt".into(), json!(fmt_ts(self.created_at)));
        m.insert("updatedAt".into(), json!(fmt_ts(self.updated_at)));
        m.insert("completed".into(), json!(self.completed_at.is_some()));
        m.insert(
            "completedAt".into(),
            self.completed_at
                .map(|d| json!(fmt_ts(d)))
                .unwrap_or(Value::Null),
        );
        m.insert("completedBy".into(), opt(&self.completed_by));
        m.insert("isDeleted".into(), json!(self.deleted));
        m.insert("revision".into(), json!(self.revision));
        Value::Object(m)
    }
}
