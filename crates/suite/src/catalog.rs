//! The catalog: everything a run can hold as trials. The case files (built-in or from a
//! directory), the access and versioning cells generated from the route table, and the boundary
//! properties of its examples, checked for clashing names; and the selection a run makes of them.

use std::path::Path;
use std::sync::Arc;

use crate::cases::generated::GeneratedError;
use crate::cases::properties::ExampleError;
use crate::cases::{self, Case, LoadError};
use conformance_contract::{Contract, ContractError};

/// A catalog that cannot be built: a bad contract file, case file or route-table entry, or a
/// case named like a generated one.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    #[error("bad contract file: {0}")]
    Contract(#[from] ContractError),
    #[error("bad case file: {0}")]
    CaseFile(#[from] LoadError),
    #[error("bad route table: {0}")]
    RouteTable(#[from] GeneratedError),
    #[error("bad x-example in schemas/openapi.yaml: {0}")]
    Example(#[from] ExampleError),
    #[error(
        "{file}:{line}: case `{name}` has the name of a generated case ({generated_file}:{generated_line})"
    )]
    NameClash {
        name: String,
        file: String,
        line: usize,
        generated_file: String,
        generated_line: usize,
    },
}

impl CatalogError {
    /// The variant's name, for tests that require an input for every kind.
    pub fn name(&self) -> &'static str {
        match self {
            CatalogError::Contract(_) => "Contract",
            CatalogError::CaseFile(_) => "CaseFile",
            CatalogError::RouteTable(_) => "RouteTable",
            CatalogError::Example(_) => "Example",
            CatalogError::NameClash { .. } => "NameClash",
        }
    }
}

/// Loads the contract and the case files (built-in, or from a directory).
pub fn load(dir: Option<&Path>) -> Result<(Arc<Contract>, Vec<Arc<Case>>), CatalogError> {
    let contract = Contract::shared()?;
    let mut loaded = match dir {
        Some(d) => cases::load_dir(d, &contract),
        None => cases::load_embedded(&contract),
    }?;
    // The access matrix and versioning checks come from the route table (x-access), the
    // boundary properties from its x-examples.
    let generated = cases::generated::generate(&contract)?;
    let properties = cases::properties::cases(&contract)?;
    for case in generated.into_iter().chain(properties) {
        if let Some(same) = loaded.iter().find(|c| c.name == case.name) {
            return Err(CatalogError::NameClash {
                name: same.name.clone(),
                file: same.file.clone(),
                line: same.line,
                generated_file: case.file,
                generated_line: case.line,
            });
        }
        loaded.push(case);
    }
    Ok((contract, loaded.into_iter().map(Arc::new).collect()))
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

// The catalog audited as a whole: what the suite sends (READINGS 6).
#[cfg(test)]
mod requests_tests;
