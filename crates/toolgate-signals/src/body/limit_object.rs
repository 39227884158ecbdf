//! A budget an error body states in an object named by a rate-limit word, at any depth.
//!
//! Source: SoundCloud's 429 (<https://developers.soundcloud.com/docs/api/rate-limits>),
//! a JSON:API error whose `meta` holds `"rate_limit": {"group": "plays",
//! "max_nr_of_requests": 15000, "time_window": "PT24H"}` beside `"remaining_requests": 0`
//! and `"reset_time": "2015/06/01 09:49:40 +0000"`.
//!
//! The rule is the shape: an object named `rate_limit`, `ratelimit` or `quota` (any
//! case, any separator), `rate` holding a `limit` or `remaining`, or `limit` holding a
//! `remaining` (Vercel's `"limit": {"remaining": 0, "reset": …, "total": 100}`), is one
//! budget, told by its own scalar members and those beside
//! it in the object that holds it. The members are handed to the headers' shape reader
//! (`shape.rs`) as fields under a rate-limit word, so they are read by the same words
//! and units as headers; whatever policies their names suggest, they describe one
//! budget and are joined into one quota. Read only on a reply that says it is
//! throttled (a budget in another error may be a setting the request carried), only
//! from a body that parses whole within the prefix, at most [`MAX_DEPTH`] levels down
//! and [`MAX_NODES`] values in.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use crate::Quota;

const MAX_DEPTH: usize = 6;
const MAX_NODES: usize = 256;
/// Members read from the budget and from the object holding it.
const MAX_MEMBERS: usize = 16;

/// The one budget a throttled error body states in a rate-limit object, if it holds a
/// limit or what is left.
pub(super) fn quota(prefix: &[u8], now: DateTime<Utc>) -> Option<Quota> {
    let root: Value = serde_json::from_slice(prefix).ok()?;
    let mut budget = MAX_NODES;
    let (holder, key) = holder(&root, 0, &mut budget)?;
    let Some(Value::Object(inner)) = holder.get(key) else {
        return None;
    };
    let members = inner
        .iter()
        .take(MAX_MEMBERS)
        .chain(holder.iter().filter(|(k, _)| *k != key).take(MAX_MEMBERS));
    let mut one = Quota::new(policy(inner));
    for q in crate::json_counts::read_members(members, now) {
        one.limit = one.limit.or(q.limit);
        one.remaining = one.remaining.or(q.remaining);
        one.reset_after = one.reset_after.or(q.reset_after);
        one.window = one.window.or(q.window);
    }
    (one.limit.is_some() || one.remaining.is_some()).then_some(one)
}

/// The state of a budget a successful answer carries in an object of its own
/// (Sportmonks' `"rate_limit": {"resets_in_seconds": 2481, "remaining": 2998,
/// "requested_entity": "Fixture"}` on every answer), read from that object's members
/// alone. Only an object that says what is left counts: on a success a `limit` alone is
/// as often a setting the answer describes (an API key's configured rate limit).
pub(super) fn state(obj: &Map<String, Value>, now: DateTime<Utc>) -> Option<Quota> {
    let mut one = Quota::new(policy(obj));
    for q in crate::json_counts::read_members(obj.iter().take(MAX_MEMBERS), now) {
        one.limit = one.limit.or(q.limit);
        one.remaining = one.remaining.or(q.remaining);
        one.reset_after = one.reset_after.or(q.reset_after);
        one.window = one.window.or(q.window);
    }
    one.remaining.is_some().then_some(one)
}

/// The first object (depth first) holding a member named by a rate-limit word alone
/// whose value is an object, and that member's name.
fn holder<'a>(
    v: &'a Value,
    depth: usize,
    budget: &mut usize,
) -> Option<(&'a Map<String, Value>, &'a str)> {
    if *budget == 0 || depth > MAX_DEPTH {
        return None;
    }
    *budget -= 1;
    match v {
        Value::Object(map) => {
            if let Some((k, _)) = map
                .iter()
                .take(MAX_MEMBERS)
                .find(|(k, v)| names_a_budget(k, v))
            {
                return Some((map, k.as_str()));
            }
            map.values()
                .take(MAX_MEMBERS)
                .find_map(|c| holder(c, depth + 1, budget))
        }
        Value::Array(items) => items
            .iter()
            .take(MAX_MEMBERS)
            .find_map(|c| holder(c, depth + 1, budget)),
        _ => None,
    }
}

/// An object named `rate_limit` or `quota`; or one named `rate` that holds a `limit` or
/// `remaining` (OpenCage's 402 repeats `"rate": {"limit": 2500, "remaining": 0,
/// "reset": …}`), since a `rate` alone is as often a price or an exchange rate; or one
/// named `limit` that holds what is left of it.
fn names_a_budget(key: &str, value: &Value) -> bool {
    let Value::Object(inner) = value else {
        return false;
    };
    let folded: String = key
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    match folded.as_str() {
        "ratelimit" | "quota" => true,
        "rate" => inner.contains_key("limit") || inner.contains_key("remaining"),
        // Vercel's 429: `"limit": {"remaining": 0, "reset": …, "total": 100}`. A `limit`
        // is as often one number a request passed; an object saying what is left of
        // it is a budget.
        "limit" => inner.contains_key("remaining"),
        _ => false,
    }
}

/// The budget's own name (`group`, `name`), when it is a short plain word.
fn policy(inner: &Map<String, Value>) -> String {
    ["group", "name"]
        .iter()
        .find_map(|k| inner.get(*k).and_then(Value::as_str))
        .filter(|p| {
            !p.is_empty()
                && p.len() <= crate::quota::MAX_POLICY_NAME
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
        })
        .unwrap_or("default")
        .to_owned()
}
