use super::*;
use crate::BodyError;
use crate::temp_dir::TempDir;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::Path;

/// An API whose `user` component reaches a `group` component.
fn shared() -> Arc<SharedSchemas> {
    let sets: BTreeMap<String, BTreeMap<String, Value>> = serde_json::from_value(json!({
        "api": {
            "user": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "group": {"$ref": "toolgate:schemas/api/group"}
                },
                "required": ["id", "group"]
            },
            "group": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"]
            }
        }
    }))
    .unwrap();
    Arc::new(SharedSchemas::new(sets).unwrap())
}

fn page_of_users() -> Value {
    json!({
        "type": "object",
        "properties": {"value": {"type": "array", "items": {"$ref": "toolgate:schemas/api/user"}}},
        "required": ["value"]
    })
}

fn verdict(contract: &ResponseContract, body: &Value) -> Result<(), String> {
    match contract.check_bytes(body.to_string().as_bytes()) {
        Ok(()) => Ok(()),
        Err(BodyError::Drift(d)) => Err(d.changes.iter().map(|c| c.path().to_owned()).collect()),
        Err(BodyError::NotJson(e)) => Err(e.to_string()),
    }
}

#[test]
fn tools_with_the_same_contract_share_one_compilation_and_judge_alike() {
    let mut cache = ContractCache::new(Some(shared()));
    let user = json!({"$ref": "toolgate:schemas/api/user"});
    let get = cache.compile(&user, None, &SchemaFiles::none()).unwrap();
    let update = cache.compile(&user, None, &SchemaFiles::none()).unwrap();
    let list = cache
        .compile(&page_of_users(), None, &SchemaFiles::none())
        .unwrap();
    assert_eq!(cache.len(), 2, "two distinct texts, two compilations");
    assert!(Arc::ptr_eq(&get.compiled, &update.compiled));

    let good = json!({"id": 1, "group": {"name": "ops"}});
    let renamed = json!({"id": 1, "group": {"title": "ops"}});
    for contract in [&get, &update] {
        assert_eq!(verdict(contract, &good), Ok(()));
        assert!(
            verdict(contract, &renamed).is_err(),
            "the component it reaches is enforced"
        );
        assert!(contract.shared().is_some());
        assert_eq!(contract.schema(), &user);
    }
    assert_eq!(verdict(&list, &json!({"value": [good]})), Ok(()));
    assert!(verdict(&list, &json!({"value": [renamed]})).is_err());
}

#[test]
fn a_schema_that_fails_is_reported_each_time_and_never_kept() {
    let mut cache = ContractCache::new(Some(shared()));
    let missing = json!({"$ref": "toolgate:schemas/api/nobody"});
    for _ in 0..2 {
        let e = cache
            .compile(&missing, None, &SchemaFiles::none())
            .unwrap_err()
            .to_string();
        assert!(e.contains("nobody"), "{e}");
    }
    assert!(cache.is_empty());
}

#[test]
fn schemas_without_shared_components_are_shared_too_and_carry_no_set() {
    let mut cache = ContractCache::new(Some(shared()));
    let plain = json!({"type": "object", "required": ["ok"]});
    let a = cache.compile(&plain, None, &SchemaFiles::none()).unwrap();
    let b = cache.compile(&plain, None, &SchemaFiles::none()).unwrap();
    assert!(Arc::ptr_eq(&a.compiled, &b.compiled));
    // Only a contract that names a component keeps the set (its identity and bundle
    // depend on it).
    assert!(a.shared().is_none() && b.shared().is_none());
    assert_eq!(a.shared_identity(), None);
}

fn write(dir: &Path, name: &str, v: &Value) {
    std::fs::write(dir.join(name), v.to_string()).unwrap();
}

#[test]
fn the_same_file_ref_in_two_directories_reads_each_directorys_file() {
    // `{"$ref": "item.json"}` means a different schema beside each contract: the text
    // alone does not decide it, so such a schema is compiled for every tool.
    let one = TempDir::new("one");
    let two = TempDir::new("two");
    write(
        &one.0,
        "item.json",
        &json!({"type": "object", "required": ["a"]}),
    );
    write(
        &two.0,
        "item.json",
        &json!({"type": "object", "required": ["b"]}),
    );
    let schema = json!({"$ref": "item.json"});
    let mut cache = ContractCache::new(None);
    let files = SchemaFiles::new([one.0.as_path(), two.0.as_path()]).unwrap();
    let first = cache.compile(&schema, Some(&one.0), &files).unwrap();
    let second = cache.compile(&schema, Some(&two.0), &files).unwrap();
    assert!(cache.is_empty());
    assert_eq!(verdict(&first, &json!({"a": 1})), Ok(()));
    assert!(verdict(&first, &json!({"b": 1})).is_err());
    assert_eq!(verdict(&second, &json!({"b": 1})), Ok(()));
    assert!(verdict(&second, &json!({"a": 1})).is_err());
}
