//! The setups of `src/cases/setups.yaml`: steps that make a resource the target shows, named
//! once and run for every case that names them (a case file's `setup:`, an operation's
//! `x-access.setup`), so that no request whose answer must be more than "not found" names an id
//! the suite invented (READINGS 6.6).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Deserialize;
use serde_json::Map;

use super::{LoadError, LoadErrorKind};
use crate::cases::model::{Case, CaseDoc, Instead, OneOrMany, Setup, StepDoc};
use conformance_contract::yaml::{self, path_to_pointer};
use conformance_contract::{Api, Contract};

/// Where the setups are, as errors name it.
pub(crate) const SETUPS_FILE: &str = "src/cases/setups.yaml";
const SETUPS_YAML: &str = include_str!("../setups.yaml");

/// One setup as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetupDoc {
    clause: OneOrMany<String>,
    #[serde(default)]
    summary: Option<String>,
    /// `run` (default): once per run, shared; `trial`: once for each trial that names it.
    #[serde(default)]
    per: Per,
    /// Another setup run in this one's place when the profile lacks a fixture.
    #[serde(default)]
    instead: Option<InsteadDoc>,
    steps: Vec<StepDoc>,
}

/// `instead: { without: FIXTURE, setup: NAME }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct InsteadDoc {
    without: String,
    setup: String,
}

#[derive(Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
enum Per {
    #[default]
    Run,
    Trial,
}

/// Every setup by name.
pub(crate) type Setups = BTreeMap<String, Arc<Setup>>;

/// The setups built into the suite (a broken file is a broken build: every load reports it).
pub fn embedded(contract: &Contract) -> Result<Setups, LoadError> {
    load(SETUPS_YAML, contract)
}

/// Loads setups from YAML text: a map of name -> setup, each step as in a case file.
pub fn load(text: &str, contract: &Contract) -> Result<Setups, LoadError> {
    let err = |line: usize, kind: LoadErrorKind| LoadError::at(SETUPS_FILE, line, kind);
    let (value, lines) =
        yaml::parse(text).map_err(|e| err(e.line, LoadErrorKind::Yaml(e.message)))?;
    let docs: BTreeMap<String, SetupDoc> =
        serde_path_to_error::deserialize(&value).map_err(|e| {
            let pointer = path_to_pointer(e.path());
            err(
                lines.line_of(&pointer),
                LoadErrorKind::Shape(e.inner().to_string()),
            )
        })?;
    let mut out = Setups::new();
    let mut instead = Vec::new();
    for (name, mut doc) in docs {
        if let Some(i) = doc.instead.take() {
            instead.push((name.clone(), i));
        }
        let api = doc
            .steps
            .iter()
            .find_map(|s| s.request.as_ref())
            .map_or(Api::V1, |r| Api::of_path(&r.path));
        let case_doc = CaseDoc {
            id: name.clone(),
            clause: doc.clause,
            readings: vec!["6.6".into()],
            summary: doc.summary,
            tags: Vec::new(),
            exclusive: Default::default(),
            setup: Vec::new(),
            uses: None,
            request: None,
            expect: None,
            save: Map::new(),
            steps: Some(doc.steps),
            control: None,
            unchanged: None,
            read_back: None,
            receiver: Vec::new(),
        };
        let at = format!("/{}", name.replace('~', "~0").replace('/', "~1"));
        let case = super::normalise(
            SETUPS_FILE,
            &at,
            case_doc,
            api,
            "setup",
            &lines,
            contract,
            &Setups::new(),
        )?;
        let defines = defined_by(&case);
        out.insert(
            name.clone(),
            Arc::new(Setup {
                name,
                per_trial: doc.per == Per::Trial,
                case,
                defines,
                instead: None,
            }),
        );
    }
    // The setups run in another's place, each defining what the other defines.
    for (name, i) in instead {
        let at = format!("/{}/instead", name.replace('~', "~0").replace('/', "~1"));
        let line = lines.line_of(&at);
        let Some(other) = out.get(&i.setup).cloned() else {
            return Err(err(
                line,
                LoadErrorKind::UnknownSetup {
                    name: i.setup,
                    known: out.keys().cloned().collect(),
                },
            ));
        };
        let Some(setup) = out.get_mut(&name) else {
            continue;
        };
        let known = conformance_contract::profile::KNOWN_FIXTURES
            .iter()
            .any(|(n, _)| *n == i.without);
        if !known || !other.defines.is_superset(&setup.defines) || other.instead.is_some() {
            return Err(err(
                line,
                LoadErrorKind::Shape(format!(
                    "`{}` runs in the place of `{name}` without `{}` (a known fixture): it defines what `{name}` defines ({}) and has no `instead` of its own",
                    i.setup,
                    i.without,
                    setup.defines.iter().cloned().collect::<Vec<_>>().join(", ")
                )),
            ));
        }
        if let Some(s) = Arc::get_mut(setup) {
            s.instead = Some(Instead {
                without: i.without,
                setup: other,
            });
        }
    }
    Ok(out)
}

/// The names a setup's steps define for the cases that run it.
fn defined_by(case: &Case) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for s in &case.steps {
        out.extend(s.save.iter().map(|(k, _)| k.clone()));
        out.extend(s.secret.iter().cloned());
        if let Some(r) = &s.repeat {
            out.extend(r.collect.keys().cloned());
        }
        if let Some(p) = &s.precondition {
            out.insert(p.item.clone());
        }
        if let Some(page) = &s.expect.page {
            out.extend(page.tally.keys().cloned());
        }
        if let Some(d) = &s.deliveries {
            out.extend(d.save.keys().cloned());
        }
    }
    out
}
