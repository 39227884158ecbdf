//! Rate-limit headers as vendors document them, grouped by the class of reading each
//! one needs, read through [`crate::read`] with `Flavour::Auto`. Each case checks the
//! most constraining quota (the one the gateway acts on and tells the model).
//!
//! Values are the vendors' documented examples; a case marked "variant" changes one
//! value of a documented example to reach another branch of the same rule.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::{Flavour, Headers, Signals, read};

/// What the first (most constraining) quota must say; `None` fields are not checked.
#[derive(Debug, Default, Clone, Copy)]
struct Want {
    limit: Option<u64>,
    remaining: Option<u64>,
    /// Seconds, to the millisecond.
    reset: Option<f64>,
    window: Option<u64>,
}

struct Case {
    id: &'static str,
    /// Unix seconds.
    now: i64,
    status: u16,
    headers: &'static [(&'static str, &'static str)],
    want: Want,
}

/// 2025-06-01T12:00:00Z.
const NOW: i64 = 1_748_779_200;

fn run(c: &Case) -> Signals {
    let fields: Vec<(&str, &[u8])> = c.headers.iter().map(|(n, v)| (*n, v.as_bytes())).collect();
    let now = DateTime::<Utc>::from_timestamp(c.now, 0).unwrap_or_default();
    read(c.status, &Headers::new(&fields), now, Flavour::Auto)
}

fn check(cases: &[Case]) {
    let mut wrong = Vec::new();
    for c in cases {
        let s = run(c);
        let Some(q) = s.quota.first() else {
            wrong.push(format!("{}: no quota", c.id));
            continue;
        };
        let w = c.want;
        let reset_ok = match (w.reset, q.reset_after) {
            (None, _) => true,
            (Some(want), Some(got)) => (got.as_secs_f64() - want).abs() < 0.001,
            (Some(_), None) => false,
        };
        if w.limit.is_some_and(|l| q.limit != Some(l))
            || w.remaining.is_some_and(|r| q.remaining != Some(r))
            || !reset_ok
            || w.window
                .is_some_and(|s| q.window != Some(Duration::from_secs(s)))
        {
            wrong.push(format!("{}: got {q:?}, want {w:?}", c.id));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

const fn want(limit: u64, remaining: u64) -> Want {
    Want {
        limit: Some(limit),
        remaining: Some(remaining),
        reset: None,
        window: None,
    }
}

const fn with_reset(w: Want, secs: f64) -> Want {
    Want {
        reset: Some(secs),
        ..w
    }
}

/// A reset given as milliseconds, without a unit in its name: epoch milliseconds
/// (told apart by magnitude) and deltas no seconds reading can explain.
#[test]
fn resets_in_milliseconds() {
    check(&[
        // developer.prisjakt.nu, "Rate Limits": "The time in milliseconds when the
        // current rate limit window resets", example `600000 (in milliseconds)`.
        Case {
            id: "prisjakt",
            now: NOW,
            status: 429,
            headers: &[
                ("X-Rate-Limit-Limit", "10000"),
                ("X-Rate-Limit-Remaining", "0"),
                ("X-Rate-Limit-Reset", "600000"),
            ],
            want: with_reset(want(10000, 0), 600.0),
        },
        // Variant: an hour in milliseconds under GitHub-style names; as seconds it would
        // be 41 days, past any quota window.
        Case {
            id: "hour-in-ms",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit", "5000"),
                ("X-RateLimit-Remaining", "4000"),
                ("X-RateLimit-Reset", "3600000"),
            ],
            want: with_reset(want(5000, 4000), 3600.0),
        },
        // bybit-exchange.github.io/docs/v5/rate-limit: `X-Bapi-Limit-Status` is the
        // remaining count, `X-Bapi-Limit-Reset-Timestamp` epoch milliseconds.
        Case {
            id: "bybit",
            now: 1_672_738_130,
            status: 200,
            headers: &[
                ("X-Bapi-Limit", "100"),
                ("X-Bapi-Limit-Status", "99"),
                ("X-Bapi-Limit-Reset-Timestamp", "1672738134824"),
            ],
            want: with_reset(want(100, 99), 4.824),
        },
        // Gate.io API v4, "Rate Limit": `X-Gate-RateLimit-Requests-Remain`,
        // `X-Gate-RateLimit-Limit`, `X-Gate-RateLimit-Reset-Timestamp` (milliseconds).
        Case {
            id: "gate",
            now: NOW,
            status: 429,
            headers: &[
                ("X-Gate-RateLimit-Requests-Remain", "0"),
                ("X-Gate-RateLimit-Limit", "200"),
                ("X-Gate-RateLimit-Reset-Timestamp", "1748779210000"),
            ],
            want: with_reset(want(200, 0), 10.0),
        },
        // Linear: `X-RateLimit-Requests-Reset` in epoch milliseconds.
        Case {
            id: "linear",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Requests-Limit", "5000"),
                ("X-RateLimit-Requests-Remaining", "4999"),
                ("X-RateLimit-Requests-Reset", "1748779260000"),
            ],
            want: with_reset(want(5000, 4999), 60.0),
        },
    ]);
}

/// Long deltas that are seconds, and must stay so beside the millisecond rule.
#[test]
fn long_second_deltas_stay_seconds() {
    check(&[
        // RapidAPI proxy (docs.rapidapi.com "Response Headers"), a monthly plan as sent:
        // 25 days in seconds.
        Case {
            id: "rapidapi-monthly",
            now: NOW,
            status: 200,
            headers: &[
                ("x-ratelimit-requests-limit", "240000"),
                ("x-ratelimit-requests-remaining", "205676"),
                ("x-ratelimit-requests-reset", "2163603"),
            ],
            want: with_reset(want(240000, 205676), 2_163_603.0),
        },
        // Variant: a full 30-day window in seconds (Brave's monthly `w=2592000`).
        Case {
            id: "thirty-days",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit", "15000"),
                ("X-RateLimit-Remaining", "10"),
                ("X-RateLimit-Reset", "2592000"),
            ],
            want: with_reset(want(15000, 10), 2_592_000.0),
        },
        // developers.feedly.com "Request Limits": `X-Ratelimit-Reset: 23841` is
        // "6 hours, 37 minutes, and 21 seconds".
        Case {
            id: "feedly",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit", "100000"),
                ("X-Ratelimit-Count", "57"),
                ("X-Ratelimit-Reset", "23841"),
            ],
            want: Want {
                reset: Some(23841.0),
                ..Want::default()
            },
        },
    ]);
}

/// A header whose value is a JSON object of percentages used (Meta's Graph and
/// Marketing APIs): a quota of 100 percent, remaining 100 − the highest.
#[test]
fn json_percent_used_headers() {
    check(&[
        // developers.facebook.com/docs/graph-api/overview/rate-limiting, X-App-Usage.
        Case {
            id: "meta-app-usage",
            now: NOW,
            status: 200,
            headers: &[(
                "X-App-Usage",
                r#"{"call_count":28,"total_time":25,"total_cputime":25}"#,
            )],
            want: want(100, 72),
        },
        // Same page, X-Business-Use-Case-Usage: per business id, a list of use cases;
        // `estimated_time_to_regain_access` is minutes.
        Case {
            id: "meta-buc-usage",
            now: NOW,
            status: 200,
            headers: &[(
                "X-Business-Use-Case-Usage",
                r#"{"112233445566778":[{"type":"pages","call_count":95,"total_cputime":20,"total_time":20,"estimated_time_to_regain_access":0}]}"#,
            )],
            want: want(100, 5),
        },
        Case {
            id: "meta-buc-throttled",
            now: NOW,
            status: 400,
            headers: &[(
                "x-business-use-case-usage",
                r#"{"112233445566778":[{"type":"ads_management","call_count":100,"total_cputime":40,"total_time":35,"estimated_time_to_regain_access":19,"ads_api_access_tier":"standard_access"}],"998877":[{"type":"ads_insights","call_count":3,"total_cputime":1,"total_time":1,"estimated_time_to_regain_access":0}]}"#,
            )],
            want: with_reset(want(100, 0), 19.0 * 60.0),
        },
        // Marketing API: X-Ad-Account-Usage, `reset_time_duration` in seconds.
        Case {
            id: "meta-ad-account-usage",
            now: NOW,
            status: 200,
            headers: &[(
                "x-ad-account-usage",
                r#"{"acc_id_util_pct":9.67,"reset_time_duration":100,"ads_api_access_tier":"standard_access"}"#,
            )],
            want: with_reset(want(100, 90), 100.0),
        },
        // Insights API: X-FB-Ads-Insights-Throttle.
        Case {
            id: "meta-insights-throttle",
            now: NOW,
            status: 200,
            headers: &[(
                "X-FB-Ads-Insights-Throttle",
                r#"{"app_id_util_pct":100,"acc_id_util_pct":10,"ads_api_access_tier":"standard_access"}"#,
            )],
            want: want(100, 0),
        },
    ]);
}

/// Several windows in one field, listed in the same order in each field: every window
/// is a quota, and the tightest comes first.
#[test]
fn comma_separated_windows() {
    check(&[
        // developers.strava.com/docs/rate-limits: "600,30000" is the 15-minute and the
        // daily limit, `X-RateLimit-Usage` the use of each. The daily one is tighter.
        Case {
            id: "strava-daily-tighter",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit", "600,30000"),
                ("X-RateLimit-Usage", "314,27536"),
            ],
            want: want(30000, 2464),
        },
        Case {
            id: "strava-15min-tighter",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit", "600,30000"),
                ("X-RateLimit-Usage", "598,27536"),
            ],
            want: want(600, 2),
        },
        // Strava's read limits, in their own fields.
        Case {
            id: "strava-read",
            now: NOW,
            status: 200,
            headers: &[
                ("X-ReadRateLimit-Limit", "300,3000"),
                ("X-ReadRateLimit-Usage", "10,2990"),
            ],
            want: want(3000, 10),
        },
        // api-dashboard.search.brave.com "Rate Limiting": per-second and monthly windows,
        // with the windows in `X-RateLimit-Policy` and a reset per window.
        Case {
            id: "brave",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit", "1, 15000"),
                ("X-RateLimit-Policy", "1;w=1, 15000;w=2592000"),
                ("X-RateLimit-Remaining", "1, 1000"),
                ("X-RateLimit-Reset", "1, 1419704"),
            ],
            want: Want {
                window: Some(2_592_000),
                ..with_reset(want(15000, 1000), 1_419_704.0)
            },
        },
        // Variant: the per-second window spent.
        Case {
            id: "brave-second-spent",
            now: NOW,
            status: 429,
            headers: &[
                ("X-RateLimit-Limit", "1, 15000"),
                ("X-RateLimit-Policy", "1;w=1, 15000;w=2592000"),
                ("X-RateLimit-Remaining", "0, 1000"),
                ("X-RateLimit-Reset", "1, 1419704"),
            ],
            want: Want {
                window: Some(1),
                ..with_reset(want(1, 0), 1.0)
            },
        },
        // developer.whoop.com "Rate Limiting": the draft-03 shape, the closest limit and
        // then its policies; one remaining. Not a list of windows.
        Case {
            id: "whoop",
            now: NOW,
            status: 200,
            headers: &[
                (
                    "X-RateLimit-Limit",
                    "100, 100;window=60, 10000;window=86400",
                ),
                ("X-RateLimit-Remaining", "98"),
                ("X-RateLimit-Reset", "3"),
            ],
            want: Want {
                window: Some(60),
                ..with_reset(want(100, 98), 3.0)
            },
        },
    ]);
}

/// One reset beside several named windows of the same family: it belongs to the
/// window it fits in, not to a quota of its own.
#[test]
fn a_bare_reset_joins_the_window_it_fits() {
    check(&[
        // Mistral (`ratelimitbysize-*` beside `x-ratelimitbysize-*-minute` / `-month`,
        // as Mistral's clients read them): the reset is the minute window's.
        Case {
            id: "mistral-minute-tighter",
            now: NOW,
            status: 200,
            headers: &[
                ("ratelimitbysize-limit", "500000"),
                ("ratelimitbysize-remaining", "1200"),
                ("ratelimitbysize-reset", "23"),
                ("ratelimitbysize-query-cost", "350"),
                ("x-ratelimitbysize-limit-minute", "500000"),
                ("x-ratelimitbysize-remaining-minute", "1200"),
                ("x-ratelimitbysize-limit-month", "1000000000"),
                ("x-ratelimitbysize-remaining-month", "990000000"),
            ],
            want: with_reset(want(500000, 1200), 23.0),
        },
        // Variant: no unnamed counts, only the reset, and the month is the tighter.
        // The month's quota must not borrow the minute's 23 seconds.
        Case {
            id: "mistral-month-tighter",
            now: NOW,
            status: 200,
            headers: &[
                ("ratelimitbysize-reset", "23"),
                ("x-ratelimitbysize-limit-minute", "500000"),
                ("x-ratelimitbysize-remaining-minute", "499000"),
                ("x-ratelimitbysize-limit-month", "1000000000"),
                ("x-ratelimitbysize-remaining-month", "1000"),
            ],
            want: want(1_000_000_000, 1000),
        },
    ]);
    // The reset went to the minute window, and no quota is left holding only it.
    let c = Case {
        id: "mistral-month-tighter",
        now: NOW,
        status: 200,
        headers: &[
            ("ratelimitbysize-reset", "23"),
            ("x-ratelimitbysize-limit-minute", "500000"),
            ("x-ratelimitbysize-remaining-minute", "499000"),
            ("x-ratelimitbysize-limit-month", "1000000000"),
            ("x-ratelimitbysize-remaining-month", "1000"),
        ],
        want: Want::default(),
    };
    let q = run(&c).quota;
    assert_eq!(q.len(), 2, "{q:?}");
    assert_eq!(q[0].reset_after, None, "{q:?}");
    assert_eq!(q[1].policy, "minute");
    assert_eq!(q[1].reset_after, Some(Duration::from_secs(23)));
}

/// One budget whose limit and remaining are spelled by different families.
#[test]
fn a_budget_split_across_names() {
    check(&[
        // docs.developer.yelp.com "Rate Limiting": `RateLimit-DailyLimit` beside the
        // IETF `RateLimit-Remaining` and `RateLimit-ResetTime`.
        Case {
            id: "yelp",
            now: NOW,
            status: 200,
            headers: &[
                ("RateLimit-DailyLimit", "5000"),
                ("RateLimit-Remaining", "4999"),
                ("RateLimit-ResetTime", "2025-06-02T00:00:00+00:00"),
            ],
            want: with_reset(want(5000, 4999), 43200.0),
        },
    ]);
}

/// A count with a fraction is its whole part.
#[test]
fn fractional_counts() {
    check(&[
        // Giphy (as its API answers, quoted in public client code): the daily remaining
        // is fractional; the day window is then the tighter one.
        Case {
            id: "giphy",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit-hour", "10"),
                ("X-RateLimit-Remaining-hour", "9"),
                ("X-RateLimit-Limit-day", "50"),
                ("X-RateLimit-Remaining-day", "3.003958333333"),
            ],
            want: want(50, 3),
        },
    ]);
}

/// A quota and a rate limit side by side, each its own budget.
#[test]
fn a_quota_beside_a_rate_limit() {
    check(&[
        // docs.marketcheck.com "Rate Limit Headers": per-second `RateLimit-*` and the
        // monthly `Quota-*`, each with an ISO reset time.
        Case {
            id: "marketcheck",
            now: NOW,
            status: 200,
            headers: &[
                ("RateLimit-Limit", "5"),
                ("RateLimit-Remaining", "4"),
                ("RateLimit-Reset-Time", "2025-06-01T12:00:01Z"),
                ("Quota-Limit", "1000"),
                ("Quota-Remaining", "3"),
                ("Quota-Reset-Time", "2025-06-02T12:00:00Z"),
            ],
            want: with_reset(want(1000, 3), 86_400.0),
        },
    ]);
}

/// Families already read right, kept as guards for the rules above.
#[test]
fn families_read_right_stay_right() {
    check(&[
        // dev.twitch.tv/docs/api/guide: `Ratelimit-Reset` in epoch seconds.
        Case {
            id: "twitch",
            now: NOW,
            status: 200,
            headers: &[
                ("Ratelimit-Limit", "800"),
                ("Ratelimit-Remaining", "799"),
                ("Ratelimit-Reset", "1748779260"),
            ],
            want: with_reset(want(800, 799), 60.0),
        },
        // developer.vimeo.com "Rate limiting": an ISO-8601 reset.
        Case {
            id: "vimeo",
            now: NOW,
            status: 200,
            headers: &[
                ("X-RateLimit-Limit", "100"),
                ("X-RateLimit-Remaining", "99"),
                ("X-RateLimit-Reset", "2025-06-01T12:01:00+00:00"),
            ],
            want: with_reset(want(100, 99), 60.0),
        },
        // docs.x.com Ads API: the ad-account level family.
        Case {
            id: "x-ads-account",
            now: NOW,
            status: 200,
            headers: &[
                ("x-account-rate-limit-limit", "2000"),
                ("x-account-rate-limit-remaining", "1999"),
                ("x-account-rate-limit-reset", "1748780100"),
            ],
            want: with_reset(want(2000, 1999), 900.0),
        },
        // Cohere trial keys.
        Case {
            id: "cohere-trial",
            now: NOW,
            status: 200,
            headers: &[
                ("x-trial-endpoint-call-limit", "10"),
                ("x-trial-endpoint-call-remaining", "9"),
            ],
            want: want(10, 9),
        },
        // Kong's rate-limiting plugin: per-period fields beside the IETF ones.
        Case {
            id: "kong",
            now: NOW,
            status: 200,
            headers: &[
                ("RateLimit-Limit", "60"),
                ("RateLimit-Remaining", "10"),
                ("RateLimit-Reset", "47"),
                ("X-RateLimit-Limit-Minute", "60"),
                ("X-RateLimit-Remaining-Minute", "10"),
                ("X-RateLimit-Limit-Hour", "1000"),
                ("X-RateLimit-Remaining-Hour", "900"),
            ],
            want: with_reset(want(60, 10), 47.0),
        },
    ]);
}

/// The readers stay total on hostile values of the new shapes.
#[test]
fn hostile_values_are_bounded() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let long_list = vec!["1"; 10_000].join(",");
    let wide = format!(
        "{{{}}}",
        (0..5000)
            .map(|i| format!("\"k{i}\":50"))
            .collect::<Vec<_>>()
            .join(",")
    );
    for (name, value) in [
        ("X-App-Usage", deep.as_str()),
        ("X-App-Usage", wide.as_str()),
        ("X-App-Usage", r#"{"call_count":1e308,"total_time":-5}"#),
        ("X-App-Usage", r#"{"call_count":"lots"}"#),
        ("X-RateLimit-Limit", long_list.as_str()),
        ("X-RateLimit-Usage", long_list.as_str()),
        ("X-RateLimit-Reset", "99999999999999999999999"),
    ] {
        let fields: [(&str, &[u8]); 1] = [(name, value.as_bytes())];
        let now = DateTime::<Utc>::from_timestamp(NOW, 0).unwrap_or_default();
        let s = read(429, &Headers::new(&fields), now, Flavour::Auto);
        assert!(s.quota.len() <= crate::quota::MAX_POLICIES, "{name}");
        for q in &s.quota {
            assert!(
                q.reset_after.is_none_or(|r| r <= crate::reset::MAX_RESET),
                "{q:?}"
            );
        }
    }
}
