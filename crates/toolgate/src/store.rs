//! The embedded SQLite store: incidents, remembered deprecations, probe results and
//! dead letters — what must survive a restart.
//!
//! One connection behind a mutex, used from `spawn_blocking`. Nothing on a call's path
//! waits for it: incidents reach it through the incident writer
//! (`watch::incidents`), which merges repeat sightings. WAL mode keeps
//! `toolgate incidents` readable while a server runs; `synchronous=NORMAL` (safe with
//! WAL: a power loss may lose the last transactions, never corrupt the file) spares an
//! fsync per write.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;

/// Errors from the store, with the file they concern.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite failed.
    #[error("state store {path}: {source}")]
    Sqlite {
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },
    /// The state directory could not be created.
    #[error("cannot create the state directory {path}: {source}")]
    Dir {
        /// The directory.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A blocking task was cancelled (shutdown).
    #[error("the state store task was cancelled")]
    Cancelled,
    /// The file was written by a newer toolgate, whose schema this one does not know.
    #[error(
        "state store {path} has schema version {found}, newer than this toolgate's {known}: \
         it was written by a newer toolgate. Run that version, or point gateway.state at another file"
    )]
    NewerSchema {
        /// The database file.
        path: PathBuf,
        /// The schema version in the file.
        found: i64,
        /// The newest version this binary knows.
        known: i64,
    },
}

/// Dead letters kept; older ones are pruned as new ones arrive.
pub const DEAD_LETTERS_KEPT: i64 = 10_000;

/// Schema migrations, applied in order; `PRAGMA user_version` records how many ran.
const MIGRATIONS: &[&str] = &[
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
];

/// A kind of incident.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IncidentKind {
    /// The response no longer matches the contract.
    ContractDrift,
    /// The upstream announced deprecation or a sunset date.
    Deprecation,
    /// Retries of a (tool, error class) kept failing: none recovered over the window.
    RecoveryRateZero,
    /// The tool's scheduled contract probe fails.
    ProbeFailing,
    /// The dependency's circuit breaker has been open for long.
    CircuitOpenLong,
    /// The upstream refuses toolgate's credentials.
    AuthFailing,
    /// The tool's success rate collapsed relative to its own history.
    SuccessRateCollapse,
    /// The upstream's contract version is newer than the tool's contract.
    WrapperOutdated,
    /// An upstream MCP server's live tool definition differs from its pin.
    DefinitionDrift,
}

impl IncidentKind {
    /// Every kind.
    pub const ALL: [IncidentKind; 9] = [
        IncidentKind::ContractDrift,
        IncidentKind::Deprecation,
        IncidentKind::RecoveryRateZero,
        IncidentKind::ProbeFailing,
        IncidentKind::CircuitOpenLong,
        IncidentKind::AuthFailing,
        IncidentKind::SuccessRateCollapse,
        IncidentKind::WrapperOutdated,
        IncidentKind::DefinitionDrift,
    ];

    /// The kind of a stored name.
    pub fn parse(name: &str) -> Option<IncidentKind> {
        IncidentKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            IncidentKind::ContractDrift => "contract_drift",
            IncidentKind::Deprecation => "deprecation",
            IncidentKind::RecoveryRateZero => "recovery_rate_zero",
            IncidentKind::ProbeFailing => "probe_failing",
            IncidentKind::CircuitOpenLong => "circuit_open_long",
            IncidentKind::AuthFailing => "auth_failing",
            IncidentKind::DefinitionDrift => "definition_drift",
            IncidentKind::SuccessRateCollapse => "success_rate_collapse",
            IncidentKind::WrapperOutdated => "wrapper_outdated",
        }
    }
}

/// An incident to open, or to update if the same one is already open.
#[derive(Debug, Clone)]
pub struct NewIncident {
    /// Kind.
    pub kind: IncidentKind,
    /// Tool.
    pub tool: String,
    /// Dependency.
    pub dependency: String,
    /// Owner to notify.
    pub owner: String,
    /// Identity within (kind, tool): the same fingerprint updates the open incident.
    pub fingerprint: String,
    /// One line for humans.
    pub title: String,
    /// Structured detail (e.g. the diff).
    pub detail: serde_json::Value,
    /// Contract version the tool was on.
    pub contract_version: Option<String>,
}

/// A stored incident.
#[derive(Debug, Clone, Serialize)]
pub struct Incident {
    /// Row id.
    pub id: i64,
    /// Kind.
    pub kind: String,
    /// Tool.
    pub tool: String,
    /// Dependency.
    pub dependency: String,
    /// Owner.
    pub owner: String,
    /// `open` or `resolved`.
    pub status: String,
    /// One line.
    pub title: String,
    /// Structured detail.
    pub detail: serde_json::Value,
    /// Contract version.
    pub contract_version: Option<String>,
    /// RFC 3339.
    pub first_seen: String,
    /// RFC 3339.
    pub last_seen: String,
    /// How many times it was seen while open.
    pub count: i64,
    /// Identity within (kind, tool).
    #[serde(skip)]
    pub fingerprint: String,
}

/// Whether recording created a new incident, and the incident as stored.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Row id.
    pub id: i64,
    /// True when this opened a new incident (alert on it); false when it updated one.
    pub opened: bool,
    /// The incident after this write (read in the same transaction, so whoever
    /// notifies the owner needs no second trip to the store).
    pub incident: Option<Incident>,
}

/// The store handle; cheap to clone.
#[derive(Debug, Clone)]
pub struct Store {
    path: PathBuf,
    conn: Arc<Mutex<Connection>>,
}

impl Store {
    /// Opens (creating directory and file on first use) and migrates the store.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
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
                path: path.to_path_buf(),
                found,
                known,
            });
        }
        migrate(&mut conn).map_err(sql)?;
        Ok(Store {
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

    /// Opens an incident, or updates the open one with the same (kind, tool, fingerprint).
    pub async fn record_incident(&self, new: NewIncident) -> Result<Recorded, StoreError> {
        self.record_sightings(new, 1).await
    }

    /// Like [`Store::record_incident`] for `seen` sightings at once (merged by the
    /// incident writer): a new incident starts at `seen`, an open one adds it.
    pub async fn record_sightings(
        &self,
        new: NewIncident,
        seen: u32,
    ) -> Result<Recorded, StoreError> {
        self.with(move |c| record_incident(c, &new, seen.max(1), &now()))
            .await
    }

    /// Marks the open incidents of (kind, tool) resolved, with a reason; returns how many.
    pub async fn resolve(
        &self,
        kind: IncidentKind,
        tool: String,
        fingerprint: Option<String>,
        why: String,
    ) -> Result<Vec<Incident>, StoreError> {
        self.with(move |c| {
            let tx = c.transaction()?;
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
) -> rusqlite::Result<Recorded> {
    let tx = c.transaction()?;
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
    let sql = format!(
        "SELECT id, kind, tool, dependency, owner, status, title, detail, contract_version, first_seen, last_seen, count,
                fingerprint
         FROM incidents {filter} ORDER BY id DESC"
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
        })
    })?;
    rows.collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test]
    async fn the_same_drift_updates_the_open_incident_and_a_new_one_opens_another() {
        let dir = std::env::temp_dir().join(format!("toolgate-store-{}", std::process::id()));
        let store = Store::open(&dir.join("nested/state.db")).unwrap();
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
        // A recurrence after resolution is a new incident.
        assert!(
            store
                .record_incident(drift("snippet->excerpt"))
                .await
                .unwrap()
                .opened
        );
        // Reopening the file keeps the data (migrations are not re-run).
        drop(store);
        let again = Store::open(&dir.join("nested/state.db")).unwrap();
        assert_eq!(again.incidents(true).await.unwrap().len(), 3);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_store_from_a_newer_toolgate_is_refused_not_used() {
        let dir = std::env::temp_dir().join(format!("toolgate-store-newer-{}", std::process::id()));
        let path = dir.join("state.db");
        drop(Store::open(&path).unwrap());
        {
            let c = Connection::open(&path).unwrap();
            c.pragma_update(None, "user_version", 99).unwrap();
        }
        let err = Store::open(&path).unwrap_err();
        assert!(
            matches!(err, StoreError::NewerSchema { found: 99, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("newer toolgate"), "{err}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn sightings_merged_by_the_writer_add_up() {
        let dir = std::env::temp_dir().join(format!("toolgate-store-seen-{}", std::process::id()));
        let store = Store::open(&dir.join("state.db")).unwrap();
        let a = store.record_sightings(drift("fp"), 3).await.unwrap();
        let b = store.record_sightings(drift("fp"), 5).await.unwrap();
        assert!(a.opened && !b.opened);
        assert_eq!(
            b.incident.map(|i| (i.count, i.fingerprint)),
            Some((8, "fp".into()))
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
