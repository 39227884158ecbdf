use std::collections::BTreeMap;

use http::Method;
use http::header::HeaderName;
use serde_json::{Map, Value, json};

use super::*;

fn template(path: &str, query: &[(&str, &str)]) -> RequestTemplate {
    RequestTemplate {
        method: Method::GET,
        path: Template::parse(path),
        query: query
            .iter()
            .map(|(k, v)| (k.to_string(), Template::parse(v)))
            .collect(),
        headers: vec![],
        omit_headers: Vec::new(),
        omit_query: Vec::new(),
        body: None,
        body_encoding: BodyEncoding::Json,
        content_type: None,
        form_style: BTreeMap::new(),
    }
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

#[test]
fn a_list_inside_an_exploded_object_repeats_its_member() {
    // OpenAPI `style: form, explode: true` on an object of filters (a list of statuses
    // beside a single owner): each item its own pair, as the list on its own would be.
    let base = url::Url::parse("https://api.example.com/v1").unwrap();
    let t = template("/issues", &[("filter", "{filter*}")]);
    let r = t
        .render(
            &base,
            &args(json!({"filter": {"status": ["open", "on,hold"], "owner": "me", "ids": [3, 4], "none": []}})),
        )
        .unwrap();
    assert_eq!(
        r.url.query(),
        Some("status=open&status=on%2Chold&owner=me&ids=3&ids=4")
    );
}

#[test]
fn an_exploded_argument_repeats_its_parameter_or_spreads_its_members() {
    let base = url::Url::parse("https://api.example.com/v1?api_key=k").unwrap();
    let t = template(
        "/channels",
        &[
            ("Type", "{Type*}"),
            ("filter", "{filter*}"),
            ("tags", "{tags}"),
        ],
    );
    assert_eq!(t.arguments(), vec!["Type", "filter", "tags"]);
    let r = t
            .render(
                &base,
                &args(json!({"Type": ["public", "private"], "filter": {"color": "red", "size": 2}, "tags": ["a", "b"]})),
            )
            .unwrap();
    assert_eq!(
        r.url.query(),
        Some("api_key=k&Type=public&Type=private&color=red&size=2&tags=a,b")
    );
    // A single value is the parameter once; absent or null, not at all.
    let r = t
        .render(&base, &args(json!({"Type": "public", "filter": null})))
        .unwrap();
    assert_eq!(r.url.query(), Some("api_key=k&Type=public"));
    // An object member may not set what the tool or its base URL sets.
    for taken in ["api_key", "tags"] {
        let e = t
            .render(&base, &args(json!({"filter": {taken: "x"}})))
            .unwrap_err();
        assert!(e.0.contains(taken) && e.0.contains("sets itself"), "{e:?}");
    }
    // Outside a whole query value, `{name*}` reads as `{name}`.
    let p = template("/items/{ids*}", &[]);
    let r = p.render(&base, &args(json!({"ids": [1, 2]}))).unwrap();
    assert_eq!(r.url.path(), "/v1/items/1,2");
}

#[test]
fn a_path_list_keeps_the_commas_between_its_items() {
    let base = url::Url::parse("https://api.example.com/v1").unwrap();
    let t = template("/items/{ids}/.{tags}/x;color={colors}", &[]);
    let r = t
            .render(
                &base,
                &args(json!({"ids": [3, 4, 5], "tags": ["a b", "c"], "colors": ["blue", "black,brown", "é/?"]})),
            )
            .unwrap();
    // Only the separators are literal: an item's own comma, slash or `?` is not.
    assert_eq!(
        r.url.path(),
        "/v1/items/3,4,5/.a%20b,c/x;color=blue,black%2Cbrown,%C3%A9%2F%3F"
    );
    // One text with a comma in it is one value, not a list.
    let r = t
        .render(
            &base,
            &args(json!({"ids": "3,4", "tags": ["t"], "colors": [true, 1.5]})),
        )
        .unwrap();
    assert_eq!(r.url.path(), "/v1/items/3%2C4/.t/x;color=true,1.5");
    // A list still cannot name a `.` or `..` segment, nor be empty.
    for bad in [json!([".."]), json!(["."]), json!([]), json!([""])] {
        let e = template("/items/{ids}", &[])
            .render(&base, &args(json!({ "ids": bad })))
            .unwrap_err();
        assert!(e.0.contains("path segment"), "{bad}: {e:?}");
    }
}

#[test]
fn parses_placeholders_and_keeps_stray_braces() {
    let t = Template::parse("/a/{id}/b{x}{ not}");
    assert_eq!(
        t.0,
        vec![
            Part::Lit("/a/".into()),
            Part::Arg("id".into()),
            Part::Lit("/b".into()),
            Part::Arg("x".into()),
            Part::Lit("{ not}".into())
        ]
    );
}

#[test]
fn doubled_braces_are_literal_and_escape_round_trips() {
    let t = Template::parse("{{id}} {{{id}}} a}b {x}}");
    assert_eq!(
        t.0,
        vec![
            Part::Lit("{id} {".into()),
            Part::Arg("id".into()),
            Part::Lit("} a}b ".into()),
            Part::Arg("x".into()),
            Part::Lit("}".into())
        ]
    );
    for text in ["{foo}", "${GITHUB_TOKEN}", "}{", "{{a}}", "a{b}c}", "plain"] {
        let t = Template::parse(&Template::escape(text));
        assert_eq!(t.0, vec![Part::Lit(text.into())], "{text}");
    }
}

#[test]
fn path_arguments_are_percent_encoded_within_their_segment() {
    let base = url::Url::parse("https://api.example.com/v1/").unwrap();
    let r = template("/items/{id}", &[])
        .render(&base, &args(json!({"id": "a/b?c#d@evil.com:81"})))
        .unwrap();
    assert_eq!(
        r.url.as_str(),
        "https://api.example.com/v1/items/a%2Fb%3Fc%23d%40evil.com%3A81"
    );
    assert_eq!(r.url.host_str(), Some("api.example.com"));
}

#[test]
fn a_reserved_expansion_keeps_slashes_between_encoded_segments() {
    let base = url::Url::parse("https://api.example.com/v1/").unwrap();
    let t = template("/{+name}:cancel", &[]);
    let r = t
        .render(
            &base,
            &args(json!({"name": "projects/p 1/operations/a?b#c@evil.com:81"})),
        )
        .unwrap();
    assert_eq!(
        r.url.as_str(),
        "https://api.example.com/v1/projects/p%201/operations/a%3Fb%23c%40evil.com%3A81:cancel"
    );
    assert_eq!(t.path.arguments().collect::<Vec<_>>(), ["name"]);
}

#[test]
fn a_reserved_expansion_cannot_climb_or_leave_empty_segments() {
    let base = url::Url::parse("https://api.example.com/v1/").unwrap();
    for bad in [
        "projects/../../admin",
        "projects/./x",
        "/projects/p",
        "projects/p/",
        "projects//p",
        "..",
        "",
    ] {
        let e = template("/{+name}", &[])
            .render(&base, &args(json!({ "name": bad })))
            .unwrap_err();
        assert!(e.0.contains("cannot be used as a path"), "{bad:?}: {e}");
    }
    // Encoded dots and other separators climb too, on a server that decodes them.
    for bad in ["a/%2E%2E/b", "a/..\\b", "a/..;x/b", "a/%252e%252e/b"] {
        let e = template("/{+name}", &[])
            .render(&base, &args(json!({ "name": bad })))
            .unwrap_err();
        assert!(e.0.contains("outside the tool's"), "{bad:?}: {e}");
    }
    let r = template("/{+name}", &[])
        .render(&base, &args(json!({"name": "a/v1.2..3/%41"})))
        .unwrap();
    assert_eq!(r.url.path(), "/v1/a/v1.2..3/%2541");
}

#[test]
fn a_reserved_expansion_in_the_query_keeps_its_slash_but_not_its_ampersand() {
    let base = url::Url::parse("https://api.example.com/").unwrap();
    let r = template("/x", &[("filter", "{+f}")])
        .render(&base, &args(json!({"f": "a/b&c"})))
        .unwrap();
    assert_eq!(r.url.query(), Some("filter=a/b%26c"));
}

#[test]
fn dot_segments_are_refused() {
    let base = url::Url::parse("https://api.example.com/v1").unwrap();
    for bad in [".", ".."] {
        let e = template("/items/{id}", &[]).render(&base, &args(json!({ "id": bad })));
        assert!(e.unwrap_err().0.contains("path segment"));
    }
}

#[test]
fn a_segment_argument_that_a_decoding_server_would_climb_with_is_refused() {
    let base = url::Url::parse("https://api.example.com/v1/").unwrap();
    for bad in [
        "../../admin",
        "..%2F..%2Fadmin",
        "%2e%2e%2fadmin",
        "%252e%252e%252fadmin",
        "..\\admin",
        "..;/admin",
    ] {
        let e = template("/items/{id}", &[])
            .render(&base, &args(json!({ "id": bad })))
            .unwrap_err();
        assert!(e.0.contains("outside the tool's"), "{bad:?}: {e}");
    }
    // A slash inside a name stays one encoded segment; dots inside names are data.
    let r = template("/items/{id}", &[])
        .render(&base, &args(json!({"id": "a/b..c"})))
        .unwrap();
    assert_eq!(r.url.path(), "/v1/items/a%2Fb..c");
}

#[test]
fn host_cannot_be_changed_even_by_a_leading_double_slash() {
    let base = url::Url::parse("http://127.0.0.1:9000").unwrap();
    let r = template("{p}", &[])
        .render(&base, &args(json!({"p": "//evil.com/x"})))
        .unwrap();
    assert_eq!(r.url.host_str(), Some("127.0.0.1"));
    assert_eq!(r.url.port(), Some(9000));
}

#[test]
fn query_parameters_with_absent_arguments_are_left_out() {
    let base = url::Url::parse("http://h/api?key=1").unwrap();
    let r = template("/search", &[("q", "{query}"), ("limit", "{limit}")])
        .render(&base, &args(json!({"query": "a b&c=d"})))
        .unwrap();
    assert_eq!(r.url.as_str(), "http://h/api/search?key=1&q=a+b%26c%3Dd");
}

#[test]
fn missing_path_argument_is_named() {
    let base = url::Url::parse("http://h").unwrap();
    let e = template("/items/{id}", &[])
        .render(&base, &args(json!({})))
        .unwrap_err();
    assert_eq!(e.0, "missing required argument id");
}

#[test]
fn header_injection_is_refused() {
    let base = url::Url::parse("http://h").unwrap();
    let mut t = template("/x", &[]);
    t.headers
        .push((HeaderName::from_static("x-user"), Template::parse("{u}")));
    let e = t
        .render(&base, &args(json!({"u": "a\r\nHost: evil"})))
        .unwrap_err();
    assert!(e.0.contains("header x-user"));
}

#[test]
fn a_header_value_past_ascii_is_refused_not_sent_for_a_server_to_read_as_latin1() {
    let base = url::Url::parse("http://h").unwrap();
    let mut t = template("/x", &[]);
    t.headers
        .push((HeaderName::from_static("x-user"), Template::parse("{u}")));
    for value in [
        "caf\u{e9}",
        "admin\u{202e}resu",
        "a\u{200b}dmin",
        "a\u{85}b",
        "\u{feff}admin",
    ] {
        let e = t.render(&base, &args(json!({"u": value}))).unwrap_err();
        assert!(
            e.0.contains("header x-user") && e.0.contains("ASCII"),
            "{value:?}: {e:?}"
        );
    }
    let r = t.render(&base, &args(json!({"u": "Jose Smith"}))).unwrap();
    assert_eq!(r.headers["x-user"], "Jose Smith");
}

/// RFC 9110 section 5.5: a field value has no leading or trailing whitespace, so every
/// parser drops it, and a list's parser (section 5.6.1) drops it around each item too.
/// `" admin"` or `"admin\t"` would be checked as one text and read as another.
#[test]
fn a_header_argument_with_whitespace_at_its_edges_is_refused_not_trimmed_by_the_server() {
    let base = url::Url::parse("http://h").unwrap();
    let mut t = template("/x", &[]);
    t.headers
        .push((HeaderName::from_static("x-role"), Template::parse("{role}")));
    t.headers.push((
        HeaderName::from_static("x-scope"),
        Template::parse("scope={scope}"),
    ));
    for (role, scope) in [
        (json!(" admin"), json!("read")),
        (json!("admin "), json!("read")),
        (json!("\tadmin"), json!("read")),
        (json!("admin\t"), json!("read")),
        (json!(["user", " admin"]), json!("read")),
        (json!(["admin ", "user"]), json!("read")),
        (json!("user"), json!("read ")),
        (json!("user"), json!(["read", " write"])),
        (json!(" "), json!("read")),
    ] {
        let e = t
            .render(&base, &args(json!({"role": role, "scope": scope})))
            .unwrap_err();
        assert!(
            e.0.contains("header x-") && e.0.contains("whitespace"),
            "{role} {scope}: {e:?}"
        );
    }
    // Whitespace inside a value is the value's own, and a template's own text stays.
    let r = t
        .render(
            &base,
            &args(json!({"role": ["Jose Smith", "a\tb"], "scope": "read write"})),
        )
        .unwrap();
    assert_eq!(r.headers["x-role"], "Jose Smith,a\tb");
    assert_eq!(r.headers["x-scope"], "scope=read write");
}

#[test]
fn body_placeholders_keep_json_types_and_drop_absent_keys() {
    let base = url::Url::parse("http://h").unwrap();
    let mut t = template("/x", &[]);
    t.body = Some(
        json!({"q": "{query}", "n": "{limit}", "fixed": "{not a placeholder}", "opt": "{missing}"}),
    );
    let r = t
        .render(&base, &args(json!({"query": "hi", "limit": 3})))
        .unwrap();
    let body: Value = serde_json::from_slice(&r.body.unwrap()).unwrap();
    assert_eq!(
        body,
        json!({"q": "hi", "n": 3, "fixed": "{not a placeholder}"})
    );
    assert_eq!(t.arguments(), vec!["query", "limit", "missing"]);
}

#[test]
fn a_query_or_form_list_keeps_the_commas_between_its_items() {
    // OpenAPI's `form` style unexploded (and Swagger 2.0's `csv`): the comma between
    // items is a delimiter, sent as it is; a comma inside an item is data, encoded.
    let base = url::Url::parse("https://api.example.com/v1?api_key=a,b").unwrap();
    let mut t = template(
        "/items",
        &[("ids", "{ids}"), ("q", "{q}"), ("range", "{from}..{to}")],
    );
    let r = t
        .render(
            &base,
            &args(json!({"ids": ["a b,c", "d", 3, true], "q": "x,y", "from": 1, "to": [2, 3]})),
        )
        .unwrap();
    assert_eq!(
        r.url.query(),
        Some("api_key=a%2Cb&ids=a+b%2Cc,d,3,true&q=x%2Cy&range=1..2,3")
    );
    // What a server reads back: the items, each item's own comma kept.
    let ids: Vec<String> = r
        .url
        .query()
        .unwrap()
        .split('&')
        .find_map(|p| p.strip_prefix("ids="))
        .unwrap()
        .split(',')
        .map(|item| {
            url::form_urlencoded::parse(format!("x={item}").as_bytes())
                .next()
                .unwrap()
                .1
                .into_owned()
        })
        .collect();
    assert_eq!(ids, ["a b,c", "d", "3", "true"]);
    // A form body's `comma` fields alike, a list's and an object's members.
    t.method = Method::POST;
    t.query.clear();
    t.body_encoding = BodyEncoding::Form;
    t.body = Some(json!({"tags": "{tags}", "color": "{color}", "note": "{note}"}));
    t.form_style.insert("tags".into(), FormStyle::Comma);
    t.form_style.insert("color".into(), FormStyle::Comma);
    let r = t
        .render(
            &base,
            &args(json!({"tags": ["a,b", "c d"], "color": {"R": 1, "G": "x,y"}, "note": "p,q"})),
        )
        .unwrap();
    assert_eq!(
        String::from_utf8(r.body.unwrap()).unwrap(),
        "tags=a%2Cb,c+d&color=R,1,G,x%2Cy&note=p%2Cq"
    );
}

#[test]
fn form_fields_with_structures_follow_their_style() {
    let base = url::Url::parse("http://h").unwrap();
    let mut t = template("/v1/things", &[]);
    t.method = Method::POST;
    t.body_encoding = BodyEncoding::Form;
    t.body = Some(json!({"r": "{r}", "c": "{c}", "b": "{b}", "d": "{d}", "o": "{o}", "j": "{j}"}));
    for (k, st) in [
        ("r", FormStyle::Repeat),
        ("c", FormStyle::Comma),
        ("b", FormStyle::Brackets),
        ("d", FormStyle::Deep),
        ("o", FormStyle::Repeat),
    ] {
        t.form_style.insert(k.into(), st);
    }
    let r = t
        .render(
            &base,
            &args(json!({"r": ["x", "y"], "c": [1, 2], "b": ["p", {"q": 1}],
                    "d": {"items": [{"price": "pr_1", "qty": 2}], "meta": {"k": "v"}},
                    "o": {"m1": "a", "m2": null}, "j": [1]})),
        )
        .unwrap();
    let body = String::from_utf8(r.body.unwrap()).unwrap();
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    let want: Vec<(String, String)> = [
        ("r", "x"),
        ("r", "y"),
        ("c", "1,2"),
        ("b[]", "p"),
        ("b[1][q]", "1"),
        ("d[items][0][price]", "pr_1"),
        ("d[items][0][qty]", "2"),
        ("d[meta][k]", "v"),
        ("m1", "a"),
        ("j", "[1]"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(pairs, want, "{body}");
}

#[test]
fn form_bodies_are_url_encoded_pairs_with_json_text_for_structures() {
    let base = url::Url::parse("http://h").unwrap();
    let mut t = template("/chat.postMessage", &[]);
    t.method = Method::POST;
    t.body = Some(
        json!({"channel": "{channel}", "text": "{text}", "blocks": "{blocks}", "mrkdwn": "{mrkdwn}", "gone": "{gone}"}),
    );
    t.body_encoding = BodyEncoding::Form;
    let r = t
            .render(
                &base,
                &args(json!({"channel": "C1", "text": "a b&c=d ü", "blocks": [{"type": "x"}], "mrkdwn": false})),
            )
            .unwrap();
    assert_eq!(r.content_type, "application/x-www-form-urlencoded");
    let body = String::from_utf8(r.body.unwrap()).unwrap();
    assert_eq!(
        body,
        "channel=C1&text=a+b%26c%3Dd+%C3%BC&blocks=%5B%7B%22type%22%3A%22x%22%7D%5D&mrkdwn=false"
    );
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(body.as_bytes())
        .into_owned()
        .collect();
    assert_eq!(pairs[1], ("text".into(), "a b&c=d ü".into()));
    assert_eq!(pairs[2].1, r#"[{"type":"x"}]"#);
    assert_eq!(
        template("/x", &[])
            .render(&base, &args(json!({})))
            .unwrap()
            .content_type,
        "application/json"
    );
}

#[test]
fn a_multipart_body_sends_each_field_as_a_part_under_a_boundary_no_value_holds() {
    let base = url::Url::parse("http://h").unwrap();
    let mut t = template("/upload", &[]);
    t.method = Method::POST;
    t.body_encoding = BodyEncoding::Multipart;
    t.body = Some(json!({
        "caption": "{caption}", "n": "{n}", "ids": "{ids}", "meta": "{meta}",
        "gone": "{gone}", "say \"hi\"\r\n": "{odd}"
    }));
    let a = args(json!({
        "caption": "two\r\n--lines", "n": 3, "ids": [1, "x", null], "meta": {"k": true},
        "gone": null, "odd": "v"
    }));
    let r = t.render(&base, &a).unwrap();
    let ct = r.content_type.to_str().unwrap().to_string();
    let boundary = ct
        .strip_prefix("multipart/form-data; boundary=")
        .unwrap_or_else(|| panic!("{ct}"));
    // RFC 2046: at most 70 characters, none of which needs quoting.
    assert!(boundary.len() <= 70, "{boundary}");
    assert!(
        boundary
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-'),
        "{boundary}"
    );
    let part = |name: &str, json: bool, text: &str| {
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n{}\r\n{text}\r\n",
            if json {
                "Content-Type: application/json\r\n"
            } else {
                ""
            }
        )
    };
    let expected = [
        part("caption", false, "two\r\n--lines"),
        part("n", false, "3"),
        part("ids", false, "1"),
        part("ids", false, "x"),
        part("meta", true, "{\"k\":true}"),
        part("say %22hi%22%0D%0A", false, "v"),
        format!("--{boundary}--\r\n"),
    ]
    .concat();
    assert_eq!(String::from_utf8(r.body.unwrap()).unwrap(), expected);
    // The same arguments render the same request.
    assert_eq!(t.render(&base, &a).unwrap().content_type, ct.as_str());
    // A value holding the boundary another body used gets a boundary of its own.
    let mut a2 = a.clone();
    a2.insert(
        "caption".into(),
        json!(format!(
            "x\r\n--{boundary}\r\nContent-Disposition: form-data; name=\"admin\"\r\n\r\n1"
        )),
    );
    let r2 = t.render(&base, &a2).unwrap();
    let ct2 = r2.content_type.to_str().unwrap();
    let b2 = ct2.strip_prefix("multipart/form-data; boundary=").unwrap();
    let body2 = String::from_utf8(r2.body.unwrap()).unwrap();
    assert_ne!(b2, boundary);
    assert_eq!(body2.matches(&format!("--{b2}")).count(), 7, "{body2}");
}

#[test]
fn a_whole_number_written_as_a_float_reaches_the_url_and_headers_as_an_integer() {
    let base = url::Url::parse("https://api.example.com/v1").unwrap();
    let mut t = template("/items/{id}", &[("limit", "{limit}"), ("f", "{f*}")]);
    t.headers
        .push((HeaderName::from_static("x-page"), Template::parse("{page}")));
    for (written, sent) in [
        ("1e3", "1000"),
        ("1000.0", "1000"),
        ("-0", "0"),
        ("-0.0", "0"),
        ("1E2", "100"),
        ("-25e-1", "-2.5"),
        ("1.5", "1.5"),
        ("7", "7"),
        ("18446744073709551615", "18446744073709551615"),
    ] {
        let arguments: Value = serde_json::from_str(&format!(
            r#"{{"id": {written}, "limit": [{written}, 2], "f": {{"n": {written}}}, "page": {written}}}"#
        ))
        .unwrap();
        let r = t.render(&base, &args(arguments)).unwrap();
        assert_eq!(r.url.path(), format!("/v1/items/{sent}"), "{written}");
        assert_eq!(
            r.url.query(),
            Some(format!("limit={sent},2&n={sent}").as_str()),
            "{written}"
        );
        assert_eq!(r.headers["x-page"], sent, "{written}");
    }
    // Past 2^53 a double is no exact integer: sent as JSON writes it, its `+` encoded so
    // that a query does not read it as a space.
    let arguments = json!({"id": 1e22, "limit": 1e22, "f": {}, "page": 1e22});
    let r = t.render(&base, &args(arguments)).unwrap();
    assert_eq!(r.url.path(), "/v1/items/1e%2B22");
    assert_eq!(r.url.query(), Some("limit=1e%2B22"));
    assert_eq!(r.headers["x-page"], "1e+22");
}

#[test]
fn a_form_field_writes_a_whole_float_as_an_integer() {
    let base = url::Url::parse("https://api.example.com/v1").unwrap();
    let mut t = template("/x", &[]);
    t.body_encoding = BodyEncoding::Form;
    t.body = Some(json!({"amount": "{amount}", "ids": "{ids}"}));
    t.form_style.insert("ids".into(), FormStyle::Brackets);
    let arguments: Value = serde_json::from_str(r#"{"amount": 2e2, "ids": [1.0, -0]}"#).unwrap();
    let r = t.render(&base, &args(arguments)).unwrap();
    assert_eq!(
        String::from_utf8(r.body.unwrap()).unwrap(),
        "amount=200&ids%5B%5D=1&ids%5B%5D=0"
    );
}

#[test]
fn template_syntax_inside_an_argument_is_sent_as_text_never_expanded() {
    let base = url::Url::parse("https://api.example.com/v1").unwrap();
    let mut t = template("/items/{id}", &[("q", "{q}")]);
    t.headers
        .push((HeaderName::from_static("x-note"), Template::parse("{note}")));
    t.body = Some(json!({"text": "{text}"}));
    for value in [
        "{secret}",
        "{+secret}",
        "{{secret}}",
        "${secret}",
        "%s%n",
        "{secret*}",
    ] {
        let r = t
            .render(
                &base,
                &args(json!({"id": value, "q": value, "note": value, "text": value, "secret": "s3cr3t"})),
            )
            .unwrap();
        let url = r.url.as_str();
        assert!(!url.contains("s3cr3t"), "{value}: {url}");
        let decoded: String = url::form_urlencoded::parse(r.url.query().unwrap().as_bytes())
            .map(|(_, v)| v.into_owned())
            .collect();
        assert_eq!(decoded, value, "the query holds the value as written");
        assert_eq!(r.headers["x-note"], value);
        let body: Value = serde_json::from_slice(&r.body.unwrap()).unwrap();
        assert_eq!(body, json!({"text": value}));
    }
}

/// A `Cookie` header's argument is a cookie's value: it cannot end its pair and add a
/// cookie the tool does not set, whether it is one value or a list's item; a header
/// that is the argument alone is left to the header's own checks.
#[test]
fn a_cookie_value_cannot_add_a_cookie() {
    let base = url::Url::parse("https://api.example.com").unwrap();
    let mut t = template("/me", &[]);
    t.headers = vec![(
        http::header::COOKIE,
        Template::parse("session={session}; lang=en"),
    )];
    let sent = t.render(&base, &args(json!({"session": "abc-1"}))).unwrap();
    assert_eq!(sent.headers["cookie"], "session=abc-1; lang=en");
    let list = t
        .render(&base, &args(json!({"session": ["a", "b"]})))
        .unwrap();
    assert_eq!(list.headers["cookie"], "session=a,b; lang=en");
    for bad in [
        json!("a; admin=1"),
        json!(["a", "b; admin=1"]),
        json!("a b"),
        json!("a,b"),
        json!(["caf\u{e9}"]),
    ] {
        let e = t.render(&base, &args(json!({"session": bad}))).unwrap_err();
        assert!(
            e.0.contains("which a cookie cannot carry"),
            "{bad}: {}",
            e.0
        );
    }
    t.headers = vec![(http::header::COOKIE, Template::parse("{cookies}"))];
    let whole = t
        .render(&base, &args(json!({"cookies": "a=1; b=2"})))
        .unwrap();
    assert_eq!(whole.headers["cookie"], "a=1; b=2");
}
