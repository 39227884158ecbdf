//! How the model pages through a list the operation answers one page of.
//!
//! Descriptions mark paged operations with extensions an SDK generator reads (an
//! operation's `x-…pageable` or `x-…pagination` object, a parameter or reply member
//! marked with a pagination `purpose`), which the model never sees: without them, a
//! model reads the first page as the whole list. So the tool's description says which
//! member of the reply holds the page, which says there is another, and which argument
//! takes it. The extensions are read by their shape, not their vendor. A description
//! with no extension says the same with pairs of names (`inferred.rs`).

mod inferred;

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::super::refs::Refs;

/// Longest member or argument name told; a longer one is no name a model would copy.
const MAX_NAME: usize = 64;

/// What the description marks about paging one operation.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Paging {
    /// The reply member that holds the page's items (`value`, `data`).
    items: Option<String>,
    /// The reply member that says there is a next page: a cursor, or (`link`) the
    /// address of the next page.
    next: Option<String>,
    /// `next` is the next page's address rather than a cursor.
    link: bool,
    /// The argument that takes the cursor.
    cursor: Option<String>,
    /// Pages counted by a number or an offset argument rather than a cursor.
    step: Option<Step>,
    /// The argument that sizes a page (`per_page`, `limit`).
    size: Option<String>,
    /// The boolean reply member that says more remain (`has_more`).
    more: Option<String>,
    /// The cursor takes the id of the page's last item (`starting_after`).
    after_last: bool,
}

/// An argument that counts pages.
#[derive(Debug, PartialEq)]
enum Step {
    /// Numbers the page (`page`).
    Page(String),
    /// Skips items (`offset`, `$skip`).
    Offset(String),
}

impl Paging {
    /// The sentence told to the model, or `None` when nothing it can act on is known.
    pub(super) fn sentence(&self) -> Option<String> {
        let page = match &self.items {
            Some(items) => format!("a reply holds one page of `{items}`"),
            None => "a reply holds one page".to_string(),
        };
        if let Some(step) = &self.step {
            return Some(format!("Paged: {page}; {}.", self.stepped(step)));
        }
        if let (true, Some(cursor), Some(more)) = (self.after_last, &self.cursor, &self.more) {
            return Some(format!(
                "Paged: {page}; while the reply's `{more}` is true, more remain: call again with `{cursor}` set to the id of the page's last item."
            ));
        }
        let how = match (&self.next, &self.cursor, self.link) {
            (Some(next), Some(cursor), false) => format!(
                "for the next page, call again with `{cursor}` set to the reply's `{next}` (the last page has none)"
            ),
            (Some(next), Some(cursor), true) => format!(
                "while the reply has `{next}`, more remain: call again with `{cursor}` set to the token in that address"
            ),
            (Some(next), None, true) => {
                format!("while the reply has `{next}`, more remain, at the address it holds")
            }
            (Some(next), None, false) => {
                format!("while the reply has `{next}`, more remain")
            }
            (None, Some(cursor), _) => format!(
                "for the next page, call again with `{cursor}` set to the cursor the reply gave"
            ),
            (None, None, _) => return None,
        };
        Some(format!("Paged: {page}; {how}."))
    }

    /// How to ask for the next page by a page number or an offset, and how the model
    /// knows it had the last.
    fn stepped(&self, step: &Step) -> String {
        let ask = match step {
            Step::Page(page) => format!("for the next page, call again with `{page}` one higher"),
            Step::Offset(offset) => format!(
                "for the next page, call again with `{offset}` raised by the number of items the reply held"
            ),
        };
        let last = match (&self.more, &self.size) {
            (Some(more), _) => format!("while the reply's `{more}` is true, more remain"),
            (None, Some(size)) => {
                format!("a page with fewer items than `{size}` asks for is the last")
            }
            (None, None) => "an empty page is past the last".to_string(),
        };
        format!("{ask}; {last}")
    }
}

/// The operation's paging, from its extensions, its parameters' markers and the
/// members of its success reply; `args` are the tool's argument names (a cursor the
/// model has no argument for is not told).
pub(super) fn of(
    refs: &mut Refs,
    file: &Path,
    op: &Value,
    params: &[(PathBuf, Value)],
    args: &[&str],
) -> Paging {
    let mut paging = Paging::default();
    let mut extended = false;
    if let Some(m) = op.as_object() {
        for (k, v) in m {
            if paging_extension(k) {
                extended = true;
                read_operation_extension(v, &mut paging);
            }
        }
    }
    for (_, p) in params {
        let marked = [Some(p), p.get("schema")]
            .into_iter()
            .flatten()
            .any(|node| purpose(node) == Some("next_cursor_param"));
        if marked && paging.cursor.is_none() {
            paging.cursor = p.get("name").and_then(Value::as_str).map(str::to_string);
        }
    }
    // No extension: the pairs of names the arguments and the reply have say it. An
    // extension that says nothing usable (`nextLinkName: null`, a list answered whole)
    // is the description's word, and is kept.
    if !extended && paging == Paging::default() {
        paging = inferred::of(refs, file, op, params, args);
    }
    // A reply's members marked with a purpose: read only for an operation that says it
    // pages, so no other operation's reply is looked at.
    if paging.cursor.is_some() && (paging.next.is_none() || paging.items.is_none()) {
        reply_members(refs, file, op, &mut paging);
    }
    paging.cursor = paging
        .cursor
        .filter(|c| args.contains(&c.as_str()))
        .filter(|c| told(c));
    paging.next = paging.next.filter(|n| told(n));
    paging.items = paging.items.filter(|n| told(n));
    paging.more = paging.more.filter(|n| told(n));
    paging.size = paging.size.filter(|n| told(n));
    paging.step = paging.step.filter(|s| match s {
        Step::Page(n) | Step::Offset(n) => told(n),
    });
    // The next link's token goes in an argument whose name says it holds one (`$skipToken`).
    if paging.link && paging.cursor.is_none() {
        paging.cursor = args
            .iter()
            .find(|a| is_page_token(a))
            .map(|a| a.to_string());
    }
    paging
}

/// An operation member about paging: `x-…pageable`, `x-…pagination…`.
fn paging_extension(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    k.starts_with("x-") && (k.contains("pageable") || k.contains("paginat"))
}

/// The paging extension's object, by the members it has: `nextLinkName` and
/// `itemName` (the next page's address and the items' member), `inputs` and `outputs`
/// (an argument of type `cursor` and the reply's `$.nextCursor`/`$.results`), or
/// names written flat (`cursorParam`, `cursorPath`, `itemsPath`).
fn read_operation_extension(v: &Value, paging: &mut Paging) {
    let Some(m) = v.as_object() else {
        return;
    };
    for (k, v) in m {
        let key: String = k
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        match key.as_str() {
            "nextlinkname" | "nexturl" | "nextlink" => {
                if let Some(s) = v.as_str().and_then(member_path) {
                    paging.next = Some(s);
                    paging.link = true;
                }
            }
            "itemname" | "itemspath" | "results" | "items" => {
                if let Some(s) = v.as_str().and_then(member_path) {
                    paging.items = Some(s);
                }
            }
            "cursorparam" | "nextcursorparam" | "pagetokenparam" => {
                if let Some(s) = v.as_str().and_then(request_name) {
                    paging.cursor = Some(s);
                }
            }
            "cursorpath" | "nextcursorpath" | "nextcursor" | "nextcursorfield" => {
                if let Some(s) = v.as_str().and_then(member_path) {
                    paging.next = Some(s);
                    paging.link = false;
                }
            }
            "inputs" => {
                let cursor = v.as_array().into_iter().flatten().find(|i| {
                    matches!(
                        i.get("type").and_then(Value::as_str),
                        Some("cursor" | "page" | "offset")
                    ) && i.get("in").and_then(Value::as_str) != Some("requestBody")
                });
                if let Some(name) = cursor.and_then(|i| i.get("name")).and_then(Value::as_str) {
                    paging.cursor = Some(name.to_string());
                }
            }
            "outputs" => read_operation_extension(v, paging),
            _ => {}
        }
    }
    // An operation naming its next link alone keeps its items in `value`, the
    // default that extension documents.
    if paging.link && paging.items.is_none() && m.contains_key("nextLinkName") {
        paging.items = Some("value".into());
    }
}

/// The pagination `purpose` a node's `x-…pagination…` member gives it.
fn purpose(node: &Value) -> Option<&str> {
    node.as_object()?
        .iter()
        .filter(|(k, _)| paging_extension(k))
        .find_map(|(_, v)| v.get("purpose").and_then(Value::as_str))
}

/// The members of the first 2xx JSON reply's schema (and of its `allOf` parts) whose
/// purpose is the next cursor or the items.
fn reply_members(refs: &mut Refs, file: &Path, op: &Value, paging: &mut Paging) {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return;
    };
    let Some((_, resp)) = responses.iter().find(|(c, _)| c.starts_with('2')) else {
        return;
    };
    let Ok((file, resp)) = refs.deref(file, resp) else {
        return;
    };
    let schema = resp
        .get("content")
        .and_then(Value::as_object)
        .and_then(|c| c.iter().find(|(t, _)| t.contains("json")))
        .and_then(|(_, m)| m.get("schema"))
        .or_else(|| resp.get("schema"));
    let Some(schema) = schema else {
        return;
    };
    let mut parts = vec![(file, schema.clone())];
    // A reply schema and the `allOf` parts it is made of, a few levels down.
    for _ in 0..4 {
        let mut next = Vec::new();
        for (f, s) in parts.drain(..) {
            let Ok((f, s)) = refs.deref(&f, &s) else {
                continue;
            };
            if let Some(props) = s.get("properties").and_then(Value::as_object) {
                for (name, prop) in props {
                    match purpose(prop) {
                        Some("next_cursor_field") if paging.next.is_none() => {
                            paging.next = Some(name.clone());
                        }
                        Some("items") if paging.items.is_none() => {
                            paging.items = Some(name.clone());
                        }
                        _ => {}
                    }
                }
            }
            for part in s
                .get("allOf")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                next.push((f.clone(), part.clone()));
            }
        }
        if next.is_empty() {
            break;
        }
        parts = next;
    }
}

/// A reply member's path as written (`$.meta.next`, `$response.body#/next`, `next`),
/// as the dotted name a model reads.
fn member_path(s: &str) -> Option<String> {
    let s = s.trim();
    let s = s
        .strip_prefix("$response.body#/")
        .map(|p| p.replace('/', "."))
        .unwrap_or_else(|| {
            s.trim_start_matches('$')
                .trim_start_matches('.')
                .to_string()
        });
    (!s.is_empty()).then_some(s)
}

/// A request value's name as written (`$request.query.after`, `after`).
fn request_name(s: &str) -> Option<String> {
    let s = s.trim();
    let s = s.rsplit_once('.').map_or(s, |(_, n)| n);
    (!s.is_empty()).then(|| s.to_string())
}

/// A name the model can read and copy: short, one line, no backtick.
fn told(name: &str) -> bool {
    name.len() <= MAX_NAME && !name.chars().any(|c| c.is_control() || c == '`')
}

/// An argument named as a page token (`$skipToken`, `continuationToken`, `pageToken`).
fn is_page_token(arg: &str) -> bool {
    let a: String = arg
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        a.as_str(),
        "skiptoken" | "continuationtoken" | "pagetoken" | "nextpagetoken" | "cursor"
    )
}
