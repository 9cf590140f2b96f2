//! Look-alike ids: an operation that names a resource, sent with ids like the resource's that
//! name none of the run's. A lookup that compares ids without case, on a prefix, cut to a
//! column's width or cast to a narrower integer reaches the resource the id resembles; one
//! that compares the whole id finds nothing, or another resource.

use conformance_contract::ParamIn;
use conformance_contract::Route;
use conformance_contract::operations::Does;
use serde_json::Value;

use super::{Explorer, Skip, Want, json_of, ok, request, swapped};
use crate::client::Outgoing;

/// How a look-alike was made from the id, for the expectation's words.
pub(super) struct LookAlike {
    pub id: String,
    pub how: &'static str,
    /// Whether a write may be sent to it: it cannot be the id of a resource someone else made
    /// (an id the target could issue next, as a changed last character of a counter could be,
    /// is only read).
    pub writable: bool,
}

/// The stated prefix of path parameter `name` of `route`: its pattern's leading capitals.
fn stated_prefix(route: &Route, name: &str) -> String {
    route
        .params
        .iter()
        .find(|p| p.location == ParamIn::Path && p.name == name)
        .and_then(|p| p.schema.get("pattern"))
        .and_then(Value::as_str)
        .and_then(|p| p.strip_prefix('^'))
        .map(|p| p.chars().take_while(char::is_ascii_uppercase).collect())
        .unwrap_or_default()
}

/// The character after `c` in its class (a digit, a small or a capital letter), wrapping.
fn next_in_class(c: char) -> char {
    let (first, n) = match c {
        '0'..='9' => ('0', 10),
        'a'..='z' => ('a', 26),
        'A'..='Z' => ('A', 26),
        _ => return 'x',
    };
    let at = (c as u32 - first as u32 + 1) % n;
    char::from_u32(first as u32 + at).unwrap_or('x')
}

/// Ids like `id` (of a kind whose ids start with `prefix`) that name no resource of the run:
/// for an id of digits, the id plus 2^32 (a cast to 32 bits reaches the id) and the id written
/// twice; otherwise its letters after the prefix in the other case, its last character the next
/// of its class, one character more, one fewer, and its tail twice (ids at other lengths that
/// still match the pattern of the kind).
pub(super) fn look_alikes(id: &str, prefix: &str) -> Vec<LookAlike> {
    let mut out = Vec::new();
    let mut add = |s: String, how: &'static str, writable: bool| {
        if s != id && !s.is_empty() && !out.iter().any(|l: &LookAlike| l.id == s) {
            out.push(LookAlike {
                id: s,
                how,
                writable,
            });
        }
    };
    if !id.is_empty() && id.chars().all(|c| c.is_ascii_digit()) {
        if let Ok(n) = id.parse::<u64>() {
            if let Some(wrapped) = n.checked_add(1 << 32) {
                add(wrapped.to_string(), "the id plus 2^32", true);
            }
        }
        add(format!("{id}{id}"), "the id written twice", false);
        return out;
    }
    let rest = id.strip_prefix(prefix).unwrap_or(id);
    let head = &id[..id.len() - rest.len()];
    add(
        format!("{head}{}", swapped(rest)),
        "its letters in the other case",
        true,
    );
    if let Some(last) = rest.chars().last() {
        let cut = &rest[..rest.len() - last.len_utf8()];
        add(
            format!("{head}{cut}{}", next_in_class(last)),
            "its last character changed",
            false,
        );
        add(format!("{id}{last}"), "one character more", false);
        if !cut.is_empty() {
            add(format!("{head}{cut}"), "one character fewer", false);
        }
    }
    add(format!("{id}{rest}"), "its tail twice", true);
    out
}

/// The id an answer shows for the resource it is about.
fn shown_id(body: &Value, pointer: &str) -> Option<String> {
    let item = body.get("data").unwrap_or(body);
    match item.pointer(pointer)? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

impl Explorer<'_> {
    /// The situation: `route` sent with each look-alike of the id of a resource the run made.
    /// A read must not show that resource; a write is sent only with look-alikes nobody else's
    /// resource can have, and the resource is read back (the model holds it unchanged).
    pub(super) async fn look_alike(&mut self, route: &Route) -> Result<(), Skip> {
        let kind = route.effect.on.clone();
        let name = route
            .effect
            .id
            .clone()
            .ok_or("the operation names no resource by id")?;
        let id = self.subject(route, &[]).await?;
        let prefix = stated_prefix(route, &name);
        let read = route.effect.does == Does::Read;
        let alikes: Vec<LookAlike> = look_alikes(&id, &prefix)
            .into_iter()
            .filter(|l| read || l.writable)
            .collect();
        if alikes.is_empty() {
            return Err("no look-alike of the resource's id can be made".into());
        }
        let body = self.body(route)?;
        let pointer = self
            .exec
            .contract
            .resources
            .get(&kind)
            .map(|r| r.id.clone())
            .unwrap_or_else(|| "/id".into());
        let outs: Vec<Outgoing> = alikes
            .iter()
            .map(|l| Outgoing {
                body: body.clone(),
                ..request(&route.method, &Self::path(route, Some(&l.id)), &[], None)
            })
            .collect();
        let clause = route.clause.clone();
        let exec = self.exec;
        // Each names no resource, so none depends on another: they go together.
        let sent = futures_util::future::join_all(outs.iter().map(|o| exec.send(o))).await;
        for (j, l) in sent.into_iter().zip(&alikes) {
            let (ex, by_rules) = j.into_parts();
            let shown = json_of(&ex).and_then(|b| shown_id(b, &pointer));
            // A write names an id no resource can have: it changes nothing and creates nothing
            // (a PUT is an update, not an upsert), so any success is one too many.
            let reached = ok(&ex) && (!read || shown.as_deref() == Some(id.as_str()));
            let why = if read {
                format!(
                    "the id {} ({}) names no resource of the run's: a refusal (4xx, not 401: the key is valid), or an answer about another resource, never about {id}",
                    l.id, l.how
                )
            } else {
                format!(
                    "the id {} ({}, made from {id}) names no resource: the write is refused (4xx, not 401: the key is valid), neither changing {id} nor creating {}",
                    l.id, l.how, l.id
                )
            };
            // What a write to it made all the same is the run's to delete.
            if !read && ok(&ex) {
                if let Some(made) = shown.filter(|s| *s != id) {
                    self.created.entry(kind.clone()).or_default().push(made);
                }
            }
            self.judge(&ex, by_rules, &Want::LookAlike { reached, why }, &clause);
        }
        self.read_back(&kind, &id, false).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_keep_the_prefix_and_name_another_id() {
        let ids: Vec<String> = look_alikes("PNq7R2s9T4u1", "PN")
            .into_iter()
            .map(|l| l.id)
            .collect();
        assert_eq!(
            ids,
            [
                "PNQ7r2S9t4U1",
                "PNq7R2s9T4u2",
                "PNq7R2s9T4u11",
                "PNq7R2s9T4u",
                "PNq7R2s9T4u1q7R2s9T4u1"
            ]
        );
        let digits: Vec<String> = look_alikes("17", "").into_iter().map(|l| l.id).collect();
        assert_eq!(digits, ["4294967313", "1717"]);
        assert!(look_alikes("PN", "PN").iter().all(|l| l.id != "PN"));
    }
}
