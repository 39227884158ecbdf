use super::*;

const CONFIG: &str = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";

pub(crate) fn server() -> Server {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-dispatch-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ));
    let yaml = format!(
        "gateway:\n  state: {}\n{CONFIG}",
        dir.join("s.db").display()
    );
    let env = |_: &str| None;
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &env,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
    Server::new(Gateway::new(config, store).unwrap())
}

async fn ask(s: &Server, body: &str, session: Option<&str>) -> (Value, Reply) {
    let message = jsonrpc::parse(body.as_bytes()).expect("a message");
    let reply = s
        .handle(message, session, &Outbound::none())
        .await
        .expect("an answer");
    let value = serde_json::from_slice(&reply.body).expect("JSON");
    (value, reply)
}

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

/// Under 2026-07-28 the handshake, `ping`, the session's log level and resource
/// subscriptions are gone: a request of that revision naming one is an unknown
/// method (HTTP 404), while the same methods still work for a handshake-era client.
#[tokio::test]
async fn methods_the_inline_revision_removed_are_unknown_to_its_requests_only() {
    let s = server();
    for (n, method) in REMOVED_IN_INLINE.iter().enumerate() {
        let (v, reply) = ask(
                &s,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":{n},"method":"{method}","params":{{"level":"info","protocolVersion":"2026-07-28","uri":"x:/y",{META}}}}}"#
                ),
                None,
            )
            .await;
        assert_eq!(
            v["error"]["code"],
            jsonrpc::METHOD_NOT_FOUND,
            "{method}: {v}"
        );
        assert_eq!(v["id"], n, "{method}: the error keeps the request's id");
        assert_eq!(reply.era, Era::Modern, "{method}");
        assert_eq!(reply.error.map(|e| e.modern_status), Some(404), "{method}");
    }
    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}"#,
        Some("2025-11-25"),
    )
    .await;
    assert_eq!(
        v["result"],
        json!({}),
        "a handshake-era session still sets its level"
    );
    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#,
        Some("2025-11-25"),
    )
    .await;
    assert_eq!(v["result"], json!({}));
    let (v, reply) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            None,
        )
        .await;
    assert_eq!(v["result"]["protocolVersion"], "2025-11-25");
    assert!(
        reply.negotiated.is_some(),
        "a handshake `initialize` still opens a session"
    );
}

#[tokio::test]
async fn initialize_negotiates_a_handshake_version() {
    let s = server();
    for (asked, got) in [
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2026-07-28", "2025-11-25"),
        ("2099-01-01", "2025-11-25"),
    ] {
        let (v, reply) = ask(
                &s,
                &format!(
                    r#"{{"jsonrpc":"2.0","id":1,"method":"initialize","params":{{"protocolVersion":"{asked}","capabilities":{{}},"clientInfo":{{"name":"c","version":"1"}}}}}}"#
                ),
                None,
            )
            .await;
        assert_eq!(v["result"]["protocolVersion"], got, "{asked}");
        assert_eq!(reply.negotiated.as_ref().map(|p| p.as_str()), Some(got));
        assert_eq!(
            v["result"]["capabilities"],
            json!({"logging": {}, "tools": {"listChanged": true}})
        );
    }
    let (v, reply) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#,
        None,
    )
    .await;
    assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
    assert!(reply.negotiated.is_none());
}

#[tokio::test]
async fn each_lifecycle_gets_its_own_shapes_and_errors() {
    let s = server();
    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        Some("2025-11-25"),
    )
    .await;
    assert_eq!(v["result"], json!({}));
    let (v, reply) = ask(
        &s,
        &format!(r#"{{"jsonrpc":"2.0","id":2,"method":"ping","params":{{{META}}}}}"#),
        None,
    )
    .await;
    assert_eq!(
        v["error"]["code"],
        jsonrpc::METHOD_NOT_FOUND,
        "2026-07-28 has no ping"
    );
    assert_eq!(reply.era, Era::Modern);

    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#,
        Some("2025-11-25"),
    )
    .await;
    assert!(v["result"].get("resultType").is_none());
    assert_eq!(
        v["result"]["tools"][1]["name"],
        toolgate_engine::health::TOOL_NAME
    );
    let (v, _) = ask(
        &s,
        &format!(r#"{{"jsonrpc":"2.0","id":4,"method":"tools/list","params":{{{META}}}}}"#),
        None,
    )
    .await;
    assert_eq!(v["result"]["resultType"], "complete");
    assert_eq!(v["result"]["ttlMs"], 0);

    let unsupported = META.replace("2026-07-28", "2099-01-01");
    let (v, reply) = ask(
        &s,
        &format!(r#"{{"jsonrpc":"2.0","id":5,"method":"tools/list","params":{{{unsupported}}}}}"#),
        None,
    )
    .await;
    assert_eq!(v["error"]["code"], jsonrpc::UNSUPPORTED_PROTOCOL_VERSION);
    assert_eq!(v["error"]["data"]["requested"], "2099-01-01");
    assert_eq!(reply.era, Era::Modern);

    let (v, reply) = ask(
            &s,
            r#"{"jsonrpc":"2.0","id":6,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
            None,
        )
        .await;
    assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
    assert_eq!(reply.error, Some(Refused::malformed_meta()));
    assert_eq!(reply.error.map(|e| e.modern_status), Some(400));
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains(META_CAPABILITIES)
    );

    let (v, _) = ask(
        &s,
        &format!(r#"{{"jsonrpc":"2.0","id":7,"method":"server/discover","params":{{{META}}}}}"#),
        None,
    )
    .await;
    assert_eq!(v["result"]["supportedVersions"][4], "2026-07-28");
    assert_eq!(
        v["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "toolgate"
    );

    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":8,"method":"resources/list"}"#,
        Some("2025-11-25"),
    )
    .await;
    assert_eq!(v["error"]["code"], jsonrpc::METHOD_NOT_FOUND);
    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":9,"method":"logging/setLevel","params":{"level":"loud"}}"#,
        Some("2025-11-25"),
    )
    .await;
    assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":10,"method":"logging/setLevel","params":{"level":"warning"}}"#,
        Some("2025-11-25"),
    )
    .await;
    assert_eq!(v["result"], json!({}));
    let (v, _) = ask(
        &s,
        r#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"nope"}}"#,
        Some("2025-11-25"),
    )
    .await;
    assert_eq!(v["error"]["code"], jsonrpc::INVALID_PARAMS);
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("available tools: t, dependency_health")
    );
    let notification = jsonrpc::parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .expect("parses");
    assert!(
        s.handle(notification, Some("2025-11-25"), &Outbound::none())
            .await
            .is_none()
    );
}
