//! Compiling one dependency: base URL, headers (with `${ENV}`), timeouts, retry
//! policy, rate-limit header family, status page and version gating.

use std::time::Duration;

use http::header::HeaderName;
use serde_json::Value;
use toolgate_signals::Flavour;

use super::{Compiler, limits};
use crate::address;
use crate::model::*;
use crate::raw::*;

/// What an HTTP API and an MCP server have in common as a dependency.
pub(super) struct DependencySettings {
    /// The base URL as written (checked), unless `fixed_url` is given.
    pub base_url: Option<String>,
    /// A URL made by toolgate (a stdio server's `stdio://name`): not checked.
    pub fixed_url: Option<url::Url>,
    pub headers: std::collections::BTreeMap<String, String>,
    pub timeout: Option<String>,
    pub default_timeout: Duration,
    /// This dependency's own `account_hold`, and the gateway's (used when it sets none).
    pub account_hold: Option<String>,
    pub default_account_hold: Duration,
    pub retry: Option<RawRetry>,
    pub rate_limit_headers: Option<String>,
    pub status_page: Option<RawStatusPage>,
    pub version: Option<RawVersionCheck>,
    /// `allow_link_local`: the addresses `check` refuses by default are accepted.
    pub allow_link_local: bool,
    /// `link_origins` and `model_link_origins`, as written.
    pub link_origins: Vec<String>,
    pub model_link_origins: Vec<String>,
}

impl Compiler<'_> {
    pub(super) fn dependency(
        &mut self,
        name: &str,
        raw: RawDependency,
        gateway: &GatewayConfig,
    ) -> Option<Dependency> {
        let path = format!("dependencies.{name}");
        self.dependency_settings(
            name,
            &path,
            DependencySettings {
                base_url: Some(raw.base_url),
                fixed_url: None,
                headers: raw.headers,
                timeout: raw.timeout,
                default_timeout: Duration::from_secs(10),
                account_hold: raw.account_hold,
                default_account_hold: gateway.account_hold,
                retry: raw.retry,
                rate_limit_headers: raw.rate_limit_headers,
                status_page: raw.status_page,
                version: raw.version,
                allow_link_local: raw.allow_link_local.unwrap_or(false),
                link_origins: raw.link_origins,
                model_link_origins: raw.model_link_origins,
            },
        )
    }

    pub(super) fn dependency_settings(
        &mut self,
        name: &str,
        path: &str,
        raw: DependencySettings,
    ) -> Option<Dependency> {
        let base_url = match (raw.fixed_url, &raw.base_url) {
            (Some(fixed), _) => Some(fixed),
            (None, Some(text)) => {
                let field = if path.starts_with("mcp_servers.") {
                    "url"
                } else {
                    "base_url"
                };
                let at = format!("{path}.{field}");
                self.url(&at, text)
                    .filter(|u| self.reachable(&at, u, raw.allow_link_local))
            }
            (None, None) => None,
        };
        let headers = self.header_list(path, &raw.headers);
        let retry = self.retry_policy(path, raw.retry.unwrap_or_default());
        let flavour = self.rate_limit_headers(path, raw.rate_limit_headers);
        let status_page = raw.status_page.and_then(|sp| {
            let every = self.duration_min(
                format!("{path}.status_page.every"),
                sp.every.as_ref(),
                Duration::from_secs(60),
                limits::MIN_STATUS_PAGE_EVERY,
            );
            let at = format!("{path}.status_page.url");
            self.url(&at, &sp.url)
                .filter(|u| self.reachable(&at, u, raw.allow_link_local))
                .map(|url| StatusPage { url, every })
        });
        let timeout = self.duration_min(
            format!("{path}.timeout"),
            raw.timeout.as_ref(),
            raw.default_timeout,
            limits::MIN_TIMEOUT,
        );
        let version = raw.version.and_then(|v| self.version_check(path, v));
        let link_origins = LinkOrigins {
            owner: self.origins(
                path,
                "link_origins",
                &raw.link_origins,
                raw.allow_link_local,
            ),
            model: self.origins(
                path,
                "model_link_origins",
                &raw.model_link_origins,
                raw.allow_link_local,
            ),
        };
        let account_hold = self.account_hold(
            format!("{path}.account_hold"),
            raw.account_hold.as_ref(),
            raw.default_account_hold,
        );
        Some(Dependency {
            name: name.to_string(),
            base_url: base_url?,
            headers,
            timeout,
            account_hold,
            retry,
            flavour,
            status_page,
            version,
            secrets: Vec::new(),
            token_exchange: None,
            allow_link_local: raw.allow_link_local,
            link_origins,
        })
    }

    /// The origins listed at `{path}.{field}`: each an `http` or `https` URL of a
    /// scheme, a host and an optional port only (a path, a query, a fragment or user
    /// information would read as if links were admitted by more than their origin), on
    /// an address `check` accepts for the dependency itself.
    fn origins(
        &mut self,
        path: &str,
        field: &str,
        written: &[String],
        allow_link_local: bool,
    ) -> Vec<url::Origin> {
        let mut origins = Vec::with_capacity(written.len());
        for (i, text) in written.iter().enumerate() {
            let at = format!("{path}.{field}.{i}");
            let Some(url) = self.url(&at, text) else {
                continue;
            };
            let bare = matches!(url.scheme(), "http" | "https")
                && url.username().is_empty()
                && url.password().is_none()
                && url.path() == "/"
                && url.query().is_none()
                && url.fragment().is_none();
            if !bare {
                self.err(
                    at,
                    format!("`{text}` is not an origin"),
                    "write the scheme, host and optional port only, e.g. https://docs.example.com",
                );
                continue;
            }
            if self.reachable(&at, &url, allow_link_local) {
                origins.push(url.origin());
            }
        }
        origins
    }

    /// The retry policy at `{path}.retry`: attempts from 1 to the limit, delays at their
    /// minimums, and `max_delay` at least `base_delay`.
    fn retry_policy(&mut self, path: &str, retry_raw: RawRetry) -> RetryPolicy {
        let defaults = RetryPolicy::default();
        let max_attempts = retry_raw.max_attempts.unwrap_or(defaults.max_attempts);
        if max_attempts == 0 || max_attempts > limits::MAX_ATTEMPTS {
            self.err(
                format!("{path}.retry.max_attempts"),
                format!(
                    "max_attempts is {max_attempts}; it counts every attempt, the first included"
                ),
                "use a number from 1 (no retries) to 10",
            );
        }
        let base_delay = self.duration_min(
            format!("{path}.retry.base_delay"),
            retry_raw.base_delay.as_ref(),
            defaults.base_delay,
            limits::MIN_BASE_DELAY,
        );
        let mut max_delay = self.duration(
            format!("{path}.retry.max_delay"),
            retry_raw.max_delay.as_ref(),
            defaults.max_delay,
        );
        if max_delay < base_delay {
            self.err(
                format!("{path}.retry.max_delay"),
                format!(
                    "max_delay ({}) is below base_delay ({})",
                    limits::show(max_delay),
                    limits::show(base_delay)
                ),
                &format!(
                    "use at least {} (the base_delay): max_delay caps the backoff",
                    limits::show(base_delay)
                ),
            );
            max_delay = base_delay;
        }
        RetryPolicy {
            max_attempts: max_attempts.clamp(1, limits::MAX_ATTEMPTS),
            base_delay,
            max_delay,
        }
    }

    /// The rate-limit header family named at `{path}.rate_limit_headers` (`auto` when
    /// none is, or after an error for an unknown one).
    fn rate_limit_headers(&mut self, path: &str, written: Option<String>) -> Flavour {
        match written {
            None => Flavour::Auto,
            Some(text) => serde_json::from_value::<Flavour>(Value::String(text.clone())).unwrap_or_else(|_| {
                self.err(format!("{path}.rate_limit_headers"), format!("unknown rate-limit header family `{text}`"), "use auto, ietf, github, atlassian, zendesk, shopify, discord, x, openai, anthropic, salesforce, hubspot or microsoft_graph");
                Flavour::Auto
            }),
        }
    }

    /// Refuses a URL whose host is link-local, a metadata endpoint, unspecified or
    /// broadcast (after the URL parser's normalisation, so `http://2852039166` is
    /// 169.254.169.254), unless the dependency allows it. Loopback and private
    /// addresses pass: internal APIs and sidecars live there.
    fn reachable(&mut self, at: &str, url: &url::Url, allowed: bool) -> bool {
        let Some(c) = address::classify_url(url) else {
            return true;
        };
        if !c.kind.refused() || allowed {
            return true;
        }
        let dependency = at.rsplit_once('.').map_or(at, |(d, _)| d);
        let dependency = dependency.trim_end_matches(".status_page");
        self.err(
            at,
            c.explain(url.as_str()),
            &format!("use the API's own address; if it really is served there, set `allow_link_local: true` on {dependency} (docs/configuration.md, \"Addresses\")"),
        );
        false
    }

    pub(super) fn version_check(
        &mut self,
        path: &str,
        raw: RawVersionCheck,
    ) -> Option<VersionCheck> {
        let vpath = format!("{path}.version");
        let refuse = match raw.gate.as_deref() {
            None | Some("warn") => false,
            Some("refuse") => true,
            Some(other) => {
                self.err(
                    format!("{vpath}.gate"),
                    format!("unknown gate `{other}`"),
                    "use `warn` or `refuse`",
                );
                false
            }
        };
        let source = match (raw.header, raw.pointer) {
            (Some(h), None) => match HeaderName::from_bytes(h.as_bytes()) {
                Ok(n) => VersionSource::Header(n),
                Err(_) => {
                    self.err(
                        format!("{vpath}.header"),
                        format!("`{h}` is not a valid header name"),
                        "use letters, digits and `-`",
                    );
                    return None;
                }
            },
            (None, Some(p)) if p.is_empty() || p.starts_with('/') => VersionSource::Pointer(p),
            (None, Some(p)) => {
                self.err(
                    format!("{vpath}.pointer"),
                    format!("`{p}` is not a JSON pointer"),
                    "start it with `/`, e.g. `/meta/version`",
                );
                return None;
            }
            _ => {
                self.err(
                    &vpath,
                    "name exactly one of `header` or `pointer`",
                    "e.g. `version: { header: API-Version, gate: warn }`",
                );
                return None;
            }
        };
        Some(VersionCheck { source, refuse })
    }
}

#[cfg(test)]
mod tests;
