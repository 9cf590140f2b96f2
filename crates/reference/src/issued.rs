//! Variant `issued-ids-only` (READINGS 6.6, 6.8): the reference routes only the id shapes it
//! issues, as a router with typed path segments does, and answers 404 to any other id before it
//! looks at the key. The contract leaves the shapes of contact and task ids open, so an id the
//! suite invents for them names nothing such a target serves; ids of a kind with a stated prefix
//! are routed when they carry it.

use conformance_contract::{ParamIn, Route};

use super::store::IdShapes;
use super::task_store::issues_task_id;

/// The stated prefix of a path parameter, where its pattern is one: `^` and capital letters,
/// optionally followed by `(.*)$` (webhook ids, all digits, are no prefix).
fn stated_prefix<'a>(route: &'a Route, name: &str) -> Option<&'a str> {
    let pattern = route
        .params
        .iter()
        .find(|p| p.location == ParamIn::Path && p.name == name)?
        .schema
        .get("pattern")?
        .as_str()?
        .strip_prefix('^')?;
    let end = pattern
        .find(|c: char| !c.is_ascii_uppercase())
        .unwrap_or(pattern.len());
    let (prefix, rest) = pattern.split_at(end);
    (!prefix.is_empty() && ["", "(.*)$", ".*"].contains(&rest)).then_some(prefix)
}

/// Why `path`, a concrete path of `route`, names nothing the reference could have issued.
pub(crate) fn unissued(route: &Route, path: &str, shapes: &IdShapes) -> Option<String> {
    let template = route.template.trim_start_matches('/').split('/');
    let parts = path.trim_start_matches('/').split('/');
    let mut previous = "";
    for (seg, raw) in template.zip(parts) {
        let Some(name) = seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) else {
            previous = seg;
            continue;
        };
        let value = percent_encoding::percent_decode_str(raw).decode_utf8_lossy();
        let (kind, issued) = match previous {
            "contacts" => ("contact", Some(shapes.issues_contact_id(&value))),
            "tasks" => ("task", Some(issues_task_id(&value))),
            _ => (
                name,
                stated_prefix(route, name).map(|p| value.starts_with(p)),
            ),
        };
        if issued == Some(false) {
            return Some(format!(
                "no {kind} '{value}': not an id of a shape this workspace issues"
            ));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use conformance_contract::Contract;

    fn route<'a>(c: &'a Contract, method: &str, path: &str) -> &'a Route {
        c.route(method, path).expect("a route")
    }

    #[test]
    fn only_issued_shapes_and_stated_prefixes_are_routed() {
        let c = Contract::embedded().expect("contract");
        let plain = IdShapes::default();
        let uuid = IdShapes {
            contact_uuid: true,
            ..IdShapes::default()
        };
        let contact = "65a1b2c30000000000000001";
        let p = format!("/v1/contacts/{contact}");
        assert_eq!(unissued(route(&c, "PATCH", &p), &p, &plain), None);
        let p = "/contacts/r1234567-absent";
        assert!(unissued(route(&c, "GET", p), p, &plain).is_some());
        let id = "65a1b2c3-0000-4000-8000-000000000001";
        let p = format!("/contacts/{id}");
        assert!(unissued(route(&c, "GET", &p), &p, &plain).is_some());
        assert_eq!(unissued(route(&c, "GET", &p), &p, &uuid), None);
        // Seeded contacts keep the default shape under the UUID variant.
        let p = format!("/contacts/{contact}");
        assert_eq!(unissued(route(&c, "GET", &p), &p, &uuid), None);
        let p = "/v1/tasks/TK65a1b2c300000001/complete";
        assert_eq!(unissued(route(&c, "POST", p), p, &plain), None);
        for p in [
            "/v1/tasks/r1234567-no-such-task",
            "/v1/tasks/TK65A1B2C300000001",
        ] {
            assert!(unissued(route(&c, "GET", p), p, &plain).is_some(), "{p}");
        }
        // Stated prefixes: routed with the prefix, whatever follows it.
        assert_eq!(
            unissued(
                route(&c, "GET", "/v1/calls/ACabsent"),
                "/v1/calls/ACabsent",
                &plain
            ),
            None
        );
        let why = unissued(
            route(&c, "GET", "/v1/calls/r1234567"),
            "/v1/calls/r1234567",
            &plain,
        );
        assert_eq!(
            why.as_deref(),
            Some("no callId 'r1234567': not an id of a shape this workspace issues")
        );
        let p = "/conversations/r1/mark-as-read";
        assert!(unissued(route(&c, "POST", p), p, &plain).is_some());
        // Webhook ids have a stated pattern, not a prefix: their 400 is the handler's.
        let p = "/webhooks/abc";
        assert_eq!(unissued(route(&c, "GET", p), p, &plain), None);
        let p = "/webhooks/1001/events/whatever";
        assert_eq!(unissued(route(&c, "GET", p), p, &plain), None);
    }
}
