//! GitLab `RateLimit-*`: the IETF draft's split fields plus `Observed` and `ResetTime`.
//!
//! Source: GitLab.com rate limits (<https://docs.gitlab.com/user/gitlab_com/>, "HAProxy
//! API throttle"), documented example headers:
//! `RateLimit-Limit: 600`, `RateLimit-Observed: 6`, `RateLimit-Remaining: 594`,
//! `RateLimit-Reset: 1563325137` (Unix time, not the draft's delta), `RateLimit-ResetTime:
//! Wed, 17 Jul 2019 00:58:57 GMT` (the same instant as an HTTP-date). `Observed` is the
//! requests counted in the window, so `remaining = limit - observed` when `Remaining` is
//! missing; `ResetTime` is used when `Reset` is missing or unreadable. Both resets are
//! absolute, so clock skew is absorbed by [`crate::reset::until`] (a past time is zero).
//! On 429 GitLab adds `Retry-After`, read by [`crate::retry_after`].

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let n = |name: &str| h.get_str(name).and_then(num::count);
    let limit = n("ratelimit-limit");
    let remaining =
        n("ratelimit-remaining").or_else(|| Some(limit?.saturating_sub(n("ratelimit-observed")?)));
    let reset_after = h
        .get_str("ratelimit-reset")
        .and_then(|v| reset::parse_str(v, now))
        .or_else(|| {
            h.get_str("ratelimit-resettime")
                .and_then(|v| reset::parse_timestamp(v, now))
                .map(|t| reset::until(t, now, reset::MAX_RESET))
        });
    out.quota(Quota {
        limit,
        remaining,
        reset_after,
        ..Quota::new("default")
    });
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn gitlab_documented_example_and_fallbacks() {
        let now = DateTime::from_timestamp(1_563_325_100, 0).unwrap();
        type Case<'a> = (&'a [(&'a str, &'a [u8])], Quota);
        let q = |l, r, t| Quota {
            limit: Some(l),
            remaining: Some(r),
            reset_after: Some(Duration::from_secs(t)),
            ..Quota::new("default")
        };
        let cases: &[Case<'_>] = &[
            // https://docs.gitlab.com/user/gitlab_com/ — the documented example
            (
                &[
                    ("RateLimit-Limit", b"600"),
                    ("RateLimit-Observed", b"6"),
                    ("RateLimit-Remaining", b"594"),
                    ("RateLimit-Reset", b"1563325137"),
                    ("RateLimit-ResetTime", b"Wed, 17 Jul 2019 00:58:57 GMT"),
                ],
                q(600, 594, 37),
            ),
            // Remaining derived from Observed; reset from ResetTime alone
            (
                &[
                    ("RateLimit-Limit", b"600"),
                    ("RateLimit-Observed", b"600"),
                    ("RateLimit-ResetTime", b"Wed, 17 Jul 2019 00:58:57 GMT"),
                ],
                q(600, 0, 37),
            ),
            // clock skew: a reset already past is zero, never negative
            (
                &[
                    ("RateLimit-Limit", b"600"),
                    ("RateLimit-Remaining", b"0"),
                    ("RateLimit-Reset", b"1563325000"),
                ],
                q(600, 0, 0),
            ),
        ];
        for (fields, want) in cases {
            for flavour in [Flavour::Gitlab, Flavour::Auto] {
                let s = read(200, &Headers::new(fields), now, flavour);
                assert_eq!(s.quota, vec![want.clone()], "{flavour:?} {fields:?}");
            }
        }
    }
}
