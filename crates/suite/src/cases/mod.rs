//! Case files: the case model, the loader, templates, the matcher language of expectations, the
//! generated cells and the boundary properties.

pub mod audit;
pub mod constraint;
pub mod effects;
pub mod generated;
mod loader;
pub mod matcher;
mod model;
pub mod properties;
pub mod reasons;
mod state;
pub mod template;

pub use loader::{LoadError, LoadErrorKind, Position, load_dir, load_embedded, load_sources};
pub use model::{
    Bound, Case, Control, ControlOf, DeliveriesExpect, Direction, ErrorExpect, Expect, ForEach,
    Hold, OrderExpect, PageExpect, ReadBack, Repeat, Request, Setup, State, StatusExpect, Step,
    Watch,
};
pub use template::BUILTINS;

include!(concat!(env!("OUT_DIR"), "/embedded_cases.rs"));
