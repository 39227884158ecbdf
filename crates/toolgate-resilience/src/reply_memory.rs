//! A gateway-wide budget of upstream reply bytes held in memory at once.
//!
//! Each reply is capped on its own (`max_response_bytes`), but that bounds one call,
//! not the gateway: twenty agents calling a tool whose upstream answers 6 MB each hold
//! 120 MB of bodies (and the answers built from them) at once, and a hostile upstream
//! can be called as often as agents like. [`ReplyMemory`] is the sum over every reply
//! being read or answered; a reply that would take it over its limit is not read
//! further, so the gateway's memory stays bounded whatever the upstreams send.
//!
//! Lock-free: a reply reserves its bytes with one compare-and-swap per chunk and gives
//! them back when its [`Held`] is dropped (with the last copy of the body).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The budget: a limit and what every live [`Held`] holds together.
#[derive(Debug)]
pub struct ReplyMemory {
    limit: AtomicUsize,
    held: AtomicUsize,
}

/// What the replies of one dependency hold together: no dependency may hold more than
/// half of the limit, so one upstream that answers slowly with large bodies (each
/// reply's `Content-Length` is taken at once) cannot leave the others without room.
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
    bytes: usize,
}

/// A reply that did not fit: what was held by every reply when it asked, and the limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoRoom {
    /// Bytes held by every reply (this one included) when it asked for more; by the
    /// dependency's replies when `share`.
    pub held: usize,
    /// The limit: the whole budget, or the dependency's part of it when `share`.
    pub limit: usize,
    /// The dependency's part (half the budget, so that one dependency cannot take it
    /// all) was full, not the whole budget.
    pub share: bool,
}

impl ReplyMemory {
    /// A budget of `limit` bytes.
    pub fn new(limit: usize) -> Arc<ReplyMemory> {
        Arc::new(ReplyMemory {
            limit: AtomicUsize::new(limit),
            held: AtomicUsize::new(0),
        })
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
            bytes: 0,
        }
    }

    /// An empty share for one reply of the dependency whose replies hold `share`.
    pub fn hold_in(self: &Arc<Self>, share: &Arc<Share>) -> Held {
        Held {
            memory: Arc::clone(self),
            share: Some(Arc::clone(share)),
            bytes: 0,
        }
    }
}

impl Held {
    /// Takes `more` bytes, or refuses when every reply together would then hold more
    /// than the limit (nothing is taken then).
    pub fn grow(&mut self, more: usize) -> Result<(), NoRoom> {
        let limit = self.memory.limit();
        if let Some(share) = &self.share {
            take(&share.held, more, limit / 2).map_err(|full| NoRoom {
                share: true,
                ..full
            })?;
        }
        if let Err(full) = take(&self.memory.held, more, limit) {
            if let Some(share) = &self.share {
                share.held.fetch_sub(more, Ordering::AcqRel);
            }
            return Err(full);
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
        if let Some(share) = &self.share {
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
                    share: false,
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
            if let Some(share) = &self.share {
                share.held.fetch_sub(self.bytes, Ordering::AcqRel);
            }
        }
    }
}

#[cfg(test)]
mod tests;
