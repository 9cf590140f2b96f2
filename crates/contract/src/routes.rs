//! The route table: method, path template, parameters and their constraints, and the declared
//! responses of every endpoint, read from `schemas/openapi.yaml`.

use serde_json::Value;

use super::Api;
use super::Clauses;

/// Which error body a route answers with (Errors part of the spec).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorBody {
    /// The v1 error body with a seven-digit code.
    V1,
    /// The header-versioned webhook error body (no code, status or trace).
    Webhook,
    /// Other header-versioned endpoints: message, docs, title.
    Latest,
}

impl ErrorBody {
    /// The error body of a generation's paths, where no other is named (`x-error-body`).
    pub fn of(api: Api) -> ErrorBody {
        match api {
            Api::V1 => ErrorBody::V1,
            Api::Latest => ErrorBody::Latest,
        }
    }
}

/// The key under which an inlined schema keeps the `$ref` it was inlined from, so the suite
/// recognises a place by the component it refers to (an E.164 number), not by its text.
pub(crate) const INLINED_FROM: &str = "x-inlined-from";

/// The E.164 phone number format as the route table states it: the component schema `E164`
/// (Conventions > phone numbers). The suite learns the format here only, and a schema of the
/// route table is a phone number where it refers to that component.
#[derive(Debug, Clone)]
pub struct E164 {
    pattern: String,
    regex: regex::Regex,
}

impl E164 {
    /// The `$ref` of the component.
    pub(crate) const REF: &str = "#/components/schemas/E164";

    /// Reads the component's `pattern`. Errors carry a JSON Pointer.
    pub(crate) fn from_openapi(doc: &Value) -> Result<E164, Problem> {
        let at = "/components/schemas/E164";
        let pattern = doc
            .pointer(&format!("{at}/pattern"))
            .and_then(Value::as_str)
            .ok_or_else(|| {
                (
                    at.to_string(),
                    "the E164 schema needs a `pattern`".to_string(),
                )
            })?;
        // ECMA-262, the dialect of JSON Schema patterns, reads `\d` as an ASCII digit.
        let regex = regex::RegexBuilder::new(pattern)
            .unicode(false)
            .build()
            .map_err(|e| (format!("{at}/pattern"), format!("the E164 pattern: {e}")))?;
        Ok(E164 {
            pattern: pattern.to_string(),
            regex,
        })
    }

    /// The format of the embedded route table, for what runs without a loaded contract
    /// (discovery of a target's fixtures).
    pub fn embedded() -> &'static E164 {
        static EMBEDDED: std::sync::LazyLock<E164> = std::sync::LazyLock::new(|| {
            let (doc, _) = super::yaml::parse(super::OPENAPI_YAML).expect("the route table parses");
            E164::from_openapi(&doc).expect("the route table states E164")
        });
        &EMBEDDED
    }

    /// The pattern, as the route table writes it.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// Whether `s` is an E.164 number.
    pub fn matches(&self, s: &str) -> bool {
        self.regex.is_match(s)
    }

    /// Whether a schema of the route table (as inlined) is the E.164 component.
    pub fn is_schema(schema: &Value) -> bool {
        schema.get(INLINED_FROM).and_then(Value::as_str) == Some(E164::REF)
    }
}

/// A declared response status: exact (`404`) or a class (`4XX`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusKey {
    Exact(u16),
    Class(u16),
}

impl StatusKey {
    pub fn matches(self, status: u16) -> bool {
        match self {
            StatusKey::Exact(s) => s == status,
            StatusKey::Class(c) => status / 100 == c,
        }
    }
}

/// A declared response: its status, the schema of its body, and the clause that states it.
#[derive(Debug, Clone)]
pub struct ResponseSpec {
    pub status: StatusKey,
    pub schema: Option<String>,
    pub clause: Option<String>,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamIn {
    Path,
    Query,
    Header,
}

/// A parameter with its JSON Schema constraints.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub location: ParamIn,
    pub schema: Value,
    pub clause: Option<String>,
}

#[derive(Debug, Clone)]
enum Segment {
    Literal(String),
    Param,
}

/// One endpoint of the route table.
#[derive(Debug, Clone)]
pub struct Route {
    pub method: String,
    pub template: String,
    pub api: Api,
    /// The v1 code table area (`Contacts`, ...), if any.
    pub area: Option<String>,
    pub error_body: ErrorBody,
    /// Whether a success is a paginated list (`data`, `totalItems`, `nextPageToken`).
    pub list: bool,
    /// The clause of the endpoint.
    pub clause: String,
    pub responses: Vec<ResponseSpec>,
    pub params: Vec<Param>,
    /// `operationId`, used to name generated trials.
    pub operation_id: Option<String>,
    /// The JSON request body schema with every `$ref` inlined.
    pub request_schema: Option<Value>,
    /// `x-example`: a valid request that boundary properties vary one field at a time.
    pub example: Option<Value>,
    /// `x-access`: the request the generated access cells send (a body that names the run's
    /// resources, the setups it needs).
    pub access: Option<Value>,
    /// `x-purpose`: what the operation's purpose implies a target may require (READINGS 6.3).
    pub purpose: Option<Value>,
    /// `x-effect`: what the operation does (the operation table, `crate::operations`).
    pub effect: crate::operations::Effect,
    /// The operation sends a message (`callers: [live-subscription]` of its effect): generated
    /// trials on it run alone.
    pub sends: bool,
    segments: Vec<Segment>,
}

impl Route {
    /// Scores a match of a concrete path (more literal segments score higher), or `None`.
    pub fn match_path(&self, path: &str) -> Option<usize> {
        let parts: Vec<&str> = path.trim_start_matches('/').split('/').collect();
        if parts.len() != self.segments.len() {
            return None;
        }
        let mut score = 0;
        for (seg, part) in self.segments.iter().zip(&parts) {
            match seg {
                Segment::Literal(l) if l == part => score += 1,
                Segment::Literal(_) => return None,
                Segment::Param if part.is_empty() => return None,
                Segment::Param => {}
            }
        }
        Some(score)
    }

    /// The declared response for `status`: an exact key wins over a class.
    pub fn response(&self, status: u16) -> Option<&ResponseSpec> {
        self.responses
            .iter()
            .find(|r| r.status == StatusKey::Exact(status))
            .or_else(|| self.responses.iter().find(|r| r.status.matches(status)))
    }

    /// The query parameter called `name`.
    pub fn query_param(&self, name: &str) -> Option<&Param> {
        self.params
            .iter()
            .find(|p| p.location == ParamIn::Query && p.name == name)
    }

    /// Statuses declared, for messages (`200, 400, 4XX`).
    pub fn declared(&self) -> String {
        self.responses
            .iter()
            .map(|r| match r.status {
                StatusKey::Exact(s) => s.to_string(),
                StatusKey::Class(c) => format!("{c}XX"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    }
}

type Problem = (String, String);

fn resolve<'a>(doc: &'a Value, v: &'a Value) -> Result<&'a Value, Problem> {
    match v.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let target = r.strip_prefix('#').and_then(|p| doc.pointer(p));
            target.ok_or_else(|| (String::new(), format!("unresolved $ref `{r}`")))
        }
        None => Ok(v),
    }
}

fn schema_name(v: &Value) -> Option<String> {
    v.get("$ref")?
        .as_str()?
        .strip_prefix("#/components/schemas/")
        .map(str::to_string)
}

/// Reads every operation of `paths`. Errors carry the JSON Pointer of the problem.
pub(crate) fn from_openapi(
    doc: &Value,
    clauses: &Clauses,
    resources: &std::collections::BTreeMap<String, crate::operations::Resource>,
) -> Result<Vec<Route>, Problem> {
    let mut routes = Vec::new();
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return Err(("/paths".into(), "the route table has no paths".into()));
    };
    for (template, item) in paths {
        let at = format!("/paths/{}", template.replace('~', "~0").replace('/', "~1"));
        let api = match item
            .get("x-api")
            .and_then(Value::as_str)
            .and_then(Api::named)
        {
            Some(api) => api,
            None => return Err((at, "x-api must be `v1` or `latest`".into())),
        };
        // The generation names the body; `x-error-body` names only the webhook body.
        let error_body = match item.get("x-error-body").and_then(Value::as_str) {
            None => ErrorBody::of(api),
            Some("webhook") if api == Api::Latest => ErrorBody::Webhook,
            Some(_) => {
                return Err((
                    at,
                    "x-error-body, where given, must be `webhook` on a `latest` path".into(),
                ));
            }
        };
        let area = item
            .get("x-area")
            .and_then(Value::as_str)
            .map(str::to_string);
        let segments = template
            .trim_start_matches('/')
            .split('/')
            .map(|s| {
                if s.starts_with('{') && s.ends_with('}') {
                    Segment::Param
                } else {
                    Segment::Literal(s.to_string())
                }
            })
            .collect::<Vec<_>>();
        let shared_params = item
            .get("parameters")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for method in ["get", "post", "put", "patch", "delete"] {
            let Some(op) = item.get(method) else { continue };
            let op_at = format!("{at}/{method}");
            let clause = op
                .get("x-clause")
                .and_then(Value::as_str)
                .ok_or_else(|| (op_at.clone(), "every operation needs x-clause".to_string()))?;
            check_clause(clauses, clause, &op_at)?;
            let mut params = Vec::new();
            let own = op
                .get("parameters")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default();
            for (i, p) in shared_params.iter().chain(own.iter()).enumerate() {
                let p_at = format!("{op_at}/parameters/{i}");
                let p = resolve(doc, p).map_err(|(_, m)| (p_at.clone(), m))?;
                let name = p
                    .get("name")
                    .and_then(Value::as_str)
                    .ok_or_else(|| (p_at.clone(), "parameter without name".to_string()))?;
                let location = match p.get("in").and_then(Value::as_str) {
                    Some("path") => ParamIn::Path,
                    Some("query") => ParamIn::Query,
                    Some("header") => ParamIn::Header,
                    _ => return Err((p_at, "parameter `in` must be path, query or header".into())),
                };
                let clause = p
                    .get("x-clause")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if let Some(c) = &clause {
                    check_clause(clauses, c, &p_at)?;
                }
                let schema = p
                    .get("schema")
                    .map(|s| inline_refs(doc, s, 0))
                    .transpose()
                    .map_err(|e| (p_at.clone(), e.to_string()))?;
                params.push(Param {
                    name: name.to_string(),
                    location,
                    schema: schema.unwrap_or(Value::Bool(true)),
                    clause,
                });
            }
            let mut responses = Vec::new();
            let Some(resps) = op.get("responses").and_then(Value::as_object) else {
                return Err((op_at, "operation without responses".into()));
            };
            for (key, resp) in resps {
                let r_at = format!("{op_at}/responses/{key}");
                let status = parse_status_key(key)
                    .ok_or_else(|| (r_at.clone(), format!("bad status key `{key}`")))?;
                let resp = resolve(doc, resp).map_err(|(_, m)| (r_at.clone(), m))?;
                let schema = resp
                    .pointer("/content/application~1json/schema")
                    .map(|s| {
                        schema_name(s).ok_or_else(|| {
                            (
                                r_at.clone(),
                                "response schemas must be a $ref to components/schemas".to_string(),
                            )
                        })
                    })
                    .transpose()?;
                let clause = resp
                    .get("x-clause")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                if let Some(c) = &clause {
                    check_clause(clauses, c, &r_at)?;
                }
                responses.push(ResponseSpec {
                    status,
                    schema,
                    clause,
                });
            }
            let path_params: Vec<&str> = params
                .iter()
                .filter(|p| matches!(p.location, ParamIn::Path))
                .map(|p| p.name.as_str())
                .collect();
            let effect = crate::operations::effect(op, &op_at, resources, &path_params, &|c| {
                check_clause(clauses, c, &op_at).is_ok()
            })?;
            // A filter the table states is a query parameter the operation declares: the
            // table says what a stated filter compares, never that a filter exists.
            if let Some(f) = effect.filters.iter().find(|f| {
                !params
                    .iter()
                    .any(|p| matches!(p.location, ParamIn::Query) && p.name == f.param)
            }) {
                return Err((
                    format!("{op_at}/x-effect/filters"),
                    format!(
                        "filter `{}` is not a query parameter of the operation",
                        f.param
                    ),
                ));
            }
            routes.push(Route {
                method: method.to_uppercase(),
                template: template.clone(),
                api,
                area: area.clone(),
                error_body,
                list: op.get("x-list").and_then(Value::as_bool).unwrap_or(false),
                clause: clause.to_string(),
                responses,
                params,
                operation_id: op
                    .get("operationId")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                request_schema: op
                    .pointer("/requestBody/content/application~1json/schema")
                    .map(|s| inline_refs(doc, s, 0))
                    .transpose()
                    .map_err(|e| (op_at.clone(), e.to_string()))?,
                example: op.get("x-example").cloned(),
                access: op.get("x-access").cloned(),
                purpose: op.get("x-purpose").cloned(),
                sends: effect.sends(),
                effect,
                segments: segments.clone(),
            });
        }
    }
    Ok(routes)
}

/// Why a schema's `$ref`s cannot be inlined.
#[derive(Debug, thiserror::Error)]
enum RefError {
    #[error("schema references nest too deep")]
    TooDeep,
    #[error("unresolved $ref `{0}`")]
    Unresolved(String),
}

/// A copy of `schema` with every local `$ref` replaced by its target, which keeps the `$ref`
/// under [`INLINED_FROM`] (the route table's schemas hold no cycles; depth is bounded all the
/// same).
fn inline_refs(doc: &Value, schema: &Value, depth: usize) -> Result<Value, RefError> {
    if depth > 32 {
        return Err(RefError::TooDeep);
    }
    Ok(match schema {
        Value::Object(map) => {
            if let Some(r) = map.get("$ref").and_then(Value::as_str) {
                let target = r
                    .strip_prefix('#')
                    .and_then(|p| doc.pointer(p))
                    .ok_or_else(|| RefError::Unresolved(r.to_string()))?;
                let mut inlined = inline_refs(doc, target, depth + 1)?;
                if let Value::Object(m) = &mut inlined {
                    m.entry(INLINED_FROM).or_insert_with(|| r.into());
                }
                return Ok(inlined);
            }
            let mut out = serde_json::Map::new();
            for (k, v) in map {
                out.insert(k.clone(), inline_refs(doc, v, depth + 1)?);
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(
            items
                .iter()
                .map(|v| inline_refs(doc, v, depth + 1))
                .collect::<Result<_, _>>()?,
        ),
        other => other.clone(),
    })
}

fn check_clause(clauses: &Clauses, clause: &str, at: &str) -> Result<(), Problem> {
    if clauses.contains(clause) {
        Ok(())
    } else {
        Err((
            at.to_string(),
            format!("unknown clause `{clause}` (see schemas/clauses.yaml)"),
        ))
    }
}

fn parse_status_key(key: &str) -> Option<StatusKey> {
    if let Ok(code) = key.parse::<u16>() {
        return (100..600).contains(&code).then_some(StatusKey::Exact(code));
    }
    let b = key.as_bytes();
    (b.len() == 3 && b[0].is_ascii_digit() && b[1..].eq_ignore_ascii_case(b"XX"))
        .then(|| StatusKey::Class(u16::from(b[0] - b'0')))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_ref_that_leads_nowhere_or_round_is_named() {
        let doc = json!({"a": {"$ref": "#/a"}, "b": {"type": "string"}});
        let e = inline_refs(&doc, &json!({"$ref": "#/missing"}), 0).unwrap_err();
        assert_eq!(e.to_string(), "unresolved $ref `#/missing`");
        let e = inline_refs(&doc, &json!({"$ref": "#/a"}), 0).unwrap_err();
        assert_eq!(e.to_string(), "schema references nest too deep");
        let ok = inline_refs(&doc, &json!({"items": {"$ref": "#/b"}}), 0).unwrap();
        assert_eq!(
            ok,
            json!({"items": {"type": "string", (INLINED_FROM): "#/b"}})
        );
    }
}
