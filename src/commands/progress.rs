//! How far a run is, while it runs. On a terminal, a live status line on stderr (indicatif):
//! trials done of the total, failed so far, elapsed time and the request rate; libtest's lines
//! are printed above it. Under CI, or when stderr is not a terminal, no live line and no control
//! sequence: one plain line every 10 seconds. libtest's own output is left as it is: `--format
//! terse` (`-q`) has its dots for progress, and gets neither.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use conformance_suite::client::Client;
use conformance_suite::plan::Recorder;

/// How often a run without a terminal says how far it is.
pub const LINE_INTERVAL: Duration = Duration::from_secs(10);

/// Sets the interval of the plain progress lines, in seconds: for the suite's own tests, which
/// cannot wait 10 seconds for a line. Not an option a user needs.
pub const INTERVAL_VARIABLE: &str = "WORKSPACE_CONFORMANCE_PROGRESS_SECONDS";

/// How a run shows its progress.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Mode {
    /// A live line on the terminal.
    Bar,
    /// A plain line every interval.
    Lines(Duration),
    /// Nothing (`--list`, `--format terse`).
    Off,
}

/// Whether `CI` is set (as CI services set it; `false` and `0` say it is not).
fn under_ci(value: Option<std::ffi::OsString>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The interval of the plain lines: the test hook's, else [`LINE_INTERVAL`].
fn interval(value: Option<String>) -> Duration {
    value
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s > 0.0)
        .map_or(LINE_INTERVAL, Duration::from_secs_f64)
}

/// The mode of a run: nothing for a listing or terse output, a live line on a terminal outside
/// CI, plain lines otherwise.
pub fn mode(listing: bool, terse: bool) -> Mode {
    if listing || terse {
        return Mode::Off;
    }
    let ci = under_ci(std::env::var_os("CI"));
    if std::io::stderr().is_terminal() && !ci {
        Mode::Bar
    } else {
        Mode::Lines(interval(std::env::var(INTERVAL_VARIABLE).ok()))
    }
}

/// The progress of a running run; [`Progress::finish`] ends it (the live line is cleared).
pub struct Progress {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
    bar: Option<ProgressBar>,
}

/// What a progress line counts.
struct Counts {
    total: usize,
    recorder: Arc<Recorder>,
    client: Arc<Client>,
    start: Instant,
}

impl Counts {
    /// `done`, `failed` and the request rate so far.
    fn now(&self) -> (usize, usize, u64, f64) {
        let (done, failed) = self.recorder.counts();
        let sent = self.client.request_count();
        let secs = self.start.elapsed().as_secs_f64().max(1e-3);
        (done, failed, sent, sent as f64 / secs)
    }

    /// The plain line.
    fn line(&self) -> String {
        let (done, failed, sent, rate) = self.now();
        format!(
            "progress: {done} of {} trials done, {failed} failed, {:.0} s, {sent} requests ({rate:.0} requests/s)",
            self.total,
            self.start.elapsed().as_secs_f64()
        )
    }
}

impl Progress {
    /// Starts showing the progress of `total` trials as `recorder` records them.
    pub fn start(mode: Mode, total: usize, recorder: Arc<Recorder>, client: Arc<Client>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let counts = Counts {
            total,
            recorder,
            client,
            start: Instant::now(),
        };
        let (thread, bar) = match mode {
            Mode::Off => (None, None),
            Mode::Lines(every) => {
                let stop = stop.clone();
                let t = std::thread::spawn(move || lines(&counts, every, &stop));
                (Some(t), None)
            }
            Mode::Bar => {
                let bar = ProgressBar::with_draw_target(
                    Some(total as u64),
                    ProgressDrawTarget::stderr_with_hz(10),
                );
                let style = ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} trials, {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar());
                bar.set_style(style);
                bar.enable_steady_tick(Duration::from_millis(200));
                crate::output::show_bar(Some(bar.clone()));
                let (stop, shown) = (stop.clone(), bar.clone());
                let t = std::thread::spawn(move || live(&counts, &shown, &stop));
                (Some(t), Some(bar))
            }
        };
        Progress { stop, thread, bar }
    }

    /// Stops the progress; the live line is cleared, so what follows starts on a clean line.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
        crate::output::show_bar(None);
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

/// Updates the live line until stopped.
fn live(counts: &Counts, bar: &ProgressBar, stop: &AtomicBool) {
    while !stop.load(Ordering::SeqCst) {
        let (done, failed, _, rate) = counts.now();
        bar.set_position(done as u64);
        bar.set_message(format!("{failed} failed, {rate:.0} requests/s"));
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Prints a plain line on stderr every `every` until stopped.
fn lines(counts: &Counts, every: Duration, stop: &AtomicBool) {
    let mut next = Instant::now() + every;
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50).min(every));
        if Instant::now() >= next {
            // A closed stderr is not the run's failure.
            let _ = writeln!(std::io::stderr(), "{}", counts.line());
            next += every;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_line_comes_every_10_seconds_unless_the_test_hook_says_otherwise() {
        assert_eq!(LINE_INTERVAL, Duration::from_secs(10));
        assert_eq!(interval(None), Duration::from_secs(10));
        assert_eq!(interval(Some("0.5".into())), Duration::from_millis(500));
        for bad in ["", "0", "-1", "soon", "NaN"] {
            assert_eq!(interval(Some(bad.into())), LINE_INTERVAL, "{bad}");
        }
    }

    #[test]
    fn ci_is_set_unless_it_says_false() {
        assert!(under_ci(Some("true".into())));
        assert!(under_ci(Some("1".into())));
        assert!(!under_ci(Some("false".into())));
        assert!(!under_ci(Some("".into())));
        assert!(!under_ci(None));
    }

    #[test]
    fn a_listing_and_terse_output_show_no_progress() {
        assert_eq!(mode(true, false), Mode::Off);
        assert_eq!(mode(false, true), Mode::Off);
    }
}
