//! Bounded bodies: an answer's body read in chunks under the size cap, a large one parsed on a
//! thread of its own while its trial holds the run's large-answer permit, and JSON parse errors
//! that say where and why.

use std::sync::Arc;

use serde_json::Value;

use super::{NotJson, TransportError};

/// A body at least this large holds the run's large-answer gate while its trial runs. The other
/// trials' reads wait at this size for the gate, each holding what it read so far: with 48
/// trials in flight, 1 MiB here kept about 50 MB waiting beside the answer being parsed.
pub(crate) const LARGE_BODY: usize = 256 << 10;
/// Trials that may hold large answers (parsed, they take ten times their size) at once.
pub(crate) const LARGE_BODY_TRIALS: usize = 1;

/// Set once any answer of the process reached [`LARGE_BODY`]: a target that serves large
/// answers gets no concurrent reads within a trial from then on (see [`large_answers_seen`]).
static LARGE_SEEN: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a target has served an answer of at least [`LARGE_BODY`]. A trial that would send
/// several reads at once sends them one after another then: its large-answer permit covers all
/// its answers, and concurrent ones would each hold a large parsed body at the same time.
pub(crate) fn large_answers_seen() -> bool {
    LARGE_SEEN.load(std::sync::atomic::Ordering::Relaxed)
}

static LARGE_GATE: std::sync::LazyLock<Arc<tokio::sync::Semaphore>> =
    std::sync::LazyLock::new(|| Arc::new(tokio::sync::Semaphore::new(LARGE_BODY_TRIALS)));

/// A trial's slot for the large-answer permit. Its requests in flight together take it through
/// the slot's lock: the first waits for the gate, the others for the first, so one trial never
/// holds a permit while another of its requests waits for a second one.
type Slot = Arc<tokio::sync::Mutex<Option<tokio::sync::OwnedSemaphorePermit>>>;

tokio::task_local! {
    /// The large-answer permit of the trial running on this task, once it needed one.
    static LARGE_PERMIT: Slot;
}

/// Runs one trial's future with its own slot for the large-answer permit: a trial takes the
/// permit at its first answer over [`LARGE_BODY`] and keeps it to its end, so at most
/// [`LARGE_BODY_TRIALS`] trials hold large answers at once (each waits holding none: no
/// deadlock, its concurrent requests included), and memory stays bounded whatever the target
/// answers.
pub(crate) async fn with_large_body_slot<F: std::future::Future>(f: F) -> F::Output {
    LARGE_PERMIT
        .scope(Arc::new(tokio::sync::Mutex::new(None)), f)
        .await
}

/// A large body is parsed on one thread of its own: the parsed value's memory then comes from
/// that thread's allocator arena and goes back to it when the value is dropped (on any thread),
/// to be reused by the next large body, instead of each trial thread keeping its own peak.
async fn parse_large(
    chunks: Vec<bytes::Bytes>,
    encoding: Option<String>,
) -> (Vec<u8>, Option<Result<Value, NotJson>>) {
    type Parsed = (Vec<u8>, Option<Result<Value, NotJson>>);
    type Job = (
        Vec<bytes::Bytes>,
        Option<String>,
        tokio::sync::oneshot::Sender<Parsed>,
    );
    static PARSER: std::sync::LazyLock<Option<std::sync::Mutex<std::sync::mpsc::Sender<Job>>>> =
        std::sync::LazyLock::new(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("large-body-parser".into())
                .spawn(move || {
                    // Ends when the process does (the sender is static).
                    while let Ok((chunks, encoding, reply)) = rx.recv() {
                        let body = chunks.concat();
                        drop(chunks);
                        let json = parse_answer(&body, encoding.as_deref());
                        let _ = reply.send((body, json));
                    }
                })
                .ok()
                .map(|_| std::sync::Mutex::new(tx))
        });
    let (reply, answer) = tokio::sync::oneshot::channel();
    let sent = match PARSER.as_ref().and_then(|tx| tx.lock().ok()) {
        Some(tx) => tx.send((chunks, encoding, reply)),
        None => Err(std::sync::mpsc::SendError((chunks, encoding, reply))),
    };
    match sent {
        Ok(()) => answer
            .await
            .unwrap_or_else(|_| (Vec::new(), Some(Err(NotJson::Lost)))),
        // No parser thread: parse here.
        Err(std::sync::mpsc::SendError((chunks, encoding, _))) => {
            let body = chunks.concat();
            let json = parse_answer(&body, encoding.as_deref());
            (body, json)
        }
    }
}

/// `None` for a body of only whitespace, else the body parsed as JSON or why it is not JSON.
fn parse_answer(body: &[u8], encoding: Option<&str>) -> Option<Result<Value, NotJson>> {
    if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        Some(parse_body(body, encoding))
    }
}

/// Waits for the large-answer permit unless this trial holds it. Outside a trial (the probe,
/// the cleanup) the permit is held by the caller for the one answer.
async fn large_body_permit() -> Option<tokio::sync::OwnedSemaphorePermit> {
    match LARGE_PERMIT.try_with(Arc::clone) {
        Ok(slot) => {
            let mut held = slot.lock().await;
            if held.is_none() {
                *held = Some(LARGE_GATE.clone().acquire_owned().await.ok()?);
            }
            None
        }
        Err(_) => LARGE_GATE.clone().acquire_owned().await.ok(),
    }
}

/// A body read whole under the cap, parsed, with the large-answer permit taken for it outside a
/// trial (held until the answer is recorded).
pub(super) struct Received {
    pub body: Vec<u8>,
    pub json: Option<Result<Value, NotJson>>,
    pub _permit: Option<tokio::sync::OwnedSemaphorePermit>,
}

/// Reads the body of `resp` in chunks and parses it. The body is dropped as soon as it passes
/// `cap`, so memory stays bounded whatever the target sends; `failed` names a read that broke
/// off after the given number of bytes.
pub(super) async fn read_bounded(
    resp: &mut reqwest::Response,
    cap: usize,
    encoding: Option<String>,
    failed: impl Fn(&reqwest::Error, usize) -> TransportError,
) -> Result<Received, TransportError> {
    // The chunks are kept as they came; a large body is joined and parsed on the parser
    // thread (see `parse_large`), so no trial thread grows a large buffer of its own.
    let mut chunks: Vec<bytes::Bytes> = Vec::new();
    let mut size = 0usize;
    let mut permit = None;
    loop {
        let chunk = match resp.chunk().await {
            Ok(Some(chunk)) => chunk,
            Ok(None) => break,
            Err(e) => return Err(failed(&e, size)),
        };
        if size + chunk.len() > cap {
            return Err(TransportError::BodyTooLarge {
                cap,
                declared: None,
                received: size + chunk.len(),
            });
        }
        let before = size;
        size += chunk.len();
        chunks.push(chunk);
        if before < LARGE_BODY && size >= LARGE_BODY {
            LARGE_SEEN.store(true, std::sync::atomic::Ordering::Relaxed);
            permit = large_body_permit().await;
        }
    }
    let (body, json) = if size >= LARGE_BODY {
        parse_large(chunks, encoding).await
    } else {
        let body = chunks.concat();
        let json = parse_answer(&body, encoding.as_deref());
        (body, json)
    };
    Ok(Received {
        body,
        json,
        _permit: permit,
    })
}

/// Parses a body as JSON; when it is not, names a content encoding the suite did not ask for
/// (it sends no `Accept-Encoding` and decodes nothing) or a byte-order mark before the reason.
pub(crate) fn parse_body(body: &[u8], content_encoding: Option<&str>) -> Result<Value, NotJson> {
    let e = match parse_json(body) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    let encoding = content_encoding
        .map(str::trim)
        .filter(|c| !c.is_empty() && !c.eq_ignore_ascii_case("identity"));
    if let Some(c) = encoding {
        let name = c.split(',').next().unwrap_or(c).trim().to_ascii_lowercase();
        return Err(NotJson::Encoded {
            name,
            header: c.to_string(),
            why: Box::new(e),
        });
    }
    if body.starts_with(&[0x1f, 0x8b]) {
        return Err(NotJson::Gzip { why: Box::new(e) });
    }
    Err(e)
}

/// Parses a body as JSON, or says where and why it is not JSON: line, column and byte offset.
/// serde_json stops at 128 levels of nesting, so a hostile deeply nested body is an error, not
/// a stack overflow.
pub(crate) fn parse_json(body: &[u8]) -> Result<Value, NotJson> {
    // RFC 8259 8.1: a JSON text has no byte-order mark; implementations may ignore one, the
    // suite names it instead of failing at "byte 0".
    for (bom, name, hex) in [
        (&[0xef, 0xbb, 0xbf][..], "a UTF-8", "EF BB BF"),
        (&[0xfe, 0xff][..], "a UTF-16 (big-endian)", "FE FF"),
        (&[0xff, 0xfe][..], "a UTF-16 (little-endian)", "FF FE"),
    ] {
        if body.starts_with(bom) {
            return Err(NotJson::ByteOrderMark { name, hex });
        }
    }
    serde_json::from_slice::<Value>(body).map_err(|e| {
        let byte = byte_offset(body, e.line(), e.column());
        let full = e.to_string();
        let place = format!(" at line {} column {}", e.line(), e.column());
        let what = full.strip_suffix(&place).unwrap_or(&full);
        NotJson::Syntax {
            line: e.line(),
            column: e.column(),
            byte,
            what: what.to_string(),
            too_deep: what == "recursion limit exceeded",
        }
    })
}

/// The 0-based byte offset of serde_json's 1-based line and column (a column counts bytes).
fn byte_offset(body: &[u8], line: usize, column: usize) -> usize {
    let line_start = if line <= 1 {
        0
    } else {
        body.iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line - 2)
            .map_or(body.len(), |(i, _)| i + 1)
    };
    (line_start + column.saturating_sub(1)).min(body.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn not_json_names_line_column_and_byte() {
        let e = parse_json(b"{\"a\": 1,\n  \"b\": x}")
            .unwrap_err()
            .to_string();
        assert_eq!(e, "not JSON at line 2 column 8 (byte 16): expected value");
        let e = parse_json(br#"{"data": [1, 2,, 3]}"#)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "not JSON at line 1 column 16 (byte 15): expected value");
    }

    #[test]
    fn an_encoding_and_a_byte_order_mark_are_named() {
        let e = parse_json(b"\xef\xbb\xbf{\"data\":[]}")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "the body starts with a UTF-8 byte-order mark (EF BB BF): not JSON (RFC 8259 8.1)"
        );
        let e = parse_body(b"\x1f\x8b\x08\x00", Some("gzip"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("a gzip-encoded body (Content-Encoding: gzip), not decoded: the suite does not ask for compression (not JSON at line 1 column 1"),
            "{e}"
        );
        let e = parse_body(b"\x78\x01\x01", Some("Deflate"))
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("a deflate-encoded body (Content-Encoding: Deflate), not decoded"),
            "{e}"
        );
        let e = parse_body(b"\x1f\x8b\x08\x00", None)
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("a gzip stream (starts with 1F 8B) without Content-Encoding"),
            "{e}"
        );
        // JSON is JSON whatever the header says.
        assert!(parse_body(b"{}", Some("gzip")).is_ok());
        assert!(parse_body(b"{}", Some("identity")).is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let depth = 100_000;
        let mut body = vec![b'['; depth];
        body.extend(std::iter::repeat_n(b']', depth));
        let e = parse_json(&body).unwrap_err().to_string();
        assert!(
            e.ends_with("recursion limit exceeded (nested deeper than 128 levels)"),
            "{e}"
        );
        // 127 levels are fine.
        let mut ok = vec![b'['; 127];
        ok.extend(std::iter::repeat_n(b']', 127));
        assert!(parse_json(&ok).is_ok());
    }
}
