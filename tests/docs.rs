//! The README stays true: it names every fault of the catalog and every profile fixture.

use workspace_conformance::profile::KNOWN_FIXTURES;
use workspace_conformance::reference::CATALOG;

const README: &str = include_str!("../README.md");

#[test]
fn readme_lists_every_fault_with_its_clause() {
    for f in CATALOG {
        let row = format!("| `{}` | {} |", f.name, f.clause);
        assert!(README.contains(&row), "README lacks the fault row {row}");
    }
}

#[test]
fn readme_lists_every_fixture() {
    for (name, _) in KNOWN_FIXTURES {
        assert!(
            README.contains(&format!("| `{name}` |")),
            "README lacks the fixture {name}"
        );
    }
}

#[test]
fn readme_shows_both_commands() {
    assert!(README.contains("cargo run --release") && README.contains("cargo test"));
}

#[test]
fn readme_lists_every_variant_with_its_reading() {
    for v in workspace_conformance::reference::VARIANTS {
        let row = format!("| `{}` | {} |", v.name, v.reading);
        assert!(README.contains(&row), "README lacks the variant row {row}");
    }
}

/// `docs/READINGS.md` is the project's copy of the readings the suite follows; it stays
/// identical to `../shared/spec/READINGS.md` wherever that file is present (CI has it beside the
/// clone).
#[test]
fn readings_are_the_shared_readings() {
    let shared =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/spec/READINGS.md");
    let Ok(shared) = std::fs::read_to_string(&shared) else {
        eprintln!("no ../shared/spec/READINGS.md beside the project: nothing to compare");
        return;
    };
    let ours = include_str!("../docs/READINGS.md");
    assert!(
        ours == shared,
        "docs/READINGS.md differs from ../shared/spec/READINGS.md: copy it over"
    );
}

#[test]
fn readme_lists_every_renameable_request_field() {
    for (key, method, path, field, _) in workspace_conformance::profile::REQUEST_FIELDS {
        let row = format!("| `{key}` | {method} {path} | `{field}` |");
        assert!(
            README.contains(&row),
            "README lacks the request field row {row}"
        );
    }
}

/// The README's fixture table is `schemas/profile.schema.json` in words: every fixture with its
/// type and range, and its meaning; the schema names exactly the fixtures case files may use.
#[test]
fn readme_fixture_table_is_the_profile_schema() {
    use workspace_conformance::profile::{PROFILE_SCHEMA, type_in_words};
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
    let mut table = String::from(
        "| fixture | type and range | what it must hold | discovered? |\n|---|---|---|---|\n",
    );
    for (name, s) in fixtures {
        // `x-discovered`: true, or why no request shows it, or what it needs given first.
        let discovered = match &s["x-discovered"] {
            serde_json::Value::Bool(true) => "yes".to_string(),
            serde_json::Value::String(w) if w.starts_with("with ") => format!("yes, {w}"),
            serde_json::Value::String(w) => format!("no: {w}"),
            other => panic!("`{name}` has no x-discovered (true or a reason): {other}"),
        };
        table.push_str(&format!(
            "| `{name}` | {} | {} | {} |\n",
            type_in_words(s).replace('|', "\\|"),
            s["description"]
                .as_str()
                .expect("every fixture has a description"),
            discovered.replace('|', "\\|")
        ));
    }
    assert!(
        README.contains(&table),
        "README's fixture table differs from schemas/profile.schema.json; it should read:\n{table}"
    );
}

/// The README's options table names every option of a run that `--help` shows; libtest's options
/// are named in the paragraph below it.
#[test]
fn readme_options_table_names_every_option_of_help() {
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
            README.contains(&format!("`--{long}"))
        } else {
            README.contains(&row)
        };
        if !named {
            missing.push(long.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "README's options table lacks {missing:?}"
    );
}

/// The README names every option of `discover --help`.
#[test]
fn readme_names_every_option_of_discover() {
    let cmd = workspace_conformance::app::command();
    let discover = cmd
        .get_subcommands()
        .find(|c| c.get_name() == "discover")
        .expect("a discover subcommand");
    let missing: Vec<String> = discover
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|long| {
            !README.contains(&format!("`--{long}")) && !README.contains(&format!(" --{long} "))
        })
        .map(str::to_string)
        .collect();
    assert!(
        missing.is_empty(),
        "README does not name {missing:?} of discover"
    );
}
