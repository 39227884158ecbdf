//! Incident agents and webhook deliveries, on both backends.

use super::{Fixture, drift};
use crate::{AGENTS_LISTED, IncidentAgent};

on_both!(
    agents_are_credited_bounded_and_kept_across_sightings,
    deliveries_are_kept_per_incident_newest_first,
);

async fn agents_are_credited_bounded_and_kept_across_sightings(f: Fixture) {
    let store = f.open().await.unwrap();
    let first = store
        .record_sightings_by(
            drift("a"),
            3,
            vec![("alice".into(), 2), ("bob".into(), 1)],
            0,
        )
        .await
        .unwrap();
    let stored = first.incident.unwrap();
    assert_eq!(
        stored.agents,
        vec![
            IncidentAgent {
                agent: "alice".into(),
                sightings: 2
            },
            IncidentAgent {
                agent: "bob".into(),
                sightings: 1
            },
        ]
    );
    // More sightings add up; an anonymous sighting (no name) only counts.
    let again = store
        .record_sightings_by(drift("a"), 4, vec![("bob".into(), 3)], 0)
        .await
        .unwrap();
    assert_eq!(again.id, first.id);
    let stored = again.incident.unwrap();
    assert_eq!(stored.count, 7);
    assert_eq!(
        stored.agents[0],
        IncidentAgent {
            agent: "bob".into(),
            sightings: 4
        }
    );
    // Past the listed names, sightings are counted, not named; a listed agent still adds.
    let many: Vec<(String, u32)> = (0..30).map(|n| (format!("agent-{n:02}"), 1)).collect();
    store
        .record_sightings_by(drift("a"), 30, many, 5)
        .await
        .unwrap();
    store
        .record_sightings_by(drift("a"), 1, vec![("alice".into(), 1)], 0)
        .await
        .unwrap();
    let stored = store.incident(first.id).await.unwrap().unwrap();
    assert_eq!(stored.agents.len(), AGENTS_LISTED, "{:?}", stored.agents);
    assert_eq!(
        stored.agents_unlisted,
        12 + 5,
        "30 new names, 18 listed, 12 counted, and 5 unnamed"
    );
    assert!(stored.agents.contains(&IncidentAgent {
        agent: "alice".into(),
        sightings: 3
    }));
    // The list and the JSON API read the same; another incident has none.
    let listed = store.incidents(true).await.unwrap();
    assert_eq!(listed[0].agents.len(), AGENTS_LISTED);
    let json = serde_json::to_value(&listed[0]).unwrap();
    assert_eq!(json["agents"][0]["agent"], "bob");
    assert_eq!(json["agents_unlisted"], 17);
    let other = store
        .record_incident(drift("b"))
        .await
        .unwrap()
        .incident
        .unwrap();
    assert!(other.agents.is_empty() && other.agents_unlisted == 0);
}

async fn deliveries_are_kept_per_incident_newest_first(f: Fixture) {
    let store = f.open().await.unwrap();
    let a = store.record_incident(drift("a")).await.unwrap().id;
    let b = store.record_incident(drift("b")).await.unwrap().id;
    store
        .record_delivery(
            a,
            "opened",
            "https://hooks.example/services".into(),
            1,
            None,
        )
        .await
        .unwrap();
    store
        .record_delivery(b, "opened", "https://hooks.example/other".into(), 1, None)
        .await
        .unwrap();
    store
        .record_delivery(
            a,
            "updated",
            "https://hooks.example/services".into(),
            3,
            Some("HTTP 500".into()),
        )
        .await
        .unwrap();
    let list = store.deliveries(a).await.unwrap();
    assert_eq!(list.len(), 2, "{list:?}");
    assert_eq!(
        (
            list[0].event.as_str(),
            list[0].attempts,
            list[0].status.as_str(),
            list[0].error.as_deref()
        ),
        ("updated", 3, "dead_letter", Some("HTTP 500"))
    );
    assert_eq!(
        (
            list[1].event.as_str(),
            list[1].status.as_str(),
            list[1].error.as_deref()
        ),
        ("opened", "delivered", None)
    );
    assert!(list[1].at.ends_with('Z'));
    assert!(store.deliveries(424_242).await.unwrap().is_empty());
}
