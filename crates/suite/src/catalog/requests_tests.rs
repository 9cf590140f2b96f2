//! What the suite sends (READINGS 6): every request of every case, generated cell and property
//! example is audited against the rules, not one trial at a time.

use crate::cases::audit;
use crate::cases::properties::Property;
use crate::cases::{Case, Request};
use crate::catalog;
use serde_json::Value;

/// Every request a case can send, with where it comes from.
fn requests(case: &Case) -> Vec<(String, Request)> {
    let mut out: Vec<(String, Request)> = case
        .steps
        .iter()
        .filter_map(|s| s.request.clone())
        .map(|r| (case.name.clone(), r))
        .collect();
    if let Some(p) = &case.property {
        if let Property::Limit(l) = p.as_ref() {
            for s in &l.example.setup {
                if let Some(r) = &s.request {
                    out.push((format!("{} (setup)", case.name), r.clone()));
                }
            }
            out.push((
                format!("{} (example)", case.name),
                l.example.request.clone(),
            ));
        }
    }
    out
}

/// The problems an audit finds over the whole catalog, one per line.
fn audit(check: fn(&Case, &conformance_contract::Contract) -> Vec<String>) -> Vec<String> {
    let (contract, cases) = catalog::load(None).expect("catalog");
    let mut found: Vec<String> = cases.iter().flat_map(|c| check(c, &contract)).collect();
    found.sort();
    found.dedup();
    found
}

#[test]
fn no_invented_id_where_more_than_not_found_is_expected() {
    // READINGS 6.6: a target may validate an id's prefix (400) or route only the id shapes it
    // issues (404 before it reads the key), so an invented id shows nothing about access,
    // versioning or acceptance. Every id of a case, generated cell, control, read-back and
    // property example is a profile fixture or a value saved from an answer, except where a 404
    // is expected (then with the stated prefix of its kind) or where the id is the defect a
    // must-reject step's control takes away.
    let found = audit(audit::invented_ids);
    assert!(
        found.is_empty(),
        "{} invented ids (see docs/writing-cases.md):\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn every_page_size_is_inside_its_lists_range() {
    // READINGS 4.4: the list's stated range (a Limits row holds for both generations), else the
    // narrowest stated for any list (1-50), but where the size is a must-reject step's defect.
    let found = audit(audit::page_sizes);
    assert!(
        found.is_empty(),
        "{} page sizes outside their list's range:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn every_request_sends_the_fields_its_purpose_implies() {
    // READINGS 6.3: a phone number and participants on v1 message and call lists, a first name on
    // a contact create, a title and a link on a task create, a title and a description on a task
    // PUT; generated cells and controls too, so a target that validates first still answers for
    // the key, the version or the defect under test (but the cells whose body is the point: the
    // key is checked before a body of the wrong types, `audit::BODY_AFTER_KEY`).
    let found = audit(audit::purpose_fields);
    assert!(
        found.is_empty(),
        "{} requests without a field their purpose implies:\n{}",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn every_contact_create_sends_default_fields_with_a_first_name() {
    // READINGS 6.3: `defaultFields` with a `firstName` on every contact create, so a must-reject
    // case fails for its own reason, not for a field it left out (6.9).
    let (_, cases) = catalog::load(None).expect("catalog");
    let mut seen = 0;
    for case in cases.iter().filter(|c| !audit::body_after_key(c)) {
        for (name, r) in requests(case) {
            if r.method == "POST" && r.path == "/v1/contacts" {
                seen += 1;
                let first = r
                    .body
                    .as_ref()
                    .and_then(|b| b.pointer("/defaultFields/firstName"))
                    .and_then(Value::as_str);
                // A body that is not JSON (a not-json cell) is the JSON body cut: it names one.
                let in_text = r
                    .raw_body
                    .as_ref()
                    .is_some_and(|t| t.contains(r#""firstName":"#));
                assert!(
                    in_text || first.is_some_and(|f| !f.trim().is_empty()),
                    "{name}: contact create without defaultFields.firstName: {:?}",
                    r.body
                );
            }
        }
    }
    assert!(seen >= 60, "only {seen} contact creates found");
}

#[test]
fn a_404_counts_as_accepted_only_where_a_place_names_resources_and_the_route_declares_it() {
    // READINGS 6.6: 100 distinct phone numbers are more than a profile gives; nowhere else.
    let (_, cases) = catalog::load(None).expect("catalog");
    let mut with = Vec::new();
    for case in &cases {
        if let Some(Property::Limit(l)) = case.property.as_deref() {
            if let Some(either) = &l.accept_invented {
                assert!(either.allows(404), "{}", case.name);
                with.push(case.name.clone());
            }
        }
    }
    assert_eq!(
        with,
        ["v1.properties.listConversationsV1.phoneNumbers.count"],
        "places whose invented values may get 404"
    );
}

/// Must-reject trials by how they prove their reason (READINGS 6.9), and those that do not.
fn must_reject_kinds() -> (
    std::collections::BTreeMap<&'static str, usize>,
    Vec<String>,
    usize,
) {
    use crate::cases::reasons::must_reject_steps;
    let (contract, cases) = catalog::load(None).expect("catalog");
    let mut kinds = std::collections::BTreeMap::new();
    let mut without = Vec::new();
    let mut properties = 0;
    for case in &cases {
        if let Some(p) = &case.property {
            properties += usize::from(matches!(p.as_ref(), Property::Limit(_)));
            continue;
        }
        for (i, reason) in must_reject_steps(case, &contract) {
            match reason {
                Some(r) => *kinds.entry(r.describe()).or_insert(0) += 1,
                None => without.push(format!(
                    "{} step {} ({}:{})",
                    case.name,
                    i + 1,
                    case.file,
                    case.steps[i].line
                )),
            }
        }
    }
    (kinds, without, properties)
}

#[test]
fn every_must_reject_step_proves_its_reason() {
    // READINGS 6.9: a 400 for a field the target requires and the case left out is no pass. Each
    // must-reject step has a control (the same request without the defect, accepted), or expects
    // the code or title a rule names for the condition, or is refused for a limit or a state the
    // case shows.
    let (kinds, without, _) = must_reject_kinds();
    assert!(
        without.is_empty(),
        "{} must-reject steps prove no reason (add `control:`, see docs/writing-cases.md):\n{}",
        without.len(),
        without.join("\n")
    );
    assert!(kinds.values().sum::<usize>() >= 100, "{kinds:?}");
}

#[test]
fn the_readme_gives_the_must_reject_figures() {
    // The docs' table (docs/writing-cases.md) of must-reject steps by how they prove their reason is the catalog's.
    let (kinds, without, properties) = must_reject_kinds();
    let missing = rows_the_readme_lacks(
        &kinds,
        &[
            format!(
                "| property trials: must-reject inputs beside must-accept inputs of the same request | {properties} |"
            ),
            format!("| without a way (fails `cargo test`) | {} |", without.len()),
        ],
    );
    assert!(
        missing.is_empty(),
        "docs/writing-cases.md lacks these rows (section 'Must-reject cases'):\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_list_request_names_max_results_where_no_default_is_stated() {
    // READINGS 6.3: `maxResults` on every list whose default page size is not stated (only the
    // contacts list states one, 10); only a case about that default leaves it out.
    let (contract, cases) = catalog::load(None).expect("catalog");
    let mut without = Vec::new();
    let mut seen = 0;
    for case in &cases {
        for (name, r) in requests(case) {
            if r.method != "GET" || r.path.starts_with("{{") {
                continue;
            }
            let concrete = r
                .path
                .split('/')
                .map(|s| if s.contains("{{") { "x" } else { s })
                .collect::<Vec<_>>()
                .join("/");
            let Some(route) = contract.route("GET", &concrete) else {
                continue;
            };
            if route.query_param("maxResults").is_none() {
                continue;
            }
            seen += 1;
            let stated_default = route.template == "/v1/contacts";
            if !r.query.contains_key("maxResults") && !stated_default {
                without.push(format!("{name}: GET {}", r.path));
            }
        }
    }
    without.sort();
    without.dedup();
    assert!(
        without.is_empty(),
        "{} list requests without maxResults:\n{}",
        without.len(),
        without.join("\n")
    );
    assert!(seen >= 50, "only {seen} list requests");
}

/// The accepted state-changing steps of the catalog by how their case shows the effect, and the
/// steps that show none.
fn effect_kinds() -> (std::collections::BTreeMap<&'static str, usize>, Vec<String>) {
    use crate::cases::effects::state_changes;
    let (_, cases) = catalog::load(None).expect("catalog");
    let mut kinds = std::collections::BTreeMap::new();
    let mut without = Vec::new();
    for case in &cases {
        for (i, effect) in state_changes(case) {
            match effect {
                Some(e) => *kinds.entry(e.describe()).or_insert(0) += 1,
                None => {
                    let r = case.steps[i].request.as_ref().expect("a request");
                    without.push(format!(
                        "{} step {}: {} {} ({}:{})",
                        case.name,
                        i + 1,
                        r.method,
                        r.path,
                        case.file,
                        case.steps[i].line
                    ))
                }
            }
        }
    }
    (kinds, without)
}

#[test]
fn every_state_change_is_read_back() {
    // READINGS 2.3, principle 10 (docs/architecture.md): a 2xx is not proof of a transition. Each accepted step that
    // changes state is read back (`read_back:` or a later read of the resource), or its effect
    // is a delivery, its answer, a limit, or what the rest of the case works on.
    let (kinds, without) = effect_kinds();
    assert!(
        without.is_empty(),
        "{} state-changing steps whose effect no step reads back (add `read_back:`, see docs/writing-cases.md):\n{}",
        without.len(),
        without.join("\n")
    );
    assert!(kinds.values().sum::<usize>() >= 100, "{kinds:?}");
}

#[test]
fn the_readme_gives_the_read_back_figures() {
    // The docs' table (docs/writing-cases.md) of state-changing steps by how their effect is shown is the catalog's.
    let (kinds, without) = effect_kinds();
    let missing = rows_the_readme_lacks(
        &kinds,
        &[format!(
            "| without a read (fails `cargo test`) | {} |",
            without.len()
        )],
    );
    assert!(
        missing.is_empty(),
        "docs/writing-cases.md lacks these rows (section 'State changes are read back'):\n{}",
        missing.join("\n")
    );
}

/// The rows `| kind | count |` of `kinds`, and the `extra` rows, that the README and docs pages do not hold.
fn rows_the_readme_lacks(
    kinds: &std::collections::BTreeMap<&'static str, usize>,
    extra: &[String],
) -> Vec<String> {
    let readme = concat!(
        include_str!("../../../../README.md"),
        include_str!("../../../../docs/running.md"),
        include_str!("../../../../docs/reports.md"),
        include_str!("../../../../docs/profile.md"),
        include_str!("../../../../docs/reference.md"),
        include_str!("../../../../docs/writing-cases.md"),
        include_str!("../../../../docs/self-proof.md")
    );
    kinds
        .iter()
        .map(|(kind, n)| format!("| {kind} | {n} |"))
        .chain(extra.iter().cloned())
        .filter(|row| !readme.contains(row.as_str()))
        .collect()
}
