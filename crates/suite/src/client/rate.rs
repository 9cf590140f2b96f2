//! The rate limit shared by every request of a run, and the bounded retries of a `429`.

use std::time::Duration;

use super::Exchange;

/// One limiter shared by every request of the run: requests leave at most `rate` a second,
/// each at its own slot (retries of a 429 take a slot too).
#[derive(Debug)]
pub(crate) struct RateLimiter {
    interval: Duration,
    next: tokio::sync::Mutex<Option<tokio::time::Instant>>,
}

impl RateLimiter {
    pub fn new(per_second: f64) -> RateLimiter {
        RateLimiter {
            interval: Duration::from_secs_f64(1.0 / per_second.max(1e-3)),
            next: tokio::sync::Mutex::new(None),
        }
    }

    /// Waits for the next free slot.
    pub(crate) async fn acquire(&self) {
        let at = {
            let mut next = self.next.lock().await;
            let now = tokio::time::Instant::now();
            let at = next.map_or(now, |n| n.max(now));
            *next = Some(at + self.interval);
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

/// Retries of a `429` before its answer stands.
const MAX_429_RETRIES: u32 = 3;

/// How long to wait before sending again after `ex`, the `attempt`-th retry so far, or None when
/// its answer stands: a `429` is retried after its `Retry-After` (1 s when absent or not whole
/// seconds, 10 s at most), at most [`MAX_429_RETRIES`] times.
pub(super) fn retry_after(ex: &Exchange, attempt: u32) -> Option<Duration> {
    match &ex.outcome {
        Ok(r) if r.status == 429 && attempt < MAX_429_RETRIES => Some(Duration::from_secs(
            r.header("retry-after")
                .and_then(|v| v.trim().parse::<u64>().ok())
                .unwrap_or(1)
                .min(10),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    use super::super::{Auth, Client, ClientConfig, Outgoing, Redactor};
    use super::*;

    use axum::http::{HeaderMap, StatusCode};
    use axum::routing::get;

    /// A server whose first `busy` answers are 429 with `Retry-After: retry_after`, then 200;
    /// it records when each request came.
    async fn server(busy: usize, retry_after: &'static str) -> (String, Arc<Mutex<Vec<Instant>>>) {
        let seen = Arc::new(Mutex::new(Vec::<Instant>::new()));
        let log = seen.clone();
        let app = axum::Router::new().route(
            "/",
            get(move || {
                let log = log.clone();
                async move {
                    let mut v = log.lock().unwrap();
                    v.push(Instant::now());
                    let mut h = HeaderMap::new();
                    if v.len() <= busy {
                        h.insert("retry-after", retry_after.parse().unwrap());
                        (StatusCode::TOO_MANY_REQUESTS, h, "busy")
                    } else {
                        (StatusCode::OK, h, "ok")
                    }
                }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{addr}"), seen)
    }

    fn client(base: &str, rate: Option<f64>) -> Arc<Client> {
        Client::new(
            ClientConfig {
                base_url: base.to_string(),
                api_key: None,
                timeout: Duration::from_secs(5),
                max_body_bytes: 1024,
                rate,
            },
            Redactor::default(),
        )
        .unwrap()
    }

    fn get_root() -> Outgoing {
        Outgoing {
            method: "GET".into(),
            path: "/".into(),
            query: vec![],
            headers: vec![],
            body: None,
            raw_body: None,
            auth: Auth::None,
        }
    }

    #[tokio::test]
    async fn the_rate_limit_is_shared_by_concurrent_requests() {
        let (base, seen) = server(0, "0").await;
        let c = client(&base, Some(20.0));
        let start = Instant::now();
        let mut set = tokio::task::JoinSet::new();
        for _ in 0..10 {
            let c = c.clone();
            set.spawn(async move { c.send(&get_root()).await });
        }
        while let Some(r) = set.join_next().await {
            assert_eq!(r.unwrap().outcome.unwrap().status, 200);
        }
        // 10 requests at 20/s: the last leaves 9 intervals of 50 ms after the first.
        assert!(
            start.elapsed() >= Duration::from_millis(440),
            "{:?}",
            start.elapsed()
        );
        let times = seen.lock().unwrap().clone();
        assert_eq!(times.len(), 10);
        let span = times[9].duration_since(times[0]);
        assert!(span >= Duration::from_millis(400), "{span:?}");
    }

    #[tokio::test]
    async fn a_429_is_retried_after_its_retry_after() {
        let (base, seen) = server(1, "1").await;
        let c = client(&base, None);
        let ex = c.send(&get_root()).await;
        assert_eq!(ex.outcome.unwrap().status, 200);
        let times = seen.lock().unwrap().clone();
        assert_eq!(times.len(), 2);
        assert!(times[1].duration_since(times[0]) >= Duration::from_millis(950));
    }

    #[tokio::test]
    async fn retries_of_429_are_bounded() {
        let (base, seen) = server(usize::MAX, "0").await;
        let c = client(&base, None);
        let ex = c.send(&get_root()).await;
        assert_eq!(ex.outcome.unwrap().status, 429);
        // The first attempt and 3 retries, then the 429 is the answer.
        assert_eq!(seen.lock().unwrap().len(), 4);
    }
}
