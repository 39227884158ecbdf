//! Microsoft Graph throttling headers beyond `Retry-After`.
//!
//! Sources: <https://learn.microsoft.com/graph/throttling> (429 + `Retry-After`) and
//! <https://learn.microsoft.com/graph/throttling-limits> (identity and access service):
//! `x-ms-throttle-limit-percentage` (sent once more than 0.8 of the limit is used; 0.8
//! to 1.8), `x-ms-throttle-scope` and `x-ms-throttle-information` (on throttled
//! responses). SharePoint/OneDrive send IETF `RateLimit-*`, read by [`crate::ietf`].
//!
//! The percentage is expressed as a `"resource-units"` quota with `limit` 100 and
//! `remaining` the percent left, so that it sorts with the other quotas.

use crate::quota::Collector;
use crate::{Headers, Quota, num};

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    if let Some((whole, nanos)) = h
        .get_str("x-ms-throttle-limit-percentage")
        .and_then(num::parse_decimal)
    {
        // Percent used, rounded: whole * 100 + fraction, saturating.
        let used = whole
            .saturating_mul(100)
            .saturating_add(u64::from(nanos.saturating_add(5_000_000) / 10_000_000));
        out.quota(Quota {
            limit: Some(100),
            remaining: Some(100u64.saturating_sub(used)),
            ..Quota::new("resource-units")
        });
    }
    if h.contains("x-ms-throttle-information") {
        out.throttled = true;
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn table() {
        let now = DateTime::from_timestamp(0, 0).unwrap();
        // (percentage, remaining percent)
        let cases: &[(&[u8], Option<u64>)] = &[
            (b"0.8", Some(20)),
            (b"0.85", Some(15)),
            (b"1.8", Some(0)),
            (b"junk", None),
        ];
        for (value, want) in cases {
            let fields: [(&str, &[u8]); 1] = [("x-ms-throttle-limit-percentage", value)];
            let s = read(200, &Headers::new(&fields), now, Flavour::MicrosoftGraph);
            assert_eq!(s.quota.first().and_then(|q| q.remaining), *want);
        }
    }

    #[test]
    fn throttled_response() {
        let now = DateTime::from_timestamp(0, 0).unwrap();
        let fields: [(&str, &[u8]); 5] = [
            ("Retry-After", b"41"),
            (
                "x-ms-throttle-scope",
                b"Tenant_Application/ReadWrite/9a3d526c/0785ef7c",
            ),
            ("x-ms-throttle-information", b"ResourceUnitLimitExceeded"),
            ("RateLimit-Limit", b"1200"),
            ("RateLimit-Remaining", b"0"),
        ];
        let s = read(429, &Headers::new(&fields), now, Flavour::MicrosoftGraph);
        assert!(s.rate_limited);
        assert_eq!(s.retry_after, Some(Duration::from_secs(41)));
        assert_eq!(s.quota[0].limit, Some(1200));
    }

    #[test]
    fn a_throttle_header_on_a_success_is_not_a_throttle() {
        // The work was done: the answer is data, and the quota still reads as a quota.
        let now = DateTime::from_timestamp(0, 0).unwrap();
        let fields: [(&str, &[u8]); 3] = [
            ("x-ms-throttle-information", b"ResourceUnitLimitExceeded"),
            ("RateLimit-Limit", b"1200"),
            ("RateLimit-Remaining", b"3"),
        ];
        for flavour in [Flavour::MicrosoftGraph, Flavour::Auto] {
            let s = read(200, &Headers::new(&fields), now, flavour);
            assert!(!s.rate_limited, "{flavour:?}");
            assert_eq!(s.quota[0].remaining, Some(3), "{flavour:?}");
            assert!(read(503, &Headers::new(&fields), now, flavour).rate_limited);
        }
    }
}
