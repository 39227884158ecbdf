//! The words the readers of a successful body search its first and last KiB for before
//! reading any of it. Every successful answer is searched for some fifteen of them, and
//! a searcher built per word per call cost about as much as the searches themselves
//! (a profile of the HTTP tool's call path: building 1 %, searching 1 %), so each set's
//! searchers are built once.

use std::sync::LazyLock;

use memchr::memmem::Finder;

/// A set of words, its searchers built at first use.
pub(super) struct Words(pub(super) LazyLock<Vec<Finder<'static>>>);

impl Words {
    /// Whether any of the words occurs in `window`.
    pub(super) fn any_in(&self, window: &[u8]) -> bool {
        self.0.iter().any(|f| f.find(window).is_some())
    }
}

/// Declares a [`Words`] of the given byte strings.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident = [$($word:expr),+ $(,)?]) => {
        $(#[$doc])*
        pub(super) static $name: $crate::body::words::Words =
            $crate::body::words::Words(std::sync::LazyLock::new(|| {
                vec![$(memchr::memmem::Finder::new($word)),+]
            }));
    };
}
pub(super) use words;

#[cfg(test)]
mod tests {
    words!(SOME = [b"quota", b"\"rate\""]);

    #[test]
    fn any_word_of_the_set_is_found_and_nothing_else() {
        assert!(SOME.any_in(br#"{"quota_max":10}"#));
        assert!(SOME.any_in(br#"{"rate":{"limit":1}}"#));
        assert!(!SOME.any_in(br#"{"rates":[1],"quot":2}"#));
        assert!(!SOME.any_in(b""));
    }
}
