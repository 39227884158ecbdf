//! The embedded SQLite backend: one replica's own file.
//!
//! One connection behind a mutex, used from `spawn_blocking`. WAL mode keeps
//! `toolgate incidents` readable while a server runs; `synchronous=NORMAL` (safe with
//! WAL: a power loss may lose the last transactions, never corrupt the file) spares an
//! fsync per write.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

mod activity;
mod audit;
mod listing;

use super::{DEAD_LETTERS_KEPT, Incident, IncidentKind, NewIncident, Recorded, StoreError};

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
pub(crate) const MIGRATIONS: &[&str] = &[
    "CREATE TABLE incidents (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        tool TEXT NOT NULL,
        dependency TEXT NOT NULL,
        owner TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL,
        title TEXT NOT NULL,
        detail TEXT NOT NULL,
        contract_version TEXT,
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL,
        count INTEGER NOT NULL,
        resolved_at TEXT,
        resolution TEXT
    );
    CREATE UNIQUE INDEX incidents_open ON incidents(kind, tool, fingerprint) WHERE status = 'open';",
    "CREATE TABLE deprecations (
        tool TEXT PRIMARY KEY,
        notice TEXT NOT NULL,
        first_seen TEXT NOT NULL,
        last_seen TEXT NOT NULL
    );
    CREATE TABLE dead_letters (
        id INTEGER PRIMARY KEY,
        incident_id INTEGER NOT NULL,
        target TEXT NOT NULL,
        error TEXT NOT NULL,
        payload TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE TABLE probe_results (
        id INTEGER PRIMARY KEY,
        tool TEXT NOT NULL,
        ok INTEGER NOT NULL,
        error_class TEXT,
        detail TEXT NOT NULL,
        at TEXT NOT NULL
    );
    CREATE INDEX probe_results_tool ON probe_results(tool, id);",
    // Acknowledged and resolved by people (the console, the admin API).
    "ALTER TABLE incidents ADD COLUMN acked_by TEXT;
    ALTER TABLE incidents ADD COLUMN acked_at TEXT;
    ALTER TABLE incidents ADD COLUMN resolved_by TEXT;",
    audit::MIGRATION,
    activity::MIGRATION,
    audit::DROP_UNUSED_INDEXES,
];

/// The SQLite store handle; cheap to clone.
#[derive(Debug, Clone)]
pub struct SqliteStore {
    path: PathBuf,
    conn: Arc<Mutex<Connection>>,
}

impl SqliteStore {
    /// Opens (creating directory and file on first use) and migrates the store.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::Dir {
                path: dir.to_path_buf(),
                source,
            })?;
        }
        let sql = |source| StoreError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sql)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(sql)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sql)?;
        conn.pragma_update(None, "busy_timeout", 5000)
            .map_err(sql)?;
        let found: i64 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .map_err(sql)?;
        let known = MIGRATIONS.len() as i64;
        if found > known {
            return Err(StoreError::NewerSchema {
                store: path.display().to_string(),
                found,
                known,
            });
        }
        migrate(&mut conn).map_err(sql)?;
        Ok(SqliteStore {
            path: path.to_path_buf(),
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let conn = self.conn.clone();
        let path = self.path.clone();
        tokio::task::spawn_blocking(move || {
            let mut guard = conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            f(&mut guard).map_err(|source| StoreError::Sqlite { path, source })
        })
        .await
        .map_err(|_| StoreError::Cancelled)?
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A trivial query.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.with(|c| c.query_row("SELECT 1", [], |_| Ok(()))).await
    }

    /// One replica: it may always notify (the notifier throttles in memory).
    pub async fn claim_notification(
        &self,
        _id: i64,
        _throttle: std::time::Duration,
        _opening: bool,
    ) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// One replica: it holds every lease.
    pub async fn try_lease(
        &self,
        _name: &str,
        _holder: &str,
        _ttl: std::time::Duration,
    ) -> Result<bool, StoreError> {
        Ok(true)
    }

    /// The last probe results of `tool`, newest first.
    pub async fn probe_results(
        &self,
        tool: String,
    ) -> Result<Vec<(bool, Option<String>)>, StoreError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT ok, error_class FROM probe_results WHERE tool = ?1 ORDER BY id DESC",
            )?;
            let rows = stmt.query_map(params![tool], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect()
        })
        .await
    }

    /// Records `seen` sightings: a new incident starts at `seen`, an open one adds it.
    pub async fn record_sightings(
        &self,
        new: NewIncident,
        seen: u32,
    ) -> Result<Recorded, StoreError> {
        self.with(move |c| record_incident(c, &new, seen.max(1), &now(), &[], 0))
            .await
    }

    /// Marks the open incidents of (kind, tool[, fingerprint]) resolved; returns them.
    pub async fn resolve(
        &self,
        kind: IncidentKind,
        tool: String,
        fingerprint: Option<String>,
        why: String,
    ) -> Result<Vec<Incident>, StoreError> {
        self.with(move |c| {
            let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let open = query_incidents(
                &tx,
                "WHERE status = 'open' AND kind = ?1 AND tool = ?2 AND (?3 IS NULL OR fingerprint = ?3)",
                params![kind.as_str(), tool, fingerprint],
            )?;
            for i in &open {
                tx.execute(
                    "UPDATE incidents SET status = 'resolved', resolved_at = ?1, resolution = ?2 WHERE id = ?3",
                    params![now(), why, i.id],
                )?;
            }
            tx.commit()?;
            Ok(open.into_iter().map(|i| Incident { status: "resolved".into(), ..i }).collect())
        })
        .await
    }

    /// Remembers the latest deprecation notice of a tool.
    pub async fn save_deprecation(
        &self,
        tool: String,
        notice: serde_json::Value,
    ) -> Result<(), StoreError> {
        self.with(move |c| {
            let now = now();
            c.execute(
                "INSERT INTO deprecations (tool, notice, first_seen, last_seen) VALUES (?1, ?2, ?3, ?3)
                 ON CONFLICT(tool) DO UPDATE SET notice = excluded.notice, last_seen = excluded.last_seen",
                params![tool, notice.to_string(), now],
            )
            .map(|_| ())
        })
        .await
    }

    /// Every remembered deprecation notice, by tool.
    pub async fn deprecations(&self) -> Result<Vec<(String, serde_json::Value)>, StoreError> {
        self.with(|c| {
            let mut stmt = c.prepare("SELECT tool, notice FROM deprecations ORDER BY tool")?;
            let rows = stmt.query_map([], |r| {
                let notice: String = r.get(1)?;
                Ok((r.get(0)?, serde_json::from_str(&notice).unwrap_or_default()))
            })?;
            rows.collect()
        })
        .await
    }

    /// Records a notification that could not be delivered.
    pub async fn record_dead_letter(
        &self,
        incident_id: i64,
        target: String,
        error: String,
        payload: serde_json::Value,
    ) -> Result<(), StoreError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO dead_letters (incident_id, target, error, payload, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![incident_id, target, error, payload.to_string(), now()],
            )?;
            // Pruned on write: a receiver that is down for weeks must not grow the file
            // without bound; the newest letters are the ones an operator replays.
            c.execute(
                "DELETE FROM dead_letters WHERE id <= (SELECT max(id) FROM dead_letters) - ?1",
                params![DEAD_LETTERS_KEPT],
            )
            .map(|_| ())
        })
        .await
    }

    /// Undelivered notifications: (incident id, target, error, at), newest first.
    pub async fn dead_letters(&self) -> Result<Vec<(i64, String, String, String)>, StoreError> {
        self.with(|c| {
            let mut stmt =
                c.prepare("SELECT incident_id, target, error, at FROM dead_letters ORDER BY id DESC LIMIT 1000")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))?;
            rows.collect()
        })
        .await
    }

    /// Records one probe run (the table keeps the last 100 per tool).
    pub async fn record_probe(
        &self,
        tool: String,
        ok: bool,
        error_class: Option<String>,
        detail: String,
    ) -> Result<(), StoreError> {
        self.with(move |c| {
            c.execute(
                "INSERT INTO probe_results (tool, ok, error_class, detail, at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![tool, ok, error_class, detail, now()],
            )?;
            c.execute(
                "DELETE FROM probe_results WHERE tool = ?1 AND id NOT IN
                   (SELECT id FROM probe_results WHERE tool = ?1 ORDER BY id DESC LIMIT 100)",
                params![tool],
            )
            .map(|_| ())
        })
        .await
    }

    /// Incidents, newest first; only open ones unless `all`.
    pub async fn incidents(&self, all: bool) -> Result<Vec<Incident>, StoreError> {
        self.with(move |c| list_incidents(c, all)).await
    }

    /// One incident by id.
    pub async fn incident(&self, id: i64) -> Result<Option<Incident>, StoreError> {
        self.with(move |c| Ok(query_incidents(c, "WHERE id = ?1", params![id])?.pop()))
            .await
    }

    /// Records the first acknowledgement of incident `id`.
    pub async fn acknowledge(&self, id: i64, who: String) -> Result<Option<Incident>, StoreError> {
        self.with(move |c| {
            c.execute(
                "UPDATE incidents SET acked_by = ?1, acked_at = ?2 WHERE id = ?3 AND acked_by IS NULL",
                params![who, now(), id],
            )?;
            Ok(query_incidents(c, "WHERE id = ?1", params![id])?.pop())
        })
        .await
    }

    /// Resolves incident `id` by hand, recording who.
    pub async fn resolve_by(&self, id: i64, who: String) -> Result<Option<Incident>, StoreError> {
        self.with(move |c| {
            c.execute(
                "UPDATE incidents SET status = 'resolved', resolved_at = ?1, resolved_by = ?2,
                    resolution = 'resolved by ' || ?2
                 WHERE id = ?3 AND status = 'open'",
                params![now(), who, id],
            )?;
            Ok(query_incidents(c, "WHERE id = ?1", params![id])?.pop())
        })
        .await
    }
}

fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

fn migrate(conn: &mut Connection) -> rusqlite::Result<()> {
    let done: i64 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    for (i, sql) in (0i64..)
        .zip(MIGRATIONS.iter())
        .skip(usize::try_from(done).unwrap_or(0))
    {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", i + 1)?;
        tx.commit()?;
    }
    Ok(())
}

fn record_incident(
    c: &mut Connection,
    n: &NewIncident,
    seen: u32,
    now: &str,
    agents: &[(String, u32)],
    unlisted: u32,
) -> rusqlite::Result<Recorded> {
    // Immediate: a read-then-write transaction that starts deferred cannot wait for
    // another connection's write lock (SQLite answers "database is locked" at once);
    // taking the lock up front lets busy_timeout queue concurrent writers instead.
    let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let existing: Option<i64> = tx
        .query_row(
            "SELECT id FROM incidents WHERE status = 'open' AND kind = ?1 AND tool = ?2 AND fingerprint = ?3",
            params![n.kind.as_str(), n.tool, n.fingerprint],
            |r| r.get(0),
        )
        .optional()?;
    let detail = n.detail.to_string();
    let recorded = match existing {
        Some(id) => {
            tx.execute(
                "UPDATE incidents SET last_seen = ?1, count = count + ?5, detail = ?2, title = ?3 WHERE id = ?4",
                params![now, detail, n.title, id, seen],
            )?;
            (id, false)
        }
        None => {
            tx.execute(
                "INSERT INTO incidents (kind, tool, dependency, owner, fingerprint, status, title, detail,
                    contract_version, first_seen, last_seen, count)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'open', ?6, ?7, ?8, ?9, ?9, ?10)",
                params![
                    n.kind.as_str(),
                    n.tool,
                    n.dependency,
                    n.owner,
                    n.fingerprint,
                    n.title,
                    detail,
                    n.contract_version,
                    now,
                    seen
                ],
            )?;
            (tx.last_insert_rowid(), true)
        }
    };
    let (id, opened) = recorded;
    activity::credit(&tx, id, agents, unlisted)?;
    let incident = query_incidents(&tx, "WHERE id = ?1", params![id])?.pop();
    tx.commit()?;
    Ok(Recorded {
        id,
        opened,
        incident,
    })
}

fn list_incidents(c: &mut Connection, all: bool) -> rusqlite::Result<Vec<Incident>> {
    if all {
        query_incidents(c, "", [])
    } else {
        query_incidents(c, "WHERE status = 'open'", [])
    }
}

fn query_incidents(
    c: &Connection,
    filter: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<Incident>> {
    query_incidents_then(c, filter, "", params)
}

/// [`query_incidents`] with `tail` after the order (`LIMIT … OFFSET …`).
fn query_incidents_then(
    c: &Connection,
    filter: &str,
    tail: &str,
    params: impl rusqlite::Params,
) -> rusqlite::Result<Vec<Incident>> {
    let sql = format!(
        "SELECT id, kind, tool, dependency, owner, status, title, detail, contract_version, first_seen, last_seen, count,
                fingerprint, acked_by, acked_at, resolved_by, resolved_at, {agents}
         FROM incidents {filter} ORDER BY id DESC {tail}",
        agents = activity::AGENT_COLUMNS
    );
    let mut stmt = c.prepare(&sql)?;
    let rows = stmt.query_map(params, |r| {
        let detail: String = r.get(7)?;
        Ok(Incident {
            id: r.get(0)?,
            kind: r.get(1)?,
            tool: r.get(2)?,
            dependency: r.get(3)?,
            owner: r.get(4)?,
            status: r.get(5)?,
            title: r.get(6)?,
            detail: serde_json::from_str(&detail).unwrap_or(serde_json::Value::String(detail)),
            contract_version: r.get(8)?,
            first_seen: r.get(9)?,
            last_seen: r.get(10)?,
            count: r.get(11)?,
            fingerprint: r.get(12)?,
            acked_by: r.get(13)?,
            acked_at: r.get(14)?,
            resolved_by: r.get(15)?,
            resolved_at: r.get(16)?,
            agents: crate::activity::agents_from_json(r.get::<_, Option<String>>(17)?.as_deref()),
            agents_unlisted: r.get(18)?,
        })
    })?;
    rows.collect()
}
