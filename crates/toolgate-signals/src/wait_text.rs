//! Waits that an error message states in words, for the APIs that put the wait nowhere
//! else: monday.com's `ComplexityException` ("… out of 1000000 reset in 3 seconds",
//! <https://developer.monday.com/api-reference/changelog/hotfix-complexity-exception-errors>),
//! OpenAI-compatible servers' "Please try again in 20s", Azure OpenAI's "Please retry
//! after 7 seconds".
//!
//! A wait is an amount after one of the words English puts before a time to come —
//! `in`, `after`, `for`, `wait` — as in `retry after 7 seconds`, `try again in 20s`,
//! `reset in 3 seconds`, Replicate's `Expected available in 5 seconds`, `blocked for
//! 1 minute`. The amount is a Go-style duration (`20s`, `1m30s`, `250ms`) or a number
//! and a unit word (`3 seconds`, `2 minutes`); a number without a unit (`in 2026`,
//! `for 100 requests`) is not a wait. The words are matched whole, not a list of the
//! phrases vendors happened to use.
//! An instant after `until` or `after` is a wait too, when it is unmistakably one: an
//! epoch of ten or thirteen digits (Binance's "IP banned until 1659146987000") or a
//! written timestamp (`retry after 2025-06-01T12:05:00Z`, crates.io's `try again after
//! Sun, 01 Jun 2025 12:10:00 GMT`), counted from the reply's receipt ([`wait_until`]).
//! So is a time of day with its zone (FedEx's daily quota, "Retry after 12:00AM GMT"):
//! the next such time, today's or tomorrow's. Without a zone a time of day is no wait,
//! since whose clock it is cannot be told.
//! Chinese, Japanese and Korean put "after" behind the amount ("请60秒后再试",
//! "10초 후에 다시 시도해 주세요"), read by their own rule ([`cjk`]).
//! An hour of the clock in another language ("om 9 uur", "après 14h30") is no amount of
//! time ([`clock`]), and digits of other scripts ("۳۰", "৩০", "３０") are read as ASCII
//! ones.
//! A time of day with its zone may stand before a word for "after" instead ("16:00
//! UTC'den sonra", "16:00 CET után"), its case ending after an apostrophe taken off.
//! A small count written in words is an amount ("in a minute", "half an hour",
//! "через полчаса": [`spelled`]); words that name no count ("wait a few minutes") give
//! nothing. Only the first
//! [`MAX_TEXT`] characters are read, and the caller uses the result only on a reply that
//! says it is throttled, so a number in an ordinary message is never taken as a wait.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::num::TimeUnit;
use crate::{MAX_WAIT, num, reset};

mod cjk;
mod clock;
mod languages;
mod spelled;
mod stems;
mod zone;

/// Characters of a message examined.
const MAX_TEXT: usize = 300;

/// Words after which an amount of time is a time to come, each matched as a whole word.
/// `will last` is a ban's or a block's time to come (Taobao's "This ban will last 71
/// more seconds"); a bare `last` is as often a time past ("over the last 24 hours").
const TRIGGERS: [&str; 5] = [" in ", " after ", " for ", " wait ", " will last "];

/// The longest wait the message states, capped at [`MAX_WAIT`].
pub(crate) fn wait_in(text: &str) -> Option<Duration> {
    let t = lowered(text);
    [&TRIGGERS[..], &languages::TRIGGERS, &languages::TOLD]
        .iter()
        .filter_map(|triggers| longest_in(&t, triggers))
        .max()
        .max(cjk::time_to_come(&t))
        .max(languages::time_to_come_before(&t))
}

/// The message's first [`MAX_TEXT`] characters in lower case, after a space that lets a
/// trigger match at the very start ("Wait 2 minutes").
///
/// A wait written as a label reads as the words it spells: a hyphen or underscore
/// joining two letters, and a colon closing a word before a space or a digit, become
/// spaces, so GitHub Container Registry's "toomanyrequests: retry-after: 880.092µs"
/// reads "retry after 880.092µs" (a bare number after a label still has no unit and is
/// no wait). An equals sign stays: `max-wait=30s` echoes a parameter, it tells no wait.
/// Digits keep theirs: dates and clocks are unchanged; digits of other scripts become
/// the ASCII ones they stand for ([`num::ascii_digit`]), and a number glued to a word of
/// another alphabet is set apart from it.
fn lowered(text: &str) -> String {
    let mut out = String::with_capacity(MAX_TEXT + 1);
    out.push(' ');
    let mut chars = text.chars().take(MAX_TEXT).peekable();
    let mut prev = ' ';
    while let Some(c) = chars.next() {
        let next = chars.peek().copied().unwrap_or(' ');
        let joins = matches!(c, '-' | '_') && prev.is_alphabetic() && next.is_alphabetic();
        let closes =
            c == ':' && prev.is_alphabetic() && (next.is_whitespace() || next.is_ascii_digit());
        // A number glued to a word of another alphabet or abugida is a word of its own:
        // Amharic glues its "in" ("በ30 ሰከንድ ውስጥ"), Khmer writes no spaces
        // ("ក្នុងរយៈពេល៣០វិនាទី"), and a message may lose one ("ફરીથી પ્રયાસ કરો20 સેકંડ").
        let digit =
            |c: char| c.is_ascii_digit() || (!c.is_ascii() && num::ascii_digit(c).is_some());
        if (digit(c) && spaced_letter(prev)) || (spaced_letter(c) && digit(prev)) {
            out.push(' ');
        }
        prev = c;
        if joins || closes {
            out.push(' ');
        } else if let Some(d) = (!c.is_ascii()).then(|| num::ascii_digit(c)).flatten() {
            // Digits of other scripts ("۳۰ ثانیه", "৩০ সেকেন্ড", "３０秒") are read as
            // ASCII ones, so every rule below reads their amounts.
            out.push(d);
        } else {
            out.extend(c.to_lowercase());
        }
    }
    out
}

/// Whether `c` is a letter of an alphabet or abugida from Greek up to the scripts of
/// Chinese, Japanese and Korean, which glue every word and keep their text for their
/// own rule ([`cjk`]); a Latin letter glued to a number is a unit's (`µs`) or a label's.
fn spaced_letter(c: char) -> bool {
    (0x0370..0x2E80).contains(&u32::from(c)) && c.is_alphabetic()
}

/// The longest amount of time the message, [`lowered`], states right after one of
/// `triggers`, capped at [`MAX_WAIT`].
fn longest_in(t: &str, triggers: &[&str]) -> Option<Duration> {
    let mut best = None;
    for trigger in triggers {
        let mut from = 0;
        while let Some(i) = t.get(from..).and_then(|rest| rest.find(trigger)) {
            let after = from + i + trigger.len();
            from = after;
            let rest = t.get(after..).unwrap_or_default();
            // An hour of the clock ("om 9 uur", "après 14h30") is no amount of time.
            let found = amount(rest).filter(|_| !clock::at_start(trigger, rest));
            best = best.max(found);
        }
    }
    best.map(|d: Duration| d.min(MAX_WAIT))
}

/// Words that tell the caller to wait before the next attempt, each matched whole and
/// followed by the amount: an instruction, unlike `in` or `for` alone ("expires in 5
/// minutes", "valid for 1 hour"), which only say when something happens.
const TOLD: [&str; 8] = [
    " wait ",
    " wait for ",
    " try again in ",
    " try again after ",
    " retry in ",
    " retry after ",
    // Waiting named as what mends it (SEC.gov's "The block will be lifted automatically
    // by waiting 10 minutes").
    " by waiting ",
    " after waiting ",
];

/// The longest wait the message tells the caller to keep before trying again (Market
/// Data's "Please wait 5 minutes before trying again"), capped at [`MAX_WAIT`]. Unlike
/// [`wait_in`] it means a wait on any refusal, not only on one that says it is
/// throttled: the reply says waiting is what mends it.
pub(crate) fn told_to_wait(text: &str) -> Option<Duration> {
    let t = lowered(text);
    longest_in(&t, &TOLD)
        .max(longest_in(&t, &languages::TOLD))
        .max(languages::amount_before(&t, &languages::TOLD_BEHIND))
        .max(cjk::told(&t))
}

/// The longest wait until an instant the message names after `until`, `after` or `at`,
/// capped at [`MAX_WAIT`]; an instant already past is no wait. `at` is how an instant
/// is told as the time to come back (Outreach's "please try again at
/// 2017-01-01T00:00:00."); a time past after it ("exceeded at …") gives nothing.
pub(crate) fn wait_until(text: &str, now: DateTime<Utc>) -> Option<Duration> {
    let t = lowered(text);
    let mut best = None;
    let to_come = |at: DateTime<Utc>| (at > now).then(|| (at - now).to_std().ok()).flatten();
    for trigger in [" until ", " after ", " at "] {
        for rest in after_each(&t, trigger) {
            best = best.max(instant(rest, now));
        }
    }
    // Other languages' words before a time of day with its zone ("après 14h00 UTC",
    // "после 14:00 МСК"); timestamps and epochs are left to the English words.
    for trigger in languages::BEFORE_AN_INSTANT {
        for rest in after_each(&t, trigger) {
            best = best.max(clock_at_start(rest, now).and_then(to_come));
        }
    }
    // And words for after put behind it ("16:00 UTC'den sonra", "16:00 CET után").
    for after in languages::AFTER_AN_INSTANT {
        for (i, _) in t.match_indices(after) {
            best = best.max(clock_before(&t[..i], now).and_then(to_come));
        }
    }
    best.map(|d: Duration| d.min(MAX_WAIT))
}

/// What follows each whole occurrence of `trigger` in `t`.
fn after_each<'t>(t: &'t str, trigger: &'t str) -> impl Iterator<Item = &'t str> {
    t.match_indices(trigger)
        .filter_map(move |(i, _)| t.get(i + trigger.len()..))
}

/// The wait until the instant at the start of `rest`: an epoch in seconds or
/// milliseconds (ten or thirteen digits), or an RFC 3339 timestamp. Anything shorter is
/// a count or a duration, which [`wait_in`] reads with its unit.
fn instant(rest: &str, now: DateTime<Utc>) -> Option<Duration> {
    let token = rest
        .split_ascii_whitespace()
        .next()?
        .trim_end_matches(['.', ',', ';', ')', '!']);
    let epoch = token.bytes().all(|b| b.is_ascii_digit()) && matches!(token.len(), 10 | 13);
    // A date and a time to the second, zoned or not: a machine's ISO 8601 instant,
    // which without a zone is UTC, as [`reset::parse_timestamp`] reads it.
    let written = token.len() >= 19 && token.as_bytes()[4] == b'-' && token.contains('t');
    if !epoch && !written {
        return http_date_at_start(rest, now)
            .or_else(|| clock_at_start(rest, now))
            .and_then(|at| (at > now).then(|| (at - now).to_std().ok()).flatten());
    }
    let at = if epoch {
        let n: i64 = token.parse().ok()?;
        if token.len() == 13 {
            DateTime::from_timestamp_millis(n)?
        } else {
            DateTime::from_timestamp(n, 0)?
        }
    } else {
        reset::parse_timestamp(&token.to_ascii_uppercase(), now)?
    };
    (at > now).then(|| (at - now).to_std().ok()).flatten()
}

/// An HTTP-date at the start of `rest`, as crates.io writes its publish limit ("Please
/// try again after Sun, 01 Jun 2025 12:10:00 GMT or email …"): the longest run of the
/// next four to six words that reads as one.
fn http_date_at_start(rest: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let words: Vec<&str> = rest.split_ascii_whitespace().take(6).collect();
    (4..=words.len()).rev().find_map(|n| {
        let candidate = words[..n]
            .join(" ")
            .trim_end_matches(['.', ',', ';', ')', '!'])
            .to_ascii_uppercase();
        reset::http_date(&candidate, now)
    })
}

/// The next time of day named at the start of `rest` with its zone: `12:00AM GMT`,
/// `3:30 pm utc`, `23:59 UTC`, `14:00 UTC+3`, `9:00 CET`, `14.00 (МСК)` ([`zone`]). The
/// hour is 0 to 23, or 1 to 12 with `am` / `pm` (12 AM is midnight); the time to come is
/// the next one.
fn clock_at_start(rest: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let mut words = rest
        .split_ascii_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', ';', ')', '!']));
    let first = words.next()?;
    // French and Portuguese write the hour with `h` ("14h00", "14h"), which is read as
    // "14:00".
    let written_with_h = hour_with_h(first);
    let first = written_with_h.as_deref().unwrap_or(first);
    // `12:00am` carries its half of the day glued; `12:00 am` as the next word.
    let (clock, glued) = match first.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&first[..i], Some(&first[i..])),
        None => (first, None),
    };
    // Finnish and the Nordic languages write `14.00` ("klo 14.00 UTC"); the zone that
    // must follow tells it from a decimal.
    let (h, m) = clock.split_once([':', '.'])?;
    if h.is_empty() || h.len() > 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    let mut zone = words.next();
    let half = match glued {
        Some(g) => Some(g),
        None if matches!(zone, Some("am" | "pm")) => std::mem::replace(&mut zone, words.next()),
        None => None,
    };
    let offset = zone::offset_minutes(zone?)?;
    if m > 59 {
        return None;
    }
    let hour = match half {
        None if h <= 23 => h,
        Some("am") if (1..=12).contains(&h) => h % 12,
        Some("pm") if (1..=12).contains(&h) => h % 12 + 12,
        _ => return None,
    };
    // That hour in its zone is `offset` minutes earlier in UTC; the next one is within
    // a day of now.
    let day = chrono::Duration::days(1);
    let mut at = now.date_naive().and_hms_opt(hour, m, 0)?.and_utc()
        - chrono::Duration::minutes(i64::from(offset));
    while at > now + day {
        at -= day;
    }
    while at <= now {
        at += day;
    }
    Some(at)
}

/// The next time of day that the last two words of `before` name with its zone, each
/// word's case ending after an apostrophe taken off: Turkish "17:00'dan (UTC+3)", "16:00
/// UTC'den" (from 16:00 UTC), as languages that put "after" behind it write them. A
/// time of day without its zone ("16:00'dan sonra") names none.
fn clock_before(before: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let mut words = before.split_ascii_whitespace().rev();
    let (zone, clock) = (words.next()?, words.next()?);
    let stem = |w: &'_ str| -> String {
        let cut = w.find(['\'', '\u{2019}']).unwrap_or(w.len());
        // A zone in brackets keeps its closing one: "(utc+3)".
        let closing = if w.starts_with('(') && !w[..cut].ends_with(')') {
            ")"
        } else {
            ""
        };
        format!("{}{closing}", &w[..cut])
    };
    clock_at_start(&format!("{} {}", stem(clock), stem(zone)), now)
}

/// A time of day written with `h` between hour and minutes ("14h00", "9h30") or after a
/// bare hour ("14h"), as `HH:MM`; `None` for anything else.
fn hour_with_h(word: &str) -> Option<String> {
    let (hour, minutes) = word.split_once('h')?;
    let digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let minutes = if minutes.is_empty() { "00" } else { minutes };
    ((1..=2).contains(&hour.len()) && minutes.len() == 2 && digits(hour) && digits(minutes))
        .then(|| format!("{hour}:{minutes}"))
}

/// A length written `h:mm:ss` (hours of any size, minutes and seconds of two digits
/// under 60), or with its whole days before a dot, `d.hh:mm:ss`, as .NET writes a
/// `TimeSpan` longer than a day (Azure API Management's "Quota will be replenished in
/// 2.23:58:11"); two parts alone are as often a time of day and are not read.
fn clock_length(text: &str) -> Option<Duration> {
    let mut parts = text.split(':');
    let (h, m, s) = (parts.next()?, parts.next()?, parts.next()?);
    let two_digits = |p: &str| p.len() == 2 && p.bytes().all(|b| b.is_ascii_digit());
    if parts.next().is_some() || !two_digits(m) || !two_digits(s) {
        return None;
    }
    let (days, h) = match h.split_once('.') {
        // With days the hours are of the day: two digits under 24.
        Some((d, h)) if two_digits(h) && h < "24" => (d, h),
        Some(_) => return None,
        None => ("0", h),
    };
    if h.is_empty() || h.len() > 3 || days.is_empty() || days.len() > 3 {
        return None;
    }
    let parse = |p: &str| p.parse::<u64>().ok();
    let (d, h, m, s) = (parse(days)?, parse(h)?, parse(m)?, parse(s)?);
    (m < 60 && s < 60)
        .then(|| Duration::from_secs(d * 86_400 + h * 3600 + m * 60 + s).min(MAX_WAIT))
}

/// The amount at the start of `rest`: `20s`, `1m30s`, `3 seconds`, `1.5 minutes`,
/// `00:12:34`.
fn amount(rest: &str) -> Option<Duration> {
    let mut words = rest
        .split_ascii_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', ';', ')', '!']));
    let first = words.next()?;
    if !first.starts_with(|c: char| c.is_ascii_digit()) {
        // Swahili writes the unit first ("baada ya sekunde 20"); a small count may be
        // written in words ("in a minute", "через полчаса").
        let unit_of = |w: &str| TimeUnit::from_word(w).or_else(|| languages::unit_ahead(w));
        return languages::unit_then_number(first, words.clone().next())
            .or_else(|| spelled::amount(first, words, unit_of));
    }
    if let Some(d) = num::go_duration(first, MAX_WAIT).filter(|_| first != "0") {
        return Some(d);
    }
    if first.contains(':') {
        // A length written as a clock shows it (Azure API Management's "Quota will be
        // replenished in 00:12:34"), unless a zone or half of the day follows: then it is
        // a time of day, which [`wait_until`] reads.
        let next = words.next();
        let time_of_day =
            next.is_some_and(|w| zone::offset_minutes(w).is_some() || matches!(w, "am" | "pm"));
        return (!time_of_day).then(|| clock_length(first)).flatten();
    }
    // "71 more seconds", "5 additional minutes": the word between says the amount is
    // still to come, which the trigger already does.
    // Romanian joins a number from 20 up to its unit with `de` ("60 de secunde").
    // Cebuano joins them with `ka` ("human sa 2 ka minuto").
    let unit = match words.next()? {
        "more" | "additional" | "further" | "de" | "ka" => words.next()?,
        unit => unit,
    };
    languages::unit_of_two(unit, words.next())
        .or_else(|| TimeUnit::from_word(unit))
        .or_else(|| languages::unit_ahead(unit))?
        .decimal(first, MAX_WAIT)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_stated_in_words() {
        let s = Duration::from_secs;
        let cases: &[(&str, Option<Duration>)] = &[
            (
                "Complexity budget exhausted, query cost 30001 budget remaining 19986 out of 1000000 reset in 3 seconds",
                Some(s(3)),
            ),
            ("Rate limit reached. Please try again in 20s.", Some(s(20))),
            ("Please try again in 1m30s", Some(s(90))),
            ("This ban will last 71 more seconds", Some(s(71))),
            ("The block will last 2 more minutes.", Some(s(120))),
            ("Blocked for 5 additional minutes", Some(s(300))),
            ("You sent 1000 requests over the last 24 hours", None),
            (
                "Please try again in 250ms.",
                Some(Duration::from_millis(250)),
            ),
            ("Please retry after 7 seconds.", Some(s(7))),
            // The wait written as a label, Go's duration after it (GitHub Container
            // Registry's throttle), and the label's other spellings.
            (
                "toomanyrequests: retry-after: 880.092µs, allowed: 44000/minute",
                Some(Duration::from_nanos(880_092)),
            ),
            ("retry_after: 2m30s", Some(s(150))),
            ("Rate limited; Retry-After: 45 seconds", Some(s(45))),
            ("wait:1.5s", Some(Duration::from_millis(1500))),
            // A label before a bare number, and words joined by hyphens that are no
            // label of a wait, give nothing.
            ("Retry-After: 30", None),
            ("x-ratelimit-limit: 44000, allowed: 44000/minute", None),
            // A length written as a clock shows it (Azure API Management's quota), but a
            // time of day, or a clock without seconds, is no length.
            (
                "Out of call volume quota. Quota will be replenished in 00:12:34.",
                Some(s(754)),
            ),
            ("Try again in 1:00:00", Some(s(3600))),
            ("Retry after 12:00:00 GMT", None),
            ("Retry after 11:30:00 pm", None),
            ("The window opens in 12:30", None),
            ("Retry in 00:61:00", None),
            ("Wait 2 minutes before retrying", Some(s(120))),
            ("retry after 100000 hours", Some(MAX_WAIT)),
            // Other phrasings of the same: an amount of time after in/after/for/wait.
            (
                "Request was throttled. Expected available in 5 seconds.",
                Some(s(5)),
            ),
            ("You have been blocked for 1 minute.", Some(s(60))),
            ("Too many requests; please wait for 30 seconds", Some(s(30))),
            (
                "Slow down: quota refills after 2.5 seconds",
                Some(Duration::from_millis(2500)),
            ),
            // No number, or a number that is not a wait.
            ("Please wait a few minutes before you try again.", None),
            ("Missing required param: amount 30 seconds", None),
            // A number without a unit, or a trigger inside a word, is not a wait.
            ("Limit of 100 requests for 2026 reached", None),
            ("Quota within 10 seconds window", None),
            ("try again in soon", None),
            ("retry in -5 seconds", None),
            ("", None),
        ];
        for (text, want) in cases {
            assert_eq!(wait_in(text), *want, "{text}");
        }
    }

    /// A length over a day written as .NET writes a `TimeSpan`, its whole days before a
    /// dot (an API management layer's "Quota will be replenished in 2.23:58:11"), is
    /// those days and hours, capped as every wait is; a dot that is not before two
    /// digits of hours under 24 is no such length.
    #[test]
    fn a_length_with_its_whole_days_before_a_dot_is_read_as_days() {
        let s = Duration::from_secs;
        let cases: &[(&str, Option<Duration>)] = &[
            (
                "Out of bandwidth quota. Quota will be replenished in 0.05:06:07.",
                Some(s(5 * 3600 + 6 * 60 + 7)),
            ),
            ("Quota will be replenished in 1.00:00:00.", Some(s(86_400))),
            ("Quota will be replenished in 0.00:00:29.", Some(s(29))),
            (
                "Out of bandwidth quota. Quota will be replenished in 2.23:58:11.",
                Some(MAX_WAIT),
            ),
            ("Quota will be replenished in 1.24:00:00.", None),
            ("Quota will be replenished in 1.5:00:00.", None),
            ("Quota will be replenished in .02:03:04.", None),
        ];
        for (text, want) in cases {
            assert_eq!(wait_in(text), *want, "{text}");
        }
    }

    #[test]
    fn an_instant_after_until_after_or_at_is_a_wait() {
        let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
        let cases: &[(&str, Option<Duration>)] = &[
            (
                "Way too many requests; IP(203.0.113.7) banned until 1748779320000. Please use the websocket.",
                Some(Duration::from_secs(120)),
            ),
            ("Blocked until 1748779260.", Some(Duration::from_secs(60))),
            (
                "Quota exhausted; retry after 2025-06-01T12:05:00Z",
                Some(Duration::from_secs(300)),
            ),
            // crates.io's publish limit names an HTTP-date.
            (
                "You have published too many new crates in a short period of time. Please try again after Sun, 01 Jun 2025 12:10:00 GMT or email help@crates.io to have your limit increased.",
                Some(Duration::from_secs(600)),
            ),
            (
                "Please retry after 01 Jun 2025 12:01:00 GMT.",
                Some(Duration::from_secs(60)),
            ),
            // A time of day with its zone is the next such time: FedEx's daily quota,
            // and other ways of writing one.
            (
                "Too many requests - Daily transaction quota exceeded. Retry after 12:00AM GMT",
                Some(Duration::from_secs(12 * 3600)),
            ),
            (
                "Quota resets; try again after 3:30 pm UTC.",
                Some(Duration::from_secs(3 * 3600 + 1800)),
            ),
            (
                "Blocked until 11:00 UTC",
                Some(Duration::from_secs(23 * 3600)),
            ),
            ("retry after 12:15PM GMT", Some(Duration::from_secs(900))),
            // Without a zone whose clock it is cannot be told; nor is 13 PM a time.
            ("retry after 12:15 PM", None),
            ("retry after 13:00PM GMT", None),
            ("retry after 12:75 UTC", None),
            // An instant to come back at, with or without its zone (Outreach's throttle).
            (
                "You have exceeded your permitted rate limit of 10,000; please try again at 2025-06-01T12:20:00.",
                Some(Duration::from_secs(1200)),
            ),
            (
                "Quota spent. Retry at 2025-06-01T13:00:00Z",
                Some(Duration::from_secs(3600)),
            ),
            (
                "Calls resume at 12:30 UTC.",
                Some(Duration::from_secs(1800)),
            ),
            // What happened at a time past, or a count at a place, is no wait.
            ("Limit exceeded at 2025-06-01T11:59:00Z", None),
            ("Stopped at 100 requests", None),
            // Past instants, counts and short numbers are no wait.
            ("try again after Sun, 01 Jun 2025 11:00:00 GMT", None),
            ("after Sun, 01 Jun", None),
            ("banned until 1748779100000", None),
            ("wait until 100 requests have drained", None),
            ("retry after 30", None),
            ("until 2026", None),
        ];
        for (text, want) in cases {
            assert_eq!(wait_until(text, now), *want, "{text}");
        }
    }

    #[test]
    fn waits_the_message_tells_the_caller_to_keep() {
        let s = Duration::from_secs;
        let cases: &[(&str, Option<Duration>)] = &[
            // Market Data's 403 for a key used from two addresses.
            (
                "Access denied. Only one device is permitted. Your account is temporarily blocked for security reasons. Please wait 5 minutes before trying again.",
                Some(s(300)),
            ),
            ("Account locked. Try again in 90 seconds.", Some(s(90))),
            // A label tells the wait; a parameter echoed with its value does not.
            ("toomanyrequests: retry-after: 2s", Some(s(2))),
            ("Invalid value for max-wait=30s: must be at most 10s", None),
            (
                "An export is already running; retry after 2 minutes.",
                Some(s(120)),
            ),
            ("Wait for 30s, then resend the code.", Some(s(30))),
            // Waiting named as the means: SEC.gov's traffic page, and the same said after.
            (
                "The block will be lifted automatically by waiting 10 minutes.",
                Some(s(600)),
            ),
            ("Access returns after waiting 45 seconds.", Some(s(45))),
            ("We are waiting 5 minutes for the upstream.", None),
            // When something happens is no instruction to wait.
            ("The confirmation link expires in 10 minutes.", None),
            ("This token is valid for 1 hour.", None),
            ("Blocked for 1 minute.", None),
            ("Please wait a few minutes.", None),
        ];
        for (text, want) in cases {
            assert_eq!(told_to_wait(text), *want, "{text}");
        }
    }

    #[test]
    fn waits_written_in_the_digits_of_other_scripts() {
        let s = Duration::from_secs;
        let cases: &[(&str, Option<Duration>)] = &[
            ("لطفاً ۴۵ ثانیه صبر کنید", Some(s(45))),
            ("يرجى المحاولة بعد ٢ دقيقة", Some(s(120))),
            ("يرجى المحاولة بعد ٠٫٥ دقيقة", Some(s(30))),
            ("कृपया १५ सेकंड प्रतीक्षा करें", Some(s(15))),
            ("১০ সেকেন্ড পরে আবার চেষ্টা করুন", Some(s(10))),
            ("ลองใหม่อีกครั้งใน ๓๐ วินาที", Some(s(30))),
            ("３０초 후에 다시 시도해 주세요", Some(s(30))),
            ("Retry in ２０ seconds", Some(s(20))),
            // A digit of another script is still a number without a unit.
            ("يرجى المحاولة بعد ٣٠", None),
            ("درخواست ۱۲۳ ثبت شد", None),
        ];
        for (text, want) in cases {
            assert_eq!(wait_in(text), *want, "{text}");
        }
    }
    #[test]
    fn a_time_of_day_with_its_zone_after_another_languages_word_is_a_wait() {
        let now = DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "Trop de requêtes. Réessayez après 14h00 UTC.",
                Some(s(7200)),
            ),
            ("Trop de requêtes. Réessayez à 14h GMT.", Some(s(7200))),
            (
                "Bitte versuchen Sie es nach 14:00 UTC erneut.",
                Some(s(7200)),
            ),
            ("Tente novamente após 14:00 UTC.", Some(s(7200))),
            ("Vui lòng thử lại sau 14:00 UTC.", Some(s(7200))),
            ("Inténtelo después de las 15:00 UTC.", Some(s(10_800))),
            ("Probeer het na 13:30 UTC opnieuw.", Some(s(5400))),
            ("Spróbuj ponownie po 14:00 UTC.", Some(s(7200))),
            ("Повторите после 14:00 UTC.", Some(s(7200))),
            ("Riprova dopo le 14:00 UTC.", Some(s(7200))),
            // An hour already past is tomorrow's.
            ("Réessayez après 11h00 UTC.", Some(s(23 * 3600))),
            // Without a zone whose clock it is cannot be told.
            ("Réessayez après 14h00.", None),
            ("Bitte nach 14:00 erneut versuchen.", None),
        ] {
            assert_eq!(wait_until(text, now), want, "{text}");
        }
    }

    #[test]
    fn a_time_of_day_in_a_named_zone_or_an_offset_from_utc_is_a_wait() {
        let now = DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let s = Duration::from_secs;
        for (text, want) in [
            ("Réessayez à 15:00 CET.", Some(s(7200))),
            ("Повторите после 16:00 МСК", Some(s(3600))),
            ("Повторите после 14:00 (МСК)", Some(s(23 * 3600))),
            ("Yritä uudelleen klo 14.00 UTC", Some(s(7200))),
            ("Prøv igen kl. 16.00 CEST", Some(s(7200))),
            ("Try again at 14:00 UTC+3", Some(s(23 * 3600))),
            ("Retry after 9:00 AM PDT", Some(s(4 * 3600))),
            ("Quota resets at 00:00 GMT-03:00", Some(s(15 * 3600))),
            // A name several zones share names none.
            ("Retry after 14:00 CST", None),
            ("Retry after 14:00 IST", None),
        ] {
            assert_eq!(wait_until(text, now), want, "{text}");
        }
    }

    #[test]
    fn a_time_of_day_with_its_zone_before_a_word_for_after_is_a_wait() {
        let now = DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        let s = Duration::from_secs;
        for (text, want) in [
            (
                "Lütfen 16:00 UTC'den sonra tekrar deneyin.",
                Some(s(4 * 3600)),
            ),
            ("Lütfen 16:00 TRT'den sonra tekrar deneyin.", Some(s(3600))),
            (
                "Lütfen 17:00'dan (UTC+3) sonra tekrar deneyin.",
                Some(s(7200)),
            ),
            ("Yritä uudelleen klo 16.00 UTC jälkeen.", Some(s(4 * 3600))),
            ("Próbálja újra 16:00 CET után.", Some(s(3 * 3600))),
            ("Proovige uuesti 16:00 UTC pärast.", Some(s(4 * 3600))),
            // Without its zone whose clock it is cannot be told, with or without the
            // ending; an hour with no minutes is none either.
            ("Lütfen 16:00'dan sonra tekrar deneyin.", None),
            ("Lütfen saat 5'ten sonra tekrar deneyin.", None),
            ("Yritä uudelleen klo 16:00 jälkeen.", None),
            ("Próbálja újra 16:00 után.", None),
            ("Lütfen 5 dakika sonra tekrar deneyin.", None),
        ] {
            assert_eq!(wait_until(text, now), want, "{text}");
        }
        // The clock is no duration for the readers of amounts either.
        assert_eq!(wait_in("Lütfen 16:00'dan sonra tekrar deneyin."), None);
        assert_eq!(wait_in("Lütfen saat 5'ten sonra tekrar deneyin."), None);
    }
}
