use super::*;

/// [`super::read`], each window searched for the readers' words as a successful body is.
fn read(body: &[u8], window: usize, now: DateTime<Utc>) -> Found {
    super::read(
        body,
        window,
        super::super::words::sets_in(body, window),
        now,
    )
}

fn names(body: &str, from: From) -> Vec<String> {
    let b = body.as_bytes();
    top_members(b, 0..b.len(), from)
        .into_iter()
        .map(|(n, _)| n)
        .collect()
}

#[test]
fn only_top_level_members_are_found_from_either_end() {
    let body = r#"{"a":1,"data":{"warning":"x","s":"\"warning\": 2"},"w\"q":[{"b":2}],"z":"}"}"#;
    for from in [From::Start, From::End] {
        let mut got = names(body, from);
        got.sort();
        assert_eq!(got, ["a", "data", "w\"q", "z"]);
    }
    // A window that starts inside the data sees only what it can place.
    let long = format!(r#"{{"data":"{}","warnings":["gone"]}}"#, "y".repeat(3000));
    let b = long.as_bytes();
    let got: Vec<String> = top_members(b, b.len() - 100..b.len(), From::End)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    assert_eq!(got, ["warnings"]);
    // An escaped backslash before a quote ends the string; an escaped quote does not.
    assert_eq!(names(r#"{"a\\":1,"b\"c":2}"#, From::End), ["b\"c", "a\\"]);
    assert_eq!(names(r#"{"a\\":1,"b\"c":2}"#, From::Start), ["a\\", "b\"c"]);
    assert!(names("", From::Start).is_empty());
    assert!(names("\"\\", From::End).is_empty());
    assert!(names("[{\"warnings\":1}]", From::Start).is_empty());
}

#[test]
fn notices_far_from_either_end_are_not_looked_for() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap();
    let pad = "x".repeat(5_000);
    let late = format!(r#"{{"a":"{pad}","warnings":["This API is deprecated"],"b":"{pad}"}}"#);
    let f = read(late.as_bytes(), 1024, now);
    assert!(f.warnings.is_empty() && f.deprecation.is_none());
    let at_the_end = format!(r#"{{"a":"{pad}","warnings":["This API is deprecated"]}}"#);
    let f = read(at_the_end.as_bytes(), 1024, now);
    assert_eq!(f.warnings, ["This API is deprecated"]);
    assert!(f.deprecation.is_some_and(|d| d.deprecated));
}

#[test]
fn hostile_windows_stay_bounded() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap();
    // Many quotes, backslash runs, deep nesting and many notice items: each window is
    // read in one pass and at most a few notices are kept.
    let items: Vec<String> = (0..500)
        .map(|i| format!(r#""This endpoint is deprecated {i}""#))
        .collect();
    let many = format!(r#"{{"warnings":[{}]}}"#, items.join(","));
    let f = read(many.as_bytes(), 1024, now);
    assert!(f.warnings.len() <= MAX_NOTICES);
    let slashes = format!("{{\"warning\":\"{}\"}}", "\\".repeat(100_000));
    let _ = read(slashes.as_bytes(), 1024, now);
    let deep = format!("{}\"warning\":1{}", "{".repeat(50_000), "}".repeat(50_000));
    assert!(read(deep.as_bytes(), 1024, now).warnings.is_empty());
    let quotes = "\"".repeat(100_001);
    assert!(read(quotes.as_bytes(), 1024, now).warnings.is_empty());
}

#[test]
fn a_code_in_meta_that_types_the_answer_as_deprecated_is_a_notice() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap();
    // Foursquare v2 says it as `meta.errorType: "deprecated"` with `errorDetail`; the same
    // rule reads other code members and their message (a code in capitals is not looked
    // for: the cheap first pass searches lower-case stems).
    let f = read(
        br#"{"meta":{"code":200,"errorCode":"deprecated_method","message":"Use /v3/search."},"results":[]}"#,
        1024,
        now,
    );
    assert_eq!(f.warnings, ["deprecated method: Use /v3/search."]);
    let f = read(br#"{"meta":{"kind":"deprecated"},"data":[]}"#, 1024, now);
    assert_eq!(f.warnings, ["deprecated"]);
    // A type that is not a deprecation says nothing.
    let f = read(
        br#"{"meta":{"type":"article","message":"How we deprecated v1"},"data":[]}"#,
        1024,
        now,
    );
    assert!(f.warnings.is_empty() && f.deprecation.is_none());
}

#[test]
fn a_notice_objects_own_notice_and_the_date_to_act_by_are_read() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap(); // 2026-03-01
    let f = read(
        br#"{"items":[],"deprecations":[{"endpoint":"/v1/widgets","replacedBy":"/v2/widgets","migrateBy":"2026-06-01T00:00:00Z","notice":"The '/v1/widgets' endpoint has been deprecated in favor of '/v2/widgets'."}]}"#,
        1024,
        now,
    );
    assert_eq!(f.warnings.len(), 1);
    let d = f.deprecation.expect("the endpoint is deprecated");
    assert!(d.deprecated);
    assert_eq!(
        d.sunset.map(|t| t.date_naive().to_string()).as_deref(),
        Some("2026-06-01")
    );
    // In `meta` itself a deadline may be a job's: it dates nothing.
    let f = read(
        br#"{"meta":{"deadline":"2026-06-01T00:00:00Z","deprecated":true},"data":[]}"#,
        1024,
        now,
    );
    assert!(f.deprecation.is_some_and(|d| d.sunset.is_none()));
}

#[test]
fn an_envelopes_message_is_read_and_a_records_is_not() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap(); // 2026-03-01
    let f = read(
        br#"{"status":"success","message":"This API version is deprecated and will be removed on 2026-09-01; use /v2/items.","data":[]}"#,
        1024,
        now,
    );
    assert_eq!(f.warnings.len(), 1);
    assert!(f.deprecation.is_some_and(|d| d.deprecated));
    // Etherscan's notice in `result`, beside its status.
    let f = read(
        br#"{"status":"0","message":"NOTOK","result":"You are using a deprecated V1 endpoint, switch to Etherscan API V2"}"#,
        1024,
        now,
    );
    assert_eq!(f.warnings.len(), 1);
    // A message beside nothing but lists is the listing's words to the caller.
    let f = read(
        br#"{"message":"API v1 is deprecated and will be discontinued; use API v2.","bookings":[],"teams":[]}"#,
        1024,
        now,
    );
    assert_eq!(f.warnings.len(), 1);
    // A commit's message is the record's own words.
    let f = read(
        br#"{"sha":"7638417db6d59f3c431d3e1f261cc637155684cd","message":"Remove the deprecated /v1 endpoint","author":{"name":"Monalisa"}}"#,
        1024,
        now,
    );
    assert!(f.warnings.is_empty() && f.deprecation.is_none());
    // An envelope's message that speaks of no retirement is not a notice.
    let f = read(
        br#"{"status":"1","message":"OK","result":"deprecated"}"#,
        1024,
        now,
    );
    assert!(f.deprecation.is_none());
}

#[test]
fn a_message_that_is_the_whole_answer_is_the_answers_words() {
    let now = chrono::DateTime::from_timestamp(1_748_779_200, 0).unwrap(); // 2025-06-01
    // A retired endpoint kept answering with nothing but its notice.
    let f = read(
        br#"{"message":"This endpoint is deprecated and will be removed on 2025-09-30. Use /v3/orders instead."}"#,
        1024,
        now,
    );
    assert_eq!(f.warnings.len(), 1);
    let d = f
        .deprecation
        .expect("the endpoint is said to be deprecated");
    assert!(d.deprecated);
    assert_eq!(
        d.sunset.map(|t| t.date_naive().to_string()).as_deref(),
        Some("2025-09-30")
    );
    let f = read(
        br#"{"msg":"Deprecated, use /v2/stats instead."}"#,
        1024,
        now,
    );
    assert_eq!(f.warnings.len(), 1);
    // A lone message that speaks of no retirement is no notice.
    let f = read(br#"{"message":"Created"}"#, 1024, now);
    assert!(f.warnings.is_empty() && f.deprecation.is_none());
    // A message beside a record's own fields is still the record's.
    let f = read(
        br#"{"message":"The old API is deprecated","author":"ada","id":7}"#,
        1024,
        now,
    );
    assert!(f.warnings.is_empty() && f.deprecation.is_none());
}

/// A notice named for a deprecation dates it with a bare word of time (Oyster HR's
/// `meta.deprecation` with `at` and `sunset`); the same word in a notice about anything
/// else dates nothing.
#[test]
fn a_deprecation_notice_dates_itself_with_a_word_of_time() {
    let now = chrono::DateTime::from_timestamp(1_764_547_200, 0).unwrap(); // 2025-12-01
    let f = read(
        br#"{"data":{"id":"emp_01"},"meta":{"deprecation":{"at":"2025-11-01T00:00:00Z","sunset":"2026-04-30T00:00:00Z","link":{"rel":"deprecation","url":"https://docs.example.com/migrate"}}}}"#,
        1024,
        now,
    );
    let d = f.deprecation.expect("a deprecation");
    assert!(d.deprecated);
    assert_eq!(
        d.since.map(|t| t.date_naive().to_string()).as_deref(),
        Some("2025-11-01")
    );
    assert_eq!(
        d.sunset.map(|t| t.date_naive().to_string()).as_deref(),
        Some("2026-04-30")
    );
    // Before its date it is announced, not yet in effect.
    let early = chrono::DateTime::from_timestamp(1_759_276_800, 0).unwrap(); // 2025-10-01
    let f = read(
        br#"{"meta":{"deprecation":{"since":"2025-11-01T00:00:00Z"}},"data":[]}"#,
        1024,
        early,
    );
    assert!(
        f.deprecation
            .is_some_and(|d| !d.deprecated && d.since.is_some())
    );
    // A notice about something else dates nothing with `at`.
    let f = read(
        br#"{"meta":{"notice":{"text":"Scheduled report ready","at":"2025-11-01T00:00:00Z"}},"data":[]}"#,
        1024,
        now,
    );
    assert!(f.deprecation.is_none());
}

#[test]
fn a_list_of_deprecated_fields_is_told_as_notes_about_parts_not_the_calls_end() {
    let body = br#"{"data":{"id":"cus_1","customer_name":"Ada","name":"Ada"},"deprecated_fields":[{"field":"customer_name","replacement":"name","removal_date":"2025-09-01"}]}"#;
    let now = DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let found = read(body, 2048, now);
    assert_eq!(found.deprecation, None);
    assert_eq!(
        found.warnings,
        vec!["deprecated field customer_name; use name (removed on 2025-09-01)".to_owned()]
    );
}

#[test]
fn a_notice_in_another_language_under_that_languages_word_for_notices_is_read() {
    let body = "{\"retorno\":{\"pedidos\":[]},\"avisos\":[\"A API v2 está descontinuada e será desativada em 31/07/2025. Migre para a API v3.\"]}";
    let now = DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let found = read(body.as_bytes(), 2048, now);
    let d = found.deprecation.expect("a deprecation");
    assert!(d.deprecated);
    assert_eq!(
        d.sunset.map(|t| t.to_rfc3339()),
        Some("2025-07-31T00:00:00+00:00".to_owned())
    );
}

#[test]
fn an_api_version_in_the_metadata_flagged_deprecated_deprecates_the_answer() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    // Cohere: the version answering, flagged by a member of its own.
    let cohere = br#"{"id":"5a1f","text":"Hello","meta":{"api_version":{"version":"1","is_deprecated":true},"billed_units":{"input_tokens":5}}}"#;
    let found = read(cohere, 2048, now);
    assert!(found.deprecation.is_some_and(|d| d.deprecated));
    // The current version says nothing, and neither does a version in the data.
    let current = br#"{"meta":{"api_version":{"version":"2","is_deprecated":false}}}"#;
    assert!(read(current, 2048, now).deprecation.is_none());
    let data = br#"{"data":{"api_version":{"version":"1","is_deprecated":true}}}"#;
    assert!(read(data, 2048, now).deprecation.is_none());
}

#[test]
fn an_envelope_s_coded_message_of_a_retirement_is_a_notice() {
    let now = DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    let body = br#"{"success":true,"errors":[],"messages":[{"code":10000,"message":"This endpoint is deprecated and will be removed on 2025-09-30."}],"result":{"id":"023e"}}"#;
    let found = read(body, 2048, now);
    assert_eq!(found.warnings.len(), 1, "{:?}", found.warnings);
    assert!(found.deprecation.is_some_and(|d| d.sunset.is_some()));
    // A chat's turns carry no code: their words are the data's.
    let chat = br#"{"status":"ok","messages":[{"role":"user","message":"Is v1 deprecated and removed on 2025-09-30?"}]}"#;
    assert!(read(chat, 2048, now).deprecation.is_none());
}
