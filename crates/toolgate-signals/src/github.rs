//! GitHub `x-ratelimit-*`, also the shape Atlassian and Discord build on.
//!
//! Source: <https://docs.github.com/en/rest/using-the-rest-api/rate-limits-for-the-rest-api>
//! (`x-ratelimit-limit`, `-remaining`, `-used`, `-reset` in UTC epoch seconds,
//! `-resource` naming the policy, e.g. `core`, `search`, `graphql`). GitHub signals an
//! exceeded limit with 403 *or* 429 and `x-ratelimit-remaining: 0`; that judgement is
//! made in [`crate::read`], which sees the status. The reset goes through
//! [`crate::reset::parse`], so Atlassian's ISO-8601 reset reads correctly here too.

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset, window_list};

/// The `x-ratelimit-*` quota, if any of its fields is present and parseable.
pub(crate) fn quota(h: &Headers<'_>, now: DateTime<Utc>) -> Option<Quota> {
    // A leading count also reads `100, 100;window=60` (a policy list after the limit).
    // A count may follow its policy's name (`name=rate-limit,100;`).
    let limit_field = h
        .get_str("x-ratelimit-limit")
        .map(crate::named_count::strip);
    let limit = limit_field.and_then(crate::shape::leading_count);
    // Strava says `X-RateLimit-Usage` for the same count; its lists of windows are read
    // by `window_lists` before this reading is tried.
    let used = ["x-ratelimit-used", "x-ratelimit-usage"]
        .iter()
        .find_map(|n| h.get_str(n))
        .and_then(crate::shape::leading_count);
    let remaining = h
        .get_str("x-ratelimit-remaining")
        .map(crate::named_count::strip)
        // `4.0` beside a limit, as a limiter written in JavaScript sends a Number: the
        // whole calls left. Without a limit a fraction is Reddit's count, not this one.
        .and_then(|v| num::parse_u64(v).or_else(|| limit.and_then(|_| num::limit(v))))
        .or_else(|| Some(limit?.saturating_sub(used?)));
    let reset_after = h
        .get("x-ratelimit-reset")
        .and_then(|v| reset::parse(v, now));
    let policy = h
        .get_str("x-ratelimit-resource")
        .filter(|r| !r.is_empty())
        .unwrap_or("default");
    let q = Quota {
        limit,
        remaining,
        reset_after,
        window: limit_field
            .zip(limit)
            .and_then(|(v, l)| crate::shape::inline_window(v, l)),
        ..Quota::new(policy)
    };
    (!q.is_empty()).then_some(q)
}

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    // Counts keyed by their window (`{"minute": 6}`: the keys say the windows), else
    // several windows listed side by side, else the usual single window.
    let lists = match window_list::keyed_lists(
        h.get_str("x-ratelimit-limit"),
        h.get_str("x-ratelimit-remaining"),
    ) {
        Some(mut keyed) => {
            keyed.reset = h
                .get_str("x-ratelimit-reset")
                .map(|v| window_list::resets(v, now))
                .unwrap_or_default();
            Some(keyed)
        }
        None => window_lists(h, now),
    };
    if let Some(lists) = lists {
        let policy = h
            .get_str("x-ratelimit-resource")
            .filter(|r| !r.is_empty())
            .unwrap_or("default");
        for q in lists.quotas(policy) {
            out.quota(q);
        }
    } else if let Some(q) = quota(h, now) {
        out.quota(q);
    }
}

/// The fields when they list several windows (Strava's `600,30000`, Brave's `1, 15000`
/// with `X-RateLimit-Policy`); `None` for the usual single window.
fn window_lists(h: &Headers<'_>, now: DateTime<Utc>) -> Option<window_list::Lists> {
    let counts = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| h.get_str(n))
            .and_then(window_list::counts)
            .unwrap_or_default()
    };
    let lists = window_list::Lists {
        limit: counts(&["x-ratelimit-limit"]),
        remaining: counts(&["x-ratelimit-remaining"]),
        used: counts(&["x-ratelimit-used", "x-ratelimit-usage"]),
        reset: h
            .get_str("x-ratelimit-reset")
            .map(|v| window_list::resets(v, now))
            .unwrap_or_default(),
        window: h
            .get_str("x-ratelimit-policy")
            .map(window_list::policy_windows)
            .unwrap_or_default(),
    };
    lists.is_list().then_some(lists)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Flavour, read as read_all};
    use std::time::Duration;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(secs, 0).unwrap()
    }

    #[test]
    fn documented_example() {
        // The docs' example response headers.
        let fields: [(&str, &[u8]); 5] = [
            ("x-ratelimit-limit", b"5000"),
            ("x-ratelimit-remaining", b"4999"),
            ("x-ratelimit-used", b"1"),
            ("x-ratelimit-reset", b"1691591363"),
            ("x-ratelimit-resource", b"core"),
        ];
        let s = read_all(
            200,
            &Headers::new(&fields),
            at(1_691_591_000),
            Flavour::Github,
        );
        assert_eq!(
            s.quota,
            vec![Quota {
                limit: Some(5000),
                remaining: Some(4999),
                reset_after: Some(Duration::from_secs(363)),
                ..Quota::new("core")
            }]
        );
        assert!(!s.rate_limited);
    }

    #[test]
    fn a_count_left_sent_as_a_whole_float_is_that_many_calls() {
        let fields: [(&str, &[u8]); 2] = [
            ("X-RateLimit-Limit", b"100.0"),
            ("X-RateLimit-Remaining", b"4.0"),
        ];
        let s = read_all(200, &Headers::new(&fields), at(0), Flavour::Auto);
        let q = s.quota.first().expect("a quota");
        assert_eq!((q.limit, q.remaining), (Some(100), Some(4)));
    }

    #[test]
    fn status_table() {
        // (status, remaining, retry-after, rate_limited)
        type Case<'a> = (u16, &'a [u8], Option<&'a [u8]>, bool);
        let cases: &[Case<'_>] = &[
            (403, b"0", None, true),
            (429, b"0", None, true),
            (403, b"12", None, false),       // an ordinary permission error
            (403, b"12", Some(b"60"), true), // secondary rate limit
            (200, b"0", None, false),        // this call succeeded; the next may not
        ];
        for (status, remaining, retry, want) in cases {
            let mut fields: Vec<(&str, &[u8])> = vec![
                ("X-RateLimit-Limit", b"60"),
                ("X-RateLimit-Remaining", remaining),
                ("X-RateLimit-Reset", b"1372700873"),
            ];
            if let Some(r) = retry {
                fields.push(("Retry-After", r));
            }
            let s = read_all(
                *status,
                &Headers::new(&fields),
                at(1_372_700_800),
                Flavour::Auto,
            );
            assert_eq!(s.rate_limited, *want, "{status} {remaining:?} {retry:?}");
            assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(73)));
        }
        // A bare 403 with no rate-limit signal at all.
        let s = read_all(403, &Headers::new(&[]), at(0), Flavour::Auto);
        assert!(!s.rate_limited);
    }

    #[test]
    fn remaining_derived_from_used_and_junk_ignored() {
        let fields: [(&str, &[u8]); 3] = [
            ("x-ratelimit-limit", b"30"),
            ("x-ratelimit-used", b"31"),
            ("x-ratelimit-reset", b"tomorrow"),
        ];
        let q = quota(&Headers::new(&fields), at(0)).unwrap();
        assert_eq!(
            (q.limit, q.remaining, q.reset_after),
            (Some(30), Some(0), None)
        );
        let junk: [(&str, &[u8]); 1] = [("x-ratelimit-limit", b"-1")];
        assert_eq!(quota(&Headers::new(&junk), at(0)), None);
    }
}
