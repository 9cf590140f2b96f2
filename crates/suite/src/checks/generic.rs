//! The generic rules, run on every answer whatever the case (registered in `checks::rules`): no
//! server error, a declared status, JSON bodies, the `data` envelope, the list shape, the resource
//! schema, and the error body of the route's API generation with its code and title.

use serde_json::Value;

use super::Finding;
use super::rule::{AppliesTo, Judging, Rule};
use crate::client::Response;
use crate::redact::compact;
use conformance_contract::{Api, Contract, ErrorBody, Route, StatusKey};

const DECLARED: &str = "Endpoints > declared statuses";
const JSON_BODIES: &str = "Endpoints > JSON bodies";
const ENVELOPE: &str = "What the service does > data envelope";
const LIST_SHAPE: &str = "Pagination and collection conventions > list shape";
const V1_BODY: &str = "Errors > v1 error body";
const V1_CODES: &str = "Errors > v1 codes";
const WEBHOOK_BODY: &str = "Errors > Header-versioned webhook error body";
const LATEST_BODY: &str = "Errors > header-versioned error body";
const ANSWERS: &str = "Endpoints > answers";
const NO_SERVER_ERRORS: &str = "Errors > no server errors";
/// Authentication rule 3 names the 401 title for every generation.
const UNAUTHORIZED_TITLE: &str = "Authentication > 3";

/// The name of the rule that an answer came whole: after its finding no other rule runs.
pub(crate) const ANSWER_RULE: &str = "answer";
/// The name of the rule that a body is JSON: after its finding no rule of the body runs.
pub(crate) const JSON_RULE: &str = "JSON bodies";

/// The generic rules, in the order they judge: every answer whatever the case (a complete
/// answer, no server error, a declared status, JSON bodies, the `data` envelope, the list shape,
/// the resource schema, and the error body of the route's API generation with its code and
/// title). Registered once (`rules::Registry::standard`).
pub(crate) fn rules() -> Vec<Rule> {
    let answered = |j: &Judging<'_>| j.ex.outcome.is_ok();
    vec![
        Rule::new(ANSWER_RULE, AppliesTo::default(), &[], |j| {
            match &j.ex.outcome {
                Ok(_) => Vec::new(),
                Err(e) => vec![Finding::new(
                    ANSWERS,
                    "answer",
                    "a complete HTTP answer",
                    e.to_string(),
                )],
            }
        })
        .holding(move |j| clauses(answered(j), &[ANSWERS])),
        Rule::new("no server error", AppliesTo::default(), &[], |j| {
            match j.ex.outcome.as_ref() {
                Ok(r) if r.status >= 500 => vec![Finding::new(
                    NO_SERVER_ERRORS,
                    "no server error",
                    "a status below 500",
                    r.status.to_string(),
                )],
                _ => Vec::new(),
            }
        })
        .holding(move |j| clauses(answered(j), &[NO_SERVER_ERRORS])),
        Rule::new(
            "declared status",
            AppliesTo::default(),
            &[],
            declared_status,
        )
        .holding(|j| {
            let declared =
                j.route.is_some() && j.ex.outcome.as_ref().is_ok_and(|r| r.status != 429);
            clauses(declared, &[DECLARED])
        }),
        Rule::new(JSON_RULE, AppliesTo::default(), &[], json_bodies).holding(|j| {
            clauses(
                j.ex.outcome.as_ref().is_ok_and(|r| r.size > 0),
                &[JSON_BODIES],
            )
        }),
        Rule::new(
            "success body",
            AppliesTo {
                statuses: Some(vec![(200, 299)]),
                ..AppliesTo::default()
            },
            &[],
            |j| {
                let mut out = Vec::new();
                if let Ok(resp) = &j.ex.outcome {
                    success(j.contract, j.route, resp, &mut out);
                }
                out
            },
        )
        .holding(success_held),
        Rule::new(
            "error body",
            AppliesTo {
                statuses: Some(vec![(400, 599)]),
                ..AppliesTo::default()
            },
            &[],
            |j| {
                let mut out = Vec::new();
                if let Ok(resp) = &j.ex.outcome {
                    let kind = j
                        .route
                        .map(|r| r.error_body)
                        .unwrap_or_else(|| ErrorBody::of(Api::of_path(&j.ex.path)));
                    error_body(j.contract, j.route, kind, resp, &mut out);
                }
                out
            },
        )
        .holding(error_held),
    ]
}

fn clauses(held: bool, clauses: &[&str]) -> Vec<String> {
    if held {
        clauses.iter().map(|c| c.to_string()).collect()
    } else {
        Vec::new()
    }
}

/// A status the route declares (widened to any 4xx for a request that deviated on purpose from
/// the stated version, READINGS 8.1).
fn declared_status(j: &Judging<'_>) -> Vec<Finding> {
    let (Ok(resp), Some(route)) = (&j.ex.outcome, j.route) else {
        return Vec::new();
    };
    let widened = j.deviation.version && (400..500).contains(&resp.status);
    if resp.status == 429 || widened || route.response(resp.status).is_some() {
        return Vec::new();
    }
    let actual = match redirect_note(resp, Some(&j.ex.url)) {
        Some(note) => format!("{}: {note}", resp.status),
        None => resp.status.to_string(),
    };
    // A success where the operation states its success status (201 for a contact's
    // create, READINGS 2.1) breaks the operation's own clause too.
    let stated = ((200..300).contains(&resp.status)
        && route
            .responses
            .iter()
            .any(|r| matches!(r.status, StatusKey::Exact(s) if (200..300).contains(&s))))
    .then(|| route.clause.clone());
    let cited: Vec<String> = std::iter::once(DECLARED.to_string())
        .chain(stated.filter(|c| c != DECLARED))
        .collect();
    vec![
        Finding::new(
            DECLARED,
            "declared status",
            format!("one of {}", route.declared()),
            actual,
        )
        .with_clauses(&cited),
    ]
}

/// Headers the suite reads are readable, a body is labelled JSON and is JSON.
fn json_bodies(j: &Judging<'_>) -> Vec<Finding> {
    let mut out = Vec::new();
    let Ok(resp) = &j.ex.outcome else {
        return out;
    };
    // Headers the suite reads must be readable; other headers are opaque (RFC 9110 5.5).
    if resp
        .non_utf8_headers
        .iter()
        .any(|h| h.eq_ignore_ascii_case("content-type"))
    {
        out.push(Finding::new(
            JSON_BODIES,
            "content type",
            "application/json",
            "header content-type is not UTF-8",
        ));
    }
    if let Some(json) = &resp.json {
        if !is_json_content_type(resp.header("content-type")) {
            out.push(Finding::new(
                JSON_BODIES,
                "content type",
                "application/json",
                resp.header("content-type")
                    .unwrap_or("no Content-Type")
                    .to_string(),
            ));
        }
        if let Err(e) = json {
            // Say what came instead: an HTML error page is the usual culprit.
            let ct = resp.header("content-type").unwrap_or("no Content-Type");
            let actual = if is_json_content_type(Some(ct)) {
                e.to_string()
            } else {
                format!("a {ct} body, {e}")
            };
            out.push(Finding::new(
                JSON_BODIES,
                "JSON body",
                "a JSON body",
                actual,
            ));
        }
    }
    out
}

/// What a success with a body keeps: the envelope, a list's shape, the resource's schema.
fn success_held(j: &Judging<'_>) -> Vec<String> {
    let Ok(resp) = &j.ex.outcome else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if resp.size > 0 {
        out.push(ENVELOPE.to_string());
        if let Some(route) = j.route {
            if route.list {
                out.push(LIST_SHAPE.into());
            }
            if let Some(spec) = route.response(resp.status).filter(|d| d.schema.is_some()) {
                out.push(spec.clause.clone().unwrap_or_else(|| route.clause.clone()));
            }
        }
    }
    out
}

/// What an error answer keeps: the error body of its generation, the 401 title, a v1 code of a
/// generic row.
fn error_held(j: &Judging<'_>) -> Vec<String> {
    let Ok(resp) = &j.ex.outcome else {
        return Vec::new();
    };
    let kind = j
        .route
        .map(|r| r.error_body)
        .unwrap_or(if j.ex.path.starts_with("/v1/") {
            ErrorBody::V1
        } else {
            ErrorBody::Latest
        });
    let mut out = vec![
        match kind {
            ErrorBody::V1 => V1_BODY,
            ErrorBody::Webhook => WEBHOOK_BODY,
            ErrorBody::Latest => LATEST_BODY,
        }
        .to_string(),
    ];
    if resp.status == 401 {
        out.push(UNAUTHORIZED_TITLE.into());
    }
    let generic_row = j
        .route
        .and_then(|r| r.area.as_deref())
        .and_then(|a| j.contract.codes.row(a, resp.status))
        .is_some_and(|r| r.is_generic());
    if kind == ErrorBody::V1 && generic_row {
        out.push(V1_CODES.into());
    }
    out
}

/// For a 3xx answer: where the target sent the suite, which never follows (a redirect is the
/// answer; the URL it names is another target to certify). `base` resolves a relative Location.
pub(crate) fn redirect_note(resp: &Response, base: Option<&str>) -> Option<String> {
    if !(300..400).contains(&resp.status) {
        return None;
    }
    Some(match resp.header("location") {
        Some(location) => {
            let target = base
                .and_then(|b| reqwest::Url::parse(b).ok())
                .and_then(|b| b.join(location.trim()).ok())
                .map_or_else(|| location.to_string(), |u| u.to_string());
            format!("the target redirected to {target}; certify that URL instead")
        }
        None => "a redirect without a Location".to_string(),
    })
}

fn is_json_content_type(ct: Option<&str>) -> bool {
    let Some(ct) = ct else { return false };
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

fn success(contract: &Contract, route: Option<&Route>, resp: &Response, out: &mut Vec<Finding>) {
    let declared = route.and_then(|r| r.response(resp.status));
    let Some(body) = resp.value() else {
        // READINGS 2.2: a success whose body the spec does not show may be empty.
        if declared.is_some_and(|d| d.schema.is_some()) {
            out.push(Finding::new(
                ENVELOPE,
                "data envelope",
                "a JSON body with `data`",
                "an empty body",
            ));
        }
        return;
    };
    let Some(data) = body.get("data") else {
        out.push(
            Finding::new(
                ENVELOPE,
                "data envelope",
                "a top-level `data` property",
                compact(body),
            )
            .at(""),
        );
        return;
    };
    if route.is_some_and(|r| r.list) {
        if !data.is_array() {
            out.push(
                Finding::new(
                    LIST_SHAPE,
                    "list shape",
                    "`data` is an array",
                    compact(data),
                )
                .at("/data"),
            );
        }
        match body.get("totalItems") {
            Some(v) if v.is_i64() || v.is_u64() => {}
            other => out.push(
                Finding::new(
                    LIST_SHAPE,
                    "list shape",
                    "`totalItems` is an integer",
                    crate::cases::matcher::show(other),
                )
                .at("/totalItems"),
            ),
        }
        match body.get("nextPageToken") {
            Some(Value::String(_)) | Some(Value::Null) => {}
            other => out.push(
                Finding::new(
                    LIST_SHAPE,
                    "list shape",
                    "`nextPageToken` is a string or null",
                    crate::cases::matcher::show(other),
                )
                .at("/nextPageToken"),
            ),
        }
    }
    if let (Some(route), Some(spec)) = (route, declared) {
        if let Some(schema) = &spec.schema {
            let clause = spec.clause.as_deref().unwrap_or(&route.clause);
            // Envelope problems are reported above with their own clause; the schema speaks for `data`.
            for v in contract
                .validate(schema, body, crate::redact::compact)
                .into_iter()
                .filter(|v| v.pointer.starts_with("/data"))
            {
                // A value of a schema that states its own rule (a UTC instant, an E.164 number)
                // breaks that rule's clause first, whichever resource holds it.
                let cited: Vec<String> = contract
                    .keyword_clause(&v.keyword)
                    .filter(|c| *c != clause)
                    .into_iter()
                    .chain([clause])
                    .map(str::to_string)
                    .collect();
                out.push(
                    Finding::new(
                        clause,
                        format!("schema {schema}"),
                        "a value the schema allows",
                        v.message,
                    )
                    .at(v.pointer)
                    .keyword(&v.keyword)
                    .with_clauses(&cited),
                );
            }
        }
    }
}

fn error_body(
    contract: &Contract,
    route: Option<&Route>,
    kind: ErrorBody,
    resp: &Response,
    out: &mut Vec<Finding>,
) {
    let (schema, clause) = match kind {
        ErrorBody::V1 => ("V1Error", V1_BODY),
        ErrorBody::Webhook => ("WebhookError", WEBHOOK_BODY),
        ErrorBody::Latest => ("LatestError", LATEST_BODY),
    };
    let Some(body) = resp.value() else {
        out.push(Finding::new(
            clause,
            "error body",
            "a JSON error body",
            "an empty body",
        ));
        return;
    };
    for v in contract.validate(schema, body, crate::redact::compact) {
        out.push(
            Finding::new(
                clause,
                "error body",
                format!("a body the {schema} schema allows"),
                v.message,
            )
            .at(v.pointer)
            .keyword(&v.keyword),
        );
    }
    let title = body.get("title").and_then(Value::as_str);
    // Authentication rule 3 names the 401 title for every generation.
    if resp.status == 401 && title != Some("Unauthorized") {
        out.push(
            Finding::new(
                UNAUTHORIZED_TITLE,
                "error title",
                "Unauthorized",
                crate::cases::matcher::show(body.get("title")),
            )
            .at("/title"),
        );
    }
    match kind {
        ErrorBody::V1 => {
            if let Some(s) = body.get("status").filter(|s| s.is_number()) {
                if s.as_u64() != Some(u64::from(resp.status)) {
                    out.push(
                        Finding::new(V1_BODY, "error status", resp.status.to_string(), compact(s))
                            .at("/status"),
                    );
                }
            }
            // READINGS 3.4: only a generic row binds every condition of its status.
            let row = route
                .and_then(|r| r.area.as_deref())
                .and_then(|a| contract.codes.row(a, resp.status));
            // Authentication 3 names the title `Not Phone Number User` where a number-scoped
            // access check applies on calls (their recordings included), contacts and
            // conversations: that condition is the rule's own, which no generic row binds.
            let number_scoped = resp.status == 403
                && title == Some("Not Phone Number User")
                && route.is_some_and(|r| {
                    ["/v1/call", "/v1/contacts", "/v1/conversations"]
                        .iter()
                        .any(|p| r.template.starts_with(p))
                });
            if let Some(row) = row.filter(|r| r.is_generic() && !number_scoped) {
                let code = body.get("code").and_then(Value::as_str);
                if code != Some(row.code.as_str()) {
                    out.push(
                        Finding::new(
                            V1_CODES,
                            "error code",
                            &row.code,
                            crate::cases::matcher::show(body.get("code")),
                        )
                        .at("/code"),
                    );
                }
                if resp.status != 401 && title != Some(row.title.as_str()) {
                    out.push(
                        Finding::new(
                            V1_CODES,
                            "error title",
                            &row.title,
                            crate::cases::matcher::show(body.get("title")),
                        )
                        .at("/title"),
                    );
                }
            }
        }
        ErrorBody::Webhook => {
            let want = contract.webhook_titles.title(resp.status);
            if let Some(want) = want.filter(|_| resp.status != 401) {
                if title != Some(want) {
                    out.push(
                        Finding::new(
                            WEBHOOK_BODY,
                            "error title",
                            want,
                            crate::cases::matcher::show(body.get("title")),
                        )
                        .at("/title"),
                    );
                }
            }
        }
        ErrorBody::Latest => {}
    }
}
