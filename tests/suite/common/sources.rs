//! The workspace's Rust sources, for the tests that read them as text or as Rust (the house
//! rules, the layers, the clause literals, the error kinds): every crate's `src/`, each file with
//! its path from the root as messages show it (`crates/suite/src/cases/loader/mod.rs`).

use std::path::{Path, PathBuf};

/// The crates of the workspace, by the folder of their sources.
pub const CRATES: [&str; 4] = [
    "crates/contract/src",
    "crates/reference/src",
    "crates/suite/src",
    "src",
];

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir` (a path from the root), sorted.
pub fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{} is readable: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    out
}

/// Every `.rs` file of every crate, with its path as shown.
pub fn all() -> Vec<(String, String)> {
    CRATES
        .iter()
        .flat_map(|dir| rust_files(dir))
        .map(|file| (shown(&file), read(&file)))
        .collect()
}

/// A file's path from the root, with `/`.
pub fn shown(file: &Path) -> String {
    file.strip_prefix(root())
        .expect("a file under the root")
        .to_string_lossy()
        .replace('\\', "/")
}

/// The text of a file, given by its path from the root or absolute.
pub fn read(file: &Path) -> String {
    let path = root().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
