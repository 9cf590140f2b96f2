//! Variant `contract-strict` (READINGS 4.4, 6.3, 6.6): the reference refuses every request that
//! breaks a constraint the route table states, read from `schemas/openapi.yaml` and compiled once
//! per instance, so the strictness is the contract's and not a list someone remembered:
//!
//! - path parameters against their schemas (the stated id prefixes, webhook ids all digits);
//! - query parameters and JSON bodies against their types, ranges, lengths, patterns, enums,
//!   formats and item counts, and a link (`x-link`) against URI syntax (READINGS 6.10);
//! - `maxResults` inside the list's stated range, or where none is stated inside the narrowest
//!   range the table states for any list (READINGS 4.4);
//! - the purpose fields of READINGS 6.3 (`x-purpose`, and `maxResults` on every list whose
//!   default page size is not stated);
//! - query parameters and body fields the table does not name (every object of a body is closed),
//!   except the names the profile gives: renamed request fields (READINGS 6.1) and the filters of
//!   `x-profile-params`.
//!
//! Variant `unknown-fields-400` is the last point alone, from the same table.
//!
//! Where a rule names the answer of a breach (`x-error-row`: Invalid Custom Field Item, Too Many
//! Participants), the breach takes that row's code and title. A breach of a clause that a fault
//! switched on breaks is left to the handler, so the fault still shows with the variant on.

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use conformance_contract::profile::Profile;
use conformance_contract::{Api, Contract, ParamIn, Route, V1Codes, yaml};

/// The route table the reference serves (the contract's).
pub(crate) fn route_table() -> Option<&'static Contract> {
    static CONTRACT: OnceLock<Option<std::sync::Arc<Contract>>> = OnceLock::new();
    CONTRACT.get_or_init(|| Contract::shared().ok()).as_deref()
}

/// The route table as a document, for the extensions `Route` does not carry (`x-purpose`,
/// `x-profile-params`).
fn document() -> Option<&'static Value> {
    static DOC: OnceLock<Option<Value>> = OnceLock::new();
    DOC.get_or_init(|| {
        yaml::parse(conformance_contract::OPENAPI_YAML)
            .ok()
            .map(|(doc, _)| doc)
    })
    .as_ref()
}

/// What a request is checked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// Only names the table does not know (variant `unknown-fields-400`).
    Names,
    /// Every stated constraint (variant `contract-strict`).
    All,
}

/// One refused part of a request: where, what it breaks, and how the answer names it.
#[derive(Debug, Clone)]
pub(crate) struct Breach {
    /// `query parameter maxResults`, `body field /title`, `path parameter callId`.
    pub place: String,
    /// The constraint broken, in words.
    pub problem: String,
    /// The `path` of the error body's `errors` item.
    pub item_path: String,
    /// The value refused (bounded).
    pub value: Value,
    /// The `schema` of the `errors` item: the type and, for a pattern, the pattern.
    pub schema: Value,
    /// The code and title of the area's row that names this condition (`x-error-row`).
    pub row: Option<(String, String)>,
    /// A path value outside a closed set: no endpoint (404) rather than invalid input.
    pub no_endpoint: bool,
}

impl Breach {
    /// The message of the answer: the place and the constraint.
    pub fn message(&self) -> String {
        format!("{}: {}", self.place, self.problem)
    }

    fn simple(place: String, problem: String, item_path: String, value: Value) -> Breach {
        Breach {
            place,
            problem,
            item_path,
            value,
            schema: json!({"type": "string"}),
            row: None,
            no_endpoint: false,
        }
    }
}

/// A schema with its compiled validator and the clause that states it.
struct Compiled {
    schema: Value,
    validator: Option<jsonschema::Validator>,
    clause: Option<String>,
}

/// A parameter with its compiled schema.
struct Param {
    name: String,
    compiled: Compiled,
}

/// The checks of one operation.
struct Checks {
    method: String,
    template: String,
    api: Api,
    clause: String,
    /// The area's 400 row (code, title), for `x-error-row`.
    row: Option<(String, String)>,
    path: Vec<Param>,
    query: Vec<Param>,
    /// Parameters the profile names (`x-profile-params`).
    named_by_profile: Vec<Param>,
    /// The request body schema, closed and renamed.
    body: Option<Compiled>,
    purpose_query: Vec<String>,
    /// Groups of body pointers, one of each to be sent.
    purpose_body: Vec<Vec<String>>,
    /// `maxResults` is required: the list states no default page size.
    page_required: bool,
}

/// The checks of every operation of the route table, for one instance (its profile's names).
pub(crate) struct Table {
    checks: HashMap<(String, String), Checks>,
    /// Schemas that did not compile (none in the shipped table: a unit test holds it).
    #[cfg_attr(not(test), allow(dead_code))]
    problems: Vec<String>,
}

fn compile(schema: &Value, at: &str, problems: &mut Vec<String>) -> Option<jsonschema::Validator> {
    let mut root = schema.clone();
    links_as_uris(&mut root);
    if let Value::Object(m) = &mut root {
        m.insert(
            "$schema".into(),
            json!("https://json-schema.org/draft/2020-12/schema"),
        );
    }
    match jsonschema::options()
        .should_validate_formats(true)
        .build(&root)
    {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(format!("{at}: {e}"));
            None
        }
    }
}

/// A link (`x-link`, READINGS 6.10) holds a URI: a target may refuse what is none, and this one
/// does, so that a request the suite must have accepted never carries one.
fn links_as_uris(schema: &mut Value) {
    match schema {
        Value::Object(m) => {
            if m.get("x-link") == Some(&Value::Bool(true)) {
                m.insert("format".into(), json!("uri"));
            }
            m.values_mut().for_each(links_as_uris);
        }
        Value::Array(items) => items.iter_mut().for_each(links_as_uris),
        _ => {}
    }
}

/// The narrowest `maxResults` range any list states (READINGS 4.4): (minimum, maximum).
fn narrowest_page(contract: &Contract) -> Option<(u64, u64)> {
    contract
        .routes
        .iter()
        .filter_map(|r| r.query_param("maxResults"))
        .filter_map(|p| {
            let min = p.schema.get("minimum").and_then(Value::as_u64)?;
            let max = p.schema.get("maximum").and_then(Value::as_u64)?;
            Some((min, max))
        })
        .min_by_key(|(_, max)| *max)
}

/// Closes every object schema that lists its `properties` (unless it says otherwise or composes
/// others), so a name the table does not give is a breach.
fn close_objects(schema: &mut Value) {
    match schema {
        Value::Object(m) => {
            let composed = ["allOf", "anyOf", "oneOf"]
                .iter()
                .any(|k| m.contains_key(*k));
            if m.contains_key("properties") && !m.contains_key("additionalProperties") && !composed
            {
                m.insert("additionalProperties".into(), Value::Bool(false));
            }
            for (k, v) in m.iter_mut() {
                if !k.starts_with("x-") {
                    close_objects(v);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(close_objects),
        _ => {}
    }
}

/// The body schema under the target's names of renamed fields (READINGS 6.1).
fn rename_fields(schema: &mut Value, renamed: &[(&str, &str)]) {
    for (from, to) in renamed {
        if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            if let Some(s) = props.remove(*from) {
                props.insert((*to).to_string(), s);
            }
        }
        if let Some(required) = schema.get_mut("required").and_then(Value::as_array_mut) {
            for r in required.iter_mut() {
                if r.as_str() == Some(*from) {
                    *r = json!(to);
                }
            }
        }
    }
}

fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// `x-purpose` of an operation: (query names, body groups), renamed fields followed.
fn purpose(op: Option<&Value>, renamed: &[(&str, &str)]) -> (Vec<String>, Vec<Vec<String>>) {
    let Some(p) = op.and_then(|o| o.get("x-purpose")) else {
        return (Vec::new(), Vec::new());
    };
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect()
    };
    let rename = |pointer: &str| -> String {
        renamed
            .iter()
            .find(|(from, _)| pointer == format!("/{from}"))
            .map(|(_, to)| format!("/{to}"))
            .unwrap_or_else(|| pointer.to_string())
    };
    let query = p.get("query").map(strings).unwrap_or_default();
    let body = p
        .get("body")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|g| match g {
            Value::Array(_) => strings(g).iter().map(|s| rename(s)).collect(),
            Value::String(s) => vec![rename(s)],
            _ => Vec::new(),
        })
        .filter(|g: &Vec<String>| !g.is_empty())
        .collect();
    (query, body)
}

impl Table {
    /// Compiles the checks of every route for an instance whose profile is `profile`.
    pub fn build(contract: &Contract, profile: &Profile) -> Table {
        let mut problems = Vec::new();
        let page = narrowest_page(contract);
        let mut checks = HashMap::new();
        for route in &contract.routes {
            let c = Self::checks_of(route, &contract.codes, profile, page, &mut problems);
            checks.insert((route.method.clone(), route.template.clone()), c);
        }
        Table { checks, problems }
    }

    fn checks_of(
        route: &Route,
        codes: &V1Codes,
        profile: &Profile,
        page: Option<(u64, u64)>,
        problems: &mut Vec<String>,
    ) -> Checks {
        let op = document().and_then(|d| {
            d.pointer(&format!(
                "/paths/{}/{}",
                escape(&route.template),
                route.method.to_lowercase()
            ))
        });
        let at = format!("{} {}", route.method, route.template);
        let mut path = Vec::new();
        let mut query = Vec::new();
        let mut page_required = false;
        for p in &route.params {
            let mut schema = p.schema.clone();
            if p.location == ParamIn::Query && p.name == "maxResults" {
                // READINGS 4.4: no stated range is the narrowest stated one.
                if let (Some((min, max)), Value::Object(m)) = (page, &mut schema) {
                    if !m.contains_key("maximum") {
                        m.insert("minimum".into(), json!(min));
                        m.insert("maximum".into(), json!(max));
                        m.insert("x-narrowest".into(), json!(true));
                    }
                }
                page_required = p.schema.get("default").is_none();
            }
            let param = Param {
                name: p.name.clone(),
                compiled: Compiled {
                    validator: compile(&schema, &format!("{at} {}", p.name), problems),
                    schema,
                    clause: p.clause.clone(),
                },
            };
            match p.location {
                ParamIn::Path => path.push(param),
                ParamIn::Query => query.push(param),
                ParamIn::Header => {}
            }
        }
        let named_by_profile = op
            .and_then(|o| o.get("x-profile-params"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| {
                let fixture = p.get("fixture").and_then(Value::as_str)?;
                let name = profile.fixtures.get(fixture).and_then(Value::as_str)?;
                let schema = p.get("schema").cloned().unwrap_or(Value::Bool(true));
                Some(Param {
                    name: name.to_string(),
                    compiled: Compiled {
                        validator: compile(&schema, &format!("{at} {name}"), problems),
                        schema,
                        clause: p
                            .get("x-clause")
                            .and_then(Value::as_str)
                            .map(str::to_string),
                    },
                })
            })
            .collect();
        let renamed = profile.renamed_fields(&route.method, &route.template);
        let body = route.request_schema.as_ref().map(|s| {
            let mut schema = s.clone();
            rename_fields(&mut schema, &renamed);
            close_objects(&mut schema);
            Compiled {
                validator: compile(&schema, &format!("{at} body"), problems),
                schema,
                clause: None,
            }
        });
        let (purpose_query, purpose_body) = purpose(op, &renamed);
        let row = route
            .area
            .as_deref()
            .and_then(|a| codes.row(a, 400))
            .map(|r| (r.code.clone(), r.title.clone()));
        Checks {
            method: route.method.clone(),
            template: route.template.clone(),
            api: route.api,
            clause: route.clause.clone(),
            row,
            path,
            query,
            named_by_profile,
            body,
            purpose_query,
            purpose_body,
            page_required,
        }
    }

    /// Schemas of the table that did not compile.
    #[cfg(test)]
    pub fn problems(&self) -> &[String] {
        &self.problems
    }

    fn of(&self, route: &Route) -> Option<&Checks> {
        self.checks
            .get(&(route.method.clone(), route.template.clone()))
    }

    /// The first path parameter of `path` (a concrete path of `route`) that breaks its schema.
    /// `faulted`: whether a fault switched on breaks a clause (its constraints are the handler's).
    pub(crate) fn path_breach(
        &self,
        route: &Route,
        path: &str,
        faulted: &dyn Fn(&str) -> bool,
    ) -> Option<Breach> {
        let checks = self.of(route)?;
        let template: Vec<&str> = route.template.trim_start_matches('/').split('/').collect();
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        for (seg, raw) in template.iter().zip(&parts) {
            let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
                continue;
            };
            let Some(param) = checks.path.iter().find(|p| p.name == name) else {
                continue;
            };
            let value = percent_encoding::percent_decode_str(raw)
                .decode_utf8_lossy()
                .into_owned();
            let place = format!("path parameter {name}");
            let found = checks.breach_of(param, &json!(value), &place, faulted);
            if let Some(mut b) = found {
                b.no_endpoint = param.compiled.schema.get("enum").is_some();
                return Some(b);
            }
        }
        None
    }

    /// The first part of a request to `route` that breaks what `scope` checks: its query
    /// (decoded pairs) and its JSON body, if any.
    pub(crate) fn request_breach(
        &self,
        route: &Route,
        query: &[(String, String)],
        body: Option<&Value>,
        scope: Scope,
        faulted: &dyn Fn(&str) -> bool,
    ) -> Option<Breach> {
        let checks = self.of(route)?;
        let route_faulted = faulted(&checks.clause);
        if let Some(b) = checks.unknown_query(query) {
            return (!route_faulted).then_some(b);
        }
        if scope == Scope::All {
            if let Some(b) = checks.query_values(query, faulted) {
                return Some(b);
            }
            if !route_faulted {
                if let Some(b) = checks.query_purpose(query) {
                    return Some(b);
                }
            }
        }
        let empty = Value::Object(Map::new());
        let sent = body.filter(|b| b.is_object()).unwrap_or(&empty);
        if let Some(b) = checks.body_breach(sent, scope, faulted) {
            return Some(b);
        }
        if scope == Scope::All && !route_faulted {
            return checks.body_purpose(sent);
        }
        None
    }
}

/// The value a query parameter's text stands for under its schema's type.
fn typed(schema: &Value, raw: &str) -> Value {
    match schema.get("type").and_then(Value::as_str) {
        Some("integer") | Some("number") => raw
            .parse::<i64>()
            .map(Value::from)
            .ok()
            .or_else(|| {
                raw.parse::<f64>()
                    .ok()
                    .and_then(serde_json::Number::from_f64)
                    .map(Value::Number)
            })
            .unwrap_or_else(|| json!(raw)),
        Some("boolean") => match raw {
            "true" => json!(true),
            "false" => json!(false),
            _ => json!(raw),
        },
        _ => json!(raw),
    }
}

/// A value shown in an answer: long ones cut.
fn bounded(v: &Value) -> Value {
    let text = v.to_string();
    if text.len() <= 200 {
        v.clone()
    } else {
        json!(format!("{}…", text.chars().take(200).collect::<String>()))
    }
}

/// What a breach's schema path says: the clauses on the way, the `x-error-row` nearest the
/// keyword, and the schema holding the keyword.
struct Walked<'a> {
    clauses: Vec<&'a str>,
    row_keywords: Option<&'a Value>,
    holder: &'a Value,
}

fn walk<'a>(schema: &'a Value, pointer: &str) -> Walked<'a> {
    let mut node = schema;
    let mut out = Walked {
        clauses: Vec::new(),
        row_keywords: None,
        holder: schema,
    };
    let visit = |node: &'a Value, out: &mut Walked<'a>| {
        if let Some(c) = node.get("x-clause").and_then(Value::as_str) {
            out.clauses.push(c);
        }
        let also = node.get("x-also-clauses").and_then(Value::as_array);
        out.clauses
            .extend(also.into_iter().flatten().filter_map(Value::as_str));
        if let Some(r) = node.get("x-error-row") {
            out.row_keywords = Some(r);
        }
        if node.is_object() {
            out.holder = node;
        }
    };
    visit(node, &mut out);
    for token in pointer.split('/').skip(1) {
        let token = token.replace("~1", "/").replace("~0", "~");
        let next = match node {
            Value::Object(m) => m.get(&token),
            Value::Array(a) => token.parse::<usize>().ok().and_then(|i| a.get(i)),
            _ => None,
        };
        let Some(next) = next else { break };
        node = next;
        if node.is_object() {
            visit(node, &mut out);
        }
    }
    out
}

fn type_of(schema: &Value) -> &str {
    match schema.get("type") {
        Some(Value::String(t)) => t,
        Some(Value::Array(ts)) => ts.iter().find_map(Value::as_str).unwrap_or("string"),
        _ if schema.get("properties").is_some() => "object",
        _ => "string",
    }
}

impl Checks {
    fn op(&self) -> String {
        format!("{} {}", self.method, self.template)
    }

    /// The first error of `instance` against a compiled schema that no fault leaves to the
    /// handler, as a breach at `place`.
    fn first_error(
        &self,
        compiled: &Compiled,
        instance: &Value,
        place: &dyn Fn(&str) -> (String, String),
        keep: &dyn Fn(&str) -> bool,
        faulted: &dyn Fn(&str) -> bool,
    ) -> Option<Breach> {
        let validator = compiled.validator.as_ref()?;
        let schema = &compiled.schema;
        let outer = compiled.clause.as_deref();
        for e in validator.iter_errors(instance) {
            let keyword = e.kind().keyword().to_string();
            if !keep(&keyword) {
                continue;
            }
            let walked = walk(schema, e.schema_path().as_str());
            let skipped = walked
                .clauses
                .iter()
                .copied()
                .chain(outer)
                .chain(std::iter::once(self.clause.as_str()))
                .any(faulted);
            if skipped {
                continue;
            }
            let row = walked
                .row_keywords
                .filter(|r| {
                    r.as_bool() == Some(true)
                        || r.as_array()
                            .is_some_and(|ks| ks.iter().any(|k| k.as_str() == Some(&keyword)))
                })
                .and(self.row.clone());
            let mut problem = e.to_string();
            if problem.len() > 300 {
                problem = e.masked_with("the value").to_string();
            }
            if walked.holder.get("x-narrowest").is_some() {
                problem.push_str(
                    " (no range is stated for this list: the narrowest range the contract states for a page, READINGS 4.4)",
                );
            }
            let mut item_schema = json!({"type": type_of(walked.holder)});
            if keyword == "pattern" {
                if let Some(p) = walked.holder.get("pattern") {
                    item_schema["pattern"] = p.clone();
                }
            }
            let (place, item_path) = place(e.instance_path().as_str());
            return Some(Breach {
                place,
                problem,
                item_path,
                value: bounded(e.instance()),
                schema: item_schema,
                row,
                no_endpoint: false,
            });
        }
        None
    }

    /// A parameter's value against its schema.
    fn breach_of(
        &self,
        param: &Param,
        value: &Value,
        place: &str,
        faulted: &dyn Fn(&str) -> bool,
    ) -> Option<Breach> {
        let name = param.name.clone();
        self.first_error(
            &param.compiled,
            value,
            &|_| (place.to_string(), format!("/{name}")),
            &|_| true,
            faulted,
        )
    }

    /// A query parameter the table does not name. On the header-versioned API a declared field
    /// takes operators (`field[operator]=value`, Pagination and collection conventions).
    fn unknown_query(&self, query: &[(String, String)]) -> Option<Breach> {
        let declared = |k: &str| {
            self.query.iter().any(|p| p.name == k)
                || self.named_by_profile.iter().any(|p| p.name == k)
        };
        let operator = |k: &str| {
            let Some((field, rest)) = k.split_once('[') else {
                return false;
            };
            let op_ok = rest
                .strip_suffix(']')
                .is_some_and(|op| !op.is_empty() && op.chars().all(|c| c.is_ascii_alphabetic()));
            self.api == Api::Latest
                && op_ok
                && self
                    .query
                    .iter()
                    .any(|p| p.name == field || p.name.starts_with(&format!("{field}[")))
        };
        let (k, v) = query.iter().find(|(k, _)| !declared(k) && !operator(k))?;
        Some(Breach::simple(
            format!("query parameter {k}"),
            format!("not a parameter the contract names for {}", self.op()),
            format!("/{k}"),
            json!(v),
        ))
    }

    /// Every declared (or profile-named) query parameter sent, against its schema.
    fn query_values(
        &self,
        query: &[(String, String)],
        faulted: &dyn Fn(&str) -> bool,
    ) -> Option<Breach> {
        for param in self.query.iter().chain(&self.named_by_profile) {
            let values: Vec<&str> = query
                .iter()
                .filter(|(k, _)| *k == param.name)
                .map(|(_, v)| v.as_str())
                .collect();
            if values.is_empty() {
                continue;
            }
            let place = format!("query parameter {}", param.name);
            let schema = &param.compiled.schema;
            let instances: Vec<Value> =
                if schema.get("type").and_then(Value::as_str) == Some("array") {
                    let items = schema.get("items").cloned().unwrap_or(Value::Null);
                    vec![Value::Array(
                        values.iter().map(|v| typed(&items, v)).collect(),
                    )]
                } else {
                    values.iter().map(|v| typed(schema, v)).collect()
                };
            for instance in instances {
                if let Some(b) = self.breach_of(param, &instance, &place, faulted) {
                    return Some(b);
                }
            }
        }
        None
    }

    /// The query parameters the purpose implies (READINGS 6.3).
    fn query_purpose(&self, query: &[(String, String)]) -> Option<Breach> {
        let page = self.page_required.then_some("maxResults");
        let missing = self
            .purpose_query
            .iter()
            .map(String::as_str)
            .chain(page)
            .find(|name| !query.iter().any(|(k, _)| k == name))?;
        let why = if Some(missing) == page {
            "the list states no default page size"
        } else {
            "the purpose of the operation implies it"
        };
        Some(Breach::simple(
            format!("query parameter {missing}"),
            format!("required by {} ({why}, READINGS 6.3)", self.op()),
            format!("/{missing}"),
            Value::Null,
        ))
    }

    /// The body against its closed schema; `Names` keeps only fields the table does not name.
    fn body_breach(
        &self,
        body: &Value,
        scope: Scope,
        faulted: &dyn Fn(&str) -> bool,
    ) -> Option<Breach> {
        self.first_error(
            self.body.as_ref()?,
            body,
            &|at| {
                let place = if at.is_empty() {
                    "body".to_string()
                } else {
                    format!("body field {at}")
                };
                (place, if at.is_empty() { "/".into() } else { at.into() })
            },
            &|keyword| scope == Scope::All || keyword == "additionalProperties",
            faulted,
        )
    }

    /// The body fields the purpose implies (READINGS 6.3): present, not null, not blank.
    fn body_purpose(&self, body: &Value) -> Option<Breach> {
        let sent = |pointer: &String| match body.pointer(pointer) {
            None | Some(Value::Null) => false,
            Some(Value::String(s)) => !s.trim().is_empty(),
            Some(_) => true,
        };
        let group = self.purpose_body.iter().find(|g| !g.iter().any(sent))?;
        let place = if group.len() == 1 {
            format!("body field {}", group[0])
        } else {
            format!("one of the body fields {}", group.join(", "))
        };
        Some(Breach::simple(
            place,
            format!(
                "required by {} (the purpose of the operation implies it, READINGS 6.3)",
                self.op()
            ),
            group[0].clone(),
            Value::Null,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures;

    fn contract() -> &'static Contract {
        route_table().expect("the route table loads")
    }

    fn table_with(profile: &Profile) -> Table {
        let t = Table::build(contract(), profile);
        assert!(t.problems().is_empty(), "{:?}", t.problems());
        t
    }

    fn table() -> Table {
        table_with(&fixtures::profile())
    }

    fn none(_: &str) -> bool {
        false
    }

    fn pairs(query: &str) -> Vec<(String, String)> {
        form_urlencoded::parse(query.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect()
    }

    /// The breach of a request under every stated constraint, if any.
    fn breach(
        t: &Table,
        method: &str,
        path: &str,
        query: &str,
        body: Option<Value>,
    ) -> Option<Breach> {
        let route = contract().route(method, path).expect("a route");
        t.request_breach(route, &pairs(query), body.as_ref(), Scope::All, &none)
    }

    /// `bad` is refused naming `place` and `words`; `good`, the same request without the breach,
    /// is accepted.
    fn refused_and_control(
        t: &Table,
        method: &str,
        path: &str,
        bad: (&str, Option<Value>),
        good: (&str, Option<Value>),
        place: &str,
        words: &str,
    ) {
        let b = breach(t, method, path, bad.0, bad.1.clone())
            .unwrap_or_else(|| panic!("{method} {path} ?{} {:?} is accepted", bad.0, bad.1));
        assert_eq!(b.place, place, "{}", b.message());
        assert!(b.message().contains(words), "{} lacks {words}", b.message());
        let control = breach(t, method, path, good.0, good.1.clone());
        assert!(
            control.is_none(),
            "control refused: {:?}",
            control.map(|b| b.message())
        );
    }

    const PN: &str = "phoneNumberId=PNq7R2s9T4u1&participants=%2B14155550101";

    #[test]
    fn query_values_are_held_to_their_stated_types_ranges_patterns_formats_and_counts() {
        let t = table();
        let ok = format!("{PN}&maxResults=10");
        let with = |extra: &str| format!("{PN}&{extra}");
        let cases = [
            ("maxResults=ten", "query parameter maxResults", "integer"),
            (
                "maxResults=101",
                "query parameter maxResults",
                "maximum of 100",
            ),
            ("maxResults=0", "query parameter maxResults", "minimum of 1"),
            (
                "maxResults=10&userId=XXa1",
                "query parameter userId",
                "^US(.*)$",
            ),
            (
                "maxResults=10&createdAfter=yesterday",
                "query parameter createdAfter",
                "date-time",
            ),
        ];
        for (extra, place, words) in cases {
            let bad = with(extra);
            refused_and_control(
                &t,
                "GET",
                "/v1/messages",
                (&bad, None),
                (&ok, None),
                place,
                words,
            );
        }
        // A pattern of a value: the stated prefix of a phone number id.
        refused_and_control(
            &t,
            "GET",
            "/v1/messages",
            (
                "phoneNumberId=XX1&participants=%2B14155550101&maxResults=10",
                None,
            ),
            (&ok, None),
            "query parameter phoneNumberId",
            "^PN(.*)$",
        );
        // Item counts and E.164 items of a repeated key.
        let eleven: String = (0..11)
            .map(|i| format!("&participants=%2B1415555020{i}"))
            .collect();
        let ten: String = (0..10)
            .map(|i| format!("&participants=%2B1415555020{i}"))
            .collect();
        refused_and_control(
            &t,
            "GET",
            "/v1/messages",
            (&format!("phoneNumberId=PN1&maxResults=10{eleven}"), None),
            (&format!("phoneNumberId=PN1&maxResults=10{ten}"), None),
            "query parameter participants",
            "more than 10 items",
        );
        refused_and_control(
            &t,
            "GET",
            "/v1/messages",
            (
                "phoneNumberId=PN1&maxResults=10&participants=4155550101",
                None,
            ),
            (&ok, None),
            "query parameter participants",
            "does not match",
        );
        // Lengths of array items, enums.
        let long = "x".repeat(76);
        refused_and_control(
            &t,
            "GET",
            "/v1/contacts",
            (&format!("externalIds={long}"), None),
            (&format!("externalIds={}", &long[1..]), None),
            "query parameter externalIds",
            "longer than 75",
        );
        refused_and_control(
            &t,
            "GET",
            "/conversations",
            ("maxResults=10&sort=name%3Aasc", None),
            ("maxResults=10&sort=createdAt%3Adesc", None),
            "query parameter sort",
            "is not one of",
        );
    }

    #[test]
    fn max_results_takes_the_stated_range_or_else_the_narrowest_one() {
        let t = table();
        // Listing contacts: 1-50 on both generations (READINGS 4.4).
        for path in ["/v1/contacts", "/contacts"] {
            refused_and_control(
                &t,
                "GET",
                path,
                ("maxResults=51", None),
                ("maxResults=50", None),
                "query parameter maxResults",
                "maximum of 50",
            );
        }
        // Header-versioned messages: the Limits row's 1-100.
        assert!(breach(&t, "GET", "/messages", "maxResults=100", None).is_none());
        // Tasks and users state no range: the narrowest stated one, 1-50.
        for path in ["/v1/tasks", "/users"] {
            refused_and_control(
                &t,
                "GET",
                path,
                ("maxResults=100", None),
                ("maxResults=50", None),
                "query parameter maxResults",
                "READINGS 4.4",
            );
        }
    }

    #[test]
    fn the_purpose_fields_of_readings_6_3_are_required() {
        let t = table();
        refused_and_control(
            &t,
            "GET",
            "/v1/calls",
            ("phoneNumberId=PN1&maxResults=10", None),
            (
                "phoneNumberId=PN1&maxResults=10&participants=%2B14155550101",
                None,
            ),
            "query parameter participants",
            "READINGS 6.3",
        );
        // maxResults on every list whose default page size is not stated; not on v1 contacts.
        refused_and_control(
            &t,
            "GET",
            "/users",
            ("", None),
            ("maxResults=10", None),
            "query parameter maxResults",
            "no default page size",
        );
        assert!(breach(&t, "GET", "/v1/contacts", "", None).is_none());
        refused_and_control(
            &t,
            "POST",
            "/v1/contacts",
            (
                "",
                Some(json!({"externalId": "x", "defaultFields": {"firstName": " "}})),
            ),
            (
                "",
                Some(json!({"externalId": "x", "defaultFields": {"firstName": "Ada"}})),
            ),
            "body field /defaultFields/firstName",
            "READINGS 6.3",
        );
        refused_and_control(
            &t,
            "POST",
            "/v1/tasks",
            ("", Some(json!({"title": "Call back"}))),
            (
                "",
                Some(json!({"title": "Call back", "conversationId": "CN1"})),
            ),
            "one of the body fields /phoneNumberId, /conversationId, /activityId",
            "READINGS 6.3",
        );
        refused_and_control(
            &t,
            "PUT",
            "/v1/tasks/TK1",
            ("", Some(json!({"title": "New title"}))),
            (
                "",
                Some(json!({"title": "New title", "description": "New text"})),
            ),
            "body field /description",
            "READINGS 6.3",
        );
    }

    #[test]
    fn unknown_names_are_refused_at_any_depth_except_what_the_profile_names() {
        let t = table();
        let ok = format!("{PN}&maxResults=10");
        refused_and_control(
            &t,
            "GET",
            "/v1/messages",
            (&format!("{ok}&bogus=1"), None),
            (&ok, None),
            "query parameter bogus",
            "not a parameter the contract names",
        );
        // Operators on declared fields: header-versioned collections only.
        assert!(
            breach(
                &t,
                "GET",
                "/messages",
                "maxResults=10&createdAt%5Blte%5D=2026-01-01T00:00:00Z",
                None
            )
            .is_none()
        );
        assert!(
            breach(
                &t,
                "GET",
                "/v1/messages",
                &format!("{ok}&createdAfter%5Bgte%5D=x"),
                None
            )
            .is_some()
        );
        // The unshown filters of GET /v1/conversations, under the profile's names and types.
        let p = fixtures::profile();
        let name = p.fixtures["conversations_exclude_inactive_param"]
            .as_str()
            .expect("a name");
        refused_and_control(
            &t,
            "GET",
            "/v1/conversations",
            (&format!("maxResults=10&{name}=maybe"), None),
            (&format!("maxResults=10&{name}=true"), None),
            &format!("query parameter {name}"),
            "boolean",
        );
        let contact = json!({"defaultFields": {"firstName": "Ada"}});
        let mut top = contact.clone();
        top["bogus"] = json!(1);
        refused_and_control(
            &t,
            "POST",
            "/v1/contacts",
            ("", Some(top)),
            ("", Some(contact.clone())),
            "body",
            "bogus",
        );
        let mut nested = contact.clone();
        nested["defaultFields"]["nickname"] = json!("Ada");
        refused_and_control(
            &t,
            "POST",
            "/v1/contacts",
            ("", Some(nested)),
            ("", Some(contact)),
            "body field /defaultFields",
            "nickname",
        );
    }

    #[test]
    fn body_values_are_held_to_their_stated_schemas() {
        let t = table();
        let base = json!({"defaultFields": {"firstName": "Ada"}, "externalId": "x"});
        let with = |pointer: &str, v: Value| {
            let mut b = base.clone();
            let (parent, key) = pointer.rsplit_once('/').expect("a pointer");
            let at = if parent.is_empty() {
                &mut b
            } else {
                b.pointer_mut(parent).expect("parent")
            };
            at[key] = v;
            b
        };
        let cases = [
            (
                "/defaultFields/lastName",
                json!(5),
                "body field /defaultFields/lastName",
                "string",
            ),
            (
                "/externalId",
                json!("e".repeat(76)),
                "body field /externalId",
                "longer than 75",
            ),
            (
                "/createdByUserId",
                json!("XX1"),
                "body field /createdByUserId",
                "^US",
            ),
            (
                "/defaultFields/phoneNumbers",
                json!([{"value": "4155550100"}]),
                "body field /defaultFields/phoneNumbers/0/value",
                "does not match",
            ),
        ];
        for (pointer, v, place, words) in cases {
            let bad = with(pointer, v);
            refused_and_control(
                &t,
                "POST",
                "/v1/contacts",
                ("", Some(bad)),
                ("", Some(base.clone())),
                place,
                words,
            );
        }
        refused_and_control(
            &t,
            "POST",
            "/v1/tasks/TK1/change-due-date",
            ("", Some(json!({"dueDate": "tomorrow"}))),
            ("", Some(json!({"dueDate": "2026-09-01T10:00:00Z"}))),
            "body field /dueDate",
            "\"tomorrow\"",
        );
        refused_and_control(
            &t,
            "POST",
            "/v1/tasks/TK1/assign",
            ("", None),
            ("", Some(json!({"userId": "USa1"}))),
            "body",
            "userId",
        );
        let hook = json!({"url": "https://hooks.example.test/x", "events": ["call.completed"], "resourceIds": ["*"]});
        // The Webhook table states a URI for url (a contact's sourceUrl is "a link": no syntax).
        let mut relative = hook.clone();
        relative["url"] = json!("hooks.example.test/x");
        refused_and_control(
            &t,
            "POST",
            "/webhooks",
            ("", Some(relative)),
            ("", Some(hook.clone())),
            "body field /url",
            "uri",
        );
        let mut empty = hook.clone();
        empty["events"] = json!([]);
        refused_and_control(
            &t,
            "POST",
            "/webhooks",
            ("", Some(empty)),
            ("", Some(hook.clone())),
            "body field /events",
            "less than 1 item",
        );
        let mut paused = hook.clone();
        paused["status"] = json!("paused");
        refused_and_control(
            &t,
            "POST",
            "/webhooks",
            ("", Some(paused)),
            ("", Some(hook)),
            "body field /status",
            "is not one of",
        );
    }

    #[test]
    fn a_breach_a_rule_names_takes_the_row_of_that_rule() {
        let t = table();
        let two = "phoneNumberId=PN1&maxResults=10&participants=%2B14155550101&participants=%2B14155550102";
        let b = breach(&t, "GET", "/v1/calls", two, None).expect("refused");
        assert_eq!(
            b.row,
            Some(("0101400".into(), "Too Many Participants".into()))
        );
        // An empty participant is Errors > Rules > 3, which names no row.
        let empty = "phoneNumberId=PN1&maxResults=10&participants=";
        let b = breach(&t, "GET", "/v1/calls", empty, None).expect("refused");
        assert_eq!(b.row, None);
        let item = json!({"defaultFields": {"firstName": "A"}, "customFields": [{"value": "x"}]});
        let b = breach(&t, "POST", "/v1/contacts", "", Some(item)).expect("refused");
        assert_eq!(
            b.row,
            Some(("0801400".into(), "Invalid Custom Field Item".into()))
        );
        let b =
            breach(&t, "POST", "/v1/contacts", "", Some(json!({"source": "s"}))).expect("refused");
        assert_eq!(b.row, None, "{}", b.message());
    }

    #[test]
    fn path_parameters_are_held_to_their_patterns_and_closed_sets() {
        let t = table();
        let at = |method: &str, path: &str| {
            let route = contract().route(method, path).expect("a route");
            t.path_breach(route, path, &none)
        };
        let b = at("GET", "/v1/calls/r1234567").expect("refused");
        assert_eq!(
            (b.place.as_str(), b.no_endpoint),
            ("path parameter callId", false)
        );
        assert!(b.message().contains("^AC"), "{}", b.message());
        assert!(at("GET", "/v1/calls/ACr1234567").is_none());
        for (method, bad, good) in [
            ("GET", "/users/x1", "/users/US1"),
            ("GET", "/phone-numbers/x1/users", "/phone-numbers/PN1/users"),
            (
                "POST",
                "/v1/conversations/x1/mark-as-done",
                "/v1/conversations/CN1/mark-as-done",
            ),
            ("POST", "/messages/x1/retry", "/messages/AC1/retry"),
            ("DELETE", "/webhooks/x1", "/webhooks/1"),
        ] {
            assert!(at(method, bad).is_some(), "{bad}");
            assert!(at(method, good).is_none(), "{good}");
        }
        let b = at("GET", "/webhooks/abc").expect("refused");
        assert!(b.message().contains("webhookId") && b.message().contains("^[0-9]+$"));
        assert_eq!(b.schema, json!({"type": "string", "pattern": "^[0-9]+$"}));
        let b = at("POST", "/v1/webhooks/other").expect("refused");
        assert!(b.no_endpoint);
        // Contacts and tasks state no id shape: anything goes here.
        assert!(at("GET", "/contacts/anything-at-all").is_none());
        assert!(at("GET", "/v1/tasks/anything").is_none());
    }

    #[test]
    fn renamed_fields_are_the_targets_names_and_only_those() {
        let mut p = fixtures::profile();
        p.request_fields
            .insert("message.text".into(), "content".into());
        let t = table_with(&p);
        let content = json!({"to": ["+14155550104"], "from": "+14155550100", "content": "hi"});
        let text = json!({"to": ["+14155550104"], "from": "+14155550100", "text": "hi"});
        assert!(breach(&t, "POST", "/v1/messages", "", Some(content.clone())).is_none());
        let b = breach(&t, "POST", "/v1/messages", "", Some(text.clone())).expect("refused");
        assert!(
            b.message().contains("\"text\"") || b.message().contains("\"content\""),
            "{}",
            b.message()
        );
        // Without the rename, the other way round.
        let t = table();
        assert!(breach(&t, "POST", "/v1/messages", "", Some(text)).is_none());
        assert!(breach(&t, "POST", "/v1/messages", "", Some(content)).is_some());
    }

    #[test]
    fn every_clause_the_extensions_name_is_in_the_catalog() {
        fn collect<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
            match v {
                Value::Object(m) => {
                    for (k, v) in m {
                        if k == "x-also-clauses" {
                            out.extend(
                                v.as_array().into_iter().flatten().filter_map(Value::as_str),
                            );
                        }
                        if k == "x-profile-params" {
                            let clauses = v.as_array().into_iter().flatten();
                            out.extend(clauses.filter_map(|p| p.get("x-clause")?.as_str()));
                        }
                        collect(v, out);
                    }
                }
                Value::Array(items) => items.iter().for_each(|v| collect(v, out)),
                _ => {}
            }
        }
        let mut named = Vec::new();
        collect(document().expect("the route table"), &mut named);
        assert!(named.len() >= 4, "{named:?}");
        for c in named {
            assert!(contract().clauses.contains(c), "unknown clause {c}");
        }
    }

    #[test]
    fn names_only_and_faulted_clauses_leave_the_rest_to_the_handler() {
        let t = table();
        let route = contract().route("GET", "/v1/messages").expect("route");
        let names = |q: &str| t.request_breach(route, &pairs(q), None, Scope::Names, &none);
        assert!(names("maxResults=500").is_none());
        assert!(names("bogus=1").is_some());
        let route = contract().route("POST", "/v1/contacts").expect("route");
        let long = json!({"defaultFields": {"firstName": "A"}, "externalId": "e".repeat(76)});
        let faulted = |c: &str| c == "Resources > Contact > externalId";
        assert!(
            t.request_breach(route, &[], Some(&long), Scope::All, &none)
                .is_some()
        );
        assert!(
            t.request_breach(route, &[], Some(&long), Scope::All, &faulted)
                .is_none()
        );
        let item = json!({"defaultFields": {"firstName": "A"}, "customFields": [{"value": "x"}]});
        let rule_1 = |c: &str| c == "Errors > Rules > 1";
        assert!(
            t.request_breach(route, &[], Some(&item), Scope::All, &rule_1)
                .is_none()
        );
        // A constraint stated twice (x-also-clauses) is left to the handler under either clause.
        let route = contract().route("GET", "/v1/calls").expect("route");
        let empty = pairs("phoneNumberId=PN1&maxResults=10&participants=");
        let rule_3 = |c: &str| c == "Errors > Rules > 3";
        assert!(
            t.request_breach(route, &empty, None, Scope::All, &none)
                .is_some()
        );
        assert!(
            t.request_breach(route, &empty, None, Scope::All, &rule_3)
                .is_none()
        );
    }
}
