//! Parameter pollution through names the caller chooses: an object's member names
//! spread into the query or a form body, or kept in a JSON body, that a lenient server
//! reads as a name the tool sets, or as another member (see `parameter_names.rs`).

use std::collections::BTreeMap;

use http::Method;
use serde_json::{Value, json};

use super::*;

fn template(method: Method, query: &[(&str, &str)], body: Option<Value>) -> RequestTemplate {
    RequestTemplate {
        method,
        path: Template::parse("/items"),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), Template::parse(v)))
            .collect(),
        headers: vec![],
        omit_headers: vec![],
        body,
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
        &url::Url::parse("https://api.example.com/v1?api_key=k").unwrap(),
        &args,
    )
}

/// Spellings of `api_key` (and of the tool's own `scope`) a server reads as the name
/// itself: PHP mangles spaces, dots and an unmatched `[` to `_` and takes `a[…]` as
/// `a`; ASP.NET looks names up regardless of case; a proxy may decode once more.
const ALIASES: [&str; 9] = [
    "API_KEY",
    "Api_Key",
    "api.key",
    "api key",
    "api[key",
    "api_key[]",
    "api_key[x]",
    "api%5Fkey",
    "SCOPE",
];

#[test]
fn a_spread_query_object_may_not_name_a_parameter_the_tool_sets_in_any_spelling() {
    let t = template(
        Method::GET,
        &[("scope", "read"), ("filter", "{filter*}")],
        None,
    );
    for alias in ALIASES {
        let e = render(&t, json!({"filter": {alias: "mine"}})).unwrap_err();
        assert!(e.0.contains("sets itself"), "{alias:?}: {e:?}");
    }
    // Names that are no parameter of the tool's stay usable, the spread's own included.
    let r = render(
        &t,
        json!({"filter": {"api_keys": 1, "apikey": 2, "Filter": 3, "color": "red"}}),
    )
    .unwrap();
    assert_eq!(
        r.url.query(),
        Some("api_key=k&scope=read&api_keys=1&apikey=2&Filter=3&color=red")
    );
}

#[test]
fn a_spread_form_object_may_not_name_a_field_the_tool_sets_in_any_spelling() {
    let mut t = template(
        Method::POST,
        &[],
        Some(json!({"scope": "read", "api_key": "{key}", "meta": "{meta}"})),
    );
    t.body_encoding = BodyEncoding::Form;
    t.form_style.insert("meta".into(), FormStyle::Repeat);
    for alias in ALIASES {
        // Left out, `api_key` is still the tool's field: the caller may not fill it
        // through the spread, round its schema.
        let e = render(&t, json!({"meta": {alias: "mine"}})).unwrap_err();
        assert!(e.0.contains("sets itself"), "{alias:?}: {e:?}");
    }
    let r = render(&t, json!({"key": "a", "meta": {"color": "red"}})).unwrap();
    assert_eq!(
        String::from_utf8(r.body.unwrap()).unwrap(),
        "scope=read&api_key=a&color=red"
    );
}

#[test]
fn a_body_object_whose_members_a_folding_reader_takes_for_one_is_refused() {
    let t = template(
        Method::POST,
        &[],
        Some(json!({"user": "{user}", "items": ["{first}"]})),
    );
    for (args, names) in [
        (json!({"user": {"role": "viewer", "ROLE": "admin"}}), "role"),
        (json!({"user": {"a": {"Id": 1, "iD": 2}}}), "Id"),
        (json!({"first": [{"ok": 1, "Ok": 2}]}), "ok"),
        (json!({"user": {"ma\u{17f}k": 1}}), "ma\u{17f}k"),
        (json!({"user": {"\u{212a}ey": 1}}), "\u{212a}ey"),
    ] {
        let e = render(&t, args.clone()).unwrap_err();
        assert!(
            e.0.contains(names) && e.0.contains("read as one"),
            "{args}: {e:?}"
        );
    }
    let r = render(
        &t,
        json!({"user": {"role": "viewer", "roles": ["a"], "naïve": 1}}),
    )
    .unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body.unwrap()).unwrap(),
        json!({"user": {"role": "viewer", "roles": ["a"], "naïve": 1}, "items": []})
    );
}
