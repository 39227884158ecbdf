//! The API's named schemas as one shared set (`schemas.<set>` in the config): every
//! response contract refers to them as `toolgate:schemas/<set>/<name>` instead of
//! carrying its own copy in `$defs`. A vendor API with a dense component graph (Stripe,
//! GitHub) otherwise writes the whole graph once per tool.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use serde_json::Value;
use toolgate_contract::{ResponseContract, SchemaFiles, SharedSchemas};

use super::keywords::repair;
use super::operations::Tool;
use super::schema::{drop_unusable_patterns, to_shared};

/// The set as written, and compiled for the checks that follow.
#[derive(Debug)]
pub struct Finished {
    /// Component name → schema, references already pointing into the set.
    pub components: BTreeMap<String, Value>,
    /// The compiled set; `None` when it did not compile (every contract is then
    /// permissive, and the warnings say why).
    pub compiled: Option<Arc<SharedSchemas>>,
}

/// Points the converted components at the set, makes each one toolgate compiles, and
/// checks every tool's contract against the set: a contract that does not compile
/// accepts anything instead, with a note, as an unusable inline schema does.
pub fn finish(
    set: &str,
    defs: BTreeMap<String, Value>,
    tools: &mut [Tool],
    warnings: &mut Vec<String>,
) -> Finished {
    let mut components = BTreeMap::new();
    for (name, mut def) in defs {
        to_shared(&mut def, set);
        for note in drop_unusable_patterns(&mut def) {
            warnings.push(format!("schemas.{set}.{name}: {note}"));
        }
        // `check` holds every component to the meta-schema; one it refuses would make
        // the whole file unusable, so what the conversion could not fix is left out.
        for note in repair(&mut def) {
            warnings.push(format!("schemas.{set}.{name}: {note}"));
        }
        components.insert(name, def);
    }
    let compiled = match SharedSchemas::new(BTreeMap::from([(set.to_owned(), components.clone())]))
    {
        Ok(s) => Some(Arc::new(s)),
        Err(errors) => {
            for e in errors {
                warnings.push(format!("{}: {}", e.path, e.message));
            }
            None
        }
    };
    // Whether a contract compiles depends only on its text and the set: many tools
    // answer with the same schema (a resource's item or collection), and compiling one
    // follows every component it reaches, so each text is compiled once.
    let mut verdicts: HashMap<String, Result<(), String>> = HashMap::new();
    for t in tools.iter_mut() {
        let Some(schema) = &mut t.response_schema else {
            continue;
        };
        for note in drop_unusable_patterns(schema) {
            t.notes.push(format!("contract: {note}"));
        }
        let schema = &*schema;
        let result = verdicts
            .entry(schema.to_string())
            .or_insert_with(|| {
                ResponseContract::compile_shared(
                    schema,
                    None,
                    &SchemaFiles::none(),
                    compiled.as_ref(),
                )
                .map(|_| ())
                .map_err(|e| e.to_string())
            })
            .clone();
        if let Err(e) = result {
            t.notes.push(format!(
                "contract: the schema is not usable ({e}); it accepts anything instead"
            ));
            t.response_schema = None;
        }
    }
    Finished {
        components,
        compiled,
    }
}

/// Whether `schema`, or a component it reaches, names a required field.
pub fn names_required(schema: &Value, shared: Option<&SharedSchemas>) -> bool {
    if super::names_required(schema) {
        return true;
    }
    let Some(shared) = shared else {
        return false;
    };
    shared.reachable(schema).iter().any(|(set, name)| {
        shared
            .set(set)
            .and_then(|s| s.get(name))
            .is_some_and(super::names_required)
    })
}

#[cfg(test)]
mod tests;
