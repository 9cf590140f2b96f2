//! Loads case files: YAML, the case-file schema, the model, then the rules a schema cannot say
//! (clauses exist, routes exist, variables are defined before use). Every error names the file
//! and line.

mod error;
pub mod setups;

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use super::model::{
    Case, CaseDoc, CaseFileDoc, Control, ControlOf, Expect, ForEach, OneOrMany, ReadBack, Repeat,
    Request, StatusExpect, Step,
};
use super::template::{
    BUILTINS, names_in_str, names_in_value, unresolved_in_template, unresolved_in_template_value,
};
use crate::cases::matcher;
use conformance_contract::Api;
use conformance_contract::Contract;
use conformance_contract::profile::KNOWN_FIXTURES;
use conformance_contract::yaml::{self, path_to_pointer};
pub use error::LoadErrorKind;
pub(crate) use error::{LoadError, Position};

const CASE_FILE_SCHEMA: &str = include_str!("../../../../../schemas/case-file.schema.json");

static CASE_FILE_VALIDATOR: LazyLock<Result<jsonschema::Validator, LoadErrorKind>> =
    LazyLock::new(|| {
        let bad = |e: String| LoadErrorKind::CaseFileSchema(e);
        let schema: Value =
            serde_json::from_str(CASE_FILE_SCHEMA).map_err(|e| bad(e.to_string()))?;
        jsonschema::validator_for(&schema).map_err(|e| bad(e.to_string()))
    });

static READING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[0-9]+\.[0-9]+$").expect("valid regex"));

/// Loads the case files embedded at build time.
pub(crate) fn load_embedded(contract: &Contract) -> Result<Vec<Case>, LoadError> {
    let files: Vec<(String, String)> = super::CASE_FILES
        .iter()
        .map(|(name, text)| (name.to_string(), text.to_string()))
        .collect();
    load_sources(&files, contract)
}

/// Loads every `*.yaml` file under `dir`.
pub(crate) fn load_dir(dir: &Path, contract: &Contract) -> Result<Vec<Case>, LoadError> {
    let mut paths = Vec::new();
    collect(dir, &mut paths).map_err(|e| {
        LoadError::at(
            dir.display().to_string(),
            0,
            LoadErrorKind::ReadDir(e.into()),
        )
    })?;
    paths.sort();
    if paths.is_empty() {
        return Err(LoadError::at(
            dir.display().to_string(),
            0,
            LoadErrorKind::NoCaseFiles,
        ));
    }
    let mut files = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|e| {
            LoadError::at(
                p.display().to_string(),
                0,
                LoadErrorKind::ReadFile(e.into()),
            )
        })?;
        files.push((p.display().to_string(), text));
    }
    load_sources(&files, contract)
}

fn collect(dir: &Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
            out.push(path);
        }
    }
    Ok(())
}

/// Loads case files given as (name, text) pairs.
pub fn load_sources(
    files: &[(String, String)],
    contract: &Contract,
) -> Result<Vec<Case>, LoadError> {
    let validator = CASE_FILE_VALIDATOR
        .as_ref()
        .map_err(|e| LoadError::at("schemas/case-file.schema.json", 0, e.clone()))?;
    let setups = setups::embedded(contract)?;
    let mut cases = Vec::new();
    let mut names: HashMap<String, (String, usize)> = HashMap::new();
    for (file, text) in files {
        for case in load_file(file, text, validator, contract, &setups)? {
            if let Some((f, l)) = names.get(&case.name) {
                return Err(LoadError::at(
                    case.file.clone(),
                    case.line,
                    LoadErrorKind::DuplicateCase {
                        name: case.name.clone(),
                        first_file: f.clone(),
                        first_line: *l,
                    },
                ));
            }
            names.insert(case.name.clone(), (case.file.clone(), case.line));
            cases.push(case);
        }
    }
    Ok(cases)
}

fn load_file(
    file: &str,
    text: &str,
    validator: &jsonschema::Validator,
    contract: &Contract,
    setups: &setups::Setups,
) -> Result<Vec<Case>, LoadError> {
    let err = |line: usize, kind: LoadErrorKind| LoadError::at(file, line, kind);
    let (value, lines) =
        yaml::parse(text).map_err(|e| err(e.line, LoadErrorKind::Yaml(e.message)))?;
    if let Some(e) = validator.iter_errors(&value).next() {
        let pointer = e.instance_path().to_string();
        return Err(err(
            lines.line_of(&pointer),
            LoadErrorKind::Schema {
                message: e.to_string(),
                pointer,
            },
        ));
    }
    let doc: CaseFileDoc = serde_path_to_error::deserialize(&value).map_err(|e| {
        let pointer = path_to_pointer(e.path());
        err(
            lines.line_of(&pointer),
            LoadErrorKind::Shape(e.inner().to_string()),
        )
    })?;
    let mut out = Vec::new();
    for (i, case) in doc.cases.into_iter().enumerate() {
        let at = format!("/cases/{i}");
        out.push(normalise(
            file, &at, case, doc.api, &doc.area, &lines, contract, setups,
        )?);
    }
    Ok(out)
}

/// A case file's case as the runner takes it: its clauses and readings known, each step's
/// request a route of the contract, every name it uses defined before or a fixture, and the
/// steps a read-back or a control adds in their place; the setups it names run first.
#[allow(clippy::too_many_arguments)]
fn normalise(
    file: &str,
    at: &str,
    mut doc: CaseDoc,
    api: Api,
    area: &str,
    lines: &yaml::LineIndex,
    contract: &Contract,
    setups: &setups::Setups,
) -> Result<Case, LoadError> {
    let cx = CaseCx {
        file,
        id: doc.id.clone(),
        lines,
        contract,
    };
    let clauses = std::mem::replace(&mut doc.clause, OneOrMany::Many(Vec::new())).into_vec();
    cx.check_clauses(at, &clauses)?;
    cx.check_readings(at, &doc.readings)?;
    let raw_steps = raw_steps(&cx, at, &mut doc)?;
    let mut st = StepsSoFar::new();
    let mut own_setups = Vec::new();
    for (i, name) in doc.setup.iter().enumerate() {
        let Some(setup) = setups.get(name) else {
            return Err(cx.err(
                &format!("{at}/setup/{i}"),
                LoadErrorKind::UnknownSetup {
                    name: name.clone(),
                    known: setups.keys().cloned().collect(),
                },
            ));
        };
        st.defined.extend(setup.defines.iter().cloned());
        st.fixtures.extend(setup.fixtures());
        st.uses_receiver |= setup.case.uses_receiver;
        own_setups.push(setup.clone());
    }
    for (step_at, request, expect, save, mut extras) in raw_steps {
        // A step's clause narrows what its expectation findings cite: one of the case's, so the
        // case still says everything it proves.
        let step_clauses = extras.clause.take().unwrap_or_default();
        cx.check_step_clauses(&step_at, &step_clauses, &clauses)?;
        let read_clauses: Option<Vec<String>> = extras
            .read_back
            .as_mut()
            .and_then(|rb| rb.clause.take())
            .map(OneOrMany::into_vec);
        if let Some(c) = &read_clauses {
            cx.check_step_clauses(&format!("{step_at}/read_back"), c, &clauses)?;
        }
        let first = st.steps.len();
        match request {
            None => {
                let step = deliveries_step(&cx, &mut st, &step_at, expect, &save, extras)?;
                st.uses_receiver = true;
                st.steps.push(step);
            }
            Some(request) => request_step(&cx, &mut st, &step_at, request, expect, save, extras)?,
        }
        // Every step this one adds cites what it cites: its read-backs (which prove its effect,
        // unless they name the effect's own clause) and its control.
        for step in &mut st.steps[first..] {
            step.clauses = match (&read_clauses, step.read_back_of) {
                (Some(c), Some(_)) => c.clone(),
                _ => step_clauses.clone(),
            };
        }
    }
    let uses = match doc.uses.take() {
        Some(fixture) if !st.fixtures.contains(&fixture) => {
            return Err(cx.err(&format!("{at}/uses"), LoadErrorKind::UsesUnused { fixture }));
        }
        Some(fixture) => Some(crate::cases::model::Uses {
            fixture,
            by_control: false,
            control_in: None,
            spare_setups: Vec::new(),
        }),
        None => None,
    };
    let read_only = own_setups.iter().all(|s| s.case.read_only)
        && st
            .steps
            .iter()
            .all(|s| s.request.as_ref().is_none_or(|r| r.method == "GET"));
    Ok(Case {
        name: format!("{}.{}.{}", api.as_str(), area, doc.id),
        api,
        area: area.to_string(),
        clauses,
        readings: doc.readings,
        summary: doc.summary,
        tags: doc.tags,
        exclusive: doc.exclusive.is_exclusive(),
        needs: doc.exclusive.holds(),
        read_only,
        steps: st.steps,
        fixtures: st.fixtures,
        file: file.to_string(),
        line: lines.line_of(at),
        property: None,
        receiver: doc.receiver,
        uses_receiver: st.uses_receiver,
        setups: own_setups,
        uses,
    })
}

/// What a case is checked against: its file and id (for errors), the lines of its YAML and the
/// contract.
struct CaseCx<'a> {
    file: &'a str,
    id: String,
    lines: &'a yaml::LineIndex,
    contract: &'a Contract,
}

impl CaseCx<'_> {
    /// An error of this case at the JSON Pointer `pointer` of its file.
    fn err(&self, pointer: &str, kind: LoadErrorKind) -> LoadError {
        LoadError {
            pos: Position {
                file: self.file.to_string(),
                line: self.lines.line_of(pointer),
                case: Some(self.id.clone()),
            },
            kind,
        }
    }

    /// Every clause is one of `schemas/clauses.yaml`.
    fn check_clauses(&self, at: &str, clauses: &[String]) -> Result<(), LoadError> {
        for c in clauses {
            if !self.contract.clauses.contains(c) {
                return Err(self.err(
                    &format!("{at}/clause"),
                    LoadErrorKind::UnknownClause { clause: c.clone() },
                ));
            }
        }
        Ok(())
    }

    /// Every clause of a step is one of the case's.
    fn check_step_clauses(
        &self,
        step_at: &str,
        step_clauses: &[String],
        clauses: &[String],
    ) -> Result<(), LoadError> {
        for c in step_clauses {
            if !clauses.contains(c) {
                let known = self.contract.clauses.contains(c);
                return Err(self.err(
                    &format!("{step_at}/clause"),
                    if known {
                        LoadErrorKind::StepClauseNotCases {
                            clause: c.clone(),
                            clauses: clauses.to_vec(),
                        }
                    } else {
                        LoadErrorKind::UnknownClause { clause: c.clone() }
                    },
                ));
            }
        }
        Ok(())
    }

    /// Every reading is a section number of READINGS.
    fn check_readings(&self, at: &str, readings: &[String]) -> Result<(), LoadError> {
        for r in readings {
            if !READING.is_match(r) {
                return Err(self.err(
                    &format!("{at}/readings"),
                    LoadErrorKind::BadReading { reading: r.clone() },
                ));
            }
        }
        Ok(())
    }
}

/// What the steps so far define and use, and the steps themselves.
struct StepsSoFar {
    /// Names a later step may use: the built-ins and what earlier steps saved.
    defined: BTreeSet<String>,
    /// The profile fixtures the case uses.
    fixtures: BTreeSet<String>,
    steps: Vec<Step>,
    uses_receiver: bool,
}

impl StepsSoFar {
    fn new() -> Self {
        StepsSoFar {
            defined: BUILTINS.iter().map(|s| s.to_string()).collect(),
            fixtures: BTreeSet::new(),
            steps: Vec::new(),
            uses_receiver: false,
        }
    }

    /// Every name of `used` is defined by an earlier step or is a fixture (then recorded).
    fn resolve(&mut self, used: &BTreeSet<String>) -> Result<(), LoadErrorKind> {
        resolve_names(used, &self.defined, &mut self.fixtures)
    }
}

/// The case's steps as written (`steps`), or its one request with the case's own expect, save,
/// control, unchanged and read-back.
fn raw_steps(cx: &CaseCx, at: &str, doc: &mut CaseDoc) -> Result<Vec<RawStep>, LoadError> {
    Ok(match doc.steps.take() {
        Some(steps) => steps
            .into_iter()
            .enumerate()
            .map(|(i, s)| {
                (
                    format!("{at}/steps/{i}"),
                    s.request,
                    s.expect,
                    s.save,
                    StepExtras {
                        clause: s.clause.map(OneOrMany::into_vec),
                        repeat: s.repeat,
                        for_each: s.for_each,
                        precondition: s.precondition,
                        always: s.always,
                        deliveries: s.deliveries,
                        secret: s.secret,
                        control: s.control,
                        unchanged: s.unchanged,
                        read_back: s.read_back,
                    },
                )
            })
            .collect(),
        None => match doc.request.take() {
            Some(r) => vec![(
                at.to_string(),
                Some(r),
                doc.expect.take(),
                std::mem::take(&mut doc.save),
                StepExtras {
                    control: doc.control.take(),
                    unchanged: doc.unchanged.take(),
                    read_back: doc.read_back.take(),
                    ..StepExtras::default()
                },
            )],
            None => return Err(cx.err(at, LoadErrorKind::NoRequest)),
        },
    })
}

/// A step without a request: what the webhook receiver must have got, verified with a secret
/// saved before; its own `save` defines names for later steps.
fn deliveries_step(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    expect: Option<Expect>,
    save: &serde_json::Map<String, Value>,
    extras: StepExtras,
) -> Result<Step, LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    let Some(d) = extras.deliveries else {
        return Err(err(step_at, LoadErrorKind::StepWithoutRequest));
    };
    if expect.is_some()
        || !save.is_empty()
        || extras.repeat.is_some()
        || extras.for_each.is_some()
        || extras.precondition.is_some()
        || extras.secret.is_some()
        || extras.control.is_some()
        || extras.unchanged.is_some()
        || extras.read_back.is_some()
    {
        return Err(err(step_at, LoadErrorKind::DeliveriesStepOptions));
    }
    let d_at = format!("{step_at}/deliveries");
    // Every delivery a step credits is verified (Authentication 4): a step that waits for
    // one names the secret (`secret:` of the step that created the webhook).
    if d.count.or(d.min).unwrap_or(1) > 0 && d.verify.is_none() {
        return Err(err(&d_at, LoadErrorKind::DeliveriesWithoutVerify));
    }
    let mut used: BTreeSet<String> = d.verify.iter().chain(d.replaces.iter()).cloned().collect();
    for m in d.json.values().chain(d.select.values()) {
        names_in_value(m, &mut used);
        matcher::validate(m).map_err(|x| err(&d_at, x.into()))?;
    }
    st.resolve(&used).map_err(|m| err(&d_at, m))?;
    for (name, from) in &d.save {
        check_new_name(name).map_err(|m| err(&d_at, m))?;
        let ok = from
            .as_str()
            .is_some_and(|f| f.starts_with("header:") || f.is_empty() || f.starts_with('/'));
        if !ok {
            return Err(err(
                &d_at,
                LoadErrorKind::DeliverySave { name: name.clone() },
            ));
        }
        st.defined.insert(name.clone());
    }
    Ok(Step {
        clauses: Vec::new(),
        request: None,
        deliveries: Some(d),
        secret: None,
        expect: Expect::default(),
        save: Vec::new(),
        repeat: None,
        for_each: None,
        precondition: None,
        always: extras.always,
        control_of: None,
        unchanged: None,
        poll: false,
        read_back_of: None,
        line: cx.lines.line_of(step_at),
    })
}

/// A step with a request: its names, its route, its outputs and expectations checked, then the
/// step pushed with the read-back before it and its control and the read of its effect after.
fn request_step(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    request: Request,
    expect: Option<Expect>,
    save: serde_json::Map<String, Value>,
    extras: StepExtras,
) -> Result<(), LoadError> {
    if extras.deliveries.is_some() {
        return Err(cx.err(step_at, LoadErrorKind::RequestAndDeliveries));
    }
    define_loop_names(cx, st, step_at, &extras)?;
    check_request(cx, st, step_at, &request)?;
    let save_list = define_outputs(cx, st, step_at, &save, &extras)?;
    let expect = expect.unwrap_or_default();
    check_step_expect(cx, st, step_at, &expect)?;
    let unchanged = match extras.unchanged {
        None => None,
        Some(w) => Some(check_unchanged(cx, st, step_at, w)?),
    };
    let repeated = extras.repeat.is_some() || extras.for_each.is_some();
    // The read-back: the values to keep are read just before the step, the effect just after
    // it (and after its control, which changes nothing).
    let read_back = match &extras.read_back {
        None => None,
        Some(rb) => Some(read_back_around(
            cx, st, step_at, rb, &request, &expect, repeated,
        )?),
    };
    let control = match &extras.control {
        None => None,
        Some(c) => Some(control_step(
            cx, st, step_at, c, &request, &expect, repeated,
        )?),
    };
    st.steps.push(Step {
        clauses: Vec::new(),
        request: Some(request),
        deliveries: None,
        secret: extras.secret,
        expect,
        save: save_list,
        repeat: extras.repeat,
        for_each: extras.for_each,
        precondition: extras.precondition,
        always: extras.always,
        control_of: None,
        unchanged,
        poll: false,
        read_back_of: None,
        line: cx.lines.line_of(step_at),
    });
    st.steps.extend(control);
    if let Some(mut after) = read_back {
        let steps = &st.steps;
        after.read_back_of = Some(
            steps.len() - 1 - usize::from(steps.last().is_some_and(|s| s.control_of.is_some())),
        );
        st.steps.push(after);
    }
    Ok(())
}

/// The lists `for_each`, `precondition` and `repeat` read are defined; the names they bind are
/// new.
fn define_loop_names(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    extras: &StepExtras,
) -> Result<(), LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    if let Some(each) = &extras.for_each {
        let list = BTreeSet::from([each.list.clone()]);
        st.resolve(&list)
            .map_err(|m| err(&format!("{step_at}/for_each"), m))?;
        check_new_name(&each.item).map_err(|m| err(&format!("{step_at}/for_each"), m))?;
        st.defined.insert(each.item.clone());
    }
    if let Some(pre) = &extras.precondition {
        let at = format!("{step_at}/precondition");
        if extras.for_each.is_some() || extras.repeat.is_some() {
            return Err(err(&at, LoadErrorKind::PreconditionLoops));
        }
        let list = BTreeSet::from([pre.list.clone()]);
        st.resolve(&list).map_err(|m| err(&at, m))?;
        check_new_name(&pre.item).map_err(|m| err(&at, m))?;
        st.defined.insert(pre.item.clone());
    }
    if let Some(repeat) = &extras.repeat {
        let mut used = BTreeSet::new();
        names_in_value(&repeat.max, &mut used);
        used.extend(repeat.existing.iter().cloned());
        used.extend(repeat.maybe.iter().cloned());
        st.resolve(&used)
            .map_err(|m| err(&format!("{step_at}/repeat"), m))?;
    }
    Ok(())
}

/// The request is all templates of variables, is a route of the contract (or names a hook as a
/// whole fixture), and uses only defined names and fixtures.
fn check_request(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    request: &Request,
) -> Result<(), LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    let req_at = format!("{step_at}/request");
    if let Some((part, text)) = unresolved_in_request(request) {
        return Err(err(
            &format!("{req_at}/{part}"),
            LoadErrorKind::RequestNotATemplate { text, part },
        ));
    }
    let concrete = TEMPLATE_PLACEHOLDER.replace_all(&request.path, "x");
    // A path that is a fixture as a whole names a hook of the target outside the API (the
    // activity hook); every other path must be a route of the contract.
    let hook = request.path.starts_with("{{");
    if !hook && cx.contract.route(&request.method, &concrete).is_none() {
        return Err(err(
            &format!("{req_at}/path"),
            LoadErrorKind::NoRoute {
                method: request.method.clone(),
                path: request.path.clone(),
            },
        ));
    }
    let mut used = BTreeSet::new();
    names_in_str(&request.path, &mut used);
    for (k, v) in &request.query {
        names_in_str(k, &mut used);
        names_in_value(v, &mut used);
    }
    for v in request.headers.values() {
        names_in_value(v, &mut used);
    }
    if let Some(b) = &request.body {
        names_in_value(b, &mut used);
    }
    if let Some(b) = &request.raw_body {
        names_in_str(b, &mut used);
    }
    match request.auth.as_deref() {
        None | Some("none") | Some("invalid") => {}
        Some(fixture) => {
            used.insert(fixture.to_string());
        }
    }
    st.uses_receiver |= used.contains("webhook_url");
    st.resolve(&used).map_err(|m| err(&req_at, m))
}

/// The names the step defines for later steps: its `secret`, its `save` (returned as name and
/// pointer) and the lists its `repeat` collects.
fn define_outputs(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    save: &serde_json::Map<String, Value>,
    extras: &StepExtras,
) -> Result<Vec<(String, String)>, LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    if let Some(name) = &extras.secret {
        check_new_name(name).map_err(|m| err(&format!("{step_at}/secret"), m))?;
        st.defined.insert(name.clone());
    }
    let mut save_list = Vec::new();
    for (name, pointer) in save {
        let pointer = pointer.as_str().unwrap_or_default().to_string();
        check_new_name(name).map_err(|m| err(&format!("{step_at}/save"), m))?;
        st.defined.insert(name.clone());
        save_list.push((name.clone(), pointer));
    }
    if let Some(repeat) = &extras.repeat {
        for name in repeat.collect.keys() {
            check_new_name(name).map_err(|m| err(&format!("{step_at}/repeat"), m))?;
            st.defined.insert(name.clone());
        }
    }
    Ok(save_list)
}

/// The step's expectations: its tallies named and their matchers valid, the expectation itself
/// checked against the contract, every name it uses defined; the tallies then define names.
fn check_step_expect(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    expect: &Expect,
) -> Result<(), LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    let exp_at = format!("{step_at}/expect");
    if let Some(page) = &expect.page {
        for (name, conditions) in &page.tally {
            let t_at = format!("{exp_at}/page/tally");
            check_new_name(name).map_err(|m| err(&t_at, m))?;
            let Some(conditions) = conditions.as_object() else {
                return Err(err(&t_at, LoadErrorKind::Tally { name: name.clone() }));
            };
            for m in conditions.values() {
                matcher::validate(m).map_err(|x| err(&t_at, x.into()))?;
            }
        }
    }
    check_expect(expect, cx.contract).map_err(|(p, m)| err(&format!("{exp_at}{p}"), m))?;
    let mut used = BTreeSet::new();
    names_in_value(
        &serde_json::to_value(ExpectNames(expect)).unwrap_or(Value::Null),
        &mut used,
    );
    st.resolve(&used).map_err(|m| err(&exp_at, m))?;
    if let Some(page) = &expect.page {
        st.defined.extend(page.tally.keys().cloned());
    }
    Ok(())
}

/// `unchanged`: a list of the contract read before and after the step, with defined names.
fn check_unchanged(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    w: super::model::Watch,
) -> Result<super::model::Watch, LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    let w_at = format!("{step_at}/unchanged");
    let listing = w.request();
    let concrete = TEMPLATE_PLACEHOLDER.replace_all(&listing.path, "x");
    if !cx
        .contract
        .route("GET", &concrete)
        .is_some_and(|r| r.list || r.response(200).is_some())
    {
        return Err(err(
            &format!("{w_at}/path"),
            LoadErrorKind::NoRoute {
                method: "GET".into(),
                path: listing.path.clone(),
            },
        ));
    }
    if let Some((part, text)) = unresolved_in_request(&listing) {
        return Err(err(
            &format!("{w_at}/{part}"),
            LoadErrorKind::NotATemplate { text },
        ));
    }
    if !w.ids.is_empty() && !w.ids.starts_with('/') {
        return Err(err(&format!("{w_at}/ids"), LoadErrorKind::WatchIds));
    }
    let mut used = BTreeSet::new();
    names_in_str(&listing.path, &mut used);
    for v in listing.query.values() {
        names_in_value(v, &mut used);
    }
    st.resolve(&used).map_err(|m| err(&w_at, m))?;
    Ok(w)
}

/// The read-back of a step: the read of the values to keep is pushed before the step (its saves
/// defined), the read of the effect returned, to follow the step.
fn read_back_around(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    rb: &ReadBack,
    request: &Request,
    expect: &Expect,
    repeated: bool,
) -> Result<Step, LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    let (before, after) = read_back_steps(
        rb,
        request,
        expect,
        repeated,
        st.steps.len(),
        &format!("{step_at}/read_back"),
        cx.contract,
        &st.defined,
        &mut st.fixtures,
        cx.lines,
        &err,
    )?;
    if let Some(b) = before {
        for (name, _) in &b.save {
            st.defined.insert(name.clone());
        }
        st.steps.push(b);
    }
    Ok(after)
}

/// The control of a must-reject step: the same request with one change, on the same route,
/// expected to be accepted (2xx unless it says), so the rejection is shown to be the change's.
fn control_step(
    cx: &CaseCx,
    st: &mut StepsSoFar,
    step_at: &str,
    c: &Control,
    request: &Request,
    expect: &Expect,
    repeated: bool,
) -> Result<Step, LoadError> {
    let err = |p: &str, k: LoadErrorKind| cx.err(p, k);
    let c_at = format!("{step_at}/control");
    if repeated {
        return Err(err(&c_at, LoadErrorKind::RepeatedControl));
    }
    if !expect.status.as_ref().is_some_and(must_reject) {
        return Err(err(&c_at, LoadErrorKind::ControlNotMustReject));
    }
    let controlled = c.apply(request);
    let route_of = |r: &Request| {
        let concrete = TEMPLATE_PLACEHOLDER.replace_all(&r.path, "x");
        cx.contract
            .route(&r.method, &concrete)
            .map(|r| r.template.clone())
    };
    if route_of(&controlled).is_none() || route_of(&controlled) != route_of(request) {
        return Err(err(
            &format!("{c_at}/path"),
            LoadErrorKind::ControlRoute {
                path: controlled.path.clone(),
            },
        ));
    }
    if let Some((part, text)) = unresolved_in_request(&controlled) {
        return Err(err(
            &format!("{c_at}/{part}"),
            LoadErrorKind::NotATemplate { text },
        ));
    }
    let mut used = BTreeSet::new();
    names_in_str(&controlled.path, &mut used);
    for v in controlled.query.values().chain(controlled.headers.values()) {
        names_in_value(v, &mut used);
    }
    if let Some(b) = &controlled.body {
        names_in_value(b, &mut used);
    }
    st.resolve(&used).map_err(|m| err(&c_at, m))?;
    let change = c.describe();
    Ok(Step {
        clauses: Vec::new(),
        request: Some(controlled),
        deliveries: None,
        secret: None,
        expect: Expect {
            status: Some(
                c.status
                    .clone()
                    .unwrap_or(StatusExpect::Class("2xx".into())),
            ),
            ..Expect::default()
        },
        save: Vec::new(),
        repeat: None,
        for_each: None,
        always: false,
        precondition: None,
        control_of: Some(ControlOf {
            step: st.steps.len(),
            change,
        }),
        unchanged: None,
        poll: false,
        read_back_of: None,
        line: cx.lines.line_of(&c_at),
    })
}

/// Whether `status` expects a refusal of the request as invalid (READINGS 6.9): every status it
/// allows is 400, 413, 415 or 422, or it is the class 4xx.
pub(crate) fn must_reject(status: &StatusExpect) -> bool {
    match status {
        StatusExpect::Code(c) => matches!(c, 400 | 413 | 415 | 422),
        StatusExpect::Class(c) => c == "4xx",
        StatusExpect::Any(list) => !list.is_empty() && list.iter().all(must_reject),
        StatusExpect::Not { .. } => false,
    }
}

/// The first `{{...}}` of a request that no rendering resolves, with the part that holds it
/// (path, query, headers, body, version).
pub(crate) fn unresolved_in_request(request: &Request) -> Option<(&'static str, String)> {
    if let Some(t) = unresolved_in_template(&request.path) {
        return Some(("path", t));
    }
    for (k, v) in &request.query {
        if let Some(t) = unresolved_in_template(k).or_else(|| unresolved_in_template_value(v)) {
            return Some(("query", t));
        }
    }
    for (k, v) in &request.headers {
        if let Some(t) = unresolved_in_template(k).or_else(|| unresolved_in_template_value(v)) {
            return Some(("headers", t));
        }
    }
    if let Some(t) = request.body.as_ref().and_then(unresolved_in_template_value) {
        return Some(("body", t));
    }
    if let Some(t) = request.raw_body.as_deref().and_then(unresolved_in_template) {
        return Some(("raw_body", t));
    }
    if let Some(t) = request.version.as_deref().and_then(unresolved_in_template) {
        return Some(("version", t));
    }
    None
}

/// A step as written, with the JSON Pointer of its place in the file.
type RawStep = (
    String,
    Option<Request>,
    Option<Expect>,
    serde_json::Map<String, Value>,
    StepExtras,
);

/// The repetition and cleanup options of a step (only multi-step cases have them).
#[derive(Default)]
struct StepExtras {
    clause: Option<Vec<String>>,
    repeat: Option<Repeat>,
    for_each: Option<ForEach>,
    precondition: Option<ForEach>,
    always: bool,
    deliveries: Option<super::model::DeliveriesExpect>,
    secret: Option<String>,
    control: Option<Control>,
    unchanged: Option<super::model::Watch>,
    read_back: Option<ReadBack>,
}

/// The steps of a read-back: the read of the values to keep before the step (none when `same` is
/// empty), and the read of the effect after it. `index` is where the step itself will stand.
#[allow(clippy::too_many_arguments)]
fn read_back_steps(
    rb: &ReadBack,
    request: &Request,
    expect: &Expect,
    repeated: bool,
    index: usize,
    at: &str,
    contract: &Contract,
    defined: &BTreeSet<String>,
    fixtures: &mut BTreeSet<String>,
    lines: &yaml::LineIndex,
    err: &dyn Fn(&str, LoadErrorKind) -> LoadError,
) -> Result<(Option<Step>, Step), LoadError> {
    if request.method == "GET" {
        return Err(err(at, LoadErrorKind::ReadBackOfGet));
    }
    if repeated {
        return Err(err(at, LoadErrorKind::RepeatedReadBack));
    }
    if expect.status.as_ref().is_some_and(must_reject) {
        return Err(err(at, LoadErrorKind::ReadBackOfMustReject));
    }
    let mut read = rb.request();
    read.auth = request.auth.clone();
    read.version = request.version.clone();
    let concrete = TEMPLATE_PLACEHOLDER.replace_all(&read.path, "x");
    if contract.route("GET", &concrete).is_none() {
        return Err(err(
            &format!("{at}/path"),
            LoadErrorKind::NoRoute {
                method: "GET".into(),
                path: read.path.clone(),
            },
        ));
    }
    if let Some((part, text)) = unresolved_in_request(&read) {
        return Err(err(
            &format!("{at}/{part}"),
            LoadErrorKind::NotATemplate { text },
        ));
    }
    if rb.json.is_empty() && rb.same.is_empty() {
        return Err(err(at, LoadErrorKind::ReadBackAssertsNothing));
    }
    let mut used = BTreeSet::new();
    names_in_str(&read.path, &mut used);
    for v in read.query.values() {
        names_in_value(v, &mut used);
    }
    for (pointer, m) in &rb.json {
        if !pointer.is_empty() && !pointer.starts_with('/') {
            return Err(err(
                &format!("{at}/json"),
                LoadErrorKind::NotAPointer {
                    pointer: pointer.clone(),
                },
            ));
        }
        names_in_value(m, &mut used);
        matcher::validate(m).map_err(|x| err(&format!("{at}/json"), x.into()))?;
    }
    resolve_names(&used, defined, fixtures).map_err(|m| err(at, m))?;
    let mut saves = Vec::new();
    let mut json = rb.json.clone();
    for (k, pointer) in rb.same.iter().enumerate() {
        if !pointer.starts_with('/') || json.contains_key(pointer) {
            return Err(err(
                &format!("{at}/same/{k}"),
                LoadErrorKind::SameAsserted {
                    pointer: pointer.clone(),
                },
            ));
        }
        let name = format!("read_back_{index}_{k}");
        json.insert(
            pointer.clone(),
            serde_json::json!({ "equals": format!("{{{{{name}}}}}") }),
        );
        saves.push((name, pointer.clone()));
    }
    let before = (!saves.is_empty()).then(|| Step {
        request: Some(read.clone()),
        expect: Expect {
            status: Some(StatusExpect::Code(200)),
            ..Expect::default()
        },
        save: saves,
        read_back_of: Some(index + 1),
        line: lines.line_of(at),
        ..Step::default()
    });
    let after = Step {
        request: Some(read),
        expect: Expect {
            status: Some(StatusExpect::Code(200)),
            json: json.into_iter().collect(),
            ..Expect::default()
        },
        poll: rb.poll,
        read_back_of: Some(index),
        line: lines.line_of(at),
        ..Step::default()
    };
    Ok((before, after))
}

/// A name a case defines (save, collect, for_each) must not shadow a fixture or builtin.
fn check_new_name(name: &str) -> Result<(), LoadErrorKind> {
    if KNOWN_FIXTURES.iter().any(|(f, _)| *f == name) || BUILTINS.contains(&name) {
        return Err(LoadErrorKind::ReservedName {
            name: name.to_string(),
        });
    }
    Ok(())
}

static TEMPLATE_PLACEHOLDER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\{\{[^}]*\}\}").expect("valid regex"));

/// Sorts the names a step uses into defined ones and fixtures; anything else is an error.
fn resolve_names(
    used: &BTreeSet<String>,
    defined: &BTreeSet<String>,
    fixtures: &mut BTreeSet<String>,
) -> Result<(), LoadErrorKind> {
    for name in used {
        if defined.contains(name) {
            continue;
        }
        if KNOWN_FIXTURES.iter().any(|(f, _)| f == name) {
            fixtures.insert(name.clone());
            continue;
        }
        return Err(LoadErrorKind::UndefinedName { name: name.clone() });
    }
    Ok(())
}

/// The strings of an expectation that may hold templates, for name collection.
struct ExpectNames<'a>(&'a Expect);

impl serde::Serialize for ExpectNames<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let e = self.0;
        let mut all: Vec<&Value> = e.json.values().chain(e.headers.values()).collect();
        if let Some(err) = &e.error {
            all.extend(err.message.iter());
        }
        let extra: Vec<Value> = e
            .error
            .iter()
            .flat_map(|x| {
                x.code
                    .iter()
                    .chain(x.title.iter())
                    .map(|s| Value::String(s.clone()))
            })
            .collect();
        all.extend(extra.iter());
        if let Some(p) = &e.page {
            all.extend(p.includes.iter());
            all.extend(p.excludes.iter());
            all.extend(p.every.values());
        }
        all.serialize(s)
    }
}

/// Checks what the case-file schema cannot: schema names and matchers. Errors carry a pointer
/// relative to the expectation.
fn check_expect(e: &Expect, contract: &Contract) -> Result<(), (String, LoadErrorKind)> {
    if let Some(name) = &e.schema {
        if !contract.has_schema(name) {
            return Err((
                "/schema".into(),
                LoadErrorKind::UnknownSchema { name: name.clone() },
            ));
        }
    }
    for (k, m) in &e.json {
        matcher::validate(m).map_err(|x| {
            (
                format!("/json/{}", k.replace('~', "~0").replace('/', "~1")),
                x.into(),
            )
        })?;
    }
    for (k, m) in &e.headers {
        matcher::validate(m).map_err(|x| (format!("/headers/{k}"), x.into()))?;
    }
    if let Some(m) = e.error.as_ref().and_then(|x| x.message.as_ref()) {
        matcher::validate(m).map_err(|x| ("/error/message".to_string(), x.into()))?;
    }
    if let Some(p) = &e.page {
        for m in p.every.values() {
            matcher::validate(m).map_err(|x| ("/page/every".to_string(), x.into()))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
