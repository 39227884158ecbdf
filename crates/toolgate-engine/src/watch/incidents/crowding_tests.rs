//! One upstream whose replies tell incidents apart on their own (a drift under a map key
//! that is new on every reply, a sunset date or a notice that changes on every reply):
//! what it can cost the incident state, the store and the other tools' incidents.

use super::*;

fn drift_of(tool: &str, fp: &str) -> NewIncident {
    NewIncident {
        kind: IncidentKind::ContractDrift,
        tool: tool.into(),
        dependency: format!("{tool}_api"),
        owner: "team@example.com".into(),
        fingerprint: fp.into(),
        title: format!("{tool} drifted: {fp}"),
        detail: serde_json::json!({ "fp": fp }),
        contract_version: Some("1.0".into()),
    }
}

fn temp_store(name: &str) -> (Store, std::path::PathBuf) {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-incidents-crowding-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    (Store::open(&dir.join("state.db")).unwrap(), dir)
}

/// The writes waiting for the writer, and those of them about `tool`.
fn queued(incidents: &Incidents, tool: &str) -> (usize, usize) {
    let g = lock(&incidents.index);
    let of_tool = g
        .queue
        .iter()
        .filter(|w| match w {
            Write::Open(i, _) => i.tool == tool,
            Write::Resolve { tool: t, .. } | Write::Deprecation { tool: t, .. } => t == tool,
        })
        .count();
    (g.queue.len(), of_tool)
}

#[test]
fn a_tool_drifting_a_new_way_on_every_reply_holds_a_bounded_number_of_incidents() {
    let incidents = Incidents::new(None, Duration::from_secs(60));
    for i in 0..10_000 {
        incidents.raise(drift_of("rates", &format!("{i:016x}")));
    }
    let open = incidents.open_of(IncidentKind::ContractDrift, "rates");
    assert_eq!(open.len(), MAX_OPEN_PER_TOOL + 1, "{} open", open.len());
    let (all, _) = queued(&incidents, "rates");
    assert_eq!(all, MAX_OPEN_PER_TOOL + 1, "one write per incident opened");
    // The sightings beyond the bound are all counted, in the crowded incident.
    let crowded = open.iter().find(|(fp, _)| fp == CROWDED).unwrap();
    assert_eq!(crowded.1 as usize, 10_000 - MAX_OPEN_PER_TOOL - 1);
    // A repeat of a breakage that has its own incident still counts there.
    assert_eq!(
        incidents.raise(drift_of("rates", &format!("{:016x}", 3))),
        Raised::Seen
    );
    assert!(incidents.sighting(IncidentKind::ContractDrift, "rates", "ffffffff00000000"));
}

#[test]
fn another_tools_incident_is_not_crowded_out_of_the_writers_queue() {
    let incidents = Incidents::new(None, Duration::from_secs(60));
    for i in 0..(QUEUE_CAP * 2) {
        incidents.raise(drift_of("rates", &i.to_string()));
    }
    assert_eq!(incidents.raise(drift_of("web_search", "a")), Raised::Opened);
    let (_, of_other) = queued(&incidents, "web_search");
    assert_eq!(of_other, 1, "the other tool's incident waits to be written");
    assert_eq!(lock(&incidents.index).dropped, 0);
}

#[tokio::test]
async fn distinct_breakages_below_the_bound_each_get_their_own_incident_and_clear_together() {
    let (store, dir) = temp_store("below");
    let incidents = Arc::new(Incidents::new(None, Duration::from_secs(60)));
    let stop = CancellationToken::new();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));
    for fp in ["a", "b", "c"] {
        assert_eq!(incidents.raise(drift_of("rates", fp)), Raised::Opened);
    }
    for i in 0..100 {
        incidents.raise(drift_of("rates", &format!("many-{i}")));
    }
    assert!(incidents.flush(Duration::from_secs(10)).await);
    let open = store.incidents(false).await.unwrap();
    assert_eq!(open.len(), MAX_OPEN_PER_TOOL + 1);
    for fp in ["a", "b", "c"] {
        assert!(open.iter().any(|i| i.fingerprint == fp), "{fp} has its own");
    }
    let crowded = open.iter().find(|i| i.fingerprint == CROWDED).unwrap();
    assert!(crowded.title.contains("more than 16"), "{}", crowded.title);
    assert!(
        crowded.title.contains("many-99"),
        "names the latest: {}",
        crowded.title
    );
    assert_eq!(crowded.count as usize, 100 - (MAX_OPEN_PER_TOOL - 3));
    // A call's audit record names the incident its sighting was counted into.
    let counted_in = |fingerprint: &str| {
        incidents.id_of(&IncidentRef {
            kind: IncidentKind::ContractDrift,
            tool: "rates".into(),
            fingerprint: fingerprint.into(),
        })
    };
    assert_eq!(counted_in("many-99"), Some(crowded.id));
    let own = open.iter().find(|i| i.fingerprint == "a").unwrap();
    assert_eq!(counted_in("a"), Some(own.id));

    incidents.clear(IncidentKind::ContractDrift, "rates", None, "valid again");
    assert!(incidents.flush(Duration::from_secs(10)).await);
    assert!(store.incidents(false).await.unwrap().is_empty());
    // Once cleared, the tool has room for its own incidents again.
    assert_eq!(incidents.raise(drift_of("rates", "d")), Raised::Opened);
    assert_eq!(
        incidents.open_of(IncidentKind::ContractDrift, "rates"),
        vec![("d".to_owned(), 0)]
    );
    stop.cancel();
    writer.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn incidents_restored_at_start_count_toward_the_bound() {
    let (store, dir) = temp_store("restored");
    for i in 0..MAX_OPEN_PER_TOOL {
        store
            .record_incident(drift_of("rates", &i.to_string()))
            .await
            .unwrap();
    }
    let incidents = Incidents::new(None, Duration::from_secs(60));
    incidents.restore(&store).await;
    assert_eq!(incidents.raise(drift_of("rates", "new")), Raised::Opened);
    let open = incidents.open_of(IncidentKind::ContractDrift, "rates");
    assert!(open.iter().any(|(fp, _)| fp == CROWDED), "{open:?}");
    assert!(!open.iter().any(|(fp, _)| fp == "new"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_deprecation_notice_changing_on_every_reply_is_one_pending_write() {
    let incidents = Incidents::new(None, Duration::from_secs(60));
    for i in 0..10_000 {
        incidents.save_deprecation(
            "rates",
            serde_json::json!({ "deprecated": true, "info": format!("https://api.example.com/d/{i}") }),
        );
    }
    incidents.save_deprecation("web_search", serde_json::json!({ "deprecated": true }));
    let (all, of_tool) = queued(&incidents, "rates");
    assert_eq!((all, of_tool), (2, 1));
    let g = lock(&incidents.index);
    let latest = g.queue.iter().find_map(|w| match w {
        Write::Deprecation { tool, notice } if tool == "rates" => Some(notice.clone()),
        _ => None,
    });
    assert_eq!(
        latest.unwrap()["info"],
        "https://api.example.com/d/9999",
        "the latest notice is the one written"
    );
}

#[tokio::test]
async fn a_changed_deprecation_notice_is_still_written() {
    let (store, dir) = temp_store("notice");
    let incidents = Arc::new(Incidents::new(None, Duration::from_secs(60)));
    let stop = CancellationToken::new();
    let writer = tokio::spawn(incidents.clone().run_writer(store.clone(), stop.clone()));
    incidents.save_deprecation(
        "rates",
        serde_json::json!({ "deprecated": true, "info": "a" }),
    );
    assert!(incidents.flush(Duration::from_secs(10)).await);
    incidents.save_deprecation(
        "rates",
        serde_json::json!({ "deprecated": true, "info": "b" }),
    );
    assert!(incidents.flush(Duration::from_secs(10)).await);
    let saved = store.deprecations().await.unwrap();
    let notice = saved
        .iter()
        .find(|(t, _)| t == "rates")
        .map(|(_, n)| n.clone());
    assert_eq!(notice.unwrap()["info"], "b");
    stop.cancel();
    writer.await.unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}
