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
    assert_eq!(small.outcome.unwrap()["blob"], "xxxxxxxxxx");
    assert_eq!((small.status, small.headers.len()), (200, 0));
}

#[tokio::test]
async fn garbage_on_stdout_is_skipped() {
    let (conn, _events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 4096);
    let reply = conn
        .request("garbage_then_answer", None, LONG, None)
        .await
        .unwrap();
    assert_eq!(reply.outcome.unwrap()["ok"], true);
}

#[tokio::test]
async fn server_requests_go_to_the_newest_pending_request_with_a_relay() {
    let (conn, mut events) = stdio("fake", vec![fixture("stdio_fake.mjs")], 1 << 16);
    conn.initialize(LONG).await.unwrap();
    let (tx_a, mut rx_a) = mpsc::channel(8);
    let (tx_b, mut rx_b) = mpsc::channel(8);
    let hold = |relay| {
        let conn = conn.clone();
        tokio::spawn(async move { conn.request("hold", None, LONG, Some(relay)).await })
    };
    let a = hold(Relay { tx: tx_a });
    // B starts after A (a logging round trip orders them).
    conn.request("log_then_answer", Some(json!({"tag": "sync"})), LONG, None)
        .await
        .unwrap();
    let b = hold(Relay { tx: tx_b });
    conn.request("log_then_answer", Some(json!({"tag": "sync2"})), LONG, None)
        .await
        .unwrap();

    // `ask` has no relay: its roots/list goes to B, the newest with one.
    let asking = {
        let conn = conn.clone();
        tokio::spawn(async move { conn.request("ask", None, LONG, None).await })
    };
    let relayed = loop {
        match tokio::time::timeout(LONG, rx_b.recv())
            .await
            .unwrap()
            .unwrap()
        {
            Relayed::Request { method, answer, .. } => break (method, answer),
            Relayed::Notification { .. } => {}
        }
    };
    assert_eq!(relayed.0, "roots/list");
    relayed
        .1
        .send(Ok(json!({"roots": [{"uri": "file:///b"}]})))
        .unwrap();
    let asked = asking.await.unwrap().unwrap().outcome.unwrap();
    assert_eq!(asked["answer"]["roots"][0]["uri"], "file:///b");

    let released = conn.request("release", None, LONG, None).await.unwrap();
    assert!(released.outcome.is_ok());
    assert_eq!(a.await.unwrap().unwrap().outcome.unwrap()["released"], true);
    assert_eq!(b.await.unwrap().unwrap().outcome.unwrap()["released"], true);
    // A was older: it heard only the logging sent while it was the newest.
    let mut heard_a = Vec::new();
    while let Ok(r) = rx_a.try_recv() {
        heard_a.push(r);
    }
    assert!(
        heard_a.iter().all(
            |r| matches!(r, Relayed::Notification { params: Some(p), .. } if p["data"] == "sync")
        ),
        "{heard_a:?}"
    );
    assert_eq!(heard_a.len(), 1);

    // With nothing pending, logging is an event and a server request is refused.
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
    assert_eq!(refused.outcome.unwrap()["error"]["code"], -32601);
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
        if seen.outcome.unwrap()["ids"] == json!([2]) {
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
