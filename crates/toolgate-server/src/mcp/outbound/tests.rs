use super::*;

fn raw(s: &str) -> Box<RawValue> {
    RawValue::from_string(s.to_owned()).unwrap()
}

fn link_outbound(link: &Arc<SessionLink>, queue: usize) -> (Outbound, mpsc::Receiver<Vec<u8>>) {
    let (tx, rx) = mpsc::channel(queue);
    (Outbound::new(Some(tx), Some(link.clone()), None), rx)
}

fn id_of(bytes: &[u8]) -> Id {
    let v: Value = serde_json::from_slice(bytes).unwrap();
    let text = serde_json::to_string(&v["id"]).unwrap();
    match jsonrpc::parse(format!(r#"{{"jsonrpc":"2.0","id":{text},"result":{{}}}}"#).as_bytes()) {
        Ok(jsonrpc::Message::Reply { id: Some(id), .. }) => id,
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn a_request_gets_the_clients_result_or_error_and_ids_never_repeat() {
    let link = Arc::new(SessionLink::new(Some(serde_json::json!({"sampling": {}}))));
    let (out, mut rx) = link_outbound(&link, 8);
    assert_eq!(
        out.client_capabilities().unwrap()["sampling"],
        serde_json::json!({})
    );
    let asking = tokio::spawn({
        let out = out.clone();
        async move { out.request("roots/list", None).await }
    });
    let sent = rx.recv().await.unwrap();
    let v: Value = serde_json::from_slice(&sent).unwrap();
    assert_eq!(v["method"], "roots/list");
    assert!(v["id"].as_str().unwrap().starts_with("tg-"));
    let id = id_of(&sent);
    assert!(out.deliver(Some(&id), Ok(&raw(r#"{"roots":[]}"#))));
    assert_eq!(
        asking.await.unwrap().unwrap(),
        serde_json::json!({"roots": []})
    );
    assert!(!out.deliver(Some(&id), Ok(&raw("{}"))), "answered once");

    let asking = tokio::spawn({
        let out = out.clone();
        async move { out.request("sampling/createMessage", None).await }
    });
    let second = rx.recv().await.unwrap();
    assert_ne!(id_of(&second), id);
    let err = raw(r#"{"code":-1,"message":"user declined","data":{"x":1}}"#);
    assert!(out.deliver(Some(&id_of(&second)), Err(&err)));
    let e = asking.await.unwrap().unwrap_err();
    assert_eq!((e.code, e.message.as_str()), (-1, "user declined"));
    assert_eq!(e.data, Some(serde_json::json!({"x": 1})));
    assert_eq!(link.pending(), 0);
}

#[tokio::test]
async fn requests_fail_without_a_way_back_and_pending_ones_are_bounded_and_forgotten() {
    for out in [
        Outbound::none(),
        Outbound::new(Some(mpsc::channel(1).0), None, None),
    ] {
        let e = out
            .request("sampling/createMessage", None)
            .await
            .unwrap_err();
        assert!(e.message.contains("carries no server requests"), "{e}");
        out.notify("notifications/progress", None);
    }
    let link = Arc::new(SessionLink::new(None));
    let (out, mut rx) = link_outbound(&link, 2 * MAX_PENDING);
    let mut waiting = Vec::new();
    for _ in 0..MAX_PENDING {
        let out = out.clone();
        waiting.push(tokio::spawn(async move { out.request("ping", None).await }));
    }
    for _ in 0..MAX_PENDING {
        rx.recv().await.unwrap();
    }
    assert_eq!(link.pending(), MAX_PENDING);
    let e = out.request("ping", None).await.unwrap_err();
    assert_eq!(e.code, jsonrpc::SERVER_BUSY);
    // A caller that gives up (its own timeout) leaves nothing behind.
    for w in &waiting[..10] {
        w.abort();
    }
    for w in waiting.drain(..10) {
        let _ = w.await;
    }
    assert_eq!(link.pending(), MAX_PENDING - 10);
    // The session ends: everything still waiting fails, and new requests are refused.
    link.close();
    for w in waiting {
        let e = w.await.unwrap().unwrap_err();
        assert!(e.message.contains("ended"), "{e}");
    }
    assert!(out.request("ping", None).await.is_err());
    assert_eq!(link.pending(), 0);
}

#[tokio::test]
async fn notifications_keep_their_order_and_a_full_queue_drops_instead_of_blocking() {
    let (tx, mut rx) = mpsc::channel(2);
    let out = Outbound::new(Some(tx), None, None);
    for n in 0..3 {
        out.notify(
            "notifications/progress",
            Some(serde_json::json!({"progress": n})),
        );
    }
    for n in 0..2 {
        let v: Value = serde_json::from_slice(&rx.recv().await.unwrap()).unwrap();
        assert_eq!(v["params"]["progress"], n);
        assert!(v.get("id").is_none());
    }
    assert!(rx.try_recv().is_err(), "the third did not fit");
}

#[tokio::test]
async fn log_messages_below_the_clients_level_are_dropped() {
    let link = Arc::new(SessionLink::new(None));
    let (out, mut rx) = link_outbound(&link, 16);
    let log = |level: &str| Some(serde_json::json!({ "level": level, "data": level }));
    out.notify("notifications/message", log("debug"));
    assert!(out.set_log_level("warning"));
    assert!(!out.set_log_level("loud"));
    for level in ["debug", "info", "warning", "emergency", "odd"] {
        out.notify("notifications/message", log(level));
    }
    out.notify("notifications/progress", log("debug"));
    let mut got = Vec::new();
    while let Ok(m) = rx.try_recv() {
        let v: Value = serde_json::from_slice(&m).unwrap();
        got.push(format!("{} {}", v["method"], v["params"]["level"]));
    }
    assert_eq!(
        got,
        [
            r#""notifications/message" "debug""#,
            r#""notifications/message" "warning""#,
            r#""notifications/message" "emergency""#,
            r#""notifications/progress" "debug""#,
        ]
    );
}

/// A level outside MCP's eight (a word of the server's own, another case, a number, none)
/// is read as `debug`, the least severe, and sent as `debug`: it reaches a client that
/// set no level, or `debug`, with its words, and passes no stricter filter.
#[tokio::test]
async fn a_log_message_of_a_level_outside_the_eight_is_read_as_the_least_severe() {
    let odd = [
        serde_json::json!({ "level": "PWNED", "data": "a" }),
        serde_json::json!({ "level": "ERROR", "data": "b" }),
        serde_json::json!({ "level": 7, "data": "c" }),
        serde_json::json!({ "data": "d" }),
    ];
    for floor in [None, Some("debug"), Some("info"), Some("emergency")] {
        let link = Arc::new(SessionLink::new(None));
        let (out, mut rx) = link_outbound(&link, 16);
        if let Some(level) = floor {
            assert!(out.set_log_level(level));
        }
        for params in &odd {
            out.notify("notifications/message", Some(params.clone()));
        }
        let mut got = Vec::new();
        while let Ok(m) = rx.try_recv() {
            let v: Value = serde_json::from_slice(&m).unwrap();
            got.push(format!("{} {}", v["params"]["level"], v["params"]["data"]));
        }
        let expected: &[&str] = match floor {
            None | Some("debug") => &[
                r#""debug" "a""#,
                r#""debug" "b""#,
                r#""debug" "c""#,
                r#""debug" "d""#,
            ],
            _ => &[],
        };
        assert_eq!(got, expected, "{floor:?}");
    }
    for level in [Some("debug"), Some("warning")] {
        let (tx, mut rx) = mpsc::channel(16);
        let out = Outbound::new(Some(tx), None, None).with_request_log_level(level);
        out.notify("notifications/message", Some(odd[0].clone()));
        assert_eq!(rx.try_recv().is_ok(), level == Some("debug"), "{level:?}");
    }
}

/// A 2026-07-28 request is sent log messages only when its `_meta` named a level, and
/// then those at or above it, whatever level a session was set to; other notifications
/// are not filtered.
#[tokio::test]
async fn a_request_of_the_inline_revision_gets_logs_only_at_the_level_it_named() {
    let received = |level: Option<&str>| {
        let (tx, mut rx) = mpsc::channel(16);
        // Stateless over HTTP (no link) and over stdio (a link whose level is `debug`).
        let links = [None, Some(Arc::new(SessionLink::new(None)))];
        let mut got = Vec::new();
        for link in links {
            let out = Outbound::new(Some(tx.clone()), link, None).with_request_log_level(level);
            for l in ["debug", "warning", "emergency", "odd"] {
                out.notify(
                    "notifications/message",
                    Some(serde_json::json!({ "level": l, "data": l })),
                );
            }
            out.notify(
                "notifications/progress",
                Some(serde_json::json!({"progress": 1})),
            );
            let mut one = Vec::new();
            while let Ok(m) = rx.try_recv() {
                let v: Value = serde_json::from_slice(&m).unwrap();
                one.push(
                    v["params"]["level"]
                        .as_str()
                        .unwrap_or("progress")
                        .to_owned(),
                );
            }
            got.push(one);
        }
        assert_eq!(got[0], got[1], "both transports filter the same way");
        got.swap_remove(0)
    };
    assert_eq!(
        received(None),
        ["progress"],
        "no level named: no log messages"
    );
    assert_eq!(
        received(Some("warning")),
        ["warning", "emergency", "progress"]
    );
    assert_eq!(
        received(Some("loud")),
        ["debug", "warning", "emergency", "debug", "progress"],
        "an unknown level asked for reads as everything; one sent, as debug"
    );
}
