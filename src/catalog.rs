//! The catalog: everything a run can hold as trials. The case files (built-in or from a
//! directory), the access and versioning cells generated from the route table, and the boundary
//! properties of its examples, checked for clashing names; and the selection a run makes of them.

use std::path::Path;
use std::sync::Arc;

use crate::cases::{self, Case};
use crate::contract::Contract;

/// A catalog that cannot be built: a bad contract file, case file or route-table entry.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CatalogError(pub String);

/// Loads the contract and the case files (built-in, or from a directory).
pub fn load(dir: Option<&Path>) -> Result<(Arc<Contract>, Vec<Arc<Case>>), CatalogError> {
    let contract =
        Contract::embedded().map_err(|e| CatalogError(format!("bad contract file: {e}")))?;
    let loaded = match dir {
        Some(d) => cases::load_dir(d, &contract),
        None => cases::load_embedded(&contract),
    }
    .map_err(|e| CatalogError(format!("bad case file: {e}")))?;
    // The access matrix and versioning checks come from the route table (x-access), the
    // boundary properties from its x-examples.
    let generated = cases::generated::generate(&contract)
        .map_err(|e| CatalogError(format!("bad route table: {e}")))?;
    let properties = cases::properties::cases(&contract)
        .map_err(|e| CatalogError(format!("bad x-example in schemas/openapi.yaml: {e}")))?;
    let mut loaded = loaded;
    for case in generated.into_iter().chain(properties) {
        if let Some(same) = loaded.iter().find(|c| c.name == case.name) {
            return Err(CatalogError(format!(
                "{}:{}: case `{}` has the name of a generated case ({}:{})",
                same.file, same.line, same.name, case.file, case.line
            )));
        }
        loaded.push(case);
    }
    Ok((
        Arc::new(contract),
        loaded.into_iter().map(Arc::new).collect(),
    ))
}

/// Which cases a run selects (`--area`, `--tag`, `--read-only`, `--partition`).
#[derive(Debug, Clone, Default)]
pub struct Selection {
    pub areas: Vec<String>,
    pub tags: Vec<String>,
    pub read_only: bool,
    /// Part K of N, 1-based.
    pub partition: Option<(usize, usize)>,
}

/// The cases a run selects: `--area`, `--tag`, `--read-only`, then part K of N of the rest in the
/// sorted order of trial names (every N-th name from the K-th), so N jobs with the same options
/// split the run without overlap.
pub fn select(cases: Vec<Arc<Case>>, args: &Selection) -> Vec<Arc<Case>> {
    let mut chosen: Vec<Arc<Case>> = cases
        .into_iter()
        .filter(|c| args.areas.is_empty() || args.areas.iter().any(|a| *a == c.area))
        .filter(|c| args.tags.is_empty() || args.tags.iter().any(|t| c.tags.contains(t)))
        .filter(|c| !args.read_only || c.read_only)
        .collect();
    if let Some((k, n)) = args.partition {
        chosen.sort_by(|a, b| a.name.cmp(&b.name));
        chosen = chosen
            .into_iter()
            .enumerate()
            .filter(|(i, _)| i % n == k - 1)
            .map(|(_, c)| c)
            .collect();
    }
    chosen
}
