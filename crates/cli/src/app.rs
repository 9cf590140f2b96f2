//! The library's entry points for the suite's own tests, where they import them: each is
//! defined with the command it belongs to (`crate::commands`).

pub use crate::commands::{
    Certification, certify, client_for, command, main, new_run_id, parse_faults, parse_variants,
    probe, verdict_summary,
};
pub use crate::error::Error;
