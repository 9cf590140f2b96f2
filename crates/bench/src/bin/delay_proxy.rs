//! A delaying proxy: forwards every request to a target (the reference started by `serve`) after
//! holding it for a fixed delay, as a server in another region would answer. Used by
//! `scripts/bench.sh` to time a run against a target across a network.
//!
//! ```sh
//! cargo run --release -p conformance-bench --bin delay_proxy -- --to http://127.0.0.1:8080 [--listen 127.0.0.1:0] [--delay-ms 50] [--connect-ms 0]
//! ```
//! Prints `delay proxy listening on http://ADDR (DELAY ms before each request to TARGET)` first,
//! then serves until killed. Connections to it are kept alive as a real server's are.
//! `--connect-ms N` holds the first bytes of each new connection N ms more: the handshake a new
//! connection costs across a network (a TCP round trip, more with TLS), which a loopback
//! connection does not.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::response::{IntoResponse, Response};
use std::future::Future;

/// Largest request body forwarded; the suite's bodies are a few KiB.
const MAX_REQUEST_BODY: usize = 16 * 1024 * 1024;

/// Headers that belong to one connection, not to the message (RFC 9110 7.6.1): never forwarded.
const HOP_BY_HOP: [&str; 8] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
];

#[derive(Clone)]
struct Proxy {
    to: String,
    delay: Duration,
    http: reqwest::Client,
}

struct Args {
    listen: String,
    to: String,
    delay_ms: u64,
    connect_ms: u64,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        listen: "127.0.0.1:0".into(),
        to: String::new(),
        delay_ms: 50,
        connect_ms: 0,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--listen" => args.listen = value,
            "--to" => args.to = value.trim_end_matches('/').to_string(),
            "--delay-ms" => {
                args.delay_ms = value
                    .parse()
                    .map_err(|_| format!("--delay-ms takes milliseconds, not {value:?}"))?
            }
            "--connect-ms" => {
                args.connect_ms = value
                    .parse()
                    .map_err(|_| format!("--connect-ms takes milliseconds, not {value:?}"))?
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if args.to.is_empty() {
        return Err("--to URL is required".into());
    }
    Ok(args)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(why) => {
            eprintln!(
                "delay_proxy: {why}\nusage: delay_proxy --to URL [--listen ADDR] [--delay-ms N] [--connect-ms N]"
            );
            std::process::exit(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(serve(args));
}

async fn serve(args: Args) {
    let builder = || {
        reqwest::Client::builder()
            // A redirect is the target's answer: the proxy passes it on, as the network would.
            .redirect(reqwest::redirect::Policy::none())
            .pool_max_idle_per_host(256)
    };
    let http = conformance_suite::tls::build(builder, args.to.starts_with("https://"))
        .unwrap_or_else(|e| {
            eprintln!("delay_proxy: {e}");
            std::process::exit(2);
        });
    let listener = tokio::net::TcpListener::bind(&args.listen)
        .await
        .unwrap_or_else(|e| {
            eprintln!("delay_proxy: cannot listen on {}: {e}", args.listen);
            std::process::exit(2);
        });
    let addr = listener.local_addr().expect("a bound address");
    println!(
        "delay proxy listening on http://{addr} ({} ms before each request to {}, {} ms more for a new connection)",
        args.delay_ms, args.to, args.connect_ms
    );
    let proxy = Proxy {
        to: args.to,
        delay: Duration::from_millis(args.delay_ms),
        http,
    };
    let app = axum::Router::new().fallback(forward).with_state(proxy);
    let listener = Handshake {
        inner: listener,
        delay: Duration::from_millis(args.connect_ms),
    };
    if let Err(e) = axum::serve(listener, app).await {
        eprintln!("delay_proxy: {e}");
        std::process::exit(1);
    }
}

/// Holds the request for the delay, then sends it on and passes the answer back whole.
async fn forward(State(proxy): State<Proxy>, req: Request) -> Response {
    tokio::time::sleep(proxy.delay).await;
    let (parts, body) = req.into_parts();
    let body = match axum::body::to_bytes(body, MAX_REQUEST_BODY).await {
        Ok(b) => b,
        Err(e) => return (StatusCode::BAD_GATEWAY, format!("request body: {e}")).into_response(),
    };
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let url = format!("{}{path}", proxy.to);
    let mut outgoing = proxy
        .http
        .request(parts.method, &url)
        .headers(end_to_end(&parts.headers));
    if !body.is_empty() {
        outgoing = outgoing.body(body);
    }
    let answer = match outgoing.send().await {
        Ok(a) => a,
        Err(e) => return (StatusCode::BAD_GATEWAY, format!("upstream: {e}")).into_response(),
    };
    let status = answer.status();
    let headers = end_to_end(answer.headers());
    let bytes: Bytes = match answer.bytes().await {
        Ok(b) => b,
        Err(e) => {
            return (StatusCode::BAD_GATEWAY, format!("upstream body: {e}")).into_response();
        }
    };
    let mut response = Response::new(Body::from(bytes));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// The headers of a message without those of its connection; the length is set anew by the
/// side that sends the body.
fn end_to_end(headers: &HeaderMap) -> HeaderMap {
    let mut out = HeaderMap::new();
    for (name, value) in headers {
        if HOP_BY_HOP.contains(&name.as_str()) || name == HeaderName::from_static("content-length")
        {
            continue;
        }
        out.append(name.clone(), value.clone());
    }
    out
}

/// A listener whose connections hold their first bytes for `delay`: the cost of a handshake.
struct Handshake {
    inner: tokio::net::TcpListener,
    delay: Duration,
}

impl axum::serve::Listener for Handshake {
    type Io = Delayed;
    type Addr = std::net::SocketAddr;

    async fn accept(&mut self) -> (Delayed, std::net::SocketAddr) {
        let (io, addr) = axum::serve::Listener::accept(&mut self.inner).await;
        let until = tokio::time::Instant::now() + self.delay;
        (
            Delayed {
                io,
                wait: Some(Box::pin(tokio::time::sleep_until(until))),
            },
            addr,
        )
    }

    fn local_addr(&self) -> std::io::Result<std::net::SocketAddr> {
        self.inner.local_addr()
    }
}

/// A connection that reads nothing before its handshake is over.
struct Delayed {
    io: tokio::net::TcpStream,
    wait: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl tokio::io::AsyncRead for Delayed {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        if let Some(wait) = self.wait.as_mut() {
            if wait.as_mut().poll(cx).is_pending() {
                return std::task::Poll::Pending;
            }
            self.wait = None;
        }
        std::pin::Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncWrite for Delayed {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        std::pin::Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_flush(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        std::pin::Pin::new(&mut self.io).poll_shutdown(cx)
    }
}
