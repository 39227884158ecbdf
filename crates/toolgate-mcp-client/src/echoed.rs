//! Values a server hands the client only for the client to send them back as
//! headers: its session id (`Mcp-Session-Id`, on every request) and an event
//! stream's last event id (`Last-Event-ID`, when a stream is resumed). The
//! spec makes them opaque, so a server could make the client repeat a megabyte
//! on every request, or a value no header may carry: each is kept only within
//! [`MAX_ECHOED`] bytes of visible ASCII.
//!
//! A server of the stateless revision also hands back, in an input-required result,
//! a `requestState` and the keys of its questions, both sent back with the answers
//! in the retried request, round after round: the state is kept within
//! [`MAX_ECHOED_STATE`] bytes as JSON and each key within [`MAX_ECHOED`] bytes.

/// The longest value sent back, in bytes. Real servers use ids of a few dozen
/// (UUIDs, counters).
pub(crate) const MAX_ECHOED: usize = 1024;

/// The largest `requestState` sent back, as JSON. Servers keep a few identifiers in
/// it, or their state sealed (kilobytes); more is a server making the client carry it.
pub(crate) const MAX_ECHOED_STATE: usize = 64 * 1024;

/// Whether `value` may be sent back: at most [`MAX_ECHOED`] bytes, each visible
/// ASCII (a space too when `space` allows it: an event id may hold one, a
/// session id may not).
pub(crate) fn echoable(value: &[u8], space: bool) -> bool {
    value.len() <= MAX_ECHOED
        && value
            .iter()
            .all(|b| matches!(b, b'!'..=b'~') || (space && *b == b' '))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_short_visible_ascii_is_sent_back() {
        assert!(echoable(b"1f0e-42", false));
        assert!(echoable(&[b'a'; MAX_ECHOED], false));
        assert!(!echoable(&[b'a'; MAX_ECHOED + 1], false));
        assert!(!echoable(b"a b", false));
        assert!(echoable(b"a b", true));
        for bad in [&b"a\x01"[..], b"a\x7f", "caf\u{e9}".as_bytes(), b"a\tb"] {
            assert!(!echoable(bad, true), "{bad:?}");
        }
    }
}
