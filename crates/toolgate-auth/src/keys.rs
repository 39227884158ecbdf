//! One trusted issuer's signing keys: found through its metadata (RFC 8414, or OpenID
//! discovery) unless `jwks_uri` is configured, cached, and fetched again when a token
//! names a key the cache does not hold — at most once per [`REFETCH_EVERY`], so tokens
//! with made-up key ids cannot turn toolgate into a flood against the issuer.
//!
//! The cached keys also age: once they are [`MAX_KEY_AGE`] old the next token fetches
//! them again, so a key the issuer withdrew (a compromised key taken out of its JWKS)
//! stops verifying even though every token still names a key the cache holds. While
//! the issuer cannot be reached the old keys keep verifying: an outage of the issuer
//! does not lock every agent out.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use jsonwebtoken::jwk::{
    AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, KeyOperations, PublicKeyUse,
};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use tokio::time::Instant;

use toolgate_config::IssuerConfig;

use crate::fetch;

/// The shortest time between two fetches of one issuer's keys.
pub const REFETCH_EVERY: Duration = Duration::from_secs(10);

/// How long fetched keys are trusted before the next token fetches them again.
pub const MAX_KEY_AGE: Duration = Duration::from_secs(10 * 60);

/// Signature algorithms a token may use: asymmetric only. `none` and the HMAC family
/// are never accepted (an HMAC "key" made from a public key is the classic forgery).
pub const ALLOWED: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// A verification key and the algorithms it may verify.
pub struct Key {
    kid: Option<String>,
    algorithms: Vec<Algorithm>,
    pub(crate) decoding: DecodingKey,
}

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Key")
            .field("kid", &self.kid)
            .field("algorithms", &self.algorithms)
            .finish_non_exhaustive()
    }
}

/// One issuer: its configuration, its cached keys, and when they were last fetched.
#[derive(Debug)]
pub struct Issuer {
    pub(crate) config: IssuerConfig,
    refetch_every: Duration,
    max_key_age: Duration,
    keys: RwLock<Arc<KeySet>>,
    /// Held while fetching, so concurrent misses wait for one fetch.
    fetch: tokio::sync::Mutex<FetchState>,
}

/// The keys of the last fetch that answered, and when it answered.
#[derive(Debug, Default)]
struct KeySet {
    keys: Vec<Arc<Key>>,
    /// `None`: never fetched.
    fetched: Option<Instant>,
}

#[derive(Debug, Default)]
struct FetchState {
    jwks_uri: Option<url::Url>,
    last: Option<Instant>,
}

impl Issuer {
    pub fn new(config: IssuerConfig, refetch_every: Duration, max_key_age: Duration) -> Issuer {
        Issuer {
            refetch_every,
            max_key_age,
            fetch: tokio::sync::Mutex::new(FetchState {
                jwks_uri: config.jwks_uri.clone(),
                last: None,
            }),
            config,
            keys: RwLock::new(Arc::new(KeySet::default())),
        }
    }

    /// The cached key for a token's `kid` and `alg`, however old.
    pub fn cached(&self, kid: Option<&str>, alg: Algorithm) -> Option<Arc<Key>> {
        self.lookup(kid, alg, false)
    }

    /// The cached key for `kid` and `alg`; with `fresh`, only while the keys are younger
    /// than the issuer's `max_key_age`.
    fn lookup(&self, kid: Option<&str>, alg: Algorithm, fresh: bool) -> Option<Arc<Key>> {
        let set = self.keys.read().unwrap_or_else(|e| e.into_inner()).clone();
        if fresh
            && set
                .fetched
                .is_none_or(|at| at.elapsed() >= self.max_key_age)
        {
            return None;
        }
        set.keys
            .iter()
            .find(|k| (kid.is_none() || k.kid.as_deref() == kid) && k.algorithms.contains(&alg))
            .cloned()
    }

    /// The key, fetching the issuer's keys again when it is not cached or the cached
    /// keys are older than `max_key_age`, and the last fetch is old enough
    /// ([`REFETCH_EVERY`] by default). When that fetch fails, the keys it had keep
    /// verifying; when it answers, only the keys it lists do.
    pub async fn key(
        &self,
        http: &reqwest::Client,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Option<Arc<Key>> {
        if let Some(k) = self.lookup(kid, alg, true) {
            return Some(k);
        }
        let mut state = self.fetch.lock().await;
        // Another call may have fetched while this one waited.
        if let Some(k) = self.lookup(kid, alg, true) {
            return Some(k);
        }
        let now = Instant::now();
        if state
            .last
            .is_some_and(|last| now.duration_since(last) < self.refetch_every)
        {
            return self.cached(kid, alg);
        }
        state.last = Some(now);
        match self.fetch_keys(http, &mut state).await {
            Ok(keys) => {
                tracing::info!(issuer = %self.config.issuer, keys = keys.len(), "fetched the issuer's signing keys");
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(KeySet {
                    keys,
                    fetched: Some(Instant::now()),
                });
            }
            Err(e) => {
                tracing::warn!(issuer = %self.config.issuer, "cannot fetch the issuer's signing keys: {e}");
            }
        }
        self.cached(kid, alg)
    }

    async fn fetch_keys(
        &self,
        http: &reqwest::Client,
        state: &mut FetchState,
    ) -> Result<Vec<Arc<Key>>, String> {
        let uri = match &state.jwks_uri {
            Some(u) => u.clone(),
            None => {
                let u = self.discover(http).await?;
                state.jwks_uri = Some(u.clone());
                u
            }
        };
        let doc = fetch::json(http, &uri).await?;
        // A document that is no key set at all (an error page, `{}`) says nothing about
        // which keys were withdrawn: keep the keys held rather than drop every one.
        if !doc.get("keys").is_some_and(Value::is_array) {
            return Err(format!("{uri} is not a JWK set (no `keys` array)"));
        }
        Ok(parse_jwks(&doc))
    }

    /// The `jwks_uri` from the issuer's RFC 8414 metadata, or else its OpenID
    /// configuration; the document must name this issuer (RFC 8414 §3.3).
    async fn discover(&self, http: &reqwest::Client) -> Result<url::Url, String> {
        discover(http, &self.config.issuer, "jwks_uri").await
    }
}

/// The http(s) URL `field` (`jwks_uri`, `introspection_endpoint`) of `issuer`'s RFC 8414
/// metadata, or else its OpenID configuration; the document must name this issuer
/// (RFC 8414 §3.3).
pub(crate) async fn discover(
    http: &reqwest::Client,
    issuer: &str,
    field: &str,
) -> Result<url::Url, String> {
    let mut errors = Vec::new();
    for url in metadata_urls(issuer)? {
        match fetch::json(http, &url).await {
            Ok(doc) => {
                if doc.get("issuer").and_then(Value::as_str) != Some(issuer) {
                    errors.push(format!("{url} names another issuer"));
                    continue;
                }
                let Some(found) = doc.get(field).and_then(Value::as_str) else {
                    errors.push(format!("{url} has no {field}"));
                    continue;
                };
                return endpoint_url(issuer, found).ok_or_else(|| {
                    format!(
                        "{url}: {field} is not an http(s) URL, or is plain http for an https issuer"
                    )
                });
            }
            Err(e) => errors.push(e),
        }
    }
    Err(errors.join("; "))
}

/// A discovered endpoint, as a URL: http or https, and https when the issuer is. A
/// plain-http `jwks_uri` of an https issuer would let whoever sits on the path serve
/// keys of their own and sign any token; an http `introspection_endpoint` would vouch
/// for any token and carry toolgate's client secret in clear (OpenID Connect Discovery
/// 1.0 §3 and RFC 8414 §2 ask for TLS).
fn endpoint_url(issuer: &str, found: &str) -> Option<url::Url> {
    let url = url::Url::parse(found).ok()?;
    let issuer_https = issuer
        .get(..8)
        .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
    match url.scheme() {
        "https" => Some(url),
        "http" if !issuer_https => Some(url),
        _ => None,
    }
}

/// Where an issuer publishes its metadata: RFC 8414 inserts the well-known segment
/// before the issuer's path; OpenID Connect Discovery appends it.
pub fn metadata_urls(issuer: &str) -> Result<Vec<url::Url>, String> {
    let base =
        url::Url::parse(issuer).map_err(|e| format!("issuer `{issuer}` is not a URL: {e}"))?;
    let path = base.path().trim_end_matches('/');
    let mut rfc8414 = base.clone();
    rfc8414.set_path(&format!("/.well-known/oauth-authorization-server{path}"));
    let mut openid = base.clone();
    openid.set_path(&format!("{path}/.well-known/openid-configuration"));
    Ok(vec![rfc8414, openid])
}

/// The usable keys of a JWKS: signing keys of an allowed family; the rest (encryption
/// keys by `use` or by `key_ops`, symmetric keys, curves *ring* lacks, entries that do
/// not parse) are skipped.
pub fn parse_jwks(doc: &Value) -> Vec<Arc<Key>> {
    let Some(entries) = doc.get("keys").and_then(Value::as_array) else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|entry| {
            let jwk: Jwk = serde_json::from_value(entry.clone()).ok()?;
            if matches!(jwk.common.public_key_use, Some(PublicKeyUse::Encryption)) {
                return None;
            }
            // `key_ops` (RFC 7517 §4.3) limits a key to the operations it lists. A public
            // key only verifies, but providers list the signing side too (Azure AD B2C
            // publishes `"use": "sig", "key_ops": ["sign"]`): either one admits it.
            if let Some(ops) = &jwk.common.key_operations
                && !ops
                    .iter()
                    .any(|op| matches!(op, KeyOperations::Verify | KeyOperations::Sign))
            {
                return None;
            }
            let family = family(&jwk.algorithm);
            let algorithms: Vec<Algorithm> = match jwk.common.key_algorithm {
                Some(declared) => {
                    let alg = allowed_algorithm(declared)?;
                    family.contains(&alg).then(|| vec![alg])?
                }
                None => family,
            };
            if algorithms.is_empty() {
                return None;
            }
            let decoding = DecodingKey::from_jwk(&jwk).ok()?;
            Some(Arc::new(Key {
                kid: jwk.common.key_id,
                algorithms,
                decoding,
            }))
        })
        .collect()
}

/// The algorithms a key of this type and curve can verify.
fn family(params: &AlgorithmParameters) -> Vec<Algorithm> {
    match params {
        AlgorithmParameters::RSA(_) => vec![
            Algorithm::RS256,
            Algorithm::RS384,
            Algorithm::RS512,
            Algorithm::PS256,
            Algorithm::PS384,
            Algorithm::PS512,
        ],
        AlgorithmParameters::EllipticCurve(ec) => match ec.curve {
            EllipticCurve::P256 => vec![Algorithm::ES256],
            EllipticCurve::P384 => vec![Algorithm::ES384],
            _ => Vec::new(),
        },
        AlgorithmParameters::OctetKeyPair(okp) => match okp.curve {
            EllipticCurve::Ed25519 => vec![Algorithm::EdDSA],
            _ => Vec::new(),
        },
        AlgorithmParameters::OctetKey(_) => Vec::new(),
    }
}

fn allowed_algorithm(declared: KeyAlgorithm) -> Option<Algorithm> {
    let alg = match declared {
        KeyAlgorithm::RS256 => Algorithm::RS256,
        KeyAlgorithm::RS384 => Algorithm::RS384,
        KeyAlgorithm::RS512 => Algorithm::RS512,
        KeyAlgorithm::PS256 => Algorithm::PS256,
        KeyAlgorithm::PS384 => Algorithm::PS384,
        KeyAlgorithm::PS512 => Algorithm::PS512,
        KeyAlgorithm::ES256 => Algorithm::ES256,
        KeyAlgorithm::ES384 => Algorithm::ES384,
        KeyAlgorithm::EdDSA => Algorithm::EdDSA,
        _ => return None,
    };
    Some(alg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn metadata_urls_follow_rfc8414_and_openid_discovery() {
        let show = |issuer: &str| -> Vec<String> {
            metadata_urls(issuer)
                .unwrap_or_default()
                .iter()
                .map(url::Url::to_string)
                .collect()
        };
        assert_eq!(
            show("https://login.example.com"),
            [
                "https://login.example.com/.well-known/oauth-authorization-server",
                "https://login.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            show("https://login.example.com/tenant1"),
            [
                "https://login.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://login.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn a_discovered_endpoint_never_downgrades_an_https_issuer_to_http() {
        let https = "https://login.example.com";
        for found in [
            "http://login.example.com/jwks",
            "HTTP://login.example.com/jwks",
            "ftp://login.example.com/jwks",
            "file:///etc/keys.json",
            "/jwks",
        ] {
            assert!(endpoint_url(https, found).is_none(), "{found}");
        }
        // Real providers' keys live on another https host than the issuer (Google's
        // `https://accounts.google.com` publishes `https://www.googleapis.com/oauth2/v3/certs`).
        assert!(
            endpoint_url(
                "https://accounts.google.com",
                "https://www.googleapis.com/oauth2/v3/certs"
            )
            .is_some()
        );
        // An http issuer (a test or a loopback one) may name http endpoints.
        assert!(endpoint_url("http://127.0.0.1:8080", "http://127.0.0.1:8080/jwks").is_some());
    }

    #[test]
    fn symmetric_encryption_and_unknown_keys_are_skipped() {
        let doc = serde_json::json!({"keys": [
            {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac"},
            {"kty": "oct", "k": "c2VjcmV0", "kid": "hmac2", "alg": "HS256"},
            {"kty": "EC", "crv": "P-256", "use": "enc", "kid": "enc",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "EC", "crv": "P-256", "kid": "sig", "alg": "HS256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "XYZ", "kid": "strange"},
            {"kty": "EC", "crv": "P-256", "kid": "good",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
        ]});
        let keys = parse_jwks(&doc);
        let kids: Vec<_> = keys
            .iter()
            .map(|k| k.kid.clone().unwrap_or_default())
            .collect();
        assert_eq!(kids, ["good"]);
        assert_eq!(keys[0].algorithms, [Algorithm::ES256]);
    }
}
