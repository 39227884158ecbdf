//! What the authenticator tests share: a gateway config compiled around the `auth`
//! section a test writes.

use toolgate_config::Config;

/// The rest of every test config: one dependency and one tool (a config needs a tool).
pub const ONE_TOOL: &str = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";

/// `yaml` compiled, its `${VAR}`s and `*_env` secrets read from `env`; the TLS
/// provider the authenticator's HTTP client needs is installed.
pub fn config(yaml: &str, env: &dyn Fn(&str) -> Option<String>) -> Config {
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        yaml,
        std::path::Path::new("."),
        env,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = rustls::crypto::ring::default_provider().install_default();
    config
}
