use super::*;
use axum::Router;

#[test]
fn the_open_file_limit_is_read_from_proc() {
    let text = "Limit                     Soft Limit           Hard Limit           Units\n\
                    Max cpu time              unlimited            unlimited            seconds\n\
                    Max open files            256                  4096                 files\n";
    assert_eq!(parse_open_file_limit(text), Some(256));
    assert_eq!(parse_open_file_limit("nothing"), None);
}

/// One GET on an open keep-alive connection; the body.
async fn get(stream: &mut tokio::net::TcpStream, path: &str) -> String {
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
    let request = format!("GET {path} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n");
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 1024];
    loop {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the connection closed mid-answer");
        got.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&got).to_string();
        let Some((head, body)) = text.split_once("\r\n\r\n") else {
            continue;
        };
        let length: usize = head
            .lines()
            .find_map(|l| {
                l.to_ascii_lowercase()
                    .strip_prefix("content-length:")
                    .map(|v| v.trim().parse().unwrap())
            })
            .expect("a content-length");
        if body.len() >= length {
            return body[..length].to_owned();
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn connections_are_dealt_to_the_serving_threads_and_stay_on_theirs() {
    let threads = Arc::new(ServingThreads::start(Some(2)).expect("two serving threads"));
    assert_eq!(threads.len(), 2);
    let router = Router::new().route(
        "/thread",
        axum::routing::get(|| async {
            let name = std::thread::current()
                .name()
                .unwrap_or("unnamed")
                .to_owned();
            // The engine knows it is on a serving thread too (its upstream pools
            // and background work go by it).
            format!("{name} {:?}", toolgate_engine::serving::thread_index())
        }),
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let server = tokio::spawn(serve_on(
        listener,
        router,
        stop.clone(),
        Limits::default(),
        Some(threads.clone()),
    ));
    let mut seen = Vec::new();
    let mut connections = Vec::new();
    for _ in 0..4 {
        let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
        let first = get(&mut stream, "/thread").await;
        // Every request of a connection is served by the thread it was given.
        for _ in 0..3 {
            assert_eq!(get(&mut stream, "/thread").await, first);
        }
        seen.push(first);
        connections.push(stream);
    }
    assert_eq!(
        seen,
        [
            "toolgate-serve-0 Some(0)",
            "toolgate-serve-1 Some(1)",
            "toolgate-serve-0 Some(0)",
            "toolgate-serve-1 Some(1)"
        ]
    );
    // Stopping drains the connections and returns; the threads are their owner's.
    drop(connections);
    stop.cancel();
    server.await.unwrap().unwrap();
    assert!(
        tokio::net::TcpStream::connect(addr).await.is_err(),
        "the listener is closed"
    );
}

#[test]
fn no_serving_threads_are_started_for_zero_or_outside_a_runtime() {
    assert!(ServingThreads::start(Some(0)).is_none());
    assert!(
        ServingThreads::start(Some(2)).is_none(),
        "no runtime to send background work to"
    );
}

/// Serves `router` with `limits` on a loopback port until the test ends.
async fn serving(router: Router, limits: Limits) -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(serve_with(
        listener,
        router,
        CancellationToken::new(),
        limits,
    ));
    addr
}

/// A handler that reads the whole body, as `/mcp` does: 408 when it does not arrive
/// in time.
async fn read_body(request: axum::extract::Request) -> axum::http::StatusCode {
    match axum::body::to_bytes(request.into_body(), 1 << 20).await {
        Ok(_) => axum::http::StatusCode::OK,
        Err(e) if body_timed_out(&e) => axum::http::StatusCode::REQUEST_TIMEOUT,
        Err(_) => axum::http::StatusCode::BAD_REQUEST,
    }
}

/// Headers and the start of a body of 1000 bytes.
const PARTIAL_BODY: &[u8] =
    b"POST /body HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: 1000\r\n\r\n{";

/// Everything the server sends until it closes the connection.
async fn until_closed(stream: &mut tokio::net::TcpStream) -> String {
    use tokio::io::AsyncReadExt as _;
    let mut got = Vec::new();
    let _ = stream.read_to_end(&mut got).await;
    String::from_utf8_lossy(&got).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_trickling_in_is_answered_408_and_its_connection_closed() {
    use tokio::io::AsyncWriteExt as _;
    let router = Router::new().route("/body", axum::routing::post(read_body));
    let limits = Limits {
        body_timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let addr = serving(router, limits).await;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(PARTIAL_BODY).await.unwrap();
    // A byte now and then keeps the body arriving, never complete: the pace of the
    // bytes does not matter, only the time since the headers.
    let (mut reader, mut writer) = stream.into_split();
    let trickle = tokio::spawn(async move {
        while writer.write_all(b" ").await.is_ok() {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    });
    let mut got = Vec::new();
    let _ = tokio::io::AsyncReadExt::read_to_end(&mut reader, &mut got).await;
    let answer = String::from_utf8_lossy(&got);
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    trickle.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn at_the_limit_a_connection_still_sending_its_body_makes_room() {
    use tokio::io::AsyncWriteExt as _;
    let (started, mut reading) = tokio::sync::mpsc::unbounded_channel();
    let router = Router::new()
        .route(
            "/body",
            axum::routing::post(move |request: axum::extract::Request| {
                let _ = started.send(());
                read_body(request)
            }),
        )
        .route("/ok", axum::routing::get(|| async { "ok" }));
    // The body timeout is far away: only making room can let a new client in.
    let limits = Limits {
        max_connections: 4,
        body_timeout: Duration::from_secs(600),
        ..Limits::default()
    };
    let addr = serving(router, limits).await;
    let mut slow = Vec::new();
    for _ in 0..4 {
        let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
        s.write_all(PARTIAL_BODY).await.unwrap();
        slow.push(s);
    }
    for _ in 0..4 {
        reading.recv().await.unwrap();
    }
    // Every slot holds a request whose body is arriving; a new client gets in.
    let mut fresh = tokio::net::TcpStream::connect(addr).await.unwrap();
    assert_eq!(get(&mut fresh, "/ok").await, "ok");
    // The one that made room is closed unanswered (nothing of its request was acted
    // on).
    let readable = slow.iter().map(|s| Box::pin(s.readable()));
    let (_, first, _) = futures_util::future::select_all(readable).await;
    assert_eq!(until_closed(&mut slow[first]).await, "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_its_answer_is_disconnected() {
    use tokio::io::AsyncWriteExt as _;
    const ANSWER: usize = 32 << 20;
    let router = Router::new().route("/big", axum::routing::get(|| async { vec![b'x'; ANSWER] }));
    let limits = Limits {
        send_timeout: Duration::from_secs(1),
        ..Limits::default()
    };
    let addr = serving(router, limits).await;
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"GET /big HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n")
        .await
        .unwrap();
    // Reads nothing for longer than the send timeout; the socket buffers hold a
    // few megabytes at most, far from the whole answer.
    tokio::time::sleep(Duration::from_secs(4)).await;
    let got = until_closed(&mut stream).await;
    assert!(
        got.starts_with("HTTP/1.1 200"),
        "{}",
        &got[..got.len().min(100)]
    );
    assert!(
        got.len() < ANSWER,
        "the whole answer was kept for a client that did not read it"
    );
}

#[tokio::test(start_paused = true)]
async fn warnings_are_rate_limited() {
    let mut w = Warn::default();
    assert_eq!(w.due(), Some(0));
    assert_eq!(w.due(), None);
    assert_eq!(w.due(), None);
    tokio::time::advance(WARN_EVERY).await;
    assert_eq!(w.due(), Some(2));
}

#[tokio::test(start_paused = true)]
async fn the_longest_idle_connection_is_evicted_and_busy_ones_never() {
    let r = Registry::default();
    let a = r.add();
    tokio::time::advance(Duration::from_secs(1)).await;
    let b = r.add();
    let busy = a.begin();
    assert!(r.evict());
    assert!(b.close.is_cancelled() && !a.close.is_cancelled());
    assert!(!r.evict(), "a is busy, b is already closing");
    drop(busy);
    assert!(r.evict());
    assert!(a.close.is_cancelled());
}
