//! Anthropic `anthropic-ratelimit-<policy>-{limit,remaining,reset}`.
//!
//! Source: <https://docs.anthropic.com/en/api/rate-limits#response-headers> — policies
//! `requests`, `tokens`, `input-tokens`, `output-tokens`; resets are RFC 3339 timestamps.
//! Any other `<policy>` (e.g. `unified`, whose reset is epoch seconds) is read the same
//! way through [`crate::reset::parse`]. `retry-after` is read by [`crate::retry_after`].

use chrono::{DateTime, Utc};

use crate::headers::has_prefix_ci;
use crate::quota::Collector;
use crate::{Headers, Quota};

const PREFIX: &str = "anthropic-ratelimit-";

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let mut found: Vec<Quota> = Vec::new();
    for (name, value) in h.iter() {
        let name = name.trim();
        if !has_prefix_ci(name, PREFIX) {
            continue;
        }
        let rest = name[PREFIX.len()..].to_ascii_lowercase();
        let Some((policy, field)) = rest.rsplit_once('-') else {
            continue;
        };
        if policy.is_empty() || !matches!(field, "limit" | "remaining" | "reset") {
            continue;
        }
        crate::quota::set_field(&mut found, policy, field, value, now);
    }
    for q in found {
        out.quota(q);
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::{TimeZone, Utc};
    use std::time::Duration;

    #[test]
    fn documented_fields() {
        // Field names from the docs; values in the documented formats.
        let fields: [(&str, &[u8]); 10] = [
            ("anthropic-ratelimit-requests-limit", b"50"),
            ("anthropic-ratelimit-requests-remaining", b"0"),
            (
                "anthropic-ratelimit-requests-reset",
                b"2025-01-01T00:00:30Z",
            ),
            ("anthropic-ratelimit-tokens-limit", b"100000"),
            ("anthropic-ratelimit-tokens-remaining", b"90000"),
            ("anthropic-ratelimit-tokens-reset", b"2025-01-01T00:00:10Z"),
            ("anthropic-ratelimit-input-tokens-limit", b"80000"),
            ("anthropic-ratelimit-input-tokens-remaining", b"79000"),
            (
                "anthropic-ratelimit-output-tokens-reset",
                b"2025-01-01T00:00:01.500Z",
            ),
            ("retry-after", b"30"),
        ];
        let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
        let s = read(429, &Headers::new(&fields), now, Flavour::Auto);
        assert!(s.rate_limited);
        assert_eq!(s.retry_after, Some(Duration::from_secs(30)));
        let names: Vec<_> = s.quota.iter().map(|q| q.policy.as_str()).collect();
        assert_eq!(
            names,
            ["requests", "tokens", "input-tokens", "output-tokens"]
        );
        assert_eq!(
            s.quota[0],
            Quota {
                limit: Some(50),
                remaining: Some(0),
                reset_after: Some(Duration::from_secs(30)),
                ..Quota::new("requests")
            }
        );
        assert_eq!(s.quota[3].reset_after, Some(Duration::from_millis(1500)));
    }

    #[test]
    fn explicit_flavour_ignores_other_families() {
        let fields: [(&str, &[u8]); 2] = [
            ("anthropic-ratelimit-requests-limit", b"50"),
            ("x-ratelimit-limit", b"60"),
        ];
        let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
        let s = read(200, &Headers::new(&fields), now, Flavour::Anthropic);
        assert_eq!(s.quota.len(), 1);
        assert_eq!(s.quota[0].policy, "requests");
    }
}
