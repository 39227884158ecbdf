use super::*;

fn q(policy: &str, limit: Option<u64>, remaining: Option<u64>, reset: u64) -> Quota {
    Quota {
        reset_after: Some(Duration::from_secs(reset)),
        limit,
        remaining,
        ..Quota::new(policy)
    }
}

#[test]
fn merge_fills_gaps_and_skips_empty() {
    let mut c = Collector::default();
    c.quota(Quota {
        limit: Some(700),
        ..Quota::new("default")
    });
    c.quota(Quota {
        limit: Some(1),
        remaining: Some(699),
        ..Quota::new("default")
    });
    c.quota(Quota::new("nothing"));
    assert_eq!(c.quotas.len(), 1);
    assert_eq!(c.quotas[0].limit, Some(700));
    assert_eq!(c.quotas[0].remaining, Some(699));
}

#[test]
fn a_policy_named_by_a_period_has_that_window() {
    let mut c = Collector::default();
    for policy in ["minute", "user-hour", "per_day", "h", "requests", "sec"] {
        c.quota(Quota {
            remaining: Some(5),
            ..Quota::new(policy)
        });
    }
    // A window sent beside the name is the one kept.
    c.quota(Quota {
        remaining: Some(5),
        window: Some(Duration::from_secs(10)),
        ..Quota::new("second")
    });
    let windows: Vec<(&str, Option<u64>)> = c
        .quotas
        .iter()
        .map(|q| (q.policy.as_str(), q.window.map(|w| w.as_secs())))
        .collect();
    assert_eq!(
        windows,
        [
            ("minute", Some(60)),
            ("user-hour", Some(3600)),
            ("per_day", Some(86_400)),
            ("h", None),
            ("requests", None),
            ("sec", Some(1)),
            ("second", Some(10)),
        ]
    );
}

#[test]
fn remaining_only_quotas_order_by_what_is_left() {
    // Xero: X-DayLimit-Remaining 4950 and X-MinLimit-Remaining 3, no limits.
    let mut v = vec![
        q("day", None, Some(4950), 0),
        q("min", None, Some(3), 0),
        q("appmin", None, Some(9990), 0),
    ];
    sort_most_constraining(&mut v);
    assert_eq!(v[0].policy, "min");
}

#[test]
fn ordering_table() {
    let mut v = vec![
        q("unknown", None, None, 1),
        q("half", Some(100), Some(50), 10),
        q("tenth-short", Some(100), Some(10), 5),
        q("tenth-long", Some(1000), Some(100), 60),
        q("empty", Some(5), Some(0), 1),
        q("remaining-only", None, Some(3), 1),
    ];
    sort_most_constraining(&mut v);
    let names: Vec<_> = v.iter().map(|q| q.policy.as_str()).collect();
    assert_eq!(
        names,
        [
            "empty",
            "tenth-long",
            "tenth-short",
            "half",
            "remaining-only",
            "unknown"
        ]
    );
}

#[test]
fn policy_names_from_headers_are_bounded() {
    let long = "x".repeat(300);
    let cases: &[(&str, &str)] = &[
        ("core", "core"),
        ("tokens_usage_based", "tokens_usage_based"),
        (
            "Microsoft.Compute/HighCostGet3Min",
            "Microsoft.Compute_HighCostGet3Min",
        ),
        ("tenant-app-quota", "tenant-app-quota"),
        ("a b\tc\"d", "a_b_c_d"),
        ("{label=\"injected\"}", "label_injected"),
        ("é", "default"),
        ("", "default"),
        (&long, &long[..MAX_POLICY_NAME]),
    ];
    for (input, want) in cases {
        let got = normalise_policy(input);
        assert_eq!(got, *want, "{input:?}");
        assert!(got.len() <= MAX_POLICY_NAME);
    }
    let mut c = Collector::default();
    for i in 0..1000 {
        c.quota(Quota {
            remaining: Some(i),
            ..Quota::new(format!("p{i}"))
        });
    }
    assert_eq!(c.quotas.len(), MAX_COLLECTED);
}

#[test]
fn halves_join_only_when_clear_cut() {
    let half = |p: &str, limit: Option<u64>, remaining: Option<u64>| Quota {
        limit,
        remaining,
        ..Quota::new(p)
    };
    let mut v = vec![half("default", None, Some(4)), half("daily", Some(5), None)];
    join_halves(&mut v);
    assert_eq!(v, [half("daily", Some(5), Some(4))]);
    // A remaining beyond the limit is another budget (Azure's 11999 beside a 100).
    let mut v = vec![half("reads", None, Some(11999)), half("x", Some(100), None)];
    join_halves(&mut v);
    assert_eq!(v.len(), 2);
    // Two remaining-only quotas (Xero's day and minute): which half is whose is unknown.
    let mut v = vec![
        half("day", None, Some(4950)),
        half("min", None, Some(3)),
        half("limit", Some(5000), None),
    ];
    join_halves(&mut v);
    assert_eq!(v.len(), 3);
}

#[test]
fn wait_keeps_the_longest() {
    let mut c = Collector::default();
    c.wait(Duration::from_secs(3));
    c.wait(Duration::from_secs(1));
    assert_eq!(c.retry_after, Some(Duration::from_secs(3)));
}

/// `per` glued to the period names the same window (Domain's `X-Quota-PerMinute-*` and
/// `X-Quota-PerDay-*`); a word that only starts with `per` names none.
#[test]
fn a_period_with_per_glued_before_it_has_that_window() {
    assert_eq!(
        windows_of(&[
            "perminute",
            "perday",
            "perhour",
            "period",
            "persecond",
            "per",
        ]),
        [
            ("perminute", Some(60)),
            ("perday", Some(86_400)),
            ("perhour", Some(3600)),
            ("period", None),
            ("persecond", Some(1)),
            ("per", None),
        ]
    );
}

/// A gateway counting several windows at once names each field for its window's length
/// in seconds (`X-RateLimit-Remaining-60` beside `X-RateLimit-Remaining-3600`, or the
/// window before what it counts, `-60-openai`): a policy whose first word is a number
/// has that window; a number after other words, zero, or a number too long to be
/// seconds names none.
#[test]
fn a_policy_named_by_a_number_of_seconds_has_that_window() {
    assert_eq!(
        windows_of(&["60", "3600", "60-openai", "0", "v2", "tier-2", "12345678"]),
        [
            ("60", Some(60)),
            ("3600", Some(3600)),
            ("60-openai", Some(60)),
            ("0", None),
            ("v2", None),
            ("tier-2", None),
            ("12345678", None),
        ]
    );
}

/// Each policy's window in seconds, as a budget of calls left counted under it gets one.
fn windows_of<'a>(policies: &[&'a str]) -> Vec<(&'a str, Option<u64>)> {
    let mut c = Collector::default();
    for policy in policies {
        c.quota(Quota {
            remaining: Some(5),
            ..Quota::new(*policy)
        });
    }
    assert_eq!(c.quotas.len(), policies.len(), "one budget a policy");
    policies
        .iter()
        .zip(&c.quotas)
        .map(|(p, q)| {
            assert_eq!(q.policy, *p, "budgets kept in the order counted");
            (*p, q.window.map(|w| w.as_secs()))
        })
        .collect()
}
