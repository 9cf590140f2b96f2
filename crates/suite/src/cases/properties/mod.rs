//! Boundary properties generated from the route table, and round-trip properties.
//!
//! Every operation with an `x-example` (a valid request) gets one property per constrained place
//! its example fills: the query and path parameters of the route and the request body fields. A
//! property sends the boundary values (valid on and just inside each bound, invalid just outside)
//! and random values on either side drawn from a seeded proptest strategy; a failing random input
//! is shrunk to a minimal one. Valid inputs must be accepted, invalid ones rejected with 400 where
//! the endpoint declares 400, else any 4xx (READINGS 2.4), with the error body of the generation.
//! A constraint added to the route table gets its property without new code.

pub mod generate;

use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Deserialize;
use serde_json::{Map, Value};

pub(crate) use crate::cases::constraint::Constraint;
pub use crate::cases::constraint::{self};
pub(crate) use crate::cases::model::Cleanup;
pub use crate::cases::model::{Example, Limit, Property, Relation, Target};
use crate::cases::template::BUILTINS;
use crate::cases::template::{names_in_str, names_in_value};
use crate::cases::{Case, Expect, Request, Step};
use conformance_contract::Api;
use conformance_contract::profile::KNOWN_FIXTURES;
use conformance_contract::{Contract, ParamIn, Route, StatusKey};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ExampleDoc {
    #[serde(default)]
    setup: Vec<SetupDoc>,
    request: RequestDoc,
    #[serde(default)]
    cleanup: Option<Cleanup>,
    #[serde(default)]
    unique: Vec<String>,
    #[serde(default)]
    only: Vec<String>,
    #[serde(default)]
    items: std::collections::BTreeMap<String, Value>,
    #[serde(default)]
    resources: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetupDoc {
    request: Request,
    #[serde(default)]
    expect: Option<Expect>,
    #[serde(default)]
    save: Map<String, Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RequestDoc {
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    query: Map<String, Value>,
    #[serde(default)]
    headers: Map<String, Value>,
    #[serde(default)]
    body: Option<Value>,
}

/// An `x-example` no property can be made from: the operation (its `operationId`, or method and
/// path template), and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{op}: {kind}")]
pub struct ExampleError {
    pub op: String,
    pub kind: ExampleErrorKind,
}

/// What is wrong with an `x-example`.
#[derive(Debug, thiserror::Error)]
pub enum ExampleErrorKind {
    #[error("bad x-example: {0}")]
    Shape(#[source] serde_json::Error),
    #[error("x-example needs `request.path` to fill the path parameters")]
    NoPath,
    #[error(
        "x-example names `{{{{{name}}}}}`, which is neither saved by its setup nor a known fixture"
    )]
    UnknownName { name: String },
}

fn parse_example(route: &Route, doc: &Value) -> Result<Example, ExampleErrorKind> {
    let doc: ExampleDoc = serde_json::from_value(doc.clone()).map_err(ExampleErrorKind::Shape)?;
    let setup = doc
        .setup
        .into_iter()
        .map(|s| Step {
            clauses: Vec::new(),
            request: Some(s.request),
            deliveries: None,
            secret: None,
            expect: s.expect.unwrap_or_default(),
            save: s
                .save
                .into_iter()
                .map(|(k, v)| (k, v.as_str().unwrap_or_default().to_string()))
                .collect(),
            repeat: None,
            for_each: None,
            precondition: None,
            always: false,
            control_of: None,
            unchanged: None,
            poll: false,
            read_back_of: None,
            line: 0,
        })
        .collect();
    let path = match doc.request.path {
        Some(p) => p,
        None if !route.template.contains('{') => route.template.clone(),
        None => return Err(ExampleErrorKind::NoPath),
    };
    Ok(Example {
        setup,
        request: Request {
            method: route.method.clone(),
            path,
            query: doc.request.query,
            headers: doc.request.headers,
            body: doc.request.body,
            raw_body: None,
            auth: None,
            version: None,
        },
        cleanup: doc.cleanup,
        unique: doc.unique,
        only: doc.only,
        items: doc.items,
        resources: doc.resources,
    })
}

/// `accept_invented` of a place: where it names resources (`x-example.resources`) and the route
/// declares 404, a valid input naming something the workspace lacks may get 404 (READINGS 6.6).
fn invented_status(
    route: &Route,
    example: &Example,
    target: &Target,
) -> Option<crate::cases::StatusExpect> {
    let place = match target {
        Target::Query(name) => name.as_str(),
        Target::Body(pointer) => pointer.as_str(),
        Target::Path(_) => return None,
    };
    let declares_404 = route
        .responses
        .iter()
        .any(|r| r.status == StatusKey::Exact(404));
    (declares_404 && example.resources.iter().any(|r| r == place)).then(|| {
        crate::cases::StatusExpect::Any(vec![
            success_status(route),
            crate::cases::StatusExpect::Code(404),
        ])
    })
}

fn success_status(route: &Route) -> crate::cases::StatusExpect {
    use crate::cases::StatusExpect;
    let exact: Vec<u16> = route
        .responses
        .iter()
        .filter_map(|r| match r.status {
            StatusKey::Exact(s) if (200..300).contains(&s) => Some(s),
            _ => None,
        })
        .collect();
    let accepted = match exact.as_slice() {
        [one] => StatusExpect::Code(*one),
        _ => StatusExpect::Class("2xx".into()),
    };
    // A 409 Conflict says a valid value is taken, not that it is invalid.
    if route
        .responses
        .iter()
        .any(|r| r.status == StatusKey::Exact(409))
    {
        StatusExpect::Any(vec![accepted, StatusExpect::Code(409)])
    } else {
        accepted
    }
}

/// What an invalid input gets (READINGS 2.4): 400 where the endpoint declares it, else any 4xx.
pub(crate) fn reject_status(route: &Route) -> crate::cases::StatusExpect {
    use crate::cases::StatusExpect;
    if route
        .responses
        .iter()
        .any(|r| r.status == StatusKey::Exact(400))
    {
        StatusExpect::Code(400)
    } else {
        StatusExpect::Class("4xx".into())
    }
}

/// Every template name the example uses.
fn names_of(example: &Example) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    let mut requests: Vec<&Request> = example
        .setup
        .iter()
        .filter_map(|s| s.request.as_ref())
        .collect();
    requests.push(&example.request);
    for template in example.items.values() {
        names_in_value(template, &mut used);
    }
    for r in requests {
        names_in_str(&r.path, &mut used);
        for (k, v) in &r.query {
            names_in_str(k, &mut used);
            names_in_value(v, &mut used);
        }
        if let Some(b) = &r.body {
            names_in_value(b, &mut used);
        }
    }
    used
}

fn fixtures_of(example: &Example) -> Result<BTreeSet<String>, ExampleErrorKind> {
    let used = names_of(example);
    let mut saved: BTreeSet<String> = BUILTINS.iter().map(|s| s.to_string()).collect();
    for s in &example.setup {
        saved.extend(s.save.iter().map(|(k, _)| k.clone()));
    }
    let mut out = BTreeSet::new();
    for name in used.difference(&saved) {
        if KNOWN_FIXTURES.iter().any(|(f, _)| f == name) {
            out.insert(name.clone());
        } else {
            return Err(ExampleErrorKind::UnknownName { name: name.clone() });
        }
    }
    Ok(out)
}

fn field_name(pointer: &str) -> String {
    pointer
        .split('/')
        .filter(|s| !s.is_empty() && s.parse::<usize>().is_err())
        .collect::<Vec<_>>()
        .join(".")
}

/// The property trials of the contract. Errors name the operation whose `x-example` is wrong.
pub fn cases(contract: &Contract) -> Result<Vec<Case>, ExampleError> {
    let mut out = Vec::new();
    for route in &contract.routes {
        let Some(doc) = &route.example else { continue };
        let op = route
            .operation_id
            .clone()
            .unwrap_or_else(|| format!("{} {}", route.method, route.template));
        let example = parse_example(route, doc).map_err(|kind| ExampleError {
            op: op.clone(),
            kind,
        })?;
        let fixtures = fixtures_of(&example).map_err(|kind| ExampleError {
            op: op.clone(),
            kind,
        })?;
        // A webhook created by a property points at the run's receiver, like a case's.
        let uses_receiver = names_of(&example).contains("webhook_url");
        let mut limits: Vec<(String, Option<String>, Limit)> = Vec::new();
        let base =
            |target: Target, wrap: bool, constraint: Constraint, schema: Value, field: String| {
                let accept_invented = invented_status(route, &example, &target);
                Limit {
                    example: example.clone(),
                    target,
                    wrap_in_array: wrap,
                    constraint,
                    schema,
                    field,
                    accept: success_status(route),
                    reject: reject_status(route),
                    accept_invented,
                }
            };
        let segments: Vec<&str> = route.template.trim_start_matches('/').split('/').collect();
        for p in &route.params {
            let target = match p.location {
                ParamIn::Query => Target::Query(p.name.clone()),
                ParamIn::Path => match segments
                    .iter()
                    .position(|s| *s == format!("{{{}}}", p.name))
                {
                    Some(i) => Target::Path(i),
                    None => continue,
                },
                ParamIn::Header => continue,
            };
            // A filter of a header-versioned collection (`field=value`, `field[in]=...`) with a
            // value outside its pattern is a value no item holds: whether a target refuses it or
            // lists nothing is not stated (its error list is a class, 4XX).
            if route.api == conformance_contract::Api::Latest
                && p.clause.as_deref().is_some_and(|c| {
                    c == "Pagination and collection conventions > filters"
                        || c == "Pagination and collection conventions > in operator"
                })
            {
                continue;
            }
            let example_value = example.request.query.get(&p.name);
            for c in constraint::of_schema(&p.schema, example_value, &contract.e164) {
                limits.push((
                    p.name.clone(),
                    p.clause.clone(),
                    base(target.clone(), false, c, p.schema.clone(), p.name.clone()),
                ));
            }
            if p.schema.get("type").and_then(Value::as_str) == Some("array") {
                if let Some(items) = p.schema.get("items") {
                    for c in constraint::of_schema(items, None, &contract.e164) {
                        limits.push((
                            format!("{}.item", p.name),
                            p.clause.clone(),
                            base(target.clone(), true, c, items.clone(), p.name.clone()),
                        ));
                    }
                }
            }
        }
        if let (Some(schema), Some(body)) = (&route.request_schema, &example.request.body) {
            for (pointer, c, leaf) in constraint::of_body(schema, body, &contract.e164) {
                let clause = leaf
                    .get("x-clause")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let field = field_name(&pointer);
                limits.push((
                    field.clone(),
                    clause,
                    base(Target::Body(pointer), false, c, leaf, field),
                ));
            }
        }
        let probed = |limit: &Limit| match &limit.target {
            _ if example.only.is_empty() => true,
            Target::Body(pointer) => example.only.contains(pointer),
            Target::Query(_) | Target::Path(_) => example.only.contains(&limit.field),
        };
        limits.retain(|(_, _, limit)| probed(limit));
        for (field, clause, limit) in limits {
            let clauses = vec![clause.unwrap_or_else(|| route.clause.clone())];
            out.push(Case {
                name: format!(
                    "{}.properties.{op}.{field}.{}",
                    route.api.as_str(),
                    limit.constraint.kind()
                ),
                api: route.api,
                area: "properties".into(),
                clauses,
                readings: vec!["2.4".into()],
                summary: Some(format!(
                    "{} of {op} is {}",
                    limit.field,
                    limit.constraint.describe()
                )),
                tags: vec!["property".into()],
                // What a send changes, other trials may be listing.
                exclusive: route.sends,
                needs: Vec::new(),
                read_only: route.method == "GET"
                    && example
                        .setup
                        .iter()
                        .all(|s| s.request.as_ref().is_none_or(|r| r.method == "GET")),
                steps: Vec::new(),
                fixtures: fixtures.clone(),
                file: format!("schemas/openapi.yaml (x-example of {op})"),
                line: 0,
                property: Some(Arc::new(Property::Limit(Box::new(limit)))),
                receiver: Vec::new(),
                uses_receiver,
                setups: Vec::new(),
                uses: None,
            });
        }
    }
    if contract.route("POST", "/v1/contacts").is_some()
        && contract.route("GET", "/contacts/x").is_some()
    {
        out.push(Case {
            name: "latest.properties.contacts.round-trip".into(),
            api: Api::Latest,
            area: "properties".into(),
            clauses: vec![
                "Resources > Contact".into(),
                "v1 API: contacts > PATCH /v1/contacts/{id}".into(),
                "Header-versioned API > GET /contacts/{contactId}".into(),
            ],
            readings: vec!["1.3".into(), "2.6".into()],
            summary: Some(
                "Random valid contacts read back equal through create, get, list and PATCH.".into(),
            ),
            tags: vec!["property".into()],
            exclusive: false,
            needs: Vec::new(),
            read_only: false,
            steps: Vec::new(),
            fixtures: ["custom_field_key", "custom_field_value"]
                .into_iter()
                .map(str::to_string)
                .collect(),
            file: "src/execute/roundtrip.rs".into(),
            line: 0,
            property: Some(Arc::new(Property::ContactRoundTrip)),
            receiver: Vec::new(),
            uses_receiver: false,
            setups: Vec::new(),
            uses: None,
        });
    }
    out.extend(sequences());
    out.extend(relations());
    Ok(out)
}

/// The relations trials (`execute::relations`): read-only, one per relation.
fn relations() -> Vec<Case> {
    [
        (Relation::PageSizes, "page-sizes", "Pagination and collection conventions > pageToken",
         "A walk at a small page size lists every item that walks at the largest page size list before and after it; a page token the list did not issue (another list's, its own altered) gets a page or a refusal, never a server error."),
        (Relation::Instants, "instants-at-other-offsets", "Pagination and collection conventions > filters",
         "A time filter given at another offset than UTC is refused or lists what the same instant in UTC lists."),
        (Relation::Sets, "several-filter-values", "v1 API: conversations > GET /v1/conversations > phoneNumbers",
         "A filter of several values lists every item each value alone lists."),
        (Relation::Assignments, "assignments-both-ways", "Header-versioned API > GET /users/{userId}/phone-numbers",
         "The numbers of a user and the users of a number agree."),
        (Relation::Shown, "listed-items-read", "Endpoints > answers",
         "What a list shows can be read by its id on every route that reads its kind, and its parts listed; what an include adds agrees with the same include on the read."),
    ]
    .into_iter()
    .map(|(relation, id, clause, summary)| Case {
        name: format!("latest.relations.{id}"),
        api: Api::Latest,
        area: "relations".into(),
        clauses: vec![clause.into()],
        readings: vec!["4.2".into(), "5.2".into()],
        summary: Some(summary.into()),
        tags: vec!["property".into(), "relation".into()],
        exclusive: false,
        needs: Vec::new(),
        read_only: true,
        steps: Vec::new(),
        fixtures: BTreeSet::new(),
        file: "src/execute/relations.rs".into(),
        line: 0,
        property: Some(Arc::new(Property::Relations(relation))),
        receiver: Vec::new(),
        uses_receiver: false,
        setups: Vec::new(),
        uses: None,
    })
    .collect()
}

/// Sequence trials in the default run: each carries its share of the pairs of operation and
/// situation the operation table yields (`--depth` runs more rounds of each share, in other
/// orders and with other values).
pub const SEQUENCE_TRIALS: usize = 8;

/// The sequence trials (`cases::situations`, run by `execute::sequences`).
fn sequences() -> Vec<Case> {
    (1..=SEQUENCE_TRIALS)
        .map(|n| Case {
            name: format!("latest.sequences.{n}"),
            api: Api::Latest,
            area: "sequences".into(),
            clauses: vec![
                "Resources > Task".into(),
                "States and transitions > Task > assign and unassign".into(),
                "Resources > Contact".into(),
                "v1 API: messages > POST /v1/messages".into(),
                "Header-versioned API > webhook management".into(),
                "Pagination and collection conventions > filters".into(),
                "Pagination and collection conventions > pageToken".into(),
                "Authentication > 3".into(),
            ],
            readings: vec![
                "1.3".into(),
                "2.6".into(),
                "4.2".into(),
                "6.6".into(),
                "6.7".into(),
                "6.10".into(),
                "6.11".into(),
            ],
            summary: Some(
                "Sequences generated from the operation table: every operation it describes put in every situation it yields (read back everywhere it shows, repeated, one field changed, values of each class of its fields' domains, one constraint broken, each actor, each body shape, a write during a walk, each filter value alone and combined), on the run's own resources; the model, the rules and the delivery predictions judge every answer."
                    .into(),
            ),
            tags: vec!["property".into(), "sequence".into()],
            exclusive: false,
            needs: Vec::new(),
            read_only: false,
            steps: Vec::new(),
            fixtures: ["phone_number_id"].into_iter().map(str::to_string).collect(),
            file: "src/cases/sequence.rs".into(),
            line: 0,
            property: Some(Arc::new(Property::Sequence {
                index: n - 1,
                of: SEQUENCE_TRIALS,
            })),
            receiver: Vec::new(),
            uses_receiver: true,
            setups: Vec::new(),
            uses: None,
        })
        .collect()
}
