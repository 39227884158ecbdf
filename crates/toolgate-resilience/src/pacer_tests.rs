//! Pacer tests on paused time, including an event-driven simulation of
//! concurrent calls against a server that enforces its quota.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::*;

fn secs(s: u64) -> Duration {
    Duration::from_secs(s)
}

fn quota(remaining: u64, limit: u64, reset_secs: u64) -> Quota {
    Quota {
        remaining,
        limit: Some(limit),
        reset_after: secs(reset_secs),
    }
}

#[tokio::test(start_paused = true)]
async fn no_advertisement_means_go() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    for i in 0..1000 {
        assert_eq!(
            p.admit(t0 + Duration::from_millis(i), Duration::ZERO),
            Pace::Go
        );
    }
    assert_eq!(p.in_flight(), 1000);
}

#[tokio::test(start_paused = true)]
async fn wait_or_exhausted_depends_on_the_deadline() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    p.observe(t0, quota(0, 100, 30));
    let resets_in = secs(31); // 30 s + 1 s slack
    assert_eq!(p.admit(t0, secs(60)), Pace::Queued(resets_in));
    assert_eq!(p.admit(t0, secs(10)), Pace::Exhausted { resets_in });
    // After the reset the full limit is assumed back.
    assert_eq!(p.admit(t0 + resets_in, secs(10)), Pace::Go);
}

#[tokio::test(start_paused = true)]
async fn throttled_blocks_until_the_hint() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    p.throttled(t0, secs(20));
    p.throttled(t0, secs(5)); // a shorter, later hint does not shorten the block
    assert_eq!(p.admit(t0 + secs(5), secs(60)), Pace::Queued(secs(15)));
    assert_eq!(
        p.admit(t0 + secs(5), secs(3)),
        Pace::Exhausted {
            resets_in: secs(15)
        }
    );
    assert_eq!(p.admit(t0 + secs(20), secs(3)), Pace::Go);
}

#[tokio::test(start_paused = true)]
async fn in_flight_calls_are_charged_against_a_fresh_advert() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    for _ in 0..5 {
        assert_eq!(p.admit(t0, secs(10)), Pace::Go);
    }
    // One of the five returns saying 6 left; the other 4 may not be counted.
    p.complete(t0, Some(quota(6, 100, 60)));
    assert_eq!(p.remaining(), Some(2));
}

#[tokio::test(start_paused = true)]
async fn an_overtaken_response_does_not_give_quota_back() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    p.observe(t0, quota(3, 100, 60));
    p.observe(t0 + Duration::from_millis(300), quota(9, 100, 60));
    assert_eq!(p.remaining(), Some(3));
}

#[tokio::test(start_paused = true)]
async fn spreads_calls_over_the_time_to_reset() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    // 11 left, 1 kept in reserve: about half of the 10 usable go at once (burst),
    // the rest are spaced by about (10 s + 1 s slack) / remaining.
    p.observe(t0, quota(11, 11, 10));
    let mut immediate = 0;
    let w = loop {
        match p.admit(t0, secs(30)) {
            Pace::Go => immediate += 1,
            Pace::Queued(w) => break w,
            other => panic!("unexpected {other:?}"),
        }
    };
    assert!(
        (4..=7).contains(&immediate),
        "burst of about half: {immediate}"
    );
    assert!(
        w > Duration::from_millis(500) && w < Duration::from_millis(3500),
        "{w:?}"
    );
    // Spreading is soft: a deadline too short for it still goes, quota permitting.
    assert_eq!(p.admit(t0, Duration::from_millis(200)), Pace::Go);
}

/// A server with `limit` requests per fixed `window`, advertising its state
/// with reset rounded *down* to whole seconds (the unkind case).
struct Server {
    limit: u64,
    window: Duration,
    window_end: Instant,
    used: u64,
    max_used: u64,
    throttled: u64,
}

impl Server {
    fn handle(&mut self, now: Instant) -> Option<Quota> {
        while now >= self.window_end {
            self.window_end += self.window;
            self.used = 0;
        }
        if self.used >= self.limit {
            self.throttled += 1;
            return None;
        }
        self.used += 1;
        self.max_used = self.max_used.max(self.used);
        let reset = secs(self.window_end.saturating_duration_since(now).as_secs());
        Some(Quota {
            remaining: self.limit - self.used,
            limit: Some(self.limit),
            reset_after: reset,
        })
    }
}

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    Ask { call: u64 },
    Send { call: u64 },
    Done { call: u64 },
}

/// `calls` calls arriving `every` apart, each with `deadline` and a 200 ms
/// upstream latency, after one probe; returns (server, calls sent, calls
/// exhausted).
fn simulate(calls: u64, every: Duration, deadline: Duration) -> (Server, u64, u64) {
    let t0 = Instant::now();
    let mut server = Server {
        limit: 20,
        window: secs(10),
        window_end: t0 + secs(10),
        used: 0,
        max_used: 0,
        throttled: 0,
    };
    let mut pacer = QuotaPacer::default();
    // With no advertisement the pacer lets everything go (it cannot know the
    // quota), so the run starts warm: one probe has been answered.
    let probe = server.handle(t0).expect("fresh window");
    pacer.observe(t0, probe);
    let mut queue = BinaryHeap::new();
    let arrival = |call: u64| t0 + every * u32::try_from(call).expect("small");
    for call in 0..calls {
        queue.push(Reverse((arrival(call), Event::Ask { call })));
    }
    let mut replies = vec![None; usize::try_from(calls).expect("small")];
    let (mut sent, mut exhausted) = (0, 0);
    while let Some(Reverse((now, event))) = queue.pop() {
        match event {
            Event::Ask { call } => {
                let left = deadline.saturating_sub(now - arrival(call));
                match pacer.admit(now, left) {
                    Pace::Go => queue.push(Reverse((now, Event::Send { call }))),
                    Pace::Queued(w) => {
                        // A place in line is a promise: it must fit the deadline.
                        assert!(w + MIN_ATTEMPT_TIME <= left, "queued past the deadline");
                        queue.push(Reverse((now + w, Event::Send { call })));
                    }
                    Pace::Wait(w) => queue.push(Reverse((now + w, Event::Ask { call }))),
                    Pace::Exhausted { .. } => exhausted += 1,
                }
            }
            Event::Send { call } => {
                sent += 1;
                replies[call as usize] = server.handle(now);
                let done = now + Duration::from_millis(200);
                queue.push(Reverse((done, Event::Done { call })));
            }
            Event::Done { call } => pacer.complete(now, replies[call as usize]),
        }
    }
    (server, sent, exhausted)
}

#[tokio::test(start_paused = true)]
async fn forty_calls_against_twenty_quota_never_exceed_it() {
    for every_ms in [0, 50, 250, 500] {
        let (server, sent, exhausted) = simulate(40, Duration::from_millis(every_ms), secs(30));
        assert_eq!(
            server.throttled, 0,
            "every {every_ms} ms: a 429 was provoked"
        );
        assert!(server.max_used <= 20);
        assert_eq!(sent + exhausted, 40);
        // Not uselessly stingy: calls spread over time all fit a later window. A burst
        // of twice the quota at one instant gets this window and the next (whose
        // length is not advertised, so no later one can be promised); the rest fail
        // at admission, never after waiting.
        let want = if every_ms >= 500 { 40 } else { 37 };
        assert!(sent >= want, "every {every_ms} ms: sent {sent}");
    }
}

#[tokio::test(start_paused = true)]
async fn short_deadlines_fail_fast_instead_of_provoking_429s() {
    let (server, sent, exhausted) = simulate(40, Duration::from_millis(100), secs(2));
    assert_eq!(server.throttled, 0);
    assert!((15..=20).contains(&sent), "sent {sent}");
    assert_eq!(sent + exhausted, 40);
}

#[tokio::test(start_paused = true)]
async fn absurd_hints_do_not_panic() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    p.observe(
        t0,
        Quota {
            remaining: 0,
            limit: None,
            reset_after: Duration::MAX,
        },
    );
    assert!(matches!(p.admit(t0, secs(10)), Pace::Exhausted { .. }));
    p.throttled(t0, Duration::MAX);
    assert!(matches!(p.admit(t0, secs(10)), Pace::Exhausted { .. }));
}

/// The send time each call is given, in arrival order (`None`: failed at admission).
fn send_times(
    p: &mut QuotaPacer,
    now: Instant,
    calls: usize,
    deadline: Duration,
) -> Vec<Option<Duration>> {
    (0..calls)
        .map(|_| match p.admit(now, deadline) {
            Pace::Go => Some(Duration::ZERO),
            Pace::Queued(w) => Some(w),
            Pace::Wait(w) => panic!("asked to come back after {w:?}"),
            Pace::Exhausted { .. } => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn places_are_handed_out_first_come_first_served() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    p.observe(t0, quota(20, 30, 40));
    let times = send_times(&mut p, t0, 45, secs(30));
    let served: Vec<Duration> = times.iter().map_while(|t| *t).collect();
    assert!(served.len() >= 10, "{times:?}");
    // Every later call is sent no earlier than every call before it.
    assert!(served.windows(2).all(|w| w[0] <= w[1]), "{served:?}");
    // Once one call is refused, every later one is too: none overtakes.
    assert!(
        times[served.len()..].iter().all(Option::is_none),
        "{times:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_call_that_cannot_be_served_in_time_fails_at_admission() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    // Used up, resets in 40 s (+1 s slack): a 30 s deadline cannot wait for it.
    p.observe(t0, quota(0, 30, 40));
    assert_eq!(
        p.admit(t0, secs(30)),
        Pace::Exhausted {
            resets_in: secs(41)
        }
    );
    assert_eq!(p.in_flight(), 0, "a refused call holds nothing");
    // A 60 s deadline can: it gets its place at the reset.
    assert_eq!(p.admit(t0, secs(60)), Pace::Queued(secs(41)));
}

#[tokio::test(start_paused = true)]
async fn the_returning_window_is_promised_at_most_once() {
    let t0 = Instant::now();
    let mut p = QuotaPacer::default();
    // 10 per window, used up, back in 5 s (+1 s): 9 places (one kept in reserve).
    p.observe(t0, quota(0, 10, 5));
    let times = send_times(&mut p, t0, 15, secs(30));
    assert_eq!(times.iter().filter(|t| t.is_some()).count(), 9, "{times:?}");
    assert!(times[..9].iter().all(|t| *t == Some(secs(6))));
    assert_eq!(p.in_flight(), 9);
    // Cancelled while waiting: the places are given back.
    for _ in 0..9 {
        p.complete(t0 + secs(1), None);
    }
    assert_eq!(p.in_flight(), 0);
}
