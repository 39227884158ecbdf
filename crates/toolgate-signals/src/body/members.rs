//! Quotas a successful JSON answer states in its own top-level members.
//!
//! Some APIs report the caller's budget in the answer rather than in headers: Stack
//! Exchange's wrapper closes every answer with `"quota_max": 10000, "quota_remaining":
//! 9421` (<https://api.stackexchange.com/docs/wrapper>), OpenCage's opens with `"rate":
//! {"limit": 2500, "remaining": 2487, "reset": 1402185600}`
//! (<https://opencagedata.com/api#rate-limiting>). The member names are built from the
//! same words as rate-limit headers, so they are read by the headers' shape reader
//! (`shape.rs`): a top-level member whose name carries a rate-limit word and a part, or
//! the members of a top-level object named by a rate-limit word alone (`rate`,
//! `rate_limit`, `quota`). A budget counted in credits is named by its part and
//! `credits` (ScrapingAnt's `plan_total_credits` and `remained_credits`, OpenRegister's
//! `included_credits` and `remaining_credits`): the `credits` policy.
//!
//! Only top-level members count (a product's nested `storageQuota` is data, not the
//! API's budget), and only a budget with both its size and what is left of it, since a
//! member that merely looks like one must not hold the dependency. The answer's own
//! envelope, `data`, is its top level one step down: a budget selected there (Codex's
//! GraphQL `{"data": {"apiUsage": {"used": "812750", "limit": "1000000", "remaining":
//! "187250"}}}`, <https://docs.codex.io/api-reference/types/apiusage>) is the answer's.
//! An object named for the use of the API itself (`apiUsage`, `requestUsage`) is a
//! budget; a bare `usage` is not (an LLM answer's token counts, a plan's storage). Work is bounded: the
//! first and last `window` bytes are scanned, and only after a substring search finds a
//! rate-limit word in them; at most [`MAX_MEMBERS`] members are read.

use std::time::Duration;

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::words::{Ends, Set};
use crate::quota::Collector;
use crate::{Headers, MAX_WAIT, Quota, reset, shape};

/// Members read per answer.
const MAX_MEMBERS: usize = 32;
/// The longest member name read.
const MAX_NAME: usize = 64;
/// The longest string value read.
const MAX_TEXT: usize = 64;

/// The budgets the answer's top-level members state.
pub(super) fn quotas(body: &[u8], window: usize, seen: Ends, now: DateTime<Utc>) -> Vec<Quota> {
    let mut fields: Vec<(String, Vec<u8>)> = Vec::new();
    for (name, value) in top_members(body, window, seen.either_has(Set::Budget), |n| {
        could_name_a_budget(n) || is_meta(n) || is_data(n)
    }) {
        flatten(&name, &value, &mut fields);
    }
    if fields.is_empty() {
        return Vec::new();
    }
    let pairs: Vec<(&str, &[u8])> = fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_slice()))
        .collect();
    let mut out = Collector::default();
    shape::read(&Headers::new(&pairs), now, &mut out);
    out.quotas
        .into_iter()
        .filter(|q| q.limit.is_some() && q.remaining.is_some())
        .collect()
}

/// The calls left, when an answer states only that: Crawlbase's scraper answers
/// `"remaining_requests": 125279` beside the page it scraped
/// (<https://crawlbase.com/docs/scraper-api/response>). A top-level count whose name is
/// exactly a remaining part and calls or requests (`remaining_requests`, `requestsLeft`,
/// `calls_remaining`) can only be the caller's budget: items, attempts or seats left are
/// named after those. It is a budget without its size, read only when the answer states
/// no other.
///
/// Its reset is a sibling member named by the same calls and a reset, in any of the
/// shapes a reset header takes (Weatherbit's usage answer: `"calls_remaining": 55,
/// "calls_reset_ts": 1518208120`, <https://www.weatherbit.io/api/subscription-usage>);
/// it is looked for only among the members already parsed for the count.
pub(super) fn calls_left(
    body: &[u8],
    window: usize,
    seen: Ends,
    now: DateTime<Utc>,
) -> Option<Quota> {
    let members = top_members(body, window, seen.either_has(Set::CallsLeft), |n| {
        names_calls_left(n) || names_calls_reset(n)
    });
    let remaining = members
        .iter()
        .find(|(n, _)| names_calls_left(n))
        .and_then(|(_, v)| v.as_u64())?;
    let reset_after = members
        .iter()
        .filter(|(n, _)| names_calls_reset(n))
        .find_map(|(_, v)| reset::parse(scalar(v)?.as_slice(), now));
    Some(Quota {
        remaining: Some(remaining),
        reset_after,
        ..Quota::new("requests")
    })
}

/// `calls_reset_ts`, `requestsResetAt`, `calls_reset`: calls or requests, then a reset,
/// then at most a word for how its instant is written.
fn names_calls_reset(name: &str) -> bool {
    let words = camel_words(name);
    let calls = |w: &str| matches!(w, "requests" | "calls");
    match words.as_slice() {
        [a, b] => calls(a) && b == "reset",
        [a, b, c] => {
            calls(a)
                && b == "reset"
                && matches!(
                    c.as_str(),
                    "ts" | "at" | "time" | "timestamp" | "epoch" | "unix"
                )
        }
        _ => false,
    }
}

/// `remaining_requests`, `requests_left`, `callsRemaining`: two words, one a remaining
/// part, the other calls or requests.
fn names_calls_left(name: &str) -> bool {
    let words = camel_words(name);
    let [a, b] = words.as_slice() else {
        return false;
    };
    let left = |w: &str| matches!(w, "remaining" | "left");
    let calls = |w: &str| matches!(w, "requests" | "calls");
    (left(a) && calls(b)) || (calls(a) && left(b))
}

/// The fields a member gives the shape reader: itself when it is a scalar, the members
/// of an object named by a rate-limit word alone, prefixed with it.
fn flatten(name: &str, value: &Value, out: &mut Vec<(String, Vec<u8>)>) {
    match value {
        Value::Object(members) if is_meta(name) => meta_budget(members, out),
        // The answer's own envelope (a GraphQL answer's `data`, a REST one's): a budget
        // selected in it (`{"data": {"apiUsage": {...}}}`) is the answer's, one level
        // down; its other members are the data.
        Value::Object(members) if is_data(name) => {
            for (k, v) in members.iter().take(MAX_MEMBERS) {
                if v.is_object() && (could_name_a_budget(k) || names_api_usage(k)) {
                    flatten(k, v, out);
                }
            }
        }
        Value::Object(members) => {
            let lower = name.to_ascii_lowercase();
            let prefix = match lower.replace(['-', '_'], "").as_str() {
                // Not `ratelimit-`: the IETF reader claims those names.
                "rate" | "ratelimit" | "ratelimits" => "rate-limit",
                "quota" | "quotas" => "quota",
                _ if names_api_usage(&lower) => "quota",
                _ => return,
            };
            for (k, v) in members.iter().take(MAX_MEMBERS) {
                if let Some(text) = scalar(v) {
                    out.push((format!("{prefix}-{k}"), text));
                }
            }
        }
        v => {
            if let Some(text) = scalar(v) {
                let name = credits_field(name).unwrap_or_else(|| name.to_owned());
                out.push((name, text));
            }
        }
    }
}

/// The answer's own envelope, which holds what was asked for.
fn is_data(name: &str) -> bool {
    name == "data"
}

/// An object named for the caller's use of the API itself (Codex's `apiUsage`: used,
/// limit and remaining this billing period), not of a product (a bare `usage` is also
/// an LLM answer's token count, and a plan's storage).
fn names_api_usage(name: &str) -> bool {
    matches!(
        name.to_ascii_lowercase().replace(['-', '_'], "").as_str(),
        "apiusage" | "requestusage" | "requestsusage"
    )
}

/// An answer's own `meta` object (JSON:API's, and the like), which describes the
/// request rather than the data.
fn is_meta(name: &str) -> bool {
    matches!(name.to_ascii_lowercase().as_str(), "meta" | "metadata")
}

/// A budget in the answer's `meta`: Stormglass's `"dailyQuota": 10` beside
/// `"requestCount": 1`, the requests made against it. The quota is the limit and the count
/// what was used of it; members named as the shape reader names budgets
/// (`requestsRemaining`) are read as top-level ones. Nothing without a quota member.
fn meta_budget(members: &serde_json::Map<String, Value>, out: &mut Vec<(String, Vec<u8>)>) {
    let named: Vec<(String, Vec<u8>)> = members
        .iter()
        .take(MAX_MEMBERS)
        .filter_map(|(k, v)| Some((camel_words(k).join("-"), scalar(v)?)))
        .collect();
    let Some(quota) = named
        .iter()
        .map(|(n, _)| n)
        .find(|n| n.split('-').any(|w| w == "quota"))
        .cloned()
    else {
        return;
    };
    let counted = |n: &str| {
        let words: Vec<&str> = n.split('-').collect();
        words
            .iter()
            .any(|w| matches!(*w, "request" | "requests" | "call" | "calls"))
            && words
                .iter()
                .any(|w| matches!(*w, "count" | "used" | "made"))
    };
    let has_part = |n: &str| {
        n.split('-').any(|w| {
            matches!(
                w,
                "limit" | "max" | "total" | "remaining" | "left" | "used" | "reset"
            )
        })
    };
    for (name, text) in named {
        if name == quota && !has_part(&name) {
            out.push((format!("{name}-limit"), text));
        } else if counted(&name) {
            out.push((format!("{quota}-used"), text));
        } else if could_name_a_budget(&name) {
            out.push((name, text));
        }
    }
}

/// A budget's member named by its part and what it counts, as the shape reader's field:
/// `plan_total_credits`, `remained_credits` (ScrapingAnt's usage), `included_credits`,
/// `remaining_credits`, `used_credits` (OpenRegister's), `creditsLeft` become the
/// `credits` policy's limit, remaining or used; `plan_calls` and `remaining_calls`
/// (NewsCatcher's subscription) the `calls` policy's, what a plan allows being its size.
/// Only the plurals name a budget of calls (a customer's `credit_limit` is money), and a
/// member with no such part (`overage_credits`) is none.
fn credits_field(name: &str) -> Option<String> {
    let words = camel_words(name);
    let noun = words
        .iter()
        .find(|w| matches!(w.as_str(), "credits" | "calls" | "requests"))?;
    // `current_total_monthly_calls`: the total so far is what was used, not the size.
    if words.iter().any(|w| w == "current") && words.iter().any(|w| w == "total") {
        return Some(format!("{noun}-quota-used"));
    }
    let part = words.iter().find_map(|w| match w.as_str() {
        "total" | "included" | "limit" | "max" | "allowance" | "plan" => Some("limit"),
        "remaining" | "remained" | "left" | "available" => Some("remaining"),
        "used" | "consumed" | "spent" => Some("used"),
        _ => None,
    })?;
    Some(format!("{noun}-quota-{part}"))
}

/// The lower-case words of a member name: `_`, `-` and case changes split them.
pub(super) fn camel_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars().take(MAX_NAME) {
        let boundary = !c.is_ascii_alphanumeric() || (c.is_ascii_uppercase() && previous_lower);
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        if c.is_ascii_alphanumeric() {
            word.push(c.to_ascii_lowercase());
        }
        previous_lower = c.is_ascii_lowercase() || c.is_ascii_digit();
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// A member's value as a field's bytes, a count written for people (`"1.5k"`,
/// `"10,000"`) as its digits ([`crate::json_counts::scalar`]).
fn scalar(v: &Value) -> Option<Vec<u8>> {
    match v {
        Value::String(s) if s.len() > MAX_TEXT => None,
        v => crate::json_counts::scalar(v),
    }
}

/// One member at `at` (just after `{` or `,`): its name and, when `wanted` accepts the
/// name, its value.
fn member(body: &[u8], at: usize, wanted: fn(&str) -> bool) -> Option<(String, Value)> {
    let rest = body.get(at..)?;
    let open = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    let rest = &rest[open..];
    if rest.first() != Some(&b'"') {
        return None;
    }
    let close = rest[1..]
        .iter()
        .take(MAX_NAME + 1)
        .position(|&b| b == b'"')?
        + 1;
    let name = std::str::from_utf8(&rest[1..close]).ok()?;
    if name.contains('\\') || !wanted(name) {
        return None;
    }
    let after = &rest[close + 1..];
    let colon = after.iter().position(|b| !b.is_ascii_whitespace())?;
    if after[colon] != b':' {
        return None;
    }
    let value = serde_json::Deserializer::from_slice(&after[colon + 1..])
        .into_iter::<Value>()
        .next()?
        .ok()?;
    Some((name.to_owned(), value))
}

/// The wait a successful answer asks for before the next call, in a top-level
/// `backoff` member of seconds. Stack Exchange's wrapper sets it when "it must wait that
/// many seconds before hitting the same method again"
/// (<https://api.stackexchange.com/docs/throttle>). Only a top-level number counts: a
/// `backoff` object nested in data (Argo's `retryStrategy.backoff`) is configuration.
pub(super) fn backoff(body: &[u8], window: usize, seen: Ends) -> Option<Duration> {
    top_members(body, window, seen.either_has(Set::Backoff), |name| {
        name == "backoff"
    })
    .into_iter()
    .find_map(|(_, value)| value.as_f64())
    .filter(|secs| secs.is_finite() && *secs > 0.0)
    .map(|secs| Duration::from_secs_f64(secs.min(MAX_WAIT.as_secs_f64())))
}

/// The top-level members in the first and last `window` bytes whose names `wanted`
/// accepts, with their values (at most [`MAX_MEMBERS`] members looked at); none read
/// unless the reader's words occur in either window (`mentioned`, from
/// [`super::words::sets_in`]), which is all most answers cost.
fn top_members(
    body: &[u8],
    window: usize,
    mentioned: bool,
    wanted: fn(&str) -> bool,
) -> Vec<(String, Value)> {
    let tail_from = body.len().saturating_sub(window);
    if !mentioned {
        return Vec::new();
    }
    let mut starts = member_starts_from_head(body, window);
    if tail_from > 0 {
        starts.extend(member_starts_from_tail(body, tail_from));
    }
    starts
        .into_iter()
        .take(MAX_MEMBERS)
        .filter_map(|at| member(body, at, wanted))
        .collect()
}

fn could_name_a_budget(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.contains("quota")
        || lower.contains("ratelimit")
        || lower.contains("rate_limit")
        || lower.contains("rate-limit")
        || lower == "rate"
        || lower.contains("credits")
        || credits_field(name).is_some()
}

/// Where the top-level object's members start within its first `window` bytes.
fn member_starts_from_head(body: &[u8], window: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let Some(open) = body.iter().position(|b| !b.is_ascii_whitespace()) else {
        return starts;
    };
    if body[open] != b'{' {
        return starts;
    }
    starts.push(open + 1);
    let (mut depth, mut in_string, mut escaped) = (1usize, false, false);
    for (i, &b) in body.iter().enumerate().take(window).skip(open + 1) {
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if b == b'"' {
            in_string = true;
        } else if !structural(b, i, true, &mut depth, &mut starts) {
            break;
        }
    }
    starts
}

/// One byte outside strings of a scan `forward` or back: nesting goes deeper or back
/// out, and a comma at the object's own level starts a member. False when the object
/// has closed or enough members are found.
fn structural(b: u8, at: usize, forward: bool, depth: &mut usize, starts: &mut Vec<usize>) -> bool {
    let (deeper, shallower): (&[u8], &[u8]) = if forward {
        (b"{[", b"}]")
    } else {
        (b"}]", b"{[")
    };
    if deeper.contains(&b) {
        *depth += 1;
    } else if shallower.contains(&b) {
        *depth -= 1;
        return *depth > 0;
    } else if b == b',' && *depth == 1 {
        starts.push(at + 1);
        return starts.len() < MAX_MEMBERS;
    }
    true
}

/// Where the top-level object's members start after `from`, found by reading back from
/// its closing brace (a scan forward from the middle of a body could start inside a
/// string).
fn member_starts_from_tail(body: &[u8], from: usize) -> Vec<usize> {
    let mut starts = Vec::new();
    let Some(close) = body.iter().rposition(|b| !b.is_ascii_whitespace()) else {
        return starts;
    };
    if body[close] != b'}' {
        return starts;
    }
    let (mut depth, mut in_string) = (1usize, false);
    let mut i = close;
    while i > from {
        i -= 1;
        let b = body[i];
        if b == b'"' {
            // A quote ends (read backwards: opens) a string unless an odd number of
            // backslashes escapes it.
            let slashes = body[..i].iter().rev().take_while(|&&c| c == b'\\').count();
            if slashes % 2 == 0 {
                in_string = !in_string;
            }
            continue;
        }
        if !in_string && !structural(b, i, false, &mut depth, &mut starts) {
            break;
        }
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`super::quotas`], each window searched for the readers' words as a successful
    /// body is.
    fn quotas(body: &[u8], window: usize, now: DateTime<Utc>) -> Vec<Quota> {
        super::quotas(
            body,
            window,
            super::super::words::sets_in(body, window),
            now,
        )
    }

    fn now() -> DateTime<Utc> {
        DateTime::from_timestamp(1_748_779_200, 0).unwrap()
    }

    fn read(body: &str) -> Vec<(Option<u64>, Option<u64>)> {
        quotas(body.as_bytes(), 1024, now())
            .into_iter()
            .map(|q| (q.limit, q.remaining))
            .collect()
    }

    #[test]
    fn a_budget_in_the_top_level_members_is_read() {
        // Stack Exchange closes a long answer with its wrapper's budget.
        let items = format!(
            "[{}]",
            vec![r#"{"title":"a \"quoted\", {x}"}"#; 200].join(",")
        );
        let stack = format!(
            r#"{{"items":{items},"has_more":true,"quota_max":10000,"quota_remaining":9421}}"#
        );
        assert_eq!(read(&stack), vec![(Some(10000), Some(9421))]);
        // OpenCage opens with an object named `rate`.
        let opencage = r#"{"documentation":"https://x","rate":{"limit":2500,"remaining":2487,"reset":1748782800},"results":[]}"#;
        let q = quotas(opencage.as_bytes(), 1024, now());
        assert_eq!((q[0].limit, q[0].remaining), (Some(2500), Some(2487)));
        assert_eq!(q[0].reset_after.map(|d| d.as_secs()), Some(3600));
    }

    #[test]
    fn a_budget_of_credits_is_read_by_its_parts() {
        let scrapingant = r#"{"plan_name":"Enthusiast","end_date":"2025-06-11T00:00:00","plan_total_credits":100000,"remained_credits":96740}"#;
        assert_eq!(read(scrapingant), vec![(Some(100000), Some(96740))]);
        // Camel case, and what is left said as the size less what was used.
        let camel = r#"{"creditsTotal":500,"creditsUsed":120,"items":[]}"#;
        assert_eq!(read(camel), vec![(Some(500), Some(380))]);
    }

    #[test]
    fn a_current_total_of_calls_is_what_was_used_not_the_size() {
        // CoinGecko's `/key`: the month's calls so far and the calls left.
        let coingecko = r#"{"plan":"Other","monthly_call_credit":500000,"current_total_monthly_calls":496012,"current_remaining_monthly_calls":3988}"#;
        assert_eq!(read(coingecko), vec![(Some(500000), Some(3988))]);
    }

    #[test]
    fn a_budget_in_the_answers_meta_is_read() {
        // Stormglass: the day's quota and the requests made against it.
        let stormglass = r#"{"data":[{"time":"2025-06-01T00:00:00+00:00"}],"meta":{"cost":1,"dailyQuota":10,"lat":58.7,"requestCount":1}}"#;
        assert_eq!(read(stormglass), vec![(Some(10), Some(9))]);
        // The same budget in other words.
        let calls = r#"{"meta":{"monthly_quota":5000,"calls_made":4990},"items":[]}"#;
        assert_eq!(read(calls), vec![(Some(5000), Some(10))]);
    }

    #[test]
    fn a_meta_without_a_quota_is_data() {
        // Counts of what the data holds, a storage quota with no requests made, or a
        // quota nested deeper.
        assert!(read(r#"{"meta":{"total":120,"count":20,"request_count":3}}"#).is_empty());
        assert!(read(r#"{"meta":{"storageQuota":1000,"storageUsed":10}}"#).is_empty());
        assert!(read(r#"{"meta":{"plan":{"dailyQuota":10,"requestCount":1}}}"#).is_empty());
    }

    #[test]
    fn a_budget_of_calls_is_read_by_its_parts() {
        // NewsCatcher's /subscription (newscatcherapi.com/docs/news-api/api-reference/rate-limits).
        let newscatcher = r#"{"active":true,"concurrent_calls":10,"plan":"v3_nlp_iptc_tags","plan_calls":250000,"remaining_calls":99986,"historical_days":400}"#;
        assert_eq!(read(newscatcher), vec![(Some(250_000), Some(99_986))]);
        let camel = r#"{"maxRequests":5000,"requestsUsed":1200,"items":[]}"#;
        assert_eq!(read(camel), vec![(Some(5000), Some(3800))]);
        // A count of calls with no budget part, or one side alone, is none.
        assert!(read(r#"{"concurrent_calls":10,"plan":"pro"}"#).is_empty());
        assert!(read(r#"{"plan_calls":250000}"#).is_empty());
    }

    #[test]
    fn credit_that_is_money_or_no_budget_is_not_read() {
        // A customer's credit line is money; an overage count is no budget.
        assert!(read(r#"{"credit_limit":5000,"credit_remaining":1200}"#).is_empty());
        assert!(read(r#"{"overage_credits":3,"paid":true}"#).is_empty());
        // A size alone, or nested in data.
        assert!(read(r#"{"plan_total_credits":100000}"#).is_empty());
        assert!(read(r#"{"plan":{"total_credits":10,"remaining_credits":2}}"#).is_empty());
    }

    #[test]
    fn data_that_only_looks_like_a_budget_is_not_read() {
        // Nested: a product's storage quota is data.
        assert!(read(r#"{"user":{"quota_max":10,"quota_remaining":0}}"#).is_empty());
        // A size without what is left of it says nothing about the next call.
        assert!(read(r#"{"quota_max":10,"name":"x"}"#).is_empty());
        // Inside a string, or an answer that is not an object.
        assert!(read(r#"{"text":"\"quota_max\":10,\"quota_remaining\":0"}"#).is_empty());
        assert!(read(r#"[{"quota_max":10,"quota_remaining":0}]"#).is_empty());
        // Members whose names carry no rate-limit word.
        assert!(read(r#"{"max":10,"remaining":0}"#).is_empty());
    }
}
