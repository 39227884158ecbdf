//! Talking to a running gateway's admin endpoints from the command line: where it
//! listens (from the config, or `--url`) and a POST with the config's admin token.

use std::time::Duration;

use anyhow::Context as _;
use reqwest::StatusCode;
use toolgate_config::Config;

/// The gateway's base URL: `url` when given, else the config's `gateway.listen` (an
/// unspecified address such as `0.0.0.0` reached on loopback).
pub(super) fn base_url(config: &Config, url: Option<String>) -> String {
    url.unwrap_or_else(|| {
        let mut addr = config.gateway.listen;
        if addr.ip().is_unspecified() {
            addr.set_ip(std::net::Ipv4Addr::LOCALHOST.into());
        }
        format!("http://{addr}")
    })
}

/// POSTs to `base` + `path` with the admin token (`gateway.auth_token_env`) when the
/// config has one; the answer's status and body. Fails, saying what to check, when
/// the gateway cannot be reached.
pub(super) async fn post(
    config: &Config,
    base: &str,
    path: &str,
    timeout: Duration,
) -> anyhow::Result<(StatusCode, String)> {
    let endpoint = format!("{}{path}", base.trim_end_matches('/'));
    toolgate_engine::tls::init();
    let mut request = reqwest::Client::new().post(&endpoint);
    if let Some(token) = &config.gateway.auth_token {
        request = request.bearer_auth(&token.0);
    }
    let response = request.timeout(timeout).send().await.with_context(|| {
        format!("cannot reach toolgate at {base} (is `toolgate serve` running? pass --url)")
    })?;
    let status = response.status();
    Ok((status, response.text().await.unwrap_or_default()))
}
