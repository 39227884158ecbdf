//! One learned contract per tool for a fleet. Each replica learns from the responses it
//! serves; without sharing, two replicas behind a balancer enforce different shapes and
//! `toolgate lock` pins whichever one it asks. With the shared state, the fleet's Redis
//! holds one contract per tool (and configuration of it), with its counts:
//!
//! - the first replica to have learned enough writes it; the others take it, replacing
//!   what they learned alone (a replica that enforced its own a moment earlier carries
//!   its absences over);
//! - each round of late learning a replica ends is grafted onto the fleet's contract,
//!   not its own, and written back by compare and set on a version (another replica that
//!   wrote first makes it read again and graft onto that);
//! - a replica takes the fleet's contract whenever its version moved, at most every
//!   [`SYNC_EVERY`] and at once when it enforces or ends a round; a restarted replica
//!   takes it with its first response;
//! - a relearn starts the fleet's contract over (a new epoch): the other replicas drop
//!   theirs when they see it;
//! - Redis down: the replica learns on its own and says so once; what it learned alone
//!   meanwhile is grafted onto the fleet's when Redis is back.
//!
//! Bounded: the contract is one learner under the tool's path cap, read back only up to
//! [`toolgate_contract::MAX_SAVED_BYTES`] and only with no more fields than this
//! replica's `max_paths`; anything else in Redis is ignored (this replica then learns on
//! its own). Nothing here runs on a call's path: only the background learner waits for
//! Redis, 50 ms at most per operation.

use std::hash::{Hash, Hasher};
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

use serde::{Deserialize, Serialize};
use toolgate_config::ToolSpec;
use toolgate_contract::{LATE_ROUNDS, LateLearning, Learner, ResponseContract};

use super::{Enforced, Learned, LearnedState};
use crate::fleet::Shared;
use crate::sync::lock;

/// How often a replica asks whether the fleet's contract moved, at most.
pub(super) const SYNC_EVERY: Duration = Duration::from_secs(1);
/// Compare-and-set attempts before a round is left to this replica alone.
const WRITE_TRIES: usize = 3;

/// Where the fleet holds one tool's contract, and what this replica saw of it last.
#[derive(Debug)]
pub(super) struct Link {
    tool: String,
    key: String,
    seen: Mutex<Seen>,
}

#[derive(Debug, Default)]
struct Seen {
    /// The fleet's version and epoch as last read or written.
    version: String,
    epoch: String,
    /// Whether they were read at all.
    read: bool,
    synced_at: Option<Instant>,
    /// Told that this replica learns alone (Redis down).
    alone: bool,
    /// Rounds learned alone, not on the fleet's contract yet.
    unshared: bool,
    /// A relearn here that the fleet has not taken yet.
    start_over: bool,
}

/// The contract as the fleet holds it.
#[derive(Debug, Clone)]
struct Contract {
    learned_at: String,
    samples: u64,
    rounds: u32,
    learner: Learner,
}

#[derive(Serialize, Deserialize)]
struct Saved {
    learned_at: String,
    samples: u64,
    rounds: u32,
    learner: String,
}

impl Contract {
    fn save(&self) -> String {
        let saved = Saved {
            learned_at: self.learned_at.clone(),
            samples: self.samples,
            rounds: self.rounds,
            learner: self.learner.save(),
        };
        serde_json::to_string(&saved).unwrap_or_default()
    }

    fn restore(text: &str, max_paths: usize) -> Option<Contract> {
        // The learner inside is held to its own bound; this is its envelope.
        if text.len() > toolgate_contract::MAX_SAVED_BYTES + 4096 {
            return None;
        }
        let saved: Saved = serde_json::from_str(text).ok()?;
        Some(Contract {
            learner: Learner::restore(&saved.learner, max_paths)?,
            learned_at: saved.learned_at.chars().take(64).collect(),
            samples: saved.samples,
            rounds: saved.rounds.min(LATE_ROUNDS),
        })
    }

    /// Grafts what `later` learned onto this contract, as one more round.
    fn graft(&mut self, later: &Learner) {
        self.learner.graft(later);
        self.rounds = (self.rounds + 1).min(LATE_ROUNDS);
    }
}

impl Link {
    /// The link of `spec`'s tool in the fleet whose keys start with `prefix`. The key
    /// names the tool as configured: a tool changed by a reload learns anew, as on one
    /// replica.
    pub(super) fn new(prefix: &str, spec: &ToolSpec) -> Link {
        // Replicas of one build hash alike; a rolling deploy across builds that hash
        // otherwise shares from the next round on the new build's key.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        crate::fingerprint::tool(spec).hash(&mut h);
        let name: String = spec
            .name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || "_-.".contains(*c))
            .take(128)
            .collect();
        Link {
            tool: spec.name.clone(),
            key: format!("{prefix}learned:{name}:{:016x}", h.finish()),
            seen: Mutex::new(Seen::default()),
        }
    }

    /// A relearn here: the fleet's contract is to start over at the next share.
    pub(super) fn start_over(&self) {
        lock(&self.seen).start_over = true;
    }

    fn due(&self) -> bool {
        let seen = lock(&self.seen);
        seen.start_over || seen.synced_at.is_none_or(|at| at.elapsed() >= SYNC_EVERY)
    }

    fn set(&self, version: String, epoch: String) {
        let mut seen = lock(&self.seen);
        seen.version = version;
        seen.epoch = epoch;
        seen.read = true;
        seen.synced_at = Some(Instant::now());
        if seen.alone {
            seen.alone = false;
            tracing::info!(tool = %self.tool, "the learned contract is the fleet's again");
        }
    }

    /// Redis did not answer: this replica learns on its own, and says so once.
    fn alone(&self, round: bool) {
        let mut seen = lock(&self.seen);
        seen.synced_at = Some(Instant::now());
        seen.unshared |= round;
        if !seen.alone {
            seen.alone = true;
            tracing::warn!(
                tool = %self.tool,
                "shared state (Redis) unreachable: this replica learns the tool's contract on its own until it returns"
            );
        }
    }
}

/// Shares what learning one sample did with the fleet, and takes what the fleet holds.
pub(super) async fn share(shared: &Shared, state: &LearnedState, learned: Learned) {
    let Some(link) = &state.fleet else {
        return;
    };
    let mut round = match learned {
        Learned::Round(later) => Some(later),
        Learned::Enforced => None,
        Learned::Nothing if !link.due() => return,
        Learned::Nothing => None,
    };
    if lock(&link.seen).start_over {
        let Some((version, epoch)) = shared.learned_reset(&link.key).await else {
            return link.alone(false);
        };
        lock(&link.seen).start_over = false;
        link.set(version, epoch);
        return;
    }
    let max_paths = state.settings.max_paths;
    for _ in 0..WRITE_TRIES {
        let Some(stored) = shared.learned_read(&link.key).await else {
            return link.alone(round.is_some());
        };
        let (known, seen_version, seen_epoch, unshared) = {
            let seen = lock(&link.seen);
            (
                seen.read,
                seen.version.clone(),
                seen.epoch.clone(),
                seen.unshared,
            )
        };
        // No epoch: no relearn the fleet remembers (a Redis restarted empty forgot it).
        if known && !stored.epoch.is_empty() && stored.epoch != seen_epoch {
            // Relearned on another replica: start over here too.
            state.reset();
            tracing::info!(tool = %link.tool, "the learned contract starts over: relearned on another replica");
            return link.set(stored.version, stored.epoch);
        }
        let fleet = stored
            .state
            .as_deref()
            .and_then(|text| Contract::restore(text, max_paths));
        let next = match fleet {
            Some(mut fleet) if round.is_some() || unshared => {
                if let Some(later) = &round {
                    fleet.graft(later);
                }
                if unshared && let Some(mine) = state.contract() {
                    // Learned alone while Redis was away: onto the fleet's, place by place.
                    fleet.learner.graft(&mine.learner);
                }
                fleet
            }
            Some(fleet) => {
                if !known || stored.version != seen_version || state.enforced().is_none() {
                    state.adopt(&fleet);
                }
                return link.set(stored.version, stored.epoch);
            }
            // The fleet has none yet (or one this replica cannot read): this replica's is
            // the first.
            None => match state.contract() {
                Some(mine) => mine,
                None => return link.set(stored.version, stored.epoch),
            },
        };
        match shared
            .learned_write(&link.key, &stored.version, &stored.epoch, &next.save())
            .await
        {
            None => return link.alone(round.is_some()),
            Some(w) if w.written => {
                state.adopt(&next);
                lock(&link.seen).unshared = false;
                return link.set(w.version, w.epoch);
            }
            // Another replica wrote since: read again, graft onto theirs.
            Some(_) => {}
        }
    }
    // Kept losing the race: this round stays this replica's, and is grafted onto the
    // fleet's with the next one.
    if round.take().is_some() {
        lock(&link.seen).unshared = true;
    }
}

impl LearnedState {
    /// This replica's enforced contract, as the fleet would hold it.
    fn contract(&self) -> Option<Contract> {
        let enforced = self.enforced()?;
        let late = lock(&self.late);
        let late = late.as_ref()?;
        Some(Contract {
            learned_at: enforced.learned_at.clone(),
            samples: enforced.samples,
            rounds: late.rounds(),
            learner: late.enforced().clone(),
        })
    }

    /// Takes the fleet's contract as this replica's: enforced from now on, the absences
    /// followed so far carried over, late learning going on from the fleet's rounds.
    fn adopt(&self, fleet: &Contract) {
        let schema = fleet.learner.schema();
        let contract = match ResponseContract::compile(&schema, None) {
            Ok(c) => c,
            Err(e) => {
                tracing::error!(error = %e, "the fleet's learned contract does not compile; this replica keeps its own");
                return;
            }
        };
        // Under the learner's lock, as a reset takes it.
        let mut guard = lock(&self.learner);
        let capped = fleet.learner.capped();
        let next = match self.enforced() {
            Some(e) => e.adopted(contract, fleet.samples, fleet.learned_at.clone(), capped),
            None => Enforced::new(contract, fleet.samples, fleet.learned_at.clone(), capped),
        };
        *crate::sync::write(&self.enforced) = Some(std::sync::Arc::new(next));
        guard.0 = fleet.learner.clone();
        self.samples
            .store(fleet.samples, std::sync::atomic::Ordering::Relaxed);
        let mut late = lock(&self.late);
        let learning = late.get_or_insert_with(|| LateLearning::new(fleet.learner.clone()));
        learning.adopt(fleet.learner.clone(), fleet.rounds);
        self.late_open
            .store(learning.learning(), std::sync::atomic::Ordering::Release);
    }
}

#[cfg(all(test, feature = "redis"))]
mod tests;
