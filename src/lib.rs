//! workspace-conformance: the certification suite for the Workspace Communications API.
//!
//! The contract (`schemas/`) and the declarative cases (`cases/`) drive a runner that hits any
//! target and checks every answer; `reference` is the embedded reference implementation.

pub mod app;
pub mod cases;
pub mod catalog;
pub mod checks;
pub mod cleanup;
pub mod cli;
pub mod client;
pub mod commands;
pub mod contract;
pub mod discover;
pub mod error;
pub mod execute;
pub mod output;
pub mod plan;
pub mod preflight;
pub mod profile;
pub mod redact;
pub mod reference;
pub mod report;
pub mod tls;
pub mod webhooks;
