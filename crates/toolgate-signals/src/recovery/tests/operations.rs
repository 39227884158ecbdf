//! What is called, missing at the upstream: a method, a command, a procedure, an action
//! of a service. And where a reply puts its words when it writes them for people
//! (`translated`, `localized`, `display`, `diagnostics`) or names its code after where it
//! comes from (`serverErrorCode`).

use super::{Recovery, said};

#[test]
fn a_method_command_or_action_the_upstream_lacks_is_unsupported() {
    for body in [
        r#"{"result":null,"error":{"code":-32601,"message":"Method not found"},"id":1}"#,
        r#"{"error":400,"message":"Bad Request","detail":"no such command or directory (wifi2)"}"#,
        r#"{"result":null,"error":{"code":905,"message":"unknown command 'user_shw'","name":"CommandError"}}"#,
        r#"{"message":"method name not recognized"}"#,
        r#"{"code":"ACTION_DOES_NOT_EXISTS","message":"Action \"listAll\" does not exists for service \"media\"","objectType":"KalturaAPIException"}"#,
        r#"{"message":"Stored procedure sp_report2 not found"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Unsupported), "{body}");
    }
}

#[test]
fn a_payment_method_or_a_record_named_action_is_the_requests() {
    for body in [
        r#"{"message":"Payment method pm_123 not found"}"#,
        r#"{"message":"Unknown shipping method 'drone'"}"#,
        r#"{"id":"not_found","message":"The action 36804636 could not be found."}"#,
        r#"{"error":400,"message":"Bad Request","detail":"no such item (*99)"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Unsupported), "{body}");
    }
}

#[test]
fn words_written_for_people_are_read_under_their_own_names() {
    assert_eq!(
        said(
            r#"{"success":false,"errors":[{"code":"E_API_KEY","translated":"Your API key has expired. Generate a new key."}]}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(r#"{"error":{"code":1042,"localized":"Your account has been suspended."}}"#),
        Some(Recovery::Account)
    );
    assert_eq!(
        said(
            r#"{"resourceType":"OperationOutcome","issue":[{"severity":"error","code":"conflict","diagnostics":"The resource is locked by another operation in progress; try again later."}]}"#
        ),
        Some(Recovery::Transient)
    );
    assert_eq!(
        said(
            r#"{"issue":[{"code":"processing","details":{"coding":[{"code":"INVALID_ID","display":"Invalid resource id"}]}}]}"#
        ),
        Some(Recovery::Request)
    );
    assert_eq!(
        said(
            r#"{"domain":"CKErrorDomain","userInfo":{"NSLocalizedDescription":"Invalid API token"}}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(
            r#"{"errorMessages":["You do not have the permission to see the specified issue. Login Required"],"errors":{}}"#
        ),
        Some(Recovery::Credentials)
    );
}

#[test]
fn an_error_code_named_for_where_it_comes_from_is_a_code() {
    assert_eq!(
        said(
            r#"{"uuid":"3e4f","serverErrorCode":"AUTHENTICATION_REQUIRED","reason":"request needs authorization"}"#
        ),
        Some(Recovery::Credentials)
    );
    // A bare `…_code` is data.
    assert_eq!(said(r#"{"country_code":"AUTHENTICATION_REQUIRED"}"#), None);
}

#[test]
fn access_said_to_be_forbidden_is_refused_access() {
    assert_eq!(
        said(
            r#"{"code":"SERVICE_FORBIDDEN","message":"The access to service [reach_reachprofile->list] is forbidden"}"#
        ),
        Some(Recovery::Credentials)
    );
}
