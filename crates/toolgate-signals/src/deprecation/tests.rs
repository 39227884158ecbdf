use super::*;
use chrono::TimeZone;

fn run(fields: &[(&str, &[u8])], now: DateTime<Utc>) -> (Option<Deprecation>, Vec<String>) {
    let mut w = Vec::new();
    (read(&Headers::new(fields), now, &[], &mut w), w)
}

fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s).unwrap()
}

#[test]
fn rfc9745_example() {
    // RFC 9745 §2.1 and §3 examples, with RFC 8594's Sunset.
    let fields: [(&str, &[u8]); 3] = [
        ("Deprecation", b"@1688169599"),
        ("Sunset", b"Sun, 30 Jun 2024 23:59:59 GMT"),
        ("Link", br#"<https://developer.example.com/deprecation>; rel="deprecation"; type="text/html", <https://api.example.com/v2/items>; rel="successor-version""#),
    ];
    let (d, w) = run(&fields, utc(2024, 1, 1, 0, 0, 0));
    assert_eq!(
        d,
        Some(Deprecation {
            deprecated: true,
            since: Some(utc(2023, 6, 30, 23, 59, 59)),
            sunset: Some(utc(2024, 6, 30, 23, 59, 59)),
            successor: Some("https://api.example.com/v2/items".to_owned()),
            info: Some("https://developer.example.com/deprecation".to_owned()),
        })
    );
    assert!(w.is_empty());
}

#[test]
fn generations_table() {
    let now = utc(2024, 1, 1, 0, 0, 0);
    // (Deprecation value, deprecated, since)
    type Case<'a> = (&'a [u8], bool, Option<DateTime<Utc>>);
    let cases: &[Case<'_>] = &[
        (b"true", true, None),
        (b"TRUE", true, None),
        (b"?1", true, None),
        (b"false", false, None),
        (
            b"Sun, 11 Nov 2018 23:59:59 GMT",
            true,
            Some(utc(2018, 11, 11, 23, 59, 59)),
        ),
        (b"@1688169599", true, Some(utc(2023, 6, 30, 23, 59, 59))),
        // the draft's HTTP-date form with the near misses servers copy (UTC, no day)
        (
            b"Sun, 11 Nov 2018 23:59:59 UTC",
            true,
            Some(utc(2018, 11, 11, 23, 59, 59)),
        ),
        (
            b"11 Nov 2018 23:59:59 GMT",
            true,
            Some(utc(2018, 11, 11, 23, 59, 59)),
        ),
        // announced for the future: not yet deprecated
        (b"@1767225600", false, Some(utc(2026, 1, 1, 0, 0, 0))),
    ];
    for (value, deprecated, since) in cases {
        let fields: [(&str, &[u8]); 1] = [("Deprecation", value)];
        let d = run(&fields, now).0.unwrap();
        let shown = String::from_utf8_lossy(value);
        assert_eq!((d.deprecated, d.since), (*deprecated, *since), "{shown}");
    }
    for junk in [&b"@"[..], b"soon", b"@-x", &[0xff]] {
        let fields: [(&str, &[u8]); 1] = [("Deprecation", junk)];
        assert_eq!(run(&fields, now).0, None);
    }
}

#[test]
fn sunset_alone_and_link_only_forms() {
    let now = utc(2024, 1, 1, 0, 0, 0);
    let fields: [(&str, &[u8]); 2] = [
        ("Sunset", b"Sat, 31 Dec 2018 23:59:59 GMT"),
        (
            "Link",
            b"<http://example.net/sunset>;rel=\"sunset\";type=\"text/html\"",
        ),
    ];
    let d = run(&fields, now).0.unwrap();
    assert!(!d.deprecated);
    assert_eq!(d.sunset, Some(utc(2018, 12, 31, 23, 59, 59)));
    assert_eq!(d.info.as_deref(), Some("http://example.net/sunset"));
    // A latest-version link alone is ordinary versioning, not deprecation.
    let only_latest: [(&str, &[u8]); 1] = [("Link", b"<https://x/v9>; rel=latest-version")];
    assert_eq!(run(&only_latest, now).0, None);
}

#[test]
fn shopify_reason_is_a_warning() {
    let fields: [(&str, &[u8]); 1] = [(
        "X-Shopify-API-Deprecated-Reason",
        b"https://shopify.dev/api/admin-rest/latest/resources/product",
    )];
    let (d, w) = run(&fields, utc(2024, 1, 1, 0, 0, 0));
    assert!(d.unwrap().deprecated);
    assert_eq!(
        w,
        ["deprecated: https://shopify.dev/api/admin-rest/latest/resources/product"]
    );
}

#[test]
fn rfc9745_sunset_example_in_utc_is_read() {
    // RFC 9745 §5 shows `Sunset: Sun, 30 Jun 2024 23:59:59 UTC` (UTC, not GMT).
    let fields: [(&str, &[u8]); 2] = [
        ("Deprecation", b"@1688169599"),
        ("Sunset", b"Sun, 30 Jun 2024 23:59:59 UTC"),
    ];
    let (d, _) = run(&fields, utc(2024, 1, 1, 0, 0, 0));
    let d = d.unwrap();
    assert_eq!(d.sunset, Some(utc(2024, 6, 30, 23, 59, 59)));
    assert_eq!(
        d.stage(utc(2024, 1, 1, 0, 0, 0)),
        Stage::Deprecated {
            since: Some(utc(2023, 6, 30, 23, 59, 59))
        }
    );
}

#[test]
fn deprecation_said_only_when_declared_stage_table() {
    let now = utc(2026, 12, 1, 0, 0, 0);
    // (fields, stage at now)
    type Case<'a> = (&'a [(&'a str, &'a [u8])], Stage);
    let cases: &[Case<'_>] = &[
        // RFC 9745 §2: "will be or has been deprecated" — a future date is "will be".
        (
            &[("Deprecation", b"@1798761600")],
            Stage::Scheduled {
                on: utc(2027, 1, 1, 0, 0, 0),
            },
        ),
        // a past date, the flag forms
        (
            &[("Deprecation", b"@1688169599")],
            Stage::Deprecated {
                since: Some(utc(2023, 6, 30, 23, 59, 59)),
            },
        ),
        (&[("Deprecation", b"?1")], Stage::Deprecated { since: None }),
        (
            &[("Deprecation", b"true")],
            Stage::Deprecated { since: None },
        ),
        // RFC 8594: a Sunset alone says "will stop responding", not "deprecated"
        (
            &[("Sunset", b"Sat, 31 Dec 2027 23:59:59 GMT")],
            Stage::SunsetOnly {
                on: utc(2027, 12, 31, 23, 59, 59),
            },
        ),
        // a future deprecation with a later sunset is still "will be deprecated"
        (
            &[
                ("Deprecation", b"@1798761600"),
                ("Sunset", b"Sat, 31 Dec 2027 23:59:59 GMT"),
            ],
            Stage::Scheduled {
                on: utc(2027, 1, 1, 0, 0, 0),
            },
        ),
        // the draft's HTTP-date form, in the future
        (
            &[("Deprecation", b"Fri, 01 Jan 2027 00:00:00 GMT")],
            Stage::Scheduled {
                on: utc(2027, 1, 1, 0, 0, 0),
            },
        ),
        (&[("Deprecation", b"false")], Stage::Informational),
        (
            &[("Link", b"<https://d.example/why>; rel=\"deprecation\"")],
            Stage::Informational,
        ),
    ];
    for (fields, want) in cases {
        let d = run(fields, now).0.unwrap();
        assert_eq!(d.stage(now), *want, "{fields:?}");
        assert_eq!(
            d.deprecated,
            matches!(want, Stage::Deprecated { .. }),
            "{fields:?}"
        );
    }
}

#[test]
fn remembered_future_deprecation_becomes_deprecated_when_its_date_arrives() {
    let fields: [(&str, &[u8]); 1] = [("Deprecation", b"@1798761600")];
    let d = run(&fields, utc(2026, 12, 1, 0, 0, 0)).0.unwrap();
    assert!(!d.is_deprecated_at(utc(2026, 12, 31, 23, 59, 59)));
    assert!(d.is_deprecated_at(utc(2027, 1, 1, 0, 0, 0)));
    assert_eq!(
        d.stage(utc(2027, 2, 1, 0, 0, 0)),
        Stage::Deprecated {
            since: Some(utc(2027, 1, 1, 0, 0, 0))
        }
    );
}

#[test]
fn kubernetes_warning_successor_fills_a_declared_deprecation_only() {
    // Kubernetes' documented warning (https://kubernetes.io/blog/2020/09/03/warnings/).
    let warning: &[u8] = b"299 - \"extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress\"";
    let now = utc(2026, 12, 1, 0, 0, 0);
    let with_header: [(&str, &[u8]); 2] = [("Deprecation", b"true"), ("Warning", warning)];
    let s = crate::read(200, &Headers::new(&with_header), now, crate::Flavour::Auto);
    assert_eq!(
        s.deprecation.unwrap().successor.as_deref(),
        Some("networking.k8s.io/v1 Ingress")
    );
    assert!(s.notices[0].deprecation);
    // A Link successor wins over the warning's.
    let with_link: [(&str, &[u8]); 3] = [
        ("Deprecation", b"true"),
        ("Link", b"</v2>; rel=successor-version"),
        ("Warning", warning),
    ];
    let s = crate::read(200, &Headers::new(&with_link), now, crate::Flavour::Auto);
    assert_eq!(s.deprecation.unwrap().successor.as_deref(), Some("/v2"));
    // The warning alone is shown, but declares nothing deprecated.
    let alone: [(&str, &[u8]); 1] = [("Warning", warning)];
    let s = crate::read(200, &Headers::new(&alone), now, crate::Flavour::Auto);
    assert_eq!(s.deprecation, None);
    assert_eq!(s.warnings.len(), 1);
    assert_eq!(
        s.notices[0].successor.as_deref(),
        Some("networking.k8s.io/v1 Ingress")
    );
}
