//! The suite's own tests, in one binary (as ripgrep and nextest keep theirs): a module per
//! concern, the shared helpers in `common`. Each runs the suite, or the binary, against a
//! target and looks at the verdicts; what needs a crate's insides is a unit test beside the code.

mod common;

/// The runs of the whole catalog against the in-process reference allocate much (each exchange's
/// bodies, headers and findings): mimalloc spends a fraction of glibc's time on it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

mod bad_input;
mod certificates;
mod clause_literals;
mod cli;
mod discover;
mod docs;
mod figures;
mod fixtures;
mod help;
mod hostile;
mod house;
mod layers;
mod merge;
mod openapi;
mod profiles;
mod properties;
mod reports;
mod rules;
mod second;
mod secrets;
mod self_test;
mod snapshots;
mod stated;
mod steps;
mod variants;
mod webhooks;
