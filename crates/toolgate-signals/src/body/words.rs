//! The words the readers of a successful body search its first and last KiB for before
//! reading any of it. Every successful answer is searched for some forty of them, in
//! eight sets, and one search per word (`memmem`) was nine tenths of reading a plain
//! answer's signals: 64 searches of a KiB per call. A set of several words was then
//! searched in one pass (a vectorised multi-word searcher, Teddy, from `aho-corasick`'s
//! packed searchers), but each reader still searched both windows for its own sets: 16
//! passes over the same two KiB. Now every set is looked for in one pass per window
//! ([`sets_in`]), which says which sets occur there, and each reader asks that answer
//! ([`Seen`]) instead of searching. The searchers are built once, at first use.

use std::sync::LazyLock;

use aho_corasick::{Span, packed};
use memchr::memmem::Finder;

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
    pub(super) fn any_in(&self, window: &[u8]) -> bool {
        match self {
            Searcher::Packed(searcher) => searcher.find(window).is_some(),
            Searcher::EachWord(finders) => finders.iter().any(|f| f.find(window).is_some()),
        }
    }
}

/// A set of words a reader of a successful body looks for before reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Set {
    /// Shopify's `"throttleStatus"` ([`super::read_success`]).
    ThrottleStatus,
    /// A selected GitHub GraphQL `"rateLimit"` ([`super::read_success`]).
    RateLimit,
    /// A REST answer's `"rate_limit"` object ([`super::read_success`]).
    RateLimitObject,
    /// A GraphQL answer's `"extensions"` ([`super::read_success`]).
    Extensions,
    /// A budget's member names ([`BUDGET_WORDS`], read by [`super::members`]).
    Budget,
    /// The calls left ([`CALLS_LEFT_WORDS`]).
    CallsLeft,
    /// Stack Exchange's `"backoff"` ([`BACKOFF`]).
    Backoff,
    /// Notice words ([`NOTICE_STEMS`], read by [`super::notices`]).
    Notice,
}

/// Every set, with its words. The order of the sets is the order of their bits in
/// [`Seen`].
const SETS: [(Set, &[&[u8]]); 8] = [
    (Set::ThrottleStatus, &[b"\"throttleStatus\""]),
    (Set::RateLimit, &[b"\"rateLimit\""]),
    (Set::RateLimitObject, &[b"\"rate_limit\""]),
    (Set::Extensions, &[b"\"extensions\""]),
    (Set::Budget, BUDGET_WORDS),
    (Set::CallsLeft, CALLS_LEFT_WORDS),
    (Set::Backoff, BACKOFF),
    (Set::Notice, NOTICE_STEMS),
];

// The words of the sets the member and notice readers ask about live here rather than
// beside those readers, which ask this module which sets a window holds: so the search
// depends on no reader and each reader only on the search.

/// Substrings one of which a budget's member name holds, in either case.
const BUDGET_WORDS: &[&[u8]] = &[
    b"quota",
    b"Quota",
    b"atelimit",
    b"ateLimit",
    b"ate_limit",
    b"\"rate\"",
    b"redits",
    b"piUsage",
    b"pi_usage",
    b"equestUsage",
    b"equest_usage",
    b"_calls\"",
    b"Calls\"",
    b"_requests\"",
    b"Requests\"",
];

/// Substrings one of which a member naming the calls left holds.
const CALLS_LEFT_WORDS: &[&[u8]] = &[
    b"emaining_requests",
    b"emainingRequests",
    b"equests_remaining",
    b"equestsRemaining",
    b"equests_left",
    b"equestsLeft",
    b"emaining_calls",
    b"emainingCalls",
    b"alls_remaining",
    b"allsRemaining",
    b"alls_left",
    b"allsLeft",
];

/// The member a wait is asked for in.
const BACKOFF: &[&[u8]] = &[b"\"backoff\""];

/// The notice words [`super::notices::mentions_notice`] looks for. The stems leave out
/// their first letter, so one exact search finds `warning` and `Warnings`.
pub(super) const NOTICE_STEMS: &[&[u8]] = &[
    b"arn",
    b"eprecat",
    b"otice",
    b"unset",
    b"dvisor",
    // Other languages' words for a warning or a notice (`avisos`, `avviso`, `Hinweise`,
    // `uyari`; Swedish `varning` holds `arn`): see `notices::is_notice_name`.
    b"viso",
    b"inweis",
    b"uyar",
    // Other languages' words for deprecated and switched off, as a notice or an
    // envelope's message says them ("Cette version de l'API est obsolète", "Метод
    // устарел"): see `warning::languages`. Stems, so a capital does not hide one; few,
    // since every word here is searched on every successful answer.
    b"bsol",
    b"eraltet",
    b"escontinu",
    b"erouderd",
    "åldra".as_bytes(),
    b"rzestarza",
    b"astaral",
    "kaldır".as_bytes(),
    "устар".as_bytes(),
    "非推奨".as_bytes(),
    "廃止".as_bytes(),
    "废弃".as_bytes(),
    "弃用".as_bytes(),
    "下线".as_bytes(),
    "사용되지".as_bytes(),
];

/// Which sets of words occur in one window.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Seen(u16);

impl Seen {
    /// Whether a word of `set` occurs in the window.
    pub(super) fn has(self, set: Set) -> bool {
        self.0 & Seen::bit(set) != 0
    }

    fn add(&mut self, set: Set) {
        self.0 |= Seen::bit(set);
    }

    /// Whether every set has been found, so the rest of the window cannot add one.
    fn is_full(self) -> bool {
        self.0 == (1 << SETS.len()) - 1
    }

    fn bit(set: Set) -> u16 {
        1 << (set as u16)
    }
}

/// Which sets occur in a body's first `window` bytes and in its last.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Ends {
    /// In `body[..window]`.
    pub(super) head: Seen,
    /// In `body[len - window..]`.
    pub(super) tail: Seen,
}

impl Ends {
    /// Whether a word of `set` occurs in either window.
    pub(super) fn either_has(self, set: Set) -> bool {
        self.head.has(set) || self.tail.has(set)
    }
}

/// Which sets occur in the first and the last `window` bytes of `body`: one pass over
/// each.
pub(super) fn sets_in(body: &[u8], window: usize) -> Ends {
    let head = &body[..body.len().min(window)];
    let tail = &body[body.len().saturating_sub(window)..];
    let head_seen = ALL_SETS.seen(head);
    // A body no longer than the window is its own tail.
    let tail_seen = if body.len() <= window {
        head_seen
    } else {
        ALL_SETS.seen(tail)
    };
    Ends {
        head: head_seen,
        tail: tail_seen,
    }
}

/// Every word of [`SETS`] in one searcher, built at first use.
static ALL_SETS: LazyLock<OnePass> = LazyLock::new(|| OnePass::new(&SETS));

/// Every word of several sets, searched in one pass.
struct OnePass {
    /// Each word searched together and its set; a word's index is its pattern's.
    words: Vec<(&'static [u8], Set)>,
    /// For each of `words`, the others that can match where it does (one is a prefix of
    /// the other) and belong to another set: a search reports one word per place.
    same_start: Vec<Vec<usize>>,
    searcher: Searcher,
    /// The words shorter than [`OnePass::SHORTEST_TOGETHER`], each searched alone, and
    /// their sets.
    short: Vec<(Finder<'static>, Set)>,
}

impl OnePass {
    /// The shortest word searched with the others. The packed search first tests each
    /// place by the first bytes of the words (at most four), and with a three-byte word
    /// among forty, most places of a JSON text pass that test and are then compared
    /// word by word: two KiB cost 17,000 instructions (callgrind), against 7,600 with
    /// the three-byte word searched alone.
    const SHORTEST_TOGETHER: usize = 4;

    fn new(sets: &[(Set, &'static [&'static [u8]])]) -> OnePass {
        let all = sets
            .iter()
            .flat_map(|(set, words)| words.iter().map(move |w| (*w, *set)));
        let (words, short): (Vec<_>, Vec<_>) =
            all.partition(|(word, _)| word.len() >= OnePass::SHORTEST_TOGETHER);
        let same_start = words
            .iter()
            .map(|(word, set)| {
                words
                    .iter()
                    .enumerate()
                    .filter(|(_, (other, other_set))| {
                        other_set != set && (word.starts_with(other) || other.starts_with(word))
                    })
                    .map(|(i, _)| i)
                    .collect()
            })
            .collect();
        let together: Vec<&'static [u8]> = words.iter().map(|(w, _)| *w).collect();
        OnePass {
            searcher: Searcher::new(&together),
            words,
            same_start,
            short: short
                .into_iter()
                .map(|(word, set)| (Finder::new(word), set))
                .collect(),
        }
    }

    /// Which sets occur in `window`. Each place where some word starts is found once (a
    /// search resumes one byte after the last place found), and the words of other sets
    /// that could start there too are compared in place, so no word is hidden by
    /// another: the work is one pass plus a few comparisons per place found, and one
    /// search per short word whose set is not found yet.
    fn seen(&self, window: &[u8]) -> Seen {
        let mut seen = Seen::default();
        match &self.searcher {
            Searcher::Packed(searcher) => {
                let mut from = 0;
                while from < window.len() && !seen.is_full() {
                    let Some(found) = searcher.find_in(window, Span::from(from..window.len()))
                    else {
                        break;
                    };
                    let (at, id) = (found.start(), found.pattern().as_usize());
                    seen.add(self.words[id].1);
                    for &other in &self.same_start[id] {
                        let (word, set) = self.words[other];
                        if window[at..].starts_with(word) {
                            seen.add(set);
                        }
                    }
                    from = at + 1;
                }
            }
            Searcher::EachWord(finders) => {
                for (finder, (_, set)) in finders.iter().zip(&self.words) {
                    if !seen.has(*set) && finder.find(window).is_some() {
                        seen.add(*set);
                    }
                }
            }
        }
        for (finder, set) in &self.short {
            if !seen.has(*set) && finder.find(window).is_some() {
                seen.add(*set);
            }
        }
        seen
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::{OnePass, SETS, Searcher, Seen, Set, sets_in};

    #[test]
    fn any_word_of_the_set_is_found_and_nothing_else() {
        let some = Searcher::new(&[b"quota", b"\"rate\""]);
        assert!(some.any_in(br#"{"quota_max":10}"#));
        assert!(some.any_in(br#"{"rate":{"limit":1}}"#));
        assert!(!some.any_in(br#"{"rates":[1],"quot":2}"#));
        assert!(!some.any_in(b""));
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

    /// What a search per word finds of `sets` in `window`: the sets one of whose words
    /// occurs there.
    fn each_word(sets: &[(Set, &[&[u8]])], window: &[u8]) -> Seen {
        let mut seen = Seen::default();
        for (set, words) in sets {
            if words
                .iter()
                .any(|w| window.windows(w.len()).any(|at| at == *w))
            {
                seen.add(*set);
            }
        }
        seen
    }

    /// Sets whose words start alike across sets: one word the prefix of another's.
    const PREFIXED: [(Set, &[&[u8]]); 4] = [
        (Set::Budget, &[b"\"rate", b"quota"]),
        (Set::RateLimit, &[b"\"rateLimit\""]),
        (Set::Notice, &[b"\"r", b"arn"]),
        (Set::Backoff, &[b"quota_max"]),
    ];

    /// A window made of pieces of `sets`' words (near misses are common), bytes of any
    /// value, and long runs of one byte.
    fn window_of(sets: &[(Set, &[&[u8]])], pieces: &[(usize, usize, usize, u8)]) -> Vec<u8> {
        let words: Vec<&[u8]> = sets.iter().flat_map(|(_, w)| w.iter().copied()).collect();
        let mut window = Vec::new();
        for &(w, from, to, byte) in pieces {
            match w % 8 {
                0 => window.push(byte),
                1 => window.extend(std::iter::repeat_n(byte, from * 16)),
                _ => {
                    let word = words[w % words.len()];
                    let (from, to) = (from.min(word.len()), to.min(word.len()));
                    window.extend_from_slice(&word[from.min(to)..]);
                    if to < from {
                        window.push(byte);
                    }
                }
            }
        }
        window
    }

    proptest! {
        /// Every set is looked for in one pass, and the sets it finds are those a search
        /// per word finds: in windows of pieces of the words, where a word of one set
        /// often starts where another's does (`"rate` and `"rateLimit"`), among bytes of
        /// any value and long runs.
        #[test]
        fn the_sets_found_in_one_pass_are_those_a_search_per_word_finds(
            pieces in prop::collection::vec((0usize..64, 0usize..24, 0usize..24, any::<u8>()), 0..60),
        ) {
            for sets in [&SETS[..], &PREFIXED[..]] {
                let window = window_of(sets, &pieces);
                prop_assert_eq!(OnePass::new(sets).seen(&window), each_word(sets, &window));
            }
        }

        /// Both ends of a body are read as the readers read them: its first and its last
        /// window, alike when they overlap.
        #[test]
        fn each_end_of_a_body_is_its_own_window(
            pieces in prop::collection::vec((0usize..64, 0usize..24, 0usize..24, any::<u8>()), 0..200),
            window in 1usize..1200,
        ) {
            let body = window_of(&SETS, &pieces);
            let ends = sets_in(&body, window);
            prop_assert_eq!(ends.head, each_word(&SETS, &body[..body.len().min(window)]));
            prop_assert_eq!(
                ends.tail,
                each_word(&SETS, &body[body.len().saturating_sub(window)..])
            );
        }
    }

    #[test]
    fn a_word_that_starts_where_another_sets_word_starts_is_not_hidden() {
        let one_pass = OnePass::new(&PREFIXED);
        let seen = one_pass.seen(br#"{"rateLimit":{"quota_max":1}}"#);
        for set in [Set::Budget, Set::RateLimit, Set::Notice, Set::Backoff] {
            assert!(seen.has(set), "{set:?}");
        }
        assert!(!one_pass.seen(b"{}").has(Set::Budget));
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
        if std::arch::is_x86_feature_detected!("ssse3") {
            let all: Vec<&'static [u8]> =
                SETS.iter().flat_map(|(_, w)| w.iter().copied()).collect();
            assert!(matches!(Searcher::new(&all), Searcher::Packed(_)));
        }
    }
}
