//! An MCP server as a dependency: the settings it shares with HTTP APIs (timeout,
//! retries, rate-limit headers, status page), the token exchange that calls it with
//! each caller's authority, and the values its log lines must never show.

use std::collections::BTreeMap;
use std::time::Duration;

use crate::compile::Compiler;
use crate::compile::dependency::DependencySettings;
use crate::model::*;
use crate::raw::*;

impl Compiler<'_> {
    /// The dependency part is the same as an HTTP API's, so it is compiled the same way;
    /// a `command` server has no URL of its own and is named `stdio://<name>`.
    pub(super) fn server_dependency(
        &mut self,
        name: &str,
        path: &str,
        raw: &mut RawMcpServer,
        gateway: &GatewayConfig,
    ) -> Option<Dependency> {
        let fixed_url = match &raw.url {
            Some(_) => None,
            None => url::Url::parse(&format!("stdio://{}", name.to_ascii_lowercase())).ok(),
        };
        let mut dependency = self.dependency_settings(
            name,
            path,
            DependencySettings {
                link_origins: Vec::new(),
                model_link_origins: Vec::new(),
                base_url: raw.url.clone(),
                fixed_url,
                headers: if raw.command.is_none() {
                    raw.headers.clone()
                } else {
                    BTreeMap::new()
                },
                timeout: raw.timeout.take(),
                default_timeout: Duration::from_secs(30),
                account_hold: raw.account_hold.take(),
                default_account_hold: gateway.account_hold,
                retry: raw.retry.take(),
                rate_limit_headers: raw.rate_limit_headers.take(),
                status_page: raw.status_page.take(),
                version: None,
                allow_link_local: raw.allow_link_local.unwrap_or(false),
            },
        );
        if let Some(x) = raw.token_exchange.take() {
            if raw.command.is_some() {
                self.err(
                    format!("{path}.token_exchange"),
                    "a `command` server is one process serving every caller: it cannot be called with each caller's authority",
                    "reach the server over streamable HTTP (`url:`), or remove `token_exchange` and give the process its own credentials in `env`",
                );
            } else {
                let exchange = self.token_exchange(path, x, gateway.auth.as_ref());
                if let Some(d) = dependency.as_mut() {
                    d.token_exchange = exchange;
                }
            }
        }
        dependency
    }

    /// A stdio server's `env` values, and the values of the variables it inherits, are
    /// redacted wherever the dependency's secrets are.
    pub(super) fn stdio_secrets(
        &self,
        dependency: &mut Dependency,
        transport: Option<&McpTransport>,
    ) {
        let Some(McpTransport::Stdio {
            env, inherit_env, ..
        }) = transport
        else {
            return;
        };
        dependency.secrets = env.iter().map(|(_, v)| v.clone()).collect();
        // An inherited variable is passed on because the server needs it: as a
        // credential, most likely, so its value is redacted like `env`'s.
        dependency.secrets.extend(
            inherit_env
                .iter()
                .filter_map(|name| (self.env)(name))
                .filter(|v| !v.is_empty())
                .map(Secret),
        );
    }
}
