//! A tool spec from an upstream MCP server's pinned tool definition: the same
//! `ToolSpec` an HTTP tool compiles to, so the call path, `tools/list`, health, probes
//! and alerts treat both alike.
//!
//! Upstream schemas are untrusted input: they are compiled without any `$ref`
//! retrieval (a hostile `{"$ref": "file:///etc/passwd"}` reads nothing), and an input
//! schema that does not compile leaves argument checking to the upstream rather than
//! hiding the tool.

use std::sync::Arc;

use serde_json::{Map, Value, json};
use toolgate_contract::{ResponseContract, SchemaFiles};

use toolgate_config::{
    Annotations, Contract, ContractOrigin, McpServerSpec, OnDrift, ToolKind, ToolSpec,
    notes_member, valid_tool_name,
};

/// The parts of an MCP tool definition a spec is built from.
#[derive(Debug, Clone, Copy)]
pub struct Definition<'a> {
    /// The upstream's name.
    pub name: &'a str,
    /// `title`.
    pub title: Option<&'a str>,
    /// `description`.
    pub description: Option<&'a str>,
    /// `inputSchema`.
    pub input_schema: &'a Value,
    /// `outputSchema`.
    pub output_schema: Option<&'a Value>,
    /// `annotations`.
    pub annotations: Option<&'a Value>,
}

/// The spec of upstream tool `def` of `server`, whose pinned version is `version`.
/// An error names why the tool cannot be exposed (its name, or an output schema that
/// does not compile and so could not be checked).
pub fn tool_spec(
    server: &McpServerSpec,
    def: &Definition<'_>,
    version: &str,
) -> Result<ToolSpec, String> {
    let name = server.exposed_name(def.name);
    if !valid_tool_name(&name) {
        return Err(format!(
            "`{name}` is not a valid MCP tool name (1–64 letters, digits, `_`, `-` or `.`)"
        ));
    }
    let overrides = server.tools.get(def.name).cloned().unwrap_or_default();
    let input_schema = served_input_schema(def)?;
    let input_validator = input_validator(server, def)?;
    let contract = match (overrides.contract, def.output_schema) {
        (Some(c), _) => c,
        (None, Some(schema)) => output_contract(schema, version).map_err(|e| {
            format!(
                "`{}` has an outputSchema toolgate cannot check: {e}",
                def.name
            )
        })?,
        (None, None) => unadvertised_contract(server, version)?,
    };
    let notes_member = if contract.advertised {
        notes_member(&contract.output_schema)
    } else {
        None
    };
    let hint = |k: &str| {
        def.annotations
            .and_then(|a| a.get(k))
            .and_then(Value::as_bool)
    };
    Ok(ToolSpec {
        name,
        dependency: server.dependency.clone(),
        owner: overrides.owner.unwrap_or_else(|| server.owner.clone()),
        description: def.description.unwrap_or_default().to_string(),
        title: def.title.map(str::to_string),
        kind: ToolKind::Mcp {
            server: server.name.clone(),
            tool: def.name.to_string(),
        },
        annotations: Annotations {
            read_only: hint("readOnlyHint"),
            destructive: hint("destructiveHint"),
            idempotent: hint("idempotentHint"),
            open_world: hint("openWorldHint"),
        },
        input_schema,
        input_validator: Arc::new(input_validator),
        contract,
        probe: overrides.probe,
        successor: None,
        deadline: overrides.deadline.unwrap_or(server.deadline),
        notes: overrides.notes.unwrap_or(server.notes),
        notes_member,
    })
}

/// `def`'s input schema as served to clients.
fn served_input_schema(def: &Definition<'_>) -> Result<Map<String, Value>, String> {
    let mut input_schema = match def.input_schema {
        Value::Object(m) => m.clone(),
        _ => {
            return Err(format!(
                "`{}` has an inputSchema that is not an object",
                def.name
            ));
        }
    };
    // `properties` is optional in MCP and means the same absent as `{}`, but some agent
    // frameworks refuse an object schema without it (qwen-agent drops every tool of the
    // server for one such schema), so it is served spelled out.
    if input_schema.get("type") == Some(&Value::String("object".into()))
        && !input_schema.contains_key("properties")
    {
        input_schema.insert("properties".into(), Value::Object(Map::new()));
    }
    Ok(input_schema)
}

/// The check of `def`'s arguments; one that lets everything through (logged) when its
/// inputSchema does not compile.
fn input_validator(
    server: &McpServerSpec,
    def: &Definition<'_>,
) -> Result<jsonschema::Validator, String> {
    match jsonschema::options()
        .with_retriever(SchemaFiles::none())
        .build(def.input_schema)
    {
        Ok(v) => Ok(v),
        Err(e) => {
            tracing::warn!(server = %server.name, tool = def.name, error = %e,
                "the upstream tool's inputSchema does not compile; its arguments are checked by the upstream only");
            jsonschema::validator_for(&json!({})).map_err(|e| e.to_string())
        }
    }
}

/// The contract of a tool with no outputSchema and none configured: nothing to check.
fn unadvertised_contract(server: &McpServerSpec, version: &str) -> Result<Contract, String> {
    Ok(Contract {
        version: version.to_string(),
        response: ResponseContract::compile(&json!({}), None).map_err(|e| e.to_string())?,
        output_schema: Map::new(),
        wraps_result: false,
        advertised: false,
        // No outputSchema: learned from its results (structuredContent, or the JSON
        // in its text block), unless learning is off.
        origin: if server.learn.is_some() {
            ContractOrigin::Learned
        } else {
            ContractOrigin::None
        },
        on_drift: OnDrift::Warn,
        learn: server.learn,
    })
}

/// The contract a pinned `outputSchema` makes: `structuredContent` must match it.
fn output_contract(schema: &Value, version: &str) -> Result<Contract, String> {
    let Value::Object(map) = schema else {
        return Err("it is not an object schema".into());
    };
    let response = ResponseContract::compile_with(schema, None, &SchemaFiles::none())
        .map_err(|e| e.to_string())?;
    Ok(Contract {
        version: version.to_string(),
        response,
        output_schema: map.clone(),
        wraps_result: false,
        advertised: true,
        origin: ContractOrigin::Pinned,
        on_drift: OnDrift::Fail,
        learn: None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::{Definition, tool_spec};

    fn served(input: &Value) -> Value {
        let config = crate::fixtures::config(
            "mcp_servers:\n  kb: { url: 'http://127.0.0.1:9/mcp', owner: kb@example.com }\n",
        );
        let def = Definition {
            name: "search",
            title: None,
            description: Some("Searches."),
            input_schema: input,
            output_schema: None,
            annotations: None,
        };
        let spec =
            tool_spec(&config.mcp_servers["kb"], &def, "1").unwrap_or_else(|e| panic!("{e}"));
        Value::Object(spec.input_schema)
    }

    #[test]
    fn an_object_schema_without_properties_is_served_with_them_spelled_out() {
        assert_eq!(
            served(&json!({"type": "object"})),
            json!({"type": "object", "properties": {}})
        );
        assert_eq!(
            served(&json!({"type": "object", "required": [], "additionalProperties": false})),
            json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
        );
        // What a schema says is kept as it came.
        let full =
            json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
        assert_eq!(served(&full), full);
    }
}
