//! The middleware that applies the reshaping variants: answers on their way out (and page tokens
//! on their way in) take the instance's variants here, so every area gets them without code of its
//! own. The catalog of variants is `variants.rs`; this module is what needs the app state.

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, Uri, header};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{Map, Value, json};
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

use super::app::App;
use super::errors::Generation;
use super::variants::{Variant, VariantSet};

/// Fields the absent and null variants keep. First what READINGS 1.1 and 1.2 require: the
/// envelope, identifiers, the error body fields, the webhook's required fields. Then the fields a
/// stated rule or transition is about, which an implementation shows for the rule to mean
/// anything: a contact's `source` (public-api), the entries PATCH replaces (`emails`,
/// `phoneNumbers`, `customFields` and their `key` and `value`), a task's `revision`, `completed`,
/// `dueDate`, `description` (complete/reopen, due date, PUT), what `include` adds (`summary`,
/// `voicemail`, `restrictions`), the keys of a stated order (`createdAt`, `startTime`), a message's
/// `text` (the whitespace rule), `to` (one group message to several recipients) and `media`
/// (present when attached), a webhook's `apiVersion` (Versioning 3), a delivery record's `eventId`
/// and `resourceId` (Events: null for test deliveries) and the signing secret of a create or rotate
/// answer (READINGS 6.2: `secret`, or `signingKey` under its variant). Every other field may go.
#[rustfmt::skip]
const REQUIRED: &[&str] = &[
    "data", "totalItems", "nextPageToken", "id", "taskId", "conversationId", "phoneNumber", "message", "code", "status",
    "docs", "title", "orgId", "label", "url", "createdAt", "updatedAt", "events", "resourceIds", "source", "revision",
    "emails", "phoneNumbers", "customFields", "key", "value", "completed", "dueDate", "description",
    "summary", "voicemail", "restrictions", "startTime", "text", "to", "media",
    "apiVersion", "eventId", "resourceId", "secret", "signingKey",
];

/// Reshapes answers (and incoming page tokens) as the instance's variants say.
pub(crate) async fn rewrite(State(app): State<App>, mut req: Request, next: Next) -> Response {
    let variants = app.switches().variants.clone();
    if variants.is_empty() {
        return next.run(req).await;
    }
    if variants.has(Variant::PageTokenOpaque) {
        if let Some(uri) = decode_page_token(req.uri()) {
            *req.uri_mut() = uri;
        }
    }
    let path = req.uri().path().to_string();
    let response = next.run(req).await;
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, 16 * 1024 * 1024).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let Ok(mut value) = serde_json::from_slice::<Value>(&bytes) else {
        return Response::from_parts(parts, Body::from(bytes));
    };
    reshape(&variants, &path, parts.status, &mut value);
    if variants.has(Variant::JsonCharset) {
        parts.headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json; charset=utf-8"),
        );
    }
    let text = value.to_string();
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(text))
}

fn reshape(variants: &VariantSet, path: &str, status: StatusCode, body: &mut Value) {
    let v1 = Generation::of_path(path) == Generation::V1;
    let webhook = path.starts_with("/webhooks");
    if status.is_success() {
        if let Some(data) = body.get_mut("data") {
            if variants.has(Variant::OptionalFieldsNull) {
                walk_objects(data, &mut |o| {
                    for (k, v) in o.iter_mut() {
                        if !REQUIRED.contains(&k.as_str()) && !v.is_object() && !v.is_array() {
                            *v = Value::Null;
                        }
                    }
                });
            }
            if variants.has(Variant::NullsAbsent) {
                walk_objects(data, &mut |o| {
                    o.retain(|k, v| !v.is_null() || REQUIRED.contains(&k.as_str()))
                });
            }
            if variants.has(Variant::OptionalFieldsAbsent) {
                walk_objects(data, &mut |o| {
                    o.retain(|k, _| REQUIRED.contains(&k.as_str()))
                });
            }
        }
        if let Some(total) = body.get_mut("totalItems").filter(|t| t.is_u64()) {
            if variants.has(Variant::TotalItemsOff) {
                *total = json!(total.as_u64().unwrap_or(0) + 7);
            }
            if variants.has(Variant::TotalItemsZero) {
                *total = json!(0);
            }
        }
        if variants.has(Variant::PageTokenOpaque) {
            if let Some(Value::String(t)) = body.get_mut("nextPageToken") {
                *t = encode_page_token(t);
            }
        }
    } else if let Some(o) = body.as_object_mut() {
        if v1 && variants.has(Variant::V1ErrorFull) {
            o.entry("description")
                .or_insert(json!("The request could not be served; see message."));
            o.entry("errors").or_insert(json!([{"path": "/", "message": "see message", "schema": {"type": "object"}, "value": null}]));
        }
        if v1 && variants.has(Variant::V1ErrorMinimal) {
            o.remove("trace");
            o.remove("description");
            o.remove("errors");
        }
        if !v1 && !webhook && variants.has(Variant::LatestErrorExtra) {
            o.entry("code")
                .or_insert(json!(format!("E{}", status.as_u16())));
            o.entry("status").or_insert(json!(status.as_u16()));
            o.entry("trace").or_insert(json!("4f1c2d9e"));
            o.entry("requestId").or_insert(json!("req-0001"));
        }
    }
    if variants.has(Variant::ExtraFields) {
        walk_objects(body, &mut |o| {
            o.insert("vendorExtension".into(), json!("not in the contract"));
        });
    }
    for (variant, style) in [
        (Variant::TimestampsMicros, Style::Micros),
        (Variant::TimestampsWholeSeconds, Style::WholeSeconds),
        (Variant::TimestampsOffset, Style::Offset),
    ] {
        if variants.has(variant) {
            walk_strings(body, &mut |s| restyle_timestamp(s, style));
        }
    }
}

fn walk_objects(v: &mut Value, f: &mut dyn FnMut(&mut Map<String, Value>)) {
    match v {
        Value::Object(o) => {
            f(o);
            for child in o.values_mut() {
                walk_objects(child, f);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| walk_objects(i, f)),
        _ => {}
    }
}

fn walk_strings(v: &mut Value, f: &mut dyn FnMut(&mut String)) {
    match v {
        Value::String(s) => f(s),
        Value::Object(o) => o.values_mut().for_each(|c| walk_strings(c, f)),
        Value::Array(items) => items.iter_mut().for_each(|i| walk_strings(i, f)),
        _ => {}
    }
}

#[derive(Clone, Copy)]
enum Style {
    Micros,
    WholeSeconds,
    Offset,
}

/// Rewrites a UTC timestamp in another RFC 3339 form of the same instant (or a whole second).
fn restyle_timestamp(s: &mut String, style: Style) {
    let looks_like = s.len() >= 20
        && s.as_bytes().get(10) == Some(&b'T')
        && (s.ends_with('Z') || s.ends_with("+00:00"));
    if !looks_like {
        return;
    }
    let Ok(t) = OffsetDateTime::parse(s, &Rfc3339) else {
        return;
    };
    let date = format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    );
    let fraction = |s: &str| {
        s.find('.').map(|i| {
            s[i..]
                .trim_end_matches('Z')
                .trim_end_matches("+00:00")
                .to_string()
        })
    };
    let zone = if s.ends_with("+00:00") { "+00:00" } else { "Z" };
    *s = match style {
        Style::Micros => format!("{date}.{:06}{zone}", t.microsecond()),
        Style::WholeSeconds => format!("{date}{zone}"),
        Style::Offset => format!("{date}{}+00:00", fraction(s).unwrap_or_default()),
    };
}

const TOKEN_PREFIX: &str = "v2.";

fn encode_page_token(t: &str) -> String {
    let hex: String = t.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{TOKEN_PREFIX}{hex}.{}", "0".repeat(24))
}

/// The request URI with an opaque `pageToken` turned back into the reference's own.
fn decode_page_token(uri: &Uri) -> Option<Uri> {
    let query = uri.query()?;
    let mut changed = false;
    let pairs: Vec<(String, String)> = form_urlencoded::parse(query.as_bytes())
        .map(|(k, v)| {
            let mut v = v.into_owned();
            if k == "pageToken" {
                if let Some(decoded) = v
                    .strip_prefix(TOKEN_PREFIX)
                    .and_then(|rest| rest.split('.').next())
                    .and_then(|hex| {
                        (0..hex.len())
                            .step_by(2)
                            .map(|i| {
                                hex.get(i..i + 2)
                                    .and_then(|b| u8::from_str_radix(b, 16).ok())
                            })
                            .collect::<Option<Vec<u8>>>()
                    })
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                {
                    v = decoded;
                    changed = true;
                }
            }
            (k.into_owned(), v)
        })
        .collect();
    if !changed {
        return None;
    }
    let query = form_urlencoded::Serializer::new(String::new())
        .extend_pairs(&pairs)
        .finish();
    format!("{}?{query}", uri.path()).parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_keep_the_instant() {
        for (style, want) in [
            (Style::Micros, "2026-03-01T10:00:00.120000Z"),
            (Style::WholeSeconds, "2026-03-01T10:00:00Z"),
            (Style::Offset, "2026-03-01T10:00:00.120+00:00"),
        ] {
            let mut s = "2026-03-01T10:00:00.120Z".to_string();
            restyle_timestamp(&mut s, style);
            assert_eq!(s, want);
        }
        let mut not_a_time = "2026-03-01 notes".to_string();
        restyle_timestamp(&mut not_a_time, Style::Offset);
        assert_eq!(not_a_time, "2026-03-01 notes");
    }

    #[test]
    fn page_tokens_round_trip() {
        let token = encode_page_token("p1abc");
        let uri: Uri = format!("/v1/contacts?maxResults=2&pageToken={token}")
            .parse()
            .unwrap();
        let back = decode_page_token(&uri).unwrap();
        assert_eq!(back.query(), Some("maxResults=2&pageToken=p1abc"));
    }

    #[test]
    fn optional_fields_go_but_required_stay() {
        let mut body = json!({"data": {"id": "1", "source": "public-api", "firstName": "A", "role": null, "emails": [{"id": "e", "name": "w", "value": "x"}]}});
        reshape(
            &VariantSet::new([Variant::OptionalFieldsAbsent]),
            "/contacts/1",
            StatusCode::OK,
            &mut body,
        );
        let kept = json!({"data": {"id": "1", "source": "public-api", "emails": [{"id": "e", "value": "x"}]}});
        assert_eq!(body, kept);
    }
}
