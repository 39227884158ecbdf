//! Replies whose words are few and whose meaning is in a code: a gRPC status inside a
//! client's error string, a SOAP fault's own codes, a CDATA section, a payment method's
//! category, an error's name, a held count named by its code, a signature or privilege
//! refused in two words, a business rule's code.

use super::{Recovery, read_refusal, said};

fn under(status: u16, body: &str) -> Option<Recovery> {
    read_refusal(status, body.as_bytes())
}

#[test]
fn a_grpc_status_inside_a_clients_error_string_is_read_as_its_code() {
    for (body, want) in [
        (
            "rpc error: code = OutOfRange desc = offset 2400 is past the end of the stream",
            Recovery::Request,
        ),
        (
            r#"{"error":"rpc error: code = PermissionDenied desc = applications, create, default/guestbook"}"#,
            Recovery::Credentials,
        ),
        (
            r#"{"status":500,"error":"Internal Server Error","message":"FAILED_PRECONDITION: cart is empty"}"#,
            Recovery::Request,
        ),
        (
            r#"{"detail":"<_InactiveRpcError of RPC that terminated with:\n\tstatus = StatusCode.PERMISSION_DENIED\n\tdetails = \"caller lacks role roles/viewer\"\n>"}"#,
            Recovery::Credentials,
        ),
        (
            r#"{"detail":"Status(StatusCode=\"Unavailable\", Detail=\"Error connecting to subchannel.\")"}"#,
            Recovery::Transient,
        ),
    ] {
        assert_eq!(under(500, body), Some(want), "{body}");
    }
    // A code written with an equals sign that is no gRPC status, and capitals before a
    // colon that name none, say nothing.
    for body in [
        r#"{"message":"discount code = SUMMER25 could not be applied, desc = expired offer"}"#,
        r#"{"message":"ERROR: relation \"orders\" does not exist"}"#,
    ] {
        assert_ne!(under(500, body), Some(Recovery::Transient), "{body}");
        assert_ne!(under(500, body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn a_soap_security_subcode_refuses_the_credentials_whatever_code_it_refines() {
    let wcf = r#"<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><s:Fault><s:Code><s:Value>s:Sender</s:Value><s:Subcode><s:Value xmlns:a="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">a:InvalidSecurity</s:Value></s:Subcode></s:Code><s:Reason><s:Text xml:lang="en-US">An error occurred when verifying security for the message.</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>"#;
    let wss11 = r#"<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault><faultcode>wsse:SecurityTokenUnavailable</faultcode><faultstring>Referenced security token could not be retrieved</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>"#;
    for body in [wcf, wss11] {
        assert_eq!(under(500, body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn a_fault_the_soap_envelope_defines_for_itself_is_the_requests() {
    let must_understand = r#"<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/"><soapenv:Body><soapenv:Fault><faultcode>soapenv:MustUnderstand</faultcode><faultstring>Must Understand check failed for header Security</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>"#;
    let version = r#"<s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope"><s:Body><s:Fault><s:Code><s:Value>s:VersionMismatch</s:Value></s:Code><s:Reason><s:Text xml:lang="en-US">Wrong SOAP envelope version.</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>"#;
    for body in [must_understand, version] {
        assert_eq!(under(500, body), Some(Recovery::Request), "{body}");
    }
}

#[test]
fn a_cdata_section_is_read_as_the_text_of_its_element() {
    let body = r#"<paymentService version="1.4"><reply><error code="4"><![CDATA[Invalid API key <redacted>]]></error></reply></paymentService>"#;
    assert_eq!(said(body), Some(Recovery::Credentials));
    // An unclosed section is read to the end, and reading it never panics.
    assert_eq!(
        said("<reply><error><![CDATA[Invalid API key"),
        Some(Recovery::Credentials)
    );
}

#[test]
fn a_payment_instrument_refused_is_the_requests_whatever_its_status() {
    for (status, body) in [
        (
            402,
            r#"{"errors":[{"code":"CVV_FAILURE","detail":"Authorization error: 'CVV_FAILURE'","category":"PAYMENT_METHOD_ERROR"}]}"#,
        ),
        (
            402,
            r#"{"errors":[{"code":"INSUFFICIENT_FUNDS","detail":"Authorization error: 'INSUFFICIENT_FUNDS'","category":"PAYMENT_METHOD_ERROR"}]}"#,
        ),
        (
            402,
            r#"{"message":"Card verification failed.","type":"payment","api_error_code":"payment_method_verification_failed"}"#,
        ),
        (
            403,
            r#"{"type":"https://api.payex.com/psp/errordetail/creditcard/acquirercardexpired","title":"Operation failed","status":403,"problems":[{"name":"ExternalResponse","description":"REJECTED_BY_ACQUIRER_CARD_EXPIRED-card expired, response-code: 54"}]}"#,
        ),
    ] {
        assert_eq!(under(status, body), Some(Recovery::Request), "{body}");
    }
    // The caller's own billing is not a payer's card.
    let billing =
        r#"{"message":"Your payment method failed. Please update your billing details."}"#;
    assert_ne!(under(402, billing), Some(Recovery::Request));
}

#[test]
fn an_error_named_or_texted_by_its_member_name_is_read() {
    assert_eq!(
        said(
            r#"{"errorName":"accessDenied","message":"Access to the requested resource has been denied"}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(r#"{"message-count":"1","messages":[{"status":"4","error-text":"Bad Credentials"}]}"#),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(r#"{"message-count":"1","messages":[{"status":"8","error-text":"Account Barred"}]}"#),
        Some(Recovery::Account)
    );
}

#[test]
fn a_state_the_upstream_is_changing_passes_by_itself() {
    for (status, body) in [
        (
            409,
            "<Error><Code>QueueBeingDeleted</Code><Message>The specified queue is being deleted.</Message></Error>",
        ),
        (
            409,
            "<Error><Code>SharingViolation</Code><Message>The specified resource is in use by an SMB client.</Message></Error>",
        ),
        (
            409,
            r#"{"type":"https://api.example.org/problems/resource-locked","title":"Resource Locked","status":409}"#,
        ),
        (
            440,
            r#"{"error":{"code":"time_out","message":"Query exceeded the timeout of 5000 ms."}}"#,
        ),
    ] {
        assert_eq!(under(status, body), Some(Recovery::Transient), "{body}");
    }
    // A deletion told as the cause of what is missing, and a name taken, are not passing.
    for body in [
        r#"{"diagnostics":"The FHIR ID provided was not found either due to the ID being invalid or the resource being deleted."}"#,
        r#"{"message":"Email already in use by another user"}"#,
    ] {
        assert_ne!(under(400, body), Some(Recovery::Transient), "{body}");
    }
}

#[test]
fn a_subscription_lapsed_or_missing_for_the_api_is_the_accounts() {
    for body in [
        r#"{"code":28841101,"msg":"No permissions. This API is not subscribed.","success":false}"#,
        r#"{"code":28841002,"msg":"No permissions. Your subscription to cloud development resources has expired.","success":false}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // A subscription the request names (a webhook's) is not the caller's.
    let webhook = r#"{"message":"The webhook subscription has expired."}"#;
    assert_ne!(said(webhook), Some(Recovery::Account));
}

#[test]
fn a_held_count_named_by_too_many_or_by_what_you_created_is_full() {
    for body in [
        "<Error><Code>TooManyBuckets</Code><RequestId>4442587FB7D0A2F9</RequestId></Error>",
        "<Error><Code>QueueNumExceeded</Code><Message>The queue number you created exceeded the allowed limit.</Message></Error>",
    ] {
        assert_eq!(under(400, body), Some(Recovery::Holdings), "{body}");
    }
    assert_ne!(
        under(400, r#"{"message":"Too many requests"}"#),
        Some(Recovery::Holdings)
    );
}

#[test]
fn a_signature_or_privilege_refused_in_two_words_is_the_credentials() {
    for body in [
        r#"{"code":1004,"msg":"sign invalid","success":false}"#,
        r#"{"code":1106,"msg":"permission deny","success":false}"#,
        r#"{"error":{"code":"0x80040220","message":"Principal user (Id=8a1c, type=8) is missing prvCreateAccount privilege"}}"#,
        r#"<reply><error code="4">Security violation</error></reply>"#,
    ] {
        assert_eq!(under(400, body), Some(Recovery::Credentials), "{body}");
    }
    // Signing up is the verb, not a signature.
    assert_ne!(
        under(400, r#"{"message":"Invalid sign up data"}"#),
        Some(Recovery::Credentials)
    );
}

#[test]
fn a_business_rule_code_under_a_server_error_is_the_requests() {
    let body = r#"{"status":{"statusCode":"BUSINESS_ERROR","severity":"ERROR"}}"#;
    assert_eq!(under(500, body), Some(Recovery::Request));
    let plain = r#"{"status":{"statusCode":"ERROR_INTERNAL","statusDesc":"Unknown system error"}}"#;
    assert_ne!(under(500, plain), Some(Recovery::Request));
}

#[test]
fn an_input_said_to_be_empty_is_the_requests() {
    let body = r#"{"code":1100,"msg":"param is empty","success":false}"#;
    assert_eq!(said(body), Some(Recovery::Request));
}

#[test]
fn an_allotted_quota_passed_with_no_window_is_the_accounts() {
    let body = r#"{"Message":"ErrorCode:IotHubQuotaExceeded;Total number of messages on IotHub 'contoso-hub' exceeded the allocated quota. Max allowed message count : '8000', current message count : '8064'."}"#;
    assert_eq!(under(403, body), Some(Recovery::Account));
    // An allotted rate is a throttle's.
    let rate = r#"{"message":"Requests exceeded the allocated quota of 100 per second"}"#;
    assert_ne!(under(429, rate), Some(Recovery::Account));
}

#[test]
fn a_resource_counted_at_its_quota_in_the_details_is_a_held_count_full() {
    let body = r#"{"type":"quotas_exceeded","message":"quota(s) exceeded for this resource","details":[{"resource":"instances_servers","quota":10,"current":10}]}"#;
    assert_eq!(under(403, body), Some(Recovery::Holdings));
    // A count kept per window, and one under its quota, are not.
    for body in [
        r#"{"message":"quota exceeded","details":[{"resource":"requests","quota":60,"current":60,"window":"minute"}]}"#,
        r#"{"message":"quota exceeded","details":[{"resource":"instances_servers","quota":10,"current":4}]}"#,
    ] {
        assert_ne!(under(403, body), Some(Recovery::Holdings), "{body}");
    }
}

#[test]
fn an_object_stores_bare_quota_exceeded_is_a_held_count_full() {
    let body = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Error><Code>QuotaExceeded</Code><Message></Message><RequestId>tx00000a1b</RequestId><HostId>1a2b3c-default</HostId></Error>";
    assert_eq!(under(403, body), Some(Recovery::Holdings));
    // Another service's XML saying the same, without the store's shape, is left to the
    // other readers.
    let other = "<Response><Errors><Error><Code>QuotaExceeded</Code></Error></Errors></Response>";
    assert_ne!(under(403, other), Some(Recovery::Holdings));
}

#[test]
fn a_free_tier_or_a_holder_that_cannot_currently_act_is_the_accounts() {
    for (status, body) in [
        (
            403,
            r#"{"message":"Domain sandbox1.example.org is not allowed to send: Free accounts are for test purposes only. Please upgrade or add the address to authorized recipients in Account Settings."}"#,
        ),
        (
            400,
            r#"{"error":{"message":"Your account cannot currently make live charges.","type":"invalid_request_error"}}"#,
        ),
    ] {
        assert_eq!(under(status, body), Some(Recovery::Account), "{body}");
    }
    // A customer's account that cannot currently be charged is the request's business.
    let customer = r#"{"message":"The customer account cannot currently be debited."}"#;
    assert_ne!(under(400, customer), Some(Recovery::Account));
}

#[test]
fn a_thing_held_by_an_account_a_user_or_another_resource_is_no_wait_but_one_held_by_a_process_is() {
    // Held by what lets go when it is done: the same request passes a moment later.
    for body in [
        r#"{"message":"The file is being used by another process"}"#,
        "<Error><Code>SharingViolation</Code><Message>The specified resource is in use by an SMB client.</Message></Error>",
        r#"{"message":"The table is in use by another transaction"}"#,
    ] {
        assert_eq!(under(409, body), Some(Recovery::Transient), "{body}");
    }
    // Held by an account, a user, a project or another resource: it stays held, and
    // retrying the same request only repeats the refusal.
    for body in [
        r#"{"message":"The email address is in use by another account"}"#,
        r#"{"error":"Username is in use by another user"}"#,
        r#"{"message":"The security group sg-0123 is in use by instance i-0456"}"#,
        r#"{"message":"This name is currently being used by another project"}"#,
        r#"{"message":"The domain example.com is in use by another team"}"#,
        r#"{"message":"Port 8080 is in use by another service"}"#,
    ] {
        assert_ne!(under(409, body), Some(Recovery::Transient), "{body}");
        assert_ne!(under(400, body), Some(Recovery::Transient), "{body}");
    }
}

#[test]
fn why_an_item_was_rejected_is_read_as_its_message_but_a_payments_refusal_is_not() {
    assert_eq!(
        under(
            200,
            r#"[{"email":"a@example.com","status":"rejected","reject_reason":"hard-bounce","_id":"x"}]"#
        ),
        Some(Recovery::Request)
    );
    // The payer's balance, not the caller's account.
    assert_ne!(
        under(
            200,
            r#"{"pspReference":"V4HZ","refusalReason":"Not enough balance","resultCode":"Refused"}"#
        ),
        Some(Recovery::Account)
    );
}

#[test]
fn a_result_written_as_a_sentence_in_a_failed_reply_is_its_message() {
    assert_eq!(
        under(
            200,
            r#"{"status":"0","message":"NOTOK","result":"Invalid API Key"}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        under(
            200,
            r#"{"status":"0","message":"NOTOK","result":"Error! Invalid address format"}"#
        ),
        Some(Recovery::Request)
    );
}
