//! Bad input beside its expected error (as Hurl's `tests_failed`): every broken case file under
//! `tests/bad_input/cases/` and every broken profile under `tests/bad_input/profiles/` is refused
//! with exactly the message in the `.err` file beside it, and every kind of error the loader and
//! the profile reader can give has an input (or is named below as one no input can reach).
//!
//! Beside `NAME.err`, the input is `NAME.yaml` (a case file, loaded as the only file of a case
//! directory, as `--case-dir` loads it), `NAME/` (a case directory as it stands) or nothing (a
//! case directory that does not exist); for a profile, `NAME.json` (loaded as `--profile` loads
//! it, existing or not). A `.err` holds the message a user reads, paths relative to the crate.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use conformance_contract::profile::{Profile, ProfileError, ProfileErrorKind};
use conformance_suite::cases::LoadErrorKind;
use conformance_suite::catalog::{self, CatalogError};

const CASES: &str = "tests/bad_input/cases";
const PROFILES: &str = "tests/bad_input/profiles";

/// Kinds no input can reach, each with the reason. A schema-guarded kind is refused by
/// `schemas/case-file.schema.json` before the loader's own check runs; the loader's unit tests
/// give each of them its text (`crates/suite/src/cases/loader/tests.rs`).
const UNREACHABLE: &[(&str, &str)] = &[
    (
        "CatalogError::Contract",
        "the contract files are embedded at build time",
    ),
    (
        "CatalogError::RouteTable",
        "the route table (x-access) is embedded at build time",
    ),
    (
        "CatalogError::Example",
        "the route table (x-example) is embedded at build time",
    ),
    (
        "LoadErrorKind::CaseFileSchema",
        "schemas/case-file.schema.json is embedded at build time",
    ),
    (
        "LoadErrorKind::BadReading",
        "schema-guarded: readings match ^[0-9]+\\.[0-9]+$",
    ),
    (
        "LoadErrorKind::NoRequest",
        "schema-guarded: a case has `request` or `steps` (oneOf)",
    ),
    (
        "LoadErrorKind::StepWithoutRequest",
        "schema-guarded: a step has `request` or `deliveries` (anyOf)",
    ),
    (
        "LoadErrorKind::DeliverySave",
        "schema-guarded: a delivery's save is `header:NAME` or a pointer (pattern)",
    ),
    (
        "LoadErrorKind::Tally",
        "schema-guarded: a tally's conditions are an object",
    ),
    (
        "LoadErrorKind::WatchIds",
        "schema-guarded: `ids` matches ^(/.*)?$",
    ),
    (
        "LoadErrorKind::NotAPointer",
        "schema-guarded: a read-back's json keys match ^(/.*)?$",
    ),
    (
        "ProfileErrorKind::ProfileSchema",
        "schemas/profile.schema.json is embedded at build time",
    ),
    (
        "ProfileErrorKind::FixtureValue",
        "schema-guarded: schemas/profile.schema.json types every fixture it lets through",
    ),
    (
        "ProfileErrorKind::Shape",
        "schema-guarded: schemas/profile.schema.json types every field of the profile model",
    ),
];

/// The enums whose every variant needs an input: (file declaring it, enum name).
const KINDS: &[(&str, &str)] = &[
    ("crates/suite/src/catalog.rs", "CatalogError"),
    ("crates/suite/src/cases/loader/error.rs", "LoadErrorKind"),
    ("crates/suite/src/cases/matcher.rs", "BadMatcher"),
    ("crates/contract/src/profile.rs", "ProfileError"),
    ("crates/contract/src/profile.rs", "ProfileErrorKind"),
    ("crates/contract/src/profile.rs", "RequestFieldError"),
];

/// The names of the variants of `pub enum NAME` as `file` declares them: the lines of its body
/// indented once that start with a capital.
fn variants(file: &str, name: &str) -> Vec<String> {
    let text = crate::common::sources::read(std::path::Path::new(file));
    let head = format!("pub enum {name} {{\n");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("{file} declares no `pub enum {name}`"))
        + head.len();
    let body = &text[start..];
    let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
    body.lines()
        .filter_map(|l| l.strip_prefix("    "))
        .filter(|l| l.starts_with(|c: char| c.is_ascii_uppercase()))
        .map(|l| {
            let ident: String = l.chars().take_while(|c| c.is_alphanumeric()).collect();
            format!("{name}::{ident}")
        })
        .collect()
}

/// What loading an input gives: the message (paths relative to the crate) and the kinds it is,
/// outermost first; None when it loads.
type Loader = fn(&str) -> Option<(String, Vec<String>)>;

/// What loading a case input gives: the message (paths relative to the crate) and the kinds it
/// is, outermost first.
fn load_case_input(name: &str) -> Option<(String, Vec<String>)> {
    let file = Path::new(CASES).join(format!("{name}.yaml"));
    let (dir, shown): (PathBuf, Option<String>) = if file.is_file() {
        // The file alone in a directory of its own, shown as the folder of inputs.
        let dir = std::env::temp_dir().join(format!("wc-bad-input-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        std::fs::copy(&file, dir.join(format!("{name}.yaml"))).expect("copy");
        let shown = dir.display().to_string();
        (dir, Some(shown))
    } else {
        (Path::new(CASES).join(name), None)
    };
    let result = catalog::load(Some(&dir));
    if let Some(shown) = &shown {
        let _ = std::fs::remove_dir_all(shown);
    }
    let e = result.err()?;
    let mut message = e.to_string();
    if let Some(shown) = &shown {
        message = message.replace(shown.as_str(), CASES);
    }
    let mut kinds = vec![format!("CatalogError::{}", e.name())];
    if let CatalogError::CaseFile(load) = &e {
        kinds.push(format!("LoadErrorKind::{}", load.kind.name()));
        if let LoadErrorKind::Matcher(m) = &load.kind {
            kinds.push(format!("BadMatcher::{}", m.name()));
        }
    }
    Some((message, kinds))
}

/// What loading a profile input gives: the message and the kinds it is, outermost first.
fn load_profile_input(name: &str) -> Option<(String, Vec<String>)> {
    let e = Profile::load(&Path::new(PROFILES).join(format!("{name}.json"))).err()?;
    let mut kinds = vec![format!("ProfileError::{}", e.name())];
    if let ProfileError::Bad { kind, .. } = &e {
        kinds.push(format!("ProfileErrorKind::{}", kind.name()));
        if let ProfileErrorKind::RequestField(r) = &**kind {
            kinds.push(format!("RequestFieldError::{}", r.name()));
        }
    }
    Some((e.to_string(), kinds))
}

/// The names of the `.err` files of `dir`, without the extension.
fn expected_in(dir: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .filter_map(|entry| {
            let path = entry.expect("directory entry").path();
            (path.extension()? == "err").then(|| path.file_stem()?.to_str().map(str::to_string))?
        })
        .collect();
    names.sort();
    names
}

#[test]
fn every_bad_input_gives_its_message_and_every_kind_has_an_input() {
    let mut wrong = Vec::new();
    let mut produced = BTreeSet::new();
    let groups: [(&str, &str, Loader); 2] = [
        (CASES, "yaml", load_case_input),
        (PROFILES, "json", load_profile_input),
    ];
    for (dir, ext, load) in groups {
        let names = expected_in(dir);
        assert!(!names.is_empty(), "no .err files in {dir}");
        for name in names {
            let err = Path::new(dir).join(format!("{name}.err"));
            let want = std::fs::read_to_string(&err).unwrap_or_else(|e| panic!("{err:?}: {e}"));
            match load(&name) {
                None => wrong.push(format!("{dir}/{name}: loads without an error")),
                Some((got, kinds)) => {
                    if got != want.trim_end_matches('\n') {
                        wrong.push(format!(
                            "{dir}/{name}:\n  expected: {}\n  got:      {got}",
                            want.trim_end()
                        ));
                    }
                    produced.extend(kinds);
                }
            }
        }
        // Every input has its expected message.
        for entry in std::fs::read_dir(dir).expect("inputs") {
            let path = entry.expect("entry").path();
            let is_input = path.is_dir() || path.extension().is_some_and(|e| e == ext);
            if is_input && !path.with_extension("err").is_file() {
                wrong.push(format!("{}: no .err beside it", path.display()));
            }
        }
    }
    let unreachable: BTreeSet<String> = UNREACHABLE.iter().map(|(k, _)| k.to_string()).collect();
    let all: BTreeSet<String> = KINDS
        .iter()
        .flat_map(|(file, name)| variants(file, name))
        .collect();
    for kind in &all {
        match (produced.contains(kind), unreachable.contains(kind)) {
            (false, false) => wrong.push(format!("{kind}: no bad input gives this kind")),
            (true, true) => wrong.push(format!(
                "{kind}: an input gives it, yet UNREACHABLE names it"
            )),
            _ => {}
        }
    }
    for kind in produced.iter().chain(&unreachable) {
        if !all.contains(kind) {
            wrong.push(format!("{kind}: not a variant of the enums in KINDS"));
        }
    }
    assert!(wrong.is_empty(), "\n{}", wrong.join("\n"));
}

#[test]
fn the_kind_list_reads_the_enums() {
    // The reader of declarations finds unit, tuple and struct variants alike.
    let kinds = variants("crates/suite/src/cases/loader/error.rs", "LoadErrorKind");
    for k in [
        "LoadErrorKind::NoCaseFiles",
        "LoadErrorKind::ReadDir",
        "LoadErrorKind::DuplicateCase",
    ] {
        assert!(kinds.iter().any(|x| x == k), "{k} in {kinds:?}");
    }
    assert!(variants("crates/contract/src/profile.rs", "ProfileError").len() == 2);
}
