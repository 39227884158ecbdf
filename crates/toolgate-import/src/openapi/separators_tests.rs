//! Lists, objects and form fields whose separators a request template does not write
//! as the description declares them: each is sent exactly as declared, asked of the
//! model as text already joined, or not sent, never sent another way a server reads as
//! other values. Each description here is small and written after a kind that
//! published descriptions showed.

use serde_json::{Value, json};

use super::directory_tests::{import, import_and_check, spec};
use super::wire_tests::{checked, rendered};

fn ok() -> Value {
    json!({"200": {"description": "ok"}})
}

fn swagger(paths: Value) -> Value {
    json!({"swagger": "2.0", "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com", "basePath": "/v1", "paths": paths})
}

fn valid(schema: &Value, value: Value) -> bool {
    jsonschema::validator_for(schema).unwrap().is_valid(&value)
}

#[test]
fn a_header_list_item_holding_a_comma_is_refused_not_split_into_two_items() {
    let header = json!({"name": "X-Fields", "in": "header", "required": true,
        "schema": {"type": "array", "items": {"type": "string"}}});
    let (_, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/a": {"get": {"operationId": "a", "parameters": [header], "responses": ok()}}}),
    ));
    let input = &doc["tools"]["a"]["input_schema"];
    assert!(valid(input, json!({"X-Fields": ["id", "name"]})));
    assert!(
        !valid(input, json!({"X-Fields": ["id", "name,secret"]})),
        "{input}"
    );
    let r = rendered(&config, "a", json!({"X-Fields": ["id", "name"]}));
    assert_eq!(r.headers["x-fields"], "id,name");
}

#[test]
fn a_swagger_list_separated_by_pipes_spaces_or_tabs_is_joined_by_the_model_in_path_header_and_form()
{
    let list = |name: &str, place: &str, format: &str| {
        json!({"name": name, "in": place, "required": true, "type": "array",
            "items": {"type": "string"}, "collectionFormat": format})
    };
    let (out, doc, config) = checked(&swagger(json!({
        "/items/{ids}": {"post": {"operationId": "a",
            "consumes": ["application/x-www-form-urlencoded"],
            "parameters": [list("ids", "path", "pipes"), list("X-Tags", "header", "ssv"),
                list("colors", "formData", "tsv")],
            "responses": ok()}},
    })));
    let input = &doc["tools"]["a"]["input_schema"];
    for arg in ["ids", "X-Tags", "colors"] {
        assert_eq!(
            input["properties"][arg]["type"], "string",
            "{arg}: {}",
            out.yaml
        );
    }
    let r = rendered(
        &config,
        "a",
        json!({"ids": "3|4", "X-Tags": "red blue", "colors": "a\tb"}),
    );
    assert_eq!(r.url.path(), "/v1/items/3%7C4");
    assert_eq!(r.headers["x-tags"], "red blue");
    assert_eq!(String::from_utf8(r.body.unwrap()).unwrap(), "colors=a%09b");
    assert!(
        out.yaml
            .contains("header parameter `X-Tags` is a list separated by a space"),
        "{}",
        out.yaml
    );

    // `csv` (the default) and `multi` are written by the template itself.
    let (_, doc, _) = checked(&swagger(json!({
        "/items/{ids}": {"get": {"operationId": "b",
            "parameters": [list("ids", "path", "csv"), list("X-Tags", "header", "csv")],
            "responses": ok()}},
    })));
    let input = &doc["tools"]["b"]["input_schema"];
    assert_eq!(input["properties"]["ids"]["type"], "array");
    assert_eq!(input["properties"]["X-Tags"]["type"], "array");
}

#[test]
fn a_delimited_form_field_is_joined_by_the_model_and_a_json_typed_one_is_sent_as_json() {
    let body = json!({"required": true, "content": {"application/x-www-form-urlencoded": {
        "schema": {"type": "object", "required": ["tags"], "properties": {
            "tags": {"type": "array", "items": {"type": "string"}},
            "meta": {"type": "object", "properties": {"a": {"type": "string"}}},
            "shape": {"type": "object", "properties": {"a": {"type": "string"}}}}},
        "encoding": {"tags": {"style": "pipeDelimited", "explode": false},
            "meta": {"contentType": "application/json"},
            "shape": {"style": "spaceDelimited"}}}}});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/a": {"post": {"operationId": "a", "requestBody": body, "responses": ok()}}}),
    ));
    let input = &doc["tools"]["a"]["input_schema"];
    assert_eq!(
        input["properties"]["tags"]["type"], "string",
        "{}",
        out.yaml
    );
    assert!(input["properties"].get("shape").is_none(), "{}", out.yaml);
    assert!(
        out.yaml
            .contains("the optional form field `shape` is not sent"),
        "{}",
        out.yaml
    );
    let r = rendered(&config, "a", json!({"tags": "a|b", "meta": {"a": "x"}}));
    let body = String::from_utf8(r.body.unwrap()).unwrap();
    assert_eq!(body, "tags=a%7Cb&meta=%7B%22a%22%3A%22x%22%7D");
}

#[test]
fn an_unexploded_object_cookie_sends_its_members_and_one_no_cookie_can_carry_is_not_sent() {
    let color = json!({"type": "object", "properties": {"R": {"type": "integer"}, "G": {"type": "integer"}}});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/a": {"get": {"operationId": "a", "parameters": [
                {"name": "color", "in": "cookie", "required": true, "explode": false, "schema": color},
                {"name": "prefs", "in": "cookie", "content": {"application/json": {"schema": {"type": "object"}}}},
            ], "responses": ok()}},
        }),
    ));
    let r = rendered(&config, "a", json!({"color_R": 100, "color_G": 200}));
    assert_eq!(r.headers["cookie"], "color=R,100,G,200");
    let input = &doc["tools"]["a"]["input_schema"];
    assert!(input["properties"].get("prefs").is_none(), "{}", out.yaml);
    assert!(
        out.yaml
            .contains("the optional cookie parameter `prefs` is not sent"),
        "{}",
        out.yaml
    );

    // Exploded (the default), an object's members would be pairs OpenAPI writes as a
    // query's: a required one skips the operation, saying why.
    let exploded = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/b": {"get": {"operationId": "b", "parameters": [
            {"name": "color", "in": "cookie", "required": true, "schema": color}],
            "responses": ok()}},
            "/c": {"get": {"operationId": "c", "responses": ok()}}}),
    );
    let (out, doc) = import_and_check(&exploded);
    assert!(doc["tools"].get("b").is_none(), "{}", out.yaml);
    assert!(
        out.yaml.contains("needs the cookie parameter `color`"),
        "{}",
        out.yaml
    );
    assert!(import(&exploded).is_ok());
}

#[test]
fn a_form_list_that_may_also_be_empty_text_is_sent_in_its_declared_style_not_as_json() {
    // A list or `""` (which unsets it): the encoding's style still applies to the list.
    let aliases = json!({"anyOf": [{"type": "array", "items": {"type": "string"}},
        {"type": "string", "enum": [""]}]});
    let body = |encoding: Value| {
        json!({"content": {"application/x-www-form-urlencoded": {
        "schema": {"type": "object", "properties": {"aliases": aliases}},
        "encoding": encoding}}})
    };
    let (out, _, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/deep": {"post": {"operationId": "deep", "responses": ok(),
                "requestBody": body(json!({"aliases": {"style": "deepObject", "explode": true}}))}},
            "/plain": {"post": {"operationId": "plain", "responses": ok(),
                "requestBody": body(json!({}))}},
        }),
    ));
    let sent = |tool: &str, v: Value| {
        String::from_utf8(rendered(&config, tool, json!({"aliases": v})).body.unwrap()).unwrap()
    };
    assert_eq!(
        sent("deep", json!(["Al", "Bo"])),
        "aliases%5B0%5D=Al&aliases%5B1%5D=Bo",
        "{}",
        out.yaml
    );
    assert_eq!(sent("deep", json!("")), "aliases=");
    assert_eq!(sent("plain", json!(["Al", "Bo"])), "aliases=Al&aliases=Bo");
}
