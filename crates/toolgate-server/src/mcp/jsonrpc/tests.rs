use super::*;

#[test]
fn a_message_of_the_wrong_shape_is_told_what_is_wrong_in_a_bounded_sentence() {
    let refused = |body: &str| match parse(body.as_bytes()) {
        Err(r) => r,
        Ok(m) => panic!("accepted: {m:?}"),
    };
    let twice = refused(r#"{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}"#);
    assert_eq!(twice.code, INVALID_REQUEST);
    assert!(
        twice.message.contains("duplicate field `method`"),
        "{}",
        twice.message
    );
    let deep = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"arguments":{{"a":{}{}}}}}}}"#,
        "[".repeat(5_000),
        "]".repeat(5_000)
    );
    let deep = refused(&deep);
    assert!(
        deep.message.starts_with("Invalid Request: ") || deep.message.starts_with("Parse error: "),
        "{}",
        deep.message
    );
    assert!(deep.message.contains("recursion limit"), "{}", deep.message);
    assert_eq!(cut_short("ab€cd", 3), "ab…", "cut at a character boundary");
    assert_eq!(cut_short("abc", 3), "abc");
}

fn id_of(body: &str) -> Result<String, Refusal> {
    match parse(body.as_bytes())? {
        Message::Request { id, .. } => Ok(id.json().to_owned()),
        other => panic!("not a request: {other:?}"),
    }
}

#[test]
fn ids_are_strings_or_i64_integers_echoed_as_received() {
    let req = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
    for ok in [
        "0",
        "7",
        "-3",
        "9223372036854775807",
        "-9223372036854775808",
    ] {
        assert_eq!(id_of(&req(ok)).as_deref(), Ok(ok), "{ok}");
    }
    for s in [r#""abc""#, r#""a\"b\u00e9""#, r#""""#] {
        assert_eq!(id_of(&req(s)).as_deref(), Ok(s), "{s}");
    }
    assert_eq!(id_of(&req("-0")).as_deref(), Ok("0"), "-0 is the integer 0");
    for bad in [
        "null",
        "1.5",
        "1.0",
        "1e3",
        "9223372036854775808",
        "18446744073709551616",
        "123456789012345678901234567890",
        "true",
        "{}",
        "[1]",
    ] {
        let refused = id_of(&req(bad)).expect_err(bad);
        assert_eq!(refused.code, INVALID_REQUEST, "{bad}");
    }
}

#[test]
fn malformed_bodies_are_parse_errors_and_the_rest_invalid_requests() {
    for body in ["{oops", "", "not json", "{\"jsonrpc\":\"2.0\",", "[1,"] {
        assert_eq!(
            parse(body.as_bytes()).unwrap_err().code,
            PARSE_ERROR,
            "{body}"
        );
    }
    for body in [
        "[]",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        "42",
        r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
        r#"{"id":1,"method":"ping"}"#,
        r#"{"jsonrpc":"2.0","id":1}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}"#,
        r#"{"jsonrpc":"2.0","id":1,"method":7}"#,
    ] {
        assert_eq!(
            parse(body.as_bytes()).unwrap_err().code,
            INVALID_REQUEST,
            "{body}"
        );
    }
    let refusal = parse(b"{oops").unwrap_err();
    let answer: Value = serde_json::from_slice(&refusal.to_json()).unwrap();
    assert_eq!(answer["id"], Value::Null);
    assert_eq!(answer["error"]["code"], PARSE_ERROR);
}

#[test]
fn notifications_and_replies_are_told_apart() {
    assert!(matches!(
        parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        Ok(Message::Notification { .. })
    ));
    match parse(br#"{"jsonrpc":"2.0","id":"tg-3","result":{"a":1}}"#) {
        Ok(Message::Reply {
            id: Some(id),
            outcome: Ok(result),
        }) => {
            assert_eq!(id.json(), "\"tg-3\"");
            assert_eq!(result.get(), r#"{"a":1}"#);
        }
        other => panic!("{other:?}"),
    }
    match parse(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-1,"message":"no"}}"#) {
        Ok(Message::Reply {
            id: None,
            outcome: Err(error),
        }) => assert!(error.get().contains("no")),
        other => panic!("{other:?}"),
    }
}

#[test]
fn errors_are_well_formed_json() {
    let id = Id("\"x\"".into());
    let e = error(
        Some(&id),
        INVALID_PARAMS,
        "bad \"name\"\n",
        Some(&serde_json::json!({"a": 1})),
    );
    let v: Value = serde_json::from_slice(&e).unwrap();
    assert_eq!(v["id"], "x");
    assert_eq!(v["error"]["message"], "bad \"name\"\n");
    assert_eq!(v["error"]["data"]["a"], 1);
}

/// Guards `parse`'s one reading of the body (`serde_json::from_slice`), which takes
/// JSON text as UTF-8 only, whatever charset the `Content-Type` names: a byte order
/// mark is no JSON value, and UTF-16 text of any JSON has NUL bytes, which JSON allows
/// nowhere (not even inside a string), so such a body can never be read as some other
/// request than the one sent. It is a parse error with a null id.
#[test]
fn a_body_with_a_byte_order_mark_or_in_utf16_is_a_parse_error_never_another_request() {
    let text = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"}}"#;
    let utf16 = |big_endian: bool, bom: bool| {
        let mut out = Vec::new();
        if bom {
            out.extend_from_slice(if big_endian { b"\xFE\xFF" } else { b"\xFF\xFE" });
        }
        for unit in text.encode_utf16() {
            out.extend_from_slice(&if big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            });
        }
        out
    };
    let bodies = [
        (
            "UTF-8 with a byte order mark",
            [b"\xEF\xBB\xBF", text.as_bytes()].concat(),
        ),
        (
            "a byte order mark before a batch",
            b"\xEF\xBB\xBF[{}]".to_vec(),
        ),
        ("UTF-16LE", utf16(false, false)),
        ("UTF-16LE with a byte order mark", utf16(false, true)),
        ("UTF-16BE", utf16(true, false)),
        ("UTF-16BE with a byte order mark", utf16(true, true)),
    ];
    for (what, body) in &bodies {
        let refused = parse(body).expect_err(what);
        assert_eq!(refused.code, PARSE_ERROR, "{what}: {}", refused.message);
        assert!(
            refused
                .message
                .starts_with("Parse error: the body is not valid JSON"),
            "{what}: {}",
            refused.message
        );
        let answer: Value = serde_json::from_slice(&refused.to_json()).unwrap();
        assert_eq!(answer["id"], Value::Null, "{what}");
        // The limit-checked reader the transports use says the same.
        assert_eq!(parse_within(body, 1 << 20).unwrap_err(), refused, "{what}");
    }
    assert!(
        parse(text.as_bytes()).is_ok(),
        "the same request in UTF-8 is read"
    );
}

/// Guards `Id::from_raw`: an id JSON-RPC allows but toolgate could not echo exactly
/// as an integer (beyond i64, a fraction, an exponent) and an id JSON-RPC does not
/// allow (object, array, boolean, null) are refused with a null id, in a bounded
/// sentence that does not quote them; nothing is rounded, and nothing panics.
#[test]
fn huge_fractional_and_structured_ids_are_refused_and_never_rounded() {
    let req = |id: &str| format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call"}}"#);
    let ten_thousand_digits = "9".repeat(10_000);
    let negative_ten_thousand = format!("-{}", "1".repeat(10_000));
    let huge = [
        "1e400",
        "-1e400",
        "1E+2",
        "18446744073709551616",
        "-9223372036854775809",
        ten_thousand_digits.as_str(),
        negative_ten_thousand.as_str(),
        "0.5",
        "-0.0",
        "7.000",
        "1e-400",
        "{\"a\":1}",
        "{}",
        "[]",
        "[1,2]",
        "true",
        "false",
        "null",
    ];
    for bad in huge {
        let body = req(bad);
        let refused = parse_within(body.as_bytes(), 1 << 20).expect_err(bad);
        assert_eq!(refused.code, INVALID_REQUEST, "{bad}");
        assert!(
            refused.message.contains("the id must be"),
            "{}",
            refused.message
        );
        assert!(refused.message.len() < 200, "{}", refused.message);
        let answer: Value = serde_json::from_slice(&refused.to_json()).unwrap();
        assert_eq!(answer["id"], Value::Null, "{bad}");
    }
    // The largest integers that fit are echoed digit for digit, not as a float.
    let exact = id_of(&req("9223372036854775807")).unwrap();
    assert_eq!(exact, "9223372036854775807");
    let answer = result(&Id(exact), &serde_json::json!({}));
    assert!(
        std::str::from_utf8(&answer)
            .unwrap()
            .contains(r#""id":9223372036854775807,"#),
        "{answer:?}"
    );
    // A reply to a server request with such an id matches no request (and is no panic).
    for bad in ["1e400", ten_thousand_digits.as_str(), "{}", "1.5"] {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{bad},"result":{{}}}}"#);
        assert!(matches!(
            parse(body.as_bytes()),
            Ok(Message::Reply { id: None, .. })
        ));
    }
}
