//! A call's audit record names the incident the call opened or counted into, so "who
//! was hit by this breakage" is one query of the audit trail.

use std::time::Duration;

use serde_json::{Value, json};

use crate::harness::{call, core_config, rmcp_client, start_toolgate, start_upstream, temp_dir};

/// Every record `/admin/audit` holds, oldest first, once `n` are written.
async fn records(base: &str, n: usize) -> Vec<Value> {
    let mut records = Vec::new();
    for _ in 0..500 {
        let body = reqwest::get(format!("{base}/admin/audit?limit=1000"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        records = body
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .collect();
        if records.len() >= n {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    records.reverse();
    records
}

#[tokio::test]
async fn a_call_that_opened_or_matched_an_incident_carries_its_id() {
    let upstream = start_upstream().await;
    let dir = temp_dir("audit-incident");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let client = rmcp_client(&tg.url, crate::harness::Era::Handshake).await;
    let search = || call(&client, "web_search", json!({ "query": "rust" }));

    assert_ne!(search().await.is_error, Some(true));
    // The upstream renames a field: the first drifting call opens the incident, the
    // next ones count into it.
    upstream
        .state
        .renamed
        .store(true, std::sync::atomic::Ordering::SeqCst);
    for _ in 0..3 {
        assert_eq!(search().await.is_error, Some(true));
    }
    let records = records(&tg.base, 4).await;
    let incidents = tg.incidents(true).await;
    assert_eq!(incidents.len(), 1, "{incidents:?}");
    let id = incidents[0].id;
    let ids: Vec<(&str, &Value)> = records
        .iter()
        .map(|r| (r["outcome"].as_str().unwrap(), &r["incident_id"]))
        .collect();
    assert_eq!(
        ids,
        [
            ("ok", &Value::Null),
            ("contract_drift", &json!(id)),
            ("contract_drift", &json!(id)),
            ("contract_drift", &json!(id)),
        ],
        "{records:?}"
    );
}
