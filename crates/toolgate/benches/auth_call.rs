//! What an authenticated call costs over an unauthenticated one, whole: a stateless
//! 2026-07-28 `tools/call` through toolgate's routes (admission, dispatch, the pipeline,
//! a loopback HTTP upstream, the answer), once on a gateway without `gateway.auth` and
//! once on one that checks an ES256 JWT access token whose issuer's key is cached
//! (`gateway.auth`; the token itself is seen again, as a client's next calls are). Same
//! run, same upstream, same tool. Goal: under 10 µs added per call.

// A benchmark's setup failing should stop it, so unwrap is the right tool here.
#![allow(clippy::unwrap_used, missing_docs)]

use std::time::{SystemTime, UNIX_EPOCH};

use axum::routing::get;
use axum::{Json, Router};
use base64::Engine as _;
use criterion::{Criterion, criterion_group, criterion_main};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};
use serde_json::json;
use tokio_util::sync::CancellationToken;
use toolgate_server::server::Routes;

const RESOURCE: &str = "https://tools.example.com/mcp";
const CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"web_search","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

async fn serve(app: Router) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

fn router(auth: &str, upstream: &str, dir: &std::path::Path) -> Routes {
    let yaml = format!(
        "gateway:\n  state: {}\n{auth}dependencies:\n  api: {{ base_url: \"{upstream}\" }}\ntools:\n  web_search:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /search }}\n    annotations: {{ readOnlyHint: true }}\n    contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n",
        dir.join("state.db").display()
    );
    let config = toolgate_config::parse(
        std::path::Path::new("b.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let store = toolgate_store::Store::open(&config.gateway.state).unwrap();
    let gateway = toolgate_engine::gateway::Gateway::new(config, store).unwrap();
    toolgate_server::server::router(gateway, CancellationToken::new(), None)
}

fn request(bearer: Option<&str>) -> axum::http::Request<axum::body::Body> {
    let mut r = axum::http::Request::post("/mcp")
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "web_search");
    if let Some(token) = bearer {
        r = r.header("authorization", format!("Bearer {token}"));
    }
    r.body(axum::body::Body::from(CALL)).unwrap()
}

async fn call(router: &Routes, bearer: Option<&str>) {
    let response = router.answer(request(bearer)).await;
    assert_eq!(response.status(), 200);
    let body = axum::body::to_bytes(response.into_body(), 1 << 20)
        .await
        .unwrap();
    let ok = b"\"isError\":false";
    assert!(
        body.windows(ok.len()).any(|w| w == ok),
        "{}",
        String::from_utf8_lossy(&body)
    );
}

fn bench(c: &mut Criterion) {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let pair =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng).unwrap();
    let point = pair.public_key().as_ref().to_vec();
    let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
    let jwks = json!({"keys": [{"kty": "EC", "crv": "P-256", "kid": "k1", "alg": "ES256",
                               "x": b64(&point[1..33]), "y": b64(&point[33..65])}]});
    let (upstream, issuer) = rt.block_on(async {
        let upstream =
            serve(Router::new().route("/search", get(|| async { Json(json!({"results": []})) })))
                .await;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let metadata = json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")});
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                get(move || async move { Json(metadata.clone()) }),
            )
            .route("/jwks", get(move || async move { Json(jwks.clone()) }));
        tokio::spawn(async move { axum::serve(listener, app).await });
        (upstream, issuer)
    });
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let mut header = Header::new(Algorithm::ES256);
    header.kid = Some("k1".into());
    let claims = json!({"iss": issuer, "aud": RESOURCE, "sub": "reporting-bot",
                        "exp": now + 3600, "scope": "tools:call"});
    let token =
        jsonwebtoken::encode(&header, &claims, &EncodingKey::from_ec_der(pkcs8.as_ref())).unwrap();

    let dir = std::env::temp_dir().join(format!("toolgate-bench-auth-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("open")).unwrap();
    std::fs::create_dir_all(dir.join("auth")).unwrap();
    let (open, authenticated) = rt.block_on(async {
        (
            router("", &upstream, &dir.join("open")),
            router(
                &format!("  auth:\n    resource: {RESOURCE}\n    issuers: [{{ issuer: \"{issuer}\" }}]\n    scopes: [tools:call]\n"),
                &upstream,
                &dir.join("auth"),
            ),
        )
    });
    // The first authenticated call fetches the issuer's keys; later ones reuse them.
    rt.block_on(call(&open, None));
    rt.block_on(call(&authenticated, Some(&token)));
    // Without a token the authenticated gateway refuses: the comparison is honest.
    let refused = rt.block_on(authenticated.answer(request(None)));
    assert_eq!(refused.status(), 401);

    let mut group = c.benchmark_group("auth_call");
    group.bench_function("no_auth", |b| b.iter(|| rt.block_on(call(&open, None))));
    group.bench_function("jwt_es256_key_cached", |b| {
        b.iter(|| rt.block_on(call(&authenticated, Some(&token))))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
