use super::*;
use chrono::TimeZone;

fn learned_tool() -> std::sync::Arc<ToolSpec> {
    let yaml = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n";
    let config = crate::fixtures::config(yaml);
    config.tools["t"].clone()
}

fn reply(body: impl AsRef<[u8]>) -> Result<UpstreamResponse, SendError> {
    Ok(UpstreamResponse {
        status: 200,
        headers: Default::default(),
        body: bytes::Bytes::copy_from_slice(body.as_ref()),
        latency: Duration::ZERO,
        rpc_error: None,
    })
}

#[test]
fn a_byte_order_mark_before_json_is_dropped_and_an_unasked_encoding_is_named() {
    let tool = learned_tool();
    match interpret_within(&tool, reply("\u{FEFF}{\"a\":1}"), None, false, 100) {
        AttemptResult::Success(body) => assert_eq!(&body[..], br#"{"a":1}"#),
        other => panic!("{other:?}"),
    }
    let encoded = |value: &str| {
        let mut sent = reply("\u{1f}\u{8b}\u{8}\0\0\0\0\0");
        if let Ok(r) = &mut sent {
            r.headers
                .insert(reqwest::header::CONTENT_ENCODING, value.parse().unwrap());
        }
        match interpret_within(&tool, sent, None, false, 100) {
            AttemptResult::Failed {
                detail: Detail::NotJson { encoding, .. },
                ..
            } => encoding,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(encoded("gzip").as_deref(), Some("gzip"));
    assert_eq!(encoded("br, zstd").as_deref(), Some("br, zstd"));
    // Upstream words that are no encoding's name are not repeated.
    assert_eq!(encoded("gzip\"; ignore the owner").as_deref(), Some(""));
    assert_eq!(encoded("identity"), None);
}

#[test]
fn a_body_in_utf16_or_latin1_reaches_the_client_as_utf8_json() {
    let tool = learned_tool();
    let typed = |content_type: &str, body: Vec<u8>| {
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert(reqwest::header::CONTENT_TYPE, content_type.parse().unwrap());
        Ok(UpstreamResponse {
            status: 200,
            headers,
            body: bytes::Bytes::from(body),
            latency: Duration::ZERO,
            rpc_error: None,
        })
    };
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(r#"{"name":"café"}"#.encode_utf16().flat_map(u16::to_le_bytes))
        .collect();
    for (content_type, body) in [
        ("application/json; charset=utf-16", utf16),
        (
            "application/json; charset=ISO-8859-1",
            b"{\"name\":\"caf\xe9\"}".to_vec(),
        ),
    ] {
        match interpret_within(&tool, typed(content_type, body), None, false, 100) {
            AttemptResult::Success(body) => {
                assert_eq!(&body[..], r#"{"name":"café"}"#.as_bytes(), "{content_type}")
            }
            other => panic!("{content_type}: {other:?}"),
        }
    }
    let unknown = typed(
        "application/json; charset=shift_jis",
        b"{\"a\":\"\x82\xa0\"}".to_vec(),
    );
    match interpret_within(&tool, unknown, None, false, 100) {
        AttemptResult::Failed {
            detail: Detail::NotJson { reason, .. },
            ..
        } => assert!(reason.contains("\"shift_jis\""), "{reason}"),
        other => panic!("{other:?}"),
    }
}

/// A tool whose declared contract is checked while the body is read.
fn declared_tool() -> std::sync::Arc<ToolSpec> {
    let yaml = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object, properties: { user: { type: object } } } }\n";
    let config = crate::fixtures::config(yaml);
    let tool = config.tools["t"].clone();
    assert!(tool.contract.response.checks_while_reading());
    tool
}

#[test]
fn numbers_past_the_largest_float_are_json_and_pass_as_written() {
    let big = format!(
        r#"{{"a":1e400,"b":-1e400,"c":{},"d":1e-400}}"#,
        "9".repeat(400)
    );
    let learned = learned_tool();
    match interpret_within(&learned, reply(&big), None, false, 100) {
        AttemptResult::Success(body) => assert_eq!(&body[..], big.as_bytes()),
        other => panic!("{other:?}"),
    }
    let declared = |schema: &str| {
        let yaml = format!(
            "dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /x }}\n    contract: {{ version: \"1.0\", response_schema: {schema} }}\n"
        );
        crate::fixtures::config(&yaml).tools["t"].clone()
    };
    let numbers = declared(
        "{ type: object, properties: { a: { type: number }, b: { type: number, maximum: 0 }, c: { type: integer } } }",
    );
    assert!(matches!(
        interpret_within(&numbers, reply(&big), None, false, 100),
        AttemptResult::Success(_)
    ));
    // The contract still judges them: a string expected is drift, and so is a
    // number past a bound.
    for schema in [
        "{ type: object, properties: { a: { type: string } } }",
        "{ type: object, properties: { a: { type: number, maximum: 1000 } } }",
    ] {
        match interpret_within(&declared(schema), reply(&big), None, false, 100) {
            AttemptResult::Failed {
                class: ErrorClass::ContractDrift,
                detail: Detail::Drift(_),
                ..
            } => {}
            other => panic!("{schema}: {other:?}"),
        }
    }
    // A repeat after such a number is still found.
    match interpret_within(
        &learned,
        reply(r#"{"n":1e400,"role":"admin","role":"user"}"#),
        None,
        false,
        100,
    ) {
        AttemptResult::Failed {
            detail: Detail::RepeatedMember { .. },
            ..
        } => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_reply_naming_a_member_twice_is_refused_not_read_one_way() {
    // With a learned contract, and with a declared one the body is checked against
    // while it is read (which must not vouch for it).
    for tool in [learned_tool(), declared_tool()] {
        a_member_named_twice_is_refused_by(&tool);
    }
}

fn a_member_named_twice_is_refused_by(tool: &ToolSpec) {
    match interpret_within(
        tool,
        reply(r#"{"user":{"role":"admin","role":"viewer"}}"#),
        None,
        false,
        100,
    ) {
        AttemptResult::Failed { class, detail, .. } => {
            assert_eq!(class, ErrorClass::ContractDrift);
            let Detail::RepeatedMember { position, .. } = &detail else {
                panic!("{detail:?}")
            };
            assert_eq!(position, "line 1 column 30");
            assert_eq!(
                detail.drift_cause(),
                "the response body names a member twice in one object"
            );
        }
        other => panic!("{other:?}"),
    }
    match interpret_within(tool, reply(r#"{"role":"viewer"}"#), None, false, 100) {
        AttemptResult::Success(body) => assert_eq!(&body[..], br#"{"role":"viewer"}"#),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_body_of_more_values_than_the_limit_is_refused_before_it_is_parsed() {
    let tool = learned_tool();
    let nested = "[[[[[[1]]]]]]";
    match interpret_within(&tool, reply(nested), None, false, 7) {
        AttemptResult::Success(body) => assert_eq!(&body[..], nested.as_bytes()),
        other => panic!("{other:?}"),
    }
    match interpret_within(&tool, reply(nested), None, false, 6) {
        AttemptResult::Failed { class, detail, .. } => {
            assert_eq!(class, ErrorClass::ContractDrift);
            assert!(
                matches!(
                    detail,
                    Detail::TooManyValues {
                        status: Some(200),
                        limit: 6
                    }
                ),
                "{detail:?}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_410_that_speaks_of_a_retirement_is_one_and_a_deleted_item_is_not() {
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    let today = chrono::Utc.with_ymd_and_hms(2026, 12, 4, 0, 0, 0).unwrap();
    let retired = |body: &str, notice: Option<toolgate_signals::Deprecation>| {
        let mut s = Signals {
            deprecation: notice,
            ..Signals::default()
        };
        observe_retirement(&mut s, body.as_bytes(), now);
        s.deprecation
    };
    // GitHub's and Atlassian's words for an API that is gone.
    for body in [
        r#"{"message":"This API version has been retired.","documentation_url":"https://docs.github.com"}"#,
        r#"{"errorMessages":["The requested API has been removed. Please migrate to the /rest/api/3/search/jql API."]}"#,
    ] {
        let d = retired(body, None).expect(body);
        assert!(d.is_deprecated_at(now) && d.sunset == Some(today), "{d:?}");
    }
    // A Sunset still announced for later is overtaken by the 410 itself.
    let announced = toolgate_signals::Deprecation {
        sunset: Some(chrono::Utc.with_ymd_and_hms(2027, 6, 1, 0, 0, 0).unwrap()),
        ..Default::default()
    };
    let d = retired("Gone", Some(announced)).unwrap();
    assert!(d.deprecated && d.sunset == Some(today), "{d:?}");
    // A sunset already past stands, and the deprecation is no later than it.
    let past = chrono::Utc.with_ymd_and_hms(2025, 11, 1, 0, 0, 0).unwrap();
    let gone = toolgate_signals::Deprecation {
        sunset: Some(past),
        ..Default::default()
    };
    let d = retired("Gone", Some(gone)).unwrap();
    assert_eq!((d.since, d.sunset), (Some(past), Some(past)), "{d:?}");
    // An item deleted, said with a 410, is not the API retiring.
    assert_eq!(
        retired(r#"{"error":"this message was deleted"}"#, None),
        None
    );
}

/// What a failed reply's body says would fix it reaches the class: read once with the
/// signals, as the call path reads them, then classified.
#[test]
fn a_reply_is_classified_by_what_would_fix_it() {
    let tool = learned_tool();
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    let failing = |status: u16, body: &str| {
        let sent = Ok(UpstreamResponse {
            status,
            ..reply(body).unwrap_or_else(|e| panic!("{e:?}"))
        });
        let signals = read_signals(&tool, &sent, now);
        match interpret(&tool, sent, signals.as_ref(), false) {
            AttemptResult::Failed { class, .. } => class,
            AttemptResult::Success(_) => panic!("{status} {body} passed"),
        }
    };
    for (status, body, want) in [
        (
            429,
            r#"{"error":"Your daily allowance of 500 lookups has been used up; it renews at midnight UTC."}"#,
            ErrorClass::Account,
        ),
        (
            403,
            r#"{"message":"Export is not included in your plan"}"#,
            ErrorClass::Account,
        ),
        (402, "", ErrorClass::Account),
        (
            400,
            "<Error><Code>ExpiredToken</Code><Message>The provided token has expired.</Message></Error>",
            ErrorClass::Auth,
        ),
        (
            409,
            r#"{"error":{"code":"conflict","message":"Another import is in progress; try again later"}}"#,
            ErrorClass::ServerError,
        ),
        (
            400,
            r#"{"code":10,"message":"transaction aborted, please retry","details":[]}"#,
            ErrorClass::ServerError,
        ),
        (
            500,
            r#"{"error":{"status":"INVALID_ARGUMENT","message":"start must precede end"}}"#,
            ErrorClass::ClientError,
        ),
        (501, "Not Implemented", ErrorClass::ContractDrift),
        // Look-alikes keep their class: a throttle per minute, a conflict of names.
        (
            429,
            r#"{"error":"Too many requests per minute; please wait or upgrade your plan"}"#,
            ErrorClass::RateLimited,
        ),
        (
            409,
            r#"{"error":"A project with this name already exists"}"#,
            ErrorClass::ClientError,
        ),
    ] {
        assert_eq!(failing(status, body), want, "{status} {body}");
    }
}

/// What lenient parsers accept beside JSON (JSON5, JavaScript, Python's `json`) is not
/// JSON (RFC 8259): a reply of it is a failure naming it, never a success that some
/// reader downstream takes otherwise; and what is JSON, however odd, passes as the
/// bytes that were checked. Both the one-pass check (a declared contract) and the full
/// one (a learned contract) agree.
#[test]
fn only_json_passes_and_what_passes_is_the_text_that_was_checked() {
    let not_json: [&[u8]; 14] = [
        br#"{"a":1,}"#,
        br#"{"a":[1,2,]}"#,
        br#"{"a":1 /* note */}"#,
        b"// note\n{\"a\":1}",
        br#"{"a":NaN}"#,
        br#"{"a":[-Infinity]}"#,
        br#"{"a":Infinity}"#,
        br#"{'a':1}"#,
        br#"{a:1}"#,
        br#"{"a":01}"#,
        br#"{"a":1}{"b":2}"#,
        br#"{"a":"\ud800"}"#,
        br#"{"a":"\udc00x"}"#,
        b"{\"a\":\"\xff\xfe\"}",
    ];
    let odd_but_json: [&[u8]; 5] = [
        br#"{"__proto__":{"isAdmin":true},"constructor":{"prototype":{"isAdmin":true}}}"#,
        br#"{"a":"\ud83d\ude00","b":"\u0000"}"#,
        br#"{"a":1e999,"b":-1e999}"#,
        br#"{"a":"</script><script>alert(1)</script>"}"#,
        b" \t\r\n{\"a\":\"\xe2\x80\xae\"}\n",
    ];
    for tool in [declared_tool(), learned_tool()] {
        for body in not_json {
            match interpret_within(&tool, reply(body), None, false, 100) {
                AttemptResult::Failed {
                    detail: Detail::NotJson { .. },
                    ..
                } => {}
                other => panic!("{:?}: {other:?}", String::from_utf8_lossy(body)),
            }
        }
        for body in odd_but_json {
            match interpret_within(&tool, reply(body), None, false, 100) {
                AttemptResult::Success(checked) => assert_eq!(&checked[..], body),
                other => panic!("{:?}: {other:?}", String::from_utf8_lossy(body)),
            }
        }
    }
}

/// What a 200 turns into, read as the engine reads it.
fn two_hundred(tool: &ToolSpec, body: &str, now: chrono::DateTime<chrono::Utc>) -> AttemptResult {
    let sent = reply(body);
    let signals = read_signals(tool, &sent, now);
    interpret(tool, sent, signals.as_ref(), false)
}

#[test]
fn a_graphql_failure_sent_with_a_200_is_classified_by_its_errors() {
    let tool = learned_tool();
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    for (body, want) in [
        (
            r#"{"errors":[{"message":"Unauthenticated","extensions":{"code":"UNAUTHENTICATED"}}],"data":null}"#,
            ErrorClass::Auth,
        ),
        (
            r#"{"errors":[{"message":"Variable $id is invalid","extensions":{"code":"BAD_USER_INPUT"}}]}"#,
            ErrorClass::ClientError,
        ),
        (
            r#"{"errors":[{"message":"Throttled","extensions":{"code":"THROTTLED"}}]}"#,
            ErrorClass::RateLimited,
        ),
        (
            r#"{"data":null,"errors":[{"message":"oops","extensions":{"code":"INTERNAL_SERVER_ERROR"}}]}"#,
            ErrorClass::ServerError,
        ),
        (
            r#"{"data":null,"errors":[{"message":"item not found"}]}"#,
            ErrorClass::ClientError,
        ),
    ] {
        let told = two_hundred(&tool, body, now);
        let Some((class, 200, _)) = failed_by_status(&told) else {
            panic!("{body}: {told:?}");
        };
        assert_eq!(class, want, "{body}");
    }
    // Partial data, a business object with errors of its own and an empty list are data.
    for body in [
        r#"{"data":{"viewer":{"email":null}},"errors":[{"message":"no email","extensions":{"code":"FORBIDDEN"}}]}"#,
        r#"{"id":"imp_1","errors":[{"message":"row 3: bad email"}]}"#,
        r#"{"data":{"a":1},"errors":[]}"#,
    ] {
        assert!(
            matches!(two_hundred(&tool, body, now), AttemptResult::Success(_)),
            "{body}"
        );
    }
}

#[test]
fn a_grpc_status_in_the_headers_of_a_200_is_the_failure_it_names() {
    let tool = learned_tool();
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    let trailers_only = |code: &str, message: &str| {
        let mut sent = reply("");
        if let Ok(r) = &mut sent {
            r.headers.insert(
                reqwest::header::CONTENT_TYPE,
                "application/grpc-web+proto".parse().unwrap(),
            );
            r.headers.insert("grpc-status", code.parse().unwrap());
            r.headers.insert("grpc-message", message.parse().unwrap());
        }
        let signals = read_signals(&tool, &sent, now);
        interpret(&tool, sent, signals.as_ref(), false)
    };
    for (code, want) in [
        ("16", ErrorClass::Auth),
        ("5", ErrorClass::ClientError),
        ("8", ErrorClass::RateLimited),
        ("14", ErrorClass::ServerError),
        ("12", ErrorClass::ContractDrift),
    ] {
        let told = trailers_only(code, "told by the server");
        let Some((class, 200, excerpt)) = failed_by_status(&told) else {
            panic!("{code}: {told:?}");
        };
        assert_eq!(class, want, "{code}");
        assert!(excerpt.contains("told by the server"), "{excerpt}");
    }
    // OK, or a value that is no gRPC status, leaves the 2xx to its body.
    for code in ["0", "fine"] {
        assert!(
            failed_by_status(&trailers_only(code, "")).is_none(),
            "{code}"
        );
    }
}

/// The class, status and excerpt of a failure told by the reply's status line or its
/// stand-in (a gRPC status, a JSON-RPC error code), when `r` is one.
fn failed_by_status(r: &AttemptResult) -> Option<(ErrorClass, u16, &str)> {
    match r {
        AttemptResult::Failed {
            class,
            detail: Detail::Status { status, excerpt },
            ..
        } => Some((*class, *status, excerpt.as_str())),
        _ => None,
    }
}

/// One gRPC-web frame: its flag byte, its length, its payload.
fn grpc_web_frame(flag: u8, payload: &[u8]) -> Vec<u8> {
    let mut frame = vec![flag];
    frame.extend_from_slice(&u32::try_from(payload.len()).unwrap().to_be_bytes());
    frame.extend_from_slice(payload);
    frame
}

#[test]
fn a_grpc_status_in_the_trailers_frame_of_a_200_body_is_the_failure_it_names() {
    let tool = learned_tool();
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    let framed = |body: Vec<u8>| {
        let mut sent = reply(body);
        if let Ok(r) = &mut sent {
            r.headers.insert(
                reqwest::header::CONTENT_TYPE,
                "application/grpc-web+proto".parse().unwrap(),
            );
        }
        let signals = read_signals(&tool, &sent, now);
        interpret(&tool, sent, signals.as_ref(), false)
    };
    let message = grpc_web_frame(0, b"\x0a\x03abc");
    for (trailers, want) in [
        (
            &b"grpc-status:16\r\ngrpc-message:token%20expired\r\n"[..],
            ErrorClass::Auth,
        ),
        (
            b"Grpc-Status: 3\r\nGrpc-Message: page_size must be positive\r\n",
            ErrorClass::ClientError,
        ),
        // ABORTED passes: retried as a 5xx is, not told to the model as its fault.
        (
            b"grpc-status:10\r\ngrpc-message:conflict\r\n",
            ErrorClass::ServerError,
        ),
        (
            b"grpc-status:14\ngrpc-message:upstream connect error\n",
            ErrorClass::ServerError,
        ),
        (b"grpc-status:12\r\n", ErrorClass::ContractDrift),
    ] {
        for body in [
            grpc_web_frame(0x80, trailers),
            [message.clone(), grpc_web_frame(0x80, trailers)].concat(),
        ] {
            let told = framed(body);
            let Some((class, 200, excerpt)) = failed_by_status(&told) else {
                panic!("{trailers:?}: {told:?}");
            };
            assert_eq!(class, want, "{trailers:?}");
            assert!(excerpt.starts_with("grpc-status "), "{excerpt}");
        }
    }
    // OK in the trailers, a message that merely holds the words, a last frame that is a
    // message, and frames that do not fill the body exactly are no gRPC failure.
    for body in [
        [message.clone(), grpc_web_frame(0x80, b"grpc-status:0\r\n")].concat(),
        [
            grpc_web_frame(0, b"grpc-status:16"),
            grpc_web_frame(0x80, b"grpc-status:0\r\n"),
        ]
        .concat(),
        [grpc_web_frame(0x80, b"grpc-status:16\r\n"), message.clone()].concat(),
        [
            grpc_web_frame(0x80, b"grpc-status:16\r\n"),
            vec![0x80, 0, 0],
        ]
        .concat(),
        vec![0x80, 0xff, 0xff, 0xff, 0xff],
    ] {
        assert!(
            failed_by_status(&framed(body.clone())).is_none(),
            "{body:?}"
        );
    }
    // A body of another type is not looked into.
    let plain = grpc_web_frame(0x80, b"grpc-status:16\r\n");
    assert!(failed_by_status(&two_hundred(&tool, &String::from_utf8_lossy(&plain), now)).is_none());
}

#[test]
fn a_grpc_web_text_200_is_read_for_its_base64_trailers_frame() {
    let tool = learned_tool();
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    let text = |body: &str| {
        let mut sent = reply(body);
        if let Ok(r) = &mut sent {
            r.headers.insert(
                reqwest::header::CONTENT_TYPE,
                "application/grpc-web-text+proto".parse().unwrap(),
            );
        }
        let signals = read_signals(&tool, &sent, now);
        interpret(&tool, sent, signals.as_ref(), false)
    };
    // A message frame and a trailers frame (grpc-status 16, "token%20expired"), each
    // encoded on its own, as a server that flushes every frame writes them.
    let told = text(
        "AAAAAAUKA2FiYw==gAAAAC5ncnBjLXN0YXR1czoxNg0KZ3JwYy1tZXNzYWdlOnRva2VuJTIwZXhwaXJlZA0K",
    );
    let Some((class, 200, excerpt)) = failed_by_status(&told) else {
        panic!("{told:?}");
    };
    assert_eq!(class, ErrorClass::Auth);
    assert_eq!(excerpt, "grpc-status 16: token%20expired");
    // grpc-status 0: not a failure of its status.
    assert!(failed_by_status(&text("gAAAAA9ncnBjLXN0YXR1czowDQo=")).is_none());
}

#[test]
fn a_json_rpc_error_sent_with_a_200_is_classified_by_its_code_and_words() {
    let tool = declared_tool();
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    for (body, want) in [
        (
            r#"{"jsonrpc":"2.0","error":{"code":-32005,"message":"Node is behind by 42 slots"},"id":1}"#,
            ErrorClass::ServerError,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}"#,
            ErrorClass::ClientError,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}"#,
            ErrorClass::ContractDrift,
        ),
        (
            r#"{"result":null,"error":{"code":-8,"message":"Invalid parameter, expected hex txid"},"id":"1"}"#,
            ErrorClass::ClientError,
        ),
        (
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"header not found, try again later"}}"#,
            ErrorClass::ServerError,
        ),
    ] {
        match two_hundred(&tool, body, now) {
            AttemptResult::Failed {
                class,
                detail: Detail::Status { status: 200, .. },
                ..
            } => assert_eq!(class, want, "{body}"),
            other => panic!("{body}: {other:?}"),
        }
    }
    // A result, even one that holds a failure as data, is no JSON-RPC failure.
    let result = r#"{"jsonrpc":"2.0","id":1,"result":{"meta":{"err":{"InstructionError":[0]}}}}"#;
    assert!(failed_by_status(&two_hundred(&tool, result, now)).is_none());
}

#[test]
fn a_maintenance_page_sent_with_a_200_is_unavailability_only_when_the_contract_refuses_it() {
    let tool = declared_tool();
    let now = chrono::Utc
        .with_ymd_and_hms(2026, 12, 4, 15, 30, 0)
        .unwrap();
    let page = "<html><head><title>Down for maintenance</title></head><body>\
                <p>We'll be back at 16:00 UTC.</p></body></html>";
    match two_hundred(&tool, page, now) {
        AttemptResult::Failed { class, hint, .. } => {
            assert_eq!(class, ErrorClass::Overloaded);
            assert_eq!(hint, Some(Duration::from_secs(30 * 60)));
        }
        other => panic!("{other:?}"),
    }
    // No end named: what a bare 503 is (the contract wants `user` to be an object).
    let bare = r#"{"user":"none","message":"The service is under maintenance"}"#;
    assert!(matches!(
        two_hundred(&tool, bare, now),
        AttemptResult::Failed {
            class: ErrorClass::ServerError,
            hint: None,
            ..
        }
    ));
    // A record in maintenance is the data's word: the refused body stays drift.
    let record = r#"{"user":"u1","status":"under maintenance"}"#;
    assert!(matches!(
        two_hundred(&tool, record, now),
        AttemptResult::Failed {
            class: ErrorClass::ContractDrift,
            ..
        }
    ));
    // A body the contract accepts is data, whatever it says.
    let data = r#"{"user":{},"message":"The API is down for scheduled maintenance tonight"}"#;
    assert!(matches!(
        two_hundred(&tool, data, now),
        AttemptResult::Success(_)
    ));
}

/// A tool whose dependency is at `http://127.0.0.1:8123/api`.
fn tool_on_own_origin() -> std::sync::Arc<ToolSpec> {
    let yaml = "dependencies:\n  api: { base_url: \"http://127.0.0.1:8123/api\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n";
    let config = crate::fixtures::config(yaml);
    config.tools["t"].clone()
}

fn with_headers(status: u16, headers: &[(&str, &str)]) -> Result<UpstreamResponse, SendError> {
    let mut map = reqwest::header::HeaderMap::new();
    for (name, value) in headers {
        map.append(
            reqwest::header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            value.parse().unwrap(),
        );
    }
    Ok(UpstreamResponse {
        status,
        headers: map,
        body: bytes::Bytes::new(),
        latency: Duration::ZERO,
        rpc_error: None,
    })
}

/// Only the dependency's own scheme, host and port are the operator's: a successor, a
/// deprecation's page or a redirect the upstream names anywhere else (another host, the
/// cloud metadata address, a private address, the same host on another port) is a URL
/// a model could be sent to, so it is not named; a path, or a link on the dependency's
/// own origin, is.
#[test]
fn a_link_an_upstream_names_off_its_own_origin_never_reaches_the_model() {
    let tool = tool_on_own_origin();
    let now = chrono::Utc::now();
    let elsewhere = [
        "https://evil.example/v2",
        "//evil.example/v2",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:a9fe:a9fe]/v2",
        "http://10.0.0.7:8080/admin",
        "http://127.0.0.1:9999/api/v2",
        "https://127.0.0.1:8123/api/v2",
    ];
    for target in elsewhere {
        for rel in ["successor-version", "latest-version", "deprecation"] {
            let link = format!("<{target}>; rel=\"{rel}\"");
            let sent = with_headers(200, &[("deprecation", "true"), ("link", &link)]);
            let d = read_signals(&tool, &sent, now).and_then(|s| s.deprecation);
            let d = d.unwrap_or_else(|| panic!("{link}: no deprecation read"));
            assert!(d.deprecated, "{link}");
            assert_eq!((d.successor, d.info), (None, None), "{link}");
        }
        match interpret(
            &tool,
            with_headers(302, &[("location", target)]),
            None,
            false,
        ) {
            AttemptResult::Failed {
                detail: Detail::Redirect { location, .. },
                ..
            } => assert_eq!(location, None, "{target}"),
            other => panic!("{target}: {other:?}"),
        }
    }
    for own in [
        "/api/v2",
        "http://127.0.0.1:8123/api/v2",
        "//127.0.0.1:8123/api/v2",
    ] {
        let link = format!("<{own}>; rel=\"successor-version\"");
        let sent = with_headers(200, &[("deprecation", "true"), ("link", &link)]);
        let d = read_signals(&tool, &sent, now).and_then(|s| s.deprecation);
        assert!(d.and_then(|d| d.successor).is_some(), "{own}");
        match interpret(&tool, with_headers(307, &[("location", own)]), None, false) {
            AttemptResult::Failed {
                detail: Detail::Redirect { location, .. },
                ..
            } => assert!(location.is_some(), "{own}"),
            other => panic!("{own}: {other:?}"),
        }
    }
}

/// A tool at `http://127.0.0.1:8123/api` whose owner admitted `extra` origins.
fn tool_admitting(extra: &str) -> std::sync::Arc<ToolSpec> {
    let yaml = format!(
        "dependencies:\n  api:\n    base_url: \"http://127.0.0.1:8123/api\"\n{extra}tools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /x }}\n"
    );
    let config = crate::fixtures::config(&yaml);
    config.tools["t"].clone()
}

/// A deprecation's documentation on a separate docs host is kept for the owner's
/// incident once the owner admits that origin; the model is told it only when the
/// owner admitted the origin for the model too. Other hosts, and a redirect to the
/// admitted one, stay unnamed.
#[test]
fn a_deprecation_link_on_an_origin_its_owner_admitted_reaches_the_incident_and_the_model_only_where_admitted()
 {
    use crate::upstream::own_origin::for_model;
    let now = chrono::Utc::now();
    let headers = [
        ("deprecation", "true"),
        (
            "link",
            "<https://docs.example.com/deprecations/v1>; rel=\"deprecation\", <https://evil.example/v2>; rel=\"successor-version\"",
        ),
    ];
    let notice = |tool: &ToolSpec| {
        read_signals(tool, &with_headers(200, &headers), now)
            .and_then(|s| s.deprecation)
            .expect("a deprecation is read")
    };

    let owner_only = tool_admitting("    link_origins: [\"https://docs.example.com\"]\n");
    let kept = notice(&owner_only);
    assert_eq!(
        kept.info.as_deref(),
        Some("https://docs.example.com/deprecations/v1")
    );
    assert_eq!(kept.successor, None, "an origin nobody admitted");
    let incident = crate::watch::deprecation::incident(&owner_only, &kept);
    assert!(
        incident.detail.to_string().contains("docs.example.com"),
        "{}",
        incident.detail
    );
    let told = for_model(&owner_only.dependency, kept);
    assert_eq!((told.info, told.successor), (None, None));

    let for_both = tool_admitting("    model_link_origins: [\"https://docs.example.com\"]\n");
    let told = for_model(&for_both.dependency, notice(&for_both));
    assert_eq!(
        told.info.as_deref(),
        Some("https://docs.example.com/deprecations/v1")
    );

    // Without either list the link is the owner's no more than the model's.
    let neither = notice(&tool_on_own_origin());
    assert_eq!(neither.info, None);

    match interpret(
        &for_both,
        with_headers(302, &[("location", "https://docs.example.com/v2")]),
        None,
        false,
    ) {
        AttemptResult::Failed {
            detail: Detail::Redirect { location, .. },
            ..
        } => assert_eq!(location, None, "a redirect is not a deprecation link"),
        other => panic!("{other:?}"),
    }
}
