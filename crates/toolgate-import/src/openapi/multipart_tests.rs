//! Multipart form bodies: the text fields of a `multipart/form-data` body (an upload
//! endpoint's caption, a message's fields that an API reads only as form parts) are
//! arguments sent as the parts of the body; a file never is. Each description here is
//! small and written by hand after the kinds the published descriptions showed
//! (files.com's and Telegram's text-field forms, Swagger 2.0's `formData` under
//! `consumes: [multipart/form-data]`, Mastodon's `application/form-data`).

use serde_json::{Value, json};

use super::directory_tests::{check, import, import_and_check, spec};

fn ok() -> Value {
    json!({"200": {"description": "ok"}})
}

/// The parts of the multipart body `tool` of the checked config sends with `a`:
/// (name, the part's own headers, its text), after checking the `Content-Type` names
/// the boundary that delimits them.
fn parts(yaml: &str, tool: &str, a: Value) -> Vec<(String, String, String)> {
    let config = check(yaml).unwrap_or_else(|e| panic!("check: {e}\n{yaml}"));
    let t = &config.tools[tool];
    let Value::Object(args) = a else {
        panic!("arguments are an object")
    };
    let r = t
        .http_request()
        .unwrap()
        .render(&t.dependency.base_url, &args)
        .unwrap_or_else(|e| panic!("{tool}: {}", e.0));
    let ct = r.content_type.to_str().unwrap().to_string();
    let boundary = ct
        .strip_prefix("multipart/form-data; boundary=")
        .unwrap_or_else(|| panic!("{ct}"));
    let body = String::from_utf8(r.body.unwrap()).unwrap();
    let delimiter = format!("--{boundary}");
    let rest = body
        .strip_suffix(&format!("{delimiter}--\r\n"))
        .unwrap_or_else(|| panic!("{body}"));
    rest.split(&delimiter)
        .filter(|p| !p.is_empty())
        .map(|p| {
            let p = p
                .strip_prefix("\r\n")
                .unwrap()
                .strip_suffix("\r\n")
                .unwrap();
            let (head, text) = p.split_once("\r\n\r\n").unwrap();
            let name = head
                .split("name=\"")
                .nth(1)
                .and_then(|n| n.split('"').next())
                .unwrap()
                .to_string();
            (name, head.to_string(), text.to_string())
        })
        .collect()
}

fn multipart(required: bool, schema: Value, encoding: Option<Value>) -> Value {
    let mut media = json!({"schema": schema});
    if let Some(e) = encoding {
        media["encoding"] = e;
    }
    json!({"required": required, "content": {"multipart/form-data": media}})
}

#[test]
fn the_text_fields_of_a_multipart_form_are_sent_as_its_parts() {
    let fields = json!({"type": "object", "required": ["chat_id", "text"], "properties": {
        "chat_id": {"type": "integer"},
        "text": {"type": "string"},
        "silent": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "reply_markup": {"type": "object", "properties": {"keyboard": {"type": "string"}}},
        "photo": {"type": "string", "format": "binary"},
    }});
    let (out, doc) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/sendMessage": {"post": {"operationId": "send", "requestBody": multipart(true, fields, None), "responses": ok()}}}),
    ));
    let tool = &doc["tools"]["send"];
    assert_eq!(
        tool["request"]["body_encoding"], "multipart",
        "{}",
        out.yaml
    );
    let input = &tool["input_schema"];
    assert_eq!(
        input["required"],
        json!(["chat_id", "text"]),
        "{}",
        out.yaml
    );
    assert!(input["properties"].get("photo").is_none(), "{}", out.yaml);
    assert!(
        out.yaml.contains(
            "the optional file field `photo` is not sent: toolgate sends no file uploads"
        ),
        "{}",
        out.yaml
    );
    let sent = parts(
        &out.yaml,
        "send",
        json!({"chat_id": 7, "text": "two\r\nlines \"quoted\"", "silent": false,
               "tags": ["a", "b"], "reply_markup": {"keyboard": "k"}}),
    );
    let plain = |name: &str, text: &str| {
        (
            name.to_string(),
            format!("Content-Disposition: form-data; name=\"{name}\""),
            text.to_string(),
        )
    };
    let mut expected = vec![
        plain("chat_id", "7"),
        plain("text", "two\r\nlines \"quoted\""),
        plain("silent", "false"),
        plain("tags", "a"),
        plain("tags", "b"),
        (
            "reply_markup".to_string(),
            "Content-Disposition: form-data; name=\"reply_markup\"\r\nContent-Type: application/json"
                .to_string(),
            "{\"keyboard\":\"k\"}".to_string(),
        ),
    ];
    let mut sent = sent;
    sent.sort();
    expected.sort();
    assert_eq!(sent, expected);
    // An optional field left out is no part.
    let sent = parts(&out.yaml, "send", json!({"chat_id": 7, "text": "t"}));
    assert_eq!(sent.len(), 2, "{sent:?}");
}

#[test]
fn a_required_file_in_a_multipart_form_skips_the_operation() {
    let with = |file: Value, encoding: Option<Value>| {
        json!({"/upload": {"post": {"operationId": "upload", "requestBody": multipart(
            true,
            json!({"type": "object", "required": ["file", "purpose"], "properties": {
                "file": file, "purpose": {"type": "string"}}}),
            encoding,
        ), "responses": ok()}}, "/other": {"get": {"operationId": "other", "responses": ok()}}})
    };
    for (file, encoding) in [
        (json!({"type": "string", "format": "binary"}), None),
        (
            json!({"type": "array", "items": {"type": "string", "format": "binary"}}),
            None,
        ),
        // A string the description sends as an image is a file, whatever its schema.
        (
            json!({"type": "string"}),
            Some(json!({"file": {"contentType": "image/png, image/jpeg"}})),
        ),
        // OpenAPI 3.1's raw octets: JSON Schema's `contentEncoding: binary` (Discord's
        // sticker and attachment uploads), or a media type that is not text.
        (json!({"type": "string", "contentEncoding": "binary"}), None),
        (
            json!({"type": "string", "contentMediaType": "image/png"}),
            None,
        ),
    ] {
        let mut doc = spec(
            json!([{"url": "https://api.example.com"}]),
            with(file.clone(), encoding),
        );
        doc["openapi"] = json!("3.1.0");
        let out = import(&doc).unwrap();
        assert!(
            out.yaml
                .contains("uploads a file (multipart/form-data field `file`)"),
            "{file}: {}",
            out.yaml
        );
    }
    // Base64 is text: such a field is an argument like any other.
    let mut doc = spec(
        json!([{"url": "https://api.example.com"}]),
        with(
            json!({"type": "string", "contentMediaType": "image/png", "contentEncoding": "base64"}),
            None,
        ),
    );
    doc["openapi"] = json!("3.1.0");
    let (out, doc) = import_and_check(&doc);
    assert_eq!(
        doc["tools"]["upload"]["input_schema"]["required"],
        json!(["file", "purpose"]),
        "{}",
        out.yaml
    );
    // A part declared as JSON or text is a field like any other.
    let out = import(&spec(
        json!([{"url": "https://api.example.com"}]),
        with(
            json!({"type": "string"}),
            Some(json!({"file": {"contentType": "text/plain"}})),
        ),
    ))
    .unwrap();
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    assert_eq!(
        doc["tools"]["upload"]["request"]["body_encoding"], "multipart",
        "{}",
        out.yaml
    );
}

#[test]
fn swagger_form_fields_consumed_only_as_multipart_are_sent_as_parts() {
    let op = |consumes: &str| {
        json!({"post": {"operationId": consumes.replace(['/', '-'], "_"), "consumes": [consumes],
            "parameters": [
                {"name": "caption", "in": "formData", "type": "string", "required": true},
                {"name": "ids", "in": "formData", "type": "array", "items": {"type": "integer"}, "collectionFormat": "multi"},
                {"name": "file", "in": "formData", "type": "file"},
            ],
            "responses": {"200": {"description": "ok"}}}})
    };
    let swagger = json!({
        "swagger": "2.0",
        "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com",
        "paths": {
            "/a": op("multipart/form-data"),
            "/b": op("application/form-data"),
            "/c": op("multipart/mixed"),
        },
    });
    let (out, doc) = import_and_check(&swagger);
    for tool in ["multipart_form_data", "application_form_data"] {
        let t = &doc["tools"][tool];
        assert_eq!(t["request"]["body_encoding"], "multipart", "{}", out.yaml);
        assert!(t["request"].get("form_style").is_none(), "{}", out.yaml);
        let sent = parts(&out.yaml, tool, json!({"caption": "hi", "ids": [1, 2]}));
        let names: Vec<&str> = sent.iter().map(|(n, _, _)| n.as_str()).collect();
        assert_eq!(names, ["caption", "ids", "ids"], "{tool}");
    }
    assert!(
        out.yaml.contains(
            "the body's media type `application/form-data` is read as multipart/form-data"
        ),
        "{}",
        out.yaml
    );
    // Another multipart type is not a form: its fields are not sent as one.
    assert!(
        doc["tools"].get("multipart_mixed").is_none(),
        "{}",
        out.yaml
    );
    assert!(
        out.yaml
            .contains("takes only a multipart body (multipart/mixed)"),
        "{}",
        out.yaml
    );
}

#[test]
fn a_multipart_form_with_no_fields_names_its_kind() {
    let out = import(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/p": {"put": {"operationId": "put", "requestBody": multipart(true, json!({"type": "object"}), None), "responses": ok()}},
            "/q": {"get": {"operationId": "q", "responses": ok()}},
        }),
    ))
    .unwrap();
    assert!(
        out.yaml
            .contains("its required multipart/form-data body names no fields"),
        "{}",
        out.yaml
    );
}
