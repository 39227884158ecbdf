//! The one place that decides what a "reset" value means.
//!
//! Vendors send the time a quota resets in six shapes: delta seconds (IETF
//! draft-ietf-httpapi-ratelimit-headers, Zendesk, Discord `Reset-After`), epoch seconds
//! (GitHub, X, Discord `Reset`, GitLab), epoch milliseconds, RFC 3339 / ISO-8601
//! timestamps (Anthropic, Atlassian), HTTP-dates (RFC 9110 §5.6.7) and Go-style durations
//! (OpenAI, <https://pkg.go.dev/time#ParseDuration>). [`parse`] tells them apart:
//!
//! | shape                          | rule                                   |
//! |--------------------------------|----------------------------------------|
//! | bare number `< 1e9`            | delta seconds (fraction allowed)       |
//! | bare number `1e9 ..< 1e12`     | epoch seconds (fraction allowed)       |
//! | bare number `1e12 ..< 1e15`    | epoch milliseconds                     |
//! | bare number `>= 1e15`          | epoch microseconds                     |
//! | digits followed by h/m/s/ms/us | Go duration                            |
//! | otherwise                      | RFC 3339 / ISO-8601, then HTTP-date    |
//!
//! 1e9 s is 31 years, so no real delta reaches it, and 1e9 as an epoch is 2001, before
//! any of these APIs existed. Absolute times are turned into a delta from the injected
//! `now`: a time in the past (clock skew, a stale cache) gives zero, and anything past
//! [`MAX_RESET`] is capped. This module must not read the clock.

use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};

use crate::num;

/// The longest reset delay reported (31 days): enough for monthly quotas, short enough
/// that a bogus far-future timestamp cannot park a dependency for years.
pub const MAX_RESET: Duration = Duration::from_secs(31 * 86_400);

const EPOCH_SECONDS_MIN: u64 = 1_000_000_000;
const EPOCH_MILLIS_MIN: u64 = 1_000_000_000_000;
const EPOCH_MICROS_MIN: u64 = 1_000_000_000_000_000;

/// Turns any reset value into a delay from `now`, capped at [`MAX_RESET`].
///
/// `None` only when the bytes are none of the shapes in the module table.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use std::time::Duration;
/// let now = Utc.timestamp_opt(1_372_700_800, 0).unwrap();
/// let parse = |v: &str| toolgate_signals::reset::parse(v.as_bytes(), now);
/// assert_eq!(parse("1372700873"), Some(Duration::from_secs(73))); // epoch seconds
/// assert_eq!(parse("30"), Some(Duration::from_secs(30)));         // delta seconds
/// assert_eq!(parse("6m0s"), Some(Duration::from_secs(360)));      // Go duration
/// ```
#[must_use]
pub fn parse(value: &[u8], now: DateTime<Utc>) -> Option<Duration> {
    parse_str(std::str::from_utf8(value).ok()?, now)
}

/// [`parse`] for text already known to be UTF-8.
#[must_use]
pub fn parse_str(value: &str, now: DateTime<Utc>) -> Option<Duration> {
    let v = value.trim().trim_matches('"').trim();
    if v.is_empty() {
        return None;
    }
    if v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return number(v, now);
    }
    if v.starts_with(|c: char| c.is_ascii_digit())
        && !v.contains(['-', ':', ' ', ','])
        && let Some(d) = num::go_duration(v, MAX_RESET)
    {
        return Some(d);
    }
    parse_timestamp(v).map(|t| until(t, now, MAX_RESET))
}

/// A bare number, disambiguated by magnitude (see the module table).
fn number(v: &str, now: DateTime<Utc>) -> Option<Duration> {
    let (whole, nanos) = num::parse_decimal(v)?;
    // Saturate: a number beyond i64 is beyond chrono's range too, and is capped below.
    let big = i64::try_from(whole).unwrap_or(i64::MAX);
    let target = if whole < EPOCH_SECONDS_MIN {
        return Some(Duration::new(whole, nanos).min(MAX_RESET));
    } else if whole < EPOCH_MILLIS_MIN {
        DateTime::from_timestamp(big, nanos)
    } else if whole < EPOCH_MICROS_MIN {
        DateTime::from_timestamp_millis(big)
    } else {
        DateTime::from_timestamp_micros(big)
    };
    // Out of chrono's range means absurdly far in the future: cap it.
    Some(target.map_or(MAX_RESET, |t| until(t, now, MAX_RESET)))
}

/// The delay from `now` until `target`: zero if `target` has passed, at most `cap`.
#[must_use]
pub fn until(target: DateTime<Utc>, now: DateTime<Utc>, cap: Duration) -> Duration {
    target
        .signed_duration_since(now)
        .to_std()
        .unwrap_or(Duration::ZERO)
        .min(cap)
}

/// Integer delta seconds from a structured field (may be negative): clamped to
/// `0..=MAX_RESET`.
pub(crate) fn from_delta_secs(secs: i64) -> Duration {
    Duration::from_secs(u64::try_from(secs).unwrap_or(0)).min(MAX_RESET)
}

/// Parses an absolute time: RFC 3339, the ISO-8601 profiles vendors actually send
/// (minute precision such as Atlassian's `2026-03-26T16:00Z`, no zone meaning UTC), or an
/// HTTP-date in any of its three forms (RFC 9110 §5.6.7).
#[must_use]
pub fn parse_timestamp(value: &str) -> Option<DateTime<Utc>> {
    let v = value.trim();
    if v.is_empty() || v.len() > 64 {
        return None;
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Some(t.with_timezone(&Utc));
    }
    iso8601(v).or_else(|| http_date(v))
}

/// ISO-8601 shapes that RFC 3339 refuses.
fn iso8601(v: &str) -> Option<DateTime<Utc>> {
    const NAIVE: [&str; 4] = [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ];
    const ZONED: [&str; 4] = [
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M%z",
        "%Y-%m-%dT%H:%M:%S%.f%:z",
        "%Y-%m-%dT%H:%M%:z",
    ];
    let naive = v.strip_suffix(['Z', 'z']).unwrap_or(v);
    for f in NAIVE {
        if let Ok(t) = NaiveDateTime::parse_from_str(naive, f) {
            return Some(Utc.from_utc_datetime(&t));
        }
    }
    for f in ZONED {
        if let Ok(t) = DateTime::parse_from_str(v, f) {
            return Some(t.with_timezone(&Utc));
        }
    }
    None
}

/// IMF-fixdate, RFC 850 and asctime, via `httpdate`.
///
/// `httpdate` checks the day name; when only that is wrong (RFC 8594's own example,
/// `Sat, 31 Dec 2018`, was a Monday), the IMF-fixdate is re-read without it.
pub(crate) fn http_date(v: &str) -> Option<DateTime<Utc>> {
    let v = v.trim();
    if let Ok(t) = httpdate::parse_http_date(v) {
        let since = t.duration_since(std::time::UNIX_EPOCH).ok()?;
        return DateTime::from_timestamp(
            i64::try_from(since.as_secs()).ok()?,
            since.subsec_nanos(),
        );
    }
    let (_, rest) = v.split_once(", ")?;
    let naive =
        NaiveDateTime::parse_from_str(rest.strip_suffix(" GMT")?, "%d %b %Y %H:%M:%S").ok()?;
    Some(Utc.from_utc_datetime(&naive))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(secs, 0).unwrap()
    }

    #[test]
    fn disambiguation_table() {
        // GitHub's documented example: x-ratelimit-reset 1372700873.
        let now = at(1_372_700_800);
        let s = Duration::from_secs;
        let ms = Duration::from_millis;
        let cases: &[(&str, Option<Duration>)] = &[
            // delta seconds (IETF, Zendesk "41", Discord reset-after "1", "64.57")
            ("0", Some(s(0))),
            ("41", Some(s(41))),
            ("64.57", Some(ms(64_570))),
            ("999999999", Some(MAX_RESET)),
            // epoch seconds, integer and Discord's float form
            ("1372700873", Some(s(73))),
            ("1372700873.5", Some(ms(73_500))),
            ("1000000000", Some(s(0))), // 2001: in the past → 0
            ("1372700800", Some(s(0))),
            ("1372700799", Some(s(0))),      // one second of skew
            ("9999999999", Some(MAX_RESET)), // year 2286 → cap
            // epoch milliseconds and microseconds
            ("1372700873000", Some(s(73))),
            ("1372700800250", Some(ms(250))),
            ("1372700873000000", Some(s(73))),
            ("99999999999999999999", Some(MAX_RESET)),
            // Go durations (OpenAI)
            ("6m0s", Some(s(360))),
            ("20ms", Some(ms(20))),
            // RFC 3339 / ISO-8601 (Anthropic, Atlassian)
            ("2013-07-01T17:47:53Z", Some(s(73))),
            ("2013-07-01T19:47:53+02:00", Some(s(73))),
            ("2013-07-01T17:47:53.500Z", Some(ms(73_500))),
            ("2013-07-01T17:48Z", Some(s(80))),
            ("2013-07-01T17:47:53", Some(s(73))),
            ("2013-07-01T17:47:53+0000", Some(s(73))),
            ("2013-07-01T17:30:00Z", Some(s(0))),
            ("2099-01-01T00:00:00Z", Some(MAX_RESET)),
            // HTTP-date, all three forms (RFC 9110 §5.6.7)
            ("Mon, 01 Jul 2013 17:47:53 GMT", Some(s(73))),
            ("Monday, 01-Jul-13 17:47:53 GMT", Some(s(73))),
            ("Mon Jul  1 17:47:53 2013", Some(s(73))),
            ("Sat, 01 Jul 2013 17:47:53 GMT", Some(s(73))), // wrong day name tolerated
            ("Mon, 31 Jun 2013 17:47:53 GMT", None),
            ("\"41\"", Some(s(41))),
            // junk
            ("", None),
            ("-5", None),
            ("soon", None),
            ("1e10", None),
            ("12:00", None),
            ("NaN", None),
        ];
        for (input, want) in cases {
            assert_eq!(parse(input.as_bytes(), now), *want, "{input:?}");
        }
    }

    #[test]
    fn far_past_and_far_future_now_never_panic() {
        for now in [DateTime::<Utc>::MIN_UTC, DateTime::<Utc>::MAX_UTC, at(0)] {
            for v in [
                "1372700873",
                "99999999999999999999",
                "2013-07-01T17:47:53Z",
                "5",
            ] {
                let d = parse(v.as_bytes(), now).unwrap();
                assert!(d <= MAX_RESET);
            }
        }
    }

    #[test]
    fn non_utf8_is_unparseable() {
        assert_eq!(parse(&[0xff, 0xfe], at(0)), None);
    }

    #[test]
    fn delta_secs_clamp() {
        assert_eq!(from_delta_secs(-3), Duration::ZERO);
        assert_eq!(from_delta_secs(30), Duration::from_secs(30));
        assert_eq!(from_delta_secs(i64::MAX), MAX_RESET);
    }
}
