//! What one attempt on the wire produced, as both HTTP clients report it: a response
//! ([`UpstreamResponse`]) or why there is none ([`SendError`]), and the body as its
//! chunks arrive ([`Body`]).

use std::time::Duration;

use bytes::{Bytes, BytesMut};
use reqwest::header::HeaderMap;
use toolgate_resilience::Held;

/// What came back from one attempt.
#[derive(Debug)]
pub struct UpstreamResponse {
    /// HTTP status.
    pub status: u16,
    /// Response headers.
    pub headers: HeaderMap,
    /// Body (at most the configured cap).
    pub body: Bytes,
    /// Time from sending to the last body byte.
    pub latency: Duration,
    /// For a tool of an upstream MCP server: the JSON-RPC error it answered with (the
    /// body is then empty). `None` for HTTP tools, and for an MCP result, which is the
    /// body: the `result` as the server wrote it, never rewrapped or re-serialised.
    pub rpc_error: Option<Box<toolgate_mcp_client::RpcError>>,
}

/// Why an attempt produced no usable response.
#[derive(Debug, thiserror::Error)]
pub enum SendError {
    /// No complete response within the attempt's timeout.
    #[error("no response within {0:?}")]
    Timeout(Duration),
    /// Connection refused, reset, DNS or TLS failure; `detail` never contains secrets.
    #[error("connection failed: {detail}")]
    Connect {
        /// Human-readable cause.
        detail: String,
    },
    /// The HTTP client refused to build the request (nothing was sent): a request
    /// toolgate cannot form, so `client_error` — never retried, and neither a breaker
    /// failure nor a quota or budget event. `detail` never contains the URL.
    #[error("the request could not be formed: {detail}")]
    Build {
        /// What the client refused.
        detail: String,
    },
    /// The request went out, but the server (an MCP server's process) went away before
    /// answering: it may have acted, so this is retried only where a retry is safe.
    #[error("the upstream went away during the request: {detail}")]
    Broken {
        /// What happened.
        detail: String,
    },
    /// An MCP server broke the protocol: an answer that is not JSON-RPC, or a stream
    /// that ended before the answer.
    #[error("protocol error: {detail}")]
    Protocol {
        /// What was wrong.
        detail: String,
    },
    /// The body exceeded the size cap; the status is kept for metrics.
    #[error("the response body is larger than {limit} bytes")]
    TooLarge {
        /// HTTP status of the oversized response.
        status: u16,
        /// Headers, for signals.
        headers: HeaderMap,
        /// The cap.
        limit: usize,
    },
    /// An MCP server's message held more JSON values than toolgate parses of one (one
    /// per `toolgate_contract::BYTES_PER_VALUE` bytes of the size limit); it was
    /// refused on its bytes, before anything was built from it.
    #[error("the message holds more than {limit} JSON values")]
    TooManyValues {
        /// The most values a message may hold.
        limit: usize,
    },
    /// The body did not fit in what the gateway may hold of every reply at once
    /// (`gateway.max_buffered_response_bytes`): the upstream answered, but toolgate
    /// stopped reading. Nothing about the upstream is learned from it.
    #[error("toolgate is holding {held} bytes of upstream replies, its limit of {limit}")]
    NoRoom {
        /// HTTP status of the reply.
        status: u16,
        /// Headers, for signals.
        headers: HeaderMap,
        /// Bytes held when this one asked for more (of `part`).
        held: usize,
        /// The limit of `part`.
        limit: usize,
        /// The part that was full: the whole budget, the dependency's part or the
        /// calling agent's share.
        part: toolgate_resilience::ReplyPart,
    },
}

/// A response body as its chunks arrive: a body that arrives in one chunk (most, up to
/// tens of kilobytes on a keep-alive connection) is that chunk, shared, not copied (it
/// keeps the read buffer it was cut from alive while the body lives: the call, or a
/// learner's bounded queue); a longer one is gathered once, into a buffer sized by
/// `Content-Length` when given.
#[derive(Default)]
pub(super) enum Body {
    #[default]
    Empty,
    /// The only chunk so far.
    One(Bytes),
    /// Two or more chunks, gathered.
    Gathered(BytesMut),
}

impl Body {
    pub(super) fn len(&self) -> usize {
        match self {
            Body::Empty => 0,
            Body::One(chunk) => chunk.len(),
            Body::Gathered(gathered) => gathered.len(),
        }
    }

    pub(super) fn push(&mut self, chunk: Bytes, content_length: Option<u64>) {
        *self = match std::mem::take(self) {
            Body::Empty => Body::One(chunk),
            Body::One(first) => {
                // Sized by Content-Length (already checked against the cap), or by what came.
                let expected = content_length.map_or(0, |n| usize::try_from(n).unwrap_or(0));
                let mut gathered = BytesMut::with_capacity(expected.max(first.len() + chunk.len()));
                gathered.extend_from_slice(&first);
                gathered.extend_from_slice(&chunk);
                Body::Gathered(gathered)
            }
            Body::Gathered(mut gathered) => {
                gathered.extend_from_slice(&chunk);
                Body::Gathered(gathered)
            }
        };
    }

    pub(super) fn finish(self) -> Bytes {
        match self {
            Body::Empty => Bytes::new(),
            Body::One(chunk) => chunk,
            Body::Gathered(gathered) => gathered.freeze(),
        }
    }

    /// The whole body, holding its share of the gateway's reply memory until the last
    /// copy of it is dropped (the answer built from it may outlive the attempt).
    pub(super) fn finish_held(self, held: Held) -> Bytes {
        held_body(self.finish(), held)
    }
}

/// `body`, holding `held` until the last copy of it is dropped.
pub(super) fn held_body(body: Bytes, held: Held) -> Bytes {
    if held.bytes() == 0 {
        return body;
    }
    Bytes::from_owner(HeldBody { body, _held: held })
}

/// A body and its share of the reply memory, freed together.
struct HeldBody {
    body: Bytes,
    _held: Held,
}

impl AsRef<[u8]> for HeldBody {
    fn as_ref(&self) -> &[u8] {
        &self.body
    }
}

/// Takes room for `chunk` in the reply memory before it is kept: the first chunk of
/// a body with a `Content-Length` takes all of it at once, so a reply that cannot fit
/// is refused before it is read.
pub(super) fn make_room(
    held: &mut Held,
    body: &Body,
    chunk: usize,
    content_length: Option<u64>,
) -> Result<(), toolgate_resilience::NoRoom> {
    let expected = content_length.map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
    held.grow_to((body.len() + chunk).max(expected))
}

/// `text`, then `: ` and each error of the chain from `first` down. Used for transport
/// errors whose own text may carry the URL: the chain below (hyper, io) describes the
/// socket, never the URL.
pub(super) fn with_causes(mut text: String, first: Option<&dyn std::error::Error>) -> String {
    let mut cause = first;
    while let Some(e) = cause {
        text.push_str(": ");
        text.push_str(&e.to_string());
        cause = e.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_in_one_chunk_is_that_chunk_not_a_copy() {
        let chunk = Bytes::from(vec![b'x'; 12_000]);
        let mut body = Body::default();
        body.push(chunk.clone(), Some(12_000));
        assert_eq!(body.len(), 12_000);
        let done = body.finish();
        assert_eq!(done.as_ptr(), chunk.as_ptr());
        assert!(Body::default().finish().is_empty());
    }

    #[test]
    fn a_body_in_many_chunks_is_gathered_in_order() {
        for content_length in [None, Some(10), Some(4)] {
            let mut body = Body::default();
            for part in ["ab", "cde", "", "fghij"] {
                body.push(Bytes::from(part), content_length);
            }
            assert_eq!(body.len(), 10);
            assert_eq!(&body.finish()[..], b"abcdefghij");
        }
    }
}
