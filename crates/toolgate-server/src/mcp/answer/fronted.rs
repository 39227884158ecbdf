//! The answer to a call of an upstream MCP server's tool, from its result's bytes.
//!
//! The result is read once at its top level, each member kept as its JSON text; every
//! member is copied as it came, and only what toolgate adds to is touched: the notes
//! (a text block, or the end of the first one; a member spliced into an object
//! `structuredContent`), `isError`, toolgate's keys spliced into `_meta`, and
//! `resultType` for 2026-07-28. No `serde_json::Value` of the result is built on a
//! healthy call; a call with notes for the text reads the content blocks, and an
//! upstream `_meta` that already uses toolgate's keys is read to replace them.

use std::collections::HashMap;

use serde::de::{MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use toolgate_engine::pipeline::{CallOutcome, CallSignals, Failure};

use super::{
    NotesPlacement, STRUCTURED_CONTENT, has_top_level_key, mark_upstream_member, object_close,
    write_into, write_member, write_str,
};
use crate::mcp::envelope::Key;
use crate::mcp::{ERROR_META_KEY, SIGNALS_META_KEY};

/// The members of the upstream's result, in order, each as JSON text: a repeated key
/// keeps its first place and its last value (as a map would). Anything but an object
/// reads as no members.
fn members(bytes: &[u8]) -> Vec<(String, &RawValue)> {
    struct Members;
    impl<'de> Visitor<'de> for Members {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out: Self::Value = Vec::new();
            // Where each key sits in `out`: a hostile upstream's result of a million
            // distinct keys costs a million lookups, not a million scans.
            let mut at: HashMap<String, usize> = HashMap::new();
            while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                let value: &'de RawValue = map.next_value()?;
                match at.get(key.as_ref()) {
                    Some(&i) => out[i].1 = value,
                    None => {
                        at.insert(key.to_string(), out.len());
                        out.push((key.into_owned(), value));
                    }
                }
            }
            Ok(out)
        }
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let members = serde::Deserializer::deserialize_map(&mut de, Members).unwrap_or_default();
    // Trailing bytes after the object mean it was no single object.
    if de.end().is_err() {
        return Vec::new();
    }
    members
}

/// The JSON-RPC answer to a call of an upstream MCP server's tool: its result as it
/// came — the content blocks (text, images, audio, resources), `structuredContent`, its
/// own `_meta` — with the notes added the same way as for HTTP tools and toolgate's
/// `_meta` keys next to the upstream's. A tool error keeps `isError: true` and the
/// tool's own words.
pub(super) fn mcp_result(
    id: &str,
    outcome: CallOutcome,
    inline: bool,
    placement: NotesPlacement,
) -> Vec<u8> {
    let CallOutcome {
        result,
        mut notes,
        signals,
    } = outcome;
    let (bytes, error) = match &result {
        Ok(s) => (s.body(), None),
        Err(f) => (f.passthrough.as_deref().unwrap_or_default(), Some(f)),
    };
    let members = members(bytes);
    let member = |name: &str| {
        members
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.get().as_bytes())
    };
    let upstream_owns_member = member("structuredContent").is_some_and(|structured| {
        mark_upstream_member(structured, placement, STRUCTURED_CONTENT, &mut notes)
    });
    // The notes member goes into an object `structuredContent` that does not have one.
    let spliced = match (placement.member, member("structuredContent")) {
        (Some(name), Some(structured))
            if !notes.is_empty()
                && placement.mode.in_structured()
                && object_close(structured).is_some()
                && !upstream_owns_member =>
        {
            Some(name)
        }
        _ => None,
    };
    let text_notes = (!notes.is_empty() && (placement.mode.in_text() || spliced.is_none()))
        .then_some(notes.as_slice());
    let mut out = Vec::with_capacity(bytes.len() + 512);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(br#","result":{"#);
    let mut seen = Seen::default();
    for (key, value) in &members {
        comma(&mut out, &mut seen.any);
        write_str(&mut out, key);
        out.push(b':');
        let raw = value.get().as_bytes();
        match key.as_str() {
            "content" => {
                seen.content = true;
                write_content(&mut out, Some(raw), text_notes, placement);
            }
            "structuredContent" => write_structured(&mut out, raw, spliced, &notes),
            "isError" => {
                seen.is_error = true;
                write_bool(&mut out, error.is_some());
            }
            "_meta" => {
                seen.meta = true;
                write_meta(&mut out, Some(raw), error, &signals);
            }
            "resultType" if inline => {
                seen.result_type = true;
                out.extend_from_slice(br#""complete""#);
            }
            _ => out.extend_from_slice(raw),
        }
    }
    seen.write_missing(&mut out, text_notes, placement, error, &signals, inline);
    out.extend_from_slice(b"}}");
    out
}

/// Which of the members toolgate writes the result already had.
#[derive(Default)]
struct Seen {
    any: bool,
    content: bool,
    is_error: bool,
    meta: bool,
    result_type: bool,
}

impl Seen {
    /// The members toolgate writes that the result did not have, after its own.
    fn write_missing(
        &mut self,
        out: &mut Vec<u8>,
        text_notes: Option<&[String]>,
        placement: NotesPlacement,
        error: Option<&Failure>,
        signals: &CallSignals,
        inline: bool,
    ) {
        if !self.content {
            comma(out, &mut self.any);
            out.extend_from_slice(br#""content":"#);
            write_content(out, None, text_notes, placement);
        }
        if !self.is_error {
            comma(out, &mut self.any);
            out.extend_from_slice(br#""isError":"#);
            write_bool(out, error.is_some());
        }
        if !self.meta {
            comma(out, &mut self.any);
            out.extend_from_slice(br#""_meta":"#);
            write_meta(out, None, error, signals);
        }
        if inline && !self.result_type {
            comma(out, &mut self.any);
            out.extend_from_slice(br#""resultType":"complete""#);
        }
    }
}

/// The upstream's `structuredContent`, with the notes member `spliced` in before its
/// closing brace when there is one to add.
fn write_structured(out: &mut Vec<u8>, raw: &[u8], spliced: Option<&str>, notes: &[String]) {
    match spliced.zip(object_close(raw)) {
        Some((name, close)) => {
            write_into(out, raw, close, |out| write_member(out, name, notes));
        }
        None => out.extend_from_slice(raw),
    }
}

/// A comma before every member but the first.
fn comma(out: &mut Vec<u8>, any: &mut bool) {
    if *any {
        out.push(b',');
    }
    *any = true;
}

fn write_bool(out: &mut Vec<u8>, b: bool) {
    out.extend_from_slice(if b { b"true" } else { b"false" });
}

/// `content`: the upstream's array as it came, or `[]` when it sent none (or not an
/// array); with text notes, those end the first text block (`inline`) or follow as a
/// block of their own.
fn write_content(
    out: &mut Vec<u8>,
    raw: Option<&[u8]>,
    notes: Option<&[String]>,
    placement: NotesPlacement,
) {
    let array = raw.filter(|r| r.first() == Some(&b'['));
    let Some(notes) = notes else {
        out.extend_from_slice(array.unwrap_or(b"[]"));
        return;
    };
    let mut content: Vec<Value> = array
        .and_then(|r| serde_json::from_slice(r).ok())
        .unwrap_or_default();
    let lines = super::super::notes_text(notes);
    let first_text = content
        .iter_mut()
        .filter_map(|block| block.as_object_mut())
        .find(|block| block.get("type").and_then(Value::as_str) == Some("text"))
        .and_then(|block| block.get_mut("text"));
    match first_text {
        Some(Value::String(text)) if placement.mode.in_first_block() => {
            text.push_str("\n\n");
            text.push_str(&lines);
        }
        // No text block to end (only images, say): the lines get one of their own.
        _ => content.push(serde_json::json!({ "type": "text", "text": lines })),
    }
    // Writing a `Value` into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, &content);
}

/// `_meta`: the upstream's object with toolgate's keys spliced in before its closing
/// brace (a failure's text first, then the signals), or an object of toolgate's keys
/// alone. An upstream `_meta` that already uses one of toolgate's keys is read, and
/// the key's value replaced, so no key appears twice.
fn write_meta(
    out: &mut Vec<u8>,
    raw: Option<&[u8]>,
    error: Option<&Failure>,
    signals: &CallSignals,
) {
    let object = raw.and_then(|r| object_close(r).map(|close| (r, close)));
    let taken = object.is_some_and(|(r, _)| {
        has_top_level_key(r, SIGNALS_META_KEY)
            || (error.is_some() && has_top_level_key(r, ERROR_META_KEY))
    });
    if taken
        && let Some(Ok(mut meta)) =
            object.map(|(r, _)| serde_json::from_slice::<Map<String, Value>>(r))
    {
        if let Some(f) = error {
            meta.insert(ERROR_META_KEY.into(), Value::String(f.message.clone()));
        }
        // Typed signals serialise to an object; the error case cannot happen.
        let signals = serde_json::to_value(signals).unwrap_or(Value::Null);
        meta.insert(SIGNALS_META_KEY.into(), signals);
        let _ = serde_json::to_writer(&mut *out, &meta);
        return;
    }
    match object.filter(|_| !taken) {
        Some((r, close)) => {
            write_into(out, r, close, |out| {
                write_toolgate_meta(out, error, signals)
            });
        }
        None => {
            out.push(b'{');
            write_toolgate_meta(out, error, signals);
            out.push(b'}');
        }
    }
}

/// toolgate's `_meta` members: a failure's text, then the signals.
fn write_toolgate_meta(out: &mut Vec<u8>, error: Option<&Failure>, signals: &CallSignals) {
    if let Some(f) = error {
        write_str(out, ERROR_META_KEY);
        out.push(b':');
        write_str(out, &f.message);
        out.push(b',');
    }
    write_str(out, SIGNALS_META_KEY);
    out.push(b':');
    // Writing plain structs into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, signals);
}

#[cfg(test)]
mod tests;
