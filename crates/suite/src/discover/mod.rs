//! Discovery: the fixtures of a target found with read-only requests (`GET` only), each checked
//! against what the fixture must hold before it is written.
//!
//! Discovery reads only what the contract states: filters it names (`phoneNumberId`,
//! `participants`, `actorId`, `include`, the Message field names of READINGS 6.1), fields it
//! requires (`id`, `conversationId`, `createdAt`, `phoneNumber`, `to`, `media`, `status`), and an
//! optional field only where it is present. A fixture whose requirement it cannot verify is left
//! out with the reason; candidates it can only guess are named, never written. Fixtures no request
//! can show (a second key, sandbox numbers, query names the spec does not show) carry the reason
//! of `x-discovered` in `schemas/profile.schema.json`.

//!
//! One file per fixture family, each adding its steps to the [`session::Discoverer`]:
//! `numbers`, `webhooks`, `custom_fields`, the messages and conversations (`inbox`,
//! `one_to_one`, `groups`, `message_kinds`), `conditional` and `calls`. Below them, the names
//! (`fixture`), the requests and their errors (`request`), the reasons a fixture is not found
//! (`reason`) and what discovery says of each fixture (`outcome`, `table`). No file imports
//! this one.

mod calls;
mod conditional;
mod custom_fields;
mod fields;
mod fixture;
mod groups;
mod inbox;
mod message_kinds;
mod numbers;
mod one_to_one;
mod outcome;
mod reason;
mod request;
mod session;
mod table;
mod webhooks;

pub use fixture::DISCOVERABLE;
pub(crate) use fixture::Fixture;
pub use outcome::{Discovery, Entry, Outcome};
pub(crate) use reason::Reason;
pub use request::{ErrorKind, Request};
pub use session::Limits;

use crate::client::Client;
use conformance_contract::profile::Profile;
use session::Discoverer;

/// Discovers the fixtures of the target behind `client` that `base` lacks. Only `GET` requests
/// are sent; `progress` receives one line per request.
pub async fn discover(
    client: &Client,
    base: &Profile,
    base_name: Option<String>,
    limits: Limits,
    progress: &(dyn Fn(&str) + Sync),
) -> Discovery {
    let mut d = Discoverer::new(client, base, limits, progress);
    run(&mut d).await;
    d.finish(base_name)
}

/// The families in the order their requests go out: the numbers first, since most fixtures
/// hang off `phone_number_id`.
async fn run(d: &mut Discoverer<'_>) {
    let numbers = d.phone_numbers().await;
    let Some(pn) = d.have_str(Fixture::PhoneNumberId) else {
        let why = match numbers {
            Err(e) => Reason::Request(e),
            Ok(_) => Reason::NoPhoneNumbers,
        };
        for f in Fixture::ALL {
            let of_number = !matches!(
                f,
                Fixture::WebhookId
                    | Fixture::CustomFieldKey
                    | Fixture::CustomFieldValue
                    | Fixture::CustomFieldMultiKey
            );
            if f.discoverable() && of_number {
                d.not_found(f, Reason::NoPhoneNumberId(Box::new(why.clone())));
            }
        }
        d.webhook().await;
        d.custom_fields().await;
        return;
    };
    let numbers = numbers.unwrap_or_default();
    d.number_details(&pn, &numbers).await;
    d.webhook().await;
    d.custom_fields().await;
    let inbox = d.inbox(&pn, &numbers).await;
    d.one_to_one(&inbox).await;
    d.groups(&inbox).await;
    d.message_kinds(&inbox).await;
    d.conditional(&pn, inbox.conversations.as_deref().ok())
        .await;
    d.calls(&pn, &numbers).await;
}
