//! A pending definition change of an upstream MCP server as a model may read it: which
//! kind of change to which pinned definition, never the upstream's new words, which are
//! what awaits review. Apart from the call sentences: these lines describe a server's
//! pins and its open incidents, not one call.

/// One pending definition change as a model may read it: what kind of change, of which
/// pinned tool, prompt or resource template, never the upstream's new words (a changed
/// description is how tool poisoning looks, and the new text is not reviewed). A new
/// definition is not named: its name is the upstream's unreviewed text too.
pub fn definition_change(exposed: &str, change: &toolgate_contract::DefinitionChange) -> String {
    use toolgate_contract::{DefinitionChange as C, DefinitionKind as K};
    let kind = change.definition_kind();
    let inner = match change {
        C::Prompt(inner) | C::ResourceTemplate(inner) => inner.as_ref(),
        other => other,
    };
    let of = match kind {
        K::Tool => String::new(),
        other => format!("{} ", other.noun()),
    };
    let part = match inner {
        C::Added { .. } => {
            return format!(
                "a new {} is listed upstream; it is not served until it is pinned (pending review)",
                kind.noun()
            );
        }
        C::Removed { .. } => {
            return format!("{of}{exposed} is no longer listed upstream (pending review)");
        }
        C::Description { .. } => "the description",
        C::Title { .. } => "the title",
        C::InputSchema { .. } if kind == K::Prompt => "the arguments",
        C::InputSchema { .. } => "the input schema",
        C::OutputSchema { .. } => "the output schema",
        C::Annotations { .. } if kind == K::ResourceTemplate => "the details",
        C::Annotations { .. } | C::Prompt(_) | C::ResourceTemplate(_) => "the annotations",
    };
    // What the hints now allow is told in toolgate's words, never the server's.
    let widened = inner.widens();
    if kind == K::Tool && !widened.is_empty() {
        return format!(
            "{part} of {exposed} changed upstream: it now says it may {} (pending review)",
            widened.join(", ")
        );
    }
    format!("{part} of {of}{exposed} changed upstream (pending review)")
}

/// Whether every change of an incident is a new definition of one kind: its name is
/// then the upstream's unreviewed text, and the kind is what a model is told.
pub fn all_new(kinds: &[&str]) -> Option<toolgate_contract::DefinitionKind> {
    let (first, _) = toolgate_contract::DefinitionKind::of_change_kind(kinds.first()?);
    kinds
        .iter()
        .all(|k| toolgate_contract::DefinitionKind::of_change_kind(k) == (first, "added"))
        .then_some(first)
}

/// The model's line for an open definition-drift incident of `tool`, from the kinds of
/// change its detail lists (the stored title quotes the changed text, for people).
pub fn definition_incident(tool: &str, dependency: &str, kinds: &[&str]) -> String {
    if kinds.is_empty() {
        return format!(
            "MCP server {dependency} lists tools toolgate refuses (over its limits, or unreadable); they are not served"
        );
    }
    if let Some(kind) = all_new(kinds) {
        return format!(
            "a new {} on MCP server {dependency} is not pinned (pending review)",
            kind.noun()
        );
    }
    let mut parts: Vec<&str> = kinds
        .iter()
        .map(
            |k| match toolgate_contract::DefinitionKind::of_change_kind(k).1 {
                "removed" => "no longer listed",
                "description" => "description",
                "title" => "title",
                "arguments" => "arguments",
                "input_schema" => "input schema",
                "output_schema" => "output schema",
                "annotations" => "annotations",
                "details" => "details",
                _ => "definition",
            },
        )
        .collect();
    parts.dedup();
    format!(
        "{tool}: definition changed on MCP server {dependency} ({}; pending review)",
        parts.join(", ")
    )
}
