use super::*;

fn rename() -> Change {
    Change::Renamed {
        from: "results[].snippet".into(),
        to: "results[].excerpt".into(),
        type_name: "string".into(),
        why: "same type, only candidate at this level".into(),
    }
}

#[test]
fn summary_matches_design_wording() {
    let d = Drift {
        changes: vec![rename()],
        violations: vec![],
        truncated: 0,
        fingerprint: String::new(),
    };
    assert_eq!(
        d.summary(),
        "missing results[].snippet; new results[].excerpt, same type — probably a rename"
    );
}

#[test]
fn summary_puts_breaking_first_and_caps() {
    let mut changes = vec![Change::Added {
        path: "a".into(),
        found: "string".into(),
    }];
    for p in ["b", "c", "d", "e", "f"] {
        changes.push(Change::Missing {
            path: p.into(),
            expected: "integer".into(),
        });
    }
    let d = Drift {
        changes,
        violations: vec![],
        truncated: 0,
        fingerprint: String::new(),
    };
    assert_eq!(
        d.summary(),
        "missing b (integer); missing c (integer); missing d (integer); missing e (integer); and 2 more changes"
    );
}

#[test]
fn root_is_shown_as_root() {
    let d = Drift {
        changes: vec![Change::TypeChanged {
            path: String::new(),
            expected: "object".into(),
            found: "array".into(),
        }],
        violations: vec![],
        truncated: 0,
        fingerprint: String::new(),
    };
    assert_eq!(d.summary(), "(root) is array, expected object");
}

#[test]
fn serializes_with_kind_tag() {
    let v = serde_json::to_value(rename()).expect("serializes");
    assert_eq!(v["kind"], "renamed");
    assert_eq!(v["from"], "results[].snippet");
}

fn missing(path: &str) -> Change {
    Change::Missing {
        path: path.into(),
        expected: "string".into(),
    }
}

#[test]
fn the_fingerprint_is_the_same_for_the_same_breakage_in_any_order() {
    let added = Change::Added {
        path: "extra".into(),
        found: "string".into(),
    };
    let a = fingerprint(&[missing("a"), rename(), added]);
    let b = fingerprint(&[rename(), missing("a")]);
    assert_eq!(a, b, "order and informative additions do not change it");
    assert_ne!(
        a,
        fingerprint(&[rename()]),
        "another breakage is another incident"
    );
    assert_eq!(a.len(), 16);
    // Stored in the incident store: it must not change between builds.
    assert_eq!(fingerprint(&[missing("a")]), fingerprint(&[missing("a")]));
    assert_ne!(
        fingerprint(&[missing("ab")]),
        fingerprint(&[missing("a"), missing("b")])
    );
}

#[test]
fn a_huge_diff_is_capped_with_the_rest_counted_and_breaking_changes_kept() {
    let mut changes: Vec<Change> = (0..80)
        .map(|i| Change::Added {
            path: format!("a{i:03}"),
            found: "string".into(),
        })
        .collect();
    changes.push(missing("zzz"));
    let full = fingerprint(&changes);
    let d = Drift::new(changes, vec![]);
    assert_eq!(d.changes.len(), MAX_CHANGES);
    assert_eq!(d.truncated, 81 - MAX_CHANGES);
    assert!(
        d.changes.iter().any(|c| c.path() == "zzz"),
        "the breaking change survives the cap"
    );
    assert_eq!(d.fingerprint, full);
    assert!(
        d.summary().contains("and 77 more changes"),
        "{}",
        d.summary()
    );
    let json = serde_json::to_value(&d).expect("serializes");
    assert_eq!(json["truncated"], 31);
}
