use super::*;

fn quota(policy: &str, reset: Duration) -> Quota {
    Quota {
        policy: policy.into(),
        limit: Some(2000),
        remaining: Some(1500),
        reset_after: Some(reset),
        window: None,
    }
}

/// Feeds `readings` (milliseconds after start, reset as read) and returns the
/// resets as calibrated.
fn feed(c: &mut Countdowns, start: Instant, readings: &[(u64, Duration)]) -> Vec<Duration> {
    readings
        .iter()
        .map(|(ms, read)| {
            let mut q = [quota("default", *read)];
            c.calibrate(start + Duration::from_millis(*ms), &mut q, 8);
            q[0].reset_after.unwrap()
        })
        .collect()
}

#[test]
fn a_millisecond_countdown_read_as_seconds_is_learned_from_how_fast_it_falls() {
    let mut c = Countdowns::default();
    let start = Instant::now();
    // KuCoin's `gw-ratelimit-reset` in ms, read as seconds: 29963 → 29 663 → 29 360.
    let got = feed(
        &mut c,
        start,
        &[
            (0, Duration::from_secs(29_963)),
            (300, Duration::from_secs(29_663)),
            (603, Duration::from_secs(29_360)),
            (900, Duration::from_secs(29_063)),
        ],
    );
    assert_eq!(got[0], Duration::from_secs(29_963));
    assert_eq!(
        got[1],
        Duration::from_secs(29_663),
        "one drop does not decide"
    );
    assert_eq!(got[2], Duration::from_millis(29_360));
    assert_eq!(got[3], Duration::from_millis(29_063));
    // A new window (the reset jumps up) is still read in milliseconds.
    let later = feed(&mut c, start, &[(1_000, Duration::from_secs(30_000))]);
    assert_eq!(later[0], Duration::from_secs(30));
}

#[test]
fn a_countdown_read_in_milliseconds_on_the_opening_reply_stays_milliseconds() {
    let mut c = Countdowns::default();
    let start = Instant::now();
    // KuCoin: the reply that opened the window was read as 29.963 s by the
    // signals; the next ones, read as seconds, are a thousand times more.
    let got = feed(
        &mut c,
        start,
        &[
            (0, Duration::from_millis(29_963)),
            (300, Duration::from_secs(29_663)),
            (600, Duration::from_secs(29_360)),
        ],
    );
    assert_eq!(
        got,
        [
            Duration::from_millis(29_963),
            Duration::from_millis(29_663),
            Duration::from_millis(29_360)
        ]
    );
    // A seconds countdown whose new window begins after the last was due is a new
    // window, not a unit.
    let mut c = Countdowns::default();
    let got = feed(
        &mut c,
        start,
        &[
            (0, Duration::from_secs(2)),
            (2_500, Duration::from_secs(1_800)),
        ],
    );
    assert_eq!(got[1], Duration::from_secs(1_800));
}

#[test]
fn a_countdown_in_seconds_stays_seconds() {
    let mut c = Countdowns::default();
    let start = Instant::now();
    // Whole seconds: between replies 2 ms apart it may drop by one (a rate of 500
    // a second), which is measured over too short a span to count.
    let got = feed(
        &mut c,
        start,
        &[
            (0, Duration::from_secs(60)),
            (2, Duration::from_secs(59)),
            (4, Duration::from_secs(58)),
            (1_004, Duration::from_secs(57)),
            (2_004, Duration::from_secs(56)),
            (2_006, Duration::from_secs(55)),
        ],
    );
    assert_eq!(got.last(), Some(&Duration::from_secs(55)));
    assert!(got.iter().all(|d| *d >= Duration::from_secs(55)), "{got:?}");
}

#[test]
fn a_constant_or_rising_reset_teaches_nothing_and_seconds_undo_a_wrong_lesson() {
    let mut c = Countdowns::default();
    let start = Instant::now();
    // A window's length sent on every reply (Prisjakt's 600000, read as 600 s).
    let got = feed(
        &mut c,
        start,
        &[
            (0, Duration::from_secs(600)),
            (500, Duration::from_secs(600)),
            (900, Duration::from_secs(600)),
        ],
    );
    assert!(got.iter().all(|d| *d == Duration::from_secs(600)));
    // Learned as milliseconds, then seen falling at the rate of seconds.
    let mut c = Countdowns::default();
    let got = feed(
        &mut c,
        start,
        &[
            (0, Duration::from_secs(20_000)),
            (100, Duration::from_secs(19_900)),
            (200, Duration::from_secs(19_800)),
            (5_200, Duration::from_secs(19_795)),
            (6_200, Duration::from_secs(19_794)),
        ],
    );
    assert_eq!(got[2], Duration::from_millis(19_800));
    assert_eq!(got[3], Duration::from_secs(19_795));
    assert_eq!(got[4], Duration::from_secs(19_794));
}

#[test]
fn policies_are_learned_apart_and_bounded() {
    let mut c = Countdowns::default();
    let start = Instant::now();
    for i in 0..20u64 {
        let mut q = [quota(&format!("p{i}"), Duration::from_secs(100))];
        c.calibrate(start + Duration::from_millis(i), &mut q, 8);
    }
    assert_eq!(c.seen.len(), 8);
    assert!(c.seen.iter().any(|s| s.policy == "p19"));
    assert!(!c.seen.iter().any(|s| s.policy == "p0"));
}
