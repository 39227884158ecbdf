//! Shopify Admin REST: `X-Shopify-Shop-Api-Call-Limit: 32/40`.
//!
//! Source: <https://shopify.dev/docs/api/usage/limits#rest-admin-api-rate-limits> — the
//! header reports `used/bucket size` of a leaky bucket; on 429 Shopify sends
//! `Retry-After: 2.0` (read by [`crate::retry_after`]). GraphQL cost is reported in the
//! response body (`extensions.cost`), which this header-only crate does not read.

use crate::quota::Collector;
use crate::{Headers, Quota, num};

pub(crate) fn read(h: &Headers<'_>, out: &mut Collector) {
    let Some((used, limit)) = h
        .get_str("x-shopify-shop-api-call-limit")
        .and_then(|v| v.split_once('/'))
    else {
        return;
    };
    let (Some(used), Some(limit)) = (num::parse_u64(used), num::parse_u64(limit)) else {
        return;
    };
    out.quota(Quota {
        limit: Some(limit),
        remaining: Some(limit.saturating_sub(used)),
        ..Quota::new("default")
    });
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn table() {
        let now = DateTime::from_timestamp(0, 0).unwrap();
        // (value, limit, remaining); "32/40" is the documented example.
        type Case<'a> = (&'a [u8], Option<(u64, u64)>);
        let cases: &[Case<'_>] = &[
            (b"32/40", Some((40, 8))),
            (b"40/40", Some((40, 0))),
            (b" 1 / 80 ", Some((80, 79))),
            (b"41/40", Some((40, 0))),
            (b"32", None),
            (b"a/40", None),
            (b"/", None),
        ];
        for (value, want) in cases {
            let fields: [(&str, &[u8]); 1] = [("X-Shopify-Shop-Api-Call-Limit", value)];
            let s = read(200, &Headers::new(&fields), now, Flavour::Shopify);
            let got = s
                .quota
                .first()
                .map(|q| (q.limit.unwrap(), q.remaining.unwrap()));
            assert_eq!(got, *want, "{:?}", String::from_utf8_lossy(value));
        }
        let throttled: [(&str, &[u8]); 2] = [
            ("X-Shopify-Shop-Api-Call-Limit", b"40/40"),
            ("Retry-After", b"2.0"),
        ];
        let s = read(429, &Headers::new(&throttled), now, Flavour::Auto);
        assert!(s.rate_limited);
        assert_eq!(s.retry_after, Some(Duration::from_secs(2)));
    }
}
