//! The in-memory workspace: contacts in creation order, custom field definitions and webhooks.
//!
//! The store applies validated input only; what a client may send is decided in `contact_input`.

use std::collections::HashMap;

use time::{Duration, OffsetDateTime};

use super::contact_input::{ContactInput, CustomFieldInput, EntryInput};
use super::model::{Contact, CustomFieldDef, CustomFieldItem, Entry, Webhook};
use super::task_store::TaskStore;

/// Everything one instance holds; handlers reach it through `App::store`.
#[derive(Debug, Default)]
pub(crate) struct Store {
    contacts: Vec<Contact>,
    custom_field_defs: Vec<CustomFieldDef>,
    webhooks: Vec<Webhook>,
    /// Webhook secrets, deliveries and legacy webhooks (`deliveries.rs`).
    pub hooks: super::hooks::Hooks,
    // --- messages and conversations (issue 4): add this area's data below (one field holding its own store type) ---
    /// Lines, conversations and messages (`messaging.rs`).
    pub messaging: super::messaging::Messaging,

    // --- calls, recordings, users, phone numbers, organization, access control (issue 5): add this area's data below (one field holding its own store type) ---
    workspace: super::workspace::Workspace,

    // --- tasks (issue 6): add this area's data below (one field holding its own store type) ---
    tasks: TaskStore,
    /// Source of every generated id, so ids never repeat within an instance and seeds are stable.
    next_seq: u64,
    /// The shapes of generated ids (variants `contact-ids-uuid`, `entry-ids-numeric`).
    pub(crate) id_shapes: IdShapes,
    /// The externalId each contact was created with, by contact id: the index fault
    /// contacts-external-id-index-stale reads (written on create, never on update).
    external_id_index: HashMap<String, Option<String>>,
    /// Contacts as a first read found them (fault contact-get-cache-stale).
    pub(crate) contact_read_cache: HashMap<String, Contact>,
    /// Message lists by caller and filter (fault messages-list-cache-not-invalidated).
    pub(crate) message_list_cache: HashMap<String, Vec<super::messaging::Message>>,
    /// The module-level default filters of GET /messages, updated in place by every filtered
    /// request (fault messages-filters-default-shared).
    pub(crate) message_default_filters: Vec<(&'static str, Vec<String>)>,
    /// The sends of the last seconds by caller and body, with their answers (fault
    /// send-deduped-by-body).
    pub(crate) recent_sends: Vec<(String, OffsetDateTime, serde_json::Value)>,
    /// v1 conversation lists by caller and filter (fault conversations-v1-cache-misses-sends).
    pub(crate) conversation_list_cache: HashMap<String, Vec<super::messaging::Conversation>>,
    /// The first organization answered, for every caller (fault organization-cache-global).
    pub(crate) organization_cache: Option<serde_json::Value>,
    /// GET /calls/{callId} answers by path (fault call-get-cache-ignores-include).
    pub(crate) call_get_cache: HashMap<String, serde_json::Value>,
    /// Contacts deleted in the app, kept flagged (fault contact-get-ignores-soft-delete).
    pub(crate) deleted_contacts: Vec<Contact>,
    /// Contacts holding the one shared default custom field list (fault
    /// contact-custom-fields-default-shared).
    pub(crate) shared_custom_fields: std::collections::BTreeSet<String>,
    /// The createdAt default of the send path's model, computed at the first send (fault
    /// send-created-at-default-frozen).
    pub(crate) frozen_send_at: Option<OffsetDateTime>,
    /// Callers who passed the number-scoped check of GET /v1/calls/{callId} once (fault
    /// call-v1-access-memoized-per-caller).
    pub(crate) call_access_memo: std::collections::BTreeSet<String>,
    /// When each message's last retry took its in-flight lock (fault retry-cooldown-409).
    pub(crate) retry_locks: HashMap<String, OffsetDateTime>,
    /// When the gateway cached a 401 answer, by method, path and query (fault
    /// unauthorized-answer-cached).
    pub(crate) unauthorized_cache: HashMap<String, OffsetDateTime>,
}

/// Which shape generated ids take; every shape is conforming (ids are opaque, READINGS 5.1).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct IdShapes {
    pub contact_uuid: bool,
    pub entry_numeric: bool,
}

impl IdShapes {
    /// Whether `id` has a shape this store gives contacts: 24 lowercase hex digits (the seeded
    /// ones and the default), or a UUID of lowercase hex when `contact_uuid` is on.
    pub(crate) fn issues_contact_id(&self, id: &str) -> bool {
        let hex = |s: &str| {
            s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if id.len() == 24 && hex(id) {
            return true;
        }
        let groups: Vec<&str> = id.split('-').collect();
        self.contact_uuid
            && groups.iter().map(|g| g.len()).eq([8, 4, 4, 4, 12])
            && groups.iter().all(|g| hex(g))
    }
}

impl Store {
    fn next_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq
    }

    /// A fresh number for an id (never repeated within an instance).
    pub(crate) fn next_id(&mut self) -> u64 {
        self.next_seq()
    }

    /// 24 lowercase hex digits shaped like a document id: creation second, then a sequence.
    fn new_contact_id(&mut self, at: OffsetDateTime) -> String {
        let seq = self.next_seq();
        if self.id_shapes.contact_uuid {
            let t = at.unix_timestamp() as u32;
            return format!(
                "{t:08x}-{:04x}-4{:03x}-8{:03x}-{seq:012x}",
                (seq >> 16) & 0xffff,
                seq & 0xfff,
                (seq >> 4) & 0xfff
            );
        }
        format!("{:08x}{:016x}", at.unix_timestamp() as u32, seq)
    }

    fn new_sub_id(&mut self, prefix: &str) -> String {
        let seq = self.next_seq();
        if self.id_shapes.entry_numeric {
            return format!("{}", 900_000 + seq);
        }
        format!("{prefix}_{seq:010x}")
    }

    /// The read side of the workspace (calls, users, phone numbers, organization).
    pub fn workspace(&self) -> &super::workspace::Workspace {
        &self.workspace
    }

    pub(crate) fn workspace_mut(&mut self) -> &mut super::workspace::Workspace {
        &mut self.workspace
    }

    pub(crate) fn set_workspace(&mut self, workspace: super::workspace::Workspace) {
        self.workspace = workspace;
    }

    pub(crate) fn add_custom_field_def(&mut self, def: CustomFieldDef) {
        self.custom_field_defs.push(def);
    }

    pub(crate) fn add_webhook(&mut self, webhook: Webhook) {
        self.webhooks.push(webhook);
    }

    pub(crate) fn custom_field_defs(&self) -> &[CustomFieldDef] {
        &self.custom_field_defs
    }

    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    pub fn contact(&self, id: &str) -> Option<&Contact> {
        self.contacts.iter().find(|c| c.id == id)
    }

    pub(crate) fn contact_mut(&mut self, id: &str) -> Option<&mut Contact> {
        self.contacts.iter_mut().find(|c| c.id == id)
    }

    /// The externalId the index holds for a contact: the one it was created with.
    pub(crate) fn indexed_external_id(&self, id: &str) -> Option<&str> {
        self.external_id_index.get(id).and_then(|e| e.as_deref())
    }

    pub fn webhook(&self, id: &str) -> Option<&Webhook> {
        self.webhooks.iter().find(|w| w.id == id)
    }

    pub fn webhooks(&self) -> &[Webhook] {
        &self.webhooks
    }

    pub(crate) fn webhook_mut(&mut self, id: &str) -> Option<&mut Webhook> {
        self.webhooks.iter_mut().find(|w| w.id == id)
    }

    /// Removes a contact (a deletion made in the app, simulated by the activity hook).
    pub(crate) fn remove_contact(&mut self, id: &str) -> Option<Contact> {
        let at = self.contacts.iter().position(|c| c.id == id)?;
        Some(self.contacts.remove(at))
    }

    pub(crate) fn remove_webhook(&mut self, id: &str) -> bool {
        let before = self.webhooks.len();
        self.webhooks.retain(|w| w.id != id);
        self.webhooks.len() != before
    }

    pub fn tasks(&self) -> &TaskStore {
        &self.tasks
    }

    pub(crate) fn tasks_mut(&mut self) -> &mut TaskStore {
        &mut self.tasks
    }

    /// Creates a contact from validated input; `source` and `created_by_user_id` are the final
    /// values (the caller applies the defaults the contract gives for them).
    pub(crate) fn create_contact(
        &mut self,
        input: ContactInput,
        source: Option<String>,
        created_by_user_id: Option<String>,
        now: OffsetDateTime,
    ) -> Contact {
        let id = self.new_contact_id(now);
        let emails = self.entries(input.emails, &[], "em");
        let phone_numbers = self.entries(input.phone_numbers, &[], "ph");
        let custom_fields = self.custom_items(input.custom_fields, &[]);
        let contact = Contact {
            id,
            external_id: input.external_id,
            source,
            source_url: input.source_url,
            company: input.company,
            first_name: input.first_name,
            last_name: input.last_name,
            role: input.role,
            emails,
            phone_numbers,
            custom_fields,
            created_at: now,
            updated_at: now,
            created_by_user_id,
        };
        self.external_id_index
            .insert(contact.id.clone(), contact.external_id.clone());
        self.contacts.push(contact.clone());
        contact
    }

    /// Applies a PATCH: emails, phone numbers and custom fields become exactly those of `input`
    /// (the contract's replace rule); other fields keep their value unless `input` gives one.
    /// Replaces the contact's entries with the sent ones; other omitted fields are kept, or cleared
    /// with `clear_omitted` (what becomes of them is not stated, READINGS 2.6).
    pub(crate) fn replace_contact(
        &mut self,
        id: &str,
        input: ContactInput,
        now: OffsetDateTime,
        clear_omitted: bool,
    ) -> Option<Contact> {
        let index = self.contacts.iter().position(|c| c.id == id)?;
        let current = self.contacts[index].clone();
        let emails = self.entries(input.emails, &current.emails, "em");
        let phone_numbers = self.entries(input.phone_numbers, &current.phone_numbers, "ph");
        let custom_fields = self.custom_items(input.custom_fields, &current.custom_fields);
        let kept = |sent: Option<String>, had: Option<String>| {
            if clear_omitted { sent } else { sent.or(had) }
        };
        let updated = Contact {
            id: current.id,
            external_id: input.external_id.or(current.external_id),
            source: input.source.or(current.source),
            source_url: input.source_url.or(current.source_url),
            company: kept(input.company, current.company),
            first_name: kept(input.first_name, current.first_name),
            last_name: kept(input.last_name, current.last_name),
            role: kept(input.role, current.role),
            emails,
            phone_numbers,
            custom_fields,
            created_at: current.created_at,
            updated_at: later_than(current.updated_at, now),
            created_by_user_id: current.created_by_user_id,
        };
        self.contacts[index] = updated.clone();
        Some(updated)
    }

    /// An entry keeps its id only when it names one the contact already has; any other id a
    /// client sends is not trusted, so ids stay unique.
    fn entries(&mut self, sent: Vec<EntryInput>, existing: &[Entry], prefix: &str) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::with_capacity(sent.len());
        for entry in sent {
            let id = match entry.id {
                Some(id)
                    if existing.iter().any(|e| e.id == id) && !out.iter().any(|e| e.id == id) =>
                {
                    id
                }
                _ => self.new_sub_id(prefix),
            };
            out.push(Entry {
                id,
                name: entry.name,
                value: entry.value,
            });
        }
        out
    }

    fn custom_items(
        &mut self,
        sent: Vec<CustomFieldInput>,
        existing: &[CustomFieldItem],
    ) -> Vec<CustomFieldItem> {
        let mut out: Vec<CustomFieldItem> = Vec::with_capacity(sent.len());
        for item in sent {
            let id = match item.id {
                Some(id)
                    if existing.iter().any(|e| e.id == id) && !out.iter().any(|e| e.id == id) =>
                {
                    id
                }
                _ => self.new_sub_id("cf"),
            };
            out.push(CustomFieldItem {
                id,
                key: item.key,
                value: item.value,
            });
        }
        out
    }
}

/// An update must move `updatedAt` forward even when the clock lags the seeds or two updates
/// fall within the same millisecond (answers show milliseconds only).
fn later_than(previous: OffsetDateTime, now: OffsetDateTime) -> OffsetDateTime {
    let millis = now.millisecond();
    let now = now.replace_millisecond(millis).unwrap_or(now);
    let floor = previous + Duration::milliseconds(1);
    if now >= floor { now } else { floor }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::datetime;

    fn entry(id: Option<&str>, value: &str) -> EntryInput {
        EntryInput {
            id: id.map(str::to_string),
            name: Some("work".into()),
            value: value.into(),
        }
    }

    fn seeded() -> (Store, Contact) {
        let mut store = Store::default();
        let input = ContactInput {
            first_name: Some("Ada".into()),
            company: Some("Engines".into()),
            external_id: Some("ext-1".into()),
            emails: vec![entry(None, "a@x.test"), entry(None, "b@x.test")],
            phone_numbers: vec![entry(None, "+15550000001")],
            custom_fields: vec![CustomFieldInput {
                id: None,
                key: "notes".into(),
                value: json!("hello"),
            }],
            ..ContactInput::default()
        };
        let contact = store.create_contact(
            input,
            Some("public-api".into()),
            None,
            datetime!(2026-02-01 10:00 UTC),
        );
        (store, contact)
    }

    #[test]
    fn patch_replaces_entries_and_keeps_other_fields() {
        let (mut store, contact) = seeded();
        let kept = contact.emails[0].id.clone();
        let input = ContactInput {
            emails: vec![entry(Some(&kept), "a2@x.test"), entry(None, "c@x.test")],
            ..ContactInput::default()
        };
        let later = datetime!(2026-02-02 10:00 UTC);
        let updated = store.replace_contact(&contact.id, input, later, false);
        let Some(updated) = updated else {
            panic!("contact exists")
        };
        assert_eq!(updated.emails.len(), 2);
        assert_eq!(updated.emails[0].id, kept);
        assert_eq!(updated.emails[0].value, "a2@x.test");
        assert_ne!(updated.emails[1].id, contact.emails[1].id);
        assert!(updated.phone_numbers.is_empty());
        assert!(updated.custom_fields.is_empty());
        assert_eq!(updated.first_name.as_deref(), Some("Ada"));
        assert_eq!(updated.company.as_deref(), Some("Engines"));
        assert_eq!(updated.external_id.as_deref(), Some("ext-1"));
        assert_eq!(updated.source.as_deref(), Some("public-api"));
        assert_eq!(updated.updated_at, later);
        assert_eq!(store.contact(&contact.id), Some(&updated));
    }

    #[test]
    fn unknown_or_repeated_entry_ids_get_fresh_ids() {
        let (mut store, contact) = seeded();
        let kept = contact.emails[0].id.clone();
        let input = ContactInput {
            emails: vec![
                entry(Some("forged"), "x@x.test"),
                entry(Some(&kept), "a@x.test"),
                entry(Some(&kept), "again@x.test"),
            ],
            ..ContactInput::default()
        };
        let updated =
            store.replace_contact(&contact.id, input, datetime!(2026-02-02 10:00 UTC), false);
        let Some(updated) = updated else {
            panic!("contact exists")
        };
        assert_ne!(updated.emails[0].id, "forged");
        assert_eq!(updated.emails[1].id, kept);
        assert_ne!(updated.emails[2].id, kept);
    }

    #[test]
    fn patch_of_missing_contact_changes_nothing() {
        let (mut store, _) = seeded();
        let before = store.contacts().to_vec();
        let result = store.replace_contact(
            "nope",
            ContactInput::default(),
            datetime!(2026-02-02 10:00 UTC),
            false,
        );
        assert!(result.is_none());
        assert_eq!(store.contacts(), before.as_slice());
    }
}
