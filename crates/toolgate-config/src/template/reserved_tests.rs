//! `{+name}` as a query value (OpenAPI's `allowReserved: true`): RFC 3986's reserved
//! characters reach the server as written, and nothing the caller writes can add a
//! parameter, cut the query short or change the host or path.

use http::Method;
use serde_json::{Value, json};

use super::pollution_tests::template;

fn url(query: &[(&str, &str)], args: Value) -> url::Url {
    let base = url::Url::parse("https://api.example.com/v1?key=k").unwrap();
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    template(Method::GET, query, None)
        .render(&base, &args)
        .unwrap()
        .url
}

#[test]
fn a_reserved_query_value_sends_reserved_characters_as_written_but_never_adds_a_parameter() {
    let u = url(
        &[("$filter", "{+filter}")],
        json!({"filter": "path:/a/b?c=[1]@x!$*+,;"}),
    );
    assert_eq!(
        u.query(),
        Some("key=k&%24filter=path:/a/b?c=[1]@x!$*+,;"),
        "{u}"
    );
    // The same value without `+` is encoded, as before.
    let plain = url(&[("f", "{filter}")], json!({"filter": "a/b:c"}));
    assert_eq!(plain.query(), Some("key=k&f=a%2Fb%3Ac"));

    // `&`, `#` and `%` would change the query's structure: still encoded.
    let hostile = "a&key=stolen#frag%26admin=1 é\r\n";
    let u = url(&[("q", "{+q}"), ("after", "kept")], json!({"q": hostile}));
    let pairs: Vec<(String, String)> = u.query_pairs().map(|(k, v)| (k.into(), v.into())).collect();
    assert_eq!(
        pairs,
        vec![
            ("key".into(), "k".into()),
            ("q".into(), hostile.to_string()),
            ("after".into(), "kept".into()),
        ],
        "{u}"
    );
    assert_eq!(u.fragment(), None);
    assert!(
        u.query()
            .unwrap()
            .contains("a%26key=stolen%23frag%2526admin=1"),
        "{u}"
    );
    assert_eq!(u.host_str(), Some("api.example.com"));
    assert_eq!(u.path(), "/v1/items");
}

#[test]
fn a_reserved_query_list_keeps_its_items_apart() {
    let u = url(&[("tags", "{+tags}")], json!({"tags": ["a/b", "c,d"]}));
    assert_eq!(u.query(), Some("key=k&tags=a/b,c%2Cd"));
}
