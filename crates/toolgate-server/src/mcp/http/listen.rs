//! The stream a 2026-07-28 `subscriptions/listen` POST is answered with: the
//! acknowledgement first, then the server's broadcast notifications the subscription
//! honours, each tagged with its id (`crate::mcp::listen` decides which and how), and
//! keep-alive comments. It ends when the client closes it or at shutdown; the resources
//! it followed are then let go (its reader number closes with it).

use std::convert::Infallible;
use std::sync::Arc;

use axum::body::Body;
use axum::response::Response;
use bytes::Bytes;
use tokio_util::sync::CancellationToken;
use toolgate_engine::broadcast::{ReaderHandle, Subscriber};
use toolgate_resilience::ReplyMemory;

use super::counted::counted_chunk;
use super::stream::{KEEP_ALIVE, event, sse};
use crate::mcp::jsonrpc::Id;
use crate::mcp::listen::{Wanted, tagged};

/// One subscription's stream.
pub(super) struct Listening {
    /// The listen request's id: the subscription's id.
    pub id: Id,
    /// What the subscription carries.
    pub honoured: Wanted,
    /// The acknowledgement, sent first.
    pub ack: Vec<u8>,
    /// The broadcasts after the moment it was opened, as its own reader.
    pub subscriber: Subscriber,
    /// Its reader number; the resources it follows are let go when this drops.
    #[expect(dead_code, reason = "held for its drop, which ends the subscriptions")]
    pub reader: ReaderHandle,
}

/// The subscription's event stream, until `end` is cancelled or the client goes.
pub(super) fn response(memory: Arc<ReplyMemory>, end: CancellationToken, l: Listening) -> Response {
    struct State {
        memory: Arc<ReplyMemory>,
        end: CancellationToken,
        listening: Listening,
        acknowledged: bool,
    }
    let state = State {
        memory,
        end,
        listening: l,
        acknowledged: false,
    };
    let stream = futures_util::stream::unfold(state, |mut s| async move {
        if !s.acknowledged {
            s.acknowledged = true;
            let mut out = Vec::new();
            event(None, &s.listening.ack, &mut out);
            return Some((Ok::<Bytes, Infallible>(Bytes::from(out)), s));
        }
        loop {
            let chunk = tokio::select! {
                () = s.end.cancelled() => return None,
                batch = s.listening.subscriber.next() => {
                    let mut out = Vec::new();
                    let l = &s.listening;
                    for (_, json) in batch {
                        if let Some(message) = tagged(&l.id, &l.honoured, &json) {
                            event(None, &message, &mut out);
                        }
                    }
                    if out.is_empty() {
                        // Nothing of this batch is the subscription's.
                        continue;
                    }
                    counted_chunk(s.memory.hold(), out)
                }
                () = tokio::time::sleep(KEEP_ALIVE) => Bytes::from_static(b":\n\n"),
            };
            return Some((Ok(chunk), s));
        }
    });
    sse(Body::from_stream(stream))
}
