//! When a maintenance window ends, as the body of a 502, 503 or 504 names it: "We'll be
//! back at 14:00 UTC", "Scheduled maintenance until 2026-12-05T18:00Z", "expected to last
//! 30 minutes", or a JSON member named for it (`maintenance_end`,
//! `estimated_completion`, `expected_resolution`). Many services send no `Retry-After`
//! during maintenance and put the end in the page for people (Atlassian Statuspage's
//! scheduled maintenances carry `scheduled_until`; GitHub's and Heroku's maintenance
//! pages say when they expect to be back). That end is the wait.
//!
//! Only a body that names maintenance (or downtime) is read, so a date that is a
//! business field of some other error is never taken; a JSON member counts by its name
//! only. An end already past, or one further than [`MAX_WAIT`], gives no wait or the
//! cap; a clock time without a date is read in UTC only when the text says UTC or GMT,
//! and is the next such time to come. Bounded: the first [`MAX_TEXT`] bytes, at most
//! [`MAX_NODES`] JSON values.

use std::time::Duration;

use chrono::{DateTime, NaiveTime, Utc};
use serde_json::Value;

use crate::MAX_WAIT;

mod page;
pub use page::{Announced, announced};

/// A successful reply to be read for a maintenance page if, and only if, its contract
/// refuses its body: a body the contract accepts is data, whatever it says, so its
/// page is never told. Reading every 2xx for the word "maintenance" when it arrived
/// cost a sixth of reading its signals for an answer never told; the reply keeps the
/// time it was received instead, and [`Pending::announced`] reads it against that time
/// when the contract refuses it, with the same verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Pending {
    /// When the 2xx reply was received; `None` for any other reply.
    received: Option<DateTime<Utc>>,
}

impl Pending {
    /// A 2xx reply received at `now`.
    #[must_use]
    pub fn success_received(now: DateTime<Utc>) -> Pending {
        Pending {
            received: Some(now),
        }
    }

    /// Whether `body` (the reply's body, as received) is a maintenance page
    /// ([`announced`]), read against the time the reply was received; never for a reply
    /// that was not a 2xx.
    #[must_use]
    pub fn announced(self, body: &[u8]) -> Option<Announced> {
        announced(body, self.received?)
    }
}

/// Bytes of a body read.
const MAX_TEXT: usize = 4096;
/// JSON values looked at.
const MAX_NODES: usize = 128;
/// Levels of nesting looked into.
const MAX_DEPTH: usize = 4;

/// JSON member names (normalised) whose value is when the maintenance ends.
/// Salesforce's maintenance information names its end `scheduledEndDowntime` and
/// `scheduledEndMaintenanceTime`.
const END_KEYS: [&str; 12] = [
    "scheduledenddowntime",
    "scheduledendmaintenancetime",
    "maintenanceend",
    "maintenanceends",
    "maintenanceendsat",
    "maintenanceuntil",
    "estimatedcompletion",
    "estimatedcompletiontime",
    "expectedresolution",
    "expectedresolutiontime",
    "scheduleduntil",
    "estimatedend",
];
/// Words after which a text names when the maintenance ends.
const END_WORDS: [&str; 9] = [
    " until ",
    " till ",
    " back at ",
    " back by ",
    " ends at ",
    " end at ",
    " completed by ",
    " complete by ",
    " resume at ",
];
/// Words after which a text names how long the maintenance lasts (besides the amounts
/// after `in`, `for`, `after` and `wait` that every wait in words is read by).
const SPAN_WORDS: [&str; 3] = [" expected to last ", " should last ", " lasting "];

/// The wait until the maintenance the body of a `status` reply announces ends.
pub(crate) fn wait(status: u16, body: &[u8], now: DateTime<Utc>) -> Option<Duration> {
    if !matches!(status, 502..=504) {
        return None;
    }
    let prefix = &body[..body.len().min(MAX_TEXT)];
    let text = String::from_utf8_lossy(prefix).to_lowercase();
    let keyed = match serde_json::from_slice::<Value>(prefix) {
        Ok(v) => {
            let mut nodes = 0;
            member(&v, 0, &mut nodes, now)
        }
        Err(_) => None,
    };
    if keyed.is_some() {
        return keyed;
    }
    if !(text.contains("maintenance") || text.contains("downtime")) {
        return None;
    }
    in_words(&text, now)
}

/// The first member named for the end, at any depth, with a time to come.
fn member(v: &Value, depth: usize, nodes: &mut usize, now: DateTime<Utc>) -> Option<Duration> {
    if depth > MAX_DEPTH {
        return None;
    }
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                *nodes += 1;
                if *nodes > MAX_NODES {
                    return None;
                }
                let found = if END_KEYS.contains(&crate::walk::normalise(k).as_str()) {
                    value_until(child, now)
                } else {
                    member(child, depth + 1, nodes, now)
                };
                if found.is_some() {
                    return found;
                }
            }
            None
        }
        Value::Array(items) => items.iter().take(8).find_map(|c| {
            *nodes += 1;
            (*nodes <= MAX_NODES)
                .then(|| member(c, depth + 1, nodes, now))
                .flatten()
        }),
        _ => None,
    }
}

/// A member's value as an instant: a written timestamp, or an epoch in seconds or
/// milliseconds.
fn value_until(v: &Value, now: DateTime<Utc>) -> Option<Duration> {
    let at = match v {
        Value::String(s) => crate::reset::parse_timestamp(s, now)?,
        Value::Number(n) => {
            let n = n.as_i64()?;
            match n {
                1_000_000_000..=9_999_999_999 => DateTime::from_timestamp(n, 0)?,
                1_000_000_000_000..=9_999_999_999_999 => DateTime::from_timestamp_millis(n)?,
                _ => return None,
            }
        }
        _ => return None,
    };
    until(at, now)
}

/// The end a text names: an instant after an end word, or a span after a span word.
fn in_words(text: &str, now: DateTime<Utc>) -> Option<Duration> {
    let text = words_of(text);
    let mut best: Option<Duration> = None;
    for trigger in END_WORDS {
        for (i, _) in text.match_indices(trigger) {
            let rest = &text[i + trigger.len()..];
            best = best.max(instant_at_start(rest, now));
        }
    }
    // Amounts are read from where the maintenance is named: a page's words for people
    // start after its head.
    let from = text
        .find("maintenance")
        .or_else(|| text.find("downtime"))
        .unwrap_or(0);
    let mut start = from.saturating_sub(80);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    best = best.max(crate::wait_text::wait_in(&text[start..]));
    for trigger in SPAN_WORDS {
        for (i, _) in text.match_indices(trigger) {
            let rest = &text[i + trigger.len()..];
            best = best.max(crate::wait_text::wait_in(&format!("in {rest}")));
        }
    }
    best.map(|d| d.min(MAX_WAIT))
}

/// The words of a text or a page, tags left out, whitespace made single spaces, with a
/// space before the first word so that a trigger matches there too.
fn words_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 1);
    out.push(' ');
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => {
                in_tag = true;
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            '>' if in_tag => in_tag = false,
            _ if in_tag => {}
            // JSON's own punctuation is not part of a word ("…18:00Z\"}").
            c if c.is_whitespace() || matches!(c, '>' | '"' | '{' | '}' | '[' | ']') => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// The instant the next words name: a timestamp of one to six words (`2026-12-05T18:00Z`,
/// `2026-12-05 18:00 utc`, `sat, 05 dec 2026 18:00:00 gmt`), or a clock time in UTC
/// (`14:00 utc`, `2pm gmt`), the next such time to come.
fn instant_at_start(rest: &str, now: DateTime<Utc>) -> Option<Duration> {
    let words: Vec<&str> = rest
        .split_ascii_whitespace()
        .take(6)
        .map(|w| w.trim_end_matches(['.', ',', ';', ')', '!']))
        .collect();
    for n in (1..=words.len()).rev() {
        let candidate = words[..n].join(" ").to_ascii_uppercase();
        if let Some(at) = crate::reset::parse_timestamp(&candidate, now) {
            return until(at, now);
        }
    }
    clock_time(&words, now)
}

/// `14:00 utc`, `14:00utc`, `2pm gmt`, `14:00z`: a time of day in UTC, today or, when
/// already past, tomorrow. A time without a zone is not read: it is the reader's.
fn clock_time(words: &[&str], now: DateTime<Utc>) -> Option<Duration> {
    let first = *words.first()?;
    let (time, zone) = match first.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) if first[i..] != *"am" && first[i..] != *"pm" => {
            let (t, z) = first.split_at(i);
            (t.to_owned(), Some(z))
        }
        _ => (first.to_owned(), None),
    };
    let mut rest = words[1..].iter().copied();
    let (time, zone) = match zone {
        Some(z) => (time, z.to_owned()),
        None => {
            let next = rest.next()?;
            if next == "am" || next == "pm" {
                (format!("{time}{next}"), rest.next()?.to_owned())
            } else {
                (time, next.to_owned())
            }
        }
    };
    if !matches!(zone.as_str(), "utc" | "gmt" | "z" | "(utc)" | "(gmt)") {
        return None;
    }
    let t = NaiveTime::parse_from_str(&time, "%H:%M")
        .or_else(|_| NaiveTime::parse_from_str(&time, "%H:%M:%S"))
        .ok()
        .or_else(|| twelve_hour(&time))?;
    let today = now.date_naive().and_time(t).and_utc();
    let at = if today > now {
        today
    } else {
        today + chrono::Duration::days(1)
    };
    until(at, now)
}

/// `3pm`, `11:30am`: a time on the twelve-hour clock.
fn twelve_hour(time: &str) -> Option<NaiveTime> {
    let (clock, pm) = match (time.strip_suffix("pm"), time.strip_suffix("am")) {
        (Some(c), _) => (c, true),
        (None, Some(c)) => (c, false),
        (None, None) => return None,
    };
    let (h, m) = clock.split_once(':').unwrap_or((clock, "0"));
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    if !(1..=12).contains(&h) {
        return None;
    }
    NaiveTime::from_hms_opt(h % 12 + if pm { 12 } else { 0 }, m, 0)
}

/// The wait until `at`; none when it is already past.
fn until(at: DateTime<Utc>, now: DateTime<Utc>) -> Option<Duration> {
    (at > now)
        .then(|| (at - now).to_std().ok())
        .flatten()
        .map(|d| d.min(MAX_WAIT))
}

#[cfg(test)]
mod tests {
    use super::wait;
    use chrono::DateTime;
    use std::time::Duration;

    fn now() -> chrono::DateTime<chrono::Utc> {
        DateTime::parse_from_rfc3339("2026-12-05T12:00:00Z")
            .unwrap()
            .to_utc()
    }

    fn read(status: u16, body: &str) -> Option<Duration> {
        wait(status, body.as_bytes(), now())
    }

    const H: u64 = 3600;

    /// A success keeps the time it arrived, and read later for a maintenance page it gets
    /// the verdict and the wait a read on arrival gave; a reply that was not a success
    /// is never one.
    #[test]
    fn a_success_is_read_for_a_maintenance_page_later_against_the_time_it_arrived() {
        use super::{Pending, announced};
        let page = b"<html><h1>Down for maintenance</h1><p>Back at 14:00 UTC.</p></html>";
        let pending = Pending::success_received(now());
        let later = pending.announced(page);
        assert_eq!(later, announced(page, now()));
        assert_eq!(later.and_then(|p| p.wait), Some(Duration::from_secs(2 * H)));
        assert_eq!(pending.announced(br#"{"items":[]}"#), None);
        assert_eq!(Pending::default().announced(page), None);
    }

    #[test]
    fn the_end_of_a_maintenance_in_any_form() {
        let s = Duration::from_secs;
        for (status, body, want) in [
            (
                503,
                "We are down for scheduled maintenance. We'll be back at 14:00 UTC.",
                s(2 * H),
            ),
            (
                503,
                r#"{"message":"Scheduled maintenance until 2026-12-05T18:00Z"}"#,
                s(6 * H),
            ),
            (
                503,
                r#"{"error":"maintenance","maintenance_end":"2026-12-05T12:30:00Z"}"#,
                s(1800),
            ),
            (
                503,
                r#"{"status":"unavailable","estimated_completion":1796479200}"#,
                s(2 * H),
            ),
            (
                502,
                r#"{"incident":{"name":"Database upgrade","expected_resolution":"2026-12-05T13:15:00+00:00"}}"#,
                s(75 * 60),
            ),
            (
                504,
                "<html><body><h1>Maintenance</h1><p>Expected to last 45 minutes.</p></body></html>",
                s(45 * 60),
            ),
            (
                503,
                "<html><body><p>Down for maintenance until Sat, 05 Dec 2026 16:00:00 GMT</p></body></html>",
                s(4 * H),
            ),
            // A clock time already past today is tomorrow's.
            (503, "Maintenance in progress, back at 11:00 UTC", s(23 * H)),
            (
                503,
                "Planned downtime: we will be back at 3pm GMT",
                s(3 * H),
            ),
        ] {
            assert_eq!(read(status, body), Some(want), "{body}");
        }
    }

    #[test]
    fn no_wait_without_maintenance_a_future_end_or_a_zone() {
        for (status, body) in [
            // Past ends, and a date that is some other error's business field.
            (
                503,
                r#"{"message":"Scheduled maintenance until 2026-12-05T08:00Z"}"#,
            ),
            (503, r#"{"maintenance_end":"2025-01-01T00:00:00Z"}"#),
            (
                503,
                r#"{"error":"Upstream unavailable until the invoice due 2026-12-31 is paid"}"#,
            ),
            (
                503,
                r#"{"order":{"deliver_until":"2026-12-24T00:00:00Z"},"error":"backend down"}"#,
            ),
            // A clock time whose zone is the reader's own.
            (503, "Down for maintenance, back at 14:00."),
            // Not a 502, 503 or 504.
            (500, "Scheduled maintenance until 2026-12-05T18:00Z"),
            (200, r#"{"maintenance_end":"2026-12-05T18:00:00Z"}"#),
            (503, ""),
        ] {
            assert_eq!(read(status, body), None, "{body}");
        }
        let huge = format!("maintenance until {}", "9".repeat(10_000));
        assert_eq!(read(503, &huge), None);
        assert_eq!(
            read(503, "maintenance until 2099-01-01T00:00:00Z"),
            Some(crate::MAX_WAIT)
        );
    }
}
