//! `X-RateLimit-<Policy>-{Limit,Remaining,Reset}`: one header triple per named policy.
//!
//! Source: Linear's GraphQL API rate limiting
//! (<https://linear.app/developers/rate-limiting>): `X-RateLimit-Requests-Limit`,
//! `X-RateLimit-Requests-Remaining`, `X-RateLimit-Requests-Reset` (UTC epoch
//! milliseconds) and the same triple for `Complexity`. The vendor page was not in the
//! reference corpus; the names are as Linear's SDK users quote them, and the reset
//! shape (epoch milliseconds) is told apart by [`crate::reset::parse`] anyway.
//!
//! The policy sits *before* the field, unlike OpenAI's `x-ratelimit-limit-requests`
//! ([`crate::openai`]), so neither family reads the other's names: here the last
//! segment must be `limit`, `remaining` or `reset`, and a policy may not itself be a
//! field name (`x-ratelimit-reset-after` is Discord's, `x-ratelimit-limit-requests`
//! OpenAI's).

use chrono::{DateTime, Utc};

use crate::headers::has_prefix_ci;
use crate::quota::Collector;
use crate::{Headers, Quota};

const PREFIX: &str = "x-ratelimit-";
const FIELDS: [&str; 4] = ["limit", "remaining", "reset", "used"];

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let mut found: Vec<Quota> = Vec::new();
    for (name, value) in h.iter() {
        let name = name.trim();
        if !has_prefix_ci(name, PREFIX) {
            continue;
        }
        let rest = name[PREFIX.len()..].to_ascii_lowercase();
        let Some((policy, field)) = rest.rsplit_once('-') else {
            continue;
        };
        if policy.is_empty()
            || !matches!(field, "limit" | "remaining" | "reset")
            || FIELDS
                .iter()
                .any(|f| policy == *f || policy.starts_with(&format!("{f}-")))
        {
            continue;
        }
        crate::quota::set_field(&mut found, policy, field, value, now);
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
    fn linear_requests_and_complexity_with_epoch_millisecond_resets() {
        let now = DateTime::from_timestamp_millis(1_700_000_000_000).unwrap();
        let fields: [(&str, &[u8]); 6] = [
            ("X-RateLimit-Requests-Limit", b"5000"),
            ("X-RateLimit-Requests-Remaining", b"4999"),
            ("X-RateLimit-Requests-Reset", b"1700000060000"),
            ("X-RateLimit-Complexity-Limit", b"250000"),
            ("X-RateLimit-Complexity-Remaining", b"240000"),
            ("X-RateLimit-Complexity-Reset", b"1700000001500"),
        ];
        for flavour in [Flavour::Linear, Flavour::Auto] {
            let s = read(200, &Headers::new(&fields), now, flavour);
            assert_eq!(
                s.quota,
                vec![
                    Quota {
                        limit: Some(250_000),
                        remaining: Some(240_000),
                        reset_after: Some(Duration::from_millis(1500)),
                        ..Quota::new("complexity")
                    },
                    Quota {
                        limit: Some(5000),
                        remaining: Some(4999),
                        reset_after: Some(Duration::from_secs(60)),
                        ..Quota::new("requests")
                    },
                ],
                "{flavour:?}"
            );
        }
    }

    #[test]
    fn other_families_names_are_not_read_as_policies() {
        let now = DateTime::from_timestamp(1_470_173_022, 0).unwrap();
        // OpenAI's suffix form, Discord's reset-after, GitHub's plain names.
        let fields: [(&str, &[u8]); 5] = [
            ("x-ratelimit-limit-requests", b"60"),
            ("x-ratelimit-reset-requests", b"1s"),
            ("x-ratelimit-reset-after", b"1"),
            ("x-ratelimit-limit", b"5"),
            ("x-ratelimit-remaining", b"1"),
        ];
        let s = read(200, &Headers::new(&fields), now, Flavour::Linear);
        assert_eq!(s.quota, vec![]);
    }
}
