//! A `pattern` many schemas of one config name is compiled once, for input schemas and
//! contracts alike. AWS descriptions write `^arn:.{16,2044}$` for every ARN: compiled,
//! that one expression takes megabytes, and Elastic Disaster Recovery's 47 tools name
//! it in 10 schemas (330 MB of memory for `toolgate check` when each compiled its own).
//!
//! Measured as the process's resident memory, so this file is a test binary of its own
//! with one test.

use std::path::Path;

const ARN: &str = "^arn:.{16,2044}$";

/// A config of `tools` tools, each with its own input schema and contract (different
/// property names, so no two schemas are the same text), all naming [`ARN`].
fn config(tools: usize) -> String {
    let mut text =
        String::from("dependencies:\n  d: {base_url: 'https://api.example.com'}\ntools:\n");
    for i in 0..tools {
        text.push_str(&format!(
            "  t{i}:\n    dependency: d\n    owner: o@example.com\n    request: {{path: /p}}\n    \
             input_schema: {{type: object, properties: {{in{i}: {{type: string, pattern: '{ARN}'}}}}}}\n    \
             contract: {{version: '1.0', response_schema: {{type: object, properties: {{out{i}: {{type: string, pattern: '{ARN}'}}}}}}}}\n"
        ));
    }
    text
}

/// The process's resident memory in bytes (Linux).
fn resident() -> usize {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux's /proc");
    let line = status
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .expect("a VmRSS line");
    let kb: usize = line
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("VmRSS in kB");
    kb * 1024
}

fn compile(text: &str) -> toolgate_config::Config {
    let env = |_: &str| None;
    toolgate_config::parse(Path::new("t.yaml"), text, Path::new("."), &env)
        .expect("the config is valid")
}

#[test]
fn a_pattern_named_by_forty_schemas_is_compiled_once() {
    // What any compile builds once (the expression included) is in memory after this.
    let first = compile(&config(1));
    let before = resident();
    let forty = compile(&config(20));
    let grown = resident().saturating_sub(before);
    assert_eq!(forty.tools.len(), 20);
    // Twenty tools' schemas and validators take well under a megabyte; a compiled copy
    // of the expression per schema would take megabytes each, 40 of them.
    assert!(
        grown < 16 << 20,
        "20 more tools with the same pattern grew resident memory by {} MB",
        grown >> 20
    );
    drop((first, forty));
}
