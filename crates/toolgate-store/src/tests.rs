//! The store's behaviour, one test body run against both backends: SQLite and a real,
//! throwaway PostgreSQL.

use std::path::PathBuf;
use std::time::Duration;

use super::*;
use toolgate_test_support::TestPostgres;

/// A fresh store of one backend, which can be opened again.
enum Fixture {
    Sqlite(PathBuf),
    Postgres(TestPostgres),
}

impl Fixture {
    fn new(backend: &str, name: &str) -> Fixture {
        match backend {
            "sqlite" => {
                let dir = std::env::temp_dir()
                    .join(format!("toolgate-store-{name}-{}", std::process::id()));
                let _ = std::fs::remove_dir_all(&dir);
                Fixture::Sqlite(dir)
            }
            _ => Fixture::Postgres(TestPostgres::start()),
        }
    }

    async fn open(&self) -> Result<Store, StoreError> {
        match self {
            Fixture::Sqlite(dir) => Store::open(&dir.join("nested/state.db")),
            Fixture::Postgres(pg) => PostgresStore::connect(&pg.url).await.map(Store::Postgres),
        }
    }

    /// Runs SQL on the PostgreSQL test database.
    fn sql(&self, sql: &str) {
        match self {
            Fixture::Postgres(pg) => pg.sql(sql),
            Fixture::Sqlite(_) => unreachable!("PostgreSQL only"),
        }
    }

    /// Marks the store as written by a toolgate with schema version 99.
    fn make_newer(&self) {
        match self {
            Fixture::Sqlite(dir) => {
                let c = rusqlite::Connection::open(dir.join("nested/state.db")).unwrap();
                c.pragma_update(None, "user_version", 99).unwrap();
            }
            Fixture::Postgres(pg) => pg.sql("INSERT INTO toolgate_schema (version) VALUES (99)"),
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Fixture::Sqlite(dir) = self {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// One test per backend for each body.
macro_rules! on_both {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn sqlite() {
                    super::$name(super::Fixture::new("sqlite", stringify!($name))).await;
                }
                #[cfg(feature = "postgres")]
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn postgres() {
                    super::$name(super::Fixture::new("postgres", stringify!($name))).await;
                }
            }
        )*
    };
}

on_both!(
    the_same_drift_updates_the_open_incident_and_a_new_one_opens_another,
    a_store_from_a_newer_toolgate_is_refused_not_used,
    sightings_merged_by_the_writer_add_up,
    deprecations_dead_letters_and_probes_are_kept,
    concurrent_writers_make_one_open_incident_per_fingerprint,
    one_of_two_claimers_notifies_and_the_throttle_holds,
    leases_expire_and_are_taken_over,
    people_acknowledge_and_resolve_incidents_by_id,
);

async fn people_acknowledge_and_resolve_incidents_by_id(f: Fixture) {
    let store = f.open().await.unwrap();
    let a = store.record_incident(drift("a")).await.unwrap().id;
    let fresh = store.incident(a).await.unwrap().unwrap();
    assert_eq!(
        (fresh.acked_by, fresh.resolved_by, fresh.resolved_at),
        (None, None, None)
    );
    let acked = store.acknowledge(a, "alice".into()).await.unwrap().unwrap();
    assert_eq!(acked.acked_by.as_deref(), Some("alice"));
    let at = acked.acked_at.clone().unwrap();
    assert!(chrono::DateTime::parse_from_rfc3339(&at).is_ok(), "{at}");
    // The first acknowledgement stays.
    let again = store.acknowledge(a, "bob".into()).await.unwrap().unwrap();
    assert_eq!(
        (again.acked_by.as_deref(), again.acked_at.as_deref()),
        (Some("alice"), Some(at.as_str()))
    );
    assert_eq!(again.status, "open");
    // Acknowledged is still open: a sighting counts into it.
    let seen = store.record_incident(drift("a")).await.unwrap();
    assert_eq!((seen.id, seen.opened), (a, false));

    let resolved = store.resolve_by(a, "bob".into()).await.unwrap().unwrap();
    assert_eq!(resolved.status, "resolved");
    assert_eq!(resolved.resolved_by.as_deref(), Some("bob"));
    assert!(resolved.resolved_at.is_some());
    assert!(store.incidents(false).await.unwrap().is_empty());
    // Resolving twice keeps the first.
    let twice = store.resolve_by(a, "carol".into()).await.unwrap().unwrap();
    assert_eq!(twice.resolved_by.as_deref(), Some("bob"));
    // The same breakage seen again is a new incident; toolgate's own resolution names nobody.
    let b = store.record_incident(drift("a")).await.unwrap();
    assert!(b.opened && b.id != a);
    let by_toolgate = store
        .resolve(
            IncidentKind::ContractDrift,
            "web_search".into(),
            None,
            "gone".into(),
        )
        .await
        .unwrap();
    assert_eq!(by_toolgate.len(), 1);
    let stored = store.incident(b.id).await.unwrap().unwrap();
    assert_eq!(
        (stored.status.as_str(), stored.resolved_by),
        ("resolved", None)
    );
    assert!(stored.resolved_at.is_some());
    assert!(store.incident(424_242).await.unwrap().is_none());
    assert!(
        store
            .acknowledge(424_242, "x".into())
            .await
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .resolve_by(424_242, "x".into())
            .await
            .unwrap()
            .is_none()
    );
}

#[tokio::test]
async fn a_store_from_before_acknowledgements_is_migrated_with_its_incidents() {
    let dir =
        std::env::temp_dir().join(format!("toolgate-store-ack-migrate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("state.db");
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        for (i, sql) in sqlite::MIGRATIONS[..2].iter().enumerate() {
            c.execute_batch(sql).unwrap();
            c.pragma_update(None, "user_version", i as i64 + 1).unwrap();
        }
        c.execute(
            "INSERT INTO incidents (kind, tool, dependency, owner, fingerprint, status, title, detail, first_seen, last_seen, count)
             VALUES ('contract_drift', 'web_search', 'search_api', 'o', 'fp', 'open', 't', '{}', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z', 3)",
            [],
        )
        .unwrap();
    }
    let store = Store::open(&path).unwrap();
    let open = store.incidents(false).await.unwrap();
    assert_eq!(
        (open.len(), open[0].count, open[0].acked_by.clone()),
        (1, 3, None)
    );
    let acked = store
        .acknowledge(open[0].id, "alice".into())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(acked.acked_by.as_deref(), Some("alice"));
    let _ = std::fs::remove_dir_all(&dir);
}

fn drift(fp: &str) -> NewIncident {
    NewIncident {
        kind: IncidentKind::ContractDrift,
        tool: "web_search".into(),
        dependency: "search_api".into(),
        owner: "alice@example.com".into(),
        fingerprint: fp.into(),
        title: "drift".into(),
        detail: serde_json::json!({"summary": fp}),
        contract_version: Some("3.1".into()),
    }
}

async fn the_same_drift_updates_the_open_incident_and_a_new_one_opens_another(f: Fixture) {
    let store = f.open().await.unwrap();
    let a = store
        .record_incident(drift("snippet->excerpt"))
        .await
        .unwrap();
    let b = store
        .record_incident(drift("snippet->excerpt"))
        .await
        .unwrap();
    let c = store.record_incident(drift("title missing")).await.unwrap();
    assert!(a.opened && !b.opened && c.opened);
    assert_eq!(a.id, b.id);
    assert_eq!(
        b.incident.as_ref().map(|i| i.count),
        Some(2),
        "the write returns the stored incident"
    );
    let open = store.incidents(false).await.unwrap();
    assert_eq!(open.len(), 2);
    let first = open.iter().find(|i| i.id == a.id).unwrap();
    assert_eq!(first.count, 2);
    assert_eq!(first.detail["summary"], "snippet->excerpt");
    assert_eq!(first.status, "open");
    assert!(
        chrono::DateTime::parse_from_rfc3339(&first.first_seen).is_ok(),
        "{}",
        first.first_seen
    );

    let resolved = store
        .resolve(
            IncidentKind::ContractDrift,
            "web_search".into(),
            None,
            "fixed".into(),
        )
        .await
        .unwrap();
    assert_eq!(resolved.len(), 2);
    assert!(resolved.iter().all(|i| i.status == "resolved"));
    assert!(store.incidents(false).await.unwrap().is_empty());
    let again = store
        .resolve(
            IncidentKind::ContractDrift,
            "web_search".into(),
            None,
            "fixed".into(),
        )
        .await
        .unwrap();
    assert!(again.is_empty(), "a resolution is announced once");
    // A recurrence after resolution is a new incident.
    assert!(
        store
            .record_incident(drift("snippet->excerpt"))
            .await
            .unwrap()
            .opened
    );
    // Opening again keeps the data (migrations are not re-run).
    drop(store);
    let again = f.open().await.unwrap();
    assert_eq!(again.incidents(true).await.unwrap().len(), 3);
}

async fn a_store_from_a_newer_toolgate_is_refused_not_used(f: Fixture) {
    drop(f.open().await.unwrap());
    f.make_newer();
    let err = f.open().await.unwrap_err();
    assert!(
        matches!(err, StoreError::NewerSchema { found: 99, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("newer toolgate"), "{err}");
    assert!(!err.is_transient());
}

async fn sightings_merged_by_the_writer_add_up(f: Fixture) {
    let store = f.open().await.unwrap();
    let a = store.record_sightings(drift("fp"), 3).await.unwrap();
    let b = store.record_sightings(drift("fp"), 5).await.unwrap();
    assert!(a.opened && !b.opened);
    assert_eq!(
        b.incident.map(|i| (i.count, i.fingerprint)),
        Some((8, "fp".into()))
    );
}

async fn deprecations_dead_letters_and_probes_are_kept(f: Fixture) {
    let store = f.open().await.unwrap();
    store
        .save_deprecation("legacy".into(), serde_json::json!({"sunset": "2027-01-15"}))
        .await
        .unwrap();
    store
        .save_deprecation("legacy".into(), serde_json::json!({"sunset": "2027-02-01"}))
        .await
        .unwrap();
    assert_eq!(
        store.deprecations().await.unwrap(),
        vec![(
            "legacy".to_string(),
            serde_json::json!({"sunset": "2027-02-01"})
        )]
    );
    for i in 0..3 {
        store
            .record_dead_letter(
                i,
                "https://hooks.example.com/services".into(),
                "HTTP 500".into(),
                serde_json::json!({"n": i}),
            )
            .await
            .unwrap();
    }
    let letters = store.dead_letters().await.unwrap();
    assert_eq!(
        letters.iter().map(|l| l.0).collect::<Vec<_>>(),
        vec![2, 1, 0]
    );
    assert_eq!(letters[0].2, "HTTP 500");
    for i in 0..105 {
        store
            .record_probe(
                "web_search".into(),
                i % 2 == 0,
                (i % 2 == 1).then(|| "timeout".into()),
                // NUL cannot be stored in PostgreSQL text; it must not fail the write.
                format!("run {i}\0"),
            )
            .await
            .unwrap();
    }
    let probes = store.probe_results("web_search".into()).await.unwrap();
    assert_eq!(probes.len(), 100, "the last 100 per tool are kept");
    assert_eq!(probes[0], (true, None), "newest first (run 104)");
    assert_eq!(probes[1], (false, Some("timeout".into())));
}

async fn concurrent_writers_make_one_open_incident_per_fingerprint(f: Fixture) {
    // Four handles, as four replicas would have, each recording the same two drifts.
    let mut handles = Vec::new();
    for _ in 0..4 {
        handles.push(f.open().await.unwrap());
    }
    let mut tasks = Vec::new();
    for (n, store) in handles.iter().enumerate() {
        for round in 0..10 {
            let store = store.clone();
            let fp = if (n + round) % 2 == 0 { "a" } else { "b" };
            tasks.push(tokio::spawn(async move {
                store.record_sightings(drift(fp), 2).await.unwrap()
            }));
        }
    }
    let mut opened = 0;
    for t in tasks {
        opened += usize::from(t.await.unwrap().opened);
    }
    assert_eq!(opened, 2, "exactly one writer opened each incident");
    let open = handles[0].incidents(false).await.unwrap();
    assert_eq!(open.len(), 2);
    assert!(
        open.iter().all(|i| i.count == 40),
        "every sighting counted once: {:?}",
        open.iter().map(|i| i.count).collect::<Vec<_>>()
    );
}

async fn one_of_two_claimers_notifies_and_the_throttle_holds(f: Fixture) {
    let a = f.open().await.unwrap();
    let b = f.open().await.unwrap();
    let id = a.record_incident(drift("fp")).await.unwrap().id;
    let throttle = Duration::from_secs(3600);
    if !a.is_shared() {
        // One replica: the notifier's own throttle decides, as before.
        assert!(a.claim_notification(id, throttle, true).await.unwrap());
        assert!(b.claim_notification(id, throttle, false).await.unwrap());
        return;
    }
    assert!(
        !b.claim_notification(id, throttle, false).await.unwrap(),
        "a replica that only saw the new incident leaves it to its opener"
    );
    let (x, y) = tokio::join!(
        a.claim_notification(id, throttle, true),
        b.claim_notification(id, throttle, true)
    );
    let (x, y) = (x.unwrap(), y.unwrap());
    assert!(x ^ y, "exactly one claimer wins: {x} {y}");
    assert!(
        !a.claim_notification(id, throttle, false).await.unwrap(),
        "within the throttle nobody notifies again"
    );
    assert!(
        b.claim_notification(id, Duration::ZERO, false)
            .await
            .unwrap(),
        "once the throttle passed, the next update may be sent"
    );
    // An incident whose opener never announced it is announced by an update later.
    let orphan = a.record_incident(drift("orphan")).await.unwrap().id;
    f.sql(&format!(
        "UPDATE incidents SET first_seen = now() - interval '1 hour' WHERE id = {orphan}"
    ));
    assert!(b.claim_notification(orphan, throttle, false).await.unwrap());
}

async fn leases_expire_and_are_taken_over(f: Fixture) {
    let store = f.open().await.unwrap();
    let long = Duration::from_secs(3600);
    assert!(store.try_lease("rules", "replica-a", long).await.unwrap());
    assert!(
        store.try_lease("rules", "replica-a", long).await.unwrap(),
        "the holder renews its own lease"
    );
    if !store.is_shared() {
        assert!(store.try_lease("rules", "replica-b", long).await.unwrap());
        return;
    }
    assert!(
        !store.try_lease("rules", "replica-b", long).await.unwrap(),
        "another replica cannot take a held lease"
    );
    assert!(
        store
            .try_lease("probe:web_search", "replica-b", long)
            .await
            .unwrap(),
        "leases are independent by name"
    );
    // A lease that expired is taken over.
    assert!(
        store
            .try_lease("short", "replica-a", Duration::from_millis(1))
            .await
            .unwrap()
    );
    let mut taken = false;
    for _ in 0..200 {
        if store.try_lease("short", "replica-b", long).await.unwrap() {
            taken = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(taken, "an expired lease is taken over");
    assert!(
        !store.try_lease("short", "replica-a", long).await.unwrap(),
        "the former holder lost it"
    );
}

#[cfg(not(feature = "postgres"))]
#[tokio::test]
async fn without_the_postgres_feature_a_postgres_state_is_refused_saying_how_to_rebuild() {
    let err = PostgresStore::connect("postgres://toolgate:s3cret-pw@127.0.0.1:5432/fleet")
        .await
        .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("this build has no PostgreSQL support: rebuild with `--features postgres`"),
        "{text}"
    );
    assert!(!text.contains("s3cret-pw"), "{text}");
    assert!(
        !err.is_transient(),
        "a rebuild, not a retry, fixes it: {text}"
    );
}

#[cfg(feature = "postgres")]
#[tokio::test]
async fn an_unreachable_postgres_fails_fast_naming_host_and_database_but_not_the_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://toolgate:s3cret-pw@127.0.0.1:{port}/fleet");
    let err = PostgresStore::connect(&url).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains(&format!("postgres://127.0.0.1:{port}/fleet")),
        "{text}"
    );
    assert!(!text.contains("s3cret-pw"), "{text}");
    assert!(
        err.is_transient(),
        "a refused connection may succeed later: {text}"
    );
    let bad = PostgresStore::connect("postgres://u:s3cret-pw@[::1:bad/x")
        .await
        .unwrap_err()
        .to_string();
    assert!(!bad.contains("s3cret-pw"), "{bad}");
}

mod activity;
mod audit;
mod listing;
