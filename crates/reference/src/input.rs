//! Reading what a client sends (body, query, path parameters) without axum's extractors, whose
//! rejections are plain text: every refusal here becomes an error body of the request's generation.

use axum::body::Body;
use axum::extract::Path;
use axum::extract::rejection::PathRejection;
use serde_json::{Map, Value};

use super::errors::ApiError;

/// Bodies are small JSON objects; anything larger is refused before parsing.
const BODY_LIMIT: usize = 1 << 20;

/// Reads the body as a JSON object. `path` picks the generation of the error body.
pub(crate) async fn json_object(body: Body, path: &str) -> Result<Map<String, Value>, ApiError> {
    let bytes = axum::body::to_bytes(body, BODY_LIMIT).await.map_err(|_| {
        ApiError::bad_request(
            path,
            format!("request body could not be read or exceeds {BODY_LIMIT} bytes"),
        )
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request(
            path,
            "request body is required: a JSON object",
        ));
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(_) => Err(ApiError::bad_request(
            path,
            "request body must be a JSON object",
        )),
        Err(e) => Err(ApiError::bad_request(
            path,
            format!("request body is not valid JSON: {e}"),
        )),
    }
}

/// The decoded query string, in order, keys repeated as sent (`externalIds=a&externalIds=b`).
#[derive(Debug, Clone, Default)]
pub(crate) struct Query(Vec<(String, String)>);

impl Query {
    pub fn parse(raw: Option<&str>) -> Self {
        Query(
            form_urlencoded::parse(raw.unwrap_or_default().as_bytes())
                .map(|(k, v)| (k.into_owned(), v.into_owned()))
                .collect(),
        )
    }

    /// Every value of a repeated key.
    pub fn all(&self, name: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// The query without the named keys, written back as a query string (a cache key).
    pub fn without(&self, names: &[&str]) -> String {
        form_urlencoded::Serializer::new(String::new())
            .extend_pairs(self.0.iter().filter(|(k, _)| !names.contains(&k.as_str())))
            .finish()
    }

    /// Every pair but those of the named keys.
    pub fn except(&self, names: &[&str]) -> Query {
        Query(
            self.0
                .iter()
                .filter(|(k, _)| !names.contains(&k.as_str()))
                .cloned()
                .collect(),
        )
    }

    /// The query read back as ISO-8859-1: every byte of a key's or a value's UTF-8 form taken
    /// for a character (fault contacts-v1-query-latin1-decoded).
    pub fn latin1(&self) -> Query {
        let read = |s: &String| s.bytes().map(char::from).collect::<String>();
        Query(self.0.iter().map(|(k, v)| (read(k), read(v))).collect())
    }

    /// How many key and value pairs the query holds.
    pub fn pairs(&self) -> usize {
        self.0.len()
    }

    /// The first value of a single-valued key.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// A single path parameter; a malformed one (invalid percent-encoding) is a 400 of the generation.
pub(crate) fn path_param(
    param: Result<Path<String>, PathRejection>,
    path: &str,
) -> Result<String, ApiError> {
    param.map(|Path(value)| value).map_err(|e| {
        ApiError::bad_request(
            path,
            format!("path parameter is not valid: {}", e.body_text()),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_and_brackets_survive_decoding() {
        let q = Query::parse(Some(
            "externalIds=a&externalIds=b%20c&externalId%5Bin%5D=x,y&maxResults=5&maxResults=6",
        ));
        assert_eq!(q.all("externalIds"), ["a", "b c"]);
        assert_eq!(q.first("externalId[in]"), Some("x,y"));
        assert_eq!(q.first("maxResults"), Some("5"));
        assert_eq!(q.first("absent"), None);
    }
}
