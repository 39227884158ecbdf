//! Parameters that change how the reply is written or sent: a model must not be able
//! to turn the JSON reply the contract checks into another format. A format choice is sent as its JSON value, the
//! others are left out, and the generated configuration says so.

use serde_json::{Value, json};

use super::directory_tests::import_and_check;

/// One `GET /things` answering a JSON object, with `params`.
fn things(params: Value) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Things", "version": "1.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/things": {"get": {
            "operationId": "list_things",
            "parameters": params,
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "properties": {"name": {"type": "string"}}}
            }}}}
        }}}
    })
}

fn query(name: &str, schema: Value, description: &str) -> Value {
    json!({"name": name, "in": "query", "description": description, "schema": schema})
}

/// The tool's argument names, sorted.
fn arguments(doc: &Value) -> Vec<String> {
    let mut names: Vec<String> = doc["tools"]["list_things"]["input_schema"]["properties"]
        .as_object()
        .map(|m| m.keys().cloned().collect())
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_choice_of_reply_format_is_sent_as_its_json_value_and_is_no_argument() {
    let spec = things(json!([
        query(
            "alt",
            json!({"type": "string", "enum": ["json", "media", "proto"]}),
            "Data format for response."
        ),
        query(
            "output",
            json!({"type": "string", "enum": ["XML", "JSON"]}),
            ""
        ),
        query(
            "format",
            json!({"type": "string", "default": "json"}),
            "Reply format."
        ),
        query("q", json!({"type": "string"}), "Search text."),
    ]));
    let (out, doc) = import_and_check(&spec);
    assert_eq!(arguments(&doc), vec!["q".to_string()], "{}", out.yaml);
    let q = &doc["tools"]["list_things"]["request"]["query"];
    assert_eq!(q["alt"], "json");
    assert_eq!(q["output"], "JSON");
    assert_eq!(q["format"], "json");
    assert!(
        out.yaml.contains(
            "query parameter `alt` is always sent as `json`: it picks the reply's format"
        ),
        "{}",
        out.yaml
    );
}

#[test]
fn a_jsonp_callback_and_printing_and_transport_switches_are_left_out_but_a_callback_address_is_not()
{
    let spec = things(json!([
        query(
            "prettyPrint",
            json!({"type": "boolean", "default": true}),
            "Returns response with indentations and line breaks."
        ),
        query("callback", json!({"type": "string"}), "JSONP"),
        query(
            "$.xgafv",
            json!({"type": "string", "enum": ["1", "2"]}),
            "V1 error format."
        ),
        query(
            "upload_protocol",
            json!({"type": "string"}),
            "Upload protocol for media (e.g. \"raw\", \"multipart\")."
        ),
        query(
            "quotaUser",
            json!({"type": "string"}),
            "Available to use for quota purposes."
        ),
        query("q", json!({"type": "string"}), "Search text."),
        // A webhook's address and a switch the description requires stay arguments.
        query(
            "callback_url",
            json!({"type": "string", "format": "uri"}),
            "Address notified when the export is done."
        ),
        json!({"name": "pretty", "in": "query", "required": true, "schema": {"type": "boolean"}}),
    ]));
    let (out, doc) = import_and_check(&spec);
    assert_eq!(
        arguments(&doc),
        vec![
            "callback_url".to_string(),
            "pretty".to_string(),
            "q".to_string()
        ],
        "{}",
        out.yaml
    );
    assert!(
        doc["tools"]["list_things"]["request"]["query"]
            .get("callback")
            .is_none()
    );
    assert!(
        out.yaml.contains(
            "query parameter `callback` is not sent and is no argument: a JSONP callback wraps the reply in a JavaScript call"
        ),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains(
            "query parameters `prettyPrint`, `$.xgafv`, `upload_protocol`, `quotaUser` are not sent and are no arguments: they set how the reply is printed"
        ),
        "{}",
        out.yaml
    );
}
