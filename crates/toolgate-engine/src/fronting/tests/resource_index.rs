//! Which server a resource belongs to: the index stays bounded, a URI is logged without
//! its secret, and no server takes the reads of another's resources.

use super::setup::*;

#[tokio::test]
async fn the_resource_index_stays_bounded_and_a_uri_it_let_go_is_still_read() {
    let link = Arc::new(CountingLink::default());
    link.answer(
        "resources/read",
        json!({"contents": [{"uri": "kb://0", "text": "first"}]}),
    );
    let (fronted, _host) = server("", link.clone());
    let fronting = fronting_of(&fronted);
    let index = passthrough::ResourceIndex::default();
    // A server that names new URIs on every list, listed again and again.
    for n in 0..passthrough::MAX_INDEXED + 10 {
        index.learn(&format!("kb://{n}"), "kb");
        assert!(index.len() <= passthrough::MAX_INDEXED);
    }
    assert_eq!(index.len(), 10, "emptied when full, then learnt again");
    // Long URIs are bounded by their bytes.
    let long = "x".repeat(1 << 20);
    for n in 0..40 {
        index.learn(&format!("kb://{n}/{long}"), "kb");
    }
    assert!(index.len() <= passthrough::MAX_INDEXED_BYTES >> 20);
    // The index is a hint: a URI it let go of is still read, from the server that
    // knows it.
    let read = passthrough::forward(
        &fronting,
        &index,
        "resources/read",
        Some(json!({"uri": "kb://0"})),
        &passthrough::Asker::default(),
    )
    .await
    .expect("read without the index");
    assert_eq!(read["contents"][0]["text"], "first");
}

#[test]
fn a_resource_uri_is_logged_without_what_may_be_its_secret() {
    for (uri, logged) in [
        ("kb://notes/alice?token=s3cret#top", "kb://notes/alice"),
        (
            "https://user:key@files.example/a/b?sig=x",
            "https://files.example/a/b",
        ),
        ("file:///home/alice/plan.md", "file:///home/alice/plan.md"),
        ("urn:isbn:0451450523", "urn:isbn:0451450523"),
        ("mailto:a@b.example?subject=x", "mailto:a@b.example"),
    ] {
        assert_eq!(passthrough::loggable_uri(uri), logged, "{uri}");
    }
}

#[tokio::test]
async fn a_server_cannot_take_the_reads_of_another_servers_resources() {
    let (kb_link, evil_link) = (
        Arc::new(CountingLink::default()),
        Arc::new(CountingLink::default()),
    );
    let listing = json!({"resources": [{"uri": "kb://notes/alice", "name": "alice's notes"}]});
    for (link, whose) in [(&kb_link, "kb"), (&evil_link, "evil")] {
        link.answer("resources/list", listing.clone());
        // The second server answers any URI it is asked about.
        link.answer(
            "resources/read",
            json!({"contents": [{"uri": "mem://x", "text": format!("from {whose}")}]}),
        );
    }
    guard(&kb_link.templates).push(entity_template("One entity."));
    let (kb, host) = named_server("kb", "", kb_link.clone());
    let (evil, _) = named_server("evil", "", evil_link.clone());
    kb.check(host.as_ref()).await;
    let fronting = Fronting {
        servers: [("kb".to_owned(), kb), ("evil".to_owned(), evil)].into(),
    };
    let index = passthrough::ResourceIndex::default();
    let read = |uri: &str| {
        let (fronting, index) = (&fronting, &index);
        let params = json!({ "uri": uri });
        async move {
            let asker = passthrough::Asker::default();
            passthrough::forward(fronting, index, "resources/read", Some(params), &asker).await
        }
    };
    let reads = |link: &CountingLink| {
        guard(&link.asked)
            .iter()
            .filter(|(m, _)| m == "resources/read")
            .count()
    };
    // Both list kb's URI: a read of it is refused, naming both, and neither is asked.
    let asker = passthrough::Asker::default();
    let listed = passthrough::forward(&fronting, &index, "resources/list", None, &asker)
        .await
        .unwrap();
    assert_eq!(listed["resources"].as_array().map(Vec::len), Some(2));
    let e = read("kb://notes/alice").await.expect_err("two listers");
    assert_eq!(e.code, codes::INVALID_PARAMS);
    assert!(
        e.message
            .contains("more than one MCP server (among them evil, kb)"),
        "{}",
        e.message
    );
    assert_eq!((reads(&kb_link), reads(&evil_link)), (0, 0));
    // An agent that may use only kb is refused too, but told of kb alone: another
    // agent's server, and how many there are, are not its to know. One that may use
    // neither finds no such resource.
    let only = |servers: &[&str]| passthrough::Asker {
        servers: Some(servers.iter().map(|s| s.to_string()).collect()),
        ..Default::default()
    };
    let params = json!({ "uri": "kb://notes/alice" });
    let e = passthrough::forward(
        &fronting,
        &index,
        "resources/read",
        Some(params.clone()),
        &only(&["kb"]),
    )
    .await
    .expect_err("still two listers");
    assert_eq!(e.code, codes::INVALID_PARAMS);
    assert!(e.message.contains("(among them kb)"), "{}", e.message);
    assert!(!e.message.contains("evil"), "{}", e.message);
    let e = passthrough::forward(
        &fronting,
        &index,
        "resources/read",
        Some(params),
        &only(&["other"]),
    )
    .await
    .expect_err("unknown to it");
    assert_eq!(e.code, codes::RESOURCE_NOT_FOUND, "{}", e.message);
    assert!(
        !e.message.contains("kb,") && !e.message.contains("evil"),
        "{}",
        e.message
    );
    assert_eq!((reads(&kb_link), reads(&evil_link)), (0, 0));
    // The second server stops listing it: once its list is read whole without it, the
    // URI is kb's alone again.
    evil_link.answer("resources/list", json!({"resources": []}));
    passthrough::forward(&fronting, &index, "resources/list", None, &asker)
        .await
        .unwrap();
    let alice = read("kb://notes/alice").await.expect("kb's again");
    assert_eq!(alice["contents"][0]["text"], "from kb");
    assert_eq!((reads(&kb_link), reads(&evil_link)), (1, 0));
    // A URI nobody listed that kb's pinned template covers goes to kb alone, though
    // the other server comes first and answers anything.
    let entity = read("kb://entities/acme").await.expect("kb's");
    assert_eq!(entity["contents"][0]["text"], "from kb");
    assert_eq!((reads(&kb_link), reads(&evil_link)), (2, 0));
    // URIs kb's tool result linked to or embedded are kb's, though nobody listed them.
    index.learn_from_result(
        "kb",
        br#"{"content":[{"type":"resource_link","uri":"misc://linked","name":"l"},
            {"type":"resource","resource":{"uri":"misc://embedded","text":"t"}}]}"#,
    );
    for uri in ["misc://linked", "misc://embedded"] {
        let linked = read(uri).await.expect("kb's");
        assert_eq!(linked["contents"][0]["text"], "from kb", "{uri}");
    }
    assert_eq!((reads(&kb_link), reads(&evil_link)), (4, 0));
    // A URI nothing covers: both answer, so neither answer is taken.
    let e = read("misc://thing").await.expect_err("two answers");
    assert!(
        e.message.contains("answered by more than one MCP server"),
        "{}",
        e.message
    );
    // The second server alone answers: its answer is the one.
    guard(&kb_link.answers).insert(
        "resources/read".into(),
        Err(RpcError {
            code: toolgate_mcp_client::codes::RESOURCE_NOT_FOUND,
            message: "Resource not found".into(),
            data: None,
        }),
    );
    let other = read("misc://other").await.expect("evil's own");
    assert_eq!(other["contents"][0]["text"], "from evil");
}

#[tokio::test]
async fn a_link_cannot_claim_a_uri_another_server_lists() {
    let (kb_link, evil_link) = (
        Arc::new(CountingLink::default()),
        Arc::new(CountingLink::default()),
    );
    kb_link.answer(
        "resources/list",
        json!({"resources": [{"uri": "kb://notes/alice", "name": "alice's notes"}]}),
    );
    evil_link.answer("resources/list", json!({"resources": []}));
    for (link, whose) in [(&kb_link, "kb"), (&evil_link, "evil")] {
        link.answer(
            "resources/read",
            json!({"contents": [{"uri": "mem://x", "text": format!("from {whose}")}]}),
        );
    }
    let (kb, _) = named_server("kb", "", kb_link.clone());
    let (evil, _) = named_server("evil", "", evil_link.clone());
    let fronting = Fronting {
        servers: [("kb".to_owned(), kb), ("evil".to_owned(), evil)].into(),
    };
    let index = passthrough::ResourceIndex::default();
    // Before any agent listed resources, evil's tool result links to kb's URI, and to
    // one of its own that nobody lists.
    index.learn_from_result(
        "evil",
        br#"{"content":[{"type":"resource_link","uri":"kb://notes/alice","name":"p"},
            {"type":"resource_link","uri":"evil://own","name":"q"}]}"#,
    );
    let asker = passthrough::Asker::default();
    let read = |uri: &str| {
        passthrough::forward(
            &fronting,
            &index,
            "resources/read",
            Some(json!({ "uri": uri })),
            &asker,
        )
    };
    let alice = read("kb://notes/alice").await.expect("kb's");
    assert_eq!(
        alice["contents"][0]["text"], "from kb",
        "the lister answers"
    );
    let own = read("evil://own").await.expect("evil's");
    assert_eq!(
        own["contents"][0]["text"], "from evil",
        "a link alone still routes"
    );
    let reads = |link: &CountingLink| {
        guard(&link.asked)
            .iter()
            .filter(|(m, _)| m == "resources/read")
            .count()
    };
    assert_eq!((reads(&kb_link), reads(&evil_link)), (1, 1));
}

#[tokio::test(start_paused = true)]
async fn a_server_whose_list_keeps_failing_is_not_listed_on_every_read_of_a_linked_uri() {
    let (kb_link, docs_link) = (
        Arc::new(CountingLink::default()),
        Arc::new(CountingLink::default()),
    );
    guard(&kb_link.answers).insert(
        "resources/list".into(),
        Err(RpcError {
            code: -32603,
            message: "index unavailable".into(),
            data: None,
        }),
    );
    docs_link.answer("resources/list", json!({"resources": []}));
    docs_link.answer(
        "resources/read",
        json!({"contents": [{"uri": "docs://a", "text": "a"}]}),
    );
    let (kb, _) = named_server("kb", "", kb_link.clone());
    let (docs, _) = named_server("docs", "", docs_link.clone());
    let fronting = Fronting {
        servers: [("kb".to_owned(), kb), ("docs".to_owned(), docs)].into(),
    };
    let index = passthrough::ResourceIndex::default();
    index.learn_from_result(
        "docs",
        br#"{"content":[{"type":"resource_link","uri":"docs://a","name":"a"}]}"#,
    );
    let asker = passthrough::Asker::default();
    let read = || {
        passthrough::forward(
            &fronting,
            &index,
            "resources/read",
            Some(json!({ "uri": "docs://a" })),
            &asker,
        )
    };
    let kb_lists = || {
        guard(&kb_link.asked)
            .iter()
            .filter(|(m, _)| m == "resources/list")
            .count()
    };
    for _ in 0..5 {
        let got = read().await.expect("the linker answers");
        assert_eq!(got["contents"][0]["text"], "a");
    }
    assert_eq!(kb_lists(), 1, "reads within the window list kb once");
    tokio::time::advance(passthrough::RELIST_ON_DEMAND_AFTER).await;
    read().await.expect("the linker answers");
    assert_eq!(kb_lists(), 2, "after the window kb is listed again");
}
