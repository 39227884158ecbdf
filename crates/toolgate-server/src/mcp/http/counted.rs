//! An answer counted in the gateway's reply memory (`gateway.max_buffered_response_bytes`)
//! until it has been written to the client. A tool's answer is built from the upstream's
//! reply and is often larger than it; once built, the reply's share is given back, so
//! without this, answers waiting for clients that read slowly (or not at all, until
//! `gateway.send_timeout`) would hold memory the budget does not see, and new calls
//! would keep being admitted. Counted, they make the engine refuse to read new replies
//! while they wait.

use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use toolgate_resilience::{Held, ReplyMemory};

/// `response` with its body counted in `memory` until the body is done or dropped. A
/// body that does not fit is sent uncounted: the budget is full, which already stops
/// new replies from being read.
pub(super) fn counted(memory: &Arc<ReplyMemory>, response: Response) -> Response {
    let Some(size) = hyper::body::Body::size_hint(response.body()).exact() else {
        return response;
    };
    let mut held = memory.hold();
    if held
        .grow(usize::try_from(size).unwrap_or(usize::MAX))
        .is_err()
    {
        return response;
    }
    response.map(|body| Body::new(Counted { body, _held: held }))
}

/// A body and what it holds of the reply memory (given back when it is dropped).
struct Counted {
    body: Body,
    _held: Held,
}

impl hyper::body::Body for Counted {
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

#[cfg(test)]
mod tests {
    use super::*;
    use axum::response::IntoResponse as _;

    #[tokio::test]
    async fn an_answer_holds_its_bytes_until_it_is_written() {
        let memory = ReplyMemory::new(10_000);
        let answer = counted(&memory, vec![b'x'; 4_000].into_response());
        assert_eq!(
            memory.held(),
            4_000,
            "counted while it waits for the client"
        );
        let written = axum::body::to_bytes(answer.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(written.len(), 4_000);
        assert_eq!(memory.held(), 0, "given back once written");

        // Dropped unwritten (the client went away): given back too.
        drop(counted(&memory, vec![b'x'; 4_000].into_response()));
        assert_eq!(memory.held(), 0);

        // Over the limit: sent as it is, the full budget already stops new replies.
        let big = counted(&memory, vec![b'x'; 20_000].into_response());
        assert_eq!(memory.held(), 0);
        drop(big);
    }
}
