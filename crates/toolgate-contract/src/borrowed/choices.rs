//! A tiny deterministic source of choices for the readers' generated tests, seeded by
//! proptest: how to write each piece of a document, which schema to generate.

/// An xorshift sequence.
pub(super) struct Choices(pub(super) u64);

impl Choices {
    /// A number below `n`.
    pub(super) fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// True one time in `n`.
    pub(super) fn one_in(&mut self, n: u64) -> bool {
        self.next(n) == 0
    }
}
