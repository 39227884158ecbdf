//! An answer that states a key's limit beside the calls it made in a period.
//!
//! Hypixel's `GET /key` answers `{"success": true, "record": {"key": "…", "owner": "…",
//! "limit": 120, "queriesInPastMin": 3, "totalQueries": 3917}}`: 120 queries a minute,
//! three made in the past one (<https://api.hypixel.net/#tag/Other/paths/~1key/get>).
//! No member carries a rate-limit word, so neither the shape reader nor
//! [`super::members`] sees a budget; what makes one is the pair: a bare `limit` and,
//! beside it, a count named by what was called (`queries`, `requests`, `calls`, `hits`)
//! and a period (`min`, `minute`, `hour`, `day`, `second`), as in `queriesInPastMin`,
//! `requests_this_hour` or `callsToday`. What is left is the limit less that count,
//! over that period. A `limit` beside anything else (a page's size beside its `offset`)
//! is data, and so is a count of calls over no period (`totalQueries`).
//!
//! The limit may be named by what it limits too: CricketData answers every call with
//! `"info": {"hitsToday": 96, "hitsUsed": 1, "hitsLimit": 100, …}`
//! (cricketdata.org/how-to-use-cricket-data-api.aspx), the day's hits against the
//! plan's. A `hitsLimit` or `requests_limit` is the same bare limit with the calls it
//! counts in its name; a limit of anything else (`itemsLimit`) is not.
//!
//! Work is bounded: only an answer of at most [`MAX_BODY`] bytes that holds a member
//! named `limit` (or ending in it) is parsed, and only its top-level object and the
//! objects directly inside it are read.

use std::time::Duration;

use serde_json::{Map, Value};

use super::members::camel_words;
use crate::Quota;

/// The longest answer parsed as one.
const MAX_BODY: usize = 2048;
/// Objects (the answer and those directly inside it) looked into.
const MAX_OBJECTS: usize = 16;
/// Members of one object read.
const MAX_MEMBERS: usize = 16;
/// How the name of a limit member ends, as sent (`"limit"`, `"hitsLimit"`).
const LIMIT: &[u8] = b"imit\"";

/// The budget the answer states as a limit and the calls made in a period, if any.
pub(super) fn quota(body: &[u8]) -> Option<Quota> {
    // Most answers name no bare limit: a substring search spares parsing them.
    if body.len() > MAX_BODY || !body.windows(LIMIT.len()).any(|w| w == LIMIT) {
        return None;
    }
    let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(body) else {
        return None;
    };
    let children = || top.values().filter_map(Value::as_object);
    std::iter::once(&top)
        .chain(children())
        .take(MAX_OBJECTS)
        .find_map(budget)
        .or_else(|| {
            // A limit that states its own window is plain enough to be looked for one
            // level further down: Xandr wraps every answer in `response`, its counters
            // in `response.dbg_info`.
            let grandchildren = children().flat_map(|c| c.values().filter_map(Value::as_object));
            std::iter::once(&top)
                .chain(children())
                .chain(grandchildren)
                .take(MAX_OBJECTS)
                .filter_map(windowed_limit)
                .min_by_key(|q| q.remaining)
        })
}

/// A count beside its limit and that limit's window in seconds, named alike: Xandr's
/// `dbg_info` (learn.microsoft.com/en-us/xandr/bidders/api-usage-constraints) counts
/// `"reads": 96` against `"read_limit": 100` per `"read_limit_seconds": 60`, and its
/// writes the same way. The window's member is what makes the pair a budget; of
/// several, the one with the fewest calls left.
fn windowed_limit(object: &Map<String, Value>) -> Option<Quota> {
    let members: Vec<(Vec<String>, &Value)> = object
        .iter()
        .take(MAX_MEMBERS)
        .map(|(name, v)| (camel_words(name), v))
        .collect();
    let find = |words: &[String]| {
        members
            .iter()
            .find(|(w, _)| w.as_slice() == words)
            .and_then(|(_, v)| v.as_u64())
    };
    members
        .iter()
        .filter_map(|(words, v)| {
            let [stem @ .., limit, seconds] = words.as_slice() else {
                return None;
            };
            if stem.is_empty() || limit != "limit" || seconds != "seconds" {
                return None;
            }
            let window = v.as_u64().filter(|s| *s > 0)?;
            let limit = find(&[stem, &["limit".to_owned()]].concat())?;
            let mut plural = stem.to_vec();
            if let Some(last) = plural.last_mut() {
                last.push('s');
            }
            let used = find(stem).or_else(|| find(&plural))?;
            Some(Quota {
                limit: Some(limit),
                remaining: Some(limit.saturating_sub(used)),
                window: Some(Duration::from_secs(window)),
                ..Quota::new(stem.join("-"))
            })
        })
        .min_by_key(|q| q.remaining)
}

/// The budget one object states: its `limit` and a sibling counting calls in a period.
fn budget(object: &Map<String, Value>) -> Option<Quota> {
    let limit = object.get("limit").and_then(Value::as_u64).or_else(|| {
        object
            .iter()
            .take(MAX_MEMBERS)
            .find(|(name, _)| limit_of_calls(name))
            .and_then(|(_, v)| v.as_u64())
    })?;
    let (used, window) = object
        .iter()
        .take(MAX_MEMBERS)
        .find_map(|(name, v)| Some((v.as_u64()?, calls_in(name)?)))?;
    Some(Quota {
        limit: Some(limit),
        remaining: Some(limit.saturating_sub(used)),
        window: Some(window),
        ..Quota::new("default")
    })
}

/// Whether a member name is a limit named by the calls it limits: `hitsLimit`,
/// `requests_limit`, `callLimit` — two words, the second `limit`.
fn limit_of_calls(name: &str) -> bool {
    matches!(
        camel_words(name).as_slice(),
        [called, limit] if limit.as_str() == "limit" && called_word(called)
    )
}

/// A word for what was called: `queries`, `requests`, `calls`, `hits`.
fn called_word(w: &str) -> bool {
    matches!(
        w,
        "queries" | "query" | "requests" | "request" | "calls" | "call" | "hits"
    )
}

/// The period a member name counts calls over: a word for what was called and a word
/// for the period (`queriesInPastMin` is a minute).
fn calls_in(name: &str) -> Option<Duration> {
    let words = camel_words(name);
    let called = words.iter().any(|w| called_word(w));
    if !called {
        return None;
    }
    words.iter().find_map(|w| {
        let seconds = match w.as_str() {
            "sec" | "second" => 1,
            "min" | "minute" => 60,
            "hour" | "hourly" => 3_600,
            "day" | "today" | "daily" => 86_400,
            _ => return None,
        };
        Some(Duration::from_secs(seconds))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_limit_beside_the_calls_made_in_a_period_is_a_budget() {
        let m = Duration::from_secs(60);
        for (body, want) in [
            (
                // Hypixel's key record, one level down.
                r#"{"success":true,"record":{"key":"0c8d","owner":"069a","limit":120,"queriesInPastMin":3,"totalQueries":3917}}"#,
                (120, 117, m),
            ),
            (
                r#"{"limit":1000,"requests_this_hour":250}"#,
                (1000, 750, Duration::from_secs(3600)),
            ),
            (
                r#"{"key":{"limit":500,"callsToday":12}}"#,
                (500, 488, Duration::from_secs(86_400)),
            ),
            // More calls than the limit leave nothing, not a wrapped count.
            (r#"{"limit":10,"hitsPerMinute":14}"#, (10, 0, m)),
        ] {
            let q = quota(body.as_bytes()).unwrap_or_else(|| panic!("{body}"));
            assert_eq!(
                (q.limit, q.remaining, q.window),
                (Some(want.0), Some(want.1), Some(want.2)),
                "{body}"
            );
        }
    }

    #[test]
    fn a_limit_named_by_the_calls_it_limits_is_a_bare_limit() {
        let day = Duration::from_secs(86_400);
        for (body, want) in [
            (
                // CricketData's `info` beside the answer's data.
                r#"{"data":[],"status":"success","info":{"hitsToday":96,"hitsUsed":1,"hitsLimit":100,"credits":0}}"#,
                (100, 4, day),
            ),
            (
                r#"{"requests_limit":5000,"requests_today":4990}"#,
                (5000, 10, day),
            ),
        ] {
            let q = quota(body.as_bytes()).unwrap_or_else(|| panic!("{body}"));
            assert_eq!(
                (q.limit, q.remaining, q.window),
                (Some(want.0), Some(want.1), Some(want.2)),
                "{body}"
            );
        }
    }

    #[test]
    fn a_count_beside_its_limit_and_that_limits_window_is_a_budget() {
        // Xandr's counters, two levels down; the reads are the nearer to their limit.
        let xandr = r#"{"response":{"status":"OK","dbg_info":{"reads":96,"read_limit":100,"read_limit_seconds":60,"writes":3,"write_limit":60,"write_limit_seconds":60,"time":38.2}}}"#;
        let q = quota(xandr.as_bytes()).expect("the reads' budget");
        assert_eq!(
            (q.limit, q.remaining, q.window),
            (Some(100), Some(4), Some(Duration::from_secs(60)))
        );
        // Without the window's member a count and a limit named alike say nothing.
        assert_eq!(quota(br#"{"reads":96,"read_limit":100}"#), None);
    }

    #[test]
    fn a_limit_beside_anything_else_is_data() {
        for body in [
            // A page's size, a total of calls over no period, counts of other things.
            r#"{"limit":20,"offset":0,"count":143,"products":[]}"#,
            r#"{"record":{"limit":120,"totalQueries":3917}}"#,
            r#"{"limit":50,"itemsPerMinute":3}"#,
            r#"{"coupon":{"limit":100,"usedToday":12}}"#,
            // A limit of something other than calls beside calls made today.
            r#"{"itemsLimit":100,"hitsToday":12}"#,
            r#"{"hitsLimitToday":100,"hitsToday":12}"#,
            // A limit that is not a whole count, or nested deeper than one level.
            r#"{"limit":"120","queriesInPastMin":3}"#,
            r#"{"a":{"b":{"limit":120,"queriesInPastMin":3}}}"#,
            "not json \"limit\"",
        ] {
            assert_eq!(quota(body.as_bytes()), None, "{body}");
        }
        // A long answer is not parsed.
        let long = format!(
            r#"{{"limit":120,"queriesInPastMin":3,"pad":"{}"}}"#,
            "x".repeat(MAX_BODY)
        );
        assert_eq!(quota(long.as_bytes()), None);
    }
}
