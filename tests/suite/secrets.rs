//! Hostile echoes and huge answers: the whole catalog runs against a loopback server that echoes
//! every key it is sent (and every webhook secret it hands out) in every form a server could use
//! (a header, the content type, a non-UTF-8 content type, JSON escapes, percent-encoding, HTML
//! character references, base64, and straddling each excerpt's cut), and against one that
//! answers 7 MB of valid JSON to every request. No secret may reach stdout, stderr, JUnit, JSON
//! or HTML, peak memory stays under 300 MB, and the outputs stay small.
//!
//! Every server loop is bounded by the test's runtime, which stops at the end of each test.

use crate::common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::common::binary::{BIN, serve, temp_dir};
use base64::Engine;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// The run's key: it holds a `/` (JSON may escape it) and a `+`.
const KEY: &str = "sk_live_4eC39Hq/LyjWDarjtT1zdp7dc+9Qe";
/// A second key of the profile.
const RESTRICTED: &str = "rk_test_Zx81QmVvPp0aLw9Kd2eR7sT";
/// The signing secret the echo server hands out on `POST /webhooks`.
const WHSEC: &str = "whsec_MfKQ9r8GKYq/TwjUPD8ILPZIo2LaLbY3";

/// Peak memory allowed to a run (issue 20): 300 MB.
const PEAK_KB: u64 = 300 * 1024;

/// Every form a server could echo `s` in: the text of a body or a header.
fn echo_forms(s: &str) -> Vec<String> {
    let b64 = base64::engine::general_purpose::STANDARD;
    vec![
        s.to_string(),
        s.replace('_', "\\u005f").replace('/', "\\/"),
        s.chars().map(|c| format!("\\u{:04x}", c as u32)).collect(),
        s.bytes().map(|b| format!("%{b:02X}")).collect(),
        s.chars().map(|c| format!("&#x{:x};", c as u32)).collect(),
        b64.encode(format!("user:{s}")),
        b64.encode(format!("ab{s}")),
    ]
}

/// Every 8-character piece of `s`, as it would read in each form above except base64 (whose
/// pieces are not aligned to characters; its stable middle is checked whole).
fn pieces(s: &str) -> Vec<String> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    for w in chars.windows(8) {
        let piece: String = w.iter().collect();
        out.extend(echo_forms(&piece).into_iter().take(5));
    }
    let b64 = base64::engine::general_purpose::STANDARD.encode(format!("user:{s}"));
    out.push(b64[8..b64.len() - 4].to_string());
    out
}

/// The body an answer carries: the secrets in one form, padded so that one copy straddles the
/// explanation's 600-character cut and one the reports' 2000-character cut.
fn body_for(n: usize, secrets: &[String], may_cut: bool) -> String {
    let mut text = String::from("{\"data\":{\"echo\":\"");
    let form = n % 5;
    for s in secrets {
        let shown = &echo_forms(s)[form];
        text.push_str(shown);
        text.push(' ');
    }
    // Straddle the cuts, with the raw form and the escaped one.
    let s = &secrets[n % secrets.len()];
    let shown = &echo_forms(s)[n % 3];
    let pad = |to: usize, text: &String| "x".repeat(to.saturating_sub(text.len() + 10));
    let p = pad(590, &text);
    text.push_str(&p);
    text.push_str(shown);
    let p = pad(1995, &text);
    text.push_str(&p);
    text.push_str(shown);
    text.push_str("\"},\"message\":\"");
    text.push_str(shown);
    text.push_str("\"}");
    // A body cut off by the target in the middle of a secret: its first 22 characters end it.
    if may_cut && n % 7 == 3 && s.len() > 22 {
        text.push_str(&s[..22]);
    }
    text
}

struct Echo {
    url: String,
    _rt: tokio::runtime::Runtime,
}

/// Reads one request (head and a Content-Length body, bounded); returns the head.
async fn read_request(stream: &mut TcpStream) -> Option<String> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 256 * 1024 {
            return None;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0)
        .min(1 << 20);
    while buf.len() < head_end + length {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    Some(head)
}

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

/// A server on loopback; `answer(n, head)` gives the raw answer to the n-th request.
fn start(answer: impl Fn(usize, &str) -> Vec<u8> + Send + Sync + 'static) -> Echo {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let listener = rt
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind loopback");
    let addr: SocketAddr = listener.local_addr().expect("address");
    let answer = Arc::new(answer);
    let count = Arc::new(AtomicUsize::new(0));
    rt.spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let (answer, count) = (answer.clone(), count.clone());
            tokio::spawn(async move {
                // Keep-alive: answer requests on this connection until it closes (bounded).
                for _ in 0..10_000 {
                    let Some(head) = read_request(&mut stream).await else {
                        return;
                    };
                    let n = count.fetch_add(1, Ordering::Relaxed);
                    if stream.write_all(&answer(n, &head)).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    Echo {
        url: format!("http://{addr}"),
        _rt: rt,
    }
}

fn response(status: &str, content_type: &[u8], extra: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\nContent-Type: ").into_bytes();
    out.extend_from_slice(content_type);
    out.extend_from_slice(format!("\r\n{extra}Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    out.extend_from_slice(body);
    out
}

/// The echo server: every answer carries the request's key and every webhook secret handed out
/// so far, in the header and body forms of [`echo_forms`], rotating by request.
fn echo_server() -> Echo {
    let handed_out: Arc<Mutex<bool>> = Arc::new(Mutex::new(false));
    start(move |n, head| {
        let path = head.split_whitespace().nth(1).unwrap_or("/");
        let method = head.split_whitespace().next().unwrap_or("GET");
        if path == "/" {
            return response("404 Not Found", b"application/json", "", b"{}");
        }
        let key = header(head, "authorization").unwrap_or(KEY).to_string();
        if method == "POST" && path.starts_with("/webhooks") {
            *handed_out.lock().unwrap() = true;
            let body = format!(
                r#"{{"data":{{"id":"1","orgId":"OR1","label":null,"status":"enabled","url":"http://x.test/","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z","events":["call.completed"],"resourceIds":["*"],"secret":"{}"}}}}"#,
                WHSEC.replace('/', "\\/")
            );
            return response("201 Created", b"application/json", "", body.as_bytes());
        }
        let mut secrets = vec![key.clone()];
        if *handed_out.lock().unwrap() {
            secrets.push(WHSEC.to_string());
        }
        // The preflight's read is the API's (valid JSON with `data`): a body that is not JSON
        // there ends the run with exit 2 before any trial.
        let preflight = path.split('?').next() == Some("/phone-numbers");
        let body = body_for(n, &secrets, !preflight);
        let content_type: Vec<u8> = match n % 4 {
            0 => format!("text/html; charset=\"{key}\"").into_bytes(),
            1 => format!("application/problem+json; key={key}").into_bytes(),
            2 => {
                let mut ct = format!("application/json; k={key}; x=").into_bytes();
                ct.extend_from_slice(b"\xff\xfe");
                ct
            }
            _ => b"application/json".to_vec(),
        };
        // The key preflight's read is served (a 401 there would end the run before any trial);
        // its answer echoes the secrets like every other.
        let status = if preflight {
            "200 OK"
        } else {
            [
                "200 OK",
                "400 Bad Request",
                "404 Not Found",
                "401 Unauthorized",
            ][n % 4]
        };
        let extra = format!(
            "WWW-Authenticate: Bearer realm=\"{key}\"\r\nLocation: /v1/x?k={}\r\nRetry-After: 0\r\nX-Echo: {}\r\n",
            echo_forms(&key)[3],
            echo_forms(&key)[n % 5]
        );
        response(status, &content_type, &extra, body.as_bytes())
    })
}

/// A profile of the embedded reference's fixtures, with this test's keys.
fn profile(dir: &Path) -> std::path::PathBuf {
    // A directory of this test's own: the tests of this file run at once, and a shared one was
    // removed under a running `serve` (temp_dir starts afresh), which then wrote no profile.
    let tag = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("secrets");
    let served = serve(&format!("{tag}-profile"), &[]);
    let text = std::fs::read_to_string(&served.profile).expect("profile written");
    drop(served);
    let mut profile: Value = serde_json::from_str(&text).expect("profile is JSON");
    let fixtures = profile["fixtures"].as_object_mut().expect("fixtures");
    fixtures.insert("restricted_api_key".into(), RESTRICTED.into());
    for (name, value) in fixtures.iter_mut() {
        if name.ends_with("api_key") && name != "restricted_api_key" {
            *value = Value::String(format!("{RESTRICTED}{}", name.len()));
        }
    }
    // Nothing is delivered by these servers: short waits keep the run short.
    fixtures.insert("webhook_delivery_seconds".into(), 1.into());
    fixtures.insert("webhook_retry_seconds".into(), 1.into());
    fixtures.insert("webhook_quiet_seconds".into(), 0.into());
    profile["apiKey"] = Value::String(KEY.into());
    let path = dir.join("profile.json");
    std::fs::write(&path, serde_json::to_vec_pretty(&profile).unwrap()).unwrap();
    path
}

struct Outputs {
    code: Option<i32>,
    peak_kb: Option<u64>,
    /// (name, text) of stdout, stderr and each report.
    texts: Vec<(String, String)>,
}

/// Runs the whole catalog against `url` with every report written.
fn certify(name: &str, url: &str, extra: &[&str]) -> Outputs {
    let dir = temp_dir(name);
    let profile = profile(&dir);
    let time_out = dir.join("time");
    let mut cmd = if let Some(timer) = common::binary::gnu_time() {
        let mut c = Command::new(timer);
        c.arg("-f").arg("%M").arg("-o").arg(&time_out).arg(BIN);
        c
    } else {
        Command::new(BIN)
    };
    let (junit, json, html) = (
        dir.join("junit.xml"),
        dir.join("report.json"),
        dir.join("report.html"),
    );
    cmd.arg("--target")
        .arg(url)
        .arg("--profile")
        .arg(&profile)
        .args(["--timeout", "5"])
        .arg("--junit")
        .arg(&junit)
        .arg("--json")
        .arg(&json)
        .arg("--report")
        .arg(&html)
        .args(extra)
        .env_remove("WORKSPACE_API_KEY");
    let o = cmd.output().expect("the binary runs");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    let peak_kb = read(&time_out)
        .lines()
        .last()
        .and_then(|l| l.trim().parse().ok());
    let out = Outputs {
        code: o.status.code(),
        peak_kb,
        texts: vec![
            ("stdout".into(), String::from_utf8_lossy(&o.stdout).into()),
            ("stderr".into(), String::from_utf8_lossy(&o.stderr).into()),
            ("junit".into(), read(&junit)),
            ("json".into(), read(&json)),
            ("html".into(), read(&html)),
        ],
    };
    let _ = std::fs::remove_dir_all(&dir);
    out
}

#[test]
fn no_secret_in_any_output_whatever_form_the_target_echoes() {
    let echo = echo_server();
    let run = certify("echo", &echo.url, &[]);
    let stdout = &run.texts[0].1;
    assert_eq!(run.code, Some(1), "{stdout}\n{}", run.texts[1].1);
    assert!(!stdout.contains("panicked"), "{stdout}");
    // The run really met the echoes: failures show bodies, content types and reproductions.
    assert!(
        stdout.contains("response:  200 (text/html; charset=\"<API_KEY>\")"),
        "{stdout}"
    );
    assert!(
        stdout.contains("<REDACTED>"),
        "no webhook secret was echoed:\n{stdout}"
    );
    // Every piece of every secret, looked for in one pass over each output (the outputs of a
    // run whose every trial failed are megabytes; a search per piece took most of this test).
    let all: Vec<String> = [KEY, RESTRICTED, WHSEC, &WHSEC["whsec_".len()..]]
        .into_iter()
        .flat_map(pieces)
        .collect();
    let finder = aho_corasick::AhoCorasick::new(&all).expect("the pieces make an automaton");
    for (name, text) in &run.texts {
        assert!(!text.is_empty() || name == "stderr", "{name} is empty");
        if let Some(m) = finder.find(text.as_str()) {
            let at = m.start();
            let from = text.floor_char_boundary(at.saturating_sub(200));
            let to = text.ceil_char_boundary((at + 200).min(text.len()));
            panic!(
                "{name} shows `{}` of a secret:\n…{}…",
                &all[m.pattern().as_usize()],
                &text[from..to]
            );
        }
    }
}

#[test]
fn seven_megabyte_answers_keep_memory_and_outputs_bounded() {
    // Valid JSON of many small objects: parsed, it takes about ten times its size.
    let mut big = String::from("{\"data\":[");
    let mut i = 0;
    while big.len() < 7 * 1024 * 1024 {
        if i > 0 {
            big.push(',');
        }
        big.push_str(&format!(
            "{{\"id\":\"x{i}\",\"name\":\"item {i}\",\"n\":{i},\"tags\":[\"a\",\"b\"]}}"
        ));
        i += 1;
    }
    big.push_str("],\"totalItems\":1,\"nextPageToken\":null}");
    let big = Arc::new(big.into_bytes());
    let server = start(move |_, head| {
        if head.split_whitespace().nth(1) == Some("/") {
            return response("404 Not Found", b"application/json", "", b"{}");
        }
        response("200 OK", b"application/json", "", &big)
    });
    // 7 MB answers take the debug build about half a second each to parse and check: the
    // contacts and tasks areas (76 trials, a few hundred requests) show that memory does not
    // grow with the trials (before, each kept about 90 MB: 41 trials reached 3.9 GB).
    let run = certify(
        "big",
        &server.url,
        &["--area", "contacts", "--area", "tasks"],
    );
    let stdout = &run.texts[0].1;
    assert_eq!(run.code, Some(1), "{}", run.texts[1].1);
    assert!(stdout.contains("failed"), "{stdout}");
    match run.peak_kb {
        Some(kb) => {
            eprintln!("peak memory {} MB", kb / 1024);
            assert!(kb < PEAK_KB, "peak memory {} MB", kb / 1024)
        }
        None => eprintln!("no /usr/bin/time: peak memory not measured"),
    }
    // A bound per failure: every trial failed, none with more than a few kilobytes.
    let failures = stdout.matches("\n---- ").count().max(1);
    for (name, text) in &run.texts {
        let per = text.len() / failures;
        assert!(
            per < 16 * 1024,
            "{name}: {} bytes for {failures} failures",
            text.len()
        );
    }
}
