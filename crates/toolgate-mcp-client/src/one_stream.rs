//! What keeps a streamable-HTTP server's messages to the session and the stream
//! they belong to (MCP transport, 2025-11-25): a session id is assigned once, at
//! initialisation, and sent on every request after it; an event id is unique
//! across every stream of the session, and a stream resumed with `Last-Event-ID`
//! replays that stream's messages only. A server breaking either — a reply under
//! another `Mcp-Session-Id` (a balancer that sent the request to a replica holding
//! another session), a resumption answered with events already delivered or with
//! another stream's — would hand one caller's messages to another, or the same
//! question twice. What this module recognises is refused or dropped, never read
//! as this stream's.

use std::collections::{HashSet, VecDeque};
use std::hash::BuildHasher;

use http::HeaderMap;

/// Whether a reply's headers name a session other than `ours` (the id the server
/// assigned). A reply without the header is the session's: servers need not repeat
/// it. `None` (no session assigned, the stateless revision) has no other.
pub(crate) fn names_another_session(ours: Option<&str>, headers: &HeaderMap) -> bool {
    let Some(ours) = ours else {
        return false;
    };
    headers
        .get_all("mcp-session-id")
        .iter()
        .any(|v| v.as_bytes() != ours.as_bytes())
}

/// Event ids remembered per stream, at most; the oldest is forgotten first. A
/// resumption replays what followed the last id, so a repeat is recent.
const MAX_SEEN: usize = 4096;

/// The event ids a stream delivered (original and resumed connections together),
/// kept as keyed hashes: 4,096 ids of up to 1 KiB each cost 32 KiB, not 4 MiB, and
/// a server cannot aim collisions at keys it does not know.
#[derive(Debug, Default)]
pub(crate) struct SeenIds {
    keys: std::collections::hash_map::RandomState,
    set: HashSet<u64>,
    order: VecDeque<u64>,
}

impl SeenIds {
    /// True the first time `id` is seen; false for a repeat, whose event was
    /// delivered already.
    pub(crate) fn first_sight(&mut self, id: &str) -> bool {
        let h = self.keys.hash_one(id);
        if !self.set.insert(h) {
            return false;
        }
        self.order.push_back(h);
        if self.order.len() > MAX_SEEN
            && let Some(old) = self.order.pop_front()
        {
            self.set.remove(&old);
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeat_is_known_and_memory_stays_bounded() {
        let mut seen = SeenIds::default();
        assert!(seen.first_sight("1"));
        assert!(!seen.first_sight("1"));
        for i in 0..10 * MAX_SEEN {
            seen.first_sight(&format!("e{i}"));
        }
        assert!(seen.set.len() <= MAX_SEEN && seen.order.len() <= MAX_SEEN);
        // The most recent ones are still known.
        assert!(!seen.first_sight(&format!("e{}", 10 * MAX_SEEN - 1)));
    }

    #[test]
    fn only_a_different_session_id_is_another_session() {
        let mut h = HeaderMap::new();
        assert!(!names_another_session(Some("s-1"), &h));
        h.insert("mcp-session-id", "s-1".parse().unwrap());
        assert!(!names_another_session(Some("s-1"), &h));
        assert!(!names_another_session(None, &h));
        h.append("mcp-session-id", "s-2".parse().unwrap());
        assert!(names_another_session(Some("s-1"), &h));
    }
}
