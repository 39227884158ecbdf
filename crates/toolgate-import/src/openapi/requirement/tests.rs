//! Each tool sends the credentials its own operation requires: descriptions written by
//! hand after the kinds published ones show (a sign-in served without credentials, an
//! admin key beside a bearer token, ClearBlade's developer and user tokens declared as
//! header parameters).

use http::header::{AUTHORIZATION, HeaderName};
use serde_json::{Map, Value, json};

use super::super::directory_tests::{check, import_and_check, spec};

fn sent(config: &toolgate_config::Config, tool: &str) -> (Vec<String>, Vec<String>) {
    let t = &config.tools[tool];
    let r = t
        .http_request()
        .unwrap()
        .render(&t.dependency.base_url, &Map::new())
        .unwrap();
    let mut names: Vec<String> = t
        .dependency
        .headers
        .iter()
        .filter(|(n, _)| r.sends_dependency_header(n))
        .map(|(n, _)| n.to_string())
        .collect();
    names.extend(r.headers.keys().map(|n| n.to_string()));
    names.sort();
    let query = r.url.query_pairs().map(|(k, _)| k.into_owned()).collect();
    (names, query)
}

fn op(id: &str, extra: Value) -> Value {
    let mut o = json!({"operationId": id, "responses": {"200": {"description": "ok"}}});
    if let (Value::Object(o), Value::Object(e)) = (&mut o, extra) {
        o.extend(e);
    }
    o
}

fn with_schemes(paths: Value, schemes: Value, global: Value) -> Value {
    let mut s = spec(json!([{"url": "https://api.example.com"}]), paths);
    s["components"] = json!({"securitySchemes": schemes});
    s["security"] = global;
    s
}

#[test]
fn an_operation_that_takes_no_credentials_is_sent_none() {
    let s = with_schemes(
        json!({
            "/me": {"get": op("me", json!({}))},
            "/login": {"post": op("login", json!({"security": []}))},
            "/status": {"get": op("status", json!({"security": [{}]}))},
            "/maybe": {"get": op("maybe", json!({"security": [{}, {"bearer": []}]}))},
        }),
        json!({"bearer": {"type": "http", "scheme": "bearer"}}),
        json!([{"bearer": []}]),
    );
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    assert_eq!(sent(&config, "me").0, ["authorization"]);
    assert!(sent(&config, "login").0.is_empty(), "{}", out.yaml);
    assert!(sent(&config, "status").0.is_empty());
    // Optional credentials are sent: the operation answers more with them.
    assert_eq!(sent(&config, "maybe").0, ["authorization"]);
    assert_eq!(
        doc["tools"]["login"]["request"]["omit_headers"],
        json!(["Authorization"])
    );
    assert!(out.yaml.contains("takes no credentials"), "{}", out.yaml);
}

#[test]
fn an_operation_that_requires_another_scheme_is_sent_that_one_alone() {
    let s = with_schemes(
        json!({
            "/me": {"get": op("me", json!({}))},
            "/me/a": {"get": op("me_a", json!({"security": [{"bearer": []}]}))},
            "/me/b": {"get": op("me_b", json!({"security": [{"bearer": []}]}))},
            "/me/c": {"get": op("me_c", json!({"security": [{"bearer": []}]}))},
            "/admin/users": {"get": op("admin_users", json!({"security": [{"admin": []}]}))},
            "/admin/keys": {"get": op("admin_keys", json!({"security": [{"admin": []}]}))},
            "/either": {"get": op("either", json!({"security": [{"admin": []}, {"bearer": []}]}))},
            "/both": {"get": op("both", json!({"security": [{"bearer": [], "admin": []}]}))},
            "/signed": {"get": op("signed", json!({"security": [{"app": []}]}))},
            "/basic": {"get": op("basic", json!({"security": [{"pw": []}]}))},
        }),
        json!({
            "bearer": {"type": "http", "scheme": "bearer"},
            "admin": {"type": "apiKey", "in": "header", "name": "X-Admin-Key"},
            "app": {"type": "apiKey", "in": "query", "name": "app_key"},
            "pw": {"type": "http", "scheme": "basic"},
        }),
        json!([{"bearer": []}]),
    );
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    assert_eq!(sent(&config, "me").0, ["authorization"]);
    assert_eq!(sent(&config, "admin_users").0, ["x-admin-key"]);
    // Both tools read one variable: the operator sets the admin key once.
    assert_eq!(
        doc["tools"]["admin_users"]["request"]["headers"]["X-Admin-Key"],
        doc["tools"]["admin_keys"]["request"]["headers"]["X-Admin-Key"]
    );
    let var = doc["tools"]["admin_users"]["request"]["headers"]["X-Admin-Key"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(var, "${DIR_ADMIN_API_KEY}");
    assert!(out.yaml.contains("DIR_ADMIN_API_KEY"));
    assert_eq!(sent(&config, "either").0, ["authorization"]);
    // A scheme required besides the dependency's (SoundCloud's `ClientId` beside its
    // `AuthHeader`) is added; the dependency's stays.
    assert_eq!(sent(&config, "both").0, ["authorization", "x-admin-key"]);
    assert!(
        doc["tools"]["both"]["request"]
            .get("omit_headers")
            .is_none()
    );
    let (headers, query) = sent(&config, "signed");
    assert!(headers.is_empty(), "{headers:?}");
    assert_eq!(query, ["app_key"]);
    // A scheme sent in the dependency's header name replaces it, never doubles it.
    let t = &config.tools["basic"];
    let r = t
        .http_request()
        .unwrap()
        .render(&t.dependency.base_url, &Map::new())
        .unwrap();
    assert!(!r.sends_dependency_header(&AUTHORIZATION));
    assert!(
        r.headers[AUTHORIZATION]
            .to_str()
            .unwrap()
            .starts_with("Basic "),
        "{:?}",
        r.headers
    );
}

#[test]
fn operations_that_inherit_a_requirement_the_dependency_does_not_send_send_it() {
    // Most operations name an admin key, so the dependency sends it; those inheriting
    // the spec's bearer token send theirs, not the admin key.
    let admin = json!({"security": [{"admin": []}]});
    let s = with_schemes(
        json!({
            "/me": {"get": op("me", json!({}))},
            "/a": {"get": op("a", admin.clone())},
            "/b": {"get": op("b", admin.clone())},
            "/c": {"get": op("c", admin)},
        }),
        json!({
            "bearer": {"type": "http", "scheme": "bearer"},
            "admin": {"type": "apiKey", "in": "header", "name": "X-Admin-Key"},
        }),
        json!([{"bearer": []}]),
    );
    let (out, _) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    assert_eq!(sent(&config, "a").0, ["x-admin-key"]);
    assert_eq!(sent(&config, "me").0, ["authorization"], "{}", out.yaml);
}

#[test]
fn a_credential_parameter_some_operations_require_is_sent_by_them() {
    // ClearBlade's descriptions (https://github.com/APIs-guru/openapi-directory,
    // APIs/clearblade.com) say each is a token obtained by signing in.
    let token = |name: &str, required: bool| {
        json!({"name": name, "in": "header", "required": required, "schema": {"type": "string"},
               "description": "Token obtained through user authentication."})
    };
    let with = |id: &str, params: Vec<Value>| op(id, json!({"parameters": params}));
    let s = spec(
        json!([{"url": "https://platform.example.com"}]),
        json!({
            "/data/{a}": {"get": with("data_a", vec![token("ClearBlade-UserToken", true)])},
            "/data/b": {"get": with("data_b", vec![token("ClearBlade-UserToken", true)])},
            "/data/c": {"get": with("data_c", vec![token("ClearBlade-UserToken", true)])},
            "/admin/a": {"get": with("admin_a", vec![token("ClearBlade-DevToken", true)])},
            "/admin/b": {"get": with("admin_b", vec![token("ClearBlade-DevToken", true)])},
            "/admin/c": {"get": with("admin_c", vec![token("ClearBlade-DevToken", false)])},
            "/public": {"get": op("public", json!({}))},
        }),
    );
    let mut s = s;
    s["paths"]["/data/{a}"]["get"]["parameters"]
        .as_array_mut()
        .unwrap()
        .push(json!({"name": "a", "in": "path", "required": true, "schema": {"type": "string"}}));
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    let user = "clearblade-usertoken";
    let dev = "clearblade-devtoken";
    let t = &config.tools["data_b"];
    assert!(
        t.dependency
            .headers
            .iter()
            .any(|(n, _)| n == HeaderName::from_static("clearblade-usertoken")),
        "{}",
        out.yaml
    );
    assert_eq!(sent(&config, "data_b").0, [user]);
    assert_eq!(sent(&config, "admin_a").0, [dev], "{}", out.yaml);
    assert_eq!(sent(&config, "admin_b").0, [dev]);
    // Where the description makes it optional it is the caller's choice: not asked of
    // the model, and the operation's other credentials are not sent either.
    assert!(sent(&config, "admin_c").0.is_empty(), "{}", out.yaml);
    // An operation that declares no credential at all keeps the dependency's.
    assert_eq!(sent(&config, "public").0, [user]);
    assert_eq!(
        doc["tools"]["admin_a"]["request"]["headers"]["ClearBlade-DevToken"],
        "${DIR_CLEARBLADE_DEVTOKEN}"
    );
    assert!(
        out.yaml.contains("DIR_CLEARBLADE_DEVTOKEN"),
        "the variable is listed to export: {}",
        out.yaml
    );
}

#[test]
fn two_flows_of_one_bearer_token_are_one_credential() {
    // Google's descriptions name two OAuth 2 schemes (implicit and authorization code)
    // together in every requirement; the dependency sends the token once, and every
    // operation is served by it.
    let both = |scope: &str| json!({"Oauth2": [scope], "Oauth2c": [scope]});
    let flow = json!({"type": "oauth2", "flows": {}});
    let s = with_schemes(
        json!({
            "/a": {"get": op("a", json!({"security": [both("x"), both("y")]}))},
            "/b": {"post": op("b", json!({"security": [both("y")]}))},
        }),
        json!({"Oauth2": flow.clone(), "Oauth2c": flow}),
        Value::Null,
    );
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    assert_eq!(sent(&config, "a").0, ["authorization"]);
    assert_eq!(sent(&config, "b").0, ["authorization"]);
    assert!(
        doc["tools"]["a"]["request"].get("headers").is_none(),
        "{}",
        out.yaml
    );
    assert!(!out.yaml.contains("sent by the tool"), "{}", out.yaml);
}
