//! `serve`: the reference implementation standalone, with faults and variants, until Ctrl-C; or
//! its fault and variant catalogs printed.

use std::process::ExitCode;

use crate::cli::ServeArgs;
use crate::error::Error;
use conformance_reference as reference;

use super::checked::CheckedServe;
use super::connection;

/// Runs `serve`: prints a listing, or serves the reference until Ctrl-C.
pub fn serve(args: ServeArgs) -> Result<ExitCode, Error> {
    let (faults, variants, args) = match CheckedServe::check(args)? {
        CheckedServe::Listing(listing) => {
            print!("{listing}");
            return Ok(ExitCode::SUCCESS);
        }
        CheckedServe::Serve {
            faults,
            variants,
            args,
        } => (faults, variants, args),
    };
    let rt = connection::runtime()?;
    rt.block_on(async {
        let running = reference::start(reference::Options {
            listen: args.listen,
            faults,
            variants,
        })
        .await
        .map_err(|source| Error::Listen {
            addr: args.listen,
            source,
        })?;
        if let Some(path) = &args.profile_out {
            let text = serde_json::to_string_pretty(&running.profile)?;
            std::fs::write(path, text + "\n").map_err(|source| Error::Write {
                path: path.clone(),
                source,
            })?;
        }
        println!(
            "reference implementation listening on http://{}",
            running.addr
        );
        if !args.faults.is_empty() {
            println!("faults on: {}", args.faults.join(", "));
        }
        if !args.variants.is_empty() {
            println!("variants on: {}", args.variants.join(", "));
        }
        let _ = tokio::signal::ctrl_c().await;
        running.stop().await;
        Ok(ExitCode::SUCCESS)
    })
}
