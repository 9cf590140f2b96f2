//! The modules of `src/` read top to bottom: each top-level module imports only modules of the
//! layers above it, so there is no import cycle. The layers are written here once; a new module
//! gets a place in them, and an import that points down fails with its file and line.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level modules of `src/`, first to last. A module may import only modules before it.
const LAYERS: &[&str] = &[
    // What every layer uses: redaction of what a target sends, TLS roots, the HTTP exchange.
    "redact",
    "tls",
    "client",
    "webhooks",
    // The contract: route table, schemas, clauses, codes, the YAML reader, the API generation.
    "contract",
    "profile",
    // Case files, generated cells and properties; the catalog turns them into trials.
    "cases",
    "catalog",
    // Checks of answers and deliveries, then the run of one case and the run of them all.
    "checks",
    "cleanup",
    "execute",
    "plan",
    "preflight",
    "discover",
    "report",
    "output",
    "cli",
    "error",
    // The embedded reference implementation, a product of its own, and the binary's commands.
    "reference",
    "commands",
    "app",
];

/// The reference is started by the binary only: the runner never imports it (DESIGN, Layout).
const MAY_IMPORT_REFERENCE: &[&str] = &["commands"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (importing module, imported module) -> first place, as `file:line`.
fn imports() -> BTreeMap<(String, String), String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let path_re = regex::Regex::new(r"crate::(\{[^}]*\}|[a-z_]+)").unwrap();
    let name_re = regex::Regex::new(r"(?:^|[{,\s])([a-z_]+)").unwrap();
    let mut out = BTreeMap::new();
    for file in files {
        let rel = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let top = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("a readable source file");
        // Unit tests may reach anywhere; what ships may not.
        let shipped = text.split("#[cfg(test)]").next().unwrap_or("");
        for (n, line) in shipped.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for m in path_re.captures_iter(code) {
                let group = &m[1];
                let names: Vec<String> = if group.starts_with('{') {
                    name_re
                        .captures_iter(group)
                        .map(|c| c[1].to_string())
                        .collect()
                } else {
                    vec![group.to_string()]
                };
                for name in names {
                    if name != top && LAYERS.contains(&name.as_str()) {
                        out.entry((top.clone(), name))
                            .or_insert_with(|| format!("src/{rel}:{}", n + 1));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut missing = BTreeSet::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        if name == "lib" || name == "main" {
            continue;
        }
        if !LAYERS.contains(&name.as_str()) {
            missing.insert(name);
        }
    }
    assert!(
        missing.is_empty(),
        "modules without a layer in tests/layers.rs: {missing:?}"
    );
}

#[test]
fn imports_point_only_up_the_layers() {
    let rank = |m: &str| LAYERS.iter().position(|l| *l == m).unwrap();
    let all = imports();
    assert!(
        all.len() > 20,
        "the import scan found only {} imports",
        all.len()
    );
    let wrong: Vec<String> = all
        .iter()
        .filter(|((from, to), _)| rank(to) >= rank(from))
        .map(|((from, to), at)| format!("{at}: `{from}` imports `{to}`, a layer below it"))
        .collect();
    assert!(
        wrong.is_empty(),
        "imports that point down (a cycle in the making):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_import_cycle() {
    // Independent of the layer list: a depth-first search over the import graph.
    let all = imports();
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in all.keys() {
        graph.entry(from).or_default().push(to);
    }
    fn visit<'a>(
        m: &'a str,
        graph: &BTreeMap<&'a str, Vec<&'a str>>,
        stack: &mut Vec<&'a str>,
        done: &mut BTreeSet<&'a str>,
    ) -> Option<Vec<&'a str>> {
        if let Some(i) = stack.iter().position(|s| *s == m) {
            let mut cycle = stack[i..].to_vec();
            cycle.push(m);
            return Some(cycle);
        }
        if !done.insert(m) {
            return None;
        }
        stack.push(m);
        for next in graph.get(m).into_iter().flatten() {
            if let Some(c) = visit(next, graph, stack, done) {
                return Some(c);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    for m in graph.keys() {
        if let Some(cycle) = visit(m, &graph, &mut Vec::new(), &mut done) {
            panic!("import cycle: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn only_the_binary_starts_the_reference() {
    let wrong: Vec<String> = imports()
        .iter()
        .filter(|((from, to), _)| {
            to == "reference" && !MAY_IMPORT_REFERENCE.contains(&from.as_str())
        })
        .map(|((from, _), at)| format!("{at}: `{from}` imports the reference"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
