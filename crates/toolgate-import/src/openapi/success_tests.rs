//! Operations that answer with more than one 2xx status. The gateway checks every 2xx
//! reply against the tool's one contract, an empty body as `null`; each test feeds the
//! imported contract the replies the description documents, as they arrive.

use serde_json::{Value, json};

use super::directory_tests::{check, import, spec};

fn servers() -> Value {
    json!([{"url": "https://api.example.com"}])
}

fn repo_schema() -> Value {
    json!({"type": "object", "required": ["id", "full_name"], "properties": {
        "id": {"type": "integer"}, "full_name": {"type": "string"}
    }})
}

fn json_body(schema: Value) -> Value {
    json!({"description": "body", "content": {"application/json": {"schema": schema}}})
}

/// Imports one `PUT /thing` answering `responses`, checks the config, and returns the
/// tool's contract as the gateway holds it, with the comments written above the tool.
fn contract(responses: Value) -> (toolgate_config::Config, String) {
    let op = json!({"operationId": "thing", "responses": responses});
    let s = spec(servers(), json!({"/thing": {"put": op}}));
    let out = import(&s).unwrap_or_else(|e| panic!("import: {e}"));
    let config = check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    (config, out.yaml)
}

fn accepts(config: &toolgate_config::Config, body: &[u8]) -> bool {
    config.tools["thing"]
        .contract
        .response
        .check_bytes(body)
        .is_ok()
}

const REPO: &[u8] = br#"{"id": 1, "full_name": "octo/hello"}"#;
/// An empty reply, as the gateway reads one.
const EMPTY: &[u8] = b"null";

#[test]
fn a_200_beside_a_204_accepts_the_empty_reply_and_still_checks_the_body() {
    // GitHub's `PUT /repos/{owner}/{repo}/collaborators/{username}`: 201 with an
    // invitation, 204 when the user already collaborates.
    let (config, yaml) = contract(json!({
        "201": json_body(repo_schema()),
        "204": {"description": "already a collaborator"},
        "404": {"description": "not found"}
    }));
    assert!(accepts(&config, REPO));
    assert!(accepts(&config, EMPTY), "{yaml}");
    // The body is still held to its schema: a renamed field is drift, named as such.
    let drift = config.tools["thing"]
        .contract
        .response
        .check_bytes(br#"{"id": 1, "name": "octo/hello"}"#);
    let Err(toolgate_contract::BodyError::Drift(drift)) = drift else {
        panic!("a renamed field passed: {drift:?}");
    };
    assert!(drift.summary().contains("full_name"), "{}", drift.summary());
    assert!(
        yaml.contains("the contract accepts an empty body, as the 204 response has none"),
        "{yaml}"
    );
}

#[test]
fn each_documented_2xx_body_is_accepted() {
    // 200 with the finished result, 202 with the job still running (GitHub's
    // statistics endpoints, long-running operations); 201 with the created resource.
    let job = json!({"type": "object", "required": ["job_id"], "properties": {
        "job_id": {"type": "string"}
    }});
    let (config, yaml) = contract(json!({
        "200": json_body(repo_schema()),
        "201": json_body(repo_schema()),
        "202": json_body(job),
    }));
    assert!(accepts(&config, REPO));
    assert!(accepts(&config, br#"{"job_id": "j-1"}"#), "{yaml}");
    assert!(!accepts(&config, EMPTY));
    assert!(!accepts(&config, br#"{"other": true}"#));
    assert!(
        yaml.contains("the contract accepts the body of each of the 200, 202 responses"),
        "{yaml}"
    );
}

#[test]
fn an_accepted_or_created_answer_without_content_accepts_an_empty_reply() {
    for (code, note) in [("201", "201"), ("202", "202"), ("2XX", "2XX")] {
        let (config, yaml) = contract(json!({
            "200": json_body(repo_schema()),
            code: {"description": "no content documented"},
        }));
        assert!(accepts(&config, REPO), "{code}");
        assert!(accepts(&config, EMPTY), "{code}: {yaml}");
        assert!(
            yaml.contains(&format!("as the {note} response has none")),
            "{yaml}"
        );
    }
}

#[test]
fn shared_components_of_several_answers_are_all_written() {
    let s = json!({
        "openapi": "3.0.3",
        "info": {"title": "Dir", "version": "1.0"},
        "servers": servers(),
        "paths": {"/thing": {"put": {"operationId": "thing", "responses": {
            "200": json_body(json!({"$ref": "#/components/schemas/Repo"})),
            "202": json_body(json!({"$ref": "#/components/schemas/Job"})),
        }}}},
        "components": {"schemas": {
            "Repo": repo_schema(),
            "Job": {"type": "object", "required": ["job_id"], "properties": {"job_id": {"type": "string"}}},
        }}
    });
    let out = import(&s).unwrap();
    let config = check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    assert!(accepts(&config, REPO));
    assert!(accepts(&config, br#"{"job_id": "j-1"}"#));
    assert!(!accepts(&config, br#"{"job": "j-1"}"#));
}

#[test]
fn swagger_2_answers_without_a_schema_are_empty() {
    let s = json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "schemes": ["https"],
        "produces": ["application/json"],
        "paths": {"/thing": {"put": {"operationId": "thing", "responses": {
            "200": {"description": "updated", "schema": repo_schema()},
            "201": {"description": "created"},
        }}}}
    });
    let out = import(&s).unwrap();
    let config = check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    assert!(accepts(&config, REPO));
    assert!(accepts(&config, EMPTY), "{}", out.yaml);
}

#[test]
fn a_single_answer_or_an_error_beside_it_keeps_the_contract_as_it_was() {
    let (config, yaml) = contract(json!({
        "200": json_body(repo_schema()),
        "400": {"description": "bad"},
        "default": {"description": "error"},
    }));
    assert!(!accepts(&config, EMPTY));
    assert!(!yaml.contains("anyOf"), "{yaml}");
    // A second 2xx that is a file is not JSON: the gateway never checks it as one.
    let (config, yaml) = contract(json!({
        "200": json_body(repo_schema()),
        "206": {"description": "part", "content": {"application/json": {
            "schema": {"type": "string", "format": "binary"}
        }}},
    }));
    assert!(!accepts(&config, br#""bytes""#), "{yaml}");
}

#[test]
fn a_2xx_that_may_be_any_json_leaves_the_contract_open() {
    let (config, yaml) = contract(json!({
        "200": json_body(repo_schema()),
        "202": {"description": "accepted", "content": {"application/json": {}}},
    }));
    assert!(accepts(&config, br#"{"anything": [1]}"#), "{yaml}");
    assert!(
        yaml.contains("the 202 response may be any JSON value"),
        "{yaml}"
    );
}

#[test]
fn a_no_content_answer_listing_a_body_still_arrives_empty() {
    // ShipEngine's deletions answer `204` with an empty object's schema; AWS's tag
    // listings, converted from their models, `204` with the tags.
    for code in ["204", "205"] {
        let (config, yaml) = contract(json!({
            code: json_body(repo_schema()),
            "404": json_body(json!({"type": "object"})),
        }));
        assert!(accepts(&config, EMPTY), "{code}: {yaml}");
        assert!(
            yaml.contains(&format!("the {code} response has no body")),
            "{yaml}"
        );
    }
    // Beside a status that has content, the other body is the contract's, and the
    // empty reply is accepted with it.
    let (config, yaml) = contract(json!({
        "204": json_body(json!({"type": "object", "required": ["message"]})),
        "207": json_body(repo_schema()),
    }));
    assert!(accepts(&config, REPO), "{yaml}");
    assert!(accepts(&config, EMPTY), "{yaml}");
    assert!(!accepts(&config, br#"{"message": "partial"}"#), "{yaml}");
}
