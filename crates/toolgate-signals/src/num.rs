//! Overflow-free number parsing shared by every header family.
//!
//! Owns the strict grammars (`1*DIGIT`, `1*DIGIT ["." *DIGIT]`, Go-style durations)
//! and the caps. It must not guess what a number means: that is `reset.rs`'s job.

use std::time::Duration;

/// Parses `1*DIGIT` (after trimming whitespace) into a `u64`; `None` on overflow or junk.
pub(crate) fn parse_u64(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.bytes().try_fold(0u64, |acc, b| {
        acc.checked_mul(10)?.checked_add(u64::from(b - b'0'))
    })
}

/// A count as header values give it: `1*DIGIT`, or with a fraction, whose whole part
/// counts (Giphy's `X-RateLimit-Remaining-day: 47.003958333333`, Reddit's `98.0`): a
/// part of a call left is not a call. Signs and placeholders such as `-1` are refused.
pub(crate) fn count(s: &str) -> Option<u64> {
    parse_u64(s).or_else(|| parse_decimal(s).map(|(whole, _)| whole))
}

/// A limit as header values give it: a whole count (`100`, `100.0`). A limit with a
/// fraction is a rate, not a count: Amazon's SP-API sends `x-amzn-RateLimit-Limit: 0.5000`,
/// half a request per second, which read as a count would be a limit of 0.
pub(crate) fn limit(s: &str) -> Option<u64> {
    parse_u64(s).or_else(|| match parse_decimal(s)? {
        (whole, 0) => Some(whole),
        _ => None,
    })
}

/// A whole count written for people, as JSON answers sometimes give it in a string:
/// with thousands separators (`10,000`, `10 000`, with a no-break or thin space too),
/// abbreviated (`1.5k`) or with an exponent (`1e3`). Separators count only
/// between groups of exactly three digits, so `10,5` or a list `10,100` is refused,
/// and an abbreviation or exponent only when the count is whole (`1.5k` is 1500, `1.2345k`
/// is refused). Bounded: at most 24 characters are looked at.
pub(crate) fn written_count(s: &str) -> Option<u64> {
    let s = s.trim();
    if s.is_empty() || s.len() > 24 {
        return None;
    }
    if let Some(n) = grouped(s) {
        return Some(n);
    }
    let (mantissa, scale) = match s.char_indices().last()? {
        // Not `m`: `30m` is thirty minutes as often as thirty million.
        (at, 'k' | 'K') => (&s[..at], 1_000u64),
        _ => match s.split_once(['e', 'E']) {
            Some((m, e)) => (m, 10u64.checked_pow(u32::try_from(parse_u64(e)?).ok()?)?),
            None => return None,
        },
    };
    let (whole, nanos) = parse_decimal(mantissa.trim())?;
    let fraction = u64::from(nanos).checked_mul(scale)?;
    if fraction % 1_000_000_000 != 0 {
        return None;
    }
    whole
        .checked_mul(scale)?
        .checked_add(fraction / 1_000_000_000)
}

/// `10,000`, `10 000`: one to three digits, then groups of three after one separator.
fn grouped(s: &str) -> Option<u64> {
    const SEPARATORS: [char; 4] = [',', ' ', '\u{a0}', '\u{202f}'];
    let sep = s.chars().find(|c| SEPARATORS.contains(c))?;
    let mut groups = s.split(sep);
    let first = groups.next()?;
    if first.is_empty() || first.len() > 3 {
        return None;
    }
    let mut digits = first.to_owned();
    for g in groups {
        if g.len() != 3 {
            return None;
        }
        digits.push_str(g);
    }
    parse_u64(&digits)
}

/// Parses `1*DIGIT ["." *DIGIT]` or `"." 1*DIGIT` into whole units and nanounits.
///
/// The whole part saturates at `u64::MAX` (callers cap it); digits past the ninth
/// fractional one are validated and dropped. Signs, exponents, `inf` and `NaN` are refused.
pub(crate) fn parse_decimal(s: &str) -> Option<(u64, u32)> {
    let s = s.trim();
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, f),
        None => (s, ""),
    };
    if (int.is_empty() && frac.is_empty())
        || !int.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let whole = int.bytes().fold(0u64, |acc, b| {
        acc.saturating_mul(10).saturating_add(u64::from(b - b'0'))
    });
    let mut nanos: u32 = 0;
    let mut scale: u32 = 100_000_000;
    for b in frac.bytes().take(9) {
        nanos += u32::from(b - b'0') * scale;
        scale /= 10;
    }
    Some((whole, nanos))
}

/// Seconds with an optional fraction (`"1.5"`), capped at `cap`.
pub(crate) fn decimal_seconds(s: &str, cap: Duration) -> Option<Duration> {
    let (secs, nanos) = parse_decimal(s)?;
    Some(Duration::new(secs, nanos).min(cap))
}

/// Whole milliseconds (`1*DIGIT`, tolerating a fraction), capped at `cap`.
pub(crate) fn decimal_millis(s: &str, cap: Duration) -> Option<Duration> {
    let (ms, frac_nanos) = parse_decimal(s)?;
    let total_ns = u128::from(ms) * 1_000_000 + u128::from(frac_nanos) / 1_000;
    Some(nanos_to_duration(total_ns).min(cap))
}

/// A `u128` count of nanoseconds as a `Duration`, saturating at `u64::MAX` seconds.
pub(crate) fn nanos_to_duration(ns: u128) -> Duration {
    let secs = u64::try_from(ns / 1_000_000_000).unwrap_or(u64::MAX);
    // The remainder is < 1e9, so it always fits in a u32.
    let sub = u32::try_from(ns % 1_000_000_000).unwrap_or(0);
    Duration::new(secs, sub)
}

/// Parses a Go `time.Duration` string such as `6m0s`, `1s`, `20ms`, `1h2m3.5s`, `0`.
///
/// Source: <https://pkg.go.dev/time#ParseDuration> (units ns, us, µs, ms, s, m, h).
/// Negative durations are refused; the result is capped at `cap`.
pub(crate) fn go_duration(s: &str, cap: Duration) -> Option<Duration> {
    let s = s.trim();
    if s == "0" {
        return Some(Duration::ZERO);
    }
    let mut rest = s;
    let mut total: u128 = 0;
    if rest.is_empty() {
        return None;
    }
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let (num, tail) = rest.split_at(num_len);
        let (whole, nanos) = parse_decimal(num)?;
        let unit_len = tail
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(tail.len());
        let (unit, tail) = tail.split_at(unit_len);
        let unit_ns: u128 = match unit {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        let part = u128::from(whole)
            .saturating_mul(unit_ns)
            .saturating_add(u128::from(nanos).saturating_mul(unit_ns) / 1_000_000_000);
        total = total.saturating_add(part);
        rest = tail;
    }
    Some(nanos_to_duration(total).min(cap))
}

/// The first code point (zero) of each run of ten decimal digits that messages write
/// numbers in besides ASCII, each commented with the script.
const DIGIT_ZEROS: [u32; 20] = [
    0x0660, // Arabic-Indic (Arabic)
    0x06F0, // Extended Arabic-Indic (Persian, Urdu)
    0x07C0, // NKo
    0x0966, // Devanagari (Hindi, Marathi, Nepali)
    0x09E6, // Bengali
    0x0A66, // Gurmukhi (Punjabi)
    0x0AE6, // Gujarati
    0x0B66, // Odia
    0x0BE6, // Tamil
    0x0C66, // Telugu
    0x0CE6, // Kannada
    0x0D66, // Malayalam
    0x0DE6, // Sinhala
    0x0E50, // Thai
    0x0ED0, // Lao
    0x0F20, // Tibetan
    0x1040, // Myanmar (Burmese)
    0x17E0, // Khmer
    0x1810, // Mongolian
    0xFF10, // full-width (Chinese, Japanese, Korean)
];

/// The ASCII digit a decimal digit of another script stands for (`'۳'`, `'٣'`, `'३'`,
/// `'৩'` and `'３'` are all `'3'`), so that "۳۰ ثانیه" reads as 30 seconds; the Arabic
/// decimal separator `'٫'` is a point. `None` for every other character, ASCII
/// included: a caller asks only about characters beyond ASCII.
pub(crate) fn ascii_digit(c: char) -> Option<char> {
    if c == '\u{066B}' {
        return Some('.');
    }
    let code = u32::from(c);
    DIGIT_ZEROS
        .iter()
        .find(|&&zero| (zero..zero + 10).contains(&code))
        .and_then(|&zero| char::from_digit(code - zero, 10))
}

/// `text` with the digits of other scripts written as ASCII ones ("۳۰" is "30", "١٫٥"
/// is "1.5"), when it is a short number so written; `None` for a text of ASCII, a long
/// one, or one holding anything but digits beyond ASCII, which are read as they are.
pub(crate) fn with_ascii_digits(text: &str) -> Option<String> {
    /// Longer than any number a wait is written with.
    const MAX_CHARS: usize = 24;
    if text.is_ascii() || text.chars().nth(MAX_CHARS).is_some() {
        return None;
    }
    text.chars()
        .map(|c| {
            if c.is_ascii() {
                Some(c)
            } else {
                ascii_digit(c)
            }
        })
        .collect()
}

/// A unit of time as a header name, a body field's name or a wait's words give it.
/// One vocabulary for every reader, so that `x-ratelimit-reset-hours`,
/// `retry_after_hours` and "retry in 2 hours" all mean the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TimeUnit {
    Millis,
    Seconds,
    Minutes,
    Hours,
}

impl TimeUnit {
    /// Spellings of at least two letters, the ones that can end a field name glued
    /// into one word (`retryafterms`, `retryinseconds`), longest first within a unit.
    pub(crate) const SUFFIXES: [(&'static str, TimeUnit); 13] = [
        ("milliseconds", TimeUnit::Millis),
        ("millis", TimeUnit::Millis),
        ("msec", TimeUnit::Millis),
        ("ms", TimeUnit::Millis),
        ("seconds", TimeUnit::Seconds),
        ("secs", TimeUnit::Seconds),
        ("sec", TimeUnit::Seconds),
        ("minutes", TimeUnit::Minutes),
        ("mins", TimeUnit::Minutes),
        ("min", TimeUnit::Minutes),
        ("hours", TimeUnit::Hours),
        ("hrs", TimeUnit::Hours),
        ("hr", TimeUnit::Hours),
    ];

    /// The unit one word names (lowercase): every spelling of [`TimeUnit::SUFFIXES`],
    /// the singulars, and the one-letter `s` and `h`.
    pub(crate) fn from_word(word: &str) -> Option<TimeUnit> {
        Some(match word {
            "millisecond" => TimeUnit::Millis,
            "s" | "second" => TimeUnit::Seconds,
            "minute" => TimeUnit::Minutes,
            "h" | "hour" => TimeUnit::Hours,
            _ => {
                return Self::SUFFIXES
                    .iter()
                    .find(|(spelling, _)| *spelling == word)
                    .map(|(_, unit)| *unit);
            }
        })
    }

    /// Seconds in one of this unit.
    pub(crate) fn seconds(self) -> f64 {
        match self {
            TimeUnit::Millis => 0.001,
            TimeUnit::Seconds => 1.0,
            TimeUnit::Minutes => 60.0,
            TimeUnit::Hours => 3600.0,
        }
    }

    /// A decimal count of this unit (`"1.5"`), capped at `cap`.
    pub(crate) fn decimal(self, text: &str, cap: Duration) -> Option<Duration> {
        let whole =
            |per: u32| decimal_seconds(text, cap / per).map(|d| d.saturating_mul(per).min(cap));
        match self {
            TimeUnit::Millis => decimal_millis(text, cap),
            TimeUnit::Seconds => decimal_seconds(text, cap),
            TimeUnit::Minutes => whole(60),
            TimeUnit::Hours => whole(3600),
        }
    }

    /// A JSON number of this unit, capped at `cap`; `None` when negative or not finite.
    pub(crate) fn float(self, count: f64, cap: Duration) -> Option<Duration> {
        if !count.is_finite() || count < 0.0 {
            return None;
        }
        Some(Duration::from_secs_f64(
            (count * self.seconds()).min(cap.as_secs_f64()),
        ))
    }
}

/// The window a period key names, in seconds. `m` is not one (minute or month).
pub(crate) fn period_seconds(key: &str) -> Option<u64> {
    Some(match key {
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600,
        "d" | "day" | "days" => 86_400,
        _ => return None,
    })
}

/// A number with what some languages glue before it taken off: Amharic's `በ` (in:
/// "በ30 ሰከንድ ውስጥ"), Zulu's `eyi-` (of: "emizuzwaneni eyi-30"). Only a prefix beyond
/// ASCII, or one closed by a hyphen, is taken off: `x30` stays no number.
pub(crate) fn bare_number(word: &str) -> &str {
    let Some(at) = word.find(|c: char| c.is_ascii_digit()) else {
        return word;
    };
    let prefix = &word[..at];
    // A sentence's full stop may stand between the words and the number ("لري.45").
    let letters = prefix.trim_end_matches('.');
    let glued =
        !letters.is_empty() && (letters.chars().all(|c| !c.is_ascii()) || prefix.ends_with('-'));
    if glued { &word[at..] } else { word }
}

#[cfg(test)]
mod tests;
