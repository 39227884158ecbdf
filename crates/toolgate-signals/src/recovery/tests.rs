//! Cases written for the rules, beyond the corpus (`tests/corpus/recovery.json`): other
//! spellings of each family, and the look-alikes each rule must leave alone.

use super::{Recovery, read, read_refusal};

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
        r#"{"error":"Rate Limited Day"}"#,
        r#"{"error":"rate limited for today: 5000 calls a day"}"#,
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
        r#"{"error":"Cannot delete an active plan"}"#,
        // A throttle that also sells a plan, or counts a day but names its wait.
        r#"{"error":"You've exceeded the maximum requests per minute, please wait or upgrade your subscription to continue."}"#,
        r#"{"error":{"message":"Rate limit reached on requests per day (RPD): Limit 1000, Used 1000. Please try again in 2m59.56s.","code":"rate_limit_exceeded"}}"#,
        // A card is the customer's (a recipient marked inactive is the request's:
        // `said/outcome/tests.rs`).
        r#"{"message":"Insufficient permissions to read credits"}"#,
        r#"{"error":"Add a credit card to the customer before charging"}"#,
        // A rule an input must keep; a daily job that ran out of memory.
        r#"{"message":"daily_limit must be over 0"}"#,
        r#"{"message":"The daily export ran out of memory"}"#,
        // A throttle's window in the same words comes back by waiting.
        r#"{"error":"Rate Limited Minute"}"#,
        r#"{"error":"Rate Limited Second"}"#,
        // A status name under a name gRPC's JSON does not use is a word like any other.
        r#"{"error":"unavailable"}"#,
        // A vendor's own numeric code is not gRPC's without the Status shape.
        r#"{"code":14,"message":"The request could not be processed"}"#,
        // A user whose state is suspended, inside data; an HTML page's running text is
        // for people (its title and headings are read as a message).
        r#"{"data":{"user":{"state":"suspended"}}}"#,
        "<html><body><p>503 Service Temporarily Unavailable</p></body></html>",
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

#[test]
fn a_parsers_token_is_no_credential() {
    // A body the upstream could not parse: the request is at fault, not the credentials.
    for body in [
        r#"{"error":"Unexpected token < in JSON at position 0"}"#,
        r#"{"message":"invalid token at position 3"}"#,
        r#"{"detail":"JSON parse error - Invalid token at line 1 column 5"}"#,
        r#"{"error":{"message":"SyntaxError: Unexpected token } in JSON at position 42"}}"#,
        r#"{"errors":[{"message":"Syntax Error: Invalid token \"@\" at offset 17"}]}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Credentials), "{body}");
    }
    // The same words beside what names a credential are about the credential.
    for body in [
        r#"{"error":"invalid token"}"#,
        r#"{"message":"The access token is invalid"}"#,
        r#"{"error":"JWT malformed: unexpected token at position 10"}"#,
        r#"{"message":"Invalid JSON Web Token"}"#,
        r#"{"error":"invalid_token","error_description":"Bearer token could not be parsed"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn a_tenant_project_or_organisation_refused_as_a_whole() {
    for body in [
        r#"{"error":"This organization is unable to send emails. Please contact support"}"#,
        r#"{"message":"Your workspace cannot make API requests. Contact us to restore access."}"#,
        r#"{"error":{"code":403,"message":"Project 1234567 has been suspended.","status":"PERMISSION_DENIED"}}"#,
        r#"{"error":"access_denied","error_description":"AADSTS5000225: This tenant has been blocked due to inactivity."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // The request's own subject, and a holder's refusal of one thing without the
    // owner sent to support.
    for body in [
        r#"{"error":"Project 42 was deleted"}"#,
        r#"{"message":"Tenant not found"}"#,
        r#"{"error":"The organization is unable to accept this invitation"}"#,
        r#"{"message":"Unable to find the account. Contact support if this persists"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn oauth_refusals_are_the_credentials() {
    for body in [
        r#"{"error":"invalid_grant","error_description":"Token has been expired or revoked."}"#,
        r#"{"error":"invalid_client","error_description":"Client authentication failed"}"#,
        r#"{"error":"unauthorized_client","error_description":"The client is not authorized to request a token using this method."}"#,
        r#"{"error":"consent_required","error_description":"AADSTS65001: The user or administrator has not consented to use the application"}"#,
        r#"{"error":"interaction_required"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
    // A grant as a business noun: a research grant is not OAuth's.
    assert_eq!(said(r#"{"error":"Grant application closed"}"#), None);
}

#[test]
fn a_soap_client_fault_is_the_request() {
    for body in [
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Client.Validation</faultcode><faultstring>Element 'Amount' is not valid</faultstring></soap:Fault></soap:Body></soap:Envelope>"#,
        r#"<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body><env:Fault><env:Code><env:Value>env:Sender</env:Value></env:Code><env:Reason><env:Text xml:lang="en">Missing element</env:Text></env:Reason></env:Fault></env:Body></env:Envelope>"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
    // A login refused in a fault is the credentials, whatever the fault's code: a
    // password refused, or the session a login opened (SQL Server's `SessionIdIsInvalid`).
    for body in [
        r#"<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/"><s:Body><s:Fault><faultcode xmlns:a="urn:x">a:Core.LoginFailed</faultcode><faultstring xml:lang="en-US">Invalid username/password specified.</faultstring></s:Fault></s:Body></s:Envelope>"#,
        r#"<SOAP-ENV:Envelope xmlns:SOAP-ENV="http://schemas.xmlsoap.org/soap/envelope/"><SOAP-ENV:Body><SOAP-ENV:Fault><faultcode>SOAP-ENV:Client</faultcode><faultstring>There was an error in the incoming SOAP request packet: Client, SoapHeader, SessionIdIsInvalid</faultstring></SOAP-ENV:Fault></SOAP-ENV:Body></SOAP-ENV:Envelope>"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
    // A server's fault, and a business document's own `Value`, say nothing.
    for body in [
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Server</faultcode><faultstring>Server was unable to process request.</faultstring></soap:Fault></soap:Body></soap:Envelope>"#,
        "<Order><Value>Sender</Value><Note>Client pays</Note></Order>",
    ] {
        assert_eq!(said(body), None, "{body}");
    }
}

/// A `google.rpc.ErrorInfo`'s reason says what the status cannot: a 403
/// `PERMISSION_DENIED` is a project without the API or billing, or suspended (the
/// account's), or a key or token refused (the credentials'); an `INVALID_ARGUMENT` may
/// be a key restricted from the API. Only a typed `ErrorInfo` is read so, and a quota's
/// reason is left to the throttle readers.
#[test]
fn an_error_info_reason_names_the_fix() {
    let info = |status: &str, message: &str, reason: &str| {
        format!(
            r#"{{"error":{{"code":403,"message":"{message}","status":"{status}","details":[{{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"{reason}","domain":"googleapis.com","metadata":{{"service":"translate.googleapis.com"}}}}]}}}}"#
        )
    };
    let cases = [
        (
            info(
                "PERMISSION_DENIED",
                "Cloud Translation API has not been used in project 12 before or it is disabled.",
                "SERVICE_DISABLED",
            ),
            Some(Recovery::Account),
        ),
        (
            info(
                "PERMISSION_DENIED",
                "Consumer 'projects/12' has been suspended.",
                "CONSUMER_SUSPENDED",
            ),
            Some(Recovery::Account),
        ),
        (
            info(
                "PERMISSION_DENIED",
                "This API method requires billing to be enabled.",
                "BILLING_DISABLED",
            ),
            Some(Recovery::Account),
        ),
        (
            info(
                "INVALID_ARGUMENT",
                "Requests to this API translate.googleapis.com method are blocked.",
                "API_KEY_SERVICE_BLOCKED",
            ),
            Some(Recovery::Credentials),
        ),
        (
            info(
                "PERMISSION_DENIED",
                "Requests from referer <empty> are blocked.",
                "API_KEY_HTTP_REFERRER_BLOCKED",
            ),
            Some(Recovery::Credentials),
        ),
        (
            info(
                "INVALID_ARGUMENT",
                "Project 'projects/nope' not found or deleted.",
                "CONSUMER_INVALID",
            ),
            Some(Recovery::Request),
        ),
        // A quota's reason, or a reason of another domain's vocabulary: the status and
        // the words decide.
        (
            info(
                "RESOURCE_EXHAUSTED",
                "Quota exceeded for quota metric 'Requests' and limit 'Requests per minute'.",
                "RATE_LIMIT_EXCEEDED",
            ),
            None,
        ),
        (
            info(
                "PERMISSION_DENIED",
                "Permission denied to enable service.",
                "AUTH_PERMISSION_DENIED",
            ),
            Some(Recovery::Credentials),
        ),
    ];
    for (body, want) in cases {
        assert_eq!(said(&body), want, "{body}");
    }
    // A reason outside a typed ErrorInfo is read as words, not by the table.
    assert_eq!(
        said(
            r#"{"error":{"code":403,"message":"no","status":"PERMISSION_DENIED","details":[{"reason":"SERVICE_DISABLED"}]}}"#
        ),
        Some(Recovery::Credentials)
    );
}

/// An account the request names as someone else's — a customer's, a transfer's
/// recipient or destination — is the request's to change, whatever state it is in;
/// the caller's own account in the same words still is the account's.
#[test]
fn another_ones_account_in_a_state_is_the_requests() {
    for body in [
        r#"{"code":"P0001","message":"customer account 4411 is closed"}"#,
        r#"{"error":{"message":"The destination account is frozen and cannot receive funds"}}"#,
        r#"{"errors":[{"detail":"Beneficiary account has been blocked by the bank"}]}"#,
        r#"{"message":"Recipient account deactivated"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
    for body in [
        r#"{"message":"Your account is closed"}"#,
        r#"{"error":"account frozen: customer balance overdue"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
}

/// A model, node or index still loading passes: retried as a 503 is, not told to the
/// model as its request's fault.
#[test]
fn something_still_loading_is_a_passing_state() {
    for body in [
        r#"{"message":"Model is not ready for inference. Wait and try your request again."}"#,
        r#"{"error":"index not ready"}"#,
        r#"{"result":null,"error":{"code":-28,"message":"Client still warming up"},"id":1}"#,
        r#"{"detail":"The deployment is not ready yet"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Transient), "{body}");
    }
}

/// A call an organisation's policy refuses (VPC Service Controls, organization
/// restrictions) is the credentials', whatever status carries it and whatever the
/// message says of the organisation: a `FAILED_PRECONDITION` or `INVALID_ARGUMENT`
/// would tell the model to change its arguments, and "organization … suspended" words
/// would hold every call to the dependency as a refused account.
#[test]
fn an_organisation_policy_reason_is_the_credentials() {
    let info = |status: &str, message: &str, reason: &str| {
        format!(
            r#"{{"error":{{"code":400,"message":"{message}","status":"{status}","details":[{{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"{reason}","domain":"googleapis.com","metadata":{{"service":"pubsub.googleapis.com","consumer":"projects/9"}}}}]}}}}"#
        )
    };
    for (status, message, reason) in [
        (
            "FAILED_PRECONDITION",
            "Request is prohibited by organization's policy. vpcServiceControlsUniqueIdentifier: Zx81",
            "SECURITY_POLICY_VIOLATED",
        ),
        (
            "INVALID_ARGUMENT",
            "Request violates the service perimeter of the organization.",
            "SECURITY_POLICY_VIOLATED",
        ),
        (
            "PERMISSION_DENIED",
            "The organization of projects/9 is blocked by the organization restrictions of this request.",
            "ORG_RESTRICTION_VIOLATION",
        ),
        (
            "INVALID_ARGUMENT",
            "The organization restrictions header is invalid.",
            "ORG_RESTRICTION_HEADER_INVALID",
        ),
        (
            "FAILED_PRECONDITION",
            "Organization suspended the use of this service for projects/9.",
            "ORG_RESTRICTION_VIOLATION",
        ),
    ] {
        let body = info(status, message, reason);
        assert_eq!(said(&body), Some(Recovery::Credentials), "{body}");
    }
    // A resource created where the billing account's tax location forbids: another
    // location passes, so the request is at fault.
    let body = info(
        "FAILED_PRECONDITION",
        "Location asia-northeast3 is not allowed for this billing account.",
        "LOCATION_TAX_POLICY_VIOLATED",
    );
    assert_eq!(said(&body), Some(Recovery::Request), "{body}");
}

/// An allowance raised only on request (an approved quota, "request a quota increase")
/// is the account's; a window's quota that also offers an increase comes back by waiting.
#[test]
fn a_quota_raised_only_on_request_is_the_accounts() {
    for body in [
        r#"{"error":{"code":"OperationNotAllowed","message":"Operation results in exceeding quota limits of Core. Maximum allowed: 4, Current in use: 4, Additional requested: 1. Please read more about quota increase at https://aka.ms/quotaincrease."}}"#,
        r#"{"error":{"code":"QuotaExceeded","message":"Operation could not be completed as it results in exceeding approved Total Regional Cores quota."}}"#,
        r#"{"message":"You have reached the number of projects your quota allows. Ask your administrator for a quota increase."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    for body in [
        r#"{"message":"Quota exceeded: 10 requests per second. You may request a quota increase."}"#,
        r#"{"error":"quota exceeded, please wait and retry"}"#,
        r#"{"errors":[{"code":"QuotaExceeded","message":"You exceeded your quota for the requested resource."}]}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

/// A session id is a credential, as an API key is: Salesforce's `INVALID_SESSION_ID`
/// ("Session expired or invalid"), Veeva Vault's "Invalid or expired session ID". A
/// session a business object names (a checkout session that expired) is not one.
#[test]
fn a_session_id_refused_is_the_credentials() {
    for body in [
        r#"[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]"#,
        r#"{"responseStatus":"FAILURE","errors":[{"type":"INVALID_SESSION_ID","message":"Invalid or expired session ID."}]}"#,
        "<Error><Code>SessionIdExpired</Code><Message>The session id has expired</Message></Error>",
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
    for body in [
        r#"{"error":{"code":"resource_missing","message":"The Checkout Session cs_test_1 has expired"}}"#,
        r#"{"error":"invalid session_type: must be one of web, mobile"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn what_a_transaction_offers_below_what_is_needed_is_the_requests() {
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nonce too low: address 0xabc, tx: 3 state: 5"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nonce too high"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32010,"message":"ReplacementNotAllowed: transaction underpriced"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"insufficient funds for gas * price + value: balance 0, tx cost 21000"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"max priority fee per gas higher than max fee per gas"}}"#,
        r#"{"error":{"code":-26,"message":"min relay fee not met, fee too low"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":3,"message":"execution reverted: Ownable: caller is not the owner","data":"0x08c3"}}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
}

#[test]
fn something_said_invalid_already_done_or_undecodable_is_the_requests() {
    for body in [
        r#"{"result":null,"error":{"code":-5,"message":"Invalid Bitcoin address"},"id":1}"#,
        r#"{"error":"Invalid IBAN: DE00 1234"}"#,
        r#"{"message":"Invalid currency XYZ"}"#,
        r#"{"errors":[{"code":"invalid_cpfCnpj","description":"O CPF informado é inválido."}]}"#,
        r#"{"error":{"code":-27,"message":"Transaction already in block chain"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"already known"}}"#,
        r#"{"message":"A customer with this email already exists"}"#,
        r#"{"error":{"code":-22,"message":"TX decode failed"}}"#,
        // A page token is no credential, but the request's cursor.
        r#"{"error":{"message":"Invalid page token"}}"#,
        "failed to parse request body",
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
}

#[test]
fn invalid_or_unparsable_from_further_upstream_is_not_the_requests() {
    for body in [
        r#"{"message":"Invalid response from upstream server"}"#,
        r#"{"error":"upstream sent an invalid reply"}"#,
        r#"{"error":"failed to parse backend response"}"#,
        r#"{"error":"invalid internal state"}"#,
    ] {
        assert_eq!(said(body), None, "{body}");
    }
}

#[test]
fn credentials_refused_in_other_languages_and_plain_words() {
    for body in [
        r#"{"Success":false,"ErrorCode":"204","Message":"Неверный токен. Проверьте пару ключей."}"#,
        r#"{"success":false,"code":110,"message":"Авторизация не удалась: неверный логин или пароль"}"#,
        r#"{"errors":[{"code":"auth","description":"A chave de API fornecida é inválida"}]}"#,
        r#"{"error":"Passwort ungültig"}"#,
        r#"{"error":"La clave de API es incorrecta"}"#,
        r#"{"status":"ERROR","status_code":"DA-1","status_message":"Invalid integration key"}"#,
        r#"{"message":"Access Denied"}"#,
        r#"{"error":"You must log in before using this part of the API."}"#,
        r#"{"error":"User is not authorized to perform this action"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn a_payment_or_an_object_not_authorized_is_no_credential() {
    for body in [
        r#"{"message":"Payment not authorized by the card issuer"}"#,
        r#"{"message":"Transaction not authorized"}"#,
        r#"{"code":"002003","message":"Object 'ORDERS' does not exist or not authorized."}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn a_balance_spent_a_plans_own_limit_or_a_registration_is_the_accounts() {
    for body in [
        r#"{"detail":"Insufficient balance: please top up your account"}"#,
        r#"{"error":"Your prepaid balance is exhausted"}"#,
        r#"{"error":"you have reached the limit of projects for your plan"}"#,
        r#"{"status_code":401,"code":"freee_plan_limit"}"#,
        r#"{"error":{"code":"MissingSubscriptionRegistration","message":"The subscription is not registered to use namespace 'Microsoft.Web'. See https://aka.ms/rps-not-found"}}"#,
        r#"{"errors":"Account is suspended."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // A card's balance is the customer's; a plan's rate limit comes back by waiting.
    for body in [
        r#"{"error":"Card has insufficient balance"}"#,
        r#"{"error":"rate limit of your plan exceeded"}"#,
        r#"{"error":"plan limit: 10 requests per second"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn an_xml_rpc_faults_members_are_read() {
    let fault = |text: &str| {
        format!(
            "<?xml version=\"1.0\"?><methodResponse><fault><value><struct>\
             <member><name>faultCode</name><value><int>3</int></value></member>\
             <member><name>faultString</name><value><string>{text}</string></value></member>\
             </struct></value></fault></methodResponse>"
        )
    };
    assert_eq!(said(&fault("Access Denied")), Some(Recovery::Credentials));
    assert_eq!(
        said(&fault("Invalid parameter: ids")),
        Some(Recovery::Request)
    );
    // A member named otherwise is data.
    let other = "<methodResponse><params><param><value><struct><member><name>summary</name>\
                 <value><string>Access Denied page</string></value></member></struct></value>\
                 </param></params></methodResponse>";
    assert_eq!(said(other), None);
}

#[test]
fn a_soap_12_subcode_and_reason_are_read() {
    let fault = |value: &str, subcode: &str, reason: &str| {
        format!(
            "<env:Envelope xmlns:env=\"http://www.w3.org/2003/05/soap-envelope\"><env:Body>\
             <env:Fault><env:Code><env:Value>env:{value}</env:Value><env:Subcode>\
             <env:Value>ter:{subcode}</env:Value></env:Subcode></env:Code><env:Reason>\
             <env:Text xml:lang=\"en\">{reason}</env:Text></env:Reason></env:Fault>\
             </env:Body></env:Envelope>"
        )
    };
    assert_eq!(
        said(&fault("Sender", "NotAuthorized", "Sender not Authorized")),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(&fault(
            "Receiver",
            "ActionNotSupported",
            "Optional Action Not Implemented"
        )),
        Some(Recovery::Unsupported)
    );
}

#[test]
fn a_transaction_that_lost_to_a_concurrent_one_passes_when_sent_again() {
    for body in [
        r#"{"error":"Deadlock found when trying to get lock; try restarting transaction"}"#,
        r#"{"code":"TxConflict","message":"Transaction conflict with a concurrent write, the transaction can be retried"}"#,
        r#"{"message":"ERROR: could not serialize access due to read/write dependencies among transactions"}"#,
        r#"{"error":"Write conflict, txnStartTS=4401, conflictStartTS=4399"}"#,
        r#"{"errors":[{"code":"ContendedTransaction","message":"Too much contention on the document"}]}"#,
        r#"{"error":{"message":"Aborted because of concurrent modification of the row"}}"#,
        r#"{"returnMessage":"A temporary error occurred while reaching the card network."}"#,
        r#"{"error":"temporary failure in name resolution"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Transient), "{body}");
    }
    // A conflict the request must resolve, and a temporary thing that is no failure.
    for body in [
        r#"{"message":"Operation cannot be fulfilled on pods \"web\": the object has been modified; please apply your changes to the latest version and try again"}"#,
        r#"{"error":"conflict","reason":"Document update conflict."}"#,
        r#"{"error":"temporary password must be changed"}"#,
        r#"{"message":"Concurrent requests limit reached"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Transient), "{body}");
    }
}

/// What the request names, said not to be there, is the request's even under a 5xx or
/// in an envelope sent with a 200: another id, key or name passes, the same one never
/// does. "plan" as a domain noun is no account's plan. A host, a route or an upstream a
/// proxy could not find is not the request's.
#[test]
fn something_named_that_is_not_there_is_the_requests() {
    for body in [
        r#"{"error":"Travel plan not found"}"#,
        r#"{"jsonrpc":"2.0","id":9,"error":{"code":28,"message":"Class hash not found"}}"#,
        r#"{"code":2001,"message":"partition not found[partition=2024_q3]"}"#,
        r#"{"error":{"code":"-1","message":"Customer with specified code was not found in database"}}"#,
        "<methodResponse><fault><value><struct><member><name>faultCode</name><value><int>1</int></value></member><member><name>faultString</name><value><string>Category not exists.</string></value></member></struct></value></fault></methodResponse>",
        r#"{"detail":"Workspace 'sales' doesn't exist"}"#,
        r#"{"message":"Page 4411 could not be found"}"#,
        "No such bucket: reports-2024",
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
    for body in [
        r#"{"message":"upstream host not found"}"#,
        r#"{"error":"no route found for the backend"}"#,
        r#"{"error":"DNS name not found"}"#,
        r#"{"jsonrpc":"2.0","id":10,"error":{"code":-32000,"message":"header not found"}}"#,
        r#"{"jsonrpc":"2.0","id":2,"error":{"code":24,"message":"Block not found"}}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Request), "{body}");
    }
    // A method the upstream does not have is what it does not do.
    for body in [
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"the method debug_traceTransaction does not exist/is not available"}}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Unsupported), "{body}");
    }
}

/// A key named as a credential that is not there is refused as an invalid one is (IBM
/// Cloud IAM's "Provided API key could not be found"), and so is a session key.
#[test]
fn a_credential_that_is_not_there_is_the_credentials() {
    for body in [
        r#"{"errorCode":"BXNIM0415E","errorMessage":"Provided API key could not be found."}"#,
        r#"{"error":"Access key does not exist"}"#,
        r#"{"error_code":"ERR-INVALID-SESSION","error_info":"Session key is not present."}"#,
        r#"{"error":"invalid_auth"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

/// A login that did not happen, ended, or lacks a privilege is the credentials': "user
/// hasn't authenticate", "Authentication failed", "Session expired. Try to relogin.",
/// "please log in again", "TICKET_VIEW privileges are required". A session a business
/// object names, a rule a field must keep, and a permission's own settings are not.
#[test]
fn a_login_missing_ended_or_short_of_a_privilege_is_the_credentials() {
    for body in [
        r#"{"code":1800,"message":"user hasn't authenticate"}"#,
        r#"{"status":"error","message":"Authentication failed for user 'etl'"}"#,
        r#"{"error":"authentication required"}"#,
        r#"{"jsonrpc":"2.0","id":null,"error":{"code":100,"message":"Odoo Session Expired"}}"#,
        "<methodResponse><fault><value><struct><member><name>faultCode</name><value><int>5</int></value></member><member><name>faultString</name><value><string>Session expired. Try to relogin.</string></value></member></struct></value></fault></methodResponse>",
        r#"{"error":{"code":301,"message":{"lang":"en-us","value":"Invalid session."}}}"#,
        r#"{"message":"Your session has expired, please log in again"}"#,
        r#"{"faultString":"MILESTONE_ADMIN privileges are required to perform this operation"}"#,
        r#"{"message":"You don't have the required permissions for this project"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
    for body in [
        r#"{"error":{"code":"resource_missing","message":"The Checkout Session cs_test_1 has expired"}}"#,
        r#"{"error":"The upload session expired; start a new upload"}"#,
        r#"{"error":"invalid session_type: must be one of web, mobile"}"#,
        r#"{"message":"permissions must be a list; a role is required"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

/// A transaction whose priority is too low to replace one in the pool, or one already
/// imported, is the request's: the same transaction never passes.
#[test]
fn a_transactions_priority_or_an_import_already_done_is_the_requests() {
    for body in [
        r#"{"jsonrpc":"2.0","error":{"code":1014,"message":"Priority is too low: (140 vs 140)"},"id":7}"#,
        r#"{"jsonrpc":"2.0","error":{"code":1013,"message":"Transaction Already Imported"},"id":4}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
}

/// An OData error's verbose message (`"message": {"lang": …, "value": …}`) is read as a
/// message: SAP Gateway and Business One answer a key that is not there with a 500.
#[test]
fn an_odata_verbose_message_is_read() {
    let body = r#"{"error":{"code":"/IWBEP/CM_MGW_RT/020","message":{"lang":"en","value":"Resource not found for segment 'Customer'"}}}"#;
    assert_eq!(said(body), Some(Recovery::Request), "{body}");
    // A `value` beside a language elsewhere is data.
    let data = r#"{"error":{"code":"E1"},"label":{"lang":"en","value":"Session expired"}}"#;
    assert_eq!(said(data), None, "{data}");
}

/// A JSON-RPC error named only by its code's name ("Internal error") is read by its
/// `data`: what it says decides, and without a detail in words the name stands.
#[test]
fn a_json_rpc_error_named_only_by_its_code_is_read_by_its_detail() {
    for (body, want) in [
        (
            r#"{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":"tx already exists in cache"}}"#,
            Some(Recovery::Request),
        ),
        (
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"Server error","data":"Invalid account address 0xzz"}}"#,
            Some(Recovery::Request),
        ),
        (
            r#"{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error","data":"mempool is full"}}"#,
            None,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}"#,
            Some(Recovery::Transient),
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error","data":{"stack":"at line 3"}}}"#,
            Some(Recovery::Transient),
        ),
        // A server's own message is read as it is; its data is data.
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"Node is busy, try again later","data":"invalid nonce 4"}}"#,
            Some(Recovery::Transient),
        ),
    ] {
        assert_eq!(said(body), want, "{body}");
    }
}

/// A sign-in page answering in place of the API (a captive portal's, a proxy's, a
/// single sign-on gate's) asks for credentials; any other page's words are for people.
#[test]
fn a_sign_in_page_in_place_of_the_api_is_the_credentials() {
    let portal = r#"<!DOCTYPE html><html><head><title>Guest Wi-Fi</title></head><body><form action="/login"><input type="text" name="user"><input type="password" name="pass"></form></body></html>"#;
    assert_eq!(said(portal), Some(Recovery::Credentials));
    let docs = r#"<!DOCTYPE html><html><body><p>Invalid API key: sign in to see yours.</p><form action="/search"><input type="search" name="q"></form></body></html>"#;
    assert_eq!(said(docs), None);
}

/// An account that owes money, a spending budget passed, a feature the account was not
/// given: only its owner mends them. A query's complexity budget, a time budget, and a
/// customer's or another's account are not the account's.
#[test]
fn an_account_that_owes_spent_its_budget_or_lacks_a_feature() {
    for body in [
        r#"{"code":"Arrears","message":"The account is in arrears."}"#,
        r#"{"error":{"message":"Your balance has unpaid invoices; service paused"}}"#,
        r#"{"Error":{"Code":"OverduePayment","Message":"Calls are refused while your payments are overdue"}}"#,
        r#"{"msg":"余额不足 please recharge your account first"}"#,
        r#"{"error":{"message":"ExceededBudget: Team=ml over budget. Spend=25.3, Budget=25.0","type":"budget_exceeded"}}"#,
        r#"{"detail":"Monthly budget reached for this key"}"#,
        r#"{"error":"SSO is not enabled for your organization"}"#,
        r#"{"message":"Webhooks are not enabled for this workspace. Contact sales."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    for body in [
        r#"{"errors":[{"message":"Complexity budget exhausted","extensions":{"code":"COMPLEXITY_BUDGET_EXHAUSTED"}}]}"#,
        r#"{"error":"query exceeded its time budget of 30s"}"#,
        r#"{"error":"retry budget exhausted"}"#,
        r#"{"message":"Payments are not enabled for the customer account 88"}"#,
        r#"{"message":"field budget must be over 0"}"#,
        r#"{"message":"Cannot refund an unpaid invoice"}"#,
        r#"{"error":"Customer 42 has outstanding invoices and cannot be deleted"}"#,
        r#"{"error":"customer account in arrears"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

/// Something still on its way to a state it reaches alone, and a reply that tells to
/// wait and send the same call again, are passing states; a retry with other arguments
/// is the request's.
#[test]
fn still_under_way_or_told_to_wait_and_retry_is_a_passing_state() {
    for body in [
        r#"{"error_code":"still_creating","error_msg":"The disk is still being created."}"#,
        r#"{"message":"Snapshot still provisioning"}"#,
        r#"{"error":"the index is still building; wait a moment and try again"}"#,
        r#"{"title":"Another request is changing this object. Please retry."}"#,
        r#"{"error":{"message":"Please wait a few seconds and try again"}}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Transient), "{body}");
    }
    for body in [
        r#"{"error":"Invalid amount. Please retry with a valid amount"}"#,
        r#"{"message":"amount must still be positive"}"#,
        r#"{"message":"machine still active, refusing to start"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Transient), "{body}");
    }
}

/// A member of the error saying the call may be retried makes it a passing state,
/// unless the account or the credentials are what it names; `false` says nothing.
#[test]
fn an_error_that_says_it_is_retryable_is_a_passing_state() {
    for body in [
        r#"{"type":"conflict_error","title":"Object is being modified","retryable":true}"#,
        r#"{"error":{"code":"E_CONFLICT","message":"version mismatch","is_retryable":true}}"#,
        r#"{"errors":[{"code":"invalid_state","retriable":true}]}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Transient), "{body}");
    }
    assert_eq!(
        said(r#"{"type":"invalid_parameters_error","title":"Invalid amount","retryable":false}"#),
        Some(Recovery::Request)
    );
    assert_eq!(
        said(r#"{"title":"The API key is invalid","retryable":true}"#),
        Some(Recovery::Credentials)
    );
    assert_eq!(said(r#"{"retryable":"yes","title":"x"}"#), None);
}

/// Funds short that the request charges (a payer's, a card's) are the request's; funds
/// of the caller's own account are left to the status.
#[test]
fn a_payers_funds_short_is_the_requests() {
    for body in [
        r#"{"code":"PAYER_LIMIT","message":"Payer has insufficient funds"}"#,
        r#"{"error":"insufficient_funds","message":"Not enough funds on the card"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
    assert_eq!(
        said(r#"{"message":"Your account does not have enough funds to send this payout"}"#),
        None
    );
}

/// A SOAP `Server` fault whose dotted subcode names a business or validation rule is
/// the request's; a `Server.System` fault is left to the status.
#[test]
fn a_server_fault_of_a_business_rule_is_the_requests() {
    let fault = |code: &str| {
        format!(
            r#"<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body><S:Fault><faultcode>{code}</faultcode><faultstring>Seat map unavailable for this flight</faultstring></S:Fault></S:Body></S:Envelope>"#
        )
    };
    assert_eq!(said(&fault("Server.Business")), Some(Recovery::Request));
    assert_eq!(said(&fault("S:Server.Validation")), Some(Recovery::Request));
    assert_eq!(said(&fault("Server.System")), None);
    assert_eq!(said(&fault("Server.BusinessUnitDown")), None);
}

#[test]
fn what_mends_a_failure_said_in_other_languages() {
    for (body, want) in [
        (
            r#"{"codigo":"sem_saldo","mensagem":"Sua conta não possui créditos suficientes para esta operação."}"#,
            Recovery::Account,
        ),
        (
            r#"{"fehler":"Diese Funktion ist in Ihrem Tarif nicht enthalten."}"#,
            Recovery::Account,
        ),
        (
            r#"{"error":"invalid_grant","mensaje":"El token de acceso ha expirado"}"#,
            Recovery::Credentials,
        ),
        (
            r#"{"messaggio":"Chiave API scaduta"}"#,
            Recovery::Credentials,
        ),
        (
            r#"{"message":"Serwis tymczasowo niedostępny, przerwa techniczna"}"#,
            Recovery::Transient,
        ),
        (r#"{"detail":"Dịch vụ đang bảo trì"}"#, Recovery::Transient),
        (r#"{"err_msg":"账户已欠费，请充值"}"#, Recovery::Account),
    ] {
        assert_eq!(said(body), Some(want), "{body}");
    }
    // A card short of funds, a field missing: none of these.
    for body in [
        r#"{"mensaje":"Fondos insuficientes en la tarjeta del cliente"}"#,
        r#"{"message":"Pole 'email' jest wymagane"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn a_write_carrying_a_stale_version_is_the_requests_even_when_called_concurrent() {
    for body in [
        r#"{"statusCode":409,"errors":[{"code":"ConcurrentModification","message":"Object 7 has a different version than expected. Expected: 1 - Actual: 2."}]}"#,
        r#"{"error":{"code":"ConcurrentModification","message":"Version mismatch: the record was changed since you read it"}}"#,
        r#"{"error":{"code":"0x80060882","message":"The version of the existing record doesn't match the RowVersion property provided."}}"#,
        r#"{"errors":[{"code":"stale_object","detail":"The etag you sent does not match; the resource is at revision 12"}]}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
    // A transaction that lost a race, an API version refused: not a resource's version.
    assert_eq!(
        said(
            r#"{"message":"Transaction was aborted due to detection of concurrent modifications"}"#
        ),
        Some(Recovery::Transient)
    );
    assert_ne!(
        said(
            r#"{"message":"Concurrent modification; the API version expected by this SDK is 2024-01"}"#
        ),
        Some(Recovery::Request)
    );
}

#[test]
fn an_input_left_empty_is_the_requests() {
    for body in [
        r#"{"message":"An error has occurred.","exceptionMessage":"Error: 'Vendor' cannot be empty.","exceptionType":"PX.Data.PXException"}"#,
        r#"{"errors":{"title":["can't be blank"]}}"#,
        r#"{"error":"amount may not be null"}"#,
        r#"{"detail":[{"loc":["body","email"],"msg":"Field required","type":"missing"}]}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
    // "empty" as a state, not a rule an input breaks.
    assert_eq!(said(r#"{"message":"The queue is empty"}"#), None);
}

#[test]
fn a_numbered_member_is_read_as_its_kind() {
    assert_eq!(
        said(
            "<response><errormessage><error><errorno>XL03000006</errorno><description></description><description2>Invalid login</description2></error></errormessage></response>"
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(r#"{"error":{"code1":"E1","message2":"Record 42 already exists"}}"#),
        Some(Recovery::Request)
    );
    // A name that is only digits, or data beside a code, is not a message.
    assert_eq!(
        said(r#"{"2":"Invalid login","address2":"Suite 401"}"#),
        None
    );
}

#[test]
fn a_sign_in_refused_and_a_call_to_log_in_again_are_the_credentials() {
    for body in [
        "<error><description2>Sign-in information is incorrect</description2></error>",
        r#"{"error":{"code":"INVALID_LOGIN","message":"Invalid login attempt."}}"#,
        r#"{"message":"Logon failure: unknown user name"}"#,
        r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params.","data":"Session terminated, re-login, please."},"id":1}"#,
        r#"{"message":"Please re-authenticate to continue"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
    // A sign-in form's field rule is an input's; a log is no sign-in, nor is a
    // connection's session that ended.
    for body in [
        r#"{"errors":{"login":["Invalid login format: must be an email address"]}}"#,
        r#"{"message":"The login field is invalid"}"#,
        r#"{"message":"Failed to write log in /var/log/app"}"#,
        r#"{"message":"WebSocket session terminated unexpectedly"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn a_json_rpc_error_named_only_by_its_code_is_read_by_its_data() {
    assert_eq!(
        said(
            r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params.","data":"Not authorised."},"id":2}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(
            r#"{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request","data":"Service temporarily unavailable"},"id":3}"#
        ),
        Some(Recovery::Transient)
    );
    // The server's own message is read; `data` beside it stays data.
    assert_eq!(
        said(
            r#"{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params: amount","data":"unauthorized"},"id":4}"#
        ),
        Some(Recovery::Request)
    );
}

#[test]
fn a_problem_with_the_callers_account_is_the_accounts() {
    for body in [
        "<Error><Code>AccountProblem</Code><Message>Operation refused.</Message></Error>",
        r#"{"message":"There is a problem with your billing account that prevents this request. Contact support."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    for body in [
        r#"{"message":"There was a problem creating the account, please try again later"}"#,
        r#"{"message":"There is a problem with the customer account 4411 that prevents the payout"}"#,
        r#"{"message":"There was a problem signing in to your account. Contact support."}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn terms_the_owner_has_not_accepted_are_the_accounts() {
    for body in [
        // A `google.rpc.PreconditionFailure` of type TOS under FAILED_PRECONDITION.
        r#"{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"Precondition check failed.","details":[{"@type":"type.googleapis.com/google.rpc.PreconditionFailure","violations":[{"type":"TOS","subject":"google.com/cloud","description":"Terms of service not accepted"}]}]}}"#,
        r#"{"message":"You must accept the Terms of Use before calling this API."}"#,
        r#"{"error":"The user has not agreed to the latest terms and conditions"}"#,
        "<Error><Code>TermsNotAccepted</Code><Message>Accept the EULA in the console first.</Message></Error>",
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // Terms named without acceptance, and acceptance of something else, are not.
    for body in [
        r#"{"message":"The request violates our terms of service: spam content"}"#,
        r#"{"error":"The invitation was already accepted"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn a_service_the_account_has_not_subscribed_to_is_the_accounts() {
    for body in [
        r#"{"__type":"OptInRequired","message":"The AWS access key ID needs a subscription for the service."}"#,
        "<ErrorResponse><Error><Type>Sender</Type><Code>OptInRequired</Code><Message>You are not subscribed to this service.</Message></Error></ErrorResponse>",
        r#"{"message":"A subscription is required to use this endpoint"}"#,
        r#"{"error":"This API requires a subscription; subscribe on the dashboard"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // A subscription the request must name is the request's.
    for body in [
        r#"{"error":{"code":"InvalidParameter","message":"The subscription id is required."}}"#,
        r#"{"message":"Subscription sub_123 not found"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn a_failed_precondition_that_passes_by_itself_is_a_passing_state() {
    for body in [
        r#"{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"An operation is already in progress on the cluster. Wait for it to complete and try again.","details":[]}}"#,
        r#"{"code":9,"message":"The instance is still being created","details":[]}"#,
        r#"{"code":"failed_precondition","message":"Cluster is being upgraded; please retry"}"#,
        // A SOAP Client fault that says the same.
        r#"<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body><soap:Fault><faultcode>soap:Client</faultcode><faultstring>Another import is in progress for this account</faultstring></soap:Fault></soap:Body></soap:Envelope>"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Transient), "{body}");
    }
    // A precondition only the caller fixes stays the request's.
    for body in [
        r#"{"error":{"code":400,"status":"FAILED_PRECONDITION","message":"The directory is not empty.","details":[]}}"#,
        r#"{"code":9,"message":"Pipeline must not be in progress when it is deleted","details":[]}"#,
        r#"{"code":"failed_precondition","message":"Please retry with a valid region"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Request), "{body}");
    }
}

#[test]
fn a_text_beside_a_code_is_a_message() {
    assert_eq!(
        said(
            r#"{"messages":{"resultCode":"Error","message":[{"code":"E00007","text":"User authentication failed due to invalid authentication values."}]}}"#
        ),
        Some(Recovery::Credentials)
    );
    assert_eq!(
        said(
            r#"{"errors":[{"code":1002,"text":"An error occurred during processing. Please try again."}]}"#
        ),
        Some(Recovery::Transient)
    );
    // A `text` without a code beside it is data.
    assert_eq!(
        said(r#"{"error":"not_found","post":{"text":"Invalid API key provided in my last post"}}"#),
        said(r#"{"error":"not_found"}"#)
    );
}

#[test]
fn please_try_again_is_advice_to_send_the_same_request() {
    for body in [
        r#"{"message":"An error occurred during processing. Please try again."}"#,
        r#"{"error":"Something went wrong on our side, please try again"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Transient), "{body}");
    }
    // Advice to send another request is not.
    for body in [
        r#"{"message":"Please try again with a different file name"}"#,
        r#"{"message":"The card number is incorrect. Please try again."}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Transient), "{body}");
    }
}

mod budgets;
mod codes;
mod counts_and_states;
mod holdings;
mod not_json;
mod operations;
mod refusals;

#[test]
fn a_plans_usage_limit_counted_per_minute_in_a_member_of_its_own_comes_back_by_waiting() {
    // Enphase's documented throttle (developer.enphase.com/docs, "Throttling").
    let minute = r#"{"reason": "409", "message": ["Usage limit exceeded for plan Watt"], "period": "minute", "period_start": 1401742440, "period_end": 1401742500, "limit": 10}"#;
    assert_ne!(said(minute), Some(Recovery::Account));
    // The month's allowance of the same plan spent is the account's, as in words.
    let month = r#"{"reason": "409", "message": ["Usage limit exceeded for plan Watt"], "period": "month", "period_end": 1751328000, "limit": 1000}"#;
    assert_eq!(said(month), Some(Recovery::Account));
    // A period that names no window (a billing period's label) adds nothing.
    let label = r#"{"message": "Usage limit exceeded for plan Watt", "period": "2025-05"}"#;
    assert_eq!(said(label), Some(Recovery::Account));
}

/// A gateway writes its quota's period with its count and in the plural ("the limit of
/// 1000 requests per 1 days"): a day's allowance spent is the account's all the same,
/// while a window of seconds written that way is a wait.
#[test]
fn a_period_written_with_its_count_is_that_period() {
    let day = r#"{"message":"Quota exceeded ! You reach the limit of 1000 requests per 1 days","http_status_code":429}"#;
    assert_eq!(said(day), Some(Recovery::Account));
    let month =
        r#"{"message":"Quota exceeded ! You reach the limit of 50000 requests per 1 months"}"#;
    assert_eq!(said(month), Some(Recovery::Account));
    let seconds = r#"{"message":"Rate limit exceeded ! You reach the limit of 10 requests per 10 seconds","http_status_code":429}"#;
    assert_ne!(said(seconds), Some(Recovery::Account));
}
