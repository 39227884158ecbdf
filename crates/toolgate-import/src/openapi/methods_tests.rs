//! Operations of the methods beside GET, PUT, POST, DELETE and PATCH: a HEAD tool
//! answers with headers and no body, whatever schema its description copied from the
//! GET beside it; OPTIONS and TRACE are skipped, each saying why.

use serde_json::json;

use super::directory_tests::{check, import_and_check, spec};

#[test]
fn head_answers_without_a_body_and_options_and_trace_are_skipped_with_a_reason() {
    // As Box's and Nexmo's descriptions write it: the HEAD beside a GET repeats its
    // JSON response.
    let body = json!({"200": {"description": "ok", "content": {"application/json": {
        "schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}}}});
    let (out, doc) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/files/{id}": {
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "get": {"operationId": "get_file", "responses": body},
            "head": {"operationId": "file_exists", "responses": body},
            "options": {"operationId": "file_options", "responses": body},
            "trace": {"operationId": "file_trace", "responses": body},
        }}),
    ));
    check(&out.yaml).unwrap();
    assert_eq!(
        doc["tools"]["get_file"]["contract"]["response_schema"]["required"],
        json!(["id"])
    );
    assert_eq!(doc["tools"]["file_exists"]["request"]["method"], "HEAD");
    assert_eq!(
        doc["tools"]["file_exists"]["contract"]["response_schema"],
        json!({})
    );
    assert!(
        out.yaml.contains("no body to hold to a contract"),
        "{}",
        out.yaml
    );
    assert!(doc["tools"].get("file_options").is_none());
    assert!(doc["tools"].get("file_trace").is_none());
    assert!(
        out.yaml.contains("method OPTIONS asks which methods"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains("method TRACE echoes the request"),
        "{}",
        out.yaml
    );
}
