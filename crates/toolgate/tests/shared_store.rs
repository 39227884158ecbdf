//! Three real toolgate replicas (the binary) sharing one real PostgreSQL, in front of a
//! loopback upstream that renames a field: the fleet does once what must happen once.

// A test that cannot set up its servers should fail loudly, so unwrap is the right tool.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::routing::{get, post};
use axum::{Json, Router};
use rmcp::model::CallToolRequestParams;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt};
use serde_json::{Value, json};
use toolgate_store::{Incident, PostgresStore};
use toolgate_test_support::TestPostgres;

/// The upstream: `/v3/search` and `/v3/news`, each renaming `snippet` to `excerpt` when
/// told; counts agent and probe requests per path.
#[derive(Default)]
struct Upstream {
    renamed: Mutex<HashMap<String, bool>>,
    hits: Mutex<HashMap<String, u64>>,
    probes: AtomicU64,
}

impl Upstream {
    fn rename(&self, path: &str, on: bool) {
        self.renamed.lock().unwrap().insert(path.to_string(), on);
    }
}

async fn start_upstream() -> (SocketAddr, Arc<Upstream>) {
    let state = Arc::new(Upstream::default());
    async fn answer(state: Arc<Upstream>, path: &str, q: HashMap<String, String>) -> Json<Value> {
        *state.hits.lock().unwrap().entry(path.into()).or_default() += 1;
        if q.get("q").is_some_and(|q| q == "contract probe") {
            state.probes.fetch_add(1, Ordering::SeqCst);
        }
        let renamed = state
            .renamed
            .lock()
            .unwrap()
            .get(path)
            .copied()
            .unwrap_or(false);
        let field = if renamed { "excerpt" } else { "snippet" };
        Json(json!({
            "query": q.get("q").cloned().unwrap_or_default(),
            "results": [{ "title": "The Rust Book", "url": "https://doc.rust-lang.org/book/", field: "Rust is fast" }]
        }))
    }
    let app = Router::new()
        .route(
            "/v3/search",
            get(
                |State(s): State<Arc<Upstream>>, Query(q): Query<HashMap<String, String>>| async move {
                    answer(s, "/v3/search", q).await
                },
            ),
        )
        .route(
            "/v3/news",
            get(
                |State(s): State<Arc<Upstream>>, Query(q): Query<HashMap<String, String>>| async move {
                    answer(s, "/v3/news", q).await
                },
            ),
        )
        .with_state(state.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (addr, state)
}

/// A webhook receiver keeping every body.
async fn start_receiver() -> (String, Arc<Mutex<Vec<Value>>>) {
    let bodies = Arc::new(Mutex::new(Vec::new()));
    let app = Router::new()
        .route(
            "/hook",
            post(
                |State(b): State<Arc<Mutex<Vec<Value>>>>, Json(body): Json<Value>| async move {
                    b.lock().unwrap().push(body);
                    "ok"
                },
            ),
        )
        .with_state(bodies.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), bodies)
}

fn tool(name: &str, path: &str, probe: Option<&str>) -> String {
    let probe = probe
        .map(|every| {
            format!("\n    probe: {{ every: {every}, arguments: {{ query: contract probe }} }}")
        })
        .unwrap_or_default();
    format!(
        r#"
  {name}:
    dependency: search_api
    owner: search-team@example.com
    description: Search.
    request: {{ method: GET, path: {path}, query: {{ q: "{{query}}" }} }}
    annotations: {{ readOnlyHint: true, idempotentHint: true }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}{probe}
    contract:
      version: "3.1"
      response_schema:
        type: object
        required: [results]
        properties:
          results:
            type: array
            items:
              type: object
              required: [title, url, snippet]
              properties:
                title: {{ type: string }}
                url: {{ type: string }}
                snippet: {{ type: string }}"#
    )
}

fn config(
    pg: &str,
    replica: usize,
    upstream: SocketAddr,
    hook: &str,
    probe: Option<&str>,
) -> String {
    format!(
        r#"gateway:
  state: "{pg}"
  replica: replica-{replica}
alerts:
  webhooks: [{{ url: "{hook}" }}]
dependencies:
  search_api:
    base_url: http://{upstream}
    timeout: 2s
tools:{}{}
"#,
        tool("web_search", "/v3/search", probe),
        tool("news_search", "/v3/news", None),
    )
}

fn temp_dir(name: &str) -> PathBuf {
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "toolgate-fleet-{name}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One replica: `toolgate serve` on a free loopback port.
struct Replica {
    child: Child,
    base: String,
    log: PathBuf,
    stopped: AtomicBool,
}

impl Replica {
    fn start(dir: &Path, n: usize, yaml: &str) -> Replica {
        let config = dir.join(format!("replica-{n}.yaml"));
        std::fs::write(&config, yaml).unwrap();
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen = format!("127.0.0.1:{port}");
        let log = dir.join(format!("replica-{n}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args([
                "serve",
                "--config",
                config.to_str().unwrap(),
                "--listen",
                &listen,
            ])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .env("NO_COLOR", "1")
            .spawn()
            .unwrap();
        Replica {
            child,
            base: format!("http://{listen}"),
            log,
            stopped: AtomicBool::new(false),
        }
    }

    async fn wait_healthy(&mut self) {
        toolgate_engine::tls::init();
        for _ in 0..600 {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "replica exited with {status}: {}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
            }
            if let Ok(r) = reqwest::get(format!("{}/healthz", self.base)).await
                && r.status().is_success()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{} did not answer /healthz", self.base);
    }

    async fn ready(&self) -> u16 {
        reqwest::get(format!("{}/readyz", self.base))
            .await
            .unwrap()
            .status()
            .as_u16()
    }

    /// Calls `tool` once through this replica's MCP endpoint; returns the text.
    async fn call(&self, tool: &str) -> (bool, String) {
        let transport = StreamableHttpClientTransport::from_uri(format!("{}/mcp", self.base));
        let client =
            ().serve_with_lifecycle(transport, ClientLifecycleMode::Initialize)
                .await
                .unwrap();
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = json!({ "query": "rust" }).as_object().cloned();
        let result = client.call_tool(params).await.unwrap();
        let v = serde_json::to_value(&result).unwrap();
        let text = v["content"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|c| c["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        let _ = client.cancel().await;
        (result.is_error == Some(true), text)
    }

    /// SIGTERM, then waits for the graceful exit (which flushes incidents and webhooks).
    async fn stop(&mut self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(status.success());
        for _ in 0..600 {
            if let Ok(Some(status)) = self.child.try_wait() {
                assert!(
                    status.success(),
                    "replica exited with {status}: {}",
                    std::fs::read_to_string(&self.log).unwrap_or_default()
                );
                self.stopped.store(true, Ordering::SeqCst);
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("replica did not stop on SIGTERM");
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if !self.stopped.load(Ordering::SeqCst) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

async fn fleet(
    pg: &TestPostgres,
    dir: &Path,
    upstream: SocketAddr,
    hook: &str,
    probe: Option<&str>,
) -> Vec<Replica> {
    let mut replicas: Vec<Replica> = (1..=3)
        .map(|n| Replica::start(dir, n, &config(&pg.url, n, upstream, hook, probe)))
        .collect();
    for r in &mut replicas {
        r.wait_healthy().await;
    }
    replicas
}

/// Polls `check` (about every 100 ms, for at most a minute) until it holds.
async fn eventually<F: std::future::Future<Output = bool>>(
    what: &str,
    mut check: impl FnMut() -> F,
) {
    for _ in 0..600 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("timed out waiting until {what}");
}

async fn open_incidents(store: &PostgresStore) -> Vec<Incident> {
    store.incidents(false).await.unwrap_or_default()
}

fn count_of(open: &[Incident], tool: &str) -> Vec<i64> {
    open.iter()
        .filter(|i| i.tool == tool && i.kind == "contract_drift")
        .map(|i| i.count)
        .collect()
}

/// Webhook bodies about `tool`'s drift incident.
fn deliveries(bodies: &Mutex<Vec<Value>>, tool: &str) -> Vec<Value> {
    bodies
        .lock()
        .unwrap()
        .iter()
        .filter(|b| b["incident"]["tool"] == tool && b["incident"]["kind"] == "contract_drift")
        .cloned()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_drift_seen_through_three_replicas_is_one_incident_and_one_webhook() {
    let pg = TestPostgres::start();
    let (upstream, api) = start_upstream().await;
    api.rename("/v3/search", true);
    let (hook, bodies) = start_receiver().await;
    let dir = temp_dir("drift");
    let mut replicas = fleet(&pg, &dir, upstream, &hook, None).await;

    // All three see the drift at once, twice each.
    for _ in 0..2 {
        let (a, b, c) = tokio::join!(
            replicas[0].call("web_search"),
            replicas[1].call("web_search"),
            replicas[2].call("web_search")
        );
        for (failed, text) in [a, b, c] {
            assert!(failed && text.contains("contract_drift"), "{text}");
        }
    }
    let store = PostgresStore::connect(&pg.url).await.unwrap();
    eventually("every sighting is in the shared store", || async {
        count_of(&open_incidents(&store).await, "web_search") == vec![6]
    })
    .await;
    for r in &mut replicas {
        r.stop().await;
    }
    let open = open_incidents(&store).await;
    assert_eq!(open.len(), 1, "one incident for the fleet: {open:?}");
    let sent = deliveries(&bodies, "web_search");
    assert_eq!(
        sent.len(),
        1,
        "one webhook delivery for the fleet: {sent:?}"
    );
    assert_eq!(sent[0]["event"], "opened");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_probe_runs_once_per_interval_for_the_fleet() {
    let pg = TestPostgres::start();
    let (upstream, api) = start_upstream().await;
    let (hook, _bodies) = start_receiver().await;
    let dir = temp_dir("probe");
    let mut replicas = fleet(&pg, &dir, upstream, &hook, Some("1s")).await;
    let before = api.probes.load(Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(5)).await;
    let probed = api.probes.load(Ordering::SeqCst) - before;
    // About 5 for the fleet; about 15 if each replica probed on its own. The bounds
    // leave room for a slow machine and the ±10 % jitter.
    assert!(
        (2..=8).contains(&probed),
        "{probed} probe requests in 5 s from three replicas probing every 1 s"
    );
    // The holder goes away: another replica takes over the probe.
    let store = PostgresStore::connect(&pg.url).await.unwrap();
    let results_before = store
        .probe_results("web_search".into())
        .await
        .unwrap()
        .len();
    assert!(
        results_before >= 2,
        "the probes were recorded: {results_before}"
    );
    for r in replicas.iter_mut().take(2) {
        r.stop().await;
    }
    let after_stop = api.probes.load(Ordering::SeqCst);
    eventually("the remaining replica probes", || async {
        api.probes.load(Ordering::SeqCst) >= after_stop + 2
    })
    .await;
    replicas[2].stop().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_postgres_restart_loses_and_duplicates_no_incident() {
    // Its own server, whatever TOOLGATE_TEST_POSTGRES says: this test stops it.
    let pg = TestPostgres::start_local();
    let (upstream, api) = start_upstream().await;
    api.rename("/v3/search", true);
    let (hook, bodies) = start_receiver().await;
    let dir = temp_dir("restart");
    let mut replicas = fleet(&pg, &dir, upstream, &hook, None).await;
    let store = PostgresStore::connect(&pg.url).await.unwrap();

    for r in &replicas {
        assert!(r.call("web_search").await.0);
    }
    eventually("the first drift is stored", || async {
        count_of(&open_incidents(&store).await, "web_search") == vec![3]
    })
    .await;

    // PostgreSQL goes away. Calls still answer at once (they never wait for the
    // store); what they raise waits in each replica's writer.
    pg.stop();
    api.rename("/v3/news", true);
    for r in &replicas {
        let (failed, text) = tokio::time::timeout(Duration::from_secs(30), r.call("news_search"))
            .await
            .expect("a call waited for the store");
        assert!(failed && text.contains("contract_drift"), "{text}");
        assert!(r.call("web_search").await.0);
    }
    assert_eq!(
        replicas[0].ready().await,
        503,
        "/readyz says the store is unavailable"
    );

    pg.start_again();
    eventually("the writes kept during the outage arrive", || async {
        let open = open_incidents(&store).await;
        count_of(&open, "news_search") == vec![3] && count_of(&open, "web_search") == vec![6]
    })
    .await;

    // A restart under load: pooled connections break and are replaced.
    pg.restart();
    for r in &replicas {
        assert!(r.call("web_search").await.0);
    }
    eventually("sightings after the restart arrive", || async {
        count_of(&open_incidents(&store).await, "web_search") == vec![9]
    })
    .await;
    for r in &replicas {
        let mut ready = 0;
        for _ in 0..100 {
            ready = r.ready().await;
            if ready == 200 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(ready, 200, "/readyz recovers with the store");
    }

    for r in &mut replicas {
        r.stop().await;
    }
    let open = open_incidents(&store).await;
    assert_eq!(open.len(), 2, "nothing lost, nothing duplicated: {open:?}");
    assert_eq!(store.incidents(true).await.unwrap().len(), 2);
    for tool in ["web_search", "news_search"] {
        let sent = deliveries(&bodies, tool);
        assert_eq!(sent.len(), 1, "{tool}: one webhook for the fleet: {sent:?}");
        assert_eq!(sent[0]["event"], "opened");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A TCP relay to `target` that can be frozen: it then holds every connection open and
/// passes nothing either way, as a database host that stopped answering does.
async fn freezable_relay(target: String) -> (SocketAddr, Arc<AtomicBool>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let frozen = Arc::new(AtomicBool::new(false));
    let f = frozen.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let target = target.clone();
            let frozen = f.clone();
            tokio::spawn(async move {
                let Ok(server) = tokio::net::TcpStream::connect(&target).await else {
                    return;
                };
                let (cr, cw) = client.into_split();
                let (sr, sw) = server.into_split();
                let pass = |mut from: tokio::net::tcp::OwnedReadHalf,
                            mut to: tokio::net::tcp::OwnedWriteHalf,
                            frozen: Arc<AtomicBool>| async move {
                    use tokio::io::{AsyncReadExt, AsyncWriteExt};
                    let mut buf = vec![0u8; 16 * 1024];
                    loop {
                        while frozen.load(Ordering::SeqCst) {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        let Ok(n) = from.read(&mut buf).await else {
                            return;
                        };
                        if n == 0 {
                            return;
                        }
                        // Read while thawed, held if frozen in the meantime.
                        while frozen.load(Ordering::SeqCst) {
                            tokio::time::sleep(Duration::from_millis(20)).await;
                        }
                        if to.write_all(&buf[..n]).await.is_err() {
                            return;
                        }
                    }
                };
                tokio::join!(pass(cr, sw, frozen.clone()), pass(sr, cw, frozen));
            });
        }
    });
    (addr, frozen)
}

/// The URL of `pg` through a [`freezable_relay`], and the relay's switch.
async fn behind_a_freezable_relay(pg: &TestPostgres) -> (reqwest::Url, Arc<AtomicBool>) {
    let mut url = reqwest::Url::parse(&pg.url).unwrap();
    let target = format!("{}:{}", url.host_str().unwrap(), url.port().unwrap_or(5432));
    let (relay, frozen) = freezable_relay(target).await;
    url.set_host(Some("127.0.0.1")).unwrap();
    url.set_port(Some(relay.port())).unwrap();
    (url, frozen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_that_stops_answering_fails_readiness_instead_of_hanging_it() {
    let pg = TestPostgres::start();
    let (url, frozen) = behind_a_freezable_relay(&pg).await;
    let (upstream, _api) = start_upstream().await;
    let (hook, _bodies) = start_receiver().await;
    let dir = temp_dir("stalled");
    let mut replica = Replica::start(&dir, 1, &config(url.as_str(), 1, upstream, &hook, None));
    replica.wait_healthy().await;
    assert_eq!(replica.ready().await, 200);

    frozen.store(true, Ordering::SeqCst);
    // Kubernetes gives a probe 1 s by default; a hung probe counts as failed too, but a
    // balancer or a person with curl waits for an answer.
    let answer = tokio::time::timeout(
        Duration::from_secs(5),
        reqwest::get(format!("{}/readyz", replica.base)),
    )
    .await
    .expect("/readyz answers while the store is silent")
    .unwrap();
    assert_eq!(answer.status(), 503);
    let text = answer.text().await.unwrap();
    assert!(text.contains("no answer within"), "{text}");

    frozen.store(false, Ordering::SeqCst);
    let mut ready = 0;
    for _ in 0..100 {
        ready = replica.ready().await;
        if ready == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ready, 200, "/readyz recovers when the store answers again");
    replica.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_statement_the_store_never_answers_fails_and_the_next_one_gets_a_fresh_connection() {
    let pg = TestPostgres::start();
    let (url, frozen) = behind_a_freezable_relay(&pg).await;
    let store = PostgresStore::connect(url.as_str()).await.unwrap();
    store.ping().await.unwrap();

    // The relay acknowledges and holds what it is sent, so no socket timeout fires: only
    // the store's own deadline for an answer ends the wait.
    frozen.store(true, Ordering::SeqCst);
    let silent = tokio::time::timeout(Duration::from_secs(60), store.incidents(false))
        .await
        .expect("a statement to a silent store ends with an error")
        .unwrap_err();
    assert!(silent.is_transient(), "{silent}");
    let text = silent.to_string();
    assert!(text.contains("no answer within"), "{text}");
    assert!(
        !text.contains(pg.url.as_str()),
        "no URL with its password: {text}"
    );

    // The frozen connection was closed rather than pooled: once the store answers
    // again, the next statement runs at once on a new one, not behind the late answer.
    frozen.store(false, Ordering::SeqCst);
    let open = tokio::time::timeout(Duration::from_secs(30), store.incidents(false))
        .await
        .expect("the store answers again")
        .unwrap();
    assert!(open.is_empty());
}
