//! The audit trail of a real `toolgate serve` process: records survive `kill -9`, the
//! store file opens cleanly afterwards, and no argument value is ever stored or shown.

use std::collections::HashSet;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::check::Serving;
use crate::harness::{call, rmcp_client, start_upstream, temp_dir};

/// Looks like a credential a model might paste into an argument.
const SECRET: &str = "sk-live-9f8e7d6c5b4a39281706f5e4";

fn config(upstream: std::net::SocketAddr) -> String {
    format!(
        r#"gateway:
  listen: 127.0.0.1:0
  state: state.db
  audit: {{ retention: 30d }}
dependencies:
  search_api:
    base_url: http://{upstream}
    timeout: 5s
tools:
  web_search:
    dependency: search_api
    owner: alice@example.com
    description: Search the web.
    request: {{ method: GET, path: /v3/search, query: {{ q: "{{query}}" }} }}
    input_schema: {{ type: object, required: [query], properties: {{ query: {{ type: string }} }} }}
    contract: {{ version: "3.1", response_schema: {{ type: object, required: [results] }} }}
"#
    )
}

fn serve(dir: &Path) -> (Serving, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_toolgate"));
    cmd.current_dir(dir)
        .args(["serve", "-c", "toolgate.yaml"])
        .env_remove("TOOLGATE_CONFIG")
        .env("NO_COLOR", "1");
    let mut serving = Serving::start(cmd);
    let line = serving.wait_for("toolgate is serving");
    let start = line.find("http://127.0.0.1:").expect("the listen address");
    let rest = &line[start..];
    let base = rest[..rest.find("/mcp").expect("the /mcp URL")].to_string();
    (serving, base)
}

/// Every record `/admin/audit` returns, as JSON lines parsed.
async fn admin_audit(base: &str, query: &str) -> (String, Vec<Value>) {
    let resp = reqwest::get(format!("{base}/admin/audit?{query}"))
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(
        resp.headers()["content-type"].to_str().unwrap(),
        "application/jsonl"
    );
    let body = resp.text().await.unwrap();
    let records = body
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (body, records)
}

fn key(r: &Value) -> String {
    serde_json::to_string(r).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn records_acknowledged_before_a_kill_9_survive_it_and_no_argument_value_is_stored() {
    let upstream = start_upstream().await;
    let dir = temp_dir("audit-kill9");
    std::fs::write(dir.join("toolgate.yaml"), config(upstream.addr)).unwrap();
    let (mut serving, base) = serve(&dir);
    let client =
        Arc::new(rmcp_client(&format!("{base}/mcp"), crate::harness::Era::Handshake).await);

    const N: usize = 40;
    for _ in 0..N {
        let r = call(&client, "web_search", json!({ "query": SECRET })).await;
        assert_ne!(r.is_error, Some(true));
    }
    // Acknowledged: committed by the writer, so the store shows them.
    let mut acknowledged = Vec::new();
    for _ in 0..500 {
        acknowledged = admin_audit(&base, "limit=10000").await.1;
        if acknowledged.len() >= N {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(acknowledged.len(), N, "every call recorded");
    let expected_hash =
        toolgate_engine::audit::args_sha256(json!({ "query": SECRET }).as_object().unwrap());
    for r in &acknowledged {
        assert_eq!(r["agent"], "anonymous");
        assert_eq!(r["tool"], "web_search");
        assert_eq!(r["outcome"], "ok");
        assert_eq!(r["attempts"], 1);
        assert_eq!(r["args_sha256"], expected_hash.as_str());
        assert!(r["request_id"].is_string(), "{r}");
    }
    let (body, filtered) = admin_audit(&base, "tool=web_search&class=ok&since=1h&limit=5").await;
    assert_eq!(filtered.len(), 5);
    assert!(!body.contains(SECRET));
    assert!(admin_audit(&base, "agent=nobody").await.1.is_empty());
    let bad = reqwest::get(format!("{base}/admin/audit?since=yesterday"))
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    assert!(bad.text().await.unwrap().contains("RFC 3339"));

    // More calls in flight, then kill -9 while they run.
    let mut inflight = Vec::new();
    for _ in 0..8 {
        let client = client.clone();
        inflight.push(tokio::spawn(async move {
            for _ in 0..200 {
                let mut params = rmcp::model::CallToolRequestParams::new("web_search".to_string());
                params.arguments = json!({ "query": SECRET }).as_object().cloned();
                if client.call_tool(params).await.is_err() {
                    return;
                }
            }
        }));
    }
    let mut before_kill = Vec::new();
    for _ in 0..500 {
        before_kill = admin_audit(&base, "limit=10000").await.1;
        if before_kill.len() >= N + 50 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert!(before_kill.len() >= N + 50, "calls in flight are recorded");
    serving.kill9();
    for task in inflight {
        let _ = task.await;
    }

    // The file opens cleanly (the WAL is replayed) and passes SQLite's own check.
    {
        let db = rusqlite::Connection::open(dir.join("state.db")).unwrap();
        let check: String = db
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
    }
    // Restarted, the server and `toolgate audit` see every acknowledged record.
    let (_serving, base) = serve(&dir);
    let after: HashSet<String> = admin_audit(&base, "limit=10000")
        .await
        .1
        .iter()
        .map(key)
        .collect();
    let lost: Vec<&Value> = before_kill
        .iter()
        .filter(|r| !after.contains(&key(r)))
        .collect();
    assert!(lost.is_empty(), "acknowledged records lost: {lost:?}");

    let out = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .current_dir(&dir)
        .args([
            "audit",
            "-c",
            "toolgate.yaml",
            "--json",
            "--limit",
            "10000",
            "--tool",
            "web_search",
        ])
        .env_remove("TOOLGATE_CONFIG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    let exported: HashSet<String> = stdout
        .lines()
        .map(|l| key(&serde_json::from_str::<Value>(l).unwrap()))
        .collect();
    assert_eq!(exported, after, "the CLI exports what the server serves");
    let text = Command::new(env!("CARGO_BIN_EXE_toolgate"))
        .current_dir(&dir)
        .args([
            "audit",
            "-c",
            "toolgate.yaml",
            "--agent",
            "anonymous",
            "--since",
            "1h",
            "--limit",
            "3",
        ])
        .env_remove("TOOLGATE_CONFIG")
        .output()
        .unwrap();
    let text_out = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text_out.lines().count(), 3, "{text_out}");
    assert!(
        text_out.contains("anonymous web_search ok attempts=1"),
        "{text_out}"
    );

    // The argument's value is nowhere: not in the store's files, not in any output.
    for name in ["state.db", "state.db-wal", "state.db-shm"] {
        if let Ok(bytes) = std::fs::read(dir.join(name)) {
            assert!(
                !bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()),
                "{name} holds the argument's value"
            );
        }
    }
    assert!(!stdout.contains(SECRET) && !text_out.contains(SECRET));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_audit_command_is_read_only_and_refuses_a_missing_store_and_bad_filters() {
    let dir = temp_dir("audit-cli");
    std::fs::write(
        dir.join("toolgate.yaml"),
        config("127.0.0.1:9".parse().unwrap()),
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .current_dir(&dir)
            .arg("audit")
            .args(["-c", "toolgate.yaml"])
            .args(args)
            .env_remove("TOOLGATE_CONFIG")
            .output()
            .unwrap()
    };
    let out = run(&[]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no state store at") && err.contains("nothing was created"),
        "{err}"
    );
    assert!(
        !dir.join("state.db").exists(),
        "a read-only command created a store"
    );
    let out = run(&["--since", "last tuesday"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && err.contains("--since") && err.contains("RFC 3339"),
        "{err}"
    );
    let out = run(&["--limit", "20000"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("1 to 10000"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
