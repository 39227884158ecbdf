//! A count and the window it is allowed in, written as one value: EVE Online ESI's
//! `X-Ratelimit-Limit: 150/15m` (150 tokens a fifteen-minute window), and the same
//! said as `100/1h`, `60/min` or `10/s`.
//!
//! Source: <https://developers.eveonline.com/docs/services/esi/rate-limiting/>
//! (`X-Ratelimit-Limit` "e.g. `150/15m`", beside `X-Ratelimit-Remaining` and
//! `X-Ratelimit-Used`).
//!
//! What follows the slash must name time: a Go-style duration (`15m`, `1h`, `90s`) or
//! one period word (`s`, `min`, `hour`, `day`). Bare digits there are a count, so a
//! `used/limit` pair (`10/100`), which other fields send, is never read as a window.

use std::time::Duration;

use crate::{num, reset};

/// The count and its window, when `text` is `<count>/<time>`; the window is capped at
/// [`reset::MAX_RESET`], and a zero window is refused.
pub(crate) fn read(text: &str) -> Option<(u64, Duration)> {
    let (count, per) = text.trim().split_once('/')?;
    let count = num::parse_u64(count)?;
    let per = per.trim();
    let window = if per.starts_with(|c: char| c.is_ascii_digit()) {
        // `go_duration` refuses a number without a unit, so `10/100` stays a pair.
        num::go_duration(per, reset::MAX_RESET)?
    } else {
        Duration::from_secs(num::period_seconds(per)?)
    };
    (!window.is_zero()).then_some((count, window.min(reset::MAX_RESET)))
}

/// A limit whose value is the length of its window rather than a count: a rule's
/// period, as AspNetCoreRateLimit and Ocelot write it in `X-Rate-Limit-Limit` (`1m`,
/// `12h`, `1d`) beside the count left in `X-Rate-Limit-Remaining`. A Go-style duration
/// or whole days; a bare number is a count, never a length. Capped at
/// [`reset::MAX_RESET`]; a zero length is refused.
pub(crate) fn length(text: &str) -> Option<Duration> {
    let text = text.trim();
    if !text.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    let length = match text.strip_suffix('d') {
        Some(days) => Duration::from_secs(num::parse_u64(days)?.checked_mul(86_400)?),
        None => num::go_duration(text, reset::MAX_RESET)?,
    };
    (!length.is_zero()).then_some(length.min(reset::MAX_RESET))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_per_window_written_as_one_value() {
        let m = |n: u64| Duration::from_secs(60 * n);
        assert_eq!(read("150/15m"), Some((150, m(15))));
        assert_eq!(read(" 5000/1h "), Some((5000, m(60))));
        assert_eq!(read("60/min"), Some((60, m(1))));
        assert_eq!(read("10/s"), Some((10, Duration::from_secs(1))));
        assert_eq!(read("100000/day"), Some((100_000, m(1440))));
        assert_eq!(read("300/1h30m"), Some((300, m(90))));
    }

    #[test]
    fn a_pair_of_counts_or_junk_is_no_window() {
        for text in [
            "10/100", // used/limit
            "150",
            "150/",
            "/15m",
            "150/0s",
            "150/0",
            "-1/15m",
            "150/15x",
            "150/week",
            "1.5/15m",
            "150/15m/2",
        ] {
            assert_eq!(read(text), None, "{text}");
        }
        // A window past a month is capped, not refused.
        assert_eq!(read("1/99999h"), Some((1, reset::MAX_RESET)));
    }
}
