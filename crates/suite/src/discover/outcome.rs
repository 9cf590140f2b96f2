//! What discovery says of each fixture, and the profile and reasons that follow from it.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use conformance_contract::profile::Profile;

/// What discovery says of one fixture.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The profile given with `--profile` holds it; discovery never replaces it.
    Given,
    /// Found and verified: the value, and the requests that show it holds what it must.
    Found { value: Value, how: String },
    /// The API can show it, but this target did not: why.
    NotFound { why: String },
    /// No request can show it (`x-discovered` of the schema): why.
    Undiscoverable { why: String },
}

/// One fixture's entry in the discovery table.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub outcome: Outcome,
    /// Candidates discovery could only guess at, named and never written.
    pub guess: Option<String>,
}

/// The result of a discovery: every known fixture, and what it cost.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub entries: BTreeMap<String, Entry>,
    /// The profile discovery started from (`--profile`, or empty).
    pub base: Profile,
    /// Where `base` came from, as the table and the reports name it.
    pub base_name: Option<String>,
    pub requests: u64,
    pub elapsed: Duration,
}

impl Discovery {
    /// The base profile with every fixture found added; a value of the base is never replaced.
    pub fn profile(&self) -> Profile {
        let mut p = self.base.clone();
        for (name, e) in &self.entries {
            if let Outcome::Found { value, .. } = &e.outcome {
                p.fixtures
                    .entry(name.clone())
                    .or_insert_with(|| value.clone());
            }
        }
        p
    }

    /// Values found, by fixture.
    pub fn found(&self) -> BTreeMap<String, Value> {
        self.entries
            .iter()
            .filter_map(|(n, e)| match &e.outcome {
                Outcome::Found { value, .. } => Some((n.clone(), value.clone())),
                _ => None,
            })
            .collect()
    }

    /// Why each fixture the profile still lacks is missing, for the ignored trials' reasons.
    pub fn missing_reasons(&self) -> BTreeMap<String, String> {
        self.entries
            .iter()
            .filter_map(|(n, e)| match &e.outcome {
                Outcome::NotFound { why } => Some((n.clone(), format!("not discovered: {why}"))),
                Outcome::Undiscoverable { why } => {
                    Some((n.clone(), format!("discovery cannot find it: {why}")))
                }
                _ => None,
            })
            .collect()
    }

    /// The source of each fixture of [`Discovery::profile`], as the reports name it.
    pub fn sources(&self) -> BTreeMap<String, String> {
        let file = self.file();
        self.entries
            .iter()
            .filter_map(|(n, e)| match &e.outcome {
                Outcome::Given => Some((n.clone(), format!("file {file}"))),
                Outcome::Found { how, .. } => Some((n.clone(), format!("discovered: {how}"))),
                _ => None,
            })
            .collect()
    }

    /// Counts: (given, found, not found on this target, not discoverable).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let mut c = (0, 0, 0, 0);
        for e in self.entries.values() {
            match e.outcome {
                Outcome::Given => c.0 += 1,
                Outcome::Found { .. } => c.1 += 1,
                Outcome::NotFound { .. } => c.2 += 1,
                Outcome::Undiscoverable { .. } => c.3 += 1,
            }
        }
        c
    }

    /// The base profile's name as the table and the sources show it.
    pub(super) fn file(&self) -> String {
        self.base_name
            .clone()
            .unwrap_or_else(|| "the profile".into())
    }
}
