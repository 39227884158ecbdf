//! Zendesk endpoint-specific limits: `Zendesk-RateLimit-<endpoint>`.
//!
//! Source: <https://developer.zendesk.com/documentation/ticketing/using-the-zendesk-api/best-practices-for-avoiding-rate-limiting/>
//! — `zendesk-ratelimit-tickets-index: total=100; remaining=99; resets=41` (resets in
//! delta seconds). The account-wide limit arrives both as `x-rate-limit` (see
//! [`crate::x_rate_limit`]) and as IETF `ratelimit-*` (see [`crate::ietf`]); they merge
//! into one `"default"` quota.

use chrono::{DateTime, Utc};

use crate::headers::has_prefix_ci;
use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

const PREFIX: &str = "zendesk-ratelimit-";

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    for (name, value) in h.iter() {
        let name = name.trim();
        if !has_prefix_ci(name, PREFIX) || name.len() == PREFIX.len() {
            continue;
        }
        let Ok(value) = std::str::from_utf8(value) else {
            continue;
        };
        let mut q = Quota::new(name[PREFIX.len()..].to_ascii_lowercase());
        for (key, val) in value.split([';', ',']).filter_map(|kv| kv.split_once('=')) {
            match key.trim().to_ascii_lowercase().as_str() {
                "total" => q.limit = num::parse_u64(val),
                "remaining" => q.remaining = num::parse_u64(val),
                "resets" => q.reset_after = reset::parse_str(val, now),
                _ => {}
            }
        }
        out.quota(q);
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, Quota, read};
    use chrono::DateTime;
    use std::time::Duration;

    #[test]
    fn documented_list_tickets_response() {
        // Verbatim from the Zendesk best-practices page.
        let fields: [(&str, &[u8]); 6] = [
            ("x-rate-limit", b"700"),
            ("ratelimit-limit", b"700"),
            ("x-rate-limit-remaining", b"699"),
            ("ratelimit-remaining", b"699"),
            ("ratelimit-reset", b"41"),
            (
                "zendesk-ratelimit-tickets-index",
                b"total=100; remaining=99; resets=41",
            ),
        ];
        let now = DateTime::from_timestamp(1_700_000_000, 0).unwrap();
        for flavour in [Flavour::Zendesk, Flavour::Auto] {
            let s = read(200, &Headers::new(&fields), now, flavour);
            assert_eq!(
                s.quota,
                vec![
                    Quota {
                        limit: Some(100),
                        remaining: Some(99),
                        reset_after: Some(Duration::from_secs(41)),
                        ..Quota::new("tickets-index")
                    },
                    Quota {
                        limit: Some(700),
                        remaining: Some(699),
                        reset_after: Some(Duration::from_secs(41)),
                        ..Quota::new("default")
                    },
                ],
                "{flavour:?}"
            );
        }
    }
}
