//! The fault catalog: each fault is a named deviation of the reference from exactly one clause.
//!
//! The suite's own tests run every case against the reference once per fault and require a
//! failing case that cites the fault's clause; a check no fault can trip is unproven.

use std::collections::BTreeSet;

/// One entry of the catalog.
#[derive(Debug, Clone, Copy)]
pub struct FaultInfo {
    pub fault: Fault,
    /// Name used with `serve --fault NAME`.
    pub name: &'static str,
    /// The clause id (see `schemas/clauses.yaml`) the fault breaks.
    pub clause: &'static str,
    /// What the reference does wrong when the fault is on.
    pub description: &'static str,
    /// Moves a stated limit by one (written `boundary` in the catalog): the self-test requires
    /// a property to catch it.
    pub boundary: bool,
    /// The blind set the fault belongs to (written `blind1` to `blind15` in the catalog): written
    /// from the contract, the readings and the reference alone, without the suite's checks or
    /// cases, as a measure of the suite on defects nobody wrote a check for.
    pub blind_set: Option<u8>,
}

/// The kind written before a fault's name: `boundary`, a blind set, or nothing.
macro_rules! kind {
    (boundary, boundary) => {
        true
    };
    (boundary, $other:ident) => {
        false
    };
    (boundary,) => {
        false
    };
    (blind_set, blind1) => {
        Some(1)
    };
    (blind_set, blind2) => {
        Some(2)
    };
    (blind_set, blind3) => {
        Some(3)
    };
    (blind_set, blind4) => {
        Some(4)
    };
    (blind_set, blind5) => {
        Some(5)
    };
    (blind_set, blind6) => {
        Some(6)
    };
    (blind_set, blind7) => {
        Some(7)
    };
    (blind_set, blind8) => {
        Some(8)
    };
    (blind_set, blind9) => {
        Some(9)
    };
    (blind_set, blind10) => {
        Some(10)
    };
    (blind_set, blind11) => {
        Some(11)
    };
    (blind_set, blind12) => {
        Some(12)
    };
    (blind_set, blind13) => {
        Some(13)
    };
    (blind_set, blind14) => {
        Some(14)
    };
    (blind_set, blind15) => {
        Some(15)
    };
    (blind_set, $other:ident) => {
        None
    };
    (blind_set,) => {
        None
    };
}

macro_rules! entry {
    ($variant:ident, $($kind:ident)?, $name:literal, $clause:literal, $description:literal) => {
        FaultInfo {
            fault: Fault::$variant,
            name: $name,
            clause: $clause,
            description: $description,
            boundary: kind!(boundary, $($kind)?),
            blind_set: kind!(blind_set, $($kind)?),
        }
    };
}

macro_rules! catalog {
    (
        recorded {
            $($variant:ident => $($kind:ident)? $name:literal, $clause:literal, $description:literal;)*
        }
        pending {
            $($pvariant:ident => $($pkind:ident)? $pname:literal, $pclause:literal, $pdescription:literal;)*
        }
    ) => {
        /// A deviation from the contract that the reference can be told to commit.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Fault { $($variant,)* $($pvariant,)* }

        /// Every fault of the catalog, in catalog order: the self-test requires each to be
        /// caught by the trials and checks its record names.
        pub const CATALOG: &[FaultInfo] = &[
            $(entry!($variant, $($kind)?, $name, $clause, $description),)*
        ];

        /// Faults of a blind set not yet in the catalog: they can be switched on and are
        /// measured (docs/self-proof.md), and join the catalog, with their recorded catches, once
        /// a mechanism of the suite catches them.
        pub const PENDING: &[FaultInfo] = &[
            $(entry!($pvariant, $($pkind)?, $pname, $pclause, $pdescription),)*
        ];
    };
}

catalog! {
recorded {
    Contact404WrongCode => "contact-404-wrong-code", "Errors > v1 codes",
        "PATCH of a missing contact answers 404 with code 0800400 instead of 0800404";
    UnauthorizedWrongTitle => "unauthorized-wrong-title", "Authentication > 3",
        "401 answers carry the title `Unauthenticated` instead of `Unauthorized`";
    CreateContactNoEnvelope => "create-contact-no-envelope", "What the service does > data envelope",
        "POST /v1/contacts returns the contact without the `data` wrapper";
    LastPageTokenNotNull => "last-page-token-not-null", "Pagination and collection conventions > last page",
        "the page holding the last contact carries a nextPageToken that leads to an empty page";
    DuplicateAcrossPages => "duplicate-across-pages", "Pagination and collection conventions > pageToken",
        "each following page of a contact list repeats the last item of the page before";
    MaxResultsIgnored => "max-results-ignored", "Pagination and collection conventions > maxResults",
        "contact lists ignore maxResults and always answer pages of 10";
    PatchMergesEntries => "patch-merges-entries", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "PATCH keeps emails, phone numbers and custom fields omitted from the body";
    ReservedSourceAccepted => "reserved-source-accepted", "v1 API: contacts > POST /v1/contacts",
        "the reserved source words and prefixes are accepted on create";
    ExternalId76Accepted => boundary "external-id-76-accepted", "Resources > Contact > externalId",
        "an externalId of 76 characters is accepted";
    MissingAuthAccepted => "missing-auth-accepted", "Authentication > 1",
        "requests without an Authorization header are served as the primary user";
    HvErrorHasCode => "hv-error-has-code", "Errors > Header-versioned webhook error body",
        "webhook error bodies carry `code`, `status` and `trace` like v1 bodies";
    WebhookIdPatternUnchecked => "webhook-id-pattern-unchecked", "Header-versioned API > GET /webhooks/{webhookId}",
        "a non-numeric webhookId answers 404 instead of 400";
    CustomField500 => "custom-field-500", "Errors > Rules > 1",
        "an invalid custom field item answers 500 Unknown instead of 400";
    SourceNotPublicApi => "source-not-public-api", "Resources > Contact > source",
        "contacts created through the API get source null instead of `public-api`";
    DefaultPageSize20 => "default-page-size-20", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts without maxResults answers pages of 20";
    MissingContactBlankMessage => "missing-contact-blank-message", "Errors > Rules > 2",
        "a missing contact answers 404 with an empty message";
    InFilterIgnored => "in-filter-ignored", "Pagination and collection conventions > in operator",
        "GET /contacts ignores the externalId[in] and source[in] filters";
    VersionHeaderIgnored => "version-header-ignored", "Versioning > 1",
        "header-versioned endpoints serve requests without Service-Api-Version";
    ListWithoutTotalItems => "list-without-total-items", "Pagination and collection conventions > list shape",
        "list answers omit totalItems";
    V1ErrorStatusMismatch => "v1-error-status-mismatch", "Errors > v1 error body",
        "v1 error bodies carry `status` as a string";
    ExternalIdsFilterIgnored => "external-ids-filter-ignored", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts ignores the externalIds filter";
    WrongContentType => "wrong-content-type", "Endpoints > JSON bodies",
        "contact answers are labelled text/plain instead of application/json";
    Webhook404WrongTitle => "webhook-404-wrong-title", "Errors > Header-versioned webhook error body",
        "a missing webhook answers 404 with the title `Webhook Not Found`";
    ContactIdNotFoundAs500 => "missing-contact-500", "Errors > no server errors",
        "GET /contacts/{contactId} of a missing contact answers 500";

    // Boundary faults (`boundary`): each moves one stated limit by one; a property must catch each.
    ExternalIdMax74 => boundary "external-id-max-74", "Resources > Contact > externalId",
        "an externalId of 75 characters is rejected (limit moved down to 74)";
    ExternalIdMin0 => boundary "external-id-min-0", "Resources > Contact > externalId",
        "an empty externalId is accepted (minimum moved down to 0)";
    SourceCreateMax73 => boundary "source-create-max-73", "Resources > Contact > source",
        "a source of 73 characters is accepted on create (limit moved up from 72)";
    SourceUpdateMax74 => boundary "source-update-max-74", "Resources > Contact > source",
        "a source of 75 characters is rejected on update (limit moved down to 74)";
    SourceUrlMax201 => boundary "source-url-max-201", "Resources > Contact > sourceUrl",
        "a sourceUrl of 201 characters is accepted (limit moved up from 200)";
    ContactsMaxResultsMax51 => boundary "contacts-max-results-max-51", "Limits > maxResults contacts",
        "GET /v1/contacts accepts maxResults 51 (limit moved up from 50)";
    ContactsMaxResultsMin2 => boundary "contacts-max-results-min-2", "Limits > maxResults contacts",
        "GET /v1/contacts rejects maxResults 1 (minimum moved up to 2)";
    MessagesMaxResultsMax101 => boundary "messages-max-results-max-101", "Limits > maxResults",
        "GET /v1/messages accepts maxResults 101 (limit moved up from 100)";
    MessageParticipantsMax11 => boundary "message-participants-max-11", "v1 API: messages > GET /v1/messages > participants",
        "GET /v1/messages accepts 11 participants (limit moved up from 10)";
    ConversationPhoneNumbersMax101 => boundary "conversation-phone-numbers-max-101", "v1 API: conversations > GET /v1/conversations > phoneNumbers",
        "GET /v1/conversations accepts 101 phoneNumbers (limit moved up from 100)";
    CallsMaxResultsMin2 => boundary "calls-max-results-min-2", "Limits > maxResults",
        "GET /v1/calls rejects maxResults 1 (minimum moved up to 2)";
    TextUnicodeSpaceAccepted => boundary "text-unicode-space-accepted", "Errors > Rules > 4",
        "a message of only Unicode spaces (no ASCII whitespace besides) is sent: only ASCII whitespace counts as blank";
    E164LeadingZeroAccepted => boundary "e164-leading-zero-accepted", "Conventions > phone numbers",
        "contact phone numbers accept an E.164 number whose first digit is 0";
    ExternalIdsFilterMax76 => boundary "external-ids-filter-max-76", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts accepts an externalIds value of 76 characters (limit moved up from 75)";

    // --- messages and conversations (issue 4): add this area's faults below ---
    MessagesV1NewestFirst => "messages-v1-newest-first", "v1 API: messages > GET /v1/messages",
        "GET /v1/messages answers newest first instead of in chronological order";
    MessagesOldestFirst => "messages-oldest-first", "Header-versioned API > GET /messages",
        "GET /messages answers oldest first instead of newest first";
    ConversationsV1OldestFirst => "conversations-v1-oldest-first", "v1 API: conversations > GET /v1/conversations",
        "GET /v1/conversations answers oldest first instead of newest first";
    ParticipantsFilterIgnored => "participants-filter-ignored", "v1 API: messages > GET /v1/messages > participants",
        "GET /v1/messages ignores participants and lists every message of the phone number";
    SinceAsCreatedAfter => "since-as-created-after", "v1 API: messages > GET /v1/messages > since",
        "the deprecated `since` of GET /v1/messages behaves as createdAfter instead of createdBefore";
    WhitespaceTextAccepted => "whitespace-text-accepted", "Errors > Rules > 4",
        "POST /v1/messages sends a text made only of whitespace";
    ElevenRecipientsAccepted => boundary "eleven-recipients-accepted", "Limits > recipients in to",
        "POST /v1/messages accepts 11 recipients in `to`";
    UndeliveredRetryAccepted => "undelivered-retry-accepted", "States and transitions > Message > retry undelivered",
        "POST /messages/{messageId}/retry re-attempts an undelivered message";
    PermanentRetryAccepted => "permanent-retry-accepted", "States and transitions > Message > retry permanent error",
        "POST /messages/{messageId}/retry re-attempts a message that failed with a permanent error";
    MarkDoneWithoutBody => "mark-done-without-body", "States and transitions > Conversation > mark-as-done",
        "mark-as-done answers 204 without the updated conversation";
    SubscriptionExpiredWrongCode => "subscription-expired-wrong-code", "Errors > Rules > 7",
        "sending with an expired subscription answers 402 with code 0200402 instead of 0201402";
    Conversation404WrongCode => "conversation-404-wrong-code", "Errors > v1 codes",
        "mark-as-* of a missing conversation answers 404 with code 1000400 instead of 1000404";
    MessageWithoutConversationId => "message-without-conversation-id", "Resources > Message > conversationId",
        "GET /messages/{messageId} leaves `conversationId` out of the message";
    StatusFilterIgnored => "status-filter-ignored", "Pagination and collection conventions > filters",
        "GET /messages ignores the status and status[in] filters";
    DeprecatedPhoneNumberWins => "deprecated-phone-number-wins", "v1 API: conversations > GET /v1/conversations > phoneNumber",
        "GET /v1/conversations filters by the deprecated phoneNumber even when phoneNumbers is given";
    InternationalAllowed => "international-allowed", "Errors > Rules > 5",
        "a workspace with international messaging disabled sends to international numbers";
    ConversationsSortIgnored => "conversations-sort-ignored", "Pagination and collection conventions > sort",
        "GET /conversations ignores `sort` and always answers newest created first";
    CreatedAfterIgnored => "created-after-ignored", "v1 API: messages > GET /v1/messages > created range",
        "GET /v1/messages ignores createdAfter";


    // --- calls, recordings, users, phone numbers, organization, access control (issue 5): add this area's faults below ---
    CallsWrongKeyAccepted => "calls-wrong-key-accepted", "Authentication > 3",
        "call and recording endpoints serve a request with an unknown API key as the primary user (401 served as 200)";
    NotPhoneNumberUserTitleForbidden => "calls-403-title-forbidden", "Authentication > 3",
        "the number-scoped 403 on calls carries the title `Forbidden` instead of `Not Phone Number User`";
    ParticipantsRuleOff => "participants-rule-off", "v1 API: calls and recordings > GET /v1/calls > participants",
        "GET /v1/calls accepts two or more participants instead of answering 400 Too Many Participants";
    EmptyParticipantsAccepted => "empty-participants-accepted", "Errors > Rules > 3",
        "GET /v1/calls with an empty participants value answers 200";
    RecordingsNewestFirst => "recordings-newest-first", "v1 API: calls and recordings > GET /v1/call-recordings/{callId}",
        "recording segments (and transcript segments) come newest first";
    PhoneNumberFieldNumber => "phone-number-field-number", "Header-versioned API > GET /phone-numbers",
        "header-versioned phone numbers carry `number` instead of `phoneNumber`";
    CallIncludeIgnored => "call-include-ignored", "Header-versioned API > GET /calls > include",
        "include=summary,voicemail is ignored: calls never carry summary or voicemail";
    RestrictionsIncludeIgnored => "restrictions-include-ignored", "Header-versioned API > GET /phone-numbers > include",
        "include=restrictions is ignored: phone numbers never carry restrictions";
    CallsVersionUnchecked => "calls-version-unchecked", "Versioning > 1",
        "call endpoints serve any Service-Api-Version value, not only 2026-03-30";
    CallsOldestFirst => "calls-oldest-first", "Header-versioned API > GET /calls",
        "GET /calls lists calls oldest first instead of newest first";
    CallIdWrongPrefix => "call-id-prefix-ca", "Resources > Call",
        "call ids are shown with the prefix `CA` instead of `AC`";
    PhoneNumberFilterIgnored => "phone-number-filter-ignored", "Header-versioned API > GET /phone-numbers",
        "GET /phone-numbers ignores the phoneNumber filter";
    CallsSinceAsCreatedAfter => "calls-since-as-created-after", "Versioning > 5",
        "the deprecated `since` of GET /v1/calls behaves as createdAfter instead of createdBefore";


    // --- webhooks (issue 7) ---
    WebhookUnsigned => "webhook-unsigned", "Authentication > 4",
        "deliveries carry no webhook-signature header";
    WebhookSignedBodyOnly => "webhook-signed-body-only", "Authentication > 4",
        "the signature is an HMAC of the body alone instead of id, timestamp and body";
    WebhookStaleTimestamp => "webhook-stale-timestamp", "Authentication > 4",
        "webhook-timestamp is ten minutes in the past";
    WebhookWrongSecret => "webhook-wrong-secret", "Authentication > 4",
        "deliveries are signed with a secret other than the webhook's";
    WebhookMalformedSignature => "webhook-malformed-signature", "Authentication > 4",
        "webhook-signature is `v1,` followed by text that is not base64";
    WebhookRetryNewId => "webhook-retry-new-id", "Events > deliveries",
        "an automatic retry carries a new webhook-id";
    WebhookNoRetry => "webhook-no-retry", "Events > deliveries",
        "a delivery answered 500 is never retried";
    WebhookApiVersionNotPinned => "webhook-api-version-not-pinned", "Versioning > 3",
        "POST /webhooks ignores x-service-api-version: apiVersion stays null";
    WebhookMixedWildcardAccepted => "webhook-mixed-wildcard-accepted", "Resources > Webhook > resourceIds",
        "resourceIds mixing `*` with phone number ids are accepted";
    WebhookEmptyEventsAccepted => boundary "webhook-empty-events-accepted", "Resources > Webhook > events",
        "a webhook with an empty events array is accepted";
    WebhookLimitNotEnforced => "webhook-limit-not-enforced", "Limits > webhooks per workspace",
        "a 51st webhook is accepted";
    WebhookStatusDefaultDisabled => "webhook-status-default-disabled", "Resources > Webhook > status",
        "a webhook created without status is disabled";
    WebhookRotateKeepsSecret => "webhook-rotate-keeps-secret", "Header-versioned API > POST /webhooks/{id}/rotate",
        "rotate answers and keeps the old secret";
    WebhookEventIgnoresResource => "webhook-event-ignores-resource", "Events > subscriptions",
        "events go to every webhook subscribed to the event, whatever its resourceIds";
    WebhookHistoryIdDiffers => "webhook-history-id-differs", "Events > delivery records",
        "delivery records carry an id other than the webhook-id header";
    WebhookTestHasResourceId => "webhook-test-has-resource-id", "Events > delivery records",
        "test deliveries show a resourceId instead of null";
    WebhookResourceFilterIgnored => "webhook-resource-filter-ignored", "Events > delivery records",
        "GET /webhooks/{id}/events ignores the resourceId filter";
    WebhookManualRetryNoop => "webhook-manual-retry-noop", "Header-versioned API > webhook delivery history",
        "a manual retry answers 2xx but sends nothing";
    WebhookManagementIdUnchecked => "webhook-management-id-unchecked", "Errors > Header-versioned webhook error body",
        "PATCH, DELETE and rotate of a non-numeric webhookId answer 404 instead of 400";
    WebhookIdNotNumeric => "webhook-id-not-numeric", "Resources > Webhook > id",
        "created webhooks get ids like `wh2001` instead of stringified numbers";
    WebhookResourceIdPatternUnchecked => boundary "webhook-resource-id-pattern-unchecked", "Resources > Webhook > resourceIds",
        "resourceIds items that are neither `*` nor a phone number id (^PN) are accepted";
    TaskEventsAllUpdated => "task-events-all-updated", "Events > event table",
        "every task change after creation fires task.updated instead of its own event (task.completed, task.assigned, ...)";
    MessageReceivedNotFired => "message-received-not-fired", "Events > event table",
        "an inbound message fires no message.received";
    CallProcessingEventsNotFired => "call-processing-events-not-fired", "Events > event table",
        "a call fires ringing, answered and completed, but no recording, summary or transcript event";
    CallForwardedWithoutNumbers => "call-forwarded-without-numbers", "Events > event table",
        "call.forwarded carries neither forwardedFrom nor forwardedTo";
    ContactDeletedNotFired => "contact-deleted-not-fired", "Events > event table",
        "a deleted contact fires no contact.deleted";
    ContactUpdateNotFired => "contact-update-not-fired", "Events > event table",
        "PATCH /v1/contacts/{id} fires no contact.updated (only creation does)";

    // --- tasks (issue 6): add this area's faults below ---
    TaskCompleteNoEffect => "task-complete-no-effect", "States and transitions > Task > complete",
        "complete answers 200 but leaves the task open (completed false)";
    TaskReopenNoEffect => "task-reopen-no-effect", "States and transitions > Task > reopen",
        "reopen answers 200 but leaves the task completed";
    TaskDeletedStillReadable => "task-deleted-still-readable", "States and transitions > Task > delete",
        "GET of a deleted task answers 200 with the task shown as live (isDeleted false) instead of 404";
    TaskDueDateNotCleared => "task-due-date-not-cleared", "States and transitions > Task > due date",
        "remove-due-date answers 200 but keeps the due date";
    TaskUnlinkNoEffect => "task-unlink-no-effect", "States and transitions > Task > link conversation",
        "unlink-conversation answers 200 but keeps the conversation linked";
    TaskUnassignNoRevision => "task-unassign-no-revision", "v1 API: tasks > POST /v1/tasks/{taskId}/unassign",
        "unassign answers {data: {taskId}} without revision";
    TaskRevisionUnchanged => "task-revision-unchanged", "Resources > Task > revision",
        "every task shows revision 1, whatever changed";
    TaskLimitNotEnforced => "task-limit-not-enforced", "Errors > Rules > 6",
        "creates beyond the open-task limit are accepted";
    TaskReopenIgnoresLimit => "task-reopen-ignores-limit", "Errors > Rules > 6",
        "reopen of a completed task is accepted when the open-task limit is reached";
    TaskLimitWrongCode => "task-limit-wrong-code", "Errors > v1 codes",
        "the open-task limit answers 402 with code 0201402 instead of 0600402";
    TaskAssignWithoutUserAccepted => "task-assign-without-user-accepted", "States and transitions > Task > assign and unassign",
        "assign without a userId answers 200 and changes nothing";
    TaskInvalidDueDateAccepted => "task-invalid-due-date-accepted", "States and transitions > Task > due date",
        "change-due-date ignores a dueDate that is not a date-time and answers 200";
    TaskPutIgnoresDescription => "task-put-ignores-description", "v1 API: tasks > PUT /v1/tasks/{taskId}",
        "PUT changes the title but keeps the old description";

    // --- effects read back, side effects watched (issue 16) ---
    AvailableSearchBuys => "available-search-buys", "Header-versioned API > GET /phone-numbers/available",
        "GET /phone-numbers/available buys the first number it finds: the workspace lists it afterwards";
    VoicemailNeedsSummary => "voicemail-needs-summary", "Header-versioned API > GET /calls > include",
        "include=voicemail alone adds nothing: the voicemail comes only with include=summary,voicemail";
    WebhookLimitCountsRunOnly => "webhook-limit-counts-run-only", "Limits > webhooks per workspace",
        "the limit of 50 counts only webhooks created since the reference started: a workspace that had some takes 50 more";
    TaskLimitCountsRunOnly => "task-limit-counts-run-only", "Errors > Rules > 6",
        "creates count only tasks opened since the reference started toward the open-task limit: a workspace that had open tasks takes the whole limit more";
    ParticipantsFilterMatchesSupersets => "participants-filter-matches-supersets", "v1 API: messages > GET /v1/messages > participants",
        "GET /v1/messages lists the messages of every conversation holding all the given participants, not only of that exact set";
    CallsStatusFilterIgnored => "calls-status-filter-ignored", "Header-versioned API > GET /calls",
        "GET /calls ignores the status filter (a survivor of the mutants run, calls.rs:421)";
    TaskUnassignKeepsUser => "task-unassign-keeps-user", "States and transitions > Task > assign and unassign",
        "unassign answers 200 with a new revision but the user stays assigned";
    WebhookRotateResetsEvents => "webhook-rotate-resets-events", "Header-versioned API > POST /webhooks/{id}/rotate",
        "rotate issues a new secret but also cuts the webhook's events down to the first one";
    ConversationMarkIgnoresNumberAccess => "conversation-mark-ignores-number-access", "Authentication > 3",
        "mark-as-done/-open/-read serve a caller who is not a user of the conversation's phone number (no 403 Not Phone Number User)";

    // --- what the suite sends (issue 15): each is seen only through a request a demanding
    // variant's family requires of the suite (see `Fault::family`) ---
    ReservedSourceAcceptedWithFirstName => "reserved-source-accepted-with-first-name", "v1 API: contacts > POST /v1/contacts",
        "POST /v1/contacts accepts a reserved source when defaultFields holds a firstName (a suite leaving defaultFields out meets only require-default-fields' 400)";
    CallsMaxResultsUncheckedWithParticipants => "calls-max-results-unchecked-with-participants", "Limits > maxResults",
        "GET /v1/calls skips the maxResults range when participants are given (a suite leaving them out meets only require-list-filters' 400)";
    PhoneNumbersUncheckedWhenKnown => "phone-numbers-unchecked-when-known", "Limits > phoneNumbers filter",
        "GET /v1/conversations takes more than 100 phoneNumbers when each is a number of the workspace (invented numbers meet only unknown-resources-404's 404)";
    LegacyWebhookKindUnauthenticated => "legacy-webhook-kind-unauthenticated", "Authentication > 1",
        "POST /v1/webhooks/{kind} serves a kind of the closed set without a key (a kind outside the set meets only route-before-auth's 404)";
    EmptyTextAccepted => "empty-text-accepted", "Errors > Rules > 4",
        "POST /v1/messages sends an empty text: only a text holding whitespace counts as blank, so a whitespace text that trim-whitespace emptied passes";
    BodylessPost415 => "bodyless-post-415", "Header-versioned API > POST /webhooks/{id}/rotate",
        "a POST without a body answers 415 as if a JSON body were required (rotate, retry, mark-as-*, test deliveries take none)";
    GroupToTruncatedAt9 => "group-to-truncated-at-9", "v1 API: messages > POST /v1/messages > to",
        "a group message keeps only its first 9 recipients (seen with a profile list at the end of the range, group-recipients-10)";
    RenamedTextDropped => "renamed-text-dropped", "v1 API: messages > POST /v1/messages",
        "a message whose text came under the target's own name (message-text-content) is stored with an empty text";

    // --- unproven clauses, group 3 (issue 18) ---
    WebhookCreateDropsLabel => "webhook-create-drops-label", "Header-versioned API > POST /webhooks",
        "POST /webhooks answers 201 but stores the webhook without the label sent (read back null)";
    WebhookPatchIgnoresLabel => "webhook-patch-ignores-label", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} answers 200 and changes the status sent but keeps the old label";
    WebhookTestNotSent => "webhook-test-not-sent", "Header-versioned API > POST /webhooks/{id}/events/test",
        "POST /webhooks/{id}/events/test answers 202 with the delivery record but never sends the test delivery";
    ConversationsCreatedBeforeIgnored => "conversations-created-before-ignored", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations ignores createdBefore (the other bounds still apply)";
    MarkReadNoEnvelope => "mark-read-no-envelope", "v1 API: conversations > mark-as-*",
        "mark-as-read answers the updated conversation bare, without the `data` envelope";
    CallsV1UserIdEmpties => "calls-v1-user-id-empties", "v1 API: calls and recordings > GET /v1/calls",
        "GET /v1/calls answers an empty page whenever userId is given, even the user who handled the calls";
    CallV1UnknownAnswered => "call-v1-unknown-answered", "v1 API: calls and recordings > GET /v1/calls/{callId}",
        "GET /v1/calls/{callId} of a call that does not exist answers 200 with {id} alone instead of 404";
    UserV1UnknownAnswered => "user-v1-unknown-answered", "v1 API: users > GET /v1/users/{userId}",
        "GET /v1/users/{userId} of a user that does not exist answers 200 with {id} alone instead of 404";
    TaskCreateIgnoresTitle => "task-create-ignores-title", "v1 API: tasks > POST /v1/tasks",
        "POST /v1/tasks answers 201 but stores every task with the title `Untitled task`, whatever title was sent";
    TaskListDropsNewest => "task-list-drops-newest", "v1 API: tasks > GET /v1/tasks",
        "GET /v1/tasks leaves the most recently created task out of its pages";
    TaskGetAnswersFirst => "task-get-answers-first", "v1 API: tasks > GET /v1/tasks/{taskId}",
        "GET /v1/tasks/{taskId} of a live task answers the workspace's first task instead of the one asked for";
    A2pDailyCapIgnored => "a2p-daily-cap-ignored", "Limits > A2P daily cap",
        "POST /v1/messages sends from a number that reached its A2P 10DLC daily cap instead of answering 403 0204403";
    ExcludeInactiveIgnored => "exclude-inactive-ignored", "v1 API: conversations > GET /v1/conversations > exclude inactive",
        "GET /v1/conversations lists inactive conversations when told to exclude them";
    ConversationsUserIdInverted => "conversations-user-id-inverted", "v1 API: conversations > GET /v1/conversations > userId",
        "GET /v1/conversations with userId lists the conversations of the numbers that user is not a user of";
    FromNumberUnresolved => "from-number-unresolved", "v1 API: messages > POST /v1/messages > from",
        "POST /v1/messages resolves `from` only as a phone number id: an E.164 `from` of the workspace answers 403 as not a number of the workspace";
    TaskMalformedId422 => "task-malformed-id-422", "v1 API: tasks > errors",
        "a malformed task id answers 422, a status outside the Tasks error table, instead of 400";
    // --- unproven clauses, group 2 (issue 18) ---
    RetryFailedRefused => "retry-failed-refused", "States and transitions > Message > retry failed",
        "POST /messages/{messageId}/retry refuses a retryable failed message with 409 Message Not Retryable";
    RetryAnswers404 => "retry-answers-404", "Header-versioned API > POST /messages/{messageId}/retry",
        "POST /messages/{messageId}/retry answers 404 for every message, as if none existed";
    MarkOpenWithoutBody => "mark-open-without-body", "States and transitions > Conversation > mark-as-open",
        "mark-as-open answers 204 without the updated conversation";
    MarkReadWithoutBody => "mark-read-without-body", "States and transitions > Conversation > mark-as-read",
        "mark-as-read answers 204 without the updated conversation";
    MissingMessageNewest => "missing-message-newest", "Header-versioned API > GET /messages/{messageId}",
        "GET /messages/{messageId} of an unknown id answers 200 with the workspace's newest message instead of 404";
    PhoneNumberUsersEmpty => "phone-number-users-empty", "Header-versioned API > GET /phone-numbers/{phoneNumberId}/users",
        "GET /phone-numbers/{phoneNumberId}/users answers an empty list, whoever is assigned to the number";
    UserPhoneNumbersEmpty => "user-phone-numbers-empty", "Header-versioned API > GET /users/{userId}/phone-numbers",
        "GET /users/{userId}/phone-numbers answers an empty page, whatever numbers the user has";
    CallGetNeighbour => "call-get-neighbour", "Header-versioned API > GET /calls/{callId}",
        "GET /calls/{callId} answers the call stored before the asked one (after it, for the first): an off-by-one lookup";
    HvRecordingsEmpty => "hv-recordings-empty", "Header-versioned API > GET /calls/{callId}/recordings",
        "GET /calls/{callId}/recordings answers no segments for a recorded call (the v1 endpoint still has them)";
    TranscriptsRejectMaxResults => "transcripts-reject-max-results", "Header-versioned API > GET /calls/{callId}/transcripts",
        "GET /calls/{callId}/transcripts answers 400 to maxResults, as if the parameter were not the endpoint's (recordings take it)";
    ConversationsTimeFiltersIgnored => "conversations-time-filters-ignored", "Header-versioned API > GET /conversations",
        "GET /conversations ignores the createdAt[gte] and updatedAt[gte] filters";
    ContactsExternalIdFilterIgnored => "contacts-external-id-filter-ignored", "Header-versioned API > GET /contacts",
        "GET /contacts ignores the plain externalId filter (externalId[in] still works)";
    ContactGetNeighbour => "contact-get-neighbour", "Header-versioned API > GET /contacts/{contactId}",
        "GET /contacts/{contactId} answers the contact stored before the asked one: an off-by-one lookup";
    UsersListEmpty => "users-list-empty", "Header-versioned API > GET /users",
        "GET /users answers an empty page (totalItems 0) although the workspace has users";
    OrganizationWithoutEnvelope => "organization-without-envelope", "Header-versioned API > GET /organization",
        "GET /organization answers the organization without the `data` wrapper";
    UserPhoneNumbersFieldNumber => "user-phone-numbers-field-number", "Versioning > 6",
        "GET /users/{userId}/phone-numbers carries the v1 field `number` instead of `phoneNumber` (GET /phone-numbers migrated)";
    // --- unproven clauses, group 1 (issue 18) ---
    MessageIdPrefixMs => "message-id-prefix-ms", "Conventions > identifier prefixes",
        "GET /v1/messages shows message ids with the prefix `MS` instead of `AC`";
    WebhookApiVersionTimestamp => "webhook-api-version-timestamp", "Resources > Webhook > apiVersion",
        "POST /webhooks stores apiVersion as the timestamp `2026-03-30T00:00:00Z` instead of the version `2026-03-30`";
    ContactEmailsFirstOnly => "contact-emails-first-only", "Resources > Contact > defaultFields",
        "POST /v1/contacts keeps only the first entry of defaultFields.emails";
    CustomFieldItemsWithoutId => "custom-field-items-without-id", "Resources > Contact > customFields",
        "the custom field items of the create answer of POST /v1/contacts carry no id";
    CreatedByUserIdUnprefixed => "created-by-user-id-unprefixed", "Resources > Contact > createdByUserId",
        "the create answer of POST /v1/contacts shows createdByUserId without its `US` prefix";
    MessageMediaDropped => "message-media-dropped", "Resources > Message > media",
        "GET /messages/{messageId} leaves `media` out of a message with attachments";
    ConversationParticipantsJoined => "conversation-participants-joined", "Resources > Conversation",
        "conversations carry `participants` as one comma-separated string instead of an array";
    RecordingIdPrefixRe => "recording-id-prefix-re", "Resources > Call recording",
        "recordings are shown with ids of the prefix `RE` instead of `CR`";
    UserEmailArray => "user-email-array", "Resources > User",
        "users carry `email` as an array of addresses instead of a string";
    TaskCompletedString => "task-completed-string", "Resources > Task",
        "tasks carry `completed` and `isDeleted` as the strings `true`/`false` instead of booleans";
    OrganizationAsArray => "organization-as-array", "Resources > Organization",
        "GET /organization answers the organization inside a one-item array instead of an object";
    TaskDueDateFreeText => "task-due-date-free-text", "Conventions > timestamps",
        "change-due-date reads a dueDate that is not an ISO 8601 date-time (`next tuesday`) as a date a week ahead and answers 200";
    EventsWithoutLinks => "events-without-links", "Events > envelope",
        "event payloads leave `data.links` out of the envelope";
    HvErrorWithoutDocs => "hv-error-without-docs", "Errors > header-versioned error body",
        "header-versioned error bodies outside the webhook endpoints leave out `docs`";
    MissingUser410 => "missing-user-410", "Endpoints > declared statuses",
        "GET /v1/users/{userId} of a missing user answers 410 Gone, a status the route does not declare";
    VersionHeaderOptional => "version-header-optional", "Authentication > 2",
        "a header-versioned request without Service-Api-Version is served as 2026-03-30 (a wrong value is still refused)";

    // --- every kind of defect a rule allows (issue 30, docs/defect-kinds.md): each is a kind of
    // defect no trial tried before ---
    CustomFieldTypeUnchecked => "custom-field-type-unchecked", "Errors > Rules > 1",
        "a custom field item's value is not checked against its field's type: a list under a text field, or a single string under a multi-select, is stored";
    MultiSelectOptionsUnchecked => "multi-select-options-unchecked", "Errors > Rules > 1",
        "a multi-select custom field takes values outside its options";
    MessagesTimeBoundsInclusive => "messages-time-bounds-inclusive", "v1 API: messages > GET /v1/messages > created range",
        "GET /v1/messages keeps a message created exactly at its createdAfter, createdBefore or since instant (after and before read as at-or-after and at-or-before)";
    CallsTimeBoundsInclusive => "calls-time-bounds-inclusive", "v1 API: calls and recordings > GET /v1/calls",
        "GET /v1/calls keeps a call created exactly at its createdAfter, createdBefore or since instant";
    ConversationsTimeBoundsInclusive => "conversations-time-bounds-inclusive", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations keeps a conversation created (updated) exactly at its createdAfter or createdBefore (updated-after or updated-before) instant";
    GteExclusive => "gte-exclusive", "Pagination and collection conventions > filters",
        "`[gte]` of GET /messages, /calls and /conversations leaves out an item exactly at the bound (read as `[gt]`)";
    ToE164FirstOnly => "to-e164-first-only", "v1 API: messages > POST /v1/messages > to",
        "POST /v1/messages checks only the first recipient of `to` against E.164: a later one that is not a phone number is left out and the message goes to the rest";
    InternationalFirstRecipientOnly => "international-first-recipient-only", "Errors > Rules > 5",
        "the international rule looks at the first recipient only: a group message whose later recipient is international goes out";
    GroupToListsSender => "group-to-lists-sender", "v1 API: messages > POST /v1/messages > to",
        "a group message's `to` lists the sending number in place of its last recipient (the count is kept)";
    ParticipantsE164FirstOnly => "participants-e164-first-only", "v1 API: messages > GET /v1/messages > participants",
        "GET /v1/messages checks only the first of several participants against E.164";
    WebhookRotateFillsEvents => "webhook-rotate-fills-events", "Header-versioned API > POST /webhooks/{id}/rotate",
        "rotate issues a new secret but also subscribes the webhook to every event of its variant";
    ContactPhoneE164FirstOnly => "contact-phone-e164-first-only", "Resources > Contact > defaultFields",
        "POST /v1/contacts checks only the first phone number entry against E.164: a later one that is not E.164 is left out of the contact";
    WebhookResourceIdsFirstOnly => "webhook-resource-ids-first-only", "Resources > Webhook > resourceIds",
        "POST /webhooks checks only the first resourceIds item against ^PN: a later one that is no phone number id is left out";
    MessagesUnparsedTimeIgnored => "messages-unparsed-time-ignored", "v1 API: messages > GET /v1/messages > created range",
        "GET /v1/messages ignores a createdAfter that is not a date-time instead of answering 400";
    CallsUnparsedTimeIgnored => "calls-unparsed-time-ignored", "v1 API: calls and recordings > GET /v1/calls",
        "GET /v1/calls ignores a createdAfter that is not a date-time instead of answering 400";
    ConversationsUnparsedTimeIgnored => "conversations-unparsed-time-ignored", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations ignores a createdAfter that is not a date-time instead of answering 400";
    // Filters a trial already tried, which no fault had shown able to fail (docs/defect-kinds.md).
    MessagesCreatedBeforeIgnored => "messages-created-before-ignored", "v1 API: messages > GET /v1/messages > created range",
        "GET /v1/messages ignores createdBefore (since still works)";
    CallsCreatedAfterIgnored => "calls-created-after-ignored", "v1 API: calls and recordings > GET /v1/calls",
        "GET /v1/calls ignores createdAfter";
    ConversationsUpdatedRangeIgnored => "conversations-updated-range-ignored", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations ignores the updated-after and updated-before filters";
    MessagesCreatedAtFilterIgnored => "messages-created-at-filter-ignored", "Pagination and collection conventions > filters",
        "GET /messages ignores createdAt[gte] (and the other createdAt operators)";
    CallsCreatedAtFilterIgnored => "calls-created-at-filter-ignored", "Header-versioned API > GET /calls",
        "GET /calls ignores createdAt[gte]";
    ContactsSourcesFilterIgnored => "contacts-sources-filter-ignored", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts ignores the sources filter";
    ConversationsInFilterIgnored => "conversations-in-filter-ignored", "Pagination and collection conventions > in operator",
        "GET /conversations ignores phoneNumberId[in]";

    // Blind faults caught by a mechanism of the suite with a finding that cites their clause
    // (docs/self-proof.md, "Blind faults").
    ContactEmoji500 => blind1 "contact-emoji-500", "Errors > no server errors",
        "POST /v1/contacts answers 500 when a default field holds a character outside the Basic Multilingual Plane (an emoji), as a 3-byte-UTF-8 column would";
    ContactsSourceFilterPrefix => blind1 "contacts-source-filter-prefix", "Pagination and collection conventions > filters",
        "GET /contacts matches the exact `source=` filter as a prefix (LIKE 'value%'): source=hub lists the hubspot contacts";
    TaskLimitRefusalStillCreates => blind1 "task-limit-refusal-still-creates", "Errors > Rules > 6",
        "POST /v1/tasks at the open-task limit answers 402 but stores the task anyway: the workspace ends above its limit";
    WebhookEventsMatchedByFamily => blind1 "webhook-events-matched-by-family", "Resources > Webhook > events",
        "deliveries match a webhook's events by family (`message.*`): a webhook subscribed to message.received also gets message.delivered";
    MessageTextNonAsciiMangled => blind1 "message-text-non-ascii-mangled", "v1 API: messages > POST /v1/messages",
        "POST /v1/messages sends (and stores) the text with every non-ASCII character replaced by `?`, as an ASCII-only encoding step would";
    UsersPageSkipsItem => blind1 "users-page-skips-item", "Pagination and collection conventions > pageToken",
        "GET /users continues one item past where the previous page ended: the first user of every following page is never shown";
    ConversationsPhoneNumbersFirstOnly => blind1 "conversations-phone-numbers-first-only", "v1 API: conversations > GET /v1/conversations > phoneNumbers",
        "GET /v1/conversations with several phoneNumbers lists the conversations of the first one only";
    MessagesInSetUnsplit => blind1 "messages-in-set-unsplit", "Pagination and collection conventions > in operator",
        "GET /messages reads a `[in]` set as one exact value: status[in]=failed,undelivered matches nothing (one value still works)";
    MessagesFiltersOr => blind1 "messages-filters-or", "Pagination and collection conventions > filters",
        "GET /messages combines exact filters on different fields with OR instead of AND";
    ConversationsV1SortedPerPage => blind1 "conversations-v1-sorted-per-page", "v1 API: conversations > GET /v1/conversations",
        "GET /v1/conversations cuts each page in storage order and sorts only within the page: the list is not newest first across pages";
    WebhookSignsWithFirstSecret => blind1 "webhook-signs-with-first-secret", "Authentication > 4",
        "after rotate, deliveries are still signed with the webhook's first secret (the signer caches it), not the one rotate issued";
    WebhookResourceFilterKeepsNulls => blind1 "webhook-resource-filter-keeps-nulls", "Events > delivery records",
        "the resourceId filter of GET /webhooks/{id}/events also keeps deliveries whose resourceId is null (test deliveries)";
    TaskDueDateTruncated => blind1 "task-due-date-truncated", "States and transitions > Task > due date",
        "change-due-date stores only the date: the due date reads back at midnight UTC of that day";
    GroupSendFanOut => blind1 "group-send-fan-out", "v1 API: messages > POST /v1/messages > to",
        "POST /v1/messages with several recipients sends one 1:1 message per recipient instead of a single group message";
    MarkDoneSendsMessage => blind1 "mark-done-sends-message", "States and transitions > Conversation > mark-as-done",
        "mark-as-done sends an automatic closing message to the conversation's participants";
    UserPhoneNumbersOfCaller => blind1 "user-phone-numbers-of-caller", "Header-versioned API > GET /users/{userId}/phone-numbers",
        "GET /users/{userId}/phone-numbers answers the numbers of the calling user, whatever userId the path names";
    ApiKeyPrefixCompared => blind1 "api-key-prefix-compared", "Authentication > 3",
        "an API key is compared on its first 24 characters only: a key with a wrong tail is served as the key's user";
    TaskActivityLinkRefused => blind1 "task-activity-link-refused", "v1 API: tasks > POST /v1/tasks",
        "POST /v1/tasks refuses (400) a task linked only to an activity: only a phone number or a conversation counts as a link";
    VoicemailFiresCallAnswered => blind1 "voicemail-fires-call-answered", "Events > event table",
        "an incoming call that ends in voicemail fires call.answered instead of call.missed";
    CallsV1TimeOffsetIgnored => blind1 "calls-v1-time-offset-ignored", "v1 API: calls and recordings > GET /v1/calls",
        "GET /v1/calls reads createdAfter, createdBefore and since as UTC wall time, dropping their offset (+02:00 read as Z)";
    SendDeprecatedPhoneNumberIdRefused => blind1 "send-deprecated-phone-number-id-refused", "Versioning > 5",
        "POST /v1/messages refuses (400 from is required) a body naming its sender only by the deprecated phoneNumberId";
    TaskUnassignRemovesLast => blind1 "task-unassign-removes-last", "States and transitions > Task > assign and unassign",
        "unassign of an assigned user removes the most recently assigned user instead (a pop, not a removal by id)";
    ContactsFilterFirstPageOnly => blind2 "contacts-filter-first-page-only", "Pagination and collection conventions > pageToken",
        "GET /v1/contacts applies externalIds and sources to the first page only: a page asked with a pageToken lists every contact from that offset on, matching or not";
    MessagesV1PageOneOver => blind2 "messages-v1-page-one-over", "Pagination and collection conventions > maxResults",
        "GET /v1/messages cuts pages of maxResults + 1 messages (an inclusive end index): a page asked with maxResults N holds N + 1";
    ConversationsV1ByLastActivity => blind2 "conversations-v1-by-last-activity", "v1 API: conversations > GET /v1/conversations",
        "GET /v1/conversations sorts newest first by lastActivityAt instead of createdAt: an old conversation with recent messages comes before newer ones";
    WebhookDeleteKeepsDelivering => blind2 "webhook-delete-keeps-delivering", "Header-versioned API > webhook management",
        "DELETE /webhooks/{id} answers 204 and the webhook is gone from GET, but a stale subscription cache keeps it: events still go to its url";
    MessageGetCrossesWorkspace => blind2 "message-get-crosses-workspace", "Authentication > 3",
        "GET /messages/{messageId} answers 200 with a message of another workspace (the lookup is not scoped to the caller's workspace) instead of 403 or 404";
    InvalidKey403 => blind2 "invalid-key-403", "Authentication > 3",
        "an Authorization header holding a key the service does not know answers 403 Forbidden instead of 401 Unauthorized (a missing header still gets 401)";
    ContactsExternalIdsCaseInsensitive => blind2 "contacts-external-ids-case-insensitive", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts matches externalIds without regard to case, as a case-insensitive collation does: externalIds=SEED-001 lists the contact seed-001";
    TaskReopenUndeletes => blind2 "task-reopen-undeletes", "States and transitions > Task > delete",
        "POST /v1/tasks/{taskId}/reopen of a deleted task answers 200 and brings it back (readable, listed, open) instead of 404";
    WebhookHistoryAllWebhooks => blind2 "webhook-history-all-webhooks", "Header-versioned API > webhook delivery history",
        "GET /webhooks/{id}/events lists the deliveries of every webhook of the workspace, not only of the webhook in the path";
    WebhookEventIdNotPayloadId => blind2 "webhook-event-id-not-payload-id", "Events > delivery records",
        "delivery records show as eventId the delivery's own id (the webhook-id header) instead of the id of the payload";
    VoicemailEventWithoutCallId => blind2 "voicemail-event-without-call-id", "Events > event table",
        "call.voicemail.completed carries the voicemail with an id of its own and no callId: resource.callId cannot correlate it with its call";
    WebhookUnknownEventAccepted => blind2 "webhook-unknown-event-accepted", "Resources > Webhook > events",
        "POST /webhooks (PATCH, PUT) validate an event name by its family only: `message.read`, which no list has, is accepted and stored";
    MessagesParticipantsOrderSensitive => blind2 "messages-participants-order-sensitive", "v1 API: messages > GET /v1/messages > participants",
        "GET /v1/messages matches several participants as an ordered list, not a set: a group's numbers given in another order than stored list nothing";
    PhoneNumberFilterDoubleDecoded => blind2 "phone-number-filter-double-decoded", "Header-versioned API > GET /phone-numbers",
        "GET /phone-numbers decodes the phoneNumber query twice: a percent-encoded `+` (%2B) becomes a space, and a valid E.164 filter answers 400";
    ContactPatchAnswersPrevious => blind2 "contact-patch-answers-previous", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "PATCH /v1/contacts/{id} stores the update but answers the contact as it was before it (the entity read before the save)";
    WebhookUrlUnchecked => blind2 "webhook-url-unchecked", "Resources > Webhook",
        "POST /webhooks (PATCH, PUT) take any string as url, one without a scheme (`hooks.example.test/in`) included, and store it: the webhook's url is no URI";
    RecordingsNoAccess404 => blind2 "recordings-no-access-404", "Authentication > 3",
        "GET /v1/call-recordings/{callId} of a call on a number the caller is not a user of answers 404 Not Found instead of 403";
    WebhookScopeMatchedOnNumber => blind2 "webhook-scope-matched-on-number", "Events > subscriptions",
        "deliveries compare a webhook's resourceIds with the event's E.164 number instead of its phone number id: a webhook scoped to PN ids never receives its numbers' events (wildcard ones still do)";
    WebhookId400MessageVague => blind2 "webhook-id-400-message-vague", "Errors > Header-versioned webhook error body",
        "a webhookId that does not match ^[0-9]+$ answers 400 with the message `Invalid request` and no errors item: neither the path parameter nor the expected pattern is named";
    ConversationsFractionalTimeRefused => blind2 "conversations-fractional-time-refused", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations refuses (400) a created or updated bound with fractional seconds (`2026-01-15T00:00:00.000Z`), the shape of its own timestamps: only whole seconds parse";
    A2pUnapproved403 => blind2 "a2p-unapproved-403", "Errors > v1 codes",
        "sending from a number whose A2P registration is not approved answers 403 (code 0206403) instead of 400 0206400 A2P Registration Not Approved";
    WebhookGetDropsOrgId => blind2 "webhook-get-drops-org-id", "Header-versioned API > GET /webhooks/{webhookId}",
        "GET /webhooks/{webhookId} answers the webhook without orgId, a required field (the list, create and update answers keep it)";
    MessagesParticipantsOwnNumberAccepted => blind2 "messages-participants-own-number-accepted", "v1 API: messages > GET /v1/messages > participants",
        "GET /v1/messages takes participants that include the workspace number (it drops that number) instead of answering 400";
    ContactPhoneStoredWithoutPlus => blind2 "contact-phone-stored-without-plus", "Resources > Contact > defaultFields",
        "POST /v1/contacts stores phone entry values normalized to digits without the leading `+`: the contact shows `14155550001`, which is no E.164 number";
    TaskLimitBlocksTransitions => blind2 "task-limit-blocks-transitions", "Errors > Rules > 6",
        "at the open-task limit, assign, unassign, due-date and link operations answer 402 Open Tasks Limit Reached, though they open no task";
    V1MalformedJsonErrorUnshaped => blind2 "v1-malformed-json-error-unshaped", "Errors > v1 error body",
        "POST and PATCH /v1/contacts with a body that is not valid JSON answer 400 with the header-versioned body {message, docs, title}: no code, status or trace";
    RecordingStartTimeLocalOffset => blind1 "recording-start-time-local-offset", "Conventions > timestamps",
        "recording segments show startTime in the workspace's local time (offset -08:00) instead of UTC";
    ExternalIdLengthInBytes => blind1 "external-id-length-in-bytes", "Resources > Contact > externalId",
        "the externalId length limit counts UTF-8 bytes, not characters: 40 accented characters (80 bytes) are refused";
    MessageFromPhoneNumberId => blind1 "message-from-phone-number-id", "Conventions > phone numbers",
        "a message sent with `from` given as a phone number id shows that id (PN...) as its `from` instead of the E.164 number";
    PhoneNumbersTokenAlwaysNull => blind1 "phone-numbers-token-always-null", "Header-versioned API > GET /phone-numbers",
        "GET /phone-numbers answers nextPageToken null on every page: a client never gets past the first page";
    TaskPutReopens => blind1 "task-put-reopens", "v1 API: tasks > PUT /v1/tasks/{taskId}",
        "PUT /v1/tasks/{taskId} rebuilds the task from the body and so reopens a completed task";
    TasksLastSingleItemLost => blind2 "tasks-last-single-item-lost", "Pagination and collection conventions > last page",
        "GET /v1/tasks answers nextPageToken null when exactly one task remains after the page (a `two or more left` check): that task is never listed";
    WebhookLimitCountsDeleted => blind2 "webhook-limit-counts-deleted", "Limits > webhooks per workspace",
        "the count toward the limit of 50 webhooks is not decremented on DELETE: a workspace that deleted webhooks is refused before it holds 50";
    V1TasksRequireVersionHeader => blind2 "v1-tasks-require-version-header", "What the service does > API generations",
        "every /v1/tasks request without a Service-Api-Version header answers 400: the version check of the header-versioned API runs on the v1 task routes too";
    WebhookPatchEventsResetsScope => blind2 "webhook-patch-events-resets-scope", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} that sends events without resourceIds also resets resourceIds to [\"*\"]: the webhook's phone number scope is lost";
    ContactCreate200WithCustomFields => blind2 "contact-create-200-with-custom-fields", "v1 API: contacts > POST /v1/contacts",
        "POST /v1/contacts answers 200 instead of 201 when the body carries customFields (the path that saves custom fields answers as an update)";
    ConversationsV1HideDone => blind1 "conversations-v1-hide-done", "v1 API: conversations > GET /v1/conversations",
        "GET /v1/conversations leaves out conversations marked done (it lists the inbox, not all conversations of the organization)";
    TaskCreatedAtServerLocal => "task-created-at-server-local", "Conventions > timestamps",
        "the task serializer writes createdAt in the server's zone (UTC-5) with a `Z`: every task shows a creation time five hours before it was made";
    // Blind set 9, joined once the exploration caught them by its mechanisms: the fields no
    // operation sets, a live resource shown deleted, the stated sort orders, separators in free
    // text, each operation that opens a task below the limit, the empty key and version.
    TaskUnlinkClearsPhoneNumber => blind9 "task-unlink-clears-phone-number", "States and transitions > Task > link conversation",
        "POST /v1/tasks/{taskId}/unlink-conversation runs `UPDATE ... SET conversation_id = NULL, phone_number_id = NULL` (the link columns cleared together): the task's phone number link is lost with its conversation";
    TaskIsDeletedFromCompleted => blind9 "task-is-deleted-from-completed", "Resources > Task",
        "the task serializer maps isDeleted from the completed column (a copy of the line above): a completed live task shows isDeleted true, an open one false whatever";
    ConversationsCreatedAtSortById => blind9 "conversations-created-at-sort-by-id", "Pagination and collection conventions > sort",
        "GET /conversations sorts by the primary key where sort names createdAt (ids taken for creation order): a conversation imported with an earlier createdAt than its id suggests (the seeded sales line's) is out of createdAt order, either direction";
    ContactsExternalIdsSplitOnComma => blind9 "contacts-external-ids-split-on-comma", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts splits each externalIds value on commas (the `[in]` parser of the header-versioned list, reused): a contact whose externalId holds a comma (`crm,42`) is not found by it, and externalIds=seed-001,seed-002 lists two contacts";
    TaskReopenLimitCountsItself => blind9 "task-reopen-limit-counts-itself", "Limits > open tasks",
        "POST /v1/tasks/{taskId}/reopen counts the task being reopened before comparing (`open + 1 >= limit`): with one open task short of the limit, a reopen that would reach it exactly is refused with 402";
    AuthEmptyKeyDefault => blind9 "auth-empty-key-default", "Authentication > 3",
        "an empty Authorization header is taken as absent and the configured development key is used (`header || DEFAULT_KEY`): it is served as the primary user instead of answering 401";
    VersionHeaderEmptyDefaultsLatest => blind9 "version-header-empty-defaults-latest", "Versioning > 1",
        "an empty Service-Api-Version is taken as absent and defaults to the latest version (`header || LATEST`): header-versioned requests with `Service-Api-Version:` and no value are served instead of refused";
}
pending {
    // Blind faults not yet in the catalog: missed by the seeded run the self-test makes, or
    // caught there only by findings that cite another clause than theirs (the catalog requires
    // their own). Blind set 1: written from API.md, READINGS and the reference alone, without
    // the suite's checks or cases; before the suite changed for them it caught 15 of the 30 on
    // every run (docs/self-proof.md).
    WebhookDeliveriesUseCreatedEvents => blind1 "webhook-deliveries-use-created-events", "Header-versioned API > webhook management",
        "deliveries follow the events a webhook was created with: a PATCH or PUT of events changes the answer but not what is delivered";
    LegacyWebhookErrorCodeShort => blind1 "legacy-webhook-error-code-short", "Errors > v1 error body",
        "errors of the legacy /v1/webhooks/{kind} endpoints carry the bare status as code (`400`) instead of seven digits";

    // Blind set 2: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases.
    TaskAssignReplacesAssignees => blind2 "task-assign-replaces-assignees", "States and transitions > Task > assign and unassign",
        "assign replaces the task's assignees with the user named instead of adding the user: after assigning A and B and unassigning B, nobody is assigned";
    RetryCreatesNewMessage => blind2 "retry-creates-new-message", "States and transitions > Message > retry failed",
        "POST /messages/{messageId}/retry re-sends a failed message as a new message: the answer is a message of another id, the conversation gains a copy, and the failed one stays failed";
    OutboundFiresMessageReceived => blind2 "outbound-fires-message-received", "Events > event table",
        "POST /v1/messages fires message.received for the outgoing message too (besides message.delivered): a webhook subscribed to inbound messages gets the workspace's own sends";

    // Blind set 5: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a column too narrow for a stated length, a COUNT that comes back as
    // a string, a DATETIME passed through as text, a soft delete one read forgets, a cache one
    // write path forgets, a mutable shared default, a handler or title copied between routes or
    // generations, a lookup not scoped to its parent or workspace, a normalization applied to one
    // side of a comparison, an off-by-one slice, a read replica lagging a write, a record written
    // before the check that refuses it, a retry that reuses what it should recompute, an event
    // built from the wrong object or not fired at all.
    ExternalIdColumn64Truncated => blind5 "external-id-column-64-truncated", "Resources > Contact > externalId",
        "POST and PATCH /v1/contacts store externalId in a VARCHAR(64) column of a non-strict database: an externalId of 65 to 75 characters is accepted but cut to its first 64, so the answer and later reads show another id and externalIds=<the id sent> lists nothing";
    ContactsSourcesNullAsPublicApi => blind5 "contacts-sources-null-as-public-api", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts filters on COALESCE(source, 'public-api') (the create default written into the query): sources=public-api also lists the contacts created in the UI, whose source is null";
    PatchCustomFieldGenericTitle => blind5 "patch-custom-field-generic-title", "Errors > Rules > 1",
        "PATCH /v1/contacts/{id} with an invalid custom field item answers 400 with the generic code 0800400 and title `Bad Request` (the update path maps the validator's error as any other) instead of 0801400 `Invalid Custom Field Item`; create still answers the named row";
    ContactGetIgnoresSoftDelete => blind5 "contact-get-ignores-soft-delete", "Header-versioned API > GET /contacts/{contactId}",
        "a contact deleted in the app is only flagged deleted, and GET /contacts/{contactId} reads by primary key without the flag's condition: after contact.deleted it still answers 200 with the contact instead of 404";
    ContactDeletedEventIdNull => blind5 "contact-deleted-event-id-null", "Events > envelope",
        "contact.deleted is serialized from the model instance after its delete, which clears the primary key: data.resource carries `id: null`, so the deleted contact cannot be identified";
    ContactCustomFieldsDefaultShared => blind5 "contact-custom-fields-default-shared", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "contacts created through POST /v1/contacts without customFields share one default list object, which PATCH clears and refills in place: setting customFields on one of them shows the same items on every other contact created so";
    MessageGetTextHtmlEscaped => blind5 "message-get-text-html-escaped", "Header-versioned API > GET /messages/{messageId}",
        "GET /messages/{messageId} answers the text HTML-escaped by a template filter applied to the JSON view: `Don't <stop> & go` reads back `Don&#x27;t &lt;stop&gt; &amp; go`";
    SendFromOtherWorkspaceNumber => blind5 "send-from-other-workspace-number", "Authentication > 3",
        "POST /v1/messages looks the `from` number up among every workspace's numbers (the lookup is not scoped to the caller's workspace): the primary key sends from another workspace's number with 202 instead of 403";
    ExpiredSendStillRecorded => blind5 "expired-send-still-recorded", "Errors > Rules > 7",
        "POST /v1/messages under an expired subscription answers 402 Subscription Expired but the message row was inserted before the check: the workspace's message lists show a message the refusal said was not sent";
    MessageDeliveredResourceConversation => blind5 "message-delivered-resource-conversation", "Events > envelope",
        "message.delivered of POST /v1/messages is built from the conversation the send upserted: data.resource is the conversation (id CN..., no text) instead of the message";
    MessagesSinceDroppedWithCreatedAfter => blind5 "messages-since-dropped-with-created-after", "Versioning > 5",
        "GET /v1/messages reads the deprecated `since` only when createdAfter is absent (an else-if between the two): createdAfter=A&since=B lists the messages after A, those after B included, instead of those between A and B";
    A2pCapWrongTitle => blind5 "a2p-cap-wrong-title", "Errors > v1 codes",
        "sending from a number that reached its A2P 10DLC daily cap answers 403 with code 0204403 but the title `A2P Registration Not Approved` (the title constant of the neighbouring arm) instead of `A2P 10DLC Daily Message Cap Reached`";
    SendDuplicateConversationReplicaLag => blind5 "send-duplicate-conversation-replica-lag", "v1 API: messages > GET /v1/messages > participants",
        "POST /v1/messages looks up the recipients' conversation on a read replica lagging by seconds: a second send within 5 s of the one that opened a conversation opens another with the same participants, and GET /v1/messages with phoneNumberId and that participant lists only the first conversation's messages";
    ConversationsUserIdOwnerOnly => blind5 "conversations-user-id-owner-only", "v1 API: conversations > GET /v1/conversations > userId",
        "GET /v1/conversations with userId keeps the conversations of the numbers that user owns (first user of the number) instead of those accessible to the user: a member of a shared number gets none of its conversations";
    MarkV1ErrorHvShape => blind5 "mark-v1-error-hv-shape", "Errors > v1 error body",
        "mark-as-* on /v1/conversations of a missing conversation answers 404 with the header-versioned body {message, docs, title}: the inbox handler shared by both generations builds its not-found error with the latest path, so code, status and trace are missing";
    ConversationsTotalItemsString => blind5 "conversations-total-items-string", "Pagination and collection conventions > list shape",
        "GET /v1/conversations and GET /conversations answer totalItems as a string (\"12\"), the BIGINT of COUNT(*) as the database driver returns it, instead of an integer";
    ConversationsEmptyPhoneNumbersDropped => blind5 "conversations-empty-phone-numbers-dropped", "v1 API: conversations > GET /v1/conversations > phoneNumbers",
        "GET /v1/conversations drops empty phoneNumbers values before validating them (a filter(Boolean)): phoneNumbers= (an empty item) answers 200 with every conversation instead of 400";
    CallsParticipantFilterDigitsOnly => blind5 "calls-participant-filter-digits-only", "Header-versioned API > GET /calls",
        "GET /calls normalizes the participant filter to digits (the `+` stripped, as the search index stores numbers) but compares it with the E.164 column: a filter by a call's participant lists nothing";
    RecordingsV1MissingCallEmpty => blind5 "recordings-v1-missing-call-empty", "v1 API: calls and recordings > GET /v1/call-recordings/{callId}",
        "GET /v1/call-recordings/{callId} queries the recordings table by call id without looking the call up: a call that does not exist answers 200 {data: []} instead of 404";
    CallsHvListUnscoped => blind5 "calls-hv-list-unscoped", "Authentication > 3",
        "GET /calls joins the number-scoped access check only when phoneNumberId is given: without that filter, a caller lists the calls of workspace numbers it is not a user of";
    CallMenuSelectedNotFired => blind5 "call-menu-selected-not-fired", "Events > event table",
        "a call routed through a phone menu fires ringing, forwarded and completed but no call.menu.selected (the menu step publishes only from the newer menu engine)";
    AvailableAreaCodeOffset => blind5 "available-area-code-offset", "Header-versioned API > GET /phone-numbers/available",
        "GET /phone-numbers/available compares areaCode with the digits right after the `+`, the country code not skipped: areaCode=415 lists nothing while the search offers +1415... numbers (areaCode=141 lists them)";
    OrganizationInternalId => blind5 "organization-internal-id", "Conventions > identifier prefixes",
        "GET /organization answers the table's internal numeric key as id (`10921`) instead of the public id with the prefix `OR` (webhooks still show orgId OR...)";
    UsersTokenWraps => blind5 "users-token-wraps", "Pagination and collection conventions > last page",
        "GET /users computes the next offset modulo the number of users: the page holding the last user carries a nextPageToken back to the first page instead of null, and a walk repeats every user";
    TaskLimitCountsCompleted => blind5 "task-limit-counts-completed", "Limits > open tasks",
        "POST /v1/tasks counts every live task toward the open-task limit, completed ones included (the count query lacks `completed = false`): a workspace is refused below its limit of open tasks, and completing a task frees no room";
    TaskGetCacheMissesTransitions => blind5 "task-get-cache-misses-transitions", "v1 API: tasks > GET /v1/tasks/{taskId}",
        "GET /v1/tasks/{taskId} answers from a cache that PUT and DELETE invalidate but the transitions (complete, reopen, assign, unassign, due date, link) do not: after a read, a completed task still reads completed false";
    TaskLinkConversationPrefixUnchecked => blind5 "task-link-conversation-prefix-unchecked", "Conventions > identifier prefixes",
        "POST /v1/tasks/{taskId}/link-conversation takes conversationId as any string (the unlink validator, which only reads it, copied): `abc` is linked with 200 instead of 400, and the task shows conversationId `abc`";
    TaskDeletedNotFired => blind5 "task-deleted-not-fired", "Events > event table",
        "DELETE /v1/tasks/{taskId} soft-deletes with a bulk UPDATE that bypasses the model's hooks: no task.deleted is fired (the other task events are)";
    WebhookRetrySignsJobId => blind5 "webhook-retry-signs-job-id", "Authentication > 4",
        "an automatic retry is signed by the retry queue's job, over its own job id (`msg_...-r1`), while the webhook-id header keeps the delivery's id: the first attempt verifies, every retried one does not";
    DeliveryRetryDuplicatesRecord => blind5 "delivery-retry-duplicates-record", "Events > delivery records",
        "each automatic retry inserts the delivery again into the history under the same id: GET /webhooks/{id}/events lists one delivery several times, and its id no longer identifies one record";
    DeliveryCutoffInverted => blind5 "delivery-cutoff-inverted", "Events > delivery records",
        "delivery records compare their creation with the cutoff date the wrong way round: every delivery created after the cutoff shows eventId and resourceId null, as only older and test deliveries should";
    ManualRetryTestDelivery404 => blind5 "manual-retry-test-delivery-404", "Header-versioned API > webhook delivery history",
        "POST /webhooks/{id}/events/{eventId}/retry joins the delivery to its event: a test delivery, which has no event, answers 404 instead of being sent again";
    WebhookHistoryDetailCrossWebhook => blind5 "webhook-history-detail-cross-webhook", "Header-versioned API > webhook delivery history",
        "GET /webhooks/{id}/events/{eventId} (and its retry) find the delivery by its id alone, not under the webhook of the path: another webhook's delivery answers 200 instead of 404";
    WebhookDeleteSoftGetAnswers => blind5 "webhook-delete-soft-get-answers", "Header-versioned API > webhook management",
        "DELETE /webhooks/{id} flags the webhook deleted; the list filters the flag but GET /webhooks/{webhookId} reads by primary key: a deleted webhook still answers 200 instead of 404";
    WebhookPinHeaderUnvalidated => blind5 "webhook-pin-header-unvalidated", "Resources > Webhook > apiVersion",
        "POST /webhooks stores x-service-api-version as sent: a create with `2025-01-01` answers 201 with apiVersion `2025-01-01`, a value apiVersion does not allow, instead of refusing it";
    WebhookPatchLabelNullIgnored => blind5 "webhook-patch-label-null-ignored", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} writes label only when it is truthy (`if body.label:`): label null or \"\" keeps the old label instead of clearing it";
    WebhookTimestampsSqlFormat => blind5 "webhook-timestamps-sql-format", "Conventions > timestamps",
        "GET /webhooks and GET /webhooks/{webhookId} pass the DATETIME columns through as text: createdAt and updatedAt read `2026-01-10 12:00:00` (no T, no offset) instead of ISO 8601 UTC (create and update answers keep the ISO form)";
    V1UnauthorizedGenericCode => blind5 "v1-401-generic-code", "Errors > v1 codes",
        "401 answers of v1 paths carry the code 0000401 (the authentication layer, which runs before routing, knows no area) instead of the area's row (0800401 for contacts, 0200401 for messages, ...)";
    HvWriteVersionUnchecked => blind5 "hv-write-version-unchecked", "Versioning > 1",
        "the version check of the header-versioned API sits in the read middleware only: POST, PATCH, PUT and DELETE (webhooks, rotate, retry, mark-as-*) are served without Service-Api-Version or with any value";
    LegacyWebhookMissingUrl500 => blind5 "legacy-webhook-missing-url-500", "Errors > no server errors",
        "POST /v1/webhooks/{kind} with a body that has no url answers 500 (the handler indexes body['url'] before validating) instead of a 4xx";

    // Blind set 3: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases; each is a defect of a kind real backends ship (a stale cache or index, a
    // column too narrow, a shared default, a copied handler, a day or zone boundary, an
    // off-by-one, a cascade gone wide, a check left off one route).
    ContactGetCacheStale => blind3 "contact-get-cache-stale", "Header-versioned API > GET /contacts/{contactId}",
        "GET /contacts/{contactId} answers from a read-through cache filled on the first read and never invalidated by PATCH /v1/contacts/{id}: after an update it still answers the contact as it was (the emails the PATCH deleted included)";
    ContactsExternalIdIndexStale => blind3 "contacts-external-id-index-stale", "Resources > Contact > externalId",
        "GET /v1/contacts matches externalIds against an index written on create and never updated by PATCH: after a PATCH changes a contact's externalId, externalIds=<new> lists nothing and externalIds=<old> lists the contact";
    PatchEmptyListKeepsEntries => blind3 "patch-empty-list-keeps-entries", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "PATCH /v1/contacts/{id} replaces emails, phoneNumbers and customFields only when the body's list is non-empty: `emails: []`, or emails left out, keeps every email the contact had";
    ContactCreateNotFired => blind3 "contact-create-not-fired", "Events > event table",
        "POST /v1/contacts fires no contact.updated (the event is sent by the update path only): a webhook subscribed to contact.updated hears of updates but never of creations";
    SourceUrlColumn191 => blind3 "source-url-column-191", "Limits > sourceUrl length",
        "sourceUrl is stored in a VARCHAR(191) column: POST and PATCH /v1/contacts with a sourceUrl of 192 to 200 characters answer 500 `Data too long for column` instead of storing it";
    MessagesCreatedBeforeEndOfDay => blind3 "messages-created-before-end-of-day", "v1 API: messages > GET /v1/messages > created range",
        "GET /v1/messages reads createdBefore as a date: it keeps every message created before the end of that UTC day, so createdBefore=2026-01-15T09:00:00Z lists a message created at 10:00 that day";
    MessagesUserIdKeepsIncoming => blind3 "messages-user-id-keeps-incoming", "v1 API: messages > GET /v1/messages > userId",
        "GET /v1/messages with userId also keeps the messages that have no user (the incoming ones): the filter reads `userId IS NULL OR userId = ?`";
    MessagesListCacheNotInvalidated => blind3 "messages-list-cache-not-invalidated", "Header-versioned API > GET /messages",
        "GET /messages answers a query asked before from a result cache that sends never invalidate: a message sent with POST /v1/messages after the first ask never shows in that query's pages";
    MessageMediaTypeExtension => blind3 "message-media-type-extension", "Resources > Message > media",
        "message answers give each media item's `type` as the file extension of its url (`jpg`, `pdf`) instead of its MIME type";
    SendConversationIdNullWhenNew => blind3 "send-conversation-id-null-when-new", "Resources > Message > conversationId",
        "POST /v1/messages answers conversationId null when the send opens a new conversation (the answer is built before the conversation upsert assigns the id); later reads show the id";
    ConversationsUserIdDroppedWithNumbers => blind3 "conversations-user-id-dropped-with-numbers", "v1 API: conversations > GET /v1/conversations > userId",
        "GET /v1/conversations ignores userId when phoneNumbers (or phoneNumber) is given (an else-if between the two filters): it lists the conversations of a number the user is not a user of";
    ExcludeInactiveFalseTruthy => blind3 "exclude-inactive-false-truthy", "v1 API: conversations > GET /v1/conversations > exclude inactive",
        "GET /v1/conversations takes any value of the exclude-inactive flag as true (the string's truthiness): excludeInactive=false leaves the inactive conversations out";
    ConversationsCreatedBeforeLocalTime => blind3 "conversations-created-before-local-time", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations reads createdBefore's wall time in the workspace's zone (-08:00) whatever its offset: createdBefore=2026-01-15T12:00:00Z keeps a conversation created at 15:00Z that day";
    ConversationsCursorIgnoresSort => blind3 "conversations-cursor-ignores-sort", "Pagination and collection conventions > pageToken",
        "GET /conversations continues a walk by a createdAt keyset whatever `sort` says: with sort=updatedAt the following pages repeat conversations an earlier page held";
    ConversationsE164Unresolved => blind3 "conversations-phone-numbers-e164-unresolved", "v1 API: conversations > GET /v1/conversations > phoneNumbers",
        "GET /v1/conversations filters by phone number ids only: E.164 values of phoneNumbers are dropped, so a filter holding only E.164 numbers lists the conversations of every number";
    ConversationsMaxResults100Refused => blind3 "conversations-max-results-100-refused", "Limits > maxResults",
        "GET /v1/conversations and GET /conversations refuse maxResults=100 (the range check reads `< 100`): the stated maximum answers 400";
    ConversationForbiddenGenericCode => blind3 "conversation-403-generic-code", "Errors > v1 codes",
        "mark-as-* on /v1/conversations by a caller who is not a user of the conversation's number answers 403 Not Phone Number User with the generic code 1000403 instead of 1001403";
    TranscriptsSkipNumberAccess => blind3 "transcripts-skip-number-access", "Authentication > 3",
        "GET /calls/{callId}/transcripts serves a caller who is not a user of the call's phone number (the check of its recordings twin was not copied): 200 with the transcript instead of 403";
    TranscriptsSortedAsText => blind3 "transcripts-sorted-as-text", "Header-versioned API > GET /calls/{callId}/transcripts",
        "GET /calls/{callId}/transcripts sorts the segments by their offset into the call compared as text (\"125\" < \"45\" < \"5\" < \"85\"), not in order of occurrence";
    CallDurationString => blind3 "call-duration-bigint-string", "Resources > Call",
        "calls show `duration` as a string (\"595\"), as a BIGINT column comes back through the database driver, instead of an integer";
    CallsV1CreatedAtEpoch => blind3 "calls-v1-created-at-epoch", "Conventions > timestamps",
        "GET /v1/calls shows each call's createdAt as epoch milliseconds (a number) instead of an ISO 8601 string (GET /calls and GET /v1/calls/{callId} keep the string)";
    CallsMaxResultsOverflow500 => blind3 "calls-max-results-overflow-500", "Errors > no server errors",
        "GET /v1/calls and GET /calls answer 500 when maxResults does not fit a 32-bit integer (maxResults=3000000000) instead of 400";
    UserV1NotFoundCallsCode => blind3 "user-v1-404-calls-code", "Errors > v1 codes",
        "GET /v1/users/{userId} of a missing user answers 404 with the Calls code 0100404 instead of the Users code 1100404 (the handler was copied from the calls routes)";
    TollFreeNumberFormatted => blind3 "phone-number-toll-free-formatted", "Conventions > phone numbers",
        "header-versioned phone number answers show a toll-free number in its display format (`+1 800-555-0100`) instead of E.164";
    TaskPutClearsDueDate => blind3 "task-put-clears-due-date", "v1 API: tasks > PUT /v1/tasks/{taskId}",
        "PUT /v1/tasks/{taskId} rebuilds the task from the body and so clears its due date";
    TaskRevisionIgnoresLinks => blind3 "task-revision-ignores-links", "Resources > Task > revision",
        "a task's revision is an ETag over its title, description and completed only: assign, unassign, due date and link changes leave it unchanged";
    TaskDeleteUnlinksSiblings => blind3 "task-delete-unlinks-siblings", "States and transitions > Task > link conversation",
        "DELETE /v1/tasks/{taskId} removes conversation links by conversation, not by task: every other task linked to the same conversation reads unlinked afterwards";
    TaskDueDateStoredLocal => blind3 "task-due-date-stored-local", "States and transitions > Task > due date",
        "due dates are stored as Pacific wall time (-08:00) and read back as UTC: a dueDate of 09:00Z set with change-due-date (or on create) reads back 01:00Z";
    TaskLimitOffByOne => blind3 "task-limit-off-by-one", "Limits > open tasks",
        "POST /v1/tasks refuses a create only when more tasks than the limit are open (`open` greater than `limit`): at the limit one more task is created, and the workspace holds limit + 1 open tasks";
    TaskCreatedAtNaive => blind3 "task-created-at-naive", "Conventions > timestamps",
        "tasks show createdAt without an offset (`2026-01-20T09:00:00.000`), as a timestamp-without-time-zone column reads back";
    TaskAssignRetryDuplicates => blind3 "task-assign-retry-duplicates", "States and transitions > Task > assign and unassign",
        "assign appends the user without looking at the assignees (a retried assign adds it twice) and unassign removes one entry: after assigning a user twice, unassign leaves the user assigned";
    WebhookDefaultScopeShared => blind3 "webhook-default-scope-shared", "Header-versioned API > webhook management",
        "webhooks created without resourceIds share one default list: a PATCH of resourceIds on one of them changes the resourceIds of every other webhook created without them";
    WebhookRotateDropsApiVersion => blind3 "webhook-rotate-drops-api-version", "Header-versioned API > POST /webhooks/{id}/rotate",
        "rotate re-pins apiVersion from the request's x-service-api-version header as create does: a rotate without that header leaves the webhook's apiVersion null";
    DeliveryResourceIdFromContext => blind3 "delivery-resource-id-from-context", "Events > delivery records",
        "delivery records of events tied to a phone number show as resourceId the context's phone number id instead of the primary resource's id (a task.created delivery shows PN..., not the task's id)";
    V1ErrorCodeInteger => blind3 "v1-error-code-integer", "Errors > v1 error body",
        "v1 error bodies carry a code read back from an integer column: the leading zero is lost (`800404`, six digits) for every area whose code starts with 0";

    // Blind set 4: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a 3-byte utf8 column, a case-insensitive collation, a 32-bit cast,
    // a cache or search index one write path forgets, an ORM default or shared default object, a
    // check or name copied wrongly between routes or generations, an off-by-one at a limit or a
    // page edge, a unit or precision lost on a time, a cascade gone wide, a counter one path
    // forgets, a non-idempotent retry, a double event, a check left off one route, a signature
    // over the wrong bytes.
    TaskTitleUtf8mb3Truncated => blind4 "task-title-utf8mb3-truncated", "v1 API: tasks > POST /v1/tasks",
        "POST /v1/tasks (and PUT) store title and description in a 3-byte utf8 column of a non-strict database: the text is cut at its first character outside the Basic Multilingual Plane, so the title `Call 📞 Bob` reads back `Call `";
    ConversationsIdFilterCaseInsensitive => blind4 "conversations-id-filter-case-insensitive", "Pagination and collection conventions > filters",
        "GET /conversations compares phoneNumberId and phoneNumberId[in] under a case-insensitive collation: phoneNumberId=PNQ7R2S9T4U1, which no number has, lists the conversations of PNq7R2s9T4u1 instead of nothing";
    ApiKeyCaseInsensitive => blind4 "api-key-case-insensitive", "Authentication > 3",
        "API keys are looked up under a case-insensitive collation: the primary key written in upper case is served as the primary user instead of answering 401";
    WebhookIdTruncatedU32 => blind4 "webhook-id-truncated-u32", "Header-versioned API > GET /webhooks/{webhookId}",
        "a numeric webhookId is cast to a 32-bit unsigned integer before the lookup: GET /webhooks/4294968297 (2^32 + 1001) answers webhook 1001 instead of 404 (PATCH, DELETE and the other webhook routes alike)";
    WebhooksListCacheStale => blind4 "webhooks-list-cache-stale", "Header-versioned API > webhook management",
        "GET /webhooks answers from a list cache that create and delete clear but PATCH and PUT do not: after a PATCH of a webhook's label the list still shows the old label, while GET /webhooks/{id} shows the new one";
    DeliveryHistoryCacheMissesTests => blind4 "delivery-history-cache-misses-tests", "Header-versioned API > webhook delivery history",
        "GET /webhooks/{id}/events answers from a per-webhook cache that only event deliveries clear: a test delivery sent after the history was first read never shows in it, though its detail GET answers";
    OrganizationCacheGlobal => blind4 "organization-cache-global", "Header-versioned API > GET /organization",
        "GET /organization caches the first answer for the whole process instead of per workspace: after the primary key asked, the key of another workspace gets the primary workspace's organization";
    TaskListIndexSnapshot => blind4 "task-list-index-snapshot", "v1 API: tasks > GET /v1/tasks",
        "GET /v1/tasks lists from a search index written on create only: every task shows as it was created (a later PUT title or complete is not seen) and deleted tasks stay listed";
    TaskAssigneesDefaultShared => blind4 "task-assignees-default-shared", "States and transitions > Task > assign and unassign",
        "tasks created through POST /v1/tasks share one default assignee list object: assigning a user to one of them shows the user assigned (assignedTo) on every other task created so, and unassigning clears it from all";
    WebhookCreateIgnoresDisabled => blind4 "webhook-create-ignores-disabled", "Resources > Webhook > status",
        "POST /webhooks leaves status out of the insert, so the column default wins: a webhook created with status `disabled` is stored, answered and delivered to as `enabled`";
    ContactPatchEntryUpsertIgnores => blind4 "contact-patch-entry-upsert-ignores", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "PATCH /v1/contacts/{id} writes emails and phone numbers with an insert that ignores rows whose id exists: an entry sent with its id and a new value keeps its old value (entries without id are written)";
    MessagesMaxResultsContactsRange => blind4 "messages-max-results-contacts-range", "Limits > maxResults",
        "GET /v1/messages checks maxResults with the validator copied from the contact list (1-50): maxResults from 51 to 100 answer 400";
    SourcesFilterCreateLimit => blind4 "sources-filter-create-limit", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts checks each sources value against the create limit of source (1-72) instead of 1-75: a sources value of 73 to 75 characters answers 400";
    DuedateRemovedFiresUpdated => blind4 "duedate-removed-fires-updated", "Events > event table",
        "POST /v1/tasks/{taskId}/remove-due-date fires task.duedate.updated (the event name copied from change-due-date) instead of task.duedate.removed";
    MessagesKeysetTokenSkips => blind4 "messages-keyset-token-skips", "Pagination and collection conventions > pageToken",
        "GET /messages writes into nextPageToken the first message of the next page, while a page asked with a token starts after the message it names: every following page misses its first message";
    RecipientsTenRefused => blind4 "recipients-10-refused", "Limits > recipients in to",
        "POST /v1/messages refuses a `to` of exactly 10 recipients (the check reads `>= 10`): the stated maximum answers 400";
    WebhookLimitAt49 => blind4 "webhook-limit-49", "Limits > webhooks per workspace",
        "POST /webhooks counts the webhook being created toward the limit before comparing (`count + 1 >= 50`): a workspace holding 49 webhooks is refused its 50th";
    TasksTokenCountsVisible => blind4 "tasks-token-counts-visible", "Pagination and collection conventions > pageToken",
        "GET /v1/tasks writes the number of live tasks handed out as nextPageToken, while the next page reads it as a position among all stored rows, deleted ones included: once a task was deleted, the walk repeats tasks";
    WebhookTimestampMilliseconds => blind4 "webhook-timestamp-milliseconds", "Authentication > 4",
        "deliveries carry (and sign) webhook-timestamp in epoch milliseconds instead of seconds: a Standard Webhooks verifier reads a time far in the future and refuses every delivery";
    CallsCreatedGteDateTruncated => blind4 "calls-created-gte-date-truncated", "Header-versioned API > GET /calls",
        "GET /calls truncates the createdAt[gte] bound to its UTC date: createdAt[gte]=2026-02-04T16:00:00Z also lists the call created at 15:30 that day";
    MessagesTimeBoundWholeSecond => blind4 "messages-time-bound-whole-second", "Header-versioned API > GET /messages",
        "GET /messages binds its createdAt and updatedAt bounds to a DATETIME(0) parameter that drops fractional seconds: createdAt[lte] set to a sent message's own createdAt (`...:12.345Z`) leaves that message out";
    VersionLaterDateAccepted => blind4 "version-later-date-accepted", "Versioning > 1",
        "Service-Api-Version is resolved to the newest version not after the date sent: 2026-05-01 or 2027-01-01 is served as 2026-03-30 instead of refused (an earlier date or a value that is no date still is)";
    WebhookDeleteByUrl => blind4 "webhook-delete-by-url", "Header-versioned API > webhook management",
        "DELETE /webhooks/{id} deletes by the webhook's url (`WHERE url = ?`): every other webhook sending to the same url is deleted with it";
    TaskOpenCounterSkipsReopen => blind4 "task-open-counter-skips-reopen", "Errors > Rules > 6",
        "POST /v1/tasks checks a counter of open tasks that create increments and complete and delete decrement, but reopen never increments: after a complete and a reopen at the limit, a create is accepted and the workspace holds limit + 1 open tasks";
    ContactUpdateFiresTwice => blind4 "contact-update-fires-twice", "Events > event table",
        "PATCH /v1/contacts/{id} fires contact.updated twice (from the handler and from the model's after-save hook): a subscribed webhook gets two deliveries with distinct event ids for one update";
    ManualRetryNewDelivery => blind4 "manual-retry-new-delivery", "Header-versioned API > webhook delivery history",
        "POST /webhooks/{id}/events/{eventId}/retry records and sends a new delivery with a new id instead of sending the delivery again: the retry's webhook-id header differs from the id retried, and the history gains a record";
    CallV1GetSkipsNumberAccess => blind4 "call-v1-get-skips-number-access", "Authentication > 3",
        "GET /v1/calls/{callId} looks the call up without the number-scoped check the list makes: a caller who is not a user of the call's phone number gets 200 with the call instead of 403 Not Phone Number User";
    WebhookSignsPrettyBody => blind4 "webhook-signs-pretty-body", "Authentication > 4",
        "the delivery signature is computed over the payload pretty-printed, while the body sent is compact JSON: the signature verifies against no byte the receiver gets";
    PhoneNumberUsersJoinUnfiltered => blind4 "phone-number-users-join-unfiltered", "Header-versioned API > GET /phone-numbers/{phoneNumberId}/users",
        "GET /phone-numbers/{phoneNumberId}/users joins users to number assignments without the number's condition: it lists every user assigned to any number of the workspace, not only that number's";
    EventContextOmittedWhenEmpty => blind4 "event-context-omitted-when-empty", "Events > envelope",
        "events not tied to a phone number (contact.updated, contact.deleted, a task linked to a conversation only) leave data.context out of the envelope: the serializer skips a context without values";
    GroupSendJoinsSupersetConversation => blind4 "group-send-joins-superset-conversation", "v1 API: messages > POST /v1/messages > to",
        "POST /v1/messages with several recipients posts into the most recently active conversation that holds them all: to [+14155550101, +14155550106] goes to the seeded three-party conversation, to +14155550102 as well";
    TaskUnassignRevisionInteger => blind4 "task-unassign-revision-integer", "v1 API: tasks > POST /v1/tasks/{taskId}/unassign",
        "unassign answers {data: {taskId, revision}} with revision as a JSON integer (the counter column as read) instead of the string a task's revision is";
    V1ErrorItemSchemaString => blind4 "v1-error-item-schema-string", "Errors > v1 error body",
        "items of a v1 error body's `errors` array carry `schema` as the bare type name (`\"string\"`) instead of an object with `type` (the 400 of a whitespace-only message)";
    RecordingsPageTakesLatest => blind4 "recordings-page-takes-latest", "Header-versioned API > GET /calls/{callId}/recordings",
        "GET /calls/{callId}/recordings cuts each page from the newest segments (ORDER BY startTime DESC LIMIT n, reversed for display): with maxResults 2 a walk of three segments gives the second, the third, then the first";
    LegacyCallTranscriptsRouteTypo => blind4 "legacy-call-transcripts-route-typo", "Legacy v1 webhook creation endpoints",
        "the legacy kind table spells `call-transcript`: POST /v1/webhooks/call-transcripts answers 404 Not Found (the other three kinds create their webhook)";

    // Blind set 6: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a column too narrow for a text, a byte-wide integer, a DATE column,
    // a soft delete one list forgets, a join that multiplies or widens rows, a filter bound to the
    // wrong column, a lookup not scoped to the caller's workspace, a check left off one route, a
    // PATCH that clobbers what it was not sent, a null turned into text, a serializer field left
    // out, an event fired on the wrong transition or before its check, an error helper or title
    // copied from the wrong generation or area, an off-by-one at the last page.
    ContactPatchWithoutDefaultFields500 => blind6 "contact-patch-without-default-fields-500", "Errors > no server errors",
        "PATCH /v1/contacts/{id} with a body that has no defaultFields (or defaultFields null) answers 500 (the handler reads body.defaultFields.emails without a guard) instead of replacing the contact";
    ContactsListIgnoresSoftDelete => blind6 "contacts-list-ignores-soft-delete", "v1 API: contacts > GET /v1/contacts",
        "a contact deleted in the app is only flagged deleted, and the contact lists (GET /v1/contacts, GET /contacts) query the table without the flag's condition: after contact.deleted the contact is still listed";
    ContactDeleteFiresUpdated => blind6 "contact-delete-fires-updated", "Events > event table",
        "a contact deleted in the app fires contact.updated (the model's save hook runs for the soft delete) instead of contact.deleted";
    SendTextColumn160 => blind6 "send-text-column-160", "v1 API: messages > POST /v1/messages",
        "POST /v1/messages stores the text in a VARCHAR(160) column (one SMS segment) of a non-strict database: a longer text is accepted and sent, but the answer and every later read show only its first 160 characters";
    MessagesToFilterAnyRecipient => blind6 "messages-to-filter-any-recipient", "Header-versioned API > GET /messages",
        "GET /messages reads the recipient filter `to` as `ANY(to) IN (...)`: to=+14155550101 also lists the group messages whose recipients include that number, instead of the messages sent to exactly that set";
    MessagesFromFilterOnPhoneNumberId => blind6 "messages-from-filter-on-phone-number-id", "Pagination and collection conventions > filters",
        "GET /messages binds the `from` filter to the phoneNumberId column (a copy of the line above): from=<an E.164 sender> lists nothing, and from=<a PN id> lists that line's messages";
    MessagesV1ListWithoutConversationId => blind6 "messages-v1-list-without-conversation-id", "Resources > Message > conversationId",
        "GET /v1/messages serializes its items with the v1 list's own field list, written before conversationId existed: the messages of the list carry no conversationId (the header-versioned answers keep it)";
    ConversationsUpdatedFilterOnCreated => blind6 "conversations-updated-filter-on-created", "Header-versioned API > GET /conversations",
        "GET /conversations applies its updatedAt[...] bounds to createdAt (the created branch copied): updatedAt[lte]=T lists conversations updated after T, and updatedAt[gte]=T leaves out those created before T but updated since";
    MarkOpenSkipsNumberAccess => blind6 "mark-open-skips-number-access", "Authentication > 3",
        "POST .../mark-as-open (both generations) skips the number-scoped check mark-as-done and mark-as-read make: a caller who is not a user of the conversation's number gets 200 instead of 403 Not Phone Number User";
    ConversationsMaxResultsByteWrap => blind6 "conversations-max-results-byte-wrap", "Limits > maxResults",
        "GET /v1/conversations and GET /conversations read maxResults into an 8-bit integer before the range check: maxResults=300 wraps to 44 and is served (257 to 1) instead of answering 400";
    ConversationsV1OtherWorkspaceNumbers => blind6 "conversations-v1-other-workspace-numbers", "Authentication > 3",
        "GET /v1/conversations resolves phoneNumbers across every workspace and filters conversations by phone number id alone: the key of another workspace naming the primary workspace's number lists its conversations instead of 403 or 404";

    // Blind set 7: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a falsy default, a wall time kept without its offset, an ETag of
    // whole seconds, a title or code copied from the wrong row or area, an event named after the
    // wrong transition, a page size the token forgets, a query parameter read under the wrong
    // name, a list cache one write path forgets, a deprecated parameter resolved one way only, a
    // framework's default error body, an HMAC keyed with the undecoded secret, a signature in
    // another provider's syntax, a payload column stored as text, a delete that ignores the rows
    // it touched, a validation one route skips, a prefix comparison where equality is stated.
    ContactsMaxResultsZeroDefault => blind7 "contacts-max-results-zero-default", "Limits > maxResults contacts",
        "GET /v1/contacts reads maxResults as `int(value) or 10`: maxResults=0 answers a page of the default 10 contacts instead of 400";
    SendTimestampsOffsetNoColon => blind7 "send-timestamps-offset-no-colon", "Conventions > timestamps",
        "the answer of POST /v1/messages formats createdAt and updatedAt with strftime's `%z`: `2026-03-02T10:00:00.000+0000`, an offset without its colon, which is no RFC 3339 date-time (reads keep the `Z` form)";
    InternationalBodyStatus400 => blind7 "international-403-body-status-400", "Errors > v1 error body",
        "the 403 of a send to an international number with international messaging disabled carries `status: 400` in its v1 body (the refusal is built from the validation error's template, and only the HTTP status was changed)";
    V1ErrorItemPathArray => blind7 "v1-error-item-path-array", "Errors > v1 error body",
        "items of a v1 error body's `errors` array carry `path` as an array of segments (the validator's location tuple, `[\"text\"]`) instead of a string";
    RetryFiresMessageDelivered => blind7 "retry-fires-message-delivered", "Events > event table",
        "POST /messages/{messageId}/retry publishes message.delivered as soon as the re-attempt is queued (the publisher hooked to the endpoint's success): a webhook hears that a message was delivered while it is failed again";
    MessagesDirectionFilterInverted => blind7 "messages-direction-filter-inverted", "Pagination and collection conventions > filters",
        "GET /messages maps the direction filter onto the carrier's enum, written from the other party's point of view: direction=outgoing lists the incoming messages and direction=incoming the outgoing ones";
    ConversationsV1CreatedAfterOnUpdated => blind7 "conversations-v1-created-after-on-updated", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations applies createdAfter to updatedAt (the updated-after line copied): a conversation created before the bound but updated after it is listed";
    ConversationsV1CacheMissesSends => blind7 "conversations-v1-cache-misses-sends", "v1 API: conversations > GET /v1/conversations",
        "GET /v1/conversations answers a query asked before from a result cache that POST /v1/messages never invalidates: a conversation opened by a send after the first ask is missing from the organization's conversations";
    ConversationsDeprecatedPhoneNumberE164 => blind7 "conversations-deprecated-phone-number-e164", "v1 API: conversations > GET /v1/conversations > phoneNumber",
        "GET /v1/conversations binds the deprecated phoneNumber to the phone number id column as sent: phoneNumber=<an E.164 number of the workspace> lists nothing (an id still works)";
    CallsV1PageTokenIgnored => blind7 "calls-v1-page-token-ignored", "Pagination and collection conventions > pageToken",
        "GET /v1/calls reads the cursor from `page_token` (the snake-case name of the internal service): the pageToken sent is ignored and every page answers the first calls again";
    RecordingsV1NotFoundCallsCode => blind7 "recordings-v1-404-calls-code", "Errors > v1 codes",
        "GET /v1/call-recordings/{callId} of a call that does not exist answers 404 with the Calls code 0100404 (the call lookup's error, raised from the calls module) instead of the Recordings code 0900404";
    CallHvNotFoundFrameworkBody => blind7 "call-hv-404-framework-body", "Errors > header-versioned error body",
        "GET /calls/{callId} of a call that does not exist answers the web framework's default 404 body {error, statusCode}: no message, docs or title";
    PhoneNumberUnknownNullData => blind7 "phone-number-unknown-null-data", "Header-versioned API > GET /phone-numbers",
        "GET /phone-numbers/{phoneNumberId} of a number that does not exist answers 200 {data: null} (the ORM's `first()` returned nothing and the serializer wrote it) instead of 404";
    AvailableTollFreeFalseTruthy => blind7 "available-toll-free-false-truthy", "Header-versioned API > GET /phone-numbers/available",
        "GET /phone-numbers/available reads tollFree by its presence: tollFree=false lists only toll-free numbers";
    TaskDueDateOffsetDropped => blind7 "task-due-date-offset-dropped", "States and transitions > Task > due date",
        "change-due-date keeps the wall time of dueDate and drops its offset: a dueDate of 09:00+02:00 reads back 09:00Z instead of 07:00Z";
    TaskRevisionWholeSeconds => blind7 "task-revision-whole-seconds", "Resources > Task > revision",
        "a task's revision is derived from its update time in whole seconds: a second change within the same second as the one before leaves the revision unchanged";
    TaskReopenLimitGenericTitle => blind7 "task-reopen-limit-generic-title", "Errors > v1 codes",
        "POST /v1/tasks/{taskId}/reopen at the open-task limit answers 402 with the HTTP reason `Payment Required` as title (the reopen path builds its own error) instead of `Open Tasks Limit Reached`; create still answers the named row";
    TaskReopenFiresCompleted => blind7 "task-reopen-fires-completed", "Events > event table",
        "POST /v1/tasks/{taskId}/reopen fires task.completed (the toggle handler publishes the completion event for both directions) instead of task.reopened";
    TasksPageSizeLostWithToken => blind7 "tasks-page-size-lost-with-token", "Pagination and collection conventions > maxResults",
        "GET /v1/tasks takes maxResults only on the first page: a page asked with a pageToken holds the default 10 tasks whatever maxResults says";
    TaskValidationContactsCode => blind7 "task-400-contacts-code", "Errors > v1 codes",
        "the 400 answers of POST /v1/tasks carry the code 0801400 and the title `Invalid Custom Field Item` (the validation error class shared with the contacts module) instead of the Tasks row 0600400 `Bad Request`";
    WebhookSignatureEqualsSeparator => blind7 "webhook-signature-equals-separator", "Authentication > 4",
        "webhook-signature writes its version and signature as `v1=<base64>` (another provider's syntax) instead of `v1,<base64>`: a Standard Webhooks verifier finds no signature it knows";
    WebhookSignsUndecodedSecret => blind7 "webhook-signs-undecoded-secret", "Authentication > 4",
        "deliveries are signed with an HMAC keyed by the secret's text (`whsec_...` as UTF-8 bytes) instead of the base64-decoded bytes after `whsec_`: no Standard Webhooks library verifies them";
    EventResourceDoubleEncoded => blind7 "event-resource-double-encoded", "Events > envelope",
        "event payloads carry data.resource as a string holding JSON (the payload column stored as text and serialized again) instead of the resource object";
    WebhookTestHasEventId => blind7 "webhook-test-has-event-id", "Events > delivery records",
        "test deliveries show an eventId (the test payload's generated id) instead of null";
    WebhookDeleteMissing204 => blind7 "webhook-delete-missing-204", "Header-versioned API > webhook management",
        "DELETE /webhooks/{id} runs its DELETE statement without looking at the rows it touched: a webhook that does not exist (or was deleted already) answers 204 instead of 404";
    HistoryDetailTestDelivery404 => blind7 "history-detail-test-delivery-404", "Header-versioned API > webhook delivery history",
        "GET /webhooks/{id}/events/{eventId} joins the delivery to its event: a test delivery, which has none, answers 404 although the history lists it";
    LegacyWebhookNoEnvelope => blind7 "legacy-webhook-create-no-envelope", "What the service does > data envelope",
        "POST /v1/webhooks/{kind} answers the legacy webhook bare, without the `data` wrapper (the legacy handler returns the row as it is)";
    WebhookPatchResourceIdsUnchecked => blind7 "webhook-patch-resource-ids-unchecked", "Resources > Webhook > resourceIds",
        "PATCH /webhooks/{id} stores resourceIds without the validation create runs (the partial update's schema has no item pattern): resourceIds [\"abc\"] is accepted and answered";
    ApiKeyTruncatedAccepted => blind7 "api-key-truncated-accepted", "Authentication > 3",
        "an API key is looked up with `key LIKE 'sent%'`: a truncated key (any non-empty beginning of a real key) is served as the key's user instead of answering 401";
    VersionHeaderPrefixCompared => blind7 "version-header-prefix-compared", "Versioning > 1",
        "Service-Api-Version is checked with starts_with: `2026-03-30.beta` or `2026-03-301` is served as 2026-03-30 instead of refused";
    ConversationsBadRequestCode1001 => blind6 "conversations-400-code-1001", "Errors > v1 codes",
        "the 400 answers of GET /v1/conversations carry the code 1001400 (the conversations module's error factory took the `1001` prefix of its 403 row) instead of 1000400 Bad Request";
    CallsActorIdOnAnsweredBy => blind6 "calls-actor-id-on-answered-by", "Header-versioned API > GET /calls",
        "GET /calls matches the actorId filter against the call's answeredBy instead of the user or agent of the call: the user's missed, voicemail and outgoing calls are left out";
    RecordingsV1JoinedByNumber => blind6 "recordings-v1-joined-by-number", "v1 API: calls and recordings > GET /v1/call-recordings/{callId}",
        "GET /v1/call-recordings/{callId} joins recordings to calls on the phone number instead of the call id: a call without recordings answers the recording segments of the other calls of its number";
    RecordingsHvTranscriptJoinDuplicates => blind6 "recordings-hv-transcript-join-duplicates", "Header-versioned API > GET /calls/{callId}/recordings",
        "GET /calls/{callId}/recordings loads its segments through a join with the call's transcript segments: every recording segment is listed once per transcript segment, so a walk shows the same id several times";
    TranscriptsFullLastPageToken => blind6 "transcripts-full-last-page-token", "Pagination and collection conventions > last page",
        "GET /calls/{callId}/transcripts gives a nextPageToken whenever the page is full (`len == maxResults`): a page that ends exactly at the last segment carries a token leading to an empty page instead of null";
    CallAnsweredFiresMissed => blind6 "call-answered-fires-missed", "Events > event table",
        "an answered incoming call also fires call.missed when it ends (the check reads the missing voicemail route, not whether the call was answered)";
    AvailableContainsPrefixOnly => blind6 "available-contains-prefix-only", "Header-versioned API > GET /phone-numbers/available",
        "GET /phone-numbers/available matches the `contains` substring as a prefix of the number (LIKE 'value%'): contains=5550901 lists nothing while +14155550901 is offered";
    UserTimestampsDateOnly => blind6 "user-timestamps-date-only", "Conventions > timestamps",
        "users are stored with DATE columns for createdAt and updatedAt: every user answer (GET /users, /users/{userId}, /v1/users/{userId}, a number's users) shows `2026-01-02` instead of an ISO 8601 date-time";
    UserV1NotFoundHvShape => blind6 "user-v1-404-hv-shape", "Errors > v1 error body",
        "GET /v1/users/{userId} of a missing user answers 404 with the header-versioned body {message, docs, title} (the handler copied from GET /users/{userId}): code, status and trace are missing";
    TaskCreateIgnoresDueDate => blind6 "task-create-ignores-due-date", "v1 API: tasks > POST /v1/tasks",
        "POST /v1/tasks leaves dueDate out of the create serializer's fields: a task created with a dueDate answers and reads back dueDate null (change-due-date still sets it)";
    TaskCreatedFiredOnLimitRefusal => blind6 "task-created-fired-on-limit-refusal", "Events > event table",
        "POST /v1/tasks publishes task.created before the open-task limit check: a create refused with 402 Open Tasks Limit Reached still delivers task.created for a task that does not exist";
    TaskNotFoundTitle => blind6 "task-404-title-task-not-found", "Errors > v1 codes",
        "404 answers of the task routes carry the title `Task Not Found` (the exception's class name) instead of the Tasks row's `Not Found`";
    TaskReopenClearsDueDate => blind6 "task-reopen-clears-due-date", "States and transitions > Task > reopen",
        "POST /v1/tasks/{taskId}/reopen resets the task to the defaults of a new open task: it is open again, but its due date is cleared";
    WebhookTestDeliveryUnsigned => blind6 "webhook-test-delivery-unsigned", "Header-versioned API > POST /webhooks/{id}/events/test",
        "POST /webhooks/{id}/events/test sends the test delivery through a plain HTTP client without the signing step: it carries webhook-id and webhook-timestamp but no webhook-signature";
    WebhookWildcardSkipsUnnumberedEvents => blind6 "webhook-wildcard-skips-unnumbered-events", "Events > subscriptions",
        "the wildcard resourceIds [\"*\"] matches only events tied to a phone number (`phone_number_id IS NOT NULL AND ...`): contact.updated, contact.deleted and tasks without a phone number reach no webhook";
    WebhooksListIncludesLegacy => blind6 "webhooks-list-includes-legacy", "Resources > Webhook > id",
        "GET /webhooks lists the legacy webhooks created with POST /v1/webhooks/{kind} (one table, no kind condition): their ids (`WH00000001`) are not stringified numbers";
    WebhooksListHidesDisabled => blind6 "webhooks-list-hides-disabled", "Header-versioned API > webhook management",
        "GET /webhooks reuses the delivery side's query of active subscriptions: a disabled webhook is missing from the list while GET /webhooks/{webhookId} still answers it";
    WebhookHistoryUnknownWebhookEmpty => blind6 "webhook-history-unknown-webhook-empty", "Header-versioned API > webhook delivery history",
        "GET /webhooks/{id}/events queries the deliveries table by webhook id without looking the webhook up: a deleted or unknown webhook answers 200 with its history (empty or not) instead of 404";
    WebhookPatchClearsLabel => blind6 "webhook-patch-clears-label", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} binds the body to the full model, whose label defaults to null: a PATCH that does not send label (of status, url, events) clears the webhook's label";
    WebhookLabelNullStringified => blind6 "webhook-label-null-stringified", "Header-versioned API > POST /webhooks",
        "POST /webhooks and PATCH write label through a string conversion: label null is stored and answered as the string `null` instead of null";
    V1ErrorTraceNumber => blind6 "v1-error-trace-number", "Errors > v1 error body",
        "v1 error bodies carry trace as a JSON number (the request counter of the logging middleware) instead of a string";
    VersionErrorV1Shape => blind6 "version-error-v1-shape", "Versioning > 1",
        "the version check of the header-versioned routes builds its refusal with the v1 error helper: a missing or unsupported Service-Api-Version on a webhook endpoint answers a body with code, status and trace";

    // Blind set 8: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a filter applied after the LIMIT, a repeated query key of which the
    // framework keeps the last, a length counted in UTF-16 units, a `get_or_404` on a lookup, a
    // validator the update serializer lacks, a deprecated field that wins, instants compared as
    // text, a strip of the space character only, a serializer that unwraps one-item lists, unset
    // times stored as empty strings, a re-read that forgets the id, a sort on the wrong time
    // column, an event built from a snapshot, a lenient date parser, an access check on the wrong
    // user, a `get_list_or_404`, an upstream call without a timeout, snake-case envelope keys, an
    // integer cursor, a toggle, an answer read before the save, a soft delete a count forgets,
    // a list serializer with the detail's id name, a fixed offset across DST, a NUL byte the
    // database refuses, a count of active rows only, a cache one write path forgets, a raw integer
    // key, nulls skipped on a required field, a URL rebuilt without its query, a PUT that resets
    // what the body cannot carry, a URL-safe secret, a payload re-rendered on retry, a signature
    // over the event id, a cascade through a shared row, a retry of the wrong row, a scope that
    // lets unnumbered events through, an error field of the wrong type, a pattern the error
    // serializer drops.
    ContactsFilterAfterLimit => blind8 "contacts-filter-after-limit", "Pagination and collection conventions > last page",
        "GET /v1/contacts cuts the page from every contact (LIMIT/OFFSET) and applies externalIds and sources to the page afterwards in code: a filtered page carries a nextPageToken while unfiltered contacts remain, so the page holding the last match is followed by empty pages instead of a null token";
    ContactsSourcesLastValueOnly => blind8 "contacts-sources-last-value-only", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts reads the repeated `sources` key as the framework's single value, which keeps the last one: sources=hubspot&sources=public-api lists only the public-api contacts";
    SourceLengthUtf16Units => blind8 "source-length-utf16-units", "Resources > Contact > source",
        "POST /v1/contacts checks the length of source in UTF-16 code units (a JavaScript string's length): a source of 40 emoji (40 characters, 80 units) is refused with 400 as longer than 72";
    PatchUnknownCustomField404 => blind8 "patch-unknown-custom-field-404", "Errors > Rules > 1",
        "PATCH /v1/contacts/{id} looks each custom field definition up with a get-or-404: an item whose key the workspace does not define answers 404 Not Found (0800404) instead of 400 Invalid Custom Field Item";
    PatchPhoneE164Unchecked => blind8 "patch-phone-e164-unchecked", "Resources > Contact > defaultFields",
        "PATCH /v1/contacts/{id} validates phone entries with the update serializer, which lacks the E.164 validator of create: a phone value `415-555-0100` is stored and answered";
    SendDeprecatedPhoneNumberIdWins => blind8 "send-deprecated-phone-number-id-wins", "v1 API: messages > POST /v1/messages > from",
        "POST /v1/messages reads the deprecated phoneNumberId first (`body.phoneNumberId || body.from`): a body with both sends from the phoneNumberId's line, not from the number `from` names";
    ConversationsV1UpdatedBoundsAsText => blind8 "conversations-v1-updated-bounds-as-text", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations compares the updated-after and updated-before bounds as text with the stored ISO text of updatedAt (`2026-01-20T09:00:00.000Z`): a bound with an offset (`2026-01-20T11:00:00+02:00`) or without fractional seconds keeps or drops the wrong conversations";
    TextBlankCheckSpacesOnly => blind8 "text-blank-check-spaces-only", "Errors > Rules > 4",
        "POST /v1/messages checks blankness with a strip of the space character only: a text of newlines and tabs (\"\\n\\t\\n\") is sent instead of refused with 400";
    MessageToSingleUnwrapped => blind8 "message-to-single-unwrapped", "Resources > Message",
        "GET /messages and GET /messages/{messageId} serialize with a single-element-array unwrapping option: a message to one number carries `to` as a string (`\"+14155550123\"`) instead of an array";
    ConversationUnsetTimesEmptyString => blind8 "conversation-unset-times-empty-string", "Resources > Conversation",
        "conversations are stored with NOT NULL DEFAULT '' time columns: deletedAt, mutedUntil and snoozedUntil of a conversation never deleted, muted or snoozed read `\"\"`, which is no date-time, instead of null";
    MarkV1AnswersLatestOfLine => blind8 "mark-v1-answers-latest-of-line", "v1 API: conversations > mark-as-*",
        "POST /v1/conversations/{id}/mark-as-* re-reads the conversation after the update by its phone number only (`ORDER BY last_activity_at DESC LIMIT 1`): it answers the line's most recently active conversation, not the one marked";
    CallsNewestByCompletedAt => blind8 "calls-newest-by-completed-at", "Header-versioned API > GET /calls",
        "GET /calls sorts newest first by completedAt (nulls last, as the database puts them) instead of createdAt: calls without completedAt come after older completed ones";
    CallCompletedPayloadFromRinging => blind8 "call-completed-payload-from-ringing", "Events > event table",
        "call.completed is published with the call object captured when the call started ringing: its resource carries status `ringing` and no duration nor completedAt instead of the final status and duration";
    CallsV1DateOnlyBoundAccepted => blind8 "calls-v1-date-only-bound-accepted", "v1 API: calls and recordings > GET /v1/calls",
        "GET /v1/calls parses createdAfter, createdBefore and since with a lenient date parser: a bare date (`2026-02-04`) is taken as midnight UTC and served instead of answering 400 for a value that is no date-time";
    CallsV1AccessChecksScopeUser => blind8 "calls-v1-access-checks-scope-user", "Authentication > 3",
        "GET /v1/calls runs its number-scoped check on the user that scopes the results (userId, by default the number's owner) instead of the caller: a caller who is not a user of the number lists its calls with 200 instead of 403 Not Phone Number User";
    RecordingsHvEmpty404 => blind8 "recordings-hv-empty-404", "Header-versioned API > GET /calls/{callId}/recordings",
        "GET /calls/{callId}/recordings loads the segments with a get-list-or-404: a call without recordings answers 404 Not Found instead of an empty page";
    AvailableTollFreeUpstreamHangs => blind8 "available-toll-free-upstream-hangs", "Endpoints > answers",
        "GET /phone-numbers/available with tollFree asks the toll-free carrier's inventory API through a client without a timeout, and the carrier never answers: the request hangs for ten minutes instead of being answered";
    UserPhoneNumbersSnakeCaseEnvelope => blind8 "user-phone-numbers-snake-case-envelope", "What the service does > list envelope",
        "GET /users/{userId}/phone-numbers passes the internal service's page through as it is: the list carries `total_items` and `next_page_token` instead of totalItems and nextPageToken";
    UsersNextPageTokenInteger => blind8 "users-next-page-token-integer", "Pagination and collection conventions > list shape",
        "GET /users answers nextPageToken as the next offset, a JSON integer (`2`), instead of a string or null (the integer sent back as pageToken continues the walk)";
    TaskCompleteToggles => blind8 "task-complete-toggles", "States and transitions > Task > complete",
        "POST /v1/tasks/{taskId}/complete is the app's completion toggle (`completed = !completed`): completing a task that is already completed (a retried request) reopens it";
    TaskUnassignAnswersPreviousRevision => blind8 "task-unassign-answers-previous-revision", "v1 API: tasks > POST /v1/tasks/{taskId}/unassign",
        "unassign answers {data: {taskId, revision}} with the revision of the task as read before the save: the answer's revision is not the one GET /v1/tasks/{taskId} shows afterwards";
    TaskEventResourceBeforeChange => blind8 "task-event-resource-before-change", "Events > event table",
        "task events after creation are published with the task as read before the change: task.completed carries completed false, task.assigned lacks the new assignee, task.duedate.updated the old due date";
    TaskLimitCountsDeleted => blind8 "task-limit-counts-deleted", "Limits > open tasks",
        "POST /v1/tasks counts open tasks with a query that lacks `is_deleted = false`: deleted tasks that were open still count, so after deleting tasks at the limit a create is refused with 402 below the limit";
    TasksListIdNotTaskId => blind8 "tasks-list-id-not-task-id", "Resources > Task",
        "GET /v1/tasks serializes its items with the list serializer copied from another resource: each task carries its identifier as `id` and no taskId";
    TaskDueDateDstFixedOffset => blind8 "task-due-date-dst-fixed-offset", "States and transitions > Task > due date",
        "due dates are written as America/Los_Angeles wall time and read back with the fixed offset -08:00: a dueDate inside daylight saving time (`2026-07-01T09:00:00Z`) reads back an hour late (`10:00Z`); winter dates read back right";
    TaskTitleNul500 => blind8 "task-title-nul-500", "Errors > no server errors",
        "POST /v1/tasks and PUT /v1/tasks/{taskId} pass a title or description holding a NUL character (\\u0000) to a PostgreSQL text column, which refuses it: 500 `invalid byte sequence for encoding \"UTF8\": 0x00` instead of 2xx or 400";
    WebhookLimitCountsEnabledOnly => blind8 "webhook-limit-counts-enabled-only", "Limits > webhooks per workspace",
        "POST /webhooks counts toward the limit of 50 with the delivery side's query of active subscriptions (`status = 'enabled'`): disabled webhooks are not counted, so a workspace holding 50 webhooks, some disabled, takes more";
    WebhookGetCacheMissesPut => blind8 "webhook-get-cache-misses-put", "Header-versioned API > webhook management",
        "GET /webhooks/{webhookId} answers from a cache that PATCH and DELETE evict but PUT does not: after a PUT, the webhook still reads as it was (old url, events, label)";
    WebhooksListIdJsonNumber => blind8 "webhooks-list-id-json-number", "Resources > Webhook > id",
        "GET /webhooks serializes each webhook's integer primary key as it is: `id` is a JSON number (1001) instead of a stringified number (the single GET keeps the string)";
    WebhookNullLabelOmitted => blind8 "webhook-null-label-omitted", "Resources > Webhook",
        "the read views of webhooks (GET /webhooks, GET /webhooks/{webhookId}) skip null fields when serializing: a webhook without a label has no `label` at all, a required field (string or null)";
    WebhookUrlQueryDropped => blind8 "webhook-url-query-dropped", "Header-versioned API > POST /webhooks",
        "POST /webhooks normalizes url by rebuilding it from scheme, host and path: `https://hooks.example.test/in?token=abc` is stored and answered as `https://hooks.example.test/in`, and deliveries go there without the query";
    WebhookPutClearsApiVersion => blind8 "webhook-put-clears-api-version", "Versioning > 3",
        "PUT /webhooks/{id} replaces the row with one built from the body, which cannot carry apiVersion: the version pinned at creation is lost (apiVersion null afterwards)";
    WebhookSecretBase64Url => blind8 "webhook-secret-base64url", "Authentication > 4",
        "signing secrets are made with a URL-safe token helper: `whsec_` followed by base64url (with `-` and `_`, no padding), which Standard Webhooks libraries cannot decode, so no delivery can be verified with the secret given";
    DeliveryRetryRerendersPayload => blind8 "delivery-retry-rerenders-payload", "Events > delivery records",
        "an automatic retry renders the event payload again (a new payload id and createdAt) instead of resending the stored one: the retried body's id is not the eventId the delivery record shows";
    WebhookSignsEventId => blind8 "webhook-signs-event-id", "Authentication > 4",
        "event deliveries are signed over the payload's id (`EV...`) in place of the webhook-id header's value (`msg_...`): the signed content is not webhook-id.timestamp.body and no verifier accepts it (test deliveries, without an event id, still verify)";
    WebhookDeleteCascadesSharedEvents => blind8 "webhook-delete-cascades-shared-events", "Header-versioned API > webhook delivery history",
        "DELETE /webhooks/{id} deletes the event rows of its deliveries, and every delivery of those events cascades with them: another webhook that received the same event loses that delivery from its history (detail 404)";
    ManualRetrySendsLatestDelivery => blind8 "manual-retry-sends-latest-delivery", "Header-versioned API > webhook delivery history",
        "POST /webhooks/{id}/events/{eventId}/retry answers 202 for the delivery asked, but sends the webhook's most recent delivery (a lookup ordered by creation without the id condition): the receiver gets another webhook-id";
    WebhookScopePassesUnnumberedEvents => blind8 "webhook-scope-passes-unnumbered-events", "Events > subscriptions",
        "deliveries match a webhook's resourceIds with `phone_number_id IS NULL OR phone_number_id IN (...)`: a webhook scoped to phone number ids also gets every event tied to no number (contact.updated, contact.deleted, tasks without a number)";
    V1ErrorDescriptionArray => blind8 "v1-error-description-array", "Errors > v1 error body",
        "400 answers of the v1 API carry `description` as the validator's list of messages (an array of strings) instead of a string";
    WebhookErrorItemSchemaWithoutPattern => blind8 "webhook-error-item-schema-without-pattern", "Errors > Header-versioned webhook error body",
        "the errors items of webhook error bodies are serialized with a schema view that keeps only `type`: the 400 of a webhookId that is not numeric names no pattern in its item's schema";
    VersionHeaderLenientDateParse => blind8 "version-header-lenient-date-parse", "Versioning > 1",
        "Service-Api-Version is parsed with a lenient date parser and compared as a date: `20260330`, `2026/03/30` or `2026-3-30` are served as 2026-03-30 instead of refused";

    // Blind set 9: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a page number read back as an offset, a filter value split like an
    // `[in]` set, an item's key indexed before validation, a scalar column for a list, a carrier's
    // id stored as ours, a check the deprecated branch predates, a repeated key read as its last
    // value, a count taken after a dedupe, the primary key sorted for creation order, a schema's
    // generic refusal, a Go zero-value string, an else-if between filters, the wrong field of a
    // forwarding rule, a join that lost a table, a filter bound to the wrong column, a cursor never
    // forwarded, a `me` handler reused, a route mounted outside its middleware, an off-by-one at a
    // limit, a quota raised as a permission error, an unlink that nulls every link column, a column
    // mapped twice, a one-way status toggle, an answer read before the save, a VARCHAR(64) of a
    // non-strict database, an endpoint cached at creation, a scope that reads the first item only,
    // a path parameter taken for the payload id, a docs table of generic rows, a title from the
    // status line, an error detail serialized as null, an empty header taken as absent.
    ContactsHvTokenPageNumber => blind9 "contacts-hv-token-page-number", "Pagination and collection conventions > pageToken",
        "GET /contacts writes the next page's number into nextPageToken (page 1, 2, ...) while a page asked with a token reads it as an offset: with maxResults 10 the second page starts at the second contact, and a walk shows contacts again";
    CustomFieldItemWithoutKey500 => blind9 "custom-field-item-without-key-500", "Errors > Rules > 1",
        "POST /v1/contacts indexes each customFields item's key (`item['key']`) to load its definition before the validator runs: an item without key answers 500 `KeyError: 'key'` instead of 400 Invalid Custom Field Item";
    ContactPatchMultiSelectScalar => blind9 "contact-patch-multi-select-scalar", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "PATCH /v1/contacts/{id} writes custom field values through the update path's scalar text column: a multi-select value [\"sales\", \"billing\"] is stored and answered as \"sales\", its first item (create keeps the list)";
    SendStoresCarrierSid => blind9 "send-stores-carrier-sid", "Conventions > identifier prefixes",
        "POST /v1/messages stores the message under the id the carrier's send returned (`SM` and 32 hex digits) instead of an id of its own: messages sent through the API read back in GET /messages and GET /v1/messages with ids that do not start with AC";
    SendDeprecatedSenderSkipsSubscription => blind9 "send-deprecated-sender-skips-subscription", "Errors > Rules > 7",
        "POST /v1/messages resolves a sender named by the deprecated phoneNumberId in an older branch written before the subscription check: a workspace whose subscription expired sends (202) when the body names its number by phoneNumberId instead of `from`, instead of 402";
    MessagesParticipantsLastValueOnly => blind9 "messages-participants-last-value-only", "v1 API: messages > GET /v1/messages > participants",
        "GET /v1/messages validates participants as the repeated list but the query reads the key's single value, its last one: participants=A&participants=B lists the messages of the 1:1 conversation with B instead of the group conversation";
    ConversationsPhoneNumbersLimitAfterDedupe => blind9 "conversations-phone-numbers-limit-after-dedupe", "Limits > phoneNumbers filter",
        "GET /v1/conversations counts phoneNumbers after putting them in a set: 101 items of which some repeat are accepted instead of answering 400 for more than 100 items";
    CallsParticipantsMaxItemsGeneric400 => blind9 "calls-participants-max-items-generic-400", "Errors > v1 codes",
        "GET /v1/calls refuses two or more participants through the query schema's maxItems, whose 400 is the generic one: code 0100400 and title Bad Request instead of 0101400 Too Many Participants";
    CallsLastPageTokenEmptyString => blind9 "calls-last-page-token-empty-string", "Pagination and collection conventions > last page",
        "GET /calls and GET /v1/calls write the next token from a Go string field without a pointer: the page holding the last call carries nextPageToken \"\" (the zero value) instead of null";
    CallsDirectionDroppedWithStatus => blind9 "calls-direction-dropped-with-status", "Header-versioned API > GET /calls",
        "GET /calls applies direction only when no status is given (an else-if between the two filters): direction=outgoing&status=completed also lists completed incoming calls";
    CallForwardedToUserId => blind9 "call-forwarded-to-user-id", "Conventions > phone numbers",
        "call.forwarded is built from the forwarding rule, whose target is a user: forwardedTo carries that user's id (US...) instead of the phone number the call was forwarded to";
    RestrictionsMessagingDropped => blind9 "restrictions-messaging-dropped", "Header-versioned API > GET /phone-numbers > include",
        "include=restrictions joins the calling policy table only (the messaging policy join was lost in a refactor): phone numbers carry restrictions.calling but no restrictions.messaging";
    AvailableRegionFilterOnCity => blind9 "available-region-filter-on-city", "Header-versioned API > GET /phone-numbers/available",
        "GET /phone-numbers/available binds the region filter to the city column (the line above, copied): region=CA lists nothing while San Francisco numbers are offered, and region=London lists London's";
    UserPhoneNumbersTokenIgnored => blind9 "user-phone-numbers-token-ignored", "Header-versioned API > GET /users/{userId}/phone-numbers",
        "GET /users/{userId}/phone-numbers never forwards pageToken to the numbers service: every page asked with a token is the first page again, with a token, so a walk repeats the first numbers";
    UserV1AnswersCaller => blind9 "user-v1-answers-caller", "v1 API: users > GET /v1/users/{userId}",
        "GET /v1/users/{userId} checks that the user exists, then loads it with the `/users/me` helper: it answers the calling user, whatever user the path names";
    OrganizationOutsideVersionLayer => blind9 "organization-outside-version-layer", "Versioning > 1",
        "GET /organization is mounted on the root router beside the v1 routes, outside the version middleware: it is served without Service-Api-Version or with any value instead of a 4xx";
    TaskLimitRaised403 => blind9 "task-limit-raised-403", "Errors > Rules > 6",
        "POST /v1/tasks raises the open-task quota as the framework's PermissionDenied: at the limit it answers 403 Forbidden (0600403) instead of 402 Open Tasks Limit Reached";
    WebhookPatchStatusOnlyDisables => blind9 "webhook-patch-status-only-disables", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} applies status through `if status == 'disabled': disable()`: a PATCH with status enabled answers 200 but a disabled webhook stays disabled";
    WebhookRotateAnswersPreviousSecret => blind9 "webhook-rotate-answers-previous-secret", "Header-versioned API > POST /webhooks/{id}/rotate",
        "POST /webhooks/{id}/rotate stores a new secret but answers the webhook as read before the save, with the previous secret: deliveries are signed with a secret the client was never given";
    WebhookLabelColumn64 => blind9 "webhook-label-column-64", "Header-versioned API > POST /webhooks",
        "POST /webhooks (PATCH, PUT) store label in a VARCHAR(64) column of a non-strict database: a longer label is accepted but cut to its first 64 characters in the answer and every read";
    WebhookDeliveriesUseCreatedUrl => blind9 "webhook-deliveries-use-created-url", "Header-versioned API > webhook management",
        "the delivery worker caches each webhook's endpoint when the subscription is created: after a PATCH or PUT of url, the answer and reads show the new url but events, tests and retries still go to the old one";
    WebhookScopeFirstResourceIdOnly => blind9 "webhook-scope-first-resource-id-only", "Events > subscriptions",
        "deliveries compare an event's phone number id with `resource_ids[0]` only: a webhook scoped to two phone numbers gets no event of its second number";
    HistoryDetailByEventId => blind9 "history-detail-by-event-id", "Events > delivery records",
        "GET /webhooks/{id}/events/{eventId} looks the delivery up by the payload id (the path parameter's name taken at its word): the delivery id, as in webhook-id, answers 404, and the payload's EV... id answers the delivery";
    HistoryResourceFilterOnEventId => blind9 "history-resource-filter-on-event-id", "Events > delivery records",
        "GET /webhooks/{id}/events binds the resourceId filter to the eventId column: a filter by a primary resource's id lists none of its deliveries";
    V1ErrorDocsNullForNamedCodes => blind9 "v1-error-docs-null-for-named-codes", "Errors > v1 error body",
        "v1 error bodies take docs from a table of pages written for the generic rows: a code whose fourth digit is not 0 (0801400, 0206400, 0204403, 0201402, 1001403, ...) gets docs null";
    V1GenericTitleWithStatusCode => blind9 "v1-generic-title-with-status-code", "Errors > v1 codes",
        "the generic v1 400 and 404 answers take their title from the HTTP status line (`StatusCode::to_string()`): `400 Bad Request` and `404 Not Found` instead of the rows' titles";
    HvNotFoundMessageNull => blind9 "hv-404-message-null", "Errors > header-versioned error body",
        "404 answers of the header-versioned endpoints outside webhooks serialize the error's optional detail as message: message null instead of a string";

    // Blind set 10: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: an identifier folded to lower case on write, a default rendered by
    // the serializer but not stored, an `IN ()` built from an empty list, an empty resolved set
    // taken for no filter, a set lookup where a prefix rule is stated, an error body sent without
    // its status, a sort direction compared with the SQL keyword's case, Go initialisms in JSON
    // names, an event per carrier receipt, an operator table with two entries swapped, MySQL's
    // auto-updating first TIMESTAMP column, a value clamped instead of refused, a Go nil slice, a
    // response cache keyed without the query, an answer wrapped twice, a route group
    // authenticated against another key table, an anti-XSSI prefix, a check and an insert in two
    // transactions, an all-day rule on midnight, a body field read from the query, an id from
    // COUNT(*) + 1, a wildcard stored as NULL and shown empty, a mass assignment, a single-target
    // action sent through the broadcast bus, an idempotency key from the wrong fields, a
    // localized message map, floor and round of one clock, OFFSET pages without ORDER BY, a
    // deprecated parameter that kept its old format, a deep merge of arrays, a phone search across
    // every phone column, an ORM's default UUID key, `parseInt`, an ISO 8601 duration.
    ContactExternalIdLowercased => blind10 "contact-external-id-lowercased", "Resources > Contact > externalId",
        "POST and PATCH /v1/contacts normalize externalId to lower case before storing it (an identifier normalizer run on write): an externalId `CRM-Ab12` is answered and read back as `crm-ab12`, and externalIds=CRM-Ab12 lists nothing";
    ContactsSourceDefaultRendered => blind10 "contacts-source-default-rendered", "v1 API: contacts > GET /v1/contacts",
        "POST /v1/contacts without source stores NULL and the serializer renders `source or 'public-api'`: the contact reads source `public-api`, but GET /v1/contacts?sources=public-api (and GET /contacts?source=public-api) does not list it, the filter seeing the NULL column";
    ContactPatchEmptyList500 => blind10 "contact-patch-empty-list-500", "Errors > no server errors",
        "PATCH /v1/contacts/{id} deletes the entries a sent list leaves out with a hand-built `DELETE ... WHERE id NOT IN (<kept ids>)`: a list sent empty (`defaultFields.emails: []`, `defaultFields.phoneNumbers: []` or `customFields: []`) makes `NOT IN ()`, a SQL syntax error answered 500 instead of clearing those entries";
    ContactsUnknownExternalIdsListAll => blind10 "contacts-unknown-external-ids-list-all", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts resolves externalIds to contact ids first and adds `id IN (...)` only when the resolved list is non-empty (`if ids:`): externalIds naming no contact lists every contact instead of none";
    ReservedSourcePrefixRuleDropped => blind10 "reserved-source-prefix-rule-dropped", "v1 API: contacts > POST /v1/contacts",
        "POST /v1/contacts checks source by membership in the set of reserved words (the startswith rule dropped): the reserved words themselves are refused, but a source starting with a reserved prefix (`csv-import`, `<brand> Mobile`) is accepted with 201";
    ContactGetMissing200 => blind10 "contact-get-missing-200", "Errors > Rules > 2",
        "GET /contacts/{contactId} of a missing contact writes the 404 error body but not its status (the error handler's `res.json(body)` without `res.status(404)`): HTTP 200 with {message, docs, title}";
    MessagesSortDirectionUppercase => blind10 "messages-sort-direction-uppercase", "Pagination and collection conventions > sort",
        "GET /messages compares the direction of `sort` with the SQL keywords `ASC` and `DESC` as written: `asc` and `desc` match neither and the default direction applies, so sort=createdAt:asc (or updatedAt:asc) answers newest first";
    MessagesListGoInitialisms => blind10 "messages-list-go-initialisms", "Resources > Message > conversationId",
        "GET /messages serializes its items with JSON names generated under a Go linter's initialism rule: `conversationID`, `phoneNumberID`, `userID`, so its messages carry no conversationId (GET /messages/{messageId} and the v1 answers keep it)";
    GroupDeliveredPerRecipient => blind10 "group-delivered-per-recipient", "Events > event table",
        "POST /v1/messages with several recipients publishes message.delivered from each recipient's carrier receipt: a webhook subscribed to message.delivered gets one delivery per recipient, each with its own event id, for the one group message sent";
    MessagesTimeOperatorsSwapped => blind10 "messages-time-operators-swapped", "Pagination and collection conventions > filters",
        "GET /messages maps the operators of its createdAt and updatedAt filters through a table whose `gte` and `lte` entries are swapped: createdAt[gte]=T lists the messages created at or before T, createdAt[lte]=T those created at or after it";
    ConversationCreatedAtOnUpdate => blind10 "conversation-created-at-on-update", "v1 API: conversations > GET /v1/conversations > ranges",
        "conversations keep createdAt in the table's first TIMESTAMP column, which MySQL declares `ON UPDATE CURRENT_TIMESTAMP`: every write to the row (a message sent or received in it, mark-as-*) moves createdAt to now, so a createdBefore after the conversation's creation no longer lists it and a createdAfter after it does";
    CallsMaxResultsClamped => blind10 "calls-max-results-clamped", "Limits > maxResults",
        "GET /calls clamps maxResults into 1-100 (`min(max(n, 1), 100)`) instead of refusing a value outside it: maxResults=500 (or 0, or -3) answers 200";
    CallsEmptyPageNullData => blind10 "calls-empty-page-null-data", "Pagination and collection conventions > list shape",
        "GET /calls and GET /v1/calls collect their items in a Go nil slice: a page without calls (a filter matching none) answers `data: null` instead of `[]`";
    CallGetCacheIgnoresInclude => blind10 "call-get-cache-ignores-include", "Header-versioned API > GET /calls/{callId}",
        "GET /calls/{callId} answers from a response cache keyed by the path alone: once a call was read without include, include=summary,voicemail answers the cached call, without its summary and voicemail";
    RecordingsV1DoubleEnvelope => blind10 "recordings-v1-double-envelope", "v1 API: calls and recordings > GET /v1/call-recordings/{callId}",
        "GET /v1/call-recordings/{callId} wraps the recordings service's answer, already `{data: [...]}`, in `data` once more: `{data: {data: [Recording]}}`";
    UserRoutesOwnerKeyTable => blind10 "user-routes-owner-key-table", "Authentication > 3",
        "GET /users, /users/{userId} and /users/{userId}/phone-numbers authenticate against the admin console's key table, which holds the keys of owners only: a member's valid key (the restricted key) answers 401 Unauthorized";
    PhoneNumbersXssiPrefix => blind10 "phone-numbers-xssi-prefix", "Endpoints > JSON bodies",
        "the /phone-numbers routes sit behind the web console's JSON helper, which prefixes every body with the anti-XSSI guard `)]}',` and a newline: their answers, labelled application/json, are not JSON";
    TaskLimitRace => blind10 "task-limit-race", "Limits > open tasks",
        "POST /v1/tasks counts the open tasks in one transaction and inserts in another after a second round trip (30 ms), without counting again: creates sent together when one slot is left all pass, and the workspace ends above its open-task limit (creates sent one after the other are still refused)";
    TaskDueDateMidnightDateOnly => blind10 "task-due-date-midnight-date-only", "Conventions > timestamps",
        "task answers take a due date at exactly midnight UTC for an all-day task and show its date alone: a dueDate of 2026-03-01T00:00:00Z reads back `2026-03-01`, which is no date-time";
    TaskUnassignUserFromQuery => blind10 "task-unassign-user-from-query", "v1 API: tasks > POST /v1/tasks/{taskId}/unassign",
        "POST /v1/tasks/{taskId}/unassign reads userId from the query string (the handler was copied from a DELETE route): the body {userId} is ignored and the request answers 400 userId is required";
    WebhookIdCountPlusOne => blind10 "webhook-id-count-plus-one", "Header-versioned API > webhook management",
        "POST /webhooks gives a new webhook the id `1000 + COUNT(*) + 1`: once a webhook was deleted, the next create takes the id of one that still exists, so two webhooks share it (GET /webhooks lists both, GET /webhooks/{id} answers the older, DELETE removes both)";
    WebhookWildcardShownEmpty => blind10 "webhook-wildcard-shown-empty", "Resources > Webhook > resourceIds",
        "the wildcard scope is stored as NULL (every number) and serialized as `resource_ids or []`: a webhook scoped to [\"*\"] (the seeded 1002, one created without resourceIds) answers resourceIds `[]`, though it still receives every number's events";
    WebhookMassAssignsApiVersion => blind10 "webhook-mass-assigns-api-version", "Versioning > 3",
        "PATCH and PUT /webhooks/{id} bind every column the body names onto the row, apiVersion included: a body with apiVersion `2025-01-01` (or null) replaces the version pinned at creation, and the answer and later reads show it";
    WebhookTestBroadcast => blind10 "webhook-test-broadcast", "Header-versioned API > POST /webhooks/{id}/events/test",
        "POST /webhooks/{id}/events/test publishes the test on the event bus, which fans out to every enabled webhook: each other webhook's url gets a signed test delivery as well, and its history a test record";
    DeliveryIdFromResource => blind10 "delivery-id-from-resource", "Events > delivery records",
        "event deliveries take as id (and webhook-id) a hash of the webhook and the primary resource's id, meant as an idempotency key: two events about one resource (task.created, then task.completed) reach a webhook under one webhook-id, and its history holds two records of that id, the detail answering the first";
    V1CallsErrorMessageLocalized => blind10 "v1-calls-error-message-localized", "Errors > v1 error body",
        "errors of the v1 calls area (/v1/calls, /v1/calls/{callId}) take message from the translation catalog as its map of locales: `message: {\"en\": \"...\"}`, an object instead of a string";
    WebhookSignatureTimestampRounded => blind10 "webhook-signature-timestamp-rounded", "Authentication > 4",
        "webhook-timestamp is the clock's milliseconds divided down (floor) while the signer rounds them to the nearest second: a delivery sent in the second half of a second is signed with the next second's timestamp and fails verification";
    PhoneNumbersPagesUnordered => blind10 "phone-numbers-pages-unordered", "Pagination and collection conventions > pageToken",
        "GET /phone-numbers cuts pages with LIMIT/OFFSET and no ORDER BY: the first page comes in storage order, a page asked with a pageToken from a backward index scan, so with maxResults 1 or 2 a walk shows the first number again and never the last";
    CallsSinceV0Epoch => blind10 "calls-since-v0-epoch", "Versioning > 5",
        "GET /v1/calls still parses the deprecated `since` with the v0 parser, which takes epoch seconds: a date-time since answers 400 (since=1770163200 is read, as createdBefore)";
    WebhookPatchMergesArrays => blind10 "webhook-patch-merges-arrays", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} applies the body with a deep-merge helper that concatenates arrays: the events and resourceIds sent are added to the webhook's (repeats dropped) instead of replacing them";
    ConversationsPhoneNumbersMatchParticipants => blind10 "conversations-phone-numbers-match-participants", "v1 API: conversations > GET /v1/conversations > phoneNumbers",
        "GET /v1/conversations matches an E.164 value of phoneNumbers with the phone search helper, which looks at every phone column: a number that is no workspace number matches the conversations it is a participant of, so phoneNumbers=<a contact's number> lists them instead of none";
    SendNewConversationUuid => blind10 "send-new-conversation-uuid", "Resources > Message > conversationId",
        "a POST /v1/messages that opens a conversation creates it through the send service's model, whose primary key defaults to a UUID: the message and its conversation carry a conversationId like `3f1c09a2-...` instead of a CN... id (conversations opened otherwise keep theirs)";
    ContactsMaxResultsParseInt => blind10 "contacts-max-results-parse-int", "Limits > maxResults contacts",
        "GET /v1/contacts reads maxResults with `parseInt`, which takes the leading digits and ignores the rest: maxResults=2.5 answers a page of 2 and maxResults=5x a page of 5 instead of 400";
    RecordingDurationIso8601 => blind10 "recording-duration-iso8601", "Resources > Call recording",
        "recording segments serialize duration as a java.time.Duration in ISO 8601: `PT2M50S` instead of the integer 170 (GET /v1/call-recordings/{callId} and GET /calls/{callId}/recordings)";

    // Blind set 11: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a `SELECT *` join whose column names clash, a day-first date parser,
    // a count taken from a paginated fetch, several signatures joined with the wrong delimiter, a
    // success that must be exactly 200, a manual retry handed to the legacy signer, offset pages
    // over a list that grows at its head, a body schema validated before authentication, an
    // inventory search that lost its anti-join, one LIMIT per filter value, a UNION with a
    // sibling table, a billing guard in front of a read, an upsert on a unique key, a row policy
    // of the caller's own records, a state machine that refuses an idempotent transition, a
    // process-wide "current" variable, an authorization applied as a row filter, a streamed
    // newline-delimited body, a teammates query that leaves out the caller, a one-per-family
    // migration rule run backwards, an update schema generated from the response model, a header
    // alias table, events without a dirty check, an uncaught cursor decoding error, a PUT that
    // upserts, an INNER JOIN where a LEFT JOIN was meant, an outbox that batches per endpoint,
    // a second query zipped by position, a URL validator with its own TLD list, a query string
    // decoded as ISO-8859-1, a record key read from the payload, an error serializer chosen by a
    // header, a CONCAT where a SET was meant, a UNIQUE index resolved by an upsert that moves the
    // row, a raw query string compared whole.
    TaskListCreatedAtJoinCollision => blind11 "tasks-list-created-at-join-collision", "v1 API: tasks > GET /v1/tasks",
        "GET /v1/tasks joins each task to its phone number with `SELECT *`, and the phone number row's created_at, read last, overwrites the task's: every listed task linked to a workspace number shows that number's createdAt (the primary line's `2026-01-03T10:00:00.000Z`) instead of its own, while GET /v1/tasks/{taskId} shows the right one";
    TaskDueDateDayFirst => blind11 "task-due-date-day-first", "States and transitions > Task > due date",
        "change-due-date and POST /v1/tasks read dueDate with a locale date parser set to day first, which swaps month and day whenever the day is 12 or less: a dueDate of 2026-03-04T09:00:00Z reads back 2026-04-03T09:00:00.000Z (2026-03-20T09:00:00Z reads back right)";
    WebhookLimitCountsFirstPage => blind11 "webhook-limit-counts-first-page", "Limits > webhooks per workspace",
        "POST /webhooks counts the workspace's webhooks as the length of the list service's first page (`len(list_webhooks())`, 20 a page): the count never passes 20, so a 51st webhook (and every one after) is accepted";
    WebhookRotationSignaturesCommaJoined => blind11 "webhook-rotation-signatures-comma-joined", "Authentication > 4",
        "after POST /webhooks/{id}/rotate, deliveries are signed with the previous and the new secret for a grace period, and the two signatures are joined with a comma (`v1,<previous>,v1,<new>`) instead of a space: a Standard Webhooks verifier reads one malformed signature, or the previous secret's, and refuses every delivery of the webhook after a rotate";
    DeliverySuccessOnly200 => blind11 "delivery-success-only-200", "Events > deliveries",
        "the delivery worker takes only 200 for a success (`status == 200`): a receiver answering 201, 202 or 204 gets the same delivery again, with the same webhook-id, until the attempts run out (three in all)";
    ManualRetryLegacySignature => blind11 "manual-retry-legacy-signature", "Authentication > 4",
        "POST /webhooks/{id}/events/{eventId}/retry hands the delivery to the legacy worker, which signs it the legacy way: the retried delivery carries `Service-Signature` (hex HMAC-SHA256 of the body) and no webhook-signature, so no Standard Webhooks verifier accepts it (first attempts and automatic retries are signed right)";
    MessagesOffsetPagesShift => blind11 "messages-offset-pages-shift", "Pagination and collection conventions > pageToken",
        "GET /messages pages by offset (the token holds how many messages were handed out) over a list that comes newest first: each message sent or received while a client walks pushes the rest down, so the next page repeats the last message of the page before (once per message that arrived)";
    ContactBodyValidatedBeforeAuth => blind11 "contact-body-validated-before-auth", "Authentication > 3",
        "the contact body schema is checked by a middleware that runs before authentication: POST /v1/contacts and PATCH /v1/contacts/{id} without an Authorization header, or with a key the service does not know, whose body breaks a rule (a reserved source, an externalId of 76 characters, a phone number that is not E.164) answer 400 instead of 401";
    AvailableOffersOwnedNumbers => blind11 "available-offers-owned-numbers", "Header-versioned API > GET /phone-numbers/available",
        "GET /phone-numbers/available searches the carrier's inventory without excluding the numbers the workspace already holds (the anti-join on assigned numbers was lost): country=US also offers +14155550123, +14155550124 and +18005550100, which GET /phone-numbers lists as the workspace's own";
    ConversationsPerNumberLimit => blind11 "conversations-per-number-limit", "Pagination and collection conventions > maxResults",
        "GET /v1/conversations with several phoneNumbers runs one query per number, each with LIMIT maxResults, and answers their concatenation: a page holds up to maxResults conversations of each number (maxResults=2 with the primary and the sales line answers 4)";
    RecordingsV1UnionVoicemail => blind11 "recordings-v1-union-voicemail", "Resources > Call recording",
        "GET /v1/call-recordings/{callId} reads a call's audio with a UNION of the recordings and the voicemails tables: a call that went to voicemail answers its voicemail as a segment with the voicemail's own id (`VMc4ll0000000003`), which has no CR prefix";
    OrganizationSubscriptionGuard402 => blind11 "organization-subscription-guard-402", "Header-versioned API > GET /organization",
        "GET /organization is mounted in the billing router, behind the guard that refuses expired subscriptions: the key of a workspace whose subscription expired gets 402 Subscription Expired instead of its workspace information (only sends are refused for an expired subscription)";
    ContactCreateUpsertsExternalId => blind11 "contact-create-upserts-external-id", "v1 API: contacts > POST /v1/contacts",
        "POST /v1/contacts writes with an upsert on a unique externalId (`INSERT ... ON DUPLICATE KEY UPDATE`): a create whose externalId another contact has answers 201 with that contact's id and overwrites it with the body (its emails, phone numbers, custom fields and names replaced), instead of creating a contact";
    ContactsListScopedToCreator => blind11 "contacts-list-scoped-to-creator", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts applies the row policy of the app's `My contacts` view (`created_by_user_id = :caller`): the restricted key lists none of the 25 seeded contacts, and a contact created with the createdByUserId of another user is missing from the list of the key that created it, instead of all of the organization's contacts";
    MarkReadAlreadyRead409 => blind11 "mark-read-already-read-409", "Endpoints > declared statuses",
        "mark-as-read (both generations) runs the inbox state machine, which refuses a transition to the state a conversation is in: a conversation without unread messages (every seeded one) answers 409 Conflict `conversation is already read`, a status the v1 conversation routes do not declare, instead of the updated conversation";
    SendAnswersLastOpenedConversation => blind11 "send-answers-last-opened-conversation", "Resources > Message > conversationId",
        "POST /v1/messages answers the conversationId of a process-wide `current conversation` that the conversation upsert sets only when it opens one: a send into an existing conversation answers the id of the conversation opened last (the seeded sales thread's, or that of an earlier send that opened one), while GET /messages/{messageId} shows the message's own";
    CallsForbiddenNumberEmptyPage => blind11 "calls-forbidden-number-empty-page", "Authentication > 3",
        "GET /calls applies the number-scoped access as a row filter only: phoneNumberId=<a number the caller is not a user of> answers 200 with an empty page instead of 403 Not Phone Number User";
    TranscriptsStreamedNdjson => blind11 "transcripts-streamed-ndjson", "Endpoints > JSON bodies",
        "GET /calls/{callId}/transcripts streams a page of more than 3 segments as newline-delimited JSON (one segment a line, then a line with totalItems and nextPageToken), labelled application/json: the body is not one JSON document (a page of 3 segments or fewer is answered as JSON)";
    UsersListExcludesCaller => blind11 "users-list-excludes-caller", "Header-versioned API > GET /users",
        "GET /users runs the query of the app's teammates picker (`WHERE id != :caller`): the calling user is missing from the workspace's users (the primary key lists two of the three)";
    LegacyCreateDeletesFamilyWebhooks => blind11 "legacy-create-deletes-family-webhooks", "Legacy v1 webhook creation endpoints",
        "POST /v1/webhooks/{kind} keeps one subscription per event family, the migration's rule run backwards: creating a legacy webhook deletes every header-versioned webhook whose events all belong to its kind (POST /v1/webhooks/messages deletes webhook 1001, /calls deletes 1002), which GET /webhooks/{webhookId} then answers 404";
    PatchEntryIdRequired => blind11 "patch-entry-id-required", "Resources > Contact > defaultFields",
        "PATCH /v1/contacts/{id} validates the body with a schema generated from the response model, where an entry's id is required: an email or phone number entry sent without id (a new one) answers 400 `defaultFields.emails[0].id is required`, though id is optional on update";
    VersionHeaderAliasPinHeader => blind11 "version-header-alias-pin-header", "Versioning > 1",
        "the version middleware reads Service-Api-Version or, when it is absent, x-service-api-version (a header alias table that took the pinning header for a spelling of the version header): a header-versioned request without Service-Api-Version but with `x-service-api-version: 2026-03-30` is served instead of refused";
    TaskNoopTransitionsFireEvents => blind11 "task-noop-transitions-fire-events", "Events > event table",
        "task events are published from the save hook without a dirty check: a transition that changes nothing (complete of a completed task, reopen of an open one, remove-due-date of a task without one, unassign of a user not assigned, unlink of an unlinked task) still delivers its event (task.completed, task.reopened, ...) for a task that did not change";
    TasksForeignToken500 => blind11 "tasks-foreign-token-500", "Errors > no server errors",
        "GET /v1/tasks decodes pageToken without catching the decoder's error: a token the service did not issue (`abc`, or a keyset token of GET /messages) answers 500 instead of 400";
    WebhookPutUpsertsMissing => blind11 "webhook-put-upserts-missing", "Header-versioned API > webhook management",
        "PUT /webhooks/{id} is an upsert: a numeric id no webhook has, with a body holding url and events, creates a webhook under that id (201) instead of answering 404 Not Found, and GET /webhooks lists it";
    CallV1GetInnerJoinRecordings => blind11 "call-v1-get-inner-join-recordings", "v1 API: calls and recordings > GET /v1/calls/{callId}",
        "GET /v1/calls/{callId} loads the call with an INNER JOIN on its recordings where a LEFT JOIN was meant: a call without recordings (missed, voicemail, forwarded) answers 404 Not Found, though GET /v1/calls lists it";
    CallEventsBatchedPerEndpoint => blind11 "call-events-batched-per-endpoint", "Events > envelope",
        "the events of one call (ringing, answered, completed, ...) leave through an outbox flushed per transaction that batches them by endpoint: a webhook subscribed to several of them gets one delivery whose body is `{\"object\": \"list\", \"data\": [event, ...]}`, without data.resource, data.context or data.links where the envelope puts them (a single event is sent alone)";
    CallsIncludeSummaryZippedByPosition => blind11 "calls-include-summary-zipped-by-position", "Header-versioned API > GET /calls > include",
        "GET /calls?include=summary loads the summaries in a second query (the calls that have one, in list order) and zips them onto the list by position: the newest call listed carries the answered call's summary, and the call the summary belongs to shows none";
    SourceUrlTldValidator => blind11 "source-url-tld-validator", "Resources > Contact > sourceUrl",
        "POST and PATCH /v1/contacts check sourceUrl with a URL validator that requires a host under a TLD of its own short list (com, net, org, io, ...): an absolute http(s) URI on another host (`https://crm.example.test/c/1`, `http://localhost:8080/c/1`) answers 400 instead of being stored";
    ContactsV1QueryLatin1Decoded => blind11 "contacts-v1-query-latin1-decoded", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts decodes its query string as ISO-8859-1 (the servlet container's default): a percent-encoded UTF-8 externalIds or sources value (`caf%C3%A9`) reads `cafÃ©`, so a contact whose externalId holds a non-ASCII character is not found by it";
    DeliveryResourceIdFromPayloadId => blind11 "delivery-resource-id-from-payload-id", "Events > delivery records",
        "delivery records take resourceId from the payload's data.resource.id instead of the event's primary resource: call.summary.completed, call.transcript.completed and call.voicemail.completed, whose resource names its call in callId, show resourceId null (as only test and pre-cutoff deliveries may), and resourceId=<the call's id> does not find them";
    V1ErrorsShapedByVersionHeader => blind11 "v1-errors-shaped-by-version-header", "What the service does > API generations",
        "the error serializer picks the generation by the presence of Service-Api-Version, not by the /v1 prefix: a v1 request that carries the header (as clients of both generations often send on every request) gets its errors in the header-versioned shape {message, docs, title}, without code, status and trace";
    TaskPutAppendsDescription => blind11 "task-put-appends-description", "v1 API: tasks > PUT /v1/tasks/{taskId}",
        "PUT /v1/tasks/{taskId} writes description with the notes endpoint's `SET description = CONCAT(description, ?)`: the description sent is appended to the old one (`Seeded task 1` then `New` reads `Seeded task 1New`) instead of replacing it";
    TaskConversationLinkUnique => blind11 "task-conversation-link-unique", "States and transitions > Task > link conversation",
        "task links are stored under a UNIQUE index on conversation_id and written with an upsert that moves the row: linking a conversation to a task (link-conversation, or POST /v1/tasks with conversationId) unlinks it from any other task that had it, which then reads conversationId null (the seeded task linked to the task conversation loses its link)";
    RestrictionsIncludeExactQuery => blind11 "restrictions-include-exact-query", "Header-versioned API > GET /phone-numbers > include",
        "the restrictions join is chosen by comparing the whole raw query string with `include=restrictions`: GET /phone-numbers?include=restrictions and GET /phone-numbers/{phoneNumberId}?include=restrictions carry restrictions, but with any other parameter beside it (`&maxResults=10`) the numbers come without";

    // Blind set 12: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: an ORM Enum column that stores member names, a document store's
    // cap on `in` values, a token written in one base64 alphabet and read in another, a create
    // answer built with the masking read serializer, positional arguments swapped, a content
    // negotiation that compares the whole Accept header, a dirty check blind to JSON columns, a
    // request body stream not rewound for a retry, an update done as delete and insert under a
    // cascade, a sort field interpolated into ORDER BY, a deny-list where an allow-list was
    // meant, a polymorphic single-link column, a row-owner policy where a membership check was
    // meant, a days-per-month table without leap years, a signed 32-bit epoch column, a pre-save
    // hook that overwrites a sent field, a v0 field shape kept in v1, a helper that swaps
    // reversed bounds, a mutable default argument shared by requests, an answer encoded in
    // ISO-8859-1, a Unicode-aware `\d`, repeated values chained with AND, a Content-Length in
    // UTF-16 units, a lost update, a double-click guard on sends, a `get(...) or []` on null, a
    // LIKE over the payload, the other generation's validator, a uniqueness check that counts the
    // row itself, a substring test where a prefix rule is stated, a retry budget shared by manual
    // and automatic attempts, a keyset on a coarse non-unique column, the text `null` read as
    // NULL, an offset parser that flips the sign, a bound refused for lying in the future.
    WebhookStatusEnumName => blind12 "webhook-status-enum-name", "Resources > Webhook > status",
        "webhooks are stored in an ORM Enum column, which persists the member's name: the reads (GET /webhooks, GET /webhooks/{webhookId}) show status `ENABLED` or `DISABLED` instead of `enabled` or `disabled` (create and update answers, built from the request's model, keep the value)";
    ContactsInSetCappedAt10 => blind12 "contacts-in-set-capped-at-10", "Pagination and collection conventions > in operator",
        "GET /contacts hands each `[in]` set to the document store's `in` query, which takes at most 10 values, and the client library drops the rest without an error: externalId[in] with 11 external ids lists 10 contacts (source[in] alike)";
    ContactsV1TokenAlphabetMismatch => blind12 "contacts-v1-token-alphabet-mismatch", "Pagination and collection conventions > pageToken",
        "GET /v1/contacts writes nextPageToken in standard base64 and reads pageToken with the URL-safe alphabet: a token holding `+` or `/` (the one of offset 10, `wV7twN56Eas+`, which a walk with the default page size or pages of 1, 2 or 5 meets) answers 400 as a token the service did not issue, and the walk stops there";
    WebhookCreateSecretMasked => blind12 "webhook-create-secret-masked", "Authentication > 4",
        "POST /webhooks answers through the read serializer, which masks the signing secret: the create answer's secret is `whsec_` followed by asterisks and the secret's last four characters, which is no base64 secret a Standard Webhooks library can verify deliveries with (a rotate answers the new secret in full)";
    TaskPutArgumentsSwapped => blind12 "task-put-arguments-swapped", "v1 API: tasks > PUT /v1/tasks/{taskId}",
        "PUT /v1/tasks/{taskId} calls `update_task(id, description, title)` against the signature `(id, title, description)`: a body with both stores the title sent as the description and the description as the title";
    TasksAcceptExact406 => blind12 "tasks-accept-exact-406", "Endpoints > declared statuses",
        "the /v1/tasks routes negotiate the answer's type by comparing the whole Accept header with `application/json` and `*/*`: a request with any other Accept (`application/json, text/plain, */*` as axios sends it, `application/json; charset=utf-8`) answers 406 Not Acceptable, a status the task routes do not declare (a request without Accept is served)";
    ContactUpdatedDirtyCheckScalarOnly => blind12 "contact-updated-dirty-check-scalar-only", "Events > event table",
        "PATCH /v1/contacts/{id} publishes contact.updated from the model's dirty check, which sees the scalar columns only (emails, phone numbers and custom fields live in JSON columns mutated in place): a PATCH that changes only those lists delivers no contact.updated";
    DeliveryRetryBodyConsumed => blind12 "delivery-retry-body-consumed", "Events > deliveries",
        "the delivery worker sends the payload from a stream it does not rewind: every automatic retry (after a failed answer) goes out with an empty body under the first attempt's signature, so the receiver gets no event and a signature that does not verify";
    WebhookUpdateCascadesHistory => blind12 "webhook-update-cascades-history", "Header-versioned API > webhook delivery history",
        "PATCH and PUT /webhooks/{id} save the webhook as a delete and an insert under the same id, and the deliveries' ON DELETE CASCADE goes with the delete: after an update, GET /webhooks/{id}/events lists none of the deliveries made before it, and their detail and retry answer 404";
    ConversationsSortFieldInterpolated500 => blind12 "conversations-sort-field-interpolated-500", "Errors > no server errors",
        "GET /conversations checks only the direction of `sort` and interpolates its field into ORDER BY: a sort on a field the list is not sorted by (`sort=name:asc`, `sort=foo:desc`) answers 500 `column \"foo\" does not exist` instead of a 4xx";
    RetryGuardDenyList => blind12 "retry-guard-deny-list", "Header-versioned API > POST /messages/{messageId}/retry",
        "POST /messages/{messageId}/retry guards with a deny-list (an undelivered message, or one failed with a permanent error, is refused) instead of requiring a failed message: a delivered or received message is re-attempted with 202 (status `sending`) and sent again, instead of refused";
    TaskCreateSingleLink => blind12 "task-create-single-link", "v1 API: tasks > POST /v1/tasks",
        "POST /v1/tasks stores the link in one polymorphic pair of columns (link_type, link_id), the conversation first, then the phone number, then the activity: a task created with phoneNumberId and conversationId keeps only the conversation and reads phoneNumberId null (with phoneNumberId and activityId, activityId null)";
    CallGetAccessByHandler => blind12 "call-get-access-by-handler", "Header-versioned API > GET /calls/{callId}",
        "GET /calls/{callId} authorizes with the row policy of the call's handler (`call.user_id = :caller`) instead of the users of its phone number: a user of a shared number gets 403 Not Phone Number User for the calls another user of the number handled (the primary key on ACc4ll0000000006 and ACc4ll0000000007 of the support line)";
    TaskDueDateLeapDayRefused => blind12 "task-due-date-leap-day-refused", "States and transitions > Task > due date",
        "change-due-date and POST /v1/tasks check dueDate's calendar date against a hand-written days-per-month table that gives February 28 days: a dueDate of 2028-02-29T09:00:00Z answers 400 `dueDate is not a valid date` instead of being set";
    TaskDueDateEpochI32 => blind12 "task-due-date-epoch-i32", "States and transitions > Task > due date",
        "due dates are stored as a signed 32-bit Unix timestamp: a dueDate after 2038-01-19T03:14:07Z wraps and reads back in the past (2040-01-01T00:00:00Z reads back 1903-11-25T17:31:44.000Z), set with change-due-date or on create";
    ContactCreatedByOverwritten => blind12 "contact-created-by-overwritten", "v1 API: contacts > POST /v1/contacts",
        "POST /v1/contacts sets createdByUserId in the model's pre-save hook from the request's user, overwriting the one the body sends: a contact created with createdByUserId of another user of the workspace is stored and answered with the caller's id";
    MessagesV1MediaUrlStrings => blind12 "messages-v1-media-url-strings", "Resources > Message > media",
        "GET /v1/messages serializes media with the v0 list's field, a list of URL strings (`[\"https://media.workspace.example/ac/photo-3.jpg\"]`), instead of {url, type} items (GET /messages and GET /messages/{messageId} keep the items)";
    MessagesV1BoundsSwapped => blind12 "messages-v1-bounds-swapped", "v1 API: messages > GET /v1/messages > created range",
        "GET /v1/messages passes its bounds through a date-range helper written for the app's date picker, which swaps them when createdAfter is later than createdBefore (or since): createdAfter=2026-02-01T00:00:00Z&createdBefore=2026-01-15T00:00:00Z lists the messages between the two instead of none";
    MessagesFiltersDefaultShared => blind12 "messages-filters-default-shared", "Header-versioned API > GET /messages",
        "GET /messages builds its query on a module-level default filter dict that the handler updates in place (a mutable default argument): once a request filtered on from, status, direction, phoneNumberId, userId or conversationId, every later GET /messages of the process keeps that filter unless it sends the same field, so the workspace's unfiltered history lists, say, only the failed messages";
    ContactsHvBodyLatin1 => blind12 "contacts-hv-body-latin1", "Endpoints > JSON bodies",
        "GET /contacts and GET /contacts/{contactId} encode their answers in ISO-8859-1 (the service's default charset) though labelled application/json: a contact holding a non-ASCII character (`José`) is answered with a byte that is not UTF-8 (a character beyond Latin-1 as `?`), so the body is no JSON text";
    SendToUnicodeDigits => blind12 "send-to-unicode-digits", "Conventions > phone numbers",
        "POST /v1/messages checks each `to` with a Unicode-aware `\\d` (the regex engine's default): a recipient whose digits after the first are another script's (`+1٤١٥٥٥٥٠١٩٩`, Arabic-Indic) is accepted, the message sent to it and shown with it in `to`, instead of answering 400";
    ContactsExternalIdsAnded => blind12 "contacts-external-ids-anded", "v1 API: contacts > GET /v1/contacts",
        "GET /v1/contacts chains one `external_id = ?` condition per externalIds value (and one `source = ?` per sources value) instead of one IN over them: externalIds=seed-001&externalIds=seed-002 lists nothing (a single value still works)";
    MessageContentLengthUtf16 => blind12 "message-content-length-utf16", "Endpoints > JSON bodies",
        "GET /messages/{messageId} sets Content-Length from the serialized body's string length in UTF-16 code units (a JavaScript `body.length`), not its bytes: a message whose text holds a non-ASCII character is answered with a body cut short by one byte or more per such character, which is no JSON";
    WebhookPatchLostUpdate => blind12 "webhook-patch-lost-update", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} reads the webhook, awaits a reachability check of its url (a 50 ms round trip) and writes the whole row back: two PATCHes sent together (one of label, one of status) both answer 200 with their change, but the webhook keeps only the one written last";
    SendDedupedByBody => blind12 "send-deduped-by-body", "v1 API: messages > POST /v1/messages",
        "POST /v1/messages drops a send whose from, to and text equal those of a send the caller made in the last 10 seconds (a double-click guard) and answers 202 with the earlier message: the same text sent twice to a number is sent once, and the conversation holds one message";
    WebhookPatchEventsNullEmptied => blind12 "webhook-patch-events-null-emptied", "Resources > Webhook > events",
        "PATCH /webhooks/{id} reads events with `body.get('events') or []` when the key is present: `events: null` is accepted and stores an empty events list (answered and read back `events: []`) instead of being refused, and the webhook receives nothing";
    HistoryResourceFilterPayloadLike => blind12 "history-resource-filter-payload-like", "Events > delivery records",
        "GET /webhooks/{id}/events filters with `payload LIKE '%' || :resourceId || '%'`: every delivery whose payload mentions the id matches, so resourceId=<a phone number id> lists the message deliveries of that number, whose resourceId is the message's";
    MessagesHvRequirePhoneNumber => blind12 "messages-hv-require-phone-number", "Header-versioned API > GET /messages",
        "GET /messages runs the query validator of the v1 list, which requires phoneNumberId: the workspace's history asked without a phone number answers 400 `query parameter phoneNumberId is required`, though the endpoint needs no phone number";
    ContactPatchOwnExternalId409 => blind12 "contact-patch-own-external-id-409", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "PATCH /v1/contacts/{id} checks that externalId is unique without excluding the contact updated: a PATCH that sends the contact's own externalId back (the whole contact, as the replace rule has clients send it) answers 409 Conflict";
    ReservedSourceSubstring => blind12 "reserved-source-substring", "v1 API: contacts > POST /v1/contacts",
        "POST /v1/contacts applies the reserved prefixes as substrings (`'csv' in source`): a source that holds `csv` or the brand name past its start (`my-csv-tool`, `hubspot-workspace-sync`) is refused with 400, though only sources starting with them are reserved";
    ManualRetryCountsAttempts => blind12 "manual-retry-counts-attempts", "Header-versioned API > webhook delivery history",
        "POST /webhooks/{id}/events/{eventId}/retry draws on the delivery's budget of automatic attempts (3 in all): a delivery whose automatic attempts all failed answers 409 `delivery has no attempts left` instead of being sent again, which is when a manual retry is wanted";
    TasksKeysetWholeSecond => blind12 "tasks-keyset-whole-second", "Pagination and collection conventions > pageToken",
        "GET /v1/tasks continues a walk after the createdAt of the page's last task in whole seconds (`WHERE created_at` after the cursor): the tasks created in the same second as that task (a burst of creates) are never listed on the pages that follow";
    ContactsFilterNullLiteral => blind12 "contacts-filter-null-literal", "Pagination and collection conventions > filters",
        "GET /contacts turns a filter value of the text `null` into IS NULL: source=null (and externalId=null) lists the contacts without a source, created in the UI, instead of those whose source is the string `null` (none)";
    CallsGteOffsetSignInverted => blind12 "calls-gte-offset-sign-inverted", "Header-versioned API > GET /calls",
        "GET /calls parses createdAt[gte] with a hand-written parser that reads the offset's sign the wrong way round: `2026-02-04T12:00:00-05:00` (17:00Z) is read as `+05:00`, 07:00Z, and lists the call created at 15:30Z that day (a bound in UTC is read right)";
    ConversationsFutureBoundRefused => blind12 "conversations-future-bound-refused", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations validates its created and updated bounds with the form validator of the app's report screen, which refuses a date-time in the future: createdAfter (or the updated-after or updated-before bound) later than now answers 400 `createdAfter must not be in the future` instead of listing nothing";
    // Blind set 13: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: epoch milliseconds forced into 32 bits, secrets keyed by endpoint
    // url, an access check on the handling user, a CHAR(n) column read back blank-padded, a body
    // written in the platform's default charset, a REPLACE INTO whose cascade empties a history,
    // a hand-written content negotiation, an unanchored pattern, a coercing deserializer, the
    // principal's own id taken for its user's, a gateway's query length limit, a normalizer that
    // turns invalid input valid, a route shadowed by a wildcard of the other generation, a page
    // object passed through whole, a dirty check blind to child rows, a service's error envelope
    // passed through, an ambiguous column of a join, a state machine missing a transition, a role
    // shortcut of the admin console, events routed by the creator's line, a keyset comparison not
    // flipped for a descending list, a conversation keyed by every party, a retry refused once
    // delivered, an update that re-issues a secret, claims minted before a state changed, a
    // relation expanded on read, a day-of-year date pattern, a serializer that assumes one
    // direction, a sentinel value that collides with a real one, an enum collapsed to two states,
    // an enum read by ordinal from a replica ordered otherwise, an enum written by its constant's
    // name, and bind parameters given in the wrong order.
    TaskDueDateMillisInt32 => blind13 "task-due-date-millis-int32", "States and transitions > Task > due date",
        "change-due-date and POST /v1/tasks coerce the due date's epoch milliseconds to a 32-bit integer before storing it (`Date.parse(body.dueDate) | 0`): every due date of this era wraps and reads back near the epoch (a dueDate of 2026-03-04T09:00:00Z reads back 1969-12-18T00:48:26.752Z)";
    WebhookSecretKeyedByUrl => blind13 "webhook-secret-keyed-by-url", "Authentication > 4",
        "signing secrets are kept in a table keyed by the endpoint url: creating or rotating a webhook replaces the secret of every other webhook sending to the same url, whose deliveries are then signed with a secret its own create (or rotate) answer never gave, so they fail verification";
    CallReadAccessByHandler => blind13 "call-read-access-by-handler", "Header-versioned API > GET /calls/{callId}",
        "GET /calls/{callId} checks access against the user who handled the call (`call.userId == caller`) instead of the users of the call's phone number: the primary key, a user of the support number, gets 403 Not Phone Number User for that number's calls the member handled (ACc4ll0000000006, ACc4ll0000000007), which GET /calls lists to it";
    ContactSourceCharPadded => blind13 "contact-source-char-padded", "Resources > Contact > source",
        "contacts keep source in a CHAR(72) column, read back blank-padded: every contact answer shows source padded with spaces to 72 characters (`public-api` followed by 62 spaces for a contact created through the API), while the sources filter, comparing with pad semantics, still matches";
    ContactGetLatin1Body => blind13 "contact-get-latin1-body", "Endpoints > JSON bodies",
        "GET /contacts/{contactId} writes its body in the platform's default charset, ISO-8859-1, labelled `application/json; charset=ISO-8859-1`: a contact holding a character beyond ASCII (`José`) is answered with bytes that are not UTF-8 (0xE9), and a character beyond Latin-1 (an emoji) becomes `?`";
    WebhookRotateReplaceCascadesHistory => blind13 "webhook-rotate-replace-cascades-history", "Header-versioned API > webhook delivery history",
        "POST /webhooks/{id}/rotate saves the webhook with `REPLACE INTO` (a delete then an insert), and the deliveries' ON DELETE CASCADE empties its delivery history: after a rotate GET /webhooks/{id}/events lists none of the deliveries made before, and their detail and retry answer 404";
    UserV1Accept406 => blind13 "user-v1-accept-406", "Endpoints > declared statuses",
        "GET /v1/users/{userId} negotiates its answer with a hand-written check that the Accept header names `application/json`: a request without Accept, or with `*/*` (most HTTP clients' default), answers 406 Not Acceptable, a status the route does not declare";
    ContactPhoneRegexUnanchored => blind13 "contact-phone-regex-unanchored", "Conventions > phone numbers",
        "POST /v1/contacts checks phone entry values with the E.164 pattern searched, not matched (`\\+[1-9]\\d{1,14}` without anchors): a value that merely contains an E.164 number (`+14155550100x`, `tel:+14155550100`, `+1415555010012345678`) is accepted and stored as sent";
    ContactStringsNumberCoerced => blind13 "contact-strings-number-coerced", "Resources > Contact",
        "POST and PATCH /v1/contacts bind externalId, source and sourceUrl with a coercing deserializer: a JSON number or boolean (`\"externalId\": 12345`) is accepted and stored as its text (`\"12345\"`) instead of answering 400 for a value that is not a string";
    ContactCreatedByApiKeyId => blind13 "contact-created-by-api-key-id", "Resources > Contact > createdByUserId",
        "POST /v1/contacts without createdByUserId defaults it to the authenticated principal's own id, which is the API key's (`AK` and 12 hex digits), not its user's: the contact shows a createdByUserId that does not match ^US(.*)$";
    MessagesV1QueryLength414 => blind13 "messages-v1-query-length-414", "Limits > participants",
        "GET /v1/messages sits behind a gateway rule that refuses query strings longer than 256 bytes with 414 URI Too Long: a query with the 10 participants the limit allows (percent-encoded, 28 bytes each) is refused, so the stated maximum cannot be asked for";
    CallsV1ParticipantPlusAdded => blind13 "calls-v1-participant-plus-added", "v1 API: calls and recordings > GET /v1/calls > participants",
        "GET /v1/calls normalizes each participant by prefixing `+` where it lacks one before the E.164 check: a participant that is no E.164 number (`14155550199`, `4155550199`) is accepted and answered 200 instead of 400";
    PhoneNumberUsersRouteShadowed => blind13 "phone-number-users-route-shadowed", "Versioning > 6",
        "GET /phone-numbers/{phoneNumberId}/users is shadowed by the v1 number route (`/phone-numbers/{id}*`), which answers the phone number with its members embedded (`{data: {id, phoneNumber, ..., users: [...]}}`) instead of the list of users the latest version moved to that endpoint";
    TasksListPageNested => blind13 "tasks-list-page-nested", "What the service does > list envelope",
        "GET /v1/tasks wraps the task service's page object in the envelope as it is: `{data: {items: [...], totalItems, nextPageToken}}`, so the list answer carries neither totalItems nor nextPageToken beside data, and data is no array";
    ContactUpdateChildrenNotDirty => blind13 "contact-update-children-not-dirty", "Events > event table",
        "PATCH /v1/contacts/{id} publishes contact.updated from the model's dirty check, which compares the contact row's own columns only: an update that changes only emails, phone numbers or custom fields (rows of their own tables) fires no contact.updated";
    UsersNotFoundNestedError => blind13 "users-404-nested-error", "Errors > header-versioned error body",
        "GET /users/{userId} and GET /users/{userId}/phone-numbers of a user that does not exist pass the users service's error envelope through: 404 with `{\"error\": {message, docs, title}}`, so the body has no message, docs or title of its own";
    MessagesSortUpdatedAt500 => blind13 "messages-sort-updated-at-500", "Errors > no server errors",
        "GET /messages with sort=updatedAt (either direction) orders by a bare `updated_at` in a query joined with the conversations table, which has a column of that name: the database refuses the ambiguous column and the request answers 500";
    TaskDeleteCompletedRefused => blind13 "task-delete-completed-refused", "States and transitions > Task > delete",
        "DELETE /v1/tasks/{taskId} runs the task state machine, whose delete transition starts from open only: a completed task answers 400 `only open tasks can be deleted` and stays, instead of being deleted";
    UserPhoneNumbersAdminAll => blind13 "user-phone-numbers-admin-all", "Header-versioned API > GET /users/{userId}/phone-numbers",
        "GET /users/{userId}/phone-numbers gives a user whose role is admin or owner every number of the workspace (the admin console's query, reused): the seeded admin USm3n4p5q6r7, assigned only the toll-free number, is answered the main line and the support number too";
    TaskEventsRoutedByCreatorLine => blind13 "task-events-routed-by-creator-line", "Events > subscriptions",
        "task events are routed with the phone number of the task's creator (the first workspace number that user is on) instead of the task's own phoneNumberId: a webhook scoped to the support number gets no event of a task linked to it, and one scoped to the creator's main line gets every task's (tasks linked to no number included)";
    MessagesCursorAscendingCompare => blind13 "messages-cursor-ascending-compare", "Pagination and collection conventions > pageToken",
        "GET /messages continues a walk with the comparison of an ascending keyset on the id (ids after the cursor, `id` greater than it), not flipped for its newest-first order: a following page starts again among the newest messages, so a walk repeats messages and never reaches the older ones";
    SendConversationKeyedWithSender => blind13 "send-conversation-keyed-with-sender", "v1 API: messages > GET /v1/messages > participants",
        "POST /v1/messages looks up (and opens) the conversation by every party of the message, the sending number included: a send to +14155550101 from the main line goes to a conversation of [+14155550101, +14155550123], so GET /v1/messages with that phoneNumberId and participants=+14155550101 never lists the messages sent through the API";
    ManualRetryFailedOnly => blind13 "manual-retry-failed-only", "Header-versioned API > webhook delivery history",
        "POST /webhooks/{id}/events/{eventId}/retry refuses a delivery whose last attempt succeeded with 409 `only failed deliveries can be retried`: a delivery its receiver answered 2xx (a test delivery included) is not sent again";
    WebhookUpdateIssuesNewSecret => blind13 "webhook-update-issues-new-secret", "Authentication > 4",
        "PATCH and PUT /webhooks/{id} save the webhook through the create serializer, which issues a new signing secret that no answer shows: every delivery after an update is signed with a secret the client was never given";
    SendSubscriptionFromKeyClaims => blind13 "send-subscription-from-key-claims", "Errors > Rules > 7",
        "POST /v1/messages reads the workspace's subscription state from the claims of the API key, minted while the subscription was active: the key of a workspace whose subscription expired sends (202) instead of answering 402 Subscription Expired";
    TaskGetConversationExpanded => blind13 "task-get-conversation-expanded", "v1 API: tasks > GET /v1/tasks/{taskId}",
        "GET /v1/tasks/{taskId} serializes the conversation link as the related object (`\"conversationId\": {\"id\": \"CN...\"}`), the detail serializer expanding relations: the seeded task linked to CNt4sKc0nv01 shows an object where the Task has a string";
    CallV1GetDayOfYear => blind13 "call-v1-get-day-of-year", "Conventions > timestamps",
        "GET /v1/calls/{callId} formats its timestamps with the pattern `yyyy-MM-DD` (day of the year, not of the month): the call of 2026-02-02T10:00:00Z shows createdAt `2026-02-33T10:00:00.000Z`, which is no date-time (January dates read right)";
    MessageGetIncomingAsOutgoing => blind13 "message-get-incoming-as-outgoing", "Resources > Message",
        "GET /messages/{messageId} serializes every message as an outgoing one: an incoming message shows its line's number as `from` and the other parties as `to`, so the sender reads as a recipient and the workspace number as the sender";
    WebhookPatchWildcardUnchanged => blind13 "webhook-patch-wildcard-unchanged", "Header-versioned API > webhook management",
        "PATCH /webhooks/{id} takes resourceIds [\"*\"] for the partial update's `unchanged` marker: a PATCH that widens a webhook scoped to phone number ids to the wildcard answers 200 but keeps its ids, and the webhook still gets the events of those numbers only";
    A2pCappedAsUnapproved => blind13 "a2p-capped-as-unapproved", "Limits > A2P daily cap",
        "POST /v1/messages maps every A2P state other than approved to the registration refusal (`if a2p != APPROVED`): a number that reached its daily A2P 10DLC cap answers 400 0206400 A2P Registration Not Approved instead of 403 0204403";
    MessagesListStatusOrdinalDrift => blind13 "messages-list-status-ordinal-drift", "Pagination and collection conventions > filters",
        "GET /messages reads status through the reporting replica's enum column, whose ordinal order differs from the writer's: failed messages show `undelivered` and undelivered ones `failed`, so status=failed lists messages that show status undelivered (GET /messages/{messageId} shows the right status)";
    WebhooksListEventsEnumNames => blind13 "webhooks-list-events-enum-names", "Resources > Webhook > events",
        "GET /webhooks serializes each webhook's events with the enum constants' names instead of their values (`.name()` where `@JsonValue` was meant): message.received reads `MESSAGE_RECEIVED`, call.recording.completed `CALL_RECORDING_COMPLETED`, none of them an allowed value (the single GET and the create and update answers keep the values)";
    ContactPatchEntryBindsSwapped => blind13 "contact-patch-entry-binds-swapped", "Resources > Contact > defaultFields",
        "PATCH /v1/contacts/{id} writes email and phone entries with an upsert whose bind parameters for name and value come in the wrong order: every entry a PATCH sends comes back with its name as value and its value as name (a phone entry `{name: mobile, value: +14155550100}` reads value `mobile`, no E.164 number; without a name the value reads empty)";

    // Blind set 14: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a Unicode normalizer on write, an hour-of-day pattern counting 1 to
    // 24, a length rule checked before a split, a `return=minimal` create, a 204 for an empty
    // result, a column default computed once, PHP's sparse arrays, a switch without an arm, a
    // scope helper reading the principal, a report screen's default range, a NaN token, a SIP
    // URI for a number, a trailing-zero trimmer, an authorization memoized per caller, a stored
    // offset for an instant, a Bearer scheme assumed, a route retired into a redirect, a byte
    // order mark, a Go struct without json tags, a calling code for a country, a HAL next link
    // for a token, an ISO week-based year, RFC 7807 problem bodies, a UI workflow guard, a
    // gateway's rate limit for a quota, a v0 publisher's flat envelope, a quota keyed by the
    // principal, a digest in hex, a column without an insert default, a latin1 connection into a
    // UTF-8 column, an index holding one subscriber per key, a natural key for a surrogate one,
    // and a middleware that trusts a continuation token.
    ContactExternalIdNfcComposed => blind14 "contact-external-id-nfc-composed", "Resources > Contact > externalId",
        "POST and PATCH /v1/contacts run externalId through the ORM field's Unicode normalizer (NFC) before storing it: an externalId sent decomposed (`cafe\\u0301-17`, an e and a combining acute accent) is answered and stored composed (`caf\\u00e9-17`), and externalIds=<the id as sent> lists nothing";
    ContactTimestampsHour24 => blind14 "contact-timestamps-hour-24", "Conventions > timestamps",
        "the contact serializer formats createdAt and updatedAt with the pattern `yyyy-MM-dd'T'kk:mm:ss.SSS'Z'`, whose `kk` counts the hours 1 to 24: an instant in the hour after midnight UTC shows hour 24 (the seeded contact seed-025, created 2026-01-06T00:25:00Z, reads `2026-01-06T24:25:00.000Z`), which is no date-time";
    ContactsInSetLengthBeforeSplit => blind14 "contacts-in-set-length-before-split", "Pagination and collection conventions > in operator",
        "GET /contacts checks the 1-75 length rule of externalId and source on the `[in]` value before splitting it: a set whose comma-joined text is longer than 75 characters (externalId[in] with ten seeded ids, 89 characters) answers 400 though each of its values is 8 characters long";
    ContactCreateLocationOnly => blind14 "contact-create-location-only", "v1 API: contacts > POST /v1/contacts",
        "POST /v1/contacts with an externalId goes through the import path, which answers as the REST framework's `Prefer: return=minimal` default does: 201 with a Location header naming the contact and an empty body instead of {data: Contact} (a create without externalId still answers the contact)";
    MessagesV1Empty204 => blind14 "messages-v1-empty-204", "Pagination and collection conventions > list shape",
        "GET /v1/messages answers 204 No Content, without a body, when no message matches (participants without messages in the range, a createdAfter later than every message) instead of 200 {data: [], totalItems, nextPageToken: null}";
    SendCreatedAtDefaultFrozen => blind14 "send-created-at-default-frozen", "v1 API: messages > GET /v1/messages > created range",
        "the send path's message model declares `created_at = Column(default=datetime.utcnow())`, a value computed once, when the first POST /v1/messages of the instance loads the model: every later message sent through the API shows (and is filtered by) that first send's createdAt, so createdAfter=<an instant between two sends> leaves the second send out";
    MessageIncomingToSparseObject => blind14 "message-incoming-to-sparse-object", "Resources > Message",
        "GET /messages and GET /messages/{messageId} build an incoming message's `to` with `array_filter` over the conversation's parties (the line first), which keeps the keys, and `json_encode` writes a list with a hole as an object: an incoming group message whose sender is not the last party (the seeded ones from +14155550101) carries `to` as `{\"0\": \"+14155550123\", \"2\": \"+14155550102\"}` instead of an array";
    RetryUndeliveredUnhandled500 => blind14 "retry-undelivered-unhandled-500", "Errors > no server errors",
        "POST /messages/{messageId}/retry switches on the message's status without an arm for `undelivered` (the status was added after the switch was written), and the fall-through raises: retrying an undelivered message answers 500 instead of a 4xx refusal";
    ConversationsUserIdReadsCaller => blind14 "conversations-user-id-reads-caller", "v1 API: conversations > GET /v1/conversations > userId",
        "GET /v1/conversations scopes userId with the access helper that reads the authenticated user (`request.user`) instead of the parameter: userId=<another user> lists the conversations accessible to the caller, not to that user (the primary key asking for the member's gets the main line's conversations too)";
    ConversationsCreatedAfterDefaultWindow => blind14 "conversations-created-after-default-window", "v1 API: conversations > GET /v1/conversations > ranges",
        "GET /v1/conversations fills a missing createdBefore with createdAfter + 30 days (the report screen's default range): createdAfter alone leaves out every conversation created more than 30 days after the bound (createdAfter=2026-01-01T00:00:00Z lists the seeded January conversations but none a send opened since)";
    CallsV1UnansweredDurationNan => blind14 "calls-v1-unanswered-duration-nan", "Endpoints > JSON bodies",
        "GET /v1/calls and GET /v1/calls/{callId} recompute duration as talk seconds over answered legs in floating point: a call never answered (missed, voicemail, forwarded) gets 0/0, which the encoder writes as the bare token `NaN` (Python's `json.dumps`, `allow_nan=True` by default), so the body is no JSON";
    CallForwardedToSipUri => blind14 "call-forwarded-to-sip-uri", "Conventions > phone numbers",
        "call answers (GET /calls, GET /calls/{callId}, GET /v1/calls, GET /v1/calls/{callId}) show forwardedTo as the carrier's SIP URI read from the forwarded leg (`sip:+14155550166@pstn.carrier.example`) instead of the E.164 number";
    CallTimestampsTrailingZerosTrimmed => blind14 "call-timestamps-trailing-zeros-trimmed", "Conventions > timestamps",
        "call answers trim trailing zeros off the fraction of their timestamps with `.replace(/0+Z$/, 'Z')`: an instant on a whole second (every seeded call's createdAt, answeredAt, completedAt) reads `2026-02-02T10:00:00.Z`, a fraction without digits, which is no date-time";
    CallV1AccessMemoizedPerCaller => blind14 "call-v1-access-memoized-per-caller", "Authentication > 3",
        "GET /v1/calls/{callId} memoizes its number-scoped check in a process-wide map keyed by the caller alone: once a caller read a call it may see, every call is served to it, so the member key that read a support-line call then gets the main line's calls with 200 instead of 403 Not Phone Number User";
    RecordingsHvStartTimeOffset => blind14 "recordings-hv-start-time-offset", "Resources > Call recording",
        "GET /calls/{callId}/recordings answers each segment's startTime as the segments service stores it, the offset into the call in whole seconds (`5`, `180`, `450`), instead of a date-time";
    RecordingsV1BearerSchemeSplit => blind14 "recordings-v1-bearer-scheme-split", "Authentication > 1",
        "GET /v1/call-recordings/{callId} is authenticated again by the recordings service, which reads the key as the second word of Authorization (`header.split(' ')[1]`, a `Bearer` scheme assumed): the API key sent as the header's whole value has no second word, and every request answers 401 Unauthorized";
    UserV1RedirectToLatest => blind14 "user-v1-redirect-to-latest", "v1 API: users > GET /v1/users/{userId}",
        "GET /v1/users/{userId} was retired into a 308 Permanent Redirect to /users/{userId}: a client that follows it reaches the header-versioned route without Service-Api-Version and gets 400, one that does not gets a 308 without the user";
    OrganizationBodyBom => blind14 "organization-body-bom", "Endpoints > JSON bodies",
        "GET /organization writes its body with a UTF-8 encoder that emits a byte order mark (EF BB BF) first, which a JSON text must not carry: strict JSON parsers refuse the answer";
    PhoneNumberGetUntaggedStruct => blind14 "phone-number-get-untagged-struct", "What the service does > data envelope",
        "GET /phone-numbers/{phoneNumberId} marshals its Go response struct, whose envelope field has no json tag: the number comes under `Data` (`{\"Data\": {...}}`), not `data`";
    AvailableCountryByCallingCode => blind14 "available-country-by-calling-code", "Header-versioned API > GET /phone-numbers/available",
        "GET /phone-numbers/available turns country into its calling code and matches the numbers' prefix: country=CA, which shares +1 with the US, lists the US numbers (shown with country US) instead of none";
    PhoneNumbersNextLink => blind14 "phone-numbers-next-link", "Pagination and collection conventions > pageToken",
        "GET /phone-numbers writes into nextPageToken the whole next link (`/phone-numbers?maxResults=1&pageToken=...`, a HAL `next` href) while a request reads pageToken as a token: sending it back answers 400, so a walk stops after its first page";
    TaskDueDateWeekYear => blind14 "task-due-date-week-year", "States and transitions > Task > due date",
        "task answers format dueDate with the ISO week-based year (`%G`, Java's `YYYY`) where the calendar year was meant: a due date in a week that straddles the new year reads a year off (2030-12-31T09:00:00Z reads back 2031-12-31T09:00:00.000Z, 2027-01-01T09:00:00Z reads back 2026-01-01T09:00:00.000Z)";
    TasksErrorsProblemDetails => blind14 "tasks-errors-problem-details", "Errors > v1 error body",
        "errors of the /v1/tasks routes are written by an RFC 7807 Problem Details handler: `application/problem+json` bodies {type, title, status, detail, instance, code}, without `message` and `docs`";
    TaskCompleteRequiresAssignee => blind14 "task-complete-requires-assignee", "States and transitions > Task > complete",
        "POST /v1/tasks/{taskId}/complete runs the app's workflow guard that a task be assigned before it is done: an open task without assignees (every seeded one, every new one) answers 400 `assign the task before completing it` and stays open";
    TaskLimitRateLimited429 => blind14 "task-limit-rate-limited-429", "Errors > Rules > 6",
        "the open-task limit is enforced by the gateway's quota plugin: POST /v1/tasks at the limit answers 429 Too Many Requests with Retry-After: 60 (a rate limit a client waits out and retries) instead of 402 Open Tasks Limit Reached";
    TaskEventsEnvelopeFlattened => blind14 "task-events-envelope-flattened", "Events > envelope",
        "task events are published by the task service's v0 publisher, which puts resource, context and links at the top of the payload: task.* deliveries carry no `data` object, so data.resource, data.context and data.links are missing";
    WebhookLimitPerKey => blind14 "webhook-limit-per-key", "Limits > webhooks per workspace",
        "POST /webhooks counts toward the limit of 50 only the webhooks created by the caller's user (a quota keyed by the principal; the seeded ones count to the primary user): a workspace whose primary key holds 50 webhooks takes 50 more through its other key";
    TestDeliverySignatureHex => blind14 "test-delivery-signature-hex", "Authentication > 4",
        "POST /webhooks/{id}/events/test signs with the console's helper, which writes the HMAC-SHA256 digest in hex (`v1,3f9a...`) where Standard Webhooks puts base64: no verifier accepts a test delivery (event deliveries are signed right)";
    WebhookUpdatedAtNullUntilUpdate => blind14 "webhook-updated-at-null-until-update", "Resources > Webhook",
        "webhooks created through POST /webhooks keep updated_at NULL until their first update (the column has no insert default): the create answer and every read show `updatedAt: null`, a required date-time, until a PATCH or PUT";
    WebhookLabelMojibake => blind14 "webhook-label-mojibake", "Header-versioned API > POST /webhooks",
        "POST /webhooks (PATCH, PUT) write label over a connection whose charset is latin1 into a UTF-8 column: every non-ASCII character is stored double-encoded, so the label `Jos\\u00e9` reads back `Jos\\u00c3\\u00a9` in the answer and every read";
    WebhookDispatchFirstSubscriptionOnly => blind14 "webhook-dispatch-first-subscription-only", "Events > subscriptions",
        "the dispatcher looks subscribers up in an index keyed by (event, phone number) that holds one webhook per key, the first created: when several webhooks are subscribed to an event of a number, only the oldest gets it (a webhook created for the main line's message or call events hears nothing, the seeded 1001 and 1002 taking them)";
    DeliveryResourceIdExternalId => blind14 "delivery-resource-id-external-id", "Events > delivery records",
        "delivery records of contact events take resourceId from the contact's natural key, its externalId, instead of its id: a contact.updated delivery shows resourceId `seed-007` (null for a contact without externalId), and resourceId=<the contact's id> finds none of them";
    VersionCheckSkippedWithPageToken => blind14 "version-check-skipped-with-page-token", "Versioning > 1",
        "the version middleware lets a request that carries a pageToken through, the continuation taken to keep the version of the walk it continues: a header-versioned list (GET /contacts, /messages, /calls, /conversations, ...) asked with a pageToken and without Service-Api-Version, or with any value, is served instead of refused";

    // Blind set 15: written from API.md, READINGS and the reference alone, without the suite's
    // checks or cases (nor what they assert); each is a defect of a kind real backend teams ship,
    // spread over every area: a column filled from the principal, a handler routed under the
    // internal service's verb, `OffsetDateTime.toString()`, a read replica behind a create, a
    // COALESCE guard copied onto an update, optimistic concurrency made mandatory, an HTTP-date
    // helper, a second statement after the delete, a header constant spelled like its environment
    // variable, an UPDATE without its INSERT, an in-flight lock outliving its work, a line-ending
    // normalizer, Python's `fromisoformat`, a status mapped to a derived condition, a gateway that
    // lowercases paths, a relation dereferenced unguarded, an event hooked to one branch of a
    // lifecycle, a deprecated parameter dropped from the binding, an attribute holding the related
    // row's value, `str()` where `json.dumps()` was meant, an ENUM column older than the enum, an
    // immutable row rotated by copy, an answer built before the insert, a query reused with its
    // extra condition, string concatenation for an addition, an outbox relay woken by the next
    // insert, a BOOLEAN column for a string field, bounds compared as text, a subscription query
    // without the status, a blank check on word characters, an unconditional slice, a gateway
    // cache that does not vary on the key, a unique filter routed to the detail serializer, and
    // an RPC envelope passed through.
    WebhookOrgIdFromCaller => blind15 "webhook-org-id-from-caller", "Resources > Webhook",
        "POST /webhooks fills org_id from the authenticated principal (`org_id = request.user.id`, copied from the created_by line above it): the create answer and every read of a webhook created through the API show orgId `USa1B2c3D4e5`, a user id, instead of the workspace's `OR...` id (the seeded webhooks keep theirs)";
    TaskPutRoutedAsPatch => blind15 "task-put-routed-as-patch", "v1 API: tasks > PUT /v1/tasks/{taskId}",
        "the task router registers the update handler under PATCH, the internal service's verb, instead of PUT: PUT /v1/tasks/{taskId} answers 405 Method Not Allowed with `Allow: GET, PATCH, DELETE` and the title and description stay as they were, while a PATCH with the same body updates them";
    ConversationTimestampsSecondsOmitted => blind15 "conversation-timestamps-seconds-omitted", "Conventions > timestamps",
        "conversations are serialized with Java's `OffsetDateTime.toString()`, which leaves the seconds out when they and the fraction are zero: every seeded conversation (its times on whole hours) shows createdAt, updatedAt and lastActivityAt like `2026-01-10T09:00Z`, which is no RFC 3339 date-time (GET /v1/conversations, GET /conversations and the mark-as-* answers)";
    WebhookGetReplicaLag => blind15 "webhook-get-replica-lag", "Header-versioned API > GET /webhooks/{webhookId}",
        "GET /webhooks/{webhookId} reads from a replica that applies the primary's writes 2 seconds late: a webhook just created through POST /webhooks answers 404 Not Found for its first 2 seconds, though the create answered 201 with its id (the list and the other webhook routes read the primary)";
    TaskLinkKeepsExistingConversation => blind15 "task-link-keeps-existing-conversation", "States and transitions > Task > link conversation",
        "POST /v1/tasks/{taskId}/link-conversation writes `conversation_id = COALESCE(conversation_id, ?)`, the guard of the create path copied: a task already linked to a conversation answers 200 with a new revision (and fires task.linked) but keeps its old conversation, so the seeded task linked to CNt4sKc0nv01, or a task created with a conversationId, never takes the one linked";
    TaskDeleteRequiresIfMatch => blind15 "task-delete-requires-if-match", "v1 API: tasks > errors",
        "DELETE /v1/tasks/{taskId} enforces optimistic concurrency with a mandatory If-Match header holding the task's revision: a delete without it answers 428 Precondition Required (one with another revision 412 Precondition Failed), statuses the task routes do not declare, and the task is not deleted";
    MessageGetTimestampsHttpDate => blind15 "message-get-timestamps-http-date", "Conventions > timestamps",
        "GET /messages/{messageId} formats createdAt and updatedAt with the view's date helper, JavaScript's `toUTCString()`: a message reads `Sat, 10 Jan 2026 09:00:00 GMT`, the HTTP-date format, instead of an ISO 8601 date-time in UTC (the lists keep the ISO form)";
    WebhookDeletePurge500 => blind15 "webhook-delete-purge-500", "Errors > no server errors",
        "DELETE /webhooks/{id} deletes the webhook, then purges its delivery history in a second statement that fails on the history table's foreign key, and the driver's error reaches the client: a webhook that has deliveries (one test delivery is enough) answers 500 Unknown Error, though it is gone (GET answers 404 afterwards)";
    WebhookTimestampHeaderUnderscore => blind15 "webhook-timestamp-header-underscore", "Authentication > 4",
        "deliveries carry their timestamp under the header `webhook_timestamp` (the constant spelled like its environment variable) instead of `webhook-timestamp`: a Standard Webhooks verifier finds no timestamp and refuses every delivery, test deliveries and retries included";
    ContactPatchCustomFieldsUpdatesOnly => blind15 "contact-patch-custom-fields-updates-only", "v1 API: contacts > PATCH /v1/contacts/{id}",
        "PATCH /v1/contacts/{id} writes custom field items with an UPDATE of the contact's existing rows by key and no INSERT: an item whose key the contact did not have (a `notes` value on a contact without one) is dropped, and the contact reads back without it though the full set was sent";
    RetryCooldown409 => blind15 "retry-cooldown-409", "States and transitions > Message > retry failed",
        "POST /messages/{messageId}/retry takes a 30-second in-flight lock on the message and answers a retry while it is held with 409 `a retry of this message is already in progress`, though the re-attempt ended (failed again) at once: a failed message retried a second time within 30 seconds is refused instead of re-attempted";
    SendTextCrlfNormalized => blind15 "send-text-crlf-normalized", "v1 API: messages > POST /v1/messages",
        "POST /v1/messages normalizes line endings to CRLF for the carrier's SMPP gateway before it stores the text: a text sent with a line feed (`Line one\\nLine two`) is answered, stored and listed with a carriage return before it, so the message's text is not the one sent";
    CallsV1ZuluBoundRefused => blind15 "calls-v1-zulu-bound-refused", "v1 API: calls and recordings > GET /v1/calls",
        "GET /v1/calls parses createdAfter, createdBefore and since with Python 3.10's `datetime.fromisoformat`, which does not take the `Z` designator: a bound in UTC written with `Z` (`2026-02-03T00:00:00Z`, the form of every timestamp the API answers) is refused with 400, while the same instant with `+00:00` is accepted";
    CallsStatusCompletedMatchesEnded => blind15 "calls-status-completed-matches-ended", "Header-versioned API > GET /calls",
        "GET /calls maps status=completed to the condition `completed_at IS NOT NULL` (the calls that ended), the other statuses being compared as they are: status=completed also lists the missed call ACc4ll0000000002, and leaves out the completed calls that have no completedAt (the forwarded, AI-handled and support-line ones)";
    UserV1PathLowercased => blind15 "user-v1-path-lowercased", "v1 API: users > GET /v1/users/{userId}",
        "the v1 gateway's URL canonicalization lowercases the path of /v1/users/{userId} before it routes it: every user id, whose letters are of mixed case (`USa1B2c3D4e5`), is looked up as `usa1b2c3d4e5`, and GET /v1/users/{userId} answers 404 Not Found for every user";
    TaskGetWithoutNumber500 => blind15 "task-get-without-number-500", "Errors > no server errors",
        "GET /v1/tasks/{taskId} serializes the detail with the name of the task's phone number (`task.phone_number.name`) without a guard: a task linked to a conversation or an activity only answers 500 `AttributeError: 'NoneType' object has no attribute 'name'` (the list, and the tasks that have a phoneNumberId, answer)";
    CallCompletedNotFiredUnanswered => blind15 "call-completed-not-fired-unanswered", "Events > event table",
        "call.completed is published by the hang-up handler of an answered leg only: a call that ends unanswered (missed into voicemail) or forwarded through a phone menu fires ringing and its other events but never call.completed, so a webhook subscribed to it (the seeded 1002) hears of answered calls alone";
    ConversationsDeprecatedPhoneNumberIgnored => blind15 "conversations-deprecated-phone-number-ignored", "Versioning > 5",
        "GET /v1/conversations dropped the deprecated phoneNumber from its query binding when phoneNumbers was added: phoneNumber=<a workspace number, id or E.164> alone no longer filters, and every conversation of the organization is listed instead of that number's";
    ConversationsHvPhoneNumberIdE164 => blind15 "conversations-hv-phone-number-id-e164", "Resources > Conversation",
        "GET /conversations serializes phoneNumberId from the model's `phone_number` attribute, which holds the related line's E.164 number: every conversation of the header-versioned list shows phoneNumberId `+14155550123` (or the sales line's number) instead of its phone number id `PN...` (the v1 list and the mark-as-* answers keep the id)";
    PhoneNumberUsersPythonRepr => blind15 "phone-number-users-python-repr", "Endpoints > JSON bodies",
        "GET /phone-numbers/{phoneNumberId}/users writes its body with `str(payload)` where `json.dumps(payload)` was meant: the answer, labelled application/json, is a Python literal (`{'data': [{'id': 'USa1B2c3D4e5', ...}]}`, single quotes, `None` for null), which no JSON parser reads";
    WebhookEventsEnumColumn500 => blind15 "webhook-events-enum-column-500", "Resources > Webhook > events",
        "a webhook's events are stored in a MySQL ENUM column declared before the later events were added: a create, PATCH or PUT that names message.failed, message.undelivered, call.answered, call.forwarded, call.missed, call.voicemail.completed or call.menu.selected answers 500 `Data truncated for column 'events'` instead of storing them";
    WebhookRotateReissuesId => blind15 "webhook-rotate-reissues-id", "Header-versioned API > POST /webhooks/{id}/rotate",
        "POST /webhooks/{id}/rotate treats subscriptions as immutable rows and rotates by inserting a copy under a new id with the new secret, then deleting the original: the answer names another webhook id, and GET /webhooks/{id} of the rotated webhook (and its delivery history) answer 404 afterwards";
    TaskCreateAnswersUnsavedId => blind15 "task-create-answers-unsaved-id", "v1 API: tasks > POST /v1/tasks",
        "POST /v1/tasks answers the task object built before the insert, with the id the application generated, while the row takes the id of the database's own default: the taskId of the 201 answer is not the task's, so GET /v1/tasks/{taskId} of it (and every operation on it) answers 404, and the list shows the task under another id";
    TaskGetOpenOnly => blind15 "task-get-open-only", "v1 API: tasks > GET /v1/tasks/{taskId}",
        "GET /v1/tasks/{taskId} loads the task through the open-tasks query of the limit check, `completed = false` included: a completed task (the seeded one, or one just completed) answers 404 Not Found, though it is live and listed";
    CallsOffsetStringConcat => blind15 "calls-offset-string-concat", "Pagination and collection conventions > last page",
        "GET /calls computes the next offset as `offset + maxResults` where the offset read back from a token is a string: on a page asked with a token the addition concatenates (`'2' + 2` is `'22'`), the next offset lands past the end and the page answers nextPageToken null, so a walk in pages of 2 ends after its second page without the older calls";
    DeliveriesRelayedOnNextEvent => blind15 "deliveries-relayed-on-next-event", "Events > deliveries",
        "event deliveries go through an outbox whose relay is woken by the insert of the next event instead of its own (the notify is sent before the commit is visible): each event's deliveries leave only when a later event is recorded, so the last event before a quiet spell (a contact update, a task change, a message sent) reaches no receiver until something else happens";
    CallAiHandledBoolean => blind15 "call-ai-handled-boolean", "Resources > Call",
        "call answers read aiHandled from the `ai_handled` BOOLEAN column a migration introduced: every call shows aiHandled `true` or `false` (the AI-handled call ACc4ll0000000005 true, the others false) instead of a string saying how AI handled it, or null";
    MessagesV1MaxResultsComparedAsText => blind15 "messages-v1-max-results-compared-as-text", "Limits > maxResults",
        "GET /v1/messages checks maxResults against its bounds as text (`'1' <= value <= '100'`, the query value compared before it is parsed): every value but `1`, `10` and `100` sorts outside the bounds (`'5'` and `'50'` after `'100'`), so maxResults 2 to 9 and 11 to 99 answer 400 as out of range";
    WebhookDisabledStillDelivered => blind15 "webhook-disabled-still-delivered", "Resources > Webhook > status",
        "the dispatcher's subscription query lacks the `status = 'enabled'` condition: a webhook created or updated with status `disabled` answers and reads disabled, but every event it is subscribed to is still delivered to its url";
    TextBlankCheckWordCharacters => blind15 "text-blank-check-word-characters", "Errors > Rules > 4",
        "POST /v1/messages decides that a text is blank with `re.search(r'\\w', text) is None`: a text that holds no letter, digit or underscore (an emoji alone, `?!`, `:-)`) is refused with 400 as whitespace-only, though only a text of whitespace is to be refused";
    SourceUrlTrailingSlashSliced => blind15 "source-url-trailing-slash-sliced", "Resources > Contact > sourceUrl",
        "POST and PATCH /v1/contacts strip the trailing slash the CRM exports always had with `source_url[:-1]`, whether or not it is there: every sourceUrl is stored and answered without its last character (`https://crm.example.test/c/42` reads `https://crm.example.test/c/4`), a link to another record";
    UnauthorizedAnswerCached => blind15 "unauthorized-answer-cached", "Authentication > 3",
        "the gateway's response cache keeps 401 answers of GET requests for 5 seconds, keyed by path and query without the Authorization header: a request with a valid key to a URL just asked without a key (or with a wrong one) gets the cached 401 Unauthorized instead of its answer";
    PhoneNumbersFilterAnswersObject => blind15 "phone-numbers-filter-answers-object", "Pagination and collection conventions > list shape",
        "GET /phone-numbers routes a phoneNumber filter, a unique column, to the detail serializer: the answer is `{data: {...}}` with the matching number as an object (`data: null` when none matches), without totalItems and nextPageToken, instead of the list body";
    TaskTransitionsResultEnvelope => blind15 "task-transitions-result-envelope", "What the service does > data envelope",
        "the task transitions (complete, reopen, assign, unassign, change-due-date, remove-due-date, link-conversation, unlink-conversation) answer the task service's RPC envelope as it is, `{result: {taskId, revision}}`, without the `data` wrapper (create, get, list and PUT still answer with it)";
}
}

impl Fault {
    /// The demanding variant whose family of readings (what the suite must send) this fault
    /// tests, for the faults of issue 15; `needs` says whether the fault shows only with that
    /// variant on (the profile list at the end of its range, the renamed field, the trimming).
    pub fn family(self) -> Option<(super::variants::Variant, bool)> {
        use super::variants::Variant as V;
        Some(match self {
            Fault::ReservedSourceAcceptedWithFirstName => (V::RequireDefaultFields, false),
            Fault::CallsMaxResultsUncheckedWithParticipants => (V::RequireListFilters, false),
            Fault::PhoneNumbersUncheckedWhenKnown => (V::UnknownResources404, false),
            Fault::LegacyWebhookKindUnauthenticated => (V::RouteBeforeAuth, false),
            Fault::EmptyTextAccepted => (V::TrimWhitespace, true),
            Fault::BodylessPost415 => (V::JsonBody415, false),
            Fault::GroupToTruncatedAt9 => (V::GroupRecipients10, true),
            Fault::RenamedTextDropped => (V::MessageTextContent, true),
            // Caught only by a status value the target showed, sent as written (READINGS 6.12).
            Fault::CallsStatusFilterIgnored => (V::UnstatedRefused, false),
            _ => return None,
        })
    }

    /// Variants under which the fault cannot show, because they use a freedom of the contract
    /// that hides what it breaks: the unassigned user is seen only through `assignedTo`, which
    /// READINGS 1.3 lets a target leave out or give as null; a malformed task id never reaches a
    /// handler of a target that routes only the id shapes it issues. The self-test runs such a
    /// fault with every other variant on.
    pub fn hidden_by(self) -> &'static [super::variants::Variant] {
        use super::variants::Variant as V;
        match self {
            Fault::TaskUnassignKeepsUser => &[V::OptionalFieldsAbsent, V::OptionalFieldsNull],
            // unproven clauses, group 1 (issue 18): the field the fault reshapes is optional.
            Fault::CreatedByUserIdUnprefixed | Fault::ConversationParticipantsJoined => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            Fault::ContactEmailsFirstOnly | Fault::UserEmailArray => &[V::OptionalFieldsAbsent],
            // The filter's effect shows only through each conversation's phoneNumberId, which a
            // target may leave out or give as null (READINGS 1.3).
            Fault::ConversationsInFilterIgnored => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            // A target that routes only the id shapes it issues answers a malformed task id 404
            // before any handler reads it (READINGS 6.8): the handler's 422 cannot show.
            Fault::TaskMalformedId422 => &[V::IssuedIdsOnly],
            // contract-strict checks every `to` item against E.164 before the handler reads the
            // body: the handler that checks only the first cannot show.
            Fault::ToE164FirstOnly => &[V::ContractStrict, V::UnstatedRefused],
            // A target that ignores the version header takes a versioning cell's retry of the
            // profile's one failed message; one that re-attempts it (retry-delivers) leaves no
            // failed message for the trials that retry it next, which are ignored with that
            // reason: the run is incomplete, though the fault is caught.
            Fault::VersionHeaderIgnored => &[V::RetryDelivers],
            // Blind faults. The user removed instead is seen only through `assignedTo`, and a
            // contact's externalId (the letter case the filter must match) and its phone entries
            // only through fields a target may leave out or give as null (READINGS 1.3).
            Fault::TaskUnassignRemovesLast | Fault::ContactsExternalIdsCaseInsensitive => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            Fault::ContactPhoneStoredWithoutPlus => &[V::OptionalFieldsAbsent],
            // A message's `from` may be left out or given as null (READINGS 1.3): the id the
            // fault shows there cannot show.
            Fault::MessageFromPhoneNumberId => &[V::OptionalFieldsAbsent, V::OptionalFieldsNull],
            // The closing message shows in the conversation's messages only after the inbox
            // cycle has read them, when messages are listed late (READINGS 7.1).
            Fault::MarkDoneSendsMessage => &[V::MessagesListedLate],
            // With whole-second timestamps the bound the suite sends (a conversation's own
            // createdAt or updatedAt) has no fraction for the fault to refuse.
            Fault::ConversationsFractionalTimeRefused => &[V::TimestampsWholeSeconds],
            // The variant answers 404 for two of the three numbers the workspace lists: one
            // number is left, and a filter of several values cannot be tried.
            Fault::ConversationsPhoneNumbersFirstOnly => &[V::UnknownResources404],
            // Blind set 3. A call's duration, a media item's type, a message's userId and a
            // task's assignedTo are fields a target may leave out or give as null (READINGS 1.3):
            // what the fault does to them cannot show.
            Fault::CallDurationString
            | Fault::MessageMediaTypeExtension
            | Fault::MessagesUserIdKeepsIncoming
            | Fault::TaskAssignRetryDuplicates => &[V::OptionalFieldsAbsent, V::OptionalFieldsNull],
            // contract-strict refuses a maxResults outside the stated range before the handler
            // binds it: the overflow never reaches the query.
            Fault::CallsMaxResultsOverflow500 => &[V::ContractStrict],
            // Blind set 4. A task's assignedTo is a field a target may leave out or give as
            // null (READINGS 1.3); v1-error-minimal leaves the errors array out; with whole-second
            // timestamps the bound a client copies from an answer has no fraction to drop.
            Fault::TaskAssigneesDefaultShared => &[V::OptionalFieldsAbsent, V::OptionalFieldsNull],
            Fault::V1ErrorItemSchemaString => &[V::V1ErrorMinimal],
            Fault::MessagesTimeBoundWholeSecond => &[V::TimestampsWholeSeconds],
            // Blind set 5. contract-strict refuses an invalid link or filter item before the handler
            // reads it; with own-workspace-keys the profile names no number of another workspace.
            Fault::TaskLinkConversationPrefixUnchecked
            | Fault::ConversationsEmptyPhoneNumbersDropped => &[V::ContractStrict],
            Fault::SendFromOtherWorkspaceNumber => &[V::OwnWorkspaceKeys],
            // Blind set 6. v1-error-minimal leaves trace out; contract-strict refuses a
            // maxResults outside the range, and every refused conversation list query, before the
            // handler reads it; with own-workspace-keys the profile's other key is the run's own.
            Fault::V1ErrorTraceNumber => &[V::V1ErrorMinimal],
            Fault::ConversationsMaxResultsByteWrap | Fault::ConversationsBadRequestCode1001 => {
                &[V::ContractStrict]
            }
            Fault::ConversationsV1OtherWorkspaceNumbers => &[V::OwnWorkspaceKeys],
            // Blind set 7. A message's direction is a field a target may leave out or give as
            // null (READINGS 1.3); v1-error-minimal leaves the errors array out; contract-strict
            // refuses a maxResults outside the range before the handler reads it.
            Fault::MessagesDirectionFilterInverted => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            Fault::V1ErrorItemPathArray => &[V::V1ErrorMinimal],
            Fault::ContactsMaxResultsZeroDefault => &[V::ContractStrict],
            // Blind set 8. contract-strict refuses a phone value that is not E.164, and a bound
            // that is no date-time, before the handler reads them; trim-whitespace empties a text
            // of newlines and tabs, which the space-only check refuses as blank; a conversation's
            // unset times are fields a target may leave out or give as null (READINGS 1.3);
            // v1-error-minimal leaves description out.
            Fault::PatchPhoneE164Unchecked | Fault::CallsV1DateOnlyBoundAccepted => {
                &[V::ContractStrict]
            }
            Fault::TextBlankCheckSpacesOnly => &[V::TrimWhitespace],
            Fault::ConversationUnsetTimesEmptyString => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            Fault::V1ErrorDescriptionArray => &[V::V1ErrorMinimal],
            // The route table names no tollFree parameter of the available-number search:
            // unknown-fields-400 and contract-strict refuse it before the handler calls out.
            Fault::AvailableTollFreeUpstreamHangs => &[V::UnknownFields400, V::ContractStrict],
            // Blind set 9. contract-strict refuses a custom field item without key, more than 100
            // phoneNumbers and a second participant before the handler reads them (the last with
            // the Too Many Participants row itself); a call's direction, a task's phoneNumberId
            // and isDeleted, and the policies inside a number's restrictions are fields a target
            // may leave out or give as null (READINGS 1.3).
            Fault::CustomFieldItemWithoutKey500
            | Fault::ConversationsPhoneNumbersLimitAfterDedupe
            | Fault::CallsParticipantsMaxItemsGeneric400 => &[V::ContractStrict],
            Fault::CallsDirectionDroppedWithStatus
            | Fault::TaskUnlinkClearsPhoneNumber
            | Fault::TaskIsDeletedFromCompleted => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            Fault::RestrictionsMessagingDropped => &[V::OptionalFieldsAbsent],
            // Blind set 10. contract-strict refuses a maxResults outside the stated range, or one
            // that is no integer, before the handler reads it; unknown-resources-404 answers 404
            // for a number of phoneNumbers the workspace lacks before the filter runs; a
            // recording's duration is a field a target may leave out or give as null (READINGS
            // 1.3).
            Fault::CallsMaxResultsClamped | Fault::ContactsMaxResultsParseInt => {
                &[V::ContractStrict]
            }
            Fault::ConversationsPhoneNumbersMatchParticipants => &[V::UnknownResources404],
            Fault::RecordingDurationIso8601 => &[V::OptionalFieldsAbsent, V::OptionalFieldsNull],
            // Blind set 11. external-id-conflict-409 refuses a create whose externalId another
            // contact has (409) before the upsert runs.
            Fault::ContactCreateUpsertsExternalId => &[V::ExternalIdConflict409],
            // Blind set 12. A contact's createdByUserId and a task's phoneNumberId and activityId
            // are fields a target may leave out or give as null (READINGS 1.3); contract-strict
            // may refuse a recipient that is no E.164 number, a sort the route table does not
            // name and an events list given as null before the handler reads them.
            Fault::ContactCreatedByOverwritten | Fault::TaskCreateSingleLink => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            Fault::SendToUnicodeDigits
            | Fault::ConversationsSortFieldInterpolated500
            | Fault::WebhookPatchEventsNullEmptied => &[V::ContractStrict],
            // Blind set 13. contract-strict refuses a phone value or a participant that is no
            // E.164 number, and a body field of another type than stated, before the handler
            // reads them; a contact's createdByUserId and a message's `from` are fields a target
            // may leave out or give as null (READINGS 1.3).
            Fault::ContactPhoneRegexUnanchored
            | Fault::ContactStringsNumberCoerced
            | Fault::CallsV1ParticipantPlusAdded => &[V::ContractStrict],
            Fault::ContactCreatedByApiKeyId | Fault::MessageGetIncomingAsOutgoing => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            // Blind set 14. A call's forwardedTo is a field a target may leave out or give as null
            // (READINGS 1.3); with own-workspace-keys the primary workspace's subscription has
            // expired, and every retry is refused with 402 before the status is looked at.
            Fault::CallForwardedToSipUri => &[V::OptionalFieldsAbsent, V::OptionalFieldsNull],
            Fault::RetryUndeliveredUnhandled500 => &[V::OwnWorkspaceKeys],
            // Blind set 15. A conversation's phoneNumberId, a call's aiHandled and a contact's
            // sourceUrl are fields a target may leave out or give as null (READINGS 1.3).
            Fault::ConversationsHvPhoneNumberIdE164
            | Fault::CallAiHandledBoolean
            | Fault::SourceUrlTrailingSlashSliced => {
                &[V::OptionalFieldsAbsent, V::OptionalFieldsNull]
            }
            _ => &[],
        }
    }

    /// The variants a self-test turns on with this fault, so that it can show at all.
    pub fn needs(self) -> Option<super::variants::Variant> {
        self.family().filter(|(_, needs)| *needs).map(|(v, _)| v)
    }

    /// Looks a fault up by its name, in the catalog or among the pending blind faults.
    pub fn from_name(name: &str) -> Option<Fault> {
        CATALOG
            .iter()
            .chain(PENDING)
            .find(|f| f.name == name)
            .map(|f| f.fault)
    }

    /// The catalog entry of this fault.
    pub fn info(self) -> &'static FaultInfo {
        CATALOG
            .iter()
            .chain(PENDING)
            .find(|f| f.fault == self)
            .expect("every fault is in the catalog or pending")
    }
}

/// The set of faults switched on in one reference instance.
#[derive(Debug, Clone, Default)]
pub struct FaultSet(BTreeSet<Fault>);

impl FaultSet {
    pub fn new(faults: impl IntoIterator<Item = Fault>) -> Self {
        FaultSet(faults.into_iter().collect())
    }

    /// Whether the fault is on.
    pub fn has(&self, fault: Fault) -> bool {
        self.0.contains(&fault)
    }
}
