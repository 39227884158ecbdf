//! Discord `X-RateLimit-*`: GitHub's shape plus buckets, scopes and float seconds.
//!
//! Source: <https://discord.com/developers/docs/topics/rate-limits#header-format>
//! (`X-RateLimit-Limit`, `-Remaining`, `-Reset` epoch seconds with a fraction,
//! `-Reset-After` float seconds, `-Bucket` identifying the shared limit, and on 429s
//! `-Global: true` and `-Scope: user|global|shared`). `Reset-After` is preferred over
//! `Reset` because it does not depend on our clock agreeing with Discord's.

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, github, reset};

/// Whether Discord-only fields are present (used by [`crate::Flavour::Auto`]).
pub(crate) fn detect(h: &Headers<'_>) -> bool {
    h.contains("x-ratelimit-bucket")
        || h.contains("x-ratelimit-reset-after")
        || h.contains("x-ratelimit-scope")
        || h.contains("x-ratelimit-global")
}

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let base = github::quota(h, now).unwrap_or_else(|| Quota::new("default"));
    let reset_after = h
        .get("x-ratelimit-reset-after")
        .and_then(|v| reset::parse(v, now))
        .or(base.reset_after);
    let policy = h
        .get_str("x-ratelimit-bucket")
        .filter(|b| !b.is_empty())
        .map_or(base.policy.clone(), str::to_owned);
    out.quota(Quota {
        policy,
        reset_after,
        ..base
    });
    let global = h
        .get_str("x-ratelimit-global")
        .is_some_and(|g| g.eq_ignore_ascii_case("true"));
    if global || h.contains("x-ratelimit-scope") {
        out.throttled = true;
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn documented_examples() {
        let now = DateTime::from_timestamp(1_470_173_022, 0).unwrap();
        // The docs' "Rate Limit Header Examples", first block (a normal response).
        let ok: [(&str, &[u8]); 5] = [
            ("X-RateLimit-Limit", b"5"),
            ("X-RateLimit-Remaining", b"1"),
            ("X-RateLimit-Reset", b"1470173023"),
            ("X-RateLimit-Reset-After", b"1"),
            ("X-RateLimit-Bucket", b"abcd1234"),
        ];
        let s = read(200, &Headers::new(&ok), now, Flavour::Auto);
        assert_eq!(
            s.quota,
            vec![Quota {
                limit: Some(5),
                remaining: Some(1),
                reset_after: Some(Duration::from_secs(1)),
                ..Quota::new("abcd1234")
            }]
        );
        assert!(!s.rate_limited);

        // The 429 example: a shared-resource limit with fractional Retry-After.
        let limited: [(&str, &[u8]); 6] = [
            ("X-RateLimit-Limit", b"10"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Reset", b"1470173023.123"),
            ("X-RateLimit-Reset-After", b"64.57"),
            ("X-RateLimit-Bucket", b"abcd1234"),
            ("X-RateLimit-Scope", b"shared"),
        ];
        let s = read(429, &Headers::new(&limited), now, Flavour::Discord);
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_millis(64_570)));
        assert!(s.rate_limited);
    }

    #[test]
    fn reset_falls_back_to_epoch_float_and_global_flags() {
        let now = DateTime::from_timestamp(1_470_173_022, 0).unwrap();
        let fields: [(&str, &[u8]); 3] = [
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Reset", b"1470173023.5"),
            ("X-RateLimit-Global", b"true"),
        ];
        let s = read(429, &Headers::new(&fields), now, Flavour::Discord);
        assert_eq!(s.quota[0].policy, "default");
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_millis(1500)));
        assert!(s.rate_limited);
        // Discord sends the flag only on 429s; on a 2xx the work was done.
        let s = read(200, &Headers::new(&fields), now, Flavour::Discord);
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_millis(1500)));
        assert!(!s.rate_limited);
    }
}
