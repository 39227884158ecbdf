//! The answer to a successful or failed `tools/call`, written once, from the checked
//! upstream bytes.
//!
//! Why by hand: the answer carries the upstream body twice (as `structuredContent` and
//! escaped into the text block; once, in the text, where `structured_content` is off). Going through a `serde_json::Value` means building the
//! body's whole JSON tree, serialising it back and dropping it on every call, for bytes
//! toolgate has already checked and does not change; that was most of a call's CPU
//! (docs/performance.md). Here the bytes are copied in, and the text block is escaped
//! eight bytes at a time. Notes that travel inside `structuredContent` are spliced into
//! the body's object bytes, before its closing brace, for the same reason.
//!
//! Where notes travel: as a text block of `toolgate:` lines, as a `toolgate` member
//! (`{"notes": [...]}`) inside `structuredContent`, or both ([`NotesMode`]); `inline`
//! ends the first text block with the lines (after a blank line) instead of adding a
//! block, for frameworks that read only the first block. A failure
//! carries no `structuredContent`: the TypeScript SDK validates `structuredContent`
//! against `outputSchema` even when `isError` is set, so a partial object would turn the
//! failure text into a schema error; every framework measured falls back to the text
//! when there is no `structuredContent`. A note that cannot go into `structuredContent`
//! (a failure, a body that is not an object, a body that already has a top-level member
//! of that name) goes into the text block whatever the mode: a note is never dropped.
//! A failure's `_meta` repeats its text under `dev.toolgate/error`, first, for clients
//! that hand the model a dump of the whole result.

mod escape;
mod fronted;
mod top_level_key;

use top_level_key::has_top_level_key;

use super::envelope::Era;
use super::{ERROR_META_KEY, SIGNALS_META_KEY};
use toolgate_config::{NotesMode, ToolSpec};
use toolgate_engine::pipeline::{CallOutcome, CallSignals, Failure, Structured};

/// Where one tool's notes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotesPlacement {
    /// The configured mode.
    pub mode: NotesMode,
    /// The member name inside `structuredContent`, when one is free.
    pub member: Option<&'static str>,
    /// Whether an HTTP tool's answer carries `structuredContent` at all
    /// (`structured_content: false` sends the text block alone, notes in the text).
    pub structured: bool,
}

impl NotesPlacement {
    /// The placement configured for `spec`.
    pub fn of(spec: &ToolSpec) -> NotesPlacement {
        NotesPlacement {
            mode: spec.notes,
            member: spec.notes_member,
            structured: spec.contract.advertised,
        }
    }
}

/// The JSON-RPC answer to a `tools/call`: `id` is the request id's JSON text. The
/// members are those of MCP's `CallToolResult` (in rmcp's order), with the checked body
/// copied in rather than re-serialised. The 2026-07-28 era adds `resultType`.
pub fn tool_call(id: &str, outcome: CallOutcome, era: Era, placement: NotesPlacement) -> Vec<u8> {
    let inline = era.is_modern();
    let is_upstream_mcp = match &outcome.result {
        Ok(s) => s.is_mcp_result(),
        Err(f) => f.passthrough.is_some(),
    };
    if is_upstream_mcp {
        return fronted::mcp_result(id, outcome, inline, placement);
    }
    let CallOutcome {
        result,
        mut notes,
        signals,
    } = outcome;
    let routes = NoteRoutes::of(&result, placement, &mut notes);
    let body_len = result.as_ref().map_or(0, |s| s.body().len());
    // The text block escapes the body: quotes dominate JSON, so allow for growth.
    let mut out = Vec::with_capacity(body_len * 5 / 2 + 1024);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.as_bytes());
    out.extend_from_slice(if inline {
        br#","result":{"resultType":"complete","content":[{"type":"text","text":"#.as_slice()
    } else {
        br#","result":{"content":[{"type":"text","text":"#.as_slice()
    });
    let is_error = write_text(&mut out, &result);
    write_notes_text(&mut out, &notes, routes);
    out.push(b']');
    if let Some(structured) = result.as_ref().ok().filter(|_| placement.structured) {
        let member = routes.spliced.map(|m| (m, notes.as_slice()));
        write_structured_content(&mut out, structured, member);
    }
    out.extend_from_slice(if is_error {
        br#","isError":true"#
    } else {
        br#","isError":false"#
    });
    write_meta(&mut out, result.as_ref().err(), &signals);
    out
}

/// Where one answer's notes go, worked out once before anything is written.
#[derive(Clone, Copy)]
struct NoteRoutes {
    /// Where the notes member goes: `Some(member)` when the structured content takes it.
    spliced: Option<&'static str>,
    /// Whether the notes are written as text.
    as_text: bool,
    /// Whether that text ends the first text block rather than opening its own.
    inline: bool,
}

impl NoteRoutes {
    /// The routes of `notes` for `result` under `placement`; a note saying whose a
    /// member of the upstream's is may be added to `notes` first.
    fn of(
        result: &Result<Structured, Failure>,
        placement: NotesPlacement,
        notes: &mut Vec<String>,
    ) -> NoteRoutes {
        // Read once: whether the upstream's own object holds the notes member decides both
        // the note that says so and whether toolgate's notes can go in.
        // Without structured content the model reads the body as JSON in the text block.
        let read_as = if placement.structured {
            STRUCTURED_CONTENT
        } else {
            "the answer's JSON"
        };
        let upstream_owns_member = match result {
            Ok(structured) if !structured.is_wrapped() => {
                mark_upstream_member(structured.body(), placement, read_as, notes)
            }
            _ => false,
        };
        let spliced = match (result, placement.member) {
            (Ok(structured), Some(member))
                if !notes.is_empty() && placement.structured && placement.mode.in_structured() =>
            {
                // A wrapped body (`{"result": …}`) always takes it; an upstream's object
                // only when it is one and has no member of that name (a duplicate key would
                // leave which one a client keeps to its parser).
                (structured.is_wrapped()
                    || (object_close(structured.body()).is_some() && !upstream_owns_member))
                    .then_some(member)
            }
            _ => None,
        };
        let as_text = !notes.is_empty() && (placement.mode.in_text() || spliced.is_none());
        NoteRoutes {
            spliced,
            as_text,
            // `inline`: the lines end the first text block instead of opening a block of
            // their own.
            inline: as_text && placement.mode.in_first_block(),
        }
    }
}

/// The first text block's text: the body (a wrapped body's text) or the failure's
/// message, its string left open for inline notes. Returns whether it is an error.
fn write_text(out: &mut Vec<u8>, result: &Result<Structured, Failure>) -> bool {
    match result {
        Ok(structured) => {
            match structured.escapes() {
                _ if structured.is_wrapped() => write_str(out, &structured.text()),
                Some(sites) => escape::write_at_sites(out, structured.body(), sites.offsets()),
                None => escape::write_utf8_str(out, structured.body()),
            }
            false
        }
        Err(failure) => {
            write_str(out, &failure.message);
            true
        }
    }
}

/// The notes as text: ending the first block (which this closes), or as a block of
/// their own after it.
fn write_notes_text(out: &mut Vec<u8>, notes: &[String], routes: NoteRoutes) {
    if routes.inline {
        append_to_string(out, &format!("\n\n{}", super::notes_text(notes)));
    }
    out.push(b'}');
    if routes.as_text && !routes.inline {
        out.extend_from_slice(br#",{"type":"text","text":"#);
        write_str(out, &super::notes_text(notes));
        out.push(b'}');
    }
}

/// `structuredContent`: the checked body as it arrived (a wrapped one under `result`),
/// the notes `member` spliced in before its closing brace when it takes them.
fn write_structured_content(
    out: &mut Vec<u8>,
    structured: &Structured,
    member: Option<(&str, &[String])>,
) {
    out.extend_from_slice(br#","structuredContent":"#);
    if structured.is_wrapped() {
        out.extend_from_slice(br#"{"result":"#);
        out.extend_from_slice(structured.body());
        if let Some((name, notes)) = member {
            out.push(b',');
            write_member(out, name, notes);
        }
        out.push(b'}');
    } else {
        match member.zip(object_close(structured.body())) {
            Some(((name, notes), close)) => {
                write_into(out, structured.body(), close, |out| {
                    write_member(out, name, notes);
                });
            }
            None => out.extend_from_slice(structured.body()),
        }
    }
}

/// `_meta`: a failure's text first, then the signals; closes the answer.
fn write_meta(out: &mut Vec<u8>, failure: Option<&Failure>, signals: &CallSignals) {
    out.extend_from_slice(br#","_meta":{"#);
    if let Some(failure) = failure {
        write_str(out, ERROR_META_KEY);
        out.push(b':');
        write_str(out, &failure.message);
        out.push(b',');
    }
    write_str(out, SIGNALS_META_KEY);
    out.push(b':');
    // Writing plain structs into a `Vec` cannot fail.
    let _ = serde_json::to_writer(&mut *out, signals);
    out.extend_from_slice(b"}}}");
}

/// Where a result's structured object is read when it travels as structured content.
const STRUCTURED_CONTENT: &str = "structuredContent";

/// The member name toolgate's notes take when none is configured, which an upstream
/// could still write to pass for toolgate.
const DEFAULT_NOTES_MEMBER: &str = "toolgate";

/// When the upstream's own object `structured` has a top-level member of the name
/// toolgate's notes take, toolgate's notes cannot go there, and a client or model
/// reading that member would take the upstream's words for toolgate's: a first note,
/// in toolgate's voice, says whose it is. The member itself is the upstream's data (its
/// contract may require it) and is passed on unchanged.
///
/// `read_as` names where the model reads the object: [`STRUCTURED_CONTENT`], or the
/// answer's JSON in the text block when structured content is off.
///
/// Returns whether the upstream's object has that member, so callers need not read the
/// body for it again.
fn mark_upstream_member(
    structured: &[u8],
    placement: NotesPlacement,
    read_as: &str,
    notes: &mut Vec<String>,
) -> bool {
    let name = placement.member.unwrap_or(DEFAULT_NOTES_MEMBER);
    let owned = object_close(structured).is_some() && has_top_level_key(structured, name);
    if owned {
        notes.insert(
            0,
            format!(
                "the \"{name}\" member of {read_as} was written by the upstream, not by \
                 toolgate; toolgate's notes are only these lines"
            ),
        );
    }
    owned
}

/// For a body that is one JSON object: the index of its closing brace, and whether the
/// object is empty. `None` for anything else.
fn object_close(body: &[u8]) -> Option<(usize, bool)> {
    let is_ws = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let open = body.iter().position(|b| !is_ws(b))?;
    let close = body.iter().rposition(|b| !is_ws(b))?;
    if body[open] != b'{' || body[close] != b'}' || close <= open {
        return None;
    }
    let empty = body[open + 1..close].iter().all(is_ws);
    Some((close, empty))
}

/// The object `raw`, its members, then those `members` writes before its closing
/// brace (`close`: where it is, and whether the object was empty).
fn write_into(
    out: &mut Vec<u8>,
    raw: &[u8],
    (close, empty): (usize, bool),
    members: impl FnOnce(&mut Vec<u8>),
) {
    out.extend_from_slice(&raw[..close]);
    if !empty {
        out.push(b',');
    }
    members(out);
    out.extend_from_slice(&raw[close..]);
}

/// Appends `"name":{"notes":[…]}`.
fn write_member(out: &mut Vec<u8>, name: &str, notes: &[String]) {
    write_str(out, name);
    out.extend_from_slice(br#":{"notes":["#);
    for (i, note) in notes.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_str(out, note);
    }
    out.extend_from_slice(b"]}");
}

/// Continues the JSON string that `out` ends with (its closing quote) with `s`.
fn append_to_string(out: &mut Vec<u8>, s: &str) {
    if out.last() != Some(&b'"') {
        return;
    }
    out.pop();
    let at = out.len();
    write_str(out, s);
    // Drop the opening quote `write_str` wrote; its closing quote ends the string.
    out.remove(at);
}

/// Appends `s` as a JSON string (quoted and escaped).
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    escape::write_utf8_str(out, s.as_bytes());
}

#[cfg(test)]
mod tests;
