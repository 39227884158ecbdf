//! Vendor extensions, and ways of writing the standard's keywords, that change what a
//! description means: each written here small, as the vendor's tools read it, and
//! checked against the calls and replies it documents.

use serde_json::{Value, json};

use super::directory_tests::{import_and_check, url_of};

/// A Swagger 2.0 description of Azure Storage's shape: a container is created at
/// `/{containerName}`, and listed, with the same path, by the query AutoRest's
/// `x-ms-paths` key fixes.
fn storage() -> Value {
    let container =
        json!({"name": "containerName", "in": "path", "required": true, "type": "string"});
    let fixed = |name: &str, value: &str| json!({"name": name, "in": "query", "required": true, "type": "string", "enum": [value]});
    json!({
        "swagger": "2.0",
        "info": {"title": "Blob", "version": "2021-08-06"},
        "host": "account.blob.core.windows.net",
        "schemes": ["https"],
        "produces": ["application/json"],
        "paths": {
            "/{containerName}/{blob}": {"get": {"operationId": "Blob_Download",
                "parameters": [container, {"name": "blob", "in": "path", "required": true, "type": "string"}],
                "responses": {"200": {"description": "ok", "schema": {"type": "object"}}}}}
        },
        "x-ms-paths": {
            "/{containerName}?restype=container": {"put": {"operationId": "Container_Create",
                "parameters": [container, fixed("restype", "container")],
                "responses": {"201": {"description": "created"}}}},
            "/{containerName}?restype=container&comp=list": {"get": {"operationId": "Container_ListBlobs",
                "parameters": [container, fixed("restype", "container"), fixed("comp", "list")],
                "responses": {"200": {"description": "ok", "schema": {
                    "type": "object", "required": ["Blobs"], "properties": {"Blobs": {"type": "array"}}
                }}}}}
        }
    })
}

/// The path and the query pairs (sorted: their order means nothing) of a URL.
fn sent(url: &str) -> (String, Vec<(String, String)>) {
    let url = url::Url::parse(url).unwrap();
    let mut query: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    query.sort();
    (url.path().to_string(), query)
}

#[test]
fn operations_under_x_ms_paths_are_tools_that_send_the_query_their_key_fixes() {
    let (out, doc) = import_and_check(&storage());
    let tools = doc["tools"].as_object().unwrap();
    for name in ["Blob_Download", "Container_Create", "Container_ListBlobs"] {
        assert!(tools.contains_key(name), "{name} missing:\n{}", out.yaml);
    }
    let config = super::directory_tests::check(&out.yaml).unwrap();
    let call = |tool: &str| sent(&url_of(&config, tool, json!({"containerName": "logs"})));
    let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
    assert_eq!(
        call("Container_ListBlobs"),
        (
            "/logs".to_string(),
            vec![pair("comp", "list"), pair("restype", "container")]
        )
    );
    assert_eq!(
        call("Container_Create"),
        ("/logs".to_string(), vec![pair("restype", "container")])
    );
    // The listing's contract is its own response's, not the download's.
    let listed = &config.tools["Container_ListBlobs"].contract.response;
    assert!(listed.check_bytes(br#"{"Blobs": []}"#).is_ok());
    assert!(listed.check_bytes(br#"{"Items": []}"#).is_err());
}

#[test]
fn a_description_with_only_x_ms_paths_still_has_its_operations() {
    let mut spec = storage();
    spec["paths"] = json!({});
    let (out, doc) = import_and_check(&spec);
    assert_eq!(doc["tools"].as_object().unwrap().len(), 2, "{}", out.yaml);
}

/// A `GET /repo` answering a repository whose `owner` is a `User` or null, written as
/// `version` writes it: `nullable` (or `x-nullable` in Swagger 2.0) beside the `$ref`,
/// and on the plain `stars`.
fn nullable_beside_ref(version: &str) -> Value {
    let flag = if version == "2.0" {
        "x-nullable"
    } else {
        "nullable"
    };
    let prefix = if version == "2.0" {
        "#/definitions"
    } else {
        "#/components/schemas"
    };
    let repo = json!({"type": "object", "required": ["owner", "stars"], "properties": {
        "owner": {"$ref": format!("{prefix}/User"), flag: true},
        "stars": {"type": "integer", flag: true}
    }});
    let user = json!({"type": "object", "required": ["login"], "properties": {"login": {"type": "string"}}});
    let info = json!({"title": "Repos", "version": "1"});
    if version == "2.0" {
        return json!({
            "swagger": "2.0", "info": info, "host": "api.example.com", "schemes": ["https"],
            "produces": ["application/json"],
            "paths": {"/repo": {"get": {"operationId": "repo",
                "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/Repo"}}}}}},
            "definitions": {"Repo": repo, "User": user}
        });
    }
    json!({
        "openapi": version, "info": info, "servers": [{"url": "https://api.example.com"}],
        "paths": {"/repo": {"get": {"operationId": "repo", "responses": {"200": {"description": "ok",
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Repo"}}}}}}}},
        "components": {"schemas": {"Repo": repo, "User": user}}
    })
}

#[test]
fn nullable_beside_a_ref_and_in_3_1_lets_the_null_through_and_still_checks_the_value() {
    for version in ["2.0", "3.0.3", "3.1.0"] {
        let (out, _) = import_and_check(&nullable_beside_ref(version));
        let config = super::directory_tests::check(&out.yaml).unwrap();
        let contract = &config.tools["repo"].contract.response;
        let accepts = |body: &[u8]| contract.check_bytes(body).is_ok();
        assert!(
            accepts(br#"{"owner": {"login": "octo"}, "stars": 3}"#),
            "{version}"
        );
        assert!(
            accepts(br#"{"owner": null, "stars": 3}"#),
            "{version}: a null owner\n{}",
            out.yaml
        );
        assert!(
            accepts(br#"{"owner": {"login": "octo"}, "stars": null}"#),
            "{version}: null stars\n{}",
            out.yaml
        );
        // Null is the one value added: an owner of another shape is still drift.
        assert!(
            !accepts(br#"{"owner": {"name": "octo"}, "stars": 3}"#),
            "{version}"
        );
        assert!(!accepts(br#"{"owner": "octo", "stars": 3}"#), "{version}");
        assert!(!accepts(br#"{"owner": null, "stars": "3"}"#), "{version}");
    }
}

/// Azure SQL's job credential, as its Swagger 2.0 description writes it: `password` is
/// required and sent on create and update, but never answered.
fn job_credentials() -> Value {
    json!({
        "swagger": "2.0",
        "info": {"title": "Jobs", "version": "2017-03-01-preview"},
        "host": "management.azure.com", "schemes": ["https"],
        "produces": ["application/json"], "consumes": ["application/json"],
        "paths": {"/credentials/{name}": {
            "get": {"operationId": "JobCredentials_Get",
                "parameters": [{"name": "name", "in": "path", "required": true, "type": "string"}],
                "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/JobCredential"}}}},
            "put": {"operationId": "JobCredentials_CreateOrUpdate",
                "parameters": [{"name": "name", "in": "path", "required": true, "type": "string"},
                    {"name": "parameters", "in": "body", "required": true, "schema": {"$ref": "#/definitions/JobCredential"}}],
                "responses": {"200": {"description": "ok", "schema": {"$ref": "#/definitions/JobCredential"}}}}
        }},
        "definitions": {"JobCredential": {"type": "object", "required": ["username", "password"], "properties": {
            "username": {"type": "string"},
            "password": {"type": "string", "x-ms-mutability": ["create", "update"]},
            "id": {"type": "string", "readOnly": true}
        }}}
    })
}

#[test]
fn a_property_x_ms_mutability_never_reads_is_not_asked_of_a_reply_but_is_still_sent() {
    let (out, doc) = import_and_check(&job_credentials());
    let config = super::directory_tests::check(&out.yaml).unwrap();
    // The service answers the credential without its password.
    for tool in ["JobCredentials_Get", "JobCredentials_CreateOrUpdate"] {
        let contract = &config.tools[tool].contract.response;
        assert!(
            contract
                .check_bytes(br#"{"id": "c1", "username": "ann"}"#)
                .is_ok(),
            "{tool}\n{}",
            out.yaml
        );
        // The other required field is still enforced.
        assert!(
            contract
                .check_bytes(br#"{"id": "c1", "user": "ann"}"#)
                .is_err(),
            "{tool}"
        );
    }
    // The request still asks for it, as the API does.
    let input = &doc["tools"]["JobCredentials_CreateOrUpdate"]["input_schema"];
    let text = input.to_string();
    assert!(text.contains("password"), "{text}");
}

#[test]
fn a_preview_media_type_the_operation_requires_is_sent_as_its_accept_header() {
    let op = |id: &str, previews: Value| {
        json!({"post": {"operationId": id, "x-github": {"previews": previews},
            "responses": {"201": {"description": "ok"}}}})
    };
    let spec = super::directory_tests::spec(
        json!([{"url": "https://ghe.example.com/api/v3"}]),
        json!({
            "/repos/{o}/{r}/generate": op("create_using_template",
                json!([{"name": "baptiste", "required": true, "note": "…"}])),
            "/repos/{o}/{r}": op("update", json!([{"name": "nebula", "required": false}])),
            "/admin/hooks": {"get": {"operationId": "hooks",
                "parameters": [{"name": "accept", "in": "header", "required": true,
                    "schema": {"type": "string", "default": "application/vnd.github.superpro-preview+json"}}],
                "x-github": {"previews": [{"name": "superpro", "required": true}]},
                "responses": {"200": {"description": "ok"}}}},
            "/repos/{o}/{r}/topics": {"get": {"operationId": "topics",
                "parameters": [{"name": "accept", "in": "header", "schema": {"type": "string"}}],
                "x-github": {"previews": [{"name": "mercy", "required": true}]},
                "responses": {"200": {"description": "ok"}}}},
            // A name that is not a media type's word is never written into a header.
            "/odd": op("odd", json!([{"name": "a b\r\nX: y", "required": true}])),
        }),
    );
    let (out, doc) = import_and_check(&spec);
    let headers = |tool: &str| doc["tools"][tool]["request"]["headers"].clone();
    assert_eq!(
        headers("create_using_template")["Accept"],
        "application/vnd.github.baptiste-preview+json",
        "{}",
        out.yaml
    );
    assert!(headers("update").get("Accept").is_none(), "{}", out.yaml);
    // The operation's own `accept` argument gives way to the preview it requires.
    assert_eq!(
        headers("topics"),
        json!({"Accept": "application/vnd.github.mercy-preview+json"}),
        "{}",
        out.yaml
    );
    // A value the description fixes that names the preview already is sent as it is.
    assert!(!out.yaml.contains("does not name"), "{}", out.yaml);
    let input = &doc["tools"]["topics"]["input_schema"];
    assert!(input["properties"].get("accept").is_none(), "{input}");
    assert!(headers("odd").get("Accept").is_none(), "{}", out.yaml);
}
