//! Standard Webhooks verification of one delivery, with a reason a reader can act on.

use axum::http::{HeaderMap, HeaderName, HeaderValue};
use standardwebhooks::{Webhook, WebhookError};

use super::Delivery;

/// The headers the scheme requires (Authentication 4).
pub(crate) const REQUIRED_HEADERS: [&str; 3] =
    ["webhook-id", "webhook-timestamp", "webhook-signature"];

/// Why a delivery does not verify with a secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    MissingHeader(&'static str),
    /// The timestamp is outside the tolerance of the scheme (5 minutes), or not a number.
    Timestamp(String),
    /// Computed over `id.timestamp.body` with this secret, the signature differs.
    Signature,
    Other(String),
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rejection::MissingHeader(h) => write!(f, "the header `{h}` is missing"),
            Rejection::Timestamp(why) => write!(f, "webhook-timestamp {why}"),
            Rejection::Signature => write!(
                f,
                "webhook-signature is not the HMAC-SHA256 of `webhook-id.webhook-timestamp.body` with the secret"
            ),
            Rejection::Other(why) => write!(f, "{why}"),
        }
    }
}

/// Verifies `delivery` against `secret` (`whsec_...`) with the `standardwebhooks` crate.
pub fn verify(delivery: &Delivery, secret: &str) -> Result<(), Rejection> {
    for h in REQUIRED_HEADERS {
        if delivery.header(h).is_none() {
            return Err(Rejection::MissingHeader(h));
        }
    }
    let webhook = Webhook::new(secret)
        .map_err(|e| Rejection::Other(format!("the secret is not usable: {e}")))?;
    let mut headers = HeaderMap::new();
    for (k, v) in &delivery.headers {
        if let (Ok(name), Ok(value)) = (
            HeaderName::from_bytes(k.as_bytes()),
            HeaderValue::from_str(v),
        ) {
            headers.append(name, value);
        }
    }
    let age = |d: &Delivery| {
        d.header("webhook-timestamp")
            .and_then(|t| t.parse::<i64>().ok())
            .map(|t| d.received_at.unix_timestamp() - t)
    };
    webhook
        .verify(&delivery.body, &headers)
        .map_err(|e| match e {
            WebhookError::MissingHeader(h) => Rejection::MissingHeader(match h {
                "id" => "webhook-id",
                "timestamp" => "webhook-timestamp",
                _ => "webhook-signature",
            }),
            WebhookError::InvalidTimestamp => {
                Rejection::Timestamp("is not a Unix time in seconds".into())
            }
            WebhookError::TimestampTooOldError => Rejection::Timestamp(format!(
                "is stale: {} s before the delivery arrived (tolerance 300 s)",
                age(delivery).unwrap_or_default()
            )),
            WebhookError::FutureTimestampError => Rejection::Timestamp(format!(
                "is {} s in the future (tolerance 300 s)",
                -age(delivery).unwrap_or_default()
            )),
            WebhookError::InvalidSignature => Rejection::Signature,
            other => Rejection::Other(other.to_string()),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::OffsetDateTime;

    fn delivery(secret: &str, id: &str, ts: i64, body: &str) -> Delivery {
        let signature = Webhook::new(secret)
            .and_then(|w| w.sign(id, ts, body.as_bytes()))
            .unwrap();
        Delivery {
            headers: vec![
                ("webhook-id".into(), id.into()),
                ("webhook-timestamp".into(), ts.to_string()),
                ("webhook-signature".into(), signature),
            ],
            body: axum::body::Bytes::copy_from_slice(body.as_bytes()),
            at: std::time::Instant::now(),
            received_at: OffsetDateTime::now_utc(),
            answered: 204,
            parsed: Default::default(),
        }
    }

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const OTHER: &str = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";

    #[test]
    fn good_bad_stale_and_missing() {
        let now = OffsetDateTime::now_utc().unix_timestamp();
        let good = delivery(SECRET, "msg_1", now, r#"{"a":1}"#);
        assert_eq!(verify(&good, SECRET), Ok(()));
        assert_eq!(verify(&good, OTHER), Err(Rejection::Signature));
        let stale = delivery(SECRET, "msg_1", now - 600, r#"{"a":1}"#);
        assert!(
            matches!(verify(&stale, SECRET), Err(Rejection::Timestamp(t)) if t.contains("stale"))
        );
        let mut unsigned = good.clone();
        unsigned.headers.retain(|(k, _)| k != "webhook-signature");
        assert_eq!(
            verify(&unsigned, SECRET),
            Err(Rejection::MissingHeader("webhook-signature"))
        );
    }
}
