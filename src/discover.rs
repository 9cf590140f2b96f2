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

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use crate::client::{Auth, Client, Outgoing, Redactor};
use crate::contract::Api;
use crate::profile::{KNOWN_FIXTURES, PROFILE_SCHEMA, Profile, is_secret_name};

/// Bounds of one discovery: it sends at most `max_requests` requests and starts none after
/// `max_time`; each request has the client's own timeout (`--timeout`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_requests: u64,
    pub max_time: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_requests: 250,
            max_time: Duration::from_secs(60),
        }
    }
}

/// What discovery says of one fixture.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The profile given with `--profile` holds it; discovery never replaces it.
    Given,
    /// Found and verified: the value, and the requests that show it holds what it must.
    Found { value: Value, how: String },
    /// The API can show it, but this target did not: why.
    NotFound { why: String },
    /// No request can show it (`x-discovered` of the schema): why.
    Undiscoverable { why: String },
}

/// One fixture's entry in the discovery table.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub outcome: Outcome,
    /// Candidates discovery could only guess at, named and never written.
    pub guess: Option<String>,
}

/// The result of a discovery: every known fixture, and what it cost.
#[derive(Debug, Clone)]
pub struct Discovery {
    pub entries: BTreeMap<String, Entry>,
    /// The profile discovery started from (`--profile`, or empty).
    pub base: Profile,
    /// Where `base` came from, as the table and the reports name it.
    pub base_name: Option<String>,
    pub requests: u64,
    pub elapsed: Duration,
}

/// Fixtures a request can show (`x-discovered: true` in the schema); a unit test keeps the two
/// equal. Those with a condition need another fixture first (`x-discovered` says which).
pub const DISCOVERABLE: &[&str] = &[
    "user_id",
    "phone_number_id",
    "phone_number",
    "webhook_id",
    "custom_field_key",
    "custom_field_multi_key",
    "message_direction",
    "message_participant",
    "message_time_split",
    "conversation_id",
    "group_participants",
    "group_conversation_id",
    "group_superset_participants",
    "inactive_conversation_id",
    "sandbox_conversation_participant",
    "undelivered_message_id",
    "media_message_id",
    "call_id",
    "call_participant",
    "call_status",
    "voicemail_call_id",
    "summary_call_id",
    "available_number_country",
    "task_conversation_id",
    "other_phone_number_id",
];

/// `x-discovered` of a fixture in the schema: `true`, or the reason no request can show it, or
/// (for a conditional one) what it needs.
pub fn x_discovered(name: &str) -> Option<Value> {
    static SCHEMA: std::sync::LazyLock<Value> =
        std::sync::LazyLock::new(|| serde_json::from_str(PROFILE_SCHEMA).unwrap_or(Value::Null));
    SCHEMA
        .pointer(&format!(
            "/properties/fixtures/properties/{name}/x-discovered"
        ))
        .cloned()
}

fn meaning(name: &str) -> &'static str {
    KNOWN_FIXTURES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or("", |(_, d)| *d)
}

impl Discovery {
    /// The base profile with every fixture found added; a value of the base is never replaced.
    pub fn profile(&self) -> Profile {
        let mut p = self.base.clone();
        for (name, e) in &self.entries {
            if let Outcome::Found { value, .. } = &e.outcome {
                p.fixtures
                    .entry(name.clone())
                    .or_insert_with(|| value.clone());
            }
        }
        p
    }

    /// Values found, by fixture.
    pub fn found(&self) -> BTreeMap<String, Value> {
        self.entries
            .iter()
            .filter_map(|(n, e)| match &e.outcome {
                Outcome::Found { value, .. } => Some((n.clone(), value.clone())),
                _ => None,
            })
            .collect()
    }

    /// Why each fixture the profile still lacks is missing, for the ignored trials' reasons.
    pub fn missing_reasons(&self) -> BTreeMap<String, String> {
        self.entries
            .iter()
            .filter_map(|(n, e)| match &e.outcome {
                Outcome::NotFound { why } => Some((n.clone(), format!("not discovered: {why}"))),
                Outcome::Undiscoverable { why } => {
                    Some((n.clone(), format!("discovery cannot find it: {why}")))
                }
                _ => None,
            })
            .collect()
    }

    /// The source of each fixture of [`Discovery::profile`], as the reports name it.
    pub fn sources(&self) -> BTreeMap<String, String> {
        let file = self
            .base_name
            .clone()
            .unwrap_or_else(|| "the profile".into());
        self.entries
            .iter()
            .filter_map(|(n, e)| match &e.outcome {
                Outcome::Given => Some((n.clone(), format!("file {file}"))),
                Outcome::Found { how, .. } => Some((n.clone(), format!("discovered: {how}"))),
                _ => None,
            })
            .collect()
    }

    /// Counts: (given, found, not found on this target, not discoverable).
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let mut c = (0, 0, 0, 0);
        for e in self.entries.values() {
            match e.outcome {
                Outcome::Given => c.0 += 1,
                Outcome::Found { .. } => c.1 += 1,
                Outcome::NotFound { .. } => c.2 += 1,
                Outcome::Undiscoverable { .. } => c.3 += 1,
            }
        }
        c
    }

    /// The table the `discover` command prints: each fixture, its value or "not found", how it
    /// was found, and for each missing one what it must hold and why. Secrets are never shown.
    pub fn table(&self, redactor: &Redactor) -> String {
        let shown = |name: &str, v: &Value| -> String {
            if is_secret_name(name) {
                return "<secret>".into();
            }
            match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            }
        };
        let width = KNOWN_FIXTURES
            .iter()
            .map(|(n, _)| n.len())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        let file = self
            .base_name
            .clone()
            .unwrap_or_else(|| "the profile".into());
        let mut missing = String::new();
        for (name, _) in KNOWN_FIXTURES {
            let Some(e) = self.entries.get(*name) else {
                continue;
            };
            match &e.outcome {
                Outcome::Given => {
                    let v = self
                        .base
                        .fixtures
                        .get(*name)
                        .cloned()
                        .unwrap_or(Value::Null);
                    out.push_str(&format!(
                        "{name:width$}  {}  (from {file}; kept)\n",
                        shown(name, &v)
                    ));
                }
                Outcome::Found { value, how } => {
                    out.push_str(&format!(
                        "{name:width$}  {}  found by {how}\n",
                        shown(name, value)
                    ));
                }
                Outcome::NotFound { why } | Outcome::Undiscoverable { why } => {
                    let kind = if matches!(e.outcome, Outcome::NotFound { .. }) {
                        "not found"
                    } else {
                        "not found (cannot be discovered)"
                    };
                    out.push_str(&format!("{name:width$}  {kind}\n"));
                    missing.push_str(&format!(
                        "  {name}: must hold {}\n    why: {why}\n",
                        meaning(name)
                    ));
                    if let Some(g) = &e.guess {
                        missing.push_str(&format!("    guess (not written): {g}\n"));
                    }
                }
            }
        }
        let (given, found, not_found, cannot) = self.counts();
        out.push_str(&format!(
            "\n{found} found, {given} kept from {file}, {} missing ({not_found} not found on this target, {cannot} no request can show); {} requests in {:.1} s\n",
            not_found + cannot,
            self.requests,
            self.elapsed.as_secs_f64()
        ));
        if !missing.is_empty() {
            out.push_str("\nmissing fixtures (give them by hand in the profile):\n");
            out.push_str(&missing);
        }
        redactor.redact(&out)
    }
}

/// Discovers the fixtures of the target behind `client` that `base` lacks. Only `GET` requests
/// are sent; `progress` receives one line per request.
pub async fn discover(
    client: &Client,
    base: &Profile,
    base_name: Option<String>,
    limits: Limits,
    progress: &(dyn Fn(&str) + Sync),
) -> Discovery {
    let started = Instant::now();
    let mut d = Discoverer {
        client,
        limits,
        started,
        sent: 0,
        progress,
        base,
        entries: BTreeMap::new(),
    };
    for (name, _) in KNOWN_FIXTURES {
        if base.fixtures.contains_key(*name) {
            d.entries.insert(
                name.to_string(),
                Entry {
                    outcome: Outcome::Given,
                    guess: None,
                },
            );
        } else if !DISCOVERABLE.contains(name) {
            let why = match x_discovered(name) {
                Some(Value::String(s)) => s,
                _ => "no request of the API shows it".to_string(),
            };
            d.entries.insert(
                name.to_string(),
                Entry {
                    outcome: Outcome::Undiscoverable { why },
                    guess: None,
                },
            );
        }
    }
    d.run().await;
    // Whatever a step did not settle (the budget ran out before it) is not found, with that.
    for (name, _) in KNOWN_FIXTURES {
        d.entries.entry(name.to_string()).or_insert_with(|| Entry {
            outcome: Outcome::NotFound {
                why: "discovery stopped before it (see the reasons of the fixtures it needs)"
                    .into(),
            },
            guess: None,
        });
    }
    Discovery {
        entries: d.entries,
        base: base.clone(),
        base_name,
        requests: d.sent,
        elapsed: started.elapsed(),
    }
}

struct Discoverer<'a> {
    client: &'a Client,
    limits: Limits,
    started: Instant,
    sent: u64,
    progress: &'a (dyn Fn(&str) + Sync),
    base: &'a Profile,
    entries: BTreeMap<String, Entry>,
}

/// A request as the table names it: `GET /v1/messages?phoneNumberId=PN...`.
/// How a list of messages was asked, the messages, and the conversations they are in.
type MessagesOf = (String, Vec<Value>, BTreeSet<String>);

fn shown(path: &str, query: &[(String, String)]) -> String {
    if query.is_empty() {
        return format!("GET {path}");
    }
    let q: Vec<String> = query.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("GET {path}?{}", q.join("&"))
}

fn q(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn str_at<'v>(v: &'v Value, pointer: &str) -> Option<&'v str> {
    v.pointer(pointer).and_then(Value::as_str)
}

fn is_e164(s: &str) -> bool {
    crate::contract::E164::embedded().matches(s)
}

fn time_of(v: &Value) -> Option<OffsetDateTime> {
    str_at(v, "/createdAt").and_then(|s| OffsetDateTime::parse(s, &Rfc3339).ok())
}

/// An instant strictly between `a` and `b` (a < b), in whole seconds where one fits.
fn between(a: OffsetDateTime, b: OffsetDateTime) -> String {
    let mid = a + (b - a) / 2_i32;
    let whole = mid.replace_nanosecond(0).unwrap_or(mid);
    let t = if whole > a { whole } else { mid };
    t.format(&Rfc3339).unwrap_or_default()
}

impl Discoverer<'_> {
    fn have(&self, name: &str) -> Option<Value> {
        if let Some(v) = self.base.fixtures.get(name) {
            return Some(v.clone());
        }
        match self.entries.get(name).map(|e| &e.outcome) {
            Some(Outcome::Found { value, .. }) => Some(value.clone()),
            _ => None,
        }
    }

    fn have_str(&self, name: &str) -> Option<String> {
        self.have(name).and_then(|v| v.as_str().map(str::to_string))
    }

    /// Whether a step should try `name`: not given, not yet settled.
    fn wants(&self, name: &str) -> bool {
        !self.entries.contains_key(name)
    }

    fn found(&mut self, name: &str, value: Value, how: String) {
        if self.wants(name) {
            self.entries.insert(
                name.into(),
                Entry {
                    outcome: Outcome::Found { value, how },
                    guess: None,
                },
            );
        }
    }

    fn not_found(&mut self, name: &str, why: impl Into<String>) {
        if self.wants(name) {
            self.entries.insert(
                name.into(),
                Entry {
                    outcome: Outcome::NotFound { why: why.into() },
                    guess: None,
                },
            );
        }
    }

    fn guess(&mut self, name: &str, guess: String) {
        if let Some(e) = self.entries.get_mut(name) {
            if !matches!(e.outcome, Outcome::Given | Outcome::Found { .. }) {
                e.guess = Some(guess);
            }
        }
    }

    /// One `GET`; the JSON body of a 2xx answer, or why there is none.
    /// `GET /v1/messages` of exactly the set `participants` on `pn` (one page of 100): how it
    /// was asked, the messages, and the conversations they are in.
    async fn messages_of(
        &mut self,
        pn: &str,
        participants: &[String],
    ) -> Result<MessagesOf, String> {
        let path = "/v1/messages";
        let mut query = q(&[("phoneNumberId", pn)]);
        for p in participants {
            query.push(("participants".into(), p.clone()));
        }
        query.push(("maxResults".into(), "100".into()));
        let how = shown(path, &query);
        let v = self.get(path, query).await?;
        let items = v
            .get("data")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let convs = items
            .iter()
            .filter_map(|m| str_at(m, "/conversationId"))
            .map(str::to_string)
            .collect();
        Ok((how, items, convs))
    }

    async fn get(&mut self, path: &str, query: Vec<(String, String)>) -> Result<Value, String> {
        let what = shown(path, &query);
        if self.sent >= self.limits.max_requests {
            return Err(format!(
                "discovery's bound of {} requests was reached before {what}",
                self.limits.max_requests
            ));
        }
        if self.started.elapsed() >= self.limits.max_time {
            return Err(format!(
                "discovery's bound of {} s was reached before {what}",
                self.limits.max_time.as_secs_f64()
            ));
        }
        let headers = Api::of_path(path).headers();
        let out = Outgoing {
            method: "GET".into(),
            path: path.into(),
            query,
            headers,
            body: None,
            auth: Auth::Primary,
        };
        self.sent += 1;
        let ex = self.client.send(&out).await;
        let result = match &ex.outcome {
            Ok(r) if (200..300).contains(&r.status) => match r.value() {
                Some(v) => Ok(v.clone()),
                None => Err(format!("{what} answered {} without a JSON body", r.status)),
            },
            Ok(r) => Err(format!("{what} answered {}", r.status)),
            Err(e) => Err(format!("{what}: {e}")),
        };
        let status = match &ex.outcome {
            Ok(r) => r.status.to_string(),
            Err(e) => e.to_string(),
        };
        (self.progress)(&format!("discover [{}] {what} -> {status}", self.sent));
        result
    }

    /// Items of a list (`data` array), following `nextPageToken` for at most `pages` pages.
    async fn walk(
        &mut self,
        path: &str,
        query: Vec<(String, String)>,
        pages: usize,
    ) -> Result<Vec<Value>, String> {
        let mut items = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..pages {
            let mut qy = query.clone();
            if let Some(t) = &token {
                qy.push(("pageToken".into(), t.clone()));
            }
            let body = self.get(path, qy).await?;
            match body.get("data") {
                Some(Value::Array(a)) => items.extend(a.iter().cloned()),
                _ => return Err(format!("{} has no `data` array", shown(path, &query))),
            }
            token = body
                .get("nextPageToken")
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
                .map(str::to_string);
            if token.is_none() {
                break;
            }
        }
        Ok(items)
    }

    async fn run(&mut self) {
        let numbers = self.phone_numbers().await;
        let pn = self.have_str("phone_number_id");
        let Some(pn) = pn else {
            let why = match &numbers {
                Err(e) => e.clone(),
                Ok(_) => "the workspace lists no phone number (GET /phone-numbers)".into(),
            };
            for name in DISCOVERABLE {
                if !matches!(
                    *name,
                    "webhook_id" | "custom_field_key" | "custom_field_multi_key"
                ) {
                    self.not_found(name, format!("no phone_number_id: {why}"));
                }
            }
            self.webhook().await;
            self.custom_fields().await;
            return;
        };
        let numbers = numbers.unwrap_or_default();
        self.number_details(&pn, &numbers).await;
        self.webhook().await;
        self.custom_fields().await;
        let conversations = self.messages(&pn, &numbers).await;
        self.conditional(&pn, conversations.as_ref()).await;
        self.calls(&pn, &numbers).await;
    }

    /// `GET /phone-numbers`: (id, E.164) of each number; picks `phone_number_id`.
    async fn phone_numbers(&mut self) -> Result<Vec<(String, String)>, String> {
        let items = self
            .walk("/phone-numbers", q(&[("maxResults", "100")]), 3)
            .await?;
        let numbers: Vec<(String, String)> = items
            .iter()
            .filter_map(|n| {
                let id = str_at(n, "/id")?.to_string();
                let number = str_at(n, "/phoneNumber").unwrap_or_default().to_string();
                id.starts_with("PN").then_some((id, number))
            })
            .collect();
        if self.wants("phone_number_id") && !numbers.is_empty() {
            // The number with the most calls and messages on a first page: the one most
            // fixtures hang off.
            let mut best: Option<(usize, String)> = None;
            let mut asked = Vec::new();
            for (id, _) in numbers.iter().take(6) {
                let calls = self
                    .get("/calls", q(&[("phoneNumberId", id), ("maxResults", "100")]))
                    .await;
                let msgs = self
                    .get(
                        "/messages",
                        q(&[("phoneNumberId", id), ("maxResults", "100")]),
                    )
                    .await;
                let count = |r: &Result<Value, String>| {
                    r.as_ref()
                        .ok()
                        .and_then(|v| v.get("data"))
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len)
                };
                let score = count(&calls) + count(&msgs);
                asked.push(format!("{id}: {score}"));
                if best.as_ref().is_none_or(|(s, _)| score > *s) {
                    best = Some((score, id.clone()));
                }
            }
            if let Some((_, id)) = best {
                match self.get(&format!("/phone-numbers/{id}"), vec![]).await {
                    Ok(v) if str_at(&v, "/data/id") == Some(id.as_str()) => self.found(
                        "phone_number_id",
                        json!(id),
                        format!(
                            "GET /phone-numbers, then GET /phone-numbers/{id}: the number with the most calls and messages on a first page of GET /calls and GET /messages by phoneNumberId ({})",
                            asked.join(", ")
                        ),
                    ),
                    Ok(_) => self.not_found(
                        "phone_number_id",
                        format!("GET /phone-numbers/{id} answered another id"),
                    ),
                    Err(e) => self.not_found("phone_number_id", e),
                }
            }
        }
        Ok(numbers)
    }

    /// `phone_number`, `other_phone_number_id`, `user_id`, `available_number_country`.
    async fn number_details(&mut self, pn: &str, numbers: &[(String, String)]) {
        if self.wants("phone_number") {
            match self.get(&format!("/phone-numbers/{pn}"), vec![]).await {
                Ok(v) => match str_at(&v, "/data/phoneNumber").filter(|n| is_e164(n)) {
                    Some(n) => self.found(
                        "phone_number",
                        json!(n),
                        format!("GET /phone-numbers/{pn}: its `phoneNumber`"),
                    ),
                    None => self.not_found(
                        "phone_number",
                        format!("GET /phone-numbers/{pn} shows no E.164 `phoneNumber`"),
                    ),
                },
                Err(e) => self.not_found("phone_number", e),
            }
        }
        if self.wants("other_phone_number_id") {
            let other = numbers
                .iter()
                .find(|(id, _)| id != pn)
                .map(|(id, _)| id.clone());
            match other {
                Some(id) => match self.get(&format!("/phone-numbers/{id}"), vec![]).await {
                    Ok(v) if str_at(&v, "/data/id") == Some(id.as_str()) => self.found(
                        "other_phone_number_id",
                        json!(id),
                        format!("GET /phone-numbers, then GET /phone-numbers/{id}: a number other than phone_number_id"),
                    ),
                    Ok(_) => self.not_found(
                        "other_phone_number_id",
                        format!("GET /phone-numbers/{id} answered another id"),
                    ),
                    Err(e) => self.not_found("other_phone_number_id", e),
                },
                None => self.not_found(
                    "other_phone_number_id",
                    "GET /phone-numbers lists no number other than phone_number_id",
                ),
            }
        }
        if self.wants("user_id") {
            let path = format!("/phone-numbers/{pn}/users");
            let users = self.get(&path, vec![]).await.map(|v| {
                v.get("data")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .filter_map(|u| str_at(u, "/id").map(str::to_string))
                            .filter(|id| id.starts_with("US"))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            });
            // The key reads what is number-scoped (Authentication 3): its user is a user of
            // the number. With one user, that user is the key's.
            let scoped = self
                .get("/calls", q(&[("phoneNumberId", pn), ("maxResults", "1")]))
                .await;
            match (users, scoped) {
                (Ok(users), Ok(_)) if users.len() == 1 => self.found(
                    "user_id",
                    json!(users[0]),
                    format!(
                        "GET {path}: the only user of phone_number_id, and GET /calls?phoneNumberId={pn} (number-scoped, Authentication 3) answers the key: the key's user is a user of the number"
                    ),
                ),
                (Ok(users), Ok(_)) if users.len() > 1 => {
                    self.not_found(
                        "user_id",
                        format!(
                            "{path} lists {} users, and no request of the API says which one the key acts as",
                            users.len()
                        ),
                    );
                    self.guess("user_id", format!("one of {}", users.join(", ")));
                }
                (Ok(_), Ok(_)) => self.not_found("user_id", format!("{path} lists no user")),
                (Err(e), _) | (_, Err(e)) => self.not_found("user_id", e),
            }
        }
        if self.wants("available_number_country") {
            let e164 = self
                .have_str("phone_number")
                .or_else(|| {
                    numbers
                        .iter()
                        .find(|(id, _)| id == pn)
                        .map(|(_, n)| n.clone())
                })
                .unwrap_or_default();
            let countries = countries_of(&e164);
            let mut why = format!("the country of {e164} is not one discovery knows");
            for c in countries {
                match self
                    .get("/phone-numbers/available", q(&[("country", c)]))
                    .await
                {
                    Ok(v)
                        if v.get("data").is_some_and(|d| match d {
                            Value::Array(a) => !a.is_empty(),
                            Value::Null => false,
                            _ => true,
                        }) =>
                    {
                        self.found(
                            "available_number_country",
                            json!(c),
                            format!("GET /phone-numbers/available?country={c}: numbers found (the country of phone_number)"),
                        );
                        break;
                    }
                    Ok(_) => {
                        why = format!("GET /phone-numbers/available?country={c} finds no number")
                    }
                    Err(e) => why = e,
                }
            }
            self.not_found("available_number_country", why);
        }
    }

    /// `webhook_id`: the lowest id of `GET /webhooks`, read back.
    async fn webhook(&mut self) {
        if !self.wants("webhook_id") {
            return;
        }
        let list = match self.get("/webhooks", vec![]).await {
            Ok(v) => v,
            Err(e) => return self.not_found("webhook_id", e),
        };
        let mut ids: Vec<(u128, String)> = list
            .get("data")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|w| str_at(w, "/id"))
                    .filter(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
                    .filter_map(|id| id.parse::<u128>().ok().map(|n| (n, id.to_string())))
                    .collect()
            })
            .unwrap_or_default();
        ids.sort();
        let Some((_, id)) = ids.into_iter().next() else {
            return self.not_found("webhook_id", "GET /webhooks lists no webhook");
        };
        match self.get(&format!("/webhooks/{id}"), vec![]).await {
            Ok(v) if str_at(&v, "/data/id") == Some(id.as_str()) => self.found(
                "webhook_id",
                json!(id),
                format!("GET /webhooks, then GET /webhooks/{id}: the oldest webhook, read back"),
            ),
            Ok(_) => self.not_found(
                "webhook_id",
                format!("GET /webhooks/{id} answered another id"),
            ),
            Err(e) => self.not_found("webhook_id", e),
        }
    }

    /// `custom_field_key`, `custom_field_multi_key`: keys contacts hold values under.
    async fn custom_fields(&mut self) {
        if !self.wants("custom_field_key") && !self.wants("custom_field_multi_key") {
            return;
        }
        let contacts = match self
            .walk("/v1/contacts", q(&[("maxResults", "50")]), 4)
            .await
        {
            Ok(c) => c,
            Err(e) => {
                self.not_found("custom_field_key", e.clone());
                self.not_found("custom_field_multi_key", e);
                return;
            }
        };
        let mut strings: BTreeMap<String, usize> = BTreeMap::new();
        let mut multi: BTreeMap<String, usize> = BTreeMap::new();
        let mut arrays: BTreeSet<String> = BTreeSet::new();
        for c in &contacts {
            for f in c
                .get("customFields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(key) = str_at(f, "/key").filter(|k| !k.is_empty()) else {
                    continue;
                };
                let kind = str_at(f, "/type");
                match (f.get("value"), kind) {
                    (_, Some("multi-select")) => *multi.entry(key.into()).or_default() += 1,
                    (Some(Value::String(_)), _) => *strings.entry(key.into()).or_default() += 1,
                    (Some(Value::Array(_)), None) => {
                        arrays.insert(key.into());
                    }
                    _ => {}
                }
            }
        }
        let most = |m: &BTreeMap<String, usize>| {
            m.iter()
                .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
                .map(|(k, n)| (k.clone(), *n))
        };
        let read = format!(
            "GET /v1/contacts?maxResults=50 ({} contacts read)",
            contacts.len()
        );
        match most(&strings) {
            Some((k, n)) => self.found(
                "custom_field_key",
                json!(k),
                format!("{read}: {n} contacts hold a string value under it"),
            ),
            None => self.not_found(
                "custom_field_key",
                format!("{read}: no contact holds a string custom field value"),
            ),
        }
        match most(&multi) {
            Some((k, n)) => self.found(
                "custom_field_multi_key",
                json!(k),
                format!("{read}: {n} contacts hold it with type `multi-select`"),
            ),
            None => {
                self.not_found(
                    "custom_field_multi_key",
                    format!(
                        "{read}: no contact holds a custom field whose `type` is `multi-select`"
                    ),
                );
                if !arrays.is_empty() {
                    let keys: Vec<String> = arrays.into_iter().collect();
                    self.guess(
                        "custom_field_multi_key",
                        format!(
                            "{} (values are lists, but no `type` says multi-select)",
                            keys.join(", ")
                        ),
                    );
                }
            }
        }
    }

    /// Messages and conversations of `pn`: the one-to-one and group conversations, the split,
    /// the direction, media and undelivered messages. Returns the conversations of `pn` when
    /// they could be listed.
    async fn messages(&mut self, pn: &str, numbers: &[(String, String)]) -> Option<Vec<Value>> {
        let mut ours: BTreeSet<String> = numbers.iter().map(|(_, n)| n.clone()).collect();
        if let Some(n) = self.have_str("phone_number") {
            ours.insert(n);
        }
        let conversations = self
            .walk(
                "/v1/conversations",
                q(&[("phoneNumbers", pn), ("maxResults", "100")]),
                3,
            )
            .await;
        let conv_ids: Option<BTreeSet<String>> = conversations.as_ref().ok().map(|c| {
            c.iter()
                .filter_map(|x| str_at(x, "/id").map(str::to_string))
                .collect()
        });
        let participants_of = |id: &str| -> Option<Vec<String>> {
            conversations.as_ref().ok()?.iter().find_map(|c| {
                (str_at(c, "/id") == Some(id)).then(|| {
                    c.get("participants").and_then(Value::as_array).map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_string)
                            .collect()
                    })
                })?
            })
        };
        let messages = self
            .walk(
                "/messages",
                q(&[("phoneNumberId", pn), ("maxResults", "100")]),
                5,
            )
            .await;
        let messages = match messages {
            Ok(m) => m,
            Err(e) => {
                for name in [
                    "message_participant",
                    "message_time_split",
                    "conversation_id",
                    "group_participants",
                    "group_conversation_id",
                    "message_direction",
                    "media_message_id",
                ] {
                    self.not_found(name, e.clone());
                }
                Vec::new()
            }
        };
        // Who phone_number_id talks with: recipient sets without the workspace's numbers, the
        // sender when shown, and the participants of conversations when shown.
        let mut singles: BTreeMap<String, usize> = BTreeMap::new();
        let mut groups: BTreeMap<Vec<String>, usize> = BTreeMap::new();
        let sandbox = self.have_str("sandbox_conversation_id");
        let sandbox_participant = self.have_str("sandbox_conversation_participant");
        for m in &messages {
            let mut to: Vec<String> = m
                .get("to")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|n| is_e164(n) && !ours.contains(*n))
                .map(str::to_string)
                .collect();
            to.sort();
            to.dedup();
            match to.len() {
                0 => {}
                1 => *singles.entry(to[0].clone()).or_default() += 1,
                _ => *groups.entry(to).or_default() += 1,
            }
            if let Some(from) = str_at(m, "/from").filter(|f| is_e164(f) && !ours.contains(*f)) {
                *singles.entry(from.to_string()).or_default() += 1;
            }
        }
        for c in conversations
            .as_ref()
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            let mut ps: Vec<String> = c
                .get("participants")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|n| is_e164(n) && !ours.contains(*n))
                .map(str::to_string)
                .collect();
            ps.sort();
            match ps.len() {
                0 => {}
                1 => {
                    singles.entry(ps[0].clone()).or_default();
                }
                _ => {
                    groups.entry(ps).or_default();
                }
            }
        }
        if let Some(p) = &sandbox_participant {
            singles.remove(p);
        }
        // --- the one-to-one conversation and the split ---
        let mut candidates: Vec<(String, usize)> = singles.into_iter().collect();
        candidates.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut order: Vec<String> = candidates.into_iter().map(|(p, _)| p).collect();
        if let Some(p) = self.have_str("message_participant") {
            order = vec![p];
        }
        let wants_one = self.wants("message_participant")
            || self.wants("conversation_id")
            || self.wants("message_time_split");
        let mut one_to_one: Option<(String, String)> = None;
        let mut tried = Vec::new();
        if wants_one {
            for p in order.iter().take(5) {
                let path = "/v1/messages";
                let (how, items, convs) = match self.messages_of(pn, std::slice::from_ref(p)).await
                {
                    Ok(found) => found,
                    Err(e) => {
                        tried.push(e);
                        continue;
                    }
                };
                if items.is_empty() || convs.len() != 1 {
                    tried.push(format!(
                        "{how}: {} messages in {} conversations",
                        items.len(),
                        convs.len()
                    ));
                    continue;
                }
                let cn = convs.into_iter().next().unwrap_or_default().to_string();
                if !cn.starts_with("CN") || Some(&cn) == sandbox.as_ref() {
                    tried.push(format!("{how}: conversation {cn} is not usable"));
                    continue;
                }
                if conv_ids.as_ref().is_some_and(|ids| !ids.contains(&cn)) {
                    tried.push(format!(
                        "{how}: {cn} is not among GET /v1/conversations?phoneNumbers={pn}"
                    ));
                    continue;
                }
                if participants_of(&cn).is_some_and(|ps| ps != [p.clone()]) {
                    tried.push(format!("{how}: {cn} has other participants"));
                    continue;
                }
                let mut times: Vec<OffsetDateTime> = items.iter().filter_map(time_of).collect();
                times.sort();
                times.dedup();
                let needs_split = self.wants("message_time_split");
                if needs_split && times.len() < 2 && one_to_one.is_none() {
                    // Usable, but without a split: keep looking for one that has both.
                    one_to_one = Some((p.clone(), cn.clone()));
                    tried.push(format!("{how}: fewer than two instants to split"));
                    continue;
                }
                let found_here = format!("{how}: every message in {cn}");
                self.found("message_participant", json!(p), found_here.clone());
                self.found(
                    "conversation_id",
                    json!(cn),
                    format!("{how}: every message of message_participant is in it"),
                );
                if needs_split && times.len() >= 2 {
                    let i = times.len() / 2;
                    let split = between(times[i - 1], times[i]);
                    let before = self
                        .get(
                            path,
                            q(&[
                                ("phoneNumberId", pn),
                                ("participants", p),
                                ("createdBefore", &split),
                                ("maxResults", "1"),
                            ]),
                        )
                        .await;
                    let after = self
                        .get(
                            path,
                            q(&[
                                ("phoneNumberId", pn),
                                ("participants", p),
                                ("createdAfter", &split),
                                ("maxResults", "1"),
                            ]),
                        )
                        .await;
                    let nonempty = |r: &Result<Value, String>| {
                        r.as_ref()
                            .ok()
                            .and_then(|v| v.get("data"))
                            .and_then(Value::as_array)
                            .is_some_and(|a| !a.is_empty())
                    };
                    if nonempty(&before) && nonempty(&after) {
                        self.found(
                            "message_time_split",
                            json!(split),
                            format!("GET {path}?...&createdBefore={split} and GET {path}?...&createdAfter={split}: messages of message_participant on both sides"),
                        );
                    } else {
                        self.not_found(
                            "message_time_split",
                            format!("{split} lies between two messages of {p}, but createdBefore/createdAfter do not both list one"),
                        );
                    }
                }
                one_to_one = None;
                break;
            }
            if let Some((p, cn)) = one_to_one.take() {
                self.found(
                    "message_participant",
                    json!(p),
                    format!("GET /v1/messages?phoneNumberId={pn}&participants={p}: every message in {cn}"),
                );
                self.found(
                    "conversation_id",
                    json!(cn),
                    format!("GET /v1/messages?phoneNumberId={pn}&participants={p}: every message of message_participant is in it"),
                );
            }
            let why = if order.is_empty() {
                format!(
                    "GET /messages?phoneNumberId={pn} and GET /v1/conversations show no one-to-one participant"
                )
            } else if tried.is_empty() {
                "no candidate participant passed".into()
            } else {
                format!("no participant of {pn} passed: {}", tried.join("; "))
            };
            self.not_found("message_participant", why.clone());
            self.not_found("conversation_id", why.clone());
            self.not_found(
                "message_time_split",
                format!("no one-to-one conversation with messages at two instants: {why}"),
            );
        }
        // --- the group conversation ---
        let mut gs: Vec<(Vec<String>, usize)> = groups.into_iter().collect();
        gs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let mut gorder: Vec<Vec<String>> = gs.into_iter().map(|(g, _)| g).collect();
        let all_groups = gorder.clone();
        if let Some(Value::Array(g)) = self.have("group_participants") {
            gorder = vec![
                g.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
            ];
        }
        if self.wants("group_participants") || self.wants("group_conversation_id") {
            let mut tried = Vec::new();
            let one_to_one_cn = self.have_str("conversation_id");
            for g in gorder.iter().filter(|g| g.len() >= 2).take(3) {
                let (how, items, convs) = match self.messages_of(pn, g).await {
                    Ok(found) => found,
                    Err(e) => {
                        tried.push(e);
                        continue;
                    }
                };
                if items.is_empty() || convs.len() != 1 {
                    tried.push(format!(
                        "{how}: {} messages in {} conversations",
                        items.len(),
                        convs.len()
                    ));
                    continue;
                }
                let cn = convs.into_iter().next().unwrap_or_default().to_string();
                if conv_ids.as_ref().is_some_and(|ids| !ids.contains(&cn))
                    || !cn.starts_with("CN")
                    || one_to_one_cn.as_ref() == Some(&cn)
                {
                    tried.push(format!("{how}: {cn} is not a group conversation of {pn}"));
                    continue;
                }
                let mut sorted_ps = participants_of(&cn).unwrap_or_else(|| g.clone());
                sorted_ps.sort();
                if sorted_ps != *g {
                    tried.push(format!("{how}: {cn} has other participants"));
                    continue;
                }
                self.found(
                    "group_participants",
                    json!(g),
                    format!("{how}: every message in the group conversation {cn}"),
                );
                self.found(
                    "group_conversation_id",
                    json!(cn),
                    format!("{how}: every message of group_participants is in it"),
                );
                break;
            }
            let why = if gorder.iter().all(|g| g.len() < 2) {
                format!(
                    "GET /messages?phoneNumberId={pn} and GET /v1/conversations show no group conversation (two or more participants)"
                )
            } else {
                format!("no group of {pn} passed: {}", tried.join("; "))
            };
            self.not_found("group_participants", why.clone());
            self.not_found("group_conversation_id", why);
        }
        // --- a larger group holding every number of the group (the exact-set filter) ---
        if self.wants("group_superset_participants") {
            let group: Vec<String> = match self.have("group_participants") {
                Some(Value::Array(g)) => g
                    .iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect(),
                _ => Vec::new(),
            };
            let group_cn = self.have_str("group_conversation_id");
            let mut why = if group.is_empty() {
                "it needs group_participants, which was not found".to_string()
            } else {
                format!(
                    "no other group conversation of {pn} holds every number of group_participants and more"
                )
            };
            for g in all_groups
                .iter()
                .filter(|g| g.len() > group.len() && group.iter().all(|p| g.contains(p)))
                .take(3)
            {
                match self.messages_of(pn, g).await {
                    Ok((how, items, convs)) => {
                        if items.is_empty()
                            || convs.len() != 1
                            || group_cn.as_deref().is_some_and(|c| convs.contains(c))
                        {
                            why = format!(
                                "{how}: {} messages in {} conversations",
                                items.len(),
                                convs.len()
                            );
                            continue;
                        }
                        self.found(
                            "group_superset_participants",
                            json!(g),
                            format!("{how}: messages of one group conversation other than group_conversation_id"),
                        );
                        break;
                    }
                    Err(e) => why = e,
                }
            }
            self.not_found("group_superset_participants", why);
        }
        // --- direction, media, undelivered and failed messages ---
        if self.wants("message_direction") {
            let mut dirs: BTreeMap<String, usize> = BTreeMap::new();
            for m in &messages {
                if let Some(d) = str_at(m, "/direction").filter(|d| !d.is_empty()) {
                    *dirs.entry(d.to_string()).or_default() += 1;
                }
            }
            let mut found = false;
            let mut tried = Vec::new();
            let mut by_count: Vec<(String, usize)> = dirs.into_iter().collect();
            by_count.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            for (d, _) in by_count.iter().take(2) {
                let query = q(&[
                    ("phoneNumberId", pn),
                    ("direction", d),
                    ("maxResults", "100"),
                ]);
                let how = shown("/messages", &query);
                match self.get("/messages", query).await {
                    Ok(v) => {
                        let items = v
                            .get("data")
                            .and_then(Value::as_array)
                            .cloned()
                            .unwrap_or_default();
                        let all = items.iter().all(|m| {
                            m.get("direction")
                                .is_none_or(|x| x.is_null() || x.as_str() == Some(d))
                        });
                        if !items.is_empty() && all {
                            self.found(
                                "message_direction",
                                json!(d),
                                format!("{how}: {} messages, each of that direction", items.len()),
                            );
                            found = true;
                            break;
                        }
                        tried.push(format!("{how} does not keep only that direction"));
                    }
                    Err(e) => tried.push(e),
                }
            }
            if !found {
                let why = if by_count.is_empty() {
                    format!("the messages of GET /messages?phoneNumberId={pn} show no `direction`")
                } else {
                    tried.join("; ")
                };
                self.not_found("message_direction", why);
            }
        }
        if self.wants("media_message_id") {
            let with_media: Vec<String> = messages
                .iter()
                .filter(|m| {
                    m.get("media")
                        .and_then(Value::as_array)
                        .is_some_and(|a| !a.is_empty())
                })
                .filter_map(|m| str_at(m, "/id").map(str::to_string))
                .collect();
            let mut why = format!("no message of GET /messages?phoneNumberId={pn} has media");
            for id in with_media.iter().take(2) {
                match self.get(&format!("/messages/{id}"), vec![]).await {
                    Ok(v)
                        if v.pointer("/data/media")
                            .and_then(Value::as_array)
                            .is_some_and(|a| !a.is_empty()) =>
                    {
                        self.found(
                            "media_message_id",
                            json!(id),
                            format!("GET /messages/{id}: its `media` is not empty"),
                        );
                        break;
                    }
                    Ok(_) => why = format!("GET /messages/{id} shows no media"),
                    Err(e) => why = e,
                }
            }
            self.not_found("media_message_id", why);
        }
        if self.wants("undelivered_message_id") {
            match self.ids_by_status(pn, "undelivered").await {
                Ok(ids) => {
                    let mut why = format!(
                        "GET /messages?phoneNumberId={pn}&status=undelivered lists no undelivered message"
                    );
                    for id in ids.iter().take(2) {
                        match self.get(&format!("/messages/{id}"), vec![]).await {
                            Ok(v) if str_at(&v, "/data/status") == Some("undelivered") => {
                                self.found(
                                    "undelivered_message_id",
                                    json!(id),
                                    format!("GET /messages?phoneNumberId={pn}&status=undelivered, then GET /messages/{id}: status `undelivered`"),
                                );
                                break;
                            }
                            Ok(_) => why = format!("GET /messages/{id} is not undelivered"),
                            Err(e) => why = e,
                        }
                    }
                    self.not_found("undelivered_message_id", why);
                }
                Err(e) => self.not_found("undelivered_message_id", e),
            }
        }
        if self
            .entries
            .get("sandbox_failed_message_id")
            .is_some_and(|e| e.outcome != Outcome::Given)
            || self
                .entries
                .get("permanent_failed_message_id")
                .is_some_and(|e| e.outcome != Outcome::Given)
        {
            match self.ids_by_status(pn, "failed").await {
                Ok(ids) if !ids.is_empty() => {
                    let g = format!(
                        "failed messages of {pn}: {} (GET /messages?phoneNumberId={pn}&status=failed); whether a failure is permanent is not shown",
                        ids.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
                    );
                    self.guess("sandbox_failed_message_id", g.clone());
                    self.guess("permanent_failed_message_id", g);
                }
                Ok(_) => {
                    let g = format!(
                        "GET /messages?phoneNumberId={pn}&status=failed lists no failed message: the target has none to give"
                    );
                    self.guess("sandbox_failed_message_id", g.clone());
                    self.guess("permanent_failed_message_id", g);
                }
                Err(_) => {}
            }
        }
        conversations.ok()
    }

    /// Ids of the messages of `pn` with this status (`GET /messages?status=`, a Message field
    /// name, READINGS 6.1), as their `status` shows it.
    async fn ids_by_status(&mut self, pn: &str, status: &str) -> Result<Vec<String>, String> {
        let query = q(&[
            ("phoneNumberId", pn),
            ("status", status),
            ("maxResults", "100"),
        ]);
        self.get("/messages", query).await.map(|v| {
            v.get("data")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|m| str_at(m, "/status") == Some(status))
                .filter_map(|m| str_at(m, "/id").map(str::to_string))
                .collect()
        })
    }

    /// Fixtures that need a fixture given by hand (`inactive_conversation_id`,
    /// `sandbox_conversation_participant`) and `task_conversation_id`.
    async fn conditional(&mut self, pn: &str, conversations: Option<&Vec<Value>>) {
        if self.wants("task_conversation_id") {
            match self.have_str("conversation_id").or_else(|| {
                conversations?
                    .iter()
                    .find_map(|c| str_at(c, "/id").filter(|id| id.starts_with("CN")).map(str::to_string))
            }) {
                Some(cn) => self.found(
                    "task_conversation_id",
                    json!(cn),
                    format!("GET /v1/conversations?phoneNumbers={pn}: a conversation of the workspace (tasks link to it; it is not changed)"),
                ),
                None => self.not_found(
                    "task_conversation_id",
                    format!("GET /v1/conversations?phoneNumbers={pn} lists no conversation"),
                ),
            }
        }
        if self.wants("inactive_conversation_id") {
            match (self.have_str("conversations_exclude_inactive_param"), conversations) {
                (Some(param), Some(all)) => {
                    let query = q(&[("phoneNumbers", pn), (&param, "true"), ("maxResults", "100")]);
                    let how = shown("/v1/conversations", &query);
                    match self.walk("/v1/conversations", query, 3).await {
                        Ok(active) => {
                            let active: BTreeSet<&str> =
                                active.iter().filter_map(|c| str_at(c, "/id")).collect();
                            let inactive = all
                                .iter()
                                .filter_map(|c| str_at(c, "/id"))
                                .find(|id| !active.contains(id) && id.starts_with("CN"))
                                .map(str::to_string);
                            match inactive {
                                Some(id) => self.found(
                                    "inactive_conversation_id",
                                    json!(id),
                                    format!("GET /v1/conversations?phoneNumbers={pn} lists it, {how} leaves it out"),
                                ),
                                None => self.not_found(
                                    "inactive_conversation_id",
                                    format!("{how} leaves no conversation of {pn} out"),
                                ),
                            }
                        }
                        Err(e) => self.not_found("inactive_conversation_id", e),
                    }
                }
                (None, _) => self.not_found(
                    "inactive_conversation_id",
                    "what the target counts as inactive shows only through the exclude-inactive filter, whose query name is not shown: give conversations_exclude_inactive_param and discovery finds it",
                ),
                (Some(_), None) => self.not_found(
                    "inactive_conversation_id",
                    format!("GET /v1/conversations?phoneNumbers={pn} could not be read"),
                ),
            }
        }
        if self.wants("sandbox_conversation_participant") {
            match self.have_str("sandbox_conversation_id") {
                Some(cn) => {
                    let ps: Option<Vec<String>> = conversations.and_then(|all| {
                        all.iter().find(|c| str_at(c, "/id") == Some(cn.as_str())).and_then(|c| {
                            c.get("participants").and_then(Value::as_array).map(|a| {
                                a.iter().filter_map(Value::as_str).map(str::to_string).collect()
                            })
                        })
                    });
                    match ps {
                        Some(ps) if ps.len() == 1 && is_e164(&ps[0]) => self.found(
                            "sandbox_conversation_participant",
                            json!(ps[0]),
                            format!("GET /v1/conversations?phoneNumbers={pn}: the one participant of sandbox_conversation_id"),
                        ),
                        Some(ps) => self.not_found(
                            "sandbox_conversation_participant",
                            format!("sandbox_conversation_id has {} participants, not one", ps.len()),
                        ),
                        None => self.not_found(
                            "sandbox_conversation_participant",
                            format!("GET /v1/conversations?phoneNumbers={pn} does not show the participants of sandbox_conversation_id"),
                        ),
                    }
                }
                None => self.not_found(
                    "sandbox_conversation_participant",
                    "it is the participant of sandbox_conversation_id, a conversation only a person can name as one cases may change: give sandbox_conversation_id and discovery finds it",
                ),
            }
        }
    }

    /// `call_id`, `call_participant`, `voicemail_call_id`, `summary_call_id`.
    async fn calls(&mut self, pn: &str, numbers: &[(String, String)]) {
        let ours: BTreeSet<&str> = numbers.iter().map(|(_, n)| n.as_str()).collect();
        let calls = match self
            .walk(
                "/calls",
                q(&[
                    ("phoneNumberId", pn),
                    ("include", "summary,voicemail"),
                    ("maxResults", "100"),
                ]),
                3,
            )
            .await
        {
            Ok(c) => c,
            Err(e) => {
                for n in [
                    "call_id",
                    "call_participant",
                    "voicemail_call_id",
                    "summary_call_id",
                ] {
                    self.not_found(n, e.clone());
                }
                return;
            }
        };
        let user = self.have_str("user_id");
        if self.wants("call_id") || self.wants("call_participant") {
            let mut order: Vec<&Value> = calls.iter().collect();
            let given = self.have_str("call_id");
            if let Some(id) = &given {
                order.retain(|c| str_at(c, "/id") == Some(id.as_str()));
            }
            let mut tried = Vec::new();
            let mut chosen: Option<(String, Value)> = None;
            for c in order.iter().take(8) {
                let Some(id) = str_at(c, "/id").filter(|id| id.starts_with("AC")) else {
                    continue;
                };
                if let (Some(u), Some(by)) = (&user, str_at(c, "/userId")) {
                    if by != u {
                        continue;
                    }
                }
                let segments = match self.get(&format!("/v1/call-recordings/{id}"), vec![]).await {
                    Ok(v) => v.get("data").and_then(Value::as_array).map_or(0, Vec::len),
                    Err(e) => {
                        tried.push(e);
                        continue;
                    }
                };
                if segments < 2 {
                    tried.push(format!("{id}: {segments} recording segments"));
                    continue;
                }
                let transcript = self
                    .get(
                        &format!("/calls/{id}/transcripts"),
                        q(&[("maxResults", "100")]),
                    )
                    .await
                    .map(|v| v.get("data").and_then(Value::as_array).map_or(0, Vec::len));
                match transcript {
                    Ok(n) if n > 0 => {
                        chosen = Some((id.to_string(), (*c).clone()));
                        let mut how = format!(
                            "GET /calls?phoneNumberId={pn}, GET /v1/call-recordings/{id} ({segments} segments), GET /calls/{id}/transcripts ({n} segments)"
                        );
                        match &user {
                            Some(u) => {
                                let by_actor = self
                                    .get(
                                        "/calls",
                                        q(&[
                                            ("phoneNumberId", pn),
                                            ("actorId", u),
                                            ("maxResults", "100"),
                                        ]),
                                    )
                                    .await;
                                let listed = by_actor
                                    .as_ref()
                                    .ok()
                                    .and_then(|v| v.get("data"))
                                    .and_then(Value::as_array)
                                    .is_some_and(|a| {
                                        a.iter().any(|x| str_at(x, "/id") == Some(id))
                                    });
                                if !listed {
                                    tried.push(format!("{id} is not listed by GET /calls?actorId={u}: not handled by user_id"));
                                    chosen = None;
                                    continue;
                                }
                                how.push_str(&format!(
                                    ", GET /calls?actorId={u} (handled by user_id)"
                                ));
                            }
                            None => {
                                how.push_str(" (user_id unknown: who handled it is not checked)")
                            }
                        }
                        self.found("call_id", json!(id), how);
                        break;
                    }
                    Ok(_) => tried.push(format!("{id}: no transcript segment")),
                    Err(e) => tried.push(e),
                }
            }
            if chosen.is_none() {
                let why = if calls.is_empty() {
                    format!("GET /calls?phoneNumberId={pn} lists no call")
                } else {
                    format!(
                        "no call of {pn} has a recording of two or more segments and a transcript{}: {}",
                        if user.is_some() {
                            " and is handled by user_id"
                        } else {
                            ""
                        },
                        tried.join("; ")
                    )
                };
                self.not_found("call_id", why.clone());
                self.not_found("call_participant", format!("no call_id: {why}"));
            }
            if let Some((id, call)) = chosen.or_else(|| {
                given.and_then(|id| {
                    calls
                        .iter()
                        .find(|c| str_at(c, "/id") == Some(id.as_str()))
                        .map(|c| (id, c.clone()))
                })
            }) {
                if self.wants("call_participant") {
                    let ps: Option<Vec<&str>> =
                        call.get("participants").and_then(Value::as_array).map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .filter(|p| !ours.contains(p))
                                .collect()
                        });
                    match ps {
                        Some(ps) if ps.len() == 1 && is_e164(ps[0]) => {
                            let cp = ps[0].to_string();
                            let query = q(&[("phoneNumberId", pn), ("participants", &cp), ("maxResults", "100")]);
                            let how = shown("/v1/calls", &query);
                            match self.get("/v1/calls", query).await {
                                Ok(v) if v.get("data").and_then(Value::as_array).is_some_and(|a| a.iter().any(|x| str_at(x, "/id") == Some(id.as_str()))) => {
                                    self.found("call_participant", json!(cp), format!("the `participants` of call_id; {how} lists call_id"));
                                }
                                Ok(_) => self.not_found("call_participant", format!("{how} does not list call_id")),
                                Err(e) => self.not_found("call_participant", e),
                            }
                        }
                        Some(ps) => self.not_found("call_participant", format!("call_id shows {} participants besides the workspace's numbers, not one", ps.len())),
                        None => self.not_found("call_participant", format!("GET /calls?phoneNumberId={pn} does not show the `participants` of call_id, and GET /v1/calls needs them")),
                    }
                }
                // The status of call_id, checked as a filter value: the list keeps call_id and
                // only calls of that status (or that do not show one).
                if self.wants("call_status") {
                    match str_at(&call, "/status").filter(|s| !s.is_empty()) {
                        Some(status) => {
                            let status = status.to_string();
                            let query = q(&[("phoneNumberId", pn), ("status", &status), ("maxResults", "100")]);
                            let how = shown("/calls", &query);
                            match self.get("/calls", query).await {
                                Ok(v) => {
                                    let items = v.get("data").and_then(Value::as_array).cloned().unwrap_or_default();
                                    let has = items.iter().any(|x| str_at(x, "/id") == Some(id.as_str()));
                                    let only = items.iter().all(|x| x.get("status").is_none_or(|s| s.is_null() || s.as_str() == Some(status.as_str())));
                                    if has && only {
                                        self.found("call_status", json!(status), format!("the `status` of call_id; {how} lists call_id and only calls of that status"));
                                    } else {
                                        self.not_found("call_status", format!("{how} does not keep call_id and only calls of that status"));
                                    }
                                }
                                Err(e) => self.not_found("call_status", e),
                            }
                        }
                        None => self.not_found("call_status", format!("GET /calls?phoneNumberId={pn} does not show the `status` of call_id")),
                    }
                }
            }
            self.not_found("call_status", "no call_id to take a status from");
        }
        // Each include fixture needs one call with what it names, not one call with both.
        for (fixture, field) in [
            ("voicemail_call_id", "voicemail"),
            ("summary_call_id", "summary"),
        ] {
            if !self.wants(fixture) {
                continue;
            }
            let present = |v: Option<&Value>| v.is_some_and(|x| !x.is_null());
            let candidates: Vec<String> = calls
                .iter()
                .filter(|c| present(c.get(field)))
                .filter_map(|c| str_at(c, "/id").map(str::to_string))
                .collect();
            let mut why = format!(
                "no call of GET /calls?phoneNumberId={pn}&include=summary,voicemail has a {field}"
            );
            for id in candidates.iter().take(2) {
                match self
                    .get(&format!("/calls/{id}"), q(&[("include", field)]))
                    .await
                {
                    Ok(v) if present(v.pointer(&format!("/data/{field}"))) => {
                        self.found(
                            fixture,
                            json!(id),
                            format!("GET /calls?phoneNumberId={pn}&include=summary,voicemail, then GET /calls/{id}?include={field}: a {field}"),
                        );
                        break;
                    }
                    Ok(_) => why = format!("GET /calls/{id}?include={field} lacks the {field}"),
                    Err(e) => why = e,
                }
            }
            self.not_found(fixture, why);
        }
    }
}

/// ISO country codes of an E.164 number's calling code, the likeliest first (a short table:
/// the country is only a starting point, and the search verifies it).
fn countries_of(e164: &str) -> Vec<&'static str> {
    const CODES: &[(&str, &[&str])] = &[
        ("+1", &["US", "CA"]),
        ("+44", &["GB"]),
        ("+33", &["FR"]),
        ("+49", &["DE"]),
        ("+61", &["AU"]),
        ("+353", &["IE"]),
        ("+34", &["ES"]),
        ("+39", &["IT"]),
        ("+31", &["NL"]),
        ("+46", &["SE"]),
        ("+64", &["NZ"]),
    ];
    let mut best: Option<(&str, &[&str])> = None;
    for (code, cs) in CODES {
        if e164.starts_with(code) && best.is_none_or(|(b, _)| code.len() > b.len()) {
            best = Some((code, cs));
        }
    }
    best.map(|(_, cs)| cs.to_vec()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schema_marks_exactly_the_discoverable_fixtures() {
        for (name, _) in KNOWN_FIXTURES {
            let x = x_discovered(name);
            let ok = match &x {
                Some(Value::Bool(true)) => DISCOVERABLE.contains(name),
                Some(Value::String(s)) if s.starts_with("with ") => DISCOVERABLE.contains(name),
                Some(Value::String(s)) => !s.is_empty() && !DISCOVERABLE.contains(name),
                _ => false,
            };
            assert!(
                ok,
                "x-discovered of `{name}` is {x:?}; DISCOVERABLE says otherwise"
            );
        }
    }

    #[test]
    fn a_split_lies_strictly_between() {
        let a = OffsetDateTime::parse("2026-01-10T09:00:00Z", &Rfc3339).unwrap();
        let b = OffsetDateTime::parse("2026-01-15T12:00:00Z", &Rfc3339).unwrap();
        let s = OffsetDateTime::parse(&between(a, b), &Rfc3339).unwrap();
        assert!(a < s && s < b);
        let c = a + Duration::from_millis(1);
        let s = OffsetDateTime::parse(&between(a, c), &Rfc3339).unwrap();
        assert!(a < s && s < c, "{s}");
        assert_eq!(countries_of("+14155550123"), ["US", "CA"]);
        assert_eq!(countries_of("+447700900123"), ["GB"]);
        assert!(countries_of("+999").is_empty());
    }
}
