//! Who an incident reached and who was told: the agents whose calls hit it, and the
//! webhook deliveries made about it — what the console's incident page shows beside the
//! diff, and `/admin/incidents` and `toolgate incidents` beside the counts.
//!
//! Agents: up to [`AGENTS_LISTED`] configured agent names per incident, each with its
//! sightings; sightings by further agents are only counted (`agents_unlisted`), so an
//! incident's row stays small however many agents a fleet has. Deliveries: one row per
//! webhook target and event, with the attempts it took and how it ended; the newest
//! [`DELIVERIES_KEPT`] are kept.

use serde::{Deserialize, Serialize};

use super::{NewIncident, Recorded, Store, StoreError};

/// Agents listed by name per incident; sightings by more are counted, not named.
pub const AGENTS_LISTED: usize = 20;

/// Delivery rows kept; older ones are pruned as new ones arrive.
pub const DELIVERIES_KEPT: i64 = 10_000;

/// Deliveries of one incident read at most (newest first).
pub const DELIVERIES_READ: i64 = 100;

/// An agent whose calls hit an incident.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IncidentAgent {
    /// The configured agent's name.
    pub agent: String,
    /// Its calls that saw the incident.
    pub sightings: i64,
}

/// One notification to one webhook target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Delivery {
    /// `opened`, `updated` or `resolved`.
    pub event: String,
    /// The target, as logs show it (`scheme://host[:port]/first-segment…`).
    pub target: String,
    /// Attempts made.
    pub attempts: i64,
    /// `delivered`, or `dead_letter` when every attempt failed.
    pub status: String,
    /// The last attempt's error, when it failed.
    pub error: Option<String>,
    /// RFC 3339: when it ended.
    pub at: String,
}

/// Parses the agents column (JSON written by the store); anything else reads as none.
pub(crate) fn agents_from_json(text: Option<&str>) -> Vec<IncidentAgent> {
    text.and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or_default()
}

impl Store {
    /// [`Store::record_sightings`], crediting the sightings to the agents whose calls
    /// made them (`(name, sightings)`; anonymous calls are left out by the caller), and
    /// `unlisted` sightings to agents the caller did not name.
    pub async fn record_sightings_by(
        &self,
        new: NewIncident,
        seen: u32,
        agents: Vec<(String, u32)>,
        unlisted: u32,
    ) -> Result<Recorded, StoreError> {
        match self {
            Store::Sqlite(s) => {
                s.record_sightings_by(new, seen.max(1), agents, unlisted)
                    .await
            }
            Store::Postgres(s) => {
                s.record_sightings_by(new, seen.max(1), agents, unlisted)
                    .await
            }
        }
    }

    /// Records one webhook delivery about incident `incident_id`.
    pub async fn record_delivery(
        &self,
        incident_id: i64,
        event: &str,
        target: String,
        attempts: u32,
        error: Option<String>,
    ) -> Result<(), StoreError> {
        let event = event.to_string();
        match self {
            Store::Sqlite(s) => {
                s.record_delivery(incident_id, event, target, attempts, error)
                    .await
            }
            Store::Postgres(s) => {
                s.record_delivery(incident_id, event, target, attempts, error)
                    .await
            }
        }
    }

    /// The newest deliveries about incident `incident_id` (at most [`DELIVERIES_READ`]).
    pub async fn deliveries(&self, incident_id: i64) -> Result<Vec<Delivery>, StoreError> {
        match self {
            Store::Sqlite(s) => s.deliveries(incident_id).await,
            Store::Postgres(s) => s.deliveries(incident_id).await,
        }
    }
}
