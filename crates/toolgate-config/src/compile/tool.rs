//! Compiling one tool: owner, dependency reference, input schema, request template,
//! and the versioned response contract (inline or from a file).
//!
//! This file holds the order of the steps and the tool's own settings; the input
//! schemas (`input_schema.rs`), the request (`request.rs`), the contract
//! (`contract.rs`) and schema files (`schema_file.rs`) have files of their own.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::{Compiler, Defined, known, limits};
use crate::model::*;
use crate::raw::*;

mod contract;
mod input_schema;

pub(super) use input_schema::InputValidators;
mod request;
mod schema_file;

pub use contract::{LEARNED_VERSION, notes_member, output_schema};

impl Compiler<'_> {
    /// Every step runs even when an earlier one failed, in the order the errors are
    /// reported in: the tool's name, owner and references, its input schemas, its
    /// request, its contract, then its timing and notes.
    pub(super) fn tool(
        &mut self,
        name: &str,
        raw: RawTool,
        deps: &BTreeMap<String, Arc<Dependency>>,
        defined: &Defined,
        gateway: &GatewayConfig,
    ) -> Option<ToolSpec> {
        let path = format!("tools.{name}");
        self.tool_name(&path, name);
        let owner = self.tool_owner(&path, name, raw.owner.as_deref());
        let dependency = self.tool_dependency(&path, name, &raw.dependency, deps, defined);
        self.successor(&path, raw.successor.as_deref(), defined);
        let inputs = self.input_schemas(&path, raw.input_schema, raw.full_input_schema);
        let request = self.request(&path, raw.request, inputs.checked());
        if let (Some(r), Some(d)) = (&request, &dependency) {
            self.omitted_are_sent(&path, r, d);
        }
        let contract = self.tool_contract(&path, raw.contract, gateway.learn);
        let probe = raw.probe.map(|p| Probe {
            every: self.duration_min(
                format!("{path}.probe.every"),
                p.every.as_ref(),
                Duration::from_secs(3600),
                limits::MIN_PROBE_EVERY,
            ),
            arguments: p.arguments,
        });
        let deadline = self.duration_min(
            format!("{path}.deadline"),
            raw.deadline.as_ref(),
            gateway.deadline,
            limits::MIN_DEADLINE,
        );
        let notes = self.notes_mode(format!("{path}.notes"), raw.notes.as_deref(), gateway.notes);
        let (input_schema, input_validator) = inputs.into_compiled()?;
        let mut contract = contract?;
        // Without `structuredContent` there is no `outputSchema` to list and no member
        // for the notes: they travel in the text, whatever the mode.
        contract.advertised = raw.structured_content.unwrap_or(gateway.structured_content);
        let notes_member = notes_member(&contract.output_schema).filter(|_| contract.advertised);
        Some(ToolSpec {
            name: name.to_string(),
            dependency: dependency?,
            owner: owner?,
            description: raw
                .description
                .unwrap_or_else(|| format!("Calls {}.", raw.dependency)),
            title: raw.title,
            kind: ToolKind::Http(Box::new(request?)),
            annotations: annotations(raw.annotations.unwrap_or_default()),
            input_schema,
            input_validator,
            contract,
            probe,
            successor: raw.successor,
            deadline,
            notes,
            notes_member,
        })
    }

    fn tool_name(&mut self, path: &str, name: &str) {
        if crate::BUILT_IN_TOOLS.contains(&name) {
            self.err(
                path,
                "`dependency_health` is a built-in tool",
                "give this tool another name",
            );
        }
        if !valid_tool_name(name) {
            self.err(
                path,
                format!("`{name}` is not a valid tool name"),
                "use 1–64 letters, digits, `_`, `-` or `.`",
            );
        }
    }

    fn tool_owner(&mut self, path: &str, name: &str, raw: Option<&str>) -> Option<String> {
        match raw.map(str::trim) {
            // `<…>` is a placeholder (the import writes one when no owner is given).
            Some(o) if o.starts_with('<') && o.ends_with('>') => {
                self.err(
                    format!("{path}.owner"),
                    format!("tool `{name}`'s owner is the placeholder `{o}`"),
                    "set the person or rota in your organisation alerted when its contract drifts (`toolgate import openapi --owner` sets every imported tool's)",
                );
                None
            }
            Some(o) if !o.is_empty() => Some(o.to_string()),
            _ => {
                self.err(format!("{path}.owner"), format!("tool `{name}` has no owner"), "add `owner: alice@example.com` — the person or rota alerted when its contract drifts");
                None
            }
        }
    }

    /// The dependency the tool calls. A dependency that is written but has errors of its
    /// own is reported there; the tools using it are not told it does not exist.
    fn tool_dependency(
        &mut self,
        path: &str,
        name: &str,
        wanted: &str,
        deps: &BTreeMap<String, Arc<Dependency>>,
        defined: &Defined,
    ) -> Option<Arc<Dependency>> {
        let dependency = deps.get(wanted).cloned();
        if dependency.is_none() && !defined.dependencies.contains(wanted) {
            let names = defined.dependencies.iter().map(String::as_str);
            let help = match known::did_you_mean(wanted, names.clone()) {
                Some(best) => format!("did you mean `{best}`?"),
                None if defined.dependencies.is_empty() => {
                    "define it under `dependencies:` (none are defined)".to_string()
                }
                None => format!(
                    "define it under `dependencies:` or use one of: {}",
                    names.collect::<Vec<_>>().join(", ")
                ),
            };
            self.err(
                format!("{path}.dependency"),
                format!("tool `{name}` uses dependency `{wanted}`, which is not defined"),
                &help,
            );
        }
        dependency
    }

    /// The tool that replaces this one once it is retired must be configured too.
    fn successor(&mut self, path: &str, successor: Option<&str>, defined: &Defined) {
        if let Some(s) = successor
            && !defined.tools.contains(s)
        {
            let help = match known::did_you_mean(s, defined.tools.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `{best}`?"),
                None => "name a tool defined under `tools:`, or remove `successor`".to_string(),
            };
            self.err(
                format!("{path}.successor"),
                format!("successor `{s}` is not a configured tool"),
                &help,
            );
        }
    }

    /// The contract as written, or, when none is, one learned from the responses.
    fn tool_contract(
        &mut self,
        path: &str,
        raw: Option<RawContract>,
        learn: Option<Learn>,
    ) -> Option<Contract> {
        match raw {
            Some(c) => self.contract(path, c, learn),
            None => Some(self.learned_contract(
                &format!("{path}.contract"),
                LEARNED_VERSION.to_string(),
                None,
                None,
                learn,
            )),
        }
    }
}

fn annotations(a: RawAnnotations) -> Annotations {
    Annotations {
        read_only: a.read_only_hint,
        destructive: a.destructive_hint,
        idempotent: a.idempotent_hint,
        open_world: a.open_world_hint,
    }
}

pub fn valid_tool_name(n: &str) -> bool {
    (1..=64).contains(&n.len())
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests;
