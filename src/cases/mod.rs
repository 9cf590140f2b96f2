//! Case files: YAML with lines, the case model, templates, and the loader.

pub mod generated;
mod loader;
mod model;
pub mod reasons;
pub mod template;
pub mod yaml;

pub use loader::{BUILTINS, LoadError, load_dir, load_embedded, load_sources};
pub use model::{
    Api, Bound, Case, Control, ControlOf, DeliveriesExpect, Direction, ErrorExpect, Expect,
    ForEach, OrderExpect, PageExpect, Repeat, Request, StatusExpect, Step, Watch,
};

include!(concat!(env!("OUT_DIR"), "/embedded_cases.rs"));

/// The JSON Pointer of a serde path (`cases[2].request` -> `/cases/2/request`).
pub fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => out.push_str(&format!("/{index}")),
            Segment::Map { key } => {
                out.push_str(&format!("/{}", key.replace('~', "~0").replace('/', "~1")))
            }
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}
