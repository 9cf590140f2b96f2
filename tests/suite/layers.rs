//! The crates and their modules read top to bottom, with no cycle:
//! - the crate borders are the architecture: the contract crate depends on none of ours, the
//!   reference and the suite each on the contract only, the second implementation on none, the
//!   binary on the first three (it starts the reference as the default target) and its tests on
//!   the second implementation too. The compiler refuses an import across a border no manifest
//!   names; this test refuses a manifest that would name one.
//! - inside the suite and the binary, each top-level module imports only modules of the layers
//!   above it. The layers are written here once; a new module gets a place in them, and an import
//!   that points down fails with its file and line.
//! - at any depth of any crate, the files of each folder import each other without a cycle; a
//!   cycle fails with its files and the file and line of each import in it.

use std::collections::{BTreeMap, BTreeSet};

use crate::common::sources;

/// Each crate's manifest, its package, and the workspace crates it may depend on.
const BORDERS: &[(&str, &str, &[&str])] = &[
    ("crates/contract/Cargo.toml", "conformance-contract", &[]),
    (
        "crates/reference/Cargo.toml",
        "conformance-reference",
        &["conformance-contract"],
    ),
    (
        "crates/suite/Cargo.toml",
        "conformance-suite",
        &["conformance-contract"],
    ),
    // The second implementation, written blind: no crate of ours, and only the tests use it.
    ("crates/second/Cargo.toml", "second-implementation", &[]),
    (
        "crates/bench/Cargo.toml",
        "conformance-bench",
        &["conformance-contract", "conformance-suite"],
    ),
    (
        "Cargo.toml",
        "workspace-conformance",
        &[
            "conformance-contract",
            "conformance-reference",
            "conformance-suite",
            "second-implementation",
        ],
    ),
];

/// Top-level modules of the layered crates, first to last. A module may import only modules
/// before it.
const LAYERS: &[(&str, &[&str])] = &[
    (
        "crates/suite/src",
        &[
            // What every layer uses: redaction of what a target sends, TLS roots, the HTTP
            // exchange, the webhook receiver.
            "redact",
            "tls",
            "client",
            "webhooks",
            // Which workspace each key of the run belongs to, read over the client.
            "workspaces",
            // Case files, generated cells and properties; the catalog turns them into trials.
            "cases",
            "catalog",
            // What a run produces, written by execution and read by the reports.
            "results",
            // Checks of answers and deliveries, then the run of one case and the run of them all.
            "checks",
            // The model of the target's state and the rules on every exchange, fed by execution.
            "model",
            "cleanup",
            "execute",
            "plan",
            "preflight",
            "discover",
            // The reports read the results.
            "report",
        ],
    ),
    (
        "src",
        &["output", "cli", "exit", "error", "commands", "app"],
    ),
];

/// The workspace crates a manifest names, in any dependency table, with its line.
fn workspace_dependencies(manifest: &str) -> Vec<(String, usize)> {
    let text = sources::read(std::path::Path::new(manifest));
    let mut table = String::new();
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.starts_with('[') {
            table = line.to_string();
            continue;
        }
        let is_dependency_table =
            table.contains("dependencies") && !table.starts_with("[workspace");
        let name = line.split(['.', '=', ' ']).next().unwrap_or("");
        if is_dependency_table && name.starts_with("conformance-") {
            out.push((name.to_string(), n + 1));
        }
    }
    out
}

#[test]
fn each_crate_depends_only_on_the_crates_above_it() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (manifest, package, allowed) in BORDERS {
        for (dep, line) in workspace_dependencies(manifest) {
            seen += 1;
            if !allowed.contains(&dep.as_str()) {
                wrong.push(format!(
                    "{manifest}:{line}: {package} depends on {dep}; it may depend on {allowed:?} only"
                ));
            }
        }
    }
    assert!(
        seen >= 5,
        "the manifest scan found only {seen} dependencies"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// (importing module, imported module) -> first place, as `file:line`, among the top-level
/// modules of the crate whose sources are in `dir`.
fn imports(dir: &str, layers: &[&str]) -> BTreeMap<(String, String), String> {
    let path_re = regex::Regex::new(r"crate::(\{[^}]*\}|[a-z_]+)").unwrap();
    let name_re = regex::Regex::new(r"(?:^|[{,\s])([a-z_]+)").unwrap();
    let mut out = BTreeMap::new();
    for file in sources::rust_files(dir) {
        let shown = sources::shown(&file);
        let rel = shown[dir.len() + 1..].to_string();
        let top = rel
            .split('/')
            .next()
            .unwrap()
            .trim_end_matches(".rs")
            .to_string();
        if top == "lib" || top == "main" {
            continue;
        }
        let text = sources::read(&file);
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
                    if name != top && layers.contains(&name.as_str()) {
                        out.entry((top.clone(), name))
                            .or_insert_with(|| format!("{shown}:{}", n + 1));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn every_module_has_a_layer() {
    let mut missing = BTreeSet::new();
    for (dir, layers) in LAYERS {
        for entry in std::fs::read_dir(sources::root().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().to_string();
            if name != "lib" && name != "main" && !layers.contains(&name.as_str()) {
                missing.insert(format!("{dir}/{name}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "modules without a layer in tests/suite/layers.rs: {missing:?}"
    );
}

#[test]
fn imports_point_only_up_the_layers() {
    let mut wrong = Vec::new();
    let mut seen = 0;
    for (dir, layers) in LAYERS {
        let rank = |m: &str| layers.iter().position(|l| *l == m).unwrap();
        let all = imports(dir, layers);
        seen += all.len();
        wrong.extend(
            all.iter()
                .filter(|((from, to), _)| rank(to) >= rank(from))
                .map(|((from, to), at)| format!("{at}: `{from}` imports `{to}`, a layer below it")),
        );
    }
    assert!(seen > 20, "the import scan found only {seen} imports");
    assert!(
        wrong.is_empty(),
        "imports that point down (a cycle in the making):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn no_import_cycle() {
    // Independent of the layer list: a depth-first search over the import graph.
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
    for (dir, layers) in LAYERS {
        let all = imports(dir, layers);
        let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (from, to) in all.keys() {
            graph.entry(from).or_default().push(to);
        }
        let mut done = BTreeSet::new();
        for m in graph.keys() {
            if let Some(cycle) = visit(m, &graph, &mut Vec::new(), &mut done) {
                panic!("import cycle in {dir}: {}", cycle.join(" -> "));
            }
        }
    }
}

// Inside each folder of each crate: the files import each other without a cycle, at any depth.
//
// The files are read as Rust (syn), not as text, so that an import is found wherever Rust lets it
// be written: a `use` with groups and renames, a path inline in code or a type, a path inside a
// macro's tokens. What is behind `#[cfg(test)]` is left out: unit tests may reach anywhere.

/// A module's path from the crate root: `["reference", "routes", "calls"]`; the root is empty.
type ModPath = Vec<String>;

/// One file of `src/` to read: its module, the path shown in messages, and its text.
struct SourceFile {
    module: ModPath,
    shown: String,
    text: String,
}

/// What a module declares that a path can go through: its child modules and its `use` bindings.
#[derive(Default)]
struct ModuleInfo {
    /// The module of the file that holds it (itself, unless it is an inline `mod x { .. }`).
    file_module: ModPath,
    children: BTreeSet<String>,
    /// Name brought in by a module-level `use` -> the path it was brought from, as written.
    uses: BTreeMap<String, Vec<String>>,
}

/// A path named by the code of a module, as written, with where it was written.
struct Named {
    module: ModPath,
    segments: Vec<String>,
    place: String,
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "test")
    })
}

/// Walks one file, recording its modules and every path its non-test code names.
struct Reader<'a> {
    shown: &'a str,
    file_module: ModPath,
    module: ModPath,
    /// Inside a function body a `use` binds for that body only, not for the module.
    in_body: usize,
    modules: &'a mut BTreeMap<ModPath, ModuleInfo>,
    named: &'a mut Vec<Named>,
}

impl Reader<'_> {
    fn info(&mut self) -> &mut ModuleInfo {
        let file_module = self.file_module.clone();
        self.modules
            .entry(self.module.clone())
            .or_insert_with(|| ModuleInfo {
                file_module,
                ..ModuleInfo::default()
            })
    }

    fn name(&mut self, segments: Vec<String>, line: usize) {
        self.named.push(Named {
            module: self.module.clone(),
            segments,
            place: format!("{}:{line}", self.shown),
        });
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut path = prefix.clone();
                // `use super::store::{self, Store}`: `self` names the module before it.
                let bound = if name == "self" {
                    prefix.last().cloned().unwrap_or_default()
                } else {
                    path.push(name.clone());
                    name
                };
                self.bind(bound, path, n.ident.span().start().line);
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                self.bind(r.rename.to_string(), path, r.ident.span().start().line);
            }
            syn::UseTree::Glob(g) => {
                let line = g.star_token.span.start().line;
                self.name(prefix.clone(), line);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    fn bind(&mut self, name: String, path: Vec<String>, line: usize) {
        if self.in_body == 0 {
            self.info().uses.insert(name, path.clone());
        }
        self.name(path, line);
    }

    /// Paths inside a macro's tokens (`format!("{}", super::x::Y)`): `a::b::c` runs of identifiers.
    fn tokens(&mut self, stream: proc_macro2::TokenStream) {
        use proc_macro2::{Spacing, TokenTree};
        let trees: Vec<TokenTree> = stream.into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            match &trees[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(first) => {
                    let line = first.span().start().line;
                    let mut segments = vec![first.to_string()];
                    let mut j = i + 1;
                    while let (
                        Some(TokenTree::Punct(a)),
                        Some(TokenTree::Punct(b)),
                        Some(TokenTree::Ident(next)),
                    ) = (trees.get(j), trees.get(j + 1), trees.get(j + 2))
                    {
                        if a.as_char() != ':' || a.spacing() != Spacing::Joint || b.as_char() != ':'
                        {
                            break;
                        }
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.name(segments, line);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> syn::visit::Visit<'ast> for Reader<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Const(i) => &i.attrs,
            syn::Item::Enum(i) => &i.attrs,
            syn::Item::Fn(i) => &i.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Macro(i) => &i.attrs,
            syn::Item::Mod(i) => &i.attrs,
            syn::Item::Static(i) => &i.attrs,
            syn::Item::Struct(i) => &i.attrs,
            syn::Item::Trait(i) => &i.attrs,
            syn::Item::Type(i) => &i.attrs,
            syn::Item::Use(i) => &i.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if !is_cfg_test(attrs) {
            syn::visit::visit_item(self, item);
        }
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let test = match item {
            syn::ImplItem::Fn(f) => is_cfg_test(&f.attrs),
            syn::ImplItem::Const(c) => is_cfg_test(&c.attrs),
            _ => false,
        };
        if !test {
            syn::visit::visit_impl_item(self, item);
        }
    }

    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let name = item.ident.to_string();
        self.info().children.insert(name.clone());
        if let Some((_, items)) = &item.content {
            self.module.push(name);
            let in_body = std::mem::replace(&mut self.in_body, 0);
            self.info();
            for i in items {
                self.visit_item(i);
            }
            self.in_body = in_body;
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_block(&mut self, block: &'ast syn::Block) {
        self.in_body += 1;
        syn::visit::visit_block(self, block);
        self.in_body -= 1;
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // A one-word path is a name in scope: the `use` that brought it in is the import.
        if path.segments.len() > 1 {
            let line = path.segments[0].ident.span().start().line;
            let segments = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.name(segments, line);
        }
        syn::visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.visit_path(&mac.path);
        self.tokens(mac.tokens.clone());
    }
}

/// The modules of a crate and the paths its code names, resolved to the files they lead to.
struct Crate {
    modules: BTreeMap<ModPath, ModuleInfo>,
    named: Vec<Named>,
    /// The modules that are a folder (`mod.rs`, `lib.rs`), with the folder as shown (`src/cases/`).
    folders: BTreeMap<ModPath, String>,
}

impl Crate {
    fn read(files: &[SourceFile]) -> Crate {
        let mut modules = BTreeMap::new();
        let mut named = Vec::new();
        let mut folders = BTreeMap::new();
        for f in files {
            let tree = syn::parse_file(&f.text)
                .unwrap_or_else(|e| panic!("{} does not parse: {e}", f.shown));
            let mut reader = Reader {
                shown: &f.shown,
                file_module: f.module.clone(),
                module: f.module.clone(),
                in_body: 0,
                modules: &mut modules,
                named: &mut named,
            };
            reader.info();
            syn::visit::Visit::visit_file(&mut reader, &tree);
            if let Some(folder) = f
                .shown
                .strip_suffix("mod.rs")
                .or_else(|| f.shown.strip_suffix("lib.rs"))
            {
                folders.insert(f.module.clone(), folder.to_string());
            }
        }
        Crate {
            modules,
            named,
            folders,
        }
    }

    fn children(&self, module: &[String]) -> Option<&BTreeSet<String>> {
        self.modules.get(module).map(|m| &m.children)
    }

    /// The module a path written in `from` leads to, following `use` bindings (a re-export leads to
    /// the file that defines the item); `None` for a path out of the crate.
    fn resolve(&self, from: &[String], segments: &[String], depth: usize) -> Option<ModPath> {
        let first = segments.first()?;
        let (mut at, rest): (ModPath, &[String]) = match first.as_str() {
            "crate" => (Vec::new(), &segments[1..]),
            "self" => (from.to_vec(), &segments[1..]),
            "super" => {
                let ups = segments.iter().take_while(|s| *s == "super").count();
                let at = from[..from.len().checked_sub(ups)?].to_vec();
                (at, &segments[ups..])
            }
            _ if self.children(from)?.contains(first) => (from.to_vec(), segments),
            _ => {
                let bound = self.modules.get(from)?.uses.get(first)?;
                if depth > 16 || bound.first() == Some(first) {
                    return None;
                }
                let path: Vec<String> = bound.iter().chain(&segments[1..]).cloned().collect();
                return self.resolve(from, &path, depth + 1);
            }
        };
        for (i, seg) in rest.iter().enumerate() {
            if self.children(&at)?.contains(seg) {
                at.push(seg.clone());
                continue;
            }
            if let Some(bound) = self.modules.get(&at).and_then(|m| m.uses.get(seg)) {
                if depth <= 16 {
                    let path: Vec<String> = bound.iter().chain(&rest[i + 1..]).cloned().collect();
                    return self.resolve(&at, &path, depth + 1).or(Some(at));
                }
            }
            break;
        }
        Some(at)
    }

    /// Per folder (as shown): (importing file, imported file) -> first place, as `file:line`. A
    /// file is named as its folder sees it: `store.rs`, `routes/` for all of a subfolder,
    /// `mod.rs` for the folder's own file.
    fn folder_imports(&self) -> BTreeMap<String, Graph> {
        let mut out: BTreeMap<String, Graph> = BTreeMap::new();
        for n in &self.named {
            let Some(from) = self.modules.get(&n.module) else {
                continue;
            };
            let Some(to) = self.resolve(&n.module, &n.segments, 0) else {
                continue;
            };
            let Some(to) = self.modules.get(&to).map(|m| &m.file_module) else {
                continue;
            };
            let from = &from.file_module;
            for (folder, shown) in &self.folders {
                if !from.starts_with(folder) || !to.starts_with(folder) {
                    continue;
                }
                // The folder's own file (`mod.rs`) is the folder: its naming of its files is the
                // module tree going down, as `mod x;` is, not an import between two of its files.
                // Counted, every folder whose `mod.rs` defines a model and calls a file that takes
                // it (report/, contract/, execute/) would be a cycle.
                if from.len() == folder.len() {
                    continue;
                }
                let (a, b) = (self.node(folder, from), self.node(folder, to));
                if a == b {
                    continue;
                }
                let place = out
                    .entry(shown.clone())
                    .or_default()
                    .entry((a, b))
                    .or_insert_with(|| n.place.clone());
                if place_order(&n.place) < place_order(place) {
                    *place = n.place.clone();
                }
            }
        }
        out
    }

    /// How `folder` names the file of `module`, one of its own or one below it.
    fn node(&self, folder: &[String], module: &[String]) -> String {
        if module.len() == folder.len() {
            let own = if folder.is_empty() {
                "lib.rs"
            } else {
                "mod.rs"
            };
            return own.to_string();
        }
        let mut child = folder.to_vec();
        child.push(module[folder.len()].clone());
        if self.folders.contains_key(&child) {
            format!("{}/", module[folder.len()])
        } else {
            format!("{}.rs", module[folder.len()])
        }
    }
}

/// `src/a.rs:12` sorts by file, then by line as a number.
fn place_order(place: &str) -> (&str, usize) {
    let (file, line) = place.rsplit_once(':').unwrap_or((place, "0"));
    (file, line.parse().unwrap_or(0))
}

/// (importing file, imported file) -> the first place of the import.
type Graph = BTreeMap<(String, String), String>;

/// The files of the crate whose sources are in `dir`, but `main.rs` (a crate of its own), each
/// with its module.
fn source_files(dir: &str) -> Vec<SourceFile> {
    sources::rust_files(dir)
        .into_iter()
        .filter_map(|file| {
            let shown = sources::shown(&file);
            let rel = shown[dir.len() + 1..].to_string();
            let mut module: ModPath = rel
                .trim_end_matches(".rs")
                .split('/')
                .map(str::to_string)
                .collect();
            match module.last().map(String::as_str) {
                Some("main") if module.len() == 1 => return None,
                Some("lib") if module.len() == 1 => module.clear(),
                Some("mod") => {
                    module.pop();
                }
                _ => {}
            }
            let text = sources::read(&file);
            Some(SourceFile {
                module,
                shown,
                text,
            })
        })
        .collect()
}

/// The groups of files that import each other, each with its files and the imports among them:
/// the strongly connected parts of the graph with more than one file.
fn cycles(graph: &Graph) -> Vec<(Vec<String>, Vec<String>)> {
    let mut next: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (a, b) in graph.keys() {
        next.entry(a).or_default().push(b);
        next.entry(b).or_default();
    }
    let reach = |start: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut todo = vec![start.to_string()];
        while let Some(n) = todo.pop() {
            for m in next.get(n.as_str()).into_iter().flatten() {
                if seen.insert(m.to_string()) {
                    todo.push(m.to_string());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&str, BTreeSet<String>> = next.keys().map(|n| (*n, reach(n))).collect();
    let mut placed = BTreeSet::new();
    let mut out = Vec::new();
    for (n, from_n) in &reaches {
        if placed.contains(*n) || !from_n.contains(*n) {
            continue;
        }
        let group: Vec<String> = from_n
            .iter()
            .filter(|m| reaches[m.as_str()].contains(*n))
            .cloned()
            .collect();
        placed.extend(group.iter().cloned());
        let imports = graph
            .iter()
            .filter(|((a, b), _)| group.contains(a) && group.contains(b))
            .map(|((a, b), at)| format!("{a} -> {b} at {at}"))
            .collect();
        out.push((group, imports));
    }
    out
}

/// One shortest round trip from the first file of a cycle back to itself, as `a -> b -> a`.
fn one_round(graph: &Graph, group: &[String]) -> String {
    let start = &group[0];
    let mut back: BTreeMap<&str, &str> = BTreeMap::new();
    let mut todo = std::collections::VecDeque::from([start.as_str()]);
    while let Some(n) = todo.pop_front() {
        for (a, b) in graph.keys() {
            if a != n || !group.contains(b) {
                continue;
            }
            if b == start {
                let mut path = vec![start.as_str(), n];
                let mut at = n;
                while at != start {
                    at = back[at];
                    path.push(at);
                }
                path.reverse();
                return path.join(" -> ");
            }
            if !back.contains_key(b.as_str()) {
                back.insert(b, n);
                todo.push_back(b);
            }
        }
    }
    String::new()
}

fn cycle_report(folder: &str, graph: &Graph) -> Vec<String> {
    cycles(graph)
        .into_iter()
        .map(|(group, imports)| {
            format!(
                "{folder}: {} files import each other in a cycle: {}\n  for example {}\n  {}",
                group.len(),
                group.join(", "),
                one_round(graph, &group),
                imports.join("\n  ")
            )
        })
        .collect()
}

#[test]
fn no_import_cycle_inside_a_folder() {
    let imports: BTreeMap<String, Graph> = sources::CRATES
        .iter()
        .flat_map(|dir| Crate::read(&source_files(dir)).folder_imports())
        .collect();
    // The scan must see the folders' imports at all, or the test would pass on nothing.
    let seen: usize = imports.values().map(BTreeMap::len).sum();
    assert!(
        imports.len() >= 8 && seen > 100,
        "the import scan found only {seen} imports in {} folders",
        imports.len()
    );
    let found: Vec<String> = imports
        .iter()
        .flat_map(|(folder, graph)| cycle_report(folder, graph))
        .collect();
    assert!(
        found.is_empty(),
        "import cycles inside folders of the crates (each import of a cycle, first place):\n{}",
        found.join("\n")
    );
}

fn graph(edges: &[(&str, &str)]) -> Graph {
    edges
        .iter()
        .enumerate()
        .map(|(i, (a, b))| {
            (
                (a.to_string(), b.to_string()),
                format!("src/f/{a}:{}", i + 1),
            )
        })
        .collect()
}

#[test]
fn the_cycle_finder_names_each_file_and_import_of_a_cycle() {
    let g = graph(&[
        ("a.rs", "b.rs"),
        ("b.rs", "c.rs"),
        ("c.rs", "a.rs"),
        ("c.rs", "d.rs"),
        ("d.rs", "e.rs"),
    ]);
    assert_eq!(
        cycle_report("src/f/", &g),
        vec![
            "src/f/: 3 files import each other in a cycle: a.rs, b.rs, c.rs\n  \
             for example a.rs -> b.rs -> c.rs -> a.rs\n  \
             a.rs -> b.rs at src/f/a.rs:1\n  \
             b.rs -> c.rs at src/f/b.rs:2\n  \
             c.rs -> a.rs at src/f/c.rs:3"
        ]
    );
    // Two separate cycles are two reports; a chain is none.
    let two = graph(&[
        ("a.rs", "b.rs"),
        ("b.rs", "a.rs"),
        ("c.rs", "d.rs"),
        ("d.rs", "c.rs"),
    ]);
    assert_eq!(cycles(&two).len(), 2);
    assert!(cycles(&graph(&[("a.rs", "b.rs"), ("b.rs", "c.rs")])).is_empty());
}

fn in_memory(files: &[(&str, &str)]) -> BTreeMap<String, Graph> {
    let files: Vec<SourceFile> = files
        .iter()
        .map(|(shown, text)| {
            let rel = shown.trim_start_matches("src/").trim_end_matches(".rs");
            let mut module: ModPath = rel.split('/').map(str::to_string).collect();
            if module.last().is_some_and(|m| m == "mod" || m == "lib") {
                module.pop();
            }
            SourceFile {
                module,
                shown: shown.to_string(),
                text: text.to_string(),
            }
        })
        .collect();
    Crate::read(&files).folder_imports()
}

#[test]
fn the_scan_finds_imports_however_they_are_written() {
    let imports = in_memory(&[
        ("src/lib.rs", "pub mod f;\npub mod other;\n"),
        ("src/other.rs", "pub fn x() { crate::f::a::run(); }\n"),
        // mod.rs is the folder: what it names of its own files is no import between them.
        (
            "src/f/mod.rs",
            "mod a;\nmod b;\nmod c;\nmod d;\npub mod sub;\n\
             pub use c::Thing;\n\
             pub struct Item;\n\
             fn own() { self::d::go(); }\n",
        ),
        // A group, with a path inside it.
        ("src/f/a.rs", "use super::{b, c::Other};\npub fn run() {}\n"),
        // An item defined in mod.rs imports mod.rs; one re-exported there imports its file.
        (
            "src/f/b.rs",
            "use super::Item;\n\nfn f() -> super::Thing { todo!() }\n",
        ),
        // A path in a macro's tokens; a unit test's import is not the file's.
        (
            "src/f/c.rs",
            "pub struct Thing;\npub struct Other;\n\
             fn f() { let _ = format!(\"{}\", crate::f::a::run()); }\n\
             #[cfg(test)]\nmod tests {\n    use super::super::d;\n}\n",
        ),
        ("src/f/d.rs", "pub fn go() {}\n"),
        // A subfolder is one file to its parent; `super::super` from inside it.
        ("src/f/sub/mod.rs", "mod deep;\n"),
        ("src/f/sub/deep.rs", "fn f() { super::super::d::go(); }\n"),
    ]);
    let edges = |folder: &str| -> Vec<String> {
        imports[folder]
            .iter()
            .map(|((a, b), at)| format!("{a} -> {b} at {at}"))
            .collect()
    };
    assert_eq!(
        edges("src/f/"),
        vec![
            "a.rs -> b.rs at src/f/a.rs:1",
            "a.rs -> c.rs at src/f/a.rs:1",
            "b.rs -> c.rs at src/f/b.rs:3",
            "b.rs -> mod.rs at src/f/b.rs:1",
            "c.rs -> a.rs at src/f/c.rs:3",
            "sub/ -> d.rs at src/f/sub/deep.rs:1",
        ]
    );
    assert_eq!(edges("src/"), vec!["other.rs -> f/ at src/other.rs:1"]);
    assert_eq!(
        cycle_report("src/f/", &imports["src/f/"]),
        vec![
            "src/f/: 3 files import each other in a cycle: a.rs, b.rs, c.rs\n  \
             for example a.rs -> c.rs -> a.rs\n  \
             a.rs -> b.rs at src/f/a.rs:1\n  \
             a.rs -> c.rs at src/f/a.rs:1\n  \
             b.rs -> c.rs at src/f/b.rs:3\n  \
             c.rs -> a.rs at src/f/c.rs:3"
        ]
    );
}

/// The embedded reference never reads the operation table (`x-effect`, `x-resources`): it stays
/// a second, independent reading of the contract, so that the self-test compares two readings
/// (the suite's model and the reference's handlers) rather than one reading with itself.
#[test]
fn the_reference_does_not_read_the_operation_table() {
    let mut reads = Vec::new();
    for file in sources::rust_files("crates/reference/src") {
        let text = sources::read(&file);
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if [
                "operations::",
                ".effect",
                ".resources",
                "x-effect",
                "x-resources",
            ]
            .iter()
            .any(|w| code.contains(w))
            {
                reads.push(format!(
                    "{}:{}: {}",
                    sources::shown(&file),
                    n + 1,
                    line.trim()
                ));
            }
        }
    }
    assert!(
        reads.is_empty(),
        "the reference reads the operation table:\n{}",
        reads.join("\n")
    );
}
