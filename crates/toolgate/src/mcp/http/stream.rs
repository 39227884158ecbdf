//! Server-sent events: the standalone GET stream of a session, and the event stream a
//! POST's answer becomes once its request sends the client something first.
//!
//! The GET stream opens with a priming event (an event id and a retry hint, so a client
//! can resume), then carries the server's broadcast notifications, each with its event id
//! (its sequence number in the shared ring), and keep-alive comments. A resume
//! (`Last-Event-ID`) replays the broadcasts the ring still holds after that id. The
//! stream ends when the session ends, when a newer GET replaces it, or at shutdown.
//!
//! A POST's stream carries the request's notifications and server→client requests as
//! they are sent, then the answer, and ends. Its events have no ids: the request runs
//! inside the POST, so a dropped connection cancels it (as it does for a JSON answer)
//! and there is nothing to resume.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::mcp::dispatch::Reply;
use crate::mcp::outbound::Subscriber;

/// Keep-alive comment interval: inside the idle timeouts of common proxies (60 s).
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a client waits before reconnecting a dropped stream.
const RETRY_MS: u32 = 3000;

/// The priming event: an event id and the retry hint, with empty data.
pub fn priming(id: u64) -> Bytes {
    Bytes::from(format!("id: {id}\nretry: {RETRY_MS}\ndata: \n\n"))
}

/// One SSE `message` event carrying a JSON-RPC message. A line break in the JSON (an
/// upstream body copied as it came may have some, as insignificant whitespace) would end
/// the `data:` field, so each line becomes a `data:` line of its own; the client joins
/// them with `\n`, which is whitespace in JSON too.
pub fn event(id: Option<u64>, json: &[u8], out: &mut Vec<u8>) {
    if let Some(id) = id {
        out.extend_from_slice(format!("id: {id}\n").as_bytes());
    }
    out.extend_from_slice(b"event: message\n");
    for line in json.split(|&b| b == b'\n' || b == b'\r') {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(line);
        out.push(b'\n');
    }
    out.push(b'\n');
}

fn sse(body: Body) -> Response {
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

/// The GET stream: broadcasts from `subscriber`, until `end` is cancelled. `on_tick`
/// runs at every keep-alive and event (the session counts the open stream as activity).
pub(crate) fn response(
    end: CancellationToken,
    subscriber: Subscriber,
    on_tick: impl Fn() + Send + 'static,
) -> Response {
    struct State<F> {
        end: CancellationToken,
        subscriber: Subscriber,
        on_tick: F,
        primed: bool,
    }
    let state = State {
        end,
        subscriber,
        on_tick,
        primed: false,
    };
    let stream = futures_util::stream::unfold(state, |mut s| async move {
        if !s.primed {
            s.primed = true;
            let first = priming(s.subscriber.cursor());
            return Some((Ok::<Bytes, Infallible>(first), s));
        }
        let chunk = tokio::select! {
            () = s.end.cancelled() => return None,
            batch = s.subscriber.next() => {
                let mut out = Vec::new();
                for (seq, json) in batch {
                    event(Some(seq), &json, &mut out);
                }
                Bytes::from(out)
            }
            () = tokio::time::sleep(KEEP_ALIVE) => Bytes::from_static(b":\n\n"),
        };
        (s.on_tick)();
        Some((Ok(chunk), s))
    });
    sse(Body::from_stream(stream))
}

/// The request behind a POST that turned into a stream.
pub(crate) type Work = Pin<Box<dyn Future<Output = Option<Reply>> + Send>>;

/// A POST's event stream: `first` (the message that made it a stream), then whatever
/// the request sends through `queue` while `work` runs, then its answer. `work` is
/// `None` when it has already finished with `answer`.
pub(crate) fn relay(
    first: Vec<u8>,
    work: Option<Work>,
    answer: Option<Vec<u8>>,
    queue: mpsc::Receiver<Vec<u8>>,
) -> Response {
    struct Relay {
        first: Option<Vec<u8>>,
        work: Option<Work>,
        answer: Option<Vec<u8>>,
        queue: mpsc::Receiver<Vec<u8>>,
        done: bool,
    }
    impl Relay {
        async fn next(&mut self) -> Option<Vec<u8>> {
            if let Some(first) = self.first.take() {
                return Some(first);
            }
            if self.done {
                return None;
            }
            if let Some(work) = self.work.as_mut() {
                tokio::select! {
                    biased;
                    Some(message) = self.queue.recv() => return Some(message),
                    reply = work => {
                        self.work = None;
                        self.answer = reply.map(|r| r.body);
                    }
                }
            }
            // Everything the request sent before it answered goes first.
            if let Ok(message) = self.queue.try_recv() {
                return Some(message);
            }
            self.done = true;
            self.answer.take()
        }
    }
    let relay = Relay {
        first: Some(first),
        work,
        answer,
        queue,
        done: false,
    };
    let stream = futures_util::stream::unfold(relay, |mut r| async move {
        let message = r.next().await?;
        let mut out = Vec::with_capacity(message.len() + 32);
        event(None, &message, &mut out);
        Some((Ok::<Bytes, Infallible>(Bytes::from(out)), r))
    });
    sse(Body::from_stream(stream))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_breaks_in_the_json_become_data_lines() {
        let mut out = Vec::new();
        event(Some(7), b"{\"a\":\r\n1,\r\"b\":\n2}", &mut out);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "id: 7\nevent: message\ndata: {\"a\":\ndata: \ndata: 1,\ndata: \"b\":\ndata: 2}\n\n"
        );
    }
}
