//! Incident agents and webhook deliveries in PostgreSQL (see `activity.rs`).

use super::{PostgresStore, text};
use crate::activity::{AGENTS_LISTED, DELIVERIES_KEPT, DELIVERIES_READ, Delivery};
use crate::{NewIncident, Recorded, StoreError};

/// The migration that adds the agents of an incident and its deliveries.
pub(super) const MIGRATION: &str = "CREATE TABLE incident_agents (
        incident_id BIGINT NOT NULL,
        agent TEXT NOT NULL,
        sightings BIGINT NOT NULL,
        PRIMARY KEY (incident_id, agent)
    );
    ALTER TABLE incidents ADD COLUMN agents_unlisted BIGINT NOT NULL DEFAULT 0;
    CREATE TABLE deliveries (
        id BIGSERIAL PRIMARY KEY,
        incident_id BIGINT NOT NULL,
        event TEXT NOT NULL,
        target TEXT NOT NULL,
        attempts BIGINT NOT NULL,
        status TEXT NOT NULL,
        error TEXT,
        at TIMESTAMPTZ NOT NULL
    );
    CREATE INDEX deliveries_incident ON deliveries (incident_id, id);";

impl PostgresStore {
    pub(crate) async fn record_sightings_by(
        &self,
        new: NewIncident,
        seen: u32,
        agents: Vec<(String, u32)>,
        unlisted: u32,
    ) -> Result<Recorded, StoreError> {
        let mut recorded = self.record_sightings(new, seen).await?;
        if agents.is_empty() && unlisted == 0 {
            return Ok(recorded);
        }
        let mut unlisted = i64::from(unlisted);
        for (agent, seen) in &agents {
            let listed = self
                .query(
                    "INSERT INTO incident_agents (incident_id, agent, sightings)
                     SELECT $1, $2, $3
                     WHERE EXISTS (SELECT 1 FROM incident_agents WHERE incident_id = $1 AND agent = $2)
                        OR (SELECT count(*) FROM incident_agents WHERE incident_id = $1) < $4
                     ON CONFLICT (incident_id, agent)
                     DO UPDATE SET sightings = incident_agents.sightings + EXCLUDED.sightings
                     RETURNING 1",
                    &[
                        &recorded.id,
                        &text(agent),
                        &i64::from(*seen),
                        &(AGENTS_LISTED as i64),
                    ],
                )
                .await?;
            if listed.is_empty() {
                unlisted += i64::from(*seen);
            }
        }
        if unlisted > 0 {
            self.query(
                "UPDATE incidents SET agents_unlisted = agents_unlisted + $2 WHERE id = $1",
                &[&recorded.id, &unlisted],
            )
            .await?;
        }
        recorded.incident = self.incident(recorded.id).await?;
        Ok(recorded)
    }

    pub(crate) async fn record_delivery(
        &self,
        incident_id: i64,
        event: String,
        target: String,
        attempts: u32,
        error: Option<String>,
    ) -> Result<(), StoreError> {
        let status = if error.is_some() {
            "dead_letter"
        } else {
            "delivered"
        };
        self.query(
            "INSERT INTO deliveries (incident_id, event, target, attempts, status, error, at)
             VALUES ($1, $2, $3, $4, $5, $6, now())",
            &[
                &incident_id,
                &text(&event),
                &text(&target),
                &i64::from(attempts),
                &status,
                &error.as_deref().map(text),
            ],
        )
        .await?;
        self.query(
            "DELETE FROM deliveries WHERE id <= (SELECT max(id) FROM deliveries) - $1",
            &[&DELIVERIES_KEPT],
        )
        .await
        .map(|_| ())
    }

    pub(crate) async fn deliveries(&self, incident_id: i64) -> Result<Vec<Delivery>, StoreError> {
        let rows = self
            .query(
                "SELECT event, target, attempts, status, error,
                    to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')
                 FROM deliveries WHERE incident_id = $1 ORDER BY id DESC LIMIT $2",
                &[&incident_id, &DELIVERIES_READ],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| Delivery {
                event: r.get(0),
                target: r.get(1),
                attempts: r.get(2),
                status: r.get(3),
                error: r.get(4),
                at: r.get(5),
            })
            .collect())
    }
}
