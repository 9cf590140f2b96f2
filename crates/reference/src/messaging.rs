//! Messages and conversations of the reference: the workspace lines (phone numbers) with the
//! states that decide sends (A2P registration, daily cap, subscription, international messaging),
//! the seeded conversations and messages, and the operations the routes apply to them.
//!
//! Lists are cut by keyset: a page token names the last item handed out, so messages sent and
//! conversations opened while a client walks never shift the walk (no item twice).

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{Value, json};
use time::format_description::well_known::Rfc3339;
use time::{Duration, OffsetDateTime};

use super::model::timestamp;
use super::pagination::PageQueryError;

/// The workspace a line or a user belongs to; each has the state its name says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Workspace {
    Primary,
    InternationalDisabled,
    SubscriptionExpired,
}

/// The A2P 10DLC state of a sending line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum A2p {
    Approved,
    NotApproved,
    DailyCapReached,
}

/// A phone number of a workspace.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub id: &'static str,
    pub number: &'static str,
    pub workspace: Workspace,
    pub a2p: A2p,
    /// Users of the line: the conversations of `userId` are those of its lines.
    pub users: Vec<&'static str>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Media {
    pub url: String,
    pub kind: String,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Message {
    pub id: String,
    pub to: Vec<String>,
    pub from: String,
    pub text: String,
    pub phone_number_id: String,
    pub conversation_id: String,
    pub direction: &'static str,
    pub user_id: Option<String>,
    pub status: String,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub media: Vec<Media>,
    /// A failure the carrier reported as permanent: the message cannot be retried.
    pub permanent_error: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Conversation {
    pub id: String,
    pub name: Option<String>,
    /// The other parties, without the workspace number.
    pub participants: Vec<String>,
    pub phone_number_id: String,
    pub assigned_to: Option<String>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub last_activity_at: OffsetDateTime,
    pub last_activity_id: Option<String>,
    /// Inbox state: done conversations are out of the inbox; unread ones carry the indicator.
    pub done: bool,
    pub unread: bool,
    /// Inactive conversations are left out when the client asks to exclude them.
    pub active: bool,
}

impl Message {
    pub fn to_json(&self, with_conversation_id: bool) -> Value {
        let mut v = json!({
            "id": self.id,
            "to": self.to,
            "from": self.from,
            "text": self.text,
            "phoneNumberId": self.phone_number_id,
            "conversationId": self.conversation_id,
            "direction": self.direction,
            "userId": self.user_id,
            "status": self.status,
            "createdAt": timestamp(self.created_at),
            "updatedAt": timestamp(self.updated_at),
        });
        if !self.media.is_empty() {
            v["media"] = self
                .media
                .iter()
                .map(|m| json!({"url": m.url, "type": m.kind}))
                .collect();
        }
        if !with_conversation_id {
            if let Some(o) = v.as_object_mut() {
                o.remove("conversationId");
            }
        }
        v
    }
}

impl Conversation {
    pub fn to_json(&self) -> Value {
        json!({
            "id": self.id,
            "name": self.name,
            "participants": self.participants,
            "phoneNumberId": self.phone_number_id,
            "assignedTo": self.assigned_to,
            "createdAt": timestamp(self.created_at),
            "updatedAt": timestamp(self.updated_at),
            "deletedAt": null,
            "lastActivityAt": timestamp(self.last_activity_at),
            "lastActivityId": self.last_activity_id,
            "mutedUntil": null,
            "snoozedUntil": null,
        })
    }
}

/// Why a retry is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RetryRefusal {
    Missing,
    NotFailed,
    Permanent,
    Undelivered,
}

/// The inbox operations of `mark-as-*`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mark {
    Done,
    Open,
    Read,
}

/// All lines, conversations and messages of one instance.
#[derive(Debug, Default)]
pub(crate) struct Messaging {
    lines: Vec<Line>,
    members: Vec<(&'static str, Workspace)>,
    messages: Vec<Message>,
    conversations: Vec<Conversation>,
    seq: u64,
    /// The next record opens a conversation of its own whatever exists (fault
    /// send-duplicate-conversation-replica-lag: the lookup ran on a lagging replica).
    pub(crate) force_new_conversation: bool,
    /// The conversation opened last, kept process-wide (fault
    /// send-answers-last-opened-conversation answers it as every send's).
    pub(crate) last_opened: Option<String>,
}

impl Messaging {
    fn next(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    pub fn conversations(&self) -> &[Conversation] {
        &self.conversations
    }

    /// The workspace of an authenticated user; users not listed belong to the primary one.
    pub(crate) fn workspace_of(&self, user_id: &str) -> Workspace {
        self.members
            .iter()
            .find(|(u, _)| *u == user_id)
            .map(|(_, w)| *w)
            .unwrap_or(Workspace::Primary)
    }

    /// A line of the workspace named by its id (`PN...`) or its E.164 number.
    pub fn line(&self, workspace: Workspace, id_or_number: &str) -> Option<&Line> {
        self.lines.iter().find(|l| {
            l.workspace == workspace && (l.id == id_or_number || l.number == id_or_number)
        })
    }

    /// A line of any workspace named by its id or its number (fault
    /// send-from-other-workspace-number).
    pub(crate) fn line_in_any_workspace(&self, id_or_number: &str) -> Option<&Line> {
        self.lines
            .iter()
            .find(|l| l.id == id_or_number || l.number == id_or_number)
    }

    pub(crate) fn line_by_id(&self, id: &str) -> Option<&Line> {
        self.lines.iter().find(|l| l.id == id)
    }

    pub fn message(&self, id: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.id == id)
    }

    pub fn conversation(&self, id: &str) -> Option<&Conversation> {
        self.conversations.iter().find(|c| c.id == id)
    }

    /// The conversation of a line with exactly this set of participants.
    pub(crate) fn conversation_with(
        &self,
        line_id: &str,
        participants: &[String],
    ) -> Option<&Conversation> {
        let want: BTreeSet<&String> = participants.iter().collect();
        self.conversations.iter().find(|c| {
            c.phone_number_id == line_id && c.participants.iter().collect::<BTreeSet<_>>() == want
        })
    }

    fn conversation_for(
        &mut self,
        line_id: &str,
        participants: &[String],
        at: OffsetDateTime,
    ) -> usize {
        if let Some(c) = self
            .conversation_with(line_id, participants)
            .filter(|_| !self.force_new_conversation)
        {
            let id = c.id.clone();
            return self
                .conversations
                .iter()
                .position(|c| c.id == id)
                .unwrap_or_default();
        }
        let id = format!("CN{:012x}", 0xc0_0000_0000 + self.next());
        self.last_opened = Some(id.clone());
        self.conversations.push(Conversation {
            id,
            name: None,
            participants: participants.to_vec(),
            phone_number_id: line_id.to_string(),
            assigned_to: None,
            created_at: at,
            updated_at: at,
            last_activity_at: at,
            last_activity_id: None,
            done: false,
            unread: false,
            active: true,
        });
        self.conversations.len() - 1
    }

    /// Records a message in its conversation (opened if new) and returns it.
    #[allow(clippy::too_many_arguments)]
    pub fn record(
        &mut self,
        line: &Line,
        participants: &[String],
        outgoing: bool,
        from_participant: Option<&str>,
        text: &str,
        user_id: Option<&str>,
        status: &str,
        at: OffsetDateTime,
    ) -> Message {
        // Kept to the millisecond the answers show: a filter at an instant an answer showed then
        // means what it says of this message and its conversation (docs/defect-kinds.md).
        let at = at.replace_millisecond(at.millisecond()).unwrap_or(at);
        let index = self.conversation_for(line.id, participants, at);
        let id = format!("AC{:016x}", 0xac00_0000_0000 + self.next());
        let (from, to) = if outgoing {
            (line.number.to_string(), participants.to_vec())
        } else {
            let from = from_participant
                .map(str::to_string)
                .unwrap_or_else(|| participants[0].clone());
            let mut to = vec![line.number.to_string()];
            to.extend(participants.iter().filter(|p| **p != from).cloned());
            (from, to)
        };
        let conversation = &mut self.conversations[index];
        let message = Message {
            id: id.clone(),
            to,
            from,
            text: text.to_string(),
            phone_number_id: line.id.to_string(),
            conversation_id: conversation.id.clone(),
            direction: if outgoing { "outgoing" } else { "incoming" },
            user_id: user_id.map(str::to_string),
            status: status.to_string(),
            created_at: at,
            updated_at: at,
            media: Vec::new(),
            permanent_error: None,
        };
        // Activity moves; `updatedAt` stays, so lists sorted by it keep still under traffic.
        conversation.last_activity_at = at;
        conversation.last_activity_id = Some(id);
        if !outgoing {
            conversation.unread = true;
        }
        self.messages.push(message.clone());
        message
    }

    /// Sets the `to` of a recorded message (fault send-conversation-keyed-with-sender: the
    /// conversation holds the sender, the message's recipients do not).
    pub fn set_to(&mut self, id: &str, to: &[String]) {
        if let Some(m) = self.messages.iter_mut().find(|m| m.id == id) {
            m.to = to.to_vec();
        }
    }

    /// Sets the `from` of a recorded message (fault message-from-phone-number-id).
    pub fn set_from(&mut self, id: &str, from: &str) {
        if let Some(m) = self.messages.iter_mut().find(|m| m.id == id) {
            m.from = from.to_string();
        }
    }

    /// Gives a recorded message another id (fault send-stores-carrier-sid), its conversation's
    /// last activity included.
    pub fn rename(&mut self, id: &str, new_id: &str) {
        if let Some(m) = self.messages.iter_mut().find(|m| m.id == id) {
            m.id = new_id.to_string();
        }
        for c in self.conversations.iter_mut() {
            if c.last_activity_id.as_deref() == Some(id) {
                c.last_activity_id = Some(new_id.to_string());
            }
        }
    }

    /// Gives a conversation another id, its messages included (fault send-new-conversation-uuid).
    pub fn rename_conversation(&mut self, id: &str, new_id: &str) {
        for c in self.conversations.iter_mut().filter(|c| c.id == id) {
            c.id = new_id.to_string();
        }
        for m in self.messages.iter_mut().filter(|m| m.conversation_id == id) {
            m.conversation_id = new_id.to_string();
        }
    }

    /// Sets a conversation's createdAt to the instant of a write to its row (fault
    /// conversation-created-at-on-update: an auto-updating TIMESTAMP column).
    pub fn touch_created(&mut self, id: &str, at: OffsetDateTime) {
        let at = at.replace_millisecond(at.millisecond()).unwrap_or(at);
        if let Some(c) = self.conversations.iter_mut().find(|c| c.id == id) {
            c.created_at = at;
        }
    }

    /// Sets the status of a recorded message (variant retry-delivers: a re-attempt that
    /// succeeds).
    pub fn set_status(&mut self, id: &str, status: &str) {
        if let Some(m) = self.messages.iter_mut().find(|m| m.id == id) {
            m.status = status.to_string();
        }
    }

    /// Re-attempts delivery of a failed message.
    pub fn retry(
        &mut self,
        id: &str,
        allow: &[RetryRefusal],
        now: OffsetDateTime,
    ) -> Result<Message, RetryRefusal> {
        let m = self
            .messages
            .iter_mut()
            .find(|m| m.id == id)
            .ok_or(RetryRefusal::Missing)?;
        let refusal = match (m.status.as_str(), m.permanent_error) {
            ("failed", None) => None,
            ("failed", Some(_)) => Some(RetryRefusal::Permanent),
            ("undelivered", _) => Some(RetryRefusal::Undelivered),
            _ => Some(RetryRefusal::NotFailed),
        };
        if let Some(r) = refusal.filter(|r| !allow.contains(r)) {
            return Err(r);
        }
        // The re-attempt is under way when the retry answers; it ends as the first attempt did
        // (the seeded recipient does not receive), so the message is failed again and may be
        // retried by the next run: a staging target certified again and again stays the same.
        let was = std::mem::replace(&mut m.status, "sending".to_string());
        m.updated_at = now.max(m.updated_at + Duration::milliseconds(1));
        let answer = m.clone();
        m.status = was;
        Ok(answer)
    }

    /// Applies an inbox operation; `updatedAt` is left alone (see `record`).
    pub fn mark(&mut self, id: &str, mark: Mark) -> Option<Conversation> {
        let c = self.conversations.iter_mut().find(|c| c.id == id)?;
        match mark {
            Mark::Done => c.done = true,
            Mark::Open => c.done = false,
            Mark::Read => c.unread = false,
        }
        Some(c.clone())
    }
}

/// Keyset pages: the items are already in list order; a token names the last item handed out.
pub(crate) fn keyset_page<T: Clone>(
    items: &[T],
    id_of: impl Fn(&T) -> &str,
    size: usize,
    token: Option<&str>,
) -> Result<(Vec<T>, Option<String>), PageQueryError> {
    let start = match token {
        None => 0,
        Some(t) => {
            let last = decode(t).ok_or_else(|| PageQueryError::ForeignToken {
                token: t.to_string(),
            })?;
            match items.iter().position(|i| id_of(i) == last) {
                Some(p) => p + 1,
                // The item left the filtered set meanwhile: continue after where it sorted.
                None => {
                    return Err(PageQueryError::ExpiredToken {
                        token: t.to_string(),
                    });
                }
            }
        }
    };
    let start = start.min(items.len());
    let end = start.saturating_add(size.max(1)).min(items.len());
    let page = items[start..end].to_vec();
    let next = (end < items.len()).then(|| encode(id_of(&items[end - 1])));
    Ok((page, next))
}

fn encode(id: &str) -> String {
    let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
    format!("k1{hex}")
}

/// The keyset token naming `id`.
pub(crate) fn keyset_token(id: &str) -> String {
    encode(id)
}

/// The id a keyset token names, or `None` for a token this instance did not produce.
pub(crate) fn keyset_id(token: &str) -> Option<String> {
    decode(token)
}

fn decode(token: &str) -> Option<String> {
    let hex = token.strip_prefix("k1")?;
    if hex.len() % 2 != 0 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect();
    String::from_utf8(bytes?).ok()
}

// --- seeds ---------------------------------------------------------------------------------

/// Query names of GET /v1/conversations the spec leaves open ("not shown"); the profile names them.
pub(crate) const EXCLUDE_INACTIVE: &str = "excludeInactive";
pub(crate) const UPDATED_AFTER: &str = "updatedAfter";
pub(crate) const UPDATED_BEFORE: &str = "updatedBefore";

/// The seeded workspaces as data: their lines, the users of the other workspaces, the numbers
/// the profile names, and the messages recorded at start, in order (`seed.json`).
#[derive(Debug, Deserialize)]
pub(crate) struct Seed {
    /// An instant with messages of the participant's conversation on both sides.
    pub time_split: String,
    /// The other party of the one-to-one conversation.
    pub participant: String,
    /// The other parties of the group conversation.
    pub group: Vec<String>,
    /// A larger group holding every number of `group` and one more: the exact-set filter of
    /// participants must not match it (profile fixture `group_superset_participants`).
    pub group_superset: Vec<String>,
    /// The other party of the sandbox conversation.
    pub sandbox_participant: String,
    lines: Vec<SeedLine>,
    members: Vec<(String, Workspace)>,
    messages: Vec<SeedMessage>,
}

#[derive(Debug, Deserialize)]
struct SeedLine {
    name: String,
    id: String,
    number: String,
    workspace: Workspace,
    a2p: A2p,
    users: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct SeedMedia {
    url: String,
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Debug, Deserialize)]
struct SeedMessage {
    /// The id of the line.
    line: String,
    participants: Vec<String>,
    direction: String,
    /// The participant an incoming message comes from (default: the first).
    from: Option<String>,
    text: String,
    /// Sent by the primary user.
    by_user: bool,
    status: String,
    at: String,
    #[serde(default)]
    media: Vec<SeedMedia>,
    permanent_error: Option<String>,
    /// The profile fixture (a `SeededIds` field) the message is.
    #[serde(rename = "is")]
    is: Option<String>,
    /// The profile fixture the message's conversation is.
    conversation_is: Option<String>,
    conversation_name: Option<String>,
}

/// The seed data, read once.
pub(crate) fn seed() -> &'static Seed {
    static SEED: std::sync::LazyLock<Seed> = std::sync::LazyLock::new(|| {
        serde_json::from_str(include_str!("seed.json")).expect("seed.json is a valid seed")
    });
    &SEED
}

impl Seed {
    fn line(&self, name: &str) -> &SeedLine {
        self.lines
            .iter()
            .find(|l| l.name == name)
            .unwrap_or_else(|| panic!("seed.json has no line `{name}`"))
    }

    /// The number of the line called `name` in `seed.json`.
    pub fn number(&self, name: &str) -> &str {
        &self.line(name).number
    }

    /// The id (`PN...`) of the line called `name` in `seed.json`.
    pub(crate) fn line_id(&self, name: &str) -> &str {
        &self.line(name).id
    }
}

/// Ids of the seeded records that the profile names.
#[derive(Debug, Clone, Default)]
pub(crate) struct SeededIds {
    pub conversation: String,
    pub group_conversation: String,
    pub inactive_conversation: String,
    pub sandbox_conversation: String,
    pub failed_message: String,
    pub permanent_failed_message: String,
    pub undelivered_message: String,
    pub media_message: String,
}

impl SeededIds {
    fn slot(&mut self, name: &str) -> &mut String {
        match name {
            "conversation" => &mut self.conversation,
            "group_conversation" => &mut self.group_conversation,
            "inactive_conversation" => &mut self.inactive_conversation,
            "sandbox_conversation" => &mut self.sandbox_conversation,
            "failed_message" => &mut self.failed_message,
            "permanent_failed_message" => &mut self.permanent_failed_message,
            "undelivered_message" => &mut self.undelivered_message,
            "media_message" => &mut self.media_message,
            _ => panic!("seed.json names an unknown record `{name}`"),
        }
    }
}

/// The lines, members and messages of the seeded workspaces (`seed.json`).
pub(crate) fn seeded(
    primary_user: &'static str,
    restricted_user: &'static str,
) -> (Messaging, SeededIds) {
    let s = seed();
    let mut m = Messaging {
        lines: s
            .lines
            .iter()
            .map(|l| Line {
                id: &l.id,
                number: &l.number,
                workspace: l.workspace,
                a2p: l.a2p,
                users: l.users.iter().map(String::as_str).collect(),
            })
            .collect(),
        members: s.members.iter().map(|(u, w)| (u.as_str(), *w)).collect(),
        ..Messaging::default()
    };
    debug_assert_eq!(m.lines[0].users[0], primary_user);
    debug_assert_eq!(m.lines[1].users[1], restricted_user);
    let mut ids = SeededIds::default();
    for sm in &s.messages {
        let line = m
            .line_by_id(&sm.line)
            .cloned()
            .unwrap_or_else(|| panic!("seed.json: no line `{}`", sm.line));
        let outgoing = match sm.direction.as_str() {
            "outgoing" => true,
            "incoming" => false,
            other => panic!("seed.json: direction `{other}`"),
        };
        let at = OffsetDateTime::parse(&sm.at, &Rfc3339)
            .unwrap_or_else(|e| panic!("seed.json: `{}`: {e}", sm.at));
        let msg = m.record(
            &line,
            &sm.participants,
            outgoing,
            sm.from.as_deref(),
            &sm.text,
            sm.by_user.then_some(primary_user),
            &sm.status,
            at,
        );
        for media in &sm.media {
            attach_media(&mut m, &msg.id, &media.url, &media.kind);
        }
        if let Some(code) = &sm.permanent_error {
            set_permanent(&mut m, &msg.id, code);
        }
        if let Some(name) = &sm.is {
            *ids.slot(name) = msg.id.clone();
        }
        if let Some(name) = &sm.conversation_is {
            *ids.slot(name) = msg.conversation_id.clone();
        }
        if let Some(name) = &sm.conversation_name {
            if let Some(c) = m
                .conversations
                .iter_mut()
                .find(|c| c.id == msg.conversation_id)
            {
                c.name = Some(name.clone());
            }
        }
    }
    // updatedAt differs from createdAt order, so sorting by either field is observable.
    for (i, c) in m.conversations.iter_mut().enumerate() {
        c.updated_at = c.created_at + Duration::hours(((i as i64 * 7) % 5) * 24 * 9 + 3);
        c.active = c.id != ids.inactive_conversation;
        c.unread = false;
    }
    (m, ids)
}

fn attach_media(m: &mut Messaging, id: &str, url: &str, kind: &str) {
    if let Some(msg) = m.messages.iter_mut().find(|x| x.id == id) {
        msg.media.push(Media {
            url: url.to_string(),
            kind: kind.to_string(),
        });
    }
}

fn set_permanent(m: &mut Messaging, id: &str, code: &'static str) {
    if let Some(msg) = m.messages.iter_mut().find(|x| x.id == id) {
        msg.permanent_error = Some(code);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn seeds_hold_what_the_profile_promises() {
        let (m, ids) = seeded("USa1B2c3D4e5", "USf6G7h8J9k0");
        let split = datetime!(2026-02-01 00:00 UTC);
        let of_participant: Vec<&Message> = m
            .messages()
            .iter()
            .filter(|x| x.conversation_id == ids.conversation)
            .collect();
        assert!(of_participant.iter().any(|x| x.created_at < split));
        assert!(of_participant.iter().any(|x| x.created_at > split));
        assert_eq!(
            m.message(&ids.failed_message).map(|x| x.status.as_str()),
            Some("failed")
        );
        assert!(
            m.message(&ids.permanent_failed_message)
                .is_some_and(|x| x.permanent_error.is_some())
        );
        assert!(
            m.message(&ids.media_message)
                .is_some_and(|x| !x.media.is_empty())
        );
        assert!(
            m.conversation(&ids.group_conversation)
                .is_some_and(|c| c.participants.len() == 2)
        );
        assert!(
            m.conversation(&ids.inactive_conversation)
                .is_some_and(|c| !c.active)
        );
        assert!(
            m.messages()
                .iter()
                .all(|x| x.id.starts_with("AC") && x.conversation_id.starts_with("CN"))
        );
    }

    #[test]
    fn keyset_pages_walk_once_and_refuse_strangers() {
        let items: Vec<String> = (0..5).map(|i| format!("id{i}")).collect();
        let mut token = None;
        let mut seen = Vec::new();
        loop {
            let (page, next) = keyset_page(&items, |s| s.as_str(), 2, token.as_deref()).unwrap();
            seen.extend(page);
            match next {
                Some(t) => token = Some(t),
                None => break,
            }
        }
        assert_eq!(seen, items);
        assert!(matches!(
            keyset_page(&items, |s| s.as_str(), 2, Some("zz")),
            Err(PageQueryError::ForeignToken { .. })
        ));
        let gone = encode("id0");
        assert!(matches!(
            keyset_page(&items[1..], |s| s.as_str(), 2, Some(&gone)),
            Err(PageQueryError::ExpiredToken { .. })
        ));
    }

    #[test]
    fn refused_retries_change_nothing() {
        let (mut m, ids) = seeded("USa1B2c3D4e5", "USf6G7h8J9k0");
        let now = datetime!(2026-03-01 00:00 UTC);
        for id in [&ids.permanent_failed_message, &ids.undelivered_message] {
            let before = m.message(id).cloned();
            assert!(m.retry(id, &[], now).is_err());
            assert_eq!(m.message(id).cloned(), before);
        }
        // A retry answers the re-attempt under way, which fails again: the next run retries it.
        let answer = m.retry(&ids.failed_message, &[], now).expect("retried");
        assert_eq!(answer.status, "sending");
        assert_eq!(
            m.message(&ids.failed_message).map(|x| x.status.as_str()),
            Some("failed")
        );
        assert!(m.retry(&ids.failed_message, &[], now).is_ok());
    }
}
