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
mod tests {
    use std::sync::atomic::AtomicUsize;

    use super::*;

    type TestCache = Cache<u32, String, String>;

    #[tokio::test(start_paused = true)]
    async fn a_value_is_reused_until_its_time_is_up() {
        let cache = TestCache::new(10);
        let fetches = &AtomicUsize::new(0);
        let fetch = move || async move {
            let n = fetches.fetch_add(1, Ordering::SeqCst);
            Ok::<_, String>((format!("token-{n}"), Some(Duration::from_secs(60))))
        };
        assert_eq!(
            cache.get(1, fetch).await,
            (Ok("token-0".into()), Source::Fetched)
        );
        tokio::time::advance(Duration::from_secs(59)).await;
        assert_eq!(
            cache.get(1, fetch).await,
            (Ok("token-0".into()), Source::Cached)
        );
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(
            cache.get(1, fetch).await,
            (Ok("token-1".into()), Source::Fetched)
        );
        // Another key is another exchange.
        assert_eq!(
            cache.get(2, fetch).await,
            (Ok("token-2".into()), Source::Fetched)
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_value_without_a_lifetime_and_a_failure_are_not_reused() {
        let cache = TestCache::new(10);
        let fetches = &AtomicUsize::new(0);
        let once = move || async move {
            fetches.fetch_add(1, Ordering::SeqCst);
            Ok::<_, String>(("t".to_string(), None))
        };
        let _ = cache.get(1, once).await;
        assert_eq!(cache.get(1, once).await.1, Source::Fetched);
        let failing = move || async move {
            fetches.fetch_add(1, Ordering::SeqCst);
            Err::<(String, Option<Duration>), _>("refused".to_string())
        };
        assert_eq!(
            cache.get(2, failing).await,
            (Err("refused".into()), Source::Fetched)
        );
        assert_eq!(cache.get(2, failing).await.1, Source::Fetched);
        assert_eq!(fetches.load(Ordering::SeqCst), 4);
    }

    #[tokio::test(start_paused = true)]
    async fn concurrent_calls_for_one_subject_share_one_exchange() {
        let cache = Arc::new(TestCache::new(10));
        let fetches = Arc::new(AtomicUsize::new(0));
        let calls: Vec<_> = (0..20)
            .map(|_| {
                let (cache, fetches) = (cache.clone(), fetches.clone());
                tokio::spawn(async move {
                    cache
                        .get(7, || async move {
                            fetches.fetch_add(1, Ordering::SeqCst);
                            // The authorization server takes a while.
                            tokio::time::sleep(Duration::from_millis(200)).await;
                            Ok::<_, String>(("shared".to_string(), Some(Duration::from_secs(60))))
                        })
                        .await
                })
            })
            .collect();
        let mut sources = Vec::new();
        for call in calls {
            let (value, source) = call.await.unwrap();
            assert_eq!(value.unwrap(), "shared");
            sources.push(source);
        }
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
        assert_eq!(sources.iter().filter(|s| **s == Source::Fetched).count(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn the_calls_waiting_for_a_failed_exchange_get_its_failure_not_another_try() {
        let cache = Arc::new(TestCache::new(10));
        let fetches = Arc::new(AtomicUsize::new(0));
        let calls: Vec<_> = (0..5)
            .map(|_| {
                let (cache, fetches) = (cache.clone(), fetches.clone());
                tokio::spawn(async move {
                    cache
                        .get(7, || async move {
                            fetches.fetch_add(1, Ordering::SeqCst);
                            tokio::time::sleep(Duration::from_millis(200)).await;
                            Err::<(String, Option<Duration>), _>("invalid_grant".to_string())
                        })
                        .await
                })
            })
            .collect();
        for call in calls {
            assert_eq!(call.await.unwrap().0, Err("invalid_grant".into()));
        }
        assert_eq!(fetches.load(Ordering::SeqCst), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_flood_of_distinct_subjects_stays_within_the_capacity_and_keeps_the_recent() {
        let cache = TestCache::new(100);
        let fetch = || async { Ok::<_, String>(("t".to_string(), Some(Duration::from_secs(600)))) };
        let _ = cache.get(0, fetch).await;
        for key in 1..10_000 {
            // Key 0 stays in use throughout.
            assert_eq!(cache.get(0, fetch).await.1, Source::Cached, "at {key}");
            let _ = cache.get(key, fetch).await;
            assert!(cache.len() <= 100, "{} held at {key}", cache.len());
        }
        // The most recent keys are still cached.
        assert_eq!(cache.get(9_999, fetch).await.1, Source::Cached);
        assert_eq!(cache.get(1, fetch).await.1, Source::Fetched);
    }

    #[tokio::test(start_paused = true)]
    async fn expired_values_go_first_when_room_is_needed() {
        let cache = TestCache::new(10);
        let short = || async { Ok::<_, String>(("t".to_string(), Some(Duration::from_secs(1)))) };
        let long = || async { Ok::<_, String>(("t".to_string(), Some(Duration::from_secs(600)))) };
        let _ = cache.get(0, long).await;
        for key in 1..10 {
            let _ = cache.get(key, short).await;
        }
        tokio::time::advance(Duration::from_secs(2)).await;
        let _ = cache.get(10, long).await;
        // The nine expired ones were dropped; the oldest key, still fresh, was kept.
        assert_eq!(cache.len(), 2);
        assert_eq!(cache.get(0, long).await.1, Source::Cached);
    }
}
