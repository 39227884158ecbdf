//! A count left and its seconds to reset under abbreviated names.
//!
//! Source: ip-api (<https://ip-api.com/docs/unban>): "The returned HTTP header X-Rl
//! contains the number of requests remaining in the current rate limit window. X-Ttl
//! contains the seconds until the limit is reset."
//!
//! `rl` (rate limit) is too short a word for the shape reader to trust alone, and a
//! `ttl` far more often names how long a cached answer lives. Together, under one
//! prefix (`X-Rl` beside `X-Ttl`, `Rl` beside `Ttl`), they are one budget: what is left
//! and the whole seconds until it is full again. Neither is read without the other, and
//! both must be whole numbers, so a cache's `X-Ttl: 3600` alone, or beside an `X-Rl`
//! that is not a count, stays unread.

use std::time::Duration;

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

/// The abbreviation of "rate limit" that names what is left.
const LEFT: &str = "rl";
/// The companion naming the seconds until the window is whole again.
const SECONDS: &str = "ttl";

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    for (name, value) in h.iter() {
        let Some(prefix) = strip_suffix_ci(name.trim(), LEFT) else {
            continue;
        };
        if !prefix.is_empty() && !prefix.ends_with(['-', '_']) {
            continue;
        }
        let Some(remaining) = whole(value) else {
            continue;
        };
        let companion = h.iter().find_map(|(other, v)| {
            let p = strip_suffix_ci(other.trim(), SECONDS)?;
            p.eq_ignore_ascii_case(prefix).then_some(v)
        });
        let Some(seconds) = companion.and_then(whole) else {
            continue;
        };
        out.quota(Quota {
            remaining: Some(remaining),
            reset_after: Some(Duration::from_secs(seconds).min(reset::MAX_RESET)),
            ..Quota::new("default")
        });
        return;
    }
}

/// `name` without `suffix` (ASCII case ignored).
fn strip_suffix_ci<'a>(name: &'a str, suffix: &str) -> Option<&'a str> {
    let cut = name.len().checked_sub(suffix.len())?;
    (name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(suffix)).then(|| &name[..cut])
}

/// A whole number and nothing else.
fn whole(value: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(value).ok()?.trim();
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    num::count(text)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::{TimeZone, Utc};

    use crate::{Flavour, Headers, Signals, read};

    /// Header fields, what is left and the seconds to reset they say.
    type Case<'a> = (&'a [(&'a str, &'a [u8])], u64, u64);

    fn signals(status: u16, fields: &[(&str, &[u8])]) -> Signals {
        let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
        read(status, &Headers::new(fields), now, Flavour::Auto)
    }

    #[test]
    fn a_count_left_beside_its_seconds_is_one_budget() {
        let cases: [Case<'_>; 4] = [
            (&[("X-Rl", b"12"), ("X-Ttl", b"9")], 12, 9),
            (&[("x-ttl", b"42"), ("x-rl", b"0")], 0, 42),
            (&[("Rl", b"44"), ("Ttl", b"60")], 44, 60),
            (&[("X-Api-Rl", b"3"), ("X-Api-Ttl", b"15")], 3, 15),
        ];
        for (fields, remaining, reset) in cases {
            let s = signals(200, fields);
            let q = s.quota.first().unwrap_or_else(|| panic!("{fields:?}"));
            assert_eq!(q.remaining, Some(remaining), "{fields:?}");
            assert_eq!(
                q.reset_after,
                Some(Duration::from_secs(reset)),
                "{fields:?}"
            );
            assert!(s.unread.is_empty(), "{fields:?}: {:?}", s.unread);
        }
        // Spent on a 429: the reset is the wait.
        let s = signals(429, &[("X-Rl", b"0"), ("X-Ttl", b"42")]);
        assert!(s.rate_limited);
        assert!(s.quota[0].is_exhausted());
    }

    #[test]
    fn either_name_alone_or_a_value_that_is_not_a_count_is_not_a_budget() {
        let cases: [&[(&str, &[u8])]; 6] = [
            // A cache's lifetime, alone or beside nothing it pairs with.
            &[("X-Ttl", b"3600")],
            &[("X-Rl", b"12")],
            // Prefixes that differ are two things.
            &[("X-Rl", b"12"), ("X-Cache-Ttl", b"60")],
            // Values that are not whole counts.
            &[("X-Rl", b"on"), ("X-Ttl", b"9")],
            &[("X-Rl", b"12"), ("X-Ttl", b"9.5s")],
            // A longer word that merely ends in the letters.
            &[("X-Url", b"12"), ("X-Ttl", b"9")],
        ];
        for fields in cases {
            let s = signals(200, fields);
            assert!(s.quota.is_empty(), "{fields:?}: {:?}", s.quota);
        }
    }
}
