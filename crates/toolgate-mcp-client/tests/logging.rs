//! What the client logs: the child's stderr under target `upstream`, and
//! never a credential or a message body. A test binary of its own, so no
//! other test's threads race the log subscriber.

// Test helpers outside #[test] functions unwrap too: a failure is the test failing.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use serde_json::json;

/// Collects everything logged.
struct Captured(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn the_childs_stderr_is_logged_under_upstream_and_env_values_never_are() {
    let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&buffer);
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::TRACE)
        .with_ansi(false)
        .with_writer(move || Captured(std::sync::Arc::clone(&sink)))
        .finish();
    // Thread-local: this test's runtime runs every task on this thread.
    let _guard = tracing::subscriber::set_default(subscriber);

    let spec = toolgate_mcp_client::ServerSpec {
        name: "fake".into(),
        transport: toolgate_mcp_client::Transport::Stdio {
            program: node(),
            args: vec![fixture("stdio_fake.mjs")],
            env: vec![("FAKE_TOKEN".into(), "hunter2-secret".into())],
            inherit_env: vec![],
            cwd: None,
        },
        max_message_bytes: 1 << 16,
        limits: Default::default(),
    };
    let (conn, _events) = toolgate_mcp_client::Connection::start(spec, client());
    conn.request(
        "log_then_answer",
        Some(json!({"tag": "body-marker"})),
        LONG,
        None,
    )
    .await
    .unwrap();
    let deadline = tokio::time::Instant::now() + LONG;
    let text = loop {
        let text = String::from_utf8_lossy(&buffer.lock().unwrap()).into_owned();
        if text.contains("fake-stdio ready") {
            break text;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "no stderr line logged: {text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    let line = text
        .lines()
        .find(|l| l.contains("fake-stdio ready"))
        .unwrap();
    assert!(
        line.contains("INFO") && line.contains("upstream") && line.contains("server=fake"),
        "{line}"
    );
    // The child saw its env; the logs never did.
    assert!(line.contains("token set"), "{line}");
    conn.shutdown().await;

    // HTTP: a configured header and the URL's query are credentials.
    let app = axum::Router::new().fallback(|| async { axum::http::StatusCode::NOT_FOUND });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let spec = toolgate_mcp_client::ServerSpec {
        name: "web".into(),
        transport: toolgate_mcp_client::Transport::Http {
            url: format!("http://{addr}/mcp?key=query-secret")
                .parse()
                .unwrap(),
            headers: vec![(
                http::header::AUTHORIZATION,
                http::HeaderValue::from_static("Bearer header-secret"),
            )],
        },
        max_message_bytes: 1 << 16,
        limits: Default::default(),
    };
    let (web, _events) = toolgate_mcp_client::Connection::start(spec, client());
    let failed = web.request("tools/list", None, LONG, None).await;
    assert!(
        matches!(
            failed,
            Err(toolgate_mcp_client::Failure::Status { status: 404, .. })
        ),
        "{failed:?}"
    );
    let down = toolgate_mcp_client::ServerSpec {
        name: "down".into(),
        transport: toolgate_mcp_client::Transport::Http {
            url: "http://127.0.0.1:9/mcp?key=query-secret".parse().unwrap(),
            headers: vec![],
        },
        max_message_bytes: 1 << 16,
        limits: Default::default(),
    };
    let (down, _events) = toolgate_mcp_client::Connection::start(down, client());
    let failed = format!("{:?}", down.request("tools/list", None, LONG, None).await);
    assert!(
        failed.contains("Connect") && !failed.contains("secret"),
        "{failed}"
    );

    let text = String::from_utf8_lossy(&buffer.lock().unwrap()).into_owned();
    for secret in ["hunter2", "body-marker", "query-secret", "header-secret"] {
        assert!(!text.contains(secret), "{secret} was logged: {text}");
    }
}

#[tokio::test]
async fn a_childs_stderr_flood_is_rate_limited_in_the_log() {
    const LINES: u64 = 20_000;
    let buffer = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = std::sync::Arc::clone(&buffer);
    let subscriber = tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_ansi(false)
        .with_writer(move || Captured(std::sync::Arc::clone(&sink)))
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);

    let spec = toolgate_mcp_client::ServerSpec {
        name: "noisy".into(),
        transport: toolgate_mcp_client::Transport::Stdio {
            program: node(),
            args: vec![fixture("stdio_fake.mjs")],
            env: vec![],
            inherit_env: vec![],
            cwd: None,
        },
        max_message_bytes: 1 << 16,
        limits: toolgate_mcp_client::Limits {
            stderr_lines_per_second: 10,
            ..Default::default()
        },
    };
    let (conn, _events) = toolgate_mcp_client::Connection::start(spec, client());
    conn.request("stderr_flood", Some(json!({"lines": LINES})), LONG, None)
        .await
        .unwrap();
    // The child exits: its stderr ends, and what was held back is reported.
    conn.shutdown().await;
    // Every flood line is either logged or counted in a "suppressed" line.
    let tally = || {
        let text = String::from_utf8_lossy(&buffer.lock().unwrap()).into_owned();
        let logged = text.lines().filter(|l| l.contains("flood line")).count() as u64;
        let suppressed: u64 = text
            .lines()
            .filter(|l| l.contains("server=noisy"))
            .filter_map(|l| l.split_once("suppressed="))
            .filter_map(|(_, rest)| rest.split_whitespace().next()?.parse::<u64>().ok())
            .sum();
        (logged, suppressed)
    };
    let deadline = tokio::time::Instant::now() + LONG;
    let (logged, suppressed) = loop {
        let (logged, suppressed) = tally();
        if logged + suppressed >= LINES {
            break (logged, suppressed);
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "{logged} logged and {suppressed} suppressed of {LINES}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(logged + suppressed, LINES);
    // Ten a second: a flood that takes the child well under a minute to write
    // leaves a few hundred lines in the log at most, not twenty thousand.
    assert!(logged <= LINES / 20, "{logged} flood lines logged");
    assert!(suppressed > 0);
}
