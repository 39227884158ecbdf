//! Opaque access tokens, checked through the issuer's token introspection endpoint
//! (RFC 7662), with a bounded cache.
//!
//! A token that is not a JWT is posted to the one issuer it belongs to (toolgate
//! authenticates with its own client id and secret, HTTP Basic): the issuer whose
//! `token_prefixes` it starts with, else the introspecting issuer without prefixes. A
//! token no issuer claims is refused without being sent anywhere, so no issuer ever
//! sees another's tokens (RFC 7662 §4). The answer must be for this resource (`aud` contains
//! `gateway.auth.resource`: RFC 8707, no confused deputy), unexpired (`exp`, with the
//! same leeway as JWTs, required), of the issuer asked (`iss`, when given) and not a
//! refresh token. Its members then stand for the token's claims (`sub`, `client_id`,
//! `scope`, ...), exactly as a JWT's would.
//!
//! Answers are cached by the token's SHA-256: an active one until the earlier of its
//! `exp` and the issuer's `cache_for`; an inactive or refused one for
//! [`NEGATIVE_TTL`], so a client retrying a bad token, or tokens made up at random
//! until the cache is full, cost the issuer at most one request per token per
//! [`NEGATIVE_TTL`]. At most [`MAX_CACHED`] answers are kept; when they are that many,
//! the refusals are dropped before any active answer. A revoked token may
//! therefore still pass for up to `cache_for`: set it to what revocation must take.
//!
//! Tokens not in the cache are asked about at most `max_lookups_per_second` per
//! issuer (a token bucket as deep as one second's worth): past that, they are refused
//! without a request, so made-up tokens cannot get toolgate's client rate-limited at
//! the issuer (RFC 7662 §4). Cached answers never wait on the bucket.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::time::Instant;

use serde_json::{Map, Value};
use toolgate_config::{IssuerConfig, Secret};

use crate::LEEWAY_SECS;

/// How long an inactive token's answer is reused.
pub const NEGATIVE_TTL: Duration = Duration::from_secs(10);

/// Answers kept at most.
pub const MAX_CACHED: usize = 10_000;

/// Shortest time between two discoveries of an issuer's endpoint.
const DISCOVER_EVERY: Duration = Duration::from_secs(10);

/// One issuer's introspection endpoint.
#[derive(Debug)]
struct Endpoint {
    issuer: String,
    client: String,
    /// `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 §2.3.1).
    basic: Secret,
    cache_for: Duration,
    /// The issuer's `max_token_lifetime`.
    max_lifetime: Option<Duration>,
    /// The endpoint: configured, or discovered, and when discovery was last tried.
    url: tokio::sync::Mutex<(Option<url::Url>, Option<Instant>)>,
    /// How its opaque tokens begin; empty: every opaque token no other issuer claims.
    prefixes: Vec<String>,
    /// Requests for tokens not in the cache that may still be sent.
    lookups: Mutex<Bucket>,
}

/// A token bucket: `per_second` requests a second, bursts of as many.
#[derive(Debug)]
struct Bucket {
    per_second: f64,
    left: f64,
    at: Instant,
}

impl Bucket {
    fn new(per_second: u32, now: Instant) -> Bucket {
        let per_second = f64::from(per_second.max(1));
        Bucket {
            per_second,
            left: per_second,
            at: now,
        }
    }

    /// Takes one request if one is left at `now`.
    fn take(&mut self, now: Instant) -> bool {
        let refill = now.saturating_duration_since(self.at).as_secs_f64() * self.per_second;
        self.left = (self.left + refill).min(self.per_second);
        self.at = self.at.max(now);
        if self.left < 1.0 {
            return false;
        }
        self.left -= 1.0;
        true
    }
}

#[derive(Debug, Clone)]
struct Answer {
    /// `None`: inactive or refused (the sentence is in `why`).
    claims: Option<Arc<Map<String, Value>>>,
    why: &'static str,
    until: Instant,
}

/// Asks the issuers about opaque tokens.
#[derive(Debug)]
pub struct Introspector {
    resource: String,
    endpoints: Vec<Endpoint>,
    cache: Mutex<HashMap<[u8; 32], Answer>>,
}

impl Introspector {
    /// The introspecting issuers of `issuers`; `None` when none introspects.
    pub fn new(resource: &str, issuers: &[IssuerConfig]) -> Option<Introspector> {
        use base64::Engine as _;
        let form = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
        let endpoints: Vec<Endpoint> = issuers
            .iter()
            .filter_map(|i| {
                let c = i.introspection.as_ref()?;
                let pair = format!("{}:{}", form(&c.client_id), form(&c.client_secret.0));
                Some(Endpoint {
                    issuer: i.issuer.clone(),
                    client: c.client_id.clone(),
                    basic: Secret(format!(
                        "Basic {}",
                        base64::engine::general_purpose::STANDARD.encode(pair)
                    )),
                    cache_for: c.cache_for,
                    max_lifetime: i.max_token_lifetime,
                    url: tokio::sync::Mutex::new((c.endpoint.clone(), None)),
                    prefixes: c.token_prefixes.clone(),
                    lookups: Mutex::new(Bucket::new(c.max_lookups_per_second, Instant::now())),
                })
            })
            .collect();
        (!endpoints.is_empty()).then(|| Introspector {
            resource: resource.to_string(),
            endpoints,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The claims of the opaque `token`, or why it is refused.
    pub async fn claims(
        &self,
        http: &reqwest::Client,
        token: &str,
        now_unix: u64,
    ) -> Result<Arc<Map<String, Value>>, &'static str> {
        let digest = crate::sha256(token.as_bytes());
        let now = Instant::now();
        if let Some(hit) = self.lock().get(&digest).cloned()
            && now < hit.until
        {
            return hit.claims.ok_or(hit.why);
        }
        let Some(endpoint) = self.owner(token) else {
            return Err("the token belongs to no issuer toolgate introspects");
        };
        if !endpoint
            .lookups
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take(now)
        {
            // Not cached: a refusal stays cheap, and the token is asked about once
            // the issuer's bucket refills.
            return Err("too many unknown tokens are being checked; retry shortly");
        }
        let answer = match self.ask(http, endpoint, token, now_unix).await {
            Ok((claims, ttl)) => Answer {
                claims: Some(Arc::new(claims)),
                why: "",
                until: now + ttl,
            },
            Err(why) => Answer {
                claims: None,
                why,
                until: now + NEGATIVE_TTL,
            },
        };
        let mut cache = self.lock();
        if cache.len() >= MAX_CACHED {
            // Made-up tokens are free to send and each leaves a refusal here: those go
            // first, so a flood of them cannot push out the agents' active answers and
            // send every real token back to the issuer.
            cache.retain(|_, a| now < a.until && a.claims.is_some());
            if cache.len() >= MAX_CACHED {
                cache.clear();
            }
        }
        cache.insert(digest, answer.clone());
        answer.claims.ok_or(answer.why)
    }

    /// The issuer `token` belongs to: the one whose prefix it starts with, else the one
    /// without prefixes.
    fn owner(&self, token: &str) -> Option<&Endpoint> {
        self.endpoints
            .iter()
            .find(|e| e.prefixes.iter().any(|p| token.starts_with(p.as_str())))
            .or_else(|| self.endpoints.iter().find(|e| e.prefixes.is_empty()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<[u8; 32], Answer>> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One issuer's answer: the claims and how long to reuse them.
    async fn ask(
        &self,
        http: &reqwest::Client,
        endpoint: &Endpoint,
        token: &str,
        now_unix: u64,
    ) -> Result<(Map<String, Value>, Duration), &'static str> {
        let url = endpoint_url(http, endpoint).await?;
        let form = url::form_urlencoded::Serializer::new(String::new())
            .append_pair("token", token)
            .append_pair("token_type_hint", "access_token")
            .finish();
        let doc = crate::fetch::post_form(http, &url, &endpoint.basic.0, form)
            .await
            .map_err(|e| {
                tracing::warn!(issuer = %endpoint.issuer, client = %endpoint.client, "token introspection failed: {e}");
                "the issuer's introspection endpoint did not answer"
            })?;
        let Value::Object(claims) = doc else {
            return Err("the issuer's introspection answer is not an object");
        };
        let mut claims = claims;
        check(&claims, &endpoint.issuer, &self.resource, now_unix)?;
        crate::profile::check_lifetime(&claims, now_unix, endpoint.max_lifetime)?;
        // The answer stands for the token's claims: it is this issuer's token even when
        // the answer leaves `iss` out, and an agent's `match.issuer` reads it.
        claims
            .entry("iss")
            .or_insert_with(|| Value::String(endpoint.issuer.clone()));
        let exp = crate::profile::numeric_date(&claims, "exp").unwrap_or(0);
        let left = Duration::from_secs(exp.saturating_sub(now_unix));
        Ok((claims, left.min(endpoint.cache_for)))
    }
}

/// The endpoint, discovered from the issuer's metadata when not configured (at most
/// once per [`DISCOVER_EVERY`] while discovery fails).
async fn endpoint_url(
    http: &reqwest::Client,
    endpoint: &Endpoint,
) -> Result<url::Url, &'static str> {
    let mut state = endpoint.url.lock().await;
    if let Some(url) = &state.0 {
        return Ok(url.clone());
    }
    let now = Instant::now();
    if state
        .1
        .is_some_and(|last| now.duration_since(last) < DISCOVER_EVERY)
    {
        return Err("the issuer's introspection endpoint is not known");
    }
    state.1 = Some(now);
    match crate::keys::discover(http, &endpoint.issuer, "introspection_endpoint").await {
        Ok(url) => {
            state.0 = Some(url.clone());
            Ok(url)
        }
        Err(e) => {
            tracing::warn!(issuer = %endpoint.issuer, "cannot find the issuer's introspection endpoint: {e}");
            Err("the issuer's introspection endpoint is not known")
        }
    }
}

/// Whether an introspection answer admits the token for `resource` at `now`.
pub fn check(
    claims: &Map<String, Value>,
    issuer: &str,
    resource: &str,
    now: u64,
) -> Result<(), &'static str> {
    if claims.get("active") != Some(&Value::Bool(true)) {
        return Err("the issuer says the token is not active");
    }
    if claims
        .get("token_type")
        .and_then(Value::as_str)
        .is_some_and(|t| t.eq_ignore_ascii_case("refresh_token"))
    {
        return Err("the token is a refresh token");
    }
    if let Some(iss) = claims.get("iss")
        && iss.as_str() != Some(issuer)
    {
        return Err("the token's issuer is not trusted");
    }
    let for_us = match claims.get("aud") {
        Some(Value::String(a)) => a == resource,
        Some(Value::Array(items)) => items.iter().any(|a| a.as_str() == Some(resource)),
        _ => false,
    };
    if !for_us {
        return Err("the token is for another resource (aud)");
    }
    let Some(exp) = crate::profile::numeric_date(claims, "exp") else {
        return Err("the token lacks exp, iss or aud");
    };
    if now > exp.saturating_add(LEEWAY_SECS) {
        return Err("the token has expired");
    }
    if claims.contains_key("nbf") || claims.contains_key("iat") {
        crate::profile::check_times(claims, now)?;
    }
    crate::profile::check_unbound(claims)?;
    if crate::profile::numeric_date(claims, "nbf")
        .is_some_and(|nbf| nbf > now.saturating_add(LEEWAY_SECS))
    {
        return Err("the token is not valid yet");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const R: &str = "https://tools.example.com/mcp";
    const ISS: &str = "https://login.example.com";

    fn answer(v: Value) -> Result<(), &'static str> {
        check(v.as_object().unwrap_or(&Map::new()), ISS, R, 1_000)
    }

    #[tokio::test]
    async fn a_flood_of_made_up_tokens_does_not_push_out_an_active_answer() {
        let _ = rustls::crypto::ring::default_provider().install_default();
        // Port 9 (discard) refuses the connection: every unknown token is refused.
        let issuer = IssuerConfig {
            issuer: ISS.into(),
            jwks_uri: None,
            introspection: Some(toolgate_config::Introspection {
                endpoint: Some(url::Url::parse("http://127.0.0.1:9/introspect").unwrap()),
                client_id: "toolgate".into(),
                client_secret: Secret("s3cret".into()),
                cache_for: Duration::from_secs(300),
                token_prefixes: Vec::new(),
                max_lookups_per_second: 20,
            }),
            max_token_lifetime: None,
        };
        let introspector = Introspector::new(R, &[issuer]).unwrap();
        let later = Instant::now() + Duration::from_secs(300);
        let active = Arc::new(json!({"sub": "alice"}).as_object().unwrap().clone());
        let agent = crate::sha256(b"alices-token");
        {
            let mut cache = introspector.lock();
            cache.insert(
                agent,
                Answer {
                    claims: Some(active),
                    why: "",
                    until: later,
                },
            );
            for i in 0..MAX_CACHED {
                cache.insert(
                    crate::sha256(format!("made-up-{i}").as_bytes()),
                    Answer {
                        claims: None,
                        why: "the issuer says the token is not active",
                        until: later,
                    },
                );
            }
        }
        let refused = introspector
            .claims(&reqwest::Client::new(), "one-more-made-up", 1_000)
            .await;
        assert!(refused.is_err());
        let cache = introspector.lock();
        assert!(cache.get(&agent).is_some_and(|a| a.claims.is_some()));
        assert!(cache.len() <= MAX_CACHED);
    }

    #[test]
    fn the_lookup_bucket_allows_its_rate_and_refills_with_time() {
        let start = Instant::now();
        let mut bucket = Bucket::new(3, start);
        let taken = (0..10).filter(|_| bucket.take(start)).count();
        assert_eq!(taken, 3);
        // A third of a second refills one request; a long pause never more than a
        // second's worth.
        assert!(bucket.take(start + Duration::from_millis(334)));
        assert!(!bucket.take(start + Duration::from_millis(334)));
        let later = start + Duration::from_secs(3600);
        assert_eq!((0..10).filter(|_| bucket.take(later)).count(), 3);
    }

    #[test]
    fn only_an_active_unexpired_access_token_for_this_resource_passes() {
        assert_eq!(
            answer(json!({"active": true, "aud": R, "exp": 2_000, "iss": ISS})),
            Ok(())
        );
        assert_eq!(
            answer(json!({"active": true, "aud": ["x", R], "exp": 2_000})),
            Ok(())
        );
        let refusals = [
            (json!({"active": false}), "not active"),
            (
                json!({"active": "true", "aud": R, "exp": 2_000}),
                "not active",
            ),
            (
                json!({"active": true, "aud": "https://other.example.com/mcp", "exp": 2_000}),
                "another resource",
            ),
            (json!({"active": true, "exp": 2_000}), "another resource"),
            (json!({"active": true, "aud": R}), "lacks exp"),
            (json!({"active": true, "aud": R, "exp": 100}), "expired"),
            (
                json!({"active": true, "aud": R, "exp": 2_000, "nbf": 1_900}),
                "not valid yet",
            ),
            (
                json!({"active": true, "aud": R, "exp": 2_000, "iss": "https://evil.example"}),
                "issuer",
            ),
            (
                json!({"active": true, "aud": R, "exp": 2_000, "token_type": "refresh_token"}),
                "refresh token",
            ),
            (
                json!({"active": true, "aud": R, "exp": 2_000, "nbf": "1900"}),
                "NumericDate",
            ),
            (
                json!({"active": true, "aud": R, "exp": 2_000, "cnf": {"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}}),
                "bearer tokens only",
            ),
        ];
        for (v, why) in refusals {
            let got = answer(v.clone()).unwrap_err();
            assert!(got.contains(why), "{v}: {got}");
        }
        // Within the leeway, an expired token still passes, as a JWT would.
        assert_eq!(
            answer(json!({"active": true, "aud": R, "exp": 990})),
            Ok(())
        );
    }
}
