use super::*;
use crate::temp_dir::TempDir;
use serde_json::json;

fn tool(v: Value) -> ToolDefinition {
    ToolDefinition::from_mcp(&v).expect("valid tool")
}

/// Two tools given out of order, with schema keys out of order.
fn docs_server() -> PinnedServer {
    PinnedServer {
        server_name: "docs-mcp".into(),
        server_version: "2.3.1".into(),
        protocol_version: "2025-06-18".into(),
        locked_at: "2026-12-01T10:00:00Z".into(),
        tools: vec![
            tool(json!({
                "name": "search",
                "title": "Search the docs",
                "description": "Full-text search over the documentation.",
                "inputSchema": {"type": "object", "required": ["query"], "properties": {
                    "query": {"type": "string"}, "limit": {"type": "integer", "minimum": 1}}},
                "outputSchema": {"type": "object", "properties": {"results": {"type": "array",
                    "items": {"type": "object", "properties": {"snippet": {"type": "string"}, "url": {"type": "string"}}}}}},
                "annotations": {"readOnlyHint": true, "openWorldHint": false}
            })),
            tool(json!({
                "name": "fetch_page",
                "description": "Fetch one page by URL.",
                "inputSchema": {"type": "object", "properties": {"url": {"type": "string", "format": "uri"}}, "required": ["url"]}
            })),
        ],
        prompts: Vec::new(),
        resource_templates: Vec::new(),
    }
}

fn lockfile() -> Lockfile {
    let mut l = Lockfile::default();
    l.merge("docs", docs_server());
    l
}

#[test]
fn the_lockfile_text_is_sorted_and_readable() {
    insta::assert_snapshot!(lockfile().to_json_string());
}

#[test]
fn write_then_read_round_trips_byte_for_byte() {
    let dir = TempDir::new("roundtrip");
    let path = dir.0.join("toolgate.lock.json");
    let original = lockfile();
    original.write(&path).expect("writes");
    let bytes = std::fs::read_to_string(&path).expect("reads");
    assert!(bytes.ends_with("}\n"));
    let back = Lockfile::read(&path).expect("parses").expect("exists");
    assert_eq!(back.to_json_string(), bytes);
    // Sorting is the only difference from what was merged in.
    assert_eq!(back.servers["docs"].tools[0].name, "fetch_page");
    assert_eq!(back.server("docs").map(|s| s.tools.len()), Some(2));
    assert!(crate::compare(&docs_server().tools, &back.servers["docs"].tools).is_empty());
    // Writing what was read gives the same file again.
    back.write(&path).expect("writes");
    assert_eq!(std::fs::read_to_string(&path).expect("reads"), bytes);
}

#[test]
fn prompts_round_trip_sorted_and_an_older_lockfile_reads_without_them() {
    let dir = TempDir::new("prompts");
    let path = dir.0.join("toolgate.lock.json");
    let prompt = |v: Value| PromptDefinition::from_mcp(&v).expect("valid prompt");
    let mut server = docs_server();
    server.prompts = vec![
        prompt(
            json!({"name": "summarize", "description": "Summarise a page.",
                "arguments": [{"name": "url", "required": true}, {"name": "style"}]}),
        ),
        prompt(json!({"name": "explain", "title": "Explain"})),
    ];
    let mut file = Lockfile::default();
    file.merge("docs", server);
    file.write(&path).expect("writes");
    let text = std::fs::read_to_string(&path).expect("reads");
    let back = Lockfile::read(&path).expect("parses").expect("exists");
    let names: Vec<&str> = back.servers["docs"]
        .prompts
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["explain", "summarize"]);
    assert_eq!(back.servers["docs"].prompts[1].arguments.len(), 2);
    assert!(back.servers["docs"].prompts[1].arguments[0].required);
    assert_eq!(back.to_json_string(), text);
    // A lockfile that pins no prompts has no `prompts` key, and reads as none.
    let old = lockfile().to_json_string();
    assert!(!old.contains("\"prompts\""), "{old}");
    let back = Lockfile::parse(&path, old.as_bytes()).expect("parses");
    assert!(back.servers["docs"].prompts.is_empty());
}

#[test]
fn merge_replaces_one_server_and_keeps_the_others() {
    let mut l = lockfile();
    let mut other = docs_server();
    other.server_name = "tickets".into();
    other.tools.truncate(1);
    l.merge("tickets", other.clone());
    other.server_version = "9".into();
    l.merge("tickets", other);
    assert_eq!(l.servers.len(), 2);
    assert_eq!(l.servers["tickets"].server_version, "9");
    assert_eq!(l.servers["docs"].tools.len(), 2);
}

#[test]
fn an_atomic_write_leaves_no_temporary_file() {
    let dir = TempDir::new("atomic");
    let path = dir.0.join("toolgate.lock.json");
    std::fs::write(&path, "old").expect("seed");
    lockfile().write(&path).expect("writes");
    lockfile().write(&path).expect("writes again");
    let names: Vec<String> = std::fs::read_dir(&dir.0)
        .expect("lists")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, vec!["toolgate.lock.json".to_owned()]);
    // A failed write (the target is a directory) cleans up after itself too.
    let blocked = dir.0.join("blocked");
    std::fs::create_dir(&blocked).expect("dir");
    std::fs::write(blocked.join("x"), "keep the directory non-empty").expect("seed");
    let err = lockfile()
        .write(&blocked)
        .expect_err("cannot replace a directory");
    assert!(err.to_string().contains("blocked"), "{err}");
    let count = std::fs::read_dir(&dir.0).expect("lists").count();
    assert_eq!(count, 2, "only the lockfile and the directory remain");
}

#[test]
fn learned_contracts_round_trip_and_a_bad_one_is_named() {
    let dir = TempDir::new("learned");
    let path = dir.0.join("toolgate.lock.json");
    let mut l = lockfile();
    l.learned.insert(
            "web_search".into(),
            LearnedPin {
                learned_at: "2026-12-01T10:00:00Z".into(),
                samples: 412,
                capped: false,
                schema: json!({"type": "object", "required": ["results"], "properties": {"results": {"type": "array"}}}),
            },
        );
    l.write(&path).expect("writes");
    let text = std::fs::read_to_string(&path).expect("reads");
    assert!(text.contains("\"samples\": 412"), "{text}");
    assert!(!text.contains("capped"), "false is left out: {text}");
    let back = Lockfile::read(&path).expect("parses").expect("exists");
    assert_eq!(back, l);
    assert!(!lockfile().to_json_string().contains("learned"));
    let err = Lockfile::parse(
        &path,
        br#"{"lockfile_version": 1, "servers": {}, "learned": {"t": {"samples": 3}}}"#,
    )
    .expect_err("no schema");
    assert!(err.to_string().contains("learned contract of `t`"), "{err}");
}

#[test]
fn a_missing_file_is_none() {
    let dir = TempDir::new("missing");
    assert!(matches!(Lockfile::read(&dir.0.join("nope.json")), Ok(None)));
}

#[test]
fn a_newer_version_is_refused() {
    let p = Path::new("/x/toolgate.lock.json");
    let err =
        Lockfile::parse(p, br#"{"lockfile_version": 2, "servers": {"a": 1}}"#).expect_err("newer");
    assert!(matches!(err, PinError::NewerVersion { version: 2, .. }));
    let msg = err.to_string();
    assert!(msg.contains("written by a newer toolgate"), "{msg}");
    assert!(msg.contains("/x/toolgate.lock.json"), "{msg}");
    for bad in [
        r#"{"servers": {}}"#,
        r#"{"lockfile_version": 0, "servers": {}}"#,
        r#"{"lockfile_version": "1", "servers": {}}"#,
        r#"[]"#,
        r#"{"lockfile_version": 1, "servers": {"a": {"tools": []}}}"#,
        r#"{"lockfile_version": 1}"#,
    ] {
        let err = Lockfile::parse(p, bad.as_bytes()).expect_err(bad);
        assert!(matches!(err, PinError::Shape { .. }), "{bad}: {err}");
        assert!(err.to_string().contains("/x/toolgate.lock.json"));
    }
    assert!(Lockfile::parse(p, br#"{"lockfile_version": 1, "servers": {}}"#).is_ok());
    let err = Lockfile::parse(
        p,
        br#"{"lockfile_version": 1, "servers": {"docs": {"server_name": "d", "server_version": "1",
                "protocol_version": "2025-06-18", "locked_at": "2026-12-01T10:00:00Z",
                "tools": [{"name": "a", "inputSchema": {}}, {"name": "b"}]}}}"#,
    )
    .expect_err("a tool without inputSchema");
    assert_eq!(
        err.to_string(),
        "the lockfile /x/toolgate.lock.json is not a toolgate lockfile: server `docs`: tools[1] (`b`): missing field `inputSchema`"
    );
}

#[test]
fn a_truncated_file_is_refused_with_its_position() {
    let dir = TempDir::new("truncated");
    let path = dir.0.join("toolgate.lock.json");
    let text = lockfile().to_json_string();
    let cut = &text[..text.len() / 2];
    std::fs::write(&path, cut).expect("seed");
    let err = Lockfile::read(&path).expect_err("truncated");
    let lines = cut.lines().count();
    match &err {
        PinError::Json { line, column, .. } => {
            assert_eq!(*line, lines, "{err}");
            assert!(*column > 0);
        }
        other => panic!("{other}"),
    }
    let msg = err.to_string();
    assert!(msg.contains(&format!("line {lines}, column")), "{msg}");
    assert!(msg.contains("toolgate.lock.json"), "{msg}");
}

#[test]
fn an_oversized_file_is_refused_unparsed() {
    let dir = TempDir::new("huge");
    let path = dir.0.join("toolgate.lock.json");
    let f = std::fs::File::create(&path).expect("create");
    f.set_len(MAX_LOCKFILE_BYTES + 10).expect("sparse file");
    let err = Lockfile::read(&path).expect_err("too large");
    assert!(matches!(err, PinError::TooLarge { size, .. } if size == MAX_LOCKFILE_BYTES + 1));
    assert!(
        err.to_string().contains("over the 16777216-byte limit"),
        "{err}"
    );
}
