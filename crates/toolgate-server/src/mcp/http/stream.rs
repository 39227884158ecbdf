//! Server-sent events: the standalone GET stream of a session, and the event stream a
//! POST's answer becomes once its request sends the client something first.
//!
//! The GET stream opens with a priming event (an event id and a retry hint, so a client
//! can resume) for a session of 2025-11-25, the revision that introduced it; an older
//! session's stream opens with a comment instead, because its clients take every event's
//! data for a JSON-RPC message and fail on the priming event's empty one (the Python SDK
//! before 2025-11-25 logs a parse error for it). Then it carries the server's broadcast
//! notifications, each with its event id
//! (its sequence number in the shared ring), and keep-alive comments. A resume
//! (`Last-Event-ID`) replays the broadcasts the ring still holds after that id. The
//! stream ends when the session ends, when a newer GET replaces it, or at shutdown.
//!
//! A POST's stream carries the request's notifications and server→client requests as
//! they are sent, then the answer, and ends. Its events have no ids: the request runs
//! inside the POST, so a dropped connection cancels it (as it does for a JSON answer)
//! and there is nothing to resume.
//!
//! Every event counts in the reply memory until it has been written, as a JSON answer
//! does (`counted.rs`); a POST's answer from the moment the request gives it, since
//! events sent before it may keep it waiting behind a client that does not read.

use std::convert::Infallible;
use std::future::Future;
use std::ops::ControlFlow;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use toolgate_resilience::{Held, ReplyMemory};

use super::counted::{counted_chunk, hold};
use crate::mcp::dispatch::Reply;
use toolgate_engine::broadcast::Subscriber;

/// Keep-alive comment interval: inside the idle timeouts of common proxies (60 s).
pub(super) const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a client waits before reconnecting a dropped stream.
const RETRY_MS: u32 = 3000;

/// The first revision whose clients expect the priming event.
pub(super) const PRIMING_VERSION: &str = "2025-11-25";

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

pub(super) fn sse(body: Body) -> Response {
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

/// The GET stream: broadcasts from `subscriber`, until `end` is cancelled, opened by the
/// priming event where `prime` (else by a comment, so the client sees the stream open at
/// once all the same). `on_tick` runs at every keep-alive and event (the session counts
/// the open stream as activity).
pub(crate) fn response(
    memory: Arc<ReplyMemory>,
    end: CancellationToken,
    subscriber: Subscriber,
    prime: bool,
    on_tick: impl Fn() + Send + 'static,
) -> Response {
    struct State<F> {
        memory: Arc<ReplyMemory>,
        end: CancellationToken,
        subscriber: Subscriber,
        on_tick: F,
        primed: bool,
    }
    let state = State {
        memory,
        end,
        subscriber,
        on_tick,
        primed: false,
    };
    let stream = futures_util::stream::unfold(state, move |mut s| async move {
        if !s.primed {
            s.primed = true;
            let first = if prime {
                priming(s.subscriber.cursor())
            } else {
                Bytes::from_static(b":\n\n")
            };
            return Some((Ok::<Bytes, Infallible>(first), s));
        }
        let chunk = tokio::select! {
            () = s.end.cancelled() => return None,
            batch = s.subscriber.next() => {
                let mut out = Vec::new();
                for (seq, json) in batch {
                    event(Some(seq), &json, &mut out);
                }
                counted_chunk(s.memory.hold(), out)
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

/// What became of a question a 2026-07-28 call asked its client (`input_required.rs`).
pub(crate) enum Asked {
    /// The call is parked: this input-required answer ends the stream.
    Parked(Vec<u8>),
    /// It could not be: the question was refused in toolgate's name, and the call
    /// goes on here.
    GoesOn(Work, mpsc::Receiver<Vec<u8>>),
}

/// Parks a 2026-07-28 call at the questions it asks its client (`input_required.rs`).
pub(crate) trait Parker: Send {
    /// Whether `message`, sent by the call, is a question to its client.
    fn asks(&self, message: &[u8]) -> bool;
    /// Parks the call (`work`, its `queue`) at its question `message`.
    fn park(&mut self, message: Vec<u8>, work: Work, queue: mpsc::Receiver<Vec<u8>>) -> Asked;
}

/// A POST's event stream: `first` (the message that made it a stream), then whatever
/// the request sends through `queue` while `work` runs, then its answer. `work` is
/// `None` when it has already finished with `answer`. While the request waits (for a
/// client's answer to a question, say, which a person may take minutes to give), a
/// keep-alive comment goes out every 15 s so proxies keep the connection, and `on_tick`
/// runs (the session counts the call as activity, so it does not expire under it).
/// With a `parker` (a 2026-07-28 call), a question is not sent as a request on the
/// stream, which that revision forbids: the parker decides what ends the stream.
pub(crate) fn relay(
    memory: Arc<ReplyMemory>,
    first: Vec<u8>,
    work: Option<Work>,
    answer: Option<Vec<u8>>,
    queue: mpsc::Receiver<Vec<u8>>,
    parker: Option<Box<dyn Parker>>,
    on_tick: impl Fn() + Send + 'static,
) -> Response {
    let answer = answer.map(|answer| {
        let held = hold(&memory, answer.len());
        (answer, held)
    });
    let relay = Relay {
        memory,
        first: Some(first),
        work,
        answer,
        queue,
        parker,
        done: false,
        on_tick,
    };
    let stream = futures_util::stream::unfold(relay, |mut r| async move {
        let chunk = r.next().await?.into_chunk();
        Some((Ok::<Bytes, Infallible>(chunk), r))
    });
    sse(Body::from_stream(stream))
}

/// A POST's stream in progress: what [`relay`] sends, in order.
struct Relay<F> {
    memory: Arc<ReplyMemory>,
    first: Option<Vec<u8>>,
    work: Option<Work>,
    /// The answer, counted while it waits behind the events sent before it.
    answer: Option<(Vec<u8>, Held)>,
    queue: mpsc::Receiver<Vec<u8>>,
    parker: Option<Box<dyn Parker>>,
    done: bool,
    on_tick: F,
}

/// What a POST's stream sends next.
enum Out {
    Message(Vec<u8>, Held),
    KeepAlive,
}

impl Out {
    /// The bytes on the wire: a message as an event, counted until written, or a
    /// keep-alive comment.
    fn into_chunk(self) -> Bytes {
        match self {
            Out::Message(message, held) => {
                let mut out = Vec::with_capacity(message.len() + 32);
                event(None, &message, &mut out);
                counted_chunk(held, out)
            }
            Out::KeepAlive => Bytes::from_static(b":\n\n"),
        }
    }
}

/// What happened while the request ran.
enum Next {
    Sent(Vec<u8>),
    Answered(Option<Reply>),
    Quiet,
}

impl<F: Fn()> Relay<F> {
    /// The next thing to send: the first message, then what the request sends while it
    /// runs (or a keep-alive while it is quiet), then what it queued, then its answer.
    async fn next(&mut self) -> Option<Out> {
        if let Some(first) = self.first.take() {
            return Some(self.message(first));
        }
        if self.done {
            return None;
        }
        while let Some(work) = self.work.as_mut() {
            let next = tokio::select! {
                biased;
                Some(message) = self.queue.recv() => Next::Sent(message),
                reply = work => Next::Answered(reply),
                () = tokio::time::sleep(KEEP_ALIVE) => Next::Quiet,
            };
            match next {
                Next::Sent(message) => {
                    if let ControlFlow::Break(out) = self.sent(message) {
                        return out;
                    }
                }
                Next::Answered(reply) => self.answered(reply),
                Next::Quiet => {
                    (self.on_tick)();
                    return Some(Out::KeepAlive);
                }
            }
        }
        self.queued_then_answer()
    }

    /// A message the running request sent: sent on, or (a question, with a parker)
    /// parked; `Continue` when the call goes on without anything to send.
    fn sent(&mut self, message: Vec<u8>) -> ControlFlow<Option<Out>> {
        let Some(parker) = self.parker.as_mut() else {
            return ControlFlow::Break(Some(self.message(message)));
        };
        if !parker.asks(&message) {
            return ControlFlow::Break(Some(self.message(message)));
        }
        let (Some(work), queue) = (
            self.work.take(),
            std::mem::replace(&mut self.queue, mpsc::channel(1).1),
        ) else {
            return ControlFlow::Break(None);
        };
        match parker.park(message, work, queue) {
            Asked::Parked(answer) => {
                self.done = true;
                ControlFlow::Break(Some(self.message(answer)))
            }
            Asked::GoesOn(work, queue) => {
                self.work = Some(work);
                self.queue = queue;
                ControlFlow::Continue(())
            }
        }
    }

    /// The request has answered: its answer counted from here on.
    fn answered(&mut self, reply: Option<Reply>) {
        self.work = None;
        self.answer = reply.map(|r| {
            let held = hold(&self.memory, r.body.len());
            (r.body, held)
        });
    }

    /// After the request: what it queued, then its answer, then the end.
    fn queued_then_answer(&mut self) -> Option<Out> {
        // Everything the request sent before it answered goes first — except a
        // question still queued: the call that asked it has ended, so nobody would
        // take its answer (and a 2026-07-28 stream carries no requests at all).
        while let Ok(message) = self.queue.try_recv() {
            if !crate::mcp::outbound::is_request(&message) {
                return Some(self.message(message));
            }
        }
        self.done = true;
        self.answer
            .take()
            .map(|(answer, held)| Out::Message(answer, held))
    }

    /// A message sent before the answer, counted from here on.
    fn message(&self, message: Vec<u8>) -> Out {
        let held = hold(&self.memory, message.len());
        Out::Message(message, held)
    }
}

#[cfg(test)]
mod tests;
