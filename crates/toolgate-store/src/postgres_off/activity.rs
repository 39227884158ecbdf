//! Incident agents and deliveries of a PostgreSQL store this build cannot open.

use super::PostgresStore;
use crate::activity::Delivery;
use crate::{NewIncident, Recorded, StoreError};

impl PostgresStore {
    pub(crate) async fn record_sightings_by(
        &self,
        _new: NewIncident,
        _seen: u32,
        _agents: Vec<(String, u32)>,
        _unlisted: u32,
    ) -> Result<Recorded, StoreError> {
        match self.never {}
    }

    pub(crate) async fn record_delivery(
        &self,
        _incident_id: i64,
        _event: String,
        _target: String,
        _attempts: u32,
        _error: Option<String>,
    ) -> Result<(), StoreError> {
        match self.never {}
    }

    pub(crate) async fn deliveries(&self, _incident_id: i64) -> Result<Vec<Delivery>, StoreError> {
        match self.never {}
    }
}
