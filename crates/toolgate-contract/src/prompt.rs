//! Pinned MCP prompt definitions: what `prompts/list` says of each prompt (name, title,
//! description, arguments), compared with its pin like a tool's definition.
//!
//! A prompt's description and its arguments' descriptions are text an upstream wrote
//! that a client shows its user or hands its model, so a prompt redeployed with new
//! words is the same rug pull as a poisoned tool description. The comparison reuses the
//! tool's: the arguments are read as the input schema they amount to (an object whose
//! properties are the arguments, `required` the required ones), so a renamed argument is
//! reported as probably renamed, a new required one as breaking, a changed argument
//! description as the changed text it is.

use crate::definition::{
    DefinitionChange, DefinitionKind, PinnedDefinition, ToolDefinition, compare, kind_of,
    refuse_hidden_name,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// One MCP `Prompt` as listed by `prompts/list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptDefinition {
    /// The prompt's name, unique per server.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes, in the server's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arguments: Vec<PromptArgument>,
}

/// One argument of a prompt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptArgument {
    /// The argument's name.
    pub name: String,
    /// Display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What to pass.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub required: bool,
}

impl PinnedDefinition for PromptDefinition {
    const KIND: DefinitionKind = DefinitionKind::Prompt;
    fn key(&self) -> &str {
        &self.name
    }
}

impl PromptDefinition {
    /// Reads one entry of a `prompts/list` result. Unknown fields (`_meta`, `icons`) are
    /// ignored; `null` counts as absent. A wrong shape, or a name (the prompt's or an
    /// argument's) with a control, space or hidden character, is an error naming it.
    pub fn from_mcp(prompt: &Value) -> Result<PromptDefinition, String> {
        let Value::Object(obj) = prompt else {
            return Err(format!(
                "a prompt definition must be a JSON object, got {}",
                kind_of(prompt)
            ));
        };
        let name = name_of(obj, "prompt")?;
        let shown = refuse_hidden_name("prompt", &name)?;
        let arguments = match obj.get("arguments") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    argument(a).map_err(|e| format!("prompt `{shown}`: arguments[{i}]: {e}"))
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format!(
                    "prompt `{shown}`: `arguments` must be an array, got {}",
                    kind_of(other)
                ));
            }
        };
        Ok(PromptDefinition {
            title: text(obj, "title").map_err(|e| format!("prompt `{shown}`: {e}"))?,
            description: text(obj, "description").map_err(|e| format!("prompt `{shown}`: {e}"))?,
            arguments,
            name,
        })
    }

    /// The prompt as `prompts/list` lists it, under `name` (the exposed one).
    pub fn to_mcp(&self, name: &str) -> Value {
        let mut out = Map::new();
        out.insert("name".into(), json!(name));
        if let Some(t) = &self.title {
            out.insert("title".into(), json!(t));
        }
        if let Some(d) = &self.description {
            out.insert("description".into(), json!(d));
        }
        if !self.arguments.is_empty() {
            out.insert(
                "arguments".into(),
                Value::Array(
                    self.arguments
                        .iter()
                        .map(|a| serde_json::to_value(a).unwrap_or(Value::Null))
                        .collect(),
                ),
            );
        }
        Value::Object(out)
    }

    /// The prompt in the shape a tool's definition has, its arguments as the input
    /// schema they amount to: what the comparison reads.
    fn as_tool(&self) -> ToolDefinition {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for a in &self.arguments {
            let mut p = Map::new();
            if let Some(t) = &a.title {
                p.insert("title".into(), json!(t));
            }
            if let Some(d) = &a.description {
                p.insert("description".into(), json!(d));
            }
            properties.insert(a.name.clone(), Value::Object(p));
            if a.required {
                required.push(json!(a.name));
            }
        }
        let mut schema = Map::new();
        schema.insert("type".into(), json!("object"));
        schema.insert("properties".into(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".into(), Value::Array(required));
        }
        ToolDefinition {
            name: self.name.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            input_schema: Value::Object(schema),
            output_schema: None,
            annotations: None,
        }
    }
}

pub(crate) fn name_of(obj: &Map<String, Value>, what: &str) -> Result<String, String> {
    match obj.get("name") {
        Some(Value::String(n)) if !n.is_empty() => Ok(n.clone()),
        Some(Value::String(_)) => Err(format!("the {what}'s `name` is empty")),
        None | Some(Value::Null) => Err(format!("the {what} has no `name`")),
        Some(other) => Err(format!(
            "the {what}'s `name` must be a string, got {}",
            kind_of(other)
        )),
    }
}

pub(crate) fn text(obj: &Map<String, Value>, field: &str) -> Result<Option<String>, String> {
    match obj.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!(
            "`{field}` must be a string, got {}",
            kind_of(other)
        )),
    }
}

fn argument(a: &Value) -> Result<PromptArgument, String> {
    let Value::Object(obj) = a else {
        return Err(format!(
            "an argument must be a JSON object, got {}",
            kind_of(a)
        ));
    };
    let name = name_of(obj, "argument")?;
    let shown = refuse_hidden_name("argument", &name)?;
    let required = match obj.get("required") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => {
            return Err(format!(
                "argument `{shown}`: `required` must be a boolean, got {}",
                kind_of(other)
            ));
        }
    };
    Ok(PromptArgument {
        title: text(obj, "title").map_err(|e| format!("argument `{shown}`: {e}"))?,
        description: text(obj, "description").map_err(|e| format!("argument `{shown}`: {e}"))?,
        required,
        name,
    })
}

/// Every difference between the pinned and the live prompts, each a
/// [`DefinitionChange::Prompt`], sorted by prompt name like [`compare`]'s.
pub fn compare_prompts(
    pinned: &[PromptDefinition],
    live: &[PromptDefinition],
) -> Vec<DefinitionChange> {
    let pinned: Vec<ToolDefinition> = pinned.iter().map(PromptDefinition::as_tool).collect();
    let live: Vec<ToolDefinition> = live.iter().map(PromptDefinition::as_tool).collect();
    compare(&pinned, &live)
        .into_iter()
        .map(|c| DefinitionChange::Prompt(Box::new(c)))
        .collect()
}
