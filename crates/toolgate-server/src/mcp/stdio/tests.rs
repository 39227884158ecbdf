use super::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt};

/// A client on pipes: what it sends is the server's input, what it reads the
/// server's output.
struct Piped {
    input: Option<tokio::io::DuplexStream>,
    lines: tokio::io::Lines<tokio::io::BufReader<tokio::io::DuplexStream>>,
    serving: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Piped {
    fn start(server: Arc<Server>) -> Piped {
        let (client_in, server_out) = tokio::io::duplex(1 << 16);
        let (client_out, server_in) = tokio::io::duplex(1 << 16);
        let serving = tokio::spawn(serve_io(
            server,
            server_in,
            server_out,
            1 << 20,
            tokio_util::sync::CancellationToken::new(),
        ));
        Piped {
            input: Some(client_out),
            lines: tokio::io::BufReader::new(client_in).lines(),
            serving,
        }
    }

    async fn send(&mut self, message: &Value) {
        let input = self.input.as_mut().expect("the input is open");
        input
            .write_all(format!("{message}\n").as_bytes())
            .await
            .unwrap();
    }

    /// `text` as one line, exactly as written (escapes kept).
    async fn send_text(&mut self, text: &str) {
        let input = self.input.as_mut().expect("the input is open");
        input
            .write_all(format!("{text}\n").as_bytes())
            .await
            .unwrap();
    }

    /// The next line the server writes, as JSON.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(std::time::Duration::from_secs(20), self.lines.next_line())
            .await
            .expect("a line")
            .unwrap()
            .expect("not the end");
        serde_json::from_str(&line).unwrap()
    }

    /// Ends the server's input.
    fn close(&mut self) {
        self.input = None;
    }
}

#[tokio::test]
async fn notifications_and_requests_go_out_as_lines_and_answers_come_back() {
    let (server, _background) = crate::mcp::tests_upstream::fronting_server().await;
    let server = Arc::new(server);
    let mut client = Piped::start(server.clone());
    let init = json!({"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"c","version":"1"}}});
    client.send(&init).await;
    assert_eq!(client.next().await["id"], 0);
    let call = json!({"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":crate::mcp::tests_upstream::RELAY_TOOL,"_meta":{"progressToken":"t"}}});
    client.send(&call).await;
    let mut seen = Vec::new();
    let request = loop {
        let m = client.next().await;
        if m["method"] == "sampling/createMessage" {
            break m;
        }
        seen.push(m["method"].as_str().unwrap_or_default().to_owned());
    };
    assert_eq!(
        seen,
        [
            "notifications/progress",
            "notifications/progress",
            "notifications/message"
        ]
    );
    // A broadcast reaches stdout too, while the call waits.
    server
        .broadcast()
        .notify_all("notifications/tools/list_changed", None);
    assert_eq!(
        client.next().await["method"],
        "notifications/tools/list_changed"
    );
    let answer = json!({"jsonrpc":"2.0","id":request["id"],"result":{"role":"assistant","content":{"type":"text","text":"via stdio"},"model":"m"}});
    client.send(&answer).await;
    let done = client.next().await;
    assert_eq!(done["id"], 1);
    assert_eq!(
        done["result"]["content"][0]["text"],
        "client answered: via stdio"
    );

    // The client goes away while a request waits for it: the call still answers.
    let call = json!({"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":crate::mcp::tests_upstream::RELAY_TOOL}});
    client.send(&call).await;
    loop {
        if client.next().await["method"] == "sampling/createMessage" {
            break;
        }
    }
    client.close();
    let done = client.next().await;
    assert_eq!(done["id"], 2);
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("session or connection ended"), "{text}");
    client.serving.await.unwrap().unwrap();
}

#[tokio::test]
async fn lines_are_read_whole_and_overlong_ones_are_cut_at_the_limit() {
    let input: &[u8] = b"abc\n\n0123456789\nlast";
    let mut reader = BufReader::with_capacity(4, input);
    let mut buf = Vec::new();
    assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 3);
    assert_eq!(buf, b"abc");
    buf.clear();
    assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 1);
    assert_eq!(buf, b" ");
    buf.clear();
    assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 6);
    buf.clear();
    assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 4);
    assert_eq!(buf, b"last");
    buf.clear();
    assert_eq!(read_line(&mut reader, &mut buf, 5).await.unwrap(), 0);
}

#[tokio::test]
async fn a_listen_over_stdio_is_acknowledged_carries_what_it_asked_for_and_ends_when_cancelled() {
    let (server, _background) = crate::mcp::tests_upstream::fronting_server().await;
    let server = Arc::new(server);
    let mut client = Piped::start(server.clone());
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                          "io.modelcontextprotocol/clientCapabilities": {}});
    let listen = json!({"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen",
            "params":{"notifications":{"toolsListChanged":true},"_meta":meta}});
    client.send(&listen).await;
    let ack = client.next().await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
    assert_eq!(
        ack["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    let broadcast = server.broadcast();
    broadcast.notify_all("notifications/prompts/list_changed", None);
    broadcast.notify_all("notifications/tools/list_changed", None);
    // Only what it asked for, tagged with the subscription's id.
    let got = client.next().await;
    assert_eq!(got["method"], "notifications/tools/list_changed");
    assert_eq!(
        got["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        "sub"
    );
    // The client cancels it: answered as a cancelled request, then nothing more.
    let cancel =
        json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}});
    client.send(&cancel).await;
    let ended = client.next().await;
    assert_eq!(ended["id"], "sub");
    assert!(ended.get("error").is_some(), "{ended}");
    broadcast.notify_all("notifications/tools/list_changed", None);
    // Nothing more of it: the next line is the answer to the next request.
    let ping = json!({"jsonrpc":"2.0","id":9,"method":"ping","params":{"_meta":meta}});
    client.send(&ping).await;
    assert_eq!(client.next().await["id"], 9);

    // A second subscription ends with the input, which must not wait for it.
    client.send(&listen).await;
    assert_eq!(
        client.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    client.close();
    tokio::time::timeout(std::time::Duration::from_secs(10), client.serving)
        .await
        .expect("the end of input ends the subscription")
        .unwrap()
        .unwrap();
}

/// Guards `running_key` in `dispatch.rs`: a running request is found by the id's value,
/// not by its spelling, so a client that escapes a character of the id in one message
/// and not in the other still cancels its own request (and the id is echoed as sent).
#[tokio::test]
async fn a_request_is_cancelled_by_its_id_however_the_client_spells_it() {
    let (server, _background) = crate::mcp::tests_upstream::fronting_server().await;
    let server = Arc::new(server);
    let mut client = Piped::start(server.clone());
    let meta = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;
    for (request_id, cancelled_id) in [
        // Spelt alike in both, as JSON writers escape by default: PHP's `json_encode`
        // writes `/` as `\/`, Python's `json.dumps` non-ASCII as `\u00e9`.
        (r#""req\/1""#, r#""req\/1""#),
        (r#""caf\u00e9-1""#, r#""caf\u00e9-1""#),
        (r#""s\u0075b-1""#, r#""sub-1""#),
        (r#""sub-2""#, r#""s\u0075b-2""#),
        (r#""\/\u00e9\t3""#, r#""/\u00E9\u00093""#),
        // Id 0 (an SDK's first request; typescript-sdk#2283 dropped its cancellation)
        // and an id past 2^53, which a reader through a double would confuse with
        // its neighbour.
        ("0", "0"),
        ("9007199254740993", "9007199254740993"),
    ] {
        client
            .send_text(&format!(
                r#"{{"jsonrpc":"2.0","id":{request_id},"method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},"_meta":{meta}}}}}"#
            ))
            .await;
        let ack = client.next().await;
        assert_eq!(
            ack["method"], "notifications/subscriptions/acknowledged",
            "{ack}"
        );
        client
            .send_text(&format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{cancelled_id}}}}}"#
            ))
            .await;
        let ended = client.next().await;
        let sent: Value = serde_json::from_str(request_id).unwrap();
        assert_eq!(ended["id"], sent, "{ended}");
        assert_eq!(ended["error"]["message"], "Request cancelled", "{ended}");
    }
    // Another id is not cancelled by a near one: not another string, not the string of
    // a number (langchain4j#3689 sent those), not a fraction or its neighbour past 2^53.
    client
        .send_text(&format!(
            r#"{{"jsonrpc":"2.0","id":9007199254740992,"method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},"_meta":{meta}}}}}"#
        ))
        .await;
    assert_eq!(
        client.next().await["method"],
        "notifications/subscriptions/acknowledged"
    );
    for near in [
        r#""SUB-4""#,
        r#""9007199254740992""#,
        "9007199254740993",
        "9007199254740992.5",
        "9.007199254740992e15",
        "null",
        "{}",
    ] {
        client
            .send_text(&format!(
                r#"{{"jsonrpc":"2.0","method":"notifications/cancelled","params":{{"requestId":{near}}}}}"#
            ))
            .await;
    }
    server
        .broadcast()
        .notify_all("notifications/tools/list_changed", None);
    let still = client.next().await;
    assert_eq!(
        still["method"], "notifications/tools/list_changed",
        "{still}"
    );
    client.close();
}
