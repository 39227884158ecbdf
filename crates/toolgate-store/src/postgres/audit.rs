//! The audit table in PostgreSQL.

use chrono::{DateTime, Utc};

use super::{ANSWER, PostgresStore, pg_error, text};
use crate::StoreError;
use crate::audit::{AuditQuery, AuditRecord, stamp};

/// The migration that adds the audit table.
pub(super) const MIGRATION: &str = "CREATE TABLE audit (
        id BIGSERIAL PRIMARY KEY,
        at TIMESTAMPTZ NOT NULL,
        agent TEXT NOT NULL,
        tool TEXT NOT NULL,
        outcome TEXT NOT NULL,
        attempts BIGINT NOT NULL,
        latency_ms BIGINT NOT NULL,
        args_sha256 TEXT NOT NULL,
        incident_id BIGINT,
        request_id TEXT,
        trace_id TEXT
    );
    CREATE INDEX audit_at ON audit (at);
    CREATE INDEX audit_agent ON audit (agent, at);
    CREATE INDEX audit_tool ON audit (tool, at);";

impl PostgresStore {
    pub(crate) async fn record_audit(
        &self,
        records: std::sync::Arc<[AuditRecord]>,
    ) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        // A batch that timed out may still have been committed: the writer then sends
        // it again, and the trail holds those calls twice rather than not at all.
        match tokio::time::timeout(ANSWER, self.insert_audit(&mut client, &records)).await {
            Ok(done) => done,
            Err(_) => Err(self.silent(client, ANSWER)),
        }
    }

    async fn insert_audit(
        &self,
        client: &mut deadpool_postgres::Object,
        records: &[AuditRecord],
    ) -> Result<(), StoreError> {
        let err = |e: tokio_postgres::Error| pg_error(&self.target, &e);
        let tx = client.transaction().await.map_err(err)?;
        let stmt = tx
            .prepare_cached(
                "INSERT INTO audit (at, agent, tool, outcome, attempts, latency_ms, args_sha256,
                    incident_id, request_id, trace_id)
                 VALUES ($1::TEXT::TIMESTAMPTZ, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
            )
            .await
            .map_err(err)?;
        for r in records {
            tx.execute(
                &stmt,
                &[
                    &r.at,
                    &text(&r.agent),
                    &text(&r.tool),
                    &text(&r.outcome),
                    &i64::from(r.attempts),
                    &i64::try_from(r.latency_ms).unwrap_or(i64::MAX),
                    &r.args_sha256,
                    &r.incident_id,
                    &r.request_id.as_deref().map(text),
                    &r.trace_id.as_deref().map(text),
                ],
            )
            .await
            .map_err(err)?;
        }
        tx.commit().await.map_err(err)
    }

    pub(crate) async fn audit(&self, q: AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        let rows = self
            .query(
                "SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'),
                        agent, tool, outcome, attempts, latency_ms, args_sha256, incident_id,
                        request_id, trace_id
                 FROM audit
                 WHERE ($1::TEXT IS NULL OR agent = $1::TEXT) AND ($2::TEXT IS NULL OR tool = $2::TEXT)
                   AND ($3::TEXT IS NULL OR outcome = $3::TEXT)
                   AND ($4::TEXT IS NULL OR at >= $4::TEXT::TIMESTAMPTZ)
                   AND ($5::TEXT IS NULL OR at < $5::TEXT::TIMESTAMPTZ)
                 ORDER BY at DESC, id DESC LIMIT $6",
                &[
                    &q.agent.as_deref().map(text),
                    &q.tool.as_deref().map(text),
                    &q.outcome.as_deref().map(text),
                    &q.since.map(stamp),
                    &q.until.map(stamp),
                    &i64::from(q.capped_limit()),
                ],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| {
                let attempts: i64 = r.get(4);
                let latency: i64 = r.get(5);
                AuditRecord {
                    at: r.get(0),
                    agent: r.get(1),
                    tool: r.get(2),
                    outcome: r.get(3),
                    attempts: u32::try_from(attempts).unwrap_or(u32::MAX),
                    latency_ms: u64::try_from(latency).unwrap_or(0),
                    args_sha256: r.get(6),
                    incident_id: r.get(7),
                    request_id: r.get(8),
                    trace_id: r.get(9),
                }
            })
            .collect())
    }

    pub(crate) async fn prune_audit(
        &self,
        before: DateTime<Utc>,
        batch: u32,
    ) -> Result<u64, StoreError> {
        let rows = self
            .query(
                "WITH gone AS (
                    DELETE FROM audit WHERE id IN
                      (SELECT id FROM audit WHERE at < $1::TEXT::TIMESTAMPTZ ORDER BY at LIMIT $2)
                    RETURNING 1)
                 SELECT count(*) FROM gone",
                &[&stamp(before), &i64::from(batch.max(1))],
            )
            .await?;
        let n: i64 = rows.first().map_or(0, |r| r.get(0));
        Ok(u64::try_from(n).unwrap_or(0))
    }
}
