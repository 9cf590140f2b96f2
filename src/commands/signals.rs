//! Ctrl-C and SIGTERM during a run. The first stops the trials and lets the reports be written
//! and the cleanup run; a second, or one during the cleanup, quits at once: the reports written
//! before the cleanup stand.

use crate::exit::Exit;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use conformance_suite::execute::Executor;

/// Phases of a run, as a signal sees them: the trials run.
const TRIALS: u8 = 0;
/// The reports are written; the cleanup runs.
const CLEANING: u8 = 1;
/// The reports are being rewritten after the cleanup.
const REWRITING: u8 = 2;

/// What the run is doing, for a signal, and the signal that interrupted it.
pub struct Signals {
    /// Trials, or the cleanup (the reports are written).
    phase: Arc<AtomicU8>,
    /// The exit code of the signal that interrupted the run (130 Ctrl-C, 143 SIGTERM), or 0.
    signal: Arc<AtomicU8>,
}

impl Signals {
    /// A run in its trials, not interrupted.
    pub fn new() -> Signals {
        Signals {
            phase: Arc::new(AtomicU8::new(TRIALS)),
            signal: Arc::new(AtomicU8::new(0)),
        }
    }

    /// Ctrl-C or SIGTERM (a CI kill): no new trial starts, running ones stop, the reports are
    /// written, what the run created is deleted. During the cleanup, or a second time: quit at
    /// once.
    pub fn handle(&self, rt: &tokio::runtime::Runtime, exec: &Executor) {
        let cleanup = exec.cleanup().clone();
        let phase = self.phase.clone();
        let signal = self.signal.clone();
        rt.spawn(async move {
            let mut first = true;
            while let Some(code) = next_signal().await {
                if phase.load(Ordering::SeqCst) == CLEANING {
                    eprintln!(
                        "interrupted during the cleanup: quitting; the reports written before it list what may be left"
                    );
                    std::process::exit(i32::from(code));
                }
                if !first {
                    eprintln!("interrupted again: quitting at once");
                    std::process::exit(i32::from(code));
                }
                first = false;
                signal.store(code, Ordering::SeqCst);
                crate::output::mark_interrupted();
                eprintln!(
                    "interrupted: stopping the trials and removing what the run created (Ctrl-C again to quit at once)"
                );
                cleanup.interrupt();
            }
        });
    }

    /// The reports are written: the cleanup starts.
    pub fn cleaning(&self) {
        self.phase.store(CLEANING, Ordering::SeqCst);
    }

    /// The cleanup is done: the reports are rewritten.
    pub fn rewriting(&self) {
        self.phase.store(REWRITING, Ordering::SeqCst);
    }

    /// The exit code of the signal that interrupted the run, if one did.
    pub fn code(&self) -> Option<u8> {
        match self.signal.load(Ordering::SeqCst) {
            0 => None,
            code => Some(code),
        }
    }
}

/// The next Ctrl-C (130) or SIGTERM (143), as the exit code it gives.
async fn next_signal() -> Option<u8> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).ok()?;
        tokio::select! {
            r = tokio::signal::ctrl_c() => r.ok().map(|_| Exit::Interrupted.code()),
            r = term.recv() => r.map(|_| Exit::Terminated.code()),
        }
    }
    #[cfg(not(unix))]
    {
        tokio::signal::ctrl_c()
            .await
            .ok()
            .map(|_| Exit::Interrupted.code())
    }
}
