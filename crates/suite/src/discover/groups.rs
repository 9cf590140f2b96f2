//! The group conversations: `group_participants`, `group_conversation_id`, and
//! `group_superset_participants` (a larger group, for the exact-set filter).

use serde_json::{Value, json};

use super::fixture::Fixture;
use super::inbox::Inbox;
use super::reason::{Reason, Tried};
use super::request::Request;
use super::session::Discoverer;

/// A group fixture's value as a list of numbers (empty when it is not a list).
fn numbers_of(v: Option<Value>) -> Option<Vec<String>> {
    match v {
        Some(Value::Array(g)) => Some(
            g.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect(),
        ),
        _ => None,
    }
}

impl Discoverer<'_> {
    /// `group_participants`, `group_conversation_id`, then `group_superset_participants`.
    pub async fn groups(&mut self, inbox: &Inbox) {
        let mut ranked: Vec<(&Vec<String>, &usize)> = inbox.groups.iter().collect();
        ranked.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let all: Vec<Vec<String>> = ranked.into_iter().map(|(g, _)| g.clone()).collect();
        let order = match numbers_of(self.have(Fixture::GroupParticipants)) {
            Some(given) => vec![given],
            None => all.clone(),
        };
        if self.wants(Fixture::GroupParticipants) || self.wants(Fixture::GroupConversationId) {
            self.group(inbox, &order).await;
        }
        if self.wants(Fixture::GroupSupersetParticipants) {
            self.superset(inbox, &all).await;
        }
    }

    /// The first group of `order` whose messages are all in one group conversation of the
    /// number with exactly those participants.
    async fn group(&mut self, inbox: &Inbox, order: &[Vec<String>]) {
        let pn = inbox.pn.as_str();
        let mut tried = Tried::default();
        let one_to_one = self.have_str(Fixture::ConversationId);
        for g in order.iter().filter(|g| g.len() >= 2).take(3) {
            match self
                .group_conversation(inbox, g, one_to_one.as_deref())
                .await
            {
                Ok((at, cn)) => {
                    self.found(
                        Fixture::GroupParticipants,
                        json!(g),
                        format!("{at}: every message in the group conversation {cn}"),
                    );
                    self.found(
                        Fixture::GroupConversationId,
                        json!(cn),
                        format!("{at}: every message of group_participants is in it"),
                    );
                    break;
                }
                Err(why) => tried.push(why),
            }
        }
        let why = if order.iter().all(|g| g.len() < 2) {
            Reason::NoGroup { pn: pn.into() }
        } else {
            Reason::NoGroupPassed {
                pn: pn.into(),
                tried,
            }
        };
        self.not_found(Fixture::GroupParticipants, why.clone());
        self.not_found(Fixture::GroupConversationId, why);
    }

    /// How the messages of exactly `g` were asked, and their one conversation, if it is a group
    /// conversation of the number (listed, not the one-to-one one) with exactly `g`.
    async fn group_conversation(
        &mut self,
        inbox: &Inbox,
        g: &Vec<String>,
        one_to_one: Option<&str>,
    ) -> Result<(Request, String), Reason> {
        let set = self.messages_of(&inbox.pn, g).await?;
        let at = set.at;
        if set.items.is_empty() || set.conversations.len() != 1 {
            return Err(Reason::Scattered {
                at,
                messages: set.items.len(),
                conversations: set.conversations.len(),
            });
        }
        let cn = set.conversations.into_iter().next().unwrap_or_default();
        if inbox.ids.as_ref().is_some_and(|ids| !ids.contains(&cn))
            || !cn.starts_with("CN")
            || one_to_one == Some(cn.as_str())
        {
            return Err(Reason::NotAGroup {
                at,
                conversation: cn,
                pn: inbox.pn.clone(),
            });
        }
        let mut sorted_ps = inbox.participants_of(&cn).unwrap_or_else(|| g.clone());
        sorted_ps.sort();
        if sorted_ps != *g {
            return Err(Reason::OtherParticipants {
                at,
                conversation: cn,
            });
        }
        Ok((at, cn))
    }

    /// `group_superset_participants`: another group with messages whose participants are every
    /// number of `group_participants` and more.
    async fn superset(&mut self, inbox: &Inbox, all: &[Vec<String>]) {
        let pn = inbox.pn.as_str();
        let group = numbers_of(self.have(Fixture::GroupParticipants)).unwrap_or_default();
        let group_cn = self.have_str(Fixture::GroupConversationId);
        let mut why = if group.is_empty() {
            Reason::NeedsGroup
        } else {
            Reason::NoSuperset { pn: pn.into() }
        };
        for g in all
            .iter()
            .filter(|g| g.len() > group.len() && group.iter().all(|p| g.contains(p)))
            .take(3)
        {
            match self.messages_of(pn, g).await {
                Ok(set) => {
                    if set.items.is_empty()
                        || set.conversations.len() != 1
                        || group_cn
                            .as_deref()
                            .is_some_and(|c| set.conversations.contains(c))
                    {
                        why = Reason::Scattered {
                            at: set.at,
                            messages: set.items.len(),
                            conversations: set.conversations.len(),
                        };
                        continue;
                    }
                    self.found(
                        Fixture::GroupSupersetParticipants,
                        json!(g),
                        format!(
                            "{}: messages of one group conversation other than group_conversation_id",
                            set.at
                        ),
                    );
                    break;
                }
                Err(e) => why = e.into(),
            }
        }
        self.not_found(Fixture::GroupSupersetParticipants, why);
    }
}
