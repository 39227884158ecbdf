//! The audit trail in the store: one row per tool call, written in batches by the
//! engine's audit writer, read by `toolgate audit` and `/admin/audit`, pruned by age.
//!
//! A row holds who called what, when, how it ended and how long it took, and a SHA-256
//! of the arguments' canonical JSON — never the arguments themselves.

use std::sync::Arc;

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use super::{Store, StoreError};

/// Rows returned by one read at most, whatever the caller asked for.
pub const AUDIT_READ_MAX: u32 = 10_000;

/// One tool call, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When the call started: RFC 3339, UTC, milliseconds.
    pub at: String,
    /// The configured agent that made the call, or `anonymous`.
    pub agent: String,
    /// The tool called.
    pub tool: String,
    /// `ok`, or the error class of a failed call.
    pub outcome: String,
    /// Upstream requests made (0 when the call was refused before any was sent).
    pub attempts: u32,
    /// How long the call took, in milliseconds.
    pub latency_ms: u64,
    /// SHA-256 (hex) of the arguments' canonical JSON (keys sorted, no whitespace).
    pub args_sha256: String,
    /// The incident the call opened or joined, when known at the time of the call.
    pub incident_id: Option<i64>,
    /// The client's request id (the JSON text of the `tools/call` id).
    pub request_id: Option<String>,
    /// The W3C trace id the client sent, if any.
    pub trace_id: Option<String>,
}

/// Which records to read; every filter given must match.
#[derive(Debug, Clone, Default)]
pub struct AuditQuery {
    /// Only this agent's calls.
    pub agent: Option<String>,
    /// Only calls of this tool.
    pub tool: Option<String>,
    /// Only calls with this outcome (`ok` or an error class).
    pub outcome: Option<String>,
    /// Only calls that started at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only calls that started before this time.
    pub until: Option<DateTime<Utc>>,
    /// At most this many (newest first); capped at [`AUDIT_READ_MAX`].
    pub limit: u32,
}

impl AuditQuery {
    /// The limit actually used: at least 1, at most [`AUDIT_READ_MAX`].
    pub fn capped_limit(&self) -> u32 {
        self.limit.clamp(1, AUDIT_READ_MAX)
    }
}

/// A time in a filter: RFC 3339 (`2026-05-01T12:00:00Z`), or a duration back from
/// `now` (`90s`, `15m`, `1h`, `7d`).
pub fn parse_audit_time(text: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, String> {
    let text = text.trim();
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    let ago = toolgate_config::parse_duration(text).map_err(|_| {
        format!("`{text}` is neither a time nor a duration: write RFC 3339 like `2026-05-01T12:00:00Z`, or a duration back from now like `15m`, `1h` or `7d`")
    })?;
    chrono::Duration::from_std(ago)
        .ok()
        .and_then(|ago| now.checked_sub_signed(ago))
        .ok_or_else(|| format!("`{text}` reaches too far back"))
}

/// [`parse_audit_time`] back from the current time.
pub fn audit_time(text: &str) -> Result<DateTime<Utc>, String> {
    parse_audit_time(text, Utc::now())
}

/// How the store writes a time: fixed width, so text order is time order (SQLite).
pub(crate) fn stamp(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

impl Store {
    /// Writes `records` in one transaction: all of them or, on error, none. Shared
    /// rather than owned, so a writer that keeps a batch to try again after a refusal
    /// does not copy its records for each attempt.
    pub async fn record_audit(
        &self,
        records: impl Into<Arc<[AuditRecord]>>,
    ) -> Result<(), StoreError> {
        let records = records.into();
        if records.is_empty() {
            return Ok(());
        }
        match self {
            Store::Sqlite(s) => s.record_audit(records).await,
            Store::Postgres(s) => s.record_audit(records).await,
        }
    }

    /// Recorded calls matching `query`, newest first.
    pub async fn audit(&self, query: AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        match self {
            Store::Sqlite(s) => s.audit(query).await,
            Store::Postgres(s) => s.audit(query).await,
        }
    }

    /// Deletes at most `batch` records of calls that started before `before`, oldest
    /// first; returns how many it deleted (fewer than `batch`: none older are left).
    pub async fn prune_audit(&self, before: DateTime<Utc>, batch: u32) -> Result<u64, StoreError> {
        match self {
            Store::Sqlite(s) => s.prune_audit(before, batch).await,
            Store::Postgres(s) => s.prune_audit(before, batch).await,
        }
    }
}
