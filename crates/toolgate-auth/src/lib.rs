//! toolgate as an OAuth 2.1 resource server (the MCP authorization spec): who sent a
//! request on /mcp, from its bearer token.
//!
//! A token is, in this order: an agent's static API key (compared by SHA-256, in
//! constant time), the shared `gateway.auth_token_env` token, a JWT access token of
//! a trusted issuer ([`jwt`]), or an opaque one its issuer vouches for through token
//! introspection ([`introspect`]). A JWT's signature is checked with the issuer's published
//! keys ([`keys`]), then `iss` (exact), `aud` (must contain `gateway.auth.resource`,
//! RFC 8707), `exp`/`nbf` (60 s leeway) and the required scopes, and what the JWT
//! access-token profile asks beyond them ([`profile`]: no `crit`, an access token's
//! `typ`, times that are numbers, no `iat` in the future). The verified claims
//! name the agent (`agents.<name>.match`).
//!
//! Nothing here logs a token, and nothing here reaches an upstream: the engine never
//! sees the client's credentials.

pub mod fetch;
pub mod header;
pub mod introspect;
pub mod jwt;
pub mod keys;
pub mod metadata;
pub mod profile;
pub mod scope;

use std::collections::BTreeMap;
use std::sync::Arc;

use toolgate_config::{ANONYMOUS, AgentSpec, AuthConfig, GatewayConfig, Secret, Unmatched};

pub use metadata::{WELL_KNOWN, metadata_document, names_resource, resource_metadata_url};
pub use scope::{Granted, grants_all, insufficient_scope_challenge};

/// Seconds of clock difference tolerated on a token's `exp` and `nbf`, whether a JWT's
/// claims or an introspection answer's.
pub const LEEWAY_SECS: u64 = 60;

/// Who a request is from.
#[derive(Debug, Clone, Default)]
pub struct Identity {
    /// The configured agent; `None`: `anonymous`.
    pub agent: Option<Arc<AgentSpec>>,
    /// Who the access token is for: its `sub`, or its client (`client_id`, `azp`) when
    /// it names no subject. Never a credential.
    pub subject: Option<String>,
    /// The access token's `iss`: a subject is unique only within its issuer.
    pub issuer: Option<String>,
    /// Whether the credential is an administrator's ([`Authenticator::authorize_admin`]).
    pub admin: bool,
    /// The caller's access token, when it sent one that passed (not an API key nor the
    /// shared token): what a dependency with `token_exchange` exchanges for its own
    /// token. Held in memory for the request only; never logged, never sent upstream.
    pub access_token: Option<Arc<Secret>>,
    /// The scopes the caller's access token grants, asked per tool
    /// (`tools.<name>.scopes`). `None` for a credential that is no access token (an
    /// agent's API key, the shared token) and for every caller without
    /// `gateway.auth`: it holds no scope.
    pub scopes: Option<Granted>,
}

impl Identity {
    /// The agent's name, `anonymous` when none matched.
    pub fn name(&self) -> &str {
        self.agent.as_deref().map_or(ANONYMOUS, |a| a.name.as_str())
    }
}

/// Why a request is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// No bearer token was sent (401, no `error`, RFC 6750 §3.1).
    Missing,
    /// Credentials of another scheme, named when it is a registered one (401, no
    /// `error`: RFC 6750 §3.1 treats an unsupported method as no credential).
    OtherScheme(Option<&'static str>),
    /// The header is not a well-formed bearer credential (400 `invalid_request`, RFC
    /// 6750 §3.1); the text says why, without the value.
    Malformed(&'static str),
    /// The token is not valid (401 `invalid_token`); the text says why, without the token.
    Invalid(&'static str),
    /// A valid token without the required scopes (403 `insufficient_scope`).
    InsufficientScope,
    /// A valid token that is no configured agent's, with `unmatched: refuse` (403).
    UnknownAgent,
    /// A valid credential that is not an administrator's, on `/admin` or the console
    /// (403 `insufficient_scope`, naming the admin scope).
    AdminRequired,
}

impl Refusal {
    /// The HTTP status.
    pub fn status(&self) -> u16 {
        match self {
            Refusal::Missing | Refusal::OtherScheme(_) | Refusal::Invalid(_) => 401,
            Refusal::Malformed(_) => 400,
            Refusal::InsufficientScope | Refusal::UnknownAgent | Refusal::AdminRequired => 403,
        }
    }

    /// The sentence in the response body.
    pub fn message(&self) -> String {
        match self {
            Refusal::Missing => {
                "toolgate: a bearer token is required (Authorization: Bearer <token>)".into()
            }
            Refusal::OtherScheme(scheme) => format!(
                "toolgate: a bearer token is required (Authorization: Bearer <token>); the Authorization header uses {}",
                scheme.map_or("another scheme".to_string(), |s| format!("the {s} scheme"))
            ),
            Refusal::Malformed(why) => format!("toolgate: the Authorization header is malformed: {why}"),
            Refusal::Invalid(why) => format!("toolgate: the bearer token was refused: {why}"),
            Refusal::InsufficientScope => {
                "toolgate: the access token lacks a required scope".into()
            }
            Refusal::UnknownAgent => {
                "toolgate: the access token is valid but belongs to no configured agent".into()
            }
            Refusal::AdminRequired => {
                "toolgate: this endpoint is for administrators: a token with the admin scope, an admin agent's key, or the shared token".into()
            }
        }
    }
}

/// A credential that passed its checks.
struct Verified {
    identity: Identity,
    /// It carries every scope /mcp requires (always, for a key or the shared token).
    scoped: bool,
    /// It was an access token (not a key or the shared token).
    access_token: bool,
}

/// The credentials toolgate accepts, compiled once from the config.
pub struct Authenticator {
    shared: Option<Secret>,
    api_keys: Vec<([u8; 32], Arc<AgentSpec>)>,
    oauth: Option<jwt::Validator>,
    agents: Vec<Arc<AgentSpec>>,
    unmatched: Unmatched,
    scopes: Vec<String>,
    admin_scope: Option<String>,
    resource_metadata: Option<String>,
}

impl std::fmt::Debug for Authenticator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Authenticator")
            .field("shared", &self.shared.is_some())
            .field("api_keys", &self.api_keys.len())
            .field("oauth", &self.oauth.is_some())
            .finish_non_exhaustive()
    }
}

impl Authenticator {
    /// `http` fetches the issuers' metadata and keys (the gateway's pooled client).
    pub fn new(
        gateway: &GatewayConfig,
        agents: &BTreeMap<String, Arc<AgentSpec>>,
        http: reqwest::Client,
    ) -> Authenticator {
        Authenticator::with_refetch_every(gateway, agents, http, keys::REFETCH_EVERY)
    }

    /// The same, with another shortest time between two fetches of an issuer's keys.
    pub fn with_refetch_every(
        gateway: &GatewayConfig,
        agents: &BTreeMap<String, Arc<AgentSpec>>,
        http: reqwest::Client,
        refetch_every: std::time::Duration,
    ) -> Authenticator {
        Authenticator::with_key_timing(gateway, agents, http, refetch_every, keys::MAX_KEY_AGE)
    }

    /// The same, with another age at which an issuer's fetched keys are fetched again.
    pub fn with_key_timing(
        gateway: &GatewayConfig,
        agents: &BTreeMap<String, Arc<AgentSpec>>,
        http: reqwest::Client,
        refetch_every: std::time::Duration,
        max_key_age: std::time::Duration,
    ) -> Authenticator {
        let api_keys = agents
            .values()
            .filter_map(|a| a.api_key_sha256.map(|h| (h, a.clone())))
            .collect();
        let auth: Option<&AuthConfig> = gateway.auth.as_ref();
        Authenticator {
            shared: gateway.auth_token.clone(),
            api_keys,
            oauth: auth
                .map(|a| jwt::Validator::with_key_timing(a, http, refetch_every, max_key_age)),
            agents: agents
                .values()
                .filter(|a| a.matches.is_some())
                .cloned()
                .collect(),
            unmatched: auth.map(|a| a.unmatched).unwrap_or_default(),
            scopes: auth.map(|a| a.scopes.clone()).unwrap_or_default(),
            admin_scope: auth.map(|a| a.admin_scope.clone()),
            resource_metadata: auth.map(|a| resource_metadata_url(&a.resource)),
        }
    }

    /// Whether /mcp requires a credential at all.
    pub fn required(&self) -> bool {
        self.shared.is_some() || self.oauth.is_some() || !self.api_keys.is_empty()
    }

    /// Whether OAuth is configured (the metadata endpoints exist).
    pub fn oauth(&self) -> Option<&jwt::Validator> {
        self.oauth.as_ref()
    }

    /// Who sent `authorization` (the header's value) on /mcp, or why it is refused.
    /// Without any credential configured every caller is `anonymous`.
    pub async fn authenticate<A: AsRef<[u8]> + ?Sized>(
        &self,
        authorization: Option<&A>,
    ) -> Result<Identity, Refusal> {
        if !self.required() {
            return Ok(Identity::default());
        }
        let verified = self.verify(authorization).await?;
        if !verified.scoped {
            return Err(Refusal::InsufficientScope);
        }
        if verified.access_token
            && verified.identity.agent.is_none()
            && self.unmatched == Unmatched::Refuse
        {
            return Err(Refusal::UnknownAgent);
        }
        Ok(verified.identity)
    }

    /// Who sent `authorization` to `/admin` or the console, admitted only when an
    /// administrator: the shared `auth_token_env` token, the key or token of an agent
    /// with `admin: true`, or an access token carrying `gateway.auth.admin_scope` (the
    /// /mcp scopes are not asked for then). With `agents_read_own` (the audit trail) a
    /// configured agent's credential is admitted too, as itself, not as an admin — the
    /// endpoint then shows it its own records only. Without any credential configured
    /// there is nobody to tell apart, and every caller is an administrator.
    pub async fn authorize_admin<A: AsRef<[u8]> + ?Sized>(
        &self,
        authorization: Option<&A>,
        agents_read_own: bool,
    ) -> Result<Identity, Refusal> {
        if !self.required() {
            return Ok(Identity {
                admin: true,
                ..Identity::default()
            });
        }
        let Verified {
            identity, scoped, ..
        } = self.verify(authorization).await?;
        if identity.admin {
            return Ok(identity);
        }
        if agents_read_own && identity.agent.is_some() {
            return if scoped {
                Ok(identity)
            } else {
                Err(Refusal::InsufficientScope)
            };
        }
        Err(Refusal::AdminRequired)
    }

    /// The credential's identity; an access token that matches no agent comes back as
    /// `anonymous`.
    async fn verify<A: AsRef<[u8]> + ?Sized>(
        &self,
        authorization: Option<&A>,
    ) -> Result<Verified, Refusal> {
        let header::Presented { token, malformed } =
            header::read(authorization.map(AsRef::as_ref))?;
        if let Some(agent) = self.api_key(token) {
            let admin = agent.admin;
            return Ok(Verified {
                identity: Identity {
                    agent: Some(agent),
                    admin,
                    ..Identity::default()
                },
                scoped: true,
                access_token: false,
            });
        }
        if let Some(Secret(shared)) = &self.shared
            && constant_time_eq(token.as_bytes(), shared.as_bytes())
        {
            return Ok(Verified {
                identity: Identity {
                    admin: true,
                    ..Identity::default()
                },
                scoped: true,
                access_token: false,
            });
        }
        if let Some(refusal) = malformed {
            return Err(refusal);
        }
        let Some(oauth) = &self.oauth else {
            return Err(Refusal::Invalid("the token is not a key toolgate knows"));
        };
        let claims = oauth.validate(token).await.map_err(Refusal::Invalid)?;
        let granted = jwt::scopes(&claims);
        let scoped = self.scopes.iter().all(|s| granted.contains(&s.as_str()));
        let agent = self
            .agents
            .iter()
            .find(|a| a.matches.as_ref().is_some_and(|m| m.matches(&claims)))
            .cloned();
        let admin = agent.as_ref().is_some_and(|a| a.admin)
            || self
                .admin_scope
                .as_deref()
                .is_some_and(|s| granted.contains(&s));
        let text = |name: &str| claims.get(name).and_then(|v| v.as_str()).map(str::to_owned);
        Ok(Verified {
            identity: Identity {
                agent,
                subject: text("sub")
                    .or_else(|| text("client_id"))
                    .or_else(|| text("azp")),
                issuer: text("iss"),
                admin,
                access_token: Some(Arc::new(Secret(token.to_owned()))),
                scopes: Some(Granted::new(claims)),
            },
            scoped,
            access_token: true,
        })
    }

    /// The `WWW-Authenticate` value for a refusal (RFC 6750 §3, RFC 9728 §5.1).
    pub fn challenge(&self, refusal: &Refusal) -> String {
        let mut parts = Vec::new();
        if let Some(url) = &self.resource_metadata {
            parts.push(format!("resource_metadata=\"{url}\""));
        }
        match refusal {
            Refusal::Missing | Refusal::OtherScheme(_) => {}
            Refusal::Malformed(why) => {
                parts.push("error=\"invalid_request\"".into());
                parts.push(format!("error_description=\"{why}\""));
            }
            Refusal::Invalid(why) => {
                parts.push("error=\"invalid_token\"".into());
                parts.push(format!("error_description=\"{why}\""));
            }
            Refusal::InsufficientScope | Refusal::UnknownAgent | Refusal::AdminRequired => {
                parts.push("error=\"insufficient_scope\"".into());
            }
        }
        if let (Refusal::AdminRequired, Some(scope)) = (refusal, &self.admin_scope) {
            parts.push(format!("scope=\"{scope}\""));
        } else if !self.scopes.is_empty()
            && !matches!(refusal, Refusal::Invalid(_) | Refusal::Malformed(_))
        {
            parts.push(format!("scope=\"{}\"", self.scopes.join(" ")));
        }
        if parts.is_empty() {
            "Bearer".into()
        } else {
            format!("Bearer {}", parts.join(", "))
        }
    }

    /// The agent whose API key `token` is. Every key is compared, so the time taken
    /// does not tell which agent (or whether any) came close.
    fn api_key(&self, token: &str) -> Option<Arc<AgentSpec>> {
        if self.api_keys.is_empty() {
            return None;
        }
        let digest = sha256(token.as_bytes());
        let mut found = None;
        for (hash, agent) in &self.api_keys {
            if constant_time_eq(&digest, hash) {
                found = Some(agent.clone());
            }
        }
        found
    }
}

/// SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut out = [0u8; 32];
    out.copy_from_slice(digest.as_ref());
    out
}

/// SHA-256 of `bytes` in lowercase hex: what `agents.<name>.api_key_sha256` holds.
pub fn sha256_hex(bytes: &[u8]) -> String {
    // From a table: a session's owner is hashed on every request, and `format!` per
    // byte cost more than the hash.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digest = sha256(bytes);
    let mut out = String::with_capacity(digest.len() * 2);
    for b in digest {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

/// A new random API key: `tg_` and 32 random bytes, base64url.
pub fn generate_key() -> Result<String, String> {
    use base64::Engine as _;
    use ring::rand::SecureRandom as _;
    let mut bytes = [0u8; 32];
    ring::rand::SystemRandom::new()
        .fill(&mut bytes)
        .map_err(|_| "the system's random number generator failed".to_string())?;
    Ok(format!(
        "tg_{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// Compares without an early exit, so response timing does not reveal the token — nor
/// its length: every byte of both is visited whatever the lengths, and a length
/// mismatch only sets a bit of the result.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    let mut diff = u8::from(a.len() != b.len());
    for i in 0..n {
        let x = a.get(i).copied().unwrap_or(0);
        let y = b.get(i).copied().unwrap_or(0);
        diff |= std::hint::black_box(x ^ y);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_is_written_as_the_lowercase_hex_api_key_hashes_are_configured_in() {
        // FIPS 180-2's example, as `sha256sum` and `toolgate hash-key` print it.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_constant_time_comparison_is_exact_at_every_length() {
        assert!(constant_time_eq(b"s3cret", b"s3cret"));
        assert!(constant_time_eq(b"", b""));
        for other in [&b"s3cre"[..], b"s3cret!", b"", b"s3creT", b"s3cret\0"] {
            assert!(!constant_time_eq(other, b"s3cret"), "{other:?}");
            assert!(!constant_time_eq(b"s3cret", other), "{other:?}");
        }
    }

    #[test]
    fn the_key_hash_is_sha256_hex() {
        // FIPS 180-2 test vector.
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
