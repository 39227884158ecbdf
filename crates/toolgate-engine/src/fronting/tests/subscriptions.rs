//! Resource subscriptions: updates reach only the sessions that subscribed, closed
//! sessions are let go of, and a restarted server is subscribed again.

use super::setup::*;

#[tokio::test]
async fn a_resource_update_reaches_only_the_sessions_that_subscribed_and_one_unsubscribe_ends_no_other()
 {
    let link = Arc::new(CountingLink::default());
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        link.answer(method, json!({}));
    }
    let (fronted, host) = server("", link.clone());
    let fronting = fronting_of(&fronted);
    let index = passthrough::ResourceIndex::default();
    let uri = json!({"uri": "kb://notes/alice-plan"});
    let sessions: Vec<crate::broadcast::ReaderHandle> =
        (0..3).map(|_| Default::default()).collect();
    let id = |n: usize| sessions[n].id();
    let ask = |method: &'static str, n: usize| {
        let asker = passthrough::Asker {
            reader: Some(sessions[n].reader()),
            ..Default::default()
        };
        let (fronting, index, uri) = (&fronting, &index, uri.clone());
        async move {
            passthrough::forward(fronting, index, method, Some(uri), &asker)
                .await
                .unwrap()
        }
    };
    let asked = |method: &str| {
        guard(&link.asked)
            .iter()
            .filter(|(m, _)| m == method)
            .count()
    };
    let updated = || {
        on_event(
            &fronted,
            host.as_ref(),
            Event::ResourceUpdated {
                uri: "kb://notes/alice-plan".into(),
            },
        );
        guard(&host.addressed).last().cloned().expect("sent")
    };
    ask("resources/subscribe", 0).await;
    ask("resources/subscribe", 1).await;
    assert_eq!(asked("resources/subscribe"), 1, "the server is asked once");
    let (method, params, readers) = updated();
    assert_eq!(method, "notifications/resources/updated");
    assert_eq!(params, Some(uri.clone()));
    assert_eq!(readers, [id(0), id(1)], "to the subscribers alone");
    assert_eq!(
        host.notified.load(Ordering::SeqCst),
        0,
        "not to every client"
    );

    // A session that never subscribed, and one of two that did, end nothing upstream.
    ask("resources/unsubscribe", 2).await;
    ask("resources/unsubscribe", 1).await;
    assert_eq!(asked("resources/unsubscribe"), 0);
    tokio::time::sleep(updates::SPACING).await;
    assert_eq!(updated().2, [id(0)]);
    // A stateless request has no subscriptions: its subscribe is refused, and its
    // unsubscribe ends nobody's.
    let stateless = passthrough::Asker::default();
    let refused = passthrough::forward(
        &fronting,
        &index,
        "resources/subscribe",
        Some(uri.clone()),
        &stateless,
    )
    .await
    .expect_err("no session to send updates on");
    assert!(
        refused.message.contains("needs a session"),
        "{}",
        refused.message
    );
    passthrough::forward(
        &fronting,
        &index,
        "resources/unsubscribe",
        Some(uri.clone()),
        &stateless,
    )
    .await
    .unwrap();
    assert_eq!(asked("resources/unsubscribe"), 0);
    tokio::time::sleep(updates::SPACING).await;
    assert_eq!(updated().2, [id(0)]);
    // The last one does.
    ask("resources/unsubscribe", 0).await;
    assert_eq!(asked("resources/unsubscribe"), 1);
    assert!(updated().2.is_empty(), "nobody left to tell");
}

#[tokio::test]
async fn subscriptions_of_closed_sessions_are_let_go_and_make_room() {
    let link = Arc::new(CountingLink::default());
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        link.answer(method, json!({}));
    }
    let (fronted, host) = server("", link.clone());
    let open = crate::broadcast::ReaderHandle::default();
    let closed = crate::broadcast::ReaderHandle::default();
    for n in 0..MAX_SUBSCRIBED {
        let added = fronted.add_subscriber(&format!("kb://n/{n}"), closed.reader());
        assert!(added.is_ok());
    }
    let full = fronted.add_subscriber("kb://n/new", open.reader());
    assert!(full.is_err(), "at the cap, with every session open");
    drop(closed);
    // The closed session's updates go nowhere.
    on_event(
        &fronted,
        host.as_ref(),
        Event::ResourceUpdated {
            uri: "kb://n/0".into(),
        },
    );
    assert!(guard(&host.addressed).last().expect("sent").2.is_empty());
    // A new subscription lets them go, and the server is told of each.
    let fronting = fronting_of(&fronted);
    let asker = passthrough::Asker {
        reader: Some(open.reader()),
        ..Default::default()
    };
    passthrough::forward(
        &fronting,
        &passthrough::ResourceIndex::default(),
        "resources/subscribe",
        Some(json!({"uri": "kb://n/new"})),
        &asker,
    )
    .await
    .expect("room made");
    let unsubscribed = || {
        guard(&link.asked)
            .iter()
            .filter(|(m, _)| m == "resources/unsubscribe")
            .count()
    };
    for _ in 0..1_000 {
        if unsubscribed() == MAX_SUBSCRIBED {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(unsubscribed(), MAX_SUBSCRIBED, "the server is told of each");
}

/// The `resources/unsubscribe` requests the server got, by URI, once `count` have come.
async fn unsubscribed(link: &CountingLink, count: usize) -> Vec<String> {
    let asked = || -> Vec<String> {
        guard(&link.asked)
            .iter()
            .filter(|(m, _)| m == "resources/unsubscribe")
            .filter_map(|(_, p)| Some(p.as_ref()?["uri"].as_str()?.to_owned()))
            .collect()
    };
    for _ in 0..500 {
        if asked().len() >= count {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    asked()
}

#[tokio::test]
async fn a_session_that_closes_without_unsubscribing_lets_go_of_what_it_alone_followed() {
    let link = Arc::new(CountingLink::default());
    for method in ["resources/subscribe", "resources/unsubscribe"] {
        link.answer(method, json!({}));
    }
    let (fronted, host) = server("", link.clone());
    let (alice, bob) = (
        crate::broadcast::ReaderHandle::default(),
        crate::broadcast::ReaderHandle::default(),
    );
    for (uri, session) in [
        ("kb://shared", &alice),
        ("kb://alice", &alice),
        ("kb://shared", &bob),
    ] {
        assert!(fronted.add_subscriber(uri, session.reader()).is_ok());
    }
    let (_tx, rx) = mpsc::channel(8);
    let (task, stop) = watching(fronted.clone(), host, rx);
    // Alice's client goes away (a crash, an expired session): what she alone followed
    // is let go; what bob follows too is not.
    drop(alice);
    assert_eq!(unsubscribed(&link, 1).await, ["kb://alice"]);
    assert!(!fronted.has_subscribers("kb://alice"));
    assert!(
        fronted.has_subscribers("kb://shared"),
        "bob still follows it"
    );
    drop(bob);
    assert_eq!(unsubscribed(&link, 2).await, ["kb://alice", "kb://shared"]);
    assert!(!fronted.has_subscribers("kb://shared"));
    // A session that closed while its subscribe was on the way is not recorded, and
    // the server is told at once.
    let gone = crate::broadcast::ReaderHandle::default();
    let late = gone.reader();
    drop(gone);
    assert!(fronted.add_subscriber("kb://late", late).is_ok());
    assert!(!fronted.has_subscribers("kb://late"));
    assert_eq!(unsubscribed(&link, 3).await[2], "kb://late");
    stop.cancel();
    let _ = task.await;
}

#[tokio::test]
async fn a_restarted_server_is_subscribed_again_to_what_open_sessions_subscribed_to() {
    let link = Arc::new(CountingLink::default());
    link.answer("resources/subscribe", json!({}));
    let (fronted, host) = server("", link.clone());
    let open = crate::broadcast::ReaderHandle::default();
    let closed = crate::broadcast::ReaderHandle::default();
    assert!(fronted.add_subscriber("kb://a", open.reader()).is_ok());
    assert!(fronted.add_subscriber("kb://b", closed.reader()).is_ok());
    drop(closed);
    let resubscribed = || -> Vec<Option<Value>> {
        guard(&link.asked)
            .iter()
            .filter(|(m, _)| m == "resources/subscribe")
            .map(|(_, p)| p.clone())
            .collect()
    };
    assert!(on_event(&fronted, host.as_ref(), Event::Restarted));
    for _ in 0..100 {
        if !resubscribed().is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        resubscribed(),
        [Some(json!({"uri": "kb://a"}))],
        "the open session's resource, not the closed one's"
    );
}

#[tokio::test]
async fn a_session_whose_newer_token_may_no_longer_use_the_server_gets_no_more_of_its_updates() {
    let link = Arc::new(CountingLink::default());
    link.answer("resources/subscribe", json!({}));
    let (fronted, host) = server("", link.clone());
    let fronting = fronting_of(&fronted);
    let index = passthrough::ResourceIndex::default();
    let uri = json!({"uri": "kb://notes/payroll"});
    let sessions: Vec<crate::broadcast::ReaderHandle> =
        (0..2).map(|_| Default::default()).collect();
    let with_kb: Option<Arc<[String]>> = Some(vec!["kb".to_owned()].into());
    for session in &sessions {
        let asker = passthrough::Asker {
            reader: Some(session.reader()),
            servers: with_kb.clone(),
            ..Default::default()
        };
        passthrough::forward(
            &fronting,
            &index,
            "resources/subscribe",
            Some(uri.clone()),
            &asker,
        )
        .await
        .unwrap();
    }
    let updated = || {
        on_event(
            &fronted,
            host.as_ref(),
            Event::ResourceUpdated {
                uri: "kb://notes/payroll".into(),
            },
        );
        guard(&host.addressed).last().cloned().map(|(_, _, r)| r)
    };
    assert_eq!(updated(), Some(vec![sessions[0].id(), sessions[1].id()]));

    // The first session's next request carries a token without the server's scopes:
    // what it subscribed to with the wider token is no longer its to hear about.
    sessions[0].reader().note_usable(Some(Vec::new().into()));
    tokio::time::sleep(updates::SPACING).await;
    assert_eq!(updated(), Some(vec![sessions[1].id()]));

    // The second steps down too: nobody is told.
    sessions[1]
        .reader()
        .note_usable(Some(vec!["other".to_owned()].into()));
    tokio::time::sleep(updates::SPACING).await;
    assert_eq!(updated(), Some(Vec::new()), "no session may read it");

    // A request with the scopes again brings the updates back.
    sessions[0].reader().note_usable(with_kb);
    tokio::time::sleep(updates::SPACING).await;
    assert_eq!(updated(), Some(vec![sessions[0].id()]));
}
