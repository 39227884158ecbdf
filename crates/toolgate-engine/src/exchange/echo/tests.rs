use super::*;

#[test]
fn every_string_of_a_json_value_is_scrubbed_keys_included() {
    let secret = "sk-live-0123456789abcdef";
    let mut v = serde_json::json!({
        "progress": 1,
        "message": format!("using {secret}"),
        "nested": [{"deep": [format!("Bearer {secret}")]}],
        secret: "as a key",
    });
    scrub_value(&mut v, &[secret, "short"]);
    let text = v.to_string();
    assert!(!text.contains(secret), "{text}");
    assert_eq!(v["message"], "using [redacted]");
    assert_eq!(v["nested"][0]["deep"][0], "Bearer [redacted]");
    assert_eq!(v["[redacted]"], "as a key");
    assert_eq!(v["progress"], 1);
    // Deep nesting is walked without recursion.
    let mut deep = serde_json::Value::String(secret.into());
    for _ in 0..100_000 {
        deep = serde_json::Value::Array(vec![deep]);
    }
    scrub_value(&mut deep, &[secret]);
    let mut at = &deep;
    while let serde_json::Value::Array(a) = at {
        at = &a[0];
    }
    assert_eq!(at, "[redacted]");
    // Dropping a 100,000-deep value recurses in serde_json: unwind it here.
    let mut v = deep;
    while let serde_json::Value::Array(mut a) = v {
        v = a.pop().unwrap_or_default();
    }
}

const TOKEN: &str = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2ln";

#[test]
fn the_credentials_of_a_dependency_are_its_secret_values_only() {
    let mut dep = crate::fixtures::dependency(
        "api",
        "https://user:pa55word-0123456789ab@api.example.com/v1?api_key=qk-0123456789abcdef&format=json-with-long-value",
    );
    let header = |n: &'static str, v: &'static str| {
        (
            http::header::HeaderName::from_static(n),
            http::header::HeaderValue::from_static(v),
        )
    };
    dep.headers = vec![
        header("authorization", "Bearer sk-live-0123456789abcdef"),
        header("x-api-key", "key-fedcba9876543210"),
        header("accept", "application/vnd.example.v2+json"),
        header("x-session", "short"),
    ];
    let got = credentials(&dep);
    for want in [
        "Bearer sk-live-0123456789abcdef",
        "sk-live-0123456789abcdef",
        "key-fedcba9876543210",
        "pa55word-0123456789ab",
        "qk-0123456789abcdef",
    ] {
        assert!(got.iter().any(|g| g == want), "{want} missing from {got:?}");
    }
    // Configuration is not a credential, and a short value is never scrubbed.
    assert!(
        !got.iter()
            .any(|g| g.contains("vnd.example") || g.contains("json-with")),
        "{got:?}"
    );
    assert!(!got.iter().any(|g| g == "short"), "{got:?}");
    // Longest first, so "Bearer X" goes whole before X alone.
    assert!(got.windows(2).all(|w| w[0].len() >= w[1].len()), "{got:?}");
    // A value configured twice, among others of its length, is kept once.
    dep.secrets = vec![
        toolgate_config::Secret("key-0000000000000000".into()),
        toolgate_config::Secret("key-fedcba9876543210".into()),
    ];
    let got = credentials(&dep);
    let same = got.iter().filter(|g| *g == "key-fedcba9876543210").count();
    assert_eq!(same, 1, "{got:?}");
}

#[test]
fn every_echo_is_replaced_and_json_stays_json() {
    let body = format!(
        r#"{{"error":"invalid token {TOKEN}","headers":{{"Authorization":"Bearer {TOKEN}"}}}}"#
    );
    let got = scrub(Bytes::from(body), TOKEN);
    let text = std::str::from_utf8(&got).unwrap();
    assert!(!text.contains(TOKEN), "{text}");
    assert_eq!(text.matches(REDACTED).count(), 2, "{text}");
    let parsed: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(parsed["headers"]["Authorization"], "Bearer [redacted]");
}

#[test]
fn a_body_without_the_token_is_passed_on_uncopied() {
    let body = Bytes::from_static(br#"{"ok":true,"token":"another-one"}"#);
    let got = scrub(body.clone(), TOKEN);
    assert_eq!(got.as_ptr(), body.as_ptr());
}

#[test]
fn the_ends_of_the_body_and_back_to_back_echoes_are_replaced() {
    let body = format!("{TOKEN}{TOKEN} and {TOKEN}");
    let got = scrub(Bytes::from(body), TOKEN);
    assert_eq!(&got[..], b"[redacted][redacted] and [redacted]");
    // A prefix of the token alone is not the token.
    let half = &TOKEN[..20];
    let got = scrub(Bytes::from(half.to_string()), TOKEN);
    assert_eq!(&got[..], half.as_bytes());
}

#[test]
fn a_token_too_short_to_be_random_leaves_the_answer_intact() {
    let body = Bytes::from_static(br#"{"total":123456,"id":"123456"}"#);
    assert_eq!(scrub(body.clone(), "123456"), body);
    assert_eq!(scrub_text("123456", "123456"), "123456");
}

#[test]
fn text_is_scrubbed_the_same_way() {
    assert_eq!(
        scrub_text(&format!("401: {TOKEN} expired"), TOKEN),
        "401: [redacted] expired"
    );
    assert_eq!(scrub_text("nothing here", TOKEN), "nothing here");
}
