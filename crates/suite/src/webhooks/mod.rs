//! The suite's webhook receiver: it records every delivery a target sends (headers, body, time),
//! answers each per the case's script, verifies Standard Webhooks signatures with the
//! `standardwebhooks` crate, and judges the `deliveries` steps of cases.

pub mod listen;
pub mod receiver;
pub mod verify;

pub(crate) use receiver::{Answer, Delivery};
pub use receiver::{BODY_CAP, Heard, KEPT_BYTES_PER_TRIAL, Receiver};
