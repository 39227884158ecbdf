//! Quota resets counted down in milliseconds without saying so.
//!
//! A bare reset number below a day is read as seconds (`toolgate_signals::reset`): the
//! number alone cannot tell KuCoin's `gw-ratelimit-reset: 29963` (thirty seconds, in
//! milliseconds) from eight hours. Read wrong, a dependency whose quota runs out is
//! held for hours instead of seconds. Two readings of one countdown can tell: between
//! replies `dt` apart, a countdown read in its own unit drops by about `dt`; one in
//! milliseconds read as seconds drops by about a thousand times `dt`. After
//! [`VOTES`] such drops in a row for a policy, its resets are read as milliseconds; a
//! drop at the rate of seconds reads them as seconds again. A constant (a window's
//! length sent on every reply) or a reset that jumps up (a new window) says nothing,
//! unless it jumps about a thousandfold before the last reset was due: the reply that
//! opened the window was read in milliseconds (`toolgate_signals::reset`), and the
//! countdown that follows it is milliseconds too.

use std::time::Duration;

use tokio::time::Instant;
use toolgate_signals::Quota;

/// Drops measured over less than this say nothing: a countdown in whole seconds can
/// drop by one between two replies a millisecond apart, which would read as a
/// thousand seconds a second.
const MIN_SPAN: Duration = Duration::from_millis(50);

/// Drops at a rate in this range (seconds read per second elapsed) are a countdown in
/// milliseconds read as seconds: a thousand, give or take the servers' own timing.
const MILLIS_RATE: std::ops::RangeInclusive<f64> = 300.0..=3_000.0;

/// Drops at a rate in this range are a countdown read in its own unit.
const SECONDS_RATE: std::ops::RangeInclusive<f64> = 0.3..=3.0;

/// How many millisecond-rate drops in a row decide.
const VOTES: u8 = 2;

/// Resets above this were not read as bare seconds, so they are never rescaled.
const BARE_SECONDS_MAX: Duration = toolgate_signals::reset::MAX_RESET;

/// What has been seen of one policy's countdown.
#[derive(Debug, Clone)]
struct Countdown {
    policy: String,
    /// When the last reset was read, and the reset as read (before any rescaling).
    at: Instant,
    read: Duration,
    votes: u8,
    millis: bool,
}

/// The countdowns of one dependency's quota policies, at most `max` of them.
#[derive(Debug, Clone, Default)]
pub(super) struct Countdowns {
    seen: Vec<Countdown>,
}

impl Countdowns {
    /// Reads each quota's reset in the unit this dependency has been seen to count in,
    /// and learns from it. `max` bounds the policies remembered (names come from
    /// headers): beyond it, the one read longest ago is forgotten.
    pub(super) fn calibrate(&mut self, now: Instant, quotas: &mut [Quota], max: usize) {
        for q in quotas {
            let Some(read) = q.reset_after else {
                continue;
            };
            let at = match self.seen.iter().position(|c| c.policy == q.policy) {
                Some(at) => at,
                None => {
                    if self.seen.len() >= max
                        && let Some(oldest) = (0..self.seen.len()).min_by_key(|&i| self.seen[i].at)
                    {
                        self.seen.swap_remove(oldest);
                    }
                    self.seen.push(Countdown {
                        policy: q.policy.clone(),
                        at: now,
                        read,
                        votes: 0,
                        millis: false,
                    });
                    continue;
                }
            };
            let c = &mut self.seen[at];
            let span = now.saturating_duration_since(c.at);
            if rises_a_thousandfold_before_due(c.read, read, span) {
                c.votes = VOTES;
                c.millis = true;
            }
            if span >= MIN_SPAN && read < c.read && c.read <= BARE_SECONDS_MAX {
                let rate = (c.read - read).as_secs_f64() / span.as_secs_f64();
                if MILLIS_RATE.contains(&rate) {
                    c.votes = c.votes.saturating_add(1);
                    if c.votes >= VOTES {
                        c.millis = true;
                    }
                } else if SECONDS_RATE.contains(&rate) {
                    c.votes = 0;
                    c.millis = false;
                }
            }
            if span >= MIN_SPAN || read > c.read {
                c.at = now;
                c.read = read;
            }
            if c.millis && read <= BARE_SECONDS_MAX {
                q.reset_after = Some(read / 1_000);
            }
        }
    }
}

/// A reset that rises about a thousandfold before the last one was due: no new window
/// can have begun, so the two were read in different units. The signals read the reply
/// that opened a window in milliseconds when its countdown is just under a common
/// window length (`toolgate_signals::reset::opening_countdown`); the next reply's
/// countdown, no longer the whole window, is read as seconds and rises a thousandfold.
/// It is milliseconds too. The last reset is at least a second, so that a fraction of
/// a second left before a new window is not mistaken for one.
fn rises_a_thousandfold_before_due(last: Duration, read: Duration, span: Duration) -> bool {
    read > last
        && span < last
        && last >= Duration::from_secs(1)
        && read <= BARE_SECONDS_MAX
        && MILLIS_RATE.contains(&(read.as_secs_f64() / last.as_secs_f64()))
}

#[cfg(test)]
mod tests;
