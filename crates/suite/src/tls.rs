//! TLS for targets behind HTTPS: rustls with the ring provider (no C toolchain beyond `cc`).

use std::sync::Once;

/// Installs ring as the process-wide rustls provider, once.
pub(crate) fn install_default_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Another part of the process may have installed one already; either is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Why no HTTP client could be built.
#[derive(Debug, thiserror::Error)]
pub enum ClientBuildError {
    /// An `https://` target on a machine without a CA store: the message names the fix.
    #[error(
        "no CA certificates for the https:// target ({cause}): install the system's CA store (ca-certificates) or point SSL_CERT_FILE or SSL_CERT_DIR at one"
    )]
    NoCaStore { cause: String },
    #[error("cannot build the HTTP client: {0}")]
    Build(reqwest::Error),
}

/// Builds an HTTP client. Certificate roots are needed only for `https://`: a machine without a
/// CA store (a minimal container image, `SSL_CERT_FILE` pointing nowhere) still gets a client for
/// `http://` targets, whose HTTPS requests then fail verification; `needs_https` makes that an
/// error naming the fix instead.
pub fn build(
    builder: impl Fn() -> reqwest::ClientBuilder,
    needs_https: bool,
) -> Result<reqwest::Client, ClientBuildError> {
    install_default_provider();
    match builder().build() {
        Ok(c) => Ok(c),
        Err(e) if needs_https => Err(ClientBuildError::NoCaStore {
            // The builder's own words are "builder error"; its source says what is missing.
            cause: std::error::Error::source(&e).map_or_else(|| e.to_string(), |s| s.to_string()),
        }),
        Err(_) => builder()
            .tls_certs_only([])
            .build()
            .map_err(ClientBuildError::Build),
    }
}
