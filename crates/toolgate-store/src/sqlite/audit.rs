//! The audit table in SQLite.

use std::sync::{Arc, LazyLock};

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

/// The migration that drops the two audit indexes no query of SQLite's can use. The
/// audit listing filters by agent and tool with `?1 IS NULL OR agent = ?1`, a condition
/// SQLite's planner cannot serve from an index whose value is only bound later, so it
/// reads `audit_at` newest first whatever the filters; the prune reads `audit_at` too.
/// Each row still went into `audit_agent` and `audit_tool`, two of the four B-trees a
/// row's insert writes. PostgreSQL plans with the bound values and keeps them.
pub(super) const DROP_UNUSED_INDEXES: &str = "DROP INDEX IF EXISTS audit_agent;
    DROP INDEX IF EXISTS audit_tool;";

impl SqliteStore {
    pub(crate) async fn record_audit(&self, records: Arc<[AuditRecord]>) -> Result<(), StoreError> {
        self.with(move |c| {
            let tx = c.transaction()?;
            let mut rest: &[AuditRecord] = &records;
            while !rest.is_empty() {
                let rows = rows_in_next_statement(rest.len());
                let (these, after) = rest.split_at(rows);
                let mut stmt = tx.prepare_cached(insert_of(rows))?;
                for (row, r) in these.iter().enumerate() {
                    let first = row * COLUMNS + 1;
                    stmt.raw_bind_parameter(first, &r.at)?;
                    stmt.raw_bind_parameter(first + 1, &r.agent)?;
                    stmt.raw_bind_parameter(first + 2, &r.tool)?;
                    stmt.raw_bind_parameter(first + 3, &r.outcome)?;
                    stmt.raw_bind_parameter(first + 4, r.attempts)?;
                    stmt.raw_bind_parameter(
                        first + 5,
                        i64::try_from(r.latency_ms).unwrap_or(i64::MAX),
                    )?;
                    stmt.raw_bind_parameter(first + 6, &r.args_sha256)?;
                    stmt.raw_bind_parameter(first + 7, r.incident_id)?;
                    stmt.raw_bind_parameter(first + 8, &r.request_id)?;
                    stmt.raw_bind_parameter(first + 9, &r.trace_id)?;
                }
                stmt.raw_execute()?;
                rest = after;
            }
            tx.commit()
        })
        .await
    }

    pub(crate) async fn audit(&self, q: AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        let limit = q.capped_limit();
        self.with(move |c| {
            let mut stmt = c.prepare_cached(LIST)?;
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
            c.execute(PRUNE, params![stamp(before), batch.max(1)])
                .map(|n| n as u64)
        })
        .await
    }
}

/// The audit listing: newest first, each filter left out when its parameter is null.
pub(super) const LIST: &str =
    "SELECT at, agent, tool, outcome, attempts, latency_ms, args_sha256, incident_id,
            request_id, trace_id
     FROM audit
     WHERE (?1 IS NULL OR agent = ?1) AND (?2 IS NULL OR tool = ?2)
       AND (?3 IS NULL OR outcome = ?3) AND (?4 IS NULL OR at >= ?4)
       AND (?5 IS NULL OR at < ?5)
     ORDER BY at DESC, id DESC LIMIT ?6";

/// The prune: up to `?2` of the oldest rows before `?1`.
pub(super) const PRUNE: &str = "DELETE FROM audit WHERE id IN
       (SELECT id FROM audit WHERE at < ?1 ORDER BY at LIMIT ?2)";

/// The columns an audit row is inserted with.
const COLUMNS: usize = 10;

/// The most rows one `INSERT` statement writes. A statement per row made SQLite open
/// the table's and its three indexes' cursors, and seek them from the root, once per
/// row: half of a row's cost. Rows written by one statement share its cursors, which
/// stay where the last row went (the next row's time sorts just after it). 64 rows
/// bind 640 parameters, under the 999 the oldest SQLite builds allow.
const MAX_ROWS_PER_STATEMENT: usize = 64;

/// How many of `left` rows the next statement writes: 64 while that many are left,
/// then the largest power of two that fits. A batch of any size is written by at most
/// a few statements of seven shapes (64, 32, … 1 rows), each prepared once and kept in
/// the connection's statement cache, where a statement sized to each batch's tail would
/// be prepared again whenever the tail's size changed.
pub(super) fn rows_in_next_statement(left: usize) -> usize {
    if left >= MAX_ROWS_PER_STATEMENT {
        MAX_ROWS_PER_STATEMENT
    } else if left == 0 {
        0
    } else {
        1 << left.ilog2()
    }
}

/// The `INSERT` of `rows` rows (a power of two up to [`MAX_ROWS_PER_STATEMENT`]), its
/// text built once.
fn insert_of(rows: usize) -> &'static str {
    static TEXTS: LazyLock<Vec<String>> = LazyLock::new(|| {
        (0..=MAX_ROWS_PER_STATEMENT.ilog2())
            .map(|shift| {
                let row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
                format!(
                    "INSERT INTO audit (at, agent, tool, outcome, attempts, latency_ms, args_sha256,
                        incident_id, request_id, trace_id) VALUES {}",
                    vec![row; 1 << shift].join(", ")
                )
            })
            .collect()
    });
    let shift = rows.max(1).ilog2() as usize;
    &TEXTS[shift.min(TEXTS.len() - 1)]
}

#[cfg(test)]
mod tests;
