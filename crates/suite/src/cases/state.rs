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

/// Routes (method, path template of the route table) that create or delete webhooks, or count
/// them.
const WEBHOOK_COUNT: &[(&str, &str)] = &[
    ("POST", "/webhooks"),
    ("DELETE", "/webhooks/{webhookId}"),
    ("GET", "/webhooks"),
    // Legacy webhooks may count towards the same limit: the contract does not say they do not.
    ("POST", "/v1/webhooks/{kind}"),
];

/// Routes that open or close a task, or list the tasks.
const OPEN_TASK_COUNT: &[(&str, &str)] = &[
    ("POST", "/v1/tasks"),
    ("DELETE", "/v1/tasks/{taskId}"),
    ("POST", "/v1/tasks/{taskId}/complete"),
    ("POST", "/v1/tasks/{taskId}/reopen"),
    ("GET", "/v1/tasks"),
];

/// Routes that add a task to the list, remove one, change one (the order of the list is not
/// stated, so any change may move a task between pages), or list them.
const TASK_LIST: &[(&str, &str)] = &[
    ("POST", "/v1/tasks"),
    ("DELETE", "/v1/tasks/{taskId}"),
    ("PUT", "/v1/tasks/{taskId}"),
    ("POST", "/v1/tasks/{taskId}/complete"),
    ("POST", "/v1/tasks/{taskId}/reopen"),
    ("POST", "/v1/tasks/{taskId}/assign"),
    ("POST", "/v1/tasks/{taskId}/unassign"),
    ("POST", "/v1/tasks/{taskId}/change-due-date"),
    ("POST", "/v1/tasks/{taskId}/remove-due-date"),
    ("POST", "/v1/tasks/{taskId}/link-conversation"),
    ("POST", "/v1/tasks/{taskId}/unlink-conversation"),
    ("GET", "/v1/tasks"),
];

/// Routes that add a message, or list messages (newest first, filtered by status, sender, ...).
const MESSAGES: &[(&str, &str)] = &[
    ("POST", "/v1/messages"),
    ("GET", "/v1/messages"),
    ("GET", "/messages"),
];

/// Routes that move a conversation (a message sent in it, its inbox state), or list them.
const CONVERSATIONS: &[(&str, &str)] = &[
    ("POST", "/v1/messages"),
    ("GET", "/v1/conversations"),
    ("GET", "/conversations"),
    ("POST", "/v1/conversations/{conversationId}/mark-as-done"),
    ("POST", "/v1/conversations/{conversationId}/mark-as-open"),
    ("POST", "/v1/conversations/{conversationId}/mark-as-read"),
    ("POST", "/conversations/{conversationId}/mark-as-done"),
    ("POST", "/conversations/{conversationId}/mark-as-open"),
    ("POST", "/conversations/{conversationId}/mark-as-read"),
];

/// Routes that make a webhook, which may then receive the workspace's inbound messages.
const INBOUND_MESSAGES: &[(&str, &str)] = &[("POST", "/webhooks"), ("POST", "/v1/webhooks/{kind}")];

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

    /// The routes through which a request changes this state or reads it whole: a case that
    /// sends one of them waits while a case that needs the state runs.
    pub fn routes(self) -> &'static [(&'static str, &'static str)] {
        match self {
            State::WebhookCount => WEBHOOK_COUNT,
            State::OpenTaskCount => OPEN_TASK_COUNT,
            State::TaskList => TASK_LIST,
            State::Messages => MESSAGES,
            State::Conversations => CONVERSATIONS,
            State::InboundMessages => INBOUND_MESSAGES,
        }
    }

    /// The most the workspace holds of a counted state, and the routes that add one: the
    /// webhooks of a workspace (50, Limits), its open tasks (the profile's `open_task_limit`).
    /// Trials that each hold a few must not together reach the limit.
    pub fn counted(self) -> Option<&'static [(&'static str, &'static str)]> {
        match self {
            State::WebhookCount => Some(&[("POST", "/webhooks"), ("POST", "/v1/webhooks/{kind}")]),
            State::OpenTaskCount => Some(&[("POST", "/v1/tasks")]),
            _ => None,
        }
    }

    /// Whether a request of `method` on the route `template` adds one to this counted state.
    pub(crate) fn added_by(self, method: &str, template: &str) -> bool {
        self.counted().is_some_and(|routes| {
            routes
                .iter()
                .any(|(m, t)| m.eq_ignore_ascii_case(method) && *t == template)
        })
    }

    /// Whether a request of `method` on the route `template` touches this state.
    pub(crate) fn touched_by(self, method: &str, template: &str) -> bool {
        self.routes()
            .iter()
            .any(|(m, t)| m.eq_ignore_ascii_case(method) && *t == template)
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

    /// Every route a state names is a route of the contract, so no state silently touches
    /// nothing.
    #[test]
    fn every_route_of_a_state_is_in_the_route_table() {
        let contract = conformance_contract::Contract::embedded().expect("contract");
        for s in State::ALL {
            for (method, template) in s.routes() {
                let route = contract.route(method, template);
                assert_eq!(
                    route.map(|r| r.template.as_str()),
                    Some(*template),
                    "{}: {method} {template}",
                    s.name()
                );
            }
        }
    }
}
