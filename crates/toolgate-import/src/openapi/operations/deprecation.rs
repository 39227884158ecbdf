//! Whether an operation is deprecated, and when it goes away. The standard says it with
//! `deprecated: true`; vendors say it, or add its dates, in extensions of their own: a
//! flag (`x-deprecated: true`, or a sentence saying what replaces it), an object with
//! dates and a reason (`x-ms-deprecation: {date, removalDate, description}`), dates in
//! a vendor's catch-all object (`x-github: {deprecationDate, removalDate}`), or a
//! removal date alone (`x-sunset: 2025-06-30`). They are read by their shape, not by
//! the vendor: an `x-` member whose name speaks of deprecation, sunset or removal, and
//! the date members of any `x-` object. Parameters and schema members are read the same
//! way: vendors flag them (`x-is-deprecated: true`), date them by version
//! (`x-deprecatedInVersion: "68"`) and say what replaces them
//! (`x-deprecatedMessage`, `x-stainless-deprecation-message`) under names of their own.

use serde_json::{Map, Value};

/// What a description says about an operation's end.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Deprecation {
    /// When it was deprecated, as written (a date-time cut to its date).
    pub since: Option<String>,
    /// When it is to be removed, as written (a date-time cut to its date).
    pub removal: Option<String>,
    /// The API version it was deprecated in (`x-deprecatedInVersion: "68"`), as written.
    pub version: Option<String>,
    /// A vendor's own sentence about it (what replaces it, what stops working).
    pub note: Option<String>,
}

/// Longest date or note kept: a longer one is not a date, and a note is cut.
const MAX_DATE: usize = 40;
const MAX_NOTE: usize = 300;

/// The operation's deprecation, when `deprecated: true` or a vendor extension says it.
pub fn of(op: &Value) -> Option<Deprecation> {
    of_map(op.as_object()?)
}

/// The deprecation of an operation, a parameter or a schema member, when `deprecated:
/// true` or a vendor extension says it.
pub fn of_map(op: &Map<String, Value>) -> Option<Deprecation> {
    let mut found = op.get("deprecated") == Some(&Value::Bool(true));
    let mut d = Deprecation::default();
    for (key, value) in op.iter().filter(|(k, _)| k.starts_with("x-")) {
        let name = squeeze(key);
        if name.contains("deprecat") {
            match value {
                Value::Bool(b) => found |= *b,
                // A version number says when, not why: `x-deprecatedInVersion: "68"`
                // beside `x-deprecatedMessage: "Use X instead."`.
                Value::String(s) if name.contains("version") => {
                    if let Some(v) = date(s) {
                        found = true;
                        d.version.get_or_insert(v);
                    }
                }
                Value::String(s) if !is_false(s) && !s.trim().is_empty() => {
                    found = true;
                    keep_note(&mut d, s);
                }
                Value::Object(m) => {
                    found = true;
                    read_object(m, &mut d, true);
                    if let Some(n) = first_text(m, &["description", "message", "reason", "note"]) {
                        keep_note(&mut d, n);
                    }
                }
                _ => {}
            }
        } else if name.contains("sunset") || name.contains("removal") {
            if let Some(date) = value.as_str().and_then(date) {
                found = true;
                d.removal.get_or_insert(date);
            }
        } else if let Value::Object(m) = value {
            // A vendor's catch-all object (`x-github`) holding the operation's dates.
            let before = d.clone();
            read_object(m, &mut d, false);
            found |= d != before;
        }
    }
    found.then_some(d)
}

/// The dates an object member holds, under the names vendors give them. The short
/// names (`date`, `since`, `removal`) are read only in an object about deprecation
/// (`about_deprecation`): in another vendor object they may date anything.
fn read_object(m: &Map<String, Value>, d: &mut Deprecation, about_deprecation: bool) {
    for (key, value) in m {
        let Some(when) = value.as_str().and_then(date) else {
            continue;
        };
        match squeeze(key).as_str() {
            "deprecationdate" | "deprecatedat" | "deprecatedsince" | "deprecatedon" => {
                d.since.get_or_insert(when);
            }
            "since" | "date" if about_deprecation => {
                d.since.get_or_insert(when);
            }
            "removaldate" | "removedat" | "removedon" | "sunset" | "sunsetdate" | "sunsetat" => {
                d.removal.get_or_insert(when);
            }
            "removal" | "endoflife" | "eol" if about_deprecation => {
                d.removal.get_or_insert(when);
            }
            _ => {}
        }
    }
}

/// A key lower-cased without `-` and `_`: `removal_date`, `removalDate` and
/// `x-removal-date` read alike.
fn squeeze(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '-' && *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn is_false(s: &str) -> bool {
    matches!(s.trim().to_ascii_lowercase().as_str(), "false" | "no" | "0")
}

fn first_text<'a>(m: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .find_map(|k| m.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
}

fn keep_note(d: &mut Deprecation, s: &str) {
    if d.note.is_none() && !s.trim().eq_ignore_ascii_case("true") {
        d.note = Some(super::super::text::trim_text(s, MAX_NOTE));
    }
}

/// A date as written, a date-time cut to its date (`2025-10-15T13:54:32.512Z` →
/// `2025-10-15`); `None` for what cannot be a date (empty, too long, no digit).
fn date(s: &str) -> Option<String> {
    let s = s.trim();
    if s.is_empty() || s.len() > MAX_DATE || !s.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    let b = s.as_bytes();
    let iso_day = b.len() >= 10
        && b[..10].iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        });
    Some(if iso_day {
        s[..10].to_string()
    } else {
        s.to_string()
    })
}

impl Deprecation {
    /// When it was deprecated and goes away, as a clause (` since version 68, to be
    /// removed on 2026-08-28`); empty when the description says neither.
    fn dates(&self) -> String {
        let since = match (&self.since, &self.version) {
            (Some(s), _) => format!(" since {s}"),
            (None, Some(v)) => format!(" since version {v}"),
            (None, None) => String::new(),
        };
        match (since.is_empty(), &self.removal) {
            (false, Some(r)) => format!("{since}, to be removed on {r}"),
            (true, Some(r)) => format!(", to be removed on {r}"),
            (_, None) => since,
        }
    }

    /// What the model reads after a deprecated parameter's or member's description
    /// (`Deprecated since version 68: use X instead.`); `None` when the description
    /// says no more than the flag, which the schema's `deprecated: true` already tells.
    pub fn member_sentence(&self) -> Option<String> {
        let dates = self.dates();
        match self.note.as_deref().filter(|n| !n.trim().is_empty()) {
            Some(n) => Some(format!("Deprecated{dates}: {n}")),
            None if dates.is_empty() => None,
            None => Some(format!("Deprecated{dates}.")),
        }
    }

    /// The sentence that opens the tool's description.
    pub fn sentence(&self) -> String {
        let dates = self.dates();
        let note = self
            .note
            .as_deref()
            .map(|n| {
                let end = if n.ends_with(['.', '!', '?']) {
                    ""
                } else {
                    "."
                };
                format!(" {n}{end}")
            })
            .unwrap_or_default();
        format!(
            "DEPRECATED: the API marks this operation deprecated{dates}; prefer its replacement.{note}"
        )
    }
}

#[cfg(test)]
mod tests;
