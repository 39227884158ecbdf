//! Arguments as agent frameworks send them: a `null` for an optional argument the
//! model left out is taken as left out, not refused.

use serde_json::{Value, json};

use crate::harness::*;

#[tokio::test]
async fn a_null_optional_argument_is_taken_as_left_out_and_a_null_required_one_is_refused() {
    let upstream = start_upstream().await;
    let dir = temp_dir("null-optional");
    let yaml = core_config(upstream.addr, &dir.join("s.db")).replace(
        "input_schema: { type: object, required: [query], properties: { query: { type: string } } }",
        "input_schema: { type: object, required: [query], properties: { query: { type: string }, limit: { type: integer, minimum: 1 } } }",
    );
    assert!(yaml.contains("limit:"), "the schema was extended");
    let tg = start_toolgate(&yaml).await;
    let client = rmcp_client(&tg.url, Era::Stateless).await;

    let left_out = call(
        &client,
        "web_search",
        json!({ "query": "rust", "limit": null }),
    )
    .await;
    assert_eq!(left_out.is_error, Some(false), "{}", text(&left_out));
    assert!(
        text(&left_out).contains("The Rust Book"),
        "{}",
        text(&left_out)
    );
    assert_eq!(upstream.state.hits("/v3/search"), 1);

    let required = call(&client, "web_search", json!({ "query": null })).await;
    assert_eq!(required.is_error, Some(true));
    assert!(text(&required).contains("query"), "{}", text(&required));
    assert_eq!(
        upstream.state.hits("/v3/search"),
        1,
        "refused before the upstream"
    );
}

/// A `tools/call` as a client writes it, with `arguments` as raw JSON text: numbers a
/// `Value` cannot hold stay as written on the way in.
async fn call_with_raw_arguments(url: &str, tool: &str, arguments: &str) -> Value {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"{tool}","arguments":{arguments},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
    );
    let text = reqwest::Client::new()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", tool)
        .body(body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

#[tokio::test]
async fn a_number_that_would_reach_the_upstream_as_another_number_is_refused_by_name() {
    let upstream = start_upstream().await;
    let dir = temp_dir("inexact-number");
    let yaml = core_config(upstream.addr, &dir.join("s.db")).replace(
        "properties: { query: { type: string } } }",
        "properties: { query: {} } }",
    );
    assert!(yaml.contains("query: {} }"), "the schema was loosened");
    let tg = start_toolgate(&yaml).await;

    for (written, hits) in [("1.5", 1), ("18446744073709551615", 2), ("1e22", 3)] {
        let answer =
            call_with_raw_arguments(&tg.url, "web_search", &format!(r#"{{"query":{written}}}"#))
                .await;
        assert_eq!(answer["result"]["isError"], false, "{written}: {answer}");
        assert_eq!(upstream.state.hits("/v3/search"), hits, "{written} is sent");
    }

    for written in [
        "12345678901234567890123",
        "18446744073709551616",
        "-9223372036854775809",
        "0.10000000000000000000001",
    ] {
        let arguments = format!(r#"{{"query":[1,{{"deep":{written}}}]}}"#);
        let answer = call_with_raw_arguments(&tg.url, "web_search", &arguments).await;
        let result = &answer["result"];
        assert_eq!(result["isError"], true, "{written}: {answer}");
        let said = result["content"][0]["text"].as_str().unwrap();
        assert!(said.contains(written), "the number is named: {said}");
        assert!(said.contains("as a string"), "the way out is named: {said}");
        assert_eq!(
            upstream.state.hits("/v3/search"),
            3,
            "{written} is refused before the upstream"
        );
    }
}
