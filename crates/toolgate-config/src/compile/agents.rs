//! `gateway.auth` and `agents`: the resource toolgate is, the issuers it trusts, and
//! the agents it tells apart.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::Compiler;
use crate::model::{
    ANONYMOUS, AgentMatch, AgentQuota, AgentSpec, AuthConfig, DEFAULT_ADMIN_SCOPE, Introspection,
    IssuerConfig, Secret, Unmatched,
};
use crate::raw::{RawAgent, RawAgentQuota, RawAuth, RawIntrospection};

impl Compiler<'_> {
    pub(super) fn auth(&mut self, raw: RawAuth) -> Option<AuthConfig> {
        let resource = self.resource(&raw.resource);
        if raw.issuers.is_empty() {
            self.err(
                "gateway.auth.issuers",
                "no issuer is configured, so no access token could ever be accepted",
                "add the authorization server, e.g. `issuers: [{ issuer: https://login.example.com }]`",
            );
        }
        let mut issuers = Vec::new();
        for (i, issuer) in raw.issuers.into_iter().enumerate() {
            let path = format!("gateway.auth.issuers.{i}");
            let at = format!("{path}.issuer");
            if self.url(&at, &issuer.issuer).is_none() {
                continue;
            }
            if issuers
                .iter()
                .any(|x: &IssuerConfig| x.issuer == issuer.issuer)
            {
                self.err(
                    at,
                    format!("issuer `{}` is listed twice", issuer.issuer),
                    "list each authorization server once",
                );
                continue;
            }
            let jwks_uri = match issuer.jwks_uri {
                Some(text) => match self.url(&format!("{path}.jwks_uri"), &text) {
                    Some(u) => Some(u),
                    None => continue,
                },
                None => None,
            };
            let introspection = issuer
                .introspection
                .and_then(|raw| self.introspection(&format!("{path}.introspection"), raw));
            let max_token_lifetime = issuer
                .max_token_lifetime
                .as_ref()
                .and_then(|text| self.token_lifetime(&format!("{path}.max_token_lifetime"), text));
            issuers.push(IssuerConfig {
                issuer: issuer.issuer,
                jwks_uri,
                introspection,
                max_token_lifetime,
            });
        }
        self.introspection_routes(&issuers);
        let admin_scope = raw
            .admin_scope
            .unwrap_or_else(|| DEFAULT_ADMIN_SCOPE.to_string());
        let scopes = raw
            .scopes
            .iter()
            .enumerate()
            .map(|(i, s)| (format!("gateway.auth.scopes.{i}"), s))
            .chain(std::iter::once((
                "gateway.auth.admin_scope".to_string(),
                &admin_scope,
            )));
        for (at, scope) in scopes {
            // RFC 6749 §3.3: scope tokens are printable ASCII without space, `"` or `\`.
            if !is_scope(scope) {
                self.err(
                    at,
                    format!("`{scope}` is not a scope (printable ASCII, no spaces, quotes or backslashes)"),
                    "write scopes like `tools:call`",
                );
            }
        }
        let unmatched = match raw.unmatched.as_deref() {
            None | Some("anonymous") => Unmatched::Anonymous,
            Some("refuse") => Unmatched::Refuse,
            Some(other) => {
                self.err(
                    "gateway.auth.unmatched",
                    format!("`{other}` is not `anonymous` or `refuse`"),
                    "`anonymous` runs unmatched callers as agent anonymous; `refuse` answers them 403",
                );
                Unmatched::Anonymous
            }
        };
        resource?;
        Some(AuthConfig {
            resource: raw.resource.trim().to_string(),
            issuers,
            scopes: raw.scopes,
            unmatched,
            admin_scope,
        })
    }

    /// `max_token_lifetime`: a bound below the clock leeway (1 min) would refuse tokens
    /// for being issued a moment ago, and one past a year bounds nothing.
    fn token_lifetime(&mut self, path: &str, text: &String) -> Option<Duration> {
        const SHORTEST: Duration = Duration::from_secs(60);
        const LONGEST: Duration = Duration::from_secs(365 * 24 * 3600);
        let errors = self.errors.len();
        let d = self.duration(path.to_string(), Some(text), Duration::ZERO);
        if self.errors.len() != errors {
            return None;
        }
        if !(SHORTEST..=LONGEST).contains(&d) {
            self.err(
                path,
                format!("max_token_lifetime `{text}` is outside 1m to 365d"),
                "write the longest lifetime a token of this issuer should have, e.g. `1h`; leave it out for no bound",
            );
            return None;
        }
        Some(d)
    }

    fn introspection(&mut self, path: &str, raw: RawIntrospection) -> Option<Introspection> {
        let endpoint = match raw.endpoint {
            Some(text) => Some(self.url(&format!("{path}.endpoint"), &text)?),
            None => None,
        };
        if raw.client_id.trim().is_empty() {
            self.err(
                format!("{path}.client_id"),
                "the client id is empty",
                "write the client id toolgate was registered with at the issuer",
            );
            return None;
        }
        let cache_for = self.duration_min(
            format!("{path}.cache_for"),
            raw.cache_for.as_ref(),
            Duration::from_secs(300),
            Duration::from_secs(1),
        );
        let var = raw.client_secret_env;
        let client_secret = match (self.env)(&var) {
            Some(v) if !v.is_empty() => Secret(v),
            _ => {
                self.unset_variable(
                    &format!("{path}.client_secret_env"),
                    &var,
                    &format!("export {var} with toolgate's client secret at the issuer"),
                );
                return None;
            }
        };
        let token_prefixes = self.token_prefixes(path, raw.token_prefixes)?;
        let max_lookups_per_second = raw.max_lookups_per_second.unwrap_or(20);
        if !(1..=10_000).contains(&max_lookups_per_second) {
            self.err(
                format!("{path}.max_lookups_per_second"),
                format!("max_lookups_per_second `{max_lookups_per_second}` is outside 1 to 10000"),
                "write how many unknown tokens per second the issuer may be asked about, e.g. `20`",
            );
            return None;
        }
        Some(Introspection {
            endpoint,
            client_id: raw.client_id,
            client_secret,
            cache_for,
            token_prefixes,
            max_lookups_per_second,
        })
    }

    /// `token_prefixes`: each is the start of a bearer token (RFC 6750 §2.1 `b64token`
    /// characters), so a prefix a token could never start with is caught here rather
    /// than silently refusing every token.
    fn token_prefixes(&mut self, path: &str, prefixes: Vec<String>) -> Option<Vec<String>> {
        let token_char = |c: char| c.is_ascii_alphanumeric() || "-._~+/".contains(c);
        for (i, prefix) in prefixes.iter().enumerate() {
            if prefix.is_empty() || !prefix.chars().all(token_char) {
                self.err(
                    format!("{path}.token_prefixes.{i}"),
                    format!("`{prefix}` cannot start a bearer token"),
                    "write how this issuer's tokens begin, e.g. `gho_` or `ory_at_` (letters, digits, `-._~+/`)",
                );
                return None;
            }
        }
        Some(prefixes)
    }

    /// With several introspecting issuers, each opaque token must go to exactly one of
    /// them (RFC 7662 §4: a token is shown only to the server that issued it), so all
    /// but at most one name their tokens' prefixes, and no prefix starts another
    /// issuer's. This is an error, not a warning: running such a config would send one
    /// issuer's live tokens to another.
    fn introspection_routes(&mut self, issuers: &[IssuerConfig]) {
        let introspecting: Vec<(usize, &IssuerConfig, &Introspection)> = issuers
            .iter()
            .enumerate()
            .filter_map(|(i, x)| Some((i, x, x.introspection.as_ref()?)))
            .collect();
        if introspecting.len() < 2 {
            return;
        }
        let unprefixed: Vec<&str> = introspecting
            .iter()
            .filter(|(_, _, c)| c.token_prefixes.is_empty())
            .map(|(_, x, _)| x.issuer.as_str())
            .collect();
        if unprefixed.len() > 1 {
            self.err(
                "gateway.auth.issuers",
                format!(
                    "{} introspecting issuers ({}) do not say which opaque tokens are theirs, so each would be sent the others' tokens",
                    unprefixed.len(),
                    unprefixed.join(", ")
                ),
                "give each introspecting issuer `introspection.token_prefixes` (e.g. `[gho_]`); at most one may leave it out and receive the opaque tokens no other issuer claims",
            );
        }
        for (i, x, c) in &introspecting {
            for (j, y, d) in &introspecting {
                if i == j {
                    continue;
                }
                for p in &c.token_prefixes {
                    // The same prefix on both is reported once, from the first issuer.
                    if let Some(q) = d.token_prefixes.iter().find(|q| q.starts_with(p.as_str()))
                        && (i < j || p != q)
                    {
                        self.err(
                            format!("gateway.auth.issuers.{i}.introspection.token_prefixes"),
                            format!(
                                "prefix `{p}` of {} also matches `{q}` of {}, so a token could go to either",
                                x.issuer, y.issuer
                            ),
                            "give the issuers prefixes that no token can start with both of",
                        );
                    }
                }
            }
        }
    }

    /// The resource URI: absolute http(s), no fragment (RFC 8707 §2).
    fn resource(&mut self, text: &str) -> Option<url::Url> {
        let url = self.url("gateway.auth.resource", text)?;
        if url.fragment().is_some() {
            self.err(
                "gateway.auth.resource",
                format!("`{text}` has a fragment, which a resource indicator must not have"),
                "write the URI clients use for /mcp, e.g. `https://tools.example.com/mcp`",
            );
            return None;
        }
        Some(url)
    }

    /// A match names a trusted issuer, and must name one when several are trusted:
    /// each issuer hands out its own `sub` and `client_id` values, so without it a
    /// token another trusted issuer minted for the same `sub` would be this agent's.
    fn match_issuer(&mut self, path: &str, m: &AgentMatch, auth: &AuthConfig) {
        let trusted = |iss: &str| auth.issuers.iter().any(|i| i.issuer == iss);
        match &m.issuer {
            Some(iss) if !trusted(iss) => self.err(
                format!("{path}.match.issuer"),
                format!("`{iss}` is not one of `gateway.auth.issuers`"),
                "name a configured issuer exactly as configured",
            ),
            Some(_) => {}
            None if auth.issuers.len() > 1 && !m.claims.contains_key("iss") => self.err(
                format!("{path}.match"),
                "several issuers are trusted and each hands out its own `sub` and `client_id`, so this match would take a token of any of them",
                "add `issuer: <the issuer whose tokens are this agent's>` to the match",
            ),
            None => {}
        }
    }

    pub(super) fn agents(
        &mut self,
        raw: BTreeMap<String, RawAgent>,
        auth: Option<&AuthConfig>,
    ) -> BTreeMap<String, Arc<AgentSpec>> {
        let mut agents = BTreeMap::new();
        let mut keys: BTreeMap<[u8; 32], String> = BTreeMap::new();
        for (name, raw) in raw {
            let path = format!("agents.{name}");
            if name == ANONYMOUS {
                self.err(
                    path,
                    "`anonymous` is the name of callers no agent matches",
                    "give the agent another name",
                );
                continue;
            }
            if !super::valid_tool_name(&name) {
                self.err(
                    path,
                    format!("`{name}` is not a valid agent name"),
                    "use letters, digits, `_`, `-` and `.` (it appears in logs and metrics)",
                );
                continue;
            }
            let matches = raw.matches.map(|m| AgentMatch {
                issuer: m.issuer,
                sub: m.sub,
                client_id: m.client_id,
                claims: m.claims.into_iter().collect(),
            });
            if let Some(m) = &matches {
                if m.issuer.is_none()
                    && m.sub.is_none()
                    && m.client_id.is_none()
                    && m.claims.is_empty()
                {
                    self.err(
                        format!("{path}.match"),
                        "an empty match would make every token this agent's",
                        "name `issuer`, `sub`, `client_id` or `claims`",
                    );
                }
                if let Some(auth) = auth {
                    self.match_issuer(&path, m, auth);
                } else {
                    self.err(
                        format!("{path}.match"),
                        "agents are matched from access tokens, but `gateway.auth` is not configured",
                        "configure `gateway.auth` (resource and issuers), or give the agent an `api_key_sha256`",
                    );
                }
            }
            let api_key_sha256 = raw.api_key_sha256.and_then(|hex| {
                let key = parse_sha256(&hex);
                if key.is_none() {
                    self.err(
                        format!("{path}.api_key_sha256"),
                        "`api_key_sha256` is not 64 hexadecimal digits (a SHA-256)",
                        "run `toolgate hash-key` and paste what it prints; never the key itself",
                    );
                }
                key
            });
            if let Some(key) = api_key_sha256
                && let Some(other) = keys.insert(key, name.clone())
            {
                self.err(
                    format!("{path}.api_key_sha256"),
                    format!("agent `{other}` has the same API key"),
                    "give every agent its own key",
                );
            }
            if matches.is_none() && api_key_sha256.is_none() {
                self.err(
                    path.clone(),
                    format!("agent `{name}` has neither `match` nor `api_key_sha256`, so no caller could ever be it"),
                    "add `match: { sub: ... }` or an `api_key_sha256`",
                );
            }
            let quota = raw.quota.and_then(|q| self.agent_quota(&path, q));
            agents.insert(
                name.clone(),
                Arc::new(AgentSpec {
                    name,
                    matches,
                    api_key_sha256,
                    tools: raw.tools,
                    deny: raw.deny,
                    quota,
                    admin: raw.admin,
                }),
            );
        }
        agents
    }

    fn agent_quota(&mut self, path: &str, raw: RawAgentQuota) -> Option<AgentQuota> {
        let path = format!("{path}.quota");
        let per = self.duration_min(
            format!("{path}.per"),
            raw.per.as_ref(),
            Duration::from_secs(60),
            Duration::from_secs(1),
        );
        if raw.calls == Some(0) || raw.concurrent == Some(0) {
            self.err(
                path.clone(),
                "a quota of 0 would refuse every call",
                "use at least 1, or remove the agent's access with `deny: [\"*\"]`",
            );
            return None;
        }
        if raw.calls.is_none() && raw.concurrent.is_none() {
            self.err(
                path,
                "the quota names neither `calls` nor `concurrent`",
                "e.g. `quota: { calls: 60, per: 1m, concurrent: 4 }`",
            );
            return None;
        }
        Some(AgentQuota {
            calls: raw.calls.map(|n| (n, per)),
            concurrent: raw.concurrent,
        })
    }
}

/// A scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`.
pub(super) fn is_scope(scope: &str) -> bool {
    !scope.is_empty()
        && scope
            .bytes()
            .all(|b| b > 0x20 && b < 0x7f && b != b'"' && b != b'\\')
}

/// 64 hex digits, either case.
fn parse_sha256(hex: &str) -> Option<[u8; 32]> {
    let hex = hex.trim().as_bytes();
    if hex.len() != 64 || !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in hex.chunks(2).enumerate() {
        let text = std::str::from_utf8(pair).ok()?;
        out[i] = u8::from_str_radix(text, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
mod tests;
