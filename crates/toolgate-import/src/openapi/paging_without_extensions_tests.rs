//! Paged lists a description marks with no extension: a cursor argument beside the
//! reply member that gives its next value, a page number beside a page size, an
//! offset beside a limit, a page number with a `Link` reply header. The model is told
//! how to page; one name of a pair alone tells it nothing.

use serde_json::{Value, json};

use super::directory_tests::import_and_check;

/// `GET /things` with query parameters `params` (all strings or integers), answering
/// `reply` with the reply `headers`.
fn listing(params: &[(&str, &str)], reply: Value, headers: Value) -> Value {
    let params: Vec<Value> = params
        .iter()
        .map(|(n, t)| json!({"name": n, "in": "query", "schema": {"type": t}}))
        .collect();
    json!({
        "openapi": "3.0.3",
        "info": {"title": "Things", "version": "1.0"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": {"/things": {"get": {
            "operationId": "list_things",
            "summary": "List things",
            "parameters": params,
            "responses": {"200": {"description": "ok", "headers": headers,
                "content": {"application/json": {"schema": reply}}}}
        }}}
    })
}

fn object(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

fn list() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn description(spec: &Value) -> String {
    let (_, doc) = import_and_check(spec);
    doc["tools"]["list_things"]["description"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_page_token_argument_paired_with_the_replys_next_page_token_says_how_to_page() {
    let spec = listing(
        &[("pageToken", "string")],
        object(json!({"items": list(), "nextPageToken": {"type": "string"}})),
        json!({}),
    );
    let d = description(&spec);
    assert!(
        d.ends_with(
            "Paged: a reply holds one page of `items`; for the next page, call again with `pageToken` set to the reply's `nextPageToken` (the last page has none)."
        ),
        "{d}"
    );
}

#[test]
fn a_cursor_whose_next_value_sits_in_a_nested_reply_member_names_that_member() {
    let spec = listing(
        &[("cursor", "string")],
        object(json!({
            "channels": list(),
            "response_metadata": object(json!({"next_cursor": {"type": "string"}}))
        })),
        json!({}),
    );
    let d = description(&spec);
    assert!(
        d.ends_with(
            "call again with `cursor` set to the reply's `response_metadata.next_cursor` (the last page has none)."
        ),
        "{d}"
    );
}

#[test]
fn a_page_token_paired_with_the_next_pages_address_says_to_take_the_token_from_it() {
    let spec = listing(
        &[("PageToken", "string"), ("PageSize", "integer")],
        object(json!({
            "calls": list(),
            "meta": object(json!({"next_page_url": {"type": "string", "format": "uri"}}))
        })),
        json!({}),
    );
    let d = description(&spec);
    assert!(
        d.ends_with(
            "while the reply has `meta.next_page_url`, more remain: call again with `PageToken` set to the token in that address."
        ),
        "{d}"
    );
}

#[test]
fn a_page_number_beside_a_page_size_says_to_count_pages_up() {
    let spec = listing(
        &[("page", "integer"), ("per_page", "integer")],
        list(),
        json!({}),
    );
    let d = description(&spec);
    assert!(
        d.ends_with(
            "Paged: a reply holds one page; for the next page, call again with `page` one higher; a page with fewer items than `per_page` asks for is the last."
        ),
        "{d}"
    );
}

#[test]
fn a_page_number_on_a_reply_declaring_a_link_header_says_to_count_pages_up() {
    let spec = listing(
        &[("page", "integer")],
        list(),
        json!({"Link": {"schema": {"type": "string"}}}),
    );
    let d = description(&spec);
    assert!(
        d.ends_with(
            "for the next page, call again with `page` one higher; an empty page is past the last."
        ),
        "{d}"
    );
}

#[test]
fn an_offset_beside_a_limit_with_a_has_more_member_says_to_skip_what_came() {
    let spec = listing(
        &[("offset", "integer"), ("limit", "integer")],
        object(json!({"data": list(), "more": {"type": "boolean"}})),
        json!({}),
    );
    let d = description(&spec);
    assert!(
        d.ends_with(
            "Paged: a reply holds one page of `data`; for the next page, call again with `offset` raised by the number of items the reply held; while the reply's `more` is true, more remain."
        ),
        "{d}"
    );
}

#[test]
fn an_after_cursor_with_a_has_more_member_takes_the_last_items_id() {
    let spec = listing(
        &[("starting_after", "string"), ("limit", "integer")],
        object(json!({"data": list(), "has_more": {"type": "boolean"}})),
        json!({}),
    );
    let d = description(&spec);
    assert!(
        d.ends_with(
            "while the reply's `has_more` is true, more remain: call again with `starting_after` set to the id of the page's last item."
        ),
        "{d}"
    );
}

#[test]
fn one_name_of_a_pair_alone_tells_nothing_where_the_pair_tells_how_to_page() {
    for (params, reply) in [
        // A page of a document, no size, no `Link` header.
        (
            vec![("page", "integer")],
            object(json!({"text": {"type": "string"}})),
        ),
        // A cap on a list, no offset.
        (vec![("limit", "integer")], list()),
        // A cursor with no member giving its next value.
        (vec![("cursor", "string")], object(json!({"items": list()}))),
        // A page and a size on a reply that is no list.
        (
            vec![("page", "integer"), ("size", "integer")],
            object(json!({"width": {"type": "integer"}})),
        ),
    ] {
        let d = description(&listing(&params, reply, json!({})));
        assert!(!d.contains("Paged:"), "{params:?}: {d}");
    }
    let pair = listing(
        &[("limit", "integer"), ("offset", "integer")],
        list(),
        json!({}),
    );
    assert!(description(&pair).contains("Paged:"));
}
