//! What discovery reads of one number's conversations and messages, once, for the steps of the
//! messages and conversations family: who the number talks with, one to one and in groups.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::fields::{data, is_e164, str_at};
use super::fixture::Fixture;
use super::numbers::Numbers;
use super::request::{Request, RequestError};
use super::session::Discoverer;

/// The conversations and messages of `phone_number_id`, and who it talks with.
pub(crate) struct Inbox {
    pub pn: String,
    /// `GET /v1/conversations?phoneNumbers=` of the number, or why it could not be read.
    pub conversations: Result<Vec<Value>, RequestError>,
    /// The ids of `conversations`, when they could be read.
    pub ids: Option<BTreeSet<String>>,
    /// `GET /messages?phoneNumberId=` of the number (none when it could not be read).
    pub messages: Vec<Value>,
    /// One-to-one counterparts (E.164, not the workspace's), by how many messages show them.
    pub singles: BTreeMap<String, usize>,
    /// Group counterparts (sorted sets), by how many messages show them.
    pub groups: BTreeMap<Vec<String>, usize>,
}

/// `GET /v1/messages` of exactly a set of participants on a number (one page of 100).
pub(crate) struct ExactSet {
    pub at: Request,
    pub items: Vec<Value>,
    /// The conversations the messages are in.
    pub conversations: BTreeSet<String>,
}

impl Inbox {
    /// The participants a conversation of the list shows, if it shows them.
    pub(crate) fn participants_of(&self, id: &str) -> Option<Vec<String>> {
        self.conversations.as_ref().ok()?.iter().find_map(|c| {
            (str_at(c, "/id") == Some(id)).then(|| {
                c.get("participants").and_then(Value::as_array).map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_string)
                        .collect()
                })
            })?
        })
    }

    /// Who the number talks with: recipient sets without the workspace's numbers, the sender
    /// when shown, and the participants of conversations when shown.
    fn count_counterparts(&mut self, ours: &BTreeSet<String>) {
        let theirs = |n: &&str| is_e164(n) && !ours.contains(*n);
        for m in &self.messages {
            let mut to: Vec<String> = m
                .get("to")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(theirs)
                .map(str::to_string)
                .collect();
            to.sort();
            to.dedup();
            match to.len() {
                0 => {}
                1 => *self.singles.entry(to[0].clone()).or_default() += 1,
                _ => *self.groups.entry(to).or_default() += 1,
            }
            if let Some(from) = str_at(m, "/from").filter(theirs) {
                *self.singles.entry(from.to_string()).or_default() += 1;
            }
        }
        for c in self.conversations.as_deref().unwrap_or_default() {
            let mut ps: Vec<String> = c
                .get("participants")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(theirs)
                .map(str::to_string)
                .collect();
            ps.sort();
            match ps.len() {
                0 => {}
                1 => {
                    self.singles.entry(ps[0].clone()).or_default();
                }
                _ => {
                    self.groups.entry(ps).or_default();
                }
            }
        }
    }
}

impl Discoverer<'_> {
    /// Reads the conversations and messages of `pn`; when the messages cannot be read, the
    /// fixtures found from them are not found with that reason.
    pub(crate) async fn inbox(&mut self, pn: &str, numbers: &Numbers) -> Inbox {
        let mut ours: BTreeSet<String> = numbers.iter().map(|(_, n)| n.clone()).collect();
        if let Some(n) = self.have_str(Fixture::PhoneNumber) {
            ours.insert(n);
        }
        let conversations = self
            .walk(
                &Request::new(
                    "/v1/conversations",
                    &[("phoneNumbers", pn), ("maxResults", "100")],
                ),
                3,
            )
            .await;
        let ids = conversations.as_ref().ok().map(|c| {
            c.iter()
                .filter_map(|x| str_at(x, "/id").map(str::to_string))
                .collect()
        });
        let messages = self
            .walk(
                &Request::new("/messages", &[("phoneNumberId", pn), ("maxResults", "100")]),
                5,
            )
            .await;
        let messages = match messages {
            Ok(m) => m,
            Err(e) => {
                for f in [
                    Fixture::MessageParticipant,
                    Fixture::MessageTimeSplit,
                    Fixture::ConversationId,
                    Fixture::GroupParticipants,
                    Fixture::GroupConversationId,
                    Fixture::MessageDirection,
                    Fixture::MediaMessageId,
                ] {
                    self.not_found(f, e.clone());
                }
                Vec::new()
            }
        };
        let mut inbox = Inbox {
            pn: pn.to_string(),
            conversations,
            ids,
            messages,
            singles: BTreeMap::new(),
            groups: BTreeMap::new(),
        };
        inbox.count_counterparts(&ours);
        // The sandbox conversation is one cases change: its participant is no candidate.
        if let Some(p) = self.have_str(Fixture::SandboxConversationParticipant) {
            inbox.singles.remove(&p);
        }
        inbox
    }

    /// `GET /v1/messages` of exactly the set `participants` on `pn` (one page of 100): how it
    /// was asked, the messages, and the conversations they are in.
    pub(crate) async fn messages_of(
        &mut self,
        pn: &str,
        participants: &[String],
    ) -> Result<ExactSet, RequestError> {
        let mut at = Request::new("/v1/messages", &[("phoneNumberId", pn)]);
        for p in participants {
            at = at.with("participants", p);
        }
        let at = at.with("maxResults", "100");
        let v = self.get(&at).await?;
        let items = data(&v).to_vec();
        let conversations = items
            .iter()
            .filter_map(|m| str_at(m, "/conversationId"))
            .map(str::to_string)
            .collect();
        Ok(ExactSet {
            at,
            items,
            conversations,
        })
    }
}
