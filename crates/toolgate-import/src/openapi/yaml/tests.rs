use super::*;
use serde_json::json;

#[test]
fn anything_a_yaml_1_1_reader_could_take_for_another_type_is_quoted() {
    for s in [
        "1_2",
        "12",
        "0x1F",
        "0o17",
        "0b101",
        "1:30",
        "1.5",
        ".5",
        "-1",
        "+1",
        ".inf",
        "-.inf",
        ".NaN",
        "~",
        "null",
        "Null",
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "N",
        "true",
        "2001-12-14",
        "2001-12-14t21:59:43.10-05:00",
        "",
        " a",
        "a ",
        "a: b",
        "a #b",
        "*x",
        "&x",
        "!x",
        "@x",
        "%x",
        "`x",
        "'x",
        "\"x",
        "{x}",
        "[x]",
        "x\ny",
        "é",
    ] {
        assert!(!plain_is_safe(s), "{s:?} must be quoted");
        let text = to_string(&json!({ s: s }));
        let back: Value = yaml_serde::from_str(&text).unwrap();
        assert_eq!(back, json!({ s: s }), "{text}");
    }
    for s in [
        "get_pet",
        "/v1/pets/{id}",
        "Bearer ${X}",
        "https://a.example.com/v1",
    ] {
        let text = to_string(&json!({ "k": s }));
        let back: Value = yaml_serde::from_str(&text).unwrap();
        assert_eq!(back["k"], s, "{text}");
    }
    assert!(plain_is_safe("get_pet") && plain_is_safe("application/json"));
}

#[test]
fn every_character_yaml_forbids_raw_is_escaped_in_keys_and_values() {
    let mut awkward: Vec<char> = ('\u{0}'..='\u{A0}').collect();
    awkward.extend(['\u{2028}', '\u{2029}', '\u{FEFF}', '\u{FFFE}', '\u{FFFF}']);
    awkward.extend([
        '\u{D7FF}',
        '\u{E000}',
        '\u{FFFD}',
        '\u{10000}',
        '\u{10FFFF}',
    ]);
    let mut doc = serde_json::Map::new();
    for c in &awkward {
        let s = format!("a{c}b");
        doc.insert(
            s.clone(),
            json!({ "description": s, "enum": [s, c.to_string()] }),
        );
    }
    let all: String = awkward.iter().collect();
    doc.insert(all.clone(), json!(all));
    let v = Value::Object(doc);
    let text = to_string(&v);
    assert!(
        !text.chars().any(|c| must_escape(c) && c != '\n'),
        "{text:?}"
    );
    let back: Value = yaml_serde::from_str(&text).unwrap();
    assert_eq!(back, v);
}

#[test]
fn floats_have_a_dot_and_a_signed_exponent() {
    assert_eq!(float_text("1e20"), "1.0e+20");
    assert_eq!(float_text("1.5e-7"), "1.5e-7");
    assert_eq!(float_text("2"), "2.0");
    let text = to_string(&json!({"max": 1e20, "k": 3}));
    assert_eq!(text, "max: 1.0e+20\nk: 3\n");
}

#[test]
fn nested_values_round_trip() {
    let v = json!({"a": {"b": [1, {"c": [], "d": {}}, [true, null]], "e": 2.5},
                       "f": [], "g": {}, "h": [{"i": 1, "j": {"k": "x"}}]});
    let text = to_string(&v);
    let back: Value = yaml_serde::from_str(&text).unwrap();
    assert_eq!(back, v, "{text}");
}
