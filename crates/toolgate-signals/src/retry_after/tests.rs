use super::*;
use chrono::TimeZone;

fn now() -> DateTime<Utc> {
    // RFC 9110 §10.2.3's example date is "Fri, 31 Dec 1999 23:59:59 GMT".
    Utc.with_ymd_and_hms(1999, 12, 31, 23, 58, 59).unwrap()
}

#[test]
fn parse_table() {
    let s = Duration::from_secs;
    let cases: &[(&[u8], Option<Duration>)] = &[
        // RFC 9110 §10.2.3 examples
        (b"120", Some(s(120))),
        (b"Fri, 31 Dec 1999 23:59:59 GMT", Some(s(60))),
        // obsolete forms of the same instant
        (b"Friday, 31-Dec-99 23:59:59 GMT", Some(s(60))),
        (b"Fri Dec 31 23:59:59 1999", Some(s(60))),
        // near misses servers send: UTC for GMT, no day name, a numeric offset
        (b"Fri, 31 Dec 1999 23:59:59 UTC", Some(s(60))),
        (b"31 Dec 1999 23:59:59 GMT", Some(s(60))),
        (b"Sat, 01 Jan 2000 00:59:59 +0100", Some(s(60))),
        // an RFC 3339 / ISO 8601 instant, as Zoom sends for a daily limit
        (b"2000-01-01T00:58:59Z", Some(s(3600))),
        (b"2000-01-01T01:58:59+01:00", Some(s(3600))),
        // whitespace, decimals, zero
        (b"  5 ", Some(s(5))),
        (b"0", Some(s(0))),
        (b"1.5", Some(Duration::from_millis(1500))),
        (b"2.0", Some(s(2))),
        (b"64.57", Some(Duration::from_millis(64_570))),
        // dates in the past mean "now"; far future and huge numbers are capped
        (b"Thu, 01 Jan 1970 00:00:00 GMT", Some(s(0))),
        (b"Fri, 31 Dec 9999 23:59:59 GMT", Some(MAX_WAIT)),
        (b"86401", Some(MAX_WAIT)),
        (b"99999999999999999999999999", Some(MAX_WAIT)),
        // refused
        (b"-1", None),
        (b"", None),
        (b"soon", None),
        (b"1e3", None),
        (b"5 s", None),
        (b"Fri, 32 Dec 1999 23:59:59 GMT", None),
        (&[0xff, 0x31], None),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse(input, now()),
            *want,
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn parse_ms_table() {
    let cases: &[(&[u8], Option<Duration>)] = &[
        (b"1500", Some(Duration::from_millis(1500))),
        (b"0", Some(Duration::ZERO)),
        (b"-1", None), // gRPC: negative pushback = do not retry; not a wait
        (b"abc", None),
        (b"86400001", Some(MAX_WAIT)),
    ];
    for (input, want) in cases {
        assert_eq!(
            parse_ms(input),
            *want,
            "{:?}",
            String::from_utf8_lossy(input)
        );
    }
}

#[test]
fn a_retry_date_is_read_against_the_servers_date() {
    // The server's clock runs 60 s ahead of ours: it asks for 47 s.
    let fields: [(&str, &[u8]); 2] = [
        ("Date", b"Sat, 01 Jan 2000 00:00:59 GMT"),
        ("Retry-After", b"Sat, 01 Jan 2000 00:01:46 GMT"),
    ];
    let ours = Utc.with_ymd_and_hms(1999, 12, 31, 23, 59, 59).unwrap();
    assert_eq!(
        from_headers(&Headers::new(&fields), ours),
        Some(Duration::from_secs(47))
    );
    // Its clock runs 60 s behind: still 47 s, not "now".
    let fields: [(&str, &[u8]); 2] = [
        ("Date", b"Fri, 31 Dec 1999 23:58:59 GMT"),
        ("Retry-After", b"Fri, 31 Dec 1999 23:59:46 GMT"),
    ];
    assert_eq!(
        from_headers(&Headers::new(&fields), ours),
        Some(Duration::from_secs(47))
    );
    // No (readable) Date: our clock; seconds never depend on a clock.
    let fields: [(&str, &[u8]); 2] = [
        ("Date", b"yesterday"),
        ("Retry-After", b"Sat, 01 Jan 2000 00:00:46 GMT"),
    ];
    assert_eq!(
        from_headers(&Headers::new(&fields), ours),
        Some(Duration::from_secs(47))
    );
    let fields: [(&str, &[u8]); 2] = [
        ("Date", b"Sat, 01 Jan 2000 00:00:59 GMT"),
        ("Retry-After", b"47"),
    ];
    assert_eq!(
        from_headers(&Headers::new(&fields), ours),
        Some(Duration::from_secs(47))
    );
}

#[test]
fn every_spelling_of_the_field_is_read() {
    // Helix ALM's 429 sends `RetryAfter`; others `Retry_After` or `RETRY-AFTER`.
    for name in ["RetryAfter", "Retry_After", "RETRY-AFTER", "retry-after"] {
        let fields: [(&str, &[u8]); 1] = [(name, b"17")];
        let h = Headers::new(&fields);
        assert_eq!(
            from_headers(&h, now()),
            Some(Duration::from_secs(17)),
            "{name}"
        );
    }
    let h = Headers::new(&[("RetryAfterMs", b"1500")]);
    assert_eq!(from_headers(&h, now()), Some(Duration::from_millis(1500)));
    // Names that merely contain the words are other fields.
    let h = Headers::new(&[("X-Upstream-Retry-After-Count", b"17")]);
    assert_eq!(from_headers(&h, now()), None);
}

#[test]
fn from_headers_takes_the_longest_wait() {
    let fields: [(&str, &[u8]); 5] = [
        ("Retry-After", b"2"),
        ("retry-after-ms", b"2500"),
        ("x-ms-retry-after-ms", b"100"),
        ("grpc-retry-pushback-ms", b"-1"),
        ("Retry-After", b"garbage"),
    ];
    let h = Headers::new(&fields);
    assert_eq!(from_headers(&h, now()), Some(Duration::from_millis(2500)));
    assert_eq!(from_headers(&Headers::new(&[]), now()), None);
}

#[test]
fn x_retry_after_is_read_as_a_time_or_a_delay() {
    let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
    let wait = |v: &[u8]| from_headers(&Headers::new(&[("X-Retry-After", v)]), now);
    // Docker Hub's API: the unix time the next call may go.
    let in_a_minute = (now.timestamp() + 60).to_string();
    assert_eq!(wait(in_a_minute.as_bytes()), Some(Duration::from_secs(60)));
    assert_eq!(wait(b"30"), Some(Duration::from_secs(30)));
    assert_eq!(
        wait(b"Sun, 01 Jun 2025 12:02:00 GMT"),
        Some(Duration::from_secs(120))
    );
    // Never more than the longest wait, never from garbage.
    assert_eq!(wait(b"99999999999999"), Some(MAX_WAIT));
    assert_eq!(wait(b"soon"), None);
}

/// vulcand/oxy's `X-Retry-In: 30s`: a length with its unit, or bare seconds.
#[test]
fn x_retry_in_is_a_length_with_its_unit() {
    let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
    let wait = |name: &str, v: &[u8]| from_headers(&Headers::new(&[(name, v)]), now);
    assert_eq!(wait("X-Retry-In", b"30s"), Some(Duration::from_secs(30)));
    assert_eq!(wait("X-Retry-In", b"1m30s"), Some(Duration::from_secs(90)));
    assert_eq!(wait("Retry-In", b"250ms"), Some(Duration::from_millis(250)));
    assert_eq!(wait("x-retry-in", b"12"), Some(Duration::from_secs(12)));
    assert_eq!(wait("X-Retry-In", b"9999h"), Some(MAX_WAIT));
    assert_eq!(wait("X-Retry-In", b"soon"), None);
    assert_eq!(wait("X-Retry-In", b"-5s"), None);
}

/// A throttle's `Expires` is when the refusal ends: read from the reply's `Date` when it
/// has one; a past or equal date, a reply that is no throttle, and a stated
/// `Retry-After` all leave it out.
#[test]
fn a_throttles_expires_is_its_wait() {
    let now = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
    let read = |status: u16, fields: &[(&str, &[u8])]| {
        crate::read(status, &Headers::new(fields), now, crate::Flavour::Auto).retry_after
    };
    // Adobe Pass: one minute after the first 429, only framing fields beside it.
    let adobe: [(&str, &[u8]); 2] = [
        ("Date", b"Sun, 01 Jun 2025 12:00:00 GMT"),
        ("Expires", b"Sun, 01 Jun 2025 12:01:00 GMT"),
    ];
    assert_eq!(read(429, &adobe), Some(Duration::from_secs(60)));
    // Read against the server's clock, which runs 10 s behind ours here.
    let skewed: [(&str, &[u8]); 3] = [
        ("Date", b"Sun, 01 Jun 2025 11:59:50 GMT"),
        ("Expires", b"Sun, 01 Jun 2025 12:00:20 GMT"),
        ("X-Request-Id", b"abc"),
    ];
    assert_eq!(read(429, &skewed), Some(Duration::from_secs(30)));
    // A throttle named by a quota spent, on a 403.
    let spent: [(&str, &[u8]); 3] = [
        ("X-RateLimit-Limit", b"10"),
        ("X-RateLimit-Remaining", b"0"),
        ("Expires", b"Sun, 01 Jun 2025 12:05:00 GMT"),
    ];
    assert_eq!(read(403, &spent), Some(Duration::from_secs(300)));
    // Pages that must not be cached, and cache headers of an answer.
    for expires in [
        &b"Thu, 01 Jan 1970 00:00:01 GMT"[..],
        b"Sun, 01 Jun 2025 12:00:00 GMT",
        b"0",
        b"-1",
    ] {
        let f: [(&str, &[u8]); 2] = [
            ("Date", b"Sun, 01 Jun 2025 12:00:00 GMT"),
            ("Expires", expires),
        ];
        assert_eq!(read(429, &f), None, "{}", String::from_utf8_lossy(expires));
    }
    assert_eq!(read(200, &adobe), None);
    assert_eq!(read(503, &adobe), None);
    // A stated wait wins.
    let stated: [(&str, &[u8]); 2] = [
        ("Retry-After", b"5"),
        ("Expires", b"Sun, 01 Jun 2025 12:01:00 GMT"),
    ];
    assert_eq!(read(429, &stated), Some(Duration::from_secs(5)));
}

#[test]
fn a_delay_written_with_its_unit_is_that_long() {
    let p = |v: &str| parse(v.as_bytes(), now());
    assert_eq!(p("30s"), Some(Duration::from_secs(30)));
    assert_eq!(p("1500ms"), Some(Duration::from_millis(1500)));
    assert_eq!(p("1m30s"), Some(Duration::from_secs(90)));
    assert_eq!(p("PT30S"), Some(Duration::from_secs(30)));
    assert_eq!(p("PT1M30S"), Some(Duration::from_secs(90)));
    // Capped as any other wait, and a unit nobody writes is still refused.
    assert_eq!(p("100h"), Some(MAX_WAIT));
    assert_eq!(p("30 parsecs"), None);
}
