//! The process's exit codes, named once (README, "Exit codes"; `--help` says them too).

use std::process::ExitCode;

/// How a command ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// No trial failed (a run with ignored trials is incomplete, yet exits so).
    Passed = 0,
    /// Some trial failed; or, with `--require-complete`, some trial was ignored.
    Failed = 1,
    /// The run could not start or could not certify: no trial ran.
    Setup = 2,
    /// Interrupted by Ctrl-C (SIGINT).
    Interrupted = 130,
    /// Interrupted by SIGTERM.
    Terminated = 143,
}

impl Exit {
    /// The number the process exits with.
    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}
