//! Messages of a kind: `message_direction` (a filter value), `media_message_id`,
//! `undelivered_message_id`, and guesses for the failed messages only a person can name.

use std::collections::BTreeMap;

use serde_json::json;

use super::fields::{data, str_at};
use super::fixture::Fixture;
use super::inbox::Inbox;
use super::reason::{Reason, Tried};
use super::request::{Request, RequestError};
use super::session::Discoverer;

impl Discoverer<'_> {
    /// Direction, media, undelivered and failed messages of the number, in that order.
    pub(crate) async fn message_kinds(&mut self, inbox: &Inbox) {
        if self.wants(Fixture::MessageDirection) {
            self.direction(inbox).await;
        }
        if self.wants(Fixture::MediaMessageId) {
            self.media(inbox).await;
        }
        if self.wants(Fixture::UndeliveredMessageId) {
            self.undelivered(&inbox.pn).await;
        }
        if self.lacks(Fixture::SandboxFailedMessageId)
            || self.lacks(Fixture::PermanentFailedMessageId)
        {
            self.failed(&inbox.pn).await;
        }
    }

    /// `message_direction`: the commonest direction the messages show that `direction=` keeps
    /// alone.
    async fn direction(&mut self, inbox: &Inbox) {
        let pn = inbox.pn.as_str();
        let mut dirs: BTreeMap<String, usize> = BTreeMap::new();
        for m in &inbox.messages {
            if let Some(d) = str_at(m, "/direction").filter(|d| !d.is_empty()) {
                *dirs.entry(d.to_string()).or_default() += 1;
            }
        }
        let mut by_count: Vec<(String, usize)> = dirs.into_iter().collect();
        by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut tried = Tried::default();
        for (d, _) in by_count.iter().take(2) {
            let at = Request::new(
                "/messages",
                &[
                    ("phoneNumberId", pn),
                    ("direction", d),
                    ("maxResults", "100"),
                ],
            );
            match self.get(&at).await {
                Ok(v) => {
                    let items = data(&v);
                    let all = items.iter().all(|m| {
                        m.get("direction")
                            .is_none_or(|x| x.is_null() || x.as_str() == Some(d))
                    });
                    if !items.is_empty() && all {
                        self.found(
                            Fixture::MessageDirection,
                            json!(d),
                            format!("{at}: {} messages, each of that direction", items.len()),
                        );
                        return;
                    }
                    tried.push(Reason::MixedDirections { at });
                }
                Err(e) => tried.push(e),
            }
        }
        let why = if by_count.is_empty() {
            Reason::NoDirection { pn: pn.into() }
        } else {
            Reason::AllFailed(tried)
        };
        self.not_found(Fixture::MessageDirection, why);
    }

    /// `media_message_id`: a message listed with media whose read-back shows it.
    async fn media(&mut self, inbox: &Inbox) {
        let with_media: Vec<String> = inbox
            .messages
            .iter()
            .filter(|m| {
                m.get("media")
                    .and_then(serde_json::Value::as_array)
                    .is_some_and(|a| !a.is_empty())
            })
            .filter_map(|m| str_at(m, "/id").map(str::to_string))
            .collect();
        let mut why = Reason::NoMedia {
            pn: inbox.pn.clone(),
        };
        for id in with_media.iter().take(2) {
            let at = Request::new(format!("/messages/{id}"), &[]);
            match self.get(&at).await {
                Ok(v)
                    if v.pointer("/data/media")
                        .and_then(serde_json::Value::as_array)
                        .is_some_and(|a| !a.is_empty()) =>
                {
                    self.found(
                        Fixture::MediaMessageId,
                        json!(id),
                        format!("GET /messages/{id}: its `media` is not empty"),
                    );
                    break;
                }
                Ok(_) => why = Reason::MediaEmpty { at },
                Err(e) => why = e.into(),
            }
        }
        self.not_found(Fixture::MediaMessageId, why);
    }

    /// `undelivered_message_id`: a message `status=undelivered` lists, read back undelivered.
    async fn undelivered(&mut self, pn: &str) {
        let ids = match self.ids_by_status(pn, "undelivered").await {
            Ok(ids) => ids,
            Err(e) => return self.not_found(Fixture::UndeliveredMessageId, e),
        };
        let mut why = Reason::NoUndelivered { pn: pn.into() };
        for id in ids.iter().take(2) {
            let at = Request::new(format!("/messages/{id}"), &[]);
            match self.get(&at).await {
                Ok(v) if str_at(&v, "/data/status") == Some("undelivered") => {
                    self.found(
                        Fixture::UndeliveredMessageId,
                        json!(id),
                        format!("GET /messages?phoneNumberId={pn}&status=undelivered, then GET /messages/{id}: status `undelivered`"),
                    );
                    break;
                }
                Ok(_) => why = Reason::NotUndelivered { at },
                Err(e) => why = e.into(),
            }
        }
        self.not_found(Fixture::UndeliveredMessageId, why);
    }

    /// The failed messages of the number, named as guesses: whether a failure is permanent (or
    /// may be retried) no request shows.
    async fn failed(&mut self, pn: &str) {
        let guess = match self.ids_by_status(pn, "failed").await {
            // Every one seen (of the first page, bounded): a run uses one up per retrying trial,
            // so a person may list several; each retry sends a real message again, so only a
            // person may choose them (a sandbox fixture is never discovered).
            Ok(ids) if !ids.is_empty() => format!(
                "failed messages of {pn}: {} (GET /messages?phoneNumberId={pn}&status=failed); whether a failure is permanent is not shown; a run retries up to 3, one per retrying trial, so `sandbox_failed_message_id` may list several",
                ids.iter().take(20).cloned().collect::<Vec<_>>().join(", ")
            ),
            Ok(_) => format!(
                "GET /messages?phoneNumberId={pn}&status=failed lists no failed message: the target has none to give"
            ),
            Err(_) => return,
        };
        self.guess(Fixture::SandboxFailedMessageId, guess.clone());
        self.guess(Fixture::PermanentFailedMessageId, guess);
    }

    /// Ids of the messages of `pn` with this status (`GET /messages?status=`, a Message field
    /// name, READINGS 6.1), as their `status` shows it.
    async fn ids_by_status(&mut self, pn: &str, status: &str) -> Result<Vec<String>, RequestError> {
        let at = Request::new(
            "/messages",
            &[
                ("phoneNumberId", pn),
                ("status", status),
                ("maxResults", "100"),
            ],
        );
        self.get(&at).await.map(|v| {
            data(&v)
                .iter()
                .filter(|m| str_at(m, "/status") == Some(status))
                .filter_map(|m| str_at(m, "/id").map(str::to_string))
                .collect()
        })
    }
}
