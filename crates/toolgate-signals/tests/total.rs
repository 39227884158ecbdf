//! Property tests: every parser is total. Arbitrary header names and bytes, bodies,
//! arbitrary `now` and status never panic; waits never exceed their caps; what an
//! upstream controls (policy count and names) stays bounded; and nothing is called
//! deprecated unless a deprecation header said so.

use std::time::Duration;

use chrono::{DateTime, Utc};
use proptest::prelude::*;
use toolgate_signals::{
    Flavour, Headers, MAX_WAIT, body, quota, read, reset, retry_after, status_page,
};

const FLAVOURS: [Flavour; 19] = [
    Flavour::Auto,
    Flavour::Ietf,
    Flavour::Github,
    Flavour::Atlassian,
    Flavour::Zendesk,
    Flavour::Shopify,
    Flavour::Discord,
    Flavour::X,
    Flavour::Openai,
    Flavour::Anthropic,
    Flavour::Salesforce,
    Flavour::Hubspot,
    Flavour::MicrosoftGraph,
    Flavour::AzureResourceManager,
    Flavour::Linear,
    Flavour::Okta,
    Flavour::Gitlab,
    Flavour::Reddit,
    Flavour::Sentry,
];

/// Header names the parsers look at, so random values actually reach them.
const NAMES: &[&str] = &[
    "retry-after",
    "retry-after-ms",
    "x-ms-retry-after-ms",
    "grpc-retry-pushback-ms",
    "ratelimit",
    "ratelimit-policy",
    "ratelimit-limit",
    "ratelimit-remaining",
    "ratelimit-reset",
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-ratelimit-used",
    "x-ratelimit-resource",
    "x-ratelimit-reset-after",
    "x-ratelimit-bucket",
    "x-ratelimit-global",
    "x-ratelimit-scope",
    "x-ratelimit-nearlimit",
    "ratelimit-reason",
    "beta-retry-after",
    "beta-ratelimit",
    "beta-ratelimit-policy",
    "x-rate-limit",
    "x-rate-limit-limit",
    "x-rate-limit-remaining",
    "x-rate-limit-reset",
    "zendesk-ratelimit-tickets-index",
    "x-shopify-shop-api-call-limit",
    "x-ratelimit-limit-requests",
    "x-ratelimit-reset-tokens",
    "anthropic-ratelimit-tokens-reset",
    "anthropic-ratelimit--reset",
    "sforce-limit-info",
    "x-hubspot-ratelimit-interval-milliseconds",
    "x-hubspot-ratelimit-max",
    "x-ms-throttle-limit-percentage",
    "x-ms-throttle-information",
    "deprecation",
    "sunset",
    "link",
    "warning",
    "x-shopify-api-deprecated-reason",
    "x-ms-ratelimit-remaining-resource",
    "x-ms-ratelimit-remaining-subscription-reads",
    "x-ratelimit-requests-limit",
    "x-ratelimit-requests-remaining",
    "x-ratelimit-requests-reset",
    "ratelimit-observed",
    "ratelimit-resettime",
    "x-sentry-rate-limit-limit",
    "x-sentry-rate-limit-reset",
    "x-sentry-rate-limit-concurrentremaining",
    // Read by their shape.
    "x-sib-ratelimit-remaining",
    "x-app-rate-limit",
    "x-app-rate-limit-count",
    "x-rate-limit-api-token-interval-ms",
    "x-ratelimit-retry-after",
    "x-quota-reset",
    "x-user-limit-24hour-limit",
    "x-api-deprecation-date",
    "x-api-retirement-date",
];

/// Values close to the grammars, so the interesting branches are exercised.
const VALUES: &[&str] = &[
    "0",
    "1.5",
    "-1",
    "99999999999999999999999",
    "1372700873",
    "1372700873000",
    "6m0s",
    "2013-07-01T17:47:53Z",
    "Mon, 01 Jul 2013 17:47:53 GMT",
    "@1688169599",
    "@-99999999999999",
    "true",
    "limit=100, remaining=50, reset=30",
    "\"default\";r=50;t=30",
    "100;w=60",
    "\"a\";q=99999999999999999;w=-1",
    "32/40",
    "api-usage=18/5000",
    "total=1; remaining=x",
    "<https://x>; rel=\"deprecation successor-version\"",
    "299 - \"text\"",
    "0.85",
    "598.0",
    "Microsoft.Compute/HighCostGet3Min;159,Microsoft.Compute/HighCostGet30Min;799",
    ";;;,,,;",
    "Sun, 30 Jun 2024 23:59:59 UTC",
    "Friday, 31-Dec-99 23:59:59 GMT",
    "Sun Nov  6 08:49:37 1994",
    "30 Jun 2024 23:59:59 +0200",
    "1700000060000",
    "299 - \"a, \\\"b\\\", c; use d\"",
    "20:1,100:120",
    "PT1M30S",
    "Tue Feb 16 2021 09:02:42 GMT+0100 (Central European Standard Time)",
    "limit=100; remaining=0; reset=30",
    "10/40",
    "2024-12-01",
    "",
];

/// Body fragments near the grammars `body::read` and `status_page::parse` look for.
const BODY_PARTS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "\"error\":\"ratelimited\"",
    "\"retry_after\":",
    "64.57",
    "-1",
    "1e400",
    "\"global\":true",
    "\"code\":\"THROTTLED\"",
    "\"throttleStatus\":{\"maximumAvailable\":1000,\"currentlyAvailable\":",
    "\"restoreRate\":0",
    "\"requestedQueryCost\":",
    "\"rateLimit\":{\"remaining\":",
    "\"resetAt\":\"2019-06-21T17:08:36Z\"",
    "\"errorCode\":\"REQUEST_LIMIT_EXCEEDED\"",
    "\"page\":{\"status\":\"HASISSUES\"}",
    "\"data\":",
    "\"attributes\":{\"aggregate_state\":\"downtime\"}",
    "\"result\":{\"status_overall\":{\"status\":\"Service Disruption\"}}",
    "{\"name\":\"c\",\"status\":4}",
    "\"warnings\":[",
    "\"warning\":\"method_deprecated\"",
    "\"meta\":{\"deprecation\":{\"sunset\":\"2026-01-01\",\"message\":\"This endpoint is deprecated\"}}",
    "\"message\":\"This API is no longer supported\"",
    "\"stat\":\"ok\"",
    "\"monitors\":[{\"friendly_name\":\"m\",\"status\":9}]",
    "\"ongoing_incidents\":[",
    "\"current_worst_impact\":\"full_outage\"",
    "\"affected_components\":[{\"name\":\"API\"}]",
    "\"retryDelay\":\"31s\"",
    "\"retry_after_ms\":",
    "\"__type\":\"ThrottlingException\"",
    "\"sunset_date\":\"2025-01-15\"",
    "\"checks\":[{\"Status\":\"critical\"}]",
];

fn now_strategy() -> impl Strategy<Value = DateTime<Utc>> {
    prop_oneof![
        Just(DateTime::<Utc>::MIN_UTC),
        Just(DateTime::<Utc>::MAX_UTC),
        (-100_000_000_000i64..100_000_000_000i64)
            .prop_map(|s| DateTime::from_timestamp(s, 0).unwrap_or_default()),
    ]
}

fn value_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..48),
        proptest::sample::select(VALUES).prop_map(|v| v.as_bytes().to_vec()),
        "[ -~]{0,40}".prop_map(String::into_bytes),
        (
            proptest::sample::select(VALUES),
            proptest::sample::select(VALUES)
        )
            .prop_map(|(a, b)| format!("{a}, {b}").into_bytes()),
    ]
}

fn body_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..256),
        proptest::collection::vec(proptest::sample::select(BODY_PARTS), 0..24)
            .prop_map(|parts| parts.concat().into_bytes()),
        // Long bodies whose interesting parts straddle the read bound.
        (
            proptest::collection::vec(proptest::sample::select(BODY_PARTS), 0..12),
            3_900usize..4_300,
            proptest::collection::vec(proptest::sample::select(BODY_PARTS), 0..12),
        )
            .prop_map(|(a, pad, b)| {
                let mut v = a.concat().into_bytes();
                v.extend(std::iter::repeat_n(b' ', pad));
                v.extend(b.concat().into_bytes());
                v
            }),
    ]
}

fn name_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::sample::select(NAMES).prop_map(str::to_owned),
        proptest::sample::select(NAMES).prop_map(|n| n.to_ascii_uppercase()),
        ".{0,24}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn read_is_total(
        fields in proptest::collection::vec((name_strategy(), value_strategy()), 0..12),
        now in now_strategy(),
        status in any::<u16>(),
        flavour in proptest::sample::select(&FLAVOURS[..]),
    ) {
        let borrowed: Vec<(&str, &[u8])> =
            fields.iter().map(|(n, v)| (n.as_str(), v.as_slice())).collect();
        let s = read(status, &Headers::new(&borrowed), now, flavour);
        prop_assert!(s.retry_after.is_none_or(|d| d <= MAX_WAIT));
        prop_assert!(s.quota.len() <= quota::MAX_POLICIES);
        for q in &s.quota {
            prop_assert!(q.reset_after.is_none_or(|d| d <= reset::MAX_RESET));
            prop_assert!(!q.policy.is_empty());
            prop_assert!(q.policy.len() <= quota::MAX_POLICY_NAME);
            prop_assert!(q
                .policy
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-')));
        }
        prop_assert!(serde_json::to_string(&s).is_ok());
        // Nothing is "deprecated" unless a deprecation header said so.
        let declared = borrowed.iter().any(|(n, _)| {
            let n = n.trim();
            n.eq_ignore_ascii_case("deprecation")
                || n.to_ascii_lowercase().contains("deprecat")
        });
        if !declared {
            prop_assert!(s.deprecation.as_ref().is_none_or(|d| !d.is_deprecated_at(now)));
        }
    }

    #[test]
    fn body_read_is_total_and_bounded(
        bytes in body_strategy(),
        now in now_strategy(),
        status in any::<u16>(),
    ) {
        let b = body::read(status, &bytes, now);
        prop_assert!(b.retry_after.is_none_or(|d| d <= MAX_WAIT));
        for q in &b.quota {
            prop_assert!(q.reset_after.is_none_or(|d| d <= reset::MAX_RESET));
        }
        let _ = body::worth_reading(status, &bytes);
        // A successful body's notices: total, and only what the windows hold.
        if let Some(ok) = body::read_success(&bytes, now) {
            prop_assert!(ok.retry_after.is_none() && !ok.rate_limited);
            prop_assert!(ok.warnings.iter().all(|w| w.chars().count() <= 300));
        }
        // Bytes past the prefix never change the answer.
        let prefix = &bytes[..bytes.len().min(body::MAX_BODY_PREFIX)];
        prop_assert_eq!(body::read(status, prefix, now), b.clone());
        // Folded into header signals, the bounds still hold.
        let mut s = read(status, &Headers::new(&[]), now, Flavour::Auto);
        s.absorb_body(b);
        prop_assert!(s.retry_after.is_none_or(|d| d <= MAX_WAIT));
        prop_assert!(s.quota.len() <= quota::MAX_POLICIES);
    }

    #[test]
    fn http_dates_are_total(value in value_strategy(), now in now_strategy()) {
        if let Ok(v) = std::str::from_utf8(&value) {
            let _ = reset::http_date(v, now);
            let _ = reset::parse_timestamp(v, now);
        }
    }

    #[test]
    fn http_date_near_misses_are_total(
        day in prop_oneof![Just(String::new()), Just("Sunday".to_owned()), "[A-Za-zé]{0,9}"],
        date in prop_oneof![
            Just("06 Nov 1994".to_owned()),
            Just("06-Nov-94".to_owned()),
            "[0-9A-Za-z é-]{0,14}",
        ],
        time in prop_oneof![Just("08:49:37".to_owned()), "[0-9:é]{0,9}"],
        zone in prop_oneof![
            Just("GMT".to_owned()),
            "[+-][0-9é:]{0,5}",
            "[+:0-9A-Za-zé-]{0,7}",
        ],
        now in now_strategy(),
    ) {
        let v = format!("{day}, {date} {time} {zone}");
        if let Some(t) = reset::http_date(&v, now) {
            // Whatever is accepted is a real instant that formats back.
            prop_assert!(!t.to_rfc3339().is_empty());
        }
        let _ = retry_after::parse(v.as_bytes(), now);
        let _ = reset::parse(v.as_bytes(), now);
    }

    #[test]
    fn retry_after_never_panics_and_respects_the_cap(
        value in value_strategy(),
        now in now_strategy(),
    ) {
        prop_assert!(retry_after::parse(&value, now).is_none_or(|d| d <= MAX_WAIT));
        prop_assert!(retry_after::parse_ms(&value).is_none_or(|d| d <= MAX_WAIT));
        prop_assert!(reset::parse(&value, now).is_none_or(|d| d <= reset::MAX_RESET));
    }

    #[test]
    fn delta_seconds_round_trip(secs in 0u64..86_400, now in now_strategy()) {
        let v = secs.to_string();
        prop_assert_eq!(retry_after::parse(v.as_bytes(), now), Some(Duration::from_secs(secs)));
    }

    #[test]
    fn warning_near_misses_are_total(
        members in proptest::collection::vec(
            (
                prop_oneof![Just("299".to_owned()), Just("199".to_owned()), "[0-9é]{0,4}"],
                prop_oneof![Just("-".to_owned()), "[a-zé:.\"]{0,6}"],
                "[ -~é\\\\]{0,40}",
            ),
            0..6,
        ),
        now in now_strategy(),
    ) {
        let value = members
            .iter()
            .map(|(code, agent, text)| format!("{code} {agent} \"{text}\""))
            .collect::<Vec<_>>()
            .join(", ");
        let fields: [(&str, &[u8]); 2] = [("Warning", value.as_bytes()), ("Deprecation", b"?1")];
        let s = read(200, &Headers::new(&fields), now, Flavour::Auto);
        prop_assert!(s.notices.len() <= 16);
        prop_assert_eq!(s.notices.len(), s.warnings.len());
        for n in &s.notices {
            prop_assert!(n.code == 199 || n.code == 299);
            prop_assert!(n.successor.as_ref().is_none_or(|x| !x.is_empty() && x.len() <= 200));
        }
    }

    #[test]
    fn status_page_is_total(body in body_strategy()) {
        if let Some(p) = status_page::parse(&body) {
            prop_assert!(serde_json::to_string(&p).is_ok());
        }
    }
}
