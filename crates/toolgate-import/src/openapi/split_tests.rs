//! Descriptions split over several files, as Azure's, Stripe's older ones and many SDK
//! packages' are written: path items and schemas in files of their own, each `$ref`
//! relative to the file it is written in. The import follows them inside the
//! description's folder and writes the contract the files say together.

use std::path::Path;

use serde_json::Value;

use super::directory_tests::{check, folder};
use super::*;

/// Writes `files` (path, text) under a fresh folder and imports its `api.yaml`.
fn import_split(files: &[(&str, &str)]) -> (String, toolgate_config::Config) {
    let dir = folder();
    for (path, text) in files {
        let at = dir.join(path);
        std::fs::create_dir_all(at.parent().unwrap_or(Path::new("/"))).unwrap();
        std::fs::write(at, text).unwrap();
    }
    let out = run(&Options {
        spec: dir.join("api.yaml"),
        owner: Some("api-team@example.com".into()),
        ..Options::default()
    })
    .unwrap_or_else(|e| panic!("import: {e}"));
    let _ = std::fs::remove_dir_all(&dir);
    let config = check(&out.yaml).unwrap_or_else(|e| panic!("check: {e}\n{}", out.yaml));
    (out.yaml, config)
}

const API: &str = "openapi: 3.0.3
info: {title: Pets, version: '1'}
servers: [{url: 'https://api.example.com'}]
paths:
  /pets/{id}: {$ref: 'paths/pet.yaml'}
  /legacy/pets/{id}: {$ref: 'paths/legacy.yaml#/item'}
";

/// A path item in its own file, whose schema's `$ref` is relative to that file.
const PET_PATH: &str = "get:
  operationId: getPet
  parameters: [{name: id, in: path, required: true, schema: {type: string}}]
  responses:
    '200':
      description: ok
      content: {application/json: {schema: {$ref: '../schemas/Pet.yaml'}}}
";

/// Another `Pet`, of another shape, in another folder: the two must stay apart.
const LEGACY_PATH: &str = "item:
  get:
    operationId: getLegacyPet
    parameters: [{name: id, in: path, required: true, schema: {type: string}}]
    responses:
      '200':
        description: ok
        content: {application/json: {schema: {$ref: '../legacy/Pet.yaml'}}}
";

const PET: &str = "type: object
required: [id, owner]
properties:
  id: {type: string}
  owner: {$ref: './Owner.yaml'}
";

const OWNER: &str = "type: object
required: [login]
properties: {login: {type: string}}
";

const LEGACY_PET: &str = "type: object
required: [pet_id]
properties: {pet_id: {type: integer}}
";

#[test]
fn a_description_split_over_files_imports_the_contract_its_files_say_together() {
    let (yaml, config) = import_split(&[
        ("api.yaml", API),
        ("paths/pet.yaml", PET_PATH),
        ("paths/legacy.yaml", LEGACY_PATH),
        ("schemas/Pet.yaml", PET),
        ("schemas/Owner.yaml", OWNER),
        ("legacy/Pet.yaml", LEGACY_PET),
    ]);
    let accepts = |tool: &str, body: &[u8]| {
        config.tools[tool]
            .contract
            .response
            .check_bytes(body)
            .is_ok()
    };
    assert!(
        accepts("getPet", br#"{"id": "p1", "owner": {"login": "ann"}}"#),
        "{yaml}"
    );
    // The owner's schema, two files away, is enforced.
    assert!(!accepts(
        "getPet",
        br#"{"id": "p1", "owner": {"name": "ann"}}"#
    ));
    assert!(!accepts("getPet", br#"{"id": "p1", "owner": "ann"}"#));
    // Two files named `Pet.yaml` are two schemas.
    assert!(accepts("getLegacyPet", br#"{"pet_id": 7}"#), "{yaml}");
    assert!(!accepts(
        "getLegacyPet",
        br#"{"id": "p1", "owner": {"login": "ann"}}"#
    ));
    assert!(!accepts("getPet", br#"{"pet_id": 7}"#));
    let doc: Value = yaml_serde::from_str(&yaml).unwrap();
    let shared = doc["schemas"]["pets"].as_object().unwrap();
    assert_eq!(
        shared.len(),
        3,
        "Pet, Pet_2 and Owner: {:?}",
        shared.keys().collect::<Vec<_>>()
    );
}

#[test]
fn a_file_a_split_description_names_but_does_not_ship_leaves_that_part_open_and_says_so() {
    let (yaml, config) = import_split(&[
        ("api.yaml", API),
        ("paths/pet.yaml", PET_PATH),
        ("paths/legacy.yaml", LEGACY_PATH),
        ("schemas/Pet.yaml", PET),
        ("legacy/Pet.yaml", LEGACY_PET),
    ]);
    // `Owner.yaml` is missing: the owner accepts anything, the rest is still checked,
    // and the config says which `$ref` could not be read.
    let contract = &config.tools["getPet"].contract.response;
    assert!(
        contract
            .check_bytes(br#"{"id": "p1", "owner": "anything"}"#)
            .is_ok()
    );
    assert!(contract.check_bytes(br#"{"owner": {}}"#).is_err());
    assert!(yaml.contains("Owner.yaml"), "{yaml}");
}
