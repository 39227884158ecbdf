//! Pure parsers for the operational signals in upstream HTTP responses.
//!
//! toolgate reads rate-limit state, retry hints, deprecation notices and status pages
//! from the APIs it fronts so the gateway can act on them and tell the model.
//! Everything here is a pure function of `(status, headers, now)`:
//! no clock, no I/O, and total on any input — unparseable
//! values are ignored, never errors, never panics: a header the gateway cannot
//! read must not fail a call that would otherwise succeed.
//!
//! One module per header family; each module's `//!` header cites its source.
//! [`read`] is the entry point; the per-family parsers are internal, while the shared
//! grammars ([`retry_after`], [`reset`], [`link`], [`status_page`]) are public.

#![warn(missing_docs)]

use std::time::Duration;

use chrono::{DateTime, Utc};

mod anthropic;
mod atlassian;
mod deprecation;
mod discord;
mod github;
pub mod headers;
mod hubspot;
mod ietf;
pub mod link;
mod msgraph;
mod num;
mod openai;
mod quota;
pub mod reset;
pub mod retry_after;
mod salesforce;
mod shopify;
pub mod status_page;
mod warning;
mod x_rate_limit;
mod zendesk;

pub use headers::Headers;
pub use retry_after::MAX_WAIT;

/// Which family of rate-limit headers a dependency speaks.
///
/// `Auto` detects families by header names; any other value restricts quota parsing to
/// that family. `Retry-After` (and its millisecond variants), deprecation and warning
/// headers are read whatever the flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Flavour {
    /// Detect by header names.
    #[default]
    Auto,
    /// IETF draft-ietf-httpapi-ratelimit-headers, every generation.
    Ietf,
    /// GitHub `x-ratelimit-*`.
    Github,
    /// Atlassian Jira / Confluence Cloud.
    Atlassian,
    /// Zendesk.
    Zendesk,
    /// Shopify Admin REST.
    Shopify,
    /// Discord.
    Discord,
    /// X (Twitter) `x-rate-limit-*`.
    X,
    /// OpenAI `x-ratelimit-*-requests` / `-tokens`.
    Openai,
    /// Anthropic `anthropic-ratelimit-*`.
    Anthropic,
    /// Salesforce `Sforce-Limit-Info`.
    Salesforce,
    /// HubSpot `X-HubSpot-RateLimit-*`.
    Hubspot,
    /// Microsoft Graph (`x-ms-throttle-*`, `RateLimit-*`).
    MicrosoftGraph,
}

/// Everything operationally relevant found in one response.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Signals {
    /// The longest server-given wait before retrying (Retry-After and its variants),
    /// already capped at [`MAX_WAIT`].
    pub retry_after: Option<Duration>,
    /// One entry per advertised policy, most constraining first.
    pub quota: Vec<Quota>,
    /// The response itself says "you are throttled": a 429, a GitHub-style 403 with a
    /// quota at zero (or a Retry-After), or a vendor throttle header.
    pub rate_limited: bool,
    /// Deprecation / sunset information, when any was advertised.
    pub deprecation: Option<Deprecation>,
    /// Human-readable notices for the model: `Warning: 299` texts, vendor deprecation
    /// reasons, "near limit" hints.
    pub warnings: Vec<String>,
}

/// One advertised rate-limit policy.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Quota {
    /// `"default"` when unnamed; e.g. `"core"`, `"search"`, `"tokens"`, `"requests"`.
    pub policy: String,
    /// Units allowed per window.
    pub limit: Option<u64>,
    /// Units left in the current window.
    pub remaining: Option<u64>,
    /// Delay from `now` until the window resets (never negative; capped at
    /// [`reset::MAX_RESET`]).
    pub reset_after: Option<Duration>,
    /// Length of the window, when advertised.
    pub window: Option<Duration>,
}

/// Deprecation and sunset of the called resource.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Deprecation {
    /// The resource is deprecated as of `now` (a future deprecation date leaves this
    /// `false` with `since` set).
    pub deprecated: bool,
    /// When the resource was (or will be) deprecated.
    #[serde(serialize_with = "rfc3339")]
    pub since: Option<DateTime<Utc>>,
    /// When the resource is expected to stop responding (RFC 8594).
    #[serde(serialize_with = "rfc3339")]
    pub sunset: Option<DateTime<Utc>>,
    /// `Link` rel `successor-version` (or `latest-version`) target.
    pub successor: Option<String>,
    /// `Link` rel `deprecation` (or `sunset`) target: documentation URL.
    pub info: Option<String>,
}

/// Serialises an optional timestamp as an RFC 3339 string (chrono's `serde` feature is
/// not enabled in this workspace).
fn rfc3339<S: serde::Serializer>(t: &Option<DateTime<Utc>>, s: S) -> Result<S::Ok, S::Error> {
    match t {
        Some(t) => s.serialize_some(&t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)),
        None => s.serialize_none(),
    }
}

/// The internal header families; a [`Flavour`] enables one or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Family {
    Ietf,
    Github,
    Discord,
    Atlassian,
    XRateLimit,
    Zendesk,
    Shopify,
    Openai,
    Anthropic,
    Salesforce,
    Hubspot,
    MsGraph,
}

impl Family {
    fn enabled_by(flavour: Flavour) -> &'static [Family] {
        use Family as F;
        match flavour {
            Flavour::Auto => &[
                F::Ietf,
                F::Github,
                F::Discord,
                F::Atlassian,
                F::XRateLimit,
                F::Zendesk,
                F::Shopify,
                F::Openai,
                F::Anthropic,
                F::Salesforce,
                F::Hubspot,
                F::MsGraph,
            ],
            Flavour::Ietf => &[F::Ietf],
            Flavour::Github => &[F::Github],
            Flavour::Atlassian => &[F::Atlassian, F::Github, F::Ietf],
            Flavour::Zendesk => &[F::Zendesk, F::XRateLimit, F::Ietf],
            Flavour::Shopify => &[F::Shopify],
            Flavour::Discord => &[F::Discord],
            Flavour::X => &[F::XRateLimit],
            Flavour::Openai => &[F::Openai],
            Flavour::Anthropic => &[F::Anthropic],
            Flavour::Salesforce => &[F::Salesforce],
            Flavour::Hubspot => &[F::Hubspot],
            Flavour::MicrosoftGraph => &[F::MsGraph, F::Ietf],
        }
    }

    fn read(self, h: &Headers<'_>, now: DateTime<Utc>, auto: bool, out: &mut quota::Collector) {
        match self {
            Family::Ietf => ietf::read(h, now, out),
            // GitHub's and Discord's x-ratelimit-* overlap; in Auto, Discord-only fields
            // decide which reading applies.
            Family::Github if auto && discord::detect(h) => {}
            Family::Github => github::read(h, now, out),
            Family::Discord if auto && !discord::detect(h) => {}
            Family::Discord => discord::read(h, now, out),
            Family::Atlassian => atlassian::read(h, now, out),
            Family::XRateLimit => x_rate_limit::read(h, now, out),
            Family::Zendesk => zendesk::read(h, now, out),
            Family::Shopify => shopify::read(h, out),
            Family::Openai => openai::read(h, now, out),
            Family::Anthropic => anthropic::read(h, now, out),
            Family::Salesforce => salesforce::read(h, out),
            Family::Hubspot => hubspot::read(h, out),
            Family::MsGraph => msgraph::read(h, out),
        }
    }
}

/// Reads every operational signal in one response.
///
/// Total: any status, any header bytes and any `now` give a value; values that cannot
/// be parsed are ignored. `now` is the time the response was received.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use std::time::Duration;
/// use toolgate_signals::{Flavour, Headers, read};
/// let fields: [(&str, &[u8]); 1] = [("Retry-After", b"30")];
/// let now = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
/// let s = read(429, &Headers::new(&fields), now, Flavour::Auto);
/// assert!(s.rate_limited);
/// assert_eq!(s.retry_after, Some(Duration::from_secs(30)));
/// ```
#[must_use]
pub fn read(status: u16, headers: &Headers<'_>, now: DateTime<Utc>, flavour: Flavour) -> Signals {
    let mut out = quota::Collector::default();
    let auto = flavour == Flavour::Auto;
    for family in Family::enabled_by(flavour) {
        family.read(headers, now, auto, &mut out);
    }
    let retry_after = retry_after::from_headers(headers, now).max(out.retry_after);
    let mut quotas = out.quotas;
    quota::sort_most_constraining(&mut quotas);
    let rate_limited = status == 429
        || out.throttled
        || (status == 403 && (quotas.iter().any(Quota::is_exhausted) || retry_after.is_some()));
    let mut warnings = warning::read(headers);
    let deprecation = deprecation::read(headers, now, &mut warnings);
    for w in out.warnings {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    Signals {
        retry_after,
        quota: quotas,
        rate_limited,
        deprecation,
        warnings,
    }
}

#[cfg(test)]
mod tests;
