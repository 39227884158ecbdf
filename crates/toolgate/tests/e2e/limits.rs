//! The listener defends itself, and shuts down cleanly: the `toolgate` binary as a child
//! process (its own fd limit, RSS and signals), on loopback.

use std::io::{Read as _, Write as _};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use serde_json::{Value, json};

use crate::harness::*;

/// A loopback port free right now.
fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// An upstream with a `/slow` endpoint that answers after `delay`.
async fn slow_upstream(delay: Duration) -> SocketAddr {
    let app = Router::new().route(
        "/slow",
        get(move || async move {
            tokio::time::sleep(delay).await;
            axum::Json(json!({ "status": "done" }))
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    addr
}

fn config(dir: &Path, upstream: SocketAddr, gateway_extra: &str) -> std::path::PathBuf {
    let yaml = format!(
        r#"
gateway:
  state: {state}
{gateway_extra}
dependencies:
  slow_api:
    base_url: http://{upstream}
    timeout: 20s
tools:
  slow_tool:
    dependency: slow_api
    owner: ops@example.com
    request: {{ path: /slow }}
    annotations: {{ readOnlyHint: true }}
    contract: {{ version: "1.0", response_schema: {{ type: object, required: [status] }} }}
"#,
        state = dir.join("state.db").display()
    );
    let path = dir.join("toolgate.yaml");
    std::fs::write(&path, yaml).unwrap();
    path
}

/// `toolgate serve` on `port`, optionally under `prlimit --nofile=N:N`.
struct Server {
    child: Child,
    base: String,
    /// The server's stderr (its log).
    log: std::path::PathBuf,
}

impl Server {
    fn start(config: &Path, port: u16, nofile: Option<u32>) -> Server {
        // The test's own HTTP clients need the TLS provider toolgate installs.
        toolgate_engine::tls::init();
        let bin = env!("CARGO_BIN_EXE_toolgate");
        let listen = format!("127.0.0.1:{port}");
        let args = [
            "serve",
            "--config",
            config.to_str().unwrap(),
            "--listen",
            &listen,
        ];
        let mut command = match nofile {
            Some(n) => {
                let mut c = Command::new("prlimit");
                c.arg(format!("--nofile={n}:{n}")).arg(bin).args(args);
                c
            }
            None => {
                let mut c = Command::new(bin);
                c.args(args);
                c
            }
        };
        let log = config.with_file_name("toolgate.log");
        let child = command
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .env("NO_COLOR", "1")
            .spawn()
            .unwrap();
        let server = Server {
            child,
            base: format!("http://{listen}"),
            log,
        };
        server.wait_healthy(600);
        server
    }

    /// Polls /healthz, about every 50 ms, `tries` times.
    fn wait_healthy(&self, tries: u32) {
        for _ in 0..tries {
            if healthz(&self.base, Duration::from_secs(1)).is_some() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("{} did not answer /healthz after {tries} tries", self.base);
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn rss_kib(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.pid())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET /healthz on a new connection; the body when it answered 200 within `timeout`.
fn healthz(base: &str, timeout: Duration) -> Option<String> {
    let addr: SocketAddr = base.trim_start_matches("http://").parse().ok()?;
    let mut s = TcpStream::connect_timeout(&addr, timeout).ok()?;
    s.set_read_timeout(Some(timeout)).ok()?;
    s.set_write_timeout(Some(timeout)).ok()?;
    s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut out = String::new();
    s.read_to_string(&mut out).ok()?;
    (out.starts_with("HTTP/1.1 200") && out.ends_with("ok")).then_some(out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_under_a_low_fd_limit_do_not_stop_healthz() {
    let upstream = slow_upstream(Duration::from_millis(1)).await;
    let dir = temp_dir("limits-fd");
    // A long header timeout: only the connection limit can make room here.
    let cfg = config(&dir, upstream, "  header_timeout: 5m\n  idle_timeout: 5m");
    let server = Server::start(&cfg, free_port(), Some(256));
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    let base = server.base.clone();
    tokio::task::spawn_blocking(move || {
        let idle: Vec<TcpStream> = (0..300)
            .filter_map(|_| TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok())
            .collect();
        assert!(idle.len() >= 250, "only {} connections opened", idle.len());
        // The oldest idle connection is closed to make room, so a probe gets through.
        let answered = (0..100).any(|_| {
            healthz(&base, Duration::from_secs(5)).is_some() || {
                std::thread::sleep(Duration::from_millis(100));
                false
            }
        });
        assert!(
            answered,
            "/healthz never answered with 300 idle connections open"
        );
        drop(idle);
    })
    .await
    .unwrap();
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_header_client_is_closed_and_an_idle_keep_alive_one_is_not() {
    let upstream = slow_upstream(Duration::from_millis(1)).await;
    let dir = temp_dir("limits-slowloris");
    let cfg = config(&dir, upstream, "  header_timeout: 1s\n  idle_timeout: 5m");
    let server = Server::start(&cfg, free_port(), None);
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    tokio::task::spawn_blocking(move || {
        // Waiting between requests is not sending headers slowly: the header timeout
        // starts with a request's first byte, so this connection outlives it.
        let mut keep = TcpStream::connect(addr).unwrap();
        keep.set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let request = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
        let mut buf = [0u8; 512];
        keep.write_all(request).unwrap();
        let n = keep.read(&mut buf).unwrap();
        assert!(String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"));
        std::thread::sleep(Duration::from_millis(2500));
        keep.write_all(request).unwrap();
        let n = keep.read(&mut buf).unwrap();
        assert!(
            String::from_utf8_lossy(&buf[..n]).starts_with("HTTP/1.1 200"),
            "an idle keep-alive connection was closed by the header timeout"
        );

        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
            .unwrap();
        // Far longer than the 1 s header timeout: the server must have closed it by then.
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut rest = Vec::new();
        let closed = s.read_to_end(&mut rest);
        assert!(closed.is_ok(), "the connection was not closed: {closed:?}");
        assert!(
            !String::from_utf8_lossy(&rest).contains(" 200 "),
            "a request with unfinished headers was answered"
        );
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_body_that_trickles_in_is_answered_408_and_never_holds_a_slot() {
    let upstream = slow_upstream(Duration::from_millis(1)).await;
    let dir = temp_dir("limits-slow-body");
    let cfg = config(
        &dir,
        upstream,
        "  body_timeout: 1s\n  header_timeout: 5m\n  idle_timeout: 5m",
    );
    let server = Server::start(&cfg, free_port(), None);
    let addr: SocketAddr = server.base.trim_start_matches("http://").parse().unwrap();
    tokio::task::spawn_blocking(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(
            b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
              Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{",
        )
        .unwrap();
        // A byte every 200 ms: always arriving, never complete.
        let mut writer = s.try_clone().unwrap();
        let trickle = std::thread::spawn(move || {
            while writer.write_all(b" ").is_ok() {
                std::thread::sleep(Duration::from_millis(200));
            }
        });
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.contains("gateway.body_timeout"), "{answer}");
        let _ = s.shutdown(std::net::Shutdown::Both);
        trickle.join().unwrap();
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twenty_thousand_initializes_keep_rss_bounded() {
    let upstream = slow_upstream(Duration::from_millis(1)).await;
    let dir = temp_dir("limits-rss");
    let cfg = config(&dir, upstream, "  max_sessions: 10000");
    let server = Server::start(&cfg, free_port(), None);
    let url = format!("{}/mcp", server.base);
    let before = server.rss_kib();
    let client = reqwest::Client::new();
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"load","version":"1"}}}"#;
    let mut tasks = tokio::task::JoinSet::new();
    for worker in 0..8 {
        let client = client.clone();
        let url = url.clone();
        tasks.spawn(async move {
            let (mut opened, mut refused) = (0u32, 0u32);
            for _ in 0..2500 {
                let r = client
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .body(init)
                    .send()
                    .await
                    .unwrap();
                match r.status().as_u16() {
                    200 => opened += 1,
                    503 => refused += 1,
                    other => panic!("worker {worker}: initialize answered {other}"),
                }
                r.bytes().await.unwrap();
            }
            (opened, refused)
        });
    }
    let (mut opened, mut refused) = (0, 0);
    while let Some(r) = tasks.join_next().await {
        let (o, f) = r.unwrap();
        opened += o;
        refused += f;
    }
    assert_eq!(opened, 10_000, "sessions are capped at max_sessions");
    assert_eq!(refused, 10_000, "the rest are told the cap was hit");
    let after = server.rss_kib();
    eprintln!("RSS before {before} KiB, after 20,000 initialize calls {after} KiB");
    // Stated bound: 10,000 open sessions and the traffic that made them cost less than
    // 64 MiB over the idle process (rmcp's sessions took gigabytes).
    assert!(
        after.saturating_sub(before) < 64 * 1024,
        "RSS grew from {before} KiB to {after} KiB"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_during_a_slow_call_lets_it_finish_and_exits_zero() {
    let upstream = slow_upstream(Duration::from_secs(2)).await;
    let dir = temp_dir("limits-sigterm");
    let cfg = config(&dir, upstream, "  drain: 20s");
    let mut server = Server::start(&cfg, free_port(), None);
    let url = format!("{}/mcp", server.base);
    let base = server.base.clone();
    let call = tokio::spawn(async move {
        reqwest::Client::new()
            .post(&url)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "tools/call")
            .header("mcp-name", "slow_tool")
            .body(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"slow_tool","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#)
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    });
    // The call is in flight (the upstream takes 2 s) when the signal arrives.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let killed = Command::new("kill")
        .args(["-TERM", &server.pid().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let answer = call.await.unwrap();
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"status": "done"}),
        "{answer}"
    );
    let status = tokio::task::spawn_blocking(move || server.child.wait().unwrap())
        .await
        .unwrap();
    assert_eq!(status.code(), Some(0), "{status:?}");
    // And it no longer listens.
    assert!(healthz(&base, Duration::from_millis(500)).is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdio_refuses_bad_ids_and_malformed_json_like_http() {
    let upstream = slow_upstream(Duration::from_millis(1)).await;
    let dir = temp_dir("limits-stdio");
    let cfg = config(&dir, upstream, "");
    let output = tokio::task::spawn_blocking(move || {
        let mut child = Command::new(env!("CARGO_BIN_EXE_toolgate"))
            .args(["serve", "--stdio", "--config", cfg.to_str().unwrap()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let lines = [
            r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            "{oops",
            r#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow_tool","arguments":{}}}"#,
        ];
        for l in lines {
            writeln!(stdin, "{l}").unwrap();
        }
        drop(stdin);
        child.wait_with_output().unwrap()
    })
    .await
    .unwrap();
    assert!(output.status.success());
    let answers: Vec<Value> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(answers.len(), 6, "{answers:?}");
    let by_code = |code: i64| {
        answers
            .iter()
            .filter(|a| a["error"]["code"] == json!(code))
            .count()
    };
    assert_eq!(by_code(-32600), 2, "the two bad ids: {answers:?}");
    assert_eq!(by_code(-32700), 1, "the malformed line");
    assert!(
        answers
            .iter()
            .any(|a| a["id"] == "p" && a["result"] == json!({}))
    );
    let call = answers.iter().find(|a| a["id"] == 7).unwrap();
    assert_eq!(
        call["result"]["structuredContent"],
        json!({"status": "done"})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn beyond_the_connection_limit_with_every_connection_busy_new_ones_are_closed() {
    let upstream = slow_upstream(Duration::from_secs(2)).await;
    let dir = temp_dir("limits-connections");
    let cfg = config(&dir, upstream, "  max_connections: 2");
    let server = Server::start(&cfg, free_port(), None);
    let url = format!("{}/mcp", server.base);
    let busy: Vec<_> = (0..2)
        .map(|i| {
            let url = url.clone();
            tokio::spawn(async move {
                // A client of its own each, so the two calls hold two connections.
                reqwest::Client::new()
                    .post(&url)
                    .header("content-type", "application/json")
                    .header("accept", "application/json, text/event-stream")
                    .header("mcp-protocol-version", "2026-07-28")
                    .header("mcp-method", "tools/call")
                    .header("mcp-name", "slow_tool")
                    .body(format!(r#"{{"jsonrpc":"2.0","id":{i},"method":"tools/call","params":{{"name":"slow_tool","arguments":{{}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#))
                    .send()
                    .await
                    .unwrap()
                    .json::<Value>()
                    .await
                    .unwrap()
            })
        })
        .collect();
    // Both calls are in flight (the upstream takes 2 s): a third connection is closed.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let base = server.base.clone();
    let refused = tokio::task::spawn_blocking(move || healthz(&base, Duration::from_secs(5)))
        .await
        .unwrap();
    assert!(refused.is_none(), "a connection past the limit was served");
    for call in busy {
        let answer = call.await.unwrap();
        assert_eq!(
            answer["result"]["structuredContent"],
            json!({"status": "done"})
        );
    }
    let log = std::fs::read_to_string(&server.log).unwrap();
    assert!(
        log.contains("connection limit reached"),
        "no warning in the log: {log}"
    );
    // Once the calls are done, there is room again.
    let base = server.base.clone();
    let served = tokio::task::spawn_blocking(move || healthz(&base, Duration::from_secs(5)))
        .await
        .unwrap();
    assert!(served.is_some());
}
