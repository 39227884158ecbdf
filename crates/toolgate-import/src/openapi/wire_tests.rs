//! The request a generated tool sends, rendered from the checked config and compared
//! with what the description says: where it goes, which query pairs, headers and
//! cookies it carries, and which bodies it cannot send. Each description here is small
//! and written by hand after a kind that published descriptions showed.

use serde_json::{Map, Value, json};

use super::directory_tests::{check, import, import_and_check, one_get, spec};

fn args(v: Value) -> Map<String, Value> {
    match v {
        Value::Object(m) => m,
        _ => panic!("arguments are an object"),
    }
}

/// The request `tool` of `config` sends with `a`.
pub(super) fn rendered(
    config: &toolgate_config::Config,
    tool: &str,
    a: Value,
) -> toolgate_config::template::RenderedRequest {
    let t = &config.tools[tool];
    t.http_request()
        .unwrap()
        .render(&t.dependency.base_url, &args(a))
        .unwrap_or_else(|e| panic!("{tool}: {}", e.0))
}

pub(super) fn checked(doc_spec: &Value) -> (super::Outcome, Value, toolgate_config::Config) {
    let (out, doc) = import_and_check(doc_spec);
    let config = check(&out.yaml).unwrap();
    (out, doc, config)
}

fn ok() -> Value {
    json!({"200": {"description": "ok"}})
}

#[test]
fn a_server_path_every_operation_repeats_is_called_once() {
    let get = |id: &str| json!({"get": {"operationId": id, "responses": ok()}});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com/api"}]),
        json!({"/api/articles": get("articles"), "/api/users/{id}": {"get": {
            "operationId": "user",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": ok()}}}),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com"
    );
    let url = rendered(&config, "articles", json!({})).url.to_string();
    assert_eq!(url, "https://api.example.com/api/articles");
    let url = rendered(&config, "user", json!({"id": "7"}))
        .url
        .to_string();
    assert_eq!(url, "https://api.example.com/api/users/7");
    let report = out.report.join("\n");
    assert!(
        report.contains("warning: every operation path starts with `/api`")
            && report.contains("--base-url https://api.example.com/api"),
        "{report}"
    );

    // Two trailing segments, a version among them.
    let (_, doc, _) = checked(&spec(
        json!([{"url": "https://app.tickets.io/discovery/v2"}]),
        json!({"/discovery/v2/events": get("events"), "/discovery/v2/venues": get("venues")}),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://app.tickets.io"
    );

    // Only some repeat it: the description may mean it; it is kept, and said.
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com/v1"}]),
        json!({"/v1/a": get("a"), "/v1/b": get("b"), "/c": get("c")}),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com/v1"
    );
    assert_eq!(
        rendered(&config, "a", json!({})).url.to_string(),
        "https://api.example.com/v1/v1/a"
    );
    let report = out.report.join("\n");
    assert!(
        report.contains("2 of 3 operation paths start with `/v1`"),
        "{report}"
    );

    // A --base-url is the user's word: kept as given, with the same warning.
    let dir = super::directory_tests::folder();
    let file = dir.join("api.json");
    std::fs::write(
        &file,
        spec(
            json!([{"url": "https://x.example.com"}]),
            json!({"/api/a": get("a")}),
        )
        .to_string(),
    )
    .unwrap();
    let out = super::run(&super::Options {
        spec: file,
        owner: Some("api-team@example.com".into()),
        base_url: Some("https://x.example.com/api".into()),
        ..super::Options::default()
    })
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://x.example.com/api"
    );
    assert!(
        out.report
            .join("\n")
            .contains("the --base-url `https://x.example.com/api`"),
        "{:?}",
        out.report
    );
}

#[test]
fn the_unregistered_form_data_type_is_read_as_a_multipart_form() {
    let body = |required: bool| {
        json!({"required": required, "content": {"application/form-data": {"schema": {
            "type": "object", "properties": {"name": {"type": "string"}}}}}})
    };
    let (out, doc) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/accounts": {"post": {"operationId": "create", "requestBody": body(true), "responses": ok()}},
            "/profile": {"patch": {"operationId": "update", "requestBody": body(false), "responses": ok()}},
        }),
    ));
    for tool in ["create", "update"] {
        assert_eq!(
            doc["tools"][tool]["request"]["body_encoding"], "multipart",
            "{}",
            out.yaml
        );
    }
    assert!(
        out.yaml.contains(
            "the body's media type `application/form-data` is read as multipart/form-data"
        ),
        "{}",
        out.yaml
    );
    let report = out.report.join("\n");
    assert!(
        report.contains("warning: 2 operations take `application/form-data`")
            && report.contains("its text fields sent as the parts of one"),
        "{report}"
    );

    // Swagger 2.0: form fields an operation consumes as `application/form-data` are a
    // multipart form, not a URL-encoded one.
    let swagger = json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "paths": {
            "/upload": {"post": {"operationId": "upload", "consumes": ["application/form-data"],
                "parameters": [{"name": "caption", "in": "formData", "type": "string"}],
                "responses": {"200": {"description": "ok"}}}},
            "/form": {"post": {"operationId": "form", "consumes": ["application/x-www-form-urlencoded"],
                "parameters": [{"name": "caption", "in": "formData", "type": "string"}],
                "responses": {"200": {"description": "ok"}}}},
        },
    });
    let (out, doc) = import_and_check(&swagger);
    assert_eq!(
        doc["tools"]["upload"]["request"]["body_encoding"], "multipart",
        "{}",
        out.yaml
    );
    assert_eq!(doc["tools"]["form"]["request"]["body_encoding"], "form");
}

#[test]
fn headers_toolgate_or_the_connection_sets_are_never_arguments() {
    let header = |name: &str, required: bool| json!({"name": name, "in": "header", "required": required, "schema": {"type": "string"}});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/s": {"get": {"operationId": "s", "parameters": [
            header("Host", true),
            header("Content-Length", false),
            header("Transfer-Encoding", false),
            header("Connection", false),
            header("traceparent", false),
            {"name": "Upgrade", "in": "header", "required": true, "schema": {"type": "string", "enum": ["h2c"]}},
            header("Accept", false),
            header("X-Request-Id", false),
        ], "responses": ok()}}}),
    ));
    let tool = &doc["tools"]["s"];
    let props = tool["input_schema"]["properties"].as_object().unwrap();
    let names: Vec<&str> = props.keys().map(String::as_str).collect();
    assert_eq!(names, ["Accept", "X-Request-Id"], "{}", out.yaml);
    let headers = tool["request"]["headers"].as_object().unwrap();
    assert_eq!(
        headers.keys().map(String::as_str).collect::<Vec<_>>(),
        ["Accept", "X-Request-Id"]
    );
    assert!(
        out.yaml.contains(
            "header parameter `Host` is not sent as the description gives it: toolgate sends the host of the dependency's base_url"
        ),
        "{}",
        out.yaml
    );
    let r = rendered(&config, "s", json!({"Accept": "application/json"}));
    assert!(r.headers.get("host").is_none());
    assert_eq!(r.headers["accept"], "application/json");
}

/// Headers servers and proxies read as the request's destination, method or path
/// (`X-Forwarded-Host`, `X-HTTP-Method-Override`, `X-Original-URL`, …) may not take an
/// argument (`check` refuses one): the description's single value is sent as fixed,
/// and a header with none is left out, saying why, in either dialect.
#[test]
fn headers_that_steer_the_request_are_fixed_or_left_out_never_arguments() {
    let header = |name: &str, required: bool, schema: Value| json!({"name": name, "in": "header", "required": required, "schema": schema});
    let string = json!({"type": "string"});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/s": {"post": {"operationId": "s", "parameters": [
            header("X-HTTP-Method-Override", true, json!({"type": "string", "enum": ["PATCH"]})),
            header("x-forwarded-host", false, string.clone()),
            header("X-Original-URL", true, string.clone()),
            header("Forwarded", false, string.clone()),
            header("X-Forwarded-Proto", true, json!({"type": "string", "default": "https"})),
            header("X-Request-Id", false, string),
        ], "responses": ok()}}}),
    ));
    let tool = &doc["tools"]["s"];
    let props = tool["input_schema"]["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().map(String::as_str).collect::<Vec<_>>(),
        ["X-Request-Id"],
        "{}",
        out.yaml
    );
    let r = rendered(&config, "s", json!({}));
    assert_eq!(r.headers["x-http-method-override"], "PATCH");
    assert_eq!(r.headers["x-forwarded-proto"], "https");
    for absent in ["x-forwarded-host", "x-original-url", "forwarded"] {
        assert!(r.headers.get(absent).is_none(), "{absent}");
    }
    for name in ["x-forwarded-host", "X-Original-URL", "Forwarded"] {
        assert!(
            out.yaml.contains(&format!(
                "header parameter `{name}` is not sent as the description gives it: servers and proxies read it"
            )),
            "{name}: {}",
            out.yaml
        );
    }

    let swagger = json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "paths": {"/s": {"get": {"operationId": "s", "parameters": [
            {"name": "X-HTTP-Method", "in": "header", "type": "string", "enum": ["DELETE"], "required": true},
            {"name": "X-Rewrite-URL", "in": "header", "type": "string"},
            {"name": "X-Host", "in": "header", "type": "string", "required": true},
        ], "responses": {"200": {"description": "ok"}}}}},
    });
    let (out, doc) = import_and_check(&swagger);
    let tool = &doc["tools"]["s"];
    assert!(
        tool["input_schema"]["properties"]
            .as_object()
            .is_none_or(|p| p.is_empty()),
        "{}",
        out.yaml
    );
    assert_eq!(tool["request"]["headers"]["X-HTTP-Method"], "DELETE");
    assert!(
        out.yaml.contains("header parameter `X-Host` is not sent"),
        "{}",
        out.yaml
    );
}

#[test]
fn cookie_parameters_are_sent_in_one_cookie_header() {
    let cookie = |name: &str, required: bool| json!({"name": name, "in": "cookie", "required": required, "schema": {"type": "string"}});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/a": {"get": {"operationId": "a", "parameters": [
                cookie("session", true),
                {"name": "lang", "in": "cookie", "schema": {"type": "string", "enum": ["en"]}},
                cookie("theme", false),
            ], "responses": ok()}},
            "/b": {"get": {"operationId": "b", "parameters": [cookie("theme", false)], "responses": ok()}},
        }),
    ));
    // A required cookie no longer skips the operation.
    let r = rendered(&config, "a", json!({"session": "s3cr3t"}));
    assert_eq!(r.headers["cookie"], "session=s3cr3t; lang=en");
    assert!(
        doc["tools"]["a"]["input_schema"]["properties"]
            .get("theme")
            .is_none()
    );
    assert!(
        out.yaml
            .contains("the optional cookie parameter `theme` is not sent"),
        "{}",
        out.yaml
    );
    // A lone optional cookie is its own header, absent when left out.
    let r = rendered(&config, "b", json!({"theme": "dark"}));
    assert_eq!(r.headers["cookie"], "theme=dark");
    let r = rendered(&config, "b", json!({}));
    assert!(r.headers.get("cookie").is_none());
    // A value cannot add a cookie of its own.
    let schema = &doc["tools"]["a"]["input_schema"];
    let v = jsonschema::validator_for(schema).unwrap();
    assert!(v.is_valid(&json!({"session": "abc"})));
    assert!(!v.is_valid(&json!({"session": "abc; admin=1"})));
}

#[test]
fn a_list_or_object_query_named_by_ref_is_styled_as_what_it_refers_to() {
    let mut doc_spec = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/s": {"get": {"operationId": "s", "parameters": [
            {"name": "ids", "in": "query", "schema": {"$ref": "#/components/schemas/Ids"}},
            {"$ref": "#/components/parameters/Tags"},
            {"name": "color", "in": "query", "explode": false, "schema": {"$ref": "#/components/schemas/Color"}},
        ], "responses": ok()}}}),
    );
    doc_spec["components"] = json!({
        "parameters": {"Tags": {"name": "tags", "in": "query", "explode": false,
            "schema": {"$ref": "#/components/schemas/Ids"}}},
        "schemas": {
            "Ids": {"type": "array", "items": {"type": "string"}},
            "Color": {"type": "object", "properties": {"R": {"type": "integer"}, "G": {"type": "integer"}}},
        },
    });
    let (out, doc, config) = checked(&doc_spec);
    let r = rendered(
        &config,
        "s",
        json!({"ids": ["a", "b"], "tags": ["x", "y"], "color": "R,100,G,200"}),
    );
    let query: Vec<(String, String)> = r
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    let pairs = |k: &str| -> Vec<&str> {
        query
            .iter()
            .filter(|(n, _)| n == k)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    assert_eq!(pairs("ids"), ["a", "b"], "{}", r.url);
    assert_eq!(pairs("tags"), ["x,y"], "{}", r.url);
    assert_eq!(pairs("color"), ["R,100,G,200"], "{}", r.url);
    let color = &doc["tools"]["s"]["input_schema"]["properties"]["color"];
    assert_eq!(color["type"], "string");
    assert!(
        color["description"].as_str().unwrap().contains("`R`, `G`"),
        "{color}"
    );
    assert!(
        out.yaml
            .contains("query parameter `color` is an object with `explode: false`"),
        "{}",
        out.yaml
    );
}

/// Shapes that already built the request their description says, kept that way.
#[test]
fn servers_styles_and_composed_bodies_build_what_the_description_says() {
    // Server variables at their defaults.
    let (_, doc, _) = checked(&spec(
        json!([{"url": "https://{region}.example.com:{port}/{version}", "variables": {
            "region": {"default": "eu", "enum": ["eu", "us"]},
            "port": {"default": "8443"}, "version": {"default": "v2"}}}]),
        one_get(json!({})),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://eu.example.com:8443/v2"
    );
    // A relative server URL: the origin is the operator's to give, the path kept.
    let (out, doc, _) = checked(&spec(json!([{"url": "/v1"}]), one_get(json!({}))));
    assert_eq!(doc["dependencies"]["dir"]["base_url"], "${DIR_ORIGIN}/v1");
    assert!(out.report.join("\n").contains("DIR_ORIGIN"));
    // Swagger 2.0: https among the schemes, basePath without its trailing slash.
    let (out, doc) = import_and_check(&json!({
        "swagger": "2.0", "info": {"title": "Dir", "version": "1"},
        "host": "api.example.com", "basePath": "/base/", "schemes": ["http", "https"],
        "paths": {"/users/{id}": {"get": {"operationId": "get", "parameters": [
            {"name": "id", "in": "path", "required": true, "type": "string"},
            {"name": "ids", "in": "query", "type": "array", "items": {"type": "string"}, "collectionFormat": "csv"},
            {"name": "all", "in": "query", "type": "array", "items": {"type": "string"}, "collectionFormat": "multi"}],
            "responses": {"200": {"description": "ok"}}}}},
    }));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com/base"
    );
    let config = check(&out.yaml).unwrap_or_else(|e| panic!("{e}"));
    let r = rendered(
        &config,
        "get",
        json!({"id": "a b/c", "ids": ["x", "y"], "all": ["p", "q"]}),
    );
    assert_eq!(r.url.path(), "/base/users/a%20b%2Fc");
    let mut query: Vec<(String, String)> = r
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    query.sort();
    assert_eq!(
        query,
        [("all", "p"), ("all", "q"), ("ids", "x,y")].map(|(k, v)| (k.to_string(), v.to_string()))
    );

    // OpenAPI 3 styles: deepObject members, delimited lists as joined text, and a
    // discriminated `oneOf` body sent as given.
    let mut doc_spec = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/pets": {"post": {"operationId": "add", "parameters": [
            {"name": "filter", "in": "query", "style": "deepObject", "explode": true,
             "schema": {"type": "object", "properties": {"kind": {"type": "string"}}}},
            {"name": "pp", "in": "query", "style": "pipeDelimited", "explode": false,
             "schema": {"type": "array", "items": {"type": "string"}}},
            {"name": "ef", "in": "query", "explode": false,
             "schema": {"type": "array", "items": {"type": "integer"}}},
        ], "requestBody": {"required": true, "content": {"application/json": {"schema": {
            "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
            "discriminator": {"propertyName": "kind"}}}}},
        "responses": ok()}}}),
    );
    doc_spec["components"] = json!({"schemas": {
        "Base": {"type": "object", "properties": {"kind": {"type": "string"}}, "required": ["kind"]},
        "Cat": {"allOf": [{"$ref": "#/components/schemas/Base"},
            {"type": "object", "properties": {"meow": {"type": "boolean"}}}]},
        "Dog": {"allOf": [{"$ref": "#/components/schemas/Base"},
            {"type": "object", "properties": {"bark": {"type": "boolean"}}}]},
    }});
    let (_, _, config) = checked(&doc_spec);
    let body = json!({"kind": "Cat", "meow": true});
    let r = rendered(
        &config,
        "add",
        json!({"filter_kind": "cat", "pp": "a|b", "ef": [1, 2], "body": body}),
    );
    let mut query: Vec<(String, String)> = r
        .url
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect();
    query.sort();
    assert_eq!(
        query,
        [("ef", "1,2"), ("filter[kind]", "cat"), ("pp", "a|b")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    let sent: Value = serde_json::from_slice(r.body.as_deref().unwrap()).unwrap();
    assert_eq!(sent, body);
}

#[test]
fn a_form_body_of_alternatives_offers_every_alternative_s_fields() {
    let mut doc_spec = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/payments": {"post": {"operationId": "pay", "requestBody": {"required": true,
            "content": {"application/x-www-form-urlencoded": {"schema": {"allOf": [
                {"$ref": "#/components/schemas/Base"},
                {"oneOf": [
                    {"type": "object", "properties": {"card": {"type": "string"}, "currency": {"type": "string"}},
                     "required": ["card", "currency"]},
                    {"$ref": "#/components/schemas/Bank"},
                ]},
            ]}}}},
            "responses": ok()}}}),
    );
    doc_spec["components"] = json!({"schemas": {
        "Base": {"type": "object", "properties": {"amount": {"type": "integer"}}, "required": ["amount"]},
        "Bank": {"type": "object", "properties": {"iban": {"type": "string"}, "currency": {"type": "string"}},
                 "required": ["iban", "currency"]},
    }});
    let (out, doc, config) = checked(&doc_spec);
    let input = &doc["tools"]["pay"]["input_schema"];
    let mut names: Vec<&str> = input["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    names.sort_unstable();
    assert_eq!(
        names,
        ["amount", "card", "currency", "iban"],
        "{}",
        out.yaml
    );
    assert_eq!(input["required"], json!(["amount", "currency"]));
    let r = rendered(
        &config,
        "pay",
        json!({"amount": 5, "iban": "DE89", "currency": "EUR"}),
    );
    let mut pairs: Vec<(String, String)> = url::form_urlencoded::parse(r.body.as_deref().unwrap())
        .into_owned()
        .collect();
    pairs.sort();
    assert_eq!(
        pairs,
        [("amount", "5"), ("currency", "EUR"), ("iban", "DE89")]
            .map(|(k, v)| (k.to_string(), v.to_string()))
    );
    assert!(
        out.yaml.contains("one of several field sets (`oneOf`)"),
        "{}",
        out.yaml
    );
}

#[test]
fn label_and_matrix_path_parameters_keep_their_prefix() {
    let (out, _, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/users/{id}/report{fmt}": {"get": {"operationId": "a", "parameters": [
            {"name": "id", "in": "path", "required": true, "style": "matrix", "schema": {"type": "integer"}},
            {"name": "fmt", "in": "path", "required": true, "style": "label", "schema": {"type": "string"}},
        ], "responses": ok()}}}),
    ));
    let r = rendered(&config, "a", json!({"id": 5, "fmt": "csv"}));
    assert_eq!(r.url.path(), "/users/;id=5/report.csv", "{}", out.yaml);
}

#[test]
fn a_dollar_in_a_path_key_is_text_and_a_template_literal_s_is_dropped() {
    let param = |name: &str| json!({"name": name, "in": "path", "required": true, "schema": {"type": "string"}});
    let (out, _, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/places/${place}": {"get": {"operationId": "place", "parameters": [param("place")], "responses": ok()}},
            "/prices/$usd/{item}": {"get": {"operationId": "price", "parameters": [param("item")], "responses": ok()}},
        }),
    ));
    let r = rendered(&config, "place", json!({"place": "paris"}));
    assert_eq!(r.url.path(), "/places/paris", "{}", out.yaml);
    assert!(
        out.yaml.contains("read as the path parameter"),
        "{}",
        out.yaml
    );
    let r = rendered(&config, "price", json!({"item": "7"}));
    assert_eq!(r.url.path(), "/prices/$usd/7", "{}", out.yaml);
}

#[test]
fn exploded_label_and_matrix_path_lists_and_objects_follow_the_style_table() {
    let param = |name: &str, style: &str, explode: bool, schema: Value| json!({"name": name, "in": "path", "required": true, "style": style, "explode": explode, "schema": schema});
    let list = json!({"type": "array", "items": {"type": "string"}});
    let color = json!({"type": "object", "properties": {"R": {"type": "integer"}, "G": {"type": "integer"}}});
    let get = |id: &str, p: Value| json!({"get": {"operationId": id, "parameters": [p], "responses": ok()}});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/l/{ids}": get("label_list", param("ids", "label", true, list.clone())),
            "/m/{ids}": get("matrix_list", param("ids", "matrix", true, list.clone())),
            "/mo/{color}": get("matrix_object", param("color", "matrix", true, color.clone())),
            "/lo/{color}": get("label_object", param("color", "label", true, color.clone())),
            "/so/{color}": get("simple_object", param("color", "simple", false, color)),
            "/ml/{ids}": get("matrix_flat", param("ids", "matrix", false, list)),
        }),
    ));
    let path = |tool: &str, a: Value| rendered(&config, tool, a).url.path().to_string();
    // `.a.b`: the model writes the list joined by dots, which a path keeps as they are.
    assert_eq!(
        path("label_list", json!({"ids": "a.b"})),
        "/l/.a.b",
        "{}",
        out.yaml
    );
    assert_eq!(
        doc["tools"]["label_list"]["input_schema"]["properties"]["ids"]["type"],
        "string"
    );
    // `;ids=a;ids=b` repeats the name, which a template writes once: one item a call.
    assert_eq!(path("matrix_list", json!({"ids": ["a"]})), "/m/;ids=a");
    assert_eq!(
        doc["tools"]["matrix_list"]["input_schema"]["properties"]["ids"]["maxItems"],
        1
    );
    // `;R=100;G=200`: one argument per member, in the order the schema lists them.
    assert_eq!(
        path("matrix_object", json!({"color_R": 100, "color_G": 200})),
        "/mo/;R=100;G=200"
    );
    // Never an object's JSON text: each member an argument, the separators literal.
    assert_eq!(
        path("label_object", json!({"color_R": 100, "color_G": 200})),
        "/lo/.R=100.G=200"
    );
    assert_eq!(
        path("simple_object", json!({"color_R": 100, "color_G": 200})),
        "/so/R,100,G,200"
    );
    // Unexploded, a list is the comma join it always was.
    let flat = path("matrix_flat", json!({"ids": ["a", "b"]}));
    assert_eq!(
        percent_encoding::percent_decode_str(&flat)
            .decode_utf8()
            .unwrap(),
        "/ml/;ids=a,b"
    );
}

#[test]
fn unexploded_label_and_matrix_path_objects_keep_the_separators_the_style_table_shows() {
    let color = json!({"type": "object", "required": ["R", "G"], "properties": {"R": {"type": "integer"}, "G": {"type": "string"}}});
    let get = |id: &str, style: &str, explode: bool| {
        json!({"get": {"operationId": id, "parameters": [
        {"name": "color", "in": "path", "required": true, "style": style, "explode": explode, "schema": color.clone()},
    ], "responses": ok()}})
    };
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/label/{color}": get("label", "label", false),
            "/matrix/{color}": get("matrix", "matrix", false),
            "/simple/{color}": get("simple", "simple", true),
        }),
    ));
    let path = |tool: &str, a: Value| rendered(&config, tool, a).url.path().to_string();
    let a = json!({"color_R": 100, "color_G": "g 2"});
    // The style's `,` and `=` are written as they are; a member's value is encoded.
    assert_eq!(
        path("label", a.clone()),
        "/label/.R,100,G,g%202",
        "{}",
        out.yaml
    );
    assert_eq!(path("matrix", a.clone()), "/matrix/;color=R,100,G,g%202");
    assert_eq!(path("simple", a), "/simple/R=100,G=g%202");
    assert_eq!(
        path("label", json!({"color_R": 1, "color_G": "a,b"})),
        "/label/.R,1,G,a%2Cb"
    );
    let input = &doc["tools"]["matrix"]["input_schema"];
    assert_eq!(input["properties"]["color_R"]["type"], "integer");
    assert_eq!(input["required"], json!(["color_R", "color_G"]));
}

#[test]
fn an_exploded_matrix_list_of_at_least_two_sends_each_item_after_the_name() {
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/range/{span}/days": {"get": {"operationId": "range", "parameters": [
            {"name": "span", "in": "path", "required": true, "style": "matrix", "explode": true,
             "schema": {"type": "array", "minItems": 2, "maxItems": 2, "items": {"type": "string", "format": "date"}}},
        ], "responses": ok()}}}),
    ));
    let r = rendered(
        &config,
        "range",
        json!({"span_1": "2024-01-01", "span_2": "2024-02-01"}),
    );
    assert_eq!(
        r.url.path(),
        "/range/;span=2024-01-01;span=2024-02-01/days",
        "{}",
        out.yaml
    );
    let input = &doc["tools"]["range"]["input_schema"];
    assert_eq!(input["properties"]["span_1"]["format"], "date");
    assert_eq!(input["required"], json!(["span_1", "span_2"]));
}

#[test]
fn a_key_sent_as_a_cookie_rides_in_the_one_cookie_header_with_the_cookie_parameters() {
    let mut api = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/a": {"get": {"operationId": "a", "parameters": [
                {"name": "session", "in": "cookie", "required": true, "schema": {"type": "string"}},
                {"name": "api_key", "in": "cookie", "required": true, "schema": {"type": "string"}},
            ], "responses": ok()}},
            "/b": {"get": {"operationId": "b", "responses": ok()}},
        }),
    );
    api["components"] =
        json!({"securitySchemes": {"key": {"type": "apiKey", "in": "cookie", "name": "api_key"}}});
    api["security"] = json!([{"key": []}]);
    let (out, doc, config) = checked(&api);
    // The key is the operator's, read from the environment when the config loads.
    assert!(
        out.report.join("\n").contains("DIR_API_KEY"),
        "{:?}",
        out.report
    );
    assert!(!out.yaml.contains("cannot send"), "{}", out.yaml);
    let key = "https://api.example.com"; // what `check` exports for every variable
    let r = rendered(&config, "a", json!({"session": "s1"}));
    assert_eq!(r.headers.get_all("cookie").iter().count(), 1);
    assert_eq!(
        r.headers["cookie"],
        format!("api_key={key}; session=s1").as_str()
    );
    let r = rendered(&config, "b", json!({}));
    assert_eq!(r.headers["cookie"], format!("api_key={key}").as_str());
    // Never an argument, and no second `Cookie` from the dependency.
    assert!(
        doc["tools"]["a"]["input_schema"]["properties"]
            .get("api_key")
            .is_none()
    );
    assert!(
        doc["dependencies"]["dir"].get("headers").is_none(),
        "{}",
        out.yaml
    );
}

#[test]
fn a_port_variable_takes_its_declared_value_or_is_refused_by_name() {
    let get = json!({"/a": {"get": {"operationId": "a", "responses": ok()}}});
    for (vars, base) in [
        (
            json!({"port": {"default": "8443"}}),
            "https://api.vendor.io:8443/v1",
        ),
        (
            json!({"port": {"enum": ["9443", "443"]}}),
            "https://api.vendor.io:9443/v1",
        ),
        (
            json!({"port": {"default": "port", "enum": ["7443"]}}),
            "https://api.vendor.io:7443/v1",
        ),
    ] {
        let servers = json!([{"url": "https://api.vendor.io:{port}/v1", "variables": vars}]);
        let (_, doc, _) = checked(&spec(servers, get.clone()));
        assert_eq!(doc["dependencies"]["dir"]["base_url"], base, "{vars}");
    }
    let refused = import(&spec(
        json!([{"url": "https://api.vendor.io:{port}/v1"}]),
        get.clone(),
    ))
    .err()
    .unwrap_or_default();
    assert!(
        refused.contains("the variable `port`, which it does not declare")
            && refused.contains("--base-url"),
        "{refused}"
    );
    let servers = json!([{"url": "https://api.vendor.io:{port}/v1", "variables": {"port": {"default": "port"}}}]);
    let refused = import(&spec(servers, get)).err().unwrap_or_default();
    assert!(
        refused.contains("declares without a usable default or enum value"),
        "{refused}"
    );
}

#[test]
fn an_unexploded_path_list_is_sent_with_its_commas_as_separators() {
    let param = |name: &str, style: Option<&str>| {
        let mut p = json!({"name": name, "in": "path", "required": true,
            "schema": {"type": "array", "items": {"type": "string"}}});
        if let Some(s) = style {
            p["style"] = json!(s);
        }
        p
    };
    let get = |id: &str, p: Value| json!({"get": {"operationId": id, "parameters": [p], "responses": ok()}});
    let (out, _, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/users/{ids}/roles": get("simple", param("ids", None)),
            "/tags{ids}": get("label", param("ids", Some("label"))),
            "/colors{ids}": get("matrix", param("ids", Some("matrix"))),
        }),
    ));
    let path = |tool: &str| {
        rendered(&config, tool, json!({"ids": ["3", "b,c", "d e"]}))
            .url
            .path()
            .to_string()
    };
    // The style table: `3,4,5`, `.3,4,5`, `;ids=3,4,5`; an item's own comma stays
    // encoded, so the server still sees three items.
    assert_eq!(path("simple"), "/users/3,b%2Cc,d%20e/roles", "{}", out.yaml);
    assert_eq!(path("label"), "/tags.3,b%2Cc,d%20e");
    assert_eq!(path("matrix"), "/colors;ids=3,b%2Cc,d%20e");
}

#[test]
fn a_json_body_declared_under_another_json_media_type_is_sent_labelled_so() {
    let body = |kinds: &[&str]| {
        let content: Map<String, Value> = kinds
            .iter()
            .map(|k| (k.to_string(), json!({"schema": {"type": "object", "properties": {"name": {"type": "string"}}}})))
            .collect();
        json!({"required": true, "content": content})
    };
    let op = |id: &str, kinds: &[&str]| json!({"operationId": id, "requestBody": body(kinds), "responses": ok()});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/merge": {"patch": op("merge", &["application/merge-patch+json"])},
            "/jsonapi": {"post": op("jsonapi", &["application/vnd.api+json; ext=bulk"])},
            "/both": {"put": op("both", &["application/vnd.api+json", "application/json"])},
            "/any": {"post": op("any", &["*/*"])},
        }),
    ));
    let sent = |tool: &str| {
        let r = rendered(&config, tool, json!({"body": {"name": "n"}}));
        assert_eq!(r.body.as_deref(), Some(&br#"{"name":"n"}"#[..]), "{tool}");
        r.content_type
    };
    assert_eq!(
        sent("merge"),
        "application/merge-patch+json",
        "{}",
        out.yaml
    );
    assert_eq!(sent("jsonapi"), "application/vnd.api+json; ext=bulk");
    // Where the description also takes `application/json`, or any type, that is sent.
    assert_eq!(sent("both"), "application/json");
    assert_eq!(sent("any"), "application/json");
    assert!(
        doc["tools"]["both"]["request"]
            .get("content_type")
            .is_none()
    );

    // Swagger 2.0 names it in `consumes`.
    let (out, _) = import_and_check(&json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "consumes": ["application/json"],
        "paths": {"/items/{id}": {"patch": {
            "operationId": "patch_item",
            "consumes": ["application/json-patch+json"],
            "parameters": [
                {"name": "id", "in": "path", "required": true, "type": "string"},
                {"name": "ops", "in": "body", "required": true, "schema": {"type": "array", "items": {"type": "object"}}}],
            "responses": {"200": {"description": "ok"}}}}},
    }));
    let config = check(&out.yaml).unwrap();
    let r = rendered(
        &config,
        "patch_item",
        json!({"id": "7", "body": [{"op": "remove", "path": "/a"}]}),
    );
    assert_eq!(
        r.content_type, "application/json-patch+json",
        "{}",
        out.yaml
    );
}

#[test]
fn a_text_or_xml_body_is_a_string_sent_as_written_with_its_declared_type() {
    // AppVeyor's YAML settings (`text/plain`), HDInsight's job arguments
    // (`application/text`), S3-style XML documents: a body in a text media type of its
    // own is the model's text, sent verbatim and labelled as the description says.
    let op = |id: &str, required: bool, content: Value| {
        json!({"operationId": id,
        "requestBody": {"required": required, "description": "The settings.", "content": content},
        "responses": ok()})
    };
    let (out, doc, config) = checked(&json!({
        "openapi": "3.0.3",
        "info": {"title": "Dir", "version": "1.0"},
        "servers": [{"url": "https://api.example.com"}],
        "components": {"schemas": {"Tagging": {"type": "object", "xml": {"name": "Tagging"},
            "properties": {"TagSet": {"type": "array", "items": {"type": "string"}}}}}},
        "paths": {
            "/yaml": {"put": op("yaml", true, json!({"text/plain": {"schema": {"type": "string", "maxLength": 64}}}))},
            "/tagging": {"put": op("tagging", true, json!({"application/xml": {"schema": {"$ref": "#/components/schemas/Tagging"}}}))},
            "/note": {"post": op("note", false, json!({"text/*": {}}))},
            "/args": {"post": op("args", true, json!({"application/text": {"schema": {"type": "string"}}}))},
            "/both": {"post": op("both", true, json!({
                "application/xml": {"schema": {"type": "object"}},
                "application/json": {"schema": {"type": "object"}}}))},
            "/file": {"post": op("file", true, json!({"text/csv": {"schema": {"type": "string", "format": "binary"}}}))},
        },
    }));
    let tools = doc["tools"].as_object().unwrap();
    let yaml = rendered(&config, "yaml", json!({"body": "image: ubuntu\n"}));
    assert_eq!(yaml.body.as_deref(), Some(&b"image: ubuntu\n"[..]));
    assert_eq!(yaml.content_type, "text/plain");
    // A string schema is still the argument's: its length is checked.
    assert_eq!(
        tools["yaml"]["input_schema"]["properties"]["body"]["maxLength"],
        64
    );
    assert_eq!(tools["yaml"]["input_schema"]["required"], json!(["body"]));
    let xml = "<Tagging><TagSet><Tag><Key>a</Key></Tag></TagSet></Tagging>";
    let r = rendered(&config, "tagging", json!({"body": xml}));
    assert_eq!(r.body.as_deref(), Some(xml.as_bytes()));
    assert_eq!(r.content_type, "application/xml");
    assert_eq!(
        tools["tagging"]["input_schema"]["properties"]["body"]["type"],
        "string"
    );
    assert!(
        out.yaml
            .contains("the request body is `application/xml` text, sent as written"),
        "{}",
        out.yaml
    );
    // The range `text/*` names no type to send: plain text is. Optional and absent,
    // nothing is sent.
    assert_eq!(
        rendered(&config, "note", json!({"body": "hi"})).content_type,
        "text/plain"
    );
    assert_eq!(rendered(&config, "note", json!({})).body, None);
    assert_eq!(
        rendered(&config, "args", json!({"body": "a b"})).content_type,
        "application/text"
    );
    // JSON, when offered, is still what is sent.
    assert_eq!(
        rendered(&config, "both", json!({"body": {}})).content_type,
        "application/json"
    );
    // A `format: binary` string in a text media type is the text of the file: a CSV
    // is sent as written, as `text/csv`.
    let csv = rendered(&config, "file", json!({"body": "a,b\n1,2\n"}));
    assert_eq!(csv.body.as_deref(), Some(&b"a,b\n1,2\n"[..]));
    assert_eq!(csv.content_type, "text/csv");

    // Swagger 2.0 says it in `consumes`.
    let (_, doc) = import_and_check(&json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "paths": {"/settings/yaml": {"put": {"operationId": "put_yaml", "consumes": ["text/plain"],
            "parameters": [{"name": "settings", "in": "body", "required": true, "schema": {"type": "string"}}],
            "responses": {"204": {"description": "none"}}}},
            "/report.csv": {"put": {"operationId": "put_csv", "consumes": ["text/csv"],
            "parameters": [{"name": "report", "in": "body", "required": true, "schema": {"type": "string", "format": "binary"}}],
            "responses": {"204": {"description": "none"}}}}},
    }));
    for tool in ["put_yaml", "put_csv"] {
        let req = &doc["tools"][tool]["request"];
        assert_eq!(req["body_encoding"], "text", "{doc}");
    }
    assert_eq!(
        doc["tools"]["put_yaml"]["request"]["content_type"], "text/plain",
        "{doc}"
    );
    assert_eq!(
        doc["tools"]["put_csv"]["request"]["content_type"], "text/csv",
        "{doc}"
    );
}

#[test]
fn a_body_of_raw_bytes_is_never_sent_as_json() {
    // Swagger 2.0 says what a body is in `consumes`: Netlify's deploy uploads
    // (`application/octet-stream`, a `format: binary` string), Docker's image load
    // (`application/x-tar`, optional). Neither is a JSON value. An XML document is
    // text, sent as written.
    let body = |id: &str, consumes: Value, required: bool, schema: Value| {
        json!({"put": {"operationId": id, "consumes": consumes,
            "parameters": [{"name": "b", "in": "body", "required": required, "schema": schema}],
            "responses": {"204": {"description": "none"}}}})
    };
    let bytes = json!({"type": "string", "format": "binary"});
    let (out, doc) = import_and_check(&json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "consumes": ["application/json"],
        "definitions": {"Blob": {"type": "string", "format": "binary"}},
        "paths": {
            "/files": body("upload", json!(["application/octet-stream"]), true, bytes.clone()),
            "/load": body("load", json!(["application/x-tar"]), false, bytes.clone()),
            "/xml": body("xml", json!(["application/xml"]), true, json!({"type": "object"})),
            "/blob": body("blob", json!(["application/json"]), true, json!({"$ref": "#/definitions/Blob"})),
            "/any": body("any", json!(["*/*"]), true, json!({"type": "string"})),
            "/json": body("json", json!(["application/json", "application/xml"]), true, json!({"type": "object"})),
        },
    }));
    let tools = doc["tools"].as_object().unwrap();
    for skipped in [
        "request body is application/octet-stream (only JSON and form bodies are supported)",
        "request body is application/json holding raw bytes",
        "request body is */* holding raw bytes",
    ] {
        assert!(out.yaml.contains(skipped), "{skipped}\n{}", out.yaml);
    }
    assert_eq!(tools["xml"]["request"]["body_encoding"], "text");
    for gone in ["upload", "blob", "any"] {
        assert!(!tools.contains_key(gone), "{gone}\n{}", out.yaml);
    }
    assert!(
        tools["load"]["request"].get("body").is_none(),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml
            .contains("the optional application/x-tar request body is not sent"),
        "{}",
        out.yaml
    );
    assert_eq!(tools["json"]["request"]["body"], "{body}");

    // OpenAPI 3: a file under `*/*` (Apideck's uploads) or a JSON type is bytes too; a
    // JSON schema beside it is still sent.
    let op = |id: &str, content: Value| json!({"operationId": id, "requestBody": {"required": true, "content": content}, "responses": ok()});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/upload": {"post": op("upload", json!({"*/*": {"schema": bytes}}))},
            "/text": {"post": op("text", json!({"*/*": {"schema": {"type": "string"}}}))},
            "/both": {"post": op("both", json!({
                "*/*": {"schema": bytes},
                "application/json": {"schema": {"type": "object", "properties": {"name": {"type": "string"}}}}}))},
        }),
    ));
    let tools = doc["tools"].as_object().unwrap();
    assert!(
        !tools.contains_key("upload") && !tools.contains_key("text"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains(
            "request body is */* holding raw bytes (only JSON and form bodies are supported)"
        ),
        "{}",
        out.yaml
    );
    let r = rendered(&config, "both", json!({"body": {"name": "n"}}));
    assert_eq!(r.content_type, "application/json");
    assert_eq!(r.body.as_deref(), Some(&br#"{"name":"n"}"#[..]));
}

#[test]
fn an_operation_server_its_path_repeats_is_called_once() {
    // VTEX: an operation's own server ends with the segments its path starts with; the
    // same server written for another operation, whose path does not, stays as written.
    let get = |id: &str, server: &str| json!({"get": {"operationId": id, "servers": [{"url": server}], "responses": ok()}});
    let accessories = "https://shop.vendor.io/api/crossselling/accessories";
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/api/crossselling/accessories/{id}": get("accessories", accessories),
            "/api/crossselling/showtogether/{id}": get("showtogether", accessories),
            "/v1/files/{id}": get("file", "https://files.vendor.io/v1"),
        }),
    ));
    let url = |tool: &str| rendered(&config, tool, json!({"id": "7"})).url.to_string();
    assert_eq!(
        url("accessories"),
        "https://shop.vendor.io/api/crossselling/accessories/7",
        "{}",
        out.yaml
    );
    assert_eq!(url("file"), "https://files.vendor.io/v1/files/7");
    assert_eq!(
        url("showtogether"),
        "https://shop.vendor.io/api/crossselling/accessories/api/crossselling/showtogether/7"
    );
    assert!(
        out.yaml.contains(
            "its server `https://shop.vendor.io/api/crossselling/accessories` ends with `/api/crossselling/accessories`, which its path starts with again"
        ),
        "{}",
        out.yaml
    );
    let dep = doc["tools"]["showtogether"]["dependency"].as_str().unwrap();
    assert_eq!(doc["dependencies"][dep]["base_url"], accessories);
}

#[test]
fn a_body_under_an_empty_media_type_is_read_as_any_type() {
    // Spoonacular's meal-planner operations (https://github.com/APIs-guru/openapi-directory,
    // APIs/spoonacular.com) write their object bodies under `""`, which names no media
    // type: it restricts nothing, as `*/*` does, so the object is sent as JSON.
    let object = json!({"type": "object", "required": ["date"], "properties": {
        "date": {"type": "string"}, "slot": {"type": "integer"}}});
    let body = |content: Value| json!({"required": true, "content": content});
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/plan": {"post": {"operationId": "plan", "requestBody": body(json!({"": {"schema": object}})), "responses": ok()}},
            "/both": {"post": {"operationId": "both", "requestBody": body(json!({"": {"schema": object}, "application/json": {"schema": object}})), "responses": ok()}},
            "/raw": {"put": {"operationId": "raw", "requestBody": body(json!({"": {"schema": {"type": "string", "format": "binary"}}})), "responses": ok()}},
        }),
    ));
    let r = rendered(
        &config,
        "plan",
        json!({"body": {"date": "2024-01-02", "slot": 1}}),
    );
    assert_eq!(r.content_type, "application/json");
    let sent: Value = serde_json::from_slice(&r.body.unwrap()).unwrap();
    assert_eq!(sent, json!({"date": "2024-01-02", "slot": 1}));
    assert_eq!(
        doc["tools"]["plan"]["input_schema"]["required"],
        json!(["body"])
    );
    assert!(
        out.yaml.contains("the body's media type is empty"),
        "{}",
        out.yaml
    );
    assert!(doc["tools"].get("both").is_some());
    // Bytes under it are a file, skipped with a reason that says so.
    assert!(doc["tools"].get("raw").is_none());
    assert!(
        out.yaml.contains("an empty media type holding raw bytes"),
        "{}",
        out.yaml
    );
}

#[test]
fn a_media_type_missing_its_slash_is_read_as_meant_or_refused_saying_why() {
    // Loket's description (openapi-directory, loket.nl.json) writes
    // `applicationjson;version=2018-01-01` for five bodies beside 200 written
    // `application/json;version=2018-01-01`; such an operation was skipped.
    let body = |media: &str| {
        json!({"required": true, "content": {media: {"schema": {
            "type": "object", "properties": {"name": {"type": "string"}}}}}})
    };
    let answer = |media: &str| {
        json!({"200": {"description": "ok", "content": {media: {"schema": {
            "type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}}}})
    };
    let (out, doc, config) = checked(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/employees": {"post": {"operationId": "create",
                "requestBody": body("applicationjson;version=2018-01-01"),
                "responses": answer("applicationjson;version=2018-01-01")}},
            "/notes": {"post": {"operationId": "note", "requestBody": body("TextPlain"),
                "responses": ok()}},
            "/forms": {"post": {"operationId": "form",
                "requestBody": body("applicationx-www-form-urlencoded"), "responses": ok()}},
            // No type can be told from these: they stay refused, and the reason says why.
            "/bare": {"post": {"operationId": "bare", "requestBody": body("json"), "responses": ok()}},
            "/half": {"post": {"operationId": "half", "requestBody": body("application"),
                "responses": ok()}},
        }),
    ));
    let r = rendered(&config, "create", json!({"body": {"name": "Ada"}}));
    assert_eq!(r.content_type, "application/json");
    assert_eq!(r.body.as_deref(), Some(br#"{"name":"Ada"}"#.as_slice()));
    assert_eq!(
        doc["tools"]["create"]["contract"]["response_schema"]["required"],
        json!(["id"]),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml.contains("the media type `applicationjson;version=2018-01-01` has no `/` between type and subtype (RFC 6838 § 4.2): read as `application/json;version=2018-01-01`"),
        "{}",
        out.yaml
    );
    assert_eq!(doc["tools"]["form"]["request"]["body_encoding"], "form");
    let r = rendered(&config, "note", json!({"body": "hello"}));
    assert_eq!(r.content_type, "Text/Plain");
    assert!(doc["tools"].get("bare").is_none() && doc["tools"].get("half").is_none());
    assert!(
        out.yaml
            .contains("json (not a media type: RFC 6838 writes `type/subtype`)")
            && out
                .yaml
                .contains("application (not a media type: RFC 6838 writes `type/subtype`)"),
        "{}",
        out.yaml
    );
}

/// Swagger 2.0's `consumes` and `produces` are read with a missing `/` put back as an
/// OpenAPI 3 `content` key is, and the written config says so the same way, on the
/// tools whose body or answer it is about.
#[test]
fn a_swagger_media_type_missing_its_slash_is_explained_as_an_openapi_3_one_is() {
    let swagger = json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "consumes": ["applicationjson;version=2018-01-01"],
        "paths": {
            "/employees": {
                "post": {"operationId": "create", "produces": ["applicationjson"],
                    "parameters": [{"name": "body", "in": "body", "required": true,
                        "schema": {"type": "object", "properties": {"name": {"type": "string"}}}}],
                    "responses": {"200": {"description": "ok", "schema": {
                        "type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}}},
                "get": {"operationId": "list", "responses": {"200": {"description": "ok"}}},
            },
            "/forms": {"post": {"operationId": "form", "consumes": ["applicationx-www-form-urlencoded"],
                "parameters": [{"name": "caption", "in": "formData", "type": "string"}],
                "responses": {"200": {"description": "ok"}}}},
        },
    });
    let (out, doc) = import_and_check(&swagger);
    let config = check(&out.yaml).unwrap();
    let r = rendered(&config, "create", json!({"body": {"name": "Ada"}}));
    assert_eq!(r.content_type, "application/json");
    assert_eq!(doc["tools"]["form"]["request"]["body_encoding"], "form");
    let note = |written: &str, read: &str| {
        format!(
            "the media type `{written}` has no `/` between type and subtype (RFC 6838 § 4.2): read as `{read}`"
        )
    };
    let body = note(
        "applicationjson;version=2018-01-01",
        "application/json;version=2018-01-01",
    );
    let answer = note("applicationjson", "application/json");
    let form = note(
        "applicationx-www-form-urlencoded",
        "application/x-www-form-urlencoded",
    );
    // Each note stands in the comment above the tool it is about, and only there.
    let block = |label: &str, tool: &str| {
        let end = out.yaml.find(&format!("\n  {tool}:\n")).unwrap();
        let start = out.yaml[..end].rfind(&format!("\n  # {label}\n")).unwrap();
        out.yaml[start..end].to_string()
    };
    let create = block("POST /employees", "create");
    assert!(
        create.contains(&body) && create.contains(&answer),
        "{}",
        out.yaml
    );
    assert!(block("POST /forms", "form").contains(&form), "{}", out.yaml);
    assert!(
        !block("GET /employees", "list").contains("has no `/`"),
        "{}",
        out.yaml
    );
}
