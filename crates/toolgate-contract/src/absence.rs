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
//!   nor ends. Only a response that carries the member ends it;
//! - a member seen coming back after an absence is one the upstream leaves out now and
//!   then, however regularly the twenty learned responses carried it: from then on its
//!   absence is drift only once it is longer than the member's own absences make likely
//!   (see `Record::needed`: left out of one response at a time five times, it waits for
//!   7 in a row), so a member usually present is not reported as renamed or dropped for
//!   the gaps it has always had, while one gone for good is still reported;
//! - a member that comes back after its absence was reported was not removed: twenty
//!   responses never showed the upstream leaving it out. Its absence is withdrawn (the
//!   caller hears of it through [`Absences::take_returned`], to tell the owner) and counts
//!   as one of its gaps, and an upstream that left a member out for a stretch and sent it
//!   again may do so with any member: from then on, any member's absence is drift only
//!   once it is longer than the longest absence a member of this contract came back from
//!   (at most [`LONGEST_HOLD`] responses), so each stretch is reported once, not once per
//!   member, while a member gone for good is still reported.
//!
//! Only absences wait: a type change, anything the validator flags beside a missing or
//! `null` member, is drift at once — except a string written as the object it names (an
//! id expanded into its record, a link written as a link object), which is no drift at
//! all (see `written_as_its_object`). Declared contracts never go through here: they say
//! themselves what is required.

use crate::drift::{Change, Drift};
use crate::path::Path;
use serde_json::Value;

/// Responses in a row a learned member must be missing from before its absence is drift,
/// while it has never been seen coming back. A member sent in 97 % of responses is left
/// out of three in a row about once in 37,000 responses; a rename is reported from the
/// third response after it.
pub const ABSENT_RESPONSES: u32 = 3;

/// Responses in a row a member known to come back is waited for at most: past it, any
/// record says the member is gone.
const LONGEST_WAIT: u32 = 30;

/// Responses in a row an absence is held back at most because some member of the
/// contract came back after being missing that long: past it, a member is reported
/// however long the stretches the upstream left members out for.
const LONGEST_HOLD: u32 = 2 * LONGEST_WAIT;

/// A member that came back is left out again and again, and each of its absences could
/// page its owner: it must be missing until one of its absences in this many would have
/// gone on that long.
const RARE: f64 = 100_000.0;

/// Values visited when looking for members in one response: a path through nested lists
/// visits every element of each, and a hostile body must not make that unbounded. Past
/// it, a member counts as not carried (the validator's word stands).
const VISITS: usize = 20_000;

/// Members remembered at most: those missing lately (at most [`crate::MAX_CHANGES`], the
/// size of one diff) and those seen coming back after an absence.
const REMEMBERED: usize = 2 * crate::MAX_CHANGES;

/// One learned member that has been missing: how long it is missing now, and what its
/// earlier absences were.
#[derive(Debug, Clone)]
struct Record {
    path: String,
    /// Responses in a row that lacked it, up to the latest (0: it is carried again).
    streak: u32,
    /// Responses that lacked it in the absences it came back from.
    gone: u32,
    /// Absences it came back from.
    back: u32,
}

/// A member that came back after its absence had been reported as drift: it was not
/// removed, and the report is withdrawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Returned {
    /// The member's path (`results[].snippet`).
    pub path: String,
    /// Responses in a row it was missing from.
    pub missing: u32,
}

impl Record {
    /// Responses in a row it must be missing from before its absence is drift. A member
    /// never seen coming back waits [`ABSENT_RESPONSES`]: the twenty responses it was
    /// learned from put its chance of being left out at about 1 in 22, so three absences
    /// in a row from it take about 1 in 10,000 responses. A member that came back is one
    /// the upstream leaves out now and then, not one it renamed: its own absences say how
    /// often one goes on to the next response (`c`, counted with one absence that went
    /// on and one that did not added, so that a few absences cannot make it certain), and
    /// it must be missing until an absence of that upstream would have gone on that long
    /// in one of [`RARE`] (`c^(n-1)`). Left out of one response at a time five times, it
    /// waits for 7 in a row; once, for 12.
    ///
    /// Whatever its own gaps, it also waits until it is missing longer than `longest`, the
    /// longest absence a member of the contract came back from (at most
    /// [`LONGEST_HOLD`]): the upstream has shown it leaves members out that long.
    fn needed(&self, longest: u32) -> u32 {
        let held = longest.saturating_add(1).min(LONGEST_HOLD);
        self.by_own_gaps().max(held)
    }

    /// The wait its own absences call for (see [`Record::needed`]).
    fn by_own_gaps(&self) -> u32 {
        if self.back == 0 {
            return ABSENT_RESPONSES;
        }
        let went_on = f64::from(self.gone.saturating_sub(self.back)) + 1.0;
        let all = f64::from(self.gone) + 2.0;
        let goes_on = went_on / all;
        // The chance that an absence lasts n responses: goes_on^(n-1).
        let mut lasts = goes_on;
        let mut n = 2;
        while n < LONGEST_WAIT && lasts * RARE > 1.0 {
            lasts *= goes_on;
            n += 1;
        }
        n.max(ABSENT_RESPONSES)
    }

    /// The member is carried again: its absence, if one was open, is one of the gaps it
    /// came back from — held back or already reported alike: a member the twenty learned
    /// responses always carried and that comes back after a stretch without it is one the
    /// upstream leaves out at times, not one it removed. `Some` when the absence had been
    /// reported (with `longest`, as [`Record::needed`] takes it), for the report to be
    /// withdrawn.
    fn came_back(&mut self, longest: u32) -> Option<Returned> {
        if self.streak == 0 {
            return None;
        }
        let missing = self.streak;
        let reported = missing >= self.needed(longest);
        self.gone = self.gone.saturating_add(missing);
        self.back = self.back.saturating_add(1);
        self.streak = 0;
        reported.then(|| Returned {
            path: self.path.clone(),
            missing,
        })
    }
}

/// Per path a learned contract requires (`results[].snippet`), how many responses in a row
/// lacked it, and how it came and went before. Bounded: at most [`crate::MAX_CHANGES`]
/// absences are followed at once, and [`REMEMBERED`] members in all.
#[derive(Debug, Default, Clone)]
pub struct Absences {
    records: Vec<Record>,
    /// The longest absence any member came back from, in responses.
    longest: u32,
    /// Members that came back after their absence was reported, not yet taken.
    returned: Vec<Returned>,
}

impl Absences {
    /// No member is missing from the latest responses: a matching response needs no
    /// bookkeeping (a caller may skip [`Absences::matched`] then).
    pub fn is_empty(&self) -> bool {
        self.records.iter().all(|r| r.streak == 0)
    }

    /// Paths missing from the latest responses, at most [`crate::MAX_CHANGES`].
    pub fn tracked(&self) -> usize {
        self.records.iter().filter(|r| r.streak > 0).count()
    }

    /// A response matched the contract: the absence of every member it carries ends (it
    /// came back); one it did not reach (an empty list) goes on.
    pub fn matched(&mut self, body: &Value) {
        let mut visits = VISITS;
        for i in 0..self.records.len() {
            if self.records[i].streak > 0 && carried(body, &self.records[i].path, &mut visits) {
                self.came_back(i);
            }
        }
    }

    /// Members that came back after their absence had been reported as drift, since the
    /// last call: the report was wrong about them, and their owner hears it withdrawn.
    pub fn take_returned(&mut self) -> Vec<Returned> {
        std::mem::take(&mut self.returned)
    }

    /// The member of record `i` is carried again.
    fn came_back(&mut self, i: usize) {
        let longest = self.longest;
        let record = &mut self.records[i];
        let missing = record.streak;
        let returned = record.came_back(longest);
        self.longest = self.longest.max(missing);
        if let Some(r) = returned
            && self.returned.len() < crate::MAX_CHANGES
        {
            self.returned.push(r);
        }
    }

    /// The drift of one response (`body`), with the absences not yet confirmed held back;
    /// `None` when nothing breaking is left. A member some object at its place carries
    /// is not absent; a member this response carries ends its absence, one it did not
    /// reach keeps it.
    pub fn judge(&mut self, drift: Drift, body: &Value) -> Option<Drift> {
        let mut visits = VISITS;
        // Strings written as the objects they name are no drift at all.
        // So are values of a place that in this very response also holds the learned type.
        let references: Vec<&str> = drift
            .changes
            .iter()
            .filter(|c| {
                written_as_its_object(c, body, &mut visits)
                    || beside_its_learned_type(c, body, &mut visits)
            })
            .map(Change::path)
            .collect();
        let absent: Vec<&str> = drift.changes.iter().filter_map(absent_path).collect();
        // Absences this response shows: the member is carried by no object at its place.
        let mut carried_here: Vec<&str> = Vec::new();
        let mut grown: Vec<&str> = Vec::new();
        for &path in &absent {
            if grown.contains(&path) || carried_here.contains(&path) {
                continue;
            }
            if carried(body, path, &mut visits) {
                carried_here.push(path);
                if let Some(i) = self.records.iter().position(|r| r.path == path) {
                    self.came_back(i);
                }
            } else {
                grown.push(path);
                self.grow(path);
            }
        }
        // Absences this response says nothing about go on, unless it carries the member.
        for i in 0..self.records.len() {
            let path = self.records[i].path.as_str();
            if self.records[i].streak > 0
                && !absent.contains(&path)
                && carried(body, path, &mut visits)
            {
                self.came_back(i);
            }
        }
        let longest = self.longest;
        let waiting = |path: &str| {
            carried_here.contains(&path)
                || self
                    .records
                    .iter()
                    .find(|r| r.path == path)
                    .is_some_and(|r| r.streak < r.needed(longest))
        };
        if references.is_empty() && !absent.iter().any(|p| waiting(p)) {
            return Some(drift);
        }
        let held_back: Vec<&str> = absent
            .iter()
            .copied()
            .filter(|p| waiting(p))
            .chain(references.iter().copied())
            .collect();
        let changes: Vec<Change> = drift
            .changes
            .iter()
            .filter(|c| absent_path(c).is_none_or(|p| !waiting(p)))
            .filter(|c| !references.contains(&c.path()) || c.kind_name() != "type_changed")
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

    /// One more response lacks the member at `path`. A member not remembered yet is
    /// followed when there is room: at most [`crate::MAX_CHANGES`] absences at once, and
    /// a member that came back is forgotten (the one that came back least often) before
    /// one missing now is refused. A member not followed is reported at once, as the
    /// validator found it.
    fn grow(&mut self, path: &str) {
        if let Some(r) = self.records.iter_mut().find(|r| r.path == path) {
            r.streak = r.streak.saturating_add(1);
            return;
        }
        if self.tracked() >= crate::MAX_CHANGES {
            return;
        }
        if self.records.len() >= REMEMBERED {
            let Some(i) = self
                .records
                .iter()
                .enumerate()
                .filter(|(_, r)| r.streak == 0)
                .min_by_key(|(_, r)| r.back)
                .map(|(i, _)| i)
            else {
                return;
            };
            self.records.swap_remove(i);
        }
        self.records.push(Record {
            path: path.to_owned(),
            streak: 1,
            gone: 0,
            back: 0,
        });
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
    any_at(value, path, visits, &|v| !v.is_null())
}

/// Whether some value at `path` passes `test` (a member left out is no value). Spends
/// `visits`; once they are spent, nothing more is found.
fn any_at(value: &Value, path: &str, visits: &mut usize, test: &dyn Fn(&Value) -> bool) -> bool {
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
                items.iter().any(|item| any_at(item, after, visits, test))
            } else {
                index
                    .parse::<usize>()
                    .ok()
                    .and_then(|i| items.get(i))
                    .is_some_and(|item| any_at(item, after, visits, test))
            }
        }
        Value::Object(members) => {
            if let Some(v) = members.get(path) {
                return test(v);
            }
            // Each step consumes a `.` or a `[…]`, so the descent is as deep as the path.
            members
                .iter()
                .any(|(key, child)| match path.strip_prefix(key.as_str()) {
                    Some(after) if after.starts_with('.') => {
                        any_at(child, &after[1..], visits, test)
                    }
                    Some(after) if after.starts_with('[') => any_at(child, after, visits, test),
                    _ => false,
                })
        }
        _ => false,
    }
}

/// Whether a changed type is one of the values a place holds beside others of the learned
/// type in the same response (`"value": true` in one item of a list, `"value": "yes"` in
/// the next): the upstream writes that place either way, as an API description's `oneOf`
/// says, and twenty responses showed one way only. An upstream that changed a member's
/// type writes the new type in every value at its place, as a changed serializer does.
fn beside_its_learned_type(change: &Change, body: &Value, visits: &mut usize) -> bool {
    let Change::TypeChanged { path, expected, .. } = change else {
        return false;
    };
    let expected: Vec<&str> = expected.split(" | ").filter(|t| *t != "null").collect();
    !path.is_empty()
        && any_at(body, path, visits, &|v| {
            expected.contains(&crate::files::json_type(v))
        })
}

/// Members by which an object stands for the thing a string names.
pub(crate) const NAMING_MEMBERS: [&str; 5] = ["id", "@id", "href", "url", "uri"];

/// Whether a change is a string written as the object it names, not a changed type: an id
/// expanded into its record (`"customer": "cus_1"`, then `{"id": "cus_1", …}` when the
/// caller asked for it) or a link written as a link object (`"homepage": "https://…"`,
/// then `{"href": "https://…", "meta": …}`). API descriptions declare such members as
/// either, and twenty responses may show only one way. It is one when every object at
/// the place names itself by a non-empty string id, `href`, `url` or `uri`: a value that
/// really changed type (`{"value": "…"}`, `{"amount": 5}`) does not.
fn written_as_its_object(change: &Change, body: &Value, visits: &mut usize) -> bool {
    let Change::TypeChanged {
        path,
        expected,
        found,
    } = change
    else {
        return false;
    };
    let expected: Vec<&str> = expected.split(" | ").collect();
    let found_objects = found.split(" | ").any(|t| t == "object");
    let only_strings_before = expected.contains(&"string") && !expected.contains(&"object");
    let nothing_else = found
        .split(" | ")
        .all(|t| t == "object" || expected.contains(&t));
    if path.is_empty() || !found_objects || !only_strings_before || !nothing_else {
        return false;
    }
    let names_itself = |v: &Value| {
        NAMING_MEMBERS.iter().any(|m| {
            v.get(m)
                .and_then(Value::as_str)
                .is_some_and(|s| !s.is_empty())
        })
    };
    any_at(body, path, visits, &Value::is_object)
        && !any_at(body, path, visits, &|v| v.is_object() && !names_itself(v))
}

#[cfg(test)]
pub(crate) mod tests;
