//! Kinds of published description that imported into tools a platform engineer would
//! call wrong: long operationIds cut into look-alike names, a placeholder server taken
//! as a host, HTML in what the model reads, a key asked of the model, a `deepObject`
//! query sent as JSON text. Each is written here small, then checked on the published
//! descriptions that showed it when they are installed.

use std::path::Path;

use serde_json::{Value, json};

use super::directory_tests::{folder, import, one_get, published, spec, url_of};
use super::*;

/// What `toolgate check` says of `yaml`, with what an operator would export: an origin
/// for `…_ORIGIN`, a host name for a server variable, a key otherwise.
fn check(yaml: &str) -> Result<toolgate_config::Config, String> {
    let dir = folder();
    let env = |var: &str| {
        Some(if var.ends_with("_ORIGIN") {
            "https://api.example.com".to_string()
        } else if var.contains("_SERVER_VAR_") {
            "acme".to_string()
        } else {
            "k".to_string()
        })
    };
    let out = toolgate_config::parse(&dir.join("t.yaml"), yaml, Path::new(&dir), &env)
        .map_err(|e| e.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    out
}

fn import_and_check(spec: &Value) -> (Outcome, Value, toolgate_config::Config) {
    let out = import(spec).unwrap_or_else(|e| panic!("import: {e}"));
    let config = check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
    (out, doc, config)
}

fn tool_names(doc: &Value) -> Vec<String> {
    doc["tools"].as_object().unwrap().keys().cloned().collect()
}

fn export_line(out: &Outcome) -> String {
    out.report
        .iter()
        .find(|l| l.starts_with("export"))
        .cloned()
        .unwrap_or_default()
}

#[test]
fn long_operation_ids_keep_what_tells_them_apart() {
    let op = |id: &str| json!({"operationId": id, "responses": {"204": {"description": "none"}}});
    let start = "dialogflow.projects.locations.agents.environments.experiments.start";
    let stop = "dialogflow.projects.locations.agents.environments.experiments.stop";
    let paths = json!({
        "/start": {"post": op(start)},
        "/stop": {"post": op(stop)},
    });
    let (out, doc, _) = import_and_check(&spec(json!([{"url": "https://api.example.com"}]), paths));
    let names = tool_names(&doc);
    assert_eq!(names.len(), 2, "{names:?}");
    for (name, end) in names.iter().zip(["experiments.start", "experiments.stop"]) {
        assert!(name.len() <= naming::MAX_LEN, "{name}");
        assert!(name.ends_with(end), "{name}");
        assert!(name.starts_with("dialogflow.projects"), "{name}");
    }
    // Neither was renamed for being taken by the other.
    assert!(!out.yaml.contains("is taken by another"), "{}", out.yaml);
    // An operation keeps its name whatever else the spec holds.
    let alone = json!({"/stop": {"post": op(stop)}});
    let (_, doc, _) = import_and_check(&spec(json!([{"url": "https://api.example.com"}]), alone));
    assert_eq!(tool_names(&doc), [names[1].clone()]);
}

#[test]
fn a_placeholder_server_is_the_operators_to_fill_not_a_host() {
    let with = |url: &str, vars: Value| json!([{"url": url, "variables": vars}]);
    for (servers, base_url, told) in [
        // GitHub Enterprise Server: the default is the variable's own name.
        (
            with(
                "{protocol}://{hostname}/api/v3",
                json!({"hostname": {"default": "HOSTNAME"}, "protocol": {"default": "https"}}),
            ),
            "https://${DIR_SERVER_VAR_1}/api/v3",
            "the `hostname` part of",
        ),
        (
            with(
                "https://{subdomain}.zendesk.com/api/v2",
                json!({"subdomain": {"default": "subdomain"}}),
            ),
            "https://${DIR_SERVER_VAR_1}.zendesk.com/api/v2",
            "the `subdomain` part of",
        ),
        (
            with(
                "https://{host}/rest",
                json!({"host": {"default": "your-domain.com"}}),
            ),
            "https://${DIR_SERVER_VAR_1}/rest",
            "the `host` part of",
        ),
        (
            with(
                "https://{defaultHost}",
                json!({"defaultHost": {"default": "discourse.example.com"}}),
            ),
            "https://${DIR_SERVER_VAR_1}",
            "the `defaultHost` part of",
        ),
        // Telegram: a key in the URL; its default is a sample key.
        (
            with(
                "https://api.telegram.org/bot{token}",
                json!({"token": {"default": "123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11"}}),
            ),
            "https://api.telegram.org/bot${DIR_SERVER_VAR_1}",
            "the `token` part of",
        ),
        // Azure: the variable is the whole origin, its default `none`.
        (
            with(
                "{Endpoint}/vision/v2.1",
                json!({"Endpoint": {"default": "none"}}),
            ),
            "${DIR_ORIGIN}/vision/v2.1",
            "leaves its origin, the variable `Endpoint`, to you",
        ),
        // Written into the URL itself.
        (
            json!([{"url": "https://your-domain.atlassian.net"}]),
            "${DIR_ORIGIN}",
            "names a placeholder host",
        ),
        (
            json!([{"url": "https://example.com/rest/default"}]),
            "${DIR_ORIGIN}/rest/default",
            "names a placeholder host",
        ),
        // An origin written as a placeholder in angle brackets, not as a variable
        // (Mojaloop's FSPIOP descriptions, Adyen's terminal API).
        (
            json!([{"url": "protocol://hostname:<port>/switch/"}]),
            "${DIR_ORIGIN}/switch",
            "`protocol://hostname:<port>/switch` writes its origin as a placeholder",
        ),
        (
            with(
                "{protocol}://<host>:<port>/api/v2",
                json!({"protocol": {"default": "https"}}),
            ),
            "${DIR_ORIGIN}/api/v2",
            "writes its origin as a placeholder",
        ),
        (
            json!([{"url": "<local-terminal-IP-address>"}]),
            "${DIR_ORIGIN}",
            "writes its origin as a placeholder",
        ),
        // ... and a real server after it is taken over it.
        (
            json!([{"url": "https://<host>/v1"}, {"url": "https://api.vendor.io/v1"}]),
            "https://api.vendor.io/v1",
            "",
        ),
        // APIs.guru's stand-in first, the vendor's own server after it.
        (
            json!([{"url": "https://azure.local"}, {"url": "https://vendor.azure.net/v1"}]),
            "https://vendor.azure.net/v1",
            "",
        ),
        // Both stand-ins: the one that gives a path.
        (
            json!([{"url": "http://whatsapp.local"}, {"url": "http://example.com/v1"}]),
            "${DIR_ORIGIN}/v1",
            "names a placeholder host",
        ),
        // A real default is used as it is.
        (
            with(
                "https://{region}.api.example.com",
                json!({"region": {"default": "eu", "enum": ["eu", "us"]}}),
            ),
            "https://eu.api.example.com",
            "",
        ),
    ] {
        let (out, doc, _) = import_and_check(&spec(servers.clone(), one_get(json!({}))));
        assert_eq!(
            doc["dependencies"]["dir"]["base_url"], base_url,
            "{servers}"
        );
        let export = export_line(&out);
        assert!(export.contains(told), "{servers}: {export}");
        assert!(!out.yaml.contains("123456:ABC"), "{}", out.yaml);
        assert!(!out.yaml.contains("HOSTNAME"), "{}", out.yaml);
    }
    // An operation's own server on the same stand-in host is the same dependency; on
    // another stand-in, a dependency of its own behind the same origin variable.
    let (_, doc, _) = import_and_check(&spec(
        json!([{"url": "https://kubernetes.local"}]),
        one_get(json!({"servers": [{"url": "https://kubernetes.local"}]})),
    ));
    assert_eq!(
        doc["dependencies"],
        json!({"dir": {"base_url": "${DIR_ORIGIN}"}})
    );
    let (out, doc, _) = import_and_check(&spec(
        json!([{"url": "https://api.vendor.io"}]),
        one_get(json!({"servers": [{"url": "https://files.vendor.test/files"}]})),
    ));
    let dep = doc["tools"]["thing"]["dependency"].as_str().unwrap();
    assert_eq!(doc["dependencies"][dep]["base_url"], "${DIR_ORIGIN}/files");
    assert!(
        export_line(&out).contains("DIR_ORIGIN (scheme and host"),
        "{:?}",
        out.report
    );
    // Swagger 2.0: a `host` that is a stand-in.
    let swagger = json!({"swagger": "2.0", "info": {"title": "Dir", "version": "1.0"},
        "host": "example.com", "basePath": "/v1", "schemes": ["http"],
        "paths": {"/thing": {"get": {"operationId": "thing", "responses": {"204": {"description": "none"}}}}}});
    let (out, doc, _) = import_and_check(&swagger);
    assert_eq!(doc["dependencies"]["dir"]["base_url"], "${DIR_ORIGIN}/v1");
    assert!(export_line(&out).contains("`http://example.com/v1` names a placeholder host"));
    let mut swagger = swagger;
    swagger["host"] = json!("<switch-host>:<port>");
    let (out, doc, _) = import_and_check(&swagger);
    assert_eq!(doc["dependencies"]["dir"]["base_url"], "${DIR_ORIGIN}/v1");
    assert!(
        export_line(&out).contains("is written as a placeholder"),
        "{:?}",
        out.report
    );
}

#[test]
fn html_in_descriptions_reaches_the_model_as_text() {
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        one_get(json!({
            "summary": "<p>Gets a thing</p>",
            "description": "<p>Returns the <code>Thing</code>.<br/>See <a href=\"https://docs.example.com/a?b=1&amp;c=2\">the docs</a> &amp; more.</p>",
            "parameters": [
                {"name": "limit", "in": "query", "description": "<b>Most</b> results, e.g. <code>10</code>&nbsp;or&nbsp;20.", "schema": {"type": "integer"}},
                {"name": "md", "in": "query", "description": "**Bold**, `code` and [a link](https://x.example.com) as `List<String>`.", "schema": {"type": "string"}},
            ],
        })),
    );
    s["paths"]["/make"] = json!({"post": {"operationId": "make",
        "requestBody": {"required": true, "content": {"application/json": {"schema": {
            "type": "object", "properties": {"name": {"type": "string", "description": "<p>The name &lt;b&gt; stays text.</p>"}}}}}},
        "responses": {"204": {"description": "none"}}}});
    let (_, doc, _) = import_and_check(&s);
    let thing = &doc["tools"]["thing"];
    assert_eq!(
        thing["description"],
        "Gets a thing. Returns the `Thing`. See the docs & more."
    );
    let props = &thing["input_schema"]["properties"];
    assert_eq!(
        props["limit"]["description"],
        "Most results, e.g. `10` or 20."
    );
    // CommonMark is left as written.
    assert_eq!(
        props["md"]["description"],
        "**Bold**, `code` and [a link](https://x.example.com) as `List<String>`."
    );
    assert_eq!(
        doc["tools"]["make"]["input_schema"]["properties"]["body"]["properties"]["name"]["description"],
        "The name <b> stays text."
    );
}

#[test]
fn a_key_declared_as_an_argument_is_the_dependencys_credential() {
    let get = |id: &str, params: Value| {
        json!({"get": {"operationId": id, "parameters": params,
            "responses": {"204": {"description": "none"}}}})
    };
    let key =
        json!({"name": "api_key", "in": "query", "required": true, "schema": {"type": "string"}});
    let q = json!({"name": "q", "in": "query", "schema": {"type": "string"}});
    let paths = json!({
        "/a": get("a", json!([key, q])),
        "/b": get("b", json!([key])),
        // Jira's `key` is a project key: an argument.
        "/c": get("c", json!([{"name": "key", "in": "query", "description": "The project key.", "schema": {"type": "string"}}])),
    });
    let (out, doc, config) =
        import_and_check(&spec(json!([{"url": "https://api.example.com"}]), paths));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com?api_key=${DIR_API_KEY}"
    );
    for t in ["a", "b"] {
        assert!(
            doc["tools"][t]["input_schema"]["properties"]
                .get("api_key")
                .is_none(),
            "{t}"
        );
        assert!(doc["tools"][t]["request"]["query"].get("api_key").is_none());
    }
    assert_eq!(doc["tools"]["c"]["request"]["query"]["key"], "{key}");
    assert_eq!(
        url_of(&config, "a", json!({"q": "x"})),
        "https://api.example.com/a?api_key=k&q=x"
    );
    assert!(export_line(&out).contains("DIR_API_KEY (the `api_key` value"));
    assert!(
        out.yaml
            .contains("the query parameter `api_key` of 2 of 3 operations carries a credential"),
        "{}",
        out.yaml
    );

    // An `Authorization` header parameter: the whole header, sent by the dependency.
    let auth = json!({"name": "Authorization", "in": "header", "required": true,
        "description": "Bearer token", "schema": {"type": "string"}});
    let (out, doc, _) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/a": get("a", json!([auth])), "/b": get("b", json!([auth]))}),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["headers"],
        json!({"Authorization": "${DIR_API_KEY}"})
    );
    assert!(doc["tools"]["a"]["request"].get("headers").is_none());
    assert!(export_line(&out).contains("scheme included"));

    // Optional alternatives (Google's `key` and `access_token`): the key is sent, and
    // neither is asked of the model.
    let optional = |name: &str, text: &str| json!({"name": name, "in": "query", "description": text, "schema": {"type": "string"}});
    let both = json!([
        optional("access_token", "OAuth access token."),
        optional("key", "API key.")
    ]);
    let (out, doc, _) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/a": get("a", both.clone()), "/b": get("b", both)}),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://api.example.com?key=${DIR_API_KEY}"
    );
    assert_eq!(doc["tools"]["a"]["input_schema"]["properties"], json!({}));
    assert!(
        out.yaml.contains("`access_token` is not sent"),
        "{}",
        out.yaml
    );

    // A spec whose scheme is sent sends it on every call: a key an operation lists as
    // well (Google's `key` and `oauth_token` beside OAuth) is not asked of the model,
    // even on an operation that names no security requirement. A parameter only its
    // being everywhere marks is the caller's there.
    let tenant = json!({"name": "X-Tenant-Key", "in": "header", "required": true, "schema": {"type": "string"}});
    let oauth = optional("oauth_token", "OAuth 2.0 token for the current user.");
    let mut secured = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/a": get("a", json!([key, oauth, tenant])), "/b": get("b", json!([tenant]))}),
    );
    secured["components"] = json!({"securitySchemes": {"b": {"type": "http", "scheme": "bearer"}}});
    secured["security"] = json!([{"b": []}]);
    secured["paths"]["/a"]["get"]["security"] = json!([]);
    let (out, doc, _) = import_and_check(&secured);
    let a = &doc["tools"]["a"];
    assert_eq!(
        a["input_schema"]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["X-Tenant-Key"]
    );
    assert!(a["request"].get("query").is_none());
    for name in ["api_key", "oauth_token"] {
        assert!(
            out.yaml.contains(&format!(
                "the query parameter `{name}` carries a credential: the dependency sends the security scheme's instead"
            )),
            "{}",
            out.yaml
        );
    }
    // Neither is a header or query parameter the scheme sends.
    assert_eq!(
        doc["dependencies"]["dir"]["headers"],
        json!({"Authorization": "Bearer ${DIR_TOKEN}"})
    );
    // One the operations require besides the scheme (Trakt's client id beside OAuth)
    // is sent with it.
    let client = json!({"name": "trakt-api-key", "in": "header", "required": true,
        "description": "Your client id, e.g. [client_id]. Required with every API key.",
        "schema": {"type": "string"}});
    secured["paths"]["/a"]["get"]["parameters"] = json!([client]);
    secured["paths"]["/b"]["get"]["parameters"] = json!([client]);
    let (out, doc, _) = import_and_check(&secured);
    assert_eq!(
        doc["dependencies"]["dir"]["headers"],
        json!({"Authorization": "Bearer ${DIR_TOKEN}", "trakt-api-key": "${DIR_API_KEY}"})
    );
    assert!(doc["tools"]["a"]["request"].get("headers").is_none());
    assert!(export_line(&out).contains("DIR_API_KEY (the `trakt-api-key` value"));

    // A key, an id beside it, and a sample key written as the default (data2crm):
    // all the dependency's, the sample never sent.
    let sample = |name: &str| {
        json!({"name": name, "in": "header", "required": true, "description": "user key",
            "schema": {"type": "string", "default": "e2a6379ab878ae7e58119d4ec842bf9c"}})
    };
    let params = json!([sample("X-VO-Api-Key"), {"name": "X-VO-Api-Id", "in": "header", "required": true, "schema": {"type": "string"}}]);
    let (out, doc, _) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/a": get("a", params.clone()), "/b": get("b", params)}),
    ));
    assert_eq!(
        doc["dependencies"]["dir"]["headers"],
        json!({"X-VO-Api-Key": "${DIR_API_KEY}", "X-VO-Api-Id": "${DIR_API_KEY_2}"})
    );
    assert!(doc["tools"]["a"]["request"].get("headers").is_none());
    assert!(!out.yaml.contains("e2a6379ab878"), "{}", out.yaml);
}

#[test]
fn what_a_model_cannot_know_is_not_asked_of_it() {
    // Azure: `api-version` required on every operation, with no value given.
    let mut s = spec(
        json!([{"url": "https://management.example.com"}]),
        one_get(json!({"parameters": [
            {"name": "api-version", "in": "query", "required": true, "schema": {"type": "string"}},
        ]})),
    );
    s["info"]["version"] = json!("2017-03-01-preview");
    let (out, doc, config) = import_and_check(&s);
    let t = &doc["tools"]["thing"];
    assert!(t["input_schema"]["properties"].get("api-version").is_none());
    assert_eq!(
        url_of(&config, "thing", json!({})),
        "https://management.example.com/thing?api-version=2017-03-01-preview"
    );
    assert!(out.yaml.contains("the description's info.version"));
    // A version that is no word is not sent as one.
    s["info"]["version"] = json!("Wed Oct 15 2025 13:50:41 GMT");
    let (_, doc, _) = import_and_check(&s);
    assert!(
        doc["tools"]["thing"]["input_schema"]["properties"]
            .get("api-version")
            .is_some()
    );
    // AWS: Signature Version 4 is computed per request: no static key is asked for,
    // and its signing parameters are no arguments.
    let mut aws = spec(
        json!([{"url": "https://ce.us-east-1.amazonaws.com"}]),
        one_get(json!({"parameters": [
            {"name": "X-Amz-Target", "in": "header", "required": true, "schema": {"type": "string", "enum": ["Svc.Get"]}},
            {"name": "X-Amz-Signature", "in": "header", "schema": {"type": "string"}},
            {"name": "X-Amz-Date", "in": "header", "schema": {"type": "string"}},
            {"name": "X-Amz-Security-Token", "in": "header", "schema": {"type": "string"}},
        ]})),
    );
    aws["components"] = json!({"securitySchemes": {"hmac": {"type": "apiKey", "name": "Authorization",
        "in": "header", "x-amazon-apigateway-authtype": "awsSigv4"}}});
    aws["security"] = json!([{"hmac": []}]);
    let (out, doc, _) = import_and_check(&aws);
    let t = &doc["tools"]["thing"];
    assert_eq!(t["input_schema"]["properties"], json!({}));
    assert_eq!(t["request"]["headers"], json!({"X-Amz-Target": "Svc.Get"}));
    assert!(doc["dependencies"]["dir"].get("headers").is_none());
    assert!(out.yaml.contains("AWS Signature Version 4"), "{}", out.yaml);
    // A path parameter whose value holds `/` (a resource name its description or pattern
    // shows) keeps its `/` as segments, each still encoded.
    let s = spec(
        json!([{"url": "https://dialogflow.example.com"}]),
        json!({"/v3/{name}": {"get": {"operationId": "get", "parameters": [
            {"name": "name", "in": "path", "required": true, "schema": {"type": "string"},
             "description": "Required. Format: `projects//locations//agents/`."}],
            "responses": {"204": {"description": "none"}}}}}),
    );
    let (_, doc, config) = import_and_check(&s);
    assert_eq!(doc["tools"]["get"]["request"]["path"], "/v3/{+name}");
    assert_eq!(
        url_of(
            &config,
            "get",
            json!({"name": "projects/p/locations/eu #1"})
        ),
        "https://dialogflow.example.com/v3/projects/p/locations/eu%20%231"
    );
    // A `{basePath}` variable written with its own `/` does not double it, and an
    // opaque operationId names nothing.
    let mut s = spec(
        json!([{"url": "https://cloud.example.com/{basePath}", "variables": {"basePath": {"default": "/api/v1.0"}}}]),
        one_get(json!({})),
    );
    s["paths"]["/thing"]["get"]["operationId"] = json!("5476364f031f5909e4fe3314");
    let (_, doc, _) = import_and_check(&s);
    assert_eq!(
        doc["dependencies"]["dir"]["base_url"],
        "https://cloud.example.com/api/v1.0"
    );
    assert_eq!(tool_names(&doc), ["get_thing"]);
}

#[test]
fn a_deep_object_query_is_sent_by_its_members_or_said_to_be_unsendable() {
    let deep = |name: &str, required: bool, schema: Value| {
        json!({"name": name, "in": "query", "style": "deepObject", "explode": true,
            "required": required, "schema": schema})
    };
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        one_get(json!({"parameters": [
            deep("filter", true, json!({"type": "object", "required": ["kind"], "properties": {
                "kind": {"type": "string"},
                "range": {"type": "object", "properties": {"gte": {"type": "integer"}}},
                "tags": {"type": "array", "items": {"type": "string"}},
            }})),
            // Stripe's `expand` and `created`.
            deep("expand", false, json!({"type": "array", "items": {"type": "string"}})),
            deep("created", false, json!({"anyOf": [
                {"type": "object", "properties": {"gt": {"type": "integer"}}},
                {"type": "integer"},
            ]})),
            deep("meta", false, json!({"type": "object", "additionalProperties": {"type": "string"}})),
            {"name": "ids", "in": "query", "style": "pipeDelimited", "explode": false,
             "schema": {"type": "array", "items": {"type": "integer"}}},
        ]})),
    );
    s["paths"]["/free"] = json!({"get": {"operationId": "free",
        "parameters": [deep("where", true, json!({"type": "object"}))],
        "responses": {"204": {"description": "none"}}}});
    let (out, doc, config) = import_and_check(&s);
    let t = &doc["tools"]["thing"];
    assert_eq!(
        t["request"]["query"],
        json!({
            "filter[kind]": "{filter_kind}",
            "filter[range][gte]": "{filter_range_gte}",
            "filter[tags][]": "{filter_tags*}",
            "expand[]": "{expand*}",
            "created[gt]": "{created_gt}",
            "created": "{created}",
            "ids": "{ids}",
        })
    );
    assert_eq!(t["input_schema"]["required"], json!(["filter_kind"]));
    assert_eq!(
        t["input_schema"]["properties"]["ids"]["type"], "string",
        "the model joins a pipe-delimited list"
    );
    let url = url_of(
        &config,
        "thing",
        json!({"filter_kind": "a", "filter_range_gte": 3, "filter_tags": ["x", "y"],
               "expand": ["customer"], "created_gt": 5, "ids": "1|2"}),
    );
    assert_eq!(
        url,
        "https://api.example.com/thing?created%5Bgt%5D=5&expand%5B%5D=customer&filter%5Bkind%5D=a&filter%5Brange%5D%5Bgte%5D=3&filter%5Btags%5D%5B%5D=x&filter%5Btags%5D%5B%5D=y&ids=1%7C2"
    );
    // A free-form object has no keys to write: left out when optional, the operation
    // skipped when required, and the config says so either way.
    assert!(t["input_schema"]["properties"].get("meta").is_none());
    assert!(
        out.yaml
            .contains("the optional `style: deepObject` query parameter `meta` is not sent"),
        "{}",
        out.yaml
    );
    assert!(doc["tools"].get("free").is_none());
    assert!(
        out.yaml.contains(
            "needs the `style: deepObject` query parameter `where`, which cannot be sent"
        ),
        "{}",
        out.yaml
    );
    // Swagger 2.0: a list joined by `|` or a space is the model's to join; `key` on
    // every operation, with no security definition, is the dependency's.
    let swagger = json!({"swagger": "2.0", "info": {"title": "Dir", "version": "1.0"},
        "host": "api.example.com", "schemes": ["https"],
        "paths": {"/s": {"get": {"operationId": "s", "parameters": [
            {"name": "tags", "in": "query", "type": "array", "items": {"type": "string"}, "collectionFormat": "pipes"},
            {"name": "words", "in": "query", "type": "array", "items": {"type": "string"}, "collectionFormat": "ssv"},
            {"name": "key", "in": "query", "type": "string", "required": true, "description": "Your API key."}],
            "responses": {"204": {"description": "none"}}}}}});
    let (out, doc, config) = import_and_check(&swagger);
    let t = &doc["tools"]["s"];
    assert_eq!(
        t["request"]["query"],
        json!({"tags": "{tags}", "words": "{words}"})
    );
    assert_eq!(t["input_schema"]["properties"]["tags"]["type"], "string");
    assert!(out.yaml.contains("separated by `|`"), "{}", out.yaml);
    assert!(out.yaml.contains("separated by a space"), "{}", out.yaml);
    assert_eq!(
        url_of(&config, "s", json!({"tags": "a|b", "words": "x y"})),
        "https://api.example.com/s?key=k&tags=a%7Cb&words=x+y"
    );
}

#[test]
fn a_header_every_operation_requires_to_name_the_account_is_bound_once() {
    let header = |name: &str| json!({"name": name, "in": "header", "required": true, "schema": {"type": "string"}});
    let op = |id: &str, extra: Vec<Value>| {
        let mut params = vec![
            header("xero-tenant-id"),
            header("X-Request-Id"),
            json!({"name": "page", "in": "query", "schema": {"type": "integer"}}),
        ];
        params.extend(extra);
        json!({"get": {"operationId": id, "parameters": params,
            "responses": {"204": {"description": "none"}}}})
    };
    let s = spec(
        json!([{"url": "https://api.xero.example.com/api.xro/2.0"}]),
        json!({
            "/Accounts": op("getAccounts", vec![header("If-Modified-Since")]),
            "/Invoices": op("getInvoices", vec![header("X-Only-Here")]),
            "/Contacts": op("getContacts", vec![]),
        }),
    );
    let (out, doc, config) = import_and_check(&s);
    for tool in ["getAccounts", "getInvoices", "getContacts"] {
        let props = &doc["tools"][tool]["input_schema"]["properties"];
        // Whose account it is: not the model's to say.
        assert!(props.get("xero-tenant-id").is_none(), "{tool}: {props}");
        // A request's own values stay arguments.
        assert!(props.get("X-Request-Id").is_some(), "{tool}: {props}");
        let t = &config.tools[tool];
        let Value::Object(args) =
            json!({"X-Request-Id": "r1", "If-Modified-Since": "x", "X-Only-Here": "y"})
        else {
            unreachable!()
        };
        let r = t
            .http_request()
            .unwrap()
            .render(&t.dependency.base_url, &args)
            .unwrap();
        assert_eq!(r.headers["xero-tenant-id"], "k", "{tool}");
    }
    // A header one operation requires is that operation's argument.
    assert!(doc["tools"]["getInvoices"]["input_schema"]["properties"]["X-Only-Here"].is_object());
    let report = out.report.join("\n");
    assert!(report.contains("header `xero-tenant-id`, which 3 of 3 operations require, is sent from ${DIR_XERO_TENANT_ID}"), "{report}");
    assert!(
        report.contains("DIR_XERO_TENANT_ID (the `xero-tenant-id` header every operation sends)"),
        "{report}"
    );
    // Bound by the operator, it is theirs.
    let dir = folder();
    let file = dir.join("api.json");
    std::fs::write(&file, s.to_string()).unwrap();
    let out = run(&Options {
        spec: file,
        owner: Some("a@example.com".into()),
        bind: vec![("xero-tenant-id".into(), "t-1".into())],
        ..Options::default()
    })
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!out.yaml.contains("DIR_XERO_TENANT_ID"), "{}", out.yaml);
    assert!(out.yaml.contains("t-1"), "{}", out.yaml);
}

#[test]
fn keys_listed_as_alternatives_that_every_operation_requires_are_all_sent() {
    let q = |name: &str| json!({"name": name, "in": "query", "required": true, "schema": {"type": "string"}});
    let op = |id: &str| {
        json!({"get": {"operationId": id, "parameters": [q("key"), q("token"), q("id")],
            "responses": {"204": {"description": "none"}}}})
    };
    let mut s = spec(
        json!([{"url": "https://api.trello.example.com/1"}]),
        json!({"/boards/{id}": op("getBoard"), "/cards/{id}": op("getCard")}),
    );
    for p in ["/boards/{id}", "/cards/{id}"] {
        s["paths"][p]["get"]["parameters"][2]["in"] = json!("path");
    }
    s["components"] = json!({"securitySchemes": {
        "api_key": {"type": "apiKey", "in": "query", "name": "key"},
        "api_token": {"type": "apiKey", "in": "query", "name": "token"}}});
    s["security"] = json!([{"api_key": []}, {"api_token": []}]);
    let (out, doc, config) = import_and_check(&s);
    let props = &doc["tools"]["getBoard"]["input_schema"]["properties"];
    assert!(
        props.get("key").is_none() && props.get("token").is_none(),
        "{props}"
    );
    let url = url_of(&config, "getBoard", json!({"id": "b1"}));
    assert!(url.contains("key=k") && url.contains("token=k"), "{url}");
    assert!(out.yaml.contains("both are sent"), "{}", out.yaml);
    // Where the operations leave one of them out, they are alternatives: one is sent.
    for p in ["/boards/{id}", "/cards/{id}"] {
        s["paths"][p]["get"]["parameters"][1]["required"] = json!(false);
    }
    let (_, _, config) = import_and_check(&s);
    let url = url_of(&config, "getBoard", json!({"id": "b1"}));
    assert!(url.contains("key=k") && !url.contains("token="), "{url}");
}

#[test]
fn a_google_resource_name_right_after_the_version_keeps_its_slashes() {
    let op = |id: &str, name: &str| {
        json!({"post": {"operationId": id, "parameters": [
            {"name": name, "in": "path", "required": true, "schema": {"type": "string"},
             "description": "The resource."}],
            "responses": {"204": {"description": "none"}}}})
    };
    let paths = json!({
        "/v1/{name}:cancel": op("cancel", "name"),
        "/v1beta1/{parent}/jobs": op("create", "parent"),
        "/v1/projects/{projectId}/jobs": op("list", "projectId"),
    });
    let google = spec(
        json!([{"url": "https://jobs.googleapis.com/"}]),
        paths.clone(),
    );
    let (_, doc, config) = import_and_check(&google);
    let path = |t: &str| {
        doc["tools"][t]["request"]["path"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(path("cancel"), "/v1/{+name}:cancel");
    assert_eq!(path("create"), "/v1beta1/{+parent}/jobs");
    // An id inside a literal collection is one segment.
    assert_eq!(path("list"), "/v1/projects/{projectId}/jobs");
    assert_eq!(
        url_of(
            &config,
            "cancel",
            json!({"name": "projects/p/operations/o"})
        ),
        "https://jobs.googleapis.com/v1/projects/p/operations/o:cancel"
    );
    assert_eq!(
        url_of(&config, "list", json!({"projectId": "a/b"})),
        "https://jobs.googleapis.com/v1/projects/a%2Fb/jobs"
    );
    // Elsewhere a parameter after the version is an id like any other.
    let other = spec(json!([{"url": "https://api.example.com/"}]), paths);
    let (_, doc, _) = import_and_check(&other);
    assert_eq!(
        doc["tools"]["cancel"]["request"]["path"],
        "/v1/{name}:cancel"
    );
}

#[test]
fn published_descriptions_of_these_classes_import_right() {
    // Google's generated ids: `…experiments.start` and `…experiments.stop`.
    if let Some(d) = published("googleapis.com/dialogflow.json") {
        let (_, doc, _) = import_and_check(&d);
        let names = tool_names(&doc);
        assert!(
            names.iter().all(|n| n.len() <= naming::MAX_LEN),
            "{names:?}"
        );
        assert!(names.iter().any(|n| n.ends_with("experiments.start")));
        assert!(names.iter().any(|n| n.ends_with("experiments.stop")));
        assert!(!names.iter().any(|n| n.ends_with("_2")), "{names:?}");
        // Its resource names keep their `/`.
        let paths: Vec<&str> = doc["tools"]
            .as_object()
            .unwrap()
            .values()
            .filter_map(|t| t["request"]["path"].as_str())
            .collect();
        assert!(paths.iter().any(|p| p.contains("/{+name}:")), "{paths:?}");
        assert!(paths.iter().any(|p| p.contains("/{+parent}/")), "{paths:?}");
        assert!(
            !paths
                .iter()
                .any(|p| p.contains("/{name}") || p.contains("/{parent}")),
            "{paths:?}"
        );
    }
    // Xero: every operation requires `xero-tenant-id`, whose account the calls are for.
    if let Some(d) = published("xero.com/xero_accounting.json") {
        let (out, doc, _) = import_and_check(&d);
        let asked = doc["tools"]
            .as_object()
            .unwrap()
            .values()
            .filter(|t| {
                t["input_schema"]["properties"]
                    .get("xero-tenant-id")
                    .is_some()
            })
            .count();
        assert_eq!(asked, 0);
        assert!(out.yaml.contains("${XERO_ACCOUNTING_API_XERO_TENANT_ID}"));
    }
    // Trello: `key` or `token` say its requirement lists; every operation needs both.
    if let Some(d) = published("trello.com.json") {
        let (_, doc, _) = import_and_check(&d);
        let base = doc["dependencies"]
            .as_object()
            .unwrap()
            .values()
            .next()
            .unwrap()["base_url"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(
            base.contains("key=${") && base.contains("token=${"),
            "{base}"
        );
    }
    // GitHub Enterprise Server: `{hostname}` defaulting to `HOSTNAME`.
    if let Some(d) = published("github.com/ghes-3.1.json") {
        let out = import(&d).unwrap();
        let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
        let base = doc["dependencies"]["github_v3_rest_api"]["base_url"]
            .as_str()
            .unwrap();
        assert!(!base.contains("HOSTNAME"), "{base}");
        assert!(
            base.contains("${GITHUB_V3_REST_API_SERVER_VAR_1}"),
            "{base}"
        );
    }
    // Magento: `https://example.com/rest/default`.
    if let Some(d) = published("magento.com.json") {
        let out = import(&d).unwrap();
        let doc: Value = yaml_serde::from_str(&out.yaml).unwrap();
        let (_, dep) = doc["dependencies"]
            .as_object()
            .unwrap()
            .iter()
            .next()
            .unwrap();
        assert!(
            dep["base_url"]
                .as_str()
                .unwrap()
                .ends_with("_ORIGIN}/rest/default"),
            "{}",
            dep["base_url"]
        );
    }
    // AWS: DocBook-flavoured HTML in every description, and in every parameter's.
    if let Some(d) = published("amazonaws.com/compute-optimizer.json") {
        let (out, _, _) = import_and_check(&d);
        for tag in ["<p>", "</p>", "<code>", "<a href", "&amp;", "&lt;"] {
            assert!(!out.yaml.contains(tag), "{tag}");
        }
    }
    // Flickr: `api_key` on every operation, no security scheme.
    if let Some(d) = published("flickr.com.json") {
        let (_, doc, _) = import_and_check(&d);
        let (_, dep) = doc["dependencies"]
            .as_object()
            .unwrap()
            .iter()
            .next()
            .unwrap();
        assert!(
            dep["base_url"].as_str().unwrap().contains("api_key=${"),
            "{}",
            dep["base_url"]
        );
        for (name, t) in doc["tools"].as_object().unwrap() {
            assert!(
                t["input_schema"]["properties"].get("api_key").is_none(),
                "{name}"
            );
        }
    }
    // Apideck: `filter` as `style: deepObject` with named members.
    if let Some(d) = published("apideck.com/crm.json") {
        let (out, doc, _) = import_and_check(&d);
        let sent = doc["tools"]
            .as_object()
            .unwrap()
            .values()
            .any(|t| t["request"]["query"].get("filter[name]").is_some());
        assert!(sent, "{}", out.yaml);
        assert!(!out.yaml.contains("filter: \"{filter}\""));
    }
}

#[test]
fn hostile_shapes_of_these_classes_import_in_bounded_time() {
    let started = tokio::time::Instant::now();
    let alternatives: Vec<Value> = (0..5000)
        .map(|i| json!({"type": "object", "properties": {format!("m{i}"): {"type": "string"}}}))
        .collect();
    let markup = "<a <p &#x <!-- ".repeat(50_000);
    let mut s = spec(
        json!([{"url": "https://api.example.com", "variables": {}}]),
        one_get(json!({
            "operationId": "x".repeat(100_000),
            "description": markup,
            "parameters": [
                // A schema that names itself, and one with thousands of forms.
                {"name": "tree", "in": "query", "style": "deepObject", "schema": {"$ref": "#/components/schemas/Tree"}},
                {"name": "many", "in": "query", "style": "deepObject", "schema": {"anyOf": alternatives}},
            ],
        })),
    );
    s["components"] = json!({"schemas": {"Tree": {"type": "object", "properties": {
        "name": {"type": "string"}, "child": {"$ref": "#/components/schemas/Tree"}}}}});
    let (out, doc, _) = import_and_check(&s);
    let names = tool_names(&doc);
    assert!(names[0].len() <= naming::MAX_LEN, "{names:?}");
    let query = doc["tools"][&names[0]]["request"]["query"]
        .as_object()
        .unwrap();
    // The tree is read to a bounded depth; the thousands of forms are refused.
    assert!(query.contains_key("tree[child][child][name]"), "{query:?}");
    assert!(!query.keys().any(|k| k.starts_with("many")), "{query:?}");
    assert!(
        out.yaml.contains("more than the 32 a tool takes"),
        "{}",
        out.yaml
    );
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn operator_expressions_in_a_path_keep_their_separator() {
    let param = |name: &str| json!({"in": "path", "name": name, "required": true, "schema": {"type": "string"}});
    let op = |params: Value| json!({"parameters": params, "responses": {"204": {"description": "none"}}});
    let paths = json!({
        // The operator inside the parameter's name, as NASA's TechPort publishes it.
        "/projects/{id}{.format}": {"get": op(json!([param("id"), param(".format")]))},
        // The operator only in the path key.
        "/files{/folder}{;version}": {"get": op(json!([param("folder"), param("version")]))},
        "/blobs/{+key}": {"get": op(json!([param("key")]))},
    });
    let (_, doc, _) = import_and_check(&spec(json!([{"url": "https://api.example.com"}]), paths));
    let mut sent: Vec<String> = doc["tools"]
        .as_object()
        .unwrap()
        .values()
        .map(|t| t["request"]["path"].as_str().unwrap().to_string())
        .collect();
    sent.sort();
    assert_eq!(
        sent,
        [
            "/blobs/{+key}",
            "/files/{folder};version={version}",
            "/projects/{id}.{_format}",
        ]
    );
}

#[test]
fn an_array_s_enum_of_item_values_is_its_items_enum() {
    // `type: array` with `enum: [Active, Closed]` beside it, as descriptions converted
    // from Swagger 2.0 write a multi-valued query parameter: no list equals a string,
    // so as written neither the model's list nor the API's answer could ever be valid.
    let statuses = json!(["Active", "Pending", "Closed"]);
    let (out, doc, config) = import_and_check(&spec(
        json!([{"url": "https://api.example.com"}]),
        json!({"/listings": {"get": {"operationId": "listings",
        "parameters": [{"name": "status", "in": "query", "explode": true, "schema": {
            "type": "array", "items": {"type": "string"}, "enum": statuses, "default": "Active"}}],
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {
            "type": "object", "properties": {"statuses": {"type": "array", "items": {"type": "string"}, "enum": statuses}},
        }}}}}}}}),
    ));
    let status = &doc["tools"]["listings"]["input_schema"]["properties"]["status"];
    assert_eq!(status["items"]["enum"], statuses, "{}", out.yaml);
    assert_eq!(status.get("enum"), None, "{status}");
    assert_eq!(status["default"], json!(["Active"]));
    let validator = jsonschema::validator_for(&doc["tools"]["listings"]["input_schema"]).unwrap();
    assert!(validator.is_valid(&json!({"status": ["Active", "Closed"]})));
    assert!(!validator.is_valid(&json!({"status": ["Sold"]})));
    assert!(
        url_of(&config, "listings", json!({"status": ["Active", "Closed"]}))
            .ends_with("/listings?status=Active&status=Closed")
    );
    // The response's list is read the same way: nowhere in the config is a list whose
    // `enum` names scalars.
    fn scalar_enum_on_a_list(v: &Value) -> bool {
        match v {
            Value::Object(m) => {
                (m.get("type") == Some(&json!("array"))
                    && m.get("enum")
                        .and_then(Value::as_array)
                        .is_some_and(|e| e.iter().any(|x| x.is_string())))
                    || m.values().any(scalar_enum_on_a_list)
            }
            Value::Array(items) => items.iter().any(scalar_enum_on_a_list),
            _ => false,
        }
    }
    assert!(!scalar_enum_on_a_list(&doc), "{}", out.yaml);
}

#[test]
fn a_swagger_2_list_parameter_with_its_values_on_the_list_takes_them_as_item_values() {
    let (out, doc, _) = import_and_check(&json!({
        "swagger": "2.0",
        "info": {"title": "Listings", "version": "1"},
        "host": "api.example.com",
        "schemes": ["https"],
        "paths": {"/listings": {"get": {"operationId": "listings", "parameters": [
            {"name": "include", "in": "query", "type": "array", "collectionFormat": "multi",
             "items": {"type": "string"}, "enum": ["photos", "agent"]},
        ], "responses": {"200": {"description": "ok"}}}}},
    }));
    let include = &doc["tools"]["listings"]["input_schema"]["properties"]["include"];
    assert_eq!(
        include["items"]["enum"],
        json!(["photos", "agent"]),
        "{}",
        out.yaml
    );
    assert_eq!(include.get("enum"), None, "{include}");
}

#[test]
fn a_property_named_like_a_keyword_is_a_schema_like_any_other() {
    // color.pizza's list of colour lists: properties named `default`, `enum`, `examples`
    // each `$ref` a shared component. Read as the keywords, their references stayed
    // pointing into the contract itself, and the contract was dropped as unusable.
    let list = json!({"$ref": "#/components/schemas/list"});
    let mut s = spec(
        json!([{"url": "https://api.example.com"}]),
        json!({
            "/lists": {"get": {"operationId": "lists", "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": {"type": "object", "required": ["lists"],
                    "properties": {"lists": {"type": "object", "properties": {
                        "default": list, "enum": list, "examples": list, "basic": list},
                        // A `default` value is data: a `$ref` key in it stays as written.
                        "default": {"$ref": "#/$defs/list"}}}}}}}}}},
            "/list": {"get": {"operationId": "list", "responses": {"200": {"description": "ok",
                "content": {"application/json": {"schema": list}}}}}},
        }),
    );
    s["components"] = json!({"schemas": {"list": {"type": "object", "required": ["key"],
        "properties": {"key": {"type": "string"}, "pattern": {"type": "string", "pattern": "[a-z]+"}}}}});
    let (out, doc, _) = import_and_check(&s);
    assert!(
        !out.yaml.contains("not usable"),
        "{:?}\n{}",
        out.report,
        out.yaml
    );
    let lists = &doc["tools"]["lists"]["contract"]["response_schema"]["properties"]["lists"];
    for name in ["default", "enum", "examples", "basic"] {
        let r = lists["properties"][name]["$ref"]
            .as_str()
            .unwrap_or_default();
        assert!(r.starts_with("toolgate:schemas/"), "{name}: {lists}");
    }
    assert_eq!(lists["default"], json!({"$ref": "#/$defs/list"}), "{lists}");
}

/// Every `${VAR}` the config reads, and every variable the report says to export.
fn variables(out: &Outcome) -> Vec<String> {
    let mut vars: Vec<String> = out
        .yaml
        .split("${")
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(v, _)| v.to_string()))
        .collect();
    for line in out.report.iter().filter(|l| l.starts_with("export")) {
        // `export before `toolgate serve`: NAME_TOKEN (the bearer token for …), …`
        vars.extend(
            line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.contains('_') && !w.chars().any(|c| c.is_ascii_lowercase()))
                .map(str::to_string),
        );
    }
    vars
}

/// What a shell's `export`, a systemd unit and a Kubernetes manifest take as a name.
fn is_shell_name(v: &str) -> bool {
    v.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && v.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[test]
fn variables_are_named_so_a_shell_can_set_them() {
    // APIs.guru's `1password.local/connect.json` ("1Password Connect") and
    // `1forge.com.json` ("1Forge Finance APIs") are titled with a leading digit.
    let mut s = spec(
        json!([{"url": "/v1"}]),
        json!({"/items/{id}": {"get": {
            "operationId": "getItem",
            "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
            "responses": {"200": {"description": "ok", "content": {"application/json": {
                "schema": {"type": "object", "required": ["id"], "properties": {"id": {"type": "string"}}}}}}},
        }}}),
    );
    s["info"]["title"] = json!("1Password Connect");
    s["components"] = json!({"securitySchemes": {
        "bearer": {"type": "http", "scheme": "bearer"},
        "key": {"type": "apiKey", "in": "header", "name": "X-Key"},
    }});
    s["security"] = json!([{"bearer": [], "key": []}]);
    let (out, _, _) = import_and_check(&s);
    let vars = variables(&out);
    assert!(vars.len() >= 3, "{vars:?}\n{}", out.yaml);
    assert!(vars.iter().all(|v| is_shell_name(v)), "{vars:?}");

    // A dependency name of one's own with `-` in it, which dependency names allow.
    let dir = folder();
    let file = dir.join("api.json");
    std::fs::write(&file, s.to_string()).unwrap();
    let out = run(&Options {
        spec: file,
        owner: Some("api-team@example.com".into()),
        dependency: Some("vault-connect".into()),
        ..Options::default()
    })
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let vars = variables(&out);
    assert!(
        vars.iter().any(|v| v.starts_with("VAULT_CONNECT_")),
        "{vars:?}"
    );
    assert!(vars.iter().all(|v| is_shell_name(v)), "{vars:?}");
}

#[test]
fn a_request_signature_of_version_2_asks_the_model_for_none_of_its_query_parameters() {
    let signing = |name: &str| json!({"name": name, "in": "query", "required": true, "schema": {"type": "string"}});
    let mut aws = spec(
        json!([{"url": "https://sdb.amazonaws.com"}]),
        one_get(json!({"parameters": [
            signing("AWSAccessKeyId"), signing("SignatureMethod"), signing("SignatureVersion"),
            signing("Timestamp"),
            {"name": "Signature", "in": "query", "schema": {"type": "string"}},
            {"name": "DomainName", "in": "query", "required": true, "schema": {"type": "string"}},
        ]})),
    );
    aws["components"] = json!({"securitySchemes": {"hmac": {"type": "apiKey", "name": "Authorization",
        "in": "header", "x-amazon-apigateway-authtype": "awsSigv2"}}});
    aws["security"] = json!([{"hmac": []}]);
    let (out, doc, _) = import_and_check(&aws);
    let t = &doc["tools"]["thing"];
    assert_eq!(
        t["input_schema"]["properties"],
        json!({"DomainName": {"type": "string"}})
    );
    assert_eq!(t["input_schema"]["required"], json!(["DomainName"]));
    assert!(doc["dependencies"]["dir"].get("headers").is_none());
    assert!(out.yaml.contains("AWS Signature Version 2"), "{}", out.yaml);
}
