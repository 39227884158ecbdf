use super::*;

fn now() -> DateTime<Utc> {
    DateTime::from_timestamp(1_748_779_200, 0).unwrap()
}

#[test]
fn sentences_in_code_fields_and_plain_text_bodies_are_messages() {
    let w = walk(
        br#"{"error":"Too many requests. Please retry after 30 seconds."}"#,
        now(),
    );
    assert_eq!(w.text_wait, Some(Duration::from_secs(30)));
    let w = walk(
        b"Rate limit exceeded. Please try again in 60 seconds.",
        now(),
    );
    assert!(w.throttled_text);
    assert_eq!(w.text_wait, Some(Duration::from_secs(60)));
    // A code is not a sentence, and markup is not plain text: a page's words keep
    // the wait they state (counted only on a throttled reply) but never say throttled.
    let w = walk(br#"{"error":"rate_limited_for_30_seconds"}"#, now());
    assert_eq!(w.text_wait, None);
    let w = walk(
        b"<html><body>Rate limited, try again in 9 seconds</body></html>",
        now(),
    );
    assert!(!w.throttled_text);
    assert_eq!(w.text_wait, Some(Duration::from_secs(9)));
}

#[test]
fn waits_in_every_common_form() {
    let cases: &[(&str, Option<Duration>)] = &[
        (r#"{"retry_after": 5}"#, Some(Duration::from_secs(5))),
        (
            r#"{"error":{"retryAfter": 12}}"#,
            Some(Duration::from_secs(12)),
        ),
        (
            r#"{"retry_after_ms": 1500}"#,
            Some(Duration::from_millis(1500)),
        ),
        (
            r#"{"details":{"retryAfterSeconds": 2}}"#,
            Some(Duration::from_secs(2)),
        ),
        (
            r#"{"d":[{"retryDelay":"0.021s"}]}"#,
            Some(Duration::from_millis(21)),
        ),
        (r#"{"retry_in":"1m30s"}"#, Some(Duration::from_secs(90))),
        (r#"{"wait_minutes": 2}"#, Some(Duration::from_secs(120))),
        // Every reader shares one unit vocabulary (`num::TimeUnit`).
        (
            r#"{"retry_after_hours": 2}"#,
            Some(Duration::from_secs(7200)),
        ),
        (
            r#"{"retryAfterMsec": "250"}"#,
            Some(Duration::from_millis(250)),
        ),
        (r#"{"cooldown_min": "1.5"}"#, Some(Duration::from_secs(90))),
        (
            r#"{"retry_after_seconds": "1m30s"}"#,
            Some(Duration::from_secs(90)),
        ),
        (r#"{"retry_after_hours": 100}"#, Some(MAX_WAIT)),
        (
            r#"{"retryDelay":{"seconds":4,"nanos":500000000}}"#,
            Some(Duration::from_millis(4500)),
        ),
        (
            r#"{"retryAfter": 9000000}"#,
            Some(Duration::from_secs(9_000)),
        ),
        (r#"{"retry_after": -1}"#, None),
        (r#"{"retry_after": "soon"}"#, None),
        (r#"{"wait": true}"#, None),
    ];
    for (body, want) in cases {
        assert_eq!(walk(body.as_bytes(), now()).wait, *want, "{body}");
    }
}

#[test]
fn a_bare_retry_with_a_unit_is_a_wait_and_without_one_is_not() {
    let cases: &[(&str, Option<Duration>)] = &[
        (r#"{"retry-seconds": 60}"#, Some(Duration::from_secs(60))),
        (
            r#"{"error":{"retryMs": 750}}"#,
            Some(Duration::from_millis(750)),
        ),
        (
            r#"{"retry_secs": "2.5"}"#,
            Some(Duration::from_millis(2500)),
        ),
        (r#"{"retry_minutes": 2}"#, Some(Duration::from_secs(120))),
        (r#"{"retry": 3}"#, None),
        (r#"{"retry": true}"#, None),
        (r#"{"retries": 5}"#, None),
        (r#"{"max_retry_seconds": 30}"#, None),
    ];
    for (body, want) in cases {
        assert_eq!(walk(body.as_bytes(), now()).wait, *want, "{body}");
    }
}

#[test]
fn throttle_words_and_ordinary_errors() {
    let throttled = [
        r#"{"__type":"ThrottlingException","message":"Rate exceeded"}"#,
        r#"{"error":{"message":"(#4) Application request limit reached","code":4}}"#,
        r#"{"errorType":"RATE_LIMIT"}"#,
        "<Error><Code>SlowDown</Code></Error>",
    ];
    for b in throttled {
        let w = walk(b.as_bytes(), now());
        assert!(w.reason.is_some() || w.throttled_text, "{b}");
    }
    let ordinary = [
        r#"{"error":{"type":"invalid_request_error","message":"Missing required param: amount."}}"#,
        r#"{"code":"PayloadTooLarge","message":"Body exceeds the size limit"}"#,
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
    ];
    for b in ordinary {
        let w = walk(b.as_bytes(), now());
        assert!(w.reason.is_none() && !w.throttled_text, "{b}");
    }
}

#[test]
fn fields_named_for_whose_message_they_are_are_messages() {
    // NHN Cloud's API Gateway: a 403 whose `resultMessage` says the quota is passed.
    let w = walk(
            br#"{"header":{"resultCode":20004,"resultMessage":"20004 Usage quota exceeded","isSuccessful":false}}"#,
            now(),
        );
    assert!(w.throttled_text);
    // Another gateway's `rtnMsg`, with the wait it states.
    let w = walk(
        br#"{"rtnCode":"-9","rtnMsg":"Too many requests, try again in 5 seconds"}"#,
        now(),
    );
    assert!(w.throttled_text);
    assert_eq!(w.text_wait, Some(Duration::from_secs(5)));
    // An ordinary result, a long name that only ends like one, and a bare ending.
    for b in [
        r#"{"resultCode":"00","resultMsg":"NORMAL SERVICE."}"#,
        r#"{"previousCustomerSupportMessage":"Too many requests last week"}"#,
        r#"{"xmsg":"rate limit"}"#,
    ] {
        let w = walk(b.as_bytes(), now());
        assert!(!w.throttled_text && w.text_wait.is_none(), "{b}");
    }
}

#[test]
fn deprecation_fields() {
    let w = walk(br#"{"error":{"sunset_date":"2025-01-15"}}"#, now());
    let d = w.deprecation.unwrap();
    assert!(d.sunset.is_some() && !d.deprecated && d.since.is_none());
    let w = walk(
        br#"{"deprecation":{"deprecated":false,"deprecation_date":"2026-02-01"}}"#,
        now(),
    );
    let d = w.deprecation.unwrap();
    assert!(!d.deprecated && d.since.is_some());
    assert!(
        walk(br#"{"deprecated": false}"#, now())
            .deprecation
            .is_none()
    );
}

#[test]
fn bounded_on_deep_and_wide_bodies() {
    let deep = format!("{}{}", "[".repeat(100), "]".repeat(100));
    assert!(walk(deep.as_bytes(), now()).wait.is_none());
    let wide = format!("[{}{{\"retry_after\":3}}]", "{\"a\":1},".repeat(2000));
    assert!(walk(wide.as_bytes(), now()).wait.is_none());
}

#[test]
fn a_description_that_says_whose_it_is_is_a_message() {
    // OAuth 2.0's `error_description` (RFC 6749 §5.2), as Podio's 420 fills it.
    let w = walk(
        br#"{"error":"rate_limit","error_description":"You have hit the rate limit. Please wait 300 seconds before trying again"}"#,
        now(),
    );
    assert!(w.throttled_text);
    assert_eq!(w.text_wait, Some(Duration::from_secs(300)));
    let w = walk(
        br#"{"errorCode":"E42","errorDescription":"Request rate exceeded; retry after 7 seconds"}"#,
        now(),
    );
    assert!(w.throttled_text);
    assert_eq!(w.text_wait, Some(Duration::from_secs(7)));
}

/// Numbered message fields are messages: 한국투자증권's `msg1` beside its `msg_cd`.
#[test]
fn numbered_message_fields_are_read_for_their_words() {
    let now = now();
    let w = walk(
        r#"{"rt_cd":"1","msg_cd":"EGW00201","msg1":"초당 거래건수를 초과하였습니다."}"#.as_bytes(),
        now,
    );
    assert!(w.throttled_text);
    let w = walk(
        br#"{"message2":"Rate limit exceeded, try again in 5 seconds"}"#,
        now,
    );
    assert!(w.throttled_text);
    assert_eq!(w.text_wait, Some(Duration::from_secs(5)));
    // A number is no message name, nor are three digits after one.
    assert!(!walk(br#"{"msg123":"Rate limit exceeded"}"#, now).throttled_text);
    assert!(!walk(br#"{"12":"Rate limit exceeded"}"#, now).throttled_text);
}

/// A throttle spelt with a hyphen ("rate-limited", "rate-limiting") is one; a limit on
/// something else beside a hyphen is not.
#[test]
fn a_hyphenated_rate_limit_is_a_throttle() {
    for b in [
        r#"{"overLimit":{"code":413,"message":"This request was rate-limited."}}"#,
        r#"{"error":"Request rate-limiting in effect for this key"}"#,
    ] {
        assert!(walk(b.as_bytes(), now()).throttled_text, "{b}");
    }
    let w = walk(
        br#"{"error":"The upload exceeds the size-limit of 10 MB"}"#,
        now(),
    );
    assert!(!w.throttled_text);
}

#[test]
fn throttles_and_waits_said_in_other_languages() {
    for (body, wait) in [
        (
            r#"{"mensagem":"Muitas requisições. Tente novamente em 20 segundos."}"#,
            Some(20),
        ),
        (
            r#"{"meldung":"Anfragelimit überschritten, bitte in 2 Minuten erneut versuchen"}"#,
            Some(120),
        ),
        (
            r#"{"error":{"message":"Przekroczono limit zapytań. Spróbuj ponownie za 15 sekund."}}"#,
            Some(15),
        ),
        (
            r#"{"message":"İstek limiti aşıldı, 5 dakika sonra deneyin"}"#,
            Some(300),
        ),
        (r#"{"message":"Quá nhiều yêu cầu"}"#, None),
    ] {
        let w = walk(body.as_bytes(), now());
        assert!(w.throttled_text, "{body}");
        assert_eq!(w.text_wait, wait.map(Duration::from_secs), "{body}");
    }
    // A limit of something else passed, in the same words, is no throttle.
    let w = walk(
        r#"{"mensagem":"Limite de crédito excedido para o cartão"}"#.as_bytes(),
        now(),
    );
    assert!(!w.throttled_text);
}

#[test]
fn a_budget_that_says_it_is_not_exceeded_gives_no_reset_wait() {
    // Three budgets listed on a throttle, the spent one flagged: its reset is the wait,
    // not the longest of all.
    let w = walk(
        br#"{"limits":[{"name":"perSecond","resetTime":1748779201,"exceeded":false},{"name":"perDay","resetTime":1748779800,"exceeded":true},{"name":"perMonth","resetTime":1750000000,"isExceeded":false}]}"#,
        now(),
    );
    assert_eq!(w.reset_wait, Some(Duration::from_secs(600)));
    // Without the flag every reset counts, and a budget flagged spent keeps its own.
    let w = walk(br#"{"quota":{"resetTime":1748779260}}"#, now());
    assert_eq!(w.reset_wait, Some(Duration::from_secs(60)));
    let w = walk(
        br#"{"quota":{"resetTime":1748779260,"exceeded":true}}"#,
        now(),
    );
    assert_eq!(w.reset_wait, Some(Duration::from_secs(60)));
    // Not exceeded and alone: no reset is a wait.
    let w = walk(
        br#"{"quota":{"resetTime":1748779260,"exceeded":false}}"#,
        now(),
    );
    assert_eq!(w.reset_wait, None);
}

#[test]
fn a_wait_field_written_in_the_digits_of_another_script_is_read() {
    let s = Duration::from_secs;
    for (body, want) in [
        (r#"{"retry_after": "۳۰"}"#, Some(s(30))),
        (r#"{"retryAfter": "३०"}"#, Some(s(30))),
        (r#"{"retry_after": "১৫"}"#, Some(s(15))),
        (r#"{"retry_after": "٦٠"}"#, Some(s(60))),
        (r#"{"retry_after": "１０"}"#, Some(s(10))),
        (
            r#"{"retry_after": "١٫٥"}"#,
            Some(Duration::from_millis(1500)),
        ),
        (
            r#"{"retry_after_ms": "۱۵۰۰"}"#,
            Some(Duration::from_millis(1500)),
        ),
        // Letters beyond ASCII are no digits; neither is a long run of them.
        (r#"{"retry_after": "۳۰ ثانیه"}"#, None),
        (r#"{"retry_after": "soon"}"#, None),
        (r#"{"retry_after": "۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱۱"}"#, None),
    ] {
        assert_eq!(walk(body.as_bytes(), now()).wait, want, "{body}");
    }
}
