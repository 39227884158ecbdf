//! The standalone GET stream of a session (server-sent events).
//!
//! toolgate sends no server-initiated messages (no sampling, no list-changed
//! notifications), and answers every POST with one JSON body, so the stream carries a
//! priming event (an id and a retry hint, so a client can resume) and then only
//! keep-alive comments. For the same reason a resume (`Last-Event-ID`) has nothing to
//! replay: it gets a fresh stream. The stream ends when the session ends, when a newer
//! GET replaces it, or when the server shuts down.

use std::time::Duration;

use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use tokio_util::sync::CancellationToken;

/// Keep-alive comment interval: inside the idle timeouts of common proxies (60 s).
const KEEP_ALIVE: Duration = Duration::from_secs(15);
/// How long a client waits before reconnecting a dropped stream.
const RETRY_MS: u32 = 3000;

/// The priming event: an event id and the retry hint, with empty data.
pub fn priming() -> Bytes {
    Bytes::from(format!("id: 0\nretry: {RETRY_MS}\ndata: \n\n"))
}

/// An SSE response that ends when `end` is cancelled. `on_tick` runs at every
/// keep-alive (the session uses it to count the open stream as activity).
pub fn response(end: CancellationToken, on_tick: impl Fn() + Send + 'static) -> Response {
    enum State {
        Start,
        Open,
    }
    let stream = futures_util::stream::unfold(State::Start, move |state| {
        let end = end.clone();
        let first = matches!(state, State::Start);
        let tick = if first { None } else { Some(()) };
        if tick.is_some() {
            on_tick();
        }
        async move {
            if first {
                return Some((
                    Ok::<Bytes, std::convert::Infallible>(priming()),
                    State::Open,
                ));
            }
            tokio::select! {
                () = end.cancelled() => None,
                () = tokio::time::sleep(KEEP_ALIVE) => {
                    Some((Ok(Bytes::from_static(b":\n\n")), State::Open))
                }
            }
        }
    });
    (
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(stream),
    )
        .into_response()
}
