//! The validated `gateway.auth` and `agents`.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use super::glob;

/// The name of every caller no configured agent matches (when `unmatched: anonymous`),
/// and of callers admitted by the shared `auth_token_env` token.
pub const ANONYMOUS: &str = "anonymous";

/// toolgate as an OAuth 2.1 resource server.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// The canonical resource URI, exactly as configured: the expected `aud`.
    pub resource: String,
    /// Trusted authorization servers.
    pub issuers: Vec<IssuerConfig>,
    /// Scopes every token must carry.
    pub scopes: Vec<String>,
    /// What a valid token that matches no agent gets.
    pub unmatched: Unmatched,
    /// The scope that makes a token an administrator's.
    pub admin_scope: String,
}

/// The admin scope when `gateway.auth.admin_scope` is not set.
pub const DEFAULT_ADMIN_SCOPE: &str = "toolgate:admin";

/// A trusted authorization server.
#[derive(Debug, Clone)]
pub struct IssuerConfig {
    /// The issuer identifier (`iss`), compared exactly.
    pub issuer: String,
    /// Its JWKS, when configured; otherwise discovered from its metadata.
    pub jwks_uri: Option<url::Url>,
    /// Token introspection for its opaque tokens (RFC 7662).
    pub introspection: Option<Introspection>,
    /// The longest lifetime a token of this issuer may have; `None`: no bound.
    pub max_token_lifetime: Option<Duration>,
}

/// How toolgate asks an issuer about opaque tokens (RFC 7662).
#[derive(Debug, Clone)]
pub struct Introspection {
    /// The endpoint, when configured; otherwise discovered from the issuer's metadata.
    pub endpoint: Option<url::Url>,
    /// toolgate's client id at the issuer.
    pub client_id: String,
    /// Its secret (read from the environment).
    pub client_secret: super::Secret,
    /// How long an active token's answer is reused at most (never past its `exp`).
    pub cache_for: Duration,
    /// How its opaque tokens begin; empty: any opaque token no other issuer claims.
    pub token_prefixes: Vec<String>,
    /// Requests for tokens not in the cache, per second at most.
    pub max_lookups_per_second: u32,
}

/// What a caller no agent matches gets.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Unmatched {
    /// Runs as agent `anonymous`.
    #[default]
    Anonymous,
    /// Refused with 403.
    Refuse,
}

/// One configured agent.
#[derive(Debug, Clone)]
pub struct AgentSpec {
    /// Its name (in logs, metrics and the sentences the model reads).
    pub name: String,
    /// Which tokens are its own; `None`: none (an API-key-only agent).
    pub matches: Option<AgentMatch>,
    /// SHA-256 of its API key.
    pub api_key_sha256: Option<[u8; 32]>,
    /// Tool patterns it may call; `None`: every tool.
    pub tools: Option<Vec<String>>,
    /// Tool patterns it may never call.
    pub deny: Vec<String>,
    /// Its quota.
    pub quota: Option<AgentQuota>,
    /// Whether its credential is also an administrator's (`/admin/*`, the console, every
    /// agent's audit records).
    pub admin: bool,
}

impl AgentSpec {
    /// Whether this agent may call (and see) tool `name`.
    pub fn may_call(&self, name: &str) -> bool {
        self.tools
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|p| glob(p, name)))
            && !self.deny.iter().any(|p| glob(p, name))
    }
}

/// Claims that identify an agent's token; every one given must match.
#[derive(Debug, Clone, Default)]
pub struct AgentMatch {
    /// `iss`: a `sub` or `client_id` is unique only within its issuer.
    pub issuer: Option<String>,
    /// `sub`.
    pub sub: Option<String>,
    /// `client_id`, or `azp` when the token has none.
    pub client_id: Option<String>,
    /// Other claims.
    pub claims: BTreeMap<String, Value>,
}

impl AgentMatch {
    /// Whether a token with these (verified) claims is this agent's.
    pub fn matches(&self, claims: &serde_json::Map<String, Value>) -> bool {
        let text = |name: &str| claims.get(name).and_then(Value::as_str);
        self.issuer
            .as_deref()
            .is_none_or(|i| text("iss") == Some(i))
            && self.sub.as_deref().is_none_or(|s| text("sub") == Some(s))
            && self
                .client_id
                .as_deref()
                .is_none_or(|c| text("client_id").or_else(|| text("azp")) == Some(c))
            && self
                .claims
                .iter()
                .all(|(name, expected)| match claims.get(name) {
                    Some(Value::Array(items)) if !expected.is_array() => items.contains(expected),
                    Some(v) => v == expected,
                    None => false,
                })
    }
}

/// An agent's quota, enforced per replica.
#[derive(Debug, Clone, Copy)]
pub struct AgentQuota {
    /// Calls per window (`None`: no call quota).
    pub calls: Option<(u32, Duration)>,
    /// Calls at the same time (`None`: unbounded).
    pub concurrent: Option<u32>,
}
