use super::*;
use crate::ResponseContract;
use crate::absence::tests::reported;
use serde_json::json;

/// A contract learned from twenty responses whose `results` list was empty in all, and
/// whose `owner` was sent in one.
fn enforced_with_open_places() -> LateLearning {
    let mut l = Learner::new(crate::DEFAULT_MAX_PATHS);
    for i in 0..20 {
        let mut body = json!({"total": 0, "results": []});
        if i == 0 {
            body["owner"] = json!({"name": "a", "team": "t"});
        }
        l.observe(&body);
    }
    LateLearning::new(l)
}

/// A later page: two results, each with a `title` and a `score`.
fn page(i: u64) -> Value {
    json!({"total": 2, "results": [{"title": format!("t{i}"), "score": i},
                                   {"title": "u", "score": 1.5}],
           "owner": {"name": "a", "team": "t"}})
}

/// Learns from `n` later pages; the last schema written, if any was.
fn learn_later(late: &mut LateLearning, n: u64) -> Option<Value> {
    (0..n).filter_map(|i| late.observe(&page(i))).last()
}

#[test]
fn items_of_a_list_empty_in_every_learned_response_are_learned_later_and_their_rename_reported() {
    let mut late = enforced_with_open_places();
    let before = ResponseContract::compile(&late.enforced().schema(), None).expect("compiles");
    let renamed = json!({"total": 1, "results": [{"heading": "t", "score": 1}]});
    assert_eq!(
        reported(&before, &[&renamed; 4]),
        [false; 4],
        "nothing known there yet"
    );
    let schema = learn_later(&mut late, LATE_ROUND).expect("a round constrained the items");
    let after = ResponseContract::compile(&schema, None).expect("compiles");
    assert_eq!(reported(&after, &[&renamed; 3]), [false, false, true]);
    let retyped = json!({"total": 1, "results": [{"title": "t", "score": "1"}]});
    assert_eq!(reported(&after, &[&retyped]), [true]);
    assert!(after.check(&page(99)).is_ok());
}

#[test]
fn fields_of_a_place_reached_once_while_learning_become_required_once_enough_later_responses_reach_it()
 {
    let mut late = enforced_with_open_places();
    let schema = learn_later(&mut late, LATE_ROUND).expect("a round");
    assert_eq!(
        schema["properties"]["owner"]["required"],
        json!(["name", "team"]),
        "{schema}"
    );
    // The place, reached in every response since, is no longer followed as a late one.
    assert_eq!(schema["required"], json!(["results", "total"]));
}

#[test]
fn what_was_enforced_is_never_loosened_by_later_responses() {
    let mut late = enforced_with_open_places();
    learn_later(&mut late, LATE_ROUND);
    // `total` turns into a string and leaves; a round of it learns nothing about `total`.
    for i in 0..LATE_ROUND {
        let mut body = page(i);
        if i % 2 == 0 {
            body["total"] = json!("2");
        } else {
            body.as_object_mut().expect("an object").remove("total");
        }
        late.observe(&body);
    }
    let schema = late.enforced().schema();
    assert_eq!(schema["properties"]["total"]["type"], json!("number"));
    assert_eq!(schema["required"], json!(["results", "total"]));
}

#[test]
fn a_member_first_sent_after_enforcement_at_a_place_known_well_is_learned_but_never_required() {
    let mut late = enforced_with_open_places();
    for i in 0..LATE_ROUND {
        let mut body = page(i);
        body["cursor"] = json!("c");
        late.observe(&body);
    }
    let schema = late.enforced().schema();
    assert_eq!(schema["properties"]["cursor"]["type"], json!("string"));
    assert_eq!(schema["required"], json!(["results", "total"]));
}

#[test]
fn learning_after_enforcement_stops_after_its_rounds() {
    let mut late = enforced_with_open_places();
    for i in 0..LATE_ROUND * u64::from(LATE_ROUNDS) {
        late.observe(&page(i));
    }
    assert!(!late.learning());
    assert!(late.observe(&page(0)).is_none());
}

/// A round's end hands out what the round learned, so a fleet can graft it onto its
/// shared contract; a contract adopted from elsewhere is the one later rounds graft onto.
#[test]
fn a_round_hands_out_what_it_learned_and_an_adopted_contract_takes_the_next_round() {
    let mut late = enforced_with_open_places();
    let mut ended = None;
    for i in 0..LATE_ROUND {
        if let Some(end) = late.observe_round(&page(i)) {
            ended = Some(end);
        }
    }
    let end = ended.expect("the 20th response ends the round");
    assert_eq!(end.later.samples(), LATE_ROUND);
    assert!(end.schema.is_some(), "the round constrained the results");
    assert_eq!(late.rounds(), 1);
    // Another replica's contract, still open at the results, with 3 rounds behind it.
    let mut other = enforced_with_open_places();
    other.adopt(enforced_with_open_places().enforced().clone(), 3);
    assert_eq!(other.rounds(), 3);
    assert!(
        other.enforced().schema()["properties"]["results"]
            .get("items")
            .is_none()
    );
    let schema = learn_later(&mut other, LATE_ROUND).expect("the next round constrains");
    assert_eq!(
        schema["properties"]["results"]["items"]["required"],
        json!(["score", "title"])
    );
    assert_eq!(other.rounds(), 4);
}
