//! Kinds of description that once gave a config `check` refused: each found by importing
//! every description of a public API directory, each written here small and by hand.
//! Every import must pass `check` unchanged, or fail saying what to pass.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;

fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-directory-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Imports `spec` (JSON), returning the outcome or the import's error.
fn import(spec: &Value) -> Result<Outcome, String> {
    let dir = folder();
    let file = dir.join("api.json");
    std::fs::write(&file, spec.to_string()).unwrap();
    let out = run(&Options {
        spec: file,
        owner: Some("api-team@example.com".into()),
        ..Options::default()
    });
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// What `toolgate check` says of `yaml`, every `${VAR}` set to an origin.
fn check(yaml: &str) -> Result<toolgate_config::Config, String> {
    let dir = folder();
    let env = |_: &str| Some("https://api.example.com".to_string());
    let out = toolgate_config::parse(&dir.join("t.yaml"), yaml, Path::new(&dir), &env)
        .map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// Imports `spec` and checks the config, which must pass.
fn import_and_check(spec: &Value) -> (Outcome, Value) {
    let out = import(spec).unwrap_or_else(|e| panic!("import: {e}"));
    check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    (out, doc)
}

fn spec(servers: Value, paths: Value) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Dir", "version": "1.0"},
        "servers": servers,
        "paths": paths,
    })
}

fn one_get(extra: Value) -> Value {
    let mut op = json!({
        "operationId": "thing",
        "responses": {"200": {"description": "ok", "content": {"application/json": {
            "schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}
        }}}}
    });
    if let (Value::Object(o), Value::Object(e)) = (&mut op, extra) {
        o.extend(e);
    }
    json!({"/thing": {"get": op}})
}

#[test]
fn control_characters_anywhere_in_the_spec_are_escaped_in_the_config() {
    let every: String = ('\u{0}'..='\u{1F}')
        .chain('\u{7F}'..='\u{A0}')
        .chain(['\u{2028}', '\u{2029}', '\u{FEFF}', '\u{FFFE}', '\u{FFFF}'])
        .chain(['"', '\\', '#', ':', '\''])
        .collect();
    let text = format!("recipient\u{80}\u{99}s {every} end");
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/thing": {"get": {
            "operationId": format!("get{every}thing"),
            "summary": text,
            "parameters": [{"name": "q", "in": "query", "description": text,
                            "schema": {"type": "string", "enum": [text, "plain"], "example": text}}],
            "responses": {"200": {"description": text, "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Thing"}}}}}
        }}}),
    );
    s["info"]["title"] = json!(format!("Dir {every}"));
    s["components"] = json!({"schemas": {"Thing": {
        "type": "object", "description": text, "required": ["id"],
        "properties": {"id": {"type": "string", "enum": [text]}, (text.clone()): {"type": "string"}}
    }}});
    let (out, doc) = import_and_check(&s);
    // A tab is allowed in a comment, where the spec's text is kept as written.
    let raw: Vec<char> = out
        .yaml
        .chars()
        .filter(|c| !matches!(c, '\n' | '\t') && yaml::must_escape(*c))
        .collect();
    assert!(raw.is_empty(), "raw {raw:?} left in the config");
    let tool = &doc["tools"]["get_thing"];
    assert_eq!(
        tool["input_schema"]["properties"]["q"]["enum"][0],
        json!(text)
    );
    let component = &doc["schemas"]["dir"]["Thing"];
    assert_eq!(component["properties"]["id"]["enum"][0], json!(text));
    assert!(component["properties"].get(&text).is_some());
}

#[test]
fn two_servers_on_one_host_get_two_dependencies() {
    // Both derive `dir_example_com`, as the main dependency plus that suffix could.
    let paths = json!({
        "/a": {"get": {"operationId": "a", "servers": [{"url": "https://example.com/one"}],
                       "responses": {"204": {"description": "none"}}}},
        "/b": {"get": {"operationId": "b", "servers": [{"url": "https://example.com/two"}],
                       "responses": {"204": {"description": "none"}}}},
        "/c": {"get": {"operationId": "c", "servers": [{"url": "https://example.com/one"}],
                       "responses": {"204": {"description": "none"}}}},
    });
    let (_, doc) = import_and_check(&spec(json!([{"url": "https://api.example.com"}]), paths));
    let deps = doc["dependencies"].as_object().unwrap();
    assert_eq!(
        deps.keys().collect::<Vec<_>>(),
        ["dir", "dir_example_com", "dir_example_com_2"]
    );
    assert_eq!(doc["tools"]["a"]["dependency"], "dir_example_com");
    assert_eq!(doc["tools"]["b"]["dependency"], "dir_example_com_2");
    assert_eq!(doc["tools"]["c"]["dependency"], "dir_example_com");
    assert_eq!(
        deps["dir_example_com_2"]["base_url"],
        "https://example.com/two"
    );
}

#[test]
fn names_that_are_not_http_tokens_are_not_sent() {
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        one_get(json!({"parameters": [
            {"name": "", "in": "header", "schema": {"type": "string"}},
            {"name": "Bad Header", "in": "header", "schema": {"type": "string"}},
            {"name": "", "in": "query", "schema": {"type": "string"}},
            {"name": "Good-Header", "in": "header", "schema": {"type": "string"}},
        ]})),
    );
    s["paths"]["/other"] = json!({"get": {"operationId": "other",
        "parameters": [{"name": "Needed Header", "in": "header", "required": true, "schema": {"type": "string"}}],
        "responses": {"204": {"description": "none"}}}});
    // Both schemes name headers no HTTP request can carry; the second is the one
    // most operations use, and neither may reach the config.
    s["components"] = json!({"securitySchemes": {
        "first": {"type": "apiKey", "in": "header", "name": "ADVICEment API Key"},
        "second": {"type": "apiKey", "in": "header", "name": "RapidAPI.com API Key"},
    }});
    s["security"] = json!([{"second": []}]);
    let (out, doc) = import_and_check(&s);
    let headers = doc["tools"]["thing"]["request"]["headers"]
        .as_object()
        .unwrap();
    assert_eq!(headers.keys().collect::<Vec<_>>(), ["Good-Header"]);
    assert!(doc["tools"]["thing"]["request"].get("query").is_none());
    assert!(
        out.yaml
            .contains("# the optional header parameter `Bad Header` is not sent")
    );
    assert!(doc["tools"].get("other").is_none());
    assert!(
        out.yaml.contains("\n  # GET /other (other)\n"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml
            .contains("needs the header parameter `Needed Header`")
    );
    assert!(doc["dependencies"]["dir"].get("headers").is_none());
    assert!(
        out.yaml
            .contains("no security scheme of the spec can be sent"),
        "{}",
        out.yaml
    );
    // Listed with what makes it unusable, and how many requirement lists name it.
    assert!(
        out.yaml.contains("first choice of 1 requirement list)"),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml
            .contains("[cannot be sent: `RapidAPI.com API Key` is not a valid HTTP header name]")
    );
    // A usable scheme beside an unusable one is chosen.
    s["components"]["securitySchemes"]["third"] =
        json!({"type": "apiKey", "in": "header", "name": "X-Key"});
    let (_, doc) = import_and_check(&s);
    assert_eq!(
        doc["dependencies"]["dir"]["headers"],
        json!({"X-Key": "${DIR_API_KEY}"})
    );
    // Chosen by name, it is left out with a warning.
    let dir = folder();
    let file = dir.join("api.json");
    std::fs::write(&file, s.to_string()).unwrap();
    let out = run(&Options {
        spec: file,
        owner: Some("api-team@example.com".into()),
        security: Some("first".into()),
        ..Options::default()
    })
    .unwrap();
    check(&out.yaml).unwrap();
    assert!(out.yaml.contains("security scheme `first` cannot be sent"));
    // A query key's name is percent-encoded into the base URL.
    s["components"]["securitySchemes"]["third"] =
        json!({"type": "apiKey", "in": "query", "name": "api key"});
    s["security"] = json!([{"third": []}]);
    let (_, doc) = import_and_check(&s);
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com?api%20key=${DIR_API_KEY}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn malformed_schema_keywords_are_left_out_so_every_schema_is_valid() {
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/thing": {"get": {"operationId": "thing",
            "parameters": [{"name": "q", "in": "query", "schema": {"type": "string", "minLength": "3"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"$ref": "#/components/schemas/Item"}}}}}}}}),
    );
    s["components"] = json!({"schemas": {
        // A property named `type` written without `properties` around it.
        "itemType": {"type": {"description": "Type of the item.", "enum": ["A", "B"], "type": "string"}},
        "Item": {"type": "object", "required": ["kind"], "properties": {
            "kind": {"$ref": "#/components/schemas/itemType"},
            "flag": {"type": "boolean", "required": true},
            "size": {"type": ["integer", "integer", "bogus"], "multipleOf": 0, "maxLength": -1},
        }},
    }});
    let (out, doc) = import_and_check(&s);
    let set = doc["schemas"]["dir"].as_object().unwrap();
    for (name, schema) in set {
        assert!(
            jsonschema::draft202012::meta::is_valid(schema),
            "{name}: {schema}"
        );
    }
    assert_eq!(set["itemType"], json!({}));
    assert_eq!(
        set["Item"]["properties"]["size"],
        json!({"type": ["integer"]})
    );
    let q = &doc["tools"]["thing"]["input_schema"]["properties"]["q"];
    assert_eq!(q, &json!({"type": "string"}));
    assert!(out.yaml.contains("`type: {"), "{}", out.yaml);
    // The contract is enforced, not replaced by the permissive one.
    assert_eq!(doc["tools"]["thing"]["contract"]["origin"], "imported");
}

#[test]
fn every_kind_of_server_url_becomes_a_usable_base_url_or_a_clear_error() {
    for (server, base_url) in [
        ("https://api.example.com/v1", "https://api.example.com/v1"),
        ("//api.abr.ato.gov.au", "https://api.abr.ato.gov.au"),
        ("//api.example.com/v2/", "https://api.example.com/v2"),
        ("api.calorieninjas.com", "https://api.calorieninjas.com"),
        ("api.example.com/v1", "https://api.example.com/v1"),
        ("/v1.33", "${DIR_ORIGIN}/v1.33"),
        ("v1", "${DIR_ORIGIN}/v1"),
        ("", "${DIR_ORIGIN}"),
    ] {
        let (_, doc) = import_and_check(&spec(json!([{"url": server}]), one_get(json!({}))));
        assert_eq!(
            doc["dependencies"]["dir"]["base_url"], base_url,
            "{server:?}"
        );
    }
    for server in ["Your API URL", ","] {
        let err = import(&spec(json!([{"url": server}]), one_get(json!({})))).unwrap_err();
        assert!(
            err.contains(&format!("`{server}`")) && err.contains("pass --base-url"),
            "{server}: {err}"
        );
        // --base-url is the way out.
        let dir = folder();
        let file = dir.join("api.json");
        std::fs::write(
            &file,
            spec(json!([{"url": server}]), one_get(json!({}))).to_string(),
        )
        .unwrap();
        let out = run(&Options {
            spec: file,
            owner: Some("api-team@example.com".into()),
            base_url: Some("https://api.example.com".into()),
            ..Options::default()
        })
        .unwrap();
        check(&out.yaml).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
    // An unusable first server gives way to a usable later one.
    let (_, doc) = import_and_check(&spec(
        json!([{"url": "Your API URL"}, {"url": "https://api.example.com"}]),
        one_get(json!({})),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com"
    );
    // An operation's scheme-relative server gets a dependency of its own.
    let (_, doc) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        one_get(json!({"servers": [{"url": "//files.example.com"}]})),
    ));
    assert_eq!(
        doc["dependencies"]["dir_files_example_com"]["base_url"],
        "https://files.example.com"
    );
    // Swagger 2.0: a `host` with its scheme written in.
    let swagger = json!({"swagger": "2.0", "info": {"title": "Dir", "version": "1.0"},
        "host": "https://api.example.com", "basePath": "/v2/",
        "paths": {"/thing": {"get": {"operationId": "thing", "responses": {"204": {"description": "none"}}}}}});
    let (_, doc) = import_and_check(&swagger);
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com/v2"
    );
    let mut unusable = swagger.clone();
    unusable["host"] = json!("Your API host");
    let err = import(&unusable).unwrap_err();
    assert!(
        err.contains("`Your API host`") && err.contains("--base-url"),
        "{err}"
    );
    // No server at all.
    let mut none = spec(json!([]), one_get(json!({})));
    none.as_object_mut().unwrap().remove("servers");
    let err = import(&none).unwrap_err();
    assert!(err.contains("pass --base-url"), "{err}");
}
