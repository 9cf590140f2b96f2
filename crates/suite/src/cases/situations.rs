//! Situations: operators the exploration applies to every operation of the operation table
//! (`x-effect`), none of them a step written for one operation. Which situations an operation
//! yields follows from what the table says it does: a change can be repeated, a list walked
//! while the run writes, a filter sent with every value, a counted state approached by
//! concurrent requests. The reports give, for each operation, the situations a run exercised,
//! and a reason for each it did not (`results::situations`).

use std::collections::BTreeMap;
use std::sync::LazyLock;

use serde::Serialize;

use conformance_contract::operations::{Does, Set};
use conformance_contract::{Contract, Route};

/// A situation an operation is put in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Situation {
    /// After the change (a delete and a refused request included), every route that shows the
    /// resource is read: each generation's read, each list under a filter that names it, its
    /// sub-resources.
    ReadBack,
    /// The same change again, with the same arguments (a create: the same body, which makes
    /// another resource or is refused).
    RepeatSame,
    /// The same change again, with other arguments.
    RepeatOther,
    /// One field of several changed, the others sent as they are.
    ChangeOne,
    /// The fields' values drawn from each field's domain by class (both edges of a bound, text
    /// beyond the Basic Multilingual Plane and with combining marks, far instants and other
    /// offsets, every enum value, an optional field absent, a nullable one null).
    Values,
    /// One stated constraint broken at a time: refused, and afterwards nothing changed and no
    /// event fired.
    InvalidOne,
    /// The request with each actor the profile gives: no key, a wrong key, the second key of the
    /// workspace, a key of another workspace.
    Actors,
    /// Each form of a body the contract allows (a task linked by number, conversation or
    /// activity).
    BodyShapes,
    /// A list walked while the run writes: a resource created, and the item a page token points
    /// after deleted, between two pages.
    WalkWrite,
    /// Each filter of a list with values the profile and the target offer.
    FilterValues,
    /// Two filters of a list at once (AND).
    FiltersCombined,
    /// Concurrent requests at a counted limit: no more accepted than its places.
    ConcurrentLimit,
    /// The resource's id changed as a storage or a lookup might confuse it with the id (its
    /// letters in the other case, a character more or fewer, a 32-bit wrap): the operation
    /// reaches no resource of the run's.
    LookAlike,
}

impl Situation {
    pub const ALL: [Situation; 13] = [
        Situation::ReadBack,
        Situation::RepeatSame,
        Situation::RepeatOther,
        Situation::ChangeOne,
        Situation::Values,
        Situation::InvalidOne,
        Situation::Actors,
        Situation::BodyShapes,
        Situation::WalkWrite,
        Situation::FilterValues,
        Situation::FiltersCombined,
        Situation::ConcurrentLimit,
        Situation::LookAlike,
    ];

    /// Its name in reports.
    pub fn name(self) -> &'static str {
        match self {
            Situation::ReadBack => "read-back",
            Situation::RepeatSame => "repeat-same",
            Situation::RepeatOther => "repeat-other",
            Situation::ChangeOne => "change-one-field",
            Situation::Values => "values",
            Situation::InvalidOne => "invalid-one-constraint",
            Situation::Actors => "actors",
            Situation::BodyShapes => "body-shapes",
            Situation::WalkWrite => "write-during-walk",
            Situation::FilterValues => "filter-values",
            Situation::FiltersCombined => "filters-combined",
            Situation::ConcurrentLimit => "concurrent-at-limit",
            Situation::LookAlike => "look-alike-id",
        }
    }
}

/// The kinds the run creates and follows: those whose table entry names fields.
pub fn tracked(contract: &Contract, route: &Route) -> bool {
    contract
        .resources
        .get(&route.effect.on)
        .is_some_and(|r| !r.fields.is_empty())
}

/// The body fields a create or change reads (`from`, `add`, `remove` of its fields).
pub fn body_fields(route: &Route) -> Vec<String> {
    route
        .effect
        .fields
        .iter()
        .filter_map(|f| match &f.set {
            Set::From(p) | Set::Add(p) | Set::Remove(p) => Some(p.clone()),
            _ => None,
        })
        .collect()
}

/// The groups of alternatives of a body (`x-purpose`: a list of pointers of which one).
pub fn body_shapes(route: &Route) -> Vec<Vec<String>> {
    route
        .purpose
        .as_ref()
        .and_then(|p| p.get("body"))
        .and_then(|b| b.as_array())
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let group: Vec<String> = entry
                .as_array()?
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            (group.len() > 1).then_some(group)
        })
        .collect()
}

/// Whether a request body schema states a constraint (a length, a range, a pattern, a format,
/// an item count, an enum).
fn constrained(schema: &serde_json::Value) -> bool {
    match schema {
        serde_json::Value::Object(m) => {
            [
                "minLength",
                "maxLength",
                "minimum",
                "maximum",
                "pattern",
                "format",
                "minItems",
                "maxItems",
                "enum",
                "x-not-blank",
            ]
            .iter()
            .any(|k| m.contains_key(*k))
                || m.values().any(constrained)
        }
        serde_json::Value::Array(items) => items.iter().any(constrained),
        _ => false,
    }
}

/// The situations the operation table yields for `route`.
pub fn applicable(contract: &Contract, route: &Route) -> Vec<Situation> {
    let e = &route.effect;
    let mut out = Vec::new();
    let tracked = tracked(contract, route);
    let writes = matches!(e.does, Does::Create | Does::Change | Does::Delete);
    let fields = body_fields(route);
    if tracked && writes {
        out.push(Situation::ReadBack);
    }
    if tracked && (writes || (e.does == Does::Read && e.id.is_some())) {
        out.push(Situation::Actors);
    }
    if tracked && matches!(e.does, Does::Change | Does::Delete) {
        out.push(Situation::RepeatSame);
        if !fields.is_empty() {
            out.push(Situation::RepeatOther);
        }
    }
    if tracked && e.does == Does::Change && fields.len() >= 2 {
        out.push(Situation::ChangeOne);
    }
    if tracked && matches!(e.does, Does::Create | Does::Change) && !fields.is_empty() {
        out.push(Situation::Values);
    }
    if tracked
        && matches!(e.does, Does::Create | Does::Change)
        && route.request_schema.as_ref().is_some_and(constrained)
    {
        out.push(Situation::InvalidOne);
    }
    if tracked && !body_shapes(route).is_empty() {
        out.push(Situation::BodyShapes);
    }
    if tracked && e.does == Does::List && e.of.is_none() && route.query_param("pageToken").is_some()
    {
        out.push(Situation::WalkWrite);
    }
    if e.does == Does::List && !e.filters.is_empty() {
        out.push(Situation::FilterValues);
    }
    if e.does == Does::List && e.filters.len() >= 2 {
        out.push(Situation::FiltersCombined);
    }
    if !e.adds.is_empty() {
        out.push(Situation::ConcurrentLimit);
    }
    if tracked && e.id.is_some() && matches!(e.does, Does::Read | Does::Change | Does::Delete) {
        out.push(Situation::LookAlike);
    }
    // Last of a create's: its two creates come out of the round's share of the kind after the
    // situations that need one each.
    if tracked && e.does == Does::Create {
        out.push(Situation::RepeatSame);
    }
    out
}

/// Why the operation table yields no situation for `route` (what it does gives none of them).
pub fn none_because(contract: &Contract, route: &Route) -> String {
    let e = &route.effect;
    let does = match e.does {
        Does::Create => "creates",
        Does::Change => "changes",
        Does::Delete => "deletes",
        Does::Read => "reads",
        Does::List => "lists",
        _ => "acts on",
    };
    if !tracked(contract, route) {
        format!(
            "it {does} resources of kind `{}`, whose fields the operation table does not give, so the run neither makes nor follows one{}",
            e.on,
            if e.does == Does::List {
                ", and the table names no filter of it"
            } else {
                ""
            }
        )
    } else {
        format!(
            "it {does} {}s, and none of the situations fits what the table says it does",
            e.on
        )
    }
}

/// The lanes of a sequence's round: its share of the pairs is dealt to them by kind, and they
/// play side by side, each on resources of its own kinds, while the round's watchers hear them
/// all. A round's chain of requests, one after the other, is what a run behind a slow
/// network waits for last.
pub const LANES: usize = 3;

/// How many resources of each kind one sequence holds at once (a kind's pairs all go to one of
/// its lanes): what the plan counts it holding (the webhooks beside its watchers).
pub const CAPS: &[(&str, usize)] = &[("task", 2), ("contact", 2), ("message", 2), ("webhook", 1)];

/// The kinds a sequence's webhooks watch, one webhook each: every kind whose changes fire an
/// event (the operation table's `fires`), the tasks twice (the second is deleted before the
/// closing changes, whose events it must then not receive).
pub fn watched(contract: &Contract) -> Vec<String> {
    let mut out = vec!["task".to_string(), "task".to_string()];
    for r in &contract.routes {
        if !r.effect.fires.is_empty() && !out.contains(&r.effect.on) {
            out.push(r.effect.on.clone());
        }
    }
    out
}

/// Every request (method, path template) a sequence trial may send: each operation the table
/// puts in a situation, the reads and lists of the kinds they act on, the users it assigns,
/// and a create for each resource it may hold at once (the plan counts what a trial holds by
/// its creates).
pub fn requests(contract: &Contract) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = vec![("GET".into(), "/users".into())];
    let mut kinds: Vec<&str> = Vec::new();
    for r in &contract.routes {
        if !applicable(contract, r).is_empty() {
            out.push((r.method.clone(), r.template.clone()));
            if !kinds.contains(&r.effect.on.as_str()) {
                kinds.push(&r.effect.on);
            }
        }
    }
    for r in &contract.routes {
        let shows = matches!(r.effect.does, Does::Read | Does::List)
            && kinds.contains(&r.effect.on.as_str());
        let webhook_history = r.effect.does == Does::List && r.effect.of.is_some();
        if (shows || webhook_history)
            && !out.iter().any(|(m, p)| *m == r.method && *p == r.template)
        {
            out.push((r.method.clone(), r.template.clone()));
        }
        if r.effect.does == Does::Create {
            let held = CAPS
                .iter()
                .find(|(k, _)| *k == r.effect.on)
                .map_or(0, |(_, n)| *n)
                + if r.effect.on == "webhook" {
                    watched(contract).len()
                } else {
                    0
                };
            for _ in 1..held {
                out.push((r.method.clone(), r.template.clone()));
            }
        }
    }
    out
}

/// The requests of a sequence trial, from the embedded contract.
pub static REQUESTS: LazyLock<Vec<(String, String)>> =
    LazyLock::new(|| Contract::shared().map(|c| requests(&c)).unwrap_or_default());

/// Every (operation, situation) pair the table yields, by `operationId`.
pub fn pairs(contract: &Contract) -> BTreeMap<String, Vec<Situation>> {
    contract
        .routes
        .iter()
        .filter_map(|r| {
            let s = applicable(contract, r);
            Some((r.operation_id.clone()?, s)).filter(|(_, s)| !s.is_empty())
        })
        .collect()
}

/// The pairs of operation and situation that trial `index` of `of` carries: every pair the table
/// yields, but the counted limits (the limit cases carry those), dealt round-robin.
pub fn agenda(contract: &Contract, index: usize, of: usize) -> Vec<(usize, Situation)> {
    all_pairs(contract)
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % of.max(1) == index)
        .map(|(_, p)| p)
        .collect()
}

/// Every pair but the counted limits: the look-alike ids last, so that each trial's round ends
/// with them, on the resources it made; before them, by the kind the operation acts on, then by
/// situation, then in table order. Dealt round-robin ([`agenda`]), each trial then gets about as
/// many pairs of each situation on each kind as another: a trial's lane of one kind (the tasks',
/// the longest) is about as long as another trial's, and the run waits for none much longer.
fn all_pairs(contract: &Contract) -> Vec<(usize, Situation)> {
    let mut all = Vec::new();
    for (i, r) in contract.routes.iter().enumerate() {
        for s in applicable(contract, r) {
            if s != Situation::ConcurrentLimit {
                all.push((i, s));
            }
        }
    }
    let kinds: Vec<&str> = contract.routes.iter().fold(Vec::new(), |mut v, r| {
        if !v.contains(&r.effect.on.as_str()) {
            v.push(&r.effect.on);
        }
        v
    });
    let kind = |i: usize| {
        kinds
            .iter()
            .position(|k| *k == contract.routes[i].effect.on)
    };
    all.sort_by_key(|&(i, s)| (s == Situation::LookAlike, kind(i), s, i));
    all
}

/// The trial that carries the pair (`operation`, `situation`) in a run of `of` sequence trials:
/// its name, or what carries a counted limit.
pub fn carrier(contract: &Contract, operation: &str, situation: Situation, of: usize) -> String {
    if situation == Situation::ConcurrentLimit {
        return "the limit cases (their last wave crosses the limit with concurrent creates)"
            .into();
    }
    all_pairs(contract)
        .iter()
        .position(|(i, s)| {
            *s == situation && contract.routes[*i].operation_id.as_deref() == Some(operation)
        })
        .map_or_else(
            || "no trial".into(),
            |k| format!("latest.sequences.{}", k % of.max(1) + 1),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_yields_situations_for_every_kind_of_operation() {
        let c = Contract::embedded().expect("contract");
        let p = pairs(&c);
        let has = |op: &str, s: Situation| p.get(op).is_some_and(|v| v.contains(&s));
        assert!(has("completeTask", Situation::RepeatSame));
        assert!(
            !has("completeTask", Situation::RepeatOther),
            "no body to vary"
        );
        assert!(has("assignTask", Situation::RepeatOther));
        assert!(has("updateTask", Situation::ChangeOne));
        assert!(has("createTask", Situation::BodyShapes));
        assert!(has("createContact", Situation::InvalidOne));
        assert!(has("listContacts", Situation::FiltersCombined));
        assert!(has("listTasks", Situation::WalkWrite));
        assert!(has("createWebhook", Situation::ConcurrentLimit));
        assert!(has("listCalls", Situation::FilterValues));
        assert!(!p.contains_key("getOrganization"));
    }
}
