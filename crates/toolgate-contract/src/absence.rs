//! Learned members gone from a response: drift only once gone from several responses in a
//! row. Twenty responses cannot tell a member that is always sent from one sent in 97 %
//! of responses, so a learned contract requires both; the first response without the
//! rarely-left-out member would otherwise page the owner for nothing. A member renamed or
//! dropped for good is gone from every response from then on, and is reported (with the
//! rename-aware diff) from the [`ABSENT_RESPONSES`]th response that reaches its place.
//!
//! What counts as gone, per response, is read from the response itself:
//! - a member is gone from a response when no object at its place carries a value for it:
//!   left out, or `null` (JSON's other way of leaving a value out: an upstream that wrote
//!   no `null` at a place in the twenty responses the contract was learned from may still
//!   write one there later, for a string as for an object or a list). A member `null` for
//!   good is reported like one dropped for good;
//! - a member some objects at its place still carry (three results of four with a
//!   `snippet`) is not gone: the others merely left it out, as a rename or a removal never
//!   does. That response neither counts towards the streak nor is drift for it;
//! - a response that does not reach the place at all (an empty `results` list, an
//!   optional parent left out) says nothing about the member: its streak neither grows
//!   nor ends. Only a response that carries the member ends it.
//!
//! Only absences wait: a type change, anything the validator flags beside a missing or
//! `null` member, is drift at once. Declared contracts never go through here: they say
//! themselves what is required.

use crate::drift::{Change, Drift};
use crate::path::Path;
use serde_json::Value;

/// Responses in a row a learned member must be missing from before its absence is drift.
/// A member sent in 97 % of responses is left out of three in a row about once in 37,000
/// responses; a rename is reported from the third response after it.
pub const ABSENT_RESPONSES: u32 = 3;

/// Values visited when looking for members in one response: a path through nested lists
/// visits every element of each, and a hostile body must not make that unbounded. Past
/// it, a member counts as not carried (the validator's word stands).
const VISITS: usize = 20_000;

/// Per path a learned contract requires (`results[].snippet`), how many responses in a row
/// lacked it. Bounded: at most [`crate::MAX_CHANGES`] paths are remembered.
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

    /// A response matched the contract: the streak of every member it carries ends; one
    /// it did not reach (an empty list) keeps its count.
    pub fn matched(&mut self, body: &Value) {
        let mut visits = VISITS;
        self.streaks
            .retain(|(path, _)| !carried(body, path, &mut visits));
    }

    /// The drift of one response (`body`), with the absences not yet confirmed held back;
    /// `None` when nothing breaking is left. A member some object at its place carries
    /// is not absent; a tracked member this response carries ends its streak, one it did
    /// not reach keeps it.
    pub fn judge(&mut self, drift: Drift, body: &Value) -> Option<Drift> {
        let previous = std::mem::take(&mut self.streaks);
        let streak_of = |path: &str| {
            previous
                .iter()
                .find(|(p, _)| p == path)
                .map_or(0, |(_, n)| *n)
        };
        let mut visits = VISITS;
        // Absences this response shows: the member is carried by no object at its place.
        let mut carried_here: Vec<&str> = Vec::new();
        for change in &drift.changes {
            let Some(path) = absent_path(change) else {
                continue;
            };
            if carried(body, path, &mut visits) {
                carried_here.push(path);
            } else if !self.streaks.iter().any(|(p, _)| p == path) {
                let n = streak_of(path).saturating_add(1);
                self.streaks.push((path.to_owned(), n));
            }
        }
        // Streaks this response says nothing about go on, as long as there is room.
        for (path, n) in previous {
            if self.streaks.len() >= crate::MAX_CHANGES {
                break;
            }
            if !self.streaks.iter().any(|(p, _)| *p == path) && !carried(body, &path, &mut visits) {
                self.streaks.push((path, n));
            }
        }
        self.streaks.truncate(crate::MAX_CHANGES);
        let waiting = |path: &str| {
            carried_here.contains(&path)
                || self
                    .streaks
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
        // required property`, `null is not of type "string"`): the report must not name
        // what it does not count.
        let violations = drift
            .violations
            .iter()
            .filter(|v| !held_back.iter().any(|p| says(v, p, body)))
            .cloned()
            .collect();
        let mut kept = Drift::new(changes, violations);
        kept.truncated += drift.truncated;
        Some(kept)
    }
}

/// The promised path a change says is gone: a missing member, the old name of a probable
/// rename, or a member that arrived as `null` only (the top level aside: a body that is
/// `null` is no response with a member left out).
fn absent_path(change: &Change) -> Option<&str> {
    match change {
        Change::Missing { path, .. } => Some(path),
        Change::Renamed { from, .. } => Some(from),
        Change::TypeChanged { path, found, .. } if found == "null" && !path.is_empty() => {
            Some(path)
        }
        _ => None,
    }
}

/// Whether a validator error is about the member at `path`: its `required` error (at the
/// parent, naming the member) or its `type` error (at the member).
fn says(v: &crate::drift::Violation, path: &str, body: &Value) -> bool {
    if v.schema_path.ends_with("/required") {
        return v.message.contains(&format!("\"{}\"", last_name(path)));
    }
    v.schema_path.ends_with("/type")
        && Path::from_pointer(&v.instance_path, body).to_string() == path
}

/// The member's own name in a path (`snippet` of `results[].snippet`).
fn last_name(path: &str) -> &str {
    path.rsplit('.').next().unwrap_or(path)
}

/// Whether some object at the place of `path` (`results[]` for `results[].snippet`)
/// carries a value other than `null` for its member. Keys may hold `.` or `[`: at each
/// object the path is matched against the member names actually there. Spends `visits`.
pub(crate) fn carried(value: &Value, path: &str, visits: &mut usize) -> bool {
    if *visits == 0 {
        return false;
    }
    *visits -= 1;
    match value {
        Value::Array(items) => {
            let Some((index, after)) = path.strip_prefix('[').and_then(|p| p.split_once(']'))
            else {
                return false;
            };
            let after = after.strip_prefix('.').unwrap_or(after);
            if index.is_empty() {
                items.iter().any(|item| carried(item, after, visits))
            } else {
                index
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .is_some_and(|item| carried(item, after, visits))
            }
        }
        Value::Object(members) => {
            if let Some(v) = members.get(path) {
                return !v.is_null();
            }
            // Each step consumes a `.` or a `[…]`, so the descent is as deep as the path.
            members
                .iter()
                .any(|(key, child)| match path.strip_prefix(key.as_str()) {
                    Some(after) if after.starts_with('.') => carried(child, &after[1..], visits),
                    Some(after) if after.starts_with('[') => carried(child, after, visits),
                    _ => false,
                })
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests;
