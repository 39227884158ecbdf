use super::{Reply, read};

fn failed(body: &str) -> Option<u16> {
    match read(body.as_bytes()) {
        Some(Reply::Failed { status }) => Some(status),
        _ => None,
    }
}

#[test]
fn a_failed_reply_stands_for_the_status_its_code_names() {
    // (body, status): codes in every spelling servers write them.
    let cases = [
        (
            r#"{"errors":[{"message":"Unauthenticated","extensions":{"code":"UNAUTHENTICATED"}}],"data":null}"#,
            401,
        ),
        (
            r#"{"data":null,"errors":[{"message":"x","extensions":{"path":"$","code":"invalid-jwt"}}]}"#,
            401,
        ),
        (
            r#"{"data":null,"errors":[{"errorType":"UnauthorizedException","message":"Not Authorized to access listPosts on type Query"}]}"#,
            401,
        ),
        (
            r#"{"errors":[{"type":"FORBIDDEN","path":["org"],"message":"Resource not accessible by integration"}],"data":null}"#,
            403,
        ),
        (
            r#"{"errors":[{"message":"Access denied for shop field.","extensions":{"code":"ACCESS_DENIED"}}]}"#,
            403,
        ),
        (
            r#"{"errors":[{"message":"Variable $id got invalid value","extensions":{"code":"BAD_USER_INPUT"}}]}"#,
            400,
        ),
        (
            r#"{"errors":[{"message":"Validation error of type FieldUndefined","extensions":{"classification":"ValidationError"}}]}"#,
            400,
        ),
        (
            r#"{"errors":[{"message":"Query cost is 1200, which exceeds the single query max cost limit (1000).","extensions":{"code":"MAX_COST_EXCEEDED","cost":1200,"maxCost":1000}}]}"#,
            400,
        ),
        (
            r#"{"errors":[{"message":"Throttled","extensions":{"code":"THROTTLED"}}],"extensions":{"cost":{"requestedQueryCost":101}}}"#,
            429,
        ),
        (
            r#"{"data":null,"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for user ID 1."}]}"#,
            429,
        ),
        (
            r#"{"data":null,"errors":[{"message":"boom","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}"#,
            500,
        ),
        (
            r#"{"data":null,"errors":[{"message":"Not found","extensions":{"code":"NOT_FOUND"}}]}"#,
            404,
        ),
    ];
    for (body, status) in cases {
        assert_eq!(failed(body), Some(status), "{body}");
    }
}

#[test]
fn without_a_known_code_a_request_error_is_a_400_and_a_failed_execution_a_500() {
    // No `data`: the document never ran (a parse or validation error).
    assert_eq!(
        failed(
            r#"{"errors":[{"message":"Syntax Error: Expected Name, found <EOF>.","locations":[{"line":1,"column":9}]}]}"#
        ),
        Some(400)
    );
    // `data: null`: execution failed at its root.
    assert_eq!(
        failed(r#"{"errors":[{"message":"Something odd","path":["viewer"]}],"data":null}"#),
        Some(500)
    );
    // A code no rule knows leaves the default.
    assert_eq!(
        failed(r#"{"errors":[{"message":"x","extensions":{"code":"SOMETHING_NEW"}}],"data":null}"#),
        Some(500)
    );
}

#[test]
fn a_client_error_wins_over_a_server_error_among_several() {
    let body = r#"{"data":null,"errors":[
        {"message":"a","extensions":{"code":"INTERNAL_SERVER_ERROR"}},
        {"message":"b","extensions":{"code":"FORBIDDEN"}}]}"#;
    assert_eq!(failed(body), Some(403));
}

#[test]
fn data_beside_errors_is_partial() {
    let body = r#"{"data":{"viewer":{"login":"a","email":null}},"errors":[{"message":"no email","path":["viewer","email"],"extensions":{"code":"FORBIDDEN"}}]}"#;
    assert_eq!(read(body.as_bytes()), Some(Reply::Partial { errors: 1 }));
}

#[test]
fn look_alikes_are_not_graphql_failures() {
    let bodies = [
        // A GraphQL success, and one whose `errors` list is empty.
        r#"{"data":{"a":1}}"#,
        r#"{"data":{"a":1},"errors":[]}"#,
        r#"{"data":null,"errors":[]}"#,
        // A business object with an `errors` field of its own beside other members.
        r#"{"id":"imp_1","status":"completed","errors":[{"row":3,"message":"bad email"}]}"#,
        r#"{"errors":[{"message":"bad row"}],"imported":10}"#,
        // Errors that are not GraphQL's: strings, objects without a message.
        r#"{"errors":["quota exceeded"]}"#,
        r#"{"errors":[{"code":"E1"}],"data":null}"#,
        // `data` that is neither an object nor null.
        r#"{"data":[1,2],"errors":[{"message":"x"}]}"#,
        // Not an object at all, or not JSON.
        r#"[{"errors":[{"message":"x"}]}]"#,
        "<html>errors</html>",
        "",
    ];
    for body in bodies {
        assert_eq!(read(body.as_bytes()), None, "{body}");
    }
}

#[test]
fn a_long_code_or_a_long_body_is_not_read() {
    let code = "A".repeat(200);
    let body =
        format!(r#"{{"errors":[{{"message":"x","extensions":{{"code":"{code}"}}}}],"data":null}}"#);
    assert_eq!(failed(&body), Some(500));
    let big = format!(
        r#"{{"errors":[{{"message":"{}"}}],"data":null}}"#,
        "x".repeat(super::MAX_BODY)
    );
    assert_eq!(read(big.as_bytes()), None);
}

#[test]
fn a_status_the_error_names_wins_over_its_code() {
    // Infrahub-style `http_status` and monday.com-style `status_code`, as numbers or
    // numerals; a status outside 400..=599 is not one.
    let cases = [
        (
            r#"{"data":null,"errors":[{"message":"x","extensions":{"code":"SOMETHING","http_status":422}}]}"#,
            Some(422),
        ),
        (
            r#"{"errors":[{"message":"User unauthorized to perform action","extensions":{"code":"UserUnauthorizedException","status_code":"403"}}]}"#,
            Some(403),
        ),
        (
            r#"{"data":null,"errors":[{"message":"x","extensions":{"statusCode":200}}]}"#,
            Some(500),
        ),
    ];
    for (body, want) in cases {
        assert_eq!(failed(body), want, "{body}");
    }
}

#[test]
fn without_a_code_the_message_says_the_status() {
    let cases = [
        (
            r#"{"data":null,"errors":[{"message":"workflow not found"}]}"#,
            404,
        ),
        (
            r#"{"data":null,"errors":[{"message":"Not Authorized to access listPosts on type Query"}]}"#,
            403,
        ),
        (
            r#"{"data":null,"errors":[{"message":"Rate limit exceeded, slow down"}]}"#,
            429,
        ),
        // No rule: the default stays.
        (
            r#"{"data":null,"errors":[{"message":"Something broke"}]}"#,
            500,
        ),
    ];
    for (body, want) in cases {
        assert_eq!(failed(body), Some(want), "{body}");
    }
}

/// Only an object whose first member is `data`, `errors` or `extensions` is read, in
/// any order of the three and with an escaped name left to the full reading; a body
/// whose first member is anything else is not GraphQL's, whatever follows.
#[test]
fn the_first_member_decides_whether_a_body_is_read() {
    let read_as = [
        r#"{"errors":[{"message":"no","extensions":{"code":"FORBIDDEN"}}],"data":null}"#,
        r#"{"extensions":{"cost":1},"data":null,"errors":[{"message":"no","extensions":{"code":"FORBIDDEN"}}]}"#,
        r#" { "data" : null , "errors":[{"message":"no","extensions":{"code":"FORBIDDEN"}}]}"#,
        r#"{"\u0064ata":null,"errors":[{"message":"no","extensions":{"code":"FORBIDDEN"}}]}"#,
    ];
    for body in read_as {
        assert_eq!(failed(body), Some(403), "{body}");
    }
    let not_graphql = [
        r#"{"query":"q","data":null,"errors":[{"message":"no"}]}"#,
        r#"{"dataset":null,"errors":[{"message":"no"}]}"#,
        r#"{}"#,
        r#"{"#,
    ];
    for body in not_graphql {
        assert_eq!(read(body.as_bytes()), None, "{body}");
    }
}

/// A member a GraphQL server is known to add (monday.com's `account_id`) may stand
/// beside the three, last or first; first, only when a GraphQL member follows its
/// scalar value, so an answer that merely begins with an `account_id` is not searched.
#[test]
fn a_member_servers_add_keeps_a_reply_graphql() {
    let read_as = [
        r#"{"errors":[{"message":"no","extensions":{"code":"FORBIDDEN"}}],"account_id":77}"#,
        r#"{"account_id":77,"errors":[{"message":"no","extensions":{"code":"FORBIDDEN"}}]}"#,
        r#"{ "account_id" : "a-77" , "data":null,"errors":[{"message":"no","extensions":{"code":"FORBIDDEN"}}]}"#,
    ];
    for body in read_as {
        assert_eq!(failed(body), Some(403), "{body}");
    }
    let not_graphql = [
        // Another member beside it: a business record with errors of its own.
        r#"{"account_id":77,"id":7,"errors":[{"message":"row 3 invalid"}],"data":null}"#,
        r#"{"errors":[{"message":"no"}],"account_id":77,"owner":"x"}"#,
        // First, followed by anything but a GraphQL member, or by a value that is no id.
        r#"{"account_id":77,"name":"x","errors":[{"message":"no"}]}"#,
        r#"{"account_id":{"id":77},"errors":[{"message":"no"}]}"#,
        r#"{"account_id":77}"#,
        r#"{"account_id":"#,
        r#"{"accountId":77,"errors":[{"message":"no"}]}"#,
    ];
    for body in not_graphql {
        assert_eq!(read(body.as_bytes()), None, "{body}");
    }
}

#[test]
fn an_extended_error_type_or_a_negated_auth_code_names_its_status() {
    let cases = [
        (
            r#"{"errors":[{"message":"x","extensions":{"errorType":"PERMISSION_DENIED"}}],"data":null}"#,
            403,
        ),
        (
            r#"{"errors":[{"message":"x","extensions":{"errorType":"FAILED_PRECONDITION"}}],"data":null}"#,
            400,
        ),
        (
            r#"{"errors":[{"message":"x","extensions":{"code":"USER_NOT_AUTHENTICATED"}}],"data":null}"#,
            401,
        ),
        (
            r#"{"errors":[{"message":"x","extensions":{"code":"AUTH_NOT_AUTHORIZED"}}],"data":null}"#,
            403,
        ),
    ];
    for (body, status) in cases {
        assert_eq!(failed(body), Some(status), "{body}");
    }
}

#[test]
fn a_message_saying_no_one_signed_in_or_no_permission_names_its_status() {
    let cases = [
        ("User is not authenticated", 401),
        ("Authentication required to read orders", 401),
        ("You do not have permission to perform this action", 403),
        (
            "org.springframework.security.access.AccessDeniedException: Access is denied",
            403,
        ),
        ("You have no permission to view payouts", 403),
        // Words about permissions that refuse nothing.
        ("Permission check passed but the resolver threw", 500),
    ];
    for (message, status) in cases {
        let body = format!(r#"{{"errors":[{{"message":"{message}"}}],"data":null}}"#);
        assert_eq!(failed(&body), Some(status), "{message}");
    }
}

/// A code named after the data source it came from (AppSync's `Lambda:…`,
/// `DynamoDB:…`) is read by its own part: a condition not met is a failed
/// precondition, a table's throughput passed a throttle.
#[test]
fn a_data_sources_code_is_read_by_its_own_part() {
    for (body, status) in [
        (
            r#"{"data":null,"errors":[{"errorType":"DynamoDB:ConditionalCheckFailedException","message":"The conditional request failed"}]}"#,
            412,
        ),
        (
            r#"{"data":null,"errors":[{"errorType":"DynamoDB:ProvisionedThroughputExceededException","message":"x"}]}"#,
            429,
        ),
        (
            r#"{"data":null,"errors":[{"errorType":"Lambda:Unauthorized","message":"x"}]}"#,
            401,
        ),
        (
            r#"{"data":null,"errors":[{"message":"x","extensions":{"code":"PRECONDITION_FAILED"}}]}"#,
            412,
        ),
    ] {
        assert_eq!(failed(body), Some(status), "{body}");
    }
}

#[test]
fn a_code_saying_the_query_passed_a_limit_of_its_own_size_stands_for_a_400() {
    for code in ["COMPLEXITY_LIMIT_EXCEEDED", "QUERY_DEPTH_LIMIT_EXCEEDED"] {
        let body = format!(
            r#"{{"data":null,"errors":[{{"message":"operation has complexity 512, which exceeds the limit of 200","extensions":{{"code":"{code}"}}}}]}}"#
        );
        assert_eq!(failed(&body), Some(400), "{code}");
    }
}
