use super::*;

const V: ProtocolVersion = ProtocolVersion::V_2025_11_25;

#[tokio::test(start_paused = true)]
async fn sessions_expire_after_idle_and_use_keeps_them() {
    let s = Sessions::new(10, Duration::from_secs(600));
    let id = s.open(V).unwrap();
    assert_eq!(id.len(), 32);
    tokio::time::advance(Duration::from_secs(599)).await;
    assert_eq!(s.touch(&id), Some(V));
    tokio::time::advance(Duration::from_secs(599)).await;
    assert_eq!(s.touch(&id), Some(V), "use restarts the idle clock");
    tokio::time::advance(Duration::from_secs(600)).await;
    assert_eq!(s.touch(&id), None);
    assert!(s.is_empty());
    assert_eq!(s.touch("never-opened"), None);
}

#[tokio::test(start_paused = true)]
async fn a_full_table_refuses_until_sessions_go_idle() {
    let s = Sessions::new(3, Duration::from_secs(60));
    let ids: Vec<_> = (0..3).map(|_| s.open(V).unwrap()).collect();
    assert_eq!(
        s.open(V),
        Err(Full {
            max: 3,
            share: None
        })
    );
    assert!(s.close(&ids[0], &Owner::default()));
    assert!(!s.close(&ids[0], &Owner::default()));
    let again = s.open(V).unwrap();
    assert_eq!(
        s.open(V),
        Err(Full {
            max: 3,
            share: None
        })
    );
    tokio::time::advance(Duration::from_secs(30)).await;
    assert!(s.touch(&again).is_some());
    tokio::time::advance(Duration::from_secs(31)).await;
    // ids[1] and ids[2] are idle now; `again` was used 31 s ago. The table was last
    // swept when full 61 s ago, so it is swept again.
    let fresh = s.open(V).unwrap();
    assert_eq!(s.len(), 2);
    assert!(s.touch(&fresh).is_some() && s.touch(&again).is_some());
}

#[tokio::test(start_paused = true)]
async fn a_new_stream_ends_the_old_one_and_closing_ends_both() {
    let s = Sessions::new(3, Duration::from_secs(60));
    let id = s.open(V).unwrap();
    let first = CancellationToken::new();
    let second = CancellationToken::new();
    s.attach_stream(&id, first.clone()).unwrap();
    s.attach_stream(&id, second.clone()).unwrap();
    assert!(first.is_cancelled() && !second.is_cancelled());
    s.close(&id, &Owner::default());
    assert!(second.is_cancelled());
    assert!(s.attach_stream(&id, CancellationToken::new()).is_none());
}

const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

fn replica(key: &[u8], max: usize, lifetime: Duration) -> Sessions {
    Sessions::new(max, Duration::from_secs(600)).with_sealer(Sealer::new(&[key], lifetime))
}

fn capabilities(link: Arc<SessionLink>) -> Option<Value> {
    crate::mcp::outbound::Outbound::new(None, Some(link), None)
        .client_capabilities()
        .cloned()
}

#[tokio::test(start_paused = true)]
async fn a_sealed_id_opened_by_one_replica_is_served_by_another() {
    let hour = Duration::from_secs(3600);
    let a = replica(KEY, 10, hour);
    let b = replica(KEY, 10, hour);
    let id = a
        .open_with(V, Some(serde_json::json!({"sampling": {}})))
        .unwrap();
    let (version, link) = b.resume(&id, &Owner::default()).unwrap();
    assert_eq!(version, V);
    assert_eq!(
        capabilities(link),
        Some(serde_json::json!({"sampling": {}}))
    );
    assert_eq!(b.len(), 1, "rebuilt once, then served from the table");
    assert!(b.resume(&id, &Owner::default()).is_ok() && b.len() == 1);

    let foreign = replica(b"another fleet's key, 32 bytes ok", 10, hour);
    assert_eq!(
        foreign.resume(&id, &Owner::default()).map(|_| ()),
        Err(Missing::Unknown)
    );
    let mut tampered = id.to_string().into_bytes();
    tampered[10] ^= 1;
    let tampered = String::from_utf8(tampered).unwrap();
    assert_eq!(
        b.resume(&tampered, &Owner::default()).map(|_| ()),
        Err(Missing::Unknown)
    );
    let random = Sessions::new(10, Duration::from_secs(600)).open(V).unwrap();
    assert_eq!(
        b.resume(&random, &Owner::default()).map(|_| ()),
        Err(Missing::Unknown)
    );

    let full = replica(KEY, 1, hour);
    full.open(V).unwrap();
    assert_eq!(
        full.resume(&id, &Owner::default()).map(|_| ()),
        Err(Missing::Full(Full {
            max: 1,
            share: None
        }))
    );

    // DELETE on one replica ends the session there for good; a replica never told
    // keeps serving it until it expires.
    assert!(b.close(&id, &Owner::default()));
    assert_eq!(
        b.resume(&id, &Owner::default()).map(|_| ()),
        Err(Missing::Unknown)
    );
    let c = replica(KEY, 10, hour);
    assert!(
        c.close(&id, &Owner::default()),
        "an id this replica never served is ended too"
    );
    assert_eq!(
        c.resume(&id, &Owner::default()).map(|_| ()),
        Err(Missing::Unknown)
    );
    assert!(a.resume(&id, &Owner::default()).is_ok());
}

fn owner(agent: &str) -> Owner {
    let spec = toolgate_config::AgentSpec {
        name: agent.to_owned(),
        matches: None,
        api_key_sha256: None,
        tools: None,
        deny: Vec::new(),
        quota: None,
        admin: false,
    };
    Owner::of(Some(&toolgate_auth::Identity {
        agent: Some(Arc::new(spec)),
        ..toolgate_auth::Identity::default()
    }))
}

#[tokio::test(start_paused = true)]
async fn a_session_is_served_to_and_ended_by_its_owner_only() {
    let (alice, bob) = (owner("alice"), owner("bob"));
    let hour = Duration::from_secs(3600);
    // Random ids, then sealed ones; `other` is another replica.
    for (opener, other) in [
        (Sessions::new(10, hour), replica(KEY, 10, hour)),
        (replica(KEY, 10, hour), replica(KEY, 10, hour)),
    ] {
        let id = opener.open_for(&alice, V, None).unwrap();
        for table in [&opener, &other] {
            for stranger in [&bob, &Owner::default()] {
                assert_eq!(
                    table.resume(&id, stranger).map(|_| ()),
                    Err(Missing::Unknown)
                );
                assert!(!table.close(&id, stranger), "nor can it end it");
            }
        }
        assert!(opener.resume(&id, &alice).is_ok(), "still open for alice");
        if opener.sealed() {
            assert!(other.resume(&id, &alice).is_ok(), "on every replica");
        }
        assert!(opener.close(&id, &alice));
        assert_eq!(
            opener.resume(&id, &alice).map(|_| ()),
            Err(Missing::Unknown)
        );
    }
}

#[tokio::test(start_paused = true)]
async fn an_expired_sealed_id_is_refused_everywhere() {
    let a = replica(KEY, 10, Duration::ZERO);
    let b = replica(KEY, 10, Duration::ZERO);
    let id = a.open(V).unwrap();
    assert_eq!(
        b.resume(&id, &Owner::default()).map(|_| ()),
        Err(Missing::Unknown)
    );
    assert_eq!(
        a.resume(&id, &Owner::default()).map(|_| ()),
        Err(Missing::Unknown)
    );
    assert!(
        a.is_empty(),
        "the expired session is ended where it was opened"
    );
}

#[tokio::test(start_paused = true)]
async fn the_sweeper_ends_idle_sessions() {
    let s = Arc::new(Sessions::new(10, Duration::from_secs(8)));
    let shutdown = CancellationToken::new();
    s.spawn_sweeper(shutdown.clone());
    s.open(V).unwrap();
    tokio::time::sleep(Duration::from_secs(11)).await;
    assert!(s.is_empty());
    shutdown.cancel();
}

#[tokio::test(start_paused = true)]
async fn one_caller_filling_the_table_keeps_no_other_caller_out() {
    let s = Sessions::new(4, Duration::from_secs(600)).with_share(0.5);
    let hog = Owner::from_digest(Some("hog".into()));
    let other = Owner::from_digest(Some("other".into()));
    // With room, the share does not apply: one caller may hold every session.
    let mut hogs = Vec::new();
    for _ in 0..4 {
        tokio::time::advance(Duration::from_secs(1)).await;
        hogs.push(s.open_for(&hog, V, None).unwrap());
    }
    // Full of its own sessions: the hog meets the table's limit, as without a share
    // (there is no one to share the table with).
    assert_eq!(
        s.open_for(&hog, V, None),
        Err(Full {
            max: 4,
            share: None
        })
    );
    // Another caller gets in, in place of the hog's least recently used session.
    tokio::time::advance(Duration::from_secs(1)).await;
    assert!(s.touch(&hogs[0]).is_some());
    let first = s.open_for(&other, V, None).unwrap();
    assert!(
        s.touch(&hogs[1]).is_none(),
        "the least recently used one ended"
    );
    assert!(s.touch(&hogs[0]).is_some());
    let second = s.open_for(&other, V, None).unwrap();
    assert_eq!(s.len(), 4);
    // Both now hold their share: either is refused, and nothing is ended.
    for owner in [&hog, &other] {
        assert!(matches!(
            s.open_for(owner, V, None),
            Err(Full { share: Some(2), .. })
        ));
    }
    assert!(s.touch(&first).is_some() && s.touch(&second).is_some());
}

#[tokio::test(start_paused = true)]
async fn without_a_share_a_full_table_refuses_everyone_as_before() {
    let s = Sessions::new(2, Duration::from_secs(600));
    let hog = Owner::from_digest(Some("hog".into()));
    let other = Owner::from_digest(Some("other".into()));
    s.open_for(&hog, V, None).unwrap();
    s.open_for(&hog, V, None).unwrap();
    assert_eq!(
        s.open_for(&other, V, None),
        Err(Full {
            max: 2,
            share: None
        })
    );
}
