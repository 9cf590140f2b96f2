//! Calls: `call_id` (recorded, transcribed, handled by `user_id`), `call_participant`,
//! `call_status`, `voicemail_call_id`, `summary_call_id`.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::fields::{data, is_e164, str_at};
use super::fixture::Fixture;
use super::numbers::Numbers;
use super::reason::{Reason, Tried};
use super::request::Request;
use super::session::Discoverer;

fn lists(v: &Value, id: &str) -> bool {
    data(v).iter().any(|x| str_at(x, "/id") == Some(id))
}

impl Discoverer<'_> {
    /// `call_id`, `call_participant`, `call_status`, `voicemail_call_id`, `summary_call_id`.
    pub async fn calls(&mut self, pn: &str, numbers: &Numbers) {
        let at = Request::new(
            "/calls",
            &[
                ("phoneNumberId", pn),
                ("include", "summary,voicemail"),
                ("maxResults", "100"),
            ],
        );
        let calls = match self.walk(&at, 3).await {
            Ok(c) => c,
            Err(e) => {
                for f in [
                    Fixture::CallId,
                    Fixture::CallParticipant,
                    Fixture::VoicemailCallId,
                    Fixture::SummaryCallId,
                ] {
                    self.not_found(f, e.clone());
                }
                return;
            }
        };
        if self.wants(Fixture::CallId) || self.wants(Fixture::CallParticipant) {
            let ours: BTreeSet<&str> = numbers.iter().map(|(_, n)| n.as_str()).collect();
            self.call_and_its_values(pn, &calls, &ours).await;
        }
        // Each include fixture needs one call with what it names, not one call with both.
        self.call_with(pn, &calls, Fixture::VoicemailCallId, "voicemail")
            .await;
        self.call_with(pn, &calls, Fixture::SummaryCallId, "summary")
            .await;
    }

    /// `call_id`, then the participant and the status of that call (or of the one given).
    async fn call_and_its_values(&mut self, pn: &str, calls: &[Value], ours: &BTreeSet<&str>) {
        let given = self.have_str(Fixture::CallId);
        let chosen = self.recorded_call(pn, calls, given.as_deref()).await;
        let call = chosen.or_else(|| {
            given.and_then(|id| {
                calls
                    .iter()
                    .find(|c| str_at(c, "/id") == Some(id.as_str()))
                    .map(|c| (id, c.clone()))
            })
        });
        if let Some((id, call)) = call {
            if self.wants(Fixture::CallParticipant) {
                self.call_participant(pn, &id, &call, ours).await;
            }
            // The status of call_id, checked as a filter value: the list keeps call_id and
            // only calls of that status (or that do not show one).
            if self.wants(Fixture::CallStatus) {
                self.call_status(pn, &id, &call).await;
            }
        }
        self.not_found(Fixture::CallStatus, Reason::NoCallForStatus);
    }

    /// The first of (at most 8) calls of `pn`, or the one given, with a recording of two or
    /// more segments and a transcript, handled by `user_id` when it is known; found as
    /// `call_id` (or `call_id` and `call_participant` not found, with every candidate's reason).
    async fn recorded_call(
        &mut self,
        pn: &str,
        calls: &[Value],
        given: Option<&str>,
    ) -> Option<(String, Value)> {
        let user = self.have_str(Fixture::UserId);
        let mut tried = Tried::default();
        let order = calls
            .iter()
            .filter(|c| given.is_none_or(|id| str_at(c, "/id") == Some(id)));
        for c in order.take(8) {
            let Some(id) = str_at(c, "/id").filter(|id| id.starts_with("AC")) else {
                continue;
            };
            if let (Some(u), Some(by)) = (&user, str_at(c, "/userId")) {
                if by != u {
                    continue;
                }
            }
            match self.verify_call(pn, id, user.as_deref()).await {
                Ok(how) => {
                    self.found(Fixture::CallId, json!(id), how);
                    return Some((id.to_string(), c.clone()));
                }
                Err(why) => tried.push(why),
            }
        }
        let why = if calls.is_empty() {
            Reason::NoCall { pn: pn.into() }
        } else {
            Reason::NoRecordedCall {
                pn: pn.into(),
                by_user: user.is_some(),
                tried,
            }
        };
        self.not_found(Fixture::CallId, why.clone());
        self.not_found(Fixture::CallParticipant, Reason::NoCallId(Box::new(why)));
        None
    }

    /// How call `id` shows it has a recording of two or more segments, a transcript, and (when
    /// `user` is known) that `user` handled it; or why not.
    async fn verify_call(
        &mut self,
        pn: &str,
        id: &str,
        user: Option<&str>,
    ) -> Result<String, Reason> {
        let recording = self
            .get(&Request::new(format!("/v1/call-recordings/{id}"), &[]))
            .await?;
        let segments = data(&recording).len();
        if segments < 2 {
            return Err(Reason::FewSegments {
                call: id.into(),
                segments,
            });
        }
        let transcript = self
            .get(&Request::new(
                format!("/calls/{id}/transcripts"),
                // READINGS 4.4: no range is stated for transcripts: the narrowest (1-50).
                &[("maxResults", "50")],
            ))
            .await?;
        let n = data(&transcript).len();
        if n == 0 {
            return Err(Reason::NoTranscript { call: id.into() });
        }
        let mut how = format!(
            "GET /calls?phoneNumberId={pn}, GET /v1/call-recordings/{id} ({segments} segments), GET /calls/{id}/transcripts ({n} segments)"
        );
        let Some(u) = user else {
            how.push_str(" (user_id unknown: who handled it is not checked)");
            return Ok(how);
        };
        let by_actor = self
            .get(&Request::new(
                "/calls",
                &[("phoneNumberId", pn), ("actorId", u), ("maxResults", "100")],
            ))
            .await;
        if !by_actor.as_ref().is_ok_and(|v| lists(v, id)) {
            return Err(Reason::NotHandledBy {
                call: id.into(),
                user: u.into(),
            });
        }
        how.push_str(&format!(", GET /calls?actorId={u} (handled by user_id)"));
        Ok(how)
    }

    /// `call_participant`: the one party of `call` besides the workspace's numbers, by which
    /// `GET /v1/calls` lists the call.
    async fn call_participant(&mut self, pn: &str, id: &str, call: &Value, ours: &BTreeSet<&str>) {
        let ps: Option<Vec<&str>> = call.get("participants").and_then(Value::as_array).map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .filter(|p| !ours.contains(p))
                .collect()
        });
        let cp = match ps {
            Some(ps) if ps.len() == 1 && is_e164(ps[0]) => ps[0].to_string(),
            Some(ps) => {
                return self.not_found(
                    Fixture::CallParticipant,
                    Reason::CallParticipants {
                        participants: ps.len(),
                    },
                );
            }
            None => {
                return self.not_found(
                    Fixture::CallParticipant,
                    Reason::CallParticipantsHidden { pn: pn.into() },
                );
            }
        };
        let at = Request::new(
            "/v1/calls",
            &[
                ("phoneNumberId", pn),
                ("participants", &cp),
                ("maxResults", "100"),
            ],
        );
        match self.get(&at).await {
            Ok(v) if lists(&v, id) => self.found(
                Fixture::CallParticipant,
                json!(cp),
                format!("the `participants` of call_id; {at} lists call_id"),
            ),
            Ok(_) => self.not_found(Fixture::CallParticipant, Reason::CallNotListed { at }),
            Err(e) => self.not_found(Fixture::CallParticipant, e),
        }
    }

    /// `call_status`: the `status` of `call`, when `status=` keeps the call and only calls of
    /// that status.
    async fn call_status(&mut self, pn: &str, id: &str, call: &Value) {
        let Some(status) = str_at(call, "/status").filter(|s| !s.is_empty()) else {
            return self.not_found(
                Fixture::CallStatus,
                Reason::CallStatusHidden { pn: pn.into() },
            );
        };
        let at = Request::new(
            "/calls",
            &[
                ("phoneNumberId", pn),
                ("status", status),
                ("maxResults", "100"),
            ],
        );
        match self.get(&at).await {
            Ok(v) => {
                let items = data(&v);
                let has = items.iter().any(|x| str_at(x, "/id") == Some(id));
                let only = items.iter().all(|x| {
                    x.get("status")
                        .is_none_or(|s| s.is_null() || s.as_str() == Some(status))
                });
                if has && only {
                    self.found(
                        Fixture::CallStatus,
                        json!(status),
                        format!("the `status` of call_id; {at} lists call_id and only calls of that status"),
                    );
                } else {
                    self.not_found(Fixture::CallStatus, Reason::StatusNotFiltered { at });
                }
            }
            Err(e) => self.not_found(Fixture::CallStatus, e),
        }
    }

    /// `voicemail_call_id` or `summary_call_id`: a call listed with the `field`, whose
    /// read-back with `include=summary,voicemail` (as the contract writes it: one part alone is
    /// not stated, READINGS 6.12) shows it.
    async fn call_with(
        &mut self,
        pn: &str,
        calls: &[Value],
        fixture: Fixture,
        field: &'static str,
    ) {
        if !self.wants(fixture) {
            return;
        }
        let present = |v: Option<&Value>| v.is_some_and(|x| !x.is_null());
        let candidates: Vec<String> = calls
            .iter()
            .filter(|c| present(c.get(field)))
            .filter_map(|c| str_at(c, "/id").map(str::to_string))
            .collect();
        let mut why = Reason::NoCallWith {
            pn: pn.into(),
            field,
        };
        for id in candidates.iter().take(2) {
            let at = Request::new(format!("/calls/{id}"), &[("include", "summary,voicemail")]);
            match self.get(&at).await {
                Ok(v) if present(v.pointer(&format!("/data/{field}"))) => {
                    self.found(
                        fixture,
                        json!(id),
                        format!("GET /calls?phoneNumberId={pn}&include=summary,voicemail, then GET /calls/{id}?include=summary,voicemail: a {field}"),
                    );
                    break;
                }
                Ok(_) => why = Reason::CallLacks { at, field },
                Err(e) => why = e.into(),
            }
        }
        self.not_found(fixture, why);
    }
}
