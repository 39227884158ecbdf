//! Against the reference server, `@modelcontextprotocol/server-everything`
//! (pinned in `tests/upstreams/package-lock.json`), over stdio and over
//! streamable HTTP.

// Test helpers outside #[test] functions unwrap too: a failure is the test failing.
#![allow(clippy::unwrap_used)]

mod common;

use std::time::Duration;

use common::*;
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolgate_mcp_client::{Connection, Event, Failure, Relay, Relayed, ServerSpec, Transport};

fn stdio_everything() -> (Connection, mpsc::Receiver<Event>) {
    stdio("everything", vec![everything(), "stdio".into()], 1 << 20)
}

/// The reference server's streamable HTTP transport on a free loopback port.
struct HttpEverything {
    _child: tokio::process::Child,
    url: url::Url,
}

async fn http_everything() -> HttpEverything {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = tokio::process::Command::new(node())
        .arg("--require")
        .arg(fixture("loopback.cjs"))
        .arg(everything())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("could not start the reference server");
    let deadline = tokio::time::Instant::now() + LONG;
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the reference server did not listen on port {port}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    HttpEverything {
        _child: child,
        url: format!("http://127.0.0.1:{port}/mcp").parse().unwrap(),
    }
}

fn http_connection(server: &HttpEverything) -> (Connection, mpsc::Receiver<Event>) {
    let spec = ServerSpec {
        name: "everything-http".into(),
        transport: Transport::Http {
            url: server.url.clone(),
            headers: vec![],
        },
        max_message_bytes: 1 << 20,
        limits: Default::default(),
    };
    Connection::start(spec, client())
}

async fn initialize_list_and_echo(conn: &Connection) {
    let init = conn.initialize(LONG).await.unwrap();
    assert_eq!(init.protocol_version, "2025-11-25");
    assert_eq!(init.server_name, "mcp-servers/everything");
    assert!(init.capabilities["tools"].is_object());
    assert!(init.instructions.is_some());
    assert_eq!(
        conn.initialized().map(|i| i.server_version),
        Some(init.server_version)
    );

    let tools = conn.request("tools/list", None, LONG, None).await.unwrap();
    assert_eq!(tools.status, 200);
    let result = tools.into_value().unwrap();
    let names: Vec<&str> = result["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    for want in [
        "echo",
        "trigger-long-running-operation",
        "trigger-sampling-request",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }

    let echo = conn
        .request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"message": "hello upstream"}})),
            LONG,
            None,
        )
        .await
        .unwrap();
    assert_eq!(text(&echo), "Echo: hello upstream");
    assert!(echo.latency > Duration::ZERO);

    let unknown = conn
        .request(
            "tools/call",
            Some(json!({"name": "no-such-tool"})),
            LONG,
            None,
        )
        .await
        .unwrap();
    // An unknown tool is an answer (an error result or a JSON-RPC error), never a Failure.
    let is_error = match unknown.clone().into_value() {
        Ok(r) => r["isError"] == true,
        Err(_) => true,
    };
    assert!(is_error, "{unknown:?}");
}

async fn progress_reaches_the_relay_before_the_reply(conn: &Connection) {
    let (reply, heard) = drive(
        conn,
        "tools/call",
        json!({"name": "trigger-long-running-operation",
               "arguments": {"duration": 1, "steps": 3},
               "_meta": {"progressToken": "tok-1"}}),
    )
    .await;
    let reply = reply.unwrap();
    assert!(text(&reply).contains("completed"), "{reply:?}");
    let progress: Vec<&Value> = heard
        .notifications
        .iter()
        .filter(|(m, _)| m == "notifications/progress")
        .filter_map(|(_, p)| p.as_ref())
        .collect();
    assert_eq!(
        progress
            .iter()
            .map(|p| p["progress"].as_i64())
            .collect::<Vec<_>>(),
        [Some(1), Some(2), Some(3)],
        "{heard:?}"
    );
    assert!(progress.iter().all(|p| p["progressToken"] == "tok-1"));
}

/// Two callers on one connection, both naming their progress `1` (as the MCP SDKs do
/// for a session's first request): each gets its own call's progress, with its token.
async fn one_token_from_two_callers_keeps_their_progress_apart(conn: &Connection) {
    let call = |steps: i64| {
        json!({"name": "trigger-long-running-operation",
               "arguments": {"duration": 1, "steps": steps},
               "_meta": {"progressToken": 1}})
    };
    let ((alice, alice_heard), (bob, bob_heard)) = tokio::join!(
        drive(conn, "tools/call", call(3)),
        drive(conn, "tools/call", call(5))
    );
    assert!(text(&alice.unwrap()).contains("completed"));
    assert!(text(&bob.unwrap()).contains("completed"));
    for (heard, steps) in [(&alice_heard, 3), (&bob_heard, 5)] {
        let progress: Vec<&Value> = heard
            .notifications
            .iter()
            .filter(|(m, _)| m == "notifications/progress")
            .filter_map(|(_, p)| p.as_ref())
            .collect();
        assert_eq!(
            progress.len(),
            steps,
            "the call of {steps} steps heard {heard:?}"
        );
        assert!(
            progress
                .iter()
                .all(|p| p["total"] == steps && p["progressToken"] == 1),
            "another call's progress, or a token not the caller's: {heard:?}"
        );
    }
}

async fn sampling_is_relayed_and_its_answer_returns(conn: &Connection) {
    let (reply, heard) = drive(
        conn,
        "tools/call",
        json!({"name": "trigger-sampling-request",
               "arguments": {"prompt": "say something", "maxTokens": 5}}),
    )
    .await;
    let reply = reply.unwrap();
    assert!(
        heard.requests.iter().any(|m| m == "sampling/createMessage"),
        "{heard:?}"
    );
    assert!(text(&reply).contains("SAMPLED-42"), "{reply:?}");
}

#[tokio::test]
async fn stdio_initialize_list_and_echo() {
    let (conn, _events) = stdio_everything();
    initialize_list_and_echo(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn http_initialize_list_and_echo() {
    let server = http_everything().await;
    let (conn, _events) = http_connection(&server);
    initialize_list_and_echo(&conn).await;
    conn.shutdown().await;
}

#[tokio::test]
async fn stdio_progress_reaches_the_relay_before_the_reply() {
    let (conn, _events) = stdio_everything();
    progress_reaches_the_relay_before_the_reply(&conn).await;
}

#[tokio::test]
async fn http_progress_reaches_the_relay_before_the_reply() {
    let server = http_everything().await;
    let (conn, _events) = http_connection(&server);
    progress_reaches_the_relay_before_the_reply(&conn).await;
}

#[tokio::test]
async fn stdio_one_token_from_two_callers_keeps_their_progress_apart() {
    let (conn, _events) = stdio_everything();
    one_token_from_two_callers_keeps_their_progress_apart(&conn).await;
}

#[tokio::test]
async fn http_one_token_from_two_callers_keeps_their_progress_apart() {
    let server = http_everything().await;
    let (conn, _events) = http_connection(&server);
    one_token_from_two_callers_keeps_their_progress_apart(&conn).await;
}

#[tokio::test]
async fn stdio_sampling_is_relayed_and_its_answer_returns() {
    let (conn, _events) = stdio_everything();
    sampling_is_relayed_and_its_answer_returns(&conn).await;
}

#[tokio::test]
async fn http_sampling_is_relayed_and_its_answer_returns() {
    let server = http_everything().await;
    let (conn, _events) = http_connection(&server);
    sampling_is_relayed_and_its_answer_returns(&conn).await;
}

#[tokio::test]
async fn a_killed_stdio_child_fails_its_call_then_is_restarted() {
    let (conn, mut events) = stdio_everything();
    conn.initialize(LONG).await.unwrap();
    let first_pid = conn.pid().expect("the child runs");

    let (tx, mut rx) = mpsc::channel(64);
    let pending = {
        let conn = conn.clone();
        tokio::spawn(async move {
            conn.request(
                "tools/call",
                Some(json!({"name": "trigger-long-running-operation",
                            "arguments": {"duration": 60, "steps": 60},
                            "_meta": {"progressToken": 9}})),
                Duration::from_secs(120),
                Some(Relay::new(tx)),
            )
            .await
        })
    };
    // The first progress proves the call is running inside the child.
    loop {
        match tokio::time::timeout(LONG, rx.recv())
            .await
            .expect("no progress")
        {
            Some(Relayed::Notification { method, .. }) if method == "notifications/progress" => {
                break;
            }
            Some(Relayed::Request { answer, method, .. }) => {
                let _ = answer.send(common::answer(&method));
            }
            Some(_) => {}
            None => panic!("the relay closed before any progress"),
        }
    }
    let killed = std::process::Command::new("kill")
        .args(["-9", &first_pid.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());

    match tokio::time::timeout(LONG, pending).await.unwrap().unwrap() {
        Err(Failure::Broken { detail }) => assert!(detail.contains("exited"), "{detail}"),
        other => panic!("expected Connect, got {other:?}"),
    }
    let exited = wait_event(&mut events, |e| matches!(e, Event::Exited { .. })).await;
    assert!(matches!(exited, Event::Exited { detail } if detail.contains("signal")));
    wait_event(&mut events, |e| *e == Event::Restarted).await;

    let echo = conn
        .request(
            "tools/call",
            Some(json!({"name": "echo", "arguments": {"message": "again"}})),
            LONG,
            None,
        )
        .await
        .unwrap();
    assert_eq!(text(&echo), "Echo: again");
    assert_ne!(conn.pid(), Some(first_pid));
    conn.shutdown().await;
    assert_eq!(conn.pid(), None);
}

#[tokio::test]
async fn a_stdio_server_that_cannot_start_is_a_connect_failure() {
    let spec = ServerSpec {
        name: "missing".into(),
        transport: Transport::Stdio {
            program: "/nonexistent/toolgate-test-server".into(),
            args: vec![],
            env: vec![("TOKEN".into(), "SECRET".into())],
            inherit_env: vec![],
            cwd: None,
        },
        max_message_bytes: 1 << 16,
        limits: Default::default(),
    };
    let (conn, _events) = Connection::start(spec, client());
    match conn.request("tools/list", None, LONG, None).await {
        Err(Failure::Connect { detail }) => {
            assert!(detail.contains("could not be started"), "{detail}");
            assert!(!detail.contains("SECRET"));
        }
        other => panic!("expected Connect, got {other:?}"),
    }
}
