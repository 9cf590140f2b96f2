//! A receiver on its own, for `workspace-conformance receive`: it takes every delivery on any
//! path (a reproduction's webhook points at it), answers 204, and hands each on with whether its
//! signature verifies with the secret in a file (read when the delivery comes: a reproduction
//! writes the secret of the webhook it creates after the receiver started).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use time::OffsetDateTime;
use tokio::sync::mpsc;

use super::{BODY_CAP, Delivery};
use crate::redact::Redactor;

/// One delivery as `receive` shows it.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub path: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    /// The body as text, redacted of the secret, at most 2,000 characters.
    pub body: String,
    /// `verifies`, or why not, or that there was no secret to verify with.
    pub signature: String,
}

struct Listening {
    secret_file: Option<PathBuf>,
    out: mpsc::UnboundedSender<Received>,
}

/// Binds `listen` and serves until the runtime ends; the deliveries come on the channel.
pub async fn listen(
    listen: SocketAddr,
    secret_file: Option<PathBuf>,
) -> std::io::Result<(SocketAddr, mpsc::UnboundedReceiver<Received>)> {
    let listener = tokio::net::TcpListener::bind(listen).await?;
    let addr = listener.local_addr()?;
    let (tx, rx) = mpsc::unbounded_channel();
    let state = Arc::new(Listening {
        secret_file,
        out: tx,
    });
    let app = Router::new().fallback(take).with_state(state);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok((addr, rx))
}

async fn take(
    State(l): State<Arc<Listening>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Body,
) -> StatusCode {
    let at = Instant::now();
    let received_at = OffsetDateTime::now_utc();
    let Ok(body) = axum::body::to_bytes(body, BODY_CAP).await else {
        return StatusCode::PAYLOAD_TOO_LARGE;
    };
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_ascii_lowercase(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect();
    let delivery = Delivery {
        headers: headers.clone(),
        body,
        at,
        received_at,
        answered: 204,
        parsed: Arc::default(),
    };
    let secret = l
        .secret_file
        .as_ref()
        .and_then(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    let redactor = Redactor::default();
    let signature = match &secret {
        Some(secret) => {
            redactor.secret(secret);
            match super::verify::verify(&delivery, secret) {
                Ok(()) => "verifies with the webhook's secret".to_string(),
                Err(why) => format!("does not verify with the webhook's secret: {why}"),
            }
        }
        None => "not checked: no secret to verify with".to_string(),
    };
    let (text, _) = redactor.cut(&String::from_utf8_lossy(&delivery.body), 2000);
    let _ = l.out.send(Received {
        method: method.to_string(),
        path: uri.path().to_string(),
        headers: headers
            .into_iter()
            .map(|(k, v)| {
                let v = redactor.redact(&v);
                (k, v)
            })
            .collect(),
        body: text,
        signature,
    });
    StatusCode::NO_CONTENT
}
