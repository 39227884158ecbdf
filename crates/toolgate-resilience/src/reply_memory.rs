//! A gateway-wide budget of upstream reply bytes held in memory at once.
//!
//! Each reply is capped on its own (`max_response_bytes`), but that bounds one call,
//! not the gateway: twenty agents calling a tool whose upstream answers 6 MB each hold
//! 120 MB of bodies (and the answers built from them) at once, and a hostile upstream
//! can be called as often as agents like. [`ReplyMemory`] is the sum over every reply
//! being read or answered; a reply that would take it over its limit is not read
//! further, so the gateway's memory stays bounded whatever the upstreams send.
//!
//! Each agent's replies hold at most its share of the budget (`gateway.reply_share`,
//! half by default): one agent with many slow or huge calls would otherwise fill it,
//! and every other agent's calls would be refused until its replies were answered.
//! Unlike a session, a reply being read cannot be taken back to make room, so the
//! share holds whether or not other agents are calling.
//!
//! Lock-free: a reply reserves its bytes with one compare-and-swap per chunk and gives
//! them back when its [`Held`] is dropped (with the last copy of the body).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// The budget: a limit and what every live [`Held`] holds together.
#[derive(Debug)]
pub struct ReplyMemory {
    limit: AtomicUsize,
    held: AtomicUsize,
    /// The fraction of the limit one agent's replies may hold (`f64` bits); outside
    /// (0, 1): no share.
    agent_share: AtomicU64,
    /// The least an agent's share is: one reply of the largest size allowed, so an
    /// agent can always read one.
    agent_floor: AtomicUsize,
}

/// What the replies of one dependency hold together: no dependency may hold more than
/// half of the limit, so one upstream that answers slowly with large bodies (each
/// reply's `Content-Length` is taken at once) cannot leave the others without room.
/// The same for what one agent's replies hold, within its share of the limit.
#[derive(Debug, Default)]
pub struct Share {
    held: AtomicUsize,
}

impl Share {
    /// Bytes held now by this dependency's replies.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }
}

/// What one reply holds of a [`ReplyMemory`]; given back on drop.
#[derive(Debug)]
pub struct Held {
    memory: Arc<ReplyMemory>,
    share: Option<Arc<Share>>,
    agent: Option<Arc<Share>>,
    bytes: usize,
}

/// A reply that did not fit: what was held when it asked, and the limit that was full.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoRoom {
    /// Bytes held (this reply's included) when it asked for more: by every reply, or
    /// by those of the dependency or the agent, as `part` says.
    pub held: usize,
    /// The limit of `part`.
    pub limit: usize,
    /// Which limit was full.
    pub part: Part,
}

/// The part of the reply memory a reply did not fit in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The whole budget.
    Whole,
    /// The dependency's part: half the budget, so that one dependency cannot take it all.
    Dependency,
    /// The calling agent's share (`gateway.reply_share`), so that one agent cannot take
    /// it all.
    Agent,
}

impl ReplyMemory {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Arc<ReplyMemory> {
        Arc::new(ReplyMemory {
            limit: AtomicUsize::new(limit),
            held: AtomicUsize::new(0),
            agent_share: AtomicU64::new(1f64.to_bits()),
            agent_floor: AtomicUsize::new(0),
        })
    }

    /// Each agent's replies hold at most `fraction` of the limit, and never less than
    /// `at_least` (the largest reply allowed, so that one always fits). A reload may
    /// change it; what is held stays held. A fraction outside (0, 1) is no share.
    pub fn set_agent_share(&self, fraction: f64, at_least: usize) {
        self.agent_share
            .store(fraction.to_bits(), Ordering::Relaxed);
        self.agent_floor.store(at_least, Ordering::Relaxed);
    }

    /// What one agent's replies may hold together now: its share of the limit,
    /// rounded up, or the whole limit when there is no share.
    pub fn agent_limit(&self) -> usize {
        let limit = self.limit();
        let fraction = f64::from_bits(self.agent_share.load(Ordering::Relaxed));
        if !(fraction > 0.0 && fraction < 1.0) {
            return limit;
        }
        let share = (limit as f64 * fraction).ceil() as usize;
        share
            .max(self.agent_floor.load(Ordering::Relaxed))
            .min(limit)
    }

    /// Whether the replies of the agent holding `agent` fill its share: a new call of
    /// that agent should not be sent, since its reply could not be read.
    pub fn is_full_for(&self, agent: &Share) -> bool {
        agent.held() >= self.agent_limit()
    }

    /// No limit (for clients built outside a gateway: tests, one-off commands).
    pub fn unlimited() -> Arc<ReplyMemory> {
        ReplyMemory::new(usize::MAX)
    }

    /// The limit in bytes.
    pub fn limit(&self) -> usize {
        self.limit.load(Ordering::Relaxed)
    }

    /// A new limit (a reload). Replies already held keep what they hold; if that is
    /// more than the new limit, new replies wait for room as they would at the limit.
    pub fn set_limit(&self, limit: usize) {
        self.limit.store(limit, Ordering::Relaxed);
    }

    /// Bytes held now by every reply.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// Whether nothing more fits: a new call should not be sent, since its reply
    /// could not be read.
    pub fn is_full(&self) -> bool {
        self.held() >= self.limit()
    }

    /// An empty share for one reply, grown as its bytes arrive.
    pub fn hold(self: &Arc<Self>) -> Held {
        Held {
            memory: Arc::clone(self),
            share: None,
            agent: None,
            bytes: 0,
        }
    }

    /// An empty share for one reply of the dependency whose replies hold `share`.
    pub fn hold_in(self: &Arc<Self>, share: &Arc<Share>) -> Held {
        Held {
            memory: Arc::clone(self),
            share: Some(Arc::clone(share)),
            agent: None,
            bytes: 0,
        }
    }
}

impl Held {
    /// The same reply, counted also in the share of the agent whose call it answers
    /// (`None`: a call of no agent, counted in no share).
    #[must_use]
    pub fn for_agent(mut self, agent: Option<&Arc<Share>>) -> Held {
        if let Some(agent) = agent {
            agent.held.fetch_add(self.bytes, Ordering::AcqRel);
            self.agent = Some(Arc::clone(agent));
        }
        self
    }

    /// Takes `more` bytes, or refuses when the agent's replies, the dependency's or
    /// every reply together would then hold more than their limit (nothing is taken
    /// then).
    pub fn grow(&mut self, more: usize) -> Result<(), NoRoom> {
        let limit = self.memory.limit();
        // The narrowest part first: a reply refused by its agent's share is not
        // reported as a full gateway.
        let parts = [
            (
                self.agent.as_ref().map(|a| &a.held),
                self.memory.agent_limit(),
                Part::Agent,
            ),
            (
                self.share.as_ref().map(|s| &s.held),
                limit / 2,
                Part::Dependency,
            ),
            (Some(&self.memory.held), limit, Part::Whole),
        ];
        for (i, &(counter, limit, part)) in parts.iter().enumerate() {
            let Some(counter) = counter else { continue };
            if let Err(full) = take(counter, more, limit) {
                for counter in parts[..i].iter().filter_map(|p| p.0) {
                    counter.fetch_sub(more, Ordering::AcqRel);
                }
                return Err(NoRoom { part, ..full });
            }
        }
        self.bytes += more;
        Ok(())
    }

    /// Takes bytes until this share holds `total`, past the limit when the budget has
    /// no room. For bytes that exist already and must be kept (an answer built from a
    /// reply the upstream acted on): counting them is what makes new replies wait, and
    /// refusing them would only hide them.
    pub fn grow_to_even_past_limit(&mut self, total: usize) {
        let Some(more) = total.checked_sub(self.bytes).filter(|&more| more > 0) else {
            return;
        };
        if self.grow(more).is_err() {
            self.grow_past_limit(more);
        }
    }

    /// Takes `more` bytes even past the limit (see [`Held::grow_to_even_past_limit`]).
    pub fn grow_past_limit(&mut self, more: usize) {
        for share in self.share.iter().chain(&self.agent) {
            share.held.fetch_add(more, Ordering::AcqRel);
        }
        self.memory.held.fetch_add(more, Ordering::AcqRel);
        self.bytes += more;
    }

    /// Takes bytes until this share holds `total` (nothing when it already does).
    pub fn grow_to(&mut self, total: usize) -> Result<(), NoRoom> {
        match total.checked_sub(self.bytes) {
            Some(more) if more > 0 => self.grow(more),
            _ => Ok(()),
        }
    }

    /// Bytes this share holds.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

/// Adds `more` to `counter` unless it would then exceed `limit`.
fn take(counter: &AtomicUsize, more: usize, limit: usize) -> Result<(), NoRoom> {
    let mut held = counter.load(Ordering::Relaxed);
    loop {
        let next = match held.checked_add(more) {
            Some(next) if next <= limit => next,
            _ => {
                return Err(NoRoom {
                    held,
                    limit,
                    part: Part::Whole,
                });
            }
        };
        match counter.compare_exchange_weak(held, next, Ordering::AcqRel, Ordering::Relaxed) {
            Ok(_) => return Ok(()),
            Err(now) => held = now,
        }
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        if self.bytes > 0 {
            self.memory.held.fetch_sub(self.bytes, Ordering::AcqRel);
            for share in self.share.iter().chain(&self.agent) {
                share.held.fetch_sub(self.bytes, Ordering::AcqRel);
            }
        }
    }
}

#[cfg(test)]
mod tests;
