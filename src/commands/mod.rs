//! The binary's commands: a certification run (the default), `discover`, `serve`, `merge` and
//! `compare`, one file each. Every command first turns its parsed arguments into a checked value ([`checked`]), with
//! no network and no runtime, then does its work; a failure is an [`Error`] whose
//! [`Error::exit_code`] ends the process.

mod certify;
mod checked;
mod compare;
mod connection;
mod discover;
mod merge;
mod nearest;
mod progress;
mod receive;
mod reports;
mod rerun;
mod run;
mod selection;
mod serve;
mod signals;
mod target;
mod verdict;

use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches};

use crate::cli::{Cli, Command};
use crate::error::Error;

pub use certify::{Certification, certify};
pub use checked::new_run_id;
pub use connection::client_for;

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let matches = command().get_matches();
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    crate::output::guard_stdout();
    let result: Result<ExitCode, Error> = match cli.command {
        Some(Command::Serve(args)) => serve::serve(args),
        Some(Command::Discover(args)) => {
            let from_env = matches
                .subcommand_matches("discover")
                .is_some_and(key_from_env);
            discover::discover(args, from_env)
        }
        Some(Command::Merge(args)) => merge::merge(args),
        Some(Command::Compare(args)) => compare::compare(args),
        Some(Command::Receive(args)) => receive::receive(args),
        None => run::run(cli.run, key_from_env(&matches)),
    };
    let code = match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    };
    crate::output::finish();
    code
}

/// Whether `--api-key` came from the environment (WORKSPACE_API_KEY), which messages name.
fn key_from_env(matches: &clap::ArgMatches) -> bool {
    matches!(
        matches.value_source("api_key"),
        Some(clap::parser::ValueSource::EnvVariable)
    )
}

/// The command line: [`Cli`], libtest's internals hidden by its own attributes.
pub fn command() -> clap::Command {
    Cli::command()
}
