//! Case files: the case model, the loader, templates, the matcher language of expectations, the
//! generated cells and the boundary properties.

#[cfg(test)]
pub(crate) mod audit;
pub mod constraint;
pub(crate) mod derive;
#[cfg(test)]
pub(crate) mod effects;
pub mod generated;
mod loader;
pub mod matcher;
mod model;
pub mod properties;
#[cfg(test)]
pub(crate) mod reasons;
pub mod situations;
mod state;
pub mod template;

pub(crate) use loader::{LoadError, load_dir, load_embedded};
pub use loader::{LoadErrorKind, load_sources};
pub(crate) use model::{
    Bound, DeliveriesExpect, Direction, Expect, ForEach, OrderExpect, PageExpect, Repeat,
    StatusExpect, Watch,
};
pub use model::{Case, Hold, Instead, Request, Setup, State, Step, Uses};

include!(concat!(env!("OUT_DIR"), "/embedded_cases.rs"));
