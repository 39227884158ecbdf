//! `gateway.auth` (toolgate as an OAuth 2.1 resource server) and `agents` (who a caller
//! is, what it may call, how often), as written.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// toolgate as an OAuth 2.1 resource server: bearer access tokens on /mcp, validated
/// against the authorization servers below.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAuth {
    /// The canonical URI clients use for toolgate's MCP endpoint, e.g.
    /// `https://tools.example.com/mcp`: a token's `aud` must contain it (RFC 8707), and
    /// the protected-resource metadata names it.
    pub resource: String,
    /// The authorization servers whose tokens are accepted.
    #[serde(default)]
    pub issuers: Vec<RawIssuer>,
    /// Scopes every token must carry on /mcp (all of them); also advertised in the
    /// protected-resource metadata. Default: none required.
    #[serde(default)]
    pub scopes: Vec<String>,
    /// A valid token that matches no agent: `anonymous` (default: the call runs as
    /// agent `anonymous`) or `refuse` (403).
    pub unmatched: Option<String>,
    /// The scope that makes an access token an administrator's: `/admin/*` and the
    /// console accept it (`scopes` are not required there). Default: `toolgate:admin`.
    /// Not advertised in the metadata, so clients do not ask for it unprompted.
    pub admin_scope: Option<String>,
}

/// One trusted authorization server.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawIssuer {
    /// The issuer identifier, compared exactly with a token's `iss`.
    pub issuer: String,
    /// Where its signing keys are published. Default: the `jwks_uri` of its RFC 8414
    /// (`/.well-known/oauth-authorization-server`) or OpenID
    /// (`/.well-known/openid-configuration`) metadata.
    pub jwks_uri: Option<String>,
    /// Opaque (non-JWT) access tokens of this issuer, checked through its token
    /// introspection endpoint (RFC 7662). Absent: only JWTs are accepted.
    pub introspection: Option<RawIntrospection>,
    /// The longest lifetime a token of this issuer may have (`exp - iat`, or `exp` less
    /// now when it has no `iat`), e.g. `1h`: a longer-lived one is refused. Absent: no
    /// bound. Between `1m` and `365d`.
    pub max_token_lifetime: Option<String>,
}

/// How toolgate asks an issuer about opaque tokens (RFC 7662).
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawIntrospection {
    /// The introspection endpoint. Default: `introspection_endpoint` of the issuer's
    /// metadata.
    pub endpoint: Option<String>,
    /// toolgate's client id at the issuer (sent with HTTP Basic).
    pub client_id: String,
    /// The environment variable holding that client's secret.
    pub client_secret_env: String,
    /// How long an active token's answer is reused at most (never past its `exp`).
    /// Default: `5m`; at least `1s`.
    pub cache_for: Option<String>,
    /// How this issuer's opaque tokens begin, e.g. `[gho_, ghu_]` or `[ory_at_]`: a
    /// token is sent only to the issuer whose prefix it starts with. Required on all
    /// but at most one introspecting issuer when several introspect; the one without
    /// prefixes is asked about every opaque token no other issuer claims. Absent on a
    /// lone introspecting issuer: it is asked about every opaque token.
    #[serde(default)]
    pub token_prefixes: Vec<String>,
    /// Introspection requests for tokens not in the cache, per second at most
    /// (bursts of as many); past it, unknown tokens are refused without asking, and
    /// cached answers are unaffected. Default: `20`; between 1 and 10000.
    pub max_lookups_per_second: Option<u32>,
}

/// An agent: a caller toolgate tells apart from the others.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAgent {
    /// Which tokens are this agent's: every field given must match (`sub`, `client_id`,
    /// or `claims`: claim name → expected value; a claim holding a list matches when the
    /// list contains the value).
    #[serde(rename = "match")]
    pub matches: Option<RawAgentMatch>,
    /// A static API key for this agent, stored as the SHA-256 of the key in hex
    /// (`toolgate hash-key` prints it). The client sends the key as a bearer token.
    pub api_key_sha256: Option<String>,
    /// The tools this agent may call: names or `*` patterns. Absent: every tool.
    pub tools: Option<Vec<String>>,
    /// Tools this agent may never call (names or `*` patterns); wins over `tools`.
    #[serde(default)]
    pub deny: Vec<String>,
    /// Calls this agent may make.
    pub quota: Option<RawAgentQuota>,
    /// Whether this agent's credential is also an administrator's: `/admin/*` and the
    /// console accept it, and it reads every agent's audit records. Default: false.
    #[serde(default)]
    pub admin: bool,
}

/// What identifies an agent's token.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAgentMatch {
    /// The token's `iss`: one of `gateway.auth.issuers`. Required when several issuers
    /// are trusted, since a `sub` or `client_id` is unique only within its issuer.
    pub issuer: Option<String>,
    /// The token's `sub`.
    pub sub: Option<String>,
    /// The token's `client_id` (RFC 9068), or `azp` when it has none.
    pub client_id: Option<String>,
    /// Other claims and their expected values.
    #[serde(default)]
    pub claims: BTreeMap<String, Value>,
}

/// An agent's quota.
#[derive(Debug, Default, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RawAgentQuota {
    /// Calls allowed per window `per`.
    pub calls: Option<u32>,
    /// The window, e.g. `1m` (default).
    pub per: Option<String>,
    /// Calls running at the same time, at most.
    pub concurrent: Option<u32>,
}
