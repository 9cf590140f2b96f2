//! The HTTP exchange: one reqwest client for the run, auth and version headers, a timeout and a
//! body-size cap on every request, every exchange recorded, secrets redacted, curl rendering.
//! One file per job: the exchange record, bounded bodies, the rate limit and `429` retries, the
//! curl rendering, and the client that sends.

mod body;
pub(crate) mod curl;
mod exchange;
mod rate;
mod transport;

pub use crate::redact::Redactor;
pub(crate) use crate::redact::{API_KEY_PLACEHOLDER, NEAR_MISS_PLACEHOLDER};
pub(crate) use body::{large_answers_seen, with_large_body_slot};
pub use exchange::{Auth, NearKey, Outgoing, Response, TransportError};
pub(crate) use exchange::{EXCERPT_CHARS, Exchange, NotJson};
pub use transport::{Client, ClientConfig};
