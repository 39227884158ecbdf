//! A page of incidents from SQLite (see `listing.rs`).

use rusqlite::params;

use super::{SqliteStore, query_incidents_then};
use crate::listing::{IncidentPage, IncidentQuery};
use crate::{Incident, StoreError};

/// The filter of a page: ?1 the status (NULL: any), ?2 the lower-cased search.
const FILTER: &str = "WHERE (?1 IS NULL OR status = ?1) AND (?2 = ''
    OR instr(lower(title), ?2) > 0 OR instr(lower(tool), ?2) > 0
    OR instr(lower(dependency), ?2) > 0 OR instr(lower(owner), ?2) > 0
    OR instr(kind, ?2) > 0 OR instr(CAST(id AS TEXT), ?2) > 0)";

impl SqliteStore {
    pub(crate) async fn newest_by_tool(&self, kind: String) -> Result<Vec<Incident>, StoreError> {
        self.with(move |c| {
            query_incidents_then(
                c,
                "WHERE id IN (SELECT max(id) FROM incidents WHERE kind = ?1 GROUP BY tool)",
                "",
                params![kind],
            )
        })
        .await
    }

    pub(crate) async fn incident_page(
        &self,
        query: IncidentQuery,
    ) -> Result<IncidentPage, StoreError> {
        self.with(move |c| {
            let needle = query.needle();
            let tx = c.transaction()?;
            let matched: i64 = tx.query_row(
                &format!("SELECT count(*) FROM incidents {FILTER}"),
                params![query.status, needle],
                |r| r.get(0),
            )?;
            let matched = u64::try_from(matched).unwrap_or(0);
            let (page, pages) = query.place(matched);
            let per_page = query.per_page();
            let incidents = query_incidents_then(
                &tx,
                FILTER,
                "LIMIT ?3 OFFSET ?4",
                params![
                    query.status,
                    needle,
                    per_page as i64,
                    ((page - 1) * per_page) as i64
                ],
            )?;
            let (mut open, mut resolved) = (0u64, 0u64);
            {
                let mut stmt =
                    tx.prepare("SELECT status, count(*) FROM incidents GROUP BY status")?;
                let rows =
                    stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?;
                for row in rows {
                    let (status, n) = row?;
                    let n = u64::try_from(n).unwrap_or(0);
                    match status.as_str() {
                        "open" => open = n,
                        _ => resolved += n,
                    }
                }
            }
            tx.commit()?;
            Ok(IncidentPage {
                incidents,
                matched,
                page,
                pages,
                open,
                resolved,
            })
        })
        .await
    }
}
