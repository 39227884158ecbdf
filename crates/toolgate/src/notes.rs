//! One-line notes for the model, derived from signals: quota running low, a brownout,
//! a deprecation or sunset, a red status page. Each is a plain sentence that says what
//! to do; lines are prefixed `toolgate:` when they are put into a result.

use std::time::Duration;

use chrono::{DateTime, Utc};
use toolgate_signals::status_page::Health;
use toolgate_signals::{Deprecation, Quota};

use crate::dependency::Snapshot;
use crate::explain::human;

/// Notes worth telling the model about a call to `tool` on `dependency`.
pub fn notes(
    tool: &str,
    dependency: &str,
    successor: Option<&str>,
    snapshot: &Snapshot,
    deprecation: Option<&Deprecation>,
    paced: Duration,
    now: DateTime<Utc>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(q) = snapshot.quotas.first()
        && let Some(n) = quota_note(dependency, q, paced)
    {
        out.push(n);
    }
    let l = &snapshot.latency;
    if l.brownout
        && let (Some(ratio), Some(base)) = (l.ratio, l.baseline)
    {
        // The ratio compares the recent median with the baseline; the window p50 lags
        // behind it, so the "now" figure is derived from the ratio.
        out.push(format!(
            "{dependency} is slow: latency is {ratio:.1}× this API's baseline (about {} now vs {}); consider fewer calls.",
            human(base.mul_f64(ratio)),
            human(base)
        ));
    }
    if let Some(d) = deprecation
        && let Some(n) = deprecation_note(tool, successor, d, now)
    {
        out.push(n);
    }
    if let Some(page) = snapshot.status.as_ref().and_then(|s| s.page.as_ref())
        && page.health != Health::Healthy
        && page.health != Health::Unknown
    {
        let what = page
            .description
            .clone()
            .unwrap_or_else(|| format!("indicator {}", page.indicator));
        out.push(format!(
            "{dependency}'s status page reports a problem: {what} ({}). Expect failures; prefer other tools for now.",
            page.indicator
        ));
    }
    out
}

/// "Quota: 3 of 5000 requests left; resets in 47 s." — when running low (a quarter
/// or less left, or at most 5), or when toolgate had to space this call out.
fn quota_note(dependency: &str, q: &Quota, paced: Duration) -> Option<String> {
    let remaining = q.remaining?;
    let low = match q.limit {
        Some(limit) if limit > 0 => remaining.saturating_mul(4) <= limit || remaining <= 5,
        _ => remaining <= 5,
    };
    if !low && paced.is_zero() {
        return None;
    }
    let of = q.limit.map(|l| format!(" of {l}")).unwrap_or_default();
    let policy = if q.policy == "default" {
        String::new()
    } else {
        format!(" ({})", q.policy)
    };
    let reset = q
        .reset_after
        .map(|r| format!("; resets in {}", human(r)))
        .unwrap_or_default();
    let advice = if remaining == 0 {
        " Calls wait for the reset or fail fast; do not retry before then."
    } else {
        " Spend them on the calls that matter most."
    };
    Some(format!(
        "Quota for {dependency}{policy}: {remaining}{of} requests left{reset}.{advice}"
    ))
}

fn deprecation_note(
    tool: &str,
    successor: Option<&str>,
    d: &Deprecation,
    now: DateTime<Utc>,
) -> Option<String> {
    if !d.deprecated && d.sunset.is_none() {
        return None;
    }
    let mut text = format!("{tool} is deprecated by its upstream");
    if let Some(sunset) = d.sunset {
        let days = (sunset - now).num_days();
        if sunset > now {
            text.push_str(&format!(
                " and shuts down on {} (in {days} days)",
                sunset.format("%Y-%m-%d")
            ));
        } else {
            text.push_str(&format!(
                " and was due to shut down on {}",
                sunset.format("%Y-%m-%d")
            ));
        }
    }
    match (successor, &d.successor) {
        (Some(s), _) => text.push_str(&format!("; use {s} instead.")),
        (None, Some(link)) => text.push_str(&format!("; the upstream names a successor: {link}.")),
        (None, None) => text.push('.'),
    }
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quota(remaining: u64, limit: u64) -> Quota {
        Quota {
            policy: "default".into(),
            limit: Some(limit),
            remaining: Some(remaining),
            reset_after: Some(Duration::from_secs(47)),
            window: None,
        }
    }

    #[test]
    fn quota_is_mentioned_only_when_running_low() {
        assert_eq!(
            quota_note("search_api", &quota(4000, 5000), Duration::ZERO),
            None
        );
        assert_eq!(
            quota_note("search_api", &quota(3, 5000), Duration::ZERO).unwrap(),
            "Quota for search_api: 3 of 5000 requests left; resets in 47 s. Spend them on the calls that matter most."
        );
        assert!(
            quota_note("x", &quota(0, 20), Duration::ZERO)
                .unwrap()
                .contains("do not retry before then")
        );
    }

    #[test]
    fn deprecation_names_the_date_and_the_successor() {
        let now = DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z")
            .unwrap()
            .to_utc();
        let d = Deprecation {
            deprecated: true,
            sunset: Some(
                DateTime::parse_from_rfc3339("2027-01-15T00:00:00Z")
                    .unwrap()
                    .to_utc(),
            ),
            successor: Some("https://api.example.com/v4".into()),
            ..Default::default()
        };
        assert_eq!(
            deprecation_note("web_search", Some("web_search_v2"), &d, now).unwrap(),
            "web_search is deprecated by its upstream and shuts down on 2027-01-15 (in 45 days); use web_search_v2 instead."
        );
        assert!(
            deprecation_note("web_search", None, &d, now)
                .unwrap()
                .contains("https://api.example.com/v4")
        );
        assert_eq!(
            deprecation_note("t", None, &Deprecation::default(), now),
            None
        );
    }
}
