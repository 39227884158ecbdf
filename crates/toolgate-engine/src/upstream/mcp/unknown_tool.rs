//! Whether an MCP server refused a call because it does not know the tool: the tool was
//! removed or renamed on the server while toolgate still serves its pin. Servers say so
//! in three ways — JSON-RPC `-32601` (method not found), `-32602` with a message such as
//! "Unknown tool: search" or "Tool search not found" (what the specification's own
//! example and the TypeScript SDK answer), or a tool result with `isError` and that
//! text (what the Python SDK answers) — and none of them is about the arguments.
//!
//! Reading it lets the server's tools be checked again at once instead of at the next
//! scheduled check, so the removal becomes definition drift for the owner and the tool
//! leaves what agents see, rather than every agent being told to fix its arguments.

use std::borrow::Cow;

use serde::Deserialize;
use toolgate_mcp_client::codes;

use super::{LinkError, LinkReply};

/// How far into a message the words are looked for: the refusal is its first sentence.
const READ_CHARS: usize = 300;

/// Phrases that say a tool is not known ("Unknown tool: search").
const PHRASES: [&str; 4] = [
    "unknown tool",
    "no such tool",
    "invalid tool name",
    "tool not found",
];

/// Words after "tool" and its name that say it is not known ("Tool search not found").
const AFTER: [&str; 6] = [
    "not found",
    "does not exist",
    "doesn't exist",
    "not exist",
    "not registered",
    "is not available",
];

/// The most words a tool's name (and "with name", quotes and all) takes between "tool"
/// and the words after it.
const NAME_WORDS: usize = 3;

/// Whether `text` (a JSON-RPC error's message, or an error result's first text) says
/// that the tool it was asked for is unknown: a phrase that says so, or "tool" followed, within the same clause and a name's few words, by words that say so.
/// "Invalid arguments for tool search: unknown field" and "Tool execution failed:
/// resource not found" are about something else. Reading it wrongly costs one more
/// listing of the server's tools, never a wrong change: the listing decides.
pub fn names_unknown_tool(text: &str) -> bool {
    let head = text
        .chars()
        .take(READ_CHARS)
        .collect::<String>()
        .to_lowercase();
    if PHRASES.iter().any(|p| head.contains(p)) {
        return true;
    }
    head.match_indices("tool").any(|(at, word)| {
        let rest = &head[at + word.len()..];
        // "the tool's input …" speaks of something of the tool's.
        if rest.starts_with("'s") {
            return false;
        }
        // The clause ends at a sentence's full stop, not at a dot inside a name.
        let clause = rest.split([':', ';', ',', '\n']).next().unwrap_or("");
        let clause = clause.split(". ").next().unwrap_or(clause);
        AFTER.iter().any(|phrase| {
            clause
                .find(phrase)
                .is_some_and(|p| clause[..p].split_whitespace().count() <= NAME_WORDS)
        })
    })
}

/// Whether a JSON-RPC error answering a `tools/call` says the server does not know the
/// tool: `-32601`, or `-32602` with words that say so.
pub fn error_names_unknown_tool(code: i64, message: &str) -> bool {
    code == codes::METHOD_NOT_FOUND
        || (code == codes::INVALID_PARAMS && names_unknown_tool(message))
}

/// Whether the server's reply to a `tools/call` says that it does not know the tool.
pub fn refuses_as_unknown(reply: &Result<LinkReply, LinkError>) -> bool {
    match reply.as_ref().map(|r| &r.outcome) {
        Ok(Err(error)) => error_names_unknown_tool(error.code, &error.message),
        Ok(Ok(result)) => error_result_names_unknown_tool(result.get()),
        Err(_) => false,
    }
}

/// For a tool result's JSON text: whether it is an error result whose first text says
/// the tool is unknown. Results that are not errors are told apart by a search of the
/// bytes, without parsing them.
fn error_result_names_unknown_tool(result: &str) -> bool {
    if !says_is_error(result) {
        return false;
    }
    #[derive(Deserialize)]
    struct ErrorResult<'a> {
        #[serde(rename = "isError", default)]
        is_error: bool,
        #[serde(default, borrow)]
        content: Vec<Block<'a>>,
    }
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(default, borrow)]
        text: Option<Cow<'a, str>>,
    }
    serde_json::from_str::<ErrorResult<'_>>(result).is_ok_and(|r| {
        r.is_error
            && r.content
                .iter()
                .find_map(|b| b.text.as_deref())
                .is_some_and(names_unknown_tool)
    })
}

/// Whether `"isError"` is followed by `true` anywhere in the text (whitespace allowed).
fn says_is_error(result: &str) -> bool {
    result.match_indices("\"isError\"").any(|(at, key)| {
        let rest = result[at + key.len()..].trim_start();
        rest.strip_prefix(':')
            .is_some_and(|v| v.trim_start().starts_with("true"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;
    use toolgate_mcp_client::RpcError;

    fn reply(outcome: Result<&str, (i64, &str)>) -> LinkReply {
        LinkReply {
            outcome: match outcome {
                Ok(json) => Ok(RawValue::from_string(json.to_string()).expect("json")),
                Err((code, message)) => Err(RpcError {
                    code,
                    message: message.to_string(),
                    data: None,
                }),
            },
            status: 200,
            headers: http::HeaderMap::new(),
            latency: std::time::Duration::ZERO,
            skipped: Default::default(),
        }
    }

    #[test]
    fn the_ways_servers_say_they_do_not_know_a_tool_are_read() {
        // The specification's example, the TypeScript SDK, and other wordings.
        for (code, message) in [
            (-32602, "Unknown tool: invalid_tool_name"),
            (-32602, "MCP error -32602: Tool search not found"),
            (-32602, "Tool 'search' does not exist"),
            (-32602, "no such tool: search"),
            (-32602, "tool is not registered: search"),
            (-32602, "Tool with name 'search' not found"),
            (-32602, "Invalid tool name: search"),
            (-32602, "Tool 'github.search' not found."),
            (-32601, "Method not found"),
        ] {
            assert!(
                refuses_as_unknown(&Ok(reply(Err((code, message))))),
                "{code} {message}"
            );
        }
        // The Python SDK's error result.
        assert!(refuses_as_unknown(&Ok(reply(Ok(
            r#"{"content":[{"type":"text","text":"Unknown tool: search"}],"isError": true}"#
        )))));
    }

    #[test]
    fn refusals_about_the_arguments_or_the_data_are_not_read_as_an_unknown_tool() {
        for (code, message) in [
            (-32602, "Invalid arguments: `query` must be a string"),
            (-32602, "Unknown field `limt` in arguments"),
            (
                -32602,
                "Invalid arguments for tool search: unknown field `limt`",
            ),
            (-32602, "Invalid tool arguments. Field not found: query"),
            (-32602, "Tool execution failed: resource not found"),
            (-32602, "The tool's input was not found valid"),
            (-32002, "Resource not found: file:///x"),
            (-32603, "Tool execution failed"),
        ] {
            assert!(
                !refuses_as_unknown(&Ok(reply(Err((code, message))))),
                "{code} {message}"
            );
        }
        for result in [
            r#"{"content":[{"type":"text","text":"Unknown tool: search"}],"isError":false}"#,
            r#"{"content":[{"type":"text","text":"Unknown tool: search"}]}"#,
            r#"{"content":[{"type":"text","text":"File not found: a.txt"}],"isError":true}"#,
        ] {
            assert!(!refuses_as_unknown(&Ok(reply(Ok(result)))), "{result}");
        }
        assert!(!refuses_as_unknown(&Err(LinkError::Timeout(
            std::time::Duration::from_secs(1)
        ))));
    }
}
