//! The README stays true: its fault, variant and fixture tables are what the binary prints, its
//! Layout names the tree, and it names every option.

use conformance_contract::profile::KNOWN_FIXTURES;

const README: &str = include_str!("../../README.md");
/// The pages behind the README that hold the generated tables and the layout.
const RUNNING: &str = include_str!("../../docs/running.md");
const PROFILE: &str = include_str!("../../docs/profile.md");
const REFERENCE: &str = include_str!("../../docs/reference.md");
const ARCHITECTURE: &str = include_str!("../../docs/architecture.md");

#[test]
fn readme_shows_both_commands() {
    assert!(README.contains("cargo run --release") && README.contains("cargo test"));
}

/// The repo stands alone: no file names a path outside it (the sibling checkout the contract once
/// came from, a home directory, a relative path that climbs above the root). The contract and its readings are in
/// `contract/`; a clone has everything a reader or a build needs.
#[test]
fn no_file_names_a_path_outside_the_repo() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut found = Vec::new();
    for file in tracked_text_files(root) {
        let rel = file
            .strip_prefix(root)
            .expect("under the root")
            .to_path_buf();
        let Ok(text) = std::fs::read_to_string(&file) else {
            continue;
        };
        for (line, place) in outside_paths(&rel, &text) {
            found.push(format!("{}:{line}: {place}", rel.display()));
        }
    }
    assert!(
        found.is_empty(),
        "paths outside the repo (keep what the repo needs inside it, e.g. contract/):\n{}",
        found.join("\n")
    );
}

/// The checker finds each kind of outside path, and leaves paths inside the repo alone.
#[test]
fn the_outside_path_check_finds_each_kind() {
    // Built from pieces, so that this file itself names no such path.
    let up = "../";
    let text = format!(
        "see {up}shared/spec/API.md\n\
         include_str!(\"{up}{up}schemas/openapi.yaml\")\n\
         a [link]({up}{up}{up}elsewhere/page.md)\n\
         at /{}/main/target\n\
         [fine]({up}README.md) and [inside]({up}docs/running.md)\n",
        "work"
    );
    let found: Vec<usize> = outside_paths(std::path::Path::new("docs/page.md"), &text)
        .into_iter()
        .map(|(line, _)| line)
        .collect();
    // Line 2 climbs two levels from docs/: above the root. Line 5 stays inside.
    assert_eq!(found, vec![1, 2, 3, 4]);
}

/// Every file of the tree that git would track, but the build output and git's own.
fn tracked_text_files(root: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("a readable directory")
            .flatten()
        {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_string();
            if path.is_dir() {
                if !matches!(name.as_str(), "target" | ".git") {
                    dirs.push(path);
                }
            } else if !name.ends_with(".png") && name != ".git" {
                // (`.git` is a file in a worktree of git: where its repository is.)
                out.push(path);
            }
        }
    }
    out
}

/// The places in `text` (of the file at `rel`, from the root) that name a path outside the repo:
/// the sibling checkout the contract once came from, an absolute path under a home or work
/// directory, or a relative path that climbs above the root from the file's folder. A code block
/// of a page shows files of other folders (a case file's `$schema`), so there only the first two
/// count.
fn outside_paths(rel: &std::path::Path, text: &str) -> Vec<(usize, String)> {
    static CLIMB: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"(?:\.\./)+[A-Za-z0-9_.-]*").unwrap());
    static ABSOLUTE: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?:^|[\s(`'\x22])(/(?:work|home|root|Users)/[A-Za-z0-9_./-]+)").unwrap()
    });
    let sibling = format!("..{}shared", '/');
    let page = rel.extension().is_some_and(|e| e == "md");
    let depth = rel.components().count().saturating_sub(1);
    let mut in_code = false;
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if page && line.trim_start().starts_with("```") {
            in_code = !in_code;
        }
        let climbs = CLIMB.find_iter(line).find(|m| {
            m.as_str().contains(&sibling) || (!in_code && m.as_str().matches("../").count() > depth)
        });
        if let Some(m) = climbs {
            out.push((n + 1, m.as_str().to_string()));
        } else if let Some(c) = ABSOLUTE.captures(line) {
            out.push((n + 1, c[1].to_string()));
        }
    }
    out
}

#[test]
fn readme_lists_every_renameable_request_field() {
    for (key, method, path, field, _) in conformance_contract::profile::REQUEST_FIELDS {
        let row = format!("| `{key}` | {method} {path} | `{field}` |");
        assert!(
            PROFILE.contains(&row),
            "docs/profile.md lacks the request field row {row}"
        );
    }
}

/// The schema names exactly the fixtures case files may use.
#[test]
fn profile_schema_names_the_known_fixtures() {
    use conformance_contract::profile::PROFILE_SCHEMA;
    let schema: serde_json::Value = serde_json::from_str(PROFILE_SCHEMA).expect("schema is JSON");
    let fixtures = schema["properties"]["fixtures"]["properties"]
        .as_object()
        .expect("fixtures");
    let mut names: Vec<&str> = fixtures.keys().map(String::as_str).collect();
    let mut known: Vec<&str> = KNOWN_FIXTURES.iter().map(|(n, _)| *n).collect();
    names.sort();
    known.sort();
    assert_eq!(
        names, known,
        "the schema and KNOWN_FIXTURES name other fixtures"
    );
}

/// What the binary prints for `args` (exit 0).
fn binary(args: &[&str]) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_workspace-conformance"))
        .args(args)
        .output()
        .expect("the binary runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The tables of `page` whose header row is `header`, in order, each with its trailing newline.
fn page_tables(page: &str, header: &str) -> Vec<String> {
    let lines: Vec<&str> = page.lines().collect();
    let mut tables = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i] == header {
            let mut table = String::new();
            while i < lines.len() && lines[i].starts_with('|') {
                table.push_str(lines[i]);
                table.push('\n');
                i += 1;
            }
            tables.push(table);
        } else {
            i += 1;
        }
    }
    tables
}

/// The tables of the page `name` (text `page`) with `header` are, in order, the tables the binary
/// prints for `command` (separated by a blank line); a difference names the command that
/// regenerates them.
fn assert_page_tables_are(name: &str, page: &str, header: &str, command: &[&str]) {
    let printed = binary(command);
    let generated: Vec<String> = printed
        .split("\n\n")
        .map(|t| format!("{}\n", t.trim_end_matches('\n')))
        .collect();
    let readme = page_tables(page, header);
    let regenerate = format!(
        "regenerate with `cargo run -- {}` and paste its tables (a blank line between two) over those of {name}, in order",
        command.join(" ")
    );
    assert_eq!(
        readme.len(),
        generated.len(),
        "{name} has {} tables headed `{header}`, the binary prints {}; {regenerate}",
        readme.len(),
        generated.len()
    );
    for (n, (ours, theirs)) in readme.iter().zip(&generated).enumerate() {
        if ours != theirs {
            let diff = ours
                .lines()
                .zip(theirs.lines())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("{name}: {a}\nbinary: {b}"))
                .unwrap_or_else(|| {
                    format!(
                        "{name}'s has {} lines, the binary's {}",
                        ours.lines().count(),
                        theirs.lines().count()
                    )
                });
            panic!(
                "{name}: table {} headed `{header}` differs from the binary's:\n{diff}\n{regenerate}",
                n + 1
            );
        }
    }
}

#[test]
fn fault_tables_are_the_binarys() {
    assert_page_tables_are(
        "docs/reference.md",
        REFERENCE,
        "| fault | clause it breaks | what the reference does |",
        &["serve", "--list-faults", "--markdown"],
    );
}

#[test]
fn variant_tables_are_the_binarys() {
    assert_page_tables_are(
        "docs/reference.md",
        REFERENCE,
        "| variant | READINGS | what the reference does |",
        &["serve", "--list-variants", "--markdown"],
    );
}

/// The fixture table is `schemas/profile.schema.json` in words, as `--list-fixtures --markdown`
/// prints it.
#[test]
fn fixture_table_is_the_binarys() {
    assert_page_tables_are(
        "docs/profile.md",
        PROFILE,
        "| fixture | type and range | what it must hold | discovered? | what the suite relies on, and how it checks it |",
        &["--list-fixtures", "--markdown"],
    );
}

/// The options table of docs/running.md names every option of a run that `--help` shows;
/// libtest's options are named in the paragraph below it.
#[test]
fn options_table_names_every_option_of_help() {
    let cmd = workspace_conformance::app::command();
    let libtest = [
        "include-ignored",
        "ignored",
        "list",
        "exact",
        "quiet",
        "test-threads",
        "logfile",
        "skip",
        "color",
        "format",
    ];
    let mut missing = Vec::new();
    for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
        let Some(long) = arg.get_long() else { continue };
        let row = format!("| `--{long}");
        let named = if libtest.contains(&long) {
            RUNNING.contains(&format!("`--{long}"))
        } else {
            RUNNING.contains(&row)
        };
        if !named {
            missing.push(long.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "docs/running.md's options table lacks {missing:?}"
    );
}

/// docs/running.md names every option of `discover --help`.
#[test]
fn running_page_names_every_option_of_discover() {
    let cmd = workspace_conformance::app::command();
    let discover = cmd
        .get_subcommands()
        .find(|c| c.get_name() == "discover")
        .expect("a discover subcommand");
    let missing: Vec<String> = discover
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|long| {
            !RUNNING.contains(&format!("`--{long}")) && !RUNNING.contains(&format!(" --{long} "))
        })
        .map(str::to_string)
        .collect();
    assert!(
        missing.is_empty(),
        "docs/running.md does not name {missing:?} of discover"
    );
}

/// The code block under `## Layout` of docs/architecture.md.
fn layout_block() -> &'static str {
    let start = ARCHITECTURE
        .find("## Layout\n")
        .expect("docs/architecture.md has a ## Layout section");
    let rest = &ARCHITECTURE[start..];
    let open = rest
        .find("```\n")
        .expect("the Layout section has a code block")
        + 4;
    let len = rest[open..]
        .find("```")
        .expect("the Layout code block ends");
    &rest[open..open + len]
}

/// Every path the Layout block names (a word holding a `/`), as written.
fn layout_paths() -> Vec<String> {
    layout_block()
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c| "(),;`".contains(c))
                .trim_end_matches(['.', ':'])
        })
        .filter(|w| w.contains('/'))
        .map(str::to_string)
        .collect()
}

/// The Layout section matches the tree: every path it names exists; it names every crate, every
/// top-level module of the suite and the binary, and every top-level directory git tracks.
#[test]
fn layout_names_the_tree() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let paths = layout_paths();
    let missing: Vec<&String> = paths.iter().filter(|p| !root.join(p).exists()).collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md's Layout names paths that do not exist: {missing:?}"
    );
    let names = |prefix: &str| paths.iter().any(|p| p.starts_with(prefix));
    let mut unnamed_modules = Vec::new();
    for dir in ["crates/suite/src", "src"] {
        let lib = std::fs::read_to_string(root.join(dir).join("lib.rs")).expect("a lib.rs");
        unnamed_modules.extend(
            lib.lines()
                .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
                .filter(|m| !names(&format!("{dir}/{m}.rs")) && !names(&format!("{dir}/{m}/")))
                .map(|m| format!("{dir}/{m}")),
        );
    }
    for dir in crate::common::sources::CRATES {
        let krate = dir.trim_end_matches("src");
        if !names(krate) {
            unnamed_modules.push(krate.to_string());
        }
    }
    assert!(
        unnamed_modules.is_empty(),
        "docs/architecture.md's Layout does not name the modules {unnamed_modules:?}"
    );
    let tracked = std::process::Command::new("git")
        .args(["ls-files"])
        .current_dir(root)
        .output()
        .expect("git lists the tracked files");
    assert!(tracked.status.success(), "git ls-files failed");
    let dirs: std::collections::BTreeSet<String> = String::from_utf8_lossy(&tracked.stdout)
        .lines()
        .filter_map(|f| f.split_once('/').map(|(d, _)| d.to_string()))
        .filter(|d| d != "target")
        .collect();
    assert!(!dirs.is_empty(), "git tracks no directory here");
    let unnamed_dirs: Vec<&String> = dirs.iter().filter(|d| !names(&format!("{d}/"))).collect();
    assert!(
        unnamed_dirs.is_empty(),
        "docs/architecture.md's Layout does not name the top-level directories {unnamed_dirs:?}"
    );
}

/// docs/ci.md shows the two CI examples as they are (the files scripts/check-ci-files.sh
/// validates), and its table names every input of the Action.
#[test]
fn ci_page_shows_the_checked_examples_and_every_action_input() {
    let page = std::fs::read_to_string("docs/ci.md").expect("docs/ci.md");
    for example in [
        "docs/examples/github-workflow.yml",
        "docs/examples/gitlab-ci.yml",
    ] {
        let text = std::fs::read_to_string(example).expect(example);
        assert!(
            page.contains(&text),
            "docs/ci.md does not show {example} as it is"
        );
    }
    let action = std::fs::read_to_string("action.yml").expect("action.yml");
    let inputs = action
        .split("\ninputs:\n")
        .nth(1)
        .and_then(|rest| rest.split("\noutputs:\n").next())
        .expect("action.yml has inputs then outputs");
    let names: Vec<&str> = inputs
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.strip_suffix(':'))
        .filter(|n| !n.starts_with(' '))
        .collect();
    assert!(names.len() >= 8, "inputs read from action.yml: {names:?}");
    let missing: Vec<&&str> = names
        .iter()
        .filter(|n| !page.contains(&format!("| `{n}` |")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/ci.md's table lacks the Action inputs {missing:?}"
    );
}

/// The README is the front door: short, with the two commands, certifying a target, reading a
/// verdict, the exit codes, and links into docs/ for the rest.
#[test]
fn readme_is_the_front_door() {
    let lines = README.lines().count();
    assert!(
        lines <= 250,
        "README.md has {lines} lines; at most 250 (move the rest to docs/)"
    );
    for heading in [
        "## The two commands",
        "## Certifying another implementation",
        "## Reading a verdict and a failure",
        "## Exit codes",
        "## Documentation",
    ] {
        assert!(README.contains(heading), "README.md lacks {heading}");
    }
    let pages = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/docs"))
        .expect("docs/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "md"))
        .count();
    assert!(pages >= 5, "docs/ has {pages} pages");
}

/// Headings of a Markdown text as GitHub anchors.
fn anchors(text: &str) -> Vec<String> {
    let mut fence = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence || !line.starts_with('#') {
            continue;
        }
        let title = line.trim_start_matches('#').trim().to_lowercase();
        let slug: String = title
            .chars()
            .filter(|c| c.is_alphanumeric() || *c == '-' || *c == '_' || *c == ' ')
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        out.push(slug);
    }
    out
}

/// Every relative link of the README and of docs/*.md lands: on a file that exists and, with a
/// `#fragment`, on a heading of that file.
#[test]
fn every_link_of_the_docs_lands() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = vec![root.join("README.md")];
    for entry in std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .flatten()
    {
        if entry.path().extension().is_some_and(|x| x == "md") {
            files.push(entry.path());
        }
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("a page");
        let dir = file.parent().expect("a folder");
        let mut rest = text.as_str();
        while let Some(at) = rest.find("](") {
            rest = &rest[at + 2..];
            let Some(end) = rest.find(')') else { break };
            let target = &rest[..end];
            if target.starts_with("http://")
                || target.starts_with("https://")
                || target.contains(' ')
            {
                continue;
            }
            checked += 1;
            let (path, fragment) = target.split_once('#').unwrap_or((target, ""));
            let landing = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            let name = file
                .strip_prefix(root)
                .unwrap_or(file)
                .display()
                .to_string();
            if !landing.exists() {
                broken.push(format!("{name}: {target} (no such file)"));
                continue;
            }
            if !fragment.is_empty() {
                let page = std::fs::read_to_string(&landing).unwrap_or_default();
                if !anchors(&page).iter().any(|a| a == fragment) {
                    broken.push(format!("{name}: {target} (no such heading)"));
                }
            }
        }
    }
    assert!(checked >= 20, "only {checked} links found");
    assert!(
        broken.is_empty(),
        "links that do not land:\n{}",
        broken.join("\n")
    );
}
