//! Pure parsers for the operational signals in upstream HTTP responses.
//!
//! toolgate reads rate-limit state, retry hints, deprecation notices and status pages
//! from the APIs it fronts so the gateway can act on them and tell the model.
//! Everything here is a pure function of `(status, headers, now)` (and, for [`body`],
//! of the first bytes of an error body): no clock, no I/O, and total on any input —
//! unparseable values are ignored, never errors, never panics.
//!
//! One module per header family; each module's `//!` header cites its source. Families
//! no module names are read by their shape (`shape.rs`: rate-limit words and parts in
//! the field names, values in any unit), error bodies by their words at any depth
//! (`walk.rs`), and status documents by their health vocabulary ([`status_page`]).
//! [`read`] is the entry point for headers and [`body::read`] for error bodies; the
//! per-family parsers are internal, while the shared grammars ([`retry_after`],
//! [`reset`], [`link`], [`status_page`]) are public.
//!
//! What an upstream controls is bounded here, before it reaches metrics: at most
//! [`quota::MAX_POLICIES`] policies per response, each name at most
//! [`quota::MAX_POLICY_NAME`] bytes of `[A-Za-z0-9_.-]`.

#![warn(missing_docs)]

use std::time::Duration;

use chrono::{DateTime, Utc};

mod abbreviated;
mod anthropic;
mod atlassian;
mod azure;
pub mod body;
mod calendar;
pub mod charset;
mod count_triple;
mod deprecation;
mod discord;
mod error_header;
mod github;
mod gitlab;
pub mod graphql;
pub mod grpc_web;
pub mod headers;
mod hubspot;
mod ietf;
mod inert;
mod json_counts;
pub mod jsonrpc;
pub mod link;
pub mod maintenance;
mod msgraph;
mod named_count;
mod num;
mod openai;
mod passed;
mod per_window;
mod policy_named;
pub mod quota;
pub mod recovery;
mod reddit;
pub mod reset;
mod reset_unit;
pub mod retry_advice;
pub mod retry_after;
mod salesforce;
mod sentry;
mod shape;
mod shopify;
mod sign_in_page;
pub mod status_page;
mod token_bucket;
pub mod unread;
mod usage_json;
pub mod version_list;
mod wait_text;
mod wait_unit;
mod walk;
mod warning;
mod window_list;
mod x_rate_limit;
mod zendesk;

pub use deprecation::Stage;
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
    /// Azure Resource Manager `x-ms-ratelimit-remaining-*`.
    AzureResourceManager,
    /// `X-RateLimit-<Policy>-{Limit,Remaining,Reset}`, e.g. Linear.
    Linear,
    /// Okta `X-Rate-Limit-*` (also older Twitter).
    Okta,
    /// GitLab `RateLimit-*` with `RateLimit-Observed` and `RateLimit-ResetTime`.
    Gitlab,
    /// Reddit `x-ratelimit-used` / `-remaining` / `-reset` (fractional, delta reset).
    Reddit,
    /// Sentry `X-Sentry-Rate-Limit-*`.
    Sentry,
}

/// Everything operationally relevant found in one response.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Signals {
    /// The longest server-given wait before retrying (Retry-After and its variants),
    /// already capped at [`MAX_WAIT`].
    pub retry_after: Option<Duration>,
    /// How long a successful answer asks the next call to wait (Stack Exchange's
    /// `backoff`): nothing was refused, but calling again sooner will be. Also in
    /// `retry_after`; kept apart so the engine paces the next call on it, which it does
    /// not for a `Retry-After` on a 2xx (a 202's polling interval).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_call_after: Option<Duration>,
    /// One entry per advertised policy, most constraining first.
    pub quota: Vec<Quota>,
    /// The response itself says "you are throttled": a 429, a GitHub-style 403 with a
    /// quota at zero (or a Retry-After), a vendor throttle header on a reply that is not
    /// a 2xx, or (through [`Signals::absorb_body`]) a body that says it throttles.
    pub rate_limited: bool,
    /// Deprecation / sunset information, when any was advertised.
    pub deprecation: Option<Deprecation>,
    /// Human-readable notices for the model: `Warning: 299` texts, vendor deprecation
    /// reasons and advisories (`X-API-Warn`, `Stripe-Notice`), "near limit" hints. Show
    /// each verbatim.
    pub warnings: Vec<String>,
    /// The `Warning: 199/299` members, and the notices a body carries (a GraphQL
    /// answer's `extensions.warnings`, under 299), structured: whether each says
    /// something is deprecated (or already retired) and which replacement it names.
    /// Their texts are also in `warnings`.
    pub notices: Vec<Notice>,
    /// Headers that look like a rate-limit, wait or deprecation signal but that no
    /// reader understood, as sent (at most [`unread::MAX_UNREAD`]).
    pub unread: Vec<unread::Unread>,
    /// The reply's own word on retrying it (`x-should-retry`, `Stripe-Should-Retry`):
    /// `Some(false)` means a retry will not help.
    pub should_retry: Option<bool>,
    /// What an error body says would fix the failure (the account, the credentials,
    /// time, the request), beyond its status ([`recovery`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery: Option<recovery::Recovery>,
    /// The scope the credentials lack, as an `insufficient_scope` challenge names it
    /// (`WWW-Authenticate: Bearer error="insufficient_scope", scope="repo"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub missing_scope: Option<String>,
    /// Whether a 2xx body is to be read for a maintenance page
    /// ([`maintenance::Pending`]),
    /// filled by the engine and told only when the contract refuses the body.
    #[serde(skip)]
    pub maintenance: maintenance::Pending,
}

/// One `Warning: 199` / `299` member (RFC 7234 §5.5), as Kubernetes sends them, or a
/// notice a body carries, read as a 299 member.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Notice {
    /// The warn-code: 199 or 299 (a body's notice is a 299).
    pub code: u16,
    /// The warn-text, unquoted and unescaped.
    pub text: String,
    /// The text says something *is* deprecated (which may be one field of the
    /// request; [`Deprecation`] is set from the text only when its subject is the called
    /// resource).
    pub deprecation: bool,
    /// The replacement the text names (`…; use networking.k8s.io/v1 Ingress`).
    pub successor: Option<String>,
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
///
/// Four meanings, told apart by [`Deprecation::stage`]: deprecated now, deprecated from a
/// future date (`since` after now), only a sunset date (`sunset` without `since` or
/// flag: *will stop working*, not *is deprecated*), or only a documentation link.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Deprecation {
    /// The resource is deprecated as of the response's `now` (a future deprecation date
    /// leaves this `false` with `since` set; use [`Deprecation::is_deprecated_at`] on a
    /// remembered notice).
    pub deprecated: bool,
    /// When the resource was (or will be) deprecated.
    #[serde(serialize_with = "rfc3339")]
    pub since: Option<DateTime<Utc>>,
    /// When the resource is expected to stop responding (RFC 8594).
    #[serde(serialize_with = "rfc3339")]
    pub sunset: Option<DateTime<Utc>>,
    /// `Link` rel `successor-version` (or `latest-version`) target; failing that, the
    /// replacement named by a notice about the called resource ("…; use X").
    pub successor: Option<String>,
    /// `Link` rel `deprecation` (or `sunset`) target: documentation URL; failing that,
    /// the URL a notice about the called resource points at ("Please see https://…").
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
    Azure,
    PolicyNamed,
    Gitlab,
    Reddit,
    Sentry,
    /// Shares used, as a JSON object in a usage header (Meta's `X-App-Usage`), and
    /// counts as a JSON object in a rate-limit header (Trakt's `X-Ratelimit`).
    UsageJson,
    /// A token bucket in its own words (Walmart's `x-current-token-count` beside
    /// `x-next-replenishment-time`).
    TokenBucket,
    /// Spent, left and limit in one field named by what they count (Yandex Direct's
    /// `Units: 10/20828/64000`).
    CountTriple,
    /// What is left and its seconds to reset under abbreviated names (ip-api's `X-Rl`
    /// beside `X-Ttl`).
    Abbreviated,
    /// Any other family, read by the shape of its names ([`shape`]).
    Shape,
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
                F::Azure,
                F::PolicyNamed,
                F::Gitlab,
                F::Reddit,
                F::Sentry,
                F::UsageJson,
                F::TokenBucket,
                F::CountTriple,
                F::Abbreviated,
                F::Shape,
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
            Flavour::AzureResourceManager => &[F::Azure],
            Flavour::Linear => &[F::PolicyNamed],
            Flavour::Okta => &[F::XRateLimit],
            Flavour::Gitlab => &[F::Gitlab],
            Flavour::Reddit => &[F::Reddit],
            Flavour::Sentry => &[F::Sentry],
        }
    }

    fn read(self, h: &Headers<'_>, now: DateTime<Utc>, auto: bool, out: &mut quota::Collector) {
        match self {
            Family::Ietf => ietf::read(h, now, out),
            // GitHub's and Discord's x-ratelimit-* overlap; in Auto, Discord-only fields
            // decide which reading applies.
            Family::Github if auto && (discord::detect(h) || reddit::detect(h)) => {}
            Family::Github => github::read(h, now, out),
            // Reddit's x-ratelimit-* has `used` and fractions but no `limit`.
            Family::Reddit if auto && !reddit::detect(h) => {}
            Family::Reddit => reddit::read(h, now, out),
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
            Family::Azure => azure::read(h, out),
            Family::PolicyNamed => policy_named::read(h, now, out),
            Family::Gitlab => gitlab::read(h, now, out),
            Family::Sentry => sentry::read(h, now, out),
            Family::UsageJson => {
                usage_json::read(h, out);
                usage_json::read_percent_headers(h, out);
                json_counts::read(h, now, out);
            }
            Family::TokenBucket => token_bucket::read(h, now, out),
            Family::CountTriple => count_triple::read(h, out),
            Family::Abbreviated => abbreviated::read(h, out),
            Family::Shape => shape::read(h, now, out),
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
    if headers.iter().all(|(name, _)| inert::is_inert(name)) {
        // Most successful replies: nothing any reader looks at, so nothing to read. A
        // throttle's `Expires` is its wait, though (`retry_after::from_expires`).
        let rate_limited = status == 429;
        return Signals {
            rate_limited,
            retry_after: rate_limited
                .then(|| retry_after::from_expires(headers, now))
                .flatten(),
            ..Signals::default()
        };
    }
    read_fields(status, headers, now, flavour)
}

/// [`read`] without the shortcut for replies made only of inert fields.
fn read_fields(
    status: u16,
    headers: &Headers<'_>,
    now: DateTime<Utc>,
    flavour: Flavour,
) -> Signals {
    let mut out = quota::Collector::default();
    let auto = flavour == Flavour::Auto;
    for family in Family::enabled_by(flavour) {
        family.read(headers, now, auto, &mut out);
    }
    let retry_after = retry_after::from_headers(headers, now).max(out.retry_after);
    let mut quotas = out.quotas;
    quota::join_halves(&mut quotas);
    // A bare reset beside a window the reply names in milliseconds is milliseconds.
    reset_unit::in_window_unit(&mut quotas, headers);
    quota::sort_most_constraining(&mut quotas);
    quotas.truncate(quota::MAX_POLICIES);
    // A bare-number wait whose milliseconds are the reply's own spent reset.
    let retry_after = retry_after.map(|w| wait_unit::corroborated(w, &quotas));
    // A vendor's "throttled" header on a 2xx is not a throttle: the work was done and
    // the body is the answer (a 2xx that throttles says so in its body, read apart).
    // A refusal (403, or 402 from an API whose quota is a plan's allowance, as Toggl's
    // hourly quota, or 420 "Enhance Your Calm", Twitter's old throttle status and EVE
    // Online ESI's answer once its error window is spent) that comes with a spent quota
    // or a wait is the quota refusing. So is
    // a 503 that comes with its own quota spent: gateways refuse that way by default
    // (nginx's `limit_req`, APISIX's `ai-rate-limiting`); a 503's wait alone is an
    // outage's, not a quota's.
    let rate_limited = status == 429
        || ((out.throttled || error_header::says_throttled(headers))
            && !(200..300).contains(&status))
        || (matches!(status, 402 | 403 | 420)
            && (quotas.iter().any(Quota::is_exhausted) || retry_after.is_some()))
        || (status == 503 && quotas.iter().any(Quota::is_exhausted));
    // A throttle that states no other wait may state it as the refusal's expiry.
    let retry_after = match retry_after {
        None if rate_limited => retry_after::from_expires(headers, now),
        stated => stated,
    };
    let challenge = recovery::challenge::read(headers);
    let notices = warning::read(headers);
    let mut warnings: Vec<String> = notices.iter().map(|n| n.text.clone()).collect();
    let mut retirement_fields = deprecation::Fields::default();
    let deprecation = deprecation::read(
        headers,
        now,
        &notices,
        &mut warnings,
        &mut retirement_fields,
    );
    for w in out.warnings {
        if !warnings.contains(&w) {
            warnings.push(w);
        }
    }
    let mut signals = Signals {
        retry_after,
        next_call_after: None,
        quota: quotas,
        rate_limited,
        deprecation,
        warnings,
        notices,
        unread: Vec::new(),
        should_retry: retry_advice::read(headers),
        // A challenge's `error` is the more precise; a gRPC status in the headers
        // (a trailers-only reply) names the fix where no challenge does.
        recovery: challenge.recovery.or_else(|| grpc_web::recovery(headers)),
        missing_scope: challenge.scope,
        maintenance: maintenance::Pending::default(),
    };
    signals.unread = unread::find_with(headers, &signals, &retirement_fields);
    signals
}

#[cfg(test)]
mod tests;
