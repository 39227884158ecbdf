//! A tool's input schemas: the one shown to the model, and an optional fuller one
//! (`full_input_schema`) that the arguments are checked against instead.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::compile::Compiler;

/// A compiled input schema: the schema as written and its validator.
type Compiled = (Map<String, Value>, Arc<jsonschema::Validator>);

/// Input validators compiled for one config, by their schema's compact JSON text.
#[derive(Default)]
pub(in crate::compile) struct InputValidators {
    compiled: HashMap<String, Arc<jsonschema::Validator>>,
}

/// Both schemas as compiled, each `None` where it had errors.
pub(super) struct InputSchemas {
    shown: Option<Compiled>,
    full: Option<Option<Compiled>>,
}

impl InputSchemas {
    /// The schema the arguments are checked against, which the request's placeholders
    /// must be declared in: the full one when it is given.
    pub(super) fn checked(&self) -> Option<&Map<String, Value>> {
        let checked = match &self.full {
            Some(f) => f.as_ref(),
            None => self.shown.as_ref(),
        };
        checked.map(|(s, _)| s)
    }

    /// The schema shown and the validator the arguments go through; `None` when either
    /// schema had errors.
    pub(super) fn into_compiled(self) -> Option<Compiled> {
        let (schema, mut validator) = self.shown?;
        if let Some(full) = self.full {
            validator = full?.1;
        }
        Some((schema, validator))
    }
}

impl Compiler<'_> {
    /// A shorter schema for the model, and the full one arguments are checked against.
    pub(super) fn input_schemas(
        &mut self,
        path: &str,
        shown: Option<Value>,
        full: Option<Value>,
    ) -> InputSchemas {
        let shown = self.input_schema(path, shown);
        let full = full.map(|f| self.input_schema_named(path, "full_input_schema", Some(f)));
        InputSchemas { shown, full }
    }

    pub(super) fn input_schema(&mut self, path: &str, raw: Option<Value>) -> Option<Compiled> {
        self.input_schema_named(path, "input_schema", raw)
    }

    fn input_schema_named(
        &mut self,
        path: &str,
        key: &str,
        raw: Option<Value>,
    ) -> Option<Compiled> {
        let schema = raw.unwrap_or_else(|| json!({ "type": "object", "properties": {} }));
        let Value::Object(map) = &schema else {
            self.err(
                format!("{path}.{key}"),
                format!("{key} must be a JSON Schema object"),
                "write `input_schema: { type: object, properties: {...} }`",
            );
            return None;
        };
        if map.get("type").is_some_and(|t| t != "object") {
            self.err(
                format!("{path}.{key}.type"),
                "MCP tool arguments are always an object",
                "set `type: object`",
            );
            return None;
        }
        // Its file $refs obey the same rule as the contract's (see `SchemaFiles`); its
        // patterns are compiled once for the whole config, contracts included; a
        // schema written alike for several tools is compiled once for all of them.
        let text = schema.to_string();
        if let Some(v) = self.input_validators.compiled.get(&text) {
            return Some((map.clone(), v.clone()));
        }
        match jsonschema::draft202012::options()
            .with_retriever(self.files.clone())
            .with_pattern_cache(self.contracts.patterns().clone())
            .build(&schema)
        {
            Ok(v) => {
                let v = Arc::new(v);
                self.input_validators.compiled.insert(text, v.clone());
                Some((map.clone(), v))
            }
            Err(e) => {
                self.err(
                    format!("{path}.{key}"),
                    format!("{key} is not a valid JSON Schema: {e}"),
                    "fix the schema (JSON Schema 2020-12)",
                );
                None
            }
        }
    }
}
