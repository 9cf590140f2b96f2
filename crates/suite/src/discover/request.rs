//! One `GET` of discovery, and why it gave no usable answer: a position (the request) plus a
//! kind. The text is shown raw; whoever prints it (the table, the progress lines) redacts it.

use std::fmt;
use std::time::Duration;

use crate::client::TransportError;

/// A request of discovery, shown as the table names it: `GET /v1/messages?phoneNumberId=PN...`.
/// Discovery sends only `GET`, so the method is not stored.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    pub path: String,
    pub query: Vec<(String, String)>,
}

impl Request {
    /// `GET path?k=v&...`, the pairs in the order given.
    pub fn new(path: impl Into<String>, pairs: &[(&str, &str)]) -> Request {
        Request {
            path: path.into(),
            query: pairs
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        }
    }

    /// The same request with one more pair at the end.
    pub fn with(&self, key: &str, value: &str) -> Request {
        let mut more = self.clone();
        more.query.push((key.into(), value.into()));
        more
    }
}

impl fmt::Display for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "GET {}", self.path)?;
        for (i, (k, v)) in self.query.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { '?' } else { '&' })?;
        }
        Ok(())
    }
}

/// What went wrong with one request.
#[derive(Debug, Clone)]
pub enum ErrorKind {
    /// Discovery's bound on the number of requests was reached before it was sent.
    RequestBound { max: u64 },
    /// Discovery's bound on its time was reached before it was sent.
    TimeBound { max: Duration },
    /// No complete answer came back.
    Transport(TransportError),
    /// A status other than 2xx.
    Status(u16),
    /// A 2xx answer without a JSON body.
    NotJson(u16),
    /// A list answer without a `data` array.
    NoDataArray,
}

/// Why one request of discovery gave no usable answer: where, and what.
#[derive(Debug, Clone)]
pub(crate) struct RequestError {
    pub at: Request,
    pub kind: ErrorKind,
}

impl fmt::Display for RequestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = &self.at;
        match &self.kind {
            ErrorKind::RequestBound { max } => {
                write!(
                    f,
                    "discovery's bound of {max} requests was reached before {at}"
                )
            }
            ErrorKind::TimeBound { max } => write!(
                f,
                "discovery's bound of {} s was reached before {at}",
                max.as_secs_f64()
            ),
            ErrorKind::Transport(e) => write!(f, "{at}: {e}"),
            ErrorKind::Status(status) => write!(f, "{at} answered {status}"),
            ErrorKind::NotJson(status) => {
                write!(f, "{at} answered {status} without a JSON body")
            }
            ErrorKind::NoDataArray => write!(f, "{at} has no `data` array"),
        }
    }
}

impl std::error::Error for RequestError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.kind {
            ErrorKind::Transport(e) => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn error(kind: ErrorKind) -> String {
        RequestError {
            at: Request::new(
                "/v1/messages",
                &[("phoneNumberId", "PN1"), ("maxResults", "100")],
            ),
            kind,
        }
        .to_string()
    }

    #[test]
    fn requests_and_their_errors_read_as_before() {
        let what = "GET /v1/messages?phoneNumberId=PN1&maxResults=100";
        assert_eq!(Request::new("/webhooks", &[]).to_string(), "GET /webhooks");
        assert_eq!(
            Request::new("/calls", &[("a", "1")])
                .with("pageToken", "t")
                .to_string(),
            "GET /calls?a=1&pageToken=t"
        );
        assert_eq!(
            error(ErrorKind::RequestBound { max: 250 }),
            format!("discovery's bound of 250 requests was reached before {what}")
        );
        assert_eq!(
            error(ErrorKind::TimeBound {
                max: Duration::from_millis(1500)
            }),
            format!("discovery's bound of 1.5 s was reached before {what}")
        );
        assert_eq!(
            error(ErrorKind::TimeBound {
                max: Duration::from_secs(60)
            }),
            format!("discovery's bound of 60 s was reached before {what}")
        );
        let e = TransportError::Connect("refused".into());
        assert_eq!(
            error(ErrorKind::Transport(e.clone())),
            format!("{what}: {e}")
        );
        assert_eq!(
            error(ErrorKind::Status(404)),
            format!("{what} answered 404")
        );
        assert_eq!(
            error(ErrorKind::NotJson(200)),
            format!("{what} answered 200 without a JSON body")
        );
        assert_eq!(
            error(ErrorKind::NoDataArray),
            format!("{what} has no `data` array")
        );
    }
}
