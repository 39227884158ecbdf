use std::collections::BTreeMap;

use http::Method;
use serde_json::{Value, json};

use super::*;

fn search() -> RequestTemplate {
    RequestTemplate {
        method: Method::GET,
        path: Template::parse("/search"),
        query: vec![("q".into(), Template::parse("{q}"))],
        headers: vec![],
        omit_headers: Vec::new(),
        omit_query: Vec::new(),
        body: None,
        body_encoding: BodyEncoding::Json,
        content_type: None,
        form_style: BTreeMap::new(),
    }
}

fn render(t: &RequestTemplate, args: Value) -> Result<RenderedRequest, RenderError> {
    let Value::Object(args) = args else {
        panic!("object")
    };
    t.render(
        &url::Url::parse("http://api.example.com/v1").unwrap(),
        &args,
    )
}

#[test]
fn a_url_longer_than_8_kib_is_refused_with_the_limit() {
    let err = render(&search(), json!({ "q": "x".repeat(9000) })).unwrap_err();
    assert!(err.0.contains("over the 8 KiB limit"), "{}", err.0);
    // Just under the limit still renders.
    assert!(render(&search(), json!({ "q": "x".repeat(8000) })).is_ok());
}

#[test]
fn an_argument_over_64_kib_is_refused_wherever_it_goes() {
    let mut t = search();
    t.body = Some(json!({ "text": "{text}" }));
    let err = render(&t, json!({ "q": "a", "text": "y".repeat(70_000) })).unwrap_err();
    assert!(
        err.0.contains("`text`") && err.0.contains("64 KiB"),
        "{}",
        err.0
    );
}

#[test]
fn a_body_over_1_mib_is_refused_with_the_limit() {
    let mut t = search();
    t.body = Some(json!({ "a": "{a}", "b": "{b}" }));
    // Many arguments each under 64 KiB, together over 1 MiB.
    let mut args = serde_json::Map::new();
    args.insert("q".into(), json!("a"));
    let mut body = serde_json::Map::new();
    for i in 0..20 {
        body.insert(format!("f{i}"), json!(format!("{{f{i}}}")));
        args.insert(format!("f{i}"), json!("z".repeat(60_000)));
    }
    t.body = Some(Value::Object(body));
    let err = render(&t, Value::Object(args)).unwrap_err();
    assert!(err.0.contains("over the 1 MiB limit"), "{}", err.0);
}
