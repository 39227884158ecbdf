//! Compiling one dependency: base URL, headers (with `${ENV}`), timeouts, retry
//! policy, rate-limit header family, status page and version gating.

use std::time::Duration;

use reqwest::header::{HeaderName, HeaderValue};
use serde_json::Value;
use toolgate_signals::Flavour;

use super::{Compiler, limits};
use crate::config::model::*;
use crate::config::raw::*;

impl Compiler<'_> {
    pub(super) fn dependency(&mut self, name: &str, raw: RawDependency) -> Option<Dependency> {
        let path = format!("dependencies.{name}");
        let base_url = self.url(&format!("{path}.base_url"), &raw.base_url);
        let mut headers = Vec::new();
        for (k, v) in &raw.headers {
            let hpath = format!("{path}.headers.{k}");
            let value = self.expand(&hpath, v);
            match (
                HeaderName::from_bytes(k.as_bytes()),
                HeaderValue::from_str(&value),
            ) {
                (Ok(n), Ok(mut v)) => {
                    v.set_sensitive(true);
                    headers.push((n, v));
                }
                (Err(_), _) => self.err(
                    hpath,
                    format!("`{k}` is not a valid header name"),
                    "use letters, digits and `-`",
                ),
                (_, Err(_)) => self.err(
                    hpath,
                    "the header value contains characters not allowed in HTTP headers",
                    "remove control characters and newlines from the value",
                ),
            }
        }
        let retry_raw = raw.retry.unwrap_or_default();
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
        let retry = RetryPolicy {
            max_attempts: max_attempts.clamp(1, limits::MAX_ATTEMPTS),
            base_delay,
            max_delay,
        };
        let flavour = match raw.rate_limit_headers {
            None => Flavour::Auto,
            Some(text) => serde_json::from_value::<Flavour>(Value::String(text.clone())).unwrap_or_else(|_| {
                self.err(format!("{path}.rate_limit_headers"), format!("unknown rate-limit header family `{text}`"), "use auto, ietf, github, atlassian, zendesk, shopify, discord, x, openai, anthropic, salesforce, hubspot or microsoft_graph");
                Flavour::Auto
            }),
        };
        let status_page = raw.status_page.and_then(|sp| {
            let every = self.duration_min(
                format!("{path}.status_page.every"),
                sp.every.as_ref(),
                Duration::from_secs(60),
                limits::MIN_STATUS_PAGE_EVERY,
            );
            self.url(&format!("{path}.status_page.url"), &sp.url)
                .map(|url| StatusPage { url, every })
        });
        let timeout = self.duration_min(
            format!("{path}.timeout"),
            raw.timeout.as_ref(),
            Duration::from_secs(10),
            limits::MIN_TIMEOUT,
        );
        let version = raw.version.and_then(|v| self.version_check(&path, v));
        Some(Dependency {
            name: name.to_string(),
            base_url: base_url?,
            headers,
            timeout,
            retry,
            flavour,
            status_page,
            version,
        })
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
