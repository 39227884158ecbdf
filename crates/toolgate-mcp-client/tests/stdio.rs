//! Stdio behaviour the reference server cannot be made to show, against a
//! scriptable fake (`fixtures/stdio_fake.mjs`): which pending request a
//! message belongs to, oversized lines, and garbage on stdout.

// Test helpers outside #[test] functions unwrap too: a failure is the test failing.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::json;
use tokio::sync::mpsc;
use toolgate_mcp_client::{Event, Failure, Relay, Relayed};

#[tokio::test]
async fn an_oversized_line_fails_the_request_it_answers_and_the_next_one_works() {
    let (conn, _events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 4096);
    let init = conn.initialize(LONG).await.unwrap();
    assert_eq!(init.server_name, "fake-stdio");
    let huge = conn
        .request("huge", Some(json!({"size": 1_000_000})), LONG, None)
        .await;
    assert!(
        matches!(huge, Err(Failure::TooLarge { limit: 4096 })),
        "{huge:?}"
    );
    let small = conn
        .request("huge", Some(json!({"size": 10})), LONG, None)
        .await
        .unwrap();
    assert_eq!(small.clone().into_value().unwrap()["blob"], "xxxxxxxxxx");
    assert_eq!((small.status, small.headers.len()), (200, 0));
}

#[tokio::test]
async fn an_answer_of_more_values_than_its_size_allows_fails_its_request_and_the_next_one_works() {
    // 4,096 bytes allow 256 values; 1,000 zeros are about 2,000 bytes of text.
    let (conn, _events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 4096);
    conn.initialize(LONG).await.unwrap();
    let wide = conn
        .request("wide", Some(json!({"count": 1_000})), LONG, None)
        .await;
    assert!(
        matches!(wide, Err(Failure::TooManyValues { limit: 256 })),
        "{wide:?}"
    );
    let narrow = conn
        .request("wide", Some(json!({"count": 10})), LONG, None)
        .await
        .unwrap();
    assert_eq!(narrow.into_value().unwrap()["values"], json!(vec![0; 10]));
}

#[tokio::test]
async fn garbage_on_stdout_is_skipped() {
    let (conn, _events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 4096);
    let reply = conn
        .request("garbage_then_answer", None, LONG, None)
        .await
        .unwrap();
    assert_eq!(reply.into_value().unwrap()["ok"], true);
}

/// The next server request a relay receives (notifications skipped).
async fn next_question(
    rx: &mut mpsc::Receiver<Relayed>,
) -> (
    String,
    tokio::sync::oneshot::Sender<Result<serde_json::Value, toolgate_mcp_client::RpcError>>,
) {
    loop {
        match tokio::time::timeout(LONG, rx.recv())
            .await
            .expect("no question relayed in time")
            .expect("relay closed")
        {
            Relayed::Request { method, answer, .. } => return (method, answer),
            Relayed::Notification { .. } => {}
        }
    }
}

fn nothing_relayed(rx: &mut mpsc::Receiver<Relayed>) {
    let mut heard = Vec::new();
    while let Ok(r) = rx.try_recv() {
        heard.push(r);
    }
    assert!(heard.is_empty(), "relayed to the wrong caller: {heard:?}");
}

#[tokio::test]
async fn stdio_questions_reach_the_right_agent() {
    let (conn, _events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 1 << 16);
    conn.initialize(LONG).await.unwrap();
    let (tx_a, mut rx_a) = mpsc::channel(8);
    let (tx_b, mut rx_b) = mpsc::channel(8);
    let ask = |params: serde_json::Value, relay| {
        let conn = conn.clone();
        tokio::spawn(async move { conn.request("ask", Some(params), LONG, Some(relay)).await })
    };
    // Agents A and B ask at once. The fake holds each question back until the
    // next request arrives, so each reaches the client while a newer request
    // is in flight too: A's cites A's request by id, B's cites B's progress token.
    let a = ask(json!({"cite": "id", "defer": true}), Relay::new(tx_a));
    let b = ask(
        json!({"cite": "token", "defer": true, "_meta": {"progressToken": "b-progress"}}),
        Relay::new(tx_b),
    );
    // Both are written before the flush (the spawned tasks run first).
    tokio::task::yield_now().await;
    conn.request("flush", None, LONG, None).await.unwrap();
    let (method_a, answer_a) = next_question(&mut rx_a).await;
    let (method_b, answer_b) = next_question(&mut rx_b).await;
    assert_eq!(
        (method_a.as_str(), method_b.as_str()),
        ("roots/list", "roots/list")
    );
    nothing_relayed(&mut rx_a);
    nothing_relayed(&mut rx_b);
    answer_b
        .send(Ok(json!({"roots": [{"uri": "file:///b"}]})))
        .unwrap();
    answer_a
        .send(Ok(json!({"roots": [{"uri": "file:///a"}]})))
        .unwrap();
    let a = a.await.unwrap().unwrap().into_value().unwrap();
    let b = b.await.unwrap().unwrap().into_value().unwrap();
    assert_eq!(a["answer"]["roots"][0]["uri"], "file:///a");
    assert_eq!(b["answer"]["roots"][0]["uri"], "file:///b");
    assert_eq!(conn.server_requests().unroutable, 0);
}

#[tokio::test]
async fn a_stdio_question_without_a_known_cause_is_refused() {
    let (conn, mut events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 1 << 16);
    conn.initialize(LONG).await.unwrap();
    let (tx_a, mut rx_a) = mpsc::channel(8);
    let (tx_b, mut rx_b) = mpsc::channel(8);
    let held = {
        let conn = conn.clone();
        tokio::spawn(async move {
            conn.request("hold", None, LONG, Some(Relay::new(tx_a)))
                .await
        })
    };
    // A logging round trip: the held request has been written.
    conn.request("log_then_answer", Some(json!({"tag": "sync"})), LONG, None)
        .await
        .unwrap();

    // Two requests in flight and a question naming neither: nobody is asked,
    // the server gets -32602 (a request not associated with one of ours).
    let refused = conn
        .request("ask", None, LONG, Some(Relay::new(tx_b.clone())))
        .await
        .unwrap()
        .into_value()
        .unwrap();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert_eq!(conn.server_requests().unroutable, 1);
    // Logging naming neither goes to the gateway as the server's own, not to a caller.
    conn.request(
        "log_then_answer",
        Some(json!({"tag": "two-pending"})),
        LONG,
        Some(Relay::new(tx_b.clone())),
    )
    .await
    .unwrap();
    wait_event(
        &mut events,
        |e| matches!(e, Event::Notification { params: Some(p), .. } if p["data"] == "two-pending"),
    )
    .await;
    let released = conn.request("release", None, LONG, None).await.unwrap();
    assert!(released.outcome.is_ok());
    assert_eq!(
        held.await.unwrap().unwrap().into_value().unwrap()["released"],
        true
    );
    nothing_relayed(&mut rx_a);
    nothing_relayed(&mut rx_b);

    // The only request in flight is the one that asks: its caller is asked.
    let asking = {
        let conn = conn.clone();
        let tx = tx_b.clone();
        tokio::spawn(async move { conn.request("ask", None, LONG, Some(Relay::new(tx))).await })
    };
    let (method, answer) = next_question(&mut rx_b).await;
    assert_eq!(method, "roots/list");
    answer.send(Ok(json!({"roots": []}))).unwrap();
    let asked = asking.await.unwrap().unwrap().into_value().unwrap();
    assert_eq!(asked["answer"], json!({"roots": []}));

    // With nothing pending, logging is an event; a question from a request
    // without a relay is refused as one nobody handles.
    conn.request("log_then_answer", Some(json!({"tag": "alone"})), LONG, None)
        .await
        .unwrap();
    let logged = wait_event(
        &mut events,
        |e| matches!(e, Event::Notification { params: Some(p), .. } if p["data"] == "alone"),
    )
    .await;
    assert!(
        matches!(logged, Event::Notification { method, .. } if method == "notifications/message")
    );
    let refused = conn.request("ask", None, LONG, None).await.unwrap();
    assert_eq!(refused.into_value().unwrap()["error"]["code"], -32601);
}

#[tokio::test]
async fn dropping_a_pending_stdio_request_cancels_it_and_ignores_its_late_answer() {
    let (conn, _events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 1 << 16);
    conn.initialize(LONG).await.unwrap();
    let held = tokio::time::timeout(
        std::time::Duration::from_millis(300),
        conn.request("hold", None, LONG, None),
    )
    .await;
    assert!(held.is_err(), "the held request must not be answered");
    // The held request was the second written (after initialize).
    let deadline = tokio::time::Instant::now() + LONG;
    loop {
        let seen = conn.request("cancelled", None, LONG, None).await.unwrap();
        if seen.into_value().unwrap()["ids"] == json!([2]) {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no notifications/cancelled for id 2"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    // The late answer to the dropped request arrives and is dropped; the
    // connection keeps working.
    let released = conn.request("release", None, LONG, None).await.unwrap();
    assert!(released.outcome.is_ok());
}

#[tokio::test]
async fn dropping_the_last_connection_ends_the_child() {
    let (conn, _events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 1 << 16);
    conn.initialize(LONG).await.unwrap();
    let pid = conn.pid().unwrap().to_string();
    let alive = || {
        std::process::Command::new("kill")
            .args(["-0", &pid])
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success()
    };
    assert!(alive());
    drop(conn);
    let deadline = tokio::time::Instant::now() + LONG;
    while alive() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the child outlived its connection"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_child_that_keeps_exiting_fails_requests_with_its_exit_status() {
    let (conn, mut events) = stdio(
        "crashing",
        vec!["-e".into(), "process.exit(3)".into()],
        1 << 16,
    );
    let exited = wait_event(&mut events, |e| matches!(e, Event::Exited { .. })).await;
    assert!(
        matches!(&exited, Event::Exited { detail } if detail.contains("exit status: 3")),
        "{exited:?}"
    );
    // Down (Connect) or gone while asked (Broken), depending on where the restart is:
    // either way the exit status is what the caller learns.
    match conn.request("tools/list", None, LONG, None).await {
        Err(Failure::Broken { detail } | Failure::Connect { detail }) => {
            assert!(detail.contains("exit status: 3"), "{detail}")
        }
        other => panic!("expected Connect or Broken, got {other:?}"),
    }
    // It is restarted (and exits again): a second Exited, no Restarted.
    let again = wait_event(&mut events, |e| !matches!(e, Event::Notification { .. })).await;
    assert!(matches!(again, Event::Exited { .. }), "{again:?}");
}

#[tokio::test]
async fn shutdown_ends_the_child_and_later_requests_fail() {
    let (conn, mut events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 1 << 16);
    conn.initialize(LONG).await.unwrap();
    assert!(conn.pid().is_some());
    conn.shutdown().await;
    assert_eq!(conn.pid(), None);
    match conn.request("release", None, LONG, None).await {
        Err(Failure::Connect { detail }) => assert!(detail.contains("shut down"), "{detail}"),
        other => panic!("expected Connect, got {other:?}"),
    }
    // A shutdown is not an exit to restart from.
    while let Ok(e) = events.try_recv() {
        assert!(
            !matches!(e, Event::Exited { .. } | Event::Restarted),
            "{e:?}"
        );
    }
}
