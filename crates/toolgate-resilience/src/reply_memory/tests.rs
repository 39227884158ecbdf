use super::*;

#[test]
fn shares_add_up_and_are_given_back_on_drop() {
    let memory = ReplyMemory::new(100);
    let mut a = memory.hold();
    let mut b = memory.hold();
    a.grow(60).unwrap();
    assert_eq!(
        b.grow(50),
        Err(NoRoom {
            held: 60,
            limit: 100,
            share: false
        })
    );
    assert_eq!(b.bytes(), 0, "a refused share takes nothing");
    b.grow(40).unwrap();
    assert!(memory.is_full());
    drop(a);
    assert_eq!(memory.held(), 40);
    assert!(!memory.is_full());
    b.grow_to(90).unwrap();
    b.grow_to(10).unwrap();
    assert_eq!(b.bytes(), 90);
    drop(b);
    assert_eq!(memory.held(), 0);
}

#[test]
fn bytes_taken_past_the_limit_fill_it_until_given_back() {
    let memory = ReplyMemory::new(100);
    let mut a = memory.hold();
    a.grow(90).unwrap();
    let mut b = memory.hold();
    b.grow_past_limit(30);
    assert_eq!(memory.held(), 120);
    assert!(memory.is_full());
    assert!(memory.hold().grow(1).is_err(), "later replies wait");
    drop(b);
    assert_eq!(memory.held(), 90);
    assert!(!memory.is_full());
}

#[test]
fn a_lower_limit_refuses_new_bytes_and_keeps_what_is_held() {
    let memory = ReplyMemory::new(100);
    let mut a = memory.hold();
    a.grow(80).unwrap();
    memory.set_limit(50);
    assert!(memory.is_full());
    assert_eq!(
        a.grow(1),
        Err(NoRoom {
            held: 80,
            limit: 50,
            share: false
        })
    );
    drop(a);
    assert_eq!(memory.held(), 0);
    let mut c = memory.hold();
    c.grow(50).unwrap();
}

#[test]
fn no_dependency_holds_more_than_half_so_others_keep_room() {
    let memory = ReplyMemory::new(100);
    let (hostile, other) = (Arc::new(Share::default()), Arc::new(Share::default()));
    let mut a = memory.hold_in(&hostile);
    a.grow(40).unwrap();
    let mut b = memory.hold_in(&hostile);
    assert_eq!(
        b.grow(20),
        Err(NoRoom {
            held: 40,
            limit: 50,
            share: true
        })
    );
    b.grow(10).unwrap();
    assert_eq!(hostile.held(), 50);
    // Another dependency still has the other half.
    let mut c = memory.hold_in(&other);
    c.grow(40).unwrap();
    // A third fits its share but not the whole: its share's bytes are given back.
    let third = Arc::new(Share::default());
    let mut d = memory.hold_in(&third);
    assert_eq!(
        d.grow(20),
        Err(NoRoom {
            held: 90,
            limit: 100,
            share: false
        })
    );
    assert_eq!(third.held(), 0);
    d.grow(10).unwrap();
    drop((a, b, c, d));
    assert_eq!(
        (memory.held(), hostile.held(), other.held(), third.held()),
        (0, 0, 0, 0)
    );
}

#[test]
fn an_absurd_request_is_refused_not_wrapped() {
    let memory = ReplyMemory::unlimited();
    let mut a = memory.hold();
    a.grow(10).unwrap();
    assert!(a.grow(usize::MAX).is_err());
    assert_eq!(memory.held(), 10);
}

#[test]
fn concurrent_shares_never_exceed_the_limit() {
    let memory = ReplyMemory::new(1_000);
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let memory = Arc::clone(&memory);
            std::thread::spawn(move || {
                let mut peak = 0;
                for _ in 0..2_000 {
                    let mut share = memory.hold();
                    while share.grow(7).is_ok() {
                        peak = peak.max(memory.held());
                    }
                }
                peak
            })
        })
        .collect();
    for t in threads {
        assert!(t.join().unwrap() <= 1_000);
    }
    assert_eq!(memory.held(), 0);
}
