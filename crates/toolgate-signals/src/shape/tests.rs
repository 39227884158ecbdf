use super::*;

#[test]
fn an_expiry_or_until_instant_is_the_reset() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // HTX: requests left and the end of the window, epoch milliseconds.
    let q = read(&[
        ("X-HB-RateLimit-Requests-Remain", b"95"),
        ("X-HB-RateLimit-Requests-Expire", b"1748779201000"),
    ]);
    assert_eq!(q[0].remaining, Some(95));
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(1)));
    // Other spellings: an ISO instant `until`, seconds to an `expiry`.
    let q = read(&[
        ("X-Quota-Remaining", b"7"),
        ("X-Quota-Until", b"2025-06-01T12:01:00Z"),
    ]);
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(60)));
    let q = read(&[
        ("X-RateLimit-Api-Remaining", b"3"),
        ("X-RateLimit-Api-Expiry", b"30"),
    ]);
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(30)));
    // No rate-limit word: a cache's `Expires` is not a reset.
    assert!(read(&[("Expires", b"Sun, 01 Jun 2025 12:10:00 GMT")]).is_empty());
}

#[test]
fn a_family_no_rate_limit_word_names_is_read_when_it_has_a_budget_and_what_is_left() {
    let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // HipChat's flood control.
    let q = read(&[
        ("X-FloodControl-Limit", b"30"),
        ("X-FloodControl-Remaining", b"2"),
        ("X-FloodControl-Reset", b"1700000040"),
    ]);
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!((q[0].limit, q[0].remaining), (Some(30), Some(2)));
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(40)));
    // A limit alone, or a remaining alone, is not a budget: a body size limit, a
    // count of pages left.
    assert!(read(&[("X-Body-Limit", b"1048576")]).is_empty());
    assert!(read(&[("X-Pages-Remaining", b"3"), ("X-Upload-Limit", b"10")]).is_empty());
}

#[test]
fn a_count_part_then_what_it_counts_is_a_budget_with_or_without_an_x() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto)
    };
    // ShipBob: the calls left, the header named by what it counts.
    let s = read(&[("x-remaining-calls", b"142")]);
    assert!(s.unread.is_empty(), "{:?}", s.unread);
    assert_eq!(s.quota[0].remaining, Some(142));
    // The same shape with other words: requests left, and a limit of calls.
    let s = read(&[("X-Remaining-Requests", b"9"), ("X-Limit-Calls", b"10")]);
    assert_eq!(
        (s.quota[0].limit, s.quota[0].remaining),
        (Some(10), Some(9))
    );
    // Anything more before the part names something else.
    assert!(read(&[("x-user-remaining-calls", b"3")]).quota.is_empty());
}

/// An API management layer lets its owner name the count headers; they come written in
/// one piece with capitals (`remainingCallsPerSubscription` beside
/// `totalCallsPerSubscription`) or as the tokens left (`remaining-tokens`), and are read
/// as the budget they count, not reported unread.
#[test]
fn a_count_named_in_one_piece_with_capitals_or_of_tokens_is_a_budget() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto)
    };
    let s = read(&[
        ("remainingCallsPerSubscription", b"3"),
        ("totalCallsPerSubscription", b"20"),
    ]);
    assert!(s.unread.is_empty(), "{:?}", s.unread);
    assert_eq!(
        (
            s.quota[0].policy.as_str(),
            s.quota[0].limit,
            s.quota[0].remaining
        ),
        ("subscription", Some(20), Some(3))
    );
    let s = read(&[("remaining-tokens", b"120"), ("consumed-tokens", b"880")]);
    assert!(s.unread.is_empty(), "{:?}", s.unread);
    assert_eq!(s.quota[0].remaining, Some(120));
    // Capitals in a name that has separators, or no humps at all, change nothing.
    assert!(read(&[("X-Remaining-Items", b"3")]).quota.is_empty());
    assert!(read(&[("remainingItemsPerPage", b"3")]).quota.is_empty());
}

#[test]
fn counts_per_period_give_one_quota_each() {
    // Upbit: what is left this minute (a fixed legacy value) and this second.
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default();
    let fields: [(&str, &[u8]); 1] = [("Remaining-Req", b"group=default; min=1800; sec=29")];
    let s = crate::read(200, &Headers::new(&fields), now, crate::Flavour::Auto);
    assert!(s.unread.is_empty(), "{:?}", s.unread);
    let q = &s.quota[0];
    assert_eq!(
        (q.remaining, q.window),
        (Some(29), Some(Duration::from_secs(1)))
    );
    assert_eq!(s.quota[1].window, Some(Duration::from_secs(60)));
    // Not a list of periods: a count and a word that is not one.
    assert!(period_counts("group=default; burst=5").is_none());
    assert!(period_counts("sec=29; min=soon").is_none());
}

#[test]
fn a_bare_countdown_on_the_reply_that_opened_its_window_fits_the_window() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default();
    let read = |remaining: &'static [u8]| {
        let fields: [(&str, &[u8]); 3] = [
            ("gw-ratelimit-limit", b"2000"),
            ("gw-ratelimit-remaining", remaining),
            ("gw-ratelimit-reset", b"29963"),
        ];
        let s = crate::read(200, &Headers::new(&fields), now, crate::Flavour::Auto);
        s.quota[0].reset_after
    };
    // KuCoin's first call of a window: thirty seconds less the call.
    assert_eq!(read(b"1999"), Some(Duration::from_millis(29_963)));
    // Later in the window one number cannot tell; the engine learns the unit.
    assert_eq!(read(b"1500"), Some(Duration::from_secs(29_963)));
}

#[test]
fn strava_usage_is_the_used_count() {
    let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    let fields: [(&str, &[u8]); 2] = [
        ("X-Ratelimit-Limit", b"600,30000"),
        ("X-Ratelimit-Usage", b"598,27536"),
    ];
    let q = crate::read(200, &Headers::new(&fields), now, crate::Flavour::Auto).quota;
    // Both windows are quotas (15-minute and daily); the nearly spent one leads.
    assert_eq!(q.len(), 2, "{q:?}");
    assert_eq!((q[0].limit, q[0].remaining), (Some(600), Some(2)));
    assert_eq!((q[1].limit, q[1].remaining), (Some(30000), Some(2464)));
}

#[test]
fn names_by_shape() {
    let n = |s: &str| parse_name(s).map(|n| (n.family, n.policy, n.part, n.unit));
    let s = |v: &str| v.to_owned();
    assert_eq!(
        n("x-sib-ratelimit-remaining"),
        Some((s("sib"), s(""), Part::Remaining, None))
    );
    assert_eq!(
        n("X-Contentful-RateLimit-Second-Limit"),
        Some((s("contentful"), s("second"), Part::Limit, None))
    );
    assert_eq!(
        n("x-rate-limit-api-token-interval-ms"),
        Some((s(""), s("api-token"), Part::Window, Some(TimeUnit::Millis)))
    );
    // Only a time has a unit: after a count the word names the policy, and the
    // singular period words always do (Kong's `-Remaining-Minute`).
    assert_eq!(
        n("x-ratelimit-remaining-minutes"),
        Some((s(""), s("minutes"), Part::Remaining, None))
    );
    assert_eq!(
        n("X-RateLimit-Remaining-Minute"),
        Some((s(""), s("minute"), Part::Remaining, None))
    );
    assert_eq!(
        n("x-ratelimit-reset-hours"),
        Some((s(""), s(""), Part::Reset, Some(TimeUnit::Hours)))
    );
    assert_eq!(
        n("X-RateLimit-Requests-Left"),
        Some((s(""), s("requests"), Part::Remaining, None))
    );
    assert_eq!(
        n("x-daily-requests-left"),
        Some((s("daily"), s(""), Part::Remaining, None))
    );
    assert_eq!(
        n("X-RateLimit-Retry-After"),
        Some((s(""), s(""), Part::Retry, None))
    );
    assert_eq!(
        n("x-user-limit-24hour-remaining"),
        Some((s("user"), s("24hour"), Part::Remaining, None))
    );
    // A name with no rate-limit word is only a candidate, read with its family.
    assert!(parse_name("x-body-limit").is_some_and(|n| n.by_shape_alone));
    assert!(parse_name("X-FloodControl-Remaining").is_some_and(|n| n.by_shape_alone));
    assert_eq!(n("x-request-id"), None);
    assert_eq!(n("content-length"), None);
    assert_eq!(n("x-ratelimit-bucket-name"), None);
}

#[test]
fn names_vendors_glue_or_phrase() {
    let n = |s: &str| parse_name(s).map(|n| (n.family, n.policy, n.part, n.unit));
    let s = |v: &str| v.to_owned();
    // Imgur and Xero glue the policy to the part.
    assert_eq!(
        n("X-RateLimit-UserRemaining"),
        Some((s(""), s("user"), Part::Remaining, None))
    );
    assert_eq!(
        n("X-MinLimit-Remaining"),
        Some((s("min"), s(""), Part::Remaining, None))
    );
    // Etsy says the budget as a phrase.
    assert_eq!(
        n("x-remaining-this-second"),
        Some((s(""), s("second"), Part::Remaining, None))
    );
    assert_eq!(
        n("x-remaining-today"),
        Some((s(""), s("day"), Part::Remaining, None))
    );
    assert_eq!(
        n("x-limit-per-day"),
        Some((s(""), s("day"), Part::Limit, None))
    );
    // The reset glued to how its instant is written.
    assert_eq!(
        n("bitvavo-ratelimit-resetat"),
        Some((s("bitvavo"), s(""), Part::Reset, None))
    );
    assert_eq!(
        n("X-RateLimit-ResetTimestamp"),
        Some((s(""), s(""), Part::Reset, None))
    );
    assert_eq!(
        n("X-Quota-ResetDate"),
        Some((s(""), s("quota"), Part::Reset, None))
    );
    // CoinGlass puts the part before `limit`.
    assert_eq!(
        n("API-KEY-USE-LIMIT"),
        Some((s("api-key"), s(""), Part::Used, None))
    );
    // BigCommerce's `quota` is the limit.
    assert_eq!(
        n("X-Rate-Limit-Requests-Quota"),
        Some((s(""), s("requests"), Part::Limit, None))
    );
    // Not split: rate-limit words, short heads, ordinary names.
    assert_eq!(glued_part("ratelimit"), None);
    assert_eq!(glued_part("preset"), None);
    assert_eq!(n("x-preset-name"), None);
    assert_eq!(n("x-remaining-items"), None);
    // A candidate by shape only, read when its family also has a remaining count.
    assert!(parse_name("x-body-limit").is_some_and(|n| n.by_shape_alone));
}

#[test]
fn a_family_reset_joins_its_counted_group() {
    let fields: [(&str, &[u8]); 4] = [
        ("X-Rate-Limit-Requests-Left", b"0"),
        ("X-Rate-Limit-Requests-Quota", b"150"),
        ("X-Rate-Limit-Time-Reset-Ms", b"15000"),
        ("X-Rate-Limit-Time-Window-Ms", b"30000"),
    ];
    let mut out = Collector::default();
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default();
    read(&Headers::new(&fields), now, &mut out);
    assert_eq!(out.quotas.len(), 1);
    let q = &out.quotas[0];
    assert_eq!((q.limit, q.remaining), (Some(150), Some(0)));
    assert_eq!(q.reset_after, Some(Duration::from_secs(15)));
    assert_eq!(q.window, Some(Duration::from_secs(30)));
}

#[test]
fn values_by_shape() {
    assert_eq!(
        count_window_pairs("20:1,100:120"),
        Some(vec![(20, 1), (100, 120)])
    );
    assert_eq!(count_window_pairs("12:00"), None);
    assert_eq!(count_window_pairs("a:1"), None);
    assert_eq!(used_of_limit("10/40"), Some((10, 40)));
    assert_eq!(leading_count("100, 100;window=60"), Some(100));
    assert_eq!(leading_count("-1"), None);
    assert_eq!(
        inline_window("100, 100;window=60, 10000;window=86400", 100),
        Some(Duration::from_secs(60))
    );
    assert!(key_values("limit=100; remaining=0; reset=30").is_some());
    assert!(key_values("foo=bar").is_none());
    assert!(key_values("user-hour-lim:3600;user-hour-rem:3599;").is_some());
    assert!(key_values("user-hour-foo:1;bar-baz:2").is_none());
}

#[test]
fn a_concurrency_limit_and_what_is_in_flight() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // APIFreaks: the limit under the bare name, what is running under `-Active`.
    let q = read(&[
        ("X-Concurrent-Threads", b"5"),
        ("X-Concurrent-Threads-Active", b"2"),
    ]);
    assert_eq!((q[0].limit, q[0].remaining), (Some(5), Some(3)));
    // Other spellings of the same budget: spent, and the word alone as the limit.
    let q = read(&[
        ("X-Concurrent-Requests-Limit", b"10"),
        ("X-Concurrent-Requests-Running", b"10"),
    ]);
    assert_eq!((q[0].limit, q[0].remaining), (Some(10), Some(0)));
    let q = read(&[("X-Concurrency", b"8"), ("X-Concurrency-Available", b"6")]);
    assert_eq!((q[0].limit, q[0].remaining), (Some(8), Some(6)));
    // No evidence in the reply: a lone limit or a lone count says nothing.
    assert!(read(&[("X-Concurrent-Threads", b"5")]).is_empty());
    assert!(read(&[("X-Concurrency-Active", b"3")]).is_empty());
    // Other words after the concurrency word are not a budget.
    assert!(
        read(&[
            ("X-Concurrent-Session-Timeout", b"30"),
            ("X-Concurrent-Session-Timeout-Active", b"1"),
        ])
        .is_empty()
    );
}

#[test]
fn a_key_value_list_whose_parts_come_back_lists_one_window_each() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // Unity's every window, in one field.
    let q = read(&[(
        "Unity-RateLimit",
        b"limit=20, remaining=19, reset=1; limit=4000, remaining=3994, reset=1579",
    )]);
    assert_eq!(q.len(), 2, "{q:?}");
    assert_eq!((q[0].limit, q[0].remaining), (Some(20), Some(19)));
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(1)));
    assert_eq!((q[1].limit, q[1].remaining), (Some(4000), Some(3994)));
    assert_eq!(q[1].reset_after, Some(Duration::from_secs(1579)));
    // The same with `key:value` members, `used` counts and three windows.
    let q = read(&[(
        "X-Plan-RateLimit",
        b"limit:100;used:97;reset:20;limit:5000;used:979;reset:3000;limit:90000;used:10;reset:86000",
    )]);
    assert_eq!(q.len(), 3, "{q:?}");
    assert_eq!(q[1].remaining, Some(4021));
    assert_eq!(q[2].reset_after, Some(Duration::from_secs(86000)));
    // One window: as before.
    let q = read(&[("X-Api-RateLimit", b"limit=60, remaining=58, reset=12")]);
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].remaining, Some(58));
    // Windows that do not give the same counts are not windows: the first values stand.
    let q = read(&[(
        "X-Api-RateLimit",
        b"limit=60, remaining=58, reset=12; limit=1000, reset=3000",
    )]);
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!((q[0].limit, q[0].remaining), (Some(60), Some(58)));
}

#[test]
fn a_plan_s_allotment_and_its_current_count_are_a_budget() {
    let now = DateTime::from_timestamp(1_496_664_000, 0).unwrap(); // 2017-06-05T12:00:00Z
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto)
    };
    // Mashery's plan headers, as adidas's API guidelines print them.
    let s = read(&[
        ("X-Plan-QPS-Allotted", b"10"),
        ("X-Plan-QPS-Current", b"1"),
        ("X-Plan-Quota-Allotted", b"1000"),
        ("X-Plan-Quota-Current", b"2"),
        (
            "X-Plan-Quota-Reset",
            b"Tuesday, June 6, 2017 12:00:00 AM GMT",
        ),
    ]);
    assert!(s.unread.is_empty(), "{:?}", s.unread);
    let day = s.quota.iter().find(|q| q.limit == Some(1000)).unwrap();
    assert_eq!(day.remaining, Some(998));
    assert_eq!(day.reset_after, Some(Duration::from_secs(43_200)));
    let second = s.quota.iter().find(|q| q.limit == Some(10)).unwrap();
    assert_eq!(second.remaining, Some(9));
    // The same words in another family: an allotment of requests a second spent.
    let s = read(&[("X-Api-Rps-Allotted", b"4"), ("X-Api-Rps-Current", b"4")]);
    assert_eq!((s.quota[0].limit, s.quota[0].remaining), (Some(4), Some(0)));
    // `current` before another word says which window, not a count.
    let n = |s: &str| parse_name(s).map(|n| (n.policy, n.part));
    assert_eq!(
        n("X-RateLimit-Current-Hour-Remaining"),
        Some(("current-hour".to_owned(), Part::Remaining))
    );
}

#[test]
fn a_counter_of_requests_names_its_reset() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // football-data.org: what is left this minute and the counter's reset, in seconds.
    let q = read(&[
        ("X-Requests-Available-Minute", b"8"),
        ("X-RequestCounter-Reset", b"41"),
    ]);
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!(q[0].remaining, Some(8));
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(41)));
    // Other counted nouns glued to the counter.
    let q = read(&[("X-Calls-Remaining", b"3"), ("X-CallCounter-Reset", b"20")]);
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(20)));
    // A counter of something else, or a counter with no part after it, is not a budget.
    assert!(read(&[("X-PageCounter-Reset", b"41")]).is_empty());
    assert!(read(&[("X-RequestCounter", b"41")]).is_empty());
}

#[test]
fn a_count_made_beside_a_limit_another_reader_reads_leaves_the_rest() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // The limit is read by the GitHub or IETF reader, the count made by its shape.
    for fields in [
        &[
            ("X-RateLimit-Limit", &b"100"[..]),
            ("X-RateLimit-Count", b"40"),
        ][..],
        &[("RateLimit-Limit", b"100"), ("RateLimit-Used", b"40")],
        &[("ratelimit_limit", b"100"), ("ratelimit_used", b"40")],
    ] {
        let q = read(fields);
        assert_eq!(q.len(), 1, "{fields:?}: {q:?}");
        assert_eq!(q[0].limit, Some(100), "{fields:?}");
        assert_eq!(q[0].remaining, Some(60), "{fields:?}");
    }
    // A count above the limit is not what was made of it; a count with no limit beside
    // it says nothing of what is left.
    let q = read(&[("X-RateLimit-Limit", b"100"), ("X-RateLimit-Count", b"400")]);
    assert_eq!(q[0].remaining, None, "{q:?}");
    let q = read(&[("X-RateLimit-Count", b"40")]);
    assert!(q.iter().all(|q| q.remaining.is_none()), "{q:?}");
}

#[test]
fn a_budget_of_queries_a_period_names_itself() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // World Weather Online: the requests left for the day.
    let q = read(&[("X-WWO-Qpd-Left", b"412")]);
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!(q[0].remaining, Some(412));
    assert_eq!(q[0].policy, "qpd");
    // A minute's budget and what is left of it.
    let q = read(&[("X-RPM-Limit", b"60"), ("X-RPM-Remaining", b"12")]);
    assert_eq!((q[0].limit, q[0].remaining), (Some(60), Some(12)));
    // The word alone, with no part, says nothing.
    assert!(read(&[("X-Engine-Rpm", b"3000")]).is_empty());
}

#[test]
fn a_window_written_as_its_period_or_a_duration() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    let s = Duration::from_secs;
    // (the window field, its value, the window)
    let long = "minute".repeat(200);
    let cases: [(&str, &[u8], Option<Duration>); 10] = [
        ("X-Rate-Limit-Window", b"minute", Some(s(60))),
        ("X-Rate-Limit-Window", b"Hour", Some(s(3600))),
        ("X-Rate-Limit-Window", b"day", Some(s(86_400))),
        ("rate-limit-range", b"per-minute", Some(s(60))),
        ("rate-limit-range", b"PT2M", Some(s(120))),
        ("X-RateLimit-Period", b"per second", Some(s(1))),
        // A word that is no period says nothing of the window.
        ("X-Rate-Limit-Window", b"rolling", None),
        ("X-Rate-Limit-Window", b"permanent", None),
        // Too long to be a period word, or not one in any spelling: nothing, no panic.
        ("X-Rate-Limit-Window", long.as_bytes(), None),
        ("X-Rate-Limit-Window", "min\u{fc}te".as_bytes(), None),
    ];
    for (name, value, want) in cases {
        let limit = if name.starts_with("rate-limit") {
            "rate-limit-allowed"
        } else {
            "X-Rate-Limit-Limit"
        };
        let q = read(&[(limit, b"30"), (name, value)]);
        assert_eq!(q.len(), 1, "{name}: {value:?}");
        assert_eq!(q[0].limit, Some(30), "{name}: {value:?}");
        assert_eq!(q[0].window, want, "{name}: {value:?}");
    }
}

#[test]
fn a_limit_of_requests_named_before_its_policy_and_part() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // Oracle Access Governance: what is left of each policy, the limit word in the name.
    let q = read(&[
        ("RequestLimit-Default-Remaining", b"179"),
        ("RequestLimit-Write-Remaining", b"59"),
    ]);
    assert_eq!(q.len(), 2, "{q:?}");
    for (policy, left) in [("default", 179), ("write", 59)] {
        let p = q.iter().find(|p| p.policy == policy).expect(policy);
        assert_eq!((p.remaining, p.limit), (Some(left), None), "{policy}");
    }
    // Other spellings of the same naming.
    let q = read(&[("X-CallLimit-Hour-Remaining", b"12")]);
    assert_eq!(q[0].remaining, Some(12), "{q:?}");
    assert_eq!(q[0].policy, "hour");
    // With no part after it, the glued limit is the part.
    let q = read(&[("X-RequestLimit", b"500")]);
    assert_eq!(q[0].limit, Some(500), "{q:?}");
}

#[test]
fn a_bare_quota_and_the_usage_counted_under_its_stem_are_one_budget() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto)
    };
    // Brandfetch: the key's month quota, and an estimate of its use, either order.
    for fields in [
        [
            ("x-api-key-quota", &b"100"[..]),
            ("x-api-key-approximate-usage", &b"37"[..]),
        ],
        [
            ("x-api-key-approximate-usage", &b"37"[..]),
            ("x-api-key-quota", &b"100"[..]),
        ],
    ] {
        let s = read(&fields);
        assert_eq!(s.quota.len(), 1, "{fields:?}");
        assert_eq!(s.quota[0].limit, Some(100));
        assert_eq!(s.quota[0].remaining, Some(63));
        assert!(s.unread.is_empty(), "{:?}", s.unread);
    }
    // Other spellings of the count: `used`, an `estimated` one.
    let s = read(&[("X-Account-Quota", b"5000"), ("X-Account-Used", b"5000")]);
    assert_eq!(s.quota[0].remaining, Some(0));
    let s = read(&[("X-Plan-Quota", b"1000"), ("X-Plan-Estimated-Usage", b"10")]);
    assert_eq!(s.quota[0].remaining, Some(990));
    // A bare quota alone is the budget's size.
    let s = read(&[("x-api-key-quota", b"100")]);
    assert_eq!(s.quota[0].limit, Some(100));
    assert_eq!(s.quota[0].remaining, None);
}

#[test]
fn a_bare_quota_of_a_stored_thing_or_of_nothing_named_is_no_budget_of_calls() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    assert!(read(&[("X-Storage-Quota", b"10737418240")]).is_empty());
    assert!(read(&[("X-Mailbox-Quota", b"2048"), ("X-Mailbox-Usage", b"100")]).is_empty());
    assert!(read(&[("X-Upload-Quota", b"50"), ("X-Upload-Used", b"3")]).is_empty());
    // A lone `X-Quota` does not say of what.
    assert!(read(&[("X-Quota", b"1000")]).is_empty());
}

#[test]
fn a_usage_count_without_a_named_quota_under_its_stem_is_no_budget() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // A disk's or memory's use beside its size is no budget of calls.
    assert!(read(&[("X-Disk-Limit", b"100"), ("X-Disk-Usage", b"40")]).is_empty());
    assert!(read(&[("X-Memory-Used", b"512")]).is_empty());
    // A usage under another stem than the quota's does not join it.
    let q = read(&[("x-api-key-quota", b"100"), ("x-storage-usage", b"40")]);
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].remaining, None);
    // A `used` that is the whole name, or follows a part, is not this shape.
    assert!(read(&[("Used", b"3")]).is_empty());
    assert!(read(&[("X-Limit-Used", b"3")]).is_empty());
}

#[test]
fn a_rate_limit_field_named_after_is_the_wait_before_the_next_call() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    // tower_governor's refusal, its body replaced by the application's own.
    let s = crate::read(
        429,
        &Headers::new(&[("x-ratelimit-after", b"7")]),
        now,
        crate::Flavour::Auto,
    );
    assert_eq!(s.retry_after, Some(Duration::from_secs(7)));
    // `reset-after` stays a reset (Discord's spelling), not a wait.
    let s = crate::read(
        200,
        &Headers::new(&[
            ("x-acme-ratelimit-remaining", b"3"),
            ("x-acme-ratelimit-reset-after", b"12"),
        ]),
        now,
        crate::Flavour::Auto,
    );
    assert_eq!(s.retry_after, None);
    assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(12)));
}

#[test]
fn a_limit_that_is_its_windows_length_gives_the_window_of_the_counts_beside_it() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // AspNetCoreRateLimit's rule period in the limit field, under the hyphenated names.
    let q = read(&[
        ("X-Rate-Limit-Limit", b"1d"),
        ("X-Rate-Limit-Remaining", b"3"),
        ("X-Rate-Limit-Reset", b"2025-06-02T00:00:00.0000000Z"),
    ]);
    assert_eq!(q.len(), 1, "{q:?}");
    assert_eq!(
        (q[0].limit, q[0].remaining, q[0].window),
        (None, Some(3), Some(Duration::from_secs(86_400)))
    );
    assert_eq!(q[0].reset_after, Some(Duration::from_secs(43_200)));
    // The same under a name only the shape reader knows.
    let q = read(&[
        ("X-Acme-Quota-Limit", b"12h"),
        ("X-Acme-Quota-Remaining", b"40"),
    ]);
    assert_eq!(q[0].window, Some(Duration::from_secs(43_200)), "{q:?}");
    // A bare number stays a count.
    let q = read(&[
        ("X-Rate-Limit-Limit", b"12"),
        ("X-Rate-Limit-Remaining", b"3"),
    ]);
    assert_eq!((q[0].limit, q[0].window), (Some(12), None));
}

#[test]
fn a_count_after_its_policys_name_is_the_count() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    // IBM API Connect's gateway.
    let s = crate::read(
        200,
        &Headers::new(&[
            ("X-RateLimit-Limit", b"name=default,100;"),
            ("X-RateLimit-Remaining", b"name=default,6;"),
        ]),
        now,
        crate::Flavour::Auto,
    );
    assert_eq!(s.quota.len(), 1, "{:?}", s.quota);
    assert_eq!(
        (s.quota[0].limit, s.quota[0].remaining),
        (Some(100), Some(6))
    );
    assert!(s.unread.is_empty(), "{:?}", s.unread);
    // Under a name the shape reader reads.
    let s = crate::read(
        429,
        &Headers::new(&[
            ("X-Plan-RateLimit-Limit", b"name=rate-limit,100;"),
            ("X-Plan-RateLimit-Remaining", b"name=rate-limit,0;"),
        ]),
        now,
        crate::Flavour::Auto,
    );
    assert_eq!(
        (s.quota[0].limit, s.quota[0].remaining),
        (Some(100), Some(0))
    );
}

#[test]
fn a_period_leading_the_name_names_the_budget_and_its_window() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    // CoreLogic Trestle's per-minute and per-hour budgets side by side.
    let fields: [(&str, &[u8]); 4] = [
        ("Minute-Quota-Limit", b"180"),
        ("Minute-Quota-Available", b"170"),
        ("Hour-Quota-Limit", b"7200"),
        ("Hour-Quota-Available", b"48"),
    ];
    let q = crate::read(200, &Headers::new(&fields), now, crate::Flavour::Auto).quota;
    let hour = q
        .iter()
        .find(|q| q.limit == Some(7200))
        .expect("the hour's budget");
    assert_eq!(hour.remaining, Some(48));
    assert_eq!(hour.window, Some(Duration::from_secs(3600)));
    let minute = q
        .iter()
        .find(|q| q.limit == Some(180))
        .expect("the minute's budget");
    assert_eq!(minute.remaining, Some(170));
    assert_eq!(minute.window, Some(Duration::from_secs(60)));
}

#[test]
fn a_budget_counted_in_credits_is_read_apart_from_the_rate_limit_beside_it() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    let q = read(&[
        ("X-Scrapfly-Api-Cost", b"25"),
        ("X-Scrapfly-Remaining-Api-Credit", b"3"),
    ]);
    assert_eq!(q.len(), 1);
    assert_eq!(q[0].remaining, Some(3));
    assert_eq!(q[0].policy, "credit");
    // A remaining and a consumed count of one budget meet; a rate limit stays apart.
    let q = read(&[
        ("x-remaining-credits", b"0"),
        ("x-credits-consumed", b"1"),
        ("X-RateLimit-Limit", b"60"),
        ("X-RateLimit-Remaining", b"59"),
    ]);
    let credits = q.iter().find(|q| q.policy == "credit").unwrap();
    assert_eq!(credits.remaining, Some(0));
    assert!(q.iter().any(|q| q.remaining == Some(59)));
    // What one call cost is no budget left.
    assert!(read(&[("Spb-Cost", b"25")]).is_empty());
    assert!(read(&[("Ant-Credits-Cost", b"10")]).is_empty());
}

#[test]
fn a_quota_glued_to_what_it_counts_is_a_budget_apart_from_the_rate_limit() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let fields: [(&str, &[u8]); 4] = [
        ("x-apiquota-remaining", b"4"),
        ("x-apiquota-reset", b"2025-06-02T00:00:00Z"),
        ("x-ratelimit-limit", b"60"),
        ("x-ratelimit-remaining", b"59"),
    ];
    let q = crate::read(200, &Headers::new(&fields), now, crate::Flavour::Auto).quota;
    let daily = q.iter().find(|q| q.remaining == Some(4)).unwrap();
    assert_eq!(daily.reset_after, Some(Duration::from_secs(43_200)));
    assert!(
        q.iter()
            .any(|q| q.remaining == Some(59) && q.limit == Some(60))
    );
}

#[test]
fn a_budget_told_by_what_was_used_and_what_is_left_is_as_large_as_both() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // Twelve Data: credits used this minute and credits left, no limit.
    let q = read(&[("api-credits-used", b"7"), ("api-credits-left", b"1")]);
    assert_eq!((q[0].limit, q[0].remaining), (Some(8), Some(1)));
    // A limit sent beside them is kept as sent.
    let q = read(&[
        ("X-RateLimit-Limit", b"10"),
        ("X-RateLimit-Used", b"7"),
        ("X-RateLimit-Remaining", b"1"),
    ]);
    assert_eq!((q[0].limit, q[0].remaining), (Some(10), Some(1)));
}

#[test]
fn a_concurrency_part_leading_the_name_meets_its_limit() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // ElevenLabs: requests in flight beside the most the plan allows.
    let q = read(&[
        ("current-concurrent-requests", b"4"),
        ("maximum-concurrent-requests", b"5"),
    ]);
    assert_eq!((q[0].limit, q[0].remaining), (Some(5), Some(1)));
    // A part before anything but the concurrency word and what it counts is no budget.
    assert!(read(&[("current-concurrent-user-sessions-timeout", b"4")]).is_empty());
}

#[test]
fn a_rate_limit_named_only_by_its_period_is_the_limit_of_that_period_s_count_left() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let read = |fields: &[(&str, &[u8])]| {
        crate::read(200, &Headers::new(fields), now, crate::Flavour::Auto).quota
    };
    // Apollo: the minute's and the day's limits, each beside the requests left.
    let q = read(&[
        ("x-rate-limit-minute", b"200"),
        ("x-minute-requests-left", b"197"),
        ("x-rate-limit-24-hour", b"2000"),
        ("x-24-hour-requests-left", b"15"),
    ]);
    assert!(
        q.iter()
            .any(|q| (q.limit, q.remaining) == (Some(200), Some(197))),
        "{q:?}"
    );
    assert!(
        q.iter()
            .any(|q| (q.limit, q.remaining) == (Some(2000), Some(15))),
        "{q:?}"
    );
}
