//! The plain client against a scripted server that writes exactly the bytes each test
//! gives it, so that keep-alive, closes and malformed answers are under the test's
//! control.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::*;
use toolgate_resilience::ReplyMemory;

/// What the scripted server does after answering one request.
#[derive(Clone, Copy, PartialEq)]
enum After {
    KeepOpen,
    Close,
}

/// A server that answers the n-th request (counted over all connections) with
/// `answer(n)`, and records what it received.
struct Scripted {
    url: Url,
    connections: Arc<AtomicUsize>,
    requests: Arc<Mutex<Vec<String>>>,
}

async fn scripted(answer: impl Fn(usize) -> (Vec<u8>, After) + Send + Sync + 'static) -> Scripted {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let requests = Arc::new(Mutex::new(Vec::new()));
    let answer = Arc::new(answer);
    let (c, r) = (connections.clone(), requests.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut socket, _)) = listener.accept().await else {
                return;
            };
            c.fetch_add(1, Ordering::SeqCst);
            let (answer, requests) = (answer.clone(), r.clone());
            tokio::spawn(async move {
                let mut buffer = Vec::new();
                loop {
                    let Some(request) = read_request(&mut socket, &mut buffer).await else {
                        return;
                    };
                    let n = {
                        let mut seen = requests.lock().unwrap();
                        seen.push(request);
                        seen.len() - 1
                    };
                    let (bytes, after) = answer(n);
                    if socket.write_all(&bytes).await.is_err() || after == After::Close {
                        return;
                    }
                }
            });
        }
    });
    Scripted {
        url,
        connections,
        requests,
    }
}

/// Reads one request (head and `Content-Length` body) from `socket`.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<String> {
    loop {
        if let Some(end) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buffer[..end]).to_string();
            let length = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length:")
                        .map(|v| v.trim().parse::<usize>().unwrap())
                })
                .unwrap_or(0);
            if buffer.len() >= end + 4 + length {
                let request: Vec<u8> = buffer.drain(..end + 4 + length).collect();
                return Some(String::from_utf8_lossy(&request).to_string());
            }
        }
        let mut chunk = [0u8; 4096];
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buffer.extend_from_slice(&chunk[..n]),
        }
    }
}

/// A server that answers every request with `bytes`.
async fn always(bytes: &'static [u8], after: After) -> Scripted {
    scripted(move |_| (bytes.to_vec(), after)).await
}

fn ok(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

fn dependency(url: &Url) -> Dependency {
    let mut dep = crate::fixtures::dependency("api", url.as_str());
    dep.headers = vec![(
        header::AUTHORIZATION,
        HeaderValue::from_static("Bearer dep-secret"),
    )];
    dep
}

fn get(url: &Url, path_and_query: &str) -> RenderedRequest {
    RenderedRequest {
        method: http::Method::GET,
        url: url.join(path_and_query).unwrap(),
        headers: HeaderMap::new(),
        omit_headers: Vec::new(),
        body: None,
        content_type: http::HeaderValue::from_static("application/json"),
    }
}

fn client() -> PlainHttp {
    PlainHttp::with_proxy("toolgate/test", false)
}

async fn send(
    client: &PlainHttp,
    server: &Scripted,
    req: &RenderedRequest,
) -> Result<UpstreamResponse, SendError> {
    let dep = dependency(&server.url);
    client
        .send(
            &dep,
            req,
            1_000,
            ReplyMemory::unlimited().hold(),
            Instant::now(),
        )
        .await
}

#[tokio::test]
async fn calls_in_turn_share_one_connection() {
    let server = scripted(|n| (ok(&format!("{{\"n\":{n}}}")), After::KeepOpen)).await;
    let client = client();
    for n in 0..5 {
        let response = send(&client, &server, &get(&server.url, "/items?q=1"))
            .await
            .unwrap();
        assert_eq!(response.status, 200);
        assert_eq!(&response.body[..], format!("{{\"n\":{n}}}").as_bytes());
        assert_eq!(response.headers["content-type"], "application/json");
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn concurrent_calls_each_get_a_connection_and_all_come_back() {
    let server = scripted(|_| (ok("{}"), After::KeepOpen)).await;
    let client = Arc::new(client());
    let mut calls = Vec::new();
    for _ in 0..8 {
        let (client, req, dep) = (
            client.clone(),
            get(&server.url, "/x"),
            dependency(&server.url),
        );
        calls.push(tokio::spawn(async move {
            client
                .send(
                    &dep,
                    &req,
                    1_000,
                    ReplyMemory::unlimited().hold(),
                    Instant::now(),
                )
                .await
        }));
    }
    for call in calls {
        assert_eq!(call.await.unwrap().unwrap().status, 200);
    }
    let opened = server.connections.load(Ordering::SeqCst);
    assert!((1..=8).contains(&opened), "{opened} connections");
    let idle = client.idle_count(None);
    assert_eq!(idle, opened, "every connection is back in the pool");
    // And they are reused: no new connection for the next round.
    for _ in 0..opened {
        send(&client, &server, &get(&server.url, "/x"))
            .await
            .unwrap();
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), opened);
}

#[tokio::test]
async fn the_request_carries_what_reqwest_sent() {
    let server = scripted(|_| (ok("{}"), After::KeepOpen)).await;
    let client = client();
    let mut req = get(&server.url, "/v1/search?q=caf%C3%A9&n=2");
    req.method = http::Method::POST;
    req.body = Some(br#"{"a":1}"#.to_vec());
    req.headers
        .insert("x-tool", HeaderValue::from_static("web_search"));
    send(&client, &server, &req).await.unwrap();
    let seen = server.requests.lock().unwrap()[0].to_ascii_lowercase();
    let host = format!(
        "host: {}\r\n",
        &server.url[Position::BeforeHost..Position::AfterPort]
    );
    assert!(
        seen.starts_with("post /v1/search?q=caf%c3%a9&n=2 http/1.1\r\n"),
        "{seen}"
    );
    for line in [
        host.as_str(),
        "authorization: bearer dep-secret\r\n",
        "x-tool: web_search\r\n",
        "content-type: application/json\r\n",
        "content-length: 7\r\n",
        "user-agent: toolgate/test\r\n",
        "accept: */*\r\n",
    ] {
        assert!(seen.contains(line), "{line:?} missing from {seen}");
    }
    assert!(seen.ends_with("\r\n\r\n{\"a\":1}"), "{seen}");

    // A GET has no body and no Content-Length; a tool's own Accept is not doubled.
    let mut req = get(&server.url, "/v1/item");
    req.headers
        .insert(header::ACCEPT, HeaderValue::from_static("application/json"));
    send(&client, &server, &req).await.unwrap();
    let seen = server.requests.lock().unwrap()[1].to_ascii_lowercase();
    assert!(!seen.contains("content-length"), "{seen}");
    assert_eq!(seen.matches("accept:").count(), 1, "{seen}");
    assert!(seen.contains("accept: application/json\r\n"), "{seen}");
}

#[tokio::test]
async fn a_tool_replaces_or_omits_the_dependency_credential() {
    let server = scripted(|_| (ok("{}"), After::KeepOpen)).await;
    let client = client();
    // An operation that takes another credential sends its own, never both.
    let mut req = get(&server.url, "/v1/admin");
    req.headers.insert(
        header::AUTHORIZATION,
        HeaderValue::from_static("Basic dG9vbDpzZWNyZXQ="),
    );
    send(&client, &server, &req).await.unwrap();
    // An operation served without credentials is sent none.
    let mut req = get(&server.url, "/v1/health");
    req.omit_headers = vec![header::AUTHORIZATION];
    send(&client, &server, &req).await.unwrap();
    let seen: Vec<String> = server
        .requests
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.to_ascii_lowercase())
        .collect();
    assert_eq!(seen[0].matches("authorization:").count(), 1, "{}", seen[0]);
    assert!(
        seen[0].contains("authorization: basic dg9vbdpzzwnyzxq=\r\n"),
        "{}",
        seen[0]
    );
    assert!(!seen[1].contains("authorization"), "{}", seen[1]);
}

#[tokio::test]
async fn a_connection_the_server_closed_is_not_reused() {
    // Closed after every answer, without saying so: the pooled connection is found
    // closed at the next call, which goes out on a new one.
    let server = scripted(|_| (ok("{}"), After::Close)).await;
    let client = client();
    for _ in 0..3 {
        let response = send(&client, &server, &get(&server.url, "/x"))
            .await
            .unwrap();
        assert_eq!(response.status, 200);
        // Let the close reach this side before the next call.
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 3);
}

#[tokio::test]
async fn connection_close_and_a_body_read_to_the_end_of_the_stream() {
    let server = always(
        b"HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n{\"until\":\"eof\"}",
        After::Close,
    )
    .await;
    let client = client();
    for _ in 0..2 {
        let response = send(&client, &server, &get(&server.url, "/x"))
            .await
            .unwrap();
        assert_eq!(&response.body[..], br#"{"until":"eof"}"#);
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 2);
    assert_eq!(client.idle_count(None), 0);
}

#[tokio::test]
async fn a_chunked_body_is_gathered_and_the_connection_reused() {
    let server = always(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3\r\n:1}\r\n0\r\n\r\n", After::KeepOpen).await;
    let client = client();
    for _ in 0..2 {
        let response = send(&client, &server, &get(&server.url, "/x"))
            .await
            .unwrap();
        assert_eq!(&response.body[..], br#"{"a":1}"#);
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_body_over_the_cap_is_refused_with_its_status_kept() {
    let big = "x".repeat(1_001);
    let declared = ok(&big);
    let chunked = format!(
        "HTTP/1.1 503 Service Unavailable\r\ntransfer-encoding: chunked\r\nretry-after: 7\r\n\r\n{:x}\r\n{big}\r\n0\r\n\r\n",
        big.len()
    )
    .into_bytes();
    let server = scripted(move |n| {
        let bytes = if n == 0 {
            declared.clone()
        } else {
            chunked.clone()
        };
        (bytes, After::KeepOpen)
    })
    .await;
    let client = client();
    match send(&client, &server, &get(&server.url, "/x")).await {
        Err(SendError::TooLarge { status, limit, .. }) => assert_eq!((status, limit), (200, 1_000)),
        other => panic!("expected TooLarge, got {other:?}"),
    }
    match send(&client, &server, &get(&server.url, "/x")).await {
        Err(SendError::TooLarge {
            status, headers, ..
        }) => {
            assert_eq!(status, 503);
            assert_eq!(headers["retry-after"], "7");
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // A connection with a body left unread is never put back.
    assert_eq!(client.idle_count(None), 0);
}

#[tokio::test]
async fn what_is_not_http_is_a_transport_failure_that_names_no_url() {
    let server = always(b"SSH-2.0-OpenSSH_9.6\r\n\r\n", After::Close).await;
    let client = client();
    let req = get(&server.url, "/x?api_key=hunter2");
    match send(&client, &server, &req).await {
        // Sent, then answered with something else: the upstream may have acted.
        Err(SendError::Broken { detail }) => {
            assert!(detail.contains("not valid HTTP"), "{detail}");
            assert!(
                !detail.contains("hunter2") && !detail.contains("127.0.0.1"),
                "{detail}"
            );
        }
        other => panic!("expected a transport failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_refused_connection_says_so() {
    // Bind then drop: nothing listens on that port now.
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = Url::parse(&format!("http://127.0.0.1:{port}/")).unwrap();
    let client = client();
    let dep = dependency(&url);
    match client
        .send(
            &dep,
            &get(&url, "/x"),
            1_000,
            ReplyMemory::unlimited().hold(),
            Instant::now(),
        )
        .await
    {
        Err(SendError::Connect { detail }) => {
            assert!(detail.starts_with("could not connect"), "{detail}")
        }
        other => panic!("expected Connect, got {other:?}"),
    }
}

#[tokio::test]
async fn an_answer_that_stops_halfway_is_a_failure_not_a_short_body() {
    let server = always(
        b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n{\"partial\":",
        After::Close,
    )
    .await;
    let client = client();
    match send(&client, &server, &get(&server.url, "/x")).await {
        Err(SendError::Broken { .. }) => {}
        other => panic!("expected a transport failure, got {other:?}"),
    }
}

#[tokio::test]
async fn a_request_the_server_read_before_it_hung_up_is_broken_not_unsent() {
    // The server reads the whole request, then closes without a word: the upstream may
    // have acted on it, so this must not look like a connection that never opened
    // (which every call retries, POSTs included).
    let server = always(b"", After::Close).await;
    let client = client();
    let mut req = get(&server.url, "/payments");
    req.method = http::Method::POST;
    req.body = Some(b"{\"amount\":100}".to_vec());
    match send(&client, &server, &req).await {
        Err(SendError::Broken { detail }) => {
            assert!(
                detail.contains("closed") || detail.contains("broke"),
                "{detail}"
            )
        }
        other => panic!("expected Broken, got {other:?}"),
    }
    assert_eq!(server.requests.lock().unwrap().len(), 1);
}

#[test]
fn what_goes_through_reqwest_instead() {
    let plain = client();
    let url = |s: &str| Url::parse(s).unwrap();
    assert!(plain.serves(&url("http://api.internal:8080/v1")));
    assert!(plain.serves(&url("http://[::1]/v1")));
    assert!(!plain.serves(&url("https://api.example.com/v1")), "TLS");
    assert!(
        !plain.serves(&url("http://user:pw@api.internal/v1")),
        "credentials in the URL"
    );
    let proxied = PlainHttp::with_proxy("toolgate/test", true);
    assert!(
        !proxied.serves(&url("http://api.internal:8080/v1")),
        "a proxy is configured"
    );
}

#[tokio::test(start_paused = true)]
async fn idle_connections_expire_and_are_bounded_per_origin() {
    let server = scripted(|_| (ok("{}"), After::KeepOpen)).await;
    let client = client();
    let origin = &server.url[Position::BeforeHost..Position::AfterPort];
    // More connections than the pool keeps, all back at once.
    let mut conns = Vec::new();
    for _ in 0..MAX_IDLE_PER_ORIGIN + 3 {
        conns.push(connect(&server.url, false).await.unwrap());
    }
    for conn in conns {
        client.checkin(origin, conn);
    }
    assert_eq!(client.idle_count(Some(origin)), MAX_IDLE_PER_ORIGIN);
    tokio::time::advance(IDLE_TIMEOUT + Duration::from_secs(1)).await;
    // The next return sweeps what has expired; the fresh one is lent out next.
    let fresh = connect(&server.url, false).await.unwrap();
    client.checkin(origin, fresh);
    assert_eq!(client.idle_count(Some(origin)), 1);
    assert!(client.checkout(origin).is_some());
    // One that expires while at rest is not lent out.
    client.checkin(origin, connect(&server.url, false).await.unwrap());
    tokio::time::advance(IDLE_TIMEOUT).await;
    assert!(client.checkout(origin).is_none(), "too old to reuse");
}

#[tokio::test]
async fn a_request_on_a_connection_closed_before_it_left_comes_back_whole() {
    // The server accepts and closes at once. The test waits until that close has
    // reached the client's socket, then hands the request over: it never leaves, and
    // comes back unchanged so that `send` can put it on another connection.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let url = Url::parse(&format!("http://{addr}/")).unwrap();
    let server = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        drop(socket);
    });
    let stream = TcpStream::connect(addr).await.unwrap();
    server.await.unwrap();
    stream.readable().await.unwrap();
    let (sender, driver) = http1::handshake(TokioIo::new(stream)).await.unwrap();
    let mut conn = Conn {
        sender,
        driver,
        ended: false,
    };
    let req = get(&url, "/items?page=2");
    let origin = &req.url[Position::BeforeHost..Position::AfterPort];
    let request = client().request(&dependency(&url), &req, origin).unwrap();
    match exchange(
        &mut conn,
        request,
        1_000,
        &mut ReplyMemory::unlimited().hold(),
    )
    .await
    {
        Err(Failed::NotSent(back)) => {
            assert_eq!(back.uri(), "/items?page=2");
            assert_eq!(back.headers()[header::HOST], origin);
            assert_eq!(
                back.headers()[header::AUTHORIZATION],
                "Bearer dep-secret",
                "the dependency's headers are still on it"
            );
        }
        Err(Failed::Error(e)) => panic!("the request was not returned: {e}"),
        Ok(_) => panic!("a closed connection answered"),
    }
    assert!(!conn.ready_for_more());
}

#[tokio::test]
async fn a_connection_is_lent_only_to_calls_on_the_thread_that_opened_it() {
    let server = scripted(|_| (ok("{}"), After::KeepOpen)).await;
    let client = std::sync::Arc::new(client());
    let origin = server.url[Position::BeforeHost..Position::AfterPort].to_owned();
    // Opened on the main runtime: not lent to a serving thread.
    client.checkin(&origin, connect(&server.url, false).await.unwrap());
    crate::serving::enter_serving_thread(0, tokio::runtime::Handle::current());
    assert!(client.checkout(&origin).is_none());
    // Opened on serving thread 0: lent there, and to no other thread.
    client.checkin(&origin, connect(&server.url, false).await.unwrap());
    let elsewhere = {
        let (client, origin) = (client.clone(), origin.clone());
        let main = tokio::runtime::Handle::current();
        std::thread::spawn(move || {
            let on_main_runtime = client.checkout(&origin).is_some();
            crate::serving::enter_serving_thread(1, main);
            (on_main_runtime, client.checkout(&origin).is_some())
        })
        .join()
        .unwrap()
    };
    assert_eq!(
        elsewhere,
        (true, false),
        "only the main runtime's own is lent there"
    );
    assert!(client.checkout(&origin).is_some());
    assert_eq!(client.idle_count(None), 0);
}

#[tokio::test(start_paused = true)]
async fn a_thread_that_stopped_calling_has_its_idle_connections_swept_by_another() {
    let server = scripted(|_| (ok("{}"), After::KeepOpen)).await;
    let client = std::sync::Arc::new(client());
    let origin = server.url[Position::BeforeHost..Position::AfterPort].to_owned();
    // Serving thread 4 returns a connection, then calls nothing more.
    client.checkin(&origin, connect(&server.url, false).await.unwrap());
    {
        let (client, url, origin) = (client.clone(), server.url.clone(), origin.clone());
        let main = tokio::runtime::Handle::current();
        let conn = connect(&url, false).await.unwrap();
        std::thread::spawn(move || {
            crate::serving::enter_serving_thread(4, main);
            client.checkin(&origin, conn);
        })
        .join()
        .unwrap();
    }
    assert_eq!(client.idle_count(None), 2);
    tokio::time::advance(IDLE_TIMEOUT + SWEEP_EVERY).await;
    // A return on the main runtime sweeps every thread's pool.
    client.checkin(&origin, connect(&server.url, false).await.unwrap());
    assert_eq!(client.idle_count(None), 1);
}

#[tokio::test]
async fn a_few_interim_responses_are_read_past_and_a_run_of_them_ends_the_exchange() {
    let continued = [b"HTTP/1.1 100 Continue\r\n\r\n".repeat(3), ok("{}")].concat();
    let server = scripted(move |_| (continued.clone(), After::KeepOpen)).await;
    let client = client();
    let answer = send(&client, &server, &get(&server.url, "/x"))
        .await
        .unwrap();
    assert_eq!((answer.status, &answer.body[..]), (200, &b"{}"[..]));

    // Ten thousand and no answer: without a bound the exchange would read them, then
    // wait for the answer until the caller's timeout.
    // `103 Early Hints` carrying headers each time counts the same as a bare `100`.
    let hints: String = (0..50)
        .map(|i| format!("Link: </asset{i}.js>; rel=preload\r\n"))
        .collect();
    for endless in [
        b"HTTP/1.1 100 Continue\r\n\r\n".repeat(10_000),
        format!("HTTP/1.1 103 Early Hints\r\n{hints}\r\n")
            .into_bytes()
            .repeat(1_000),
    ] {
        let server = scripted(move |_| (endless.clone(), After::KeepOpen)).await;
        let req = get(&server.url, "/x");
        let attempt = send(&client, &server, &req);
        match tokio::time::timeout(Duration::from_secs(60), attempt).await {
            Ok(Err(SendError::Broken { detail })) => {
                assert!(detail.contains("interim (1xx) responses"), "{detail}");
            }
            other => panic!("expected the exchange to end, got {other:?}"),
        }
    }
}

mod hostile;
mod redirects;
