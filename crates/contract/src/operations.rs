//! The operation table: what each operation does, as `x-effect` of the route table states it
//! from `API.md` and the readings, and the kinds of resource it acts on (`x-resources`).
//!
//! One fact, one place: the effect of a request on a resource (what it creates, sets, clears,
//! deletes), the events a change fires, what each filter of a list compares, the workspace-wide
//! states a request touches, and which operations show one resource (those that read or list its
//! kind). The suite's model, its random sequences, its relations and its delivery predictions
//! read this table; the embedded reference never does, so that the self-test compares two
//! independent readings of the contract.

use std::collections::BTreeMap;

use serde_json::Value;

/// A kind of resource the operations act on (`x-resources`).
#[derive(Debug, Clone)]
pub struct Resource {
    pub name: String,
    /// The JSON Pointer of its id in an item (`/taskId`, `/id`).
    pub id: String,
    /// The create's answer is stated to be the resource (201 `{data: Contact}`).
    pub create_answers: bool,
    /// It belongs to the workspace of the number it is on, so a key of another workspace has no
    /// access to it (`of-number`; Authentication 3). The contract ties no other kind to one
    /// workspace in words, so a key of another workspace may see those.
    pub of_number: bool,
    /// Its create is queued (a message's sending), so a list may show it only after a while:
    /// a read of a list polls for it within the profile's `effect_seconds` (READINGS 7.1;
    /// `listed-late`).
    pub listed_late: bool,
    /// A field a deleted resource may still be shown with, true (`/isDeleted`).
    pub deleted: Option<String>,
    /// The clause that states its fields (`clause`): a live one shown deleted breaks it.
    pub clause: Option<String>,
    /// The instants the target sets from its own clock when it creates or changes it
    /// (`clocked`: its creation and update times).
    pub clocked: Vec<String>,
    /// The fields a run sets, in the table's order.
    pub fields: Vec<Field>,
    /// The fields of its schema (`schema`) that no operation of the table sets, less its id,
    /// its deleted flag and those a change may alter beside what it sets (`changing`: a
    /// revision, an update time, a status whose transitions are not shown): a change that
    /// keeps the others leaves each as a read showed it.
    pub unset: Vec<String>,
}

impl Resource {
    /// The field at `pointer`.
    pub fn field(&self, pointer: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.pointer == pointer)
    }

    /// The id of one item of a list (or the `data` of a read).
    pub fn id_of(&self, item: &Value) -> Option<String> {
        match item.pointer(&self.id)? {
            Value::String(s) if !s.is_empty() => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        }
    }
}

/// A field of a resource, and how a read shows it.
#[derive(Debug, Clone)]
pub struct Field {
    pub pointer: String,
    pub shape: Shape,
}

/// How a field's value is shown and compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// A string (compared once trimmed, READINGS 6.7).
    Text,
    Bool,
    /// A date-time (compared as an instant, READINGS 5.2).
    Instant,
    /// An array of strings, in any order.
    Set,
    /// An array of `{name, value, id}` entries whose values form a set; `folded`: compared
    /// ignoring letter case (email addresses).
    Entries {
        folded: bool,
    },
    /// Members added and removed one at a time (a task's assignees).
    Members,
}

/// What an operation does (`x-effect`).
#[derive(Debug, Clone)]
pub struct Effect {
    /// The kind of resource it acts on.
    pub on: String,
    pub does: Does,
    /// The path parameter naming the resource it reads, changes or deletes.
    pub id: Option<String>,
    /// The path parameter naming the resource a list or read belongs to.
    pub of: Option<String>,
    pub fields: Vec<FieldEffect>,
    /// The clause a change breaks if a field it does not set shows another value afterwards.
    pub keeps_others: Option<String>,
    /// Forgets every field before it sets.
    pub replaces: bool,
    /// Fields whose value the change states it keeps.
    pub restates: Vec<String>,
    pub fires: Vec<Fire>,
    pub filters: Vec<Filter>,
    /// Workspace-wide states it changes or reads whole, and those of them it adds one to.
    pub touches: Vec<String>,
    pub adds: Vec<String>,
    /// Who may call it beyond a key of the workspace (`live-subscription`).
    pub callers: Vec<String>,
    /// The state in which the contract states the change (a transition's from-state): in it, the
    /// change must be accepted; in another, a target may accept or refuse it.
    pub from: Vec<(String, From)>,
}

/// A condition on a field of the resource before a change.
#[derive(Debug, Clone, PartialEq)]
pub enum From {
    /// The field holds this value.
    Is(Value),
    /// The field holds a value (not null, not absent).
    Set,
    /// The field holds none.
    Unset,
    /// The member the body names is among the field's members.
    HasMember,
}

impl Effect {
    /// Whether it needs a workspace whose subscription is live (a send).
    pub fn sends(&self) -> bool {
        self.callers.iter().any(|c| c == "live-subscription")
    }
}

/// What an operation does to the resource it acts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Does {
    Create,
    Read,
    List,
    Change,
    Delete,
    /// An effect the model does not follow.
    Other,
}

/// What a create or change does to one field.
#[derive(Debug, Clone)]
pub struct FieldEffect {
    pub field: String,
    pub set: Set,
    /// The clause a later read that shows another value breaks.
    pub clause: String,
    /// What the field becomes when the body leaves its source out.
    pub absent: Absent,
    /// Without the source in the body, the effect is not known.
    pub required: bool,
    /// A null sent clears the field.
    pub null_clears: bool,
    /// Set only from an E.164 number (the sender of a message named by number, not id).
    pub e164_only: bool,
}

/// Where a field's new value comes from.
#[derive(Debug, Clone)]
pub enum Set {
    /// The value at a pointer of the request body.
    From(String),
    Value(Value),
    Clear,
    /// The member named by a pointer of the body is added, or removed.
    Add(String),
    Remove(String),
}

/// What a field becomes when the body leaves its source out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Absent {
    /// Not known any more (what becomes of it is not shown).
    Forget,
    /// As it was.
    Keep,
    /// An empty set (PATCH replaces the entries it names, READINGS 2.6).
    Empty,
}

/// An event of the event table a change fires.
#[derive(Debug, Clone)]
pub struct Fire {
    pub event: String,
    /// The table ties it to this change without condition.
    pub sure: bool,
}

/// A filter parameter of a list: the item field it compares, and how.
#[derive(Debug, Clone)]
pub struct Filter {
    pub param: String,
    pub field: String,
    pub rule: Rule,
    pub clause: String,
}

/// How a filter compares an item's field with its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rule {
    Eq,
    /// One of the comma-separated values (`[in]`).
    InComma,
    /// One of the values of the repeated key (v1 arrays).
    InRepeated,
    /// As `InRepeated`, comparing only values with this prefix (ids); another shape (a number
    /// the target resolves) leaves the filter unjudged.
    InRepeatedIds(String),
    After,
    Before,
    AtOrAfter,
    AtOrBefore,
}

/// Reads `x-resources`: each kind, by name.
pub(crate) fn resources(
    doc: &Value,
    known_clause: &dyn Fn(&str) -> bool,
) -> Result<BTreeMap<String, Resource>, (String, String)> {
    let Some(map) = doc.get("x-resources").and_then(Value::as_object) else {
        return Err((
            "/x-resources".into(),
            "x-resources must be a mapping".into(),
        ));
    };
    let mut out = BTreeMap::new();
    for (name, r) in map {
        let at = format!("/x-resources/{name}");
        let id = r
            .get("id")
            .and_then(Value::as_str)
            .ok_or_else(|| (at.clone(), format!("resource `{name}` without `id`")))?;
        let mut fields = Vec::new();
        for (pointer, shape) in r
            .get("fields")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
        {
            let shape = match shape.as_str() {
                Some("text") => Shape::Text,
                Some("bool") => Shape::Bool,
                Some("instant") => Shape::Instant,
                Some("set") => Shape::Set,
                Some("entries") => Shape::Entries { folded: false },
                Some("entries-folded") => Shape::Entries { folded: true },
                Some("members") => Shape::Members,
                other => {
                    return Err((
                        format!("{at}/fields"),
                        format!("field `{pointer}` has an unknown shape {other:?}"),
                    ));
                }
            };
            fields.push(Field {
                pointer: pointer.clone(),
                shape,
            });
        }
        out.insert(
            name.clone(),
            Resource {
                name: name.clone(),
                id: id.to_string(),
                create_answers: r.get("create-answers") == Some(&Value::Bool(true)),
                of_number: r.get("of-number") == Some(&Value::Bool(true)),
                listed_late: r.get("listed-late") == Some(&Value::Bool(true)),
                deleted: r.get("deleted").and_then(Value::as_str).map(str::to_string),
                clause: match r.get("clause").and_then(Value::as_str) {
                    Some(c) if !known_clause(c) => {
                        return Err((format!("{at}/clause"), format!("unknown clause `{c}`")));
                    }
                    c => c.map(str::to_string),
                },
                clocked: r
                    .get("clocked")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                unset: unset(doc, r, &at, id, &fields)?,
                fields,
            },
        );
    }
    Ok(out)
}

/// The fields of the resource `r`'s `schema` (a component of `doc`) that no operation sets
/// (see `Resource::unset`).
fn unset(
    doc: &Value,
    r: &Value,
    at: &str,
    id: &str,
    fields: &[Field],
) -> Result<Vec<String>, (String, String)> {
    let Some(name) = r.get("schema").and_then(Value::as_str) else {
        return Ok(Vec::new());
    };
    let Some(props) = doc
        .pointer(&format!("/components/schemas/{name}/properties"))
        .and_then(Value::as_object)
    else {
        return Err((
            format!("{at}/schema"),
            format!("no component schema `{name}` with properties"),
        ));
    };
    let changing: Vec<&str> = r
        .get("changing")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let deleted = r.get("deleted").and_then(Value::as_str);
    Ok(props
        .keys()
        .map(|k| format!("/{k}"))
        .filter(|p| {
            p != id
                && Some(p.as_str()) != deleted
                && !changing.contains(&p.as_str())
                && !fields.iter().any(|f| &f.pointer == p)
        })
        .collect())
}

/// How the filter `param` of a list compares (its `rule`, and a prefix where it needs one).
fn filter_rule(param: &str, f: &Value) -> Result<Rule, String> {
    let get = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
    Ok(match get("rule").as_deref() {
        Some("eq") => Rule::Eq,
        Some("in-comma") => Rule::InComma,
        Some("in-repeated") => Rule::InRepeated,
        Some("in-repeated-ids") => match get("prefix") {
            Some(p) => Rule::InRepeatedIds(p),
            None => {
                return Err(format!(
                    "filter `{param}`: in-repeated-ids needs its `prefix`"
                ));
            }
        },
        Some("after") => Rule::After,
        Some("before") => Rule::Before,
        Some("at-or-after") => Rule::AtOrAfter,
        Some("at-or-before") => Rule::AtOrBefore,
        other => return Err(format!("filter `{param}` has an unknown rule {other:?}")),
    })
}

/// Reads the `x-effect` of one operation at `at`, checking it against the resources, the
/// operation's parameters and the clause catalog (`known_clause`).
pub(crate) fn effect(
    op: &Value,
    at: &str,
    resources: &BTreeMap<String, Resource>,
    params: &[&str],
    known_clause: &dyn Fn(&str) -> bool,
) -> Result<Effect, (String, String)> {
    let at = format!("{at}/x-effect");
    let fail = |m: String| Err((at.clone(), m));
    let Some(e) = op.get("x-effect") else {
        return fail("every operation states what it does (x-effect)".into());
    };
    let text = |k: &str| e.get(k).and_then(Value::as_str).map(str::to_string);
    let list = |k: &str| -> Vec<String> {
        e.get(k)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let Some(on) = text("resource") else {
        return fail("x-effect without `resource`".into());
    };
    let Some(resource) = resources.get(&on) else {
        return fail(format!("x-effect names `{on}`, which x-resources does not"));
    };
    let does = match text("does").as_deref() {
        Some("create") => Does::Create,
        Some("read") => Does::Read,
        Some("list") => Does::List,
        Some("change") => Does::Change,
        Some("delete") => Does::Delete,
        Some("other") => Does::Other,
        other => {
            return fail(format!(
                "`does` must be create, read, list, change, delete or other, not {other:?}"
            ));
        }
    };
    for p in ["id", "of"] {
        if let Some(name) = text(p) {
            if !params.contains(&name.as_str()) {
                return fail(format!(
                    "`{p}: {name}` names no path parameter of the operation"
                ));
            }
        }
    }
    if matches!(does, Does::Change | Does::Delete) && text("id").is_none() {
        return fail("a change or a delete names its resource's path parameter (`id`)".into());
    }
    let check_clause = |c: &str| -> Result<String, (String, String)> {
        if known_clause(c) {
            Ok(c.to_string())
        } else {
            Err((at.clone(), format!("unknown clause `{c}`")))
        }
    };
    let mut fields = Vec::new();
    for (field, f) in e
        .get("fields")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if resource.field(field).is_none() {
            return fail(format!("`{field}` is no field of `{on}` in x-resources"));
        }
        let pointer = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
        let set = if let Some(p) = pointer("from") {
            Set::From(p)
        } else if let Some(v) = f.get("value") {
            Set::Value(v.clone())
        } else if f.get("clear") == Some(&Value::Bool(true)) {
            Set::Clear
        } else if let Some(p) = pointer("add") {
            Set::Add(p)
        } else if let Some(p) = pointer("remove") {
            Set::Remove(p)
        } else {
            return fail(format!(
                "`{field}` says nothing of its value (from, value, clear, add, remove)"
            ));
        };
        let clause = match pointer("clause") {
            Some(c) => check_clause(&c)?,
            None => return fail(format!("`{field}` without its clause")),
        };
        let absent = match pointer("absent").as_deref() {
            None | Some("forget") => Absent::Forget,
            Some("keep") => Absent::Keep,
            Some("empty") => Absent::Empty,
            Some(other) => {
                return fail(format!("`absent: {other}` is none of forget, keep, empty"));
            }
        };
        fields.push(FieldEffect {
            field: field.clone(),
            set,
            clause,
            absent,
            required: f.get("required") == Some(&Value::Bool(true)),
            null_clears: pointer("on-null").as_deref() == Some("clear"),
            e164_only: pointer("when").as_deref() == Some("e164"),
        });
    }
    let fires = e
        .get("fires")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|f| match f {
            Value::String(event) => Ok(Fire {
                event: event.clone(),
                sure: true,
            }),
            Value::Object(m) => match m.get("event").and_then(Value::as_str) {
                Some(event) => Ok(Fire {
                    event: event.to_string(),
                    sure: m.get("sure") != Some(&Value::Bool(false)),
                }),
                None => Err((at.clone(), "a fired event without `event`".to_string())),
            },
            _ => Err((
                at.clone(),
                "a fired event is a name or {event, sure}".to_string(),
            )),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut filters = Vec::new();
    for (param, f) in e
        .get("filters")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        let get = |k: &str| f.get(k).and_then(Value::as_str).map(str::to_string);
        let rule = match filter_rule(param, f) {
            Ok(rule) => rule,
            Err(m) => return fail(m),
        };
        let (Some(field), Some(clause)) = (get("field"), get("clause")) else {
            return fail(format!(
                "filter `{param}` names its item `field` and its `clause`"
            ));
        };
        filters.push(Filter {
            param: param.clone(),
            field,
            rule,
            clause: check_clause(&clause)?,
        });
    }
    let mut from = Vec::new();
    for (field, cond) in e
        .get("from")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        if resource.field(field).is_none() {
            return fail(format!("`from` names `{field}`, no field of `{on}`"));
        }
        from.push((
            field.clone(),
            match cond.as_str() {
                Some("set") => From::Set,
                Some("unset") => From::Unset,
                Some("has-member") => From::HasMember,
                _ => From::Is(cond.clone()),
            },
        ));
    }
    let keeps_others = text("keeps-others").map(|c| check_clause(&c)).transpose()?;
    let restates = list("restates");
    if let Some(r) = restates.iter().find(|r| resource.field(r).is_none()) {
        return fail(format!("restates `{r}`, no field of `{on}`"));
    }
    Ok(Effect {
        on,
        does,
        id: text("id"),
        of: text("of"),
        fields,
        keeps_others,
        replaces: e.get("replaces") == Some(&Value::Bool(true)),
        restates,
        fires,
        filters,
        touches: list("touches"),
        adds: list("adds"),
        callers: list("callers"),
        from,
    })
}
