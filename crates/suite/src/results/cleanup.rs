//! What the cleanup of a run did: removed, already gone, not removed, left.

use serde::Serialize;

/// What the cleanup did, for the terminal and the reports.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    pub run_id: String,
    /// Resources deleted by the cleanup (`DELETE path`).
    pub removed: Vec<String>,
    /// Registered resources already gone when the cleanup came (404).
    pub already_gone: Vec<String>,
    /// Resources the cleanup could not delete, with the reason.
    pub not_removed: Vec<String>,
    /// Created resources without a delete endpoint: left, tagged with the run id.
    pub left: Vec<String>,
}

impl Summary {
    /// The one line a run prints: what the cleanup did, counted (`--verbose` and the reports
    /// list it).
    pub fn line(&self) -> String {
        let not_removed = match self.not_removed.first() {
            Some(first) if self.not_removed.len() == 1 => format!(" ({first})"),
            Some(first) => format!(" (first: {first})"),
            None => String::new(),
        };
        format!(
            "cleanup (run {}): {} removed, {} already gone, {} could not be removed{not_removed}, {} left without a delete endpoint (tagged with the run id)",
            self.run_id,
            self.removed.len(),
            self.already_gone.len(),
            self.not_removed.len(),
            self.left.len()
        )
    }

    /// The line and the listing (`--verbose`).
    pub fn render(&self) -> String {
        let mut out = format!("{}\n", self.line());
        let mut list = |label: &str, items: &[String]| {
            for item in items.iter().take(10) {
                out.push_str(&format!("  {label} {item}\n"));
            }
            if items.len() > 10 {
                out.push_str(&format!("  {label} ... and {} more\n", items.len() - 10));
            }
        };
        list("removed:    ", &self.removed);
        list("NOT removed:", &self.not_removed);
        list("left:       ", &self.left);
        out
    }
}
