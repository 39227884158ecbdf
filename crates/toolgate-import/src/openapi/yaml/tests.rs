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

#[test]
fn a_document_written_at_a_level_is_the_document_indented() {
    // Nested sequences of maps (`anyOf` of objects holding `allOf`s) are where the
    // writer once built each item's text apart and copied it in, once per level.
    let deep = json!({"anyOf": [
        {"allOf": [{"type": "object", "properties": {"a": {"anyOf": [{"x": 1}, [], {}]}}}]},
        [["a", {"k": [{"m": null, "n": 1.5}]}], []],
        "text: with\nbreaks",
        {"": {"yes": "no"}},
    ]});
    for v in [
        deep,
        json!([{"a": 1}, [{"b": [2]}]]),
        json!("scalar"),
        json!({}),
        json!({"e": {}, "l": [], "f": 1.0e20}),
    ] {
        let whole = to_string(&v);
        for level in 0..4 {
            let indented: String = whole
                .lines()
                .map(|l| format!("{}{l}\n", "  ".repeat(level)))
                .collect();
            let mut out = String::new();
            write_at(&mut out, &v, level);
            assert_eq!(out, indented, "{v} at {level}");
        }
        let parsed: Value = yaml_serde::from_str(&whole).unwrap();
        assert_eq!(parsed, v);
    }
}

#[test]
fn an_entry_written_alone_is_the_entry_of_its_map() {
    let m = json!({"k": {"a": [1, {"b": 2}]}, "empty": {}, "s": "1:30", "x y": []});
    let Value::Object(m) = m else { unreachable!() };
    for level in 0..3 {
        let mut whole = String::new();
        write_at(&mut whole, &Value::Object(m.clone()), level);
        let mut each = String::new();
        for (k, v) in &m {
            match v {
                Value::Object(inner) => write_map_entry(&mut each, k, inner, level),
                v => write_entry(&mut each, k, v, level),
            }
        }
        assert_eq!(each, whole);
    }
}
