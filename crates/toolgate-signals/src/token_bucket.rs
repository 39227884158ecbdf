//! A token bucket said in the bucket's own words rather than a rate-limit name: Walmart
//! Marketplace sends `x-current-token-count: 19` (the tokens left in the API's bucket)
//! beside `x-next-replenishment-time: 1748779260000` (when the bucket refills, Unix
//! milliseconds) (<https://developer.walmart.com/us-marketplace/docs/rate-limiting>).
//!
//! The rule is the vocabulary, not the vendor: a field counting the tokens there are
//! (`token`/`tokens` with `count`, `left`, `remaining` or `available`, never `used`) is
//! what is left of a budget only beside a field naming the bucket's refill
//! (`replenish…`, `refill…`), whose value is the reset in any shape
//! [`crate::reset::parse_str`] reads. A count of tokens alone — an LLM's, an auth
//! token's — is no bucket, and names with a rate-limit word are left to their readers.

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

/// Bytes of a value read.
const MAX_VALUE: usize = 64;

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let (mut left, mut refill) = (None, None);
    for (name, value) in h.iter() {
        if value.len() > MAX_VALUE {
            continue;
        }
        let Ok(text) = std::str::from_utf8(value) else {
            continue;
        };
        let lower = name.trim().to_ascii_lowercase();
        let words: Vec<&str> = lower.split(['-', '_']).filter(|w| !w.is_empty()).collect();
        if words
            .iter()
            .any(|w| w.contains("ratelimit") || w.contains("quota") || *w == "rate")
        {
            continue;
        }
        let has = |set: &[&str]| words.iter().any(|w| set.contains(w));
        if words
            .iter()
            .any(|w| w.starts_with("replenish") || w.starts_with("refill"))
        {
            refill = refill.or_else(|| reset::parse_str(text, now));
        } else if has(&["token", "tokens"])
            && has(&["count", "left", "remaining", "available"])
            && !has(&["used", "usage", "consumed", "spent", "limit", "max"])
        {
            left = left.or_else(|| num::count(text.trim()));
        }
    }
    if let (Some(remaining), Some(reset_after)) = (left, refill) {
        out.quota(Quota {
            remaining: Some(remaining),
            reset_after: Some(reset_after),
            ..Quota::new("tokens")
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Headers, read};
    use chrono::DateTime;
    use std::time::Duration;

    fn now() -> DateTime<chrono::Utc> {
        DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default()
    }

    #[test]
    fn a_token_count_beside_its_refill_is_a_budget() {
        let walmart: [(&str, &[u8]); 2] = [
            ("x-current-token-count", b"19"),
            ("x-next-replenishment-time", b"1748779260000"),
        ];
        let s = read(200, &Headers::new(&walmart), now(), Flavour::Auto);
        assert_eq!(s.quota.len(), 1);
        assert_eq!(s.quota[0].remaining, Some(19));
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(60)));
        // The same bucket in other words: tokens available, a refill in seconds.
        let other: [(&str, &[u8]); 2] = [
            ("X-Bucket-Tokens-Available", b"0"),
            ("X-Bucket-Refill-In", b"12"),
        ];
        let s = read(200, &Headers::new(&other), now(), Flavour::Auto);
        assert_eq!(s.quota[0].remaining, Some(0));
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(12)));
    }

    #[test]
    fn tokens_without_a_refill_are_no_bucket() {
        for fields in [
            &[("x-current-token-count", &b"19"[..])][..],
            &[("X-Tokens-Used", b"1200"), ("X-Refill-At", b"60")],
            &[("X-Auth-Token-Count", b"3")],
        ] {
            let s = read(200, &Headers::new(fields), now(), Flavour::Auto);
            assert!(s.quota.is_empty(), "{fields:?}");
        }
    }
}
