//! HubSpot `X-HubSpot-RateLimit-*`.
//!
//! Source: <https://developers.hubspot.com/docs/api/usage-details#rate-limits> and the
//! 2018-11-06 changelog — `-Daily` / `-Daily-Remaining` (per-day, API-key and private-app
//! calls only), `-Interval-Milliseconds` with `-Max` / `-Remaining` (the burst window),
//! `-Secondly` / `-Secondly-Remaining`. Each becomes its own policy: `daily`, `interval`,
//! `secondly`.

use std::time::Duration;

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    let n = |name: &str| h.get_str(name).and_then(num::count);
    let interval = h
        .get_str("x-hubspot-ratelimit-interval-milliseconds")
        .and_then(|v| num::decimal_millis(v, reset::MAX_RESET));
    let policies = [
        (
            "daily",
            n("x-hubspot-ratelimit-daily"),
            n("x-hubspot-ratelimit-daily-remaining"),
            Some(Duration::from_secs(86_400)),
        ),
        (
            "interval",
            n("x-hubspot-ratelimit-max"),
            n("x-hubspot-ratelimit-remaining"),
            interval,
        ),
        (
            "secondly",
            n("x-hubspot-ratelimit-secondly"),
            n("x-hubspot-ratelimit-secondly-remaining"),
            Some(Duration::from_secs(1)),
        ),
    ];
    for (policy, limit, remaining, window) in policies {
        if limit.is_none() && remaining.is_none() {
            continue;
        }
        out.quota(Quota {
            limit,
            remaining,
            window,
            ..Quota::new(policy)
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn all_three_policies() {
        let fields: [(&str, &[u8]); 7] = [
            ("X-HubSpot-RateLimit-Daily", b"250000"),
            ("X-HubSpot-RateLimit-Daily-Remaining", b"249999"),
            ("X-HubSpot-RateLimit-Interval-Milliseconds", b"10000"),
            ("X-HubSpot-RateLimit-Max", b"100"),
            ("X-HubSpot-RateLimit-Remaining", b"5"),
            ("X-HubSpot-RateLimit-Secondly", b"10"),
            ("X-HubSpot-RateLimit-Secondly-Remaining", b"9"),
        ];
        let now = DateTime::from_timestamp(0, 0).unwrap();
        let s = read(200, &Headers::new(&fields), now, Flavour::Hubspot);
        assert_eq!(
            s.quota,
            vec![
                Quota {
                    limit: Some(100),
                    remaining: Some(5),
                    window: Some(Duration::from_secs(10)),
                    ..Quota::new("interval")
                },
                Quota {
                    limit: Some(10),
                    remaining: Some(9),
                    window: Some(Duration::from_secs(1)),
                    ..Quota::new("secondly")
                },
                Quota {
                    limit: Some(250_000),
                    remaining: Some(249_999),
                    window: Some(Duration::from_secs(86_400)),
                    ..Quota::new("daily")
                },
            ]
        );
    }

    #[test]
    fn oauth_calls_have_no_daily_fields() {
        let fields: [(&str, &[u8]); 2] = [
            ("X-HubSpot-RateLimit-Max", b"110"),
            ("X-HubSpot-RateLimit-Remaining", b"109"),
        ];
        let now = DateTime::from_timestamp(0, 0).unwrap();
        let s = read(200, &Headers::new(&fields), now, Flavour::Auto);
        assert_eq!(s.quota.len(), 1);
        assert_eq!(s.quota[0].policy, "interval");
        assert_eq!(s.quota[0].window, None);
    }
}
