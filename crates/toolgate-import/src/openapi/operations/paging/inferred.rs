//! Paging a description marks with no extension, read from the pairs that say it
//! together: a cursor argument and the reply member that gives its next value
//! (`pageToken` and `nextPageToken`, `cursor` and `response_metadata.next_cursor`,
//! `PageToken` and `meta.next_page_url`, `starting_after` and
//! `pages.next.starting_after`), a page number beside a page size (`page` and
//! `per_page`), an offset beside a limit (`offset` and `limit`, `$skip` and `$top`), or
//! a page number on an operation whose success reply declares a `Link` header. One of
//! a pair alone says nothing: `page` can be a document's page, `limit` a cap.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::super::refs::Refs;
use super::{Paging, Step};

/// Arguments that take a cursor, by their letters and digits in lower case.
const CURSOR_ARGS: &[&str] = &[
    "cursor",
    "pagetoken",
    "nextpagetoken",
    "pagecursor",
    "continuationtoken",
    "continuation",
    "skiptoken",
    "startingafter",
    "after",
    "marker",
    "nexttoken",
    "starttoken",
    "startcursor",
    "nextcursor",
    "nextmarker",
];

/// Reply members that hold the next page's cursor or address.
const NEXT_MEMBERS: &[&str] = &[
    "nextpagetoken",
    "nextcursor",
    "nextpagecursor",
    "nexttoken",
    "nextmarker",
    "nextpageuri",
    "nextpageurl",
    "nextpage",
    "nextlink",
    "nexturl",
    "next",
    "endcursor",
    "continuationtoken",
];

/// Arguments that number the page.
const PAGE_ARGS: &[&str] = &["page", "pagenumber", "pageno", "pagenum", "pageindex"];

/// Arguments that skip items.
const OFFSET_ARGS: &[&str] = &["offset", "skip", "startindex"];

/// Arguments that size a page.
const SIZE_ARGS: &[&str] = &[
    "perpage",
    "pagesize",
    "limit",
    "size",
    "count",
    "top",
    "maxresults",
    "pagelimit",
    "resultsperpage",
];

/// Boolean reply members that say more remain.
const MORE_MEMBERS: &[&str] = &["hasmore", "more", "hasnext", "hasnextpage", "moreresults"];

/// Reply members looked at, at most; a reply schema is the description's, which may
/// be hostile.
const MAX_MEMBERS: usize = 400;

/// How deep the reply's members are looked for (`response_metadata.next_cursor`,
/// `pages.next.starting_after`).
const MAX_DEPTH: usize = 3;

/// One member of the reply: its dotted path, its name by letters and digits, whether
/// it is a list, a boolean, an address.
struct Member {
    path: String,
    key: String,
    list: bool,
    boolean: bool,
    address: bool,
}

/// The paging the operation's query arguments and its success reply say together.
pub(super) fn of(
    refs: &mut Refs,
    file: &Path,
    op: &Value,
    params: &[(PathBuf, Value)],
    args: &[&str],
) -> Paging {
    let mut paging = Paging::default();
    // The query arguments the model has, by their letters and digits.
    let query: Vec<(String, &str)> = params
        .iter()
        .filter(|(_, p)| p.get("in").and_then(Value::as_str) == Some("query"))
        .filter_map(|(_, p)| p.get("name").and_then(Value::as_str))
        .filter(|n| args.contains(n))
        .map(|n| (normalized(n), n))
        .collect();
    let find = |names: &[&str]| {
        names.iter().find_map(|want| {
            query
                .iter()
                .find(|(k, _)| k == want)
                .map(|(_, n)| n.to_string())
        })
    };
    let cursor = find(CURSOR_ARGS);
    let page = find(PAGE_ARGS);
    let offset = find(OFFSET_ARGS);
    let size = find(SIZE_ARGS);
    if cursor.is_none() && page.is_none() && offset.is_none() {
        return paging;
    }
    let Some((members, top_list, link_header)) = reply(refs, file, op) else {
        return paging;
    };
    let items = members
        .iter()
        .filter(|m| m.list && !m.path.contains('.'))
        .map(|m| m.path.clone())
        .collect::<Vec<_>>();
    // The page's items: the one list at the top of the reply.
    let items = match items.as_slice() {
        [one] => Some(one.clone()),
        _ => None,
    };
    let listed = top_list || items.is_some();
    let more = members
        .iter()
        .find(|m| m.boolean && MORE_MEMBERS.contains(&m.key.as_str()))
        .map(|m| m.path.clone());
    if let Some(cursor) = cursor {
        let ckey = normalized(&cursor);
        // The member named as the argument is its next value (`cursor`,
        // `pages.next.starting_after`);
        // else the first member named as a next page's cursor or address.
        let next = members
            .iter()
            .find(|m| !m.list && !m.boolean && m.key == ckey)
            .or_else(|| {
                NEXT_MEMBERS.iter().find_map(|want| {
                    members
                        .iter()
                        .find(|m| !m.list && !m.boolean && m.key == *want)
                })
            });
        if let Some(next) = next {
            paging.link = next.address;
            paging.next = Some(next.path.clone());
            paging.cursor = Some(cursor);
            paging.items = items;
            return paging;
        }
        // `starting_after` with `has_more`: the cursor is the last item's id.
        if let (Some(more), true) = (&more, ckey.contains("after") && items.is_some()) {
            paging.more = Some(more.clone());
            paging.cursor = Some(cursor);
            paging.items = items;
            paging.after_last = true;
            return paging;
        }
    }
    if !listed {
        return paging;
    }
    let step = match (page, offset, &size) {
        (Some(page), _, Some(_)) => Some(Step::Page(page)),
        (Some(page), _, None) if link_header => Some(Step::Page(page)),
        (None, Some(offset), Some(_)) => Some(Step::Offset(offset)),
        _ => None,
    };
    if let Some(step) = step {
        paging.step = Some(step);
        paging.size = size;
        paging.more = more;
        paging.items = items;
    }
    paging
}

/// The members of the first 2xx JSON reply's schema, whether the reply is itself a
/// list, and whether that reply declares a `Link` header.
fn reply(refs: &mut Refs, file: &Path, op: &Value) -> Option<(Vec<Member>, bool, bool)> {
    let responses = op.get("responses")?.as_object()?;
    let (_, resp) = responses.iter().find(|(c, _)| c.starts_with('2'))?;
    let (file, resp) = refs.deref(file, resp).ok()?;
    let link_header = resp
        .get("headers")
        .and_then(Value::as_object)
        .is_some_and(|h| h.keys().any(|k| k.eq_ignore_ascii_case("link")));
    let schema = resp
        .get("content")
        .and_then(Value::as_object)
        .and_then(|c| c.iter().find(|(t, _)| t.contains("json")))
        .and_then(|(_, m)| m.get("schema"))
        .or_else(|| resp.get("schema"))?;
    let (file, schema) = refs.deref(&file, schema).ok()?;
    let top_list = kind(&schema) == Some("array");
    let mut members = Vec::new();
    collect(refs, &file, &schema, "", 0, &mut members);
    Some((members, top_list, link_header))
}

/// The members of an object schema (with its `allOf` parts), and theirs, a few levels
/// down.
fn collect(
    refs: &mut Refs,
    file: &Path,
    schema: &Value,
    prefix: &str,
    depth: usize,
    out: &mut Vec<Member>,
) {
    if depth >= MAX_DEPTH || out.len() >= MAX_MEMBERS {
        return;
    }
    for part in schema
        .get("allOf")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Ok((f, s)) = refs.deref(file, part) {
            collect(refs, &f, &s, prefix, depth + 1, out);
        }
    }
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (name, prop) in props {
        if out.len() >= MAX_MEMBERS {
            return;
        }
        let Ok((f, prop)) = refs.deref(file, prop) else {
            continue;
        };
        let path = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}.{name}")
        };
        let key = normalized(name);
        let ty = kind(&prop);
        let address = key.contains("url")
            || key.contains("uri")
            || key.contains("link")
            || matches!(
                prop.get("format").and_then(Value::as_str),
                Some("uri" | "url" | "uri-reference")
            )
            || path.to_ascii_lowercase().contains("link");
        out.push(Member {
            path: path.clone(),
            key,
            list: ty == Some("array"),
            boolean: ty == Some("boolean"),
            address,
        });
        if ty == Some("object") || prop.get("properties").is_some() {
            collect(refs, &f, &prop, &path, depth + 1, out);
        }
    }
}

/// A schema's type, the first that is not `null` when it names several.
fn kind(schema: &Value) -> Option<&str> {
    match schema.get("type")? {
        Value::String(t) => Some(t),
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).find(|t| *t != "null"),
        _ => None,
    }
}

/// A name by its letters and digits, lower case (`next_page_token` is `nextpagetoken`).
fn normalized(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase()
}
