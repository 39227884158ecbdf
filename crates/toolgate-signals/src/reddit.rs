//! Reddit `x-ratelimit-used` / `-remaining` / `-reset`.
//!
//! Source: Reddit's announcement of the headers, r/redditdev "Formal ratelimiting
//! headers" (<https://www.reddit.com/r/redditdev/comments/1yxrp7/formal_ratelimiting_headers/>,
//! by an admin): `X-Ratelimit-Used` "approximate number of requests used in this
//! period", `X-Ratelimit-Remaining` "approximate number of requests left to use",
//! `X-Ratelimit-Reset` "approximate number of seconds to end of period"; "the window is
//! currently set to 10 minutes". Being approximate, the counts are sent as decimals
//! (`598.0`); they are rounded down, and the limit is `used + remaining`.
//!
//! The names overlap GitHub's ([`crate::github`]), whose reset is an epoch and whose
//! counts are integers with an `x-ratelimit-limit`. [`detect`] tells them apart in
//! [`crate::Flavour::Auto`]: Reddit sends `used` or a fractional `remaining`, and no
//! `limit`. The reset goes through [`crate::reset::parse`], so even a misdetection reads
//! a delta as a delta and an epoch as an epoch.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

const WINDOW: Duration = Duration::from_secs(600);

/// Whether the `x-ratelimit-*` fields are Reddit's rather than GitHub's.
pub(crate) fn detect(h: &Headers<'_>) -> bool {
    !h.contains("x-ratelimit-limit")
        && (h.contains("x-ratelimit-used")
            || h.get_str("x-ratelimit-remaining")
                .is_some_and(|v| v.contains('.')))
}

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let decimal = |name: &str| h.get_str(name).and_then(num::parse_decimal);
    let used = decimal("x-ratelimit-used");
    let remaining = decimal("x-ratelimit-remaining");
    let limit = match (used, remaining) {
        (Some((u, un)), Some((r, rn))) => {
            let carry = u64::from((un + rn) / 1_000_000_000);
            let frac = (un + rn) % 1_000_000_000;
            Some(
                u.saturating_add(r)
                    .saturating_add(carry)
                    .saturating_add(u64::from(frac >= 500_000_000)),
            )
        }
        _ => h.get_str("x-ratelimit-limit").and_then(num::parse_u64),
    };
    let q = Quota {
        limit,
        remaining: remaining.map(|(whole, _)| whole),
        reset_after: h
            .get("x-ratelimit-reset")
            .and_then(|v| reset::parse(v, now)),
        ..Quota::new("default")
    };
    // The window is a constant, so it alone does not make a quota.
    if !q.is_empty() {
        out.quota(Quota {
            window: Some(WINDOW),
            ..q
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn reddit_fractional_counts_and_delta_reset() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let fields: [(&str, &[u8]); 3] = [
            ("x-ratelimit-used", b"2"),
            ("x-ratelimit-remaining", b"598.0"),
            ("x-ratelimit-reset", b"540"),
        ];
        let want = Quota {
            limit: Some(600),
            remaining: Some(598),
            reset_after: Some(Duration::from_secs(540)),
            window: Some(Duration::from_secs(600)),
            ..Quota::new("default")
        };
        for flavour in [Flavour::Reddit, Flavour::Auto] {
            let s = read(200, &Headers::new(&fields), now, flavour);
            assert_eq!(s.quota, vec![want.clone()], "{flavour:?}");
        }
        let halves: [(&str, &[u8]); 2] = [
            ("x-ratelimit-used", b"1.5"),
            ("x-ratelimit-remaining", b"598.5"),
        ];
        let s = read(200, &Headers::new(&halves), now, Flavour::Reddit);
        assert_eq!(
            (s.quota[0].limit, s.quota[0].remaining),
            (Some(600), Some(598))
        );
    }

    #[test]
    fn reddit_and_github_do_not_misread_each_other() {
        let now = DateTime::from_timestamp(1_691_591_000, 0).unwrap();
        // GitHub's documented example, read in Auto: GitHub's reading, no window.
        let github: [(&str, &[u8]); 5] = [
            ("x-ratelimit-limit", b"5000"),
            ("x-ratelimit-remaining", b"4999"),
            ("x-ratelimit-used", b"1"),
            ("x-ratelimit-reset", b"1691591363"),
            ("x-ratelimit-resource", b"core"),
        ];
        let s = read(200, &Headers::new(&github), now, Flavour::Auto);
        assert_eq!(
            s.quota,
            vec![Quota {
                limit: Some(5000),
                remaining: Some(4999),
                reset_after: Some(Duration::from_secs(363)),
                ..Quota::new("core")
            }]
        );
        // Reddit's headers, read in Auto: not GitHub's (whose remaining would be
        // unreadable and whose reset would be taken for an epoch).
        let reddit: [(&str, &[u8]); 3] = [
            ("x-ratelimit-used", b"599"),
            ("x-ratelimit-remaining", b"1.0"),
            ("x-ratelimit-reset", b"30"),
        ];
        let s = read(200, &Headers::new(&reddit), now, Flavour::Auto);
        assert_eq!(s.quota.len(), 1);
        assert_eq!(s.quota[0].remaining, Some(1));
        assert_eq!(s.quota[0].limit, Some(600));
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(30)));
        // With GitHub's flavour forced, Reddit's fraction is not a GitHub count.
        let s = read(200, &Headers::new(&reddit), now, Flavour::Github);
        assert_eq!(s.quota[0].remaining, None);
    }
}
