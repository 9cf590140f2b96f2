//! The HTTP exchange: one reqwest client for the run, auth and version headers, a timeout and a
//! body-size cap on every request, every exchange recorded, secrets redacted, curl rendering.
//! One file per job: the exchange record, bounded bodies, the rate limit and `429` retries, the
//! curl rendering, and the client that sends.

mod body;
mod curl;
mod exchange;
mod rate;
mod transport;

pub use crate::redact::{API_KEY_PLACEHOLDER, Redactor, SECRET_PLACEHOLDER};
pub use body::{LARGE_BODY, LARGE_BODY_TRIALS, parse_body, parse_json, with_large_body_slot};
pub use exchange::{Auth, EXCERPT_CHARS, Exchange, NotJson, Outgoing, Response, TransportError};
pub use rate::RateLimiter;
pub use transport::{Client, ClientConfig};
