//! The core promise: contracts checked on every response, drift reported at once with
//! a diff and never retried, transient failures retried below the model.

use std::sync::atomic::Ordering;

use serde_json::json;

use crate::harness::*;

async fn drift_scenario(era: Era) {
    let upstream = start_upstream().await;
    let dir = temp_dir("core");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let client = rmcp_client(&tg.url, era).await;

    // Tools are listed with their contract's output schema and annotations.
    let tools = client.list_all_tools().await.unwrap();
    let search = tools
        .iter()
        .find(|t| t.name == "web_search")
        .expect("web_search listed");
    let out = search.output_schema.as_ref().expect("outputSchema");
    assert_eq!(
        out["properties"]["results"]["items"]["required"],
        json!(["title", "url", "snippet"])
    );
    assert_eq!(
        search.annotations.as_ref().unwrap().read_only_hint,
        Some(true)
    );

    // A valid call returns the upstream body as structuredContent.
    let ok = call(&client, "web_search", json!({"query": "rust"})).await;
    assert_eq!(ok.is_error, Some(false), "{}", text(&ok));
    assert_eq!(ok.structured_content, Some(search_body(false)));
    assert_eq!(upstream.state.hits("/v3/search"), 1);

    // The upstream renames snippet → excerpt: the first call reports it, with no retry.
    upstream.state.renamed.store(true, Ordering::SeqCst);
    let drift = call(&client, "web_search", json!({"query": "rust"})).await;
    assert_eq!(drift.is_error, Some(true));
    let message = text(&drift);
    assert!(message.contains("results[].snippet"), "{message}");
    assert!(message.contains("results[].excerpt"), "{message}");
    assert!(message.contains("rename"), "{message}");
    assert!(message.contains("Retrying will not help"), "{message}");
    assert!(message.contains("contract v3.1"), "{message}");
    assert_eq!(
        upstream.state.hits("/v3/search"),
        2,
        "exactly one upstream request for the drifted call"
    );
    let meta = serde_json::to_value(drift.meta.as_ref().unwrap()).unwrap();
    let signals = &meta["dev.toolgate/signals"];
    assert_eq!(signals["error_class"], "contract_drift");
    assert_eq!(signals["attempts"], 1);
    assert!(
        signals["drift"]["changes"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "{signals}"
    );

    let incidents = tg.incidents(false).await;
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0].owner, "alice@example.com");
    assert_eq!(incidents[0].contract_version.as_deref(), Some("3.1"));

    // The same drift again updates the open incident instead of opening another.
    let again = call(&client, "web_search", json!({"query": "rust"})).await;
    assert_eq!(again.is_error, Some(true));
    let incidents = tg.incidents(false).await;
    assert_eq!(incidents.len(), 1);
    assert_eq!(incidents[0].count, 2);

    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            "toolgate_contract_drift_total{tool=\"web_search\"}"
        ),
        2.0,
        "{metrics}"
    );
    assert_eq!(
        metric(
            &metrics,
            "toolgate_tool_calls_total{tool=\"web_search\",outcome=\"contract_drift\"}"
        ),
        2.0
    );

    // 503 then 200: retried below the model and counted as a recovered sequence.
    let flaky = call(&client, "flaky_status", json!({})).await;
    assert_eq!(flaky.is_error, Some(false), "{}", text(&flaky));
    assert_eq!(upstream.state.hits("/flaky"), 2);
    let metrics = tg.metrics().await;
    assert_eq!(
        metric(
            &metrics,
            "toolgate_retry_sequences_total{tool=\"flaky_status\",error_class=\"server_error\",outcome=\"recovered\"}"
        ),
        1.0,
        "{metrics}"
    );
    assert_eq!(
        metric(
            &metrics,
            "toolgate_retries_total{tool=\"flaky_status\",error_class=\"server_error\"}"
        ),
        1.0
    );
    // The drift above was never retried: no retry was ever counted for it (asked only
    // now, once the retries family has a series and so is rendered at all).
    assert_no_series(
        &metrics,
        "toolgate_retries_total{tool=\"web_search\",error_class=\"contract_drift\"}",
    );

    // A 400 is the caller's problem: not retried, and the upstream's words reach the model.
    let bad = call(&client, "bad_request", json!({})).await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("client_error"), "{}", text(&bad));
    assert!(
        text(&bad).contains("limit must be at most 10"),
        "{}",
        text(&bad)
    );
    assert_eq!(upstream.state.hits("/bad"), 1);

    // Invalid arguments never reach the upstream.
    let invalid = call(&client, "web_search", json!({"query": 42})).await;
    assert_eq!(invalid.is_error, Some(true));
    assert!(
        text(&invalid).contains("client_error"),
        "{}",
        text(&invalid)
    );
    assert_eq!(upstream.state.hits("/v3/search"), 3);

    client.cancel().await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test]
async fn drift_retries_and_client_errors_over_the_handshake_era() {
    drift_scenario(Era::Handshake).await;
}

#[tokio::test]
async fn drift_retries_and_client_errors_over_the_stateless_era() {
    drift_scenario(Era::Stateless).await;
}

#[tokio::test]
async fn unknown_tools_are_a_protocol_error_naming_the_tools() {
    let upstream = start_upstream().await;
    let dir = temp_dir("unknown");
    let tg = start_toolgate(&core_config(upstream.addr, &dir.join("state.db"))).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;
    let mut params = rmcp::model::CallToolRequestParams::new("nope");
    params.arguments = None;
    let err = client.call_tool(params).await.unwrap_err().to_string();
    assert!(err.contains("web_search"), "{err}");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn hostile_or_odd_upstream_bodies_get_clear_errors_and_arrays_are_wrapped() {
    let upstream = start_upstream().await;
    let dir = temp_dir("bodies");
    let tg = start_toolgate(&format!(
        "{}{ODD_BODY_TOOLS}",
        core_config(upstream.addr, &dir.join("state.db"))
    ))
    .await;
    let client = rmcp_client(&tg.url, Era::Handshake).await;

    let html = call(&client, "html_page", json!({})).await;
    assert_eq!(html.is_error, Some(true));
    assert!(
        text(&html).contains("not JSON") && text(&html).contains("Maintenance"),
        "{}",
        text(&html)
    );
    assert_eq!(
        upstream.state.hits("/html"),
        1,
        "a non-JSON 2xx is drift: never retried"
    );
    // Drift of any kind raises the owner's incident and counts, not only a schema diff.
    assert_eq!(
        metric(
            &tg.metrics().await,
            "toolgate_contract_drift_total{tool=\"html_page\"}"
        ),
        1.0
    );
    let incidents = tg.incidents(false).await;
    assert!(
        incidents
            .iter()
            .any(|i| i.kind == "contract_drift" && i.tool == "html_page"),
        "{incidents:?}"
    );

    let huge = call(&client, "huge", json!({})).await;
    assert_eq!(huge.is_error, Some(true));
    assert!(
        text(&huge).contains("larger than the 8 MiB limit"),
        "{}",
        text(&huge)
    );
    assert!(
        tg.incidents(false)
            .await
            .iter()
            .any(|i| i.kind == "contract_drift" && i.tool == "huge"),
        "a 2xx over the size limit is drift with an incident too"
    );

    let deleted = call(&client, "delete_thing", json!({})).await;
    assert_eq!(
        deleted.is_error,
        Some(false),
        "an empty 204 is null, which this contract allows: {}",
        text(&deleted)
    );
    assert_eq!(deleted.structured_content, Some(json!({ "result": null })));

    // MCP needs an object: a JSON array is wrapped, in the result and in the advertised schema.
    let numbers = call(&client, "numbers", json!({})).await;
    assert_eq!(
        numbers.structured_content,
        Some(json!({ "result": [1, 2, 3] }))
    );
    let tools = client.list_all_tools().await.unwrap();
    let schema = tools
        .iter()
        .find(|t| t.name == "numbers")
        .unwrap()
        .output_schema
        .clone()
        .unwrap();
    assert_eq!(schema["properties"]["result"]["type"], "array");
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_configured_bearer_token_guards_mcp_and_admin_but_not_health() {
    let upstream = start_upstream().await;
    let dir = temp_dir("auth");
    let yaml = core_config(upstream.addr, &dir.join("state.db")).replacen(
        "gateway:\n",
        "gateway:\n  auth_token_env: TG_TOKEN\n",
        1,
    );
    let env = |k: &str| (k == "TG_TOKEN").then(|| "s3cret-token".to_string());
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &env,
    )
    .unwrap();
    assert!(
        !format!("{config:?}").contains("s3cret-token"),
        "the token never appears in debug output"
    );
    let tg = serve_config(config).await;
    let base = tg.base.clone();

    let http = reqwest::Client::new();
    let init = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}});
    let post = |token: Option<&str>| {
        let mut r = http
            .post(format!("{base}/mcp"))
            .header("accept", "application/json, text/event-stream")
            .json(&init);
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        r.send()
    };
    assert_eq!(post(None).await.unwrap().status(), 401);
    assert_eq!(post(Some("wrong")).await.unwrap().status(), 401);
    assert_eq!(post(Some("s3cret-token")).await.unwrap().status(), 200);
    assert_eq!(
        http.get(format!("{base}/admin/incidents"))
            .send()
            .await
            .unwrap()
            .status(),
        401
    );
    assert_eq!(
        http.get(format!("{base}/healthz"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert_eq!(
        http.get(format!("{base}/metrics"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
}
