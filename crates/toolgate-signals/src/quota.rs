//! The accumulator every header family writes into, the quota ordering, and the bounds
//! on what an upstream controls.
//!
//! Owns merging (two families describing the same policy become one [`Quota`]),
//! "most constraining first" ordering, and policy-name hygiene: a policy name comes
//! from a response header and becomes a metrics label downstream, so every name is
//! normalised to at most [`MAX_POLICY_NAME`] bytes of `[A-Za-z0-9_.-]` and one response
//! yields at most [`MAX_POLICIES`] policies. It must not parse header values.

use std::cmp::Ordering;
use std::time::Duration;

use crate::Quota;

/// The most policies one response can yield (the most constraining are kept).
pub const MAX_POLICIES: usize = 16;
/// The longest policy name, in bytes, after normalisation.
pub const MAX_POLICY_NAME: usize = 64;
/// Distinct policies collected before sorting; beyond this a response is hostile and
/// later policies are dropped unread, which bounds the merge work.
const MAX_COLLECTED: usize = 4 * MAX_POLICIES;

/// Normalises a policy name from a header: characters outside `[A-Za-z0-9_.-]` become
/// `_` (runs collapse), leading and trailing `_` go, the result is cut at
/// [`MAX_POLICY_NAME`] bytes, and an empty result is `"default"`.
///
/// ```
/// use toolgate_signals::quota::normalise_policy;
/// assert_eq!(normalise_policy("Microsoft.Compute/HighCostGet3Min"), "Microsoft.Compute_HighCostGet3Min");
/// assert_eq!(normalise_policy("  "), "default");
/// ```
#[must_use]
pub fn normalise_policy(name: &str) -> String {
    let mut out = String::with_capacity(name.len().min(MAX_POLICY_NAME));
    for c in name.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-') {
            c
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
        if out.len() >= MAX_POLICY_NAME {
            break;
        }
    }
    let trimmed = out.trim_end_matches('_');
    if trimmed.is_empty() {
        "default".to_owned()
    } else {
        trimmed.to_owned()
    }
}

impl Quota {
    /// A quota for `policy` with nothing known yet.
    #[must_use]
    pub fn new(policy: impl Into<String>) -> Self {
        Self {
            policy: policy.into(),
            limit: None,
            remaining: None,
            reset_after: None,
            window: None,
        }
    }

    /// Whether no field beyond the policy name is known.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.limit.is_none()
            && self.remaining.is_none()
            && self.reset_after.is_none()
            && self.window.is_none()
    }

    /// Whether the quota is used up (`remaining == 0`).
    #[must_use]
    pub fn is_exhausted(&self) -> bool {
        self.remaining == Some(0)
    }

    /// Fills fields unknown here from `other` (first writer wins).
    fn absorb(&mut self, other: Quota) {
        self.limit = self.limit.or(other.limit);
        self.remaining = self.remaining.or(other.remaining);
        self.reset_after = self.reset_after.or(other.reset_after);
        self.window = self.window.or(other.window);
    }

    /// Fraction of the quota left: 0 when exhausted, larger when unknown.
    fn headroom(&self) -> f64 {
        match (self.remaining, self.limit) {
            (Some(0), _) => 0.0,
            (Some(r), Some(l)) if l > 0 => r as f64 / l as f64,
            (Some(_), _) => 1.5,
            (None, _) => 2.0,
        }
    }
}

/// What the header families found, before it is shaped into [`crate::Signals`].
#[derive(Debug, Default)]
pub(crate) struct Collector {
    pub quotas: Vec<Quota>,
    /// Vendor retry hints beyond the RFC 9110 family (e.g. Atlassian `Beta-Retry-After`).
    pub retry_after: Option<Duration>,
    /// A header that says, by itself, "you are being throttled".
    pub throttled: bool,
    pub warnings: Vec<String>,
}

impl Collector {
    /// Adds a quota under its normalised policy name, merging it into an existing one
    /// with the same name; past the collection bound new policies are dropped.
    pub fn quota(&mut self, mut q: Quota) {
        if q.is_empty() {
            return;
        }
        q.policy = normalise_policy(&q.policy);
        q.window = q
            .window
            .or_else(|| period_named(&q.policy))
            .or_else(|| seconds_named(&q.policy));
        if let Some(existing) = self.quotas.iter_mut().find(|e| e.policy == q.policy) {
            existing.absorb(q);
        } else if self.quotas.len() < MAX_COLLECTED {
            self.quotas.push(q);
        }
    }

    /// Records a wait, keeping the longest.
    pub fn wait(&mut self, d: Duration) {
        self.retry_after = self.retry_after.max(Some(d));
    }

    /// Adds a warning text once.
    pub fn warn(&mut self, text: impl Into<String>) {
        let text = text.into();
        if !text.is_empty() && !self.warnings.contains(&text) {
            self.warnings.push(text);
        }
    }
}

/// The window of a policy named by a period (Kong's and Salesloft's
/// `X-RateLimit-Remaining-Minute`, Etsy's `x-limit-per-day`, `user-hour`): a budget
/// for that period, whether or not a window is sent beside it. Only the last word of the
/// name counts, and only a whole word (`h` or `d` alone may name anything); `per` glued
/// before it says the same (Domain's `X-Quota-PerMinute-Limit`, `-PerDay-`).
fn period_named(policy: &str) -> Option<Duration> {
    let last = policy.rsplit(['-', '_', '.']).next()?;
    let last = last.strip_prefix("per").unwrap_or(last);
    let secs = match last {
        "second" | "sec" | "seconds" | "secondly" => 1,
        "minute" | "min" | "minutes" | "minutely" => 60,
        "hour" | "hours" | "hourly" => 3_600,
        "day" | "days" | "daily" | "today" => 86_400,
        _ => return None,
    };
    Some(Duration::from_secs(secs))
}

/// The window of a policy named by its length in seconds, as a gateway that counts
/// several windows at once names each field for its own (`X-RateLimit-Remaining-60`
/// beside `X-RateLimit-Remaining-3600`, and `X-AI-RateLimit-Remaining-60-openai`, the
/// window before what it counts): the name's first word is a number. A number after
/// other words (`v2`, `tier-2`) names no window, and neither does zero.
fn seconds_named(policy: &str) -> Option<Duration> {
    let first = policy.split(['-', '_', '.']).next()?;
    if first.is_empty() || first.len() > 7 || !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let secs: u64 = first.parse().ok().filter(|&s| s > 0)?;
    Some(Duration::from_secs(secs).min(crate::reset::MAX_RESET))
}

/// Joins one budget whose halves came under different names: Yelp's
/// `RateLimit-DailyLimit` (read by shape as the `daily` limit) beside the IETF
/// `RateLimit-Remaining` (the unnamed remaining), Gate.io's `X-Gate-RateLimit-Limit`
/// beside `X-Gate-RateLimit-Requests-Remain`. When a response holds exactly one quota
/// with only a limit, exactly one with only a remaining (neither with both, and no
/// other quota with both), and the remaining fits the limit, they are one quota under
/// the more specific name. Anything less clear-cut is left apart.
pub(crate) fn join_halves(quotas: &mut Vec<Quota>) {
    if quotas
        .iter()
        .any(|q| q.limit.is_some() && q.remaining.is_some())
    {
        return;
    }
    let only = |pick: fn(&Quota) -> bool| -> Option<usize> {
        let mut found = quotas.iter().enumerate().filter(|(_, q)| pick(q));
        let first = found.next()?.0;
        found.next().is_none().then_some(first)
    };
    let (Some(l), Some(r)) = (
        only(|q| q.limit.is_some() && q.remaining.is_none()),
        only(|q| q.remaining.is_some() && q.limit.is_none()),
    ) else {
        return;
    };
    if quotas[r].remaining > quotas[l].limit {
        return;
    }
    let (keep, other) = if quotas[l].policy == "default" {
        (r, l)
    } else {
        (l, r)
    };
    let taken = quotas[other].clone();
    quotas[keep].absorb(taken);
    quotas.remove(other);
}

/// Sorts quotas most constraining first: least headroom, then the longest reset.
/// The sort is stable, so families keep their received order on ties.
/// Sets one `limit` / `remaining` / `reset` field of the named policy in `found` (adding
/// the policy on first sight), for families that name a policy per header
/// (`anthropic-ratelimit-requests-limit`, `X-RateLimit-Requests-Limit`). The first value
/// of a field wins; resets are read by [`crate::reset::parse_str`].
pub(crate) fn set_field(
    found: &mut Vec<Quota>,
    policy: &str,
    field: &str,
    value: &[u8],
    now: chrono::DateTime<chrono::Utc>,
) {
    let i = match found.iter().position(|q| q.policy == policy) {
        Some(i) => i,
        None => {
            found.push(Quota::new(policy));
            found.len() - 1
        }
    };
    let q = &mut found[i];
    let text = std::str::from_utf8(value).unwrap_or("");
    match field {
        "limit" => q.limit = q.limit.or(crate::num::limit(text)),
        "remaining" => q.remaining = q.remaining.or(crate::num::count(text)),
        _ => q.reset_after = q.reset_after.or(crate::reset::parse_str(text, now)),
    }
}

pub(crate) fn sort_most_constraining(quotas: &mut [Quota]) {
    quotas.sort_by(|a, b| {
        a.headroom()
            .total_cmp(&b.headroom())
            // Quotas that give only what is left (Xero's `X-MinLimit-Remaining` beside
            // `X-DayLimit-Remaining`): fewer left is closer to the limit.
            .then_with(|| match (a.limit, b.limit, a.remaining, b.remaining) {
                (None, None, Some(x), Some(y)) => x.cmp(&y),
                _ => Ordering::Equal,
            })
            .then_with(|| b.reset_after.cmp(&a.reset_after))
            .then(Ordering::Equal)
    });
}

#[cfg(test)]
mod tests;
