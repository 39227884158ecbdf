use serde_json::json;

use super::*;

#[test]
fn a_vendor_flag_alone_marks_the_operation_deprecated() {
    assert_eq!(
        of(&json!({"x-deprecated": true})),
        Some(Deprecation::default())
    );
    assert_eq!(of(&json!({"x-deprecated": false})), None);
    assert_eq!(of(&json!({"x-deprecated": "false"})), None);
    assert_eq!(of(&json!({"summary": "Get it."})), None);
}

#[test]
fn a_vendor_sentence_marks_the_operation_deprecated_and_is_kept_as_its_note() {
    let d = of(&json!({"x-deprecated": "Replaced with <code>list_v2</code>"})).unwrap();
    assert_eq!(d.note.as_deref(), Some("Replaced with `list_v2`"));
}

#[test]
fn the_dates_in_a_vendor_catch_all_object_are_read_by_their_names() {
    let op = json!({"deprecated": true, "x-github": {
        "category": "classroom", "deprecationDate": "2026-05-22", "removalDate": "2026-08-28"}});
    let d = of(&op).unwrap();
    assert_eq!(d.since.as_deref(), Some("2026-05-22"));
    assert_eq!(d.removal.as_deref(), Some("2026-08-28"));
    // Dates alone, without the standard flag, still say the operation is going away.
    assert!(of(&json!({"x-vendor": {"removalDate": "2026-08-28"}})).is_some());
}

#[test]
fn a_generic_date_counts_only_inside_an_object_about_deprecation() {
    assert_eq!(
        of(&json!({"x-vendor": {"date": "2020-01-01", "since": "2019-01-01"}})),
        None
    );
    let d = of(&json!({"x-ms-deprecation": {
        "date": "2022-08-01T00:00:00Z", "removalDate": "2023-02-01T00:00:00.000Z",
        "description": "Please use the new APIs under /security"}}))
    .unwrap();
    assert_eq!(d.since.as_deref(), Some("2022-08-01"));
    assert_eq!(d.removal.as_deref(), Some("2023-02-01"));
    assert_eq!(
        d.note.as_deref(),
        Some("Please use the new APIs under /security")
    );
}

#[test]
fn a_sunset_extension_holding_a_date_is_the_removal_date() {
    let d = of(&json!({"x-sunset": "2025-06-30"})).unwrap();
    assert_eq!(d.removal.as_deref(), Some("2025-06-30"));
    assert_eq!(
        of(&json!({"x-sunset": "soon"})),
        None,
        "no date, no deprecation"
    );
}

#[test]
fn the_sentence_says_the_dates_and_the_vendors_note() {
    let plain = Deprecation::default().sentence();
    assert_eq!(
        plain,
        "DEPRECATED: the API marks this operation deprecated; prefer its replacement."
    );
    let dated = Deprecation {
        since: Some("2026-05-22".into()),
        removal: Some("2026-08-28".into()),
        note: Some("Use the v2 API".into()),
        ..Deprecation::default()
    };
    assert_eq!(
        dated.sentence(),
        "DEPRECATED: the API marks this operation deprecated since 2026-05-22, to be removed on 2026-08-28; prefer its replacement. Use the v2 API."
    );
}

#[test]
fn hostile_extension_values_give_bounded_text() {
    let long = "9".repeat(10_000);
    let d = of(&json!({"x-deprecated": {"removalDate": long, "description": "x".repeat(10_000)}}))
        .unwrap();
    assert_eq!(d.removal, None, "not a date");
    assert!(d.note.unwrap().len() <= MAX_NOTE + 4);
}

#[test]
fn a_version_the_vendor_deprecated_it_in_is_a_when_not_a_reason() {
    let d = of(&json!({"deprecated": true, "x-deprecatedInVersion": "68",
        "x-deprecatedMessage": "Use /v2/payments instead."}))
    .unwrap();
    assert_eq!(d.version.as_deref(), Some("68"));
    assert_eq!(d.note.as_deref(), Some("Use /v2/payments instead."));
    assert_eq!(
        d.member_sentence().as_deref(),
        Some("Deprecated since version 68: Use /v2/payments instead.")
    );
}

#[test]
fn a_flag_alone_adds_no_sentence_to_a_member() {
    let d = of(&json!({"x-is-deprecated": true})).unwrap();
    assert_eq!(d.member_sentence(), None);
    assert_eq!(of(&json!({"x-enumDeprecated": [false, true]})), None);
}
