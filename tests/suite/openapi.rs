//! The exported contract (`schemas/openapi.yaml`) drives the tools it names as written: it passes
//! the official OpenAPI 3.1 meta-schema (vendored: no network in tests), declares the API key
//! scheme for every operation, and avoids what Specmatic's parser cannot load (YAML aliases, an
//! enum or const without `type`) and what Spectral's `oas` ruleset refuses (an array without
//! `items`).

use conformance_contract::yaml;
use serde_json::Value;

const OPENAPI: &str = include_str!("../../schemas/openapi.yaml");
/// The OpenAPI Initiative's 3.1 schema (id `https://spec.openapis.org/oas/3.1/schema/2022-10-07`),
/// as the PyPI package openapi-spec-validator 0.9.0 ships it.
const META: &str = include_str!("../../schemas/vendor/openapi-3.1.schema.json");

fn document() -> Value {
    yaml::parse(OPENAPI).expect("schemas/openapi.yaml parses").0
}

const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

#[test]
fn the_document_passes_the_openapi_3_1_meta_schema() {
    let meta: Value = serde_json::from_str(META).expect("the meta-schema is JSON");
    assert_eq!(
        meta["$id"], "https://spec.openapis.org/oas/3.1/schema/2022-10-07",
        "the vendored meta-schema is the official 3.1 one"
    );
    let validator = jsonschema::validator_for(&meta).expect("the meta-schema compiles");
    let doc = document();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The meta-schema can fail: a document without `info` does not pass.
    let mut broken = doc.clone();
    broken.as_object_mut().expect("object").remove("info");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn every_operation_declares_the_api_key_scheme() {
    let doc = document();
    let schemes = doc["components"]["securitySchemes"]
        .as_object()
        .expect("securitySchemes");
    let key: Vec<&String> = schemes
        .iter()
        .filter(|(_, s)| {
            s["type"] == "apiKey" && s["in"] == "header" && s["name"] == "Authorization"
        })
        .map(|(name, _)| name)
        .collect();
    assert_eq!(
        key.len(),
        1,
        "one apiKey scheme in the Authorization header"
    );
    let names = |security: &Value| -> Vec<String> {
        security
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .flat_map(|o| o.keys().cloned())
            .collect()
    };
    let global = names(&doc["security"]);
    let mut operations = 0;
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in METHODS {
            let Some(op) = item.get(*method) else {
                continue;
            };
            operations += 1;
            let effective = match op.get("security") {
                Some(own) => names(own),
                None => global.clone(),
            };
            assert!(
                effective.contains(key[0]),
                "{method} {path} does not declare the API key scheme"
            );
        }
    }
    assert!(operations > 50, "{operations} operations");
}

/// Every schema object below `node`, with its JSON Pointer (extensions `x-...` skipped: they
/// hold case data, not schemas).
fn walk<'a>(
    node: &'a Value,
    at: String,
    out: &mut Vec<(String, &'a serde_json::Map<String, Value>)>,
) {
    match node {
        Value::Object(map) => {
            out.push((at.clone(), map));
            for (k, v) in map {
                if !k.starts_with("x-") {
                    walk(
                        v,
                        format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                        out,
                    );
                }
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                walk(v, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
}

#[test]
fn every_enum_and_const_has_a_type_and_every_array_items() {
    let doc = document();
    let mut objects = Vec::new();
    walk(&doc, String::new(), &mut objects);
    let mut problems = Vec::new();
    for (at, o) in &objects {
        if (o.contains_key("enum") || o.contains_key("const")) && !o.contains_key("type") {
            problems.push(format!("{at}: enum or const without type"));
        }
        let is_array = match o.get("type") {
            Some(Value::String(t)) => t == "array",
            Some(Value::Array(ts)) => ts.iter().any(|t| t == "array"),
            _ => false,
        };
        if is_array && !o.contains_key("items") && !o.contains_key("prefixItems") {
            problems.push(format!("{at}: array without items"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_document_has_no_yaml_anchors_or_aliases() {
    let token = regex::Regex::new(r#"(^|[\s\[{,])[&*][A-Za-z0-9_-]+"#).expect("regex");
    let quoted = regex::Regex::new(r#""(?:[^"\\]|\\.)*"|'[^']*'"#).expect("regex");
    for (i, line) in OPENAPI.lines().enumerate() {
        let code = line.split(" #").next().unwrap_or("");
        if code.trim_start().starts_with('#') {
            continue;
        }
        let bare = quoted.replace_all(code, "\"\"");
        assert!(
            !token.is_match(&bare),
            "schemas/openapi.yaml:{}: a YAML anchor or alias (Specmatic's parser leaves aliased nodes empty): {line}",
            i + 1
        );
    }
    // The check can fail.
    assert!(token.is_match("      responses: *mark-v1"));
}
