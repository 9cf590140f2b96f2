//! The certification suite of the Workspace Communications API: the case files and the cells
//! generated from the contract (`cases`, `catalog`), the plan of a run (`plan`), the execution of
//! each trial (`execute`) over one HTTP client (`client`) and the webhook receiver (`webhooks`),
//! the checks of every answer (`checks`), the results they make (`results`), and the reports
//! (`report`); discovery of a target's fixtures (`discover`) and the cleanup of what a run
//! created (`cleanup`). It reads the contract crate and knows nothing of the embedded reference.

pub mod cases;
pub mod catalog;
pub(crate) mod checks;
pub mod cleanup;
pub mod client;
pub mod discover;
pub mod execute;
pub(crate) mod model;
pub mod plan;
pub mod preflight;
pub mod redact;
pub mod report;
pub mod results;
pub mod tls;
pub mod webhooks;
pub mod workspaces;

/// The registry of rules every exchange of a run is judged by.
pub use checks::rules;
