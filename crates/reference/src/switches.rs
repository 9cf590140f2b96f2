//! The switches of one reference instance: the faults it commits and, later, the variants it takes.
//!
//! Every handler reads its deviations from here, so a fault or a variant is one `if` at the place
//! it changes, and a new kind of switch is a new field rather than a new parameter everywhere.

use super::faults::FaultSet;
use super::variants::{Variant, VariantSet};

/// The deviations and open choices switched on in one instance.
#[derive(Debug, Clone, Default)]
pub(crate) struct Switches {
    /// Deliberate breaches of the contract, one clause each.
    pub faults: FaultSet,
    /// Conforming alternatives where the contract is open.
    pub variants: VariantSet,
}

impl Switches {
    pub fn new(faults: FaultSet, variants: VariantSet) -> Self {
        Switches { faults, variants }
    }

    /// Whether a variant is on.
    pub fn variant(&self, v: Variant) -> bool {
        self.variants.has(v)
    }
}
