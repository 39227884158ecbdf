//! Learned members gone from a response: drift only once gone from several responses in a
//! row. Twenty responses cannot tell a member that is always sent from one sent in 97 %
//! of responses, so a learned contract requires both; the first response without the
//! rarely-left-out member would otherwise page the owner for nothing. A member renamed or
//! dropped for good is gone from every response from then on, and is reported (with the
//! rename-aware diff) from the [`ABSENT_RESPONSES`]th response that reaches its place.
//!
//! Only absences wait: a type change, a `null` where none is accepted, anything the
//! validator flags beside a missing member is drift at once. Declared contracts never go
//! through here: they say themselves what is required.

use crate::drift::{Change, Drift};

/// Responses in a row a learned member must be missing from before its absence is drift.
/// A member sent in 97 % of responses is left out of three in a row about once in 37,000
/// responses; a rename is reported from the third response after it.
pub const ABSENT_RESPONSES: u32 = 3;

/// Per path a learned contract requires (`results[].snippet`), how many responses in a row
/// lacked it. Bounded: a response keeps only the paths it lacked, and a diff holds at most
/// [`crate::MAX_CHANGES`] changes.
#[derive(Debug, Default, Clone)]
pub struct Absences {
    streaks: Vec<(String, u32)>,
}

impl Absences {
    /// No member is missing from the latest responses: a matching response needs no
    /// bookkeeping (a caller may skip [`Absences::matched`] then).
    pub fn is_empty(&self) -> bool {
        self.streaks.is_empty()
    }

    /// Paths missing from the latest responses, at most [`crate::MAX_CHANGES`].
    pub fn tracked(&self) -> usize {
        self.streaks.len()
    }

    /// A response matched the contract: every member it reached was there, so every
    /// streak ends.
    pub fn matched(&mut self) {
        self.streaks.clear();
    }

    /// The drift of one response, with the absences not yet confirmed held back; `None`
    /// when nothing breaking is left. A path not missing from this response ends its
    /// streak (it was there, or the response did not reach its place).
    pub fn judge(&mut self, drift: Drift) -> Option<Drift> {
        let previous = std::mem::take(&mut self.streaks);
        let streak_of = |path: &str| {
            previous
                .iter()
                .find(|(p, _)| p == path)
                .map_or(0, |(_, n)| *n)
        };
        for change in &drift.changes {
            if let Some(path) = absent_path(change)
                && !self.streaks.iter().any(|(p, _)| p == path)
            {
                let n = streak_of(path).saturating_add(1);
                self.streaks.push((path.to_owned(), n));
            }
        }
        let waiting = |path: &str| {
            self.streaks
                .iter()
                .any(|(p, n)| p == path && *n < ABSENT_RESPONSES)
        };
        if !drift
            .changes
            .iter()
            .any(|c| absent_path(c).is_some_and(waiting))
        {
            return Some(drift);
        }
        let held_back: Vec<&str> = drift
            .changes
            .iter()
            .filter_map(absent_path)
            .filter(|p| waiting(p))
            .collect();
        let changes: Vec<Change> = drift
            .changes
            .iter()
            .filter(|c| absent_path(c).is_none_or(|p| !waiting(p)))
            .cloned()
            .collect();
        if !changes.iter().any(Change::is_breaking) {
            return None;
        }
        // The validator's own words for a member held back go too (`"snippet" is a
        // required property`): the report must not name what it does not count.
        let violations = drift
            .violations
            .iter()
            .filter(|v| {
                !(v.schema_path.ends_with("/required")
                    && held_back
                        .iter()
                        .any(|p| v.message.contains(&format!("\"{}\"", last_name(p)))))
            })
            .cloned()
            .collect();
        let mut kept = Drift::new(changes, violations);
        kept.truncated += drift.truncated;
        Some(kept)
    }
}

/// The promised path a change says is gone: a missing member, or the old name of a
/// probable rename.
fn absent_path(change: &Change) -> Option<&str> {
    match change {
        Change::Missing { path, .. } => Some(path),
        Change::Renamed { from, .. } => Some(from),
        _ => None,
    }
}

/// The member's own name in a path (`snippet` of `results[].snippet`).
fn last_name(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}
