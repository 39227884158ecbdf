//! Sentry `X-Sentry-Rate-Limit-*`.
//!
//! Source: <https://docs.sentry.io/api/ratelimits/> — every API response carries
//! `X-Sentry-Rate-Limit-Limit` (requests allowed in the window), `-Remaining`, `-Reset`
//! ("the time when the next rate limit window begins … in UTC seconds from epoch"),
//! `-ConcurrentLimit` and `-ConcurrentRemaining` (requests in flight). The window
//! limit becomes the `"default"` policy, the concurrency limit `"concurrent"`.

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let n = |name: &str| h.get_str(name).and_then(num::count);
    out.quota(Quota {
        limit: n("x-sentry-rate-limit-limit"),
        remaining: n("x-sentry-rate-limit-remaining"),
        reset_after: h
            .get("x-sentry-rate-limit-reset")
            .and_then(|v| reset::parse(v, now)),
        ..Quota::new("default")
    });
    out.quota(Quota {
        limit: n("x-sentry-rate-limit-concurrentlimit"),
        remaining: n("x-sentry-rate-limit-concurrentremaining"),
        ..Quota::new("concurrent")
    });
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn sentry_window_and_concurrency_limits() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let fields: [(&str, &[u8]); 5] = [
            ("X-Sentry-Rate-Limit-Limit", b"40"),
            ("X-Sentry-Rate-Limit-Remaining", b"39"),
            ("X-Sentry-Rate-Limit-Reset", b"1700000001"),
            ("X-Sentry-Rate-Limit-ConcurrentLimit", b"25"),
            ("X-Sentry-Rate-Limit-ConcurrentRemaining", b"24"),
        ];
        for flavour in [Flavour::Sentry, Flavour::Auto] {
            let s = read(200, &Headers::new(&fields), now, flavour);
            assert_eq!(
                s.quota,
                vec![
                    Quota {
                        limit: Some(25),
                        remaining: Some(24),
                        ..Quota::new("concurrent")
                    },
                    Quota {
                        limit: Some(40),
                        remaining: Some(39),
                        reset_after: Some(Duration::from_secs(1)),
                        ..Quota::new("default")
                    },
                ],
                "{flavour:?}"
            );
        }
    }
}
