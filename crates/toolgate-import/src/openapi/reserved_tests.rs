//! Parameters sent as OpenAPI 3.1 writes them: a query value that allows RFC 3986's
//! reserved characters, a cookie holding an exploded list, and a parameter whose `type`
//! lists `null` beside its own type. Each description here is small and written by hand.

use serde_json::{Value, json};

use super::directory_tests::spec;
use super::wire_tests::{checked, rendered};

fn ok() -> Value {
    json!({"200": {"description": "ok"}})
}

fn one_get(parameters: Value) -> Value {
    spec(
        json!([{"url": "https://api.example.com/v1"}]),
        json!({"/items": {"get": {"operationId": "list", "parameters": parameters, "responses": ok()}}}),
    )
}

fn valid(schema: &Value, value: Value) -> bool {
    jsonschema::validator_for(schema).unwrap().is_valid(&value)
}

#[test]
fn a_query_value_that_allows_reserved_characters_sends_them_as_written() {
    let (_, doc, config) = checked(&one_get(json!([
        {"name": "$filter", "in": "query", "allowReserved": true, "schema": {"type": "string"}},
        {"name": "tags", "in": "query", "allowReserved": true, "explode": false,
            "schema": {"type": "array", "items": {"type": "string"}}},
        {"name": "plain", "in": "query", "schema": {"type": "string"}},
    ])));
    let query = &doc["tools"]["list"]["request"]["query"];
    assert_eq!(query["$filter"], "{+_filter}", "{query}");
    let r = rendered(
        &config,
        "list",
        json!({"_filter": "path:/a/b@c", "tags": ["x/y", "z"], "plain": "p/q"}),
    );
    assert_eq!(
        r.url.query(),
        Some("%24filter=path:/a/b@c&plain=p%2Fq&tags=x/y,z"),
        "{}",
        r.url
    );
    // What would change the query's structure is still encoded: no parameter is added.
    let r = rendered(&config, "list", json!({"_filter": "a&plain=stolen#x"}));
    let keys: Vec<String> = r.url.query_pairs().map(|(k, _)| k.into_owned()).collect();
    assert_eq!(keys, ["$filter"], "{}", r.url);
}

#[test]
fn an_exploded_list_cookie_takes_one_item_a_call() {
    let cookie = |extra: Value| {
        let mut p = json!({"name": "ids", "in": "cookie", "required": true,
            "schema": {"type": "array", "items": {"type": "string"}}});
        if let (Value::Object(p), Value::Object(extra)) = (&mut p, extra) {
            p.extend(extra);
        }
        p
    };
    let (out, doc, config) = checked(&one_get(json!([cookie(json!({}))])));
    let input = &doc["tools"]["list"]["input_schema"];
    assert!(valid(input, json!({"ids": ["a"]})), "{input}");
    // Joined by commas, two items would reach the server as one item `a,b`.
    assert!(!valid(input, json!({"ids": ["a", "b"]})), "{input}");
    assert!(out.yaml.contains("takes one item a call"), "{}", out.yaml);
    let r = rendered(&config, "list", json!({"ids": ["a"]}));
    assert_eq!(r.headers["cookie"], "ids=a");

    // Unexploded, the list is the cookie's one comma-joined value, as before.
    let (_, doc, _) = checked(&one_get(json!([cookie(json!({"explode": false}))])));
    let input = &doc["tools"]["list"]["input_schema"];
    assert!(valid(input, json!({"ids": ["a", "b"]})), "{input}");

    // One that needs two items at least cannot be sent: the operation is skipped.
    let mut least_two = cookie(json!({}));
    least_two["schema"]["minItems"] = json!(2);
    let with_other = spec(
        json!([{"url": "https://api.example.com/v1"}]),
        json!({
            "/items": {"get": {"operationId": "list", "parameters": [least_two], "responses": ok()}},
            "/other": {"get": {"operationId": "other", "responses": ok()}},
        }),
    );
    let (out, doc, _) = checked(&with_other);
    assert!(doc["tools"].get("list").is_none(), "{}", out.yaml);
    assert!(
        out.yaml.contains("exploded list of at least 2 items"),
        "{}",
        out.yaml
    );
}

#[test]
fn a_parameter_whose_type_lists_null_is_styled_as_its_other_type() {
    let (out, doc, config) = checked(&one_get(json!([
        {"name": "X-Color", "in": "header", "required": true,
            "schema": {"type": ["object", "null"], "properties": {"R": {"type": "integer"}, "G": {"type": "integer"}}}},
        {"name": "filter", "in": "query",
            "schema": {"type": ["object", "null"], "additionalProperties": {"type": "string"}}},
    ])));
    // The header object is the `simple` style's text, never JSON.
    let input = &doc["tools"]["list"]["input_schema"];
    assert_eq!(
        input["properties"]["X-Color"]["type"], "string",
        "{}",
        out.yaml
    );
    assert_eq!(
        doc["tools"]["list"]["request"]["query"]["filter"],
        "{filter*}"
    );
    let r = rendered(
        &config,
        "list",
        json!({"X-Color": "R,100,G,200", "filter": {"owner": "me"}}),
    );
    assert_eq!(r.headers["x-color"], "R,100,G,200");
    // An exploded object's members are parameters of their own, not JSON text.
    assert_eq!(r.url.query(), Some("owner=me"), "{}", r.url);
}
