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
//! | bare number `<= 1 day`         | delta seconds (fraction allowed)       |
//! | bare number `1 day ..= 31 days`| delta seconds, unless it is a whole number of seconds in milliseconds and not a whole number of hours in seconds: then delta milliseconds |
//! | bare number `31 days ..< 1e9`  | delta milliseconds                     |
//! | bare number `1e9 ..< 1e12`     | epoch seconds (fraction allowed)       |
//! | bare number `1e12 ..< 1e15`    | epoch milliseconds                     |
//! | bare number `1e15 ..< 1e17`    | epoch microseconds                     |
//! | bare number `>= 1e17`          | epoch nanoseconds (Go's `UnixNano`)    |
//! | digits followed by h/m/s/ms/us | Go duration                            |
//! | otherwise                      | RFC 3339 / ISO-8601, then HTTP-date (lenient, see [`http_date`]) |
//!
//! 1e9 s is 31 years, so no real delta reaches it, and 1e9 as an epoch is 2001, before
//! any of these APIs existed.
//!
//! Deltas in milliseconds carry no unit either (Prisjakt's `X-Rate-Limit-Reset: 600000`
//! is ten minutes, KuCoin's `gw-ratelimit-reset` a countdown in ms). The longest window
//! a quota has is a month, so a delta past [`MAX_RESET`] cannot be seconds and is read
//! as milliseconds. Between a day and a month both readings are possible (RapidAPI
//! counts a monthly plan down in seconds: `2163603`), so the value itself decides: a
//! millisecond value that is a whole number of seconds (`600000`, a window's length as
//! sent by fixed-window servers and shown by docs) is milliseconds, unless it is also a
//! whole number of hours in seconds (`2592000`, thirty days), which only a day-, week-
//! or month-long window gives. A countdown in seconds lands on a multiple of 1000 once
//! in a thousand; the cost of that miss is a reset read short, which the next response
//! corrects, while reading ten minutes as a week would park the dependency for days.
//! Shorter deltas stay seconds: `29963` is eight hours or thirty seconds, and one value
//! cannot tell, except on the reply that opened the window ([`opening_countdown`]);
//! otherwise the engine learns it from how fast a dependency's countdown falls
//! between replies. Absolute times are turned into a delta from the injected
//! `now`: a time in the past (clock skew, a stale cache) gives zero, and anything past
//! [`MAX_RESET`] is capped. This module must not read the clock.

use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};

use crate::{calendar, num};

/// The longest reset delay reported (31 days): enough for monthly quotas, short enough
/// that a bogus far-future timestamp cannot park a dependency for years.
pub const MAX_RESET: Duration = Duration::from_secs(31 * 86_400);

const EPOCH_SECONDS_MIN: u64 = 1_000_000_000;
const EPOCH_MILLIS_MIN: u64 = 1_000_000_000_000;
const EPOCH_MICROS_MIN: u64 = 1_000_000_000_000_000;
/// 1e17 µs is the year 5138 and 1e17 ns is 1973: past it, only nanoseconds are a time
/// an API sends (Go's `time.Now().UnixNano()` written without its unit).
const EPOCH_NANOS_MIN: u64 = 100_000_000_000_000_000;

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
    if let Some(d) = iso_duration(v) {
        return Some(d.min(MAX_RESET));
    }
    parse_timestamp(v, now).map(|t| until(t, now, MAX_RESET))
}

/// An ISO 8601 duration (`PT1M30S`, `P1D`, `PT0.5S`): days, hours, minutes, seconds;
/// years, months and weeks are refused (their length depends on the calendar).
pub(crate) fn iso_duration(v: &str) -> Option<Duration> {
    let rest = v.strip_prefix(['P', 'p'])?;
    if rest.is_empty() || rest.len() > 40 {
        return None;
    }
    let mut total: u128 = 0;
    let mut in_time = false;
    let mut number = String::new();
    let mut any = false;
    for c in rest.chars() {
        match c.to_ascii_uppercase() {
            'T' if !in_time && number.is_empty() => in_time = true,
            d if d.is_ascii_digit() || d == '.' || d == ',' => {
                number.push(if d == ',' { '.' } else { d });
            }
            unit => {
                let (whole, nanos) = num::parse_decimal(&number)?;
                number.clear();
                let scale: u128 = match (unit, in_time) {
                    ('D', false) => 86_400,
                    ('H', true) => 3_600,
                    ('M', true) => 60,
                    ('S', true) => 1,
                    _ => return None,
                };
                let ns =
                    (u128::from(whole) * 1_000_000_000 + u128::from(nanos)).saturating_mul(scale);
                total = total.saturating_add(ns);
                any = true;
            }
        }
    }
    (any && number.is_empty()).then(|| num::nanos_to_duration(total))
}

/// A bare number, disambiguated by magnitude (see the module table).
fn number(v: &str, now: DateTime<Utc>) -> Option<Duration> {
    let (whole, nanos) = num::parse_decimal(v)?;
    // Saturate: a number beyond i64 is beyond chrono's range too, and is capped below.
    let big = i64::try_from(whole).unwrap_or(i64::MAX);
    let target = if whole < EPOCH_SECONDS_MIN {
        return Some(if delta_in_millis(whole, nanos) {
            num::nanos_to_duration(u128::from(whole) * 1_000_000).min(MAX_RESET)
        } else {
            Duration::new(whole, nanos).min(MAX_RESET)
        });
    } else if whole < EPOCH_MILLIS_MIN {
        DateTime::from_timestamp(big, nanos)
    } else if whole < EPOCH_MICROS_MIN {
        DateTime::from_timestamp_millis(big)
    } else if whole < EPOCH_NANOS_MIN {
        DateTime::from_timestamp_micros(big)
    } else {
        Some(DateTime::from_timestamp_nanos(big))
    };
    // Out of chrono's range means absurdly far in the future: cap it.
    Some(target.map_or(MAX_RESET, |t| until(t, now, MAX_RESET)))
}

/// Whether a bare delta below [`EPOCH_SECONDS_MIN`] is milliseconds (see the module
/// table): past a month it cannot be seconds; past a day, a whole number of seconds
/// given in milliseconds that is not a whole number of hours given in seconds is.
fn delta_in_millis(whole: u64, nanos: u32) -> bool {
    const DAY: u64 = 86_400;
    if nanos != 0 || whole <= DAY {
        return false;
    }
    whole > MAX_RESET.as_secs() || (whole.is_multiple_of(1000) && !whole.is_multiple_of(3600))
}

/// A bare countdown on a reply whose own request opened a new window (one unit of its
/// budget used, as KuCoin's `gw-ratelimit-limit: 2000`, `-remaining: 1999`,
/// `-reset: 29963`): such a reset is the window's whole length, less the moment the
/// request took. Read as seconds, `29963` is eight hours and twenty minutes, a length
/// no window has; read as milliseconds it is just under thirty seconds, one every
/// rate limiter uses. So a value over an hour as seconds (shorter ones stay seconds)
/// and at most a day (longer ones are decided by [`parse`]) is milliseconds when that
/// reading is at most 1% short of a common window length and the seconds reading is
/// not. Any other reply's countdown is left to the engine, which learns the unit from
/// how fast it falls.
#[must_use]
pub fn opening_countdown(bare: u64) -> Option<Duration> {
    const HOUR: u64 = 3_600;
    const DAY: u64 = 86_400;
    if bare <= HOUR || bare > DAY {
        return None;
    }
    let millis = Duration::from_millis(bare);
    (just_under_a_window(millis) && !just_under_a_window(Duration::from_secs(bare)))
        .then_some(millis)
}

/// Whether `d` is at most 1% short of a window length rate limiters use.
fn just_under_a_window(d: Duration) -> bool {
    const WINDOWS: [u64; 22] = [
        1, 2, 3, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1_200, 1_800, 3_600, 7_200, 10_800,
        14_400, 21_600, 43_200, 86_400,
    ];
    let secs = d.as_secs_f64();
    WINDOWS.iter().any(|w| {
        let w = *w as f64;
        secs <= w && secs >= w * 0.99
    })
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
/// HTTP-date in any of its forms, leniently (see [`http_date`]).
///
/// `now` is needed only to place two-digit years (RFC 9110 §5.6.7).
#[must_use]
pub fn parse_timestamp(value: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let v = value.trim();
    // JavaScript's date text, with its zone name, runs to about 70 bytes.
    if v.is_empty() || v.len() > 100 {
        return None;
    }
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Some(t.with_timezone(&Utc));
    }
    iso8601(v)
        .or_else(|| http_date(v, now))
        .or_else(|| js_date(v, now))
        .or_else(|| year_first(v))
        .or_else(|| written_date(v))
        .or_else(|| calendar::numeric_date(v))
        .or_else(|| calendar::iso_basic(v))
        .or_else(|| calendar::iso_week_date(v))
        .or_else(|| calendar::marked_date(v))
        .or_else(|| calendar::named_month_date(v))
        .or_else(|| {
            let dotted = calendar::comma_fraction(v)?;
            DateTime::parse_from_rfc3339(&dotted)
                .ok()
                .map(|t| t.with_timezone(&Utc))
                .or_else(|| iso8601(&dotted))
        })
}

/// A calendar date written out in words, as notices for people give it: `January 31,
/// 2022`, `Jan. 31, 2022`, `31 January 2022`, `March 1st, 2026`, and any of them after
/// a day's name (`Mon, 15 Sep 2025`: an HTTP-date without its time, `Tuesday, March 3,
/// 2026`). The month's name tells the day from the month, so neither order is ambiguous;
/// the day starts at midnight UTC. The day's name is not checked against the date: the
/// date is what the notice means, and notices get the day's name wrong.
fn written_date(v: &str) -> Option<DateTime<Utc>> {
    let mut tokens: Vec<&str> = v
        .split([' ', ','])
        .filter(|t| !t.is_empty())
        .map(|t| t.trim_end_matches('.'))
        .collect();
    if tokens.len() == 4 && weekday(tokens[0]) {
        tokens.remove(0);
    }
    let [a, b, year] = tokens.as_slice() else {
        return None;
    };
    let day = |t: &str| {
        let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let suffix = &t[digits.len()..];
        (suffix.is_empty()
            || ["st", "nd", "rd", "th"].contains(&suffix.to_ascii_lowercase().as_str()))
        .then(|| small_number(digits, 1, 2))
        .flatten()
    };
    let (month, day) = match (month_number(a), month_number(b)) {
        (Some(m), None) => (m, day(b)?),
        (None, Some(m)) => (m, day(a)?),
        _ => return None,
    };
    let year = i32::try_from(small_number(year, 4, 4)?).ok()?;
    let date = chrono::NaiveDate::from_ymd_opt(year, month, day)?;
    Some(date.and_hms_opt(0, 0, 0)?.and_utc())
}

/// A year-first date and time in the spellings gateways log with: `/` between the date's
/// parts or a month's name for its number, a space before the time, a numeric offset
/// and a zone name after it — SoundCloud's `2015/06/01 09:49:40 +0000`, WSO2's
/// `2021-Mar-30 05:51:00+0000 UTC`. The year comes first, so the day and month cannot
/// be confused; a time without an offset or zone name is not read (its zone is unknown).
fn year_first(v: &str) -> Option<DateTime<Utc>> {
    let (date, rest) = v.split_once(' ')?;
    let mut parts = date.split(['/', '-']);
    let (year, month_part, day) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let month_number = match month(month_part) {
        Some(m) => m + 1,
        None => month_part.parse().ok()?,
    };
    // A zone name after a numeric offset repeats it; alone, only UTC or GMT is known.
    let rest = rest.trim();
    let zone_name = [" UTC", " GMT", "UTC", "GMT", "Z"]
        .iter()
        .find_map(|z| rest.strip_suffix(z));
    let (time, zoned) = match zone_name {
        Some(t) => (t.trim(), true),
        None => (rest, false),
    };
    let text = format!("{year}-{month_number:02}-{day} {time}");
    for f in ["%Y-%m-%d %H:%M:%S%.f %z", "%Y-%m-%d %H:%M:%S%.f%z"] {
        if let Ok(t) = DateTime::parse_from_str(&text, f) {
            return Some(t.with_timezone(&Utc));
        }
    }
    if zoned {
        return NaiveDateTime::parse_from_str(&text, "%Y-%m-%d %H:%M:%S%.f")
            .ok()
            .map(|t| Utc.from_utc_datetime(&t));
    }
    None
}

/// JavaScript's `Date.prototype.toString()`, which APIs written in JavaScript send as
/// is: `Tue Feb 16 2021 09:02:42 GMT+0100 (Central European Standard Time)`.
fn js_date(v: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let v = v.split_once(" (").map_or(v, |(head, _)| head).trim();
    let mut tokens: Vec<&str> = v.split_ascii_whitespace().collect();
    if tokens.len() != 6 || !weekday(tokens[0]) || month(tokens[1]).is_none() {
        return None;
    }
    let zone = tokens[5];
    let zone = zone
        .strip_prefix("GMT")
        .or_else(|| zone.strip_prefix("UTC"))
        .unwrap_or(zone);
    let zone = if zone.is_empty() { "GMT" } else { zone };
    tokens.truncate(5);
    // Reorder into an IMF-fixdate: day month year time zone.
    http_date(
        &format!(
            "{} {} {} {} {zone}",
            tokens[2], tokens[1], tokens[3], tokens[4]
        ),
        now,
    )
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
    // A bare date (`2026-01-31`), as deprecation and retirement fields give it: midnight UTC.
    if v.len() == 10
        && let Ok(d) = chrono::NaiveDate::parse_from_str(v, "%Y-%m-%d")
    {
        return d.and_hms_opt(0, 0, 0).map(|t| Utc.from_utc_datetime(&t));
    }
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

/// Parses an HTTP-date (RFC 9110 §5.6.7) and the near misses real servers send.
///
/// Accepted, all case-insensitively:
/// - the three RFC forms: IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, obsolete RFC 850
///   `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`;
/// - `UTC`, `UT`, `Z` or a numeric offset (`+0000`, `+01:00`) instead of `GMT` — RFC
///   9745's own `Sunset` example ends in `UTC`;
/// - a missing or wrong day name (RFC 8594's example `Sat, 31 Dec 2018` was a Monday);
/// - full day and month names (`Thursday, 30 June 2024 23:59:59 GMT`, Microsoft Graph's
///   deprecation guidelines);
/// - the US long form, month first, year before the time, on a twelve-hour clock
///   (`Tuesday, June 6, 2017 12:00:00 AM GMT`, Mashery's `X-Plan-Quota-Reset`);
/// - one-digit days and two-digit years in any form.
///
/// Two-digit years follow RFC 9110 §5.6.7: a year that would be more than 50 years after
/// `now` is the most recent past year with the same last two digits.
#[must_use]
pub fn http_date(v: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let v = v.trim();
    if v.is_empty() || v.len() > 64 {
        return None;
    }
    let mut tokens: Vec<&str> = Vec::with_capacity(6);
    for t in v.split(|c: char| c.is_ascii_whitespace() || c == ',') {
        if t.is_empty() {
            continue;
        }
        // RFC 850's `06-Nov-94`; a leading sign is a zone offset, not a date.
        if !t.starts_with(['+', '-']) && t.matches('-').count() == 2 {
            tokens.extend(t.split('-'));
        } else {
            tokens.push(t);
        }
        if tokens.len() > 7 {
            return None;
        }
    }
    if tokens.first().is_some_and(|t| weekday(t)) {
        tokens.remove(0);
    }
    // A day name in another language (`So, 31 Dez 2025 …`, `mer., 31 déc. 2025 …`).
    if tokens.len() == 6 && tokens.first().is_some_and(|t| localized_weekday(t)) {
        tokens.remove(0);
    }
    // A twelve-hour clock's `AM` / `PM` right after the time (.NET's and Java's long US
    // form, `Tuesday, June 6, 2017 12:00:00 AM GMT`, as Mashery's `X-Plan-Quota-Reset`).
    let afternoon = match tokens.iter().position(|t| is_meridiem(t)) {
        Some(i) if i > 0 && tokens[i - 1].contains(':') => {
            Some(tokens.remove(i).eq_ignore_ascii_case("pm"))
        }
        Some(_) => return None,
        None => None,
    };
    // asctime puts the month first and the year last; the US long form puts the month
    // first and the year before the time.
    let (day, month, year, time, zone) = match tokens.as_slice() {
        [m, d, t, y] if month(m).is_some() && t.contains(':') => (*d, *m, *y, *t, None),
        [m, d, t, y, z] if month(m).is_some() && t.contains(':') => (*d, *m, *y, *t, Some(*z)),
        [m, d, y, t] if month(m).is_some() => (*d, *m, *y, *t, None),
        [m, d, y, t, z] if month(m).is_some() => (*d, *m, *y, *t, Some(*z)),
        [d, m, y, t] => (*d, *m, *y, *t, None),
        [d, m, y, t, z] => (*d, *m, *y, *t, Some(*z)),
        _ => return None,
    };
    let day: u32 = small_number(day, 1, 2)?;
    let month = month_number(month).or_else(|| localized_month(month))?;
    let year = full_year(year, now)?;
    let mut hms = time.split(':');
    let (h, mi, s) = (hms.next()?, hms.next()?, hms.next()?);
    if hms.next().is_some() {
        return None;
    }
    let (h, mi, s) = (
        small_number(h, 1, 2)?,
        small_number(mi, 2, 2)?,
        small_number(s, 2, 2)?,
    );
    // 12 AM is midnight and 12 PM noon; a twelve-hour clock has no hour 0 or 13.
    let h = match afternoon {
        Some(pm) if (1..=12).contains(&h) => h % 12 + if pm { 12 } else { 0 },
        Some(_) => return None,
        None => h,
    };
    let naive = chrono::NaiveDate::from_ymd_opt(year, month, day)?.and_hms_opt(h, mi, s)?;
    let offset_secs = match zone {
        None => 0,
        Some(z) => zone_offset(z)?,
    };
    let t = Utc.from_utc_datetime(&naive);
    t.checked_sub_signed(chrono::TimeDelta::seconds(i64::from(offset_secs)))
}

/// `AM` or `PM`, in any case.
fn is_meridiem(t: &str) -> bool {
    t.eq_ignore_ascii_case("am") || t.eq_ignore_ascii_case("pm")
}

const WEEKDAYS: [&str; 7] = [
    "monday",
    "tuesday",
    "wednesday",
    "thursday",
    "friday",
    "saturday",
    "sunday",
];
const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A day name, abbreviated (`Sun`) or in full (`Sunday`).
pub(crate) fn weekday(t: &str) -> bool {
    let t = t.to_ascii_lowercase();
    WEEKDAYS
        .iter()
        .any(|d| t == *d || (t.len() == 3 && d.starts_with(t.as_str())))
}

/// A month: the three-letter abbreviation (RFC 9110's `month`) or, as Microsoft Graph's
/// published `Sunset` example spells it, the full English name; case-insensitively.
pub(crate) fn month(t: &str) -> Option<usize> {
    if t.len() < 3 {
        return None;
    }
    MONTHS
        .iter()
        .position(|m| t.eq_ignore_ascii_case(m) || (t.len() == 3 && m[..3].eq_ignore_ascii_case(t)))
}

/// Month abbreviations of other languages that differ from the English ones, as a date
/// formatter run under a server's locale writes them into an HTTP-date (OTTO's documented
/// `Sunset: Sun, 31 Dez 2025 23:59:59 GMT`, Java's `Locale.GERMANY`): German, French,
/// Spanish, Italian, Portuguese and Dutch. Read only in the month slot of a date whose
/// other parts are all there, never in free text.
const LOCALIZED_MONTHS: [(&str, u32); 26] = [
    ("ene", 1),
    ("gen", 1),
    ("janv", 1),
    ("fev", 2),
    ("fevr", 2),
    ("févr", 2),
    ("mär", 3),
    ("mrz", 3),
    ("mrt", 3),
    ("mars", 3),
    ("abr", 4),
    ("avr", 4),
    ("mai", 5),
    ("mei", 5),
    ("mag", 5),
    ("juin", 6),
    ("giu", 6),
    ("juil", 7),
    ("lug", 7),
    ("ago", 8),
    ("août", 8),
    ("set", 9),
    ("okt", 10),
    ("ott", 10),
    ("out", 10),
    ("dez", 12),
];

/// Day-name abbreviations of the same languages (those not also a month's, as the
/// French and Spanish `mar` is).
const LOCALIZED_WEEKDAYS: [&str; 24] = [
    "mo", "di", "mi", "do", "fr", "sa", "so", "lun", "mer", "jeu", "ven", "sam", "dim", "mié",
    "jue", "vie", "sáb", "dom", "gio", "seg", "ter", "qua", "qui", "sex",
];

/// Whether `t` is a non-English day-name abbreviation (`So`, `mer.`).
fn localized_weekday(t: &str) -> bool {
    let t = t.trim_end_matches('.').to_lowercase();
    LOCALIZED_WEEKDAYS.contains(&t.as_str())
}

/// The month a non-English abbreviation names (`Dez` is 12, `déc.` too).
fn localized_month(t: &str) -> Option<u32> {
    let t = t.trim_end_matches('.').to_lowercase();
    if t == "déc" || t == "dic" {
        return Some(12);
    }
    LOCALIZED_MONTHS
        .iter()
        .find(|(m, _)| *m == t)
        .map(|(_, n)| *n)
}

fn month_number(t: &str) -> Option<u32> {
    month(t).and_then(|i| u32::try_from(i + 1).ok())
}

/// `min..=max` ASCII digits as a number.
fn small_number(t: &str, min: usize, max: usize) -> Option<u32> {
    if t.len() < min || t.len() > max || !t.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse().ok()
}

/// A four-digit year, or a two-digit one placed per RFC 9110 §5.6.7.
fn full_year(t: &str, now: DateTime<Utc>) -> Option<i32> {
    if t.len() == 4 {
        return i32::try_from(small_number(t, 4, 4)?).ok();
    }
    let yy = i32::try_from(small_number(t, 2, 2)?).ok()?;
    let this_year = chrono::Datelike::year(&now);
    let mut year = this_year.div_euclid(100) * 100 + yy;
    // "99" read in 2026 is 1999, not 2099; "10" read in 2090 is 2110, not 2010.
    if year > this_year + 50 {
        year -= 100;
    } else if year < this_year - 50 {
        year += 100;
    }
    Some(year)
}

/// Seconds east of UTC for `GMT`, `UTC`, `UT`, `Z`, `±HHMM` / `±HH:MM` and the zone
/// names of [`calendar::named_zone_offset`] (`PST`, `EDT`, `CET`, `JST`).
fn zone_offset(z: &str) -> Option<i32> {
    if ["gmt", "utc", "ut", "z"]
        .iter()
        .any(|n| z.eq_ignore_ascii_case(n))
    {
        return Some(0);
    }
    if let Some(offset) = calendar::named_zone_offset(z) {
        return Some(offset);
    }
    let (sign, rest) = match z.as_bytes().first()? {
        b'+' => (1, &z[1..]),
        b'-' => (-1, &z[1..]),
        _ => return None,
    };
    let rest = rest.replacen(':', "", 1);
    // Digits only before slicing: a multi-byte character must not be cut.
    if rest.len() != 4 || !rest.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h = i32::try_from(small_number(&rest[..2], 2, 2)?).ok()?;
    let m = i32::try_from(small_number(&rest[2..], 2, 2)?).ok()?;
    if h > 23 || m > 59 {
        return None;
    }
    Some(sign * (h * 3600 + m * 60))
}

#[cfg(test)]
mod tests;
