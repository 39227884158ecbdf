//! The watch of a server: checks coalesced and spaced, notifications passed on once,
//! the server's own log messages kept out of agents' sight and bounded in toolgate's.

use super::setup::*;

#[tokio::test(start_paused = true)]
async fn list_changed_flood_is_coalesced() {
    let link = Arc::new(CountingLink::default());
    guard(&link.tools).push(tool("search", "Searches."));
    let (fronted, host) = server("", link.clone());
    let (tx, rx) = mpsc::channel(2048);
    for _ in 0..1000 {
        tx.try_send(Event::ToolsChanged)
            .expect("room in the channel");
    }
    let (task, stop) = watching(fronted, host.clone(), rx);
    // A minute of (paused) time: 1000 checks one after another would take 100 s.
    tokio::time::sleep(Duration::from_secs(60)).await;
    let lists = link.lists.load(Ordering::SeqCst);
    assert!(
        (1..=2).contains(&lists),
        "1000 list_changed notifications made {lists} tools/list requests; at most one in flight and one pending"
    );
    // A notification after the flood still gets its check.
    tx.try_send(Event::ToolsChanged).expect("room");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(link.lists.load(Ordering::SeqCst), lists + 1);
    stop.cancel();
    let _ = task.await;
}

#[tokio::test(start_paused = true)]
async fn a_resource_list_changed_flood_reaches_clients_once_per_check() {
    let link = Arc::new(CountingLink::default());
    guard(&link.tools).push(tool("search", "Searches."));
    let (fronted, host) = server("", link.clone());
    // The tools are known: the checks the flood causes change nothing clients see.
    fronted.check(host.as_ref()).await;
    host.notified.store(0, Ordering::SeqCst);
    let (tx, rx) = mpsc::channel(2048);
    for _ in 0..1000 {
        tx.try_send(Event::ResourcesChanged).expect("room");
    }
    let (task, stop) = watching(fronted, host.clone(), rx);
    tokio::time::sleep(Duration::from_secs(60)).await;
    let told = host.notified.load(Ordering::SeqCst);
    assert!(
        (1..=2).contains(&told),
        "1000 resources/list_changed from the server made {told} notifications to clients"
    );
    // One after the flood is still passed on.
    tx.try_send(Event::ResourcesChanged).expect("room");
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(host.notified.load(Ordering::SeqCst), told + 1);
    stop.cancel();
    let _ = task.await;
}

#[tokio::test(start_paused = true)]
async fn a_resource_update_flood_reaches_subscribers_once_a_second_and_its_last_one_too() {
    let link = Arc::new(CountingLink::default());
    link.answer("resources/subscribe", json!({}));
    link.answer(
        "resources/list",
        json!({"resources": [{"uri": "kb://plan", "name": "plan"}]}),
    );
    let (fronted, host) = server("", link.clone());
    let fronting = fronting_of(&fronted);
    let session = crate::broadcast::ReaderHandle::default();
    let asker = passthrough::Asker {
        reader: Some(session.reader()),
        ..Default::default()
    };
    let index = passthrough::ResourceIndex::default();
    passthrough::forward(
        &fronting,
        &index,
        "resources/subscribe",
        Some(json!({"uri": "kb://plan"})),
        &asker,
    )
    .await
    .expect("subscribed");
    let (tx, rx) = mpsc::channel(2048);
    let (task, stop) = watching(fronted, host.clone(), rx);
    // 1000 updates over 2 s of (paused) time.
    for _ in 0..1000 {
        tx.send(Event::ResourceUpdated {
            uri: "kb://plan".into(),
        })
        .await
        .expect("sent");
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    tokio::time::sleep(Duration::from_secs(5)).await;
    let told = guard(&host.addressed)
        .iter()
        .filter(|(m, _, readers)| {
            m == "notifications/resources/updated" && readers == &[session.id()]
        })
        .count();
    assert!(
        (2..=4).contains(&told),
        "1000 updates in 2 s made {told} notifications"
    );
    stop.cancel();
    let _ = task.await;
}

#[tokio::test(start_paused = true)]
async fn a_server_announcing_changes_without_end_is_listed_a_few_times_a_minute() {
    let link = Arc::new(CountingLink::default());
    guard(&link.tools).push(tool("search", "Searches."));
    let (fronted, host) = server("", link.clone());
    let (tx, rx) = mpsc::channel(16);
    let (task, stop) = watching(fronted, host.clone(), rx);
    // A `list_changed` every 10 ms for a minute.
    for _ in 0..6000 {
        let _ = tx.try_send(Event::ToolsChanged);
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let lists = link.lists.load(Ordering::SeqCst);
    // Back to back (one list takes 100 ms here) would be about 600.
    assert!(
        (20..=31).contains(&lists),
        "a minute of list_changed every 10 ms made {lists} tools/list requests"
    );
    // The last announcement is deferred, not dropped: it gets its check, and only one.
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(link.lists.load(Ordering::SeqCst), lists + 1);
    stop.cancel();
    let _ = task.await;
}

#[tokio::test]
async fn a_log_message_no_call_can_be_named_for_reaches_no_agent() {
    let link = Arc::new(CountingLink::default());
    let (fronted, host) = server("", link);
    let recheck = on_event(
        &fronted,
        host.as_ref(),
        Event::Notification {
            method: "notifications/message".into(),
            params: Some(json!({"level": "info", "data": "read kb://notes/alice-plan"})),
        },
    );
    assert!(!recheck);
    assert_eq!(
        host.notified.load(Ordering::SeqCst),
        0,
        "not to every client"
    );
    assert!(guard(&host.addressed).is_empty(), "nor to some");
}

#[tokio::test(start_paused = true)]
async fn a_server_flooding_log_messages_does_not_flood_toolgates_log() {
    let link = Arc::new(CountingLink::default());
    let (fronted, host) = server("", link);
    let (log, _default) = crate::fixtures::capture_log();
    let message = |n: usize| Event::Notification {
        method: "notifications/message".into(),
        params: Some(json!({"level": "info", "data": format!("message {n}")})),
    };
    for n in 0..1_000 {
        on_event(&fronted, host.as_ref(), message(n));
    }
    let text = || log.text();
    let lines = text().lines().count();
    assert_eq!(
        lines, SERVER_LOG_LINES_PER_SECOND as usize,
        "{lines} lines logged"
    );
    // A second later the next is logged, after a line saying how many were not.
    tokio::time::advance(Duration::from_secs(1)).await;
    on_event(&fronted, host.as_ref(), message(1_000));
    let text = text();
    let tail: Vec<&str> = text.lines().skip(lines).collect();
    assert_eq!(tail.len(), 2, "{tail:?}");
    assert!(tail[0].contains("suppressed=980"), "{}", tail[0]);
    assert!(tail[1].contains("message 1000"), "{}", tail[1]);
}
