//! Answers counted in the gateway's reply memory (`gateway.max_buffered_response_bytes`)
//! until they have been written to the client: a JSON answer, and every event of an
//! event stream. A tool's answer is built from the upstream's reply and is often larger
//! than it; once built, the reply's share is given back, so without this, answers
//! waiting for clients that read slowly (or not at all, until `gateway.send_timeout`)
//! would hold memory the budget does not see, and new calls would keep being admitted.
//! Counted, they make the engine refuse to read new replies while they wait.
//!
//! An answer exists once it is built, and the upstream may have acted for it, so it is
//! never refused for want of room: when the budget is already full it is counted past
//! the limit. That keeps it visible (new calls are not sent and new replies are not
//! read until it has been written), delivers an answer larger than the whole budget,
//! and cannot deadlock, since nothing waits for room that only it could free.

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use toolgate_resilience::{Held, ReplyMemory};

use crate::server::guarded::Guarded;

/// A share of `memory` holding `bytes`, past the limit if the budget is already full.
pub(super) fn hold(memory: &Arc<ReplyMemory>, bytes: usize) -> Held {
    let mut held = memory.hold();
    held.grow_to_even_past_limit(bytes);
    held
}

/// `response` with its body counted in `memory` until the body is done or dropped.
pub(super) fn counted(memory: &Arc<ReplyMemory>, response: Response) -> Response {
    let Some(size) = hyper::body::Body::size_hint(response.body()).exact() else {
        return response;
    };
    let held = hold(memory, usize::try_from(size).unwrap_or(usize::MAX));
    response.map(|body| Body::new(Guarded::new(body, held)))
}

/// One chunk of an event stream, holding `held` (grown to the chunk's size) until the
/// server has written the chunk and let go of it.
pub(super) fn counted_chunk(mut held: Held, chunk: Vec<u8>) -> Bytes {
    struct Chunk {
        bytes: Vec<u8>,
        _held: Held,
    }
    impl AsRef<[u8]> for Chunk {
        fn as_ref(&self) -> &[u8] {
            &self.bytes
        }
    }
    held.grow_to_even_past_limit(chunk.len());
    Bytes::from_owner(Chunk {
        bytes: chunk,
        _held: held,
    })
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
    }

    #[tokio::test]
    async fn an_answer_that_does_not_fit_is_counted_past_the_limit_and_still_sent() {
        let memory = ReplyMemory::new(10_000);
        let mut others = memory.hold();
        others.grow(9_000).unwrap();
        let answer = counted(&memory, vec![b'x'; 4_000].into_response());
        assert_eq!(
            memory.held(),
            13_000,
            "counted although the budget was full"
        );
        assert!(memory.is_full(), "so no new reply is read while it waits");
        drop(others);

        // Larger than the whole budget: delivered, not refused forever.
        let big = counted(&memory, vec![b'x'; 20_000].into_response());
        assert_eq!(memory.held(), 24_000);
        let written = axum::body::to_bytes(big.into_body(), usize::MAX)
            .await
            .unwrap();
        assert_eq!(written.len(), 20_000);
        drop(answer);
        assert_eq!(memory.held(), 0);
    }

    #[test]
    fn a_stream_chunk_holds_its_bytes_until_let_go() {
        let memory = ReplyMemory::new(10_000);
        let chunk = counted_chunk(memory.hold(), vec![b'x'; 3_000]);
        assert_eq!(memory.held(), 3_000);
        let copy = chunk.clone();
        drop(chunk);
        assert_eq!(memory.held(), 3_000, "a copy still being written holds it");
        drop(copy);
        assert_eq!(memory.held(), 0);
    }
}
