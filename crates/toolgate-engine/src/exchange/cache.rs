//! Exchanged tokens, reused until shortly before they expire. Bounded: at most
//! `capacity` subjects are kept, the least recently used dropped first, so a flood of
//! distinct caller tokens cannot grow memory. Calls with the same subject share one
//! exchange: the first does it while the others wait for its outcome (single-flight),
//! so a burst of a user's calls costs the authorization server one request.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tokio::time::Instant;

use crate::sync::lock;

/// How a value was had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// From the cache.
    Cached,
    /// From another call's exchange, waited for.
    Shared,
    /// From this call's own exchange.
    Fetched,
}

/// The cache, keyed by `K` (a digest of the subject token).
#[derive(Debug)]
pub struct Cache<K, V, E> {
    capacity: usize,
    inner: std::sync::Mutex<Entries<K, V, E>>,
}

#[derive(Debug)]
struct Entries<K, V, E> {
    map: HashMap<K, Arc<Slot<V, E>>>,
    tick: u64,
}

#[derive(Debug)]
struct Slot<V, E> {
    last_used: AtomicU64,
    /// How many exchanges for this key have finished.
    done: AtomicU64,
    /// Held during an exchange.
    state: tokio::sync::Mutex<State<V, E>>,
}

#[derive(Debug)]
struct State<V, E> {
    /// A value and until when it may be used.
    fresh: Option<(V, Instant)>,
    /// The outcome of the last exchange, for the calls that waited for it.
    last: Option<Result<V, E>>,
}

impl<K: Hash + Eq + Clone, V: Clone, E: Clone> Cache<K, V, E> {
    /// A cache of at most `capacity` keys (at least 1).
    pub fn new(capacity: usize) -> Self {
        Cache {
            capacity: capacity.max(1),
            inner: std::sync::Mutex::new(Entries {
                map: HashMap::new(),
                tick: 0,
            }),
        }
    }

    /// How many keys are held.
    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.inner).map.len()
    }

    /// The value of `key`: cached while fresh, or from `fetch`, which says how long its
    /// value may be reused (`None`: not at all). Concurrent calls for one key run one
    /// `fetch`; those that waited get its outcome, failure included.
    pub async fn get<F, Fut>(&self, key: K, fetch: F) -> (Result<V, E>, Source)
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<(V, Option<Duration>), E>>,
    {
        let slot = self.slot(key);
        let seen = slot.done.load(Ordering::Acquire);
        let mut state = slot.state.lock().await;
        if let Some((value, until)) = &state.fresh
            && Instant::now() < *until
        {
            return (Ok(value.clone()), Source::Cached);
        }
        if slot.done.load(Ordering::Acquire) != seen
            && let Some(last) = &state.last
        {
            return (last.clone(), Source::Shared);
        }
        let outcome = fetch().await;
        let result = match outcome {
            Ok((value, ttl)) => {
                state.fresh = ttl.map(|ttl| (value.clone(), Instant::now() + ttl));
                Ok(value)
            }
            Err(e) => {
                state.fresh = None;
                Err(e)
            }
        };
        state.last = Some(result.clone());
        slot.done.fetch_add(1, Ordering::Release);
        (result, Source::Fetched)
    }

    /// The slot of `key`, made (and room made for it) when absent.
    fn slot(&self, key: K) -> Arc<Slot<V, E>> {
        let mut entries = lock(&self.inner);
        entries.tick += 1;
        let tick = entries.tick;
        if let Some(slot) = entries.map.get(&key) {
            slot.last_used.store(tick, Ordering::Relaxed);
            return slot.clone();
        }
        if entries.map.len() >= self.capacity {
            self.make_room(&mut entries.map);
        }
        let slot = Arc::new(Slot {
            last_used: AtomicU64::new(tick),
            done: AtomicU64::new(0),
            state: tokio::sync::Mutex::new(State {
                fresh: None,
                last: None,
            }),
        });
        entries.map.insert(key, slot.clone());
        slot
    }

    /// Drops what is expired or empty, then the least recently used down to nine
    /// tenths of the capacity, so the cost of a full cache is paid once per tenth of it
    /// rather than on every new key. A slot in the middle of an exchange keeps working
    /// for the calls that hold it; it is only forgotten.
    fn make_room(&self, map: &mut HashMap<K, Arc<Slot<V, E>>>) {
        let now = Instant::now();
        map.retain(|_, slot| match slot.state.try_lock() {
            Ok(state) => state.fresh.as_ref().is_some_and(|(_, until)| now < *until),
            Err(_) => true,
        });
        let keep = self.capacity - self.capacity / 10 - 1;
        if map.len() > keep {
            let mut ages: Vec<(u64, K)> = map
                .iter()
                .map(|(k, s)| (s.last_used.load(Ordering::Relaxed), k.clone()))
                .collect();
            ages.sort_unstable_by_key(|(age, _)| *age);
            let excess = map.len() - keep;
            for (_, key) in ages.into_iter().take(excess) {
                map.remove(&key);
            }
        }
    }
}

#[cfg(test)]
mod tests;
