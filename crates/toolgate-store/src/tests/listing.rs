//! Pages of incidents, filtered and searched in SQL, on both backends.

use super::Fixture;
use crate::{IncidentKind, IncidentQuery, NewIncident};

on_both!(
    two_hundred_incidents_are_paged_filtered_and_searched_in_the_store,
    each_tool_s_newest_incident_of_a_kind_is_one_row
);

fn incident(n: usize) -> NewIncident {
    NewIncident {
        kind: if n.is_multiple_of(4) {
            IncidentKind::ProbeFailing
        } else {
            IncidentKind::ContractDrift
        },
        tool: format!("tool_{n:03}"),
        dependency: format!("api_{}", n % 3),
        owner: format!("Team-{}@Example.com", n % 5),
        fingerprint: format!("fp-{n}"),
        title: format!("Tool_{n:03} no longer matches contract v1"),
        detail: serde_json::json!({}),
        contract_version: None,
    }
}

async fn two_hundred_incidents_are_paged_filtered_and_searched_in_the_store(f: Fixture) {
    let store = f.open().await.unwrap();
    let mut ids = Vec::new();
    for n in 0..200 {
        ids.push(store.record_incident(incident(n)).await.unwrap().id);
    }
    // Every tenth is resolved by hand.
    for id in ids.iter().step_by(10) {
        store.resolve_by(*id, "alice".into()).await.unwrap();
    }
    let page = |status: Option<&str>, search: &str, page: usize| {
        let store = store.clone();
        let q = IncidentQuery {
            status: status.map(str::to_string),
            search: search.into(),
            page,
            per_page: 50,
        };
        async move { store.incident_page(q).await.unwrap() }
    };
    let first = page(Some("open"), "", 1).await;
    assert_eq!((first.matched, first.open, first.resolved), (180, 180, 20));
    assert_eq!((first.page, first.pages, first.incidents.len()), (1, 4, 50));
    assert_eq!(first.incidents[0].tool, "tool_199", "newest first");
    assert!(first.incidents.iter().all(|i| i.status == "open"));
    let last = page(Some("open"), "", 4).await;
    assert_eq!(last.incidents.len(), 30);
    assert_eq!(last.incidents.last().unwrap().tool, "tool_001");
    // The open pages hold every open incident once.
    let mut seen = std::collections::BTreeSet::new();
    for n in 1..=4 {
        for i in page(Some("open"), "", n).await.incidents {
            assert!(seen.insert(i.id), "{} twice", i.id);
        }
    }
    assert_eq!(seen.len(), 180);
    let beyond = page(None, "", 99).await;
    assert_eq!(
        (beyond.page, beyond.pages),
        (4, 4),
        "clamped to the last page"
    );
    assert_eq!(beyond.incidents.len(), 50);
    let resolved = page(Some("resolved"), "", 1).await;
    assert_eq!(resolved.matched, 20);
    assert!(
        resolved
            .incidents
            .iter()
            .all(|i| i.resolved_by.as_deref() == Some("alice"))
    );
    // Searches: case-insensitive, over the tool, the title, the owner, the kind.
    let tool = page(None, "TOOL_12", 1).await;
    assert_eq!(tool.matched, 10, "tool_120..tool_129");
    let owner = page(Some("open"), "team-3@example", 1).await;
    assert_eq!(owner.matched, 40, "team-3's 40, none of them resolved");
    let kind = page(None, "probe_failing", 2).await;
    assert_eq!((kind.matched, kind.page, kind.incidents.len()), (50, 1, 50));
    // An id: that incident, and any whose tool or title holds the same digits.
    let id = page(None, &ids[187].to_string(), 1).await;
    assert!(
        id.incidents.iter().any(|i| i.id == ids[187]),
        "{:?}",
        id.incidents
    );
    assert!(id.matched <= 3, "{}", id.matched);
    let none = page(None, "nothing like it", 1).await;
    assert_eq!((none.matched, none.pages, none.incidents.len()), (0, 1, 0));
    // A search is text, not a pattern.
    assert_eq!(page(None, "%", 1).await.matched, 0);
    assert_eq!(page(None, "tool_1_", 1).await.matched, 0);
}

/// The Tools page reads each tool's newest drift, one row a tool, not the whole store.
async fn each_tool_s_newest_incident_of_a_kind_is_one_row(f: Fixture) {
    let store = f.open().await.unwrap();
    // Three tools; tool_000 drifts three times (the first two resolved), tool_001 once,
    // tool_002 only fails its probe.
    let drift = |tool: &str, fp: &str| NewIncident {
        kind: IncidentKind::ContractDrift,
        fingerprint: fp.into(),
        tool: tool.into(),
        ..incident(1)
    };
    let mut first = Vec::new();
    for fp in ["a", "b", "c"] {
        let id = store
            .record_incident(drift("tool_000", fp))
            .await
            .unwrap()
            .id;
        first.push(id);
        if fp != "c" {
            store.resolve_by(id, "alice".into()).await.unwrap();
        }
    }
    let other = store
        .record_incident(drift("tool_001", "d"))
        .await
        .unwrap()
        .id;
    store
        .record_incident(NewIncident {
            tool: "tool_002".into(),
            ..incident(0)
        })
        .await
        .unwrap();
    let mut newest: Vec<(String, i64)> = store
        .newest_by_tool("contract_drift")
        .await
        .unwrap()
        .into_iter()
        .map(|i| (i.tool, i.id))
        .collect();
    newest.sort();
    assert_eq!(
        newest,
        vec![
            ("tool_000".to_string(), first[2]),
            ("tool_001".to_string(), other)
        ]
    );
    assert_eq!(
        store.newest_by_tool("probe_failing").await.unwrap().len(),
        1
    );
    assert!(
        store
            .newest_by_tool("no_such_kind")
            .await
            .unwrap()
            .is_empty()
    );
}
