//! `webhook_id`: the lowest id of `GET /webhooks`, read back.

use serde_json::json;

use super::fields::{data, str_at};
use super::fixture::Fixture;
use super::reason::Reason;
use super::request::Request;
use super::session::Discoverer;

impl Discoverer<'_> {
    /// `webhook_id`: the oldest webhook (the lowest numeric id), read back.
    pub async fn webhook(&mut self) {
        if !self.wants(Fixture::WebhookId) {
            return;
        }
        let list = match self.get(&Request::new("/webhooks", &[])).await {
            Ok(v) => v,
            Err(e) => return self.not_found(Fixture::WebhookId, e),
        };
        let mut ids: Vec<(u128, String)> = data(&list)
            .iter()
            .filter_map(|w| str_at(w, "/id"))
            .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
            .filter_map(|id| id.parse::<u128>().ok().map(|n| (n, id.to_string())))
            .collect();
        ids.sort();
        let Some((_, id)) = ids.into_iter().next() else {
            return self.not_found(Fixture::WebhookId, Reason::NoWebhook);
        };
        let at = Request::new(format!("/webhooks/{id}"), &[]);
        match self.get(&at).await {
            Ok(v) if str_at(&v, "/data/id") == Some(id.as_str()) => self.found(
                Fixture::WebhookId,
                json!(id),
                format!("GET /webhooks, then GET /webhooks/{id}: the oldest webhook, read back"),
            ),
            Ok(_) => self.not_found(Fixture::WebhookId, Reason::AnotherId { at }),
            Err(e) => self.not_found(Fixture::WebhookId, e),
        }
    }
}
