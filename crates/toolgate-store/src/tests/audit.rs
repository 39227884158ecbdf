//! The audit table, on both backends.

use chrono::{Duration as Span, Utc};

use super::Fixture;
use crate::{AuditQuery, AuditRecord};

on_both!(
    audit_records_are_filtered_newest_first_and_capped,
    audit_prune_deletes_only_older_records_in_bounded_batches,
    a_batch_of_any_size_is_read_back_whole_with_every_field,
);

fn record(minutes_ago: i64, agent: &str, tool: &str, outcome: &str) -> AuditRecord {
    AuditRecord {
        at: crate::audit::stamp(Utc::now() - Span::minutes(minutes_ago)),
        agent: agent.into(),
        tool: tool.into(),
        outcome: outcome.into(),
        attempts: 2,
        latency_ms: 41,
        args_sha256: format!("{:064x}", minutes_ago),
        incident_id: (outcome == "contract_drift").then_some(7),
        request_id: Some(format!("\"req-{minutes_ago}\"")),
        trace_id: None,
    }
}

/// Batches around the sizes one statement writes (a row, a statement's 64, and tails of
/// each shape), every record with fields of its own, the optional ones set on some.
async fn a_batch_of_any_size_is_read_back_whole_with_every_field(f: Fixture) {
    let store = f.open().await.unwrap();
    let mut all_written = Vec::new();
    let mut minutes = 10_000;
    for size in [1, 3, 63, 64, 65, 127, 200] {
        let batch: Vec<AuditRecord> = (0..size)
            .map(|i| {
                minutes -= 1;
                let mut r = record(minutes, &format!("agent-{i}"), "web_search", "ok");
                r.attempts = i;
                r.latency_ms = u64::from(i) * 7;
                r.incident_id = (i % 3 == 0).then_some(i64::from(i));
                r.request_id = (i % 2 == 0).then(|| format!("{size}-{i}"));
                r.trace_id = (i % 5 == 0).then(|| format!("{:032x}", i + 1));
                r
            })
            .collect();
        store.record_audit(batch.clone()).await.unwrap();
        all_written.extend(batch);
    }
    let read = store
        .audit(AuditQuery {
            limit: 1_000,
            ..Default::default()
        })
        .await
        .unwrap();
    all_written.reverse();
    assert_eq!(read.len(), all_written.len());
    assert_eq!(read, all_written, "every record, every field, in order");
}

async fn audit_records_are_filtered_newest_first_and_capped(f: Fixture) {
    let store = f.open().await.unwrap();
    let written = vec![
        record(50, "reporting-bot", "web_search", "ok"),
        record(40, "ops-bot", "web_search", "rate_limited"),
        record(30, "reporting-bot", "delete_repo", "forbidden"),
        record(20, "anonymous", "web_search", "contract_drift"),
        record(10, "reporting-bot", "web_search", "ok"),
    ];
    store.record_audit(written.clone()).await.unwrap();
    let all = store
        .audit(AuditQuery {
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    let mut newest_first = written.clone();
    newest_first.reverse();
    assert_eq!(all, newest_first, "every field read back as written");

    let q = |agent: Option<&str>, tool: Option<&str>, outcome: Option<&str>| AuditQuery {
        agent: agent.map(str::to_string),
        tool: tool.map(str::to_string),
        outcome: outcome.map(str::to_string),
        limit: 100,
        ..Default::default()
    };
    let bot = store
        .audit(q(Some("reporting-bot"), None, None))
        .await
        .unwrap();
    assert_eq!(
        bot,
        vec![written[4].clone(), written[2].clone(), written[0].clone()]
    );
    let search_ok = store
        .audit(q(Some("reporting-bot"), Some("web_search"), Some("ok")))
        .await
        .unwrap();
    assert_eq!(search_ok, vec![written[4].clone(), written[0].clone()]);
    let drift = store
        .audit(q(None, None, Some("contract_drift")))
        .await
        .unwrap();
    assert_eq!(drift, vec![written[3].clone()]);
    assert!(
        store
            .audit(q(Some("nobody"), None, None))
            .await
            .unwrap()
            .is_empty()
    );

    // since is inclusive, until exclusive: the window 45..15 minutes ago.
    let window = store
        .audit(AuditQuery {
            since: Some(Utc::now() - Span::minutes(45)),
            until: Some(Utc::now() - Span::minutes(15)),
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(
        window,
        vec![written[3].clone(), written[2].clone(), written[1].clone()]
    );

    let two = store
        .audit(AuditQuery {
            limit: 2,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(two, newest_first[..2].to_vec());
    // A limit of 0 or beyond the cap is brought within bounds, never unbounded.
    let huge = AuditQuery {
        limit: u32::MAX,
        ..Default::default()
    };
    assert_eq!(huge.capped_limit(), crate::AUDIT_READ_MAX);
    assert_eq!(store.audit(huge).await.unwrap().len(), 5);
    assert_eq!(store.audit(AuditQuery::default()).await.unwrap().len(), 1);

    // Reopening (a restart) keeps them.
    drop(store);
    let again = f.open().await.unwrap();
    assert_eq!(again.audit(q(None, None, None)).await.unwrap().len(), 5);
}

async fn audit_prune_deletes_only_older_records_in_bounded_batches(f: Fixture) {
    let store = f.open().await.unwrap();
    let old: Vec<AuditRecord> = (0..25)
        .map(|i| record(60 * 24 * 40 + i, "ops-bot", "web_search", "ok"))
        .collect();
    let fresh: Vec<AuditRecord> = (0..3)
        .map(|i| record(i, "ops-bot", "web_search", "ok"))
        .collect();
    store.record_audit(old).await.unwrap();
    store.record_audit(fresh.clone()).await.unwrap();
    let cutoff = Utc::now() - Span::days(30);
    assert_eq!(store.prune_audit(cutoff, 10).await.unwrap(), 10);
    assert_eq!(store.prune_audit(cutoff, 10).await.unwrap(), 10);
    assert_eq!(store.prune_audit(cutoff, 10).await.unwrap(), 5);
    assert_eq!(store.prune_audit(cutoff, 10).await.unwrap(), 0);
    let left = store
        .audit(AuditQuery {
            limit: 100,
            ..Default::default()
        })
        .await
        .unwrap();
    assert_eq!(left, fresh, "records within the retention are kept");
}
