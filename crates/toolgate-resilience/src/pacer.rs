//! Quota pacing per dependency: spend advertised quota evenly until it resets,
//! so pacing-capable load never sees a 429: a 429 costs the agent a wasted
//! call and a wait, an even pace costs it only the wait.
//!
//! Inputs are what `toolgate-signals` extracts from rate-limit headers (IETF
//! `draft-ietf-httpapi-ratelimit-headers`, GitHub `x-ratelimit-*`, …) reduced
//! to numbers: remaining, limit, time to reset. The spreading is GCRA (the
//! generic cell rate algorithm behind Envoy's and redis-cell's rate limiters):
//! one call every `time_to_reset / usable` with a burst tolerance of half of what is left. The
//! counting is pessimistic in the way AWS SDK client-side rate limiting is:
//! every admitted call is charged locally at once, and a fresh advertisement
//! is discounted by the calls still in flight, because the server may not have
//! counted them yet.
//!
//! Hard rule: never admit a call the advertised quota cannot cover. Soft rule:
//! spread calls out — but spreading never fails a call that quota can still
//! serve (a spreading wait that does not fit the deadline becomes `Go`).
//!
//! Admission is decided once per call, first come, first served: a call is
//! told to go now, given a place in line (a send time, counted at once, never
//! earlier than the place of any call before it), or refused at once with the
//! time quota returns when no place fits its deadline. A call never waits only
//! to be refused, and a later call never takes the quota promised to an
//! earlier one.
//!
//! This module must not sleep, read a clock, or parse headers. It paces; it
//! does not retry (that is `retry`) or judge health (that is the breaker).

use std::time::Duration;

use tokio::time::Instant;

use crate::later;
use crate::retry::MIN_ATTEMPT_TIME;

/// One quota advertisement from a response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Quota {
    /// Requests left in the current window.
    pub remaining: u64,
    /// Requests per window, if advertised.
    pub limit: Option<u64>,
    /// Time until the window resets, as of the response.
    pub reset_after: Duration,
}

/// Pacing knobs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PacerConfig {
    /// Fraction of the limit kept unused (0.02): room for probes, other
    /// clients of the same key, and counting error.
    pub reserve_fraction: f64,
    /// At least this many requests are kept in reserve (1) — but never the
    /// whole limit, so a tiny quota stays usable.
    pub min_reserve: u64,
    /// Added to every advertised reset (1 s): reset values are often whole
    /// seconds rounded down, and clocks differ.
    pub reset_slack: Duration,
    /// How long to wait for in-flight responses to re-advertise when local
    /// quota ran out and the reset time is unknown (100 ms).
    pub poll: Duration,
}

impl Default for PacerConfig {
    fn default() -> Self {
        PacerConfig {
            reserve_fraction: 0.02,
            min_reserve: 1,
            reset_slack: Duration::from_secs(1),
            poll: Duration::from_millis(100),
        }
    }
}

/// The pacer's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// Send now. The call is counted; report it with [`QuotaPacer::complete`].
    Go,
    /// The call has its place in line and is counted already: sleep this long, then
    /// send without asking again; report it with [`QuotaPacer::complete`] like
    /// [`Pace::Go`] (also when it is cancelled while it sleeps). Places are handed
    /// out in arrival order, so a later call never overtakes an earlier one.
    Queued(Duration),
    /// Nothing is reserved: sleep this long, then ask again. Only when quota ran
    /// out locally, its reset is unknown and responses in flight will tell.
    Wait(Duration),
    /// The call cannot be served within its deadline: fail fast with
    /// `rate_limited`, telling the model when quota returns. Decided at admission,
    /// so a call never waits only to fail.
    Exhausted {
        /// Time until quota is expected back.
        resets_in: Duration,
    },
}

#[derive(Debug, Clone, Copy)]
struct Advert {
    /// Local view: advertised remaining, minus in-flight calls at the time,
    /// minus every call admitted since.
    remaining: u64,
    /// The server's own count in the last accepted advertisement.
    advertised: u64,
    limit: Option<u64>,
    /// `None` after a rollover whose new reset is not advertised yet.
    reset_at: Option<Instant>,
}

/// Quota pacer for one dependency.
#[derive(Debug, Clone, Default)]
pub struct QuotaPacer {
    cfg: PacerConfig,
    advert: Option<Advert>,
    /// Calls admitted ([`Pace::Go`] or [`Pace::Queued`]) and not yet completed.
    in_flight: u64,
    /// GCRA theoretical arrival time of the next call.
    tat: Option<Instant>,
    /// GCRA interval and burst tolerance, kept while calls are lined up.
    spacing: Option<(Duration, Duration)>,
    blocked_until: Option<Instant>,
    /// The latest send time handed out: a later call is never given an earlier one.
    line: Option<Instant>,
    /// Calls queued for the moment quota returns (`queued_for`): the end of a block or
    /// the reset of a used-up window. They are not charged to the current window.
    queued: u64,
    queued_for: Option<Instant>,
}

impl QuotaPacer {
    /// A pacer with no advertisement yet (everything goes).
    pub fn new(cfg: PacerConfig) -> Self {
        QuotaPacer {
            cfg,
            ..QuotaPacer::default()
        }
    }

    /// Calls admitted with [`Pace::Go`] or [`Pace::Queued`] and not yet completed.
    pub fn in_flight(&self) -> u64 {
        self.in_flight
    }

    /// The local estimate of remaining quota, if any is known.
    pub fn remaining(&self) -> Option<u64> {
        self.advert.map(|a| a.remaining)
    }

    /// While a throttle's stated wait holds calls back, how much of it is left.
    pub fn blocked_for(&self, now: Instant) -> Option<Duration> {
        self.blocked_until
            .filter(|until| *until > now)
            .map(|until| until - now)
    }

    /// May a call be sent, given `deadline_left` on the whole call? Decides once, at
    /// admission: go now, go at a reserved time (first come, first served), or fail
    /// now because quota cannot come back in time.
    pub fn admit(&mut self, now: Instant, deadline_left: Duration) -> Pace {
        // The latest moment this call may still be sent and get an answer.
        let latest = deadline_left
            .checked_sub(MIN_ATTEMPT_TIME)
            .map(|d| later(now, d));
        if self.queued_for.is_some_and(|q| q <= now) {
            self.queued = 0;
            self.queued_for = None;
        }
        if let Some(until) = self.blocked_until {
            if now < until {
                return self.queue_for(now, until, latest);
            }
            self.blocked_until = None;
        }
        self.roll_over(now);
        let Some(advert) = self.advert else {
            return self.go(now, now, None);
        };
        let usable = advert.remaining.saturating_sub(self.reserve(advert));
        if usable == 0 {
            return match advert.reset_at {
                Some(reset_at) => self.queue_for(now, reset_at, latest),
                // Responses in flight will tell us the new window.
                None if self.in_flight > 0 => {
                    let wait = self.cfg.poll;
                    if latest.is_some_and(|l| later(now, wait) <= l) {
                        Pace::Wait(wait)
                    } else {
                        Pace::Exhausted { resets_in: wait }
                    }
                }
                // The dependency stopped advertising: nothing left to go by.
                None => {
                    self.advert = None;
                    self.go(now, now, None)
                }
            };
        }
        let Some(reset_at) = advert.reset_at else {
            return self.go(now, now, None);
        };
        // GCRA: one call per `interval`, with a burst of half of what is left: an agent
        // with plenty of quota is not slowed down, and the second half is spread out
        // so the window still ends without a refusal. The spacing is fixed while calls
        // are lined up (the theoretical arrival time is ahead of now): recomputing it
        // from a remainder already charged to those calls would stretch the line past
        // the reset, which is how a concurrent burst ended up going all at once.
        let busy = self.tat.is_some_and(|t| t > now);
        let (interval, tolerance) = match self.spacing {
            Some(spacing) if busy => spacing,
            _ => {
                let interval = reset_at.saturating_duration_since(now)
                    / u32::try_from(usable).unwrap_or(u32::MAX);
                let burst = u32::try_from(usable / 2).unwrap_or(u32::MAX);
                let spacing = (interval, interval.saturating_mul(burst));
                self.spacing = Some(spacing);
                spacing
            }
        };
        let tat = self.tat.map_or(now, |t| t.max(now));
        let earliest = tat.checked_sub(tolerance).unwrap_or(now).max(now);
        let in_line = self.line.map_or(earliest, |l| l.max(earliest));
        // Spreading is soft: quota covers this call, so a deadline too short for the
        // spacing sends it now rather than failing a call quota can serve. Only then
        // may a call go before one queued earlier, which keeps its own place and quota.
        let send_at = if latest.is_some_and(|l| in_line <= l) {
            in_line
        } else {
            now
        };
        self.go(now, send_at, Some(later(tat, interval)))
    }

    /// A place at `at`, when quota is expected back, if the call can wait that long
    /// and the returning quota is not already promised to the calls queued before it.
    fn queue_for(&mut self, now: Instant, at: Instant, latest: Option<Instant>) -> Pace {
        let resets_in = at.saturating_duration_since(now);
        let send_at = self.line.map_or(at, |l| l.max(at));
        let capacity = self.next_capacity();
        if latest.is_none_or(|l| send_at > l) || self.queued >= capacity {
            return Pace::Exhausted { resets_in };
        }
        self.queued += 1;
        self.queued_for = Some(self.queued_for.map_or(at, |q| q.max(at)));
        self.line = Some(send_at);
        self.in_flight = self.in_flight.saturating_add(1);
        Pace::Queued(send_at.saturating_duration_since(now))
    }

    /// How many calls may be promised the quota that returns: a full window minus
    /// the reserve when the limit is known; otherwise one, whose answer tells the rest.
    fn next_capacity(&self) -> u64 {
        match self.advert.and_then(|a| a.limit).filter(|l| *l > 0) {
            Some(limit) => limit.saturating_sub(self.reserve(Advert {
                remaining: limit,
                advertised: limit,
                limit: Some(limit),
                reset_at: None,
            })),
            None => 1,
        }
    }

    fn go(&mut self, now: Instant, send_at: Instant, next_tat: Option<Instant>) -> Pace {
        self.tat = next_tat;
        self.in_flight = self.in_flight.saturating_add(1);
        if let Some(a) = self.advert.as_mut() {
            a.remaining = a.remaining.saturating_sub(1);
        }
        self.line = Some(self.line.map_or(send_at, |l| l.max(send_at)));
        if send_at > now {
            Pace::Queued(send_at - now)
        } else {
            Pace::Go
        }
    }

    fn reserve(&self, advert: Advert) -> u64 {
        let Some(limit) = advert.limit.filter(|l| *l > 0) else {
            return self.cfg.min_reserve.min(advert.remaining.saturating_sub(1));
        };
        let fraction = (limit as f64 * self.cfg.reserve_fraction.clamp(0.0, 1.0)).floor() as u64;
        fraction.max(self.cfg.min_reserve).min(limit - 1)
    }

    /// Past the (slackened) reset, the window is new: assume the full limit
    /// minus what is in flight, or forget the advert if the limit is unknown.
    fn roll_over(&mut self, now: Instant) {
        let Some(advert) = self.advert else { return };
        let Some(reset_at) = advert.reset_at else {
            return;
        };
        if now < reset_at {
            return;
        }
        self.tat = None;
        self.spacing = None;
        self.advert = advert.limit.map(|limit| Advert {
            remaining: limit.saturating_sub(self.in_flight),
            advertised: limit,
            limit: Some(limit),
            reset_at: None,
        });
    }

    /// An admitted call finished (any outcome); pass the quota its response
    /// advertised, if any. Call exactly once per [`Pace::Go`].
    pub fn complete(&mut self, now: Instant, quota: Option<Quota>) {
        self.in_flight = self.in_flight.saturating_sub(1);
        if let Some(q) = quota {
            self.observe(now, q);
        }
    }

    /// Take in an advertisement that did not come from an admitted call (a
    /// probe, a health check). Calls still in flight are charged against it.
    pub fn observe(&mut self, now: Instant, quota: Quota) {
        let reset_at = later(now, quota.reset_after.saturating_add(self.cfg.reset_slack));
        // Within one window the server's count only goes down, so a higher
        // count than already seen is an older response overtaken by a newer
        // one: ignore it rather than hand back quota that is spent.
        let same_window = self.advert.and_then(|a| a.reset_at).is_some_and(|r| {
            r.max(reset_at).saturating_duration_since(r.min(reset_at)) <= self.cfg.reset_slack
        });
        if let Some(a) = self.advert
            && same_window
            && quota.remaining > a.advertised
        {
            return;
        }
        if !same_window {
            // A new window: its spacing starts afresh (the line of calls keeps its order).
            self.tat = None;
            self.spacing = None;
        }
        self.advert = Some(Advert {
            // The server may not have counted the calls still in flight yet.
            remaining: quota.remaining.saturating_sub(self.in_flight),
            advertised: quota.remaining,
            limit: quota.limit,
            reset_at: Some(reset_at),
        });
    }

    /// A throttle response arrived: block until `now + wait` (the caller
    /// passes max(Retry-After, reset)).
    pub fn throttled(&mut self, now: Instant, wait: Duration) {
        let until = later(now, wait);
        self.blocked_until = Some(self.blocked_until.map_or(until, |b| b.max(until)));
    }
}

#[cfg(test)]
#[path = "pacer_tests.rs"]
mod tests;
