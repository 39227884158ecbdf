//! Cost of `toolgate_signals::read` — paid once per upstream attempt — on realistic
//! response header sets: each rate-limit family as the vendor sends it, surrounded by the
//! ordinary headers a real response carries (date, content-type, caching, tracing …),
//! with `Flavour::Auto` (the default: every family is tried by header name) and with the
//! family's own flavour where it has one.

use std::hint::black_box;

use chrono::{DateTime, TimeZone, Utc};
use criterion::{Criterion, criterion_group, criterion_main};
use toolgate_signals::{Flavour, Headers, body, read};

type Fields = Vec<(&'static str, &'static [u8])>;

/// Headers every response carries, whatever the API.
fn ordinary() -> Fields {
    vec![
        ("date", b"Mon, 30 Nov 2026 12:00:00 GMT"),
        ("content-type", b"application/json; charset=utf-8"),
        ("content-length", b"10342"),
        ("connection", b"keep-alive"),
        ("cache-control", b"private, max-age=60, s-maxage=60"),
        ("vary", b"Accept, Authorization, Cookie, Accept-Encoding"),
        ("etag", b"W/\"a7f3c1d5e2b94f0e8c6d7a1b2c3d4e5f\""),
        ("x-request-id", b"3f2b8c1e-9d4a-4e6b-8f7c-1a2b3c4d5e6f"),
        (
            "strict-transport-security",
            b"max-age=31536000; includeSubDomains",
        ),
        ("server", b"nginx"),
    ]
}

fn with(extra: &[(&'static str, &'static [u8])]) -> Fields {
    let mut f = ordinary();
    f.extend_from_slice(extra);
    f
}

struct Case {
    name: &'static str,
    status: u16,
    fields: Fields,
    flavour: Option<Flavour>,
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            name: "plain_no_signals",
            status: 200,
            fields: ordinary(),
            flavour: None,
        },
        Case {
            name: "github",
            status: 200,
            fields: with(&[
                ("x-ratelimit-limit", b"5000"),
                ("x-ratelimit-remaining", b"4987"),
                ("x-ratelimit-reset", b"1796040000"),
                ("x-ratelimit-used", b"13"),
                ("x-ratelimit-resource", b"core"),
                ("x-github-api-version-selected", b"2022-11-28"),
                ("x-github-request-id", b"C0DE:1A2B:3C4D5E:6F7081:6745A1B2"),
            ]),
            flavour: Some(Flavour::Github),
        },
        Case {
            name: "ietf_structured",
            status: 200,
            fields: with(&[
                (
                    "ratelimit-policy",
                    b"\"burst\";q=100;w=60, \"daily\";q=1000;w=86400",
                ),
                ("ratelimit", b"\"burst\";r=45;t=30, \"daily\";r=872;t=40000"),
            ]),
            flavour: Some(Flavour::Ietf),
        },
        Case {
            name: "openai",
            status: 200,
            fields: with(&[
                ("openai-organization", b"org-abc123"),
                ("openai-processing-ms", b"512"),
                ("openai-version", b"2020-10-01"),
                ("x-ratelimit-limit-requests", b"10000"),
                ("x-ratelimit-limit-tokens", b"2000000"),
                ("x-ratelimit-remaining-requests", b"9999"),
                ("x-ratelimit-remaining-tokens", b"1999820"),
                ("x-ratelimit-reset-requests", b"6ms"),
                ("x-ratelimit-reset-tokens", b"5m24.45s"),
            ]),
            flavour: Some(Flavour::Openai),
        },
        Case {
            name: "anthropic",
            status: 200,
            fields: with(&[
                ("anthropic-ratelimit-requests-limit", b"4000"),
                ("anthropic-ratelimit-requests-remaining", b"3999"),
                (
                    "anthropic-ratelimit-requests-reset",
                    b"2026-11-30T12:00:01Z",
                ),
                ("anthropic-ratelimit-tokens-limit", b"480000"),
                ("anthropic-ratelimit-tokens-remaining", b"479000"),
                ("anthropic-ratelimit-tokens-reset", b"2026-11-30T12:00:02Z"),
                ("anthropic-ratelimit-input-tokens-limit", b"400000"),
                ("anthropic-ratelimit-input-tokens-remaining", b"399200"),
                (
                    "anthropic-ratelimit-input-tokens-reset",
                    b"2026-11-30T12:00:02Z",
                ),
                ("anthropic-ratelimit-output-tokens-limit", b"80000"),
                ("anthropic-ratelimit-output-tokens-remaining", b"79800"),
                (
                    "anthropic-ratelimit-output-tokens-reset",
                    b"2026-11-30T12:00:01Z",
                ),
                ("request-id", b"req_018EeWyXxfu5pfWkrYcMdjWG"),
            ]),
            flavour: Some(Flavour::Anthropic),
        },
        Case {
            name: "atlassian",
            status: 200,
            fields: with(&[
                ("x-ratelimit-limit", b"350"),
                ("x-ratelimit-remaining", b"60"),
                ("x-ratelimit-reset", b"2026-11-30T12:01Z"),
                ("x-ratelimit-nearlimit", b"true"),
                ("ratelimit-reason", b"jira-quota-tenant-based"),
                ("beta-ratelimit-policy", b"\"global-app\";q=65000;w=3600"),
                ("beta-ratelimit", b"\"global-app\";r=12000;t=1800"),
                ("atl-traceid", b"5f1c2d3e4a5b6c7d"),
            ]),
            flavour: Some(Flavour::Atlassian),
        },
        Case {
            name: "discord_429",
            status: 429,
            fields: with(&[
                ("x-ratelimit-limit", b"5"),
                ("x-ratelimit-remaining", b"0"),
                ("x-ratelimit-reset", b"1796040001.250"),
                ("x-ratelimit-reset-after", b"1.250"),
                ("x-ratelimit-bucket", b"abcd1234efgh5678"),
                ("x-ratelimit-scope", b"user"),
                ("retry-after", b"1.25"),
            ]),
            flavour: Some(Flavour::Discord),
        },
        Case {
            name: "retry_after_http_date_503",
            status: 503,
            fields: with(&[("retry-after", b"Mon, 30 Nov 2026 12:02:00 GMT")]),
            flavour: None,
        },
        Case {
            name: "deprecation_sunset_link",
            status: 200,
            fields: with(&[
                ("deprecation", b"@1794700800"),
                ("sunset", b"Tue, 30 Nov 2027 00:00:00 GMT"),
                (
                    "link",
                    b"<https://api.example.com/v4/search>; rel=\"successor-version\", \
<https://developer.example.com/deprecations/v3>; rel=\"deprecation\"; type=\"text/html\", \
<https://developer.example.com/sunset/v3>; rel=\"sunset\"",
                ),
            ]),
            flavour: None,
        },
    ]
}

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
        .single()
        .unwrap_or_default()
}

fn bench(c: &mut Criterion) {
    let now = now();
    let mut group = c.benchmark_group("read");
    for case in cases() {
        let headers = Headers::new(&case.fields);
        // Sanity: the families are actually recognised (a bench of a no-op is useless).
        let s = read(case.status, &headers, now, Flavour::Auto);
        let found = !s.quota.is_empty() || s.retry_after.is_some() || s.deprecation.is_some();
        assert_eq!(
            found,
            case.name != "plain_no_signals",
            "{}: {s:?}",
            case.name
        );
        group.bench_function(format!("{}/auto", case.name), |b| {
            b.iter(|| {
                read(
                    black_box(case.status),
                    black_box(&headers),
                    now,
                    Flavour::Auto,
                )
            })
        });
        if let Some(flavour) = case.flavour {
            group.bench_function(format!("{}/{flavour:?}", case.name).to_lowercase(), |b| {
                b.iter(|| read(black_box(case.status), black_box(&headers), now, flavour))
            });
        }
    }
    group.finish();
}

/// `body::read` on error bodies: an ordinary error (no rate-limit words, the cheap scan
/// only), a long HTML error page (the scan stops at the 4 KiB bound), and the rate-limit
/// bodies it exists for.
fn bench_body(c: &mut Criterion) {
    let now = now();
    let html = format!(
        "<html><body>{}</body></html>",
        "<p>Bad gateway</p>".repeat(2000)
    );
    let cases: [(&str, u16, &[u8]); 4] = [
        (
            "plain_404_json",
            404,
            br#"{"error":{"code":"not_found","message":"No such item: 4711"}}"#,
        ),
        ("long_html_502", 502, html.as_bytes()),
        (
            "discord_429",
            429,
            br#"{"message": "You are being rate limited.", "retry_after": 64.57, "global": false}"#,
        ),
        (
            "shopify_throttled",
            200,
            br#"{"errors":[{"message":"Throttled","extensions":{"code":"THROTTLED"}}],"extensions":{"cost":{"requestedQueryCost":202,"actualQueryCost":null,"throttleStatus":{"maximumAvailable":1000.0,"currentlyAvailable":136,"restoreRate":50.0}}}}"#,
        ),
    ];
    let mut group = c.benchmark_group("body");
    for (name, status, bytes) in cases {
        let limited = body::read(status, bytes, now).rate_limited;
        assert_eq!(
            limited,
            name != "plain_404_json" && name != "long_html_502",
            "{name}"
        );
        group.bench_function(name, |b| {
            b.iter(|| body::read(black_box(status), black_box(bytes), now))
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_body);
criterion_main!(benches);
