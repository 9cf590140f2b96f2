//! Cases generated from the route table rather than written in case files: the access-control
//! matrix (every operation with no key, a wrong key and the second key) and the versioning checks
//! (every header-versioned operation without `Service-Api-Version` and with another value).
//!
//! What each operation needs is data in `schemas/openapi.yaml` (`x-access`, described in its
//! header comment), so an endpoint joins the matrix by its route-table entry alone. The cases are
//! ordinary [`Case`] values: they run, filter, report and explain like the cases of YAML files.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

use super::model::{
    Case, ControlOf, ErrorExpect, Expect, OneOrMany, Request, Setup, StatusExpect, Step,
};
use super::template::BUILTINS;
use super::template::{names_in_str, names_in_value};
use conformance_contract::Api;
use conformance_contract::profile::KNOWN_FIXTURES;
use conformance_contract::yaml;
use conformance_contract::{Contract, OPENAPI_YAML};

const FILE: &str = "schemas/openapi.yaml";
/// The fixture holding the second API key (a user who is not a user of `phone_number_id`).
const SECOND_KEY: &str = "restricted_api_key";
/// A value of `Service-Api-Version` that is not the supported one.
const OTHER_VERSION: &str = "1999-12-31";
const METHODS: [&str; 5] = ["get", "post", "put", "patch", "delete"];

/// `x-access` of an operation.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Access {
    /// Path parameter -> fixture name, or a template (`"{{run}}-absent"`).
    #[serde(default)]
    path: Map<String, Value>,
    #[serde(default)]
    query: Map<String, Value>,
    #[serde(default)]
    body: Option<Value>,
    /// What the second key gets; no cell when absent.
    #[serde(default, rename = "second-key")]
    second_key: Option<SecondKey>,
    /// Setups (`src/cases/setups.yaml`) every cell runs first: the resources its path, query
    /// and body name (READINGS 6.6).
    #[serde(default)]
    setup: Vec<String>,
    /// The cells whose request may be accepted (the second key's, and the versioning cells,
    /// whose control is) hold the workspace state they change, as a case file's `exclusive`
    /// names it: what they change, other trials list.
    #[serde(default)]
    exclusive: crate::cases::model::Exclusive,
    /// How the versioning cells differ: their control is accepted, so it changes the resource.
    #[serde(default)]
    versioning: Option<Versioning>,
    /// Whether the operation gets a not-json cell where it takes a body (default yes): `false`
    /// where its control, the same request with the JSON body, may be refused by a conforming
    /// target for the state the other cells leave the resource in.
    #[serde(default = "yes", rename = "not-json")]
    not_json: bool,
}

fn yes() -> bool {
    true
}

/// `x-access.versioning`: the resource the versioning cells' accepted control may change, and
/// what restores it.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Versioning {
    /// Path parameters, as `x-access.path`, in place of the operation's.
    #[serde(default)]
    path: Map<String, Value>,
    /// Setups in place of the operation's.
    #[serde(default)]
    setup: Option<Vec<String>>,
    /// Requests sent after the control whatever came before (restoring a sandbox resource to
    /// the state the profile promises).
    #[serde(default)]
    after: Vec<Request>,
    /// The fixture whose instance the accepted control uses up (a retry sends a failed message
    /// again): the plan may make another trial's use of it the control (`plan::arrange`).
    #[serde(default)]
    uses: Option<String>,
    /// Setups in place of `setup` for a cell that gives its control up: it must find the
    /// instance, not its state, which the use reads.
    #[serde(default, rename = "spare-setup")]
    spare_setup: Vec<String>,
}

/// The answer the second key must get.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SecondKey {
    #[serde(default)]
    status: Option<StatusExpect>,
    #[serde(default)]
    title: Option<OneOrMany<String>>,
    #[serde(default)]
    code: Option<String>,
}

/// One credential of the matrix.
struct Cell {
    name: &'static str,
    auth: &'static str,
    clauses: &'static [&'static str],
    summary: &'static str,
}

const NO_KEY: Cell = Cell {
    name: "no-key",
    auth: "none",
    clauses: &["Authentication > 1", "Authentication > 3"],
    summary: "Without an Authorization header the answer is 401 Unauthorized.",
};
const WRONG_KEY: Cell = Cell {
    name: "wrong-key",
    auth: "invalid",
    clauses: &["Authentication > 3"],
    summary: "With a key the target cannot know the answer is 401 Unauthorized.",
};

/// The tag of the access cells whose body breaks the operation's rules on purpose (every field
/// of another type, or no JSON): sent without a valid key, they must get 401 all the same, since
/// the key is checked before the body (Authentication 3; READINGS 6.8 lets only routing come
/// first).
pub const BODY_AFTER_KEY: &str = "body-after-key";

const WRONG_KEY_V1: Cell = Cell {
    name: "wrong-key",
    auth: "invalid",
    clauses: &["Authentication > 3"],
    summary: "With a key the target cannot know the answer is 401 Unauthorized, with the v1 error body though the request also carries Service-Api-Version: v1 is chosen by its path.",
};

const NO_KEY_INVALID_BODY: Cell = Cell {
    name: "no-key-invalid-body",
    auth: "none",
    clauses: &["Authentication > 3"],
    summary: "Without an Authorization header the answer is 401 Unauthorized even when every field of the body has a type the operation does not allow: the key is checked before the body.",
};

const WRONG_KEY_NOT_JSON: Cell = Cell {
    name: "wrong-key-not-json",
    auth: "invalid",
    clauses: &["Authentication > 3"],
    summary: "With a key the target cannot know the answer is 401 Unauthorized even when the body is not JSON: the key is checked before the body is read.",
};

/// A route-table entry no cell can be generated from: its line in `schemas/openapi.yaml`, and
/// what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {kind}", FILE)]
pub struct GeneratedError {
    pub line: usize,
    pub kind: GeneratedErrorKind,
}

/// What is wrong with a route-table entry; `op` is its method and path template.
#[derive(Debug, thiserror::Error)]
pub enum GeneratedErrorKind {
    #[error("{0}")]
    Yaml(String),
    #[error("x-access of {op}: {source}")]
    Access {
        op: String,
        source: serde_json::Error,
    },
    #[error(
        "x-access of {op}: `{text}` in the {part} is not a template of a variable; it would be sent as it stands"
    )]
    NotATemplate {
        op: String,
        text: String,
        part: &'static str,
    },
    #[error("x-access of {op}: {source}")]
    Name { op: String, source: UnknownName },
    #[error("x-access of {op}: unknown setup `{name}` (see src/cases/setups.yaml)")]
    Setup { op: String, name: String },
    #[error(
        "x-access of {op}: versioning uses `{fixture}`, a fixture neither the request nor its setups name"
    )]
    UsesUnused { op: String, fixture: String },
}

/// A name in a generated request that is neither a builtin nor a known fixture.
#[derive(Debug, thiserror::Error)]
#[error("`{{{{{name}}}}}` is not a builtin or a known fixture (see docs/profile.md)")]
pub struct UnknownName {
    pub name: String,
}

/// Every generated case, in route-table order.
pub fn generate(contract: &Contract) -> Result<Vec<Case>, GeneratedError> {
    let err = |line: usize, kind: GeneratedErrorKind| GeneratedError { line, kind };
    let (doc, lines) =
        yaml::parse(OPENAPI_YAML).map_err(|e| err(e.line, GeneratedErrorKind::Yaml(e.message)))?;
    let setups = super::loader::setups::embedded(contract)
        .map_err(|e| err(0, GeneratedErrorKind::Yaml(e.to_string())))?;
    let mut out = Vec::new();
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return Ok(out);
    };
    for (template, item) in paths {
        let at = format!("/paths/{}", template.replace('~', "~0").replace('/', "~1"));
        for method in METHODS {
            let Some(op) = item.get(method) else { continue };
            let op_at = format!("{at}/{method}");
            let upper = method.to_uppercase();
            let Some(route) = contract
                .routes
                .iter()
                .find(|r| &r.template == template && r.method == upper)
            else {
                continue;
            };
            let access_line = lines.line_of(&format!("{op_at}/x-access"));
            let op_err = |kind: GeneratedErrorKind| err(access_line, kind);
            let name = format!("{upper} {template}");
            let access: Access = match op.get("x-access") {
                None => Access::default(),
                Some(v) => serde_json::from_value(v.clone()).map_err(|source| {
                    op_err(GeneratedErrorKind::Access {
                        op: name.clone(),
                        source,
                    })
                })?,
            };
            let operation = Operation {
                contract,
                route,
                template,
                method: &upper,
                name: &name,
                line: lines.line_of(&op_at),
                access: &access,
                setups: &setups,
            };
            out.extend(operation.cases().map_err(op_err)?);
        }
    }
    Ok(out)
}

/// One operation of the route table and what its `x-access` says.
struct Operation<'a> {
    contract: &'a Contract,
    route: &'a conformance_contract::Route,
    template: &'a str,
    method: &'a str,
    /// `METHOD /template`, as errors name it.
    name: &'a str,
    line: usize,
    access: &'a Access,
    setups: &'a super::loader::setups::Setups,
}

impl Operation<'_> {
    /// The cells of the operation: no key, wrong key, the second key, and on the
    /// header-versioned API no version and another version, each with its control.
    fn cases(&self) -> Result<Vec<Case>, GeneratedErrorKind> {
        let (contract, route, access) = (self.contract, self.route, self.access);
        let mut out = Vec::new();
        let slug = slug(self.method, self.template);
        let own = self.resolve(&access.setup)?;
        let request = base_request(
            self.method,
            self.template,
            &access.path,
            access,
            &route.params,
        );
        let base = self.base(&slug, request, own.clone(), Vec::new())?;
        let unauthorized = |cell: &Cell| {
            let code = route
                .area
                .as_deref()
                .filter(|_| route.api == Api::V1)
                .and_then(|a| contract.codes.row(a, 401))
                .map(|row| row.code.clone());
            let expect = Expect {
                status: Some(StatusExpect::Code(401)),
                error: Some(ErrorExpect {
                    code,
                    title: Some("Unauthorized".into()),
                    message: None,
                }),
                ..Expect::default()
            };
            base.case(
                "access",
                cell.name,
                cell.clauses,
                &["3.4"],
                cell.summary,
                Some(cell.auth),
                None,
                expect,
            )
        };
        // A request without a valid key changes nothing on a conforming target: these cells
        // never run alone.
        out.push(unauthorized(&NO_KEY));
        // v1 is chosen by its path, whatever headers come with it: the wrong key's 401 carries
        // the v1 error body though the request names a version of the other generation.
        let mut wrong = unauthorized(if route.api == Api::V1 {
            &WRONG_KEY_V1
        } else {
            &WRONG_KEY
        });
        if route.api == Api::V1 {
            if let Some(r) = wrong.steps[0].request.as_mut() {
                r.version = Some(conformance_contract::API_VERSION.to_string());
            }
        }
        out.push(wrong);
        // Credentials come before the body: a request without a valid key whose body breaks
        // the operation's rules, or is no JSON at all, is still refused 401 (READINGS 6.8 lets
        // only routing come first).
        if takes_body(route) {
            let mut invalid = unauthorized(&NO_KEY_INVALID_BODY);
            if let Some(r) = invalid.steps[0].request.as_mut() {
                r.body = Some(mistyped(route, r.body.as_ref()));
            }
            let mut cut = unauthorized(&WRONG_KEY_NOT_JSON);
            if let Some(r) = cut.steps[0].request.as_mut() {
                r.raw_body = Some("{\"".to_string());
                r.body = None;
            }
            for mut case in [invalid, cut] {
                case.tags.push(BODY_AFTER_KEY.to_string());
                out.push(case);
            }
        }
        if let Some(sk) = &access.second_key {
            let mut case = second_key_case(&base, sk);
            case.exclusive = access.exclusive.is_exclusive();
            case.needs = access.exclusive.holds();
            out.push(case);
        }
        if let Some(mut case) = not_json(&base, route).filter(|_| access.not_json) {
            case.exclusive = access.exclusive.is_exclusive();
            case.needs = access.exclusive.holds();
            out.push(case);
        }
        if route.api == Api::V1 {
            out.extend(no_version_needed(&base));
            return Ok(out);
        }
        let versioning = access.versioning.as_ref();
        let path = versioning
            .filter(|v| !v.path.is_empty())
            .map_or(&access.path, |v| &v.path);
        let setups = match versioning.and_then(|v| v.setup.as_ref()) {
            Some(names) => self.resolve(names)?,
            None => own,
        };
        let after = versioning.map(|v| v.after.clone()).unwrap_or_default();
        let request = base_request(self.method, self.template, path, access, &route.params);
        let vbase = self.base(&slug, request, setups, after)?;
        let expect = Expect {
            status: Some(StatusExpect::Class("4xx".into())),
            ..Expect::default()
        };
        for (cell, clauses, summary, version) in [
            (
                "no-version",
                &["Versioning > 1", "Authentication > 2"][..],
                "Without Service-Api-Version the request is not served: a 4xx with the error body of its generation.",
                "none",
            ),
            (
                "other-version",
                &["Versioning > 1"][..],
                "With a Service-Api-Version other than 2026-03-30 the request is not served: a 4xx with the error body of its generation.",
                OTHER_VERSION,
            ),
        ] {
            let case = vbase.case(
                "versioning",
                cell,
                clauses,
                &["8.1"],
                summary,
                None,
                Some(version),
                expect.clone(),
            );
            let mut case = with_control(case, &vbase.after);
            case.exclusive = access.exclusive.is_exclusive();
            case.needs = access.exclusive.holds();
            let spare_setups = self.resolve(versioning.map_or(&[][..], |v| &v.spare_setup))?;
            case.uses =
                versioning
                    .and_then(|v| v.uses.clone())
                    .map(|fixture| crate::cases::model::Uses {
                        fixture,
                        by_control: true,
                        control_in: None,
                        spare_setups: spare_setups.clone(),
                    });
            if let Some(u) = case
                .uses
                .as_ref()
                .filter(|u| !case.fixtures.contains(&u.fixture))
            {
                return Err(GeneratedErrorKind::UsesUnused {
                    op: self.name.to_string(),
                    fixture: u.fixture.clone(),
                });
            }
            out.push(case);
        }
        Ok(out)
    }

    /// The setups of `names`.
    fn resolve(&self, names: &[String]) -> Result<Vec<Arc<Setup>>, GeneratedErrorKind> {
        names
            .iter()
            .map(|n| {
                self.setups
                    .get(n)
                    .cloned()
                    .ok_or_else(|| GeneratedErrorKind::Setup {
                        op: self.name.to_string(),
                        name: n.clone(),
                    })
            })
            .collect()
    }

    /// What the cells of one request share: its names checked (templates of variables, known
    /// fixtures or names the setups save), the fixtures it and its setups need.
    fn base(
        &self,
        slug: &str,
        request: Request,
        setups: Vec<Arc<Setup>>,
        after: Vec<Request>,
    ) -> Result<Base, GeneratedErrorKind> {
        let defined: BTreeSet<String> = setups
            .iter()
            .flat_map(|s| s.defines.iter().cloned())
            .collect();
        let mut fixtures = BTreeSet::new();
        for r in std::iter::once(&request).chain(&after) {
            if let Some((part, text)) = super::loader::unresolved_in_request(r) {
                return Err(GeneratedErrorKind::NotATemplate {
                    op: self.name.to_string(),
                    text,
                    part,
                });
            }
            fixtures.extend(used_fixtures(r, &defined).map_err(|source| {
                GeneratedErrorKind::Name {
                    op: self.name.to_string(),
                    source,
                }
            })?);
        }
        for s in &setups {
            fixtures.extend(s.fixtures());
        }
        Ok(Base {
            api: self.route.api,
            slug: slug.to_string(),
            request,
            fixtures,
            line: self.line,
            setups,
            after,
        })
    }
}

/// A versioning cell with its control (READINGS 6.9): the same request with the run's version,
/// which must be accepted, so the 4xx was for the version and not for something else the target
/// wants; then the requests that restore what the control changed.
fn with_control(mut case: Case, after: &[Request]) -> Case {
    let mut step = control_of_first(&case, "Service-Api-Version 2026-03-30");
    if let Some(r) = step.request.as_mut() {
        r.version = None;
    }
    case.read_only &= step.request.as_ref().is_some_and(|r| r.method == "GET");
    case.steps.push(step);
    for r in after {
        case.read_only &= r.method == "GET";
        case.steps.push(Step {
            request: Some(r.clone()),
            expect: Expect {
                status: Some(StatusExpect::Class("2xx".into())),
                ..Expect::default()
            },
            always: true,
            line: case.line,
            ..Step::default()
        });
    }
    case
}

/// The control of a cell's first step (READINGS 6.9): the same step, which must be accepted,
/// once `change` takes the defect away.
fn control_of_first(case: &Case, change: &str) -> Step {
    let mut step = case.steps[0].clone();
    step.expect = Expect {
        status: Some(StatusExpect::Class("2xx".into())),
        ..Expect::default()
    };
    step.control_of = Some(ControlOf {
        step: 0,
        change: change.into(),
    });
    step
}

/// What every case of one request of an operation shares.
struct Base {
    api: Api,
    slug: String,
    request: Request,
    fixtures: BTreeSet<String>,
    line: usize,
    setups: Vec<Arc<Setup>>,
    /// Requests a versioning cell sends after its control.
    after: Vec<Request>,
}

impl Base {
    #[allow(clippy::too_many_arguments)]
    fn case(
        &self,
        area: &str,
        cell: &str,
        clauses: &[&str],
        readings: &[&str],
        summary: &str,
        auth: Option<&str>,
        version: Option<&str>,
        expect: Expect,
    ) -> Case {
        let mut request = self.request.clone();
        // A body naming the case's receiver URL (a webhook's `url`) opens its slot, as does a
        // setup that names it.
        let uses_receiver = self.setups.iter().any(|s| s.case.uses_receiver)
            || std::iter::once(&request).chain(&self.after).any(|r| {
                r.body
                    .as_ref()
                    .is_some_and(|b| b.to_string().contains("{{webhook_url}}"))
            });
        request.auth = auth.map(str::to_string);
        request.version = version.map(str::to_string);
        let mut fixtures = self.fixtures.clone();
        if let Some(a) = auth.filter(|a| !matches!(*a, "none" | "invalid")) {
            fixtures.insert(a.to_string());
        }
        let mut readings: Vec<String> = readings.iter().map(|r| r.to_string()).collect();
        if !self.setups.is_empty() {
            readings.push("6.6".into());
        }
        Case {
            name: format!("{}.{area}.{}.{cell}", self.api.as_str(), self.slug),
            api: self.api,
            area: area.to_string(),
            clauses: clauses.iter().map(|c| c.to_string()).collect(),
            readings,
            summary: Some(summary.to_string()),
            tags: vec!["generated".to_string()],
            exclusive: false,
            needs: Vec::new(),
            read_only: request.method == "GET" && self.setups.iter().all(|s| s.case.read_only),
            steps: vec![Step {
                clauses: Vec::new(),
                request: Some(request),
                deliveries: None,
                secret: None,
                expect,
                save: Vec::new(),
                repeat: None,
                for_each: None,
                precondition: None,
                always: false,
                control_of: None,
                unchanged: None,
                poll: false,
                read_back_of: None,
                line: self.line,
            }],
            fixtures,
            file: FILE.to_string(),
            line: self.line,
            property: None,
            receiver: Vec::new(),
            uses_receiver,
            setups: self.setups.clone(),
            uses: None,
        }
    }
}

/// The operation's request with a body that is not JSON: the body the other cells send, its
/// last character cut. Invalid input (READINGS 2.4): 400 where the endpoint lists 400, else a
/// 4xx, with the error body of its generation (the rules on every answer judge its shape, code
/// and title). Its control (READINGS 6.9) is the same request with the body as JSON, which must
/// be accepted: the refusal was for the body. The control changes the resource, so the cell holds
/// what the operation's `x-access.exclusive` names, as the second key's cell does.
///
/// Only where the operation takes a body by the contract: one whose body `schemas/openapi.yaml`
/// gives (from the contract's fields), or an update (PUT, PATCH), whose body is the change. A
/// target may leave the body of another operation unread (`unlink-conversation`'s body is not
/// shown), and then a body that is not JSON is no input of it.
fn not_json(base: &Base, route: &conformance_contract::Route) -> Option<Case> {
    if !takes_body(route) {
        return None;
    }
    // What its control creates is its own: the values the other cells tag with the run id get
    // the cell's tag too (a target may refuse a second contact of one externalId with 409).
    let mut json = base.request.body.clone()?;
    own_tags(&mut json);
    let body = json.to_string();
    let cut = body.char_indices().last().map(|(i, _)| &body[..i])?;
    let expect = Expect {
        status: Some(super::properties::reject_status(route)),
        ..Expect::default()
    };
    let mut case = base.case(
        "malformed",
        "not-json",
        &[route.clause.as_str()],
        &["2.4"],
        "A body that is not JSON is invalid input: 400 where the endpoint lists 400, else a 4xx, with the error body of its generation.",
        None,
        None,
        expect,
    );
    if let Some(r) = case.steps[0].request.as_mut() {
        r.body = Some(json);
    }
    let control = control_of_first(&case, "the body as JSON");
    if let Some(r) = case.steps[0].request.as_mut() {
        r.body = None;
        r.raw_body = Some(cut.to_string());
    }
    case.read_only = false;
    case.steps.push(control);
    Some(case)
}

/// A body whose every field has a type its schema does not allow: each field the contract gives
/// the body and each the operation's other cells send, as `true`, or as text where a boolean is
/// stated.
fn mistyped(route: &conformance_contract::Route, sent: Option<&Value>) -> Value {
    let schema = route.request_schema.as_ref();
    let mut names: Vec<String> = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    for k in sent
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|m| m.keys())
    {
        if !names.contains(k) {
            names.push(k.clone());
        }
    }
    let body: Map<String, Value> = names
        .into_iter()
        .map(|name| {
            let boolean = schema
                .and_then(|s| s.pointer(&format!("/properties/{name}/type")))
                .is_some_and(|t| t == "boolean");
            let value = if boolean {
                Value::String("not a boolean".into())
            } else {
                Value::Bool(true)
            };
            (name, value)
        })
        .collect();
    Value::Object(body)
}

/// Whether the operation takes a body by the contract: one whose body `schemas/openapi.yaml`
/// gives, or an update (PUT, PATCH), whose body is the change.
fn takes_body(route: &conformance_contract::Route) -> bool {
    route.request_schema.is_some() || matches!(route.method.as_str(), "PUT" | "PATCH")
}

/// The v1 API is selected by its `/v1` path prefix, the header-versioned API by the
/// `Service-Api-Version` header (What the service does > API generations): a v1 read is served
/// without that header, as every v1 request of the run is sent. The cell's control is the same
/// request with the header, which must be accepted, so a refusal without it is one for the
/// missing header (READINGS 6.9). Reads only: the cell changes nothing.
fn no_version_needed(base: &Base) -> Option<Case> {
    if base.request.method != "GET" {
        return None;
    }
    let mut case = base.case(
        "versioning",
        "no-version-header",
        &["What the service does > API generations"],
        &[],
        "A v1 request needs no Service-Api-Version: without it, it is served as it is with it.",
        None,
        None,
        Expect {
            status: Some(StatusExpect::Class("2xx".into())),
            ..Expect::default()
        },
    );
    let mut control = control_of_first(&case, "Service-Api-Version 2026-03-30");
    if let Some(r) = control.request.as_mut() {
        r.version = Some(conformance_contract::API_VERSION.to_string());
    }
    case.steps.push(control);
    Some(case)
}

/// Every string of `v` that starts with the run id's template gets `-not-json` after it.
fn own_tags(v: &mut Value) {
    match v {
        Value::String(s) if s.starts_with("{{run}}") => s.push_str("-not-json"),
        Value::Array(items) => items.iter_mut().for_each(own_tags),
        Value::Object(m) => m.values_mut().for_each(own_tags),
        _ => {}
    }
}

fn second_key_case(base: &Base, sk: &SecondKey) -> Case {
    let mut expect = Expect {
        status: Some(sk.status.clone().unwrap_or(StatusExpect::Not {
            not: Box::new(StatusExpect::Code(401)),
        })),
        ..Expect::default()
    };
    let mut error = ErrorExpect {
        code: sk.code.clone(),
        ..ErrorExpect::default()
    };
    match sk.title.as_ref() {
        Some(OneOrMany::One(t)) => error.title = Some(t.clone()),
        Some(OneOrMany::Many(ts)) => {
            expect.json.insert(
                "/title".into(),
                serde_json::json!({ "oneOf": ts.iter().map(|t| Value::String(t.clone())).collect::<Vec<_>>() }),
            );
        }
        None => {}
    }
    if error.code.is_some() || error.title.is_some() {
        expect.error = Some(error);
    }
    let summary = if sk.status.is_some() {
        "The second key, of a user without access to the fixture's resource, gets the stated 403."
    } else {
        "The second key is valid: whatever its user may see, the answer is not 401."
    };
    base.case(
        "access",
        "second-key",
        &["Authentication > 3"],
        &["3.4"],
        summary,
        Some(SECOND_KEY),
        None,
        expect,
    )
}

/// The request of an operation: path parameters from fixtures or templates, query and body.
///
/// A path parameter the access table leaves open is the run id, except where its values form a
/// closed set (an `enum`, such as the legacy webhook kinds): then it is the set's first member,
/// since a target may route before it authenticates (READINGS 6.6, 6.8).
fn base_request(
    method: &str,
    template: &str,
    path_values: &Map<String, Value>,
    access: &Access,
    params: &[conformance_contract::Param],
) -> Request {
    let closed = |name: &str| {
        params
            .iter()
            .find(|p| p.name == name && matches!(p.location, conformance_contract::ParamIn::Path))
            .and_then(|p| p.schema.get("enum"))
            .and_then(Value::as_array)
            .and_then(|e| e.first())
            .and_then(|v| match v {
                Value::String(s) => Some(s.clone()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            })
    };
    let path = template
        .split('/')
        .map(
            |seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(name) => match path_values.get(name) {
                    Some(Value::String(v)) if v.contains("{{") => v.to_string(),
                    // A name (`call_id`) is a fixture; anything else (`987654321987654321`)
                    // is the value itself.
                    Some(Value::String(v)) if is_name(v) => format!("{{{{{v}}}}}"),
                    Some(Value::String(v)) => v.clone(),
                    Some(Value::Number(n)) => n.to_string(),
                    _ => closed(name).unwrap_or_else(|| "{{run}}".to_string()),
                },
                None => seg.to_string(),
            },
        )
        .collect::<Vec<_>>()
        .join("/");
    // READINGS 6.3: `maxResults` on every list whose default page size is not stated (only the
    // v1 contacts list states one).
    let mut query = access.query.clone();
    let pages = params.iter().any(|p| {
        p.name == "maxResults" && matches!(p.location, conformance_contract::ParamIn::Query)
    });
    if pages && template != "/v1/contacts" && !query.contains_key("maxResults") {
        query.insert("maxResults".into(), Value::from(10));
    }
    Request {
        method: method.to_string(),
        path,
        query,
        headers: Map::new(),
        body: access.body.clone(),
        raw_body: None,
        auth: None,
        version: None,
    }
}

/// Whether `text` can name a fixture (the names templates accept).
fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The fixtures a request names; a name that is neither a builtin, a name `defined` (by the
/// cell's setups) nor a known fixture is an error.
fn used_fixtures(
    request: &Request,
    defined: &BTreeSet<String>,
) -> Result<BTreeSet<String>, UnknownName> {
    let mut used = BTreeSet::new();
    names_in_str(&request.path, &mut used);
    for (k, v) in &request.query {
        names_in_str(k, &mut used);
        names_in_value(v, &mut used);
    }
    if let Some(b) = &request.body {
        names_in_value(b, &mut used);
    }
    if let Some(b) = &request.raw_body {
        names_in_str(b, &mut used);
    }
    let mut fixtures = BTreeSet::new();
    for name in used {
        if BUILTINS.contains(&name.as_str()) || defined.contains(&name) {
            continue;
        }
        if !KNOWN_FIXTURES.iter().any(|(f, _)| *f == name) {
            return Err(UnknownName { name });
        }
        fixtures.insert(name);
    }
    Ok(fixtures)
}

/// `GET /v1/calls/{callId}` -> `GET-calls-callId` (the generation is the trial's first part).
fn slug(method: &str, template: &str) -> String {
    let parts: Vec<String> = template
        .trim_start_matches('/')
        .split('/')
        .enumerate()
        .filter(|(i, s)| !(*i == 0 && *s == "v1"))
        .map(|(_, s)| s.trim_start_matches('{').trim_end_matches('}').to_string())
        .collect();
    format!("{method}-{}", parts.join("-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_set_path_parameters_are_sent_with_a_member() {
        // READINGS 6.6, 6.8: never the run id where the values form a closed set.
        let contract = Contract::embedded().expect("contract");
        let kinds = ["messages", "calls", "call-summaries", "call-transcripts"];
        let mut seen = 0;
        for case in generate(&contract).expect("generated") {
            for step in &case.steps {
                let r = step.request.as_ref().expect("a request");
                if let Some(kind) = r.path.strip_prefix("/v1/webhooks/") {
                    if r.method == "POST" {
                        assert!(kinds.contains(&kind), "{}: {}", case.name, r.path);
                        seen += 1;
                    }
                }
            }
        }
        assert!(
            seen >= 2,
            "the no-key and wrong-key cells of the legacy webhooks"
        );
    }

    #[test]
    fn no_generated_request_holds_an_unresolved_template() {
        let contract = Contract::embedded().expect("contract");
        for case in generate(&contract).expect("generated") {
            for step in &case.steps {
                let r = step.request.as_ref().expect("a request");
                assert_eq!(
                    super::super::loader::unresolved_in_request(r),
                    None,
                    "{}",
                    case.name
                );
                assert!(!r.path.contains("987654321987654321}}"), "{}", case.name);
            }
        }
    }

    #[test]
    fn slugs_drop_the_generation_and_braces() {
        assert_eq!(slug("GET", "/v1/calls/{callId}"), "GET-calls-callId");
        assert_eq!(slug("GET", "/organization"), "GET-organization");
    }

    #[test]
    fn every_operation_gets_both_unauthorized_cells_and_latest_ones_versioning() {
        let contract = Contract::embedded().expect("contract");
        let cases = generate(&contract).expect("generated");
        for route in &contract.routes {
            let slug = slug(&route.method, &route.template);
            let prefix = format!("{}.access.{slug}.", route.api.as_str());
            for cell in ["no-key", "wrong-key"] {
                assert!(
                    cases.iter().any(|c| c.name == format!("{prefix}{cell}")),
                    "{prefix}{cell}"
                );
            }
            if route.api == Api::Latest {
                let versioned = cases
                    .iter()
                    .filter(|c| c.name.starts_with(&format!("latest.versioning.{slug}.")))
                    .count();
                assert_eq!(versioned, 2, "{slug}");
            }
        }
        // On v1, one versioning cell per read: served without the version header.
        for route in contract.routes.iter().filter(|r| r.api == Api::V1) {
            let slug = slug(&route.method, &route.template);
            let cells: Vec<&str> = cases
                .iter()
                .filter(|c| c.name.starts_with(&format!("v1.versioning.{slug}.")))
                .map(|c| c.name.as_str())
                .collect();
            let want: Vec<String> = (route.method == "GET")
                .then(|| format!("v1.versioning.{slug}.no-version-header"))
                .into_iter()
                .collect();
            assert_eq!(cells, want, "{slug}");
        }
        assert!(
            cases
                .iter()
                .filter(|c| c.api == Api::V1)
                .all(|c| c.area == "access" || c.area == "malformed" || c.area == "versioning"),
            "v1 cells: access, malformed, and the reads' versioning"
        );
    }

    #[test]
    fn path_parameters_come_from_fixtures_templates_or_the_run() {
        let access: Access = serde_json::from_value(serde_json::json!({
            "path": { "a": "call_id", "b": "{{run}}-absent", "d": "{{shared_task}}" }
        }))
        .expect("access");
        let r = base_request("GET", "/x/{a}/{b}/{c}/{d}", &access.path, &access, &[]);
        assert_eq!(
            r.path,
            "/x/{{call_id}}/{{run}}-absent/{{run}}/{{shared_task}}"
        );
        // A name a setup saves is no fixture; any other unknown name is an error.
        let saved: BTreeSet<String> = ["shared_task".to_string()].into();
        assert_eq!(
            used_fixtures(&r, &saved)
                .expect("known")
                .into_iter()
                .collect::<Vec<_>>(),
            ["call_id"]
        );
        assert!(used_fixtures(&r, &BTreeSet::new()).is_err());
        // A value that cannot name a fixture is sent as it is.
        let access: Access = serde_json::from_value(
            serde_json::json!({ "path": { "webhookId": "987654321987654321" } }),
        )
        .expect("access");
        let literal = base_request("GET", "/webhooks/{webhookId}", &access.path, &access, &[]);
        assert_eq!(literal.path, "/webhooks/987654321987654321");
        let access: Access =
            serde_json::from_value(serde_json::json!({ "path": { "a": "no_such" } }))
                .expect("access");
        let bad = base_request("GET", "/x/{a}", &access.path, &access, &[]);
        assert!(used_fixtures(&bad, &BTreeSet::new()).is_err());
    }
}
