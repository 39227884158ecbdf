//! Access tokens against a real JWKS served over HTTP by a test authorization server:
//! keys this test generates, tokens it signs, and the forgeries a resource server must
//! refuse.

#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use base64::Engine as _;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use serde_json::{Value, json};
mod common;

use common::ONE_TOOL;
use toolgate_auth::{Authenticator, Refusal};

const RESOURCE: &str = "https://tools.example.com/mcp";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

/// A signing key of the test's own.
struct SigningKey {
    kid: String,
    alg: Algorithm,
    encoding: EncodingKey,
    jwk: Value,
}

fn es256(kid: &str) -> SigningKey {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref();
    SigningKey {
        kid: kid.into(),
        alg: Algorithm::ES256,
        encoding: EncodingKey::from_ec_der(pkcs8.as_ref()),
        jwk: json!({"kty": "EC", "crv": "P-256", "kid": kid, "use": "sig",
                    "x": b64(&point[1..33]), "y": b64(&point[33..65])}),
    }
}

fn ed25519(kid: &str) -> SigningKey {
    let rng = SystemRandom::new();
    let pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let pair = Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
    SigningKey {
        kid: kid.into(),
        alg: Algorithm::EdDSA,
        encoding: EncodingKey::from_ed_der(pkcs8.as_ref()),
        jwk: json!({"kty": "OKP", "crv": "Ed25519", "kid": kid, "alg": "EdDSA",
                    "x": b64(pair.public_key().as_ref())}),
    }
}

/// The test authorization server: RFC 8414 metadata and a JWKS that can be rotated;
/// counts the JWKS fetches.
#[derive(Clone)]
struct Issuer {
    url: String,
    jwks: Arc<Mutex<Value>>,
    fetches: Arc<AtomicUsize>,
}

async fn issuer(keys: &[&SigningKey]) -> Issuer {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let state = Issuer {
        url: url.clone(),
        jwks: Arc::new(Mutex::new(
            json!({"keys": keys.iter().map(|k| k.jwk.clone()).collect::<Vec<_>>()}),
        )),
        fetches: Arc::new(AtomicUsize::new(0)),
    };
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            get(|State(s): State<Issuer>| async move {
                axum::Json(
                    json!({"issuer": s.url, "jwks_uri": format!("{}/jwks", s.url),
                                  "token_endpoint": format!("{}/token", s.url)}),
                )
            }),
        )
        .route(
            "/jwks",
            get(|State(s): State<Issuer>| async move {
                s.fetches.fetch_add(1, Ordering::SeqCst);
                axum::Json(s.jwks.lock().unwrap().clone())
            }),
        )
        .with_state(state.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    state
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

fn claims(iss: &str) -> Value {
    json!({"iss": iss, "aud": RESOURCE, "sub": "reporting-bot", "client_id": "reporting-client",
           "exp": now() + 600, "iat": now(), "scope": "tools:call openid"})
}

fn sign(key: &SigningKey, claims: &Value) -> String {
    let mut header = Header::new(key.alg);
    header.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&header, claims, &key.encoding).unwrap()
}

fn authenticator(iss: &str, extra: &str, refetch: Duration) -> Authenticator {
    authenticator_of(iss, "", extra, refetch)
}

/// The same, with `issuer_extra` (indented lines) in the issuer's entry.
fn authenticator_of(
    iss: &str,
    issuer_extra: &str,
    extra: &str,
    refetch: Duration,
) -> Authenticator {
    let yaml = format!(
        "gateway:\n  auth:\n    resource: {RESOURCE}\n    issuers:\n      - issuer: {iss}\n{issuer_extra}    scopes: [tools:call]\n{extra}\
         {ONE_TOOL}\
         agents:\n  reporting-bot:\n    match: {{ sub: reporting-bot }}\n  keyed:\n    api_key_sha256: {}\n",
        toolgate_auth::sha256_hex(b"tg_live_example_key")
    );
    let config = common::config(&yaml, &|_| None);
    let http = reqwest::Client::builder().build().unwrap();
    Authenticator::with_refetch_every(&config.gateway, &config.agents, http, refetch)
}

/// The test's usual authenticator, whose fetched keys are old at once: every token
/// fetches the issuer's keys again (the age and the refetch spacing are both zero).
fn authenticator_with_aging_keys(iss: &str) -> Authenticator {
    let yaml = format!(
        "gateway:\n  auth:\n    resource: {RESOURCE}\n    issuers:\n      - issuer: {iss}\n    scopes: [tools:call]\n\
         {ONE_TOOL}\
         agents:\n  reporting-bot:\n    match: {{ sub: reporting-bot }}\n"
    );
    let config = common::config(&yaml, &|_| None);
    let http = reqwest::Client::builder().build().unwrap();
    Authenticator::with_key_timing(
        &config.gateway,
        &config.agents,
        http,
        Duration::ZERO,
        Duration::ZERO,
    )
}

async fn check(a: &Authenticator, token: &str) -> Result<String, Refusal> {
    a.authenticate(Some(&format!("Bearer {token}")))
        .await
        .map(|id| id.name().to_string())
}

#[tokio::test]
async fn a_valid_token_names_its_agent_and_the_keys_are_fetched_once() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    assert_eq!(
        check(&a, &sign(&key, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
    let mut other = claims(&is.url);
    other["sub"] = json!("someone-else");
    assert_eq!(check(&a, &sign(&key, &other)).await, Ok("anonymous".into()));
    // An audience list that contains the resource is fine (RFC 9068 allows several).
    let mut several = claims(&is.url);
    several["aud"] = json!(["https://other.example.com", RESOURCE]);
    assert_eq!(
        check(&a, &sign(&key, &several)).await,
        Ok("reporting-bot".into())
    );
    assert_eq!(is.fetches.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn eddsa_keys_verify_too() {
    let key = ed25519("ed");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    assert_eq!(
        check(&a, &sign(&key, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
}

#[tokio::test]
async fn a_rotated_key_is_fetched_when_a_token_names_it() {
    let old = es256("old");
    let is = issuer(&[&old]).await;
    // Refetches allowed at once: this test is about rotation, the next about the limit.
    let a = authenticator(&is.url, "", Duration::ZERO);
    assert_eq!(
        check(&a, &sign(&old, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
    let new = es256("new");
    *is.jwks.lock().unwrap() = json!({"keys": [new.jwk.clone()]});
    assert_eq!(
        check(&a, &sign(&new, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
    assert_eq!(is.fetches.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn tokens_naming_unknown_keys_cannot_make_toolgate_flood_the_issuer() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    assert!(check(&a, &sign(&key, &claims(&is.url))).await.is_ok());
    for i in 0..200 {
        let forged = es256(&format!("random-{i}"));
        assert_eq!(
            check(&a, &sign(&forged, &claims(&is.url))).await,
            Err(Refusal::Invalid(
                "the token's signing key is not one of the issuer's keys"
            ))
        );
    }
    // The first fetch, then at most one more within the limit's window.
    assert!(
        is.fetches.load(Ordering::SeqCst) <= 2,
        "{}",
        is.fetches.load(Ordering::SeqCst)
    );
}

#[tokio::test]
async fn expired_future_wrong_audience_and_wrong_issuer_are_refused() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    let mut expired = claims(&is.url);
    expired["exp"] = json!(now() - 120);
    assert_eq!(
        check(&a, &sign(&key, &expired)).await,
        Err(Refusal::Invalid("the token has expired"))
    );
    // Within the 60 s leeway an expiry is still accepted (clocks differ).
    let mut just = claims(&is.url);
    just["exp"] = json!(now() - 5);
    assert!(check(&a, &sign(&key, &just)).await.is_ok());
    let mut early = claims(&is.url);
    early["nbf"] = json!(now() + 600);
    assert_eq!(
        check(&a, &sign(&key, &early)).await,
        Err(Refusal::Invalid("the token is not valid yet"))
    );
    let mut elsewhere = claims(&is.url);
    elsewhere["aud"] = json!("https://other-resource.example.com/mcp");
    assert_eq!(
        check(&a, &sign(&key, &elsewhere)).await,
        Err(Refusal::Invalid("the token is for another resource (aud)"))
    );
    let mut no_aud = claims(&is.url);
    no_aud.as_object_mut().unwrap().remove("aud");
    assert!(check(&a, &sign(&key, &no_aud)).await.is_err());
    // Signed with the trusted key, but claiming another issuer; and a foreign issuer.
    assert_eq!(
        check(&a, &sign(&key, &claims("https://evil.example.com"))).await,
        Err(Refusal::Invalid("the token's issuer is not trusted"))
    );
    let mut trailing = claims(&is.url);
    trailing["iss"] = json!(format!("{}/", is.url));
    assert_eq!(
        check(&a, &sign(&key, &trailing)).await,
        Err(Refusal::Invalid("the token's issuer is not trusted"))
    );
}

#[tokio::test]
async fn alg_none_hmac_with_the_public_key_and_bad_signatures_are_refused() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    let payload = b64(claims(&is.url).to_string().as_bytes());
    for header in [
        json!({"alg": "none", "typ": "JWT", "kid": "k1"}),
        json!({"alg": "None", "kid": "k1"}),
    ] {
        let token = format!("{}.{payload}.", b64(header.to_string().as_bytes()));
        assert!(
            matches!(check(&a, &token).await, Err(Refusal::Invalid(_))),
            "{header}"
        );
    }
    // HS256 keyed with what the public key is published as: its JWK, and its point.
    let point = [
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(key.jwk["x"].as_str().unwrap())
            .unwrap(),
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(key.jwk["y"].as_str().unwrap())
            .unwrap(),
    ]
    .concat();
    for secret in [key.jwk.to_string().into_bytes(), point] {
        let mut header = Header::new(Algorithm::HS256);
        header.kid = Some("k1".into());
        let token = jsonwebtoken::encode(
            &header,
            &claims(&is.url),
            &EncodingKey::from_secret(&secret),
        )
        .unwrap();
        assert_eq!(
            check(&a, &token).await,
            Err(Refusal::Invalid(
                "the token's signature algorithm is not allowed (asymmetric algorithms only)"
            ))
        );
    }
    // A valid token with its payload swapped: the signature no longer matches.
    let good = sign(&key, &claims(&is.url));
    let mut forged_claims = claims(&is.url);
    forged_claims["sub"] = json!("admin");
    let parts: Vec<&str> = good.split('.').collect();
    let forged = format!(
        "{}.{}.{}",
        parts[0],
        b64(forged_claims.to_string().as_bytes()),
        parts[2]
    );
    assert_eq!(
        check(&a, &forged).await,
        Err(Refusal::Invalid("the token's signature is invalid"))
    );
    // ES256 header on an EdDSA-only kid: no key of that algorithm.
    assert!(check(&a, "not-a-jwt").await.is_err());
    assert_eq!(
        a.authenticate(None::<&str>).await.map(|_| ()),
        Err(Refusal::Missing)
    );
}

#[tokio::test]
async fn a_token_living_longer_than_its_issuers_bound_is_refused() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator_of(
        &is.url,
        "        max_token_lifetime: 1h\n",
        "",
        Duration::from_secs(10),
    );
    // A ten-minute token passes; one minted for a year is refused with the reason,
    // whether it says when it was issued or not.
    assert_eq!(
        check(&a, &sign(&key, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
    let mut year = claims(&is.url);
    year["exp"] = json!(now() + 365 * 86_400);
    let refusal = check(&a, &sign(&key, &year)).await.unwrap_err();
    assert_eq!(
        refusal,
        Refusal::Invalid(
            "the token lives longer (exp - iat) than its issuer's max_token_lifetime allows"
        )
    );
    assert_eq!(refusal.status(), 401);
    assert!(a.challenge(&refusal).contains("error=\"invalid_token\""));
    // Issued a day ago and expiring in ten minutes: the issuer minted it for a day.
    let mut old = claims(&is.url);
    old["iat"] = json!(now() - 86_400);
    assert!(check(&a, &sign(&key, &old)).await.is_err());
    let mut no_iat = year.clone();
    no_iat.as_object_mut().unwrap().remove("iat");
    assert!(matches!(
        check(&a, &sign(&key, &no_iat)).await,
        Err(Refusal::Invalid(why)) if why.contains("no iat")
    ));
    // Without the setting the same year-long token is accepted.
    let unbounded = authenticator(&is.url, "", Duration::from_secs(10));
    assert!(check(&unbounded, &sign(&key, &year)).await.is_ok());
}

#[tokio::test]
async fn a_token_without_the_required_scope_is_refused_with_403() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    let mut narrow = claims(&is.url);
    narrow["scope"] = json!("openid profile");
    let refusal = check(&a, &sign(&key, &narrow)).await.unwrap_err();
    assert_eq!(refusal, Refusal::InsufficientScope);
    assert_eq!(refusal.status(), 403);
    let challenge = a.challenge(&refusal);
    assert!(
        challenge.contains("error=\"insufficient_scope\""),
        "{challenge}"
    );
    assert!(challenge.contains("scope=\"tools:call\""), "{challenge}");
    assert!(
        challenge.contains("resource_metadata=\"https://tools.example.com/.well-known/oauth-protected-resource/mcp\""),
        "{challenge}"
    );
    // `scp` as a list (some providers) counts as well.
    let mut scp = claims(&is.url);
    scp.as_object_mut().unwrap().remove("scope");
    scp["scp"] = json!(["tools:call"]);
    assert!(check(&a, &sign(&key, &scp)).await.is_ok());
    // No token: 401 without an `error` (RFC 6750 §3.1).
    let missing = a.challenge(&Refusal::Missing);
    assert!(!missing.contains("error="), "{missing}");
    assert!(
        missing.starts_with("Bearer resource_metadata="),
        "{missing}"
    );
}

#[tokio::test]
async fn unmatched_callers_are_refused_when_configured_so() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "    unmatched: refuse\n", Duration::from_secs(10));
    let mut other = claims(&is.url);
    other["sub"] = json!("someone-else");
    assert_eq!(
        check(&a, &sign(&key, &other)).await,
        Err(Refusal::UnknownAgent)
    );
    assert_eq!(
        check(&a, &sign(&key, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
}

#[tokio::test]
async fn an_api_key_is_matched_by_its_hash() {
    let a = authenticator("https://login.example.com", "", Duration::from_secs(10));
    assert_eq!(check(&a, "tg_live_example_key").await, Ok("keyed".into()));
    assert!(matches!(
        check(&a, "tg_live_example_kez").await,
        Err(Refusal::Invalid(_))
    ));
    assert!(matches!(
        check(&a, &toolgate_auth::sha256_hex(b"tg_live_example_key")).await,
        Err(Refusal::Invalid(_))
    ));
}

/// A token with a header of the test's own making (fields `Header` has no place for).
fn sign_with_header(key: &SigningKey, mut header: Value, claims: &Value) -> String {
    header["alg"] = json!("ES256");
    header["kid"] = json!(key.kid);
    let message = format!(
        "{}.{}",
        b64(header.to_string().as_bytes()),
        b64(claims.to_string().as_bytes())
    );
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &key.encoding, key.alg).unwrap();
    format!("{message}.{signature}")
}

#[tokio::test]
async fn a_token_with_critical_header_extensions_is_refused() {
    // RFC 7515 §4.1.11: extensions named in `crit` must be understood or the token is
    // invalid; toolgate understands none (RFC 7797's unencoded payload is one).
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    for header in [
        json!({"crit": ["urn:example:policy"], "urn:example:policy": "require-mfa"}),
        json!({"crit": ["b64"], "b64": false}),
        json!({"crit": []}),
    ] {
        let token = sign_with_header(&key, header.clone(), &claims(&is.url));
        assert!(
            matches!(check(&a, &token).await, Err(Refusal::Invalid(why)) if why.contains("crit")),
            "{header}"
        );
    }
    let plain = sign_with_header(&key, json!({}), &claims(&is.url));
    assert_eq!(check(&a, &plain).await, Ok("reporting-bot".into()));
}

#[tokio::test]
async fn a_jwt_typed_as_another_kind_of_token_is_not_an_access_token() {
    // RFC 8725 §3.11 and RFC 9068 §4: a DPoP proof or a logout token the same issuer
    // signed for the same audience must not pass as an access token.
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    for typ in ["JWT", "at+jwt", "application/at+jwt", "AT+JWT"] {
        let token = sign_with_header(&key, json!({"typ": typ}), &claims(&is.url));
        assert_eq!(check(&a, &token).await, Ok("reporting-bot".into()), "{typ}");
    }
    for typ in ["dpop+jwt", "logout+jwt", "secevent+jwt"] {
        let token = sign_with_header(&key, json!({"typ": typ}), &claims(&is.url));
        assert!(
            matches!(check(&a, &token).await, Err(Refusal::Invalid(why)) if why.contains("typ")),
            "{typ}"
        );
    }
}

#[tokio::test]
async fn times_that_are_not_numbers_or_lie_ahead_are_refused() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    // An `nbf` an hour ahead, written so a reader that wants a number skips it.
    for nbf in [
        json!((now() + 3600).to_string()),
        json!({"at": now() + 3600}),
        json!(true),
    ] {
        let mut early = claims(&is.url);
        early["nbf"] = nbf.clone();
        assert!(
            matches!(
                check(&a, &sign(&key, &early)).await,
                Err(Refusal::Invalid(_))
            ),
            "{nbf}"
        );
    }
    let mut unreadable_iat = claims(&is.url);
    unreadable_iat["iat"] = json!("yesterday");
    assert!(check(&a, &sign(&key, &unreadable_iat)).await.is_err());
    let mut not_issued_yet = claims(&is.url);
    not_issued_yet["iat"] = json!(now() + 3600);
    assert_eq!(
        check(&a, &sign(&key, &not_issued_yet)).await,
        Err(Refusal::Invalid("the token was issued in the future (iat)"))
    );
}

#[tokio::test]
async fn a_token_with_a_fractional_exp_passes_every_time_until_it_expires() {
    // RFC 7519 NumericDates may have fractions; the first check and the cached ones
    // must agree on when the token expires.
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    let mut fractional = claims(&is.url);
    fractional["exp"] = json!(now() as f64 + 600.5);
    let token = sign(&key, &fractional);
    for _ in 0..3 {
        assert_eq!(check(&a, &token).await, Ok("reporting-bot".into()));
    }
}

/// Keys and key locations a token names for itself (RFC 8725 §3.10, the `jwk`, `jku`
/// and `x5u` header parameters of RFC 7515, and a `kid` shaped as a path or a query)
/// are never used: only the trusted issuer's published keys verify, so a token signed
/// with the caller's own key is refused however its header points at that key.
#[tokio::test]
async fn keys_a_token_names_for_itself_are_never_used() {
    let trusted = es256("k1");
    let is = issuer(&[&trusted]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    let mut attacker = es256("k1");
    for header in [
        json!({"jwk": attacker.jwk}),
        json!({"jku": format!("{}/attacker-jwks", is.url)}),
        json!({"x5u": "https://attacker.example/cert.pem"}),
        json!({"x5c": ["MIIBszCCAVmgAwIBAgIUQ"]}),
    ] {
        let token = sign_with_header(&attacker, header.clone(), &claims(&is.url));
        assert_eq!(
            check(&a, &token).await,
            Err(Refusal::Invalid("the token's signature is invalid")),
            "{header}"
        );
    }
    for kid in [
        "../../../../dev/null",
        "k1' OR '1'='1",
        "/proc/self/environ",
        "",
    ] {
        attacker.kid = kid.into();
        let token = sign_with_header(&attacker, json!({}), &claims(&is.url));
        assert!(
            matches!(check(&a, &token).await, Err(Refusal::Invalid(_))),
            "{kid}"
        );
    }
    // The issuer's own key still verifies.
    assert_eq!(
        check(&a, &sign(&trusted, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
}

/// An audience is this gateway's resource exactly (RFC 8707, RFC 9068 §4): a token for a
/// neighbouring resource (another path, a trailing slash, another scheme, the origin
/// alone) is for another resource.
#[tokio::test]
async fn an_audience_that_only_resembles_the_resource_is_another_resource() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    for aud in [
        json!("https://tools.example.com/mcp/"),
        json!("https://tools.example.com"),
        json!("http://tools.example.com/mcp"),
        json!("https://tools.example.com/mcp/admin"),
        json!("https://tools.example.com.evil.example/mcp"),
        json!(["https://other.example.com/mcp"]),
        json!([]),
    ] {
        let mut c = claims(&is.url);
        c["aud"] = aud.clone();
        assert!(
            matches!(check(&a, &sign(&key, &c)).await, Err(Refusal::Invalid(_))),
            "{aud}"
        );
    }
    // One audience among several, the gateway's included, is for it.
    let mut c = claims(&is.url);
    c["aud"] = json!(["https://other.example.com/mcp", RESOURCE]);
    assert_eq!(check(&a, &sign(&key, &c)).await, Ok("reporting-bot".into()));
}

/// A token nested thousands of levels deep, in its header or its claims, within the
/// size bound, is refused with a sentence: no reading of it recurses without limit.
#[tokio::test]
async fn a_deeply_nested_token_is_refused_without_a_crash() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
    let header = format!(r#"{{"alg":"ES256","kid":"k1","x":{deep}}}"#);
    let payload = format!(r#"{{"iss":"{}","aud":"{RESOURCE}","x":{deep}}}"#, is.url);
    for (h, p) in [
        (header.as_str(), r#"{"iss":"x"}"#),
        (r#"{"alg":"ES256","kid":"k1"}"#, payload.as_str()),
    ] {
        let token = format!("{}.{}.c2ln", b64(h.as_bytes()), b64(p.as_bytes()));
        assert!(
            token.len() <= toolgate_auth::jwt::MAX_TOKEN_BYTES,
            "{}",
            token.len()
        );
        assert!(matches!(check(&a, &token).await, Err(Refusal::Invalid(_))));
    }
}

/// A key the issuer takes out of its JWKS (a compromised key, withdrawn without a new
/// one: nimbus-jose-jwt issue 278, Auth0's "revoke signing key") stops verifying once
/// the cached keys are old, though every token names a key the cache holds — tokens
/// already verified and cached included. A rotation that keeps the old key listed, and
/// an issuer that answers with no key set at all, leave the keys in use.
#[tokio::test]
async fn a_key_the_issuer_withdrew_stops_verifying_once_the_keys_are_old() {
    let withdrawn = es256("k1");
    let kept = es256("k2");
    let is = issuer(&[&withdrawn, &kept]).await;
    let a = authenticator_with_aging_keys(&is.url);
    let cached = sign(&withdrawn, &claims(&is.url));
    assert_eq!(check(&a, &cached).await, Ok("reporting-bot".into()));
    // An answer that is no key set (an error page, a maintenance `{}`) withdraws nothing.
    *is.jwks.lock().unwrap() = json!({"error": "temporarily_unavailable"});
    assert_eq!(check(&a, &cached).await, Ok("reporting-bot".into()));
    *is.jwks.lock().unwrap() = json!({"keys": [kept.jwk.clone()]});
    let fresh = sign(&withdrawn, &claims(&is.url));
    for token in [&cached, &fresh] {
        assert_eq!(
            check(&a, token).await,
            Err(Refusal::Invalid(
                "the token's signing key is not one of the issuer's keys"
            ))
        );
    }
    assert_eq!(
        check(&a, &sign(&kept, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
}

/// With the default age, keys are fetched once and serve many tokens: the aging costs
/// the issuer nothing per call.
#[tokio::test]
async fn keys_younger_than_their_age_are_not_fetched_again() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::ZERO);
    for i in 0..20 {
        let mut c = claims(&is.url);
        c["jti"] = json!(i);
        assert_eq!(check(&a, &sign(&key, &c)).await, Ok("reporting-bot".into()));
    }
    assert_eq!(is.fetches.load(Ordering::SeqCst), 1);
}

/// `key_ops` limits a key to the operations it lists (RFC 7517 §4.3): a key published
/// for encryption only never verifies a token, while the lists real providers publish
/// for signing keys (`["verify"]`, and `["sign"]` as Azure AD B2C writes it) do.
#[tokio::test]
async fn a_key_whose_key_ops_exclude_signatures_never_verifies() {
    let mut encrypting = es256("enc-only");
    encrypting.jwk["key_ops"] = json!(["encrypt", "wrapKey"]);
    encrypting.jwk.as_object_mut().unwrap().remove("use");
    let mut verifying = es256("verify");
    verifying.jwk["key_ops"] = json!(["verify"]);
    let mut b2c = es256("b2c");
    b2c.jwk["key_ops"] = json!(["sign"]);
    let is = issuer(&[&encrypting, &verifying, &b2c]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    assert_eq!(
        check(&a, &sign(&encrypting, &claims(&is.url))).await,
        Err(Refusal::Invalid(
            "the token's signing key is not one of the issuer's keys"
        ))
    );
    for key in [&verifying, &b2c] {
        assert_eq!(
            check(&a, &sign(key, &claims(&is.url))).await,
            Ok("reporting-bot".into()),
            "{}",
            key.kid
        );
    }
}

/// A token its issuer bound to a key (`cnf`: a DPoP key thumbprint, RFC 9449; a client
/// certificate's, RFC 8705) is worthless to a thief without that key; toolgate checks
/// no proof of possession, so it refuses such a token rather than take it as a bearer
/// token. The same token without `cnf` passes.
#[tokio::test]
async fn a_token_bound_to_a_key_is_refused_as_a_bearer_token() {
    let key = es256("k1");
    let is = issuer(&[&key]).await;
    let a = authenticator(&is.url, "", Duration::from_secs(10));
    for cnf in [
        json!({"jkt": "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"}),
        json!({"x5t#S256": "bwcK0esc3ACC3DB2Y5_lESsXE8o9ltc05O89jdN-dg2"}),
    ] {
        let mut c = claims(&is.url);
        c["cnf"] = cnf.clone();
        let refusal = check(&a, &sign(&key, &c)).await.unwrap_err();
        assert_eq!(refusal.status(), 401, "{cnf}");
        assert!(refusal.message().contains("bearer tokens only"), "{cnf}");
    }
    assert_eq!(
        check(&a, &sign(&key, &claims(&is.url))).await,
        Ok("reporting-bot".into())
    );
}
