//! Standard output as a run writes it.
//!
//! CI pipes the suite into other programs (`--list | head -1`, a run piped to `head`): once the
//! reader is gone, every write to stdout fails, and libtest-mimic's printer panics on the first
//! one. So when stdout is not a terminal, fd 1 becomes a pipe read by a forwarding thread: the
//! thread copies to the real stdout and, once that is closed, drops the rest. Nothing the run
//! prints can then fail, the trials and the cleanup go on, and the run ends quietly.
//!
//! The forwarder also puts "interrupted" in libtest's `test result:` line of an interrupted run,
//! which would otherwise say `ok` (trials stopped by the interrupt count as ignored).
//!
//! `--format json` keeps stdout for libtest's JSON: the suite's own lines ([`say`]) go to stderr.
//!
//! While a live progress line is drawn on the terminal ([`show_bar`]), stdout goes through the
//! forwarder even on a terminal ([`through_forwarder`]): each line is written with the progress
//! line lifted, so libtest's lines stay whole above it.

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// The suite's own lines go to stderr (`--format json`).
static TO_STDERR: AtomicBool = AtomicBool::new(false);
/// The run was interrupted: libtest's `test result: ok.` says so.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);
/// The forwarding thread and the real stdout, while fd 1 is the pipe.
static FORWARDER: Mutex<Option<Forwarder>> = Mutex::new(None);
/// The live progress line, lifted while a line is written.
static BAR: Mutex<Option<indicatif::ProgressBar>> = Mutex::new(None);

/// Shows (or, with `None`, stops lifting) the live progress line.
pub fn show_bar(bar: Option<indicatif::ProgressBar>) {
    *BAR.lock().unwrap_or_else(|e| e.into_inner()) = bar;
}

/// Writes `text` to `out`, the progress line lifted while it is written.
fn write_lifted(out: &mut impl Write, text: &[u8]) -> std::io::Result<()> {
    let bar = BAR.lock().unwrap_or_else(|e| e.into_inner()).clone();
    let mut write = || out.write_all(text).and_then(|()| out.flush());
    match bar {
        Some(bar) => bar.suspend(write),
        None => write(),
    }
}

struct Forwarder {
    #[cfg(unix)]
    original: i32,
    thread: std::thread::JoinHandle<()>,
}

/// Sends the suite's own lines (not libtest's) to stderr from now on.
pub fn lines_to_stderr() {
    TO_STDERR.store(true, Ordering::SeqCst);
}

/// Marks the run interrupted, for libtest's summary line.
pub fn mark_interrupted() {
    INTERRUPTED.store(true, Ordering::SeqCst);
}

/// Prints one of the suite's own lines (or several, `text` without its final newline) to
/// stdout, or stderr under `--format json`. A closed stream is not an error.
pub fn say(text: &str) {
    if TO_STDERR.load(Ordering::SeqCst) {
        let _ = writeln!(std::io::stderr(), "{text}");
    } else {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }
}

/// Puts the forwarder between the process and its stdout, unless stdout is a terminal (which
/// keeps libtest's colours; a terminal is not closed under a run).
pub fn guard_stdout() {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        forward();
    }
}

/// Puts the forwarder between the process and a terminal too, so that a live progress line can
/// be lifted for each line; true when stdout was a terminal and now goes through it (libtest
/// then no longer sees a terminal, and its colours must be asked for).
pub fn through_forwarder() -> bool {
    use std::io::IsTerminal;
    if !std::io::stdout().is_terminal() {
        return false;
    }
    forward()
}

/// Makes fd 1 the pipe of a forwarding thread; false when it could not (or is not unix).
fn forward() -> bool {
    #[cfg(unix)]
    {
        let mut slot = FORWARDER.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_some() {
            return true;
        }
        // SAFETY: plain descriptor calls on descriptors this function owns; fd 1 is replaced
        // atomically by dup2 and the original kept for the forwarder and `finish`.
        let (read, original) = unsafe {
            let mut fds = [0i32; 2];
            if libc::pipe(fds.as_mut_ptr()) != 0 {
                return false;
            }
            let original = libc::dup(1);
            if original < 0 || libc::dup2(fds[1], 1) < 0 {
                libc::close(fds[0]);
                libc::close(fds[1]);
                if original >= 0 {
                    libc::close(original);
                }
                return false;
            }
            libc::close(fds[1]);
            (fds[0], original)
        };
        let out_fd = unsafe { libc::dup(original) };
        if out_fd < 0 {
            return false;
        }
        let thread = std::thread::spawn(move || {
            use std::io::{BufRead, BufReader};
            use std::os::fd::FromRawFd;
            // SAFETY: both descriptors were made above for this thread alone.
            let input = unsafe { std::fs::File::from_raw_fd(read) };
            let mut output = unsafe { std::fs::File::from_raw_fd(out_fd) };
            let mut input = BufReader::new(input);
            let mut line = Vec::new();
            let mut open = true;
            loop {
                line.clear();
                match input.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if !open {
                    continue;
                }
                let text = rewrite(&line);
                if write_lifted(&mut output, &text).is_err() {
                    // The reader is gone: drain the rest so no writer ever blocks or fails.
                    open = false;
                }
            }
        });
        *slot = Some(Forwarder { original, thread });
        true
    }
    #[cfg(not(unix))]
    false
}

/// libtest's summary line of an interrupted run says `interrupted`, not `ok`; the trials the
/// interrupt stopped are one line with their count, before the summary, not one line each.
fn rewrite(line: &[u8]) -> std::borrow::Cow<'_, [u8]> {
    const OK: &[u8] = b"test result: ok.";
    if INTERRUPTED.load(Ordering::SeqCst) {
        // A coloured line carries escape codes around `ok`.
        let text = String::from_utf8_lossy(line);
        if text.starts_with("test ") && text.contains(STOPPED_REASON) && text.contains("ignored") {
            STOPPED.fetch_add(1, Ordering::SeqCst);
            return std::borrow::Cow::Owned(Vec::new());
        }
        if text.starts_with("test result: ") && (line.starts_with(OK) || text.contains("ok")) {
            let mut out = stopped_line();
            out.push_str(&text.replacen("ok", "interrupted", 1));
            return std::borrow::Cow::Owned(out.into_bytes());
        }
        if text.starts_with("test result: ") {
            let mut out = stopped_line();
            out.push_str(&text);
            return std::borrow::Cow::Owned(out.into_bytes());
        }
    }
    std::borrow::Cow::Borrowed(line)
}

/// The reason of a trial the interrupt stopped (`execute`'s).
const STOPPED_REASON: &str = "the run was interrupted";
/// Trials the interrupt stopped, counted from libtest's lines.
static STOPPED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The one line of the stopped trials.
fn stopped_line() -> String {
    match STOPPED.swap(0, Ordering::SeqCst) {
        0 => String::new(),
        n => format!("{n} trials not run or stopped: ignored ({STOPPED_REASON})\n"),
    }
}

/// Flushes what the run printed to the real stdout and puts it back: call before the process
/// exits.
pub fn finish() {
    let _ = std::io::stdout().flush();
    let taken = FORWARDER.lock().unwrap_or_else(|e| e.into_inner()).take();
    #[cfg(unix)]
    if let Some(f) = taken {
        // SAFETY: restoring fd 1 closes the pipe's last write end; the thread then sees its end.
        unsafe {
            libc::dup2(f.original, 1);
            libc::close(f.original);
        }
        let _ = f.thread.join();
    }
    #[cfg(not(unix))]
    drop(taken);
}
