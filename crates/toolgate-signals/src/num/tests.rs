use super::*;

const DAY: Duration = Duration::from_secs(86_400);

#[test]
fn u64_table() {
    let cases: &[(&str, Option<u64>)] = &[
        ("0", Some(0)),
        (" 42 ", Some(42)),
        ("18446744073709551615", Some(u64::MAX)),
        ("18446744073709551616", None),
        ("-1", None),
        ("+1", None),
        ("1.0", None),
        ("", None),
        ("1 2", None),
    ];
    for (input, want) in cases {
        assert_eq!(parse_u64(input), *want, "{input:?}");
    }
}

#[test]
fn counts_take_the_whole_part() {
    assert_eq!(count("47.003958333333"), Some(47));
    assert_eq!(count("98.0"), Some(98));
    assert_eq!(count(" 12 "), Some(12));
    assert_eq!(count("-1"), None);
    assert_eq!(count("1e3"), None);
    assert_eq!(limit("100"), Some(100));
    assert_eq!(limit("100.0"), Some(100));
    assert_eq!(limit("0.5000"), None);
    assert_eq!(limit("0.0167"), None);
    assert_eq!(limit("-1"), None);
    assert_eq!(count(""), None);
}

#[test]
fn decimal_table() {
    let cases: &[(&str, Option<(u64, u32)>)] = &[
        ("1.5", Some((1, 500_000_000))),
        ("64.57", Some((64, 570_000_000))),
        (".25", Some((0, 250_000_000))),
        ("3.", Some((3, 0))),
        ("0.0000000019", Some((0, 1))),
        ("99999999999999999999999", Some((u64::MAX, 0))),
        (".", None),
        ("1e3", None),
        ("NaN", None),
        ("inf", None),
        ("-1.5", None),
        ("1.2.3", None),
    ];
    for (input, want) in cases {
        assert_eq!(parse_decimal(input), *want, "{input:?}");
    }
}

#[test]
fn millis_and_seconds_are_capped() {
    assert_eq!(
        decimal_millis("1500", DAY),
        Some(Duration::from_millis(1500))
    );
    assert_eq!(
        decimal_millis("2.5", DAY),
        Some(Duration::from_micros(2500))
    );
    assert_eq!(decimal_millis("99999999999999999999", DAY), Some(DAY));
    assert_eq!(decimal_seconds("1e9", DAY), None);
    assert_eq!(decimal_seconds("86401", DAY), Some(DAY));
}

#[test]
fn go_duration_table() {
    // Values as OpenAI documents them ("1s", "6m0s") and as seen in the wild ("12ms").
    let cases: &[(&str, Option<Duration>)] = &[
        ("1s", Some(Duration::from_secs(1))),
        ("6m0s", Some(Duration::from_secs(360))),
        ("20ms", Some(Duration::from_millis(20))),
        ("12ms", Some(Duration::from_millis(12))),
        ("1h2m3.5s", Some(Duration::from_millis(3_723_500))),
        ("0.5s", Some(Duration::from_millis(500))),
        ("7.66s", Some(Duration::from_millis(7660))),
        ("100us", Some(Duration::from_micros(100))),
        ("100µs", Some(Duration::from_micros(100))),
        ("3ns", Some(Duration::from_nanos(3))),
        ("0", Some(Duration::ZERO)),
        ("48h", Some(DAY)),
        ("99999999999999999999h", Some(DAY)),
        ("", None),
        ("s", None),
        ("5", None),
        ("5d", None),
        ("-5s", None),
        ("1h-2m", None),
    ];
    for (input, want) in cases {
        assert_eq!(go_duration(input, DAY), *want, "{input:?}");
    }
}

#[test]
fn one_unit_vocabulary() {
    for (word, unit) in [
        ("ms", TimeUnit::Millis),
        ("msec", TimeUnit::Millis),
        ("millisecond", TimeUnit::Millis),
        ("s", TimeUnit::Seconds),
        ("second", TimeUnit::Seconds),
        ("secs", TimeUnit::Seconds),
        ("min", TimeUnit::Minutes),
        ("minute", TimeUnit::Minutes),
        ("h", TimeUnit::Hours),
        ("hrs", TimeUnit::Hours),
        ("hours", TimeUnit::Hours),
    ] {
        assert_eq!(TimeUnit::from_word(word), Some(unit), "{word}");
    }
    for word in ["", "m", "sx", "day", "seconds2"] {
        assert_eq!(TimeUnit::from_word(word), None, "{word}");
    }
    // Every suffix is a word, and no shorter suffix of a unit hides a longer one.
    for (i, (spelling, unit)) in TimeUnit::SUFFIXES.iter().enumerate() {
        assert_eq!(TimeUnit::from_word(spelling), Some(*unit));
        for (later, _) in &TimeUnit::SUFFIXES[i + 1..] {
            assert!(!later.ends_with(spelling), "{later} after {spelling}");
        }
    }
}

#[test]
fn unit_counts_are_capped_and_refuse_junk() {
    let cap = Duration::from_secs(3600);
    assert_eq!(
        TimeUnit::Minutes.decimal("1.5", cap),
        Some(Duration::from_secs(90))
    );
    assert_eq!(TimeUnit::Hours.decimal("2", cap), Some(cap));
    assert_eq!(
        TimeUnit::Millis.decimal("250", cap),
        Some(Duration::from_millis(250))
    );
    assert_eq!(TimeUnit::Hours.decimal("-1", cap), None);
    assert_eq!(
        TimeUnit::Hours.decimal("99999999999999999999", cap),
        Some(cap)
    );
    assert_eq!(
        TimeUnit::Minutes.float(0.5, cap),
        Some(Duration::from_secs(30))
    );
    assert_eq!(TimeUnit::Hours.float(1e300, cap), Some(cap));
    assert_eq!(TimeUnit::Seconds.float(f64::NAN, cap), None);
    assert_eq!(TimeUnit::Seconds.float(-2.0, cap), None);
}

#[test]
fn digits_of_other_scripts_read_as_ascii() {
    for (c, want) in [
        ('۳', Some('3')),  // Persian
        ('٠', Some('0')),  // Arabic-Indic
        ('९', Some('9')),  // Devanagari
        ('৫', Some('5')),  // Bengali
        ('７', Some('7')), // full-width
        ('௨', Some('2')),  // Tamil
        ('၄', Some('4')),  // Myanmar
        ('٫', Some('.')),  // the Arabic decimal separator
        ('7', None),       // ASCII is the caller's own
        ('a', None),
        ('٬', None), // the Arabic thousands separator is no digit
        ('Ⅻ', None), // a numeral that is no decimal digit
    ] {
        assert_eq!(ascii_digit(c), want, "{c}");
    }
}

#[test]
fn a_count_written_for_people_is_read_whole() {
    let cases: &[(&str, Option<u64>)] = &[
        ("10,000", Some(10_000)),
        ("1,234,567", Some(1_234_567)),
        ("10 000", Some(10_000)),
        ("10\u{a0}000", Some(10_000)),
        ("1.5k", Some(1_500)),
        ("2K", Some(2_000)),
        ("1e3", Some(1_000)),
        ("1.5e3", Some(1_500)),
        // A list with a space, a decimal comma, a fraction of a call, minutes: not counts.
        ("10, 100", None),
        ("10,5", None),
        ("1.2345k", None),
        ("30m", None),
        ("1e99", None),
        ("", None),
    ];
    for (text, want) in cases {
        assert_eq!(written_count(text), *want, "{text:?}");
    }
}
