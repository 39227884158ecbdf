//! The cursors of one paginated listing. A server whose `nextCursor` comes back
//! to one it gave before lists in a loop: its listing ends there, instead of
//! asking for the same pages again until the page cap (one agent's
//! `resources/list` would otherwise cost a hundred upstream requests, each
//! allowed the whole timeout).
//!
//! A listing as a whole has one deadline too ([`Deadline`]): a server that answers
//! each page just within the timeout would otherwise hold one listing for as many
//! timeouts as it has pages.

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::time::Duration;

use serde_json::Value;

/// A whole listing may take this many times the server's timeout, however many
/// pages it has.
pub(crate) const LISTING_TIMEOUTS: u32 = 4;

/// The time one listing of a server has left.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: tokio::time::Instant,
    timeout: Duration,
}

impl Deadline {
    /// A listing starting now, of a server whose requests get `timeout` each.
    pub(crate) fn start(timeout: Duration) -> Self {
        Deadline {
            at: tokio::time::Instant::now() + timeout.saturating_mul(LISTING_TIMEOUTS),
            timeout,
        }
    }

    /// The timeout of the next page: the server's, or what is left when less;
    /// `None` once the listing's time is up.
    pub(crate) fn page_timeout(&self) -> Option<Duration> {
        let left = self
            .at
            .saturating_duration_since(tokio::time::Instant::now());
        (!left.is_zero()).then(|| left.min(self.timeout))
    }

    /// Whether the listing's time is up.
    pub(crate) fn passed(&self) -> bool {
        self.page_timeout().is_none()
    }

    /// Why a listing was cut off, for the log, the incident and `dependency_health`.
    pub(crate) fn cut_off(&self, method: &str, pages: usize) -> String {
        format!(
            "{method} did not finish within its deadline ({LISTING_TIMEOUTS} × the server's timeout of {:?}, {} pages read); the listing is cut off there",
            self.timeout, pages
        )
    }
}

/// The longest cursor sent back, as JSON text. A cursor is opaque and echoed in the
/// next request: a server must not make each page's request carry a megabyte (real
/// servers' cursors are offsets or ids, a few dozen bytes).
pub(crate) const MAX_CURSOR_BYTES: usize = 4096;

/// Why a listing ends at `cursor` rather than asking for its page, if it does.
pub(crate) fn refused_cursor(method: &str, cursor: &Value) -> Option<String> {
    let len = super::limits::json_len(cursor);
    (len > MAX_CURSOR_BYTES).then(|| {
        format!(
            "{method} gave a cursor of {len} bytes, longer than the {MAX_CURSOR_BYTES} toolgate sends back; the listing is cut off there"
        )
    })
}

/// The cursors a listing was given, as hashes of their JSON text: a cursor may
/// be as large as a message, and a hundred of them must not be kept whole.
#[derive(Default)]
pub(crate) struct Cursors {
    seen: HashSet<u64>,
}

impl Cursors {
    /// Whether `cursor` is new to this listing; it is remembered.
    pub(crate) fn fresh(&mut self, cursor: &Value) -> bool {
        let mut hasher = DefaultHasher::new();
        cursor.to_string().hash(&mut hasher);
        self.seen.insert(hasher.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[tokio::test(start_paused = true)]
    async fn a_listing_has_its_timeouts_in_all_and_the_last_page_what_is_left() {
        let deadline = Deadline::start(Duration::from_secs(10));
        assert_eq!(deadline.page_timeout(), Some(Duration::from_secs(10)));
        tokio::time::sleep(Duration::from_secs(35)).await;
        assert_eq!(deadline.page_timeout(), Some(Duration::from_secs(5)));
        tokio::time::sleep(Duration::from_secs(5)).await;
        assert!(deadline.passed());
    }

    #[test]
    fn a_cursor_longer_than_what_is_sent_back_is_refused() {
        assert_eq!(refused_cursor("tools/list", &json!("p2")), None);
        let at_limit = json!("c".repeat(MAX_CURSOR_BYTES - 2));
        assert_eq!(refused_cursor("tools/list", &at_limit), None);
        let past = json!("c".repeat(MAX_CURSOR_BYTES - 1));
        let why = refused_cursor("tools/list", &past).unwrap_or_default();
        assert!(why.contains("4097 bytes"), "{why}");
    }

    #[test]
    fn a_cursor_given_twice_is_not_fresh() {
        let mut cursors = Cursors::default();
        assert!(cursors.fresh(&json!("a")));
        assert!(cursors.fresh(&json!("b")));
        assert!(cursors.fresh(&json!(1)));
        assert!(!cursors.fresh(&json!("a")));
        assert!(!cursors.fresh(&json!(1)));
        // The string "1" is not the number 1.
        assert!(cursors.fresh(&json!("1")));
    }
}
