//! Parameter pollution through names the caller chooses: an object's member names
//! spread into the query or a form body, or kept in a JSON body, that a lenient server
//! reads as a name the tool sets, or as another member (see `parameter_names.rs`).

use std::collections::BTreeMap;

use http::Method;
use serde_json::{Value, json};

use super::*;

pub(super) fn template(
    method: Method,
    query: &[(&str, &str)],
    body: Option<Value>,
) -> RequestTemplate {
    RequestTemplate {
        method,
        path: Template::parse("/items"),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), Template::parse(v)))
            .collect(),
        headers: vec![],
        omit_headers: vec![],
        omit_query: Vec::new(),
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

/// Pairs of member names a lenient server reads as one parameter (case folded, PHP's
/// `.` and space as `_`, `x[]` as the array `x`, a proxy's extra decoding), each pair
/// in one object, where neither is a name the tool sets.
const READ_AS_ONE: [(&str, &str); 7] = [
    ("ID", "id"),
    ("a.b", "a_b"),
    ("a b", "a_b"),
    ("x[]", "x"),
    ("x[0]", "X"),
    ("owner", "own%65r"),
    ("page[Size]", "page[size]"),
];

#[test]
fn a_spread_query_object_may_not_hold_two_members_a_server_reads_as_one() {
    let t = template(
        Method::GET,
        &[("where", "{where*}"), ("more", "{more*}")],
        None,
    );
    for (a, b) in READ_AS_ONE {
        let e = render(&t, json!({"where": {a: 1, b: 2}})).unwrap_err();
        assert!(
            e.0.contains(&format!("`{a}`")) && e.0.contains(&format!("`{b}`")),
            "{a:?} {b:?}: {e:?}"
        );
        // Spread from two arguments, they reach the same query all the same.
        let e = render(&t, json!({"where": {a: 1}, "more": {b: 2}})).unwrap_err();
        assert!(e.0.contains("read as one"), "{a:?} {b:?}: {e:?}");
    }
    // Bracketed members of one base are distinct parameters (JSON:API's filters), and a
    // list member repeats its own name on purpose.
    let r = render(
        &t,
        json!({"where": {"filter[status]": "open", "filter[type]": "bug", "tag": ["a", "b"]}}),
    )
    .unwrap();
    assert_eq!(
        r.url.query(),
        Some("api_key=k&filter%5Bstatus%5D=open&filter%5Btype%5D=bug&tag=a&tag=b")
    );
}

#[test]
fn a_spread_form_object_may_not_hold_two_members_a_server_reads_as_one() {
    let mut t = template(
        Method::POST,
        &[],
        Some(json!({"meta": "{meta}", "more": "{more}"})),
    );
    t.body_encoding = BodyEncoding::Form;
    t.form_style.insert("meta".into(), FormStyle::Repeat);
    t.form_style.insert("more".into(), FormStyle::Repeat);
    for (a, b) in READ_AS_ONE {
        let e = render(&t, json!({"meta": {a: 1, b: 2}})).unwrap_err();
        assert!(
            e.0.contains(&format!("`{a}`")) && e.0.contains(&format!("`{b}`")),
            "{a:?} {b:?}: {e:?}"
        );
        let e = render(&t, json!({"meta": {a: 1}, "more": {b: 2}})).unwrap_err();
        assert!(e.0.contains("read as one"), "{a:?} {b:?}: {e:?}");
    }
    let r = render(&t, json!({"meta": {"color": "red", "size": 2}})).unwrap();
    assert_eq!(
        String::from_utf8(r.body.unwrap()).unwrap(),
        "color=red&size=2"
    );
}

#[test]
fn bracketed_form_members_keep_their_nesting_and_one_spelling() {
    for style in [FormStyle::Brackets, FormStyle::Deep] {
        let mut t = template(Method::POST, &[], Some(json!({"card": "{card}"})));
        t.body_encoding = BodyEncoding::Form;
        t.form_style.insert("card".into(), style);
        // A bracket in a member name would move the value to another place in the
        // nesting a server reads (`card[a][x][b]`), or out of it.
        for card in [
            json!({"a]x[b": 1}),
            json!({"a[b]": 1}),
            json!({"a]": 1}),
            json!({"x": {"[": 1}}),
            json!({"x": [{"k]": 1}]}),
        ] {
            let e = render(&t, json!({"card": card.clone()})).unwrap_err();
            assert!(e.0.contains("bracket"), "{style:?} {card}: {e:?}");
        }
        // Two members read as one by a case-insensitive binder.
        let e = render(&t, json!({"card": {"exp": {"Month": 1, "month": 2}}})).unwrap_err();
        assert!(e.0.contains("read as one"), "{style:?}: {e:?}");
        let r = render(&t, json!({"card": {"exp": {"month": 1, "year": 2}}})).unwrap();
        assert_eq!(
            String::from_utf8(r.body.unwrap()).unwrap(),
            "card%5Bexp%5D%5Bmonth%5D=1&card%5Bexp%5D%5Byear%5D=2",
            "{style:?}"
        );
    }
}

/// Member names that reach a JavaScript server's object prototype (prototype pollution:
/// `qs` before 6.10.3, as Express used it, CVE-2022-24999,
/// https://github.com/advisories/GHSA-hrpp-h998-j3pp; `__proto__[123]=…`,
/// https://github.com/component/querystring/issues/17), in the spellings such readers
/// take for them.
const PROTOTYPE_NAMES: [&str; 6] = [
    "__proto__",
    "__proto__[isAdmin]",
    "constructor[prototype][isAdmin]",
    "a.__proto__.b",
    "%5F%5Fproto%5F%5F",
    "__PROTO__",
];

#[test]
fn no_member_name_the_caller_chooses_may_reach_a_javascript_servers_prototype() {
    let query = template(Method::GET, &[("filter", "{filter*}")], None);
    let mut form = template(Method::POST, &[], Some(json!({"meta": "{meta}"})));
    form.body_encoding = BodyEncoding::Form;
    form.form_style.insert("meta".into(), FormStyle::Repeat);
    let mut deep = template(Method::POST, &[], Some(json!({"meta": "{meta}"})));
    deep.body_encoding = BodyEncoding::Form;
    deep.form_style.insert("meta".into(), FormStyle::Deep);
    let body = template(Method::POST, &[], Some(json!({"user": "{user}"})));
    for name in PROTOTYPE_NAMES {
        let e = render(&query, json!({"filter": {name: "1"}})).unwrap_err();
        assert!(e.0.contains("prototype"), "query {name:?}: {e:?}");
        let e = render(&form, json!({"meta": {name: "1"}})).unwrap_err();
        assert!(e.0.contains("prototype"), "form {name:?}: {e:?}");
        let e = render(&deep, json!({"meta": {"a": {name: {"x": 1}}}})).unwrap_err();
        assert!(e.0.contains("prototype"), "deep form {name:?}: {e:?}");
        let e = render(
            &body,
            json!({"user": {"name": "a", "tags": [{name: {"isAdmin": true}}]}}),
        )
        .unwrap_err();
        assert!(e.0.contains("prototype"), "body {name:?}: {e:?}");
    }
    // A JSON body's nesting spells `constructor.prototype` as two members.
    let e = render(
        &body,
        json!({"user": {"constructor": {"prototype": {"isAdmin": true}}}}),
    )
    .unwrap_err();
    assert!(e.0.contains("`constructor.prototype`"), "{e:?}");
    // The words themselves, as values or as other members' names, stay usable.
    let r = render(
        &body,
        json!({"user": {"constructor": "Ford", "proto": "__proto__", "prototype": 1}}),
    )
    .unwrap();
    assert_eq!(
        serde_json::from_slice::<Value>(&r.body.unwrap()).unwrap(),
        json!({"user": {"constructor": "Ford", "proto": "__proto__", "prototype": 1}})
    );
    let r = render(&query, json!({"filter": {"constructor": "Ford"}})).unwrap();
    assert_eq!(r.url.query(), Some("api_key=k&constructor=Ford"));
}
