//! Tasks: the resource, its store and its state machine (open, completed, deleted), with the
//! open-task limit.
//!
//! Open choices of the reference (the contract leaves them open): task ids are `TK` followed by
//! 16 hex digits; `revision` is a decimal counter that grows on every change; `assignedTo` is the
//! most recently assigned user still assigned; a deleted task is kept (`isDeleted`) but every
//! operation on it answers 404; completing a completed task or reopening an open one changes
//! nothing.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;

use super::model::timestamp;

/// The open-task limit of the reference, stated in its profile (`open_task_limit`). Small (the
/// limit case fills it), yet twice what the trials running together may hold (the plan's budget
/// is half the limit): the six random sequences hold three open tasks each, beside the others.
pub(crate) const OPEN_TASK_LIMIT: usize = 40;

/// A task of the workspace.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Task {
    pub task_id: String,
    pub phone_number_id: Option<String>,
    pub conversation_id: Option<String>,
    pub activity_id: Option<String>,
    pub org_id: String,
    pub title: String,
    pub description: Option<String>,
    pub due_date: Option<OffsetDateTime>,
    /// Assigned users, in assignment order.
    pub assignees: Vec<String>,
    pub assigned_by: Option<String>,
    pub created_by: String,
    pub created_at: OffsetDateTime,
    pub completed: bool,
    pub is_deleted: bool,
    pub revision: u64,
}

impl Task {
    pub fn is_open(&self) -> bool {
        !self.completed && !self.is_deleted
    }

    /// The task as the API answers it; `revision` is shown as given (a fault may freeze it).
    pub fn to_json(&self, revision: u64) -> Value {
        json!({
            "taskId": self.task_id,
            "phoneNumberId": self.phone_number_id,
            "conversationId": self.conversation_id,
            "activityId": self.activity_id,
            "phoneNumberGroupId": null,
            "orgId": self.org_id,
            "title": self.title,
            "description": self.description,
            "dueDate": self.due_date.map(timestamp),
            "assignedTo": self.assignees.last(),
            "assignedBy": self.assigned_by,
            "createdBy": self.created_by,
            "createdAt": timestamp(self.created_at),
            "completed": self.completed,
            "isDeleted": self.is_deleted,
            "revision": revision.to_string(),
        })
    }
}

/// What a create sends, validated.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct NewTask {
    pub title: String,
    pub description: Option<String>,
    pub phone_number_id: Option<String>,
    pub conversation_id: Option<String>,
    pub activity_id: Option<String>,
    pub due_date: Option<OffsetDateTime>,
}

/// The tasks of the workspace, in creation order (deleted ones kept, flagged).
#[derive(Debug, Default)]
pub(crate) struct TaskStore {
    tasks: Vec<Task>,
    next_seq: u64,
    /// Each task as it was created: the search index fault task-list-index-snapshot lists from
    /// (written on create, never updated).
    index: std::collections::HashMap<String, Task>,
    /// Tasks holding the one shared default assignee list (fault task-assignees-default-shared).
    pub shared_assignees: std::collections::BTreeSet<String>,
    /// Reopens the open-task counter missed (fault task-open-counter-skips-reopen).
    pub uncounted_reopens: usize,
    /// Tasks as a first GET read them (fault task-get-cache-misses-transitions).
    pub get_cache: std::collections::HashMap<String, Task>,
    /// The whole second of each task's last change (fault task-revision-whole-seconds).
    pub revision_seconds: std::collections::HashMap<String, i64>,
}

/// Whether `id` has the shape of the ids [`TaskStore`] gives: `TK` and 16 lowercase hex digits.
pub(crate) fn issues_task_id(id: &str) -> bool {
    id.strip_prefix("TK").is_some_and(|rest| {
        rest.len() == 16
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

impl TaskStore {
    fn new_id(&mut self, at: OffsetDateTime) -> String {
        self.next_seq += 1;
        format!("TK{:08x}{:08x}", at.unix_timestamp() as u32, self.next_seq)
    }

    pub(crate) fn open_count(&self) -> usize {
        self.tasks.iter().filter(|t| t.is_open()).count()
    }

    /// Tasks not completed, deleted ones included (fault task-limit-counts-deleted: the count
    /// query lacks `is_deleted = false`).
    pub(crate) fn not_completed_count(&self) -> usize {
        self.tasks.iter().filter(|t| !t.completed).count()
    }

    /// Tasks a client can see: every task not deleted.
    pub(crate) fn visible(&self) -> Vec<&Task> {
        self.tasks.iter().filter(|t| !t.is_deleted).collect()
    }

    /// A cursor page: up to `size` visible tasks from position `from` of the store, and the
    /// position after the last one when more follow. Tasks are never removed from the store
    /// (deletion flags them), so a position stays valid while other clients create and delete.
    pub(crate) fn page_after(&self, from: usize, size: usize) -> (Vec<&Task>, Option<usize>) {
        self.page_where(from, size, |t| !t.is_deleted)
    }

    /// [`Self::page_after`] over the tasks `keep` keeps.
    pub(crate) fn page_where(
        &self,
        from: usize,
        size: usize,
        keep: impl Fn(&Task) -> bool,
    ) -> (Vec<&Task>, Option<usize>) {
        let mut items = Vec::new();
        let mut at = from.min(self.tasks.len());
        while at < self.tasks.len() && items.len() < size {
            if keep(&self.tasks[at]) {
                items.push(&self.tasks[at]);
            }
            at += 1;
        }
        let more = self.tasks[at..].iter().any(keep);
        (items, more.then_some(at))
    }

    /// How many visible tasks are stored before position `at` (fault tasks-token-counts-visible
    /// writes this count as the next page's token).
    pub(crate) fn visible_before(&self, at: usize) -> usize {
        self.tasks[..at.min(self.tasks.len())]
            .iter()
            .filter(|t| !t.is_deleted)
            .count()
    }

    /// Fault tasks-keyset-whole-second: where `WHERE created_at > :cursor` resumes, the cursor
    /// being the createdAt, in whole seconds, of the last visible task before position `at`: past
    /// every task created in that second.
    pub(crate) fn after_same_second(&self, at: usize) -> usize {
        let at = at.min(self.tasks.len());
        let Some(last) = self.tasks[..at].iter().rev().find(|t| !t.is_deleted) else {
            return at;
        };
        let second = last.created_at.unix_timestamp();
        at + self.tasks[at..]
            .iter()
            .take_while(|t| t.created_at.unix_timestamp() <= second)
            .count()
    }

    /// The task as the search index holds it: as it was created.
    pub(crate) fn indexed(&self, id: &str) -> Option<&Task> {
        self.index.get(id)
    }

    /// A task by id, deleted ones included (the caller decides what a deleted task answers).
    pub fn get(&self, id: &str) -> Option<&Task> {
        self.tasks.iter().find(|t| t.task_id == id)
    }

    /// Every task, deleted ones included.
    pub(crate) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Task> {
        self.tasks.iter_mut()
    }

    pub(crate) fn get_mut(&mut self, id: &str) -> Option<&mut Task> {
        self.tasks.iter_mut().find(|t| t.task_id == id)
    }

    /// Fault task-conversation-link-unique: every other task linked to `task`'s conversation
    /// loses the link (the link row moved to `task`).
    pub(crate) fn move_conversation_link(&mut self, task: &Task) {
        let Some(conversation) = task.conversation_id.as_deref() else {
            return;
        };
        for other in self.tasks.iter_mut().filter(|t| t.task_id != task.task_id) {
            if other.conversation_id.as_deref() == Some(conversation) {
                other.conversation_id = None;
            }
        }
    }

    pub fn create(
        &mut self,
        input: NewTask,
        org_id: &str,
        created_by: &str,
        now: OffsetDateTime,
    ) -> Task {
        let task = Task {
            task_id: self.new_id(now),
            phone_number_id: input.phone_number_id,
            conversation_id: input.conversation_id,
            activity_id: input.activity_id,
            org_id: org_id.to_string(),
            title: input.title,
            description: input.description,
            due_date: input.due_date,
            assignees: Vec::new(),
            assigned_by: None,
            created_by: created_by.to_string(),
            created_at: now,
            completed: false,
            is_deleted: false,
            revision: 1,
        };
        self.tasks.push(task.clone());
        self.index.insert(task.task_id.clone(), task.clone());
        task
    }

    /// Seeds a task as it stands, e.g. completed.
    pub fn seed(&mut self, input: NewTask, org_id: &str, created_by: &str, completed: bool) {
        let at = datetime!(2026-01-20 09:00 UTC) + time::Duration::hours(self.next_seq as i64);
        let mut task = self.create(input, org_id, created_by, at);
        task.completed = completed;
        // The seeds are indexed as they stand.
        self.index.insert(task.task_id.clone(), task.clone());
        if let Some(last) = self.tasks.last_mut() {
            *last = task;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_task(title: &str) -> NewTask {
        NewTask {
            title: title.into(),
            phone_number_id: Some("PN1".into()),
            ..NewTask::default()
        }
    }

    #[test]
    fn open_count_skips_completed_and_deleted() {
        let mut store = TaskStore::default();
        let now = datetime!(2026-02-01 10:00 UTC);
        let a = store.create(new_task("a"), "OR1", "US1", now);
        let b = store.create(new_task("b"), "OR1", "US1", now);
        store.create(new_task("c"), "OR1", "US1", now);
        assert_eq!(store.open_count(), 3);
        if let Some(t) = store.get_mut(&a.task_id) {
            t.completed = true;
        }
        if let Some(t) = store.get_mut(&b.task_id) {
            t.is_deleted = true;
        }
        assert_eq!(store.open_count(), 1);
        assert_eq!(store.visible().len(), 2);
        assert_ne!(a.task_id, b.task_id);
    }

    #[test]
    fn cursor_pages_survive_deletes_and_end_with_none() {
        let mut store = TaskStore::default();
        let now = datetime!(2026-02-01 10:00 UTC);
        let ids: Vec<String> = (0..5)
            .map(|i| {
                store
                    .create(new_task(&i.to_string()), "OR1", "US1", now)
                    .task_id
            })
            .collect();
        let (page, next) = store.page_after(0, 2);
        assert_eq!(page.len(), 2);
        let Some(next) = next else {
            panic!("more follow")
        };
        if let Some(t) = store.get_mut(&ids[0]) {
            t.is_deleted = true;
        }
        let (page, next) = store.page_after(next, 2);
        assert_eq!(page[0].task_id, ids[2]);
        let (page, last) = store.page_after(next.unwrap_or_default(), 2);
        assert_eq!(page.len(), 1);
        assert_eq!(last, None);
    }

    #[test]
    fn json_shows_the_last_assignee_and_the_revision() {
        let mut store = TaskStore::default();
        let mut t = store.create(new_task("x"), "OR1", "US1", datetime!(2026-02-01 10:00 UTC));
        t.assignees = vec!["US1".into(), "US2".into()];
        let j = t.to_json(7);
        assert_eq!(j["assignedTo"], "US2");
        assert_eq!(j["revision"], "7");
        assert_eq!(j["dueDate"], Value::Null);
    }
}
