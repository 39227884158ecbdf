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
