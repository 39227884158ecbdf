use super::*;

fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(1_748_779_200, 0).unwrap_or_default()
}

fn read(body: &str) -> Vec<(Option<u64>, Option<u64>)> {
    quotas(body.as_bytes(), now())
        .iter()
        .map(|q| (q.limit, q.remaining))
        .collect()
}

#[test]
fn a_unit_that_calls_spend_counted_against_its_limit_is_a_budget_among_other_members() {
    // ScraperAPI's account: requests made of the limit, beside a concurrency setting.
    assert_eq!(
        read(
            r#"{"concurrencyLimit": 5, "failedRequestCount": 12, "requestCount": 4990, "requestLimit": 5000}"#
        ),
        [(Some(5000), Some(10))]
    );
    // ScrapingBee's usage: the most and the used of one unit.
    assert_eq!(
        read(r#"{"max_api_credit": 1000000, "used_api_credit": 998500, "max_concurrency": 10}"#),
        [(Some(1_000_000), Some(1500))]
    );
    // What an account holds, a page and a running total are no budget of calls.
    assert!(read(r#"{"id": 42, "maxStorage": 10737418240, "storageUsed": 5368709}"#).is_empty());
    assert!(read(r#"{"activations_used": 3, "activations_limit": 3}"#).is_empty());
    assert!(read(r#"{"result_count": 1, "result_limit": 100, "result_total": 1324}"#).is_empty());
    assert!(read(r#"{"usage_limit": 100, "times_used": 98}"#).is_empty());
    // A generation's own cap beside what it generated.
    assert!(read(r#"{"id": "gen-1", "max_tokens": 1024, "tokens_used": 312}"#).is_empty());
}

#[test]
fn a_count_per_period_is_the_limit_of_what_is_left_of_it() {
    // SerpApi's account answer.
    assert_eq!(
        read(
            r#"{"searches_per_month": 5000, "plan_searches_left": 37, "total_searches_left": 37, "this_month_usage": 4963}"#
        ),
        [(Some(5000), Some(37))]
    );
}

#[test]
fn an_object_named_for_what_it_counts_holds_bare_parts_and_their_reset() {
    // ipinfo's `/me`.
    assert_eq!(
        read(
            r#"{"token": "x", "requests": {"day": 48, "month": 49800, "limit": 50000, "remaining": 200}}"#
        ),
        [(Some(50000), Some(200))]
    );
    let q = quotas(
        br#"{"usage": {"limit": 1000, "used": 990, "reset": "2025-06-02T00:00:00Z"}}"#,
        now(),
    );
    assert_eq!((q[0].limit, q[0].remaining), (Some(1000), Some(10)));
    assert_eq!(
        q[0].reset_after,
        Some(std::time::Duration::from_secs(43200))
    );
    // A usage that never resets may be a plan's storage, and one inside the data is the
    // data's.
    assert!(read(r#"{"usage": {"limit": 10737418240, "used": 5368709}}"#).is_empty());
    assert!(read(r#"{"data": {"usage": {"limit": 100, "remaining": 3}}}"#).is_empty());
    // An LLM answer's token usage names no limit.
    assert!(
        read(
            r#"{"usage": {"prompt_tokens": 100, "completion_tokens": 900, "total_tokens": 1000}}"#
        )
        .is_empty()
    );
}
