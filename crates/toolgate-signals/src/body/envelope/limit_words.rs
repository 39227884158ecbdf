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
        "Forbidden.AccessDenied.QpsLimitForApi",
        "QPS_LIMIT",
        "RpmLimit",
        "api.tps-limit",
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
        // A per-period word without `limit` after it, or a limit of something else.
        "QPS",
        "LimitQps",
        "Forbidden.AccessDenied",
        "RequestBodyLimit",
    ] {
        assert!(!names_a_limit_passed(no.as_bytes()), "{no}");
    }
}
