//! The PostgreSQL backend: one database shared by every replica of a fleet.
//!
//! What must happen once for the fleet is decided in the database, in one statement
//! each, so no replica needs to know the others:
//! - an open incident is unique per (kind, tool, fingerprint) (a partial unique index),
//!   and recording is an upsert that adds the sightings, so two replicas seeing the same
//!   drift make one incident;
//! - a notification is sent by the replica whose `UPDATE … SET notified_at` matched
//!   (nobody notified within the throttle), and only by it;
//! - a lease row names its holder until it expires.
//!
//! Timestamps are the server's `now()`, so replicas with skewed clocks still agree.
//! The pool has short timeouts: a store that is down fails a write within seconds, and
//! the incident writer keeps it queued for later. The URL holds a password: errors and
//! logs name `postgres://host:port/db` only.

use std::str::FromStr as _;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use tokio_postgres::NoTls;
use tokio_postgres::types::ToSql;

mod activity;
mod audit;
mod listing;

use super::{DEAD_LETTERS_KEPT, Incident, IncidentKind, NewIncident, Recorded, StoreError};

/// How long to wait for a connection or a free pooled one.
const TIMEOUT: Duration = Duration::from_secs(2);

/// How long sent data may stay unacknowledged, and an idle connection unprobed.
const STALLED: Duration = Duration::from_secs(10);

/// How long a statement may wait for the server's answer. The socket timeouts above do
/// not cover a server that acknowledges what it is sent and never answers (a stuck
/// server, a frozen proxy in between): without this, a statement, and the writer
/// waiting on it, would hang until someone restarts one side.
const ANSWER: Duration = Duration::from_secs(10);

/// Migrations may rebuild an index of a large table, and wait for another replica's.
const MIGRATION_ANSWER: Duration = Duration::from_secs(120);

/// How long a new incident is left to the replica that opened it to announce.
const OPENER_GRACE: Duration = Duration::from_secs(30);

/// Connections per replica: the writer, the notifier, probes and admin reads.
const POOL_SIZE: usize = 8;

/// Serialises migrations of replicas starting at once (an arbitrary, fixed key).
const MIGRATION_LOCK: i64 = 0x746f_6f6c_6761_7465;

/// Schema migrations, applied in order; `toolgate_schema` records which ran.
const MIGRATIONS: &[&str] = &[
    "CREATE TABLE incidents (
        id BIGSERIAL PRIMARY KEY,
        kind TEXT NOT NULL,
        tool TEXT NOT NULL,
        dependency TEXT NOT NULL,
        owner TEXT NOT NULL,
        fingerprint TEXT NOT NULL,
        status TEXT NOT NULL,
        title TEXT NOT NULL,
        detail TEXT NOT NULL,
        contract_version TEXT,
        first_seen TIMESTAMPTZ NOT NULL,
        last_seen TIMESTAMPTZ NOT NULL,
        count BIGINT NOT NULL,
        resolved_at TIMESTAMPTZ,
        resolution TEXT,
        notified_at TIMESTAMPTZ
    );
    CREATE UNIQUE INDEX incidents_open ON incidents (kind, tool, fingerprint) WHERE resolved_at IS NULL;
    CREATE TABLE deprecations (
        tool TEXT PRIMARY KEY,
        notice TEXT NOT NULL,
        first_seen TIMESTAMPTZ NOT NULL,
        last_seen TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE dead_letters (
        id BIGSERIAL PRIMARY KEY,
        incident_id BIGINT NOT NULL,
        target TEXT NOT NULL,
        error TEXT NOT NULL,
        payload TEXT NOT NULL,
        at TIMESTAMPTZ NOT NULL
    );
    CREATE TABLE probe_results (
        id BIGSERIAL PRIMARY KEY,
        tool TEXT NOT NULL,
        ok BOOLEAN NOT NULL,
        error_class TEXT,
        detail TEXT NOT NULL,
        at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX probe_results_tool ON probe_results (tool, id);
    CREATE TABLE leases (
        name TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL
    );",
    // Acknowledged and resolved by people (the console, the admin API).
    "ALTER TABLE incidents ADD COLUMN acked_by TEXT;
    ALTER TABLE incidents ADD COLUMN acked_at TIMESTAMPTZ;
    ALTER TABLE incidents ADD COLUMN resolved_by TEXT;",
    audit::MIGRATION,
    activity::MIGRATION,
];

/// The columns of an [`Incident`], in the order [`incident`] reads them.
const COLUMNS: &str = "id, kind, tool, dependency, owner, status, title, detail, contract_version,
    to_char(first_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
    to_char(last_seen AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
    count, fingerprint, acked_by,
    to_char(acked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
    resolved_by,
    to_char(resolved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'),
    (SELECT coalesce(json_agg(json_build_object('agent', a.agent, 'sightings', a.sightings)
        ORDER BY a.sightings DESC, a.agent)::text, '[]') FROM incident_agents a WHERE a.incident_id = incidents.id),
    agents_unlisted";

/// The column after [`COLUMNS`] in a `RETURNING {COLUMNS}, …`.
const AFTER_COLUMNS: usize = 19;

/// The PostgreSQL store handle; cheap to clone.
#[derive(Clone)]
pub struct PostgresStore {
    pool: Pool,
    /// `postgres://host:port/db`: what messages name instead of the URL.
    target: std::sync::Arc<str>,
}

impl std::fmt::Debug for PostgresStore {
    // Not derived: the pool's config holds the password.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to `url` (`postgres://user:password@host:port/db`) and migrates.
    pub async fn connect(url: &str) -> Result<PostgresStore, StoreError> {
        let mut config =
            tokio_postgres::Config::from_str(url).map_err(|e| StoreError::Postgres {
                // The parser's messages do not quote the URL; the URL itself is not repeated.
                target: "postgres://…".into(),
                message: format!("gateway.state is not a valid PostgreSQL URL: {e}"),
                transient: false,
            })?;
        config.connect_timeout(TIMEOUT);
        // A server that stops acknowledging what is sent (a dead host, a dropped route)
        // fails the connection in seconds instead of leaving a statement waiting for
        // the kernel's retransmissions (about 15 minutes); an idle pooled connection to
        // one is found by keepalives.
        config.tcp_user_timeout(STALLED);
        config.keepalives(true);
        config.keepalives_idle(STALLED);
        if config.get_application_name().is_none() {
            config.application_name("toolgate");
        }
        let target: std::sync::Arc<str> = describe(&config).into();
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A connection the server closed (a restart) is noticed and replaced.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(TIMEOUT))
            .create_timeout(Some(TIMEOUT))
            .recycle_timeout(Some(TIMEOUT))
            .build()
            .map_err(|e| StoreError::Postgres {
                target: target.to_string(),
                message: format!("cannot build the connection pool: {e}"),
                transient: false,
            })?;
        let store = PostgresStore { pool, target };
        store.migrate().await?;
        Ok(store)
    }

    /// `postgres://host:port/db`.
    pub fn target(&self) -> &str {
        &self.target
    }

    fn error(&self, e: &tokio_postgres::Error) -> StoreError {
        pg_error(&self.target, e)
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, StoreError> {
        self.pool.get().await.map_err(|e| {
            let message = match &e {
                deadpool_postgres::PoolError::Backend(pg) => return self.error(pg),
                deadpool_postgres::PoolError::Timeout(_) => {
                    "unavailable (no connection within the timeout)".to_string()
                }
                other => format!("unavailable: {other}"),
            };
            StoreError::Postgres {
                target: self.target.to_string(),
                message,
                transient: true,
            }
        })
    }

    /// Runs one statement and returns its rows.
    async fn query(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>, StoreError> {
        let client = self.client().await?;
        let answer = tokio::time::timeout(ANSWER, async {
            let stmt = client.prepare_cached(sql).await?;
            client.query(&stmt, params).await
        })
        .await;
        match answer {
            Ok(rows) => rows.map_err(|e| self.error(&e)),
            Err(_) => Err(self.silent(client, ANSWER)),
        }
    }

    /// The error for a server that did not answer within `waited`. The connection is
    /// taken out of the pool and closed: a late answer would otherwise arrive in front
    /// of the next statement's, and a frozen server would hold every pooled connection.
    fn silent(&self, client: deadpool_postgres::Object, waited: Duration) -> StoreError {
        drop(deadpool_postgres::Object::take(client));
        StoreError::Postgres {
            target: self.target.to_string(),
            message: format!(
                "no answer within {}s (the connection was closed)",
                waited.as_secs()
            ),
            transient: true,
        }
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        let mut client = self.client().await?;
        match tokio::time::timeout(MIGRATION_ANSWER, self.apply_migrations(&mut client)).await {
            Ok(done) => done,
            Err(_) => Err(self.silent(client, MIGRATION_ANSWER)),
        }
    }

    async fn apply_migrations(
        &self,
        client: &mut deadpool_postgres::Object,
    ) -> Result<(), StoreError> {
        let err = |e: tokio_postgres::Error| pg_error(&self.target, &e);
        let tx = client.transaction().await.map_err(err)?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await
            .map_err(err)?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS toolgate_schema (
                version BIGINT PRIMARY KEY,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )",
        )
        .await
        .map_err(err)?;
        let found: i64 = tx
            .query_one("SELECT coalesce(max(version), 0) FROM toolgate_schema", &[])
            .await
            .map_err(err)?
            .get(0);
        let known = MIGRATIONS.len() as i64;
        if found > known {
            return Err(StoreError::NewerSchema {
                store: self.target.to_string(),
                found,
                known,
            });
        }
        for (version, sql) in (1i64..)
            .zip(MIGRATIONS.iter())
            .skip(usize::try_from(found).unwrap_or(0))
        {
            tx.batch_execute(sql).await.map_err(err)?;
            tx.execute(
                "INSERT INTO toolgate_schema (version) VALUES ($1)",
                &[&version],
            )
            .await
            .map_err(err)?;
        }
        tx.commit().await.map_err(err)
    }

    /// A trivial query.
    pub async fn ping(&self) -> Result<(), StoreError> {
        self.query("SELECT 1", &[]).await.map(|_| ())
    }

    /// Upserts `seen` sightings of the open incident `n`.
    pub async fn record_sightings(
        &self,
        n: NewIncident,
        seen: u32,
    ) -> Result<Recorded, StoreError> {
        let sql = format!(
            "INSERT INTO incidents (kind, tool, dependency, owner, fingerprint, status, title, detail,
                contract_version, first_seen, last_seen, count)
             VALUES ($1, $2, $3, $4, $5, 'open', $6, $7, $8, now(), now(), $9)
             ON CONFLICT (kind, tool, fingerprint) WHERE resolved_at IS NULL
             DO UPDATE SET last_seen = now(), count = incidents.count + EXCLUDED.count,
                detail = EXCLUDED.detail, title = EXCLUDED.title
             RETURNING {COLUMNS}, (xmax = 0) AS opened"
        );
        let detail = n.detail.to_string();
        let rows = self
            .query(
                &sql,
                &[
                    &n.kind.as_str(),
                    &text(&n.tool),
                    &text(&n.dependency),
                    &text(&n.owner),
                    &text(&n.fingerprint),
                    &text(&n.title),
                    &text(&detail),
                    &n.contract_version.as_deref().map(text),
                    &i64::from(seen),
                ],
            )
            .await?;
        let Some(row) = rows.first() else {
            return Err(StoreError::Postgres {
                target: self.target.to_string(),
                message: "the incident upsert returned no row".into(),
                transient: false,
            });
        };
        let stored = incident(row);
        Ok(Recorded {
            id: stored.id,
            opened: row.get(AFTER_COLUMNS),
            incident: Some(stored),
        })
    }

    /// Resolves the open incidents of (kind, tool[, fingerprint]); returns them.
    pub async fn resolve(
        &self,
        kind: IncidentKind,
        tool: String,
        fingerprint: Option<String>,
        why: String,
    ) -> Result<Vec<Incident>, StoreError> {
        let sql = format!(
            "UPDATE incidents SET status = 'resolved', resolved_at = now(), resolution = $4
             WHERE resolved_at IS NULL AND kind = $1 AND tool = $2
               AND ($3::TEXT IS NULL OR fingerprint = $3::TEXT)
             RETURNING {COLUMNS}"
        );
        let fingerprint = fingerprint.as_deref().map(text);
        let rows = self
            .query(
                &sql,
                &[&kind.as_str(), &text(&tool), &fingerprint, &text(&why)],
            )
            .await?;
        let mut resolved: Vec<Incident> = rows.iter().map(incident).collect();
        resolved.sort_by_key(|i| std::cmp::Reverse(i.id));
        Ok(resolved)
    }

    /// True for the one caller whose claim matched: nobody notified within `throttle`.
    /// A new incident is the opener's to announce: an update claims an incident nobody
    /// announced yet only once [`OPENER_GRACE`] passed (the opener went away first).
    pub async fn claim_notification(
        &self,
        id: i64,
        throttle: Duration,
        opening: bool,
    ) -> Result<bool, StoreError> {
        let rows = self
            .query(
                "UPDATE incidents SET notified_at = now()
                 WHERE id = $1 AND (
                    notified_at <= now() - make_interval(secs => $2)
                    OR (notified_at IS NULL AND ($3 OR first_seen <= now() - make_interval(secs => $4))))
                 RETURNING id",
                &[&id, &throttle.as_secs_f64(), &opening, &OPENER_GRACE.as_secs_f64()],
            )
            .await?;
        Ok(!rows.is_empty())
    }

    /// Takes the lease when free or expired, renews it when `holder`'s own.
    pub async fn try_lease(
        &self,
        name: &str,
        holder: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        let rows = self
            .query(
                "INSERT INTO leases (name, holder, expires_at)
                 VALUES ($1, $2, now() + make_interval(secs => $3))
                 ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, expires_at = EXCLUDED.expires_at
                 WHERE leases.holder = EXCLUDED.holder OR leases.expires_at <= now()
                 RETURNING holder",
                &[&text(name), &text(holder), &ttl.as_secs_f64()],
            )
            .await?;
        Ok(!rows.is_empty())
    }

    /// Remembers the latest deprecation notice of a tool.
    pub async fn save_deprecation(
        &self,
        tool: String,
        notice: serde_json::Value,
    ) -> Result<(), StoreError> {
        self.query(
            "INSERT INTO deprecations (tool, notice, first_seen, last_seen) VALUES ($1, $2, now(), now())
             ON CONFLICT (tool) DO UPDATE SET notice = EXCLUDED.notice, last_seen = EXCLUDED.last_seen",
            &[&text(&tool), &text(&notice.to_string())],
        )
        .await
        .map(|_| ())
    }

    /// Every remembered deprecation notice, by tool.
    pub async fn deprecations(&self) -> Result<Vec<(String, serde_json::Value)>, StoreError> {
        let rows = self
            .query("SELECT tool, notice FROM deprecations ORDER BY tool", &[])
            .await?;
        Ok(rows
            .iter()
            .map(|r| {
                let notice: String = r.get(1);
                (r.get(0), serde_json::from_str(&notice).unwrap_or_default())
            })
            .collect())
    }

    /// Records a notification that could not be delivered, pruning the oldest.
    pub async fn record_dead_letter(
        &self,
        incident_id: i64,
        target: String,
        error: String,
        payload: serde_json::Value,
    ) -> Result<(), StoreError> {
        self.query(
            "INSERT INTO dead_letters (incident_id, target, error, payload, at) VALUES ($1, $2, $3, $4, now())",
            &[&incident_id, &text(&target), &text(&error), &text(&payload.to_string())],
        )
        .await?;
        // Pruned on write: a receiver that is down for weeks must not grow the table
        // without bound; the newest letters are the ones an operator replays.
        self.query(
            "DELETE FROM dead_letters WHERE id <= (SELECT max(id) FROM dead_letters) - $1",
            &[&DEAD_LETTERS_KEPT],
        )
        .await
        .map(|_| ())
    }

    /// Undelivered notifications: (incident id, target, error, at), newest first.
    pub async fn dead_letters(&self) -> Result<Vec<(i64, String, String, String)>, StoreError> {
        let rows = self
            .query(
                "SELECT incident_id, target, error,
                        to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
                 FROM dead_letters ORDER BY id DESC LIMIT 1000",
                &[],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect())
    }

    /// Records one probe run (the table keeps the last 100 per tool).
    pub async fn record_probe(
        &self,
        tool: String,
        ok: bool,
        error_class: Option<String>,
        detail: String,
    ) -> Result<(), StoreError> {
        let tool = text(&tool);
        self.query(
            "INSERT INTO probe_results (tool, ok, error_class, detail, at) VALUES ($1, $2, $3, $4, now())",
            &[&tool, &ok, &error_class.as_deref().map(text), &text(&detail)],
        )
        .await?;
        self.query(
            "DELETE FROM probe_results WHERE tool = $1 AND id NOT IN
               (SELECT id FROM probe_results WHERE tool = $1 ORDER BY id DESC LIMIT 100)",
            &[&tool],
        )
        .await
        .map(|_| ())
    }

    /// The last probe results of `tool`, newest first.
    pub async fn probe_results(
        &self,
        tool: String,
    ) -> Result<Vec<(bool, Option<String>)>, StoreError> {
        let rows = self
            .query(
                "SELECT ok, error_class FROM probe_results WHERE tool = $1 ORDER BY id DESC",
                &[&text(&tool)],
            )
            .await?;
        Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
    }

    /// Incidents, newest first; only open ones unless `all`.
    pub async fn incidents(&self, all: bool) -> Result<Vec<Incident>, StoreError> {
        let filter = if all { "" } else { "WHERE resolved_at IS NULL" };
        let sql = format!("SELECT {COLUMNS} FROM incidents {filter} ORDER BY id DESC");
        Ok(self.query(&sql, &[]).await?.iter().map(incident).collect())
    }

    /// One incident by id.
    pub async fn incident(&self, id: i64) -> Result<Option<Incident>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM incidents WHERE id = $1");
        Ok(self.query(&sql, &[&id]).await?.first().map(incident))
    }

    /// Records the first acknowledgement of incident `id`.
    pub async fn acknowledge(&self, id: i64, who: String) -> Result<Option<Incident>, StoreError> {
        self.query(
            "UPDATE incidents SET acked_by = $2, acked_at = now() WHERE id = $1 AND acked_by IS NULL",
            &[&id, &text(&who)],
        )
        .await?;
        self.incident(id).await
    }

    /// Resolves incident `id` by hand, recording who.
    pub async fn resolve_by(&self, id: i64, who: String) -> Result<Option<Incident>, StoreError> {
        self.query(
            "UPDATE incidents SET status = 'resolved', resolved_at = now(), resolved_by = $2,
                resolution = 'resolved by ' || $2
             WHERE id = $1 AND resolved_at IS NULL",
            &[&id, &text(&who)],
        )
        .await?;
        self.incident(id).await
    }
}

/// `postgres://host:port/db`, without user or password.
fn describe(config: &tokio_postgres::Config) -> String {
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(h)) => h.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(p)) => p.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or("postgres");
    format!("postgres://{host}:{port}/{db}")
}

/// The error in words, and whether it is worth retrying: no server answer at all (a
/// closed connection, a refused one), or one saying it is shutting down, starting, or
/// out of connections.
fn pg_error(target: &str, e: &tokio_postgres::Error) -> StoreError {
    let (message, transient) = match e.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            let transient = ["08", "53", "57", "40"]
                .iter()
                .any(|class| code.starts_with(class));
            (format!("{} ({code})", db.message()), transient)
        }
        None => {
            use std::error::Error as _;
            let mut message = e.to_string();
            if let Some(source) = e.source() {
                message = format!("{message}: {source}");
            }
            (message, true)
        }
    };
    StoreError::Postgres {
        target: target.to_string(),
        message,
        transient,
    }
}

/// PostgreSQL text cannot hold NUL; anything else passes unchanged.
fn text(s: &str) -> String {
    s.replace('\0', "\u{FFFD}")
}

fn incident(r: &tokio_postgres::Row) -> Incident {
    let detail: String = r.get(7);
    Incident {
        id: r.get(0),
        kind: r.get(1),
        tool: r.get(2),
        dependency: r.get(3),
        owner: r.get(4),
        status: r.get(5),
        title: r.get(6),
        detail: serde_json::from_str(&detail).unwrap_or(serde_json::Value::String(detail)),
        contract_version: r.get(8),
        first_seen: r.get(9),
        last_seen: r.get(10),
        count: r.get(11),
        fingerprint: r.get(12),
        acked_by: r.get(13),
        acked_at: r.get(14),
        resolved_by: r.get(15),
        resolved_at: r.get(16),
        agents: crate::activity::agents_from_json(r.get::<_, Option<String>>(17).as_deref()),
        agents_unlisted: r.get(18),
    }
}
