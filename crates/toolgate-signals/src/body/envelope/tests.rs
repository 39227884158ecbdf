use super::*;

#[test]
fn error_members_with_a_value_make_an_envelope() {
    for b in [
            &br#"{"error":["EAPI:Rate limit exceeded"],"result":{}}"#[..],
            br#"{"error":{"code":"ratelimited","info":"..."}}"#,
            br#"{"error_code":18,"error_msg":"Open api qps request limit reached"}"#,
            br#"{"errcode":45009,"errmsg":"reach max api daily quota limit"}"#,
            br#"{"retCode":10006,"retMsg":"Too many visits!"}"#,
            br#"{"requestId":"e42b","success": false,"errors":[]}"#,
            br#" { "ok" :false, "error": "ratelimited"}"#,
            br#"{"data":null,"errors":[{"message":"Throttled"}]}"#,
            br#"{"meta":{"a":[1,{"b":"}"}]},"fault":{"faultstring":"Spike arrest violation"}}"#,
            br#"{"error":"a string cut off by the window, which is long enough to be cut"#,
            // JSend and Etherscan: a failed status word.
            br#"{"status":"0","message":"NOTOK","result":"Max rate limit reached"}"#,
            br#"{"status": "fail", "data": {"title": "A title is required"}}"#,
            br#"{"status":"error","message":"Too many requests"}"#,
            // A member named as the error's wrapper.
            br#"{"error_response":{"code":7,"msg":"App Call Limited"}}"#,
            br#"{"errorResponse":{"status":503}}"#,
            br#"{"error_info":{"reason":"QUOTA"},"items":[]}"#,
            // A failure code beside a message that says throttled.
            br#"{"code":40100,"message":"Too many requests. Please retry in some time.","data":{}}"#,
            br#"{"msg":"Daily quota exceeded","status_code":7,"data":null}"#,
            // Every item of a per-item result list refused for throttling.
            br#"{"message-count":"1","messages":[{"status":"1","error-text":"Throughput Rate Exceeded - please wait [ 20 ] and retry"}]}"#,
            br#"{"results":[{"code":429,"error":"RATE_LIMIT_EXCEEDED"},{"code":429,"error":"RATE_LIMIT_EXCEEDED"}]}"#,
            // The item's error in an object of its own (Expo's push tickets, and another
            // batch's `error: {code}`).
            br#"{"data":[{"status":"error","message":"Messages have been sent too frequently","details":{"error":"MessageRateExceeded"}}]}"#,
            br#"{"responses":[{"status":"failed","error":{"code":"QUOTA_EXCEEDED","message":"x"}}]}"#,
            // A status wrapper, read as top-level members.
            br#"{"id":"","base_resp":{"status_code":1002,"status_msg":"rate limit exceeded(RPM)"}}"#,
            br#"{"BaseResponse":{"code":3,"message":"request quota exceeded"}}"#,
        ] {
            assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
        }
}

#[test]
fn healthy_bodies_are_not_envelopes() {
    for b in [
            &br#"{"error":null,"result":{"items":[{"title":"HTTP 429 Too Many Requests"}]}}"#[..],
            br#"{"errcode":0,"errmsg":"ok","data":{}}"#,
            br#"{"retCode":0,"retMsg":"OK","result":{}}"#,
            br#"{"errors":[],"data":{}}"#,
            br#"{"errors": [ ], "data":{}}"#,
            br#"{"error":"","message":"Too many requests today"}"#,
            br#"{"error":false}"#,
            br#"{"jobs":[{"id":1,"success":false,"info":"rate limit exceeded"}]}"#,
            // One ticket sent, one refused: the list is data, not a refusal.
            br#"{"data":[{"status":"ok","id":"a"},{"status":"error","details":{"error":"MessageRateExceeded"}}]}"#,
            // A throttle named outside error members, in a ticket whose own error says
            // nothing (every ticket failing for another reason is read by
            // `items_tests.rs`).
            br#"{"data":[{"status":"error","details":{"note":"rate limit exceeded"}}]}"#,
            br#"{"data":{"error":"rate limited"},"ok":true}"#,
            br#"{"note":"\"error\": \"x\"","okay":false}"#,
            br#"{"success":true}"#,
            br#"{"status":"1","message":"OK","result":[]}"#,
            br#"{"status":0,"results":[]}"#,
            br#"{"status":"success","data":{}}"#,
            br#"{"data":{"status":"error"}}"#,
            br#"{"data":{"error":null}}"#,
            br#"{"ok":true,"messages":[{"text":"rate limit"}]}"#,
            // A per-item list with an item that went through, a log line's words, a
            // refusal for another reason, or no failure status.
            br#"{"messages":[{"status":"0","message-id":"x"},{"status":"1","error-text":"Throughput Rate Exceeded"}]}"#,
            br#"{"logs":[{"status":"error","message":"rate limit exceeded for user 42"}]}"#,
            br#"{"messages":[{"status":"0","error-text":"Throughput Rate Exceeded"}]}"#,
            br#"{"results":["RATE_LIMIT_EXCEEDED"]}"#,
            // Counts and rates of errors are data; a wrapper name needs an object.
            br#"{"error_count":3,"errorRate":0.02,"items":[]}"#,
            br#"{"error_response":null,"data":{}}"#,
            br#"{"errorDetails":"none","data":{}}"#,
            br#"{"data":{"error_response":{"code":7}}}"#,
            // A success code, or a message that does not say throttled.
            br#"{"code":0,"message":"Too many requests is not a problem here","data":{}}"#,
            br#"{"code":200,"message":"quota exceeded warnings cleared","data":{}}"#,
            br#"{"code":40002,"message":"Invalid advertiser id","data":{}}"#,
            br#"{"base_resp":{"status_code":0,"status_msg":"success"},"reply":"hi"}"#,
            br#"{"code":"40100","message":"Too many requests"}"#,
            br#"["error"]"#,
            b"plain text",
            b"",
        ] {
            assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
        }
}

#[test]
fn only_the_window_is_read() {
    let mut body = br#"{"items":""#.to_vec();
    body.extend(std::iter::repeat_n(b'x', WINDOW));
    body.extend(br#"","error":"late"}"#);
    assert!(!is_error_envelope(&body));
}

/// A result code beside a message saying a limit passed, in the header an envelope's
/// wrapper carries, is a throttle whatever the two members are called after; a result
/// code that reports success is not.
#[test]
fn result_codes_in_wrapped_headers() {
    for b in [
        // data.go.kr's JSON form, its code a string of digits.
        &br#"{"response":{"header":{"resultCode":"22","resultMsg":"LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR"}}}"#[..],
        br#"{"response":{"header":{"returnCode":"99","returnMsg":"Too many requests"}},"body":{}}"#,
        br#"{"Header":{"rspCode":4290,"rspMessage":"Daily call limit exceeded"},"Body":null}"#,
        br#"{"resultCode":"7","resultMessage":"quota exceeded","items":[]}"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        &br#"{"response":{"header":{"resultCode":"00","resultMsg":"NORMAL SERVICE."},"body":{"items":""}}}"#[..],
        br#"{"header":{"resultCode":0,"resultMessage":"SUCCESS","isSuccessful":true}}"#,
        // A code and a message that are the data's, not the answer's.
        br#"{"data":{"header":{"resultCode":"22","resultMsg":"quota exceeded"}}}"#,
        br#"{"countryCode":"22","message":"quota exceeded"}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

/// The same in XML: a failed result code beside a message saying a limit passed.
#[test]
fn result_codes_in_xml_answers() {
    for b in [
        &b"<OpenAPI_ServiceResponse><cmmMsgHeader><errMsg>SERVICE ERROR</errMsg><returnAuthMsg>LIMITED_NUMBER_OF_SERVICE_REQUESTS_EXCEEDS_ERROR</returnAuthMsg><returnReasonCode>22</returnReasonCode></cmmMsgHeader></OpenAPI_ServiceResponse>"[..],
        b"<?xml version=\"1.0\"?>\n<response><header><resultCode>99</resultCode><resultMsg>Too many requests</resultMsg></header></response>",
        b"<ns:Result xmlns:ns=\"urn:x\"><ns:returnCode>7</ns:returnCode><ns:returnMessage>Daily quota exceeded</ns:returnMessage></ns:Result>",
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        &b"<response><header><resultCode>00</resultCode><resultMsg>NORMAL SERVICE.</resultMsg></header><body/></response>"[..],
        b"<response><header><resultCode>03</resultCode><resultMsg>NO_DATA</resultMsg></header></response>",
        b"<html><body><p>resultCode 22 quota exceeded</p></body></html>",
        b"<items><item><code>22</code><name>quota exceeded</name></item></items>",
        b"<\xff\xfe",
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

/// A failed code told in words is an envelope whatever the failure, so its words are read
/// for what would fix it: a result code named so, a bare code beside a message and nothing
/// but codes, messages, ids and nulls, or a `type` naming a kind of error. A code beside a
/// message saying success, or beside data, and a record's own `type`, are not.
#[test]
fn a_failed_code_told_in_words_is_an_envelope() {
    for b in [
        &br#"{"returnCode":"1104","returnMessage":"The store is not one of the affiliated store."}"#[..],
        br#"{"response":{"header":{"resultCode":"03","resultMsg":"NODATA_ERROR"}}}"#,
        br#"{"code":"3001002","msg":"ip not permit, please add ip to white list first.","data":null}"#,
        br#"{"zhima_credit_score_get_response":{"code":"20001","msg":"Insufficient Token Permissions","sub_code":"aop.invalid-auth-token","sub_msg":"invalid token"}}"#,
        br#"{"code":40001,"message":"invalid credential, access_token is invalid or not latest"}"#,
        br#"{"type":"invalid_request_error","code":"invalid_email","detail":"Enter a valid email address.","attr":"email"}"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        &br#"{"resultCode":"01","resultMsg":"Txn Success","body":{"txnId":"2024"}}"#[..],
        br#"{"alipay_trade_query_response":{"code":"10000","msg":"Success","trade_no":"2013"}}"#,
        br#"{"code":"2024","message":"Welcome discount"}"#,
        br#"{"code":5,"message":"Order created","data":{"id":1}}"#,
        br#"{"code":7,"message":"Invalid advertiser id","items":[]}"#,
        br#"{"type":"error","message":"disk full","host":"db-1"}"#,
        br#"{"type":"Validation_Error","message":"x"}"#,
        "{\"resultCode\":\"1\",\"resultMsg\":\"处理成功\"}".as_bytes(),
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

#[test]
fn a_result_code_that_says_failure_in_a_word_is_an_envelope() {
    for b in [
        &br#"{"messages":{"resultCode":"Error","message":[{"code":"E00007","text":"User authentication failed due to invalid authentication values."}]}}"#[..],
        br#"{"resultCode":"FAILURE","resultMsg":"merchant not found"}"#,
        br#"<?xml version="1.0"?><ErrorResponse><messages><resultCode>Error</resultCode><message><code>E00003</code><text>Invalid amount</text></message></messages></ErrorResponse>"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        &br#"{"transactionResponse":{"responseCode":"1","transId":"60176113"},"messages":{"resultCode":"Ok","message":[{"code":"I00001","text":"Successful."}]}}"#[..],
        // A record's status beside its code is data.
        br#"<jobs><job><status>failed</status><code>JOB-7</code></job></jobs>"#,
        br#"{"messages":[{"role":"user","content":"error"}]}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

#[test]
fn graphql_errors_beside_data_are_a_partial_success() {
    for b in [
        &br#"{"data":{"user":{"id":"1"},"orders":null},"errors":[{"message":"Rate limit exceeded","extensions":{"code":"RATE_LIMITED"}}]}"#[..],
        br#"{"errors":[{"message":"Throttled","path":["orders"]}],"data":{"user":{"id":"1"}}}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        &br#"{"data":null,"errors":[{"message":"Throttled","extensions":{"code":"THROTTLED"}}]}"#[..],
        br#"{"errors":[{"message":"Unauthorized"}]}"#,
        br#"{"data":{},"errors":[{"message":"Unauthorized"}]}"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

/// A top-level status that says the request was not carried out makes an envelope (the
/// BLS Public Data API's 200 `REQUEST_NOT_PROCESSED`); a record's own status does not.
#[test]
fn a_status_saying_the_request_was_not_processed_is_an_envelope() {
    assert!(is_error_envelope(
        br#"{"status":"REQUEST_NOT_PROCESSED","responseTime":12,"message":["Request could not be serviced, as the daily threshold for total number of requests allocated to the user has been reached."],"Results":{}}"#
    ));
    assert!(is_error_envelope(
        br#"{"status":"requestNotCompleted","data":[]}"#
    ));
    for b in [
        &br#"{"status":"REQUEST_SUCCEEDED","responseTime":34,"message":[],"Results":{"series":[]}}"#[..],
        br#"{"status":"NOT_PROCESSED","order_id":"o-1"}"#,
        br#"{"status":"REQUEST_RECEIVED","id":"r-1"}"#,
        br#"{"status":"request processed not later than noon"}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

/// An error flag set, or a string `result` that names a failure, is an error envelope;
/// the flag unset, a result of data, or a result code `"0"` is not.
#[test]
fn error_flags_and_failed_result_words() {
    for b in [
        &br#"{"isError":true,"messages":["Limita de cereri depasita"],"results":[]}"#[..],
        br#"{"is_error": true, "message": "Too many requests"}"#,
        br#"{"hasErrors":true,"errors_list":[{"text":"Invalid key"}]}"#,
        br#"{"result":"error","message":"Token invalid"}"#,
        br#"{"result": "FAILED", "reason": "rate limit"}"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        &br#"{"isError":false,"messages":[],"results":[{"id":1}]}"#[..],
        br#"{"result":"0","message":"ok"}"#,
        br#"{"result":"errors counted: 0","items":[]}"#,
        br#"{"result":{"isError":true}}"#,
        br#"{"items":[{"isError":true}]}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

/// Kaltura answers every failure with a 200 whose object is an exception's
/// (`"objectType": "KalturaAPIException"`); a member naming the object's type with an
/// exception class marks an envelope, and any other type does not.
#[test]
fn an_object_typed_as_an_exception_is_an_error_envelope() {
    for body in [
        &br#"{"code":"INVALID_KS","message":"Invalid KS","objectType":"KalturaAPIException","args":[]}"#[..],
        br#"{"__type":"com.example.NotFoundException","message":"no such entry"}"#,
    ] {
        assert!(is_error_envelope(body), "{}", String::from_utf8_lossy(body));
    }
    for body in [
        &br#"{"objectType":"KalturaMediaEntry","id":"0_abc","name":"Exception handling 101"}"#[..],
        br#"{"type":"ExceptionReport","rows":[]}"#,
        br#"{"objectType":"KalturaMediaListResponse","objects":[],"totalCount":0}"#,
    ] {
        assert!(
            !is_error_envelope(body),
            "{}",
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn a_top_level_code_of_429_makes_an_envelope_without_words_beside_it() {
    for b in [
        &br#"{"code":429,"message":"","data":null}"#[..],
        br#"{"status_code":429,"status":"error","message":"error"}"#,
        br#"{"status":"429","error":"request refused"}"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    // A 429 inside the data is a record, and a code that only starts with 429 is
    // another code.
    assert!(!is_error_envelope(
        br#"{"data":[{"code":429,"name":"Too Many Requests"}]}"#
    ));
    assert!(!is_error_envelope(br#"{"code":"429-B","name":"Widget"}"#));
    assert!(!is_error_envelope(br#"{"code":4290,"name":"Widget"}"#));
    // A record whose own code is 429 is data: its other fields are not an envelope's.
    for b in [
        &br#"{"code":429,"name":"Widget","price":3}"#[..],
        br#"{"id":7,"code":429,"label":"Zone 429"}"#,
        br#"{"status":429,"count":3,"items":[1,2,3]}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    // An envelope's own members beside it, however they are spelled, keep it one.
    assert!(is_error_envelope(
        br#"{"Code":429,"Request-Id":"r-1","time_stamp":"2026-01-01","Data":{}}"#
    ));
}

#[test]
fn a_failed_stat_or_an_error_message_spelled_with_a_separator_makes_an_envelope() {
    for b in [
        &br#"{"stat":"fail","code":98,"message":"Invalid auth token"}"#[..],
        br#"{"error_message":"The provided API key is invalid.","results":[],"status":"REQUEST_DENIED"}"#,
        br#"{"results":[],"status":"INVALID_REQUEST","error-message":"Missing the 'address' parameter."}"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        &br#"{"stat":"ok","photos":{"page":1}}"#[..],
        br#"{"results":[],"status":"ZERO_RESULTS"}"#,
        br#"{"error_message":"","results":[],"status":"OK"}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}

#[test]
fn an_error_with_its_code_inside_the_replys_wrapper_or_a_refused_result_code_makes_an_envelope() {
    for b in [
        &br#"<?xml version="1.0"?><paymentService version="1.4"><reply><error code="5"><![CDATA[Could not find payment for order]]></error></reply></paymentService>"#[..],
        br#"{"pspReference":"V4HZ","refusalReason":"Expired Card","resultCode":"Refused"}"#,
        br#"{"resultCode":"Declined","id":"p1"}"#,
    ] {
        assert!(is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
    for b in [
        // Data whose third tag is an error without a code, and a result that went through.
        &br#"<?xml version="1.0"?><log><entry><error>disk at 91%</error></entry></log>"#[..],
        br#"{"pspReference":"V4HZ","resultCode":"Authorised"}"#,
    ] {
        assert!(!is_error_envelope(b), "{}", String::from_utf8_lossy(b));
    }
}
