//! An answer counted in the gateway's reply memory (`gateway.max_buffered_response_bytes`)
//! until it has been written to the client. A tool's answer is built from the upstream's
//! reply and is often larger than it; once built, the reply's share is given back, so
//! without this, answers waiting for clients that read slowly (or not at all, until
//! `gateway.send_timeout`) would hold memory the budget does not see, and new calls
//! would keep being admitted. Counted, they make the engine refuse to read new replies
//! while they wait.

use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use toolgate_resilience::ReplyMemory;

use crate::server::guarded::Guarded;

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
    response.map(|body| Body::new(Guarded::new(body, held)))
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
