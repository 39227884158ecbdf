use serde_json::{Value, json};

use crate::openapi::directory_tests::{check, import, spec};

/// Operations that each take `body` (a `$ref` to `schema`) as their JSON request body.
fn posting(names: &[&str], body: &str, schemas: Value) -> Value {
    let mut paths = serde_json::Map::new();
    for name in names {
        paths.insert(
            format!("/{name}"),
            json!({"post": {
                "operationId": name,
                "requestBody": {"required": true, "content": {"application/json": {
                    "schema": {"$ref": format!("#/components/schemas/{body}")}}}},
                "responses": {"204": {"description": "done"}},
            }}),
        );
    }
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        Value::Object(paths),
    );
    s["components"] = json!({"schemas": schemas});
    s
}

/// A request body reaching a graph of components, as DocuSign's envelope definition does.
fn envelope() -> Value {
    json!({
        "Envelope": {"type": "object", "properties": {
            "recipients": {"type": "array", "items": {"$ref": "#/components/schemas/Recipient"}},
            "subjectLineShownToEverySigner": {"type": "string"},
        }},
        "Recipient": {"type": "object", "required": ["email"], "properties": {
            "email": {"type": "string", "format": "email"},
            "tabs": {"$ref": "#/components/schemas/Tabs"},
        }},
        "Tabs": {"type": "object", "properties": {
            "signHereTabPositionOnThePage": {"type": "array", "items": {"type": "integer"}},
        }},
    })
}

fn input(doc: &Value, tool: &str) -> Value {
    doc["tools"][tool]["input_schema"].clone()
}

#[test]
fn a_definition_several_tools_take_is_written_once_and_read_back_whole() {
    let names = ["send", "resend", "correct"];
    let out = import(&posting(&names, "Envelope", envelope())).unwrap();
    // Written once: the deepest definition's own words appear a single time.
    assert_eq!(
        out.yaml.matches("signHereTabPositionOnThePage").count(),
        1,
        "{}",
        out.yaml
    );
    assert_eq!(out.yaml.matches("subjectLineShownToEverySigner").count(), 1);
    // Read back, every tool has the whole definition graph, the same for each.
    let config = check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    let first = input(&doc, "send");
    for name in names {
        assert_eq!(input(&doc, name), first, "{name}");
        let defs = &config.tools[name].input_schema["$defs"];
        assert_eq!(
            defs["Tabs"]["properties"]["signHereTabPositionOnThePage"]["items"]["type"], "integer",
            "{name}: {defs}"
        );
        assert_eq!(defs["Recipient"]["required"], json!(["email"]), "{name}");
    }
}

#[test]
fn a_definition_one_tool_takes_gets_no_anchor() {
    let out = import(&posting(&["send"], "Envelope", envelope())).unwrap();
    let input_lines: Vec<&str> = out
        .yaml
        .lines()
        .filter(|l| l.contains(": &") || l.contains(": *"))
        .collect();
    assert!(input_lines.is_empty(), "{input_lines:?}");
    check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
}

#[test]
fn names_an_anchor_cannot_carry_are_written_so_every_reader_takes_them() {
    // Component names with characters YAML gives a meaning to after `&` or `*`.
    let schemas = json!({
        "Body, v2 [beta]": {"type": "object", "properties": {
            "part": {"$ref": "#/components/schemas/{part}*&"},
        }},
        "{part}*&": {"type": "object", "properties": {"size": {"type": "integer"}}},
    });
    let out = import(&posting(&["a", "b"], "Body, v2 [beta]", schemas)).unwrap();
    assert!(out.yaml.contains(": *"), "{}", out.yaml);
    check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    assert_eq!(input(&doc, "a"), input(&doc, "b"));
    let defs = input(&doc, "b")["$defs"].clone();
    let part = defs
        .as_object()
        .unwrap()
        .values()
        .find(|d| d["properties"].get("size").is_some())
        .unwrap_or_else(|| panic!("{defs}"));
    assert_eq!(part["properties"]["size"]["type"], "integer");
}

#[test]
fn anchors_are_unique_however_names_clash() {
    let mut taken = std::collections::HashSet::new();
    let a = super::fresh_anchor(&mut taken, "a.b");
    let b = super::fresh_anchor(&mut taken, "a_b");
    let c = super::fresh_anchor(&mut taken, "");
    assert_ne!(a, b);
    assert!([&a, &b, &c].iter().all(|x| {
        !x.is_empty()
            && x.chars()
                .all(|c| c.is_ascii_alphanumeric() || "_-".contains(c))
    }));
}

#[test]
fn a_second_api_imported_into_the_file_keeps_the_first_ones_schemas_whole() {
    use crate::openapi::{Options, run};
    let write = |spec: &Value| {
        let dir = crate::openapi::directory_tests::folder();
        let file = dir.join("api.json");
        std::fs::write(&file, spec.to_string()).unwrap();
        (dir, file)
    };
    let first = posting(&["send", "resend"], "Envelope", envelope());
    let mut second = posting(&["send", "resend"], "Envelope", envelope());
    second["info"]["title"] = json!("Other");
    second["components"]["schemas"]["Tabs"]["properties"] = json!({"other": {"type": "boolean"}});
    let (dir1, file1) = write(&first);
    let (dir2, file2) = write(&second);
    let one = run(&Options {
        spec: file1.clone(),
        owner: Some("api-team@example.com".into()),
        ..Options::default()
    })
    .unwrap();
    let both = run(&Options {
        spec: file2,
        owner: Some("api-team@example.com".into()),
        prefix: Some("other_".into()),
        existing: Some(one.yaml.clone()),
        ..Options::default()
    })
    .unwrap();
    // Re-importing the first over both changes none of its contracts.
    let again = run(&Options {
        spec: file1,
        existing: Some(both.yaml.clone()),
        ..Options::default()
    })
    .unwrap();
    let _ = (std::fs::remove_dir_all(dir1), std::fs::remove_dir_all(dir2));
    for out in [&both, &again] {
        check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
        let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
        let tabs = |tool: &str| input(&doc, tool)["$defs"]["Tabs"]["properties"].clone();
        assert!(
            tabs("send").get("signHereTabPositionOnThePage").is_some(),
            "{}",
            out.yaml
        );
        assert_eq!(tabs("send"), tabs("resend"));
        assert_eq!(
            tabs("other_send")["other"]["type"],
            "boolean",
            "{}",
            out.yaml
        );
        assert_eq!(tabs("other_send"), tabs("other_resend"));
    }
    assert!(
        !again
            .report
            .iter()
            .any(|l| l.contains(": contract ") || l.ends_with(": new tool")),
        "{:?}",
        again.report
    );
}
