//! The cursors of one paginated listing. A server whose `nextCursor` comes back
//! to one it gave before lists in a loop: its listing ends there, instead of
//! asking for the same pages again until the page cap (one agent's
//! `resources/list` would otherwise cost a hundred upstream requests, each
//! allowed the whole timeout).

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

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
