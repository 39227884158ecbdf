//! What a server writes to the agent during a call, beside its result: a progress
//! notification's `message`, a log message's `data` and `logger`, an elicitation's `message` and its
//! fields' words, a sampling request's messages and system prompt.
//!
//! Each reaches the agent's client while toolgate relays the call, and a client may show
//! it to the model or the user as it shows toolgate's notes. A line of it that reads as
//! toolgate's own note (`toolgate: …`, in any disguise [`note_lines`] knows) is marked
//! as the server's, as in a tool's result: the server must not borrow toolgate's voice
//! on the side channel either.

use serde_json::Value;

use super::note_lines;

/// The members of `method`'s params a client shows as text; every string in them is
/// read (a log message's `data` may be any JSON).
fn shown(method: &str) -> &'static [&'static str] {
    match method {
        "notifications/progress" => &["message"],
        // A logger named `toolgate` would pass for toolgate's own closing message.
        "notifications/message" => &["data", "logger"],
        "elicitation/create" => &["message", "requestedSchema"],
        "sampling/createMessage" => &["messages", "systemPrompt"],
        _ => &[],
    }
}

/// Marks, in `params` of a message relayed as `method`, every line of its shown text
/// that reads as a toolgate note.
pub(super) fn mark(method: &str, params: Option<&mut Value>) {
    let Some(Value::Object(params)) = params else {
        return;
    };
    // Iterative, so nesting costs no stack (the client crate bounds it anyway).
    let mut pending: Vec<&mut Value> = params
        .iter_mut()
        .filter(|(key, _)| shown(method).contains(&key.as_str()))
        .map(|(_, value)| value)
        .collect();
    while let Some(value) = pending.pop() {
        match value {
            Value::String(text) => {
                if let Some(marked) = note_lines::marked(text) {
                    *text = marked;
                }
            }
            Value::Array(items) => pending.extend(items.iter_mut()),
            Value::Object(members) => pending.extend(members.values_mut()),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}
