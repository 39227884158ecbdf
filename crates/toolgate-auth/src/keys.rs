//! One trusted issuer's signing keys: found through its metadata (RFC 8414, or OpenID
//! discovery) unless `jwks_uri` is configured, cached, and fetched again when a token
//! names a key the cache does not hold — at most once per [`REFETCH_EVERY`], so tokens
//! with made-up key ids cannot turn toolgate into a flood against the issuer.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;
use tokio::time::Instant;

use toolgate_config::IssuerConfig;

use crate::fetch;

/// The shortest time between two fetches of one issuer's keys.
pub const REFETCH_EVERY: Duration = Duration::from_secs(10);

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
    keys: RwLock<Arc<Vec<Arc<Key>>>>,
    /// Held while fetching, so concurrent misses wait for one fetch.
    fetch: tokio::sync::Mutex<FetchState>,
}

#[derive(Debug, Default)]
struct FetchState {
    jwks_uri: Option<url::Url>,
    last: Option<Instant>,
}

impl Issuer {
    pub fn new(config: IssuerConfig, refetch_every: Duration) -> Issuer {
        Issuer {
            refetch_every,
            fetch: tokio::sync::Mutex::new(FetchState {
                jwks_uri: config.jwks_uri.clone(),
                last: None,
            }),
            config,
            keys: RwLock::new(Arc::new(Vec::new())),
        }
    }

    /// The cached key for a token's `kid` and `alg`.
    pub fn cached(&self, kid: Option<&str>, alg: Algorithm) -> Option<Arc<Key>> {
        let keys = self.keys.read().unwrap_or_else(|e| e.into_inner()).clone();
        keys.iter()
            .find(|k| (kid.is_none() || k.kid.as_deref() == kid) && k.algorithms.contains(&alg))
            .cloned()
    }

    /// The key, fetching the issuer's keys again when it is not cached and the last
    /// fetch is old enough ([`REFETCH_EVERY`] by default).
    pub async fn key(
        &self,
        http: &reqwest::Client,
        kid: Option<&str>,
        alg: Algorithm,
    ) -> Option<Arc<Key>> {
        if let Some(k) = self.cached(kid, alg) {
            return Some(k);
        }
        let mut state = self.fetch.lock().await;
        // Another call may have fetched while this one waited.
        if let Some(k) = self.cached(kid, alg) {
            return Some(k);
        }
        let now = Instant::now();
        if state
            .last
            .is_some_and(|last| now.duration_since(last) < self.refetch_every)
        {
            return None;
        }
        state.last = Some(now);
        match self.fetch_keys(http, &mut state).await {
            Ok(keys) => {
                tracing::info!(issuer = %self.config.issuer, keys = keys.len(), "fetched the issuer's signing keys");
                *self.keys.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(keys);
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
                return url::Url::parse(found)
                    .ok()
                    .filter(|u| matches!(u.scheme(), "http" | "https"))
                    .ok_or_else(|| format!("{url}: {field} is not an http(s) URL"));
            }
            Err(e) => errors.push(e),
        }
    }
    Err(errors.join("; "))
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
/// keys, symmetric keys, curves *ring* lacks, entries that do not parse) are skipped.
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
