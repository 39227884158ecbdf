//! `x-rate-limit-*` (with hyphens): X (Twitter), Okta and Zendesk.
//!
//! Sources:
//! - Okta: <https://developer.okta.com/docs/reference/rl-best-practices/> — documented
//!   example `X-Rate-Limit-Limit: 1200`, `X-Rate-Limit-Remaining: 1199`,
//!   `X-Rate-Limit-Reset: 1609459200` ("UTC epoch time (in seconds)").
//! - X API v2: <https://docs.x.com/x-api/fundamentals/rate-limits> — `x-rate-limit-limit`,
//!   `x-rate-limit-remaining`, `x-rate-limit-reset` in UTC epoch seconds.
//! - Zendesk: <https://developer.zendesk.com/documentation/ticketing/using-the-zendesk-api/best-practices-for-avoiding-rate-limiting/>
//!   — `X-Rate-Limit: 700` (the limit, without `-limit`) and `X-Rate-Limit-Remaining: 699`.
//! - App Store Connect: <https://developer.apple.com/documentation/appstoreconnectapi/identifying-rate-limits>
//!   — `X-Rate-Limit: user-hour-lim:3600;user-hour-rem:3599;`, a list read by its keys.
//! - AspNetCoreRateLimit and Ocelot (.NET): <https://github.com/stefanprodan/AspNetCoreRateLimit/wiki/IpRateLimitMiddleware>
//!   — `X-Rate-Limit-Limit: 12h`, the rule's period rather than a count, beside
//!   `X-Rate-Limit-Remaining` and an ISO `X-Rate-Limit-Reset`.

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset, shape};

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    if let Some(text) = h.get_str("x-rate-limit")
        && num::count(text).is_none()
        && shape::read_key_value_list(text, now, out)
    {
        return;
    }
    // A count, or a count with its window (`150/15m`), which gives both, or the
    // window's length alone (AspNetCoreRateLimit's `X-Rate-Limit-Limit: 1d`), which
    // says over what period the count left is.
    let limit = ["x-rate-limit-limit", "x-rate-limit"]
        .iter()
        .filter_map(|n| h.get_str(n))
        .find_map(|v| {
            num::limit(v)
                .map(|count| (Some(count), None))
                .or_else(|| crate::per_window::read(v).map(|(count, w)| (Some(count), Some(w))))
                .or_else(|| crate::per_window::length(v).map(|w| (None, Some(w))))
        });
    out.quota(Quota {
        limit: limit.and_then(|(count, _)| count),
        window: limit.and_then(|(_, window)| window),
        remaining: h.get_str("x-rate-limit-remaining").and_then(num::count),
        reset_after: h
            .get("x-rate-limit-reset")
            .and_then(|v| reset::parse(v, now)),
        ..Quota::new("default")
    });
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn table() {
        let now = DateTime::from_timestamp(1_705_420_000, 0).unwrap();
        type Case<'a> = (Flavour, &'a [(&'a str, &'a [u8])], Quota);
        let cases: &[Case<'_>] = &[
            (
                Flavour::X,
                &[
                    ("x-rate-limit-limit", b"900"),
                    ("x-rate-limit-remaining", b"847"),
                    ("x-rate-limit-reset", b"1705420800"),
                ],
                Quota {
                    limit: Some(900),
                    remaining: Some(847),
                    reset_after: Some(Duration::from_secs(800)),
                    ..Quota::new("default")
                },
            ),
            (
                Flavour::Zendesk,
                &[("X-Rate-Limit", b"700"), ("X-Rate-Limit-Remaining", b"699")],
                Quota {
                    limit: Some(700),
                    remaining: Some(699),
                    ..Quota::new("default")
                },
            ),
        ];
        for (flavour, fields, want) in cases {
            let s = read(200, &Headers::new(fields), now, *flavour);
            assert_eq!(s.quota, vec![want.clone()], "{flavour:?}");
        }
    }

    #[test]
    fn okta_documented_example() {
        // https://developer.okta.com/docs/reference/rl-best-practices/
        let fields: [(&str, &[u8]); 3] = [
            ("X-Rate-Limit-Limit", b"1200"),
            ("X-Rate-Limit-Remaining", b"1199"),
            ("X-Rate-Limit-Reset", b"1609459200"),
        ];
        let now = DateTime::from_timestamp(1_609_459_000, 0).unwrap();
        for flavour in [Flavour::Okta, Flavour::X, Flavour::Auto] {
            let s = read(200, &Headers::new(&fields), now, flavour);
            assert_eq!(
                s.quota,
                vec![Quota {
                    limit: Some(1200),
                    remaining: Some(1199),
                    reset_after: Some(Duration::from_secs(200)),
                    ..Quota::new("default")
                }],
                "{flavour:?}"
            );
        }
    }
}
