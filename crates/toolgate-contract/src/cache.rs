//! Compiling each distinct contract of a config once.

use std::collections::HashMap;
use std::sync::Arc;

use jsonschema::PatternCache;
use serde_json::Value;

use crate::files::SchemaFiles;
use crate::shared::SharedSchemas;
use crate::validate::{
    Compiled, ContractError, ResponseContract, has_external_ref, has_shared_ref,
};

/// Compiled contracts by schema text, for the contracts of one config load.
///
/// Why: an imported API answers many operations with the same schema (a resource's item
/// or collection; Microsoft Graph's 11,320 operations use 982 distinct response schemas),
/// and compiling one compiles every shared component it reaches, again for each tool.
/// Only schemas that read no file are kept, so the text and the component set decide the
/// result. A schema that fails to compile is not kept: the next tool gets its own error.
#[derive(Debug, Default)]
pub struct ContractCache {
    /// The components every contract of the config compiles against.
    shared: Option<Arc<SharedSchemas>>,
    by_text: HashMap<String, Arc<Compiled>>,
    /// The `pattern`s of every contract compiled through the cache, each compiled once
    /// (the components' own cache when there are components).
    patterns: PatternCache,
}

impl ContractCache {
    /// An empty cache for contracts that compile against `shared`.
    pub fn new(shared: Option<Arc<SharedSchemas>>) -> Self {
        let patterns = shared
            .as_ref()
            .map_or_else(PatternCache::new, |s| s.patterns().clone());
        ContractCache {
            shared,
            by_text: HashMap::new(),
            patterns,
        }
    }

    /// Like [`ResponseContract::compile_shared`] with the cache's components, compiling
    /// each distinct schema text once.
    pub fn compile(
        &mut self,
        schema: &Value,
        base_dir: Option<&std::path::Path>,
        files: &SchemaFiles,
    ) -> Result<ResponseContract, ContractError> {
        let shared = self.shared.as_ref();
        if has_external_ref(schema) {
            return ResponseContract::compile_sharing(
                schema,
                base_dir,
                files,
                shared,
                &self.patterns,
            );
        }
        let text = schema.to_string();
        if let Some(compiled) = self.by_text.get(&text) {
            let shared = shared.filter(|_| has_shared_ref(schema));
            return Ok(ResponseContract::from_parts(compiled.clone(), shared));
        }
        let contract =
            ResponseContract::compile_sharing(schema, base_dir, files, shared, &self.patterns)?;
        self.by_text.insert(text, contract.compiled.clone());
        Ok(contract)
    }

    /// Where every `pattern` compiled through the cache is kept: an input schema compiled
    /// with it shares the contracts' compiled regular expressions.
    pub fn patterns(&self) -> &PatternCache {
        &self.patterns
    }

    /// The components the cache's contracts compile against.
    pub fn shared(&self) -> Option<&Arc<SharedSchemas>> {
        self.shared.as_ref()
    }

    /// How many distinct schemas were compiled.
    pub fn len(&self) -> usize {
        self.by_text.len()
    }

    /// Whether nothing was compiled yet.
    pub fn is_empty(&self) -> bool {
        self.by_text.is_empty()
    }
}

#[cfg(test)]
mod tests;
