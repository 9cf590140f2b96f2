//! TLS for targets behind HTTPS: rustls with the ring provider (no C toolchain beyond `cc`).

use std::sync::Once;

/// Installs ring as the process-wide rustls provider, once.
pub fn install_default_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Another part of the process may have installed one already; either is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}
