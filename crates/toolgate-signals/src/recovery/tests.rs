//! Cases written for the rules, beyond the corpus (`tests/corpus/recovery.json`): other
//! spellings of each family, and the look-alikes each rule must leave alone.

use super::{Recovery, read};

fn said(body: &str) -> Option<Recovery> {
    read(body.as_bytes())
}

#[test]
fn an_account_that_must_change_in_any_spelling() {
    for body in [
        r#"{"error":{"type":"invalid_request_error","code":"insufficient_quota","message":"You exceeded your current quota, please check your plan and billing details."}}"#,
        r#"{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the API."}}"#,
        r#"{"error":{"errors":[{"domain":"usageLimits","reason":"dailyLimitExceeded","message":"Daily Limit Exceeded"}],"code":403}}"#,
        r#"{"message":"Monthly quota exceeded. Your quota resets on the 1st."}"#,
        r#"{"error":"payment_required","message":"Top up to continue"}"#,
        r#"{"detail":"Your trial has ended. Choose a plan to keep using the API."}"#,
        r#"{"errors":[{"code":"ACCOUNT_SUSPENDED","title":"The account is suspended"}]}"#,
        r#"{"error":"This endpoint is not included in your plan"}"#,
        r#"{"error":{"code":"forbidden","message":"Upgrade to the Pro tier to use this endpoint"}}"#,
        r#"{"message":"You have 0 credits remaining; no credits left for this request"}"#,
        "<Error><Code>AccountProblem</Code><Message>Your account has been deactivated</Message></Error>",
        "Your searches for the month have run out",
        r#"{"code":8,"message":"You've used the whole daily allowance of requests","details":[]}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn credentials_refused_in_any_spelling() {
    for body in [
        "<Error><Code>InvalidClientTokenId</Code><Message>The security token included in the request is invalid.</Message></Error>",
        "<Error><Code>SignatureDoesNotMatch</Code><Message>The request signature we calculated does not match the signature you provided.</Message></Error>",
        r#"{"__type":"UnrecognizedClientException","message":"The security token included in the request is invalid."}"#,
        r#"{"error":"invalid_token","error_description":"The access token expired"}"#,
        r#"{"error":"insufficient_scope","scope":"repo:write"}"#,
        r#"{"code":"UNAUTHENTICATED","message":"Request had invalid authentication credentials."}"#,
        r#"{"message":"Invalid API key provided: sk-****"}"#,
        r#"{"code":16,"message":"jwt expired","details":[]}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn passing_states_in_any_spelling() {
    for body in [
        r#"{"code":14,"message":"connection closed","details":[]}"#,
        r#"{"error":{"code":409,"status":"ABORTED","message":"Transaction was aborted."}}"#,
        r#"{"code":"unavailable","message":"upstream connect error"}"#,
        r#"{"error":{"errors":[{"reason":"backendError","message":"Backend Error"}],"code":503}}"#,
        "<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>",
        r#"{"message":"Another deployment is in progress for this site"}"#,
        r#"{"error":"The resource is locked by another user"}"#,
        r#"{"error":"Server busy, please try again later"}"#,
        // An account's throughput limit, not its standing.
        "<Error><Code>ServerBusy</Code><Message>Egress is over the account limit.</Message></Error>",
        r#"{"code":"DEADLINE_EXCEEDED","message":"Deadline expired before operation could complete."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Transient), "{body}");
    }
}

#[test]
fn the_request_or_the_method_in_any_spelling() {
    for (body, want) in [
        (
            r#"{"code":3,"message":"name must not be empty","details":[]}"#,
            Recovery::Request,
        ),
        (
            r#"{"error":{"status":"FAILED_PRECONDITION","message":"The table is not empty"}}"#,
            Recovery::Request,
        ),
        (
            r#"{"message":"Invalid parameter 'limit'"}"#,
            Recovery::Request,
        ),
        (
            r#"{"error":"validation_error","detail":"name: field required"}"#,
            Recovery::Request,
        ),
        (
            r#"{"error":{"code":"card_declined","message":"Your card was declined."}}"#,
            Recovery::Request,
        ),
        (
            r#"{"code":12,"message":"method Export not implemented","details":[]}"#,
            Recovery::Unsupported,
        ),
        (
            r#"{"code":"unimplemented","message":"unknown method"}"#,
            Recovery::Unsupported,
        ),
    ] {
        assert_eq!(said(body), Some(want), "{body}");
    }
}

#[test]
fn look_alikes_say_nothing() {
    for body in [
        // A throttle is a wait, read elsewhere; an hour's limit comes back by waiting.
        r#"{"error":"Rate limit exceeded: 600 requests per minute"}"#,
        r#"{"error":"The number of requests sent using this API key exceeds the hourly throughput limit."}"#,
        // `retry` as a field's name, "quota" as a resource's, "plan" as a domain noun.
        r#"{"errors":{"retry_count":["must be an integer"]}}"#,
        r#"{"message":"You do not have permission to update quota settings"}"#,
        r#"{"error":"Travel plan not found"}"#,
        r#"{"error":"Cannot delete an active plan"}"#,
        // A throttle that also sells a plan, or counts a day but names its wait.
        r#"{"error":"You've exceeded the maximum requests per minute, please wait or upgrade your subscription to continue."}"#,
        r#"{"error":{"message":"Rate limit reached on requests per day (RPD): Limit 1000, Used 1000. Please try again in 2m59.56s.","code":"rate_limit_exceeded"}}"#,
        // A recipient is inactive, a card is the customer's, a page token is no credential.
        r#"{"ErrorCode":406,"Message":"You tried to send to recipient(s) that have been marked as inactive."}"#,
        r#"{"message":"Insufficient permissions to read credits"}"#,
        r#"{"error":"Add a credit card to the customer before charging"}"#,
        r#"{"error":{"message":"Invalid page token"}}"#,
        // A rule an input must keep; a daily job that ran out of memory.
        r#"{"message":"daily_limit must be over 0"}"#,
        r#"{"message":"The daily export ran out of memory"}"#,
        // A status name under a name gRPC's JSON does not use is a word like any other.
        r#"{"error":"unavailable"}"#,
        // A vendor's own numeric code is not gRPC's without the Status shape.
        r#"{"code":14,"message":"The request could not be processed"}"#,
        // A user whose state is suspended, inside data; an HTML page is for people.
        r#"{"data":{"user":{"state":"suspended"}}}"#,
        "<html><body><h1>503 Service Temporarily Unavailable</h1></body></html>",
        "",
    ] {
        assert_eq!(said(body), None, "{body}");
    }
}

#[test]
fn bounded_on_deep_wide_and_odd_input() {
    let deep = "[".repeat(5000);
    assert_eq!(said(&deep), None);
    let wide = format!("[{}]", vec![r#"{"message":"x"}"#; 5000].join(","));
    assert_eq!(said(&wide), None);
    let long = format!(
        r#"{{"message":"{}é insufficient credits"}}"#,
        "a".repeat(299)
    );
    assert_eq!(said(&long), None, "a text is read only to its bound");
    assert_eq!(read(&[0xff, 0xfe, b'<', 0x00]), None);
}
