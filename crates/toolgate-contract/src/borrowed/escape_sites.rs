//! Where a checked body's bytes need escaping inside a JSON string, found by the check.

/// The offsets, in order, of every byte of a body that writing the body inside a JSON
/// string must escape (`"`, `\` and control bytes), noted while the contract's read
/// check read it (see [`ResponseContract::vouch`](crate::ResponseContract::vouch)).
///
/// Why: the answer carries a checked body twice, once as it is and once escaped into a
/// text block. With the offsets known, the escaped copy is a copy of the runs between
/// them, and the body is not searched a second time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EscapeSites(Vec<u32>);

impl EscapeSites {
    pub(crate) fn new(offsets: Vec<u32>) -> EscapeSites {
        EscapeSites(offsets)
    }

    /// The offsets, ascending.
    pub fn offsets(&self) -> &[u32] {
        &self.0
    }
}
