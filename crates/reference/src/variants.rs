//! Variants: the open choices of the reference. Each is a conforming alternative to the default in
//! a place the contract leaves open (READINGS); the suite's own tests require zero failures with
//! every variant on, alone and all together, and every fault still caught with all of them on.
//!
//! This file is the catalog only. Most variants reshape answers on their way out (and page tokens
//! on their way in) in one middleware (`reshape.rs`), so every area gets them without code of its
//! own; the rest are one `if` at the place the choice is made.

use std::collections::BTreeSet;

/// One entry of the variant catalog.
#[derive(Debug, Clone, Copy)]
pub struct VariantInfo {
    pub variant: Variant,
    /// Name used with `serve --variant NAME`.
    pub name: &'static str,
    /// The section of READINGS.md whose open place the variant exercises.
    pub reading: &'static str,
    pub description: &'static str,
}

macro_rules! variants {
    (
        target { $($v:ident => $name:literal, $reading:literal, $description:literal;)* }
        profile { $($pv:ident => $pname:literal, $preading:literal, $pdescription:literal;)* }
    ) => {
        /// A conforming alternative the reference can take where the contract is open.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum Variant { $($v,)* $($pv,)* }

        /// Every variant of what a target may answer or demand, in catalog order.
        pub const VARIANTS: &[VariantInfo] = &[
            $(VariantInfo { variant: Variant::$v, name: $name, reading: $reading, description: $description },)*
        ];

        /// The profile variants: each takes fixtures of the profile at the weakest reading their
        /// documentation allows, with the state of the reference that makes that reading true
        /// (`fixtures::profile_for` writes the profile).
        pub const PROFILE_VARIANTS: &[VariantInfo] = &[
            $(VariantInfo { variant: Variant::$pv, name: $pname, reading: $preading, description: $pdescription },)*
        ];
    };
}

variants! {
target {
    OptionalFieldsAbsent => "optional-fields-absent", "1.3",
        "answers leave out every field the contract neither requires nor states a rule about";
    OptionalFieldsNull => "optional-fields-null", "1.3",
        "answers give null for every field the contract neither requires nor states a rule about";
    NullsAbsent => "nulls-absent", "1.3",
        "answers leave out fields whose value is null (required ones stay)";
    ExtraFields => "extra-fields", "1.4",
        "every object of every answer carries an undocumented extra field";
    V1ErrorMinimal => "v1-error-minimal", "3.1",
        "v1 error bodies carry no trace, description or errors";
    V1ErrorFull => "v1-error-full", "3.1",
        "v1 error bodies carry description and an errors array";
    LatestErrorExtra => "latest-error-extra", "3.3",
        "header-versioned error bodies outside webhooks carry code, status, trace and more";
    TimestampsOffset => "timestamps-offset", "5.2",
        "timestamps end in +00:00 instead of Z";
    TimestampsWholeSeconds => "timestamps-whole-seconds", "5.2",
        "timestamps have no fractional seconds";
    TimestampsMicros => "timestamps-micros", "5.2",
        "timestamps have six fractional digits";
    JsonCharset => "json-charset", "2.2",
        "JSON answers are labelled application/json; charset=utf-8";
    TotalItemsOff => "total-items-off", "4.1",
        "totalItems is the true count plus 7";
    TotalItemsZero => "total-items-zero", "4.1",
        "totalItems is always 0";
    PageTokenOpaque => "page-token-opaque", "4.2",
        "page tokens are long opaque strings of another shape";
    VersionError406 => "version-error-406", "8.1",
        "a missing or unsupported Service-Api-Version answers 406 instead of 400";
    UnstatedLimit422 => "unstated-limit-422", "2.4",
        "query limits of endpoints that list no errors answer 422 instead of 400";
    UnlistedCodes => "unlisted-codes", "3.4",
        "400 conditions the code table does not list get another code and title";
    ContactIdsUuid => "contact-ids-uuid", "5.1",
        "new contacts get UUID-shaped ids";
    EntryIdsNumeric => "entry-ids-numeric", "5.1",
        "email, phone and custom field entries get numeric ids";
    ContactsNewestFirst => "contacts-newest-first", "4.5",
        "contact lists (whose order is not stated) come newest first";
    LatestDefaultPage3 => "latest-default-page-3", "4.4",
        "GET /contacts without maxResults answers pages of 3 (the default is not stated)";
    PatchClearsOmittedFields => "patch-clears-omitted-fields", "2.6",
        "PATCH also clears names, company and role omitted from the body";
    CustomFieldIdsWhereStated => "custom-field-ids-where-stated", "1.3",
        "custom field item ids appear only where stated: on the create answer and in lists";
    SourceAlwaysPublicApi => "source-always-public-api", "1.3",
        "contacts created through the API get source public-api even when a source is sent";
    UnknownCustomFieldKeysIgnored => "unknown-custom-field-keys-ignored", "3.4",
        "custom field items with a key the workspace does not know are dropped, not refused";
    ReservedSourceCaseSensitive => "reserved-source-case-sensitive", "6.5",
        "reserved source names are compared case-sensitively";
    WebhookDeliveryDelay => "webhook-delivery-delay", "7.1",
        "webhook deliveries leave 400 ms after the event, automatic retries 480 ms after a failed answer";
    WebhookDelete200 => "webhook-delete-200", "2.2",
        "DELETE /webhooks/{id} answers 200 with the deleted webhook instead of 204";
    WebhookCreateMinimal => "webhook-create-minimal", "2.3",
        "POST /webhooks and rotate answer only `{data: {id, secret}}` instead of the webhook with its secret";
    WebhookSecretSigningKey => "webhook-secret-signing-key", "6.2",
        "the signing secret comes in `signingKey` instead of `secret`";
    MessagesListedLate => "messages-listed-late", "7.1",
        "a message sent through the API shows in GET /messages and GET /v1/messages only 400 ms after the send (queued sending)";
    RetryDelivers => "retry-delivers", "7.1",
        "a retried failed message is re-attempted and delivered: it reads `delivered` afterwards, so it is failed no more and a second retry is refused (the default leaves it failed)";
    InFlightReversed => "in-flight-reversed", "7.2",
        "of two changes in flight at once, the one sent later takes effect first: each change waits a short while for another to arrive, which then runs before it (READINGS 7.2)";
    // --- What a target may demand of a request (READINGS 6) ---
    MessageTextContent => "message-text-content", "6.1",
        "POST /v1/messages reads the text from `content` and refuses `text`; its profile (`--profile-out`) maps `message.text` to `content` in `requestFields`";
    RequireDefaultFields => "require-default-fields", "6.3",
        "POST /v1/contacts refuses (400) a body without defaultFields holding a firstName";
    RequireListFilters => "require-list-filters", "6.3",
        "GET /v1/messages and GET /v1/calls refuse (400) a query without phoneNumberId and participants";
    UnknownResources404 => "unknown-resources-404", "6.6",
        "GET /v1/conversations answers 404 for a phone number in phoneNumbers that the workspace lacks";
    RouteBeforeAuth => "route-before-auth", "6.8",
        "routing before authentication: 404 for unserved paths and path values outside a closed set, 405 for unserved methods, before the key is checked";
    TrimWhitespace => "trim-whitespace", "6.7",
        "surrounding whitespace of query values and body strings is trimmed before validation";
    UnknownFields400 => "unknown-fields-400", "6.3",
        "400 for query parameters and body fields (at any depth) the route table does not name; the names the profile gives are named too (renamed request fields, the unshown filters of GET /v1/conversations)";
    JsonBody415 => "json-body-415", "2.2",
        "415 for a request body without a JSON content type";
    GroupRecipients10 => "group-recipients-10", "6.5",
        "the profile lists 10 group recipients, the end of the stated range (the default gives 2, the other end)";
    ExternalIdConflict409 => "external-id-conflict-409", "6.6",
        "POST and PATCH /v1/contacts refuse (409 Conflict, 0800409) an externalId another contact of the workspace already has";
    ContractStrict => "contract-strict", "6.3",
        "every constraint the route table states, on every request: path parameters against their patterns (the stated id prefixes; 400 before the key is checked), query and body values against their types, ranges, lengths, patterns, enums, formats and item counts, a link (x-link) against URI syntax (READINGS 6.10), maxResults inside the stated range or else 1-50 (READINGS 4.4), the purpose fields of READINGS 6.3 (x-purpose; maxResults where no default page size is stated), and no query parameter or body field the table does not name";
    IssuedIdsOnly => "issued-ids-only", "6.8",
        "only the id shapes the reference issues are routed: a contact id other than 24 hex digits (or a UUID, as contact-ids-uuid issues them), a task id other than TK and 16 hex digits, or an id without the stated prefix of its kind answers 404 before the key is checked (READINGS 6.6)";
    UnstatedRefused => "unstated-values-refused", "6.12",
        "400 for every value the contract does not state as accepted and the reference never showed (READINGS 6.12): everything contract-strict refuses, a query value of a domain the contract does not give (another letter case included) or an id that no answer of the instance carried, an empty partial update, and more than one of the alternatives x-purpose lists";
}
profile {
    OwnWorkspaceKeys => "own-workspace-keys", "6.11",
        "the run's own workspace has international messaging disabled and its subscription expired (a send or a retry answers 402, reads are served), and the profile gives the run's own key as `international_disabled_api_key` and `subscription_expired_api_key`, and the run's number as their numbers";
    SharedNumbers => "shared-numbers", "6.11",
        "one number serves three fixtures: the other party of the seeded calls is `message_participant`, and the profile gives that number as `call_participant` and `sandbox_recipient_number` too";
    FewestItems => "fewest-items", "6.5",
        "the profile gives each list fixture at the fewest items its documentation allows: `sandbox_failed_message_id` as a list of one, `sandbox_group_recipient_numbers`, `group_participants` and `group_superset_participants` of two and three";
    NoFixtures => "no-fixtures", "6.5",
        "the profile gives the key and no fixture at all: every trial that needs one is ignored with its reason";
}
}

impl Variant {
    /// Of the second family: strictness in what the reference accepts (READINGS 6), rather than
    /// a choice in what it answers. The family starts at `message-text-content` in the catalog.
    pub fn demanding(self) -> bool {
        self >= Variant::MessageTextContent && !self.profile()
    }

    /// Of the profile family: a profile that takes fixtures at their weakest reading, with the
    /// reference state that makes it true. Never among the target variants of [`VariantSet::all`].
    pub fn profile(self) -> bool {
        self >= Variant::OwnWorkspaceKeys
    }

    /// The catalog entry of this variant.
    pub fn info(self) -> &'static VariantInfo {
        VARIANTS
            .iter()
            .chain(PROFILE_VARIANTS)
            .find(|v| v.variant == self)
            .expect("every variant is in the catalog")
    }

    /// Looks a variant up by its catalog name.
    pub fn from_name(name: &str) -> Option<Variant> {
        VARIANTS
            .iter()
            .chain(PROFILE_VARIANTS)
            .find(|v| v.name == name)
            .map(|v| v.variant)
    }
}

/// The set of variants switched on in one reference instance.
#[derive(Debug, Clone, Default)]
pub struct VariantSet(BTreeSet<Variant>);

impl VariantSet {
    pub fn new(variants: impl IntoIterator<Item = Variant>) -> Self {
        VariantSet(variants.into_iter().collect())
    }

    /// Every variant of what a target may answer or demand (the profile variants are run one by
    /// one, each with its own profile).
    pub fn all() -> Self {
        VariantSet::new(VARIANTS.iter().map(|v| v.variant))
    }

    /// This set without `v`.
    pub fn without(&self, v: Variant) -> Self {
        let mut out = self.clone();
        out.0.remove(&v);
        out
    }

    /// This set with `v` on as well.
    pub fn with(&self, v: Variant) -> Self {
        let mut out = self.clone();
        out.0.insert(v);
        out
    }

    pub fn has(&self, v: Variant) -> bool {
        self.0.contains(&v)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}
