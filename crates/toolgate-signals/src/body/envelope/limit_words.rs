use super::names_a_limit_passed;

#[test]
fn statuses_and_codes_that_say_a_limit_was_passed() {
    for yes in [
        "OVER_QUERY_LIMIT",
        "OVER_DAILY_LIMIT",
        "RequestLimitExceeded",
        "RATE_LIMIT_EXCEEDED",
        "QuotaExceeded",
        "LimitExceeded.Frequency",
        "THROTTLED",
        "Throttling.User",
        "ratelimited",
        "quota-reached",
    ] {
        assert!(names_a_limit_passed(yes.as_bytes()), "{yes}");
    }
    for no in [
        "OK",
        "ZERO_RESULTS",
        "NOT_FOUND",
        "LIMIT_OVERRIDE",
        "LimitOverride",
        "INVALID_REQUEST",
        "quota",
        "limit",
    ] {
        assert!(!names_a_limit_passed(no.as_bytes()), "{no}");
    }
}
