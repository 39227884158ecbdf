//! A response body that holds something until the body has been written or dropped:
//! a connection's count of requests in flight (`listener.rs`), an answer's share of
//! the reply memory (`mcp/http/counted.rs`). Holding it in the body, not in the
//! handler, keeps it until the last byte left, however slowly the client reads.

use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::Body;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};

/// `body`, holding `guard` until it is done or dropped.
pub struct Guarded<G> {
    body: Body,
    _guard: G,
}

impl<G> Guarded<G> {
    /// `body` holding `guard`.
    pub fn new(body: Body, guard: G) -> Guarded<G> {
        Guarded {
            body,
            _guard: guard,
        }
    }
}

// The guard is never pinned: only the body is polled.
impl<G> Unpin for Guarded<G> {}

impl<G: Send + 'static> hyper::body::Body for Guarded<G> {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}
