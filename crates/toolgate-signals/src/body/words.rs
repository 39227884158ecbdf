//! The words the readers of a successful body search its first and last KiB for before
//! reading any of it. Every successful answer is searched for some thirty of them, in
//! sets of up to a dozen, and one search per word (`memmem`) was nine tenths of reading
//! a plain answer's signals: 64 searches of a KiB per call. A set of several words is
//! searched in one pass instead, with a vectorised multi-word searcher (Teddy, from
//! `aho-corasick`'s packed searchers) where the processor has one; each set's searchers
//! are built once, at first use.

use std::sync::LazyLock;

use aho_corasick::packed;
use memchr::memmem::Finder;

/// A set of words, its searchers built at first use.
pub(super) struct Words(pub(super) LazyLock<Searcher>);

/// How a set's words are looked for.
pub(super) enum Searcher {
    /// Several words, in one pass.
    Packed(packed::Searcher),
    /// One word, or a processor without the vector instructions the packed search
    /// needs: one search per word.
    EachWord(Vec<Finder<'static>>),
}

impl Searcher {
    pub(super) fn new(words: &[&'static [u8]]) -> Searcher {
        let packed = (words.len() > 1)
            .then(|| packed::Searcher::new(words.iter().copied()))
            .flatten();
        match packed {
            Some(searcher) => Searcher::Packed(searcher),
            None => Searcher::EachWord(words.iter().map(|w| Finder::new(*w)).collect()),
        }
    }
}

impl Searcher {
    /// Whether any of the words occurs in `window`.
    fn any_in(&self, window: &[u8]) -> bool {
        match self {
            Searcher::Packed(searcher) => searcher.find(window).is_some(),
            Searcher::EachWord(finders) => finders.iter().any(|f| f.find(window).is_some()),
        }
    }
}

impl Words {
    /// Whether any of the words occurs in `window`.
    pub(super) fn any_in(&self, window: &[u8]) -> bool {
        self.0.any_in(window)
    }
}

/// Declares a [`Words`] of the given byte strings.
macro_rules! words {
    ($(#[$doc:meta])* $name:ident = [$($word:expr),+ $(,)?]) => {
        $(#[$doc])*
        pub(super) static $name: $crate::body::words::Words =
            $crate::body::words::Words(std::sync::LazyLock::new(|| {
                $crate::body::words::Searcher::new(&[$($word),+])
            }));
    };
}
pub(super) use words;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Searcher;

    words!(SOME = [b"quota", b"\"rate\""]);

    #[test]
    fn any_word_of_the_set_is_found_and_nothing_else() {
        assert!(SOME.any_in(br#"{"quota_max":10}"#));
        assert!(SOME.any_in(br#"{"rate":{"limit":1}}"#));
        assert!(!SOME.any_in(br#"{"rates":[1],"quot":2}"#));
        assert!(!SOME.any_in(b""));
    }

    /// The words of the budget and calls-left sets, and stems sharing their letters.
    const WORDS: &[&[u8]] = &[
        b"quota",
        b"Quota",
        b"atelimit",
        b"ateLimit",
        b"\"rate\"",
        b"redits",
        b"emaining_requests",
        b"allsLeft",
        b"arn",
        b"unset",
    ];

    proptest! {
        /// Several words searched in one pass find exactly what a search per word
        /// finds, in windows made of pieces of the words themselves, so near misses
        /// (`atelimi`, `"rate`, `quot`) are common.
        #[test]
        fn one_pass_finds_what_a_search_per_word_finds(
            pieces in prop::collection::vec((0..WORDS.len(), 0usize..20, 0usize..20), 0..40),
            take in 1..WORDS.len(),
        ) {
            let mut window = Vec::new();
            for (w, from, to) in pieces {
                let word = WORDS[w];
                let (from, to) = (from.min(word.len()), to.min(word.len()));
                window.extend_from_slice(&word[from.min(to)..from.max(to)]);
                window.push(b' ');
            }
            let words = &WORDS[..=take];
            let expected = words
                .iter()
                .any(|w| window.windows(w.len()).any(|at| at == *w));
            prop_assert_eq!(Searcher::new(words).any_in(&window), expected);
        }
    }

    /// On the machines toolgate ships for, a set of several words is searched in one
    /// pass (the property above then covers that search).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn several_words_are_one_pass_where_the_processor_allows() {
        if std::arch::is_x86_feature_detected!("ssse3") {
            assert!(matches!(Searcher::new(WORDS), Searcher::Packed(_)));
        }
        assert!(matches!(Searcher::new(&WORDS[..1]), Searcher::EachWord(_)));
    }
}
