//! One page of incidents, filtered and searched by the store (SQL `LIMIT`/`OFFSET`),
//! so the console's Incidents page reads 50 rows however many incidents a long-lived
//! store holds.

use super::{Incident, Store, StoreError};

/// Which incidents, and which page of them.
#[derive(Debug, Clone, Default)]
pub struct IncidentQuery {
    /// `Some("open")` or `Some("resolved")`; `None`: all.
    pub status: Option<String>,
    /// A case-insensitive substring of the title, tool, dependency, owner, kind or id
    /// (letters are compared case-insensitively in ASCII on SQLite, in Unicode on
    /// PostgreSQL); empty: no search.
    pub search: String,
    /// 1-based; clamped to the pages there are.
    pub page: usize,
    /// Incidents a page (at least 1, at most 1,000).
    pub per_page: usize,
}

/// One page, newest first, with what a pager and the state tabs need.
#[derive(Debug, Clone)]
pub struct IncidentPage {
    /// The page's incidents.
    pub incidents: Vec<Incident>,
    /// How many match the status and the search.
    pub matched: u64,
    /// The page shown (clamped).
    pub page: usize,
    /// Pages in all (at least 1).
    pub pages: usize,
    /// Open incidents in the store (whatever the search).
    pub open: u64,
    /// Resolved incidents in the store (whatever the search).
    pub resolved: u64,
}

impl IncidentQuery {
    pub(crate) fn per_page(&self) -> usize {
        self.per_page.clamp(1, 1_000)
    }

    /// The clamped page and the pages there are, for `matched` incidents.
    pub(crate) fn place(&self, matched: u64) -> (usize, usize) {
        let matched = usize::try_from(matched).unwrap_or(usize::MAX);
        let pages = matched.div_ceil(self.per_page()).max(1);
        (self.page.clamp(1, pages), pages)
    }

    /// The search, bounded and lower-cased.
    pub(crate) fn needle(&self) -> String {
        self.search
            .trim()
            .chars()
            .take(200)
            .collect::<String>()
            .to_lowercase()
    }
}

impl Store {
    /// The newest incident of `kind` (`contract_drift`, …) of each tool that has one:
    /// one row a tool, open or resolved, whatever else the store holds.
    pub async fn newest_by_tool(&self, kind: &str) -> Result<Vec<Incident>, StoreError> {
        let kind = kind.to_string();
        match self {
            Store::Sqlite(s) => s.newest_by_tool(kind).await,
            Store::Postgres(s) => s.newest_by_tool(kind).await,
        }
    }

    /// One page of incidents matching `query`, newest first.
    pub async fn incident_page(&self, query: IncidentQuery) -> Result<IncidentPage, StoreError> {
        match self {
            Store::Sqlite(s) => s.incident_page(query).await,
            Store::Postgres(s) => s.incident_page(query).await,
        }
    }
}
