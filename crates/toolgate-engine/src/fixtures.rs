//! What the engine's unit tests build the same way in many places.

use std::time::Duration;

use toolgate_config::{Dependency, RetryPolicy};

/// A dependency at `base_url` with every optional part left out: no headers, no
/// status page, no version check, a 1 s timeout and the default retry policy.
pub(crate) fn dependency(name: &str, base_url: &str) -> Dependency {
    Dependency {
        name: name.into(),
        base_url: url::Url::parse(base_url).expect("a test's base URL parses"),
        headers: vec![],
        timeout: Duration::from_secs(1),
        retry: RetryPolicy::default(),
        flavour: toolgate_signals::Flavour::Auto,
        status_page: None,
        version: None,
        secrets: Vec::new(),
        token_exchange: None,
        allow_link_local: false,
    }
}
