//! What the account holds, spent, full or ended, told in words no period or wait names:
//! its storage, its limits as a whole, a prepaid package, a licence, a service it has
//! not activated, an unpaid account. Each is the account's to mend; the look-alikes are
//! a request's size, a rate, someone else's document or card.

use super::{Recovery, said};

#[test]
fn an_account_whose_storage_or_limits_are_spent_is_the_accounts_but_a_size_or_a_rate_is_not() {
    for body in [
        "<Error><Code>QuotaExceeded</Code><Message>The storage quota of your account has been exceeded.</Message></Error>",
        r#"{"serverErrorCode":"QUOTA_EXCEEDED","reason":"the user's iCloud storage quota has been exceeded"}"#,
        r#"{"error":{"status_code":403,"content":"Account has reached its limits.","error_code":"AccountLimitsExceededError"}}"#,
        r#"{"Response":{"Error":{"Code":"FailedOperation.FreeResourcePackExhausted","Message":"免费资源包余量已用尽"}}}"#,
        r#"{"message":"Disk quota exceeded for this workspace"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // A request's size, a rate, a count of calls or a customer's limit is no holding.
    for body in [
        "<Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds the maximum allowed object size.</Message></Error>",
        r#"{"message":"File size exceeds the maximum limit of 25 MB."}"#,
        r#"{"title":"Account Rate Limit Exceeded","detail":"Quota has been exhausted. You can submit the request after 49 seconds"}"#,
        r#"{"message":"Your account has exceeded the limit of concurrent requests"}"#,
        r#"{"message":"customer account 4411 has reached its credit limit"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn a_licence_ended_or_a_service_not_activated_is_the_accounts() {
    for body in [
        r#"{"error":true,"message":"The license has expired. Please contact TigerGraph to renew your license.","code":"REST-10020"}"#,
        r#"{"message":"Your licence was suspended"}"#,
        r#"{"Response":{"Error":{"Code":"FailedOperation.ServiceNotActivated","Message":"服务未开通，请前往控制台申请试用。"}}}"#,
        r#"{"message":"The service is not activated for this account."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    for body in [
        r#"{"message":"The driver's license has expired"}"#,
        r#"{"message":"The card is not activated"}"#,
        r#"{"message":"license_key must expire after the start date"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn an_account_unpaid_is_the_accounts_but_a_customers_unpaid_invoice_is_not() {
    for body in [
        r#"{"error":{"content":"Account has been blocked for non payment.","error_code":"AccountUnpaidError"}}"#,
        r#"{"message":"Workspace unpaid: update your billing details"}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    assert_ne!(
        said(r#"{"message":"Cannot refund customer 12: account unpaid"}"#),
        Some(Recovery::Account)
    );
}
