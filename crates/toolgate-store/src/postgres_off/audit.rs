//! The audit trail of a PostgreSQL store this build cannot open: unreachable.

use chrono::{DateTime, Utc};

use super::PostgresStore;
use crate::StoreError;
use crate::audit::{AuditQuery, AuditRecord};

impl PostgresStore {
    pub(crate) async fn record_audit(
        &self,
        _records: std::sync::Arc<[AuditRecord]>,
    ) -> Result<(), StoreError> {
        match self.never {}
    }

    pub(crate) async fn audit(&self, _q: AuditQuery) -> Result<Vec<AuditRecord>, StoreError> {
        match self.never {}
    }

    pub(crate) async fn prune_audit(
        &self,
        _before: DateTime<Utc>,
        _batch: u32,
    ) -> Result<u64, StoreError> {
        match self.never {}
    }
}
