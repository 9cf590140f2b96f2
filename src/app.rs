//! What the binary and the suite's own tests use of this crate: the binary's entry, the command
//! line (the docs tests read `--help`), and certification as a library call. Each is defined with
//! the command it belongs to (`crate::commands`).

pub use crate::commands::{Certification, certify, client_for, command, main, new_run_id};
