use std::path::Path;

use serde_json::{Value, json};

use super::contract::is_major_minor;
use super::*;
use crate::template::BodyEncoding;

#[test]
fn non_object_contracts_are_wrapped_with_their_definitions_at_the_root() {
    let (s, wrapped) = output_schema(
        &json!({"type": "array", "items": {"$ref": "#/$defs/x"}, "$defs": {"x": {"type": "string"}}}),
    );
    assert!(wrapped);
    assert_eq!(s["$defs"]["x"]["type"], "string");
    assert_eq!(s["properties"]["result"]["type"], "array");
    assert_eq!(s["required"], json!(["result"]));
    let (s, wrapped) = output_schema(&json!({"type": "object", "properties": {}}));
    assert!(!wrapped);
    assert_eq!(s["type"], "object");
}

#[test]
fn the_notes_member_takes_a_name_the_upstream_schema_does_not_use() {
    let m = |v: Value| notes_member(v.as_object().expect("an object"));
    assert_eq!(m(json!({"type": "object"})), Some("toolgate"));
    assert_eq!(
        m(json!({"properties": {"toolgate": {"type": "string"}}})),
        Some("_toolgate")
    );
    assert_eq!(
        m(json!({"properties": {"toolgate": {}, "_toolgate": {}}})),
        None
    );
}

fn compile_notes(gateway: &str, tool: &str) -> Result<NotesMode, String> {
    let yaml = format!(
        "{gateway}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    \
         dependency: api\n    owner: o@example.com\n    request: {{ path: /x }}\n{tool}    \
         contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
    );
    crate::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .map(|c| c.tools["t"].notes)
    .map_err(|e| e.to_string())
}

/// Whether the tool lists an `outputSchema` and has a member for its notes.
fn compile_structured(gateway: &str, tool: &str) -> (bool, Option<&'static str>) {
    let yaml = format!(
        "{gateway}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    \
         dependency: api\n    owner: o@example.com\n    request: {{ path: /x }}\n{tool}    \
         contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
    );
    let config = crate::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let t = &config.tools["t"];
    (t.contract.advertised, t.notes_member)
}

#[test]
fn structured_content_is_on_by_default_the_gateway_turns_it_off_and_a_tool_overrides() {
    assert_eq!(compile_structured("", ""), (true, Some("toolgate")));
    let off = "gateway:\n  structured_content: false\n";
    assert_eq!(compile_structured(off, ""), (false, None));
    assert_eq!(
        compile_structured(off, "    structured_content: true\n"),
        (true, Some("toolgate"))
    );
    assert_eq!(
        compile_structured("", "    structured_content: false\n"),
        (false, None)
    );
}

#[test]
fn notes_default_to_inline_the_gateway_sets_them_and_a_tool_overrides() {
    assert_eq!(compile_notes("", ""), Ok(NotesMode::Inline));
    assert_eq!(
        compile_notes("gateway:\n  notes: text\n", ""),
        Ok(NotesMode::Text)
    );
    assert_eq!(
        compile_notes("gateway:\n  notes: text\n", "    notes: structured\n"),
        Ok(NotesMode::Structured)
    );
    let err = compile_notes("", "    notes: strucutred\n").expect_err("a typo is an error");
    assert!(
        err.contains("tools.t.notes") && err.contains("did you mean `structured`?"),
        "{err}"
    );
    let err = compile_notes("gateway:\n  notes: json\n", "").expect_err("not a mode");
    assert!(
        err.contains("gateway.notes") && err.contains("text"),
        "{err}"
    );
}

fn compile_contract(gateway: &str, contract: &str) -> Result<Contract, String> {
    let yaml = format!(
        "{gateway}dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\" }}\ntools:\n  t:\n    \
         dependency: api\n    owner: o@example.com\n    request: {{ path: /x }}\n{contract}"
    );
    crate::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .map(|c| c.tools["t"].contract.clone())
    .map_err(|e| e.to_string())
}

#[test]
fn a_tool_without_a_response_schema_learns_its_contract_and_warns_by_default() {
    let c = compile_contract("", "").expect("no contract at all is fine");
    assert_eq!(c.origin, ContractOrigin::Learned);
    assert_eq!(c.on_drift, OnDrift::Warn);
    assert_eq!(c.learn, Some(Learn::default()));
    let c = compile_contract(
        "",
        "    contract: { version: \"1.0\", response_schema: {} }\n",
    )
    .expect("an empty schema declares nothing");
    assert_eq!(c.origin, ContractOrigin::Learned);
    let c = compile_contract(
        "gateway:\n  learn: { enforce_after: 50 }\n",
        "    contract: { version: \"1.0\", on_drift: fail, learn: { max_paths: 10 } }\n",
    )
    .expect("settings merge key by key");
    assert_eq!(c.on_drift, OnDrift::Fail);
    assert_eq!(
        c.learn,
        Some(Learn {
            enforce_after: 50,
            max_paths: 10
        })
    );
    let c = compile_contract("gateway:\n  learn: { enabled: false }\n", "").expect("off");
    assert_eq!(c.origin, ContractOrigin::None);
    let c = compile_contract(
        "",
        "    contract: { version: \"1.0\", response_schema: { type: object } }\n",
    )
    .expect("declared");
    assert_eq!(
        (c.origin, c.on_drift),
        (ContractOrigin::Declared, OnDrift::Fail)
    );
    let err = compile_contract("", "    contract: { version: \"1.0\", on_drift: ignore }\n")
        .expect_err("not a mode");
    assert!(err.contains("tools.t.contract.on_drift"), "{err}");
    let err = compile_contract("gateway:\n  learn: { enforce_after: 0 }\n", "").expect_err("zero");
    assert!(err.contains("gateway.learn.enforce_after"), "{err}");
}

#[test]
fn an_imported_response_schema_is_marked_imported_and_enforced_like_a_declared_one() {
    let c = compile_contract(
        "",
        "    contract: { version: \"1.0\", origin: imported, response_schema: { type: object } }\n",
    )
    .expect("imported");
    assert_eq!(
        (c.origin, c.on_drift, c.learn),
        (ContractOrigin::Imported, OnDrift::Fail, None)
    );
    let c = compile_contract(
        "",
        "    contract: { version: \"1.0\", origin: declared, response_schema: { type: object } }\n",
    )
    .expect("declared by name");
    assert_eq!(c.origin, ContractOrigin::Declared);
    let c = compile_contract(
        "",
        "    contract: { version: \"1.0\", origin: imported, on_drift: warn, response_schema: { type: object } }\n",
    )
    .expect("an imported contract may warn");
    assert_eq!(c.on_drift, OnDrift::Warn);
    let err = compile_contract(
        "",
        "    contract: { version: \"1.0\", origin: openapi, response_schema: { type: object } }\n",
    )
    .expect_err("not an origin");
    assert!(
        err.contains("tools.t.contract.origin") && err.contains("imported"),
        "{err}"
    );
    let err = compile_contract(
        "",
        "    contract: { version: \"1.0\", origin: imported, response_schema: {} }\n",
    )
    .expect_err("nothing was imported");
    assert!(
        err.contains("tools.t.contract.origin") && err.contains("learned"),
        "{err}"
    );
}

#[test]
fn versions() {
    assert!(is_major_minor("3.1"));
    assert!(!is_major_minor("3"));
    assert!(!is_major_minor("3.1.0"));
    assert!(!is_major_minor("v3.1"));
}

#[test]
fn body_encoding_is_json_or_form_and_a_form_body_is_an_object() {
    let cfg = |enc: &str, body: &str| {
        format!(
            "dependencies:\n  d: {{base_url: 'https://x.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{method: POST, path: /p, body: {body}, body_encoding: {enc}}}\n    input_schema: {{type: object, properties: {{a: {{type: string}}}}}}\n    contract: {{version: '1.0', response_schema: {{type: object}}}}\n"
        )
    };
    let env = |_: &str| None;
    let parse = |text: String| crate::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
    let c = parse(cfg("form", "{a: '{a}'}")).unwrap();
    assert_eq!(
        c.tools["t"].http_request().map(|r| r.body_encoding),
        Some(BodyEncoding::Form)
    );
    let e = parse(cfg("xml", "{a: '{a}'}")).unwrap_err().to_string();
    assert!(e.contains("unknown body encoding `xml`"), "{e}");
    let e = parse(cfg("form", "['{a}']")).unwrap_err().to_string();
    assert!(e.contains("a form body must be an object"), "{e}");
}

#[test]
fn a_multipart_body_is_an_object_of_fields_without_a_content_type_of_its_own() {
    let cfg = |request: &str| {
        format!(
            "dependencies:\n  d: {{base_url: 'https://x.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{method: POST, path: /p, {request}}}\n    input_schema: {{type: object, properties: {{a: {{type: string}}}}}}\n    contract: {{version: '1.0', response_schema: {{type: object}}}}\n"
        )
    };
    let env = |_: &str| None;
    let parse = |text: String| crate::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
    let c = parse(cfg("body: {a: '{a}'}, body_encoding: multipart")).unwrap();
    let t = &c.tools["t"];
    assert_eq!(
        t.http_request().map(|r| r.body_encoding),
        Some(BodyEncoding::Multipart)
    );
    let r = t
        .http_request()
        .unwrap()
        .render(
            &t.dependency.base_url,
            serde_json::json!({"a": "x"}).as_object().unwrap(),
        )
        .unwrap();
    let ct = r.content_type.to_str().unwrap();
    let boundary = ct.strip_prefix("multipart/form-data; boundary=").unwrap();
    assert_eq!(
        r.body.as_deref(),
        Some(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--{boundary}--\r\n")
                .as_bytes()
        )
    );
    for (request, error) in [
        (
            "body: '{a}', body_encoding: multipart",
            "a multipart body must be an object of fields",
        ),
        (
            "body: {a: '{a}'}, body_encoding: multipart, content_type: multipart/form-data",
            "content_type applies to json and text bodies only",
        ),
        (
            "body: {a: '{a}'}, body_encoding: multipart, form_style: {a: comma}",
            "form_style applies to form bodies only",
        ),
    ] {
        let e = parse(cfg(request)).unwrap_err().to_string();
        assert!(e.contains(error), "{request}: {e}");
    }
}

#[test]
fn a_text_body_is_the_arguments_text_sent_as_written_with_its_media_type() {
    let cfg = |request: &str| {
        format!(
            "dependencies:\n  d: {{base_url: 'https://x.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{method: PUT, path: /p, {request}}}\n    input_schema: {{type: object, properties: {{doc: {{type: string}}}}}}\n    contract: {{version: '1.0', response_schema: {{type: object}}}}\n"
        )
    };
    let env = |_: &str| None;
    let parse = |text: String| crate::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
    let render = |request: &str, args: serde_json::Value| {
        let c = parse(cfg(request)).unwrap();
        let t = &c.tools["t"];
        t.http_request()
            .unwrap()
            .render(&t.dependency.base_url, args.as_object().unwrap())
    };
    let xml = "<a x=\"1\">caf\u{e9} &amp; \"q\"</a>\n";
    let r = render(
        "body: '{doc}', body_encoding: text, content_type: application/xml",
        serde_json::json!({"doc": xml}),
    )
    .unwrap();
    assert_eq!(r.body.as_deref(), Some(xml.as_bytes()));
    assert_eq!(r.content_type, "application/xml");
    let r = render(
        "body: '{doc}', body_encoding: text",
        serde_json::json!({"doc": "plain"}),
    )
    .unwrap();
    assert_eq!(r.body.as_deref(), Some(&b"plain"[..]));
    assert_eq!(r.content_type, "text/plain; charset=utf-8");
    // An optional body whose argument is absent is not sent at all.
    let r = render("body: '{doc}', body_encoding: text", serde_json::json!({})).unwrap();
    assert_eq!(r.body, None);
    let e = render(
        "body: '{doc}', body_encoding: text",
        serde_json::json!({"doc": {"a": 1}}),
    )
    .unwrap_err();
    assert!(
        e.0.contains("give it as a string, not an object"),
        "{}",
        e.0
    );
    for (request, why) in [
        (
            "body: {a: '{doc}'}, body_encoding: text",
            "a text body must be a string",
        ),
        (
            "body: '{doc}', body_encoding: text, content_type: 'text/*'",
            "is not a media type a body can be sent as",
        ),
        (
            "body: '{doc}', body_encoding: text, content_type: \"text/plain\\r\\nX-Evil: 1\"",
            "is not a media type a body can be sent as",
        ),
    ] {
        let e = parse(cfg(request)).unwrap_err().to_string();
        assert!(e.contains(why), "{request}: {e}");
    }
}

#[test]
fn a_json_body_is_labelled_with_the_json_media_type_the_tool_names() {
    let cfg = |request: &str| {
        format!(
            "dependencies:\n  d: {{base_url: 'https://x.example.com'}}\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: {{method: PATCH, path: /p, body: '{{a}}', {request}}}\n    input_schema: {{type: object, properties: {{a: {{type: object}}}}}}\n    contract: {{version: '1.0', response_schema: {{type: object}}}}\n"
        )
    };
    let env = |_: &str| None;
    let parse = |text: String| crate::parse(Path::new("t.yaml"), &text, Path::new("."), &env);
    let sent = |request: &str| {
        let c = parse(cfg(request)).unwrap();
        let t = &c.tools["t"];
        let args = serde_json::json!({"a": {"b": 1}});
        let r = t
            .http_request()
            .unwrap()
            .render(&t.dependency.base_url, args.as_object().unwrap())
            .unwrap();
        assert_eq!(r.body.as_deref(), Some(&br#"{"b":1}"#[..]));
        r.content_type
    };
    assert_eq!(sent("body_encoding: json"), "application/json");
    for media in [
        "application/merge-patch+json",
        "application/vnd.api+json",
        "application/json-patch+json",
        "text/json",
        "application/problem+json; charset=utf-8",
    ] {
        assert_eq!(sent(&format!("content_type: '{media}'")), media);
    }
    for (request, why) in [
        ("content_type: application/xml", "is not a JSON media type"),
        ("content_type: '*/*'", "is not a JSON media type"),
        (
            "content_type: 'application/*+json'",
            "is not a JSON media type",
        ),
        ("content_type: json", "is not a JSON media type"),
        (
            "content_type: \"application/json\\r\\nX-Evil: 1\"",
            "is not a JSON media type",
        ),
        (
            "content_type: application/merge-patch+json, body_encoding: form",
            "content_type applies to json and text bodies only",
        ),
    ] {
        let e = parse(cfg(request)).unwrap_err().to_string();
        assert!(e.contains(why), "{request}: {e}");
    }
}

#[test]
fn an_undeclared_placeholder_is_named_once_wherever_it_appears() {
    let env = |_: &str| None;
    let e = crate::parse(
        Path::new("t.yaml"),
        "dependencies:\n  d: { base_url: 'https://x.example.com' }\ntools:\n  t:\n    dependency: d\n    owner: o@example.com\n    request: { path: '/orgs/{org}/repos/{repo}/forks/{org}', query: { owner: '{org}', q: '{q}' } }\n    input_schema: { type: object, properties: { q: { type: string } } }\n",
        Path::new("."),
        &env,
    )
    .expect_err("undeclared placeholders")
    .to_string();
    assert!(
        e.contains("the request uses {org}, {repo} but input_schema declares no such properties"),
        "{e}"
    );
}

fn compile_with(request: &str) -> Result<crate::Config, String> {
    let yaml = format!(
        "dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9\", headers: {{ Authorization: \"Bearer t0ken-value\" }} }}\n\
         tools:\n  t:\n    dependency: api\n    owner: o@example.com\n    request: {request}\n    \
         contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
    );
    crate::parse(Path::new("t.yaml"), &yaml, Path::new("."), &|_| None).map_err(|e| e.to_string())
}

#[test]
fn a_tool_omits_only_headers_its_dependency_sends() {
    let config =
        compile_with("{ path: /health, omit_headers: [authorization] }").expect("compiles");
    let request = config.tools["t"].http_request().expect("an HTTP tool");
    assert_eq!(request.omit_headers, vec![http::header::AUTHORIZATION]);
    let args = serde_json::Map::new();
    let rendered = request
        .render(&config.tools["t"].dependency.base_url, &args)
        .expect("renders");
    assert!(!rendered.sends_dependency_header(&http::header::AUTHORIZATION));

    let e = compile_with("{ path: /health, omit_headers: [X-Api-Key] }").unwrap_err();
    assert!(
        e.contains("omit_headers") && e.contains("sends no header `x-api-key`"),
        "{e}"
    );
    let e = compile_with("{ path: /health, omit_headers: [\"X Key\"] }").unwrap_err();
    assert!(e.contains("not a valid header name"), "{e}");
}

#[test]
fn a_tool_omits_only_query_parameters_its_base_url_carries() {
    // A key the API takes in the query rides on the base URL; an operation served
    // without credentials leaves it off, and only it: the tool's own query stays.
    let yaml = |omit: &str| {
        format!(
            "dependencies:\n  api: {{ base_url: \"http://127.0.0.1:9/v1?api_key=k3y&lang=en\" }}\n\
             tools:\n  t:\n    dependency: api\n    owner: o@example.com\n    \
             request: {{ path: /login, query: {{ next: home }}, omit_query: {omit} }}\n    \
             contract: {{ version: \"1.0\", response_schema: {{ type: object }} }}\n"
        )
    };
    let parse = |y: String| {
        crate::parse(Path::new("t.yaml"), &y, Path::new("."), &|_| None).map_err(|e| e.to_string())
    };
    let config = parse(yaml("[api_key]")).expect("compiles");
    let tool = &config.tools["t"];
    let rendered = tool
        .http_request()
        .expect("an HTTP tool")
        .render(&tool.dependency.base_url, &serde_json::Map::new())
        .expect("renders");
    assert_eq!(rendered.url.query(), Some("lang=en&next=home"));

    let e = parse(yaml("[apikey]")).unwrap_err();
    assert!(
        e.contains("omit_query") && e.contains("has no query parameter `apikey`"),
        "{e}"
    );
}

#[test]
fn a_tool_header_of_the_dependency_s_name_replaces_it() {
    let config = compile_with("{ path: /admin, headers: { Authorization: \"Basic abc\" } }")
        .expect("compiles");
    let request = config.tools["t"].http_request().expect("an HTTP tool");
    let rendered = request
        .render(
            &config.tools["t"].dependency.base_url,
            &serde_json::Map::new(),
        )
        .expect("renders");
    assert!(!rendered.sends_dependency_header(&http::header::AUTHORIZATION));
    assert!(rendered.sends_dependency_header(&http::header::ACCEPT));
}

/// A tool whose request sets header `name` to `value`, its argument `v` declared.
fn compile_header(name: &str, value: &str) -> Result<crate::Config, String> {
    let yaml = format!(
        "dependencies:\n  api: {{ base_url: \"https://api.example.com\" }}\n\
         tools:\n  t:\n    dependency: api\n    owner: o@example.com\n    \
         request: {{ path: /items, headers: {{ \"{name}\": \"{value}\" }} }}\n    \
         input_schema: {{ type: object, properties: {{ v: {{ type: string }} }} }}\n"
    );
    crate::parse(Path::new("t.yaml"), &yaml, Path::new("."), &|_| None).map_err(|e| e.to_string())
}

/// Headers read for the request's destination, method, path or framing take no
/// argument: the model could otherwise pick another virtual host on the same address,
/// turn a read into a `DELETE`, route past a path check, or smuggle a second request.
#[test]
fn a_header_that_steers_the_request_takes_no_argument() {
    for name in [
        "Host",
        "host",
        "Content-Length",
        "Transfer-Encoding",
        "TE",
        "Connection",
        "Upgrade",
        "Expect",
        "Forwarded",
        "X-Forwarded-Host",
        "X-Forwarded-Proto",
        "X-HTTP-Method-Override",
        "X-Method-Override",
        "X-Original-URL",
        "X-Rewrite-URL",
    ] {
        for value in ["{v}", "tenant-{v}.example.com"] {
            let e = compile_header(name, value).expect_err(name);
            assert!(
                e.contains(&format!("headers.{name}"))
                    && e.contains("cannot take an argument ({v})"),
                "{name}: {e}"
            );
        }
        // A fixed value is the owner's choice.
        compile_header(name, "fixed").unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    for name in ["X-Request-Id", "X-Tenant", "Accept-Language", "If-Match"] {
        compile_header(name, "{v}").unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
