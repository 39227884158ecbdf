//! A page of incidents from PostgreSQL (see `listing.rs`).

use super::{COLUMNS, PostgresStore, incident, text};
use crate::listing::{IncidentPage, IncidentQuery};
use crate::{Incident, StoreError};

/// The filter of a page: $1 the status (NULL: any), $2 the lower-cased search.
const FILTER: &str = "WHERE ($1::TEXT IS NULL OR status = $1::TEXT) AND ($2::TEXT = ''
    OR strpos(lower(title), $2::TEXT) > 0 OR strpos(lower(tool), $2::TEXT) > 0
    OR strpos(lower(dependency), $2::TEXT) > 0 OR strpos(lower(owner), $2::TEXT) > 0
    OR strpos(kind, $2::TEXT) > 0 OR strpos(id::TEXT, $2::TEXT) > 0)";

impl PostgresStore {
    pub(crate) async fn newest_by_tool(&self, kind: String) -> Result<Vec<Incident>, StoreError> {
        Ok(self
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM incidents
                     WHERE id IN (SELECT max(id) FROM incidents WHERE kind = $1::TEXT GROUP BY tool)
                     ORDER BY id DESC"
                ),
                &[&text(&kind)],
            )
            .await?
            .iter()
            .map(incident)
            .collect())
    }

    pub(crate) async fn incident_page(
        &self,
        query: IncidentQuery,
    ) -> Result<IncidentPage, StoreError> {
        let needle = text(&query.needle());
        let status = query.status.as_deref().map(text);
        let rows = self
            .query(
                &format!("SELECT count(*) FROM incidents {FILTER}"),
                &[&status, &needle],
            )
            .await?;
        let matched = rows
            .first()
            .map_or(0, |r| u64::try_from(r.get::<_, i64>(0)).unwrap_or(0));
        let (page, pages) = query.place(matched);
        let per_page = query.per_page() as i64;
        let offset = (page as i64 - 1) * per_page;
        let incidents = self
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM incidents {FILTER} ORDER BY id DESC LIMIT $3 OFFSET $4"
                ),
                &[&status, &needle, &per_page, &offset],
            )
            .await?
            .iter()
            .map(incident)
            .collect();
        let (mut open, mut resolved) = (0u64, 0u64);
        for r in self
            .query(
                "SELECT status, count(*) FROM incidents GROUP BY status",
                &[],
            )
            .await?
        {
            let n = u64::try_from(r.get::<_, i64>(1)).unwrap_or(0);
            match r.get::<_, String>(0).as_str() {
                "open" => open = n,
                _ => resolved += n,
            }
        }
        Ok(IncidentPage {
            incidents,
            matched,
            page,
            pages,
            open,
            resolved,
        })
    }
}
