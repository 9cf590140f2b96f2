//! Injected faults: deliberate deviations from one clause each, switched on by name. The
//! conforming server has none on. Code checks one with `app.faults.on("name")`.

use std::collections::BTreeSet;

/// The catalog: (name, the clause it breaks and how). Filled by the authors of blind sets.
pub const CATALOG: &[(&str, &str)] = &[];

/// The faults switched on for one instance.
#[derive(Debug, Clone, Default)]
pub struct FaultSet(BTreeSet<String>);

impl FaultSet {
    /// Checks every name against the catalog.
    pub fn new(names: &[String]) -> std::io::Result<FaultSet> {
        for n in names {
            if !CATALOG.iter().any(|(c, _)| c == n) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("unknown fault `{n}`"),
                ));
            }
        }
        Ok(FaultSet(names.iter().cloned().collect()))
    }

    /// Whether the named fault is switched on.
    pub fn on(&self, name: &str) -> bool {
        self.0.contains(name)
    }
}
