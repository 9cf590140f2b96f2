//! Checks: generic checks on every answer, the case's own expectations, the pagination walker,
//! and the explanation of a failure.

pub mod deliveries;
pub mod expect;
pub(crate) mod filters;
pub mod generic;
pub mod pagination;
pub mod rule;
pub mod rules;

use crate::results::Finding;
