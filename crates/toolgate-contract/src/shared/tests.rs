use super::*;
use crate::{Change, ResponseContract};
use serde_json::json;
use std::sync::Arc;

fn sets(v: Value) -> BTreeMap<String, BTreeMap<String, Value>> {
    serde_json::from_value(v).unwrap()
}

/// A tree of nodes (recursive), each with a tag (another component).
fn tree() -> Arc<SharedSchemas> {
    Arc::new(
        SharedSchemas::new(sets(json!({
            "api": {
                "node": {
                    "type": "object",
                    "properties": {
                        "id": {"type": "integer"},
                        "tag": {"$ref": "toolgate:schemas/api/tag"},
                        "children": {"type": "array", "items": {"$ref": "toolgate:schemas/api/node"}}
                    },
                    "required": ["id", "tag"]
                },
                "tag": {
                    "type": "object",
                    "properties": {"label": {"type": "string"}},
                    "required": ["label"]
                },
                "unrelated": {"type": "string"}
            }
        })))
        .unwrap(),
    )
}

fn compile(schema: &Value, shared: &Arc<SharedSchemas>) -> Result<ResponseContract, String> {
    ResponseContract::compile_shared(schema, None, &SchemaFiles::none(), Some(shared))
        .map_err(|e| e.to_string())
}

#[test]
fn recursive_components_and_refs_between_components_validate_and_explain() {
    let shared = tree();
    let contract = compile(&json!({"$ref": "toolgate:schemas/api/node"}), &shared).unwrap();
    let good = json!({"id": 1, "tag": {"label": "a"}, "children": [
        {"id": 2, "tag": {"label": "b"}, "children": [{"id": 3, "tag": {"label": "c"}}]}
    ]});
    assert!(contract.check(&good).is_ok());
    assert!(contract.check_bytes(good.to_string().as_bytes()).is_ok());

    // Three levels down, through the recursion and into another component: a renamed
    // field is named as a rename at its full path.
    let renamed = json!({"id": 1, "tag": {"label": "a"}, "children": [
        {"id": 2, "tag": {"label": "b"}, "children": [{"id": 3, "tag": {"name": "c"}}]}
    ]});
    let drift = contract.check(&renamed).unwrap_err();
    assert!(
        drift.changes.iter().any(|c| matches!(c,
            Change::Renamed { from, to, .. }
                if from == "children[].children[].tag.label" && to == "children[].children[].tag.name")),
        "{:?}",
        drift.changes
    );
}

#[test]
fn a_missing_component_is_a_clear_error_with_its_path() {
    let errors = SharedSchemas::new(sets(json!({
        "api": {
            "order": {"properties": {"buyer": {"$ref": "toolgate:schemas/api/customer"}}},
            "local": {"properties": {"x": {"$ref": "#/$defs/x"}}},
            "file": {"properties": {"x": {"$ref": "../../etc/passwd"}}}
        }
    })))
    .unwrap_err();
    let of = |path: &str| {
        errors
            .iter()
            .find(|e| e.path == path)
            .unwrap()
            .message
            .clone()
    };
    assert!(
        of("schemas.api.order").contains("`$ref: toolgate:schemas/api/customer` names no component: schemas.api has no `customer`"),
        "{errors:?}"
    );
    // References a component cannot hold: into a document that is not there, or a file.
    assert!(of("schemas.api.local").contains("#/$defs/x"), "{errors:?}");
    assert!(
        of("schemas.api.file").contains("../../etc/passwd"),
        "{errors:?}"
    );

    // A contract naming a component that does not exist is refused, naming it.
    let err = compile(&json!({"$ref": "toolgate:schemas/api/nope"}), &tree()).unwrap_err();
    assert!(err.contains("schemas.api has no `nope`"), "{err}");
    let err = compile(&json!({"$ref": "toolgate:schemas/other/node"}), &tree()).unwrap_err();
    assert!(err.contains("schemas.other has no `node`"), "{err}");
    // …and so is one given no shared schemas at all.
    let err = ResponseContract::compile(&json!({"$ref": "toolgate:schemas/api/node"}), None)
        .unwrap_err()
        .to_string();
    assert!(err.contains("no shared schemas"), "{err}");
}

#[test]
fn contracts_with_inline_defs_compile_as_before_beside_shared_ones() {
    let shared = tree();
    let inline = json!({
        "$defs": {"t": {"type": "object", "properties": {"label": {"type": "string"}}, "required": ["label"]}},
        "type": "object",
        "properties": {"tag": {"$ref": "#/$defs/t"}, "node": {"$ref": "toolgate:schemas/api/node"}},
        "required": ["tag"]
    });
    let c = compile(&inline, &shared).unwrap();
    assert!(c.check(&json!({"tag": {"label": "x"}})).is_ok());
    assert!(c.check(&json!({"tag": {}})).is_err());
    assert!(
        c.check(&json!({"tag": {"label": "x"}, "node": {"id": 1}}))
            .is_err()
    );
    // Without any shared reference the set is not even kept.
    let plain = compile(&json!({"type": "object"}), &shared).unwrap();
    assert!(plain.shared().is_none());
}

#[test]
fn identity_follows_reached_components_only() {
    let base = json!({
        "api": {
            "node": {"type": "object", "properties": {"tag": {"$ref": "toolgate:schemas/api/tag"}}},
            "tag": {"type": "string"},
            "unrelated": {"type": "string"}
        }
    });
    let a = SharedSchemas::new(sets(base.clone())).unwrap();
    let mut changed_tag = base.clone();
    changed_tag["api"]["tag"] = json!({"type": "integer"});
    let b = SharedSchemas::new(sets(changed_tag)).unwrap();
    let mut changed_other = base.clone();
    changed_other["api"]["unrelated"] = json!({"type": "integer"});
    let c = SharedSchemas::new(sets(changed_other)).unwrap();
    let schema = json!({"$ref": "toolgate:schemas/api/node"});
    assert_ne!(a.identity(&schema), b.identity(&schema));
    assert_eq!(a.identity(&schema), c.identity(&schema));
    assert_eq!(
        a.reachable(&schema),
        vec![
            ("api".to_owned(), "node".to_owned()),
            ("api".to_owned(), "tag".to_owned())
        ]
    );
}

#[test]
fn a_bundle_is_self_contained_and_judges_alike() {
    let shared = tree();
    let schema = json!({"$ref": "toolgate:schemas/api/node"});
    let bundle = shared.bundle(&schema);
    assert!(!bundle.to_string().contains("toolgate:"), "{bundle}");
    assert!(bundle["$defs"].get("api.unrelated").is_none());
    let standalone = ResponseContract::compile(&bundle, None).unwrap();
    for body in [
        json!({"id": 1, "tag": {"label": "a"}, "children": [{"id": 2, "tag": {"label": "b"}}]}),
        json!({"id": 1, "tag": {"label": "a"}, "children": [{"id": 2, "tag": {}}]}),
    ] {
        assert_eq!(
            standalone.check(&body).is_ok(),
            compile(&schema, &shared).unwrap().check(&body).is_ok()
        );
    }
}

#[test]
fn a_summary_for_clients_names_components_instead_of_referring_to_them() {
    let shared = tree();
    let summary = shared.summarise(&json!({"$ref": "toolgate:schemas/api/node"}));
    assert_eq!(summary["type"], "object");
    assert_eq!(
        summary["properties"]["tag"],
        json!({"title": "tag", "type": "object"})
    );
    assert!(!summary.to_string().contains("toolgate:"), "{summary}");
}

#[test]
fn references_parse_strictly() {
    assert_eq!(
        parse_ref("toolgate:schemas/api/node#/properties/id"),
        Some(SharedRef {
            set: "api",
            name: "node",
            pointer: "/properties/id"
        })
    );
    assert_eq!(parse_ref("toolgate:schemas/api"), None);
    assert_eq!(parse_ref("toolgate:schemas/a/b/c"), None);
    assert_eq!(parse_ref("#/$defs/x"), None);
}

#[test]
fn a_property_named_like_a_data_keyword_reaches_its_component() {
    // Properties called `default`, `enum` and `examples` are schemas: their references
    // are followed inside a component and from a contract, and what they name is held to.
    let shared = Arc::new(
        SharedSchemas::new(sets(json!({
            "api": {
                "lists": {"type": "object", "properties": {
                    "default": {"$ref": "toolgate:schemas/api/tag"},
                    "enum": {"$ref": "toolgate:schemas/api/tag"}}},
                "tag": {"type": "object", "properties": {"label": {"type": "string"}},
                    "required": ["label"]}
            }
        })))
        .unwrap(),
    );
    for schema in [
        json!({"$ref": "toolgate:schemas/api/lists"}),
        json!({"type": "object", "properties": {"examples": {"$ref": "toolgate:schemas/api/tag"}}}),
    ] {
        let contract = compile(&schema, &shared).unwrap_or_else(|e| panic!("{schema}: {e}"));
        let field = if schema.get("$ref").is_some() {
            "default"
        } else {
            "examples"
        };
        assert!(
            contract.check(&json!({field: {"label": "a"}})).is_ok(),
            "{schema}"
        );
        assert!(
            contract.check(&json!({field: {"name": "a"}})).is_err(),
            "{schema}"
        );
    }
}
