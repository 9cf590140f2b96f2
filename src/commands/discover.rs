//! `discover`: finds the target's fixtures with GET requests, writes the profile, prints the
//! table.

use std::process::ExitCode;
use std::time::Duration;

use crate::cli::DiscoverArgs;
use crate::error::Error;
use conformance_contract::profile::Profile;

use super::checked::CheckedDiscover;
use super::connection;

/// Runs `discover`: the arguments checked, the target reached and its key taken, the fixtures
/// found, the profile written and read back.
pub fn discover(args: DiscoverArgs, key_from_env: bool) -> Result<ExitCode, Error> {
    let CheckedDiscover {
        args,
        base,
        key,
        key_source,
    } = CheckedDiscover::check(args, key_from_env)?;
    let client = connection::client_for(
        &args.target,
        Some(key),
        &base,
        Duration::from_secs_f64(args.timeout),
        8 * 1024 * 1024,
        None,
    )?;
    let rt = connection::runtime()?;
    connection::answers(&rt, &client, &args.target)?;
    connection::key_taken(&rt, &client, &key_source, &args.target)?;
    eprintln!(
        "discovering the fixtures of {} (GET only; at most {} requests, {} s)",
        args.target, args.max_requests, args.max_seconds
    );
    let d = rt.block_on(conformance_suite::discover::discover(
        &client,
        &base,
        args.profile.as_ref().map(|p| p.display().to_string()),
        conformance_suite::discover::Limits {
            max_requests: args.max_requests,
            max_time: Duration::from_secs_f64(args.max_seconds),
        },
        &|line| eprintln!("{}", client.redactor.redact(line)),
    ));
    let text = serde_json::to_string_pretty(&d.profile())?;
    std::fs::write(&args.out, text + "\n").map_err(|source| Error::Write {
        path: args.out.clone(),
        source,
    })?;
    // What was written is read back as a run reads it: a profile `--profile` refuses is a bug.
    Profile::load(&args.out).map_err(Error::WrittenProfileUnreadable)?;
    print!("{}", d.table(&client.redactor));
    println!("profile written to {}", args.out.display());
    Ok(ExitCode::SUCCESS)
}
