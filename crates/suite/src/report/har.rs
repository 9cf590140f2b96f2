//! The run's exchanges as HAR 1.2 (`--har FILE`; `--har-failed` keeps those of failed trials):
//! the HTTP Archive format browsers' developer tools and HTTP debuggers open. Serde structs of
//! the objects of the specification (Jan Odvarko, "HAR 1.2 Spec"); every text passes the run's
//! redactor, as in every other output: keys are placeholders, bodies are the redacted excerpts
//! the reports keep. Every request the run sent is one entry, however many trials share it (the
//! preflight's, discovery's and the cleanup's too), and so is every delivery the webhook
//! receiver got: the entries of requests sent are the run's request count. Each entry's comment
//! names the request's number, its trials and their defects, which the HTML report links to.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::Report;
use crate::cases::Case;
use crate::client::{EXCERPT_CHARS, Exchange, Redactor};
use crate::results::{CaseResult, Verdict};
use crate::webhooks::Heard;

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

/// What the HAR of a run is made of besides its results: every request the client sent (kept
/// since before the first, [`crate::client::Client::keep_every_exchange`]), every request the
/// webhook receiver got, and which requests the trials sent (by number: those before came from
/// the preflight and discovery, those after from the cleanup).
pub struct Traffic<'a> {
    pub sent: &'a [Arc<Exchange>],
    pub heard: &'a [Heard],
    /// The receiver's base URL, which the deliveries came to.
    pub receiver: &'a str,
    /// The numbers of the requests sent while the trials ran.
    pub trials: std::ops::RangeInclusive<u64>,
}

/// The HAR of the run: every request sent, once, whichever trials share it (the preflight's,
/// discovery's and the cleanup's included), and every delivery the receiver got; with
/// `failed_only`, those of the failed trials. Each entry's comment names the request's number,
/// the trials whose results hold it and their defects. Entries come in the order they started;
/// one never sent starts at the run's start (`report.started`, RFC 3339).
pub fn render(
    results: &[(Arc<Case>, CaseResult)],
    report: &Report,
    traffic: &Traffic<'_>,
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
    // Per request number, the trials that hold it, each with the exchange's number there.
    let mut holders: BTreeMap<u64, Vec<(&str, usize)>> = BTreeMap::new();
    let mut of_failed: BTreeMap<u64, &Arc<Exchange>> = BTreeMap::new();
    for (case, result) in sorted.iter().map(|x| (&x.0, &x.1)) {
        let failed = matches!(result.verdict, Verdict::Failed(_));
        for (i, ex) in result.exchanges.iter().enumerate() {
            if ex.seq == 0 {
                continue;
            }
            let held = holders.entry(ex.seq).or_default();
            if !held.iter().any(|(t, _)| *t == case.name) {
                held.push((&case.name, i + 1));
            }
            if failed {
                of_failed.entry(ex.seq).or_insert(ex);
            }
        }
    }
    let started = if report.started.is_empty() {
        "1970-01-01T00:00:00Z".to_string()
    } else {
        report.started.clone()
    };
    let chosen: Vec<&Arc<Exchange>> = if failed_only {
        of_failed.into_values().collect()
    } else {
        traffic.sent.iter().collect()
    };
    let mut entries: Vec<Entry> = chosen
        .into_iter()
        .map(|ex| {
            let comment = sent_comment(ex.seq, holders.get(&ex.seq), &defects, traffic);
            entry(ex, &started, comment, redactor)
        })
        .collect();
    let failed: std::collections::BTreeSet<&str> = report
        .trials
        .iter()
        .filter(|t| t.verdict == "failed")
        .map(|t| t.name.as_str())
        .collect();
    for h in traffic.heard {
        let trial = h.trial.as_deref();
        if failed_only && !trial.is_some_and(|t| failed.contains(t)) {
            continue;
        }
        entries.push(delivery_entry(
            h,
            traffic.receiver,
            trial,
            &defects,
            redactor,
        ));
    }
    // HAR 1.2 prefers entries in the order they started; the ties keep their order.
    entries.sort_by(|a, b| a.started_date_time.cmp(&b.started_date_time));
    let har = Har {
        log: Log {
            version: "1.2",
            creator: Creator {
                name: "workspace-conformance",
                version: env!("CARGO_PKG_VERSION"),
            },
            entries,
            comment: format!(
                "run {} against {}: {} sent and {} received by the webhook receiver{}; bodies are the redacted excerpts the reports keep",
                report.run_id,
                report.target,
                super::plural(report.requests as usize, "request"),
                super::plural(report.deliveries_received as usize, "delivery"),
                if failed_only {
                    " (here those of the failed trials)"
                } else {
                    ""
                }
            ),
        },
    };
    let text = serde_json::to_string_pretty(&har).unwrap_or_default();
    redactor.redact(&text) + "\n"
}

/// The comment of a request sent: its number, the trials that hold it (each with the
/// exchange's number there) and their defects, or the part of the run that sent it.
fn sent_comment(
    seq: u64,
    held: Option<&Vec<(&str, usize)>>,
    defects: &BTreeMap<&str, &[String]>,
    traffic: &Traffic<'_>,
) -> String {
    let mut comment = format!("request {seq} of the run; ");
    match held {
        Some(trials) if !trials.is_empty() => {
            let named: Vec<String> = trials
                .iter()
                .map(|(t, i)| format!("trial {t} (exchange {i})"))
                .collect();
            comment.push_str(&named.join(", "));
            let mut ids: Vec<&str> = trials
                .iter()
                .flat_map(|(t, _)| defects.get(t).copied().unwrap_or_default())
                .map(String::as_str)
                .collect();
            ids.sort_unstable();
            ids.dedup();
            if !ids.is_empty() {
                comment.push_str(&format!("; defects {}", ids.join(", ")));
            }
        }
        _ if seq < *traffic.trials.start() => {
            comment.push_str("before the trials (the preflight, discovery)");
        }
        _ if seq > *traffic.trials.end() => comment.push_str("after the trials (the cleanup)"),
        _ => comment.push_str(
            "sent during the trials and kept in no trial's record (a random sequence's tidying up)",
        ),
    }
    comment
}

/// A request the webhook receiver got, as an entry: the target's request, the receiver's
/// answer.
fn delivery_entry(
    h: &Heard,
    receiver: &str,
    trial: Option<&str>,
    defects: &BTreeMap<&str, &[String]>,
    r: &Redactor,
) -> Entry {
    let ms = h.elapsed.as_secs_f64() * 1000.0;
    let body = String::from_utf8_lossy(&h.body);
    let mut comment = format!(
        "webhook delivery received from the target, answered {}",
        h.answered
    );
    if let Some(t) = trial {
        comment.push_str(&format!("; trial {t}"));
        if let Some(ids) = defects.get(t).filter(|d| !d.is_empty()) {
            comment.push_str(&format!("; defects {}", ids.join(", ")));
        }
    }
    let mime = h
        .headers
        .iter()
        .find(|(k, _)| k == "content-type")
        .map_or("application/json", |(_, v)| v.as_str());
    Entry {
        started_date_time: h
            .received_at
            .format(&time::format_description::well_known::Rfc3339)
            .unwrap_or_default(),
        time: ms,
        request: Request {
            method: h.method.clone(),
            url: r.redact(&format!("{receiver}{}", h.path)),
            http_version: "HTTP/1.1",
            cookies: Vec::new(),
            headers: h
                .headers
                .iter()
                .map(|(k, v)| Pair {
                    name: k.clone(),
                    value: r.redact(v),
                })
                .collect(),
            query_string: Vec::new(),
            post_data: h.size.map(|_| PostData {
                mime_type: mime.to_string(),
                text: r.redact(&body),
            }),
            headers_size: -1,
            body_size: h.size.map_or(-1, |n| n as i64),
        },
        response: Response {
            status: h.answered,
            status_text: reason(h.answered),
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
            body_size: 0,
            error: None,
        },
        cache: Cache {},
        timings: Timings {
            send: 0.0,
            wait: ms,
            receive: 0.0,
        },
        comment,
    }
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
