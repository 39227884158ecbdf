//! Full-jitter exponential backoff.
//!
//! From the AWS Architecture Blog, "Exponential Backoff and Jitter" (Marc
//! Brooker, 2015): `sleep = random_between(0, min(cap, base * 2^attempt))`.
//! Full jitter spreads a crowd of synchronised clients out best while keeping
//! total work low. Defaults (100 ms base, 5 s cap, 3 attempts) match the AWS
//! SDK "standard" retry mode and Envoy's 25 ms-base / 10×-cap shape scaled to
//! tool calls: an agent waits on every call, so the worst wait stays in
//! seconds, not minutes.
//!
//! This module must not sleep, read a clock, or own randomness: the caller
//! passes an RNG so tests are seeded, and decides what to do with the delay.

use std::time::Duration;

use rand::{Rng, RngExt as _};

/// Exponential backoff with full jitter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    /// Scale of the first retry's delay window, `[0, base]`.
    pub base: Duration,
    /// No delay is ever longer than this.
    pub cap: Duration,
    /// Total attempts for one call, the first one included (3 = 1 + 2 retries).
    pub max_attempts: u32,
}

impl Default for Backoff {
    fn default() -> Self {
        Backoff {
            base: Duration::from_millis(100),
            cap: Duration::from_secs(5),
            max_attempts: 3,
        }
    }
}

impl Backoff {
    /// The largest delay for retry number `retry_number` (0 = the first
    /// retry): `min(cap, base * 2^n)`, saturating at `cap` for any `n`.
    pub fn ceiling(&self, retry_number: u32) -> Duration {
        // 2^n overflows u32 for n >= 32; base * 2^n overflows Duration much
        // later. Either overflow means "far beyond any sane cap".
        1u32.checked_shl(retry_number)
            .filter(|_| retry_number < 32)
            .and_then(|factor| self.base.checked_mul(factor))
            .map_or(self.cap, |d| d.min(self.cap))
    }

    /// A delay drawn uniformly from `[0, ceiling(retry_number)]`.
    pub fn delay<R: Rng + ?Sized>(&self, retry_number: u32, rng: &mut R) -> Duration {
        let ceiling = self.ceiling(retry_number);
        // Nanosecond resolution; a ceiling beyond u64 nanos (~584 years) is
        // clamped rather than overflowing.
        let max = u64::try_from(ceiling.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(rng.random_range(0..=max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand::rngs::SmallRng;

    #[test]
    fn ceiling_doubles_then_caps() {
        let b = Backoff::default();
        let ms = |n| b.ceiling(n).as_millis();
        assert_eq!(
            [ms(0), ms(1), ms(2), ms(3), ms(5), ms(6)],
            [100, 200, 400, 800, 3200, 5000]
        );
        for n in [31, 32, 33, 64, 1000, u32::MAX] {
            assert_eq!(b.ceiling(n), b.cap, "n = {n}");
        }
    }

    #[test]
    fn no_overflow_with_huge_durations() {
        let b = Backoff {
            base: Duration::MAX,
            cap: Duration::MAX,
            max_attempts: 3,
        };
        let mut rng = SmallRng::seed_from_u64(1);
        for n in [0, 1, 40, u32::MAX] {
            assert!(b.delay(n, &mut rng) <= Duration::MAX);
        }
        let zero = Backoff {
            base: Duration::ZERO,
            cap: Duration::ZERO,
            max_attempts: 3,
        };
        assert_eq!(zero.delay(7, &mut rng), Duration::ZERO);
    }

    #[test]
    fn delays_are_full_jitter_within_bounds() {
        let b = Backoff::default();
        let mut rng = SmallRng::seed_from_u64(42);
        for n in 0..10 {
            let samples: Vec<_> = (0..400).map(|_| b.delay(n, &mut rng)).collect();
            let ceiling = b.ceiling(n);
            assert!(samples.iter().all(|d| *d <= ceiling));
            // Full jitter: the whole range is used, the low half included.
            assert!(samples.iter().any(|d| *d < ceiling / 4), "n = {n}");
            assert!(samples.iter().any(|d| *d > ceiling * 3 / 4), "n = {n}");
        }
    }

    #[test]
    fn seeded_rng_is_reproducible() {
        let b = Backoff::default();
        let a: Vec<_> = (0..5)
            .map(|n| b.delay(n, &mut SmallRng::seed_from_u64(7)))
            .collect();
        let c: Vec<_> = (0..5)
            .map(|n| b.delay(n, &mut SmallRng::seed_from_u64(7)))
            .collect();
        assert_eq!(a, c);
    }
}
