//! `/mcp` answered directly must be answered exactly as through the router: the same
//! status, the same headers in the same order, the same body, for requests the
//! endpoint serves and for those the admission rules refuse.

use super::*;
use axum::http::HeaderMap;
use tokio_util::sync::CancellationToken;
use toolgate_engine::gateway::Gateway;

const CONFIG: &str = "dependencies:\n  api: { base_url: \"http://127.0.0.1:9\" }\ntools:\n  t:\n    dependency: api\n    owner: a@example.com\n    request: { path: /x }\n    contract: { version: \"1.0\", response_schema: { type: object } }\n";

fn routes() -> Routes {
    let dir = std::env::temp_dir().join(format!(
        "toolgate-routes-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ));
    let yaml = format!(
        "gateway:\n  state: {}\n  max_request_bytes: 4KiB\n{CONFIG}",
        dir.join("s.db").display()
    );
    let config = toolgate_config::parse(
        std::path::Path::new("t.yaml"),
        &yaml,
        std::path::Path::new("."),
        &|_| None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    toolgate_engine::tls::init();
    let store = toolgate_store::Store::open(&config.gateway.state).expect("store");
    let gateway = Gateway::new(config, store).expect("gateway");
    super::super::router(gateway, CancellationToken::new(), None)
}

/// A request as a client sends it: the method, the target, the headers, the body.
struct Sent {
    method: Method,
    target: &'static str,
    headers: Vec<(&'static str, String)>,
    body: String,
}

impl Sent {
    fn post(body: &str) -> Sent {
        Sent {
            method: Method::POST,
            target: "/mcp",
            headers: vec![
                ("host", "localhost".into()),
                ("content-type", "application/json".into()),
                ("accept", "application/json, text/event-stream".into()),
                ("mcp-protocol-version", "2025-11-25".into()),
            ],
            body: body.to_owned(),
        }
    }

    fn with(mut self, name: &'static str, value: &str) -> Sent {
        self.headers.retain(|(n, _)| *n != name);
        self.headers.push((name, value.to_owned()));
        self
    }

    fn request(&self) -> Request {
        let mut request = Request::new(Body::from(self.body.clone()));
        *request.method_mut() = self.method.clone();
        *request.uri_mut() = self.target.parse().expect("a request target");
        for (name, value) in &self.headers {
            request
                .headers_mut()
                .append(*name, HeaderValue::from_str(value).expect("a header value"));
        }
        request
    }
}

/// What a client can see of a response; the session id a new session is given is
/// random, so only its presence is kept.
#[derive(Debug, PartialEq)]
struct Seen {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

async fn seen(response: Response) -> Seen {
    let (parts, body) = response.into_parts();
    Seen {
        status: parts.status.as_u16(),
        headers: shown(&parts.headers),
        body: String::from_utf8_lossy(
            &axum::body::to_bytes(body, usize::MAX)
                .await
                .expect("the body"),
        )
        .into_owned(),
    }
}

fn shown(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(name, value)| {
            let value = if name == "mcp-session-id" {
                "(a session)".to_owned()
            } else {
                String::from_utf8_lossy(value.as_bytes()).into_owned()
            };
            (name.as_str().to_owned(), value)
        })
        .collect()
}

/// The requests compared: calls the endpoint serves, and each kind of refusal. (A call
/// that reaches the upstream reports its own timing, so it is compared end to end by the
/// application's tests instead.)
fn requests() -> Vec<(&'static str, Sent)> {
    let initialize = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let other = |method: Method| Sent {
        method,
        ..Sent::post(list)
    };
    let stateless = |method: &str, name: Option<&str>, params: &str| {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":5,"method":"{method}","params":{{{params}"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#
        );
        let sent = Sent::post(&body)
            .with("mcp-protocol-version", "2026-07-28")
            .with("mcp-method", method);
        match name {
            Some(name) => sent.with("mcp-name", name),
            None => sent,
        }
    };
    vec![
        ("a stateless tools/list", stateless("tools/list", None, "")),
        (
            "a stateless tools/call of an unknown tool",
            stateless(
                "tools/call",
                Some("nope"),
                r#""name":"nope","arguments":{},"#,
            ),
        ),
        ("an initialize", Sent::post(initialize)),
        ("a tools/list without a session", Sent::post(list)),
        (
            "a ping",
            Sent::post(r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#),
        ),
        ("a body that is not JSON", Sent::post("{not json")),
        (
            "a notification",
            Sent::post(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
        ),
        ("a GET without a session", other(Method::GET)),
        ("a DELETE without a session", other(Method::DELETE)),
        ("a HEAD", other(Method::HEAD)),
        ("a PUT", other(Method::PUT)),
        ("an OPTIONS", other(Method::OPTIONS)),
        (
            "a Host not allowed",
            Sent::post(list).with("host", "rebound.example"),
        ),
        (
            "no Host",
            Sent {
                headers: vec![("content-type", "application/json".into())],
                ..Sent::post(list)
            },
        ),
        (
            "an Origin not allowed",
            Sent::post(list).with("origin", "https://page.example"),
        ),
        (
            "an allowed Origin",
            Sent::post(list).with("origin", "http://localhost:3000"),
        ),
        ("a Host sent twice", {
            let mut s = Sent::post(list);
            s.headers.push(("host", "localhost".into()));
            s
        }),
        (
            "a declared body over the limit",
            Sent::post(list).with("content-length", "999999"),
        ),
        (
            "a streamed body over the limit",
            Sent::post(&format!(
                "{{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"ping\",\"params\":{{\"pad\":\"{}\"}}}}",
                "x".repeat(8000)
            )),
        ),
        (
            "a token in the query",
            Sent {
                target: "/mcp?access_token=abc",
                ..Sent::post(list)
            },
        ),
        (
            "an Accept without event streams",
            Sent::post(list).with("accept", "application/json"),
        ),
        (
            "an unknown session",
            Sent::post(list).with("mcp-session-id", "no-such-session"),
        ),
        (
            "an unknown protocol version",
            Sent::post(list).with("mcp-protocol-version", "1999-01-01"),
        ),
    ]
}

#[test]
fn every_mcp_request_is_answered_directly_as_the_router_answers_it() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let routes = routes();
        assert!(
            routes.mcp.is_some(),
            "the gateway's routes serve /mcp directly"
        );
        for (what, sent) in requests() {
            assert!(DirectMcp::takes(&sent.request()), "{what}: taken directly");
            let direct = seen(routes.answer(sent.request()).await).await;
            let routed = match routes.router.clone().oneshot(sent.request()).await {
                Ok(response) => seen(response).await,
                Err(never) => match never {},
            };
            assert_eq!(direct, routed, "{what}: answered alike both ways");
        }
    });
}

#[test]
fn only_the_mcp_path_outside_connect_is_taken_from_the_router() {
    let request = |method: Method, target: &str| {
        let mut request = Request::new(Body::empty());
        *request.method_mut() = method;
        *request.uri_mut() = target.parse().expect("a request target");
        request
    };
    assert!(DirectMcp::takes(&request(Method::POST, "/mcp")));
    assert!(DirectMcp::takes(&request(Method::GET, "/mcp?x=1")));
    for (method, target) in [
        (Method::POST, "/mcp/"),
        (Method::POST, "/mcp/x"),
        (Method::POST, "/MCP"),
        (Method::GET, "/metrics"),
        (Method::GET, "/"),
        (Method::CONNECT, "/mcp"),
    ] {
        assert!(
            !DirectMcp::takes(&request(method.clone(), target)),
            "{method} {target} is the router's"
        );
    }
}

#[test]
fn a_known_body_size_is_declared_and_a_head_answer_has_no_body() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let sized = as_the_router_returns(Response::new(Body::from("twelve bytes")), false);
        assert_eq!(sized.headers()[header::CONTENT_LENGTH], "12");
        assert_eq!(seen(sized).await.body, "twelve bytes");

        let empty = as_the_router_returns(Response::new(Body::empty()), false);
        assert_eq!(empty.headers()[header::CONTENT_LENGTH], "0");

        let head = as_the_router_returns(Response::new(Body::from("twelve bytes")), true);
        assert_eq!(
            head.headers()[header::CONTENT_LENGTH],
            "12",
            "the size of the body a GET would get"
        );
        assert!(seen(head).await.body.is_empty(), "no body for HEAD");

        let mut declared = Response::new(Body::from("twelve bytes"));
        declared
            .headers_mut()
            .insert(header::CONTENT_LENGTH, HeaderValue::from_static("12"));
        let declared = as_the_router_returns(declared, false);
        assert_eq!(
            declared
                .headers()
                .get_all(header::CONTENT_LENGTH)
                .iter()
                .count(),
            1
        );
    });
}
