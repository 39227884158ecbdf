//! A page of incidents of a PostgreSQL store this build cannot open.

use super::PostgresStore;
use crate::StoreError;
use crate::listing::{IncidentPage, IncidentQuery};

impl PostgresStore {
    pub(crate) async fn incident_page(
        &self,
        _query: IncidentQuery,
    ) -> Result<IncidentPage, StoreError> {
        match self.never {}
    }
}
