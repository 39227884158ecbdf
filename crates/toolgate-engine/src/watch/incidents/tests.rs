use super::*;

fn drift(fp: &str) -> NewIncident {
    NewIncident {
        kind: IncidentKind::ContractDrift,
        tool: "web_search".into(),
        dependency: "search_api".into(),
        owner: "search-team@example.com".into(),
        fingerprint: fp.into(),
        title: format!("drift {fp}"),
        detail: serde_json::json!({ "fp": fp }),
        contract_version: Some("3.1".into()),
    }
}

fn temp_store(name: &str) -> (Store, std::path::PathBuf) {
    let dir =
        std::env::temp_dir().join(format!("toolgate-incidents-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    (Store::open(&dir.join("state.db")).unwrap(), dir)
}

#[tokio::test]
async fn a_thousand_sightings_are_one_incident_written_with_their_count() {
    let (store, dir) = temp_store("merge");
    let incidents = Arc::new(Incidents::new(None, Duration::from_secs(60)));
    let stop = CancellationToken::new();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));
    assert_eq!(incidents.raise(drift("a")), Raised::Opened);
    for _ in 1..1000 {
        assert_eq!(incidents.raise(drift("a")), Raised::Seen);
    }
    assert!(incidents.flush(Duration::from_secs(10)).await);
    let open = store.incidents(false).await.unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].count, 1000);
    stop.cancel();
    writer.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn clearing_resolves_in_the_store_and_a_recurrence_opens_anew() {
    let (store, dir) = temp_store("clear");
    let incidents = Arc::new(Incidents::new(None, Duration::from_secs(60)));
    let stop = CancellationToken::new();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));
    incidents.raise(drift("a"));
    incidents.raise(drift("b"));
    assert!(incidents.is_open(IncidentKind::ContractDrift, "web_search"));
    incidents.clear(IncidentKind::ContractDrift, "web_search", None, "fixed");
    assert!(!incidents.is_open(IncidentKind::ContractDrift, "web_search"));
    assert!(incidents.flush(Duration::from_secs(10)).await);
    assert!(store.incidents(false).await.unwrap().is_empty());
    assert_eq!(incidents.raise(drift("a")), Raised::Opened);
    stop.cancel();
    writer.await.unwrap();
    assert_eq!(
        store.incidents(false).await.unwrap().len(),
        1,
        "shutdown writes what is left"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_restart_restores_open_incidents_instead_of_opening_them_again() {
    let (store, dir) = temp_store("restore");
    store.record_incident(drift("a")).await.unwrap();
    let incidents = Incidents::new(None, Duration::from_secs(60));
    assert_eq!(incidents.restore(&store).await.len(), 1);
    assert_eq!(incidents.raise(drift("a")), Raised::Seen);
    assert_eq!(incidents.raise(drift("b")), Raised::Opened);
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "postgres")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn writes_refused_while_postgres_is_down_are_kept_in_order_and_land_once_it_is_back() {
    let pg = toolgate_test_support::TestPostgres::start_local();
    let store = Store::Postgres(
        toolgate_store::PostgresStore::connect(&pg.url)
            .await
            .unwrap(),
    );
    let incidents = Arc::new(Incidents::new(None, Duration::from_secs(60)));
    let stop = CancellationToken::new();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));
    incidents.raise(drift("a"));
    assert!(incidents.flush(Duration::from_secs(30)).await);

    pg.stop();
    // Cleared and raised again while the store is down, plus sightings.
    incidents.clear(
        IncidentKind::ContractDrift,
        "web_search",
        Some("a"),
        "fixed",
    );
    assert_eq!(incidents.raise(drift("a")), Raised::Opened);
    incidents.raise(drift("a"));
    incidents.raise(drift("b"));
    assert!(
        !incidents.flush(Duration::from_millis(500)).await,
        "nothing can be written while the store is down"
    );
    assert!(
        !lock(&incidents.index).retry.is_empty(),
        "the writes are kept"
    );

    pg.start_again();
    assert!(incidents.flush(Duration::from_secs(60)).await);
    let all = store.incidents(true).await.unwrap();
    let summary: Vec<(String, String, i64)> = all
        .iter()
        .map(|i| (i.fingerprint.clone(), i.status.clone(), i.count))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("b".to_string(), "open".to_string(), 1),
            ("a".to_string(), "open".to_string(), 2),
            // (A sighting not yet written when the incident clears is not counted.)
            ("a".to_string(), "resolved".to_string(), 1),
        ],
        "in order: the resolution, then the new incident and its sighting"
    );
    stop.cancel();
    writer.await.unwrap();
}

#[test]
fn without_a_writer_nothing_blocks_and_the_queue_is_bounded() {
    let incidents = Incidents::new(None, Duration::from_secs(60));
    // Many tools, each with one incident: one tool alone holds at most
    // MAX_OPEN_PER_TOOL + 1 (crowding_tests.rs).
    for i in 0..(QUEUE_CAP + 10) {
        incidents.raise(NewIncident {
            tool: format!("tool_{i}"),
            ..drift("a")
        });
    }
    let g = lock(&incidents.index);
    assert_eq!(g.queue.len(), QUEUE_CAP);
    assert_eq!(g.dropped, 10);
}

/// Two configured agents, as a call carries them.
fn two_agents() -> (crate::agents::CallAgent, crate::agents::CallAgent) {
    let (config, agents) = crate::pipeline::tests::two_agents(
        ["alice", "bob"],
        "\n    contract: { version: \"1.0\", response_schema: { type: object } }",
    );
    let of = |name: &str| agents.caller(config.agents.get(name)).unwrap();
    (of("alice"), of("bob"))
}

#[tokio::test]
async fn the_agents_whose_calls_hit_an_incident_are_written_with_their_sightings() {
    let (store, dir) = temp_store("agents");
    let incidents = Arc::new(Incidents::new(None, Duration::from_secs(60)));
    let stop = CancellationToken::new();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));
    let (alice, bob) = two_agents();
    assert_eq!(incidents.raise_by(drift("a"), Some(&alice)), Raised::Opened);
    for _ in 0..5 {
        assert!(incidents.sighting_by(IncidentKind::ContractDrift, "web_search", "a", Some(&bob)));
    }
    // A probe's or an anonymous caller's sighting counts, naming nobody.
    assert!(incidents.sighting(IncidentKind::ContractDrift, "web_search", "a"));
    assert!(incidents.flush(Duration::from_secs(10)).await);
    incidents.raise_by(drift("a"), Some(&alice));
    assert!(incidents.flush(Duration::from_secs(10)).await);
    let open = store.incidents(false).await.unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(open[0].count, 8);
    let named: Vec<(&str, i64)> = open[0]
        .agents
        .iter()
        .map(|a| (a.agent.as_str(), a.sightings))
        .collect();
    assert_eq!(named, vec![("bob", 5), ("alice", 2)]);
    assert_eq!(open[0].agents_unlisted, 0);
    stop.cancel();
    writer.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
