//! The drift report: the public [`Drift`], [`Change`] and [`Violation`] types and their two
//! renderings — a one-line summary for the model and incident titles, and a multi-line
//! expected-vs-received report for `toolgate diff`. Rendering only; no diffing here.

use serde::Serialize;
use std::fmt;

/// Why a response broke its contract: a structural diff plus the validator's raw errors.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Drift {
    /// Structural diff, sorted by path; a rename replaces its missing + added pair.
    pub changes: Vec<Change>,
    /// Raw validator errors, capped (see [`crate::MAX_VIOLATIONS`]).
    pub violations: Vec<Violation>,
    /// Changes left out of `changes` by the [`MAX_CHANGES`] cap.
    #[serde(skip_serializing_if = "is_zero")]
    pub truncated: usize,
    /// [`Drift::fingerprint`] of the complete diff, before the cap.
    #[serde(skip)]
    pub fingerprint: String,
}

/// At most this many changes are kept: a report goes into the model's `_meta`, the
/// incident store and webhooks, and an upstream that changed its whole body must not
/// make each of them megabytes.
pub const MAX_CHANGES: usize = 50;

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One structural difference between the expected and the received shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Change {
    /// A required field is absent; `expected` is a type name such as `"string"`.
    Missing {
        /// Where, e.g. `results[].snippet`.
        path: String,
        /// The type the contract promises.
        expected: String,
    },
    /// A field the contract does not list (informative; does not fail a check by itself).
    Added {
        /// Where, e.g. `results[].excerpt`.
        path: String,
        /// The type received.
        found: String,
    },
    /// The value at `path` has another type than promised.
    TypeChanged {
        /// Where.
        path: String,
        /// The promised type(s).
        expected: String,
        /// The received type(s), merged over array elements.
        found: String,
    },
    /// A missing field and a new field that are probably the same field renamed.
    Renamed {
        /// The path the contract promises.
        from: String,
        /// The path the field arrived under.
        to: String,
        /// The field's type.
        type_name: String,
        /// The evidence, e.g. "same type, similar name".
        why: String,
    },
    /// Anything else the validator flagged that is not structural (enum, format, bounds),
    /// or a limit of the diff itself (nesting depth).
    Invalid {
        /// Where.
        path: String,
        /// What is wrong, without the offending value.
        message: String,
    },
    /// A keyword of a schema changed between two versions of one schema (a tool
    /// definition's description of a property, an `enum`, a bound). Only schema-to-schema
    /// comparisons produce it; a response check never does.
    Keyword {
        /// The schema node, in the notation of the other changes (`filters.since`).
        path: String,
        /// The keyword (`description`, `enum`), or a JSON Pointer below the node
        /// (`anyOf/1/description`) when the change is inside a keyword the structural
        /// diff does not descend into.
        keyword: String,
        /// The old value: a string as it is, anything else as compact JSON; capped.
        before: Option<String>,
        /// The new value, rendered the same way.
        after: Option<String>,
        /// Whether callers written against the old schema can break.
        breaking: bool,
    },
}

/// One raw validator error.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Violation {
    /// JSON Pointer into the response body.
    pub instance_path: String,
    /// JSON Pointer into the schema (the keyword that failed).
    pub schema_path: String,
    /// The validator's message, with the offending value masked.
    pub message: String,
}

impl Change {
    /// The path the change is about (for a rename: the promised path).
    pub fn path(&self) -> &str {
        match self {
            Change::Missing { path, .. }
            | Change::Added { path, .. }
            | Change::TypeChanged { path, .. }
            | Change::Invalid { path, .. }
            | Change::Keyword { path, .. } => path,
            Change::Renamed { from, .. } => from,
        }
    }

    /// The change's kind as serialised (`missing`, `renamed`, …).
    pub fn kind_name(&self) -> &'static str {
        match self {
            Change::Missing { .. } => "missing",
            Change::Added { .. } => "added",
            Change::TypeChanged { .. } => "type_changed",
            Change::Renamed { .. } => "renamed",
            Change::Invalid { .. } => "invalid",
            Change::Keyword { .. } => "keyword",
        }
    }

    /// Whether this change alone makes a response break the contract (`Added` does not,
    /// nor a [`Change::Keyword`] marked as not breaking).
    pub fn is_breaking(&self) -> bool {
        match self {
            Change::Added { .. } => false,
            Change::Keyword { breaking, .. } => *breaking,
            _ => true,
        }
    }

    /// The phrase used in [`Drift::summary`].
    fn phrase(&self) -> String {
        match self {
            Change::Missing { path, expected } => format!("missing {} ({expected})", shown(path)),
            Change::Added { path, found } => format!("new {} ({found})", shown(path)),
            Change::TypeChanged {
                path,
                expected,
                found,
            } => {
                format!("{} is {found}, expected {expected}", shown(path))
            }
            Change::Renamed { from, to, .. } => {
                format!(
                    "missing {}; new {}, same type — probably a rename",
                    shown(from),
                    shown(to)
                )
            }
            Change::Invalid { path, message } => format!("{}: {message}", shown(path)),
            Change::Keyword {
                path,
                keyword,
                before,
                after,
                ..
            } => format!(
                "{keyword} of {} changed: {} → {}",
                shown(path),
                quoted(before.as_deref()),
                quoted(after.as_deref())
            ),
        }
    }
}

/// A keyword value in a summary: quoted, or "(none)" when the keyword is absent.
pub(crate) fn quoted(text: Option<&str>) -> String {
    match text {
        Some(t) => format!("'{t}'"),
        None => "(none)".to_owned(),
    }
}

/// A stable identity for "the same drift": FNV-1a over the sorted (kind, path) pairs of
/// the breaking changes. Key order, values and informative additions do not change it, so
/// every sighting of one breakage updates one incident; it is stable across processes and
/// versions of toolgate (it is stored), which `std`'s hasher does not promise.
pub fn fingerprint(changes: &[Change]) -> String {
    let mut pairs: Vec<(&'static str, &str)> = changes
        .iter()
        .filter(|c| c.is_breaking())
        .map(|c| (c.kind_name(), c.path()))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (kind, path) in pairs {
        for byte in kind.bytes().chain([0]).chain(path.bytes()).chain([0xff]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{hash:016x}")
}

/// The root is the empty path; people read it better as "(root)".
pub(crate) fn shown(path: &str) -> &str {
    if path.is_empty() { "(root)" } else { path }
}

/// Validator errors printed by the multi-line report; the structural lines above them
/// already say what changed, these are for the owner who wants the validator's words.
const REPORT_VIOLATIONS: usize = 5;

/// How many changes the one-line summary names before "and N more".
const SUMMARY_ITEMS: usize = 4;

impl Drift {
    /// A drift report from its complete diff: the fingerprint is taken over every
    /// change, then breaking changes are kept first up to [`MAX_CHANGES`].
    pub fn new(mut changes: Vec<Change>, violations: Vec<Violation>) -> Drift {
        let fingerprint = fingerprint(&changes);
        let truncated = changes.len().saturating_sub(MAX_CHANGES);
        if truncated > 0 {
            // Stable: breaking changes first, each group in path order.
            changes.sort_by_key(|c| !c.is_breaking());
            changes.truncate(MAX_CHANGES);
            changes.sort_by(|a, b| a.path().cmp(b.path()));
        }
        Drift {
            changes,
            violations,
            truncated,
            fingerprint,
        }
    }

    /// One line for humans and the model, breaking changes first:
    /// "missing results[].snippet; new results[].excerpt, same type — probably a rename".
    pub fn summary(&self) -> String {
        let ordered = self
            .changes
            .iter()
            .filter(|c| c.is_breaking())
            .chain(self.changes.iter().filter(|c| !c.is_breaking()));
        let mut parts: Vec<String> = ordered
            .clone()
            .take(SUMMARY_ITEMS)
            .map(Change::phrase)
            .collect();
        let rest = (ordered.count() + self.truncated).saturating_sub(SUMMARY_ITEMS);
        if rest > 0 {
            parts.push(format!(
                "and {rest} more change{}",
                if rest == 1 { "" } else { "s" }
            ));
        }
        if parts.is_empty() {
            // `check` never builds an empty drift; keep the line meaningful anyway.
            return "response does not match the contract".to_owned();
        }
        parts.join("; ")
    }
}

impl fmt::Display for Drift {
    /// A report for the CLI: one change per line, expected on the left, received on the
    /// right, then the validator's raw errors.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.changes.len();
        writeln!(
            f,
            "contract drift: {n} change{} (expected → received)",
            if n == 1 { "" } else { "s" }
        )?;
        let rows: Vec<(&str, String, String, String)> = self.changes.iter().map(row).collect();
        let width = rows.iter().map(|r| r.1.chars().count()).max().unwrap_or(0);
        for (label, left, right, note) in &rows {
            let pad = width - left.chars().count();
            write!(f, "  {label:<8} {left}{:pad$}  →  {right}", "")?;
            if note.is_empty() {
                writeln!(f)?;
            } else {
                writeln!(f, "   ({note})")?;
            }
        }
        if !self.violations.is_empty() {
            writeln!(f, "validator errors:")?;
            for v in self.violations.iter().take(REPORT_VIOLATIONS) {
                let at = if v.instance_path.is_empty() {
                    "/"
                } else {
                    &v.instance_path
                };
                writeln!(f, "  {at}: {} [schema {}]", v.message, v.schema_path)?;
            }
            let rest = self.violations.len().saturating_sub(REPORT_VIOLATIONS);
            if rest > 0 {
                writeln!(f, "  … {rest} more")?;
            }
        }
        Ok(())
    }
}

/// (label, expected side, received side, note) for one change.
fn row(c: &Change) -> (&'static str, String, String, String) {
    match c {
        Change::Missing { path, expected } => (
            "missing",
            format!("{}: {expected}", shown(path)),
            "absent".into(),
            String::new(),
        ),
        Change::Added { path, found } => (
            "new",
            "absent".into(),
            format!("{}: {found}", shown(path)),
            "not in the contract".into(),
        ),
        Change::TypeChanged {
            path,
            expected,
            found,
        } => (
            "type",
            format!("{}: {expected}", shown(path)),
            format!("{}: {found}", shown(path)),
            String::new(),
        ),
        Change::Renamed {
            from,
            to,
            type_name,
            why,
        } => (
            "renamed",
            format!("{}: {type_name}", shown(from)),
            format!("{}: {type_name}", shown(to)),
            format!("probably a rename: {why}"),
        ),
        Change::Invalid { path, message } => (
            "invalid",
            format!("{}: valid value", shown(path)),
            message.clone(),
            String::new(),
        ),
        Change::Keyword {
            path,
            keyword,
            before,
            after,
            ..
        } => (
            "changed",
            format!("{} {keyword}: {}", shown(path), quoted(before.as_deref())),
            quoted(after.as_deref()),
            String::new(),
        ),
    }
}

#[cfg(test)]
mod tests;
