//! Latency/brownout tests: samples at fixed offsets on paused time.

use super::*;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

/// Feeds samples 100 ms apart starting at `*t`; returns the index (1-based)
/// of the first sample after which `brownout()` equals `until`, if any.
fn feed(w: &mut LatencyWindow, t: &mut Instant, latencies: &[u64], until: bool) -> Option<usize> {
    let mut hit = None;
    for (i, l) in latencies.iter().enumerate() {
        w.record(*t, ms(*l), true);
        *t += ms(100);
        if hit.is_none() && w.brownout() == until {
            hit = Some(i + 1);
        }
    }
    hit
}

/// 90..=110 ms, deterministic "noise".
fn steady(n: usize) -> Vec<u64> {
    (0..n).map(|i| 90 + (i as u64 * 7) % 21).collect()
}

fn warmed(t: &mut Instant) -> LatencyWindow {
    let mut w = LatencyWindow::default();
    assert_eq!(feed(&mut w, t, &steady(200), true), None);
    w
}

#[tokio::test(start_paused = true)]
async fn steady_latency_gives_a_steady_baseline() {
    let mut t = Instant::now();
    let w = warmed(&mut t);
    let s = w.snapshot(t);
    let baseline = s.baseline.expect("trusted after 200 samples");
    assert!(baseline >= ms(95) && baseline <= ms(105), "{baseline:?}");
    assert!(!s.brownout);
    let ratio = s.ratio.expect("ratio");
    assert!((0.8..1.2).contains(&ratio), "{ratio}");
}

#[tokio::test(start_paused = true)]
async fn no_verdict_before_the_baseline_is_trusted() {
    let mut t = Instant::now();
    let mut w = LatencyWindow::default();
    assert_eq!(
        feed(
            &mut w,
            &mut t,
            &[10, 10, 10, 5000, 5000, 5000, 5000, 5000, 5000],
            true
        ),
        None
    );
    let s = w.snapshot(t);
    assert_eq!((s.baseline, s.ratio), (None, None));
}

#[tokio::test(start_paused = true)]
async fn tripled_latency_is_a_brownout_within_twenty_samples() {
    let mut t = Instant::now();
    let mut w = warmed(&mut t);
    let slow: Vec<u64> = steady(40).iter().map(|l| l * 3).collect();
    let at = feed(&mut w, &mut t, &slow, true).expect("brownout detected");
    assert!(at <= 20, "detected after {at} samples");
    assert!(at >= 5, "not on a single spike: {at}");
}

#[tokio::test(start_paused = true)]
async fn a_fast_dependency_tripling_by_less_than_the_floor_is_not_a_brownout() {
    // 0.3 ms on loopback, then 1–5 ms while the gateway's own CPU is busy: the
    // ratio is far past 2.5, the rise is not worth holding calls back for.
    let mut t = Instant::now();
    let mut w = LatencyWindow::default();
    let us = |v: u64| Duration::from_micros(v);
    for i in 0..200 {
        w.record(t, us(280 + i % 40), true);
        t += ms(10);
    }
    for i in 0..200 {
        w.record(t, us(1000 + (i % 9) * 500), true);
        t += ms(10);
        assert!(!w.brownout(), "sample {i}: {:?}", w.snapshot(t).ratio);
    }
    // The same dependency slowing down for real (by 40 ms) is one.
    let mut seen = None;
    for i in 0..20 {
        w.record(t, ms(40), true);
        t += ms(10);
        if seen.is_none() && w.brownout() {
            seen = Some(i + 1);
        }
    }
    assert!(seen.is_some_and(|n| n <= 20), "{seen:?}");
}

#[tokio::test(start_paused = true)]
async fn short_spikes_are_not_a_brownout() {
    let mut t = Instant::now();
    let mut w = warmed(&mut t);
    let mut spiky = steady(100);
    for l in spiky.iter_mut().step_by(3) {
        *l = 2000; // a third of calls very slow: the median stays normal
    }
    assert_eq!(feed(&mut w, &mut t, &spiky, true), None);
}

#[tokio::test(start_paused = true)]
async fn baseline_is_frozen_during_a_brownout() {
    let mut t = Instant::now();
    let mut w = warmed(&mut t);
    let slow: Vec<u64> = steady(20).iter().map(|l| l * 4).collect();
    feed(&mut w, &mut t, &slow, true).expect("brownout");
    let before = w.baseline();
    let slow: Vec<u64> = steady(300).iter().map(|l| l * 4).collect();
    feed(&mut w, &mut t, &slow, false);
    assert!(w.brownout());
    assert_eq!(
        w.baseline(),
        before,
        "a long brownout must not become the new normal"
    );
}

#[tokio::test(start_paused = true)]
async fn exit_needs_latency_back_under_the_lower_threshold() {
    let mut t = Instant::now();
    let mut w = warmed(&mut t);
    let slow: Vec<u64> = steady(30).iter().map(|l| l * 3).collect();
    feed(&mut w, &mut t, &slow, true).expect("brownout");
    // 2× baseline: below the entry threshold, above the exit one — stays.
    let better: Vec<u64> = steady(50).iter().map(|l| l * 2).collect();
    assert_eq!(feed(&mut w, &mut t, &better, false), None, "hysteresis");
    let at = feed(&mut w, &mut t, &steady(30), false).expect("recovered");
    assert!(at <= 15, "left brownout after {at} normal samples");
}

#[tokio::test(start_paused = true)]
async fn percentiles_error_rate_and_window_expiry() {
    let t0 = Instant::now();
    let mut w = LatencyWindow::default();
    for i in 1..=100u64 {
        w.record(t0, ms(i), true);
    }
    for _ in 0..25 {
        w.record(t0, ms(10_000), false); // failures: counted, not in percentiles
    }
    let s = w.snapshot(t0);
    assert_eq!(
        (s.p50, s.p90, s.p95, s.p99),
        (ms(50), ms(90), ms(95), ms(99))
    );
    assert_eq!(s.samples, 125);
    assert!((s.error_rate - 0.2).abs() < 1e-9);
    let later = w.snapshot(t0 + Duration::from_secs(30));
    assert_eq!(
        (later.samples, later.p50, later.error_rate),
        (0, Duration::ZERO, 0.0)
    );
}

#[tokio::test(start_paused = true)]
async fn the_error_rate_follows_samples_that_leave_by_age_or_by_capacity() {
    let t0 = Instant::now();
    let mut w = LatencyWindow::new(LatencyConfig {
        capacity: 8,
        ..LatencyConfig::default()
    });
    for _ in 0..4 {
        w.record(t0, ms(5), false);
    }
    for _ in 0..4 {
        w.record(t0 + Duration::from_secs(20), ms(5), true);
    }
    let s = w.snapshot_without_percentiles(t0 + Duration::from_secs(20));
    assert_eq!((s.samples, s.error_rate), (8, 0.5));
    // The failures have aged out of the window but are still held: not counted.
    let s = w.snapshot_without_percentiles(t0 + Duration::from_secs(31));
    assert_eq!((s.samples, s.error_rate), (4, 0.0));
    // Pushed out by capacity instead: two of the four failures are gone.
    w.record(t0 + Duration::from_secs(21), ms(5), false);
    w.record(t0 + Duration::from_secs(21), ms(5), true);
    let s = w.snapshot_without_percentiles(t0 + Duration::from_secs(21));
    assert_eq!((s.samples, s.error_rate), (8, 3.0 / 8.0));
    assert_eq!(
        w.snapshot(t0 + Duration::from_secs(21)).error_rate,
        3.0 / 8.0
    );
}

#[tokio::test(start_paused = true)]
async fn memory_is_bounded() {
    let t0 = Instant::now();
    let mut w = LatencyWindow::new(LatencyConfig {
        capacity: 50,
        ..LatencyConfig::default()
    });
    for _ in 0..10_000 {
        w.record(t0, ms(5), true);
    }
    assert_eq!(w.snapshot(t0).samples, 50);
}
