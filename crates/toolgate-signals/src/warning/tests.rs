use super::*;

#[test]
fn kubernetes_warning_with_commas_and_escaped_quotes_is_one_warning() {
    // https://kubernetes.io/blog/2020/09/03/warnings/ — the documented example.
    let k8s = "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress";
    let cases: Vec<(String, Vec<(u16, &str)>)> = vec![
            (format!("299 - \"{k8s}\""), vec![(299, k8s)]),
            // escaped quotes and commas inside the text, a second member after it
            (
                r#"299 - "field \"spec.x\" is deprecated, ignored, and will be dropped", 299 - "second""#.to_owned(),
                vec![(299, r#"field "spec.x" is deprecated, ignored, and will be dropped"#), (299, "second")],
            ),
            // two warnings in one field, one with a date; a caching warning dropped
            (
                r#"299 api.example "old \"v1\" API" "Sat, 01 Jan 2000 00:00:00 GMT", 110 - "Response is Stale", 199 - "misc""#.to_owned(),
                vec![(299, r#"old "v1" API"#), (199, "misc")],
            ),
            ("garbage, 299 - \"kept\"".to_owned(), vec![(299, "kept")]),
            // a malformed member whose quoted text has commas does not split the next one
            (
                r#"junk "a, 299 - b", 299 - "real""#.to_owned(),
                vec![(299, "real")],
            ),
            ("299 -\"no space before the quote\"".to_owned(), vec![(299, "no space before the quote")]),
            ("299 -".to_owned(), vec![]),
            ("299 - \"unterminated, with comma".to_owned(), vec![(299, "unterminated, with comma")]),
            ("é99 - \"x\", 299 - \"y\"".to_owned(), vec![(299, "y")]),
            ("".to_owned(), vec![]),
        ];
    for (input, want) in cases {
        let got = parse(&input);
        let got: Vec<(u16, &str)> = got.iter().map(|(c, t)| (*c, t.as_str())).collect();
        assert_eq!(got, want, "{input:?}");
    }
}

#[test]
fn successor_and_deprecation_are_taken_from_the_text() {
    // (text, says deprecated, successor)
    let cases: &[(&str, bool, Option<&str>)] = &[
        // Kubernetes' documented example
        (
            "extensions/v1beta1 Ingress is deprecated in v1.14+, unavailable in v1.22+; use networking.k8s.io/v1 Ingress",
            true,
            Some("networking.k8s.io/v1 Ingress"),
        ),
        // Kubernetes' own deprecation guide: "policy/v1beta1 PodSecurityPolicy is
        // deprecated in v1.21+, unavailable in v1.25+"
        (
            "policy/v1beta1 PodSecurityPolicy is deprecated in v1.21+, unavailable in v1.25+",
            true,
            None,
        ),
        ("v1 is deprecated, use v2 instead.", true, Some("v2")),
        (
            "This endpoint will be deprecated soon; use /v3/items",
            false,
            Some("/v3/items"),
        ),
        ("this flag is not deprecated", false, None),
        ("Please use `search_v2`.", false, Some("search_v2")),
        ("quota nearly used", false, None),
    ];
    for (text, deprecated, succ) in cases {
        let n = notice(299, (*text).to_owned());
        assert_eq!(
            (n.deprecation, n.successor.as_deref()),
            (*deprecated, *succ),
            "{text}"
        );
    }
}

#[test]
fn who_the_words_are_about() {
    use chrono::TimeZone;
    let now = Utc.with_ymd_and_hms(2026, 12, 5, 0, 0, 0).unwrap();
    let call = |deprecated: bool| move |said: &Said| matches!(said, Said::AboutTheCall(r) if r.deprecated == deprecated);
    // (text, expected)
    type Expect<'a> = &'a dyn Fn(&Said) -> bool;
    let cases: &[(&str, Expect<'_>)] = &[
        // named API group/version, "this API", a path, no subject, "Deprecated API"
        (
            "extensions/v1beta1 Ingress is deprecated in v1.14+",
            &call(true),
        ),
        (
            "This API is deprecated and will be removed by Summer '22.",
            &call(true),
        ),
        ("The path /v1/orders is deprecated", &call(true)),
        (
            "Deprecated: See https://docs.hiro.so/stacks/api",
            &call(true),
        ),
        (
            "Deprecated API: use betterapi.blazingFrog.com instead.",
            &call(true),
        ),
        ("It is deprecated.", &call(true)),
        ("deprecated since 2020-01-01", &call(true)),
        ("v1 is deprecated, use v2 instead.", &call(true)),
        // an end date alone is not "deprecated"
        (
            "The /v1/orders endpoint will be removed on 2027-01-15.",
            &call(false),
        ),
        ("Will be removed on 2027-01-15", &call(false)),
        // parts of the request
        (
            "The query parameter 'page' is deprecated; use 'cursor' instead",
            &|s| *s == Said::AboutAPart,
        ),
        ("Deprecated field 'x': use 'y'", &|s| *s == Said::AboutAPart),
        (
            "The argument 'sortOrder' of this endpoint is deprecated",
            &|s| *s == Said::AboutAPart,
        ),
        // something named the reader cannot place, or nothing said
        ("title is deprecated. Dont't use it", &|s| {
            *s == Said::Nothing
        }),
        ("deprecated xxxxxxxx", &|s| *s == Said::Nothing),
        ("this flag is not deprecated", &|s| {
            *s == Said::AboutAPart || *s == Said::Nothing
        }),
        ("This API is no longer deprecated", &|s| *s == Said::Nothing),
        ("This endpoint will be deprecated soon", &|s| {
            *s == Said::Nothing
        }),
        ("The endpoint will be removed by Summer '22", &|s| {
            *s == Said::Nothing
        }),
        ("Response is Stale", &|s| *s == Said::Nothing),
        ("", &|s| *s == Said::Nothing),
    ];
    for (text, ok) in cases {
        let said = what_it_says(text, now);
        assert!(ok(&said), "{text}: {said:?}");
    }
}

#[test]
fn dates_after_the_statement() {
    use chrono::TimeZone;
    let now = Utc.with_ymd_and_hms(2026, 12, 5, 0, 0, 0).unwrap();
    let t = |y, m, d| Some(Utc.with_ymd_and_hms(y, m, d, 0, 0, 0).unwrap());
    let sunset = |text: &str| match what_it_says(text, now) {
        Said::AboutTheCall(r) => r.sunset,
        _ => None,
    };
    assert_eq!(
        sunset("This API will be retired on 2027-06-30; use /v3"),
        t(2027, 6, 30)
    );
    assert_eq!(sunset("Old API maintained until 2015-06-02"), t(2015, 6, 2));
    assert_eq!(
        sunset("This API is supported until 2027-01-01."),
        t(2027, 1, 1)
    );
    assert_eq!(
        sunset("This endpoint will be discontinued on or after Fri, 01 Jan 2027 00:00:00 GMT."),
        t(2027, 1, 1)
    );
    assert_eq!(
        sunset("This endpoint will be shut down by Thursday, 30 June 2027 00:00:00 GMT"),
        t(2027, 6, 30)
    );
    // earliest of two end dates
    assert_eq!(
        sunset("This API will be removed on 2027-05-01. It is maintained until 2027-04-01"),
        t(2027, 4, 1)
    );
    assert_eq!(sunset("This API will be removed in v1.22"), None);
    let since = |text: &str| match what_it_says(text, now) {
        Said::AboutTheCall(r) => (r.deprecated, r.since),
        _ => (false, None),
    };
    assert_eq!(
        since("This endpoint will be deprecated on 2027-01-31"),
        (false, t(2027, 1, 31))
    );
    assert_eq!(
        since("This endpoint is scheduled for deprecation on 2027-01-31"),
        (false, t(2027, 1, 31))
    );
    assert_eq!(
        since("This endpoint is deprecated since 2025-01-01"),
        (true, t(2025, 1, 1))
    );
}

#[test]
fn repeated_fields_deduplicated_and_capped() {
    let fields: [(&str, &[u8]); 3] = [
        ("Warning", b"299 - \"a\""),
        ("warning", b"299 - \"b\""),
        ("Warning", b"299 - \"a\""),
    ];
    let texts: Vec<String> = read(&Headers::new(&fields))
        .into_iter()
        .map(|n| n.text)
        .collect();
    assert_eq!(texts, ["a", "b"]);
    let many: Vec<String> = (0..40).map(|i| format!("299 - \"w{i}\"")).collect();
    let fields: Vec<(&str, &[u8])> = many.iter().map(|v| ("Warning", v.as_bytes())).collect();
    assert_eq!(read(&Headers::new(&fields)).len(), MAX_NOTICES);
    let long = format!("299 - \"{}\"", "é".repeat(5000));
    let fields: [(&str, &[u8]); 1] = [("Warning", long.as_bytes())];
    let text = &read(&Headers::new(&fields))[0].text;
    assert_eq!(text.chars().count(), MAX_TEXT + 1);
    assert!(text.ends_with('…'));
}

#[test]
fn a_notice_that_says_its_subject_was_replaced_says_it_is_deprecated() {
    // monday.com's GraphQL warnings say "Replaced by <successor> since <version>"; others
    // "has been superseded by". Replaced is deprecated, and the name after it is the
    // successor. A value swapped for a default ("was replaced by") is not.
    for (text, deprecated, succ) in [
        (
            "Replaced by Query.items_page_by_column_values since 2023-10",
            true,
            Some("Query.items_page_by_column_values"),
        ),
        (
            "Superseded by `boards.items_page`.",
            true,
            Some("boards.items_page"),
        ),
        (
            "The v1 orders endpoint has been superseded by /v2/orders",
            true,
            Some("/v2/orders"),
        ),
        (
            "Field `text` is replaced by `display_value`",
            true,
            Some("display_value"),
        ),
        ("Invalid timezone was replaced by UTC", false, None),
        ("Replacement parts shipped by courier", false, None),
    ] {
        let n = notice(299, text.to_owned());
        assert_eq!(
            (n.deprecation, n.successor.as_deref()),
            (deprecated, succ),
            "{text}"
        );
    }
}

#[test]
fn a_notice_that_says_its_subject_ended_says_it_is_deprecated() {
    // An end already reached is a deprecation, in a notice as in `what_it_says`:
    // "is retired" (an Apollo plugin's reasons), "has been decommissioned", "is no longer
    // supported"; so is an end announced with its date, a retirement scheduled, in
    // whatever words. A future end with no date, or a plain advisory, is not.
    for (text, deprecated) in [
        ("timerange is retired. Please use timerangeInSecond", true),
        ("API version 2019-04 is retired; use 2024-01", true),
        ("This endpoint has been decommissioned", true),
        ("TLS 1.1 is no longer supported by this host", true),
        ("Reports will be retired on 2027-01-31", true),
        ("To-Dos will be disabled on Jan. 31, 2022", true),
        (
            "The v1 search will stop working on 1 March 2026; use /v2/search",
            true,
        ),
        (
            "Legacy tokens will be removed after September 30th, 2026",
            true,
        ),
        ("Reports will be retired soon", false),
        ("Exports will be disabled while maintenance runs", false),
        ("Results truncated to 100 items", false),
        ("The retired flag of the employee is set", false),
    ] {
        let value = format!("299 - \"{text}\"");
        let fields: [(&str, &[u8]); 1] = [("Warning", value.as_bytes())];
        let got = read(&Headers::new(&fields));
        assert_eq!(got.len(), 1, "{text}");
        assert_eq!(got[0].deprecation, deprecated, "{text}");
        assert_eq!(body_notice(text).deprecation, deprecated, "{text}");
    }
    let now = chrono::DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&chrono::Utc);
    match what_it_says("This API version is retired; use v3", now) {
        Said::AboutTheCall(r) => {
            assert!(r.deprecated);
            assert_eq!(r.successor.as_deref(), Some("v3"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_deprecated_call_named_as_an_adjective_is_about_the_call() {
    let now = chrono::DateTime::from_timestamp(1_772_323_200, 0).unwrap();
    let about_the_call =
        |text: &str| matches!(what_it_says(text, now), Said::AboutTheCall(r) if r.deprecated);
    // Etherscan's V1 notice and other wordings of the same statement.
    assert!(about_the_call(
        "You are using a deprecated V1 endpoint, switch to Etherscan API V2 using https://docs.etherscan.io/v2-migration"
    ));
    assert!(about_the_call(
        "Your client calls a deprecated API version."
    ));
    assert!(about_the_call(
        "This request hit a deprecated route; use /v3/orders"
    ));
    // A part stays a part, even when the call is named after it.
    assert_ne!(
        what_it_says("The parameter 'page' points to a deprecated endpoint", now),
        Said::AboutTheCall(Retirement {
            deprecated: true,
            ..Retirement::default()
        })
    );
    assert!(!about_the_call(
        "You are using a deprecated field on this endpoint"
    ));
}

#[test]
fn an_x_warning_field_is_a_warning() {
    // Indico's API sends its notices in `X-Warning`, the pre-RFC 6648 spelling.
    let fields: [(&str, &[u8]); 2] = [
        (
            "X-Warning",
            b"The 'sentiment' API is deprecated and will be removed on 2016-03-01. Use 'sentimenthq' instead.",
        ),
        ("X-Warning", b"299 - \"Input text was truncated to 1000 characters.\""),
    ];
    let notices = read(&Headers::new(&fields));
    assert_eq!(notices.len(), 2);
    assert!(notices[0].deprecation);
    assert_eq!(
        notices[1].text,
        "Input text was truncated to 1000 characters."
    );
    assert!(!notices[1].deprecation);
    // Another name that merely holds the word is no warning field.
    let other: [(&str, &[u8]); 1] = [("X-Quota-Warn-Threshold", b"80")];
    assert!(read(&Headers::new(&other)).is_empty());
}

#[test]
fn an_end_the_call_reached_is_told_apart_from_a_part_or_a_future_end() {
    let now = DateTime::parse_from_rfc3339("2026-06-01T00:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    for ended in [
        "This endpoint has been sunset and is no longer supported.",
        "Endpoint has been retired",
        "API v1 was decommissioned on December 31, 2024. Upgrade to v2.",
        "API version 1.0.0 is no longer supported. Upgrade to version 2.0.0.",
        "The model version 2023-06 has been retired and is no longer available.",
        "The non-streaming /advance endpoint has been deprecated. Please use /advancestream instead.",
    ] {
        assert!(says_the_call_ended(ended, now), "{ended}");
    }
    for not_ended in [
        "The 'not_in' query parameter is deprecated, use 'in' instead.",
        "Parameter view=count is no longer supported",
        "The requested API version is not supported",
        "API version header 'X-API-Version' is required and must be a valid semver",
        "This endpoint will be removed on 2027-01-01.",
        "Content-Type text/plain is not supported, send application/json",
    ] {
        assert!(!says_the_call_ended(not_ended, now), "{not_ended}");
    }
}

#[test]
fn an_end_written_as_is_sunset_on_a_date_is_the_sunset() {
    let now = DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    for text in [
        "Deprecated: /v1/shipments is sunset on 2025-09-30; use /v2/shipments",
        "API v1 sunsets on 2025-09-30.",
    ] {
        let Said::AboutTheCall(r) = what_it_says(text, now) else {
            panic!("not about the call: {text}");
        };
        assert_eq!(
            r.sunset
                .map(|t| t.format("%Y-%m-%d").to_string())
                .as_deref(),
            Some("2025-09-30"),
            "{text}"
        );
    }
}

fn june_2025() -> DateTime<Utc> {
    DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc)
}

fn midnight(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(&format!("{s}T00:00:00Z"))
        .unwrap()
        .with_timezone(&Utc)
}

fn retirement(text: &str) -> Retirement {
    match what_it_says(text, june_2025()) {
        Said::AboutTheCall(r) => r,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn an_end_phrase_opening_its_clause_right_before_a_date_is_about_the_call() {
    let r = retirement("Deprecated API version 2023-10; supported until 2025-10-01");
    assert!(r.deprecated);
    assert_eq!(r.sunset, Some(midnight("2025-10-01")));
    let r = retirement("This endpoint is deprecated; removal scheduled for 2026-01-15.");
    assert_eq!(r.sunset, Some(midnight("2026-01-15")));
}

#[test]
fn the_day_a_deprecated_resources_notice_asks_to_move_off_by_is_its_end() {
    let r = retirement(
        "This version of the API has been deprecated. Please upgrade to v3 by 2025-09-01.",
    );
    assert!(r.deprecated);
    assert_eq!(r.sunset, Some(midnight("2025-09-01")));
    // Without a deprecation of the call, a deadline alone declares nothing.
    assert_eq!(
        what_it_says("Please upgrade your SDK by 2025-09-01.", june_2025()),
        Said::Nothing
    );
}

#[test]
fn a_hyphenated_version_name_before_an_end_phrase_names_the_call() {
    let r = retirement("api-version 2020-06-01 will no longer function after 2026-01-31");
    assert!(!r.deprecated);
    assert_eq!(r.sunset, Some(midnight("2026-01-31")));
}

#[test]
fn a_coded_warn_text_with_a_deprecation_title_dates_the_deprecation() {
    let r = retirement(
        "300, Deprecation, https://yoursite.com/details/300.json, 2017-12-12T23:28:18.508Z",
    );
    assert!(r.deprecated);
    assert_eq!(
        r.since.map(|t| t.date_naive()),
        Some(midnight("2017-12-12").date_naive())
    );
    assert_eq!(
        r.info.as_deref(),
        Some("https://yoursite.com/details/300.json")
    );
    let r = retirement(
        "320, Scheduled Deprecation, https://api.example.com/320.json, 2026-03-01T00:00:00Z",
    );
    assert!(!r.deprecated);
    assert_eq!(r.since, Some(midnight("2026-03-01")));
    for other in [
        "400, New Version Available, https://api.example.com/400.json, 2025-05-01T00:00:00Z",
        "500, Maintenance, https://api.example.com/500.json, 2025-06-10T02:00:00Z",
    ] {
        assert_eq!(what_it_says(other, june_2025()), Said::Nothing, "{other}");
    }
}

#[test]
fn a_notice_in_another_language_is_flagged_as_a_deprecation() {
    let n = body_notice("Метод устарел и будет отключён 01.03.2026. Используйте crm.item.list.");
    assert!(n.deprecation);
    assert!(speaks_of_retirement(
        "Este endpoint está obsoleto y será eliminado el 2026-01-31."
    ));
    let r = retirement("Dieser Endpunkt ist veraltet und wird am 31.12.2025 abgeschaltet.");
    assert_eq!(r.sunset, Some(midnight("2025-12-31")));
}

#[test]
fn an_end_written_relative_to_the_reading_is_dated_from_the_reading() {
    // Sunday 1 June 2025, noon.
    let now = DateTime::parse_from_rfc3339("2025-06-01T12:00:00Z")
        .unwrap()
        .with_timezone(&Utc);
    let cases = [
        (
            "This endpoint is deprecated and will be removed in 30 days.",
            "2025-07-01",
        ),
        (
            "This API version is deprecated and will be shut down tomorrow.",
            "2025-06-02",
        ),
        (
            "This endpoint is deprecated and will be turned off next Monday.",
            "2025-06-02",
        ),
        (
            "The v1 API will be retired at the end of the quarter.",
            "2025-06-30",
        ),
        (
            "This endpoint will be removed by the end of the year.",
            "2025-12-31",
        ),
        ("This endpoint will be removed in 2 weeks.", "2025-06-15"),
    ];
    for (text, want) in cases {
        let Said::AboutTheCall(r) = what_it_says(text, now) else {
            panic!("{text}: not about the call");
        };
        let got = r.sunset.map(|t| t.format("%Y-%m-%d").to_string());
        assert_eq!(got.as_deref(), Some(want), "{text}");
    }
    // Words that only look relative date nothing.
    let Said::AboutTheCall(r) = what_it_says(
        "This endpoint is deprecated and will be removed in the next release.",
        now,
    ) else {
        panic!("not about the call");
    };
    assert_eq!(r.sunset, None);
}
