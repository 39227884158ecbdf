use super::*;
use serde_json::json;

#[test]
fn reads_every_kind_of_value_like_serde_json() {
    let text = br#"{"s":"plain","e":"with \"escape\" \u00e9","n":-3,"u":18446744073709551615,"f":1.5e3,"b":true,"z":null,"a":[1,[],{}],"o":{"k":"v"}}"#;
    let doc = Doc::parse(text).expect("valid JSON");
    let value: Value = serde_json::from_slice(text).expect("valid JSON");
    assert_eq!(doc.to_value(), value);
    let Doc::Object(members) = &doc else {
        panic!("an object")
    };
    assert!(matches!(members[0].1, Doc::String(Cow::Borrowed("plain"))));
    assert!(matches!(&members[1].1, Doc::String(Cow::Owned(s)) if s == "with \"escape\" é"));
}

#[test]
fn rejects_what_serde_json_rejects() {
    for bad in [
        &b"{"[..],
        b"{\"a\":1} x",
        b"[1,]",
        b"'single'",
        b"NaN",
        b"1e999",
    ] {
        assert!(
            Doc::parse(bad).is_err(),
            "{:?}",
            String::from_utf8_lossy(bad)
        );
        assert!(serde_json::from_slice::<Value>(bad).is_err());
    }
    assert_eq!(
        Doc::parse(b" [1] \n").expect("trailing space").to_value(),
        json!([1])
    );
}

#[test]
fn repeated_names_keep_first_position_and_last_value() {
    let text = br#"{"a":1,"b":2,"a":3}"#;
    let doc = Doc::parse(text).expect("valid JSON");
    let value: Value = serde_json::from_slice(text).expect("valid JSON");
    assert_eq!(doc.to_value(), value);
    assert_eq!(
        serde_json::to_string(&doc.to_value()).expect("json"),
        r#"{"a":3,"b":2}"#
    );
    // Beyond the small-object scan too.
    let mut big: String = (0..40).map(|i| format!("\"k{i}\":{i},")).collect();
    big.push_str("\"k7\":\"last\"");
    let text = format!("{{{big}}}");
    let doc = Doc::parse(text.as_bytes()).expect("valid JSON");
    let Doc::Object(members) = &doc else {
        panic!("an object")
    };
    assert_eq!(members.len(), 40);
    assert_eq!(members[7].1, Doc::String(Cow::Borrowed("last")));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = "[".repeat(100_000);
    assert!(Doc::parse(deep.as_bytes()).is_err());
}

#[test]
fn validates_like_the_value_validator() {
    let schema = json!({
        "type": "object",
        "required": ["id", "tags"],
        "additionalProperties": false,
        "minProperties": 2,
        "properties": {
            "id": {"type": "integer", "minimum": 1},
            "kind": {"enum": ["a", "b", null]},
            "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "uniqueItems": true},
            "score": {"type": "number", "exclusiveMaximum": 1},
            "nested": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}}
        }
    });
    let by_value = jsonschema::validator_for(&schema).expect("schema");
    let by_doc = jsonschema::options_for::<Borrowed>()
        .build(&schema)
        .expect("schema");
    let cases = [
        r#"{"id":1,"tags":[]}"#,
        r#"{"id":0,"tags":[]}"#,
        r#"{"id":1.5,"tags":[]}"#,
        r#"{"id":1,"tags":["abcd"]}"#,
        r#"{"id":1,"tags":["a","a"]}"#,
        r#"{"id":1,"tags":[],"kind":"a"}"#,
        r#"{"id":1,"tags":[],"kind":"c"}"#,
        r#"{"id":1,"tags":[],"kind":null}"#,
        r#"{"id":1,"tags":[],"score":0.5}"#,
        r#"{"id":1,"tags":[],"score":1}"#,
        r#"{"id":1,"tags":[],"extra":true}"#,
        r#"{"id":1,"tags":[],"nested":{"ok":1}}"#,
        r#"{"id":1,"tags":[],"nested":{"Not OK":1}}"#,
        r#"{"id":1,"id":2}"#,
        r#"{"id":1}"#,
        r#"[]"#,
        r#""id""#,
    ];
    for case in cases {
        let value: Value = serde_json::from_str(case).expect("json");
        let doc = Doc::parse(case.as_bytes()).expect("json");
        assert_eq!(
            by_doc.is_valid(&doc),
            by_value.is_valid(&value),
            "the two representations disagree on {case}"
        );
    }
}
