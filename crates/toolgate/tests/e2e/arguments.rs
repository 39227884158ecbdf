//! Arguments as agent frameworks send them: a `null` for an optional argument the
//! model left out is taken as left out, not refused.

use serde_json::json;

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
