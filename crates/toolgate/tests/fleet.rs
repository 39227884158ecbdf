//! Three real toolgate replicas (the binary) sharing one real redis-server
//! (`gateway.shared`), agents spread over them, in front of a loopback GitHub-style
//! upstream with a quota of 20 requests per 2 s window.

// A test that cannot set up its sockets should fail loudly, so unwrap is the right tool here.
#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "e2e/harness.rs"]
mod harness;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use harness::{Era, call, metric, rmcp_client, temp_dir, text};
use toolgate_test_support::RedisServer;

const LIMIT: u64 = 20;
const WINDOW_MS: u64 = 2000;

/// A GitHub-style API: 20 requests per 2 s window (windows aligned to even epoch
/// seconds), `x-ratelimit-*` on every answer, 429 with `remaining: 0` beyond the quota.
#[derive(Default)]
struct Api {
    /// (window, requests in it).
    window: std::sync::Mutex<(u64, u64)>,
    requests: AtomicU64,
    /// Requests answered 429 (the ones toolgate exists to avoid).
    refused: AtomicU64,
    /// Requests answered 500 while down.
    failed: AtomicU64,
    down: AtomicBool,
    /// The account behind the calls is spent: every request is refused for it.
    spent: AtomicBool,
}

async fn repo(State(api): State<Arc<Api>>) -> Response {
    api.requests.fetch_add(1, Ordering::SeqCst);
    if api.spent.load(Ordering::SeqCst) {
        // As OpenAI refuses a spent account
        // (https://platform.openai.com/docs/guides/error-codes), stating no renewal.
        let body = json!({"error": {
            "message": "You exceeded your current quota, please check your plan and billing details.",
            "type": "insufficient_quota", "code": "insufficient_quota"}});
        return (StatusCode::TOO_MANY_REQUESTS, Json(body)).into_response();
    }
    let now_ms = u64::try_from(
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap();
    let w = now_ms / WINDOW_MS;
    let used = {
        let mut g = api.window.lock().unwrap();
        if g.0 != w {
            *g = (w, 0);
        }
        g.1 += 1;
        g.1
    };
    let reset = (w + 1) * WINDOW_MS / 1000;
    let mut headers = HeaderMap::new();
    let remaining = LIMIT.saturating_sub(used);
    let h = |v: u64| HeaderValue::from_str(&v.to_string()).unwrap();
    headers.insert("x-ratelimit-limit", h(LIMIT));
    headers.insert("x-ratelimit-remaining", h(remaining));
    headers.insert("x-ratelimit-used", h(used.min(LIMIT)));
    headers.insert("x-ratelimit-reset", h(reset));
    headers.insert("x-ratelimit-resource", HeaderValue::from_static("core"));
    if used > LIMIT {
        api.refused.fetch_add(1, Ordering::SeqCst);
        return (
            StatusCode::TOO_MANY_REQUESTS,
            headers,
            Json(json!({"message": "API rate limit exceeded"})),
        )
            .into_response();
    }
    if api.down.load(Ordering::SeqCst) {
        api.failed.fetch_add(1, Ordering::SeqCst);
        return (StatusCode::INTERNAL_SERVER_ERROR, headers, "boom").into_response();
    }
    (headers, Json(json!({"name": "toolgate", "stars": 42}))).into_response()
}

async fn start_api() -> (SocketAddr, Arc<Api>) {
    let api = Arc::new(Api::default());
    let app = Router::new()
        .route("/repo", get(repo))
        .with_state(api.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, api)
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `toolgate serve` as a child process.
struct Replica {
    child: Child,
    base: String,
    url: String,
}

impl Drop for Replica {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A replica sharing `redis`; its store is `state` (a `postgres://` URL shared by the
/// fleet), or its own SQLite file when `None`.
fn start_replica(
    dir: &Path,
    n: usize,
    api: SocketAddr,
    redis: &str,
    state: Option<&str>,
) -> Replica {
    start_replica_with(dir, n, api, redis, state, "")
}

/// [`start_replica`], with `extra` (one more setting, or nothing) on the dependency.
fn start_replica_with(
    dir: &Path,
    n: usize,
    api: SocketAddr,
    redis: &str,
    state: Option<&str>,
    extra: &str,
) -> Replica {
    let yaml = format!(
        r#"
gateway:
  state: {state}
  shared: {redis}
  replica: r{n}
dependencies:
  gh:
    base_url: http://{api}
    timeout: 2s
    {extra}
    retry: {{ max_attempts: 2, base_delay: 10ms, max_delay: 50ms }}
tools:
  get_repo:
    dependency: gh
    owner: platform@example.com
    request: {{ path: /repo }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [name] }} }}
"#,
        state = state.map_or_else(
            || dir.join(format!("state-{n}.db")).display().to_string(),
            str::to_string
        )
    );
    let config = dir.join(format!("toolgate-{n}.yaml"));
    std::fs::write(&config, yaml).unwrap();
    let listen = format!("127.0.0.1:{}", free_port());
    let child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["serve", "--config", config.to_str().unwrap()])
        .args(["--listen", &listen])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(dir.join(format!("toolgate-{n}.log"))).unwrap())
        .env("NO_COLOR", "1")
        .spawn()
        .unwrap();
    let replica = Replica {
        child,
        base: format!("http://{listen}"),
        url: format!("http://{listen}/mcp"),
    };
    for _ in 0..600 {
        if healthz(&listen) {
            return replica;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("replica {n} did not become healthy");
}

fn healthz(addr: &str) -> bool {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return false;
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(1)));
    if s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .is_err()
    {
        return false;
    }
    let mut out = String::new();
    s.read_to_string(&mut out).is_ok() && out.starts_with("HTTP/1.1 200")
}

async fn metrics(r: &Replica) -> String {
    toolgate_engine::tls::init();
    reqwest::get(format!("{}/metrics", r.base))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Waits (bounded, generously) until every replica's gauge reads `up`.
async fn wait_gauge(replicas: &[Replica], up: f64) {
    for _ in 0..300 {
        let mut all = true;
        for r in replicas {
            all &= metric(&metrics(r).await, "toolgate_shared_state_up") == up;
        }
        if all {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("toolgate_shared_state_up never became {up} on every replica");
}

/// `per_agent` calls from each of two agents per replica, concurrently; returns the
/// texts of every answer (error answers start with "get_repo failed" / "was not called").
async fn run_agents(replicas: &[Replica], per_agent: usize) -> Vec<(bool, String)> {
    let mut tasks = Vec::new();
    for r in replicas {
        for _ in 0..2 {
            let url = r.url.clone();
            tasks.push(tokio::spawn(async move {
                let client = rmcp_client(&url, Era::Stateless).await;
                let mut out = Vec::new();
                for _ in 0..per_agent {
                    let res = call(&client, "get_repo", json!({})).await;
                    out.push((res.is_error != Some(true), text(&res)));
                }
                drop(client);
                out
            }));
        }
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_replicas_share_quota_and_keep_serving_when_redis_dies() {
    // The whole fleet set-up: Redis for quota and breaker, PostgreSQL as the one store.
    // The Redis URL holds a password: it must never reach a log.
    let mut redis = RedisServer::start_with_password("fleet-secret-7f3a");
    let pg = toolgate_test_support::TestPostgres::start();
    let (api_addr, api) = start_api().await;
    let dir = temp_dir("fleet-quota");
    let replicas: Vec<Replica> = (0..3)
        .map(|n| start_replica(&dir, n, api_addr, &redis.url(), Some(&pg.url)))
        .collect();
    wait_gauge(&replicas, 1.0).await;

    // 120 calls from six agents over three replicas: not one request the upstream refuses.
    let answers = run_agents(&replicas, 20).await;
    assert_eq!(answers.len(), 120);
    assert_eq!(
        api.refused.load(Ordering::SeqCst),
        0,
        "the fleet sent requests beyond the advertised quota"
    );
    let ok = answers.iter().filter(|(ok, _)| *ok).count();
    // Calls are paced (they wait for the window), not refused: a call's 30 s deadline
    // covers every wait here.
    assert_eq!(ok, 120, "{:?}", answers.iter().find(|(ok, _)| !ok));
    // The quota really was the constraint: more than one window's worth went through.
    assert!(api.requests.load(Ordering::SeqCst) > 2 * LIMIT);

    // Redis dies mid-run, with calls in flight: every replica falls back to its local
    // state and says so; no call fails because of it. (Three local pacers may together
    // overspend the quota meanwhile, as without Redis: a refusal the upstream sends then
    // is an honest rate_limited answer, not a failure Redis caused.)
    let (during, ()) = tokio::join!(run_agents(&replicas, 10), async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        redis.kill();
    });
    let failed: Vec<&String> = during
        .iter()
        .filter(|(ok, _)| !ok)
        .map(|(_, t)| t)
        .collect();
    assert!(
        failed.iter().all(|t| t.contains("rate_limited")),
        "a call failed because Redis went down: {failed:?}"
    );
    assert!(
        failed.len() <= 10,
        "{} of 60 failed: {failed:?}",
        failed.len()
    );
    wait_gauge(&replicas, 0.0).await;

    // Redis returns: every replica shares again.
    redis.restart();
    wait_gauge(&replicas, 1.0).await;
    // A window with nothing sent, so the local phase's requests are all forgotten.
    tokio::time::sleep(Duration::from_millis(2 * WINDOW_MS)).await;
    let refused_before = api.refused.load(Ordering::SeqCst);
    let again = run_agents(&replicas, 10).await;
    assert_eq!(
        api.refused.load(Ordering::SeqCst),
        refused_before,
        "after Redis returned the fleet overspent the quota"
    );
    assert_eq!(
        again.iter().filter(|(ok, _)| *ok).count(),
        60,
        "{:?}",
        again.iter().find(|(ok, _)| !ok)
    );
    assert!(
        redis
            .command("HEXISTS toolgate:{gh}:quota core")
            .starts_with(":1"),
        "the fleet's quota is in Redis again"
    );
    // Each replica said so once per change, not once per call, and never the URL.
    for n in 0..3 {
        let log = std::fs::read_to_string(dir.join(format!("toolgate-{n}.log"))).unwrap();
        assert!(
            !log.contains("fleet-secret-7f3a"),
            "replica {n} logged the password"
        );
        assert_eq!(
            log.matches("shared state (Redis) unreachable").count(),
            1,
            "{log}"
        );
        assert_eq!(
            log.matches("shared state (Redis) reachable").count(),
            2,
            "{log}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dependency_that_goes_down_opens_every_replicas_breaker() {
    let redis = RedisServer::start();
    let (api_addr, api) = start_api().await;
    let dir = temp_dir("fleet-breaker");
    let replicas: Vec<Replica> = (0..3)
        .map(|n| start_replica(&dir, n, api_addr, &redis.url(), None))
        .collect();
    wait_gauge(&replicas, 1.0).await;
    api.down.store(true, Ordering::SeqCst);
    let answers = run_agents(&replicas, 10).await;
    assert!(answers.iter().all(|(ok, _)| !ok));
    // The fleet trips on 5 consecutive failures; what was in flight then (one attempt
    // per agent: 6) may still fail. Each replica alone would need 5 of its own (15 in
    // all before the last opened), and the breaker stays open (15 s) past this run,
    // so no probe goes: at most 5 + 6 requests for the fleet, then one probe per open
    // period.
    let failed = api.failed.load(Ordering::SeqCst);
    assert!(
        failed <= 11,
        "{failed} requests reached a dependency known down"
    );
    // At least one reached it. Not five: on a stalled machine an attempt's own deadline
    // can pass before its request is read, and the fleet counts that timeout among the
    // five failures that open the breaker.
    assert!(failed >= 1);
    for r in &replicas {
        let m = metrics(r).await;
        assert_eq!(
            metric(&m, "toolgate_circuit_state{dependency=\"gh\"}"),
            1.0,
            "every replica's breaker is open"
        );
    }
    let open = answers
        .iter()
        .filter(|(_, t)| t.contains("Error class: circuit_open"))
        .count();
    assert!(open >= 60 - 11, "{open} of 60 answers were circuit_open");

    // Past the open period (15 s from the trip, which came before the run ended), the
    // fleet half-opens: eighteen calls from six agents over three replicas send one
    // probe between them. It fails, so the breaker reopens (for 30 s) for everyone.
    tokio::time::sleep(Duration::from_secs(16)).await;
    let before = api.failed.load(Ordering::SeqCst);
    let probing = run_agents(&replicas, 3).await;
    assert!(probing.iter().all(|(ok, _)| !ok));
    assert_eq!(
        api.failed.load(Ordering::SeqCst) - before,
        1,
        "one half-open probe for the whole fleet"
    );
}

fn signals(r: &rmcp::model::CallToolResult) -> serde_json::Value {
    let meta = serde_json::to_value(r.meta.clone().unwrap()).unwrap();
    meta["dev.toolgate/signals"].clone()
}

/// A note on a held call, without the time left, which differs by when it was asked.
fn held_note(t: &str) -> &str {
    t.split(" before ").next().unwrap_or(t)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_account_refused_on_one_replica_is_held_on_every_replica_with_one_trial() {
    let redis = RedisServer::start();
    let (api_addr, api) = start_api().await;
    api.spent.store(true, Ordering::SeqCst);
    let dir = temp_dir("fleet-account-hold");
    let replicas: Vec<Replica> = (0..2)
        .map(|n| start_replica_with(&dir, n, api_addr, &redis.url(), None, "account_hold: 5s"))
        .collect();
    wait_gauge(&replicas, 1.0).await;
    let (a, b) = (
        rmcp_client(&replicas[0].url, Era::Stateless).await,
        rmcp_client(&replicas[1].url, Era::Stateless).await,
    );
    let first = call(&a, "get_repo", json!({})).await;
    assert_eq!(
        signals(&first)["error_class"],
        "account",
        "{}",
        text(&first)
    );
    assert_eq!(api.requests.load(Ordering::SeqCst), 1);
    // The refusal reaches Redis in the background, within a few milliseconds.
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    while !redis
        .command("EXISTS toolgate:{gh}:account_held")
        .starts_with(":1")
    {
        assert!(
            tokio::time::Instant::now() < until,
            "the hold never reached Redis"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The replica that saw nothing sends nothing, and says what the other says.
    let on_a = text(&call(&a, "get_repo", json!({})).await);
    for _ in 0..5 {
        let r = call(&b, "get_repo", json!({})).await;
        let s = signals(&r);
        assert_eq!(s["error_class"], "account", "{s}");
        assert_eq!(s["attempts"], 0, "{s}");
        assert!(s["retry_after_s"].as_u64().is_some_and(|w| w <= 5), "{s}");
        let t = text(&r);
        assert!(
            t.contains("holds back") && t.contains("sent nothing"),
            "{t}"
        );
        assert_eq!(held_note(&t), held_note(&on_a));
    }
    assert_eq!(
        api.requests.load(Ordering::SeqCst),
        1,
        "held calls never went"
    );
    // After the hold, one trial for the fleet: refused, every replica is held again.
    // (The hold is 5 s so that the six calls below fit inside the next one even on a
    // loaded machine; with 2 s a stall let a second, rightful trial through.)
    tokio::time::sleep(Duration::from_millis(5200)).await;
    for _ in 0..3 {
        for client in [&a, &b] {
            let _ = call(client, "get_repo", json!({})).await;
        }
    }
    assert_eq!(
        api.requests.load(Ordering::SeqCst),
        2,
        "one trial call for the whole fleet"
    );
    // Topped up: the next trial passes, and with it every replica's calls.
    api.spent.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(5200)).await;
    let trial = call(&b, "get_repo", json!({})).await;
    assert_eq!(trial.is_error, Some(false), "{}", text(&trial));
    let until = tokio::time::Instant::now() + Duration::from_secs(10);
    while !redis
        .command("EXISTS toolgate:{gh}:account_held")
        .starts_with(":0")
    {
        assert!(tokio::time::Instant::now() < until, "the hold never ended");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for client in [&a, &b] {
        let r = call(client, "get_repo", json!({})).await;
        assert_eq!(r.is_error, Some(false), "{}", text(&r));
    }
}
