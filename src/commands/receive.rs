//! `receive`: webhook deliveries received on a free port and printed, each with whether its
//! signature verifies with the secret of `--secret-file`, until `--count` came or `--seconds`
//! passed. The reproduction script of a defect found in deliveries starts it: the first line
//! gives the URL the webhook it creates points at.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use crate::cli::ReceiveArgs;
use crate::error::Error;
use conformance_suite::report::plural;
use conformance_suite::webhooks::listen;

use super::connection;

/// Receives and prints deliveries; exits 0 whatever came (the script judges).
pub fn receive(args: ReceiveArgs) -> Result<ExitCode, Error> {
    if !(args.seconds.is_finite() && args.seconds > 0.0) {
        return Err(Error::NotPositiveSeconds {
            option: "--seconds",
            value: args.seconds,
        });
    }
    let rt = connection::runtime()?;
    rt.block_on(async {
        let (addr, mut deliveries) = listen::listen(args.listen, args.secret_file.clone())
            .await
            .map_err(|source| Error::Listen {
                addr: args.listen,
                source,
            })?;
        crate::output::say(&format!("receiving webhook deliveries at http://{addr}"));
        let start = Instant::now();
        let until = start + Duration::from_secs_f64(args.seconds);
        let mut n = 0usize;
        while args.count.is_none_or(|c| n < c) {
            let next = tokio::time::timeout_at(until.into(), deliveries.recv()).await;
            let Ok(Some(d)) = next else {
                break;
            };
            n += 1;
            let signed: Vec<String> = d
                .headers
                .iter()
                .filter(|(k, _)| k.starts_with("webhook-"))
                .map(|(k, v)| format!("{k}: {v}"))
                .collect();
            crate::output::say(&format!(
                "delivery {n}: {} {} {}\n  body: {}\n  signature: {}",
                d.method,
                d.path,
                signed.join("; "),
                d.body,
                d.signature
            ));
        }
        crate::output::say(&format!(
            "{} received in {:.1} s",
            plural(n, "delivery"),
            start.elapsed().as_secs_f64()
        ));
        Ok(ExitCode::SUCCESS)
    })
}
