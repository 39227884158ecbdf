//! What a server writes to the agent during a call, beside its result: a progress
//! notification's `message`, a log message's `data`, `logger` and `level`, an
//! elicitation's `message` and its fields' words, a sampling request's messages, system
//! prompt and the tools it offers the agent's model (MCP 2025-11-25: their names,
//! titles, descriptions and schemas are the server's unpinned words, read by the model
//! as any tool's).
//!
//! Each reaches the agent's client while toolgate relays the call, and a client may show
//! it to the model or the user as it shows toolgate's notes. A line of it that reads as
//! toolgate's own note (`toolgate: …`, in any disguise [`note_lines`] knows) is marked
//! as the server's, as in a tool's result: the server must not borrow toolgate's voice
//! on the side channel either.
//!
//! Nor may it say there what the user cannot see: invisible characters (tags of the
//! U+E0000 block, zero-width and bidirectional controls, [`toolgate_contract::is_invisible`])
//! and control characters other than a tab or a line break (an ANSI escape's `ESC`,
//! a backspace) are dropped, as from the other text
//! an upstream sends that reaches a model outside a pinned definition. A model reads
//! text spelt in tag characters that a person shown the same message does not.

use serde_json::Value;

use super::note_lines;

/// The members of `method`'s params a client shows as text; every string in them is
/// read (a log message's `data` may be any JSON).
fn shown(method: &str) -> &'static [&'static str] {
    match method {
        "notifications/progress" => &["message"],
        // A logger named `toolgate` would pass for toolgate's own closing message.
        // A level is one of eight words; one that is not is shown as written.
        "notifications/message" => &["data", "logger", "level"],
        "elicitation/create" => &["message", "requestedSchema"],
        "sampling/createMessage" => &["messages", "systemPrompt", "tools", "toolChoice"],
        _ => &[],
    }
}

/// Drops, from `params` of a message relayed as `method`, every hidden character of
/// its shown text, and marks every line of it that reads as a toolgate note.
pub(super) fn mark(method: &str, params: Option<&mut Value>) {
    let Some(Value::Object(params)) = params else {
        return;
    };
    for (_, value) in params
        .iter_mut()
        .filter(|(key, _)| shown(method).contains(&key.as_str()))
    {
        clean_words(value);
    }
}

/// Every string and member name of `value`, at any depth, without hidden characters
/// and with its lines that read as toolgate's notes marked: the rule for words a
/// server writes outside a result (also an error's `data`, which a client may show).
pub(crate) fn clean_words(value: &mut Value) {
    // Iterative, so nesting costs no stack (the client crate bounds it anyway).
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            Value::String(text) => clean_text(text),
            Value::Array(items) => pending.extend(items.iter_mut()),
            Value::Object(members) => {
                if members.keys().any(|name| needs_cleaning(name)) {
                    *members = std::mem::take(members)
                        .into_iter()
                        .map(|(mut name, v)| {
                            clean_text(&mut name);
                            (name, v)
                        })
                        .collect();
                }
                pending.extend(members.values_mut());
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

fn needs_cleaning(text: &str) -> bool {
    text.chars().any(hidden) || note_lines::marked(text).is_some()
}

fn clean_text(text: &mut String) {
    if text.chars().any(hidden) {
        text.retain(|c| !hidden(c));
    }
    if let Some(marked) = note_lines::marked(text) {
        *text = marked;
    }
}

/// A character a person shown the text does not see as written: an invisible one, or
/// a control character (C0, `DEL` and C1) other than a tab or a line break. A line
/// break stays: [`note_lines`] reads a line after any of them, a carriage return
/// included, so one that would rewrite a terminal's line with a note is marked.
pub(crate) fn hidden(c: char) -> bool {
    (c.is_control() && c != '\t' && !note_lines::is_line_break(c))
        || toolgate_contract::is_invisible(c)
}
