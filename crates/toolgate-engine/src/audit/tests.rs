use std::sync::Arc;
use std::time::Duration;

use prometheus_client::metrics::counter::Counter;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;
use toolgate_store::{AuditQuery, AuditRecord, Store};

use super::*;

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => unreachable!("an object"),
    }
}

fn sample(i: usize) -> AuditRecord {
    AuditRecord {
        at: format!("2026-01-01T00:00:{:02}.000Z", i % 60),
        agent: "ops-bot".into(),
        tool: "web_search".into(),
        outcome: "ok".into(),
        attempts: 1,
        latency_ms: 3,
        args_sha256: "0".repeat(64),
        incident_id: None,
        request_id: Some(i.to_string()),
        trace_id: None,
    }
}

fn temp_store(name: &str) -> (std::path::PathBuf, Store) {
    let dir = std::env::temp_dir().join(format!("toolgate-audit-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let store = Store::open(&dir.join("state.db")).unwrap();
    (dir, store)
}

#[test]
fn the_hash_is_of_canonical_json_and_never_holds_the_values() {
    let secret = "sk-live-4f9a8b7c6d5e4f3a2b1c";
    let a = args(json!({"query": "status", "auth": {"token": secret, "kind": "bearer"}, "n": 10}));
    let b = args(json!({"n": 10, "auth": {"kind": "bearer", "token": secret}, "query": "status"}));
    let hash = args_sha256(&a);
    assert_eq!(hash.len(), 64);
    assert!(
        hash.bytes()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase())
    );
    assert_eq!(hash, args_sha256(&b), "key order does not change the hash");
    // The canonical text is the sorted, compact JSON: its SHA-256 is the hash.
    let canonical =
        format!(r#"{{"auth":{{"kind":"bearer","token":"{secret}"}},"n":10,"query":"status"}}"#);
    let expected = ring::digest::digest(&ring::digest::SHA256, canonical.as_bytes());
    let expected: String = expected
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(hash, expected);
    assert!(!hash.contains(secret) && !hash.contains("status"));
    let other = args(
        json!({"query": "status", "auth": {"token": "sk-live-other", "kind": "bearer"}, "n": 10}),
    );
    assert_ne!(hash, args_sha256(&other), "another value, another hash");
    assert_ne!(
        args_sha256(&args(json!({"n": 10}))),
        args_sha256(&args(json!({"n": "10"})))
    );
}

#[tokio::test(start_paused = true)]
async fn a_full_queue_drops_and_counts_instead_of_blocking() {
    let dropped = Counter::default();
    let log = Arc::new(AuditLog::new(4, dropped.clone()));
    // No writer runs: the queue fills and stays full. Every record call returns at once
    // (on paused time, any wait would hang the test, not pass it).
    for i in 0..1_000 {
        log.record(sample(i));
    }
    assert_eq!(dropped.get(), 996);
    assert!(
        !log.flush(Duration::from_secs(1)).await,
        "nothing was written"
    );

    // Once the writer runs, what was queued is written and new records are accepted.
    let (dir, store) = temp_store("full");
    let stop = CancellationToken::new();
    let writer = tokio::spawn(log.clone().run_writer(store.clone(), stop.clone()));
    assert!(log.flush(Duration::from_secs(60)).await);
    log.record(sample(1_000));
    assert!(log.flush(Duration::from_secs(60)).await);
    let rows = store
        .audit(AuditQuery {
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(rows.len(), 5);
    assert_eq!(dropped.get(), 996);
    stop.cancel();
    writer.await.unwrap();
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_writer_commits_in_batches_and_drains_the_queue_at_shutdown() {
    let (dir, store) = temp_store("drain");
    let log = Arc::new(AuditLog::new(QUEUE, Counter::default()));
    let stop = CancellationToken::new();
    let writer = tokio::spawn(log.clone().run_writer(store.clone(), stop.clone()));
    for i in 0..2_000 {
        log.record(sample(i));
    }
    assert!(log.flush(Duration::from_secs(30)).await);
    for i in 2_000..3_000 {
        log.record(sample(i));
    }
    // Shutdown right away: what was queued is still written before the writer returns.
    stop.cancel();
    writer.await.unwrap();
    let rows = store
        .audit(AuditQuery {
            limit: 10_000,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(rows.len(), 3_000);
    // After shutdown nothing more is accepted, and recording does not fail or wait.
    log.record(sample(3_000));
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prune_deletes_what_is_past_the_retention_in_batches() {
    let (dir, store) = temp_store("prune");
    let old_stamp = |i: usize| {
        (chrono::Utc::now() - chrono::Duration::days(31) - chrono::Duration::seconds(i as i64))
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    };
    let old: Vec<AuditRecord> = (0..2_500)
        .map(|i| AuditRecord {
            at: old_stamp(i),
            ..sample(i)
        })
        .collect();
    store.record_audit(old).await.unwrap();
    let recent = AuditRecord {
        at: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        ..sample(0)
    };
    store.record_audit(vec![recent.clone()]).await.unwrap();
    let deleted = prune(
        &store,
        Duration::from_secs(30 * 86_400),
        &CancellationToken::new(),
    )
    .await;
    assert_eq!(deleted, 2_500, "three batches of at most {PRUNE_BATCH}");
    let rows = store
        .audit(AuditQuery {
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(rows, vec![recent]);
    let _ = std::fs::remove_dir_all(dir);
}

fn queued(i: usize) -> Queued {
    Queued {
        record: sample(i),
        incident: None,
    }
}

#[tokio::test(start_paused = true)]
async fn a_batch_takes_what_queued_during_the_linger_in_one_go() {
    let (tx, mut rx) = mpsc::channel(QUEUE);
    let mut batch = vec![queued(0)];
    // Records arriving one by one while the writer lingers.
    let sender = tokio::spawn(async move {
        for i in 1..=5 {
            tokio::time::sleep(LINGER / 8).await;
            tx.send(queued(i)).await.unwrap();
        }
        tx
    });
    let started = tokio::time::Instant::now();
    linger(&mut rx, &mut batch).await;
    assert_eq!(started.elapsed(), LINGER);
    assert_eq!(batch.len(), 6, "every record of the linger joins the batch");
    let tx = sender.await.unwrap();
    // A queue already holding a batch is taken at once, a batch at most.
    for i in 0..BATCH + 10 {
        tx.try_send(queued(i)).unwrap();
    }
    let mut batch = vec![queued(0)];
    let started = tokio::time::Instant::now();
    linger(&mut rx, &mut batch).await;
    assert_eq!(started.elapsed(), Duration::ZERO);
    assert_eq!(batch.len(), BATCH);
    assert_eq!(rx.len(), 11);
}
