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
//!
//! A leaky bucket may instead say how full it is: Lightspeed Retail's
//! `X-LS-API-Bucket-Level: 10/60` (10 units of a bucket of 60 taken, 429 above it) beside
//! `X-LS-API-Drip-Rate: 1` (units leaked a second). A field naming a `bucket` and its
//! `level` (or `fill`) whose value is `level/size` is a budget of `size` with
//! `size − level` left; a `drip` or `leak` rate beside it says when the bucket is empty.
//! A bucket named without its level (a storage bucket's `X-Bucket-Region`) is no budget.

use std::time::Duration;

use chrono::{DateTime, Utc};

use crate::quota::Collector;
use crate::{Headers, Quota, num, reset};

/// Bytes of a value read.
const MAX_VALUE: usize = 64;

pub(crate) fn read(h: &Headers<'_>, now: DateTime<Utc>, out: &mut Collector) {
    let (mut left, mut refill) = (None, None);
    let (mut level, mut drip) = (None, None);
    for (name, value) in h.iter() {
        if value.len() > MAX_VALUE {
            continue;
        }
        let Ok(text) = std::str::from_utf8(value) else {
            continue;
        };
        let lower = name.trim().to_ascii_lowercase();
        let words: Vec<&str> = lower.split(['-', '_']).filter(|w| !w.is_empty()).collect();
        let said = |w: &str| words.contains(&w);
        if said("bucket") && (said("level") || said("fill")) {
            level = level.or_else(|| level_of_size(text.trim()));
            continue;
        }
        if (said("drip") || said("leak")) && said("rate") {
            drip = drip.or_else(|| {
                text.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|r| r.is_finite() && *r > 0.0)
            });
            continue;
        }
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
    if let Some((taken, size)) = level {
        // Units leak at `drip` a second, so what is taken is gone in `taken / drip`.
        let reset_after =
            drip.map(|rate| Duration::from_secs_f64((taken as f64 / rate).min(MAX_EMPTY_SECS)));
        out.quota(Quota {
            limit: Some(size),
            remaining: Some(size - taken),
            reset_after,
            ..Quota::new("bucket")
        });
    }
}

/// The longest a bucket is believed to take to empty, in seconds.
const MAX_EMPTY_SECS: f64 = 86_400.0;

/// `level/size`: what a bucket holds and what it can, the level at most the size.
fn level_of_size(text: &str) -> Option<(u64, u64)> {
    let (level, size) = text.split_once('/')?;
    let (level, size) = (num::count(level.trim())?, num::count(size.trim())?);
    (size > 0 && level <= size).then_some((level, size))
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
    fn a_bucket_level_told_as_level_of_size_is_a_budget() {
        let lightspeed: [(&str, &[u8]); 2] = [
            ("X-LS-API-Bucket-Level", b"10/60"),
            ("X-LS-API-Drip-Rate", b"1"),
        ];
        let s = read(200, &Headers::new(&lightspeed), now(), Flavour::Auto);
        assert_eq!(s.quota.len(), 1);
        assert_eq!(s.quota[0].limit, Some(60));
        assert_eq!(s.quota[0].remaining, Some(50));
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(10)));
        // Another bucket in other words: a fill of a fractional level, leaking 2 a second.
        let other: [(&str, &[u8]); 2] =
            [("X-Api-Bucket-Fill", b"40 / 40"), ("X-Api-Leak-Rate", b"2")];
        let s = read(429, &Headers::new(&other), now(), Flavour::Auto);
        assert_eq!(s.quota[0].remaining, Some(0));
        assert_eq!(s.quota[0].reset_after, Some(Duration::from_secs(20)));
        // Without a drip rate the level still counts; nothing says when it empties.
        let bare: [(&str, &[u8]); 1] = [("Bucket-Level", b"3/10")];
        let s = read(200, &Headers::new(&bare), now(), Flavour::Auto);
        assert_eq!(s.quota[0].remaining, Some(7));
        assert_eq!(s.quota[0].reset_after, None);
    }

    #[test]
    fn a_bucket_without_a_level_of_size_is_no_budget() {
        for fields in [
            &[("X-Bucket-Region", &b"eu-west-1"[..])][..],
            &[("X-Bucket-Level", b"70/60")],
            &[("X-Bucket-Level", b"high")],
            &[("X-Bucket-Level", b"3/0")],
        ] {
            let s = read(200, &Headers::new(fields), now(), Flavour::Auto);
            assert!(s.quota.is_empty(), "{fields:?}");
        }
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
