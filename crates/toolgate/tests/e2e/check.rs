//! `toolgate check`: every config error at once, each with line, column and the fix.

use std::io::{BufRead as _, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;

use crate::harness::{Era, call, rmcp_client, temp_dir, text};

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

/// A fleet's config with traces: a build without PostgreSQL, Redis or the OTLP exporter
/// says, for each part the config uses, which feature brings it (and fails); a build
/// with them accepts it. Nothing is connected to either way.
#[test]
fn check_names_the_feature_each_part_needs_that_this_build_lacks() {
    let dir = temp_dir("check-features");
    let file = dir.join("toolgate.yaml");
    let demo = toolgate::demo::config_yaml("http://127.0.0.1:9", "127.0.0.1:8765");
    let mut yaml: String = demo
        .lines()
        .map(|line| {
            if line.starts_with("  state:") {
                "  state: postgres://toolgate:s3cret@127.0.0.1:9/fleet\n  shared: redis://127.0.0.1:9/0\n"
                    .to_string()
            } else {
                format!("{line}\n")
            }
        })
        .collect();
    yaml.push_str("telemetry:\n  otlp: { endpoint: \"http://127.0.0.1:9\" }\n");
    std::fs::write(&file, yaml).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .args(["check", "--config"])
        .arg(&file)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let parts = [
        (
            cfg!(feature = "postgres"),
            "rebuild with `--features postgres`",
        ),
        (cfg!(feature = "redis"), "rebuild with `--features redis`"),
        (cfg!(feature = "otel"), "rebuild with `--features otel`"),
    ];
    for (built, sentence) in parts {
        assert_eq!(stderr.contains(sentence), !built, "{sentence}: {stderr}");
    }
    let all = parts.iter().all(|(built, _)| *built);
    assert_eq!(out.status.success(), all, "{stderr}");
    assert!(!stderr.contains("s3cret"), "{stderr}");
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

/// `toolgate` run as a user would: in `dir`, with no config path from the environment.
fn toolgate_in(dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    cmd.current_dir(dir)
        .env_remove("TOOLGATE_CONFIG")
        .env_remove("TOOLGATE_LOG")
        .env("NO_COLOR", "1");
    cmd
}

/// The stderr of a failed `check`, with the temp dir replaced by `<dir>`.
fn check_errors(dir: &Path, args: &[&str]) -> String {
    let out = toolgate_in(dir).arg("check").args(args).output().unwrap();
    assert!(
        !out.status.success(),
        "check must fail: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    String::from_utf8(out.stderr)
        .unwrap()
        .replace(&dir.display().to_string(), "<dir>")
}

/// A `toolgate serve` child whose stderr is read line by line; killed on drop.
pub struct Serving {
    child: Child,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Serving {
    pub fn start(mut cmd: Command) -> Serving {
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        // Drains stderr for the child's whole life, so it never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Serving {
            child,
            lines,
            seen: Vec::new(),
        }
    }

    /// Reads stderr until a line contains `needle`; fails with everything read if the
    /// process exits first.
    pub fn wait_for(&mut self, needle: &str) -> String {
        loop {
            match self.lines.recv() {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => panic!(
                    "toolgate exited before printing {needle:?}:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

impl Serving {
    /// Kills the process with SIGKILL (no shutdown, no flush) and waits for it.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Serving {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A config with a contract in a file next to it, as a newcomer would lay it out.
const MINIMAL: &str = r#"gateway:
  listen: 127.0.0.1:0
dependencies:
  search_api:
    base_url: http://127.0.0.1:9
tools:
  web_search:
    dependency: search_api
    owner: search-team@example.com
    request: { path: /v3/search }
    contract: { version: "3.1", response_schema: { $ref: schemas/search.json } }
"#;

const SEARCH_SCHEMA: &str = r#"{"type":"object","required":["results"],"properties":{"results":{"type":"array","items":{"$ref":"item.json"}}}}"#;
const ITEM_SCHEMA: &str =
    r#"{"type":"object","required":["snippet"],"properties":{"snippet":{"type":"string"}}}"#;

#[test]
fn a_bare_config_file_name_works_for_check_serve_and_diff() {
    let dir = temp_dir("bare-name");
    std::fs::write(dir.join("toolgate.yaml"), MINIMAL).unwrap();
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::write(dir.join("schemas/search.json"), SEARCH_SCHEMA).unwrap();
    std::fs::write(dir.join("schemas/item.json"), ITEM_SCHEMA).unwrap();

    // `toolgate check -c toolgate.yaml` and plain `toolgate check`.
    for args in [&["check", "-c", "toolgate.yaml"][..], &["check"]] {
        let out = toolgate_in(&dir).args(args).output().unwrap();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout)
                .contains("toolgate.yaml: ok — 1 dependency, 1 tool"),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stdout)
        );
    }

    // `toolgate diff schema.json resp.json`, with the schema's own file $ref.
    std::fs::write(dir.join("schema.json"), SEARCH_SCHEMA).unwrap();
    std::fs::write(dir.join("item.json"), ITEM_SCHEMA).unwrap();
    std::fs::write(dir.join("resp.json"), r#"{"results":[{"excerpt":"b"}]}"#).unwrap();
    let out = toolgate_in(&dir)
        .args(["diff", "schema.json", "resp.json"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("probably a rename"), "{stdout}");

    // `toolgate serve` with the default config path.
    let mut cmd = toolgate_in(&dir);
    cmd.arg("serve");
    let mut serving = Serving::start(cmd);
    serving.wait_for("toolgate is serving");
    assert!(
        dir.join(".toolgate/state.db").exists(),
        "the default state store is next to the config"
    );
}

#[test]
fn check_reports_every_unknown_field_once_without_cascading() {
    let dir = temp_dir("typos");
    std::fs::write(
        dir.join("toolgate.yaml"),
        r#"gateway:
  listen: [127.0.0.1]
  deadline: 0s
dependencies:
  search_api:
    base_url: https://api.example.com
    timout: 5s
    retry: { max_atempts: 3, base_delay: 50ms }
    rate_limit_headers: [github]
tools:
  web_search:
    dependency: serch_api
    owner: search-team@example.com
    request: { path: /v3/search }
    contract: { version: "3.1", response_schema: { type: object } }
  news:
    dependency: search_api
    owner: news@example.com
    request: { path: /news, methd: GET }
    contract: { version: "1.0", response_schema: { type: object } }
    probe: { every: 1h, argumnets: {} }
  broken:
    dependency: search_api
    owner: 42
    request: { path: /broken }
    contract: { version: "1.0", response_schema: { type: object } }
  old:
    dependency: search_api
    owner: news@example.com
    request: { path: /old }
    successor: broken
    contract: { version: "1.0", response_schema: { type: object } }
"#,
    )
    .unwrap();
    let report = check_errors(&dir, &["-c", "toolgate.yaml"]);
    // Each typo is its own error, at its own line, with the field it probably meant.
    for (field, fix) in [
        ("dependencies.search_api.timout", "did you mean `timeout`?"),
        (
            "dependencies.search_api.retry.max_atempts",
            "did you mean `max_attempts`?",
        ),
        ("tools.web_search.dependency", "did you mean `search_api`?"),
        ("tools.news.request.methd", "did you mean `method`?"),
        ("tools.news.probe.argumnets", "did you mean `arguments`?"),
    ] {
        assert!(
            report.contains(&format!("field: {field}\n  = help: {fix}")),
            "{field}: {report}"
        );
    }
    // A field of the wrong type is one error, and the rest of its entry is still checked.
    assert!(
        report.contains("field: gateway.listen\n")
            && report.contains("field: gateway.deadline\n")
            && report.contains("field: dependencies.search_api.rate_limit_headers\n"),
        "{report}"
    );
    // A dependency with typos is still defined; a tool with a bad value is still a tool.
    assert!(
        !report.contains("`search_api`, which is not defined") && !report.contains("none defined"),
        "{report}"
    );
    assert!(!report.contains("successor `broken`"), "{report}");
    // The owner of the wrong type is reported once, not again as a missing owner.
    assert!(!report.contains("tool `broken` has no owner"), "{report}");
    insta::assert_snapshot!(report);
}

#[test]
fn check_rejects_values_that_cannot_work() {
    let dir = temp_dir("minimums");
    std::fs::write(
        dir.join("toolgate.yaml"),
        r#"gateway:
  state: ""
  max_response_bytes: 0
  deadline: 0s
alerts:
  evaluate_every: 0s
  throttle: 0s
dependencies:
  search_api:
    base_url: https://api.example.com
    timeout: 0s
    retry: { max_attempts: 0, base_delay: 500ms, max_delay: 100ms }
    status_page: { url: "https://status.example.com/api/v2/status.json", every: 0ms }
tools:
  web_search:
    dependency: search_api
    owner: search-team@example.com
    request: { path: /v3/search }
    contract: { version: "3.1", response_schema: { type: object } }
    probe: { every: 0s }
    deadline: 1ms
"#,
    )
    .unwrap();
    let report = check_errors(&dir, &["-c", "toolgate.yaml"]);
    for (field, help) in [
        ("gateway.state", "write a file path"),
        ("gateway.max_response_bytes", "use at least 1KiB"),
        ("gateway.deadline", "use at least 10ms"),
        ("alerts.evaluate_every", "use at least 1s"),
        ("alerts.throttle", "use at least 1s"),
        ("dependencies.search_api.timeout", "use at least 10ms"),
        (
            "dependencies.search_api.retry.max_attempts",
            "use a number from 1 (no retries) to 10",
        ),
        (
            "dependencies.search_api.retry.max_delay",
            "use at least 500ms (the base_delay)",
        ),
        (
            "dependencies.search_api.status_page.every",
            "use at least 1s",
        ),
        ("tools.web_search.probe.every", "use at least 1s"),
        ("tools.web_search.deadline", "use at least 10ms"),
    ] {
        assert!(
            report.contains(&format!("field: {field}\n  = help: {help}")),
            "{field}: {report}"
        );
    }
    assert!(
        report.ends_with("has 11 errors\n") || report.ends_with("has 11 errors"),
        "{report}"
    );
    insta::assert_snapshot!(report);
}

#[test]
fn check_refuses_schema_refs_outside_the_config_directory() {
    let outer = temp_dir("refs");
    let dir = outer.join("project");
    std::fs::create_dir_all(dir.join("schemas")).unwrap();
    std::fs::create_dir_all(outer.join("common")).unwrap();
    let secret = r#"{"type": "object", "description": "hunter2-secret"}"#;
    std::fs::write(outer.join("secret.json"), secret).unwrap();
    std::fs::write(outer.join("common/item.json"), ITEM_SCHEMA).unwrap();
    std::fs::write(
        dir.join("schemas/nested.json"),
        r#"{"type":"object","properties":{"x":{"$ref":"../../secret.json"}}}"#,
    )
    .unwrap();
    let tool = |name: &str, schema: &str| {
        format!(
            "  {name}:\n    dependency: api\n    owner: a@example.com\n    request: {{ path: /{name} }}\n    contract: {{ version: \"1.0\", response_schema: {schema} }}\n"
        )
    };
    let mut yaml =
        String::from("dependencies:\n  api:\n    base_url: http://127.0.0.1:9\ntools:\n");
    yaml += &tool("passwd", "{ $ref: /etc/passwd }");
    yaml += &tool("escape", "{ $ref: ../secret.json }");
    yaml += &tool("nested", "{ $ref: schemas/nested.json }");
    yaml += &tool(
        "inline",
        "{ type: object, properties: { x: { $ref: ../secret.json } } }",
    );
    yaml += &tool("zero", "{ $ref: /dev/zero }");
    std::fs::write(dir.join("toolgate.yaml"), &yaml).unwrap();

    let report = check_errors(&dir, &["-c", "toolgate.yaml"]);
    assert!(
        !report.contains("root:x"),
        "/etc/passwd is echoed: {report}"
    );
    assert!(
        !report.contains("hunter2"),
        "the secret is echoed: {report}"
    );
    for t in ["passwd", "escape", "nested", "inline", "zero"] {
        let at = report
            .find(&format!("field: tools.{t}.contract.response_schema"))
            .unwrap_or_else(|| panic!("no error for {t}: {report}"));
        // The message of that error is the `error:` line before its field.
        let start = report[..at].rfind("error: ").unwrap();
        assert!(
            report[start..at].contains("outside the directories"),
            "{t}: {}",
            &report[start..at]
        );
    }

    // `gateway.schema_roots` widens the allowed directories, and only to what it names.
    let widened = format!(
        "gateway:\n  schema_roots: [../common]\n{}",
        "dependencies:\n  api:\n    base_url: http://127.0.0.1:9\ntools:\n"
    ) + &tool(
        "shared",
        "{ type: array, items: { $ref: ../common/item.json } }",
    );
    std::fs::write(dir.join("toolgate.yaml"), widened).unwrap();
    let out = toolgate_in(&dir).args(["check"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[tokio::test]
async fn incidents_and_status_work_against_the_demo() {
    let dir = temp_dir("demo-cli");
    // Before the demo ran here, there is no store to read, and it says so.
    let out = toolgate_in(&dir)
        .args(["incidents", "--demo"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("no demo state store"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!dir.join(".toolgate").exists(), "nothing is created");
    let mut cmd = toolgate_in(&dir);
    cmd.args([
        "--log-format",
        "json",
        "serve",
        "--demo",
        "--listen",
        "127.0.0.1:0",
    ]);
    let mut serving = Serving::start(cmd);
    let log = serving.wait_for("toolgate is serving");
    let log: serde_json::Value = serde_json::from_str(&log).unwrap();
    // What the agent sees in tools/list: the 7 demo tools and dependency_health.
    assert_eq!(log["fields"]["tools"], 8, "{log}");
    let banner = serving.wait_for("MCP at ");
    let base = banner
        .split("MCP at ")
        .nth(1)
        .unwrap()
        .trim()
        .trim_end_matches("/mcp")
        .to_string();
    let state = serving.wait_for("state store:");
    let demo_db = dir.join(".toolgate/demo.db");
    assert!(
        state.contains(&demo_db.display().to_string()),
        "the demo prints where its store is: {state}"
    );

    // A drift incident, as the README walks through it.
    let client = rmcp_client(&format!("{base}/mcp"), Era::Stateless).await;
    call(
        &client,
        "demo_control",
        serde_json::json!({ "search_field": "excerpt" }),
    )
    .await;
    let drift = call(
        &client,
        "web_search",
        serde_json::json!({ "query": "rust" }),
    )
    .await;
    assert_eq!(drift.is_error, Some(true), "{}", text(&drift));
    client.cancel().await.unwrap();

    let out = toolgate_in(&dir)
        .args(["incidents", "--demo"])
        .output()
        .unwrap();
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        listed.contains("contract_drift") && listed.contains("search-team@example.com"),
        "{listed}"
    );

    let out = toolgate_in(&dir)
        .args(["status", "--demo", "--url", &base])
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        table.contains("web_search") && table.contains("search-team@example.com"),
        "{table}"
    );
}

#[tokio::test]
async fn read_only_commands_need_no_upstream_secret_and_never_create_a_store() {
    let dir = temp_dir("read-only-cli");
    let config_dir = dir.join("conf");
    std::fs::create_dir_all(&config_dir).unwrap();
    // A relative state path, an upstream credential and a base URL from the environment.
    std::fs::write(
        config_dir.join("toolgate.yaml"),
        "gateway:\n  state: data/state.db\n\
         dependencies:\n  api:\n    base_url: ${API_BASE}\n    headers: { authorization: \"Bearer ${API_TOKEN}\" }\n\
         tools:\n  t:\n    dependency: api\n    owner: o@example.com\n    request: { path: /x }\n",
    )
    .unwrap();
    let elsewhere = dir.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let incidents = || {
        let mut cmd = toolgate_in(&elsewhere);
        cmd.env_remove("API_BASE").env_remove("API_TOKEN").args([
            "incidents",
            "-c",
            "../conf/toolgate.yaml",
        ]);
        cmd.output().unwrap()
    };
    // No store yet: refused, naming the file looked for, and nothing is created.
    let out = incidents();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("no state store at") && stderr.contains("conf/data/state.db"),
        "{stderr}"
    );
    assert!(!config_dir.join("data").exists(), "nothing was created");
    assert!(!elsewhere.join("data").exists(), "nothing was created");
    assert!(
        !stderr.contains("API_TOKEN"),
        "no secret is asked for: {stderr}"
    );

    // Once a store exists beside the config (as `serve` run from anywhere makes it), the
    // command reads that one from any directory, and says which.
    let store = toolgate_store::Store::open(&config_dir.join("data/state.db")).unwrap();
    let out = incidents();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("conf/data/state.db"), "{stderr}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("no open incidents"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    // An incident someone acknowledged (in the console) says who.
    let recorded = store
        .record_incident(toolgate_store::NewIncident {
            kind: toolgate_store::IncidentKind::ContractDrift,
            tool: "t".into(),
            dependency: "api".into(),
            owner: "o@example.com".into(),
            fingerprint: "f".into(),
            title: "t no longer matches contract v1".into(),
            detail: serde_json::json!({}),
            contract_version: Some("1".into()),
        })
        .await
        .unwrap();
    store
        .acknowledge(recorded.id, "alice".into())
        .await
        .unwrap()
        .expect("the incident exists");
    let out = incidents();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("t no longer matches contract v1")
            && stdout.contains("acknowledged by alice"),
        "{stdout}"
    );

    // `check` (and `serve`) still refuse the unset variables.
    let out = toolgate_in(&config_dir)
        .env_remove("API_BASE")
        .env_remove("API_TOKEN")
        .args(["check"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("API_BASE is not set") && stderr.contains("API_TOKEN is not set"),
        "{stderr}"
    );
}
