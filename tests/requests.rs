//! What the suite sends (READINGS 6): every request of every case, generated cell and property
//! example is audited against the rules, not one trial at a time.

use serde_json::Value;
use workspace_conformance::app::load_catalog;
use workspace_conformance::cases::{Case, Request};
use workspace_conformance::properties::Property;

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

#[test]
fn every_contact_create_sends_default_fields_with_a_first_name() {
    // READINGS 6.3: `defaultFields` with a `firstName` on every contact create, so a must-reject
    // case fails for its own reason, not for a field it left out (6.9).
    let (_, cases) = load_catalog(None).expect("catalog");
    let mut seen = 0;
    for case in &cases {
        for (name, r) in requests(case) {
            if r.method == "POST" && r.path == "/v1/contacts" {
                seen += 1;
                let first = r
                    .body
                    .as_ref()
                    .and_then(|b| b.pointer("/defaultFields/firstName"))
                    .and_then(Value::as_str);
                assert!(
                    first.is_some_and(|f| !f.trim().is_empty()),
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
    let (_, cases) = load_catalog(None).expect("catalog");
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
