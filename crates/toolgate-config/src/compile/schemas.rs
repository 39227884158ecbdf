//! `schemas:`: component schemas shared by the contracts of many tools (an imported
//! API's components, written once instead of into every tool's `$defs`), compiled into
//! one registry that every contract's validator uses.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;
use toolgate_contract::{ContractCache, SharedSchemas};

use super::Compiler;

impl Compiler<'_> {
    /// Compiles the `schemas:` section; each problem is an error at its component.
    pub(super) fn shared_schemas(&mut self, raw: BTreeMap<String, BTreeMap<String, Value>>) {
        if raw.is_empty() {
            return;
        }
        match SharedSchemas::new(raw) {
            Ok(shared) => self.contracts = ContractCache::new(Some(Arc::new(shared))),
            Err(errors) => {
                for e in errors {
                    self.err(e.path, e.message, &e.hint);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn check(schemas: &str, contract: &str) -> Result<crate::Config, String> {
        let text = format!(
            "dependencies:\n  api: {{base_url: 'https://api.example.com'}}\nschemas:\n{schemas}tools:\n  t:\n    dependency: api\n    owner: o@example.com\n    request: {{path: /x}}\n    contract: {{version: '1.0', response_schema: {contract}}}\n"
        );
        crate::parse(Path::new("t.yaml"), &text, Path::new("."), &|_| None)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn a_contract_refers_to_shared_components_and_bad_ones_are_errors_at_their_path() {
        let set = "  api:\n    item: {type: object, required: [id], properties: {id: {type: integer}, next: {$ref: 'toolgate:schemas/api/item'}}}\n";
        let config = check(set, "{$ref: 'toolgate:schemas/api/item'}").unwrap();
        let contract = &config.tools["t"].contract;
        assert!(
            contract
                .response
                .check(&serde_json::json!({"id": 1, "next": {"id": 2}}))
                .is_ok()
        );
        assert!(
            contract
                .response
                .check(&serde_json::json!({"id": 1, "next": {}}))
                .is_err()
        );
        // A reference a file path rule would have read is not taken for a file.
        assert!(contract.response.shared().is_some());

        let err = check(set, "{$ref: 'toolgate:schemas/api/itme'}").unwrap_err();
        assert!(
            err.contains("tools.t.contract.response_schema")
                && err.contains("schemas.api has no `itme`"),
            "{err}"
        );
        let broken = "  api:\n    item: {properties: {next: {$ref: 'toolgate:schemas/api/gone'}}}\n    odd: {type: 7}\n";
        let err = check(broken, "{type: object}").unwrap_err();
        assert!(
            err.contains("schemas.api.item") && err.contains("schemas.api has no `gone`"),
            "{err}"
        );
        assert!(
            err.contains("schemas.api.odd") && err.contains("not valid JSON Schema"),
            "{err}"
        );
    }
}
