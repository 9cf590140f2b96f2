//! The contract as data: the route table (OpenAPI 3.1), its JSON Schemas, the clause catalog,
//! the v1 error codes, and the profile that names a target's fixtures. Loaded and compiled once
//! per run. The suite and the embedded reference both read it; it reads neither.

mod clauses;
mod codes;
pub mod operations;
pub mod profile;
mod routes;
pub mod yaml;

use std::collections::HashMap;

use serde::Deserialize;
use serde_json::{Value, json};

pub use clauses::{Clause, Clauses};
pub use codes::V1Codes;
pub use codes::{CodeRow, WebhookTitles};
pub use routes::ResponseSpec;
pub use routes::{E164, ErrorBody, Param, ParamIn, Route, StatusKey};

/// The `Service-Api-Version` the suite speaks (the header-versioned API's one stated value).
pub const API_VERSION: &str = "2026-03-30";

/// The API generation a route, case file or trial addresses: the one name of it in the suite.
/// The route table's `x-api`, a case file's `api`, the first part of trial names and the
/// generation of a request's path all read it here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, PartialOrd, Ord)]
#[serde(try_from = "String")]
pub enum Api {
    /// Paths prefixed `/v1`.
    V1,
    /// The header-versioned API (`Service-Api-Version`).
    Latest,
}

impl Api {
    /// Every generation, in report order.
    pub const ALL: [Api; 2] = [Api::V1, Api::Latest];

    /// The name used in the route table, in case files, as the first part of trial names and
    /// in reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Api::V1 => "v1",
            Api::Latest => "latest",
        }
    }

    /// The generation called `name` (`v1`, `latest`).
    pub fn named(name: &str) -> Option<Api> {
        Api::ALL.into_iter().find(|a| a.as_str() == name)
    }

    /// The generation a request path belongs to: `/v1/...` is v1, every other path is
    /// header-versioned (What the service does > API generations).
    pub fn of_path(path: &str) -> Api {
        if path.starts_with("/v1/") {
            Api::V1
        } else {
            Api::Latest
        }
    }

    /// The headers every request of the generation carries: the header-versioned API's
    /// `Service-Api-Version`.
    pub fn headers(self) -> Vec<(String, String)> {
        match self {
            Api::V1 => Vec::new(),
            Api::Latest => vec![("Service-Api-Version".to_string(), API_VERSION.to_string())],
        }
    }
}

/// A name that is no API generation (a case file's `api`, the route table's `x-api`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown API generation `{name}`, expected one of {}",
    Api::ALL.map(Api::as_str).join(", ")
)]
pub struct UnknownApi {
    pub name: String,
}

impl TryFrom<String> for Api {
    type Error = UnknownApi;

    fn try_from(name: String) -> Result<Api, UnknownApi> {
        Api::named(&name).ok_or(UnknownApi { name })
    }
}

/// The route table as shipped in `schemas/openapi.yaml`.
pub const OPENAPI_YAML: &str = include_str!("../../../schemas/openapi.yaml");
/// The clause catalog as shipped in `schemas/clauses.yaml`.
pub const CLAUSES_YAML: &str = include_str!("../../../schemas/clauses.yaml");

/// A contract file that cannot be used.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{file}:{line}: {message}")]
pub struct ContractError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

/// One violation of a schema: where in the instance, and what.
#[derive(Debug, Clone)]
pub struct SchemaViolation {
    pub pointer: String,
    pub message: String,
    /// Where the failing keyword is in the contract's schemas, `$ref`s resolved
    /// (`/components/schemas/CallBase/properties/id/pattern`): the rule the value broke,
    /// whichever envelope or list held the value.
    pub keyword: String,
}

/// The loaded contract: routes, compiled schemas, clauses and codes.
pub struct Contract {
    pub routes: Vec<Route>,
    pub clauses: Clauses,
    pub codes: V1Codes,
    /// The titles of the header-versioned webhook error body, by status.
    pub webhook_titles: WebhookTitles,
    /// The E.164 phone number format (`components/schemas/E164`).
    pub e164: E164,
    /// The kinds of resource the operations act on (`x-resources`), by name.
    pub resources: std::collections::BTreeMap<String, operations::Resource>,
    validators: HashMap<String, jsonschema::Validator>,
    /// `/components/schemas` of the route table, to read what a schema keyword's node states.
    components: Value,
}

impl Contract {
    /// Loads the contract files embedded in the binary.
    pub fn embedded() -> Result<Contract, ContractError> {
        Contract::from_sources(OPENAPI_YAML, CLAUSES_YAML)
    }

    /// The embedded contract, built once per process and shared by all who ask: its compiled
    /// validators take some 24 MB, and a default run holds the suite and the embedded
    /// reference in one process.
    pub fn shared() -> Result<std::sync::Arc<Contract>, ContractError> {
        static SHARED: std::sync::OnceLock<Result<std::sync::Arc<Contract>, ContractError>> =
            std::sync::OnceLock::new();
        SHARED
            .get_or_init(|| Contract::embedded().map(std::sync::Arc::new))
            .clone()
    }

    /// Loads a contract from the text of the route table and of the clause catalog.
    pub(crate) fn from_sources(openapi: &str, clauses: &str) -> Result<Contract, ContractError> {
        let err = |file: &str, line: usize, message: String| ContractError {
            file: file.to_string(),
            line,
            message,
        };
        let clauses =
            Clauses::parse(clauses).map_err(|(line, m)| err("schemas/clauses.yaml", line, m))?;
        let (doc, lines) =
            yaml::parse(openapi).map_err(|e| err("schemas/openapi.yaml", e.line, e.message))?;
        let codes = V1Codes::from_openapi(&doc)
            .map_err(|(p, m)| err("schemas/openapi.yaml", lines.line_of(&p), m))?;
        let webhook_titles = WebhookTitles::from_openapi(&doc)
            .map_err(|(p, m)| err("schemas/openapi.yaml", lines.line_of(&p), m))?;
        let e164 = E164::from_openapi(&doc)
            .map_err(|(p, m)| err("schemas/openapi.yaml", lines.line_of(&p), m))?;
        let resources = operations::resources(&doc, &|c| clauses.contains(c))
            .map_err(|(p, m)| err("schemas/openapi.yaml", lines.line_of(&p), m))?;
        let routes = routes::from_openapi(&doc, &clauses, &resources)
            .map_err(|(p, m)| err("schemas/openapi.yaml", lines.line_of(&p), m))?;
        let components = doc
            .pointer("/components/schemas")
            .cloned()
            .unwrap_or(json!({}));
        let Some(names) = components.as_object() else {
            return Err(err(
                "schemas/openapi.yaml",
                1,
                "components/schemas must be a mapping".into(),
            ));
        };
        let mut validators = HashMap::new();
        for name in names.keys() {
            // Each validator keeps its own copy of its root: the schemas `name` reaches, not all.
            let root = json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "$ref": format!("#/components/schemas/{name}"),
                "components": { "schemas": reached(names, name) },
            });
            let validator = jsonschema::options()
                .should_validate_formats(true)
                .build(&root)
                .map_err(|e| {
                    err(
                        "schemas/openapi.yaml",
                        lines.line_of(&format!("/components/schemas/{name}")),
                        format!("schema `{name}` does not compile: {e}"),
                    )
                })?;
            validators.insert(name.clone(), validator);
        }
        for route in &routes {
            for resp in &route.responses {
                if let Some(schema) = &resp.schema {
                    if !validators.contains_key(schema) {
                        return Err(err(
                            "schemas/openapi.yaml",
                            1,
                            format!(
                                "{} {} refers to unknown schema `{schema}`",
                                route.method, route.template
                            ),
                        ));
                    }
                }
            }
        }
        Ok(Contract {
            routes,
            resources,
            clauses,
            codes,
            webhook_titles,
            e164,
            validators,
            components,
        })
    }

    /// The route that serves `method` on `path` (no query string); literal segments win over
    /// parameters.
    pub fn route(&self, method: &str, path: &str) -> Option<&Route> {
        self.routes
            .iter()
            .filter(|r| r.method.eq_ignore_ascii_case(method))
            .filter_map(|r| r.match_path(path).map(|score| (score, r)))
            .max_by_key(|(score, _)| *score)
            .map(|(_, r)| r)
    }

    /// The clause that the schema holding a failed keyword states, where that schema states one
    /// of its own (`x-clause`): a date-time of the `Timestamp` schema breaks "Conventions >
    /// timestamps" whichever resource holds it, an `E164` value "Conventions > phone numbers".
    /// `keyword` is a violation's keyword location, `$ref`s resolved
    /// (`/components/schemas/Timestamp/pattern`). A nullable field (`anyOf` of one schema and
    /// `null`) that fails holds a value that is not null, so it fails the one schema: its
    /// clause is that schema's. None where the keyword's schema states no clause.
    pub fn keyword_clause(&self, keyword: &str) -> Option<&str> {
        let (node, word) = keyword.rsplit_once('/')?;
        let node = self
            .components
            .pointer(node.strip_prefix("/components/schemas")?)?;
        if let Some(clause) = node.get("x-clause").and_then(Value::as_str) {
            return Some(clause);
        }
        if word != "anyOf" {
            return None;
        }
        let branches = node.get("anyOf")?.as_array()?;
        let mut not_null = branches
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) != Some("null"));
        let only = not_null.next().filter(|_| not_null.next().is_none())?;
        let target = match only.get("$ref").and_then(Value::as_str) {
            Some(r) => self
                .components
                .pointer(r.strip_prefix("#/components/schemas")?)?,
            None => only,
        };
        target.get("x-clause").and_then(Value::as_str)
    }

    /// The component schema `name` of the route table (`Webhook`), as written (its `$ref`s not
    /// inlined: [`Contract::resolve`] follows one).
    pub fn component(&self, name: &str) -> Option<&Value> {
        self.components.get(name)
    }

    /// `schema`, or the component its `$ref` names.
    pub fn resolve<'s>(&'s self, schema: &'s Value) -> &'s Value {
        match schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/components/schemas/"))
        {
            Some(name) => self.components.get(name).unwrap_or(schema),
            None => schema,
        }
    }

    /// Whether `name` is a schema of the route table's components.
    pub fn has_schema(&self, name: &str) -> bool {
        self.validators.contains_key(name)
    }

    /// Validates `instance` against the named component schema. A message that quotes a part of
    /// the instance shows it through `show` when the whole would be long: the suite redacts and
    /// cuts there what a target sent, and ends a cut text with `…`.
    pub fn validate(
        &self,
        name: &str,
        instance: &Value,
        show: fn(&Value) -> String,
    ) -> Vec<SchemaViolation> {
        let Some(validator) = self.validators.get(name) else {
            return vec![SchemaViolation {
                pointer: String::new(),
                message: format!("unknown schema `{name}`"),
                keyword: String::new(),
            }];
        };
        if validator.is_valid(instance) {
            return Vec::new();
        }
        // jsonschema builds the errors of every item of an array at once: for a list of 100,000
        // items that is more memory than the list. The errors are looked for first in a copy
        // whose arrays keep their first items (the same pointers; the contract's schemas have
        // no `contains`, `uniqueItems` or `minItems` above that count, so a prefix adds no
        // error), and in the whole instance only if the prefix shows none.
        let prefix = long_arrays_cut(instance);
        let errors: Vec<_> = prefix
            .as_ref()
            .map(|p| {
                validator
                    .iter_errors(p)
                    .take(5)
                    .map(|e| violation(e, show))
                    .collect()
            })
            .unwrap_or_default();
        if !errors.is_empty() {
            return errors;
        }
        validator
            .iter_errors(instance)
            .take(5)
            .map(|e| violation(e, show))
            .collect()
    }
}

/// Items of an array the first error search looks at.
const PREFIX_ITEMS: usize = 100;

/// A copy of `v` whose arrays keep their first [`PREFIX_ITEMS`] items, if any array is longer.
fn long_arrays_cut(v: &Value) -> Option<Value> {
    fn has_long(v: &Value) -> bool {
        match v {
            Value::Array(a) => a.len() > PREFIX_ITEMS || a.iter().any(has_long),
            Value::Object(m) => m.values().any(has_long),
            _ => false,
        }
    }
    fn cut(v: &Value) -> Value {
        match v {
            Value::Array(a) => Value::Array(a.iter().take(PREFIX_ITEMS).map(cut).collect()),
            Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), cut(v))).collect()),
            other => other.clone(),
        }
    }
    has_long(v).then(|| cut(v))
}

/// A schema error as a finding shows it: the message quotes the instance, and a large one is
/// shown as `show` renders it (a bounded excerpt).
/// The component schemas `name` refers to, directly or through others, and itself: what its
/// validator's root must hold for every `$ref` to resolve.
fn reached(components: &serde_json::Map<String, Value>, name: &str) -> Value {
    const PREFIX: &str = "#/components/schemas/";
    let mut out = serde_json::Map::new();
    let mut todo = vec![name.to_string()];
    while let Some(next) = todo.pop() {
        if out.contains_key(&next) {
            continue;
        }
        let Some(schema) = components.get(&next) else {
            continue;
        };
        let mut stack = vec![schema];
        while let Some(v) = stack.pop() {
            match v {
                Value::Object(m) => {
                    if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                        if let Some(target) = r.strip_prefix(PREFIX) {
                            todo.push(target.split('/').next().unwrap_or(target).to_string());
                        }
                    }
                    stack.extend(m.values());
                }
                Value::Array(a) => stack.extend(a),
                _ => {}
            }
        }
        out.insert(next, schema.clone());
    }
    Value::Object(out)
}

fn violation(e: jsonschema::ValidationError<'_>, show: fn(&Value) -> String) -> SchemaViolation {
    let shown = show(e.instance());
    let message = if shown.ends_with('…') {
        e.masked_with(shown).to_string()
    } else {
        e.to_string()
    };
    SchemaViolation {
        pointer: e.instance_path().to_string(),
        message,
        keyword: e.schema_path().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_keyword_of_a_schema_that_states_a_convention_cites_it() {
        let c = Contract::embedded().unwrap();
        let at = |k: &str| c.keyword_clause(k);
        assert_eq!(
            at("/components/schemas/Timestamp/pattern"),
            Some("Conventions > timestamps")
        );
        // A nullable timestamp or phone number that fails holds a value that is not null.
        assert_eq!(
            at("/components/schemas/NullableTimestamp/anyOf"),
            Some("Conventions > timestamps")
        );
        assert_eq!(
            at("/components/schemas/Message/properties/from/anyOf"),
            Some("Conventions > phone numbers")
        );
        assert_eq!(
            at("/components/schemas/E164/pattern"),
            Some("Conventions > phone numbers")
        );
        // A schema that states no clause of its own leaves the finding to its route's.
        assert_eq!(at("/components/schemas/UserId/pattern"), None);
        assert_eq!(at("/components/schemas/ListEnvelope/required"), None);
        assert_eq!(at("/nowhere/pattern"), None);
    }

    #[test]
    fn an_unknown_generation_names_the_known_ones() {
        assert_eq!(Api::try_from("latest".to_string()), Ok(Api::Latest));
        let e = Api::try_from("v2".to_string()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown API generation `v2`, expected one of v1, latest"
        );
    }
}
