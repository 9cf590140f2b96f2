//! Organizations, API keys, users and phone numbers; the routes that read them
//! (users, phone numbers, organization). OWNER: core.

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::Router;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use serde_json::{Value, json};

use crate::app::App;
use crate::auth::{self, Caller};
use crate::errors;
use crate::paging::{self, CollectionSpec, Field, FieldKind};

// ---------------------------------------------------------------------------------------------
// Seeded ids (the rest after the stated prefix is opaque).

/// The primary workspace: the certifier's own key, users and numbers.
pub const PRIMARY_ORG: &str = "ORq7Lm2Xv9";
/// A workspace whose international messaging is disabled.
pub const INTL_DISABLED_ORG: &str = "ORn4Ht8Wc3";
/// A workspace whose subscription has expired.
pub const EXPIRED_ORG: &str = "ORb6Ks1Pz5";

/// The owner of the primary workspace (user of `PRIMARY_KEY`), a user of `MAIN_NUMBER`.
pub const OWNER_USER: &str = "USa1Fq9Ke2Lt";
/// A member of the primary workspace, a user of `MAIN_NUMBER`.
pub const MEMBER_USER: &str = "USb7Rw3Nd8Vy";
/// A member of the primary workspace who is not a user of `MAIN_NUMBER` (a user of `SECOND_NUMBER`).
pub const RESTRICTED_USER: &str = "USc4Jm6Tx1Gp";
/// An admin of the primary workspace on no number at all.
pub const ADMIN_USER: &str = "USd9Vb2Qs7Hn";
/// The owner of the international-disabled workspace.
pub const INTL_DISABLED_USER: &str = "USe3Zc8Lw4Mk";
/// The owner of the expired workspace.
pub const EXPIRED_USER: &str = "USf5Py1Gr6Dj";

/// The primary workspace's main number (the certifier sends from it).
pub const MAIN_NUMBER: &str = "PNm2Wq7Rk4Xa";
/// E.164 of `MAIN_NUMBER`.
pub const MAIN_E164: &str = "+14155550142";
/// A second number of the primary workspace (users: `OWNER_USER`, `RESTRICTED_USER`).
pub const SECOND_NUMBER: &str = "PNs8Td3Hv6Qe";
/// E.164 of `SECOND_NUMBER`.
pub const SECOND_E164: &str = "+14155550187";
/// A primary-workspace number whose A2P 10DLC registration is not approved.
pub const A2P_UNAPPROVED_NUMBER: &str = "PNu5Lc9Bn2Wf";
/// E.164 of `A2P_UNAPPROVED_NUMBER`.
pub const A2P_UNAPPROVED_E164: &str = "+16285550119";
/// A primary-workspace number that has reached its daily A2P 10DLC cap.
pub const A2P_CAPPED_NUMBER: &str = "PNc1Xk4Js8Rb";
/// E.164 of `A2P_CAPPED_NUMBER`.
pub const A2P_CAPPED_E164: &str = "+16285550173";
/// The international-disabled workspace's number.
pub const INTL_DISABLED_NUMBER: &str = "PNi6Dg2Fm9Yt";
/// E.164 of `INTL_DISABLED_NUMBER`.
pub const INTL_DISABLED_E164: &str = "+13125550166";
/// The expired workspace's number.
pub const EXPIRED_NUMBER: &str = "PNx3Ve7Cq1Nz";
/// E.164 of `EXPIRED_NUMBER`.
pub const EXPIRED_E164: &str = "+12065550138";

/// API key of `OWNER_USER` (primary workspace).
pub const PRIMARY_KEY: &str = "sk_live_2f9c41d7e08a4b6c93e15a7d0b8f62c4";
/// API key of `RESTRICTED_USER` (primary workspace, not on `MAIN_NUMBER`).
pub const RESTRICTED_KEY: &str = "sk_live_7b03e8a1c65d4f29b1e7c04a9d3f58e6";
/// API key of `INTL_DISABLED_USER`.
pub const INTL_DISABLED_KEY: &str = "sk_live_c4e62a9f1b7d40e8a35c9f0d7e2b614a";
/// API key of `EXPIRED_USER`.
pub const EXPIRED_KEY: &str = "sk_live_9a1d5e3c7f2b4806bd4e1a6c8f03d7b9";

// ---------------------------------------------------------------------------------------------
// Types.

/// An organization (workspace).
#[derive(Debug, Clone)]
pub struct Org {
    pub id: String,
    pub name: String,
    pub international_messaging: bool,
    pub subscription_active: bool,
    pub created_at: String,
    pub updated_at: String,
}

/// A user of an organization.
#[derive(Debug, Clone)]
pub struct User {
    pub id: String,
    pub org_id: String,
    pub email: String,
    pub first_name: String,
    pub last_name: String,
    pub role: String,
    pub picture_url: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

/// The A2P 10DLC state of a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum A2p {
    Approved,
    NotApproved,
    CapReached,
}

/// A phone number of an organization.
#[derive(Debug, Clone)]
pub struct PhoneNumber {
    pub id: String,
    pub org_id: String,
    pub number: String,
    pub name: String,
    pub user_ids: Vec<String>,
    pub a2p: A2p,
    pub created_at: String,
    pub updated_at: String,
}

/// An API key: its workspace and user.
#[derive(Debug, Clone)]
pub struct ApiKey {
    pub org_id: String,
    pub user_id: String,
}

/// The directory of the instance (seeded, read-only).
pub struct Directory {
    orgs: Vec<Org>,
    users: Vec<User>,
    numbers: Vec<PhoneNumber>,
    keys: BTreeMap<String, ApiKey>,
}

fn org(id: &str, name: &str, intl: bool, active: bool, created: &str, updated: &str) -> Org {
    Org {
        id: id.into(),
        name: name.into(),
        international_messaging: intl,
        subscription_active: active,
        created_at: created.into(),
        updated_at: updated.into(),
    }
}

#[allow(clippy::too_many_arguments)]
fn user(
    id: &str,
    org_id: &str,
    email: &str,
    first: &str,
    last: &str,
    role: &str,
    picture: Option<&str>,
    created: &str,
    updated: &str,
) -> User {
    User {
        id: id.into(),
        org_id: org_id.into(),
        email: email.into(),
        first_name: first.into(),
        last_name: last.into(),
        role: role.into(),
        picture_url: picture.map(str::to_string),
        created_at: created.into(),
        updated_at: updated.into(),
    }
}

#[allow(clippy::too_many_arguments)]
fn number(
    id: &str,
    org_id: &str,
    e164: &str,
    name: &str,
    users: &[&str],
    a2p: A2p,
    created: &str,
    updated: &str,
) -> PhoneNumber {
    PhoneNumber {
        id: id.into(),
        org_id: org_id.into(),
        number: e164.into(),
        name: name.into(),
        user_ids: users.iter().map(|u| u.to_string()).collect(),
        a2p,
        created_at: created.into(),
        updated_at: updated.into(),
    }
}

impl Directory {
    /// The seeded directory.
    pub fn seeded() -> Directory {
        let orgs = vec![
            org(
                PRIMARY_ORG,
                "Harborview Dental Group",
                true,
                true,
                "2023-02-14T16:03:11.482Z",
                "2025-11-03T09:41:27.115Z",
            ),
            org(
                INTL_DISABLED_ORG,
                "Lakeshore Property Management",
                false,
                true,
                "2023-09-05T13:22:48.901Z",
                "2025-10-19T18:07:02.334Z",
            ),
            org(
                EXPIRED_ORG,
                "Cedar Ridge Landscaping",
                true,
                false,
                "2022-06-21T10:15:37.250Z",
                "2025-08-31T23:59:59.000Z",
            ),
        ];
        let users = vec![
            user(
                OWNER_USER,
                PRIMARY_ORG,
                "maya.okafor@harborview-dental.example",
                "Maya",
                "Okafor",
                "owner",
                Some("https://cdn.second.example/avatars/USa1Fq9Ke2Lt.png"),
                "2023-02-14T16:03:11.482Z",
                "2025-09-12T08:30:00.000Z",
            ),
            user(
                MEMBER_USER,
                PRIMARY_ORG,
                "tomas.lindqvist@harborview-dental.example",
                "Tomas",
                "Lindqvist",
                "member",
                None,
                "2023-03-01T12:44:09.017Z",
                "2025-06-02T15:11:45.620Z",
            ),
            user(
                RESTRICTED_USER,
                PRIMARY_ORG,
                "priya.raman@harborview-dental.example",
                "Priya",
                "Raman",
                "member",
                Some("https://cdn.second.example/avatars/USc4Jm6Tx1Gp.png"),
                "2023-05-18T09:05:52.773Z",
                "2025-04-27T17:20:13.004Z",
            ),
            user(
                ADMIN_USER,
                PRIMARY_ORG,
                "diego.alvarez@harborview-dental.example",
                "Diego",
                "Alvarez",
                "admin",
                None,
                "2024-01-08T14:36:21.388Z",
                "2025-10-30T11:02:58.947Z",
            ),
            user(
                INTL_DISABLED_USER,
                INTL_DISABLED_ORG,
                "hana.kowalski@lakeshore-pm.example",
                "Hana",
                "Kowalski",
                "owner",
                None,
                "2023-09-05T13:22:48.901Z",
                "2025-07-14T07:50:36.212Z",
            ),
            user(
                EXPIRED_USER,
                EXPIRED_ORG,
                "owen.mbeki@cedarridge-landscaping.example",
                "Owen",
                "Mbeki",
                "owner",
                None,
                "2022-06-21T10:15:37.250Z",
                "2025-03-09T19:28:44.581Z",
            ),
        ];
        let numbers = vec![
            number(
                MAIN_NUMBER,
                PRIMARY_ORG,
                MAIN_E164,
                "Front Desk",
                &[OWNER_USER, MEMBER_USER],
                A2p::Approved,
                "2023-02-14T16:10:02.000Z",
                "2025-09-12T08:31:17.402Z",
            ),
            number(
                SECOND_NUMBER,
                PRIMARY_ORG,
                SECOND_E164,
                "Billing",
                &[OWNER_USER, RESTRICTED_USER],
                A2p::Approved,
                "2023-05-18T09:12:40.118Z",
                "2025-04-27T17:21:03.559Z",
            ),
            number(
                A2P_UNAPPROVED_NUMBER,
                PRIMARY_ORG,
                A2P_UNAPPROVED_E164,
                "Recall Reminders",
                &[OWNER_USER],
                A2p::NotApproved,
                "2024-03-11T10:00:00.000Z",
                "2025-02-01T12:00:00.000Z",
            ),
            number(
                A2P_CAPPED_NUMBER,
                PRIMARY_ORG,
                A2P_CAPPED_E164,
                "Promotions",
                &[OWNER_USER],
                A2p::CapReached,
                "2024-03-11T10:05:00.000Z",
                "2025-10-01T06:15:30.800Z",
            ),
            number(
                INTL_DISABLED_NUMBER,
                INTL_DISABLED_ORG,
                INTL_DISABLED_E164,
                "Leasing Office",
                &[INTL_DISABLED_USER],
                A2p::Approved,
                "2023-09-05T13:30:00.000Z",
                "2025-07-14T07:51:00.000Z",
            ),
            number(
                EXPIRED_NUMBER,
                EXPIRED_ORG,
                EXPIRED_E164,
                "Main Line",
                &[EXPIRED_USER],
                A2p::Approved,
                "2022-06-21T10:20:00.000Z",
                "2025-03-09T19:30:00.000Z",
            ),
        ];
        let keys = [
            (PRIMARY_KEY, PRIMARY_ORG, OWNER_USER),
            (RESTRICTED_KEY, PRIMARY_ORG, RESTRICTED_USER),
            (INTL_DISABLED_KEY, INTL_DISABLED_ORG, INTL_DISABLED_USER),
            (EXPIRED_KEY, EXPIRED_ORG, EXPIRED_USER),
        ]
        .iter()
        .map(|(k, o, u)| {
            (
                k.to_string(),
                ApiKey {
                    org_id: o.to_string(),
                    user_id: u.to_string(),
                },
            )
        })
        .collect();
        Directory {
            orgs,
            users,
            numbers,
            keys,
        }
    }

    /// The key's record, for an exact match.
    pub fn key(&self, key: &str) -> Option<&ApiKey> {
        self.keys.get(key)
    }

    /// The record of a key whose first `n` characters equal those of `key` (an injected fault:
    /// keys compared on a prefix only).
    pub fn key_by_prefix(&self, key: &str, n: usize) -> Option<&ApiKey> {
        let head = key.get(..n)?;
        self.keys
            .iter()
            .find(|(k, _)| k.get(..n) == Some(head))
            .map(|(_, v)| v)
    }

    /// An organization by id.
    pub fn org(&self, id: &str) -> Option<&Org> {
        self.orgs.iter().find(|o| o.id == id)
    }

    /// A user by id (any organization).
    pub fn user(&self, id: &str) -> Option<&User> {
        self.users.iter().find(|u| u.id == id)
    }

    /// A phone number by id (any organization).
    pub fn number(&self, id: &str) -> Option<&PhoneNumber> {
        self.numbers.iter().find(|n| n.id == id)
    }

    /// A phone number by its E.164 number (any organization).
    pub fn number_by_e164(&self, e164: &str) -> Option<&PhoneNumber> {
        self.numbers.iter().find(|n| n.number == e164)
    }

    /// The numbers of an organization, in seeding order (oldest first).
    pub fn numbers_of_org(&self, org_id: &str) -> Vec<&PhoneNumber> {
        self.numbers.iter().filter(|n| n.org_id == org_id).collect()
    }

    /// The users of an organization, in seeding order (oldest first).
    pub fn users_of_org(&self, org_id: &str) -> Vec<&User> {
        self.users.iter().filter(|u| u.org_id == org_id).collect()
    }

    /// Whether the user is one of the number's users.
    pub fn user_on_number(&self, user_id: &str, number_id: &str) -> bool {
        self.number(number_id)
            .map(|n| n.user_ids.iter().any(|u| u == user_id))
            .unwrap_or(false)
    }

    /// Whether a user of the org is an owner or admin (sees every number of the workspace).
    pub fn is_admin(&self, user_id: &str) -> bool {
        self.user(user_id)
            .map(|u| u.role == "owner" || u.role == "admin")
            .unwrap_or(false)
    }
}

// ---------------------------------------------------------------------------------------------
// Visibility.

impl Directory {
    /// The numbers the caller may see: every number of the workspace for an owner or admin,
    /// the numbers the caller is a user of for a member.
    pub fn visible_numbers(&self, caller: &Caller) -> Vec<&PhoneNumber> {
        let all = self.is_admin(&caller.user_id);
        self.numbers_of_org(&caller.org_id)
            .into_iter()
            .filter(|n| all || n.user_ids.contains(&caller.user_id))
            .collect()
    }

    /// Whether the caller may see the number (of its workspace, and visible to its role).
    pub fn number_visible(&self, caller: &Caller, number_id: &str) -> bool {
        match self.number(number_id) {
            Some(n) if n.org_id == caller.org_id => {
                self.is_admin(&caller.user_id) || n.user_ids.contains(&caller.user_id)
            }
            _ => false,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rendering.

/// A user as both generations render it.
pub fn user_json(u: &User) -> Value {
    json!({
        "id": u.id,
        "email": u.email,
        "firstName": u.first_name,
        "lastName": u.last_name,
        "pictureUrl": u.picture_url,
        "role": u.role,
        "createdAt": u.created_at,
        "updatedAt": u.updated_at,
    })
}

/// `(415) 555-0142` for a NANP number, the E.164 itself otherwise.
pub fn formatted(e164: &str) -> String {
    let d = e164.trim_start_matches('+');
    if d.len() == 11 && d.starts_with('1') {
        format!("({}) {}-{}", &d[1..4], &d[4..7], &d[7..])
    } else {
        e164.to_string()
    }
}

/// The ISO country of an E.164 number among the ones this service holds.
fn country_of(e164: &str) -> &'static str {
    if e164.starts_with("+44") {
        "GB"
    } else if ["+1604", "+1416", "+1514"]
        .iter()
        .any(|p| e164.starts_with(p))
    {
        "CA"
    } else {
        "US"
    }
}

fn restrictions(dir: &Directory, n: &PhoneNumber) -> Value {
    let org = dir.org(&n.org_id);
    let active = org.map(|o| o.subscription_active).unwrap_or(false);
    let intl = org.map(|o| o.international_messaging).unwrap_or(false);
    let state = |ok: bool| if ok { "unrestricted" } else { "restricted" };
    let a2p = match n.a2p {
        A2p::Approved => "approved",
        A2p::NotApproved => "not-approved",
        A2p::CapReached => "daily-cap-reached",
    };
    json!({
        "messaging": {
            "domestic": state(active && n.a2p == A2p::Approved),
            "international": state(active && intl && n.a2p == A2p::Approved),
            "a2p10dlc": a2p,
        },
        "calling": {
            "domestic": state(active),
            "international": state(active),
        },
    })
}

/// A phone number as the header-versioned API renders it (`phoneNumber`, not `number`; no
/// users: they come from `/phone-numbers/{id}/users`).
pub fn number_json(dir: &Directory, n: &PhoneNumber, with_restrictions: bool) -> Value {
    let mut v = json!({
        "id": n.id,
        "orgId": n.org_id,
        "name": n.name,
        "phoneNumber": n.number,
        "formattedNumber": formatted(&n.number),
        "country": country_of(&n.number),
        "type": "local",
        "createdAt": n.created_at,
        "updatedAt": n.updated_at,
    });
    if let (true, Some(o)) = (with_restrictions, v.as_object_mut()) {
        o.insert("restrictions".into(), restrictions(dir, n));
    }
    v
}

fn org_json(o: &Org) -> Value {
    json!({
        "id": o.id,
        "name": o.name,
        "subscriptionStatus": if o.subscription_active { "active" } else { "expired" },
        "internationalMessaging": if o.international_messaging { "enabled" } else { "disabled" },
        "createdAt": o.created_at,
        "updatedAt": o.updated_at,
    })
}

// ---------------------------------------------------------------------------------------------
// Request helpers.

fn bad(message: impl Into<String>) -> Response {
    errors::latest(StatusCode::BAD_REQUEST, "Bad Request", message)
}

fn forbidden(message: impl Into<String>) -> Response {
    errors::latest(StatusCode::FORBIDDEN, "Forbidden", message)
}

fn not_found(message: impl Into<String>) -> Response {
    errors::latest(StatusCode::NOT_FOUND, "Not Found", message)
}

fn ok(body: Value) -> Response {
    errors::json_response(StatusCode::OK, &body)
}

/// The one path parameter, or a 400 in the latest shape.
fn path_param(p: Result<Path<String>, PathRejection>) -> Result<String, Response> {
    match p {
        Ok(Path(s)) => Ok(s),
        Err(_) => Err(bad("The path parameter is not valid UTF-8 text")),
    }
}

/// Checks an id's stated prefix (and a sane length).
fn check_id(name: &str, id: &str, prefix: &str) -> Result<(), String> {
    if !id.starts_with(prefix) || id.len() > 128 || id.chars().any(char::is_control) {
        return Err(format!(
            "Path parameter `{name}` must match the pattern ^{prefix}(.*)$ (at most 128 characters); got `{id}`"
        ));
    }
    Ok(())
}

/// Refuses every query parameter of an endpoint that takes none but `allowed`.
fn only_params(params: &[(String, String)], allowed: &[&str]) -> Result<(), String> {
    let mut seen: Vec<&str> = Vec::new();
    for (k, _) in params {
        if !allowed.contains(&k.as_str()) {
            return Err(if allowed.is_empty() {
                format!("Unknown query parameter `{k}`: this endpoint takes no query parameters")
            } else {
                format!(
                    "Unknown query parameter `{k}`; accepted: {}",
                    allowed.join(", ")
                )
            });
        }
        if seen.contains(&k.as_str()) {
            return Err(format!("Query parameter `{k}` is given more than once"));
        }
        seen.push(k);
    }
    Ok(())
}

/// `include`: a comma-separated set whose only member is `restrictions`. Ok(true) when given.
fn include_restrictions(params: &[(String, String)]) -> Result<bool, String> {
    let Some((_, v)) = params.iter().find(|(k, _)| k == "include") else {
        return Ok(false);
    };
    let mut any = false;
    for part in v.split(',') {
        match part.trim() {
            "restrictions" => any = true,
            other => {
                return Err(format!(
                    "`include` accepts only `restrictions`; got `{other}`"
                ));
            }
        }
    }
    Ok(any)
}

const USER_FILTERS: &[Field] = &[
    Field {
        name: "email",
        kind: FieldKind::Text,
    },
    Field {
        name: "firstName",
        kind: FieldKind::Text,
    },
    Field {
        name: "lastName",
        kind: FieldKind::Text,
    },
    Field {
        name: "role",
        kind: FieldKind::Enum(&["owner", "admin", "member"]),
    },
    Field {
        name: "createdAt",
        kind: FieldKind::Time,
    },
    Field {
        name: "updatedAt",
        kind: FieldKind::Time,
    },
];

const USERS: CollectionSpec = CollectionSpec {
    filters: USER_FILTERS,
    sortable: &["createdAt", "updatedAt", "email", "firstName", "lastName"],
    default_sort: ("createdAt", false),
    default_max: 20,
    max: 50,
};

const NUMBER_FILTERS: &[Field] = &[
    Field {
        name: "phoneNumber",
        kind: FieldKind::Phone,
    },
    Field {
        name: "name",
        kind: FieldKind::Text,
    },
    Field {
        name: "createdAt",
        kind: FieldKind::Time,
    },
    Field {
        name: "updatedAt",
        kind: FieldKind::Time,
    },
];

const NUMBERS: CollectionSpec = CollectionSpec {
    filters: NUMBER_FILTERS,
    sortable: &["createdAt", "updatedAt", "name", "phoneNumber"],
    default_sort: ("createdAt", false),
    default_max: 20,
    max: 50,
};

fn list(
    spec: &CollectionSpec,
    params: &[(String, String)],
    extra: &[&str],
    items: Vec<Value>,
) -> Response {
    let q = match paging::parse_list_query(params, spec, extra) {
        Ok(q) => q,
        Err(m) => return bad(m),
    };
    match q.apply(items) {
        Ok(body) => ok(body),
        Err(m) => bad(m),
    }
}

// ---------------------------------------------------------------------------------------------
// Handlers.

/// GET /v1/users/{userId}
async fn v1_get_user(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let Some(caller) = auth::authenticate(&app, &headers) else {
        let code = if app.faults.on("b16-users-v1-401-calls-code") {
            "0100401"
        } else {
            "1100401"
        };
        return errors::v1(
            StatusCode::UNAUTHORIZED,
            code,
            "Unauthorized",
            "Missing or invalid API key in the Authorization header",
        );
    };
    let bad_v1 = |m: String, errs: Vec<Value>| {
        errors::v1_errors(StatusCode::BAD_REQUEST, "1100400", "Bad Request", m, errs)
    };
    let Ok(Path(id)) = p else {
        return bad_v1(
            "The path parameter `userId` is not valid UTF-8 text".into(),
            Vec::new(),
        );
    };
    let params = paging::parse_query(query.as_deref());
    if let Err(m) = only_params(&params, &[]) {
        return bad_v1(m, Vec::new());
    }
    if let Err(m) = check_id("userId", &id, "US") {
        let item = errors::error_item(
            "/userId",
            &m,
            Value::String(id.clone()),
            "string",
            Some("^US(.*)$"),
        );
        return bad_v1(m, vec![item]);
    }
    match app.directory.user(&id) {
        None => errors::v1(
            StatusCode::NOT_FOUND,
            "1100404",
            "Not Found",
            format!("No user with id `{id}`"),
        ),
        Some(u) if u.org_id != caller.org_id => errors::v1(
            StatusCode::FORBIDDEN,
            "1100403",
            "Forbidden",
            format!("User `{id}` is not a member of your workspace"),
        ),
        Some(u) => ok(json!({ "data": user_json(u) })),
    }
}

/// GET /users
async fn list_users(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let params = paging::parse_query(query.as_deref());
    let items = app
        .directory
        .users_of_org(&caller.org_id)
        .into_iter()
        .map(user_json)
        .collect();
    if app.faults.on("b16-users-list-page-repeats") {
        let q = match paging::parse_list_query(&params, &USERS, &[]) {
            Ok(q) => q,
            Err(m) => return bad(m),
        };
        return match q.apply_opts(items, true) {
            Ok(body) => ok(body),
            Err(m) => bad(m),
        };
    }
    list(&USERS, &params, &[], items)
}

/// The user of the caller's workspace named by the path, or the error answer.
fn user_for<'a>(dir: &'a Directory, caller: &Caller, id: &str) -> Result<&'a User, Response> {
    check_id("userId", id, "US").map_err(bad)?;
    match dir.user(id) {
        None => Err(not_found(format!("No user with id `{id}`"))),
        Some(u) if u.org_id != caller.org_id => Err(forbidden(format!(
            "User `{id}` is not a member of your workspace"
        ))),
        Some(u) => Ok(u),
    }
}

/// The number of the caller's workspace named by the path (visible to the caller), or the error.
fn number_for<'a>(
    dir: &'a Directory,
    caller: &Caller,
    id: &str,
) -> Result<&'a PhoneNumber, Response> {
    check_id("phoneNumberId", id, "PN").map_err(bad)?;
    match dir.number(id) {
        None => Err(not_found(format!("No phone number with id `{id}`"))),
        Some(n) if n.org_id != caller.org_id => Err(forbidden(format!(
            "Phone number `{id}` is not a number of your workspace"
        ))),
        Some(_) if !dir.number_visible(caller, id) => Err(forbidden(format!(
            "You are not a user of phone number `{id}`; only its users and workspace admins can read it"
        ))),
        Some(n) => Ok(n),
    }
}

/// GET /users/{userId}
async fn get_user(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match path_param(p) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let params = paging::parse_query(query.as_deref());
    if let Err(m) = only_params(&params, &[]) {
        return bad(m);
    }
    match user_for(&app.directory, &caller, &id) {
        Ok(u) => ok(json!({ "data": user_json(u) })),
        Err(r) => r,
    }
}

/// GET /users/{userId}/phone-numbers
async fn user_numbers(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match path_param(p) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let params = paging::parse_query(query.as_deref());
    let restr = match include_restrictions(&params) {
        Ok(b) => b,
        Err(m) => return bad(m),
    };
    let user = match user_for(&app.directory, &caller, &id) {
        Ok(u) => u,
        Err(r) => return r,
    };
    let dir = &app.directory;
    let items = dir
        .visible_numbers(&caller)
        .into_iter()
        .filter(|n| n.user_ids.contains(&user.id))
        .map(|n| number_json(dir, n, restr))
        .collect();
    list(&NUMBERS, &params, &["include"], items)
}

/// GET /phone-numbers
async fn list_numbers(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let params = paging::parse_query(query.as_deref());
    let restr = match include_restrictions(&params) {
        Ok(b) => b,
        Err(m) => return bad(m),
    };
    let dir = &app.directory;
    let items = dir
        .visible_numbers(&caller)
        .into_iter()
        .map(|n| number_json(dir, n, restr))
        .collect();
    if app.faults.on("b16-phone-numbers-e164-filter-ignored") {
        // The filter is read, then left out of the query that lists.
        let rest: Vec<(String, String)> = params
            .iter()
            .filter(|(k, _)| k != "phoneNumber")
            .cloned()
            .collect();
        return list(&NUMBERS, &rest, &["include"], items);
    }
    list(&NUMBERS, &params, &["include"], items)
}

/// GET /phone-numbers/{phoneNumberId}
async fn get_number(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match path_param(p) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let params = paging::parse_query(query.as_deref());
    if let Err(m) = only_params(&params, &["include"]) {
        return bad(m);
    }
    let restr = match include_restrictions(&params) {
        Ok(b) => b,
        Err(m) => return bad(m),
    };
    match number_for(&app.directory, &caller, &id) {
        Ok(n) => {
            let mut v = number_json(&app.directory, n, restr);
            if app.faults.on("b16-phone-numbers-get-number-field") {
                if let Some(o) = v.as_object_mut() {
                    if let Some(p) = o.remove("phoneNumber") {
                        o.insert("number".into(), p);
                    }
                }
            }
            ok(json!({ "data": v }))
        }
        Err(r) => r,
    }
}

/// GET /phone-numbers/{phoneNumberId}/users
async fn number_users(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
    p: Result<Path<String>, PathRejection>,
) -> Response {
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let id = match path_param(p) {
        Ok(id) => id,
        Err(r) => return r,
    };
    let params = paging::parse_query(query.as_deref());
    let dir = &app.directory;
    let n = match number_for(dir, &caller, &id) {
        Ok(n) => n,
        Err(r) => return r,
    };
    let items = n
        .user_ids
        .iter()
        .filter_map(|u| dir.user(u))
        .map(user_json)
        .collect();
    list(&USERS, &params, &[], items)
}

/// GET /organization
async fn organization(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    let caller = match auth::latest_guard(&app, &headers) {
        Ok(c) => c,
        Err(r) => return r,
    };
    let params = paging::parse_query(query.as_deref());
    if let Err(m) = only_params(&params, &[]) {
        return bad(m);
    }
    match app.directory.org(&caller.org_id) {
        Some(o) => {
            let mut v = org_json(o);
            if app.faults.on("b16-organization-id-without-prefix") {
                if let Some(m) = v.as_object_mut() {
                    m.insert("id".into(), json!(o.id.strip_prefix("OR").unwrap_or(&o.id)));
                }
            }
            ok(json!({ "data": v }))
        }
        None => errors::latest(
            StatusCode::INTERNAL_SERVER_ERROR,
            "Unknown Error",
            "The workspace of this key is missing",
        ),
    }
}

// ---------------------------------------------------------------------------------------------
// Available numbers (search only: nothing is bought).

/// One number of the inventory.
struct Available {
    e164: String,
    country: &'static str,
    region: Option<&'static str>,
    city: Option<&'static str>,
    area_code: &'static str,
    toll_free: bool,
}

/// The inventory offered for purchase (deterministic), without numbers any workspace holds.
fn inventory(dir: &Directory) -> Vec<Available> {
    // (country, calling code, area code, city, region, toll-free, national subscriber prefix)
    type Block = (
        &'static str,
        &'static str,
        &'static str,
        Option<&'static str>,
        Option<&'static str>,
        bool,
        &'static str,
    );
    const BLOCKS: &[Block] = &[
        (
            "US",
            "1",
            "415",
            Some("San Francisco"),
            Some("CA"),
            false,
            "55501",
        ),
        (
            "US",
            "1",
            "212",
            Some("New York"),
            Some("NY"),
            false,
            "55501",
        ),
        ("US", "1", "512", Some("Austin"), Some("TX"), false, "55501"),
        ("US", "1", "617", Some("Boston"), Some("MA"), false, "55501"),
        (
            "US",
            "1",
            "206",
            Some("Seattle"),
            Some("WA"),
            false,
            "55501",
        ),
        ("US", "1", "303", Some("Denver"), Some("CO"), false, "55501"),
        ("US", "1", "800", None, None, true, "55501"),
        ("US", "1", "833", None, None, true, "55501"),
        ("US", "1", "888", None, None, true, "55501"),
        (
            "CA",
            "1",
            "604",
            Some("Vancouver"),
            Some("BC"),
            false,
            "55501",
        ),
        (
            "CA",
            "1",
            "416",
            Some("Toronto"),
            Some("ON"),
            false,
            "55501",
        ),
        (
            "CA",
            "1",
            "514",
            Some("Montreal"),
            Some("QC"),
            false,
            "55501",
        ),
        ("CA", "1", "844", None, None, true, "55501"),
        (
            "GB",
            "44",
            "20",
            Some("London"),
            Some("England"),
            false,
            "794600",
        ),
        (
            "GB",
            "44",
            "161",
            Some("Manchester"),
            Some("England"),
            false,
            "49600",
        ),
        ("GB", "44", "808", None, None, true, "15700"),
    ];
    let mut out = Vec::new();
    for (bi, (country, cc, area, city, region, toll_free, prefix)) in BLOCKS.iter().enumerate() {
        for i in 0..7usize {
            let last2 = (13 + i * 11 + bi * 3) % 100;
            let e164 = format!("+{cc}{area}{prefix}{last2:02}");
            if dir.number_by_e164(&e164).is_some() || !paging::is_e164(&e164) {
                continue;
            }
            out.push(Available {
                e164,
                country,
                region: *region,
                city: *city,
                area_code: area,
                toll_free: *toll_free,
            });
        }
    }
    out
}

fn available_json(a: &Available) -> Value {
    let (amount, currency) = match (a.country, a.toll_free) {
        ("GB", false) => ("1.25", "GBP"),
        ("GB", true) => ("4.00", "GBP"),
        (_, true) => ("2.00", "USD"),
        _ => ("1.15", "USD"),
    };
    json!({
        "phoneNumber": a.e164,
        "formattedNumber": formatted(&a.e164),
        "country": a.country,
        "region": a.region,
        "city": a.city,
        "areaCode": a.area_code,
        "type": if a.toll_free { "tollFree" } else { "local" },
        "capabilities": { "voice": true, "sms": a.country != "GB" || !a.toll_free, "mms": a.country != "GB" },
        "monthlyPrice": { "amount": amount, "currency": currency },
    })
}

/// GET /phone-numbers/available
async fn available(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    RawQuery(query): RawQuery,
) -> Response {
    if let Err(r) = auth::latest_guard(&app, &headers) {
        return r;
    }
    let params = paging::parse_query(query.as_deref());
    if let Err(m) = only_params(
        &params,
        &[
            "country",
            "areaCode",
            "city",
            "region",
            "contains",
            "tollFree",
            "maxResults",
            "pageToken",
        ],
    ) {
        return bad(m);
    }
    let get = |k: &str| {
        params
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.trim().to_string())
    };
    let Some(country) = get("country") else {
        return bad(
            "Query parameter `country` (ISO 3166-1 alpha-2, upper case, e.g. `US`) is required",
        );
    };
    if country.len() != 2 || !country.bytes().all(|b| b.is_ascii_uppercase()) {
        return bad(format!(
            "`country` must be an ISO 3166-1 alpha-2 code in upper case (^[A-Z]{{2}}$); got `{country}`"
        ));
    }
    let area = get("areaCode");
    if let Some(a) = &area
        && (a.is_empty() || a.len() > 5 || !a.bytes().all(|b| b.is_ascii_digit()))
    {
        return bad(format!("`areaCode` must be 1 to 5 digits; got `{a}`"));
    }
    let city = get("city");
    let region = get("region");
    for (name, v) in [("city", &city), ("region", &region)] {
        if let Some(v) = v
            && (v.is_empty() || v.chars().count() > 100)
        {
            return bad(format!("`{name}` must be 1 to 100 characters"));
        }
    }
    let contains = get("contains");
    if let Some(c) = &contains
        && (c.is_empty() || c.len() > 15 || !c.bytes().all(|b| b.is_ascii_digit()))
    {
        return bad(format!("`contains` must be 1 to 15 digits; got `{c}`"));
    }
    let toll_free = match get("tollFree").as_deref() {
        None => None,
        Some("true") => Some(true),
        Some("false") => Some(false),
        Some(other) => {
            return bad(format!(
                "`tollFree` must be `true` or `false`; got `{other}`"
            ));
        }
    };
    if toll_free == Some(true) && (city.is_some() || region.is_some()) {
        return bad(
            "`tollFree=true` cannot be combined with `city` or `region`: toll-free numbers have no locality",
        );
    }
    let max = match paging::max_results(get("maxResults").as_deref(), 10, 50) {
        Ok(m) => m,
        Err(m) => return bad(m),
    };
    let token = get("pageToken");
    if token.as_deref() == Some("") {
        return bad("pageToken must be a token from a previous nextPageToken");
    }
    let eq_ci = |a: Option<&str>, b: &Option<String>| match b {
        None => true,
        Some(b) => a.map(|a| a.eq_ignore_ascii_case(b)).unwrap_or(false),
    };
    let items: Vec<Value> = inventory(&app.directory)
        .iter()
        .filter(|a| a.country == country)
        .filter(|a| area.as_deref().map(|x| x == a.area_code).unwrap_or(true))
        .filter(|a| eq_ci(a.city, &city))
        .filter(|a| eq_ci(a.region, &region))
        .filter(|a| {
            contains
                .as_deref()
                .map(|c| a.e164[1..].contains(c))
                .unwrap_or(true)
        })
        .filter(|a| toll_free.map(|t| t == a.toll_free).unwrap_or(true))
        .map(available_json)
        .collect();
    let total = items.len();
    match paging::page(items, token.as_deref(), max) {
        Ok((page, next)) => ok(paging::list_body(page, total, next)),
        Err(()) => bad("pageToken is not a token this service issued for this query"),
    }
}

/// Routes of users, phone numbers and the organization.
pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/v1/users/{userId}", get(v1_get_user))
        .route("/users", get(list_users))
        .route("/users/{userId}", get(get_user))
        .route("/users/{userId}/phone-numbers", get(user_numbers))
        .route("/phone-numbers", get(list_numbers))
        .route("/phone-numbers/available", get(available))
        .route("/phone-numbers/{phoneNumberId}", get(get_number))
        .route("/phone-numbers/{phoneNumberId}/users", get(number_users))
        .route("/organization", get(organization))
}
