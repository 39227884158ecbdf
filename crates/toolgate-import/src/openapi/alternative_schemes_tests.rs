//! Security schemes offered as alternatives: the dependency sends a credential the
//! config can hold, and the config's header says which and why.

use serde_json::{Value, json};

use super::directory_tests::import_and_check;

/// A description whose operations take `security` (the spec's global list), with an
/// OAuth 2 scheme (a sign-in flow's token) and an API key in a header.
fn offered(security: Value) -> Value {
    json!({
        "openapi": "3.0.0",
        "info": {"title": "Models", "version": "2024-10-21"},
        "servers": [{"url": "https://models.example.com/v1"}],
        "security": security,
        "paths": {
            "/completions": {"post": {"operationId": "complete",
                "responses": {"200": {"description": "ok"}}}},
            "/models": {"get": {"operationId": "models",
                "responses": {"200": {"description": "ok"}}}}
        },
        "components": {"securitySchemes": {
            "bearer": {"type": "oauth2", "flows": {"implicit": {
                "authorizationUrl": "https://login.example.com/authorize", "scopes": {}}}},
            "apiKey": {"type": "apiKey", "name": "api-key", "in": "header"}
        }}
    })
}

fn headers(doc: &Value) -> Value {
    doc["dependencies"]["models"]["headers"].clone()
}

#[test]
fn a_key_offered_beside_an_expiring_sign_in_token_is_the_one_sent() {
    let (out, doc) = import_and_check(&offered(json!([{"bearer": ["api.read"]}, {"apiKey": []}])));
    assert_eq!(
        headers(&doc),
        json!({"api-key": "${MODELS_API_KEY}"}),
        "{}",
        out.yaml
    );
    let line = out
        .yaml
        .lines()
        .find(|l| l.starts_with("# Security scheme: `apiKey`"))
        .unwrap();
    assert!(line.contains("[used]"), "{line}");
    assert!(
        line.contains("sent rather than `bearer`")
            && line.contains("OAuth 2 token (implicit flow)"),
        "{line}"
    );
    assert!(
        line.contains("`--security bearer` sends it instead"),
        "{line}"
    );
}

#[test]
fn a_key_replaces_the_sign_in_token_only_where_every_operation_offers_it_and_no_option_names_the_token()
 {
    let key = json!({"api-key": "${MODELS_API_KEY}"});
    let token = json!({"Authorization": "Bearer ${MODELS_TOKEN}"});
    let both = offered(json!([{"bearer": []}, {"apiKey": []}]));
    assert_eq!(headers(&import_and_check(&both).1), key);
    // `--security` naming the token sends it.
    let dir = super::directory_tests::folder();
    let file = dir.join("api.json");
    std::fs::write(&file, both.to_string()).unwrap();
    let out = super::run(&super::Options {
        spec: file,
        owner: Some("api-team@example.com".into()),
        security: Some("bearer".into()),
        ..super::Options::default()
    })
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    assert_eq!(headers(&doc), token);
    // The token required alone, or with the key offered by one operation of two.
    assert_eq!(
        headers(&import_and_check(&offered(json!([{"bearer": []}]))).1),
        token
    );
    let mut some = offered(json!([{"bearer": []}]));
    some["paths"]["/models"]["get"]["security"] = json!([{"bearer": []}, {"apiKey": []}]);
    assert_eq!(headers(&import_and_check(&some).1), token);
}
