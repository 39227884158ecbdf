//! Files the CLI reads besides a config — the config `import -o` merges into and the
//! schema `toolgate diff` checks against — get the bounds a config gets: a FIFO is
//! never opened (it would block), a file past 64 MiB is not read, UTF-16 is named.

// A test that cannot set up its files should fail loudly: unwrap is right here.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SPEC: &str = r#"{"openapi": "3.0.0", "info": {"title": "t", "version": "1"},
 "servers": [{"url": "https://api.example.com"}],
 "paths": {"/x": {"get": {"operationId": "x", "responses": {"200": {"description": "ok"}}}}}}"#;

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "toolgate-bounded-{tag}-{}-{}",
        std::process::id(),
        rand::random::<u32>()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success());
}

fn utf16(text: &str) -> Vec<u8> {
    std::iter::once(0xFEFF_u16)
        .chain(text.encode_utf16())
        .flat_map(u16::to_le_bytes)
        .collect()
}

fn import_into(dir: &Path, output: &Path) -> Output {
    let spec = dir.join("spec.json");
    std::fs::write(&spec, SPEC).unwrap();
    Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["import", "openapi"])
        .arg(&spec)
        .args(["--owner", "team@example.com", "-o"])
        .arg(output)
        .output()
        .unwrap()
}

fn diff_against(schema: &Path) -> Output {
    let body = schema.with_file_name("body.json");
    std::fs::write(&body, "{}").unwrap();
    Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("diff")
        .arg(schema)
        .arg(&body)
        .output()
        .unwrap()
}

fn refused_saying(out: &Output, why: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "not refused: {err}");
    assert!(err.contains(why), "{err}");
}

#[test]
fn the_config_an_import_merges_into_is_read_with_a_configs_bounds() {
    let dir = temp_dir("import");
    // A FIFO: reading it would wait for a writer forever.
    let fifo = dir.join("fifo.yaml");
    mkfifo(&fifo);
    refused_saying(&import_into(&dir, &fifo), "not a regular file");
    let big = dir.join("big.yaml");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(100 << 20)
        .unwrap();
    refused_saying(&import_into(&dir, &big), "larger than 64 MiB");
    let wide = dir.join("wide.yaml");
    std::fs::write(&wide, utf16("tools: {}\n")).unwrap();
    refused_saying(&import_into(&dir, &wide), "UTF-16");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_schema_diff_checks_against_is_read_with_a_configs_bounds() {
    let dir = temp_dir("diff");
    let fifo = dir.join("schema.json");
    mkfifo(&fifo);
    refused_saying(&diff_against(&fifo), "not a regular file");
    let big = dir.join("big.json");
    std::fs::File::create(&big)
        .unwrap()
        .set_len(100 << 20)
        .unwrap();
    refused_saying(&diff_against(&big), "larger than 64 MiB");
    let wide = dir.join("wide.json");
    std::fs::write(&wide, utf16("{\"type\": \"object\"}")).unwrap();
    refused_saying(&diff_against(&wide), "UTF-16");
    let _ = std::fs::remove_dir_all(&dir);
}
