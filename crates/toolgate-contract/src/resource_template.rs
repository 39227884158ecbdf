//! Pinned MCP resource templates: what `resources/templates/list` says of each template
//! (its URI template, name, title, description, MIME type, annotations), compared with
//! its pin like a tool's definition.
//!
//! A template's description is text an upstream wrote that a client shows its user or
//! hands its model when choosing what to read, so a template redeployed with new words
//! is the same rug pull as a poisoned tool description. A template is named by its URI
//! template — the address it stands for, unique per server; one whose URI template
//! changes is another template (the old one removed, the new one added). The comparison
//! reuses the tool's: the name, MIME type and annotations are read as the details a
//! change to which is reported as one.

use crate::definition::{
    DefinitionChange, DefinitionKind, PinnedDefinition, ToolDefinition, compare, kind_of,
    refuse_hidden,
};
use crate::prompt::{name_of, text};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// One MCP `ResourceTemplate` as listed by `resources/templates/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceTemplateDefinition {
    /// The RFC 6570 URI template: what names the template.
    #[serde(rename = "uriTemplate")]
    pub uri_template: String,
    /// Its programmatic name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources it stands for are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every resource it stands for, when they share one.
    #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Hints for the client (audience, priority), as listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
}

impl PinnedDefinition for ResourceTemplateDefinition {
    const KIND: DefinitionKind = DefinitionKind::ResourceTemplate;
    fn key(&self) -> &str {
        &self.uri_template
    }
}

impl ResourceTemplateDefinition {
    /// Reads one entry of a `resources/templates/list` result. Unknown fields (`_meta`,
    /// `icons`) are ignored; `null` counts as absent, and so does `{}` for annotations.
    /// A wrong shape, a URI template with a control, space or hidden character, or a
    /// name with a control or hidden character, is an error naming it.
    pub fn from_mcp(template: &Value) -> Result<ResourceTemplateDefinition, String> {
        let Value::Object(obj) = template else {
            return Err(format!(
                "a resource template must be a JSON object, got {}",
                kind_of(template)
            ));
        };
        let uri_template = match obj.get("uriTemplate") {
            Some(Value::String(u)) if !u.is_empty() => u.clone(),
            Some(Value::String(_)) => {
                return Err("the resource template's `uriTemplate` is empty".into());
            }
            None | Some(Value::Null) => {
                return Err("the resource template has no `uriTemplate`".into());
            }
            Some(other) => {
                return Err(format!(
                    "the resource template's `uriTemplate` must be a string, got {}",
                    kind_of(other)
                ));
            }
        };
        let shown = refuse_hidden(
            "resource template",
            "URI template",
            &uri_template,
            "a URI template (RFC 6570) holds no spaces: a space in a URI is written `%20`",
        )?;
        let within = |e: String| format!("resource template `{shown}`: {e}");
        let name = name_of(obj, "resource template").map_err(within)?;
        // The name is not what names the template here (the URI template is), and real
        // servers use display names ("Dynamic Text Resource"): spaces are kept, and
        // only what a person cannot see is refused.
        if let Some(c) = name
            .chars()
            .find(|c| c.is_control() || crate::text::is_invisible(*c))
        {
            return Err(within(format!(
                "its name holds U+{:04X}, a hidden character",
                u32::from(c)
            )));
        }
        let annotations = match obj.get("annotations") {
            None | Some(Value::Null) => None,
            Some(Value::Object(a)) if a.is_empty() => None,
            Some(a @ Value::Object(_)) => Some(a.clone()),
            Some(other) => {
                return Err(within(format!(
                    "`annotations` must be an object, got {}",
                    kind_of(other)
                )));
            }
        };
        Ok(ResourceTemplateDefinition {
            name,
            title: text(obj, "title").map_err(within)?,
            description: text(obj, "description").map_err(within)?,
            mime_type: text(obj, "mimeType").map_err(within)?,
            annotations,
            uri_template,
        })
    }

    /// The template as `resources/templates/list` lists it: its pinned words only.
    pub fn to_mcp(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The template in the shape a tool's definition has: what the comparison reads.
    fn as_tool(&self) -> ToolDefinition {
        let mut details = Map::new();
        details.insert("name".into(), json!(self.name));
        if let Some(m) = &self.mime_type {
            details.insert("mimeType".into(), json!(m));
        }
        if let Some(a) = &self.annotations {
            details.insert("annotations".into(), a.clone());
        }
        ToolDefinition {
            name: self.uri_template.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            input_schema: json!({ "type": "object" }),
            output_schema: None,
            annotations: Some(Value::Object(details)),
        }
    }
}

/// Every difference between the pinned and the live resource templates, each a
/// [`DefinitionChange::ResourceTemplate`], sorted by URI template like [`compare`]'s.
pub fn compare_resource_templates(
    pinned: &[ResourceTemplateDefinition],
    live: &[ResourceTemplateDefinition],
) -> Vec<DefinitionChange> {
    let pinned: Vec<ToolDefinition> = pinned
        .iter()
        .map(ResourceTemplateDefinition::as_tool)
        .collect();
    let live: Vec<ToolDefinition> = live
        .iter()
        .map(ResourceTemplateDefinition::as_tool)
        .collect();
    compare(&pinned, &live)
        .into_iter()
        .map(|c| DefinitionChange::ResourceTemplate(Box::new(c)))
        .collect()
}

/// Whether `uri` is one the URI template `template` (RFC 6570) can expand to: its
/// literal text in place, each expression standing for any text — without `/`, `?` or
/// `#` for a simple `{var}` (which percent-encodes them), anything for the others
/// (`{+var}`, `{#var}`, `{/var}`, `{?var}`, …). Reads a template as wide as it may
/// expand, never narrower: it says which server's pinned templates a URI could come
/// from. Linear in the URI's length per part of the template (no backtracking).
pub fn uri_template_matches(template: &str, uri: &str) -> bool {
    let uri = uri.as_bytes();
    // The URI positions the parts read so far can end at.
    let mut reach = vec![false; uri.len() + 1];
    reach[0] = true;
    let mut rest = template;
    while !rest.is_empty() {
        let mut next = vec![false; uri.len() + 1];
        if let Some(expression) = rest.strip_prefix('{') {
            let Some(end) = expression.find('}') else {
                return false;
            };
            let any = expression
                .as_bytes()
                .first()
                .is_some_and(|op| b"+#/;?&.".contains(op));
            rest = &expression[end + 1..];
            let mut from = 0;
            while from <= uri.len() {
                if !reach[from] {
                    from += 1;
                    continue;
                }
                // Every position from here to the first byte the expression cannot
                // stand for; the next reachable start is past them (already marked).
                let mut at = from;
                next[at] = true;
                while at < uri.len() && (any || !matches!(uri[at], b'/' | b'?' | b'#')) {
                    at += 1;
                    next[at] = true;
                }
                from = at.max(from) + 1;
            }
        } else {
            let literal_end = rest.find('{').unwrap_or(rest.len());
            let literal = &rest.as_bytes()[..literal_end];
            rest = &rest[literal_end..];
            for (from, _) in reach.iter().enumerate().filter(|(_, r)| **r) {
                if uri[from..].starts_with(literal) {
                    next[from + literal.len()] = true;
                }
            }
        }
        reach = next;
    }
    reach[uri.len()]
}
