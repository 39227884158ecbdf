//! An upstream whose every reply drifts under a map key it never used before: through
//! real sockets, the store and the incident writer, it opens a bounded number of
//! incidents, and a breakage of another tool is still recorded beside them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use serde_json::json;

use crate::harness::*;

/// `/rates`: a rate as a string under a key new on every reply. `/search`: a reply whose
/// `snippet` is renamed, the same breakage every time.
async fn drifting_upstream() -> std::net::SocketAddr {
    async fn rates(State(n): State<Arc<AtomicU64>>) -> axum::Json<serde_json::Value> {
        let key = format!("K{}", n.fetch_add(1, Ordering::SeqCst));
        axum::Json(json!({ "rates": { key: "1.08" } }))
    }
    async fn search() -> axum::Json<serde_json::Value> {
        axum::Json(json!({ "results": [{ "title": "a", "excerpt": "b" }] }))
    }
    let app = Router::new()
        .route("/rates", get(rates))
        .route("/search", get(search))
        .with_state(Arc::new(AtomicU64::new(0)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

#[tokio::test]
async fn replies_drifting_a_new_way_each_time_leave_another_tools_incident_recorded() {
    let upstream = drifting_upstream().await;
    let dir = temp_dir("crowded-incidents");
    let yaml = format!(
        r#"
gateway:
  state: {state}
dependencies:
  fx_api: {{ base_url: "http://{upstream}" }}
tools:
  rates:
    dependency: fx_api
    owner: fx-team@example.com
    request: {{ method: GET, path: /rates }}
    contract:
      version: "1.0"
      response_schema:
        type: object
        required: [rates]
        properties:
          rates: {{ type: object, additionalProperties: {{ type: number }} }}
  web_search:
    dependency: fx_api
    owner: search-team@example.com
    request: {{ method: GET, path: /search }}
    contract:
      version: "1.0"
      response_schema:
        type: object
        required: [results]
        properties:
          results:
            type: array
            items: {{ type: object, required: [title, snippet] }}
"#,
        state = dir.join("state.db").display()
    );
    let tg = start_toolgate(&yaml).await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;
    for _ in 0..200 {
        call(&client, "rates", json!({})).await;
    }
    call(&client, "web_search", json!({})).await;
    let open = tg.incidents(false).await;
    let of_rates: Vec<_> = open.iter().filter(|i| i.tool == "rates").collect();
    assert_eq!(of_rates.len(), 17, "{} incidents of rates", of_rates.len());
    let crowded = of_rates
        .iter()
        .find(|i| i.fingerprint == "more-than-max-open")
        .expect("the rest are counted in one");
    assert_eq!(crowded.count, 200 - 16);
    assert!(
        open.iter()
            .any(|i| i.tool == "web_search" && i.kind == "contract_drift"),
        "the other tool's incident is recorded: {open:?}"
    );
    client.cancel().await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
