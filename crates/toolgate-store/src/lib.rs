//! The state store: incidents, remembered deprecations, probe results, dead letters,
//! notification claims and leases — what must survive a restart.
//!
//! Two backends behind one handle. SQLite (the default, `gateway.state: FILE`) is one
//! replica's own file. PostgreSQL (`gateway.state: postgres://…`) is shared by every
//! replica of a fleet, and is what makes the fleet do once what must happen once: one
//! open incident per (kind, tool, fingerprint) (a partial unique index and upserts),
//! one notification per incident per throttle (a claim in the row before sending), and
//! leases for the fleet-wide singletons (probes, alert rules).
//!
//! Nothing on a call's path waits for the store: incidents reach it through the
//! incident writer (`watch::incidents`), which merges repeat sightings and retries
//! writes the store refused while it was unavailable.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use toolgate_config::GatewayConfig;

// PostgreSQL only with the `postgres` feature; without it, a stub that refuses to
// connect with a sentence saying how to rebuild.
#[cfg(feature = "postgres")]
mod postgres;
#[cfg(not(feature = "postgres"))]
mod postgres_off;
#[cfg(not(feature = "postgres"))]
use postgres_off as postgres;
mod sqlite;
#[cfg(test)]
mod tests;

mod activity;
pub use activity::{AGENTS_LISTED, DELIVERIES_KEPT, Delivery, IncidentAgent};
mod listing;
pub use listing::{IncidentPage, IncidentQuery};
mod audit;
pub use audit::{AUDIT_READ_MAX, AuditQuery, AuditRecord, audit_time, parse_audit_time};

pub use postgres::PostgresStore;
pub use sqlite::SqliteStore;

/// Errors from the store, with the store they concern (a file, or `postgres://host/db`:
/// never a URL's credentials).
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
    /// PostgreSQL failed, or could not be reached.
    #[error("state store {target}: {message}")]
    Postgres {
        /// `postgres://host:port/db`.
        target: String,
        /// What went wrong (the server's message, or the connection's).
        message: String,
        /// Whether trying again later may succeed (the server is down, restarting or
        /// unreachable), as opposed to a statement it refuses.
        transient: bool,
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
    /// The store was written by a newer toolgate, whose schema this one does not know.
    #[error(
        "state store {store} has schema version {found}, newer than this toolgate's {known}: \
         it was written by a newer toolgate. Run that version, or point gateway.state at another store"
    )]
    NewerSchema {
        /// The database file, or `postgres://host:port/db`.
        store: String,
        /// The schema version in the store.
        found: i64,
        /// The newest version this binary knows.
        known: i64,
    },
}

impl StoreError {
    /// Whether the same write may succeed later: the incident writer keeps such writes
    /// queued and retries them; any other failure is logged and the write dropped (a
    /// statement the store refuses now would be refused forever).
    pub fn is_transient(&self) -> bool {
        match self {
            StoreError::Postgres { transient, .. } => *transient,
            StoreError::Sqlite { source, .. } => matches!(
                source.sqlite_error_code(),
                Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
            ),
            StoreError::Dir { .. } | StoreError::Cancelled | StoreError::NewerSchema { .. } => {
                false
            }
        }
    }
}

/// Dead letters kept; older ones are pruned as new ones arrive.
pub const DEAD_LETTERS_KEPT: i64 = 10_000;

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
    /// An upstream MCP server floods toolgate with requests of its own (ping, sampling,
    /// elicitation) beyond what one connection may have in flight, or with more than its
    /// stream of messages outside any request may carry in a minute: the excess is shed.
    UpstreamMisbehaving,
}

impl IncidentKind {
    /// Every kind.
    pub const ALL: [IncidentKind; 10] = [
        IncidentKind::ContractDrift,
        IncidentKind::Deprecation,
        IncidentKind::RecoveryRateZero,
        IncidentKind::ProbeFailing,
        IncidentKind::CircuitOpenLong,
        IncidentKind::AuthFailing,
        IncidentKind::SuccessRateCollapse,
        IncidentKind::WrapperOutdated,
        IncidentKind::DefinitionDrift,
        IncidentKind::UpstreamMisbehaving,
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
            IncidentKind::UpstreamMisbehaving => "upstream_misbehaving",
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
    /// Who acknowledged it (the console or `POST /admin/incidents/{id}/ack`).
    pub acked_by: Option<String>,
    /// RFC 3339: when it was acknowledged.
    pub acked_at: Option<String>,
    /// Who resolved it by hand; `None` when toolgate resolved it (or it is open).
    pub resolved_by: Option<String>,
    /// RFC 3339: when it was resolved.
    pub resolved_at: Option<String>,
    /// The agents whose calls hit it, most sightings first (at most
    /// [`AGENTS_LISTED`]).
    pub agents: Vec<IncidentAgent>,
    /// Sightings by agents beyond the listed ones.
    pub agents_unlisted: i64,
}

/// Whether recording created a new incident, and the incident as stored.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// Row id.
    pub id: i64,
    /// True when this opened a new incident (alert on it); false when it updated one.
    pub opened: bool,
    /// The incident after this write (read in the same statement or transaction, so
    /// whoever notifies the owner needs no second trip to the store).
    pub incident: Option<Incident>,
}

/// The store handle; cheap to clone.
#[derive(Debug, Clone)]
pub enum Store {
    /// One replica's SQLite file.
    Sqlite(SqliteStore),
    /// A PostgreSQL database shared by the replicas.
    Postgres(PostgresStore),
}

macro_rules! dispatch {
    ($self:ident, $s:ident => $e:expr) => {
        match $self {
            Store::Sqlite($s) => $e,
            Store::Postgres($s) => $e,
        }
    };
}

impl Store {
    /// Opens (creating directory and file on first use) and migrates a SQLite store.
    pub fn open(path: &Path) -> Result<Store, StoreError> {
        SqliteStore::open(path).map(Store::Sqlite)
    }

    /// The store `gateway` names: PostgreSQL when `gateway.state` is a `postgres://`
    /// URL, else the SQLite file. Migrates it; refuses a schema from a newer toolgate.
    pub async fn connect(gateway: &GatewayConfig) -> Result<Store, StoreError> {
        match &gateway.postgres {
            Some(url) => PostgresStore::connect(&url.0).await.map(Store::Postgres),
            None => Store::open(&gateway.state),
        }
    }

    /// What the store is, for messages: the SQLite file, or `postgres://host:port/db`.
    pub fn describe(&self) -> String {
        match self {
            Store::Sqlite(s) => s.path().display().to_string(),
            Store::Postgres(s) => s.target().to_string(),
        }
    }

    /// Whether other replicas share this store (then claims and leases matter).
    pub fn is_shared(&self) -> bool {
        matches!(self, Store::Postgres(_))
    }

    /// Checks that the store answers (for `/readyz`).
    pub async fn ping(&self) -> Result<(), StoreError> {
        dispatch!(self, s => s.ping().await)
    }

    /// Opens an incident, or updates the open one with the same (kind, tool, fingerprint).
    pub async fn record_incident(&self, new: NewIncident) -> Result<Recorded, StoreError> {
        self.record_sightings(new, 1).await
    }

    /// Like [`Store::record_incident`] for `seen` sightings at once (merged by the
    /// incident writer): a new incident starts at `seen`, an open one adds it. Replicas
    /// recording the same open incident at once make one incident with their counts
    /// added up.
    pub async fn record_sightings(
        &self,
        new: NewIncident,
        seen: u32,
    ) -> Result<Recorded, StoreError> {
        dispatch!(self, s => s.record_sightings(new, seen.max(1)).await)
    }

    /// Marks the open incidents of (kind, tool[, fingerprint]) resolved, with a reason;
    /// returns those this call resolved (so of two replicas resolving at once, one
    /// announces the resolution).
    pub async fn resolve(
        &self,
        kind: IncidentKind,
        tool: String,
        fingerprint: Option<String>,
        why: String,
    ) -> Result<Vec<Incident>, StoreError> {
        dispatch!(self, s => s.resolve(kind, tool, fingerprint, why).await)
    }

    /// Claims the right to notify about incident `id` now: true for the one caller that
    /// may send, when nobody claimed it within `throttle`. `opening` is true for the
    /// replica whose write opened the incident: a new incident is announced by its
    /// opener (as opened), not by a replica that merely saw it too. SQLite (one
    /// replica) always says yes and leaves throttling to the notifier, as before.
    pub async fn claim_notification(
        &self,
        id: i64,
        throttle: Duration,
        opening: bool,
    ) -> Result<bool, StoreError> {
        dispatch!(self, s => s.claim_notification(id, throttle, opening).await)
    }

    /// Takes or renews the lease `name` for `holder` for `ttl`: true when `holder` holds
    /// it now (it was free, expired, or already its own). SQLite: always true.
    pub async fn try_lease(
        &self,
        name: &str,
        holder: &str,
        ttl: Duration,
    ) -> Result<bool, StoreError> {
        dispatch!(self, s => s.try_lease(name, holder, ttl).await)
    }

    /// Remembers the latest deprecation notice of a tool.
    pub async fn save_deprecation(
        &self,
        tool: String,
        notice: serde_json::Value,
    ) -> Result<(), StoreError> {
        dispatch!(self, s => s.save_deprecation(tool, notice).await)
    }

    /// Every remembered deprecation notice, by tool.
    pub async fn deprecations(&self) -> Result<Vec<(String, serde_json::Value)>, StoreError> {
        dispatch!(self, s => s.deprecations().await)
    }

    /// Records a notification that could not be delivered.
    pub async fn record_dead_letter(
        &self,
        incident_id: i64,
        target: String,
        error: String,
        payload: serde_json::Value,
    ) -> Result<(), StoreError> {
        dispatch!(self, s => s.record_dead_letter(incident_id, target, error, payload).await)
    }

    /// Undelivered notifications: (incident id, target, error, at), newest first.
    pub async fn dead_letters(&self) -> Result<Vec<(i64, String, String, String)>, StoreError> {
        dispatch!(self, s => s.dead_letters().await)
    }

    /// Records one probe run (the table keeps the last 100 per tool).
    pub async fn record_probe(
        &self,
        tool: String,
        ok: bool,
        error_class: Option<String>,
        detail: String,
    ) -> Result<(), StoreError> {
        dispatch!(self, s => s.record_probe(tool, ok, error_class, detail).await)
    }

    /// The last probe results of `tool`: (ok, error class), newest first.
    pub async fn probe_results(
        &self,
        tool: String,
    ) -> Result<Vec<(bool, Option<String>)>, StoreError> {
        dispatch!(self, s => s.probe_results(tool).await)
    }

    /// Incidents, newest first; only open ones unless `all`.
    pub async fn incidents(&self, all: bool) -> Result<Vec<Incident>, StoreError> {
        dispatch!(self, s => s.incidents(all).await)
    }

    /// One incident by id, open or resolved.
    pub async fn incident(&self, id: i64) -> Result<Option<Incident>, StoreError> {
        dispatch!(self, s => s.incident(id).await)
    }

    /// Records that `who` acknowledged incident `id` (the first acknowledgement stays:
    /// a second one changes nothing). `None` when there is no such incident.
    pub async fn acknowledge(&self, id: i64, who: String) -> Result<Option<Incident>, StoreError> {
        dispatch!(self, s => s.acknowledge(id, who).await)
    }

    /// Resolves incident `id` by hand, recording who; an incident already resolved is
    /// returned as it is. `None` when there is no such incident.
    pub async fn resolve_by(&self, id: i64, who: String) -> Result<Option<Incident>, StoreError> {
        dispatch!(self, s => s.resolve_by(id, who).await)
    }
}

/// This replica's name as a lease holder: `gateway.replica`, else `hostname:pid`.
pub fn replica_name(gateway: &GatewayConfig) -> String {
    if let Some(name) = gateway.replica.as_deref().filter(|n| !n.trim().is_empty()) {
        return name.to_string();
    }
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".into());
    format!("{host}:{}", std::process::id())
}
