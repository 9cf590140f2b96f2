//! Fixtures found from the conversation list that need a fixture given by hand
//! (`inactive_conversation_id`, `sandbox_conversation_participant`), and
//! `task_conversation_id`.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::fields::{is_e164, str_at};
use super::fixture::Fixture;
use super::reason::Reason;
use super::request::Request;
use super::session::Discoverer;

impl Discoverer<'_> {
    /// `task_conversation_id`, `inactive_conversation_id`, `sandbox_conversation_participant`,
    /// from the conversations of `pn` (`None`: they could not be read).
    pub(crate) async fn conditional(&mut self, pn: &str, conversations: Option<&[Value]>) {
        if self.wants(Fixture::TaskConversationId) {
            self.task_conversation(pn, conversations);
        }
        if self.wants(Fixture::InactiveConversationId) {
            self.inactive_conversation(pn, conversations).await;
        }
        if self.wants(Fixture::SandboxConversationParticipant) {
            self.sandbox_participant(pn, conversations);
        }
    }

    /// `task_conversation_id`: `conversation_id`, or the first conversation of the list.
    fn task_conversation(&mut self, pn: &str, conversations: Option<&[Value]>) {
        let cn = self.have_str(Fixture::ConversationId).or_else(|| {
            conversations?.iter().find_map(|c| {
                str_at(c, "/id")
                    .filter(|id| id.starts_with("CN"))
                    .map(str::to_string)
            })
        });
        match cn {
            Some(cn) => self.found(
                Fixture::TaskConversationId,
                json!(cn),
                format!("GET /v1/conversations?phoneNumbers={pn}: a conversation of the workspace (tasks link to it; it is not changed)"),
            ),
            None => self.not_found(
                Fixture::TaskConversationId,
                Reason::NoConversation { pn: pn.into() },
            ),
        }
    }

    /// `inactive_conversation_id`: a conversation the exclude-inactive filter (its query name
    /// given by hand) leaves out.
    async fn inactive_conversation(&mut self, pn: &str, conversations: Option<&[Value]>) {
        let (param, all) = match (
            self.have_str(Fixture::ConversationsExcludeInactiveParam),
            conversations,
        ) {
            (Some(param), Some(all)) => (param, all),
            (None, _) => {
                return self.not_found(Fixture::InactiveConversationId, Reason::InactiveNeedsParam);
            }
            (Some(_), None) => {
                return self.not_found(
                    Fixture::InactiveConversationId,
                    Reason::ConversationsUnread { pn: pn.into() },
                );
            }
        };
        let at = Request::new(
            "/v1/conversations",
            &[
                ("phoneNumbers", pn),
                (&param, "true"),
                ("maxResults", "100"),
            ],
        );
        let active = match self.walk(&at, 3).await {
            Ok(active) => active,
            Err(e) => return self.not_found(Fixture::InactiveConversationId, e),
        };
        let active: BTreeSet<&str> = active.iter().filter_map(|c| str_at(c, "/id")).collect();
        let inactive = all
            .iter()
            .filter_map(|c| str_at(c, "/id"))
            .find(|id| !active.contains(id) && id.starts_with("CN"))
            .map(str::to_string);
        match inactive {
            Some(id) => self.found(
                Fixture::InactiveConversationId,
                json!(id),
                format!("GET /v1/conversations?phoneNumbers={pn} lists it, {at} leaves it out"),
            ),
            None => self.not_found(
                Fixture::InactiveConversationId,
                Reason::NoneLeftOut { at, pn: pn.into() },
            ),
        }
    }

    /// `sandbox_conversation_participant`: the one participant of `sandbox_conversation_id`.
    fn sandbox_participant(&mut self, pn: &str, conversations: Option<&[Value]>) {
        let Some(cn) = self.have_str(Fixture::SandboxConversationId) else {
            return self.not_found(
                Fixture::SandboxConversationParticipant,
                Reason::SandboxNeedsConversation,
            );
        };
        let ps: Option<Vec<String>> = conversations.and_then(|all| {
            all.iter()
                .find(|c| str_at(c, "/id") == Some(cn.as_str()))
                .and_then(|c| {
                    c.get("participants").and_then(Value::as_array).map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                })
        });
        match ps {
            Some(ps) if ps.len() == 1 && is_e164(&ps[0]) => self.found(
                Fixture::SandboxConversationParticipant,
                json!(ps[0]),
                format!("GET /v1/conversations?phoneNumbers={pn}: the one participant of sandbox_conversation_id"),
            ),
            Some(ps) => self.not_found(
                Fixture::SandboxConversationParticipant,
                Reason::SandboxParticipants {
                    participants: ps.len(),
                },
            ),
            None => self.not_found(
                Fixture::SandboxConversationParticipant,
                Reason::SandboxParticipantsHidden { pn: pn.into() },
            ),
        }
    }
}
