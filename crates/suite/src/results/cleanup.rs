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
            self.left_by_kind()
        )
    }

    /// What is left, counted by kind (`101 contacts`, `99 contacts and 2 messages`), so that a
    /// reader knows what piles up on the target run after run; `0` when nothing is.
    pub fn left_by_kind(&self) -> String {
        let mut kinds: Vec<(String, usize)> = Vec::new();
        for item in &self.left {
            let kind = kind_of(item);
            match kinds.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => *n += 1,
                None => kinds.push((kind, 1)),
            }
        }
        let parts: Vec<String> = kinds
            .iter()
            .map(|(kind, n)| match (n, kind.strip_suffix('s')) {
                (1, Some(one)) => format!("1 {one}"),
                _ => format!("{n} {kind}"),
            })
            .collect();
        match parts.len() {
            0 => "0".to_string(),
            1 => parts[0].clone(),
            n => format!("{} and {}", parts[..n - 1].join(", "), parts[n - 1]),
        }
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

/// The kind of a resource left (`/v1/contacts/6b02… (externalId …)`): its collection's name
/// (`contacts`), the path's segment before the id.
fn kind_of(item: &str) -> String {
    let path = item.split(' ').next().unwrap_or_default();
    let mut segments = path.trim_end_matches('/').rsplit('/');
    segments.next();
    match segments.next() {
        Some(kind) if !kind.is_empty() => kind.to_string(),
        _ => "resources".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_line_names_what_is_left_by_kind() {
        let mut s = Summary {
            run_id: "r1234567".into(),
            ..Summary::default()
        };
        assert!(
            s.line()
                .ends_with(", 0 left without a delete endpoint (tagged with the run id)")
        );
        s.left = vec![
            "/v1/contacts/6b02 (externalId r1234567-a)".into(),
            "/contacts/6b03".into(),
            "/v1/messages/MS1".into(),
        ];
        assert!(
            s.line()
                .contains(", 2 contacts and 1 message left without a delete endpoint"),
            "{}",
            s.line()
        );
    }
}
