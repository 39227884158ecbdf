//! The audit table in SQLite.

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::SqliteStore;
use crate::StoreError;
use crate::audit::{AuditQuery, AuditRecord, stamp};

/// The migration that adds the audit table; times are fixed-width RFC 3339 text, so the
/// indexes order them.
pub(super) const MIGRATION: &str = "CREATE TABLE audit (
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        agent TEXT NOT NULL,
        tool TEXT NOT NULL,
        outcome TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        latency_ms INTEGER NOT NULL,
        args_sha256 TEXT NOT NULL,
        incident_id INTEGER,
        request_id TEXT,
        trace_id TEXT
    );
    CREATE INDEX audit_at ON audit(at);
    CREATE INDEX audit_agent ON audit(agent, at);
    CREATE INDEX audit_tool ON audit(tool, at);";

impl SqliteStore {
    pub(crate) async fn record_audit(&self, records: Vec<AuditRecord>) -> Result<(), StoreError> {
        self.with(move |c| {
            let tx = c.transaction()?;
            {
                let mut stmt = tx.prepare_cached(
                    "INSERT INTO audit (at, agent, tool, outcome, attempts, latency_ms, args_sha256,
                        incident_id, request_id, trace_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                )?;
                for r in &records {
                    stmt.execute(params![
                        r.at,
                        r.agent,
                        r.tool,
                        r.outcome,
                        r.attempts,
                        i64::try_from(r.latency_ms).unwrap_or(i64::MAX),
                        r.args_sha256,
                        r.incident_id,
                        r.request_id,
                        r.trace_id
                    ])?;
                }
            }
            tx.commit()
        })
        .await
    }

    pub(crate) async fn audit(&self, q: AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        let limit = q.capped_limit();
        self.with(move |c| {
            let mut stmt = c.prepare_cached(
                "SELECT at, agent, tool, outcome, attempts, latency_ms, args_sha256, incident_id,
                        request_id, trace_id
                 FROM audit
                 WHERE (?1 IS NULL OR agent = ?1) AND (?2 IS NULL OR tool = ?2)
                   AND (?3 IS NULL OR outcome = ?3) AND (?4 IS NULL OR at >= ?4)
                   AND (?5 IS NULL OR at < ?5)
                 ORDER BY at DESC, id DESC LIMIT ?6",
            )?;
            let rows = stmt.query_map(
                params![
                    q.agent,
                    q.tool,
                    q.outcome,
                    q.since.map(stamp),
                    q.until.map(stamp),
                    limit
                ],
                |r| {
                    let latency: i64 = r.get(5)?;
                    Ok(AuditRecord {
                        at: r.get(0)?,
                        agent: r.get(1)?,
                        tool: r.get(2)?,
                        outcome: r.get(3)?,
                        attempts: r.get(4)?,
                        latency_ms: u64::try_from(latency).unwrap_or(0),
                        args_sha256: r.get(6)?,
                        incident_id: r.get(7)?,
                        request_id: r.get(8)?,
                        trace_id: r.get(9)?,
                    })
                },
            )?;
            rows.collect()
        })
        .await
    }

    pub(crate) async fn prune_audit(
        &self,
        before: DateTime<Utc>,
        batch: u32,
    ) -> Result<u64, StoreError> {
        self.with(move |c| {
            c.execute(
                "DELETE FROM audit WHERE id IN
                   (SELECT id FROM audit WHERE at < ?1 ORDER BY at LIMIT ?2)",
                params![stamp(before), batch.max(1)],
            )
            .map(|n| n as u64)
        })
        .await
    }
}
