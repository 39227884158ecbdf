//! A tool's response contract: declared (inline, or from a file), imported, or learned
//! from the responses; what happens on drift; and the `outputSchema` shown over MCP.

use serde_json::{Map, Value, json};
use toolgate_contract::ResponseContract;

use crate::compile::Compiler;
use crate::model::*;
use crate::raw::*;

impl Compiler<'_> {
    pub(in crate::compile) fn contract(
        &mut self,
        path: &str,
        raw: RawContract,
        learn: Option<Learn>,
    ) -> Option<Contract> {
        let cpath = format!("{path}.contract");
        if !is_major_minor(&raw.version) {
            self.err(
                format!("{cpath}.version"),
                format!("contract version `{}` is not `major.minor`", raw.version),
                "write it like \"3.1\" (quoted, so YAML keeps it a string)",
            );
        }
        // No schema, or one that declares nothing (`{}`, `true`): learn it.
        let declares_nothing = match &raw.response_schema {
            None | Some(Value::Bool(true)) => true,
            Some(Value::Object(m)) => m.is_empty(),
            Some(_) => false,
        };
        if declares_nothing {
            if raw.origin.is_some() {
                self.err(
                    format!("{cpath}.origin"),
                    "`origin` names who wrote a response_schema, and this contract has none (it is learned)",
                    "remove `origin`, or add the response_schema it names",
                );
            }
            return Some(self.learned_contract(
                &cpath,
                raw.version,
                raw.on_drift.as_deref(),
                raw.learn.as_ref(),
                learn,
            ));
        }
        let origin = self.origin(&cpath, raw.origin.as_deref());
        if raw.learn.is_some() {
            self.err(
                format!("{cpath}.learn"),
                "`learn` applies to contracts without a response_schema",
                "remove `learn`, or remove the response_schema to learn the contract instead",
            );
        }
        let on_drift = self.on_drift(&cpath, raw.on_drift.as_deref(), OnDrift::Fail);
        let (schema, base) = self.load_schema(
            &format!("{cpath}.response_schema"),
            raw.response_schema.unwrap_or(Value::Bool(true)),
        )?;
        let response = match self.contracts.compile(&schema, Some(&base), &self.files) {
            Ok(r) => r,
            Err(e) => {
                self.err(
                    format!("{cpath}.response_schema"),
                    format!("response_schema is not usable: {e}"),
                    "fix the schema (JSON Schema 2020-12)",
                );
                return None;
            }
        };
        // A client cannot follow `toolgate:schemas/…` references: it is shown the
        // components by name, and the contract still enforces them whole.
        let (output_schema, wraps_result) = match response.shared() {
            Some(set) => output_schema(&set.summarise(&schema)),
            None => output_schema(&schema),
        };
        Some(Contract {
            version: raw.version,
            response,
            output_schema,
            wraps_result,
            advertised: true,
            origin,
            on_drift,
            learn: None,
        })
    }

    /// Who wrote a declared `response_schema`: a person (`declared`, the default) or
    /// the OpenAPI import (`imported`).
    fn origin(&mut self, cpath: &str, raw: Option<&str>) -> ContractOrigin {
        match raw {
            None | Some("declared") => ContractOrigin::Declared,
            Some("imported") => ContractOrigin::Imported,
            Some(other) => {
                self.err(
                    format!("{cpath}.origin"),
                    format!("unknown contract origin `{other}`"),
                    "use `declared` (a person wrote the response_schema) or `imported` (taken from an API description)",
                );
                ContractOrigin::Declared
            }
        }
    }

    /// A contract learned from the tool's responses (or none, with learning off): it
    /// accepts anything until it is enforced; the body is advertised wrapped, as for
    /// any schema that is not an object's.
    pub(super) fn learned_contract(
        &mut self,
        cpath: &str,
        version: String,
        on_drift: Option<&str>,
        raw: Option<&RawLearn>,
        base: Option<Learn>,
    ) -> Contract {
        let learn = self.learn(&format!("{cpath}.learn"), raw, base);
        let on_drift = self.on_drift(cpath, on_drift, OnDrift::Warn);
        let anything = json!({});
        let (output_schema, wraps_result) = output_schema(&anything);
        Contract {
            version,
            response: ResponseContract::compile(&anything, None)
                .expect("the empty schema compiles"),
            output_schema,
            wraps_result,
            advertised: true,
            origin: if learn.is_some() {
                ContractOrigin::Learned
            } else {
                ContractOrigin::None
            },
            on_drift,
            learn,
        }
    }

    fn on_drift(&mut self, cpath: &str, raw: Option<&str>, default: OnDrift) -> OnDrift {
        match raw {
            None => default,
            Some("fail") => OnDrift::Fail,
            Some("warn") => OnDrift::Warn,
            Some(other) => {
                self.err(
                    format!("{cpath}.on_drift"),
                    format!("unknown on_drift `{other}`"),
                    "use `fail` (the call fails with the diff) or `warn` (the call returns the data with a note)",
                );
                default
            }
        }
    }

    /// Learning settings: each key given replaces the one in `base`; `None` when off.
    pub(in crate::compile) fn learn(
        &mut self,
        path: &str,
        raw: Option<&RawLearn>,
        base: Option<Learn>,
    ) -> Option<Learn> {
        let Some(raw) = raw else {
            return base;
        };
        let enabled = raw.enabled.unwrap_or(true);
        let mut learn = base.unwrap_or_default();
        if let Some(n) = raw.enforce_after {
            if n == 0 {
                self.err(
                    format!("{path}.enforce_after"),
                    "enforce_after is 0: nothing would be learned before the contract is enforced",
                    "use at least 1 (the default is 20)",
                );
            }
            learn.enforce_after = n.max(1);
        }
        if let Some(n) = raw.max_paths {
            if n == 0 {
                self.err(
                    format!("{path}.max_paths"),
                    "max_paths is 0: no field could be learned",
                    "use at least 1 (the default is 1000)",
                );
            }
            learn.max_paths = (n as usize).max(1);
        }
        enabled.then_some(learn)
    }
}

/// The `outputSchema` advertised over MCP. MCP requires an object; a contract for a
/// non-object body (an array, a scalar) is wrapped as `{"result": …}`, and so is the body.
pub fn output_schema(schema: &Value) -> (Map<String, Value>, bool) {
    let is_object = schema.get("type").and_then(Value::as_str) == Some("object")
        || (schema.get("type").is_none() && schema.get("properties").is_some());
    if is_object && let Value::Object(m) = schema {
        return (m.clone(), false);
    }
    let mut inner = schema.clone();
    let mut wrapper = Map::new();
    // Definitions must stay at the root for `#/$defs/...` references to resolve.
    for key in ["$schema", "$defs", "definitions"] {
        if let Some(v) = inner.as_object_mut().and_then(|m| m.remove(key)) {
            wrapper.insert(key.to_string(), v);
        }
    }
    wrapper.insert("type".into(), json!("object"));
    wrapper.insert("properties".into(), json!({ "result": inner }));
    wrapper.insert("required".into(), json!(["result"]));
    (wrapper, true)
}

/// The name of the notes member inside `structuredContent`: one the upstream's schema
/// does not use itself, so the member never changes what a declared field means.
pub fn notes_member(output_schema: &Map<String, Value>) -> Option<&'static str> {
    let declared = output_schema.get("properties").and_then(Value::as_object);
    ["toolgate", "_toolgate"]
        .into_iter()
        .find(|name| !declared.is_some_and(|p| p.contains_key(*name)))
}

/// The contract version of a tool that declares no contract.
pub const LEARNED_VERSION: &str = "learned";

pub(super) fn is_major_minor(v: &str) -> bool {
    let mut parts = v.split('.');
    let ok =
        |p: Option<&str>| p.is_some_and(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()));
    ok(parts.next()) && ok(parts.next()) && parts.next().is_none()
}
