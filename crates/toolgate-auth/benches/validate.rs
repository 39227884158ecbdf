//! What validating an access token costs per request: a JWT (ES256 and EdDSA) with its
//! issuer's key already cached, and an opaque token whose introspection answer is
//! cached, against the check without auth and the shared-token check, in one run.

#![allow(clippy::unwrap_used, missing_docs)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::Router;
use axum::routing::get;
use base64::Engine as _;
use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, Ed25519KeyPair, KeyPair};
use serde_json::json;
use toolgate_auth::Authenticator;

const RESOURCE: &str = "https://tools.example.com/mcp";

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

fn authenticator(yaml_gateway: &str) -> Authenticator {
    let yaml = format!(
        "gateway:\n{yaml_gateway}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /x }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n\
         agents:\n  reporting-bot:\n    match: {{ sub: reporting-bot }}\n"
    );
    let yaml = if yaml_gateway.contains("auth:") {
        yaml
    } else {
        yaml.replace(
            "agents:\n  reporting-bot:\n    match: { sub: reporting-bot }\n",
            "",
        )
    };
    let env = |_: &str| Some("s3cret-shared-token".to_string());
    let config = toolgate_config::parse(
        std::path::Path::new("b.yaml"),
        &yaml,
        std::path::Path::new("."),
        &env,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let _ = rustls::crypto::ring::default_provider().install_default();
    Authenticator::new(&config.gateway, &config.agents, reqwest::Client::new())
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let rng = SystemRandom::new();
    let ec_pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let ec = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, ec_pkcs8.as_ref(), &rng)
        .unwrap();
    let ed_pkcs8 = Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
    let ed = Ed25519KeyPair::from_pkcs8(ed_pkcs8.as_ref()).unwrap();
    let point = ec.public_key().as_ref().to_vec();
    let jwks = json!({"keys": [
        {"kty": "EC", "crv": "P-256", "kid": "ec", "x": b64(&point[1..33]), "y": b64(&point[33..65])},
        {"kty": "OKP", "crv": "Ed25519", "kid": "ed", "x": b64(ed.public_key().as_ref())}
    ]});
    let listener = rt
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let issuer = format!("http://{}", listener.local_addr().unwrap());
    let exp = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;
    let active = json!({"active": true, "aud": RESOURCE, "client_id": "reporting-client",
                        "sub": "reporting-bot", "exp": exp, "scope": "tools:call"});
    let app = Router::new()
        .route(
            "/jwks",
            get(move || async move { axum::Json(jwks.clone()) }),
        )
        .route(
            "/introspect",
            axum::routing::post(move || async move { axum::Json(active.clone()) }),
        );
    rt.spawn(async move { axum::serve(listener, app).await });

    let claims = json!({"iss": issuer, "aud": RESOURCE, "sub": "reporting-bot", "exp": exp, "scope": "tools:call"});
    let sign = |alg, kid: &str, key: &EncodingKey| {
        let mut h = Header::new(alg);
        h.kid = Some(kid.into());
        format!("Bearer {}", jsonwebtoken::encode(&h, &claims, key).unwrap())
    };
    let es256 = sign(
        Algorithm::ES256,
        "ec",
        &EncodingKey::from_ec_der(ec_pkcs8.as_ref()),
    );
    let eddsa = sign(
        Algorithm::EdDSA,
        "ed",
        &EncodingKey::from_ed_der(ed_pkcs8.as_ref()),
    );

    let oauth = authenticator(&format!(
        "  auth:\n    resource: {RESOURCE}\n    issuers:\n      - issuer: {issuer}\n        jwks_uri: {issuer}/jwks\n        introspection: {{ endpoint: {issuer}/introspect, client_id: toolgate, client_secret_env: S }}\n    scopes: [tools:call]\n"
    ));
    let opaque = "Bearer 2YotnFZFEjr1zCsicMWpAA-an-opaque-access-token".to_string();
    // Warm the caches: the benchmark measures a request with the key (or the
    // introspection answer) already held.
    for token in [&es256, &eddsa, &opaque] {
        let id = rt.block_on(oauth.authenticate(Some(token))).unwrap();
        assert_eq!(id.name(), "reporting-bot");
    }
    let open = authenticator("  listen: 127.0.0.1:8765\n");
    let shared = authenticator("  auth_token_env: T\n");

    let mut g = c.benchmark_group("authenticate");
    g.measurement_time(Duration::from_secs(3));
    g.bench_function("no auth", |b| {
        b.iter(|| {
            rt.block_on(open.authenticate(std::hint::black_box(None::<&str>)))
                .unwrap()
        })
    });
    g.bench_function("shared token", |b| {
        b.iter(|| {
            rt.block_on(
                shared.authenticate(std::hint::black_box(Some("Bearer s3cret-shared-token"))),
            )
            .unwrap()
        })
    });
    g.bench_function("jwt ES256 cached key", |b| {
        b.iter(|| {
            rt.block_on(oauth.authenticate(std::hint::black_box(Some(&es256))))
                .unwrap()
        })
    });
    g.bench_function("jwt EdDSA cached key", |b| {
        b.iter(|| {
            rt.block_on(oauth.authenticate(std::hint::black_box(Some(&eddsa))))
                .unwrap()
        })
    });
    g.bench_function("opaque token, cached introspection", |b| {
        b.iter(|| {
            rt.block_on(oauth.authenticate(std::hint::black_box(Some(&opaque))))
                .unwrap()
        })
    });
    // The first use of a token: its signature and claims checked with the cached key.
    let validator = oauth.oauth().unwrap();
    let (es256_raw, eddsa_raw) = (&es256["Bearer ".len()..], &eddsa["Bearer ".len()..]);
    g.bench_function("jwt ES256 signature, cached key", |b| {
        b.iter(|| {
            rt.block_on(validator.verify(std::hint::black_box(es256_raw)))
                .unwrap()
        })
    });
    g.bench_function("jwt EdDSA signature, cached key", |b| {
        b.iter(|| {
            rt.block_on(validator.verify(std::hint::black_box(eddsa_raw)))
                .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
