//! Cross-family tests of [`crate::read`]: status handling, flavour restriction,
//! merging and ordering, serialisation.

use std::time::Duration;

use chrono::{DateTime, TimeZone, Utc};

use crate::{Flavour, Headers, Quota, Signals, read};

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap()
}

#[test]
fn plain_429_table() {
    // (status, fields, rate_limited, retry_after)
    type Case<'a> = (u16, &'a [(&'a str, &'a [u8])], bool, Option<Duration>);
    let cases: &[Case<'_>] = &[
        (429, &[], true, None),
        (
            429,
            &[("Retry-After", b"120")],
            true,
            Some(Duration::from_secs(120)),
        ),
        (
            429,
            &[("Retry-After", b"Sun, 01 Jun 2025 12:00:30 GMT")],
            true,
            Some(Duration::from_secs(30)),
        ),
        (
            429,
            &[("retry-after-ms", b"250")],
            true,
            Some(Duration::from_millis(250)),
        ),
        (
            503,
            &[("Retry-After", b"10")],
            false,
            Some(Duration::from_secs(10)),
        ),
        (200, &[], false, None),
        (403, &[], false, None),
        (429, &[("Retry-After", b"-5")], true, None),
    ];
    for (status, fields, limited, wait) in cases {
        let s = read(*status, &Headers::new(fields), now(), Flavour::Auto);
        assert_eq!(
            (s.rate_limited, s.retry_after),
            (*limited, *wait),
            "{status} {fields:?}"
        );
    }
}

#[test]
fn enhance_your_calm_420_with_a_spent_quota_is_a_throttle() {
    // 420 "Enhance Your Calm": EVE Online ESI answers it once the error window is spent,
    // older Twitter endpoints once their rate limit was. With a spent quota or a wait it
    // is the quota refusing; a bare 420 says neither.
    // (fields, rate_limited)
    type Case<'a> = (&'a [(&'a str, &'a [u8])], bool);
    let cases: &[Case<'_>] = &[
        (
            &[
                ("X-ESI-Error-Limit-Remain", b"0"),
                ("X-ESI-Error-Limit-Reset", b"37"),
            ],
            true,
        ),
        (
            &[
                ("X-RateLimit-Limit", b"150"),
                ("X-RateLimit-Remaining", b"0"),
                ("X-RateLimit-Reset", b"1748779260"),
            ],
            true,
        ),
        (&[("Retry-After", b"30")], true),
        (&[("X-ESI-Error-Limit-Remain", b"12")], false),
        (&[], false),
    ];
    for (fields, limited) in cases {
        let s = read(420, &Headers::new(fields), now(), Flavour::Auto);
        assert_eq!(s.rate_limited, *limited, "{fields:?}");
    }
}

#[test]
fn a_limit_written_with_its_window_gives_both() {
    // ESI's `X-Ratelimit-Limit: 150/15m`, read by the GitHub-shaped family and, under
    // any other name, by its shape.
    type Fields<'a> = [(&'a str, &'a [u8]); 2];
    let replies: [Fields<'_>; 3] = [
        [
            ("X-Ratelimit-Limit", b"150/15m"),
            ("X-Ratelimit-Remaining", b"148"),
        ],
        [
            ("X-Api-RateLimit-Limit", b"150/15m"),
            ("X-Api-RateLimit-Remaining", b"148"),
        ],
        [
            ("X-Rate-Limit-Limit", b"150/15m"),
            ("X-Rate-Limit-Remaining", b"148"),
        ],
    ];
    for fields in replies {
        let s = read(200, &Headers::new(&fields), now(), Flavour::Auto);
        let q = s.quota.first();
        assert_eq!(
            q.map(|q| (q.limit, q.remaining, q.window)),
            Some((Some(150), Some(148), Some(Duration::from_secs(900)))),
            "{fields:?}"
        );
    }
    // A used/limit pair stays a pair: no window.
    let fields: [(&str, &[u8]); 1] = [("X-RateLimit-Limit", b"10/100")];
    let s = read(200, &Headers::new(&fields), now(), Flavour::Auto);
    assert!(s.quota.iter().all(|q| q.window.is_none()), "{:?}", s.quota);
}

#[test]
fn a_plan_quota_refused_with_402_is_a_throttle() {
    // A 402 that reports its quota spent (or asks for a wait) is the quota refusing,
    // as a 403 is; a 402 that says neither is a bill to pay.
    // (fields, rate_limited)
    type Case<'a> = (&'a [(&'a str, &'a [u8])], bool);
    let cases: &[Case<'_>] = &[
        (
            &[
                ("X-Toggl-Quota-Remaining", b"0"),
                ("X-Toggl-Quota-Resets-In", b"1800"),
            ],
            true,
        ),
        (
            &[
                ("X-RateLimit-Limit", b"100"),
                ("X-RateLimit-Remaining", b"0"),
            ],
            true,
        ),
        (&[("Retry-After", b"60")], true),
        (&[("X-RateLimit-Remaining", b"12")], false),
        (&[], false),
    ];
    for (fields, limited) in cases {
        let s = read(402, &Headers::new(fields), now(), Flavour::Auto);
        assert_eq!(s.rate_limited, *limited, "{fields:?}");
    }
}

#[test]
fn a_503_with_its_own_quota_spent_is_a_throttle() {
    // Gateways refuse a spent quota with 503 by default (APISIX's ai-rate-limiting,
    // nginx's limit_req); a 503 with only a wait, or with quota left, is an outage.
    // (fields, rate_limited)
    type Case<'a> = (&'a [(&'a str, &'a [u8])], bool);
    let cases: &[Case<'_>] = &[
        (
            &[
                ("X-AI-RateLimit-Limit-openai", b"300"),
                ("X-AI-RateLimit-Remaining-openai", b"0"),
                ("X-AI-RateLimit-Reset-openai", b"30"),
            ],
            true,
        ),
        (
            &[
                ("X-RateLimit-Limit", b"10"),
                ("X-RateLimit-Remaining", b"0"),
            ],
            true,
        ),
        (&[("Retry-After", b"120")], false),
        (
            &[
                ("X-RateLimit-Limit", b"10"),
                ("X-RateLimit-Remaining", b"7"),
            ],
            false,
        ),
        (&[], false),
    ];
    for (fields, limited) in cases {
        let s = read(503, &Headers::new(fields), now(), Flavour::Auto);
        assert_eq!(s.rate_limited, *limited, "{fields:?}");
    }
}

#[test]
fn an_error_code_header_naming_a_passed_limit_is_a_throttle() {
    // (status, fields, rate_limited)
    type Case<'a> = (u16, &'a [(&'a str, &'a [u8])], bool);
    let cases: &[Case<'_>] = &[
        (
            403,
            &[("X-Mashery-Error-Code", b"ERR_403_DEVELOPER_OVER_QPS")],
            true,
        ),
        (
            403,
            &[("X-Mashery-Error-Code", b"ERR_403_DEVELOPER_OVER_RATE")],
            true,
        ),
        (400, &[("X-Gateway-Error-Type", b"QuotaExceeded")], true),
        // Another refusal in the same header is not one.
        (
            403,
            &[("X-Mashery-Error-Code", b"ERR_403_DEVELOPER_INACTIVE")],
            false,
        ),
        (
            403,
            &[("X-Error-Code", b"REQUEST_SIZE_LIMIT_EXCEEDED")],
            false,
        ),
        // On a 2xx the answer was given: no throttle.
        (
            200,
            &[("X-Mashery-Error-Code", b"ERR_403_DEVELOPER_OVER_QPS")],
            false,
        ),
    ];
    for (status, fields, limited) in cases {
        let s = read(*status, &Headers::new(fields), now(), Flavour::Auto);
        assert_eq!(s.rate_limited, *limited, "{status} {fields:?}");
    }
}

#[test]
fn a_reset_glued_to_its_form_is_read() {
    let s = read(
        200,
        &Headers::new(&[
            ("bitvavo-ratelimit-limit", b"1000"),
            ("bitvavo-ratelimit-remaining", b"987"),
            ("bitvavo-ratelimit-resetat", b"1748779230000"),
        ]),
        now(),
        Flavour::Auto,
    );
    assert_eq!(s.quota.len(), 1, "{:?}", s.quota);
    assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(30)));
    let s = read(
        200,
        &Headers::new(&[
            ("X-Quota-Limit", b"500"),
            ("X-Quota-Remaining", b"20"),
            ("X-Quota-ResetDate", b"Sun, 01 Jun 2025 13:00:00 GMT"),
        ]),
        now(),
        Flavour::Auto,
    );
    assert_eq!(s.quota.len(), 1, "{:?}", s.quota);
    assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(3600)));
}

#[test]
fn explicit_flavour_restricts_quota_parsing_but_not_retry_after() {
    let fields: [(&str, &[u8]); 4] = [
        ("x-ratelimit-limit", b"60"),
        ("x-ratelimit-limit-requests", b"100"),
        ("RateLimit", b"limit=10, remaining=1, reset=5"),
        ("Retry-After", b"3"),
    ];
    let h = Headers::new(&fields);
    let policies = |f| -> Vec<String> {
        read(429, &h, now(), f)
            .quota
            .into_iter()
            .map(|q| q.policy)
            .collect()
    };
    assert_eq!(policies(Flavour::Github), ["default"]);
    assert_eq!(policies(Flavour::Openai), ["requests"]);
    assert_eq!(read(429, &h, now(), Flavour::Ietf).quota[0].limit, Some(10));
    assert_eq!(policies(Flavour::Shopify), Vec::<String>::new());
    assert_eq!(
        read(429, &h, now(), Flavour::Shopify).retry_after,
        Some(Duration::from_secs(3))
    );
    // Auto sees all three; GitHub's and IETF's unnamed "default" merge.
    let auto = read(429, &h, now(), Flavour::Auto);
    assert_eq!(auto.quota.len(), 2);
    assert_eq!(auto.quota[0].policy, "default");
    assert_eq!(auto.quota[0].remaining, Some(1));
}

#[test]
fn most_constraining_first_across_families() {
    let fields: [(&str, &[u8]); 4] = [
        ("x-ratelimit-limit-requests", b"100"),
        ("x-ratelimit-remaining-requests", b"90"),
        ("x-ratelimit-limit-tokens", b"1000"),
        ("x-ratelimit-remaining-tokens", b"10"),
    ];
    let s = read(200, &Headers::new(&fields), now(), Flavour::Auto);
    assert_eq!(s.quota[0].policy, "tokens");
}

#[test]
fn flavour_serde_is_snake_case() {
    assert_eq!(
        serde_json::to_string(&Flavour::MicrosoftGraph).unwrap(),
        "\"microsoft_graph\""
    );
    let f: Flavour = serde_json::from_str("\"openai\"").unwrap();
    assert_eq!(f, Flavour::Openai);
    // The config values of the newer families.
    for (name, want) in [
        ("azure_resource_manager", Flavour::AzureResourceManager),
        ("linear", Flavour::Linear),
        ("okta", Flavour::Okta),
        ("gitlab", Flavour::Gitlab),
        ("reddit", Flavour::Reddit),
        ("sentry", Flavour::Sentry),
    ] {
        let f: Flavour = serde_json::from_value(serde_json::json!(name)).unwrap();
        assert_eq!(f, want, "{name}");
    }
    assert_eq!(Flavour::default(), Flavour::Auto);
}

#[test]
fn signals_serialise() {
    let fields: [(&str, &[u8]); 3] = [
        ("Retry-After", b"2"),
        ("Deprecation", b"@1688169599"),
        ("x-ratelimit-remaining", b"0"),
    ];
    let s = read(403, &Headers::new(&fields), now(), Flavour::Auto);
    let json = serde_json::to_value(&s).unwrap();
    assert_eq!(json["retry_after"]["secs"], 2);
    assert_eq!(json["rate_limited"], true);
    assert_eq!(json["deprecation"]["since"], "2023-06-30T23:59:59Z");
    assert_eq!(json["quota"][0]["policy"], "default");
    let empty = serde_json::to_value(Signals::default()).unwrap();
    assert_eq!(empty["deprecation"], serde_json::Value::Null);
}

#[test]
fn kitchen_sink_response() {
    // A response carrying every kind of signal at once.
    let fields: [(&str, &[u8]); 7] = [
        ("RateLimit-Policy", br#""hour";q=1000;w=3600"#),
        ("RateLimit", br#""hour";r=0;t=1800"#),
        ("Retry-After", b"60"),
        ("Warning", b"299 - \"v1 is deprecated; use v2\""),
        ("Deprecation", b"true"),
        ("Sunset", b"Wed, 31 Dec 2025 23:59:59 GMT"),
        (
            "Link",
            b"<https://api.example/v2>; rel=\"successor-version\"",
        ),
    ];
    let s = read(429, &Headers::new(&fields), now(), Flavour::Auto);
    assert!(s.rate_limited);
    assert_eq!(s.retry_after, Some(Duration::from_secs(60)));
    assert_eq!(
        s.quota,
        vec![Quota {
            limit: Some(1000),
            remaining: Some(0),
            reset_after: Some(Duration::from_secs(1800)),
            window: Some(Duration::from_secs(3600)),
            ..Quota::new("hour")
        }]
    );
    let d = s.deprecation.unwrap();
    assert!(d.deprecated);
    assert_eq!(d.successor.as_deref(), Some("https://api.example/v2"));
    assert_eq!(s.warnings, ["v1 is deprecated; use v2"]);
}

mod vendor_quotas;
