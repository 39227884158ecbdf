//! What every `tools/call` result of a fronted server must be before it is passed on,
//! whether or not the tool declares an `outputSchema`:
//! - nested no deeper than [`MAX_NESTING`] levels anywhere (what toolgate's own JSON
//!   reading allows; deeper documents break the clients' parsers too);
//! - each `content` item a content block of MCP: an object whose `type` is `text`
//!   (with a string `text`), `image` or `audio` (base64 `data` and a `mimeType` of
//!   its kind, [`super::media_type`]), `resource_link` (`uri` and `name`) or
//!   `resource` (a `resource` object with a `uri` and a `text` or a base64 `blob`);
//! - each URI of a block (a link's, an embedded resource's) one a client may follow
//!   ([`super::link_target`]: no `javascript:` or `data:`, no user info, no `file:`
//!   on another machine, no internal host other than the server's own host and port);
//! - at most [`MAX_BLOCKS`] content blocks (a result of a few megabytes can hold
//!   hundreds of thousands of empty ones, each an object for the client to build);
//! - no line of its text reading as toolgate's own note ([`super::note_lines`]): such
//!   lines are marked, and only then is the result rewritten;
//! - no words spelt in characters no person sees in the text of a `text` block or an
//!   embedded resource ([`super::smuggled_text`]: tag characters outside a recommended
//!   flag, runs of variation selectors, a selector after a character that has no
//!   variation sequence, runs of zero-width characters, ...); each run of them becomes
//!   one U+FFFD, and so it does in every name and string of `structuredContent`, of
//!   the result's `_meta` and of a block's ([`super::structured_text`]);
//! - the words of a `resource_link` (`name`, `title`, `description`, which a client
//!   shows as it shows a listed resource's) held to the rule of a listed resource's:
//!   no hidden character ([`super::relayed_text::hidden`]: tags, zero-width and
//!   bidirectional controls, ANSI escapes) and no line reading as a toolgate note. A
//!   link's words are the server's description of a resource, not data the tool was
//!   asked for, so nothing a person would not see is kept in them. Each run of hidden
//!   characters becomes one U+FFFD rather than nothing: the reply was scrubbed of
//!   echoed credentials as written, and the parts of one the server split with hidden
//!   characters must not join after that.
//!
//! - a `resource_link`'s or an embedded resource's `mimeType` written as a media type
//!   ([`super::media_type::is_media_type`]); any other is dropped from the block.
//!
//! A result that breaks the first two is a protocol break, like one that is not a
//! `tools/call` result at all.

use serde::Deserialize;
use serde_json::value::RawValue;

use super::note_lines;
use super::relayed_text::hidden;
use super::smuggled_text;

/// The members of a `resource_link` block a client shows as words.
const LINK_WORDS: [&str; 3] = ["name", "title", "description"];

/// The deepest nesting of arrays and objects a result may have.
pub const MAX_NESTING: usize = 128;

/// The most content blocks a result may have.
pub const MAX_BLOCKS: usize = 10_000;

/// The result to pass on: `body` itself, or `body` with the text lines that read as
/// toolgate's notes marked and smuggled characters dropped (from `content` and the
/// names and strings of `structured` and of `meta`, the result's `_meta`). `Err` says
/// how the result breaks the protocol. `own` is the server's URL, whose host and port
/// are the one internal place its links may name.
pub fn checked(
    body: &bytes::Bytes,
    content: Option<&RawValue>,
    structured: Option<&RawValue>,
    meta: Option<&RawValue>,
    own: Option<&url::Url>,
) -> Result<bytes::Bytes, String> {
    if nested_deeper_than(body, MAX_NESTING) {
        return Err(format!(
            "the result is nested deeper than {MAX_NESTING} levels"
        ));
    }
    let blocks: Vec<&RawValue> = match content {
        Some(c) if c.get() != "null" => serde_json::from_str(c.get())
            .map_err(|_| "the result's `content` is not a list".to_string())?,
        _ => Vec::new(),
    };
    if blocks.len() > MAX_BLOCKS {
        return Err(format!(
            "the result has {} content blocks, more than the {MAX_BLOCKS} toolgate passes on",
            blocks.len()
        ));
    }
    let mut marks = false;
    for (i, block) in blocks.iter().enumerate() {
        marks |= check_block(block, own).map_err(|e| format!("content[{i}] {e}"))?;
    }
    let structured = structured.and_then(super::structured_text::cleaned);
    let meta = meta.and_then(super::structured_text::cleaned);
    if !marks && structured.is_none() && meta.is_none() {
        return Ok(body.clone());
    }
    let unreadable = || "the result could not be read to mark its lines".to_string();
    let mut body = body.to_vec();
    for (name, cleaned) in [("structuredContent", structured), ("_meta", meta)] {
        if let Some(cleaned) = cleaned {
            body = with_members_marked(&body, name, &|_| Some(cleaned.clone()))
                .ok_or_else(unreadable)?;
        }
    }
    if !marks {
        return Ok(body.into());
    }
    // Rare: the texts of `content` are rewritten with their lines marked; every other
    // member stays as the server wrote it (numbers of any size included).
    with_members_marked(&body, "content", &|content| {
        let blocks: Vec<&RawValue> = serde_json::from_str(content).ok()?;
        let marked: Vec<String> = blocks
            .iter()
            .map(|block| {
                let block = link_words_cleaned(block.get());
                with_members_marked(block.as_bytes(), "text", &marked_text)
                    .and_then(|b| with_members_marked(&b, "_meta", &meta_cleaned))
                    .and_then(|b| {
                        with_members_marked(&b, "resource", &|resource| {
                            with_members_marked(resource.as_bytes(), "text", &marked_text)
                                .and_then(|r| with_members_marked(&r, "_meta", &meta_cleaned))
                                .map(|r| without_unfit_mime(&r).unwrap_or(r))
                                .and_then(|r| String::from_utf8(r).ok())
                        })
                    })
                    .and_then(|b| String::from_utf8(b).ok())
                    .unwrap_or_else(|| block.clone())
            })
            .collect();
        Some(format!("[{}]", marked.join(",")))
    })
    .map(bytes::Bytes::from)
    .ok_or_else(unreadable)
}

/// The JSON object `raw` with its member `name` replaced by what `rewrite` makes of it
/// (kept when it makes nothing); `None` when `raw` is not an object.
fn with_members_marked(
    raw: &[u8],
    name: &str,
    rewrite: &dyn Fn(&str) -> Option<String>,
) -> Option<Vec<u8>> {
    let members: super::members::Members<'_> = serde_json::from_slice(raw).ok()?;
    let rewritten: Vec<Option<String>> = members
        .0
        .iter()
        .map(|(n, value)| (n == name).then(|| rewrite(value.get())).flatten())
        .collect();
    Some(super::members::object(
        members
            .0
            .iter()
            .zip(&rewritten)
            .map(|((n, value), new)| (n.as_str(), new.as_deref().unwrap_or(value.get()))),
    ))
}

/// The content block `raw`, with the words of a `resource_link` cleaned
/// ([`link_word`]); any other block as written.
fn link_words_cleaned(raw: &str) -> String {
    // Owned, so a `type` written with escapes reads as the check read it.
    #[derive(Deserialize)]
    struct Kind {
        #[serde(rename = "type", default)]
        kind: Option<String>,
    }
    let is_link =
        serde_json::from_str::<Kind>(raw).is_ok_and(|k| k.kind.as_deref() == Some("resource_link"));
    if !is_link {
        return raw.to_owned();
    }
    let mut block = raw.as_bytes().to_vec();
    for word in LINK_WORDS {
        if let Some(cleaned) = with_members_marked(&block, word, &link_word) {
            block = cleaned;
        }
    }
    if let Some(without) = without_unfit_mime(&block) {
        block = without;
    }
    String::from_utf8(block).unwrap_or_else(|_| raw.to_owned())
}

/// Whether a link's or an embedded resource's `mimeType` is to be dropped: present and
/// not a string written as a media type ([`super::media_type::is_media_type`]).
fn mime_to_drop(mime: Option<&RawValue>) -> bool {
    mime.is_some_and(|m| {
        !serde_json::from_str::<String>(m.get()).is_ok_and(|m| super::media_type::is_media_type(&m))
    })
}

/// The JSON object `raw` without its `mimeType` when that is to be dropped
/// ([`mime_to_drop`]); `None` when it is kept (or `raw` is no object).
fn without_unfit_mime(raw: &[u8]) -> Option<Vec<u8>> {
    let members: super::members::Members<'_> = serde_json::from_slice(raw).ok()?;
    let is_mime = |name: &str| name == "mimeType";
    if !members
        .0
        .iter()
        .any(|(n, value)| is_mime(n) && mime_to_drop(Some(value)))
    {
        return None;
    }
    Some(super::members::object(
        members
            .0
            .iter()
            .filter(|(n, _)| !is_mime(n))
            .map(|(n, value)| (n.as_str(), value.get())),
    ))
}

/// A JSON string with each run of its hidden characters as one U+FFFD and its lines
/// that read as toolgate's notes marked, when it has either.
fn link_word(raw: &str) -> Option<String> {
    let text: String = serde_json::from_str(raw).ok()?;
    serde_json::to_string(&link_word_cleaned(&text)?).ok()
}

/// A link's word with each run of its hidden characters as one U+FFFD and its lines
/// that read as toolgate's notes marked; `None` when it has neither.
pub(crate) fn link_word_cleaned(text: &str) -> Option<String> {
    if !link_word_needs_cleaning(text) {
        return None;
    }
    let mut visible = String::with_capacity(text.len());
    for c in text.chars() {
        if !hidden(c) {
            visible.push(c);
        } else if !visible.ends_with(char::REPLACEMENT_CHARACTER) {
            visible.push(char::REPLACEMENT_CHARACTER);
        }
    }
    Some(note_lines::marked(&visible).unwrap_or(visible))
}

/// Whether a link's word has a hidden character or a line reading as a toolgate note.
fn link_word_needs_cleaning(text: &str) -> bool {
    text.chars().any(hidden) || note_lines::marked(text).is_some()
}

/// A JSON string with its smuggled characters dropped and its lines that read as
/// toolgate's notes marked, when it has either.
fn marked_text(raw: &str) -> Option<String> {
    let text: String = serde_json::from_str(raw).ok()?;
    let cleaned = smuggled_text::cleaned(&text);
    let visible = cleaned.as_deref().unwrap_or(&text);
    let marked = note_lines::marked(visible).or(cleaned)?;
    serde_json::to_string(&marked).ok()
}

/// A block's (or its resource's) `_meta` with the smuggled characters of its names and
/// strings dropped and its keys that read as toolgate's removed, when it has either.
fn meta_cleaned(raw: &str) -> Option<String> {
    let cleaned = super::structured_text::cleaned(serde_json::from_str::<&RawValue>(raw).ok()?);
    let visible = cleaned.as_deref().unwrap_or(raw);
    super::foreign_meta::without_toolgate_members(visible).or(cleaned)
}

/// Whether a block's `_meta` has smuggled characters to drop, or keys that read as
/// toolgate's: clients read a block's `_meta` as they read the result's (VS Code takes
/// an app's `ui` from it), so a block may not speak in toolgate's name either.
fn meta_to_rewrite(meta: Option<&RawValue>) -> bool {
    meta.is_some_and(|m| {
        super::structured_text::cleaned(m).is_some() || super::foreign_meta::names_toolgate_key(m)
    })
}

/// Checks one content block; true when a text of it has lines to mark or smuggled
/// characters to drop (or a link's words hidden characters to drop, or its `_meta`
/// smuggled characters).
fn check_block(raw: &RawValue, own: Option<&url::Url>) -> Result<bool, String> {
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(rename = "type", borrow, default)]
        kind: Option<&'a RawValue>,
        #[serde(borrow, default)]
        text: Option<&'a RawValue>,
        #[serde(borrow, default)]
        data: Option<&'a RawValue>,
        #[serde(rename = "mimeType", borrow, default)]
        mime_type: Option<&'a RawValue>,
        #[serde(borrow, default)]
        uri: Option<&'a RawValue>,
        #[serde(borrow, default)]
        name: Option<&'a RawValue>,
        #[serde(borrow, default)]
        title: Option<&'a RawValue>,
        #[serde(borrow, default)]
        description: Option<&'a RawValue>,
        #[serde(borrow, default)]
        resource: Option<&'a RawValue>,
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Resource<'a> {
        #[serde(borrow, default)]
        uri: Option<&'a RawValue>,
        #[serde(rename = "mimeType", borrow, default)]
        mime_type: Option<&'a RawValue>,
        #[serde(borrow, default)]
        text: Option<&'a RawValue>,
        #[serde(borrow, default)]
        blob: Option<&'a RawValue>,
        #[serde(rename = "_meta", borrow, default)]
        meta: Option<&'a RawValue>,
    }
    let block: Block<'_> =
        serde_json::from_str(raw.get()).map_err(|_| "is not a content block".to_string())?;
    let kind = block
        .kind
        .and_then(|k| serde_json::from_str::<String>(k.get()).ok())
        .ok_or("has no `type`")?;
    let needs = |field: Option<&RawValue>, name: &str| -> Result<(), String> {
        match field {
            Some(f) if f.get().starts_with('"') => Ok(()),
            _ => Err(format!("({kind}) has no string `{name}`")),
        }
    };
    // A URI is followed as the client decodes it, so it is judged decoded.
    let link = |uri: Option<&RawValue>| -> Result<(), String> {
        let uri = uri.and_then(|u| serde_json::from_str::<String>(u.get()).ok());
        match uri
            .as_deref()
            .and_then(|u| super::link_target::refusal(u, own))
        {
            Some(why) => Err(format!("({kind}) {why}")),
            None => Ok(()),
        }
    };
    let meta = meta_to_rewrite(block.meta);
    let rewrite = match kind.as_str() {
        "text" => {
            needs(block.text, "text")?;
            Ok(text_to_rewrite(block.text))
        }
        "image" | "audio" => {
            needs(block.mime_type, "mimeType")?;
            let mime = block
                .mime_type
                .and_then(|m| serde_json::from_str::<String>(m.get()).ok())
                .unwrap_or_default();
            if !super::media_type::is_of_kind(&mime, &kind) {
                return Err(format!("({kind}) has a `mimeType` that is not {kind}/…"));
            }
            match block.data {
                Some(d) if is_base64_string(d.get()) => Ok(false),
                _ => Err(format!("({kind}) has no base64 `data`")),
            }
        }
        "resource_link" => {
            needs(block.uri, "uri")?;
            needs(block.name, "name")?;
            link(block.uri)?;
            Ok(mime_to_drop(block.mime_type)
                || [block.name, block.title, block.description]
                    .into_iter()
                    .flatten()
                    .filter_map(|w| serde_json::from_str::<String>(w.get()).ok())
                    .any(|w| link_word_needs_cleaning(&w)))
        }
        "resource" => {
            let resource: Resource<'_> = block
                .resource
                .and_then(|r| serde_json::from_str(r.get()).ok())
                .ok_or("(resource) has no `resource` object")?;
            needs(resource.uri, "resource.uri")?;
            link(resource.uri)?;
            let meta = meta_to_rewrite(resource.meta) || mime_to_drop(resource.mime_type);
            if resource.text.is_none() {
                return match resource.blob {
                    Some(b) if is_base64_string(b.get()) => Ok(meta),
                    _ => Err(format!(
                        "({kind}) has no string `resource.text` or base64 `resource.blob`"
                    )),
                };
            }
            needs(resource.text, "resource.text")?;
            Ok(meta || text_to_rewrite(resource.text))
        }
        _ => Err(format!(
            "has the type {}, which is not a content type",
            crate::explain::quoted(&crate::explain::upstream_text(
                &kind,
                &Default::default(),
                40
            ))
        )),
    }?;
    Ok(rewrite || meta)
}

/// Checks one content block already read (a prompt message's `content`), as a
/// `tools/call` result's blocks are checked; `own` as for [`checked`].
pub(crate) fn content_block(
    block: &serde_json::Value,
    own: Option<&url::Url>,
) -> Result<(), String> {
    let raw = serde_json::value::to_raw_value(block).map_err(|_| "is not a content block")?;
    check_block(&raw, own).map(|_| ())
}

/// Whether a `resources/read` answer is one: `contents` a list of at most
/// [`MAX_BLOCKS`] resource contents, each an object with a string `uri` a client may
/// follow ([`super::link_target`]) and a string `text` or a base64 `blob`. `Err` says
/// what is not. `own` as for [`checked`].
pub(crate) fn resource_contents(
    answer: &serde_json::Value,
    own: Option<&url::Url>,
) -> Result<(), String> {
    let contents = answer
        .get("contents")
        .and_then(serde_json::Value::as_array)
        .ok_or("has no `contents` list")?;
    if contents.len() > MAX_BLOCKS {
        return Err(format!(
            "has {} contents, more than the {MAX_BLOCKS} toolgate passes on",
            contents.len()
        ));
    }
    for (i, item) in contents.iter().enumerate() {
        let string = |name: &str| item.get(name).and_then(serde_json::Value::as_str);
        let Some(uri) = string("uri") else {
            return Err(format!("contents[{i}] has no string `uri`"));
        };
        if let Some(why) = super::link_target::refusal(uri, own) {
            return Err(format!("contents[{i}] {why}"));
        }
        let blob_ok = string("blob").is_some_and(|b| is_base64_string(&format!("\"{b}\"")));
        if string("text").is_none() && !blob_ok {
            return Err(format!(
                "contents[{i}] has neither a string `text` nor a base64 `blob`"
            ));
        }
    }
    Ok(())
}

/// Whether a JSON string's text has lines that read as toolgate's notes, or smuggled
/// characters.
fn text_to_rewrite(text: Option<&RawValue>) -> bool {
    let Some(raw) = text else { return false };
    let needs = |text: &str| {
        note_lines::marked(text).is_some()
            || (smuggled_text::may_hold(text) && smuggled_text::cleaned(text).is_some())
    };
    // Borrowed when the string has no escapes (no copy), else decoded.
    match serde_json::from_str::<&str>(raw.get()) {
        Ok(text) => needs(text),
        Err(_) => serde_json::from_str::<String>(raw.get()).is_ok_and(|text| needs(&text)),
    }
}

/// Whether `raw` is a JSON string of base64 (standard or URL-safe alphabet, padding,
/// line breaks). A string with escapes is judged as decoded: `\u003c` is `<`, which no
/// base64 holds, and a client decodes it before reading the data.
fn is_base64_string(raw: &str) -> bool {
    let base64 = |s: &str| {
        s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(b, b'+' | b'/' | b'=' | b'-' | b'_' | b'\r' | b'\n')
        })
    };
    if !(raw.len() >= 2 && raw.starts_with('"') && raw.ends_with('"')) {
        return false;
    }
    let inner = &raw[1..raw.len() - 1];
    if !inner.contains('\\') {
        return base64(inner);
    }
    serde_json::from_str::<String>(raw).is_ok_and(|s| base64(&s))
}

/// Whether arrays and objects in `json` nest deeper than `limit` (brackets inside
/// strings do not count). One pass over the bytes, nothing built.
pub fn nested_deeper_than(json: &[u8], limit: usize) -> bool {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in json {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod hidden_text_cases;
