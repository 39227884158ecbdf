//! Atlassian (Jira / Confluence Cloud) extras on top of `x-ratelimit-*`.
//!
//! Source: <https://developer.atlassian.com/cloud/jira/platform/rate-limiting/>
//! - `X-RateLimit-Limit` / `-Remaining` / `-Reset` (an ISO-8601 timestamp such as
//!   `2026-03-26T16:00Z`) are read by [`crate::github`] through the shared reset parser.
//! - `X-RateLimit-NearLimit: true` when less than 20% of a budget remains: told to the
//!   model as a warning.
//! - `RateLimit-Reason` (and `X-Beta-RateLimit-Reason`) names the budget that applied,
//!   e.g. `jira-quota-tenant-based`, `jira-burst-based`.
//! - `Beta-Retry-After`: delay-seconds, like Retry-After, for the points-based quota.
//! - `Beta-RateLimit` / `Beta-RateLimit-Policy`: the IETF draft-08+ structured shape,
//!   parsed by [`crate::ietf`].

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, ietf, retry_after};

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    ietf::read_beta(h, out);
    if let Some(d) = h
        .get_all("beta-retry-after")
        .filter_map(|v| retry_after::parse(v, now))
        .max()
    {
        out.wait(d);
    }
    let near = ["x-ratelimit-nearlimit", "x-beta-ratelimit-nearlimit"]
        .iter()
        .any(|n| h.get_str(n).is_some_and(|v| v.eq_ignore_ascii_case("true")));
    let reason = ["ratelimit-reason", "x-beta-ratelimit-reason"]
        .iter()
        .find_map(|n| h.get_str(n))
        .filter(|r| !r.is_empty());
    match (near, reason) {
        (true, Some(r)) => out.warn(format!(
            "rate limit nearly exhausted: less than 20% of the budget remains ({r})"
        )),
        (true, None) => {
            out.warn("rate limit nearly exhausted: less than 20% of the budget remains")
        }
        (false, Some(r)) => out.warn(format!("rate limit applied: {r}")),
        (false, None) => {}
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, read};
    use chrono::{TimeZone, Utc};
    use std::time::Duration;

    #[test]
    fn jira_429_with_iso_reset_and_beta_retry() {
        let now = Utc.with_ymd_and_hms(2026, 3, 26, 15, 59, 0).unwrap();
        let fields: [(&str, &[u8]); 6] = [
            ("Retry-After", b"5"),
            ("Beta-Retry-After", b"45"),
            ("X-RateLimit-Limit", b"400"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Reset", b"2026-03-26T16:00Z"),
            ("RateLimit-Reason", b"jira-burst-based"),
        ];
        for flavour in [Flavour::Atlassian, Flavour::Auto] {
            let s = read(429, &Headers::new(&fields), now, flavour);
            assert!(s.rate_limited);
            assert_eq!(s.retry_after, Some(Duration::from_secs(45)));
            assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(60)));
            assert_eq!(
                s.warnings,
                vec!["rate limit applied: jira-burst-based".to_owned()]
            );
        }
    }

    #[test]
    fn near_limit_is_a_warning_not_a_throttle() {
        let now = Utc.with_ymd_and_hms(2026, 3, 26, 16, 24, 52).unwrap();
        let fields: [(&str, &[u8]); 2] = [
            ("X-Beta-Ratelimit-Nearlimit", b"true"),
            ("X-Beta-Ratelimit-Reason", b"jira-quota-tenant-based"),
        ];
        let s = read(200, &Headers::new(&fields), now, Flavour::Atlassian);
        assert!(!s.rate_limited);
        assert_eq!(s.warnings.len(), 1);
        assert!(s.warnings[0].contains("jira-quota-tenant-based"));
    }
}
