//! The MCP surface: one server ([`dispatch::Server`]) answers every request, over
//! streamable HTTP ([`http`]) and over stdio ([`stdio`]). toolgate owns both transports;
//! `rmcp` is used for its message types only (`rmcp::model`: tools, server info,
//! capabilities, discovery), so an rmcp upgrade touches the shapes, not the rules.
//!
//! A tool call's answer is written once, by [`answer::tool_call`], from the checked
//! upstream bytes. What toolgate sends a client unasked goes through [`outbound`]: a
//! request's own notifications and questions ([`outbound::Outbound`]) and notifications
//! to every client ([`outbound::Broadcast`]).

pub mod answer;
pub mod dispatch;
pub mod envelope;
mod exact_numbers;
pub mod http;
pub mod jsonrpc;
pub mod listen;
pub mod outbound;
pub mod stdio;
#[cfg(test)]
mod tests_upstream;

use std::sync::Arc;

use rmcp::model::{JsonObject, MetaObject, Tool, ToolAnnotations};
use serde_json::{Value, json};

use toolgate_config::ToolSpec;

/// `_meta` key under which every result carries its signals.
pub const SIGNALS_META_KEY: &str = "dev.toolgate/signals";

/// `_meta` key under which a failed result repeats its failure text, ahead of the
/// signals: a client that hands the model a dump of the whole result (llama-index's
/// repr of it opens with `meta=`) then still shows the failure first.
pub const ERROR_META_KEY: &str = "dev.toolgate/error";

/// Prefix of every note line in a result's text content.
pub const NOTE_PREFIX: &str = "toolgate: ";

/// The built-in `dependency_health` tool.
pub(crate) fn health_tool() -> Tool {
    let input = json!({
        "type": "object",
        "properties": { "dependency": { "type": "string", "description": "Only this dependency (default: all)." } }
    });
    let output = json!({
        "type": "object",
        "required": ["dependencies"],
        "properties": { "dependencies": { "type": "object", "additionalProperties": { "type": "object" } } }
    });
    let as_object = |v: Value| match v {
        Value::Object(m) => m,
        _ => JsonObject::new(),
    };
    Tool::new(
        toolgate_engine::health::TOOL_NAME,
        "Health of the APIs behind this server's tools: status (healthy/degraded/down/unknown), latency against \
         baseline, error rate, quota left, circuit breaker, status page, deprecations, open incidents, and advice. \
         Call it before a burst of calls or after a failure to decide whether to wait, slow down or use another tool.",
        Arc::new(as_object(input)),
    )
    .with_raw_output_schema(Arc::new(as_object(output)))
    .with_annotations(ToolAnnotations::new().read_only(true).idempotent(true).open_world(false))
}

/// The tool as listed. When its notes may travel inside `structuredContent`, the
/// `outputSchema` declares the notes member as an optional property, so a client that
/// validates `structuredContent` (the SDKs do, even with `additionalProperties: false`
/// upstream) accepts a result that carries notes.
pub(crate) fn describe(spec: &ToolSpec) -> Tool {
    let mut output = spec.contract.output_schema.clone();
    if let Some(member) = structured_notes_member(spec) {
        // The upstream cannot send a member of that name if the schema closes the object
        // (or toolgate built the object, wrapping a non-object body), so only then is the
        // member's shape declared: a body the contract accepts must still validate
        // against what is advertised, and an open schema lets the upstream send its own
        // `toolgate` of any shape (which is then sent as it came, notes going as text).
        let closed = spec.contract.wraps_result
            || (output.get("additionalProperties") == Some(&Value::Bool(false))
                && !output.contains_key("patternProperties"));
        let properties = output
            .entry("properties")
            .or_insert_with(|| Value::Object(JsonObject::new()));
        if let Value::Object(p) = properties {
            p.insert(member.into(), notes_property(closed));
        }
    }
    let mut tool = Tool::new(
        spec.name.clone(),
        spec.description.clone(),
        Arc::new(spec.input_schema.clone()),
    );
    // An upstream MCP tool without an outputSchema has none to advertise (its results
    // carry no structuredContent for one to describe).
    if spec.contract.advertised {
        tool = tool.with_raw_output_schema(Arc::new(output));
    }
    if let Some(title) = &spec.title {
        tool = tool.with_title(title.clone());
    }
    let a = spec.annotations;
    if a != Default::default() {
        let mut ann = ToolAnnotations::new();
        ann.read_only_hint = a.read_only;
        ann.destructive_hint = a.destructive;
        ann.idempotent_hint = a.idempotent;
        ann.open_world_hint = a.open_world;
        tool = tool.with_annotations(ann);
    }
    let mut meta = JsonObject::new();
    meta.insert(
        "dev.toolgate/contract".into(),
        json!({ "version": spec.contract.version, "owner": spec.owner, "dependency": spec.dependency.name }),
    );
    tool.with_meta(MetaObject(meta))
}

/// The member of `structuredContent` this tool's notes go into, if they go there.
pub fn structured_notes_member(spec: &ToolSpec) -> Option<&'static str> {
    spec.notes_member.filter(|_| spec.notes.in_structured())
}

/// The schema of the notes member as an `outputSchema` declares it: its shape when
/// `typed`, else a description only (it accepts whatever an upstream sends under that
/// name).
pub fn notes_property(typed: bool) -> Value {
    let description = "Added by toolgate only when the call has notes for you, as {\"notes\": [\"…\"]}: \
                       quota left, a deprecation or sunset, a slow or failing upstream. Read them before \
                       calling again.";
    if typed {
        json!({
            "type": "object",
            "description": description,
            "properties": { "notes": { "type": "array", "items": { "type": "string" } } }
        })
    } else {
        json!({ "description": description })
    }
}

/// The notes as one text block, a `toolgate:` line each.
pub fn notes_text(notes: &[String]) -> String {
    let lines: Vec<String> = notes.iter().map(|n| format!("{NOTE_PREFIX}{n}")).collect();
    lines.join("\n")
}
