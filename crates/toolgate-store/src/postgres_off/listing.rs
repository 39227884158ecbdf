//! A page of incidents of a PostgreSQL store this build cannot open.

use super::PostgresStore;
use crate::listing::{IncidentPage, IncidentQuery};
use crate::{Incident, StoreError};

impl PostgresStore {
    pub(crate) async fn newest_by_tool(&self, _kind: String) -> Result<Vec<Incident>, StoreError> {
        match self.never {}
    }

    pub(crate) async fn incident_page(
        &self,
        _query: IncidentQuery,
    ) -> Result<IncidentPage, StoreError> {
        match self.never {}
    }
}
