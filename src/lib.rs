//! workspace-conformance: the binary's commands, which wire the suite (`conformance_suite`) to
//! its targets: a given implementation, or the embedded reference (`conformance_reference`),
//! the default target. The contract (`conformance_contract`) and the declarative cases drive
//! the suite; this crate parses the command line, checks it, starts what a run needs and says
//! the verdict. [`app`] is what the binary and the suite's own tests use of it.

pub mod app;
mod cli;
mod commands;
mod error;
mod exit;
mod output;
