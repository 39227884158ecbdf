//! `toolgate check`: every config error at once, each with line, column and the fix.

use std::process::Command;

use crate::harness::temp_dir;

const BROKEN: &str = r#"gateway:
  listen: 127.0.0.1:8765
dependencies:
  search_api:
    base_url: https://api.example.com
    timeout: 10 seconds
tools:
  web_search:
    dependency: search_api
    description: Search the web.
    request: { method: GET, path: /v3/search, query: { q: "{query}" } }
    input_schema: { type: object, properties: { query: { type: string } } }
    contract: { version: "3.1", response_schema: { type: object } }
  news:
    dependency: news_api
    owner: bob@example.com
    request: { path: /news }
    contract: { version: "1.0", response_schema: { type: object } }
"#;

#[test]
fn check_reports_every_error_with_line_column_and_fix() {
    let dir = temp_dir("check");
    let file = dir.join("toolgate.yaml");
    std::fs::write(&file, BROKEN).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["check", "--config"])
        .arg(&file)
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success(), "check must fail on a broken config");
    let report = String::from_utf8(out.stderr)
        .unwrap()
        .replace(&dir.display().to_string(), "<dir>");
    insta::assert_snapshot!(report);
}

#[test]
fn check_accepts_the_demo_config_shape() {
    let dir = temp_dir("check-ok");
    let file = dir.join("toolgate.yaml");
    std::fs::write(
        &file,
        toolgate::demo::config_yaml("http://127.0.0.1:9", "127.0.0.1:8765"),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["check", "--config"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("7 tools"));
}

#[test]
fn diff_prints_the_drift_offline_and_exits_1() {
    let dir = temp_dir("diff");
    let schema = dir.join("schema.json");
    let response = dir.join("response.json");
    std::fs::write(
        &schema,
        r#"{"type":"object","required":["results"],"properties":{"results":{"type":"array","items":{"type":"object","required":["title","snippet"],"properties":{"title":{"type":"string"},"snippet":{"type":"string"}}}}}}"#,
    )
    .unwrap();
    std::fs::write(&response, r#"{"results":[{"title":"a","excerpt":"b"}]}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("diff")
        .arg(&schema)
        .arg(&response)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("results[].snippet")
            && text.contains("results[].excerpt")
            && text.contains("rename"),
        "{text}"
    );

    std::fs::write(&response, r#"{"results":[{"title":"a","snippet":"b"}]}"#).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .arg("diff")
        .arg(&schema)
        .arg(&response)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}
