//! YAML aliases in a config: read as copies of their anchors, within a bound.

use std::path::Path;

fn compile(text: &str) -> Result<toolgate_config::Config, toolgate_config::ConfigErrors> {
    let env = |_: &str| None;
    toolgate_config::parse(Path::new("t.yaml"), text, Path::new("."), &env)
}

#[test]
fn a_billion_laughs_config_is_refused_with_what_to_do() {
    // Nine levels of nine aliases each: 9^9 copies of `lol` from 10 lines.
    let mut text = String::from("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
    for level in 1..=9 {
        let p = level - 1;
        text.push_str(&format!(
            "a{level}: &a{level} [*a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}, *a{p}]\n"
        ));
    }
    text.push_str("dependencies:\n  d: {base_url: 'https://api.example.com', extra: *a9}\n");
    let errors = compile(&text).expect_err("refused").to_string();
    assert!(
        errors.contains("aliases (`*name`) repeat their anchors"),
        "{errors}"
    );
    assert!(errors.contains("write the repeated part out"), "{errors}");
}

#[test]
fn an_input_definition_shared_through_an_anchor_is_read_in_each_tool() {
    let text = "dependencies:\n  d: {base_url: 'https://api.example.com'}\ntools:\n  \
        a:\n    dependency: d\n    owner: o@example.com\n    request: {path: /a}\n    \
        input_schema: {type: object, properties: {n: &name {type: string, maxLength: 3}}}\n  \
        b:\n    dependency: d\n    owner: o@example.com\n    request: {path: /b}\n    \
        input_schema: {type: object, properties: {n: *name}}\n";
    let config = compile(text).expect("valid");
    let b = config.tools["b"].input_schema["properties"]["n"].clone();
    assert_eq!(b, serde_json::json!({"type": "string", "maxLength": 3}));
}
