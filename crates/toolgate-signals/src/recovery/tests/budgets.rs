//! A budget of what calls spend — credits, units, an allocation, a cap the owner set —
//! told spent in words that name no throttle's window: the account's to renew or raise.
//! The look-alikes say when the budget comes back, or count requests in flight.

use super::{Recovery, said};

#[test]
fn a_free_allocation_or_a_cap_spent_for_its_period_is_the_accounts() {
    for body in [
        r#"{"errors":[{"code":3036,"message":"Account limited: you have used up your daily free allocation of 10,000 neurons, please upgrade to the paid plan"}]}"#,
        r#"{"error":{"message":"monthly consumption cap of this inference token reached; raise the cap in the console"}}"#,
        r#"{"message":"You reach your quota limit of the current billing period","retryable":false}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // A minute's allocation comes back by waiting.
    let minute = r#"{"message":"You have used up your allocation of 60 requests per minute"}"#;
    assert_ne!(said(minute), Some(Recovery::Account));
}

#[test]
fn a_trial_quota_exhausted_or_a_limit_the_owner_set_reached_is_the_accounts() {
    for body in [
        r#"{"error":{"code":"QuotaExceeded","message":"Your account has exhausted its free trial quota for the model. Please activate the model service in the console."}}"#,
        r#"{"error":{"code":"SetLimitExceeded","message":"Your account has reached the set inference limit for the model, and the model service has been paused."}}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    // A limit set on something else, and one not reached, say nothing of the account.
    for body in [
        r#"{"message":"Please set a limit parameter below 100"}"#,
        r#"{"message":"The set limit has not been reached"}"#,
    ] {
        assert_ne!(said(body), Some(Recovery::Account), "{body}");
    }
}

#[test]
fn a_quota_spent_with_nothing_else_said_is_the_accounts_but_not_one_that_says_when_it_renews() {
    for body in [
        r#"{"success":false,"error":"Out of quota","quotaRemaining":0}"#,
        r#"{"status":429,"code":"QUOTA_EXCEEDED","message":"Out of resource quota."}"#,
    ] {
        assert_eq!(said(body), Some(Recovery::Account), "{body}");
    }
    let renews = r#"{"statusCode":403,"message":"Out of bandwidth quota. Quota will be replenished in 2.23:58:11."}"#;
    assert_ne!(said(renews), Some(Recovery::Account));
}

#[test]
fn a_sites_bandwidth_limit_reached_is_the_accounts() {
    let page = "<html><head><title>509 Bandwidth Limit Exceeded</title></head><body><h1>Bandwidth Limit Exceeded</h1><p>The server is temporarily unable to service your request due to the site owner reaching his/her bandwidth limit. Please try again later.</p></body></html>";
    assert_eq!(said(page), Some(Recovery::Account));
}

#[test]
fn too_many_requests_in_flight_are_a_wait_even_beside_a_plan_for_sale() {
    let body = "You have made too many concurrent requests. Please slow down or upgrade your plan for more concurrent threads.";
    assert_ne!(said(body), Some(Recovery::Account));
}

#[test]
fn a_sentence_under_info_beside_a_code_is_read() {
    let body = r#"{"success":false,"error":{"code":104,"type":"usage_limit_reached","info":"Your monthly usage limit has been reached. Please upgrade your Subscription Plan."}}"#;
    assert_eq!(said(body), Some(Recovery::Account));
}

#[test]
fn units_a_call_spends_run_short_as_credits_do_but_units_of_stock_do_not() {
    let body = r#"{"Code":"InsufficientRetrievalResUnits","ErrorMessage":"Insufficient retrieval resource units available to complete the request"}"#;
    assert_eq!(said(body), Some(Recovery::Account));
    let stock = r#"{"message":"Insufficient units in stock for item TS-001"}"#;
    assert_ne!(said(stock), Some(Recovery::Account));
}

#[test]
fn a_total_limit_exceeded_is_the_accounts_but_a_total_per_window_is_a_wait() {
    assert_eq!(
        said("ERROR 134 :: TOTAL LIMIT EXCEEDED"),
        Some(Recovery::Account)
    );
    assert_ne!(
        said(r#"{"message":"Total limit exceeded: 100 requests per minute"}"#),
        Some(Recovery::Account)
    );
}
