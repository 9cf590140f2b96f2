//! The one-to-one conversation: `message_participant`, `conversation_id`, and
//! `message_time_split` between two of its messages.

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::fields::{data, str_at};
use super::fixture::Fixture;
use super::inbox::Inbox;
use super::reason::{Reason, Tried};
use super::request::Request;
use super::session::Discoverer;

/// A participant's messages, all in one usable conversation of the number.
struct Single {
    at: Request,
    items: Vec<Value>,
    conversation: String,
}

fn time_of(v: &Value) -> Option<OffsetDateTime> {
    str_at(v, "/createdAt").and_then(|s| OffsetDateTime::parse(s, &Rfc3339).ok())
}

/// The distinct instants of some messages, in order.
fn instants(items: &[Value]) -> Vec<OffsetDateTime> {
    let mut times: Vec<OffsetDateTime> = items.iter().filter_map(time_of).collect();
    times.sort();
    times.dedup();
    times
}

/// An instant strictly between `a` and `b` (a < b), in whole seconds where one fits.
fn between(a: OffsetDateTime, b: OffsetDateTime) -> String {
    let mid = a + (b - a) / 2_i32;
    let whole = mid.replace_nanosecond(0).unwrap_or(mid);
    let t = if whole > a { whole } else { mid };
    t.format(&Rfc3339).unwrap_or_default()
}

impl Discoverer<'_> {
    /// `message_participant`, `conversation_id`, `message_time_split`: the busiest counterpart
    /// whose messages are all in one conversation, with messages at two instants when the split
    /// is wanted.
    pub(crate) async fn one_to_one(&mut self, inbox: &Inbox) {
        let order = self.counterparts(inbox);
        if !self.wants(Fixture::MessageParticipant)
            && !self.wants(Fixture::ConversationId)
            && !self.wants(Fixture::MessageTimeSplit)
        {
            return;
        }
        let pn = inbox.pn.as_str();
        let sandbox = self.have_str(Fixture::SandboxConversationId);
        // Usable, but without a split: kept in case no candidate has both.
        let mut fallback: Option<(String, String)> = None;
        let mut tried = Tried::default();
        for p in order.iter().take(5) {
            let single = match self.single(inbox, p, sandbox.as_deref()).await {
                Ok(s) => s,
                Err(why) => {
                    tried.push(why);
                    continue;
                }
            };
            let times = instants(&single.items);
            let needs_split = self.wants(Fixture::MessageTimeSplit);
            if needs_split && times.len() < 2 && fallback.is_none() {
                fallback = Some((p.clone(), single.conversation));
                tried.push(Reason::NoInstants { at: single.at });
                continue;
            }
            self.found_conversation(p, &single.conversation, &single.at);
            if needs_split && times.len() >= 2 {
                self.split(pn, p, &times).await;
            }
            fallback = None;
            break;
        }
        if let Some((p, cn)) = fallback {
            let asked = format!("GET /v1/messages?phoneNumberId={pn}&participants={p}");
            self.found_conversation(&p, &cn, &asked);
        }
        let why = if order.is_empty() {
            Reason::NoOneToOne { pn: pn.into() }
        } else if tried.is_empty() {
            Reason::NoCandidatePassed
        } else {
            Reason::NoParticipantPassed {
                pn: pn.into(),
                tried,
            }
        };
        self.not_found(Fixture::MessageParticipant, why.clone());
        self.not_found(Fixture::ConversationId, why.clone());
        self.not_found(
            Fixture::MessageTimeSplit,
            Reason::NoSplitConversation(Box::new(why)),
        );
    }

    /// The one-to-one counterparts to try, the busiest first; only the given one when
    /// `message_participant` is given.
    fn counterparts(&self, inbox: &Inbox) -> Vec<String> {
        if let Some(p) = self.have_str(Fixture::MessageParticipant) {
            return vec![p];
        }
        let mut candidates: Vec<(&String, &usize)> = inbox.singles.iter().collect();
        candidates.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        candidates.into_iter().map(|(p, _)| p.clone()).collect()
    }

    /// `message_participant` and `conversation_id`, as `asked` shows them.
    fn found_conversation(&mut self, p: &str, cn: &str, asked: &dyn std::fmt::Display) {
        self.found(
            Fixture::MessageParticipant,
            json!(p),
            format!("{asked}: every message in {cn}"),
        );
        self.found(
            Fixture::ConversationId,
            json!(cn),
            format!("{asked}: every message of message_participant is in it"),
        );
    }

    /// The messages of exactly `p`, if they are all in one conversation of the number that
    /// cases may read: listed, not the sandbox one, with no other participant.
    async fn single(
        &mut self,
        inbox: &Inbox,
        p: &String,
        sandbox: Option<&str>,
    ) -> Result<Single, Reason> {
        let set = self.messages_of(&inbox.pn, std::slice::from_ref(p)).await?;
        let at = set.at;
        if set.items.is_empty() || set.conversations.len() != 1 {
            return Err(Reason::Scattered {
                at,
                messages: set.items.len(),
                conversations: set.conversations.len(),
            });
        }
        let cn = set.conversations.into_iter().next().unwrap_or_default();
        if !cn.starts_with("CN") || Some(cn.as_str()) == sandbox {
            return Err(Reason::Unusable {
                at,
                conversation: cn,
            });
        }
        if inbox.ids.as_ref().is_some_and(|ids| !ids.contains(&cn)) {
            return Err(Reason::NotListed {
                at,
                conversation: cn,
                pn: inbox.pn.clone(),
            });
        }
        if inbox
            .participants_of(&cn)
            .is_some_and(|ps| ps != [p.clone()])
        {
            return Err(Reason::OtherParticipants {
                at,
                conversation: cn,
            });
        }
        Ok(Single {
            at,
            items: set.items,
            conversation: cn,
        })
    }

    /// `message_time_split`: an instant between the middle two of `times`, checked with
    /// `createdBefore` and `createdAfter`.
    async fn split(&mut self, pn: &str, p: &str, times: &[OffsetDateTime]) {
        let path = "/v1/messages";
        let i = times.len() / 2;
        let split = between(times[i - 1], times[i]);
        let side = |bound: &str| {
            Request::new(
                path,
                &[
                    ("phoneNumberId", pn),
                    ("participants", p),
                    (bound, &split),
                    ("maxResults", "1"),
                ],
            )
        };
        let before = self.get(&side("createdBefore")).await;
        let after = self.get(&side("createdAfter")).await;
        let nonempty = |r: &Result<Value, _>| r.as_ref().is_ok_and(|v| !data(v).is_empty());
        if nonempty(&before) && nonempty(&after) {
            self.found(
                Fixture::MessageTimeSplit,
                json!(split),
                format!("GET {path}?...&createdBefore={split} and GET {path}?...&createdAfter={split}: messages of message_participant on both sides"),
            );
        } else {
            self.not_found(
                Fixture::MessageTimeSplit,
                Reason::SplitNotFiltered {
                    split,
                    participant: p.to_string(),
                },
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_split_lies_strictly_between() {
        let a = OffsetDateTime::parse("2026-01-10T09:00:00Z", &Rfc3339).unwrap();
        let b = OffsetDateTime::parse("2026-01-15T12:00:00Z", &Rfc3339).unwrap();
        let s = OffsetDateTime::parse(&between(a, b), &Rfc3339).unwrap();
        assert!(a < s && s < b);
        let c = a + Duration::from_millis(1);
        let s = OffsetDateTime::parse(&between(a, c), &Rfc3339).unwrap();
        assert!(a < s && s < c, "{s}");
    }
}
