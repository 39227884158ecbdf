//! OpenAI `x-ratelimit-{limit,remaining,reset}-{requests,tokens}`.
//!
//! Source: <https://platform.openai.com/docs/guides/rate-limits#rate-limits-in-headers>
//! — documented example: `x-ratelimit-limit-requests: 60`, `x-ratelimit-limit-tokens:
//! 150000`, `x-ratelimit-remaining-requests: 59`, `x-ratelimit-remaining-tokens: 149984`,
//! `x-ratelimit-reset-requests: 1s`, `x-ratelimit-reset-tokens: 6m0s`. Resets are Go-style
//! durations. Any suffix becomes a policy (`tokens_usage_based` exists in the wild), so
//! the family also covers OpenAI-compatible servers. Azure OpenAI's `-1` placeholders
//! are not numbers and are ignored.

use chrono::{DateTime, Utc};

use crate::headers::has_prefix_ci;
use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

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
            _ => q.reset_after = q.reset_after.or(reset::parse_str(text, now)),
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
}
