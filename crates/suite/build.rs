//! Embeds the case files under the workspace's `cases/` so the binary carries its default
//! catalog; each is named by its path from the workspace root (`cases/v1/contacts.yaml`), as
//! messages and reports show it.
use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
}

fn main() {
    // This crate is crates/suite of the workspace.
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root");
    println!("cargo:rerun-if-changed={}", root.join("cases").display());
    let mut files = Vec::new();
    collect(&root.join("cases"), &mut files);
    files.sort();
    let mut code = String::from(
        "/// Case files embedded at build time: (path relative to the crate, contents).\npub static CASE_FILES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .expect("under the crate")
            .to_string_lossy()
            .replace('\\', "/");
        code.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            f.to_string_lossy()
        ));
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it")).join("embedded_cases.rs");
    std::fs::write(out, code).expect("write embedded case list");
}
