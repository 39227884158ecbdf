//! Deprecation and sunset of the called resource.
//!
//! Sources:
//! - RFC 9745 (`Deprecation: @1688169599`, a structured-field Date, RFC 9651 §3.3.7) and
//!   its drafts' older forms `Deprecation: true` and `Deprecation: <HTTP-date>`;
//!   `Link; rel="deprecation"` points at documentation (RFC 9745 §3).
//! - RFC 8594 (`Sunset: <HTTP-date>`, `Link; rel="sunset"`).
//! - RFC 5829 §3 (`successor-version`, `latest-version` link relations).
//! - Shopify `X-Shopify-API-Deprecated-Reason`
//!   (<https://shopify.dev/docs/api/usage/versioning#deprecation-practices>): the call used
//!   a deprecated feature; the value is a human-readable reason, passed on as a warning.
//!
//! A deprecation date in the future leaves `deprecated` false with `since` set.

use chrono::{DateTime, Utc};
use sfv::{BareItem, Item, Parser};

use crate::{Deprecation, Headers, link, reset};

pub(crate) fn read(
    h: &Headers<'_>,
    now: DateTime<Utc>,
    warnings: &mut Vec<String>,
) -> Option<Deprecation> {
    let mut d = Deprecation::default();
    let mut found = false;
    for v in h.get_all("deprecation") {
        let Ok(v) = std::str::from_utf8(v) else {
            continue;
        };
        match header_value(v) {
            Some(Value::Flag(flag)) => {
                found = true;
                d.deprecated |= flag;
            }
            Some(Value::Date(t)) => {
                found = true;
                d.since = Some(d.since.map_or(t, |s| s.min(t)));
                d.deprecated |= t <= now;
            }
            None => {}
        }
    }
    if let Some(t) = h.get_str("sunset").and_then(reset::parse_timestamp) {
        found = true;
        d.sunset = Some(t);
    }
    let links = link::from_headers(h);
    let target = |rel: &str| {
        links
            .iter()
            .find(|l| l.has_rel(rel))
            .map(|l| l.target.clone())
    };
    d.info = target("deprecation").or_else(|| target("sunset"));
    found |= d.info.is_some();
    if let Some(reason) = h
        .get_all("x-shopify-api-deprecated-reason")
        .map(|v| String::from_utf8_lossy(v).trim().to_owned())
        .find(|r| !r.is_empty())
    {
        found = true;
        d.deprecated = true;
        let text = format!("deprecated: {reason}");
        if !warnings.contains(&text) {
            warnings.push(text);
        }
    }
    if !found {
        return None;
    }
    d.successor = target("successor-version").or_else(|| target("latest-version"));
    Some(d)
}

enum Value {
    Flag(bool),
    Date(DateTime<Utc>),
}

/// One `Deprecation` value in any of its generations.
fn header_value(v: &str) -> Option<Value> {
    let v = v.trim();
    if v.eq_ignore_ascii_case("true") {
        return Some(Value::Flag(true));
    }
    if v.eq_ignore_ascii_case("false") {
        return Some(Value::Flag(false));
    }
    if let Ok(item) = Parser::new(v).parse::<Item>() {
        match item.bare_item {
            BareItem::Date(date) => {
                return DateTime::from_timestamp(i64::from(date.unix_seconds()), 0)
                    .map(Value::Date);
            }
            BareItem::Boolean(b) => return Some(Value::Flag(b)),
            _ => {}
        }
    }
    reset::parse_timestamp(v).map(Value::Date)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn run(fields: &[(&str, &[u8])], now: DateTime<Utc>) -> (Option<Deprecation>, Vec<String>) {
        let mut w = Vec::new();
        (read(&Headers::new(fields), now, &mut w), w)
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
}
