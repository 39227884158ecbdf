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
            part: Part::Whole
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
            part: Part::Whole
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
            part: Part::Dependency
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
            part: Part::Whole
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

#[test]
fn one_agent_holds_at_most_its_share_so_another_agent_keeps_room() {
    let memory = ReplyMemory::new(100);
    memory.set_agent_share(0.5, 0);
    let (greedy, other) = (Arc::new(Share::default()), Arc::new(Share::default()));
    // One agent's many replies, of several dependencies: its share is full at 50.
    let mut first = memory.hold().for_agent(Some(&greedy));
    first.grow(30).unwrap();
    let mut second = memory.hold_in(&Arc::default()).for_agent(Some(&greedy));
    second.grow(20).unwrap();
    assert!(memory.is_full_for(&greedy));
    let mut third = memory.hold().for_agent(Some(&greedy));
    assert_eq!(
        third.grow(1),
        Err(NoRoom {
            held: 50,
            limit: 50,
            part: Part::Agent
        })
    );
    assert_eq!(memory.held(), 50, "a refused reply takes nothing anywhere");
    // Another agent still has the other half.
    assert!(!memory.is_full_for(&other));
    let mut theirs = memory.hold().for_agent(Some(&other));
    theirs.grow(50).unwrap();
    // Its replies answered, the agent has its share again.
    drop((first, second));
    assert_eq!(greedy.held(), 0);
    third.grow(50).unwrap();
    assert_eq!(memory.held(), 100);
    drop((third, theirs));
    assert_eq!((memory.held(), greedy.held(), other.held()), (0, 0, 0));
}

#[test]
fn a_lone_agent_is_held_to_its_share_and_without_a_share_to_the_limit() {
    let memory = ReplyMemory::new(101);
    memory.set_agent_share(0.5, 0);
    assert_eq!(memory.agent_limit(), 51, "rounded up");
    let agent = Arc::new(Share::default());
    let mut held = memory.hold().for_agent(Some(&agent));
    assert_eq!(held.grow(52).map_err(|e| e.part), Err(Part::Agent));
    for off in [1.0, 0.0, -1.0, f64::NAN] {
        memory.set_agent_share(off, 0);
        assert_eq!(memory.agent_limit(), 101, "{off}");
    }
    held.grow(101).unwrap();
    assert_eq!(agent.held(), 101);
    // A share smaller than the largest reply allowed is raised to it.
    memory.set_agent_share(0.1, 60);
    assert_eq!(memory.agent_limit(), 60);
    memory.set_agent_share(0.1, 500);
    assert_eq!(memory.agent_limit(), 101, "never above the limit");
}

#[test]
fn bytes_kept_past_the_limit_count_in_the_agents_share() {
    let memory = ReplyMemory::new(100);
    memory.set_agent_share(0.5, 0);
    let agent = Arc::new(Share::default());
    let mut kept = memory.hold();
    kept.grow(10).unwrap();
    let mut kept = kept.for_agent(Some(&agent));
    assert_eq!(agent.held(), 10, "what was held before counts");
    kept.grow_past_limit(60);
    assert!(memory.is_full_for(&agent));
    drop(kept);
    assert_eq!((agent.held(), memory.held()), (0, 0));
}
