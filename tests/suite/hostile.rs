//! The suite against hostile targets: a loopback server that misbehaves in one way per mode
//! (never answers, stalls, trickles, sends 50 MB, broken JSON, HTML, a cut chunked body, a reset,
//! redirects (answers, never followed), 100,000 levels of nesting, non-UTF-8 header bytes). For every mode the binary
//! runs two trials against it and must end within a bound derived from `--timeout`, never panic,
//! exit 1 (not 101), and fail each trial with a reason naming the misbehaviour.
//!
//! The server answers the suite's reachability probe (`GET /`) normally and misbehaves on every
//! other path. Every connection is closed after one answer; every loop is bounded; the server
//! stops with its runtime at the end of each test.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::common;

const BIN: &str = env!("CARGO_BIN_EXE_workspace-conformance");

/// Trials of the hostile case file (each one request).
const TRIALS: u32 = 2;
/// Start-up of the (debug) binary: loading the contract and the catalog, the probe.
const STARTUP: Duration = Duration::from_secs(10);
/// Longest any server task lives; a stalled connection is dropped after it. Longer than every
/// bound, so a client that does not give up by itself breaks the bound.
const SERVER_PATIENCE: Duration = Duration::from_secs(20);
/// The hostile body size.
const HUGE: u64 = 50 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Mode {
    /// Reads the request and never writes.
    Silent,
    /// Sends the headers (Content-Length 100) and then nothing.
    Stall,
    /// Sends the headers, then one byte a second.
    Trickle,
    /// A 50 MB chunked body with a JSON content type.
    Huge,
    /// Invalid JSON labelled application/json.
    BadJson,
    /// An HTML page with status 200.
    Html,
    /// A chunked body that ends without its last chunk.
    ShortChunked,
    /// Headers and part of the body, then a TCP reset.
    Reset,
    /// 302 to the same path, forever.
    RedirectLoop,
    /// 308 (for a POST) or 307 (otherwise) to the same path on ANOTHER loopback server.
    RedirectElsewhere,
    /// Valid JSON nested 100,000 levels deep.
    Deep,
    /// A valid answer with a non-UTF-8 byte in an extra header `x-bad`.
    BadHeader,
    /// A valid answer whose Content-Type holds a non-UTF-8 byte.
    BadContentType,
    /// The list answer gzip-compressed, with `Content-Encoding: gzip`, though nobody asked.
    Gzip,
    /// The list answer as a zlib stream, with `Content-Encoding: deflate`.
    Deflate,
    /// The list answer after a UTF-8 byte-order mark.
    Bom,
    /// Reads the whole request (a POST with its body) and closes without a byte of answer;
    /// counts the POSTs in `sent`.
    ReadThenClose,
    /// Answers every `POST /v1/tasks` with 201 and a new task id (counted in `sent`), and
    /// nothing else: every other request (the deletes) meets silence.
    CreatesThenSilent,
}

/// CRC-32 (IEEE) of `data`, for a gzip trailer.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for b in data {
        crc ^= u32::from(*b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// One stored (uncompressed) deflate block holding `data` (under 64 KiB).
fn stored_block(data: &[u8]) -> Vec<u8> {
    let len = data.len() as u16;
    let mut out = vec![0x01];
    out.extend_from_slice(&len.to_le_bytes());
    out.extend_from_slice(&(!len).to_le_bytes());
    out.extend_from_slice(data);
    out
}

/// `data` as a valid gzip member.
fn gzip(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(stored_block(data));
    out.extend_from_slice(&crc32(data).to_le_bytes());
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

/// `data` as a valid zlib stream (what HTTP calls `deflate`).
fn zlib(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    out.extend(stored_block(data));
    let (mut a, mut b) = (1u32, 0u32);
    for d in data {
        a = (a + u32::from(*d)) % 65521;
        b = (b + a) % 65521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}

const LIST: &str = r#"{"data":[],"totalItems":0,"nextPageToken":null}"#;

struct Hostile {
    url: String,
    /// Body bytes the server managed to write on misbehaving answers.
    sent: Arc<AtomicU64>,
    /// Connections accepted by the other origin of `RedirectElsewhere`.
    elsewhere: Arc<AtomicU64>,
    _rt: tokio::runtime::Runtime,
}

fn start(mode: Mode) -> Hostile {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let sent = Arc::new(AtomicU64::new(0));
    let listener = rt
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind loopback");
    let addr: SocketAddr = listener.local_addr().expect("address");
    // Another origin, which answers 200 to anything and counts the connections it gets.
    let elsewhere = Arc::new(AtomicU64::new(0));
    let other = rt
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind loopback");
    let other_url: Arc<str> = format!("http://{}", other.local_addr().expect("address")).into();
    let count = elsewhere.clone();
    rt.spawn(async move {
        while let Ok((mut stream, _)) = other.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let _ = tokio::time::timeout(SERVER_PATIENCE, async {
                    if read_head(&mut stream).await.is_some() {
                        let body = LIST.as_bytes();
                        let _ = stream
                            .write_all(&whole("200 OK", b"application/json", b"", body))
                            .await;
                    }
                })
                .await;
            });
        }
    });
    let counter = sent.clone();
    rt.spawn(async move {
        // Ends when the runtime is dropped at the end of the test.
        while let Ok((stream, _)) = listener.accept().await {
            let counter = counter.clone();
            let other_url = other_url.clone();
            tokio::spawn(async move {
                let _ =
                    tokio::time::timeout(SERVER_PATIENCE, serve(stream, mode, counter, other_url))
                        .await;
            });
        }
    });
    Hostile {
        url: format!("http://{addr}"),
        sent,
        elsewhere,
        _rt: rt,
    }
}

/// Reads one request head (bounded) and returns its path.
async fn read_head(stream: &mut TcpStream) -> Option<String> {
    read_request_head(stream).await.map(|(_, path)| path)
}

/// Reads one request head (bounded) and returns its method and path.
async fn read_request_head(stream: &mut TcpStream) -> Option<(String, String)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while !buf.windows(4).any(|w| w == b"\r\n\r\n") {
        if buf.len() > 64 * 1024 {
            return None;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let text = String::from_utf8_lossy(&buf);
    let mut words = text.split_whitespace();
    Some((words.next()?.to_string(), words.next()?.to_string()))
}

fn head(status: &str, content_type: &[u8], extra: &[u8]) -> Vec<u8> {
    let mut h = format!("HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: ").into_bytes();
    h.extend_from_slice(content_type);
    h.extend_from_slice(b"\r\n");
    h.extend_from_slice(extra);
    h
}

fn whole(status: &str, content_type: &[u8], extra: &[u8], body: &[u8]) -> Vec<u8> {
    let mut h = head(status, content_type, extra);
    h.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    h.extend_from_slice(body);
    h
}

async fn serve(mut stream: TcpStream, mode: Mode, sent: Arc<AtomicU64>, other: Arc<str>) {
    if mode == Mode::CreatesThenSilent {
        let Some((head, _body)) = read_request(&mut stream).await else {
            return;
        };
        if head.starts_with("GET / ") {
            let body = br#"{"message":"not found"}"#;
            let _ = stream
                .write_all(&whole("404 Not Found", b"application/json", b"", body))
                .await;
        } else if head.starts_with("POST /v1/tasks ") {
            let n = sent.fetch_add(1, Ordering::SeqCst);
            let body = format!(r#"{{"data":{{"taskId":"TK{n:016}","title":"t"}}}}"#);
            let _ = stream
                .write_all(&whole(
                    "201 Created",
                    b"application/json",
                    b"",
                    body.as_bytes(),
                ))
                .await;
        } else {
            let mut sink = [0u8; 256];
            while let Ok(n) = stream.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        }
        return;
    }
    if mode == Mode::ReadThenClose {
        let Some((head, _body)) = read_request(&mut stream).await else {
            return;
        };
        if head.starts_with("GET / ") {
            let body = br#"{"message":"not found"}"#;
            let _ = stream
                .write_all(&whole("404 Not Found", b"application/json", b"", body))
                .await;
        } else if head.starts_with("POST ") {
            sent.fetch_add(1, Ordering::SeqCst);
        }
        return;
    }
    let Some((method, path)) = read_request_head(&mut stream).await else {
        return;
    };
    const JSON: &[u8] = b"application/json";
    if path == "/" {
        // The probe: an ordinary answer, so the trials meet the misbehaviour.
        let body = br#"{"message":"not found"}"#;
        let _ = stream
            .write_all(&whole("404 Not Found", JSON, b"", body))
            .await;
        return;
    }
    if path.split('?').next() == Some("/phone-numbers") {
        // The preflight's read: the API's answer, so the run reaches its trials (a target whose
        // read is not the API's ends the run with exit 2 before them).
        let body = br#"{"data":[],"totalItems":0,"nextPageToken":null}"#;
        let _ = stream.write_all(&whole("200 OK", JSON, b"", body)).await;
        return;
    }
    match mode {
        Mode::Silent => {
            // Hold the connection open without a byte, until the client gives up.
            let mut sink = [0u8; 256];
            while let Ok(n) = stream.read(&mut sink).await {
                if n == 0 {
                    break;
                }
            }
        }
        Mode::Stall => {
            let _ = stream
                .write_all(&head("200 OK", JSON, b"Content-Length: 100\r\n\r\n"))
                .await;
            tokio::time::sleep(SERVER_PATIENCE).await;
        }
        Mode::Trickle => {
            let body = LIST.as_bytes();
            let extra = format!("Content-Length: {}\r\n\r\n", body.len());
            if stream
                .write_all(&head("200 OK", JSON, extra.as_bytes()))
                .await
                .is_err()
            {
                return;
            }
            for b in body {
                if stream.write_all(&[*b]).await.is_err() {
                    return;
                }
                sent.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
        Mode::Huge => {
            if stream
                .write_all(&head("200 OK", JSON, b"Transfer-Encoding: chunked\r\n\r\n"))
                .await
                .is_err()
            {
                return;
            }
            let piece = vec![b' '; 64 * 1024];
            let mut frame = format!("{:x}\r\n", piece.len()).into_bytes();
            frame.extend_from_slice(&piece);
            frame.extend_from_slice(b"\r\n");
            let mut written = 0;
            while written < HUGE {
                if stream.write_all(&frame).await.is_err() {
                    return;
                }
                written += piece.len() as u64;
                sent.store(written, Ordering::Relaxed);
            }
            let _ = stream.write_all(b"0\r\n\r\n").await;
        }
        Mode::BadJson => {
            let body = br#"{"data": [1, 2,, 3]}"#;
            let _ = stream.write_all(&whole("200 OK", JSON, b"", body)).await;
        }
        Mode::Html => {
            let body = b"<!doctype html><html><body><h1>Welcome to nginx!</h1></body></html>";
            let _ = stream
                .write_all(&whole("200 OK", b"text/html", b"", body))
                .await;
        }
        Mode::ShortChunked => {
            let mut out = head("200 OK", JSON, b"Transfer-Encoding: chunked\r\n\r\n");
            out.extend_from_slice(b"10\r\n{\"data\":[],\"tota\r\n8\r\nlIt");
            let _ = stream.write_all(&out).await;
            // Closed here, in the middle of a chunk and without the last chunk.
        }
        Mode::Reset => {
            let extra = format!("Content-Length: {}\r\n\r\n", LIST.len());
            let mut out = head("200 OK", JSON, extra.as_bytes());
            out.extend_from_slice(&LIST.as_bytes()[..10]);
            if stream.write_all(&out).await.is_ok() {
                let _ = stream.flush().await;
                // Let the client read what came, then reset: linger 0 sends RST on close.
                tokio::time::sleep(Duration::from_millis(100)).await;
                // Deprecated because a nonzero linger blocks on drop; zero resets at once.
                #[allow(deprecated)]
                let _ = stream.set_linger(Some(Duration::ZERO));
            }
        }
        Mode::RedirectLoop => {
            let extra = format!("Location: {path}\r\nContent-Length: 0\r\n\r\n");
            let _ = stream
                .write_all(&head("302 Found", JSON, extra.as_bytes()))
                .await;
        }
        Mode::RedirectElsewhere => {
            // 307 and 308 keep the method and the body: a client that follows them sends the
            // whole request to the other origin.
            let status = if method == "POST" {
                "308 Permanent Redirect"
            } else {
                "307 Temporary Redirect"
            };
            let extra = format!("Location: {other}{path}\r\nContent-Length: 0\r\n\r\n");
            let _ = stream
                .write_all(&head(status, JSON, extra.as_bytes()))
                .await;
        }
        Mode::ReadThenClose | Mode::CreatesThenSilent => {}
        Mode::Deep => {
            let depth = 100_000;
            let mut body = vec![b'['; depth];
            body.extend(std::iter::repeat_n(b']', depth));
            let _ = stream.write_all(&whole("200 OK", JSON, b"", &body)).await;
        }
        Mode::BadHeader => {
            let _ = stream
                .write_all(&whole(
                    "200 OK",
                    JSON,
                    b"X-Bad: caf\xe9 \xff\r\n",
                    LIST.as_bytes(),
                ))
                .await;
        }
        Mode::Gzip => {
            let body = gzip(LIST.as_bytes());
            let _ = stream
                .write_all(&whole("200 OK", JSON, b"Content-Encoding: gzip\r\n", &body))
                .await;
        }
        Mode::Deflate => {
            let body = zlib(LIST.as_bytes());
            let _ = stream
                .write_all(&whole(
                    "200 OK",
                    JSON,
                    b"Content-Encoding: deflate\r\n",
                    &body,
                ))
                .await;
        }
        Mode::Bom => {
            let mut body = b"\xef\xbb\xbf".to_vec();
            body.extend_from_slice(LIST.as_bytes());
            let _ = stream.write_all(&whole("200 OK", JSON, b"", &body)).await;
        }
        Mode::BadContentType => {
            let _ = stream
                .write_all(&whole(
                    "200 OK",
                    b"application/json; charset=\xff\xfe",
                    b"",
                    LIST.as_bytes(),
                ))
                .await;
        }
    }
}

/// Two one-request trials: `GET /v1/contacts` and `GET /v1/tasks`, each expecting 200.
const CASES: &str = r#"area: hostile
api: v1
cases:
  - id: contacts
    clause: "Endpoints > answers"
    request: { method: GET, path: /v1/contacts }
    expect: { status: 200 }
  - id: tasks
    clause: "Endpoints > answers"
    request: { method: GET, path: /v1/tasks }
    expect: { status: 200 }
"#;

/// The same trial names, with a body on the first: `POST /v1/contacts` expecting 201.
const CASES_WITH_POST: &str = r#"area: hostile
api: v1
cases:
  - id: contacts
    clause: "Endpoints > answers"
    request: { method: POST, path: /v1/contacts, body: { defaultFields: { firstName: Ada }, externalId: "{{run}}-ada" } }
    expect: { status: 201 }
  - id: tasks
    clause: "Endpoints > answers"
    request: { method: GET, path: /v1/tasks }
    expect: { status: 200 }
"#;

/// A directory holding `text` as its only case file.
fn case_dir_with(text: &str) -> PathBuf {
    // One directory per run: the tests of this file run in parallel.
    let dir = std::env::temp_dir().join(format!(
        "wc-hostile-{}-{:x}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join("hostile.yaml"), text).expect("case file");
    dir
}

struct Run {
    out: String,
    err: String,
    code: Option<i32>,
    elapsed: Duration,
    /// Peak resident memory in KB, when /usr/bin/time is on the machine.
    peak_kb: Option<u64>,
}

/// Runs the binary against `url` with `--timeout timeout`; asserts the bound and no panic.
fn certify(url: &str, timeout: f64, extra: &[&str]) -> Run {
    certify_cases(url, timeout, extra, CASES)
}

/// As [`certify`], with the case file `cases` (trials `v1.hostile.contacts` and `.tasks`).
fn certify_cases(url: &str, timeout: f64, extra: &[&str], cases: &str) -> Run {
    let dir = case_dir_with(cases);
    let time_out = dir.join("time");
    let mut cmd = if let Some(timer) = common::binary::gnu_time() {
        let mut c = Command::new(timer);
        c.arg("-f").arg("%M").arg("-o").arg(&time_out).arg(BIN);
        c
    } else {
        Command::new(BIN)
    };
    cmd.args([
        "--target",
        url,
        "--api-key",
        "hostile-test-key",
        "--timeout",
    ])
    .arg(timeout.to_string())
    .arg("--case-dir")
    .arg(&dir)
    .args(extra)
    .arg("hostile.")
    .env_remove("WORKSPACE_API_KEY");
    let start = Instant::now();
    let o: Output = cmd.output().expect("the binary runs");
    let elapsed = start.elapsed();
    let peak_kb = std::fs::read_to_string(&time_out)
        .ok()
        .and_then(|t| t.lines().last().and_then(|l| l.trim().parse().ok()));
    let _ = std::fs::remove_dir_all(&dir);
    let run = Run {
        out: String::from_utf8_lossy(&o.stdout).into_owned(),
        err: String::from_utf8_lossy(&o.stderr).into_owned(),
        code: o.status.code(),
        elapsed,
        peak_kb,
    };
    // Each trial sends one request, which takes at most the timeout (the probe answers at once).
    let bound = Duration::from_secs_f64(timeout * f64::from(TRIALS)) + STARTUP;
    assert!(
        run.elapsed < bound,
        "the run took {:?}, over the bound {bound:?}\n{}\n{}",
        run.elapsed,
        run.out,
        run.err
    );
    assert!(
        !run.out.contains("panicked") && !run.err.contains("panicked"),
        "a panic:\n{}\n{}",
        run.out,
        run.err
    );
    assert_ne!(run.code, Some(101), "{}\n{}", run.out, run.err);
    // Whatever the misbehaviour, the key never reaches an output.
    assert!(
        !run.out.contains("hostile-test-key") && !run.err.contains("hostile-test-key"),
        "the key is shown:\n{}\n{}",
        run.out,
        run.err
    );
    run
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, RandomState};
    RandomState::new().hash_one(Instant::now())
}

/// Asserts exit 1 and that both trials failed, each with `reason` in its explanation.
fn assert_both_fail_with(run: &Run, reason: &str) {
    assert_eq!(run.code, Some(1), "{}\n{}", run.out, run.err);
    assert!(
        run.out.contains(&format!("0 passed; {TRIALS} failed")),
        "{}",
        run.out
    );
    for trial in ["v1.hostile.contacts", "v1.hostile.tasks"] {
        let section = run
            .out
            .split(&format!("---- {trial} ----"))
            .nth(1)
            .unwrap_or_else(|| panic!("no failure section for {trial}:\n{}", run.out));
        let section = section.split("\n---- ").next().unwrap_or(section);
        assert!(
            section.contains(reason),
            "{trial} does not say `{reason}`:\n{section}"
        );
    }
}

#[test]
fn never_answering_times_out() {
    let h = start(Mode::Silent);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(&run, "no answer within the timeout of 1 s");
}

#[test]
fn headers_then_stall_times_out_on_the_body() {
    let h = start(Mode::Stall);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(
        &run,
        "the body was not complete within the timeout of 1 s (0 bytes received)",
    );
}

#[test]
fn trickling_one_byte_a_second_times_out() {
    let h = start(Mode::Trickle);
    let run = certify(&h.url, 1.5, &[]);
    assert_both_fail_with(
        &run,
        "the body was not complete within the timeout of 1.5 s (",
    );
}

#[test]
fn a_50_mb_body_is_cut_off_at_the_cap_while_streaming() {
    let h = start(Mode::Huge);
    let run = certify(&h.url, 2.0, &[]);
    assert_both_fail_with(
        &run,
        "body over the size cap of 8388608 bytes (cut off after ",
    );
    // The client stopped reading: the server could not push the whole body through.
    let sent = h.sent.load(Ordering::Relaxed);
    assert!(sent < HUGE, "the server wrote {sent} bytes");
    if let Some(kb) = run.peak_kb {
        assert!(kb < 100 * 1024, "peak memory {kb} KB");
    }
}

#[test]
fn a_smaller_max_body_cuts_sooner() {
    let h = start(Mode::Huge);
    let run = certify(&h.url, 2.0, &["--max-body", "1000"]);
    assert_both_fail_with(&run, "body over the size cap of 1000 bytes (cut off after ");
}

#[test]
fn invalid_json_says_where() {
    let h = start(Mode::BadJson);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(
        &run,
        "not JSON at line 1 column 16 (byte 15): expected value",
    );
}

#[test]
fn html_with_200_is_not_json() {
    let h = start(Mode::Html);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(
        &run,
        "a text/html body, not JSON at line 1 column 1 (byte 0)",
    );
    assert_both_fail_with(&run, "actual:    text/html");
}

#[test]
fn a_truncated_chunked_body_is_cut_off() {
    let h = start(Mode::ShortChunked);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(&run, "the body was cut off after ");
}

#[test]
fn a_reset_mid_response_is_named() {
    let h = start(Mode::Reset);
    let run = certify(&h.url, 2.0, &[]);
    assert_both_fail_with(&run, "connection reset by peer");
}

#[test]
fn a_redirect_is_the_answer_not_a_detour() {
    // A loop to the same path: one request per trial, the 302 is the answer.
    let h = start(Mode::RedirectLoop);
    let run = certify(&h.url, 1.0, &[]);
    for path in ["/v1/contacts", "/v1/tasks"] {
        assert!(
            run.out.contains(&format!(
                "302: the target redirected to {}{path}; certify that URL instead",
                h.url
            )),
            "{}",
            run.out
        );
    }
    assert_both_fail_with(&run, "; certify that URL instead");
    assert_both_fail_with(&run, "expected:  one of 200");
}

#[test]
fn a_307_or_308_to_another_origin_sends_nothing_there() {
    let h = start(Mode::RedirectElsewhere);
    let run = certify_cases(&h.url, 1.0, &[], CASES_WITH_POST);
    assert_both_fail_with(&run, "; certify that URL instead");
    let other = run
        .out
        .split("308: the target redirected to ")
        .nth(1)
        .and_then(|rest| rest.split(';').next())
        .unwrap_or_else(|| panic!("no 308 with its Location:\n{}", run.out));
    assert!(
        other.starts_with("http://127.0.0.1:")
            && other.ends_with("/v1/contacts")
            && !other.starts_with(&h.url),
        "{other}"
    );
    assert!(
        run.out
            .contains("307: the target redirected to http://127.0.0.1:"),
        "{}",
        run.out
    );
    assert_eq!(
        h.elsewhere.load(Ordering::SeqCst),
        0,
        "a request reached the other origin"
    );
}

#[test]
fn deeply_nested_json_is_refused_without_overflow() {
    let h = start(Mode::Deep);
    let run = certify(&h.url, 2.0, &[]);
    assert_both_fail_with(
        &run,
        "not JSON at line 1 column 128 (byte 127): recursion limit exceeded (nested deeper than 128 levels)",
    );
}

#[test]
fn a_non_utf8_content_type_is_named() {
    let h = start(Mode::BadContentType);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(&run, "header content-type is not UTF-8");
}

#[test]
fn a_non_utf8_extra_header_is_opaque_data() {
    // RFC 9110 5.5 lets a field value carry obs-text; the suite reads no `x-bad`, so the
    // answers are judged on the rest, and they conform.
    let h = start(Mode::BadHeader);
    let run = certify(&h.url, 1.0, &[]);
    assert_eq!(run.code, Some(0), "{}\n{}", run.out, run.err);
    assert!(run.out.contains("2 passed; 0 failed"), "{}", run.out);
}

#[test]
fn a_gzip_body_is_named_not_decoded() {
    let h = start(Mode::Gzip);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(
        &run,
        "a gzip-encoded body (Content-Encoding: gzip), not decoded: the suite does not ask for compression",
    );
}

#[test]
fn a_deflate_body_is_named_not_decoded() {
    let h = start(Mode::Deflate);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(
        &run,
        "a deflate-encoded body (Content-Encoding: deflate), not decoded: the suite does not ask for compression",
    );
}

#[test]
fn a_byte_order_mark_is_named() {
    let h = start(Mode::Bom);
    let run = certify(&h.url, 1.0, &[]);
    assert_both_fail_with(
        &run,
        "the body starts with a UTF-8 byte-order mark (EF BB BF): not JSON (RFC 8259 8.1)",
    );
}

/// A proxy in front of `upstream` that serves one request per connection: it reads the request,
/// forwards it on a fresh upstream connection, passes the answer back WITHOUT `Connection:
/// close`, and closes the connection (as servers and proxies do at their idle timeout). Before it
/// closes it lingers a moment: a request that comes on the connection meanwhile is read whole and
/// dropped without an answer, as a server that closes an idle connection just as a request
/// arrives may have read it. Returns its URL and what it received.
fn closing_proxy(
    rt: &tokio::runtime::Runtime,
    upstream: &str,
    closing: Closing,
) -> (String, Arc<Received>) {
    let upstream = upstream.trim_start_matches("http://").to_string();
    let listener = rt
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind loopback");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let received = Arc::new(Received::default());
    let seen = received.clone();
    rt.spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let upstream = upstream.clone();
            let seen = seen.clone();
            tokio::spawn(async move {
                let _ = tokio::time::timeout(
                    SERVER_PATIENCE,
                    forward(client, &upstream, &seen, closing),
                )
                .await;
            });
        }
    });
    (url, received)
}

/// What the closing proxy received: every request (its request line and body) in order, each
/// with whether it was dropped unanswered.
#[derive(Default)]
struct Received(std::sync::Mutex<Vec<(String, Vec<u8>, bool)>>);

impl Received {
    fn push(&self, head: &str, body: &[u8], dropped: bool) {
        let line = head.lines().next().unwrap_or_default().to_string();
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((line, body.to_vec(), dropped));
    }

    fn all(&self) -> Vec<(String, Vec<u8>, bool)> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// How long the closing proxy keeps a connection after its answer: shorter than the 50 ms the
/// suite waits before it checks whether the target closed its probe's connection.
const LINGER: Duration = Duration::from_millis(30);

/// Reads a whole request (head and Content-Length body, bounded): its head and body.
async fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        if buf.len() > 64 * 1024 {
            return None;
        }
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..end]).into_owned();
    let length: usize = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.trim()
                .eq_ignore_ascii_case("content-length")
                .then(|| v.trim().parse().ok())?
        })
        .unwrap_or(0);
    let mut body = buf[end..].to_vec();
    while body.len() < length.min(16 * 1024 * 1024) {
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    Some((head, body))
}

/// When the closing proxy closes a client's connection, unannounced.
#[derive(Debug, Clone, Copy)]
enum Closing {
    /// After each answer ([`LINGER`] later): a request that comes meanwhile is read and dropped.
    AfterEachAnswer,
    /// Right after each answer, with no delay: a plain shutdown once the answer is written.
    AtOnce,
    /// Once it has been idle this long after an answer: a request that comes within it is
    /// served, one that comes later (within [`LINGER`] more) is read and dropped, as when a
    /// server's idle close crosses a request on the wire. The probe sees such a connection kept.
    WhenIdleFor(Duration),
}

async fn forward(mut client: TcpStream, upstream: &str, seen: &Received, closing: Closing) {
    let Some((mut head, mut body)) = read_request(&mut client).await else {
        return;
    };
    loop {
        seen.push(&head, &body, false);
        let Some(answer) = ask_upstream(upstream, &head, &body).await else {
            return;
        };
        let _ = client.write_all(&answer).await;
        let answered = Instant::now();
        let (idle, wait) = match closing {
            Closing::AtOnce => break,
            Closing::AfterEachAnswer => (Duration::ZERO, LINGER),
            Closing::WhenIdleFor(idle) => (idle, idle + LINGER),
        };
        // A request that comes before the close is read and dropped: the client was never told.
        match tokio::time::timeout(wait, read_request(&mut client)).await {
            Ok(Some((h, b))) if answered.elapsed() < idle => (head, body) = (h, b),
            Ok(Some((h, b))) => {
                seen.push(&h, &b, true);
                break;
            }
            _ => break,
        }
    }
    let _ = client.shutdown().await;
}

/// Sends one request to `upstream` on a connection of its own and gives its answer back as
/// upstream framed it, less its `Connection` header.
async fn ask_upstream(upstream: &str, head: &str, body: &[u8]) -> Option<Vec<u8>> {
    let mut up = TcpStream::connect(upstream).await.ok()?;
    // Upstream closes after its answer, so the answer ends where its stream ends.
    let mut request: Vec<u8> = head
        .trim_end()
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
        .flat_map(|l| [l.as_bytes(), b"\r\n"].concat())
        .collect();
    request.extend_from_slice(b"Connection: close\r\n\r\n");
    request.extend_from_slice(body);
    up.write_all(&request).await.ok()?;
    let mut answer = Vec::new();
    up.read_to_end(&mut answer).await.ok()?;
    let end = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&answer[..end]).into_owned();
    let mut out: Vec<u8> = head
        .lines()
        .filter(|l| !l.to_ascii_lowercase().starts_with("connection:"))
        .flat_map(|l| [l.as_bytes(), b"\r\n"].concat())
        .collect();
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&answer[end + 4..]);
    Some(out)
}

/// What the stale proxy does to the first POST that comes on a connection that already carried
/// an answer.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Stale {
    /// Reads it whole and closes without a byte of answer: a server that closed an idle
    /// connection just as the request arrived.
    Close,
    /// Sends the head of a 201 and part of its body, then closes: the target began to answer.
    CutAnswer,
    /// As `Close`, to the first GET that comes on a connection that already carried an answer.
    CloseGet,
    /// Sends it upstream, where it takes effect, and closes without a byte of its answer.
    MadeThenClose,
}

/// What the stale proxy saw.
#[derive(Default)]
struct StaleSeen {
    /// The request line and body of the POST met with `Stale`.
    victim: std::sync::Mutex<Option<(String, Vec<u8>)>>,
    /// Requests equal to the victim (request line and body) that came after it.
    again: AtomicU64,
}

/// A keep-alive proxy in front of `upstream`: each request goes upstream on a connection of its
/// own and its answer comes back on the client's connection, which stays open. The first POST
/// that comes on a connection that already carried an answer meets `stale`.
fn stale_proxy(
    rt: &tokio::runtime::Runtime,
    upstream: &str,
    stale: Stale,
) -> (String, Arc<StaleSeen>) {
    let upstream: Arc<str> = upstream.trim_start_matches("http://").into();
    let listener = rt
        .block_on(TcpListener::bind("127.0.0.1:0"))
        .expect("bind loopback");
    let url = format!("http://{}", listener.local_addr().expect("address"));
    let seen = Arc::new(StaleSeen::default());
    let shared = seen.clone();
    rt.spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let (upstream, seen) = (upstream.clone(), shared.clone());
            tokio::spawn(async move {
                let _ = tokio::time::timeout(
                    SERVER_PATIENCE,
                    serve_kept(client, &upstream, stale, &seen),
                )
                .await;
            });
        }
    });
    (url, seen)
}

async fn serve_kept(mut client: TcpStream, upstream: &str, stale: Stale, seen: &StaleSeen) {
    let mut answered = false;
    while let Some((head, body)) = read_request(&mut client).await {
        let line = head.lines().next().unwrap_or_default().to_string();
        let is_victim = {
            let mut victim = seen.victim.lock().unwrap_or_else(|e| e.into_inner());
            if victim.as_ref() == Some(&(line.clone(), body.clone())) {
                seen.again.fetch_add(1, Ordering::SeqCst);
            }
            let method = if stale == Stale::CloseGet {
                "GET "
            } else {
                "POST "
            };
            let first = answered && line.starts_with(method) && victim.is_none();
            if first {
                *victim = Some((line, body.clone()));
            }
            first
        };
        if is_victim {
            if stale == Stale::MadeThenClose {
                let _ = ask_upstream(upstream, &head, &body).await;
            }
            if stale == Stale::CutAnswer {
                let _ = client
                    .write_all(b"HTTP/1.1 201 Created\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"data\":")
                    .await;
            }
            let _ = client.shutdown().await;
            return;
        }
        let Some(answer) = ask_upstream(upstream, &head, &body).await else {
            return;
        };
        if client.write_all(&answer).await.is_err() {
            return;
        }
        answered = true;
    }
}

/// One trial: a read, then a POST on the connection the read used.
const STALE_CASES: &str = r#"area: stale
api: v1
cases:
  - id: create
    clause: "Endpoints > answers"
    steps:
      - request: { method: GET, path: /v1/contacts }
        expect: { status: 200 }
      - request: { method: POST, path: /v1/contacts, body: { defaultFields: { firstName: Ada }, externalId: "{{run}}-ada" } }
        expect: { status: 201 }
      - request: { method: POST, path: /v1/contacts, body: { defaultFields: { firstName: Grace }, externalId: "{{run}}-grace" } }
        expect: { status: 201 }
"#;

/// One trial: a read, then two webhook creates; the second rides on the connection the first
/// answer came on.
const STALE_WEBHOOK_CASES: &str = r#"area: stale
api: latest
cases:
  - id: webhook
    clause: "Header-versioned API > webhook management"
    steps:
      - request: { method: GET, path: /webhooks }
        expect: { status: 200 }
      - request: { method: POST, path: /webhooks, body: { label: "{{run}} answered", url: "https://hooks.example.test/answered", events: [call.completed], resourceIds: ["*"] } }
      - request: { method: POST, path: /webhooks, body: { label: "{{run}} lost", url: "https://hooks.example.test/lost", events: [call.completed], resourceIds: ["*"] } }
"#;

/// A create that got no answer may have taken effect (READINGS 7.2): the webhook the target
/// made is found by the run tag of its label and deleted before the trial gives its place in
/// the webhook budget back; the run never sends the create twice.
#[test]
fn a_create_that_got_no_answer_is_found_by_its_run_tag_and_deleted() {
    let served = common::binary::serve("stale-made", &[]);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (url, seen) = stale_proxy(&rt, &served.url, Stale::MadeThenClose);
    let dir = case_dir_with(STALE_WEBHOOK_CASES);
    let run_id = "rlost001";
    let o = Command::new(BIN)
        .args(["--target", &url, "--profile"])
        .arg(&served.profile)
        .arg("--case-dir")
        .arg(&dir)
        .args([
            "--test-threads",
            "1",
            "--timeout",
            "5",
            "--run-id",
            run_id,
            "stale.",
        ])
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        seen.victim.lock().expect("lock").is_some(),
        "no POST came on a reused connection:\n{out}\n{err}"
    );
    assert_eq!(seen.again.load(Ordering::SeqCst), 0, "{out}\n{err}");
    // The reference made it; the run never learned its id, and still left none behind.
    let profile: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&served.profile).expect("profile")).expect("json");
    let key = profile["apiKey"].as_str().expect("key").to_string();
    let upstream = served.url.trim_start_matches("http://");
    let head = format!(
        "GET /webhooks HTTP/1.1\r\nHost: {upstream}\r\nAuthorization: {key}\r\nService-Api-Version: 2026-03-30\r\n\r\n"
    );
    let answer = rt
        .block_on(ask_upstream(upstream, &head, b""))
        .expect("an answer");
    let end = answer
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let listed: serde_json::Value = serde_json::from_slice(&answer[end + 4..]).expect("json");
    let left: Vec<&serde_json::Value> = listed["data"]
        .as_array()
        .expect("a list")
        .iter()
        .filter(|w| w["label"].as_str().is_some_and(|l| l.contains(run_id)))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}\n{out}\n{err}");
}

/// The stale case alone, one trial at a time, through a stale proxy in front of the reference.
/// Its second POST follows the first at once, so it rides on the connection the first answer
/// came on (a write reuses only a connection idle for a moment).
fn certify_stale(stale: Stale) -> (Output, Arc<StaleSeen>) {
    let served = common::binary::serve(&format!("stale-{stale:?}"), &[]);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (url, seen) = stale_proxy(&rt, &served.url, stale);
    let dir = case_dir_with(STALE_CASES);
    let o = Command::new(BIN)
        .args(["--target", &url, "--profile"])
        .arg(&served.profile)
        .arg("--case-dir")
        .arg(&dir)
        .args(["--test-threads", "1", "--timeout", "5", "stale."])
        .env_remove("WORKSPACE_API_KEY")
        .output()
        .expect("the binary runs");
    let _ = std::fs::remove_dir_all(&dir);
    (o, seen)
}

/// A POST that meets a connection the target closed before answering (a reused one) is not sent
/// again: the target may have read it (as this one did), and a second POST could create twice.
/// The trial fails and says why; from then on every request opens a connection of its own.
#[test]
fn a_post_on_a_connection_closed_before_answering_is_not_sent_again() {
    let (o, seen) = certify_stale(Stale::Close);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        seen.victim.lock().expect("lock").is_some(),
        "no POST came on a reused connection:\n{out}\n{err}"
    );
    assert_eq!(seen.again.load(Ordering::SeqCst), 0, "{out}\n{err}");
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("0 passed; 1 failed"), "{out}");
    assert!(
        out.contains(
            "the connection was closed before any answer: the request was sent and is not sent again"
        ),
        "{out}"
    );
    assert!(
        err.contains("from now on the suite opens one connection per request"),
        "{err}"
    );
}

/// A GET that meets a connection the target closed before answering (a reused one) is sent
/// again, once, on a new connection: sending it twice changes nothing. The trial passes.
#[test]
fn a_get_on_a_connection_closed_before_answering_is_sent_again_once() {
    let (o, seen) = certify_stale(Stale::CloseGet);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        seen.victim.lock().expect("lock").is_some(),
        "no GET came on a reused connection:\n{out}\n{err}"
    );
    assert_eq!(seen.again.load(Ordering::SeqCst), 1, "{out}\n{err}");
    assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
    assert!(out.contains("1 passed; 0 failed"), "{out}");
}

/// A POST whose answer had begun when the connection closed is not sent again: the trial fails
/// and says the body was cut off.
#[test]
fn a_post_whose_answer_began_is_not_sent_again() {
    let (o, seen) = certify_stale(Stale::CutAnswer);
    let out = String::from_utf8_lossy(&o.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        seen.victim.lock().expect("lock").is_some(),
        "no POST came on a reused connection:\n{out}\n{err}"
    );
    assert_eq!(seen.again.load(Ordering::SeqCst), 0, "{out}\n{err}");
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("0 passed; 1 failed"), "{out}");
    assert!(out.contains("the body was cut off after 8 bytes"), "{out}");
}

/// A target that closes each connection after its answer without saying so: no trial fails, no
/// POST, PATCH or DELETE is lost to a closed connection, and none the proxy dropped comes again
/// (the suite never sends one twice). The probe sees the close, and every request opens a
/// connection of its own.
#[test]
fn a_server_that_closes_after_each_answer_fails_nothing() {
    let out = certify_through_closing_proxy(Closing::AfterEachAnswer, closing_runs(1));
    assert!(
        out.contains("the suite opens one connection per request"),
        "{out}"
    );
}

/// A target that closes each connection right after its answer, with no delay and no
/// `Connection: close`: no trial fails, no request that changes something is lost or received
/// twice, over two runs in a row (docs/self-proof.md measures 20 with `CLOSING_PROXY_RUNS`).
#[test]
fn a_server_that_closes_at_once_after_each_answer_fails_nothing() {
    certify_through_closing_proxy(Closing::AtOnce, closing_runs(2));
}

/// A target that keeps an idle connection past the probe's wait and closes it later, unannounced,
/// and drops a request that crosses the close: the probe cannot see it, so a request that changes
/// something rides only on a connection idle for less than half the probe's wait. Two runs: no
/// trial fails, no POST, PATCH or DELETE is dropped, none is received twice.
#[test]
fn a_server_that_closes_idle_connections_later_loses_no_write() {
    certify_through_closing_proxy(
        Closing::WhenIdleFor(Duration::from_millis(80)),
        closing_runs(2),
    );
}

/// How many runs in a row the closing-proxy tests make: `runs`, or the number in
/// `CLOSING_PROXY_RUNS` (docs/self-proof.md measures 20).
fn closing_runs(runs: usize) -> usize {
    std::env::var("CLOSING_PROXY_RUNS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(runs)
}

/// Certifies the reference behind a closing proxy `runs` times in a row, each time requiring no
/// failed trial, no request that changes something dropped, none sent twice; gives the last
/// run's output.
fn certify_through_closing_proxy(closing: Closing, runs: usize) -> String {
    // A directory of its own per kind of closing: the two tests run at once, and a shared one
    // would be emptied under the other's `serve`.
    let served = common::binary::serve(&format!("closing-proxy-{closing:?}"), &[]);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (url, received) = closing_proxy(&rt, &served.url, closing);
    let mut last = String::new();
    for run in 1..=runs {
        let before = received.all().len();
        let start = Instant::now();
        let o = Command::new(BIN)
            .args(["--target", &url, "--profile"])
            .arg(&served.profile)
            .env_remove("WORKSPACE_API_KEY")
            .output()
            .expect("the binary runs");
        let out = String::from_utf8_lossy(&o.stdout).into_owned();
        let err = String::from_utf8_lossy(&o.stderr);
        let failed: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("test ") && l.ends_with("FAILED"))
            .collect();
        let all: Vec<(String, Vec<u8>, bool)> = received.all().split_off(before);
        let changes = |line: &str| {
            ["POST ", "PATCH ", "DELETE "]
                .iter()
                .any(|m| line.starts_with(m))
        };
        let dropped: Vec<&(String, Vec<u8>, bool)> = all.iter().filter(|r| r.2).collect();
        // A request the proxy read and dropped, then received again: sent twice.
        let twice: Vec<String> = all
            .iter()
            .enumerate()
            .filter(|(_, r)| r.2 && changes(&r.0))
            .filter(|(i, r)| {
                all[i + 1..]
                    .iter()
                    .any(|later| later.0 == r.0 && later.1 == r.1)
            })
            .map(|(_, r)| r.0.clone())
            .collect();
        eprintln!(
            "{closing:?} run {run}: {} failed; the proxy received {} requests ({} changing something), dropped {} unanswered ({} changing something), {} sent again; in {:?}",
            failed.len(),
            all.len(),
            all.iter().filter(|r| changes(&r.0)).count(),
            dropped.len(),
            dropped.iter().filter(|r| changes(&r.0)).count(),
            twice.len(),
            start.elapsed()
        );
        assert!(
            failed.is_empty(),
            "run {run}: {} failed:\n{}\n{}",
            failed.len(),
            failed.join("\n"),
            out.lines()
                .filter(|l| l.contains("actual:"))
                .take(5)
                .collect::<Vec<_>>()
                .join("\n")
        );
        assert_eq!(o.status.code(), Some(0), "{out}\n{err}");
        assert!(out.contains(" 0 failed"), "{out}");
        assert!(all.len() > 400, "{} requests", all.len());
        assert!(twice.is_empty(), "sent twice: {twice:?}");
        let lost: Vec<&String> = dropped
            .iter()
            .filter(|r| changes(&r.0))
            .map(|r| &r.0)
            .collect();
        assert!(lost.is_empty(), "lost to a closed connection: {lost:?}");
        last = out;
    }
    last
}

#[test]
fn a_request_read_then_closed_on_is_sent_once_and_named() {
    let h = start(Mode::ReadThenClose);
    let run = certify_cases(&h.url, 2.0, &[], CASES_WITH_POST);
    assert_both_fail_with(
        &run,
        "the connection was closed before any answer: the request was sent and is not sent again",
    );
    // The POST reached the server once: never again after the server read it.
    assert_eq!(h.sent.load(Ordering::SeqCst), 1, "{}", run.out);
}

/// One trial that fills the open-task limit (31 creates answered, at most 30 expected), then
/// deletes what it made, always: against `CreatesThenSilent` every delete meets silence.
const FILL_THEN_DELETE: &str = r#"area: hostile
api: v1
cases:
  - id: contacts
    clause: "Errors > Rules > 6"
    exclusive: true
    steps:
      - request: { method: POST, path: /v1/tasks, body: { title: "{{run}} fill", phoneNumberId: PN1 } }
        repeat: { until: 402, max: 30, collect: { filled: /data/taskId } }
        expect: { status: 402 }
      - request: { method: DELETE, path: "/v1/tasks/{{task}}" }
        for_each: { in: filled, as: task }
        always: true
  - id: tasks
    clause: "Endpoints > answers"
    request: { method: GET, path: /v1/tasks }
    expect: { status: 200 }
"#;

/// The report arguments for files in `dir`.
fn report_args(dir: &std::path::Path) -> Vec<String> {
    [
        ("--junit", "junit.xml"),
        ("--json", "run.json"),
        ("--report", "report.html"),
    ]
    .iter()
    .flat_map(|(flag, file)| [flag.to_string(), dir.join(file).display().to_string()])
    .collect()
}

#[test]
fn a_target_gone_silent_gets_a_bounded_cleanup_and_reports() {
    let h = start(Mode::CreatesThenSilent);
    let reports = common::binary::temp_dir("silent-cleanup");
    let args = report_args(&reports);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let started = Instant::now();
    let run = certify_cases(&h.url, 1.0, &args, FILL_THEN_DELETE);
    let elapsed = started.elapsed();
    assert_eq!(run.code, Some(1), "{}\n{}", run.out, run.err);
    // 31 creates answered; the trial stopped at its first unanswered delete.
    assert_eq!(h.sent.load(Ordering::SeqCst), 31);
    // The cleanup: 31 registered tasks, 8 deletes at a time, none answered: one timeout, then
    // no new delete; bounded by 3 timeouts whatever happens.
    // The cleanup line ends with how long it took: `cleanup (run …): … in 1.0 s (bound 30 s)`.
    let took: f64 = run
        .out
        .lines()
        .find(|l| l.starts_with("cleanup (run "))
        .and_then(|l| l.split(" in ").last())
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no cleanup time:\n{}", run.out));
    eprintln!("cleanup took {took} s, the run {elapsed:?}");
    assert!(took <= 3.2, "cleanup took {took} s:\n{}", run.out);
    // The terminal gives the cleanup one line; the reports list each resource with its reason.
    assert!(run.out.contains("31 could not be removed"), "{}", run.out);
    let listed = std::fs::read_to_string(reports.join("run.json")).expect("run.json");
    assert!(
        listed.contains("not tried: the target did not answer an earlier delete"),
        "run.json gives the reason a delete was not tried:\n{listed}"
    );
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
    for file in ["junit.xml", "run.json", "report.html"] {
        let text = std::fs::read_to_string(reports.join(file)).expect(file);
        assert!(
            text.contains("TK0000000000000030"),
            "{file} names what is left"
        );
    }
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("run.json")).expect("json"))
            .expect("valid JSON");
    assert_eq!(
        json["cleanup"]["notRemoved"].as_array().map(Vec::len),
        Some(31),
        "{}",
        json["cleanup"]
    );
}

#[test]
fn sigterm_during_the_cleanup_leaves_the_reports() {
    let h = start(Mode::CreatesThenSilent);
    let reports = common::binary::temp_dir("sigterm-cleanup");
    let dir = case_dir_with(FILL_THEN_DELETE);
    let mut child = Command::new(BIN)
        .args([
            "--target",
            &h.url,
            "--api-key",
            "hostile-test-key",
            "--timeout",
            "4",
        ])
        .arg("--case-dir")
        .arg(&dir)
        .args(report_args(&reports))
        .arg("hostile.")
        .env_remove("WORKSPACE_API_KEY")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts");
    // The reports are written before the cleanup starts; the cleanup then waits on silence.
    let deadline = Instant::now() + Duration::from_secs(20);
    let files = ["junit.xml", "run.json", "report.html"];
    while !files.iter().all(|f| reports.join(f).exists()) {
        assert!(Instant::now() < deadline, "no reports before the cleanup");
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the run ended before its cleanup: {status}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    let signalled = Instant::now();
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(kill.success());
    let o = child.wait_with_output().expect("the run ends");
    let _ = std::fs::remove_dir_all(&dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        signalled.elapsed() < Duration::from_secs(2),
        "{:?}",
        signalled.elapsed()
    );
    assert_eq!(o.status.code(), Some(143), "{err}");
    assert!(err.contains("interrupted during the cleanup"), "{err}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("run.json")).expect("json"))
            .expect("valid JSON");
    let left = json["cleanup"]["notRemoved"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(left.len(), 31, "{}", json["cleanup"]);
    assert!(
        left.iter().all(|l| l
            .as_str()
            .is_some_and(|l| l.contains("the cleanup had not run"))),
        "{left:?}"
    );
    for file in ["junit.xml", "report.html"] {
        let text = std::fs::read_to_string(reports.join(file)).expect(file);
        assert!(text.contains("v1.hostile.contacts"), "{file}");
    }
}
