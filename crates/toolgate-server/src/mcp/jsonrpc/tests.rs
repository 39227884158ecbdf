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
