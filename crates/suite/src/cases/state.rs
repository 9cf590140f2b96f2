//! The workspace-wide state an exclusive case needs to itself (`exclusive: [webhook-count]`) or
//! only changes (`exclusive: { changes: [messages] }`), and the routes through which any case
//! touches it. Two cases that need disjoint state run side by side; a case that touches a state
//! another case needs waits until that case is done.

use serde::Deserialize;

/// A piece of workspace-wide state that a case may need to itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum State {
    /// How many webhooks the workspace holds (Limits: 50 per workspace).
    WebhookCount,
    /// How many open tasks the workspace holds (Limits: open tasks).
    OpenTaskCount,
    /// The workspace's tasks as `GET /v1/tasks` walks them (no filter is stated).
    TaskList,
    /// The workspace's message history, and the status of its messages.
    Messages,
    /// The workspace's conversations: their inbox state and their order by activity.
    Conversations,
    /// The messages the workspace receives: each fires `message.received` to every webhook
    /// subscribed to it, so a webhook on `*` sees every inbound message of the run.
    InboundMessages,
}

/// How an exclusive case holds a state it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Hold {
    /// To itself: no other case that touches the state runs meanwhile (a limit counts it, a
    /// walk lists it whole).
    Own,
    /// It changes the state and reads none of it back in a way a change disturbs (it adds a
    /// message, reads only its own): it runs beside other cases that only change the state,
    /// never beside one that reads it.
    Change,
}

impl State {
    /// Every state.
    pub(crate) const ALL: [State; 6] = [
        State::WebhookCount,
        State::OpenTaskCount,
        State::TaskList,
        State::Messages,
        State::Conversations,
        State::InboundMessages,
    ];

    /// The name a case file gives it.
    pub fn name(self) -> &'static str {
        match self {
            State::WebhookCount => "webhook-count",
            State::OpenTaskCount => "open-task-count",
            State::TaskList => "task-list",
            State::Messages => "messages",
            State::Conversations => "conversations",
            State::InboundMessages => "inbound-messages",
        }
    }

    /// Whether a request of `route` touches this state: changes it or reads it whole (the
    /// operation table's `touches`), so that a case that sends one waits while a case that
    /// needs the state runs.
    pub(crate) fn touched_by(self, route: &conformance_contract::Route) -> bool {
        route.effect.touches.iter().any(|t| t == self.name())
    }

    /// Whether a request of `route` adds one to this counted state (the operation table's
    /// `adds`): the webhooks of a workspace (50, Limits), its open tasks (the profile's
    /// `open_task_limit`). Trials that each hold a few must not together reach the limit.
    pub(crate) fn added_by(self, route: &conformance_contract::Route) -> bool {
        route.effect.adds.iter().any(|t| t == self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The case-file schema offers exactly the states the model knows, by the same names.
    #[test]
    fn the_case_file_schema_names_every_state() {
        let schema: serde_json::Value =
            serde_json::from_str(include_str!("../../../../schemas/case-file.schema.json"))
                .expect("the case-file schema is JSON");
        let names: Vec<&str> = schema
            .pointer("/$defs/state/enum")
            .and_then(|v| v.as_array())
            .expect("$defs/state is an enum")
            .iter()
            .filter_map(|v| v.as_str())
            .collect();
        let known: Vec<&str> = State::ALL.iter().map(|s| s.name()).collect();
        assert_eq!(names, known);
        for s in State::ALL {
            let parsed: State =
                serde_json::from_value(serde_json::Value::String(s.name().into())).expect("parses");
            assert_eq!(parsed, s);
        }
    }

    /// Every state the operation table names is a state of the suite, so no operation touches
    /// a state nobody holds; and every state is touched by some operation.
    #[test]
    fn the_operation_table_names_only_states_of_the_suite() {
        let contract = conformance_contract::Contract::embedded().expect("contract");
        let names: Vec<&str> = State::ALL.iter().map(|s| s.name()).collect();
        for r in &contract.routes {
            for t in r.effect.touches.iter().chain(&r.effect.adds) {
                assert!(
                    names.contains(&t.as_str()),
                    "{} {}: {t}",
                    r.method,
                    r.template
                );
            }
        }
        for s in State::ALL {
            assert!(
                contract.routes.iter().any(|r| s.touched_by(r)),
                "no operation touches {}",
                s.name()
            );
        }
    }
}
