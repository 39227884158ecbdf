//! The PostgreSQL store in a build without the `postgres` feature: connecting fails with
//! a sentence that says how to get it, and no value of this type can exist, so every
//! other method is unreachable.

mod activity;
mod audit;
mod listing;

use std::convert::Infallible;
use std::time::Duration;

use super::{Incident, IncidentKind, NewIncident, Recorded, StoreError};

/// What a `postgres://` state needs and this build lacks.
pub const NOT_BUILT: &str =
    "this build has no PostgreSQL support: rebuild with `--features postgres`";

/// A PostgreSQL store; this build cannot open one.
#[derive(Debug, Clone)]
pub struct PostgresStore {
    never: Infallible,
}

impl PostgresStore {
    /// Refuses: this build has no PostgreSQL support.
    pub async fn connect(_url: &str) -> Result<PostgresStore, StoreError> {
        Err(StoreError::Postgres {
            // The URL may carry a password: not repeated.
            target: "postgres://…".into(),
            message: NOT_BUILT.into(),
            transient: false,
        })
    }

    /// `postgres://host:port/db`.
    pub fn target(&self) -> &str {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn ping(&self) -> Result<(), StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn record_sightings(
        &self,
        _n: NewIncident,
        _seen: u32,
    ) -> Result<Recorded, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn resolve(
        &self,
        _kind: IncidentKind,
        _tool: String,
        _fingerprint: Option<String>,
        _why: String,
    ) -> Result<Vec<Incident>, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn claim_notification(
        &self,
        _id: i64,
        _throttle: Duration,
        _opening: bool,
    ) -> Result<bool, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn try_lease(
        &self,
        _name: &str,
        _holder: &str,
        _ttl: Duration,
    ) -> Result<bool, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn save_deprecation(
        &self,
        _tool: String,
        _notice: serde_json::Value,
    ) -> Result<(), StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn deprecations(&self) -> Result<Vec<(String, serde_json::Value)>, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn record_dead_letter(
        &self,
        _incident_id: i64,
        _target: String,
        _error: String,
        _payload: serde_json::Value,
    ) -> Result<(), StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn dead_letters(&self) -> Result<Vec<(i64, String, String, String)>, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn record_probe(
        &self,
        _tool: String,
        _ok: bool,
        _error_class: Option<String>,
        _detail: String,
    ) -> Result<(), StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn probe_results(
        &self,
        _tool: String,
    ) -> Result<Vec<(bool, Option<String>)>, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn incidents(&self, _all: bool) -> Result<Vec<Incident>, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn incident(&self, _id: i64) -> Result<Option<Incident>, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn acknowledge(
        &self,
        _id: i64,
        _who: String,
    ) -> Result<Option<Incident>, StoreError> {
        match self.never {}
    }

    /// Unreachable: no store exists.
    pub async fn resolve_by(&self, _id: i64, _who: String) -> Result<Option<Incident>, StoreError> {
        match self.never {}
    }
}
