use super::*;
use crate::ResponseContract;
use serde_json::json;

/// A fresh directory `<tmp>/<name>-<pid>/root`, with its parent for escapes.
fn dirs(name: &str) -> (PathBuf, PathBuf) {
    let parent = std::env::temp_dir().join(format!("toolgate-files-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&parent);
    let root = parent.join("root");
    std::fs::create_dir_all(&root).expect("temp dir");
    (parent, root)
}

const ITEM: &str = r#"{"type":"object","required":["id"],"properties":{"id":{"type":"integer"}}}"#;

#[test]
fn an_absolute_path_outside_the_root_is_refused_and_not_echoed() {
    let (parent, root) = dirs("abs");
    let secret = parent.join("secret.json");
    std::fs::write(&secret, r#"{"password": "hunter2"}"#).expect("write");
    let files = SchemaFiles::new([&root]).expect("root");
    let err = files.read(&secret).expect_err("outside");
    assert!(matches!(err, SchemaFileError::Outside { .. }), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    // And through a schema: an absolute file $ref.
    let schema = json!({ "$ref": format!("file://{}", secret.display()) });
    let err = ResponseContract::compile(&schema, Some(&root)).expect_err("refused");
    assert!(err.to_string().contains("outside"), "{err}");
    assert!(!err.to_string().contains("hunter2"), "{err}");
    let err = files.read(Path::new("/etc/passwd")).expect_err("outside");
    assert!(matches!(err, SchemaFileError::Outside { .. }), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_dot_dot_escape_is_refused() {
    let (parent, root) = dirs("dotdot");
    std::fs::write(parent.join("item.json"), ITEM).expect("write");
    let files = SchemaFiles::new([&root]).expect("root");
    let err = files.read(&root.join("../item.json")).expect_err("escape");
    assert!(matches!(err, SchemaFileError::Outside { .. }), "{err}");
    let schema = json!({ "type": "array", "items": { "$ref": "../item.json" } });
    let err = ResponseContract::compile(&schema, Some(&root)).expect_err("escape");
    assert!(err.to_string().contains("outside"), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_symlink_escaping_the_root_is_refused() {
    let (parent, root) = dirs("symlink");
    std::fs::write(parent.join("item.json"), ITEM).expect("write");
    std::os::unix::fs::symlink(parent.join("item.json"), root.join("item.json")).expect("symlink");
    let files = SchemaFiles::new([&root]).expect("root");
    let err = files.read(&root.join("item.json")).expect_err("escape");
    assert!(matches!(err, SchemaFileError::Outside { .. }), "{err}");
    let schema = json!({ "type": "array", "items": { "$ref": "item.json" } });
    let err = ResponseContract::compile(&schema, Some(&root)).expect_err("escape");
    assert!(err.to_string().contains("outside"), "{err}");
    // A symlink that stays inside the root is fine.
    std::fs::write(root.join("real.json"), ITEM).expect("write");
    std::os::unix::fs::symlink(root.join("real.json"), root.join("alias.json")).expect("symlink");
    assert!(files.read(&root.join("alias.json")).is_ok());
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn dev_zero_is_refused_outside_the_root_and_as_a_device() {
    let (parent, root) = dirs("devzero");
    let files = SchemaFiles::new([&root]).expect("root");
    let err = files.read(Path::new("/dev/zero")).expect_err("outside");
    assert!(matches!(err, SchemaFileError::Outside { .. }), "{err}");
    // Even where /dev is allowed, a device is not a regular file (and is not read).
    let dev = SchemaFiles::new(["/dev"]).expect("dev");
    let err = dev.read(Path::new("/dev/zero")).expect_err("device");
    assert!(matches!(err, SchemaFileError::NotRegular { .. }), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let (parent, root) = dirs("fifo");
    let fifo = root.join("schema.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo failed");
    let files = SchemaFiles::new([&root]).expect("root");
    // Opening a FIFO with no writer would block this test forever: it must not be opened.
    let err = files.read(&fifo).expect_err("fifo");
    assert!(matches!(err, SchemaFileError::NotRegular { .. }), "{err}");
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_file_over_the_cap_is_refused() {
    let (parent, root) = dirs("cap");
    let big = root.join("big.json");
    // A valid JSON document just over the cap.
    let mut text = String::from("{\"description\": \"");
    text.push_str(&"x".repeat(MAX_SCHEMA_FILE_BYTES as usize));
    text.push_str("\"}");
    std::fs::write(&big, &text).expect("write");
    let files = SchemaFiles::new([&root]).expect("root");
    let err = files.read(&big).expect_err("too large");
    assert!(
        matches!(err, SchemaFileError::TooLarge { limit, .. } if limit == MAX_SCHEMA_FILE_BYTES),
        "{err}"
    );
    // The cap is what is read, not what the file claims: a small cap on a small file.
    std::fs::write(root.join("small.json"), ITEM).expect("write");
    let tight = SchemaFiles::new([&root]).expect("root").with_max_bytes(10);
    assert!(matches!(
        tight.read(&root.join("small.json")),
        Err(SchemaFileError::TooLarge { .. })
    ));
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_nested_relative_ref_inside_the_root_resolves() {
    let (parent, root) = dirs("nested");
    std::fs::create_dir_all(root.join("schemas/parts")).expect("dirs");
    std::fs::write(
        root.join("schemas/list.json"),
        r#"{"type":"array","items":{"$ref":"parts/item.json"}}"#,
    )
    .expect("write");
    std::fs::write(root.join("schemas/parts/item.json"), ITEM).expect("write");
    let schema =
        json!({ "type": "object", "properties": { "items": { "$ref": "schemas/list.json" } } });
    let contract = ResponseContract::compile(&schema, Some(&root)).expect("compiles");
    assert!(contract.check(&json!({ "items": [{ "id": 1 }] })).is_ok());
    let drift = contract
        .check(&json!({ "items": [{ "id": "1" }] }))
        .expect_err("drift");
    assert!(
        drift.summary().contains("items[].id"),
        "{}",
        drift.summary()
    );
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn a_document_that_is_not_a_schema_is_refused_without_its_content() {
    let (parent, root) = dirs("notschema");
    std::fs::write(root.join("list.json"), r#""root:x:0:0:root""#).expect("write");
    std::fs::write(root.join("text.json"), "root:x:0:0:root:/root:/bin/bash").expect("write");
    let files = SchemaFiles::new([&root]).expect("root");
    for name in ["list.json", "text.json"] {
        let err = files.read_json(&root.join(name)).expect_err("not a schema");
        assert!(matches!(err, SchemaFileError::NotSchema { .. }), "{err}");
        assert!(!err.to_string().contains("root:x"), "{err}");
    }
    let _ = std::fs::remove_dir_all(&parent);
}

#[test]
fn an_empty_base_dir_is_the_current_directory() {
    // `Path::new("toolgate.yaml").parent()` is `Some("")`: that must mean ".", not fail.
    let schema = json!({ "type": "object" });
    let contract = ResponseContract::compile(&schema, Some(Path::new(""))).expect("compiles");
    assert!(contract.check(&json!({})).is_ok());
    assert!(SchemaFiles::new([""]).is_ok());
}

#[test]
fn no_root_means_no_files() {
    let (parent, root) = dirs("none");
    std::fs::write(root.join("item.json"), ITEM).expect("write");
    let err = SchemaFiles::none()
        .read(&root.join("item.json"))
        .expect_err("no roots");
    assert!(matches!(err, SchemaFileError::Outside { .. }), "{err}");
    let schema = json!({ "$ref": format!("file://{}/item.json", root.display()) });
    assert!(ResponseContract::compile(&schema, None).is_err());
    let _ = std::fs::remove_dir_all(&parent);
}
