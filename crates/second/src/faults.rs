//! Injected faults: deliberate deviations from one clause each, switched on by name. The
//! conforming server has none on. Code checks one with `app.faults.on("name")`.

use std::collections::BTreeSet;

/// The catalog: (name, the clause it breaks and how). Filled by the authors of blind sets.
pub const CATALOG: &[(&str, &str)] = &[
    (
        "b16-contacts-maxresults-50-refused",
        "v1 API: contacts > GET /v1/contacts: maxResults=50 is refused with 400 (range checked as 1..49, upper bound exclusive)",
    ),
    (
        "b16-contacts-patch-keeps-omitted-entries",
        "v1 API: contacts > PATCH /v1/contacts/{id}: emails and phone numbers left out of defaultFields are kept instead of deleted (merge, not replace)",
    ),
    (
        "b16-contacts-patch-keeps-omitted-custom-fields",
        "v1 API: contacts > PATCH /v1/contacts/{id}: customFields entries left out of the body are kept (merged by key) instead of deleted",
    ),
    (
        "b16-contacts-create-source-75",
        "v1 API: contacts > POST /v1/contacts: source of 73-75 characters is accepted on create (the update bound 75 is used instead of 72)",
    ),
    (
        "b16-contacts-reserved-prefix-allowed",
        "v1 API: contacts > POST /v1/contacts: a source starting with the reserved prefix `csv` or the brand name (e.g. `csv-import`) is accepted; only whole reserved words are refused",
    ),
    (
        "b16-contacts-custom-field-generic-400",
        "Errors > Rules 1: an invalid custom field item on contact create/update answers 400 with the generic code 0802400 and title `Bad Request` instead of 0801400 `Invalid Custom Field Item`",
    ),
    (
        "b16-contacts-externalids-last-only",
        "v1 API: contacts > GET /v1/contacts: with externalIds repeated, only the last value filters (the others are dropped), so contacts of the earlier ids are missing",
    ),
    (
        "b16-contacts-latest-source-in-ignored",
        "Pagination and collection conventions: GET /contacts accepts `source[in]` but does not apply it; contacts of other sources are listed",
    ),
    (
        "b16-contacts-timestamps-local-offset",
        "Conventions: contact createdAt/updatedAt are shown in the server's local offset (+02:00) instead of UTC",
    ),
    (
        "b16-contacts-patch-no-event",
        "Events: contact.updated is fired on contact creation but not when a contact is updated with PATCH",
    ),
    (
        "b16-events-contact-deleted-as-updated",
        "Events: a deleted contact fires `contact.updated` instead of `contact.deleted`",
    ),
    (
        "b16-tasks-open-limit-off-by-one",
        "Errors > Rules 6 / Limits: creating a task when the workspace already holds the open-task limit is accepted (check is `>` instead of `>=`); 402 only one task later",
    ),
    (
        "b16-tasks-reopen-stays-completed",
        "States and transitions > Task completed -> reopen: reopen answers 200 and fires task.reopened but the task stays completed (only completedBy is cleared)",
    ),
    (
        "b16-tasks-put-ignores-description",
        "v1 API: tasks > PUT /v1/tasks/{taskId}: only the title is updated; the description sent is dropped",
    ),
    (
        "b16-tasks-delete-not-persisted",
        "States and transitions > Task any -> DELETE: the delete answers 200 and fires task.deleted but the task is not deleted (still readable and listed)",
    ),
    (
        "b16-tasks-unassign-stale-revision",
        "v1 API: tasks > POST /v1/tasks/{taskId}/unassign: the answer's revision is the task's revision before the change, not the new one",
    ),
    (
        "b16-tasks-duedate-event-type",
        "Events: change-due-date fires `task.updated` instead of `task.duedate.updated`",
    ),
    (
        "b16-tasks-list-page-repeats",
        "Pagination and collection conventions: a page of GET /v1/tasks after a pageToken starts again with the last task of the previous page (when maxResults > 1)",
    ),
    (
        "b16-messages-since-as-created-after",
        "Versioning 5 / v1 API: messages > GET /v1/messages: deprecated `since` behaves as createdAfter instead of createdBefore",
    ),
    (
        "b16-messages-v1-newest-first",
        "v1 API: messages > GET /v1/messages: messages are listed newest first instead of in chronological order",
    ),
    (
        "b16-messages-whitespace-text-accepted",
        "Errors > Rules 4 / POST /v1/messages: a text of only whitespace is accepted (only the empty text is refused)",
    ),
    (
        "b16-messages-eleven-recipients-accepted",
        "Limits > Recipients in `to`: POST /v1/messages accepts 11 recipients (limit checked as > 11)",
    ),
    (
        "b16-messages-phonenumberid-ignored",
        "Versioning 5 / POST /v1/messages: deprecated `phoneNumberId` no longer identifies the sender; a send with it (no `from`) is refused 400",
    ),
    (
        "b16-messages-expired-title",
        "Errors > Messages 402: sending with an expired subscription answers 402 with title `Payment Required` instead of `Subscription Expired`",
    ),
    (
        "b16-messages-to-filter-superset",
        "Header-versioned API > GET /messages: the recipient filter `to` matches messages whose recipients include the set (superset) instead of the exact recipient set",
    ),
    (
        "b16-messages-retry-undelivered",
        "States and transitions > Message undelivered: POST /messages/{id}/retry re-attempts an undelivered message (202) instead of refusing it",
    ),
    (
        "b16-messages-get-no-conversationid",
        "Resources > Message: GET /messages/{messageId} omits conversationId",
    ),
    (
        "b16-messages-v1-page-skips",
        "Pagination and collection conventions: GET /v1/messages nextPageToken continues after the item following the page's last one, so one message is skipped per page",
    ),
    (
        "b16-conversations-phonenumber-wins",
        "Versioning 5 / GET /v1/conversations: deprecated `phoneNumber` is used and `phoneNumbers` ignored when both are given (the reverse of the rule)",
    ),
    (
        "b16-conversations-mark-read-no-access-check",
        "Authentication 3: POST mark-as-read (both generations) skips the number-scoped access check; a user not on the conversation's number gets 200 instead of 403 Not Phone Number User",
    ),
    (
        "b16-conversations-maxresults-100-refused",
        "Limits > maxResults 1-100: GET /v1/conversations refuses maxResults=100 (bound checked as 1..99)",
    ),
    (
        "b16-conversations-sort-created-asc-ignored",
        "Header-versioned API > GET /conversations: sort=createdAt:asc is answered newest first (direction ignored for createdAt)",
    ),
    (
        "b16-conversations-exclude-inactive-ignored",
        "v1 API: conversations > GET /v1/conversations: the exclude-inactive flag is accepted but not applied; inactive conversations are listed",
    ),
    (
        "b16-calls-empty-participants-accepted",
        "Errors > Rules 3 / GET /v1/calls: an empty participants value is accepted (all calls of the number listed) instead of 400",
    ),
    (
        "b16-calls-too-many-participants-title",
        "Errors > Calls 0101400: too many participants answers code 0101400 with title `Bad Request` instead of `Too Many Participants`",
    ),
    (
        "b16-calls-v1-get-forbidden-title",
        "Authentication 3 / Calls 0101403: GET /v1/calls/{callId} by a user not on the call's number answers 403 code 0100403 title `Forbidden` instead of 0101403 `Not Phone Number User`",
    ),
    (
        "b16-recordings-v1-newest-first",
        "v1 API: calls and recordings > GET /v1/call-recordings/{callId}: segments are listed newest first instead of oldest first",
    ),
    (
        "b16-calls-since-ignored",
        "Versioning 5 / GET /v1/calls: deprecated `since` is accepted but ignored (does not behave as createdBefore)",
    ),
    (
        "b16-recordings-latest-id-without-prefix",
        "Conventions (prefix CR) / GET /calls/{callId}/recordings: recording ids are shown without their `CR` prefix",
    ),
    (
        "b16-events-call-forwarded-without-fields",
        "Events > call.forwarded: the event's resource lacks forwardedFrom and forwardedTo",
    ),
    (
        "b16-users-v1-401-calls-code",
        "Errors > Users 1100401: GET /v1/users/{userId} without valid credentials answers code 0100401 (the Calls code) instead of 1100401",
    ),
    (
        "b16-phone-numbers-get-number-field",
        "Versioning 6 / GET /phone-numbers/{phoneNumberId}: the number is shown as `number` instead of `phoneNumber`",
    ),
    (
        "b16-phone-numbers-e164-filter-ignored",
        "Header-versioned API > GET /phone-numbers: the filter by E.164 number (`phoneNumber=`) is accepted but ignored",
    ),
    (
        "b16-users-list-page-repeats",
        "Pagination and collection conventions: a page of GET /users after a pageToken starts again with the last user of the previous page (when maxResults > 1)",
    ),
    (
        "b16-organization-id-without-prefix",
        "Conventions (prefix OR) / GET /organization: the organization id is shown without its `OR` prefix",
    ),
    (
        "b16-webhooks-get-bad-id-404",
        "Errors > header-versioned webhook 400: GET /webhooks/{webhookId} with a non-numeric id answers 404 Not Found instead of 400 Bad Request",
    ),
    (
        "b16-webhooks-404-v1-body",
        "Errors > header-versioned webhook error body: GET /webhooks/{webhookId} 404 carries `code`, `status` and `trace` (v1 body)",
    ),
    (
        "b16-webhooks-limit-51",
        "Limits > Webhooks per workspace 50: POST /webhooks accepts a 51st webhook (count checked with `>`)",
    ),
    (
        "b16-webhooks-rotate-not-persisted",
        "Header-versioned API > POST /webhooks/{id}/rotate: the new secret is returned but not stored; deliveries stay signed with the old secret",
    ),
    (
        "b16-webhooks-signature-millis",
        "Authentication 4: deliveries are signed over the timestamp in milliseconds while webhook-timestamp carries seconds, so the Standard Webhooks signature does not verify",
    ),
    (
        "b16-webhooks-no-automatic-retry",
        "Events: a failed delivery (receiver answered non-2xx) is not retried automatically",
    ),
    (
        "b16-webhooks-id-header-event-id",
        "Events > Delivery records: the webhook-id header carries the event (payload) id instead of the delivery id",
    ),
    (
        "b16-webhooks-resourceid-filter-matches-null",
        "Events > Delivery records: the resourceId filter of GET /webhooks/{id}/events also matches deliveries whose resourceId is null (test and pre-cutoff deliveries)",
    ),
    (
        "b16-webhooks-resourceids-ignored",
        "Events: subscriptions are not limited by resourceIds; a webhook subscribed to one number receives events of every number",
    ),
    (
        "b16-webhooks-apiversion-not-pinned",
        "Versioning 3: POST /webhooks does not persist apiVersion; the webhook shows none",
    ),
    (
        "b16-webhooks-test-delivery-has-ids",
        "Events > Delivery records: test deliveries carry a non-null eventId and resourceId",
    ),
    (
        "b16-auth-messages-version-optional",
        "Versioning 1 / READINGS 8.1: GET /messages without Service-Api-Version is served (200) instead of refused with a 4xx",
    ),
    (
        "b16-auth-contacts-latest-403",
        "Authentication 3: GET /contacts and GET /contacts/{id} with missing or invalid credentials answer 403 Forbidden instead of 401 Unauthorized",
    ),
    (
        "b16-auth-key-prefix-match",
        "Authentication 1/3: an API key is matched on its first 16 characters only, so an invalid key sharing that prefix is accepted",
    ),
];

/// The faults switched on for one instance.
#[derive(Debug, Clone, Default)]
pub struct FaultSet(BTreeSet<String>);

impl FaultSet {
    /// Checks every name against the catalog.
    pub fn new(names: &[String]) -> std::io::Result<FaultSet> {
        for n in names {
            if !CATALOG.iter().any(|(c, _)| c == n) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("unknown fault `{n}`"),
                ));
            }
        }
        Ok(FaultSet(names.iter().cloned().collect()))
    }

    /// Whether the named fault is switched on.
    pub fn on(&self, name: &str) -> bool {
        self.0.contains(name)
    }
}
