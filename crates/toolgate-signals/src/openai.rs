//! OpenAI `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`.
//!
//! Source: <https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers>
//! — documented example: `x-ratelimit-limit-requests: 60`, `x-ratelimit-limit-tokens:
//! 150000`, `x-ratelimit-remaining-requests: 59`, `x-ratelimit-remaining-tokens: 149984`,
//! `x-ratelimit-reset-requests: 1s`, `x-ratelimit-reset-tokens: 6m0s`. Resets are Go-style
//! durations. Any suffix becomes a policy (`tokens_usage_based` exists in the wild), so
//! the family also covers OpenAI-compatible servers. Azure OpenAI's `-1` placeholders
//! are not numbers and are ignored.
//!
//! A reset whose suffix opens with a unit names the unit, then the policy: Split's
//! `X-RateLimit-Reset-Seconds-Org` (<https://docs.split.io/reference/rate-limiting>) is
//! the `org` policy's reset in seconds, beside `X-RateLimit-Remaining-Org`, so the unit
//! does not split one window into two policies.

use chrono::{DateTime, Utc};

use crate::headers::has_prefix_ci;
use crate::num::TimeUnit;
use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

/// A reset's suffix split into its unit and the policy after it (`seconds-org` →
/// seconds, `org`). Only the plurals and abbreviations are units: a bare period word
/// (`-minute`) names a policy, as Kong's `X-RateLimit-Remaining-Minute` does.
fn unit_then_policy(suffix: &str) -> Option<(TimeUnit, &str)> {
    let (head, policy) = suffix.split_once('-')?;
    let unit = TimeUnit::SUFFIXES
        .iter()
        .find(|(spelling, _)| *spelling == head)
        .map(|(_, unit)| *unit)?;
    (!policy.is_empty()).then_some((unit, policy))
}

/// A `limit-` name whose suffix ends in another part names that part of the policy
/// before it: Affinity's `X-Ratelimit-Limit-User-Remaining` and `-User-Reset`, beside
/// `X-Ratelimit-Limit-User` (<https://api-docs.affinity.co/#rate-limits>), spell the
/// family `X-Ratelimit-Limit-` and put the part last, so `user-remaining` is not a
/// policy of its own whose limit is what is left.
fn limit_stem_then_part(field: &'static str, policy: String) -> (&'static str, String) {
    if field != "limit-" {
        return (field, policy);
    }
    let Some((stem, last)) = policy.rsplit_once('-') else {
        return (field, policy);
    };
    let part = match last {
        "remaining" | "remain" | "left" => "remaining-",
        "reset" => "reset-",
        _ => return (field, policy),
    };
    if stem.is_empty() {
        return (field, policy);
    }
    (part, stem.to_owned())
}

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let mut found: Vec<Quota> = Vec::new();
    for (name, value) in h.iter() {
        let name = name.trim();
        let Some((field, policy)) = ["limit-", "remaining-", "reset-"].iter().find_map(|f| {
            let prefix = format!("x-ratelimit-{f}");
            (has_prefix_ci(name, &prefix) && name.len() > prefix.len())
                .then(|| (*f, name[prefix.len()..].to_ascii_lowercase()))
        }) else {
            continue;
        };
        // `x-ratelimit-reset-after` is Discord's delta, not a policy called "after".
        if policy == "after" {
            continue;
        }
        let (field, policy) = limit_stem_then_part(field, policy);
        let (unit, policy) = match unit_then_policy(&policy) {
            Some((unit, rest)) if field == "reset-" => (Some(unit), rest.to_owned()),
            _ => (None, policy),
        };
        let q = match found.iter_mut().position(|q| q.policy == policy) {
            Some(i) => &mut found[i],
            None => {
                found.push(Quota::new(policy));
                let last = found.len() - 1;
                &mut found[last]
            }
        };
        let text = std::str::from_utf8(value).unwrap_or("");
        match field {
            "limit-" => q.limit = q.limit.or(num::count(text)),
            "remaining-" => q.remaining = q.remaining.or(num::count(text)),
            _ => {
                let parsed = match unit {
                    Some(unit) => unit.decimal(text.trim(), reset::MAX_RESET),
                    None => reset::parse_str(text, now),
                };
                q.reset_after = q.reset_after.or(parsed);
            }
        }
    }
    for q in found {
        out.quota(q);
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn documented_example() {
        let fields: [(&str, &[u8]); 6] = [
            ("x-ratelimit-limit-requests", b"60"),
            ("x-ratelimit-limit-tokens", b"150000"),
            ("x-ratelimit-remaining-requests", b"59"),
            ("x-ratelimit-remaining-tokens", b"149984"),
            ("x-ratelimit-reset-requests", b"1s"),
            ("x-ratelimit-reset-tokens", b"6m0s"),
        ];
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        for flavour in [Flavour::Openai, Flavour::Auto] {
            let s = read(200, &Headers::new(&fields), now, flavour);
            assert_eq!(
                s.quota,
                vec![
                    Quota {
                        limit: Some(60),
                        remaining: Some(59),
                        reset_after: Some(Duration::from_secs(1)),
                        ..Quota::new("requests")
                    },
                    Quota {
                        limit: Some(150_000),
                        remaining: Some(149_984),
                        reset_after: Some(Duration::from_secs(360)),
                        ..Quota::new("tokens")
                    },
                ],
                "{flavour:?}"
            );
        }
    }

    /// A unit between the part and the policy belongs to the reset: each scope's reset
    /// joins that scope's count, in the unit named (Split's seconds, and a millisecond
    /// and a minute form of the same shape).
    #[test]
    fn unit_before_the_policy_is_the_resets_unit() {
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        let fields: [(&str, &[u8]); 6] = [
            ("X-RateLimit-Remaining-Org", b"0"),
            ("X-RateLimit-Reset-Seconds-Org", b"7"),
            ("X-RateLimit-Remaining-IP", b"37"),
            ("X-RateLimit-Reset-Ms-IP", b"1500"),
            ("x-ratelimit-remaining-project", b"9"),
            ("x-ratelimit-reset-mins-project", b"2"),
        ];
        let s = read(429, &Headers::new(&fields), now, Flavour::Auto);
        let q = |p: &str| s.quota.iter().find(|q| q.policy == p).unwrap();
        assert_eq!(q("org").remaining, Some(0));
        assert_eq!(q("org").reset_after, Some(Duration::from_secs(7)));
        assert_eq!(q("ip").remaining, Some(37));
        assert_eq!(q("ip").reset_after, Some(Duration::from_millis(1500)));
        assert_eq!(q("project").reset_after, Some(Duration::from_secs(120)));
        assert_eq!(s.quota.len(), 3, "{:?}", s.quota);
        // A period word alone is still a policy (Kong's `-Minute`).
        let kong: [(&str, &[u8]); 2] = [
            ("X-RateLimit-Remaining-Minute", b"4"),
            ("X-RateLimit-Reset-Minute", b"30"),
        ];
        let s = read(200, &Headers::new(&kong), now, Flavour::Auto);
        assert!(
            s.quota.iter().any(|q| q.policy == "minute"),
            "{:?}",
            s.quota
        );
    }

    #[test]
    fn azure_placeholders_and_millisecond_resets() {
        let fields: [(&str, &[u8]); 4] = [
            ("x-ratelimit-limit-tokens", b"-1"),
            ("x-ratelimit-remaining-tokens", b"-1"),
            ("x-ratelimit-reset-tokens", b"0"),
            ("x-ratelimit-reset-requests", b"12ms"),
        ];
        let now = DateTime::from_timestamp(0, 0).unwrap();
        let s = read(200, &Headers::new(&fields), now, Flavour::Openai);
        let tokens = s.quota.iter().find(|q| q.policy == "tokens").unwrap();
        assert_eq!((tokens.limit, tokens.remaining), (None, None));
        assert_eq!(tokens.reset_after, Some(Duration::ZERO));
        let requests = s.quota.iter().find(|q| q.policy == "requests").unwrap();
        assert_eq!(requests.reset_after, Some(Duration::from_millis(12)));
    }

    #[test]
    fn a_limit_stem_then_the_policy_then_the_part_is_that_part_of_the_policy() {
        let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
        let fields: [(&str, &[u8]); 5] = [
            ("X-Ratelimit-Limit-Hour", b"500"),
            ("X-Ratelimit-Limit-Hour-Left", b"0"),
            ("X-Ratelimit-Limit-Hour-Reset", b"1748780100"),
            ("X-Ratelimit-Limit-Tenant", b"20000"),
            ("X-Ratelimit-Limit-Tenant-Remaining", b"9000"),
        ];
        let s = read(429, &Headers::new(&fields), now, Flavour::Auto);
        let hour = s.quota.iter().find(|q| q.policy == "hour").unwrap();
        assert_eq!((hour.limit, hour.remaining), (Some(500), Some(0)));
        assert_eq!(hour.reset_after, Some(Duration::from_secs(900)));
        let tenant = s.quota.iter().find(|q| q.policy == "tenant").unwrap();
        assert_eq!((tenant.limit, tenant.remaining), (Some(20_000), Some(9000)));
        // No part word became a policy whose limit is a count left or an instant.
        assert_eq!(s.quota.len(), 2, "{:?}", s.quota);
    }
}
