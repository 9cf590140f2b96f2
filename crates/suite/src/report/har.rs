//! The run's exchanges as HAR 1.2 (`--har FILE`; `--har-failed` keeps those of failed trials):
//! the HTTP Archive format browsers' developer tools and HTTP debuggers open. Serde structs of
//! the objects of the specification (Jan Odvarko, "HAR 1.2 Spec"); every text passes the run's
//! redactor, as in every other output: keys are placeholders, bodies are the redacted excerpts
//! the reports keep. Each entry's comment names its trial, step and the trial's defects, which
//! the HTML report links to.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::Report;
use crate::cases::Case;
use crate::client::{EXCERPT_CHARS, Exchange, Redactor};
use crate::results::{CaseResult, Verdict};

#[derive(Serialize)]
struct Har {
    log: Log,
}

#[derive(Serialize)]
struct Log {
    version: &'static str,
    creator: Creator,
    entries: Vec<Entry>,
    comment: String,
}

#[derive(Serialize)]
struct Creator {
    name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Entry {
    started_date_time: String,
    /// Milliseconds.
    time: f64,
    request: Request,
    response: Response,
    cache: Cache,
    timings: Timings,
    comment: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Request {
    method: String,
    url: String,
    http_version: &'static str,
    cookies: Vec<Pair>,
    headers: Vec<Pair>,
    query_string: Vec<Pair>,
    #[serde(skip_serializing_if = "Option::is_none")]
    post_data: Option<PostData>,
    headers_size: i64,
    body_size: i64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Response {
    status: u16,
    status_text: String,
    http_version: &'static str,
    cookies: Vec<Pair>,
    headers: Vec<Pair>,
    content: Content,
    #[serde(rename = "redirectURL")]
    redirect_url: String,
    headers_size: i64,
    body_size: i64,
    /// Why no answer came (HAR's custom fields start with `_`).
    #[serde(rename = "_error", skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct Pair {
    name: String,
    value: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PostData {
    mime_type: String,
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Content {
    size: i64,
    mime_type: String,
    text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    comment: Option<String>,
}

#[derive(Serialize)]
struct Cache {}

#[derive(Serialize)]
struct Timings {
    send: f64,
    wait: f64,
    receive: f64,
}

/// The HAR of the run's exchanges (those of failed trials with `failed_only`), by trial name;
/// `report` gives each trial's defects for the entries' comments. Each entry starts when its
/// request went, a trial's in the order they went; one never sent starts at the run's start
/// (`report.started`, RFC 3339).
pub fn render(
    results: &[(Arc<Case>, CaseResult)],
    report: &Report,
    redactor: &Redactor,
    failed_only: bool,
) -> String {
    let defects: BTreeMap<&str, &[String]> = report
        .trials
        .iter()
        .map(|t| (t.name.as_str(), t.defects.as_slice()))
        .collect();
    let mut sorted: Vec<&(Arc<Case>, CaseResult)> = results.iter().collect();
    sorted.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let started = if report.started.is_empty() {
        "1970-01-01T00:00:00Z".to_string()
    } else {
        report.started.clone()
    };
    let mut entries = Vec::new();
    for (case, result) in sorted.iter().map(|x| (&x.0, &x.1)) {
        let failed = matches!(result.verdict, Verdict::Failed(_));
        if failed_only && !failed {
            continue;
        }
        let named = defects.get(case.name.as_str()).copied().unwrap_or_default();
        // In the order the requests went (HAR 1.2 prefers entries by start): requests a trial
        // sends together (a refusal and its control) may start in either order. Each keeps its
        // number in the trial, as explanations give it.
        let mut in_time: Vec<(usize, &Arc<Exchange>)> =
            result.exchanges.iter().enumerate().collect();
        in_time.sort_by_key(|(_, ex)| ex.sent);
        for (i, ex) in in_time {
            let mut comment = format!("trial {}, exchange {}", case.name, i + 1);
            if !named.is_empty() {
                comment.push_str(&format!("; defects {}", named.join(", ")));
            }
            entries.push(entry(ex, &started, comment, redactor));
        }
    }
    let har = Har {
        log: Log {
            version: "1.2",
            creator: Creator {
                name: "workspace-conformance",
                version: env!("CARGO_PKG_VERSION"),
            },
            entries,
            comment: format!(
                "run {} against {}; bodies are the redacted excerpts the reports keep",
                report.run_id, report.target
            ),
        },
    };
    let text = serde_json::to_string_pretty(&har).unwrap_or_default();
    redactor.redact(&text) + "\n"
}

fn entry(ex: &Exchange, started: &str, comment: String, r: &Redactor) -> Entry {
    let started = ex
        .sent
        .and_then(|t| {
            time::OffsetDateTime::from(t)
                .format(&time::format_description::well_known::Rfc3339)
                .ok()
        })
        .unwrap_or_else(|| started.to_string());
    let ms = ex.elapsed.as_secs_f64() * 1000.0;
    let url = r.redact(&ex.url);
    let query_string = reqwest::Url::parse(&ex.url)
        .map(|u| {
            u.query_pairs()
                .map(|(k, v)| Pair {
                    name: r.redact(&k),
                    value: r.redact(&v),
                })
                .collect()
        })
        .unwrap_or_default();
    let headers: Vec<Pair> = ex
        .request_headers
        .iter()
        .map(|(k, v)| Pair {
            name: k.clone(),
            value: r.redact(v),
        })
        .collect();
    let request_type = ex
        .request_headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        .map_or("application/json", |(_, v)| v.as_str());
    let post_data = ex.request_body.as_ref().map(|b| PostData {
        mime_type: request_type.to_string(),
        text: r.redact(b),
    });
    let body_size = ex.request_body.as_ref().map_or(0, |b| b.len() as i64);
    let response = match &ex.outcome {
        Ok(resp) => {
            let (text, cut) = resp.excerpt(EXCERPT_CHARS, r);
            Response {
                status: resp.status,
                status_text: reason(resp.status),
                http_version: "HTTP/1.1",
                cookies: Vec::new(),
                headers: resp
                    .headers
                    .iter()
                    .map(|(k, v)| Pair {
                        name: k.clone(),
                        value: r.redact(v),
                    })
                    .collect(),
                content: Content {
                    size: resp.size as i64,
                    mime_type: resp.header("content-type").unwrap_or("").to_string(),
                    text,
                    comment: cut
                        .then(|| format!("the first characters of a body of {} bytes", resp.size)),
                },
                redirect_url: resp
                    .header("location")
                    .map(|l| r.redact(l))
                    .unwrap_or_default(),
                headers_size: -1,
                body_size: resp.size as i64,
                error: None,
            }
        }
        Err(e) => Response {
            status: 0,
            status_text: String::new(),
            http_version: "HTTP/1.1",
            cookies: Vec::new(),
            headers: Vec::new(),
            content: Content {
                size: 0,
                mime_type: "x-unknown".into(),
                text: String::new(),
                comment: None,
            },
            redirect_url: String::new(),
            headers_size: -1,
            body_size: -1,
            error: Some(r.redact(&e.to_string())),
        },
    };
    Entry {
        started_date_time: started,
        time: ms,
        request: Request {
            method: ex.method.clone(),
            url,
            http_version: "HTTP/1.1",
            cookies: Vec::new(),
            headers,
            query_string,
            post_data,
            headers_size: -1,
            body_size,
        },
        response,
        cache: Cache {},
        timings: Timings {
            send: 0.0,
            wait: ms,
            receive: 0.0,
        },
        comment,
    }
}

/// The reason phrase of a status, as HTTP/1.1 names it (empty for an unknown one).
fn reason(status: u16) -> String {
    reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("")
        .to_string()
}
