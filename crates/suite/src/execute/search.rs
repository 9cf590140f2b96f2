//! The seeded search for a failing input, shared by the boundary properties and the round trip:
//! a deterministic rng per trial, random inputs tried until one fails, that input shrunk to a
//! minimal one, and the note that says which input failed and how to replay it.

use std::future::Future;
use std::sync::Arc;

use proptest::strategy::{SBoxedStrategy, Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::Value;

use crate::client::Exchange;
use crate::results::{Failure, Finding};

/// Findings of one input, with the exchange they concern.
pub(super) type Found = Vec<(Finding, Arc<Exchange>)>;

/// Shrinking steps tried after a random input fails; each step is one or a few requests.
const MAX_SHRINK_STEPS: usize = 48;

/// The findings of a property's failing input as failures of its last step, each saying which
/// input failed (`note`).
pub(super) fn failures(found: Found, note: &str, steps: usize) -> Vec<Failure> {
    found
        .into_iter()
        .map(|(mut finding, ex)| {
            finding.actual = format!("{}; {note}", finding.actual);
            Failure {
                finding,
                step: steps,
                steps,
                exchange: Some(ex),
                cause: None,
            }
        })
        .collect()
}

/// A deterministic rng for one property: the run's seed mixed with the trial name, so a filter
/// does not change the inputs of the trials it keeps.
pub(super) fn runner_for(seed: u64, name: &str) -> TestRunner {
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    for b in name.bytes() {
        state = (state ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
    }
    let mut bytes = [0u8; 32];
    for chunk in bytes.chunks_mut(8) {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        chunk.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    )
}

/// Whether the findings hold a transport failure (no complete answer): it says nothing about the
/// input, so it is never shrunk.
pub(super) fn transport_failure(found: &Found) -> bool {
    found.iter().any(|(_, ex)| ex.outcome.is_err())
}

/// The note on a failing random input: the minimal input after shrinking, or, for a transport
/// failure, the input as it was (a transport failure is not the input's fault).
pub(super) fn input_note(input: &Value, found: &Found, seed: u64, run: &str) -> String {
    if transport_failure(found) {
        format!(
            "a transport failure on the random input {}, not shrunk: it says nothing of the input (replay: --seed {seed} --run-id {run})",
            show(input)
        )
    } else {
        format!(
            "minimal input after shrinking: {} (replay: --seed {seed} --run-id {run})",
            show(input)
        )
    }
}

/// Tries `n` random inputs; on the first failure shrinks it and returns the minimal failing input
/// with its findings. A transport failure is returned as it came, unshrunk, and a transport
/// failure while shrinking ends the shrinking with the smallest input that failed on its own.
pub(super) async fn search<F, Fut>(
    runner: &mut TestRunner,
    strategy: &SBoxedStrategy<Value>,
    n: u32,
    mut test: F,
) -> Option<(Value, Found)>
where
    F: FnMut(Value) -> Fut,
    Fut: Future<Output = Found>,
{
    for _ in 0..n {
        let Ok(mut tree) = strategy.new_tree(runner) else {
            return None;
        };
        let found = test(tree.current()).await;
        if found.is_empty() {
            continue;
        }
        if transport_failure(&found) {
            return Some((tree.current(), found));
        }
        let mut best = (tree.current(), found);
        let mut passed_last = false;
        for _ in 0..MAX_SHRINK_STEPS {
            let moved = if passed_last {
                tree.complicate()
            } else {
                tree.simplify()
            };
            if !moved {
                break;
            }
            let found = test(tree.current()).await;
            if transport_failure(&found) {
                break;
            }
            if found.is_empty() {
                passed_last = true;
            } else {
                best = (tree.current(), found);
                passed_last = false;
            }
        }
        return Some(best);
    }
    None
}

/// A value in words: short values whole, long strings by length and start.
pub(super) fn show(v: &Value) -> String {
    match v {
        Value::String(s) if s.chars().count() > 40 => {
            let head: String = s.chars().take(24).collect();
            format!("a string of {} characters ({head:?}…)", s.chars().count())
        }
        Value::Array(items) if items.len() > 3 => format!("an array of {} items", items.len()),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::Outgoing;
    use std::time::Duration;

    /// A real exchange that failed in transport: a request to a port nobody listens on.
    async fn failed_exchange() -> Arc<Exchange> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let client = crate::client::Client::new(
            crate::client::ClientConfig {
                base_url: format!("http://127.0.0.1:{port}"),
                api_key: None,
                timeout: Duration::from_secs(2),
                max_body_bytes: 1024,
                rate: None,
            },
            Default::default(),
        )
        .expect("client");
        let out = Outgoing {
            method: "GET".into(),
            path: "/".into(),
            query: vec![],
            headers: vec![],
            body: None,
            raw_body: None,
            auth: crate::client::Auth::None,
        };
        let ex = client.send(&out).await;
        assert!(ex.outcome.is_err());
        Arc::new(ex)
    }

    #[tokio::test]
    async fn a_transport_failure_is_not_shrunk() {
        let strategy: SBoxedStrategy<Value> = proptest::string::string_regex("[a-z]{5,40}")
            .expect("regex")
            .prop_map(Value::String)
            .sboxed();
        let mut runner = runner_for(7, "t");
        let ex = failed_exchange().await;
        let mut calls = 0;
        let result = search(&mut runner, &strategy, 4, |_| {
            calls += 1;
            let ex = ex.clone();
            async move { vec![(Finding::new("", "answer", "an answer", "none"), ex)] }
        })
        .await;
        let (input, found) = result.expect("a failure");
        assert_eq!(calls, 1, "no shrinking step after a transport failure");
        let note = input_note(&input, &found, 7, "r0000001");
        assert!(
            note.starts_with("a transport failure on the random input")
                && !note.contains("minimal input"),
            "{note}"
        );
    }
}
