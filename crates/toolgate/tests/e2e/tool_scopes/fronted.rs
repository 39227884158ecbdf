//! A scoped fronted server's resources and completions, like its prompts, are out of
//! reach of a token without `mcp_servers.<name>.scopes`: left out of lists, refused on
//! reads, and never asked of the server; a token with the scopes reaches them.

use serde_json::json;

use super::{GRAPH, gateway};
use crate::identity::Client;

#[tokio::test]
async fn a_scoped_servers_resources_are_out_of_reach_of_a_token_without_its_scopes() {
    let s = gateway().await;
    let small = s.token("alice", "tools:call");
    s.fronted_ready(&small).await;
    let mut client = Client::start(&s.tg.url, &small).await;
    let listed = client.rpc("resources/list", json!({})).await;
    assert!(listed.get("result").is_some(), "{listed}");
    assert!(!listed.to_string().contains(GRAPH), "{listed}");
    let read = client.rpc("resources/read", json!({"uri": GRAPH})).await;
    assert!(read.get("error").is_some(), "{read}");
    assert!(!read.to_string().contains("the graph"), "{read}");
    assert!(
        !s.fixture.asked("resources/read"),
        "the server was never asked for it"
    );

    let mut reader = Client::start(&s.tg.url, &s.token("alice", "tools:call kb:read")).await;
    let listed = reader.rpc("resources/list", json!({})).await;
    assert!(listed.to_string().contains(GRAPH), "{listed}");
    let read = reader.rpc("resources/read", json!({"uri": GRAPH})).await;
    assert_eq!(read["result"]["contents"][0]["text"], "the graph", "{read}");
}

#[tokio::test]
async fn a_scoped_servers_completions_are_out_of_reach_of_a_token_without_its_scopes() {
    let s = gateway().await;
    let small = s.token("alice", "tools:call");
    s.fronted_ready(&small).await;
    let of_prompt = json!({"ref": {"type": "ref/prompt", "name": "kg__summarise"},
                           "argument": {"name": "topic", "value": "a"}});
    let of_resource = json!({"ref": {"type": "ref/resource", "uri": GRAPH},
                             "argument": {"name": "part", "value": "a"}});
    let mut client = Client::start(&s.tg.url, &small).await;
    for params in [&of_prompt, &of_resource] {
        let done = client.rpc("completion/complete", params.clone()).await;
        assert!(done.get("error").is_some(), "{params}: {done}");
        assert!(!done.to_string().contains("alpha"), "{done}");
    }
    assert!(
        !s.fixture.asked("completion/complete"),
        "the server was never asked"
    );

    let mut reader = Client::start(&s.tg.url, &s.token("alice", "tools:call kb:read")).await;
    for params in [&of_prompt, &of_resource] {
        let done = reader.rpc("completion/complete", params.clone()).await;
        assert_eq!(
            done["result"]["completion"]["values"],
            json!(["alpha"]),
            "{params}: {done}"
        );
    }
}
