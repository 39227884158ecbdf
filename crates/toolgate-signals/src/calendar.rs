//! Calendar dates and zones written the ways people and their locales write them, beside
//! the machine forms [`crate::reset::parse_timestamp`] reads first.
//!
//! A `Sunset` header, a reset or a notice's end date is sometimes formatted for people:
//! under a server's locale (Java's `DateTimeFormatter` with `Locale("pl")` writes
//! `31 grudnia 2025`, `Locale.JAPAN` writes `2025年12月31日`), with its local zone's name
//! (`Wed, 31 Dec 2025 12:00:00 PST`, RFC 5322 §4.3's obsolete zones), in ISO 8601's
//! basic or week forms (`20251231T235959Z`, `2026-W01-1`) or as a numeric date
//! (`31.12.2025`, `12/31/2025`). Each is read here only when what it means is certain:
//!
//! - a numeric date with dots is day first, as every locale that writes dots does;
//!   one with `/` or `-` is read only when its order cannot be mistaken (one of its
//!   first two numbers is over 12, or both are the same): `05/11/2025` is refused;
//! - a zone name is read only when it names one offset (`IST` is India's, Ireland's
//!   and Israel's, so it is refused; `CST` is read as RFC 5322 defines it);
//! - a month's name is read in the languages of [`MONTHS`], in the form a date uses
//!   (the genitive: Russian `декабря`, Polish `grudnia`, Greek `Δεκεμβρίου`).
//!
//! Every date without a time starts at midnight UTC. Nothing here reads the clock.

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// Months by name, lowercase, January first; each entry lists the names one month has
/// in a date: German, French, Spanish, Portuguese, Italian, Dutch, Swedish, Polish,
/// Czech, Russian, Ukrainian, Turkish, Greek, Arabic, Hebrew, Indonesian, Malay,
/// Romanian, Danish and Norwegian. English is read by
/// [`crate::reset`] itself.
const MONTHS: [&[&str]; 12] = [
    &[
        "januar",
        "janvier",
        "enero",
        "janeiro",
        "gennaio",
        "januari",
        "stycznia",
        "ledna",
        "января",
        "січня",
        "ocak",
        "ιανουαρίου",
        "يناير",
        "ינואר",
        "ianuarie",
    ],
    &[
        "februar",
        "février",
        "febrero",
        "fevereiro",
        "febbraio",
        "februari",
        "lutego",
        "února",
        "февраля",
        "лютого",
        "şubat",
        "φεβρουαρίου",
        "فبراير",
        "פברואר",
        "februarie",
    ],
    &[
        "märz",
        "mars",
        "marzo",
        "março",
        "maart",
        "marca",
        "března",
        "марта",
        "березня",
        "mart",
        "μαρτίου",
        "مارس",
        "מרץ",
        "maret",
        "mac",
        "martie",
        "marts",
    ],
    &[
        "april",
        "avril",
        "abril",
        "aprile",
        "kwietnia",
        "dubna",
        "апреля",
        "квітня",
        "nisan",
        "απριλίου",
        "أبريل",
        "אפריל",
        "aprilie",
    ],
    &[
        "mai",
        "mayo",
        "maio",
        "maggio",
        "mei",
        "maj",
        "maja",
        "května",
        "мая",
        "травня",
        "mayıs",
        "μαΐου",
        "مايو",
        "מאי",
    ],
    &[
        "juni",
        "juin",
        "junio",
        "junho",
        "giugno",
        "czerwca",
        "června",
        "июня",
        "червня",
        "haziran",
        "ιουνίου",
        "يونيو",
        "יוני",
        "iunie",
    ],
    &[
        "juli",
        "juillet",
        "julio",
        "julho",
        "luglio",
        "lipca",
        "července",
        "июля",
        "липня",
        "temmuz",
        "ιουλίου",
        "يوليو",
        "יולי",
        "iulie",
    ],
    &[
        "august",
        "août",
        "agosto",
        "augusti",
        "augustus",
        "sierpnia",
        "srpna",
        "августа",
        "серпня",
        "ağustos",
        "αυγούστου",
        "أغسطس",
        "אוגוסט",
        "agustus",
        "ogos",
    ],
    &[
        "september",
        "septembre",
        "septiembre",
        "setembro",
        "settembre",
        "września",
        "září",
        "сентября",
        "вересня",
        "eylül",
        "σεπτεμβρίου",
        "سبتمبر",
        "ספטמבר",
        "septembrie",
    ],
    &[
        "oktober",
        "octobre",
        "octubre",
        "outubro",
        "ottobre",
        "października",
        "října",
        "октября",
        "жовтня",
        "ekim",
        "οκτωβρίου",
        "أكتوبر",
        "אוקטובר",
        "octombrie",
    ],
    &[
        "november",
        "novembre",
        "noviembre",
        "novembro",
        "listopada",
        "listopadu",
        "ноября",
        "листопада",
        "kasım",
        "νοεμβρίου",
        "نوفمبر",
        "נובמבר",
        "noiembrie",
    ],
    &[
        "dezember",
        "décembre",
        "diciembre",
        "dezembro",
        "dicembre",
        "december",
        "grudnia",
        "prosince",
        "декабря",
        "грудня",
        "aralık",
        "δεκεμβρίου",
        "ديسمبر",
        "דצמבר",
        "desember",
        "disember",
        "decembrie",
    ],
];

/// The month (1–12) a word names in one of [`MONTHS`]' languages. Hebrew writes "in"
/// as a letter glued to the month (`בדצמבר`, "in December"), so that letter is dropped.
pub(crate) fn month_by_name(word: &str) -> Option<u32> {
    let lower = word.trim_end_matches('.').to_lowercase();
    let find = |w: &str| MONTHS.iter().position(|names| names.contains(&w));
    let at = find(&lower).or_else(|| lower.strip_prefix('ב').and_then(find))?;
    u32::try_from(at + 1).ok()
}

/// Words a day, a month and a year may be separated by: Spanish and Portuguese `de`,
/// Italian `del`, Vietnamese `ngày` (day), `năm` (year).
const FILLERS: [&str; 4] = ["de", "del", "ngày", "năm"];

/// A date that starts the words `w`: a day, its month's name and a four-digit year
/// (`31 grudnia 2025`, `31. prosince 2025`, `ב-31 בדצמבר 2025`), or Vietnamese's day,
/// `tháng` and the month's number (`31 tháng 12 năm 2025`). Returns the date and the
/// words it took.
fn date_at_words(w: &[&str]) -> Option<(NaiveDate, usize)> {
    let day_word = w
        .first()?
        .trim_start_matches(['ב', '-'])
        .trim_end_matches('.');
    if day_word.is_empty() || day_word.len() > 2 {
        return None;
    }
    let day: u32 = day_word.parse().ok()?;
    let (month, taken) = if w.get(1)?.to_lowercase() == "tháng" {
        let m = w.get(2)?.trim_end_matches(',');
        if m.len() > 2 {
            return None;
        }
        (m.parse().ok()?, 3)
    } else {
        (month_by_name(w.get(1)?.trim_end_matches(','))?, 2)
    };
    let year = w.get(taken)?.trim_end_matches(['.', ';', ')', ',']);
    if year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let date = NaiveDate::from_ymd_opt(year.parse().ok()?, month, day)?;
    Some((date, taken + 1))
}

/// The words of `s` a written date is looked for in, fillers dropped.
fn words(s: &str, max: usize) -> Vec<&str> {
    s.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty() && !FILLERS.contains(&w.to_lowercase().as_str()))
        .take(max)
        .collect()
}

/// The first date written with its month's name among the first `max_words` words of
/// `s`, at midnight UTC.
pub(crate) fn first_named_month_date(s: &str, max_words: usize) -> Option<DateTime<Utc>> {
    let w = words(s, max_words);
    (0..w.len())
        .find_map(|i| date_at_words(&w[i..]))
        .and_then(|(d, _)| midnight(d))
}

/// A value that is only a date with its month's name (a `Sunset` written under a
/// locale), its year's abbreviation after it allowed (Russian `г.`, Polish `r.`).
pub(crate) fn named_month_date(v: &str) -> Option<DateTime<Utc>> {
    let w = words(v, 8);
    let (date, taken) = date_at_words(&w)?;
    let rest = &w[taken..];
    let year_mark = |t: &str| ["г.", "г", "r.", "року", "roku", "года"].contains(&t);
    (rest.is_empty() || (rest.len() == 1 && year_mark(rest[0])))
        .then(|| midnight(date))
        .flatten()
}

fn midnight(d: NaiveDate) -> Option<DateTime<Utc>> {
    Some(d.and_hms_opt(0, 0, 0)?.and_utc())
}

/// A numeric date whose order is certain: `31.12.2025` (dots are written day first),
/// `12/31/2025` and `31/12/2025` (a number over 12 is the day), `01-01-2026` (the same
/// number either way). `05/11/2025` could be May or November and is refused.
pub(crate) fn numeric_date(v: &str) -> Option<DateTime<Utc>> {
    let sep = v.chars().find(|c| matches!(c, '.' | '/' | '-'))?;
    let parts: Vec<&str> = v.split(sep).collect();
    let [a, b, year] = parts.as_slice() else {
        return None;
    };
    let small = |t: &str| (1..=2).contains(&t.len()) && t.bytes().all(|b| b.is_ascii_digit());
    if !small(a) || !small(b) || year.len() != 4 || !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
    let (day, month) = match sep {
        '.' => (a, b),
        _ if a == b => (a, b),
        _ if a > 12 && b <= 12 => (a, b),
        _ if b > 12 && a <= 12 => (b, a),
        _ => return None,
    };
    midnight(NaiveDate::from_ymd_opt(year.parse().ok()?, month, day)?)
}

/// ISO 8601's basic format: `20251231`, `20251231T235959Z`, `20251231T235959+0900`.
pub(crate) fn iso_basic(v: &str) -> Option<DateTime<Utc>> {
    let (date, time) = match v.split_once(['T', 't']) {
        Some((d, t)) => (d, Some(t)),
        None => (v, None),
    };
    if date.len() != 8 || !date.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let day = NaiveDate::parse_from_str(date, "%Y%m%d").ok()?;
    let Some(time) = time else {
        return midnight(day);
    };
    let (clock, offset) = match time.find(['Z', 'z', '+', '-']) {
        Some(at) => (&time[..at], &time[at..]),
        None => return None,
    };
    if !(clock.len() == 6 || clock.len() == 4) || !clock.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let clock = if clock.len() == 4 {
        format!("{clock}00")
    } else {
        clock.to_owned()
    };
    let naive = NaiveDateTime::parse_from_str(&format!("{date}{clock}"), "%Y%m%d%H%M%S").ok()?;
    let offset_secs = if offset.eq_ignore_ascii_case("z") {
        0
    } else {
        let sign = if offset.starts_with('-') { -1 } else { 1 };
        let digits = offset[1..].replace(':', "");
        if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let h: i32 = digits[..2].parse().ok()?;
        let m: i32 = digits[2..].parse().ok()?;
        if h > 23 || m > 59 {
            return None;
        }
        sign * (h * 3600 + m * 60)
    };
    Utc.from_utc_datetime(&naive)
        .checked_sub_signed(chrono::TimeDelta::seconds(i64::from(offset_secs)))
}

/// An ISO 8601 week date, `2026-W01-1` (the Monday of 2026's first week, 29 December
/// 2025), `2026W011`, or a week alone, `2026-W01`, meaning its Monday.
pub(crate) fn iso_week_date(v: &str) -> Option<DateTime<Utc>> {
    let compact: String = v.chars().filter(|c| *c != '-').collect();
    let (year, rest) = compact.split_once(['W', 'w'])?;
    if year.len() != 4 || !(rest.len() == 2 || rest.len() == 3) {
        return None;
    }
    if !year.bytes().chain(rest.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let week: u32 = rest[..2].parse().ok()?;
    let weekday = match rest.get(2..) {
        Some(d) if !d.is_empty() => d.parse::<u8>().ok()?,
        _ => 1,
    };
    let weekday = match weekday {
        1 => chrono::Weekday::Mon,
        2 => chrono::Weekday::Tue,
        3 => chrono::Weekday::Wed,
        4 => chrono::Weekday::Thu,
        5 => chrono::Weekday::Fri,
        6 => chrono::Weekday::Sat,
        7 => chrono::Weekday::Sun,
        _ => return None,
    };
    midnight(NaiveDate::from_isoywd_opt(
        year.parse().ok()?,
        week,
        weekday,
    )?)
}

/// A date written with the year's, month's and day's marks of Chinese, Japanese and
/// Korean (`2025年12月31日`, `2025년 12월 31일`), optionally followed by a time and
/// `UTC` (`2025年06月01日 12:05:00 UTC`). A time without a zone is not read.
pub(crate) fn marked_date(v: &str) -> Option<DateTime<Utc>> {
    let mut numbers = [0u32; 3];
    let mut rest = v;
    for (i, marks) in [['年', '년'], ['月', '월'], ['日', '일']]
        .iter()
        .enumerate()
    {
        let at = rest.find(|c: char| marks.contains(&c))?;
        let digits = rest[..at].trim();
        if digits.is_empty() || digits.len() > 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        numbers[i] = digits.parse().ok()?;
        let mark_len = rest[at..].chars().next()?.len_utf8();
        rest = &rest[at + mark_len..];
    }
    let [year, month, day] = numbers;
    let date = NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?;
    let rest = rest.trim();
    if rest.is_empty() {
        return midnight(date);
    }
    let clock = rest
        .strip_suffix("UTC")
        .or_else(|| rest.strip_suffix("GMT"))?
        .trim();
    let time = chrono::NaiveTime::parse_from_str(clock, "%H:%M:%S").ok()?;
    Some(date.and_time(time).and_utc())
}

/// Seconds east of UTC for a zone's name that names one offset: RFC 5322 §4.3's
/// obsolete US zones (`EST` … `PDT`) and the names Central European, Eastern European,
/// Moscow, Japanese, Korean, Hong Kong, Singapore, Australian Eastern and New Zealand
/// time give dates. `IST`, `BST` and the like name several zones and are refused.
pub(crate) fn named_zone_offset(z: &str) -> Option<i32> {
    const ZONES: [(&str, i32); 24] = [
        ("est", -5),
        ("edt", -4),
        ("cst", -6),
        ("cdt", -5),
        ("mst", -7),
        ("mdt", -6),
        ("pst", -8),
        ("pdt", -7),
        ("akst", -9),
        ("akdt", -8),
        ("hst", -10),
        ("wet", 0),
        ("west", 1),
        ("cet", 1),
        ("cest", 2),
        ("eet", 2),
        ("eest", 3),
        ("msk", 3),
        ("jst", 9),
        ("kst", 9),
        ("hkt", 8),
        ("sgt", 8),
        ("aest", 10),
        ("aedt", 11),
    ];
    let lower = z.to_ascii_lowercase();
    ZONES
        .iter()
        .find(|(name, _)| *name == lower)
        .map(|(_, hours)| hours * 3600)
}

/// An end written relative to the day it is read, as notices for people word it:
/// `tomorrow`, `in 30 days` (days, weeks or months), `next Monday`, `the end of the
/// month` (or `quarter`, `year`), at the start of `s`. The day is `now`'s in UTC; an end
/// "at the end of" a period is its last day. `None` for anything else, so a notice read
/// at another instant never gets a date it did not state.
pub(crate) fn relative_day(s: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let lower = s.trim_start().to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || matches!(c, ',' | '.' | ';' | ')'))
        .filter(|w| !w.is_empty())
        .take(6)
        .collect();
    let today = now.date_naive();
    let day = match words.as_slice() {
        ["tomorrow", ..] => today.succ_opt()?,
        ["in", n, unit, ..] => {
            let n: u32 = match *n {
                "a" | "an" | "one" => 1,
                n if n.len() <= 3 => n.parse().ok()?,
                _ => return None,
            };
            match unit.trim_end_matches('s') {
                "day" => today.checked_add_days(chrono::Days::new(u64::from(n)))?,
                "week" => today.checked_add_days(chrono::Days::new(u64::from(n) * 7))?,
                "month" => today.checked_add_months(chrono::Months::new(n))?,
                _ => return None,
            }
        }
        ["next", name, ..] => {
            let target = weekday_named(name)?;
            let mut d = today.succ_opt()?;
            while d.weekday() != target {
                d = d.succ_opt()?;
            }
            d
        }
        [first, rest @ ..] if *first == "the" || *first == "end" => {
            let rest = if *first == "the" { rest } else { &words[..] };
            let ["end", "of", tail @ ..] = rest else {
                return None;
            };
            let period = match tail {
                ["the" | "this", p, ..] | [p, ..] => *p,
                [] => return None,
            };
            last_day_of(period, today)?
        }
        _ => return None,
    };
    Some(day.and_hms_opt(0, 0, 0)?.and_utc())
}

/// The last day of the month, quarter or year `today` is in.
fn last_day_of(period: &str, today: NaiveDate) -> Option<NaiveDate> {
    let (year, month) = (today.year(), today.month());
    let last_month = match period {
        "month" => month,
        "quarter" => month.div_ceil(3) * 3,
        "year" => 12,
        _ => return None,
    };
    let first_after = if last_month == 12 {
        NaiveDate::from_ymd_opt(year + 1, 1, 1)?
    } else {
        NaiveDate::from_ymd_opt(year, last_month + 1, 1)?
    };
    first_after.pred_opt()
}

fn weekday_named(name: &str) -> Option<chrono::Weekday> {
    use chrono::Weekday::{Fri, Mon, Sat, Sun, Thu, Tue, Wed};
    Some(match name {
        "monday" => Mon,
        "tuesday" => Tue,
        "wednesday" => Wed,
        "thursday" => Thu,
        "friday" => Fri,
        "saturday" => Sat,
        "sunday" => Sun,
        _ => return None,
    })
}

/// ISO 8601's comma before a second's fraction (`2025-06-01T12:00:30,500Z`, ISO 8601-1
/// §3.2.6), read as the dot RFC 3339 writes.
pub(crate) fn comma_fraction(v: &str) -> Option<String> {
    let (date, time) = v.split_once(['T', 't', ' '])?;
    let comma = time.find(',')?;
    let before = &time[..comma];
    let after = time[comma + 1..].chars().next()?;
    (before.matches(':').count() == 2 && after.is_ascii_digit())
        .then(|| format!("{date}T{before}.{}", &time[comma + 1..]))
}

#[cfg(test)]
mod tests;
