//! Usage said as a JSON object of percentages in one header.
//!
//! Source: Meta's Graph and Marketing APIs
//! (<https://developers.facebook.com/docs/graph-api/overview/rate-limiting>):
//! - `X-App-Usage` / `X-Page-Usage`: `{"call_count":28,"total_time":25,"total_cputime":25}`,
//!   each "the percentage" of the allowed calls, time and CPU time used;
//! - `X-Business-Use-Case-Usage`: per business id, a list of use cases, each with a
//!   `type`, the same percentages and `estimated_time_to_regain_access` (minutes);
//! - `X-Ad-Account-Usage`: `{"acc_id_util_pct":9.67,"reset_time_duration":100}`
//!   (seconds), and `X-FB-Ads-Insights-Throttle`: `{"app_id_util_pct":100,…}`.
//!
//! The rule is the shape, not the vendor: a header named for usage or throttling whose
//! value is a JSON object is read as shares used. A quota is then 100 percent, and what
//! is left is 100 minus the *highest* share, since the first resource to run out stops
//! the calls. Each object holding shares is one policy, named by its `type` when it has
//! one (`pages`, `ads_management`), else by the header. Members that say a time
//! (`reset`, `regain`, `retry`, `duration`) are the reset; an object with count words
//! (`limit`, `remaining`) is counts, not shares, and is left to the other readers.
//!
//! Work is bounded: values past [`MAX_VALUE`] bytes are not parsed (serde_json also
//! bounds nesting), and at most [`MAX_OBJECTS`] objects and [`MAX_MEMBERS`] members of
//! each are looked at.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::num::TimeUnit;
use crate::quota::Collector;
use crate::{Headers, Quota, reset};

/// Bytes of one value parsed.
const MAX_VALUE: usize = 4096;
/// Objects examined per header.
const MAX_OBJECTS: usize = 16;
/// Members examined per object.
const MAX_MEMBERS: usize = 32;
/// How deep the objects holding shares may sit (`{id: [{…}]}` is two deep).
const MAX_DEPTH: usize = 3;

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    for (name, value) in h.iter() {
        let name = name.trim();
        let Some(family) = usage_family(name) else {
            continue;
        };
        let value = value.trim_ascii();
        if value.first() != Some(&b'{') || value.len() > MAX_VALUE {
            continue;
        }
        let Ok(Value::Object(top)) = serde_json::from_slice::<Value>(value) else {
            continue;
        };
        let mut budget = MAX_OBJECTS;
        visit(&top, &family, 0, &mut budget, out);
    }
}

/// The policy name a usage header gives (`X-App-Usage` → `app`), or `None` when the
/// name is not about usage or throttling.
fn usage_family(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    if !(lower.contains("usage") || lower.contains("throttl")) {
        return None;
    }
    let words: Vec<&str> = lower
        .split(['-', '_'])
        .filter(|w| !w.is_empty() && !matches!(*w, "x" | "fb" | "usage" | "throttle"))
        .collect();
    Some(if words.is_empty() {
        "usage".to_owned()
    } else {
        words.join("-")
    })
}

/// Reads every object holding shares, depth first, within the budget.
fn visit(
    obj: &Map<String, Value>,
    family: &str,
    depth: usize,
    budget: &mut usize,
    out: &mut Collector,
) {
    if *budget == 0 {
        return;
    }
    *budget -= 1;
    if let Some(q) = shares(obj, family, out) {
        out.quota(q);
        return;
    }
    if depth + 1 >= MAX_DEPTH {
        return;
    }
    for v in obj.values().take(MAX_MEMBERS) {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(items) => Box::new(items.iter().take(MAX_MEMBERS)),
            other => Box::new(std::iter::once(other)),
        };
        for child in children {
            if let Value::Object(o) = child {
                visit(o, family, depth + 1, budget, out);
            }
        }
    }
}

/// The quota one object of shares says, if it holds any.
fn shares(obj: &Map<String, Value>, family: &str, out: &mut Collector) -> Option<Quota> {
    let mut highest: Option<f64> = None;
    let mut reset_after: Option<Duration> = None;
    for (key, v) in obj.iter().take(MAX_MEMBERS) {
        let key = key.to_ascii_lowercase();
        if ["limit", "remaining", "max", "quota"]
            .iter()
            .any(|w| key.contains(w))
        {
            // Counts, not shares: another reader's shape.
            return None;
        }
        let Some(n) = v.as_f64().filter(|n| n.is_finite() && *n >= 0.0) else {
            continue;
        };
        if let Some(unit) = time_unit(&key) {
            let Some(d) = unit.float(n, reset::MAX_RESET) else {
                continue;
            };
            if key.contains("regain") {
                // Meta: "until calls will no longer be throttled", a wait said outright;
                // zero means not throttled, not "resets now".
                if d.is_zero() {
                    continue;
                }
                out.throttled = true;
                out.wait(d);
            }
            reset_after = reset_after.max(Some(d));
        } else {
            highest = Some(highest.map_or(n, |h| h.max(n)));
        }
    }
    let used = highest?;
    let policy = obj
        .get("type")
        .and_then(Value::as_str)
        .filter(|t| !t.is_empty())
        .unwrap_or(family);
    Some(Quota {
        limit: Some(100),
        remaining: Some(left_of(used)),
        reset_after,
        ..Quota::new(policy)
    })
}

/// Usage said as one number in a header named for a percentage used: clients of
/// coding-agent gateways read `x-ratelimit-used-percent` ("used quota from 0 to 100"),
/// OpenAI's Codex backend sends `x-codex-primary-used-percent`, and self-hosted gateways
/// `X-RateLimit-Used-Percentage` or one per window (`X-RateLimit-Used-Percent-5h`). The
/// rule is the name: `used` followed by `percent`, `percentage` or `pct`, anywhere in it;
/// the value a number from 0 to 100. Each is a policy of 100 percent named by the rest
/// of the name, with what is left as [`left_of`] reads it.
pub(crate) fn read_percent_headers(h: &Headers<'_>, out: &mut Collector) {
    for (name, value) in h.iter() {
        let Some(policy) = percent_used_policy(name) else {
            continue;
        };
        let Some(used) = std::str::from_utf8(value)
            .ok()
            .and_then(|v| v.trim().trim_end_matches('%').parse::<f64>().ok())
            .filter(|u| u.is_finite() && (0.0..=100.0).contains(u))
        else {
            continue;
        };
        out.quota(Quota {
            limit: Some(100),
            remaining: Some(left_of(used)),
            ..Quota::new(policy)
        });
    }
}

/// The policy a percentage-used header names (`x-codex-primary-used-percent` →
/// `codex-primary`, `X-RateLimit-Used-Percent-5h` → `ratelimit-5h`), or `None` when the
/// name does not say it holds a percentage used.
fn percent_used_policy(name: &str) -> Option<String> {
    let lower = name.trim().to_ascii_lowercase().replace('_', "-");
    let words: Vec<&str> = lower.split('-').filter(|w| !w.is_empty()).collect();
    let at = words
        .windows(2)
        .position(|w| w[0] == "used" && matches!(w[1], "percent" | "percentage" | "pct"))?;
    let rest: Vec<&str> = words[..at]
        .iter()
        .chain(&words[at + 2..])
        .filter(|w| **w != "x")
        .copied()
        .collect();
    Some(if rest.is_empty() {
        "usage".to_owned()
    } else {
        rest.join("-")
    })
}

/// Whole percent left when `used` percent is gone: rounded down, but a share below 100
/// never reads as exhausted (that would say "throttled" while calls still pass).
fn left_of(used: f64) -> u64 {
    if used >= 100.0 {
        return 0;
    }
    // In 0..=100 after the guard above, so the cast is exact.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let left = (100.0 - used).floor() as u64;
    left.max(1)
}

/// The unit of a member that says a time, or `None` for a share.
fn time_unit(key: &str) -> Option<TimeUnit> {
    if !["reset", "regain", "retry", "duration", "wait"]
        .iter()
        .any(|w| key.contains(w))
    {
        return None;
    }
    // Meta documents `estimated_time_to_regain_access` in minutes.
    if key.contains("regain") {
        return Some(TimeUnit::Minutes);
    }
    let unit = key
        .rsplit(['_', '-'])
        .next()
        .and_then(TimeUnit::from_word)
        .unwrap_or(TimeUnit::Seconds);
    Some(unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_named_for_a_percentage_used_is_a_share_of_its_window() {
        let fields: [(&str, &[u8]); 3] = [
            ("x-codex-primary-used-percent", b"97"),
            ("X-RateLimit-Used-Percent-5h", b"40.5"),
            ("X-Used-Percent-Of-Nothing", b"400"),
        ];
        let mut out = Collector::default();
        read_percent_headers(&Headers::new(&fields), &mut out);
        let got: Vec<(String, Option<u64>)> = out
            .quotas
            .iter()
            .map(|q| (q.policy.clone(), q.remaining))
            .collect();
        assert_eq!(
            got,
            vec![
                ("codex-primary".to_owned(), Some(3)),
                ("ratelimit-5h".to_owned(), Some(59)),
            ]
        );
        // A count of what was used is not a percentage.
        assert_eq!(percent_used_policy("X-RateLimit-Used"), None);
    }

    #[test]
    fn family_names_from_headers() {
        assert_eq!(usage_family("X-App-Usage").as_deref(), Some("app"));
        assert_eq!(
            usage_family("X-Business-Use-Case-Usage").as_deref(),
            Some("business-use-case")
        );
        assert_eq!(
            usage_family("X-FB-Ads-Insights-Throttle").as_deref(),
            Some("ads-insights")
        );
        assert_eq!(usage_family("Usage").as_deref(), Some("usage"));
        assert_eq!(usage_family("X-Request-Id"), None);
    }

    #[test]
    fn shares_left_and_times() {
        assert_eq!(left_of(28.0), 72);
        assert_eq!(left_of(9.67), 90);
        assert_eq!(left_of(99.9), 1);
        assert_eq!(left_of(100.0), 0);
        assert_eq!(left_of(250.0), 0);
        assert_eq!(left_of(0.0), 100);
        assert_eq!(
            time_unit("estimated_time_to_regain_access"),
            Some(TimeUnit::Minutes)
        );
        assert_eq!(time_unit("reset_time_duration"), Some(TimeUnit::Seconds));
        assert_eq!(time_unit("reset_after_ms"), Some(TimeUnit::Millis));
        assert_eq!(time_unit("call_count"), None);
        assert_eq!(time_unit("total_time"), None);
    }

    #[test]
    fn counts_and_non_objects_are_not_shares() {
        let read_one = |name: &str, value: &str| {
            let fields: [(&str, &[u8]); 1] = [(name, value.as_bytes())];
            let mut out = Collector::default();
            read(&Headers::new(&fields), &mut out);
            out.quotas
        };
        assert!(read_one("X-Usage", r#"{"limit":1000,"remaining":5}"#).is_empty());
        assert!(read_one("X-App-Usage", "[28, 25]").is_empty());
        assert!(read_one("X-App-Usage", "28").is_empty());
        assert!(read_one("X-App-Usage", r#"{"tier":"standard"}"#).is_empty());
        assert!(read_one("X-Request-Info", r#"{"call_count":99}"#).is_empty());
        let q = read_one("X-Page-Usage", r#"{"call_count":5,"total_time":61}"#);
        assert_eq!((q[0].policy.as_str(), q[0].remaining), ("page", Some(39)));
    }

    #[test]
    fn a_regain_time_is_a_throttle_and_a_wait() {
        let fields: [(&str, &[u8]); 1] = [(
            "X-Business-Use-Case-Usage",
            br#"{"1":[{"type":"pages","call_count":100,"estimated_time_to_regain_access":2}]}"#,
        )];
        let mut out = Collector::default();
        read(&Headers::new(&fields), &mut out);
        assert!(out.throttled);
        assert_eq!(out.retry_after, Some(Duration::from_secs(120)));
        assert_eq!(out.quotas[0].policy, "pages");
        assert_eq!(out.quotas[0].remaining, Some(0));
    }
}
