//! A count of things the account may hold that is full, and the caller's own user or
//! account in a state that refuses it: each is the account's to mend (its owner raises
//! the limit, frees room, reactivates or verifies), never a wait. A full count is told
//! apart ([`Recovery::Holdings`]) because the account's other calls still pass. The look-alikes are a
//! rate told with the same words, a cap on one request or one object, and a user, an
//! account, a sender or a country the request names.

use super::{Recovery, read_refusal, said};

#[test]
fn a_count_of_things_the_account_holds_that_is_full_is_the_accounts_but_a_rate_or_a_cap_on_one_request_is_not()
 {
    for body in [
        "<Response><Errors><Error><Code>NatGatewayLimitExceeded</Code><Message>The maximum number of NAT gateways has been reached.</Message></Error></Errors></Response>",
        r#"{"message":"Cannot create more than 5 projects on this plan tier."}"#,
        r#"{"error":{"code":"QuotaExceeded","message":"Quota 'SSD_TOTAL_GB' exceeded.  Limit: 500.0 in region europe-west3."}}"#,
        r#"{"kind":"Status","status":"Failure","message":"configmaps \"c\" is forbidden: exceeded quota: counts, requested: configmaps=1, used: configmaps=20, limited: configmaps=20","reason":"Forbidden","code":403}"#,
        r#"{"error":{"code":"OperationNotAllowed","message":"Operation results in exceeding quota limits of Core. Maximum allowed: 20, Current in use: 18, Additional requested: 4."}}"#,
        r#"{"message":"You have requested more instances (6) than your current instance limit of 5 allows."}"#,
        r#"{"message":"Seat count exceeded: invite fewer members or buy seats"}"#,
        r#"{"message":"Only 100 clusters can be created per organization"}"#,
        r#"{"message":"creating this volume will exceed your volume limit"}"#,
        r#"{"message":"Index quota exceeded, delete indices or change plan."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Holdings), "{body}");
    }
    // A quota counted per window or over what is done is a throttle's.
    for body in [
        r#"{"error":{"message":"Quota exceeded for quota metric 'Read requests' and limit 'Read requests per minute' of service 'x.googleapis.com'","status":"RESOURCE_EXHAUSTED"}}"#,
        "<Response><Errors><Error><Code>RequestLimitExceeded</Code><Message>Request limit exceeded.</Message></Error></Errors></Response>",
        r#"{"message":"You have reached your pull rate limit."}"#,
        r#"{"message":"You have exceeded your API limit."}"#,
        r#"{"message":"The level of configured provisioned throughput for the table was exceeded."}"#,
        r#"{"message":"Maximum number of refunds exceeded"}"#,
    ] {
        assert!(
            !matches!(said(body), Some(Recovery::Account | Recovery::Holdings)),
            "{body}"
        );
    }
    // A cap on one request or one object: a smaller one passes.
    for body in [
        r#"{"message":"CPU request of 32 exceeds the maximum of 16 vCPUs per sandbox"}"#,
        r#"{"message":"You can ask for at most the maximum number of 100 items per page"}"#,
        r#"{"errors":{"to":["number of email addresses exceeds maximum volume"]}}"#,
        r#"{"message":"A batch cannot have more than 50 users"}"#,
    ] {
        assert!(
            !matches!(said(body), Some(Recovery::Account | Recovery::Holdings)),
            "{body}"
        );
    }
}

#[test]
fn a_limit_raised_only_when_its_owner_asks_is_the_accounts() {
    for body in [
        r#"{"code":"LimitExceeded","message":"The following service limits were exceeded: vm-standard-core-count. Request a service limit increase from the service limits page in the console."}"#,
        r#"{"message":{"limit_reached":["Your project limit is 10 projects! Please contact your administrator to increase it"]}}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Holdings), "{body}");
    }
}

#[test]
fn the_callers_user_or_account_in_a_state_that_refuses_it_is_the_accounts_but_one_the_request_names_is_not()
 {
    for body in [
        r#"{"message":"User is disabled."}"#,
        "<Error><Code>UserSuspended</Code></Error>",
        r#"{"error":"Your login is currently pending approval"}"#,
        r#"{"errors":["You have been banned from this community."]}"#,
        r#"{"message":"The current user has been blocked."}"#,
        r#"{"code":20005,"message":"Account not active"}"#,
        r#"{"message":"Your account is not yet activated."}"#,
        r#"{"message":"Project is paused. Restore it from the dashboard."}"#,
        r#"{"error":{"code":"ReadOnlyDisabledSubscription","message":"The subscription '9f3c' is disabled and therefore marked as read only."}}"#,
        r#"{"message":"Sending is disabled for your entire account."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    for body in [
        r#"{"message":"The user octocat is already suspended."}"#,
        r#"{"message":"You cannot disable the last owner of the organization"}"#,
        r#"{"message":"Failed to deactivate user 42"}"#,
        r#"{"message":"The customer account is not active; charges cannot be created."}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
    // A lockout that says it is temporary passes with the wait it names.
    assert_ne!(
        said(
            "<html><head><title>You are temporarily locked out</title></head><body><h1>Please try again in a few minutes.</h1></body></html>"
        ),
        Some(Recovery::Account)
    );
}

#[test]
fn an_identity_the_caller_has_not_verified_is_the_accounts_but_a_sender_the_request_names_is_not() {
    for body in [
        r#"{"__type":"UserNotConfirmedException","message":"User is not confirmed."}"#,
        r#"{"message":"You have to confirm your email address before continuing."}"#,
        r#"{"code":"KYC_REQUIRED","message":"Complete KYC to enable withdrawals."}"#,
        r#"{"message":"Please verify your phone number before using the API."}"#,
        r#"{"errors":[{"status":"403","title":"A required agreement is missing or has expired."}]}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    assert_ne!(
        said(
            "<ErrorResponse><Error><Code>MessageRejected</Code><Message>Email address is not verified. The following identities failed the check: sender@example.com</Message></Error></ErrorResponse>"
        ),
        Some(Recovery::Account)
    );
}

#[test]
fn a_place_the_caller_calls_from_not_served_is_the_accounts_but_a_destination_is_not() {
    for body in [
        r#"{"error":{"code":"unsupported_country_region_territory","message":"Country, region, or territory not supported"}}"#,
        r#"{"message":"Your location is not supported for this service."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    assert_ne!(
        said(r#"{"message":"Shipping to this country is not supported"}"#),
        Some(Recovery::Account)
    );
}

#[test]
fn a_client_not_registered_for_its_redirect_or_a_ticket_for_another_service_is_the_credentials() {
    for body in [
        r#"{"error":"redirect_uri_mismatch","error_description":"Bad Request"}"#,
        r#"{"errorCode":"invalid_request","errorSummary":"The 'redirect_uri' parameter must be a Login redirect URI in the client app settings"}"#,
        r#"{"error":"invalid_request","error_description":"Callback URL mismatch. https://a.example/cb is not in the list of allowed callback URLs"}"#,
        "<cas:serviceResponse xmlns:cas=\"http://www.yale.edu/tp/cas\"><cas:authenticationFailure code=\"INVALID_SERVICE\">Ticket ST-1-abc does not match supplied service.</cas:authenticationFailure></cas:serviceResponse>",
    ] {
        assert_eq!(said(body), Some(Recovery::Credentials), "{body}");
    }
}

#[test]
fn a_507_that_names_a_quota_is_the_accounts_and_one_that_names_none_is_left_to_its_status() {
    let quota = br#"{"error":{"code":"quotaLimitReached","message":"Insufficient Storage"}}"#;
    assert_eq!(read_refusal(507, quota), Some(Recovery::Holdings));
    let bare = b"<html><head><title>507 Insufficient Storage</title></head></html>";
    assert_eq!(read_refusal(507, bare), None);
    assert_eq!(read_refusal(507, b""), None);
}

#[test]
fn a_full_mailbox_or_space_of_the_caller_is_the_accounts_and_a_recipients_is_the_requests() {
    for body in [
        r#"{"error":{"code":"ErrorQuotaExceeded","message":"The mailbox has exceeded its size quota."}}"#,
        r#"{"error_summary":"path/insufficient_space/.."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    assert_eq!(
        read_refusal(
            507,
            b"552 5.2.2 Mailbox full: the recipient's storage quota is exceeded"
        ),
        Some(Recovery::Request)
    );
}

#[test]
fn a_plans_credits_used_up_are_the_accounts_but_a_customers_credit_limit_is_not() {
    assert_eq!(
        said(r#"{"errors":[{"message":"Maximum credits exceeded","field":null}]}"#),
        Some(Recovery::Account)
    );
    assert_ne!(
        said(r#"{"message":"The customer's credit limit was exceeded"}"#),
        Some(Recovery::Account)
    );
}
