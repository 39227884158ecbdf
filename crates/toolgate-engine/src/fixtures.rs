//! What the engine's unit tests build the same way in many places.

use std::time::Duration;

use toolgate_config::{Config, Dependency, EnvLookup, RetryPolicy};

/// The config `yaml` compiles to, as `toolgate serve` would compile it, with no
/// environment variable set; a test whose config does not compile is broken, so this
/// panics with the config's own error.
pub(crate) fn config(yaml: &str) -> Config {
    config_with_env(yaml, &|_| None)
}

/// [`config`] with the environment variables `env` gives.
pub(crate) fn config_with_env(yaml: &str, env: EnvLookup<'_>) -> Config {
    toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        yaml,
        std::path::Path::new("."),
        env,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A dependency at `base_url` with every optional part left out: no headers, no
/// status page, no version check, a 1 s timeout and the default retry policy.
pub(crate) fn dependency(name: &str, base_url: &str) -> Dependency {
    Dependency {
        name: name.into(),
        base_url: url::Url::parse(base_url).expect("a test's base URL parses"),
        headers: vec![],
        timeout: Duration::from_secs(1),
        account_hold: Duration::from_secs(300),
        retry: RetryPolicy::default(),
        flavour: toolgate_signals::Flavour::Auto,
        status_page: None,
        version: None,
        secrets: Vec::new(),
        token_exchange: None,
        allow_link_local: false,
        link_origins: Default::default(),
    }
}

/// An exchange of each caller's token for one the dependency accepts
/// (`token_exchange`): the dependency is then called with each caller's own authority.
pub(crate) fn token_exchange() -> std::sync::Arc<toolgate_config::TokenExchange> {
    std::sync::Arc::new(toolgate_config::TokenExchange {
        issuer: "https://issuer.example.com".into(),
        token_endpoint: None,
        audience: Some("api".into()),
        resource: None,
        scope: None,
        requested_token_type: "urn:ietf:params:oauth:token-type:access_token".into(),
        client_id: "toolgate".into(),
        client_secret: toolgate_config::Secret("secret".into()),
        client_auth: toolgate_config::ClientAuth::Basic,
    })
}

/// What a test wrote to the log, as text: the log of this thread while the guard
/// [`capture_log`] returns lives.
#[derive(Clone, Default)]
pub(crate) struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl Captured {
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&crate::sync::lock(&self.0)).into_owned()
    }
}

impl std::io::Write for Captured {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        crate::sync::lock(&self.0).extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Captures this thread's log (plain text, no colours) until the guard drops.
pub(crate) fn capture_log() -> (Captured, tracing::subscriber::DefaultGuard) {
    let log = Captured::default();
    let writer = log.clone();
    let subscriber = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .finish();
    (log, tracing::subscriber::set_default(subscriber))
}
