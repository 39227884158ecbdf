use super::reports_failure;

#[test]
fn an_operation_payload_that_reports_its_failure_is_an_error_envelope() {
    for body in [
        // A list of application errors in a namespaced operation's payload.
        r#"{"data":{"hotelX":{"search":{"options":[],"errors":[],"applicationErrors":[{"code":"219","description":"Too many requests to the supplier."}]}}}}"#,
        // A mutation payload's `userErrors`.
        r#"{"data":{"addTag":{"photo":null,"userErrors":[{"message":"Throttled","path":["addTag"]}]}}}"#,
        // A payload's own list of error texts.
        r#"{"data":{"createComment":{"comment":null,"errors":["Rate limit exceeded"]}}}"#,
        // The error member of a result union.
        r#"{"data":{"checkout":{"__typename":"MutationError","message":"Too many requests"}}}"#,
        r#"{ "data" : { "createUser" : { "__typename" : "RateLimited", "retryAfter": 30 } } }"#,
        // A payload that says it did not succeed, or holds an error object.
        r#"{"data":{"purgeCache":{"success":false,"message":"Rate limit reached"}}}"#,
        r#"{"data":{"createThread":{"thread":null,"error":{"message":"Too many requests"}}}}"#,
        // A batch whose every answer failed.
        r#"[{"data":{"a":{"userErrors":[{"message":"Throttled"}]}}}, {"data":{"a":{"userErrors":[{"message":"Throttled"}]}}}]"#,
        r#"[{"data":{"op":{"userErrors":[{"message":"x"}]}}}]"#,
    ] {
        assert!(reports_failure(body.as_bytes()), "{body}");
    }
}

#[test]
fn data_that_only_holds_records_or_a_success_is_not() {
    for body in [
        // A success's empty lists, null error, success member and success type.
        r#"{"data":{"addTag":{"photo":{"id":"42"},"userErrors":[]}}}"#,
        r#"{"data":{"addTag":{"photo":{"id":"42"},"userErrors":[ ]}}}"#,
        r#"{"data":{"createThread":{"thread":{"id":"t"},"error":null}}}"#,
        r#"{"data":{"purgeCache":{"success":true}}}"#,
        r#"{"data":{"checkout":{"__typename":"Order","id":"o1"}}}"#,
        // Records whose own fields hold error texts, or error lists, inside a list.
        r#"{"data":{"articles":{"items":[{"title":"Too many requests","errors":["429"]}]}}}"#,
        r#"{"data":{"imports":[{"__typename":"ImportError","row":5}]}}"#,
        // A string value that reads like a member.
        r#"{"data":{"note":{"text":"\"errors\": [{\"message\": \"x\"}]"}}}"#,
        // Top-level errors beside partial data are GraphQL's own, read elsewhere.
        r#"{"data":{"hubs":null},"errors":[{"message":"Rate limit exceeded"}]}"#,
        // Not a GraphQL answer: data is not the first member, or not an object.
        r#"{"result":{"op":{"userErrors":[{"message":"x"}]}}}"#,
        r#"{"data":[{"userErrors":[{"message":"x"}]}]}"#,
        // A batch with one answer failed beside the others' data, or cut by the window.
        r#"[{"data":{"a":{"userErrors":[{"message":"x"}]}}},{"data":{"b":{"id":1}}}]"#,
        r#"[{"data":{"a":{"userErrors":[{"message":"x"}]}}},{"errors":[{"message":"y"}]}]"#,
        r#"[{"data":{"a":{"userErrors":[{"message":"x"}]}}},"#,
        "[]",
        "",
        "{",
        r#"{"data":{"op":{"userErrors":["#,
    ] {
        assert!(!reports_failure(body.as_bytes()), "{body}");
    }
}

#[test]
fn a_failure_past_the_window_or_too_deep_is_not_looked_for() {
    let filler = "x".repeat(super::WINDOW);
    let late = format!(
        r#"{{"data":{{"op":{{"note":"{filler}","userErrors":[{{"message":"Throttled"}}]}}}}}}"#
    );
    assert!(!reports_failure(late.as_bytes()));
    let deep = r#"{"data":{"a":{"b":{"c":{"d":{"e":{"userErrors":[{"message":"x"}]}}}}}}}"#;
    assert!(!reports_failure(deep.as_bytes()));
}

#[test]
fn a_throttle_told_inside_the_data_is_read_as_one() {
    let now = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    let body = br#"{"data":{"hotelX":{"search":{"options":[],"errors":[],"warnings":[],"applicationErrors":[{"code":"219","type":"103","description":"Too many requests to the supplier.","httpStatusCode":0}]}}}}"#;
    assert!(crate::body::worth_reading(200, body));
    assert!(crate::body::read(200, body, now).rate_limited);
    let union = br#"{"data":{"checkout":{"__typename":"MutationError","message":"Too many requests to the payment provider. Try again in 20 seconds."}}}"#;
    assert!(crate::body::worth_reading(200, union));
    let read = crate::body::read(200, union, now);
    assert!(read.rate_limited);
    assert_eq!(read.retry_after, Some(std::time::Duration::from_secs(20)));
    // A success's empty userErrors is not read at all.
    let fine = br#"{"data":{"addTag":{"photo":{"id":"42"},"userErrors":[]}}}"#;
    assert!(!crate::body::worth_reading(200, fine));
}
