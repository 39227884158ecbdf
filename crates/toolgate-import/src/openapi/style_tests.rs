//! Parameter styles the request must write as OpenAPI 3.1's style table (§ 4.8.12.4)
//! says, or not at all: an object in a header, and query styles toolgate has no
//! template for. Each description here is small and written by hand after a kind that
//! published descriptions showed.

use serde_json::{Value, json};

use super::directory_tests::{check, import, import_and_check, one_get, spec};

fn servers() -> Value {
    json!([{"url": "https://api.example.com"}])
}

fn rendered(
    config: &toolgate_config::Config,
    tool: &str,
    a: Value,
) -> toolgate_config::template::RenderedRequest {
    let Value::Object(args) = a else {
        panic!("arguments are an object")
    };
    let t = &config.tools[tool];
    t.http_request()
        .unwrap()
        .render(&t.dependency.base_url, &args)
        .unwrap_or_else(|e| panic!("{tool}: {}", e.0))
}

fn header(name: &str, explode: bool) -> Value {
    json!({"name": name, "in": "header", "required": true, "explode": explode,
        "schema": {"type": "object", "properties": {
            "R": {"type": "integer"}, "G": {"type": "integer"}}}})
}

/// A header is `style: simple` whatever the object: `R,100,G,200`, or `R=100,G=200`
/// exploded (Tapis Files' `range` header, an object of `min` and `max`; the Visual
/// Studio Marketplace's `headers` object). A template writes an object as JSON, which
/// no such server reads: the model writes the members as that text.
#[test]
fn an_object_in_a_header_is_written_in_the_simple_style() {
    let (out, doc) = import_and_check(&spec(
        servers(),
        one_get(json!({"parameters": [header("X-Color", false), header("X-Shade", true)]})),
    ));
    let config = check(&out.yaml).unwrap();
    let props = &doc["tools"]["thing"]["input_schema"]["properties"];
    for name in ["X-Color", "X-Shade"] {
        assert_eq!(props[name]["type"], "string", "{}", out.yaml);
    }
    let color = props["X-Color"]["description"].as_str().unwrap();
    assert!(color.contains("`name,value,name,value`"), "{color}");
    assert!(color.contains("`R`, `G`"), "{color}");
    let shade = props["X-Shade"]["description"].as_str().unwrap();
    assert!(shade.contains("`name=value,name=value`"), "{shade}");
    assert!(
        out.yaml.contains(
            "header parameter `X-Color` is an object: the model writes its members as one text"
        ),
        "{}",
        out.yaml
    );
    let sent = rendered(
        &config,
        "thing",
        json!({"X-Color": "R,100,G,200", "X-Shade": "R=100,G=200"}),
    );
    assert_eq!(sent.headers["x-color"], "R,100,G,200");
    assert_eq!(sent.headers["x-shade"], "R=100,G=200");
}

/// A header described by `content` is its media type's text: its object stays an
/// object, sent as JSON.
#[test]
fn an_object_header_described_by_content_stays_json() {
    let (_, doc) = import_and_check(&spec(
        servers(),
        one_get(
            json!({"parameters": [{"name": "X-Filter", "in": "header", "required": true,
            "content": {"application/json": {"schema": {"type": "object",
                "properties": {"a": {"type": "string"}}}}}}]}),
        ),
    ));
    assert_eq!(
        doc["tools"]["thing"]["input_schema"]["properties"]["X-Filter"]["type"],
        "object"
    );
}

/// OpenAPI 3.1's table has `spaceDelimited` and `pipeDelimited` objects
/// (`R%20100%20G%20200`, `R|100|G|200`), and descriptions put `simple` or `label` on
/// a query parameter; toolgate's query templates write none of them. Sent as a
/// comma-separated list or as JSON, the server would read other values than the model
/// gave: a required one skips the operation, saying why, and an optional one is not
/// sent, with a comment.
#[test]
fn a_query_style_toolgate_cannot_write_is_not_sent_wrong() {
    let object = json!({"type": "object", "properties": {"R": {"type": "integer"}}});
    let mut s = spec(
        servers(),
        one_get(json!({"parameters": [
            {"name": "shade", "in": "query", "style": "pipeDelimited", "explode": false,
             "schema": object},
            {"name": "tags", "in": "query", "style": "label",
             "schema": {"type": "array", "items": {"type": "string"}}},
            {"name": "kind", "in": "query", "schema": {"type": "string"}}]})),
    );
    s["paths"]["/must"] = json!({"get": {"operationId": "must",
        "parameters": [{"name": "color", "in": "query", "required": true,
            "style": "spaceDelimited", "explode": false, "schema": object}],
        "responses": {"204": {"description": "none"}}}});
    let (out, doc) = import_and_check(&s);
    let t = &doc["tools"]["thing"];
    assert_eq!(t["request"]["query"], json!({"kind": "{kind}"}));
    assert!(t["input_schema"]["properties"].get("shade").is_none());
    assert!(t["input_schema"]["properties"].get("tags").is_none());
    for note in [
        "the optional query parameter `shade` is not sent: it is `style: pipeDelimited`",
        "the optional query parameter `tags` is not sent: it is `style: label`",
        "needs the query parameter `color`, which is `style: spaceDelimited`, a serialisation toolgate cannot send",
    ] {
        assert!(out.yaml.contains(note), "{note}\n{}", out.yaml);
    }
    assert!(doc["tools"].get("must").is_none());
    // One with a default is what the API does without it: left out, not skipped.
    s["paths"]["/must"]["get"]["parameters"][0]["schema"]["default"] = json!({"R": 1});
    let out = import(&s).unwrap();
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    assert!(doc["tools"].get("must").is_some(), "{}", out.yaml);
}
