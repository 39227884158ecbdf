//! A wait sent as a bare number whose unit the same reply tells by its own reset.
//!
//! Source: PluralKit's API documents `X-RateLimit-Reset` as "the UNIX time (in
//! milliseconds) when the ratelimit info will reset" and answers a 429 with
//! `{"message": "429: too many requests", "retry_after": 19, "code": 0}`, where
//! `retry_after` is "the amount of milliseconds remaining until you can make more
//! requests" (PluralKit's API docs, "add documentation for new API ratelimiting").
//! Nothing in the wait's name or value says milliseconds; the reset beside it does:
//! read as seconds the wait is a thousand times the reset the reply itself states, read
//! as milliseconds it is that reset.
//!
//! The rule: a wait of at least a second is in milliseconds when a spent quota of the
//! same reply resets at its millisecond reading (within a tenth of that reset, or
//! 2 ms) and its seconds reading is over a hundred times that reset. A wait the reset
//! agrees with as seconds, or that no spent quota's reset corroborates, is left as
//! read: a value is never rescaled on its size alone, so a small wait in seconds
//! (`Retry-After: 19` beside a 19-second reset) stays seconds.

use std::time::Duration;

use crate::Quota;

/// `wait` as the reply's own spent quota reads it: its millisecond reading when that is
/// the quota's reset and its seconds reading is not, else `wait` unchanged.
pub(crate) fn corroborated<'a>(
    wait: Duration,
    quotas: impl IntoIterator<Item = &'a Quota>,
) -> Duration {
    if wait < Duration::from_secs(1) {
        return wait;
    }
    let as_ms = wait / 1000;
    let agrees = |reset: Duration| {
        let tolerance = (reset / 10).max(Duration::from_millis(2));
        // Checked: a reset from a hostile body may be any length.
        as_ms.abs_diff(reset) <= tolerance && reset.checked_mul(100).is_some_and(|r| wait > r)
    };
    let spent_resets = quotas
        .into_iter()
        .filter(|q| q.is_exhausted())
        .filter_map(|q| q.reset_after);
    for reset in spent_resets {
        if agrees(reset) {
            return as_ms;
        }
    }
    wait
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::{TimeZone, Utc};

    use super::corroborated;
    use crate::body::read as read_body;
    use crate::{Flavour, Headers, Quota, read};

    fn spent(reset: Duration) -> Quota {
        Quota {
            remaining: Some(0),
            reset_after: Some(reset),
            ..Quota::new("default")
        }
    }

    #[test]
    fn a_wait_whose_milliseconds_are_the_spent_reset_is_in_milliseconds() {
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        // (wait as read in seconds, the spent quota's reset, the wait to tell)
        let cases = [
            (s(19), ms(19), ms(19)),
            (s(1234), ms(1230), ms(1234)),
            (s(500), ms(480), ms(500)),
            (s(2), ms(2), ms(2)),
        ];
        for (wait, reset, want) in cases {
            assert_eq!(
                corroborated(wait, &[spent(reset)]),
                want,
                "{wait:?} beside {reset:?}"
            );
        }
    }

    #[test]
    fn a_wait_the_reset_does_not_corroborate_stays_as_read() {
        let ms = Duration::from_millis;
        let s = Duration::from_secs;
        let unspent = Quota {
            remaining: Some(3),
            reset_after: Some(ms(19)),
            ..Quota::new("default")
        };
        let cases: [(Duration, Vec<Quota>); 7] = [
            // The reset agrees with the wait as seconds.
            (s(19), vec![spent(s(19))]),
            // A small wait beside a reset that is neither reading of it.
            (s(19), vec![spent(s(40))]),
            (s(5), vec![spent(ms(900))]),
            // No spent quota: a count left is not the wait's reset.
            (s(19), vec![unspent]),
            // No quota at all: the size alone never rescales a wait.
            (s(42_661), vec![]),
            // Under a second there is nothing to rescale.
            (ms(250), vec![spent(ms(0))]),
            // A reset too long to multiply is no corroboration, and no panic.
            (s(19), vec![spent(Duration::MAX)]),
        ];
        for (wait, quotas) in cases {
            assert_eq!(
                corroborated(wait, &quotas),
                wait,
                "{wait:?} beside {quotas:?}"
            );
        }
    }

    #[test]
    fn a_body_wait_beside_a_millisecond_epoch_reset_is_read_in_milliseconds() {
        let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
        let reset = (now.timestamp_millis() + 19).to_string();
        let fields: [(&str, &[u8]); 3] = [
            ("X-RateLimit-Limit", b"2"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Reset", reset.as_bytes()),
        ];
        let mut s = read(429, &Headers::new(&fields), now, Flavour::Auto);
        let body = br#"{"message": "429: too many requests", "retry_after": 19, "code": 0}"#;
        s.absorb_body(read_body(429, body, now));
        assert!(s.rate_limited);
        assert_eq!(s.retry_after, Some(Duration::from_millis(19)));
    }

    #[test]
    fn a_retry_after_header_in_milliseconds_beside_a_millisecond_reset() {
        let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
        let reset = (now.timestamp_millis() + 1_200).to_string();
        let fields: [(&str, &[u8]); 3] = [
            ("Retry-After", b"1200"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Reset", reset.as_bytes()),
        ];
        let s = read(429, &Headers::new(&fields), now, Flavour::Auto);
        assert_eq!(s.retry_after, Some(Duration::from_millis(1_200)));
        // The same wait beside a reset in seconds is seconds.
        let fields: [(&str, &[u8]); 3] = [
            ("Retry-After", b"1200"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Reset", b"1200"),
        ];
        let s = read(429, &Headers::new(&fields), now, Flavour::Auto);
        assert_eq!(s.retry_after, Some(Duration::from_secs(1_200)));
    }
}
