use super::*;

fn l(target: &str, rels: &[&str]) -> Link {
    Link {
        target: target.to_owned(),
        rels: rels.iter().map(|r| (*r).to_owned()).collect(),
    }
}

#[test]
fn table() {
    let cases: Vec<(&str, Vec<Link>)> = vec![
        // RFC 9745 §3 example
        (
            r#"<https://developer.example.com/deprecation>; rel="deprecation"; type="text/html""#,
            vec![l(
                "https://developer.example.com/deprecation",
                &["deprecation"],
            )],
        ),
        // RFC 8594 §6 example
        (
            r#"<http://example.net/sunset>;rel="sunset";type="text/html""#,
            vec![l("http://example.net/sunset", &["sunset"])],
        ),
        // several links, unquoted rel, rel lists, case
        (
            r#"<https://x/v2>; rel=successor-version, <https://x/doc>; rel="Deprecation Sunset""#,
            vec![
                l("https://x/v2", &["successor-version"]),
                l("https://x/doc", &["deprecation", "sunset"]),
            ],
        ),
        // commas and semicolons inside the URI and inside quoted params
        (
            r#"<https://x/a,b;c>; title="a, b; c"; rel="latest-version", <https://y>; rel=next"#,
            vec![
                l("https://x/a,b;c", &["latest-version"]),
                l("https://y", &["next"]),
            ],
        ),
        // only the first rel counts; escaped quote
        (
            r#"<https://z>; rel="a"; rel="b"; title="say \"hi\"""#,
            vec![l("https://z", &["a"])],
        ),
        // malformed members are skipped, the rest read
        (
            r#"garbage; rel=x, <https://ok>; rel=deprecation, <unterminated"#,
            vec![l("https://ok", &["deprecation"])],
        ),
        ("", vec![]),
        ("<>", vec![l("", &[])]),
        // Microsoft Graph's deprecation guidelines send the targets without `<>`
        (
            r#"https://docs.microsoft.com/en-us/graph/changelog#2022-03-30_name ; rel="deprecation"; type="text/html"; title="name",https://docs.microsoft.com/en-us/graph/changelog#2022-03-30_state ; rel="deprecation"; type="text/html"; title="state""#,
            vec![
                l(
                    "https://docs.microsoft.com/en-us/graph/changelog#2022-03-30_name",
                    &["deprecation"],
                ),
                l(
                    "https://docs.microsoft.com/en-us/graph/changelog#2022-03-30_state",
                    &["deprecation"],
                ),
            ],
        ),
        (
            r#"https://example.com/deprecation; rel="deprecation""#,
            vec![l("https://example.com/deprecation", &["deprecation"])],
        ),
        (
            "/api/v2; rel=successor-version, HTTP://X.example/d;rel=sunset",
            vec![
                l("/api/v2", &["successor-version"]),
                l("HTTP://X.example/d", &["sunset"]),
            ],
        ),
        // bare text that is not one URL followed by parameters is not a link
        (
            "https://a.example/x, https://b.example/y; rel=next",
            vec![l("https://b.example/y", &["next"])],
        ),
        ("https://a.example/no-params", vec![]),
        ("see https://a.example/x; rel=deprecation", vec![]),
        ("//host.example/x; rel=deprecation", vec![]),
        ("javascript:alert(1); rel=deprecation", vec![]),
    ];
    for (input, want) in cases {
        assert_eq!(parse(input), want, "{input:?}");
    }
}

#[test]
fn several_fields() {
    let fields: [(&str, &[u8]); 2] = [
        ("Link", b"<https://a>; rel=sunset"),
        ("link", b"<https://b>; rel=successor-version"),
    ];
    let links = from_headers(&Headers::new(&fields));
    assert_eq!(links.len(), 2);
    assert!(links[1].has_rel("successor-version"));
}
