//! A bare reset whose unit the reply tells by naming its window in milliseconds.
//!
//! Rate limiters written for Node report their window as `windowMs` and send it as
//! `X-RateLimit-Window-Ms: 60000`; beside it a reset sent as a bare number
//! (`X-RateLimit-Reset: 42000`) counts in the same unit. Read as seconds, `42000` is
//! eleven hours, far past the minute the window lasts; read as milliseconds it is 42
//! seconds, inside it. [`crate::reset::parse`] cannot tell from the number alone (a
//! bare delta under a day is seconds), but the reply can.
//!
//! The rule: when a field of the reply names a window or an interval in milliseconds,
//! a quota's reset that is a whole number of seconds, sent as that bare number under a
//! reset field, is in milliseconds when that reading fits in the quota's window and the
//! seconds reading is over ten times the window. A reset that fits its window as
//! seconds, or a reply that names no window in milliseconds, is left as read: a penalty
//! longer than the window (an hour's ban after a minute's limit) stays seconds.

use std::time::Duration;

use crate::{Headers, Quota};

/// Rescales the resets of `quotas` that `headers` show to be milliseconds (see the
/// module's rule).
pub(crate) fn in_window_unit(quotas: &mut [Quota], headers: &Headers<'_>) {
    if !headers
        .iter()
        .any(|(name, _)| names_a_window_in_millis(name))
    {
        return;
    }
    for q in quotas.iter_mut() {
        let (Some(reset), Some(window)) = (q.reset_after, q.window) else {
            continue;
        };
        if reset.subsec_nanos() != 0 || window.is_zero() {
            continue;
        }
        let secs = reset.as_secs();
        let as_millis = Duration::from_millis(secs);
        let sent_bare = headers.iter().any(|(name, value)| {
            name.to_ascii_lowercase().contains("reset")
                && std::str::from_utf8(value).is_ok_and(|v| v.trim() == secs.to_string())
        });
        let far_past_window = window.checked_mul(10).is_some_and(|w| reset > w);
        if sent_bare && far_past_window && as_millis <= window {
            q.reset_after = Some(as_millis);
        }
    }
}

/// `X-RateLimit-Window-Ms`, `x-ratelimit-interval-milliseconds`: a window or interval
/// field whose name ends in a millisecond unit.
fn names_a_window_in_millis(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    let Some(stem) = ["milliseconds", "millis", "ms"]
        .iter()
        .find_map(|unit| folded.strip_suffix(unit))
    else {
        return false;
    };
    stem.ends_with("window") || stem.ends_with("interval")
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::{TimeZone, Utc};

    use crate::{Flavour, Headers, read};

    fn reset_of(fields: &[(&str, &[u8])]) -> Option<Duration> {
        let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
        read(429, &Headers::new(fields), now, Flavour::Auto)
            .quota
            .first()
            .and_then(|q| q.reset_after)
    }

    #[test]
    fn a_bare_reset_beside_a_window_named_in_milliseconds_counts_in_milliseconds_unless_it_fits_as_seconds()
     {
        let fields: [(&str, &[u8]); 4] = [
            ("X-RateLimit-Limit", b"60"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Window-Ms", b"60000"),
            ("X-RateLimit-Reset", b"42000"),
        ];
        assert_eq!(reset_of(&fields), Some(Duration::from_secs(42)));
        // A reset that fits its window as seconds stays seconds.
        let fields: [(&str, &[u8]); 4] = [
            ("X-RateLimit-Limit", b"60"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Window-Ms", b"60000"),
            ("X-RateLimit-Reset", b"42"),
        ];
        assert_eq!(reset_of(&fields), Some(Duration::from_secs(42)));
        // The window named in seconds: a long penalty stays seconds.
        let fields: [(&str, &[u8]); 4] = [
            ("X-RateLimit-Limit", b"60"),
            ("X-RateLimit-Remaining", b"0"),
            ("X-RateLimit-Window", b"60"),
            ("X-RateLimit-Reset", b"7200"),
        ];
        assert_eq!(reset_of(&fields), Some(Duration::from_secs(7200)));
    }
}
