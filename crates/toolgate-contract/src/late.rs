//! Learning that goes on after a learned contract is enforced, for the places it left
//! open. Twenty responses do not reach every place: a list empty on every page learned
//! from, an optional member sent only later, a field of an object that turned up in two
//! responses. Drift there went unseen for as long as the contract lived. The responses
//! checked since are learned from too, in rounds of [`LATE_ROUND`]: at the end of each,
//! the places they reached well enough are constrained ([`Learner::graft`]), and the
//! contract to enforce is written again. Nothing enforced is loosened, so a drift
//! already there cannot be learned away, and a place gets its shape once: from then on
//! it is enforced like any other.
//!
//! Bounded: each round learns into a fresh learner under the same path cap, and learning
//! stops after [`LATE_ROUNDS`] rounds (places still open then stay open).

use crate::learn::Learner;
use serde_json::Value;

/// Responses learned from per round: as many as a contract is first learned from.
pub const LATE_ROUND: u64 = crate::DEFAULT_ENFORCE_AFTER;

/// Rounds learned at most after enforcement.
pub const LATE_ROUNDS: u32 = 50;

/// The end of a round of late learning.
#[derive(Debug)]
pub struct RoundEnd {
    /// What the round's responses taught.
    pub later: Learner,
    /// The schema to enforce from now on, when the round constrained more places.
    pub schema: Option<Value>,
}

/// What an enforced learned contract holds, and what it is learning since.
#[derive(Debug, Clone)]
pub struct LateLearning {
    enforced: Learner,
    later: Learner,
    rounds: u32,
}

impl LateLearning {
    /// Goes on from the learner whose schema is enforced.
    pub fn new(enforced: Learner) -> LateLearning {
        let later = Learner::new(enforced.max_paths());
        LateLearning {
            enforced,
            later,
            rounds: 0,
        }
    }

    /// Learns from one checked response; the schema to enforce from now on when this
    /// response ended a round that constrained more places.
    pub fn observe(&mut self, body: &Value) -> Option<Value> {
        self.observe_round(body).and_then(|round| round.schema)
    }

    /// [`LateLearning::observe`], and when this response ended a round, what the round
    /// learned too: a fleet grafts it onto the contract its replicas share.
    pub fn observe_round(&mut self, body: &Value) -> Option<RoundEnd> {
        if !self.learning() {
            return None;
        }
        self.later.observe(body);
        if self.later.samples() < LATE_ROUND {
            return None;
        }
        let later = std::mem::replace(&mut self.later, Learner::new(self.enforced.max_paths()));
        self.rounds += 1;
        let schema = self.enforced.graft(&later).then(|| self.enforced.schema());
        Some(RoundEnd { later, schema })
    }

    /// Takes `enforced` and `rounds` as the contract and rounds learned so far: another
    /// replica's, shared through the fleet. The round under way goes on.
    pub fn adopt(&mut self, enforced: Learner, rounds: u32) {
        self.enforced = enforced;
        self.rounds = rounds.min(LATE_ROUNDS);
    }

    /// Rounds learned so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// Whether responses are still learned from.
    pub fn learning(&self) -> bool {
        self.rounds < LATE_ROUNDS
    }

    /// The learner whose schema is enforced now.
    pub fn enforced(&self) -> &Learner {
        &self.enforced
    }
}

#[cfg(test)]
mod tests;
