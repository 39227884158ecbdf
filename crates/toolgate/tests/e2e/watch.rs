//! Nothing fails silently: probes find drift with no agent traffic, owners are told,
//! `toolgate probe` fails CI, webhooks never slow calls, and version gating works.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::{get, post};
use serde_json::{Value, json};
use tokio::process::Command;

use crate::harness::*;

/// A webhook receiver: records bodies; answers with `status`, after `hang` if set.
#[derive(Default)]
struct Receiver {
    bodies: Mutex<Vec<Value>>,
    in_flight: AtomicU64,
}

async fn start_receiver(status: StatusCode, hang: Option<Duration>) -> (String, Arc<Receiver>) {
    let rx = Arc::new(Receiver::default());
    let app = Router::new()
        .route(
            "/hook",
            post(
                move |State(rx): State<Arc<Receiver>>, body: axum::Json<Value>| async move {
                    rx.bodies.lock().unwrap().push(body.0);
                    rx.in_flight.fetch_add(1, Ordering::SeqCst);
                    if let Some(h) = hang {
                        tokio::time::sleep(h).await;
                    }
                    rx.in_flight.fetch_sub(1, Ordering::SeqCst);
                    status
                },
            ),
        )
        .with_state(rx.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}/hook"), rx)
}

async fn eventually<F: std::future::Future<Output = bool>>(
    what: &str,
    mut check: impl FnMut() -> F,
) {
    for _ in 0..100 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting until {what}");
}

fn with_alerts(config: String, hook: &str, probe_every: &str) -> String {
    let config = config.replace(
        "    input_schema: { type: object, required: [query], properties: { query: { type: string } } }",
        &format!(
            "    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}\n    probe: {{ every: {probe_every}, arguments: {{ query: contract probe }} }}"
        ),
    );
    format!("alerts:\n  webhooks: [{{ url: \"{hook}\" }}]\n{config}")
}

#[tokio::test]
async fn a_probe_finds_drift_with_no_agent_traffic_and_tells_the_owner() {
    let upstream = start_upstream().await;
    let (hook, rx) = start_receiver(StatusCode::OK, None).await;
    let dir = temp_dir("probe");
    let yaml = with_alerts(
        core_config(upstream.addr, &dir.join("state.db")),
        &hook,
        "1s",
    );
    let tg = start_toolgate(&yaml).await;

    // The first probe passes.
    eventually("the first probe ran", || async {
        upstream.state.hits("/v3/search") >= 1
    })
    .await;
    assert_eq!(
        metric(
            &tg.metrics().await,
            "toolgate_probe_success{tool=\"web_search\"}"
        ),
        1.0
    );

    // The upstream renames the field; no agent calls anything.
    upstream.state.renamed.store(true, Ordering::SeqCst);
    let store = tg.gateway.store().clone();
    eventually("a drift incident exists", || {
        let store = store.clone();
        async move {
            store
                .incidents(false)
                .await
                .unwrap()
                .iter()
                .any(|i| i.kind == "contract_drift")
        }
    })
    .await;
    let incident = tg
        .incidents(false)
        .await
        .into_iter()
        .find(|i| i.kind == "contract_drift")
        .unwrap();
    assert!(
        incident.title.contains("results[].snippet")
            && incident.title.contains("results[].excerpt"),
        "{}",
        incident.title
    );
    assert!(
        incident.detail["changes"]
            .as_array()
            .is_some_and(|c| !c.is_empty())
    );

    // The owner hears about it once, by webhook.
    assert!(tg.gateway.incidents().flush(Duration::from_secs(5)).await);
    // (Only the drift counts: on a loaded machine a slow probe may also page once.)
    let bodies: Vec<Value> = rx
        .bodies
        .lock()
        .unwrap()
        .iter()
        .filter(|b| b["incident"]["kind"] == "contract_drift")
        .cloned()
        .collect();
    assert_eq!(bodies.len(), 1, "{bodies:?}");
    assert_eq!(bodies[0]["event"], "opened");
    assert_eq!(bodies[0]["owner"], "alice@example.com");
    assert!(
        bodies[0]["text"]
            .as_str()
            .unwrap()
            .contains("alice@example.com")
    );

    let metrics = tg.metrics().await;
    assert_eq!(
        metric(&metrics, "toolgate_probe_success{tool=\"web_search\"}"),
        0.0
    );
    assert!(
        !metrics.contains("toolgate_tool_calls_total{tool=\"web_search\""),
        "probe traffic is not user traffic:\n{metrics}"
    );

    // `toolgate probe --format junit` fails CI with the diff.
    let file = dir.join("toolgate.yaml");
    std::fs::write(&file, yaml.replace("state.db", "cli-state.db")).unwrap();
    // Async: the upstream it probes runs on this test's runtime.
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["probe", "--format", "junit", "--config"])
        .arg(&file)
        .output()
        .await
        .unwrap();
    let junit = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "exit 1 on drift; stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        junit.contains("<failure type=\"contract_drift\"") && junit.contains("results[].excerpt"),
        "{junit}"
    );
}

#[tokio::test]
async fn a_failing_webhook_neither_slows_calls_nor_goes_unrecorded() {
    let upstream = start_upstream().await;
    let (hang_hook, hanging) = start_receiver(StatusCode::OK, Some(Duration::from_secs(30))).await;
    let (down_hook, _) = start_receiver(StatusCode::INTERNAL_SERVER_ERROR, None).await;
    let dir = temp_dir("webhook");
    let yaml = format!(
        "alerts:\n  webhooks: [{{ url: \"{hang_hook}\" }}, {{ url: \"{down_hook}\" }}]\n{}",
        core_config(upstream.addr, &dir.join("state.db"))
    );
    let tg = start_toolgate(&yaml).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    upstream.state.renamed.store(true, Ordering::SeqCst);
    let r = call(&client, "web_search", json!({ "query": "rust" })).await;
    assert_eq!(r.is_error, Some(true));
    // The call has returned; the hanging webhook is still being delivered.
    eventually("the hanging receiver holds the notification", || async {
        hanging.in_flight.load(Ordering::SeqCst) >= 1
    })
    .await;
    let again = call(&client, "web_search", json!({ "query": "rust" })).await;
    assert_eq!(
        again.is_error,
        Some(true),
        "calls keep flowing while a webhook hangs"
    );
    // The receiver that answers 500 ends in a dead letter.
    let store = tg.gateway.store().clone();
    eventually("a dead letter is recorded", || {
        let store = store.clone();
        async move {
            store
                .dead_letters()
                .await
                .unwrap()
                .iter()
                .any(|d| d.2 == "HTTP 500")
        }
    })
    .await;
    client.cancel().await.unwrap();
}

async fn versioned_upstream(version: Arc<Mutex<String>>) -> std::net::SocketAddr {
    let app = Router::new().route(
        "/items",
        get(move || {
            let v = version.lock().unwrap().clone();
            async move { ([("api-version", v)], axum::Json(json!({ "items": [] }))) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

async fn gating(
    gate: &str,
) -> (
    Vec<rmcp::model::CallToolResult>,
    Vec<toolgate_store::Incident>,
) {
    let version = Arc::new(Mutex::new("2.0".to_string()));
    let addr = versioned_upstream(version.clone()).await;
    let dir = temp_dir("gate");
    let yaml = format!(
        r#"
gateway: {{ state: {state} }}
dependencies:
  api:
    base_url: http://{addr}
    version: {{ header: API-Version, gate: {gate} }}
tools:
  items:
    dependency: api
    owner: dana@example.com
    request: {{ path: /items }}
    contract: {{ version: "2.0", response_schema: {{ type: object, required: [items] }} }}
"#,
        state = dir.join("s.db").display()
    );
    let tg = start_toolgate(&yaml).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let mut results = vec![call(&client, "items", json!({})).await];
    *version.lock().unwrap() = "2.1".into();
    results.push(call(&client, "items", json!({})).await);
    results.push(call(&client, "items", json!({})).await);
    let incidents = tg.incidents(false).await;
    client.cancel().await.unwrap();
    (results, incidents)
}

#[tokio::test]
async fn a_newer_upstream_version_warns_the_owner() {
    let (results, incidents) = gating("warn").await;
    assert!(
        results.iter().all(|r| r.is_error == Some(false)),
        "warn mode keeps calling"
    );
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0].kind, "wrapper_outdated");
    assert!(
        incidents[0].title.contains("v2.0") && incidents[0].title.contains("v2.1"),
        "{}",
        incidents[0].title
    );
}

#[tokio::test]
async fn a_newer_upstream_version_is_refused_when_the_gate_says_so() {
    let (results, incidents) = gating("refuse").await;
    assert_eq!(results[0].is_error, Some(false));
    for r in &results[1..] {
        assert_eq!(r.is_error, Some(true));
        let t = text(r);
        assert!(
            t.contains("v2.1") && t.contains("dana@example.com") && t.contains("contract_drift"),
            "{t}"
        );
    }
    assert_eq!(
        incidents
            .iter()
            .filter(|i| i.kind == "wrapper_outdated")
            .count(),
        1
    );
}

#[tokio::test]
async fn probe_without_probe_sections_calls_the_read_only_tools_that_need_no_argument() {
    let upstream = start_upstream().await;
    let dir = temp_dir("probe-fallback");
    // As an imported config is: no `probe:` section anywhere.
    let file = dir.join("toolgate.yaml");
    std::fs::write(&file, core_config(upstream.addr, &dir.join("state.db"))).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["probe", "--format", "json", "--config"])
        .arg(&file)
        .output()
        .await
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no tool in"), "{stderr}");
    assert!(
        stderr.contains("read-only tools that need no argument"),
        "{stderr}"
    );
    let reports: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    let probed: Vec<&str> = reports.iter().filter_map(|r| r["tool"].as_str()).collect();
    // Read-only and no required argument: probed. `web_search` requires `query`;
    // `delete_thing` is not read-only: neither is called.
    assert!(probed.contains(&"flaky_status"), "{probed:?}");
    assert!(!probed.contains(&"web_search"), "{probed:?}");
    assert!(!probed.contains(&"delete_thing"), "{probed:?}");
    assert_eq!(upstream.state.hits("/v3/search"), 0);
}
