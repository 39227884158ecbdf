//! An answer that counts one unit's use against its limit among other members.
//!
//! Usage and account endpoints answer with a unit's limit beside what was used or is left
//! of it, named by the unit rather than by a rate-limit word, and next to members that
//! are no budget: ScrapingBee's `{"max_api_credit": 1000000, "used_api_credit": 998500,
//! "max_concurrency": 10, …}`, ScraperAPI's `{"requestCount": 4990, "requestLimit":
//! 5000, "concurrencyLimit": 5, …}`, SerpApi's `{"searches_per_month": 5000,
//! "plan_searches_left": 37, …}`, ElevenLabs' `{"character_count": 98000,
//! "character_limit": 100000, "next_character_count_reset_unix": …}`, Twelve Data's
//! `{"daily_usage": 790, "plan_daily_limit": 800, …}`; or in an object named for what it
//! counts, whose members are bare parts (ipinfo's `"requests": {"limit": 50000,
//! "remaining": 200}`, a `"usage": {"limit": 1000, "used": 990, "reset": …}`), at the
//! answer's top level. A bare `usage` is read only when it says when it resets: without a
//! reset it is as often a plan's storage, which only its owner frees.
//!
//! The rule is a pair, not a word: a member is a limit (`limit`, `max`, `maximum`,
//! `allowance`, or per a period: `searches_per_month`), a count used (`used`, `count`,
//! `usage`, `consumed`, `spent`) or a count left (`remaining`, `left`), and what is left
//! of its name once the part and the words of a plan (`plan`, `current`, `this`) are
//! taken away is its unit. A unit with a limit and a count of it used or left is one
//! budget; its reset is a member naming the unit, its part and `reset`. A member naming
//! two parts (`usage_limit`), a `total` (an LLM's `total_tokens`, a running sum) and a
//! count whose limit is not beside it (an invoice's `amount_remaining`, a member's
//! `usedPoints`) say nothing, and at the top level a unit must be named, so a page's
//! bare `count` and `limit` are not read. Only the answer's top level, its `data`, and
//! objects at the top named for what they count are looked at; the body is parsed only when
//! it is at most [`MAX_BODY`] bytes, and at most [`MAX_MEMBERS`] members of each object.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::members::camel_words;
use crate::{Quota, reset};

/// The longest answer parsed as a usage answer.
const MAX_BODY: usize = 4096;
/// Members read per object.
const MAX_MEMBERS: usize = 32;
/// Units one object may count.
const MAX_UNITS: usize = 8;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Limit,
    Used,
    Left,
    Reset,
}

/// One unit's members, as found.
#[derive(Default)]
struct Unit {
    name: String,
    limit: Option<u64>,
    used: Option<u64>,
    left: Option<u64>,
    reset: Option<Value>,
}

/// The budgets a usage answer counts; none when the answer is not one.
pub(super) fn quotas(body: &[u8], now: DateTime<Utc>) -> Vec<Quota> {
    if body.len() > MAX_BODY || body.first() != Some(&b'{') {
        return Vec::new();
    }
    let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(body) else {
        return Vec::new();
    };
    let mut out = counted(&top, None, now);
    let data = match top.get("data") {
        Some(Value::Object(data)) => Some(data),
        _ => None,
    };
    if out.is_empty()
        && let Some(data) = data
    {
        out = counted(data, None, now);
    }
    for (name, value) in top.iter().take(MAX_MEMBERS) {
        if !out.is_empty() {
            return out;
        }
        if let Value::Object(inner) = value
            && names_what_is_counted(name)
        {
            out = counted(inner, Some(name), now);
            // A bare `usage` is as often a plan's storage, which never renews: only
            // one that says when it resets is a budget of calls.
            if name.eq_ignore_ascii_case("usage") {
                out.retain(|q| q.reset_after.is_some());
            }
        }
    }
    out
}

/// The budgets among `members`; `unit` names what they count when the object holding
/// them is named for it (its members are then bare parts).
fn counted(members: &Map<String, Value>, unit: Option<&str>, now: DateTime<Utc>) -> Vec<Quota> {
    let mut units: Vec<Unit> = Vec::new();
    for (name, value) in members.iter().take(MAX_MEMBERS) {
        let Some((part, mut words)) = read_name(name) else {
            continue;
        };
        if let Some(unit) = unit {
            if !words.is_empty() {
                continue;
            }
            words.push(unit.to_ascii_lowercase());
        }
        if !words.iter().any(|w| spent_by_calls(w)) {
            continue;
        }
        let key = words.join("-");
        let at = match units.iter().position(|u| u.name == key) {
            Some(at) => at,
            None if units.len() < MAX_UNITS => {
                units.push(Unit {
                    name: key,
                    ..Unit::default()
                });
                units.len() - 1
            }
            None => continue,
        };
        let u = &mut units[at];
        match part {
            Part::Reset => u.reset = u.reset.take().or_else(|| Some(value.clone())),
            Part::Limit => u.limit = u.limit.or_else(|| count(value)),
            Part::Used => u.used = u.used.or_else(|| count(value)),
            Part::Left => u.left = u.left.or_else(|| count(value)),
        }
    }
    units.into_iter().filter_map(|u| budget(u, now)).collect()
}

/// One unit's budget, when its limit and a count of it used or left agree.
fn budget(u: Unit, now: DateTime<Utc>) -> Option<Quota> {
    let limit = u.limit.filter(|l| *l > 0)?;
    let remaining = match (u.left, u.used) {
        (Some(left), _) if left <= limit => left,
        (None, Some(used)) if used <= limit => limit - used,
        _ => return None,
    };
    let reset_after = u
        .reset
        .as_ref()
        .and_then(crate::json_counts::scalar)
        .and_then(|v| reset::parse(&v, now));
    Some(Quota {
        limit: Some(limit),
        remaining: Some(remaining),
        reset_after,
        ..Quota::new(u.name)
    })
}

/// A member's part and its unit's words, or `None` when it names no part, two of them,
/// or a `total`.
fn read_name(name: &str) -> Option<(Part, Vec<String>)> {
    let words = camel_words(name);
    let mut part = None;
    let mut unit = Vec::new();
    let mut reset = false;
    let mut iter = words.iter().peekable();
    while let Some(w) = iter.next() {
        let this = match w.as_str() {
            "total" => return None,
            "reset" | "resets" | "renewal" => {
                reset = true;
                continue;
            }
            // How a reset's instant is written, and the words of a plan.
            "next" | "unix" | "ts" | "at" | "time" | "timestamp" | "epoch" | "plan" | "current"
            | "this" => continue,
            "limit" | "max" | "maximum" | "allowance" => Some(Part::Limit),
            // `searches_per_month`: so many a period.
            "per" if iter.peek().is_some_and(|p| is_period(p)) => {
                iter.next();
                Some(Part::Limit)
            }
            "used" | "count" | "usage" | "consumed" | "spent" => Some(Part::Used),
            "remaining" | "left" => Some(Part::Left),
            _ => None,
        };
        match (this, part) {
            (Some(p), None) => part = Some(p),
            (Some(_), Some(_)) => return None,
            (None, _) => unit.push(w.clone()),
        }
    }
    if reset {
        // A reset names its unit (`next_character_count_reset_unix`), or is bare in an
        // object named for what it counts.
        return Some((Part::Reset, unit));
    }
    part.map(|p| (p, unit))
}

/// A word of a unit that calls spend (requests, credits, characters sent) or of the
/// period such a budget is counted in (`daily_usage`). A unit of what an account holds
/// (`maxStorage`, `activations_limit`) or of a page (`result_limit`) is none, and nor are
/// tokens: a generation's `max_tokens` beside its `tokens_used` is the request's own cap.
fn spent_by_calls(w: &str) -> bool {
    matches!(
        w,
        "request"
            | "requests"
            | "call"
            | "calls"
            | "credit"
            | "credits"
            | "search"
            | "searches"
            | "query"
            | "queries"
            | "character"
            | "characters"
            | "unit"
            | "units"
            | "hit"
            | "hits"
            | "usage"
            | "daily"
            | "hourly"
            | "monthly"
    )
}

fn is_period(w: &str) -> bool {
    matches!(
        w,
        "second" | "minute" | "hour" | "day" | "week" | "month" | "year"
    )
}

/// An object named for what its members count (`requests`, `usage`), whose members are
/// then bare parts.
fn names_what_is_counted(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().as_str(),
        "requests" | "calls" | "usage" | "credits" | "searches"
    )
}

/// A whole, non-negative count.
fn count(v: &Value) -> Option<u64> {
    v.as_u64()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
