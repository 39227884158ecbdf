//! The accumulator every header family writes into, and the quota ordering.
//!
//! Owns merging (two families describing the same policy become one [`Quota`]) and
//! "most constraining first" ordering. It must not parse header values.

use std::cmp::Ordering;
use std::time::Duration;

use crate::Quota;

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
    /// Adds a quota, merging it into an existing one with the same policy name.
    pub fn quota(&mut self, q: Quota) {
        if q.is_empty() {
            return;
        }
        match self.quotas.iter_mut().find(|e| e.policy == q.policy) {
            Some(existing) => existing.absorb(q),
            None => self.quotas.push(q),
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

/// Sorts quotas most constraining first: least headroom, then the longest reset.
/// The sort is stable, so families keep their received order on ties.
pub(crate) fn sort_most_constraining(quotas: &mut [Quota]) {
    quotas.sort_by(|a, b| {
        a.headroom()
            .total_cmp(&b.headroom())
            .then_with(|| b.reset_after.cmp(&a.reset_after))
            .then(Ordering::Equal)
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(policy: &str, limit: Option<u64>, remaining: Option<u64>, reset: u64) -> Quota {
        Quota {
            reset_after: Some(Duration::from_secs(reset)),
            limit,
            remaining,
            ..Quota::new(policy)
        }
    }

    #[test]
    fn merge_fills_gaps_and_skips_empty() {
        let mut c = Collector::default();
        c.quota(Quota {
            limit: Some(700),
            ..Quota::new("default")
        });
        c.quota(Quota {
            limit: Some(1),
            remaining: Some(699),
            ..Quota::new("default")
        });
        c.quota(Quota::new("nothing"));
        assert_eq!(c.quotas.len(), 1);
        assert_eq!(c.quotas[0].limit, Some(700));
        assert_eq!(c.quotas[0].remaining, Some(699));
    }

    #[test]
    fn ordering_table() {
        let mut v = vec![
            q("unknown", None, None, 1),
            q("half", Some(100), Some(50), 10),
            q("tenth-short", Some(100), Some(10), 5),
            q("tenth-long", Some(1000), Some(100), 60),
            q("empty", Some(5), Some(0), 1),
            q("remaining-only", None, Some(3), 1),
        ];
        sort_most_constraining(&mut v);
        let names: Vec<_> = v.iter().map(|q| q.policy.as_str()).collect();
        assert_eq!(
            names,
            [
                "empty",
                "tenth-long",
                "tenth-short",
                "half",
                "remaining-only",
                "unknown"
            ]
        );
    }

    #[test]
    fn wait_keeps_the_longest() {
        let mut c = Collector::default();
        c.wait(Duration::from_secs(3));
        c.wait(Duration::from_secs(1));
        assert_eq!(c.retry_after, Some(Duration::from_secs(3)));
    }
}
