use super::*;
use crate::{Change, Drift, ResponseContract};
use serde_json::json;

fn learned(samples: &[Value]) -> Learner {
    let mut l = Learner::new(DEFAULT_MAX_PATHS);
    for s in samples {
        l.observe(s);
    }
    l
}

fn contract(l: &Learner) -> ResponseContract {
    ResponseContract::compile(&l.schema(), None).expect("a learned schema compiles")
}

#[test]
fn types_unions_required_and_nullable_are_learned_per_path() {
    let l = learned(&[
        json!({"id": 1, "name": "a", "score": 0.5, "tag": null, "extra": true}),
        json!({"id": 2, "name": "b", "score": 2, "tag": "x"}),
        json!({"id": "3", "name": "c", "score": 1.25, "tag": "y"}),
    ]);
    assert_eq!(l.samples(), 3);
    // A `null` in one field: this upstream writes nulls, so every field may be one.
    assert_eq!(
        l.schema(),
        json!({"type": "object", "properties": {
            "extra": {"type": ["boolean", "null"]},
            "id": {"type": ["string", "number", "null"]},
            "name": {"type": ["string", "null"]},
            "score": {"type": ["number", "null"]},
            "tag": {"type": ["string", "null"]}
        }, "required": ["id", "name", "score", "tag"]})
    );
}

#[test]
fn a_path_seen_only_as_null_or_empty_stays_unconstrained() {
    let l = learned(&[
        json!({"next": null, "items": []}),
        json!({"next": null, "items": []}),
    ]);
    let c = contract(&l);
    assert_eq!(l.schema()["properties"]["next"], json!({}));
    // A `null` in a plain field is no evidence that lists are ever `null`.
    assert_eq!(l.schema()["properties"]["items"], json!({"type": "array"}));
    assert!(
        c.check(&json!({"next": "https://api.example.com/p2", "items": [{"id": 1}]}))
            .is_ok()
    );
}

#[test]
fn a_member_seen_only_as_null_is_not_required() {
    let l = learned(&vec![json!({"id": 1, "deleted_at": null}); 20]);
    assert_eq!(l.schema()["required"], json!(["id"]));
    let c = contract(&l);
    assert!(c.check(&json!({"id": 2})).is_ok());
    assert!(
        c.check(&json!({"id": 2, "deleted_at": "2026-01-31"}))
            .is_ok()
    );
}

#[test]
fn array_elements_merge_and_whole_numbers_are_numbers() {
    let l = learned(&[json!({"results": [
        {"title": "a", "rank": 1, "snippet": "x"},
        {"title": "b", "rank": 2, "snippet": "y", "thumbnail": {"src": "u"}}
    ]})]);
    let s = l.schema();
    let item = &s["properties"]["results"]["items"];
    assert_eq!(item["required"], json!(["rank", "snippet", "title"]));
    assert_eq!(item["properties"]["rank"], json!({"type": "number"}));
    assert_eq!(item["properties"]["thumbnail"]["required"], json!(["src"]));
    let c = contract(&l);
    assert!(
        c.check(&json!({"results": [{"title": "a", "rank": 1.5, "snippet": "x"}]}))
            .is_ok(),
        "a fraction where only whole numbers were seen is a number all the same"
    );
    let drift = c
        .check(&json!({"results": [{"title": "a", "rank": "1", "snippet": "x"}]}))
        .expect_err("a string where numbers were seen");
    assert_eq!(
        drift.changes,
        vec![Change::TypeChanged {
            path: "results[].rank".into(),
            expected: "number".into(),
            found: "string".into()
        }]
    );
}

#[test]
fn a_learned_contract_reports_a_rename_like_a_declared_one() {
    let l = learned(&[
        json!({"results": [{"title": "a", "snippet": "x"}]}),
        json!({"results": [{"title": "b", "snippet": "y"}, {"title": "c", "snippet": "z"}]}),
    ]);
    let drift = contract(&l)
        .check(&json!({"results": [{"title": "a", "excerpt": "x"}]}))
        .expect_err("drift");
    assert_eq!(
        drift.summary(),
        "missing results[].snippet; new results[].excerpt, same type — probably a rename"
    );
    // A new field alone is not drift: learned objects stay open.
    assert!(
        contract(&l)
            .check(&json!({"results": [{"title": "a", "snippet": "x", "lang": "en"}]}))
            .is_ok()
    );
}

#[test]
fn objects_keyed_by_ids_are_learned_as_maps() {
    let mut l = Learner::new(50);
    for i in 0..30 {
        let mut users = Map::new();
        for j in 0..40 {
            users.insert(
                format!("{}", 1000 + i * 40 + j),
                json!({"name": "n", "email": null}),
            );
        }
        l.observe(&json!({"users": users, "count": 40}));
    }
    assert!(
        !l.capped(),
        "a map costs its value shape, not one path per id"
    );
    assert!(l.paths() < 10, "{}", l.paths());
    let s = l.schema();
    assert_eq!(
        s["properties"]["users"],
        json!({"type": "object", "additionalProperties": {"type": "object",
            "properties": {"email": {}, "name": {"type": ["string", "null"]}}, "required": ["name"]}})
    );
    let c = contract(&l);
    assert!(
        c.check(&json!({"users": {"99999": {"name": "z", "email": "a@b"}}, "count": 1}))
            .is_ok()
    );
    let drift = c
        .check(&json!({"users": {"7": {"name": 3, "email": null}}, "count": 1}))
        .expect_err("a value of another type");
    assert_eq!(drift.changes[0].path(), "users.7.name");
}

#[test]
fn ids_of_every_common_form_are_recognised_and_names_are_not() {
    for id in [
        "42",
        "2024-01-31",
        "2024-01-31T10:00:00Z",
        "0f8fad5b-d9cb-469f-a165-70867728950e",
        "9b74c9897bac770ffc029102a200c5de",
    ] {
        assert_eq!(id_like(id), IdKeys::Strict, "{id}");
    }
    for id in [
        "cus_NffrFeUfNV2Hib",
        "prod_NWjs8kKbJWmuuc",
        "U024BE7LH2",
        "-Nh5cX2mQ3b7Y_Lk9aBc",
    ] {
        assert_eq!(id_like(id), IdKeys::Loose, "{id}");
    }
    for name in [
        "snippet",
        "address_line1",
        "iso8601_date",
        "created_at",
        "sha256",
        "1h",
        "24h",
        "data",
        "deadbeef",
        "v2",
    ] {
        assert_eq!(id_like(name), IdKeys::No, "{name}");
    }
    // Two random tokens make a map; one could be a name.
    let l = learned(&[
        json!({"prices": {"price_1MoBy5LkdIwHu7ixZhnattbh": {"unit_amount": 1000},
        "price_1MoBy5LkdIwHu7ixabcdefgh": {"unit_amount": 1200}}}),
    ]);
    assert!(l.schema()["properties"]["prices"]["additionalProperties"].is_object());
}

#[test]
fn many_keys_of_one_kind_make_a_map_even_when_they_are_names() {
    let mut rates = Map::new();
    for i in 0..(MAP_KEYS + 10) {
        rates.insert(
            format!(
                "C{}{}",
                (b'A' + (i / 26) as u8) as char,
                (b'A' + (i % 26) as u8) as char
            ),
            json!(1.5),
        );
    }
    let l = learned(&[json!({"base": "EUR", "rates": rates})]);
    assert_eq!(
        l.schema()["properties"]["rates"],
        json!({"type": "object", "additionalProperties": {"type": "number"}})
    );
    // A record with mixed values stays a record, however many fields it has.
    let mut wide = Map::new();
    for i in 0..(MAP_KEYS + 10) {
        let v = if i % 2 == 0 { json!("s") } else { json!(1) };
        wide.insert(format!("field{i:03}x"), v);
    }
    let l = learned(&[Value::Object(wide)]);
    assert!(l.schema()["properties"].is_object());
}

#[test]
fn at_the_path_cap_new_fields_are_not_learned_and_old_ones_still_hold() {
    let mut l = Learner::new(3);
    l.observe(&json!({"a": 1, "b": "x"}));
    l.observe(&json!({"a": 2, "b": "y", "c": true, "d": 1, "e": 2}));
    assert!(l.capped());
    assert_eq!(l.paths(), 3);
    let s = l.schema();
    assert_eq!(s["properties"].as_object().map(|p| p.len()), Some(3), "{s}");
    let c = contract(&l);
    assert!(c.check(&json!({"a": 1, "b": "x", "e": "anything"})).is_ok());
    assert!(c.check(&json!({"a": "one", "b": "x"})).is_err());
}

#[test]
fn long_keys_deep_nesting_and_huge_arrays_stay_bounded() {
    let long = "k".repeat(MAX_KEY_BYTES + 1);
    let mut deep = json!(1);
    for _ in 0..(MAX_DEPTH + 20) {
        deep = json!({"x": deep});
    }
    let big: Vec<Value> = (0..5_000).map(|i| json!({"i": i})).collect();
    let l = learned(&[json!({long.clone(): 1, "deep": deep, "big": big})]);
    assert!(l.schema()["properties"].get(&long).is_none());
    assert!(!l.capped(), "a long key is data, not a capped path");
    assert!(l.paths() <= MAX_DEPTH + 4, "{}", l.paths());
    let _ = contract(&l);
}

#[test]
fn resuming_from_a_pinned_schema_keeps_what_was_learned() {
    let l = learned(&[
        json!({"a": 1, "b": "x", "m": {"123": {"v": 1}}}),
        json!({"a": 2, "m": {"456": {"v": 2}}}),
    ]);
    let mut resumed = Learner::from_schema(&l.schema(), l.samples(), DEFAULT_MAX_PATHS);
    assert_eq!(resumed.schema(), l.schema());
    assert_eq!(resumed.samples(), 2);
    resumed.observe(&json!({"a": 3, "b": "z", "m": {"789": {"v": 3}}}));
    let s = resumed.schema();
    assert_eq!(s["required"], json!(["a", "m"]), "b stays optional: {s}");
    assert!(s["properties"]["m"]["additionalProperties"].is_object());
}

/// Twenty responses of a listing, one per page: `author` is an optional object, present
/// on two of them.
fn twenty_pages() -> Vec<Value> {
    (0..20)
        .map(|i| {
            let mut page =
                json!({"items": [{"id": i}], "total": 40, "nextLink": format!("/p/{}", i + 1)});
            if i % 10 == 0 {
                page["author"] = json!({"name": "a", "url": "https://example.com/a"});
            }
            page
        })
        .collect()
}

#[test]
fn fields_of_a_place_seen_less_than_twenty_times_are_not_required() {
    let l = learned(&twenty_pages());
    let c = contract(&l);
    // `author` held an object twice: too few to know `url` is always sent.
    assert!(
        c.check(&json!({"items": [], "total": 0, "nextLink": "/p/2", "author": {"name": "b"}}))
            .is_ok()
    );
    // Its types still hold.
    assert!(
        c.check(&json!({"items": [], "total": 0, "nextLink": "/p/2", "author": {"name": 7}}))
            .is_err()
    );
    // A field present in all twenty responses and then gone is drift.
    let drift = c
        .check(&json!({"items": [], "nextLink": "/p/2"}))
        .expect_err("total was in every response");
    assert_eq!(drift.summary(), "missing total (number)");
}

#[test]
fn fewer_responses_than_twenty_make_their_always_present_fields_required() {
    let l = learned(&twenty_pages()[..3]);
    assert_eq!(l.schema()["required"], json!(["items", "total"]));
}

#[test]
fn the_last_page_may_leave_out_its_link_to_the_next() {
    for key in [
        "nextLink",
        "@odata.nextLink",
        "next_page_token",
        "NextToken",
        "nextCursor",
        "LastEvaluatedKey",
        "next",
    ] {
        let pages: Vec<Value> = (0..20)
            .map(|i| json!({"value": [i], key: format!("t{i}")}))
            .collect();
        let c = contract(&learned(&pages));
        assert!(c.check(&json!({"value": [21]})).is_ok(), "{key}");
        assert!(c.check(&json!({"value": [21], key: 5})).is_err(), "{key}");
    }
    assert!(!next_page("nextOfKin"));
    assert!(!next_page("next_run_at"));
    assert!(!next_page(&"next".repeat(40)));
}

#[test]
fn an_upstream_that_writes_nulls_may_write_one_in_any_field() {
    // `reviewer` was `null` once: this upstream writes an absent object as `null`.
    let samples: Vec<Value> = (0..20)
        .map(|i| {
            let reviewer = if i == 7 {
                Value::Null
            } else {
                json!({"id": i})
            };
            json!({"user": {"id": i}, "tags": ["a"], "deleted_at": null, "reviewer": reviewer})
        })
        .collect();
    let c = contract(&learned(&samples));
    assert!(
        c.check(&json!({"user": null, "tags": null, "deleted_at": null, "reviewer": null}))
            .is_ok()
    );
    // It is still the field's type or null: an object turned into a string is drift.
    assert!(
        c.check(&json!({"user": "u1", "tags": ["a"], "deleted_at": null, "reviewer": null}))
            .is_err()
    );
}

#[test]
fn an_upstream_that_never_wrote_null_drifts_on_its_first() {
    let samples: Vec<Value> = (0..20).map(|i| json!({"user": {"id": i}})).collect();
    let l = learned(&samples);
    let drift = contract(&l)
        .check(&json!({"user": null}))
        .expect_err("no null in twenty responses");
    assert_eq!(drift.changes[0].path(), "user");
    // A pinned contract resumes with what it knew about nulls.
    let resumed = Learner::from_schema(&l.schema(), l.samples(), DEFAULT_MAX_PATHS);
    assert_eq!(resumed.schema(), l.schema());
    let nullable = learned(&[json!({"user": {"id": 1}, "x": null})]);
    let resumed = Learner::from_schema(&nullable.schema(), 1, DEFAULT_MAX_PATHS);
    assert_eq!(resumed.schema(), nullable.schema());
}

#[test]
fn an_object_or_list_turning_null_drifts_where_plain_values_may_be_null() {
    // This upstream writes an absent `deleted_at` as `null`: its plain values may be
    // `null` anywhere, but `owner` and `labels` were always an object and a list.
    let samples: Vec<Value> = (0..20)
        .map(|i| {
            json!({"id": i, "name": "n", "deleted_at": null,
                   "owner": {"login": "o"}, "labels": [{"name": "l"}]})
        })
        .collect();
    let c = contract(&learned(&samples));
    assert!(
        c.check(&json!({"id": null, "name": null, "deleted_at": null,
                        "owner": {"login": null}, "labels": [{"name": null}]}))
            .is_ok()
    );
    let drift = c
        .check(&json!({"id": 1, "name": "n", "deleted_at": null, "owner": null, "labels": [{"name": "l"}]}))
        .expect_err("an object that was always sent turned null");
    assert_eq!(drift.changes[0].path(), "owner");
    let drift = c
        .check(&json!({"id": 1, "name": "n", "deleted_at": null, "owner": {"login": "o"}, "labels": null}))
        .expect_err("a list that was always sent turned null");
    assert_eq!(drift.changes[0].path(), "labels");
    // One object seen `null`: this upstream writes absent objects and lists as `null`.
    let mut seen_null = samples.clone();
    seen_null[3]["owner"] = Value::Null;
    let l = learned(&seen_null);
    assert!(
        contract(&l)
            .check(
                &json!({"id": 1, "name": "n", "deleted_at": null, "owner": null, "labels": null})
            )
            .is_ok()
    );
    // A pinned contract resumes with the same rule.
    for l in [l, learned(&samples)] {
        let resumed = Learner::from_schema(&l.schema(), l.samples(), DEFAULT_MAX_PATHS);
        assert_eq!(resumed.schema(), l.schema());
    }
}

/// Twenty responses that all carried `note`, learned: `note` is required.
fn learned_with_a_member_always_sent_so_far() -> ResponseContract {
    let samples: Vec<Value> = (0..20)
        .map(|i| json!({"results": [{"title": format!("t{i}"), "snippet": "s", "note": "n"}]}))
        .collect();
    let c = contract(&learned(&samples));
    assert!(
        c.check(&json!({"results": [{"title": "t", "snippet": "s"}]}))
            .is_err(),
        "the contract requires every member the twenty responses carried"
    );
    c
}

/// What the gateway reports for one response, as its learned-contract check does.
fn judged(c: &ResponseContract, absences: &mut crate::Absences, body: &Value) -> Option<Drift> {
    match c.check(body) {
        Ok(()) => {
            absences.matched(body);
            None
        }
        Err(drift) => absences.judge(drift, body),
    }
}

#[test]
fn a_learned_member_left_out_now_and_then_is_not_drift() {
    let c = learned_with_a_member_always_sent_so_far();
    let mut absences = crate::Absences::default();
    let with = json!({"results": [{"title": "t", "snippet": "s", "note": "n"}]});
    let without = json!({"results": [{"title": "t", "snippet": "s"}]});
    // Left out of one response, then of two in a row, each time back after.
    for body in [&without, &with, &without, &without, &with, &without, &with] {
        assert_eq!(judged(&c, &mut absences, body), None);
    }
    assert!(absences.is_empty(), "a matching response ends every streak");
}

#[test]
fn a_rename_in_every_response_is_reported_from_the_third_with_the_rename() {
    let c = learned_with_a_member_always_sent_so_far();
    let mut absences = crate::Absences::default();
    let renamed = json!({"results": [{"title": "t", "excerpt": "s", "note": "n"}]});
    assert_eq!(judged(&c, &mut absences, &renamed), None);
    assert_eq!(judged(&c, &mut absences, &renamed), None);
    for _ in 0..2 {
        let drift = judged(&c, &mut absences, &renamed).expect("a lasting rename is drift");
        assert!(
            drift.changes.iter().any(|ch| matches!(ch,
                Change::Renamed { from, to, .. } if from == "results[].snippet" && to == "results[].excerpt")),
            "{:?}",
            drift.changes
        );
        assert!(drift.summary().contains("probably a rename"));
    }
    // A member dropped for good, under an object of its own, the same.
    let dropped = json!({"results": [{"title": "t", "snippet": "s"}]});
    let mut absences = crate::Absences::default();
    let reported: Vec<bool> = (0..4)
        .map(|_| judged(&c, &mut absences, &dropped).is_some())
        .collect();
    assert_eq!(reported, [false, false, true, true]);
}

#[test]
fn other_drift_beside_an_absence_is_reported_at_once_without_the_absence() {
    let c = learned_with_a_member_always_sent_so_far();
    let mut absences = crate::Absences::default();
    let body = json!({"results": [{"title": 7, "snippet": "s"}]});
    let drift = judged(&c, &mut absences, &body).expect("a type change is drift at once");
    let paths: Vec<(&str, &str)> = drift
        .changes
        .iter()
        .map(|ch| (ch.kind_name(), ch.path()))
        .collect();
    assert_eq!(paths, [("type_changed", "results[].title")]);
    assert!(
        !drift
            .violations
            .iter()
            .any(|v| v.schema_path.ends_with("/required")),
        "{:?}",
        drift.violations
    );
    // The absence is counted all the same: two more responses without it confirm it.
    let without = json!({"results": [{"title": "t", "snippet": "s"}]});
    assert_eq!(judged(&c, &mut absences, &without), None);
    let drift = judged(&c, &mut absences, &without).expect("third absence in a row");
    assert_eq!(drift.changes[0].path(), "results[].note");
}

#[test]
fn absences_are_remembered_for_at_most_one_diff_of_paths() {
    let mut members = Map::new();
    // Strings and numbers: a record of 300 fields, not a map.
    for i in 0..300 {
        let value = if i % 2 == 0 { json!("x") } else { json!(i) };
        members.insert(format!("member_{i}"), value);
    }
    let c = contract(&learned(&vec![Value::Object(members); 20]));
    let mut absences = crate::Absences::default();
    let gone = json!({"other": 1});
    for _ in 0..2 {
        assert_eq!(judged(&c, &mut absences, &gone), None);
        assert!(absences.tracked() <= crate::MAX_CHANGES);
    }
    assert!(judged(&c, &mut absences, &gone).is_some());
    assert!(absences.tracked() <= crate::MAX_CHANGES);
}

#[test]
fn a_pin_that_requires_a_member_seen_only_as_null_is_upgraded_to_leave_it_optional() {
    // What an earlier build pinned for responses that always carried `"deleted_at": null`.
    let mut old = json!({
        "type": "object",
        "properties": {
            "id": {"type": "string"},
            "deleted_at": {},
            "items": {"type": "array", "items": {
                "type": "object",
                "properties": {"sku": {"type": "string"}, "note": {}},
                "required": ["note"]
            }}
        },
        "required": ["deleted_at", "id", "items"]
    });
    let compiled = |s: &Value| ResponseContract::compile(s, None).expect("compiles");
    let before = compiled(&old);
    let body = json!({"id": "a", "items": [{"sku": "x"}]});
    assert!(before.check(&body).is_err());
    assert!(upgrade_pinned_schema(&mut old));
    assert_eq!(old["required"], json!(["id", "items"]));
    assert!(
        old["properties"]["items"]["items"]
            .get("required")
            .is_none()
    );
    assert!(compiled(&old).check(&body).is_ok());
    // What this build writes is left as it is.
    let mut l = Learner::new(100);
    for _ in 0..20 {
        l.observe(&json!({"id": "a", "deleted_at": null}));
    }
    let mut current = l.schema();
    let written = current.clone();
    assert!(!upgrade_pinned_schema(&mut current));
    assert_eq!(current, written);
}

#[test]
fn a_field_always_present_at_a_place_that_held_eight_objects_is_required_and_at_seven_is_not() {
    // `vehicle` is sent in `held` of twenty responses, always with its `model`.
    let learned_with = |held: usize| {
        let samples: Vec<Value> = (0..20)
            .map(|i| {
                if i < held {
                    json!({"id": i, "vehicle": {"make": "m", "model": "x"}})
                } else {
                    json!({"id": i})
                }
            })
            .collect();
        learned(&samples).schema()
    };
    let eight = learned_with(8);
    assert_eq!(
        eight["properties"]["vehicle"]["required"],
        json!(["make", "model"])
    );
    let seven = learned_with(7);
    assert!(seven["properties"]["vehicle"].get("required").is_none());
    // The renamed field is then reported from the third response that reaches it.
    let c = ResponseContract::compile(&eight, None).expect("compiles");
    let mut absences = crate::Absences::default();
    let renamed = json!({"id": 1, "vehicle": {"make": "m", "model_name": "x"}});
    let reported: Vec<bool> = (0..3)
        .map(|_| judged(&c, &mut absences, &renamed).is_some())
        .collect();
    assert_eq!(reported, [false, false, true]);
}

#[test]
fn a_field_in_every_item_of_lists_sent_in_three_responses_is_not_required_however_many_items() {
    // Seventeen responses with no `history`, three with four entries each, all with `year`:
    // twelve objects, but three responses' worth of evidence.
    let samples: Vec<Value> = (0..20)
        .map(|i| {
            if i < 17 {
                json!({"id": i, "history": []})
            } else {
                json!({"id": i, "history": [{"year": 1, "rank": 2}, {"year": 2, "rank": 3},
                                            {"year": 3, "rank": 1}, {"year": 4, "rank": 5}]})
            }
        })
        .collect();
    let s = learned(&samples).schema();
    assert!(
        s["properties"]["history"]["items"]
            .get("required")
            .is_none(),
        "{s}"
    );
    assert_eq!(s["required"], json!(["history", "id"]));
    // Its type still holds.
    let c = ResponseContract::compile(&s, None).expect("compiles");
    assert!(c.check(&json!({"id": 1, "history": [{"rank": 1}]})).is_ok());
    assert!(
        c.check(&json!({"id": 1, "history": [{"year": "x"}]}))
            .is_err()
    );
}

#[test]
fn an_object_that_always_named_itself_by_an_id_or_link_may_come_as_that_string() {
    let samples: Vec<Value> = (0..20)
        .map(|i| {
            json!({
                "customer": {"id": format!("cus_{i}"), "email": "a@b.c"},
                "next": {"href": format!("/p/{i}"), "meta": {"n": i}},
                "amount": {"value": 5, "currency": "eur"},
            })
        })
        .collect();
    let c = contract(&learned(&samples));
    assert!(
        c.check(
            &json!({"customer": "cus_9", "next": "/p/9", "amount": {"value": 1, "currency": "eur"}})
        )
        .is_ok()
    );
    // An object that named itself by nothing has not become its reference.
    let drift = c
        .check(&json!({"customer": "cus_9", "next": "/p/9", "amount": "5 eur"}))
        .expect_err("amount was always an object");
    assert_eq!(drift.summary(), "amount is string, expected object");
}

/// A learner restored from what it saved learns and grafts as the original would: the
/// counts travel too, not only the schema (a place reached in two responses is still
/// too little known to require its fields).
#[test]
fn a_saved_learner_restores_with_its_counts_and_goes_on_as_the_original() {
    let mut samples: Vec<Value> = (0..20).map(|_| json!({"total": 1})).collect();
    samples[0]["owner"] = json!({"name": "a"});
    samples[1]["owner"] = json!({"name": "b"});
    let original = learned(&samples);
    let mut restored = Learner::restore(&original.save(), DEFAULT_MAX_PATHS).expect("restores");
    assert_eq!(restored.schema(), original.schema());
    assert_eq!(restored.samples(), 20);
    assert_eq!(restored.paths(), original.paths());
    // From the schema alone, `owner` would count as known in all 20 and its `name` be
    // required at once; with the counts, a round of later owners is needed first.
    let from_schema = Learner::from_schema(&original.schema(), 20, DEFAULT_MAX_PATHS);
    assert_ne!(from_schema.save(), original.save());
    let later = learned(&vec![json!({"total": 1, "owner": {"name": "c"}}); 20]);
    let mut original = original;
    assert!(original.graft(&later));
    assert!(restored.graft(&later));
    assert_eq!(restored.schema(), original.schema());
    assert_eq!(
        restored.schema()["properties"]["owner"]["required"],
        json!(["name"])
    );
}

/// What Redis hands back may be anything: text that is not a learner, one with more
/// fields than this replica learns, or one nested past any learned depth is refused,
/// never trusted.
#[test]
fn a_saved_learner_that_is_too_big_too_deep_or_not_a_learner_is_refused() {
    assert!(Learner::restore("not json", DEFAULT_MAX_PATHS).is_none());
    assert!(Learner::restore("{\"root\": 7}", DEFAULT_MAX_PATHS).is_none());
    let wide = json!({"a": 1, "b": 2, "c": 3, "d": 4});
    let saved = learned(&[wide]).save();
    assert!(Learner::restore(&saved, 4).is_some());
    assert!(
        Learner::restore(&saved, 3).is_none(),
        "more fields than max_paths"
    );
    // Deeper than any learner writes: refused by the reader's nesting limit.
    let nested = format!(
        "{{\"root\": {}}}",
        "{\"fields\": {\"x\": {\"node\": ".repeat(200)
    );
    assert!(Learner::restore(&nested, DEFAULT_MAX_PATHS).is_none());
    let huge = "x".repeat(MAX_SAVED_BYTES + 1);
    assert!(Learner::restore(&huge, DEFAULT_MAX_PATHS).is_none());
}

/// Twenty learned responses, two of which carry an `owner` with `fields`.
fn owner_seen_twice(fields: Value) -> Learner {
    let mut samples: Vec<Value> = (0..20).map(|_| json!({"total": 1})).collect();
    samples[0]["owner"] = fields.clone();
    samples[1]["owner"] = fields;
    learned(&samples)
}

/// A round of 20 later responses, `owners` of them with an owner: `name` and `team`
/// always, `email` in every other one when `email_at_times`.
fn later_owners(owners: usize, email_at_times: bool) -> Learner {
    let mut samples: Vec<Value> = (0..20).map(|_| json!({"total": 1})).collect();
    for (i, s) in samples.iter_mut().take(owners).enumerate() {
        s["owner"] = json!({"name": "n", "team": "t"});
        if email_at_times && i % 2 == 0 {
            s["owner"]["email"] = json!("e");
        }
    }
    learned(&samples)
}

/// A place too few learned responses reached has its requiredness decided later; where
/// some of its fields are left out at times, one sent in every object so far may be too,
/// so it waits for more objects (here 14: one field of three left out at times) than the
/// 8 responses a place of fields always sent waits for.
#[test]
fn a_field_of_a_place_known_late_waits_longer_when_its_siblings_are_left_out_at_times() {
    let required = |l: &Learner| l.schema()["properties"]["owner"]["required"].clone();
    let mut plain = owner_seen_twice(json!({"name": "n", "team": "t"}));
    assert!(plain.graft(&later_owners(10, false)));
    assert_eq!(
        required(&plain),
        json!(["name", "team"]),
        "12 responses, 8 needed"
    );

    let mut doubted = owner_seen_twice(json!({"name": "n", "team": "t", "email": "e"}));
    assert!(doubted.graft(&later_owners(10, true)));
    // 12 objects, `email` left out of 5: `name` and `team` are not required yet.
    assert_eq!(required(&doubted), Value::Null);
    // Two more objects make the 14: both are required from then on.
    assert!(doubted.graft(&later_owners(2, true)));
    assert_eq!(required(&doubted), json!(["name", "team"]));
}
