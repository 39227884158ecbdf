//! Deprecation and sunset of the called resource.
//!
//! Sources:
//! - RFC 9745 (<https://www.rfc-editor.org/rfc/rfc9745>): `Deprecation: @1688169599`, a
//!   structured-field Date (RFC 9651 §3.3.7), "the resource will be or has been
//!   deprecated" — a date in the future is allowed and means *will be* deprecated. Its
//!   drafts' older forms `Deprecation: true` and `Deprecation: <HTTP-date>` are accepted.
//!   `Link; rel="deprecation"` points at documentation (RFC 9745 §3).
//! - RFC 8594 (<https://www.rfc-editor.org/rfc/rfc8594>): `Sunset: <HTTP-date>`, "the
//!   URI is likely to become unresponsive at a specified point in the future", and
//!   `Link; rel="sunset"`. A Sunset alone does **not** say the resource is deprecated.
//! - RFC 5829 §3 (`successor-version`, `latest-version` link relations).
//! - Shopify `X-Shopify-API-Deprecated-Reason`
//!   (<https://shopify.dev/docs/api/usage/versioning#deprecation-practices>): the call used
//!   a deprecated feature; the value is a human-readable reason, passed on as a warning.
//! - A `Warning: 299` that says something is deprecated and names a replacement
//!   (Kubernetes: `…is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1
//!   Ingress`) supplies [`Deprecation::successor`] when a Deprecation/Sunset header
//!   declared the deprecation and no successor link did; a warning alone never makes the
//!   resource "deprecated", because it may be about one field of the request.
//!
//! Dates go through [`crate::reset::parse_timestamp`], which accepts the near misses
//! servers send (`UTC` for `GMT`, as in RFC 9745's own `Sunset` example).

use chrono::{DateTime, Utc};
use sfv::{BareItem, Item, Parser};

use crate::{Deprecation, Headers, Notice, link, reset};

/// What a deprecation notice means at a given instant; see [`Deprecation::stage`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Deprecated now: `Deprecation: true`, `?1`, or a date at or before `now`.
    Deprecated {
        /// When it became deprecated, if a date was given.
        since: Option<DateTime<Utc>>,
    },
    /// Announced to become deprecated at a future date (RFC 9745 allows it).
    Scheduled {
        /// The announced deprecation date.
        on: DateTime<Utc>,
    },
    /// Only a `Sunset` date: not said to be deprecated, but expected to stop responding.
    SunsetOnly {
        /// The announced sunset date.
        on: DateTime<Utc>,
    },
    /// Neither a deprecation nor a sunset: only a documentation link or a withdrawn flag
    /// (`Deprecation: false`).
    Informational,
}

impl Deprecation {
    /// Whether the resource is deprecated at `now`: declared so, or a deprecation date
    /// that has arrived (a notice remembered from before the date becomes true later).
    #[must_use]
    pub fn is_deprecated_at(&self, now: DateTime<Utc>) -> bool {
        self.deprecated || self.since.is_some_and(|s| s <= now)
    }

    /// Which of the four meanings this notice has at `now`. The words told to a model
    /// must follow it: only [`Stage::Deprecated`] may be called "is deprecated".
    #[must_use]
    pub fn stage(&self, now: DateTime<Utc>) -> Stage {
        if self.is_deprecated_at(now) {
            return Stage::Deprecated { since: self.since };
        }
        match (self.since, self.sunset) {
            (Some(on), _) => Stage::Scheduled { on },
            (None, Some(on)) => Stage::SunsetOnly { on },
            (None, None) => Stage::Informational,
        }
    }
}

pub(crate) fn read(
    h: &Headers<'_>,
    now: DateTime<Utc>,
    notices: &[Notice],
    warnings: &mut Vec<String>,
) -> Option<Deprecation> {
    let mut d = Deprecation::default();
    let mut found = false;
    for v in h.get_all("deprecation") {
        let Ok(v) = std::str::from_utf8(v) else {
            continue;
        };
        match header_value(v, now) {
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
    if let Some(t) = h
        .get_all("sunset")
        .filter_map(|v| std::str::from_utf8(v).ok())
        .find_map(|v| reset::parse_timestamp(v, now))
    {
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
    for (name, value) in h.iter().take(MAX_FIELDS) {
        match shaped_field(name, value, now) {
            Some(Shaped::Flag(text)) => {
                found = true;
                d.deprecated = true;
                if let Some(text) = text {
                    let text = format!("deprecated: {text}");
                    if !warnings.contains(&text) {
                        warnings.push(text);
                    }
                }
            }
            Some(Shaped::Since(t)) => {
                found = true;
                d.since = Some(d.since.map_or(t, |s| s.min(t)));
                d.deprecated |= t <= now;
            }
            Some(Shaped::Sunset(t)) => {
                found = true;
                d.sunset = d.sunset.or(Some(t));
            }
            None => {}
        }
    }
    // A warning that announces a future deprecation date ("will be deprecated on
    // 2026-01-31") schedules it; one that says "is deprecated" does not declare the
    // resource deprecated (it may be about one field of the request).
    for n in notices {
        if let Some(t) = scheduled_in(&n.text, now) {
            found = true;
            d.since = Some(d.since.map_or(t, |s| s.min(t)));
        }
    }
    if !found {
        return None;
    }
    d.successor = target("successor-version")
        .or_else(|| target("latest-version"))
        .or_else(|| {
            notices
                .iter()
                .filter(|n| n.deprecation)
                .find_map(|n| n.successor.clone())
        });
    Some(d)
}

/// Fields examined for vendor deprecation names.
const MAX_FIELDS: usize = 64;
/// Longest vendor deprecation text passed on as a warning.
const MAX_TEXT: usize = 200;

/// What a vendor deprecation field says.
enum Shaped {
    /// Deprecated now, with the vendor's text when it sent one.
    Flag(Option<String>),
    /// Deprecated (or to be) from this date.
    Since(DateTime<Utc>),
    /// Expected to stop working at this date.
    Sunset(DateTime<Utc>),
}

/// A field other than the RFC ones whose name says deprecation
/// (`X-API-Deprecated`, `X-Api-Deprecation-Date`) or retirement (`X-API-Sunset`,
/// `X-Api-Retirement-Date`, `X-End-Of-Life`, `X-EOL-Date`). Names that speak of
/// *versions* (`api-deprecated-versions`) list other versions, not the one called, and
/// are not read.
fn shaped_field(name: &str, value: &[u8], now: DateTime<Utc>) -> Option<Shaped> {
    let n = name.trim().to_ascii_lowercase();
    if n.len() > 64
        || matches!(
            n.as_str(),
            "deprecation" | "sunset" | "link" | "warning" | "x-shopify-api-deprecated-reason"
        )
        || n.contains("version")
    {
        return None;
    }
    let tokens: Vec<&str> = n.split(['-', '_']).collect();
    let deprecate = tokens.iter().any(|t| t.contains("deprecat"));
    let retire = tokens
        .iter()
        .any(|t| t.contains("sunset") || t.contains("retire") || *t == "eol")
        || n.contains("end-of-life")
        || n.contains("endoflife");
    if !deprecate && !retire {
        return None;
    }
    let v = std::str::from_utf8(value).ok()?.trim();
    if v.is_empty() {
        return None;
    }
    if retire {
        return reset::parse_timestamp(v, now).map(Shaped::Sunset);
    }
    match header_value(v, now) {
        Some(Value::Flag(true)) => Some(Shaped::Flag(None)),
        Some(Value::Flag(false)) => None,
        Some(Value::Date(t)) => Some(Shaped::Since(t)),
        None if matches!(v.to_ascii_lowercase().as_str(), "0" | "no" | "off") => None,
        None if matches!(v.to_ascii_lowercase().as_str(), "1" | "yes" | "on") => {
            Some(Shaped::Flag(None))
        }
        None => Some(Shaped::Flag(Some(v.chars().take(MAX_TEXT).collect()))),
    }
}

/// The future date a warning text schedules a deprecation for: "will be deprecated on
/// 2026-01-31", "deprecated from 2026-01-31", "scheduled for deprecation on …".
fn scheduled_in(text: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let lower = text.to_ascii_lowercase();
    let future = [
        "will be deprecated",
        "deprecated from",
        "deprecated as of",
        "scheduled for deprecation",
        "deprecated starting",
    ]
    .iter()
    .any(|p| lower.contains(p));
    if !future {
        return None;
    }
    let bytes = lower.as_bytes();
    (0..bytes.len().saturating_sub(9)).find_map(|i| {
        let w = &bytes[i..i + 10];
        let shape = w.iter().enumerate().all(|(j, b)| {
            if j == 4 || j == 7 {
                *b == b'-'
            } else {
                b.is_ascii_digit()
            }
        });
        if !shape {
            return None;
        }
        let t = reset::parse_timestamp(lower.get(i..i + 10)?, now)?;
        (t > now).then_some(t)
    })
}

enum Value {
    Flag(bool),
    Date(DateTime<Utc>),
}

/// One `Deprecation` value in any of its generations.
fn header_value(v: &str, now: DateTime<Utc>) -> Option<Value> {
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
    reset::parse_timestamp(v, now).map(Value::Date)
}

#[cfg(test)]
mod tests;
