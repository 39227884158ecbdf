use super::*;
use chrono::TimeZone;

fn now() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2019, 6, 21, 17, 0, 0).unwrap()
}

#[test]
fn documented_rate_limit_bodies() {
    // (status, body, rate_limited, retry_after ms, reason, global)
    type Case<'a> = (u16, &'a [u8], bool, Option<u64>, Option<&'a str>, bool);
    let cases: &[Case<'_>] = &[
        // Slack (https://docs.slack.dev/apis/web-api/rate-limits): every Web API method
        // lists the `ratelimited` error; the body as clients log it.
        (429, br#"{"ok": false, "error": "ratelimited"}"#, true, None, Some("ratelimited"), false),
        // Discord's "Rate Limit Response Structure" (message, retry_after, global),
        // with the docs' 64.57 s shared-limit value
        (
            429,
            br#"{"message": "You are being rate limited.", "retry_after": 64.57, "global": false}"#,
            true,
            Some(64_570),
            None,
            false,
        ),
        (
            429,
            br#"{"message": "You are being rate limited.", "retry_after": 1.5, "global": true}"#,
            true,
            Some(1500),
            None,
            true,
        ),
        // GraphQL extensions.code (Apollo convention) and Linear's spelling
        (
            200,
            br#"{"errors":[{"message":"Rate limit exceeded","extensions":{"code":"RATE_LIMITED"}}]}"#,
            true,
            None,
            Some("RATE_LIMITED"),
            false,
        ),
        (
            400,
            br#"{"errors":[{"message":"ratelimit","extensions":{"code":"RATELIMITED"}}]}"#,
            true,
            None,
            Some("RATELIMITED"),
            false,
        ),
        // GitHub GraphQL: the error `type` on an exceeded limit (message illustrative)
        (
            200,
            br#"{"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded for user ID 1."}]}"#,
            true,
            None,
            Some("RATE_LIMITED"),
            false,
        ),
        // Salesforce REST: the body as logged from a 403 (`TotalRequests Limit exceeded.`)
        (
            403,
            br#"[{"message":"TotalRequests Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}]"#,
            true,
            None,
            Some("REQUEST_LIMIT_EXCEEDED"),
            false,
        ),
        // Telegram's parameters.retry_after
        (
            429,
            br#"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5","parameters":{"retry_after":5}}"#,
            true,
            Some(5000),
            None,
            false,
        ),
        // not rate limits
        (400, br#"{"error":"invalid_auth"}"#, false, None, None, false),
        (500, b"<html>upstream limit of patience</html>", false, None, None, false),
        (404, br#"{"message":"the word \"retry_after\": 5 in a string"}"#, false, None, None, false),
        (429, br#"{"retry_after": -3}"#, false, None, None, false),
        (429, br#"{"retry_after": 1e300}"#, true, Some(86_400_000), None, false),
        (200, b"", false, None, None, false),
    ];
    for (status, body, limited, wait, reason, global) in cases {
        let b = read(*status, body, now());
        let shown = String::from_utf8_lossy(body);
        assert_eq!(b.rate_limited, *limited, "{shown}");
        assert_eq!(
            b.retry_after.map(|d| d.as_millis() as u64),
            *wait,
            "{shown}"
        );
        assert_eq!(b.reason.as_deref(), *reason, "{shown}");
        assert_eq!(b.global, *global, "{shown}");
    }
}

#[test]
fn shopify_throttle_status_gives_a_quota_and_a_wait_for_the_requested_cost() {
    // A throttled GraphQL Admin reply, shaped as Shopify documents it ("Throttled",
    // errors and extensions top-level, actualQueryCost null); the numbers are
    // illustrative: (202 - 136) / 50 = 1.32 s, (1000 - 136) / 50 = 17.28 s.
    let body = br#"{"errors":[{"message":"Throttled","extensions":{"code":"THROTTLED","documentation":"https://shopify.dev/api/usage/limits"}}],"extensions":{"cost":{"requestedQueryCost":202,"actualQueryCost":null,"throttleStatus":{"maximumAvailable":1000.0,"currentlyAvailable":136,"restoreRate":50.0}}}}"#;
    let b = read(200, body, now());
    assert!(b.rate_limited);
    assert_eq!(b.reason.as_deref(), Some("THROTTLED"));
    assert_eq!(b.retry_after, Some(Duration::from_millis(1320)));
    assert_eq!(
        b.quota,
        vec![Quota {
            limit: Some(1000),
            remaining: Some(136),
            reset_after: Some(Duration::from_millis(17_280)),
            ..Quota::new("cost")
        }]
    );
    // A successful call's cost (illustrative numbers): a quota, no wait.
    let ok = br#"{"errors":[],"extensions":{"cost":{"requestedQueryCost":101,"actualQueryCost":46,"throttleStatus":{"maximumAvailable":1000.0,"currentlyAvailable":954,"restoreRate":50.0}}}}"#;
    let b = read(200, ok, now());
    assert!(!b.rate_limited);
    assert_eq!(b.retry_after, None);
    assert_eq!(b.quota[0].remaining, Some(954));
}

#[test]
fn github_graphql_rate_limit_object() {
    // The fields a query selects with `rateLimit { limit cost remaining resetAt }`.
    let body = br#"{"errors":[{"message":"x"}],"data":{"rateLimit":{"limit":5000,"cost":1,"remaining":4999,"resetAt":"2019-06-21T17:08:36Z"}}}"#;
    let b = read(200, body, now());
    assert!(!b.rate_limited);
    assert_eq!(
        b.quota,
        vec![Quota {
            limit: Some(5000),
            remaining: Some(4999),
            reset_after: Some(Duration::from_secs(516)),
            ..Quota::new("graphql")
        }]
    );
}

#[test]
fn only_the_prefix_is_read_and_a_truncated_body_still_yields_its_fields() {
    let mut body =
        br#"{"message": "You are being rate limited.", "retry_after": 2.5, "padding": ""#.to_vec();
    body.extend(std::iter::repeat_n(b'x', 10_000));
    let b = read(429, &body, now());
    assert_eq!(b.retry_after, Some(Duration::from_millis(2500)));
    // A marker past the prefix is not seen.
    let mut late = vec![b' '; MAX_BODY_PREFIX];
    late.extend_from_slice(br#"{"error":"ratelimited"}"#);
    assert_eq!(read(429, &late, now()), BodySignals::default());
}

#[test]
fn body_signals_fold_into_header_signals() {
    use crate::{Flavour, Headers};
    let fields: [(&str, &[u8]); 2] = [("Retry-After", b"1"), ("x-ratelimit-remaining", b"5")];
    let mut s = crate::read(200, &Headers::new(&fields), now(), Flavour::Auto);
    assert!(!s.rate_limited);
    let body = br#"{"errors":[{"message":"Throttled","extensions":{"code":"THROTTLED"}}],"extensions":{"cost":{"requestedQueryCost":202,"throttleStatus":{"maximumAvailable":1000.0,"currentlyAvailable":136,"restoreRate":50.0}}}}"#;
    s.absorb_body(read(200, body, now()));
    assert!(s.rate_limited);
    assert_eq!(s.retry_after, Some(Duration::from_millis(1320)));
    let policies: Vec<&str> = s.quota.iter().map(|q| q.policy.as_str()).collect();
    assert_eq!(policies, ["cost", "default"]);
}

#[test]
fn worth_reading_table() {
    let cases: &[(u16, &[u8], bool)] = &[
        (429, b"", true),
        (503, b"<html>", true),
        (200, br#"{"errors":[{"message":"x"}]}"#, true),
        (200, b"\n { \"errors\" : [1]}", true),
        (200, br#"{"errors":[]}"#, false),
        (200, br#"{"data":{"errors":1}}"#, false),
        (200, br#"{"results":[],"status":"ZERO_RESULTS"}"#, false),
        (200, br#"{"results":[{"id":1}],"status":"OK"}"#, false),
        (200, br#"{"status":"OVER_QUERY_LIMIT","results":[]}"#, true),
        (200, br#"{"code":"RATE_LIMIT_EXCEEDED"}"#, true),
        (
            200,
            br#"{"Response":{"InstanceSet":[],"RequestId":"x"}}"#,
            false,
        ),
        (
            200,
            br#"{"Response":{"Error":{"Code":"LimitExceeded"}}}"#,
            true,
        ),
        (
            200,
            br#"{"Response":{"Error":null,"RequestId":"x"}}"#,
            false,
        ),
        (200, b"", false),
        (302, b"{", false),
    ];
    for (status, body, want) in cases {
        assert_eq!(
            worth_reading(*status, body),
            *want,
            "{status} {:?}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn throttled_envelopes_in_success_bodies_are_read() {
    for b in [
        &br#"{"error":["EAPI:Rate limit exceeded"],"result":{}}"#[..],
        br#"{"retCode":10006,"retMsg":"Too many visits!","result":{}}"#,
        br#"{"error":{"type":"Exception","message":"Quota limit exceeded","code":4}}"#,
        br#"{"errcode":45009,"errmsg":"reach max api daily quota limit"}"#,
        // Google Maps Platform web services: a 200 whose `status` is the throttle.
        br#"{"error_message":"You have exceeded your rate-limit for this API.","results":[],"status":"OVER_QUERY_LIMIT"}"#,
        br#"{"results":[],"status":"OVER_DAILY_LIMIT"}"#,
        // Tencent Cloud API 3.0: every answer wrapped in `Response`.
        br#"{"Response":{"Error":{"Code":"RequestLimitExceeded","Message":"Your current request times equals to `21` in a second, which exceeds the frequency limit `20` for a second."},"RequestId":"b5b41468-520d-4192-b42f-595cc34b6c1c"}}"#,
    ] {
        assert!(
            read(200, b, now()).rate_limited,
            "{}",
            String::from_utf8_lossy(b)
        );
    }
}

#[test]
fn success_bodies_wrapped_or_coded_as_throttles_are_read() {
    // (body, wait the ban states)
    let cases: &[(&[u8], Option<Duration>)] = &[
        // An error wrapper object, the wait in its `sub_msg`.
        (
            br#"{"error_response":{"code":7,"msg":"App Call Limited","sub_code":"accesscontrol.limited-by-app-access-count","sub_msg":"This ban will last 71 more seconds"}}"#,
            Some(Duration::from_secs(71)),
        ),
        (
            br#"{"errorResponse":{"code":"CALL_LIMITED","message":"The block will last 2 more minutes"}}"#,
            Some(Duration::from_secs(120)),
        ),
        // A status wrapper.
        (
            br#"{"id":"","base_resp":{"status_code":1002,"status_msg":"rate limit exceeded(RPM)"}}"#,
            None,
        ),
        // A failure code beside a throttle message.
        (
            br#"{"code":40100,"message":"Too many requests. Please retry in some time.","data":{}}"#,
            None,
        ),
        (
            br#"{"msg":"Daily quota exceeded","status_code":7,"data":null}"#,
            None,
        ),
        // Words of a passed limit under a failed status.
        (
            br#"{"status":"0","info":"CUQPS_HAS_EXCEEDED_THE_LIMIT","infocode":"10019"}"#,
            None,
        ),
        (
            br#"{"status":"0","info":"ACCESS_TOO_FREQUENT","infocode":"10004"}"#,
            None,
        ),
        (
            br#"{"success":false,"error":{"code":104,"type":"usage_limit_reached"}}"#,
            None,
        ),
    ];
    for (b, wait) in cases {
        let text = String::from_utf8_lossy(b);
        assert!(worth_reading(200, b), "{text}");
        let got = read(200, b, now());
        assert!(got.rate_limited, "{text}");
        assert_eq!(got.retry_after, *wait, "{text}");
    }
    // The same shapes saying nothing of a limit leave a 200 alone.
    for b in [
        &br#"{"base_resp":{"status_code":0,"status_msg":"success"},"reply":"hi"}"#[..],
        br#"{"code":40002,"message":"Invalid advertiser id","data":{}}"#,
        br#"{"status":"0","info":"INVALID_USER_KEY","infocode":"10001"}"#,
        br#"{"success":false,"error":{"code":101,"type":"missing_access_key"}}"#,
        br#"{"error_response":{"code":15,"msg":"Remote service error","sub_msg":"Amount exceeds the card limit"}}"#,
    ] {
        let text = String::from_utf8_lossy(b);
        assert!(
            !worth_reading(200, b) || !read(200, b, now()).rate_limited,
            "{text}"
        );
    }
}

#[test]
fn a_limit_passed_in_words_throttles_an_error_and_its_rate_object_is_the_budget() {
    let t = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
    // A 402 that says its daily limit is used up, in words.
    let b = read(
        402,
        br#"{"status_code":402,"error":"Project Over Limit","message":"Usage is over limit."}"#,
        t,
    );
    assert!(b.rate_limited);
    // A 402 repeating its `rate` budget: limit, remaining and the reset (epoch).
    let b = read(
        402,
        br#"{"rate":{"limit":2500,"remaining":0,"reset":1748822400},"status":{"code":402,"message":"quota exceeded"}}"#,
        t,
    );
    assert!(b.rate_limited);
    assert_eq!(b.quota.len(), 1, "{:?}", b.quota);
    assert_eq!(
        (b.quota[0].limit, b.quota[0].remaining),
        (Some(2500), Some(0))
    );
    assert_eq!(b.quota[0].reset_after, Some(Duration::from_secs(43_200)));
    // A `rate` that is a price, in a throttled reply, is no budget.
    let b = read(
        429,
        br#"{"message":"quota exceeded","rate":{"amount":"0.25","currency":"EUR"}}"#,
        t,
    );
    assert!(b.quota.is_empty(), "{:?}", b.quota);
    // Limits on other things are no throttle.
    for body in [
        &br#"{"error":"Amount exceeds the card limit"}"#[..],
        br#"{"message":"Upload exceeds the file size limit"}"#,
        br#"{"error":{"message":"limit must be over 0","param":"limit"}}"#,
    ] {
        assert!(
            !read(400, body, t).rate_limited,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn reset_times_and_worded_waits_count_only_on_throttled_replies() {
    let s = Duration::from_secs;
    // Close: `rate_reset` seconds on a 429.
    let b = br#"{"error":{"rate_reset":2.5,"message":"API call count exceeded for this 15 second window"}}"#;
    assert_eq!(
        read(429, b, now()).retry_after,
        Some(Duration::from_millis(2500))
    );
    // Sellercloud: a reset time.
    let b = br#"{"Error":"Too many requests.","RateLimitResetTime":"2019-06-21T17:00:30Z"}"#;
    assert_eq!(read(429, b, now()).retry_after, Some(s(30)));
    // monday.com: the wait in the message.
    let b = br#"{"error_message":"Complexity budget exhausted, query cost 30001 budget remaining 19986 out of 1000000 reset in 3 seconds"}"#;
    assert_eq!(read(429, b, now()).retry_after, Some(s(3)));
    // monday.com: `retry_in_seconds`.
    let b = br#"{"errors":[{"extensions":{"code":"COMPLEXITY_BUDGET_EXHAUSTED","retry_in_seconds":60}}]}"#;
    assert_eq!(read(429, b, now()).retry_after, Some(s(60)));
    // A reset named by nothing else, on a throttle: Slite's quota error, and the same
    // as a bare epoch.
    let b = br#"{"name":"AskQuotaExceededError","message":"Ask quota reached","status":429,"limit":50,"resetDate":"2019-06-21T17:10:00.000Z"}"#;
    assert_eq!(read(429, b, now()).retry_after, Some(s(600)));
    let b = br#"{"error":"too_many_requests","reset_at":1561136490}"#;
    assert_eq!(read(429, b, now()).retry_after, Some(s(90)));
    // A reset that is some other thing's, or a bare reset on an ordinary error, is not.
    let b = br#"{"error":"too_many_requests","password_reset":1561136490}"#;
    assert_eq!(read(429, b, now()).retry_after, None);
    let b = br#"{"message":"Invalid filter","resetDate":"2019-06-21T17:10:00Z"}"#;
    assert_eq!(read(400, b, now()).retry_after, None);
    // On an ordinary error the same words are information, not a wait.
    let b = br#"{"message":"Token expired; reset in 30 seconds","quota_reset":30}"#;
    let r = read(400, b, now());
    assert_eq!((r.retry_after, r.rate_limited), (None, false));
}

#[test]
fn a_successful_graphql_answer_reports_its_own_quota_wherever_it_sits() {
    let now = chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap();
    // Shopify puts `extensions` after `data`: past the first 4 KiB of a large answer.
    let data = "x".repeat(20_000);
    let shopify = format!(
        r#"{{"data":{{"blob":"{data}"}},"extensions":{{"cost":{{"requestedQueryCost":12,"actualQueryCost":12,"throttleStatus":{{"maximumAvailable":1000.0,"currentlyAvailable":54,"restoreRate":50.0}}}}}}}}"#
    );
    let b = read_success(shopify.as_bytes(), now).expect("a quota");
    assert_eq!(b.quota.len(), 1);
    assert_eq!(
        (b.quota[0].limit, b.quota[0].remaining),
        (Some(1000), Some(54))
    );
    assert!(!b.rate_limited && b.retry_after.is_none());
    // GitHub's selected rateLimit, at the start.
    let github = br#"{"data":{"rateLimit":{"limit":5000,"cost":1,"remaining":12,"resetAt":"2023-11-14T22:43:20Z"},"viewer":{"login":"octocat"}}}"#;
    let b = read_success(github, now).expect("a quota");
    assert_eq!(
        (b.quota[0].limit, b.quota[0].remaining),
        (Some(5000), Some(12))
    );
    // An ordinary answer, and one that only mentions the word in its data, say nothing.
    assert!(read_success(br#"{"items":[1,2,3]}"#, now).is_none());
    assert!(read_success(br#"{"note":"see rateLimit docs"}"#, now).is_none());
}

#[test]
fn graphql_deprecation_notices_on_a_success_become_warnings() {
    let now = now();
    // monday.com's documented answer for a query deprecated in 2023-10.
    let body = br#"{"data":{"items_by_column_values":[{"id":"4579863854","name":"Develop messaging"}]},"extensions":{"warnings":[{"message":"Replaced by Query.items_page_by_column_values since 2023-10","locations":[{"line":2,"column":3}],"path":["query","items_by_column_values"],"extensions":{"code":"deprecatedField"}}]}}"#;
    let b = read_success(body, now).expect("a notice");
    assert_eq!(
        b.warnings,
        ["Replaced by Query.items_page_by_column_values since 2023-10"]
    );
    assert!(b.quota.is_empty() && b.retry_after.is_none() && !b.rate_limited);
    let mut s = crate::read(200, &crate::Headers::new(&[]), now, crate::Flavour::Auto);
    s.absorb_body(b.clone());
    s.absorb_body(b);
    assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
    // Shopify's cost block and a notice in the same short body: one quota, one notice.
    let both = br#"{"data":{},"extensions":{"deprecations":[{"field":"title","reason":"Use name"}],"cost":{"requestedQueryCost":1,"actualQueryCost":1,"throttleStatus":{"maximumAvailable":1000.0,"currentlyAvailable":999,"restoreRate":50.0}}}}"#;
    let b = read_success(both, now).expect("a quota and a notice");
    assert_eq!(b.quota.len(), 1, "{:?}", b.quota);
    assert_eq!(b.warnings, ["`title` is deprecated: Use name"]);
    // An extensions object without notices says nothing.
    assert!(read_success(br#"{"data":{},"extensions":{"traceId":"abc"}}"#, now).is_none());
}

#[test]
fn dates_in_the_answers_meta_date_its_retirement() {
    let now = now();
    // A flag with the end date and the deprecation date beside it, in `meta`.
    let body = br#"{"data":{"id":"42"},"meta":{"deprecated":true,"deprecated_at":"2025-01-15","sunset":"2026-03-31","successor":"/v2/orders/42"}}"#;
    let d = read_success(body, now)
        .and_then(|b| b.deprecation)
        .expect("a deprecation");
    assert!(d.deprecated);
    assert_eq!(
        d.since,
        Some(Utc.with_ymd_and_hms(2025, 1, 15, 0, 0, 0).unwrap())
    );
    assert_eq!(
        d.sunset,
        Some(Utc.with_ymd_and_hms(2026, 3, 31, 0, 0, 0).unwrap())
    );
    // A sunset at the top of the answer, or in its data, is the sun's.
    for body in [
        &br#"{"sunrise":"2025-06-01T04:47:05Z","sunset":"2025-06-01T21:09:12Z"}"#[..],
        br#"{"data":{"sunset":"2025-06-01T21:09:12Z"},"meta":{"count":1}}"#,
        br#"{"meta":{"updated":"2025-06-01T10:00:00Z"}}"#,
    ] {
        let d = read_success(body, now).and_then(|b| b.deprecation);
        assert!(d.is_none(), "{}", String::from_utf8_lossy(body));
    }
}

#[test]
fn an_answer_that_is_only_a_sentence_is_read_for_what_it_says() {
    let now = now();
    // Alpha Vantage's throttled answers, old and new.
    for body in [
        &br#"{"Note": "Thank you for using Alpha Vantage! Our standard API call frequency is 5 calls per minute and 500 calls per day. Please visit https://www.alphavantage.co/premium/ if you would like to target a higher API call frequency."}"#[..],
        br#"{"Information": "Thank you for using Alpha Vantage! Our standard API rate limit is 25 requests per day. Please subscribe to any of the premium plans to instantly remove all daily rate limits."}"#,
    ] {
        assert!(worth_reading(200, body), "{}", String::from_utf8_lossy(body));
        assert!(read(200, body, now).rate_limited);
    }
    // A sentence beside data, a sentence that says nothing of limits, a sentence under
    // a name that is data: not throttled.
    for body in [
        &br#"{"Note": "API call frequency is 5 calls per minute", "Meta Data": {"2. Symbol": "IBM"}}"#[..],
        br#"{"message": "Created"}"#,
        br#"{"message": "Welcome to the API. Rate limits apply, see the docs."}"#,
        br#"{"title": "Rate limits explained"}"#,
    ] {
        assert!(
            !worth_reading(200, body) || !read(200, body, now).rate_limited,
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn a_successful_answer_asking_to_back_off_gives_its_wait() {
    let now = now();
    // Stack Exchange closes its wrapper with `backoff` beside the quota.
    let body = br#"{"items":[{"question_id":1}],"has_more":true,"backoff":10,"quota_max":300,"quota_remaining":297}"#;
    let b = read_success(body, now).expect("a wait and a quota");
    assert_eq!(b.retry_after, Some(Duration::from_secs(10)));
    assert!(!b.rate_limited, "nothing was refused");
    assert_eq!(b.quota.len(), 1);
    // Alone, it is still the answer's wait.
    let alone = read_success(br#"{"items":[],"backoff":2}"#, now).expect("a wait");
    assert_eq!(alone.retry_after, Some(Duration::from_secs(2)));
    // A `backoff` nested in data, or not a number, is configuration.
    for data in [
        &br#"{"spec":{"retryStrategy":{"limit":"10","backoff":{"duration":"1","factor":"2"}}}}"#[..],
        br#"{"items":[{"backoff":30}]}"#,
        br#"{"backoff":"exponential"}"#,
        br#"{"backoff":0}"#,
    ] {
        assert!(
            read_success(data, now).is_none_or(|b| b.retry_after.is_none()),
            "{}",
            String::from_utf8_lossy(data)
        );
    }
    // A huge number is capped like every other wait.
    let huge = read_success(br#"{"backoff":1e300}"#, now).expect("a wait");
    assert_eq!(huge.retry_after, Some(MAX_WAIT));
}

#[test]
fn a_deprecated_flag_speaks_for_the_answer_only_in_its_metadata() {
    // A Homebrew formula: the record the answer describes is deprecated, not the API.
    let record = br#"{"name":"python@3.8","deprecated":true,"deprecation_date":"2024-10-14","deprecation_reason":"unsupported","versions":{"stable":"3.8.20"}}"#;
    assert!(read_success(record, now()).is_none_or(|b| b.deprecation.is_none()));
    // The same flag in `meta` is the answer's.
    let meta = br#"{"data":[{"id":1}],"meta":{"deprecated":true}}"#;
    assert!(
        read_success(meta, now())
            .and_then(|b| b.deprecation)
            .is_some_and(|d| d.deprecated)
    );
}

#[test]
fn a_refused_model_that_is_deprecated_is_a_deprecated_call() {
    // OpenAI's answer to a call naming a shut-down model.
    let body = br#"{"error":{"message":"The model `text-davinci-003` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations","type":"invalid_request_error","param":null,"code":"model_not_found"}}"#;
    let d = read(404, body, now()).deprecation.expect("a deprecation");
    assert!(d.deprecated);
    // A deprecated field of the model is only a part.
    let part = br#"{"error":{"message":"The field `logprobs` of this model is deprecated"}}"#;
    assert!(read(400, part, now()).deprecation.is_none());
}

#[test]
fn a_throttle_wait_named_with_its_unit_is_read_and_zero_is_none() {
    // Bungie's envelope: `ThrottleSeconds` with ErrorCode 31 ThrottleLimitExceeded.
    let throttled = read(
        429,
        br#"{"Response":null,"ErrorCode":31,"ThrottleSeconds":10,"ErrorStatus":"ThrottleLimitExceeded","Message":"Too many requests."}"#,
        now(),
    );
    assert!(throttled.rate_limited);
    assert_eq!(throttled.retry_after, Some(Duration::from_secs(10)));
    // Every other error carries `ThrottleSeconds: 0`: no wait, no throttle.
    let invalid = read(
        400,
        br#"{"Response":null,"ErrorCode":7,"ThrottleSeconds":0,"ErrorStatus":"ParameterParseFailure","Message":"Unable to parse your parameters."}"#,
        now(),
    );
    assert_eq!(invalid.retry_after, None);
    assert!(!invalid.rate_limited);
    // A bare `throttle` is a setting, not a wait.
    let setting = read(400, br#"{"error":"invalid","throttle":5}"#, now());
    assert_eq!(setting.retry_after, None);
}

#[test]
fn a_retry_instant_is_a_wait_only_on_a_throttled_reply() {
    let t0 = Utc.with_ymd_and_hms(2022, 5, 31, 9, 0, 0).unwrap();
    // MetaApi's TooManyRequestsError.
    let throttled = read(
        429,
        br#"{"id":1,"error":"TooManyRequestsError","message":"The API allows 10 requests per 60s.","metadata":{"recommendedRetryTime":"2022-05-31T09:00:52.361Z"}}"#,
        t0,
    );
    assert!(throttled.rate_limited);
    assert_eq!(throttled.retry_after, Some(Duration::from_millis(52_361)));
    // A job's next attempt in a validation error is the job's data.
    let data = read(
        422,
        br#"{"message":"Invalid payload","job":{"next_retry_at":"2022-05-31T10:00:00Z"}}"#,
        t0,
    );
    assert_eq!(data.retry_after, None);
}

#[test]
fn the_instant_the_next_call_is_allowed_is_a_wait_on_a_throttled_reply() {
    let t0 = Utc.with_ymd_and_hms(2021, 3, 30, 5, 50, 30).unwrap();
    // WSO2 API Manager's throttled fault, its instant in the gateway's own spelling.
    let wso2 = read(
        429,
        br#"{"fault":{"code":900802,"message":"Message throttled out","description":"You have exceeded your quota","nextAccessTime":"2021-Mar-30 05:51:00+0000 UTC"}}"#,
        t0,
    );
    assert!(wso2.rate_limited);
    assert_eq!(wso2.retry_after, Some(Duration::from_secs(30)));
    // Another spelling of the same member, an epoch in milliseconds.
    let epoch = read(
        429,
        br#"{"error":"too_many_requests","next_request_at":1617083490000}"#,
        t0,
    );
    assert_eq!(epoch.retry_after, Some(Duration::from_secs(60)));
    // A schedule's next run, or a next page, names no allowed call.
    let data = read(
        400,
        br#"{"error":"invalid cron","next_run_time":"2021-03-30T06:00:00Z","nextPageAt":"2021-03-30T06:00:00Z"}"#,
        t0,
    );
    assert_eq!(data.retry_after, None);
}

#[test]
fn a_budget_object_in_a_throttled_error_is_one_quota() {
    let t0 = Utc.with_ymd_and_hms(2015, 6, 1, 9, 49, 0).unwrap();
    // SoundCloud's play limit, as its documentation shows the 429.
    let b = read(
        429,
        br#"{"errors":[{"meta":{"rate_limit":{"group":"plays","max_nr_of_requests":15000,"time_window":"PT24H"},"remaining_requests":0,"reset_time":"2015/06/01 09:49:40 +0000"}}]}"#,
        t0,
    );
    assert_eq!(b.quota.len(), 1, "{:?}", b.quota);
    let q = &b.quota[0];
    assert_eq!(q.policy, "plays");
    assert_eq!((q.limit, q.remaining), (Some(15000), Some(0)));
    assert_eq!(q.reset_after, Some(Duration::from_secs(40)));
    assert_eq!(q.window, Some(Duration::from_secs(86_400)));
    // Another spelling: a `quota` object holding its own counts and an epoch reset.
    let b = read(
        429,
        br#"{"error":{"code":"too_many_requests","quota":{"limit":100,"remaining":0,"reset":1433152200}}}"#,
        t0,
    );
    assert_eq!(b.quota.len(), 1, "{:?}", b.quota);
    assert_eq!(
        (b.quota[0].limit, b.quota[0].remaining),
        (Some(100), Some(0))
    );
    assert_eq!(b.quota[0].reset_after, Some(Duration::from_secs(60)));
    // A validation error that echoes a rate-limit setting is not throttled: no budget.
    let setting = read(
        400,
        br#"{"error":"invalid endpoint","endpoint":{"rate_limit":{"limit":100,"remaining":100}}}"#,
        t0,
    );
    assert!(setting.quota.is_empty(), "{:?}", setting.quota);
}

#[test]
fn a_body_that_repeats_429_as_its_own_status_is_a_throttle() {
    // Twelve Data answers a spent minute with a 200 error envelope.
    let body = br#"{"code":429,"message":"You have run out of API credits for the current minute. 9 API credits were used, with the current limit being 8.","status":"error"}"#;
    assert!(worth_reading(200, body));
    assert!(read(200, body, now()).rate_limited);
    // As a string with its reason phrase.
    assert!(
        read(
            200,
            br#"{"httpStatus":"429 TOO_MANY_REQUESTS","status":"error"}"#,
            now()
        )
        .rate_limited
    );
    // Another status, a longer number, or a 429 inside the data is not.
    assert!(
        !read(
            200,
            br#"{"code":4290,"status":"error","message":"Bad symbol"}"#,
            now()
        )
        .rate_limited
    );
    assert!(
        !read(
            200,
            br#"{"status":"error","message":"Bad symbol","data":{"code":429}}"#,
            now()
        )
        .rate_limited
    );
    assert!(!read(400, br#"{"code":400,"message":"Bad symbol"}"#, now()).rate_limited);
}

#[test]
fn a_body_notice_is_structured_as_a_warning_text_is() {
    // A GraphQL answer's notices (Visma Business NXT's `extensions.warnings`, an Apollo
    // plugin's `extensions.deprecations`) and a JSON answer's top-level `warning` reach
    // `notices` read as a `Warning: 299` text: deprecated or not, and what replaces it.
    // (body, per notice: says deprecated, the replacement it names)
    type Case<'a> = (&'a [u8], &'a [(bool, Option<&'a str>)]);
    let cases: &[Case<'_>] = &[
        (
            br#"{"data":{"node":{"id":"1"}},"extensions":{"warnings":[
                {"message":"The field 'legacyId' is deprecated; use 'id'","path":["node"]},
                {"message":"Query complexity is close to the limit"}]}}"#,
            &[(true, Some("id")), (false, None)],
        ),
        (
            br#"{"data":{"chart":{"w":1}},"extensions":{"deprecations":[
                {"field":"w","reason":"w is retired. Please use widthInPx"}]}}"#,
            &[(true, Some("widthInPx"))],
        ),
        (
            br#"{"warning":"method_deprecated","ok":true,"items":[]}"#,
            &[(true, None)],
        ),
    ];
    for (body, want) in cases {
        let mut s = crate::Signals::default();
        s.absorb_body(read_success(body, now()).expect("a notice is read"));
        let got: Vec<(bool, Option<&str>)> = s
            .notices
            .iter()
            .map(|n| (n.deprecation, n.successor.as_deref()))
            .collect();
        assert_eq!(&got, want, "{}", String::from_utf8_lossy(body));
        assert!(s.notices.iter().all(|n| n.code == 299));
        assert_eq!(s.notices.len(), s.warnings.len());
    }
}

#[test]
fn body_notices_join_header_notices_once_and_bounded() {
    let mut s = crate::Signals::default();
    s.warnings.push("v1 is deprecated; use v2".to_owned());
    s.notices
        .push(crate::warning::body_notice("v1 is deprecated; use v2"));
    let many: Vec<String> = (0..40).map(|i| format!("notice {i}")).collect();
    s.absorb_body(BodySignals {
        warnings: std::iter::once("v1 is deprecated; use v2".to_owned())
            .chain(many)
            .collect(),
        ..BodySignals::default()
    });
    // The text the headers already gave is not repeated; the rest stops at the cap.
    assert_eq!(s.notices.len(), crate::warning::MAX_NOTICES);
    assert_eq!(
        s.notices
            .iter()
            .filter(|n| n.text.starts_with("v1"))
            .count(),
        1
    );
}

#[test]
fn a_budget_selected_in_the_answers_data_is_the_answers() {
    // Codex's GraphQL `apiUsage` (used, limit and remaining of the billing period, as
    // decimal strings) and the same budget under other names and envelopes.
    let budgets: &[(&[u8], u64, u64)] = &[
        (
            br#"{"data":{"apiUsage":{"unit":"REQUESTS","used":"812750","limit":"1000000","remaining":"187250","percentUsed":81.275}}}"#,
            1_000_000,
            187_250,
        ),
        (
            br#"{"data":{"requestUsage":{"limit":100,"remaining":60}},"extensions":{}}"#,
            100,
            60,
        ),
        (
            br#"{"data":{"api_usage":{"limit":"500","remaining":"0"}}}"#,
            500,
            0,
        ),
        (
            br#"{"data":{"rateLimit":{"limit":5000,"remaining":4990}}}"#,
            5000,
            4990,
        ),
    ];
    for (body, limit, remaining) in budgets {
        let found = read_success(body, now()).expect("a budget is read");
        let q = &found.quota[0];
        assert_eq!(
            (q.limit, q.remaining),
            (Some(*limit), Some(*remaining)),
            "{}",
            String::from_utf8_lossy(body)
        );
        assert!(!found.rate_limited);
    }
    // Data, not the API's budget: deeper than the envelope, a bare `usage` (an LLM
    // answer's tokens, a plan's storage), a usage with no quota, a list as `data`.
    for body in [
        &br#"{"data":{"project":{"id":1,"quota":{"limit":5,"remaining":1}}}}"#[..],
        br#"{"id":"c1","usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}}"#,
        br#"{"data":{"usage":{"limit":100,"remaining":3}}}"#,
        br#"{"data":{"apiUsage":{"used":"52110","limit":null,"remaining":null}}}"#,
        br#"{"data":[{"apiUsage":{"limit":10,"remaining":2}}]}"#,
        br#"{"data":{"apiUsage":"1000000"}}"#,
    ] {
        let quota = read_success(body, now())
            .map(|b| b.quota)
            .unwrap_or_default();
        assert!(
            quota.is_empty(),
            "{}: {quota:?}",
            String::from_utf8_lossy(body)
        );
    }
}

/// A lone count of the calls left, named as exactly that, is the caller's budget without
/// its size; the same words about anything else, nested in the data, or beside a fuller
/// budget are not read this way.
#[test]
fn a_lone_count_of_calls_left_is_a_budget() {
    let now = now();
    for (body, left) in [
        // Crawlbase's scraper, its page beside the count.
        (
            &br#"{"original_status":200,"pc_status":200,"remaining_requests":125279,"url":"https://example.com/","body":{"name":"x"}}"#[..],
            125_279,
        ),
        (br#"{"results":[{"id":1}],"requestsLeft":42}"#, 42),
        (br#"{"calls_remaining": 7, "answer": "ok"}"#, 7),
    ] {
        let b = read_success(body, now).expect("a quota");
        assert_eq!(b.quota.len(), 1, "{}", String::from_utf8_lossy(body));
        assert_eq!(b.quota[0].remaining, Some(left));
        assert_eq!(b.quota[0].limit, None);
    }
    for body in [
        &br#"{"remaining_items":4,"items":[]}"#[..],
        br#"{"remaining_attempts":2}"#,
        br#"{"data":{"remaining_requests":5}}"#,
        br#"{"remaining_requests":"many"}"#,
        br#"{"max_remaining_requests_per_user":5}"#,
    ] {
        assert!(
            read_success(body, now).is_none_or(|b| b.quota.is_empty()),
            "{}",
            String::from_utf8_lossy(body)
        );
    }
    // A fuller budget beside it is the one read.
    let full = br#"{"quota_max":100,"quota_remaining":60,"remaining_requests":60}"#;
    let b = read_success(full, now).expect("a quota");
    assert_eq!(b.quota[0].limit, Some(100));
}

/// The reset of a lone count of calls left is the sibling named by the same calls and a
/// reset, in the shapes a reset header takes; a reset of something else, or of a count
/// not stated, is no reset of it.
#[test]
fn a_lone_count_of_calls_left_takes_its_siblings_reset() {
    let now = now();
    let at = now.timestamp() + 3600;
    for body in [
        // Weatherbit's subscription usage: an epoch under `calls_reset_ts`.
        format!(
            r#"{{"calls_count":"20","calls_remaining":55,"calls_reset_ts":{at},"historical_calls_remaining":232,"historical_calls_reset_ts":{}}}"#,
            at + 7200
        ),
        format!(
            r#"{{"requestsLeft":55,"requestsResetAt":"{}"}}"#,
            (now + chrono::Duration::hours(1)).to_rfc3339()
        ),
        r#"{"remaining_requests":55,"requests_reset":3600}"#.to_owned(),
    ] {
        let b = read_success(body.as_bytes(), now).expect("a quota");
        assert_eq!(b.quota[0].remaining, Some(55), "{body}");
        assert_eq!(
            b.quota[0].reset_after,
            Some(Duration::from_secs(3600)),
            "{body}"
        );
    }
    for body in [
        // A reset of something else beside the count.
        format!(r#"{{"calls_remaining":55,"password_reset_at":{at}}}"#),
        format!(r#"{{"calls_remaining":55,"calls_reset_reason":"{at}"}}"#),
    ] {
        let b = read_success(body.as_bytes(), now).expect("a quota");
        assert_eq!(b.quota[0].reset_after, None, "{body}");
    }
    // A reset alone states no count: nothing is read.
    let alone = format!(r#"{{"calls_reset_ts":{at},"answer":"ok"}}"#);
    assert!(read_success(alone.as_bytes(), now).is_none_or(|b| b.quota.is_empty()));
}

/// A `rateLimit` object keyed by the query's fields holds one budget per field: what is
/// left, what was used (the two make the limit) and the seconds to the reset; a field
/// without a remaining count is skipped, and GitHub's flat object is still one budget.
#[test]
fn a_rate_limit_object_per_field_gives_a_quota_per_field() {
    let now = now();
    let body = br#"{"data":{"quote":"q","books":[]},"extensions":{"rateLimit":{"Query.quote":{"remaining":2,"consumed":1,"resets":15},"Query.books":{"remaining":0,"used":3,"reset":"40"},"Mutation.note":{"consumed":1}}}}"#;
    let b = read_success(body, now).expect("quotas");
    let q = |p: &str| b.quota.iter().find(|q| q.policy == p).unwrap();
    assert_eq!(q("Query.quote").remaining, Some(2));
    assert_eq!(q("Query.quote").limit, Some(3));
    assert_eq!(q("Query.quote").reset_after, Some(Duration::from_secs(15)));
    assert_eq!(q("Query.books").limit, Some(3));
    assert_eq!(q("Query.books").reset_after, Some(Duration::from_secs(40)));
    assert_eq!(b.quota.len(), 2, "{:?}", b.quota);
    let github = br#"{"data":{"rateLimit":{"limit":5000,"cost":1,"remaining":4999,"resetAt":"2019-06-21T18:00:00Z"}}}"#;
    let b = read_success(github, now).expect("a quota");
    assert_eq!(b.quota.len(), 1);
    assert_eq!(b.quota[0].policy, "graphql");
}

#[test]
fn a_limit_code_beside_a_message_about_another_limit_is_no_throttle() {
    for body in [
        // Danipa's 422: a money transfer's daily ceiling.
        &br#"{"error":{"code":"DAILY_LIMIT_EXCEEDED","message":"Transaction would exceed daily sending limit","details":{"field":"source.amount"}},"request_id":"req_abc123"}"#[..],
        br#"{"code":"LIMIT_EXCEEDED","message":"The upload exceeds the file size limit"}"#,
        br#"{"errorCode":"QUOTA_EXCEEDED","errorMessage":"Storage quota of the workspace is full"}"#,
    ] {
        let s = read(422, body, now());
        assert!(!s.rate_limited, "{}", String::from_utf8_lossy(body));
    }
    // The same codes beside a message about calls, or a code naming a throttle
    // outright, still throttle.
    for body in [
        &br#"{"error":{"code":"DAILY_LIMIT_EXCEEDED","message":"Daily API call limit reached"}}"#[..],
        br#"{"code":"RATE_LIMITED","message":"The upload exceeds the file size limit"}"#,
        br#"{"code":"LIMIT_EXCEEDED","message":"Transactions per second limit exceeded"}"#,
    ] {
        let s = read(422, body, now());
        assert!(s.rate_limited, "{}", String::from_utf8_lossy(body));
    }
}

#[test]
fn a_limit_code_beside_a_cjk_message_about_another_limit_is_no_throttle() {
    for body in [
        // SmartHR's 403 plan_limit_exceeded: the plan's head count, not calls.
        "{\"code\":7,\"type\":\"plan_limit_exceeded\",\"message\":\"上限人数に達しているため従業員の追加は出来ません\",\"errors\":null}",
        "{\"code\":\"LIMIT_EXCEEDED\",\"message\":\"文件大小超过限制\"}",
        "{\"errorCode\":\"QUOTA_EXCEEDED\",\"errorMessage\":\"저장 용량이 최대치를 초과했습니다\"}",
    ] {
        let s = read(403, body.as_bytes(), now());
        assert!(!s.rate_limited, "{body}");
        assert_eq!(s.retry_after, None, "{body}");
    }
    // The same code beside a CJK message about calls still throttles.
    for body in [
        "{\"code\":6,\"type\":\"plan_limit_exceeded\",\"message\":\"APIの呼び出し回数の上限に達しました\"}",
        "{\"code\":\"LIMIT_EXCEEDED\",\"message\":\"接口调用次数超过限制\"}",
    ] {
        assert!(read(403, body.as_bytes(), now()).rate_limited, "{body}");
    }
}

#[test]
fn a_refusal_that_tells_the_caller_to_wait_gives_the_wait() {
    let s = Duration::from_secs;
    let cases: &[(u16, &[u8], Option<Duration>)] = &[
        // Market Data's 403 (marketdata.app/docs/api/troubleshooting/multiple-ip-addresses).
        (
            403,
            br#"{"s":"error","errmsg":"Access denied. Only one device is permitted. Your IP address has changed, and your account is temporarily blocked for security reasons. Please wait 5 minutes before trying again."}"#,
            Some(s(300)),
        ),
        (409, br#"{"error":"An export is already running, retry after 2 minutes"}"#, Some(s(120))),
        (401, br#"{"detail":"Too many sign-in attempts. Try again in 15 minutes."}"#, Some(s(900))),
        // A time something happens at is no wait, on a refusal that says no throttle.
        (400, br#"{"message":"The reset link expires in 10 minutes"}"#, None),
        (403, br#"{"message":"Trial valid for 14 days; upgrade to continue"}"#, None),
    ];
    for (status, body, want) in cases {
        let got = read(*status, body, now());
        assert_eq!(got.retry_after, *want, "{}", String::from_utf8_lossy(body));
        assert!(!got.rate_limited, "{}", String::from_utf8_lossy(body));
    }
}

#[test]
fn a_code_naming_a_per_second_limit_throttles_a_403() {
    let now = chrono::DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    // DingTalk's gateway: the code names the QPS limit; the message, in Chinese, says
    // the call frequency passed it.
    let dingtalk = r#"{"code": "Forbidden.AccessDenied.QpsLimitForApi", "message": "调用频率超过限制", "requestid": "5D4C1B3A"}"#;
    assert!(super::read(403, dingtalk.as_bytes(), now).rate_limited);
    // The same denial without a limit in its code is not a throttle.
    let denied = r#"{"code": "Forbidden.AccessDenied", "message": "no permission", "requestid": "5D4C1B3A"}"#;
    assert!(!super::read(403, denied.as_bytes(), now).rate_limited);
}

#[test]
fn a_success_s_rate_limit_object_saying_what_is_left_is_its_budget() {
    let now = chrono::DateTime::from_timestamp(1_748_779_200, 0).unwrap();
    // Sportmonks: the object closes every answer, after the data.
    let filler = format!(r#"[{}]"#, vec![r#"{"id": 1, "name": "x"}"#; 400].join(","));
    let body = format!(
        r#"{{"data": {filler}, "rate_limit": {{"resets_in_seconds": 2481, "remaining": 2998, "requested_entity": "Fixture"}}, "timezone": "UTC"}}"#
    );
    let found = read_success(body.as_bytes(), now).expect("a budget");
    assert_eq!(found.quota.len(), 1, "{:?}", found.quota);
    assert_eq!(found.quota[0].remaining, Some(2998));
    assert_eq!(found.quota[0].reset_after, Some(Duration::from_secs(2481)));
    assert_eq!(found.retry_after, None);
    // A `rate_limit` object that says nothing of what is left is a setting the answer
    // describes (an API key's configured limit), not the caller's budget.
    let setting = br#"{"key": {"id": "k_1", "rate_limit": {"limit": 100, "period": "minute"}}}"#;
    assert!(read_success(setting, now).is_none_or(|f| f.quota.is_empty()));
}

#[test]
fn an_xml_rpc_fault_sent_with_a_200_is_read_and_its_answers_are_not() {
    let fault = b"<?xml version=\"1.0\"?>\n<methodResponse>\n  <fault><value><struct>\
        <member><name>faultCode</name><value><int>410</int></value></member>\
        <member><name>faultString</name><value><string>You must log in first.</string>\
        </value></member></struct></value></fault>\n</methodResponse>";
    assert!(worth_reading(200, fault));
    assert_eq!(
        read(200, fault, now()).recovery,
        Some(crate::recovery::Recovery::Credentials)
    );
    // An answer, even one whose data holds the word, and another XML document.
    for body in [
        &b"<?xml version=\"1.0\"?><methodResponse><params><param><value><string>&lt;fault&gt;\
           </string></value></param></params></methodResponse>"[..],
        b"<feed><fault>none</fault></feed>",
        b"  {\"methodResponse\": \"<fault>\"}",
    ] {
        assert!(
            !worth_reading(200, body),
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn an_xml_answer_whose_status_says_failure_beside_its_error_is_read() {
    let ack = b"<?xml version=\"1.0\"?><AddItemResponse><Ack>Failure</Ack><Errors>\
        <ShortMessage>Auth token is invalid.</ShortMessage><ErrorCode>931</ErrorCode>\
        </Errors></AddItemResponse>";
    assert!(worth_reading(200, ack));
    assert_eq!(
        read(200, ack, now()).recovery,
        Some(crate::recovery::Recovery::Credentials)
    );
    let result = b"<response><control><status>success</status></control><operation>\
        <result><status>failure</status><function>create</function><errormessage><error>\
        <errorno>BL01001973</errorno><description2>Record already exists</description2>\
        </error></errormessage></result></operation></response>";
    assert!(worth_reading(200, result));
    // A record whose status is failed, a success holding an error count, a page.
    for body in [
        &b"<jobs><job><status>failed</status><name>nightly</name></job></jobs>"[..],
        b"<response><status>success</status><errorCount>0</errorCount></response>",
        b"<html><body><status>error</status><error>x</error></body></html>",
    ] {
        assert!(
            !worth_reading(200, body),
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

/// A throttle said in Chinese, Japanese or Korean, and the wait it states.
#[test]
fn a_throttle_and_its_wait_said_in_chinese_japanese_or_korean() {
    let secs = |s| Some(Duration::from_secs(s));
    // 한국투자증권's EGW00201, sent with a 500 in a numbered message field.
    let b = read(
        500,
        r#"{"rt_cd":"1","msg_cd":"EGW00201","msg1":"초당 거래건수를 초과하였습니다."}"#.as_bytes(),
        now(),
    );
    assert!(b.rate_limited);
    for (status, body, wait) in [
        (
            429,
            r#"{"code":"RequestTooFrequently","message":"请求过于频繁，请60秒后再试"}"#,
            60,
        ),
        (
            400,
            r#"{"error":"리퀘스트 오류","message":"요청이 너무 많습니다. 10초 후에 다시 시도해 주세요."}"#,
            10,
        ),
        (
            403,
            r#"{"message":"APIの呼び出し回数の上限に達しました。1分後に再試行してください。"}"#,
            60,
        ),
    ] {
        let b = read(status, body.as_bytes(), now());
        assert!(b.rate_limited, "{body}");
        assert_eq!(b.retry_after, secs(wait), "{body}");
    }
    // A wrong parameter is no throttle; a token's lifetime is no wait.
    let b = read(
        400,
        r#"{"message":"参数错误,请检查请求参数是否正确"}"#.as_bytes(),
        now(),
    );
    assert!(!b.rate_limited);
    let b = read(
        401,
        r#"{"message":"令牌将在30分钟后过期"}"#.as_bytes(),
        now(),
    );
    assert!(!b.rate_limited);
    assert_eq!(b.retry_after, None);
}

#[test]
fn a_4xx_saying_the_called_endpoint_ended_says_the_upstream_no_longer_does_it() {
    use crate::recovery::Recovery;
    let now = chrono::DateTime::from_timestamp(1_780_000_000, 0).unwrap();
    let sunset =
        br#"{"errors":[{"message":"This endpoint has been sunset and is no longer supported."}]}"#;
    assert_eq!(read(400, sunset, now).recovery, Some(Recovery::Retired));
    let part = br#"{"message":"The 'not_in' query parameter is deprecated, use 'in' instead."}"#;
    assert_ne!(read(400, part, now).recovery, Some(Recovery::Retired));
    // Credentials refused keep their reading beside a retirement's words.
    let creds = br#"{"message":"Invalid API key. API v1 has been sunset."}"#;
    assert_eq!(read(401, creds, now).recovery, Some(Recovery::Credentials));
}

#[test]
fn a_numbered_status_beside_a_throttle_written_as_one_identifier_is_a_throttle() {
    // Viber's REST API answers every call with a 200; status 12 is its rate control.
    let body =
        br#"{"status": 12, "status_message": "tooManyRequests", "chat_hostname": "SN-CHAT-05_"}"#;
    assert!(worth_reading(200, body));
    assert!(read(200, body, now()).rate_limited);
    // A success, a failure of another kind, and a record's own status and message.
    for body in [
        br#"{"status": 0, "status_message": "ok"}"#.as_slice(),
        br#"{"status": 12, "status_message": "receiverNotRegistered"}"#.as_slice(),
        br#"{"status": 3, "status_message": "Shipment delayed: too many parcels"}"#.as_slice(),
    ] {
        assert!(
            !worth_reading(200, body),
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn a_query_over_a_limit_of_its_own_complexity_or_depth_is_no_throttle() {
    let now = Utc.timestamp_opt(1_700_000_000, 0).unwrap();
    for body in [
        r#"{"data":null,"errors":[{"message":"operation has complexity 512, which exceeds the limit of 200","extensions":{"code":"COMPLEXITY_LIMIT_EXCEEDED"}}]}"#,
        r#"{"errors":[{"message":"query depth 14 exceeds the maximum depth of 10","extensions":{"code":"DEPTH_LIMIT_EXCEEDED"}}]}"#,
    ] {
        assert!(!read(200, body.as_bytes(), now).rate_limited, "{body}");
    }
}

#[test]
fn the_end_of_the_period_a_throttle_counts_in_is_its_wait() {
    let now = Utc.timestamp_opt(1_748_779_200, 0).unwrap();
    let enphase = br#"{"reason": "409", "message": ["Usage limit exceeded for plan Watt"], "period": "minute", "period_start": 1748779180, "period_end": 1748779240, "limit": 10}"#;
    let b = read(409, enphase, now);
    assert!(b.rate_limited);
    assert_eq!(b.retry_after, Some(Duration::from_secs(40)));
    // A period's end in an answer that is not throttled is no wait.
    let report = br#"{"error": "invalid system id", "period_end": 1748779240}"#;
    assert_eq!(read(400, report, now).retry_after, None);
}

#[test]
fn a_success_flag_spelled_with_is_false_is_an_error_envelope_read_for_its_errors() {
    let now = Utc.timestamp_opt(1_748_779_200, 0).unwrap();
    let shelly = br#"{"isok": false, "errors": {"max_req": "Request limit reached!"}}"#;
    assert!(worth_reading(200, shelly));
    assert!(read(200, shelly, now).rate_limited);
    // The same flag true is an answer.
    let fine = br#"{"isok": true, "data": {"online": true}}"#;
    assert!(!worth_reading(200, fine));
}

mod not_json;

#[test]
fn a_budget_called_spent_beside_a_short_header_wait_is_a_window_that_passes() {
    let refusal = br#"{"status":429,"code":"QUOTA_EXCEEDED","message":"Out of resource quota."}"#;
    let read_with = |fields: &[(&str, &[u8])]| {
        let mut s = crate::read(
            429,
            &crate::Headers::new(fields),
            now(),
            crate::Flavour::Auto,
        );
        s.absorb_body(read(429, refusal, now()));
        s.recovery
    };
    // No wait stated: the account's budget.
    assert_eq!(read_with(&[]), Some(crate::recovery::Recovery::Account));
    // A throttle's short wait: the words' budget comes back with it.
    assert_eq!(read_with(&[("Retry-After", b"20")]), None);
    // A wait as long as a day's renewal leaves the account's reading.
    assert_eq!(
        read_with(&[("Retry-After", b"43200")]),
        Some(crate::recovery::Recovery::Account)
    );
}

/// A budget named for what it costs (`insufficient_quota`, "check your plan and billing
/// details") stays the account's beside a short header wait: the wait is when it renews.
#[test]
fn a_budget_named_for_its_plan_or_billing_stays_the_accounts_beside_a_short_header_wait() {
    let refusal = br#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}"#;
    let mut s = crate::read(
        429,
        &crate::Headers::new(&[("Retry-After", b"1")]),
        now(),
        crate::Flavour::Auto,
    );
    s.absorb_body(read(429, refusal, now()));
    assert_eq!(s.recovery, Some(crate::recovery::Recovery::Account));
}

#[test]
fn a_top_level_error_message_that_says_something_makes_a_success_an_error_envelope() {
    assert!(worth_reading(
        200,
        br#"{"Code":"InsufficientRetrievalResUnits","ErrorMessage":"Insufficient retrieval resource units available"}"#
    ));
    assert!(!worth_reading(
        200,
        br#"{"Code":"OK","ErrorMessage":"","Data":[]}"#
    ));
}

#[test]
fn one_line_of_text_naming_itself_an_error_and_its_code_is_an_error_envelope() {
    assert!(worth_reading(
        200,
        b"ERROR 132 :: API UNITS BALANCE IS ZERO"
    ));
    assert!(worth_reading(200, b"Error: invalid key\n"));
    // Data that mentions an error, and a report of errors over several lines, are data.
    assert!(!worth_reading(200, b"Errors seen today: none"));
    assert!(!worth_reading(200, b"error 1;row 1\nerror 2;row 2\n"));
    assert!(!worth_reading(200, b"Keyword;Position\nerror 404 page;3\n"));
}

#[test]
fn a_budget_whose_counts_are_written_for_people_is_counted() {
    for (body, limit, remaining) in [
        (
            &br#"{"quota":{"limit":"1.5k","remaining":"120"}}"#[..],
            1_500,
            120,
        ),
        (
            br#"{"rate_limit":{"limit":"10 000","remaining":"250"}}"#,
            10_000,
            250,
        ),
        (
            br#"{"rate_limit":{"limit":"10,000","remaining":"1,200"}}"#,
            10_000,
            1_200,
        ),
        (
            br#"{"rate_limit":{"limit":1e3,"remaining":12.0}}"#,
            1_000,
            12,
        ),
    ] {
        let b = read_success(body, now()).expect("a quota");
        let q = b.quota.first().expect("a quota");
        assert_eq!(
            (q.limit, q.remaining),
            (Some(limit), Some(remaining)),
            "{}",
            String::from_utf8_lossy(body)
        );
    }
    // Sizes written so in data are not a budget.
    assert!(
        read_success(br#"{"files":[{"name":"a.txt","size":"1.5k"}]}"#, now())
            .is_none_or(|b| b.quota.is_empty())
    );
}

#[test]
fn a_limit_object_saying_what_is_left_is_a_throttled_error_s_budget() {
    let t = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
    // Vercel's 429: the limit's total, what is left and its reset (epoch seconds).
    let b = read(
        429,
        br#"{"error":{"code":"rate_limited","message":"Rate limit exceeded","limit":{"remaining":0,"reset":1748779260,"resetMs":1748779260000,"total":100}}}"#,
        t,
    );
    assert_eq!(b.quota.len(), 1, "{:?}", b.quota);
    assert_eq!(
        (b.quota[0].limit, b.quota[0].remaining),
        (Some(100), Some(0))
    );
    assert_eq!(b.quota[0].reset_after, Some(Duration::from_secs(60)));
    // A `limit` that is one number a request passed is no budget.
    let b = read(
        429,
        br#"{"message":"Too many requests","limit":{"max":50,"requested":80}}"#,
        t,
    );
    assert!(b.quota.is_empty(), "{:?}", b.quota);
}

#[test]
fn rate_limit_headers_a_throttled_error_relays_are_its_budget() {
    let t = Utc.with_ymd_and_hms(2025, 6, 1, 12, 0, 0).unwrap();
    // OpenRouter's 429 for a free model's day: the upstream's headers in the metadata.
    let b = read(
        429,
        br#"{"error":{"message":"Rate limit exceeded: free-models-per-day.","code":429,"metadata":{"headers":{"X-RateLimit-Limit":"50","X-RateLimit-Remaining":"0","X-RateLimit-Reset":"1748822400000"},"provider_name":null}}}"#,
        t,
    );
    assert_eq!(b.quota.len(), 1, "{:?}", b.quota);
    assert_eq!(
        (b.quota[0].limit, b.quota[0].remaining),
        (Some(50), Some(0))
    );
    assert_eq!(b.quota[0].reset_after, Some(Duration::from_secs(43_200)));
    // A `headers` object of a request the error describes, with no budget, says nothing.
    let b = read(
        429,
        br#"{"message":"Too many requests","request":{"headers":{"Accept":"application/json"}}}"#,
        t,
    );
    assert!(b.quota.is_empty(), "{:?}", b.quota);
}
