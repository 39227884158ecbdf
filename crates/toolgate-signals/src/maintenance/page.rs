//! Whether a successful reply is a maintenance page: an HTML page or a JSON answer
//! saying the service is under maintenance, sent with a 200 (a load balancer's or a
//! CMS's maintenance mode often answers every path with one).
//!
//! Read only for a reply the contract already refused: a body that passes the contract
//! is data, whatever it says. Even then a business field that speaks of maintenance (a
//! machine's `"status": "under maintenance"`, a ticket titled "Maintenance window") is
//! not the service's own word, so JSON counts only by the answer's own members (at its
//! top, or in its `error`/`errors`/`meta` wrapper): a message that names the service's
//! maintenance ("The API is down for scheduled maintenance", "We are performing
//! maintenance"), or a `maintenance`/`maintenance_mode` member that is `true`. A page
//! that is not JSON counts by its words.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

/// Bytes of a body read.
const MAX_TEXT: usize = 4096;
/// Members looked at, in all.
const MAX_MEMBERS: usize = 64;

/// Phrases (of lowercased words) that say something is in maintenance.
const PHRASES: [&[&str]; 11] = [
    &["under", "maintenance"],
    &["down", "for", "maintenance"],
    &["undergoing", "maintenance"],
    &["maintenance", "mode"],
    &["scheduled", "maintenance"],
    &["planned", "maintenance"],
    &["maintenance", "in", "progress"],
    &["maintenance", "is", "in", "progress"],
    &["performing", "maintenance"],
    &["in", "maintenance"],
    &["offline", "for", "maintenance"],
];
/// Who a JSON message must name for its maintenance to be the service's own.
const SERVICE: [&str; 14] = [
    "service",
    "services",
    "api",
    "site",
    "website",
    "system",
    "systems",
    "server",
    "servers",
    "platform",
    "application",
    "app",
    "we",
    "our",
];
/// Names (normalised) of the answer's own messages.
const MESSAGE_KEYS: [&str; 10] = [
    "message",
    "msg",
    "error",
    "errormessage",
    "detail",
    "description",
    "title",
    "reason",
    "status",
    "statusmessage",
];
/// Wrappers (normalised) whose members are the answer's own.
const WRAPPERS: [&str; 5] = ["error", "errors", "fault", "meta", "notice"];
/// Flags (normalised) that say the service is in maintenance when `true`.
const FLAGS: [&str; 4] = [
    "maintenance",
    "maintenancemode",
    "undermaintenance",
    "inmaintenance",
];

/// A maintenance page, and the wait until the end it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Announced {
    /// Until the end the page names, when it names one in the future.
    pub wait: Option<Duration>,
}

/// Whether `body` (a 2xx reply the contract refused) says the service is under
/// maintenance, and until when.
///
/// ```
/// let now = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
/// let page = b"<html><h1>We are down for maintenance</h1><p>Back in 30 minutes.</p></html>";
/// let seen = toolgate_signals::maintenance::announced(page, now).unwrap();
/// assert_eq!(seen.wait, Some(std::time::Duration::from_secs(1800)));
/// assert!(toolgate_signals::maintenance::announced(br#"{"id":1,"status":"under maintenance"}"#, now).is_none());
/// ```
#[must_use]
pub fn announced(body: &[u8], now: DateTime<Utc>) -> Option<Announced> {
    let prefix = &body[..body.len().min(MAX_TEXT)];
    // Read for every refused 2xx: only a body that names maintenance is parsed.
    if !names_the_word(prefix) {
        return None;
    }
    let says = match serde_json::from_slice::<Value>(prefix) {
        Ok(Value::Object(top)) => {
            let mut seen = 0;
            own_members(&top, true, &mut seen)
        }
        Ok(_) => false,
        Err(_) => {
            let text = String::from_utf8_lossy(prefix);
            let start = text.trim_start();
            // A JSON body cut by the prefix, or not JSON but shaped like it, says
            // nothing here: only a page's words are read.
            !start.starts_with(['{', '[']) && names_maintenance(&words(&text))
        }
    };
    // The end is read the way a 503's maintenance body is.
    says.then(|| Announced {
        wait: super::wait(503, prefix, now),
    })
}

/// Whether `text` holds the word "maintenance", in any case. Every 2xx reply's first
/// 4 KiB are read for it, so the search jumps from one `m` or `M` to the next (a
/// vectorised search) and compares the word only there: comparing a window at every
/// byte cost about 12 instructions a byte, a tenth of a whole call's work.
fn names_the_word(text: &[u8]) -> bool {
    const WORD: &[u8] = b"maintenance";
    memchr::memchr2_iter(b'm', b'M', text).any(|at| {
        text.get(at..at + WORD.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(WORD))
    })
}

/// Whether the answer's own members (at its top, or in a wrapper at its top) say the
/// service is in maintenance.
fn own_members(map: &Map<String, Value>, top: bool, seen: &mut usize) -> bool {
    for (k, v) in map {
        *seen += 1;
        if *seen > MAX_MEMBERS {
            return false;
        }
        let key = crate::walk::normalise(k);
        let says = match v {
            Value::Bool(true) => FLAGS.contains(&key.as_str()),
            Value::String(s) if MESSAGE_KEYS.contains(&key.as_str()) => {
                let w = words(s);
                names_maintenance(&w) && w.iter().any(|x| SERVICE.contains(&x.as_str()))
            }
            Value::Object(inner) if top && WRAPPERS.contains(&key.as_str()) => {
                own_members(inner, false, seen)
            }
            Value::Array(items) if top && WRAPPERS.contains(&key.as_str()) => items
                .iter()
                .take(4)
                .filter_map(Value::as_object)
                .any(|inner| own_members(inner, false, seen)),
            _ => false,
        };
        if says {
            return true;
        }
    }
    false
}

/// The lowercased words of a text, tags and punctuation left out.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_tag = false;
    let mut word = String::new();
    for c in text.chars() {
        let letter = !in_tag && c != '<' && c.is_alphanumeric();
        if letter {
            word.extend(c.to_lowercase());
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ => {}
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

fn names_maintenance(w: &[String]) -> bool {
    PHRASES.iter().any(|p| {
        w.windows(p.len())
            .any(|win| win.iter().zip(p.iter()).all(|(x, y)| x == y))
    })
}

#[cfg(test)]
mod tests;
