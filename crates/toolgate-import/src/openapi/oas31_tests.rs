//! What OpenAPI 3.1 adds to 3.0, each imported from a small description written by hand:
//! type lists, `const`, `examples` arrays, annotations beside `$ref`,
//! `jsonSchemaDialect`, `webhooks`, `components.pathItems`, `contentMediaType` and
//! `contentEncoding`. Each must pass `check` and call the operation as described.

use serde_json::{Map, Value, json};

use super::directory_tests::{check, import, import_and_check};

fn oas31(paths: Value, components: Value) -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {"title": "Three one", "version": "1.0"},
        "servers": [{"url": "https://api.example.com/v1"}],
        "paths": paths,
        "components": components,
    })
}

fn ok() -> Value {
    json!({"200": {"description": "ok"}})
}

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("arguments are an object"),
    }
}

/// The URL and body `tool` sends with `a`, from the checked config.
fn sent(yaml: &str, tool: &str, a: Value) -> (String, Option<Value>) {
    let config = check(yaml).unwrap_or_else(|e| panic!("check: {e}\n{yaml}"));
    let t = &config.tools[tool];
    let r = t
        .http_request()
        .unwrap()
        .render(&t.dependency.base_url, &args(a))
        .unwrap_or_else(|e| panic!("{tool}: {}", e.0));
    let body = r.body.map(|b| serde_json::from_slice(&b).unwrap());
    (r.url.to_string(), body)
}

fn input<'a>(doc: &'a Value, tool: &str) -> &'a Value {
    let t = &doc["tools"][tool];
    if t.get("full_input_schema").is_some() {
        &t["full_input_schema"]
    } else {
        &t["input_schema"]
    }
}

/// The schema `r` names, followed through the input schema's `$defs`.
fn resolved<'a>(root: &'a Value, s: &'a Value) -> &'a Value {
    match s.get("$ref").and_then(Value::as_str) {
        Some(r) => &root["$defs"][r.trim_start_matches("#/$defs/")],
        None => s,
    }
}

#[test]
fn a_type_list_with_null_takes_the_value_or_leaves_the_parameter_out() {
    let (out, doc) = import_and_check(&oas31(
        json!({"/items": {"get": {"operationId": "list_items", "parameters": [
            {"name": "cursor", "in": "query", "schema": {"type": ["string", "null"]}},
            {"name": "limit", "in": "query", "required": true, "schema": {"type": ["integer", "null"], "minimum": 1}},
        ], "responses": ok()}}}),
        json!({}),
    ));
    let props = &input(&doc, "list_items")["properties"];
    assert_eq!(
        props["cursor"]["type"],
        json!(["string", "null"]),
        "{}",
        out.yaml
    );
    let (url, _) = sent(
        &out.yaml,
        "list_items",
        json!({"cursor": "c 1", "limit": 5}),
    );
    assert_eq!(url, "https://api.example.com/v1/items?cursor=c+1&limit=5");
    let (url, _) = sent(&out.yaml, "list_items", json!({"cursor": null, "limit": 5}));
    assert_eq!(url, "https://api.example.com/v1/items?limit=5");
}

#[test]
fn a_const_is_sent_as_the_description_fixes_it() {
    let (out, doc) = import_and_check(&oas31(
        json!({"/events": {"post": {"operationId": "send_event",
            "parameters": [{"name": "format", "in": "query", "required": true, "schema": {"const": "json"}}],
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "required": ["kind", "name"],
                "properties": {"kind": {"const": "event"}, "name": {"type": "string"}},
            }}}},
            "responses": ok()}}}),
        json!({}),
    ));
    let schema = input(&doc, "send_event");
    let (url, body) = sent(
        &out.yaml,
        "send_event",
        if schema["properties"].get("body").is_some() {
            json!({"format": "json", "body": {"kind": "event", "name": "n"}})
        } else {
            json!({"format": "json", "kind": "event", "name": "n"})
        },
    );
    assert!(url.ends_with("/events?format=json"), "{url}\n{}", out.yaml);
    assert_eq!(body.unwrap()["kind"], "event");
}

#[test]
fn examples_arrays_stay_examples_and_example_objects_do_not_break_the_schema() {
    let (out, doc) = import_and_check(&oas31(
        json!({"/search": {"get": {"operationId": "search", "parameters": [
            {"name": "q", "in": "query", "required": true,
             "schema": {"type": "string", "examples": ["red shoes", "blue hat"]},
             "examples": {"shoes": {"summary": "Shoes", "value": "red shoes"}}},
        ], "responses": ok()}}}),
        json!({}),
    ));
    let q = &input(&doc, "search")["properties"]["q"];
    assert_eq!(q["type"], "string", "{}", out.yaml);
    if let Some(e) = q.get("examples") {
        assert!(e.is_array(), "a schema's `examples` is a list: {e}");
    }
    let (url, _) = sent(&out.yaml, "search", json!({"q": "red shoes"}));
    assert!(url.ends_with("/search?q=red+shoes"), "{url}");
}

#[test]
fn a_description_beside_a_ref_is_what_the_model_reads() {
    let (out, doc) = import_and_check(&oas31(
        json!({"/orders": {"post": {"operationId": "create_order",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "required": ["buyer"],
                "properties": {
                    "buyer": {"$ref": "#/components/schemas/PersonId", "description": "Who pays for the order."},
                    "seller": {"$ref": "#/components/schemas/PersonId", "description": "Who ships it."},
                },
            }}}},
            "responses": ok()}}}),
        json!({"schemas": {"PersonId": {"type": "string", "description": "An id.", "pattern": "^p_"}}}),
    ));
    assert!(out.yaml.contains("Who pays for the order."), "{}", out.yaml);
    assert!(out.yaml.contains("Who ships it."), "{}", out.yaml);
    let schema = input(&doc, "create_order");
    let body = schema["properties"]
        .get("body")
        .map_or(schema, |b| resolved(schema, b));
    let buyer = &body["properties"]["buyer"];
    assert_eq!(buyer["description"], "Who pays for the order.", "{buyer}");
}

#[test]
fn a_json_schema_dialect_is_read_as_the_description_says() {
    let mut spec = oas31(
        json!({"/things/{id}": {"get": {"operationId": "get_thing", "parameters": [
            {"name": "id", "in": "path", "required": true, "schema": {"type": "string"}},
        ], "responses": ok()}}}),
        json!({}),
    );
    spec["jsonSchemaDialect"] = json!("https://spec.openapis.org/oas/3.1/dialect/base");
    let (out, _) = import_and_check(&spec);
    let (url, _) = sent(&out.yaml, "get_thing", json!({"id": "a b"}));
    assert_eq!(url, "https://api.example.com/v1/things/a%20b");
}

#[test]
fn a_description_of_webhooks_only_is_refused_saying_so() {
    let mut spec = oas31(json!({}), json!({}));
    spec.as_object_mut().unwrap().remove("paths");
    spec["webhooks"] = json!({"orderPaid": {"post": {"requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}}, "responses": ok()}}});
    let Err(err) = import(&spec) else {
        panic!("a description of webhooks only has nothing to call");
    };
    assert!(err.contains("webhook"), "{err}");
    // Webhooks beside paths are not tools: only the paths are.
    let mut both = oas31(
        json!({"/ping": {"get": {"operationId": "ping", "responses": ok()}}}),
        json!({}),
    );
    both["webhooks"] = spec["webhooks"].clone();
    let (out, doc) = import_and_check(&both);
    assert_eq!(doc["tools"].as_object().unwrap().len(), 1, "{}", out.yaml);
}

#[test]
fn a_path_item_from_components_is_called_at_the_path_that_refers_to_it() {
    let (out, _) = import_and_check(&oas31(
        json!({"/pets/{petId}": {"$ref": "#/components/pathItems/Pet"}}),
        json!({"pathItems": {"Pet": {
            "parameters": [{"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}],
            "get": {"operationId": "get_pet", "responses": ok()},
            "delete": {"operationId": "delete_pet", "responses": ok()},
        }}}),
    ));
    let (url, _) = sent(&out.yaml, "get_pet", json!({"petId": 7}));
    assert_eq!(url, "https://api.example.com/v1/pets/7");
    let (url, _) = sent(&out.yaml, "delete_pet", json!({"petId": 8}));
    assert_eq!(url, "https://api.example.com/v1/pets/8");
}

#[test]
fn content_media_type_and_encoding_say_how_a_string_carries_bytes() {
    let (out, doc) = import_and_check(&oas31(
        json!({"/avatars": {"post": {"operationId": "upload_avatar",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {
                "type": "object", "required": ["image"],
                "properties": {"image": {"type": "string", "contentMediaType": "image/png", "contentEncoding": "base64"}},
            }}}},
            "responses": ok()}}}),
        json!({}),
    ));
    let schema = input(&doc, "upload_avatar");
    let body = schema["properties"]
        .get("body")
        .map_or(schema, |b| resolved(schema, b));
    let image = &body["properties"]["image"];
    assert_eq!(image["contentEncoding"], "base64", "{}", out.yaml);
    assert_eq!(image["contentMediaType"], "image/png", "{}", out.yaml);
}

#[test]
fn a_description_beside_a_parameter_ref_replaces_the_shared_one() {
    let (out, doc) = import_and_check(&oas31(
        json!({"/orders": {"get": {"operationId": "list_orders", "parameters": [
            {"$ref": "#/components/parameters/Limit", "description": "How many orders to list, newest first."},
        ], "responses": ok()}}}),
        json!({"parameters": {"Limit": {"name": "limit", "in": "query", "description": "A page size.", "schema": {"type": "integer"}}}}),
    ));
    let limit = &input(&doc, "list_orders")["properties"]["limit"];
    assert_eq!(
        limit["description"], "How many orders to list, newest first.",
        "{}",
        out.yaml
    );
}

#[test]
fn a_path_item_in_a_file_that_cannot_be_read_fails_the_import_naming_it() {
    let spec = oas31(
        json!({
            "/pets": {"$ref": "pets.yaml#/paths/~1pets"},
            "/health": {"get": {"operationId": "health", "responses": ok()}},
        }),
        json!({}),
    );
    let Err(err) = import(&spec) else {
        panic!("the operations of `/pets` would be missing without a word");
    };
    assert!(err.contains("the path `/pets` cannot be read"), "{err}");
    assert!(err.contains("pets.yaml"), "{err}");
}
