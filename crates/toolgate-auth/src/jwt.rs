//! JWT access tokens (RFC 9068): the signature with a trusted issuer's key, then the
//! claims. Every refusal is a fixed sentence: nothing from the token is echoed.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::{Algorithm, Validation};
use serde_json::{Map, Value};

use base64::Engine as _;
use toolgate_config::AuthConfig;

use crate::LEEWAY_SECS;
use crate::keys::{ALLOWED, Issuer, MAX_KEY_AGE, REFETCH_EVERY};

/// Largest token accepted: a header's worth, far beyond any real access token.
pub const MAX_TOKEN_BYTES: usize = 16 << 10;

/// Tokens whose signature and claims were verified, kept at most.
pub const MAX_CACHED_TOKENS: usize = 10_000;

/// Validates access tokens for one resource.
#[derive(Debug)]
pub struct Validator {
    resource: String,
    issuers: Vec<Issuer>,
    http: reqwest::Client,
    /// Verified tokens by the SHA-256 of their text, until their `exp`: a client sends
    /// the same token with every call until it expires, and a signature check costs
    /// tens of microseconds where the hash costs one or two. An entry is checked again
    /// once it is as old as the keys may be, so a token of a key the issuer withdrew
    /// does not outlive the key's withdrawal by more than that.
    verified: Mutex<HashMap<[u8; 32], Verified>>,
    max_key_age: std::time::Duration,
    /// Opaque tokens, for the issuers that introspect them.
    introspector: Option<crate::introspect::Introspector>,
}

#[derive(Debug, Clone)]
struct Verified {
    claims: Arc<Map<String, Value>>,
    exp: u64,
    /// When its signature was checked.
    checked: tokio::time::Instant,
}

impl Validator {
    pub fn new(auth: &AuthConfig, http: reqwest::Client) -> Validator {
        Validator::with_refetch_every(auth, http, REFETCH_EVERY)
    }

    /// The same, with another shortest time between two fetches of an issuer's keys.
    pub fn with_refetch_every(
        auth: &AuthConfig,
        http: reqwest::Client,
        every: std::time::Duration,
    ) -> Validator {
        Validator::with_key_timing(auth, http, every, MAX_KEY_AGE)
    }

    /// The same, with another shortest time between two fetches of an issuer's keys
    /// and another age at which fetched keys are fetched again.
    pub fn with_key_timing(
        auth: &AuthConfig,
        http: reqwest::Client,
        every: std::time::Duration,
        max_key_age: std::time::Duration,
    ) -> Validator {
        Validator {
            resource: auth.resource.clone(),
            issuers: auth
                .issuers
                .iter()
                .cloned()
                .map(|i| Issuer::new(i, every, max_key_age))
                .collect(),
            http,
            verified: Mutex::new(HashMap::new()),
            max_key_age,
            introspector: crate::introspect::Introspector::new(&auth.resource, &auth.issuers),
        }
    }

    /// The token's verified claims, from the cache of verified tokens when it is there
    /// and has not expired, else by [`Validator::verify`].
    pub async fn validate(&self, token: &str) -> Result<Arc<Map<String, Value>>, &'static str> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err("the token is too long");
        }
        let now = unix_now();
        // A token that is not a JWT can only be an opaque token of an issuer that
        // introspects (its answers have a cache of their own).
        if let Some(introspector) = &self.introspector
            && token.split('.').count() != 3
        {
            return introspector.claims(&self.http, token, now).await;
        }
        let digest = crate::sha256(token.as_bytes());
        // The lock is taken and let go in this statement: held on into the branches
        // below, removing an expired entry would lock it a second time and block this
        // thread, and with it every later request, for good.
        let cached = self.lock().get(&digest).cloned();
        if let Some(hit) = cached {
            if now > hit.exp.saturating_add(LEEWAY_SECS) {
                self.lock().remove(&digest);
                return Err("the token has expired");
            }
            if hit.checked.elapsed() < self.max_key_age {
                return Ok(hit.claims);
            }
            // Checked before the keys it was checked with were last confirmed: check it
            // again, against the keys the issuer lists now.
            self.lock().remove(&digest);
        }
        let claims = Arc::new(self.verify(token).await?);
        // `exp` is required, so a verified token has one (a fraction included).
        let exp = crate::profile::numeric_date(&claims, "exp").unwrap_or(0);
        let mut cache = self.lock();
        if cache.len() >= MAX_CACHED_TOKENS {
            cache.retain(|_, v| now <= v.exp.saturating_add(LEEWAY_SECS));
            if cache.len() >= MAX_CACHED_TOKENS {
                cache.clear();
            }
        }
        cache.insert(
            digest,
            Verified {
                claims: claims.clone(),
                exp,
                checked: tokio::time::Instant::now(),
            },
        );
        Ok(claims)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Verified>> {
        self.verified.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Checks the token's signature and claims: its verified claims, or why it is refused.
    pub async fn verify(&self, token: &str) -> Result<Map<String, Value>, &'static str> {
        if token.len() > MAX_TOKEN_BYTES {
            return Err("the token is too long");
        }
        if token.split('.').count() != 3 {
            return Err("the token is not a JWT");
        }
        // `alg: none` and unknown algorithms fail here: the header does not parse.
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| "the token's header is not a signed JWT header")?;
        if !ALLOWED.contains(&header.alg) {
            return Err(
                "the token's signature algorithm is not allowed (asymmetric algorithms only)",
            );
        }
        crate::profile::check_header(token)?;
        // The issuer is read before the signature is checked only to pick its keys; the
        // signature check then covers it, and `iss` is compared again as a claim.
        let iss = unverified_issuer(token).ok_or("the token has no issuer")?;
        let issuer = self
            .issuers
            .iter()
            .find(|i| i.config.issuer == iss)
            .ok_or("the token's issuer is not trusted")?;
        let key = issuer
            .key(&self.http, header.kid.as_deref(), header.alg)
            .await
            .ok_or("the token's signing key is not one of the issuer's keys")?;
        let validation = self.validation(&issuer.config.issuer, header.alg);
        let decoded = jsonwebtoken::decode::<Map<String, Value>>(token, &key.decoding, &validation)
            .map_err(|e| match e.kind() {
                ErrorKind::ExpiredSignature => "the token has expired",
                ErrorKind::ImmatureSignature => "the token is not valid yet",
                ErrorKind::InvalidAudience => "the token is for another resource (aud)",
                ErrorKind::InvalidIssuer => "the token's issuer is not trusted",
                ErrorKind::InvalidSignature => "the token's signature is invalid",
                ErrorKind::MissingRequiredClaim(_) => "the token lacks exp, iss or aud",
                _ => "the token is not valid",
            })?;
        let claims = decoded.claims;
        let now = unix_now();
        crate::profile::check_times(&claims, now)?;
        crate::profile::check_unbound(&claims)?;
        crate::profile::check_lifetime(&claims, now, issuer.config.max_token_lifetime)?;
        Ok(claims)
    }

    fn validation(&self, issuer: &str, alg: Algorithm) -> Validation {
        let mut v = Validation::new(alg);
        v.algorithms = vec![alg];
        v.leeway = LEEWAY_SECS;
        v.validate_exp = true;
        v.validate_nbf = true;
        v.set_issuer(&[issuer]);
        v.set_audience(&[self.resource.as_str()]);
        v.set_required_spec_claims(&["exp", "iss", "aud"]);
        v
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// `iss` from the payload, before verification.
fn unverified_issuer(token: &str) -> Option<String> {
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    #[derive(serde::Deserialize)]
    struct Iss {
        iss: Option<String>,
    }
    serde_json::from_slice::<Iss>(&bytes).ok()?.iss
}

/// The scopes a token grants: `scope` (space-separated, RFC 9068) or `scp` (a list or
/// a string, as some providers write it).
pub fn scopes(claims: &Map<String, Value>) -> Vec<&str> {
    let mut out = Vec::new();
    for name in ["scope", "scp"] {
        match claims.get(name) {
            Some(Value::String(s)) => out.extend(s.split(' ').filter(|s| !s.is_empty())),
            Some(Value::Array(items)) => out.extend(items.iter().filter_map(Value::as_str)),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_cached_token_that_expired_is_refused_and_dropped_from_the_cache() {
        let auth = AuthConfig {
            resource: "https://tools.example.com/mcp".into(),
            issuers: Vec::new(),
            scopes: Vec::new(),
            unmatched: toolgate_config::Unmatched::Anonymous,
            admin_scope: toolgate_config::DEFAULT_ADMIN_SCOPE.into(),
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let validator = Validator::new(&auth, reqwest::Client::new());
        let token = "eyJhbGciOiJFUzI1NiJ9.eyJleHAiOjF9.c2ln";
        let expired = Verified {
            claims: Arc::new(Map::new()),
            exp: 1,
            checked: tokio::time::Instant::now(),
        };
        validator
            .lock()
            .insert(crate::sha256(token.as_bytes()), expired);
        assert_eq!(
            validator.validate(token).await.map(|_| ()),
            Err("the token has expired")
        );
        assert!(validator.lock().is_empty());
        // The cache is usable afterwards: nothing still holds it.
        assert_eq!(
            validator.validate(token).await.map(|_| ()),
            Err("the token has no issuer")
        );
    }
}
