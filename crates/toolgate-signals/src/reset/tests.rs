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
        // Past a month no delta is seconds: milliseconds (11.6 days here).
        ("999999999", Some(ms(999_999_999))),
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
fn lenient_http_dates_where_real_servers_are_not_strict() {
    let now = Utc.with_ymd_and_hms(2026, 12, 1, 0, 0, 0).unwrap();
    let t = |y, mo, d, h, mi, s| Some(Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap());
    let cases: &[(&str, Option<DateTime<Utc>>)] = &[
        // The three RFC 9110 §5.6.7 forms, from its own examples.
        ("Sun, 06 Nov 1994 08:49:37 GMT", t(1994, 11, 6, 8, 49, 37)),
        ("Sunday, 06-Nov-94 08:49:37 GMT", t(1994, 11, 6, 8, 49, 37)),
        ("Sun Nov  6 08:49:37 1994", t(1994, 11, 6, 8, 49, 37)),
        // RFC 9745 §5's Sunset example ends in UTC, not GMT.
        ("Sun, 30 Jun 2024 23:59:59 UTC", t(2024, 6, 30, 23, 59, 59)),
        // other zone spellings: Z, UT, numeric offsets (applied)
        ("Sun, 30 Jun 2024 23:59:59 Z", t(2024, 6, 30, 23, 59, 59)),
        ("Sun, 30 Jun 2024 23:59:59 UT", t(2024, 6, 30, 23, 59, 59)),
        (
            "Sun, 30 Jun 2024 23:59:59 +0000",
            t(2024, 6, 30, 23, 59, 59),
        ),
        (
            "Mon, 01 Jul 2024 01:59:59 +02:00",
            t(2024, 6, 30, 23, 59, 59),
        ),
        (
            "Sun, 30 Jun 2024 18:59:59 -0500",
            t(2024, 6, 30, 23, 59, 59),
        ),
        ("sun, 30 jun 2024 23:59:59 gmt", t(2024, 6, 30, 23, 59, 59)),
        // missing weekday, wrong weekday (RFC 8594's "Sat, 31 Dec 2018" was a Monday)
        ("30 Jun 2024 23:59:59 GMT", t(2024, 6, 30, 23, 59, 59)),
        ("Sat, 31 Dec 2018 23:59:59 GMT", t(2018, 12, 31, 23, 59, 59)),
        ("Fri, 1 Jan 2027 00:00:00 GMT", t(2027, 1, 1, 0, 0, 0)),
        // two-digit years, RFC 9110's 50-year rule from now = 2026
        (
            "Thursday, 31-Dec-26 23:59:59 GMT",
            t(2026, 12, 31, 23, 59, 59),
        ),
        (
            "Friday, 31-Dec-76 23:59:59 GMT",
            t(2076, 12, 31, 23, 59, 59),
        ),
        (
            "Friday, 31-Dec-77 23:59:59 GMT",
            t(1977, 12, 31, 23, 59, 59),
        ),
        ("Fri, 31 Dec 99 23:59:59 GMT", t(1999, 12, 31, 23, 59, 59)),
        // full day and month names, as in Microsoft Graph's deprecation guidelines
        // (microsoft/api-guidelines graph/articles/deprecation.md), leading space and all
        (
            " Thursday, 30 June 2024 23:59:59 GMT",
            t(2024, 6, 30, 23, 59, 59),
        ),
        (
            "Wednesday, 30 September 2026 00:00:00 GMT",
            t(2026, 9, 30, 0, 0, 0),
        ),
        ("Sun November 6 08:49:37 1994", t(1994, 11, 6, 8, 49, 37)),
        // a prefix of a month name is not a month
        ("Mon, 01 Sept 2013 17:47:53 GMT", None),
        ("Mon, 01 Ju 2013 17:47:53 GMT", None),
        // a zone name that names one offset: RFC 5322's US zones, Central Europe's
        ("Mon, 01 Jul 2013 17:47:53 CEST", t(2013, 7, 1, 15, 47, 53)),
        ("Mon, 01 Jul 2013 10:47:53 PDT", t(2013, 7, 1, 17, 47, 53)),
        // asctime without a weekday, and with a zone
        ("Nov  6 08:49:37 1994", t(1994, 11, 6, 8, 49, 37)),
        ("Sun Nov 6 08:49:37 1994 GMT", t(1994, 11, 6, 8, 49, 37)),
        // refused: impossible dates and times, unknown zones, junk
        ("Mon, 31 Jun 2013 17:47:53 GMT", None),
        ("Mon, 01 Jul 2013 24:00:00 GMT", None),
        // A zone name that names several zones (India's, Ireland's, Israel's).
        ("Mon, 01 Jul 2013 17:47:53 IST", None),
        ("Mon, 01 Jul 2013 17:47 GMT", None),
        ("Mon, 01 Jul 213 17:47:53 GMT", None),
        ("Mon, 01 Juli 2013 17:47:53 GMT", None),
        ("Mon, 01 Jul 2013 17:47:53 +2400", None),
        ("Mon, 01 Jul 2013 17:47:53 +1é2", None),
        ("Mon, 01 Jul 2013 17:47:53 -é00", None),
        ("Funday, 01 Jul 2013 17:47:53 GMT", None),
        ("", None),
        ("1 2 3 4 5 6 7 8", None),
    ];
    for (input, want) in cases {
        assert_eq!(http_date(input, now), *want, "{input:?}");
    }
    // Every HTTP-date the crate reads goes through this parser: Retry-After, resets.
    let soon = "Tue, 01 Dec 2026 00:01:00 UTC";
    assert_eq!(
        crate::retry_after::parse(soon.as_bytes(), now),
        Some(Duration::from_secs(60))
    );
    assert_eq!(parse(soon.as_bytes(), now), Some(Duration::from_secs(60)));
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

#[test]
fn deltas_in_milliseconds_by_magnitude_and_shape() {
    let now = at(1_748_779_200);
    let s = Duration::from_secs;
    let ms = Duration::from_millis;
    let cases: &[(&str, Duration)] = &[
        // A day or less: seconds, whatever the shape (Feedly's 23841, KuCoin's 29963 ms
        // countdown is indistinguishable and stays seconds).
        ("86400", s(86_400)),
        ("60000", s(60_000)),
        ("29963", s(29_963)),
        // Between a day and a month: a whole number of seconds in ms is ms
        // (Prisjakt's 600000), unless it is also whole hours in seconds.
        ("600000", s(600)),
        ("90000000", s(90_000)),
        ("2592000", s(2_592_000)),
        ("604800", s(604_800)),
        ("172800", s(172_800)),
        ("2163603", s(2_163_603)), // RapidAPI's monthly countdown
        ("1419704", s(1_419_704)), // Brave's
        ("86401", s(86_401)),
        ("600000.5", s(600_000) + ms(500)),
        // Past a month: milliseconds.
        ("3600000", s(3600)),
        ("2678401", ms(2_678_401)),
        ("86400000", s(86_400)),
        ("999999000", s(999_999)),
    ];
    for (input, want) in cases {
        assert_eq!(parse(input.as_bytes(), now), Some(*want), "{input:?}");
    }
}

#[test]
fn a_countdown_on_the_reply_that_opened_its_window_is_read_by_the_window_it_fits() {
    // KuCoin: 29963 ms, just under thirty seconds; as seconds, eight hours twenty.
    assert_eq!(
        opening_countdown(29_963),
        Some(Duration::from_millis(29_963))
    );
    assert_eq!(
        opening_countdown(59_990),
        Some(Duration::from_millis(59_990))
    );
    // A day's countdown in seconds on an opening reply is just under a day: seconds.
    assert_eq!(opening_countdown(86_399), None);
    assert_eq!(opening_countdown(43_190), None);
    // Nothing a common window is just over: not decided here.
    assert_eq!(opening_countdown(25_000), None);
    assert_eq!(opening_countdown(31_000), None);
    // An hour or less stays seconds; past a day, `parse` decides.
    assert_eq!(opening_countdown(3_599), None);
    assert_eq!(opening_countdown(3_600), None);
    assert_eq!(opening_countdown(119_990), None);
}

#[test]
fn year_first_dates_with_slashes_month_names_and_zone_names() {
    let now = at(1_748_779_200); // 2025-06-01T12:00:00Z
    let t = |v: &str| parse_timestamp(v, now).map(|t| t.timestamp());
    // SoundCloud's reset_time and WSO2's nextAccessTime.
    assert_eq!(t("2015/06/01 09:49:40 +0000"), Some(1_433_152_180));
    assert_eq!(t("2021-Mar-30 05:51:00+0000 UTC"), Some(1_617_083_460));
    // The same shapes with another offset, a zone name alone, fractions.
    assert_eq!(t("2025/06/01 14:00:00 +0200"), Some(1_748_779_200));
    assert_eq!(t("2025-Jun-01 12:00:30 GMT"), Some(1_748_779_230));
    assert_eq!(t("2025/06/01 12:00:00.500 UTC"), Some(1_748_779_200));
    // No zone at all, a day first, a two-digit year, a month out of range: not read.
    assert_eq!(t("2025/06/01 12:00:00"), None);
    assert_eq!(t("01/06/2025 12:00:00 +0000"), None);
    assert_eq!(t("25/06/01 12:00:00 +0000"), None);
    assert_eq!(t("2025/13/01 12:00:00 +0000"), None);
    assert_eq!(t("2025-Foo-01 12:00:00 UTC"), None);
}

/// Dates written out for people, month by name in either order, are read as midnight
/// UTC; a number in the month's place, or a day the month does not have, is not a date.
#[test]
fn written_dates() {
    use chrono::TimeZone;
    let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
    let day = |y, m, d| Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap();
    for (text, want) in [
        ("January 31, 2022", day(2022, 1, 31)),
        ("Jan. 31, 2022", day(2022, 1, 31)),
        ("31 January 2022", day(2022, 1, 31)),
        ("March 1st, 2026", day(2026, 3, 1)),
        ("22nd Sep 2025", day(2025, 9, 22)),
        // After a day's name: an HTTP-date without its time, a US long form.
        ("Mon, 15 Sep 2025", day(2025, 9, 15)),
        ("Tuesday, March 3, 2026", day(2026, 3, 3)),
        ("Fri 31 Oct 2025", day(2025, 10, 31)),
    ] {
        assert_eq!(parse_timestamp(text, now), Some(want), "{text}");
    }
    for text in [
        "31 13 2022",
        "February 30, 2026",
        "January 2022",
        "June 1, 26",
        "Jan 31 2022 extra",
        "Mon, 15 Sep",
        "Soon, 15 Sep 2025",
        "Mon, Tue, 15 Sep 2025",
    ] {
        assert_eq!(parse_timestamp(text, now), None, "{text}");
    }
}

#[test]
fn the_us_long_form_on_a_twelve_hour_clock() {
    let now = Utc.with_ymd_and_hms(2017, 6, 5, 12, 0, 0).unwrap();
    let t = |y, mo, d, h, mi, s| Some(Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap());
    let cases: &[(&str, Option<DateTime<Utc>>)] = &[
        // Mashery's `X-Plan-Quota-Reset`, as adidas's API guidelines print it.
        (
            "Tuesday, June 6, 2017 12:00:00 AM GMT",
            t(2017, 6, 6, 0, 0, 0),
        ),
        (
            "Friday, January 3, 2025 3:30:00 PM UTC",
            t(2025, 1, 3, 15, 30, 0),
        ),
        ("June 6, 2017 12:15:00 PM", t(2017, 6, 6, 12, 15, 0)),
        ("Jun 6, 2017 11:59:59 pm +0200", t(2017, 6, 6, 21, 59, 59)),
        ("June 6, 2017 18:00:00 GMT", t(2017, 6, 6, 18, 0, 0)),
        // A twelve-hour clock has no hour 0 or 13; the meridiem follows the time.
        ("June 6, 2017 13:00:00 PM GMT", None),
        ("June 6, 2017 0:00:00 AM GMT", None),
        ("AM June 6, 2017 10:00:00 GMT", None),
    ];
    for (text, want) in cases {
        assert_eq!(http_date(text, now), *want, "{text}");
    }
    assert_eq!(
        parse_str("Tuesday, June 6, 2017 12:00:00 AM GMT", now),
        Some(Duration::from_secs(43_200))
    );
}

#[test]
fn an_http_date_written_under_another_locale_is_read() {
    let now = Utc.with_ymd_and_hms(2025, 6, 1, 0, 0, 0).unwrap();
    let t = |y, mo, d| Some(Utc.with_ymd_and_hms(y, mo, d, 23, 59, 59).unwrap());
    let cases: &[(&str, Option<DateTime<Utc>>)] = &[
        // OTTO's documented Sunset: an English day name, a German month.
        ("Sun, 31 Dez 2025 23:59:59 GMT", t(2025, 12, 31)),
        // German day and month names throughout.
        ("Mi, 01 Okt 2025 23:59:59 GMT", t(2025, 10, 1)),
        ("Do, 01 Mai 2025 23:59:59 GMT", t(2025, 5, 1)),
        // French, with the abbreviation's dot.
        ("mer., 31 déc. 2025 23:59:59 GMT", t(2025, 12, 31)),
        ("01 août 2025 23:59:59 GMT", t(2025, 8, 1)),
        // Spanish and Italian.
        ("01 dic 2025 23:59:59 GMT", t(2025, 12, 1)),
        ("01 gen 2026 23:59:59 GMT", t(2026, 1, 1)),
        // A word that is no month stays unread.
        ("Sun, 31 Foo 2025 23:59:59 GMT", None),
        ("Sun, Mon, 31 Dez 2025 23:59:59", None),
    ];
    for (v, want) in cases {
        assert_eq!(http_date(v, now), *want, "{v}");
    }
}

#[test]
fn a_reset_in_epoch_nanoseconds_or_written_for_people_is_the_time_it_names() {
    let now = at(1_748_779_200); // 2025-06-01T12:00:00Z
    let s = Duration::from_secs;
    let ms = Duration::from_millis;
    let cases: &[(&str, Option<Duration>)] = &[
        // Go's UnixNano, written without its unit.
        ("1748779230000000000", Some(s(30))),
        ("1748779230500000000", Some(ms(30_500))),
        // ISO 8601's basic format and its comma before a fraction.
        ("20250601T120130Z", Some(s(90))),
        ("2025-06-01T12:00:30,500Z", Some(ms(30_500))),
        // A US zone's name.
        ("Sun, 01 Jun 2025 08:02:00 EDT", Some(s(120))),
        // Japanese marks, with the zone.
        ("2025年06月01日 12:05:00 UTC", Some(s(300))),
    ];
    for (input, want) in cases {
        assert_eq!(parse(input.as_bytes(), now), *want, "{input:?}");
    }
}
