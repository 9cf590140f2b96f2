//! Contacts of both generations: v1 create, update, get and list; header-versioned get and list.

use axum::Router;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::{Extension, Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::{get, patch};
use base64::Engine;
use serde_json::{Map, Value};
use time::OffsetDateTime;

use super::respond::{allow_only, answer};
use crate::app::App;
use crate::auth::Caller;
use crate::contact_input::{
    ContactInput, CustomFieldInput, EntryInput, InputError, ReservedNames, Rules, parse_contact,
};
use crate::errors::ApiError;
use crate::faults::{Fault, FaultSet};
use crate::fixtures;
use crate::input::{self, Query};
use crate::model::Contact;
use crate::pagination::{self, Page, PageQueryError};
use crate::reply;
use crate::switches::Switches;
use crate::variants::Variant;

/// Paths that pick the generation and the v1 area of an error body.
const V1_PATH: &str = "/v1/contacts";
const HV_PATH: &str = "/contacts";

const EXTERNAL_ID_MAX: usize = 75;
const SOURCE_MAX_CREATE: usize = 72;
const SOURCE_MAX_UPDATE: usize = 75;
const FILTER_VALUE_MAX: usize = 75;
const SOURCE_URL_MAX: usize = 200;
/// The values an `[in]` set keeps under fault contacts-in-set-capped-at-10.
const IN_VALUES_CAP: usize = 10;

pub(super) fn v1_routes() -> Router<App> {
    Router::new()
        .route(
            V1_PATH,
            allow_only(get(list_v1).post(create_v1), "GET, POST"),
        )
        .route(
            "/v1/contacts/{id}",
            // The v1 API has no GET of one contact: only PATCH is served here.
            allow_only(patch(patch_v1), "PATCH"),
        )
}

pub(super) fn header_versioned_routes() -> Router<App> {
    Router::new()
        .route(HV_PATH, allow_only(get(list_hv), "GET"))
        .route("/contacts/{contactId}", allow_only(get(get_hv), "GET"))
}

/// Whether a path belongs to the contact endpoints of either generation.
pub(super) fn is_contact_path(path: &str) -> bool {
    [V1_PATH, HV_PATH].iter().any(|p| {
        path == *p
            || path
                .strip_prefix(p)
                .is_some_and(|rest| rest.starts_with('/'))
    })
}

async fn create_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    body: Body,
) -> Response {
    let body = input::json_object(body, V1_PATH)
        .await
        .map_err(|e| unshaped(&app, e))
        .map(|body| coerced(&app.switches().faults, body));
    answer(&app, body.and_then(|body| create(&app, &caller, &body)))
}

/// Fault contact-strings-number-coerced: the deserializer coerces a number or a boolean sent for
/// a string field into its text.
fn coerced(faults: &FaultSet, mut body: Map<String, Value>) -> Map<String, Value> {
    if !faults.has(Fault::ContactStringsNumberCoerced) {
        return body;
    }
    for key in ["externalId", "source", "sourceUrl"] {
        if let Some(v) = body.get_mut(key) {
            if v.is_number() || v.is_boolean() {
                *v = Value::String(v.to_string());
            }
        }
    }
    body
}

/// Fault v1-malformed-json-error-unshaped: a body that is no JSON gets the framework's 400, in
/// the header-versioned shape.
fn unshaped(app: &App, e: ApiError) -> ApiError {
    if app
        .switches()
        .faults
        .has(Fault::V1MalformedJsonErrorUnshaped)
        && e.message().starts_with("request body is not valid JSON")
    {
        ApiError::bad_request(HV_PATH, e.message())
    } else {
        e
    }
}

async fn patch_v1(
    State(app): State<App>,
    id: Result<Path<String>, PathRejection>,
    body: Body,
) -> Response {
    let body = input::json_object(body, V1_PATH)
        .await
        .map_err(|e| unshaped(&app, e))
        .map(|body| coerced(&app.switches().faults, body));
    let result = input::path_param(id, V1_PATH).and_then(|id| update(&app, &id, body));
    answer(&app, result)
}

async fn get_hv(State(app): State<App>, id: Result<Path<String>, PathRejection>) -> Response {
    let faults = &app.switches().faults;
    let result = input::path_param(id, HV_PATH).and_then(|id| {
        let mut store = app.store();
        // Fault contact-get-cache-stale: a read-through cache that updates never invalidate.
        if faults.has(Fault::ContactGetCacheStale) {
            if let Some(cached) = store.contact_read_cache.get(&id) {
                return Ok(reply::data(
                    StatusCode::OK,
                    contact_answer(&app, rendered(faults, cached, store.custom_field_defs())),
                ));
            }
            if let Some(c) = store.contact(&id).cloned() {
                store.contact_read_cache.insert(id.clone(), c);
            }
        }
        let found = store.contact(&id).map(|c| {
            // Off by one: the contact stored before the asked one (the first stays itself).
            let all = store.contacts();
            match all.iter().position(|x| x.id == c.id) {
                Some(i) if i > 0 && faults.has(Fault::ContactGetNeighbour) => &all[i - 1],
                _ => c,
            }
        });
        // Fault contact-get-ignores-soft-delete: the read by primary key misses the deleted flag.
        let found = found.or_else(|| {
            faults
                .has(Fault::ContactGetIgnoresSoftDelete)
                .then(|| store.deleted_contacts.iter().find(|c| c.id == id))
                .flatten()
        });
        let Some(contact) = found else {
            if faults.has(Fault::ContactIdNotFoundAs500) {
                return Err(ApiError::for_path(
                    HV_PATH,
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "an unexpected error occurred while loading the contact",
                ));
            }
            return Err(missing_contact(faults, HV_PATH, &id));
        };
        Ok(reply::data(
            StatusCode::OK,
            contact_answer(&app, rendered(faults, contact, store.custom_field_defs())),
        ))
    });
    // Fault contact-get-missing-200: the error handler writes the body but not the status.
    if let Err(e) = &result {
        if e.status() == StatusCode::NOT_FOUND && faults.has(Fault::ContactGetMissing200) {
            let mut response = e.clone().render(app.switches());
            *response.status_mut() = StatusCode::OK;
            return response;
        }
    }
    let response = answer(&app, result);
    if faults.has(Fault::ContactGetLatin1Body) && response.status() == StatusCode::OK {
        return latin1_body(response).await;
    }
    response
}

/// Fault contact-get-latin1-body: the body written in the platform's default charset,
/// ISO-8859-1 (a character beyond it becomes `?`), and labelled so.
async fn latin1_body(response: Response) -> Response {
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 16 << 20).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let encoded: Vec<u8> = String::from_utf8_lossy(&bytes)
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    parts.headers.insert(
        axum::http::header::CONTENT_TYPE,
        axum::http::HeaderValue::from_static("application/json; charset=ISO-8859-1"),
    );
    parts.headers.remove(axum::http::header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(encoded))
}

async fn list_v1(
    State(app): State<App>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Response {
    let mut query = Query::parse(raw.as_deref());
    // Fault contacts-v1-query-latin1-decoded: the container decodes the query as ISO-8859-1.
    if app
        .switches()
        .faults
        .has(Fault::ContactsV1QueryLatin1Decoded)
    {
        query = query.latin1();
    }
    let result = list_v1_page(&app, &caller, &query).map_err(|e| unstated_limit(&app, e));
    answer(&app, result)
}

async fn list_hv(State(app): State<App>, RawQuery(raw): RawQuery) -> Response {
    let result =
        list_hv_page(&app, &Query::parse(raw.as_deref())).map_err(|e| unstated_limit(&app, e));
    answer(&app, result)
}

/// The lists' query errors: the spec lists no errors for these endpoints, so the status of a
/// broken limit is open (READINGS 2.4); variant `unstated-limit-422` answers 422.
fn unstated_limit(app: &App, error: ApiError) -> ApiError {
    if app.switches().variant(Variant::UnstatedLimit422)
        && error.status() == StatusCode::BAD_REQUEST
    {
        error.with_status(StatusCode::UNPROCESSABLE_ENTITY)
    } else {
        error
    }
}

/// Custom field item ids are stated on the create answer and in lists only; variant
/// `custom-field-ids-where-stated` leaves them out elsewhere.
fn contact_answer(app: &App, mut json: Value) -> Value {
    if app.switches().variant(Variant::CustomFieldIdsWhereStated) {
        if let Some(Value::Array(items)) = json.get_mut("customFields") {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                item.remove("id");
            }
        }
    }
    json
}

/// A contact as answered. Fault contacts-source-default-rendered: the serializer renders the
/// create default of source (`source or 'public-api'`), which the column never stored.
fn rendered(faults: &FaultSet, contact: &Contact, defs: &[crate::model::CustomFieldDef]) -> Value {
    let mut json = contact.to_json(defs);
    if faults.has(Fault::ContactsSourceDefaultRendered) && json["source"].is_null() {
        json["source"] = Value::String("public-api".to_string());
    }
    // Fault contact-source-char-padded: a CHAR(72) column reads back blank-padded.
    if faults.has(Fault::ContactSourceCharPadded) {
        if let Some(source) = json["source"].as_str() {
            json["source"] = Value::String(format!("{source:<SOURCE_MAX_CREATE$}"));
        }
    }
    // Fault contact-timestamps-hour-24: the pattern's `kk` counts the hours 1 to 24.
    if faults.has(Fault::ContactTimestampsHour24) {
        for field in ["createdAt", "updatedAt"] {
            if let Some(shown) = json[field].as_str().and_then(crate::quirks::hour_one_to_24) {
                json[field] = Value::String(shown);
            }
        }
    }
    json
}

/// Fault reserved-source-prefix-rule-dropped: a source the prefix rule alone reserves (not one
/// of the reserved words themselves) passes the check, which is a set lookup.
fn reserved_by_prefix_only(reserved: &ReservedNames, body: &Map<String, Value>) -> bool {
    let Some(source) = body.get("source").and_then(Value::as_str) else {
        return false;
    };
    let source = source.to_lowercase();
    let words = [
        "device".to_string(),
        "csv".to_string(),
        "other".to_string(),
        reserved.brand.to_lowercase(),
        reserved.automation_integration.to_lowercase(),
        reserved.contacts_sync_integration.to_lowercase(),
    ];
    reserved.reserves(&source, false) && !words.contains(&source)
}

fn create(app: &App, caller: &Caller, body: &Map<String, Value>) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let reserved = fixtures::reserved_names();
    let first_name = body
        .get("defaultFields")
        .and_then(|d| d.get("firstName"))
        .is_some_and(|f| f.as_str().is_some_and(|f| !f.is_empty()));
    let rules = Rules {
        reserved: if faults.has(Fault::ReservedSourceAccepted)
            || (first_name && faults.has(Fault::ReservedSourceAcceptedWithFirstName))
            || (faults.has(Fault::ReservedSourcePrefixRuleDropped)
                && reserved_by_prefix_only(&reserved, body))
        {
            None
        } else {
            Some(&reserved)
        },
        ..limits(app.switches(), true)
    };
    external_id_bytes(faults, body)?;
    source_utf16_units(faults, body)?;
    reserved_substring(faults, &reserved, body)?;
    custom_field_key_indexed(faults, body)?;
    let rules = Rules {
        phone_unchecked: phone_pattern_searched(faults, body)?,
        ..rules
    };
    let mut store = app.store();
    let mut input = parse_contact(body, &rules, store.custom_field_defs())
        .map_err(|e| input_error(faults, e))?;
    external_id_column(faults, &mut input);
    external_id_folded(faults, &mut input);
    external_id_composed(faults, &mut input);
    // Fault contact-emoji-500: the store's text columns take 3-byte UTF-8 only.
    let names = [
        &input.company,
        &input.first_name,
        &input.last_name,
        &input.role,
    ];
    if faults.has(Fault::ContactEmoji500)
        && names
            .iter()
            .filter_map(|n| n.as_deref())
            .any(|n| n.chars().any(|c| c > '\u{FFFF}'))
    {
        return Err(ApiError::for_path(
            V1_PATH,
            StatusCode::INTERNAL_SERVER_ERROR,
            "Incorrect string value for a default field column",
        ));
    }
    external_id_free(app, &store, input.external_id.as_deref(), None)?;
    source_url_column(faults, &input)?;
    source_url_sliced(faults, &mut input);
    let source = match &input.source {
        Some(_) if app.switches().variant(Variant::SourceAlwaysPublicApi) => {
            Some("public-api".to_string())
        }
        Some(source) => Some(source.clone()),
        None if faults.has(Fault::SourceNotPublicApi) => None,
        // Fault contacts-source-default-rendered: the default is the serializer's, not stored.
        None if faults.has(Fault::ContactsSourceDefaultRendered) => None,
        None => Some("public-api".to_string()),
    };
    // Fault contact-created-by-overwritten: the pre-save hook sets the request's user.
    let created_by = input
        .created_by_user_id
        .clone()
        .filter(|_| !faults.has(Fault::ContactCreatedByOverwritten))
        .unwrap_or_else(|| principal_id(app, caller));
    if faults.has(Fault::ContactEmailsFirstOnly) {
        input.emails.truncate(1);
    }
    if faults.has(Fault::ContactPhoneStoredWithoutPlus) {
        for entry in &mut input.phone_numbers {
            entry.value = entry.value.trim_start_matches('+').to_string();
        }
    }
    let shares_default = input.custom_fields.is_empty();
    // Fault contact-create-upserts-external-id: `INSERT ... ON DUPLICATE KEY UPDATE` on the
    // unique externalId overwrites the contact that has it.
    let contact = match upsert_target(faults, &store, &input) {
        Some(id) => {
            input.source = source;
            store
                .replace_contact(&id, input, OffsetDateTime::now_utc(), true)
                .ok_or_else(|| missing_contact(faults, V1_PATH, &id))?
        }
        None => store.create_contact(input, source, Some(created_by), OffsetDateTime::now_utc()),
    };
    // Fault contact-custom-fields-default-shared: the model's default `custom_fields = []` is one
    // list object, held by every contact created without custom fields.
    if shares_default && faults.has(Fault::ContactCustomFieldsDefaultShared) {
        store.shared_custom_fields.insert(contact.id.clone());
    }
    let mut json = rendered(faults, &contact, store.custom_field_defs());
    if faults.has(Fault::CustomFieldItemsWithoutId) {
        if let Some(Value::Array(items)) = json.get_mut("customFields") {
            for item in items.iter_mut().filter_map(Value::as_object_mut) {
                item.remove("id");
            }
        }
    }
    if faults.has(Fault::CreatedByUserIdUnprefixed) {
        if let Some(id) = json["createdByUserId"]
            .as_str()
            .and_then(|s| s.strip_prefix("US"))
        {
            json["createdByUserId"] = Value::String(id.to_string());
        }
    }
    // Fault contact-create-not-fired: only the update path sends contact.updated.
    let jobs = if faults.has(Fault::ContactCreateNotFired) {
        Vec::new()
    } else {
        crate::deliveries::fire(
            app,
            &mut store,
            "contact.updated",
            None,
            &contact.id,
            json.clone(),
        )
    };
    drop(store);
    crate::deliveries::dispatch(app, jobs);
    // Fault contact-create-location-only: the import path answers `return=minimal`.
    if faults.has(Fault::ContactCreateLocationOnly) && contact.external_id.is_some() {
        return Ok(location_only(&contact.id));
    }
    // Fault contact-create-200-with-custom-fields: the custom fields path answers as an update.
    let status = if faults.has(Fault::ContactCreate200WithCustomFields)
        && !contact.custom_fields.is_empty()
    {
        StatusCode::OK
    } else {
        StatusCode::CREATED
    };
    Ok(if faults.has(Fault::CreateContactNoEnvelope) {
        reply::json(status, &json)
    } else {
        reply::data(status, json)
    })
}

/// Fault contact-create-location-only: 201 with a Location header and no body.
fn location_only(id: &str) -> Response {
    let location = format!("{HV_PATH}/{id}");
    let mut response = Response::new(Body::empty());
    *response.status_mut() = StatusCode::CREATED;
    if let Ok(value) = axum::http::HeaderValue::from_str(&location) {
        response
            .headers_mut()
            .insert(axum::http::header::LOCATION, value);
    }
    response
}

/// Fault reserved-source-substring: the reserved prefixes tested as substrings.
fn reserved_substring(
    faults: &FaultSet,
    reserved: &ReservedNames,
    body: &Map<String, Value>,
) -> Result<(), ApiError> {
    let Some(source) = body
        .get("source")
        .and_then(Value::as_str)
        .filter(|_| faults.has(Fault::ReservedSourceSubstring))
    else {
        return Ok(());
    };
    let folded = source.to_lowercase();
    let brand = reserved.brand.to_lowercase();
    if folded.contains("csv") || folded.contains(&brand) {
        return Err(ApiError::bad_request(
            V1_PATH,
            format!("source '{source}' is reserved: it may not contain csv or {brand}"),
        ));
    }
    Ok(())
}

/// The id a create defaults createdByUserId to: the caller's user, or under fault
/// contact-created-by-api-key-id the authenticated principal's own id, the API key's.
fn principal_id(app: &App, caller: &Caller) -> String {
    if !app.switches().faults.has(Fault::ContactCreatedByApiKeyId) {
        return caller.user_id.to_string();
    }
    let key = app
        .keys()
        .iter()
        .find(|k| k.user_id == caller.user_id)
        .map_or(caller.user_id, |k| k.key);
    let hash = key.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    });
    format!("AK{:012x}", hash & 0xffff_ffff_ffff)
}

/// Fault contact-phone-regex-unanchored: phone values are checked by searching the E.164 pattern
/// in them; a value holding no match anywhere is refused here, any other passes (`Ok(true)`: the
/// parser's own anchored check is skipped).
fn phone_pattern_searched(faults: &FaultSet, body: &Map<String, Value>) -> Result<bool, ApiError> {
    if !faults.has(Fault::ContactPhoneRegexUnanchored) {
        return Ok(false);
    }
    let phones = body
        .get("defaultFields")
        .and_then(|d| d.get("phoneNumbers"))
        .and_then(Value::as_array);
    for (i, entry) in phones.into_iter().flatten().enumerate() {
        if let Some(value) = entry.get("value").and_then(Value::as_str) {
            if !holds_e164(value) {
                return Err(ApiError::bad_request(
                    V1_PATH,
                    format!(
                        "defaultFields.phoneNumbers[{i}].value '{value}' must be an E.164 phone number matching \\+[1-9]\\d{{1,14}}"
                    ),
                ));
            }
        }
    }
    Ok(true)
}

/// Whether `\+[1-9]\d{1,14}` matches somewhere in `value` (the search of an unanchored pattern).
fn holds_e164(value: &str) -> bool {
    let bytes = value.as_bytes();
    bytes
        .windows(3)
        .any(|w| w[0] == b'+' && (b'1'..=b'9').contains(&w[1]) && w[2].is_ascii_digit())
}

/// Fault contact-create-upserts-external-id: the contact whose externalId the create sends.
fn upsert_target(
    faults: &FaultSet,
    store: &crate::store::Store,
    input: &ContactInput,
) -> Option<String> {
    let wanted = input
        .external_id
        .as_deref()
        .filter(|_| faults.has(Fault::ContactCreateUpsertsExternalId))?;
    store
        .contacts()
        .iter()
        .find(|c| c.external_id.as_deref() == Some(wanted))
        .map(|c| c.id.clone())
}

/// Fault contact-body-validated-before-auth: the body schema check the middleware runs before
/// authentication; `create` picks the rules of POST, else those of PATCH.
pub(super) fn body_refusal(app: &App, body: &Map<String, Value>, create: bool) -> Option<ApiError> {
    let reserved = fixtures::reserved_names();
    let rules = Rules {
        reserved: Some(&reserved),
        ..limits(app.switches(), create)
    };
    let defs = app.store().custom_field_defs().to_vec();
    parse_contact(body, &rules, &defs)
        .err()
        .map(|e| input_error(&app.switches().faults, e))
}

/// Variant `external-id-conflict-409`: the contract lists 409 for a contact create and update
/// without naming its condition; this reference gives it to an externalId already in use by
/// another contact (`except`: the one updated), so every case must invent its own.
fn external_id_free(
    app: &App,
    store: &crate::store::Store,
    external_id: Option<&str>,
    except: Option<&str>,
) -> Result<(), ApiError> {
    let Some(wanted) = external_id else {
        return Ok(());
    };
    if !app.switches().variant(Variant::ExternalIdConflict409) {
        return Ok(());
    }
    let taken = store
        .contacts()
        .iter()
        .any(|c| c.external_id.as_deref() == Some(wanted) && Some(c.id.as_str()) != except);
    if taken {
        return Err(ApiError::for_path(
            V1_PATH,
            StatusCode::CONFLICT,
            format!("a contact with externalId {wanted} already exists"),
        ));
    }
    Ok(())
}

/// The contact is looked up before the body is judged: an unknown id is a 404 whatever was sent.
fn update(
    app: &App,
    id: &str,
    body: Result<Map<String, Value>, ApiError>,
) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let mut store = app.store();
    let Some(existing) = store.contact(id).cloned() else {
        let mut error = missing_contact(faults, V1_PATH, id);
        if faults.has(Fault::Contact404WrongCode) {
            error = error.with_code("0800400");
        }
        return Err(error);
    };
    let reserved = fixtures::reserved_names();
    let rules = Rules {
        reserved: Some(&reserved),
        // Fault patch-phone-e164-unchecked: the update serializer lacks the E.164 validator.
        phone_unchecked: faults.has(Fault::PatchPhoneE164Unchecked),
        ..limits(app.switches(), false)
    };
    let body = body?;
    entry_ids_required(faults, &body)?;
    // Fault patch-unknown-custom-field-404: each definition is looked up with a get-or-404.
    if faults.has(Fault::PatchUnknownCustomField404) {
        let items = body.get("customFields").and_then(Value::as_array);
        let unknown = items
            .into_iter()
            .flatten()
            .filter_map(|item| item.get("key").and_then(Value::as_str))
            .find(|key| !store.custom_field_defs().iter().any(|d| d.key == *key));
        if let Some(key) = unknown {
            return Err(ApiError::for_path(
                V1_PATH,
                StatusCode::NOT_FOUND,
                format!("CustomField matching query does not exist: '{key}'"),
            ));
        }
    }
    // Fault contact-patch-without-default-fields-500: body.defaultFields.emails read unguarded.
    if faults.has(Fault::ContactPatchWithoutDefaultFields500)
        && matches!(body.get("defaultFields"), None | Some(Value::Null))
    {
        return Err(ApiError::for_path(
            V1_PATH,
            StatusCode::INTERNAL_SERVER_ERROR,
            "TypeError: Cannot read properties of undefined (reading 'emails')",
        ));
    }
    external_id_bytes(faults, &body)?;
    let mut input =
        parse_contact(&body, &rules, store.custom_field_defs()).map_err(|e| match e {
            // Fault patch-custom-field-generic-title: the update path maps every refusal alike.
            InputError::CustomField(message) if faults.has(Fault::PatchCustomFieldGenericTitle) => {
                ApiError::bad_request(V1_PATH, message)
            }
            e => input_error(faults, e),
        })?;
    external_id_column(faults, &mut input);
    external_id_folded(faults, &mut input);
    external_id_composed(faults, &mut input);
    external_id_free(app, &store, input.external_id.as_deref(), Some(id))?;
    // Fault contact-patch-own-external-id-409: the unique check does not exclude the row.
    if input.external_id.is_some()
        && input.external_id == existing.external_id
        && faults.has(Fault::ContactPatchOwnExternalId409)
    {
        return Err(ApiError::for_path(
            V1_PATH,
            StatusCode::CONFLICT,
            format!(
                "a contact with externalId {} already exists",
                existing.external_id.as_deref().unwrap_or_default()
            ),
        ));
    }
    source_url_column(faults, &input)?;
    source_url_sliced(faults, &mut input);
    empty_list_syntax_error(faults, &body)?;
    // Fault contact-patch-custom-fields-updates-only: an UPDATE of the rows by key, no INSERT.
    if faults.has(Fault::ContactPatchCustomFieldsUpdatesOnly) {
        input
            .custom_fields
            .retain(|item| existing.custom_fields.iter().any(|e| e.key == item.key));
    }
    if faults.has(Fault::PatchMergesEntries) {
        keep_omitted_entries(&mut input, &existing);
    }
    if faults.has(Fault::PatchEmptyListKeepsEntries) {
        keep_when_empty(&mut input, &existing);
    }
    if faults.has(Fault::ContactPatchEntryUpsertIgnores) {
        keep_existing_rows(&mut input, &existing);
    }
    // Fault contact-patch-entry-binds-swapped: the upsert binds name and value the wrong way round.
    if faults.has(Fault::ContactPatchEntryBindsSwapped) {
        for entry in input
            .emails
            .iter_mut()
            .chain(input.phone_numbers.iter_mut())
        {
            let value = std::mem::take(&mut entry.value);
            entry.value = entry.name.take().unwrap_or_default();
            entry.name = Some(value);
        }
    }
    // Fault contact-patch-multi-select-scalar: the update path's value column is scalar text.
    if faults.has(Fault::ContactPatchMultiSelectScalar) {
        for item in &mut input.custom_fields {
            if let Some(first) = item.value.as_array().and_then(|a| a.first()).cloned() {
                item.value = first;
            }
        }
    }
    let updated = store
        .replace_contact(
            id,
            input,
            OffsetDateTime::now_utc(),
            app.switches().variant(Variant::PatchClearsOmittedFields),
        )
        .ok_or_else(|| missing_contact(faults, V1_PATH, id))?;
    // Fault contact-custom-fields-default-shared: the shared list is cleared and refilled in
    // place, so every contact holding it shows the new items.
    if faults.has(Fault::ContactCustomFieldsDefaultShared)
        && store.shared_custom_fields.contains(id)
    {
        let sharing: Vec<String> = store.shared_custom_fields.iter().cloned().collect();
        for other in sharing.iter().filter(|o| o.as_str() != id) {
            if let Some(c) = store.contact_mut(other) {
                c.custom_fields = updated.custom_fields.clone();
            }
        }
    }
    let json = rendered(faults, &updated, store.custom_field_defs());
    // Fault contact-updated-dirty-check-scalar-only: the dirty check sees scalar columns only.
    let clean_scalars = faults.has(Fault::ContactUpdatedDirtyCheckScalarOnly)
        && scalars(&existing) == scalars(&updated);
    // Fault contact-update-children-not-dirty: the dirty check sees the contact row only.
    let row_changed = (
        &existing.external_id,
        &existing.source,
        &existing.source_url,
        &existing.company,
        &existing.first_name,
        &existing.last_name,
        &existing.role,
    ) != (
        &updated.external_id,
        &updated.source,
        &updated.source_url,
        &updated.company,
        &updated.first_name,
        &updated.last_name,
        &updated.role,
    );
    let clean = clean_scalars || !row_changed && faults.has(Fault::ContactUpdateChildrenNotDirty);
    let mut jobs = if faults.has(Fault::ContactUpdateNotFired) || clean {
        Vec::new()
    } else {
        crate::deliveries::fire(
            app,
            &mut store,
            "contact.updated",
            None,
            &updated.id,
            json.clone(),
        )
    };
    // Fault contact-update-fires-twice: the model's after-save hook publishes the event too.
    if faults.has(Fault::ContactUpdateFiresTwice) {
        jobs.extend(crate::deliveries::fire(
            app,
            &mut store,
            "contact.updated",
            None,
            &updated.id,
            json.clone(),
        ));
    }
    // Fault contact-patch-answers-previous: the entity read before the save is answered.
    let json = if faults.has(Fault::ContactPatchAnswersPrevious) {
        rendered(faults, &existing, store.custom_field_defs())
    } else {
        json
    };
    drop(store);
    crate::deliveries::dispatch(app, jobs);
    Ok(reply::data(StatusCode::OK, contact_answer(app, json)))
}

/// The scalar columns of a contact, which the dirty check of fault
/// contact-updated-dirty-check-scalar-only compares.
fn scalars(c: &Contact) -> [Option<&str>; 7] {
    [
        c.external_id.as_deref(),
        c.source.as_deref(),
        c.source_url.as_deref(),
        c.company.as_deref(),
        c.first_name.as_deref(),
        c.last_name.as_deref(),
        c.role.as_deref(),
    ]
}

/// Fault patch-entry-id-required: the update schema, generated from the response model, requires
/// the id of every email and phone number entry.
fn entry_ids_required(faults: &FaultSet, body: &Map<String, Value>) -> Result<(), ApiError> {
    if !faults.has(Fault::PatchEntryIdRequired) {
        return Ok(());
    }
    let fields = body.get("defaultFields");
    for key in ["emails", "phoneNumbers"] {
        let items = fields.and_then(|f| f.get(key)).and_then(Value::as_array);
        for (i, item) in items.into_iter().flatten().enumerate() {
            if item.get("id").is_none_or(Value::is_null) {
                let path = format!("defaultFields.{key}[{i}].id");
                return Err(
                    ApiError::bad_request(V1_PATH, format!("{path} is required")).with_item(
                        &format!("/defaultFields/{key}/{i}/id"),
                        "is required",
                        Value::Null,
                        serde_json::json!({"type": "string"}),
                    ),
                );
            }
        }
    }
    Ok(())
}

/// The width of the externalId column under fault external-id-column-64-truncated.
const EXTERNAL_ID_COLUMN: usize = 64;

/// Fault external-id-column-64-truncated: a non-strict database cuts a value wider than its
/// column (with a warning nobody reads) instead of refusing it.
fn external_id_column(faults: &FaultSet, input: &mut ContactInput) {
    if faults.has(Fault::ExternalIdColumn64Truncated) {
        if let Some(id) = input.external_id.as_mut() {
            *id = id.chars().take(EXTERNAL_ID_COLUMN).collect();
        }
    }
}

/// Fault contact-external-id-lowercased: identifiers are normalized to lower case on write.
fn external_id_folded(faults: &FaultSet, input: &mut ContactInput) {
    if faults.has(Fault::ContactExternalIdLowercased) {
        if let Some(id) = input.external_id.as_mut() {
            *id = id.to_lowercase();
        }
    }
}

/// Fault contact-external-id-nfc-composed: the ORM field's Unicode normalizer composes the
/// externalId (NFC) on write.
fn external_id_composed(faults: &FaultSet, input: &mut ContactInput) {
    if faults.has(Fault::ContactExternalIdNfcComposed) {
        if let Some(id) = input.external_id.as_mut() {
            *id = crate::quirks::nfc_latin(id);
        }
    }
}

/// Fault contact-patch-empty-list-500: the entries a sent list leaves out are deleted with a
/// hand-built `NOT IN (<kept ids>)`, which a list sent empty turns into a syntax error.
fn empty_list_syntax_error(faults: &FaultSet, body: &Map<String, Value>) -> Result<(), ApiError> {
    if !faults.has(Fault::ContactPatchEmptyList500) {
        return Ok(());
    }
    let empty = |v: Option<&Value>| v.and_then(Value::as_array).is_some_and(Vec::is_empty);
    let fields = body.get("defaultFields");
    if empty(fields.and_then(|f| f.get("emails")))
        || empty(fields.and_then(|f| f.get("phoneNumbers")))
        || empty(body.get("customFields"))
    {
        return Err(ApiError::for_path(
            V1_PATH,
            StatusCode::INTERNAL_SERVER_ERROR,
            "You have an error in your SQL syntax; check the manual that corresponds to your \
             MySQL server version for the right syntax to use near ')' at line 1",
        ));
    }
    Ok(())
}

/// The width of the sourceUrl column under fault source-url-column-191 (the utf8mb4 index limit).
const SOURCE_URL_COLUMN: usize = 191;

/// Fault source-url-column-191: the database refuses a value wider than its column, and the
/// error reaches the client as a 500.
fn source_url_column(faults: &FaultSet, input: &ContactInput) -> Result<(), ApiError> {
    source_url_tld(faults, input)?;
    match &input.source_url {
        Some(url)
            if faults.has(Fault::SourceUrlColumn191) && url.chars().count() > SOURCE_URL_COLUMN =>
        {
            Err(ApiError::for_path(
                V1_PATH,
                StatusCode::INTERNAL_SERVER_ERROR,
                "Data too long for column 'source_url' at row 1",
            ))
        }
        _ => Ok(()),
    }
}

/// Fault source-url-trailing-slash-sliced: `source_url[:-1]`, meant to strip the trailing slash
/// the CRM exports had, cuts the last character whatever it is.
fn source_url_sliced(faults: &FaultSet, input: &mut ContactInput) {
    if faults.has(Fault::SourceUrlTrailingSlashSliced) {
        if let Some(url) = input.source_url.as_mut() {
            url.pop();
        }
    }
}

/// The top-level domains the URL validator of fault source-url-tld-validator knows.
const KNOWN_TLDS: [&str; 12] = [
    "com", "net", "org", "io", "co", "dev", "app", "ai", "us", "uk", "de", "fr",
];

/// Fault source-url-tld-validator: the URL validator wants a host under a TLD of its own list.
fn source_url_tld(faults: &FaultSet, input: &ContactInput) -> Result<(), ApiError> {
    let Some(url) = input
        .source_url
        .as_deref()
        .filter(|_| faults.has(Fault::SourceUrlTldValidator))
    else {
        return Ok(());
    };
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = authority.rsplit('@').next().unwrap_or_default();
    let host = host.split(':').next().unwrap_or_default();
    let known = host
        .rsplit_once('.')
        .is_some_and(|(_, tld)| KNOWN_TLDS.contains(&tld.to_ascii_lowercase().as_str()));
    if known {
        return Ok(());
    }
    Err(ApiError::bad_request(
        V1_PATH,
        format!("sourceUrl '{url}' is not a valid URL"),
    ))
}

/// Fault patch-empty-list-keeps-entries: a list is written only when it holds something
/// (`if list.len() > 0`), so an empty or omitted list keeps what the contact had.
fn keep_when_empty(input: &mut ContactInput, existing: &Contact) {
    let kept = |entries: &[crate::model::Entry]| -> Vec<EntryInput> {
        entries
            .iter()
            .map(|e| EntryInput {
                id: Some(e.id.clone()),
                name: e.name.clone(),
                value: e.value.clone(),
            })
            .collect()
    };
    if input.emails.is_empty() {
        input.emails = kept(&existing.emails);
    }
    if input.phone_numbers.is_empty() {
        input.phone_numbers = kept(&existing.phone_numbers);
    }
    if input.custom_fields.is_empty() {
        input.custom_fields = existing
            .custom_fields
            .iter()
            .map(|item| CustomFieldInput {
                id: Some(item.id.clone()),
                key: item.key.clone(),
                value: item.value.clone(),
            })
            .collect();
    }
}

/// Fault contact-patch-entry-upsert-ignores: entries are written with `INSERT IGNORE`, so a row
/// whose id exists keeps its columns; only entries without a known id are written as sent.
fn keep_existing_rows(input: &mut ContactInput, existing: &Contact) {
    for (sent, current) in [
        (&mut input.emails, &existing.emails),
        (&mut input.phone_numbers, &existing.phone_numbers),
    ] {
        for entry in sent.iter_mut() {
            if let Some(row) = current
                .iter()
                .find(|e| entry.id.as_deref() == Some(e.id.as_str()))
            {
                entry.name = row.name.clone();
                entry.value = row.value.clone();
            }
        }
    }
}

/// Fault external-id-length-in-bytes: the externalId limit counted in UTF-8 bytes, so a value of
/// at most 75 characters but more than 75 bytes is refused as too long.
fn external_id_bytes(faults: &FaultSet, body: &Map<String, Value>) -> Result<(), ApiError> {
    if !faults.has(Fault::ExternalIdLengthInBytes) {
        return Ok(());
    }
    match body.get("externalId") {
        Some(Value::String(id)) if id.len() > EXTERNAL_ID_MAX => Err(ApiError::bad_request(
            V1_PATH,
            format!(
                "externalId must be a string of 1 to {EXTERNAL_ID_MAX} characters, got {}",
                id.len()
            ),
        )),
        _ => Ok(()),
    }
}

/// Fault custom-field-item-without-key-500: each item's key is indexed (`item['key']`) to load
/// its definition before the validator runs, and the KeyError reaches the client as a 500.
fn custom_field_key_indexed(faults: &FaultSet, body: &Map<String, Value>) -> Result<(), ApiError> {
    if !faults.has(Fault::CustomFieldItemWithoutKey500) {
        return Ok(());
    }
    let keyless = body
        .get("customFields")
        .and_then(Value::as_array)
        .is_some_and(|items| {
            items
                .iter()
                .any(|item| item.as_object().is_some_and(|o| !o.contains_key("key")))
        });
    if keyless {
        return Err(ApiError::for_path(
            V1_PATH,
            StatusCode::INTERNAL_SERVER_ERROR,
            "KeyError: 'key'",
        ));
    }
    Ok(())
}

/// Fault source-length-utf16-units: the create limit of source counted in UTF-16 code units (a
/// JavaScript string's `length`), so characters outside the Basic Multilingual Plane count twice.
fn source_utf16_units(faults: &FaultSet, body: &Map<String, Value>) -> Result<(), ApiError> {
    if !faults.has(Fault::SourceLengthUtf16Units) {
        return Ok(());
    }
    match body.get("source") {
        Some(Value::String(source)) if source.encode_utf16().count() > SOURCE_MAX_CREATE => {
            Err(ApiError::bad_request(
                V1_PATH,
                format!(
                    "source must be a string of 1 to {SOURCE_MAX_CREATE} characters, got {}",
                    source.encode_utf16().count()
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// The length limits of a create or an update body, as the spec states them unless a boundary
/// fault moves one by one.
fn limits(switches: &Switches, create: bool) -> Rules<'static> {
    let faults = &switches.faults;
    let moved = |fault: Fault, by: isize, limit: usize| {
        if faults.has(fault) {
            limit.saturating_add_signed(by)
        } else {
            limit
        }
    };
    let external_id_max = moved(
        Fault::ExternalIdMax74,
        -1,
        moved(Fault::ExternalId76Accepted, 1, EXTERNAL_ID_MAX),
    );
    let source_max = if create {
        moved(Fault::SourceCreateMax73, 1, SOURCE_MAX_CREATE)
    } else {
        moved(Fault::SourceUpdateMax74, -1, SOURCE_MAX_UPDATE)
    };
    Rules {
        create,
        source: (1, source_max),
        external_id: (moved(Fault::ExternalIdMin0, -1, 1), external_id_max),
        source_url: (1, moved(Fault::SourceUrlMax201, 1, SOURCE_URL_MAX)),
        phone_leading_zero: faults.has(Fault::E164LeadingZeroAccepted),
        phone_first_only: faults.has(Fault::ContactPhoneE164FirstOnly),
        phone_unchecked: false,
        ignore_unknown_custom_keys: switches.variant(Variant::UnknownCustomFieldKeysIgnored),
        custom_field_types_unchecked: faults.has(Fault::CustomFieldTypeUnchecked),
        multi_select_options_unchecked: faults.has(Fault::MultiSelectOptionsUnchecked),
        reserved_case_sensitive: switches.variant(Variant::ReservedSourceCaseSensitive),
        reserved: None,
    }
}

fn input_error(faults: &FaultSet, error: InputError) -> ApiError {
    match error {
        InputError::Invalid(message) => ApiError::bad_request(V1_PATH, message),
        InputError::CustomField(message) if faults.has(Fault::CustomField500) => {
            ApiError::for_path(V1_PATH, StatusCode::INTERNAL_SERVER_ERROR, message)
        }
        InputError::CustomField(message) => ApiError::bad_request(V1_PATH, message)
            .with_code("0801400")
            .with_title("Invalid Custom Field Item"),
    }
}

fn missing_contact(faults: &FaultSet, path: &str, id: &str) -> ApiError {
    let error = ApiError::for_path(
        path,
        StatusCode::NOT_FOUND,
        format!("Contact '{id}' was not found"),
    );
    if faults.has(Fault::MissingContactBlankMessage) {
        error.with_message("")
    } else {
        error
    }
}

/// What the merge fault does instead of replacing: entries the body left out stay.
fn keep_omitted_entries(input: &mut ContactInput, existing: &Contact) {
    for (sent, current) in [
        (&mut input.emails, &existing.emails),
        (&mut input.phone_numbers, &existing.phone_numbers),
    ] {
        for entry in current {
            if !sent
                .iter()
                .any(|s| s.id.as_deref() == Some(entry.id.as_str()))
            {
                sent.push(EntryInput {
                    id: Some(entry.id.clone()),
                    name: entry.name.clone(),
                    value: entry.value.clone(),
                });
            }
        }
    }
    for item in &existing.custom_fields {
        let sent = input
            .custom_fields
            .iter()
            .any(|s| s.id.as_deref() == Some(item.id.as_str()) || s.key == item.key);
        if !sent {
            input.custom_fields.push(CustomFieldInput {
                id: Some(item.id.clone()),
                key: item.key.clone(),
                value: item.value.clone(),
            });
        }
    }
}

/// Filters on different fields combine with AND; each constraint is a set the field must be in.
#[derive(Debug, Default)]
struct Filter {
    external_id_in: Vec<Vec<String>>,
    source_in: Vec<Vec<String>>,
    /// Fault contacts-source-filter-prefix: `source=` values matched as prefixes.
    source_prefix: Vec<String>,
    /// Fault contacts-external-ids-case-insensitive: external ids compared without case.
    external_id_fold_case: bool,
    /// Fault contacts-external-id-index-stale: external ids read from the create-time index.
    external_id_from_index: bool,
    /// Fault contacts-sources-null-as-public-api: a null source filtered as `public-api`.
    source_null_as_public_api: bool,
    /// Fault contacts-list-scoped-to-creator: only the contacts this user created.
    created_by: Option<String>,
    /// Fault contacts-filter-null-literal: `externalId=null` and `source=null` read as IS NULL.
    external_id_null: bool,
    source_null: bool,
}

impl Filter {
    /// `indexed`: the externalId the index holds for the contact.
    fn matches(&self, contact: &Contact, indexed: Option<&str>) -> bool {
        let external_id = if self.external_id_from_index {
            indexed.map(str::to_string)
        } else {
            contact.external_id.clone()
        };
        let within = |value: &Option<String>, sets: &Vec<Vec<String>>| {
            sets.iter()
                .all(|set| value.as_ref().is_some_and(|v| set.contains(v)))
        };
        let folded = |value: &Option<String>, sets: &Vec<Vec<String>>| {
            sets.iter().all(|set| {
                value
                    .as_ref()
                    .is_some_and(|v| set.iter().any(|s| s.to_lowercase() == v.to_lowercase()))
            })
        };
        (if self.external_id_fold_case {
            folded(&external_id, &self.external_id_in)
        } else {
            within(&external_id, &self.external_id_in)
        }) && within(
            &contact.source.clone().or_else(|| {
                self.source_null_as_public_api
                    .then(|| "public-api".to_string())
            }),
            &self.source_in,
        ) && (!self.external_id_null || contact.external_id.is_none())
            && (!self.source_null || contact.source.is_none())
            && self
                .created_by
                .as_ref()
                .is_none_or(|u| contact.created_by_user_id.as_deref() == Some(u.as_str()))
            && self.source_prefix.iter().all(|p| {
                contact
                    .source
                    .as_ref()
                    .is_some_and(|s| s.starts_with(p.as_str()))
            })
    }
}

/// Each filter value follows the field's length rule (1-75), so a typo'd empty value is refused
/// rather than silently matching nothing.
fn filter_values(
    path: &str,
    name: &str,
    values: Vec<&str>,
    max: usize,
) -> Result<Vec<String>, ApiError> {
    if let Some(bad) = values
        .iter()
        .find(|v| !(1..=max).contains(&v.chars().count()))
    {
        return Err(ApiError::bad_request(
            path,
            format!(
                "query parameter {name}: each value must be 1 to {max} characters, got {}",
                bad.chars().count()
            ),
        ));
    }
    Ok(values.into_iter().map(str::to_string).collect())
}

fn bad_query(path: &str) -> impl Fn(PageQueryError) -> ApiError + '_ {
    move |e| ApiError::bad_request(path, e.to_string())
}

fn list_v1_page(app: &App, caller: &Caller, query: &Query) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let external_ids_max = if faults.has(Fault::ExternalIdsFilterMax76) {
        FILTER_VALUE_MAX + 1
    } else {
        FILTER_VALUE_MAX
    };
    // Fault contacts-external-ids-split-on-comma: the `[in]` parser of the latest list, reused.
    let mut sent_external_ids = query.all("externalIds");
    if faults.has(Fault::ContactsExternalIdsSplitOnComma) {
        sent_external_ids = sent_external_ids
            .into_iter()
            .flat_map(|v| v.split(','))
            .collect();
    }
    let external_ids = filter_values(V1_PATH, "externalIds", sent_external_ids, external_ids_max)?;
    // Fault sources-filter-create-limit: the filter's check copied from the create rule of source.
    let sources_max = if faults.has(Fault::SourcesFilterCreateLimit) {
        SOURCE_MAX_CREATE
    } else {
        FILTER_VALUE_MAX
    };
    // Fault contacts-sources-last-value-only: the framework's single value of a repeated key is
    // its last one.
    let mut sent_sources = query.all("sources");
    if faults.has(Fault::ContactsSourcesLastValueOnly) && sent_sources.len() > 1 {
        sent_sources = sent_sources.split_off(sent_sources.len() - 1);
    }
    let sources = filter_values(V1_PATH, "sources", sent_sources, sources_max)?;
    let default_size = if faults.has(Fault::DefaultPageSize20) {
        20
    } else {
        10
    };
    let min = if faults.has(Fault::ContactsMaxResultsMin2) {
        2
    } else {
        1
    };
    let max = if faults.has(Fault::ContactsMaxResultsMax51) {
        51
    } else {
        50
    };
    // Fault contacts-max-results-zero-default: `int(value) or 10` takes 0 for the default.
    let asked = query
        .first("maxResults")
        .filter(|v| !(*v == "0" && faults.has(Fault::ContactsMaxResultsZeroDefault)))
        .map(|v| parse_int_digits(faults, v));
    let size =
        pagination::max_results_in(asked, default_size, min..=max).map_err(bad_query(V1_PATH))?;
    // Fault contacts-v1-token-alphabet-mismatch: the token is read with the URL-safe alphabet.
    let alphabet_mismatch = faults.has(Fault::ContactsV1TokenAlphabetMismatch);
    let offset = if alphabet_mismatch {
        url_safe_token(query.first("pageToken"))
    } else {
        pagination::page_token(query.first("pageToken"))
    }
    .map_err(bad_query(V1_PATH))?;
    let mut filter = Filter {
        // Fault contacts-list-scoped-to-creator: the row policy of the `My contacts` view.
        created_by: faults
            .has(Fault::ContactsListScopedToCreator)
            .then(|| caller.user_id.to_string()),
        external_id_fold_case: faults.has(Fault::ContactsExternalIdsCaseInsensitive),
        external_id_from_index: faults.has(Fault::ContactsExternalIdIndexStale),
        source_null_as_public_api: faults.has(Fault::ContactsSourcesNullAsPublicApi),
        ..Filter::default()
    };
    // Fault contacts-filter-first-page-only: a continued page forgets the filters.
    let continued =
        faults.has(Fault::ContactsFilterFirstPageOnly) && query.first("pageToken").is_some();
    // Fault contacts-unknown-external-ids-list-all: the ids resolved from externalIds filter
    // only when there are some (`if ids:`).
    let resolved_none = faults.has(Fault::ContactsUnknownExternalIdsListAll)
        && !app.store().contacts().iter().any(|c| {
            c.external_id
                .as_ref()
                .is_some_and(|e| external_ids.contains(e))
        });
    // Fault contacts-external-ids-anded: one condition per value, chained with AND.
    let anded = faults.has(Fault::ContactsExternalIdsAnded);
    let sets = |values: Vec<String>| -> Vec<Vec<String>> {
        if anded {
            values.into_iter().map(|v| vec![v]).collect()
        } else {
            vec![values]
        }
    };
    if !external_ids.is_empty()
        && !faults.has(Fault::ExternalIdsFilterIgnored)
        && !continued
        && !resolved_none
    {
        filter.external_id_in.extend(sets(external_ids));
    }
    if !sources.is_empty() && !faults.has(Fault::ContactsSourcesFilterIgnored) && !continued {
        filter.source_in.extend(sets(sources));
    }
    // Fault contacts-filter-after-limit: the filters run on the page the LIMIT cut.
    let after_limit = faults.has(Fault::ContactsFilterAfterLimit);
    let shape = if alphabet_mismatch {
        TokenShape::StandardBase64
    } else {
        TokenShape::Offset
    };
    Ok(list_answer(app, &filter, size, offset, after_limit, shape))
}

/// The mask of the tokens of fault contacts-v1-token-alphabet-mismatch.
const BASE64_TOKEN_MASK: u64 = 0x5eed_c0de_7a11_ab34;
/// The version byte those tokens start with.
const BASE64_TOKEN_VERSION: u8 = 0xc1;

/// Fault contacts-v1-token-alphabet-mismatch: the next offset written in standard base64 (`+`
/// and `/`).
fn standard_base64_token(offset: usize) -> String {
    let mut bytes = vec![BASE64_TOKEN_VERSION];
    bytes.extend_from_slice(&(offset as u64 ^ BASE64_TOKEN_MASK).to_be_bytes());
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Fault contacts-v1-token-alphabet-mismatch: the token read with the URL-safe alphabet (`-`
/// and `_`), which refuses a token written with `+` or `/`.
fn url_safe_token(token: Option<&str>) -> Result<usize, PageQueryError> {
    let Some(token) = token else {
        return Ok(0);
    };
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(token)
        .ok()
        .filter(|b| b.len() == 9 && b[0] == BASE64_TOKEN_VERSION)
        .and_then(|b| <[u8; 8]>::try_from(&b[1..]).ok())
        .and_then(|b| usize::try_from(u64::from_be_bytes(b) ^ BASE64_TOKEN_MASK).ok())
        .ok_or_else(|| PageQueryError::ForeignToken {
            token: token.to_string(),
        })
}

/// Fault contacts-max-results-parse-int: `parseInt` reads the leading digits and drops the rest
/// (`2.5` is 2, `5x` is 5); a value without leading digits is left to the range check.
fn parse_int_digits<'q>(faults: &FaultSet, value: &'q str) -> &'q str {
    if !faults.has(Fault::ContactsMaxResultsParseInt) {
        return value;
    }
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 { value } else { &value[..digits] }
}

fn list_hv_page(app: &App, query: &Query) -> Result<Response, ApiError> {
    let faults = &app.switches().faults;
    let mut filter = Filter::default();
    let mut prefixes = Vec::new();
    for (name, sets) in [
        ("externalId", &mut filter.external_id_in),
        ("source", &mut filter.source_in),
    ] {
        for value in query.all(name) {
            let set = filter_values(HV_PATH, name, vec![value], FILTER_VALUE_MAX)?;
            // Fault contacts-filter-null-literal: the text `null` becomes IS NULL.
            if value == "null" && faults.has(Fault::ContactsFilterNullLiteral) {
                if name == "source" {
                    filter.source_null = true;
                } else {
                    filter.external_id_null = true;
                }
            } else if name == "source" && faults.has(Fault::ContactsSourceFilterPrefix) {
                prefixes.extend(set);
            } else if !(name == "externalId" && faults.has(Fault::ContactsExternalIdFilterIgnored))
            {
                sets.push(set);
            }
        }
        let in_name = format!("{name}[in]");
        for list in query.all(&in_name) {
            // Fault contacts-in-set-length-before-split: the value's length rule runs on the
            // comma-joined set.
            if faults.has(Fault::ContactsInSetLengthBeforeSplit) {
                filter_values(HV_PATH, &in_name, vec![list], FILTER_VALUE_MAX)?;
            }
            let mut set = filter_values(
                HV_PATH,
                &in_name,
                list.split(',').collect(),
                FILTER_VALUE_MAX,
            )?;
            // Fault contacts-in-set-capped-at-10: the store's `in` takes 10 values.
            if faults.has(Fault::ContactsInSetCappedAt10) {
                set.truncate(IN_VALUES_CAP);
            }
            if !faults.has(Fault::InFilterIgnored) {
                sets.push(set);
            }
        }
    }
    filter.source_prefix = prefixes;
    // The default page size of this list is not stated (READINGS 4.4).
    let default = if app.switches().variant(Variant::LatestDefaultPage3) {
        3
    } else {
        10
    };
    // The Limits row of listing contacts (1-50) holds for both generations (READINGS 4.4).
    let size = pagination::max_results(query.first("maxResults"), default, 50)
        .map_err(bad_query(HV_PATH))?;
    let offset = pagination::page_token(query.first("pageToken")).map_err(bad_query(HV_PATH))?;
    // Fault contacts-hv-token-page-number: the writer puts the next page's number in the token,
    // the reader takes the token for an offset.
    let shape = if faults.has(Fault::ContactsHvTokenPageNumber) {
        TokenShape::PageNumber
    } else {
        TokenShape::Offset
    };
    Ok(list_answer(app, &filter, size, offset, false, shape))
}

/// How a contact list writes its next token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TokenShape {
    /// The next offset, as every list of the reference writes it.
    Offset,
    /// Fault contacts-hv-token-page-number: the next page's number.
    PageNumber,
    /// Fault contacts-v1-token-alphabet-mismatch: the next offset in standard base64.
    StandardBase64,
}

/// `after_limit`: the page is cut from every contact and filtered afterwards (fault
/// contacts-filter-after-limit); `shape`: how the next token is written.
fn list_answer(
    app: &App,
    filter: &Filter,
    size: usize,
    offset: usize,
    after_limit: bool,
    shape: TokenShape,
) -> Response {
    let faults = &app.switches().faults;
    let store = app.store();
    // Fault contacts-list-ignores-soft-delete: the list query misses the deleted flag.
    let deleted: &[Contact] = if faults.has(Fault::ContactsListIgnoresSoftDelete) {
        &store.deleted_contacts
    } else {
        &[]
    };
    let mut matching: Vec<&Contact> = store
        .contacts()
        .iter()
        .chain(deleted)
        .filter(|c| after_limit || filter.matches(c, store.indexed_external_id(&c.id)))
        .collect();
    if app.switches().variant(Variant::ContactsNewestFirst) {
        matching.reverse();
    }
    let page = pagination::paginate(&matching, size, offset, faults);
    let page = Page {
        items: page
            .items
            .iter()
            .filter(|c| !after_limit || filter.matches(c, store.indexed_external_id(&c.id)))
            .map(|c| rendered(faults, c, store.custom_field_defs()))
            .collect(),
        total: page.total,
        next_token: page.next_token.map(|t| match shape {
            TokenShape::Offset => t,
            TokenShape::PageNumber => pagination::encode_token(offset + 1),
            TokenShape::StandardBase64 => {
                standard_base64_token(pagination::decode_token(&t).unwrap_or_default())
            }
        }),
    };
    reply::json(StatusCode::OK, &pagination::list_body(page, faults))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contact_paths_are_recognised_by_segment() {
        for path in [
            "/v1/contacts",
            "/v1/contacts/abc",
            "/contacts",
            "/contacts/x",
        ] {
            assert!(is_contact_path(path), "{path}");
        }
        for path in ["/v1/contactsx", "/contactsx", "/webhooks/1", "/v1/contact"] {
            assert!(!is_contact_path(path), "{path}");
        }
    }
}
