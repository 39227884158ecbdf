use super::*;
use crate::{Learner, ResponseContract};
use serde_json::json;

/// Twenty responses, none with a `null`, each with two results carrying `note`: `note` is
/// required and accepts no `null`.
fn learned_note() -> ResponseContract {
    let mut l = Learner::new(crate::DEFAULT_MAX_PATHS);
    for i in 0..20 {
        l.observe(&json!({"results": [
            {"title": format!("t{i}"), "note": "n"},
            {"title": "u", "note": "m"}
        ]}));
    }
    ResponseContract::compile(&l.schema(), None).expect("a learned schema compiles")
}

/// Whether each body is reported, judged in order as the gateway judges them.
pub(crate) fn reported(c: &ResponseContract, bodies: &[&Value]) -> Vec<bool> {
    let mut absences = Absences::default();
    bodies
        .iter()
        .map(|body| match c.check(body) {
            Ok(()) => {
                absences.matched(body);
                false
            }
            Err(drift) => absences.judge(drift, body).is_some(),
        })
        .collect()
}

#[test]
fn a_response_that_does_not_reach_the_place_neither_confirms_nor_ends_an_absence() {
    let c = learned_note();
    let gone = json!({"results": [{"title": "t"}]});
    let empty = json!({"results": []});
    assert_eq!(
        reported(&c, &[&gone, &empty, &gone, &empty, &empty, &gone, &gone]),
        [false, false, false, false, false, true, true]
    );
    // A response that carries the member still ends the streak.
    let with = json!({"results": [{"title": "t", "note": "n"}]});
    assert_eq!(
        reported(&c, &[&gone, &gone, &with, &gone, &empty, &gone]),
        [false; 6]
    );
}

#[test]
fn a_member_some_objects_at_its_place_still_carry_is_not_absent() {
    let c = learned_note();
    let partly = json!({"results": [{"title": "t", "note": "n"}, {"title": "u"}]});
    assert_eq!(reported(&c, &[&partly; 6]), [false; 6]);
    // Gone from every result: counted, and reported from the third such response.
    let gone = json!({"results": [{"title": "t"}, {"title": "u"}]});
    assert_eq!(
        reported(&c, &[&partly, &gone, &gone, &gone]),
        [false, false, false, true]
    );
}

#[test]
fn a_null_where_a_learned_value_was_waits_like_an_absence_and_a_lasting_one_is_reported() {
    let c = learned_note();
    let null = json!({"results": [{"title": "t", "note": null}]});
    let with = json!({"results": [{"title": "t", "note": "n"}]});
    assert_eq!(
        reported(&c, &[&null, &with, &null, &null, &with]),
        [false; 5]
    );
    // A member `null` for good is reported from the third response, as a type change
    // without the validator's words about what was held back before.
    let mut absences = Absences::default();
    let mut last = None;
    for _ in 0..3 {
        last = absences.judge(c.check(&null).expect_err("null is not learned"), &null);
    }
    let drift = last.expect("null in three responses in a row");
    assert_eq!(drift.changes[0].path(), "results[].note");
    assert_eq!(drift.changes[0].kind_name(), "type_changed");
    // A null beside a real type change: the type change is reported at once, alone.
    let both = json!({"results": [{"title": 7, "note": null}]});
    let drift = Absences::default()
        .judge(c.check(&both).expect_err("drift"), &both)
        .expect("a type change is drift at once");
    let paths: Vec<&str> = drift.changes.iter().map(Change::path).collect();
    assert_eq!(paths, ["results[].title"]);
    assert!(
        drift
            .violations
            .iter()
            .all(|v| !v.instance_path.ends_with("/note")),
        "{:?}",
        drift.violations
    );
    // An object or a list `null` now and then the same; `null` for good is reported.
    let mut l = Learner::new(crate::DEFAULT_MAX_PATHS);
    for _ in 0..20 {
        l.observe(&json!({"owner": {"login": "a"}, "tags": ["x"]}));
    }
    let c = ResponseContract::compile(&l.schema(), None).expect("compiles");
    let with = json!({"owner": {"login": "b"}, "tags": []});
    let nulled = json!({"owner": null, "tags": null});
    assert_eq!(
        reported(&c, &[&nulled, &with, &nulled, &nulled, &with]),
        [false; 5]
    );
    assert_eq!(
        reported(&c, &[&nulled, &nulled, &nulled]),
        [false, false, true]
    );
}

/// Whether `body` carries the member at `path`, with a fresh bound.
fn carried(body: &Value, path: &str) -> bool {
    let mut visits = VISITS;
    super::carried(body, path, &mut visits)
}

#[test]
fn a_member_is_looked_for_under_the_names_the_response_actually_has() {
    let body = json!({"a.b": [{"c[1]": {"d": 1}}, {"c[1]": null}], "x": [[{"y": 0}]]});
    assert!(carried(&body, "a.b[].c[1].d"));
    assert!(carried(&body, "x[][].y"));
    assert!(!carried(&body, "a.b[].c[1].e"));
    assert!(!carried(&body, "x[].y"));
    assert!(!carried(&json!({"n": null}), "n"));
    assert!(carried(&json!([{"n": 0}, {"n": null}]), "[].n"));
}

#[test]
fn looking_for_a_member_in_a_hostile_body_is_bounded() {
    // More places to look than the bound (200 lists of 200), none carrying the member.
    let row = Value::Array(vec![json!({"a": null}); 200]);
    let body = json!({"x": Value::Array(vec![row; 200])});
    let mut visits = VISITS;
    assert!(!super::carried(&body, "x[][].a", &mut visits));
    assert_eq!(visits, 0, "the bound stopped the search");
    // Once spent, nothing more is visited: the member counts as not carried.
    let small = json!({"a": 1});
    assert!(!super::carried(&small, "a", &mut visits));
}

#[test]
fn a_member_that_came_back_after_an_absence_is_drift_only_once_missing_longer_than_its_gaps() {
    let c = learned_note();
    let gone = json!({"results": [{"title": "t"}]});
    let with = json!({"results": [{"title": "t", "note": "n"}]});
    // Never seen coming back: reported from the third response in a row without it.
    assert_eq!(
        reported(&c, &[&gone, &gone, &gone, &gone, &with]),
        [false, false, true, true, false]
    );
    // Left out of one response and back in the next: the upstream leaves it out now and
    // then, so three in a row are no longer enough; twelve are.
    let mut bodies = vec![&gone, &with];
    bodies.extend([&gone; 12]);
    let mut expected = vec![false; 13];
    expected.push(true);
    assert_eq!(reported(&c, &bodies), expected);
    // Back by way of a response with some other drift: the same.
    let typed_with = json!({"results": [{"title": 7, "note": "n"}]});
    let mut bodies = vec![&gone, &typed_with];
    bodies.extend([&gone; 3]);
    assert_eq!(reported(&c, &bodies), [false, true, false, false, false]);
}

#[test]
fn the_wait_for_a_member_grows_with_how_long_its_own_absences_went_on() {
    let record = |gone, back| Record {
        path: "a".into(),
        streak: 1,
        gone,
        back,
    };
    assert_eq!(record(0, 0).needed(0), ABSENT_RESPONSES);
    assert_eq!(record(1, 1).needed(0), 12);
    assert_eq!(record(5, 5).needed(0), 7);
    // Gone for two responses at a time on average: an absence goes on half the time.
    assert_eq!(record(20, 10).needed(0), 18);
    // Bounded, however long its gaps were.
    assert_eq!(record(u32::MAX, 1).needed(0), LONGEST_WAIT);
    // A member of the contract came back after 40 responses without it: every absence
    // must outlast that, within a bound.
    assert_eq!(record(0, 0).needed(40), 41);
    assert_eq!(record(5, 5).needed(40), 41);
    assert_eq!(record(0, 0).needed(u32::MAX), LONGEST_HOLD);
}

/// Judges `bodies` in order with `absences`, as the gateway does: whether each is reported.
fn judged(absences: &mut Absences, c: &ResponseContract, bodies: &[&Value]) -> Vec<bool> {
    bodies
        .iter()
        .map(|body| match c.check(body) {
            Ok(()) => {
                absences.matched(body);
                false
            }
            Err(drift) => absences.judge(drift, body).is_some(),
        })
        .collect()
}

#[test]
fn a_member_back_after_its_reported_absence_has_the_report_withdrawn_and_is_not_reported_again_for_as_long()
 {
    let c = learned_note();
    let gone = json!({"results": [{"title": "t"}]});
    let with = json!({"results": [{"title": "t", "note": "n"}]});
    let mut absences = Absences::default();
    // Missing from 10 responses in a row: reported from the third, as a removal would be.
    let mut expected = vec![false, false];
    expected.extend([true; 8]);
    assert_eq!(judged(&mut absences, &c, &[&gone; 10]), expected);
    assert!(absences.take_returned().is_empty(), "still missing");
    // It comes back: the report is withdrawn, once.
    assert_eq!(judged(&mut absences, &c, &[&with]), [false]);
    assert_eq!(
        absences.take_returned(),
        [Returned {
            path: "results[].note".into(),
            missing: 10
        }]
    );
    assert!(absences.take_returned().is_empty());
    // Left out again for as long: the upstream's way, not reported.
    assert_eq!(judged(&mut absences, &c, &[&gone; 10]), [false; 10]);
    assert_eq!(judged(&mut absences, &c, &[&with]), [false]);
    assert!(absences.take_returned().is_empty(), "nothing was reported");
    // Gone for good: reported once it is missing longer than it ever came back from.
    let mut bodies = vec![&gone; 40];
    bodies.push(&with);
    let reports = judged(&mut absences, &c, &bodies);
    assert_eq!(reports.iter().position(|r| *r), Some(29), "{reports:?}");
}

#[test]
fn once_a_member_came_back_from_a_stretch_any_members_absence_must_outlast_it_and_a_removal_is_still_reported()
 {
    let c = learned_note();
    let no_note = json!({"results": [{"title": "t"}]});
    let no_title = json!({"results": [{"note": "n"}]});
    let both = json!({"results": [{"title": "t", "note": "n"}]});
    let mut absences = Absences::default();
    let mut bodies = vec![&no_note; 6];
    bodies.push(&both);
    assert_eq!(
        judged(&mut absences, &c, &bodies),
        [false, false, true, true, true, true, false]
    );
    // Another member, never seen missing: held back for as long, and reported once it is
    // missing longer than any member came back from.
    assert_eq!(
        judged(&mut absences, &c, &[&no_title; 8]),
        [false, false, false, false, false, false, true, true]
    );
}

#[test]
fn a_stretch_however_long_holds_later_absences_back_within_a_bound() {
    let c = learned_note();
    let gone = json!({"results": [{"title": "t"}]});
    let no_title = json!({"results": [{"note": "n"}]});
    let both = json!({"results": [{"title": "t", "note": "n"}]});
    let mut absences = Absences::default();
    let mut bodies = vec![&gone; 500];
    bodies.push(&both);
    judged(&mut absences, &c, &bodies);
    let reports = judged(&mut absences, &c, &[&no_title; 100]);
    assert_eq!(
        reports.iter().position(|r| *r),
        Some(LONGEST_HOLD as usize - 1)
    );
}

#[test]
fn members_that_came_back_are_remembered_within_a_bound() {
    let mut absences = Absences::default();
    for i in 0..3 * REMEMBERED {
        let path = format!("m{i}");
        absences.grow(&path);
        let body = json!({ path: 1 });
        absences.matched(&body);
    }
    assert!(absences.records.len() <= REMEMBERED);
    assert!(absences.is_empty());
}

#[test]
fn a_string_written_as_the_object_it_names_is_not_drift_and_a_changed_type_still_is() {
    let mut l = Learner::new(crate::DEFAULT_MAX_PATHS);
    for i in 0..20 {
        l.observe(&json!({
            "customer": format!("cus_{i}"),
            "homepage": "https://example.com",
            "price": "5",
            "lines": [{"product": "prod_1"}]
        }));
    }
    let c = ResponseContract::compile(&l.schema(), None).expect("compiles");
    // An id expanded into its record, a link written as a link object.
    let expanded = json!({
        "customer": {"id": "cus_1", "email": "a@example.com"},
        "homepage": {"href": "https://example.com", "meta": {"lang": "en"}},
        "price": "5",
        "lines": [{"product": {"id": "prod_1", "name": "x"}}, {"product": "prod_2"}]
    });
    assert_eq!(reported(&c, &[&expanded; 3]), [false; 3]);
    // A value that changed type names nothing: drift at once.
    let changed = json!({
        "customer": "cus_1",
        "homepage": "https://example.com",
        "price": {"amount": 5},
        "lines": [{"product": "prod_1"}]
    });
    assert_eq!(reported(&c, &[&changed]), [true]);
    // One object of a list that names nothing is enough.
    let mixed = json!({
        "customer": "cus_1",
        "homepage": "https://example.com",
        "price": "5",
        "lines": [{"product": {"id": "prod_1"}}, {"product": {"name": "x"}}]
    });
    let drift = Absences::default()
        .judge(c.check(&mixed).expect_err("drift"), &mixed)
        .expect("an object that names nothing is drift");
    assert_eq!(drift.changes[0].path(), "lines[].product");
    // Beside a reference, a real change is reported alone.
    let both = json!({
        "customer": {"id": "cus_1"},
        "homepage": "https://example.com",
        "price": 5,
        "lines": []
    });
    let drift = Absences::default()
        .judge(c.check(&both).expect_err("drift"), &both)
        .expect("a changed type is drift");
    let paths: Vec<&str> = drift
        .changes
        .iter()
        .filter(|c| c.is_breaking())
        .map(Change::path)
        .collect();
    assert_eq!(paths, ["price"]);
    assert!(
        drift
            .violations
            .iter()
            .all(|v| v.instance_path != "/customer"),
        "{:?}",
        drift.violations
    );
}

#[test]
fn a_value_of_another_type_beside_values_of_the_learned_type_in_one_response_is_no_drift() {
    // `value` was a string in every result learned from; the upstream writes it either way.
    let mut l = Learner::new(crate::DEFAULT_MAX_PATHS);
    for i in 0..20 {
        l.observe(&json!({"results": [{"value": format!("v{i}")}, {"value": "w"}]}));
    }
    let c = ResponseContract::compile(&l.schema(), None).expect("compiles");
    let mixed = json!({"results": [{"value": "v"}, {"value": true}]});
    assert_eq!(reported(&c, &[&mixed; 3]), [false; 3]);
    // Every value of the new type: the member changed type, reported at once.
    let changed = json!({"results": [{"value": false}, {"value": true}]});
    assert_eq!(reported(&c, &[&changed]), [true]);
}
