//! Credentials and version selection, checked before any route runs.
//!
//! Authentication wraps the whole router (unknown paths included), so no handler can forget it;
//! the version check wraps only the header-versioned routes and runs after authentication.

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;

use super::app::App;
use super::errors::{ApiError, Generation};
use super::faults::Fault;
use super::paths::{API_VERSION, is_call_path};
use super::variants::Variant;

const VERSION_HEADER: &str = "service-api-version";
/// The header that pins a webhook's payload version (fault version-header-alias-pin-header).
const PIN_HEADER: &str = "x-service-api-version";
/// How much of a key fault api-key-prefix-compared compares.
const KEY_PREFIX_COMPARED: usize = 24;

/// The authenticated user of a request, put in its extensions by [`require_key`].
#[derive(Debug, Clone)]
pub(crate) struct Caller {
    pub user_id: &'static str,
}

/// Accepts a request whose `Authorization` header is exactly a known key (no scheme).
pub(crate) async fn require_key(State(app): State<App>, mut req: Request, next: Next) -> Response {
    let faults = &app.switches().faults;
    let sent = req.headers().get(header::AUTHORIZATION).cloned();
    let sent = sent.as_ref();
    let key = match sent {
        None if faults.has(Fault::MissingAuthAccepted) => app.keys().first(),
        None => None,
        // Fault auth-empty-key-default: an empty header is falsy, and the default key is used.
        Some(value) if value.is_empty() && faults.has(Fault::AuthEmptyKeyDefault) => {
            app.keys().first()
        }
        Some(value) => app
            .keys()
            .iter()
            .find(|k| {
                // Fault api-key-prefix-compared: only the first 24 characters are compared.
                let prefix = |s: &[u8]| s.get(..KEY_PREFIX_COMPARED).map(<[u8]>::to_vec);
                // Fault api-key-case-insensitive: the key column's collation ignores case.
                value.as_bytes() == k.key.as_bytes()
                    || (faults.has(Fault::ApiKeyCaseInsensitive)
                        && value.as_bytes().eq_ignore_ascii_case(k.key.as_bytes()))
                    || (faults.has(Fault::ApiKeyPrefixCompared)
                        && prefix(value.as_bytes()).is_some()
                        && prefix(value.as_bytes()) == prefix(k.key.as_bytes()))
                    // Fault api-key-truncated-accepted: `key LIKE 'sent%'`.
                    || (faults.has(Fault::ApiKeyTruncatedAccepted)
                        && !value.is_empty()
                        && k.key.as_bytes().starts_with(value.as_bytes()))
            })
            .or_else(|| {
                let calls = is_call_path(req.uri().path());
                (calls && faults.has(Fault::CallsWrongKeyAccepted))
                    .then(|| app.keys().first())
                    .flatten()
            }),
    };
    let legacy = req.uri().path().starts_with("/v1/webhooks/");
    let key = key.or_else(|| {
        (legacy && faults.has(Fault::LegacyWebhookKindUnauthenticated))
            .then(|| app.keys().first())
            .flatten()
    });
    // Fault unauthorized-answer-cached: the gateway caches 401 answers of GET requests.
    let cache_key = (faults.has(Fault::UnauthorizedAnswerCached)
        && req.method() == axum::http::Method::GET)
        .then(|| req.uri().to_string());
    let Some(key) = key else {
        if let Some(url) =
            cache_key.filter(|_| !(sent.is_some() && faults.has(Fault::InvalidKey403)))
        {
            app.store()
                .unauthorized_cache
                .insert(url, time::OffsetDateTime::now_utc());
        }
        let message = if sent.is_some() {
            "the API key in the Authorization header is not valid"
        } else {
            "the Authorization header with an API key is required"
        };
        // Fault invalid-key-403: a key the service does not know is taken for one without access.
        let status = if sent.is_some() && faults.has(Fault::InvalidKey403) {
            StatusCode::FORBIDDEN
        } else {
            StatusCode::UNAUTHORIZED
        };
        let mut error = ApiError::for_path(req.uri().path(), status, message);
        // Fault v1-401-generic-code: the layer before routing knows no v1 area.
        if status == StatusCode::UNAUTHORIZED
            && faults.has(Fault::V1UnauthorizedGenericCode)
            && Generation::of_path(req.uri().path()) == Generation::V1
        {
            error = error.with_code("0000401");
        }
        if faults.has(Fault::UnauthorizedWrongTitle) {
            error = error.with_title("Unauthenticated");
        }
        return error.render(app.switches());
    };
    if cache_key.is_some_and(|url| cached_unauthorized(&app, &url)) {
        return ApiError::for_path(
            req.uri().path(),
            StatusCode::UNAUTHORIZED,
            "the Authorization header with an API key is required",
        )
        .render(app.switches());
    }
    // Fault user-routes-owner-key-table: the user routes look the key up in the admin console's
    // table, which holds owners' keys only.
    let user_path = req.uri().path() == "/users" || req.uri().path().starts_with("/users/");
    if user_path && faults.has(Fault::UserRoutesOwnerKeyTable) && is_member(&app, key.user_id) {
        return ApiError::for_path(
            req.uri().path(),
            StatusCode::UNAUTHORIZED,
            "the API key in the Authorization header is not valid",
        )
        .render(app.switches());
    }
    // Fault v1-tasks-require-version-header: the version check runs on the v1 task routes too.
    let task_path = req.uri().path() == "/v1/tasks" || req.uri().path().starts_with("/v1/tasks/");
    if task_path
        && faults.has(Fault::V1TasksRequireVersionHeader)
        && req.headers().get(VERSION_HEADER).is_none()
    {
        return ApiError::for_path(
            req.uri().path(),
            StatusCode::BAD_REQUEST,
            format!(
                "header Service-Api-Version is required; the supported version is {API_VERSION}"
            ),
        )
        .render(app.switches());
    }
    req.extensions_mut().insert(Caller {
        user_id: key.user_id,
    });
    next.run(req).await
}

/// How long fault unauthorized-answer-cached keeps a 401 answer.
const UNAUTHORIZED_TTL: time::Duration = time::Duration::seconds(5);

/// Fault unauthorized-answer-cached: whether the gateway holds a fresh 401 answer for `url`.
fn cached_unauthorized(app: &App, url: &str) -> bool {
    let now = time::OffsetDateTime::now_utc();
    let mut store = app.store();
    store
        .unauthorized_cache
        .retain(|_, at| now - *at < UNAUTHORIZED_TTL);
    store.unauthorized_cache.contains_key(url)
}

/// Whether the user of a key is a member (not an owner or admin) of the workspace.
fn is_member(app: &App, user_id: &str) -> bool {
    app.store()
        .workspace()
        .user(user_id)
        .and_then(|u| u.json.get("role").and_then(serde_json::Value::as_str))
        == Some("member")
}

/// Requires `Service-Api-Version: 2026-03-30` on header-versioned routes.
pub(crate) async fn require_version(State(app): State<App>, req: Request, next: Next) -> Response {
    // Fault hv-write-version-unchecked: the check sits in the read middleware only.
    let write_unchecked = app.switches().faults.has(Fault::HvWriteVersionUnchecked)
        && req.method() != axum::http::Method::GET;
    // Fault organization-outside-version-layer: the route is mounted outside this middleware.
    let outside = app
        .switches()
        .faults
        .has(Fault::OrganizationOutsideVersionLayer)
        && req.uri().path() == "/organization";
    // Fault version-check-skipped-with-page-token: a continuation passes with its walk's version.
    let continuation = app
        .switches()
        .faults
        .has(Fault::VersionCheckSkippedWithPageToken)
        && req.uri().query().is_some_and(|q| {
            form_urlencoded::parse(q.as_bytes()).any(|(name, _)| name == "pageToken")
        });
    if !app.switches().faults.has(Fault::VersionHeaderIgnored)
        && !write_unchecked
        && !outside
        && !continuation
    {
        // Fault version-header-alias-pin-header: the alias table also names the pinning header.
        let sent = req.headers().get(VERSION_HEADER).or_else(|| {
            app.switches()
                .faults
                .has(Fault::VersionHeaderAliasPinHeader)
                .then(|| req.headers().get(PIN_HEADER))
                .flatten()
        });
        let lenient = (sent.is_some()
            && app.switches().faults.has(Fault::CallsVersionUnchecked)
            && is_call_path(req.uri().path()))
            || (sent.is_none() && app.switches().faults.has(Fault::VersionHeaderOptional))
            // Fault version-header-empty-defaults-latest: an empty value is falsy.
            || (sent.is_some_and(|v| v.is_empty())
                && app
                    .switches()
                    .faults
                    .has(Fault::VersionHeaderEmptyDefaultsLatest))
            || (app.switches().faults.has(Fault::VersionLaterDateAccepted)
                && sent.is_some_and(|v| later_version_date(v.as_bytes())))
            // Fault version-header-prefix-compared: `starts_with` where equality is meant.
            || (app.switches().faults.has(Fault::VersionHeaderPrefixCompared)
                && sent.is_some_and(|v| v.as_bytes().starts_with(API_VERSION.as_bytes())))
            // Fault version-header-lenient-date-parse: any spelling of the version's date.
            || (app.switches().faults.has(Fault::VersionHeaderLenientDateParse)
                && sent.is_some_and(|v| version_date(v.as_bytes())));
        if !lenient && sent.map(|v| v.as_bytes()) != Some(API_VERSION.as_bytes()) {
            let message = match sent {
                None => format!(
                    "header Service-Api-Version is required; the supported version is {API_VERSION}"
                ),
                Some(v) => format!(
                    "header Service-Api-Version '{}' is not supported; the supported version is {API_VERSION}",
                    String::from_utf8_lossy(v.as_bytes())
                ),
            };
            let status = if app.switches().variant(Variant::VersionError406) {
                StatusCode::NOT_ACCEPTABLE
            } else {
                StatusCode::BAD_REQUEST
            };
            // Fault version-error-v1-shape: the refusal built with the v1 error helper.
            let shaped = if app.switches().faults.has(Fault::VersionErrorV1Shape) {
                "/v1"
            } else {
                req.uri().path()
            };
            return ApiError::for_path(shaped, status, message).render(app.switches());
        }
    }
    next.run(req).await
}

/// Fault version-header-lenient-date-parse: whether a lenient date parser reads the version's
/// date in what was sent.
fn version_date(sent: &[u8]) -> bool {
    lenient_date(sent).is_some_and(|d| Some(d) == lenient_date(API_VERSION.as_bytes()))
}

/// The (year, month, day) a lenient date parser reads:
/// three runs of digits between separators (`2026/03/30`, `2026-3-30`), or eight digits in a row
/// (`20260330`).
fn lenient_date(sent: &[u8]) -> Option<(u32, u32, u32)> {
    let text = std::str::from_utf8(sent).ok()?;
    if !text
        .chars()
        .all(|c| c.is_ascii_digit() || "-/. ".contains(c))
    {
        return None;
    }
    let runs: Vec<&str> = text
        .split(|c: char| !c.is_ascii_digit())
        .filter(|r| !r.is_empty())
        .collect();
    let parts: Vec<&str> = match runs.as_slice() {
        [all] if all.len() == 8 => vec![&all[..4], &all[4..6], &all[6..]],
        [y, m, d] if y.len() == 4 => vec![*y, *m, *d],
        _ => return None,
    };
    let number = |s: &str| s.parse::<u32>().ok();
    Some((number(parts[0])?, number(parts[1])?, number(parts[2])?))
}

/// Fault version-later-date-accepted: a version is resolved as the newest one released on or
/// before the date sent, so any well-formed date after 2026-03-30 selects it.
fn later_version_date(sent: &[u8]) -> bool {
    let format = time::macros::format_description!("[year]-[month]-[day]");
    let parse = |b: &[u8]| {
        std::str::from_utf8(b)
            .ok()
            .and_then(|s| time::Date::parse(s, &format).ok())
    };
    match (parse(sent), parse(API_VERSION.as_bytes())) {
        (Some(asked), Some(current)) => asked >= current,
        _ => false,
    }
}
