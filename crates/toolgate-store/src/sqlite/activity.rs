//! Incident agents and webhook deliveries in SQLite (see `activity.rs`).

use rusqlite::{Connection, params};

use super::{SqliteStore, now, record_incident};
use crate::activity::{AGENTS_LISTED, DELIVERIES_KEPT, DELIVERIES_READ, Delivery};
use crate::{NewIncident, Recorded, StoreError};

/// The migration that adds the agents of an incident and its deliveries.
pub(super) const MIGRATION: &str = "CREATE TABLE incident_agents (
        incident_id INTEGER NOT NULL,
        agent TEXT NOT NULL,
        sightings INTEGER NOT NULL,
        PRIMARY KEY (incident_id, agent)
    );
    ALTER TABLE incidents ADD COLUMN agents_unlisted INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE deliveries (
        id INTEGER PRIMARY KEY,
        incident_id INTEGER NOT NULL,
        event TEXT NOT NULL,
        target TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        at TEXT NOT NULL
    );
    CREATE INDEX deliveries_incident ON deliveries(incident_id, id);";

/// The two columns `query_incidents` reads after the others: the listed agents as a
/// JSON array (most sightings first), and the unlisted sightings.
pub(super) const AGENT_COLUMNS: &str =
    "(SELECT json_group_array(json_object('agent', agent, 'sightings', sightings))
        FROM (SELECT agent, sightings FROM incident_agents WHERE incident_id = incidents.id
              ORDER BY sightings DESC, agent)),
    agents_unlisted";

/// Credits `agents`' sightings (and `unlisted` ones) to incident `id`, inside the
/// caller's transaction.
pub(super) fn credit(
    c: &Connection,
    id: i64,
    agents: &[(String, u32)],
    unlisted: u32,
) -> rusqlite::Result<()> {
    let mut unlisted = u64::from(unlisted);
    for (agent, seen) in agents {
        let listed = c.execute(
            "INSERT INTO incident_agents (incident_id, agent, sightings)
             SELECT ?1, ?2, ?3
             WHERE EXISTS (SELECT 1 FROM incident_agents WHERE incident_id = ?1 AND agent = ?2)
                OR (SELECT count(*) FROM incident_agents WHERE incident_id = ?1) < ?4
             ON CONFLICT (incident_id, agent) DO UPDATE SET sightings = sightings + excluded.sightings",
            params![id, agent, seen, AGENTS_LISTED as i64],
        )?;
        if listed == 0 {
            unlisted += u64::from(*seen);
        }
    }
    if unlisted > 0 {
        c.execute(
            "UPDATE incidents SET agents_unlisted = agents_unlisted + ?2 WHERE id = ?1",
            params![id, i64::try_from(unlisted).unwrap_or(i64::MAX)],
        )?;
    }
    Ok(())
}

impl SqliteStore {
    pub(crate) async fn record_sightings_by(
        &self,
        new: NewIncident,
        seen: u32,
        agents: Vec<(String, u32)>,
        unlisted: u32,
    ) -> Result<Recorded, StoreError> {
        self.with(move |c| record_incident(c, &new, seen, &now(), &agents, unlisted))
            .await
    }

    pub(crate) async fn record_delivery(
        &self,
        incident_id: i64,
        event: String,
        target: String,
        attempts: u32,
        error: Option<String>,
    ) -> Result<(), StoreError> {
        self.with(move |c| {
            let status = if error.is_some() {
                "dead_letter"
            } else {
                "delivered"
            };
            c.execute(
                "INSERT INTO deliveries (incident_id, event, target, attempts, status, error, at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![incident_id, event, target, attempts, status, error, now()],
            )?;
            c.execute(
                "DELETE FROM deliveries WHERE id <= (SELECT max(id) FROM deliveries) - ?1",
                params![DELIVERIES_KEPT],
            )
            .map(|_| ())
        })
        .await
    }

    pub(crate) async fn deliveries(&self, incident_id: i64) -> Result<Vec<Delivery>, StoreError> {
        self.with(move |c| {
            let mut stmt = c.prepare(
                "SELECT event, target, attempts, status, error, at FROM deliveries
                 WHERE incident_id = ?1 ORDER BY id DESC LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![incident_id, DELIVERIES_READ], |r| {
                Ok(Delivery {
                    event: r.get(0)?,
                    target: r.get(1)?,
                    attempts: r.get(2)?,
                    status: r.get(3)?,
                    error: r.get(4)?,
                    at: r.get(5)?,
                })
            })?;
            rows.collect()
        })
        .await
    }
}
