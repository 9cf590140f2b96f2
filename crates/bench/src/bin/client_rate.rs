//! The request rate of the suite's own HTTP client (`client::Client`, the one every trial uses:
//! headers, timeout, body cap, recording, JSON parsing) against one endpoint, for comparison
//! with `wrk` on the same endpoint. Used by `scripts/bench.sh`.
//!
//! ```sh
//! cargo run --release -p conformance-bench --bin client_rate -- URL PROFILE PATH [CONNECTIONS] [SECONDS]
//! ```
//! Prints `client: N requests in S s (R requests/s), F failed`.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use conformance_contract::API_VERSION;
use conformance_contract::profile::Profile;
use conformance_suite::client::{Auth, Outgoing};
use workspace_conformance::app::client_for;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 3 {
        eprintln!("usage: client_rate URL PROFILE PATH [CONNECTIONS] [SECONDS]");
        std::process::exit(2);
    }
    let (url, profile, path) = (&args[0], &args[1], args[2].clone());
    let connections: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(8);
    let seconds: f64 = args.get(4).and_then(|a| a.parse().ok()).unwrap_or(3.0);
    let profile = Profile::load(std::path::Path::new(profile)).expect("a profile");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let client = client_for(
        url,
        profile.api_key.clone(),
        &profile,
        Duration::from_secs(10),
        8 * 1024 * 1024,
        None,
    )
    .expect("client");
    let headers = if path.starts_with("/v1/") {
        vec![]
    } else {
        vec![("Service-Api-Version".to_string(), API_VERSION.to_string())]
    };
    let out = Arc::new(Outgoing {
        method: "GET".into(),
        path,
        query: vec![],
        headers,
        body: None,
        raw_body: None,
        auth: Auth::Primary,
    });
    let failed = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let deadline = start + Duration::from_secs_f64(seconds);
    rt.block_on(async {
        let mut tasks = Vec::new();
        for _ in 0..connections {
            let (client, out, failed) = (client.clone(), out.clone(), failed.clone());
            tasks.push(tokio::spawn(async move {
                while Instant::now() < deadline {
                    let ex = client.send(&out).await;
                    if !matches!(&ex.outcome, Ok(r) if r.status == 200 && r.value().is_some()) {
                        failed.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }));
        }
        for t in tasks {
            let _ = t.await;
        }
    });
    let secs = start.elapsed().as_secs_f64();
    let n = client.request_count();
    println!(
        "client: {n} requests in {secs:.2} s ({:.0} requests/s), {} failed",
        n as f64 / secs,
        failed.load(Ordering::Relaxed)
    );
}
