//! The TLS provider behind every HTTPS connection toolgate makes: rustls with *ring*.
//!
//! reqwest is built without a provider of its own (its default, aws-lc-rs, is a long C
//! build), so a process must install one before the first client is built, or reqwest
//! panics. [`init`] does, once; every constructor here that builds a client calls it,
//! and so does the binary's `main`, so library users and tests are covered too.

use std::sync::Once;

/// Installs *ring* as the process's rustls provider. Idempotent; a provider installed
/// earlier by the embedding program is kept.
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err means another provider is already installed: that one is used.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

#[cfg(test)]
mod tests {
    #[test]
    fn after_init_a_client_builds_and_ring_is_the_provider() {
        super::init();
        super::init();
        assert!(reqwest::Client::builder().build().is_ok());
        let provider = rustls::crypto::CryptoProvider::get_default().expect("installed");
        assert!(!provider.cipher_suites.is_empty());
    }
}
