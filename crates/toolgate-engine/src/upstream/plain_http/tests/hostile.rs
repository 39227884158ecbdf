//! Upstreams that answer with more, or other, than one HTTP/1.1 response: bytes after
//! the body (a body on a 204, a `Content-Length` shorter than what follows, a second
//! response nobody asked for), cookies, and heads too large to hold. Pooled connections
//! are shared by every agent's calls, so what one reply leaves behind must never be read
//! as another call's answer, and nothing a reply sets may ride on the next request.

use super::*;

/// Bytes after a complete response, sent in the same write: what response smuggling
/// and desynchronisation rely on (a proxy and its backend disagreeing on where a
/// response ends, CWE-444).
fn with_smuggled(first: &[u8]) -> Vec<u8> {
    let mut bytes = first.to_vec();
    bytes.extend_from_slice(&ok(r#"{"owner":"someone else"}"#));
    bytes
}

/// A server whose first answer is `first`, and every later one `{"n":<its number>}`,
/// each on a connection kept open.
async fn first_then_numbered(first: Vec<u8>) -> Scripted {
    scripted(move |n| {
        let bytes = if n == 0 {
            first.clone()
        } else {
            ok(&format!("{{\"n\":{n}}}"))
        };
        (bytes, After::KeepOpen)
    })
    .await
}

#[tokio::test]
async fn bytes_after_a_response_are_never_read_as_the_next_calls_answer() {
    let firsts: [&[u8]; 4] = [
        // A body after a 204, which has none.
        b"HTTP/1.1 204 No Content\r\n\r\n",
        // A 304 with a body.
        b"HTTP/1.1 304 Not Modified\r\ncontent-length: 0\r\n\r\n",
        // A Content-Length shorter than the body that follows.
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
        // A chunked body, then a whole second response.
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    ];
    for first in firsts {
        let server = first_then_numbered(with_smuggled(first)).await;
        let client = client();
        let _ = send(&client, &server, &get(&server.url, "/mine")).await;
        // Give the extra bytes time to arrive before the connection is lent again.
        tokio::time::sleep(Duration::from_millis(20)).await;
        let second = send(&client, &server, &get(&server.url, "/theirs"))
            .await
            .unwrap();
        assert_eq!(
            &second.body[..],
            b"{\"n\":1}",
            "after {:?}",
            String::from_utf8_lossy(first)
        );
        assert_eq!(server.requests.lock().unwrap().len(), 2);
    }
}

/// Heads that frame one body two ways (HTTP request smuggling's CL.TE and TE.CL,
/// https://portswigger.net/web-security/request-smuggling, and RFC 9112 section 6.3):
/// whichever length the client believes, the bytes the other one claims must never be
/// read as the next call's answer. Each head is followed by a second, unasked response.
#[tokio::test]
async fn a_body_framed_two_ways_never_lends_its_connection_to_the_next_call() {
    let firsts: [&[u8]; 10] = [
        // Both framings, the length longer than the chunks (CL.TE).
        b"HTTP/1.1 200 OK\r\ncontent-length: 40\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        // Both, the length shorter than the chunks (TE.CL).
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 3\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
        // Two lengths that disagree.
        b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\ncontent-length: 30\r\n\r\n{}",
        // One field listing two lengths.
        b"HTTP/1.1 200 OK\r\ncontent-length: 2, 30\r\n\r\n{}",
        // A length with a sign, which some parsers read as a number.
        b"HTTP/1.1 200 OK\r\ncontent-length: +2\r\n\r\n{}",
        // A chunk size that overflows.
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10000000000000002\r\n{}\r\n0\r\n\r\n",
        // A length hidden in a folded line (obs-fold), read as its own field by a
        // parser that does not unfold.
        b"HTTP/1.1 200 OK\r\nx-a: b\r\n content-length: 30\r\ncontent-length: 2\r\n\r\n{}",
        // Whitespace between a field's name and its colon.
        b"HTTP/1.1 200 OK\r\ncontent-length : 30\r\ncontent-length: 2\r\n\r\n{}",
        // A NUL inside a field's value.
        b"HTTP/1.1 200 OK\r\nx-a: b\0content-length: 30\r\ncontent-length: 2\r\n\r\n{}",
        // `chunked` that is not the last coding: the body ends only when the connection does.
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked, identity\r\ncontent-length: 2\r\n\r\n{}",
    ];
    for first in firsts {
        let server = first_then_numbered(with_smuggled(first)).await;
        let client = client();
        // Bounded here as the attempt timeout bounds it in a call: a body that ends
        // only with the connection never ends on one kept open.
        let mine = get(&server.url, "/mine");
        let mine = tokio::time::timeout(Duration::from_secs(2), send(&client, &server, &mine));
        if let Ok(Ok(mine)) = mine.await {
            assert_eq!(
                &mine.body[..],
                b"{}",
                "{:?}",
                String::from_utf8_lossy(first)
            );
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        let second = send(&client, &server, &get(&server.url, "/theirs"))
            .await
            .unwrap();
        assert_eq!(
            &second.body[..],
            b"{\"n\":1}",
            "after {:?}",
            String::from_utf8_lossy(first)
        );
    }
}

/// Fields after a chunked body (trailers) are not the response's head: a `Retry-After`
/// or a `Deprecation` sent there is never read as one the head set (RFC 9110 section
/// 6.5.1: a trailer field is merged into the head only where its definition allows).
#[tokio::test]
async fn trailer_fields_are_not_read_as_the_heads() {
    let server = always(
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: retry-after, deprecation\r\n\r\n\
          2\r\n{}\r\n0\r\nretry-after: 86400\r\ndeprecation: @1\r\nx-api-key: leaked\r\n\r\n",
        After::KeepOpen,
    )
    .await;
    let client = client();
    for path in ["/a", "/b"] {
        let reply = send(&client, &server, &get(&server.url, path))
            .await
            .unwrap();
        assert_eq!(&reply.body[..], b"{}");
        for name in ["retry-after", "deprecation", "x-api-key"] {
            assert!(
                !reply.headers.contains_key(name),
                "{name}: {:?}",
                reply.headers
            );
        }
    }
    assert_eq!(
        server.connections.load(Ordering::SeqCst),
        1,
        "the connection is reused"
    );
}

#[tokio::test]
async fn a_cookie_an_upstream_sets_is_never_sent_back() {
    let server = scripted(|n| {
        let bytes = if n == 0 {
            b"HTTP/1.1 200 OK\r\nset-cookie: session=agent-a; Path=/\r\n\
              set-cookie: role=admin\r\ncontent-length: 2\r\n\r\n{}"
                .to_vec()
        } else {
            ok("{}")
        };
        (bytes, After::KeepOpen)
    })
    .await;
    let client = client();
    for path in ["/a", "/b"] {
        send(&client, &server, &get(&server.url, path))
            .await
            .unwrap();
    }
    let requests = server.requests.lock().unwrap();
    assert!(
        !requests[1].to_ascii_lowercase().contains("cookie"),
        "{}",
        requests[1]
    );
}

#[tokio::test]
async fn a_head_too_large_to_hold_is_a_bounded_failure_that_names_no_url() {
    let huge_value = format!(
        "HTTP/1.1 200 OK\r\nx-pad: {}\r\ncontent-length: 2\r\n\r\n{{}}",
        "a".repeat(1 << 20)
    );
    let many: String = (0..10_000).map(|i| format!("x-h{i}: v\r\n")).collect();
    let many = format!("HTTP/1.1 200 OK\r\n{many}content-length: 2\r\n\r\n{{}}");
    for head in [huge_value, many] {
        let server = always(head.leak().as_bytes(), After::Close).await;
        let client = client();
        let req = get(&server.url, "/x?api_key=hunter2");
        match send(&client, &server, &req).await {
            Err(SendError::Broken { detail }) => {
                assert!(detail.contains("not valid HTTP"), "{detail}");
                assert!(!detail.contains("hunter2"), "{detail}");
            }
            other => panic!("expected a transport failure, got {other:?}"),
        }
    }
}

/// A server that sends a whole head promising 100 bytes, then one byte every 100 ms: a
/// body that is never idle long enough to trip a read timeout, and never ends in time.
async fn trickling() -> Url {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                if read_request(&mut socket, &mut Vec::new()).await.is_none() {
                    return;
                }
                let mut next: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n";
                while socket.write_all(next).await.is_ok() {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    next = b" ";
                }
            });
        }
    });
    url
}

#[tokio::test]
async fn a_body_that_trickles_in_ends_at_the_attempt_timeout_not_at_its_last_byte() {
    let url = trickling().await;
    let client = crate::upstream::UpstreamClient::new().unwrap();
    let dep = dependency(&url);
    let started = Instant::now();
    let sent = client
        .send(
            &dep,
            &get(&url, "/x"),
            Duration::from_millis(500),
            1_000,
            None,
            None,
        )
        .await;
    assert!(
        matches!(sent, Err(SendError::Timeout(t)) if t == Duration::from_millis(500)),
        "{sent:?}"
    );
    // 100 bytes at 10 a second would take 10 s.
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

/// An upstream answering in another version of HTTP than the 1.1 asked for: HTTP/1.0
/// is read (its body ends with the connection, which is then not reused); a status line
/// of HTTP/2 or 3 (which have none: they are binary), an HTTP/2 frame, a version that
/// does not exist, or bare JSON with no status line at all (HTTP/0.9) is a transport
/// failure, never a body read as a success.
#[tokio::test]
async fn an_answer_in_another_http_version_is_read_only_when_it_is_http_1() {
    let not_http_1: [&'static [u8]; 7] = [
        b"HTTP/2.0 200 OK\r\ncontent-length: 2\r\n\r\n{}",
        b"HTTP/2 200\r\ncontent-length: 2\r\n\r\n{}",
        b"HTTP/3 200\r\ncontent-length: 2\r\n\r\n{}",
        b"HTTP/1.2 200 OK\r\ncontent-length: 2\r\n\r\n{}",
        b"http/1.1 200 OK\r\ncontent-length: 2\r\n\r\n{}",
        // An HTTP/2 SETTINGS frame, as a server that speaks only HTTP/2 sends first.
        b"\0\0\x06\x04\0\0\0\0\0\0\x03\0\0\0\x64",
        b"{\"owner\":\"admin\"}",
    ];
    for answer in not_http_1 {
        let server = always(answer, After::Close).await;
        let req = get(&server.url, "/x?api_key=hunter2");
        match send(&client(), &server, &req).await {
            Err(SendError::Broken { detail }) => {
                assert!(detail.contains("not valid HTTP"), "{detail}");
                assert!(!detail.contains("hunter2"), "{detail}");
            }
            other => panic!("{:?}: {other:?}", String::from_utf8_lossy(answer)),
        }
    }
    let server = always(b"HTTP/1.0 200 OK\r\n\r\n{\"a\":1}", After::Close).await;
    let client = client();
    for path in ["/a", "/b"] {
        let reply = send(&client, &server, &get(&server.url, path))
            .await
            .unwrap();
        assert_eq!(&reply.body[..], br#"{"a":1}"#);
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 2);
}
