//! The shared state of one instance: one store per area, each owned by its module.

use crate::{calls, contacts, directory, faults, messaging, tasks, webhooks};

/// Everything an instance holds. Each store guards its own data (interior mutability).
pub struct App {
    /// Injected faults switched on (empty for the conforming server).
    pub faults: faults::FaultSet,
    /// Organizations, API keys, users, phone numbers (owned by `directory`).
    pub directory: directory::Directory,
    /// Contacts and custom field definitions (owned by `contacts`).
    pub contacts: contacts::Store,
    /// Tasks (owned by `tasks`).
    pub tasks: tasks::Store,
    /// Messages and conversations (owned by `messaging`).
    pub messaging: messaging::Store,
    /// Calls, recordings, transcripts, summaries, voicemails (owned by `calls`).
    pub calls: calls::Store,
    /// Webhooks, their deliveries and history (owned by `webhooks` and `events`).
    pub webhooks: webhooks::Store,
}

impl App {
    /// A fresh instance with every store seeded.
    pub fn seeded(faults: faults::FaultSet) -> App {
        let directory = directory::Directory::seeded();
        App {
            faults,
            contacts: contacts::Store::seeded(&directory),
            tasks: tasks::Store::seeded(&directory),
            messaging: messaging::Store::seeded(&directory),
            calls: calls::Store::seeded(&directory),
            webhooks: webhooks::Store::seeded(&directory),
            directory,
        }
    }
}
