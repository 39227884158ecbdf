//! A contract whose `$ref`s form a chain thousands of links long (a config written by
//! hand can hold one; an import refuses them) compiles and checks bodies right: the read
//! check leaves it to the full check instead of overflowing the stack, and a chain of
//! ordinary length keeps the read check.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{Value, json};
use toolgate_contract::{ResponseContract, SchemaFiles, SharedSchemas};

const LONG: usize = 10_000;

/// `d0` refers to `d1`, … to `d{links}`, an object.
fn local_chain(links: usize) -> Value {
    let mut defs = serde_json::Map::new();
    for i in 0..links {
        defs.insert(
            format!("d{i}"),
            json!({"$ref": format!("#/$defs/d{}", i + 1)}),
        );
    }
    defs.insert(format!("d{links}"), json!({"type": "object"}));
    json!({"$ref": "#/$defs/d0", "$defs": defs})
}

fn checks_objects_only(contract: &ResponseContract) {
    assert!(contract.check(&json!({"a": 1})).is_ok());
    assert!(contract.check(&json!(3)).is_err());
    assert!(contract.check_bytes(br#"{"a": 1}"#).is_ok());
    assert!(contract.check_bytes(b"3").is_err());
}

#[test]
fn a_local_chain_ten_thousand_links_long_is_checked_the_full_way() {
    let contract = ResponseContract::compile(&local_chain(LONG), None).expect("compiles");
    checks_objects_only(&contract);
    assert!(!contract.checks_while_reading());
}

#[test]
fn a_local_chain_of_ordinary_length_keeps_the_read_check() {
    let contract = ResponseContract::compile(&local_chain(30), None).expect("compiles");
    checks_objects_only(&contract);
    assert!(contract.checks_while_reading());
    assert!(contract.vouches_for(br#"{"a": 1}"#));
}

#[test]
fn a_shared_chain_ten_thousand_links_long_is_checked_the_full_way() {
    let mut set = BTreeMap::new();
    for i in 0..LONG {
        set.insert(
            format!("c{i}"),
            json!({"$ref": format!("toolgate:schemas/s/c{}", i + 1)}),
        );
    }
    set.insert(format!("c{LONG}"), json!({"type": "object"}));
    let shared = Arc::new(
        SharedSchemas::new(BTreeMap::from([("s".to_owned(), set)])).expect("a chain, no loop"),
    );
    let schema = json!({"$ref": "toolgate:schemas/s/c0"});
    let contract =
        ResponseContract::compile_shared(&schema, None, &SchemaFiles::none(), Some(&shared))
            .expect("compiles");
    checks_objects_only(&contract);
    assert!(!contract.checks_while_reading());
}
