//! The line between who the caller is, what it may do and what it asked. Credentials
//! refused — a key, a token, a signature or a session's key under any name — are the
//! credentials'. A permission, role or scope they lack stays with a 403, which
//! toolgate classifies as the credentials' too. What was asked, refused by the state of
//! what it names or by a business rule, is the request's even under a 403.

use super::{Recovery, read_refusal, said};

fn under_403(body: &str) -> Option<Recovery> {
    read_refusal(403, body.as_bytes())
}

#[test]
fn a_403_whose_words_say_a_state_or_a_rule_refuses_what_was_asked_is_the_requests() {
    for body in [
        r#"{"response":{"errors":[{"errno":1012,"message":"Cannot delete an invoice that has payments applied."}]}}"#,
        r#"{"message":"Booked invoices cannot be deleted.","errorCode":"E04300"}"#,
        r#"{"errors":[{"status":403,"detail":"Order cannot be canceled because it has already been shipped."}]}"#,
        r#"{"code":"FORBIDDEN","message":"Order is not in AUTHORISED state and cannot be captured."}"#,
        r#"[{"errorCode":16002,"errorMessage":"Payout is not allowed: the wallet status is CANCELED."}]"#,
        r#"{"type":"invalid_request","message":"This invoice has been voided and can no longer be modified."}"#,
        r#"{"error":{"statusCode":403,"message":["Bill is already paid and cannot be updated."]}}"#,
        r#"{"messages":[{"message":"Cannot delete a virtual machine that is powered on."}]}"#,
        r#"{"type":"INVALID_REQUEST_ERROR","subtype":"ORDER_ALREADY_FULFILLED","message":"Order has already been fulfilled"}"#,
    ] {
        assert_eq!(under_403(body), Some(Recovery::Request), "{body}");
    }
}

#[test]
fn a_403_that_names_a_grant_or_a_credential_or_says_only_invalid_stays_with_the_status() {
    // What the caller may do: a permission, role, scope, key or consent.
    for body in [
        r#"[{"message":"You do not have permission to perform this action.","code":"permission_denied"}]"#,
        r#"{"error":"forbidden","message":"This API key is read-only and cannot create orders."}"#,
        r#"{"error":{"code":"forbidden","message":"Sandbox API key cannot be used in production."}}"#,
        r#"{"Message":"The consent is not in an authorised state","Errors":[{"Message":"Consent status is Revoked; the action cannot be performed."}]}"#,
        r#"{"code":403,"message":"OBP-20006: User is missing one or more roles: CanCreateAccount"}"#,
        // What reads as the request's under another status: under a 403 it is as often
        // what the caller may not see.
        r#"{"message":"Project not found"}"#,
        r#"{"code":3002,"message":"Unregistered IP address."}"#,
    ] {
        assert_ne!(under_403(body), Some(Recovery::Request), "{body}");
    }
    // A status the request would change is no state that refuses it.
    assert_ne!(
        under_403(r#"{"message":"You cannot change the status of this ticket."}"#),
        Some(Recovery::Request)
    );
    // A refusal that blames the server is not a state of the record, whatever status.
    for body in [
        r#"{"message":"Unable to update the record because the database is unavailable."}"#,
        r#"{"message":"Cannot cancel the order: internal server error."}"#,
    ] {
        assert_ne!(
            read_refusal(500, body.as_bytes()),
            Some(Recovery::Request),
            "{body}"
        );
    }
    // The same words under a 400 or a 404 stay the request's.
    assert_eq!(
        read_refusal(404, br#"{"message":"Project not found"}"#),
        Some(Recovery::Request)
    );
}

#[test]
fn a_session_key_under_a_products_own_name_refused_is_the_credentials() {
    for body in [
        r#"{"code":"INVALID_KS","message":"Invalid KS \"djJ8MTk...\" Error \"-1,INVALID_STR\"","objectType":"KalturaAPIException"}"#,
        r#"{"id":1,"result":null,"error":"bad sid"}"#,
        r#"{"success":false,"error":{"code":119,"message":"SID not found"}}"#,
        r#"{"error":"Unauthorized","message":"The ticket has expired or is invalid."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
    // A ticket, a call's SID or a ticket's id that a request names is a record.
    for body in [
        r#"{"error":"RecordNotFound","description":"Ticket 99213 not found"}"#,
        r#"{"errors":[{"field":"ticket_id","message":"Invalid ticket id","code":"invalid_value"}]}"#,
        r#"{"Error":{"ErrorCode":"TicketCreate.InvalidParameter","ErrorMessage":"TicketCreate: Ticket->Title parameter is missing or not valid!"}}"#,
        r#"{"message":"Invalid Call SID"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn an_authorisation_said_to_fail_is_the_credentials_but_a_payments_is_not() {
    assert_eq!(
        said(
            r#"{"Error":{"ErrorCode":"TicketGet.AuthFail","ErrorMessage":"TicketGet: Authorization failing!"}}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_ne!(
        said(r#"{"message":"Payment authorization failed: card declined"}"#),
        Some(Recovery::Credentials)
    );
}

#[test]
fn an_error_about_a_named_field_is_read_with_the_fields_name() {
    // The message names no key; the member naming the input at fault does.
    assert_eq!(
        said(
            r#"{"Errors":[{"Id":0,"Code":"Invalid","Message":"Invalid unique identifier.","PropertyName":"API Key"}],"SearchResults":null}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(r#"{"errors":[{"field":"quantity","message":"Invalid value"}]}"#),
        Some(Recovery::Request)
    );
}

#[test]
fn an_account_state_code_beside_words_naming_another_account_is_not_the_callers() {
    assert_ne!(
        said(
            r#"{"status":400,"detail":"Transfer rejected: the destination account is frozen.","code":"ACCOUNT_FROZEN"}"#
        ),
        Some(Recovery::Account)
    );
    // Alone, the code is the caller's account.
    assert_eq!(
        said(r#"{"status":403,"code":"ACCOUNT_FROZEN"}"#),
        Some(Recovery::Account)
    );
}

#[test]
fn a_route_an_rpc_server_does_not_handle_is_a_method_it_does_not_have() {
    assert_eq!(
        said(
            r#"{"code":"bad_route","msg":"no handler for path \"/twirp/shop.Orders/Refund\"","meta":{}}"#
        ),
        Some(Recovery::Unsupported)
    );
}
