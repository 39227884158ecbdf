//! Keys written twice in a description: YAML forbids them, JSON leaves them to the
//! reader, and hand-edited descriptions have them (a second `patch:` on one path after
//! a merge, a component parameter pasted twice, a property added again with another
//! type). The import keeps the last, as every reader does, and says so.

use std::path::PathBuf;

use super::*;

fn import(name: &str, text: &str) -> Result<Outcome, String> {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-duplicates-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let file: PathBuf = dir.join(name);
    std::fs::write(&file, text).unwrap();
    let out = run(&Options {
        spec: file,
        owner: Some("api-team@example.com".into()),
        ..Options::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn warnings_naming(out: &Outcome, key: &str) -> Vec<String> {
    out.report
        .iter()
        .filter(|l| l.contains(&format!("the key `{key}` is written twice")))
        .cloned()
        .collect()
}

/// Two operations on one path, the second `patch` replacing the first, and a schema
/// defined twice with different fields: both change what is imported.
const YAML_TWICE: &str = r#"openapi: 3.0.3
info: {title: Twice, version: '1.0'}
servers: [{url: 'https://api.example.com'}]
paths:
  /attachments/{id}:
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    patch:
      operationId: renameAttachment
      responses: {'200': {description: ok}}
    patch:
      operationId: updateAttachment
      responses:
        '200':
          description: ok
          content: {application/json: {schema: {$ref: '#/components/schemas/Attachment'}}}
components:
  parameters:
    limit: {name: limit, in: query, schema: {type: integer}}
    limit: {name: limit, in: query, schema: {type: integer}}
  schemas:
    Attachment:
      type: object
      properties: {id: {type: string}}
    Attachment:
      type: object
      required: [name]
      properties: {name: {type: string}}
"#;

#[test]
fn a_yaml_key_written_twice_with_different_values_is_reported_with_where_it_is() {
    let out = import("api.yaml", YAML_TWICE).unwrap();
    let patch = warnings_naming(&out, "patch");
    assert_eq!(patch.len(), 1, "{:#?}", out.report);
    assert!(
        patch[0].contains("`/paths/~1attachments~1{id}`"),
        "{}",
        patch[0]
    );
    assert!(patch[0].contains("(lines 7 and 10)"), "{}", patch[0]);
    assert!(patch[0].contains("api.yaml"), "{}", patch[0]);
    let schema = warnings_naming(&out, "Attachment");
    assert_eq!(schema.len(), 1, "{:#?}", out.report);
    assert!(schema[0].contains("`/components/schemas`"), "{}", schema[0]);
    // The one pasted twice the same changes nothing and is not reported.
    assert!(
        warnings_naming(&out, "limit").is_empty(),
        "{:#?}",
        out.report
    );
    // Last wins, as every reader takes it: the second operation and schema.
    assert_eq!(out.tools.len(), 1);
    assert_eq!(out.tools[0].0, "updateAttachment");
    assert!(out.yaml.contains("required:") && out.yaml.contains("- name"));
    // Written into the config's header too, where its other findings are.
    assert!(
        out.yaml
            .lines()
            .any(|l| l.starts_with('#') && l.contains("the key `patch` is written twice")),
        "{}",
        out.yaml
    );
}

#[test]
fn a_json_key_written_twice_with_different_values_is_reported() {
    let json = r#"{"openapi": "3.0.3", "info": {"title": "Twice", "version": "1.0"},
 "servers": [{"url": "https://api.example.com"}],
 "paths": {"/users": {"get": {"operationId": "listUsers", "responses": {"200": {"description": "ok"}}}},
           "/users": {"get": {"operationId": "listPeople", "responses": {"200": {"description": "ok"}}}}},
 "components": {"schemas": {"User": {"type": "object", "type": "array"}}}}"#;
    let out = import("api.json", json).unwrap();
    let users = warnings_naming(&out, "/users");
    assert_eq!(users.len(), 1, "{:#?}", out.report);
    assert!(users[0].contains("`/paths`"), "{}", users[0]);
    let ty = warnings_naming(&out, "type");
    assert_eq!(ty.len(), 1, "{:#?}", out.report);
    assert!(ty[0].contains("`/components/schemas/User`"), "{}", ty[0]);
    assert_eq!(out.tools[0].0, "listPeople");
}

#[test]
fn a_description_without_duplicates_reports_none() {
    let text = YAML_TWICE
        .replace("    patch:\n      operationId: renameAttachment\n      responses: {'200': {description: ok}}\n", "")
        .replace("    Attachment:\n      type: object\n      properties: {id: {type: string}}\n", "");
    let out = import("api.yaml", &text).unwrap();
    assert!(
        !out.report.iter().any(|l| l.contains("written twice")),
        "{:#?}",
        out.report
    );
}

#[test]
fn the_pointer_of_a_duplicate_escapes_slashes_and_tildes() {
    let (_, found) =
        load::parse_finding_duplicates("a:\n  b/c:\n    x~y: 1\n    x~y: 2\n").unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].pointer(), "/a/b~1c/x~0y");
}
