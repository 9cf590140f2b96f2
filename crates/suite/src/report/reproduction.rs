//! A defect's reproduction as the reports carry it (`reproduce` makes it): the shell lines of
//! the requests that show the defect, and how a script tells that they show it again.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A defect's reproduction.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reproduction {
    /// The trial whose requests these are.
    pub trial: String,
    /// The requests, in the order the run sent them, as shell lines: `$BASE` is the target,
    /// `$RECEIVER` the webhook receiver a delivery's reproduction starts; the last line's answer
    /// (`curl -i`) shows the defect.
    pub lines: Vec<String>,
    /// What shows the defect, in words.
    pub shows: String,
    /// How a script tells that the last answer shows it.
    pub check: Check,
}

/// What tells that a reproduction's last answer shows the defect again: the same answer as in
/// the run at the place the finding looked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Check {
    /// The answer's status is the run's.
    Status { status: u16 },
    /// The value at `pointer` (`path` for jq) of the answer's body is the run's (compact JSON).
    Json {
        pointer: String,
        path: Vec<Value>,
        value: String,
    },
    /// The header is the run's.
    Header { name: String, value: String },
    /// A delivery came and its signature does not verify with the webhook's secret.
    Signature,
    /// As many deliveries came as in the run.
    Deliveries { count: usize },
}
